"""Each job arpad runs, defined once: a request (what to do) and its ordered steps.

The CLI parses its arguments into a request and calls the job; the Python API
(``import arpad``) builds the same requests; the Prefect flows (flows/) call the
same job functions with a runner that turns each step into a tracked task. How
the steps run — in this process, with independent units on Dask, or as Prefect
tasks — is the runner's business (pipeline/runner.py, docs/runners.md); what
they do is written here and nowhere else.

| job | request | steps |
|---|---|---|
| ingest | IngestRequest | read each file (side by side on Dask), store each file, refresh catalog |
| rate | RateRequest | plan (incremental start), rate the periods, record the run, refresh catalog |
| reconstruct | ReconstructRequest | rate every system × pool (side by side), record, refresh |
| recalculate | RecalculateRequest | ingest the inbox, plan, rate (side by side), record, refresh, publish, report |
| whatif | WhatIfRequest | replay side A and side B (side by side), compare |
| backtest | BacktestRequest | load the data, score each system (side by side), table |
| merge_players | MergeRequest | merge (or split) each pair, mark stale, refresh catalog |

Every job that writes the store holds its single-writer lock for its whole run.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arpad.pipeline import catalog, incremental, names
from arpad.pipeline.errors import InputError
from arpad.pipeline.runner import LOCAL, Runner, Stage, map_by_cost, on_dask_worker
from arpad.pipeline.store import Store

Progress = Callable[[int, int, int], None]


def _absolute(path: str | Path) -> str:
    return str(Path(path).expanduser().resolve())


def _existing_store(root: str) -> Store:
    from arpad.pipeline.store import check_store_path

    check_store_path(Path(root))
    store = Store(root)
    if not store.exists():
        raise FileNotFoundError(f"no store at {root} (ingest something first)")
    return store


def _check_wait(wait: float) -> None:
    if not (wait >= 0 and math.isfinite(wait)):
        raise ValueError(f"--wait takes a number of seconds >= 0, got {wait}")


def _check_systems(systems: list[str] | None) -> None:
    from arpad.pipeline.systems import get_system

    names.systems(systems)  # a name that could become a path is refused first
    for s in systems or []:
        get_system(s)  # ValueError naming the known systems; imports only the named ones


def _check_pools(pools: list[str] | None) -> None:
    """Each pool one of the schema's: an unknown one (``--pools standrad``) planned
    nothing, and the monthly job said "up to date" (docs/runners.md)."""
    from arpad.pipeline.schemas import POOLS

    names.pools(pools)  # a name that could become a path is refused first
    for p in pools or []:
        if p not in POOLS:
            raise ValueError(f"--pools: {p!r} is not one of {', '.join(POOLS)}")


def _check_read_options(fmt: str | None, mapping: str | None) -> None:
    """``--format``/``--mapping`` of a job that reads files it finds later (the monthly
    job's inbox): an unknown one is refused before anything is read or moved, as
    ``arpad ingest`` refuses an unknown mapping (docs/cli.md)."""
    if fmt is None and mapping is None:
        return
    from arpad.pipeline import readers

    if fmt is not None and fmt.strip().lower() not in readers.READERS:
        raise ValueError(f"--format {fmt}: unknown format (known: {', '.join(readers.READERS)})")
    if mapping is not None and mapping not in readers.MAPPINGS:
        known = ", ".join(readers.MAPPINGS)
        raise ValueError(f"--mapping {mapping}: unknown mapping (known: {known})")


def _check_encoding(encoding: str | None) -> str | None:
    """``--encoding NAME`` as Python's name of the codec (``readers.encoding_name``: an
    unknown one is a one-line ValueError), or None."""
    if encoding is None:
        return None
    if not isinstance(encoding, str):  # encoding=1250 from Python: one line, not AttributeError
        raise ValueError(f"--encoding: a code page's name is text ('cp1250', …), not {encoding!r}")
    from arpad.pipeline.readers import encoding_name

    return encoding_name(encoding)


# -- ingest ---------------------------------------------------------------------------------
@dataclass
class IngestRequest:
    store: str
    files: list[str]
    players: list[str] = field(default_factory=list)
    fmt: str | None = None
    mapping: str | None = None
    replace: bool = False
    wait: float = 0.0
    source: str | None = None  # --source NAME: the one games file's source identity
    keep_probable_duplicates: bool = False  # PGN/TRF (docs/pgn-trf.md "Probable duplicates")
    pool: str | None = None  # --pool: every game of the games files in this pool
    ignore_stated_ratings: bool = False  # --ignore-stated-ratings (docs/observations.md)
    rate_moveless: bool = False  # --rate-moveless: PGN games without moves rated (pgn-trf.md)
    # --encoding: the code page of files that are not UTF-8 (docs/ingest.md "Encodings")
    encoding: str | None = None

    def __post_init__(self):
        self.encoding = _check_encoding(self.encoding)
        self.store = _absolute(self.store)
        self.files = [str(f) for f in self.files]
        if self.source is not None:
            names.source_name(self.source)
            if len(self.files) != 1:
                raise ValueError("--source names one games file; give exactly one")
        self.players = [str(p) for p in self.players]
        if self.pool is not None and self.pool not in ("standard", "rapid", "blitz"):
            raise ValueError(f"--pool: {self.pool!r} is not one of standard, rapid, blitz")
        _check_wait(self.wait)
        from arpad.pipeline.readers import check_input_file
        from arpad.pipeline.store import check_store_path

        check_store_path(Path(self.store))
        for path in [*self.players, *self.files]:
            check_input_file(Path(path))
        # Absolute, as the store: Dask workers running in other folders read the files,
        # and a flow run's parameters name them (docs/runners.md). Messages name each
        # file as it was given (``given``); its source identity is still its path
        # relative to the working directory (ingest.source_identity).
        self.given = {os.path.abspath(p): p for p in [*self.players, *self.files]}
        self.files = [os.path.abspath(f) for f in self.files]
        self.players = [os.path.abspath(p) for p in self.players]

    def named(self, path: str, found):
        """``found`` (a FileReport, or the InputError a file raised) naming ``path`` as
        it was given (``arpad ingest games.csv``: games.csv, not its absolute path)."""
        given = self.given.get(path, path)
        if given == path:
            return found
        if isinstance(found, InputError):
            if found.path != path:
                return found
            return type(found)(given, found.line, found.problem)  # as pickled (errors.py)
        found.path = given
        found.examples = [
            given + e[len(path) :] if e.startswith(f"{path}:") else e for e in found.examples
        ]
        return found

    def items(self) -> list[tuple[str, str | None]]:
        """(path, kind) in ingest order: players files first, so games find their players."""
        return [*((p, "players") for p in self.players), *((f, None) for f in self.files)]


def read_file(
    path: str, kind: str | None, fmt: str | None, mapping: str | None, encoding: str | None = None
):
    """Step: read and parse one input file (no store access; runs on any worker)."""
    from arpad.pipeline.readers import read_any

    if kind == "players":
        return read_any(Path(path), kind="players", encoding=encoding)
    return read_any(Path(path), fmt=fmt, mapping=mapping, encoding=encoding)


def store_file(
    store_root: str,
    path: str,
    kind,
    fmt,
    mapping,
    raw,
    replace: bool,
    source: str | None = None,
    keep_probable_duplicates: bool = False,
    pool: str | None = None,
    ignore_stated_ratings: bool = False,
    rate_moveless: bool = False,
    encoding: str | None = None,
):
    """Step: validate one file and store it (manifest, partitions, players, quarantine),
    as one atomic transition (pipeline/journal.py). ``encoding``: ``--encoding``, for
    bytes stored already (``raw`` None: ingest_file reads them again in it)."""
    from arpad.pipeline.ingest import ingest_file

    if kind == "players":
        return ingest_file(Store(store_root), path, kind="players", raw=raw, encoding=encoding)
    return ingest_file(
        Store(store_root),
        path,
        fmt=fmt,
        mapping=mapping,
        raw=raw,
        replace=replace,
        source=source,
        keep_probable_duplicates=keep_probable_duplicates,
        pool=pool,
        ignore_stated_ratings=ignore_stated_ratings,
        rate_moveless=rate_moveless,
        encoding=encoding,
    )


def refresh_catalog(store_root: str) -> str:
    """Step: rebuild the catalog's views over the store."""
    return str(catalog.refresh(Store(store_root)))


