"""The content digest of an ingested games file (``content_sha256`` in the manifest;
docs/store.md "Content digest").

Version 2 (``v2:<hex>``): an order-independent digest of the file's games as
content, the multiset of its rows (pool, period, date, players, score, event and
the id when the source gives one), summed row hash by row hash
(kernels/digest.py) and finished with SHA-256 over the count and the two lane
sums. It is computed slice by slice while a file streams in, with the same value
for any slicing and any row order. Version 1 (a bare 64-digit hex, written by
arpad before streaming ingest) sorted the whole table and hashed its CSV text:
``digest_v1`` keeps it, for comparing a file with an entry an older arpad wrote.
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
# Old digests: the content key, the event and the id, as CSV text of sorted rows.
CONTENT_KEY = ["pool", "period", "date", "white_id", "black_id", "score"]


def is_v2(value: str | None) -> bool:
    return bool(value) and value.startswith(f"{VERSION}:")


def _own_id(games: pa.Table) -> pa.Array:
    """The game id when the source gives one; null for ids derived from the line."""
    game_id = games.column("game_id").combine_chunks()
    derived = pc.equal(game_id, games.column("source").combine_chunks())
    return pc.if_else(derived, pa.scalar(None, pa.string()), game_id)


def _text_buffers(column) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
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


def _value_bits(column) -> tuple[np.ndarray, np.ndarray]:
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_floating(array.type):
        values = pc.fill_null(array.cast(pa.float64()), 0.0).to_numpy().view(np.int64)
    else:
        if pa.types.is_date(array.type):
            array = array.cast(pa.int32())
        values = pc.fill_null(array.cast(pa.int64()), 0).to_numpy()
    return values, valid


class ContentDigest:
    """Version-2 digest of games added slice by slice (``add``), any order."""

    def __init__(self) -> None:
        self.rows = 0
        self.a = np.uint64(0)
        self.b = np.uint64(0)

    def add(self, games: pa.Table) -> None:
        from arpad.kernels import digest as kernel

        if games.num_rows == 0:
            return
        games = schemas.conform(games, schemas.GAMES)
        columns = {name: games.column(name) for name in (*TEXT, *VALUES) if name != "id"}
        columns["id"] = _own_id(games)
        lanes = kernel.start(games.num_rows)
        for name in VALUES:
            kernel.fold_values(lanes, *_value_bits(columns[name]))
        for name in TEXT:
            kernel.fold_text(lanes, *_text_buffers(columns[name]))
        with np.errstate(over="ignore"):
            self.a = np.uint64(self.a + lanes.a.sum(dtype=np.uint64))
            self.b = np.uint64(self.b + lanes.b.sum(dtype=np.uint64))
        self.rows += games.num_rows

    def hexdigest(self) -> str:
        text = f"{self.rows}:{int(self.a)}:{int(self.b)}"
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
