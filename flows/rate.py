"""Rate flow: one system over one pool's periods, resumable after a crash."""

from __future__ import annotations

from prefect import flow, task

from flows.common import IO_TASK
from pipeline import catalog, resume
from pipeline.store import Store


# Rating writes a partition and a checkpoint per period; a retry (or a new run after
# a kill) resumes after the last checkpoint, so retrying on I/O errors is safe.
@task(name="rate-system-pool", **IO_TASK)
def rate_task(
    store_root,
    system,
    pool="standard",
    start=None,
    end=None,
    rules=None,
    overrides=None,
    progress=None,
):
    return resume.rate_resumable(
        Store(store_root),
        system,
        pool=pool,
        start=start,
        end=end,
        rules=rules,
        overrides=overrides,
        progress=progress,
        refresh_catalog=False,
    )


@task(name="refresh-catalog", **IO_TASK)
def refresh_catalog_task(store_root: str):
    return str(catalog.refresh(Store(store_root)))


@flow(name="rate")
def rate_flow(
    store_root: str,
    system: str,
    pool: str = "standard",
    start: int | None = None,
    end: int | None = None,
    rules: str | None = None,
    overrides: dict[str, str] | None = None,
    progress=None,
    wait: float = 0.0,
):
    with Store(store_root).writer_lock("rate flow", wait=wait):
        summary = rate_task(store_root, system, pool, start, end, rules, overrides, progress)
        refresh_catalog_task(store_root)
    return summary
