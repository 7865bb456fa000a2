"""Row hashes for the order-independent content digest of an ingested file
(docs/store.md "Content digest").

Each row of a table is folded, column by column, into two 64-bit lanes: a text
value byte by byte (FNV-1a steps, then its length), a number as its 64-bit
pattern, a null as its own tag; every value ends with the SplitMix64 finaliser,
so the position of a value in the row matters. The digest of a multiset of rows
is the sum of their lane values modulo 2**64 (``fold_*`` return per-row lanes;
the caller sums them), so it does not depend on row order or on how the rows
were split into batches. Not a cryptographic hash: it recognises a re-sent file,
it does not defend against one crafted to collide.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import jit

FNV_PRIME = np.uint64(0x100000001B3)
NULL_TAG = np.uint64(0x9E3779B97F4A7C15)
SEEDS = (np.uint64(0xCBF29CE484222325), np.uint64(0x84222325CBF29CE4))


class Lanes(NamedTuple):
    """Per-row hash lanes (uint64), updated in place by the ``fold_*`` calls."""

    a: np.ndarray
    b: np.ndarray


def start(rows: int) -> Lanes:
    """Lanes of ``rows`` empty rows (each lane at its seed)."""
    return Lanes(np.full(rows, SEEDS[0], np.uint64), np.full(rows, SEEDS[1], np.uint64))


@jit
def _mix(h):
    # SplitMix64 finaliser: every input bit moves every output bit.
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@jit
def _fold_text(a, b, data, offsets, valid):
    for i in range(a.shape[0]):
        ha = a[i]
        hb = b[i]
        if valid[i]:
            lo = offsets[i]
            hi = offsets[i + 1]
            for j in range(lo, hi):
                byte = np.uint64(data[j])
                ha = (ha ^ byte) * FNV_PRIME
                hb = (hb ^ byte) * FNV_PRIME
            n = np.uint64(hi - lo)
            ha = _mix(ha ^ n)
            hb = _mix(hb ^ (n + NULL_TAG))
        else:
            ha = _mix(ha ^ NULL_TAG)
            hb = _mix(hb + NULL_TAG)
        a[i] = ha
        b[i] = hb


@jit
def _fold_values(a, b, values, valid):
    for i in range(a.shape[0]):
        if valid[i]:
            v = values[i]
            a[i] = _mix((a[i] ^ v) * FNV_PRIME)
            b[i] = _mix((b[i] + v) * FNV_PRIME)
        else:
            a[i] = _mix(a[i] ^ NULL_TAG)
            b[i] = _mix(b[i] + NULL_TAG)


def fold_text(lanes: Lanes, data: np.ndarray, offsets: np.ndarray, valid: np.ndarray) -> None:
    """Fold one text column: ``data`` (uint8 bytes), ``offsets`` (int64, rows + 1:
    row i is ``data[offsets[i]:offsets[i+1]]``), ``valid`` (bool, False = null)."""
    rows = lanes.a.shape[0]
    data = np.ascontiguousarray(data, dtype=np.uint8)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    valid = np.ascontiguousarray(valid, dtype=np.bool_)
    if offsets.shape != (rows + 1,) or valid.shape != (rows,):
        raise ValueError("offsets must have rows + 1 entries and valid one per row")
    if rows and (offsets[0] < 0 or offsets[-1] > data.shape[0] or np.any(np.diff(offsets) < 0)):
        raise ValueError("offsets must rise within the data buffer")
    with np.errstate(over="ignore"):  # wrapping uint64 arithmetic (NUMBA_DISABLE_JIT runs)
        _fold_text(lanes.a, lanes.b, data, offsets, valid)


def fold_values(lanes: Lanes, values: np.ndarray, valid: np.ndarray) -> None:
    """Fold one numeric column given as 64-bit patterns (any 8-byte integer dtype;
    ``valid`` False = null)."""
    values = np.ascontiguousarray(values)
    if values.dtype.itemsize != 8 or values.dtype.kind not in "iu":
        raise ValueError("values must be 64-bit integers")
    values = values.view(np.uint64)
    valid = np.ascontiguousarray(valid, dtype=np.bool_)
    if values.shape != lanes.a.shape or valid.shape != lanes.a.shape:
        raise ValueError("values and valid must have one entry per row")
    with np.errstate(over="ignore"):
        _fold_values(lanes.a, lanes.b, values, valid)
