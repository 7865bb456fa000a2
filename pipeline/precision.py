"""How precisely the games of a period are dated (docs/pgn-trf.md "Imprecise dates").

A PGN game dated ``1851.??.??`` is rated in December 1851 and one dated
``1851.05.??`` in May 1851; the games keep a ``date_precision`` column (day, month,
year; null for a full date or a source's own period number). Lists and history plots
say when a period's games are dated less precisely than the period.
"""

from __future__ import annotations

import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline.store import Store

# Coarser than a monthly period: lists and plots flag it. "month" matches the period.
COARSE = ("year",)


def period_precision(store: Store, pool: str, period: int) -> dict[str, int]:
    """Games of ``pool``/``period`` per date precision: {"day": n, "month": n, "year": n}
    (a full date or a source's own period counts as "day")."""
    counts = {"day": 0, "month": 0, "year": 0}
    for path in store.game_files(pool, period):
        file = pq.ParquetFile(path)
        if "date_precision" not in file.schema_arrow.names:
            counts["day"] += file.metadata.num_rows
            continue
        column = file.read(columns=["date_precision"]).column("date_precision")
        column = pc.fill_null(column, "day")
        for row in pc.value_counts(column).to_pylist():
            counts[row["values"]] = counts.get(row["values"], 0) + row["counts"]
    return counts


def precision_note(counts: dict[str, int]) -> str | None:
    """One line for a list's header when some of the period's games are known only to
    the year or the month; None when every game has a full date."""
    total = sum(counts.values())
    parts = []
    if counts.get("year"):
        parts.append(f"{counts['year']} known only to the year (rated in its last month)")
    if counts.get("month"):
        parts.append(f"{counts['month']} known only to the month")
    if not parts:
        return None
    return f"dates: of {total} games, " + ", ".join(parts)


def coarse_periods(store: Store, pool: str, periods: list[int]) -> set[int]:
    """The periods among ``periods`` holding games dated only to the year."""
    return {p for p in periods if any(period_precision(store, pool, p).get(c) for c in COARSE)}
