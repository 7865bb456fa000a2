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

from arpad.pipeline.store import Store, atomic_write_parquet, remove_path

GAME_REPORT_GLOB = "ratings/*/*/*/games/*.parquet"


def game_report_dir(store: Store, system: str, pool: str, period: int):
    return store.rating_partition(system, pool, period) / "games"


def game_report_table(columns: dict[str, np.ndarray], player_id: np.ndarray) -> pa.Table:
    cols: dict[str, pa.Array] = {}
    for name, values in columns.items():
        v = np.asarray(values)
        if name in ("player", "opponent"):
            cols[f"{name}_id"] = pa.array(player_id[v.astype(np.int64)].tolist(), pa.string())
        elif v.dtype.kind == "f":
            cols[name] = pa.array(v, mask=np.isnan(v))
        else:
            cols[name] = pa.array(v)
    return pa.table(cols)


def write_game_report(store: Store, system: str, pool: str, period: int, report, player_id) -> int:
    """Write (or clear) the period's per-game report; returns the rows written."""
    directory = game_report_dir(store, system, pool, period)
    columns = report.extra.get("games") if report.extra else None
    if not columns:
        remove_path(directory)
        return 0
    table = game_report_table(columns, np.asarray(player_id, dtype=object))
    atomic_write_parquet(table, directory / "part-0.parquet")
    return table.num_rows
