"""Players' names in a games file, round 15 (the rating officer's report, finding 4 and
the first bullet of finding 8).

A games CSV's names (round 14) named only ids the store had no name for, so a name
corrected in a new version of the file ('Xray, Xavr' to 'Xray, Xaver') was never
applied, and the correction wiped what the source had said (``players --id``: "no
source describes this player"). A mistyped id corrected in a new version (1000040 to
1000004) left a players row 1000040 without a game, described as "no game, its
players row made from its games alone" and proposed by ``players identify``. The
namesake note counted a new id once per stored namesake. Now a new version of a source
gives the names its earlier version gave (the register's are kept), the ids only the
earlier version brought in are dropped, and the note counts ids (docs/ingest.md
"Players' names in a games file")."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from arpad.pipeline.store import Store
from tests import test_names_r14 as names_r14
from tests.test_names_r14 import names, run

REGISTER = """ID Number,Name,Fed,B-day,SRtng
1000001,"Alpha, Anna",HUN,1980,2200
1000002,"Bravo, Bela",HUN,1985,2100
1000003,"Charlie, Csaba",HUN,1990,2000
1000004,"Öztürk, Ali",TUR,1992,1900
1000005,"Ozturk, Ali",TUR,1993,1900
"""
HEADER = "date,white_id,black_id,result,event_id,white_name,black_name\n"
# nov.csv: 4100003 new to the store, his name mistyped; Alpha's spelt otherwise than
# the register's
NOV = HEADER + (
    '2026-11-07,1000001,4100003,0-1,Nov Open,"Alpha, A.","Xray, Xavr"\n'
    '2026-11-08,4100003,1000002,1/2-1/2,Nov Open,"Xray, Xavr","Bravo, Bela"\n'
)


def store_with_register(tmp_path: Path) -> Path:
    return names_r14.store_with_register(tmp_path, REGISTER)


def said(root: Path, pid: str, capsys) -> list[tuple]:
    """What ``arpad players --id`` shows: (source, line, name) rows."""
    capsys.readouterr()
    assert run("players", "--id", pid, "--format", "csv", "--store", str(root)) == 0
    seen = capsys.readouterr()
    assert seen.err == ""
    frame = pl.read_csv(seen.out.encode(), infer_schema=False)
    return frame.select("source", "line", "name").rows()


def test_a_name_corrected_in_a_new_version_of_the_file_replaces_the_old_one(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "nov.csv"
    path.write_text(NOV)
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert names(root)["4100003"] == "Xray, Xavr"
    # the same file re-sent (the monthly inbox under the same name), the name corrected
    path.write_text(NOV.replace("Xavr", "Xaver"))
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 name(s) the earlier version of nov.csv gave replaced by this version's "
        "(4100003 'Xray, Xavr' now 'Xray, Xaver')"
    ) in out
    assert "names read from the file" not in out  # no id was without a name
    got = names(root)
    assert got["4100003"] == "Xray, Xaver"
    assert got["1000001"] == "Alpha, Anna"  # the register's, not the file's "Alpha, A."
    # the source and line that gave the name (before: "no source describes this player")
    assert said(root, "4100003", capsys) == [("nov.csv", "2", "Xray, Xaver")]
    # a version sent with --source under another file name is one too
    other = tmp_path / "nov-fixed.csv"
    other.write_text(NOV.replace("Xavr", "Xaver-Xenon").replace("2026-11-08", "2026-11-09"))
    capsys.readouterr()
    assert run("ingest", str(other), "--source", str(path), "--store", str(root)) == 0
    assert "(4100003 'Xray, Xaver' now 'Xray, Xaver-Xenon')" in capsys.readouterr().out
    assert names(root)["4100003"] == "Xray, Xaver-Xenon"
    assert said(root, "4100003", capsys) == [("nov.csv", "2", "Xray, Xaver-Xenon")]


def test_another_files_name_is_kept_and_a_name_no_longer_given_is_removed(tmp_path, capsys):
    root = store_with_register(tmp_path)
    (tmp_path / "dec.csv").write_text(
        HEADER + '2026-11-10,1000003,4100009,1-0,Dec Cup,"Charlie, Csaba","Yankee, Yves"\n'
    )
    assert run("ingest", str(tmp_path / "dec.csv"), "--store", str(root)) == 0
    path = tmp_path / "nov.csv"
    path.write_text(
        NOV + '2026-11-09,4100009,1000003,0-1,Nov Open,"Yankee, Yvo","Charlie, Csaba"\n'
    )
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert names(root)["4100009"] == "Yankee, Yves"  # dec.csv named him first
    # nov.csv corrected: 4100009 spelt otherwise, 4100003's name left out ("?")
    path.write_text(
        NOV.replace('"Xray, Xavr"', "?")
        + '2026-11-09,4100009,1000003,0-1,Nov Open,"Yankee, Yvan","Charlie, Csaba"\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 player id(s) the earlier version of nov.csv named and this version does "
        "not: the name is removed (4100003 'Xray, Xavr')"
    ) in out
    assert "replaced by this version's" not in out
    got = names(root)
    assert got["4100009"] == "Yankee, Yves"  # another file's name: not this source's
    assert got["4100003"] is None
    capsys.readouterr()
    assert run("players", "--id", "4100003", "--store", str(root)) == 0
    assert capsys.readouterr().out == (
        "4100003: no source describes this player (2 game(s) stored under this id, its "
        "players row made from its games alone)\n"
    )


def test_a_mistyped_id_corrected_in_a_new_version_leaves_no_players_row(tmp_path, capsys):
    root = store_with_register(tmp_path)
    # 1000040 is a mistyped 1000004; 4100007 plays here and in another file
    (tmp_path / "other.csv").write_text(
        "date,white_id,black_id,result\n2026-11-02,4100007,1000002,1-0\n"
    )
    assert run("ingest", str(tmp_path / "other.csv"), "--store", str(root)) == 0
    path = tmp_path / "club.csv"
    path.write_text(
        HEADER + '2026-11-07,1000040,1000001,0-1,Club,"Öztürk, Ali","Alpha, Anna"\n'
        '2026-11-08,4100007,1000002,1-0,Club,"Victor, Vera","Bravo, Bela"\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    # one id with two stored namesakes: counted once, both named, the merge left to choose
    assert (
        "note: 1 player id(s) new to the store with the name of a stored player (1000040 "
        "'Öztürk, Ali' and stored 1000004 'Öztürk, Ali' or 1000005 'Ozturk, Ali', 1000004 "
        "born 1992, 1000005 born 1993, 1000040 without a birth year): a mistyped player id "
        "rates one person under two ids; if so, correct the file and ingest it again, or "
        "arpad players merge KEEP 1000040 with KEEP the stored player it is, 1000004 or "
        "1000005 (it has the name of 2 stored players)"
    ) in capsys.readouterr().out
    path.write_text(HEADER + '2026-11-07,1000004,1000001,0-1,Club,"Öztürk, Ali","Alpha, Anna"\n')
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 player id(s) only the earlier version of club.csv brought in (1000040 "
        "'Öztürk, Ali'): no game of theirs is left and no other source describes them, "
        "removed from the players table"
    ) in out
    # 4100007 keeps his row (other.csv's game), without the name only club.csv gave
    assert (
        "note: 1 player id(s) the earlier version of club.csv named and this version does "
        "not: the name is removed (4100007 'Victor, Vera')"
    ) in out
    got = names(root)
    assert "1000040" not in got
    assert got["4100007"] is None
    assert got["1000004"] == "Öztürk, Ali"
    capsys.readouterr()
    assert run("players", "--id", "1000040", "--store", str(root)) == 2
    assert capsys.readouterr().err == (
        "arpad: error: no player 1000040 in the store (no game, no players row)\n"
    )
    assert run("players", "identify", "--format", "csv", "--store", str(root)) == 0
    assert capsys.readouterr().out == "keep,duplicate,evidence,score\n"


def test_an_id_a_merge_names_is_kept_when_its_games_go(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "club.csv"
    line = '2026-11-07,{},1000001,0-1,Club,"Charlie, Csaba","Alpha, Anna"\n'
    path.write_text(HEADER + line.format("1000030"))
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert run("players", "merge", "1000003", "1000030", "--store", str(root)) == 0
    path.write_text(HEADER + line.format("1000003"))
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert "brought in" not in out
    assert "named and this version does not: the name is removed (1000030 'Charlie, Csaba')" in out
    assert names(root)["1000030"] is None  # the merge's row, nameless as the source says now
    capsys.readouterr()
    assert run("players", "--id", "1000030", "--store", str(root)) == 0
    assert capsys.readouterr().out == (
        "1000030: no source describes this player (no game, counted as 1000003's by a "
        "merge: arpad players --id 1000003)\n"
    )


def test_players_id_of_a_row_left_without_games_says_so(tmp_path, capsys):
    """A store of before round 15 kept such rows: described truthfully."""
    root = store_with_register(tmp_path)
    store = Store(root)
    players = pl.from_arrow(store.read_players())
    ghost = players.filter(pl.col("player_id") == "1000004").with_columns(
        pl.lit("1000040").alias("player_id"), pl.lit(None, pl.String).alias("source")
    )
    store.write_players(pl.concat([players, ghost]).to_arrow())
    capsys.readouterr()
    assert run("players", "--id", "1000040", "--store", str(root)) == 0
    assert capsys.readouterr().out == (
        "1000040: no source describes this player (no game: its players row is left from "
        "games removed since, by a corrected file)\n"
    )


def test_a_trfs_mistyped_id_corrected_in_a_new_version_leaves_no_players_row(tmp_path, capsys):
    """The same for a TRF: its player line with the mistyped FIDE id goes with its games."""
    from tests.test_officer_attack3 import PLAYERS, SEPT, SEPT_ROUNDS, trf

    root = tmp_path / "store"
    (tmp_path / "players.csv").write_text(PLAYERS)
    assert run("ingest", "--players", str(tmp_path / "players.csv"), "--store", str(root)) == 0
    typo = dict(SEPT)
    typo[5] = ("Eck, Emil", 1882, 4100055, "1980/01/01", "m")
    path = tmp_path / "weekender.trf"
    path.write_text(trf("November Weekender 2026", "2026/11/07", typo, SEPT_ROUNDS))
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert names(root)["4100055"] == "Eck, Emil"
    path.write_text(trf("November Weekender 2026", "2026/11/07", SEPT, SEPT_ROUNDS))
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert (
        "note: 1 player id(s) only the earlier version of weekender.trf brought in (4100055 "
        "'Eck, Emil'): no game of theirs is left and no other source describes them, "
        "removed from the players table"
    ) in capsys.readouterr().out
    assert "4100055" not in names(root)
    assert run("players", "identify", "--format", "csv", "--store", str(root)) == 0
    assert "4100055" not in capsys.readouterr().out
