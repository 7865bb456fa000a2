"""Canonical schemas for games, players, ratings and quarantine — the one place.

Documented in docs/schemas.md. Every reader produces GAMES/PLAYERS tables and
every rating system's report is cast to RATINGS before it is written.
"""

from __future__ import annotations

import pyarrow as pa

POOLS = ("standard", "rapid", "blitz")

GAMES = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("date", pa.date32()),
        pa.field("period", pa.int32(), nullable=False),
        pa.field("pool", pa.string(), nullable=False),
        pa.field("white_id", pa.string(), nullable=False),
        pa.field("black_id", pa.string(), nullable=False),
        pa.field("score", pa.float32(), nullable=False),
        pa.field("rated", pa.bool_(), nullable=False),
        pa.field("event_id", pa.string()),
        pa.field("source", pa.string(), nullable=False),
        pa.field("ingest_batch", pa.string(), nullable=False),
        # Ratings stated by the source (PGN WhiteElo/BlackElo, TRF); not used by
        # the rating systems, which carry their own state, but by performance
        # ratings and analysts.
        pa.field("white_rating", pa.float64()),
        pa.field("black_rating", pa.float64()),
        # How much of the date the source gave (DATE_PRECISIONS; null: a full date or
        # the source's own period). Year-only games are rated in the year's last month
        # (docs/pgn-trf.md "Imprecise dates").
        pa.field("date_precision", pa.string()),
        # A digest of a PGN game's main-line moves (null: no moves, or not a PGN
        # source); compares copies of one game in two collections (docs/pgn-trf.md
        # "Move digest"). Not part of a game's content for re-sent games/corrections.
        pa.field("moves_digest", pa.int64()),
    ]
)

DATE_PRECISIONS = ("day", "month", "year")

# Columns stored inside game partition files (pool and period live in the path),
# plus the integer player keys assigned at ingest (pipeline/keys.py, docs/store.md
# "Player keys"); files written before them have no key columns.
GAMES_FILE = pa.schema(
    [f for f in GAMES if f.name not in ("pool", "period")]
    + [pa.field("white_key", pa.int32()), pa.field("black_key", pa.int32())]
)

PLAYERS = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("federation", pa.string()),
        pa.field("sex", pa.string()),
        pa.field("birth_date", pa.date32()),
        pa.field("birth_year", pa.int32()),
        pa.field("title", pa.string()),
        # FIDE's other title columns (docs/lists.md); stores written before them read
        # them as null (``conform``).
        pa.field("w_title", pa.string()),
        pa.field("o_title", pa.string()),
        pa.field("foa_title", pa.string()),
        pa.field("rating", pa.float64()),
        pa.field("rated_games", pa.int32()),
        pa.field("peak_rating", pa.float64()),
        pa.field("rd", pa.float64()),
        pa.field("volatility", pa.float64()),
        pa.field("grade", pa.float64()),
        pa.field("source", pa.string()),
    ]
)

RATING_STATUSES = ("rated", "new", "provisional", "inactive", "unrated")

RATINGS = pa.schema(
    [
        pa.field("system", pa.string(), nullable=False),
        pa.field("pool", pa.string(), nullable=False),
        pa.field("period", pa.int32(), nullable=False),
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("rating_before", pa.float64()),
        pa.field("rating_after", pa.float64()),
        pa.field("games", pa.int32(), nullable=False),
        pa.field("score", pa.float64(), nullable=False),
        pa.field("expected", pa.float64()),
        pa.field("k", pa.float64()),
        pa.field("change", pa.float64()),
        # One-off change applied at the start of the period, before its games
        # (FIDE's 2024 compression): rating_after = rating_before + adjustment + change.
        pa.field("adjustment", pa.float64()),
        pa.field("rd_before", pa.float64()),
        pa.field("rd_after", pa.float64()),
        pa.field("volatility_before", pa.float64()),
        pa.field("volatility_after", pa.float64()),
        pa.field("performance", pa.float64()),
        pa.field("status", pa.string(), nullable=False),
        # Audit trail (docs/store.md): the rules version that produced the row (its
        # name and a hash of the rules object's fields) and the run that wrote it
        # (the run id of pipeline/resume.py, as in the checkpoint's meta.json).
        # Null in stores written before they existed, and run_id outside a run.
        pa.field("rules", pa.string()),
        pa.field("rules_hash", pa.string()),
        pa.field("run_id", pa.string()),
    ]
)

# Columns stored inside rating partition files (system, pool, period in the path).
RATINGS_FILE = pa.schema([f for f in RATINGS if f.name not in ("system", "pool", "period")])

QUARANTINE = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("line", pa.int64(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string(), nullable=False),
        pa.field("raw", pa.string()),
        pa.field("ingest_batch", pa.string(), nullable=False),
    ]
)


def empty(schema: pa.Schema) -> pa.Table:
    return schema.empty_table()


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Select and cast ``table`` to ``schema``; missing nullable columns become null.

    Raises ValueError naming the missing column when a required one is absent.
    """
    columns = []
    for field in schema:
        if field.name in table.column_names:
            columns.append(table.column(field.name).cast(field.type))
        elif field.nullable:
            columns.append(pa.nulls(table.num_rows, type=field.type))
        else:
            raise ValueError(f"missing required column {field.name!r}")
    return pa.Table.from_arrays(columns, schema=schema)
