"""Choosing the Prefect runner and its task runner (docs/runners.md).

Prefect runs only when asked for (``--flow``, or ``PREFECT_API_URL`` set) and
only against a real server: arpad never starts an implicit temporary server,
neither in this process nor in a Dask worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys

from arpad.pipeline.runner import (
    check_scale_out,
    local_cluster_kwargs,
    local_workers,
    lost_scheduler,
    probe_scheduler,
)

SERVER_HINT = (
    "Prefect needs a server: set PREFECT_API_URL (e.g. start one with "
    "`prefect server start` and export PREFECT_API_URL=http://127.0.0.1:4200/api), "
    "or leave out --flow to run in this process"
)
# `arpad serve`/`deploy` cannot run in this process: their alternative is the system's
# own scheduler (docs/operations.md "Without Prefect: cron").
SCHEDULE_HINT = (
    "scheduling needs a Prefect server: set PREFECT_API_URL (e.g. start one with "
    "`prefect server start` and export PREFECT_API_URL=http://127.0.0.1:4200/api); "
    "without one, schedule the monthly job with cron instead, e.g. the crontab line "
    "`0 3 1 * * /path/to/arpad recalculate --inbox /abs/inbox --store /abs/store` "
    "(docs/operations.md)"
)


def api_url() -> str | None:
    return os.environ.get("PREFECT_API_URL") or None


def _answers(url: str, timeout: float = 5.0) -> bool:
    """Whether GET ``url`` succeeds (the /api/health of a server named without /api)."""
    import httpx

    try:
        return httpx.get(url, timeout=timeout).is_success
    except (httpx.HTTPError, OSError):
        return False


def require_server(timeout: float = 10.0, hint: str = SERVER_HINT) -> str:
    """The reachable server's API URL, or a one-line ValueError naming PREFECT_API_URL
    (``hint`` when it is not set)."""
    url = api_url()
    if not url:
        raise ValueError(hint)
    import httpx

    try:
        response = httpx.get(url.rstrip("/") + "/health", timeout=timeout)
        response.raise_for_status()
        version = httpx.get(url.rstrip("/") + "/admin/version", timeout=timeout)
    except (httpx.HTTPError, OSError) as exc:
        if not url.rstrip("/").endswith("/api") and _answers(url.rstrip("/") + "/api/health"):
            # the server's own address without its API path: a server does answer
            raise ValueError(
                f"PREFECT_API_URL={url} is a Prefect server's address, not its API: "
                f"add /api ({url.rstrip('/')}/api)"
            ) from None
        raise ValueError(
            f"no Prefect server answers at PREFECT_API_URL={url} ({type(exc).__name__}); "
            "start one with `prefect server start`"
        ) from None
    # Something else that answers /health (another service's API, a web server with a
    # file of that name) made Prefect fail later with a traceback and exit 1: a Prefect
    # server says `true` there and gives its version as a JSON string.
    if not (_json(response) is True and version.is_success and isinstance(_json(version), str)):
        raise ValueError(
            f"PREFECT_API_URL={url} answers, but not as a Prefect server's API (GET /health "
            f"gave {response.text[:40]!r}): point it at `prefect server start`'s URL, "
            "ending in /api"
        )
    return url


def _json(response):
    try:
        return response.json()
    except ValueError:
        return None


def dask_task_runner(cluster: str | None = None, workers: int | None = None, probe: bool = True):
    """A ``DaskTaskRunner`` on ``cluster`` (tcp://HOST:PORT) or on a local cluster of
    ``workers`` processes; None when neither is given. The scheduler is probed now when
    ``probe`` (a command, ``serve``), and again, with its workers' arpad compared with
    this one's, when a flow run starts (flows/task_runners.py)."""
    check_scale_out(cluster, workers)
    if not cluster and not workers:
        return None
    from arpad.flows.task_runners import CheckedDaskTaskRunner

    if cluster:
        if probe:
            probe_scheduler(cluster)
        return CheckedDaskTaskRunner(address=cluster)
    return CheckedDaskTaskRunner(
        cluster_class="distributed.LocalCluster",
        cluster_kwargs=local_cluster_kwargs(local_workers(workers)),
    )


def env_workers() -> int | None:
    """``ARPAD_WORKERS`` of a deployment's run, or None; a value that is not a whole
    number is a one-line ValueError naming the variable."""
    text = os.environ.get("ARPAD_WORKERS") or ""
    try:
        return int(text) if text.strip() else None
    except ValueError:
        raise ValueError(
            f"ARPAD_WORKERS={text!r}: takes a whole number of worker processes"
        ) from None


def configured(flow_obj, cluster: str | None = None, workers: int | None = None, now: bool = True):
    """``flow_obj`` with a Dask task runner when ``cluster``/``workers`` (or the
    ``ARPAD_CLUSTER``/``ARPAD_WORKERS`` environment of a deployment) ask for one. With
    ``now`` False (a deployment's entrypoint, built when its module is imported) the
    scheduler is not probed and a wrong setting is not raised here: the flow run checks
    both when it starts and fails with the one line (a flow that cannot be loaded ended
    Crashed, with Prefect's random name and a traceback; docs/runners.md)."""
    cluster = cluster or os.environ.get("ARPAD_CLUSTER") or None
    try:
        workers = workers or env_workers()
        runner = dask_task_runner(cluster, workers, probe=now)
    except ValueError as exc:
        if now:
            raise
        from arpad.flows.task_runners import RefusedTaskRunner

        return flow_obj.with_options(task_runner=RefusedTaskRunner(str(exc)))
    if runner is None:
        return flow_obj
    # Dask's INFO lines (workers starting and stopping) would drown the command's output.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    return flow_obj.with_options(task_runner=runner)


def run_name(flow_name: str, parameters: dict) -> str:
    """What a flow run did, as its name: the job, then its systems and pools and the
    store's folder name (``rate-glicko2-standard-store``, ``ingest-games.csv-store``).
    Prefect's own names (``effective-horse``) said nothing of what ran."""
    parts = [flow_name]
    for key in ("system", "systems", "pool", "pools"):
        value = parameters.get(key)
        if value:
            parts.append(",".join(value) if isinstance(value, list) else str(value))
    files = parameters.get("files") or []
    if files:
        parts.append(os.path.basename(files[0]) + (f"+{len(files) - 1}" if len(files) > 1 else ""))
    if parameters.get("store"):
        parts.append(os.path.basename(os.path.normpath(parameters["store"])))
    elif parameters.get("dataset"):
        parts.append(str(parameters["dataset"]))
    # Prefect formats a run name with the parameters: braces stay literal.
    return "-".join(parts).replace("{", "(").replace("}", ")")[:200]


def run_tags(flow_name: str, parameters: dict) -> list[str]:
    """Tags of a flow run: ``arpad``, the job, and each system named (``system:elo``)."""
    systems = parameters.get("systems") or (
        [parameters["system"]] if parameters.get("system") else []
    )
    return ["arpad", f"job:{flow_name}", *(f"system:{s}" for s in systems)]


def run_flow(flow_obj, cluster: str | None = None, workers: int | None = None, **parameters):
    """Run ``flow_obj`` against the configured server (checked first), named and tagged
    after what it runs. A server that stops answering during the run (or as it starts)
    is a one-line ValueError (what the run finished is in the store; a rating run
    resumes), not Prefect's traceback and an internal error (docs/runners.md "Runners
    attacked, round 3", "A server or scheduler lost mid-run")."""
    from prefect import tags

    url = require_server()
    flow_obj = configured(flow_obj, cluster, workers).with_options(
        flow_run_name=run_name(flow_obj.name, parameters)
    )
    try:
        with (
            tags(*run_tags(flow_obj.name, parameters)),
            _quiet_user_errors(),
            _hold_lost_lines(cluster, workers),
        ):
            return flow_obj(**parameters)
    except Exception as exc:
        lost = server_error(exc)
        if lost is not None:
            raise ValueError(
                f"the Prefect server at PREFECT_API_URL={url} stopped answering during the "
                f"flow run ({type(lost).__name__}); the store holds what the run finished (a "
                "rating run resumes where it stopped): run the command again when the server "
                "is back, or with --no-flow"
            ) from None
        translated = lost_dask(exc, cluster, workers)
        if translated is None:
            raise
        raise translated from None


def server_error(exc: BaseException):
    """The HTTP error (httpx's, or httpcore's under it) in ``exc`` or its causes: the
    server stopped answering. Prefect raises it as it is, or wrapped: "Failed to reach
    API" (a RuntimeError, when the server went away as the run started) or "Unable to
    acquire concurrency slots" (a task starting); None for any other error."""
    import httpx

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, httpx.HTTPError) or type(exc).__module__.startswith("httpcore"):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


