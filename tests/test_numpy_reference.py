"""The benchmark's plain-NumPy FIDE step gives exactly the kernel's results."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels.csr import group_by_player
from arpad.kernels.fide import fide_period
from arpad.pipeline.rules import pd_high_by_diff
from benchmarks.numpy_fide import fide_period_numpy


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_numpy_step_equals_kernel(seed, exempt):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    g = int(rng.integers(1, 2000))
    rating = rng.integers(1000, 2900, n)
    is_rated = rng.random(n) < 0.9
    k = rng.choice([10, 20, 40], n)
    white = rng.integers(0, n, g).astype(np.int32)
    black = ((white + rng.integers(1, n, g)) % n).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    exempt_from = 2650 if exempt else None
    grouped = group_by_player(white, black, score, n)
    res = fide_period(
        rating,
        is_rated,
        k,
        grouped.offsets,
        grouped.opponent,
        grouped.score,
        pd_high_by_diff(),
        exempt_from=exempt_from,
    )
    ref = fide_period_numpy(
        rating, is_rated, k, white, black, score, pd_high_by_diff(), exempt_from=exempt_from
    )
    rated = is_rated
    np.testing.assert_array_equal(np.where(rated, res.games, 0), ref[0])
    np.testing.assert_array_equal(np.where(rated, res.change, 0), np.where(rated, ref[4], 0))
    np.testing.assert_array_equal(np.where(rated, res.k, 0), np.where(rated, ref[3], 0))
