"""Dask worker preload of arpad's local clusters: the worker process ignores SIGINT, and
its heartbeat to a scheduler that is closing is not a traceback on the terminal.

Ctrl-C in a terminal sends SIGINT to every process of the foreground group, so each
local worker of ``--workers N`` got its own KeyboardInterrupt and printed its
tracebacks (and Dask's "Worker process still alive after 4.0 seconds, killing")
above arpad's one-line "interrupted" message. The command's own process handles
Ctrl-C and closes the cluster, which stops the workers (docs/runners.md "Runners
attacked, round 3").

A local cluster's scheduler lives in the command's own process and closes when the
last unit is back (``LocalDask.close_in_background``): a worker whose heartbeat was
under way then logged "Failed to communicate with scheduler during heartbeat" with a
``CommClosedError`` traceback, ~25 lines on stderr after a run that went well (seen
under load: `reconstruct --workers 2`, ``Store.rate(..., workers=2)``, and a CI run of
tests/test_flow_logs.py). A failed heartbeat is not an error of the run: Dask retries
it at the next beat, and a scheduler that is really gone fails the command's own
client, which says so. ``HeartbeatFilter`` drops that one message in these workers.
"""

from __future__ import annotations

import logging
import signal
import threading

HEARTBEAT_MESSAGE = "Failed to communicate with scheduler during heartbeat"


class HeartbeatFilter(logging.Filter):
    """Drops Dask's failed-heartbeat record (any other record passes)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(HEARTBEAT_MESSAGE)


def quiet_heartbeats(logger: logging.Logger | None = None) -> None:
    """Install ``HeartbeatFilter`` (once) on Dask's worker logger."""
    logger = logger or logging.getLogger("distributed.worker")
    if not any(isinstance(f, HeartbeatFilter) for f in logger.filters):
        logger.addFilter(HeartbeatFilter())


def dask_setup(worker) -> None:
    """Dask worker preload hook (runs in the worker process)."""
    quiet_heartbeats()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
