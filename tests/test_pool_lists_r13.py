"""A register headed ``rating`` (no ``pool`` column) starts every pool: the rapid list
holds the players who never played rapid at their standard ratings. Kept (documented,
docs/observations.md "Undated ratings and pools"), and said: at ingest, by ``arpad
publish`` and in the monthly report (the rating officer's report, round 13, finding 3;
docs/lists.md "A register's rating of every pool on a rapid or blitz list")."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from arpad.pipeline import monthly, publish
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

GAMES = (
    "date,white_id,black_id,result,pool\n"
    "2026-10-05,1,2,1-0,rapid\n"  # A beats B in rapid
    "2026-10-06,1,3,1-0,standard\n"  # A beats C in standard; C never plays rapid
)
REGISTER = (
    'player_id,name,rating,rated_games\n1,"A, Ann",2000,100\n2,"B, Bob",1900,100\n'
    '3,"C, Cy",1800,100\n'
)
INGEST_NOTE = (
    "the file's rating column (no pool column) gives 3 player(s) their starting rating in "
    "every pool: the rapid lists start them from it, and list those without a game in that "
    "pool at it (0 games); if these are standard ratings, head the column SRtng (or "
    "standard_rating), or add a pool column, and ingest the file again "
    '(docs/observations.md "Undated ratings and pools")'
)
LIST_NOTE = (
    "1 of the 3 players on the fide/rapid list of period 202610 never played a rapid game: "
    "they are listed (0 games) from the rating a players file without a pool column gives "
    'them in every pool (docs/observations.md "Undated ratings and pools"); if such a file '
    "gives standard ratings, head its rating column SRtng (or standard_rating), or add a "
    "pool column, and ingest each such file again"
)


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def ingested(tmp_path: Path, register: str = REGISTER, capsys=None) -> tuple[Path, str]:
    """A store of ``GAMES``, then ``register`` (the games first: the store holds rapid
    games when the players file comes); the players file's ingest output."""
    (tmp_path / "g.csv").write_text(GAMES)
    (tmp_path / "p.csv").write_text(register)
    root = tmp_path / "s"
    assert run("ingest", str(tmp_path / "g.csv"), "--store", str(root)) == 0
    capsys.readouterr()
    assert run("ingest", "--players", str(tmp_path / "p.csv"), "--store", str(root)) == 0
    return root, capsys.readouterr().out


def test_a_register_without_a_pool_column_is_noted_at_ingest(tmp_path, capsys):
    _, out = ingested(tmp_path, capsys=capsys)
    assert f"note: {INGEST_NOTE}" in out


def test_a_register_of_standard_ratings_is_no_note(tmp_path, capsys):
    # SRtng: standard ratings only (no rapid seed), so nothing to say
    _, out = ingested(
        tmp_path, REGISTER.replace("rating,rated_games", "SRtng,rated_games"), capsys=capsys
    )
    assert "in every pool" not in out


def test_a_store_without_rapid_games_is_no_note(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(REGISTER)
    root = tmp_path / "s"
    assert run("ingest", "--players", str(tmp_path / "p.csv"), "--store", str(root)) == 0
    assert "in every pool" not in capsys.readouterr().out


def test_publish_counts_the_rapid_list_players_who_never_played_rapid(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(publish, "today", lambda: dt.date(2026, 12, 5))
    root, _ = ingested(tmp_path, capsys=capsys)
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", str(root)) == 0
    capsys.readouterr()
    assert main(["publish", "--system", "fide", "--pool", "rapid", "--store", str(root)]) == 0
    out = capsys.readouterr()
    assert "published fide/rapid period 202610: 3 players" in out.out
    assert f"arpad: note: {LIST_NOTE}" in out.err
    # the list is kept as the ratings are: C at his register rating, 0 games, rated
    listed = {
        r["player_id"]: r for r in Store(root).read_ratings("fide", "rapid", 202610).to_pylist()
    }
    assert listed["3"]["rating_after"] == 1800 and listed["3"]["games"] == 0
    assert listed["3"]["status"] == "rated"
    assert publish.every_pool_seeded(Store(root), "rapid", 202610, ["1", "2", "3"]) == ["3"]
    # the standard list is no such list
    assert publish.every_pool_seeded(Store(root), "standard", 202610, ["1", "2", "3"]) == []


def test_a_dated_rapid_rating_or_a_pool_row_is_a_rating_of_the_pool(tmp_path, capsys):
    root, _ = ingested(tmp_path, capsys=capsys)
    # a later file gives C a rapid row: his rapid start is that, not the register's
    (tmp_path / "r.csv").write_text('player_id,name,pool,rating\n3,"C, Cy",rapid,1750\n')
    assert run("ingest", "--players", str(tmp_path / "r.csv"), "--store", str(root)) == 0
    assert publish.every_pool_seeded(Store(root), "rapid", 202610, ["1", "2", "3"]) == []


def test_the_monthly_report_notes_the_frozen_rapid_list(tmp_path, monkeypatch, capsys):
    inbox = tmp_path / "in"
    (inbox / "players").mkdir(parents=True)
    (inbox / "g.csv").write_text(GAMES)
    (inbox / "players" / "p.csv").write_text(REGISTER)
    root = tmp_path / "s"
    monkeypatch.setattr(publish, "today", lambda: dt.date(2026, 12, 5))
    assert run("recalculate", "--inbox", str(inbox), "--store", str(root)) == 0
    text = capsys.readouterr().out
    frozen = monthly.freeze(Store(root), "fide", "rapid")  # a re-run: nothing frozen now
    assert frozen["every_pool"] == []
    assert "Frozen list fide/rapid period 202610" in text
    assert f"Note: {LIST_NOTE.replace('_', chr(92) + '_')}" in text
    assert "players on the fide/standard list" not in text
