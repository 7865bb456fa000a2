"""How a job's steps run (docs/runners.md).

A job (pipeline/jobs.py) is a request plus ordered steps; it calls its steps
through a ``Runner``:

- ``runner.step(fn, *args, name=…, io=…)`` runs one step and returns its value;
- ``runner.map(fn, calls, names=…, io=…)`` runs independent units (systems,
  pools, what-if scenarios, backtest systems, input files) and returns their
  values in order;
- ``runner.map_then(first, then, needs)`` runs two stages of units where each
  second-stage unit takes the values of some first-stage units (a backtest's
  candidates, then each system's finish); on a cluster a second-stage unit starts
  as soon as its own first-stage units are done;
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
import functools
import logging
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arpad.pipeline import lean

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

    def map_then(self, first: Stage, then: Stage, needs: Sequence[Sequence[int]]) -> list:
        """``first``'s units, then each unit j of ``then`` called with the values of the
        first-stage units ``needs[j]`` (in that order) appended to its arguments; the
        values of ``then`` in its order. Here: every first-stage unit, then the second
        stage (``map_by_cost`` each)."""
        values = map_by_cost(self, first.fn, first.calls, first.costs, first.names)
        calls = [(*args, [values[i] for i in need]) for args, need in zip(then.calls, needs)]
        return map_by_cost(self, then.fn, calls, then.costs, then.names)

    def artifact(self, key: str, markdown: str) -> None:
        """A report of the run; in-process runs have nowhere to keep it."""

    def info(self, message: str) -> None:
        log.info(message)

    def release(self) -> None:
        """The job sends no more ``map`` units (a parallel runner may let its workers go)."""


class InProcess(Runner):
    """Steps in this process; ``map`` units on a ``distributed.Client`` when given one
    (or on the client of a cluster ``starting`` in the background, waited for at the
    first ``map`` that needs it)."""

    def __init__(self, client=None, starting: LocalDask | None = None):
        self._client = client
        self._starting = starting
        self._released = False
        self.parallel = client is not None or starting is not None

    @property
    def client(self):
        if self._client is None and self._starting is not None:
            self._client = self._starting.client()
        return self._client

    def map(self, fn, calls, names=None, io=False) -> list:
        if not self.parallel or self._released or len(calls) < 2:
            return [fn(*args) for args in calls]
        client = self.client
        calls = scatter_shared(client, calls)
        return submit_in_order(client, fn, calls, _names(fn, len(calls), names))

    def map_then(self, first: Stage, then: Stage, needs: Sequence[Sequence[int]]) -> list:
        """``Runner.map_then`` on the cluster without a barrier between the stages: a
        second-stage unit is handed out as soon as the first-stage units it needs are
        done, and the units waiting are handed out costliest first, one per free worker
        thread (``submit_ready``), so a worker does not idle while the other finishes the
        first stage's last unit."""
        if not self.parallel or self._released:
            return super().map_then(first, then, needs)
        client = self.client
        n = len(first.calls)
        shared = scatter_shared(client, [*first.calls, *then.calls])
        units = [
            (first.fn, args, cost, name)
            for args, cost, name in zip(shared[:n], first.costs, _names(first.fn, n, first.names))
        ]
        units += [
            (then.fn, args, cost, name)
            for args, cost, name in zip(
                shared[n:], then.costs, _names(then.fn, len(then.calls), then.names)
            )
        ]
        after = [None] * n + [list(need) for need in needs]
        values = submit_ready(client, units, after)
        return values[n:]

    def release(self) -> None:
        """The job sends no more units: a local cluster starts closing in the background
        while the job finishes its own steps (joined when the command ends). A later
        ``map`` runs its units in this process."""
        self._released = True
        if self._starting is not None:
            self._starting.close_in_background()


def submit_in_order(client, fn, calls: Sequence[tuple], names: Sequence[str]) -> list:
    """``fn(*args)`` of every call on the cluster, values in ``calls`` order, each unit
    handed out only when a worker thread is free, in ``calls`` order.

    Submitting everything at once lets the scheduler queue several units on one worker
    up front (``worker-saturation`` above 1), so with units of unequal length one worker
    may end up with three while the other idles; feeding one unit per free thread
    keeps the costliest-first order (``map_by_cost``) the order the work is done in, on
    any scheduler. Each unit waits for its worker's warm-up first (pipeline/warm.py)."""
    units = [(fn, args, -i, name) for i, (args, name) in enumerate(zip(calls, names))]
    return submit_ready(client, units, [None] * len(units))


