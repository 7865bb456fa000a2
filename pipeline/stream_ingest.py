"""Streamed ingest of a Parquet games file: slice by slice, in bounded memory
(docs/ingest.md "Large Parquet files").

A Parquet games file is read in slices of at most ``BATCH_ROWS`` rows
(``readers.iter_parquet``), and each slice goes through the same steps as a whole
file does (pipeline/ingest.py): validation, games already stored under the same
id, the content digest, games already stored under another id (re-sent games),
player keys, and the partition files. What used to need the whole file is kept
as a small summary across slices:

* game ids accepted from earlier slices (``SeenIds``: two 64-bit hashes per id and
  its line), so a duplicate id in a later slice names the line of the first, as it
  would in the whole file;
* the order-independent content digest (pipeline/digest.py);
* for rows without their own id, their contents so far (``SeenRows``: two 64-bit
  hashes and the place of each), so that rows repeating an earlier row of the file
  get the note a file read whole gets (``_Repeats``);
* for re-sent games, how many rows of each content key matching stored games
  earlier slices held (``prior``), so stored copies are used up one for one across
  slices as within one;
* the key dictionary in memory, written once (pipeline/keys.py);
* one open ``pyarrow.parquet.ParquetWriter`` per partition in the staging area, so
  a partition's rows stay in file order.

The result (games, keys, quarantine rows, manifest) is the same for any slice size
(tests/test_stream_ingest.py).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.kernels.config import read_only
from arpad.pipeline import catalog, keys, readers, schemas
from arpad.pipeline.digest import COMPILED_FROM, ContentDigest, digest_v1, warm_up
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store, before_change, partition_runs
from arpad.pipeline.validate import Validated, validate_games

# Rows per slice (validating a slice costs ~0.5 KB per row at peak). 250k rather than
# 500k: with the allocators keeping freed memory for a second (pipeline/lean.py) the
# smaller slices re-use it instead of faulting fresh pages, at a lower peak
# (docs/ingest.md "Large Parquet files").
BATCH_ROWS = 250_000
# Game ids a streamed ingest reserves room for at most before it has seen them (the
# file's footer count, up to this; more grow by doubling): SeenIds.
PRESIZE_MAX = 1 << 25
MAX_OPEN_WRITERS = 64  # partition files open at once; more are written as segments
# Parquet dictionary encoding for the text columns with few distinct values only: an
# open writer keeps the dictionary of every encoded column (~16 MB per writer with
# game_id and source, one value per row, where the encoding falls back to plain).
# Player ids (200k distinct in a 500k-row slice: the dictionary outgrows its page and
# falls back too) are written plain: 10% less CPU per partition write, a smaller
# file, reads no slower (docs/ingest.md "Large Parquet files").
PLAIN_TEXT = ("game_id", "source", "white_id", "black_id")
DICTIONARY_COLUMNS = [
    f.name for f in schemas.GAMES_FILE if pa.types.is_string(f.type) and f.name not in PLAIN_TEXT
]
# Column statistics (min/max) are kept but for the player ids: a 500k-row row group
# spans nearly every id, so their min/max never lets a reader skip it, and leaving
# them out saves ~7% of a partition write (docs/ingest.md "Large Parquet files").
STATISTICS_COLUMNS = [f.name for f in schemas.GAMES_FILE if f.name not in ("white_id", "black_id")]


def streamable(path: Path, fmt: str | None, mapping: str | None, kind: str | None):
    """The header of ``path`` as a raw table without rows when it is a Parquet games
    file (then it is streamed), else None."""
    if (fmt or readers.detect_format(path)) != "parquet" or kind == "players":
        return None
    head = readers.parquet_head(path, mapping, kind)
    return head if head.kind == "games" else None


class SeenIds:
    """The game ids accepted so far, slice by slice, as two 64-bit hashes of each id
    (polars' hash with two seeds, used inside this process only) and its line:
    24 bytes per game whatever the ids, plus a table of 4-byte slots at most ~70 %
    full (kernels/idset.py), found in one probe per id. ``expected``: the number of
    rows the file holds (its Parquet footer's count), so that the arrays are sized
    once; without it they double as they fill. A false duplicate needs both hashes of
    two different ids to agree (odds about n**2 / 2**129: below 1e-22 for 10**8
    games)."""

    SEEDS = (0x5EED, 0xC0FFEE)

    def __init__(self, expected: int = 0) -> None:
        self.count = self.indexed = 0  # entries added; of them, in the table
        self.first = self.second = self.value = None
        # (a footer's count is only a hint: the arrays grow past it, and a count beyond
        # any real file does not reserve more; np.zeros takes memory only where written)
        self._reserve(min(max(int(expected), 1024), PRESIZE_MAX))
        self._last: tuple[pl.Series, tuple[np.ndarray, np.ndarray]] | None = None

    def _reserve(self, capacity: int) -> None:
        """Room for ``capacity`` entries (the arrays copied, the table rebuilt)."""
        from arpad.kernels.idset import _index

        def grown(old, dtype):
            new = np.zeros(capacity, dtype)
            if old is not None:
                new[: self.count] = old[: self.count]
            return new

        self.first = grown(self.first, np.uint64)
        self.second = grown(self.second, np.uint64)
        self.value = grown(self.value, np.int64)
        self.slot = np.zeros(1 << max(10, int(capacity / 0.7).bit_length()), np.int32)
        _index(self.slot, self.first, 0, self.indexed)

    def _index_added(self) -> None:
        """The entries added since the last lookup put into the table: a file's last
        slice (its only one, for most files) is never indexed."""
        from arpad.kernels.idset import _index

        if self.indexed < self.count:
            _index(self.slot, self.first, self.indexed, self.count)
            self.indexed = self.count

    def _hashes(self, ids: pl.Series) -> tuple[np.ndarray, np.ndarray]:
        if self._last is not None and self._last[0] is ids:
            return self._last[1]  # the slice's ids hashed once for first_lines and add
        hashes = tuple(
            read_only(np.ascontiguousarray(ids.hash(seed=seed).to_numpy(), np.uint64))
            for seed in self.SEEDS
        )
        self._last = (ids, hashes)
        return hashes

    def first_lines(self, ids: pl.Series) -> pl.DataFrame:
        from arpad.kernels.idset import _find

        found = pl.DataFrame(schema={"_game_id": pl.String, "_before": pl.Int64})
        if not self.count or not len(ids):
            return found
        self._index_added()
        first, second = self._hashes(ids)
        before = _find(self.slot, self.first, self.second, self.value, first, second)
        hit = before >= 0
        if not hit.any():
            return found
        frame = pl.DataFrame({"_game_id": ids.filter(pl.Series(hit)), "_before": before[hit]})
        return frame.unique("_game_id", keep="first", maintain_order=True)

    def add(self, ids: pl.Series, lines: pl.Series) -> None:
        if not len(ids):
            return
        first, second = self._hashes(ids)
        self._last = None
        n = len(first)
        if self.count + n > len(self.first):
            self._reserve(max(2 * len(self.first), self.count + n))
        stop = self.count + n
        self.first[self.count : stop] = first
        self.second[self.count : stop] = second
        self.value[self.count : stop] = lines.cast(pl.Int64).to_numpy()
        self.count = stop


class SeenRows(SeenIds):
    """``SeenIds`` of whole rows (a DataFrame's), each as two 64-bit hashes of its
    values (polars' ``hash_rows`` with the two seeds): the contents of the rows without
    their own id a streamed file held so far (``_Repeats``)."""

    def _hashes(self, rows: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        if self._last is not None and self._last[0] is rows:
            return self._last[1]
        hashes = tuple(
            read_only(np.ascontiguousarray(rows.hash_rows(seed=seed).to_numpy(), np.uint64))
            for seed in self.SEEDS
        )
        self._last = (rows, hashes)
        return hashes

    def add_and_find(self, rows: pl.DataFrame, index: np.ndarray) -> np.ndarray:
        """Add ``rows`` (``index``: their values), then the value of each row's first
        entry: an entry is found before those added after it with the same hashes (they
        are placed further along its probe sequence), so a row finds the first row with
        its content, earlier for a repeat, itself otherwise."""
        from arpad.kernels.idset import _find

        first, second = self._hashes(rows)
        self.add(rows, pl.Series(index))
        self._index_added()
        return _find(self.slot, self.first, self.second, self.value, first, second)


class PartitionWriters:
    """One ``ParquetWriter`` per (pool, period) in the staging area, appended slice by
    slice (rows in file order). Past ``limit`` open files the least recently used
    one is closed; a partition written again later gets another segment, and the
    segments are joined, in order, when the writers close."""

    def __init__(self, staged, batch: str, limit: int | None = None):
        self.staged = staged
        self.batch = batch
        self.limit = limit or MAX_OPEN_WRITERS  # read when called (tests lower it)
        self.open: OrderedDict[tuple[str, int], pq.ParquetWriter] = OrderedDict()
        self.segments: dict[tuple[str, int], list[Path]] = {}

    def _writer(self, key: tuple[str, int]) -> pq.ParquetWriter:
        if key in self.open:
            self.open.move_to_end(key)
            return self.open[key]
        if len(self.open) >= self.limit:
            _, oldest = self.open.popitem(last=False)
            oldest.close()
        final = self.staged.game_file(key[0], key[1], self.batch)
        segments = self.segments.setdefault(key, [])
        path = final.with_name(f".{final.name}.{len(segments)}.tmp")
        path.parent.mkdir(parents=True, exist_ok=True)
        before_change(path)
        segments.append(path)
        writer = pq.ParquetWriter(
            path,
            schemas.GAMES_FILE,
            compression="zstd",
            use_dictionary=DICTIONARY_COLUMNS,
            write_statistics=STATISTICS_COLUMNS,
        )
        self.open[key] = writer
        return writer

    def write(self, games: pa.Table) -> None:
        """Append a slice's games (GAMES columns plus the key columns)."""
        if games.num_rows == 0:
            return
        # One stable sort by (pool, period), then a slice per partition (as
        # Store.write_games): rows keep their file order inside a partition. A slice
        # already in that order (a file sorted by period) is not copied.
        if not _in_partition_order(games):
            order = pc.sort_indices(
                games, sort_keys=[("pool", "ascending"), ("period", "ascending")]
            )
            games = games.take(order)
        runs = partition_runs(games)  # sorted: a group_by's order is not the rows'
        start = 0
        for pool, period, count in zip(
            runs.column("pool").to_pylist(),
            runs.column("period").to_pylist(),
            runs.column("period_count").to_pylist(),
        ):
            part = schemas.conform(games.slice(start, count), schemas.GAMES_FILE)
            start += count
            self._writer((pool, int(period))).write_table(part)

    def close(self) -> list[tuple[str, int]]:
        """Close every file and move it to its staged name; the partitions written."""
        for writer in self.open.values():
            writer.close()
        self.open.clear()
        for (pool, period), segments in sorted(self.segments.items()):
            final = self.staged.game_file(pool, period, self.batch)
            if len(segments) > 1:
                joined = final.with_name(f".{final.name}.joined.tmp")
                with pq.ParquetWriter(
                    joined,
                    schemas.GAMES_FILE,
                    compression="zstd",
                    use_dictionary=DICTIONARY_COLUMNS,
                    write_statistics=STATISTICS_COLUMNS,
                ) as out:
                    for segment in segments:
                        with pq.ParquetFile(segment) as f:
                            for group in range(f.num_row_groups):
                                out.write_table(f.read_row_group(group))
                        segment.unlink()
                os.replace(joined, final)
            else:
                os.replace(segments[0], final)
        return sorted(self.segments)


class WriteBehind:
    """Each slice, once validated, is stored — content digest, re-sent games, player
    keys, partition writes — on one background thread while the next slice is read
    and validated (pyarrow's kernels, Parquet's encoder, zstd and the compiled digest
    release the GIL; docs/ingest.md "Large Parquet files"). One slice in flight at
    most: ``submit`` waits for the previous one first, so slices are stored in file
    order and at most one is held behind; nothing else touches the staging area or
    the journal meanwhile. ``wait`` re-raises a failure; ``close`` leaves no thread
    behind. ``ARPAD_WRITE_BEHIND=0`` stores each slice on the ingest's thread."""

    def __init__(self) -> None:
        self._pool = None
        if os.environ.get("ARPAD_WRITE_BEHIND", "1") != "0":
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="arpad-ingest-write")
        self._pending = None

    @property
    def threaded(self) -> bool:
        return self._pool is not None

    def wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def submit(self, job) -> None:
        self.wait()
        if self._pool is None:
            job()
        else:
            self._pending = self._pool.submit(job)

    def close(self, quiet: bool = False) -> None:
        """Wait for the slice in flight and stop the thread; ``quiet``: a failure of
        that slice is not raised (the ingest already fails with its own error)."""
        try:
            self.wait()
        except Exception:
            if not quiet:
                raise
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)


def _rows(path: Path) -> int:
    """The number of rows the Parquet file's footer gives (0 if unreadable: the
    reading reports that)."""
    try:
        with pq.ParquetFile(path) as f:
            return f.metadata.num_rows
    except (pa.ArrowException, OSError, ValueError):
        return 0


def _in_partition_order(games: pa.Table) -> bool:
    """One pool and periods that never go down: already in partition order."""
    if pc.count_distinct(games.column("pool")).as_py() > 1:
        return False
    period = games.column("period").combine_chunks()
    if len(period) < 2:
        return True
    return bool(pc.all(pc.greater_equal(period.slice(1), period.slice(0, len(period) - 1))).as_py())


# -- re-sent content (docs/ingest.md "Re-sent games"): a whole file or slice by slice --
# What makes two rows the same game when at most one of them carries an id that its
# source vouches for: pool, period, date, the players in their colours and the score.
CONTENT_COLUMNS = ["pool", "period", "date", "white_id", "black_id", "score"]

# SQL over rows with ``game_id`` and ``source``: where the id comes from, and the round
# it names. ``derived``: no id in the source (``<file>:<line>``); ``pgn``: built from
# the PGN tags (docs/pgn-trf.md); ``trf``: tournament + round + pairing; ``source``: the
# file's own game_id column. Only ``source`` and ``trf`` ids tell two games apart.
_ID_KIND = (
    "CASE WHEN {t}.game_id = {t}.source THEN 'derived' "
    "WHEN starts_with({t}.game_id, 'pgn:') THEN 'pgn' "
    "WHEN regexp_matches({t}.game_id, ':r[0-9]+:[^:]+-[^:]+$') THEN 'trf' "
    "ELSE 'source' END"
)
_ROUND = (
    "CASE WHEN starts_with({t}.game_id, 'pgn:') THEN split_part({t}.game_id, '|', 4) "
    "WHEN regexp_matches({t}.game_id, ':r[0-9]+:[^:]+-[^:]+$') "
    "THEN regexp_extract({t}.game_id, ':r([0-9]+):', 1) END"
)


_PRIOR = pa.schema(
    [
        pa.field("pool", pa.string()),
        pa.field("period", pa.int32()),
        pa.field("date", pa.date32()),
        pa.field("white_id", pa.string()),
        pa.field("black_id", pa.string()),
        pa.field("score", pa.float32()),
        pa.field("rnd", pa.string()),
        pa.field("n", pa.int64()),
    ]
)
_KEY = "pool, period, date, white_id, black_id, score, rnd"
_SAME_KEY = " AND ".join(f"{{a}}.{c} IS NOT DISTINCT FROM {{b}}.{c}" for c in [*_KEY.split(", ")])


def _other_files(store: Store, games: pa.Table, batch: str, replaced_batches) -> list[str]:
    """The stored game files of the pools and periods of ``games``, but those of
    ``batch`` and of the ``replaced_batches`` (a correction's old version)."""
    ignore = {f"part-{b}.parquet" for b in [batch, *replaced_batches]}
    keys_ = games.select(["pool", "period"]).group_by(["pool", "period"]).aggregate([])
    parts = set(zip(keys_.column("pool").to_pylist(), keys_.column("period").to_pylist()))
    return [
        str(f)
        for pool, period in sorted(parts)
        for f in store.game_files(pool, period)
        if f.name not in ignore
    ]


def _stored_and_incoming(con, files: list[str]) -> None:
    """Temp tables ``s2`` (the stored games of ``files``) and ``i2`` (the registered
    ``incoming`` rows), each with its id kind and round (``_ID_KIND``, ``_ROUND``)."""
    con.execute(
        f"""
        CREATE TEMP TABLE s2 AS
        SELECT *, {_ID_KIND.format(t="s")} AS kind, {_ROUND.format(t="s")} AS rnd FROM (
            SELECT game_id, source, pool, CAST(period AS INTEGER) AS period, date,
                   white_id, black_id, score
            FROM read_parquet(?, hive_partitioning = true, hive_types_autocast = false)
        ) s
        """,
        [files],
    )
    con.execute(
        f"""
        CREATE TEMP TABLE i2 AS
        SELECT *, {_ID_KIND.format(t="incoming")} AS kind,
               {_ROUND.format(t="incoming")} AS rnd FROM incoming
        """
    )


def quarantine_resent(v: Validated, dup: pa.Table, batch: str) -> tuple[Validated, int]:
    """``v`` without its re-sent games — rows ``dup["_i"]`` of the accepted games, each
    stored before from ``dup["first"]`` — which join its quarantine as
    ``duplicate_game`` (docs/ingest.md "Re-sent games")."""
    games = v.accepted
    is_dup = pc.is_in(pa.array(range(games.num_rows), pa.int64()), value_set=dup.column("_i"))
    details = [
        f"same game (date, players, result, round) already stored from {first}"
        for first in dup.column("first").to_pylist()
    ]
    return _quarantine_rows_of(v, is_dup, Reason.DUPLICATE_GAME, details, batch)


def _quarantine_rows_of(
    v: Validated, mask, reason: Reason, details: list[str], batch: str
) -> tuple[Validated, int]:
    """``v`` with its accepted games where ``mask`` moved to its quarantine, with
    ``reason`` and one detail each (in their order); and how many moved."""
    games = v.accepted
    moved = games.filter(mask)
    where = moved.column("source").to_pylist()
    rows = pa.table(
        {
            "source": [s.rsplit(":", 1)[0] for s in where],
            "line": [int(s.rsplit(":", 1)[1]) for s in where],
            "reason": [reason.value] * moved.num_rows,
            "detail": details,
            "raw": [None] * moved.num_rows,
            "ingest_batch": [batch] * moved.num_rows,
        },
        schema=schemas.QUARANTINE,
    )
    kept = Validated(
        games.filter(pc.invert(mask)),
        pa.concat_tables([v.quarantine, rows]).sort_by("line"),
        v.rows_read,
    )
    return kept, moved.num_rows


def drop_content_duplicates(
    store: Store,
    v: Validated,
    batch: str,
    prior: pa.Table | None = None,
    replaced_batches: list[str] | tuple[str, ...] = (),
) -> tuple[Validated, int, pa.Table | None]:
    """``ingest._drop_content_duplicates`` for a whole file (``prior`` None) or for one
    slice of a file. ``prior``: per content key and round, how many rows of earlier
    slices had that key while it matched stored games; a row's rank among equal rows
    counts them, so stored copies are used up one for one across slices. The stored
    files of ``batch`` and of the ``replaced_batches`` (a correction's old version)
    are not compared. Returns the games left, how many were dropped, and ``prior``
    with these rows added (None for a whole file)."""
    games = v.accepted
    if games.num_rows == 0:
        return v, 0, prior
    files = _other_files(store, games, batch, replaced_batches)
    if not files:
        return v, 0, prior
    incoming = games.select(["game_id", *CONTENT_COLUMNS, "source"]).append_column(
        "_i", pa.array(range(games.num_rows), pa.int64())
    )
    con = duckdb.connect()
    try:
        con.register("incoming", incoming)
        con.register("prior", _PRIOR.empty_table() if prior is None else prior)
        _stored_and_incoming(con, files)
        dup = catalog.query_arrow(
            con,
            f"""
            WITH hits AS (
                SELECT i2._i, count(*) AS n, min(s2.source) AS first FROM i2 JOIN s2
                  ON i2.pool = s2.pool AND i2.period = s2.period
                 AND i2.date IS NOT DISTINCT FROM s2.date
                 AND i2.white_id = s2.white_id AND i2.black_id = s2.black_id
                 AND i2.score = s2.score
                WHERE (i2.rnd IS NULL OR s2.rnd IS NULL OR i2.rnd = s2.rnd)
                  AND NOT (i2.kind = s2.kind AND i2.kind IN ('source', 'trf')
                           AND i2.game_id <> s2.game_id)
                  AND s2.game_id NOT IN (SELECT game_id FROM incoming)
                GROUP BY i2._i
            ),
            ranked AS (
                SELECT _i, {_KEY}, row_number() OVER (
                    PARTITION BY {_KEY} ORDER BY _i) AS k FROM i2
            ),
            counted AS (
                SELECT r._i, r.k + coalesce(p.n, 0) AS k FROM ranked r
                LEFT JOIN prior p ON {_SAME_KEY.format(a="r", b="p")}
            )
            SELECT r._i, h.first FROM counted r JOIN hits h ON r._i = h._i
            WHERE r.k <= h.n ORDER BY r._i
            """,
        )
        # Rows whose content key matches a stored game: later slices rank after them.
        matched = (
            None
            if prior is None
            else catalog.query_arrow(
                con,
                f"""
            SELECT {_KEY}, sum(n)::BIGINT AS n FROM (
                SELECT {_KEY}, n FROM prior
                UNION ALL
                SELECT {_KEY}, count(*) AS n FROM i2
                WHERE EXISTS (
                    SELECT 1 FROM s2 WHERE s2.pool = i2.pool AND s2.period = i2.period
                      AND s2.date IS NOT DISTINCT FROM i2.date
                      AND s2.white_id = i2.white_id AND s2.black_id = i2.black_id
                      AND s2.score = i2.score)
                GROUP BY ALL
            ) GROUP BY ALL
            """,
            )
        )
    finally:
        con.close()
    if matched is not None:
        prior = matched.select(_PRIOR.names).cast(_PRIOR)
    if dup.num_rows == 0:
        return v, 0, prior
    kept, n = quarantine_resent(v, dup, batch)
    return kept, n, prior


def drop_conflicting_results(
    store: Store,
    before: pa.Table,
    v: Validated,
    batch: str,
    replaced_batches: list[str] | tuple[str, ...] = (),
    identities: dict[str, str] | None = None,
) -> tuple[Validated, int]:
    """``identities``: label -> stored source identity (ingest ``_identities``): the hint
    names what ``--source`` must give (``in/games_nov.csv``), not the label the stored
    rows carry (``games_nov.csv``).

    Quarantine (``conflicting_result``) the games of a file read whole that have the
    pool, period, date and players in their colours of a game another source stored
    (and its round where both name one), with another result: a correction sent under
    another name (docs/ingest.md "Conflicting results"). Stored both, the game would be
    rated twice, once with each result. ``before``: the file's accepted games before
    its re-sent games left (``v.accepted`` is what is left). Counting is one for one,
    as for re-sent games: a stored game that one of the file's re-sent rows stands for
    is used up, so the same pairing twice on one day, once re-sent and once new, is a
    new game. Ids a file vouches for (its ``game_id`` column, TRF pairings) tell games
    apart, as for re-sent games. Returns the games left and how many were quarantined."""
    games = v.accepted
    if games.num_rows == 0:
        return v, 0
    files = _other_files(store, games, batch, replaced_batches)
    if not files:
        return v, 0
    kept = pc.is_in(before.column("source"), value_set=games.column("source"))
    incoming = (
        before.select(["game_id", *CONTENT_COLUMNS, "source"])
        .append_column("_i", pa.array(range(before.num_rows), pa.int64()))
        .append_column("kept", kept)
    )
    con = duckdb.connect()
    try:
        con.register("incoming", incoming)
        _stored_and_incoming(con, files)
        pair = (
            "i2.pool = s2.pool AND i2.period = s2.period "
            "AND i2.date IS NOT DISTINCT FROM s2.date "
            "AND i2.white_id = s2.white_id AND i2.black_id = s2.black_id "
            "AND (i2.rnd IS NULL OR s2.rnd IS NULL OR i2.rnd = s2.rnd) "
            "AND NOT (i2.kind = s2.kind AND i2.kind IN ('source', 'trf') "
            "AND i2.game_id <> s2.game_id) "
            "AND s2.game_id NOT IN (SELECT game_id FROM incoming)"
        )
        hit = catalog.query_arrow(
            con,
            f"""
            WITH other AS (  -- per kept row: the stored games it may correct
                SELECT i2._i, min(s2.source) AS first, min(s2.score) AS was
                FROM i2 JOIN s2 ON {pair} AND i2.score <> s2.score
                WHERE i2.kept GROUP BY i2._i
            ),
            stored AS (  -- per kept row: the stored games of its pairing and day
                SELECT i2._i, count(*) AS n FROM i2 JOIN s2 ON {pair}
                WHERE i2.kept GROUP BY i2._i
            ),
            used AS (  -- per kept row: the file's re-sent rows of its pairing and day
                SELECT k._i, count(d._i) AS n FROM i2 k LEFT JOIN i2 d
                  ON NOT d.kept AND d.pool = k.pool AND d.period = k.period
                 AND d.date IS NOT DISTINCT FROM k.date
                 AND d.white_id = k.white_id AND d.black_id = k.black_id
                WHERE k.kept GROUP BY k._i
            ),
            ranked AS (
                SELECT _i, row_number() OVER (
                    PARTITION BY pool, period, date, white_id, black_id ORDER BY _i) AS k
                FROM i2 WHERE kept
            )
            SELECT i2.source, o.first, o.was, i2.score FROM other o
            JOIN stored s USING (_i) JOIN used u USING (_i) JOIN ranked r USING (_i)
            JOIN i2 USING (_i)
            WHERE r.k <= s.n - u.n ORDER BY _i
            """,
        )
    finally:
        con.close()
    if hit.num_rows == 0:
        return v, 0
    is_hit = pc.is_in(games.column("source"), value_set=hit.column("source"))
    details = []
    for first, was, now in zip(
        hit.column("first").to_pylist(),
        hit.column("was").to_pylist(),
        hit.column("score").to_pylist(),
    ):
        other = first.rsplit(":", 1)[0]
        ident = (identities or {}).get(other, other)
        how = (
            f"--source {other!r}, or from {other}'s own path"
            if ident == other
            else f"--source {ident!r}, or from its own path {ident}"
        )
        details.append(
            f"date, players and colours of the game stored from {first}, with White's "
            f"score {float(was):g} there, {float(now):g} here: not applied (to correct "
            f"{other}, ingest the file with {how}; another game that day needs a game_id "
            "or round; docs/ingest.md)"
        )
    return _quarantine_rows_of(v, is_hit, Reason.CONFLICTING_RESULT, details, batch)


@dataclass
class Streamed:
    """What a streamed games file left in the staging area."""

    rows_read: int
    accepted: int
    quarantine: pa.Table
    content: str  # the version-2 content digest
    resent: int  # games quarantined as re-sent (duplicate_game)
    partitions: list[tuple[str, int]]
    player_ids: pa.Array  # distinct ids of the stored games
    blank: int = 0  # rows with every field empty, skipped (readers.RawTable.blank)
    notes: list[str] = field(default_factory=list)  # the file's notes, once for all slices
    not_stored: dict[str, int] = field(default_factory=dict)  # byes, … (RawTable.not_stored)


class _SliceNotes:
    """The notes of a streamed file's slices as the whole file's: blank rows, ids
    with invisible characters, byes and double forfeits (readers.without_non_games)
    counted over every slice, other notes said once."""

    def __init__(self) -> None:
        self.blank = 0
        self.invisible: dict[str, int] = {}
        self.not_stored: dict[str, int] = {}
        self.not_stored_lines: dict[str, list[int]] = {}
        self.other: list[str] = []

    def add(self, raw: readers.RawTable) -> None:
        self.blank += raw.blank
        for name, count in raw.invisible.items():
            self.invisible[name] = self.invisible.get(name, 0) + count
        said = {readers.invisible_note(raw.invisible)} if raw.invisible else set()
        said.update(readers.not_stored_notes(raw.not_stored, raw.not_stored_lines))
        for name, count in raw.not_stored.items():
            self.not_stored[name] = self.not_stored.get(name, 0) + count
        for name, lines in raw.not_stored_lines.items():
            self.not_stored_lines[name] = [*self.not_stored_lines.get(name, []), *lines][
                : readers.NOT_STORED_SHOWN
            ]
        for note in raw.notes:
            if note not in said and not note.endswith("blank row(s) skipped"):
                if note not in self.other:
                    self.other.append(note)

    def notes(self) -> list[str]:
        found = [readers.invisible_note(self.invisible)] if self.invisible else []
        return self.other + readers.not_stored_notes(self.not_stored, self.not_stored_lines) + found


def _slices(store: Store, head, source: str, batch: str, batch_rows: int, notes=None):
    """Each slice validated, without the games already stored under the same id;
    ``notes`` (a ``_SliceNotes``) gathers the slices' notes."""
    from arpad.pipeline.ingest import _drop_store_duplicates

    seen = SeenIds(_rows(head.path))
    for raw in readers.iter_parquet(head.path, batch_rows, head.mapping, head.kind):
        if notes is not None:
            notes.add(raw)
        v = validate_games(raw, source, batch, seen)
        yield _drop_store_duplicates(store, v, batch, [])


# What makes a row without its own id repeat an earlier row of the file exactly: the
# columns ingest._repeated_rows_note compares for a file read whole (a Parquet file has
# no PGN round).
REPEAT_COLUMNS = (
    *("date", "period", "pool", "white_id", "black_id", "score", "rated", "event_id"),
    "moves_digest",
)


class _Repeats:
    """The rows without their own id (``game_id`` is ``file:line``) that repeat an
    earlier row of the file exactly, counted slice by slice as the file's duplicate ids
    are (``SeenRows``: two 64-bit hashes of each such row's content and its index among
    them, 24 bytes a row; kept only for a file with such rows): the note
    ``ingest._repeated_rows_note`` gives a file read whole, which the streamed ingest
    did not give (the new user's report, round 11: 52 repeats of the Kaggle training
    file noted for its CSV, not for the same rows in Parquet). The same count and
    example for any slicing. ``add``: a slice's accepted games before its re-sent games
    leave, as ``before`` in ingest.py; two hashes and one probe per row."""

    def __init__(self, expected: int = 0) -> None:
        self.expected = expected
        self.seen: SeenRows | None = None
        self.rows = 0  # rows without their own id so far: the index of the next
        self.repeats = 0
        self.example: tuple[int, dict] | None = None  # earliest row repeated later

    def add(self, games: pa.Table) -> None:
        if not games.num_rows:
            return
        derived = pc.fill_null(pc.equal(games.column("game_id"), games.column("source")), False)
        if not pc.any(derived).as_py():
            return
        if not pc.all(derived).as_py():
            games = games.filter(derived)
        rows = pl.from_arrow(games.select([c for c in REPEAT_COLUMNS if c in games.column_names]))
        index = np.arange(self.rows, self.rows + rows.height, dtype=np.int64)
        self.rows += rows.height
        if self.seen is None:
            self.seen = SeenRows(self.expected)
        first = self.seen.add_and_find(rows, index)  # its content's first row
        again = first < index
        if again.any():
            self.repeats += int(again.sum())
            i = int(np.argmin(np.where(again, first, np.iinfo(np.int64).max)))
            self._example(int(first[i]), rows, i)

    def _example(self, at: int, table: pl.DataFrame, i: int) -> None:
        if self.example is None or at < self.example[0]:
            self.example = (at, table.row(i, named=True))

    def notes(self) -> list[str]:
        """``ingest._repeated_rows_note``'s note (``repeated_rows_text``)."""
        if not self.repeats or self.example is None:
            return []
        return [repeated_rows_text(self.repeats, self.example[1])]


def repeated_rows_text(repeats: int, first: dict) -> str:
    """The note on ``repeats`` rows that repeat an earlier row, ``first`` (a row of
    ``REPEAT_COLUMNS``) the earliest of them: a file read whole
    (``ingest._repeated_rows_note``) and a streamed one (``_Repeats``) say it alike."""
    return (
        f"{repeats} row(s) repeat an earlier row of the file exactly (e.g. "
        f"{first['date'] or first['period']} {first['white_id']}-{first['black_id']} "
        f"{first['score']:g}): stored as games of their own (a pairing may be played "
        "twice); if a row was pasted twice, remove it and ingest the file again"
    )


class _Staging:
    """What the slices stored so far add up to; ``add`` stores one validated slice
    (in file order, one at a time)."""

    def __init__(self, store: Store, staged, batch: str) -> None:
        self.store = store
        self.batch = batch
        self.digest = ContentDigest()
        self.prior = _PRIOR.empty_table()
        self.writers = PartitionWriters(staged, batch)
        self.dictionary = keys.KeyDictionary(staged.keys_path)
        self.used = np.zeros(0, dtype=bool)  # by key: named by a game stored from this file
        self.quarantine: list[pa.Table] = []
        self.rows = self.accepted = self.resent = 0

    def add(self, v: Validated) -> None:
        self.digest.add(v.accepted)
        v, dropped, self.prior = drop_content_duplicates(self.store, v, self.batch, self.prior)
        self.resent += dropped
        self.rows += v.rows_read
        if v.quarantine.num_rows:
            self.quarantine.append(v.quarantine)
        games = v.accepted
        if games.num_rows:
            dictionary = self.dictionary
            white_key, black_key = dictionary.keys(
                games.column("white_id"), games.column("black_id")
            )
            if len(self.used) < len(dictionary.ids):
                grow = np.zeros(len(dictionary.ids) - len(self.used), bool)
                self.used = np.concatenate([self.used, grow])
            self.used[white_key.to_numpy()] = True
            self.used[black_key.to_numpy()] = True
            games = games.append_column("white_key", white_key)
            games = games.append_column("black_key", black_key)
            self.writers.write(games)
        self.accepted += games.num_rows


def store_games(store: Store, staged, head, source: str, batch: str, batch_rows=None) -> Streamed:
    """Validate, deduplicate and stage the games of the Parquet file ``head`` names,
    slice by slice; the key dictionary and the games files are staged (``staged``,
    a journal.StagedStore) and recorded for the commit."""
    staging = _Staging(store, staged, batch)
    expected = _rows(head.path)
    repeats = _Repeats(expected)
    notes = _SliceNotes()
    behind = WriteBehind()  # slice i stored while slice i + 1 is read and validated
    try:
        if behind.threaded and expected >= COMPILED_FROM:
            behind.submit(warm_up)  # the digest's kernels load while slice 1 is read
        for v in _slices(store, head, source, batch, batch_rows or BATCH_ROWS, notes):
            behind.submit(lambda v=v: staging.add(v))
            # rows repeating an earlier row, for the note: on this thread while the
            # slice is stored behind (docs/ingest.md "Large Parquet files")
            repeats.add(v.accepted)
            del v
            pa.default_memory_pool().release_unused()  # give freed slices' memory back
    except BaseException:
        behind.close(quiet=True)  # a bad slice is reported, not the one behind it
        raise
    behind.close()
    written = staging.writers.close()
    dictionary, used = staging.dictionary, staging.used
    if written:
        dictionary.write(staged.keys_path, staged.root)
    staged.staged_games(written, batch)
    ids = dictionary.ids.filter(pa.array(used)) if used.any() else pa.array([], pa.string())
    quarantine = staging.quarantine
    table = (
        pa.concat_tables(quarantine).sort_by("line")
        if quarantine
        else schemas.empty(schemas.QUARANTINE)
    )
    return Streamed(
        staging.rows,
        staging.accepted,
        table,
        staging.digest.hexdigest(),
        staging.resent,
        written,
        ids,
        notes.blank,
        notes.notes() + repeats.notes(),
        notes.not_stored,
    )


def streamed_digest_v1(store: Store, head, source: str, batch: str, batch_rows=None) -> str:
    """The version-1 digest of the file (pipeline/digest.py): only to compare it with a
    manifest entry an older arpad wrote. Holds the file's games whole."""
    tables = [v.accepted for v in _slices(store, head, source, batch, batch_rows or BATCH_ROWS)]
    return digest_v1(pa.concat_tables(tables))
