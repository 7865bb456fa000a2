"""Crash-safe rating runs: a killed run, started again, resumes from its last checkpoint.

The engine writes, per period, the ratings partition and then a state checkpoint
whose ``meta.json`` is written last (pipeline/store.py), each file atomically.
A run here is journalled in ``STORE/runs/system=<s>/pool=<p>.json`` with

* a fingerprint of its inputs: the pool's game files (name and size; a file's
  name carries the content hash of its source), the players file's digest, the
  system, the rule spec, the overrides and the period range;
* a run id, which the engine copies into every checkpoint's ``meta.json``.

Started again with the same fingerprint while the journal still says
``running``, the run continues after the last of its periods whose checkpoint
carries its run id (checkpoints are sparse, pipeline/checkpoints.py), and the result is identical to an uninterrupted
run (tests/test_resume.py kills real subprocesses with SIGKILL to show it).
Any change of inputs (an ingest, other rules) starts a fresh run instead.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arpad.pipeline import catalog, engine
from arpad.pipeline.store import Store, atomic_write_text


def journal_path(store: Store, system: str, pool: str) -> Path:
    return store.journal_path(system, pool)


def read_journal(store: Store, system: str, pool: str) -> dict | None:
    path = journal_path(store, system, pool)
    if not path.exists():
        return None
    from arpad.pipeline.integrity import open_json  # a damaged journal is named

    return open_json(path)


def _file_digest(path: Path) -> str:
    if not path.exists():
        return ""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fingerprint(
    store: Store,
    system: str,
    pool: str,
    start: int | None,
    end: int | None,
    rules: str | None,
    overrides: dict[str, str] | None,
) -> str:
    """Digest of everything a run's result depends on."""
    h = hashlib.sha256()
    parts = {
        "system": system,
        "pool": pool,
        "start": start,
        "end": end,
        "rules": rules,
        "overrides": sorted((overrides or {}).items()),
        "players": _file_digest(store.players_path),
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    for f in store.game_files(pool):
        h.update(f"{f.relative_to(store.root)}:{f.stat().st_size}\n".encode())
    return h.hexdigest()


def _completed_prefix(
    store: Store, system: str, pool: str, walk: list[int], run: str
) -> int | None:
    """The last period of ``walk`` with a checkpoint of ``run``: the engine walks the
    periods in order and writes a checkpoint after the period's ratings, so ``run`` has
    completed every period up to it. Checkpoints are sparse (pipeline/checkpoints.py):
    the periods after it that ``run`` had rated are computed again."""
    from arpad.pipeline.integrity import open_json  # a damaged checkpoint is named

    for period in reversed(walk):
        meta = store.state_partition(system, pool, period) / "meta.json"
        if meta.exists() and open_json(meta).get("run") == run:
            return period
    return None


def rate_resumable(
    store: Store,
    system: str,
    pool: str = "standard",
    start: int | None = None,
    end: int | None = None,
    rules: str | None = None,
    overrides: dict[str, str] | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    refresh_catalog: bool = True,
    resolved_rules: Any | None = None,
    shards: int | None = None,
    shard_map: Callable | None = None,
    checkpoint_every: int | None = None,
    catalog_ahead: bool = False,
) -> engine.RateSummary:
    """``engine.rate`` that resumes an interrupted run of the same inputs.

    ``rules`` is the ``--rules`` spec (resolved with ``engine.resolve_rules``);
    the returned summary covers the periods this call computed, and
    ``summary.resumed_after`` (when set) is the last period a killed run had
    already completed.
    """
    fp = fingerprint(store, system, pool, start, end, rules, overrides)
    if resolved_rules is None:
        resolved_rules = engine.resolve_rules(system, rules, pool)
    sys_ = engine.get_system(system)
    rules_for = engine.rules_picker(sys_, pool, resolved_rules, overrides)
    walk = [
        p
        for p in engine.run_periods(store, sys_, pool, rules_for)
        if (start is None or p >= start) and (end is None or p <= end)
    ]
    journal = read_journal(store, system, pool)
    resumed_after = None
    if journal and journal.get("status") == "running" and journal.get("fingerprint") == fp:
        run = journal["run"]
        resumed_after = _completed_prefix(store, system, pool, walk, run)
        if walk and resumed_after == walk[-1] and sys_.revises_history(rules_for(walk[-1])):
            # A system whose reports the run's end rewrites (WHR, retroactive) writes that
            # rewrite after its last checkpoint: a run killed inside it has the checkpoint
            # but not every file. Its last period is rated again, which rewrites them all.
            resumed_after = walk[-2] if len(walk) > 1 else None
        # Written again: a journal written under the writer lock its reader sees held is a
        # run in progress, not a killed one (incremental.rate_in_progress).
        journal["resumed_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        atomic_write_text(
            json.dumps(journal, sort_keys=True), journal_path(store, system, pool), store.root
        )
    else:
        run = uuid.uuid4().hex
        journal = {
            "run": run,
            "fingerprint": fp,
            "status": "running",
            "start": start,
            "end": end,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_text(
            json.dumps(journal, sort_keys=True), journal_path(store, system, pool), store.root
        )

    # Checkpoints in range of periods that hold no games any more would be picked up as
    # "the checkpoint before start"; an uninterrupted run removes them at its end anyway.
    in_range = set(walk)
    for p in store.state_periods(system, pool):
        if (start is None or p >= start) and (end is None or p <= end) and p not in in_range:
            store.remove_ratings(system, pool, p)

    run_start = start
    if resumed_after is not None:
        later = [p for p in walk if p > resumed_after]
        run_start = later[0] if later else resumed_after + 1
    summary = engine.rate(
        store,
        system,
        pool=pool,
        start=run_start,
        end=end,
        rules=resolved_rules,
        overrides=overrides,
        progress=progress,
        refresh_catalog=False,
        checkpoint_meta={"run": run},
        shards=shards,  # not in the fingerprint: sharding does not change the results
        shard_map=shard_map,
        checkpoint_every=checkpoint_every,  # nor are the checkpoints' periods
        resumed=resumed_after is not None,
        catalog_ahead=refresh_catalog or catalog_ahead,
    )
    summary.resumed_after = resumed_after
    # The uninterrupted run's clean-up over the whole requested range.
    for p in store.rating_periods(system, pool):
        if (start is None or p >= start) and (end is None or p <= end) and p not in in_range:
            store.remove_ratings(system, pool, p)
    journal.update(status="done", finished_at=time.strftime("%Y-%m-%dT%H:%M:%S"))
    atomic_write_text(
        json.dumps(journal, sort_keys=True), journal_path(store, system, pool), store.root
    )
    if refresh_catalog:
        catalog.refresh(store)
    return summary


def forget_runs(store: Store) -> None:
    """Drop every run journal (the next runs start fresh)."""
    store.remove_tree(store.root / "runs")
