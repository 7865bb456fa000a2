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
  the period began);
* an event's stated ratings are its starting ratings (``event_start_ratings``): a TRF
  states one rating per player for the whole tournament, so a round in the next month
  does not re-seed the player with it;
* a games file ingested with ``--ignore-stated-ratings`` (its batch id's read options,
  ``ignores_stated``) states ratings that only start a player: one that no players file
  lists (a merged id counted as his kept id) and who has no rating when the walk reaches
  the statement (``Observations.conditional``, ``seed_period``): the earliest such
  statement starts him, later ones are ignored, whatever order the files came in
  (docs/observations.md "An officer whose own list is the authority").

A player's undated starting rating ("as of the first period") is the latest undated
rating a players file gave him (``identity`` observations with a rating and no
period); a rating a PGN or TRF file gave is dated and is never an undated seed
(``undated_ratings``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline import periods
from arpad.pipeline.store import Store

RATING_COLUMNS = (("white_id", "white_rating"), ("black_id", "black_rating"))


def observations_path(store: Store):
    """``players/observations.parquet``: what each source said of each player
    (pipeline/identity.py writes it)."""
    return store.players_path.parent / "observations.parquet"


@dataclass(frozen=True)
class Observations:
    """Dated published ratings of one pool: one row per (player, period), sorted by
    period; ``player`` are dense indices into the run's players."""

    player: np.ndarray  # int64
    period: np.ndarray  # int64, ascending
    rating: np.ndarray  # float64
    # The ratings of games files ingested with --ignore-stated-ratings (``ignores_stated``),
    # counted apart: they start an unrated player only (``seed_period``).
    conditional: Observations | None = None

    @classmethod
    def empty(cls) -> Observations:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float64))

    @property
    def size(self) -> int:
        return int(self.player.shape[0])

    def between(self, after: int | None, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """(players, ratings) of the observations in periods (after, upto], the latest one
        per player (a player observed twice in that range keeps the later rating)."""
        return self.between_dated(after, upto)[:2]

    def between_dated(self, after: int | None, upto: int):
        """``between`` and the period of each kept observation: (players, ratings, periods)."""
        lo = 0 if after is None else int(np.searchsorted(self.period, after, side="right"))
        hi = int(np.searchsorted(self.period, upto, side="right"))
        if hi <= lo:
            return np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int64)
        player = self.player[lo:hi][::-1]
        rating = self.rating[lo:hi][::-1]
        # Reversed, np.unique's first occurrence is the latest observation.
        keep, first = np.unique(player, return_index=True)
        return keep, rating[first], self.period[lo:hi][::-1][first]

    def earliest_dated(self, after: int | None, upto: int):
        """``between_dated`` with the earliest observation per player in (after, upto]."""
        lo = 0 if after is None else int(np.searchsorted(self.period, after, side="right"))
        hi = int(np.searchsorted(self.period, upto, side="right"))
        if hi <= lo:
            return np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int64)
        keep, first = np.unique(self.player[lo:hi], return_index=True)
        return keep, self.rating[lo:hi][first], self.period[lo:hi][first]


# -- --ignore-stated-ratings: a games batch's stated ratings start unrated players only ----
def read_options_mark(pool: str | None, ignore_stated_ratings: bool) -> str:
    """The suffix a games batch id carries after the 16 digits of its digest for a file
    read with ``--pool`` or ``--ignore-stated-ratings`` (pipeline/ingest.py
    ``_read_options``): ``o`` and 6 hex digits of the options."""
    text = f"pool={pool or ''};ignore_stated_ratings={int(ignore_stated_ratings)}"
    return "o" + hashlib.sha256(text.encode()).hexdigest()[:6]


def _ignoring_marks() -> frozenset[str]:
    from arpad.pipeline.schemas import POOLS

    return frozenset(read_options_mark(p, True) for p in (None, *POOLS))


_IGNORING = _ignoring_marks()


def ignores_stated(batch: str | None) -> bool:
    """Whether the games batch ``batch`` was ingested with ``--ignore-stated-ratings``:
    its read options (``read_options_mark``, right after the digest's 16 digits) say so.
    Its stated ratings are stored as the file gives them (before round 15 they were
    stored null where the store rated the player: those nulls stay nulls)."""
    return bool(batch) and batch[16:23] in _IGNORING


def file_batch(path) -> str:
    """The batch id of a stored game file (``part-<batch>.parquet``)."""
    return os.path.basename(str(path)).removeprefix("part-").removesuffix(".parquet")


