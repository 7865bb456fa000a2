"""Ingest flow: players files first, then each games file as its own task.

On a Dask task runner the new files are read and parsed in parallel on the
workers (``read-file``); storing them stays one file after another in the flow's
process, because each store updates the manifest and the players table.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task

from arpad.flows.common import IO_TASK, on_dask
from arpad.pipeline import catalog, ingest
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store


@task(name="read-file", **IO_TASK)
def read_file_task(path: str, fmt=None, kind=None, mapping=None):
    return read_any(Path(path), fmt=fmt, mapping=mapping, kind=kind)


@task(name="ingest-file", **IO_TASK)
def ingest_file_task(
    store_root: str,
    path: str,
    fmt=None,
    kind=None,
    mapping=None,
    raw=None,
    replace=False,
    source=None,
):
    return ingest.ingest_file(
        Store(store_root),
        path,
        fmt=fmt,
        kind=kind,
        mapping=mapping,
        raw=raw,
        replace=replace,
        source=source,
    )


@task(name="refresh-catalog", **IO_TASK)
def refresh_catalog_task(store_root: str):
    return str(catalog.refresh(Store(store_root)))


def read_ahead(store_root: str, items: list[tuple[str, str | None]], fmt, mapping) -> dict:
    """On Dask: start reading every file whose content is not in the manifest yet, in
    parallel; returns path -> future (empty when the flow runs in one process)."""
    if not on_dask():
        return {}
    known = set(Store(store_root).read_manifest().column("sha256").to_pylist())
    futures = {}
    for path, kind in items:
        if ingest.sha256_file(Path(path)) in known:
            continue  # ingest_file skips it without reading
        if kind == "players":
            futures[path] = read_file_task.submit(path, None, "players", None)
        else:
            futures[path] = read_file_task.submit(path, fmt, None, mapping)
    return futures


@flow(name="ingest", log_prints=False)
def ingest_flow(
    store_root: str,
    paths: list[str],
    fmt: str | None = None,
    players: list[str] | None = None,
    mapping: str | None = None,
    wait: float = 0.0,
    replace: bool = False,
    source: str | None = None,
):
    if source and len(paths) != 1:
        raise InputError("--source", None, "--source names one games file; give exactly one")
    with Store(store_root).writer_lock("ingest flow", wait=wait):
        items = [*((p, "players") for p in players or []), *((p, None) for p in paths)]
        ahead = read_ahead(store_root, items, fmt, mapping)
        reports = []
        for path, kind in items:
            raw = ahead[path].result() if path in ahead else None
            if kind == "players":
                reports.append(ingest_file_task(store_root, path, kind="players", raw=raw))
            else:
                reports.append(
                    ingest_file_task(
                        store_root,
                        path,
                        fmt,
                        None,
                        mapping,
                        raw=raw,
                        replace=replace,
                        source=source,
                    )
                )
        refresh_catalog_task(store_root)
    return ingest.IngestReport(reports, store_root)
