"""Rate flow: one system over one pool's periods; reconstruct: every system and pool."""

from __future__ import annotations

from prefect import flow, task

from flows.common import COMPUTE_TASK, IO_TASK
from pipeline import catalog, engine
from pipeline.store import Store


@task(name="rate-system-pool", **COMPUTE_TASK)
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
    return engine.rate(
        Store(store_root),
        system,
        pool=pool,
        start=start,
        end=end,
        rules=engine.resolve_rules(system, rules),
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
):
    summary = rate_task(store_root, system, pool, start, end, rules, overrides, progress)
    refresh_catalog_task(store_root)
    return summary
