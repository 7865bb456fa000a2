"""Published (frozen) lists and what has changed since (docs/lists.md "Published lists").

``publish`` writes the list of one period in every list-file format under
``STORE/published/system=S/pool=P/period=N/`` with ``manifest.json`` (file names and
sha256, when, the rules and run that produced the ratings, the ingest batches the
list was computed from) and a snapshot of the game ids of periods <= N
(``games.parquet``). A published list is never written again: publishing the same
period twice is refused (FIDE and USCF never revise a published list), and so is a
period before one already published (lists are frozen in order), and one after finished
months not published since the latest published list, which it would pass over for good
(``unpublished_before``; ``skip_earlier`` publishes it anyway).

``diff`` compares a published list with the current ("revised") ratings of the same
period after late corrections: per player the published and revised rating, the
change, and how many of the player's games in periods <= N were added, removed or
given another result since; ``corrections`` lists the ingests after the publication that touched
periods <= N.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import polars as pl
import pyarrow as pa

from arpad.pipeline import catalog, combined, incremental, trail
from arpad.pipeline.store import Store, atomic_write_parquet, atomic_write_text

# Format -> file name of a published list.
FILES = {
    "fide-txt": "list.txt",
    "fide-xml": "list.xml",
    "csv": "list.csv",
    "json": "list.json",
    "parquet": "list.parquet",
}
MANIFEST = "manifest.json"
GAMES = "games.parquet"
# FIDE's combined file (pipeline/combined.py), written when the system has more than
# one of the standard/rapid/blitz pools rated.
COMBINED = "combined.txt"

GAMES_SQL = """
SELECT game_id, white_id, black_id, score FROM games
WHERE pool = ? AND period <= ? ORDER BY game_id
"""


# ``diff``'s columns: games_* count the player's games in periods <= the list's that
# were added, removed or given another result since the publication.
DIFF_COLUMNS = (
    "player_id",
    "name",
    "published",
    "revised",
    "change",
    "games_added",
    "games_removed",
    "games_changed",
    "published_id",
)


class AlreadyPublishedError(ValueError):
    """The period's list is already published (bad input, exit 2)."""


class StaleListError(ValueError):
    """Games or players changed since the period was rated (bad input, exit 2): a frozen
    list must not miss a correction that is already in the store."""


class NotPublishedError(ValueError):
    """No published list of that period (bad input, exit 2)."""


class OutOfOrderError(ValueError):
    """A later period's list is already published (bad input, exit 2): lists are frozen
    in order, so that a month's frozen list never carries a correction the later frozen
    list missed (docs/lists.md "Lists are frozen in order")."""


class PassesOverError(ValueError):
    """Finished months after the latest frozen list are not published yet (bad input,
    exit 2): once a later period is frozen they never can be, lists being frozen in
    order (docs/lists.md "Lists are frozen in order"); ``skip_earlier`` lifts it."""


class NotRatedYetError(ValueError):
    """A finished month has games but no ratings yet (bad input, exit 2): rate first."""


class MonthInProgressError(ValueError):
    """The period is a month not over yet (bad input, exit 2): its list would be frozen
    before the month's last games are in, and a frozen list is never revised."""


def today() -> dt.date:
    """Today's date, UTC (one function, so that tests can pin the day)."""
    return dt.datetime.now(dt.timezone.utc).date()


def in_progress(period: int, day: dt.date | None = None) -> bool:
    """Whether ``period`` is a calendar month not finished on ``day`` (default: today,
    UTC): the current month or a later one. Abstract period numbers have no dates and
    are never in progress (docs/lists.md "Only finished months are frozen")."""
    from arpad.pipeline import periods

    day = day or today()
    return periods.is_calendar(period) and period >= periods.period_of_date(day)


def not_begun(period: int, day: dt.date | None = None) -> bool:
    """Whether ``period`` is a calendar month after the one ``day`` (default: today, UTC)
    is in: a month that has not begun, whose games are dated in the future."""
    from arpad.pipeline import periods

    day = day or today()
    return periods.is_calendar(period) and period > periods.period_of_date(day)


def month_state(period: int, day: dt.date | None = None) -> str | None:
    """``'in progress'`` (the current month), ``'not begun'`` (a later one) or None (a
    finished month, or an abstract period number)."""
    if not in_progress(period, day):
        return None
    return "not begun" if not_begun(period, day) else "in progress"


