"""Reconstruct flow: every requested system over every pool, from the first period.

On a Dask task runner the (system, pool) runs go side by side, one per worker.
"""

from __future__ import annotations

from prefect import flow

from arpad.flows.common import run_all
from arpad.flows.rate import rate_task, refresh_catalog_task
from arpad.pipeline.store import Store
from arpad.pipeline.systems import system_names


@flow(name="reconstruct")
def reconstruct_flow(
    store_root: str,
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    overrides: dict[str, str] | None = None,
    wait: float = 0.0,
):
    store = Store(store_root)
    with store.writer_lock("reconstruct flow", wait=wait):
        calls = [
            (store_root, system, pool, None, None, None, overrides)
            for pool in pools or store.pools()
            for system in systems or system_names()
        ]
        summaries = run_all(rate_task, calls)
        refresh_catalog_task(store_root)
    return summaries
