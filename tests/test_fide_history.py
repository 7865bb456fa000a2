"""Dated FIDE rule versions, the 2024 compression, rapid/blitz rules (docs/fide-history.md).

Each version has a hand-computed case whose result differs from its neighbour's;
the expected numbers are worked out in the comments from tables 8.1.2 (PD) and
the K values of the version (docs/fide-history.md).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.fide import fide_period
from arpad.pipeline import engine
from arpad.pipeline.fide_sample import write_sample
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.rules import pd_high_by_diff
from arpad.pipeline.systems import fide as F
from arpad.pipeline.systems.base import PeriodGames, PlayerInfo
from tests import naive_fide

SYSTEM = F.FideSystem()


def players(ratings, rated_games=None, peaks=None, birth_years=None) -> PlayerInfo:
    n = len(ratings)
    r = np.array([np.nan if x is None else x for x in ratings], dtype=np.float64)
    return PlayerInfo(
        player_id=np.array([f"P{i}" for i in range(n)], dtype=object),
        rating=r,
        rated_games=np.array(rated_games or [100] * n, dtype=np.int64),
        peak_rating=np.array(peaks or [np.nan] * n, dtype=np.float64),
        birth_year=np.array(birth_years or [1970] * n, dtype=np.int64),
        rd=np.full(n, np.nan),
        volatility=np.full(n, np.nan),
        grade=np.full(n, np.nan),
        sex=np.array([None] * n, dtype=object),
    )


def period_games(period, n, games, previous=None, events=None) -> PeriodGames:
    """games: [(white, black, white's score)]."""
    white = np.array([g[0] for g in games], dtype=np.int32)
    black = np.array([g[1] for g in games], dtype=np.int32)
    score = np.array([g[2] for g in games], dtype=np.float64)
    event = np.array(events if events is not None else [-1] * len(games), dtype=np.int32)
    games_ = PeriodGames.build(period, white, black, score, n, event, previous)
    games_.elapsed = 1
    return games_


def run(info, games_by_period, rules=None, pool="standard"):
    """Walk the periods with the system; returns the reports' columns per period."""
    state = SYSTEM.initial_state(info, rules or SYSTEM.rules_for(games_by_period[0][0], pool))
    out, previous = {}, None
    for period, games, *events in games_by_period:
        r = rules or SYSTEM.rules_for(period, pool)
        pg = period_games(period, info.n, games, previous, events[0] if events else None)
        state, report = SYSTEM.step(state, pg, r)
        out[period] = {**report.columns, "status": report.status}
        previous = period
    return out, state


# -- which version is in force ------------------------------------------------------------
@pytest.mark.parametrize(
    "period, name",
    [
        (200907, "FIDE 2009-07"),
        (201106, "FIDE 2009-07"),
        (201107, "FIDE 2011-07"),
        (201206, "FIDE 2011-07"),
        (201207, "FIDE 2012-07"),
        (201406, "FIDE 2012-07"),
        (201407, "FIDE 2014-07"),
        (202010, "FIDE 2014-07"),
        (202011, "FIDE 2020-11"),
        (202112, "FIDE 2020-11"),
        (202201, "FIDE 2022-01"),
        (202402, "FIDE 2022-01"),
        (202403, "FIDE 2024-03"),
        (202509, "FIDE 2024-03"),
        (202510, "FIDE 2025-10"),
        (202603, "FIDE 2025-10"),
    ],
)
def test_version_in_force_per_period(period, name):
    assert SYSTEM.rules_for(period, "standard").name == name


def test_rules_at_accepts_month_day_and_period():
    assert SYSTEM.rules_at("2014-07").name == "FIDE 2014-07"
    assert SYSTEM.rules_at("2014-06-30").name == "FIDE 2012-07"
    assert SYSTEM.rules_at("2024-03-01").name == "FIDE 2024-03"
    assert SYSTEM.rules_at(202510).name == "FIDE 2025-10"
    assert SYSTEM.rules_at("2024-12", pool="blitz").name == "FIDE rapid/blitz 2024-12"
    with pytest.raises(ValueError):
        SYSTEM.rules_at("last tuesday")
    assert engine.resolve_rules("fide", "2011-07").k_new == 30


def test_rapid_blitz_versions():
    assert SYSTEM.rules_for(202411, "rapid").name == "FIDE rapid/blitz 2024-03"
    r = SYSTEM.rules_for(202512, "blitz")
    assert r.name == "FIDE rapid/blitz 2024-12"
    assert (r.k_new, r.k_junior, r.k_mid, r.k_high, r.cap_exempt_from) == (20, 20, 20, 20, None)
    assert r.compression_date is None and r.unrated_diff_from == 600


# -- a hand-computed case per version -------------------------------------------------------
def test_2025_10_vs_2024_03_draw_2700_vs_2200():
    # docs/rules.md D: 2700 (K 10) draws 2200: −0.46 × 10 = −4.6 → −5 (2025-10, D = 500,
    # PD .96) vs −0.42 × 10 = −4.2 → −4 (2024-03, D capped at 400, PD .92).
    info = players([2700, 2200], peaks=[2700, 2200])
    new, _ = run(info, [(202510, [(0, 1, 0.5)])])
    old, _ = run(info, [(202509, [(0, 1, 0.5)])])
    assert new[202510]["change"][0] == -5 and old[202509]["change"][0] == -4
    # The 2200 player (K 20, capped either way): +0.42 × 20 = 8.4 → +8.
    assert new[202510]["change"][1] == old[202509]["change"][1] == 8


def test_2014_07_vs_2012_07_k15_to_k20():
    # Established adult 2000 beats 2100: D −100 → PD .36, ΔR +0.64.
    # K 15 (until 2014-06): 9.6 → +10; K 20 (from 2014-07): 12.8 → +13.
    info = players([2000, 2100], peaks=[2000, 2100])
    before, _ = run(info, [(201406, [(0, 1, 1.0)])])
    after, _ = run(info, [(201407, [(0, 1, 1.0)])])
    assert (before[201406]["k"][0], before[201406]["change"][0]) == (15, 10)
    assert (after[201407]["k"][0], after[201407]["change"][0]) == (20, 13)


def test_2014_07_junior_k40():
    # Born 2000, rated 2100 with 100 games: junior K 40 from 2014-07 (age 15 < 18, < 2300),
    # K 15 before. Beats 2100: ΔR .50 → 40 × .5 = +20 vs 15 × .5 = 7.5 → +8.
    info = players([2100, 2100], peaks=[2100, 2100], birth_years=[2000, 1970])
    before, _ = run(info, [(201406, [(0, 1, 1.0)])])
    after, _ = run(info, [(201407, [(0, 1, 1.0)])])
    assert before[201406]["change"][0] == 8 and after[201407]["change"][0] == 20


def test_2011_07_vs_2009_07_new_player_k25_to_k30():
    # New player (10 rated games) 1900 beats 2000: D −100 → PD .36, ΔR .64.
    # K 25: 16.0 → +16 (published with the two-monthly list closing in August);
    # K 30: 19.2 → +19.
    info = players([1900, 2000], rated_games=[10, 100], peaks=[1900, 2000])
    before, _ = run(info, [(200907, [(0, 1, 1.0)]), (200908, [])])
    after, _ = run(info, [(201107, [(0, 1, 1.0)]), (201108, [])])
    assert before[200908]["change"][0] == 16 and after[201108]["change"][0] == 19


def test_2012_07_floor_1000_vs_1200():
    # 1210 (K 15) loses twice to 1210: ΔR −1.0 → −15 → 1195: below the 1200 floor of
    # 2011-07 (unrated), above the 1000 floor of 2012-07 (still rated).
    info = players([1210, 1210], peaks=[1210, 1210])
    old, st_old = run(info, [(201205, [(1, 0, 1.0), (0, 1, 0.0)]), (201206, [])])
    new, st_new = run(info, [(201207, [(1, 0, 1.0), (0, 1, 0.0)])])
    assert old[201206]["rating_after"][0] == 1195 and not st_old.players["is_rated"][0]
    assert new[201207]["rating_after"][0] == 1195 and st_new.players["is_rated"][0]


def test_2022_01_once_per_event_vs_2014_07():
    # 2500 (K 10) beats 1900 and 2000 in one event. Plain cap (2014-07 and 2024-03):
    # both D → 400, PD .92 each, ΔR .16 → 1.6 → +2. Once per event (2022-01): the
    # greatest difference (600) is capped (.92), the other uses D 500 (PD .96):
    # ΔR .08 + .04 = .12 → 1.2 → +1. In two different events both are capped: +2.
    info = players([2500, 1900, 2000], peaks=[2500, 1900, 2000])
    games = [(0, 1, 1.0), (0, 2, 1.0)]
    plain, _ = run(info, [(202112, games, [0, 0])])
    once, _ = run(info, [(202201, games, [0, 0])])
    two_events, _ = run(info, [(202201, games, [0, 1])])
    abolished, _ = run(info, [(202403, games, [0, 0])])
    assert plain[202112]["change"][0] == 2
    assert once[202201]["change"][0] == 1
    assert two_events[202201]["change"][0] == 2
    assert abolished[202403]["change"][0] == 2
    # The lower-rated players are always capped at −400 (PD .08): −.08 × 20 = −1.6 → −2.
    assert once[202201]["change"][1] == once[202201]["change"][2] == -2


def test_2024_03_initial_rating_vs_2022_01():
    # docs/rules.md: 5 rated opponents Σ 9220, 3.5/5 → 1933 (2024: two hypothetical
    # 1800 draws) vs 1884 (2022: Ra 1844 + 2 half points × 20).
    opponents = [1750, 1820, 1900, 1650, 2100]
    info = players([None, *opponents], rated_games=[0] + [100] * 5)
    games = [(0, i + 1, s) for i, s in enumerate([1.0, 1.0, 0.5, 0.5, 0.5])]
    old, _ = run(info, [(202401, games)])
    new, _ = run(info, [(202404, games)])
    assert old[202401]["rating_after"][0] == 1884 and new[202404]["rating_after"][0] == 1933


def test_2009_07_initial_rating_needs_nine_games_and_12_5_per_half_point():
    # 2009-07 (arpad's choices, docs/fide-history.md): 9 games, Ra + 12.5 per half
    # point above 50 %. 9 opponents of 1800, 6/9: 3 half points above → 1800 + 37.5 → 1838.
    info = players([None] + [1800] * 9, rated_games=[0] + [100] * 9)
    games = [(0, i + 1, 1.0 if i < 6 else 0.0) for i in range(9)]
    short, _ = run(info, [(200907, games[:5])])
    assert np.isnan(short[200907]["rating_after"][0])  # 5 games are not enough in 2009
    # published on the list that closes the two-monthly rating period (July–August)
    full, _ = run(info, [(200907, games), (200908, [])])
    assert np.isnan(full[200907]["rating_after"][0]) and full[200908]["rating_after"][0] == 1838


# -- two-monthly lists (2009-07 … 2012-06) --------------------------------------------------
def test_two_monthly_rating_period_rounds_once():
    # K 15, 2000 vs 2000, a draw won in each month: ΔR +.5 and +.5 → 15 × 1.0 = +15, published
    # in the even month; month one shows no change. Ratings used in month two are still 2000.
    info = players([2000, 2000], peaks=[2000, 2000])
    out, state = run(info, [(201001, [(0, 1, 1.0)]), (201002, [(0, 1, 1.0)])])
    assert np.isnan(out[201001]["change"][0]) and out[201001]["rating_after"][0] == 2000
    assert out[201002]["games"][0] == 2 and out[201002]["change"][0] == 15
    assert out[201002]["change"][1] == -15 and state.players["rating"][0] == 2015


def test_two_monthly_without_a_walked_closing_month_publishes_as_adjustment():
    info = players([2000, 2000], peaks=[2000, 2000])
    out, state = run(info, [(201001, [(0, 1, 1.0)]), (201003, [])])
    # 15 × .5 = 7.5 → +8, published before the games of March, as an adjustment.
    assert out[201003]["adjustment"][0] == 8 and out[201003]["adjustment"][1] == -8
    assert out[201003]["rating_before"][0] == 2000 and out[201003]["rating_after"][0] == 2008
    assert state.players["rated_games"][0] == 101


# -- compression (docs/fide-history.md) --------------------------------------------------------------
@pytest.mark.parametrize(
    "before, after",
    [
        (1000, 1400),
        (1200, 1520),
        (1500, 1700),
        (1600, 1760),
        (1800, 1880),
        (1950, 1970),
        (2000, 2000),
        (2500, 2500),
    ],
)
def test_compression_vectors(before, after):
    rules = SYSTEM.rules_for(202403, "standard")
    assert before + F.compression_increase(rules, np.array([before]))[0] == after


def test_compression_is_its_own_event_applied_once():
    info = players([1600, 1500, 2100], peaks=[1600, 1500, 2100])
    out, _ = run(info, [(202401, []), (202404, [(0, 1, 0.5)]), (202405, [(0, 1, 0.5)])])
    rep = out[202404]  # first walked period on or after 2024-03
    assert rep["rating_before"][:3].tolist() == [1600, 1500, 2100]
    assert rep["adjustment"][:3].tolist() == [160, 200, 0]
    # Games use the compressed ratings 1760 vs 1700: D 60 → PD .58; draw → −.08 × 40 (new to
    # the list? no: 100 games, adult, K 20) = −1.6 → −2 for 1760, +2 for 1700.
    assert rep["change"][:2].tolist() == [-2, 2]
    assert rep["rating_after"][:3].tolist() == [1758, 1702, 2100]
    assert np.isnan(out[202405]["adjustment"]).all()  # once only
    assert np.isnan(out[202401]["adjustment"]).all()


def test_no_compression_when_the_replay_starts_after_it_or_rules_are_older():
    info = players([1600, 1500], peaks=[1600, 1500])
    out, _ = run(info, [(202404, [(0, 1, 0.5)])])
    assert np.isnan(out[202404]["adjustment"]).all()
    forced, _ = run(info, [(202401, []), (202404, [])], rules=SYSTEM.rules_at("2014-07"))
    assert np.isnan(forced[202404]["adjustment"]).all()


# -- rapid/blitz 600-point rule (from 2024-12) -------------------------------------------------
def test_rapid_600_point_rule():
    # P0 2650 (above 2600): vs 2040 (diff 610) unrated, vs 2060 (590) rated; P3 2600 (not above
    # 2600) vs 1990 (610) rated.
    info = players([2650, 2040, 2060, 2600, 1990], peaks=[2650, 2040, 2060, 2600, 1990])
    games = [(0, 1, 1.0), (0, 2, 1.0), (3, 4, 1.0)]
    after, _ = run(info, [(202412, games)], pool="rapid")
    before, _ = run(info, [(202411, games)], pool="rapid")
    assert after[202412]["games"].tolist() == [1, 0, 1, 1, 1]
    assert before[202411]["games"].tolist() == [2, 1, 1, 1, 1]
    # K 20 and plain cap: 2650 vs 2060 D 590 → 400, PD .92 → +.08 × 20 = 1.6 → +2.
    assert after[202412]["change"][0] == 2 and after[202412]["k"][0] == 20


def test_rapid_k20_for_new_players_and_no_2650_exemption():
    info = players([2700, 2200], rated_games=[5, 5], peaks=[2700, 2200])
    out, _ = run(info, [(202511, [(0, 1, 0.5)])], pool="blitz")
    # Plain cap: −.42 × 20 = −8.4 → −8 (standard 2025-10 would use D 500 and K 40).
    assert out[202511]["k"][0] == 20 and out[202511]["change"][0] == -8


# -- properties: once-per-event kernel vs a naive reading --------------------------------------
def naive_once_per_event(rating, opponents, scores, events, k, cap=400):
    games = list(zip(opponents, scores, events))
    total = 0
    for j, (o, s, e) in enumerate(games):
        d = rating - o
        if d < -cap:
            d = -cap  # the cap never helps the lower-rated player: always applied
        if d > cap:
            rivals = [(rating - o2, j2) for j2, (o2, _, e2) in enumerate(games) if e2 == e]
            if max(rivals, key=lambda t: (t[0], -t[1]))[1] == j:
                d = cap
        pd = naive_fide.expected(rating, rating - d, cap=10**6)
        total += naive_fide.Fraction(s) - pd
    return naive_fide.round_half_away(k * total)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1800, 2800),
    st.lists(
        st.tuples(st.integers(1000, 2800), st.sampled_from([0.0, 0.5, 1.0]), st.integers(-1, 2)),
        min_size=1,
        max_size=12,
    ),
)
def test_once_per_event_matches_naive(rating, games):
    n = len(games) + 1
    ratings = np.array([rating, *[g[0] for g in games]], dtype=np.int64)
    white = np.zeros(len(games), dtype=np.int32)
    black = np.arange(1, n, dtype=np.int32)
    events = np.array([g[2] for g in games], dtype=np.int32)
    grouped = group_by_player(white, black, np.array([g[1] for g in games]), n)
    res = fide_period(
        ratings, np.ones(n, bool), np.full(n, 10), grouped.offsets, grouped.opponent,
        grouped.score, pd_high_by_diff(), k_times_games_max=0,
        entry_event=events[grouped.game], cap_once_per_event=True,
    )  # fmt: skip
    expected = naive_once_per_event(
        rating, [g[0] for g in games], [g[1] for g in games], [g[2] for g in games], 10
    )
    assert res.change[0] == expected


