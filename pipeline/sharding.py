"""A period's step sharded by player: each shard rates its own players, results merged.

A system is *shardable* (attribute ``shardable = True``) when its update of a
player reads only that player's own games and the pre-period state of
everyone (the opponents' ratings before the period). Then a shard that gets
the full pre-period state (a broadcast) and only the games touching its
players computes, for its players, exactly what the unsharded step computes:
every per-player quantity is a sum over the player's own CSR entries, and
``PeriodGames.subset`` keeps the games' order, so each player's entries come
in the same order and the floating-point sums are bit-identical. Rows of
players outside the shard (who see only part of their games) are dropped.

Merging (``merge``):

* per-player state arrays, report columns and status: each shard's own rows;
* state tables with a ``player`` column (FIDE's pool of unrated players'
  games): each shard's rows of its players, put back in the table's row order
  by the keys the system declares in ``shard_table_order`` (default: player);
* ``Report.extra``: a per-player array takes each shard's own rows; the keys in
  the system's ``shard_index_extras`` (arrays of player indices, e.g. Glicko-2's
  ``volatility_not_converged``) are each shard's own indices, concatenated;
  anything else must be equal in every shard (checked).

Shards are contiguous ranges of player indices with about the same number of
game entries each. ``submit`` runs one function over the shards: ``local_map``
(a loop in this process), ``dask_map(client)`` (the state and games scattered
once to every worker, one task per shard) or ``auto_map()`` (Dask when called
inside a Dask task, e.g. the rate flow's task on a DaskTaskRunner, else local).
docs/operations.md "Sharding a period by player".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import PeriodGames, Report, State

ShardMap = Callable[[Callable, "FlatGames", State, Any, str, Sequence[tuple[int, int]]], list]


@dataclass
class FlatGames:
    """The flat arrays of a period's games (what a shard needs to build its subset)."""

    period: int
    previous_period: int | None
    n_players: int
    white: np.ndarray
    black: np.ndarray
    score: np.ndarray
    event: np.ndarray
    day: np.ndarray | None = None
    event_key: np.ndarray | None = None

    @classmethod
    def of(cls, games: PeriodGames) -> FlatGames:
        return cls(
            games.period,
            games.previous_period,
            games.n_players,
            games.white,
            games.black,
            games.score,
            games.event,
            games.day,
            games.event_key,
        )


@dataclass
class ShardResult:
    """A shard's rows: players [lo, hi) of the new state and of the report."""

    lo: int
    hi: int
    players: dict[str, np.ndarray]
    tables: dict[str, dict[str, np.ndarray]]
    columns: dict[str, np.ndarray]
    status: np.ndarray
    extra: dict[str, tuple[str, Any]]  # key -> ("rows" | "indices" | "same", value)


def is_shardable(system) -> bool:
    return system.shardable


def shard_bounds(offsets: np.ndarray, shards: int) -> list[tuple[int, int]]:
    """Contiguous player ranges [lo, hi) covering 0..n with about equal game entries each."""
    n = int(offsets.shape[0]) - 1
    shards = max(1, min(int(shards), max(n, 1)))
    total = int(offsets[-1])
    cuts = [0]
    for k in range(1, shards):
        target = total * k // shards if total else n * k // shards
        cut = int(np.searchsorted(offsets, target, side="left")) if total else target
        cuts.append(min(max(cut, cuts[-1]), n))
    cuts.append(n)
    return [(lo, hi) for lo, hi in itertools.pairwise(cuts) if hi > lo] or [(0, n)]


def run_shard(
    system_name: str, flat: FlatGames, state: State, rules: Any, lo: int, hi: int
) -> ShardResult:
    """The step on the games touching players [lo, hi); returns those players' rows."""
    system = get_system(system_name)
    mine = ((flat.white >= lo) & (flat.white < hi)) | ((flat.black >= lo) & (flat.black < hi))
    games = PeriodGames.build(
        flat.period,
        flat.white[mine],
        flat.black[mine],
        flat.score[mine],
        flat.n_players,
        flat.event[mine],
        flat.previous_period,
        None if flat.day is None else flat.day[mine],
        None if flat.event_key is None else flat.event_key[mine],
    )
    new_state, report = system.step(state, games, rules)
    n = flat.n_players
    index_extras = set(system.shard_index_extras)

    def rows(values):
        return np.asarray(values)[lo:hi].copy()

    tables = {}
    for name, table in new_state.tables.items():
        if "player" not in table:
            raise ValueError(
                f"{system_name}: state table {name!r} has no player column; it cannot be sharded"
            )
        own = (table["player"] >= lo) & (table["player"] < hi)
        tables[name] = {k: np.asarray(v)[own] for k, v in table.items()}
    extra: dict[str, tuple[str, Any]] = {}
    for key, value in (report.extra or {}).items():
        if key in index_extras:
            v = np.asarray(value)
            extra[key] = ("indices", v[(v >= lo) & (v < hi)])
        elif isinstance(value, np.ndarray) and value.shape == (n,):
            extra[key] = ("rows", rows(value))
        elif key == "games":
            raise ValueError(f"{system_name}: per-game reports cannot be sharded")
        else:
            extra[key] = ("same", value)
    return ShardResult(
        lo=lo,
        hi=hi,
        players={k: rows(v) for k, v in new_state.players.items()},
        tables=tables,
        columns={k: rows(v) for k, v in report.columns.items()},
        status=rows(report.status),
        extra=extra,
    )


