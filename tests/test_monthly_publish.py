"""The officer's fourth attack on the monthly job and ``arpad publish`` (docs/operations.md
"The monthly job", docs/lists.md "Lists are frozen in order"):

1. the monthly job freezes every finished month never frozen, oldest first: a first run
   with October and November in the inbox, and the run after a missed scheduled one;
2. ``arpad publish`` of a period before one already frozen is refused;
3. the export of a frozen period rewritten with revised ratings is a "Revised list",
   never under "Published lists";
4. the report escapes markdown in names and file names, and leaves out movers whose
   rating did not change;
5. ``arpad publish`` with a finished month ingested but not rated says to rate it."""

from __future__ import annotations

import datetime as dt
import re

import polars as pl
import pytest

import arpad
from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests import test_lists_attack
from tests.conftest import write_csv
from tests.test_lists_attack import PLAYERS, PLAYERS_HEADER, month_run, pin_today
from tests.test_lists_attack2 import DECEMBER, GAMES_HEADER, NOVEMBER, OCTOBER, section

BASE = "`STORE/exports/system=fide/pool=standard/list-"
officer = test_lists_attack.officer  # the inbox with the players file (a fixture)


def frozen_lines(report: str) -> list[str]:
    return [line for line in report.splitlines() if line.startswith("Frozen list")]


def frozen_ratings(store: Store, period: int) -> dict[int, int]:
    folder = store.published_partition("fide", "standard", period)
    return dict(pl.read_csv(folder / "list.csv").select("player_id", "rating").iter_rows())


# -- 1. every finished month never frozen is frozen, oldest first ---------------------------
def test_first_run_freezes_october_and_november(officer, monkeypatch):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    run = month_run(root, inbox, {"oct.csv": OCTOBER, "nov.csv": NOVEMBER})
    store = Store(root)
    # before: only 202611 was frozen, October's list never
    assert store.published_periods("fide", "standard") == [202610, 202611]
    frozen = run.published["fide/standard"]
    assert frozen["frozen"] == [202610, 202611] and frozen["period"] == 202611
    report = monthly.markdown(run)
    assert frozen_lines(report) == [
        "Frozen list fide/standard period 202610 (`STORE/published/`).",
        "Frozen list fide/standard period 202611 (`STORE/published/`).",
    ]
    assert section(report, "Published lists:") == [
        f"- {BASE}202610.csv`",
        f"- {BASE}202610.parquet`",
        f"- {BASE}202611.csv`",
        f"- {BASE}202611.parquet`",
    ]
    exports = store.export_dir("fide", "standard")
    assert (exports / "list-202610.csv").read_bytes() == (
        store.published_partition("fide", "standard", 202610) / "list.csv"
    ).read_bytes()
    # October's list is October's ratings: Muller 2510 (K 10) beat Schafer 1850; the
    # difference 660 counts as 400, his expected score 0.92: 2510 + 10 x 0.08 = 2510.8,
    # listed 2511; Schafer (40 games, K 20): 1850 - 20 x 0.08 = 1848.4, listed 1848.
    october = frozen_ratings(store, 202610)
    assert october[4600010] == 2511 and october[4600028] == 1848
    # a re-run freezes nothing again
    again = month_run(root, inbox, {})
    assert again.published["fide/standard"]["frozen"] == []
    assert frozen_lines(monthly.markdown(again)) == []


def test_run_after_a_missed_scheduled_run_freezes_each_month(officer, monkeypatch):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER})
    store = Store(root)
    assert store.published_periods("fide", "standard") == [202610]
    # no run on 1 December; the January run finds November and December
    pin_today(monkeypatch, dt.date(2027, 1, 1))
    run = month_run(root, inbox, {"nov.csv": NOVEMBER, "dec.csv": DECEMBER})
    assert store.published_periods("fide", "standard") == [202610, 202611, 202612]
    assert run.published["fide/standard"]["frozen"] == [202611, 202612]
    assert frozen_lines(monthly.markdown(run)) == [
        "Frozen list fide/standard period 202611 (`STORE/published/`).",
        "Frozen list fide/standard period 202612 (`STORE/published/`).",
    ]
    games = pl.read_csv(store.published_partition("fide", "standard", 202611) / "list.csv")
    # November's list counts November's games: Ozturk played both of them
    assert dict(games.select("player_id", "games").iter_rows())[4600036] == 2


# -- 2. a list before one already frozen is refused -------------------------------------------
@pytest.fixture
def rated_to_november(tmp_path, monkeypatch):
    root = tmp_path / "S"
    write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    write_csv(tmp_path / "oct.csv", GAMES_HEADER, OCTOBER)
    write_csv(tmp_path / "nov.csv", GAMES_HEADER, NOVEMBER)
    pin_today(monkeypatch, dt.date(2026, 12, 5))
    store = ["--store", str(root)]
    argv = ["ingest", "--no-flow", *store, "--players", str(tmp_path / "players.csv")]
    assert main([*argv, str(tmp_path / "oct.csv")]) == 0
    return root, tmp_path / "nov.csv"


