"""Rated games, peak rating, RD and volatility are compared per pool, as the undated
rating is (docs/observations.md "Undated ratings and pools"; tests/test_pool_conflicts.py).
One players file may list a player once per pool (tests/test_players_per_pool_rows.py)
and the players table keeps the standard row's values of these fields (pipeline/ingest.py
``_merge_players``). Before, a register whose rapid row gave rated games 5 beside the
standard row's 100 printed "rated games differs between sources ... the file ingested
last wins": no conflict (two pools), and the standard row's 100 is kept, not the last."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,pool,rating,rated_games,peak_rating,rd,volatility\n"
    '1,"A, Ann",standard,2000,100,2100,50,0.06\n'
    '1,"A, Ann",rapid,1800,5,1850,200,0.09\n'
)


def ingest(tmp_path: Path, store: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    args = ["ingest", "--store", str(store), "--players", str(tmp_path / name), "--no-flow"]
    assert main(args) == 0
    return name


def test_one_file_per_pool_rows_are_no_conflict(tmp_path, capsys):
    store = tmp_path / "S"
    ingest(tmp_path, store, "reg.csv", REGISTER)
    assert "differs between sources" not in capsys.readouterr().out
    assert identity.conflicts(Store(store)).height == 0
    # The table keeps the standard row's values (pipeline/ingest.py _merge_players).
    row = Store(store).read_players().to_pylist()[0]
    assert (row["rated_games"], row["peak_rating"], row["rd"]) == (100, 2100.0, 50.0)


def test_standard_and_rapid_files_are_no_conflict(tmp_path, capsys):
    store = tmp_path / "S"
    lines = REGISTER.splitlines()
    ingest(tmp_path, store, "std.csv", "\n".join(lines[:2]) + "\n")
    capsys.readouterr()
    ingest(tmp_path, store, "rap.csv", "\n".join([lines[0], lines[2]]) + "\n")
    out = capsys.readouterr().out
    assert "differs between sources" not in out
    assert identity.conflicts(Store(store)).height == 0


def test_fields_differing_within_a_pool_name_the_pool(tmp_path, capsys):
    store = tmp_path / "S"
    ingest(tmp_path, store, "reg.csv", REGISTER)
    capsys.readouterr()
    rapid2 = "player_id,name,pool,rated_games,peak_rating\n" + '1,"A, Ann",rapid,7,1850\n'
    ingest(tmp_path, store, "rap2.csv", rapid2)
    out = capsys.readouterr().out
    assert (
        "note: 1 player(s) whose rapid rated games differs between sources (e.g. 1: 7 in "
        "rap2.csv, 5 in reg.csv; the players table keeps the standard row's value, if any; "
        "arpad players --conflicts)" in out
    )
    assert "whose rated games differs" not in out and "peak differs" not in out
    assert identity.conflicts(Store(store)).select("source", "field", "value").rows() == [
        ("rap2.csv", "rapid rated_games", "7"),
        ("reg.csv", "rapid rated_games", "5"),
    ]
    # The table still holds the standard row's 100.
    assert Store(store).read_players().to_pylist()[0]["rated_games"] == 100


def test_a_file_without_a_pool_column_counts_in_every_pool(tmp_path, capsys):
    store = tmp_path / "S"
    ingest(tmp_path, store, "reg.csv", REGISTER)
    capsys.readouterr()
    ingest(tmp_path, store, "all.csv", 'player_id,name,rd\n1,"A, Ann",60\n')
    out = capsys.readouterr().out
    differs = "1 player(s) whose {}rd differs between sources (e.g. 1: {} in {}, {} in {};"
    assert differs.format("", "60.0", "all.csv", "50.0", "reg.csv") + " the file" in out
    assert differs.format("rapid ", "60.0", "all.csv", "200.0", "reg.csv") in out
    fields = set(identity.conflicts(Store(store)).get_column("field"))
    assert fields == {"rd", "rapid rd"}
