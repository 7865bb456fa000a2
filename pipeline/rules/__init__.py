"""Rule data checked in with its source (FIDE tables) and loaders for it."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np


@cache
def _fide_tables() -> dict:
    return json.loads(resources.files(__package__).joinpath("fide_tables.json").read_text())


def dp_by_percent() -> np.ndarray:
    """FIDE table 8.1.1: dp for p = 0.00 .. 1.00 (index = whole percent)."""
    values = np.array(_fide_tables()["table_8_1_1_dp_by_percent"]["values"], dtype=np.int64)
    values.setflags(write=False)
    return values


def pd_high_by_diff() -> np.ndarray:
    """FIDE table 8.1.2 expanded: PD(H) in hundredths for |D| = 0..736 (736 = every D > 735)."""
    ranges = _fide_tables()["table_8_1_2_pd_high"]["ranges"]
    out = np.full(737, -1, dtype=np.int64)
    for lo, hi, pd in ranges:
        out[lo : (736 if hi is None else hi) + 1] = pd
    if (out < 0).any():
        raise ValueError("FIDE table 8.1.2 ranges are not contiguous")
    out.setflags(write=False)
    return out
