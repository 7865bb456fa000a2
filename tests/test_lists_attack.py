"""The officer's and the historian's attack on lists (docs/lists.md): a month in
progress is rated but never frozen; FIDE's name of a list (the month it takes effect)
heads the fixed-width file and ``--in-force`` finds it; a players file's women's title
fills ``w_title``; ``--top`` ranks active players only; ratings in the monthly report
have no thousands separator; ``--min-games`` for ``list`` and ``era``."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline import jobs, lists, periods, publish
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv

ONE_DAY = dt.timedelta(days=1)
PLAYERS_HEADER = "player_id,name,federation,sex,birth_year,title,w_title,rating,rated_games"
PLAYERS = [
    '4600010,"Muller, Jurgen",GER,M,1975,GM,,2510,500',
    '4600028,"Schafer, Anna",GER,F,2000,WIM,,1850,40',
    '4600036,"Ozturk, Mehmet",TUR,M,1990,FM,,2280,200',
    '4600060,"Nowak, Zoe",POL,F,2008,wcm,,1520,60',
    '4600070,"Kosteniuk, Ada",RUS,F,1984,GM,WGM,2500,900',
]


def pin_today(monkeypatch, day: dt.date) -> None:
    """Today for publishing and for ingest's "not played yet" check."""
    monkeypatch.setattr(publish, "today", lambda: day)
    monkeypatch.setattr(periods, "latest_game_date", lambda today=None: (day, day + ONE_DAY))


def month_run(store: Path, inbox: Path, files: dict[str, list[str]]):
    """Drop games files (name -> rows) into the inbox and run the monthly job."""
    for name, rows in files.items():
        write_csv(inbox / name, "date,white_id,black_id,score", rows)
    return jobs.recalculate(jobs.RecalculateRequest(str(store), str(inbox), ["fide"]))


@pytest.fixture
def officer(tmp_path):
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", PLAYERS_HEADER, PLAYERS)
    return tmp_path / "S", inbox


NOVEMBER = [
    "2026-11-03,4600010,4600036,1",
    "2026-11-10,4600028,4600060,0.5",
    "2026-11-17,4600036,4600028,1",
]
DECEMBER = ["2026-12-01,4600010,4600028,1", "2026-12-02,4600036,4600060,0"]


# -- 1. a month in progress is rated, not frozen --------------------------------------------
def test_recalculate_freezes_only_finished_months(officer, monkeypatch, capsys):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    first = month_run(root, inbox, {"nov.csv": NOVEMBER})
    store = Store(root)
    assert store.published_periods("fide", "standard") == [202611]
    assert first.published["fide/standard"]["in_progress"] is None

    pin_today(monkeypatch, dt.date(2026, 12, 3))  # the officer's run of 3 December
    second = month_run(root, inbox, {"dec1.csv": DECEMBER})
    assert store.rating_periods("fide", "standard") == [202611, 202612]  # rated
    assert store.published_periods("fide", "standard") == [202611]  # not frozen
    frozen = second.published["fide/standard"]
    assert frozen["period"] == 202611 and frozen["in_progress"] == 202612
    report = arpad.pipeline.monthly.markdown(second)
    notes = [line for line in report.splitlines() if line.startswith("Not frozen:")]
    assert notes == [
        "Not frozen: the fide/standard list of period 202612 is not published: the month is "
        "in progress (today is 2026-12-03, UTC); it is rated, and published once the month "
        "is over."
    ]
    assert "Frozen list fide/standard period 202612" not in report

    # an explicit publish of the month in progress: exit 2 unless --force
    argv = ["publish", "--store", str(root)]
    assert main([*argv, "--period", "202612"]) == 2
    err = capsys.readouterr().err
    assert "period 202612 is a month in progress (today is 2026-12-03, UTC)" in err
    assert "--force" in err and len(err.strip().splitlines()) == 1
    assert store.published_periods("fide", "standard") == [202611]
    # without a period publish picks the latest finished month (already frozen here)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "period 202612 is not published: the month is in progress" in err
    assert "list of period 202611 is already published" in err
    # the Python API says the same, and takes force= as the CLI takes --force
    api = arpad.Store(root)
    with pytest.raises(ValueError, match="period 202612 is a month in progress"):
        api.publish("fide", period=202612)
    with pytest.raises(TypeError, match="force takes True or False"):
        api.publish("fide", period=202612, force="yes")
    assert store.published_periods("fide", "standard") == [202611]

    # later December games, then the January run freezes the complete December list
    pin_today(monkeypatch, dt.date(2026, 12, 20))
    month_run(root, inbox, {"dec2.csv": ["2026-12-19,4600010,4600060,1"]})
    assert store.published_periods("fide", "standard") == [202611]
    pin_today(monkeypatch, dt.date(2027, 1, 1))
    third = month_run(root, inbox, {})
    assert store.published_periods("fide", "standard") == [202611, 202612]
    assert third.published["fide/standard"]["in_progress"] is None
    folder = store.published_partition("fide", "standard", 202612)
    games = dict(pl.read_csv(folder / "list.csv").select("player_id", "games").iter_rows())
    assert games[4600010] == 2  # 1 and 19 December: every December game is on it
    assert games[4600060] == 2