def listed_ids(store: Store) -> pa.Array:
    """The ids a players file lists (a row of his, rated or not, in any pool: identity
    observations of a players source, docs/observations.md): the register is the
    authority for them, so a rating an ``--ignore-stated-ratings`` file states never
    starts them. A store whose observations name no sources: the players table's rated
    players. Ids as stored (a caller resolves merges)."""
    path = observations_path(store)
    present: set[str] = set()
    if path.exists():
        with pq.ParquetFile(path) as file:
            present = set(file.schema_arrow.names)
    if "source" in present:
        obs = pq.read_table(path, columns=["player_id", "source"])
        manifest = store.read_manifest()
        mine = pc.equal(manifest.column("kind"), "players")
        sources = manifest.filter(pc.fill_null(mine, False)).column("source")
        given = pc.is_in(obs.column("source"), value_set=sources.combine_chunks())
        ids = obs.column("player_id").filter(pc.fill_null(given, False))
    else:
        players = store.read_players()
        ids = players.column("player_id").filter(pc.is_valid(players.column("rating")))
    return pc.unique(ids.combine_chunks().cast(pa.string()))


def _has_rating(state) -> np.ndarray:
    """Per player of a seeding system's state, whether he has a rating now (FIDE's
    ``is_rated``; else a finite rating)."""
    s = state.players
    if "is_rated" in s:
        return np.asarray(s["is_rated"], dtype=np.bool_)
    return np.isfinite(np.asarray(s["rating"], dtype=np.float64))


def _file_observations(
    path: str, period: int, events: bool = False, days: bool = False
) -> pa.Table | None:
    """(player_id, period, rating) of one game file, in file order; None when the file
    carries no rating (Parquet statistics: no read of the columns). With ``events``,
    also each row's ``event`` and ``file`` keys (``event_keys``); with ``days``, its
    game's ``day`` (days since 1970; a game without a date: after every dated one)."""
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
            if col.path_in_schema in {c for _, c in RATING_COLUMNS}:
                stats = col.statistics
                if stats is None or not stats.has_null_count:
                    nulls = -1
                    break
                nulls += stats.null_count
        if nulls < 0:
            break
    if nulls == 2 * meta.num_rows:
        return None
    event_cols = [c for c in EVENT_COLUMNS if c in names] if events else []
    day_cols = ["date"] if days and "date" in names else []
    table = file.read(columns=[c for pair in RATING_COLUMNS for c in pair] + event_cols + day_cols)
    keys = event_keys(table) if events else None
    day = None
    if days:
        undated = np.iinfo(np.int64).max
        day = (
            pc.fill_null(table.column("date").cast(pa.int32()).cast(pa.int64()), undated)
            if day_cols
            else pa.array(np.full(table.num_rows, undated, np.int64))
        )
    parts = []
    for id_col, rating_col in RATING_COLUMNS:
        columns = {
            "player_id": table.column(id_col).cast(pa.string()),
            "rating": table.column(rating_col).cast(pa.float64()),
            "order": pa.array(np.arange(table.num_rows, dtype=np.int64)),
        }
        if keys is not None:
            columns["event"], columns["source_file"] = keys
        if day is not None:
            columns["day"] = day
        part = pa.table(columns)
        parts.append(part.filter(pc.is_valid(part.column("rating"))))
    out = pa.concat_tables(parts)
    return out.append_column("period", pa.array(np.full(out.num_rows, period, np.int64)))


# -- an event's stated ratings are its starting ratings ---------------------------------
EVENT_COLUMNS = ("game_id", "source", "event_id")
# A TRF game id: ``trf:<012 name>|<start date>:r<round>:<low>-<high>`` (pipeline/trf.py).
_TRF_ROUND = r":r[0-9]+:[0-9]+-[0-9]+$"


def event_keys(games: pa.Table) -> tuple[pa.Array, pa.Array]:
    """(event, file) of each game: the event whose stated ratings it repeats, and the
    file it came from (``source`` without its ``:line``). The event of a TRF game is its
    tournament (012 name and start date, from the game id: the TRF sent after round 4
    and the final TRF are one event); of any other game, its file and ``event_id``
    (null without an event id: such a game's ratings are each its own statement)."""
    n = games.num_rows
    names = games.column_names

    def column(name: str) -> pa.Array:
        if name not in names:
            return pa.nulls(n, pa.string())
        return games.column(name).combine_chunks().cast(pa.string())

    game_id, source, event_id = (column(c) for c in EVENT_COLUMNS)
    source_file = pc.replace_substring_regex(source, pattern=r":[^:]*$", replacement="")
    scope = pc.replace_substring_regex(game_id, pattern=_TRF_ROUND, replacement="")
    is_trf = pc.fill_null(
        pc.and_(pc.starts_with(game_id, "trf:"), pc.not_equal(scope, game_id)), False
    )
    # "\x1f" (the unit separator) joins the two: no file or event name is expected to hold it.
    in_file = pc.binary_join_element_wise(source_file, event_id, "\x1f")
    return pc.if_else(is_trf, scope, in_file), source_file


