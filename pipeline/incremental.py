"""Corrections and incremental recomputation (docs/pgn-trf.md "Corrections and incremental recomputation").

An ingest that changes the games of a period (a corrected file, ``--replace``
of game ids, or late results for a period already rated) marks every
system/pool that has ratings in that pool stale from the earliest changed
period. The marks live in ``STORE/manifest/stale.json`` as
``{"<system>/<pool>": <period>}``.

``arpad rate`` (without ``--from`` and ``--full``) then starts the engine at
the earliest stale period, from the checkpoint of the period before it, and
clears the mark. This equals a full recompute because periods before the
mark did not change, and their checkpoints hold the complete state the next
period needs (tests/test_corrections.py proves it for every system).

An incremental start is refused (a full run is made instead) when the
checkpoint before the mark was not written by a run that ``arpad rate``
recorded with the same rules and overrides (``STORE/manifest/rated.json``
keeps, per system/pool, that spec and the run ids of the resumable-run
journal, pipeline/resume.py), when there is no checkpoint before the mark, or
when the players table changed a value of a player the checkpoints already
hold (ingest then marks period 0 = "from the first period").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from arpad.pipeline.store import Store, atomic_write_text

FROM_FIRST = 0  # a stale mark meaning "recompute from the first period"


def _path(store: Store, name: str) -> Path:
    return store.manifest_path.parent / name  # (a staged ingest redirects it, journal.py)


def _read(store: Store, name: str) -> dict:
    """``stale.json`` or ``rated.json``; a damaged one is a one-line error naming it and
    its repair (``integrity.open_json``), not a bare JSON message."""
    from arpad.pipeline.integrity import open_json, rated_problem, stale_problem

    path = _path(store, name)
    if not path.exists():
        return {}
    check = stale_problem if name == "stale.json" else rated_problem
    data = open_json(path, check)
    return {k: v for k, v in data.items() if "/" in k}  # ignore the old per-pool format


def _write(store: Store, name: str, data: dict) -> None:
    atomic_write_text(json.dumps(data, sort_keys=True, indent=1), _path(store, name), store.root)


def rated_systems(store: Store, pool: str) -> list[str]:
    """Systems with at least one ratings partition in ``pool``."""
    base = store.ratings_dir
    if not base.is_dir():
        return []
    return sorted(
        d.name.split("=", 1)[1]
        for d in base.iterdir()
        if d.is_dir() and d.name.startswith("system=") and (d / f"pool={pool}").is_dir()
    )


def read_stale(store: Store) -> dict[str, int]:
    return _read(store, "stale.json")


def mark_stale(store: Store, touched: list[tuple[str, int]]) -> dict[str, int]:
    """Mark every rated system of each touched pool stale from the earliest touched period."""
    stale = read_stale(store)
    for pool, period in touched:
        for system in rated_systems(store, pool):
            key = f"{system}/{pool}"
            stale[key] = min(int(period), stale.get(key, int(period)))
    if touched:
        _write(store, "stale.json", stale)
    return stale


def interrupted(store: Store, system: str, pool: str) -> bool:
    """Whether the last ``arpad rate`` of ``system``/``pool`` was killed or interrupted:
    its resume journal still says ``running`` (pipeline/resume.py) and no other process
    is running it now (``rate_in_progress``). Until it is run again, some periods may
    hold that run's ratings and others an earlier run's (other rules, ``--set``)."""
    written = _running_journal(store, system, pool)
    if written is None:
        return False
    writer = _other_writer(store)
    if writer is not None and written >= writer[1]:
        return False  # written under the lock another process holds now: its run
    # A run that ended (or started) between the two looks has written its journal again.
    return _running_journal(store, system, pool) == written


def rate_in_progress(store: Store, system: str, pool: str) -> int | None:
    """The pid of another process whose ``arpad rate`` of ``system``/``pool`` is going on
    now, else None: it holds the store's writer lock and wrote the journal that says
    ``running`` after it took the lock (a journal written before is a killed run's, and
    the holder is doing something else, or not yet resuming it). A lock-free reader then
    sees periods being replaced, not a killed run's mixture (docs/store.md "A rate in
    progress is not an interrupted one")."""
    written = _running_journal(store, system, pool)
    writer = None if written is None else _other_writer(store)  # (a stat when no run)
    if writer is None or written < writer[1]:
        return None
    return writer[0]


