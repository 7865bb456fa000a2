"""Rating lists read from the store, and the official list files (docs/lists.md).

``list_frame`` is one published period of one system and pool: every listed player
(status rated/new/provisional/inactive with a rating) with the player fields of the
players table, the period's games and K, and FIDE's flag (``i`` inactive: no rated
game for 12 months, for every system; ``w`` woman, ``wi`` both). ``arpad list``, the API's ``Store.list``, the demo and the
monthly job's published lists all read it; an empty list is never returned
(``EmptyListError``, exit 2). The writers turn it into FIDE's fixed-width TXT and
XML layouts, and CSV/JSON/Parquet with whole-number ratings for systems that publish
whole numbers (``RatingSystem.integer_ratings``), K with one decimal where it is
fractional (USCF's), and a system's own columns after ``rating`` (Glicko's ``rd``:
``RatingSystem.list_columns``).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from arpad.pipeline import catalog, list_text, output, periods
from arpad.pipeline.integrity import check_ratings_file
from arpad.pipeline.store import atomic_write_text


class EmptyListError(ValueError):
    """A list that would publish no rated player (bad input, exit 2)."""


# Player facts a list shows, from the players table.
PLAYER_FIELDS = (
    "name",
    "federation",
    "sex",
    "title",
    "w_title",
    "o_title",
    "foa_title",
    "birth_year",
)

# The columns of a list, in order (docs/lists.md).
LIST_COLUMNS = (
    "rank",
    "player_id",
    *PLAYER_FIELDS[:-1],  # birth_year comes after the rating columns
    "rating",
    "games",
    "k",
    "birth_year",
    "flag",
    "status",
)
# What ``arpad list`` prints as a table.
TABLE_COLUMNS = (
    "rank",
    "player_id",
    "name",
    "federation",
    "title",
    "rating",
    "games",
    "k",
    "flag",
    "status",
)
LIST_FORMATS = output.LIST_FORMATS


def columns_of(system) -> tuple[str, ...]:
    """``LIST_COLUMNS`` of ``system``'s lists: its own columns
    (``RatingSystem.list_columns``, e.g. Glicko's ``rd``) right after ``rating``."""
    at = LIST_COLUMNS.index("rating") + 1
    own = tuple(column for column, _, _ in system.list_columns)
    return LIST_COLUMNS[:at] + own + LIST_COLUMNS[at:]


def table_columns(frame: pl.DataFrame) -> tuple[str, ...]:
    """The columns ``arpad list`` prints of the list ``frame``: ``TABLE_COLUMNS`` and
    the system's own columns (those not in ``LIST_COLUMNS``), in the list's order."""
    return tuple(c for c in frame.columns if c in TABLE_COLUMNS or c not in LIST_COLUMNS)


# One period's listed rows, from its own ratings file (``catalog.listed_rows_sql``): the
# rank is the list's own (``order_and_rank``), never the view's.
LIST_SQL = catalog.listed_rows_sql()

# A list's flag ``i`` (and no rank): no rated game for this many months, FIDE's rule
# (B.02) for every system (docs/observations.md "Who is on a list"). FIDE's own status
# applies it (with its dated 24 months of 2020-11 … 2021-12); the other systems' status
# ``inactive`` only says "no game this period", so the list applies it to them.
INACTIVE_MONTHS = 12


def flag(sex: str | None, status: str | None) -> str | None:
    """FIDE's list flag: ``i`` inactive, ``w`` woman (sex F), ``wi`` both, else none."""
    woman = (sex or "").strip().upper() in ("F", "W")
    inactive = status == "inactive"
    return ("w" if woman else "") + ("i" if inactive else "") or None


def flag_column(inactive: pl.Expr) -> pl.Expr:
    """The list's ``flag`` column (``flag`` row by row): ``w`` for sex F, ``i`` where
    ``inactive``."""
    woman = pl.col("sex").str.strip_chars().str.to_uppercase().is_in(["F", "W"]).fill_null(False)
    return (
        pl.concat_str(
            pl.when(woman).then(pl.lit("w")).otherwise(pl.lit("")),
            pl.when(inactive).then(pl.lit("i")).otherwise(pl.lit("")),
        )
        .replace("", None)
        .alias("flag")
    )


def list_frame(
    store,
    system: str,
    pool: str,
    period: int | None,
    top: int | None = None,
    date=None,
    min_games: int | None = None,
    in_force=None,
    frozen: bool = False,
):
    """(frame, period): the list of ``period`` (default: the latest rated one) in
    ``LIST_COLUMNS``; with ``date`` ('1886', '1886-03', '1886-03-15') the list as it
    stood on that date (``periods.period_at``); with ``in_force`` ('2026-12-01',
    '2026-12') the list in force on that day (``period_in_force``, FIDE's list date):
    the list as published when the period was published (``published_list``: the frozen
    one, not the current ratings of a period revised since), else the current one.
    ``frozen``: the published list of ``period`` too, when there is one (also of a
    period whose ratings are gone; default period: the latest rated or published).
    ``top``: the first ``top`` ranked (active) players only; ``min_games``: only players
    with at least that many rated games in periods up to the list's (``total_games``),
    ranked again. A period in which the pool has no games but another pool of the
    combined file has a list, or a month without games that is over, is the pool's
    latest list carried forward (``--period``, ``in_force``, ``frozen``; not ``date``:
    ``carried_periods``, ``carried_list``). Raises ValueError for a
    period that has no list and ``EmptyListError`` for a list without any rated player."""
    from arpad.pipeline.systems import get_system

    sys_ = get_system(system)  # an unknown system name is its own one-line error
    con = catalog.connect(store)
    try:
        # the partition folders (one listing; the SQL binds every ratings file's footer)
        rated = store.rating_periods(system, pool)
        # --in-force also finds the frozen lists whose ratings are gone (a pool left with
        # no games, docs/store.md "A pool left with no games": published lists stay)
        frozen_only = []
        if in_force is not None or frozen:
            frozen_only = [p for p in store.published_periods(system, pool) if p not in rated]
        if not rated and not frozen_only:
            raise store.no_ratings(system, pool)
        # the months another pool has a list and this one no games: its list carried forward
        carried = carried_periods(store, system, pool, in_force is not None or frozen)
        if date is not None:
            period = periods.period_at(date, rated, f"the {system}/{pool} list")
        elif in_force is not None:
            listed = sorted({*rated, *frozen_only, *carried})
            period = period_in_force(in_force, listed, f"{system}/{pool}", system)
        elif period is None:
            period = max([*rated, *frozen_only])
        elif period not in rated and period not in frozen_only and period not in carried:
            known = sorted({*rated, *frozen_only})
            raise ValueError(
                f"no {system}/{pool} list for period {period} "
                f"(rated periods: {known[0]}..{known[-1]}, {len(known)} in all)"
            )
        published = None
        if period not in carried and (frozen or in_force is not None):
            published = published_list(store, system, pool, period)
        if published is None and period not in carried:  # else ``carried_list`` below
            # the listed period's file checked (its footer): without ``status`` it listed nobody
            check_ratings_file(store.rating_partition(system, pool, period) / "part-0.parquet")
            sql = catalog.listed_rows_sql(sys_.list_columns) if sys_.list_columns else LIST_SQL
            frame = catalog.query_frame(con, sql, [system, pool, period])
            if sys_.cumulative_interim_games:  # ECF: an interim list keeps the season's grades
                frame = with_published_grades(con, frame, system, pool, period)
                frame = interim_while_in_progress(frame, period)
    finally:
        con.close()
    if period in carried:
        frozen = frozen or in_force is not None
        return carried_list(store, system, pool, period, top, min_games, frozen), period
    if published is not None:  # as frozen: its ratings, ranks, flags and player fields
        if min_games is not None:
            published = _ranked(
                _with_min_games(published, store, system, pool, period, min_games),
                sys_.lower_is_better,
                tuple(published.columns),
            )
        return (top_ranked(published, top) if top else published), period
    if frame.height == 0:
        raise EmptyListError(
            f"the {system}/{pool} list for period {period} has no rated player "
            "(give starting ratings: arpad ingest --players FILE, or --set initial_rating=… "
            "where the system's rules have it)"
        )
    players = pl.from_arrow(store.read_players()).select("player_id", *PLAYER_FIELDS)
    frame = frame.join(players, on="player_id", how="left").with_columns(women_title())
    if min_games is not None:
        frame = _with_min_games(frame, store, system, pool, period, min_games)
    if sys_.status_is_list_activity:  # FIDE: its status applies its own rule
        inactive = pl.col("status") == "inactive"
    else:  # "no game this period" is not inactive: INACTIVE_MONTHS without a rated game is
        idle = idle_players(store, system, pool, period)
        inactive = pl.col("player_id").is_in(idle) & (pl.col("status") == "inactive")
    frame = frame.with_columns(flag_column(inactive))
    frame = in_force_ratings(store, sys_, pool, period, frame)
    integer = sys_.integer_ratings
    frame = frame.with_columns(
        _whole(frame["rating"]) if integer else list_text.tenths(frame["rating"]),
        # a fractional K (USCF's 800/(N' + m)) with one decimal, as the table shows it
        _whole(frame["k"]) if _all_whole(frame["k"]) else list_text.tenths(frame["k"]),
        frame["games"].cast(pl.Int64),
        frame["birth_year"].cast(pl.Int64),
        *(_rounded(frame[column], digits) for column, _, digits in sys_.list_columns),
    )
    frame = _ranked(frame, sys_.lower_is_better, columns_of(sys_))
    if top:
        frame = top_ranked(frame, top)
    return frame, period


def rules_name(store, system: str, pool: str, period: int) -> str | None:
    """The one ``rules`` name of the period's stored ratings rows, else None (none, or
    several: the rules of a run a system reads back, ``RatingSystem.carried_ratings``)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = store.rating_partition(system, pool, period) / "part-0.parquet"
    if not path.is_file():
        return None
    with pq.ParquetFile(path) as file:  # (0.3 ms; pq.read_table took 3 ms)
        if "rules" not in file.schema_arrow.names:
            return None
        names = [n for n in pc.unique(file.read(columns=["rules"])["rules"]).to_pylist() if n]
    return names[0] if len(names) == 1 else None


def carried_values(store, sys_, pool: str, values, after: int, at: int) -> np.ndarray:
    """``values``, ratings after period ``after``, as they stand at the start of ``at``
    (``RatingSystem.carried_ratings``: FIDE's compression of 1 March 2024 between them),
    with the rules of the stored run (``rules_name``, read only when needed); ``values``
    itself when nothing changes them."""
    values = np.asarray(values, dtype=np.float64)
    name = sys_.name
    carried = sys_.carried_ratings(
        values, after, at, pool, lambda: rules_name(store, name, pool, after)
    )
    return np.asarray(carried, dtype=np.float64)


def in_force_ratings(
    store, sys_, pool: str, period: int, frame: pl.DataFrame, since: int | None = None
) -> pl.DataFrame:
    """``frame`` (a list of ``period``'s ratings rows, or of ``since``'s carried into it)
    with its ratings as they stand when the list of ``period`` takes effect (``list_date``:
    the first day after its rating period), the date FIDE's list carries:
    ``RatingSystem.carried_ratings`` from ``since`` (default ``period``). FIDE's list of
    202402, in force from 1 March 2024, shows the compressed ratings, as FIDE's March
    2024 list did; the ratings rows keep theirs (the compression is 202403's adjustment:
    docs/fide-history.md "The 1 March 2024 compression"). Other lists: unchanged."""
    day = list_date(period)
    if day is None or frame.height == 0:
        return frame
    at = periods.period_of_date(day)
    after = period if since is None else since
    rating = frame["rating"].cast(pl.Float64).to_numpy()
    carried = carried_values(store, sys_, pool, rating, after, at)
    if carried is rating:
        return frame
    dtype = frame["rating"].dtype
    return frame.with_columns(pl.Series("rating", carried, pl.Float64).cast(dtype, strict=False))


def _ranked(
    frame: pl.DataFrame, lower_is_better: bool, columns: tuple[str, ...] = LIST_COLUMNS
) -> pl.DataFrame:
    """``frame`` ranked and ordered on the rating as published, ties by name
    (docs/lists.md), in ``columns``; the unranked are the players flagged ``i``
    (order_and_rank reads ``status``: the row's own status is put back after it)."""
    flagged = pl.col("flag").fill_null("").str.contains("i")
    frame = frame.with_columns(
        pl.col("status").alias("_status"),
        pl.when(flagged).then(pl.lit("inactive")).otherwise(pl.lit("active")).alias("status"),
    )
    frame = list_text.order_and_rank(frame, lower_is_better)
    return frame.with_columns(pl.col("_status").alias("status")).select(columns)


def _with_min_games(frame, store, system: str, pool: str, period: int, min_games: int):
    """The players of ``frame`` with at least ``min_games`` rated games in periods up to
    ``period`` (``total_games``); ``EmptyListError`` when nobody is left."""
    totals = total_games(store, system, pool, period)
    frame = frame.join(totals, on="player_id", how="left").filter(
        pl.col("_total").fill_null(0) >= min_games
    )
    frame = frame.drop("_total")
    if frame.height == 0:
        raise EmptyListError(
            f"the {system}/{pool} list for period {period} has no player with at least "
            f"{min_games} rated game(s) up to it (lower --min-games)"
        )
    return frame


def top_ranked(frame: pl.DataFrame, top: int) -> pl.DataFrame:
    """The first ``top`` ranked players of a list in list order: the inactive players
    (no rank) are not in a top list, as on FIDE's (docs/lists.md "--top"). A ``top``
    past the list's length is the whole list (``head`` overflowed on one past 2**64)."""
    ranked = frame.filter(pl.col("rank").is_not_null())
    return ranked.head(min(top, ranked.height))


# FIDE's women's titles: on FIDE's lists a woman's women's title is in both Tit and WTit.
WOMEN_TITLES = list_text.WOMEN_TITLES


def women_title() -> list[pl.Expr]:
    """``title`` and ``w_title`` as listed: a women's title in one with the other empty
    fills both (``list_text.listed_titles``; docs/lists.md "What a list holds")."""
    return list_text.listed_titles()


_TOTAL_SQL = """
SELECT player_id, period, games, status, rating_before, change, adjustment FROM ratings
WHERE system = ? AND pool = ? AND period <= ?
"""


def total_games(store, system: str, pool: str, period: int) -> pl.DataFrame:
    """(player_id, _total): each player's rated games in the periods up to and including
    ``period`` (the games arpad rated; a players file's ``rated_games`` before the
    store's first period is not counted), for ``--min-games`` (docs/lists.md)."""
    rows = own_games(store, system, pool, period)
    return rows.group_by("player_id").agg(pl.col("games").sum().cast(pl.Int64).alias("_total"))


def own_games(store, system: str, pool: str, period: int) -> pl.DataFrame:
    """(player_id, period, games, status, …): every ratings row up to ``period`` with
    ``games`` the games of the row's own period, each game once (pipeline/era.py
    ``_games_of_each_period``: ECF's interim rows count the open season's games so far,
    FIDE's two-monthly closing rows repeat the held month's games)."""
    from arpad.pipeline.systems import get_system

    con = catalog.connect(store)
    try:
        rows = catalog.query_frame(con, _TOTAL_SQL, [system, pool, period])
    finally:
        con.close()
    rows = rows.with_columns(pl.col("games").fill_null(0))
    rated = get_system(system)
    if rated.cumulative_interim_games or rated.held_games_repeated:
        from arpad.pipeline.era import _games_of_each_period

        interim, held = rated.cumulative_interim_games, rated.held_games_repeated
        rows = _games_of_each_period(rows, interim=interim, held=held)
    return rows


def idle_players(store, system: str, pool: str, period: int) -> list[str]:
    """The players of ``system``/``pool`` with no rated game in ``period`` or the
    ``INACTIVE_MONTHS`` - 1 periods before it (a period is a month, abstract ones too):
    the list of ``period`` flags them ``i`` and leaves them unranked. A player rated
    without any game in the store (a players file's rating) is idle, as ``--active``
    counts him (FIDE's own rule counts such a rating as a game the month before the
    first walked period: docs/fide-history.md "Inactivity")."""
    return _window(store, system, pool, period).filter("_idle")["player_id"].to_list()


def recent_players(store, system: str, pool: str, period: int) -> list[str]:
    """The players of ``system``/``pool`` with a rated game in ``period`` or the
    ``INACTIVE_MONTHS`` - 1 periods before it: a list carried forward flags everybody
    else ``i`` (``carried_list``; ``idle_players`` names only players with a row then)."""
    return _window(store, system, pool, period).filter(~pl.col("_idle"))["player_id"].to_list()


def _window(store, system: str, pool: str, period: int) -> pl.DataFrame:
    """(player_id, played, _idle) of ``idle_players``: every player with a ratings row in
    ``period`` or the ``INACTIVE_MONTHS`` - 1 periods before it, the last of those with
    rated games, and whether none is recent enough."""
    # only the window decides (a list reads its INACTIVE_MONTHS periods, not the whole
    # history: shorter reads, and fewer files a run may replace under the query)
    now = periods.month_index(period)
    first = now - (INACTIVE_MONTHS - 1)
    since = first if not periods.is_calendar(period) else (first // 12) * 100 + first % 12 + 1
    last = last_played(store, system, pool, period, since)
    index = {p: periods.month_index(p) for p in last["played"].drop_nulls().unique().to_list()}
    month = pl.col("played").replace_strict(index, return_dtype=pl.Int64, default=None)
    return last.with_columns((now - month >= INACTIVE_MONTHS).fill_null(True).alias("_idle"))


_LAST_PLAYED_SQL = """
SELECT player_id, max(period) FILTER (WHERE games > 0) AS played FROM ratings
WHERE system = ? AND pool = ? AND period <= ? AND period >= ? GROUP BY player_id
"""


def last_played(
    store, system: str, pool: str, period: int, since: int | None = None
) -> pl.DataFrame:
    """(player_id, played): every player with a ratings row from ``since`` (default: the
    first period) up to ``period`` and the last period among those in which he had rated
    games (null: none)."""
    from arpad.pipeline.systems import get_system

    if get_system(system).cumulative_interim_games:  # each game in its own period
        rows = own_games(store, system, pool, period)
        if since is not None:
            rows = rows.filter(pl.col("period") >= since)
        played = pl.when(pl.col("games") > 0).then(pl.col("period"))
        return rows.group_by("player_id").agg(played.max().alias("played"))
    con = catalog.connect(store)
    try:
        bounds = [system, pool, period, -(2**31) if since is None else since]
        return catalog.query_frame(con, _LAST_PLAYED_SQL, bounds)
    finally:
        con.close()


# -- a pool without games in a period (docs/lists.md "A pool without games in a period")
def carries_lists(system) -> bool:
    """Whether a period without games leaves ``system``'s list unchanged but for games,
    K and activity, so that the latest list can be carried forward: not for a system
    whose list shows numbers that move with time alone (an RD: ``list_columns``), one
    that revises its ratings (``retroactive``), nor for season lists (ECF's:
    ``cumulative_interim_games``, whose interim lists carry the grades already)."""
    return not (system.list_columns or system.retroactive or system.cumulative_interim_games)


def carried_periods(
    store, system: str, pool: str, frozen: bool = False, quiet: bool = True
) -> list[int]:
    """The periods whose list of ``pool`` is its latest list carried forward: the pool
    is one of the combined file's (standard, rapid, blitz), has no list of the period
    (rated, or with ``frozen`` published) but one before it, and another of those pools
    has a list of it (FIDE publishes all three lists every month), or (``quiet``) the
    period is a month without games of the pool that is over (``quiet_months``: FIDE
    publishes a list every month, also after a month without any game); only periods
    that close a list under the system's rules (``list_periods``), only for a system
    whose lists carry (``carries_lists``)."""
    from arpad.pipeline.combined import COMBINED_POOLS  # combined imports this module
    from arpad.pipeline.systems import get_system

    rated = get_system(system)
    pools = [one for one, _ in COMBINED_POOLS]
    if pool not in pools or not carries_lists(rated):
        return []

    def listed(one: str) -> set[int]:
        found = set(store.rating_periods(system, one))
        return found | set(store.published_periods(system, one)) if frozen else found

    own = listed(pool)
    own_lists = rated.list_periods(sorted(own))
    if not own_lists:
        return []
    carried = {p for one in pools if one != pool for p in listed(one)} - own
    if quiet:
        carried |= set(quiet_months(store, pool, own_lists[0], own))
    return rated.list_periods(sorted(p for p in carried if p > own_lists[0]))


def quiet_months(store, pool: str, first: int, listed) -> list[int]:
    """The calendar months after ``first`` (the pool's first list) that are over
    (``publish.in_progress``: before today's month, UTC), hold no game of ``pool`` (a
    month with games not rated yet is not one) and have no list of it (``listed``):
    months without games, whose list is the latest one carried forward
    (``carried_periods``; docs/lists.md "A month without games"). None for abstract
    period numbers."""
    from arpad.pipeline.publish import today

    if not periods.is_calendar(first):
        return []
    last = periods.month_index(periods.period_of_date(today())) - 1
    skip = {*listed, *store.periods(pool)}
    months = ((m // 12) * 100 + m % 12 + 1 for m in range(periods.month_index(first) + 1, last + 1))
    return [p for p in months if p not in skip]


def waiting_quiet(store, system: str, pool: str) -> list[int]:
    """The months without games (``quiet_months``) after the pool's latest list (rated
    or published), at most ``INACTIVE_MONTHS`` - 1 of them, that no other pool has a list
    of: the monthly job does not freeze their carried lists itself (a store whose games
    ended long ago would get one a month up to today), and its report names them with
    the ``arpad publish`` that freezes each (``quiet_note``)."""
    carried = carried_periods(store, system, pool)
    if not carried:
        return []
    latest = max({*store.rating_periods(system, pool), *store.published_periods(system, pool)})
    others = set(carried_periods(store, system, pool, quiet=False))
    return [
        p
        for p in carried
        if p > latest and p not in others and periods.months_between(latest, p) < INACTIVE_MONTHS
    ]


def quiet_note(system: str, pool: str, months: list[int], source: int) -> str:
    """The monthly report's line for ``waiting_quiet``'s ``months``, whose lists carry
    the list of ``source`` (the pool's latest)."""
    from arpad.pipeline.systems import DEFAULT_SYSTEM

    which = (f" --system {system}" if system != DEFAULT_SYSTEM else "") + (
        f" --pool {pool}" if pool != "standard" else ""
    )
    some = f"period {months[0]}" if len(months) == 1 else "periods " + ", ".join(map(str, months))
    has = "has" if len(months) == 1 else "have"
    return (
        f"No games: {some} {has} no {system}/{pool} games; the list of a month without "
        f"games is the list of period {source} carried forward (arpad list{which} --period "
        f"{months[0]}), not frozen by this job: "
        + ", then ".join(f"arpad publish{which} --period {p}" for p in months)
        + (" freezes it" if len(months) == 1 else " freeze them")
        + ' (docs/lists.md "A month without games")'
    )


def carried_source(store, system: str, pool: str, period: int, frozen: bool = False) -> int:
    """The period whose list ``carried_list`` carries into ``period`` (one of
    ``carried_periods``): the pool's latest list before it (rated, or with ``frozen``
    published). A frozen carried list names it in its manifest (``carried_from``,
    pipeline/publish.py)."""
    from arpad.pipeline.systems import get_system

    own = set(store.rating_periods(system, pool))
    if frozen:
        own |= set(store.published_periods(system, pool))
    return max(p for p in get_system(system).list_periods(sorted(own)) if p < period)


def carried_list(
    store,
    system: str,
    pool: str,
    period: int,
    top: int | None = None,
    min_games: int | None = None,
    frozen: bool = False,
) -> pl.DataFrame:
    """The list of ``period`` (one of ``carried_periods``) for a pool without games in it:
    its latest list before it (as published when ``frozen`` and it was) with every
    player's rating carried, 0 games, no K (none was used: "What a list holds"), and the
    status and flag of a rated player without a game: for a system whose status is the
    list's activity (FIDE) ``inactive`` and ``i`` once his last rated game is
    ``INACTIVE_MONTHS`` or more before ``period`` (``long_idle``), else ``rated``; for
    the others ``inactive``, flagged ``i`` unless ``recent_players``. Ranked again;
    ``top`` and ``min_games`` as ``list_frame`` takes them. No ratings row is written:
    the next period with games starts from the same ratings."""
    from arpad.pipeline.systems import get_system

    rated = get_system(system)
    source = carried_source(store, system, pool, period, frozen)
    frame, _ = list_frame(store, system, pool, source, frozen=frozen)
    # (its ratings as they stand when the carried list takes effect: FIDE's compression)
    begins = list_date(source)
    if begins is not None:
        since = periods.period_of_date(begins)
        frame = in_force_ratings(store, rated, pool, period, frame, since)
    if rated.status_is_list_activity:
        idle = pl.col("player_id").is_in(long_idle(store, system, pool, period))
        inactive = (pl.col("status") == "inactive") | idle
        status = pl.when(inactive).then(pl.lit("inactive")).otherwise(pl.lit("rated"))
    else:  # no row of the pool in the period: who played in the window is not idle
        inactive = ~pl.col("player_id").is_in(recent_players(store, system, pool, period))
        status = pl.lit("inactive")
    frame = frame.with_columns(
        pl.lit(0, pl.Int64).alias("games"),
        pl.lit(None, frame["k"].dtype).alias("k"),
        status.alias("status"),
        flag_column(inactive),
    )
    if min_games is not None:
        frame = _with_min_games(frame, store, system, pool, period, min_games)
    frame = _ranked(frame, rated.lower_is_better, tuple(frame.columns))
    return top_ranked(frame, top) if top else frame


_FIRST_AND_PLAYED_SQL = """
SELECT player_id, min(period) AS first, max(period) FILTER (WHERE games > 0) AS played
FROM ratings WHERE system = ? AND pool = ? AND period <= ? GROUP BY player_id
"""


def long_idle(store, system: str, pool: str, period: int) -> list[str]:
    """The players of ``system``/``pool`` whose last rated game up to ``period`` is
    ``INACTIVE_MONTHS`` or more months before it, a rating without a game counting as a
    game the month before the player's first row, as FIDE's own rule counts a players
    file's rating (docs/fide-history.md "Inactivity"; ``idle_players`` counts it idle)."""
    con = catalog.connect(store)
    try:
        rows = catalog.query_frame(con, _FIRST_AND_PLAYED_SQL, [system, pool, period])
    finally:
        con.close()
    seen = {*rows["first"].to_list(), *rows["played"].drop_nulls().to_list()}
    index = {p: periods.month_index(p) for p in seen}
    month = pl.col("played").replace_strict(index, return_dtype=pl.Int64, default=None)
    before = pl.col("first").replace_strict(index, return_dtype=pl.Int64) - 1
    last = pl.coalesce(month, before)
    idle = rows.filter(periods.month_index(period) - last >= INACTIVE_MONTHS)
    return idle["player_id"].to_list()


_PUBLISHED_SQL = """
SELECT max(period) FROM ratings
WHERE system = ? AND pool = ? AND period < ? AND status IN ('rated', 'new', 'inactive')
"""


def with_published_grades(con, frame: pl.DataFrame, system: str, pool: str, period: int):
    """An interim list of a system that publishes at a season's end (ECF; its interim
    rows are all ``provisional``): ``frame`` (``LIST_SQL``'s rows of ``period``) and,
    for every player on the season's last published list who has no row here (no game
    this season yet), his published grade with 0 games, no K and status ``inactive``,
    as every other system carries a rating (docs/legacy-systems.md "Interim lists").
    A publication's list (any row not ``provisional``) is ``frame`` as it is."""
    if frame.height and (frame["status"] != "provisional").any():
        return frame
    before = catalog.query_frame(con, _PUBLISHED_SQL, [system, pool, period])
    published = before.item(0, 0) if before.height else None
    if published is None:
        return frame
    carried = catalog.query_frame(con, LIST_SQL, [system, pool, int(published)])
    carried = carried.filter(~pl.col("player_id").is_in(frame["player_id"].to_list()))
    carried = carried.with_columns(
        pl.lit(0).cast(carried["games"].dtype).alias("games"),
        pl.lit(None).cast(carried["k"].dtype).alias("k"),
        pl.lit("inactive").alias("status"),
    )
    return pl.concat([frame, carried], how="vertical_relaxed")


def interim_while_in_progress(frame: pl.DataFrame, period: int) -> pl.DataFrame:
    """A list of a system that publishes at a season's end (ECF) whose ``period`` is a
    month not over (``publish.in_progress``: today's month, UTC): a season closing in
    it was graded from the month's games so far, so its rows ``rated`` and ``new`` are
    listed ``provisional``, as an interim list (docs/legacy-systems.md "A closing month
    in progress"); the grades are unchanged. A finished month's list is ``frame``."""
    from arpad.pipeline.publish import in_progress

    if not in_progress(period):
        return frame
    published = pl.col("status").is_in(["rated", "new"])
    status = pl.when(published).then(pl.lit("provisional")).otherwise(pl.col("status"))
    return frame.with_columns(status.alias("status"))


# Each period's number of listed rows (``LIST_SQL``'s) and of rows with a published status
# (``_PUBLISHED_SQL``'s), every period up to the third parameter in one query.
_LISTED_COUNTS_SQL = (
    "SELECT period, count(*) FILTER (WHERE player_id NOT IN (SELECT duplicate FROM aliases)"
    f" AND {catalog._listed_status()} AND rating_after IS NOT NULL) AS listed,"
    " count(*) FILTER (WHERE status IN ('rated', 'new', 'inactive')) AS published"
    " FROM ratings WHERE system = ? AND pool = ? AND period <= ? GROUP BY period"
)


def empty_lists(store, system: str, pool: str, finished: list[int]) -> set[int]:
    """The periods among ``finished`` (rated months that are over) whose ``list_frame``
    raises ``EmptyListError``, from one query for all of them, not two per period (the
    monthly job's ``passed_over``: 72 s of an 80 s run on a store whose first frozen list
    came after 90 months, docs/operations.md). A period without a listed row has its file
    checked as ``list_frame`` checks it (``check_ratings_file``); for a system with
    cumulative interim games (ECF) it is not empty when the latest published period
    before it lists a player (``with_published_grades`` carries his grade)."""
    from arpad.pipeline.systems import get_system

    if not finished:
        return set()
    con = catalog.connect(store)
    try:
        counts = catalog.query_frame(con, _LISTED_COUNTS_SQL, [system, pool, max(finished)])
    finally:
        con.close()
    listed = dict(zip(counts["period"].to_list(), counts["listed"].to_list(), strict=True))
    published = sorted(p for p, n in zip(counts["period"], counts["published"], strict=True) if n)
    carries = get_system(system).cumulative_interim_games
    empty = set()
    for p in finished:
        if listed.get(p, 0):
            continue
        check_ratings_file(store.rating_partition(system, pool, p) / "part-0.parquet")
        before = [q for q in published if q < p]
        if carries and before and listed.get(before[-1], 0):
            continue
        empty.add(p)
    return empty


def list_day(text) -> dt.date:
    """The day ``--in-force`` names: '2026-12-01' that day, '2026-12' the first of the
    month (FIDE's list of December 2026), '2026' 1 January; a ``datetime.date`` as is."""
    if isinstance(text, dt.datetime):
        return text.date()
    if isinstance(text, dt.date):
        return text
    raw = str(text).strip()
    m = re.fullmatch(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", raw)
    try:
        if m:
            return dt.date(int(m[1]), int(m[2] or 1), int(m[3] or 1))
    except ValueError:
        pass
    raise periods.PeriodError(f"date {text!r} is not a date: give YYYY, YYYY-MM or YYYY-MM-DD")


def list_date(period: int) -> dt.date | None:
    """The day the list of ``period`` takes effect, FIDE's list date: the first day after
    the rating period closes (period 202611, November's games: 1 December 2026). None
    for abstract period numbers."""
    day = periods.first_day(period)
    if day is None:
        return None
    return dt.date(day.year + 1, 1, 1) if day.month == 12 else dt.date(day.year, day.month + 1, 1)


def list_periods(system: str, rated: list[int]) -> list[int]:
    """The periods of ``rated`` that closed a published list, as ``system`` says (FIDE's
    two-monthly rules: only a rating period's closing month; other systems: every
    period)."""
    from arpad.pipeline.systems import get_system

    return get_system(system).list_periods(rated)


def period_in_force(
    text, rated: list[int], what: str | None = None, system: str | None = None
) -> int:
    """The period whose list was in force on the day ``text`` names (``list_day``): the
    latest of ``rated`` whose list date (``list_date``) is on or before it, i.e. the
    latest rated period that had closed by then (for ``system`` fide, of the periods that
    closed a list: ``list_periods``). ValueError (one line) without dated periods or
    before the first list took effect (``no fide/standard list was in force on
    2026-09-30 (the first is of period 202610, in force from 2026-11-01)``; ``what``
    names the lists, e.g. ``fide/standard``)."""
    day = list_day(text)
    if system is not None:
        rated = list_periods(system, rated)
    dated = sorted((list_date(p), p) for p in rated if list_date(p) is not None)
    lists = f"{what} lists" if what else "the lists"
    if not dated:
        raise periods.PeriodError(
            f"{lists} have no dated periods (period numbers only): give --period, not --in-force"
        )
    if day < dated[0][0]:
        first = dated[0][1]
        raise periods.PeriodError(
            f"no {what + ' ' if what else ''}list was in force on {day.isoformat()} (the "
            f"first is of period {first}, in force from {dated[0][0].isoformat()})"
        )
    return max(p for start, p in dated if start <= day)


def published_list(store, system: str, pool: str, period: int) -> pl.DataFrame | None:
    """The list of ``period`` as published: the frozen ``list.parquet`` of
    ``STORE/published/…/period=N/`` (pipeline/publish.py) in ``LIST_COLUMNS``, or None
    when the period was never published. A published file edited or removed since is
    an error naming it, as for ``arpad diff --published``."""
    from arpad.pipeline.integrity import damaged, published_problems
    from arpad.pipeline.publish import FILES, MANIFEST

    folder = store.published_partition(system, pool, period)
    if not (folder / MANIFEST).is_file():
        return None
    for name, problem in published_problems(folder):
        raise damaged(folder / name, problem)
    from arpad.pipeline.systems import get_system

    columns = columns_of(get_system(system))
    frame = pl.read_parquet(folder / FILES["parquet"])
    missing = [c for c in columns if c not in frame.columns]  # an older publication
    return frame.with_columns(pl.lit(None, pl.String).alias(c) for c in missing).select(columns)


def frozen_source(store, system: str, pool: str, period: int) -> int | None:
    """The published period whose frozen list ``--in-force`` carries into ``period``
    (never published, one of ``carried_periods``: ``carried_list`` with ``frozen``),
    else None."""
    if period in store.published_periods(system, pool):
        return None
    if period not in carried_periods(store, system, pool, frozen=True):
        return None
    source = carried_source(store, system, pool, period, frozen=True)
    return source if source in store.published_periods(system, pool) else None


def revised_note(store, system: str, pool: str, period: int) -> str | None:
    """The note of ``--in-force`` showing the published list of ``period`` when the
    current ratings of the period differ from it (a correction since: ``arpad diff
    --published``), else None (never published, or nobody differs). A period never
    published whose list carries a published one (``frozen_source``) has the note of
    that one, naming both."""
    from arpad.pipeline.publish import diff
    from arpad.pipeline.systems import DEFAULT_SYSTEM

    which = (f" --system {system}" if system != DEFAULT_SYSTEM else "") + (
        f" --pool {pool}" if pool != "standard" else ""
    )
    if period not in store.published_periods(system, pool):
        source = frozen_source(store, system, pool, period)
        if source is None:
            return None
        changed, _ = diff(store, system, pool, source)
        if changed.height == 0:
            return None
        return (
            f"this is the {system}/{pool} list of period {source} as published (frozen), "
            f"carried forward into period {period} (no games of it); the ratings of "
            f"{changed.height} player(s) changed since: arpad diff --published {source}"
            f"{which} shows them, arpad list --period {period}{which} the current list"
        )
    # its games and ratings are gone (a carried list frozen has none: it has its source's)
    if period not in store.rating_periods(system, pool) and period not in carried_periods(
        store, system, pool
    ):
        return (
            f"this is the {system}/{pool} list of period {period} as published (frozen); "
            f"the store no longer holds its ratings (pool {pool} holds no games of that "
            "period now)"
        )
    changed, _ = diff(store, system, pool, period)
    if changed.height == 0:
        return None
    return (
        f"this is the {system}/{pool} list of period {period} as published (frozen); the "
        f"ratings of {changed.height} player(s) changed since: arpad diff --published "
        f"{period}{which} shows them, arpad list --period {period}{which} the current list"
    )


def rating_list(
    store,
    system: str,
    pool: str,
    period: int | None,
    top: int | None,
    date=None,
    min_games: int | None = None,
    in_force=None,
    frozen: bool = False,
):
    """(frame, period) for ``arpad list`` tables and the API: the ``TABLE_COLUMNS``
    (``in_force``, ``frozen``: as ``list_frame`` takes them)."""
    frame, period = list_frame(store, system, pool, period, top, date, min_games, in_force, frozen)
    return frame.select(table_columns(frame)), period


def _whole(col: pl.Series) -> pl.Series:
    """Whole numbers, rounded half away from zero (FIDE's rounding, docs/rules.md)."""
    from arpad.kernels.rounding import round_half_away_array

    values = col.cast(pl.Float64).to_numpy()
    mask = np.isnan(values)
    rounded = round_half_away_array(np.nan_to_num(values)).astype(np.int64)
    return pl.Series(col.name, rounded, dtype=pl.Int64).scatter(np.flatnonzero(mask), None)


def _rounded(col: pl.Series, digits: int) -> pl.Series:
    """``col`` rounded to ``digits`` decimals, half away from zero (``list_text.tenths``
    for one decimal)."""
    from arpad.kernels.rounding import round_half_away_array

    values = col.cast(pl.Float64).to_numpy()
    mask = np.isnan(values)
    scale = 10.0**digits
    rounded = round_half_away_array(np.nan_to_num(values) * scale) / scale
    return pl.Series(col.name, rounded, dtype=pl.Float64).scatter(np.flatnonzero(mask), None)


def _all_whole(col: pl.Series) -> bool:
    values = col.drop_nulls().cast(pl.Float64).to_numpy()
    values = values[~np.isnan(values)]
    return bool(np.all(values == np.round(values)))


# -- FIDE TXT (docs/lists.md "FIDE TXT") -----------------------------------------------
# (header, list column, start, width): 0-based start; every field is left-aligned and
# padded with spaces; the rating header is the list's month, FIDE's list date (DEC25).
FIDE_TXT_LAYOUT = (
    ("ID Number", "player_id", 0, 15),
    ("Name", "name", 15, 61),
    ("Fed", "federation", 76, 4),
    ("Sex", "sex", 80, 4),
    ("Tit", "title", 84, 5),
    ("WTit", "w_title", 89, 5),
    ("OTit", "o_title", 94, 15),
    ("FOA", "foa_title", 109, 4),
    (None, "rating", 113, 6),  # from here on per pool (the combined file has three)
    ("Gms", "games", 119, 4),
    ("K", "k", 123, 3),
    ("B-day", "birth_year", 126, 6),
    ("Flag", "flag", 132, 4),
)


# The leading player-field columns of FIDE_TXT_LAYOUT (ID Number .. FOA), shared with
# the combined file's layout (pipeline/combined.py).
FIDE_TXT_PLAYER_FIELDS = [column for _, column, _, _ in FIDE_TXT_LAYOUT].index("rating")


def rating_header(period: int) -> str:
    """The rating column's header: FIDE's name of the list, the month it takes effect
    (``list_date``: period 202611, November's games, is ``DEC26``); ``Rtg`` for
    abstract periods (docs/lists.md "Which month a list is")."""
    day = list_date(period)
    if day is None:
        return "Rtg"
    return f"{calendar.month_abbr[day.month].upper()}{day.year % 100:02d}"


ID_WIDTH = FIDE_TXT_LAYOUT[0][3]  # FIDE's ID Number column, one space kept before Name


def fide_txt_problem(ids) -> str | None:
    """Why ``ids`` cannot be written in FIDE's fixed-width files (an id longer than the
    ID Number column, as the file-scoped ids of PGN players are), else None."""
    long = [str(i) for i in ids if i is not None and len(str(i)) >= ID_WIDTH]
    if not long:
        return None
    return (
        f"{len(long)} player id(s) longer than FIDE's {ID_WIDTH - 1}-character ID Number "
        f"column (e.g. {long[0]!r})"
    )


# Control characters (a line break typed into a spreadsheet cell, a tab) and Unicode
# line separators: one would split or shift a fixed-width line (docs/lists.md).
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class TooWideError(ValueError):
    """A number longer than its fixed-width column (cutting it would write another
    number): the file is refused, as for an id that does not fit (docs/lists.md)."""


def fide_txt(frame: pl.DataFrame, period: int) -> str:
    """FIDE's fixed-width list file: the header line, then one line per player; ratings
    are whole numbers (rounded half away from zero for systems that keep decimals: the
    column has no room for them, as in the combined file)."""
    # whole numbers in the file: a decimal rating, and a decimal K (USCF's), rounded
    frame = frame.with_columns(
        _whole(frame[c]) for c in ("rating", "k") if frame[c].dtype.is_float()
    )
    layout = [(h or rating_header(period), c, s, w) for h, c, s, w in FIDE_TXT_LAYOUT]
    return txt_file(frame, layout)


def txt_file(frame: pl.DataFrame, layout) -> str:
    """A fixed-width file of ``frame`` in ``layout`` ((header, column, start, width)):
    the header line, then one line per player (list_text.fixed_width_lines)."""
    head = "".join(h.ljust(w) for h, _, _, w in layout).rstrip()
    ids = frame["player_id"]

    def too_wide(header, column, text, i):
        width = next(w for _, c, _, w in layout if c == column)
        if column == "player_id":
            raise ValueError(
                f"fide-txt: player id {text!r} is longer than {width - 1} characters "
                "(use --format csv or fide-xml)"
            )
        raise TooWideError(
            f"fide-txt: player {ids[i]}: {header} {text} does not fit its "
            f"{width - 1}-character column (use --format csv, json or fide-xml)"
        )

    lines = list_text.fixed_width_lines(frame, layout, _BREAKS, too_wide)
    return "\n".join([head, *lines]) + "\n"


# -- FIDE XML (docs/lists.md "FIDE XML") -----------------------------------------------
FIDE_XML_ELEMENTS = (
    ("fideid", "player_id"),
    ("name", "name"),
    ("country", "federation"),
    ("sex", "sex"),
    ("title", "title"),
    ("w_title", "w_title"),
    ("o_title", "o_title"),
    ("foa_title", "foa_title"),
    ("rating", "rating"),
    ("games", "games"),
    ("k", "k"),
    ("birthday", "birth_year"),
    ("flag", "flag"),
)
# Its leading player-field elements (fideid .. foa_title), shared with the combined file.
FIDE_XML_PLAYER_FIELDS = [column for _, column in FIDE_XML_ELEMENTS].index("rating")


# Characters XML 1.0 does not allow (control characters but tab, LF and CR; U+FFFE,
# U+FFFF): written raw they make the file unreadable to every XML parser.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def fide_xml(frame: pl.DataFrame, elements=FIDE_XML_ELEMENTS) -> str:
    """``<playerslist><player><fideid>…</player>…</playerslist>``, one element per
    (element, column) of ``elements`` in FIDE's order; an unknown value is an empty
    element."""
    # written as strings: ElementTree's output byte for byte, without its tree (list_text)
    return list_text.xml_list(
        frame.iter_rows(named=True), elements, lambda v: _NOT_XML.sub(" ", str(v))
    )


def write_list(
    frame: pl.DataFrame,
    period: int,
    fmt: str,
    out: str | None,
    root: Path | None = None,
    max_rows: int = 50,
) -> None:
    """Print or write (atomically) a list in ``fmt`` (``LIST_FORMATS``; ``txt`` is
    ``fide-txt``); ``root``: a store writing its own exports. FIDE's TXT and XML are
    alphabetical, as FIDE's download files (``list_text.alphabetical``); the table, CSV,
    JSON and Parquet keep the list's order, by rank (docs/lists.md). The table prints a
    system's own columns with their own decimals (Glicko-2's volatility 0.059996, where
    the table's one decimal would show 0.1)."""
    columns = table_columns(frame)
    if fmt in ("fide-txt", "txt", "fide-xml"):  # FIDE's download files: by name
        frame = list_text.alphabetical(frame)
    if fmt == "table":
        own = [c for c in columns if c not in LIST_COLUMNS and frame[c].dtype.is_float()]
        frame = frame.with_columns(
            pl.Series(c, [None if v is None else str(v) for v in frame[c]], pl.String) for c in own
        )
    emit(
        frame,
        fmt,
        out,
        lambda f: fide_txt(f, period),
        fide_xml,
        columns,
        root=root,
        max_rows=max_rows,
    )


def emit(
    frame: pl.DataFrame,
    fmt: str,
    out: str | None,
    txt: Callable[[pl.DataFrame], str],
    xml: Callable[[pl.DataFrame], str],
    table_columns,
    root: Path | None = None,
    max_rows: int = 50,
) -> None:
    """Print or write (atomically) ``frame`` in ``fmt``: FIDE's TXT or XML by the given
    writers, the other formats by ``output.render`` (the table view on ``table_columns``)."""
    if fmt in ("fide-txt", "txt"):
        text = txt(frame)
    elif fmt == "fide-xml":
        text = xml(frame)
    else:
        if fmt == "table":
            frame = frame.select(table_columns)
        output.render(frame, fmt, out, max_rows=max_rows, float_precision=1, root=root)
        return
    if out:
        atomic_write_text(text, Path(out), root)
    else:
        output.write_stdout(text)  # every byte, or exit 141 when the reader goes away
