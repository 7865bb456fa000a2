"""``arpad.backtest`` and ``arpad.whatif``: the jobs of ``arpad backtest`` and ``arpad
whatif`` (pipeline/jobs.py) from a notebook, with the arguments checked where the
analyst typed them (docs/api.md "Backtest and what-if")."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from arpad import _args, _interrupt

BACKTEST_PARAMETERS = ("data", "systems", "data_dir", "flow", "cluster", "workers")
WHATIF_PARAMETERS = (
    "games", "rules", "vs", "players", "pool", "start", "end", "top", "mapping", "errors",
    "flow", "cluster", "workers",
)  # fmt: skip


def _run(job: str, request, flow, cluster, workers):
    """The job as ``arpad JOB`` runs it (``api.launch_job``), ``flow`` and ``cluster``
    checked first."""
    from arpad.api import launch_job

    if flow is not None and not isinstance(flow, bool):
        raise TypeError(f"flow: True or False, got {type(flow).__name__} {flow!r}")
    if cluster is not None and not isinstance(cluster, str):
        raise TypeError(
            f"cluster: a scheduler address like 'tcp://HOST:PORT', got {type(cluster).__name__}"
        )
    return launch_job(job, request, bool(flow), cluster, workers)


def system_list(systems: Any) -> list[str] | None:
    """``systems`` as ``--system`` takes it: ``"all"`` (or None) for every system, one
    name, ``"elo,glicko"``, or a list/tuple of names; None means every system."""
    from arpad.pipeline import jobs

    if systems is None:
        return None
    if isinstance(systems, str):
        names = [s.strip() for s in systems.split(",") if s.strip()]
        if names == ["all"]:
            return None
    elif isinstance(systems, Iterable) and not isinstance(systems, Mapping | bytes):
        names = list(systems)
        odd = next((s for s in names if not isinstance(s, str)), None)
        if odd is not None:
            raise TypeError(f"systems: system names (str), got {type(odd).__name__} {odd!r}")
    else:
        raise TypeError(
            f"systems: a system name, 'a,b', a list of names or 'all', got {type(systems).__name__}"
        )
    if not names:
        raise ValueError("systems: give at least one system name (or 'all')")
    try:
        jobs._check_systems(names)
    except ValueError as exc:
        raise ValueError(f"systems: {exc}") from None
    return names


@_interrupt.interruptible
def backtest(
    data: str = "kaggle2010",
    systems: Any = "all",
    *,
    data_dir: str | os.PathLike | None = None,
    flow: bool = False,
    cluster: str | None = None,
    workers: int | None = None,
) -> pl.DataFrame:
    """The table of ``arpad backtest --data DATA --system SYSTEMS`` (docs/backtest.md).

    ``data``: ``"kaggle2010"`` or ``"deloitte2011"`` (the contests' protocols,
    docs/analysis.md "Protocols"); ``systems``: ``"all"``, a name, ``"elo,glicko"`` or a
    list of names; ``data_dir``: the folder with the contest files (default: ``data/real``
    of the working directory, else of the source checkout, as the command). One row per
    system (and per draw-model row): validation score, each target's score and
    three-outcome log-loss, the tuned settings and a note; the same values as the
    command's ``--format csv``/``parquet``. ``workers=N``/``cluster=…`` score the
    systems' settings side by side on Dask; ``flow=True`` as a tracked Prefect flow.
    Returns a polars DataFrame. An unknown protocol or system is a ``ValueError``, games
    of your own (not a protocol name) a ``TypeError``, a missing ``data_dir`` a
    ``FileNotFoundError``."""
    _interrupt.for_rating("arpad.pipeline.backtest")
    from arpad.pipeline import backtest as bt
    from arpad.pipeline.commands.analysis import default_data_dir
    from arpad.pipeline.jobs import BacktestRequest

    if not isinstance(data, str):
        raise TypeError(
            f"data: the name of a backtest protocol ({', '.join(bt.DATASETS)}), got "
            f"{type(data).__name__} (games of your own: arpad.rate, then arpad.predict)"
        )
    if data not in bt.DATASETS:
        raise ValueError(f"data: unknown backtest data {data!r} (known: {', '.join(bt.DATASETS)})")
    names = system_list(systems)
    if data_dir is None:
        folder = default_data_dir()
    elif isinstance(data_dir, str | os.PathLike):
        folder = Path(data_dir).expanduser()
    else:
        raise TypeError(f"data_dir: a folder path, got {type(data_dir).__name__}")
    if not folder.is_dir():
        raise FileNotFoundError(f"data_dir: no data folder at {folder}")
    request = BacktestRequest(data, str(folder), names)
    return bt.result_frame(_run("backtest", request, flow, cluster, workers))


def _rules_spec(value: Any, what: str) -> str:
    """One side of a what-if: a ``--rules`` spec (a date, a JSON file) or ``"dated"``."""
    if isinstance(value, os.PathLike):
        return str(Path(value).expanduser())
    value = _args.date_text(value)  # a date, Timestamp or monthly Period: the date it names
    if not isinstance(value, str):
        raise TypeError(
            f"{what}: a --rules spec (a date such as '2014-07', a JSON file, or 'dated' "
            f"for the versions in force), got {type(value).__name__}"
        )
    return value


def _check_rules_spec(spec: str, what: str, pool: str) -> None:
    from arpad.pipeline import whatif as w

    try:
        w.resolve(spec, pool)
    except (ValueError, FileNotFoundError) as exc:
        raise ValueError(f"{what}: {exc}") from None


def _store_root(games: Any) -> str | None:
    """The store ``games`` names (an ``arpad.Store``, or a folder holding a store), or
    None when ``games`` are games (a file or a table)."""
    from arpad.api import Store

    if isinstance(games, Store):
        return str(games._existing.root)
    if isinstance(games, str | os.PathLike) and Path(games).expanduser().is_dir():
        from arpad.pipeline.jobs import _existing_store

        root = Path(games).expanduser().resolve()
        try:
            return str(_existing_store(str(root)).root)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"games: {root} is a folder with no store in it (give a store, a games file "
                "or a table of games)"
            ) from None
    return None


def _table_file(data: Any, what: str, folder: Path) -> str:
    """``data`` as a file ``arpad ingest`` reads: a path as it is, a table written as
    Parquet (read back as the Python API reads a DataFrame: docs/ingest.md)."""
    if isinstance(data, str | os.PathLike):
        return str(Path(data).expanduser())
    import pyarrow.parquet as pq

    from arpad.api import _arrow

    path = folder / f"{what}.parquet"
    from arpad._tables import extra_columns_as_text

    pq.write_table(extra_columns_as_text(_arrow(data, what)), path)
    return str(path)


def _scratch_store(
    games,
    players,
    mapping: str | None,
    errors: str,
    folder: Path,
    start: int | None,
    pool: str = "standard",
) -> str:
    """A store in ``folder`` holding ``games`` (and ``players``), rejected rows raising
    ``InputError`` unless ``errors="skip"``, as ``arpad.rate`` does. With ``start`` the
    store's ``pool`` is rated with FIDE's versions in force first (``arpad rate --system
    fide --pool POOL``), so that both sides start from the ratings before ``start``, as
    ``--from`` needs. No published rating of ``pool`` (a standard rating is no rapid one,
    docs/observations.md): a ValueError, as ``arpad rate`` refuses it."""
    from arpad.api import _validated
    from arpad.pipeline import launch
    from arpad.pipeline.jobs import (
        IngestRequest,
        RateRequest,
        has_published_ratings,
        rated_pools,
    )
    from arpad.pipeline.store import Store
    from arpad.pipeline.systems import FIDE_SYSTEM

    _validated(games, "games", mapping, errors)
    if players is not None:
        _validated(players, "players", None, errors)
    games_file = _table_file(games, "games", folder)
    players_files = [] if players is None else [_table_file(players, "players", folder)]
    root = folder / "store"
    launch.run("ingest", IngestRequest(str(root), [games_file], players_files, None, mapping))
    store = Store(root)
    if not has_published_ratings(store):
        raise ValueError(
            f"players: {FIDE_SYSTEM} needs published starting ratings: give players= with a "
            "rating column (player_id, rating, rated_games, …), or games that carry ratings"
        )
    if not has_published_ratings(store, pool):
        raise ValueError(  # as arpad.rate says it (api._check_starting_ratings)
            f"players: {FIDE_SYSTEM} needs published starting ratings of the {pool} pool: "
            f"the players and games give {' and '.join(rated_pools(store))} ratings only, "
            "and a pool's ratings seed that pool alone (docs/observations.md): give "
            f"players= with a {pool}_rating column or rows with pool {pool}"
        )
    if start is not None:
        launch.run("rate", RateRequest(str(root), FIDE_SYSTEM, pool, end=start - 1))
    return str(root)


@_interrupt.interruptible
def whatif(
    games: Any,
    rules: Any,
    vs: Any,
    *,
    players: Any = None,
    pool: str = "standard",
    start: Any = None,
    end: Any = None,
    top: int = 10,
    mapping: str | None = None,
    errors: str = "raise",
    flow: bool = False,
    cluster: str | None = None,
    workers: int | None = None,
):
    """``arpad whatif --rules RULES --vs VS``: the same games replayed under two FIDE rule
    sets (pipeline/whatif.py, docs/fide-history.md).

    ``games``: an ``arpad.Store`` or a store folder (replayed as ``arpad whatif --store``
    does, the store untouched), or games as ``arpad.rate`` takes them (a polars/pandas
    DataFrame, an Arrow table, a dict of columns, rows as dicts, or a games file) with
    ``players`` giving the published ratings FIDE starts from; those are ingested into a
    temporary store, removed afterwards. ``rules``/``vs``: ``--rules`` specs (a date such
    as ``"2022-01"``, a JSON rules file, or ``"dated"``: the versions in force). ``start``,
    ``end``: ``--from``/``--to``; ``top``: the biggest movers kept.

    Returns the ``WhatIf`` (pipeline/whatif.py): ``movers``, ``distribution`` and
    ``crossings`` as polars DataFrames (the Parquet tables of ``--output DIR``), with
    ``rules_a``, ``rules_b`` and ``periods``. A bad rules spec or period is a
    ``ValueError`` naming the argument; rejected rows of in-memory games an
    ``InputError`` (``errors="skip"`` leaves them out); games without any published
    rating a ``ValueError`` naming ``players`` (docs/api.md "Backtest and what-if")."""
    _interrupt.for_rating("arpad.pipeline.whatif", "arpad.pipeline.ingest")
    from arpad.pipeline import schemas
    from arpad.pipeline.jobs import WhatIfRequest

    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', got {errors!r}")
    spec_a, spec_b = _rules_spec(rules, "rules"), _rules_spec(vs, "vs")
    if not isinstance(pool, str) or pool not in schemas.POOLS:
        raise ValueError(f"pool: {pool!r} is not one of {', '.join(schemas.POOLS)}")
    _check_rules_spec(spec_a, "rules", pool)
    _check_rules_spec(spec_b, "vs", pool)
    start, end = _args.period(start, "start"), _args.period(end, "end")
    if start is not None and end is not None and start > end:
        raise ValueError(f"start {start} is after end {end}")
    top = _args.whole(top, "top", "players")
    from arpad.api import _one_file  # several paths: a TypeError pointing to a store

    games, players = _one_file(games, "games", "whatif"), _one_file(players, "players", "whatif")
    root = _store_root(games)
    if root is not None:
        if players is not None or mapping is not None:
            raise TypeError(
                "players/mapping: a store already holds its games and players (they are for "
                "games given as a table or a file)"
            )
        request = WhatIfRequest(root, spec_a, spec_b, pool, start, end, top)
        return _run("whatif", request, flow, cluster, workers)
    folder = Path(tempfile.mkdtemp(prefix="arpad-whatif-api-"))
    try:
        root = _scratch_store(games, players, mapping, errors, folder, start, pool)
        request = WhatIfRequest(root, spec_a, spec_b, pool, start, end, top)
        return _run("whatif", request, flow, cluster, workers)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
