"""The Prefect runner: a job's steps (pipeline/jobs.py) as tasks of a tracked flow run.

Each step becomes a task named after what it does (``rate-fide-standard``,
``ingest-games.csv``); I/O steps retry on OS errors only (bad input is final);
``map`` units are submitted to the flow's task runner, so on a
``DaskTaskRunner`` they run side by side on the cluster's workers. Reports go
to the server as markdown artifacts. See docs/runners.md.
"""

from __future__ import annotations

import logging

from prefect import task
from prefect.cache_policies import NO_CACHE

from arpad.pipeline.runner import Runner


def retry_on_os_error(task, task_run, state) -> bool:
    """Retry an I/O task only when it failed on an OSError (bad input is final)."""
    try:
        state.result()
    except OSError:
        return True
    except Exception:
        return False
    return False


IO_TASK = {
    "retries": 2,
    "retry_delay_seconds": 1,
    "retry_condition_fn": retry_on_os_error,
    "cache_policy": NO_CACHE,
}
COMPUTE_TASK = {"cache_policy": NO_CACHE}


def describe(result) -> str:
    """What a step did, in one line for the task's log."""
    from arpad.pipeline.jobs import summary_line

    if hasattr(result, "periods") and hasattr(result, "rows_written"):
        return summary_line(result)
    if hasattr(result, "accepted") and hasattr(result, "quarantined"):
        return (
            f"{result.rows} rows read, {result.accepted} stored, {result.quarantined} quarantined"
        )
    if isinstance(result, list):
        return f"{len(result)} items"
    return "done" if result is None else str(result)[:200]


def as_task(fn, name: str, io: bool):
    """``fn`` as a Prefect task whose run is called ``name`` and logs what it did."""

    def run(*args):
        from prefect.logging import get_run_logger

        result = fn(*args)
        get_run_logger().info("%s: %s", name, describe(result))
        return result

    run.__name__ = run.__qualname__ = fn.__name__
    run.__doc__ = fn.__doc__
    run.__module__ = fn.__module__
    options = IO_TASK if io else COMPUTE_TASK
    return task(run, name=fn.__name__.replace("_", "-"), task_run_name=name, **options)


class PrefectRunner(Runner):
    """Steps as Prefect tasks of the current flow run."""

    def __init__(self):
        from prefect.context import FlowRunContext

        ctx = FlowRunContext.get()
        runner = getattr(ctx, "task_runner", None) if ctx else None
        # Threads of one process would launch Numba's parallel layer concurrently (its
        # default workqueue layer does not support that): side by side only on Dask.
        self.parallel = type(runner).__name__ == "DaskTaskRunner"

    def step(self, fn, *args, name=None, io=False):
        return as_task(fn, name or fn.__name__, io)(*args)

    def map(self, fn, calls, names=None, io=False) -> list:
        names = list(names) if names else [fn.__name__] * len(calls)
        if not self.parallel:
            return [self.step(fn, *args, name=n, io=io) for n, args in zip(names, calls)]
        futures = [as_task(fn, n, io).submit(*args) for n, args in zip(names, calls)]
        return [f.result() for f in futures]

    def artifact(self, key: str, markdown: str) -> None:
        from prefect.artifacts import create_markdown_artifact

        create_markdown_artifact(markdown, key=key, description="arpad run report")

    def info(self, message: str) -> None:
        from prefect.logging import get_run_logger

        try:
            get_run_logger().info(message)
        except Exception:  # outside a run context
            logging.getLogger("arpad").info(message)
