"""Generic Elo: logistic curve, one K, optional white advantage, no rounding.

The expectation E = 1/(1 + 10^(−(R + a·c − R_opp)/scale)) equals P·A^c/(P·A^c + P_opp)
with P = 10^(R/scale) per player and A = 10^(a/scale): ``elo_period`` takes the
power once per player (one ``pow`` per player instead of one per game, then one
division per game) whenever the ratings' spread keeps every power a normal float,
and the per-game ``pow`` otherwise. Both sum each player's games in input order;
they agree to about 1e-13 rating points (docs/developing.md "The engine").
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange
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


# Powers are used while the ratings span at most this many decades of 10^(R/scale) around
# their midpoint on each side (far from float64's 1e±308 overflow and denormals).
POWER_HALF_SPAN = 250.0


@jit_parallel
def _elo_period_powers(rating, offsets, opponent, own_score, is_white, k, advantage, scale, centre):
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    expected = np.zeros(n, dtype=np.float64)
    after = rating.copy()
    power = np.empty(n, dtype=np.float64)
    for p in prange(n):
        power[p] = 10.0 ** ((rating[p] - centre) / scale)
    up = 10.0 ** (advantage / scale)  # White's side: P·A, Black's: P/A (A = 1 without advantage)
    for p in prange(n):
        s = 0.0
        e = 0.0
        as_white = power[p] * up
        as_black = power[p] / up
        for j in range(offsets[p], offsets[p + 1]):
            mine = as_white if is_white[j] else as_black
            e += mine / (mine + power[opponent[j]])
            s += own_score[j]
        games[p] = offsets[p + 1] - offsets[p]
        score[p] = s
        expected[p] = e
        after[p] = rating[p] + k * (s - e)
    return games, score, expected, after


@jit
def _elo_period_games(rating, white, black, score, k, advantage, scale, centre):
    """``_elo_period_powers`` walking the games in input order instead of the grouping:
    each player's expectation and score are summed over the same games in the same
    order with the same expressions (White's side of a game before Black's), so the
    results are those of the grouped kernel to the bit, without the counting sort."""
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    total = np.zeros(n, dtype=np.float64)
    expected = np.zeros(n, dtype=np.float64)
    power = np.empty(n, dtype=np.float64)
    for p in range(n):
        power[p] = 10.0 ** ((rating[p] - centre) / scale)
    up = 10.0 ** (advantage / scale)
    for g in range(white.shape[0]):
        w = white[g]
        b = black[g]
        mine = power[w] * up
        expected[w] += mine / (mine + power[b])
        total[w] += score[g]
        games[w] += 1
        mine = power[b] / up
        expected[b] += mine / (mine + power[w])
        total[b] += 1.0 - score[g]
        games[b] += 1
    after = rating.copy()
    for p in range(n):
        after[p] = rating[p] + k * (total[p] - expected[p])
    return games, total, expected, after


def elo_period_games(
    rating: np.ndarray,
    white: np.ndarray,
    black: np.ndarray,
    score: np.ndarray,
    k: float,
    white_advantage: float = 0.0,
    scale: float = 400.0,
) -> EloPeriodResult | None:
    """``elo_period`` from the period's games as they are (dense player indices of White
    and Black, White's score), equal to it to the bit; None when the ratings' spread
    needs the per-game ``pow`` (then group the games and call ``elo_period``)."""
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    white = np.ascontiguousarray(white, dtype=np.int32)
    black = np.ascontiguousarray(black, dtype=np.int32)
    score = np.ascontiguousarray(score, dtype=np.float64)
    if not (white.shape == black.shape == score.shape) or white.ndim != 1:
        raise ValueError("white, black and score must be 1-D arrays of one length")
    n = rating.shape[0]
    if white.size and (min(white.min(), black.min()) < 0 or max(white.max(), black.max()) >= n):
        raise ValueError("player index out of range")
    centre = _power_centre(rating, float(white_advantage), float(scale))
    if centre is None:
        return None
    return EloPeriodResult(
        *_elo_period_games(
            rating, white, black, score, float(k), float(white_advantage), float(scale), centre
        )
    )


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
    work = rating.shape[0] + len(opponent)
    arrays = (
        np.ascontiguousarray(opponent, dtype=np.int32),
        np.ascontiguousarray(own_score, dtype=np.float64),
        np.ascontiguousarray(is_white, dtype=np.bool_),
    )
    centre = _power_centre(rating, float(white_advantage), float(scale))
    if centre is not None:
        return EloPeriodResult(
            *by_work(_elo_period_powers, work)(
                rating, offsets, *arrays, float(k), float(white_advantage), float(scale), centre
            )
        )
    return EloPeriodResult(
        *by_work(_elo_period, work)(
            rating,
            offsets,
            *arrays,
            float(k),
            float(white_advantage),
            float(scale),
        )
    )


def _power_centre(rating: np.ndarray, advantage: float, scale: float) -> float | None:
    """The midpoint of the ratings when every 10^((R − mid ± a)/scale) is a normal float
    (spread and advantage within ``POWER_HALF_SPAN`` decades), else None (per-game pow)."""
    if rating.size == 0:
        return 0.0
    low, high = float(rating.min()), float(rating.max())
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    half = (high - low) / 2.0 + abs(advantage)
    if half / scale > POWER_HALF_SPAN:
        return None
    return (low + high) / 2.0
