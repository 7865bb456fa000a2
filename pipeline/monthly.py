"""The bodies of the monthly recalculation's steps; the job itself, their order, is
``recalculate`` in pipeline/jobs.py (run in one process, or as the Prefect flow of
flows/recalculate.py).

1. take the files waiting in the inbox (players files in ``INBOX/players/``, games
   files directly in ``INBOX/``), ingest them and move each to ``INBOX/processed/``
   (or ``INBOX/rejected/`` when it cannot be read at all);
2. plan, per configured system and pool, the first period to recompute: the
   earliest period a correction touched or the first period not rated yet
   (stale marks of pipeline/incremental.py); nothing when it is up to date;
3. recompute from there (resumable, pipeline/resume.py), then clear the marks;
4. publish each system/pool's latest finished month's list, and the list of every
   finished month never frozen after the latest frozen one, to ``STORE/exports/`` (CSV
   and Parquet; a month in progress as a provisional list beside it), freeze those
   lists, oldest first, under ``STORE/published/`` (pipeline/publish.py; a month in
   progress is rated, not frozen) and diff the previous frozen list against the current
   ratings (the report's "Revisions"; an export of a list frozen earlier that differs
   from it is "Revised");
5. summarise: games ingested and quarantined, players rated, biggest movers, and the
   work of a run stopped before its report (``take_unreported``).

Decisions where the issue leaves room (docs/operations.md): "configured systems"
are the systems already rated in the store (the first run rates FIDE only unless
``systems`` says otherwise); the inbox files are moved, never deleted; a file
whose content is already in the manifest is moved to ``processed`` unchanged.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from arpad.pipeline import catalog, incremental, journal, names
from arpad.pipeline.errors import InputError, shell_word
from arpad.pipeline.ingest import FileReport, ingest_file
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store, atomic_write_text, remove_path, undo_on_failure
from arpad.pipeline.systems import DEFAULT_SYSTEM, get_system

DEFAULT_SYSTEMS = (DEFAULT_SYSTEM,)
PROCESSED, REJECTED = "processed", "rejected"


@dataclass
class Job:
    system: str
    pool: str
    start: int | None  # None: from the first period
    # The rules of the last run ``rated.json`` records (``incremental.recorded_rules``):
    # the --rules spec and the --set overrides, as ``arpad rate`` parsed them.
    rules: str | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    recorded: bool = False  # whether ``rules``/``overrides`` came from rated.json
    rated: list[int] = field(default_factory=list)  # the periods rated before the run
    # Why the run leaves this system/pool alone (``plan``: a system that needs published
    # starting ratings the pool has none of); None: rated.
    skipped: str | None = None


@dataclass
class RecalculateSummary:
    store: str
    files: list[dict] = field(default_factory=list)  # path, kind, accepted, quarantined, outcome
    jobs: list[dict] = field(default_factory=list)  # system, pool, from, periods, games
    players_rated: dict[str, int] = field(default_factory=dict)  # "system/pool" -> players
    movers: dict[str, list[dict]] = field(default_factory=dict)
    exports: list[str] = field(default_factory=list)
    # "system/pool" -> the frozen list and the revisions of the previous one (``freeze``)
    published: dict[str, dict] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)  # inbox subfolders not read (``unread``)
    # inbox files not read, with why (``unread_files``)
    left_in_inbox: list[tuple[str, str]] = field(default_factory=list)
    # "system/pool: why" of the systems/pools the run left unrated (``Job.skipped``)
    skipped: list[str] = field(default_factory=list)
    # "system/pool: why" of the ratings removed because their pool holds no games now
    # (``jobs.drop_gameless_ratings``; docs/store.md "A pool left with no games")
    removed: list[str] = field(default_factory=list)
    # the work of runs stopped before their report (``take_unreported``): {started, runs,
    # files, jobs, unread}; this run's report gives it
    interrupted: dict = field(default_factory=dict)
    # the inbox files of such runs, read before the freeze (``earlier_files``): one that
    # holds the freeze holds this run's (``holding``)
    earlier: list[dict] = field(default_factory=list)
    # why this run froze nothing (``holding``): the command exits 2
    held: list[str] = field(default_factory=list)
    # the inbox's folder that is the store (or holds it; ``store_folder``): not read
    store_folder: str | None = None

    @property
    def games_ingested(self) -> int:
        """Games stored new or changed: a correction's unchanged games are not counted
        (the officer's attack, round 5: a correction of one game was "16 games ingested")."""
        return sum(f.get("ingested", f["accepted"]) for f in self.files if f["kind"] != "players")

    @property
    def games_read(self) -> int:
        """Games stored from the files read, a correction's unchanged ones included."""
        return sum(f["accepted"] for f in self.files if f["kind"] != "players")

    @property
    def quarantined(self) -> int:
        return sum(f["quarantined"] for f in self.files)


# -- 1. inbox ----------------------------------------------------------------------
def inbox_files(inbox: Path) -> tuple[list[Path], list[Path]]:
    """(players files, games files) waiting in ``inbox``, in name order."""
    inbox = Path(inbox)

    def waiting(d: Path) -> list[Path]:
        if not d.is_dir():
            return []
        return sorted(p for p in d.iterdir() if p.is_file() and not p.name.startswith("."))

    return waiting(inbox / "players"), waiting(inbox)


def unread_files(inbox: Path) -> list[tuple[str, str]]:
    """Entries of the inbox and of ``players/`` that are not folders and not read, with
    why: hidden names (``.name``: an editor's or a desktop's files), and anything that
    is not a regular file (a FIFO, a socket, a device, a symlink to nothing). The
    summary names them and they stay where they are (the hostile attack, round 5:
    they were passed over unsaid)."""
    inbox = Path(inbox)
    out = []
    for d, prefix in ((inbox, ""), (inbox / "players", "players/")):
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if p.is_dir():
                continue
            if p.name.startswith("."):
                out.append((prefix + p.name, "a hidden name (starts with '.')"))
            elif not p.is_file():
                why = "a symlink to nothing" if p.is_symlink() and not p.exists() else None
                out.append(
                    (prefix + p.name, why or "not a regular file (a FIFO, socket or device)")
                )
    return out


# Folders of the inbox that are its own: players files, and where files go when taken.
OWN_FOLDERS = ("players", PROCESSED, REJECTED)


def unread_folders(inbox: Path, store: Path | None = None) -> list[str]:
    """The inbox's other subfolders: their files are not read (only the inbox's top
    level and ``players/`` are), which the summary says, so that a file dropped into a
    folder of its own is not thought ingested (the officer's attack, 2026-12-03). The
    folder that is the store (or holds it, ``store_folder``) is not one of them."""
    inbox = Path(inbox)
    if not inbox.is_dir():
        return []
    mine = store_folder(inbox, store) if store is not None else None
    return sorted(
        p.name
        for p in inbox.iterdir()
        if p.is_dir() and p.name not in OWN_FOLDERS and not p.name.startswith(".")
        if mine is None or p.name != mine.split("/")[0]
    )


def store_folder(inbox: Path, store: Path) -> str | None:
    """The store's path inside the inbox (``S``, ``sub/S``), else None: ``recalculate
    --inbox . --store S`` run beside the store. The report says it is the store, not
    read; as another folder it was told "move them there" (the new user, round 10)."""
    inbox, store = Path(inbox).resolve(), Path(store).resolve()
    if inbox not in store.parents:
        return None
    return store.relative_to(inbox).as_posix()


def rejected(path: Path, kind: str | None, exc: Exception) -> dict:
    """A file that could not be read at all: its kind is unknown ('-') unless it was
    taken as a players file (``INBOX/players/``)."""
    return {
        "path": str(path),
        "kind": kind or "-",
        "accepted": 0,
        "quarantined": 0,
        "outcome": REJECTED,
        "detail": str(exc),
    }


def correction_detail(report: FileReport) -> str:
    """What a correction did, for the monthly summary (empty when it was none)."""
    if not report.replaced or report.correction is None:
        return ""
    removed, added, changed = report.correction
    games = "game" if removed == 1 else "games"
    return f"corrects {report.source}: {removed} {games} removed, {added} added, {changed} changed"


def ingest_inbox_file(
    store: Store,
    path: Path,
    kind: str | None,
    fmt: str | None,
    mapping: str | None,
    raw=None,
    ignore_stated_ratings: bool = False,
    encoding: str | None = None,
) -> dict:
    """Ingest one inbox file (``raw``: already read; ``ignore_stated_ratings``,
    ``encoding``: as ``arpad ingest --ignore-stated-ratings``, ``--encoding``); a file
    that cannot be read at all is reported, not raised. The result is recorded until
    the run's report is written (``note_unreported``)."""
    recorded = store.read_history().num_rows
    result = _ingest_inbox_file(
        store, path, kind, fmt, mapping, raw, ignore_stated_ratings, encoding
    )
    if result["outcome"] == PROCESSED:  # the periods it made stale (``revising``)
        rows = store.read_history().slice(recorded).column("stale").to_pylist()
        result["stale"] = rows[-1] if rows else None
    return noted(store, result)


def noted(store: Store, result: dict) -> dict:
    """``result`` (an inbox file's row), recorded until the run's report is written
    (``note_unreported``): a file rejected before its ingest too (``jobs.recalculate``'s
    read-ahead), so that the run after an interrupted one knows of it (``earlier_files``)."""
    result["taken_at"] = _now()  # (this run's own record: ``take_unreported``)
    note_unreported(store, "file", {"at": result["taken_at"], "file": result})
    return result


def _ingest_inbox_file(
    store, path, kind, fmt, mapping, raw, ignore_stated_ratings, encoding
) -> dict:
    """``ingest_inbox_file``'s ingest: the file's row of the report."""
    if kind == "players":
        fmt = mapping = None
    try:
        names.file_name(Path(path).name, "inbox file")
    except ValueError as exc:
        return rejected(path, kind, exc)
    try:
        # A file's identity is its name in the inbox (or in INBOX/players/): a file
        # sent again under the same name corrects it (docs/ingest.md).
        # (the staged ingest records its file: `arpad check` names it after a kill)
        with journal.recording(path):
            report: FileReport = ingest_file(
                store,
                path,
                fmt=fmt,
                kind=kind,
                mapping=mapping,
                raw=raw,
                base=Path(path).parent,
                ignore_stated_ratings=ignore_stated_ratings,
                encoding=encoding,
            )
    except InputError as exc:
        return rejected(path, kind, exc)
    ingested = report.accepted
    if report.replaced and report.correction is not None:  # its unchanged games: not new
        ingested = report.correction[1] + report.correction[2]
    return {
        "path": str(path),
        "kind": report.kind,
        "accepted": report.accepted,
        "ingested": ingested,
        # (a games file's quarantined player rows too, e.g. a TRF 001 line: `arpad ingest`
        # counts them and exits 2 for them, and so does the monthly job)
        "quarantined": report.quarantined + report.players_quarantined,
        "outcome": PROCESSED,
        "detail": report.skipped or correction_detail(report),
        # the quarantined rows `arpad ingest` shows ("file:line: reason: detail"), and
        # how many more the quarantine holds (its players' rows too: a TRF 001 line)
        "examples": list(report.examples),
        "more": max(0, report.quarantined + report.players_quarantined - len(report.examples)),
        # rows quarantined per reason: a conflicting_result holds the freeze (``holding``)
        "reasons": {str(r): n for r, n in report.reasons.items()},
        # the notes for the rating officer `arpad ingest` prints (a stated rating that
        # differs from the published list in force, a probable mistyped id, ...)
        "notes": list(report.notes),
    }


# A correction sent under another file name is quarantined, not applied
# (docs/ingest.md "Conflicting results"): such a run freezes nothing (``holding``).
UNAPPLIED = str(Reason.CONFLICTING_RESULT)


def unapplied(f: dict) -> int:
    """The games of an inbox file quarantined ``conflicting_result``: a correction of
    games stored from another file, not applied (0 for a summary of an earlier arpad)."""
    return (f.get("reasons") or {}).get(UNAPPLIED, 0)


def holding(files: list[dict]) -> list[str]:
    """The inbox files that keep this run from freezing any list, each with why
    (``freeze``'s ``held``; docs/operations.md step 4): a file rejected (the month it
    was meant for is not known), and a file with games quarantined ``conflicting_result``
    (an unapplied correction: a month frozen without it stays so; the officer's attack,
    round 9). Other quarantined rows hold nothing: a bad row is the file's own, and
    must not keep a federation's lists from being frozen."""
    out = []
    for f in files:
        name = Path(f["path"]).name
        if f["outcome"] == REJECTED:
            out.append(f"{name} rejected")
        elif unapplied(f):
            out.append(f"{name} with an unapplied correction")
        elif f.get("revises"):
            out.append(f"{name} revising frozen lists")
    return out


# -- a players file that re-rates frozen months ------------------------------------------
# A players file's undated rating, rated games and peak rating hold as of the store's
# first period (docs/observations.md), so a register exported now (counts and peaks that
# grew with last month's games) re-rates months already frozen. Such a run freezes no list
# and exits 2 (``holding``), as a rejected file does; the run after it freezes (the
# officer's attack, round 10; docs/operations.md step 4).
def starting_state(f: dict) -> bool:
    """Whether inbox file ``f`` is a players file that changed stored players (its
    ingest made every period stale: history ``stale`` "all", pipeline/trail.py)."""
    return f["outcome"] == PROCESSED and f["kind"] == "players" and f.get("stale") == "all"


def _digest(frame) -> str:
    """A list's ratings (player_id, rating) as one hash: equal lists, equal hashes."""
    import hashlib

    import polars as pl

    rows = frame.select(pl.col("player_id").cast(pl.String), pl.col("rating").cast(pl.Float64))
    rows = rows.sort("player_id")
    return hashlib.sha256(rows.write_csv().encode()).hexdigest()


def frozen_digests(store: Store, systems, pools) -> dict[str, dict[str, str]]:
    """Every frozen list's current ratings: "system/pool" -> {period: ``_digest`` of the
    period's list now ("none": no list now)}."""
    return {
        f"{system}/{pool}": {
            str(p): _list_digest(store, system, pool, p)
            for p in store.published_periods(system, pool)
        }
        for system, pool in published_lists(store, systems, pools)
        if store.published_periods(system, pool)
    }


def _list_digest(store: Store, system: str, pool: str, period: int) -> str:
    from arpad.pipeline import lists

    try:
        return _digest(lists.list_frame(store, system, pool, period)[0])
    except ValueError:  # (EmptyListError, or no ratings of the pool now)
        return "none"


def frozen_baseline(store: Store, files: list[dict], systems, pools) -> dict:
    """Before the recompute, when a players file of this run (or of a run stopped before
    its report, ``earlier_files``) changed stored players: the frozen lists as they are
    (``frozen_digests``), recorded until the report; a stopped run's record is kept (its
    recompute may have begun). Else {}."""
    if not any(starting_state(f) for f in files):
        return {}
    for entry in _records(store):
        if isinstance(entry, dict) and entry["kind"] == "baseline":
            return entry["lists"]
    lists = frozen_digests(store, systems, pools)
    if lists:  # (none frozen: a first load)
        note_unreported(store, "baseline", {"at": _now(), "lists": lists})
    return lists


def _games_stale(files: list[dict]) -> dict[str, int]:
    """pool -> the earliest period the games files among ``files`` made stale."""
    out: dict[str, int] = {}
    for f in files:
        if f["kind"] == "players" or not f.get("stale") or f["stale"] == "all":
            continue
        for part in f["stale"].split(";"):
            pool, _, period = part.partition(":")
            out[pool] = min(int(period), out.get(pool, int(period)))
    return out


def revising(store: Store, files: list[dict], baseline: dict) -> list[list]:
    """After the recompute: [["system/pool", period, players changed], …] of the frozen
    lists whose ratings changed since ``baseline`` (``frozen_baseline``) and now differ
    from the frozen list for a player it has, but not at or after a period a games file
    among ``files`` made stale in their pool (those the games changed, as a late file or
    a correction does); ``mark_revising`` gives them to the players files."""
    from arpad.pipeline import publish

    games = _games_stale(files)
    revised = []
    for key, periods in baseline.items():
        system, pool = key.split("/", 1)
        for p, digest in ((int(p), d) for p, d in periods.items()):
            if p >= games.get(pool, p + 1) or _list_digest(store, system, pool, p) == digest:
                continue
            # a player the frozen list has, rated otherwise now or gone (a new player of
            # the file, listed from the first period, changes no published rating)
            changed = publish.diff(store, system, pool, p)[0]["published"].is_not_null().sum()
            if changed:
                revised.append([key, p, changed])
    return revised


def mark_revising(files: list[dict], revised: list[list]) -> None:
    """Each players file among ``files`` that changed stored players gets ``revised``
    (``revising``) as its ``revises``: it holds the freeze (``holding``)."""
    for f in files:
        if revised and starting_state(f):
            f["revises"] = revised


class ArchiveError(OSError, ValueError):
    """An inbox file ``archive`` cannot move: an OSError, retried in a flow as I/O
    (flows/runner.py), then one line and exit 2 as a ValueError (pipeline/cli.py)."""


def archive(inbox: Path, path: str, outcome: str) -> str:
    """Move an inbox file to ``INBOX/<outcome>/`` (a name already there gets a time suffix)."""
    src = Path(path)
    if not src.exists():  # moved by an earlier, interrupted attempt
        return str(Path(inbox) / outcome / src.name)
    dest_dir = Path(inbox) / outcome
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
        dest = dest_dir / src.name
        if dest.exists():
            dest = dest_dir / f"{src.stem}.{time.strftime('%Y%m%dT%H%M%S')}{src.suffix}"
        os.replace(src, dest)
    except OSError as exc:  # (it was a traceback and an internal error)
        a_file = dest_dir.exists() and not dest_dir.is_dir()
        why = "a file, not a folder" if a_file else (exc.strerror or str(exc))
        raise ArchiveError(
            f"{dest_dir}: cannot move {src.name} there ({why}): the run is undone, the "
            f"store is as before and the files are still in the inbox; make {dest_dir} a "
            "writable folder and run again"
        ) from None
    # If the run fails later, its ingests are undone (pipeline/store.py): the file
    # goes back into the inbox, to be ingested by the next run.
    undo_on_failure(lambda: _move_back(dest, src))
    return str(dest)


def _move_back(dest: Path, src: Path) -> None:
    os.replace(dest, src)
    with contextlib.suppress(OSError):
        dest.parent.rmdir()  # only if the move made it and nothing else is in it


def quarantine_lines(f: dict) -> list[str]:
    """An inbox file's quarantined rows as ``arpad ingest`` prints them (``file:line:
    reason: detail``; the first five in line order and the first of every reason), then
    ``and N more``; empty for a file without any (or a summary of an earlier arpad)."""
    examples = list(f.get("examples") or [])
    more = f.get("more") or 0
    return [*examples, f"and {more:,} more"] if examples and more else examples


def quarantine_command(store: str) -> str:
    """The command that shows every quarantined row (the 'quarantine' view)."""
    return f'arpad sql "SELECT * FROM quarantine" --store {shell_word(store)}'


def quarantine_pointer(store: str, rows: int) -> str:
    """Where every quarantined row is, as ``arpad ingest`` says it."""
    return f"{rows:,} rows quarantined: see the 'quarantine' view ({quarantine_command(store)})"


def quarantine_rows(files: list[dict]) -> int:
    """The rows the files' quarantine lines stand for (shown and ``more``)."""
    return sum(len(f.get("examples") or []) + (f.get("more") or 0) for f in files)


# -- 2. plan -------------------------------------------------------------------------
def configured_systems(store: Store, systems: list[str] | None) -> list[str]:
    if systems:
        return list(systems)
    rated = sorted(p.name.split("=", 1)[1] for p in store._subdirs(store.ratings_dir))
    return rated or list(DEFAULT_SYSTEMS)


def plan(store: Store, systems: list[str] | None, pools: list[str] | None) -> list[Job]:
    """The first period to recompute per system/pool.

    A period not rated yet (the new month) counts as a correction of that period:
    it is marked stale (pipeline/incremental.py), and ``incremental_start`` decides
    whether starting there is exact (same rule spec, a checkpoint of a recorded run
    before it) or a full run is needed. Up-to-date system/pools get no job. A system
    that needs published starting ratings is checked per pool, as `arpad rate` checks
    it (a pool's ratings seed that pool alone): a pool it has none of gets a job with
    ``skipped`` (its reason; the run rates the other pools and says why it left this
    one, docs/operations.md "A pool without starting ratings"); when it has none of any
    pool the run plans, the run fails here (``jobs.check_starting_ratings``), before
    anything is rated or published.
    """
    from arpad.pipeline.jobs import (
        check_starting_ratings,
        has_published_ratings,
        rated_pools,
        starting_ratings_reason,
    )
    from arpad.pipeline.systems import get_system

    planned = [pool for pool in pools or store.pools() if store.periods(pool)]
    seeded = {pool: has_published_ratings(store, pool) for pool in planned}
    unseeded: dict[str, list[str]] = {}
    for system in configured_systems(store, systems):
        if not get_system(system).needs_published_ratings:
            continue
        check_starting_ratings(store, system)  # no published rating at all
        unseeded[system] = [pool for pool in planned if not seeded[pool]]
        if planned and unseeded[system] == planned:
            check_starting_ratings(store, system, planned[0])
    rated_in = rated_pools(store) if any(unseeded.values()) else []
    jobs = []
    for pool in planned:
        periods = store.periods(pool)
        for system in configured_systems(store, systems):
            if pool in unseeded.get(system, ()):
                why = starting_ratings_reason(system, pool, rated_in)
                jobs.append(Job(system, pool, None, skipped=why))
                continue
            rules, overrides, recorded = kept_rules(store, system, pool)
            rated = set(store.rating_periods(system, pool))
            if not rated:
                jobs.append(Job(system, pool, None, rules, overrides, recorded))
                continue
            unrated = [p for p in periods if p not in rated]
            if unrated:
                incremental.mark_stale(store, [(pool, unrated[0])])
            if incremental.interrupted(store, system, pool):  # a killed `arpad rate`
                incremental.mark_system_stale(store, system, pool, incremental.FROM_FIRST)
            if f"{system}/{pool}" not in incremental.read_stale(store):
                continue
            start = incremental.incremental_start(store, system, pool, rules, overrides)
            jobs.append(Job(system, pool, start, rules, overrides, recorded, sorted(rated)))
    todo = [j for j in jobs if j.skipped is None]
    if todo:  # what this run recomputes, until its report is written (``note_unreported``)
        recorded = [{"system": j.system, "pool": j.pool, "from": j.start} for j in todo]
        note_unreported(store, "plan", {"at": _now(), "jobs": recorded})
    return jobs


def kept_rules(store: Store, system: str, pool: str) -> tuple[str | None, dict[str, str], bool]:
    """``(rules, overrides, recorded)``: the ``--rules`` spec and ``--set`` overrides of
    the last run of ``system``/``pool`` (``incremental.recorded_rules``), which the
    monthly job keeps; the system's own rules (None, {}) when none is recorded. Rules
    that cannot be used now (a rules file moved away) fail the run here, before anything
    is rated, naming them and what to do."""
    from arpad.pipeline.engine import check_run_rules

    recorded = incremental.recorded_rules(store, system, pool)
    if recorded is None:
        return None, {}, False
    rules, overrides = recorded
    try:
        check_run_rules(system, rules, overrides, pool)
    except (ValueError, TypeError) as exc:  # (InputError: a rules file's own error)
        raise ValueError(
            f"{system}/{pool}: the rules of its last `arpad rate` "
            f"({rule_options(rules, overrides)}, recorded in STORE/manifest/rated.json) "
            f"cannot be used: {exc}; run arpad rate --system {system} --pool {pool} with "
            "the rules to keep, once"
        ) from None
    return rules, overrides, True


def rule_options(rules: str | None, overrides: dict[str, str]) -> str:
    """The ``arpad rate`` options that give ``rules`` and ``overrides``:
    ``--rules 2010-06 --set bonus_b=12``; ``no --rules or --set`` when neither."""
    parts = [*([f"--rules {rules}"] if rules is not None else [])]
    parts += [f"--set {k}={v}" for k, v in sorted(overrides.items())]
    return " ".join(parts) or "no --rules or --set"


def record(store: Store, jobs: list[Job]) -> None:
    """After the runs: clear the stale marks they covered, remember their runs and the
    rules they kept (so the next run keeps them too)."""
    for j in jobs:
        incremental.record_run(store, j.system, j.pool, j.start, None, j.rules, j.overrides)


# -- 4. publish ----------------------------------------------------------------------
def latest_period(store: Store, system: str, pool: str) -> int | None:
    periods = store.rating_periods(system, pool)
    return periods[-1] if periods else None


def listed_periods(store: Store, system: str, pool: str) -> list[int]:
    """The periods of ``system``/``pool`` with a list: the rated ones and those its latest
    list is carried into (``lists.carried_periods``: a month without games in the pool
    that another of the combined file's pools has a list of; FIDE publishes the rapid and
    blitz lists every month). The monthly job exports and freezes both (the officer's
    attack, round 11: a carried rapid list was only in the combined file). A month
    without games in any pool is not among them: the report names it, ``waiting_quiet``."""
    from arpad.pipeline.lists import carried_periods

    rated = store.rating_periods(system, pool)
    return sorted({*rated, *carried_periods(store, system, pool, quiet=False)}) if rated else []


def quiet_lists(store: Store, system: str, pool: str, day=None) -> tuple[list[int], list[int]]:
    """(frozen, not frozen): the finished months without any game that have a list (the
    pool's latest carried forward, ``lists.carried_periods``; not ``listed_periods``),
    those published (with ``arpad publish``: the job leaves them to it) and those not
    published between the first and the latest published list (passed over by a later
    frozen list: they never can be; the officer's attack, round 15: the report said
    "Already frozen: … 202608" with 202611 frozen and 202609-202610 passed over)."""
    from arpad.pipeline import publish
    from arpad.pipeline.lists import carried_periods

    done = store.published_periods(system, pool)
    if not done:
        return [], []
    day = day or publish.today()
    listed = set(listed_periods(store, system, pool))
    quiet = [
        p
        for p in carried_periods(store, system, pool)
        if p not in listed and not publish.in_progress(p, day)
    ]
    frozen = [p for p in quiet if p in done]
    return frozen, [p for p in quiet if p not in done and done[0] < p < done[-1]]


def to_freeze(store: Store, system: str, pool: str, day=None) -> list[int]:
    """The finished periods with a list (``listed_periods``; ``publish.in_progress``) the
    monthly job freezes: each one after the latest period already frozen (every one on a
    store with none), oldest first. A month the job did not freeze (a first run with two
    months in the inbox, a missed scheduled run) is frozen by the next run, never
    skipped; one before the latest frozen list is not (``publish.later_published``)."""
    from arpad.pipeline import publish

    day = day or publish.today()
    done = store.published_periods(system, pool)
    return [
        p
        for p in listed_periods(store, system, pool)
        if not publish.in_progress(p, day) and (not done or p > done[-1])
    ]


def quiet_months(store: Store, system: str, pool: str) -> dict | None:
    """{months, source}: the months without games after the pool's latest list whose
    carried list the job does not freeze (``lists.waiting_quiet``) and the period whose
    list they carry; None when there are none (docs/lists.md "A month without games")."""
    from arpad.pipeline.lists import carried_source, waiting_quiet

    months = waiting_quiet(store, system, pool)
    if not months:
        return None
    return {"months": months, "source": carried_source(store, system, pool, months[0])}


def recomputed_since_frozen(store: Store, system: str, pool: str, day=None) -> list[int]:
    """The finished periods an earlier run froze whose ratings a later run recomputed
    (their ratings' run ids are not those the frozen manifest recorded): only their
    lists can differ from the frozen ones (a correction, a late file, a merge). A carried
    list frozen (``carried_from`` in its manifest) compares the run ids of the period it
    carried, while that period is still the one carried."""
    from arpad.pipeline import publish
    from arpad.pipeline.lists import carried_periods, carried_source
    from arpad.pipeline.store import read_parquet_file

    day = day or publish.today()
    out = []
    carried = None
    for p in store.published_periods(system, pool):
        if publish.in_progress(p, day):  # frozen early (--force): never exported as final
            continue
        manifest = publish.read_manifest(store, system, pool, p)
        frozen = set(manifest.get("run_id") or [])
        path = store.rating_partition(system, pool, p) / "part-0.parquet"
        if "carried_from" in manifest and not path.is_file():  # a carried list frozen
            carried = carried_periods(store, system, pool) if carried is None else carried
            if p not in carried:  # (its pool's lists are gone: ``diff`` says so)
                out.append(p)
                continue
            source = carried_source(store, system, pool, p)
            if source != manifest["carried_from"]:  # a late file of a month between
                out.append(p)
                continue
            path = store.rating_partition(system, pool, source) / "part-0.parquet"
        runs = read_parquet_file(path, columns=["run_id"]) if path.is_file() else None
        now = (
            set()
            if runs is None or "run_id" not in runs.column_names
            else set(runs.column("run_id").unique().to_pylist())
        )
        if not frozen or now - {None} != frozen:
            out.append(p)
    return out


def revised_frozen(store: Store, system: str, pool: str, day=None) -> dict[int, tuple]:
    """period -> ``publish.diff`` of each finished period an earlier run froze whose
    current list differs from the frozen one (``recomputed_since_frozen``), oldest first:
    every one of them is re-exported and reported as revised, not only the latest (the
    officer's attack, round 5: after a correction of September, October's export was
    revised and September's kept the frozen ratings)."""
    from arpad.pipeline import publish

    out = {}
    for p in recomputed_since_frozen(store, system, pool, day):
        changes = publish.diff(store, system, pool, p)
        if changes[0].height:
            out[p] = changes
    return out


def restored_frozen(store: Store, system: str, pool: str, revised, day=None) -> list[int]:
    """The frozen periods recomputed since (``recomputed_since_frozen``) not ``revised``
    whose export is not the frozen list: a correction undone by a later one. Their export
    is written again (the current ratings, the frozen list's), not reported."""
    from arpad.pipeline.publish import FILES

    base = store.export_dir(system, pool)
    out = []
    for p in recomputed_since_frozen(store, system, pool, day):
        export = base / f"list-{p}.csv"
        frozen = store.published_partition(system, pool, p) / FILES["csv"]
        if p not in revised and export.is_file() and export.read_bytes() != frozen.read_bytes():
            out.append(p)
    return out


def published_lists(
    store: Store, systems: list[str] | None, pools: list[str] | None
) -> list[tuple[str, str]]:
    """Every configured system/pool with ratings: all are (re)published on each run, so
    a run killed between rating and publishing publishes on the next attempt."""
    return [
        (system, pool)
        for pool in pools or store.pools()
        for system in configured_systems(store, systems)
        if store.rating_periods(system, pool)
    ]


PROVISIONAL = "-provisional"  # an export of a month in progress: list-202612-provisional.csv


def publish(store: Store, system: str, pool: str) -> list[str]:
    """Write the list of the latest finished month (a month without games in the pool:
    its list carried forward, ``listed_periods``), of each month ``freeze`` is
    about to freeze (``to_freeze``) and of each frozen month whose ratings changed since
    (``revised_frozen``: the export holds the current ratings), as CSV and Parquet under
    ``STORE/exports/`` (``list-<period>.csv``; ``pipeline.lists``: whole-number ratings
    for integer systems) and, when a later rated month is not over (``publish.in_progress``),
    its list as ``list-<period>-provisional.csv`` (the report's "Provisional (month in
    progress)"). A provisional export of a month now over is removed (its final list
    replaces it), and so is a ``list-<period>`` export of a month not over. Abstract period numbers are never in progress. A list without any rated
    player is never published: ``EmptyListError`` fails the run."""
    from arpad.pipeline import lists
    from arpad.pipeline import publish as frozen
    from arpad.pipeline.store import before_change

    rated = store.rating_periods(system, pool)
    if not rated:
        return []
    day = frozen.today()
    # (a month without games in the pool has its latest list carried: ``listed_periods``;
    # a month without any game frozen with ``arpad publish`` too: ``quiet_lists``)
    finished = [p for p in listed_periods(store, system, pool) if not frozen.in_progress(p, day)]
    finished = sorted({*finished, *quiet_lists(store, system, pool, day)[0]})
    revised = revised_frozen(store, system, pool, day)
    restored = restored_frozen(store, system, pool, revised, day)
    final = sorted({*finished[-1:], *to_freeze(store, system, pool, day), *revised})
    wanted = [(p, "") for p in sorted({*final, *restored})]
    if frozen.in_progress(rated[-1], day):
        wanted.append((rated[-1], PROVISIONAL))
    base = store.export_dir(system, pool)
    keep = {f"list-{p}{PROVISIONAL}.{x}" for p, tag in wanted if tag for x in ("csv", "parquet")}
    # Gone: provisional lists of months now over, and a final-looking export of a month
    # not over (``list-202612.csv`` written on 3 December by an arpad before this rule).
    gone = {
        f"list-{p}.{x}" for p in rated if frozen.in_progress(p, day) for x in ("csv", "parquet")
    }
    if base.is_dir():
        for old in sorted(base.glob("list-*")):
            stale = old.stem.endswith(PROVISIONAL) and old.name not in keep
            if (stale or old.name in gone) and old.is_file():
                before_change(old)
                old.unlink()
    written = []
    for period, tag in wanted:
        try:
            frame, period = lists.list_frame(store, system, pool, period)
        except lists.EmptyListError:
            if tag or not finished or period == finished[-1]:
                raise
            continue  # an earlier month without a rated player: no list (as ``freeze``)
        for fmt, suffix in (("csv", "csv"), ("parquet", "parquet")):
            path = base / f"list-{period}{tag}.{suffix}"
            lists.write_list(frame, period, fmt, str(path), root=store.root)
            if tag or period in final:  # (a restored export: the frozen list, unreported)
                written.append(str(path.relative_to(store.root)))
    return written


def provisional(path: str) -> bool:
    """Whether an export (``publish``) is the provisional list of a month in progress."""
    return Path(path).stem.endswith(PROVISIONAL)


def freeze(store: Store, system: str, pool: str, held: list[str] | None = None) -> dict:
    """Freeze the lists of the finished months never frozen (``to_freeze``), oldest
    first, under ``STORE/published/`` (pipeline/publish.py; a period already published
    is left as it is; a month in progress is rated but not frozen, ``in_progress`` names
    it) and diff the latest list frozen before this run against the current ratings:
    {period, frozen, frozen_now, later, passed, revised, revisions, in_progress,
    not_finished, previous, changed, rows, corrections}; ``period`` is the latest
    finished month (None when no rated month is over); ``frozen``: the periods this run
    froze; ``frozen_now`` whether ``period`` is one of them (False when an earlier run
    froze it); ``later``: the later frozen period that keeps an unfrozen ``period`` from
    being frozen (a month frozen early with ``--force``), else None; ``passed``: [period,
    later] of every finished month with a list that is not frozen because a later one is
    (a late month's file; ``period`` with ``later`` among them); ``revised``: every
    period an earlier run froze whose export (the current ratings) differs from the
    frozen list (``revised_frozen``; ``period`` too, when it is one), oldest first;
    ``revisions``: {period, changed, rows, corrections} of each of them but the latest
    frozen one (that one is ``previous``…);
    ``not_finished``: every rated month not over and not frozen (the current one, "in
    progress", and any later one, "not begun"), each named in the report; ``replaced``:
    the revised ratings a rating stated in a later file replaced
    (``stated_ratings.replaced_revisions``, the report's ``replaced_lines``);
    ``every_pool``: [period, players, listed] of each list frozen now that lists players
    without a game in the pool from a players file's rating of every pool
    (``publish.every_pool_seeded``: a rapid list of the register's standard ratings);
    ``quiet``: the finished months without games after the latest list, left to ``arpad
    publish`` (``quiet_months``, the report's "No games" line), or None.
    ``held``: the inbox files that hold the freeze (``holding``: rejected, or with an
    unapplied correction; ``held_by``): then nothing is frozen, and ``held`` in the
    result lists the months with a list that would have been (docs/operations.md step
    4: the month a rejected file was meant for is not known, and once a later month is
    frozen it could never be frozen with that file's games or correction)."""
    from arpad.pipeline import publish

    rated = store.rating_periods(system, pool)
    if not rated:
        return {}
    day = publish.today()
    # (a month without games in the pool has its latest list carried: ``listed_periods``;
    # a month without any game frozen with ``arpad publish`` is one too, and one that a
    # later frozen list passed over is named: ``quiet_lists``)
    finished = [p for p in listed_periods(store, system, pool) if not publish.in_progress(p, day)]
    finished = sorted({*finished, *quiet_lists(store, system, pool, day)[0]})
    period = finished[-1] if finished else None
    done = store.published_periods(system, pool)
    from arpad.pipeline.lists import EmptyListError

    frozen, waiting = [], []
    if held:  # the months with a list (``passed_over``'s query), none frozen
        from arpad.pipeline.lists import empty_lists

        months = to_freeze(store, system, pool, day)
        empty = empty_lists(store, system, pool, [p for p in months if p in rated])
        waiting = [p for p in months if p not in empty]
    seeded = []  # [period, players, listed]: ``publish.every_pool_seeded`` of a list frozen
    for p in [] if held else to_freeze(store, system, pool, day):  # oldest first
        try:  # (a month without games before it is left to ``arpad publish``: its
            # report's "No games" line named it, and "Not frozen" names it now)
            made = publish.publish(store, system, pool, p, skip_earlier=True)
        except EmptyListError:
            if p == period:
                raise
            continue  # an earlier month without a rated player (a store's first months)
        frozen.append(p)
        if made.get(publish.EVERY_POOL):
            seeded.append([p, made[publish.EVERY_POOL], made["players"]])
    passed = passed_over(store, system, pool, finished, done, period)
    # a month without games a frozen list passed over, this run's list too (``quiet_lists``)
    if months := quiet_lists(store, system, pool, day)[1]:
        now = store.published_periods(system, pool)
        passed = sorted([*passed, *([p, next(d for d in now if d > p)] for p in months)])
    later = [p for p in done if period is not None and p > period]
    # (a month frozen early with ``--force`` is frozen: not "not published")
    skipped = [p for p in rated if publish.in_progress(p, day) and p not in done]
    out = {
        "period": period,
        "frozen": frozen,
        "frozen_now": period in frozen,
        "held": waiting,
        "held_by": list(held or []),
        "later": later[0] if later and period not in done else None,
        "passed": passed,
        "revised": [],
        "revisions": [],
        "in_progress": skipped[-1] if skipped else None,
        "not_finished": skipped,
        "today": day.isoformat(),
        "previous": None,
        "changed": 0,
        "rows": [],
        "corrections": 0,
        "every_pool": seeded,
        "quiet": quiet_months(store, system, pool),
    }
    # The export of a period an earlier run froze holds the current ratings: when they
    # differ from the frozen list it is a revised list, never reported as the published
    # one (the officer's fourth attack: both under "Published lists"); every such period,
    # not only the latest (``revised_frozen``, which ``publish`` re-exported).
    diffs = revised_frozen(store, system, pool, day)
    if done and done[-1] not in diffs:  # the latest list frozen before this run
        diffs[done[-1]] = publish.diff(store, system, pool, done[-1])
    if period in done and period not in diffs:
        diffs[period] = publish.diff(store, system, pool, period)
    revisions = {
        p: {
            "period": p,
            "changed": players.height,
            "rows": players.head(10).to_dicts(),
            "corrections": corrections.height,
            # the day (UTC) of the latest of them: the one-line revision names it
            "latest": _day(corrections["recorded_at"].max()) if corrections.height else None,
        }
        for p, (players, corrections) in sorted(diffs.items())
    }
    if done:  # this period's, on a re-run
        latest = revisions[done[-1]]
        out.update(
            previous=done[-1],
            changed=latest["changed"],
            rows=latest["rows"],
            corrections=latest["corrections"],
            latest=latest["latest"],
        )
    # (a period frozen early with --force is not exported as final: not "revised")
    out["revised"] = [
        p for p, r in revisions.items() if r["changed"] and not publish.in_progress(p, day)
    ]
    out["revisions"] = [r for p, r in revisions.items() if r["changed"] and p != out["previous"]]
    # the revised players a later file's stated rating started from another rating
    from arpad.pipeline.stated_ratings import replaced_revisions

    changed = {p: players for p, (players, _) in diffs.items() if players.height}
    out["replaced"] = replaced_revisions(store, system, pool, changed) if changed else []
    # each stating file's source identity and stored read options: the remedy names them
    reading = stored_reading(store, {r["file"] for r in out["replaced"]})
    for r in out["replaced"]:
        r.update(reading.get(r["file"], {}))
    # each revised list's players whose revision a later stated rating replaced, there or
    # in a later frozen list's months (it reached that list, then stopped): the lists
    # frozen from now on do not have it (``revision_line``; the officer's attack, round 11)
    for p, r in revisions.items():
        if r["changed"]:
            ids = set(changed[p]["player_id"].to_list())
            stopped = {x["player_id"] for x in out["replaced"] if x["list"] >= p}
            r["not_carried"] = sorted(stopped & ids)
    if done:
        out["not_carried"] = revisions[done[-1]].get("not_carried", [])
    return out


def stored_reading(store: Store, labels: set[str]) -> dict[str, dict]:
    """label -> {source, read_with} of each stored source named ``labels`` (the
    ``source`` its games carry): its identity, which ``--source`` must give to read it
    again as that source, and the ``arpad ingest`` options its stored version was read
    with (``--pool standard``; from its batch id, pipeline/ingest.py ``_read_options``).
    The report's remedy for "Revisions not carried forward" names them: a file stored
    with ``--pool standard`` read again through ``arpad recalculate`` (which has no
    ``--pool``) went back to the pool its header names (the officer's attack, round 9)."""
    from arpad.pipeline.ingest import read_option_words

    if not labels:
        return {}
    out = {}
    manifest = store.read_manifest().select(["source", "source_key", "batch"])
    for row in manifest.to_pylist():
        if row["source"] not in labels:
            continue
        out[row["source"]] = {
            "source": row["source_key"] or row["source"],
            "read_with": read_option_words(row["batch"]),
        }
    return out


def _day(at) -> str | None:
    """A correction's ``recorded_at`` as its ISO day (None when not known)."""
    return at.date().isoformat() if hasattr(at, "date") else None


def passed_over(
    store: Store, system: str, pool: str, finished: list[int], done: list[int], period
) -> list[list[int]]:
    """[period, later]: each finished month never frozen before the latest frozen one
    (``done``), with the first later frozen period: lists are frozen in order, so it is
    not frozen (nor exported), and the report says why (a late month's file, or a month
    passed over with ``arpad publish``). A month without any rated player (a store's
    first months) has no list and is left out: ``lists.empty_lists`` finds them in one
    query for all the months, not a ``list_frame`` per month (Kaggle 2010 rated with elo,
    months 1-89 passed over: 17.6 s of a 19 s monthly run, now 0.16 s of 2.3 s;
    docs/operations.md)."""
    from arpad.pipeline.lists import empty_lists

    if not done:
        return []
    months = [p for p in finished if p < done[-1] and p not in done]
    rated = set(store.rating_periods(system, pool))  # (a carried list is never empty here)
    empty = empty_lists(store, system, pool, [p for p in months if p != period and p in rated])
    return [[p, next(d for d in done if d > p)] for p in months if p not in empty]


def _by_later(passed: list[list[int]]) -> list[tuple[int, list[int]]]:
    """``passed_over``'s [period, later] pairs as (later, its periods, oldest first): one
    report line for all the months a frozen list passed over (a store's months before
    its first frozen list were 89 lines on every run; docs/operations.md)."""
    groups: dict[int, list[int]] = {}
    for period, later in passed:
        groups.setdefault(later, []).append(period)
    return list(groups.items())


# -- 5. summary -----------------------------------------------------------------------
MOVERS_SQL = """
SELECT r.player_id, p.name, r.rating_before, r.rating_after,
       r.rating_after - r.rating_before AS change, r.games
FROM ratings r LEFT JOIN players p USING (player_id)
WHERE r.system = ? AND r.pool = ? AND r.period = ?
  AND r.rating_before IS NOT NULL AND r.rating_after IS NOT NULL
  AND abs(r.rating_after - r.rating_before) >= ?
ORDER BY abs(r.rating_after - r.rating_before) DESC, r.player_id
LIMIT ?
"""

# Players whose rating the periods rated: with games that counted and a rating after
# them. Not a player pooled toward an initial rating not reached yet, nor one whose games
# were not rated (only unrated opponents: games 0); before, "players rated" counted the
# pooled ones (the officer's attack, round 9; docs/operations.md step 5).
PLAYERS_RATED_SQL = """
SELECT count(DISTINCT player_id) FROM ratings
WHERE system = ? AND pool = ? AND period >= ? AND games > 0
  AND rating_after IS NOT NULL AND status <> 'unrated'
"""


def biggest_movers(store: Store, system: str, pool: str, n: int = 10) -> list[dict]:
    """The ``n`` largest rating changes (either way) of the latest period; a change the
    report would show as ``+0`` (``+0.0`` for a system whose lists have one decimal: an
    inactive player) is none."""
    period = latest_period(store, system, pool)
    if period is None:
        return []
    whole = get_system(system).integer_ratings
    con = catalog.connect(store)
    try:
        least = 0.5 if whole else 0.05  # half the list's last digit (``_as_listed``)
        args = [system, pool, period, least, n]
        rows = catalog.query_arrow(con, MOVERS_SQL, args).to_pylist()
    finally:
        con.close()
    return [{"period": period, **r} for r in rows]


def players_rated(store: Store, system: str, pool: str, since: int | None) -> int:
    """The report's "players rated" from period ``since`` on (``PLAYERS_RATED_SQL``)."""
    con = catalog.connect(store)
    try:
        first = since if since is not None else -(2**31)
        return int(con.execute(PLAYERS_RATED_SQL, [system, pool, first]).fetchone()[0])
    finally:
        con.close()


def _rate_notes(store: Store, job: Job, s) -> list[str]:
    """The note `arpad rate` prints for the job's run when ratings stated in a file
    replaced the store's own results of an earlier period (new user, round 11: the first
    run of a federation froze lists with an arbiter's stale ratings without a word)."""
    from arpad.pipeline.jobs import stated_replaced_note

    note = stated_replaced_note(store, job.system, job.pool, list(s.periods), job.rated)
    return [note] if note else []


def summarise(store: Store, summary: RecalculateSummary, rate_summaries: list, jobs: list[Job]):
    for job, s in zip(jobs, rate_summaries):
        key = f"{job.system}/{job.pool}"
        summary.jobs.append(
            {
                "system": job.system,
                "pool": job.pool,
                "from": job.start,
                "periods": len(s.periods),
                "games": s.games,
                # the rule versions used (the ratings' ``rules`` column), in period order
                "rules": list(dict.fromkeys(s.rules)),
                "options": rule_options(job.rules, job.overrides),
                "recorded": job.recorded,
                # ratings stated in a file that replaced the store's own results
                # (``jobs.stated_replaced_note``, as `arpad rate` prints it)
                "notes": _rate_notes(store, job, s),
            }
        )
        summary.players_rated[key] = players_rated(store, job.system, job.pool, job.start)
        summary.movers[key] = biggest_movers(store, job.system, job.pool)
    take_unreported(store, summary, jobs)
    return summary


# -- the work of a run stopped before its report ---------------------------------------
# A run stopped (Ctrl-C, SIGTERM, a kill) after it took inbox files or recomputed keeps
# that work (a KeyboardInterrupt is not undone: pipeline/store.py), but its report, written
# last, was never written; the run the interrupt message asks for found nothing to do and
# said "the report of the run that recomputed it … lists them" (the officer's attack,
# round 9). So each step that changes the store records its part until the report:
# one JSON file per inbox file taken (``ingest_inbox_file``) and one per plan, written
# atomically under ``STORE/manifest/unreported/`` (journalled: a run that fails removes
# its own); ``summarise``, the last step before the report, takes those of earlier runs
# into the summary and removes the folder (docs/operations.md "A run stopped before
# its report").
UNREPORTED = "unreported"


def unreported_dir(store: Store) -> Path:
    return Path(store.root) / "manifest" / UNREPORTED


def _now() -> str:
    """Now, local time with its UTC offset, to the microsecond."""
    return dt.datetime.now().astimezone().isoformat(timespec="microseconds")


def note_unreported(store: Store, kind: str, entry: dict) -> None:
    """Record one part of this run's work (``kind``: "file", "plan") until its report."""
    name = f"{time.time_ns()}-{os.getpid()}-{kind}.json"
    text = json.dumps({"kind": kind, "pid": os.getpid(), **entry}, default=str)
    atomic_write_text(text, unreported_dir(store) / name, store.root)


def unreported_problem(data: dict) -> str | None:
    """A record of ``note_unreported`` that cannot be reported, or None."""
    try:
        dt.datetime.fromisoformat(data["at"])
        if data["kind"] == "file":
            f = data["file"]
            texts = all(isinstance(f.get(k), str) for k in ("path", "kind", "outcome", "taken_at"))
            counts = all(_count(f.get(k)) for k in ("accepted", "quarantined"))
            stale = f.get("stale")  # (``revising``; none in a record of an earlier arpad)
            if stale is not None and not (isinstance(stale, str) and _STALE.fullmatch(stale)):
                return "its file's stale periods are not all or pool:period;…"
            if not (texts and counts):
                return "its file is not {path, kind, outcome, accepted, quarantined, taken_at}"
            return None
        if data["kind"] == "baseline":  # (``frozen_baseline``)
            lists = data["lists"]
            ok = isinstance(lists, dict) and all(
                isinstance(periods, dict)
                and all(p.isdigit() and isinstance(d, str) for p, d in periods.items())
                for periods in lists.values()
            )
            return None if ok else "its lists are not {system/pool: {period: digest}}"
        if data["kind"] == "plan":
            ok = all(
                isinstance(j["system"], str)
                and isinstance(j["pool"], str)
                and (j["from"] is None or _count(j["from"]))
                for j in data["jobs"]
            )
            return None if ok else "its jobs are not {system, pool, from}"
    except (KeyError, TypeError, ValueError):
        return "not a record of an inbox file or a plan (kind, at, file or jobs)"
    return f"its kind is {json.dumps(data['kind'])[:40]}, not file, plan or baseline"


_STALE = re.compile(r"all|\w+:\d+(;\w+:\d+)*")  # a history row's ``stale`` (trail.py)


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _records(store: Store) -> list:
    """The records of ``note_unreported`` in the order written: each a dict, or the
    one-line error of one that cannot be read (``take_unreported`` names and removes it)."""
    from arpad.pipeline.integrity import open_json

    folder = unreported_dir(store)
    if not folder.is_dir():
        return []
    out = []
    repair = "it was removed (it held part of an interrupted run's report)"
    for path in sorted(folder.glob("*.json")):
        try:
            out.append(open_json(path, unreported_problem, repair))
        except (InputError, OSError) as exc:
            out.append(str(exc))
    return out


def earlier_files(store: Store, files: list[dict]) -> list[dict]:
    """The inbox files of runs stopped before their report (``note_unreported``), not
    among this run's ``files``: a file one of them rejected, or one with an unapplied
    correction or revising frozen lists, holds this run's freeze as its own would
    (``holding``); the stopped run froze nothing it held, and its report, which said so,
    was never written (the officer's attack, round 10)."""
    own = {f.get("taken_at") for f in files}
    return [
        entry["file"]
        for entry in _records(store)
        if isinstance(entry, dict)
        and entry["kind"] == "file"
        and entry["file"]["taken_at"] not in own
    ]


def take_unreported(store: Store, summary: RecalculateSummary, jobs: list[Job]) -> None:
    """The recorded work (``note_unreported``) of runs stopped before their report, into
    ``summary.interrupted``: their inbox files, and their jobs this run did not recompute
    again (each with its players rated and movers, as a job of this run), then remove the
    record: this run's report gives it. A record that cannot be read is named there."""
    own = {f.get("taken_at") for f in summary.files}

    def again(j: dict) -> bool:  # recomputed by this run too: its own report has it
        return any(
            (t.system, t.pool) == (j["system"], j["pool"])
            and (t.start is None or (j["from"] is not None and t.start <= j["from"]))
            for t in jobs
        )

    folder = unreported_dir(store)
    if not folder.is_dir():
        return
    files, planned, unread, at, pids = [], {}, [], [], set()
    for entry in _records(store):
        if isinstance(entry, str):
            unread.append(entry)
            continue
        if entry["kind"] == "file" and entry["file"]["taken_at"] not in own:
            files.append(entry["file"])
        elif entry["kind"] == "plan" and not all(again(j) for j in entry["jobs"]):
            for j in entry["jobs"]:
                key = (j["system"], j["pool"])
                start = planned.get(key, j["from"])
                planned[key] = None if None in (start, j["from"]) else min(start, j["from"])
        else:
            continue
        at.append(entry["at"])
        pids.add(entry.get("pid"))
    remove_path(folder)
    done = []
    for (system, pool), start in planned.items():
        j = {"system": system, "pool": pool, "from": start}
        if again(j):
            continue
        j["players"] = players_rated(store, system, pool, start)
        j["movers"] = biggest_movers(store, system, pool)
        done.append(j)
    if files or done or unread:
        started = dt.datetime.fromisoformat(min(at)).isoformat(timespec="seconds") if at else None
        summary.interrupted = {
            "started": started,
            "runs": len(pids),
            "files": files,
            "jobs": done,
            "unread": unread,
        }


# Characters markdown reads as markup: a '|' ends a table cell, '*' '_' '~' emphasise,
# '`' opens code, '<' '>' '&' HTML and entities, '[' ']' links; a backslash before each
# shows it as written (CommonMark escapes any ASCII punctuation so).
_MARKUP = re.compile(r"([\\`*_~\[\]<>|&])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")  # a newline would end the table row


def _text(value) -> str:
    """A value from the data (a name, an id, a file name, a message) as markdown text
    that shows it as written, in a table cell or a line: a name ``Pipe | Paul *bold*``
    neither splits the row nor turns bold, and ``<b>`` reaches the Prefect artifact as
    text, not HTML (the officer's fourth attack)."""
    text = "" if value is None else str(value)
    return _MARKUP.sub(r"\\\1", _CONTROL.sub(" ", text))


def _code(value) -> str:
    """``value`` as a markdown code span: a backtick in it (a folder's name) neither
    ends the span nor opens another (the fence is one backtick longer than its longest
    run of backticks)."""
    text = _CONTROL.sub(" ", str(value))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _as_listed(value, whole: bool) -> float | None:
    """A stored rating rounded as the system's list rounds it: half away from zero to a
    whole number (``integer_ratings``) or to one decimal (``lists.list_frame``)."""
    from arpad.kernels.rounding import round_half_away_array

    if value is None:
        return None
    scale = 1.0 if whole else 10.0
    return float(round_half_away_array(value * scale)) / scale


def in_progress_note(system: str, pool: str, period: int, day: str | None) -> str:
    """``publish.in_progress_note`` for the report (``day``: ISO date, default today)."""
    import datetime as dt

    from arpad.pipeline import publish

    when = dt.date.fromisoformat(day) if day else None
    return publish.in_progress_note(system, pool, period, when)


def note_lines(f: dict) -> list[str]:
    """An inbox file's notes for the rating officer, as ``arpad ingest`` prints them
    (``note: …``); empty for a file without any (or a summary of an earlier arpad)."""
    return [f"note: {note}" for note in f.get("notes") or []]


def rules_lines(job: dict) -> list[str]:
    """The rules a job rated with: those the last rating of the system/pool recorded
    (``arpad rate``, ``reconstruct`` or this job itself), kept (``kept_rules``), or the
    system's own (docs/operations.md). ``rated.json`` does not say which command it was,
    so the line does not name one: "kept from the last `arpad rate`" on a store only
    this job ever rated named a command the officer never ran (the officer's attack,
    round 7)."""
    if not job.get("rules"):  # (nothing rated, or a summary of an earlier arpad)
        return []
    used = ", ".join(job["rules"])
    key = f"{job['system']}/{job['pool']}"
    if job.get("recorded"):
        why = f"kept from the last rating of {_text(key)} ({_code(job['options'])})"
    else:
        why = "the system's own (no `arpad rate` rules recorded)"
    return [f"Rules: {_code(used)}, {why}.", ""]


def _listed(value, whole: bool) -> str:
    """A rating of a list in the report as the list has it: a whole number for a system
    that publishes whole numbers (``integer_ratings``), else one decimal (docs/lists.md)."""
    return "" if value is None else f"{value:.0f}" if whole else f"{value:.1f}"


def _signed(value, whole: bool) -> str:
    """A change between two list ratings (``_listed``), signed; never ``-0``: a change
    that rounds to nothing is ``0`` (``0.0``)."""
    if value is None:
        return ""
    text = f"{value:+.0f}" if whole else f"{value:+.1f}"
    return text if text.strip("+-0.") else text[1:]


def mover_lines(movers: list[dict], system: str) -> list[str]:
    """The report's "Biggest movers" (``biggest_movers``) of one system/pool, their
    ratings and changes as its lists have them (``_listed``): Elo's 1490 -> 1537.5 is
    ``+47.5``, where the report showed "1490 | 1537 | +47" (the officer's attack, round
    7); a change the list does not show (``+0``) is left out."""
    whole = get_system(system).integer_ratings
    rows = []
    for m in movers:
        before = _as_listed(m["rating_before"], whole)
        after = _as_listed(m["rating_after"], whole)
        if before == after:
            continue
        rows.append(
            f"| {_text(m['player_id'])} | {_text(m['name'])} | {_listed(before, whole)} | "
            f"{_listed(after, whole)} | {_signed(after - before, whole)} | {m['games']} |"
        )
    if not rows:
        return []
    return [
        f"Biggest movers of period {movers[0]['period']}:",
        "",
        "| player | name | before | after | change | games |",
        "|---|---|---:|---:|---:|---:|",
        *rows,
        "",
    ]


def diff_command(key: str, period: int) -> str:
    """``arpad diff --published PERIOD`` of the frozen list of ``key`` ("system/pool"),
    with ``--system`` and ``--pool`` where they are not the command's defaults: the
    hint of a rapid list gave standard's diff (the officer's attack, round 9)."""
    system, pool = key.split("/", 1)
    words = [f"arpad diff --published {period}"]
    words += [f"--system {system}"] if system != DEFAULT_SYSTEM else []
    words += [f"--pool {pool}"] if pool != "standard" else []
    return " ".join(words)


def revision_lines(r: dict, whole: bool = True, key: str | None = None) -> list[str]:
    """The report's "Revisions" of one frozen list of ``key`` ("system/pool", named:
    two pools' lines of one period were alike, the officer's attack, round 9; None: of
    the default system's standard list):
    {period, changed, rows, corrections}; ``whole``: the system publishes whole-number
    ratings (``integer_ratings``), else the ratings and changes have one decimal, as its
    lists (1558.3 -> 1558.2 is -0.1, not "1558 | 1558 | -0": the officer's attack,
    round 6)."""
    key = key or f"{DEFAULT_SYSTEM}/standard"
    lines = [
        f"Revisions of the published {_text(key)} list of period {r['period']}: "
        f"{r['changed']:,} player(s) changed, {r['corrections']} ingest(s) "
        f"or merge(s) since publication touched it ({_code(diff_command(key, r['period']))}).",
        "",
    ]
    if r["rows"]:
        lines += [
            "| player | name | published | revised | change | games +/-/~ |",
            "|---|---|---:|---:|---:|---|",
        ]
        for row in r["rows"]:
            published, revised = _listed(row["published"], whole), _listed(row["revised"], whole)
            player = _text(row["player_id"])
            if row.get("published_id"):  # a merged id the frozen list has (``publish.as_kept``)
                player += f" (published as {_text(row['published_id'])})"
            lines.append(
                f"| {player} | {_text(row['name'])} | {published} | "
                f"{revised} | {_signed(row['change'], whole)} | "
                f"+{row['games_added']}/-{row['games_removed']}/~{row['games_changed']} |"
            )
        lines.append("")
    return lines


def replaced_lines(
    rows: list[dict], key: str, whole: bool = True, store: str | None = None
) -> list[str]:
    """The report's revised ratings that a rating stated in a later file replaced
    (``freeze``'s ``replaced``): a correction of a frozen month reaches a later month
    only where its files state no ratings (docs/observations.md "Corrections and stated
    ratings"), and an arbiter states the frozen, pre-correction rating. The revisions
    table showed the change and the next list silently dropped it (the officer's attack,
    round 8); these lines name each player, both ratings, the file, and the remedy: the
    exact ``arpad ingest`` of each file (``remedy_command``) when a stored version was
    read with options ``arpad recalculate`` does not give (a ``--pool``; round 9)."""
    if not rows:
        return []
    lines = [
        f"Revisions not carried forward ({_text(key)}): {len(rows)} player(s) whose revised "
        "rating was replaced by the rating a later file states (a stated rating replaces "
        "the list's for its period: docs/observations.md \"Corrections and stated "
        'ratings"); the later period starts from the stated rating.',
        "",
        "| player | name | list | published | revised | stated | from period | stated in |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {_text(r['player_id'])} | {_text(r['name'])} | {r['list']} | "
            f"{_listed(r['published'], whole)} | {_listed(r['revised'], whole)} | "
            f"{r['stated']:g} | {r['period']} | {_text(r['file'])} |"
        )
    stating = {r["file"]: r for r in rows}  # (first row of each file: its stored reading)
    files = ", ".join(_code(f) for f in stating)
    if not any(r.get("read_with") for r in stating.values()):
        lines += [
            "",
            f"To carry the revised ratings, ingest {files} again without their stated "
            "ratings: with only them in the inbox (from `INBOX/processed/`, under the same "
            "name), run `arpad recalculate` with `--ignore-stated-ratings` once (the option "
            "applies to the files of that run only; a player no players file lists and the "
            "store has not rated yet starts from the earliest rating such a file states "
            "for him); or have the arbiter "
            "send them with the revised ratings.",
            "",
        ]
        return lines
    # A stored version read with --pool (the way to undo a wrong pool guess): through
    # ``arpad recalculate``, which has no --pool, its games went back to the guessed pool.
    read = "; ".join(
        f"{_code(f)} with {_code(r['read_with'])}" for f, r in stating.items() if r.get("read_with")
    )
    commands = "; ".join(_code(remedy_command(f, r, store)) for f, r in stating.items())
    lines += [
        "",
        f"To carry the revised ratings, ingest {files} again without their stated ratings, "
        f"each with the options its stored version was read with ({read}), which `arpad "
        "recalculate` does not give (read through it without `--pool`, a file's games go "
        f"back to the pool it names): {commands}; then run `arpad recalculate` "
        "(`--ignore-stated-ratings` applies to the files it is given only; a player no "
        "players file lists and the store has not rated yet starts from the earliest "
        "rating such a file states for him); or have the arbiter send them with the "
        "revised ratings.",
        "",
    ]
    return lines


def remedy_command(label: str, r: dict, store: str | None) -> str:
    """``arpad ingest`` of a stating file's copy in ``INBOX/processed/`` as its stored
    source, with the options its stored version was read with (``stored_reading``) and
    ``--ignore-stated-ratings``: a new version of that source without stated ratings."""
    words = ["arpad ingest", shell_word(f"INBOX/processed/{label}")]
    words += ["--source", shell_word(r.get("source") or label)]
    words += [*([r["read_with"]] if r.get("read_with") else []), "--ignore-stated-ratings"]
    words += ["--store", shell_word(store)] if store else []
    return " ".join(words)


def recomputed_now(jobs: list[dict], key: str, period: int) -> bool:
    """Whether this run's job of ``key`` ("system/pool") recomputed ``period``: only
    then can a frozen list's revision be new to this report."""
    return any(
        f"{j['system']}/{j['pool']}" == key and (j["from"] is None or j["from"] <= period)
        for j in jobs
    )


def revision_line(r: dict, key: str) -> list[str]:
    """The report's "Revisions" of a frozen list this run did not recompute: one line.
    Its table is in the report of the run that recomputed it (and in `arpad diff
    --published`); before, every later report repeated it in full (the officer's
    attack, round 7: a duplicate id merged after the freeze was listed again each month).
    A frozen list is never published again (docs/lists.md), so nothing acknowledges
    it: the line says where the current ratings are, and that the lists frozen from now
    on include them, but for the players of ``not_carried`` (``freeze``: a rating a later
    file states replaced their revised rating, "Revisions not carried forward" in the
    report that recomputed it; the officer's attack, round 11: the line said the March
    list included Delta's revision, and March had 2165 + 8, not 2166 + 8)."""
    system, pool = key.split("/", 1)
    latest = f", the latest recorded {r['latest']}" if r.get("latest") else ""
    export = f"STORE/exports/system={system}/pool={pool}/list-{r['period']}.csv"
    ids = [str(one) for one in r.get("not_carried") or []]
    carried = ", and every list frozen from now on includes them."
    if ids:
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        where = (
            f"not carried forward: {_text(shown)}; that report lists them under "
            '"Revisions not carried forward"'
        )
        if len(ids) >= r["changed"]:
            carried = (
                "; no list frozen from now on includes them: a rating stated in a later "
                f"file replaced the revised rating of all {len(ids):,} ({where})."
            )
        else:
            carried = (
                f"; every list frozen from now on includes them except {len(ids):,} "
                "player(s) whose revised rating a rating stated in a later file replaced "
                f"({where})."
            )
    return [
        f"Revisions of the published {_text(key)} list of period {r['period']}: unchanged by "
        f"this run (it did not recompute the period): {r['changed']:,} player(s) changed by "
        f"{r['corrections']} ingest(s) or merge(s) since publication{latest}; the report "
        f"of the run that recomputed it (and {_code(diff_command(key, r['period']))}) lists "
        "them. A frozen list is never published again (docs/lists.md): the current ratings "
        f"are {_code(export)}{carried}",
        "",
    ]


# A note that one person may be rated under two ids (a mistyped id, a name given as an
# id, two FIDE ids for one name): each suggests this merge (pipeline/namesakes.py, …).
MERGE_HINT = "arpad players merge"


def held_line(summary: RecalculateSummary) -> str | None:
    """The report's one line when this run froze nothing because an inbox file holds
    the freeze (``holding``: rejected, with an unapplied correction, or a players file
    revising frozen lists; of this run or of one stopped before its report,
    ``earlier_files``): which file, why, what to do, which lists wait; else None."""
    waiting = [(k, out["held"]) for k, out in summary.published.items() if (out or {}).get("held")]
    pending = [*summary.files, *summary.earlier]  # (``earlier_files``: a stopped run's)
    revisers = [f for f in pending if f["outcome"] != REJECTED and f.get("revises")]
    if not waiting and not revisers:
        return None
    lists = "; ".join(
        f"{_text(k)} period {p[0]}" if len(p) == 1 else f"{_text(k)} periods {p[0]}-{p[-1]}"
        for k, p in waiting
    )
    parts = []
    names = [_held_name(f, summary) for f in pending if f["outcome"] == REJECTED]
    if names:
        files = ", ".join(names)
        one = len(names) == 1
        parts.append(
            f"inbox file{'' if one else 's'} {files} {'was' if one else 'were'} "
            f"rejected (now in `INBOX/rejected/`); fix {'it' if one else 'them'}, put "
            f"{'it' if one else 'them'} back in the inbox and run again: nothing is frozen "
            "until the inbox is clean, a run that rejects a file freezes no list"
        )
    held = [f for f in pending if f["outcome"] != REJECTED and unapplied(f)]
    if held:
        files = ", ".join(_held_name(f, summary) for f in held)
        one = len(held) == 1
        games = sum(unapplied(f) for f in held)
        parts.append(
            f"inbox file{'' if one else 's'} {files} (now in `INBOX/processed/`) "
            f"{'has' if one else 'have'} {games} game(s) quarantined as {_code(UNAPPLIED)}: a "
            "correction of games stored from another file (another result, or another "
            "date: a tournament's final report after its interim one), not applied; apply "
            f"it as {'its' if one else 'their'} note says (`arpad ingest` with `--source` "
            "naming the file it corrects), or leave it if the stored games stand, and run "
            "again: a run that leaves a correction unapplied freezes no list, as a month "
            "frozen without it stays so"
        )
    if revisers:
        files = ", ".join(_held_name(f, summary) for f in revisers)
        one = len(revisers) == 1
        revised = ", ".join(
            f"{_text(key)} period {p} ({n} player(s))" for key, p, n in revisers[0]["revises"]
        )
        parts.append(
            f"players file{'' if one else 's'} {files} (now in `INBOX/processed/`) "
            f"{'changes' if one else 'change'} the ratings of lists frozen before "
            f"{'it' if one else 'them'}: {revised}, the revisions below. A players file's "
            "undated ratings, rated games and peak ratings hold as of the store's first "
            "period, so the counts and peaks of a register exported now re-rate the months "
            "they grew in (docs/observations.md). To keep the frozen ratings, send "
            f"{'it' if one else 'them'} again under the same name with the rated games and "
            "peak ratings the store started from and the ratings dated (a `date` column, "
            "the list's month), and run again; to accept the revisions, run again: a run "
            "whose players file revises frozen lists freezes no list, the next one freezes "
            "with them. Later months' registers are best sent without the rated-games and "
            "peak columns: arpad counts the games it rates and the peaks it publishes"
        )
    waits = f"waiting: {lists}" if lists else "no list waits to be frozen"
    return f"Not frozen: {'; '.join(parts)} ({waits}; docs/operations.md)."


def _held_name(f: dict, summary: RecalculateSummary) -> str:
    """A file that holds the freeze, as ``held_line`` names it: a run stopped before its
    report took it (``earlier_files``), or this run."""
    name = _code(Path(f["path"]).name)
    return name if f in summary.files else f"{name} (taken by an interrupted run)"


def frozen_twice_lines(summary: RecalculateSummary) -> list[str]:
    """Under a note that suggests a merge (``MERGE_HINT``), when this run froze lists:
    they list both ids, and how that is corrected (the officer's attack, round 7: the
    cron run froze November with a mistyped id's player twice)."""
    frozen = [
        f"{key} period {period}"
        for key, out in summary.published.items()
        for period in (out or {}).get("frozen") or []
    ]
    if not frozen:
        return []
    return [
        f"- This run froze {', '.join(frozen)}: if the ids above are one player, the list "
        "has them as two players, and a frozen list is never revised or published again "
        "(docs/lists.md). To correct it, merge them (`arpad players merge KEEP DUPLICATE`, "
        "as the note says); the next `arpad recalculate` "
        "recomputes, lists the frozen list's revision in full once (\"Revisions of the "
        'published list …"), exports the current ratings as its revised list, and every '
        "list frozen from then on has one id."
    ]


def file_lines(summary: RecalculateSummary, files: list[dict]) -> list[str]:
    """The report's table of inbox files, then each file's notes and quarantined rows,
    then the pointer to the quarantine view (empty without files)."""
    if not files:
        return []
    lines = ["| file | kind | accepted | quarantined | outcome |", "|---|---|---:|---:|---|"]
    for f in files:
        name = _text(Path(f["path"]).name)
        outcome = f["outcome"] + (f" ({f['detail']})" if f.get("detail") else "")
        lines.append(
            f"| {name} | {_text(f['kind'])} | {f['accepted']:,} | {f['quarantined']:,} | "
            f"{_text(outcome)} |"
        )
    lines.append("")
    # Which rows and why, per file (docs/operations.md, step 5): the count alone
    # sent the officer to `arpad ingest` or the quarantine view to find them.
    # The notes for the rating officer first, as `arpad ingest` prints them.
    for f in files:
        notes = note_lines(f)
        if notes:
            lines += [f"Notes on {_text(Path(f['path']).name)}:", ""]
            lines += [f"- {_text(line)}" for line in notes]
            if any(MERGE_HINT in line for line in notes):
                lines += frozen_twice_lines(summary)
            lines.append("")
        shown = quarantine_lines(f)
        if shown:
            lines += [f"Quarantined rows of {_text(Path(f['path']).name)}:", ""]
            lines += [*(f"- {_text(line)}" for line in shown), ""]
    rows = quarantine_rows(files)
    if rows:  # the pointer of `arpad ingest`, the command as code
        lines += [
            f"{rows:,} rows quarantined: see the 'quarantine' view "
            f"({_code(quarantine_command(summary.store))}).",
            "",
        ]
    return lines


def _started(done: dict) -> str:
    """Which interrupted run(s) of ``summary.interrupted``, with when it started."""
    when = f"started {done['started']}" if done.get("started") else "start not known"
    if done.get("runs", 1) > 1:
        return f"{done['runs']} interrupted runs (the first {when})"
    return f"an interrupted run ({when})"


def interrupted_lines(summary: RecalculateSummary) -> list[str]:
    """What the runs stopped before their report did (``take_unreported``): one line,
    then their inbox files as this run's (``file_lines``); their recomputed lists'
    revisions follow in full with this run's (``recomputed_now``)."""
    done = summary.interrupted
    if not done:
        return []
    files, jobs = done.get("files") or [], done.get("jobs") or []
    did = []
    if files:
        did.append(f"took {len(files)} file(s) from the inbox")
    if jobs:
        did.append(
            "recomputed "
            + ", ".join(
                f"{_text(j['system'] + '/' + j['pool'])} from "
                + ("the first period" if j["from"] is None else f"period {j['from']}")
                for j in jobs
            )
        )
    lines = []
    if did:
        one = done.get("runs", 1) <= 1
        its, it = ("its", "it") if one else ("their", "they")
        gives = [f"{its} files below"] if files else []
        gives += [f"in full, the revisions of the lists {it} recomputed"] if jobs else []
        lines += [
            f"Not reported before: {_started(done)} {' and '.join(did)}, and "
            f"{'was' if one else 'were'} stopped (Ctrl-C, SIGTERM or a kill) before "
            f"{its} report{'' if one else 's'}; {its} work was kept, and this report gives "
            f'it: {" and, ".join(gives)} (docs/operations.md "A run stopped before its '
            'report").',
            "",
        ]
    lines += file_lines(summary, files)
    for line in done.get("unread") or []:
        lines += [f"Not read: {_text(line)}", ""]
    return lines


def interrupted_job_lines(summary: RecalculateSummary) -> list[str]:
    """Each system/pool a run stopped before its report recomputed (and this run did
    not): its heading, players rated and biggest movers, as a job of this run."""
    done = summary.interrupted
    own = {f"{j['system']}/{j['pool']}" for j in summary.jobs}
    lines = []
    for j in done.get("jobs") or []:
        key = f"{j['system']}/{j['pool']}"
        if key in own:  # (this run's heading and movers have it; its line names the start)
            continue
        start = "the first period" if j["from"] is None else f"period {j['from']}"
        lines += [
            f"## {key}",
            "",
            f"Recomputed from {start} by {_started(done)}: **{j['players']:,} players rated**.",
            "",
        ]
        lines += mover_lines(j["movers"], j["system"])
    return lines


def frozen_now(frozen: dict) -> list[int]:
    """The periods ``freeze`` froze in this run (its result ``frozen``)."""
    now = frozen.get("frozen")
    if now is None:  # (a summary of an earlier arpad)
        latest = frozen.get("period")
        now = [latest] if latest is not None and frozen.get("frozen_now", True) else []
    return now


def markdown(summary: RecalculateSummary) -> str:
    """The run's report (published as a Prefect markdown artifact)."""
    ingested, read = summary.games_ingested, summary.games_read
    # a correction's unchanged games are read, not ingested (docs/operations.md)
    unchanged = f" ({read:,} in the files read, {read - ingested:,} of them unchanged)"
    lines = [
        "# arpad monthly recalculation",
        "",
        f"Store {_code(summary.store)}: {len(summary.files)} files taken from the inbox, "
        f"**{ingested:,} games ingested**{unchanged if read != ingested else ''}, "
        f"**{summary.quarantined:,} rows quarantined**.",
        "",
    ]
    if summary.store_folder:  # (``store_folder``: not an unread folder)
        top, _, below = summary.store_folder.partition("/")
        where = "is the store (--store)"
        if below:
            where = f"holds the store ({_code(summary.store_folder)}, --store)"
        lines += [f"{_code(top + '/')} {where}: not read.", ""]
    if summary.unread:
        folders = ", ".join(_code(f"{name}/") for name in summary.unread)
        lines += [
            f"Not read: the inbox folder(s) {folders} (files are read from the inbox itself "
            "and from `players/`; move them there).",
            "",
        ]
    if summary.left_in_inbox:
        lines += ["Not read, left in the inbox:", ""]
        lines += [f"- {_code(name)}: {why}" for name, why in summary.left_in_inbox]
        lines.append("")
    lines += file_lines(summary, summary.files)
    if summary.skipped:  # a pool a system could not start (``plan``)
        lines += ["Not rated (no published starting ratings of the pool):", ""]
        lines += [f"- {_text(line)}" for line in summary.skipped]
        lines.append("")
    if summary.removed:  # said before the jobs: the lists below no longer include them
        lines += ["Ratings removed (their pool holds no games now; published lists stay):", ""]
        lines += [f"- {_text(line)}" for line in summary.removed]
        lines.append("")
    lines += interrupted_lines(summary)
    if not summary.jobs and summary.interrupted.get("jobs"):  # (its lists: below)
        lines += ["Nothing else to recompute: every system and pool was up to date.", ""]
    elif not summary.jobs:
        lines += ["Every system and pool was up to date: nothing recomputed.", ""]
    for job in summary.jobs:
        key = f"{job['system']}/{job['pool']}"
        start = "the first period" if job["from"] is None else f"period {job['from']}"
        lines += [
            f"## {key}",
            "",
            f"Recomputed {job['periods']} period{'s' if job['periods'] != 1 else ''} from "
            f"{start}: {job['games']:,} games, "
            f"**{summary.players_rated.get(key, 0):,} players rated**.",
            "",
            *rules_lines(job),
            # (``_rate_notes``; a summary of an earlier arpad has none)
            *(line for note in job.get("notes") or [] for line in (f"Note: {_text(note)}", "")),
        ]
        lines += mover_lines(summary.movers.get(key) or [], job["system"])
    lines += interrupted_job_lines(summary)
    # the periods this run or a run stopped before its report recomputed: their
    # revisions are new to this report (``recomputed_now``)
    recomputed = [*summary.jobs, *(summary.interrupted.get("jobs") or [])]
    revised = {
        f"system={key.split('/', 1)[0]}/pool={key.split('/', 1)[1]}/list-{period}"
        for key, frozen in summary.published.items()
        for period in (frozen or {}).get("revised", [])
    }

    held = {  # the lists a rejected inbox file kept from being frozen (``held_line``)
        f"system={key.split('/', 1)[0]}/pool={key.split('/', 1)[1]}/list-{period}"
        for key, frozen in summary.published.items()
        for period in (frozen or {}).get("held", [])
    }

    def is_revised(path: str) -> bool:
        p = Path(path)
        return f"{p.parent.parent.name}/{p.parent.name}/{p.stem}" in revised

    def is_held(path: str) -> bool:
        p = Path(path)
        return f"{p.parent.parent.name}/{p.parent.name}/{p.stem}" in held

    # "Published lists" are the lists this run froze; the export of the latest list an
    # earlier run froze, written again as it was, is "Already frozen" (the officer's
    # attack, round 11: January's rapid export was "Published" in every later report)
    froze = {
        f"system={key.split('/', 1)[0]}/pool={key.split('/', 1)[1]}/list-{period}"
        for key, frozen in summary.published.items()
        for period in frozen_now(frozen or {})
    }
    behind = {  # a month before a later frozen list (``passed_over``): neither
        f"system={key.split('/', 1)[0]}/pool={key.split('/', 1)[1]}/list-{period}"
        for key, frozen in summary.published.items()
        for period, _ in (frozen or {}).get("passed") or []
    }

    def named(path: str, which: set[str]) -> bool:
        p = Path(path)
        return f"{p.parent.parent.name}/{p.parent.name}/{p.stem}" in which

    rest = [
        p for p in summary.exports if not provisional(p) and not is_revised(p) and not is_held(p)
    ]
    final = [p for p in rest if named(p, froze)]
    before = [p for p in rest if not named(p, froze) and not named(p, behind)]
    early = [p for p in summary.exports if provisional(p)]
    late = [p for p in summary.exports if is_revised(p)]
    if final:
        lines += ["Published lists:", "", *(f"- `STORE/{p}`" for p in final), ""]
    if before:  # the frozen list's ratings, as an earlier run froze them (docs/operations.md)
        lines += [
            "Already frozen by an earlier run (the export is that list, its ratings as frozen):",
            "",
            *(f"- `STORE/{p}`" for p in before),
            "",
        ]
    if unfrozen := [p for p in rest if named(p, behind)]:
        lines += [
            "Exported, not frozen (a later list is already frozen, and lists are frozen in order):",
            "",
            *(f"- `STORE/{p}`" for p in unfrozen),
            "",
        ]
    if held:  # exported with the current ratings, not frozen (docs/operations.md)
        pending = [*summary.files, *summary.earlier]
        rejects = any(f["outcome"] == REJECTED for f in pending)
        corrects = any(f["outcome"] != REJECTED and unapplied(f) for f in pending)
        revises = any(f["outcome"] != REJECTED and f.get("revises") for f in pending)
        why = {
            (True, False, False): "was rejected, below; the next run that rejects none",
            (False, True, False): "holds an unapplied correction, below; the next run without one",
            (False, False, True): "revises lists frozen before it, below; the next run without one",
        }.get(
            (rejects, corrects, revises),
            "was rejected, holds an unapplied correction or revises frozen lists, below; the "
            "next run without any",
        )
        lines += [
            f"Not frozen (an inbox file {why} freezes them):",
            "",
            *(f"- `STORE/{p}`" for p in summary.exports if is_held(p)),
            "",
        ]
    if late:  # the current ratings of a list frozen earlier (docs/operations.md)
        lines += [
            "Revised lists (the current ratings of a list an earlier run froze; they differ "
            "from the frozen list, `arpad diff --published`):",
            "",
            *(f"- `STORE/{p}`" for p in late),
            "",
        ]
    if early:  # a month in progress: its list so far, not a published one (docs/lists.md)
        lines += [
            "Provisional (month in progress):",
            "",
            *(f"- `STORE/{p}`" for p in early),
            "",
        ]
    if line := held_line(summary):
        lines += [line, ""]
    for key, frozen in summary.published.items():
        if not frozen:
            continue
        system, pool = key.split("/", 1)
        skipped = frozen.get("not_finished")
        if skipped is None:  # (a summary of an earlier arpad)
            skipped = [] if frozen.get("in_progress") is None else [frozen["in_progress"]]
        for period in skipped:  # rated, not frozen (docs/lists.md)
            note = in_progress_note(system, pool, period, frozen.get("today"))
            lines += [f"Not frozen: {note}.", ""]
        latest = frozen["period"]
        now = frozen_now(frozen)
        for period in now:  # oldest first, each month never frozen (``to_freeze``)
            lines += [f"Frozen list {key} period {period} (`STORE/published/`).", ""]
        if quiet := frozen.get("quiet"):  # months without games (docs/lists.md)
            from arpad.pipeline.lists import quiet_note

            note = quiet_note(system, pool, quiet["months"], quiet["source"])
            lines += [f"{_text(note)}.", ""]
        # players listed from a players file's rating of every pool, no game in the pool
        for period, n, listed in frozen.get("every_pool") or []:
            from arpad.pipeline.publish import every_pool_note

            note = every_pool_note(system, pool, period, n, listed)
            lines += [f"Note: {_text(note)}", ""]
        passed = frozen.get("passed")
        if passed is None:  # (a summary of an earlier arpad)
            later = frozen.get("later")
            passed = [[latest, later]] if latest not in now and later is not None else []
        for later, periods in _by_later(passed):  # months before a frozen one (``passed_over``)
            which = (
                f"list {key} period {periods[0]}"
                if len(periods) == 1
                else f"{len(periods)} lists {key} periods {periods[0]}-{periods[-1]}"
            )
            lines += [
                f"Not frozen: {which}: the later period {later} is already frozen, "
                "and lists are frozen in order (docs/lists.md).",
                "",
            ]
        waiting = {p for p, _ in passed} | set(frozen.get("held") or [])
        if latest is not None and latest not in now and latest not in waiting:
            lines += [
                f"Already frozen: list {key} period {latest}, by an earlier run "
                "(`STORE/published/`; left as it is).",
                "",
            ]
        # each earlier frozen list a correction revised, oldest first, then the latest
        whole = get_system(system).integer_ratings  # as its lists (docs/lists.md)
        # (in full when this run recomputed the period, else one line: ``revision_line``)
        for r in [
            *(frozen.get("revisions") or []),
            *([{**frozen, "period": frozen["previous"]}] if frozen["previous"] is not None else []),
        ]:
            now = recomputed_now(recomputed, key, r["period"])
            if r["changed"] and not now:
                lines += revision_line(r, key)
            elif now or r["changed"]:  # (a list nothing touched: no block, round 15)
                lines += revision_lines(r, whole, key)
        # (as a revision's table: in the report of the run that recomputed the period)
        replaced = [
            r for r in frozen.get("replaced") or [] if recomputed_now(recomputed, key, r["period"])
        ]
        lines += replaced_lines(replaced, key, whole, summary.store)
    return "\n".join(lines)
