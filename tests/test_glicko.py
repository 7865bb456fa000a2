"""Glicko-1 and Glicko-2: Glickman's published examples, the naive reference, properties,
and the systems end to end through the engine (docs/glicko.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.glicko import (
    glicko1_expected_score,
    glicko1_period,
    glicko2_period,
    glicko2_volatility,
)
from arpad.pipeline import catalog
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from tests import naive_glicko
from tests.conftest import write_csv

# Glickman's example: player 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.
PAPER_R = np.array([1500.0, 1400.0, 1550.0, 1700.0])
PAPER_RD = np.array([200.0, 30.0, 100.0, 300.0])
PAPER_GAMES = (np.array([0, 0, 0]), np.array([1, 2, 3]), np.array([1.0, 0.0, 0.0]))


def _csr(white, black, score, n):
    g = group_by_player(
        np.asarray(white, np.int32), np.asarray(black, np.int32), np.asarray(score, float), n
    )
    return g.offsets, g.opponent, g.score, g.is_white


def test_glicko1_paper_example():
    # "The Glicko system", p. 3: r' = 1464, RD' = 151.4 (paper rounds g and E);
    # RD'² = 22918.9 → 151.39 at full precision.
    res = glicko1_period(
        PAPER_R, PAPER_RD, np.ones(4, bool), *_csr(*PAPER_GAMES, 4), c=0.0, rd_min=0.0
    )
    assert round(res.rating_after[0]) == 1464
    assert res.rating_after[0] == pytest.approx(1464.1, abs=0.05)
    assert res.rd_after[0] == pytest.approx(151.39, abs=0.01)
    assert res.expected[0] == pytest.approx(0.639 + 0.432 + 0.303, abs=0.002)


def test_glicko1_expected_with_both_rds():
    # Glicko paper: 1400/80 vs 1500/150 → g(170) = 0.88, E = 0.376.
    e = glicko1_expected_score(np.array([1400.0]), np.array([80.0]), [1500.0], [150.0])
    assert e[0] == pytest.approx(0.376, abs=0.0005)
    # symmetric: the two players' expectations sum to 1
    f = glicko1_expected_score([1500.0], [150.0], [1400.0], [80.0])
    assert e[0] + f[0] == pytest.approx(1.0, abs=1e-12)


def test_glicko2_paper_example():
    # "Example of the Glicko-2 system" (2013): r' 1464.06, RD' 151.52, σ' 0.05999;
    # full precision (docs/glicko.md, sublee/glicko2's test): 1464.0507 / 151.5165 / 0.0599960.
    res = glicko2_period(
        PAPER_R, PAPER_RD, np.full(4, 0.06), np.ones(4, bool), *_csr(*PAPER_GAMES, 4), tau=0.5
    )
    assert res.rating_after[0] == pytest.approx(1464.06, abs=0.01)
    assert res.rd_after[0] == pytest.approx(151.52, abs=0.01)
    assert res.rating_after[0] == pytest.approx(1464.0507, abs=1e-4)
    assert res.rd_after[0] == pytest.approx(151.5165, abs=1e-4)
    assert res.volatility_after[0] == pytest.approx(0.0599960, abs=1e-7)
    assert res.iterations[0] == 2 and res.converged[0]


def test_glicko2_paper_intermediate_quantities():
    # v = 1.778977, Δ = −0.483933 (full precision), A0 = −5.62682, iterations 2.
    phi = 200 / 173.7178
    mus = (np.array([1400.0, 1550.0, 1700.0]) - 1500) / 173.7178
    phis = np.array([30.0, 100.0, 300.0]) / 173.7178
    g = 1 / np.sqrt(1 + 3 * phis**2 / math.pi**2)
    e = 1 / (1 + np.exp(-g * (0 - mus)))
    v = 1 / np.sum(g**2 * e * (1 - e))
    delta = v * np.sum(g * (np.array([1.0, 0.0, 0.0]) - e))
    assert v == pytest.approx(1.778977, abs=1e-6)
    assert delta == pytest.approx(-0.483933, abs=1e-6)
    sigma, its, ok = glicko2_volatility(phi, v, delta, 0.06, 0.5, 1e-6, 100)
    assert sigma == pytest.approx(0.0599960, abs=1e-7) and its == 2 and ok


def test_volatility_iteration_is_capped_and_reported():
    phi = 200 / 173.7178
    sigma, its, ok = glicko2_volatility(phi, 1.778977, -0.483933, 0.06, 0.5, 1e-6, 1)
    assert not ok and its == 1 and 0.05 < sigma < 0.07
    # an input that never converges (NaN) still stops at the cap and is flagged
    sigma, its, ok = glicko2_volatility(phi, 1.0, math.nan, 0.06, 0.5, 1e-6, 25)
    assert not ok and its <= 25 and sigma == 0.06
    res = glicko2_period(
        PAPER_R,
        PAPER_RD,
        np.full(4, 0.06),
        np.ones(4, bool),
        *_csr(*PAPER_GAMES, 4),
        max_iterations=1,
    )
    assert not res.converged[0] and np.isfinite(res.rating_after).all()


def test_volatility_iteration_landing_on_the_root_is_converged():
    """A Kaggle 2010 player whose Illinois step lands on f(C) == 0 exactly: the step's
    test f(C)·f(B) < 0 never moved A again, so the loop ran out its 100 iterations and
    flagged e^{A/2} = 0.1814180 as not converged."""
    phi, v, delta, sigma, tau = (
        0.27985903969358855,
        0.12042753526594126,
        3.8165560166755066,
        0.15813471795141287,
        0.25,
    )
    got, its, ok = glicko2_volatility(phi, v, delta, sigma, tau, 1e-6, 100)
    assert ok and its < 100
    # a naive bisection of Glickman's f on the bracket gives the same root
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / tau**2

    lo, hi = math.log(delta * delta - phi * phi - v), a
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) * f(lo) > 0 else (lo, mid)
    assert got == pytest.approx(math.exp(lo / 2), abs=1e-7)
    assert abs(got - 0.1814180) > 3e-7  # not the old capped iterate


def _random_period(seed, n=12, g=30):
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n, g)
    black = (white + 1 + rng.integers(0, n - 1, g)) % n
    score = rng.choice([0.0, 0.5, 1.0], g)
    rating = rng.normal(1600, 250, n)
    rd = rng.uniform(30, 350, n)
    sigma = rng.uniform(0.03, 0.1, n)
    known = rng.random(n) < 0.8
    return white, black, score, rating, rd, sigma, known


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("elapsed", [1, 3])
def test_glicko1_kernel_matches_naive(seed, elapsed):
    white, black, score, rating, rd, _, known = _random_period(seed)
    n = rating.size
    adv = 35.0 if seed % 2 else 0.0
    res = glicko1_period(
        rating, rd, known, *_csr(white, black, score, n), elapsed, 40.0, 350.0, 30.0, adv
    )
    games = list(zip(white.tolist(), black.tolist(), score.tolist(), strict=True))
    r, d = naive_glicko.glicko1_period(
        dict(enumerate(rating)),
        dict(enumerate(rd)),
        set(np.flatnonzero(known).tolist()),
        games,
        elapsed,
        40.0,
        350.0,
        30.0,
        adv,
    )
    np.testing.assert_allclose(res.rating_after, [r[i] for i in range(n)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.rd_after, [d[i] for i in range(n)], rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("elapsed", [1, 4])
def test_glicko2_kernel_matches_naive(seed, elapsed):
    white, black, score, rating, rd, sigma, known = _random_period(seed)
    n = rating.size
    adv = 35.0 if seed % 2 else 0.0
    res = glicko2_period(
        rating,
        rd,
        sigma,
        known,
        *_csr(white, black, score, n),
        elapsed=elapsed,
        tau=0.6,
        white_advantage=adv,
    )
    games = list(zip(white.tolist(), black.tolist(), score.tolist(), strict=True))
    r, d, s = naive_glicko.glicko2_period(
        dict(enumerate(rating)),
        dict(enumerate(rd)),
        dict(enumerate(sigma)),
        set(np.flatnonzero(known).tolist()),
        games,
        elapsed,
        0.6,
        350.0,
        0.0,
        adv,
    )
    assert res.converged.all()
    np.testing.assert_allclose(res.rating_after, [r[i] for i in range(n)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.rd_after, [d[i] for i in range(n)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.volatility_after, [s[i] for i in range(n)], rtol=0, atol=1e-12)


opponents = st.lists(
    st.tuples(
        st.floats(1000, 2400),
        st.floats(30, 350),
        st.sampled_from([0.0, 0.5, 1.0]),
    ),
    min_size=1,
    max_size=8,
)


def _one_player(opps, r=1500.0, rd=120.0):
    rating = np.array([r, *[o[0] for o in opps]])
    rds = np.array([rd, *[o[1] for o in opps]])
    k = len(opps)
    return rating, rds, _csr(np.zeros(k), np.arange(1, k + 1), [o[2] for o in opps], k + 1)


@settings(max_examples=60, deadline=None)
@given(opponents, st.tuples(st.floats(1000, 2400), st.floats(30, 350), st.sampled_from([0, 1.0])))
def test_glicko1_more_games_never_increase_rd(opps, extra):
    rating, rds, csr = _one_player(opps)
    rating2, rds2, csr2 = _one_player([*opps, extra])
    known = np.ones(rating.size, bool)
    a = glicko1_period(rating, rds, known, *csr, c=50.0, rd_min=0.0)
    b = glicko1_period(rating2, rds2, np.ones(rating2.size, bool), *csr2, c=50.0, rd_min=0.0)
    assert a.rd_after[0] <= a.rd_pre[0]
    assert b.rd_after[0] <= a.rd_after[0] + 1e-9


@settings(max_examples=60, deadline=None)
@given(opponents, st.floats(0.03, 0.09))
def test_glicko2_games_never_increase_rd_above_the_grown_rd(opps, sigma):
    # With games, φ' = 1/√(1/φ*² + 1/v) < φ* = √(φ² + σ'²); σ' stays near σ for τ = 0.5.
    rating, rds, csr = _one_player(opps)
    res = glicko2_period(rating, rds, np.full(rating.size, sigma), np.ones(rating.size, bool), *csr)
    grown = math.sqrt(rds[0] ** 2 + (173.7178 * res.volatility_after[0]) ** 2)
    assert res.rd_after[0] < grown
    assert res.converged[0]


@settings(max_examples=40, deadline=None)
@given(st.floats(1000, 2400), st.floats(30, 340), st.integers(1, 40), st.floats(0.02, 0.2))
def test_non_player_keeps_rating_and_gains_rd(r, rd, elapsed, sigma):
    rating = np.array([r, 1500.0, 1600.0])
    rds = np.array([rd, 100.0, 100.0])
    csr = _csr([1], [2], [1.0], 3)  # player 0 does not play
    known = np.ones(3, bool)
    a = glicko1_period(rating, rds, known, *csr, elapsed=elapsed, c=30.0)
    assert a.rating_after[0] == r
    assert a.rd_after[0] == pytest.approx(min(math.sqrt(rd**2 + 900 * elapsed), 350.0))
    assert a.rd_after[0] >= rd
    b = glicko2_period(rating, rds, np.full(3, sigma), known, *csr, elapsed=elapsed)
    assert b.rating_after[0] == r and b.volatility_after[0] == sigma
    grown = min(math.sqrt((rd / 173.7178) ** 2 + elapsed * sigma**2) * 173.7178, 350.0)
    assert b.rd_after[0] == pytest.approx(grown, rel=1e-12)
    assert b.rd_after[0] >= rd


@pytest.mark.parametrize("seed", range(3))
def test_order_of_games_does_not_matter(seed):
    white, black, score, rating, rd, sigma, known = _random_period(seed, g=40)
    n = rating.size
    perm = np.random.default_rng(seed + 100).permutation(white.size)
    for kernel, args in (
        (glicko1_period, (rating, rd, known)),
        (glicko2_period, (rating, rd, sigma, known)),
    ):
        a = kernel(*args, *_csr(white, black, score, n))
        b = kernel(*args, *_csr(white[perm], black[perm], score[perm], n))
        np.testing.assert_allclose(a.rating_after, b.rating_after, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a.rd_after, b.rd_after, rtol=0, atol=1e-9)


def test_kernels_refuse_wrong_shapes():
    with pytest.raises(ValueError):
        glicko1_period(PAPER_R, PAPER_RD[:3], np.ones(4, bool), *_csr(*PAPER_GAMES, 4))
    with pytest.raises(ValueError):
        glicko2_period(
            PAPER_R, PAPER_RD, np.full(4, 0.06), np.ones(4, bool), np.zeros(3), [], [], []
        )


# ------------------------------------------------------------- through the engine

MONTHS = (202401, 202402, 202404)  # 202403 has no games: elapsed 2 before 202404


def _store_with_games(tmp_path, store, seed=7):
    rng = np.random.default_rng(seed)
    ids = [f"P{i:02d}" for i in range(10)]
    players = ["P00,1500,200,0.06", "P01,1400,30,", "P02,1550,100,0.05", "P03,1700,,"]
    rows, by_month = [], {}
    for m in MONTHS:
        lst = []
        for _ in range(12):
            w, b = rng.choice(len(ids), 2, replace=False)
            s = float(rng.choice([0.0, 0.5, 1.0]))
            rows.append(f"{m // 100}-{m % 100:02d}-15,{ids[w]},{ids[b]},{s}")
            lst.append((ids[w], ids[b], s))
        by_month[m] = lst
    pfile = write_csv(tmp_path / "players.csv", "player_id,rating,rd,volatility", players)
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score", rows)
    ingest_files(store, [gfile], players=[pfile])
    return ids, by_month


def _naive_run(system, ids, by_month, **kw):
    rating = {p: 1500.0 for p in ids}
    rd = {p: 350.0 for p in ids}
    sigma = {p: 0.06 for p in ids}
    rating.update({"P00": 1500.0, "P01": 1400.0, "P02": 1550.0, "P03": 1700.0})
    rd.update({"P00": 200.0, "P01": 30.0, "P02": 100.0})
    sigma.update({"P02": 0.05})
    known = {"P00", "P01", "P02", "P03"}
    out = {}
    prev = None
    for m in MONTHS:
        elapsed = 1 if prev is None else (m - prev if m - prev < 12 else 1)
        games = by_month[m]
        if system == "glicko":
            rating, rd = naive_glicko.glicko1_period(rating, rd, known, games, elapsed, **kw)
        else:
            rating, rd, sigma = naive_glicko.glicko2_period(
                rating, rd, sigma, known, games, elapsed, **kw
            )
        known |= {p for g in games for p in g[:2]}
        out[m] = (dict(rating), dict(rd), dict(sigma))
        prev = m
    return out


@pytest.mark.parametrize(
    "system, overrides, naive_kw",
    [
        ("glicko", {"c": "20", "white_advantage": "30"}, {"c": 20.0, "rd_min": 30.0, "white_advantage": 30.0}),
        ("glicko2", {"tau": "0.4", "white_advantage": "30"}, {"tau": 0.4, "white_advantage": 30.0}),
    ],
)  # fmt: skip
def test_system_through_engine_matches_naive(tmp_path, store, system, overrides, naive_kw):
    ids, by_month = _store_with_games(tmp_path, store)
    summary = rate(store, system, overrides=overrides)
    assert summary.periods == list(MONTHS)
    expected = _naive_run(system, ids, by_month, **naive_kw)
    con = catalog.connect(store)
    try:
        for m in MONTHS:
            rows = con.execute(
                "SELECT player_id, rating_after, rd_after, volatility_after, rd_before, status "
                "FROM ratings WHERE system = ? AND period = ? ORDER BY player_id",
                [system, m],
            ).fetchall()
            r, d, s = expected[m]
            assert rows, m
            for pid, r_after, rd_after, vol_after, rd_before, status in rows:
                assert r_after == pytest.approx(r[pid], abs=1e-9), (m, pid)
                assert rd_after == pytest.approx(d[pid], abs=1e-9), (m, pid)
                assert rd_before is not None and status in ("rated", "inactive")
                if system == "glicko2":
                    assert vol_after == pytest.approx(s[pid], abs=1e-12)
                else:
                    assert vol_after is None
        # the 95 % interval view: r ± 1.96 RD
        lo, hi, r_, d_ = con.execute(
            "SELECT lower_95, upper_95, rating, rd FROM rating_intervals "
            "WHERE system = ? AND period = 202404 AND player_id = 'P00'",
            [system],
        ).fetchone()
        assert lo == pytest.approx(r_ - 1.96 * d_) and hi == pytest.approx(r_ + 1.96 * d_)
    finally:
        con.close()


def test_glicko_interval_of_the_paper():
    # "The Glicko system": r 1500, RD 30 → 95 % interval (1441, 1559).
    assert (round(1500 - 1.96 * 30), round(1500 + 1.96 * 30)) == (1441, 1559)


@pytest.mark.slow
def test_kaggle_2010_runs_for_all_glicko_systems(tmp_path, bundled_data):
    from arpad.pipeline.store import Store

    store = Store(tmp_path / "kaggle")
    ingest_files(store, [bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"])
    for system in ("glicko", "glicko2"):
        s = rate(store, system, refresh_catalog=False)
        assert len(s.periods) == 100 and s.games == 65053
