"""Crash safety: a rating run killed with SIGKILL at several points and started again
ends with exactly the ratings and checkpoints of an uninterrupted run; an ingest
killed half-way and started again stores every game once.

The runs are real ``arpad`` subprocesses (tests/kill_driver.py) on the first
30 monthly periods of the bundled Kaggle 2010 data (kept short: each period
costs a few file writes, and the suite must stay fast).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, resume
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import results

DRIVER = Path(__file__).with_name("kill_driver.py")
KAGGLE = ("kaggle2010_elo_vs_rest", "training_data.csv")


def run_arpad(args: list[str], kill: str | None = None, **popen) -> subprocess.Popen:
    env = {**os.environ, "CI": "1"}
    env.pop("ARPAD_KILL", None)
    if kill:
        env["ARPAD_KILL"] = kill
    return subprocess.Popen(
        [sys.executable, str(DRIVER), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen,
    )


def snapshot(store: Store, *dirs: str) -> dict[str, object]:
    """Every visible Parquet file under ``dirs`` (relative path -> table), and run-independent meta."""
    out = {}
    for d in dirs:
        for f in sorted((store.root / d).rglob("*.parquet")):
            out[str(f.relative_to(store.root))] = results(pq.read_table(f))
    return out


def assert_same(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for name, table in want.items():
        assert got[name].equals(table), name


def visible_files_complete(store: Store) -> None:
    """No half-written file under a final name: every visible Parquet file reads whole,
    and the analysts' views can scan every visible ratings partition."""
    for f in store.root.rglob("*.parquet"):
        if not f.name.startswith("."):
            pq.read_table(f)
    con = catalog.connect(store)
    try:
        con.execute("SELECT count(*), sum(rating_after) FROM ratings").fetchone()
    finally:
        con.close()


PERIODS = 30


@pytest.fixture(scope="module")
def source(tmp_path_factory, bundled_data) -> Path:
    """The Kaggle 2010 games of months 1..PERIODS, in the original layout."""
    lines = bundled_data.joinpath(*KAGGLE).read_text().splitlines()
    keep = [lines[0], *(row for row in lines[1:] if int(row.split(",")[0]) <= PERIODS)]
    path = tmp_path_factory.mktemp("src") / "kaggle_first_months.csv"
    path.write_text("\n".join(keep) + "\n")
    return path


@pytest.fixture(scope="module")
def base_store(tmp_path_factory, source) -> Store:
    store = Store(tmp_path_factory.mktemp("base") / "store")
    report = ingest_files(store, [source], mapping="kaggle2010")
    assert report.quarantined == 0 and store.periods("standard") == list(range(1, PERIODS + 1))
    return store


@pytest.fixture(scope="module")
def rated_base(base_store, tmp_path_factory) -> Store:
    """The base store plus published ratings: FIDE needs them (docs/lists.md). The first
    300 Kaggle ids are rated, the others are newcomers pooling games against them."""
    root = tmp_path_factory.mktemp("rated")
    players = root / "players.csv"
    rows = [f"{i},{1500 + 3 * i}" for i in range(1, 301)]
    players.write_text("\n".join(["player_id,rating", *rows]) + "\n")
    store = Store(root / "store")
    shutil.copytree(base_store.root, store.root)
    ingest_files(store, [], players=[players])
    return store


@pytest.fixture(scope="module")
def reference(rated_base, tmp_path_factory) -> dict:
    store = Store(tmp_path_factory.mktemp("ref") / "store")
    shutil.copytree(rated_base.root, store.root)
    summary = resume.rate_resumable(store, "fide")
    assert len(summary.periods) == PERIODS and summary.resumed_after is None
    return snapshot(store, "ratings", "state")


