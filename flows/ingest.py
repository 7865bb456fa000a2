"""Ingest flow: players files first, then each games file as its own task."""

from __future__ import annotations

from prefect import flow, task

from flows.common import IO_TASK
from pipeline import catalog, ingest
from pipeline.store import Store


@task(name="ingest-file", **IO_TASK)
def ingest_file_task(store_root: str, path: str, fmt=None, kind=None, mapping=None, replace=False):
    return ingest.ingest_file(
        Store(store_root), path, fmt=fmt, kind=kind, mapping=mapping, replace=replace
    )


@task(name="refresh-catalog", **IO_TASK)
def refresh_catalog_task(store_root: str):
    return str(catalog.refresh(Store(store_root)))


@flow(name="ingest", log_prints=False)
def ingest_flow(
    store_root: str,
    paths: list[str],
    fmt: str | None = None,
    players: list[str] | None = None,
    mapping: str | None = None,
    wait: float = 0.0,
    replace: bool = False,
):
    with Store(store_root).writer_lock("ingest flow", wait=wait):
        reports = [ingest_file_task(store_root, p, kind="players") for p in players or []]
        reports += [
            ingest_file_task(store_root, p, fmt=fmt, mapping=mapping, replace=replace)
            for p in paths
        ]
        refresh_catalog_task(store_root)
    return ingest.IngestReport(reports, store_root)
