"""FIDE Elo: the vectors of docs/rules.md, a naive reference, and properties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.expected import expected_score_fide_table, expected_score_logistic
from arpad.kernels.fide import INITIAL_METHOD_2022, fide_initial_rating, fide_period
from arpad.kernels.rounding import div_round_half_away, round_half_away
from arpad.pipeline.rules import dp_by_percent, pd_high_by_diff
from tests import naive_fide

PD = pd_high_by_diff()
DP = dp_by_percent()


def one_player_period(rating, opponents, scores, k, cap=400, exempt_from=None, kmax=700):
    """Player 0 rated ``rating`` plays ``opponents`` (all rated) with ``scores``."""
    n = len(opponents) + 1
    ratings = np.array([rating, *opponents], dtype=np.int64)
    white = np.zeros(len(opponents), dtype=np.int32)
    black = np.arange(1, n, dtype=np.int32)
    g = group_by_player(white, black, np.array(scores, dtype=np.float64), n)
    res = fide_period(
        ratings,
        np.ones(n, bool),
        np.full(n, k),
        g.offsets,
        g.opponent,
        g.score,
        PD,
        cap=cap,
        exempt_from=exempt_from,
        k_times_games_max=kmax,
    )
    return res


# -- tables (docs/rules.md) ---------------------------------------------------------
def test_table_8_1_1_published_entries_and_antisymmetry():
    assert DP.shape == (101,)
    assert (DP[0], DP[1], DP[29], DP[50], DP[64], DP[83], DP[99], DP[100]) == (
        -800,
        -677,
        -158,
        0,
        102,
        273,
        677,
        800,
    )
    assert all(DP[100 - i] == -DP[i] for i in range(101))


def test_table_8_1_2_ranges_and_mirror_of_8_1_1():
    # Published range bounds (table 8.1.2): 0–3 → .50, 4–10 → .51, 92–98 → .63, 620–735 → .99, >735 → 1.
    assert PD[0] == PD[3] == 50 and PD[4] == PD[10] == 51
    assert PD[92] == PD[98] == 63 and PD[620] == PD[735] == 99 and PD[736] == 100
    assert (np.diff(PD) >= 0).all()
    # "Mirror images": dp(p) lies inside the D range that 8.1.2 maps to PD = p (p = .51 … .99).
    for percent in range(51, 100):
        assert PD[DP[percent]] == percent


def test_expected_fide_table_400_rule_and_2650_exemption():
    own = np.array([2000, 2000, 2750, 2250, 2750, 2700])
    opp = np.array([2520, 1560, 2250, 2750, 2250, 2200])
    capped = expected_score_fide_table(own, opp, PD, cap=400)
    assert capped.tolist() == [0.08, 0.92, 0.92, 0.08, 0.92, 0.92]
    new = expected_score_fide_table(own, opp, PD, cap=400, exempt_from=2650)
    # docs/rules.md D: 2750 vs 2250 uses D = 500 → .96; the 2250 player keeps the cap.
    assert new.tolist() == [0.08, 0.92, 0.96, 0.08, 0.96, 0.96]


# -- rounding -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x, expected", [(0.5, 1), (-0.5, -1), (1.5, 2), (2.5, 3), (-2.5, -3), (0.49, 0), (-0.51, -1)]
)
def test_round_half_away_from_zero(x, expected):
    assert round_half_away(x) == expected


@given(st.integers(-(10**9), 10**9), st.integers(1, 10**6))
def test_div_round_half_away_matches_fractions(num, den):
    assert div_round_half_away(num, den) == naive_fide.round_half_away(Fraction(num, den))


# -- K factor cap (docs/rules.md vectors) ---------------------------------------------------
@pytest.mark.parametrize(
    "k, n, capped", [(40, 18, 38), (40, 20, 35), (20, 35, 20), (20, 36, 19), (10, 71, 9)]
)
def test_k_times_n_at_most_700(k, n, capped):
    res = one_player_period(2000, [2000] * n, [0.5] * n, k)
    assert res.k[0] == capped


# -- worked examples (docs/rules.md, vector #1, #2, #4 in docs/sources.md) -----------------------------------------------
def test_example_a_player_2000_k20():
    res = one_player_period(2000, [1900, 2100, 2520, 1560, 2000], [1, 0.5, 0, 1, 0.5], 20)
    assert res.score2[0] == 6 and res.expected100[0] == 250  # ΣΔR = 3 − 2.50 = +0.50
    assert res.change[0] == 10 and res.rating_after[0] == 2010


def test_example_b_player_2150_k20():
    res = one_player_period(2150, [2260, 2080, 2310, 1990], [0, 1, 0.5, 0.5], 20)
    assert 50 * res.score2[0] - res.expected100[0] == 5  # ΣΔR = +0.05
    assert res.change[0] == 1 and res.rating_after[0] == 2151


def test_2650_rule_win_against_2250():
    # +0.4 from 1 Oct 2025 (D = 500, PD .96), +0.8 under the capped rule (PD .92).
    new = one_player_period(2750, [2250], [1], 10, exempt_from=2650)
    old = one_player_period(2750, [2250], [1], 10)
    assert 10 * (50 * new.score2[0] - new.expected100[0]) == 40  # K·ΣΔR = 0.40
    assert 10 * (50 * old.score2[0] - old.expected100[0]) == 80  # 0.80
    assert (new.change[0], old.change[0]) == (0, 1)  # rounded half away from zero


def test_2650_rule_draw_against_2200():
    new = one_player_period(2700, [2200], [0.5], 10, exempt_from=2650)
    old = one_player_period(2700, [2200], [0.5], 10)
    assert (new.change[0], old.change[0]) == (-5, -4)  # −4.6 and −4.2
    # The lower-rated opponent is below 2650: his difference stays capped at 400.
    assert new.expected100[1] == old.expected100[1] == 8


# -- initial ratings (docs/rules.md, vector #6 in docs/sources.md) -------------------------------------------------
def test_initial_rating_2024_examples():
    ru = fide_initial_rating(np.array([5, 5]), np.array([7, 2]), np.array([9220, 8000]), DP)
    assert ru.tolist() == [1933, 1499]


def test_initial_rating_2022_method():
    # docs/rules.md: same first example under the 2022 rule → Ra 1844, +2 half points → 1884.
    ru = fide_initial_rating(
        np.array([5]), np.array([7]), np.array([9220]), DP, method=INITIAL_METHOD_2022, max_rating=0
    )
    assert ru.tolist() == [1884]


def test_initial_rating_capped_at_2200():
    ru = fide_initial_rating(np.array([5]), np.array([10]), np.array([5 * 2400]), DP)
    assert ru.tolist() == [2200]


@given(st.lists(st.integers(1400, 2800), min_size=1, max_size=12), st.data())
def test_initial_rating_matches_naive(opponents, data):
    score2 = data.draw(st.integers(0, 2 * len(opponents)))
    ru = fide_initial_rating(
        np.array([len(opponents)]), np.array([score2]), np.array([sum(opponents)]), DP
    )
    assert ru[0] == naive_fide.initial_rating(opponents, Fraction(score2, 2))


# -- the period kernel against the naive one-game-at-a-time reference ------------------------
def random_period(rng, n_players, n_games):
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    return white.astype(np.int32), black.astype(np.int32), score


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_period_kernel_matches_naive(seed, exempt):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    ratings = rng.integers(1400, 2850, n)
    k = rng.choice([10, 20, 40], n)
    white, black, score = random_period(rng, n, int(rng.integers(1, 120)))
    g = group_by_player(white, black, score, n)
    exempt_from = 2650 if exempt else None
    res = fide_period(
        ratings, np.ones(n, bool), k, g.offsets, g.opponent, g.score, PD, exempt_from=exempt_from
    )
    for p in range(n):
        games = [
            (int(ratings[b]), Fraction(s).limit_denominator(2))
            for w, b, s in zip(white, black, score)
            if w == p
        ]
        games += [
            (int(ratings[w]), 1 - Fraction(s).limit_denominator(2))
            for w, b, s in zip(white, black, score)
            if b == p
        ]
        if not games:
            assert res.change[p] == 0 and res.games[p] == 0
            continue
        kk = int(k[p])
        while kk * len(games) > 700:
            kk -= 1
        total, change = naive_fide.rated_change(int(ratings[p]), games, kk, exempt_from=exempt_from)
        assert res.k[p] == kk
        assert Fraction(int(50 * res.score2[p] - res.expected100[p]), 100) == total
        assert res.change[p] == change


# -- properties ------------------------------------------------------------------------------
@given(
    st.lists(st.tuples(st.integers(1000, 2999), st.integers(1000, 2999)), min_size=1, max_size=50)
)
def test_expected_scores_sum_to_one(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    table = expected_score_fide_table(a, b, PD) + expected_score_fide_table(b, a, PD)
    assert np.allclose(table, 1.0, atol=1e-12)
    logistic = expected_score_logistic(a, b) + expected_score_logistic(b, a)
    assert np.allclose(logistic, 1.0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_order_of_games_does_not_matter(seed):
    rng = np.random.default_rng(seed)
    n = 25
    ratings = rng.integers(1400, 2800, n)
    white, black, score = random_period(rng, n, 150)
    perm = rng.permutation(white.size)
    results = []
    for w, b, s in ((white, black, score), (white[perm], black[perm], score[perm])):
        g = group_by_player(w, b, s, n)
        results.append(
            fide_period(
                ratings,
                np.ones(n, bool),
                np.full(n, 20),
                g.offsets,
                g.opponent,
                g.score,
                PD,
                exempt_from=2650,
            )
        )
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_equal_k_zero_sum_without_caps(seed):
    """With one K for all and no exemption, Σ K·ΣΔR over players is exactly zero."""
    rng = np.random.default_rng(seed)
    n = 20
    ratings = rng.integers(1400, 2600, n)
    white, black, score = random_period(rng, n, 60)
    g = group_by_player(white, black, score, n)
    res = fide_period(
        ratings,
        np.ones(n, bool),
        np.full(n, 20),
        g.offsets,
        g.opponent,
        g.score,
        PD,
        k_times_games_max=0,
    )
    assert int((20 * (50 * res.score2 - res.expected100)).sum()) == 0


def test_games_against_unrated_opponents_do_not_count():
    ratings = np.array([2000, 0, 1800], dtype=np.int64)
    is_rated = np.array([True, False, True])
    # 0 beats 1 (unrated), 1 draws 2, 0 beats 2 (as Black).
    g = group_by_player(np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([1.0, 0.5, 0.0]), 3)
    res = fide_period(ratings, is_rated, np.full(3, 20), g.offsets, g.opponent, g.score, PD)
    assert res.games.tolist() == [1, 0, 1]  # only the game between the two rated players
    assert res.score2.tolist() == [2, 0, 0]
    # The unrated player's games vs rated opponents feed his initial rating.
    assert res.unrated_games[1] == 2 and res.unrated_opp_sum[1] == 3800
    assert res.unrated_score2[1] == 1  # 0 vs 2000 + ½ vs 1800


def test_kernel_refuses_wrong_shapes():
    with pytest.raises(ValueError):
        fide_period(
            np.zeros(3), np.ones(2, bool), np.zeros(3), np.zeros(4), np.zeros(0), np.zeros(0), PD
        )


# -- §8.2.1: a zero score in the first event is disregarded ---------------------------
def _first_event_period(events):
    """Unrated player 0 meets eight rated 2000s in one month: 0/3 in the first event
    (players 1–3), then 3/5 in the second (wins vs 4–6, losses vs 7–8)."""
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import PeriodGames, PlayerInfo

    n = 9
    nan = np.full(n, np.nan)
    rating = np.array([np.nan, *[2000.0] * 8])
    info = PlayerInfo(
        np.array([f"P{i}" for i in range(n)], dtype=object),
        rating,
        np.full(n, 100),
        nan,
        np.full(n, -1),
        nan,
        nan,
        nan,
        np.full(n, None, dtype=object),
    )
    fide = get_system("fide")
    rules = fide.rules_type()
    state = fide.initial_state(info, rules)
    white = np.zeros(8, dtype=np.int32)
    black = np.arange(1, 9, dtype=np.int32)
    score = np.array([0, 0, 0, 1, 1, 1, 0, 0], dtype=np.float64)
    games = PeriodGames.build(202601, white, black, score, n, events)
    _, report = fide.step(state, games, rules)
    return report


def test_zero_score_in_first_event_is_disregarded_not_the_first_period():
    # E1 (0/3) is disregarded, E2 (3/5 vs 2000) is the pool; 2024 method (docs/rules.md):
    #   Ra = (5 × 2000 + 2 × 1800) / (5 + 2) = 13600 / 7 = 1942.857…
    #   p  = (3 + 1) / 7 = 57.14 % → 57 %, dp(0.57) = +50 (table 8.1.1)
    #   Ru = 1942.857 + 50 = 1992.857 → 1993 (≤ 2200, ≥ 1400: published)
    report = _first_event_period(np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=np.int32))
    assert report.columns["rating_after"][0] == 1993
    assert report.status[0] == 1  # NEW
    # The same eight games as one event: not a zero score, all 8 count:
    #   Ra = (8 × 2000 + 3600) / 10 = 1960, p = (3 + 1) / 10 = 40 %, dp(0.40) = −72 → 1888
    report = _first_event_period(np.full(8, 0, dtype=np.int32))
    assert report.columns["rating_after"][0] == 1888
    # Unknown events (-1): the period is one event, as before.
    report = _first_event_period(np.full(8, -1, dtype=np.int32))
    assert report.columns["rating_after"][0] == 1888


def test_zero_first_event_matches_naive():
    naive = naive_fide.NaiveFide({f"P{i}": 2000 for i in range(1, 9)}, {}, {}, {})
    games = [
        ("P0", f"P{i}", s, e) for i, s, e in zip(range(1, 9), [0, 0, 0, 1, 1, 1, 0, 0], "AAABBBBB")
    ]
    assert naive.period(24312, 2026, games)["P0"] == ("new", 1993, None, None)
    naive = naive_fide.NaiveFide({f"P{i}": 2000 for i in range(1, 9)}, {}, {}, {})
    games = [(w, b, s) for w, b, s, _ in games]  # no events: one event, 3/8 counts
    assert naive.period(24312, 2026, games)["P0"] == ("new", 1888, None, None)