def _running_journal(store: Store, system: str, pool: str) -> int | None:
    """When the run journal of ``system``/``pool`` was written (``st_mtime_ns``) if it says
    ``running``, else None."""
    from arpad.pipeline.integrity import open_json

    path = store.journal_path(system, pool)  # (resume.read_journal's file, checked)
    try:
        written = path.stat().st_mtime_ns
        journal = open_json(path)
    except FileNotFoundError:
        return None
    return written if journal and journal.get("status") == "running" else None


def _other_writer(store: Store) -> tuple[int, int] | None:
    """``(pid, when it took the lock)`` of another process holding the store's writer lock
    now, else None. ``writer_lock`` writes its holder's pid into ``STORE/.lock`` right after
    taking the ``flock`` (so the file's ``st_mtime_ns`` is when) and empties it on release;
    a killed holder's pid stays. Read only: taking the lock, even shared and for an instant,
    would make a writer starting at that instant fail as busy."""
    path = store.root / ".lock"
    try:
        info = json.loads(path.read_text() or "{}")
        locked = path.stat().st_mtime_ns
        pid = int(info["pid"]) if isinstance(info, dict) else 0
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no lock file, released, or not yet written by its new holder
    if pid <= 0 or pid == os.getpid():
        return None  # this process holds it (a writing command asks): no other run
    return (pid, locked) if _flock_held(path, pid) else None


def _flock_held(path: Path, pid: int) -> bool:
    """Whether an exclusive ``flock`` on ``path`` is held now: from ``/proc/locks``
    (Linux), whose line ``1: FLOCK  ADVISORY  WRITE 30747 fe:00:2253262 0 EOF`` names the
    holder's pid and the file's device and inode (a waiter's line has ``->`` after the
    number). Without ``/proc/locks``, whether the pid the lock file names is alive."""
    try:
        stat = path.stat()
    except OSError:
        return False  # removed since: no lock to hold
    try:
        table = Path("/proc/locks").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, OverflowError):
            return False  # dead, or a number no process has
        except OSError:
            pass  # alive, another user's
        return True
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}"
    for line in table.splitlines():
        fields = line.split()
        if fields[1:4] != ["FLOCK", "ADVISORY", "WRITE"] or len(fields) < 6:
            continue
        where, _, inode = fields[5].rpartition(":")
        # The device as overlayfs reports it may differ from stat's: the pid then decides.
        if inode == str(stat.st_ino) and (where == device or fields[4] == str(pid)):
            return True
    return False


def mark_system_stale(store: Store, system: str, pool: str, period: int) -> None:
    """Mark one system/pool stale from ``period`` (``mark_stale`` marks every rated
    system of the pool: games changed for all of them)."""
    stale = read_stale(store)
    key = f"{system}/{pool}"
    stale[key] = min(int(period), stale.get(key, int(period)))
    _write(store, "stale.json", stale)


def mark_all_stale(store: Store) -> None:
    """Players changed: every rated system/pool recomputes from its first period."""
    pools = sorted(
        d.name.split("=", 1)[1]
        for sysdir in (store.ratings_dir.iterdir() if store.ratings_dir.is_dir() else [])
        for d in sysdir.iterdir()
        if d.is_dir() and d.name.startswith("pool=")
    )
    mark_stale(store, [(pool, FROM_FIRST) for pool in sorted(set(pools))])


def first_stale(store: Store, system: str, pool: str, mark: int) -> int:
    """The first period a stale ``mark`` of ``system``/``pool`` covers: the first stored
    or rated period from it (mark 0: the pool's first period), else the mark. A run from
    there or before rates every stale period again; one from later leaves it stale."""
    periods = {*store.periods(pool), *store.rating_periods(system, pool)}
    return min((p for p in periods if p >= mark), default=mark)


