"""Glicko (1995) and Glicko-2 (2012 revision) period updates, per player over CSR offsets.

Sources: M. E. Glickman, "The Glicko system" and "Example of the Glicko-2
system" (volatility procedure revised 22 Feb 2012); docs/glicko.md. Every player
owns its output: the outer loops are ``prange`` over players and read the
opponents' pre-period values only, so results do not depend on scheduling.

Ratings enter and leave on the Glicko scale (r ≈ 1500, RD in rating points);
the Glicko-2 kernel converts to (μ, φ) with ``scale`` = 173.7178.
"""

import math
from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange


class Glicko1PeriodResult(NamedTuple):
    rd_pre: np.ndarray  # float64, RD after the Step 1 growth (used for the period's games)
    rating_after: np.ndarray  # float64
    rd_after: np.ndarray  # float64
    games: np.ndarray  # int32
    score: np.ndarray  # float64
    expected: np.ndarray  # float64, Σ E_j of the update (opponent's RD only)


class Glicko2PeriodResult(NamedTuple):
    rd_pre: np.ndarray  # float64, RD after the growth of the skipped periods
    rating_after: np.ndarray  # float64
    rd_after: np.ndarray  # float64
    volatility_after: np.ndarray  # float64
    games: np.ndarray  # int32
    score: np.ndarray  # float64
    expected: np.ndarray  # float64, Σ E_j
    iterations: np.ndarray  # int32, Illinois iterations (0 for players without games)
    converged: np.ndarray  # bool, False when the iteration cap was hit


# ---------------------------------------------------------------- Glicko-1


@jit
def glicko_q():
    """q = ln 10 / 400 (Glicko step 2)."""
    return math.log(10.0) / 400.0


@jit
def glicko_g(rd):
    """g(RD) = 1/√(1 + 3q²RD²/π²) (Glicko step 2)."""
    q = glicko_q()
    return 1.0 / math.sqrt(1.0 + 3.0 * q * q * rd * rd / (math.pi * math.pi))


@jit
def glicko_expected(r, r_opp, rd_opp):
    """E = 1/(1 + 10^(−g(RD_j)(r − r_j)/400)) (Glicko step 2)."""
    return 1.0 / (1.0 + 10.0 ** (-glicko_g(rd_opp) * (r - r_opp) / 400.0))


@jit_parallel
def _glicko1_expected_score(r, rd, r_opp, rd_opp):
    out = np.empty(r.shape[0], dtype=np.float64)
    for i in prange(r.shape[0]):
        both = math.sqrt(rd[i] * rd[i] + rd_opp[i] * rd_opp[i])
        out[i] = glicko_expected(r[i], r_opp[i], both)
    return out


def glicko1_expected_score(
    r: np.ndarray, rd: np.ndarray, r_opp: np.ndarray, rd_opp: np.ndarray
) -> np.ndarray:
    """Expected score with both uncertainties (Glicko paper, "expected outcome"):
    E = 1/(1 + 10^(−g(√(RD_i² + RD_j²))(r_i − r_j)/400)); 1400/80 vs 1500/150 → 0.376."""
    arrays = [
        np.ascontiguousarray(np.atleast_1d(a), dtype=np.float64) for a in (r, rd, r_opp, rd_opp)
    ]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise ValueError("r, rd, r_opp and rd_opp must be 1-D arrays of one length")
    return by_work(_glicko1_expected_score, arrays[0].shape[0])(*arrays)


@jit_parallel
def _glicko1_period(
    rating,
    rd,
    known,
    offsets,
    opponent,
    own_score,
    is_white,
    elapsed,
    c,
    rd_max,
    rd_min,
    white_advantage,
):
    n = rating.shape[0]
    q = glicko_q()
    rd_pre = np.empty(n, dtype=np.float64)
    for p in prange(n):
        if known[p]:
            rd_pre[p] = min(math.sqrt(rd[p] * rd[p] + c * c * elapsed), rd_max)
        else:
            rd_pre[p] = rd[p]
    g_of = np.empty(n, dtype=np.float64)  # g(RD) once per player, not once per game
    for p in prange(n):
        g_of[p] = glicko_g(rd_pre[p])
    after = rating.copy()
    rd_after = rd_pre.copy()
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    expected = np.zeros(n, dtype=np.float64)
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        if hi == lo:
            continue
        sum_info = 0.0
        sum_delta = 0.0
        e_sum = 0.0
        s_sum = 0.0
        for j in range(lo, hi):
            o = opponent[j]
            g = g_of[o]
            adv = white_advantage if is_white[j] else -white_advantage
            e = 1.0 / (1.0 + 10.0 ** (-g * (rating[p] + adv - rating[o]) / 400.0))
            sum_info += g * g * e * (1.0 - e)
            sum_delta += g * (own_score[j] - e)
            e_sum += e
            s_sum += own_score[j]
        # 1/d² = q² Σ g² E (1 − E);  1/RD'² = 1/RD² + 1/d²
        precision = 1.0 / (rd_pre[p] * rd_pre[p]) + q * q * sum_info
        after[p] = rating[p] + q / precision * sum_delta
        rd_after[p] = max(math.sqrt(1.0 / precision), rd_min)
        games[p] = hi - lo
        score[p] = s_sum
        expected[p] = e_sum
    return rd_pre, after, rd_after, games, score, expected


