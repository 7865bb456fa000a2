"""ECF, Harkness, Ingo, Elo linear and the performance post-step through the engine and CLI."""

from __future__ import annotations

import numpy as np
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv

PLAYERS = [
    "a,Alice,1970,160,2000",
    "b,Bob,1980,140,1900",
    "c,Carol,2000,120,1800",
    "d,Dan,1975,,",
    "e,Eve,1960,150,1950",
]
GAMES = [
    "2010-01-10,a,b,1-0,E1",
    "2010-01-11,b,c,1/2-1/2,E1",
    "2010-02-10,c,a,0-1,E1",
    "2010-03-10,d,a,0-1,E2",
    "2010-05-10,d,e,1-0,E2",
    "2010-05-12,e,b,1-0,",
    "2010-06-12,e,b,0-1,",
]


@pytest.fixture
def small_store(tmp_path) -> Store:
    players = write_csv(tmp_path / "players.csv", "player_id,name,birth_year,grade,rating", PLAYERS)
    games = write_csv(tmp_path / "games.csv", "date,white_id,black_id,result,event_id", GAMES)
    store = Store(tmp_path / "store")
    ingest_files(store, [games], players=[players])
    return store


def rows(store: Store, system: str, period: int) -> dict:
    table = store.read_ratings(system, "standard", period).to_pylist()
    return {r["player_id"]: r for r in table}


def test_ecf_publishes_at_the_cycle_end_with_a_per_game_report(small_store):
    rate(small_store, "ecf")
    interim = rows(small_store, "ecf", 201001)
    assert {r["status"] for r in interim.values()} == {"provisional"}
    final = rows(small_store, "ecf", 201005)  # the 2009/10 season closes in May
    # Alice: 3 wins (190, vs Carol's junior estimate 125 → 175, vs Dan's estimate 155 → 205)
    # + 27 games at 160 → (570 + 4320) / 30 = 163
    assert final["a"]["rating_after"] == 163 and final["a"]["status"] == "rated"
    assert final["d"]["status"] == "new"  # no grade before: graded from this cycle alone
    con = catalog.connect(small_store)
    try:
        points = con.execute(
            "SELECT sum(points) FROM read_parquet('ratings/system=ecf/*/*/games/*.parquet') "
            "WHERE player_id = 'a'"
        ).fetchone()[0]
    finally:
        con.close()
    assert points == 190 + 175 + 205
    # June starts a new cycle: no report of last season's games is rewritten there
    assert not (small_store.rating_partition("ecf", "standard", 201006) / "games").exists()


def test_rules_set_and_systems_run(small_store):
    rate(small_store, "ecf", overrides={"cycle_end_months": "6", "min_games": "1"})
    assert rows(small_store, "ecf", 201005)["a"]["status"] == "provisional"
    assert rows(small_store, "ecf", 201006)["a"]["status"] == "rated"
    rate(small_store, "harkness")
    h = rows(small_store, "harkness", 201001)
    # per event: Alice beat Bob (1900) in E1 → 1900 + 10 × 50 = 2400
    assert h["a"]["rating_after"] == 2400
    rate(small_store, "ingo", overrides={"ingo_update": "dsb"})
    i = rows(small_store, "ingo", 201001)
    # Ingo of Bob from Elo 1900: 117.5; Alice 105 → 0.75·105 + 0.25·(117.5 − 50) = 95.625 → 96
    assert i["a"]["rating_after"] == 96
    rate(small_store, "elo-linear", overrides={"k": "10"})
    e = rows(small_store, "elo-linear", 201001)
    assert e["a"]["rating_after"] == pytest.approx(2000 + 5 * (1 + 0.5 * -100 / 200))
    assert e["a"]["performance"] == pytest.approx(1900 + 400)


def test_engine_fills_performance_for_fide(small_store):
    rate(small_store, "fide")
    r = rows(small_store, "fide", 201001)
    # Alice 1/1 vs Bob 1900: FIDE table, 100 % → +800
    assert r["a"]["performance"] == 2700


def test_cli_performance_convert_norm_category(tmp_path, capsys):
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating,event_id",
        [
            "2024-01-01,p,x,1-0,,2400,T",
            "2024-01-02,y,p,0-1,2500,,T",
            "2024-01-03,p,z,1/2-1/2,,2600,T",
        ],
    )
    assert main(["performance", str(games), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("p,"))
    fields = line.split(",")
    assert fields[5] == "2773.0"  # fide
    assert float(fields[7]) == pytest.approx(2785.03, abs=0.01)  # true, normal curve
    assert main(["convert", "140", "--from", "ecf", "--to", "fide", "--date", "2015-01-01"]) == 0
    assert "1750.00 fide" in capsys.readouterr().out
    assert (
        main(["norm", "--title", "IM", "--opponents", ",".join(["2406"] * 9), "--score", "5"]) == 0
    )
    assert "fails: performance" in capsys.readouterr().out
    assert main(["category", "--average", "2276"]) == 0
    assert capsys.readouterr().out.strip() == "2"
    assert main(["norm", str(games), "--player", "p", "--title", "GM"]) == 0
    assert "fails: games" in capsys.readouterr().out


def test_bundled_kaggle_data_rates_with_every_new_system(bundled_data, tmp_path):
    store = Store(tmp_path / "store")
    ingest_files(store, [bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"])
    for system in ("harkness", "ingo", "elo-linear", "ecf"):
        summary = rate(store, system, start=None, end=3, refresh_catalog=False)
        assert summary.periods == [1, 2, 3]
    # Kaggle starts everyone unrated: ECF estimates every player from the first cycle
    ecf = store.read_ratings("ecf", "standard", 3)
    assert ecf.num_rows > 0 and set(ecf.column("status").to_pylist()) == {"provisional"}
    lin = store.read_ratings("elo-linear", "standard", 3).column("rating_after").to_numpy()
    assert np.isfinite(lin).all()
