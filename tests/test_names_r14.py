"""Players' names in a games file (the rating officer's report, round 14, finding 4).

A pairing program's CSV with ``white_name,black_name`` (or ``White,Black`` beside the id
columns) had them "not read": a mistyped id (1000030 for 1000003) became a nameless new
player, and no note said so, as one does for a TRF. The names are now read for ids the
store has no name for (never replacing a stored name), and the TRF's note of a new id
with a stored player's name follows. ``arpad players --id X`` for an id no source
describes says what the store holds of it instead of an empty table
(docs/ingest.md "Players' names in a games file")."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = """ID Number,Name,Fed,B-day,SRtng
1000001,"Alpha, Anna",HUN,1980,2200
1000002,"Bravo, Bela",HUN,1985,2100
1000003,"Charlie, Csaba",HUN,1990,2000
1000004,"Delta, Dora",HUN,1995,1900
"""
# oct.csv of the report: 1000030 is a mistyped 1000003; Alpha's name differs from the
# register's ("Alpha, A."), which is kept
OCT = """date,white_id,black_id,result,event_id,white_name,black_name
2026-10-03,1000003,1000001,0-1,Oct Open,"Charlie, Csaba","Alpha, A."
2026-10-04,1000030,1000002,1-0,Oct Open,"Charlie, Csaba","Bravo, Bela"
"""
NAMESAKE_NOTE = (
    "note: 1 player id(s) new to the store with the name of a stored player (1000030 "
    "'Charlie, Csaba' and stored 1000003 'Charlie, Csaba', 1000003 born 1990, 1000030 "
    "without a birth year): a mistyped player id rates one person under two ids; if so, "
    "correct the file and ingest it again, or arpad players merge 1000003 1000030"
)


def run(*args: str) -> int:
    return main([*args, "--no-flow"] if args[0] == "ingest" else list(args))


def names(root: Path) -> dict[str, str | None]:
    players = Store(root).read_players()
    return dict(zip(players.column("player_id").to_pylist(), players.column("name").to_pylist()))


def store_with_register(tmp_path: Path, register: str = REGISTER) -> Path:
    root = tmp_path / "store"
    (tmp_path / "register.csv").write_text(register)
    assert run("ingest", "--players", str(tmp_path / "register.csv"), "--store", str(root)) == 0
    return root


def test_a_csvs_name_columns_name_a_new_id_and_say_it_has_a_stored_name(tmp_path, capsys):
    root = store_with_register(tmp_path)
    (tmp_path / "oct.csv").write_text(OCT)
    capsys.readouterr()
    assert run("ingest", str(tmp_path / "oct.csv"), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert "columns not read" not in out
    assert NAMESAKE_NOTE in out
    assert (
        "note: names read from the file for 1 player id(s) the store had no name for "
        "(e.g. 1000030 'Charlie, Csaba'); a stored name is kept"
    ) in out
    got = names(root)
    assert got["1000030"] == "Charlie, Csaba"
    assert got["1000001"] == "Alpha, Anna"  # the register's name, not the file's
    # what the file said is shown by arpad players --id, with its line
    capsys.readouterr()
    assert run("players", "--id", "1000030", "--format", "csv", "--store", str(root)) == 0
    said = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False)
    assert said.select("source", "line", "name").rows() == [("oct.csv", "3", "Charlie, Csaba")]
    # and the merge arpad players identify proposes
    capsys.readouterr()
    assert run("players", "identify", "--format", "csv", "--store", str(root)) == 0
    proposed = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False)
    assert proposed.select("keep", "duplicate").rows() == [("1000003", "1000030")]


def test_a_pairing_programs_white_and_black_beside_the_ids_are_names(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "nov.csv"
    path.write_text(
        "date,white_id,black_id,result,event_id,White,Black\n"
        '2026-11-03,1000003,1000001,0-1,Nov Open,"Charlie, Csaba","Alpha, Anna"\n'
        '2026-11-04,1000040,1000002,1-0,Nov Open,"Delta, Dora","Bravo, Bela"\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    said = "note: column(s) read as the players' names: White as white_name, Black as black_name"
    assert said in out
    assert "columns not read" not in out
    assert (
        "1 player id(s) new to the store with the name of a stored player (1000040 "
        "'Delta, Dora' and stored 1000004 'Delta, Dora', 1000004 born 1995, 1000040 without "
        "a birth year)"
    ) in out
    assert names(root)["1000040"] == "Delta, Dora"


def test_other_spellings_of_the_name_columns(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "dec.csv"
    path.write_text(
        "Date,White ID,Black ID,Result,WhiteName,Black Player,White\n"
        '2026-12-03,1000030,1000001,0-1,"Charlie, Csaba","Alpha, Anna",x\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    # the first spelling of each side is read; a second one is a column not read
    assert (
        "note: column(s) read as the players' names: WhiteName as white_name, "
        "Black Player as black_name"
    ) in out
    assert "note: columns not read: White" in out
    assert names(root)["1000030"] == "Charlie, Csaba"


def test_a_csv_without_names_is_read_as_before(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "plain.csv"
    path.write_text(
        "date,white_id,black_id,result,event_id\n"
        "2026-10-03,1000003,1000001,0-1,Oct Open\n"
        "2026-10-04,1000030,1000002,1-0,Oct Open\n"
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{path}: 2 rows read, 2 games stored, 0 quarantined"
    assert "note:" not in out
    assert names(root)["1000030"] is None


def test_a_stored_name_is_never_replaced_and_placeholders_name_nobody(tmp_path, capsys):
    root = store_with_register(tmp_path)
    (tmp_path / "oct.csv").write_text(OCT)
    assert run("ingest", str(tmp_path / "oct.csv"), "--store", str(root)) == 0
    path = tmp_path / "nov.csv"
    path.write_text(
        "date,white_id,black_id,result,white_name,black_name\n"
        '2026-11-03,1000030,1000050,1-0,"Zulu, Zed",?\n'
        "2026-11-04,1000060,1000070,1-0,NN,1000070\n"
        '2026-11-05,1000080,1000002,1-0," Echo,  Ede ","Bravo, Bela"\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    got = names(root)
    assert got["1000030"] == "Charlie, Csaba"  # named by oct.csv, kept
    assert (got["1000050"], got["1000060"], got["1000070"]) == (None, None, None)
    assert got["1000080"] == "Echo,  Ede"  # stripped
    assert "names read from the file for 1 player id(s)" in out
    assert "new to the store with the name" not in out


def test_an_id_given_two_names_in_the_file_is_noted(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "club.csv"
    path.write_text(
        "date,white_id,black_id,result,white_name,black_name\n"
        '2026-11-03,1000090,1000001,1-0,"Kilo, Kim","Alpha, Anna"\n'
        '2026-11-04,1000002,1000090,1-0,"Bravo, Bela","KILO Kim"\n'
        '2026-11-05,1000090,1000003,1-0,"Lima, Lea","Charlie, Csaba"\n'
    )
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 player id(s) with different names in the file (1000090: 'Kilo, Kim' line "
        "2, 'Lima, Lea' line 4): a mistyped player id on one of those lines is rated as the "
        "other player's game; the first name is read for an id the store has no name for"
    ) in out
    assert names(root)["1000090"] == "Kilo, Kim"


def test_a_parquet_games_files_name_columns_are_read(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "oct.parquet"
    table = pa.table(
        {
            "date": ["2026-10-04"],
            "white_id": [1000030],
            "black_id": [1000002],
            "result": ["1-0"],
            "White Name": ["Charlie, Csaba"],
            "Black Name": ["Bravo, Bela"],
        }
    )
    pq.write_table(table, path)
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert "new to the store with the name of a stored player (1000030 'Charlie, Csaba'" in out
    assert "columns not read" not in out
    assert names(root)["1000030"] == "Charlie, Csaba"


def test_players_id_without_a_source_says_what_the_store_holds(tmp_path, capsys):
    root = store_with_register(tmp_path)
    path = tmp_path / "plain.csv"
    path.write_text(
        "date,white_id,black_id,result\n2026-10-03,1000003,1000001,0-1\n"
        "2026-10-04,1000030,1000002,1-0\n2026-10-05,1000002,1000030,1-0\n"
    )
    assert run("ingest", str(path), "--store", str(root)) == 0
    capsys.readouterr()
    assert run("players", "--id", "1000030", "--store", str(root)) == 0
    assert capsys.readouterr().out == (
        "1000030: no source describes this player (2 game(s) stored under this id, its "
        "players row made from its games alone)\n"
    )
    # a machine format keeps its (empty) table; the line goes to stderr
    assert run("players", "--id", "1000030", "--format", "csv", "--store", str(root)) == 0
    seen = capsys.readouterr()
    assert seen.out.startswith("player_id,source,line,name,")
    assert len(seen.out.splitlines()) == 1
    assert seen.err == (
        "arpad: note: 1000030: no source describes this player (2 game(s) stored under this "
        "id, its players row made from its games alone)\n"
    )
    assert run("players", "merge", "1000003", "1000030", "--store", str(root)) == 0
    capsys.readouterr()
    assert run("players", "--id", "1000030", "--store", str(root)) == 0
    assert capsys.readouterr().out == (
        "1000030: no source describes this player (2 game(s) stored under this id, counted "
        "as 1000003's by a merge: arpad players --id 1000003)\n"
    )
    assert run("players", "--id", "1000031", "--store", str(root)) == 2
    seen = capsys.readouterr()
    assert seen.out == ""
    assert seen.err == "arpad: error: no player 1000031 in the store (no game, no players row)\n"