def in_progress_note(system: str, pool: str, period: int, day: dt.date | None = None) -> str:
    """The one line saying a month not over (``month_state``) was rated but not frozen:
    the current month is "in progress"; a later one "has not begun", and its games are
    dated after today (docs/lists.md "Only finished months are frozen")."""
    day = day or today()
    head = f"the {system}/{pool} list of period {period} is not published: "
    if not_begun(period, day):
        return (
            head + f"the month has not begun (today is {day.isoformat()}, UTC): its games are "
            "dated after today (check their dates); it is rated, and published once the "
            "month is over"
        )
    return (
        head + f"the month is in progress (today is {day.isoformat()}, UTC); it is rated, and "
        "published once the month is over"
    )


def not_finished(store: Store, system: str, pool: str, day: dt.date | None = None) -> list[int]:
    """The rated periods of ``system``/``pool`` whose month is not over on ``day`` (the
    current month and later ones, ``in_progress``), in order: never frozen without
    ``--force``."""
    day = day or today()
    return [p for p in store.rating_periods(system, pool) if in_progress(p, day)]


def period_to_publish(
    store: Store, system: str, pool: str, period: int | None = None, force: bool = False
) -> int:
    """The period ``publish`` freezes: ``period`` itself (refused while its month is in
    progress or has not begun, unless ``force``), or by default the latest rated period
    whose month is over (``in_progress``). A finished month with games not rated yet is
    refused when asked for, and by default when it is after that period."""
    day = today()
    if period is not None:
        if period in store.periods(pool) and period not in store.rating_periods(system, pool):
            raise NotRatedYetError(unrated_message(system, pool, [period]))
        if in_progress(period, day) and not force:
            state = (
                "a month that has not begun" if not_begun(period, day) else "a month in progress"
            )
            raise MonthInProgressError(
                f"period {period} is {state} (today is {day.isoformat()}, UTC): "
                "its list would be frozen before the month's last games are in, and a "
                "published list is never revised; publish it after the month ends, or give "
                "--force"
            )
        return period
    rated = store.rating_periods(system, pool)
    if not rated:
        raise store.no_ratings(system, pool)
    finished = [p for p in rated if not in_progress(p, day)]
    # A finished month ingested but not rated is the month the officer means to publish
    # (the officer's fourth attack: "already published" named October's list, with
    # November's games in the store unrated); an earlier one makes the ratings stale.
    unrated = not_rated_yet(store, system, pool, day)
    if later := [p for p in unrated if not finished or p > finished[-1]]:
        raise NotRatedYetError(unrated_message(system, pool, later))
    if not finished:
        notes = "; ".join(in_progress_note(system, pool, p, day) for p in rated)
        raise MonthInProgressError(
            f"{notes}; no earlier {system}/{pool} period is rated (give --period P --force "
            "to freeze it anyway)"
        )
    return finished[-1]


def not_rated_yet(store: Store, system: str, pool: str, day: dt.date | None = None) -> list[int]:
    """The finished periods of ``pool`` that hold games but no ``system`` ratings (a
    month ingested, not rated yet), in order."""
    day = day or today()
    rated = set(store.rating_periods(system, pool))
    return [p for p in store.periods(pool) if p not in rated and not in_progress(p, day)]


def unrated_message(system: str, pool: str, periods: list[int]) -> str:
    """The refusal naming the finished months not rated yet (``not_rated_yet``)."""
    which = ", ".join(map(str, periods))
    has = f"period {which} has" if len(periods) == 1 else f"periods {which} have"
    return (
        f"the {system}/{pool} {has} games that are not rated yet: run arpad rate "
        f"--system {system} --pool {pool} (or arpad recalculate) first, then publish"
    )


def later_published(store: Store, system: str, pool: str, period: int) -> str | None:
    """Why ``period``'s list cannot be frozen any more (a later period's list is
    published), else None."""
    later = [p for p in store.published_periods(system, pool) if p > period]
    if not later:
        return None
    return (
        f"the {system}/{pool} list of period {later[-1]} is already published and period "
        f"{period} is earlier: lists are frozen in order ({period}'s list frozen now would "
        f"disagree with {later[-1]}'s wherever a correction came in between); arpad list "
        f"--period {period} prints it without freezing it"
    )


