"""The audit trail of the store's inputs: every version of every source, and every
merge and split (docs/store.md "Audit trail").

The manifest keeps each source's current version only; ``manifest/history.parquet``
keeps one row per ingested version, append-only, written in the same staged
transaction as the manifest (pipeline/journal.py): when, which file (source, key,
content hash, batch), what it was (``ingest``: a source's first version,
``correction``: a new version of a source, ``replace``: ``--replace`` replaced games
of other sources), the games added, removed and changed, and the periods it made
stale. The catalog's ``ingest_history`` view reads it (with the manifest's rows
standing in for a store written before the history was kept) and ``corrections``
lists every correction, replacement, merge and split.
"""

from __future__ import annotations

import datetime as dt
import re

import polars as pl
import pyarrow as pa

from arpad.pipeline import catalog
from arpad.pipeline.store import HISTORY, Store

# Columns of the trail rows ``arpad audit`` and ``arpad diff`` print.
TRAIL_COLUMNS = (
    "recorded_at",
    "action",
    "source",
    "kind",
    "rows",
    "accepted",
    "games_added",
    "games_removed",
    "games_changed",
    "stale_from",
    "batch",
    "keep",
    "duplicate",
)


def stale_text(touched: list[tuple[str, int]]) -> str | None:
    """``pool:period;…``: the earliest touched period of each pool (as the merge log
    writes it), or None."""
    first: dict[str, int] = {}
    for pool, period in touched:
        first[pool] = min(period, first.get(pool, period))
    return ";".join(f"{pool}:{p}" for pool, p in sorted(first.items())) or None


def history_row(entry: pa.Table, report, old_batches: list[str], stale: str | None) -> pa.Table:
    """The history row of one ingest: ``entry`` is its manifest row, ``report`` its
    FileReport (``correction``: (removed, added, changed) against the source's
    previous version; ``replaced_games``: stored games of other sources replaced)."""
    row = entry.to_pylist()[0]
    if old_batches:
        action = "correction"
    elif report.replaced_games:
        action = "replace"
    else:
        action = "ingest"
    if report.kind == "players":
        added = removed = changed = None
    elif report.correction is not None:
        removed, added, changed = report.correction
    elif report.replaced_games:
        # a replaced game keeps its id: counted as changed, as in a correction
        changed = report.replaced_games
        added, removed = max(0, report.accepted - changed), 0
    else:
        added, removed, changed = report.accepted, 0, 0
    out = {
        "ingested_at": dt.datetime.now(dt.timezone.utc),
        "action": action,
        "source": row["source"],
        "source_key": row["source_key"],
        "kind": row["kind"],
        "format": row["format"],
        "sha256": row["sha256"],
        "batch": row["batch"],
        "replaces": ";".join(old_batches) or None,
        "rows": row["rows"],
        "accepted": row["accepted"],
        "quarantined": row["quarantined"],
        "games_added": added,
        "games_removed": removed,
        "games_changed": changed,
        "stale_from": row["min_period"],
        "stale": stale,
    }
    return pa.Table.from_pylist([out], schema=HISTORY)


def _query(store: Store, sql: str, params: list) -> pl.DataFrame:
    con = catalog.connect(store)
    try:
        return catalog.query_frame(con, sql, params)
    finally:
        con.close()


def corrections(store: Store) -> pl.DataFrame:
    """The catalog's ``corrections`` view: every correction, replacement, merge, split."""
    return _query(store, "SELECT * FROM corrections", [])


def for_player(store: Store, player_ids: list[str], last_period: int) -> pl.DataFrame:
    """What may have moved the rating of a player known under ``player_ids`` (the kept
    id and its merged duplicates) up to ``last_period``: every ingested version whose
    stale periods start at or before it (players files that changed starting ratings
    included), and every merge or split of those ids; oldest first."""
    slots = ", ".join("?" for _ in player_ids)
    sql = f"""
        SELECT recorded_at, action, source, kind, rows, accepted, games_added, games_removed,
               games_changed, stale_from, batch,
               CAST(NULL AS VARCHAR) AS keep, CAST(NULL AS VARCHAR) AS duplicate
        FROM ingest_history
        WHERE stale_from <= ? OR stale = 'all'
        UNION ALL BY NAME
        SELECT recorded_at, action, source, kind, rows, accepted, games_added, games_removed,
               games_changed, stale_from, batch, keep, duplicate
        FROM corrections
        WHERE action IN ('merge', 'split') AND (keep IN ({slots}) OR duplicate IN ({slots}))
        ORDER BY recorded_at, batch NULLS LAST
    """
    frame = _query(store, sql, [last_period, *player_ids, *player_ids])
    return frame.select(TRAIL_COLUMNS)