def test_publish_of_a_period_before_a_frozen_one_is_refused(rated_to_november, capsys):
    root, nov = rated_to_november
    s = ["--store", str(root)]
    assert main(["ingest", "--no-flow", *s, str(nov)]) == 0
    assert main(["rate", "--no-flow", *s, "--system", "fide"]) == 0
    assert main(["publish", *s]) == 0  # the latest finished month: 202611
    capsys.readouterr()
    assert main(["publish", *s, "--period", "202610"]) == 2
    assert capsys.readouterr().err == (
        "arpad: error: the fide/standard list of period 202611 is already published and "
        "period 202610 is earlier: lists are frozen in order (202610's list frozen now "
        "would disagree with 202611's wherever a correction came in between); arpad list "
        "--period 202610 prints it without freezing it\n"
    )
    store = Store(root)
    assert store.published_periods("fide", "standard") == [202611]
    assert not store.published_partition("fide", "standard", 202610).exists()
    with pytest.raises(ValueError, match="lists are frozen in order"):
        arpad.Store(root).publish("fide", period=202610)
    # the monthly job does not freeze it either, and says why
    inbox = root.parent / "inbox"
    inbox.mkdir()
    run = jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    assert run.published["fide/standard"]["frozen"] == []
    assert store.published_periods("fide", "standard") == [202611]


# -- 3. a revised export is not a published list ---------------------------------------------
def test_revised_export_of_a_frozen_period_has_its_own_heading(officer, monkeypatch):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER, "nov.csv": NOVEMBER})
    store = Store(root)
    # a late October result: Ozturk beats Kosteniuk, moving both on November's list too
    run = month_run(root, inbox, {"late-oct.csv": ["2026-10-20,4600036,4600070,1"]})
    # (October's list is revised too: every frozen month it changed, test_monthly_round5.py)
    assert run.published["fide/standard"]["revised"] == [202610, 202611]
    report = monthly.markdown(run)
    assert section(report, "Published lists:") == []
    heading = (
        "Revised lists (the current ratings of a list an earlier run froze; they differ from "
        "the frozen list, `arpad diff --published`):"
    )
    assert section(report, heading)[2:] == [f"- {BASE}202611.csv`", f"- {BASE}202611.parquet`"]
    assert (
        "Already frozen: list fide/standard period 202611, by an earlier run "
        "(`STORE/published/`; left as it is)."
    ) in report.splitlines()
    export = pl.read_csv(store.export_dir("fide", "standard") / "list-202611.csv")
    revised = dict(export.select("player_id", "rating").iter_rows())
    frozen = frozen_ratings(store, 202611)
    assert {p for p in frozen if frozen[p] != revised[p]} == {4600036, 4600070}


# -- 4. the report's markdown ------------------------------------------------------------------
PIPE = "Pipe | Paul *bold* <b>x</b>"
ESCAPED = r"Pipe \| Paul \*bold\* \<b\>x\</b\>"


