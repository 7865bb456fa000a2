"""arpad's Prefect task runners for Dask, checked when a flow run starts (docs/runners.md
"Workers of another arpad", "A deployed run whose scheduler is down").

A deployment's entrypoint (``arpad.flows.recalculate.monthly_flow``) is built when its
module is imported, from the run's ``ARPAD_CLUSTER``/``ARPAD_WORKERS``. The scheduler
was probed there: a scheduler that was down made the flow impossible to load, and the
run ended Crashed with Prefect's random name and 40 lines of traceback. Now nothing is
checked on import; the flow's body checks its task runner first (``ready``, called by
``PrefectRunner``), so the run is Failed, named like any other run, with the one line
as its message.
"""

from __future__ import annotations

from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from arpad.pipeline.runner import check_workers_build, probe_scheduler


class CheckedDaskTaskRunner(DaskTaskRunner):
    """A ``DaskTaskRunner`` whose scheduler (``address``, an existing one) is probed
    and whose workers' arpad sources are compared with this process's when the flow
    run starts. A local cluster (``--workers``) starts fresh workers: nothing to check."""

    def ready(self) -> None:
        if self.address:
            probe_scheduler(self.address)
            check_workers_build(self.client, self.address)


class RefusedTaskRunner(ThreadPoolTaskRunner):
    """The task runner of a flow whose Dask settings are wrong (a deployment's
    ``ARPAD_WORKERS=abc``, or both variables set): each run fails as it starts, with
    ``reason``, the line the CLI gives."""

    def __init__(self, reason: str = ""):
        super().__init__(max_workers=1)
        self.reason = reason

    def duplicate(self) -> RefusedTaskRunner:
        return type(self)(self.reason)

    def ready(self) -> None:
        raise ValueError(self.reason)


def ready(task_runner) -> None:
    """Check the flow run's ``task_runner`` if it is one of arpad's (a one-line
    ValueError fails the run)."""
    if isinstance(task_runner, (CheckedDaskTaskRunner, RefusedTaskRunner)):
        task_runner.ready()
