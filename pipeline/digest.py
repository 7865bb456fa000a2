"""The content digest of an ingested games file (``content_sha256`` in the manifest;
docs/store.md "Content digest").

Version 2 (``v2:<hex>``): an order-independent digest of the file's games as
content, the multiset of its rows (pool, period, date, players, score, event and
the id when the source gives one): the sum of the rows' 64-bit hashes modulo
2**64, finished with SHA-256 over the row count and the sum. A sum does not depend
on row order or on how the rows were sliced, so a streamed file is digested slice
by slice. Row hash: each value is hashed on its own (a text by FNV-1a over its
bytes, then the SplitMix64 finaliser with its length; a number by the finaliser
over its 64-bit pattern; a null is a tag), the values are weighted by their column
(distinct odd multipliers) and summed, and the finaliser mixes the row. NumPy,
vectorised over the values (one pass per byte position, longest values first; a
column with repeats hashes each distinct value once) for small slices; Numba's first
kernel load costs a small ingest more than the hashing. A value longer than
``LONG_VALUE`` bytes is hashed by the compiled kernel even in a small slice (the
passes would scale with its length). Not a cryptographic hash: it
recognises a re-sent file, it does not resist one crafted to collide.

Version 1 (a bare 64-digit hex, written by arpad before the streamed ingest)
sorted the whole table and hashed its CSV text: ``digest_v1`` keeps it, for
comparing a file with an entry an older arpad wrote.
"""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import schemas

VERSION = "v2"

# Columns that say what a game is, in the order they are folded into a row hash.
TEXT = ("pool", "white_id", "black_id", "event_id", "id")
VALUES = ("period", "date", "score")
# Text columns hashed per distinct value (few values: a pool, an event) rather than
# per row (player ids: as cheap to hash row by row as to look up).
DISTINCT = {"pool": True, "white_id": False, "black_id": False, "event_id": True}
# Old digests: the content key, the event and the id, as CSV text of sorted rows.
CONTENT_KEY = ["pool", "period", "date", "white_id", "black_id", "score"]


def is_v2(value: str | None) -> bool:
    return bool(value) and value.startswith(f"{VERSION}:")


def _text_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    array = array.cast(pa.large_string())
    n = len(array)
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[array.offset : array.offset + n + 1]
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, np.uint8)
    )
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return data, offsets, valid