def submit_ready(client, units: Sequence[tuple], after: Sequence[Sequence[int] | None]) -> list:
    """Run ``units`` (fn, args, cost, name) on the cluster, unit j once every unit of
    ``after[j]`` is done, with their values (in ``after[j]`` order) appended to its
    arguments as one list (nothing appended where ``after[j]`` is None); of the units
    ready, the costliest (then the first) is handed out whenever a worker thread is
    free. Values in ``units`` order."""
    import heapq

    from distributed import as_completed

    from arpad.pipeline.warm import run_unit

    threads = max(1, sum(client.nthreads().values()))
    out: list = [None] * len(units)
    waiting = [len(need or ()) for need in after]
    dependents: list[list[int]] = [[] for _ in units]
    for j, need in enumerate(after):
        for i in need or ():
            dependents[i].append(j)
    ready = [(-units[j][2], j) for j in range(len(units)) if not waiting[j]]
    heapq.heapify(ready)
    index: dict[str, int] = {}

    def submit(j: int):
        fn, args, _, name = units[j]
        if after[j] is not None:
            args = (*args, [out[i] for i in after[j]])
        future = client.submit(
            run_unit, fn, *args, pure=False, key=f"{name}-{uuid.uuid4().hex[:12]}"
        )
        index[future.key] = j
        return future

    running = as_completed()
    busy = 0
    while ready and busy < threads:
        running.add(submit(heapq.heappop(ready)[1]))
        busy += 1
    for future in running:
        j = index[future.key]
        out[j] = unit_result(client, future)
        # Let the scheduler forget the unit now: a future still held while the next one
        # is awaited made Dask run a finished unit again when its worker died (a whole
        # rating run repeated beside this process's own steps; docs/runners.md "Runners
        # attacked, round 3").
        future.release()
        del future
        busy -= 1
        for k in dependents[j]:
            waiting[k] -= 1
            if not waiting[k]:
                heapq.heappush(ready, (-units[k][2], k))
        while ready and busy < threads:
            running.add(submit(heapq.heappop(ready)[1]))
            busy += 1
    if any(waiting):
        raise ValueError("map_then: a unit needs one that never ran")
    return out


def unit_result(client, future):
    """A unit's value; when the client has lost its scheduler (stopped or killed during
    the run), a one-line ValueError instead of Dask's cancelled-future traceback and an
    internal error: the units that finished wrote their folders and recorded nothing
    half done (a rating run resumes; docs/runners.md "Runners attacked, round 3")."""
    from distributed.client import FutureCancelledError
    from distributed.utils import CancelledError

    try:
        return future.result()
    except (CancelledError, OSError) as exc:
        lost = isinstance(exc, OSError) or client.status != "running"
        if isinstance(exc, FutureCancelledError):
            lost = lost or exc.reason == "scheduler-connection-lost"
        if not lost:
            raise
        address = getattr(client.scheduler, "address", None)
        raise lost_scheduler(address, exc) from None


def lost_scheduler(address: str | None, exc: BaseException) -> ValueError:
    """The one line for a run whose Dask scheduler at ``address`` (None: a local
    cluster's) went away (``exc``, Dask's cancelled future or closed connection), in
    process and as a flow."""
    where = f"at {named_cluster(address)}" if address else "of the local cluster"
    return ValueError(
        f"lost the Dask scheduler {where} during the run ({type(exc).__name__}): "
        "the units that finished are stored; run the command again (rating runs "
        "resume where they stopped)"
    )


#: How long ``--cluster`` waits for a scheduler without workers to get one.
NO_WORKERS_WAIT = 60.0


def wait_for_a_worker(client, address: str) -> None:
    """A scheduler with no worker would keep the units pending for ever: wait up to
    ``NO_WORKERS_WAIT`` seconds for one, else a one-line ValueError."""
    if client.nthreads():
        return
    try:
        client.wait_for_workers(1, timeout=NO_WORKERS_WAIT)
    except TimeoutError:
        raise ValueError(
            f"the Dask scheduler at {named_cluster(address)} has no workers "
            f"(waited {NO_WORKERS_WAIT:g} s): "
            f"start some with `dask worker {address}`"
        ) from None