def run_spec(rules: str | None, overrides: dict[str, str] | None) -> dict:
    return {"rules": rules, "overrides": dict(sorted((overrides or {}).items()))}


def recorded_rules(
    store: Store, system: str, pool: str
) -> tuple[str | None, dict[str, str]] | None:
    """``(--rules spec, --set overrides)`` of the last run of ``system``/``pool`` that
    ``rated.json`` records (``record_run``: as ``arpad rate`` parsed them), else None
    (never rated, or a ``--from``/``--to`` run with other rules mixed the checkpoints).
    The monthly job rates with them (docs/operations.md "The rules of the monthly job")."""
    from arpad.pipeline.integrity import damaged

    key = f"{system}/{pool}"
    entry = _read(store, "rated.json").get(key)
    if not entry or "spec" not in entry:
        return None
    spec = entry["spec"] if isinstance(entry["spec"], dict) else {"rules": 0}
    rules, overrides = spec.get("rules"), spec.get("overrides")
    if (
        not (rules is None or isinstance(rules, str))
        or not isinstance(overrides, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in overrides.items())
    ):
        raise damaged(
            _path(store, "rated.json"),
            f'the spec of {key!r} is not {{"rules": null or a string, "overrides": '
            "{name: string}}",
        )
    return rules, dict(overrides)


def incremental_start(
    store: Store, system: str, pool: str, rules: str | None, overrides: dict[str, str] | None
) -> int | None:
    """Where ``arpad rate`` should start: the stale period when an incremental run is
    exact, else None (a full run). None also when nothing is stale."""
    mark = read_stale(store).get(f"{system}/{pool}")
    if mark is None or mark == FROM_FIRST:
        return None
    recorded = _read(store, "rated.json").get(f"{system}/{pool}")
    if not recorded or recorded.get("spec") != run_spec(rules, overrides):
        return None
    periods = store.periods(pool)
    later = [p for p in periods if p >= mark]
    if not later:
        return None
    start = later[0]
    if not any(p < start for p in periods):
        return None
    before = [p for p in store.state_periods(system, pool) if p < start]
    if not before:
        return None
    _, meta = store.read_state(system, pool, before[-1])
    if meta.get("run") is None or meta.get("run") not in recorded.get("runs", []):
        return None
    return start


def record_run(
    store: Store,
    system: str,
    pool: str,
    start: int | None,
    end: int | None,
    rules: str | None,
    overrides: dict[str, str] | None,
) -> None:
    """After a successful run: clear the stale mark it covered; remember its rule spec.
    A run stopped by ``end`` before the latest rated period with rules other than the
    recorded run's (``k=``, ``--set``, ``--rules``; or none recorded) marks the periods
    after ``end`` stale: they build on the state the run replaced (docs/store.md "Limits")."""
    key = f"{system}/{pool}"
    rated = _read(store, "rated.json")
    spec = run_spec(rules, overrides)
    entry = rated.get(key)
    later = [p for p in store.rating_periods(system, pool) if end is not None and p > end]
    stale = read_stale(store)
    mark = stale.get(key)
    # (``--from`` the pool's first period after a players change is a full run too)
    if mark is not None and (start is None or start <= first_stale(store, system, pool, mark)):
        if later:
            stale[key] = max(mark, later[0])  # periods after --to keep old ratings: still stale
        else:
            del stale[key]
        _write(store, "stale.json", stale)
    elif mark is None and later and not (entry and entry.get("spec") == spec):
        stale[key] = later[0]  # (the recorded rules rate the range as before: no mark)
        _write(store, "stale.json", stale)
    from arpad.pipeline.resume import read_journal

    journal = read_journal(store, system, pool) or {}
    run = journal.get("run") if journal.get("status") == "done" else None
    if start is None and end is None:
        rated[key] = {"spec": spec, "runs": [run] if run else []}
    elif entry and entry.get("spec") == spec and run:
        entry["runs"] = [*entry["runs"], run]
    else:
        rated.pop(key, None)  # checkpoints now mix rule sets: no incremental start
    _write(store, "rated.json", rated)
