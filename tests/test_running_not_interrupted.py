"""A rate in progress is not an interrupted one (docs/store.md "A rate in progress is not
an interrupted one"). Analyst 4 found that while ``arpad rate`` ran in another process,
every lock-free reader (``store.list``, ``arpad list``, ``arpad.predict``) said the last
rate "was interrupted" and advised running it again, which raised StoreBusyError: the
journal says ``running`` during a run as after a kill. The writer lock tells them apart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import arpad
from arpad.pipeline import incremental
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

PLAYERS = "player_id,name,rating\n1001,Alpha,2200\n1002,Bravo,2100\n1003,Charlie,2000\n"
GAMES = (
    "game_id,date,white_id,black_id,result\n"
    "g1,2024-01-10,1001,1002,1/2-1/2\n"
    "g2,2024-01-11,1003,1001,1-0\n"
)
INTERRUPTED = "the last arpad rate of fide/standard was interrupted"
IN_PROGRESS = (
    "an arpad rate of fide/standard is in progress (pid {pid}): its periods may be missing "
    "or being replaced; read again when it ends"
)

# Another process that takes the writer lock (as ``arpad rate fide/standard`` or, with
# "keep", as an ingest), then, unless told "keep", writes the run journal "running" as a
# rate does once it holds the lock, and says so.
HOLD = """
import json, sys, time
from arpad.pipeline.store import Store, atomic_write_text
store = Store(sys.argv[1])
with store.writer_lock(sys.argv[2]):
    if sys.argv[3] != "keep":
        path = store.journal_path("fide", "standard")
        journal = json.loads(path.read_text())
        journal["status"] = "running"
        atomic_write_text(json.dumps(journal), path, store.root)
    print("locked", flush=True)
    time.sleep(60)
"""

# A killed rate resumed in another process: ``rate_resumable`` under the writer lock, its
# engine slowed down so that the parent reads while the run goes on.
RESUME = """
import sys, time
from arpad.pipeline import engine, resume
from arpad.pipeline.store import Store
store = Store(sys.argv[1])
real = engine.rate
def slow(*args, **kwargs):
    print("rating", flush=True)
    time.sleep(60)
    return real(*args, **kwargs)
engine.rate = slow
with store.writer_lock("arpad rate fide/standard"):
    resume.rate_resumable(store, "fide", "standard", refresh_catalog=False)
"""


@pytest.fixture()
def rated(tmp_path) -> Path:
    """January 2024 ingested and rated with FIDE: the journal says ``done``."""
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "jan.csv").write_text(GAMES)
    root = tmp_path / "store"
    s = ["--store", str(root)]
    ingest = ["ingest", str(tmp_path / "jan.csv"), "--players", str(tmp_path / "players.csv")]
    assert main([*ingest, *s, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", *s, "--no-flow"]) == 0
    assert json.loads(Store(root).journal_path("fide", "standard").read_text())["status"] == "done"
    return root


def kill_the_run(root: Path) -> None:
    """The state a SIGKILLed ``arpad rate`` leaves: the journal still says running
    (written a moment ago, before any later writer takes the lock)."""
    path = Store(root).journal_path("fide", "standard")
    journal = json.loads(path.read_text())
    journal["status"] = "running"
    path.write_text(json.dumps(journal))
    past = time.time() - 5
    os.utime(path, (past, past))


def start(script: str, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() in ("locked", "rating")
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()


def api_warnings(root: Path) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        arpad.Store(root).list("fide", top=1)
    return [str(w.message) for w in caught]


def list_note(root: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["list", "--system", "fide", "--store", str(root), "--format", "csv"]) == 0
    return capsys.readouterr().err


def test_a_rate_going_on_in_another_process_is_not_called_interrupted(rated, capsys):
    """The analyst's defect: the writer holds the lock and wrote the journal "running"
    after taking it; the readers used to warn "was interrupted ... call store.rate(...)
    again first" (and store.rate then raised StoreBusyError)."""
    writer = start(HOLD, str(rated), "arpad rate fide/standard", "run")
    try:
        store = Store(rated)
        assert incremental.interrupted(store, "fide", "standard") is False
        assert incremental.rate_in_progress(store, "fide", "standard") == writer.pid
        assert not any(INTERRUPTED in m for m in api_warnings(rated))
        assert INTERRUPTED not in list_note(rated, capsys)
    finally:
        stop(writer)


