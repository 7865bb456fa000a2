"""Undated ratings are compared per pool (docs/observations.md "Undated ratings and
pools"): a ``pool=rapid`` players file for players a ``pool=standard`` file rated is no
conflict ("rating differs between sources ... the file ingested last wins" was printed,
and ``arpad players --conflicts`` listed them), and the note of an undated file that
moves rated players' starts names the pool whose start moves (it said "1: 2000 -> 2050"
of a rapid row, as if the standard start had changed)."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

STANDARD = 'player_id,name,pool,rating\n1,"A, Ann",standard,2000\n2,"B, Bob",standard,1900\n'
RAPID = 'player_id,name,pool,rating\n1,"A, Ann",rapid,2050\n2,"B, Bob",rapid,1950\n'
GAMES = (
    "date,white_id,black_id,result,pool\n2026-10-05,1,2,1-0,rapid\n2026-10-06,1,2,1-0,standard\n"
)


def run(*args) -> int:
    return main([*map(str, args), "--no-flow"])


def ingest(tmp_path: Path, store: Path, name: str, text: str, *more) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert run("ingest", "--store", store, "--players", path, *more) == 0


def rated_store(tmp_path: Path) -> Path:
    """STANDARD and GAMES ingested, elo rated in standard and rapid."""
    store = tmp_path / "S"
    (tmp_path / "g.csv").write_text(GAMES)
    ingest(tmp_path, store, "std.csv", STANDARD, tmp_path / "g.csv")
    for pool in ("standard", "rapid"):
        assert run("rate", "--system", "elo", "--pool", pool, "--store", store) == 0
    return store


def test_a_rapid_row_is_no_conflict_with_a_standard_row(tmp_path, capsys):
    store = tmp_path / "S"
    ingest(tmp_path, store, "std.csv", STANDARD)
    capsys.readouterr()
    ingest(tmp_path, store, "rapid.csv", RAPID)
    assert "differs between sources" not in capsys.readouterr().out
    assert identity.conflicts(Store(store)).height == 0
    assert main(["players", "--store", str(store), "--conflicts"]) == 0
    assert "0 player(s) with conflicting values across sources" in capsys.readouterr().out


def test_ratings_are_compared_within_a_pool_and_the_pool_is_named(tmp_path, capsys):
    store = tmp_path / "S"
    ingest(tmp_path, store, "std.csv", STANDARD)
    ingest(tmp_path, store, "rapid.csv", RAPID)
    capsys.readouterr()
    # Another rapid list: A's rapid start differs (2050 vs 2060); standard is not named.
    ingest(tmp_path, store, "rapid2.csv", 'player_id,name,pool,rating\n1,"A, Ann",rapid,2060\n')
    out = capsys.readouterr().out
    assert (
        "note: 1 player(s) whose rapid rating differs between sources (e.g. 1: 2050.0 in "
        "rapid.csv, 2060.0 in rapid2.csv; the file ingested last wins" in out
    )
    assert "whose rating differs" not in out
    # A file without a pool column counts for every pool: B's 1800 differs from his
    # standard 1900 and his rapid 1950, one note each (standard unnamed).
    ingest(tmp_path, store, "nopool.csv", 'player_id,name,rating\n2,"B, Bob",1800\n')
    out = capsys.readouterr().out
    differs = "1 player(s) whose {}rating differs between sources (e.g. 2: 1800.0 in nopool.csv"
    assert differs.format("") + ", 1900.0 in std.csv;" in out
    assert differs.format("rapid ") + ", 1950.0 in rapid.csv;" in out
    assert main(["players", "--store", str(store), "--conflicts", "--format", "csv"]) == 0
    rows = set(capsys.readouterr().out.strip().splitlines()[1:])
    assert rows == {
        '1,rapid.csv,2,"A, Ann",rapid rating,2050.0',
        '1,rapid2.csv,2,"A, Ann",rapid rating,2060.0',
        '2,nopool.csv,2,"B, Bob",rapid rating,1800.0',
        '2,rapid.csv,3,"B, Bob",rapid rating,1950.0',
        '2,nopool.csv,2,"B, Bob",rating,1800.0',
        '2,std.csv,3,"B, Bob",rating,1900.0',
    }


def test_two_files_without_a_pool_column_are_one_conflict(tmp_path, capsys):
    """Their disagreement holds in every pool: listed once per source, as ``rating``."""
    store = tmp_path / "S"
    ingest(tmp_path, store, "a.csv", "player_id,name,rating\n1,Ann,1800\n")
    ingest(tmp_path, store, "b.csv", "player_id,name,rating\n1,Ann,1850\n")
    frame = identity.conflicts(Store(store))
    assert frame.select("source", "field", "value").rows() == [
        ("a.csv", "rating", "1800.0"),
        ("b.csv", "rating", "1850.0"),
    ]


def test_the_rebased_note_names_the_pool_whose_start_moves(tmp_path, capsys):
    store = rated_store(tmp_path)
    capsys.readouterr()
    ingest(tmp_path, store, "rapid.csv", RAPID)
    out = capsys.readouterr().out
    # The standard starts are unchanged (2000, 1900); the players had no rapid start.
    assert (
        "note: 2 player(s) whose undated rapid starting rating changes (1: none -> 2050; "
        "2: none -> 1950): an undated rating counts as of the first period" in out
    )
    assert "2000 -> 2050" not in out and "undated starting rating" not in out
    ingest(tmp_path, store, "std2.csv", STANDARD.replace("2000", "2010"))
    out = capsys.readouterr().out
    assert "note: 1 player(s) whose undated starting rating changes (1: 2000 -> 2010)" in out
    assert "rapid starting" not in out
    # A file without a pool column moves every pool's start: pools alike share one note.
    ingest(tmp_path, store, "all.csv", 'player_id,name,rating\n1,"A, Ann",2100\n')
    out = capsys.readouterr().out
    assert "note: 1 player(s) whose undated starting rating changes (1: 2010 -> 2100)" in out
    assert "note: 1 player(s) whose undated rapid starting rating changes (1: 2050 -> 2100)" in out
    ingest(tmp_path, store, "all2.csv", 'player_id,name,rating\n1,"A, Ann",2200\n')
    out = capsys.readouterr().out
    assert "whose undated standard and rapid starting rating changes (1: 2100 -> 2200)" in out