def marks(store: Store) -> dict:
    """How far the history and the merge log went at a publication (its manifest keeps
    these): everything after is "since the publication" (``since``)."""
    from arpad.pipeline.identity import read_merge_log

    return {
        "history_rows": store.read_history().num_rows,
        "merge_rows": read_merge_log(store).height,
    }


def _in_pool(stale: str, pool: str | None, stale_from: pl.Expr) -> pl.Expr:
    """The earliest period of ``pool`` that a row's ``stale`` text (``pool:period;…``,
    "all", or null) made stale: that pool's part; 0 (every period) for "all", a players
    file that changed a starting state field; a row without the text, or a list without
    a pool, goes by ``stale_from`` (any pool), as before. A text without the pool: null,
    the row touched other pools only (a standard file's correction was counted in the
    rapid list's revisions; the officer's attack, round 10)."""
    col = pl.col(stale)
    if pool is None:
        return stale_from
    part = col.str.extract(rf"(?:^|;){re.escape(pool)}:(\d+)", 1).cast(pl.Int32)
    return (
        pl.when(col == "all")
        .then(pl.lit(0, pl.Int32))
        .when(col.is_not_null())
        .then(part)
        .otherwise(stale_from)
    )


def since(store: Store, manifest: dict) -> pl.DataFrame:
    """The ingested versions, merges and splits after a publication (its manifest)
    that touched its period or an earlier one in its pool (``_in_pool``; a players file
    that changed a starting state field touches every pool), oldest first.

    After the publication: the history and merge-log rows beyond the counts the
    manifest recorded (``marks``). A publication written before those counts were kept
    goes by time (later than ``published_at``) and by batch (a version whose batch was
    not among the list's batches); rows of a store without history by batch alone."""
    from arpad.pipeline.identity import read_merge_log

    period, batches, pool = manifest["period"], manifest["batches"], manifest.get("pool")
    published = dt.datetime.fromisoformat(manifest["published_at"])
    history = pl.from_arrow(store.read_history()).with_row_index("_i")
    if "history_rows" in manifest:
        after = pl.col("_i") >= manifest["history_rows"]
    else:
        after = ~pl.col("batch").is_in(batches) | (
            pl.col("ingested_at").dt.truncate("1s") > published
        )
    recorded = set(history["batch"].to_list())
    legacy = pl.from_arrow(store.read_manifest()).filter(
        ~pl.col("batch").is_in(list(recorded)) & ~pl.col("batch").is_in(batches)
    )
    frames = [
        history.filter(after).select(
            pl.col("ingested_at").alias("recorded_at"),
            *TRAIL_COLUMNS[TRAIL_COLUMNS.index("action") : TRAIL_COLUMNS.index("batch") + 1],
            _in_pool("stale", pool, pl.col("stale_from")).alias("_touched"),
        ),
        legacy.select(
            pl.col("ingested_at").cast(pl.Datetime("us", "UTC")).alias("recorded_at"),
            pl.lit("unrecorded").alias("action"),
            "source",
            "kind",
            "rows",
            "accepted",
            pl.col("min_period").alias("stale_from"),
            "batch",
            pl.col("min_period").alias("_touched"),
        ),
    ]
    log = read_merge_log(store).with_row_index("_i")
    earliest = (  # of any pool
        pl.col("stale_from")
        .str.extract_all(r":(\d+)")
        .list.eval(pl.element().str.slice(1).cast(pl.Int32))
        .list.min()
    )
    log = log.with_columns(
        pl.col("at")
        .str.to_datetime(format="%Y-%m-%dT%H:%M:%S%.f%z", time_zone="UTC")
        .alias("recorded_at"),
        _in_pool("stale_from", pool, earliest).alias("_touched"),
        earliest.alias("stale_from"),
    )
    if "merge_rows" in manifest:
        log = log.filter(pl.col("_i") >= manifest["merge_rows"])
    else:
        log = log.filter(pl.col("recorded_at").dt.truncate("1s") > published)
    frames.append(
        log.select(
            "recorded_at",
            "action",
            pl.lit("players").alias("kind"),
            "stale_from",
            "keep",
            "duplicate",
            "_touched",
        )
    )
    out = pl.concat(frames, how="diagonal_relaxed")
    out = out.with_columns(
        pl.lit(None, pl.String).alias(c) for c in TRAIL_COLUMNS if c not in out.columns
    )
    return (
        out.filter(pl.col("_touched").is_not_null() & (pl.col("_touched") <= period))
        .sort("recorded_at", maintain_order=True)
        .select(TRAIL_COLUMNS)
    )
