"""Whole-History Rating: kernel vs the naive dense-Newton reference, properties, the system."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.whr import whr_fit, whr_variance
from arpad.pipeline.backtest import Games, period_games
from arpad.pipeline.systems.base import PlayerInfo
from arpad.pipeline.systems.whr import WhrRules, WhrSystem
from tests import naive_whr
from tests.conftest import results


def build(games_pm, n_players):
    """games_pm: list of (white, black, month, score). Returns kernel inputs and naive nodes."""
    keys = sorted({(w, m) for w, _, m, _ in games_pm} | {(b, m) for _, b, m, _ in games_pm})
    node = {k: i for i, k in enumerate(keys)}
    node_player = np.array([p for p, _ in keys], dtype=np.int64)
    node_month = np.array([m for _, m in keys], dtype=np.int64)
    node_offsets = np.searchsorted(node_player, np.arange(n_players + 1)).astype(np.int64)
    wn = np.array([node[(w, m)] for w, _, m, _ in games_pm], dtype=np.int64)
    bn = np.array([node[(b, m)] for _, b, m, _ in games_pm], dtype=np.int64)
    score = np.array([s for *_, s in games_pm], dtype=np.float64)
    g = group_by_player(wn, bn, score, len(keys))
    return keys, node_offsets, node_month, wn, bn, score, g


def kernel_fit(games_pm, n_players, prior_mean, prior_var, w2, h=0.0, estimate=False, **kw):
    keys, offsets, months, wn, bn, score, g = build(games_pm, n_players)
    start = np.asarray(prior_mean)[offsets.searchsorted(np.arange(len(keys)), side="right") - 1]
    res = whr_fit(
        start, offsets, months, prior_mean, prior_var, g.offsets, g.opponent, g.score,
        g.is_white, wn, bn, score, w2=w2, white_advantage=h, estimate_white_advantage=estimate,
        tolerance=1e-10, max_sweeps=5000, **kw,
    )  # fmt: skip
    return keys, res, (offsets, months, g)


def naive_fit(games_pm, keys, prior_mean, prior_var, w2, h=0.0, estimate=False):
    node = {k: i for i, k in enumerate(keys)}
    games = [(node[(w, m)], node[(b, m)], s) for w, b, m, s in games_pm]
    priors = {p: (prior_mean[p], prior_var[p]) for p in {p for p, _ in keys}}
    return naive_whr.fit(keys, games, priors, w2, h=h, estimate_h=estimate)


def random_games(rng, n_players, n_games, months):
    out = []
    for _ in range(n_games):
        w, b = rng.choice(n_players, 2, replace=False)
        out.append(
            (int(w), int(b), int(rng.integers(1, months + 1)), float(rng.choice([0, 0.5, 1])))
        )
    return out


@pytest.mark.parametrize("estimate", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernel_reaches_the_naive_maximum(seed, estimate):
    rng = np.random.default_rng(seed)
    n = 8
    games = random_games(rng, n, 60, 6)
    prior_mean = rng.normal(1500, 100, n)
    prior_var = rng.uniform(100, 300, n) ** 2
    keys, res, _ = kernel_fit(games, n, prior_mean, prior_var, w2=400.0, h=20.0, estimate=estimate)
    x, h = naive_fit(games, keys, prior_mean, prior_var, 400.0, h=20.0, estimate=estimate)
    assert res.converged
    np.testing.assert_allclose(res.rating, x, atol=1e-6)
    assert res.white_advantage == pytest.approx(h, abs=1e-6)


def test_variance_is_the_inverse_of_the_players_own_hessian_block():
    rng = np.random.default_rng(7)
    n = 5
    games = random_games(rng, n, 40, 5)
    prior_mean = np.full(n, 1500.0)
    prior_var = np.full(n, 200.0**2)
    keys, res, (offsets, months, g) = kernel_fit(games, n, prior_mean, prior_var, w2=300.0)
    var = whr_variance(
        res.rating, offsets, months, prior_mean, prior_var, g.offsets, g.opponent, g.score,
        g.is_white, w2=300.0,
    )  # fmt: skip
    # dense negative Hessian of the log-posterior by central differences, player by player
    node = {k: i for i, k in enumerate(keys)}
    ng = [(node[(w, m)], node[(b, m)], s) for w, b, m, s in games]
    priors = {p: (1500.0, 200.0**2) for p in range(n)}

    def f(x):
        return naive_whr.log_posterior(x, 0.0, keys, ng, priors, 300.0)

    eps = 1e-2
    for p in range(n):
        ks = list(range(offsets[p], offsets[p + 1]))
        block = np.zeros((len(ks), len(ks)))
        for i, a in enumerate(ks):
            for j, b in enumerate(ks):
                x = res.rating.copy()
                vals = []
                for da, db in ((eps, eps), (eps, -eps), (-eps, eps), (-eps, -eps)):
                    y = x.copy()
                    y[a] += da
                    y[b] += db
                    vals.append(f(y))
                block[i, j] = -(vals[0] - vals[1] - vals[2] + vals[3]) / (4 * eps * eps)
        np.testing.assert_allclose(var[ks], np.diag(np.linalg.inv(block)), rtol=1e-4)


def test_symmetric_results_give_equal_ratings():
    # A beats B and B beats A in the same month, equal priors: both stay at the prior mean.
    games = [(0, 1, 1, 1.0), (1, 0, 1, 1.0)]
    _, res, _ = kernel_fit(games, 2, np.full(2, 1500.0), np.full(2, 300.0**2), w2=100.0)
    np.testing.assert_allclose(res.rating, [1500.0, 1500.0], atol=1e-8)


def test_one_win_against_a_fixed_opponent_solves_the_stationarity_equation():
    # Player 0 (prior N(1500, 200²)) beats player 1, whose prior is nearly a point mass at
    # 1500: the MAP x solves ln10/400 · (1 − E(x − 1500)) = (x − 1500)/200².
    games = [(0, 1, 1, 1.0)]
    _, res, _ = kernel_fit(games, 2, np.full(2, 1500.0), np.array([200.0**2, 1e-6]), w2=100.0)
    x = res.rating[0]
    e = 1.0 / (1.0 + 10 ** (-(x - res.rating[1]) / 400))
    assert math.log(10) / 400 * (1 - e) == pytest.approx((x - 1500) / 200.0**2, rel=1e-6)
    assert 1500 < x < 1600


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-500, 500))
def test_order_of_games_and_a_common_shift(seed, shift):
    rng = np.random.default_rng(seed)
    n = 6
    games = random_games(rng, n, 25, 4)
    mean = rng.normal(1500, 80, n)
    var = np.full(n, 150.0**2)
    _keys, a, _ = kernel_fit(games, n, mean, var, w2=200.0, estimate=True)
    perm = [games[i] for i in rng.permutation(len(games))]
    _, b, _ = kernel_fit(perm, n, mean, var, w2=200.0, estimate=True)
    np.testing.assert_allclose(a.rating, b.rating, atol=1e-6)
    _, c, _ = kernel_fit(games, n, mean + shift, var, w2=200.0, estimate=True)
    np.testing.assert_allclose(c.rating, a.rating + shift, atol=1e-6)
    assert c.white_advantage == pytest.approx(a.white_advantage, abs=1e-6)


def test_rejects_bad_inputs():
    _keys, offsets, months, wn, bn, score, g = build([(0, 1, 1, 1.0)], 2)
    args = (np.zeros(2), offsets, months, np.zeros(2), np.ones(2))
    rest = (g.offsets, g.opponent, g.score, g.is_white, wn, bn, score)
    with pytest.raises(ValueError):
        whr_fit(*args, *rest, w2=0.0)
    with pytest.raises(ValueError):
        whr_fit(np.zeros(2), offsets, months, np.zeros(3), np.ones(3), *rest, w2=1.0)


def _players(n):
    nan = np.full(n, np.nan)
    return PlayerInfo(
        player_id=np.array([str(i) for i in range(n)], dtype=object), rating=nan.copy(),
        rated_games=np.full(n, -1), peak_rating=nan.copy(), birth_year=np.full(n, -1),
        rd=nan.copy(), volatility=nan.copy(), grade=nan.copy(), sex=np.full(n, None, dtype=object),
    )  # fmt: skip


def _walk(system, rules, periods, absorb=False):
    state = system.initial_state(_players(6), rules)
    previous = None
    reports = {}
    for i, (period, g) in enumerate(periods):
        pg = period_games(period, previous, g, 6)
        if absorb and i < len(periods) - 1:
            state = system.absorb(state, pg, rules)
        else:
            state, reports[period] = system.step(state, pg, rules)
        previous = period
    return state, reports


def _periods(seed):
    rng = np.random.default_rng(seed)
    out = []
    for period in (1, 2, 4):
        w = rng.integers(0, 6, 10)
        b = (w + rng.integers(1, 6, 10)) % 6
        s = rng.choice([0.0, 0.5, 1.0], 10)
        out.append((period, Games(np.full(10, period), w.astype(np.int32), b.astype(np.int32), s)))
    return out


@pytest.mark.parametrize("passes", [0, 2])
def test_system_steps_equal_one_fit_of_all_games(passes):
    """Stepping every period ends where absorbing all and fitting once ends (unique MAP)."""
    system = WhrSystem()
    rules = WhrRules(tolerance=1e-9, max_sweeps=5000, opponent_prior_passes=passes)
    stepped, reports = _walk(system, rules, _periods(5))
    absorbed, _ = _walk(system, rules, _periods(5), absorb=True)
    np.testing.assert_allclose(stepped.players["rating"], absorbed.players["rating"], atol=1e-6)
    np.testing.assert_allclose(stepped.players["rd"], absorbed.players["rd"], atol=1e-6)
    # the last report's ratings are the state's; history_reports' last period agrees too
    np.testing.assert_allclose(reports[4].columns["rating_after"], stepped.players["rating"])
    history = system.history_reports(stepped, [1, 2, 4], rules)
    np.testing.assert_allclose(
        history[4].columns["rating_after"], stepped.players["rating"], atol=1e-6
    )
    # games counted once per side per period
    assert int(history[2].columns["games"].sum()) == 20


def test_history_interpolates_between_nodes():
    system = WhrSystem()
    rules = WhrRules(tolerance=1e-9, max_sweeps=5000, white_advantage=0.0)
    one = Games(np.array([1]), np.array([0], np.int32), np.array([1], np.int32), np.array([1.0]))
    three = Games(np.array([3]), np.array([0], np.int32), np.array([1], np.int32), np.array([0.0]))
    state, _ = _walk(system, rules, [(1, one), (3, three)])
    hist = system.history_reports(state, [1, 2, 3], rules)
    r1, r2, r3 = (hist[p].columns["rating_after"][0] for p in (1, 2, 3))
    assert r2 == pytest.approx((r1 + r3) / 2)
    assert r1 > 1500 > r3  # won in month 1, lost in month 3
    assert hist[2].status[0] != hist[1].status[0]  # inactive in month 2, rated in 1
    assert np.isnan(hist[1].columns["rating_after"][5])  # never played: not reported


def test_rate_writes_retroactive_history(store, tmp_path):
    """arpad rate --system whr: the last period is the as-of estimate; earlier periods are
    revised with the later games (retroactive=false keeps the as-of estimates)."""
    from arpad.pipeline import engine
    from arpad.pipeline.ingest import ingest_files
    from tests.conftest import write_csv

    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result",
        ["2024-01-05,a,b,1-0", "2024-01-06,b,c,1/2-1/2", "2024-02-03,c,a,1-0"],
    )
    ingest_files(store, [games])

    def ratings():
        con = store.root / "ratings"
        import pyarrow.dataset as pads

        t = pads.dataset(con / "system=whr", partitioning="hive").to_table()
        return {
            (p, i): r
            for p, i, r in zip(
                t["period"].to_pylist(), t["player_id"].to_pylist(), t["rating_after"].to_pylist()
            )
        }

    engine.rate(store, "whr", overrides={"retroactive": "false"})
    as_of = ratings()
    engine.rate(store, "whr")
    retro = ratings()
    assert retro[(202402, "a")] == pytest.approx(as_of[(202402, "a")], abs=1e-3)
    # a's January win looks less impressive once February's loss to c is known
    assert retro[(202401, "a")] < as_of[(202401, "a")] - 1


def test_rate_absorbs_until_the_last_period_and_equals_stepping_each(store, tmp_path, monkeypatch):
    """With retroactive on, every period's report is replaced at the end of the run, so
    the engine absorbs the periods before the last one (one refit instead of one per
    period: 60 -> 6 s on the Kaggle 2010 store) and the result is the stepped run's:
    the fit is the unique maximum of the posterior of all games, reached from another
    warm start (equal within the fit's tolerance)."""
    from arpad.pipeline import engine
    from arpad.pipeline.ingest import ingest_files
    from tests.conftest import write_csv

    rng = np.random.default_rng(3)
    rows = []
    for month in range(1, 9):
        for _ in range(12):
            w, b = rng.choice(7, 2, replace=False)
            rows.append(f"2024-{month:02d}-10,p{w},p{b},{rng.choice(['1-0', '0-1', '1/2-1/2'])}")
    ingest_files(store, [write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", rows)])
    fits = []
    # The fits of this process are counted: no tiny rating loading the kernels beside
    # each run (pipeline/warm.py ``beside``), whose fit would be counted too.
    monkeypatch.setenv("ARPAD_LOAD_BESIDE", "0")
    real_fit = WhrSystem.fit
    monkeypatch.setattr(WhrSystem, "fit", lambda self, s, r: fits.append(1) or real_fit(self, s, r))

    def all_ratings():
        return {
            p: results(store.read_ratings("whr", "standard", p))
            for p in store.rating_periods("whr", "standard")
        }

    overrides = {"tolerance": "1e-7", "max_sweeps": "100000"}
    summary = engine.rate(store, "whr", overrides=overrides)
    absorbed, absorbed_fits = all_ratings(), len(fits)
    assert summary.periods == list(range(202401, 202409))
    assert summary.rows_written == sum(t.num_rows for t in absorbed.values())
    monkeypatch.setattr(WhrSystem, "revises_history", lambda self, rules: False)
    fits.clear()
    engine.rate(store, "whr", overrides=overrides)
    stepped, stepped_fits = all_ratings(), len(fits)
    assert absorbed_fits == 2 and stepped_fits == 9  # last step + history; every step + history
    assert sorted(absorbed) == sorted(stepped) == list(range(202401, 202409))
    for p in stepped:
        a, b = absorbed[p], stepped[p]
        assert a.column("player_id").equals(b.column("player_id"))
        assert a.column("status").equals(b.column("status"))
        np.testing.assert_allclose(
            a.column("rating_after").to_numpy(zero_copy_only=False),
            b.column("rating_after").to_numpy(zero_copy_only=False),
            atol=1e-4,
        )


def test_periods_without_games_are_reported_as_a_step_would(monkeypatch):
    """No game in any period (e.g. every game unrated): the absorbed periods still get the
    reports a step gives (players with a starting rating, inactive), not nothing."""
    from arpad.pipeline.engine import rate_in_memory

    info = _players(3)
    info.rating = np.array([2000.0, np.nan, 1800.0])
    empty = np.empty(0, dtype=np.int32)
    periods = [(p, empty, empty, np.empty(0), empty) for p in (202401, 202402, 202403)]
    absorbed = rate_in_memory("whr", info, periods)
    monkeypatch.setattr(WhrSystem, "revises_history", lambda self, rules: False)
    stepped = rate_in_memory("whr", info, periods)
    assert sorted(absorbed) == sorted(stepped) == [202401, 202402, 202403]
    for p in stepped:
        a, b = results(absorbed[p]), results(stepped[p])
        assert a.column_names == b.column_names
        for name in ("player_id", "rating_after", "status", "games"):
            assert a.column(name).equals(b.column(name)), (p, name)
        assert a.column("player_id").to_pylist() == ["0", "2"]
