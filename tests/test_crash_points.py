"""A correction ingest killed with SIGKILL at every step boundary of its transition
(pipeline/journal.py ``CRASH_POINTS``), then followed by the next command, leaves the
store exactly as an uninterrupted correction does: the same games, quarantine,
players, manifest and stale marks, and the same ratings after ``arpad rate``.

Before the commit point the next ingest finds an unfinished staging directory and
discards it, then does the correction itself; after it, the next command under the
writer lock (``arpad ingest`` or ``arpad rate``) completes it first.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import incremental, journal
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import results
from tests.test_corrections import games_csv, players_csv

SOURCE = "club-results"  # --source: the correction arrives under another file name
COMMITTED = set(journal.CRASH_POINTS[journal.CRASH_POINTS.index("correction:after-commit") :])


def ingest(store: Path, path: Path) -> list[str]:
    return ["ingest", "--no-flow", "--store", str(store), "--source", SOURCE, str(path)]


def rate(store: Path) -> int:
    return main(["rate", "--no-flow", "--store", str(store), "--system", "fide"])


def state(store: Path) -> dict:
    """Everything an ingest writes: games, quarantine, players (+ observations),
    manifest without its timestamps, stale marks; and no staging left behind."""
    s = Store(store)
    out: dict = {}
    for d in ("games", "quarantine", "players"):
        for f in sorted((store / d).rglob("*.parquet")):
            out[str(f.relative_to(store))] = pq.read_table(f)
    out["manifest"] = s.read_manifest().drop_columns(["ingested_at"])
    out["stale"] = incremental.read_stale(s)
    out["pending"] = sorted(p.name for p in journal.pending_dir(s).glob("*"))
    return out


def ratings(store: Path) -> dict:
    return {
        str(f.relative_to(store)): results(pq.read_table(f))
        for f in sorted((store / "ratings").rglob("*.parquet"))
    }


def assert_equal(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        same = value.equals(got[key]) if hasattr(value, "equals") else value == got[key]
        assert same, key


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    """A rated store, the corrected file, and what an uninterrupted correction gives."""
    root = tmp_path_factory.mktemp("crash")
    (root / "players.csv").write_text(players_csv())
    (root / "games.csv").write_text(games_csv())
    (root / "corrected.csv").write_text(games_csv(corrupt=True))
    base = root / "base"
    assert main([*ingest(base, root / "games.csv"), "--players", str(root / "players.csv")]) == 0
    assert rate(base) == 0
    want = root / "want"
    shutil.copytree(base, want)
    assert main(ingest(want, root / "corrected.csv")) == 0
    want_state = state(want)
    assert want_state["stale"] == {"fide/standard": 202403} and want_state["pending"] == []
    assert not journal.pending_dir(Store(want)).exists()
    assert rate(want) == 0
    return root, base, want_state, ratings(want)


def crash(base: Path, work: Path, point: str, corrected: Path) -> None:
    shutil.copytree(base, work)
    env = {**os.environ, "ARPAD_CRASH_AT": point, "CI": "1", "ARPAD_NO_FLOW": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", *ingest(work, corrected)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, proc.stderr[-2000:])
    assert journal.pending_dir(Store(work)).is_dir()  # it died inside the transition


def check_point(scenario, tmp_path, capsys, point: str) -> None:
    root, base, want_state, want_ratings = scenario
    corrected = root / "corrected.csv"
    work = tmp_path / "store"
    crash(base, work, point, corrected)
    if point in COMMITTED:
        # Committed: the next command of any kind completes it before its own work.
        other = tmp_path / "rate-first"
        shutil.copytree(work, other)
        capsys.readouterr()
        assert rate(other) == 0
        out, err = capsys.readouterr()
        assert "completed the interrupted ingest" in err
        assert "recomputing from stale period 202403" in out
        assert_equal(ratings(other), want_ratings)
    capsys.readouterr()
    assert main(ingest(work, corrected)) == 0  # the operator runs the ingest again
    out, err = capsys.readouterr()
    if point in COMMITTED:
        assert "completed the interrupted ingest" in err
        assert "skipped, identical content already ingested" in out
    else:
        assert "discarded the unfinished ingest" in err
        assert f"replaced the earlier version of {SOURCE}" in out
    assert_equal(state(work), want_state)
    assert rate(work) == 0
    assert_equal(ratings(work), want_ratings)


def test_crash_points_cover_the_transition():
    """Every crash point the code checks is in CRASH_POINTS (so the test below kills
    at it), and every listed point is checked somewhere."""
    from arpad.pipeline import ingest

    code = "".join(Path(m.__file__).read_text() for m in (journal, ingest))
    named = set(re.findall(r'crash_point\("([^"]+)"\)', code))
    named |= {point for _, point in journal._ORDER if point}
    assert named == set(journal.CRASH_POINTS)
    assert len(journal.CRASH_POINTS) == 7


@pytest.mark.parametrize("point", journal.CRASH_POINTS)
def test_correction_killed_at_every_step_boundary(scenario, tmp_path, capsys, point):
    check_point(scenario, tmp_path, capsys, point)
