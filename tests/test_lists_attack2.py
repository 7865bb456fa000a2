"""The officer's second attack on lists and the monthly job (docs/lists.md "Only finished
months are frozen", "Which month a list is"; docs/operations.md, the monthly job):

1. a month in progress is exported as a *provisional* list under its own heading, never
   under "Published lists", and a list frozen by an earlier run is "already frozen";
2. ``arpad publish`` names each month it passes over: the current one "in progress",
   a later one "not begun";
3. ``--pool all --in-force`` is headed like one pool's list;
4. the ``--in-force`` refusal names the first list and the day it took effect;
5. ``arpad check`` reports an ingest a kill left staged (a note, exit 0)."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arpad.pipeline import journal, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_lists_attack import PLAYERS, PLAYERS_HEADER, month_run, pin_today

OCTOBER = ["2026-10-06,4600010,4600028,1", "2026-10-13,4600036,4600060,0.5"]
NOVEMBER = ["2026-11-03,4600010,4600036,1", "2026-11-17,4600036,4600028,1"]
DECEMBER = ["2026-12-01,4600010,4600028,1", "2026-12-02,4600036,4600060,0"]
GAMES_HEADER = "date,white_id,black_id,score"


@pytest.fixture
def officer(tmp_path):
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", PLAYERS_HEADER, PLAYERS)
    return tmp_path / "S", inbox


def section(report: str, heading: str) -> list[str]:
    """The bullet lines under ``heading`` in the monthly report."""
    lines = report.splitlines()
    if heading not in lines:
        return []
    out = []
    for line in lines[lines.index(heading) + 2 :]:
        if not line.startswith("- "):
            break
        out.append(line)
    return out


# -- 1. the run of 3 December -----------------------------------------------------------
def test_month_in_progress_is_provisional_and_earlier_freeze_is_named(officer, monkeypatch):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER})
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    first = month_run(root, inbox, {"nov.csv": NOVEMBER})
    store = Store(root)
    assert store.published_periods("fide", "standard") == [202610, 202611]
    report = monthly.markdown(first)
    assert "Frozen list fide/standard period 202611 (`STORE/published/`)." in report
    assert "Provisional" not in report

    pin_today(monkeypatch, dt.date(2026, 12, 3))  # the officer's run
    old = store.export_dir("fide", "standard") / "list-202612.csv"  # by an earlier arpad
    old.write_text("rank,player_id\n")
    run = month_run(root, inbox, {"dec.csv": DECEMBER})
    assert store.rating_periods("fide", "standard") == [202610, 202611, 202612]
    assert store.published_periods("fide", "standard") == [202610, 202611]
    report = monthly.markdown(run)
    base = "`STORE/exports/system=fide/pool=standard/list-"
    # round 11 (officer11 finding 3): "Published lists" are the lists this run froze;
    # November's, frozen on 1 December, is "Already frozen" (tests/test_monthly_r11.py)
    assert section(report, "Published lists:") == []
    heading = "Already frozen by an earlier run (the export is that list, its ratings as frozen):"
    assert section(report, heading) == [
        f"- {base}202611.csv`",
        f"- {base}202611.parquet`",
    ]
    assert section(report, "Provisional (month in progress):") == [
        f"- {base}202612-provisional.csv`",
        f"- {base}202612-provisional.parquet`",
    ]
    assert "Frozen list fide/standard period 202611" not in report
    assert (
        "Already frozen: list fide/standard period 202611, by an earlier run "
        "(`STORE/published/`; left as it is)."
    ) in report.splitlines()
    assert [line for line in report.splitlines() if line.startswith("Not frozen:")] == [
        "Not frozen: the fide/standard list of period 202612 is not published: the month is "
        "in progress (today is 2026-12-03, UTC); it is rated, and published once the month "
        "is over."
    ]
    exports = store.export_dir("fide", "standard")
    assert sorted(p.name for p in exports.iterdir()) == [
        "list-202610.csv",
        "list-202610.parquet",
        "list-202611.csv",
        "list-202611.parquet",
        "list-202612-provisional.csv",
        "list-202612-provisional.parquet",
    ]
    provisional = (exports / "list-202612-provisional.csv").read_text().splitlines()
    assert provisional[0].startswith("rank,player_id,name")
    assert len(provisional) == 1 + 5  # the five players of the players file
    assert run.published["fide/standard"]["frozen_now"] is False
    assert run.published["fide/standard"]["not_finished"] == [202612]

    # the January run: December is over, exported and frozen; its provisional file goes
    pin_today(monkeypatch, dt.date(2027, 1, 1))
    jan = month_run(root, inbox, {})
    report = monthly.markdown(jan)
    assert "Frozen list fide/standard period 202612 (`STORE/published/`)." in report
    assert "Provisional" not in report and "Not frozen" not in report
    assert section(report, "Published lists:") == [
        f"- {base}202612.csv`",
        f"- {base}202612.parquet`",
    ]
    assert not list(exports.glob("*provisional*"))
    assert store.published_periods("fide", "standard") == [202610, 202611, 202612]


# -- 2. publish on the last day of November, December's games already rated ---------------
@pytest.fixture
def rated_to_december(tmp_path, monkeypatch):
    root = tmp_path / "S"
    write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    write_csv(tmp_path / "games.csv", GAMES_HEADER, OCTOBER + NOVEMBER + DECEMBER)
    pin_today(monkeypatch, dt.date(2027, 1, 5))
    store = ["--store", str(root)]
    argv = ["ingest", "--no-flow", *store, "--players", str(tmp_path / "players.csv")]
    assert main([*argv, str(tmp_path / "games.csv")]) == 0
    assert main(["rate", "--no-flow", *store, "--system", "fide"]) == 0
    assert Store(root).rating_periods("fide", "standard") == [202610, 202611, 202612]
    return root


def test_publish_names_each_month_it_passes_over(rated_to_december, monkeypatch, capsys):
    root = rated_to_december
    pin_today(monkeypatch, dt.date(2026, 11, 30))
    capsys.readouterr()
    assert main(["publish", "--store", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "published fide/standard period 202610: 5 players" in out
    assert err.splitlines() == [
        "arpad: note: the fide/standard list of period 202611 is not published: the month "
        "is in progress (today is 2026-11-30, UTC); it is rated, and published once the "
        "month is over",
        "arpad: note: the fide/standard list of period 202612 is not published: the month "
        "has not begun (today is 2026-11-30, UTC): its games are dated after today (check "
        "their dates); it is rated, and published once the month is over",
    ]
    assert main(["publish", "--store", str(root), "--period", "202612"]) == 2
    err = capsys.readouterr().err
    assert "period 202612 is a month that has not begun (today is 2026-11-30, UTC)" in err
    assert main(["publish", "--store", str(root), "--period", "202611"]) == 2
    assert "period 202611 is a month in progress (today is 2026-11-30" in capsys.readouterr().err
    assert main(["publish", "--store", str(root), "--period", "202612", "--force"]) == 0
    out, err = capsys.readouterr()
    assert "period 202612 is a month not begun, frozen anyway (--force)" in err
    assert Store(root).published_periods("fide", "standard") == [202610, 202612]


# -- 3./4. --in-force: the combined file's header, the refusal's wording ------------------
def test_in_force_header_of_all_pools_and_the_refusal(rated_to_december, capsys):
    root = rated_to_december
    argv = ["list", "--store", str(root), "--system", "fide", "--in-force", "2026-12-15"]
    capsys.readouterr()
    assert main([*argv, "--pool", "all"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == (
        "fide / all pools / list in force on 2026-12-15 = period 2026-11 (latest rated "
        "period closed by then; in force from 2026-12-01): 5 players"
    )
    assert main([*argv, "--pool", "standard"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == (
        "fide / standard / list in force on 2026-12-15 = period 2026-11 (latest rated "
        "period closed by then; in force from 2026-12-01): 5 players"
    )
    assert main([*argv, "--pool", "all", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == (
        "fide / all pools / list in force on 2026-12-15 = period 2026-11 (latest rated "
        "period closed by then; in force from 2026-12-01)"
    )
    assert out.splitlines()[0].startswith("player_id,")
    early = ["list", "--store", str(root), "--in-force", "2026-09-30"]
    assert main(early) == 2
    assert capsys.readouterr().err.strip() == (
        "arpad: error: no fide/standard list was in force on 2026-09-30 (the first is of period "
        "202610, in force from 2026-11-01)"
    )
    assert main([*early, "--pool", "all"]) == 2
    assert capsys.readouterr().err.strip() == (
        "arpad: error: no fide list was in force on 2026-09-30 (the first is of period 202610, in "
        "force from 2026-11-01)"
    )


# -- 5. arpad check after a kill during an ingest -----------------------------------------
def killed(argv: list[str], point: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ARPAD_CRASH_AT": point, "CI": "1", "ARPAD_NO_FLOW": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    return proc


def test_check_reports_an_interrupted_ingest(tmp_path, capsys):
    root = tmp_path / "S"
    write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    write_csv(tmp_path / "oct.csv", GAMES_HEADER, OCTOBER)
    write_csv(tmp_path / "nov.csv", GAMES_HEADER, NOVEMBER)
    store = ["--store", str(root)]
    assert main(["ingest", "--no-flow", *store, "--players", str(tmp_path / "players.csv")]) == 0
    assert main(["ingest", "--no-flow", *store, str(tmp_path / "oct.csv")]) == 0
    capsys.readouterr()

    # killed before its commit (`arpad ingest` records the file in its staging folder)
    killed(["ingest", "--no-flow", *store, str(tmp_path / "nov.csv")], "correction:staged-games")
    staged = journal.staged_ingests(Store(root))
    assert len(staged) == 1 and staged[0]["committed"] is False
    assert staged[0]["path"] == str(tmp_path / "nov.csv")
    batch = staged[0]["batch"]
    assert main(["check", *store]) == 0  # not damage: exit 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"note: .pending/{batch}: the ingest of batch {batch}, file {tmp_path / 'nov.csv'}, "
        "started "
    )
    assert out[0].endswith(
        ", was interrupted before its commit: nothing of it is in the store, the next "
        "writing command discards it, and the file must be ingested again"
    )
    assert out[1:] == [f"{root}: no damage found; 1 staged ingest(s) noted above"]

    # the next writing command discards it; check is clean again
    assert main(["ingest", "--no-flow", *store, str(tmp_path / "nov.csv")]) == 0
    assert f"discarded the unfinished ingest of batch {batch}" in capsys.readouterr().err
    assert main(["check", *store]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{root}: no problem found"]


def test_check_names_the_file_of_a_monthly_ingest(tmp_path, capsys):
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", PLAYERS_HEADER, PLAYERS)
    write_csv(inbox / "oct.csv", GAMES_HEADER, OCTOBER)
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    # the players file is the first ingest: killed after its commit
    killed([*argv, "--systems", "fide"], "correction:after-commit")
    staged = journal.staged_ingests(Store(root))
    assert len(staged) == 1 and staged[0]["committed"] is True
    assert staged[0]["path"] == str(inbox / "players" / "players.csv")
    batch = staged[0]["batch"]
    assert main(["check", "--store", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"note: .pending/{batch}: the ingest of batch {batch}, file "
        f"{inbox / 'players' / 'players.csv'} (source players.csv), started "
    )
    assert out[0].endswith(
        "was interrupted after its commit: the store may show part of it; the next writing "
        "command (any arpad ingest, rate, recalculate) completes it"
    )
    assert out[1] == f"{root}: no damage found; 1 staged ingest(s) noted above"


def test_staged_ingest_records_its_file(tmp_path):
    """``journal.recording`` (the monthly job) and ``StagedStore(path=…)`` write ABOUT."""
    store = Store(tmp_path / "S")
    (tmp_path / "S").mkdir()
    with journal.recording(Path("inbox/dec.csv")):
        staged = journal.StagedStore(store, "abc123")
    assert (staged.stage / journal.ABOUT).is_file()
    journal.StagedStore(store, "def456", path="games.csv", source="club")
    journal.StagedStore(store, "0unknown")  # no caller said: no file named
    got = {
        s["batch"]: (s["path"], s["source"], s["committed"]) for s in journal.staged_ingests(store)
    }
    assert got == {
        "0unknown": (None, None, False),
        "abc123": ("inbox/dec.csv", None, False),
        "def456": ("games.csv", "club", False),
    }
