"""US Chess (USCF) event rating: effective games, special and standard formulas, floors.

Sources: Glickman & Doan, "The US Chess Rating system" (2004 HTML version and
the 2015+ revisions), "Approximating Formulas for the US Chess Rating System"
(2015/2017); docs/uscf.md. One call rates a set of events that share no player
(a "layer"), in the five-step order of the US Chess algorithm:

1. (caller) initial ratings R0 for unrated players; 2. effective games N';
3. a first estimate for players with N = 0, from their games against rated
   opponents (special formula), used only as their opponents' view of them;
4. intermediate ratings for all, opponents at R0 (rated) or the step 3 estimate;
5. final ratings, opponents at their intermediate ratings.

Each player owns the slices ``offsets[p]:offsets[p + 1]`` of the games arrays and
of the scratch buffers, so the three passes are ``prange`` loops over players.
"""

import math
from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange

N_STAR_2015 = 0  # N* = 50/√(0.662 + 0.00000739(2569 − R0)²) for R0 ≤ 2355, else 50
N_STAR_2004 = 1  # N* = 50/√(1 + (2200 − R0)²/100000) for R0 ≤ 2200, else 50


class UscfEventResult(NamedTuple):
    first_estimate: np.ndarray  # float64, step 3 (R0 for players with N > 0)
    intermediate: np.ndarray  # float64, step 4
    final: np.ndarray  # float64, step 5 (before floors)
    special: np.ndarray  # bool, rated with the special formula
    k: np.ndarray  # float64, K of the standard formula (NaN when special / no games)
    expected: np.ndarray  # float64, Σ We(R0, R_i) with opponents at their step 4 ratings
    games: np.ndarray  # int32, m
    score: np.ndarray  # float64, S
    wins: np.ndarray  # int32
    draws: np.ndarray  # int32


@jit
def effective_games_cap(r0, formula):
    """N* for a prior rating R0 (``formula`` N_STAR_2015 or N_STAR_2004)."""
    if formula == N_STAR_2004:
        if r0 > 2200.0:
            return 50.0
        return 50.0 / math.sqrt(1.0 + (2200.0 - r0) ** 2 / 100000.0)
    if r0 > 2355.0:
        return 50.0
    return 50.0 / math.sqrt(0.662 + 0.00000739 * (2569.0 - r0) ** 2)


@jit
def _effective_games(rating, n_games, formula):
    out = np.empty(rating.shape[0], dtype=np.float64)
    for i in range(rating.shape[0]):
        out[i] = min(float(n_games[i]), effective_games_cap(rating[i], formula))
    return out


def effective_games(rating: np.ndarray, n_games: np.ndarray, formula: int = N_STAR_2015):
    """N' = min(N, N*(R0)) (USCF step 2). R0 1700: N* 20.012 (2015+), 26.7 (2004)."""
    rating = np.ascontiguousarray(np.atleast_1d(rating), dtype=np.float64)
    n_games = np.ascontiguousarray(np.atleast_1d(n_games), dtype=np.float64)
    if rating.shape != n_games.shape or rating.ndim != 1:
        raise ValueError("rating and n_games must be 1-D arrays of one length")
    if formula not in (N_STAR_2015, N_STAR_2004):
        raise ValueError("formula must be N_STAR_2015 or N_STAR_2004")
    return _effective_games(rating, n_games, np.int64(formula))


@jit
def _event_layers(rank, n_ranks, white, black, n_players):
    n = rank.shape[0]
    # games grouped by event rank (stable counting sort)
    start = np.zeros(n_ranks + 1, dtype=np.int64)
    for g in range(n):
        start[rank[g] + 1] += 1
    for e in range(n_ranks):
        start[e + 1] += start[e]
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for g in range(n):
        order[fill[rank[g]]] = g
        fill[rank[g]] += 1
    last = np.full(n_players, -1, dtype=np.int64)  # each player's latest layer
    layer_of = np.zeros(n_ranks, dtype=np.int64)
    for e in range(n_ranks):
        top = -1
        for i in range(start[e], start[e + 1]):
            g = order[i]
            top = max(top, last[white[g]], last[black[g]])
        layer_of[e] = top + 1
        for i in range(start[e], start[e + 1]):
            g = order[i]
            last[white[g]] = top + 1
            last[black[g]] = top + 1
    out = np.empty(n, dtype=np.int64)
    for g in range(n):
        out[g] = layer_of[rank[g]]
    return out


