"""Run a job (pipeline/jobs.py) the way the user asked: in this process (the default),
with independent units on Dask (``cluster``/``workers``), or as its tracked Prefect
flow (``flow=True``, or ``PREFECT_API_URL`` set and ``flow`` not False).

The CLI and the Python API both come through here; nothing else decides where a
job runs. See docs/runners.md.
"""

from __future__ import annotations

import dataclasses
import importlib
import os

from arpad.pipeline import jobs
from arpad.pipeline.runner import check_scale_out, in_process

# job -> (its function, its Prefect flow as module:attribute under arpad.flows)
JOBS = {
    "ingest": (jobs.ingest, "ingest:ingest_flow"),
    "rate": (jobs.rate, "rate:rate_flow"),
    "reconstruct": (jobs.reconstruct, "reconstruct:reconstruct_flow"),
    "recalculate": (jobs.recalculate, "recalculate:recalculate_flow"),
    "whatif": (jobs.whatif, "analysis:whatif_flow"),
    "backtest": (jobs.backtest, "analysis:backtest_flow"),
}
TAKES_PROGRESS = {"rate", "recalculate", "reconstruct"}


def warm_up(job: str, request) -> tuple[list[str], list[str]]:
    """What a local Dask worker loads while the cluster starts (pipeline/warm.py): the
    systems whose kernels the job's units call, and the modules they import."""
    from arpad.pipeline.systems import system_names

    if job == "reconstruct":
        # One tiny rating (the first system named) loads what every unit calls — the
        # engine's grouping, performance column and writers — and each system's module
        # is imported; a system's own kernels load with its first unit, on the worker
        # that runs it, instead of on every worker (docs/runners.md).
        names = list(request.systems or system_names())
        return names[:1], ["arpad.pipeline.resume", *(system_module(n) for n in names)]
    if job == "backtest":
        # Modules only: a tiny rating per system loaded kernels the backtest's units do
        # not call (the engine's performance column) on every worker; importing the
        # systems' modules was faster with 1 and 2 workers (docs/runners.md).
        names = request.systems or system_names()
        return [], ["arpad.pipeline.backtest", *(system_module(n) for n in names)]
    if job == "recalculate":
        return list(request.systems or ()), ["arpad.pipeline.resume", "arpad.pipeline.readers"]
    if job == "ingest":
        return [], ["arpad.pipeline.readers"]
    if job == "whatif":
        return [], ["arpad.pipeline.whatif"]
    return [], []  # rate: its one unit runs in this process


def system_module(name: str) -> str:
    """The module of a built-in system (``elo-linear``: ``systems/elo_linear.py``)."""
    return f"arpad.pipeline.systems.{name.replace('-', '_')}"


def wants_flow(flow: bool | None) -> bool:
    """``--flow`` / ``--no-flow`` decide; otherwise a configured server does."""
    if flow is not None:
        return flow
    return bool(os.environ.get("PREFECT_API_URL"))


def run(
    job: str,
    request,
    flow: bool | None = None,
    cluster: str | None = None,
    workers: int | None = None,
    progress=None,
    log=None,
):
    function, target = JOBS[job]
    # Both asked for was refused before the flow's server or the cluster is tried:
    # --workers was silently ignored beside --cluster (docs/runners.md "Runners
    # attacked, round 4").
    check_scale_out(cluster, workers)
    if wants_flow(flow):
        from arpad.flows.common import run_flow

        module, name = target.split(":")
        flow_obj = getattr(importlib.import_module(f"arpad.flows.{module}"), name)
        if job != "ingest":
            return run_flow(flow_obj, cluster, workers, **dataclasses.asdict(request))
        # The flow's parameters name the files by absolute path (its request has no
        # names as typed): its report and errors name them as given, as --no-flow's do
        # (docs/runners.md "Logs of a tracked run"; tests/test_tracked_paths.py).
        from arpad.pipeline.errors import InputError

        try:
            report = run_flow(flow_obj, cluster, workers, **dataclasses.asdict(request))
        except InputError as exc:
            raise request.named(exc.path, exc) from None
        report.files = [request.named(f.path, f) for f in report.files]
        return report
    extra = {}
    if job in TAKES_PROGRESS and progress is not None:
        extra["progress"] = progress
    if job == "backtest" and log is not None:
        extra["log"] = log
    warm, modules = warm_up(job, request) if workers and not cluster else ((), ())
    with in_process(cluster, workers, warm, modules) as runner:
        return function(request, runner, **extra)