# -- a replay across 2009–2026 applies each version in its window ------------------------------
@pytest.fixture(scope="module")
def history_store(tmp_path_factory):
    from arpad.pipeline.store import Store

    root = tmp_path_factory.mktemp("fide_history")
    players_csv, games_csv = write_sample(root / "in", every=3)
    store = Store(root / "store")
    ingest_files(store, [games_csv], players=[players_csv])
    summaries = {pool: engine.rate(store, "fide", pool) for pool in ("standard", "rapid")}
    return store, summaries


def test_replay_2009_2026_uses_each_version_in_its_window(history_store):
    _, summaries = history_store
    s = summaries["standard"]
    for period, name in zip(s.periods, s.rules):
        assert name == SYSTEM.rules_for(period, "standard").name
        assert F.version_at(f"{period // 100:04d}-{period % 100:02d}-01").name == name
    # the sample starts at 2009-07: every version from FIDE 2009-07 on (not 2000-01, 2006-04)
    assert set(s.rules) == {v.name for v in F.FIDE_VERSIONS if v.effective >= "2009-07-01"}
    counts = collections.Counter(s.rules)
    assert counts["FIDE 2009-07"] > 0 and counts["FIDE 2025-10"] > 0
    assert "FIDE rapid/blitz 2024-12" in summaries["rapid"].rules


