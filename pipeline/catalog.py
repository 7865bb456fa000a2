"""The DuckDB catalog: views over the store's Parquet files, for analysts and for the engine.

Views use paths relative to the store root, so a store can be moved or copied;
a connection resolves them with ``file_search_path`` set to the store root
(``connect_readonly`` does this). The catalog file is rebuilt under a
temporary name and renamed into place, so readers never see a half-built one.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from arpad.pipeline import periods, schemas
from arpad.pipeline.errors import disk_full
from arpad.pipeline.store import HISTORY, MANIFEST, Store, atomic_write_text, before_change

if TYPE_CHECKING:  # DuckDB is imported where a connection is made (not by a run that
    import duckdb  # finds its catalog current, docs/store.md "Catalog")

# The merge files of docs/identity.md (pipeline/identity.py ALIAS_COLUMNS, LOG_COLUMNS).
ALIASES = pa.schema([(c, pa.string()) for c in ("duplicate", "keep", "merged_at", "reason")])
MERGES = pa.schema(
    [(c, pa.string()) for c in ("at", "action", "keep", "duplicate", "reason", "stale_from")]
)

# Base views: name -> (glob relative to the store root, hive partitioning, schema when empty).
# The partition levels are spelled out (``pool=*``, not ``*``): a writer's journal keeps
# a partition it removes as a hidden ``.period=N.<token>.kept.tmp`` folder until the
# command ends (pipeline/store.py), and DuckDB's ``*`` matches hidden names, so a catalog
# refreshed in that command would read the removed partition (a "Hive partition mismatch").
BASE_VIEWS = {
    "games": ("games/pool=*/period=*/*.parquet", True, schemas.GAMES),
    "players": ("players/players.parquet", False, schemas.PLAYERS),
    "ratings": ("ratings/system=*/pool=*/period=*/*.parquet", True, schemas.RATINGS),
    "quarantine": ("quarantine/batch=*/*.parquet", False, schemas.QUARANTINE),
    "manifest": ("manifest/manifest.parquet", False, MANIFEST),
    "history": ("manifest/history.parquet", False, HISTORY),
    "aliases": ("players/aliases.parquet", False, ALIASES),
    "merges": ("players/merges.parquet", False, MERGES),
}

# Ratings rows of ids that are players of their own: a merged duplicate
# (``aliases``, docs/identity.md) counts as its keep and has no list or history row.
_PLAYER_RATINGS = "(SELECT * FROM ratings WHERE player_id NOT IN (SELECT duplicate FROM aliases))"


def _lower_is_better() -> tuple[str, ...]:
    """Systems whose numbers are lower-is-better (rank 1 = smallest number): those
    declaring ``lower_is_better = True`` (Ingo, docs/legacy-systems.md), named without
    importing every system (``systems.lower_is_better_names``)."""
    from arpad.pipeline.systems import lower_is_better_names

    return lower_is_better_names()


# Derived views, in dependency order; each is plain SQL over the base views.
DERIVED_VIEWS: dict[str, str] = {
    # Ranked and flagged as ``arpad list`` ranks and flags (pipeline/lists.py,
    # docs/observations.md "Who is on a list"): ``inactive`` (flag ``i``, no rank) is the
    # status ``inactive`` of a system whose status is the list's inactivity (FIDE:
    # ``list_activity``); for the others, a row ``inactive`` (no game this period) whose
    # player's last rated game up to the row's period is ``INACTIVE_MONTHS`` or more
    # months before it, or who has none. ``months``: each player's months with rated
    # games, an aggregate joined on the player (a window over all of a player's rows
    # sorted every row of the system: several times slower); ECF's in their own month (``cycle``: a
    # row's games less the previous row's when that one was interim, lists.own_games;
    # the rows without games are left out, which changes no count: an interim row
    # follows the season's earlier ones, whose counts are no larger). The view reads
    # ``ratings`` twice (each read binds every ratings file's footer): every period's
    # rows with games, and the period's listed rows. ECF's interim lists' carried
    # players (lists.with_published_grades) are not in the view: two more reads of every
    # footer for every query (docs/lists.md).
    "rating_list": """
        WITH listed AS NOT MATERIALIZED (
            SELECT system, pool, period, player_id, rating_after, games, status
            FROM {player_ratings}
            WHERE {listed_status} AND rating_after IS NOT NULL
        ),
        months AS NOT MATERIALIZED (
            SELECT system, pool, player_id,
                   CASE WHEN system NOT IN ({cumulative_interim}) THEN months
                        ELSE list_filter(
                            list_transform(cycle, lambda r, i: CASE
                                WHEN r.games - CASE WHEN i > 1
                                                         AND cycle[i - 1].status = 'provisional'
                                                    THEN cycle[i - 1].games ELSE 0 END > 0
                                THEN r.month END),
                            lambda m: m IS NOT NULL) END AS months
            FROM (SELECT system, pool, player_id, list({month_of_period}) AS months,
                         list({'month': {month_of_period}, 'games': games, 'status': status}
                              ORDER BY period)
                             FILTER (WHERE system IN ({cumulative_interim})) AS cycle
                  FROM {player_ratings}
                  WHERE games > 0 AND system NOT IN ({list_activity})
                  GROUP BY system, pool, player_id)
        ),
        flagged AS NOT MATERIALIZED (
            SELECT r.*,
                   CASE WHEN r.status <> 'inactive' THEN false
                        WHEN r.system IN ({list_activity}) THEN true
                        ELSE coalesce({month_of_period}
                                      - list_max(list_filter(g.months,
                                                             lambda m: m <= {month_of_period}))
                                      >= {inactive_months}, true) END AS inactive
            FROM listed r
            LEFT JOIN months g
                ON g.system = r.system AND g.pool = r.pool AND g.player_id = r.player_id
        )
        SELECT system, pool, period,
               CASE WHEN NOT inactive THEN
               rank() OVER (PARTITION BY system, pool, period, inactive
                            ORDER BY CASE WHEN system IN ({lower_is_better})
                                          THEN rating_after ELSE -rating_after END) END AS rank,
               row_number() OVER (PARTITION BY system, pool, period
                                  ORDER BY inactive,
                                           CASE WHEN system IN ({lower_is_better})
                                                THEN rating_after ELSE -rating_after END,
                                           r.player_id) AS position,
               r.player_id, p.name, p.federation,
               -- a women's title alone (a TRF's, or a register's w_title) is the list's
               -- title too (list_text.listed_titles; docs/lists.md "Titles")
               coalesce(nullif(trim(p.title), ''),
                        CASE WHEN upper(trim(p.w_title)) IN ('WGM', 'WIM', 'WFM', 'WCM')
                             THEN upper(trim(p.w_title)) END) AS title,
               rating_after AS rating,
               games, status,
               nullif(CASE WHEN upper(trim(p.sex)) IN ('F', 'W') THEN 'w' ELSE '' END
                      || CASE WHEN inactive THEN 'i' ELSE '' END, '') AS flag
        FROM flagged r LEFT JOIN players p USING (player_id)
    """,
    # Glicko: 95 % interval r ± 1.96 RD (Glickman, "The Glicko system"); docs/glicko.md.
    "rating_intervals": """
        SELECT system, pool, period, player_id, rating_after AS rating, rd_after AS rd,
               rating_after - 1.96 * rd_after AS lower_95, rating_after + 1.96 * rd_after AS upper_95,
               games, status
        FROM ratings
        WHERE rd_after IS NOT NULL AND rating_after IS NOT NULL
    """,
    # Analyst views (docs/analysis.md).
    "player_history": """
        SELECT r.system, r.pool, r.period, r.player_id, p.name, p.federation,
               r.rating_before, r.rating_after AS rating, r.change, r.rd_after AS rd,
               r.games, r.score, r.expected, r.k, r.status
        FROM {player_ratings} r LEFT JOIN players p USING (player_id)
    """,
    # ``games``: the period's rated games of the pool, each once, as stored (``rated``;
    # the games partitions, docs/analysis.md). Half the sum of the rows' ``games`` was
    # right only where every game counts on both sides: FIDE counts a game between a
    # rated and an unrated player on one side only, and one of two unrated players on
    # neither (Deloitte month 133: 8557.5 for 28,460 games). ``active_players``: for a
    # system whose interim (provisional) rows count the open cycle's games so far (ECF),
    # a row's games less the player's previous row's when that row was interim, as
    # pipeline/era.py counts them. The window runs over those systems' rows alone.
    "period_summary": """
        SELECT s.system, s.pool, s.period, s.players, s.active_players,
               coalesce(g.games, 0) AS games, s.mean_rating, s.median_rating,
               s.new_players, s.inactive_players, s.unrated_players
        FROM (
            SELECT system, pool, period,
                   count(*) FILTER (WHERE status IN ('rated', 'new', 'provisional', 'inactive')
                                    AND rating_after IS NOT NULL) AS players,
                   count(*) FILTER (WHERE games > 0) AS active_players,
                   avg(rating_after) FILTER (WHERE status IN ('rated', 'new', 'provisional',
                                                              'inactive')) AS mean_rating,
                   median(rating_after) FILTER (WHERE status IN ('rated', 'new', 'provisional',
                                                                 'inactive')) AS median_rating,
                   count(*) FILTER (WHERE status = 'new') AS new_players,
                   count(*) FILTER (WHERE status = 'inactive') AS inactive_players,
                   count(*) FILTER (WHERE status = 'unrated') AS unrated_players
            FROM (SELECT system, pool, period, status, rating_after, games
                  FROM ratings WHERE system NOT IN ({cumulative_interim})
                  UNION ALL BY NAME
                  SELECT system, pool, period, status, rating_after,
                         games - CASE WHEN lag(status) OVER cycle = 'provisional'
                                      THEN lag(games) OVER cycle ELSE 0 END AS games
                  FROM ratings WHERE system IN ({cumulative_interim})
                  WINDOW cycle AS (PARTITION BY system, pool, player_id ORDER BY period))
            GROUP BY system, pool, period
        ) s
        LEFT JOIN (SELECT pool, period, count(*) AS games FROM games WHERE rated
                   GROUP BY pool, period) g
            ON g.pool = s.pool AND g.period = s.period
    """,
    # Ranked by the rating's whole movement (``rating_after - rating_before``: games and
    # any ``adjustment``, FIDE's 2024 compression), not ``change`` (games only): a
    # 1480 -> 1695 player ranked below a +98 one, and one moved only by an adjustment
    # was left out. A row without games or adjustment (WHR re-fitting the past) is none.
    "movers": """
        SELECT system, pool, period,
               rank() OVER (PARTITION BY system, pool, period ORDER BY movement DESC) AS rank_up,
               rank() OVER (PARTITION BY system, pool, period ORDER BY movement ASC) AS rank_down,
               r.player_id, p.name, p.federation, rating_before, rating_after, change, games,
               movement
        FROM (SELECT *, rating_after - rating_before AS movement FROM {player_ratings}) r
        LEFT JOIN players p USING (player_id)
        WHERE movement IS NOT NULL AND movement <> 0
          AND (games > 0 OR coalesce(adjustment, 0) <> 0)
    """,
    "federation_summary": """
        SELECT system, pool, period, coalesce(federation, '?') AS federation,
               count(*) AS players, avg(rating) AS mean_rating, median(rating) AS median_rating,
               max(rating) AS top_rating, min(rank) AS best_rank,
               avg(rating) FILTER (WHERE rank_in_federation <= 10) AS top10_mean
        FROM (SELECT *, row_number() OVER (PARTITION BY system, pool, period, federation
                                           ORDER BY rating DESC) AS rank_in_federation
              FROM rating_list)
        GROUP BY system, pool, period, coalesce(federation, '?')
    """,
    # Games by player with merged ids resolved (docs/identity.md): ``white_id`` and
    # ``black_id`` are the ids the engine rates, ``white_source_id``/``black_source_id``
    # the ids as stored.
    "player_games": """
        SELECT g.* REPLACE (coalesce(aw.keep, g.white_id) AS white_id,
                            coalesce(ab.keep, g.black_id) AS black_id),
               g.white_id AS white_source_id, g.black_id AS black_source_id
        FROM games g
        LEFT JOIN aliases aw ON aw.duplicate = g.white_id
        LEFT JOIN aliases ab ON ab.duplicate = g.black_id
    """,
    # Every version of every source (docs/store.md "Audit trail"): the append-only
    # history, and for a store written before it was kept, the manifest's rows
    # (``unrecorded``: first ingest or correction is not known, only the current
    # version of each source is left).
    "ingest_history": """
        SELECT ingested_at AS recorded_at, action, source, source_key, kind, format, sha256,
               batch, replaces, rows,
               accepted, quarantined, games_added, games_removed, games_changed,
               stale_from, stale
        FROM history
        UNION ALL BY NAME
        SELECT CAST(ingested_at AS TIMESTAMPTZ) AS recorded_at, 'unrecorded' AS action, source,
               source_key, kind, format, sha256, batch, CAST(NULL AS VARCHAR) AS replaces,
               rows, accepted, quarantined, CAST(NULL AS BIGINT) AS games_added,
               CAST(NULL AS BIGINT) AS games_removed, CAST(NULL AS BIGINT) AS games_changed,
               min_period AS stale_from, CAST(NULL AS VARCHAR) AS stale
        FROM manifest WHERE batch NOT IN (SELECT batch FROM history)
    """,
    # Every correction, replacement (--replace), merge and split: when, what, and
    # from which period on it made the ratings stale (docs/store.md "Audit trail").
    "corrections": """
        SELECT recorded_at, action, source, source_key, kind, format, batch, rows, accepted,
               quarantined, games_added, games_removed, games_changed, stale_from, stale,
               CAST(NULL AS VARCHAR) AS keep, CAST(NULL AS VARCHAR) AS duplicate,
               CAST(NULL AS VARCHAR) AS reason
        FROM ingest_history
        WHERE action IN ('correction', 'replace')
           OR (action = 'unrecorded' AND stale_from IS NOT NULL)
        UNION ALL BY NAME
        SELECT CAST("at" AS TIMESTAMPTZ) AS recorded_at, action,
               CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS source_key,
               'players' AS kind, CAST(NULL AS VARCHAR) AS format,
               CAST(NULL AS VARCHAR) AS batch, CAST(NULL AS BIGINT) AS rows,
               CAST(NULL AS BIGINT) AS accepted, CAST(NULL AS BIGINT) AS quarantined,
               CAST(NULL AS BIGINT) AS games_added, CAST(NULL AS BIGINT) AS games_removed,
               CAST(NULL AS BIGINT) AS games_changed,
               list_min(CAST(regexp_extract_all(stale_from, ':([0-9]+)', 1) AS INTEGER[]))
                   AS stale_from,
               nullif(stale_from, '') AS stale, keep, duplicate, reason
        FROM merges
        ORDER BY recorded_at, batch NULLS LAST
    """,
}


# Every view a catalog holds (a catalog file lacking one is rebuilt: ``_current``).
VIEW_NAMES = (*BASE_VIEWS, *DERIVED_VIEWS)


# The rows a list shows: a listed status (docs/schemas.md). A row whose status is none of
# the documented values (a file edited or written by another tool) fails the query with a
# line naming its file, in one CASE (its branches are tested in order; DuckDB may test
# the terms of an AND or OR in any order): a list of such rows said "no rated player
# (give starting ratings …)". ~2 ms a 500k-row period more than the bare ``IN``.
_LISTED_STATUS = (
    "CASE WHEN status IN ('rated', 'new', 'provisional', 'inactive') THEN true"
    " WHEN status IS NULL OR status = 'unrated' THEN false"
    " ELSE error('ratings/system=' || system || '/pool=' || pool || '/period='"
    " || CAST(period AS VARCHAR) || '/part-0.parquet: status ''' || status"
    " || ''' is not one of {names}: the store is damaged; arpad rate --system '"
    " || system || ' --pool ' || pool || ' --full rewrites it') END"
)


def _listed_status() -> str:
    """``_LISTED_STATUS`` with the documented statuses named in its error."""
    return _LISTED_STATUS.replace("{names}", ", ".join(schemas.RATING_STATUSES))


def listed_rows_sql(extra: tuple[tuple[str, str, int], ...] = ()) -> str:
    """SQL of one period's listed rows (``system``, ``pool``, ``period`` as parameters):
    rank left to the list (``lists.order_and_rank``), k and status from the row. It reads
    that period's ratings file only, where the ``rating_list`` view's ranks read every
    period's (a list read while a run replaces files raced on all of them). ``extra``: a
    system's ``list_columns`` (list column, ratings column, decimals), read in the same
    query (a second read could meet another run's file)."""
    listed = _listed_status()
    more = "".join(f", {source} AS {column}" for column, source, _ in extra)
    return (
        "SELECT CAST(NULL AS BIGINT) AS rank, player_id, rating_after AS rating, games, k, "
        f"status{more} FROM {_PLAYER_RATINGS} WHERE system = ? AND pool = ? AND period = ? "
        f"AND {listed} AND rating_after IS NOT NULL"
    )


# A list's months without a rated game before its flag ``i`` (pipeline/lists.py
# ``INACTIVE_MONTHS``, not imported: lists imports polars, which a rating run's catalog
# refresh does not need; tests/test_rating_list_view.py checks they agree).
INACTIVE_MONTHS = 12


def _month_index(column: str) -> str:
    """SQL of ``periods.month_index`` of ``column``: a month count that increases by one
    per period, ``YYYYMM`` months and abstract period numbers alike."""
    first, last = periods.FIRST_MONTH // 100, 2999
    return (
        f"CASE WHEN {column} // 100 BETWEEN {first} AND {last}"
        f" AND {column} % 100 BETWEEN 1 AND 12"
        f" THEN ({column} // 100) * 12 + {column} % 100 - 1 ELSE {column} END"
    )


def derived_views() -> dict[str, str]:
    """``DERIVED_VIEWS`` with the registry's lower-is-better systems, those with
    cumulative interim games and those whose status is a list's activity filled in
    (loaded when a catalog is built, not when this module is imported)."""
    from arpad.pipeline.systems import cumulative_interim_names, list_activity_names

    lower = ", ".join(f"'{s}'" for s in _lower_is_better()) or "NULL"
    cumulative = ", ".join(f"'{s}'" for s in cumulative_interim_names()) or "''"
    activity = ", ".join(f"'{s}'" for s in list_activity_names()) or "''"
    listed = _listed_status()
    return {
        name: sql.replace("{lower_is_better}", lower)
        .replace("{cumulative_interim}", cumulative)
        .replace("{list_activity}", activity)
        .replace("{month_of_period}", _month_index("period"))
        .replace("{month_of_played}", _month_index("played"))
        .replace("{inactive_months}", str(INACTIVE_MONTHS))
        .replace("{player_ratings}", _PLAYER_RATINGS)
        .replace("{listed_status}", listed)
        for name, sql in DERIVED_VIEWS.items()
    }


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# Arrow type -> the DuckDB type of a typed NULL standing for a column no file holds
# (first match; float32 before the other floats, anything else text).
_SQL_TYPES = (
    (pa.types.is_string, "VARCHAR"),
    (pa.types.is_int32, "INTEGER"),
    (pa.types.is_int64, "BIGINT"),
    (pa.types.is_float32, "FLOAT"),
    (pa.types.is_floating, "DOUBLE"),
    (pa.types.is_boolean, "BOOLEAN"),
    (pa.types.is_date, "DATE"),
)


def _sql_type(t: pa.DataType) -> str:
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ" if t.tz else "TIMESTAMP"
    return next((name for test, name in _SQL_TYPES if test(t)), "VARCHAR")


def _nulls(fields) -> list[str]:
    return [f'CAST(NULL AS {_sql_type(f.type)}) AS "{f.name}"' for f in fields]


def _empty_select(schema: pa.Schema) -> str:
    return f"SELECT {', '.join(_nulls(schema))} WHERE false"


def _footers(files: list[Path]) -> dict[Path, list[str] | BaseException]:
    """Each file's column names, read from its footer, or the error reading it."""
    import pyarrow.parquet as pq

    out: dict[Path, list[str] | BaseException] = {}
    for path in files:
        try:
            out[path] = pq.read_schema(path).names
        except (OSError, pa.ArrowException) as exc:
            out[path] = exc
    return out


def _absent(files: list[Path], schema: pa.Schema, footers: dict | None = None) -> list[pa.Field]:
    """The schema's columns that none of ``files`` has: a file written by another arpad
    version (a manifest without ``source_key``) or edited by hand. The view gives them as
    typed NULLs, so the views built on it still bind: every reading call (``list``,
    ``sql``) failed with DuckDB's "Referenced column … not found" (docs/api.md "Attacked
    in a notebook, round 3")."""
    footers = _footers(files) if footers is None else footers
    present: set[str] = set()
    for path in files:
        names = footers[path]
        if isinstance(names, BaseException):  # unreadable: DuckDB says so when queried
            return []
        present.update(names)
    return [f for f in schema if f.name not in present]


# Views that leave a damaged file out (with a note naming it) instead of failing: the
# quarantine holds the rows ingests rejected, which no list, rating or ingest needs, and
# defining the views binds every one of them (a cut quarantine file failed ``list``,
# ``rate``, ``ingest`` and ``sql``; docs/store.md "A damaged store").
LEAVE_OUT_DAMAGED = ("quarantine",)
_NOTED: set[str] = set()  # files already named in a note by this process


def usable_files(
    store: Store, name: str, files: list[Path]
) -> tuple[list[Path], dict[Path, list[str] | BaseException]]:
    """(files, footers): for a ``LEAVE_OUT_DAMAGED`` view, ``files`` without those whose
    footer does not read, each named once on stderr with its repair (``arpad check``
    reports it too); for other views ``files`` as they are. The footers are the ones
    ``_absent`` reads anyway: no extra read."""
    footers = _footers(files)
    if name not in LEAVE_OUT_DAMAGED:
        return files, footers
    kept = [p for p in files if not isinstance(footers[p], BaseException)]
    if len(kept) < len(files):
        import sys

        from arpad.pipeline.integrity import _short, damaged

        for path in files:
            exc = footers[path]
            if not isinstance(exc, BaseException):
                continue
            what = (
                "a directory where a Parquet file belongs"
                if path.is_dir()
                else f"not a readable Parquet file ({_short(exc)})"
            )
            line = str(damaged(path, what))
            if line not in _NOTED:
                _NOTED.add(line)
                print(f"arpad: note: {line}; the {name} view leaves it out", file=sys.stderr)
    return kept, {p: footers[p] for p in kept}


# Columns of a view's files that the view leaves out: the games files' integer player
# keys (pipeline/keys.py ``KEY_COLUMNS``; the engine reads them from the files, no view
# or command reads them through the view; docs/schemas.md "games"), and the quarantine
# folders' ``batch=`` key, which DuckDB reads as a column of its own (it repeats each
# row's ``ingest_batch``; docs/schemas.md "quarantine").
HIDDEN_COLUMNS = {"games": ("white_key", "black_key"), "quarantine": ("batch",)}


def hive_view(name: str, source: str) -> str:
    """SQL of a hive-partitioned base view over ``source`` (a ``read_parquet`` call, or
    pipeline/sql.py's registered dataset) with its columns in the order of its schema
    (docs/schemas.md): DuckDB puts the partition keys (``system``, ``pool``, ``period``)
    after the files' columns, so ``SELECT * FROM ratings`` did not stack on
    ``arpad.rate``'s frame. The keys are cast to the schema's types; the files' columns
    are taken by name (``COLUMNS(lambda …)``: one a file version lacks, such as
    ``rules`` in an older store, is left out rather than failing the view), those the
    schema does not name (a system's own) last, ``HIDDEN_COLUMNS`` never."""
    pattern, _, schema = BASE_VIEWS[name]
    keys = [part.split("=", 1)[0] for part in pattern.split("/") if "=" in part]
    hidden = HIDDEN_COLUMNS.get(name, ())
    parts: list[str] = []
    group: list[str] = []  # the files' columns since the last key
    for field in schema:
        if field.name not in keys:
            group.append(field.name)
            continue
        if group:
            parts.append(f"COLUMNS(lambda c: c IN ({', '.join(map(_sql_str, group))}))")
            group = []
        parts.append(f'CAST("{field.name}" AS {_sql_type(field.type)}) AS "{field.name}"')
    # the columns after the last key, and any the schema does not name
    placed = [f.name for f in schema if f.name not in group] + list(hidden)
    parts.append(f"COLUMNS(lambda c: c NOT IN ({', '.join(map(_sql_str, placed))}))")
    return f"SELECT {', '.join(parts)} FROM {source}"


def _view_sql(store: Store, name: str) -> str:
    pattern, hive, schema = BASE_VIEWS[name]
    files = sorted(store.root.glob(pattern))
    if not files:
        return _empty_select(schema)
    hive_args = ", hive_partitioning = true" if hive else ""
    src = f"read_parquet({_sql_str(pattern)}, union_by_name = true{hive_args})"
    if hive:
        return hive_view(name, src)
    kept, footers = usable_files(store, name, files)
    if not kept:
        return _empty_select(schema)
    if len(kept) < len(files):  # the readable files by name (the glob would bind them all)
        listed = ", ".join(_sql_str(str(p.relative_to(store.root))) for p in kept)
        src = f"read_parquet([{listed}], union_by_name = true)"
    absent = _absent(kept, schema, footers)
    hidden = HIDDEN_COLUMNS.get(name, ())
    columns = f"COLUMNS(lambda c: c NOT IN ({', '.join(map(_sql_str, hidden))}))" if hidden else "*"
    return f"SELECT {', '.join([columns, *_nulls(absent)])} FROM {src}"


def _view_sqls(store: Store) -> dict[str, str]:
    """Every view's SQL, base views first, in the order they are created."""
    sqls = {name: _view_sql(store, name) for name in BASE_VIEWS}
    sqls.update(derived_views())
    return sqls


def define_views(
    con: duckdb.DuckDBPyConnection,
    store: Store,
    temporary: bool = False,
    sqls: dict[str, str] | None = None,
) -> None:
    import duckdb

    kind = "TEMP VIEW" if temporary else "VIEW"
    for name, sql in (sqls or _view_sqls(store)).items():
        try:
            con.execute(f"CREATE OR REPLACE {kind} {name} AS {sql}")
        except duckdb.Error:  # a damaged file under the view's glob: name it (the API too)
            from arpad.pipeline.integrity import diagnose

            named = diagnose(store)
            if named is None:
                raise
            raise named from None


def connect(store: Store) -> duckdb.DuckDBPyConnection:
    """A connection with the store's views, for arpad's own queries (lists, history,
    cards, plots, the site, exports).

    When the catalog file holds exactly the views the store needs now (its stamp,
    ``refresh``), that file is opened read-only: DuckDB binds a view when a query uses
    it. Defining the views on a fresh connection binds every one of them at once, and
    each view over ``ratings`` reads the footer of every ratings file (``union_by_name``):
    0.7-0.9 s of every reading command on a store with 700 ratings files (the Kaggle
    2010 store rated by every system, docs/store.md "Catalog"). Otherwise (no catalog
    yet, an older DuckDB, a store changed since, a catalog that will not open) the views
    are defined on an in-memory connection, as before (also with
    ``ARPAD_CATALOG_FILE=0``, for benchmarks/bench_read.py's comparison). A catalog
    stamped by an arpad that did not check the views in the file it wrote (a stamp
    without ``views``) is used only when it holds them all: on a nearly full disk such a
    catalog held none (newuser round 12).
    """
    import duckdb

    root = _sql_str(str(store.root.resolve()))
    sqls = _view_sqls(store)
    use_file = os.environ.get("ARPAD_CATALOG_FILE", "1") != "0"
    stamp = _stamp_of(store, _definition(store, sqls)) if use_file else None
    if stamp is not None:
        try:
            con = duckdb.connect(str(store.catalog_path), read_only=True)
        except duckdb.Error:  # e.g. replaced by a rebuild just now: define the views here
            con = None
        if con is not None and stamp.get("views") != len(VIEW_NAMES) and missing_views(con):
            # stamped by an arpad that did not check what DuckDB wrote: on a nearly full
            # disk that was a catalog without views (newuser round 12)
            con.close()
            con = None
        if con is not None:
            con.execute(f"SET file_search_path = {root}")
            return con
    con = duckdb.connect()
    con.execute(f"SET file_search_path = {root}")
    define_views(con, store, temporary=True, sqls=sqls)
    return con


# Beside the catalog: what the catalog file was built from (docs/store.md "Catalog").
STAMP_NAME = "catalog.stamp"


def _definition(store: Store, sqls: dict[str, str]) -> str:
    """A hash of everything a rebuilt catalog would hold: each view's SQL (a base view
    is an empty SELECT or a ``read_parquet`` glob, so a first file of a kind changes it),
    the DuckDB version that writes the file, and the store root."""
    text = json.dumps([duckdb_version(), str(store.root.resolve()), sqls])
    return hashlib.sha256(text.encode()).hexdigest()


def duckdb_version() -> str:
    """The installed DuckDB's version, without importing DuckDB: from its ``dist-info``
    folder's name beside the package (``importlib.metadata`` costs ~11 ms of a rate
    process that has a current catalog), else from ``importlib.metadata``."""
    import importlib.util

    spec = importlib.util.find_spec("duckdb")
    if spec is not None and spec.origin:
        found = list(Path(spec.origin).parent.parent.glob("duckdb-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len("duckdb-") : -len(".dist-info")]
    from importlib.metadata import version

    return version("duckdb")


def _file_identity(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _stamp_of(store: Store, definition: str) -> dict | None:
    """The stamp, when ``catalog.duckdb`` is the file it describes, built from the same
    definition; else None."""
    identity = _file_identity(store.catalog_path)
    if identity is None:
        return None
    try:
        stamp = json.loads((store.root / STAMP_NAME).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict):
        return None
    if stamp.get("definition") != definition or stamp.get("catalog") != identity:
        return None
    return stamp


def _current(store: Store, definition: str) -> bool:
    """True when ``catalog.duckdb`` is the file the stamp describes, built from the same
    definition, and was found to hold every view when it was built (``views``): rebuilding
    it would give the same views. A stamp without ``views`` (written before round 12,
    without that check) is not trusted: such a catalog may hold none."""
    stamp = _stamp_of(store, definition)
    return stamp is not None and stamp.get("views") == len(VIEW_NAMES)


def missing_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The views of ``VIEW_NAMES`` that the catalog open on ``con`` does not hold."""
    rows = con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary"
    ).fetchall()
    held = {name for (name,) in rows}
    return [name for name in VIEW_NAMES if name not in held]


def rebuild_foreseen(store: Store) -> bool:
    """Whether a rating run's end is bound to rebuild the catalog: there is none yet,
    or no ratings file yet (the ``ratings`` view's SQL changes with its first file)."""
    pattern = BASE_VIEWS["ratings"][0]
    return not store.catalog_path.exists() or next(iter(store.root.glob(pattern)), None) is None


class RefreshAhead:
    """The catalog rebuilt on a thread as soon as a run has written its first ratings
    file, when the run's end is bound to rebuild it (``rebuild_foreseen``: the first
    ``arpad rate`` of a store). From that file on the views' SQL is the one the end of
    the run would define (a glob binds the files there are when a view is queried), so
    the rebuild (the DuckDB import, ~0.05-0.1 s, and the binding of the views, ~0.12 s on
    the 6M-game store) runs beside the run's later periods; the run's own ``refresh``
    then finds the catalog current. It is only ahead of time: ``refresh`` at the end
    still checks the definition and rebuilds whatever changed since (a failure here is
    left to it). ``wrap`` a ratings file's write to start it; ``join`` before the end."""

    def __init__(self, store: Store, enabled: bool = True) -> None:
        self.store = store
        self.wanted = enabled and rebuild_foreseen(store)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def wrap(self, write: Callable[[], None]) -> Callable[[], None]:
        """``write``, then the rebuild started (once) when it is wanted."""
        if not self.wanted:
            return write

        def write_then_refresh() -> None:
            write()
            self._start()

        return write_then_refresh

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="arpad-catalog", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            refresh(self.store)
        except Exception as exc:  # the end of the run refreshes again and reports it
            import logging

            logging.getLogger("arpad").debug("arpad: catalog rebuilt ahead failed: %s", exc)

    def join(self) -> None:
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()


class RefreshBeside:
    """The catalog rebuilt by the client on a thread while a job's units run on other
    processes (Dask workers, which leave the catalog alone: ``RefreshAhead`` runs only in
    the process that rates). Without it the client rebuilt the catalog after the last
    unit, alone: 1.5-1.8 s of a 2-worker reconstruction of four systems over the 100
    Kaggle 2010 months (docs/runners.md "Dask start-up"). A store with no ratings file
    yet waits for the first one (the ``ratings`` view's SQL changes with it, as in
    ``RefreshAhead``); any other store is rebuilt at once when its catalog is not
    current (a store copied or restored: the stamp names another file). It is only ahead
    of time: the job's own ``refresh`` after the units checks the definition again and
    rebuilds whatever changed since; a failure here is left to it. A context manager:
    the thread is stopped (when still waiting) and joined on exit."""

    POLL = 0.05  # seconds between looks for the first ratings file

    def __init__(self, store: Store) -> None:
        self.store = store
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arpad-catalog", daemon=True)

    def __enter__(self) -> RefreshBeside:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        pattern = BASE_VIEWS["ratings"][0]
        try:
            while next(iter(self.store.root.glob(pattern)), None) is None:
                if self._stop.wait(self.POLL):
                    return  # no ratings file written: the job's refresh does it all
            refresh(self.store)
        except Exception as exc:  # the job's refresh after the units reports it
            import logging

            logging.getLogger("arpad").debug("arpad: catalog rebuilt beside failed: %s", exc)


def refresh(store: Store, force: bool = False) -> Path:
    """Rebuild ``catalog.duckdb`` atomically, unless it already holds exactly the views a
    rebuild would define (``force`` rebuilds anyway).

    DuckDB binds a view's ``read_parquet`` glob when it is queried, so files added to a
    kind that already has files (a new period, system or pool, a new column) are seen
    without a rebuild; what a rebuild changes is the views' SQL (an empty kind getting
    its first file, the systems that rank lowest first) or the DuckDB version. The stamp
    beside the catalog records that definition with the catalog file's inode, size and
    mtime, so a catalog replaced or changed by anything else is rebuilt.
    """
    sqls = _view_sqls(store)
    definition = _definition(store, sqls)
    if not force and _current(store, definition):
        return store.catalog_path
    import duckdb

    store.root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".catalog.", suffix=".duckdb", dir=store.root)
    os.close(fd)
    os.unlink(tmp)  # DuckDB creates the file itself
    try:
        try:
            con = duckdb.connect(tmp)
            try:
                con.execute(f"SET file_search_path = {_sql_str(str(store.root.resolve()))}")
                define_views(con, store, sqls=sqls)
                # Written into the file here: the checkpoint DuckDB makes when the
                # connection closes does not raise when it fails (a full disk), and the
                # views were left in the WAL, which is removed below.
                con.execute("CHECKPOINT")
            finally:
                con.close()
            _check_built(store, tmp)
        except (duckdb.Error, OSError) as exc:
            if disk_full(exc):
                raise _disk_full(store) from exc
            raise
        before_change(store.catalog_path)
        os.replace(tmp, store.catalog_path)
    finally:
        for leftover in (tmp, tmp + ".wal"):
            if os.path.exists(leftover):
                os.unlink(leftover)
    stamp = {
        "definition": definition,
        "catalog": _file_identity(store.catalog_path),
        "views": len(VIEW_NAMES),  # checked in the file (``_check_built``)
    }
    atomic_write_text(json.dumps(stamp), store.root / STAMP_NAME, store.root)
    return store.catalog_path


def _disk_full(store: Store) -> OSError:
    return OSError(errno.ENOSPC, "No space left on device", str(store.catalog_path))


def _check_built(store: Store, tmp: str) -> None:
    """That the catalog DuckDB wrote to ``tmp`` holds every view, in the file itself:
    it is opened again read-only (its WAL must be gone, else the views read from it
    would be lost with it). On a nearly full disk the checkpoint at ``close()`` failed
    without an error and the catalog that replaced the store's held no view: every
    reading command failed, and its stamp kept it (newuser round 12). A catalog that
    lacks a view is not kept: a full disk is the error of a full disk (the store is as
    before), anything else an error naming the missing views."""
    import duckdb

    wal = tmp + ".wal"
    pending = os.path.exists(wal) and os.path.getsize(wal) > 0
    con = duckdb.connect(tmp, read_only=True)
    try:
        missing = missing_views(con)
    finally:
        con.close()
    if not pending and not missing:
        return
    free = os.statvfs(os.path.dirname(tmp))
    if free.f_bavail * free.f_frsize < CATALOG_ROOM:
        raise _disk_full(store)
    what = f"without the views {', '.join(missing)}" if missing else "with its views in its WAL"
    raise RuntimeError(f"{store.catalog_path}: DuckDB wrote the catalog {what}; it was not kept")


# Free space under which a catalog DuckDB wrote without its views is put down to a full
# disk (a catalog file of arpad's views takes ~0.3 MiB; ``_check_built``).
CATALOG_ROOM = 4 * 1024 * 1024


def connect_readonly(store: Store) -> duckdb.DuckDBPyConnection:
    """Open the catalog read-only with relative paths resolved against the store root.

    For arpad's own trusted queries only: DuckDB's file access is on here (the views
    need it), so a statement could still read or write files. Analysts' SQL goes
    through pipeline/sql.py, which cannot."""
    import duckdb

    if not store.catalog_path.exists():
        refresh(store)
    con = duckdb.connect(str(store.catalog_path), read_only=True)
    con.execute(f"SET file_search_path = {_sql_str(str(store.root.resolve()))}")
    return con


# DuckDB opens a Parquet file by its path more than once in one query, so a file that a
# run replaces atomically in between (the next period's ratings written beside a reader)
# fails the query with one of these decoding errors; the query is run again, and sees
# each file before or after the run (docs/operations.md "What a reader sees during a run").
RACED_READ = (
    "TProtocolException",
    "don't know what type",
    "Prefetch registered for bytes outside file",
    "Variable-length int",
    "Out of buffer",
    "No magic bytes",
    "No such file or directory",
    # pages of two versions of a file read as one: under load a 10 ms replacement cycle
    # gave each of these (tests/test_analyst_attack.py)
    "Decompression failure",
    "invalid TType",
    "Failed to read file",
    "Could not read enough bytes",
)
READ_ATTEMPTS = 12


def query_arrow(
    con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None, shape=None
) -> pa.Table:
    """Run ``sql`` with parameters and fetch the whole result as an Arrow table (again when
    a file was replaced under the query: ``RACED_READ``). ``shape``: a step from the bound
    relation to the one fetched (``arpad sql`` casts the columns polars cannot hold)."""
    import duckdb

    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return _query_arrow_once(con, sql, params, shape)
        except duckdb.Error as exc:
            if attempt == READ_ATTEMPTS or not any(m in str(exc) for m in RACED_READ):
                raise
            time.sleep(min(0.01 * 2 ** (attempt - 1), 1.0))  # 5 s in all: a run's files
    raise AssertionError("unreachable")


def _query_arrow_once(con, sql: str, params: list | None, shape=None) -> pa.Table:
    relation = con.sql(sql, params=params or None)
    if shape is not None:
        relation = shape(relation)
    fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
    table = fetch()
    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    return table


def query_frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    import polars as pl

    return pl.from_arrow(query_arrow(con, sql, params))
