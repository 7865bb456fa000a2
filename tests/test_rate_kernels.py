"""The rate path's kernels at kernel speed (issue 15): per-player powers for the Elo step
and the logistic true performance, checked against naive one-game-at-a-time references.

* Elo: R' = R + K Σ(s − E), E = 1/(1 + 10^(−(R + a·c − R_opp)/400)) summed per player in
  input order, exactly as R PlayerRatings' ``elo_c`` does (one ``pow`` per game);
  the kernel's 10^(R/400)-per-player form must agree to 1e-9 rating points.
* True performance: the root of Σ E(R − R_j) = S (docs/legacy-systems.md), to the
  kernel's documented tolerance of 1e-7 points, against plain bisection.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels import elo, performance
from arpad.kernels.config import by_work
from arpad.kernels.csr import group_by_player
from arpad.pipeline.rules import dp_by_percent


def naive_elo(rating, white, black, score, k, advantage=0.0, scale=400.0):
    """One game at a time, in input order, from the ratings at the start of the period."""
    rating = [float(r) for r in rating]
    expected = [0.0] * len(rating)
    actual = [0.0] * len(rating)
    for w, b, s in zip(white.tolist(), black.tolist(), score.tolist()):
        actual[w] += s
        expected[w] += 1 / (1 + 10 ** ((rating[b] - rating[w] - advantage) / scale))
        actual[b] += 1 - s
        expected[b] += 1 / (1 + 10 ** ((rating[w] - rating[b] + advantage) / scale))
    return np.array([r + k * (a - e) for r, a, e in zip(rating, actual, expected)])


def _games(seed, n, g, spread=250.0):
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n, g).astype(np.int32)
    black = ((white + rng.integers(1, n, g)) % n).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    rating = rng.normal(1600, spread, n)
    return rating, white, black, score


@pytest.mark.parametrize("advantage", [0.0, 35.0])
def test_elo_step_from_powers_equals_the_naive_game_by_game_sum(advantage):
    rating, white, black, score = _games(3, 300, 3000)
    g = group_by_player(white, black, score, rating.size)
    got = elo.elo_period(rating, g.offsets, g.opponent, g.score, g.is_white, 20.0, advantage)
    want = naive_elo(rating, white, black, score, 20.0, advantage)
    np.testing.assert_allclose(got.rating_after, want, rtol=0, atol=1e-9)
    assert np.array_equal(got.games, np.diff(g.offsets))


def test_elo_over_many_periods_stays_within_1e9_of_the_naive_walk():
    rng = np.random.default_rng(5)
    n = 200
    rating = rng.normal(1500, 300, n)
    want = rating.copy()
    for period in range(12):
        _, white, black, score = _games(100 + period, n, 2000)
        g = group_by_player(white, black, score, n)
        rating = elo.elo_period(rating, g.offsets, g.opponent, g.score, g.is_white, 20.0)
        rating = rating.rating_after
        want = naive_elo(want, white, black, score, 20.0)
    np.testing.assert_allclose(rating, want, rtol=0, atol=1e-9)


def test_elo_falls_back_to_a_pow_per_game_when_powers_would_overflow():
    rating, white, black, score = _games(9, 50, 400)
    rating[0] = 400.0 * 300  # 10^300 and 10^-300 around the midpoint: outside the safe span
    rating[1] = -400.0 * 300
    assert elo._power_centre(rating, 0.0, 400.0) is None
    g = group_by_player(white, black, score, rating.size)
    got = elo.elo_period(rating, g.offsets, g.opponent, g.score, g.is_white, 20.0)
    want = naive_elo(rating, white, black, score, 20.0)
    np.testing.assert_allclose(got.rating_after, want, rtol=0, atol=1e-9)
    assert np.isfinite(got.rating_after).all()


def test_elo_powers_serial_and_parallel_are_identical():
    rating, white, black, score = _games(11, 500, 4000)
    g = group_by_player(white, black, score, rating.size)
    args = (rating, g.offsets, g.opponent, g.score, g.is_white, 20.0, 35.0, 400.0, 1600.0)
    kernel = elo._elo_period_powers
    for a, b in zip(kernel(*args), by_work(kernel, 0)(*args)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("advantage", [0.0, 35.0])
def test_elo_from_the_games_in_input_order_equals_the_grouped_step_to_the_bit(advantage):
    # The engine's Elo step walks the games as read, without the grouping by player
    # (pipeline/systems/elo.py): the same sums in the same order, so the same bits,
    # players without games and a game against oneself included.
    rating, white, black, score = _games(13, 400, 5000)
    white[7] = black[7]  # (refused at ingest; the kernel must still agree)
    rating[:20] = np.nan_to_num(rating[:20])
    g = group_by_player(white, black, score, rating.size + 30)
    rating = np.concatenate([rating, np.full(30, 1500.0)])  # 30 players without games
    grouped = elo.elo_period(rating, g.offsets, g.opponent, g.score, g.is_white, 20.0, advantage)
    walked = elo.elo_period_games(rating, white, black, score, 20.0, advantage)
    for a, b in zip(grouped, walked):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    want = naive_elo(rating, white, black, score, 20.0, advantage)
    np.testing.assert_allclose(walked.rating_after, want, rtol=0, atol=1e-9)


def test_elo_from_the_games_defers_to_the_grouping_when_powers_would_overflow():
    rating, white, black, score = _games(9, 50, 400)
    rating[0], rating[1] = 400.0 * 300, -400.0 * 300
    assert elo.elo_period_games(rating, white, black, score, 20.0) is None
    with pytest.raises(ValueError, match="out of range"):
        elo.elo_period_games(rating[:10], white, black, score, 20.0)


def test_the_elo_system_rates_without_grouping_the_games():
    # The CSR grouping is built on first use only (PeriodGames.grouped): an Elo step
    # never asks for it, the performance column does, once, and gets the kernel's own.
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import PeriodGames

    rating, white, black, score = _games(17, 300, 3000)
    sys_ = get_system("elo")
    rules = sys_.rules_type()
    games = PeriodGames.build(1, white, black, score, rating.size)
    state = sys_.initial_state(_info(rating), rules)
    _, report = sys_.step(state, games, rules)
    assert games._grouped is None
    want = naive_elo(rating, white, black, score, rules.k)
    np.testing.assert_allclose(report.columns["rating_after"], want, rtol=0, atol=1e-9)
    first = games.grouped()
    assert games.grouped() is first
    ref = group_by_player(white, black, score, rating.size)
    for a, b in zip(first, ref):
        assert np.array_equal(a, b)
    import pickle

    again = pickle.loads(pickle.dumps(games))
    assert np.array_equal(again.offsets, ref.offsets)


def test_the_light_grouping_lists_the_full_groupings_opponents_and_scores():
    # PeriodGames.opponents (the performance column's grouping): the same offsets,
    # opponents and own scores as the full counting sort, entry for entry, a game
    # against oneself and players without games included.
    from arpad.kernels.csr import _group_opponents
    from arpad.pipeline.systems.base import PeriodGames

    for seed, n, g in ((3, 40, 0), (5, 1, 7), (11, 300, 4000), (19, 5000, 900)):
        rng = np.random.default_rng(seed)
        white = rng.integers(0, n, g).astype(np.int32)
        black = rng.integers(0, n, g).astype(np.int32)  # white == black now and then
        score = rng.choice([0.0, 0.5, 1.0], g)
        ref = group_by_player(white, black, score, n + 3)
        light = _group_opponents(white, black, score, np.int64(n + 3))
        for a, b in zip(light, (ref.offsets, ref.opponent, ref.score)):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        games = PeriodGames.build(1, white, black, score, n + 3)
        got = games.opponents()
        assert games._grouped is None and games.opponents() is got
        for a, b in zip(got, light):
            assert np.array_equal(a, b)
        full = games.grouped()  # built later: opponents() now hands out its arrays
        assert all(
            a is b for a, b in zip(games.opponents(), (full.offsets, full.opponent, full.score))
        )


def test_the_elo_performance_column_groups_only_opponents_and_scores():
    # The engine's performance column of an Elo period: the light grouping, and the
    # values of the kernel on the full one.
    from arpad.pipeline.performance import performance_job
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import PeriodGames

    rating, white, black, score = _games(23, 400, 5000)
    sys_ = get_system("elo")
    rules = sys_.rules_type()
    games = PeriodGames.build(1, white, black, score, rating.size)
    _, report = sys_.step(sys_.initial_state(_info(rating), rules), games, rules)
    column = performance_job(sys_, report, games)()
    assert games._grouped is None and games._opponents is not None
    g = group_by_player(white, black, score, rating.size)
    before = np.asarray(report.columns["rating_before"], dtype=np.float64)
    want = performance.performance_period(
        g.offsets, before, g.score, before, dp_by_percent(), "logistic", opponent=g.opponent
    ).true
    assert np.array_equal(column, want, equal_nan=True)


def _info(rating):
    from arpad.pipeline.systems.base import PlayerInfo

    n = rating.size
    nan = np.full(n, np.nan)
    return PlayerInfo(
        player_id=np.array([f"p{i}" for i in range(n)], dtype=object),
        rating=rating,
        rated_games=np.full(n, -1),
        peak_rating=nan,
        birth_year=np.full(n, -1),
        rd=nan,
        volatility=nan,
        grade=nan,
        sex=np.full(n, None, dtype=object),
    )


def bisection_performance(opponents, target, extra=None):
    """The true performance on the logistic curve by plain bisection (to 1e-9 points)."""

    everyone = [*opponents, *([] if extra is None else [extra])]

    def below_target(r):
        # E(d) = 1 − E(−d): the small side of each term is summed, the whole ones counted,
        # so a term near 1 does not lose its digits.
        small, whole = 0.0, 0
        for o in everyone:
            if r >= o:
                whole += 1
                small -= 1 / (1 + 10 ** ((r - o) / 400))
            else:
                small += 1 / (1 + 10 ** ((o - r) / 400))
        return small < target - whole

    lo, hi = -10_000.0, 15_000.0
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if below_target(mid) else (lo, mid)
    return (lo + hi) / 2


def _true_logistic(rating, g, by_index=True):
    if by_index:
        return performance.performance_period(
            g.offsets, rating, g.score, rating, dp_by_percent(), "logistic", opponent=g.opponent
        )
    return performance.performance_period(
        g.offsets, rating[g.opponent], g.score, rating, dp_by_percent(), "logistic"
    )


def test_true_logistic_performance_is_the_root_to_its_tolerance():
    rating, white, black, score = _games(21, 120, 700, spread=400.0)
    g = group_by_player(white, black, score, rating.size)
    res = _true_logistic(rating, g)
    for p in range(rating.size):
        lo, hi = g.offsets[p], g.offsets[p + 1]
        if lo == hi:
            assert math.isnan(res.true[p])
            continue
        opponents = rating[g.opponent[lo:hi]].tolist()
        target = float(g.score[lo:hi].sum())
        extra = None
        if target in (0.0, float(hi - lo)):  # the virtual draw against the own rating
            extra, target = float(rating[p]), target + 0.5
        assert res.extreme[p] == (extra is not None)
        assert abs(res.true[p] - bisection_performance(opponents, target, extra)) <= 1e-7


def test_opponent_index_and_per_entry_ratings_give_the_same_columns():
    rating, white, black, score = _games(22, 400, 3000)
    g = group_by_player(white, black, score, rating.size)
    a, b = _true_logistic(rating, g), _true_logistic(rating, g, by_index=False)
    for x, y in zip(a, b):
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f")


def test_huge_ratings_use_the_rating_space_solver():
    # |R| beyond POWER_SAFE_RATING: 10^(R/400) would overflow, so the bracketed solver runs.
    opp = np.array([200_000.0, 200_100.0, 199_900.0])
    offsets = np.array([0, 3])
    res = performance.performance_period(
        offsets, opp, np.array([1.0, 0.5, 0.0]), np.array([200_000.0]), dp_by_percent(), "logistic"
    )
    assert abs(res.true[0] - bisection_performance_shifted(opp, 1.5)) <= 1e-7


def bisection_performance_shifted(opponents, target):
    shift = float(np.mean(opponents))
    return shift + bisection_performance([o - shift for o in opponents], target)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-3000, 6000), min_size=1, max_size=12),
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=12, max_size=12),
)
def test_true_logistic_performance_property(opponents, results):
    results = results[: len(opponents)]
    offsets = np.array([0, len(opponents)])
    own = np.array([float(np.mean(opponents))])
    res = performance.performance_period(
        offsets, np.array(opponents), np.array(results), own, dp_by_percent(), "logistic"
    )
    target, extra = sum(results), None
    if target in (0.0, float(len(results))):
        extra, target = float(own[0]), target + 0.5
    assert abs(res.true[0] - bisection_performance(opponents, target, extra)) <= 1e-7


def test_small_calls_never_start_the_threaded_kernels():
    # Every wrapper goes through ``by_work`` (kernels/config.py): below the threshold the
    # serial twin runs and the parallel dispatcher is never compiled or loaded. A fresh
    # process, so that no other test has called a parallel kernel directly.
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from arpad.kernels import elo, expected, fide, glicko, performance\n"
        "from arpad.kernels.csr import group_by_player\n"
        "from arpad.pipeline.rules import dp_by_percent, pd_high_by_diff\n"
        "r = np.array([1500.0, 1600.0, 1700.0])\n"
        "g = group_by_player(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 0.5]), 3)\n"
        "elo.elo_period(r, g.offsets, g.opponent, g.score, g.is_white, 20.0)\n"
        "performance.performance_period(g.offsets, r, g.score, r, dp_by_percent(), 'logistic',"
        " opponent=g.opponent)\n"
        "expected.expected_score_logistic(r, r[::-1])\n"
        "expected.expected_score_fide_table(r.astype(int), r[::-1].astype(int),"
        " pd_high_by_diff())\n"
        "glicko.glicko1_expected_score(r, r / 10, r[::-1], r / 10)\n"
        "fide.fide_initial_rating(np.array([5]), np.array([5]), np.array([8000]),"
        " dp_by_percent())\n"
        "kernels = [elo._elo_period_powers, performance._performance_period,"
        " expected._expected_score_logistic, expected._expected_score_fide_table,"
        " glicko._glicko1_expected_score, fide._fide_initial_rating]\n"
        "used = [k.py_func.__name__ for k in kernels if k.signatures]\n"
        "assert not used, used\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_DISABLE_JIT"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