def read_ahead(store: Store, items, fmt, mapping, runner: Runner, encoding=None) -> dict:
    """On a parallel runner: read every file whose content is not stored yet, side by
    side; path -> RawTable (or the InputError it raised). Empty otherwise."""
    if not runner.parallel:
        return {}
    from arpad.pipeline.ingest import sha256_file

    known = set(store.read_manifest().column("sha256").to_pylist())
    todo = [(p, k) for p, k in items if sha256_file(Path(p)) not in known]
    results = runner.map(
        _read_or_error,
        [(p, k, fmt, mapping, encoding) for p, k in todo],
        names=[f"read-{Path(p).name}" for p, _ in todo],
        io=True,
    )
    return {p: r for (p, _), r in zip(todo, results)}


def _read_or_error(path, kind, fmt, mapping, encoding=None):
    try:
        return read_file(path, kind, fmt, mapping, encoding)
    except InputError as exc:
        return exc


def _read_here(store: Store, ahead: dict, path: str, kind, fmt, mapping, encoding):
    """The file as ``read_ahead`` read it, else, with ``--encoding`` (which the store step
    does not take), a text file not stored yet read here in it (or the InputError it
    raised); None leaves the reading to the store step: no encoding, a Parquet file
    (streamed, no encoding) or bytes already stored (skipped unread)."""
    if path in ahead or not encoding:
        return ahead.get(path)
    from arpad.pipeline.ingest import sha256_file
    from arpad.pipeline.readers import detect_format

    try:
        if kind != "players" and (fmt or detect_format(Path(path))).strip().lower() == "parquet":
            return None
    except InputError as exc:
        return exc
    if sha256_file(Path(path)) in set(store.read_manifest().column("sha256").to_pylist()):
        return None
    return _read_or_error(path, kind, fmt, mapping, encoding)


def ingest(req: IngestRequest, runner: Runner = LOCAL):
    """Ingest files into the store (players files first); returns an IngestReport."""
    from arpad.pipeline.ingest import IngestReport, check_before_reading

    store = Store(req.store)
    with store.writer_lock("arpad ingest", wait=req.wait):
        store.ensure()
        items = req.items()
        try:  # a bad file refuses the command before any file is read (docs/pgn-trf.md)
            check_before_reading(store, items, req.fmt, req.mapping)
        except InputError as exc:
            raise req.named(exc.path, exc) from None
        ahead = read_ahead(store, items, req.fmt, req.mapping, runner, req.encoding)
        reports = []
        for path, kind in items:
            raw = _read_here(store, ahead, path, kind, req.fmt, req.mapping, req.encoding)
            if isinstance(raw, InputError):
                raise req.named(path, raw)
            try:
                report = runner.step(
                    store_file,
                    req.store,
                    path,
                    kind,
                    req.fmt,
                    req.mapping,
                    raw,
                    req.replace,
                    req.source,
                    req.keep_probable_duplicates,
                    req.pool,
                    req.ignore_stated_ratings,
                    req.rate_moveless,
                    req.encoding,
                    name=f"ingest-{Path(path).name}",
                    io=True,
                )
            except InputError as exc:
                raise req.named(path, exc) from None
            reports.append(req.named(path, report))
        runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
    report = IngestReport(reports, req.store)
    runner.info(
        f"ingest: {len(reports):,} files, {sum(r.accepted for r in reports):,} rows stored, "
        f"{report.quarantined:,} quarantined"
    )
    return report


# -- rate -----------------------------------------------------------------------------------
@dataclass
class RateRequest:
    store: str
    system: str
    pool: str = "standard"
    start: int | None = None
    end: int | None = None
    rules: str | None = None  # --rules DATE|FILE (None: the versions in force per period)
    overrides: dict[str, str] = field(default_factory=dict)
    full: bool = False  # from the first period even when only later periods are stale
    shards: int | None = None
    wait: float = 0.0
    checkpoint_every: int | None = None  # None: the default (pipeline/checkpoints.py)

    def __post_init__(self):
        self.store = _absolute(self.store)
        self.overrides = dict(self.overrides or {})
        if self.rules is not None and (
            Path(self.rules).suffix == ".json" or Path(self.rules).exists()
        ):  # a rules file (engine.resolve_rules): recorded as found from any folder, for
            # the monthly job that keeps it (``serve``'s worker runs elsewhere)
            self.rules = _absolute(self.rules)
        names.pool(self.pool)
        _check_systems([self.system])
        _check_wait(self.wait)
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError(f"--from {self.start} is after --to {self.end}")
        if self.shards is not None and self.shards < 1:
            raise ValueError(f"--shards must be at least 1, got {self.shards}")
        if self.checkpoint_every is not None and self.checkpoint_every < 1:
            raise ValueError(f"--checkpoint-every must be at least 1, got {self.checkpoint_every}")
        if self.overrides or self.rules:
            # Bad rule names or values fail here, before any work.
            from arpad.pipeline.engine import check_run_rules

            check_run_rules(self.system, self.rules, self.overrides, self.pool)

    @property
    def label(self) -> str:
        return f"{self.system}/{self.pool}"


