"""A plain NumPy implementation of the FIDE period step, for comparison with the kernel.

Vectorised over games (no Numba): capped difference per side, table lookup,
per-player sums with np.bincount, K × n cap, integer rounding half away from zero.
"""

from __future__ import annotations

import numpy as np


def fide_period_numpy(
    rating,
    is_rated,
    k_base,
    white,
    black,
    score,
    pd_high_by_diff,
    cap=400,
    exempt_from=None,
    k_times_games_max=700,
):
    n = rating.shape[0]
    both = is_rated[white] & is_rated[black]
    w, b, s = white[both], black[both], score[both]
    last = pd_high_by_diff.shape[0] - 1

    def side(own, opp):
        d = rating[own] - rating[opp]
        capped = np.clip(d, -cap, cap)
        if exempt_from is not None:
            capped = np.where(rating[own] >= exempt_from, d, capped)
        high = pd_high_by_diff[np.minimum(np.abs(capped), last)]
        return np.where(capped >= 0, high, 100 - high)

    e_w, e_b = side(w, b), side(b, w)
    s2_w = np.rint(s * 2).astype(np.int64)
    games = np.bincount(w, minlength=n) + np.bincount(b, minlength=n)
    score2 = np.bincount(w, weights=s2_w, minlength=n) + np.bincount(
        b, weights=2 - s2_w, minlength=n
    )
    expected = np.bincount(w, weights=e_w, minlength=n) + np.bincount(b, weights=e_b, minlength=n)
    score2 = score2.astype(np.int64)
    expected = expected.astype(np.int64)
    k = k_base.astype(np.int64)
    if k_times_games_max:
        k = np.where(k * games > k_times_games_max, k_times_games_max // np.maximum(games, 1), k)
    num = k * (50 * score2 - expected)
    change = np.sign(num) * ((2 * np.abs(num) + 100) // 200)
    change = np.where(games > 0, change, 0)
    k = np.where(games > 0, k, 0)
    return games, score2, expected, k, change, rating + change