def _check_csr(n, offsets):
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.shape != (n + 1,):
        raise ValueError("offsets must have n_players + 1 entries")
    return offsets


def _check_players(*arrays):
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1 or arrays[0].ndim != 1:
        raise ValueError("per-player arrays must be 1-D and of one length")


def glicko1_period(
    rating: np.ndarray,
    rd: np.ndarray,
    known: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    elapsed: float = 1.0,
    c: float = 63.2,
    rd_max: float = 350.0,
    rd_min: float = 0.0,
    white_advantage: float = 0.0,
) -> Glicko1PeriodResult:
    """One Glicko-1 rating period (Glickman, "The Glicko system").

    Step 1 (players in ``known`` only): RD = min(√(RD² + c²t), rd_max), t = ``elapsed``.
    Step 2: E_j = 1/(1 + 10^(−g(RD_j)(r + a_j − r_j)/400)), a_j = ±white_advantage;
    1/d² = q² Σ g(RD_j)² E_j(1 − E_j); r' = r + q/(1/RD² + 1/d²) Σ g(RD_j)(s_j − E_j);
    RD' = max(√(1/(1/RD² + 1/d²)), rd_min). Opponents enter with their Step 1 RD.
    """
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    rd = np.ascontiguousarray(rd, dtype=np.float64)
    known = np.ascontiguousarray(known, dtype=np.bool_)
    _check_players(rating, rd, known)
    offsets = _check_csr(rating.shape[0], offsets)
    return Glicko1PeriodResult(
        *by_work(_glicko1_period, rating.shape[0] + len(opponent))(
            rating,
            rd,
            known,
            offsets,
            np.ascontiguousarray(opponent, dtype=np.int32),
            np.ascontiguousarray(own_score, dtype=np.float64),
            np.ascontiguousarray(is_white, dtype=np.bool_),
            float(elapsed),
            float(c),
            float(rd_max),
            float(rd_min),
            float(white_advantage),
        )
    )


# ---------------------------------------------------------------- Glicko-2