def check_pool(store: Store, pool: str, start: int | None = None, end: int | None = None) -> None:
    """A pool with no stored games, or a range with no period, is bad input."""
    pools = store.pools()
    if pool not in pools:
        known = ", ".join(pools) or "none"
        raise ValueError(f"no games stored in pool {pool!r} (pools in the store: {known})")
    periods = store.periods(pool)
    if not [p for p in periods if (start is None or p >= start) and (end is None or p <= end)]:
        window = " and ".join(
            f"{flag} {value}" for flag, value in (("--from", start), ("--to", end)) if value
        )
        stored = f"stored periods: {periods[0]}..{periods[-1]}" if periods else "none stored"
        raise ValueError(f"no {pool} games with {window} ({stored})")


def _gameless(
    store: Store, systems: list[str] | None = None, pools: list[str] | None = None
) -> list[tuple[str, str]]:
    """The rated (system, pool) pairs of ``systems``/``pools`` (default all) whose pool
    holds no game now: what ``drop_gameless_ratings`` removes. Read without a step, so
    that the runs of a store with none (nearly every run) log no extra step."""
    with_games = set(store.pools())
    return [
        (system, pool)
        for system, pool in store.rated()
        if pool not in with_games
        and (not systems or system in systems)
        and (not pools or pool in pools)
    ]


def _drop_gameless(runner, store: Store, systems, pools) -> list:
    """``drop_gameless_ratings`` as a step, when there is anything to drop."""
    if not _gameless(store, systems, pools):
        return []
    return runner.step(drop_gameless_ratings, store, systems, pools, name="drop-gameless", io=True)


def drop_gameless_ratings(
    store: Store, systems: list[str] | None = None, pools: list[str] | None = None
) -> list:
    """Step: remove the ratings and checkpoints of each rated system/pool (of ``systems``
    and ``pools``, default all) whose pool holds no game now: all its games went to
    another pool (``arpad ingest FILE --pool standard``) or its source was corrected to
    no game. They rated games that are gone, as the engine removes the ratings of a
    period left with no game. Frozen lists (``STORE/published``) and exports are
    history and stay. One summary per system/pool removed, its ``skipped`` saying so
    (docs/store.md "A pool left with no games")."""
    from arpad.pipeline.engine import RateSummary

    out = []
    for system, pool in _gameless(store, systems, pools):
        periods = store.rating_periods(system, pool)
        # The whole system/pool folders (no empty one left for an ingest to mark stale),
        # the per-game reports inside the ratings' too.
        for period_folder in (store.rating_partition, store.state_partition):
            store.remove_tree(period_folder(system, pool, 1).parent)
        span = str(periods[0]) if len(periods) == 1 else f"{periods[0]}..{periods[-1]}"
        reason = (
            f"pool {pool} holds no games now; its ratings of {len(periods)} period(s) "
            f"({span}) were removed (published lists stay)"
        )
        out.append(RateSummary(system, pool, skipped=reason))
    return out


def has_published_ratings(store: Store, pool: str | None = None) -> bool:
    """True when a published rating starts at least one player of ``pool``, as a run of
    a seeding system picks them (``observations.has_pool_seeds``: an undated
    players-file rating of the pool or of every pool, a dated one of the pool, a rating
    in the pool's games; a standard rating is no rapid one). ``pool`` None: of any pool
    (the players table gives a rating, or a game or players file a dated one;
    docs/observations.md)."""
    from arpad.pipeline import observations
    from arpad.pipeline.integrity import open_parquet

    if not store.players_path.exists():
        store.read_players()  # deleted while games are stored: named (docs/store.md)

    def table_rated() -> bool:
        # One column, not the whole table (the engine reads the players again anyway).
        with open_parquet(store.players_path) as file:
            if "rating" in file.schema_arrow.names:
                ratings = file.read(columns=["rating"]).column("rating")
                return ratings.null_count < len(ratings)
        return False

    if pool is not None:
        return observations.has_pool_seeds(store, pool, table_rated)
    return table_rated() or observations.has_observations(store)


def rated_pools(store: Store) -> list[str]:
    """The pools a published rating of the store starts someone in (``has_published_ratings``)."""
    from arpad.pipeline.schemas import POOLS

    return [p for p in POOLS if has_published_ratings(store, p)]


# FIDE's heading of each pool's rating in its rating list files (docs/ingest.md).
_POOL_HEADINGS = {"standard": "SRtng", "rapid": "RRtng", "blitz": "BRtng"}


def starting_ratings_reason(system: str, pool: str | None = None, rated=()) -> str:
    """Why ``system`` (one that ``needs_published_ratings``) cannot rate this store: no
    published rating at all; or, with ``pool`` and the pools the store's ratings are of
    (``rated``, ``rated_pools``), none of ``pool`` (a pool's ratings seed that pool alone)."""
    if pool is None or not rated:
        return (
            f"{system} needs published starting ratings and neither the players table nor "
            "the games give any "
            "(ingest a players file with ratings: arpad ingest --players FILE)"
        )
    return unseeded_pool_reason(f"{system} needs", [pool], rated)


def unseeded_pool_reason(subject: str, pools: list[str], rated) -> str:
    """``subject`` ("fide needs") published starting ratings of ``pools`` the store
    has none of, its ratings being of the ``rated`` pools only, and what to give."""
    what = " and ".join(pools)
    headings = "/".join(_POOL_HEADINGS[p] for p in pools)
    columns = "/".join(f"{p}_rating" for p in pools)
    return (
        f"{subject} published starting ratings for pool {what} and neither the players "
        f"table nor the games give any {what} rating (the store's ratings are of pool "
        f"{' and '.join(rated)} only, and a pool's ratings seed that pool alone): ingest a "
        f"players file with {what} ratings (arpad ingest --players FILE with the column "
        f"{headings} or {columns}, or rows with pool {' or '.join(pools)}; docs/observations.md)"
    )


