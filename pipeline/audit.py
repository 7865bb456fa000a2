"""``arpad audit PLAYER``: why a player has a rating (docs/store.md "Audit trail").

Per rated period of one system and pool: the player's rating before and after, the
change, games and score, status, the rules version (name and content hash) and the
run that wrote the row (null for rows written before these columns existed); and
the trail (pipeline/trail.py): every ingested version (first ingests, corrections,
replacements) whose earliest stale period is at or before the player's last rated
period, and every merge or split of the player's ids. A merged duplicate id is
resolved to the id it was merged into (docs/identity.md "Merged ids everywhere").
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
    """(periods, trail) for ``player_id`` (a merged duplicate: the id it was merged
    into; a text that is not a player id: a name, pipeline/lookup.py ``one_player``);
    ValueError when the player has no rating."""
    from arpad.pipeline import identity, trail
    from arpad.pipeline.lookup import one_player

    player_id = one_player(store, player_id, system, pool)
    frames = []
    for period in store.rating_periods(system, pool):
        table = schemas.conform(store.read_ratings(system, pool, period), schemas.RATINGS_FILE)
        rows = pl.from_arrow(table).filter(pl.col("player_id") == player_id)
        if rows.height:
            frames.append(rows.with_columns(pl.lit(period, dtype=pl.Int32).alias("period")))
    if not frames:
        raise ValueError(f"player {player_id!r} has no {system}/{pool} rating in the store")
    periods = pl.concat(frames).select(AUDIT_COLUMNS).sort("period")
    ids = [player_id, *identity.duplicates_of(store, player_id)]
    return periods, trail.for_player(store, ids, periods["period"].max())


def cut_rules(periods: pl.DataFrame, shown: int = 40) -> list[str]:
    """A line per rules name longer than a printed table shows (``output.render`` cuts
    text at ``shown`` characters; a rules file's or ``--set``'s changed fields stand at
    the name's end, docs/rules.md): the whole name, its ``rules_hash`` and periods."""
    lines = []
    rows = periods.filter(pl.col("rules").str.len_chars() > shown)
    for (name, digest), group in rows.group_by(["rules", "rules_hash"], maintain_order=True):
        first, last = group["period"].min(), group["period"].max()
        when = f"period {first}" if first == last else f"periods {first}..{last}"
        lines.append(f"rules in full: {name} (rules_hash {digest}; {when})")
    return lines
