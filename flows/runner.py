"""The Prefect runner: a job's steps (pipeline/jobs.py) as tasks of a tracked flow run.

Each step becomes a task named after what it does (``rate-fide-standard``,
``ingest-games.csv``); I/O steps retry on OS errors only (bad input is final);
``map`` units are submitted to the flow's task runner, so on a
``DaskTaskRunner`` they run side by side on the cluster's workers. Reports go
to the server as markdown artifacts. See docs/runners.md.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

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


def describe(result, step: str = "") -> str:
    """What a step (the function ``step``) did, as a short sentence for the task's log
    on the server: what it read, stored, rated, moved or wrote, with counts; never a
    table or a Python repr (a read file's log line was 200 characters of a polars
    frame, an inbox file's a raw dict; docs/runners.md "Logs of a tracked run")."""
    from arpad.pipeline.jobs import summary_line

    if step == "plan_rate":
        return (
            f"rates from period {result}" if result is not None else "rates from the first period"
        )
    if step in ("record_rate", "record"):
        return "recorded, stale marks cleared"
    if result is None:
        return "done"
    if hasattr(result, "periods") and hasattr(result, "rows_written"):  # a RateSummary
        return summary_line(result)
    if _is(result, "ingest", "FileReport"):
        if result.skipped:
            return f"{result.source}: skipped: {result.skipped}"
        return (
            f"{result.source}: {result.rows:,} rows read, {result.accepted:,} stored, "
            f"{result.quarantined:,} quarantined"
        )
    if _is(result, "readers", "RawTable"):
        problems = f", {len(result.problems):,} not split into fields" if result.problems else ""
        return (
            f"read {Path(result.path).name} ({result.format}, {result.kind}): "
            f"{result.frame.height:,} rows{problems}"
        )
    if isinstance(result, BaseException):  # a file that could not be read (read-ahead)
        return f"not read: {_line(str(result))}"
    if isinstance(result, dict) and "outcome" in result:  # a monthly inbox file
        return _inbox_file(result)
    if step == "freeze":
        return _frozen(result)
    if step == "plan":
        todo = [f"{j.system}/{j.pool} from {_start(j.start)}" for j in result]
        return "to recompute: " + ", ".join(todo) if todo else "nothing to recompute"
    if step == "publish":
        return _wrote(result, "export files") if result else "no rated period: nothing exported"
    if step == "archive":
        return f"moved to {result}"
    if step == "refresh_catalog":
        return f"refreshed {result}"
    if step == "replay_side":
        name, walked, ratings = result
        return f"{name}: replayed {len(walked):,} periods, {ratings.height:,} final ratings"
    if _is(result, "whatif", "WhatIf"):
        return (
            f"{result.rules_a} against {result.rules_b}: {len(result.periods):,} periods, "
            f"{result.movers.height:,} movers listed"
        )
    if _is(result, "backtest", "Row"):
        scores = ", ".join(f"{k} {v:.4f}" for k, v in result.scores.items())
        return f"{result.system} ({result.settings or 'defaults'}): {scores or 'no score'}"
    if _is(result, "backtest", "Candidate"):
        changes = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in result.changes.items()
        )
        return f"{result.system} candidate ({changes or 'defaults'}): validation {result.score:.4f}"
    if _is(result, "backtest", "Dataset"):
        return f"loaded {result.name}"
    if isinstance(result, (list, tuple)):
        return f"{len(result):,} results"
    if isinstance(result, dict):
        return f"{len(result):,} entries"
    text = str(result)
    return text if "\n" not in text and len(text) <= 200 else type(result).__name__


def _is(result, module: str, name: str) -> bool:
    """Whether ``result`` is an ``arpad.pipeline.<module>.<name>`` (a module not
    imported yet made no such value: nothing is imported to ask)."""
    loaded = sys.modules.get(f"arpad.pipeline.{module}")
    cls = vars(loaded).get(name) if loaded is not None else None
    return isinstance(cls, type) and isinstance(result, cls)


def _line(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 200 else first[:199] + "…"


def _start(period) -> str:
    return "the first period" if period is None else f"period {period}"


def _wrote(paths: list, what: str) -> str:
    shown = ", ".join(str(p) for p in paths[:2])
    more = f" and {len(paths) - 2:,} more" if len(paths) > 2 else ""
    return f"wrote {len(paths):,} {what}: {shown}{more}"


def _inbox_file(f: dict) -> str:
    name = Path(f["path"]).name
    if f["outcome"] != "processed":
        return f"{name}: {f['outcome']}: {_line(str(f.get('detail') or ''))}"
    detail = f"; {_line(str(f['detail']))}" if f.get("detail") else ""
    return (
        f"{name}: {f.get('kind', '-')} file, {f.get('accepted', 0):,} rows stored, "
        f"{f.get('quarantined', 0):,} quarantined{detail}"
    )


def _frozen(out: dict) -> str:
    """``monthly.freeze``'s result: the lists it froze."""
    if not out:
        return "no rated period: nothing frozen"
    frozen = out.get("frozen") or []
    if out.get("held"):  # an inbox file held it: nothing frozen (docs/operations.md step 4)
        files = ", ".join(out.get("held_by") or [])  # ("late.csv rejected": monthly.holding)
        said = f"froze nothing: {len(out['held']):,} lists wait (inbox file(s) {files})"
    elif not frozen and out.get("period") is None:
        said = "no finished month to freeze"
    elif not frozen:
        said = f"nothing new to freeze (latest finished period {out['period']})"
    elif len(frozen) == 1:
        said = f"froze the list of period {frozen[0]}"
    else:
        said = f"froze {len(frozen):,} lists (periods {frozen[0]} to {frozen[-1]})"
    revised = out.get("revised") or []
    return said + (
        f"; {len(revised):,} frozen lists differ from the ratings now" if revised else ""
    )


def as_task(fn, name: str, io: bool):
    """``fn`` as a Prefect task whose run is called ``name`` and logs what it did."""

    def run(*args):
        from prefect.logging import get_run_logger

        result = fn(*args)
        get_run_logger().info("%s: %s", name, describe(result, fn.__name__))
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
        # arpad's Dask task runner is checked as the flow run starts (its scheduler
        # probed, its workers' arpad compared; flows/task_runners.py): a problem fails
        # the run with one line.
        checks = sys.modules.get("arpad.flows.task_runners")
        if checks is not None:
            checks.ready(runner)
        # Threads of one process would launch Numba's parallel layer concurrently (its
        # default workqueue layer does not support that): side by side only on Dask.
        self.parallel = any(c.__name__ == "DaskTaskRunner" for c in type(runner).__mro__)

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
