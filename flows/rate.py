"""Rate flow: one system over one pool's periods, resumable after a crash."""

from __future__ import annotations

from prefect import flow, task

from arpad.flows.common import IO_TASK, on_dask
from arpad.pipeline import catalog, resume
from arpad.pipeline.store import Store


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
    shards=None,
):
    # shards > 1: each period's step in player shards; on a Dask worker they are tasks
    # on the same cluster (pipeline/sharding.py auto_map), elsewhere one after the other.
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
        shards=shards,
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
    shards: int | None = None,
):
    with Store(store_root).writer_lock("rate flow", wait=wait):
        args = (store_root, system, pool, start, end, rules, overrides)
        if shards and shards > 1 and on_dask():
            # The rating loop runs as a task on a worker and submits each period's shards
            # to the same cluster (pipeline/sharding.py auto_map); progress stays local.
            summary = rate_task.submit(*args, None, shards).result()
        else:
            summary = rate_task(*args, progress, shards)
        refresh_catalog_task(store_root)
    return summary