def publish_words(system: str, pool: str) -> str:
    """``arpad publish`` with ``--system`` and ``--pool`` where they are not its defaults."""
    from arpad.pipeline.systems import DEFAULT_SYSTEM

    return (
        "arpad publish"
        + (f" --system {system}" if system != DEFAULT_SYSTEM else "")
        + (f" --pool {pool}" if pool != "standard" else "")
    )


def unpublished_before(
    store: Store, system: str, pool: str, period: int, day: dt.date | None = None
) -> list[int]:
    """The finished months before ``period`` and after the latest frozen list of
    ``system``/``pool`` that have a list (rated, or carried forward: a month without
    games, ``lists.carried_periods``) and are not published: publishing ``period`` would
    pass over them for good, lists being frozen in order. None on a store with nothing
    frozen yet (its first list may start anywhere)."""
    from arpad.pipeline.lists import carried_periods
    from arpad.pipeline.systems import get_system

    done = store.published_periods(system, pool)
    if not done or period <= done[-1]:
        return []
    day = day or today()
    rated = get_system(system).list_periods(store.rating_periods(system, pool))
    listed = {*rated, *carried_periods(store, system, pool)}
    return sorted(p for p in listed if done[-1] < p < period and not in_progress(p, day))


def passes_over_message(store: Store, system: str, pool: str, period: int, months) -> str:
    """``publish``'s refusal of ``period`` while ``months`` (``unpublished_before``) are
    not published: which, why, the commands that freeze them first, and ``--skip-earlier``
    (the officer's attack, round 15: ``publish --period 202611`` passed over 202609 and
    202610 without a word, and they could never be frozen)."""
    rated = set(store.rating_periods(system, pool))
    one = len(months) == 1
    which = ", ".join(str(p) if p in rated else f"{p} (no games)" for p in months)
    words = publish_words(system, pool)
    first = ", then ".join(f"{words} --period {p}" for p in months)
    return (
        f"the {system}/{pool} list{'' if one else 's'} of period{'' if one else 's'} {which} "
        f"{'is' if one else 'are'} not published, and lists are frozen in order: once period "
        f"{period} is published {'it' if one else 'they'} never can be; {first} "
        f"{'freezes it' if one else 'freeze them'} first, then {words} --period {period}; "
        f"or give --skip-earlier to publish period {period} and leave "
        f"{'it' if one else 'them'} unpublished"
    )


def waiting_quiet_hint(store: Store, system: str, pool: str, after: int) -> str:
    """``; …``: the finished months without games after ``after`` (the latest published
    list) whose list, the latest carried forward, is not published, and the command that
    freezes the first (docs/lists.md "A month without games"); "" when there are none."""
    from arpad.pipeline.lists import carried_periods

    rated = set(store.rating_periods(system, pool))
    day = today()
    months = [
        p
        for p in carried_periods(store, system, pool)
        if p > after and p not in rated and not in_progress(p, day)
    ]
    if not months:
        return ""
    one = len(months) == 1
    some = f"period {months[0]} has" if one else f"periods {months[0]}-{months[-1]} have"
    return (
        f"; {some} no games: {publish_words(system, pool)} --period {months[0]} freezes "
        f"{'its list' if one else 'the first'} (the latest list carried forward)"
    )


def nothing_new_message(store: Store, system: str, pool: str, period: int) -> str:
    """``publish`` without ``--period`` when ``period``, the latest rated month that is
    over, is published: the latest published list (a later month without games frozen by
    hand: it said "the list of period 202608 is already published" with 202611 the
    latest published, the officer's attack, round 15) and any month without games
    waiting (``waiting_quiet_hint``)."""
    done = store.published_periods(system, pool)
    latest = done[-1]
    folder = store.published_partition(system, pool, latest)
    if latest == period:
        head = f"the {system}/{pool} list of period {period} is already published ({folder})"
    else:
        carried = read_manifest(store, system, pool, latest).get("carried_from")
        kind = (
            f", the list of period {carried} carried forward into a month without games"
            if carried is not None
            else ""
        )
        head = (
            f"nothing to publish: the latest published {system}/{pool} list is of period "
            f"{latest}{kind} ({folder}), after {period}, the latest rated month that is over"
        )
    return (
        head
        + waiting_quiet_hint(store, system, pool, latest)
        + "; a published list is never revised: see arpad diff --published"
    )