def test_report_escapes_names_and_leaves_out_movers_without_a_change(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(
        inbox / "players" / "players.csv",
        "player_id,name,federation,sex,birth_year,rating,rated_games,peak_rating",
        [
            f'4100020,"{PIPE}",FIN,M,1980,2300,100,2300',
            '4100002,"Muller, Jurgen",GER,M,1985,2410,300,2450',
            '4100001,"Aalto, Aino",FIN,F,1990,2350,200,2380',  # no game: +0
        ],
    )
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    run = month_run(tmp_path / "S", inbox, {"club_nov.csv": ["2026-11-25,4100020,4100002,1"]})
    report = monthly.markdown(run)
    # D = 110 (the table's 104-111: 0.65 for the higher rated): Pipe (K 20) gains
    # 20 x (1 - 0.35) = 13; Muller (K 10) 10 x (0 - 0.65) = -6.5, rounded away: -7.
    rows = [line for line in report.splitlines() if line.startswith("| 41000")]
    assert rows == [
        f"| 4100020 | {ESCAPED} | 2300 | 2313 | +13 | 1 |",
        "| 4100002 | Muller, Jurgen | 2410 | 2403 | -7 | 1 |",
    ]
    # seven cell borders, none of them inside the name
    assert len(re.findall(r"(?<!\\)\|", rows[0])) == 7
    assert r"| club\_nov.csv | games | 1 | 0 | processed |" in report.splitlines()


def test_markdown_escapes_every_cell_from_the_data():
    summary = monthly.RecalculateSummary("/srv/a`b")
    summary.unread = ["odd`dir"]
    summary.files = [
        {"path": "/in/x[1].csv", "kind": "games", "accepted": 0, "quarantined": 0,
         "outcome": "rejected", "detail": "line 2: bad | cell\nnext"},
    ]  # fmt: skip
    summary.jobs = [{"system": "fide", "pool": "standard", "from": None, "periods": 1, "games": 1}]
    summary.movers = {
        "fide/standard": [
            {"period": 202611, "player_id": "a_b", "name": "~x~ & `y` \\ [l](u)",
             "rating_before": 2300.0, "rating_after": 2313.0, "change": 13.0, "games": 1},
        ]
    }  # fmt: skip
    lines = monthly.markdown(summary).splitlines()
    assert lines[2].startswith("Store `` /srv/a`b ``: 1 files taken")
    assert lines[4].startswith("Not read: the inbox folder(s) `` odd`dir/ `` (files")
    assert r"| x\[1\].csv | games | 0 | 0 | rejected (line 2: bad \| cell next) |" in lines
    assert r"| a\_b | \~x\~ \& \`y\` \\ \[l\](u) | 2300 | 2313 | +13 | 1 |" in lines


# -- 5. publish with a finished month not rated yet ----------------------------------------------
def test_publish_with_a_month_not_rated_yet_says_rate_it(rated_to_november, capsys):
    root, nov = rated_to_november
    s = ["--store", str(root)]
    assert main(["rate", "--no-flow", *s, "--system", "fide"]) == 0
    assert main(["publish", *s]) == 0  # October
    assert main(["ingest", "--no-flow", *s, str(nov)]) == 0
    capsys.readouterr()
    message = (
        "arpad: error: the fide/standard period 202611 has games that are not rated yet: run "
        "arpad rate --system fide --pool standard (or arpad recalculate) first, then publish\n"
    )
    assert main(["publish", *s]) == 2
    assert capsys.readouterr().err == message  # not "202610 is already published"
    assert main(["publish", *s, "--period", "202611"]) == 2
    assert capsys.readouterr().err == message
    assert main(["publish", *s, "--period", "202610"]) == 2
    assert "list of period 202610 is already published" in capsys.readouterr().err
    assert main(["rate", "--no-flow", *s, "--system", "fide"]) == 0
    assert main(["publish", *s]) == 0
    assert Store(root).published_periods("fide", "standard") == [202610, 202611]


def test_a_month_before_one_frozen_early_is_named_not_frozen(rated_to_november, capsys):
    root, nov = rated_to_november
    s = ["--store", str(root)]
    december = root.parent / "dec.csv"
    write_csv(december, GAMES_HEADER, DECEMBER)
    assert main(["ingest", "--no-flow", *s, str(nov), str(december)]) == 0
    assert main(["rate", "--no-flow", *s, "--system", "fide"]) == 0
    # today is 2026-12-05: December is in progress, frozen early
    assert main(["publish", *s, "--period", "202612", "--force"]) == 0
    assert main(["publish", *s, "--period", "202611"]) == 2
    assert "lists are frozen in order" in capsys.readouterr().err
    inbox = root.parent / "inbox"
    inbox.mkdir()
    run = jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    assert run.published["fide/standard"]["frozen"] == []
    report = monthly.markdown(run)
    # (and no "202612 is not published: the month is in progress": it is frozen)
    assert [line for line in report.splitlines() if line.startswith(("Not frozen", "Fro"))] == [
        # (October, never published either, is named too: test_monthly_round5.py)
        # (one line for both: tests/test_hostile_round7.py)
        "Not frozen: 2 lists fide/standard periods 202610-202611: the later period 202612 is "
        "already frozen, and lists are frozen in order (docs/lists.md).",
    ]
    assert Store(root).published_periods("fide", "standard") == [202612]


def test_an_earlier_month_without_rated_players_is_skipped_not_fatal(tmp_path, monkeypatch):
    """On a store with nothing frozen every finished month is frozen; a first month in
    which nobody could be rated (FIDE: newcomers without a rated opponent, the ratings
    first stated in October's games) has no list and must not fail the run, as an empty
    latest list does."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    header = "date,white_id,black_id,score,white_rating,black_rating"
    write_csv(inbox / "sep.csv", header, ["2026-09-05,9900001,9900002,1,,"])
    write_csv(inbox / "oct.csv", header, ["2026-10-06,4600010,4600028,1,2510,1850"])
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    run = jobs.recalculate(jobs.RecalculateRequest(str(tmp_path / "S"), str(inbox), ["fide"]))
    assert Store(tmp_path / "S").published_periods("fide", "standard") == [202610]
    assert run.published["fide/standard"]["frozen"] == [202610]