def test_readers_say_a_rate_is_in_progress(rated, capsys):
    """While it runs, a reader is told so (pipeline/publish.py ``out_of_date``)."""
    writer = start(HOLD, str(rated), "arpad rate fide/standard", "run")
    try:
        note = IN_PROGRESS.format(pid=writer.pid)
        assert api_warnings(rated) == [note]
        assert list_note(rated, capsys) == f"arpad: note: {note}\n"
    finally:
        stop(writer)


def test_a_killed_rate_with_the_lock_free_is_still_interrupted(rated, capsys):
    kill_the_run(rated)
    store = Store(rated)
    assert incremental.interrupted(store, "fide", "standard") is True
    assert incremental.rate_in_progress(store, "fide", "standard") is None
    [message] = api_warnings(rated)
    assert message.startswith(INTERRUPTED)
    assert message.endswith("call store.rate('fide', pool='standard') again first")
    assert INTERRUPTED in list_note(rated, capsys)


def test_a_killed_rate_while_another_job_holds_the_lock_is_still_interrupted(rated, capsys):
    """An ingest (or a rate of another system) holds the lock; the journal was left
    "running" by a rate killed before it took the lock: nobody is repairing that mixture,
    so it reads as interrupted (and store.rate, once the ingest ended, repairs it)."""
    kill_the_run(rated)
    writer = start(HOLD, str(rated), "arpad ingest", "keep")
    try:
        store = Store(rated)
        assert incremental.interrupted(store, "fide", "standard") is True
        assert incremental.rate_in_progress(store, "fide", "standard") is None
        assert INTERRUPTED in list_note(rated, capsys)
    finally:
        stop(writer)


def test_a_writer_killed_during_its_rate_leaves_an_interrupted_rate(rated):
    """SIGKILL: the kernel drops the flock, the lock file keeps the dead writer's pid."""
    writer = start(HOLD, str(rated), "arpad rate fide/standard", "run")
    assert incremental.rate_in_progress(Store(rated), "fide", "standard") == writer.pid
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    lock = json.loads((rated / ".lock").read_text())
    assert lock["pid"] == writer.pid  # its content was not emptied
    assert incremental.interrupted(Store(rated), "fide", "standard") is True
    assert incremental.rate_in_progress(Store(rated), "fide", "standard") is None


def test_a_live_pid_in_the_lock_file_without_the_lock_is_not_a_writer(rated):
    """A killed writer's pid reused by a live process (another program): what counts is
    the flock, not the file's content."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (rated / ".lock").write_text(json.dumps({"pid": other.pid, "command": "arpad rate"}))
        kill_the_run(rated)
        os.utime(Store(rated).journal_path("fide", "standard"))  # written after the "lock"
        assert incremental.interrupted(Store(rated), "fide", "standard") is True
        assert incremental.rate_in_progress(Store(rated), "fide", "standard") is None
    finally:
        stop(other)


def test_a_killed_rate_being_resumed_is_in_progress(rated, capsys):
    """``arpad rate`` again resumes the killed run (pipeline/resume.py): its journal,
    written before this writer took the lock, is written again when it resumes."""
    kill_the_run(rated)
    writer = start(RESUME, str(rated))
    try:
        store = Store(rated)
        journal = json.loads(store.journal_path("fide", "standard").read_text())
        assert journal["status"] == "running" and "resumed_at" in journal
        assert incremental.interrupted(store, "fide", "standard") is False
        assert incremental.rate_in_progress(store, "fide", "standard") == writer.pid
        assert INTERRUPTED not in list_note(rated, capsys)
    finally:
        stop(writer)
