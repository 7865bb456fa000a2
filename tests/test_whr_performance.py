"""WHR's revised reports carry the performance column (it was empty: the analyst's
attack, 2026-12-03): the true logistic performance of each player's games of the
period against the opponents' ratings as WHR re-estimates them for that month
(docs/legacy-systems.md "Performance"), checked against a bisection written here."""

from __future__ import annotations

import math

import polars as pl

import arpad

GAMES = pl.DataFrame(
    {
        "date": ["2024-01-05"] * 4 + ["2024-02-07"] * 4 + ["2024-04-02"] * 3,
        "white_id": ["a", "b", "c", "a", "b", "c", "d", "a", "a", "b", "d"],
        "black_id": ["b", "c", "d", "c", "d", "a", "a", "d", "b", "c", "c"],
        "score": [1.0, 0.5, 0.0, 1.0, 0.0, 0.5, 1.0, 1.0, 0.5, 0.0, 1.0],
    }
)


def naive_performance(opponents: list[float], score: float, own: float) -> float:
    """R with sum of 1 / (1 + 10^((R_j - R) / 400)) = score, by bisection; a 0 % or 100 %
    score adds a virtual draw against ``own`` (docs/legacy-systems.md)."""
    if score in (0.0, float(len(opponents))):
        opponents, score = [*opponents, own], score + 0.5

    def f(r):
        return sum(1 / (1 + 10 ** ((o - r) / 400)) for o in opponents) - score

    lo, hi = -5000.0, 10000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def test_whr_performance_is_the_true_performance_at_the_months_ratings():
    ratings = arpad.rate(GAMES, system="whr")
    at = {(r["player_id"], r["period"]): r for r in ratings.iter_rows(named=True)}
    checked = 0
    for period in sorted({r["period"] for r in ratings.iter_rows(named=True)}):
        month = GAMES.filter(
            pl.col("date").str.slice(0, 7).str.replace("-", "").cast(pl.Int32) == period
        )
        for player in "abcd":
            row = at.get((player, period))
            if row is None or row["games"] == 0:
                continue
            opponents, score = [], 0.0
            for w, b, s in month.select("white_id", "black_id", "score").iter_rows():
                if player in (w, b):
                    other = b if player == w else w
                    opponents.append(at[(other, period)]["rating_after"])
                    score += s if player == w else 1 - s
            want = naive_performance(opponents, score, row["rating_after"])
            assert math.isclose(row["performance"], want, abs_tol=1e-5), (player, period)
            checked += 1
    assert checked == 12  # every player-period with games: 4 in each of the 3 months
    assert (
        ratings.filter(pl.col("games") == 0)["performance"].null_count()
        == ratings.filter(pl.col("games") == 0).height
    )