def test_replay_compresses_once_and_only_the_standard_list(history_store):
    store, summaries = history_store
    walked = summaries["standard"].periods
    with_adjustment = []
    for period in walked:
        if period < 201207:
            continue  # two-monthly adjustments are a different event
        t = store.read_ratings("fide", "standard", period)
        if t.column("adjustment").null_count < t.num_rows:
            with_adjustment.append(period)
    first_after = min(p for p in walked if p >= 202403)
    assert with_adjustment == [first_after]
    t = store.read_ratings("fide", "standard", first_after).to_pylist()
    for row in t:
        if row["rating_before"] is None:
            continue
        r = int(row["rating_before"])
        assert row["adjustment"] == (0 if r >= 2000 else F.compression_increase(
            SYSTEM.rules_for(202403, "standard"), np.array([r]))[0])  # fmt: skip
        assert row["rating_after"] == r + row["adjustment"] + row["change"]
    for period in summaries["rapid"].periods:
        t = store.read_ratings("fide", "rapid", period)
        if period >= 201207:
            assert t.column("adjustment").null_count == t.num_rows


# -- inactivity (docs/fide-history.md "Inactivity") -------------------------------------------
def months(first: int, last: int) -> list[int]:
    out, p = [], first
    while p <= last:
        out.append(p)
        p = p + 1 if p % 100 < 12 else (p // 100 + 1) * 100 + 1
    return out


def statuses(first, last, played_in):
    """P0 and P1 (2000) play each other every month from ``first`` to ``last`` so that
    every month is walked; P2 (2000) plays P0 only in the months of ``played_in``.
    Returns P2's status per month (index into STATUS_CODES → name)."""
    from arpad.pipeline.systems.base import STATUS_CODES

    info = players([2000, 2000, 2000])
    walk = []
    for p in months(first, last):
        games = [(0, 1, 0.5)] + ([(0, 2, 0.5)] if p in played_in else [])
        walk.append((p, games))
    out, _ = run(info, walk)
    return {p: STATUS_CODES[out[p]["status"][2]] for p in out}


def test_inactive_after_12_months_without_a_rated_game_and_active_on_return():
    # P2 plays in 2024-01, then not until 2025-02 (13 months later). The list of month M
    # flags him when his last rated game was in M − 12 or before: 2025-01 is 12 months
    # after 2024-01 → inactive; 2024-12 (11 months) → still active; 2025-02 he plays → active.
    got = statuses(202401, 202503, {202401, 202502})
    assert all(got[p] == "rated" for p in months(202401, 202412))
    assert got[202501] == "inactive"
    assert got[202502] == "rated" and got[202503] == "rated"
    assert SYSTEM.rules_for(202501, "standard").inactive_months == 12


def test_covid_lists_use_24_months():
    # Last game 2019-10. List 2020-10 (2014-07 rules, 12 months): 12 months → inactive.
    # From the 2020-11 list the period is 24 months (FIDE Council, 2 Nov 2020): 13 months
    # → active again without a game; 2021-10 is 24 months after 2019-10 → inactive.
    got = statuses(201910, 202203, {201910})
    assert got[202009] == "rated"  # 11 months
    assert got[202010] == "inactive"  # 12 months, 2014-07 rules
    assert got[202011] == "rated"  # 13 < 24 (2020-11 rules)
    assert got[202109] == "rated"  # 23 months
    assert got[202110] == "inactive"  # 24 months
    # Last game 2020-06: 2021-06 (12 months) still active under the 24-month rule; from the
    # 2022-01 list (12 months again, arpad's end date) 19 months → inactive.
    got = statuses(202006, 202202, {202006})
    assert got[202106] == "rated" and got[202112] == "rated"
    assert got[202201] == "inactive"
    assert [v.inactive_months for v in F.FIDE_VERSIONS] == [12, 12, 12, 12, 12, 12, 24, 12, 12, 12]


def test_players_file_ratings_count_as_active_before_the_first_period():
    # P2 never plays: his rating comes from the players file; arpad takes him as active in
    # the month before the first walked period (2024-01 → last 2023-12), so the 2024-12
    # list (12 months) is his first inactive one.
    got = statuses(202401, 202412, set())
    assert got[202411] == "rated" and got[202412] == "inactive"
