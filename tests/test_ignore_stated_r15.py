"""Rating officer, round 15: ``--ignore-stated-ratings`` decided at ingest time which
stated ratings to keep (docs/observations.md "An officer whose own list is the
authority"). Now the ratings are stored as stated, the batch marked, and the rating run
decides: such a rating starts a player only if no players file lists him (a merged id
counted as his kept id) and he has no rating when the walk reaches it.

1. A mistyped id's kept stated rating re-seeded the kept player after ``players merge``
   (1950 instead of his list's 1921), and the merge note's remedy was a no-op.
2. The same two files gave two lists depending on which was ingested first (and a late
   report changed it): the earliest statement starts a foreign player, later ones are
   ignored, whatever the order.
3. A player the register lists without a rating took the file's rating and was rated as
   established; he gets FIDE's initial rating and K 40 instead.
Also: the note names a games table's player (its name columns), as a TRF's.

FIDE numbers worked by hand (table 8.1.2, the 400-point rule, K 20 for 30+ games under
2400 and not junior, K 40 under 30 games, the change rounded half away from zero):
see each test.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.observations import ignores_stated
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,rating,rated_games,birth_year\n"
    '1000002,"Bravo, Bela",2100,100,1985\n'
    '1000006,"Foxtrot, Ferenc",1500,200,1970\n'
)
# Zulu (4100001, foreign: in no players file) states 2300 in October, 2350 in November.
OCTOBER = (
    "date,white_id,White,black_id,Black,result,white_rating,black_rating,event_id\n"
    '2026-10-20,4100001,"Zulu, Zoltan",1000002,"Bravo, Bela",0-1,2300,2093,October Open\n'
)
NOVEMBER = (
    "date,white_id,black_id,result,white_rating,black_rating,event_id\n"
    "2026-11-21,4100001,1000006,1/2-1/2,2350,1493,November Open\n"
)
# October: Zulu 2300 (started by October's statement: K 20, games not known) loses to
# Bravo 2100: D 200, PD .76/.24; Zulu -0.76 x 20 = -15.2 -> 2285, Bravo +15.2 -> 2115.
# November: Zulu 2285 (his own result; November's 2350 ignored) draws Foxtrot 1500:
# D 785 counted 400, PD .92/.08; Zulu (0.5 - 0.92) x 20 = -8.4 -> 2277, Foxtrot +8 -> 1508.
# (Started by November's 2350, as when nov.csv was ingested first: 2350 - 8 = 2342.)
AFTER_NOVEMBER = {"1000002": 2115, "1000006": 1508, "4100001": 2277}


def run(*args) -> int:
    return main([*map(str, args), "--no-flow"])


def ratings(store: Path, period: int) -> dict[str, float]:
    """The players listed after ``period`` (FIDE: whole numbers)."""
    path = Store(store).rating_partition("fide", "standard", period) / "part-0.parquet"
    rows = pl.read_parquet(path).filter(pl.col("status") != "unrated")
    return dict(zip(rows["player_id"], rows["rating_after"], strict=True))


def files(tmp_path: Path, **texts: str) -> dict[str, Path]:
    out = {}
    for name, text in texts.items():
        out[name] = tmp_path / f"{name}.csv"
        out[name].write_text(text)
    return out


# -- 2. the order the files come in ----------------------------------------------------------
def test_the_earliest_statement_starts_a_foreign_player_whatever_the_order(tmp_path, capsys):
    f = files(tmp_path, reg=REGISTER, oct=OCTOBER, nov=NOVEMBER)
    # the monthly job: nov.csv is ingested before oct.csv (name order)
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "reg.csv").write_text(REGISTER)
    (inbox / "oct.csv").write_text(OCTOBER)
    (inbox / "nov.csv").write_text(NOVEMBER)
    monthly = tmp_path / "M"
    assert run("recalculate", "--inbox", inbox, "--store", monthly, "--ignore-stated-ratings") == 0
    assert ratings(monthly, 202611) == AFTER_NOVEMBER  # was 2342 for Zulu

    # arpad ingest, October first: the same list
    ordered = tmp_path / "O"
    capsys.readouterr()
    args = ("--players", f["reg"], "--ignore-stated-ratings", "--store", ordered)
    assert run("ingest", f["oct"], f["nov"], *args) == 0
    out = capsys.readouterr().out
    # the note names a games table's player from its name columns (it gave "4100001 2300")
    assert (
        "note: --ignore-stated-ratings: 2 rating(s) stated on the games, stored marked: such "
        "a rating starts a player only if no players file lists him and he has no rating "
        "when it is rated, else it is ignored; of their 2 player(s), 1 listed by the players "
        "files, 1 started by this file as the store stands: 4100001 Zulu, Zoltan 2300 "
        '(docs/observations.md "An officer whose own list is the authority")'
    ) in out
    assert run("rate", "--system", "fide", "--store", ordered) == 0
    assert ratings(ordered, 202611) == AFTER_NOVEMBER

    # a late report: November rated first, from its 2350; October's file then starts him
    late = tmp_path / "L"
    assert run("ingest", f["nov"], *args[:-1], late) == 0
    assert run("rate", "--system", "fide", "--store", late) == 0
    assert ratings(late, 202611)["4100001"] == 2342
    assert run("ingest", f["oct"], "--ignore-stated-ratings", "--store", late) == 0
    assert run("rate", "--system", "fide", "--store", late) == 0
    assert ratings(late, 202610) == {"1000002": 2115, "1000006": 1500, "4100001": 2285}
    assert ratings(late, 202611) == AFTER_NOVEMBER  # was 2342

    # arpad.Store, November's file given first: the same list
    api = arpad.Store(tmp_path / "A")
    api.ingest([f["nov"], f["oct"]], players=[f["reg"]], ignore_stated_ratings=True)
    api.rate("fide")
    assert ratings(tmp_path / "A", 202611) == AFTER_NOVEMBER

    # the ratings are stored as stated, in batches marked by the option
    rows = [r for g in Store(ordered).game_files() for r in pl.read_parquet(g).to_dicts()]
    assert {(r["white_id"], r["white_rating"]) for r in rows} == {
        ("4100001", 2300.0),
        ("4100001", 2350.0),
    }
    assert all(ignores_stated(r["ingest_batch"]) for r in rows)


# -- 1. a mistyped id's stated rating, then players merge ------------------------------------
def test_a_merged_duplicates_stated_rating_does_not_reseed_the_registered_keep(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    Path("reg.csv").write_text(
        "player_id,name,rating,rated_games,birth_year\n"
        '1000002,"Bravo, Bela",1790,100,1985\n'
        '1000003,"Charlie, Csaba",2008,100,1985\n'
        '1000004,"Ozturk, Ali",1921,100,1980\n'
    )
    Path("oct.csv").write_text(
        "date,white_id,black_id,result\n2026-10-05,1000002,1000003,1/2-1/2\n"
    )
    # November: the arbiter typed 1000044 for Ozturk 1000004 and stated 1950
    Path("nov.csv").write_text(
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2026-11-10,1000044,1000002,1-0,1950,1790\n"
        "2026-11-11,1000003,1000044,1-0,2008,1950\n"
    )
    assert run("ingest", "oct.csv", "--players", "reg.csv", "--store", "S") == 0
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # October: Bravo 1790 draws Charlie 2008: D 218, PD .78/.22; Bravo +0.28 x 20 = 5.6 -> 1796,
    # Charlie -5.6 -> 2002
    assert ratings(Path("S"), 202610) == {"1000002": 1796, "1000003": 2002, "1000004": 1921}
    assert main(["publish", "--period", "202610", "--store", "S"]) == 0
    assert run("ingest", "nov.csv", "--ignore-stated-ratings", "--store", "S") == 0
    capsys.readouterr()
    assert main(["players", "merge", "1000004", "1000044", "--store", "S"]) == 0
    said = capsys.readouterr()
    # (it gave "1000004: 1950 stated for 1000044 in nov.csv, 1921 on the list", and a remedy
    # that was skipped as identical content)
    assert "stated for a merged duplicate" not in said.out + said.err
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # November: Ozturk from his list's 1921 (not the 1950 stated for 1000044):
    # v Bravo 1796, D 125, PD .67: won, +0.33; v Charlie 2002, D 81, PD .39: lost, -0.39;
    # (0.33 - 0.39) x 20 = -1.2 -> 1920 (from 1950 it was 1947, +26 on the list).
    # Bravo: D 125, PD .33, lost: -0.33 x 20 = -6.6 -> 1789; Charlie: PD .61, won:
    # +0.39 x 20 = 7.8 -> 2010.
    assert ratings(Path("S"), 202611) == {"1000002": 1789, "1000003": 2010, "1000004": 1920}


# -- 3. a registered player without a rating ---------------------------------------------------
def test_a_registered_unrated_player_gets_an_initial_rating_not_the_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("reg.csv").write_text(
        "player_id,name,rating,rated_games,birth_year\n"
        '1000002,"Bravo, Bela",2100,100,1985\n'
        '1000008,"Newby, Nora",,,2000\n'
        '1000011,"Ka, Karl",1750,100,1980\n'
        '1000012,"Ke, Kurt",1820,100,1980\n'
        '1000013,"Ki, Kira",1900,100,1980\n'
        '1000014,"Ko, Kate",1650,100,1980\n'
    )
    # the arbiter states 1800 for Nora, whom the register lists unrated
    Path("oct.csv").write_text(
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2026-10-01,1000008,1000011,1-0,1800,1750\n"
        "2026-10-02,1000012,1000008,0-1,1820,1800\n"
        "2026-10-03,1000008,1000013,0-1,1800,1900\n"
        "2026-10-04,1000014,1000008,0-1,1650,1800\n"
        "2026-10-05,1000008,1000002,1/2-1/2,1800,2100\n"
    )
    Path("nov.csv").write_text(
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2026-11-05,1000002,1000008,1/2-1/2,2100,1800\n"
    )
    args = ("--ignore-stated-ratings", "--store", "S")
    assert run("ingest", "oct.csv", "nov.csv", "--players", "reg.csv", *args) == 0
    assert run("rate", "--system", "fide", "--store", "S") == 0
    # October, her initial rating: 3.5/5 v 1750, 1820, 1900, 1650, 2100 (sum 9220) and two
    # drawn 1800s: Ra = 12820 / 7 = 1831.43, p = 4.5 / 7 = .64, dp +102: 1933.43 -> 1933.
    # Her rated opponents keep their ratings (a game against an unrated player). (From the
    # file's 1800, established at K 20, she had 1825, and Ki 1900 had 1907.)
    october = ratings(Path("S"), 202610)
    assert october["1000008"] == 1933
    assert {p: october[p] for p in ("1000002", "1000011", "1000013")} == {
        "1000002": 2100,
        "1000011": 1750,
        "1000013": 1900,
    }
    # November: Nora 1933, K 40 (5 rated games, under 30), draws Bravo 2100: D 167,
    # PD .28; +0.22 x 40 = 8.8 -> 1942 (K 20: 1937). Bravo -0.22 x 20 = -4.4 -> 2096.
    november = ratings(Path("S"), 202611)
    assert (november["1000008"], november["1000002"]) == (1942, 2096)


def test_within_a_month_the_earliest_game_states_the_start(tmp_path):
    """Two October files state Zulu: 2300 on the 5th, 2310 on the 25th. The files of a
    month are counted in the order of their batch ids (digests), and the later file's
    comes first here: the earliest statement is the earliest game's, not the first file's.
    Zulu 2300 loses to Bravo 2100 (D 200, PD .76: -0.76) and draws Foxtrot 1500 (D 800
    counted 400, PD .92: -0.42): (-0.76 - 0.42) x 20 = -23.6 -> 2276 (from 2310: D 210,
    PD .77, -1.19 x 20 = -23.8 -> 2286). Bravo +0.76 x 20 = 15.2 -> 2115; Foxtrot
    +0.42 x 20 = 8.4 -> 1508."""
    f = files(
        tmp_path,
        reg=REGISTER,
        early=(
            "date,white_id,White,black_id,Black,result,white_rating,black_rating,event_id\n"
            '2026-10-05,4100001,"Zulu, Zoltan",1000002,"Bravo, Bela",0-1,2300,2100,Early Cup\n'
        ),
        late=(
            "date,white_id,black_id,result,white_rating,black_rating,event_id\n"
            "2026-10-25,4100001,1000006,1/2-1/2,2310,1500,Late Cup 5\n"
        ),
    )
    store = tmp_path / "S"
    args = ("--players", f["reg"], "--ignore-stated-ratings", "--store", store)
    assert run("ingest", f["late"], f["early"], *args) == 0  # (ingested last: it was ignored)
    first = Store(store).game_files("standard", 202610)[0]
    assert "Late Cup 5" in pl.read_parquet(first)["event_id"].to_list()  # counted first
    assert run("rate", "--system", "fide", "--store", store) == 0
    assert ratings(store, 202610) == {"1000002": 2115, "1000006": 1508, "4100001": 2276}
