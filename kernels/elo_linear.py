"""Elo's linear approximation of the rating change (Elo 1978:28–29; docs/legacy-systems.md).

R' = R + (K/2)·[W − L + ½·ΣD_i / C], D_i = R_i − R (opponent minus player),
W − L = points for − points against. Ratings of the start of the period.
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit_parallel, prange


class EloLinearResult(NamedTuple):
    games: np.ndarray  # int32
    score: np.ndarray  # float64
    rating_after: np.ndarray  # float64
    linear_performance: np.ndarray  # float64: Rc + 400·(W − L)/n, NaN without games


@jit_parallel
def _elo_linear_period(rating, offsets, opponent, own_score, k, c):
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    after = rating.copy()
    performance = np.full(n, np.nan)
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        s = 0.0
        sum_d = 0.0
        sum_r = 0.0
        for j in range(lo, hi):
            s += own_score[j]
            sum_d += rating[opponent[j]] - rating[p]
            sum_r += rating[opponent[j]]
        g = hi - lo
        games[p] = g
        score[p] = s
        if g == 0:
            continue
        wins_minus_losses = 2.0 * s - g
        after[p] = rating[p] + 0.5 * k * (wins_minus_losses + 0.5 * sum_d / c)
        performance[p] = sum_r / g + 400.0 * wins_minus_losses / g
    return games, score, after, performance


def elo_linear_period(
    rating: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    k: float,
    c: float = 200.0,
) -> EloLinearResult:
    """Elo's linear update of every player of a period (module docstring)."""
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    opponent = np.ascontiguousarray(opponent, dtype=np.int32)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    if offsets.shape != (rating.shape[0] + 1,):
        raise ValueError("offsets must have n_players + 1 entries")
    if opponent.shape != own_score.shape or opponent.shape != (int(offsets[-1]),):
        raise ValueError("opponent and own_score need one entry per CSR entry")
    if c <= 0:
        raise ValueError("c must be positive")
    return EloLinearResult(
        *by_work(_elo_linear_period, rating.shape[0] + len(opponent))(
            rating, offsets, opponent, own_score, float(k), float(c)
        )
    )
