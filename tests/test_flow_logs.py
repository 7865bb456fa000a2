"""What a tracked run leaves on the Prefect server and on the terminal (docs/runners.md
"Logs of a tracked run", "A server or scheduler lost mid-run"), after the operations
engineer's attack: a CLI, `--workers` or `arpad serve` run sent no INFO line to the
server (PREFECT_LOGGING_LEVEL=WARNING kept it quiet), task lines were Python reprs,
served and deployed runs had random names and no tags, and a lost server or scheduler
printed pages of tracebacks before arpad's one line."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from arpad.flows import common
from arpad.flows.runner import describe
from arpad.pipeline import cli, jobs
from arpad.pipeline.cli import _prepare_environment, main
from arpad.pipeline.runner import Runner
from tests.conftest import BUNDLED, write_csv
from tests.test_runner_attack3 import scheduler  # noqa: F401  (a fixture)

ARPAD = str(Path(sys.executable).with_name("arpad"))
KAGGLE = BUNDLED / "kaggle2010_elo_vs_rest" / "training_data.csv"


def kaggle_months(path: Path, months, extra=()) -> Path:
    lines = KAGGLE.read_text().splitlines()
    keep = [r for r in lines[1:] if int(r.split(",")[0]) in months]
    return write_csv(path, lines[0], [*keep, *extra])


def tracked_env(api: str, **extra) -> dict:
    """The environment of a user who set PREFECT_API_URL and no logging variable."""
    drop = ("PREFECT_LOGGING_LEVEL", "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "ARPAD_WORKERS")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "PREFECT_API_URL": api, **extra}


def run_logs(store: Path, job: str) -> list[tuple[list, str, list]]:
    """(name, tags, [(level, message)]) of each flow run of ``job`` on ``store`` that ran
    (not the runs a schedule holds for later), oldest first."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        FlowRunFilterTags,
        LogFilter,
        LogFilterFlowRunId,
    )

    out = []
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(
                tags=FlowRunFilterTags(all_=[f"job:{job}"]),
                state=FlowRunFilterState(type=FlowRunFilterStateType(not_any_=["SCHEDULED"])),
            ),
            sort="START_TIME_DESC",
            limit=50,
        )
        for run in reversed(runs):
            if run.parameters.get("store") != str(store.resolve()):
                continue
            logs = client.read_logs(
                log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id])), limit=200
            )
            out.append((run.name, sorted(run.tags), [(x.level, x.message) for x in logs]))
    return out


# -- 1. INFO lines to the server, the terminal as quiet as before -------------------------------


def test_the_console_is_quieted_not_prefect_and_a_users_level_is_kept(monkeypatch):
    """arpad set PREFECT_LOGGING_LEVEL=WARNING, which Prefect's server handler follows:
    no INFO line reached the server. Now only the console handler is set to WARNING, and
    a PREFECT_LOGGING_LEVEL (or console level) the user set is left as it is."""
    for name in ("PREFECT_LOGGING_LEVEL", "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    _prepare_environment()
    assert "PREFECT_LOGGING_LEVEL" not in os.environ
    assert os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] == "WARNING"
    monkeypatch.delenv("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL")
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "DEBUG")
    _prepare_environment()
    assert os.environ["PREFECT_LOGGING_LEVEL"] == "DEBUG"
    assert "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL" not in os.environ


