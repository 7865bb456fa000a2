"""Integer player keys, assigned once at ingest (docs/store.md "Player keys").

``players/keys.parquet`` is an append-only dictionary ``player_id -> key``: the key
of a player is the row the id holds in that file (0, 1, 2, … in order of first
appearance), so a key never changes once given. Every games file written by
``Store.write_games`` carries ``white_key`` and ``black_key`` (int32) beside the
string ids; the engine maps keys to its dense player indices with one array
built per run (``dense_of_keys``), so no string is looked up per game.

Games files written before the keys existed have no key columns: the engine
falls back to the string lookup for them (``engine.load_period_games``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

KEY_COLUMNS = ("white_key", "black_key")

KEYS = pa.schema(
    [pa.field("player_id", pa.string(), nullable=False), pa.field("key", pa.int32(), False)]
)


def _buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int32 offsets, uint8 data) of a string array, read in place (kernels/strings.py)."""
    _, offsets, data = strings.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[
        strings.offset : strings.offset + len(strings) + 1
    ]
    data = np.frombuffer(data if data is not None else b"", dtype=np.uint8)
    return offsets, data


# Under NUMBA_DISABLE_JIT the kernels run as Python, ~30 µs a string: past this many
# strings on either side the lookups go to ``pyarrow.compute.index_in`` (same answers).
PYTHON_MAX = 2_000


def _compiled_or_small(n: int) -> bool:
    from arpad.kernels.config import jit_enabled

    return n <= PYTHON_MAX or jit_enabled()


class StringIndex:
    """Exact lookups of strings in ``value_set`` (an Arrow string array):
    ``index_in(values)`` equals ``pyarrow.compute.index_in(values, value_set)`` with -1
    for null, but the set's hash table is built once and kept (kernels/strings.py).
    Nulls on either side, or two set strings sharing a 64-bit hash, take
    ``index_in`` itself."""

    def __init__(self, value_set: pa.Array) -> None:
        from arpad.kernels.strings import _build, _hashes

        value_set = _plain_strings(value_set)
        self.value_set = value_set  # keeps the buffers alive
        self._table = None  # (slot hashes, slots); None: every lookup by index_in
        if not value_set.null_count and _compiled_or_small(len(value_set)):
            self._offsets, self._data = _buffers(value_set)
            with np.errstate(over="ignore"):  # wrapping uint64 (NUMBA_DISABLE_JIT runs)
                hashes = _hashes(self._offsets, self._data)
            bits = max(4, int(2 * max(len(value_set), 1) - 1).bit_length())  # half full
            slot_hash, slot, ok = _build(hashes, self._offsets, self._data, np.int64(bits))
            if ok:
                self._table = (slot_hash, slot)

    def index_in(self, values) -> np.ndarray:
        """int32 index in the set of every value, -1 when absent (or null)."""
        from arpad.kernels.strings import _hashes, _lookup, _verify

        values = _plain_strings(values)
        if self._table is not None and not values.null_count and _compiled_or_small(len(values)):
            offsets, data = _buffers(values)
            with np.errstate(over="ignore"):
                found = _lookup(*self._table, _hashes(offsets, data))
            if _verify(found, self._offsets, self._data, offsets, data):
                return found
        found = pc.index_in(values, value_set=self.value_set, skip_nulls=True)
        return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int32)


