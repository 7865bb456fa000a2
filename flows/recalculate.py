"""The scheduled monthly job: ingest the inbox, recompute stale periods, publish the
lists, and record a markdown summary as a Prefect artifact (pipeline/monthly.py
holds the steps; docs/operations.md the deployment)."""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact

from arpad.flows.common import IO_TASK, run_all
from arpad.flows.ingest import read_ahead
from arpad.flows.rate import rate_task, refresh_catalog_task
from arpad.pipeline import monthly
from arpad.pipeline.errors import InputError
from arpad.pipeline.store import Store


@task(name="ingest-inbox-file", **IO_TASK)
def ingest_inbox_file_task(store_root: str, path: str, kind=None, fmt=None, mapping=None, raw=None):
    return monthly.ingest_inbox_file(Store(store_root), Path(path), kind, fmt, mapping, raw)


@task(name="archive-inbox-file", **IO_TASK)
def archive_task(inbox: str, path: str, outcome: str) -> str:
    return monthly.archive(Path(inbox), path, outcome)


@task(name="record-runs", **IO_TASK)
def record_task(store_root: str, jobs: list) -> None:
    monthly.record(Store(store_root), jobs)


@task(name="publish-list", **IO_TASK)
def publish_task(store_root: str, system: str, pool: str) -> list[str]:
    return monthly.publish(Store(store_root), system, pool)


@task(name="summary-artifact", **IO_TASK)
def artifact_task(text: str) -> None:
    create_markdown_artifact(text, key="arpad-recalculation", description="monthly summary")


@flow(name="recalculate")
def recalculate_flow(
    store_root: str,
    inbox: str,
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    fmt: str | None = None,
    mapping: str | None = None,
    wait: float = 600.0,
    progress=None,
) -> monthly.RecalculateSummary:
    store = Store(store_root)
    store.ensure()
    with store.writer_lock("recalculate flow", wait=wait):
        summary = monthly.RecalculateSummary(store_root)
        players, games = monthly.inbox_files(Path(inbox))
        items = [*((str(p), "players") for p in players), *((str(g), None) for g in games)]
        ahead = read_ahead(store_root, items, fmt, mapping)  # parallel reads on Dask
        # Stored one after another: each ingest updates the manifest and the players table.
        for path, kind in items:
            try:
                raw = ahead[path].result() if path in ahead else None
            except InputError as exc:
                result = monthly.rejected(Path(path), kind, exc)
            else:
                result = ingest_inbox_file_task(store_root, path, kind, fmt, mapping, raw)
            archive_task(inbox, result["path"], result["outcome"])
            summary.files.append(result)

        jobs = monthly.plan(store, systems, pools)
        calls = [(store_root, j.system, j.pool, j.start, None, None, None, progress) for j in jobs]
        rate_summaries = run_all(rate_task, calls)  # side by side on Dask
        record_task(store_root, jobs)
        refresh_catalog_task(store_root)
        for system, pool in monthly.published_lists(store, systems, pools):
            summary.exports += publish_task(store_root, system, pool)
        monthly.summarise(store, summary, rate_summaries, jobs)
        artifact_task(monthly.markdown(summary))
    return summary