def check_starting_ratings(store: Store, system: str, pool: str | None = None) -> None:
    """A system that cannot start from nothing, on a store with no published rating
    (of ``pool``; None: of any pool), is bad input (exit 2) before any period is rated."""
    from arpad.pipeline.systems import get_system

    if get_system(system).needs_published_ratings and not has_published_ratings(store, pool):
        rated = rated_pools(store) if pool is not None else ()
        raise ValueError(starting_ratings_reason(system, pool, rated))


def check_rows_written(summary) -> None:
    """A run that rated periods into no rating row published nothing: bad input. When
    every game was of a player against himself (ids merged with ``--force``), that is
    what it says (docs/identity.md "Self-play"), not to give starting ratings."""
    if summary.periods and summary.rows_written == 0 and summary.self_play and not summary.games:
        raise ValueError(
            f"{summary.system}/{summary.pool}: nothing to rate: all {summary.self_play} "
            "game(s) are of a player against himself (ids merged with arpad players merge "
            "--force), not rated; arpad players --merges lists the merges, arpad players "
            "split KEEP DUPLICATE undoes one"
        )
    if summary.periods and summary.rows_written == 0:
        raise ValueError(
            f"{summary.system}/{summary.pool}: rated {len(summary.periods)} "
            f"period{'s' if len(summary.periods) != 1 else ''} into 0 "
            "rating rows (give starting ratings: arpad ingest --players FILE, or "
            "--set initial_rating=… where the system's rules have it)"
        )


def plan_rate(req: RateRequest) -> int | None:
    """Step: the first period to compute — ``--from``, else the earliest stale period
    when an incremental run is exact (pipeline/incremental.py), else the first. Refuses
    a system that needs published starting ratings the store does not have."""
    store = Store(req.store)
    check_pool(store, req.pool, req.start, req.end)
    check_starting_ratings(store, req.system, req.pool)
    if req.start is not None or req.full:
        return req.start
    return incremental.incremental_start(store, req.system, req.pool, req.rules, req.overrides)


class StaleStartWarning(UserWarning):
    """``arpad rate --from P`` (``store.rate(start=P)``) while a period before P is stale:
    the run rated from P as asked and left that period out of date (``stale_start_note``)."""


class EarlyRulesWarning(UserWarning):
    """A run with the rules chosen by date walked periods before the oldest dated version
    the system carries: it used that version for them (``early_rules_note``; FIDE before
    2000, docs/fide-history.md "Before 2009-07")."""


def early_rules_note(summary, rules: str | None = None) -> str | None:
    """``base.early_periods_note`` of a rate run without ``--rules`` (``rules`` None):
    the periods it walked before the system's oldest dated version, the version it used
    and what the sources know of the differences; None for other runs."""
    if rules is not None or not summary.periods:
        return None
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import early_periods_note

    return early_periods_note(get_system(summary.system), summary.pool, summary.periods)


class StatedOverrideWarning(UserWarning):
    """A rate run that recomputed after a correction, for a system that seeds from stated
    ratings: ratings stated in later files re-seed players the correction changed, so it
    stops there (pipeline/stated_ratings.py ``overridden_note``; docs/observations.md
    "Corrections and stated ratings"); or ratings stated in a file replaced the store's
    own results of an earlier period (``replaced_note``)."""


def stale_start_note(req: RateRequest) -> str | None:
    """The note for a ``--from P`` run while a period before P is stale (games or players
    changed since it was rated: a late result, a correction, a merge), else None. Asked
    before the run: whether the checkpoint it starts from was written after that period.

    The run keeps the user's P (a deliberate ``--from`` is honoured, docs/pgn-trf.md) and
    the stale mark stays (``incremental.record_run``), so ``arpad list`` keeps its note
    too; the note says so now, where the run used to say nothing (the officer's fourth
    attack, docs/runners.md "--from after a correction")."""
    if req.start is None:
        return None
    store = Store(req.store)
    mark = incremental.read_stale(store).get(f"{req.system}/{req.pool}")
    if mark is None:
        return None
    stale = incremental.first_stale(store, req.system, req.pool, mark)
    if stale >= req.start:
        return None  # the run rates the stale period again and clears the mark
    before = [p for p in store.state_periods(req.system, req.pool) if p < req.start]
    # A checkpoint before the stale period: the run replays it with its games as they are
    # now (docs/store.md "Starting between two checkpoints"), but only the starting state
    # a players change (mark 0) made stale is in every checkpoint.
    builds = mark == incremental.FROM_FIRST or (bool(before) and before[-1] >= stale)
    how = (
        f"the ratings from {req.start} on build on it"
        if builds
        else f"its ratings stay out of date (this run starts at {req.start})"
    )
    return (
        f"{req.label}: period {stale} is stale (games or players changed since it was "
        f"rated): {how}; run arpad rate --system {req.system} --pool {req.pool} without "
        f"--from, or with --from {stale}"
    )


