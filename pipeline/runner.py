"""How a job's steps run (docs/runners.md).

A job (pipeline/jobs.py) is a request plus ordered steps; it calls its steps
through a ``Runner``:

- ``runner.step(fn, *args, name=…, io=…)`` runs one step and returns its value;
- ``runner.map(fn, calls, names=…, io=…)`` runs independent units (systems,
  pools, what-if scenarios, backtest systems, input files) and returns their
  values in order;
- ``runner.artifact(key, markdown)`` records a report of the run.

``InProcess`` (the default) calls each step in this process: a command costs
its imports plus its work. ``InProcess(client)`` sends ``map`` units to a Dask
cluster (``--workers N`` or ``--cluster ADDRESS``) and nothing else; no Prefect
is involved. The Prefect runner (arpad.flows.runner) wraps the same steps as
tasks of a tracked flow run; it lives in ``flows/`` so that ``pipeline/`` never
imports Prefect.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

log = logging.getLogger("arpad")


class Runner:
    """Runs steps in this process, one after the other."""

    #: True when ``map`` units may run side by side (in other processes).
    parallel = False

    def step(self, fn: Callable, *args: Any, name: str | None = None, io: bool = False) -> Any:
        return fn(*args)

    def map(
        self,
        fn: Callable,
        calls: Sequence[tuple],
        names: Sequence[str] | None = None,
        io: bool = False,
    ) -> list:
        return [fn(*args) for args in calls]

    def artifact(self, key: str, markdown: str) -> None:
        """A report of the run; in-process runs have nowhere to keep it."""

    def info(self, message: str) -> None:
        log.info(message)


class InProcess(Runner):
    """Steps in this process; ``map`` units on a ``distributed.Client`` when given one."""

    def __init__(self, client=None):
        self.client = client
        self.parallel = client is not None

    def map(self, fn, calls, names=None, io=False) -> list:
        if self.client is None or len(calls) < 2:
            return [fn(*args) for args in calls]
        calls = scatter_shared(self.client, calls)
        return self.client.gather([self.client.submit(fn, *args, pure=False) for args in calls])


_SMALL = (str, bytes, int, float, bool, type(None))


def scatter_shared(client, calls: Sequence[tuple]) -> list[tuple]:
    """``calls`` with every argument that several calls share (the same object, not a
    small value) sent to the workers once (``client.scatter``, broadcast) and passed as
    its future, instead of being pickled into every task (the backtest's data set is
    shared by all its units)."""
    seen: dict[int, int] = {}
    for args in calls:
        for arg in args:
            if not isinstance(arg, _SMALL):
                seen[id(arg)] = seen.get(id(arg), 0) + 1
    shared = {key for key, count in seen.items() if count > 1}
    if not shared:
        return list(calls)
    objects = {id(arg): arg for args in calls for arg in args if id(arg) in shared}
    futures = {key: client.scatter(obj, broadcast=True, hash=False) for key, obj in objects.items()}
    return [tuple(futures.get(id(arg), arg) for arg in args) for args in calls]


def map_by_cost(
    runner: Runner,
    fn: Callable,
    calls: Sequence[tuple],
    costs: Sequence[float],
    names: Sequence[str] | None = None,
    io: bool = False,
) -> list:
    """``runner.map`` with the units sent most expensive first (so that on a parallel
    runner no worker is left waiting on the longest unit at the end); values come back
    in ``calls`` order."""
    order = sorted(range(len(calls)), key=lambda i: -costs[i])
    done = runner.map(
        fn,
        [calls[i] for i in order],
        names=[names[i] for i in order] if names else None,
        io=io,
    )
    out: list = [None] * len(calls)
    for i, value in zip(order, done):
        out[i] = value
    return out


LOCAL = InProcess()


# -- Dask --------------------------------------------------------------------------------
# Thread budget: Numba threads x Dask workers <= cores. Each local worker is a process
# with one task thread and NUMBA_NUM_THREADS = cores // workers; workers of a remote
# cluster are started with the same rule (docs/operations.md).


def local_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def numba_threads_per_worker(workers: int, cores: int | None = None) -> int:
    """The thread budget: Numba threads x workers <= cores (at least one thread each)."""
    return max(1, (cores or local_cores()) // max(1, workers))


def local_cluster_kwargs(workers: int) -> dict:
    """A ``distributed.LocalCluster`` of ``workers`` processes within the thread budget."""
    threads = numba_threads_per_worker(workers)
    return {
        "n_workers": workers,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": None,
        "silence_logs": logging.WARNING,
        "env": {"NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1"},
    }


def check_scale_out(cluster: str | None, workers: int | None) -> None:
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if cluster is not None and not cluster.startswith(("tcp://", "tls://", "inproc://", "ws")):
        raise ValueError(
            f"--cluster takes a scheduler address like tcp://HOST:PORT, got {cluster!r}"
        )


@contextlib.contextmanager
def dask_client(cluster: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` on ``cluster`` or on a local cluster of ``workers``
    processes (closed on exit); None when neither is given."""
    check_scale_out(cluster, workers)
    if not cluster and not workers:
        yield None
        return
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.WARNING)
    if cluster:
        try:
            client = Client(cluster, timeout="20s")
        except OSError as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {cluster}: {exc}") from None
        with client:
            yield client
        return
    with LocalCluster(**local_cluster_kwargs(workers)) as local, Client(local) as client:
        yield client


@contextlib.contextmanager
def in_process(cluster: str | None = None, workers: int | None = None) -> Iterator[InProcess]:
    """The in-process runner, with a Dask client when ``cluster``/``workers`` ask for one."""
    with dask_client(cluster, workers) as client:
        yield InProcess(client) if client is not None else LOCAL


def on_dask_worker() -> bool:
    """True inside a task running on a Dask worker."""
    try:
        from distributed import get_worker
    except ImportError:  # pragma: no cover - distributed is a dependency
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True
