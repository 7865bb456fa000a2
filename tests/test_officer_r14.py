"""Rating officer, round 14 (docs/observations.md "An officer whose own list is the
authority", docs/ingest.md "Games before the store's first period").

1. ``--ignore-stated-ratings`` stored every stated rating as null: a national open's
   foreign player, rated nowhere in the store, became unrated, and the home players'
   games against him went unrated with him; the note only counted the ratings. Now a
   stated rating is ignored where the store already has a rating for the player, and a
   player it has none for keeps the file's rating as his starting rating; the note
   names him. ``arpad ingest`` and the monthly ``recalculate`` alike. (Round 15: the
   ratings are stored as stated, the batch marked, and the rating run decides:
   tests/test_ignore_stated_r15.py.)
2. A file dated before the store's first period (2025 typed for 2026) moved the
   register's undated ratings back to it and revised every frozen list, exit 0, no
   word. Now the ingest summary (and the monthly report's notes on the file) say so,
   and how to undo it.

FIDE numbers by hand (the rating table 8.1.2, 400-point rule; K 20: 30+ games, under 2400, not junior):
Zulu 2300 (stated) loses to Bravo 2100: D 200, PD .76/.24, Bravo +0.76 x 20 = +15.2;
Foxtrot 1500 beats Zulu: D 800 counted 400, PD .92/.08, Foxtrot +0.92 x 20 = +18.4;
Zulu -(0.76 + 0.92) x 20 = -33.6. Rounded: Bravo 2115, Foxtrot 1518, Zulu 2266.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,rating,rated_games,birth_year\n"
    '1000002,"Bravo, Bela",2100,100,1985\n'
    '1000006,"Foxtrot, Ferenc",1500,200,1970\n'
)
# the arbiter's stated ratings: Bravo's and Foxtrot's from an older list, Zulu's FIDE's
NOV = (
    "date,white_id,black_id,result,white_rating,black_rating,event_id\n"
    "2026-11-20,4100001,1000002,0-1,2300,2093,November Open\n"
    "2026-11-21,1000006,4100001,1-0,1493,2300,November Open\n"
)
KEPT_NOTE = (
    "note: --ignore-stated-ratings: 4 rating(s) stated on the games, stored marked: such a "
    "rating starts a player only if no players file lists him and he has no rating when "
    "it is rated, else it is ignored; of their 3 player(s), 2 listed by the players files, "
    "1 started by this file as the store stands: 4100001 2300 (docs/observations.md "
    '"An officer whose own list is the authority")'
)


def run(*args) -> int:
    return main([*map(str, args), "--no-flow"])


def ratings(store: Path, period: int) -> dict[str, float]:
    """The players listed after ``period`` (FIDE: whole numbers)."""
    path = Store(store).rating_partition("fide", "standard", period) / "part-0.parquet"
    rows = pl.read_parquet(path).filter(pl.col("status") != "unrated")
    return dict(zip(rows["player_id"], rows["rating_after"], strict=True))


def stated(store: Path) -> set[tuple[str, float | None]]:
    rows = []
    for f in Store(store).game_files():
        rows += pl.read_parquet(f).to_dicts()
    return {(g["white_id"], g["white_rating"]) for g in rows} | {
        (g["black_id"], g["black_rating"]) for g in rows
    }


def test_ingest_keeps_the_stated_rating_of_a_player_the_store_does_not_rate(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    Path("reg.csv").write_text(REGISTER)
    Path("nov.csv").write_text(NOV)
    assert run("ingest", "--players", "reg.csv", "--store", "S") == 0
    capsys.readouterr()
    assert run("ingest", "nov.csv", "--ignore-stated-ratings", "--store", "S") == 0
    assert KEPT_NOTE in capsys.readouterr().out
    # stored as stated (round 15): the rating run ignores Bravo's and Foxtrot's
    assert stated(Path("S")) == {("4100001", 2300.0), ("1000002", 2093.0), ("1000006", 1493.0)}
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # before: Zulu unrated, both games unrated, Bravo 2100 and Foxtrot 1500 unchanged
    assert ratings(Path("S"), 202611) == {"1000002": 2115, "1000006": 1518, "4100001": 2266}

    # December: Zulu's rating is the store's now (his November result): ignored
    Path("dec.csv").write_text(
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2026-12-05,4100001,1000006,1/2-1/2,2310,1493\n"
    )
    capsys.readouterr()
    assert run("ingest", "dec.csv", "--ignore-stated-ratings", "--store", "S") == 0
    assert (
        "note: --ignore-stated-ratings: 2 rating(s) stated on the games, stored marked: such "
        "a rating starts a player only if no players file lists him and he has no rating "
        "when it is rated, else it is ignored; of their 2 player(s), 1 listed by the players "
        "files, 1 rated by the store already, none started by this file (docs/observations.md "
        '"An officer whose own list is the authority")\n'
    ) in capsys.readouterr().out
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # Zulu 2266 (not 2310) draws Foxtrot 1518: D 748, counted 400, PD .92/.08;
    # Zulu (0.5 - 0.92) x 20 = -8.4 -> 2258, Foxtrot +8.4 -> 1526
    assert ratings(Path("S"), 202612) == {"1000002": 2115, "1000006": 1526, "4100001": 2258}


def test_the_same_file_ingested_again_with_the_option_keeps_what_it_kept(
    tmp_path, monkeypatch, capsys
):
    """The remedy the notes give (the file again, under its source, with the option):
    Zulu's rating in the store came from this very file, so it is not the store's own."""
    monkeypatch.chdir(tmp_path)
    Path("reg.csv").write_text(REGISTER)
    Path("nov.csv").write_text(NOV)
    assert run("ingest", "nov.csv", "--players", "reg.csv", "--store", "S") == 0
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # as stated: Bravo from 2093 (D 207, +0.77 x 20 = 15.4), Foxtrot from 1493 (+18.4),
    # Zulu -(0.77 + 0.92) x 20 = -33.8
    assert ratings(Path("S"), 202611) == {"1000002": 2108, "1000006": 1511, "4100001": 2266}
    capsys.readouterr()
    argv = ["ingest", "nov.csv", "--source", "nov.csv", "--ignore-stated-ratings"]
    assert run(*argv, "--store", "S") == 0
    assert KEPT_NOTE in capsys.readouterr().out
    assert run("rate", "--system", "fide", "--store", "S") == 0
    assert ratings(Path("S"), 202611) == {"1000002": 2115, "1000006": 1518, "4100001": 2266}


def test_the_monthly_job_keeps_it_too(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "reg.csv").write_text(REGISTER)
    (inbox / "nov.csv").write_text(NOV)
    store = tmp_path / "S"
    argv = ["recalculate", "--inbox", inbox, "--store", store, "--ignore-stated-ratings"]
    assert run(*argv) == 0
    out = capsys.readouterr().out
    assert f"- {KEPT_NOTE}" in out.splitlines()
    assert ratings(store, 202611) == {"1000002": 2115, "1000006": 1518, "4100001": 2266}


# -- 2. games before the store's first period ----------------------------------------------
JULY = "date,white_id,black_id,result\n2026-07-10,1000002,1000006,1/2-1/2\n"
AUGUST = "date,white_id,black_id,result\n2026-08-10,1000006,1000002,1/2-1/2\n"
CLUB = "date,white_id,black_id,result\n2025-11-15,1000002,1000006,1-0\n2025-11-16,1000006,1000002,1/2-1/2\n"
EARLY_NOTE = (
    "note: 2 game(s) dated before the first period of pool standard (202607; the earliest "
    "202511, 8 month(s) before): the pool now starts in 202511, so the players files' "
    "undated ratings (which hold as of the first period) start the players in 202511, and "
    "every period from 202511 on is rated again, every frozen list revised (202607..202608, "
    "2 lists); if the date is wrong, correct the file and ingest it again under the same "
    "source (--source nov-club.csv; the monthly job: the inbox, under the same name) "
    '(docs/ingest.md "Games before the store\'s first period")'
)


def _frozen_store(tmp_path: Path) -> Path:
    (tmp_path / "reg.csv").write_text(REGISTER)
    (tmp_path / "jul.csv").write_text(JULY)
    (tmp_path / "aug.csv").write_text(AUGUST)
    s = tmp_path / "S"
    assert run("ingest", tmp_path / "jul.csv", "--players", tmp_path / "reg.csv", "--store", s) == 0
    assert run("ingest", tmp_path / "aug.csv", "--store", s) == 0
    assert run("rate", "--system", "fide", "--store", s) == 0
    for period in (202607, 202608):
        assert main(["publish", "--period", str(period), "--store", str(s)]) == 0
    return s


def test_ingest_notes_games_before_the_first_period(tmp_path, monkeypatch, capsys):
    s = _frozen_store(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("nov-club.csv").write_text(CLUB)
    capsys.readouterr()
    assert run("ingest", "nov-club.csv", "--store", s) == 0  # stored: historical data may be
    assert EARLY_NOTE in capsys.readouterr().out
    assert Store(s).periods("standard") == [202511, 202607, 202608]
    # the undo the note gives: the corrected file under the same source
    Path("fixed.csv").write_text(CLUB.replace("2025-11", "2026-11"))
    assert run("ingest", "fixed.csv", "--source", "nov-club.csv", "--store", s) == 0
    assert "before the first period" not in capsys.readouterr().out
    assert Store(s).periods("standard") == [202607, 202608, 202611]
    # a file within the store's periods: no note
    Path("sep.csv").write_text("date,white_id,black_id,result\n2026-09-01,1000002,1000006,1-0\n")
    assert run("ingest", "sep.csv", "--store", s) == 0
    assert "before the first period" not in capsys.readouterr().out


def test_the_monthly_report_notes_them(tmp_path, capsys):
    s = _frozen_store(tmp_path)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "nov-club.csv").write_text(CLUB)
    capsys.readouterr()
    assert run("recalculate", "--inbox", inbox, "--store", s) == 0
    out = capsys.readouterr().out
    assert f"- {EARLY_NOTE}" in out.splitlines()


def test_files_out_of_order_without_a_register_or_a_list_get_no_such_note(tmp_path):
    """A historian's later file first, then an earlier one: nothing a register or a
    frozen list holds moves, so the note is not given."""
    from arpad.pipeline.ingest import ingest_file
    from arpad.pipeline.store import Store

    store = Store(tmp_path / "h")
    late = tmp_path / "late.csv"
    late.write_text("white_id,black_id,result,date\na,b,1-0,1886-01-11\n")
    early = tmp_path / "early.csv"
    early.write_text("white_id,black_id,result,date\na,b,0-1,1851-06-01\n")
    ingest_file(store, late)
    report = ingest_file(store, early)
    assert not [n for n in report.notes if "before the first period" in n]
    assert store.periods("standard") == [185106, 188601]
