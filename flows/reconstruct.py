"""Reconstruct flow: every requested system over every pool, from the first period."""

from __future__ import annotations

from prefect import flow

from flows.rate import rate_task, refresh_catalog_task
from pipeline.store import Store
from pipeline.systems import system_names


@flow(name="reconstruct")
def reconstruct_flow(
    store_root: str,
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    overrides: dict[str, str] | None = None,
):
    store = Store(store_root)
    summaries = []
    for pool in pools or store.pools():
        for system in systems or system_names():
            summaries.append(rate_task(store_root, system, pool, overrides=overrides))
    refresh_catalog_task(store_root)
    return summaries