def event_layers(event: np.ndarray, white: np.ndarray, black: np.ndarray) -> np.ndarray:
    """Layer of each game: events in one layer share no player, and a player's events
    come in ascending event order. Events are taken in ascending order (−1, a period's
    games without an event id, first); an event's layer is one above the highest layer
    any of its players has played in so far (0 for the first)."""
    event = np.asarray(event, dtype=np.int64)
    if event.size == 0:
        return np.empty(0, dtype=np.int64)
    white = np.ascontiguousarray(white, dtype=np.int64)
    black = np.ascontiguousarray(black, dtype=np.int64)
    if not (white.shape == black.shape == event.shape) or event.ndim != 1:
        raise ValueError("event, white and black must be 1-D arrays of one length")
    if min(white.min(), black.min()) < 0:
        raise ValueError("player indices must not be negative")
    low, high = int(event.min()), int(event.max())
    if low == high:  # one event (or none given): one layer
        return np.zeros(event.size, dtype=np.int64)
    if high - low < 2 * event.size + 1024:  # dense codes: rank = code - lowest code
        rank, n_ranks = event - low, high - low + 1
    else:
        unique, rank = np.unique(event, return_inverse=True)
        n_ranks = unique.size
    n_players = int(max(white.max(), black.max())) + 1
    return _event_layers(
        np.ascontiguousarray(rank, dtype=np.int64), n_ranks, white, black, n_players
    )


@jit
def provisional_expectancy(r, r_opp):
    """PWe = 0 if R ≤ Ri − 400, 1 if R ≥ Ri + 400, else 0.5 + (R − Ri)/800."""
    if r <= r_opp - 400.0:
        return 0.0
    if r >= r_opp + 400.0:
        return 1.0
    return 0.5 + (r - r_opp) / 800.0


@jit
def _special_objective(r, prior_adj, n_eff, opp, lo, hi, score_adj):
    f = n_eff * provisional_expectancy(r, prior_adj) - score_adj
    for j in range(lo, hi):
        f += provisional_expectancy(r, opp[j])
    return f


@jit
def special_rating(prior, prior_adj, n_eff, opp, lo, hi, score_adj, breaks, b0, tol):
    """Solve N'·PWe(R, R0') + Σ PWe(R, R_i) = S' for R (USCF special formula).

    The left side is piecewise linear and non-decreasing in R with corners at
    R_i ± 400 and R0' ± 400. Where it crosses S' the root is unique; where it
    equals S' on a whole interval (no opponent within 400 points), the prior R0 is
    clipped into that interval (Glickman's step 4 of the special procedure).
    ``opp[lo:hi]`` are the opponents' ratings; ``breaks[b0:b0 + 2(hi − lo) + 2]``
    is scratch space owned by the caller.
    """
    nb = 0
    for j in range(lo, hi):
        breaks[b0 + nb] = opp[j] - 400.0
        breaks[b0 + nb + 1] = opp[j] + 400.0
        nb += 2
    if n_eff > 0.0:
        breaks[b0 + nb] = prior_adj - 400.0
        breaks[b0 + nb + 1] = prior_adj + 400.0
        nb += 2
    z = breaks[b0 : b0 + nb]
    z.sort()  # in place: the caller's scratch space, no allocation per player
    k = 0
    fk = _special_objective(z[0], prior_adj, n_eff, opp, lo, hi, score_adj)
    while fk < -tol:
        k += 1
        fk = _special_objective(z[k], prior_adj, n_eff, opp, lo, hi, score_adj)
    if fk > tol:
        # strictly increasing through the root between z[k − 1] and z[k]
        f_prev = _special_objective(z[k - 1], prior_adj, n_eff, opp, lo, hi, score_adj)
        return z[k - 1] + (z[k] - z[k - 1]) * (-f_prev) / (fk - f_prev)
    # f = 0 from z[k] (or from −∞ when k = 0) to the last corner where it is still 0
    low = -np.inf if k == 0 else z[k]
    last = k
    while last + 1 < nb:
        if _special_objective(z[last + 1], prior_adj, n_eff, opp, lo, hi, score_adj) > tol:
            break
        last += 1
    high = np.inf if last == nb - 1 else z[last]
    return min(max(prior, low), high)


@jit
def _meetings_at_most(opponent, lo, hi, most):
    """True when no opponent appears more than ``most`` times in ``opponent[lo:hi]``."""
    if hi - lo > 64:  # long events: sort a copy
        mine = np.sort(opponent[lo:hi])
        run = 1
        for j in range(1, hi - lo):
            run = run + 1 if mine[j] == mine[j - 1] else 1
            if run > most:
                return False
        return True
    for j in range(lo, hi):  # short ones: count each opponent's earlier meetings
        seen = 1
        for i in range(lo, j):
            if opponent[i] == opponent[j]:
                seen += 1
        if seen > most:
            return False
    return True


