"""Generic Elo: logistic curve, one K, optional white advantage, no rounding."""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit_parallel, prange
from arpad.kernels.expected import logistic


class EloPeriodResult(NamedTuple):
    games: np.ndarray  # int32
    score: np.ndarray  # float64
    expected: np.ndarray  # float64
    rating_after: np.ndarray  # float64


@jit_parallel
def _elo_period(rating, offsets, opponent, own_score, is_white, k, white_advantage, scale):
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    expected = np.zeros(n, dtype=np.float64)
    after = rating.copy()
    for p in prange(n):
        s = 0.0
        e = 0.0
        for j in range(offsets[p], offsets[p + 1]):
            adv = white_advantage if is_white[j] else -white_advantage
            e += logistic(rating[p] + adv - rating[opponent[j]], scale)
            s += own_score[j]
        games[p] = offsets[p + 1] - offsets[p]
        score[p] = s
        expected[p] = e
        after[p] = rating[p] + k * (s - e)
    return games, score, expected, after


def elo_period(
    rating: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    k: float,
    white_advantage: float = 0.0,
    scale: float = 400.0,
) -> EloPeriodResult:
    """R' = R + K Σ(s_j − E_j), E_j = 1/(1 + 10^(−(R + a·c_j − R_j)/scale)),
    c_j = +1 as White and −1 as Black (Elo 1978; ratings at the start of the period)."""
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.shape != (rating.shape[0] + 1,):
        raise ValueError("offsets must have n_players + 1 entries")
    return EloPeriodResult(
        *by_work(_elo_period, rating.shape[0] + len(opponent))(
            rating,
            offsets,
            np.ascontiguousarray(opponent, dtype=np.int32),
            np.ascontiguousarray(own_score, dtype=np.float64),
            np.ascontiguousarray(is_white, dtype=np.bool_),
            float(k),
            float(white_advantage),
            float(scale),
        )
    )
