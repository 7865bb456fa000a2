"""Published ratings found in sources, as dated observations (docs/observations.md).

An Elo tag in a PGN game or a rating on a TRF player line is what the source said
the player's published rating was *at that game*: an observation (player, period,
pool, rating). The store already holds them: the games' ``white_rating`` and
``black_rating`` columns, in the game's pool and period partition. This module turns
them, once per run, into arrays sorted by period, and hands a system that seeds from
published ratings (``RatingSystem.seeds_from_observations``) the ones that fall into
each walked period (``RatingSystem.seed``), so that:

* a period is seeded only from observations at or before it, in its own pool;
* each observation is applied once, before the first walked period at or after it
  (so it is newer than the system's last update of that player), which makes a run
  from a checkpoint equal to a full run;
* within one period a player's first observation counts (the rating in force when
  the period began).

The players table's ``rating`` is an undated starting rating ("as of the first
period") only when a players file gave it (``identity`` observations with a rating);
a rating a PGN or TRF file put there is dated and is not used as an undated seed
(``undated_ratings``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline.store import Store

RATING_COLUMNS = (("white_id", "white_rating"), ("black_id", "black_rating"))


@dataclass(frozen=True)
class Observations:
    """Dated published ratings of one pool: one row per (player, period), sorted by
    period; ``player`` are dense indices into the run's players."""

    player: np.ndarray  # int64
    period: np.ndarray  # int64, ascending
    rating: np.ndarray  # float64

    @classmethod
    def empty(cls) -> Observations:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float64))

    @property
    def size(self) -> int:
        return int(self.player.shape[0])

    def between(self, after: int | None, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """(players, ratings) of the observations in periods (after, upto], the latest one
        per player (a player observed twice in that range keeps the later rating)."""
        lo = 0 if after is None else int(np.searchsorted(self.period, after, side="right"))
        hi = int(np.searchsorted(self.period, upto, side="right"))
        if hi <= lo:
            return np.empty(0, np.int64), np.empty(0, np.float64)
        player = self.player[lo:hi][::-1]
        rating = self.rating[lo:hi][::-1]
        # Reversed, np.unique's first occurrence is the latest observation.
        keep, first = np.unique(player, return_index=True)
        return keep, rating[first]


def _file_observations(path: str, period: int) -> pa.Table | None:
    """(player_id, period, rating) of one game file, in file order; None when the file
    carries no rating (Parquet statistics: no read of the columns)."""
    file = pq.ParquetFile(path)
    names = file.schema_arrow.names
    if not all(c in names for _, c in RATING_COLUMNS):
        return None
    meta = file.metadata
    if meta.num_rows == 0:
        return None
    nulls = 0
    for rg in range(meta.num_row_groups):
        group = meta.row_group(rg)
        for i in range(group.num_columns):
            col = group.column(i)
            if col.path_in_schema in ("white_rating", "black_rating"):
                stats = col.statistics
                if stats is None or not stats.has_null_count:
                    nulls = -1
                    break
                nulls += stats.null_count
        if nulls < 0:
            break
    if nulls == 2 * meta.num_rows:
        return None
    table = file.read(columns=[c for pair in RATING_COLUMNS for c in pair])
    parts = []
    for id_col, rating_col in RATING_COLUMNS:
        part = pa.table(
            {
                "player_id": table.column(id_col).cast(pa.string()),
                "rating": table.column(rating_col).cast(pa.float64()),
                "order": pa.array(np.arange(table.num_rows, dtype=np.int64)),
            }
        )
        parts.append(part.filter(pc.is_valid(part.column("rating"))))
    out = pa.concat_tables(parts)
    return out.append_column("period", pa.array(np.full(out.num_rows, period, np.int64)))


def pool_observations(
    store: Store, pool: str, player_ids, aliases: tuple[pa.Array, pa.Array] | None = None
) -> Observations:
    """The pool's dated observations from its game files, as dense arrays sorted by
    period: per player and period the rating of his first game in the period (file-name
    order, rows in file order, White before Black within a game). Ratings outside
    1..3500 are ignored (the PGN reader's bounds for a plausible Elo)."""
    from arpad.pipeline.engine import _resolve, id_array

    tables = []
    for period in store.periods(pool):
        for rank, f in enumerate(sorted(str(p) for p in store.game_files(pool, period))):
            t = _file_observations(f, period)
            if t is not None and t.num_rows:
                tables.append(t.append_column("file", pa.array(np.full(t.num_rows, rank))))
    if not tables:
        return Observations.empty()
    obs = pa.concat_tables(tables)
    dense = pc.index_in(_resolve(obs.column("player_id"), aliases), value_set=id_array(player_ids))
    rating = obs.column("rating")
    keep = pc.and_(
        pc.is_valid(dense), pc.and_(pc.greater_equal(rating, 1.0), pc.less_equal(rating, 3500.0))
    )
    obs = obs.append_column("dense", dense).filter(keep)
    if obs.num_rows == 0:
        return Observations.empty()
    obs = obs.sort_by([("period", "ascending"), ("file", "ascending"), ("order", "ascending")])
    player = obs.column("dense").to_numpy().astype(np.int64)
    period = obs.column("period").to_numpy().astype(np.int64)
    rating = obs.column("rating").to_numpy().astype(np.float64)
    # First observation per (player, period): stable order of (period, file, row).
    key = period * (int(player.max()) + 1) + player
    _, first = np.unique(key, return_index=True)
    first.sort()
    return Observations(player[first], period[first], rating[first])


def undated_ratings(store: Store, player_ids, rating: np.ndarray) -> np.ndarray:
    """The players table's ratings (dense order of ``player_ids``) that count as undated
    starting ratings: those of players a players file gave a rating; NaN for the others,
    whose rating came from a PGN/TRF file and is dated (``pool_observations``). A store
    without identity observations (written without sources) keeps every rating."""
    from arpad.pipeline import identity

    if not identity.observations_path(store).exists():
        return rating
    obs = identity.read_observations(store)
    given = obs.filter(obs.get_column("rating").is_not_null()).get_column("player_id").unique()
    from_file = pc.is_in(
        pa.array(np.asarray(player_ids, dtype=object), type=pa.string()),
        value_set=pa.array(given.to_list(), type=pa.string()),
    )
    mask = from_file.to_numpy(zero_copy_only=False)
    return np.where(mask, rating, np.nan)


def seed_period(sys_, state, obs: Observations, previous: int | None, period: int, rules):
    """The system's state with the observations in (previous, period] applied
    (``RatingSystem.seed``); unchanged when there are none."""
    players, ratings = obs.between(previous, period)
    if players.size == 0:
        return state
    return sys_.seed(state, players, ratings, rules)