def merge(system, parts: list[ShardResult], n: int) -> tuple[State, Report]:
    """The unsharded step's (state, report) from the shards' rows (module docstring)."""
    parts = sorted(parts, key=lambda p: p.lo)
    covered = [(p.lo, p.hi) for p in parts]
    if (
        covered[0][0] != 0
        or covered[-1][1] != n
        or any(a[1] != b[0] for a, b in itertools.pairwise(covered))
    ):
        raise ValueError(f"shards {covered} do not cover players 0..{n}")
    first = parts[0]
    players = {k: np.concatenate([p.players[k] for p in parts]) for k in first.players}
    order_keys = system.shard_table_order
    tables = {}
    for name in first.tables:
        cols = {k: np.concatenate([p.tables[name][k] for p in parts]) for k in first.tables[name]}
        keys = order_keys.get(name, ("player",))
        # np.lexsort sorts by the last key first; it is stable.
        order = np.lexsort([cols[k] for k in reversed(keys)])
        tables[name] = {k: v[order] for k, v in cols.items()}
    columns = {k: np.concatenate([p.columns[k] for p in parts]) for k in first.columns}
    status = np.concatenate([p.status for p in parts])
    extra: dict[str, Any] = {}
    for key, (kind, value) in first.extra.items():
        if kind in ("rows", "indices"):
            extra[key] = np.concatenate([p.extra[key][1] for p in parts])
            continue
        for p in parts[1:]:
            if not np.array_equal(np.asarray(p.extra[key][1]), np.asarray(value)):
                raise ValueError(f"report.extra[{key!r}] differs between shards")
        extra[key] = value
    return State(players=players, tables=tables), Report(
        columns=columns, status=status, extra=extra
    )


def local_map(fn, flat, state, rules, system_name, bounds) -> list[ShardResult]:
    """One shard after the other in this process."""
    return [fn(system_name, flat, state, rules, lo, hi) for lo, hi in bounds]


def dask_map(client) -> ShardMap:
    """Shards as tasks on a ``distributed.Client``: state and games scattered once to
    every worker (a broadcast), one task per shard."""

    def submit(fn, flat, state, rules, system_name, bounds):
        state_f = client.scatter(state, broadcast=True, hash=False)
        flat_f = client.scatter(flat, broadcast=True, hash=False)
        futures = [
            client.submit(fn, system_name, flat_f, state_f, rules, lo, hi, pure=False)
            for lo, hi in bounds
        ]
        return client.gather(futures)

    return submit


def auto_map() -> ShardMap:
    """``dask_map`` when running inside a Dask task, else ``local_map``."""
    from arpad.pipeline.runner import on_dask_worker

    if not on_dask_worker():
        return local_map

    def submit(fn, flat, state, rules, system_name, bounds):
        from distributed import worker_client

        # worker_client secedes this task's thread while the shards run (so a worker
        # with one thread can run shards too) and rejoins afterwards.
        with worker_client() as client:
            return dask_map(client)(fn, flat, state, rules, system_name, bounds)

    return submit


def step_sharded(
    system,
    state: State,
    games: PeriodGames,
    rules: Any,
    shards: int,
    submit: ShardMap | None = None,
) -> tuple[State, Report]:
    """``system.step(state, games, rules)`` computed in ``shards`` player shards.

    Equal to the unsharded step (module docstring) for a shardable system;
    raises ValueError for the others.
    """
    if not is_shardable(system):
        raise ValueError(f"{system.name} cannot be sharded by player (see docs/operations.md)")
    bounds = shard_bounds(games.offsets, shards)
    parts = (submit or local_map)(run_shard, FlatGames.of(games), state, rules, system.name, bounds)
    return merge(system, parts, games.n_players)
