"""The USCF event layer picks its serial twin or the threaded kernel by work size
(kernels/config.py ``by_work``, as every other period kernel): both give identical
results, unrated, special-formula (few games, all wins/losses) and bonus players
included."""

import numpy as np

from arpad.kernels import uscf
from arpad.kernels.config import by_work
from arpad.kernels.csr import group_by_player


def test_uscf_serial_and_parallel_are_identical():
    rng = np.random.default_rng(3)
    n, g = 400, 3000
    white = rng.integers(0, n, g).astype(np.int32)
    black = ((white + rng.integers(1, n, g)) % n).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    grouped = group_by_player(white, black, score, n)
    n_games = rng.choice([0, 3, 8, 30, 200], n).astype(np.int64)
    rating0 = np.where(n_games > 0, rng.normal(1600, 300, n), 1300.0)
    args = (
        rating0,
        n_games,
        np.minimum(n_games, 50).astype(np.float64),
        rng.random(n) < 0.05,
        rng.random(n) < 0.05,
        grouped.offsets,
        grouped.opponent,
        grouped.score,
        grouped.is_white,
        800.0,
        14.0,
        3,
        2,
        4,
        8,
        2700.0,
        1.0,
        0.0,
        1e-7,
    )
    kernel = uscf._uscf_event_layer
    serial = by_work(kernel, 0)
    assert serial is not kernel
    for a, b in zip(kernel(*args), serial(*args)):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    # the wrapper (a call far below PARALLEL_MIN_WORK) gives the same values
    wrapped = uscf.uscf_event_layer(*args[:9], *args[9:])
    for a, b in zip(kernel(*args), wrapped):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
