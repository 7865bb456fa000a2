"""USCF: the vectors of docs/uscf.md, the naive event-by-event reference, properties,
and the system through the engine with event ids."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.uscf import (
    N_STAR_2004,
    N_STAR_2015,
    effective_games,
    special_rating,
    uscf_event_layer,
    uscf_floor,
)
from arpad.pipeline import catalog
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.systems.uscf import UscfSystem, event_layers
from tests import naive_uscf
from tests.conftest import write_csv


def test_effective_games_vectors():
    # 2015+ N*: R0 1700 → 20.012, R0 1300 → 14.107 (docs/uscf.md, S2).
    n = effective_games([1700.0, 1300.0, 2400.0], [1000, 1000, 1000], N_STAR_2015)
    assert n[0] == pytest.approx(20.012, abs=0.001)
    assert n[1] == pytest.approx(14.107, abs=0.001)
    assert n[2] == 50.0
    # 2004 (Glickman's HTML text, P): R0 1700, N 30 → N* = 50/√3.5 = 26.7, N' = 26.7.
    n = effective_games([1700.0], [30], N_STAR_2004)
    assert n[0] == pytest.approx(26.7, abs=0.05)
    assert effective_games([1700.0], [12], N_STAR_2004)[0] == 12


def test_special_formula_approximation_example():
    # "Approximating Formulas" (2015/2017): 1500 on 6 games; 1400 W, 1550 L, 1650 D
    # → (6·1500 + 3·1533.33 + 0)/9 = 1511.11 (all opponents within 400: exact = approx).
    opp = np.array([1400.0, 1550.0, 1650.0])
    r = special_rating(1500.0, 1500.0, 6.0, opp, 0, 3, 1.5 + 3.0, np.empty(8), 0, 1e-7)
    assert r == pytest.approx(1511.11, abs=0.005)
    assert r == pytest.approx(naive_uscf.special(1500.0, 1500.0, 6.0, list(opp), 4.5), abs=1e-6)


def test_special_formula_flat_stretch_takes_the_prior():
    # An unrated player (N' = 0) who beats a 1000 and loses to a 2000: Σ PWe = 1 for any R in
    # [1400, 1600] → the prior 1300 clipped into it → 1400.
    opp = np.array([1000.0, 2000.0])
    r = special_rating(1300.0, 1300.0, 0.0, opp, 0, 2, 1.0, np.empty(6), 0, 1e-7)
    assert r == 1400.0
    r = special_rating(1500.0, 1500.0, 0.0, opp, 0, 2, 1.0, np.empty(6), 0, 1e-7)
    assert r == 1500.0


def _layer(rating0, n_games, games, all_wins=None, all_losses=None, formula=N_STAR_2015, **kw):
    n = len(rating0)
    white, black, score = (np.array(x) for x in zip(*games, strict=True))
    g = group_by_player(white.astype(np.int32), black.astype(np.int32), score.astype(float), n)
    rating0 = np.asarray(rating0, float)
    n_games = np.asarray(n_games)
    z = np.zeros(n, bool)
    return uscf_event_layer(
        rating0,
        n_games,
        effective_games(rating0, n_games, formula),
        z if all_wins is None else all_wins,
        z if all_losses is None else all_losses,
        g.offsets,
        g.opponent,
        g.score,
        g.is_white,
        **kw,
    )


@pytest.mark.parametrize(
    "r0, n, m, k_expected",
    # Glickman's K table (2004 text): N' 20, m 6 → 30.77; N' 50, m 10 → 13.33; N' 20, m 4 → 33.33
    [(2000.0, 20, 6, 30.77), (2400.0, 60, 10, 13.33), (2000.0, 20, 4, 33.33)],
)
def test_k_is_800_over_effective_games_plus_m(r0, n, m, k_expected):
    games = [(0, 1 + i, 0.5) for i in range(m)]
    res = _layer([r0] + [r0] * m, [n] + [100] * m, games)
    assert res.k[0] == pytest.approx(k_expected, abs=0.005)
    assert not res.special[0]


def test_bonus_b14_and_the_three_round_rule():
    # Player 1500 (N 50) beats four 2000s: bonus = max(0, K(S−E) − 14·√4).
    wins = [(0, 1 + i, 1.0) for i in range(4)]
    rating0, n_games = [1500.0] + [2000.0] * 4, [50] + [500] * 4
    with_bonus = _layer(rating0, n_games, wins, bonus_b=14.0)
    without = _layer(rating0, n_games, wins, bonus_b=np.inf)
    change = without.final[0] - 1500.0
    assert change > 28
    assert with_bonus.final[0] - without.final[0] == pytest.approx(change - 14 * 2.0, abs=1e-9)
    # 3 rounds count as 4 in the threshold
    three = _layer(rating0[:4], n_games[:4], wins[:3], bonus_b=14.0)
    three_nb = _layer(rating0[:4], n_games[:4], wins[:3], bonus_b=np.inf)
    ch3 = three_nb.final[0] - 1500.0
    assert three.final[0] - three_nb.final[0] == pytest.approx(max(0, ch3 - 28.0), abs=1e-9)
    # 2 games: no bonus; an opponent met three times: no bonus
    two = _layer(rating0[:3], n_games[:3], wins[:2], bonus_b=14.0)
    two_nb = _layer(rating0[:3], n_games[:3], wins[:2], bonus_b=np.inf)
    assert two.final[0] == two_nb.final[0]
    thrice = [(0, 1, 1.0), (0, 1, 1.0), (0, 1, 1.0), (0, 2, 1.0)]
    a = _layer(rating0[:3], n_games[:3], thrice, bonus_b=14.0)
    b = _layer(rating0[:3], n_games[:3], thrice, bonus_b=np.inf)
    assert a.final[0] == b.final[0]


def test_special_formula_for_provisional_and_all_wins_history():
    games = [(0, 1, 1.0), (0, 2, 0.0), (0, 3, 0.5)]
    res = _layer([1500.0, 1400.0, 1550.0, 1650.0], [6, 100, 100, 100], games)
    assert res.special[0] and not res.special[1] and math.isnan(res.k[0])
    # N 20 but every previous game won: special formula with R0' = R0 − 400, S' = S + N'
    aw = np.array([True, False, False, False])
    res = _layer([1500.0, 1400.0, 1550.0, 1650.0], [20, 100, 100, 100], games, all_wins=aw)
    assert res.special[0]


def test_floors():
    # absolute floor min(150, 100 + 4W + 2D + N_r); established: 100⌊(peak − 200)/100⌋
    # at levels 1200..2100 (peak 1941 → 1700) (docs/uscf.md).
    f = uscf_floor(
        np.array([2, 30, 0, 0, 0]),
        np.array([1, 0, 0, 0, 0]),
        np.array([1, 5, 0, 0, 0]),
        np.array([np.nan, np.nan, 1941.0, 1350.0, 2600.0]),
        np.array([False, False, True, True, True]),
    )
    assert f.tolist() == [111.0, 150.0, 1700.0, 100.0, 2100.0]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(600, 2600), min_size=1, max_size=10),
    st.floats(600, 2600),
    st.one_of(st.just(0.0), st.floats(0.25, 30)),  # effective games: none, or a real count
    st.data(),
)
def test_special_rating_properties(opps, prior, n_eff, data):
    opp = np.array(opps)
    m = len(opps)
    s1 = data.draw(st.integers(0, 2 * m)) / 2
    s2 = data.draw(st.integers(0, 2 * m)) / 2
    lo_s, hi_s = sorted((s1, s2))

    def solve(s):
        return special_rating(
            prior, prior, n_eff, opp, 0, m, s + n_eff / 2, np.empty(2 * m + 2), 0, 1e-7
        )

    # a better score never gives a lower rating; matches the bisection reference
    assert solve(lo_s) <= solve(hi_s) + 1e-7
    ref = naive_uscf.special(prior, prior, n_eff, opps, hi_s + n_eff / 2)
    assert solve(hi_s) == pytest.approx(ref, abs=1e-5)


def test_event_layers_order_and_disjointness():
    event = np.array([2, 0, -1, 1, 2])
    white = np.array([0, 0, 3, 4, 5])
    black = np.array([1, 2, 0, 6, 7])
    layers = event_layers(event, white, black)
    # player 0 meets events −1, 0, 2 in that order; event 1 shares no player with −1
    assert layers.tolist() == [2, 1, 0, 0, 2]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-1, 6), st.integers(0, 9), st.integers(1, 9)),
        min_size=0,
        max_size=40,
    ),
    st.sampled_from([1, 1000, 10**12]),  # dense event codes, and ids far apart
)
def test_event_layers_match_the_naive_reading(games, spread):
    event = np.array([e * spread for e, _, _ in games], dtype=np.int64)
    white = np.array([w for _, w, _ in games], dtype=np.int64)
    black = np.array([(w + d) % 10 for _, w, d in games], dtype=np.int64)
    assert event_layers(event, white, black).tolist() == naive_uscf.event_layers(
        event, white, black
    )


@pytest.mark.parametrize("m", [6, 70])  # short events: pairwise count; long ones: sorted
def test_bonus_needs_no_opponent_met_more_than_twice(m):
    # Player 0 (1500, N 50) beats m opponents rated 2000; met once or twice each the
    # bonus applies; one opponent met three times, anywhere in the event, and it does not.
    def event(opponents):
        n = 1 + max(opponents)
        games = [(0, o, 1.0) for o in opponents]
        rating0 = [1500.0] + [2000.0] * (n - 1)
        return (
            _layer(rating0, [50] * n, games, bonus_b=14.0).final[0],
            _layer(rating0, [50] * n, games, bonus_b=np.inf).final[0],
        )

    twice = [1 + i // 2 for i in range(m)]  # each opponent exactly twice
    with_bonus, without = event(twice)
    assert with_bonus > without
    thrice = [*twice[: m // 2], twice[0], *twice[m // 2 : -1]]  # opponent 1 a third time
    assert sorted(thrice).count(1) == 3 and len(thrice) == m
    with_bonus, without = event(thrice)
    assert with_bonus == without


# ------------------------------------------------------------- through the engine


def _random_events(tmp_path, store, seed, white_advantage=0.0):
    rng = np.random.default_rng(seed)
    ids = [f"U{i:02d}" for i in range(14)]
    players = {}
    prows = []
    for i, p in enumerate(ids):
        if i < 8:
            r = float(rng.integers(900, 2300))
            n = int(rng.choice([3, 8, 20, 40]))
            prows.append(f"{p},{r},{n}")
            players[p] = naive_uscf.Player(rating=r, n=n)
        else:
            prows.append(f"{p},,")
            players[p] = naive_uscf.Player()
    rows, schedule = [], []
    for month in (202401, 202402, 202403):
        events = {}
        for ev in ("", "A", "B"):
            lst = []
            for _ in range(int(rng.integers(3, 9))):
                w, b = rng.choice(len(ids), 2, replace=False)
                s = float(rng.choice([0.0, 0.5, 1.0]))
                rows.append(f"{month // 100}-{month % 100:02d}-10,{ids[w]},{ids[b]},{s},{ev}")
                lst.append((ids[w], ids[b], s))
            events[ev] = lst
        schedule.append((month, [events[e] for e in ("", "A", "B")]))
    pfile = write_csv(tmp_path / "players.csv", "player_id,rating,rated_games", prows)
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score,event_id", rows)
    ingest_files(store, [gfile], players=[pfile])
    rules = naive_uscf.Rules(white_advantage=white_advantage)
    expected = {}
    for month, evs in schedule:
        before = {p: pl.rating for p, pl in players.items()}
        for games in evs:
            naive_uscf.rate_event(players, games, rules)
        expected[month] = ({p: pl.rating for p, pl in players.items()}, before)
    return expected


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_system_through_engine_matches_naive(tmp_path, store, seed):
    adv = 40.0 if seed % 2 else 0.0
    expected = _random_events(tmp_path, store, seed, adv)
    rate(store, "uscf", overrides={"age_based_initial": "false", "white_advantage": str(adv)})
    con = catalog.connect(store)
    try:
        for month, (after, before) in expected.items():
            rows = con.execute(
                "SELECT player_id, rating_before, rating_after, status FROM ratings "
                "WHERE system = 'uscf' AND period = ?",
                [month],
            ).fetchall()
            got = {pid: (rb, ra, st_) for pid, rb, ra, st_ in rows}
            # the kernel treats |f| ≤ 1e-7 as zero in the special formula (≤ 8e-5 points)
            for pid, r in after.items():
                if r is None:
                    assert pid not in got
                    continue
                assert got[pid][1] == pytest.approx(r, abs=1e-3), (month, pid)
                if before[pid] is None:
                    assert got[pid][0] is None
                else:
                    assert got[pid][0] == pytest.approx(before[pid], abs=1e-3)
    finally:
        con.close()


def test_rules_versions():
    system = UscfSystem()
    assert system.rules_for(201001, "standard").name == "USCF 2004"
    assert system.rules_for(202401, "standard").name == "USCF 2017"
    assert system.rules_for(55, "standard").name == "USCF 2017"  # abstract periods: latest
    assert system.rules_at("2016-06").n_star_formula == "2004"
    assert system.rules_at("2018").bonus_b == 14.0


@pytest.mark.slow
def test_kaggle_2010_runs(tmp_path, bundled_data):
    from arpad.pipeline.store import Store

    store = Store(tmp_path / "kaggle")
    ingest_files(store, [bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"])
    s = rate(store, "uscf", refresh_catalog=False)
    assert len(s.periods) == 100 and s.games == 65053
