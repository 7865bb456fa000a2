"""A long text value in a small file (hostile input: one 20 MB event name took over a
minute to ingest): the content digest hashes it without one NumPy pass per byte, and
every hash stays bit for bit what the old code gave (stored `v2` digests must still
match a re-sent file; docs/ingest.md "Content digest", docs/store.md)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pytest

from arpad.kernels.digest import text_hashes as compiled_text_hashes
from arpad.pipeline import digest

MASK = (1 << 64) - 1


def _naive_text_hash(value: bytes | None) -> int:
    """FNV-1a over the bytes from the seed, then the SplitMix64 finaliser over that
    and the length; a null is the tag (one value at a time in Python integers)."""
    if value is None:
        return int(digest.NULL_TAG)
    h = int(digest.SEED)
    for byte in value:
        h = ((h ^ byte) * 0x100000001B3) & MASK
    h ^= len(value)
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & MASK
    return h ^ (h >> 31)


def _old_text_hashes_numpy(data, offsets, valid) -> np.ndarray:
    """A copy of ``text_hashes_numpy`` before long values were split off: one NumPy
    pass per byte position of the longest value."""
    offsets = np.asarray(offsets, dtype=np.int64)
    valid = np.asarray(valid, dtype=bool)
    n = valid.shape[0]
    starts = offsets[:-1]
    lengths = np.where(valid, offsets[1:] - starts, 0)
    order = np.argsort(-lengths, kind="stable")
    by_length = lengths[order]
    ascending = by_length[::-1]
    first = starts[order]
    h = np.full(n, digest.SEED, np.uint64)
    for j in range(int(by_length[0]) if n else 0):
        k = n - int(np.searchsorted(ascending, j, side="right"))
        part = h[:k]
        np.bitwise_xor(part, data[first[:k] + j], out=part, casting="unsafe")
        np.multiply(part, digest.FNV_PRIME, out=part)
    hashes = np.empty(n, np.uint64)
    hashes[order] = np.where(
        valid[order], digest._mix(h ^ by_length.astype(np.uint64)), digest.NULL_TAG
    )
    return hashes


def _buffers(values: list[bytes | None]):
    """(data, offsets, valid) as Arrow lays out a string column."""
    array = pa.array([None if v is None else v.decode("utf-8") for v in values], pa.string())
    return digest._text_buffers(array)


def _random_values(rng: np.random.Generator) -> list[bytes | None]:
    """Empty, ASCII, non-ASCII (2-, 3- and 4-byte UTF-8), nulls, and lengths on both
    sides of ``LONG_VALUE`` up to ~40 KB, in random order."""
    alphabet = list("abcXYZ09 -,") + list("éßøäÖ") + list("€中文ж") + ["𝄞", "😀"]
    long = digest.LONG_VALUE
    lengths = [0, 0, 1, 2, 7, 40, 300, long - 1, long, long + 1, 3 * long, 40_000]
    lengths += rng.integers(0, 200, 60).tolist() + rng.integers(0, 3 * long, 8).tolist()
    values: list[bytes | None] = []
    for n in lengths:
        chars = rng.choice(alphabet, size=int(n))
        values.append("".join(chars).encode("utf-8"))
    values += [None] * 10
    order = rng.permutation(len(values))
    return [values[i] for i in order]


@pytest.mark.parametrize("seed", [0, 1])
def test_text_hashes_match_the_old_code_and_the_naive_reference(seed):
    values = _random_values(np.random.default_rng(seed))
    byte_lengths = [len(v) for v in values if v is not None]
    # Values on both sides of the threshold, counted in bytes (a 4-byte character).
    assert max(byte_lengths) > 4 * digest.LONG_VALUE and 0 in byte_lengths
    data, offsets, valid = _buffers(values)
    new = digest.text_hashes_numpy(data, offsets, valid)
    expected = [_naive_text_hash(v) for v in values]
    assert new.tolist() == expected
    assert np.array_equal(new, _old_text_hashes_numpy(data, offsets, valid))
    # The compiled kernel (slices of COMPILED_FROM values or more) gives the same.
    args = (digest.SEED, digest.FNV_PRIME, digest.NULL_TAG)
    assert np.array_equal(new, compiled_text_hashes(data, offsets, valid, *args))


def test_a_sliced_array_and_a_null_over_bytes():
    """Offsets into the middle of a buffer (a slice of a column), and a null whose
    offsets still span bytes (Arrow allows it): the null hashes as the tag."""
    values = [b"x" * 5000, "é".encode() * 3000, None, b"", b"abc", b"y" * 9000]
    array = pa.array([None if v is None else v.decode() for v in values], pa.string())
    data, offsets, valid = digest._text_buffers(array.slice(1, 5))
    assert digest.text_hashes_numpy(data, offsets, valid).tolist() == [
        _naive_text_hash(v) for v in values[1:]
    ]
    data = np.frombuffer(b"z" * 6000, np.uint8)
    offsets = np.array([0, 5000, 6000], np.int64)
    valid = np.array([False, True])
    assert digest.text_hashes_numpy(data, offsets, valid).tolist() == [
        int(digest.NULL_TAG),
        _naive_text_hash(b"z" * 1000),
    ]


class _CountingNumPy:
    """``np`` for pipeline/digest.py that counts the passes of the NumPy hash (one
    ``searchsorted`` a pass) and fails once they exceed a bound."""

    def __init__(self, bound: int):
        self.bound = bound
        self.passes = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def searchsorted(self, *args, **kwargs):
        self.passes += 1
        if self.passes > self.bound:
            raise AssertionError(f"more than {self.bound} NumPy passes")
        return np.searchsorted(*args, **kwargs)


def test_a_2mb_value_takes_no_pass_per_byte(monkeypatch):
    """The old code made one NumPy pass per byte of the longest value (2,000,000
    here, ~7 s); now at most LONG_VALUE passes (those of the short values)."""
    rng = np.random.default_rng(7)
    big = bytes(rng.integers(0, 128, 2_000_000, dtype=np.uint8))
    values = [b"A", big, None, b"World Championship", "Zürich".encode()]
    data, offsets, valid = _buffers(values)
    counting = _CountingNumPy(bound=digest.LONG_VALUE)
    monkeypatch.setattr(digest, "np", counting)
    got = digest.text_hashes_numpy(data, offsets, valid)
    monkeypatch.undo()
    # Passes for the short values only: the longest of them, "World Championship".
    assert counting.passes == len(b"World Championship")
    assert got.tolist() == [_naive_text_hash(v) for v in values]


def test_row_hashes_with_a_long_event_match_the_compiled_path(monkeypatch):
    """A small table (NumPy path, distinct event values) with a 50 KB event name: the
    same row hashes, so the same stored digest, as the compiled path of large slices."""
    n = 6
    games = pa.table(
        {
            "game_id": ["g1", "f.csv:2", "g3", "g4", None, "g6"],
            "pool": ["standard"] * n,
            "period": pa.array([202401] * n, pa.int32()),
            "date": pa.array([dt.date(2024, 1, 5)] * (n - 1) + [None], pa.date32()),
            "white_id": ["A", "B", "Ω" * 6000, "C", "A", "B"],
            "black_id": ["B", "A", "C", "D" * 5000, "B", "C"],
            "score": pa.array([1.0, 0.5, 0.0, 1.0, 0.5, None], pa.float64()),
            "event_id": ["E" * 50_000, "E" * 50_000, None, "", "short", "E" * 50_000],
            "rated": [True] * n,
            "source": ["f.csv:1", "f.csv:2", "f.csv:3", "f.csv:4", "f.csv:5", "f.csv:6"],
            "ingest_batch": ["b"] * n,
        }
    )
    small = digest.row_hashes(games)
    monkeypatch.setattr(digest, "COMPILED_FROM", 0)
    assert np.array_equal(small, digest.row_hashes(games))
