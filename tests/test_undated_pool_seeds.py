"""An undated players-file row seeds its own pool only (docs/observations.md "Undated
ratings and pools"; officer7's report, round 7, item 1): a register with
``pool=standard`` no longer lists every player on the rapid list at his standard rating.
A players file without a ``pool`` column keeps its old meaning: every pool's start."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

GAMES = (
    "date,white_id,black_id,result,pool\n"
    "2026-10-05,1,2,1-0,rapid\n"  # A beats B in rapid
    "2026-10-06,1,3,1-0,standard\n"  # A beats C in standard; C never plays rapid
)


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def rated(tmp_path: Path, *players: str, code: int = 0, rapid: int = 0) -> Path:
    """A store of ``GAMES`` and the players files ``players`` (texts), FIDE rated in
    standard and rapid; ``rapid``: the exit code of the rapid run (2: no rapid rating
    given, refused; tests/test_pool_seed_r11.py)."""
    games = tmp_path / "g.csv"
    games.write_text(GAMES)
    args = []
    for i, text in enumerate(players):
        path = tmp_path / f"players{i}.csv"
        path.write_text(text)
        args += ["--players", str(path)]
    root = tmp_path / "s"
    assert run("ingest", str(games), *args, "--store", str(root)) == code
    for pool in ("standard", "rapid"):
        expected = rapid if pool == "rapid" else 0
        assert run("rate", "--system", "fide", "--pool", pool, "--store", str(root)) == expected
    return root


def rows(root: Path, pool: str) -> dict[str, dict]:
    table = Store(root).read_ratings("fide", pool, 202610)
    return {r["player_id"]: r for r in table.to_pylist()}


def test_a_standard_row_does_not_seed_rapid(tmp_path):
    root = rated(
        tmp_path,
        "player_id,name,pool,rating,rated_games\n"
        '1,"A, Ann",standard,2000,100\n'
        '2,"B, Bob",standard,1900,100\n'
        '3,"C, Cy",standard,1800,100\n',
        rapid=2,
    )
    # Nobody has a rapid rating: fide/rapid is refused (round 11; round 7 rated A and B
    # as unrated, and before that A 2000 -> 2007, B 1900 -> 1893 from their standard).
    assert Store(root).rating_periods("fide", "rapid") == []
    # Standard still starts from the register: A 2000 + 20 x (1 - 0.76) = 2005 (§8.3).
    standard = rows(root, "standard")
    assert standard["1"]["rating_before"] == 2000 and standard["1"]["rating_after"] == 2005
    assert standard["3"]["rating_before"] == 1800 and standard["3"]["rating_after"] == 1795
    assert standard["2"]["rating_after"] == 1900


def test_a_players_file_without_a_pool_column_seeds_every_pool(tmp_path):
    root = rated(
        tmp_path,
        "player_id,name,rating,rated_games\n"
        '1,"A, Ann",2000,100\n'
        '2,"B, Bob",1900,100\n'
        '3,"C, Cy",1800,100\n',
    )
    rapid = rows(root, "rapid")
    # Today's meaning kept: the undated rating is the start in every pool.
    assert rapid["1"]["rating_before"] == 2000 and rapid["1"]["rating_after"] == 2007
    assert rapid["2"]["rating_before"] == 1900 and rapid["2"]["rating_after"] == 1893
    assert rapid["3"]["rating_before"] == 1800 and rapid["3"]["status"] == "rated"
    assert rows(root, "standard")["1"]["rating_after"] == 2005


def test_a_rapid_row_seeds_rapid_only_and_an_empty_pool_is_standard(tmp_path):
    root = rated(
        tmp_path,
        "player_id,name,pool,rating\n"
        '1,"A, Ann",,2000\n'  # an empty pool cell: standard
        '2,"B, Bob",standard,1900\n'
        '3,"C, Cy",standard,1800\n',
        "player_id,pool,rating\n2,Rapid,1950\n",  # B's rapid rating, ingested last
    )
    rapid = rows(root, "rapid")
    assert "3" not in rapid
    assert rapid["1"]["rating_before"] is None and rapid["1"]["status"] == "unrated"
    # B starts rapid at 1950; his loss to unrated A is not rated (FIDE §8.2).
    assert rapid["2"]["rating_before"] == 1950 and rapid["2"]["rating_after"] == 1950
    standard = rows(root, "standard")
    # The rapid row, though ingested last, does not seed standard: B stays at 1900.
    assert standard["2"]["rating_before"] == 1900
    assert standard["1"]["rating_before"] == 2000


def test_an_unknown_pool_on_an_undated_row_is_quarantined(tmp_path):
    root = rated(
        tmp_path,
        "player_id,name,pool,rating\n"
        '1,"A, Ann",standard,2000\n'
        '2,"B, Bob",rapdi,1900\n'
        '3,"C, Cy",standard,1800\n',
        code=2,
        rapid=2,
    )
    from tests.test_historian_attack import sql

    q = sql(root, "SELECT line, detail FROM quarantine ORDER BY line")
    assert q["line"].to_list() == [3]
    assert q["detail"][0] == "pool rapdi is not one of standard, rapid, blitz"
    # B's row is not stored: no rapid rating at all, fide/rapid refused (round 11).
    assert Store(root).rating_periods("fide", "rapid") == []
    assert "2" not in rows(root, "standard")
