"""Serial twin vs threaded kernel (kernels/config.py ``by_work``): identical results.

Wrappers run the threaded kernel only from ``PARALLEL_MIN_WORK`` units of work, more
than any test period, so this calls both compiled versions directly on the same input.
"""

import numpy as np

from arpad.kernels import elo, performance
from arpad.kernels.config import PARALLEL_MIN_WORK, by_work
from arpad.kernels.csr import group_by_player
from arpad.pipeline.rules import dp_by_percent


def _period(seed=7, n=500, g=4000):
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n, g).astype(np.int32)
    black = ((white + rng.integers(1, n, g)) % n).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    rating = rng.normal(1800, 250, n)
    return rating, group_by_player(white, black, score, n)


def test_by_work_picks_the_serial_twin_below_the_threshold():
    serial = by_work(elo._elo_period, PARALLEL_MIN_WORK - 1)
    assert by_work(elo._elo_period, PARALLEL_MIN_WORK) is elo._elo_period
    assert serial is not elo._elo_period


def test_elo_serial_and_parallel_are_identical():
    rating, g = _period()
    args = (rating, g.offsets, g.opponent, g.score, g.is_white, 20.0, 35.0, 400.0)
    for a, b in zip(elo._elo_period(*args), by_work(elo._elo_period, 0)(*args)):
        assert np.array_equal(a, b)


def test_performance_serial_and_parallel_are_identical():
    rating, g = _period(seed=11)
    rated = np.column_stack([rating, np.power(10.0, rating / 400.0)])
    args = (g.offsets, g.opponent, rated, g.score, rating, dp_by_percent())
    kernel = performance._performance_period
    for curve in (performance.CURVE_NORMAL, performance.CURVE_LOGISTIC):
        full = (*args, curve, 1e-7, True)
        for a, b in zip(kernel(*full), by_work(kernel, 0)(*full)):
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
