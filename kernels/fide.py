"""FIDE Elo period step and initial ratings (FIDE B.02, Rating Regulations 2024/2025).

All arithmetic that decides a published figure is done in integers:
scores in half points, expected scores in hundredths (table 8.1.2), so that
K × ΣΔR is rounded exactly, 0.5 away from zero (§8.3.4).
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange
from arpad.kernels.expected import NO_EXEMPTION, capped_difference, expected_hundredths
from arpad.kernels.rounding import div_round_half_away


class FidePeriodResult(NamedTuple):
    games: np.ndarray  # int32: rated games counted for the player (vs rated opponents)
    score2: np.ndarray  # int64: score in half points over those games
    expected100: np.ndarray  # int64: Σ PD in hundredths
    k: np.ndarray  # int64: K used after the K×n ≤ cap rule (0 when no rated game)
    change: np.ndarray  # int64: round_half_away(K × ΣΔR)
    rating_after: np.ndarray  # int64
    unrated_games: np.ndarray  # int32: an unrated player's games vs rated opponents
    unrated_score2: np.ndarray  # int64: their score in half points
    unrated_opp_sum: np.ndarray  # int64: Σ opponents' ratings
    # The same three over the unrated player's first event of the period only (the
    # event of his first game vs a rated opponent; §8.2.1's zero-score rule).
    first_event_games: np.ndarray  # int32
    first_event_score2: np.ndarray  # int64
    first_event_opp_sum: np.ndarray  # int64


@jit
def _difference_once_per_event(p, j, start, stop, rating, is_rated, opponent, entry_event, cap, ex):
    """D for game j of player p when the 400-point upgrade counts once per event.

    B.02 §8.3.1 (2022 text): "In any tournament, a player may benefit from only
    one upgrade under this rule, for the game in which the rating difference is
    greatest." The upgrade helps the higher-rated player only, so a difference
    above +cap is capped for his one game of greatest difference in the event
    (the first such game on a tie) and used as it is in his other games; a
    difference below −cap is always capped.
    """
    raw = rating[p] - rating[opponent[j]]
    if raw <= cap or rating[p] >= ex:
        return capped_difference(rating[p], rating[opponent[j]], cap, ex)
    for j2 in range(start, stop):
        if j2 == j or entry_event[j2] != entry_event[j] or not is_rated[opponent[j2]]:
            continue
        other = rating[p] - rating[opponent[j2]]
        if other > raw or (other == raw and j2 < j):
            return raw  # another game of this event takes the upgrade
    return cap


@jit_parallel
def _fide_period(
    rating,
    is_rated,
    k_base,
    offsets,
    opponent,
    own_score,
    cap,
    exempt_from,
    k_times_games_max,
    pd_high_by_diff,
    entry_event,
    once_per_event,
    opponent_rating,
):
    # opponent_rating[o] is rating[o] for rated players and -1 for unrated ones: one
    # random read per game instead of two (the loop is bound by those reads).
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    score2 = np.zeros(n, dtype=np.int64)
    expected100 = np.zeros(n, dtype=np.int64)
    k_used = np.zeros(n, dtype=np.int64)
    change = np.zeros(n, dtype=np.int64)
    rating_after = rating.copy()
    u_games = np.zeros(n, dtype=np.int32)
    u_score2 = np.zeros(n, dtype=np.int64)
    u_opp_sum = np.zeros(n, dtype=np.int64)
    f_games = np.zeros(n, dtype=np.int32)
    f_score2 = np.zeros(n, dtype=np.int64)
    f_opp_sum = np.zeros(n, dtype=np.int64)
    for p in prange(n):
        start = offsets[p]
        stop = offsets[p + 1]
        if start == stop:
            continue
        if is_rated[p]:
            m = 0
            s2 = 0
            e100 = 0
            own = rating[p]
            for j in range(start, stop):
                ro = opponent_rating[opponent[j]]
                if ro < 0:
                    continue  # a rated player's game vs an unrated opponent is not rated for him
                if once_per_event:
                    d = _difference_once_per_event(
                        p, j, start, stop, rating, is_rated, opponent, entry_event, cap, exempt_from
                    )
                else:
                    d = capped_difference(own, ro, cap, exempt_from)
                e100 += expected_hundredths(d, pd_high_by_diff)
                s2 += np.int64(own_score[j] * 2.0 + 0.5)
                m += 1
            if m == 0:
                continue
            k = k_base[p]
            if k_times_games_max > 0 and k * m > k_times_games_max:
                k = k_times_games_max // m  # largest whole K with K × n ≤ 700 (§8.3.3)
            delta = div_round_half_away(k * (50 * s2 - e100), np.int64(100))
            games[p] = m
            score2[p] = s2
            expected100[p] = e100
            k_used[p] = k
            change[p] = delta
            rating_after[p] = rating[p] + delta
        else:
            m = 0
            s2 = 0
            opp_sum = 0
            first = -2  # event of the first game vs a rated opponent (-1 = unknown event)
            for j in range(start, stop):
                ro = opponent_rating[opponent[j]]
                if ro < 0:
                    continue  # games between two unrated players are not rated
                half = np.int64(own_score[j] * 2.0 + 0.5)
                opp_sum += ro
                s2 += half
                m += 1
                if first == -2:
                    first = entry_event[j]
                if entry_event[j] == first:
                    f_games[p] += 1
                    f_score2[p] += half
                    f_opp_sum[p] += ro
            u_games[p] = m
            u_score2[p] = s2
            u_opp_sum[p] = opp_sum
    return (
        games,
        score2,
        expected100,
        k_used,
        change,
        rating_after,
        u_games,
        u_score2,
        u_opp_sum,
        f_games,
        f_score2,
        f_opp_sum,
    )


def fide_period(
    rating: np.ndarray,
    is_rated: np.ndarray,
    k_base: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    pd_high_by_diff: np.ndarray,
    cap: int = 400,
    exempt_from: int | None = None,
    k_times_games_max: int = 700,
    entry_event: np.ndarray | None = None,
    cap_once_per_event: bool = False,
) -> FidePeriodResult:
    """One rating period of FIDE Elo for every player at once (B.02 §8.3).

    For a rated player p with games j against rated opponents (ratings at the
    start of the period): D_j = R_p − R_j, capped at ±``cap`` unless R_p ≥
    ``exempt_from`` (§8.3.1); PD_j from table 8.1.2; ΣΔR = Σ(s_j − PD_j);
    K = min(k_base, ⌊k_times_games_max / n⌋) (§8.3.3, 0 disables the cap);
    change = K × ΣΔR rounded half away from zero once for the period (§8.3.4).

    ``cap_once_per_event`` (2022-01 … 2024-02 rules): the upgrade of a difference
    above +cap counts only for the player's game of greatest difference in each
    event; ``entry_event`` gives the event of each CSR entry (same length as
    ``opponent``; −1 = unknown, all unknown games of a player form one event).

    For an unrated player it returns the games, score and opponents' rating sum
    against rated opponents, the inputs of the initial rating (§8.2), and the same
    three over his first event of the period: the event of his first game (in the
    period's game order) against a rated opponent, all of his games of that event
    (``entry_event``; without it every game is one event), so that a zero score in
    a first event can be disregarded (§8.2.1, docs/rules.md).
    """
    n = rating.shape[0]
    rating = np.ascontiguousarray(rating, dtype=np.int64)
    is_rated = np.ascontiguousarray(is_rated, dtype=np.bool_)
    k_base = np.ascontiguousarray(k_base, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if is_rated.shape != (n,) or k_base.shape != (n,) or offsets.shape != (n + 1,):
        raise ValueError("rating, is_rated, k_base must have n entries and offsets n + 1")
    opponent = np.ascontiguousarray(opponent, dtype=np.int32)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    exempt = NO_EXEMPTION if exempt_from is None else np.int64(exempt_from)
    if own_score.shape != opponent.shape:
        raise ValueError("opponent and own_score must have the same length")
    if entry_event is None:
        entry_event = np.full(opponent.shape[0], -1, dtype=np.int32)
    entry_event = np.ascontiguousarray(entry_event, dtype=np.int32)
    if entry_event.shape != opponent.shape:
        raise ValueError("entry_event must have one entry per CSR entry")
    return FidePeriodResult(
        *by_work(_fide_period, rating.shape[0] + len(opponent))(
            rating,
            is_rated,
            k_base,
            offsets,
            opponent,
            own_score,
            np.int64(cap),
            exempt,
            np.int64(k_times_games_max),
            np.ascontiguousarray(pd_high_by_diff, dtype=np.int64),
            entry_event,
            bool(cap_once_per_event),
            np.where(is_rated, rating, -1).astype(np.int32),  # ratings are never negative
        )
    )


INITIAL_METHOD_2024 = 0  # two hypothetical 1800 opponents, two draws, Ru = Ra + dp(p)
INITIAL_METHOD_2022 = 1  # plain Ra; +20 per half point above 50 %, Ra + dp(p) below


@jit
def _initial_one(games, score2, opp_sum, method, hypo_n, hypo_rating, per_half10, dp_by_percent):
    if method == INITIAL_METHOD_2024:
        den = games + hypo_n
        ra_num = opp_sum + hypo_n * hypo_rating
        # p = (W + hypo_n/2) / den, as a whole percentage rounded half up
        pnum = 100 * (score2 + hypo_n)
        pden = 2 * den
        percent = (2 * pnum + pden) // (2 * pden)
        return div_round_half_away(ra_num + dp_by_percent[percent] * den, den)
    # 2022 method
    above = score2 - games  # half points above 50 %
    if above > 0:
        # Ra + per_half_point per half point above 50 % (per_half10 in tenths: 12.5 → 125)
        return div_round_half_away(10 * opp_sum + per_half10 * above * games, 10 * games)
    if above == 0:
        return div_round_half_away(opp_sum, games)
    pnum = 100 * score2
    pden = 2 * games
    percent = (2 * pnum + pden) // (2 * pden)
    return div_round_half_away(opp_sum + dp_by_percent[percent] * games, games)


@jit_parallel
def _fide_initial_rating(
    games, score2, opp_sum, method, hypo_n, hypo_rating, max_rating, per_half10, dp
):
    out = np.empty(games.shape[0], dtype=np.int64)
    for i in prange(games.shape[0]):
        if games[i] <= 0:
            out[i] = 0
            continue
        r = _initial_one(
            games[i], score2[i], opp_sum[i], method, hypo_n, hypo_rating, per_half10, dp
        )
        if max_rating > 0 and r > max_rating:
            r = max_rating
        out[i] = r
    return out


def fide_initial_rating(
    games: np.ndarray,
    score2: np.ndarray,
    opp_sum: np.ndarray,
    dp_by_percent: np.ndarray,
    method: int = INITIAL_METHOD_2024,
    hypothetical_games: int = 2,
    hypothetical_rating: int = 1800,
    max_rating: int = 2200,
    per_half_point: float = 20.0,
) -> np.ndarray:
    """Initial ratings Ru of unrated players from pooled games vs rated opponents (B.02 §8.2).

    2024 method: Ra = (ΣR_i + h·1800)/(n + h), p = (W + h/2)/(n + h) rounded to a
    whole percent (0.5 up, as Title Regulations 1.4.9), Ru = Ra + dp(p) (table
    8.1.1) rounded to the nearest integer, at most ``max_rating`` (0 = no cap).
    2022 method: Ra = ΣR_i/n; Ru = Ra + 20 per half point above 50 %, Ra at
    50 %, Ra + dp(p) below (``per_half_point``: 20 in the 2022 text; arpad's older
    versions use half of K for new players, docs/fide-history.md).
    ``score2`` is W in half points; rows with no games give 0.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    score2 = np.ascontiguousarray(score2, dtype=np.int64)
    opp_sum = np.ascontiguousarray(opp_sum, dtype=np.int64)
    dp = np.ascontiguousarray(dp_by_percent, dtype=np.int64)
    if dp.shape != (101,):
        raise ValueError("dp_by_percent must have 101 entries (p = 0.00 .. 1.00)")
    if not (games.shape == score2.shape == opp_sum.shape):
        raise ValueError("games, score2 and opp_sum must have the same shape")
    return by_work(_fide_initial_rating, games.shape[0])(
        games,
        score2,
        opp_sum,
        np.int64(method),
        np.int64(hypothetical_games),
        np.int64(hypothetical_rating),
        np.int64(max_rating),
        np.int64(_tenths(per_half_point)),
        dp,
    )


def _tenths(value: float) -> int:
    tenths = int(np.floor(value * 10 + 0.5))
    if abs(value * 10 - tenths) > 1e-9:
        raise ValueError("per_half_point must be a multiple of 0.1")
    return tenths