def _codes(values) -> np.ndarray:
    """Dense int64 codes of a string array; -1 for null."""
    values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    # skip_nulls: a null would match the null of the value set (code of "no event")
    codes = pc.index_in(values, value_set=pc.unique(values), skip_nulls=True)
    return pc.fill_null(codes, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _month_indices(period: np.ndarray) -> np.ndarray:
    """``periods.month_index`` of an array of periods."""
    calendar = (period // 100 >= periods.FIRST_MONTH // 100) & (period // 100 <= 2999)
    calendar &= (period % 100 >= 1) & (period % 100 <= 12)
    return np.where(calendar, (period // 100) * 12 + period % 100 - 1, period)


def event_start_ratings(
    event: np.ndarray, in_file: np.ndarray, player: np.ndarray, period: np.ndarray, rating
) -> tuple[np.ndarray, np.ndarray]:
    """(keep, period) of stated ratings given in counting order (period, file, row):
    an event's stated ratings are the ratings the players started it with
    (docs/observations.md "Events across a month boundary").

    ``event`` and ``in_file`` are int codes (-1: the rating belongs to no event) of the
    game's event and of (event, file) (``event_keys``). Per player and event:

    * a stated rating equal to his previous one in the event is not a new observation
      (dropped): a TRF's 001 rating is stated again on every round's game, and a round
      in the next month would re-seed the player with the tournament's starting rating,
      erasing the month before;
    * his first stated rating in a file is dated at the first period of the file's games
      of the event, counting months without a gap (the tournament's first month: a
      player whose first round is on 1 November started the tournament of 31 October
      with it). Only the file's own periods: ingesting or correcting the file marks
      that period stale, so a run from a checkpoint still equals a full run;
    * a different later rating is the source's new statement and stays at its period.
    """
    period = np.array(period, dtype=np.int64, copy=True)
    keep = np.ones(period.shape[0], dtype=np.bool_)
    rows = np.flatnonzero(event >= 0)
    if rows.size == 0:
        return keep, period
    ev, fi, who, per = event[rows], in_file[rows], player[rows], period[rows]
    stated = np.asarray(rating, dtype=np.float64)[rows]

    # Runs of consecutive months of each (event, file): their first period. One int64
    # key per pair and stable argsorts (np.unique(axis=0) and lexsort were ~3x slower).
    months = _month_indices(per)
    span = int(months.max()) + 1
    pairs, inverse = np.unique(fi * span + months, return_inverse=True)
    pair_file, pair_month = pairs // span, pairs % span
    new_run = np.ones(pairs.shape[0], dtype=np.bool_)
    new_run[1:] = (pair_file[1:] != pair_file[:-1]) | (pair_month[1:] - pair_month[:-1] > 1)
    first = np.maximum.accumulate(np.where(new_run, np.arange(pairs.shape[0]), 0))
    inverse = inverse.reshape(-1)
    pair_period = np.empty(pairs.shape[0], dtype=np.int64)
    pair_period[inverse] = per
    run_start = pair_period[first][inverse]
    # Per (event, player) in counting order: drop repeats of the previous rating.
    players = int(who.max()) + 1
    order = np.argsort(ev * players + who, kind="stable")
    same = np.zeros(rows.size, dtype=np.bool_)
    same[1:] = (ev[order][1:] == ev[order][:-1]) & (who[order][1:] == who[order][:-1])
    repeat = np.zeros(rows.size, dtype=np.bool_)
    repeat[order[1:]] = same[1:] & (stated[order][1:] == stated[order][:-1])
    # Per (event, file, player): the first one moves to its run's first period.
    order = np.argsort(fi * players + who, kind="stable")
    starts = np.ones(rows.size, dtype=np.bool_)
    starts[1:] = (fi[order][1:] != fi[order][:-1]) | (who[order][1:] != who[order][:-1])
    opening = np.zeros(rows.size, dtype=np.bool_)
    opening[order] = starts
    keep[rows] = ~repeat
    period[rows] = np.where(opening & ~repeat, run_start, per)
    return keep, period


def has_observations(store: Store) -> bool:
    """True when any game file of the store carries a rating (Parquet statistics, no
    column read when they say none), or a players file gave a dated rating."""
    from arpad.pipeline import identity

    for path in store.game_files():
        if _file_observations(str(path), 0) is not None:
            return True
    if observations_path(store).exists():
        obs = identity.read_observations(store)
        return bool(
            (obs.get_column("period").is_not_null() & obs.get_column("rating").is_not_null()).any()
        )
    return False


def has_pool_seeds(store: Store, pool: str, table_rated) -> bool:
    """True when a published rating starts at least one player of ``pool``, as a run of
    a seeding system picks them: an undated players-file rating of ``pool`` or of every
    pool (a row without a pool: ``undated_ratings``; a store without identity ratings:
    ``table_rated()``, the players table's), a dated players-file row of ``pool``
    (``file_observations``), or a rating in one of the pool's game files
    (``pool_observations``). A standard rating (SRtng, a ``pool=standard`` row) is no
    rapid seed (docs/observations.md "Undated ratings and pools"). Read with pyarrow
    alone: three columns of the observations file, the game files' Parquet statistics
    (no polars import on the ``rate`` path, docs/runners.md "Start-up")."""
    path = observations_path(store)
    obs = None
    if path.exists():
        with pq.ParquetFile(path) as file:
            present = set(file.schema_arrow.names)
            if "rating" in present:  # written before ratings were kept per source: none
                obs = file.read(columns=[c for c in ("rating", "period", "pool") if c in present])
    if obs is None:
        if table_rated():
            return True
    elif obs.num_rows:
        n = obs.num_rows
        names = obs.column_names
        period = obs.column("period") if "period" in names else pa.nulls(n, pa.int64())
        given = obs.column("pool") if "pool" in names else pa.nulls(n, pa.string())
        mine = pc.equal(given, pool)
        undated = pc.and_(pc.is_null(period), pc.fill_null(mine, True))
        dated = pc.and_(pc.is_valid(period), pc.fill_null(mine, False))
        seeds = pc.and_(pc.is_valid(obs.column("rating")), pc.or_(undated, dated))
        if pc.any(seeds).as_py():
            return True
    return any(_file_observations(str(p), 0) is not None for p in store.game_files(pool))


def pool_observations(
    store: Store, pool: str, player_ids, aliases: tuple[pa.Array, pa.Array] | None = None
) -> Observations:
    """The pool's dated observations from its game files, as dense arrays sorted by
    period: per player and period the rating of his first game in the period (file-name
    order, rows in file order, White before Black within a game). Ratings outside
    1..3500 are ignored (the PGN reader's bounds for a plausible Elo)."""
    tables = []
    marked = []  # of files ingested with --ignore-stated-ratings: counted apart
    # Dated players-file rows first: within a period they come before the games' tags.
    given = file_observations(store, pool)
    if given is not None:
        tables.append(_players_part(given))
    # Files ranked in (period, name) order: an observation moved to its event's first
    # period (event_start_ratings) keeps its file's place after that period's files.
    files = [
        (period, str(p)) for period in store.periods(pool) for p in store.game_files(pool, period)
    ]
    for rank, (period, f) in enumerate(sorted(files)):
        ignoring = ignores_stated(file_batch(f))
        t = _file_observations(f, period, events=True, days=ignoring)
        if t is not None and t.num_rows:
            t = t.append_column("file", pa.array(np.full(t.num_rows, rank)))
            (marked if ignoring else tables).append(t)
    out = _counted(tables, player_ids, aliases)
    if not marked:
        return out
    return Observations(
        out.player, out.period, out.rating, _unlisted(store, marked, player_ids, aliases)
    )


def _unlisted(store: Store, marked: list[pa.Table], player_ids, aliases) -> Observations:
    """``_counted`` of the ratings of files ingested with --ignore-stated-ratings (within
    a period the earliest game's first: the earliest statement), less those of the
    players a players file lists (``listed_ids``; a merged id counts as his
    kept id, both ways: the ids are resolved first)."""
    from arpad.pipeline.engine import id_array
    from arpad.pipeline.keys import resolve_aliases

    obs = _counted(marked, player_ids, aliases, by_day=True)
    if obs.size == 0:
        return obs
    listed = resolve_aliases(listed_ids(store), aliases)
    dense = pc.index_in(listed, value_set=id_array(player_ids))
    dense = dense.filter(pc.is_valid(dense)).to_numpy(zero_copy_only=False).astype(np.int64)
    keep = ~np.isin(obs.player, dense)
    return Observations(obs.player[keep], obs.period[keep], obs.rating[keep])


def given_observations(rows: pa.Table | None, pool: str, player_ids) -> Observations:
    """The dated observations of ``pool`` in a players input given without a store
    (``arpad.rate``'s ``players=`` with a ``date`` column: ``player_id``, ``rating``,
    ``period``, ``pool``, and ``source``/``line`` where known), counted exactly as
    ``pool_observations`` counts a store's dated players-file rows (``dated_rows``, then
    the same per-player-and-period first rating), so that ``arpad.rate`` equals
    ``Store.ingest`` + ``Store.rate`` of the same file (docs/api.md)."""
    if rows is None or "period" not in rows.column_names:
        return Observations.empty()
    import polars as pl

    given = dated_rows(_input_observations(pl.from_arrow(rows)), pool)
    if given is None:
        return Observations.empty()
    return _counted([_players_part(given)], player_ids, None)


def _players_part(given: pa.Table) -> pa.Table:
    """Dated players-file rows (``dated_rows``) in ``pool_observations``' columns: in
    their order, before every games file (``file`` -1), of no event."""
    n = given.num_rows
    return (
        given.append_column("order", pa.array(np.arange(n, dtype=np.int64)))
        .append_column("event", pa.nulls(n, pa.string()))
        .append_column("source_file", pa.nulls(n, pa.string()))
        .append_column("file", pa.array(np.full(n, -1)))
        .select(["player_id", "rating", "order", "event", "source_file", "period", "file"])
    )


def _counted(tables: list[pa.Table], player_ids, aliases, by_day: bool = False) -> Observations:
    """``pool_observations``' rows as dense arrays: ids looked up in ``player_ids``,
    ratings outside 1..3500 dropped, an event's stated ratings its starting ratings, the
    first observation per player and period (``by_day``: in the order of the games'
    ``day`` within a period, then of files and rows)."""
    from arpad.pipeline.engine import id_array
    from arpad.pipeline.keys import resolve_aliases

    if not tables:
        return Observations.empty()
    obs = pa.concat_tables(tables)
    dense = pc.index_in(
        resolve_aliases(obs.column("player_id"), aliases), value_set=id_array(player_ids)
    )
    rating = obs.column("rating")
    keep = pc.and_(
        pc.is_valid(dense), pc.and_(pc.greater_equal(rating, 1.0), pc.less_equal(rating, 3500.0))
    )
    obs = obs.append_column("dense", dense).filter(keep)
    if obs.num_rows == 0:
        return Observations.empty()
    by = ["period", *(["day"] if by_day else []), "file", "order"]
    obs = obs.sort_by([(c, "ascending") for c in by])
    player = obs.column("dense").to_numpy().astype(np.int64)
    period = obs.column("period").to_numpy().astype(np.int64)
    rating = obs.column("rating").to_numpy().astype(np.float64)
    file = obs.column("file").to_numpy().astype(np.int64)
    row = obs.column("order").to_numpy().astype(np.int64)
    event = obs.column("event")
    in_file = pc.binary_join_element_wise(event, obs.column("source_file"), "\x1f")
    kept, period = event_start_ratings(_codes(event), _codes(in_file), player, period, rating)
    player, period, rating, file, row = (a[kept] for a in (player, period, rating, file, row))
    if by_day:
        day = obs.column("day").to_numpy().astype(np.int64)[kept]
        counting = np.lexsort((row, file, day, period))
    else:
        counting = np.lexsort((row, file, period))
    player, period, rating = player[counting], period[counting], rating[counting]
    if player.size == 0:
        return Observations.empty()
    # First observation per (player, period): stable order of (period, file, row).
    key = period * (int(player.max()) + 1) + player
    _, first = np.unique(key, return_index=True)
    first.sort()
    return Observations(player[first], period[first], rating[first])


def undated_ratings(
    store: Store, player_ids, rating: np.ndarray, index=None, pool: str | None = None
) -> np.ndarray:
    """The undated starting ratings (dense order of ``player_ids``): per player, the
    rating of the latest undated players-file row that gives one (manifest order of the
    sources, then the line); NaN for the others, whose ratings came from PGN/TRF files
    or dated rows (``pool_observations``). ``rating`` (the players table's) is returned
    as it is by a store without identity observations (written without sources), and
    used for the players rated by an observations file without sources.

    ``pool``: only the rows of that pool count, and the rows without one (a players
    file without a ``pool`` column, or written before undated rows kept it), which
    seed every pool (docs/observations.md "Undated ratings and pools"); None: all.

    Read with pyarrow alone (six columns of the observations file, and the manifest;
    no polars import on the ``rate`` path, docs/runners.md "Start-up"). The
    observations' ids are looked
    up in ``index``, a ``keys.StringIndex`` of ``player_ids`` (the engine's, shared with
    the player keys; built here when None): ``pyarrow.compute.unique`` and ``is_in`` of
    200k ids took ~0.15 s of every run's start (docs/benchmarks.md)."""
    path = observations_path(store)
    if not path.exists():
        return rating
    with pq.ParquetFile(path) as file:
        present = set(file.schema_arrow.names)
        if "rating" not in present:  # written before ratings were kept per source
            return rating
        wanted = ("player_id", "source", "line", "rating", "period", "pool")
        obs = file.read(columns=[c for c in wanted if c in present])
    return latest_undated(
        obs, lambda: store.read_manifest().column("source"), player_ids, rating, index, pool
    )


def latest_undated(
    obs: pa.Table, sources, player_ids, rating: np.ndarray, index=None, pool: str | None = None
) -> np.ndarray:
    """``undated_ratings`` of identity observations ``obs`` (``player_id`` and
    ``rating``; ``source``, ``line``, ``period`` and ``pool`` where known): per player of
    ``player_ids``, the rating of the latest undated row of ``pool`` or of no pool, in the
    order of ``sources()`` (the players files in ingest order: the store's manifest, read
    only when ``obs`` names sources), then the line. ``arpad.rate`` picks a players
    frame's starting ratings of its pool with it, as a store run does (docs/api.md)."""
    undated = pc.is_valid(obs.column("rating"))
    if "period" in obs.column_names:  # files written before dated players files lack it
        undated = pc.and_(undated, pc.is_null(obs.column("period")))
    if pool is not None and "pool" in obs.column_names:
        # A row with a pool seeds that pool only; a null pool (no pool column) every pool.
        mine = pc.fill_null(pc.equal(obs.column("pool"), pool), True)
        undated = pc.and_(undated, mine)
    obs = obs.filter(undated)
    given = obs.column("player_id")
    if index is None:
        from arpad.pipeline.keys import StringIndex

        ids = player_ids if isinstance(player_ids, pa.Array) else pa.array(player_ids, pa.string())
        index = StringIndex(ids)
    found = index.index_in(given)  # -1: not a player of the run (or a null id)
    if "source" not in obs.column_names:
        # No sources, so no ingest order: the players table's value of the players a
        # players file rated (an observations file ingest did not write).
        mask = np.zeros(len(rating), dtype=np.bool_)
        mask[found[found >= 0]] = True
        return np.where(mask, rating, np.nan)
    # The rating of the players file ingested last (manifest order: a corrected file
    # is the latest), its last row; never the players table's value, which other
    # sources (a dated players file) may have written (docs/observations.md).
    order = sources()
    position = pc.fill_null(pc.index_in(obs.column("source"), value_set=order), -1)
    position = position.to_numpy(zero_copy_only=False)
    line = np.zeros(obs.num_rows, dtype=np.int64)
    if "line" in obs.column_names:
        line = pc.fill_null(obs.column("line"), -1).to_numpy(zero_copy_only=False)
    value = obs.column("rating").cast(pa.float64()).to_numpy(zero_copy_only=False)
    ok = found >= 0
    latest = np.lexsort((line[ok], position[ok]))[::-1]  # latest first
    who, first = np.unique(found[ok][latest], return_index=True)
    out = np.full(len(rating), np.nan, dtype=np.float64)
    out[who] = value[ok][latest][first]
    return out


def seed_period(sys_, state, obs: Observations, previous: int | None, period: int, rules):
    """The system's state with the observations in (previous, period] applied
    (``RatingSystem.seed_observed``: with the period each was stated for); unchanged
    when there are none. Then ``obs.conditional`` (the ratings of files ingested with
    --ignore-stated-ratings, of players no players file lists): the earliest in the
    range starts a player who has no rating now and whom no other rating seeded here;
    the others are ignored (docs/observations.md "An officer whose own list is the
    authority")."""
    players, ratings, observed = obs.between_dated(previous, period)
    if players.size:
        state = sys_.seed_observed(state, players, ratings, observed, rules)
    extra = obs.conditional
    if extra is None or extra.size == 0:
        return state
    who, value, when = extra.earliest_dated(previous, period)
    if who.size == 0:
        return state
    free = ~_has_rating(state)[who] & ~np.isin(who, players)
    if not free.any():
        return state
    return sys_.seed_observed(state, who[free], value[free], when[free], rules)


# -- players files with a date column --------------------------------------------------
def is_dated(raw) -> bool:
    """A players file with a ``date`` column holding at least one value: each row with
    a date is an observation of the player's rating at that date."""
    frame = raw.frame
    if raw.kind != "players" or "date" not in frame.columns:
        return False
    return bool(frame.get_column("date").str.strip_chars().replace("", None).is_not_null().any())


def has_pool_column(raw) -> bool:
    """A players file with a ``pool`` column: each row's rating is of its pool only
    (an empty cell: standard), undated rows too (docs/observations.md)."""
    return raw.kind == "players" and "pool" in raw.frame.columns


def dated_players(raw, validated, source: str, batch: str):
    """(validated, dated, players): a dated players file's (or one with a ``pool``
    column) accepted rows with bad dates, pools or pool ratings moved to the quarantine,
    and per accepted row with a date its ``source`` (the ``file:line`` key of the players
    row), ``period`` and ``pool`` (``pool`` column, default standard). Rows without a date
    stay undated (as of the first period); a file with a ``pool`` column gives them too,
    with a null period and their pool, which they seed alone (``undated_ratings``).

    A row's ratings of further pools (``readers.POOL_RATINGS`` left beside its rating:
    FIDE's RRtng and BRtng beside SRtng, ``readers.pool_ratings``) are each a row of
    ``players`` (the accepted rows and these: for the players table and the identity
    observations) and of ``dated``, keyed ``file:pool:line``; a value of 0 or none gives
    no rating in that pool, another that is no rating quarantines the row."""
    import polars as pl

    from arpad.pipeline import schemas
    from arpad.pipeline.readers import POOL_RATINGS
    from arpad.pipeline.reasons import Reason
    from arpad.pipeline.validate import (
        PLAYER_NUMERIC,
        POOL_WORDS,
        Validated,
        capped_raw,
        player_date_detail,
        player_date_period,
    )

    columns = raw.frame.columns
    others = [c for c in POOL_RATINGS if c in columns]  # beside the row's own rating
    low, high = PLAYER_NUMERIC["rating"]
    frame = raw.frame.select(
        "_line",
        "_raw",
        (pl.col("date") if "date" in columns else pl.lit(None, pl.String))
        .str.strip_chars()
        .replace("", None)
        .alias("date"),
        (pl.col("pool") if "pool" in columns else pl.lit(None, pl.String))
        .str.strip_chars()
        .str.to_lowercase()
        .replace("", None)
        # classical, bullet, lightning: as a games file reads them (validate.POOL_WORDS)
        .replace({k: v for k, v in POOL_WORDS.items() if k})
        .alias("pool"),
        *[pl.col(c).str.strip_chars().replace("", None).alias(c) for c in others],
    )
    frame = frame.with_columns(
        player_date_period(pl.col("date")).alias("period"),
        pl.format("{}:{}", pl.lit(source), pl.col("_line")).alias("source"),
        *[pl.col(c).cast(pl.Float64, strict=False).alias(f"_{c}") for c in others],
    )
    accepted = pl.from_arrow(validated.accepted.select(["source", "player_id"]))
    rows = accepted.join(frame, on="source", how="left")
    bad_date = pl.col("date").is_not_null() & pl.col("period").is_null()
    bad_pool = pl.col("pool").is_not_null() & ~pl.col("pool").is_in(schemas.POOLS)
    bad_rating = {
        c: pl.col(c).is_not_null() & ~pl.col(f"_{c}").is_between(low, high).fill_null(False)
        for c in others
    }
    bad_row = pl.any_horizontal(bad_date, bad_pool, *bad_rating.values())
    bad = rows.filter(bad_row)
    if bad.height:
        detail = pl.when(bad_date).then(player_date_detail(pl.col("date")))
        for c, wrong in bad_rating.items():
            shown = pl.col(c).str.slice(0, 40)
            detail = detail.when(wrong).then(
                pl.format(f"{c} {{}} is not a number in {low:g}..{high:g}", shown)
            )
        detail = detail.otherwise(
            pl.format("pool {} is not one of " + ", ".join(schemas.POOLS), pl.col("pool"))
        )
        quarantine = bad.select(
            pl.lit(source).alias("source"),
            pl.col("_line").alias("line"),
            pl.lit(Reason.BAD_PLAYER_FIELD.value).alias("reason"),
            detail.alias("detail"),
            capped_raw(pl.col("_raw")).alias("raw"),
            pl.lit(batch).alias("ingest_batch"),
        ).to_arrow()
        keep = pa.array(~rows.select(bad_row.alias("b")).get_column("b").to_numpy())
        validated = Validated(
            validated.accepted.filter(keep),
            pa.concat_tables(
                [validated.quarantine, schemas.conform(quarantine, schemas.QUARANTINE)]
            ).sort_by("line"),
            validated.rows_read,
        )
        rows = rows.filter(~bad_row)
    # A further pool's rating: its own row (blitz before rapid, so that the players
    # table's rating, the standard row's, is else the rapid one: ingest.POOL_FIELDS).
    extra = [
        rows.filter(pl.col(f"_{c}").is_not_null() & (pl.col(f"_{c}") != 0)).select(
            "player_id",
            pl.col(f"_{c}").alias("rating"),
            pl.format("{}:{}:{}", pl.lit(source), pl.lit(POOL_RATINGS[c]), "_line").alias("source"),
            pl.col("period").cast(pl.Int32),
            pl.lit(POOL_RATINGS[c]).alias("pool"),
        )
        for c in reversed(others)
    ]
    if "pool" not in columns:  # undated rows without a pool seed every pool
        rows = rows.filter(pl.col("period").is_not_null())
    dated = rows.select(
        "source", pl.col("period").cast(pl.Int32), pl.col("pool").fill_null("standard")
    )
    players = validated.accepted
    if extra:
        more = pl.concat(extra)
        dated = pl.concat([more.select(dated.columns), dated])
        rated = more.select("player_id", "rating", "source").to_arrow()
        players = pa.concat_tables([schemas.conform(rated, schemas.PLAYERS), players])
    return validated, dated, players


def file_observations(store: Store, pool: str) -> pa.Table | None:
    """(player_id, period, rating) of the dated players-file rows of ``pool``
    (``players/observations.parquet`` rows with a period), or None. Read with pyarrow
    alone (no polars import on the ``rate`` path, docs/runners.md "Start-up")."""
    path = observations_path(store)
    if not path.exists():
        return None
    with pq.ParquetFile(path) as file:
        present = set(file.schema_arrow.names)
        if not {"period", "pool", "rating"} <= present:  # written before dated players files
            return None
        wanted = ("player_id", "source", "line", "rating", "period", "pool")
        obs = file.read(columns=[c for c in wanted if c in present])
    return dated_rows(obs, pool)


def dated_rows(obs: pa.Table, pool: str) -> pa.Table | None:
    """(player_id, period, rating) of the identity observations ``obs`` that are dated
    ratings of ``pool`` (``player_id``, ``rating``, ``period``, ``pool``; ``source`` and
    ``line`` where known), in counting order: period, then source and line; None when
    there are none. ``file_observations`` of a store, ``given_observations`` of a players
    frame given to ``arpad.rate``."""
    present = set(obs.column_names)
    keep = pc.and_(
        pc.and_(pc.is_valid(obs.column("period")), pc.is_valid(obs.column("rating"))),
        pc.fill_null(pc.equal(obs.column("pool"), pool), False),
    )
    obs = obs.filter(keep)
    if obs.num_rows == 0:
        return None
    # Source order, a missing source or line first (as polars sorted them before).
    order = [("period", "ascending")]
    for name, missing in (("source", ""), ("line", -1)):
        if name in present:
            obs = obs.append_column(f"_{name}", pc.fill_null(obs.column(name), missing))
            order.append((f"_{name}", "ascending"))
    obs = obs.sort_by(order)
    return pa.table(
        {
            "player_id": obs.column("player_id").cast(pa.string()),
            "period": obs.column("period").cast(pa.int64()),
            "rating": obs.column("rating").cast(pa.float64()),
        }
    )


def pool_players(rows: pa.Table | None, pool: str) -> pa.Table | None:
    """The players of a run of ``pool``, one row per player, from a players input
    whose rows have a pool (a ``pool`` column, or FIDE's SRtng/RRtng/BRtng:
    ``_validated`` split them as ingest does, ``observations.dated_players``): the facts
    merged as ingest merges them into the players table (``ingest._merge_players``: of
    ``POOL_FIELDS`` the standard row's, a rapid or blitz row's only where it has none;
    the other fields the last given), and the rating the player's own of ``pool``, picked
    as a store run picks it (``observations.latest_undated``; none: unrated, the standard
    rating never seeds rapid or blitz; docs/observations.md "Undated ratings and pools").
    So the result is ``Store.ingest`` + ``Store.rate``'s (docs/api.md round 10); the tournament tools' ``--players`` too. Rows
    without a pool are returned as they are."""
    if rows is None or "pool" not in rows.column_names:
        return rows
    import polars as pl

    from arpad.pipeline import schemas
    from arpad.pipeline.ingest import POOL_FIELDS

    frame = pl.from_arrow(rows)
    other = pl.col("pool").is_not_null() & (pl.col("pool") != schemas.POOLS[0])
    merged = frame.group_by("player_id", maintain_order=True).agg(
        pl.coalesce(
            pl.col(c).filter(~other).drop_nulls().last(),
            pl.col(c).filter(other).drop_nulls().last(),
        )
        if c in POOL_FIELDS
        else pl.col(c).drop_nulls().last()
        for c in frame.columns
        if c not in ("player_id", "pool", "period")
    )
    seeds = _input_observations(frame)  # a dated row is no undated seed (as in a store)
    ids = merged.get_column("player_id").to_arrow()
    given = merged.get_column("rating").cast(pl.Float64).fill_null(np.nan).to_numpy()
    rating = latest_undated(seeds, lambda: pa.array(["players"]), ids, given, None, pool)
    merged = merged.with_columns(pl.Series("rating", rating).fill_nan(None))
    return schemas.conform(merged.to_arrow(), schemas.PLAYERS)


def _input_observations(frame) -> pa.Table:
    """A players input's rows (``arpad.rate``'s ``players=``, split by pool and dated by
    ``dated_players``) as the identity observations a store keeps of one players file
    (``identity.record_observations``): ``player_id``, ``source`` (one input), ``line``,
    ``rating``, ``pool`` and ``period`` (null: undated; no column: every row undated)."""
    import polars as pl

    return frame.select(
        "player_id",
        pl.lit("players").alias("source"),  # one input: its rows in line order
        pl.col("source").str.extract(r":(\d+)$", 1).cast(pl.Int64).alias("line"),
        "rating",
        "pool",
        *(["period"] if "period" in frame.columns else []),
    ).to_arrow()