def test_publish_force_freezes_a_month_in_progress(officer, monkeypatch, capsys):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 3))
    month_run(root, inbox, {"dec.csv": DECEMBER})
    store = Store(root)
    assert store.published_periods("fide", "standard") == []  # only a month in progress
    argv = ["publish", "--store", str(root)]
    assert main(argv) == 2  # nothing finished to pick
    assert "no earlier fide/standard period is rated" in capsys.readouterr().err
    assert main([*argv, "--period", "202612", "--force"]) == 0
    out, err = capsys.readouterr()
    assert "published fide/standard period 202612: 5 players" in out
    assert "month in progress, frozen anyway (--force)" in err
    assert store.published_periods("fide", "standard") == [202612]
    assert not publish.in_progress(202611, dt.date(2026, 12, 3))
    assert publish.in_progress(202612, dt.date(2026, 12, 31))
    assert publish.in_progress(202701, dt.date(2026, 12, 31))  # next month: not begun
    assert not publish.in_progress(135, dt.date(2026, 12, 3))  # abstract numbers: no dates


# -- 4. the report prints ratings without separators ----------------------------------------
def test_report_ratings_have_no_thousands_separator(officer, monkeypatch):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    summary = month_run(root, inbox, {"nov.csv": NOVEMBER})
    report = arpad.pipeline.monthly.markdown(summary)
    movers = [line for line in report.splitlines() if line.startswith("| 4600010 ")]
    # by hand: Muller 2510, K 10, beat Ozturk 2280 (D 230, PD .79): +2.1 -> +2
    assert movers == ["| 4600010 | Muller, Jurgen | 2510 | 2512 | +2 | 1 |"]
    assert "2,5" not in report and "2,2" not in report and "1,8" not in report


# -- 2. FIDE's list month -----------------------------------------------------------------
def test_fide_txt_is_headed_by_the_month_the_list_takes_effect(officer, monkeypatch, tmp_path):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    month_run(root, inbox, {"nov.csv": NOVEMBER})
    out = tmp_path / "l.txt"
    argv = ["list", "--store", str(root), "--period", "202611", "--format", "fide-txt"]
    assert main([*argv, "--output", str(out)]) == 0
    assert out.read_text().splitlines()[0][113:119].strip() == "DEC26"  # November's games
    assert lists.rating_header(202612) == "JAN27"  # the year rolls over
    assert lists.rating_header(135) == "Rtg"
    assert lists.list_date(202611) == dt.date(2026, 12, 1)
    published = Store(root).published_partition("fide", "standard", 202611) / "list.txt"
    assert published.read_text().splitlines()[0][113:119].strip() == "DEC26"


