"""The monthly recalculation (pipeline/jobs.py ``recalculate``) as a Prefect flow: the
flow that ``arpad serve`` schedules and ``arpad deploy`` deploys (docs/operations.md)."""

from __future__ import annotations

from prefect import flow

from arpad.flows.common import configured
from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


@flow(
    name="recalculate",
    description="The monthly job: ingest the inbox, recompute the stale periods of each "
    "configured system and pool, publish the lists, and record a markdown report.",
)
def recalculate_flow(
    store: str,
    inbox: str,
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    fmt: str | None = None,
    mapping: str | None = None,
    wait: float = 600.0,
    ignore_stated_ratings: bool = False,
):
    request = jobs.RecalculateRequest(
        store, inbox, systems, pools, fmt, mapping, wait, ignore_stated_ratings
    )
    return jobs.recalculate(request, PrefectRunner())


# The deployments' entrypoint: the same flow with the Dask task runner that the
# deployment's ARPAD_CLUSTER/ARPAD_WORKERS environment asks for (read when a run starts).
monthly_flow = configured(recalculate_flow)
