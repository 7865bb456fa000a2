"""Choosing the Prefect runner and its task runner (docs/runners.md).

Prefect runs only when asked for (``--flow``, or ``PREFECT_API_URL`` set) and
only against a real server: arpad never starts an implicit temporary server,
neither in this process nor in a Dask worker.
"""

from __future__ import annotations

import logging
import os

from arpad.pipeline.runner import check_scale_out, local_cluster_kwargs

SERVER_HINT = (
    "Prefect needs a server: set PREFECT_API_URL (e.g. start one with "
    "`prefect server start` and export PREFECT_API_URL=http://127.0.0.1:4200/api), "
    "or leave out --flow to run in this process"
)


def api_url() -> str | None:
    return os.environ.get("PREFECT_API_URL") or None


def require_server(timeout: float = 10.0) -> str:
    """The reachable server's API URL, or a one-line ValueError naming PREFECT_API_URL."""
    url = api_url()
    if not url:
        raise ValueError(SERVER_HINT)
    import httpx

    try:
        response = httpx.get(url.rstrip("/") + "/health", timeout=timeout)
        response.raise_for_status()
    except (httpx.HTTPError, OSError) as exc:
        raise ValueError(
            f"no Prefect server answers at PREFECT_API_URL={url} ({type(exc).__name__}); "
            "start one with `prefect server start`"
        ) from None
    return url


def dask_task_runner(cluster: str | None = None, workers: int | None = None):
    """A prefect-dask ``DaskTaskRunner`` on ``cluster`` (tcp://HOST:PORT) or on a
    local cluster of ``workers`` processes; None when neither is given."""
    check_scale_out(cluster, workers)
    if not cluster and not workers:
        return None
    from prefect_dask import DaskTaskRunner

    if cluster:
        return DaskTaskRunner(address=cluster)
    return DaskTaskRunner(
        cluster_class="distributed.LocalCluster", cluster_kwargs=local_cluster_kwargs(workers)
    )


def configured(flow_obj, cluster: str | None = None, workers: int | None = None):
    """``flow_obj`` with a Dask task runner when ``cluster``/``workers`` (or the
    ``ARPAD_CLUSTER``/``ARPAD_WORKERS`` environment of a deployment) ask for one."""
    cluster = cluster or os.environ.get("ARPAD_CLUSTER") or None
    workers = workers or int(os.environ.get("ARPAD_WORKERS") or 0) or None
    runner = dask_task_runner(cluster, workers)
    if runner is None:
        return flow_obj
    # Dask's INFO lines (workers starting and stopping) would drown the command's output.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    return flow_obj.with_options(task_runner=runner)


def run_flow(flow_obj, cluster: str | None = None, workers: int | None = None, **parameters):
    """Run ``flow_obj`` against the configured server (checked first)."""
    require_server()
    return configured(flow_obj, cluster, workers)(**parameters)
