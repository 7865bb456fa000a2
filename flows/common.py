"""Task options shared by the flows: I/O tasks retry on OS errors only."""

from __future__ import annotations

import contextlib
import logging
import os

from prefect.cache_policies import NO_CACHE


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


# -- task runners ------------------------------------------------------------------
# Thread budget: Numba threads x Dask workers <= cores. Each local worker is a process
# with one task thread and NUMBA_NUM_THREADS = cores // workers; workers of a remote
# cluster are started with the same rule (docs/operations.md).


def local_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def numba_threads_per_worker(workers: int, cores: int | None = None) -> int:
    """The thread budget: Numba threads x workers <= cores (at least one thread each)."""
    return max(1, (cores or local_cores()) // max(1, workers))


def dask_task_runner(cluster: str | None = None, workers: int | None = None):
    """A prefect-dask ``DaskTaskRunner`` on ``cluster`` (tcp://HOST:PORT) or on a
    local cluster of ``workers`` processes; None when neither is given."""
    if not cluster and not workers:
        return None
    from prefect_dask import DaskTaskRunner

    if cluster:
        return DaskTaskRunner(address=cluster)
    return DaskTaskRunner(
        cluster_class="distributed.LocalCluster", cluster_kwargs=local_cluster_kwargs(workers)
    )


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


@contextlib.contextmanager
def dask_client(cluster: str | None = None, workers: int | None = None):
    """A ``distributed.Client`` on ``cluster`` or on a local cluster of ``workers``
    processes (closed on exit); None when neither is given. For the runs without a
    flow (``--no-flow``) that still shard their periods on Dask."""
    if not cluster and not workers:
        yield None
        return
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.WARNING)
    if cluster:
        with Client(cluster) as client:
            yield client
        return
    with LocalCluster(**local_cluster_kwargs(workers)) as local, Client(local) as client:
        yield client


def configured(flow_obj, cluster: str | None = None, workers: int | None = None):
    """``flow_obj`` with a Dask task runner when ``cluster``/``workers`` (or the
    ``ARPAD_CLUSTER``/``ARPAD_WORKERS`` environment variables) ask for one."""
    cluster = cluster or os.environ.get("ARPAD_CLUSTER") or None
    workers = workers or int(os.environ.get("ARPAD_WORKERS") or 0) or None
    runner = dask_task_runner(cluster, workers)
    if runner is None:
        return flow_obj
    # Dask's INFO lines (workers starting and stopping) would drown the command's output.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    return flow_obj.with_options(task_runner=runner)


def on_dask() -> bool:
    """True inside a flow run whose task runner is a DaskTaskRunner (tasks may then
    run side by side in separate processes)."""
    from prefect.context import FlowRunContext

    ctx = FlowRunContext.get()
    runner = getattr(ctx, "task_runner", None) if ctx else None
    return type(runner).__name__ == "DaskTaskRunner"


def run_all(task_obj, calls: list[tuple]) -> list:
    """Run ``task_obj`` on each argument tuple: side by side on Dask, one after the
    other otherwise (threads of one process would launch Numba's parallel layer
    concurrently, which its default workqueue layer does not support)."""
    if on_dask():
        futures = [task_obj.submit(*args) for args in calls]
        return [f.result() for f in futures]
    return [task_obj(*args) for args in calls]
