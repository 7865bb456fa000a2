"""One players file may list a player once per pool (docs/observations.md "Undated
ratings and pools"; hostile7's report, round 7, defect 1): with a ``pool`` column a
duplicate is the same player, date (or none) *and* pool. Before, the second row of a
player (``rapid`` after ``standard``) was quarantined as ``duplicate_player_id`` and the
player started at the default in that pool. The players table keeps the standard row's
rating (and rated games), from one file or two."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

GAMES = (
    "date,white_id,black_id,result,pool\n2024-01-10,1,2,1-0,rapid\n2024-01-13,1,2,1-0,standard\n"
)
REGISTER = (
    "player_id,name,pool,rating,rated_games\n"
    '1,"A, Ann",standard,2000,100\n'
    '1,"A, Ann",rapid,1800,5\n'
    '2,"B, Bob",standard,1900,\n'
)


def run(*args) -> int:
    return main([*map(str, args), "--no-flow"])


def ingest(tmp_path: Path, root: Path, *players: tuple[str, str], code: int = 0) -> None:
    games = tmp_path / "games.csv"
    games.write_text(GAMES)
    args = []
    for name, text in players:
        (tmp_path / name).write_text(text)
        args += ["--players", tmp_path / name]
    assert run("ingest", games, *args, "--store", root) == code


def starts(root: Path, system: str = "elo") -> dict[tuple[str, str], float | None]:
    """(player, pool) -> rating_before of the one period, rated in rapid and standard."""
    out = {}
    for pool in ("rapid", "standard"):
        assert run("rate", "--system", system, "--pool", pool, "--store", root) == 0
        for r in Store(root).read_ratings(system, pool, 202401).to_pylist():
            out[(r["player_id"], pool)] = r["rating_before"]
    return out


def table(root: Path) -> dict[str, tuple]:
    players = Store(root).read_players()
    return {r["player_id"]: (r["rating"], r["rated_games"]) for r in players.to_pylist()}


def quarantine(root: Path) -> list[tuple]:
    files = sorted(Store(root).quarantine_dir.rglob("*.parquet"))
    rows = [r for f in files for r in pq.read_table(f).to_pylist()]
    return [(r["line"], r["reason"], r["detail"]) for r in rows]


def test_one_file_gives_a_player_a_rating_in_each_pool(tmp_path):
    root = tmp_path / "S"
    ingest(tmp_path, root, ("players.csv", REGISTER))
    assert quarantine(root) == []
    s = starts(root)
    # Rapid starts at the rapid row's 1800 (before: quarantined, the default 1500).
    assert s[("1", "rapid")] == 1800.0 and s[("1", "standard")] == 2000.0
    assert s[("2", "rapid")] == 1500.0 and s[("2", "standard")] == 1900.0
    # The players table's single rating and rated games are the standard row's.
    assert table(root)["1"] == (2000.0, 100)


def test_dated_rows_of_one_date_in_two_pools_are_both_kept(tmp_path):
    root = tmp_path / "S"
    dated = (
        "player_id,name,pool,rating,date\n"
        '1,"A, Ann",standard,2000,2023-12\n'
        '1,"A, Ann",rapid,1800,2023-12\n'
        '2,"B, Bob",standard,1900,2023-12\n'
    )
    ingest(tmp_path, root, ("players.csv", dated))
    assert quarantine(root) == []
    s = starts(root, "fide")  # FIDE seeds from dated ratings
    assert s[("1", "rapid")] == 1800.0 and s[("1", "standard")] == 2000.0
    assert table(root)["1"][0] == 2000.0


def test_a_duplicate_in_one_pool_is_quarantined_naming_the_pool(tmp_path, capsys):
    root = tmp_path / "S"
    ingest(tmp_path, root, ("players.csv", REGISTER + '1,"A, Ann",Rapid,1700,\n'), code=2)
    assert quarantine(root) == [
        (5, "duplicate_player_id", "player_id 1 in pool rapid already on line 3")
    ]
    assert "players.csv:5: duplicate_player_id: player_id 1 in pool rapid already on line 3" in (
        capsys.readouterr().err
    )
    assert starts(root)[("1", "rapid")] == 1800.0  # the first rapid row counts


def test_two_files_keep_the_standard_rating_in_the_players_table(tmp_path):
    root = tmp_path / "S"
    std = 'player_id,name,pool,rating\n1,"A, Ann",standard,2000\n2,"B, Bob",standard,1900\n'
    rapid = 'player_id,name,pool,rating\n1,"A, Ann",rapid,1800\n'
    ingest(tmp_path, root, ("std.csv", std), ("rap.csv", rapid))
    assert table(root)["1"][0] == 2000.0  # before: 1800, the last file's
    s = starts(root)
    assert s[("1", "rapid")] == 1800.0 and s[("1", "standard")] == 2000.0
    # A new rapid list moves the rapid start and leaves the table alone; the rapid
    # periods are recomputed from it.
    (tmp_path / "rap2.csv").write_text(rapid.replace("1800", "1850"))
    assert run("ingest", "--players", tmp_path / "rap2.csv", "--store", root) == 0
    assert table(root)["1"][0] == 2000.0
    assert starts(root)[("1", "rapid")] == 1850.0
