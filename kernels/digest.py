"""Hashes of text values for the content digest (pipeline/digest.py; docs/store.md
"Content digest"): FNV-1a over each value's bytes from a seed, then the SplitMix64
finaliser over that and the value's length; a null is a tag. The same function as
``pipeline.digest.text_hashes`` (NumPy), compiled: used for large slices, where it
is several times faster once loaded.
"""

import numpy as np

from arpad.kernels.config import jit, read_only


@jit
def _text_hashes(data, offsets, valid, seed, prime, null_tag, out):
    for i in range(out.shape[0]):
        if not valid[i]:
            out[i] = null_tag
            continue
        h = seed
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * prime
        h = h ^ np.uint64(offsets[i + 1] - offsets[i])
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = h ^ (h >> np.uint64(31))


def text_hashes(
    data: np.ndarray,
    offsets: np.ndarray,
    valid: np.ndarray,
    seed: np.uint64,
    prime: np.uint64,
    null_tag: np.uint64,
) -> np.ndarray:
    """Hash of each value (uint64): ``data`` bytes, ``offsets`` (values + 1, rising
    within ``data``), ``valid`` (False: null)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    valid = np.ascontiguousarray(valid, dtype=np.bool_)
    n = valid.shape[0]
    if offsets.shape != (n + 1,):
        raise ValueError("offsets must have one entry more than valid")
    if n and (offsets[0] < 0 or offsets[-1] > data.shape[0] or np.any(np.diff(offsets) < 0)):
        raise ValueError("offsets must rise within the data buffer")
    out = np.empty(n, np.uint64)
    with np.errstate(over="ignore"):  # wrapping uint64 arithmetic (NUMBA_DISABLE_JIT runs)
        _text_hashes(
            data, offsets, valid, np.uint64(seed), np.uint64(prime), np.uint64(null_tag), out
        )
    return out


@jit
def _mix(h):
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@jit
def _add_numbers(values, valid, weight, seed, null_tag, out):
    for i in range(out.shape[0]):
        h = _mix(np.uint64(values[i]) ^ seed) if valid[i] else null_tag
        out[i] += weight * h


@jit
def _add_text(data, offsets, valid, weight, seed, prime, null_tag, out):
    for i in range(out.shape[0]):
        if valid[i]:
            h = seed
            for j in range(offsets[i], offsets[i + 1]):
                h = (h ^ np.uint64(data[j])) * prime
            h = _mix(h ^ np.uint64(offsets[i + 1] - offsets[i]))
        else:
            h = null_tag
        out[i] += weight * h


@jit
def _finish(out):
    for i in range(out.shape[0]):
        out[i] = _mix(out[i])


def row_hashes(numbers, texts, weights, seed, prime, null_tag) -> np.ndarray:
    """Row hashes of the content digest (pipeline/digest.py ``row_hashes``), one pass
    per column without temporaries: ``numbers`` a list of (int64 bit patterns, valid),
    ``texts`` a list of (bytes, offsets, valid) — a value not valid hashes as
    ``null_tag`` — each column weighted by the next of ``weights``; the sum of a row
    is mixed by the SplitMix64 finaliser."""
    n = len(numbers[0][1]) if numbers else len(texts[0][2])
    out = np.zeros(n, np.uint64)
    weights = iter(weights)
    seed, prime, null_tag = np.uint64(seed), np.uint64(prime), np.uint64(null_tag)
    with np.errstate(over="ignore"):  # wrapping uint64 arithmetic (NUMBA_DISABLE_JIT runs)
        for values, valid in numbers:
            values = read_only(np.ascontiguousarray(values, np.int64).view(np.uint64))
            valid = read_only(np.ascontiguousarray(valid, np.bool_))
            if values.shape != (n,) or valid.shape != (n,):
                raise ValueError("every column must have one value per row")
            _add_numbers(values, valid, np.uint64(next(weights)), seed, null_tag, out)
        for data, offsets, valid in texts:
            data = read_only(np.ascontiguousarray(data, np.uint8))
            offsets = read_only(np.ascontiguousarray(offsets, np.int64))
            valid = read_only(np.ascontiguousarray(valid, np.bool_))
            if offsets.shape != (n + 1,) or valid.shape != (n,):
                raise ValueError("offsets must have one entry more than valid")
            if n and (offsets[0] < 0 or offsets[-1] > data.shape[0]):
                raise ValueError("offsets must rise within the data buffer")
            if n and not (offsets[1:] >= offsets[:-1]).all():
                raise ValueError("offsets must rise within the data buffer")
            _add_text(data, offsets, valid, np.uint64(next(weights)), seed, prime, null_tag, out)
        _finish(out)
    return out
