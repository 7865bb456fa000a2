"""Performance ratings of every player of a period in one call (docs/legacy-systems.md).

Games are grouped by player (CSR ``offsets``); the opponent's rating of CSR entry
j is ``rated[opponent[j], 0]`` (per-player ratings and the CSR's opponent indices;
``performance_period`` also takes one rating per entry), NaN = unrated: the game
is left out. Three methods, all per player:

* FIDE (Title Regulations 1.4.7–1.4.9): Rp = Ra + dp(p), Ra = average opponent
  rating rounded to the nearest integer (.5 up), p as a whole percentage
  (.5 up), dp from table 8.1.1 (``dp_by_percent``, 0 % → −800, 100 % → +800).
* Linear ("algorithm of 400", Elo 1978): Rp = Rc + 800 p − 400.
* True: the R with Σ E(R − R_i) = S, by safeguarded Newton (on the logistic
  curve in X = 10^(R/400), ``true_performance_logistic``); ``curve`` 0 = normal
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
# The logistic curve solved in rating space with a pow per game: only for ratings whose
# powers 10^(R/400) would overflow (|R| ≥ POWER_SAFE_RATING); not a user-facing curve.
CURVE_LOGISTIC_POW = 2
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
def true_performance_one(opponent, rated, lo_entry, hi_entry, target, extra_rating, curve, tol):
    """R with Σ_j E(R − R_j) (+ E(R − extra) if extra is finite) = target, where
    R_j = ``rated[opponent[j], 0]`` (NaN: the game is left out).

    Safeguarded Newton: E is strictly increasing, so a bracket [lo, hi] is kept
    and any Newton step that leaves it is replaced by bisection; stops when the
    step or the bracket is below ``tol``.
    """
    lo = math.inf
    hi = -math.inf
    for j in range(lo_entry, hi_entry):
        r = rated[opponent[j], 0]
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
        if _sum_expected(opponent, rated, lo_entry, hi_entry, lo, extra_rating, curve) <= target:
            break
        lo -= 800.0
    for _ in range(60):
        if _sum_expected(opponent, rated, lo_entry, hi_entry, hi, extra_rating, curve) >= target:
            break
        hi += 800.0
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f = -target
        slope = 0.0
        for j in range(lo_entry, hi_entry):
            o = rated[opponent[j], 0]
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
def _sum_expected(opponent, rated, lo_entry, hi_entry, r, extra_rating, curve):
    total = 0.0
    for j in range(lo_entry, hi_entry):
        o = rated[opponent[j], 0]
        if o == o:
            total += expected_curve(r - o, curve)
    if extra_rating == extra_rating:
        total += expected_curve(r - extra_rating, curve)
    return total


@jit
def _logistic_terms(opponent, rated, lo_entry, hi_entry, extra_power, x, target, stable):
    """F(X) = Σ X/(X + q_j) − S over a player's games (and the virtual draw's
    ``extra_power``), with F', B = −F''/2 = Σ q/(X + q)^3 and T = F'''/6 = Σ q/(X + q)^4.
    ``stable``: a term X/(X + q) near 1 is summed as 1 − q/(X + q), the 1s counted
    exactly, so a small q/(X + q) keeps its digits (it decides the root when F' is
    tiny: opponents thousands of points apart)."""
    f = 0.0
    whole = 0
    slope = 0.0
    bend = 0.0
    twist = 0.0
    for j in range(lo_entry, hi_entry + 1):
        if j < hi_entry:
            q = rated[opponent[j], 1]
        else:
            q = extra_power
        if q == q:
            inv = 1.0 / (x + q)
            if stable and x > q:
                f -= q * inv
                whole += 1
            else:
                f += x * inv
            qi2 = q * inv * inv
            slope += qi2
            bend += qi2 * inv
            twist += qi2 * inv * inv
    return f + (whole - target), slope, bend, twist


@jit
def true_performance_logistic(
    opponent, rated, lo_entry, hi_entry, target, extra_rating, count, total_rating, spread, tol
):
    """``true_performance_one`` on the logistic curve, solved for X = 10^(R/400).

    ``rated[i]`` = (R_i, q_i = 10^(R_i/400)): the powers are taken once per rating by
    the caller and sit next to the ratings (one cache line per opponent). ``count``,
    ``total_rating`` and ``spread`` (max − min) of the rated opponents come from the
    caller's own pass over the games, without the virtual draw.
    E(R − R_j) = X/(X + q_j), so F(X) = Σ_j X/(X + q_j) − S is increasing and concave
    in X > 0 (0 < S < games: a 0 % or 100 % score has its virtual draw). No ``pow``
    per iteration, one division per game; R = 400 log10(X) at the end.

    Halley's method (cubic convergence; about two iterations from the start) from the
    linear performance Rc + 800 p − 400, inside a bracket [lo, hi] that every
    evaluation narrows (F < 0: the root is above X); a step that leaves the bracket is
    replaced by a Newton step, and if that leaves it too, by the bracket's midpoint
    (a factor 100, 800 points, towards an end not known yet).
    After a step d the error left is about K d^3 with K = (F''/2F')^2 − F'''/6F'; it
    stops when 10·|K|·d^3, d itself or the bracket moves R by less than ``tol``/2.
    """
    extra_power = np.nan
    if extra_rating == extra_rating:
        count += 1
        total_rating += extra_rating
        extra_power = 10.0 ** (extra_rating / 400.0)
        spread = max(spread, 2.0 * abs(extra_rating - total_rating / count))
    # Terms near 1 lose digits to rounding only when opponents are far apart.
    stable = spread > 1600.0
    x = 10.0 ** ((total_rating / count + 800.0 * target / count - 400.0) / 400.0)
    relative_tol = 0.5 * tol * math.log(10.0) / 400.0  # X·t moves R by about tol/2
    lo = 0.0
    hi = math.inf
    for _ in range(200):
        f, slope, bend, twist = _logistic_terms(
            opponent, rated, lo_entry, hi_entry, extra_power, x, target, stable
        )
        if f == 0.0 or slope <= 0.0:
            break
        if f < 0.0:
            lo = x
        else:
            hi = x
        step = -f * slope / (slope * slope + f * bend)  # Halley, with F'' = −2B
        if abs(step) <= relative_tol * x:
            x += step
            break
        nxt = x + step
        if not (lo < nxt < hi):
            # Newton instead (F is concave: it lands at or left of the root), else the
            # bracket's midpoint, or a factor 100 (800 points) towards its open end.
            nxt = x - f / slope
            if not (lo < nxt < hi):
                if hi == math.inf:
                    nxt = 100.0 * x
                elif lo == 0.0:
                    nxt = x / 100.0
                else:
                    nxt = 0.5 * (lo + hi)
            step = nxt - x
        ratio = bend / slope
        left = 10.0 * (ratio * ratio + twist / slope) * abs(step) ** 3
        x = nxt
        if left <= relative_tol * x or hi - lo <= relative_tol * x:
            break
    return 400.0 * math.log10(x)


@jit_parallel
def _performance_period(
    offsets,
    opponent,
    rated,
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
        low = math.inf
        high = -math.inf
        for j in range(offsets[p], offsets[p + 1]):
            r = rated[opponent[j], 0]
            if r == r:
                g += 1
                s2 += np.int64(round_half_up(2.0 * own_score[j]))
                total += r
                low = min(low, r)
                high = max(high, r)
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
                opponent,
                rated,
                offsets[p],
                offsets[p + 1],
                target,
                extra,
                g,
                total,
                high - low,
                tol,
            )
        elif with_true:
            true[p] = true_performance_one(
                opponent, rated, offsets[p], offsets[p + 1], target, extra, curve, tol
            )
    return games, score, average, fide, linear, true, extreme


# Powers 10^(R/400) are exact floats (no overflow or denormal) while |R| stays below this.
POWER_SAFE_RATING = 100_000.0


def performance_period(
    offsets: np.ndarray,
    opponent_rating: np.ndarray,
    own_score: np.ndarray,
    own_rating: np.ndarray,
    dp_by_percent: np.ndarray,
    curve: str = "normal",
    tol: float = 1e-7,
    with_true: bool = True,
    opponent: np.ndarray | None = None,
) -> PerformanceResult:
    """FIDE, linear and true performance of every player (see the module docstring).

    ``offsets`` int64[n+1]; ``own_score`` one entry per CSR entry; ``own_rating``
    float64[n] (NaN = none; used only for the virtual draw at 0 %/100 %);
    ``dp_by_percent`` the 101 entries of FIDE table 8.1.1. Opponents' ratings:
    ``opponent_rating`` holds one per CSR entry, or, with ``opponent`` (the CSR's
    opponent indices), one per player, read as ``opponent_rating[opponent[j]]``
    inside the kernel (the engine's case: no per-game gather, and the logistic
    curve's powers 10^(R/400) taken once per player).
    ``with_true=False`` skips the root finding (``true`` is then NaN).
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    rating_of = np.ascontiguousarray(opponent_rating, dtype=np.float64)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    own_rating = np.ascontiguousarray(own_rating, dtype=np.float64)
    table = np.ascontiguousarray(dp_by_percent, dtype=np.float64)
    if offsets.ndim != 1 or offsets.shape[0] < 1:
        raise ValueError("offsets must be a 1-D array of n_players + 1 entries")
    entries = int(offsets[-1])
    if opponent is None:
        if rating_of.shape != (entries,):
            raise ValueError("opponent_rating and own_score need one entry per CSR entry")
        opponent = np.arange(entries, dtype=np.int32)
    else:
        opponent = np.ascontiguousarray(opponent, dtype=np.int32)
        if opponent.shape != (entries,) or rating_of.ndim != 1:
            raise ValueError("opponent needs one entry per CSR entry")
        if entries and (opponent.min() < 0 or opponent.max() >= rating_of.shape[0]):
            raise ValueError("opponent index out of range")
    if own_score.shape != (entries,):
        raise ValueError("opponent_rating and own_score need one entry per CSR entry")
    if own_rating.shape != (offsets.shape[0] - 1,):
        raise ValueError("own_rating needs one entry per player")
    if table.shape != (101,):
        raise ValueError("dp_by_percent must hold the 101 entries of table 8.1.1")
    if curve not in CURVES:
        raise ValueError(f"curve must be one of {', '.join(CURVES)}")
    code = CURVES[curve]
    # (rating, 10^(R/400)) side by side: the logistic solver reads both of an opponent.
    rated = np.empty((rating_of.shape[0], 2), dtype=np.float64)
    rated[:, 0] = rating_of
    rated[:, 1] = np.nan  # not read by the normal curve
    if with_true and code == CURVE_LOGISTIC:
        if np.nanmax(np.abs(rating_of), initial=0.0) >= POWER_SAFE_RATING:
            code = CURVE_LOGISTIC_POW
        else:
            np.power(10.0, rating_of / 400.0, out=rated[:, 1])
    result = by_work(_performance_period, offsets.shape[0] + entries)(
        offsets, opponent, rated, own_score, own_rating, table, code, float(tol), bool(with_true)
    )
    return PerformanceResult(*result)