def test_in_force_finds_fides_list_of_a_day(officer, monkeypatch, capsys):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 3))
    month_run(root, inbox, {"nov.csv": NOVEMBER, "dec.csv": DECEMBER})
    rated = [202611, 202612]
    assert lists.period_in_force("2026-12-01", rated) == 202611  # FIDE's list of 1 December
    assert lists.period_in_force("2026-12", rated) == 202611
    assert lists.period_in_force("2026-12-31", rated) == 202611
    assert lists.period_in_force("2027-01-01", rated) == 202612
    assert lists.period_in_force(dt.date(2027, 3, 5), rated) == 202612
    with pytest.raises(ValueError, match=r"no list was in force on 2026-11-30 \(the first is "):
        lists.period_in_force("2026-11-30", rated)
    with pytest.raises(ValueError, match="no dated periods"):
        lists.period_in_force("2026-12-01", [1, 2])
    with pytest.raises(ValueError, match="is not a date"):
        lists.period_in_force("2026-13", rated)
    argv = ["list", "--store", str(root), "--in-force", "2026-12-01"]
    assert main(argv) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == (
        "fide / standard / list in force on 2026-12-01 = period 2026-11 (latest rated period "
        "closed by then; in force from 2026-12-01): 5 players"
    )
    assert main([*argv, "--format", "fide-txt"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0][113:119].strip() == "DEC26"
    assert "period 2026-11" in err
    # --date keeps its documented meaning: the rating period containing the date
    assert main(["list", "--store", str(root), "--date", "2026-12-01"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "= period 2026-12 (latest rated at or before it; in force from 2027-01-01)" in head
    assert main([*argv, "--date", "2026-12"]) == 2  # one or the other


# -- 3. women's titles from a players file --------------------------------------------------
def test_players_file_womens_title_fills_w_title(officer, monkeypatch, tmp_path):
    root, inbox = officer
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    month_run(root, inbox, {"nov.csv": NOVEMBER})
    frame, _ = lists.list_frame(Store(root), "fide", "standard", 202611)
    got = {r["player_id"]: (r["title"], r["w_title"]) for r in frame.iter_rows(named=True)}
    assert got["4600028"] == ("WIM", "WIM")
    assert got["4600060"][1] == "WCM"  # written wcm in the file
    assert got["4600070"] == ("GM", "WGM")  # both given: kept
    assert got["4600010"] == ("GM", None)  # an open title is not a women's title
    out = tmp_path / "l.xml"
    argv = ["list", "--store", str(root), "--format", "fide-xml", "--output", str(out)]
    assert main(argv) == 0
    xml = {p.findtext("fideid"): p.findtext("w_title") for p in ET.parse(out).getroot()}
    assert xml["4600028"] == "WIM" and xml["4600010"] == ""  # an empty element
    txt = tmp_path / "l.txt"
    assert main([*argv[:-4], "--format", "fide-txt", "--output", str(txt)]) == 0
    line = next(x for x in txt.read_text().splitlines() if x.startswith("4600028"))
    assert line[84:89].strip() == "WIM" and line[89:94].strip() == "WIM"


# -- 5. --top ranks active players only -----------------------------------------------------
@pytest.fixture
def with_inactive(tmp_path) -> Store:
    """1002 and 1004 play in January 2025 only: inactive on the January 2026 list."""
    pfile = write_csv(
        tmp_path / "players.csv",
        PLAYERS_HEADER,
        [
            '1001,"Alpha, Anna",NOR,F,1990,GM,WGM,2650,100',
            '1002,"Beta, Bob",USA,M,1985,IM,,2400,100',
            '1003,"Gamma, Carl",GER,M,2001,,,2100,100',
            '1004,"Delta, Dora",FRA,F,1970,,WIM,2000,100',
        ],
    )
    rows = [
        "2025-01-05,1001,1002,1",
        "2025-01-06,1002,1003,0.5",
        "2025-01-07,1003,1004,1",
        "2026-01-05,1001,1003,0.5",
    ]
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    return store


def test_top_lists_ranked_players_only(with_inactive, tmp_path):
    root = str(with_inactive.root)
    full, _ = lists.list_frame(with_inactive, "fide", "standard", 202601)
    assert full["player_id"].to_list() == ["1001", "1003", "1002", "1004"]
    assert full["rank"].to_list() == [1, 2, None, None]  # inactive: on the list, unranked
    out = tmp_path / "top.json"
    argv = ["list", "--store", root, "--top", "3", "--format", "json", "--output", str(out)]
    assert main(argv) == 0
    rows = json.loads(out.read_text())
    assert [(r["rank"], r["player_id"]) for r in rows] == [(1, "1001"), (2, "1003")]
    assert arpad.Store(root).list("fide", top=3)["player_id"].to_list() == ["1001", "1003"]
    # 1002 (2395) is above 1003 (2122) on rating, but inactive: not in the top 2
    assert arpad.Store(root).list("fide", top=2)["player_id"].to_list() == ["1001", "1003"]


# -- 6. --min-games -------------------------------------------------------------------------
@pytest.fixture
def history(tmp_path) -> Path:
    """1851: Finch plays once (and wins); Anderssen, Staunton and Horwitz draw among
    themselves four times each."""
    rows = [
        "1851-06-01,finch,anderssen,1",
        "1851-06-02,anderssen,staunton,0.5",
        "1851-06-03,staunton,horwitz,0.5",
        "1851-06-04,horwitz,anderssen,0.5",
        "1851-07-01,staunton,anderssen,0.5",
        "1851-07-02,horwitz,staunton,0.5",
        "1851-07-03,anderssen,horwitz,0.5",
    ]
    gfile = write_csv(tmp_path / "g.csv", "date,white_id,black_id,score", rows)
    store = arpad.Store(tmp_path / "h")
    store.ingest(str(gfile))
    store.rate("elo")
    return tmp_path / "h"


def test_min_games_in_era_and_list(history, capsys):
    store = arpad.Store(history)
    era = store.era("elo")
    assert era["player_id"].to_list()[0] == "finch"  # one game, first: the defect
    assert era.filter(pl.col("player_id") == "finch")["games"].to_list() == [1]
    kept = store.era("elo", min_games=3)
    assert "finch" not in kept["player_id"].to_list()
    assert kept["rank"].to_list() == list(range(1, kept.height + 1))
    assert min(kept["games"].to_list()) >= 3 and kept.height == 3
    assert main(["era", "--store", str(history), "--system", "elo", "--min-games", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "elo / standard / top 10 active players by year with at least 3 games"
    )
    assert "finch" not in out and "anderssen" in out

    listed = store.list("elo", period=185107)
    assert "finch" in listed["player_id"].to_list()
    few = store.list("elo", period=185107, min_games=3)  # games up to July 1851
    assert "finch" not in few["player_id"].to_list()
    assert sorted(few["player_id"].to_list()) == ["anderssen", "horwitz", "staunton"]
    assert few["rank"].to_list()[0] == 1
    june = store.list("elo", period=185106, min_games=3)  # 3 games by June: Anderssen
    assert june["player_id"].to_list() == ["anderssen"]
    argv = ["list", "--store", str(history), "--system", "elo", "--min-games", "3"]
    assert main([*argv, "--format", "csv"]) == 0
    assert "finch" not in capsys.readouterr().out
    assert main([*argv[:-1], "0"]) == 2
    assert "--min-games takes a positive number" in capsys.readouterr().err
    assert main([*argv[:-1], "99"]) == 2
    assert "no player with at least 99 rated game(s)" in capsys.readouterr().err
