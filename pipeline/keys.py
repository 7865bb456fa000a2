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
            found = pc.index_in(both, value_set=self.ids)
            if found.null_count == 0:
                both_keys = found.cast(pa.int32())
                return both_keys.slice(0, n), both_keys.slice(n)
            keys = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int32)
            missing = keys < 0
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
    key_ids: pa.Array, player_ids: pa.Array, aliases: tuple[pa.Array, pa.Array] | None
) -> np.ndarray:
    """key -> dense player index (-1: not in the players table), built once per run.

    ``key_ids``: the dictionary's ids in key order; ``player_ids``: the run's player
    ids (dense index = position); ``aliases`` (duplicate, keep): a merged duplicate's
    key maps to the kept player's index (docs/identity.md)."""
    ids = resolve_aliases(key_ids, aliases if len(key_ids) else None)
    dense = pc.fill_null(pc.index_in(ids, value_set=player_ids), -1)
    return dense.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)


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