def _outside_arpad() -> int:
    """The ``stacklevel`` of the first caller outside the arpad package (a notebook's
    line), as the API's own warnings point (src/arpad/api.py)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_globals.get("__name__") or "").partition(".")[0] == (
        "arpad"
    ):
        frame, level = frame.f_back, level + 1
    return level


def rate_periods(req: RateRequest, start: int | None, progress: Progress | None = None):
    """Step: rate ``req.pool`` with ``req.system`` from ``start`` (resumable after a
    crash, pipeline/resume.py). Inside a Dask task, player shards go to the same cluster."""
    from arpad.pipeline.integrity import check_batches
    from arpad.pipeline.resume import rate_resumable

    check_batches(Store(req.store))  # a games source deleted by hand: named, not rated as empty
    summary = rate_resumable(
        Store(req.store),
        req.system,
        pool=req.pool,
        start=start,
        end=req.end,
        rules=req.rules,
        overrides=req.overrides,
        progress=progress,
        refresh_catalog=False,
        # Every job refreshes the catalog after its units; the client's own run may
        # start that rebuild early (not a Dask worker: it has no say in the store).
        catalog_ahead=not on_dask_worker(),
        shards=req.shards,
        checkpoint_every=req.checkpoint_every,
    )
    from arpad.pipeline.systems import get_system

    # A system that places games (ECF's year-only games) rates from the first period
    # whatever the stale period (engine.rate): its summary said incremental_from=51
    # of a run that re-rated periods 1..102 (round 14)
    incremental = req.start is None and not get_system(req.system).places_games
    summary.incremental_from = start if incremental else None
    return summary


def record_rate(req: RateRequest, start: int | None) -> None:
    """Step: clear the stale marks the run covered and remember its rule spec."""
    incremental.record_run(
        Store(req.store), req.system, req.pool, start, req.end, req.rules, req.overrides
    )


def _before_recompute(store, system: str, pool: str):
    """``stated_ratings.before_recompute``, imported only for a system that seeds from
    stated ratings with a stale mark on the pool: that module imports polars, which an
    ordinary rate does not (docs/runners.md "Start-up"; 0.11 s of FIDE's rate)."""
    from arpad.pipeline import incremental
    from arpad.pipeline.systems import get_system

    if not get_system(system).seeds_from_observations:
        return None
    mark = incremental.read_stale(store).get(f"{system}/{pool}")
    if mark is None:
        return None
    from arpad.pipeline import stated_ratings

    return stated_ratings.before_recompute(store, system, pool, mark)


def stated_replaced_note(
    store, system: str, pool: str, rated: list[int], existing: list[int]
) -> str | None:
    """``stated_ratings.replaced_note`` of the periods a run of a system that seeds from
    stated ratings rated (``rated``) that were not rated before it (``existing``): said
    once, by the run that first rates a period. Imported (with polars) only when a game
    file of those periods or of the month before states a rating (Parquet statistics:
    docs/runners.md "Start-up")."""
    from arpad.pipeline.systems import get_system

    run = set(rated) - set(existing)
    if not run or not get_system(system).seeds_from_observations:
        return None
    from arpad.pipeline.observations import _file_observations

    months = store.periods(pool)
    months = [*[p for p in months if p < min(run)][-1:], *(p for p in months if p in run)]
    files = (str(f) for p in months for f in store.game_files(pool, p))
    if not any(_file_observations(f, 0) is not None for f in files):
        return None
    from arpad.pipeline import stated_ratings

    return stated_ratings.replaced_note(store, system, pool, sorted(run))


def rate(req: RateRequest, runner: Runner = LOCAL, progress: Progress | None = None):
    """Rate one pool with one system; returns the engine's RateSummary."""
    store = _existing_store(req.store)
    with store.writer_lock(f"arpad rate {req.label}", wait=req.wait):
        dropped = _drop_gameless(runner, store, [req.system], [req.pool])
        if dropped:  # nothing left to rate: exit 0, the line saying what was removed
            runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
            runner.info(summary_line(dropped[0]))
            return dropped[0]
        start = runner.step(plan_rate, req, name=f"plan-{req.system}-{req.pool}")
        note = stale_start_note(req)
        existing = store.rating_periods(req.system, req.pool)  # (stated_replaced_note)
        # (read before the run rewrites the ratings; None unless a seeding system
        # recomputes after a correction: nothing read on an ordinary run)
        before = _before_recompute(store, req.system, req.pool)
        name = f"rate-{req.system}-{req.pool}"
        if req.shards and req.shards > 1 and runner.parallel:
            # The rating loop runs as a task on a worker and sends each period's player
            # shards to the same cluster (pipeline/sharding.py auto_map).
            summary = runner.map(rate_periods, [(req, start, None)], names=[name], io=True)[0]
        else:
            summary = runner.step(rate_periods, req, start, progress, name=name, io=True)
        check_rows_written(summary)
        overridden = None
        if before is not None:
            from arpad.pipeline import stated_ratings

            overridden = stated_ratings.overridden_note(
                store, req.system, req.pool, before, summary.periods
            )
        # stated ratings that replaced the store's own results (an arbiter's old list)
        replaced = stated_replaced_note(store, req.system, req.pool, summary.periods, existing)
        runner.step(record_rate, req, start, name=f"record-{req.system}-{req.pool}", io=True)
        runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
    runner.info(summary_line(summary))
    if note:  # after the run: a run that failed has no ratings to build on anything
        runner.info(note)
        warnings.warn(note, StaleStartWarning, stacklevel=_outside_arpad())
    for stated in (overridden, replaced):
        if stated:
            runner.info(stated)
            warnings.warn(stated, StatedOverrideWarning, stacklevel=_outside_arpad())
    early = early_rules_note(summary, req.rules)
    if early:  # the dated rules' oldest version used for earlier periods (FIDE before 2000)
        runner.info(early)
        warnings.warn(early, EarlyRulesWarning, stacklevel=_outside_arpad())
    return summary


def summary_line(s) -> str:
    if s.skipped:
        return f"{s.system}/{s.pool}: skipped: {s.skipped}"
    if not s.periods:
        return f"{s.system}/{s.pool}: no periods to rate"
    rules = sorted(set(s.rules))
    return (
        f"{s.system}/{s.pool}: rated {len(s.periods)} period{'s' if len(s.periods) != 1 else ''} "
        f"({s.periods[0]}..{s.periods[-1]}), "
        f"{s.games:,} games, {s.rows_written:,} rating rows; rules: {', '.join(rules)}"
        + (f"; {s.shards} player shards per period" if s.shards > 1 else "")
        + (f"; {len(s.replayed)} earlier periods replayed from a checkpoint" if s.replayed else "")
    )


# -- reconstruct ----------------------------------------------------------------------------
@dataclass
class ReconstructRequest:
    store: str
    systems: list[str] | None = None  # None: every system
    pools: list[str] | None = None  # None: every pool in the store
    overrides: dict[str, str] = field(default_factory=dict)
    wait: float = 0.0

    def __post_init__(self):
        self.store = _absolute(self.store)
        self.overrides = dict(self.overrides or {})
        _check_systems(self.systems)
        _check_pools(self.pools)
        _check_wait(self.wait)
        if self.overrides:
            from arpad.pipeline.engine import check_run_rules
            from arpad.pipeline.systems import system_names

            for system in self.systems or system_names():
                check_run_rules(system, None, self.overrides)


def rate_all(
    runner: Runner,
    reqs: list[RateRequest],
    starts: list[int | None],
    progress: Progress | None = None,
) -> list:
    """Rate independent system/pool pairs: side by side on a parallel runner, the most
    expensive first (a system's ``relative_cost``), so that two workers are not left
    waiting on the longest unit; summaries come back in ``reqs`` order. ``progress``
    is shown only when the units run one after the other in this process."""
    from arpad.pipeline.systems import get_system

    def units() -> list:
        return map_by_cost(
            runner,
            rate_periods,
            [
                (req, start, None if runner.parallel else progress)
                for req, start in zip(reqs, starts)
            ],
            costs=[get_system(req.system).relative_cost for req in reqs],
            names=[f"rate-{req.system}-{req.pool}" for req in reqs],
            io=True,
        )

    if not runner.parallel or len(reqs) < 2:
        return units()
    # The units' processes leave the catalog alone: this one rebuilds it meanwhile.
    with catalog.RefreshBeside(Store(reqs[0].store)):
        return units()


def reconstruct(
    req: ReconstructRequest, runner: Runner = LOCAL, progress: Progress | None = None
) -> list:
    """Rate every requested system over every requested pool from the first period.

    A system that needs published starting ratings the store does not have for a pool
    is skipped there with its reason (a summary with ``skipped``); when every unit is
    skipped, the reconstruction is refused (exit 2). ``progress`` is called after each
    period of each system/pool, as ``rate``'s, when the units run one after the other in
    this process (``rate_all``)."""
    from arpad.pipeline.engine import RateSummary
    from arpad.pipeline.systems import get_system, system_names

    store = _existing_store(req.store)
    with store.writer_lock("arpad reconstruct", wait=req.wait):
        dropped = _drop_gameless(runner, store, req.systems, req.pools)
        gone = {s.pool for s in dropped}
        pools = [p for p in req.pools or store.pools() if p not in gone]
        if dropped and not pools:  # no pool with games left: said, nothing to rate
            runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
            for s in dropped:
                runner.info(summary_line(s))
            return dropped
        # No pool named and none stored: refused as `rate` refuses it (it exited 0 with
        # nothing done).
        pools = pools or ["standard"]
        for pool in pools:
            check_pool(store, pool)
        systems = list(req.systems or system_names())
        # Per pool: a pool's ratings seed that pool alone (docs/observations.md).
        needy = [s for s in systems if get_system(s).needs_published_ratings]
        unseeded = [p for p in pools if needy and not has_published_ratings(store, p)]
        if unseeded == pools and needy == systems:
            rated = rated_pools(store)
            verb = "needs" if len(needy) == 1 else "need"
            if not rated:
                raise ValueError(
                    f"nothing to reconstruct: {', '.join(needy)} {verb} published starting "
                    "ratings and the players table has none (ingest a players file with "
                    "ratings: arpad ingest --players FILE)"
                )
            subject = f"nothing to reconstruct: {', '.join(needy)} {verb}"
            raise ValueError(unseeded_pool_reason(subject, unseeded, rated))
        rated = rated_pools(store) if unseeded else []
        skipped = [
            RateSummary(s, pool, skipped=starting_ratings_reason(s, pool, rated))
            for pool in unseeded
            for s in needy
        ]
        reqs = [
            RateRequest(req.store, system, pool, overrides=req.overrides, full=True)
            for pool in pools
            for system in systems
            if not (pool in unseeded and system in needy)
        ]
        summaries = dropped + rate_all(runner, reqs, [None] * len(reqs), progress) + skipped
        runner.release()  # no more units: a local cluster may close meanwhile
        for r in reqs:
            runner.step(record_rate, r, None, name=f"record-{r.system}-{r.pool}", io=True)
        runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
    for s in summaries:
        runner.info(summary_line(s))
    for s in summaries:  # (reqs carry no --rules: each unit's rules are chosen by date)
        early = early_rules_note(s)
        if early:
            runner.info(early)
            warnings.warn(early, EarlyRulesWarning, stacklevel=_outside_arpad())
    return summaries


# -- recalculate (the monthly job) ------------------------------------------------------------
@dataclass
class RecalculateRequest:
    store: str
    inbox: str
    systems: list[str] | None = None  # None: the systems already rated (FIDE on a new store)
    pools: list[str] | None = None
    fmt: str | None = None
    mapping: str | None = None
    wait: float = 600.0
    ignore_stated_ratings: bool = False  # --ignore-stated-ratings, each file's ingest
    encoding: str | None = None  # --encoding, each text file's (docs/ingest.md "Encodings")

    def __post_init__(self):
        self.store = _absolute(self.store)
        self.inbox = _absolute(self.inbox)
        _check_systems(self.systems)
        _check_pools(self.pools)
        _check_read_options(self.fmt, self.mapping)
        self.encoding = _check_encoding(self.encoding)
        _check_wait(self.wait)
        if not Path(self.inbox).is_dir():
            raise FileNotFoundError(f"--inbox {self.inbox}: no such folder")
        _refuse_inbox_in_store(Path(self.inbox), Path(self.store))
        from arpad.pipeline.store import check_store_path

        check_store_path(Path(self.store))


def _refuse_inbox_in_store(inbox: Path, store: Path) -> None:
    """The monthly job moves every file it reads out of the inbox (to ``processed/`` or
    ``rejected/``) and reads ``INBOX/players/``: an inbox that is the store, or a folder
    inside it, would move the store's own files (``players/players.parquet``,
    ``store.json``, …), and a store inside ``INBOX/players/`` would be read as players
    files. Refused before anything is read or moved (hostile round 9: ``--inbox S
    --store S`` moved the players table to ``S/rejected/``, and a Ctrl-C then left it
    there)."""
    inbox, store = inbox.resolve(), store.resolve()
    # resolved: INBOX/players may be a link into the store (officer, round 10: a link to
    # the store moved its store.json and catalog to INBOX/rejected/)
    players = (inbox / "players").resolve()
    if inbox == store or store in inbox.parents:
        where = "is the store" if inbox == store else "is inside the store"
    elif store == players or players in store.parents:
        where = "holds the store in its players/ folder"
    elif store in players.parents:
        where = f"has a players/ folder inside the store ({players})"
    else:
        return
    raise ValueError(
        f"--inbox {inbox} {where} ({store}): the monthly job moves the files it reads "
        "out of the inbox, so it would move the store's own files; put the month's files "
        "in a folder of their own and give that (nothing was read or moved)"
    )


def _refuse_no_store(store: Store, req: RecalculateRequest) -> None:
    """A --store that holds no store (a typo, an empty or unrelated folder) with nothing
    in the inbox to start one: "no store at DIR", like every reading command, before the
    lock is taken, so nothing is written there. With files waiting, the run starts the
    store from them, as ``arpad ingest`` would (a federation's first month)."""
    from arpad.pipeline import monthly
    from arpad.pipeline.store import check_store_path

    check_store_path(Path(req.store))
    if store.exists() or any(monthly.inbox_files(Path(req.inbox))):
        return
    raise FileNotFoundError(
        f"no store at {req.store} (ingest something first; "
        f"the inbox {req.inbox} holds no file to start one)"
    )


def recalculate(req: RecalculateRequest, runner: Runner = LOCAL, progress: Progress | None = None):
    """Ingest the inbox, recompute the stale periods, publish the lists, report
    (pipeline/monthly.py holds the steps' bodies; docs/operations.md the schedule)."""
    from arpad.pipeline import monthly

    store = Store(req.store)
    _refuse_no_store(store, req)
    with store.writer_lock("arpad recalculate", wait=req.wait):
        store.ensure()
        summary = monthly.RecalculateSummary(req.store)
        players, games = monthly.inbox_files(Path(req.inbox))
        summary.unread = monthly.unread_folders(Path(req.inbox), Path(req.store))
        summary.store_folder = monthly.store_folder(Path(req.inbox), Path(req.store))
        summary.left_in_inbox = monthly.unread_files(Path(req.inbox))
        items = [*((str(p), "players") for p in players), *((str(g), None) for g in games)]
        ahead = read_ahead(store, items, req.fmt, req.mapping, runner, req.encoding)
        for path, kind in items:
            raw = _read_here(store, ahead, path, kind, req.fmt, req.mapping, req.encoding)
            if isinstance(raw, InputError):  # (recorded: a stopped run's rejection holds)
                result = monthly.noted(store, monthly.rejected(Path(path), kind, raw))
            else:
                result = runner.step(
                    monthly.ingest_inbox_file,
                    store,
                    Path(path),
                    kind,
                    req.fmt,
                    req.mapping,
                    raw,
                    req.ignore_stated_ratings,
                    req.encoding,
                    name=f"ingest-{Path(path).name}",
                    io=True,
                )
            runner.step(
                monthly.archive,
                Path(req.inbox),
                result["path"],
                result["outcome"],
                name=f"archive-{Path(path).name}",
                io=True,
            )
            summary.files.append(result)

        # The ratings of a pool left with no games (a source moved with --pool, or
        # corrected to nothing) are removed, not planned: they blocked publishing for good.
        for s in _drop_gameless(runner, store, req.systems, req.pools):
            runner.info(summary_line(s))
            summary.removed.append(f"{s.system}/{s.pool}: {s.skipped}")
        # The files of a run stopped before its report hold this run's freeze as its own
        # would; a players file that changed stored players: the frozen lists as they are
        # now, to tell whether the recompute revises them (monthly.revising).
        summary.earlier = monthly.earlier_files(store, summary.files)
        pending = [*summary.files, *summary.earlier]
        baseline = {}
        if any(monthly.starting_state(f) for f in pending):
            baseline = runner.step(
                monthly.frozen_baseline, store, pending, req.systems, req.pools, name="baseline"
            )
        jobs = runner.step(monthly.plan, store, req.systems, req.pools, name="plan")
        for j in jobs:  # a pool a system cannot start: said, the others rated
            if j.skipped is not None:
                summary.skipped.append(f"{j.system}/{j.pool}: {j.skipped}")
                runner.info(summary.skipped[-1])
        jobs = [j for j in jobs if j.skipped is None]
        # Each with the rules its last `arpad rate` recorded (monthly.kept_rules)
        reqs = [
            RateRequest(
                req.store, j.system, j.pool, start=j.start, rules=j.rules, overrides=j.overrides
            )
            for j in jobs
        ]
        rate_summaries = rate_all(runner, reqs, [j.start for j in jobs], progress)
        runner.release()
        runner.step(monthly.record, store, jobs, name="record-runs", io=True)
        runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
        # A rejected inbox file freezes nothing: the month it was meant for is not known,
        # and a month frozen without its games stays so; nor does a correction sent under
        # another name, quarantined conflicting_result, nor a players file that re-rated
        # frozen months (docs/operations.md step 4).
        if baseline:
            revised = runner.step(monthly.revising, store, pending, baseline, name="revising")
            monthly.mark_revising(pending, revised)
        held = summary.held = monthly.holding(pending)
        for system, pool in monthly.published_lists(store, req.systems, req.pools):
            summary.exports += runner.step(
                monthly.publish, store, system, pool, name=f"publish-{system}-{pool}", io=True
            )
            summary.published[f"{system}/{pool}"] = runner.step(
                monthly.freeze, store, system, pool, held, name=f"freeze-{system}-{pool}", io=True
            )
        if line := monthly.held_line(summary):
            runner.info(line)
        monthly.summarise(store, summary, rate_summaries, jobs)
        runner.artifact("arpad-recalculation", monthly.markdown(summary))
    return summary


# -- what-if --------------------------------------------------------------------------------
@dataclass
class WhatIfRequest:
    store: str
    rules_a: str | None
    rules_b: str | None
    pool: str = "standard"
    start: int | None = None
    end: int | None = None
    top: int = 10

    def __post_init__(self):
        self.store = _absolute(self.store)
        names.pool(self.pool)
        if self.top < 1:
            raise ValueError(f"--top must be at least 1, got {self.top}")
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError(f"--from {self.start} is after --to {self.end}")


def whatif(req: WhatIfRequest, runner: Runner = LOCAL):
    """Replay the pool under rule sets A and B (side by side), then compare."""
    from arpad.pipeline import whatif as w

    store = _existing_store(req.store)
    check_pool(store, req.pool, req.start, req.end)
    for spec in (req.rules_a, req.rules_b):  # a bad rules file is named first
        w.resolve(spec, req.pool)
    # FIDE cannot start from nothing: games without any published rating replay into
    # empty tables, which read as "no rating moved" (docs/fide-history.md, what-if)
    check_starting_ratings(store, w.FIDE, req.pool)
    sides = runner.map(
        w.replay_side,
        [(req.store, spec, req.pool, req.start, req.end) for spec in (req.rules_a, req.rules_b)],
        names=["whatif-a", "whatif-b"],
    )
    runner.release()
    return runner.step(w.compare, sides[0], sides[1], req.top, name="whatif-compare")


# -- backtest -------------------------------------------------------------------------------
@dataclass
class BacktestRequest:
    dataset: str
    data_dir: str
    systems: list[str] | None = None  # None: every system

    def __post_init__(self):
        from arpad.pipeline import backtest

        if self.dataset not in backtest.DATASETS:
            raise ValueError(
                f"unknown backtest data {self.dataset!r} (known: {', '.join(backtest.DATASETS)})"
            )
        _check_systems(self.systems)
        if not Path(self.data_dir).is_dir():
            raise FileNotFoundError(f"no data folder at {self.data_dir} (use --data-dir)")


def backtest(req: BacktestRequest, runner: Runner = LOCAL, log=None):
    """Score each system's predictions on the dataset's protocol (side by side)."""
    from arpad.pipeline import backtest as bt
    from arpad.pipeline.systems import get_system, system_names

    ds = runner.step(bt.load, req.dataset, Path(req.data_dir), name=f"load-{req.dataset}")
    systems = list(req.systems) if req.systems else system_names()
    # Units: the tuning candidates of the costly systems (scored on the validation
    # split), then each system's finish (best candidate, white advantage, draw layer,
    # targets; a cheap system's finish scores its own candidates first), each handed
    # out most expensive first; the data set goes to the workers once.
    cost = {s: get_system(s).relative_cost for s in systems}
    units, own = bt.split_units(ds, systems, cost)
    candidates = Stage(
        bt.score_candidate,
        [(ds, system, changes) for system, changes in units],
        costs=[cost[system] for system, _ in units],
        names=[f"backtest-{system}-{i}" for i, (system, _) in enumerate(units)],
    )
    unit_log = None if runner.parallel else log
    finishes = Stage(
        bt.finish_with,
        [(ds, s, unit_log) for s in systems],
        costs=[cost[s] * (1 + len(ds.targets) + own.get(s, 0)) for s in systems],
        names=[f"backtest-{s}" for s in systems],
    )
    # On a cluster a system's finish starts as soon as its own candidates are done.
    needs = [[i for i, (system, _) in enumerate(units) if system == s] for s in systems]
    rows = runner.map_then(candidates, finishes, needs)
    runner.release()  # no more units: a local cluster may close meanwhile
    if log and runner.parallel:
        for row in rows:
            log(f"{row.system}: {row.scores} ({row.seconds:.1f}s)")
    return bt.result(ds, req.dataset, bt.constant_rows(ds) + rows)


# -- merge / split players ------------------------------------------------------------------
@dataclass
class MergeRequest:
    """``arpad players merge|split``: ``pairs`` of (keep, duplicate, reason)
    (docs/identity.md); ``split`` undoes merges."""

    store: str
    pairs: list[tuple[str, str, str]]
    split: bool = False
    wait: float = 0.0
    # --force: merge ids that met in a game (those games are then not rated)
    force: bool = False
    # filled by merge_players: the games a forced merge made self-play (identity.self_play_games)
    self_play: object = None
    # filled by merge_players: the games a merge took out as probable duplicates of games
    # of another file, or a split put back (docs/identity.md "Copies a merge makes one game")
    games_out: int = 0
    # filled by merge_players: the ratings stated for the duplicates that differ from the
    # published list in force, now the keeps' (stated_ratings.merge_notes)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.store = _absolute(self.store)
        _check_wait(self.wait)
        if not self.pairs:
            raise ValueError("nothing to merge (give KEEP DUPLICATE... or --mapping FILE)")


def merge_players(req: MergeRequest, runner: Runner = LOCAL) -> list[tuple[str, int]]:
    """Apply the merges (or splits) in order; returns the (pool, period) stale marks set.
    The next ``arpad rate`` recomputes from them (pipeline/incremental.py). A merge
    already in force is skipped (``identity.merge``); when every pair is, nothing is
    written (docs/identity.md "A merge run again")."""
    from arpad.pipeline import identity

    store = _existing_store(req.store)
    label = "split" if req.split else "merge"
    touched: list[tuple[str, int]] = []
    with store.writer_lock(f"arpad players {label}", wait=req.wait):
        in_force = [] if req.split else identity.in_force(store, req.pairs)
        if in_force and len(in_force) == len(req.pairs):
            runner.info(f"players merge: all {len(in_force)} pair(s) already in force")
            return []
        if not req.split:
            # two ids that met in a game are two people (docs/identity.md "Self-play")
            req.self_play = identity.self_play_games(store, req.pairs)
            if req.self_play.height and not req.force:
                raise ValueError(identity.self_play_refusal(req.self_play))
        # One staged transition (pipeline/journal.py): the aliases, the trail, the games
        # a merge makes copies of others and their quarantine, all or nothing.
        from arpad.pipeline import journal  # (its pairs recorded: `arpad check` names them)

        with journal.recording(None, pairs=req.pairs, force=req.force):
            staged = identity.staged_store(store, label)
        before = identity.alias_map(store)
        for keep, dup, reason in req.pairs:
            if req.split:
                touched += identity.split(staged, keep, dup, reason)
            else:
                touched += identity.merge(staged, keep, [dup], reason)
        # only once every pair is applied: a copy may need two (White and Black)
        unread: list[str] = []  # copies whose length no file gave (probable_duplicates)
        if req.split:
            req.games_out, more = identity.put_back(staged)
        else:
            req.games_out, more = identity.take_out(staged, before, unread)
        touched += more
        identity.commit_staged(staged)
        runner.step(refresh_catalog, req.store, name="refresh-catalog", io=True)
        if not req.split:  # the duplicates' stated ratings are now the keeps' (engine)
            from arpad.pipeline.stated_ratings import merge_notes

            after = identity.alias_map(store)
            moved = {dup: keep for dup, keep in after.items() if before.get(dup) != keep}
            try:  # the merge is done: a file that cannot be read is said, not raised
                req.notes = [*unread, *merge_notes(store, moved)]
            except ValueError as exc:
                req.notes = [*unread, f"stated ratings of the merged ids not compared: {exc}"]
    earliest: dict[str, int] = {}
    for pool, period in touched:
        earliest[pool] = min(period, earliest.get(pool, period))
    runner.info(
        f"players {label}: {len(req.pairs) - len(in_force)} pair(s)"
        + (f" ({len(in_force)} already in force)" if in_force else "")
        + f"; {req.games_out} game(s) "
        f"{'put back' if req.split else 'taken out'} as probable duplicates; stale from "
        + (", ".join(f"{pool} {p}" for pool, p in sorted(earliest.items())) or "nothing rated")
    )
    return sorted(earliest.items())