def _sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _distinct(table: pa.Table, column: str) -> list:
    if column not in table.column_names:
        return []
    return sorted(v for v in set(table.column(column).to_pylist()) if v is not None)


def out_of_date(store: Store, system: str, pool: str, period: int) -> str | None:
    """Why the ratings of ``period`` are stale (games or players changed since it was
    rated: a correction, a late result, a merge), else None."""
    if pid := incremental.rate_in_progress(store, system, pool):
        return (
            f"an arpad rate of {system}/{pool} is in progress (pid {pid}): its periods may "
            "be missing or being replaced; read again when it ends"
        )
    if incremental.interrupted(store, system, pool):
        return (
            f"the last arpad rate of {system}/{pool} was interrupted (its journal "
            f"STORE/runs/system={system}/pool={pool}.json still says running): its periods "
            f"may mix two runs; run arpad rate --system {system} --pool {pool} again first"
        )
    stale = incremental.read_stale(store).get(f"{system}/{pool}")
    if stale is None or stale > period:
        return None
    since = f"period {stale}" if stale != incremental.FROM_FIRST else "the first period"
    return (
        f"the {system}/{pool} ratings of period {period} are out of date: games or "
        f"players changed since they were rated (stale from {since}); run arpad rate "
        f"--system {system} --pool {pool} first"
    )


def publish(
    store: Store,
    system: str,
    pool: str = "standard",
    period: int | None = None,
    force: bool = False,
    skip_earlier: bool = False,
) -> dict:
    """Freeze the list of ``period`` (default: the latest rated period whose month is
    over); returns the manifest. A month in progress is refused unless ``force``
    (``period_to_publish``), and so is a period before one already published
    (``later_published``), and one after finished months with a list that are not
    published since the latest frozen list (``unpublished_before``: they could never be
    frozen after it) unless ``skip_earlier``: the result's ``passed_over`` names them. A period in which the pool has no games but has its latest
    list carried forward (``lists.carried_periods``: another of the combined file's
    pools has a list of it, or a finished month without games, ``lists.quiet_months``)
    freezes that carried list, as any other: the manifest's
    ``carried_from`` names the period carried, and its rules and run ids are that
    period's (docs/lists.md "A pool without games in a period"). The caller holds the
    store's writer lock."""
    from arpad.pipeline.lists import TooWideError, fide_txt_problem, list_frame, write_list

    asked = period
    period = period_to_publish(store, system, pool, period, force)
    if asked is None and period in store.published_periods(system, pool):
        raise AlreadyPublishedError(nothing_new_message(store, system, pool, period))
    source = None  # the period whose list a carried list carries (``carried_from``)
    if period not in store.rating_periods(system, pool):  # no ratings of it (docs/lists.md)
        from arpad.pipeline.lists import carried_periods, carried_source

        if period not in carried_periods(store, system, pool):
            raise ValueError(
                f"no {system}/{pool} ratings of period {period} to publish: pool {pool} has "
                "no rated games in it, and no list of it is carried forward (docs/lists.md "
                '"A pool without games in a period")'
            )
        # FIDE publishes its lists every month: a month without games in the pool (or in
        # any pool) freezes its latest list carried forward, as ``arpad list`` prints it
        source = carried_source(store, system, pool, period)
    frame, period = list_frame(store, system, pool, period)
    folder = store.published_partition(system, pool, period)
    if (folder / MANIFEST).exists():
        raise AlreadyPublishedError(
            f"the {system}/{pool} list of period {period} is already published "
            f"({folder}); a published list is never revised: see arpad diff --published"
        )
    if problem := later_published(store, system, pool, period):
        raise OutOfOrderError(problem)
    passed = unpublished_before(store, system, pool, period)
    if passed and not skip_earlier:
        raise PassesOverError(passes_over_message(store, system, pool, period, passed))
    if problem := out_of_date(store, system, pool, period):
        raise StaleListError(f"{problem}, then publish")
    # FIDE's fixed-width files need ids that fit its ID Number column; a store of
    # file-scoped ids (a historian's PGN players) publishes the other formats and says why.
    skipped: dict[str, str] = {}
    fixed_width = fide_txt_problem(frame["player_id"].to_list())
    written = []
    for fmt, name in FILES.items():
        if fmt == "fide-txt" and fixed_width:
            skipped[name] = fixed_width
            continue
        try:
            write_list(frame, period, fmt, str(folder / name), root=store.root)
        except TooWideError as exc:  # a number wider than its column (docs/lists.md)
            skipped[name] = str(exc)
            continue
        written.append(name)
    if len(combined.rated_pools(store, system)) > 1:
        both, _ = combined.combined_frame(store, system, period)
        problem = fide_txt_problem(both["player_id"].to_list())
        if problem:
            skipped[COMBINED] = problem
        else:
            try:
                combined.write_combined(both, "fide-txt", str(folder / COMBINED), root=store.root)
                written.append(COMBINED)
            except TooWideError as exc:
                skipped[COMBINED] = str(exc)
    con = catalog.connect(store)
    try:
        games = catalog.query_arrow(con, GAMES_SQL, [pool, period])
    finally:
        con.close()
    atomic_write_parquet(games, folder / GAMES, store.root)
    # (a carried list: the rules and runs of the ratings it carries)
    ratings = store.read_ratings(system, pool, period if source is None else source)
    manifest = {
        "system": system,
        "pool": pool,
        "period": period,
        **({} if source is None else {"carried_from": source}),
        "published_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "players": frame.height,
        "rules": _distinct(ratings, "rules"),
        "rules_hash": _distinct(ratings, "rules_hash"),
        "run_id": _distinct(ratings, "run_id"),
        "batches": sorted(store.read_manifest().column("batch").to_pylist()),
        **trail.marks(store),  # what of the trail came before (pipeline/trail.py)
        "files": {name: _sha256(folder / name) for name in (*written, GAMES)},
        "skipped": skipped,  # list files not written, with the reason
    }
    # The manifest last: its presence is what makes the period published.
    atomic_write_text(json.dumps(manifest, indent=2) + "\n", folder / MANIFEST, store.root)
    # (not in manifest.json) the listed players whose only rating in a rapid or blitz
    # pool is a players file's rating of every pool: ``every_pool_note`` says so
    seeded = every_pool_seeded(store, pool, period, frame["player_id"].to_list(), games)
    return {**manifest, EVERY_POOL: len(seeded), PASSED_OVER: passed}