#: The packages of an arpad build (pyproject.toml [tool.setuptools]: ``arpad.pipeline``
#: holds its subpackages commands, rules and systems).
PACKAGES = ("arpad", "arpad.pipeline", "arpad.kernels", "arpad.flows")


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """The sha256 (hex) of this process's arpad: every ``.py`` and ``.json`` file of the
    installed arpad packages (``PACKAGES``), by its name inside the package and its
    bytes, in sorted order. The same sources give the same digest in an editable
    checkout and an installed wheel (a file is counted under the innermost package
    folder that holds it); the kernels compiled ahead of time (``kernels/_aot``) and
    byte-code are left out: they follow from the sources (a stale AOT module is not
    used, kernels/aot.py). Computed once per process (130 files, 2 MB: 5-15 ms;
    docs/runners.md "Workers of another arpad")."""
    import hashlib
    from importlib.util import find_spec

    roots = {}
    for package in PACKAGES:
        spec = find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            roots[package] = os.path.realpath(next(iter(spec.submodule_search_locations)))
    files = {}
    for package, root in roots.items():
        inner = set(roots.values()) - {root}
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [
                d
                for d in subfolders
                if d not in ("__pycache__", "_aot") and os.path.join(folder, d) not in inner
            ]
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            prefix = package + "/" + ("" if rel == "." else rel + "/")
            for name in names:
                if name.endswith((".py", ".json")):
                    files[prefix + name] = os.path.join(folder, name)
    h = hashlib.sha256()
    for name in sorted(files):
        with open(files[name], "rb") as fh:
            data = fh.read()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def check_workers_build(client, address: str) -> None:
    """A one-line ValueError when a worker of the scheduler at ``address`` runs other
    arpad sources than this process (``source_digest`` compared through
    ``client.run``). Workers started before an upgrade of arpad keep the old modules:
    they unpickled the new client's objects against them (an internal error and 150
    lines of traceback), or would have rated with the old code and the new client
    recorded those runs as its own (docs/runners.md "Workers of another arpad"). A
    worker whose arpad has no ``source_digest`` (older than the check) counts as
    another version."""
    here = source_digest()
    theirs = client.run(source_digest, on_error="return")
    older = "unknown (an older arpad)"
    other = [d if isinstance(d, str) else older for d in theirs.values() if d != here]
    if not other:
        return
    counts: dict[str, int] = {}
    for digest in other:
        counts[digest] = counts.get(digest, 0) + 1
    there = ", ".join(
        f"{digest if digest == older else digest[:8]} on {n} of {len(theirs)} workers"
        for digest, n in sorted(counts.items(), key=lambda item: -item[1])
    )
    raise ValueError(
        f"the Dask workers at {named_cluster(address)} run another version of arpad "
        f"(sources differ: {here[:8]} here, {there}); restart them "
        f"(dask worker {address}) after an upgrade"
    )


def _names(fn: Callable, count: int, names: Sequence[str] | None) -> list[str]:
    """Task names of ``count`` units: ``names``, else the function's name."""
    return list(names) if names else [getattr(fn, "__name__", "unit")] * count


