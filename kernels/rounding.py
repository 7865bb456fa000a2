"""Rounding written out: FIDE rounds 0.5 away from zero (B.02 §8.3.4).

Python's ``round``, NumPy and Numba round half to even, so they are not used
where a regulation fixes the rounding.
"""

import math

import numpy as np

from arpad.kernels.config import jit


@jit
def round_half_away(x):
    """Nearest integer, ties away from zero: 0.5 -> 1, -0.5 -> -1, 2.5 -> 3."""
    if x >= 0.0:
        return math.floor(x + 0.5)
    return -math.floor(-x + 0.5)


@jit
def round_half_up(x):
    """Nearest integer, ties towards +inf (FIDE Title Regulations 1.4.7: '.5 rounded up')."""
    return math.floor(x + 0.5)


@jit
def div_round_half_away(num, den):
    """round_half_away(num / den) for integers, exactly (den > 0)."""
    if num >= 0:
        return (2 * num + den) // (2 * den)
    return -((-2 * num + den) // (2 * den))


def round_half_away_array(x: np.ndarray) -> np.ndarray:
    """Vectorised round_half_away for float arrays."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)
