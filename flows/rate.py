"""The rate job (pipeline/jobs.py ``rate``) as a tracked Prefect flow."""

from __future__ import annotations

from prefect import flow

from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


@flow(
    name="rate",
    description="Rate one pool with one system over its periods: from the stale period "
    "after a correction, resumable after a crash; records the run and refreshes the catalog.",
)
def rate_flow(
    store: str,
    system: str,
    pool: str = "standard",
    start: int | None = None,
    end: int | None = None,
    rules: str | None = None,
    overrides: dict[str, str] | None = None,
    full: bool = False,
    shards: int | None = None,
    wait: float = 0.0,
    checkpoint_every: int | None = None,
):
    request = jobs.RateRequest(
        store,
        system,
        pool,
        start,
        end,
        rules,
        overrides or {},
        full,
        shards,
        wait,
        checkpoint_every,
    )
    return jobs.rate(request, PrefectRunner())