@jit
def glicko2_g(phi):
    """g(φ) = 1/√(1 + 3φ²/π²) (Glicko-2 step 3)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


@jit
def _volatility_f(x, delta2, phi2, v, a, tau):
    ex = math.exp(x)
    den = phi2 + v + ex
    return ex * (delta2 - phi2 - v - ex) / (2.0 * den * den) - (x - a) / (tau * tau)


@jit
def glicko2_volatility(phi, v, delta, sigma, tau, epsilon, max_iterations):
    """σ' by the Illinois algorithm (Glicko-2 step 5, revision of 22 Feb 2012).

    Returns (σ', iterations, converged). Both the bracketing search for B and the
    Illinois loop stop after ``max_iterations``; then ``converged`` is False and σ'
    is the last iterate e^{A/2} (σ unchanged when no bracket was found or a value
    is not finite).
    """
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while _volatility_f(a - k * tau, delta2, phi2, v, a, tau) < 0.0:
            k += 1
            if k > max_iterations:
                return sigma, 0, False
        big_b = a - k * tau
    f_a = _volatility_f(big_a, delta2, phi2, v, a, tau)
    f_b = _volatility_f(big_b, delta2, phi2, v, a, tau)
    iterations = 0
    while True:
        if not (math.isfinite(big_b) and math.isfinite(f_a) and math.isfinite(f_b)):
            return sigma, iterations, False  # NaN/inf input or overflow: keep σ, flag it
        if abs(big_b - big_a) <= epsilon:
            break
        if iterations >= max_iterations or f_b == f_a:
            return math.exp(big_a / 2.0), iterations, False
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = _volatility_f(big_c, delta2, phi2, v, a, tau)
        if f_c == 0.0:
            # C is the root itself. The step's test (f(C)·f(B) < 0) would never move A
            # again and the loop would run out its iterations and flag a value that has
            # converged exactly (docs/glicko.md)
            return math.exp(big_c / 2.0), iterations + 1, True
        if f_c * f_b < 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        f_b = f_c
        iterations += 1
    return math.exp(big_a / 2.0), iterations, True


@jit_parallel
def _glicko2_period(
    rating,
    rd,
    sigma,
    known,
    offsets,
    opponent,
    own_score,
    is_white,
    elapsed,
    tau,
    epsilon,
    max_iterations,
    rd_max,
    rd_min,
    white_advantage,
    scale,
    center,
):
    n = rating.shape[0]
    phi_max = rd_max / scale
    mu = np.empty(n, dtype=np.float64)
    phi = np.empty(n, dtype=np.float64)
    g_of = np.empty(n, dtype=np.float64)  # g(φ) once per player, not once per game
    for p in prange(n):
        mu[p] = (rating[p] - center) / scale
        ph = rd[p] / scale
        if known[p] and elapsed > 1.0:
            # the walked-over periods: step 6 alone, once per skipped period
            ph = min(math.sqrt(ph * ph + (elapsed - 1.0) * sigma[p] * sigma[p]), phi_max)
        phi[p] = ph
        g_of[p] = glicko2_g(ph)
    rd_pre = phi * scale
    after = rating.copy()
    rd_after = rd_pre.copy()
    sigma_after = sigma.copy()
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    expected = np.zeros(n, dtype=np.float64)
    iterations = np.zeros(n, dtype=np.int32)
    converged = np.ones(n, dtype=np.bool_)
    adv_mu = white_advantage / scale
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        if hi == lo:
            if known[p]:
                ph = min(math.sqrt(phi[p] * phi[p] + sigma[p] * sigma[p]), phi_max)
                rd_after[p] = ph * scale
            continue
        sum_info = 0.0
        sum_delta = 0.0
        e_sum = 0.0
        s_sum = 0.0
        for j in range(lo, hi):
            o = opponent[j]
            g = g_of[o]
            adv = adv_mu if is_white[j] else -adv_mu
            e = 1.0 / (1.0 + math.exp(-g * (mu[p] + adv - mu[o])))
            sum_info += g * g * e * (1.0 - e)
            sum_delta += g * (own_score[j] - e)
            e_sum += e
            s_sum += own_score[j]
        v = 1.0 / sum_info
        delta = v * sum_delta
        new_sigma, its, ok = glicko2_volatility(
            phi[p], v, delta, sigma[p], tau, epsilon, max_iterations
        )
        phi_star = min(math.sqrt(phi[p] * phi[p] + new_sigma * new_sigma), phi_max)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        mu_new = mu[p] + phi_new * phi_new * sum_delta
        after[p] = scale * mu_new + center
        rd_after[p] = max(scale * phi_new, rd_min)
        sigma_after[p] = new_sigma
        games[p] = hi - lo
        score[p] = s_sum
        expected[p] = e_sum
        iterations[p] = its
        converged[p] = ok
    return rd_pre, after, rd_after, sigma_after, games, score, expected, iterations, converged


def glicko2_period(
    rating: np.ndarray,
    rd: np.ndarray,
    volatility: np.ndarray,
    known: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    elapsed: float = 1.0,
    tau: float = 0.5,
    epsilon: float = 1e-6,
    max_iterations: int = 100,
    rd_max: float = 350.0,
    rd_min: float = 0.0,
    white_advantage: float = 0.0,
    scale: float = 173.7178,
    center: float = 1500.0,
) -> Glicko2PeriodResult:
    """One Glicko-2 rating period (Glickman, "Example of the Glicko-2 system", steps 2–8).

    μ = (r − center)/scale, φ = RD/scale. A ``known`` player first ages through the
    ``elapsed − 1`` periods walked over: φ = √(φ² + (elapsed − 1)σ²). With games:
    E_j = 1/(1 + exp(−g(φ_j)(μ + a_j − μ_j))), v = [Σ g² E(1 − E)]⁻¹,
    Δ = v Σ g(φ_j)(s_j − E_j), σ' by the Illinois iteration, φ* = √(φ² + σ'²),
    φ' = 1/√(1/φ*² + 1/v), μ' = μ + φ'² Σ g(φ_j)(s_j − E_j). Without games (known
    players): φ' = √(φ² + σ²), r and σ unchanged. φ is capped at rd_max/scale when it
    grows; RD' = max(scale·φ', rd_min).
    """
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    rd = np.ascontiguousarray(rd, dtype=np.float64)
    volatility = np.ascontiguousarray(volatility, dtype=np.float64)
    known = np.ascontiguousarray(known, dtype=np.bool_)
    _check_players(rating, rd, volatility, known)
    offsets = _check_csr(rating.shape[0], offsets)
    if not (tau > 0 and epsilon > 0 and max_iterations >= 1):
        raise ValueError("tau and epsilon must be positive, max_iterations at least 1")
    return Glicko2PeriodResult(
        *by_work(_glicko2_period, rating.shape[0] + len(opponent))(
            rating,
            rd,
            volatility,
            known,
            offsets,
            np.ascontiguousarray(opponent, dtype=np.int32),
            np.ascontiguousarray(own_score, dtype=np.float64),
            np.ascontiguousarray(is_white, dtype=np.bool_),
            float(elapsed),
            float(tau),
            float(epsilon),
            int(max_iterations),
            float(rd_max),
            float(rd_min),
            float(white_advantage),
            float(scale),
            float(center),
        )
    )
