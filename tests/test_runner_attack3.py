"""The Prefect and Dask runners attacked as a rating officer and an analyst meet them
(docs/runners.md "Runners attacked, round 3"): what failed, each checked here after
its fix, and a tracked run compared file by file with the same run in process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from tests.conftest import BUNDLED, free_port, kill_process_groups, wait_for_port, write_csv

ARPAD = str(Path(sys.executable).with_name("arpad"))
KAGGLE = BUNDLED / "kaggle2010_elo_vs_rest" / "training_data.csv"


def kaggle_games(tmp_path: Path, months=range(90, 101)) -> Path:
    """The Kaggle 2010 games of the last months (a few thousand games)."""
    lines = KAGGLE.read_text().splitlines()
    keep = [r for r in lines[1:] if int(r.split(",")[0]) in months]
    return write_csv(tmp_path / "g.csv", lines[0], keep)


def plain_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ARPAD_WORKERS")}
    env.update(extra)
    return env


# -- --workers and ARPAD_WORKERS ---------------------------------------------------------


def test_a_bad_arpad_workers_is_one_line_of_the_command_that_uses_it(tmp_path, capsys, monkeypatch):
    """ARPAD_WORKERS=abc made every command (even `arpad list`) die with a traceback
    while its parser was built; now the commands that take --workers refuse it in one
    line naming the variable, and the others do not care."""
    kaggle_games(tmp_path)
    store = str(tmp_path / "s")
    assert (
        main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store", store]) == 0
    )
    capsys.readouterr()
    monkeypatch.setenv("ARPAD_WORKERS", "abc")
    assert main(["reconstruct", "--store", store, "--systems", "elo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ARPAD_WORKERS='abc'" in err and "whole number" in err
    assert main(["list", "--store", store, "--system", "elo"]) == 2  # not rated: its own error
    assert "run arpad rate --system elo first" in capsys.readouterr().err
    monkeypatch.delenv("ARPAD_WORKERS")
    for value, said in (("abc", "got 'abc'"), ("1.5", "got '1.5'"), ("0", "at least 1"),
                        ("-1", "at least 1")):  # fmt: skip
        assert main(["reconstruct", "--store", store, "--systems", "elo", "--workers", value]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, (value, err)


def test_a_deployment_with_a_bad_arpad_workers_says_so(monkeypatch):
    from arpad.flows.common import configured

    monkeypatch.setenv("ARPAD_WORKERS", "two")
    with pytest.raises(ValueError, match=r"ARPAD_WORKERS='two': takes a whole number"):
        configured(object())


def test_workers_beyond_the_cores_are_capped_with_a_note(monkeypatch, capsys):
    from arpad.pipeline import runner

    monkeypatch.setattr(runner, "local_cores", lambda: 2)
    assert runner.local_workers(2) == 2 and runner.local_workers(1) == 1
    assert capsys.readouterr().err == ""
    assert runner.local_workers(64) == 2
    err = capsys.readouterr().err
    assert (
        err == "arpad: note: --workers 64 on a machine with 2 cores: starting 2 worker processes\n"
    )


@pytest.mark.once
def test_workers_64_beside_another_cluster_rates_like_in_process(tmp_path):
    """`--workers 64` on a small machine spawned 64 worker processes, thrashed for
    minutes (2:40 on 2 cores) and failed with "the local Dask cluster did not start"
    and 2,000 lines of tracebacks; and a second local cluster on the machine (port
    8787 taken, as by another command's cluster) printed Dask's "Port 8787 is already
    in use" warning. Now: at most one worker per core, no warning, and the ratings of
    the in-process run."""
    games = kaggle_games(tmp_path)
    holder = socket.socket()
    try:
        try:
            holder.bind(("127.0.0.1", 8787))
            holder.listen()
        except OSError:
            pass  # already taken by someone else: the same situation
        stores = {}
        for label, extra in (("here", []), ("dask", ["--workers", "64"])):
            store = str(tmp_path / label)
            ingest = [ARPAD, "ingest", str(games), "--mapping", "kaggle2010", "--store", store]
            assert subprocess.run(ingest, env=plain_env(), capture_output=True).returncode == 0
            done = subprocess.run(
                [ARPAD, "reconstruct", "--store", store, "--systems", "elo,glicko", *extra],
                env=plain_env(), capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-3000:]
            stores[label] = (store, done)
    finally:
        holder.close()
    err = stores["dask"][1].stderr
    cores = len(os.sched_getaffinity(0))
    if cores < 64:
        assert f"--workers 64 on a machine with {cores} cores: starting {cores}" in err
    assert "already in use" not in err and "did not start" not in err, err
    assert stores["dask"][1].stdout == stores["here"][1].stdout
    assert differing_files(Path(stores["here"][0]), Path(stores["dask"][0])) == []


# -- --cluster ------------------------------------------------------------------------------


def test_a_closed_port_or_unknown_host_fails_at_once(tmp_path, capsys, monkeypatch):
    """`--cluster tcp://127.0.0.1:PORT` with nothing listening waited Dask's 20 s
    connect timeout before it failed; the address is now probed first, and Dask's
    client is never made (nor the flow's task runner)."""
    import distributed
    import prefect_dask  # (subclasses distributed.Client: imported before the patch)

    from arpad.flows.common import dask_task_runner

    del prefect_dask

    def no_client(*args, **kwargs):
        raise AssertionError("Dask's client was asked to connect")

    monkeypatch.setattr(distributed, "Client", no_client)
    kaggle_games(tmp_path)
    store = str(tmp_path / "s")
    assert (
        main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store", store]) == 0
    )
    capsys.readouterr()
    closed = f"tcp://127.0.0.1:{free_port()}"
    for address, said in ((closed, "Connection refused"), ("tcp://no-such-host.invalid:8786", "")):
        args = ["reconstruct", "--store", store, "--systems", "elo,glicko", "--cluster", address]
        assert main([*args, "--no-flow"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"cannot reach the Dask scheduler at {address}" in err
        assert said in err
        with pytest.raises(ValueError, match="cannot reach the Dask scheduler"):
            dask_task_runner(address)
    assert not [p for p in (Path(store) / "ratings").rglob("*") if p.is_file()]


# -- a Prefect server that goes away ---------------------------------------------------------


class _LostServerFlow:
    """A flow whose server stops answering while it runs (what Prefect raises then)."""

    name = "rate"

    def with_options(self, **options):
        self.options = options
        return self

    def __call__(self, **parameters):
        import httpx

        raise httpx.ConnectError("[Errno 111] Connection refused")


def test_a_server_that_stops_answering_mid_run_is_one_line(monkeypatch):
    """Killing the Prefect server while `arpad rate` ran as a flow: the ratings were all
    written and the journal said done, but the command retried the API for 75 s and
    ended with Prefect's traceback and "internal error (exit 1)". Now a one-line error
    saying where the store stands."""
    from arpad.flows import common

    monkeypatch.setattr(common, "require_server", lambda **_: "http://127.0.0.1:9/api")
    flow = _LostServerFlow()
    with pytest.raises(ValueError) as info:
        common.run_flow(flow, store="/data/S", system="elo", pool="standard")
    text = str(info.value)
    assert "\n" not in text and "stopped answering during the flow run (ConnectError)" in text
    assert "PREFECT_API_URL=http://127.0.0.1:9/api" in text and "--no-flow" in text
    assert flow.options == {"flow_run_name": "rate-elo-standard-S"}


def test_run_names_and_tags_say_what_ran():
    from arpad.flows.common import run_name, run_tags

    assert run_name("rate", {"store": "/x/S/", "system": "fide", "pool": "rapid"}) == (
        "rate-fide-rapid-S"
    )
    assert run_name("reconstruct", {"store": "/x/S", "systems": ["elo", "whr"]}) == (
        "reconstruct-elo,whr-S"
    )
    assert run_name("ingest", {"store": "/x/{a}", "files": ["/in/g.csv", "/in/h.csv"]}) == (
        "ingest-g.csv+1-(a)"
    )
    assert run_name("backtest", {"dataset": "kaggle2010", "systems": None}) == "backtest-kaggle2010"
    assert run_tags("reconstruct", {"systems": ["elo", "whr"]}) == [
        "arpad", "job:reconstruct", "system:elo", "system:whr",
    ]  # fmt: skip
    assert run_tags("ingest", {"files": ["g.csv"]}) == ["arpad", "job:ingest"]


# -- against the session's real Prefect server ----------------------------------------------


def differing_files(a: Path, b: Path) -> list[str]:
    """Files of two stores that differ beyond run ids and timestamps: Parquet files
    compared as tables without ``run_id`` and timestamp columns; JSON files without run ids and times; the
    catalog (which records the store's own path) left out."""

    def files(root):
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}

    def scrub(value):
        if isinstance(value, dict):
            return {
                k: scrub(v) for k, v in value.items()
                if k not in ("run", "run_id", "at") and not k.endswith("_at")
            }  # fmt: skip
        if isinstance(value, list):
            return [scrub(v) for v in value if not (isinstance(v, str) and len(v) == 32)]
        return value

    out = sorted(files(a) ^ files(b))
    for name in sorted(files(a) & files(b)):
        x, y = a / name, b / name
        if name.startswith("catalog.") or x.read_bytes() == y.read_bytes():
            continue
        if name.endswith(".parquet"):
            tx, ty = pq.read_table(x), pq.read_table(y)
            drop = [  # run ids and the times of ingests
                f.name for f in tx.schema
                if f.name == "run_id" or pa.types.is_timestamp(f.type)
            ]  # fmt: skip
            if tx.drop_columns(drop).equals(ty.drop_columns(drop)):
                continue
        elif name.endswith(".json"):
            if scrub(json.loads(x.read_text())) == scrub(json.loads(y.read_text())):
                continue
        out.append(name)
    return out


@pytest.mark.prefect
def test_a_tracked_month_equals_the_month_in_process_file_by_file(tmp_path, prefect_harness):
    """The same month — ingest, rate, then `recalculate --inbox` of the next month — run
    as flows and in process gives stores equal in every file but run ids and times;
    each flow run is named after what it ran, tagged with its job and systems, and
    Completed."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

    lines = KAGGLE.read_text().splitlines()
    first = write_csv(tmp_path / "m99.csv", lines[0], [r for r in lines[1:] if r.startswith("99,")])
    later = [r for r in lines[1:] if r.startswith("100,")]
    stores = {}
    for label, how in (("tracked", []), ("plain", ["--no-flow"])):
        store, inbox = tmp_path / label, tmp_path / f"inbox-{label}"
        inbox.mkdir()
        write_csv(inbox / "m100.csv", lines[0], later)
        ingest = ["ingest", str(first), "--mapping", "kaggle2010", "--store", str(store)]
        assert main([*ingest, *how]) == 0
        assert main(["rate", "--system", "glicko2", "--store", str(store), *how]) == 0
        recalc = ["recalculate", "--inbox", str(inbox), "--store", str(store)]
        assert main([*recalc, "--mapping", "kaggle2010", "--systems", "glicko2", *how]) == 0
        stores[label] = store
    assert differing_files(stores["tracked"], stores["plain"]) == []
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=["arpad"])),
            sort="START_TIME_ASC",
        )
    mine = [r for r in runs if r.parameters.get("store") == str(stores["tracked"].resolve())]
    assert [r.name for r in mine] == [
        "ingest-m99.csv-tracked",
        "rate-glicko2-standard-tracked",
        "recalculate-glicko2-tracked",
    ]
    assert [sorted(r.tags) for r in mine] == [
        ["arpad", "job:ingest"],
        ["arpad", "job:rate", "system:glicko2"],
        ["arpad", "job:recalculate", "system:glicko2"],
    ]
    assert all(r.state.is_completed() for r in mine)


@pytest.fixture
def web_server(tmp_path):
    """A plain ``python -m http.server`` (not Prefect) serving ``tmp_path/web``."""
    import functools
    import http.server
    import threading

    root = tmp_path / "web"
    (root / "api").mkdir(parents=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}/api"
    finally:
        server.shutdown()
        server.server_close()


def test_prefect_api_url_at_something_that_is_not_prefect(
    tmp_path, web_server, capsys, monkeypatch
):
    """PREFECT_API_URL at a plain web server: one line either way. A server that answers
    /health with 200 (here a file of that name, as another service's health check would)
    passed the check and Prefect then failed with "Failed to reach API", a traceback and
    exit 1."""
    kaggle_games(tmp_path)
    store = str(tmp_path / "s")
    ingest = ["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store", store]
    assert main([*ingest, "--no-flow"]) == 0
    root, url = web_server
    monkeypatch.setenv("PREFECT_API_URL", url)
    capsys.readouterr()
    for health, said in ((None, "no Prefect server answers"), ("ok\n", "not as a Prefect"),
                         ("true\n", "not as a Prefect")):  # fmt: skip
        if health is not None:
            (root / "api" / "health").write_text(health)
        assert main(["rate", "--system", "elo", "--store", store]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err and f"PREFECT_API_URL={url}" in err, err
    assert not [p for p in (Path(store) / "ratings").rglob("*") if p.is_file()]


# -- a Dask scheduler that has no workers, or dies mid-run ----------------------------------


@pytest.fixture
def scheduler(tmp_path):
    """A real ``dask scheduler`` process on a free port (no workers): its address and
    a function starting one ``dask worker`` on it; everything stopped at the end."""

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    env = plain_env(NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    log = open(tmp_path / "dask.log", "w")
    procs = []

    def start(*args):
        out = subprocess.STDOUT
        procs.append(subprocess.Popen([dask, *args], env=env, stdout=log, stderr=out,
                                      start_new_session=True))  # fmt: skip
        return procs[-1]

    start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    wait_for_port(port, tmp_path / "dask.log")

    def add_worker():
        return start("worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                     "--local-directory", str(tmp_path / "dask-worker"))  # fmt: skip

    try:
        yield address, procs[0], add_worker
    finally:
        kill_process_groups(procs, log)


@pytest.mark.once
def test_a_scheduler_without_workers_then_one_that_dies_mid_run(tmp_path, scheduler, monkeypatch):
    """`--cluster` to a scheduler without workers waited for ever (the units stayed
    pending); now it waits NO_WORKERS_WAIT seconds for one, then says so in one line.
    A scheduler stopped while units run ended in Dask's FutureCancelledError traceback
    and "internal error (exit 1)"; now one line saying the finished units are stored."""
    import threading
    import time

    from distributed import Client

    from arpad.pipeline import runner

    address, scheduler_proc, add_worker = scheduler
    monkeypatch.setattr(runner, "NO_WORKERS_WAIT", 1.0)
    with pytest.raises(ValueError, match=r"has no workers \(waited 1 s\): start some with"):
        with runner.in_process(address, None):
            pass
    add_worker()
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(1, timeout=120)
    threading.Timer(3.0, scheduler_proc.terminate).start()
    start = time.monotonic()
    with pytest.raises(ValueError) as info:
        with runner.in_process(address, None) as here:
            here.map(time.sleep, [(60,), (60,), (60,)])
    text = str(info.value)
    assert "\n" not in text and f"lost the Dask scheduler at {address} during the run" in text
    assert time.monotonic() - start < 60  # not after the units' 60 s


# -- Ctrl-C during a reconstruction on local workers ----------------------------------------


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.once
def test_ctrl_c_on_local_workers_leaves_no_process_and_a_rerun_completes(tmp_path):
    """Ctrl-C (SIGINT to the whole foreground group, as a terminal sends it) during
    `reconstruct --workers 2`: each worker printed its own KeyboardInterrupt traceback
    above arpad's one line; now the workers ignore SIGINT and the command closes them.
    No process of the command is left, and the same command again completes with the
    ratings of an uninterrupted run."""
    import signal
    import time

    systems = ["reconstruct", "--systems", "elo,glicko2,whr"]
    stores = {}
    for label in ("whole", "cut"):
        store = str(tmp_path / label)
        ingest = [ARPAD, "ingest", str(KAGGLE), "--mapping", "kaggle2010", "--store", store]
        assert subprocess.run(ingest, env=plain_env(), capture_output=True).returncode == 0
        stores[label] = store
    assert subprocess.run([ARPAD, *systems, "--store", stores["whole"]], env=plain_env(),
                          capture_output=True).returncode == 0  # fmt: skip
    proc = subprocess.Popen(
        [ARPAD, *systems, "--store", stores["cut"], "--workers", "2"], env=plain_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    # Ctrl-C once the run has written its first ratings: mid-run (on a quiet machine the
    # whole job takes ~4 s, so a fixed wait could land after its end)
    deadline = time.monotonic() + 60
    ratings = Path(stores["cut"]) / "ratings"
    while not (ratings.is_dir() and any(ratings.rglob("*.parquet"))):
        assert time.monotonic() < deadline and proc.poll() is None, "no ratings written"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1].startswith("arpad: interrupted (Ctrl-C)")
    deadline = time.monotonic() + 30
    while _group_alive(proc.pid):  # every worker and helper of the command has gone
        assert time.monotonic() < deadline, "a process of the interrupted command is left"
        time.sleep(0.2)
    again = subprocess.run([ARPAD, *systems, "--store", stores["cut"], "--workers", "2"],
                           env=plain_env(), capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    assert differing_files(Path(stores["whole"]), Path(stores["cut"])) == []


# -- a worker lost after its unit finished ---------------------------------------------------


def _mark(path: str, label: str, seconds: float = 0.0):
    """A unit: append ``label pid`` to ``path`` (each execution is counted), then wait."""
    import time

    with open(path, "a") as fh:
        fh.write(f"{label} {os.getpid()}\n")
    time.sleep(seconds)
    return label


@pytest.mark.once
def test_a_worker_lost_after_its_unit_finished_does_not_run_it_again(tmp_path):
    """A local worker killed (as by the OOM killer) after its unit had finished: Dask ran
    that finished unit again on another worker, because the runner still held its
    future while it waited for the next one — for a reconstruction, a second whole
    rating run of that system beside the command's own recording step (its run then
    missing from the store's record of runs). The runner now releases each future once
    its value is taken: every unit runs once."""
    import signal
    import threading
    import time

    from arpad.pipeline.runner import in_process

    log = tmp_path / "runs.log"

    def kill_the_quick_unit_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            lines = log.read_text().splitlines() if log.exists() else []
            quick = [line for line in lines if line.startswith("quick ")]
            if quick:
                time.sleep(1.0)  # its value is back with the runner by now
                os.kill(int(quick[0].split()[1]), signal.SIGKILL)
                return
            time.sleep(0.1)

    with in_process(None, 2) as runner:
        killer = threading.Thread(target=kill_the_quick_unit_worker, daemon=True)
        killer.start()
        out = runner.map(_mark, [(str(log), "slow", 8.0), (str(log), "quick", 0.0)])
        killer.join()
        time.sleep(3.0)  # time for a recomputation on the restarted worker
        assert out == ["slow", "quick"]
        assert [line.split()[0] for line in log.read_text().splitlines()].count("quick") == 1
