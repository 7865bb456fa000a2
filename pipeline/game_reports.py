"""Per-game reports of a period (e.g. ECF's points per game), beside its ratings partition.

A system may put ``report.extra["games"]``: a dict of equal-length arrays in
which ``player`` and ``opponent`` are dense player indices. The engine writes
it to ``ratings/system=S/pool=P/period=N/games/part-0.parquet`` (one level
below the ratings files, so the ``ratings`` view does not read it; removing a
ratings partition removes it too). The catalog view ``game_reports`` reads
them all.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from arpad.pipeline.store import Store, atomic_write_parquet, lean_options

GAME_REPORT_GLOB = "ratings/*/*/*/games/*.parquet"


def game_report_dir(store: Store, system: str, pool: str, period: int):
    return store.rating_partition(system, pool, period) / "games"


def game_report_table(columns: dict[str, np.ndarray], player_id) -> pa.Table:
    """``player_id``: the run's ids (an Arrow string array, or anything ``pa.array`` takes)."""
    ids = player_id if isinstance(player_id, pa.Array) else pa.array(player_id, pa.string())
    cols: dict[str, pa.Array] = {}
    for name, values in columns.items():
        v = np.asarray(values)
        if name in ("player", "opponent"):
            cols[f"{name}_id"] = ids.take(pa.array(v.astype(np.int64)))
        elif v.dtype.kind == "f":
            nan = np.isnan(v)
            cols[name] = pa.array(v, mask=nan if nan.any() else None)
        else:
            cols[name] = pa.array(v)
    return pa.table(cols)


def write_game_report(store: Store, system: str, pool: str, period: int, report, player_id) -> int:
    """Write (or clear) the period's per-game report; returns the rows written."""
    directory = game_report_dir(store, system, pool, period)
    columns = report.extra.get("games") if report.extra else None
    if not columns:
        if directory.exists():
            store.remove_tree(directory)
        return 0
    ids = player_id if isinstance(player_id, pa.Array) else np.asarray(player_id, dtype=object)
    table = game_report_table(columns, ids)
    atomic_write_parquet(table, directory / "part-0.parquet", store.root, **lean_options(table))
    return table.num_rows
