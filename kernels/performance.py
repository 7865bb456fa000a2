"""Performance ratings of every player of a period in one call (docs/legacy-systems.md).

Games are grouped by player (CSR ``offsets``); ``opponent_rating`` holds, per
CSR entry, the rating the opponent had for that game (NaN = unrated: the game
is left out). Three methods, all per player:

* FIDE (Title Regulations 1.4.7–1.4.9): Rp = Ra + dp(p), Ra = average opponent
  rating rounded to the nearest integer (.5 up), p as a whole percentage
  (.5 up), dp from table 8.1.1 (``dp_by_percent``, 0 % → −800, 100 % → +800).
* Linear ("algorithm of 400", Elo 1978): Rp = Rc + 800 p − 400.
* True: the R with Σ E(R − R_i) = S, by bisection; ``curve`` 0 = normal
  (E(d) = Φ(d / (200√2)), the curve behind FIDE's tables), 1 = logistic
  (E(d) = 1 / (1 + 10^(−d/400))). At 0 % and 100 % the root is ±∞; arpad
  adds one draw against a virtual opponent of the player's own rating (the
  average opponent when the player has none) and flags the player (docs/legacy-systems.md).
"""

import math
from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange
from arpad.kernels.rounding import round_half_up

CURVE_NORMAL = 0
CURVE_LOGISTIC = 1
CURVES = {"normal": CURVE_NORMAL, "logistic": CURVE_LOGISTIC}


class PerformanceResult(NamedTuple):
    games: np.ndarray  # int32: games against rated opponents
    score: np.ndarray  # float64: points in those games
    average_opponent: np.ndarray  # float64 Rc (unrounded), NaN without games
    fide: np.ndarray  # float64 Ra + dp(p), integer-valued, NaN without games
    linear: np.ndarray  # float64 Rc + 800p − 400
    true: np.ndarray  # float64 root of Σ E = S
    extreme: np.ndarray  # bool: 0 % or 100 % (true performance used the virtual draw)


@jit
def expected_curve(d, curve):
    """Expected score at rating difference d on the chosen curve."""
    if curve == CURVE_NORMAL:
        return 0.5 * (1.0 + math.erf(d / 400.0))  # Φ(d / (200√2)) = ½(1 + erf(d/400))
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


@jit
def true_performance_one(opponent_rating, lo_entry, hi_entry, target, extra_rating, curve, tol):
    """R with Σ_j E(R − R_j) (+ E(R − extra) if extra is finite) = target.

    Safeguarded Newton: E is strictly increasing, so a bracket [lo, hi] is kept
    and any Newton step that leaves it is replaced by bisection; stops when the
    step or the bracket is below ``tol``.
    """
    lo = math.inf
    hi = -math.inf
    for j in range(lo_entry, hi_entry):
        r = opponent_rating[j]
        if r == r:
            lo = min(lo, r)
            hi = max(hi, r)
    if extra_rating == extra_rating:
        lo = min(lo, extra_rating)
        hi = max(hi, extra_rating)
    # Widen the bracket until it holds the root.
    lo -= 800.0
    hi += 800.0
    for _ in range(60):
        if _sum_expected(opponent_rating, lo_entry, hi_entry, lo, extra_rating, curve) <= target:
            break
        lo -= 800.0
    for _ in range(60):
        if _sum_expected(opponent_rating, lo_entry, hi_entry, hi, extra_rating, curve) >= target:
            break
        hi += 800.0
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f = -target
        slope = 0.0
        for j in range(lo_entry, hi_entry):
            o = opponent_rating[j]
            if o == o:
                f += expected_curve(x - o, curve)
                slope += expected_slope(x - o, curve)
        if extra_rating == extra_rating:
            f += expected_curve(x - extra_rating, curve)
            slope += expected_slope(x - extra_rating, curve)
        if f < 0.0:
            lo = x
        else:
            hi = x
        if hi - lo <= tol:
            return 0.5 * (lo + hi)
        nxt = x - f / slope if slope > 0.0 else 0.5 * (lo + hi)
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if abs(nxt - x) <= 0.5 * tol:
            return nxt
        x = nxt
    return x


