"""``arpad list --active MONTHS``: a list of the players who played lately
(docs/observations.md "Who is on a list").

A system that rates from nothing (Elo, Glicko, WHR) reports every player it has
rated in every later period, as inactive: in a reconstruction from 1851 to 2022
Anderssen stays on the 1886 list, 7 years after his death. FIDE's own top lists
leave inactive players out; ``--active MONTHS`` does the same for any system: only
players with a rated game in the list's period or the MONTHS - 1 months before it
stay, ranked again among themselves (ties share the best rank).
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline import periods
from arpad.pipeline.store import Store


def last_played(store: Store, system: str, pool: str, period: int) -> dict[str, int]:
    """player_id -> the last period at or before ``period`` in which he had rated games
    (the system's ratings rows with games of their own period: ECF's interim rows and
    publications count the season's games so far, ``lists.last_played``)."""
    from arpad.pipeline import lists

    played = lists.last_played(store, system, pool, period).drop_nulls("played")
    return dict(played.iter_rows())


def active_only(
    frame: pl.DataFrame,
    store: Store,
    system: str,
    pool: str,
    period: int,
    months: int,
    lower_is_better: bool = False,
) -> pl.DataFrame:
    """The list ``frame`` (columns ``player_id``, ``rating``, ``rank``) without players
    whose last rated game is ``months`` or more months before ``period``, re-ranked."""
    if months < 1:
        raise ValueError(f"--active takes a positive number of months, got {months}")
    last = last_played(store, system, pool, period)
    now = periods.month_index(period)
    active = {pid for pid, p in last.items() if now - periods.month_index(p) < months}
    kept = frame.filter(pl.col("player_id").is_in(sorted(active)))
    rank = pl.col("rating").rank("min", descending=not lower_is_better).cast(pl.Int64)
    return kept.with_columns(rank.alias("rank")).sort("rank", "player_id")