# ``publish``'s result (not manifest.json): how many listed players ``every_pool_seeded``
# counts (the officer's report, round 13).
EVERY_POOL = "every_pool_seeded"
# ``publish``'s result (not manifest.json): the months ``skip_earlier`` passed over
# (``unpublished_before``), never to be frozen.
PASSED_OVER = "passed_over"


def every_pool_seeded(
    store: Store, pool: str, period: int, player_ids: list[str], games: pa.Table | None = None
) -> list[str]:
    """The players of ``player_ids`` (a ``pool`` list of ``period``) without a game of
    ``pool`` in a period <= ``period`` whose start in ``pool`` is the undated rating of a
    players file without a ``pool`` column, a rating of every pool (the latest undated
    row of ``pool`` or of no pool has none, ``observations.latest_undated``; no dated row
    of ``pool`` rates them): the register's standard ratings listed, 0 games, on a rapid
    or blitz list (docs/observations.md "Undated ratings and pools"). None for the
    standard pool. ``games``: the pool's games of periods <= ``period`` (white_id,
    black_id; ``GAMES_SQL``), read when None. Merged duplicates count as their keep."""
    from arpad.pipeline import identity, schemas

    if pool == schemas.POOLS[0] or not player_ids:
        return []
    obs = identity.read_observations(store).filter(
        pl.col("rating").is_not_null() & (pl.col("pool").is_null() | (pl.col("pool") == pool))
    )
    if obs.filter(pl.col("period").is_null() & pl.col("pool").is_null()).is_empty():
        return []
    aliases = identity.alias_map(store)
    if aliases:
        obs = obs.with_columns(pl.col("player_id").replace(aliases))
    order = store.read_manifest().column("source").to_pylist()
    place = {source: i for i, source in enumerate(order)}
    latest = (
        obs.filter(pl.col("period").is_null())
        .with_columns(
            pl.col("source").replace_strict(place, default=-1, return_dtype=pl.Int64).alias("_at"),
            pl.col("line").fill_null(-1),
        )
        .sort("_at", "line")
        .group_by("player_id")
        .agg(pl.col("pool").last())
    )
    seeded = set(latest.filter(pl.col("pool").is_null()).get_column("player_id").to_list())
    # a dated rating of the pool by the list's period: a rating in it (FIDE's RRtng)
    rated = obs.filter(pl.col("period").is_not_null() & (pl.col("period") <= period))
    seeded -= set(rated.filter(pl.col("pool") == pool).get_column("player_id").to_list())
    if games is None:
        con = catalog.connect(store)
        try:
            games = catalog.query_arrow(con, GAMES_SQL, [pool, period])
        finally:
            con.close()
    played = {*games.column("white_id").to_pylist(), *games.column("black_id").to_pylist()}
    played |= {aliases[p] for p in played if p in aliases}
    return sorted(p for p in player_ids if p in seeded and p not in played)