def copy_of(base: Store, tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    shutil.copytree(base.root, store.root)
    return store


@pytest.fixture(scope="module")
def reference_every_period(rated_base, tmp_path_factory) -> dict:
    """The uninterrupted run with a checkpoint after every period (the layout of stores
    written before checkpoints were sparse)."""
    store = Store(tmp_path_factory.mktemp("ref1") / "store")
    shutil.copytree(rated_base.root, store.root)
    resume.rate_resumable(store, "fide", checkpoint_every=1)
    return snapshot(store, "ratings", "state")


# (kill point, last period with a checkpoint before the kill; periods are months 1..30).
# Checkpoints are sparse (pipeline/checkpoints.py): with the default of every 12th period
# plus the first and last, periods 1, 12, 24 and 30 have one. Files written in order:
# period 1's ratings (1), its checkpoint's players and pool tables (2, 3), then meta.json;
# ratings of periods 2..11 (4..13); period 12: ratings 14, checkpoint 15, 16; periods
# 13..23: 17..27; period 24: 28, then 29, 30; periods 25..29: 31..35; period 30: 36..38.
SLOW = pytest.mark.slow  # the same path again at other points; run with -m slow
KILL_POINTS = [
    pytest.param("write:1", None, marks=SLOW),  # before anything is written
    ("halfwrite:2", None),  # half of period 1's checkpoint on disk
    pytest.param("ratings:12", 1, marks=SLOW),  # period 12 rated but not checkpointed
    ("ratings:20", 12),  # between two checkpoints: periods 13..20 are rated again
    pytest.param("halfwrite:29", 12, marks=SLOW),  # inside period 24's checkpoint
    pytest.param("checkpoint:3", 24, marks=SLOW),  # period 24's checkpoint complete
    ("checkpoint:4", 30),  # killed after the last checkpoint, before the run was closed
]


@pytest.mark.parametrize(("kill", "resumed_after"), KILL_POINTS)
def test_rate_killed_and_restarted_equals_uninterrupted(
    kill, resumed_after, rated_base, reference, tmp_path
):
    store = copy_of(rated_base, tmp_path)
    proc = run_arpad(["rate", "--no-flow", "--store", str(store.root), "--system", "fide"], kill)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    visible_files_complete(store)
    if kill.startswith("halfwrite"):
        assert list(store.root.rglob(".*.tmp")), (
            "the half-written file should be a hidden temporary"
        )

    summary = resume.rate_resumable(store, "fide")

    assert summary.resumed_after == resumed_after
    done = 0 if resumed_after is None else resumed_after
    assert summary.periods == list(range(done + 1, PERIODS + 1))
    assert_same(snapshot(store, "ratings", "state"), reference)


# With a checkpoint after every period (--checkpoint-every 1) a kill loses at most the
# period being written. 3 files per period: ratings, the players and pool tables.
EVERY_PERIOD_KILL_POINTS = [
    ("halfwrite:45", 14),  # inside period 15's checkpoint (its 3rd file)
    pytest.param("ratings:12", 11, marks=SLOW),  # period 12 rated but not checkpointed
]


@pytest.mark.parametrize(("kill", "resumed_after"), EVERY_PERIOD_KILL_POINTS)
def test_every_period_checkpoints_killed_and_restarted_equal_uninterrupted(
    kill, resumed_after, rated_base, reference_every_period, tmp_path
):
    store = copy_of(rated_base, tmp_path)
    args = ["rate", "--no-flow", "--store", str(store.root), "--system", "fide"]
    proc = run_arpad([*args, "--checkpoint-every", "1"], kill)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    summary = resume.rate_resumable(store, "fide", checkpoint_every=1)
    assert summary.resumed_after == resumed_after
    assert summary.periods == list(range(resumed_after + 1, PERIODS + 1))
    assert_same(snapshot(store, "ratings", "state"), reference_every_period)


@pytest.mark.parametrize("kill", ["ratings:5", "ratings:31"])
def test_whr_killed_while_rewriting_its_reports_then_restarted(
    kill, rated_base, tmp_path_factory, tmp_path
):
    """WHR (retroactive) rewrites every period's report at the run's end, after its last
    checkpoint. Killed inside that rewrite (after 4 of its 30 files, or after all but
    the journal's close), the run left the last checkpoint and the restart said "no
    periods to rate", keeping the half-rewritten files (found by the runners' Ctrl-C test
    of 2026-12-01). The restart now rates the last period again, which rewrites them
    all: every file equals an uninterrupted run's."""
    want_store = Store(tmp_path_factory.mktemp("whr_ref") / "store")
    shutil.copytree(rated_base.root, want_store.root)
    resume.rate_resumable(want_store, "whr")
    want = snapshot(want_store, "ratings", "state")
    store = copy_of(rated_base, tmp_path)
    proc = run_arpad(["rate", "--no-flow", "--store", str(store.root), "--system", "whr"], kill)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    summary = resume.rate_resumable(store, "whr")
    assert summary.resumed_after == PERIODS - 1
    assert summary.periods == [PERIODS]
    got = snapshot(store, "ratings", "state")
    assert len(want) > PERIODS
    assert sorted(got) == sorted(want)
    for name, table in want.items():  # WHR's state holds NaN (no rating yet): NaN == NaN
        assert _rows(got[name]) == _rows(table), name


def _rows(table) -> list:
    return [
        {k: "NaN" if isinstance(v, float) and v != v else v for k, v in row.items()}
        for row in table.to_pylist()
    ]


def test_old_store_killed_while_thinning_its_checkpoints(
    rated_base, reference, reference_every_period, tmp_path
):
    """A store rated with a checkpoint after every period (as before they were sparse),
    rated again with the default and killed between two checkpoints — after the run
    removed some of the old ones — then restarted: equal to a clean sparse run."""
    store = copy_of(rated_base, tmp_path)
    resume.rate_resumable(store, "fide", checkpoint_every=1)
    assert_same(snapshot(store, "ratings", "state"), reference_every_period)
    resume.forget_runs(store)  # a new run (as after an ingest), not the finished one
    proc = run_arpad(
        ["rate", "--no-flow", "--store", str(store.root), "--system", "fide"], "ratings:20"
    )
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    # The removed old checkpoints are hidden (kept by the killed run's journal) until the
    # next writer takes the lock and deletes them; readers never list them.
    state = store.state_periods("fide", "standard")
    # Old ones after 21 stay; 21's may already be gone: the engine's thread runs one period
    # ahead of the write-behind thread that wrote period 20's ratings file (docs/store.md).
    assert [p for p in state if p <= 20] == [1, 12] and all(p in state for p in range(22, 31))
    visible_files_complete(store)
    with store.writer_lock("arpad rate"):  # as the restarted command does
        summary = resume.rate_resumable(store, "fide")
    assert summary.resumed_after == 12
    assert not list(store.root.rglob(".*.tmp"))
    assert_same(snapshot(store, "ratings", "state"), reference)


def test_killed_from_outside_and_restarted_by_the_cli(rated_base, reference, tmp_path):
    """SIGKILL from another process at an uncontrolled moment, restart with ``arpad rate``."""
    store = copy_of(rated_base, tmp_path)
    args = ["rate", "--no-flow", "--store", str(store.root), "--system", "fide"]
    proc = run_arpad(args, kill="pace:0.1")
    state = store.state_dir / "system=fide" / "pool=standard"
    deadline = time.monotonic() + 120
    # Killed after period 12's checkpoint, at a moment between periods 12 and 30.
    while len(list(state.glob("period=*/meta.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    visible_files_complete(store)

    again = run_arpad(args)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err.decode()
    journal = resume.read_journal(store, "fide", "standard")
    assert journal["status"] == "done"
    assert not list(store.root.rglob(".*.tmp")), "the restart removes leftover temporaries"
    assert_same(snapshot(store, "ratings", "state"), reference)


@SLOW
def test_changed_inputs_start_a_fresh_run(base_store, tmp_path):
    """A journal of other inputs (other overrides) is not resumed."""
    store = copy_of(base_store, tmp_path)
    proc = run_arpad(
        ["rate", "--no-flow", "--store", str(store.root), "--system", "elo"], "checkpoint:2"
    )
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    summary = resume.rate_resumable(store, "elo", overrides={"k": "24"})
    assert summary.resumed_after is None and len(summary.periods) == PERIODS


@pytest.mark.parametrize("kill", ["halfwrite:12", pytest.param("write:31", marks=SLOW)])
def test_ingest_killed_and_restarted_stores_every_game_once(kill, base_store, source, tmp_path):
    """Killed inside the games partitions or just before the manifest, then ingested again."""
    store = Store(tmp_path / "store")
    proc = run_arpad(
        ["ingest", str(source), "--mapping", "kaggle2010", "--no-flow", "--store", str(store.root)],
        kill,
    )
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    visible_files_complete(store)

    report = ingest_files(store, [source], mapping="kaggle2010")
    assert report.accepted == base_store.read_manifest().column("accepted")[0].as_py()
    assert_same(snapshot(store, "games", "players"), snapshot(base_store, "games", "players"))
