"""One writer at a time: the store lock (pipeline/store.py ``writer_lock``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.errors import StoreBusyError
from arpad.pipeline.store import Store

HOLD = """
import sys, time
from arpad.pipeline.store import Store
with Store(sys.argv[1]).writer_lock("holder"):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold_in_subprocess(store: Store, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(store.root), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_second_writer_exits_with_a_message_naming_the_holder(store):
    holder = hold_in_subprocess(store, 60)
    try:
        with pytest.raises(StoreBusyError, match=rf"pid {holder.pid} \(holder"):
            with store.writer_lock("second"):
                pass
    finally:
        holder.kill()
        holder.wait()


def test_cli_writer_exits_2_while_another_run_writes(store, capsys, bundled_data):
    holder = hold_in_subprocess(store, 60)
    try:
        csv = bundled_data / "kaggle2010_elo_vs_rest" / "cross_validation_dataset.csv"
        code = main(
            ["ingest", str(csv), "--mapping", "kaggle2010", "--no-flow", "--store", str(store.root)]
        )
        assert code == 2
        assert f"is busy: pid {holder.pid}" in capsys.readouterr().err
        assert not store.games_dir.exists(), "the refused run wrote nothing"
    finally:
        holder.kill()
        holder.wait()


def test_second_writer_with_wait_gets_the_lock_when_the_first_finishes(store):
    holder = hold_in_subprocess(store, 0.5)
    with store.writer_lock("second", wait=60):
        assert holder.wait(timeout=60) == 0


def test_lock_of_a_killed_writer_is_free(store):
    holder = hold_in_subprocess(store, 60)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with store.writer_lock("after the crash"):
        pass


def test_lock_is_reentrant_within_one_process(store):
    with store.writer_lock("outer"), store.writer_lock("flow inside the command"):
        pass
    # released: another process can take it now
    holder = hold_in_subprocess(store, 0)
    assert holder.wait(timeout=60) == 0


def test_reader_is_never_blocked_by_a_writer(store, bundled_data):
    """Analysts' reads do not take the lock (each period's file is replaced atomically)."""
    from arpad.pipeline.catalog import connect
    from arpad.pipeline.ingest import ingest_files

    csv = bundled_data / "kaggle2010_elo_vs_rest" / "cross_validation_dataset.csv"
    ingest_files(store, [csv], mapping="kaggle2010")
    holder = hold_in_subprocess(store, 60)
    try:
        con = connect(store)
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 3184
        con.close()
    finally:
        holder.kill()
        holder.wait()


def test_waiting_writer_gives_up_after_its_wait(store):
    holder = hold_in_subprocess(store, 60)
    try:
        with pytest.raises(StoreBusyError, match="is busy"):
            with store.writer_lock("impatient", wait=0.5):
                pass
    finally:
        holder.kill()
        holder.wait()