def every_pool_note(system: str, pool: str, period: int, seeded: int, listed: int) -> str:
    """The note of ``seeded`` players (``every_pool_seeded``) among the ``listed`` of the
    ``system``/``pool`` list of ``period`` (``arpad publish``, the monthly report)."""
    return (
        f"{seeded} of the {listed} players on the {system}/{pool} list of period {period} "
        f"never played a {pool} game: they are listed (0 games) from the rating a players "
        "file without a pool column gives them in every pool (docs/observations.md "
        '"Undated ratings and pools"); if such a file gives standard ratings, head its '
        "rating column SRtng (or standard_rating), or add a pool column, and ingest each "
        "such file again"
    )


def read_manifest(store: Store, system: str, pool: str, period: int) -> dict:
    path = store.published_partition(system, pool, period) / MANIFEST
    if not path.exists():
        published = store.published_periods(system, pool)
        raise NotPublishedError(
            f"no published {system}/{pool} list of period {period} "
            f"(published: {', '.join(map(str, published)) or 'none'}; arpad publish)"
        )
    from arpad.pipeline.integrity import open_json  # a damaged manifest is named

    return open_json(path)


def corrections(store: Store, manifest: dict) -> pl.DataFrame:
    """The ingested versions (and merges) since the publication that touched its
    period or an earlier one (pipeline/trail.py ``since``)."""
    from arpad.pipeline import trail

    return trail.since(store, manifest)