@jit
def expected_slope(d, curve):
    """dE/dd of ``expected_curve``."""
    if curve == CURVE_NORMAL:
        z = d / 400.0
        return math.exp(-z * z) / (400.0 * math.sqrt(math.pi))
    e = 1.0 / (1.0 + 10.0 ** (-d / 400.0))
    return e * (1.0 - e) * math.log(10.0) / 400.0


@jit
def _sum_expected(opponent_rating, lo_entry, hi_entry, r, extra_rating, curve):
    total = 0.0
    for j in range(lo_entry, hi_entry):
        o = opponent_rating[j]
        if o == o:
            total += expected_curve(r - o, curve)
    if extra_rating == extra_rating:
        total += expected_curve(r - extra_rating, curve)
    return total


@jit
def _sum_logistic_powers(opponent_power, lo_entry, hi_entry, x_power, extra_power):
    """Σ_j E and Σ_j E(1 − E) on the logistic curve from powers: with X = 10^(x/400) and
    q_j = 10^(R_j/400), E(x − R_j) = X / (X + q_j), one division per game."""
    total = 0.0
    spread = 0.0
    for j in range(lo_entry, hi_entry):
        q = opponent_power[j]
        if q == q:
            e = x_power / (x_power + q)
            total += e
            spread += e * (1.0 - e)
    if extra_power == extra_power:
        e = x_power / (x_power + extra_power)
        total += e
        spread += e * (1.0 - e)
    return total, spread


@jit
def true_performance_logistic(
    opponent_rating, opponent_power, lo_entry, hi_entry, target, extra_rating, tol
):
    """``true_performance_one`` on the logistic curve with the opponents' powers
    q_j = 10^(R_j/400) computed once per player by the caller: one ``pow`` per
    iteration instead of one per game.

    Newton from the linear performance Rc + 800 p − 400 (near the root), steps capped
    at 800 points; every evaluation narrows a bracket [lo, hi] (E is increasing), and
    once both ends are known a step that leaves the bracket is replaced by bisection.
    Stops when the step or the bracket is below ``tol``.
    """
    count = 0
    total_rating = 0.0
    for j in range(lo_entry, hi_entry):
        r = opponent_rating[j]
        if r == r:
            count += 1
            total_rating += r
    extra_power = np.nan
    if extra_rating == extra_rating:
        count += 1
        total_rating += extra_rating
        extra_power = 10.0 ** (extra_rating / 400.0)
    x = total_rating / count + 800.0 * target / count - 400.0
    lo = -math.inf
    hi = math.inf
    slope_factor = math.log(10.0) / 400.0
    for _ in range(400):
        total, spread = _sum_logistic_powers(
            opponent_power, lo_entry, hi_entry, 10.0 ** (x / 400.0), extra_power
        )
        f = total - target
        if f == 0.0:
            return x
        if f < 0.0:
            lo = x
        else:
            hi = x
        if hi - lo <= tol:
            return 0.5 * (lo + hi)
        slope = spread * slope_factor
        if slope > 0.0:
            step = -f / slope
            if step > 800.0:
                step = 800.0
            elif step < -800.0:
                step = -800.0
        else:
            step = 800.0 if f < 0.0 else -800.0
        if abs(step) <= 0.5 * tol:
            return x + step
        nxt = x + step
        if not (lo < nxt < hi):
            # Both ends are known here (a step goes towards the unknown end), so this is
            # the bisection safeguard of a Newton step that overshot.
            nxt = 0.5 * (lo + hi)
        x = nxt
    return x


