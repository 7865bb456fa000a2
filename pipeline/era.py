"""The era table: the top players of each year (or decade) of a rating history
(``arpad era``; docs/analysis.md "Era table").

For each year (decade) and each player **active** in it, i.e. with at least one rated
game in one of its periods, the row is the player's rating at their last listed period
of that year (status rated/new/provisional/inactive with a rating, as on a list) and
the games they played in the year. Players without a game that year are left out,
however high their rating: a historian asks who were the strongest players *of* a
year, and a rating carried unchanged through years without games says nothing about
that year (FIDE's own lists flag such players inactive). Players are ranked by rating
(ascending for lower-is-better systems, Ingo), ties by player id, and the first
``top`` of each year are kept; ``rank`` counts from 1 within the year.

Years come from ``periods.year_of`` (calendar periods); a system rated in abstract
period numbers has no years (ValueError, exit 2).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from arpad.pipeline import catalog, periods

LISTED = ("rated", "new", "provisional", "inactive")  # the statuses a rating list shows
BY = ("year", "decade")
ERA_COLUMNS = ("rank", "player_id", "name", "federation", "rating", "games", "period")

_SQL = """
SELECT period, player_id, rating_after AS rating, games, status, rating_before, change,
       adjustment
FROM ratings WHERE system = ? AND pool = ?
"""


def era_table(
    store,
    system: str,
    pool: str = "standard",
    top: int = 10,
    by: str = "year",
    min_games: int | None = None,
) -> pl.DataFrame:
    """Columns ``year`` (or ``decade``: 1880 for 1880–1889) then ``ERA_COLUMNS``; ``period``
    is the period the rating is from, ``games`` the player's games in the year.
    ``min_games``: only players with at least that many rated games in the year (decade),
    ranked among themselves."""
    from arpad.pipeline.systems import get_system

    if by not in BY:
        raise ValueError(f"--by takes {' or '.join(BY)}, got {by!r}")
    if top < 1:
        raise ValueError(f"--top takes a positive number of players, got {top}")
    if min_games is not None and min_games < 1:
        raise ValueError(f"--min-games takes a positive number of games, got {min_games}")
    rated = get_system(system)
    con = catalog.connect(store)
    try:
        rows = catalog.query_frame(con, _SQL, [system, pool])
    finally:
        con.close()
    if rows.height == 0:
        raise store.no_ratings(system, pool)
    years = {p: periods.year_of(p) for p in rows["period"].unique().to_list()}
    abstract = sorted(p for p, y in years.items() if y is None)
    if abstract:
        raise ValueError(
            f"{system}/{pool} is rated in period numbers ({abstract[0]}, …) that have no "
            "year: the era table needs dated periods"
        )
    year = pl.col("period").replace_strict(years, return_dtype=pl.Int32)
    bucket = year if by == "year" else (year // 10) * 10
    rows = rows.with_columns(bucket.alias(by), pl.col("games").fill_null(0))
    if rated.cumulative_interim_games or rated.held_games_repeated:
        rows = _games_of_each_period(
            rows, interim=rated.cumulative_interim_games, held=rated.held_games_repeated
        )
    games = rows.group_by(by, "player_id").agg(pl.col("games").sum().cast(pl.Int64))
    listed = (
        rows.filter(pl.col("status").is_in(LISTED) & pl.col("rating").is_not_null())
        .sort("period")
        .group_by(by, "player_id")
        .agg(pl.col("rating").last(), pl.col("period").last())
    )
    fewest = max(1, min_games or 1)  # active: at least one game (``--min-games``: more)
    table = listed.join(games.filter(pl.col("games") >= fewest), on=[by, "player_id"])
    players = pl.from_arrow(store.read_players()).select("player_id", "name", "federation")
    table = table.join(players, on="player_id", how="left")
    order = pl.col("rating") if rated.lower_is_better else -pl.col("rating")
    table = (
        table.sort([pl.col(by), order, pl.col("player_id")])
        .with_columns(pl.int_range(1, pl.len() + 1).over(by).cast(pl.Int64).alias("rank"))
        .filter(pl.col("rank") <= top)
    )
    if rated.integer_ratings:
        table = table.with_columns(_whole(table["rating"]))
    else:
        table = table.with_columns(pl.col("rating").round(1))
    return table.select(by, *ERA_COLUMNS)


def _games_of_each_period(
    rows: pl.DataFrame, interim: bool = True, held: bool = False
) -> pl.DataFrame:
    """``games`` as the games played in each row's own period, each game once: a row's
    count less the player's previous row's when that one's games are counted again.

    ``interim`` (``cumulative_interim_games``, ECF's interim grades): a ``provisional``
    row counts the open cycle's games so far, so the next row of the same cycle repeats
    them; after a row of another status (the cycle published) the count starts again,
    and the publication in the closing month adds only that month's games (none when
    the month is walked without games).
    ``held`` (``held_games_repeated``, FIDE's two-monthly lists; needs the columns
    ``rating_before``, ``change`` and ``adjustment``): a rated row with ``change`` null
    (the first month of a rating period) holds its games, and the row that publishes
    them (the closing month's) counts them again, unless it published them late as an
    ``adjustment`` (a closing month not walked: its ``games`` are its own)."""
    rows = rows.sort("player_id", "period")
    before = pl.col("games").shift(1).over("player_id")
    repeats = pl.lit(False)
    if interim:
        repeats = repeats | (pl.col("status").shift(1).over("player_id") == "provisional")
    if held:
        held_row = pl.col("rating_before").is_not_null() & pl.col("change").is_null()
        repeats = repeats | (held_row.shift(1).over("player_id") & pl.col("adjustment").is_null())
    repeated = pl.when(repeats.fill_null(False)).then(before).otherwise(0)
    return rows.with_columns((pl.col("games") - repeated).alias("games"))


def _whole(col: pl.Series) -> pl.Series:
    """Whole numbers, rounded half away from zero (FIDE's rounding, docs/rules.md)."""
    from arpad.kernels.rounding import round_half_away_array

    values = col.cast(pl.Float64).to_numpy()
    return pl.Series(col.name, round_half_away_array(values).astype(np.int64))
