"""Expected scores: FIDE table 8.1.2 with the 400-point rule, and the logistic curve.

FIDE B.02 §8.1.2 maps the rating difference D (after the 400-point rule,
§8.3.1) to the higher-rated player's expected score PD(H); PD(L) = 1 − PD(H).
The table is passed in as ``pd_high_by_diff`` (PD(H) in hundredths, indexed by
|D| = 0..736, the last entry standing for every D > 735), built by
``pipeline.rules.fide_tables``. Kernels never read module globals.
"""

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange

NO_EXEMPTION = np.int64(1 << 40)  # "rated 2650 and above" threshold when the rules have none


@jit
def capped_difference(own, opponent, cap, exempt_from):
    """D = own − opponent; |D| > cap counts as cap unless own ≥ exempt_from (§8.3.1, 2025-10)."""
    d = own - opponent
    if own >= exempt_from:
        return d
    if d > cap:
        return cap
    if d < -cap:
        return -cap
    return d


@jit
def expected_hundredths(d, pd_high_by_diff):
    """Expected score in hundredths for a player whose (capped, integer) difference is d."""
    a = d if d >= 0 else -d
    last = pd_high_by_diff.shape[0] - 1
    if a > last:
        a = last
    high = pd_high_by_diff[a]
    return high if d >= 0 else 100 - high


@jit_parallel
def _expected_score_fide_table(own, opponent, cap, exempt_from, pd_high_by_diff):
    out = np.empty(own.shape[0], dtype=np.float64)
    for i in prange(own.shape[0]):
        d = capped_difference(own[i], opponent[i], cap, exempt_from)
        out[i] = expected_hundredths(d, pd_high_by_diff) / 100.0
    return out


def expected_score_fide_table(
    own: np.ndarray,
    opponent: np.ndarray,
    pd_high_by_diff: np.ndarray,
    cap: int = 400,
    exempt_from: int | None = None,
) -> np.ndarray:
    """FIDE expected score of ``own`` against ``opponent`` (integer ratings), table 8.1.2."""
    own = np.ascontiguousarray(own, dtype=np.int64)
    opponent = np.ascontiguousarray(opponent, dtype=np.int64)
    if own.shape != opponent.shape:
        raise ValueError("own and opponent must have the same shape")
    table = np.ascontiguousarray(pd_high_by_diff, dtype=np.int64)
    exempt = NO_EXEMPTION if exempt_from is None else np.int64(exempt_from)
    kernel = by_work(_expected_score_fide_table, own.shape[0])
    return kernel(own, opponent, np.int64(cap), exempt, table)


@jit
def logistic(d, scale):
    """1 / (1 + 10^(−d/scale)): Elo's logistic curve, scale 400."""
    return 1.0 / (1.0 + 10.0 ** (-d / scale))


@jit_parallel
def _expected_score_logistic(own, opponent, scale):
    out = np.empty(own.shape[0], dtype=np.float64)
    for i in prange(own.shape[0]):
        out[i] = logistic(own[i] - opponent[i], scale)
    return out


def expected_score_logistic(
    own: np.ndarray, opponent: np.ndarray, scale: float = 400.0
) -> np.ndarray:
    """Logistic expected score 1/(1 + 10^(−(own − opponent)/scale))."""
    own = np.ascontiguousarray(own, dtype=np.float64)
    opponent = np.ascontiguousarray(opponent, dtype=np.float64)
    if own.shape != opponent.shape:
        raise ValueError("own and opponent must have the same shape")
    return by_work(_expected_score_logistic, own.shape[0])(own, opponent, float(scale))