def _plain_strings(values) -> pa.Array:
    """One ``string`` (int32 offsets) array of ``values`` (chunked, large or dictionary)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if values.type != pa.string():
        values = values.cast(pa.string())
    if isinstance(values, pa.DictionaryArray):  # (cast above turned it into strings)
        values = values.dictionary_decode()
    return values


def read_keys(path) -> pa.Array:
    """The ids in key order (the id of key k is element k); empty without a file."""
    from arpad.pipeline.store import read_parquet_file

    if not Path(path).exists():
        return pa.array([], pa.string())
    table = read_parquet_file(path)
    missing = [c for c in ("player_id", "key") if c not in table.column_names]
    if missing:  # written by another arpad version or edited: one line, not a KeyError
        from arpad.pipeline.errors import InputError

        raise InputError(
            path,
            None,
            f"no column {missing[0]!r}: the player keys were written by another arpad "
            "version or edited; restore the file from a backup (nothing was changed)",
        )
    ids = table.column("player_id").combine_chunks().cast(pa.string())
    keys = table.column("key").to_numpy()
    if not np.array_equal(keys, np.arange(len(keys), dtype=keys.dtype)):
        raise ValueError(f"{path}: player keys are not 0..n-1 in order")
    return ids


class KeyDictionary:
    """The ``player_id -> key`` dictionary of ``path`` in memory, extended batch by
    batch (``keys``) and written once (``write``): a streamed ingest assigns keys
    slice by slice without rewriting the file each time."""

    def __init__(self, path):
        self.ids = read_keys(path)
        self.grown = False
        self._index: StringIndex | None = None  # of ``ids``, rebuilt when they grow

    def keys(self, white, black) -> tuple[pa.Array, pa.Array]:
        """Keys of ``white`` and ``black`` (int32), adding the ids not held yet in order
        of first appearance, reading the games row by row, White then Black: the same
        order whatever the batch size, so a file streamed in slices gets the same keys
        as in one piece."""
        white = white.combine_chunks() if isinstance(white, pa.ChunkedArray) else white
        black = black.combine_chunks() if isinstance(black, pa.ChunkedArray) else black
        white = white.cast(pa.string())
        black = black.cast(pa.string())
        n = len(white)
        both = pa.concat_arrays([white, black])
        # One lookup of every id in the dictionary (a hash set of the dictionary's ids,
        # probed once per id); ids already held — all of them after the first slices of
        # a file, usually — need nothing else (docs/store.md "Player keys").
        if len(self.ids):
            if self._index is None:
                self._index = StringIndex(self.ids)
            keys = self._index.index_in(both)
            missing = keys < 0
            if not missing.any():
                both_keys = pa.array(keys)
                return both_keys.slice(0, n), both_keys.slice(n)
        else:
            keys = np.full(2 * n, -1, np.int32)
            missing = np.ones(2 * n, dtype=bool)
        # The ids not held, in reading order (row by row, White then Black): their
        # dictionary encoding lists them in order of first appearance, so a new id's key
        # is the dictionary's size plus its index there.
        in_rows = np.empty(2 * n, dtype=bool)
        in_rows[0::2], in_rows[1::2] = missing[:n], missing[n:]
        reading = np.flatnonzero(in_rows)  # 2 * row (White) or 2 * row + 1 (Black)
        if not len(reading):
            return pa.array(keys[:n]), pa.array(keys[n:])
        position = np.where(reading % 2 == 0, reading // 2, n + reading // 2)
        encoded = pc.dictionary_encode(both.take(pa.array(position)))
        new = encoded.dictionary
        fresh = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
        keys[position] = len(self.ids) + fresh
        self.ids = pa.concat_arrays([self.ids, new]) if len(self.ids) else new
        self.grown = True
        self._index = None
        both_keys = pa.array(keys)
        return both_keys.slice(0, n), both_keys.slice(n)

    def write(self, path, root) -> bool:
        """Write the dictionary if it grew (atomically, under ``root``)."""
        from arpad.pipeline.store import atomic_write_parquet

        if not self.grown:
            return False
        table = pa.table(
            {"player_id": self.ids, "key": pa.array(np.arange(len(self.ids), dtype=np.int32))},
            schema=KEYS,
        )
        atomic_write_parquet(table, path, root)
        self.grown = False
        return True


def assign(path, root, white: pa.ChunkedArray, black: pa.ChunkedArray):
    """Keys of ``white`` and ``black`` ids, extending the dictionary at ``path`` with
    the ids it does not hold yet (in order of first appearance, row by row, White
    then Black: ``KeyDictionary.keys``). Writes the dictionary only when it grew
    (atomically, under ``root``). Returns (white_key, black_key) as int32 arrays."""
    dictionary = KeyDictionary(path)
    white_key, black_key = dictionary.keys(white, black)
    dictionary.write(path, root)
    return white_key, black_key


def resolve_aliases(ids, aliases: tuple[pa.Array, pa.Array] | None):
    """Merged ids (``players/aliases.parquet``: duplicate -> keep, docs/identity.md)
    replaced by the id they were merged into; other ids unchanged."""
    ids = ids.cast(pa.string())
    if aliases is None:
        return ids
    duplicate, keep = aliases
    return pc.coalesce(pc.take(keep, pc.index_in(ids, value_set=duplicate)), ids)


def dense_of_keys(
    key_ids: pa.Array,
    player_ids: pa.Array,
    aliases: tuple[pa.Array, pa.Array] | None,
    index: StringIndex | None = None,
) -> np.ndarray:
    """key -> dense player index (-1: not in the players table), built once per run.

    ``key_ids``: the dictionary's ids in key order; ``player_ids``: the run's player
    ids (dense index = position); ``aliases`` (duplicate, keep): a merged duplicate's
    key maps to the kept player's index (docs/identity.md). ``index``: a
    ``StringIndex`` of ``player_ids`` already built (the engine's), else one is built."""
    ids = resolve_aliases(key_ids, aliases if len(key_ids) else None)
    return (index if index is not None else StringIndex(player_ids)).index_in(ids)


def refuse_lost_dictionary(path: Path) -> None:
    """No dictionary, but stored games files carry keys: it was deleted (or half a backup
    restored). New keys would start at 0 again and give the old files' keys to other
    players, so the ingest is refused (docs/store.md "A damaged store"). Only the files'
    footers are read, and only when the dictionary is missing."""
    import pyarrow.parquet as pq

    from arpad.pipeline.integrity import BACKUP, damaged

    if Path(path).exists():
        return
    for game_file in (Path(path).parent.parent / "games").glob("pool=*/period=*/part-*.parquet"):
        try:
            keyed = "white_key" in pq.read_schema(game_file).names
        except (OSError, pa.ArrowException):
            continue  # a damaged games file is named where it is read
        if keyed:
            raise damaged(
                path,
                f"missing, but games files carry player keys ({game_file.name})",
                BACKUP + " (a new dictionary would give the stored keys to other players)",
            )
