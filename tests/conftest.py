"""Shared fixtures. Prefect gets a project-local home and no analytics before it is imported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Shared, noisy machines: no per-example deadlines (speed is measured in benchmarks/).
# In CI the examples are derandomized (reproducible runs); locally they vary.
settings.register_profile(
    "arpad",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("arpad")

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("PREFECT_HOME", str(REPO / ".prefect"))
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# Runs go to a real server only in the tests that ask for one (prefect_harness below).
os.environ.pop("PREFECT_API_URL", None)
os.environ.pop("ARPAD_NO_FLOW", None)

BUNDLED = REPO / "data" / "real"
# ../shared/data/real when laid beside the clone, else the bundled copies of its PGN
# and TRF files in data/real (data/README.md).
_BESIDE = REPO.parent / "shared" / "data" / "real"
SHARED = _BESIDE if _BESIDE.is_dir() else BUNDLED


@pytest.fixture(scope="session")
def bundled_data() -> Path:
    """data/real/ (Deloitte 2011 and Kaggle 2010 files bundled with the repo)."""
    assert (BUNDLED / "SHA256SUMS").exists(), "data/real is missing from the checkout"
    return BUNDLED


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The PGN and TRF files: ../shared/data/real, or their copies in data/real."""
    assert (SHARED / "pgn").is_dir(), f"real PGN/TRF data not found at {SHARED}"
    return SHARED


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def prefect_server():
    """One real ``prefect server start`` for the whole session, on a free local port
    (started by the first test that needs it, stopped at the end)."""
    import signal
    import subprocess
    import sys
    import time

    import httpx

    port = free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    log = open(Path(os.environ["PREFECT_HOME"]).parent / ".prefect-server.log", "w")
    prefect = Path(sys.executable).with_name("prefect")
    proc = subprocess.Popen(
        [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, f"prefect server exited: see {log.name}"
            assert time.monotonic() < deadline, f"prefect server did not start: see {log.name}"
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture
def prefect_harness(prefect_server, monkeypatch):
    """This test (and the processes it starts) talk to the session's real server."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.setenv("PREFECT_API_URL", prefect_server)
    with temporary_settings({PREFECT_API_URL: prefect_server}):
        yield prefect_server


@pytest.fixture
def store(tmp_path):
    from arpad.pipeline.store import Store

    return Store(tmp_path / "store")


def write_csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def results(table):
    """A ratings table without ``run_id``, the audit column naming the run that wrote
    the row (docs/store.md): two runs give the same results with different run ids."""
    return table.drop_columns([c for c in ("run_id",) if c in table.column_names])


def synthetic_stores(factory, spec, names: tuple[str, ...]) -> dict[str, Path]:
    """One store per name, each filled with the same synthetic games (``spec``)."""
    from arpad.pipeline.store import Store
    from arpad.pipeline.synthetic import generate

    roots = {}
    for name in names:
        root = factory.mktemp(name)
        generate(Store(root), spec)
        roots[name] = root
    return roots


def rating_files(store, system: str) -> dict[int, list[dict]]:
    """Every stored ratings file of ``system``/standard as rows, by period, without
    ``run_id`` (two runs of the same work must give equal files)."""
    import pyarrow.parquet as pq

    out = {}
    for period in store.rating_periods(system, "standard"):
        path = store.rating_partition(system, "standard", period) / "part-0.parquet"
        out[period] = results(pq.read_table(path)).to_pylist()
    return out


def assert_same_backtest(local, remote) -> None:
    """Two backtest results with the same rows to the last bit: settings, scores, log
    losses and every prediction."""
    import numpy as np

    assert [r.system for r in local.rows] == [r.system for r in remote.rows]
    for a, b in zip(local.rows, remote.rows, strict=True):
        assert (a.settings, a.validation, a.scores, a.log_loss3) == (
            b.settings,
            b.validation,
            b.scores,
            b.log_loss3,
        ), a.system
        for name in a.predictions:
            assert np.array_equal(a.predictions[name], b.predictions[name])


def kill_process_groups(procs, log=None) -> None:
    """Stop test-started processes (each its own process group: ``dask scheduler``,
    ``dask worker``, …), newest first, and close their shared log."""
    import signal

    for proc in reversed(procs):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    if log is not None:
        log.close()


def run_deployment_once(name: str, pool: str, cwd: Path):
    """Start the deployment ``recalculate/<name>`` and run it with one Prefect worker of
    ``pool`` (``--run-once``): the flow run as the server has it after, and the worker's
    output."""
    import subprocess
    import sys

    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    run = run_deployment(f"recalculate/{name}", timeout=0)
    worker = subprocess.run(
        [str(Path(sys.executable).with_name("prefect")), "worker", "start", "--pool", pool,
         "--run-once", "--limit", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300, cwd=cwd,
    )  # fmt: skip
    with get_client(sync_client=True) as client:
        return client.read_flow_run(run.id), worker.stdout


def wait_for_port(port: int, log: Path, seconds: float = 60.0) -> None:
    """Wait until something listens on 127.0.0.1:``port`` (a test-started ``dask
    scheduler``); fail with the process's ``log`` after ``seconds``."""
    import socket
    import time

    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