@pytest.mark.prefect
def test_a_tracked_run_logs_each_task_on_the_server_and_nothing_more_on_the_terminal(
    tmp_path, prefect_harness
):
    store = tmp_path / "club"
    games = kaggle_months(tmp_path / "g.csv", range(1, 6))
    assert main(["ingest", str(games), "--mapping", "kaggle2010", "--store", str(store),
                 "--no-flow"]) == 0  # fmt: skip
    env = tracked_env(prefect_harness)
    rate = [ARPAD, "rate", "--store", str(store), "--system", "elo"]
    done = subprocess.run(rate, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    line = "elo/standard: rated 5 periods (1..5), 2,476 games, 2,979 rating rows; rules: EloRules"
    assert (done.stdout, done.stderr) == (line + "\n", "")  # the terminal as before
    # the user's own PREFECT_LOGGING_LEVEL: Prefect's, on the terminal and the server
    quiet = tracked_env(prefect_harness, PREFECT_LOGGING_LEVEL="WARNING")
    again = subprocess.run([*rate, "--full"], env=quiet, capture_output=True, text=True)
    assert (again.returncode, again.stderr) == (0, "")
    (name, tags, logs), (_, _, warned) = run_logs(store, "rate")
    assert (name, tags) == ("rate-elo-standard-club", ["arpad", "job:rate", "system:elo"])
    messages = [m for _, m in logs]
    assert f"rate-elo-standard: {line}" in messages
    assert "plan-elo-standard: rates from the first period" in messages
    assert "refresh-catalog: refreshed " + str(store.resolve() / "catalog.duckdb") in messages
    assert "Finished in state Completed()" in messages  # Prefect's own INFO lines too
    assert all(level >= logging.WARNING for level, _ in warned)


@pytest.mark.prefect
def test_tasks_on_local_dask_workers_log_on_the_server_too(tmp_path, prefect_harness):
    """The workers started by --workers inherit the environment: their tasks' lines
    reach the server, and their terminal lines stay off the terminal."""
    store = tmp_path / "club"
    games = kaggle_months(tmp_path / "g.csv", range(1, 4))
    assert main(["ingest", str(games), "--mapping", "kaggle2010", "--store", str(store),
                 "--no-flow"]) == 0  # fmt: skip
    cmd = [ARPAD, "reconstruct", "--store", str(store), "--systems", "elo,glicko2",
           "--workers", "2"]  # fmt: skip
    done = subprocess.run(cmd, env=tracked_env(prefect_harness), capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stderr[-3000:]
    ((name, _, logs),) = run_logs(store, "reconstruct")
    assert name == "reconstruct-elo,glicko2-club"
    messages = [m for _, m in logs]
    for system in ("elo", "glicko2"):
        assert any(m.startswith(f"rate-{system}-standard: {system}/standard: rated 3 periods")
                   for m in messages), messages  # fmt: skip


# -- 2. task lines are sentences ----------------------------------------------------------------


class Recording(Runner):
    """Steps in this process, each result said as a task's log line would say it;
    ``parallel`` so that the files are read ahead as on Dask (their RawTables)."""

    parallel = True

    def __init__(self):
        self.lines = []

    def step(self, fn, *args, name=None, io=False):
        result = fn(*args)
        self.lines.append(f"{name or fn.__name__}: {describe(result, fn.__name__)}")
        return result

    def map(self, fn, calls, names=None, io=False):
        names = names or [fn.__name__] * len(calls)
        return [self.step(fn, *args, name=n) for n, args in zip(names, calls)]


def test_each_task_line_says_what_the_step_did(tmp_path):
    """A month as the monthly job runs it: the lines were `RawTable(path=PosixPath(…),
    frame=shape: (1_780, 6) ┌──…`, raw dicts, "46 items" and "done"."""
    kaggle_months(tmp_path / "m1.csv", range(1, 4))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(inbox / "m4.csv", [4], extra=["4,1,1,1"])  # a player against himself
    (inbox / "zbad.csv").write_text("white,black\nA,B\n")
    store = str(tmp_path / "S")
    run = Recording()
    jobs.ingest(jobs.IngestRequest(store, [str(tmp_path / "m1.csv")], mapping="kaggle2010"), run)
    jobs.rate(jobs.RateRequest(store, "elo"), run)
    jobs.recalculate(jobs.RecalculateRequest(store, str(inbox), ["elo"], mapping="kaggle2010"), run)
    catalog = f"refresh-catalog: refreshed {store}/catalog.duckdb"
    assert run.lines == [
        "read-m1.csv: read m1.csv (csv, games): 1,593 rows",
        "ingest-m1.csv: m1.csv: 1,593 rows read, 1,593 stored, 0 quarantined",
        catalog,
        "plan-elo-standard: rates from the first period",
        "rate-elo-standard: elo/standard: rated 3 periods (1..3), 1,593 games, 1,295 rating "
        "rows; rules: EloRules",
        "record-elo-standard: recorded, stale marks cleared",
        catalog,
        "read-m4.csv: read m4.csv (csv, games): 571 rows",
        run.lines[8],  # (the mapping's message, below)
        "ingest-m4.csv: m4.csv: games file, 570 rows stored, 1 quarantined",
        f"archive-m4.csv: moved to {inbox}/processed/m4.csv",
        f"archive-zbad.csv: moved to {inbox}/rejected/zbad.csv",
        "plan: to recompute: elo/standard from period 4",
        "rate-elo-standard: elo/standard: rated 1 period (4..4), 570 games, 806 rating "
        "rows; rules: EloRules",
        "record-runs: recorded, stale marks cleared",
        catalog,
        "publish-elo-standard: wrote 8 export files: exports/system=elo/pool=standard/"
        "list-1.csv, exports/system=elo/pool=standard/list-1.parquet and 6 more",
        "freeze-elo-standard: froze nothing: 4 lists wait (inbox file(s) zbad.csv rejected)",
    ]
    assert run.lines[8].startswith(f"read-zbad.csv: not read: {inbox}/zbad.csv:1: header")
    assert all(len(x) < 260 and "\n" not in x for x in run.lines)


def test_results_of_no_known_kind_are_counted_never_dumped():
    import polars as pl

    frame = pl.DataFrame({"a": range(1000)})
    assert describe(frame) == "DataFrame"
    assert describe([frame, frame]) == "2 results"
    assert describe({"a": frame}) == "1 entries"
    assert describe(None) == "done" and describe("x.csv") == "x.csv"
    assert describe({"period": None, "frozen": []}, "freeze") == "no finished month to freeze"
    assert describe({}, "freeze") == "no rated period: nothing frozen"
    assert describe([], "plan") == "nothing to recompute"


# -- 3. served and deployed runs named and tagged -------------------------------------------


@pytest.mark.prefect
def test_a_deployment_carries_the_runs_tags(tmp_path, prefect_harness):
    from prefect.client.orchestration import get_client

    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", [1])
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    name = "arpad-test-tags"
    try:
        assert main(["deploy", "--store", str(store), "--inbox", str(inbox), "--name", name,
                     "--work-pool", "arpad-test-tags", "--systems", "elo,glicko2",
                     "--mapping", "kaggle2010"]) == 0  # fmt: skip
        with get_client(sync_client=True) as client:
            dep = client.read_deployment_by_name(f"recalculate/{name}")
        assert sorted(dep.tags) == ["arpad", "job:recalculate", "system:elo", "system:glicko2"]
    finally:  # (its runs scheduled for the 1st of next month go too)
        with get_client(sync_client=True) as client, contextlib.suppress(Exception):
            client.delete_deployment(client.read_deployment_by_name(f"recalculate/{name}").id)


@pytest.mark.prefect
def test_a_served_run_is_named_tagged_and_logged(tmp_path, prefect_harness):
    """`arpad serve`'s run was 'vanilla-waxbill', without tags and with 0 log lines."""
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", range(1, 4))
    kaggle_months(inbox / "m4.csv", [4])
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    name = f"served-{os.getpid()}-{time.time_ns()}"  # (the server outlives the session)
    serve = subprocess.Popen(
        [ARPAD, "serve", "--store", str(store), "--inbox", str(inbox), "--name", name,
         "--systems", "elo", "--mapping", "kaggle2010"],
        env=tracked_env(prefect_harness), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        with get_client(sync_client=True) as client:
            deadline = time.monotonic() + 120
            while True:
                try:
                    client.read_deployment_by_name(f"recalculate/{name}")
                    break
                except Exception:
                    assert serve.poll() is None and time.monotonic() < deadline
                    time.sleep(1)
            run = run_deployment(f"recalculate/{name}", timeout=0)
            deadline = time.monotonic() + 300
            while not (state := client.read_flow_run(run.id).state).is_final():
                assert serve.poll() is None and time.monotonic() < deadline
                time.sleep(1)
        assert state.is_completed(), state
    finally:
        serve.terminate()
        _, err = serve.communicate(timeout=60)
    ((run_name, tags, logs),) = run_logs(store, "recalculate")
    assert run_name == "recalculate-elo-club"
    assert tags == ["arpad", "job:recalculate", "system:elo"]
    messages = [m for _, m in logs]
    assert "ingest-m4.csv: m4.csv: games file, 570 rows stored, 0 quarantined" in messages
    assert "plan: to recompute: elo/standard from the first period" in messages
    assert "Finished in state Completed()" in messages
    assert not [m for m in messages if "{" in m or "RawTable(" in m or " items" in m]
    assert "INFO" not in err  # the serving terminal: as quiet as before


# -- 4. a lost server or scheduler: the one line ---------------------------------------------


def record(name: str, level: int, message: str, exc: BaseException | None = None):
    info = (type(exc), exc, exc.__traceback__) if exc else None
    return logging.LogRecord(name, level, "", 0, message, (), info)


def caused_by_http() -> RuntimeError:
    try:
        try:
            raise httpx.ConnectError("All connection attempts failed")
        except httpx.ConnectError as exc:
            raise RuntimeError("Unable to acquire concurrency slots") from exc
    except RuntimeError as exc:
        return exc


SERVER_LINES = (
    ("prefect.events.clients", logging.WARNING, "Unable to connect to 'ws://…/events/in'."),
    ("prefect._internal.concurrency", logging.ERROR, "Service 'EventsWorker' failed to …"),
    ("prefect.task_runs", logging.ERROR, "Finished in state Pending()\nPlease wait for …"),
)


def lost_scheduler():
    from distributed.client import FutureCancelledError

    return FutureCancelledError("rate_periods-1", "scheduler-connection-lost")


@pytest.mark.parametrize("lost", ["server", "scheduler", None])
def test_lines_of_a_loss_are_dropped_when_the_run_ends_on_it_else_written_after(lost, monkeypatch):
    """A Prefect server stopped mid-run printed ~180 lines (events client warnings,
    services failing, the engine's traceback, "--- Error logging to API ---") before
    arpad's one line, a lost Dask scheduler the engine's traceback of its cancelled
    future; a run that completes shows them after it, as they were."""
    monkeypatch.setattr(logging, "raiseExceptions", True)
    shown = []
    handler = logging.Handler()
    handler.emit = shown.append
    root = logging.getLogger()
    root.addHandler(handler)
    ending = {"server": httpx.ConnectError("[Errno 111] Connection refused"),
              "scheduler": lost_scheduler()}.get(lost)  # fmt: skip
    try:
        with pytest.raises(type(ending)) if ending else contextlib.nullcontext():
            with common._hold_lost_lines("tcp://127.0.0.1:8786"):
                for name, level, message in SERVER_LINES:
                    handler.handle(record(name, level, message))
                handler.handle(record("prefect.flow_runs", 40, "Encountered …", caused_by_http()))
                handler.handle(record("prefect.flow_runs", 40, "Encountered …", lost_scheduler()))
                handler.handle(record("prefect.task_runs", 30, "a task's own warning"))
                assert [r.getMessage() for r in shown] == ["a task's own warning"]
                assert logging.raiseExceptions is False
                if ending:
                    raise ending
    finally:
        root.removeHandler(handler)
    assert len(shown) == (6 if lost is None else 1)
    # (Prefect's "--- Error logging to API ---" stays off once the server is gone)
    assert logging.raiseExceptions is (lost != "server")


class _StartingFlow:
    """A flow whose server went away between arpad's check and the run's start: Prefect
    raised "Failed to reach API" (a RuntimeError) and arpad said "internal error"."""

    name = "rate"

    def with_options(self, **options):
        return self

    def __call__(self, **parameters):
        try:
            raise httpx.ConnectError("[Errno 111] Connection refused")
        except httpx.ConnectError as exc:
            raise RuntimeError("Failed to reach API at http://127.0.0.1:9/api/") from exc


def test_a_server_gone_as_the_run_starts_is_the_one_line(monkeypatch):
    monkeypatch.setattr(logging, "raiseExceptions", True)
    monkeypatch.setattr(common, "require_server", lambda **_: "http://127.0.0.1:9/api")
    with pytest.raises(ValueError) as info:
        common.run_flow(_StartingFlow(), store="/data/S", system="elo")
    assert str(info.value).startswith(
        "the Prefect server at PREFECT_API_URL=http://127.0.0.1:9/api stopped answering "
        "during the flow run (ConnectError)"
    )


def test_the_dask_clients_lines_about_a_lost_scheduler_are_dropped():
    import asyncio

    _prepare_environment()
    _prepare_environment()  # (once, however often the CLI runs in a process)
    client = logging.getLogger("distributed.client")
    (quiet,) = [f for f in client.filters if isinstance(f, cli.LostSchedulerLines)]
    cancelled = record("distributed.client", 40, "", asyncio.CancelledError())
    gave_up = record("distributed.client", 40,
                     "Failed to reconnect to scheduler after 20.00 seconds, closing client")  # fmt: skip
    other = record("distributed.client", 40, "something else", OSError("disk"))
    assert [quiet.filter(r) for r in (cancelled, gave_up, other)] == [False, False, True]


@pytest.mark.once
def test_a_scheduler_killed_mid_run_is_the_one_line(tmp_path, scheduler, capfd):  # noqa: F811
    """`kill -9` of the scheduler during a --cluster run: 36 lines (two distributed.client
    tracebacks, "Failed to reconnect … after 20.00 seconds") before the one line."""
    import threading

    from distributed import Client

    from arpad.pipeline import runner

    _prepare_environment()
    address, scheduler_proc, add_worker = scheduler
    add_worker()
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(1, timeout=120)
    capfd.readouterr()
    threading.Timer(3.0, scheduler_proc.kill).start()
    with pytest.raises(ValueError, match="lost the Dask scheduler"):
        with runner.in_process(address, None) as here:
            here.map(time.sleep, [(60,), (60,)])
    time.sleep(1)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Failed to reconnect" not in err, err
