"""WHR reports the players file's rated players in every walked period, as the other
systems do (docs/whr.md "Which players are reported"; the analyst's attack, round 8).

Before, a rated player was left out of WHR's reports until his first game, and one who
never played was never reported, so ``arpad.predict`` gave null for his games under WHR
(16,139 of 30,428 Deloitte month-135 games predicted, 19,339 by every other system).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import arpad
from arpad.pipeline.systems.whr import WhrRules

GAMES = pl.DataFrame(
    {
        "date": [
            *("2025-01-10", "2025-01-11", "2025-01-12", "2025-03-05"),
            *("2025-03-06", "2025-03-07", "2025-04-02", "2025-04-03"),
        ],
        "white_id": ["a", "b", "d", "a", "c", "d", "c", "b"],
        "black_id": ["b", "d", "a", "c", "b", "c", "a", "c"],
        "result": ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "0-1"],
    }
)
# c is rated and plays from March; d is unrated and plays; y (unrated) and z (rated) never play
PLAYERS = pl.DataFrame(
    {
        "player_id": ["a", "b", "c", "d", "y", "z"],
        "rating": [2000, 1900, 1850, None, None, 2200],
    }
)
PERIODS = [202501, 202503, 202504]  # the walked periods (no game in February)
W2 = WhrRules().w2  # 300 Elo² per month
RATED_RD = WhrRules().rated_rd  # 100

# The retroactive rows of the players with games, from the code before this change
# (pipeline/systems/whr.py at git HEAD of round 8): (period, player) -> (rating, rd).
BEFORE = {
    (202501, "a"): (2006.443111, 89.725793),
    (202501, "b"): (1824.682168, 88.488058),
    (202501, "d"): (1575.80851, 229.193587),
    (202503, "a"): (2005.586712, 92.185455),
    (202503, "b"): (1822.143534, 91.011217),
    (202503, "c"): (1916.447448, 88.331943),
    (202503, "d"): (1575.442367, 230.067754),
    (202504, "a"): (2005.305556, 93.594106),
    (202504, "b"): (1821.578211, 92.44589),
    (202504, "c"): (1917.293926, 89.626099),
    (202504, "d"): (1575.442367, 230.718815),
}


def _rows(frame: pl.DataFrame) -> dict:
    return {(r["period"], r["player_id"]): r for r in frame.iter_rows(named=True)}


@pytest.fixture(scope="module")
def rated():
    return {
        retro: _rows(arpad.rate(GAMES, system="whr", players=PLAYERS, retroactive=retro))
        for retro in (True, False)
    }


@pytest.mark.parametrize("retroactive", [True, False])
def test_rated_players_are_reported_in_every_walked_period_as_glicko_reports_them(
    rated, retroactive
):
    whr = rated[retroactive]
    glicko = _rows(arpad.rate(GAMES, system="glicko", players=PLAYERS))
    assert sorted(whr) == sorted(glicko)  # the same players in the same periods
    assert {p for p, i in whr if i == "z"} == set(PERIODS)  # rated, never plays
    assert {p for p, i in whr if i == "c"} == set(PERIODS)  # rated, first game in March
    assert not any(i == "y" for _, i in whr)  # unrated and no game: not reported
    # z: his prior, the file's rating, its sd 100 grown by w2 per month since January
    for period, months in zip(PERIODS, (0, 2, 3)):
        z = whr[(period, "z")]
        assert z["rating_after"] == z["rating_before"] == 2200
        assert z["rd_after"] == pytest.approx(math.sqrt(RATED_RD**2 + W2 * months))
        assert (z["status"], z["games"], z["score"], z["change"]) == ("inactive", 0, 0, 0)
    c = whr[(202501, "c")]
    assert (c["status"], c["games"], c["rating_before"]) == ("inactive", 0, 1850)


def test_as_of_report_before_the_first_game_is_the_prior(rated):
    c = rated[False][(202501, "c")]
    assert (c["rating_after"], c["rd_after"]) == (1850, RATED_RD)


def test_retroactive_report_before_the_first_game_combines_the_prior_and_the_first_node(rated):
    """Retroactively, c's January is the Wiener process from his prior (1850, sd 100, in
    January) to his first node (March), conditioned on that node (docs/whr.md)."""
    rows = rated[True]
    node, node_rd = rows[(202503, "c")]["rating_after"], rows[(202503, "c")]["rd_after"]
    a, b = RATED_RD**2, W2 * 2  # prior variance in January; January -> March
    weight = a / (a + b)
    c = rows[(202501, "c")]
    assert c["rating_after"] == pytest.approx(1850 + weight * (node - 1850), abs=1e-9)
    assert c["rd_after"] == pytest.approx(math.sqrt(a * b / (a + b) + weight**2 * node_rd**2))
    assert 1850 < c["rating_after"] < node  # March's strong results reach back to January


@pytest.mark.parametrize("retroactive", [True, False])
def test_unplayed_players_change_no_other_rating(rated, retroactive):
    """Rated (z) and unrated (y) players without games leave the fit of the others alone."""
    without = _rows(
        arpad.rate(
            GAMES,
            system="whr",
            players=PLAYERS.filter(~pl.col("player_id").is_in(["y", "z"])),
            retroactive=retroactive,
        )
    )
    with_them = {k: v for k, v in rated[retroactive].items() if k[1] not in ("y", "z")}
    assert sorted(without) == sorted(with_them)
    for key, row in without.items():
        for column in ("rating_after", "rd_after", "games", "score", "status", "performance"):
            assert with_them[key][column] == row[column], (key, column)


def test_players_with_games_keep_the_ratings_of_the_code_before(rated):
    rows = rated[True]
    for key, (rating, rd) in BEFORE.items():
        assert rows[key]["rating_after"] == pytest.approx(rating, abs=1e-6), key
        assert rows[key]["rd_after"] == pytest.approx(rd, abs=1e-6), key
    # the rows the code before left out are the rated players' before their first game
    new = sorted(k for k in rows if k not in BEFORE)
    assert new == [(202501, "c"), (202501, "z"), (202503, "z"), (202504, "z")]


def test_predict_gives_a_probability_for_a_rated_player_who_never_played(rated):
    ratings = arpad.rate(GAMES, system="whr", players=PLAYERS)
    pairs = pl.DataFrame({"white_id": ["z", "c"], "black_id": ["a", "z"]})
    out = arpad.predict(ratings, pairs, system="whr")
    a = rated[True][(202504, "a")]["rating_after"]
    c = rated[True][(202504, "c")]["rating_after"]
    # the estimated white advantage is no part of the ratings: the curve with h = 0
    expected = [1 / (1 + 10 ** (-(2200 - a) / 400)), 1 / (1 + 10 ** (-(c - 2200) / 400))]
    np.testing.assert_allclose(out["expected"].to_numpy(), expected, rtol=1e-12)


def test_no_game_at_all_reports_the_prior_with_its_rd_grown():
    """Every game unrated: the absorbed run (history_reports) and the stepped run agree,
    and the rd grows by w2 per month from the first walked period."""
    from arpad.pipeline.engine import rate_in_memory
    from tests.test_whr import _players

    info = _players(2)
    info.rating = np.array([2000.0, np.nan])
    empty = np.empty(0, dtype=np.int32)
    periods = [(p, empty, empty, np.empty(0), empty) for p in (202401, 202402, 202404)]
    absorbed = rate_in_memory("whr", info, periods)
    stepped = rate_in_memory("whr", info, periods, rules=WhrRules(retroactive=False))
    for period, months in zip((202401, 202402, 202404), (0, 1, 3)):
        for table in (absorbed[period], stepped[period]):
            assert table.column("player_id").to_pylist() == ["0"]
            assert table.column("rating_after").to_pylist() == [2000.0]
            assert table.column("rd_after").to_pylist() == pytest.approx(
                [math.sqrt(RATED_RD**2 + W2 * months)]
            )