@jit
def _rate_one(
    p,
    lo,
    hi,
    opp,
    opponent,
    own_score,
    rating0,
    n_games,
    n_eff,
    all_wins,
    all_losses,
    breaks,
    k_numerator,
    bonus_b,
    bonus_min_games,
    bonus_max_meetings,
    bonus_min_m,
    special_max_games,
    special_max,
    tol,
    given_expected,
):
    """(rating, K or NaN, used special) of player p against ``opp[lo:hi]``.
    ``given_expected``: Σ We(R0, opp[j]) already summed by the caller in the same
    order (NaN: summed here)."""
    m = hi - lo
    s = 0.0
    for j in range(lo, hi):
        s += own_score[j]
    r0 = rating0[p]
    special = n_games[p] <= special_max_games or all_wins[p] or all_losses[p]
    if special:
        if n_games[p] > 0 and all_wins[p]:
            prior_adj = r0 - 400.0
            score_adj = s + n_eff[p]
        elif n_games[p] > 0 and all_losses[p]:
            prior_adj = r0 + 400.0
            score_adj = s
        else:
            prior_adj = r0
            score_adj = s + n_eff[p] / 2.0
        r = special_rating(
            r0, prior_adj, n_eff[p], opp, lo, hi, score_adj, breaks, 2 * lo + 2 * p, tol
        )
        if n_games[p] == 0 and r > special_max:
            r = special_max
        return r, np.nan, True
    e = given_expected
    if e != e:
        e = 0.0
        for j in range(lo, hi):
            e += 1.0 / (1.0 + 10.0 ** (-(r0 - opp[j]) / 400.0))
    k = k_numerator / (n_eff[p] + m)
    change = k * (s - e)
    bonus = m >= bonus_min_games and _meetings_at_most(opponent, lo, hi, bonus_max_meetings)
    if bonus:
        threshold = bonus_b * math.sqrt(max(m, bonus_min_m))
        return r0 + change + max(0.0, change - threshold), k, False
    return r0 + change, k, False


@jit_parallel
def _uscf_event_layer(
    rating0,
    n_games,
    n_eff,
    all_wins,
    all_losses,
    offsets,
    opponent,
    own_score,
    is_white,
    k_numerator,
    bonus_b,
    bonus_min_games,
    bonus_max_meetings,
    bonus_min_m,
    special_max_games,
    special_max,
    first_estimate_prior_games,
    white_advantage,
    tol,
):
    n = rating0.shape[0]
    total = opponent.shape[0]
    opp = np.empty(total, dtype=np.float64)  # opponents' ratings as the player sees them
    breaks = np.empty(2 * total + 2 * n, dtype=np.float64)
    # White's advantage enters as a lower (as White) or higher (as Black) opponent rating.
    shift = np.empty(total, dtype=np.float64)
    for j in prange(total):
        shift[j] = -white_advantage if is_white[j] else white_advantage
    first = rating0.copy()
    inter = rating0.copy()
    final = rating0.copy()
    special = np.zeros(n, dtype=np.bool_)
    k = np.full(n, np.nan)
    expected = np.zeros(n, dtype=np.float64)
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.int32)
    draws = np.zeros(n, dtype=np.int32)

    # Step 3: players with N = 0, from their games against rated opponents only.
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        if hi == lo or n_games[p] > 0:
            continue
        c = lo
        s = 0.0
        for j in range(lo, hi):
            o = opponent[j]
            if n_games[o] > 0:
                opp[c] = rating0[o] + shift[j]
                s += own_score[j]
                c += 1
        if c > lo:
            first[p] = special_rating(
                rating0[p],
                rating0[p],
                first_estimate_prior_games,
                opp,
                lo,
                c,
                s + first_estimate_prior_games / 2.0,
                breaks,
                2 * lo + 2 * p,
                tol,
            )
    # Step 4: intermediate ratings; opponents at R0, or their step 3 estimate.
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        if hi == lo:
            continue
        for j in range(lo, hi):
            opp[j] = first[opponent[j]] + shift[j]
        inter[p], _, _ = _rate_one(
            p, lo, hi, opp, opponent, own_score, rating0, n_games, n_eff, all_wins,
            all_losses, breaks, k_numerator, bonus_b, bonus_min_games, bonus_max_meetings,
            bonus_min_m, special_max_games, special_max, tol, np.nan,
        )  # fmt: skip
    # Step 5: final ratings; opponents at their intermediate ratings.
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        if hi == lo:
            continue
        e = 0.0
        s = 0.0
        w = 0
        d = 0
        for j in range(lo, hi):
            opp[j] = inter[opponent[j]] + shift[j]
            e += 1.0 / (1.0 + 10.0 ** (-(rating0[p] - opp[j]) / 400.0))
            s += own_score[j]
            if own_score[j] == 1.0:
                w += 1
            elif own_score[j] == 0.5:
                d += 1
        final[p], k[p], special[p] = _rate_one(
            p, lo, hi, opp, opponent, own_score, rating0, n_games, n_eff, all_wins,
            all_losses, breaks, k_numerator, bonus_b, bonus_min_games, bonus_max_meetings,
            bonus_min_m, special_max_games, special_max, tol, e,
        )  # fmt: skip
        expected[p] = e
        games[p] = hi - lo
        score[p] = s
        wins[p] = w
        draws[p] = d
    return first, inter, final, special, k, expected, games, score, wins, draws