class _UserErrorLines(logging.Filter):
    """Drops, from the terminal only, Prefect's lines about a run that failed on the
    user's own error (a bad file, a busy store, a wrong value): the flow engine's
    traceback (~90 lines) and the task's "Finished in state Failed(... InputError: …)",
    which the command's one ``arpad: error: …`` line says again. The server keeps
    them: its log handler has no such filter (docs/runners.md "Bad input in a flow")."""

    errors = ()

    def filter(self, record: logging.LogRecord) -> bool:
        errors = self.errors or user_errors()
        if record.exc_info and isinstance(record.exc_info[1], errors):
            return False
        text = record.getMessage()
        return not any(f"exception {e.__name__}:" in text for e in errors)


def user_errors() -> tuple[type[BaseException], ...]:
    """The errors the CLI reports as one line of the user's making (pipeline/cli.py)."""
    from arpad.pipeline.errors import InputError, StoreBusyError

    return (InputError, StoreBusyError, ValueError, FileNotFoundError)


def _terminal_handlers() -> list[logging.Handler]:
    """The handlers of Prefect's logging that write to the terminal (set up first, as
    the flow engine would: it keeps the handlers it finds); not the server's."""
    from prefect.logging.configuration import setup_logging
    from prefect.logging.handlers import APILogHandler

    if not logging.getLogger().handlers:
        setup_logging()
    names = ("", "prefect", "prefect.flow_runs", "prefect.task_runs", "prefect._internal")
    found = [h for name in names for h in logging.getLogger(name).handlers]
    return [h for h in dict.fromkeys(found) if not isinstance(h, APILogHandler)]


