"""Corrections: a changed file (or ``--replace``) marks later periods stale for every
rated system/pool, and ``arpad rate`` recomputes from the earliest stale period only,
with the same result as a full recompute (docs/pgn-trf.md "Corrections and incremental recomputation")."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest

from arpad.pipeline import incremental
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system, system_names
from tests.conftest import results

PERIODS = ["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"]
FAST_SYSTEMS = ("fide", "glicko2")


def games_csv(seed: int = 7, corrupt: bool = False) -> str:
    rng = random.Random(seed)
    rows = ["game_id,date,white_id,black_id,result,event_id"]
    for month in PERIODS:
        for i in range(40):
            w, b = rng.sample(range(24), 2)
            result = rng.choice(["1-0", "0-1", "1/2-1/2"])
            if corrupt and month == "2024-03" and i % 5 == 0:
                result = {"1-0": "0-1", "0-1": "1/2-1/2", "1/2-1/2": "1-0"}[result]
            rows.append(
                f"{month}-{i},{month}-{1 + i % 28:02d},P{w:02d},P{b:02d},{result},ev{month}"
            )
    if corrupt:
        rows.append("late-1,2024-03-30,P01,P02,1-0,ev2024-03")
    return "\n".join(rows) + "\n"


def players_csv() -> str:
    rows = ["player_id,rating,rated_games,birth_year,peak_rating"]
    for p in range(24):
        rating = "" if p % 6 == 5 else str(1800 + 25 * p)
        rows.append(f"P{p:02d},{rating},{40 if rating else ''},{1970 + p},")
    return "\n".join(rows) + "\n"


def ratings_of(root: Path, system: str) -> pa.Table:
    store = Store(root)
    parts = []
    for period in store.rating_periods(system, "standard"):
        t = store.read_ratings(system, "standard", period)
        parts.append(t.append_column("period", pa.array([period] * t.num_rows, pa.int32())))
    table = results(pa.concat_tables(parts))
    return table.sort_by([("period", "ascending"), ("player_id", "ascending")])


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def setup_store(root: Path, data: Path, content: str) -> None:
    (data / "games.csv").write_text(content)
    assert run("ingest", "--store", str(root), "--players", str(data / "players.csv"),
               str(data / "games.csv")) == 0  # fmt: skip


@pytest.fixture
def data(tmp_path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    (d / "players.csv").write_text(players_csv())
    return d


def check_incremental_equals_full(systems, data: Path, tmp_path: Path, capsys) -> None:
    inc, full = tmp_path / "inc", tmp_path / "full"
    setup_store(inc, data, games_csv())
    for system in systems:
        assert run("rate", "--store", str(inc), "--system", system) == 0
    before = {s: ratings_of(inc, s) for s in systems}

    setup_store(inc, data, games_csv(corrupt=True))  # same source name, new content
    stale = incremental.read_stale(Store(inc))
    assert stale == {f"{s}/standard": 202403 for s in systems}
    capsys.readouterr()
    for system in systems:
        assert run("rate", "--store", str(inc), "--system", system) == 0
        out = capsys.readouterr().out
        assert f"{system}/standard: recomputing from stale period 202403" in out
        assert "rated 4 periods (202403..202406)" in out
    assert incremental.read_stale(Store(inc)) == {}

    setup_store(full, data, games_csv(corrupt=True))
    for system in systems:
        assert run("rate", "--store", str(full), "--system", system) == 0
        got, want = ratings_of(inc, system), ratings_of(full, system)
        assert got.equals(want), system
        # The correction changed something, and periods before it kept their reports.
        old = before[system]
        assert not old.equals(want)
        if get_system(system).retroactive:
            continue  # retroactive (WHR): a correction rightly revises earlier periods too
        early = pa.compute.less(want["period"], 202403)
        assert old.filter(pa.compute.less(old["period"], 202403)).equals(want.filter(early)), system


def test_incremental_equals_full_recompute(data, tmp_path, capsys):
    check_incremental_equals_full(FAST_SYSTEMS, data, tmp_path, capsys)


@pytest.mark.slow
def test_incremental_equals_full_recompute_every_system(data, tmp_path, capsys):
    check_incremental_equals_full(system_names(), data, tmp_path, capsys)


def test_replace_game_id_marks_stale_and_replaces(data, tmp_path, capsys):
    root = tmp_path / "s"
    setup_store(root, data, games_csv())
    assert run("rate", "--store", str(root), "--system", "elo") == 0
    fix = data / "fix.csv"
    fix.write_text("game_id,date,white_id,black_id,result\n2024-04-3,2024-04-04,P03,P04,0-1\n")
    assert run("ingest", "--store", str(root), str(fix)) == 2  # a duplicate without --replace
    assert incremental.read_stale(Store(root)) == {}  # nothing stored, nothing stale
    Path(fix).write_text(fix.read_text().replace("0-1", "1-0"))
    assert run("ingest", "--store", str(root), "--replace", str(fix)) == 0
    assert "1 stored game(s) replaced" in capsys.readouterr().out
    assert incremental.read_stale(Store(root)) == {"elo/standard": 202404}
    capsys.readouterr()
    assert main(["sql", "--store", str(root), "SELECT white_id, score, source FROM games "
               "WHERE game_id = '2024-04-3'"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "fix.csv:2" in out and "P03" in out and out.count("P03") == 1
    assert run("rate", "--store", str(root), "--system", "elo") == 0
    assert "recomputing from stale period 202404" in capsys.readouterr().out


def test_changed_rules_or_players_force_a_full_run(data, tmp_path, capsys):
    root = tmp_path / "s"
    setup_store(root, data, games_csv())
    assert run("rate", "--store", str(root), "--system", "elo") == 0
    setup_store(root, data, games_csv(corrupt=True))
    capsys.readouterr()
    # Other overrides than the run that wrote the checkpoints: no incremental start.
    assert run("rate", "--store", str(root), "--system", "elo", "--set", "k=24") == 0
    out = capsys.readouterr().out
    assert "recomputing" not in out and "rated 6 periods" in out
    # A players file that changes a starting rating marks everything from the start.
    (data / "players.csv").write_text(players_csv().replace("P00,1800", "P00,1900"))
    assert run("ingest", "--store", str(root), "--players", str(data / "players.csv"),
               str(data / "games.csv")) == 0  # fmt: skip
    assert incremental.read_stale(Store(root))["elo/standard"] == incremental.FROM_FIRST
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "elo", "--set", "k=24") == 0
    assert "rated 6 periods" in capsys.readouterr().out