def _value_bits(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_floating(array.type):
        values = pc.fill_null(array.cast(pa.float64()), 0.0).to_numpy().view(np.int64)
    else:
        if pa.types.is_date(array.type):
            array = array.cast(pa.int32())
        values = pc.fill_null(array.cast(pa.int64()), 0).to_numpy()
    return values, valid


FNV_PRIME = np.uint64(0x100000001B3)
SEED = np.uint64(0xCBF29CE484222325)
NULL_TAG = np.uint64(0x9E3779B97F4A7C15)
# One odd multiplier per column position of a row (VALUES, then TEXT).
WEIGHTS = tuple(
    np.uint64(w)
    for w in (
        0xA24BAED4963EE407,
        0x9FB21C651E98DF25,
        0xC13FA9A902A6328F,
        0x91E10DA5C79E7B1D,
        0xD6E8FEB86659FD93,
        0xB492B66FBE98F273,
        0x9AE16A3B2F90404F,
        0xCBF29CE484222327,
    )
)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser (uint64 array arithmetic wraps)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


# From this many values on, text is hashed by the compiled kernel (kernels/digest.py):
# its first load in a process (~0.3 s) costs more than NumPy on a small file.
COMPILED_FROM = 100_000
# Below COMPILED_FROM, a text value longer than this many bytes is hashed by the
# compiled kernel too, one value a call: NumPy makes one pass per byte position of the
# longest value, a few microseconds each however few values are still going (one
# 20 MB value took over a minute). Up to this length the passes cost ~0.02 s at most,
# less than the kernel's first load, which only a file with such a value pays.
LONG_VALUE = 4096


def text_hashes(data: np.ndarray, offsets: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``text_hashes_numpy``, or the same function compiled for many values."""
    if len(valid) >= COMPILED_FROM:
        from arpad.kernels.digest import text_hashes as compiled

        return compiled(data, offsets, valid, SEED, FNV_PRIME, NULL_TAG)
    return text_hashes_numpy(data, offsets, valid)


def text_hashes_numpy(data: np.ndarray, offsets: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The hash of each text value: FNV-1a over its bytes, then the finaliser over
    that and its length; a null is ``NULL_TAG``. ``data``: the UTF-8 bytes,
    ``offsets``: values + 1 (value i is ``data[offsets[i]:offsets[i+1]]``), ``valid``
    False for a null."""
    offsets = np.asarray(offsets, dtype=np.int64)
    valid = np.asarray(valid, dtype=bool)
    n = valid.shape[0]
    if offsets.shape != (n + 1,):
        raise ValueError("offsets must have one entry more than valid")
    starts = offsets[:-1]
    lengths = np.where(valid, offsets[1:] - starts, 0)
    if n and (starts.min() < 0 or lengths.min() < 0 or (starts + lengths).max() > len(data)):
        raise ValueError("offsets must rise within the data buffer")
    # A value longer than LONG_VALUE is hashed on its own by the compiled kernel; the
    # passes below skip it (no pass for its bytes).
    long = np.flatnonzero(lengths > LONG_VALUE)
    passes = lengths.copy()
    passes[long] = 0
    # One pass per byte position, longest values first: the values still going are a
    # prefix of that order.
    order = np.argsort(-passes, kind="stable")
    by_passes = passes[order]
    ascending = by_passes[::-1]
    first = starts[order]
    h = np.full(n, SEED, np.uint64)
    for j in range(int(by_passes[0]) if n else 0):
        k = n - int(np.searchsorted(ascending, j, side="right"))  # values longer than j
        part = h[:k]
        np.bitwise_xor(part, data[first[:k] + j], out=part, casting="unsafe")
        np.multiply(part, FNV_PRIME, out=part)
    hashes = np.empty(n, np.uint64)
    by_length = lengths[order].astype(np.uint64)
    hashes[order] = np.where(valid[order], _mix(h ^ by_length), NULL_TAG)
    if len(long):
        from arpad.kernels.digest import text_hashes as compiled

        one = np.ones(1, dtype=bool)
        for i in long.tolist():
            value = data[starts[i] : starts[i] + lengths[i]]
            span = np.array([0, len(value)], np.int64)
            hashes[i] = compiled(value, span, one, SEED, FNV_PRIME, NULL_TAG)[0]
    return hashes


def number_hashes(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The hash of each number given as its 64-bit pattern; a null is ``NULL_TAG``."""
    values = np.asarray(values)
    if values.dtype.itemsize != 8 or values.dtype.kind not in "iu":
        raise ValueError("values must be 64-bit integers")
    return np.where(np.asarray(valid, dtype=bool), _mix(values.view(np.uint64) ^ SEED), NULL_TAG)


def _text_column_hashes(array: pa.Array, distinct: bool) -> np.ndarray:
    """``distinct``: hash each distinct value once (a column with repeats: players,
    pool, event) and gather; else hash every row's value."""
    if not distinct:
        return text_hashes(*_text_buffers(array))
    encoded = pc.dictionary_encode(array, null_encoding="encode")
    rows = encoded.indices.to_numpy(zero_copy_only=False)
    return text_hashes(*_text_buffers(encoded.dictionary))[rows]


def _text_view(array: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_text_buffers`` without copying the bytes of a ``string`` array (its int32
    offsets widened)."""
    if not pa.types.is_string(array.type):
        return _text_buffers(array)
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], np.int32)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return data, offsets.astype(np.int64), valid


def row_hashes(games: pa.Table) -> np.ndarray:
    """The 64-bit hash of each game's content (module docstring): for many rows by
    the compiled pass of kernels/digest.py (the same values; tests/test_ingest_speed.py),
    else by NumPy (``row_hashes_numpy``)."""
    if games.num_rows < COMPILED_FROM:
        return row_hashes_numpy(games)
    from arpad.kernels.digest import row_hashes as compiled

    games = schemas.conform(games, schemas.GAMES)
    numbers = [_value_bits(games.column(name).combine_chunks()) for name in VALUES]
    texts = [_text_view(games.column(name).combine_chunks()) for name in TEXT[:-1]]
    game_id = games.column("game_id").combine_chunks()
    data, offsets, valid = _text_view(game_id)
    derived = pc.equal(game_id, games.column("source").combine_chunks())
    own = valid & ~pc.fill_null(derived, False).to_numpy(zero_copy_only=False)
    texts.append((data, offsets, own))
    return compiled(numbers, texts, WEIGHTS, SEED, FNV_PRIME, NULL_TAG)


def warm_up() -> None:
    """Load the compiled pass of ``row_hashes`` (Numba's first cached load in a
    process, ~0.3 s) on one row of each kind, with the types a large slice uses: a
    streamed ingest does it on its background thread while the first slice is read
    and validated (docs/ingest.md "Large Parquet files")."""
    from arpad.kernels.digest import row_hashes as compiled

    valid = np.ones(1, dtype=bool)
    text = (np.zeros(1, np.uint8), np.array([0, 1], np.int64), valid)
    compiled([(np.zeros(1, np.int64), valid)], [text], WEIGHTS, SEED, FNV_PRIME, NULL_TAG)


def row_hashes_numpy(games: pa.Table) -> np.ndarray:
    """``row_hashes`` by NumPy, vectorised over the values."""
    games = schemas.conform(games, schemas.GAMES)
    h = np.zeros(games.num_rows, np.uint64)
    weights = iter(WEIGHTS)
    for name in VALUES:
        h += next(weights) * number_hashes(*_value_bits(games.column(name).combine_chunks()))
    for name in TEXT[:-1]:
        h += next(weights) * _text_column_hashes(
            games.column(name).combine_chunks(), DISTINCT[name]
        )
    # The id when the source gives one; an id derived from the line (= source) is null.
    game_id = games.column("game_id").combine_chunks()
    derived = pc.equal(game_id, games.column("source").combine_chunks())
    own = np.where(
        derived.to_numpy(zero_copy_only=False), NULL_TAG, _text_column_hashes(game_id, False)
    )
    h += next(weights) * own
    return _mix(h)


class ContentDigest:
    """Version-2 digest of games added slice by slice (``add``), any order."""

    def __init__(self) -> None:
        self.rows = 0
        self.total = 0

    def add(self, games: pa.Table) -> None:
        if games.num_rows == 0:
            return
        self.total = (self.total + int(row_hashes(games).sum(dtype=np.uint64))) % 2**64
        self.rows += games.num_rows

    def hexdigest(self) -> str:
        text = f"{self.rows}:{self.total}"
        return f"{VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"


def content_digest(games: pa.Table) -> str:
    """The version-2 digest of one table of games."""
    d = ContentDigest()
    d.add(games)
    return d.hexdigest()


def digest_v1(games: pa.Table) -> str:
    """The version-1 digest: SHA-256 over the file's games as sorted CSV text (content
    key, event and the id when the source gives one)."""
    frame = pl.from_arrow(schemas.conform(games, schemas.GAMES))
    own_id = pl.when(pl.col("game_id") == pl.col("source")).then(None).otherwise(pl.col("game_id"))
    rows = frame.select(*CONTENT_KEY, "event_id", own_id.alias("id")).sort(pl.all())
    sink = _HashSink()
    rows.write_csv(sink)  # streamed into the hash: the CSV text is never held whole
    return sink.hash.hexdigest()


class _HashSink:
    """A write-only file object that feeds SHA-256 (the same digest as hashing the
    whole CSV text at once)."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def write(self, data) -> int:
        self.hash.update(data.encode() if isinstance(data, str) else data)
        return len(data)

    def flush(self) -> None:
        pass
