"""FIDE: K of a player rated again after falling below the floor, and ``predict``'s
expected scores under the 2650 exemption (docs/rules.md "Rated again after falling
below the floor"; docs/cli.md "arpad predict")."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system
from tests.conftest import write_csv


# -- 1. re-entry: new to the rating list, K 40 for 30 games from then (§7.2.1, §8.3.3) -------
def reentry_store(tmp_path) -> Store:
    players = ["X,1410,50", "A,1410,50", "B,1410,50", "D,1600,50", "E,1636,50"]
    players += [f"C{i},1500,50" for i in range(1, 6)]
    games = ["2025-01-10,X,A,0-1,e1", "2025-01-11,B,X,1-0,e1"]  # 1410 − 2 × 10 = 1390
    games += [  # 3/5 against 1500s: Ru = 11100/7 + dp(.57) = 1585.71 + 50 → 1636
        "2025-02-10,X,C1,1-0,e2",
        "2025-02-11,C2,X,0-1,e2",
        "2025-02-12,X,C3,1-0,e2",
        "2025-02-13,C4,X,1-0,e2",
        "2025-02-14,X,C5,0-1,e2",
    ]
    games.append("2025-03-10,X,D,1/2-1/2,e3")  # 6 games since re-entry
    games += [f"2025-04-{d:02d},X,E,1/2-1/2,e4" for d in range(1, 18)]  # 17: 23 games
    games += [f"2025-05-{d:02d},E,X,1/2-1/2,e5" for d in range(1, 8)]  # 7: 30 games
    games.append("2025-06-10,X,D,1/2-1/2,e6")
    store = Store(tmp_path / "st")
    p = write_csv(tmp_path / "p.csv", "player_id,rating,rated_games", players)
    g = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,event_id", games)
    ingest_files(store, [g], players=[p])
    rate(store, "fide")
    return store


def row(store: Store, period: int, player: str = "X") -> dict:
    table = store.read_ratings("fide", "standard", period).to_pylist()
    return next(r for r in table if r["player_id"] == player)


def test_a_player_rated_again_after_the_floor_is_new_to_the_list(tmp_path, capsys):
    store = reentry_store(tmp_path)
    jan = row(store, 202501)  # 50 rated games before: K 20; 1410 − 20 = 1390 < 1400
    assert (jan["k"], jan["rating_after"], jan["status"]) == (20, 1390, "unrated")
    feb = row(store, 202502)  # an initial rating from the pooled games (§8.2)
    assert (feb["rating_after"], feb["status"]) == (1636, "new")
    # K 40 until 30 games counted from the re-entry: 5 before March, 6 before April,
    # 23 before May (the earlier 52 games do not count: they would give K 20)
    assert [row(store, p)["k"] for p in (202503, 202504, 202505)] == [40, 40, 40]
    assert row(store, 202506)["k"] == 20  # 30 games since the re-entry
    assert row(store, 202503)["change"] == -2  # 1636 vs 1600 (PD .55), ½: −.05 × 40
    capsys.readouterr()
    assert main(["card", "X", "--period", "2025-03", "--store", str(store.root)]) == 0
    card = capsys.readouterr().out
    assert "K = 40: base K 40 (new player: 5 rated game(s) before the period < 30)" in card


# -- 2. predict: a proper distribution whichever colour is listed first ----------------------
GAME = pl.DataFrame(
    {"date": ["2025-11-10"], "white_id": ["a"], "black_id": ["b"], "result": ["1-0"]}
)
PLAYERS = pl.DataFrame({"player_id": ["a", "b"], "rating": [2700, 2200], "rated_games": [50, 50]})
BOTH = pl.DataFrame({"white_id": ["a", "b"], "black_id": ["b", "a"]})


def test_fide_2025_10_predict_sums_to_one_whichever_colour_is_first():
    # November 2025: a 2700 (K 10, exempt: D 500 → .96, +.4 → 2700) beats b 2200 (capped:
    # PD .08, −.08 × 20 = −1.6 → 2198). Forecast a vs b: D = 502, table 8.1.2 → .96/.04,
    # with a as White or as Black (was .96 as White and .92 as Black: .96 + .08 ≠ 1).
    rated = arpad.rate(GAME, system="fide", players=PLAYERS)
    got = arpad.predict(rated, BOTH)["expected"].to_list()
    assert got == [0.96, 0.04]
    three = arpad.predict(rated, BOTH, draws=0.3)
    first, second = three.row(0, named=True), three.row(1, named=True)
    assert first["p_white"] == pytest.approx(second["p_black"], abs=1e-12)
    assert first["p_draw"] == pytest.approx(second["p_draw"], abs=1e-12)
    # rules where the cap applies to everyone keep it in the forecast, on both sides
    old = arpad.rate(GAME, system="fide", players=PLAYERS, rules="2014-07")
    assert arpad.predict(old, BOTH)["expected"].to_list() == [0.92, 0.08]


def test_arpad_predict_command_is_colour_independent(tmp_path, capsys):
    s = str(tmp_path / "st")
    g = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", ["2025-11-10,a,b,1-0"])
    p = write_csv(tmp_path / "p.csv", "player_id,rating,rated_games", ["a,2700,50", "b,2200,50"])
    assert main(["ingest", str(g), "--players", str(p), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", s, "--no-flow"]) == 0
    pairs = write_csv(tmp_path / "pairs.csv", "white_id,black_id", ["a,b", "b,a"])
    capsys.readouterr()
    assert main(["predict", str(pairs), "--store", s, "--format", "json"]) == 0
    assert [r["expected"] for r in json.loads(capsys.readouterr().out)] == [0.96, 0.04]


@pytest.mark.parametrize("version", get_system("fide").rule_versions())
def test_fide_expected_scores_of_both_sides_sum_to_one(version):
    rng = np.random.default_rng(7)
    w = rng.integers(1400, 2900, 2000).astype(np.float64)
    b = rng.integers(1400, 2900, 2000).astype(np.float64)
    fide = get_system("fide")
    nan = np.full(w.shape, np.nan)
    total = fide.expected_scores(w, b, nan, nan, version) + fide.expected_scores(
        b, w, nan, nan, version
    )
    assert np.allclose(total, 1.0, atol=1e-12)