def uscf_event_layer(
    rating0: np.ndarray,
    n_games: np.ndarray,
    n_eff: np.ndarray,
    all_wins: np.ndarray,
    all_losses: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    k_numerator: float = 800.0,
    bonus_b: float = 14.0,
    bonus_min_games: int = 3,
    bonus_max_meetings: int = 2,
    bonus_min_m: int = 4,
    special_max_games: int = 8,
    special_max: float = np.inf,
    first_estimate_prior_games: float = 1.0,
    white_advantage: float = 0.0,
    tol: float = 1e-7,
) -> UscfEventResult:
    """Rate one layer of events (no player in two of them) by USCF steps 3–5.

    ``rating0`` is R0 (pre-event rating, or the step 1 rating of unrated players),
    ``n_games`` N (0 = unrated), ``n_eff`` N' = min(N, N*), ``all_wins``/``all_losses``
    whether every previous rated game was won/lost. Special formula when N ≤ 8 or
    all-wins/all-losses; else the standard formula with We = 1/(1 + 10^(−(R0 − R_i)/400)),
    K = k_numerator/(N' + m), R = R0 + K(S − E) [+ max(0, K(S − E) − B√max(m, 4)) when
    m ≥ 3 and no opponent is met more than twice]. Floors are applied by the caller.
    """
    rating0 = np.ascontiguousarray(rating0, dtype=np.float64)
    n = rating0.shape[0]
    n_games = np.ascontiguousarray(n_games, dtype=np.int64)
    n_eff = np.ascontiguousarray(n_eff, dtype=np.float64)
    all_wins = np.ascontiguousarray(all_wins, dtype=np.bool_)
    all_losses = np.ascontiguousarray(all_losses, dtype=np.bool_)
    if {a.shape for a in (rating0, n_games, n_eff, all_wins, all_losses)} != {(n,)}:
        raise ValueError("per-player arrays must be 1-D and of one length")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.shape != (n + 1,):
        raise ValueError("offsets must have n_players + 1 entries")
    return UscfEventResult(
        *by_work(_uscf_event_layer, n + len(opponent))(
            rating0,
            n_games,
            n_eff,
            all_wins,
            all_losses,
            offsets,
            np.ascontiguousarray(opponent, dtype=np.int32),
            np.ascontiguousarray(own_score, dtype=np.float64),
            np.ascontiguousarray(is_white, dtype=np.bool_),
            float(k_numerator),
            float(bonus_b),
            int(bonus_min_games),
            int(bonus_max_meetings),
            int(bonus_min_m),
            int(special_max_games),
            float(special_max),
            float(first_estimate_prior_games),
            float(white_advantage),
            float(tol),
        )
    )


def uscf_floor(
    wins_total: np.ndarray,
    draws_total: np.ndarray,
    events_3: np.ndarray,
    peak: np.ndarray,
    established: np.ndarray,
    base: float = 100.0,
    cap: float = 150.0,
    per_win: float = 4.0,
    per_draw: float = 2.0,
    per_event: float = 1.0,
    gap: float = 200.0,
    level_min: float = 1200.0,
    level_max: float = 2100.0,
) -> np.ndarray:
    """Rating floors (docs/uscf.md, S2): absolute floor min(cap, base + 4W + 2D + N_r);
    established players: 100·⌊(peak − gap)/100⌋ when that is ≥ level_min (at most level_max)."""
    absolute = np.minimum(
        cap, base + per_win * wins_total + per_draw * draws_total + per_event * events_3
    )
    level = 100.0 * np.floor((np.nan_to_num(peak, nan=-np.inf) - gap) / 100.0)
    use = established & (level >= level_min)
    return np.where(use, np.maximum(absolute, np.minimum(level, level_max)), absolute)
