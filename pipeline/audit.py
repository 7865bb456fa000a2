"""``arpad audit PLAYER``: why a player has a rating (docs/store.md "Audit trail").

Per rated period of one system and pool: the player's rating before and after, the
change, games and score, status, the rules version (name and content hash) and the
run that wrote the row (null for rows written before these columns existed); and
the ingests (manifest entries: first ingests and corrections) that made those
periods stale — every entry whose earliest touched period is at or before the
player's last rated period.
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline import schemas
from arpad.pipeline.store import Store

AUDIT_COLUMNS = (
    "period",
    "rating_before",
    "rating_after",
    "change",
    "games",
    "score",
    "status",
    "rules",
    "rules_hash",
    "run_id",
)


def audit(store: Store, player_id: str, system: str, pool: str = "standard"):
    """(periods, ingests) for ``player_id``; ValueError when the player has no rating."""
    frames = []
    for period in store.rating_periods(system, pool):
        table = schemas.conform(store.read_ratings(system, pool, period), schemas.RATINGS_FILE)
        rows = pl.from_arrow(table).filter(pl.col("player_id") == player_id)
        if rows.height:
            frames.append(rows.with_columns(pl.lit(period, dtype=pl.Int32).alias("period")))
    if not frames:
        raise ValueError(f"player {player_id!r} has no {system}/{pool} rating in the store")
    periods = pl.concat(frames).select(AUDIT_COLUMNS).sort("period")
    last = periods["period"].max()
    ingests = (
        pl.from_arrow(store.read_manifest())
        .filter(pl.col("min_period").is_not_null() & (pl.col("min_period") <= last))
        .select("ingested_at", "source", "kind", "rows", "accepted", "min_period", "batch")
        .sort("ingested_at", "batch")
    )
    return periods, ingests
