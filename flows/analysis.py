"""The what-if and backtest jobs (pipeline/jobs.py) as tracked Prefect flows."""

from __future__ import annotations

from prefect import flow

from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


@flow(
    name="whatif",
    description="Replay a pool under two FIDE rule sets (side by side on Dask) and compare.",
)
def whatif_flow(
    store: str,
    rules_a: str | None,
    rules_b: str | None,
    pool: str = "standard",
    start: int | None = None,
    end: int | None = None,
    top: int = 10,
):
    request = jobs.WhatIfRequest(store, rules_a, rules_b, pool, start, end, top)
    return jobs.whatif(request, PrefectRunner())


@flow(
    name="backtest",
    description="Score each system's predictions on a bundled protocol (systems side by "
    "side on Dask).",
)
def backtest_flow(dataset: str, data_dir: str, systems: list[str] | None = None):
    request = jobs.BacktestRequest(dataset, data_dir, systems)
    return jobs.backtest(request, PrefectRunner())
