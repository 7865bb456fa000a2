"""FIDE Elo period step and initial ratings (FIDE B.02, Rating Regulations 2024/2025).

All arithmetic that decides a published figure is done in integers:
scores in half points, expected scores in hundredths (table 8.1.2), so that
K × ΣΔR is rounded exactly, 0.5 away from zero (§8.3.4).
"""

from typing import NamedTuple

import numpy as np

from kernels.config import jit, jit_parallel, prange
from kernels.expected import NO_EXEMPTION, capped_difference, expected_hundredths
from kernels.rounding import div_round_half_away


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
):
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
    for p in prange(n):
        start = offsets[p]
        stop = offsets[p + 1]
        if start == stop:
            continue
        if is_rated[p]:
            m = 0
            s2 = 0
            e100 = 0
            for j in range(start, stop):
                o = opponent[j]
                if not is_rated[o]:
                    continue  # a rated player's game vs an unrated opponent is not rated for him
                d = capped_difference(rating[p], rating[o], cap, exempt_from)
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
            for j in range(start, stop):
                o = opponent[j]
                if not is_rated[o]:
                    continue  # games between two unrated players are not rated
                opp_sum += rating[o]
                s2 += np.int64(own_score[j] * 2.0 + 0.5)
                m += 1
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
) -> FidePeriodResult:
    """One rating period of FIDE Elo for every player at once (B.02 §8.3).

    For a rated player p with games j against rated opponents (ratings at the
    start of the period): D_j = R_p − R_j, capped at ±``cap`` unless R_p ≥
    ``exempt_from`` (§8.3.1); PD_j from table 8.1.2; ΣΔR = Σ(s_j − PD_j);
    K = min(k_base, ⌊k_times_games_max / n⌋) (§8.3.3, 0 disables the cap);
    change = K × ΣΔR rounded half away from zero once for the period (§8.3.4).

    For an unrated player it returns the games, score and opponents' rating sum
    against rated opponents, the inputs of the initial rating (§8.2).
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
    return FidePeriodResult(
        *_fide_period(
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
        )
    )


INITIAL_METHOD_2024 = 0  # two hypothetical 1800 opponents, two draws, Ru = Ra + dp(p)
INITIAL_METHOD_2022 = 1  # plain Ra; +20 per half point above 50 %, Ra + dp(p) below


@jit
def _initial_one(games, score2, opp_sum, method, hypo_n, hypo_rating, dp_by_percent):
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
        return div_round_half_away(opp_sum + 20 * above * games, games)
    if above == 0:
        return div_round_half_away(opp_sum, games)
    pnum = 100 * score2
    pden = 2 * games
    percent = (2 * pnum + pden) // (2 * pden)
    return div_round_half_away(opp_sum + dp_by_percent[percent] * games, games)


@jit_parallel
def _fide_initial_rating(games, score2, opp_sum, method, hypo_n, hypo_rating, max_rating, dp):
    out = np.empty(games.shape[0], dtype=np.int64)
    for i in prange(games.shape[0]):
        if games[i] <= 0:
            out[i] = 0
            continue
        r = _initial_one(games[i], score2[i], opp_sum[i], method, hypo_n, hypo_rating, dp)
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
) -> np.ndarray:
    """Initial ratings Ru of unrated players from pooled games vs rated opponents (B.02 §8.2).

    2024 method: Ra = (ΣR_i + h·1800)/(n + h), p = (W + h/2)/(n + h) rounded to a
    whole percent (0.5 up, as Title Regulations 1.4.9), Ru = Ra + dp(p) (table
    8.1.1) rounded to the nearest integer, at most ``max_rating`` (0 = no cap).
    2022 method: Ra = ΣR_i/n; Ru = Ra + 20 per half point above 50 %, Ra at
    50 %, Ra + dp(p) below. ``score2`` is W in half points; rows with no games give 0.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    score2 = np.ascontiguousarray(score2, dtype=np.int64)
    opp_sum = np.ascontiguousarray(opp_sum, dtype=np.int64)
    dp = np.ascontiguousarray(dp_by_percent, dtype=np.int64)
    if dp.shape != (101,):
        raise ValueError("dp_by_percent must have 101 entries (p = 0.00 .. 1.00)")
    if not (games.shape == score2.shape == opp_sum.shape):
        raise ValueError("games, score2 and opp_sum must have the same shape")
    return _fide_initial_rating(
        games,
        score2,
        opp_sum,
        np.int64(method),
        np.int64(hypothetical_games),
        np.int64(hypothetical_rating),
        np.int64(max_rating),
        dp,
    )
