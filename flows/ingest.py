"""The ingest job (pipeline/jobs.py ``ingest``) as a tracked Prefect flow."""

from __future__ import annotations

from prefect import flow

from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


@flow(
    name="ingest",
    description="Validate games and players files into the store; players files first, "
    "rejected rows quarantined with a reason. On Dask, files are parsed side by side.",
)
def ingest_flow(
    store: str,
    files: list[str],
    players: list[str] | None = None,
    fmt: str | None = None,
    mapping: str | None = None,
    replace: bool = False,
    wait: float = 0.0,
    source: str | None = None,
    keep_probable_duplicates: bool = False,
    pool: str | None = None,
    ignore_stated_ratings: bool = False,
    rate_moveless: bool = False,
    encoding: str | None = None,
):
    request = jobs.IngestRequest(
        store,
        files,
        players or [],
        fmt,
        mapping,
        replace,
        wait,
        source,
        keep_probable_duplicates,
        pool,
        ignore_stated_ratings,
        rate_moveless,
        encoding,
    )
    return jobs.ingest(request, PrefectRunner())
