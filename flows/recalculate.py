"""The monthly recalculation (pipeline/jobs.py ``recalculate``) as a Prefect flow: the
flow that ``arpad serve`` schedules and ``arpad deploy`` deploys (docs/operations.md)."""

from __future__ import annotations

from prefect import flow

from arpad.flows.common import configured, run_name
from arpad.flows.runner import PrefectRunner
from arpad.pipeline import jobs


def monthly_run_name() -> str:
    """A run's name from its parameters, as a CLI run's (``recalculate-elo,glicko2-store``):
    runs of ``arpad serve`` and of a deployment got Prefect's random names
    (``true-sidewinder``); the deployment's tags come from ``run_tags`` (ops.py)."""
    from prefect.runtime import flow_run

    return run_name("recalculate", flow_run.parameters)


@flow(
    name="recalculate",
    flow_run_name=monthly_run_name,
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
    encoding: str | None = None,
):
    request = jobs.RecalculateRequest(
        store, inbox, systems, pools, fmt, mapping, wait, ignore_stated_ratings, encoding
    )
    return jobs.recalculate(request, PrefectRunner())


# The deployments' entrypoint: the same flow with the Dask task runner that the
# deployment's ARPAD_CLUSTER/ARPAD_WORKERS environment asks for (read when a run loads
# the flow). Checked when the run starts, not here: a scheduler that is down, or a bad
# ARPAD_WORKERS, is then a Failed run with the one line (docs/runners.md).
monthly_flow = configured(recalculate_flow, now=False)
