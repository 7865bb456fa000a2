"""The reconstruct job (pipeline/jobs.py ``reconstruct``) as a tracked Prefect flow."""

from __future__ import annotations

from prefect import flow

from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


@flow(
    name="reconstruct",
    description="Rate every requested system over every pool from the first period; "
    "on Dask the system/pool runs go side by side.",
)
def reconstruct_flow(
    store: str,
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    overrides: dict[str, str] | None = None,
    wait: float = 0.0,
):
    request = jobs.ReconstructRequest(store, systems, pools, overrides or {}, wait)
    return jobs.reconstruct(request, PrefectRunner())