def diff(store: Store, system: str, pool: str, period: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(players, corrections): every player whose rating on the published list of
    ``period`` differs from the current one (or who is on only one of them), with
    published, revised, change and ``games_*`` (their games in periods <=
    ``period`` added, removed or given another result since the publication)."""
    from arpad.pipeline.integrity import damaged, published_problems
    from arpad.pipeline.lists import list_frame

    manifest = read_manifest(store, system, pool, period)
    folder = store.published_partition(system, pool, period)
    for name, problem in published_problems(folder):  # compared with a list edited by hand?
        raise damaged(folder / name, problem)
    frozen = pl.read_parquet(folder / FILES["parquet"])
    # Whole-number lists (FIDE, USCF, …; docs/lists.md) are compared in whole numbers.
    whole = frozen["rating"].dtype.is_integer()
    published = frozen.select(
        "player_id", "name", pl.col("rating").cast(pl.Float64).alias("published")
    )
    try:
        current, _ = list_frame(store, system, pool, period)
        whole = whole and current["rating"].dtype.is_integer()
        revised = current.select(
            "player_id", pl.col("name").alias("name_now"), pl.col("rating").cast(pl.Float64)
        ).rename({"rating": "revised"})
    except ValueError:  # the period has no list any more
        revised = pl.DataFrame(
            schema={"player_id": pl.String, "name_now": pl.String, "revised": pl.Float64}
        )
    from arpad.pipeline.identity import alias_map

    aliases = alias_map(store)  # a merged duplicate's games count as its keep's
    published = as_kept(published, revised, aliases)
    both = published.join(revised, on="player_id", how="full", coalesce=True)
    both = both.with_columns(
        pl.coalesce("name", "name_now").alias("name"),
        (pl.col("revised") - pl.col("published")).alias("change"),
    ).filter((pl.col("published") != pl.col("revised")).fill_null(True))
    old = pl.read_parquet(folder / GAMES)
    con = catalog.connect(store)
    try:
        now = pl.from_arrow(catalog.query_arrow(con, GAMES_SQL, [pool, period]))
    finally:
        con.close()

    def per_player(games: pl.DataFrame, name: str) -> pl.DataFrame:
        ids = pl.concat(
            [
                games.select(pl.col("white_id").alias("player_id")),
                games.select(pl.col("black_id").alias("player_id")),
            ]
        )
        if aliases:
            ids = ids.with_columns(pl.col("player_id").replace(aliases))
        return ids.group_by("player_id").len(name=name)

    added = per_player(now.join(old, on="game_id", how="anti"), "games_added")
    removed = per_player(old.join(now, on="game_id", how="anti"), "games_removed")
    rescored = now.join(old.select("game_id", pl.col("score").alias("old")), on="game_id")
    changed = per_player(rescored.filter(pl.col("score") != pl.col("old")), "games_changed")
    out = (
        both.join(added, on="player_id", how="left")
        .join(removed, on="player_id", how="left")
        .join(changed, on="player_id", how="left")
        .with_columns(
            pl.col(c).fill_null(0).cast(pl.Int64)
            for c in ("games_added", "games_removed", "games_changed")
        )
        .select(DIFF_COLUMNS)
        .sort("player_id")
    )
    if whole:
        out = out.with_columns(pl.col(c).cast(pl.Int64) for c in ("published", "revised", "change"))
    return out, corrections(store, manifest)


def as_kept(published: pl.DataFrame, revised: pl.DataFrame, aliases: dict) -> pl.DataFrame:
    """The frozen list's rows (``player_id``, …) with ``published_id``: a merged
    duplicate's row is his keep's, and ``published_id`` the id the list has, when the
    revised list has the keep and the frozen list has neither the keep nor another of his
    duplicates (an id change: FIDE's old id frozen, the new one kept, docs/identity.md "An
    id change"); else null, each row under its own id (a list frozen with one player under
    two ids keeps both rows: "Frozen lists with a duplicate id", docs/operations.md)."""
    published = published.with_columns(pl.lit(None, pl.String).alias("published_id"))
    if not aliases:
        return published
    ids = pl.col("player_id")
    keep = ids.replace_strict(aliases, default=None, return_dtype=pl.String)
    moved = (
        keep.is_not_null()
        & (keep.count().over(keep) == 1)  # no other of his duplicates on the list
        & ~keep.is_in(published.get_column("player_id").implode())
        & keep.is_in(revised.get_column("player_id").implode())
    ).fill_null(False)
    return published.with_columns(
        pl.when(moved).then(keep).otherwise(ids).alias("player_id"),
        pl.when(moved).then(ids).alias("published_id"),
    )


def renamed(store: Store, system: str, pool: str, period: int) -> pl.DataFrame:
    """(player_id, published, now): the players whose name on the published list of
    ``period`` is not their name in the players table now. A name corrected by a players
    file (a code page put right, a typo) changes no rating, so ``diff`` lists no change
    for it and the trail records no stale mark; the frozen list keeps the old name and
    the next list carries the new one (the officer's report of round 9: the frozen list
    said "Szûcs", diff said nothing changed)."""
    frozen = pl.read_parquet(store.published_partition(system, pool, period) / FILES["parquet"])
    players = pl.from_arrow(store.read_players().select(["player_id", "name"]))
    return (
        frozen.select("player_id", pl.col("name").alias("published"))
        .join(players.rename({"name": "now"}), on="player_id")
        .filter(pl.col("now").is_not_null() & (pl.col("published") != pl.col("now")))
        .sort("player_id")
    )


def freeze(
    store: Store,
    system: str,
    pool: str = "standard",
    period: int | None = None,
    wait: float = 0.0,
    force: bool = False,
    skip_earlier: bool = False,
) -> dict:
    """``arpad publish``: ``publish`` under the store's writer lock (a failure leaves
    no half-published folder: the lock's undo journal removes what was written)."""
    with store.writer_lock("arpad publish", wait=wait):
        return publish(store, system, pool, period, force, skip_earlier)