@jit_parallel
def _performance_period(
    offsets,
    opponent_rating,
    opponent_power,
    own_score,
    own_rating,
    dp_by_percent,
    curve,
    tol,
    with_true,
):
    n = offsets.shape[0] - 1
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    average = np.full(n, np.nan)
    fide = np.full(n, np.nan)
    linear = np.full(n, np.nan)
    true = np.full(n, np.nan)
    extreme = np.zeros(n, dtype=np.bool_)
    for p in prange(n):
        g = 0
        s2 = 0  # twice the score: exact for results 1, ½, 0
        total = 0.0
        for j in range(offsets[p], offsets[p + 1]):
            r = opponent_rating[j]
            if r == r:
                g += 1
                s2 += np.int64(round_half_up(2.0 * own_score[j]))
                total += r
        games[p] = g
        score[p] = s2 / 2.0
        if g == 0:
            continue
        rc = total / g
        average[p] = rc
        # Title Regulations 1.4.7/1.4.8: Ra and the percentage are rounded, .5 up.
        ra = round_half_up(rc)
        percent = (100 * s2 + g) // (2 * g)  # round_half_up(100 * s2 / (2g)), exactly
        fide[p] = ra + dp_by_percent[percent]
        linear[p] = rc + 800.0 * (s2 / (2.0 * g)) - 400.0
        extra = np.nan
        target = s2 / 2.0
        if s2 == 0 or s2 == 2 * g:
            extreme[p] = True
            extra = own_rating[p] if own_rating[p] == own_rating[p] else rc
            target += 0.5
        if with_true and curve == CURVE_LOGISTIC:
            true[p] = true_performance_logistic(
                opponent_rating, opponent_power, offsets[p], offsets[p + 1], target, extra, tol
            )
        elif with_true:
            true[p] = true_performance_one(
                opponent_rating, offsets[p], offsets[p + 1], target, extra, curve, tol
            )
    return games, score, average, fide, linear, true, extreme


def performance_period(
    offsets: np.ndarray,
    opponent_rating: np.ndarray,
    own_score: np.ndarray,
    own_rating: np.ndarray,
    dp_by_percent: np.ndarray,
    curve: str = "normal",
    tol: float = 1e-7,
    with_true: bool = True,
    opponent_power: np.ndarray | None = None,
) -> PerformanceResult:
    """FIDE, linear and true performance of every player (see the module docstring).

    ``offsets`` int64[n+1]; ``opponent_rating`` and ``own_score`` one entry per
    CSR entry; ``own_rating`` float64[n] (NaN = none; used only for the virtual
    draw at 0 %/100 %); ``dp_by_percent`` the 101 entries of FIDE table 8.1.1.
    ``with_true=False`` skips the root finding (``true`` is then NaN).
    ``opponent_power``: per CSR entry 10^(R_j/400) for the logistic true performance
    (computed here when None; a caller with per-player ratings passes
    ``(10 ** (rating / 400))[opponent]``, one power per player instead of per game).
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    opponent_rating = np.ascontiguousarray(opponent_rating, dtype=np.float64)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    own_rating = np.ascontiguousarray(own_rating, dtype=np.float64)
    table = np.ascontiguousarray(dp_by_percent, dtype=np.float64)
    if offsets.ndim != 1 or offsets.shape[0] < 1:
        raise ValueError("offsets must be a 1-D array of n_players + 1 entries")
    entries = int(offsets[-1])
    if opponent_rating.shape != (entries,) or own_score.shape != (entries,):
        raise ValueError("opponent_rating and own_score need one entry per CSR entry")
    if own_rating.shape != (offsets.shape[0] - 1,):
        raise ValueError("own_rating needs one entry per player")
    if table.shape != (101,):
        raise ValueError("dp_by_percent must hold the 101 entries of table 8.1.1")
    if curve not in CURVES:
        raise ValueError(f"curve must be one of {', '.join(CURVES)}")
    if with_true and CURVES[curve] == CURVE_LOGISTIC:
        if opponent_power is None:
            opponent_power = np.power(10.0, opponent_rating / 400.0)
        opponent_power = np.ascontiguousarray(opponent_power, dtype=np.float64)
        if opponent_power.shape != (entries,):
            raise ValueError("opponent_power needs one entry per CSR entry")
    else:
        opponent_power = np.empty(0, dtype=np.float64)  # not read
    return PerformanceResult(
        *by_work(_performance_period, offsets.shape[0] + entries)(
            offsets,
            opponent_rating,
            opponent_power,
            own_score,
            own_rating,
            table,
            CURVES[curve],
            float(tol),
            bool(with_true),
        )
    )