@contextlib.contextmanager
def _quiet_user_errors():
    """``_UserErrorLines`` on the terminal handlers of Prefect's logging while a flow
    runs."""
    quiet = _UserErrorLines()
    quiet.errors = user_errors()
    handlers = _terminal_handlers()
    for h in handlers:
        h.addFilter(quiet)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(quiet)


class _LostLines(logging.Filter):
    """Holds back, from one terminal handler, the lines about a lost server or Dask
    scheduler (``about_a_loss``) while a flow runs."""

    def __init__(self, handler: logging.Handler):
        super().__init__()
        self.handler = handler
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if about_a_loss(record):
            self.held.append(record)
            return False
        return True


def about_a_loss(record: logging.LogRecord) -> bool:
    """Whether ``record`` is one of Prefect's lines about reaching its server (the events
    client's "Unable to connect to 'ws://…'", a client service's "Service 'EventsWorker'
    failed to process item …" from prefect._internal, a task "Finished in state
    Pending()": it could not start, a concurrency slot was not granted) or a line whose
    exception is, or was caused by, an HTTP error or is Dask's cancelled future (its
    scheduler lost: the flow engine's "Encountered exception during execution:
    FutureCancelledError" and its traceback)."""
    if record.levelno < logging.WARNING:
        return False
    if record.name == "prefect.events.clients" or record.name.startswith("prefect._internal"):
        return True
    exc = record.exc_info[1] if record.exc_info else None
    if exc is not None and (
        server_error(exc) is not None
        or (
            type(exc).__module__.startswith("distributed")
            and type(exc).__name__.endswith("CancelledError")
        )
    ):
        return True
    return record.getMessage().startswith("Finished in state Pending(")


@contextlib.contextmanager
def _hold_lost_lines(cluster: str | None = None, workers: int | None = None):
    """While a flow runs, the lines about a lost server or scheduler (``about_a_loss``)
    stay off the terminal. When the run ends because the server stopped answering
    (``server_error``) or the Dask scheduler was lost (``lost_dask``) they are dropped,
    and, for a lost server, the "--- Error logging to API ---" lines Prefect's log
    sender writes to stderr (``logging.raiseExceptions``, left off for the rest of the
    process, whose exit would try again) and the log lines still queued for it
    (``_forget_unsent_logs``): the command's one line says what happened, where ~180
    lines came first (docs/runners.md "A server or scheduler lost mid-run"). Otherwise
    they are written after the run, as they were."""
    holders = [_LostLines(h) for h in _terminal_handlers()]
    for f in holders:
        f.handler.addFilter(f)
    raising = logging.raiseExceptions
    logging.raiseExceptions = False
    server_lost = scheduler_lost = False
    try:
        yield
    except BaseException as exc:
        server_lost = server_error(exc) is not None
        scheduler_lost = not server_lost and lost_dask(exc, cluster, workers) is not None
        raise
    finally:
        for f in holders:
            f.handler.removeFilter(f)
        if server_lost:
            _forget_unsent_logs()
        else:
            logging.raiseExceptions = raising
        if not (server_lost or scheduler_lost):
            for f in holders:
                for record in f.held:
                    f.handler.handle(record)


def _forget_unsent_logs() -> None:
    """The server stopped answering: the run's last log lines, still queued for it,
    were sent once more as the process exited, Prefect's client retrying the request
    for ~75 s after the command's one line. They cannot arrive: dropped. (Prefect's log
    sender keeps its queue in ``APILogWorker._queue``; a Prefect without it keeps the
    wait.)"""
    import queue

    from prefect.logging.handlers import APILogWorker

    for worker in list(getattr(APILogWorker, "_instances", {}).values()):
        pending = getattr(worker, "_queue", None)
        while isinstance(pending, queue.Queue):
            try:
                pending.get_nowait()
            except queue.Empty:
                break
            pending.task_done()


def lost_dask(exc: BaseException, cluster: str | None, workers: int | None):
    """The one-line ValueError for ``exc`` ending a flow run whose Dask scheduler went
    away (killed or stopped: Dask cancels the run's futures, ``FutureCancelledError``
    "scheduler-connection-lost"), the same as an in-process run's
    (``runner.unit_result``); None for any other exception. Prefect re-raised Dask's
    error: about 140 lines and an internal error (docs/runners.md "Runners attacked,
    round 4"). A future cancelled for another reason counts only when the flow ran on
    Dask."""
    if "distributed" not in sys.modules:
        return None
    from distributed.client import FutureCancelledError
    from distributed.utils import CancelledError

    cluster = cluster or os.environ.get("ARPAD_CLUSTER") or None
    on_dask = bool(cluster or workers or os.environ.get("ARPAD_WORKERS"))
    if isinstance(exc, FutureCancelledError):
        lost = on_dask or exc.reason == "scheduler-connection-lost"
    else:
        lost = on_dask and isinstance(exc, CancelledError)
    if not lost:
        return None
    return lost_scheduler(cluster, exc)
