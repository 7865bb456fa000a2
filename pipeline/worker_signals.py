"""Dask worker preload of arpad's local clusters: the worker process ignores SIGINT.

Ctrl-C in a terminal sends SIGINT to every process of the foreground group, so each
local worker of ``--workers N`` got its own KeyboardInterrupt and printed its
tracebacks (and Dask's "Worker process still alive after 4.0 seconds, killing")
above arpad's one-line "interrupted" message. The command's own process handles
Ctrl-C and closes the cluster, which stops the workers (docs/runners.md "Runners
attacked, round 3").
"""

from __future__ import annotations

import signal
import threading


def dask_setup(worker) -> None:
    """Dask worker preload hook (runs in the worker process)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
