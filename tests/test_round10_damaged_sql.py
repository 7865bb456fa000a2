"""Round 10, files of ``players/`` deleted by hand (docs/store.md "A damaged store"):

- ``players/observations.parquet`` deleted from a store whose manifest lists a players
  file: ``check`` said "no problem found" and ``rate --pool rapid`` seeded the rapid
  pool from the standard ratings (newuser #3). Now ``check`` names it, and ``rate`` and
  ``ingest`` refuse (an ingest would rewrite it with its own source's rows only);
- ``players/players.parquet`` (or ``keys.parquet``) deleted: ``arpad sql`` and
  ``Store.sql`` answered 0 players and null names, exit 0 (analyst #4); now they refuse
  as ``check``, ``rate`` and ``list`` do.

Numbers by hand (docs/rules.md, FIDE table 8.1.2, K 20): 2285 v 2010, D 275: PD .83;
the win 20 x (1 - .83) = 3.4 -> 3: 2285 -> 2288, 2010 -> 2007.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.store import Store

STD = (  # a FIDE-style players file: SRtng is the standard pool's rating only
    "ID Number;Name;Fed;SRtng;B-day\r\n"
    "4600001;Müller, Jürgen;GER;2285;1979\r\n"
    "4600002;Schröder, Anna;GER;2010;2005\r\n"
)
RAPID = "Date;White;Black;Result\r\n2025.01.10;4600001;4600002;1-0\r\n"
LOST = (
    "players/observations.parquet: missing while players files are stored (std.csv in the "
    "manifest); restore it from a backup (without it every pool would start from the "
    "players table's rating)"
)


def run(*args) -> int:
    flow = ["--no-flow"] if args[0] in ("ingest", "rate") else []
    return main([*map(str, args), *flow])


@pytest.fixture
def store(tmp_path, capsys) -> Path:
    (tmp_path / "std.csv").write_text(STD, encoding="utf-8", newline="")
    (tmp_path / "rapid.csv").write_text(RAPID, newline="")
    root = tmp_path / "S"
    argv = ["ingest", tmp_path / "rapid.csv", "--players", tmp_path / "std.csv"]
    assert run(*argv, "--pool", "rapid", "--store", root) == 0
    capsys.readouterr()
    return root


def rapid(root: Path) -> dict[str, tuple]:
    """player -> (rating_before, rating_after) of the rapid period 202501 (FIDE)."""
    rows = Store(root).read_ratings("fide", "rapid", 202501).to_pylist()
    return {r["player_id"]: (r["rating_before"], r["rating_after"]) for r in rows}


def test_intact_store_without_rapid_ratings_refuses_fide_rapid(store, capsys):
    assert run("check", "--store", store) == 0
    assert capsys.readouterr().out == f"{store}: no problem found\n"
    # SRtng is no rapid rating (docs/observations.md "Undated ratings and pools"): nobody
    # has one, so fide/rapid is refused (round 11; it rated both unrated, exit 0)
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", store) == 2
    assert "for pool rapid" in capsys.readouterr().err


def test_deleted_observations_are_named_and_refused(store, tmp_path, capsys):
    (store / "players" / "observations.parquet").unlink()
    assert run("check", "--store", store) == 2
    assert capsys.readouterr().out == f"{LOST}\narpad: 1 problem(s) in the store {store}\n"
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    # rate: refused, where it seeded rapid with 2285 and 2010 (2288 and 2007 after)
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", store, "--full") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "observations.parquet: missing while players files" in err
    with pytest.raises(InputError, match=r"observations\.parquet: missing while players files"):
        arpad.Store(store).rate("fide", pool="rapid")
    # ingest of another players file: refused (it would write its own rows only)
    more = tmp_path / "more.csv"
    more.write_text("ID Number;Name;Fed;SRtng\r\n4600003;Neu, N;GER;1800\r\n", newline="")
    assert run("ingest", "--players", more, "--store", store) == 2
    assert "observations.parquet: missing while players files" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before


def test_players_written_directly_keep_their_ratings(tmp_path, capsys):
    # no players file ingested: no observations.parquet, and nothing is refused; the
    # players table's ratings seed every pool (docs/observations.md)
    (tmp_path / "rapid.csv").write_text(RAPID, newline="")
    root = tmp_path / "S"
    assert run("ingest", tmp_path / "rapid.csv", "--pool", "rapid", "--store", root) == 0
    players = Store(root).read_players().to_pylist()
    for row in players:
        row["rating"] = {"4600001": 2285.0, "4600002": 2010.0}[row["player_id"]]
    Store(root).write_players(type(Store(root).read_players()).from_pylist(players))
    assert not (root / "players" / "observations.parquet").exists()
    capsys.readouterr()
    assert run("check", "--store", root) == 0
    assert capsys.readouterr().out == f"{root}: no problem found\n"
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", root) == 0
    assert rapid(root) == {"4600001": (2285, 2288), "4600002": (2010, 2007)}


def test_sql_refuses_a_deleted_players_table(store, tmp_path, capsys):
    intact = tmp_path / "intact"
    shutil.copytree(store, intact)
    (store / "players" / "players.parquet").unlink()
    where = (
        f"arpad: error: {store}/players/players.parquet: missing while games are stored: "
        "the store is damaged; restore it from a backup\n"
    )
    for query in ("select count(*) n from players", "select count(*) n from rating_list"):
        assert run("sql", query, "--store", store) == 2
        assert capsys.readouterr().err == where
    with pytest.raises(InputError, match=r"players/players\.parquet: missing while games"):
        arpad.Store(store).sql("select count(*) n from players")
    # the intact copy answers: two players, with their names
    assert run("sql", "select count(*) n from players", "--store", intact, "--format", "csv") == 0
    assert capsys.readouterr().out == "n\n2\n"
    assert arpad.Store(intact).sql("select name from players order by name")["name"].to_list() == [
        "Müller, Jürgen",
        "Schröder, Anna",
    ]


def test_sql_answers_without_the_key_dictionary(store, capsys):
    # No view reads players/keys.parquet (docs/store.md: without it ``rate`` is right,
    # tests/test_store_damage.py): the answer is the intact store's, not a refusal.
    (store / "players" / "keys.parquet").unlink()
    query = "select count(*) n, count(name) named from players"
    assert run("sql", query, "--store", store, "--format", "csv") == 0
    assert capsys.readouterr().out == "n,named\n2,2\n"
