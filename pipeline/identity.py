"""Player identity across sources (docs/pgn-trf.md "Player identity").

A player's id is the FIDE id when a source gives one (PGN ``WhiteFideId``, TRF
columns 58–68, or a CSV's own ``player_id``), else an id scoped to the source
(``<file>:<name>`` for PGN, ``<file>#<starting rank>`` for TRF), so two
different "Smith, J" in two files never merge by accident.

The ``players`` table keeps, per column, the latest non-null value any source
gave. What each source said is kept in ``STORE/players/observations.parquet``
(one row per player and source; a corrected source replaces its rows), so that
disagreements stay visible: ``conflicts`` lists players whose sources give
different values of a field that matters (birth year, and the starting state the
rating systems read: rating, rated games, peak rating, rd, volatility, grade),
one row per player, field and source (``arpad players --conflicts``).
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline.store import Store, atomic_write_parquet, read_parquet_file

OBSERVED = ("name", "birth_year", "federation", "sex", "title")
# Numeric fields kept per source too, so that two files giving one player
# different ratings are reported instead of the last one winning silently.
OBSERVED_STATE = ("rating", "rated_games", "peak_rating", "rd", "volatility", "grade")
# Fields compared between sources, in report order.
CONFLICT_FIELDS = ("birth_year", *OBSERVED_STATE)
FIELD_LABELS = {"birth_year": "birth year", "rated_games": "rated games", "peak_rating": "peak"}


def _dtype(column: str):
    if column in ("birth_year", "rated_games"):
        return pl.Int32
    if column in OBSERVED_STATE:
        return pl.Float64
    return pl.String


def observations_path(store: Store):
    return store.players_path.parent / "observations.parquet"


def read_observations(store: Store) -> pl.DataFrame:
    schema = {"player_id": pl.String, "source": pl.String, "line": pl.Int64} | {
        c: _dtype(c) for c in (*OBSERVED, *OBSERVED_STATE)
    }
    path = observations_path(store)
    if not path.exists():
        return pl.DataFrame(schema=schema)
    frame = pl.from_arrow(read_parquet_file(path))
    # Observations written before the state fields were kept lack those columns.
    missing = [
        pl.lit(None, dtype).alias(c) for c, dtype in schema.items() if c not in frame.columns
    ]
    return frame.with_columns(missing).select(list(schema))


def record_observations(
    store: Store, players: pl.DataFrame, source: str, state: bool = False
) -> None:
    """Replace ``source``'s observations with the accepted players rows it gave.

    ``state``: keep the starting-state fields too (players files). The ratings a PGN
    or TRF file gives are the ratings at that event; they differ between events by
    nature, so they are not compared."""
    kept = (*OBSERVED, *OBSERVED_STATE) if state else OBSERVED
    rows = players.select(
        "player_id",
        pl.lit(source).alias("source"),
        pl.col("source").str.extract(r":(\d+)$", 1).cast(pl.Int64).alias("line"),
        *[
            (pl.col(c) if c in players.columns and c in kept else pl.lit(None))
            .cast(_dtype(c))
            .alias(c)
            for c in (*OBSERVED, *OBSERVED_STATE)
        ],
    ).filter(pl.any_horizontal([pl.col(c).is_not_null() for c in kept]))
    old = read_observations(store).filter(pl.col("source") != source)
    merged = pl.concat([old, rows], how="vertical_relaxed").sort("player_id", "source")
    atomic_write_parquet(merged.to_arrow(), observations_path(store), store.root)


def conflicts(store: Store) -> pl.DataFrame:
    """Players whose sources disagree on a field of ``CONFLICT_FIELDS``: one row per
    (player, field, source) with the value that source gave, sorted by player, field,
    source. The players table holds the value of the file ingested last."""
    obs = read_observations(store)
    frames = []
    for field in CONFLICT_FIELDS:
        given = obs.filter(pl.col(field).is_not_null())
        bad = (
            given.group_by("player_id")
            .agg(pl.col(field).n_unique().alias("values"))
            .filter(pl.col("values") > 1)
        )
        frames.append(
            given.join(bad.select("player_id"), on="player_id", how="semi").select(
                "player_id",
                "source",
                "line",
                "name",
                pl.lit(field).alias("field"),
                pl.col(field).cast(pl.String).alias("value"),
            )
        )
    return pl.concat(frames).sort("player_id", "field", "source")


def conflict_notes(store: Store, source: str) -> list[str]:
    """Ingest summary lines: per field, the players on whom ``source`` disagrees with
    another source, with one example naming both files."""
    clash = conflicts(store)
    mine = clash.filter(pl.col("source") == source)
    notes = []
    for field in CONFLICT_FIELDS:
        ids = mine.filter(pl.col("field") == field).get_column("player_id").unique().sort()
        if not len(ids):
            continue
        example = clash.filter((pl.col("field") == field) & (pl.col("player_id") == ids[0]))
        said = ", ".join(f"{v} in {s}" for s, v in example.select("source", "value").iter_rows())
        label = FIELD_LABELS.get(field, field)
        notes.append(
            f"{len(ids)} player(s) whose {label} differs between sources "
            f"(e.g. {ids[0]}: {said}; the file ingested last wins; arpad players --conflicts)"
        )
    return notes
