"""Where a job runs (docs/runners.md): in process by default, Prefect only when asked
and only against a real server, the monthly job deployed and run for real, and the
package installed as arpad.* only."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import BUNDLED, REPO, assert_same_backtest, results, write_csv
from tests.test_cli_flow import small_store

ARPAD = str(Path(sys.executable).with_name("arpad"))


def run_cli(args, env_extra=None, cwd=None, **kw):
    import os

    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(env_extra or {})
    return subprocess.run([ARPAD, *args], capture_output=True, text=True, env=env, cwd=cwd, **kw)


def test_default_runner_imports_no_prefect(tmp_path):
    """``arpad ingest`` + ``arpad rate`` without PREFECT_API_URL: no Prefect in the process."""
    players, games = small_store(tmp_path)
    code = (
        "import sys\n"
        "from arpad.pipeline.cli import main\n"
        f"assert main(['ingest', {str(games)!r}, '--players', {str(players)!r}, '--store', 'S']) == 0\n"
        "assert main(['rate', '--system', 'fide', '--store', 'S']) == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('prefect', 'matplotlib', 'distributed', 'prefect_dask'))\n"
        "assert not heavy, heavy\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "PREFECT_API_URL"}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path, env=env)


def test_flow_without_a_server_is_a_one_line_error(tmp_path):
    _, games = small_store(tmp_path)
    proc = run_cli(["ingest", str(games), "--store", str(tmp_path / "s"), "--flow"])
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "PREFECT_API_URL" in proc.stderr
    assert not (tmp_path / "s" / "manifest.parquet").exists()
    dead = {"PREFECT_API_URL": "http://127.0.0.1:9/api"}
    proc = run_cli(["rate", "--system", "elo", "--store", str(tmp_path / "s")], dead)
    assert proc.returncode == 2 and "no Prefect server answers at PREFECT_API_URL" in proc.stderr


@pytest.mark.parametrize("command", ["deploy", "serve"])
def test_deploy_and_serve_check_server_store_and_inbox(command, tmp_path, capsys):
    players, games = small_store(tmp_path)
    s = str(tmp_path / "s")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    capsys.readouterr()
    # no store there
    assert main([command, "--store", str(tmp_path / "none"), "--inbox", str(inbox)]) == 2
    assert "no store there" in capsys.readouterr().err
    # no inbox there
    assert main([command, "--store", s, "--inbox", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    # no server
    assert main([command, "--store", s, "--inbox", str(inbox)]) == 2
    err = capsys.readouterr().err
    assert "PREFECT_API_URL" in err and err.count("\n") == 1


def test_request_values_are_checked_before_any_work(tmp_path, capsys):
    players, games = small_store(tmp_path)
    s = str(tmp_path / "s")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    before = sorted(p.name for p in Path(s).rglob("*"))
    bad = [
        (["--from", "202502", "--to", "202501"], "is after --to"),
        (["--shards", "0"], "--shards must be at least 1"),
        (["--shards", "-3"], "--shards must be at least 1"),
        (["--wait", "-5"], "--wait takes a number of seconds >= 0"),
        (["--pool", "rapid"], "no games stored in pool 'rapid'"),
        (["--from", "202511"], "no standard games with --from 202511"),
        (["--from", "203001"], "is out of range"),
        (["--workers", "0"], "--workers must be at least 1"),
    ]
    for extra, message in bad:
        assert main(["rate", "--system", "elo", "--store", s, *extra]) == 2, extra
        assert message in capsys.readouterr().err, extra
    assert sorted(p.name for p in Path(s).rglob("*")) == before
    assert main(["ingest", str(tmp_path), "--store", s]) == 2
    assert "is a directory" in capsys.readouterr().err


# -- against one real Prefect server --------------------------------------------------------


@pytest.mark.prefect
def test_cli_flow_equals_in_process_and_names_tasks(tmp_path, prefect_harness):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    players, games = small_store(tmp_path)
    tracked, plain = str(tmp_path / "tracked"), str(tmp_path / "plain")
    # PREFECT_API_URL is set: a flow by default
    assert main(["ingest", str(games), "--players", str(players), "--store", tracked]) == 0
    assert main(["rate", "--system", "fide", "--store", tracked]) == 0
    assert (
        main(["ingest", str(games), "--players", str(players), "--store", plain, "--no-flow"]) == 0
    )
    assert main(["rate", "--system", "fide", "--store", plain, "--no-flow"]) == 0
    for period in (202501, 202502):
        a = Store(tracked).read_ratings("fide", "standard", period)
        assert results(a).equals(results(Store(plain).read_ratings("fide", "standard", period)))
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(sort="START_TIME_DESC", limit=5)
        rate_run = next(r for r in runs if r.parameters.get("system") == "fide")
        assert rate_run.parameters["store"] == str(Path(tracked).resolve())
        assert rate_run.state.is_completed()
        tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [rate_run.id]}))
        names = {t.name for t in tasks}
        assert "rate-fide-standard" in names and "refresh-catalog" in names
        flow = client.read_flow(rate_run.flow_id)
        assert flow.name == "rate"
    del FlowRunFilterName


@pytest.mark.prefect
def test_deploy_then_run_the_monthly_recalculation(tmp_path, prefect_harness, bundled_data):
    """``arpad deploy`` on the real server, a process worker runs it, the list is
    published and the run's artifact recorded."""
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    store, inbox = tmp_path / "store", tmp_path / "inbox"
    inbox.mkdir()
    src = bundled_data / "kaggle2010_elo_vs_rest" / "cross_validation_dataset.csv"
    first = src.read_text().splitlines()
    write_csv(inbox / "month.csv", first[0], first[1:2000])
    seed = write_csv(tmp_path / "seed.csv", first[0], first[2000:2100])
    assert main(["ingest", str(seed), "--store", str(store), "--no-flow"]) == 0
    name = f"monthly-{tmp_path.name}"[:60]
    pool = f"arpad-test-{int(time.time())}"
    args = ["deploy", "--store", str(store), "--inbox", str(inbox), "--name", name]
    assert main([*args, "--work-pool", pool, "--systems", "elo", "--mapping", "kaggle2010"]) == 0
    with get_client(sync_client=True) as client:
        dep = client.read_deployment_by_name(f"recalculate/{name}")
    assert dep.parameters == {
        "store": str(store.resolve()),
        "inbox": str(inbox.resolve()),
        "systems": ["elo"],
        "mapping": "kaggle2010",
    }
    assert dep.schedules[0].schedule.cron == "0 3 1 * *"
    run = run_deployment(f"recalculate/{name}", timeout=0)
    worker = subprocess.Popen(
        [str(Path(sys.executable).with_name("prefect")), "worker", "start", "--pool", pool,
         "--run-once", "--limit", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        out, _ = worker.communicate(timeout=400)
    except subprocess.TimeoutExpired:
        worker.kill()
        out, _ = worker.communicate()
    with get_client(sync_client=True) as client:
        finished = client.read_flow_run(run.id)
        assert finished.state.is_completed(), out[-3000:]
        artifacts = client.read_artifacts()
    texts = [a.data for a in artifacts if a.key == "arpad-recalculation"]
    assert any("**1,999 games ingested**" in t for t in texts)
    exported = sorted((store / "exports").rglob("list-*.csv"))
    assert exported and exported[-1].read_text().count("\n") > 100
    assert (inbox / "processed" / "month.csv").exists()


# -- packaging ---------------------------------------------------------------------------------


@pytest.mark.once
def test_built_wheel_installs_arpad_only(tmp_path):
    """The wheel holds arpad/, arpad/pipeline, arpad/kernels, arpad/flows and nothing at the
    top level; installed in a fresh venv, ``import arpad`` works from another folder and no
    top-level pipeline/kernels/flows is importable."""
    import os
    import sysconfig
    import zipfile

    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    assert "Deprecat" not in build.stdout + build.stderr
    (wheel,) = (tmp_path / "dist").glob("arpad-*.whl")
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"arpad"}
    names = zipfile.ZipFile(wheel).namelist()
    assert "arpad/pipeline/rules/fide_tables.json" in names
    assert "arpad/kernels/fide.py" in names and "arpad/flows/recalculate.py" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The dependencies come from the test environment's site-packages (PYTHONPATH entries
    # are not site dirs: its editable-install hook for arpad is not loaded).
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    check = (
        "import importlib.util, arpad, polars as pl\n"
        "for name in ('pipeline', 'kernels', 'flows'):\n"
        "    assert importlib.util.find_spec(name) is None, name\n"
        "assert '/venv/' in arpad.__file__, arpad.__file__\n"
        "g = pl.DataFrame({'period': [1], 'white_id': ['a'], 'black_id': ['b'], 'score': [1.0]})\n"
        "assert arpad.rate(g, system='elo').height == 2\n"
        "import arpad.flows.recalculate\n"
    )
    subprocess.run([str(py), "-c", check], check=True, cwd=elsewhere, env=env)


# -- Dask: a real scheduler and two workers as separate processes -----------------------------


@pytest.fixture
def dask_processes(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes on this machine (no Prefect)."""
    import os
    import signal

    from tests.conftest import free_port

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")  # thread budget: 1 x 2 workers
    log = open(tmp_path / "dask.log", "w")
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    ]
    from distributed import Client

    deadline = time.monotonic() + 60
    while True:
        try:
            Client(address, timeout="2s").close()
            break
        except OSError:
            assert time.monotonic() < deadline, (tmp_path / "dask.log").read_text()
            time.sleep(0.5)
    for _ in range(2):
        procs.append(
            subprocess.Popen(
                [
                    dask,
                    "worker",
                    address,
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--local-directory",
                    str(tmp_path / "dask-worker"),
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=120)
    try:
        yield address
    finally:
        for proc in reversed(procs):
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.mark.once
def test_reconstruct_on_a_separate_dask_cluster_equals_local(
    tmp_path, bundled_data, dask_processes
):
    """``arpad reconstruct --cluster tcp://…`` (systems side by side on two worker
    processes, no Prefect server anywhere) gives exactly the local ratings."""
    src = bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"
    lines = src.read_text().splitlines()
    games = write_csv(
        tmp_path / "g.csv", lines[0], [r for r in lines[1:] if int(r.split(",")[0]) > 90]
    )
    stores = {}
    for label, extra in (("local", []), ("cluster", ["--cluster", dask_processes])):
        store = tmp_path / label
        assert main(["ingest", str(games), "--store", str(store), "--no-flow"]) == 0
        args = ["reconstruct", "--store", str(store), "--systems", "elo,glicko2,whr,uscf"]
        assert main([*args, "--no-flow", *extra]) == 0
        stores[label] = Store(store)
    for system in ("elo", "glicko2", "whr", "uscf"):
        periods = stores["local"].rating_periods(system, "standard")
        assert periods and periods == stores["cluster"].rating_periods(system, "standard")
        for period in periods:
            a = stores["local"].read_ratings(system, "standard", period)
            b = stores["cluster"].read_ratings(system, "standard", period)
            assert results(a).equals(results(b)), system


@pytest.mark.once
def test_backtest_on_a_separate_dask_cluster_equals_local(dask_processes):
    """The backtest's units (every tuning candidate, then each system's finish) on two
    worker processes give the in-process table to the last bit; the data set is sent
    to the workers once (scattered), not pickled into every unit."""
    from distributed import Client

    from arpad.pipeline import jobs
    from arpad.pipeline.runner import InProcess

    req = jobs.BacktestRequest("kaggle2010", str(BUNDLED), ["elo", "glicko", "harkness"])
    local = jobs.backtest(req)
    with Client(dask_processes, timeout="30s") as client:
        remote = jobs.backtest(req, InProcess(client))
    assert_same_backtest(local, remote)


def test_map_by_cost_sends_the_costliest_first_and_keeps_the_order():
    from arpad.pipeline.runner import Runner, map_by_cost

    seen = []

    class Recording(Runner):
        def map(self, fn, calls, names=None, io=False):
            seen.extend(names)
            return [fn(*args) for args in calls]

    out = map_by_cost(
        Recording(), lambda x: x * 10, [(1,), (2,), (3,)], costs=[1, 5, 2], names=["a", "b", "c"]
    )
    assert out == [10, 20, 30]
    assert seen == ["b", "c", "a"]


def test_scatter_shared_sends_a_shared_object_once():
    from arpad.pipeline.runner import scatter_shared

    class FakeClient:
        def __init__(self):
            self.scattered = []

        def scatter(self, obj, broadcast, hash):
            assert broadcast and not hash
            self.scattered.append(obj)
            return ("future", len(self.scattered))

    data, own = [1, 2, 3], {"x": 1}
    client = FakeClient()
    calls = scatter_shared(client, [(data, "elo", own), (data, "whr", 3)])
    assert client.scattered == [data]  # shared list once; strings, ints and own objects stay
    assert calls == [(("future", 1), "elo", own), (("future", 1), "whr", 3)]