@dataclass
class Stage:
    """Units of one ``map_then`` stage: ``fn(*args)`` for each of ``calls``, with their
    relative ``costs`` and task ``names``."""

    fn: Callable
    calls: Sequence[tuple]
    costs: Sequence[float]
    names: Sequence[str] | None = None


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
    """A ``distributed.LocalCluster`` of ``workers`` processes within the thread budget.

    The scheduler's HTTP server (which Dask starts even without a dashboard) listens on
    a free port of 127.0.0.1: on its default, 8787, a second cluster on the machine (two
    commands with ``--workers`` at once) printed "Port 8787 is already in use"
    (docs/runners.md "Runners attacked, round 3")."""
    threads = numba_threads_per_worker(workers)
    return {
        "n_workers": workers,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": None,
        "scheduler_kwargs": {"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        "silence_logs": logging.WARNING,
        "env": {"NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1"},
        # Ctrl-C is the command's to handle: the workers ignore SIGINT
        "preload": ["arpad.pipeline.worker_signals"],
    }


def local_workers(workers: int) -> int:
    """The number of local worker processes to start for ``--workers N``: N, but not more
    than this machine's cores (a note on stderr says so). Each worker is a process of
    its own (imports, Numba cache, memory) and the thread budget gives each at least one
    core: ``--workers 64`` on 2 cores spawned 64 processes, thrashed for minutes and
    ended in "the local Dask cluster did not start" (docs/runners.md "Runners attacked,
    round 3")."""

    cores = local_cores()
    if workers <= cores:
        return workers
    print(
        f"arpad: note: --workers {workers} on a machine with {cores} cores: "
        f"starting {cores} worker processes",
        file=sys.stderr,
    )
    return cores


# Dask's nannies start every worker with MALLOC_TRIM_THRESHOLD_=65536
# (``distributed.nanny.pre-spawn-environ``) so that idle workers hand memory back. Setting
# it switches off glibc's adaptive mmap threshold: every array above 128 KiB is then a fresh
# mmap, faulted in page by page and unmapped when freed. A rating unit allocates and frees
# arrays of 10^5-10^6 entries each period, so on the 6M-game reconstruction a worker spent
# 3.3 s more in the kernel than the same work in process (docs/runners.md "Dask start-up").
# arpad's local workers run a batch and exit: they get the allocator settings of the
# console's period-walking commands instead (pipeline/lean.py ``keep_freed_memory``:
# pyarrow on the system allocator, glibc's mmap threshold 32 MiB and trim threshold
# 256 MiB), set before each worker process starts, as glibc reads them only then. A
# value in the command's own environment wins (Dask reads it first).
LOCAL_WORKER_CONFIG = {
    f"distributed.nanny.pre-spawn-environ.{name}": value
    for name, value in {
        "MALLOC_TRIM_THRESHOLD_": str(lean.TRIM_THRESHOLD),
        "MALLOC_MMAP_THRESHOLD_": str(lean.MMAP_THRESHOLD),
        **lean.KEEP_FREED_MEMORY,
    }.items()
}


def start_local_cluster(workers: int, **extra):
    """A ``distributed.LocalCluster`` of ``workers`` processes (``local_cluster_kwargs``,
    updated by ``extra``) whose workers keep glibc's default allocator settings."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(LOCAL_WORKER_CONFIG):
        return LocalCluster(**{**local_cluster_kwargs(workers), **extra})


def check_scale_out(cluster: str | None, workers: int | None) -> None:
    # a value from ARPAD_WORKERS (the CLI's default, a deployment's env_workers) is named so
    from_env = os.environ.get("ARPAD_WORKERS", "").strip() == str(workers)
    if workers is not None and workers < 1:
        if from_env:
            raise ValueError(f"ARPAD_WORKERS={workers}: the number of workers must be at least 1")
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if cluster is not None and not cluster.startswith(("tcp://", "tls://", "inproc://", "ws")):
        raise ValueError(
            f"--cluster takes a scheduler address like tcp://HOST:PORT, got {cluster!r}"
        )
    if cluster and workers:
        # The local cluster was silently not started: the units went to the
        # scheduler's own workers (docs/runners.md "Runners attacked, round 4").
        given = f"ARPAD_WORKERS={workers}" if from_env else f"--workers {workers}"
        where = named_cluster(cluster)
        where = where if where != cluster else f"--cluster {cluster}"
        raise ValueError(
            f"{given} and {where}: give one (--workers starts a local cluster, "
            "--cluster uses the workers of a running scheduler)"
        )


def probe_scheduler(cluster: str, timeout: float = 5.0) -> None:
    """A one-line ValueError at once when nothing listens at ``cluster``'s host and port
    (a closed port, a host that does not resolve). Dask's own connect retries a refused
    connection until its timeout (20 s) before it says so (docs/runners.md "Runners
    attacked, round 3"). Then whatever listens must answer as a Dask scheduler
    (``check_is_scheduler``). Addresses other than tcp:// and tls:// are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    if not cluster.startswith(("tcp://", "tls://")):
        return
    try:
        parts = urlsplit(cluster)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ValueError(f"--cluster {cluster}: {exc}") from None
    if not host or port is None:
        raise ValueError(
            f"--cluster takes a scheduler address like tcp://HOST:PORT, got {cluster!r}"
        )
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ValueError(
            f"cannot reach the Dask scheduler at {named_cluster(cluster)}: {why} "
            "(is `dask scheduler` running there?)"
        ) from None
    check_is_scheduler(cluster)


#: How long ``check_is_scheduler`` waits for a scheduler's answer.
IDENTITY_WAIT = 10.0


def check_is_scheduler(cluster: str, timeout: float | None = None) -> None:
    """A one-line ValueError when what listens at ``cluster`` does not answer Dask's
    handshake and ``identity`` request as a scheduler within ``timeout`` seconds.
    ``Client`` waits for the handshake's reply with no time limit: on the dashboard's
    port, a Prefect server or any HTTP server a command hung for ever, silently
    (docs/runners.md "Runners attacked, round 4"). The exchange runs on a thread of
    its own (the caller may be inside an event loop, a notebook) that ends with it;
    ``timeout`` defaults to ``IDENTITY_WAIT``."""
    timeout = IDENTITY_WAIT if timeout is None else timeout
    outcome: list = []

    def ask() -> None:
        import asyncio

        try:
            outcome.append(asyncio.run(_identity(cluster, timeout)))
        except BaseException as exc:  # reported below
            outcome.append(exc)

    thread = threading.Thread(target=ask, name="arpad-dask-probe", daemon=True)
    thread.start()
    thread.join(timeout + 5.0)
    reply = outcome[0] if outcome else TimeoutError()
    if isinstance(reply, dict) and reply.get("type") == "Scheduler":
        return
    if isinstance(reply, dict):
        why = f"its identity is {str(reply.get('type'))[:40]!r}"
    elif isinstance(reply, TimeoutError):
        why = f"no Dask handshake within {timeout:g} s"
    else:
        why = f"{type(reply).__name__}: {str(reply)[:80]}".rstrip(": ")
    raise ValueError(
        f"{named_cluster(cluster)} answers but is not a Dask scheduler (an HTTP server? "
        f"the dashboard is usually the scheduler's port + 1): {why}"
    )


async def _identity(cluster: str, timeout: float):
    """The reply of the peer at ``cluster`` to Dask's handshake and ``identity``, all
    within ``timeout`` seconds; the connection is closed either way."""
    import asyncio

    from distributed.comm import parse_address, registry
    from distributed.security import Security

    scheme, location = parse_address(cluster)
    connector = registry.get_backend(scheme).get_connector()
    args = Security().get_connection_args("client")

    async def exchange():
        comm = await connector.connect(location, deserialize=True, **args)
        try:
            await comm.write(comm.handshake_info())
            await comm.read()
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        return await asyncio.wait_for(exchange(), timeout)
    except asyncio.TimeoutError:
        raise TimeoutError from None


def named_cluster(cluster: str) -> str:
    """``cluster`` as the user gave it: ``ARPAD_CLUSTER=…`` when that variable holds it
    (the CLI's ``--cluster`` defaults to it, so an error naming only the address left
    the user looking for where it came from)."""
    if cluster and os.environ.get("ARPAD_CLUSTER") == cluster:
        return f"ARPAD_CLUSTER={cluster}"
    return cluster


@contextlib.contextmanager
def dask_client(cluster: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` on ``cluster`` or on a local cluster of ``workers``
    processes (closed on exit); None when neither is given."""
    check_scale_out(cluster, workers)
    if not cluster and not workers:
        yield None
        return
    from distributed import Client

    logging.getLogger("distributed").setLevel(logging.WARNING)
    if cluster:
        probe_scheduler(cluster)
        try:
            client = Client(cluster, timeout="20s")
        except OSError as exc:
            raise ValueError(
                f"cannot reach the Dask scheduler at {named_cluster(cluster)}: {exc}"
            ) from None
        with client:
            wait_for_a_worker(client, cluster)
            check_workers_build(client, cluster)
            yield client
        return
    with start_local_cluster(workers) as local, Client(local) as client:
        yield client


class LocalDask:
    """A ``distributed.LocalCluster`` of ``workers`` processes started on a background
    thread, so that the command prepares its units (reads its data set, checks the
    store) while the workers spawn; each worker warms up as it starts (the systems
    and modules of ``warm``, pipeline/warm.py). ``client()`` waits for the start;
    ``close()`` (or ``close_in_background()`` once the last unit is back) stops the
    cluster and its processes."""

    def __init__(self, workers: int, systems=(), modules=()):
        from arpad.pipeline.warm import warm_env

        self._workers = workers
        extra = {}
        if systems or modules:
            env = local_cluster_kwargs(workers)["env"]
            extra = {
                "preload": [*local_cluster_kwargs(workers)["preload"], "arpad.pipeline.warm"],
                "env": {**env, **warm_env(systems, modules)},
            }
        self._extra = extra
        self._cluster = self._client = self._error = None
        self._closing: threading.Thread | None = None
        self._started = threading.Thread(target=self._start, name="arpad-dask-start", daemon=True)
        self._started.start()

    def _start(self) -> None:
        try:
            from distributed import Client

            logging.getLogger("distributed").setLevel(logging.WARNING)
            self._cluster = start_local_cluster(self._workers, **self._extra)
            self._client = Client(self._cluster)
        except BaseException as exc:  # raised where the client is needed
            self._error = exc

    def client(self):
        self._started.join()
        if self._error is not None:
            raise RuntimeError(
                f"the local Dask cluster did not start: {self._error}{unguarded_main_hint()}"
            )
        return self._client

    def _close(self) -> None:
        self._started.join()
        for part in (self._client, self._cluster):
            if part is not None:
                part.close()

    def close_in_background(self) -> None:
        if self._closing is None:
            self._closing = threading.Thread(target=self._close, name="arpad-dask-close")
            self._closing.start()

    def close(self, quiet: bool = False) -> None:
        """Stop the cluster (waiting for a close already under way); a cluster that
        failed to start raises here unless ``quiet`` (another error is on its way)."""
        self.close_in_background()
        self._closing.join()
        if self._error is not None and not quiet:
            raise RuntimeError(
                f"the local Dask cluster did not start: {self._error}{unguarded_main_hint()}"
            )


def unguarded_main_hint() -> str:
    """Why a local cluster started from a script fails (docs/runners.md "Workers from a
    script"): each worker process begins by importing the main script, as Python's
    multiprocessing does, so a script without an ``if __name__ == "__main__":`` guard
    starts a cluster again inside each worker, and code piped on stdin cannot be
    imported at all. Empty for a main module with a guard (``arpad`` itself) or none
    (a notebook, ``python -c``)."""

    main = sys.modules.get("__main__")
    path = vars(main).get("__file__") if main is not None else None
    if not path:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            if "__main__" in fh.read():
                return ""
        reason = f'{path} has no `if __name__ == "__main__":` guard'
    except OSError:
        reason = f"the main program ({path}) is not a file the workers can import"
    return (
        f" ({reason}; each worker process starts by importing the main program: in a "
        'script file, put the calls that use workers= under `if __name__ == "__main__":`)'
    )


@contextlib.contextmanager
def in_process(
    cluster: str | None = None, workers: int | None = None, warm=(), warm_modules=()
) -> Iterator[InProcess]:
    """The in-process runner, with a Dask client when ``cluster``/``workers`` ask for one.
    A local cluster starts in the background (its workers warmed with the systems
    ``warm`` and the modules ``warm_modules``) and is closed when the block ends."""
    check_scale_out(cluster, workers)
    if cluster or not workers:
        with dask_client(cluster, None) as client:
            yield InProcess(client) if client is not None else LOCAL
        return
    local = LocalDask(local_workers(workers), warm, warm_modules)
    try:
        yield InProcess(starting=local)
    except BaseException:
        local.close(quiet=True)
        raise
    local.close()


def on_dask_worker() -> bool:
    """True inside a task running on a Dask worker. A process that has not loaded Dask
    is none, and is not made to import it (a console ``arpad rate`` never does)."""
    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker
    except ImportError:  # pragma: no cover - distributed is a dependency
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True
