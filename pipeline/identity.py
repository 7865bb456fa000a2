"""Player identity across sources (docs/pgn-trf.md "Player identity").

A player's id is the FIDE id when a source gives one (PGN ``WhiteFideId``, TRF
columns 58–68, or a CSV's own ``player_id``), else an id scoped to the source
(``<file>:<name>`` for PGN, ``<file>#<starting rank>`` for TRF), so two
different "Smith, J" in two files never merge by accident.

The ``players`` table keeps, per column, the latest non-null value any source
gave. What each source said is kept in ``STORE/players/observations.parquet``
(one row per player and source; a corrected source replaces its rows), so that
disagreements stay visible: ``conflicts`` lists players whose sources give
different birth years (``arpad players --conflicts``).
"""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq

from arpad.pipeline.store import Store, atomic_write_parquet

OBSERVED = ("name", "birth_year", "federation", "sex", "title")


def observations_path(store: Store):
    return store.players_path.parent / "observations.parquet"


def read_observations(store: Store) -> pl.DataFrame:
    path = observations_path(store)
    if not path.exists():
        return pl.DataFrame(
            schema={"player_id": pl.String, "source": pl.String, "line": pl.Int64}
            | {c: (pl.Int32 if c == "birth_year" else pl.String) for c in OBSERVED}
        )
    return pl.from_arrow(pq.read_table(path))


def record_observations(store: Store, players: pl.DataFrame, source: str) -> None:
    """Replace ``source``'s observations with the accepted players rows it gave."""
    rows = players.select(
        "player_id",
        pl.lit(source).alias("source"),
        pl.col("source").str.extract(r":(\d+)$", 1).cast(pl.Int64).alias("line"),
        *[pl.col(c).cast(pl.Int32 if c == "birth_year" else pl.String) for c in OBSERVED],
    ).filter(pl.any_horizontal([pl.col(c).is_not_null() for c in OBSERVED]))
    old = read_observations(store).filter(pl.col("source") != source)
    merged = pl.concat([old, rows], how="vertical_relaxed").sort("player_id", "source")
    atomic_write_parquet(merged.to_arrow(), observations_path(store), store.root)


def conflicts(store: Store) -> pl.DataFrame:
    """Players whose sources disagree on the birth year: one row per (player, source)."""
    obs = read_observations(store).filter(pl.col("birth_year").is_not_null())
    bad = (
        obs.group_by("player_id")
        .agg(pl.col("birth_year").n_unique().alias("years"))
        .filter(pl.col("years") > 1)
    )
    return (
        obs.join(bad.select("player_id"), on="player_id", how="semi")
        .select("player_id", "source", "line", "name", "birth_year")
        .sort("player_id", "source")
    )
