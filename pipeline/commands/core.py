"""Core subcommands: ingest, rate, reconstruct, list, sql."""

from __future__ import annotations

import sys
import time
from contextlib import nullcontext

import duckdb

from arpad.pipeline import catalog, output
from arpad.pipeline.commands.common import (
    add_orchestration,
    add_store,
    is_terminal,
    open_store,
    parse_sets,
    require_store,
)
from arpad.pipeline.periods import parse_period
from arpad.pipeline.systems import system_names


def register(sub) -> None:
    p = sub.add_parser("ingest", help="ingest games/players files into the store")
    p.add_argument("files", nargs="+", metavar="FILE")
    add_store(p)
    p.add_argument(
        "--format", dest="fmt", default=None, help="csv|parquet|pgn|trf (default: from the name)"
    )
    p.add_argument(
        "--players", action="append", default=[], metavar="F", help="players file (repeatable)"
    )
    p.add_argument(
        "--mapping", default=None, help="named column mapping (kaggle2010, deloitte2011, …)"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="games whose game_id is already stored (from another file) are replaced",
    )
    add_orchestration(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("rate", help="rate one pool with one system over its periods")
    add_store(p)
    p.add_argument("--system", required=True, choices=system_names())
    p.add_argument("--pool", default="standard")
    p.add_argument("--from", dest="start", type=parse_period, default=None, metavar="P")
    p.add_argument("--to", dest="end", type=parse_period, default=None, metavar="P")
    p.add_argument("--rules", default=None, metavar="DATE|FILE", help="force one rule version")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    p.add_argument(
        "--full",
        action="store_true",
        help="recompute from the first period even when only later periods are stale",
    )
    p.add_argument(
        "--shards",
        type=int,
        default=None,
        metavar="N",
        help="compute each period in N player shards, on Dask with --cluster/--workers "
        "(same results; shardable systems only, docs/operations.md)",
    )
    add_orchestration(p)
    p.set_defaults(func=cmd_rate)

    p = sub.add_parser("reconstruct", help="rate every system and pool from the first period")
    add_store(p)
    p.add_argument("--systems", default=None, help="comma-separated systems (default: all)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    add_orchestration(p)
    p.set_defaults(func=cmd_reconstruct)

    p = sub.add_parser("list", help="rating list of one period")
    add_store(p)
    p.add_argument("--system", default="fide")
    p.add_argument("--pool", default="standard")
    p.add_argument("--period", type=parse_period, default=None, help="default: the latest")
    p.add_argument("--top", type=int, default=None)
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("sql", help="read-only SQL over the catalog views")
    p.add_argument("query")
    add_store(p)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="VALUE",
        help="positional parameter for ? / $1 placeholders (repeatable)",
    )
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_sql)


def print_ingest_report(report) -> int:
    """One line per file, the first problems with file:line, a pointer to the quarantine."""
    for f in report.files:
        if f.skipped:
            print(f"{f.path}: skipped, {f.skipped}")
            continue
        what = "players" if f.kind == "players" else "games"
        extra = f"; replaced the earlier version of {f.source}" if f.replaced else ""
        print(
            f"{f.path}: {f.rows} rows read, {f.accepted} {what} stored, "
            f"{f.quarantined} quarantined{extra}"
        )
        for note in f.notes:
            print(f"  note: {note}")
        if f.quarantined or f.players_quarantined:
            reasons = ", ".join(f"{k} {v}" for k, v in f.reasons.items())
            print(f"  quarantined by reason: {reasons}", file=sys.stderr)
            for example in f.examples:
                print(f"  {example}", file=sys.stderr)
    if report.quarantined:
        print(
            f"{report.quarantined} rows quarantined: see the 'quarantine' view "
            f'(arpad sql "SELECT * FROM quarantine" --store {report.store})',
            file=sys.stderr,
        )
        return 2
    return 0


def run_ingest(
    store_root: str, files, fmt=None, players=None, mapping=None, no_flow=False, replace=False
):
    if no_flow:
        from arpad.pipeline.ingest import ingest_files
        from arpad.pipeline.store import Store

        return ingest_files(
            Store(store_root), files, fmt=fmt, players=players, mapping=mapping, replace=replace
        )
    from arpad.flows.common import configured
    from arpad.flows.ingest import ingest_flow

    extra = {"replace": True} if replace else {}
    return configured(ingest_flow)(
        store_root, list(files), fmt=fmt, players=list(players or []), mapping=mapping, **extra
    )


def cmd_ingest(args) -> int:
    store = open_store(args)
    report = run_ingest(
        str(store.root),
        args.files,
        args.fmt,
        args.players,
        args.mapping,
        args.no_flow,
        getattr(args, "replace", False),
    )
    return print_ingest_report(report)


class Progress:
    """Periods done and games/s on a terminal; silent otherwise (CI logs)."""

    def __init__(self, label: str, enabled: bool | None = None):
        self.label = label
        self.enabled = is_terminal() if enabled is None else enabled
        self.start = time.perf_counter()
        self.games = 0

    def __call__(self, done: int, total: int, games: int) -> None:
        self.games += games
        if not self.enabled:
            return
        rate = self.games / max(time.perf_counter() - self.start, 1e-9)
        end = "\n" if done == total else ""
        print(
            f"\r{self.label}: period {done}/{total}, {rate:,.0f} games/s",
            end=end,
            file=sys.stderr,
            flush=True,
        )


def run_rate(
    store_root,
    system,
    pool="standard",
    start=None,
    end=None,
    rules=None,
    overrides=None,
    no_flow=False,
    progress=None,
    shards=None,
    cluster=None,
    workers=None,
):
    if no_flow:
        from arpad.flows.common import dask_client
        from arpad.pipeline import sharding
        from arpad.pipeline.resume import rate_resumable
        from arpad.pipeline.store import Store

        # Without a flow, --cluster/--workers only serve the shards (a plain Dask client).
        with dask_client(cluster, workers) if shards and shards > 1 else nullcontext() as client:
            # Resumes a killed run of the same inputs (pipeline/resume.py).
            return rate_resumable(
                Store(store_root),
                system,
                pool=pool,
                start=start,
                end=end,
                rules=rules,
                overrides=overrides,
                progress=progress,
                shards=shards,
                shard_map=sharding.dask_map(client) if client is not None else None,
            )
    from arpad.flows.common import configured
    from arpad.flows.rate import rate_flow

    return configured(rate_flow)(
        store_root, system, pool, start, end, rules, overrides, progress, shards=shards
    )


def print_rate_summary(s) -> None:
    if not s.periods:
        print(f"{s.system}/{s.pool}: no periods to rate")
        return
    rules = sorted(set(s.rules))
    print(
        f"{s.system}/{s.pool}: rated {len(s.periods)} periods ({s.periods[0]}..{s.periods[-1]}), "
        f"{s.games:,} games, {s.rows_written:,} rating rows; rules: {', '.join(rules)}"
        + (f"; {s.shards} player shards per period" if getattr(s, "shards", 1) > 1 else "")
    )


def cmd_rate(args) -> int:
    from arpad.pipeline import incremental

    store = require_store(args)
    overrides = parse_sets(args.set)
    start = args.start
    if start is None and not getattr(args, "full", False):
        # Only the stale periods after a correction (pipeline/incremental.py).
        start = incremental.incremental_start(store, args.system, args.pool, args.rules, overrides)
        if start is not None:
            print(f"{args.system}/{args.pool}: recomputing from stale period {start}")
    summary = run_rate(
        str(store.root),
        args.system,
        args.pool,
        start,
        args.end,
        args.rules,
        overrides,
        args.no_flow,
        Progress(f"{args.system}/{args.pool}"),
        shards=getattr(args, "shards", None),
        cluster=getattr(args, "cluster", None),
        workers=getattr(args, "workers", None),
    )
    incremental.record_run(
        store,
        args.system,
        args.pool,
        args.start if start is None else start,
        args.end,
        args.rules,
        overrides,
    )
    print_rate_summary(summary)
    return 0


def cmd_reconstruct(args) -> int:
    store = require_store(args)
    systems = args.systems.split(",") if args.systems else None
    overrides = parse_sets(args.set)
    if args.no_flow:
        from arpad.pipeline.resume import rate_resumable

        summaries = [
            rate_resumable(store, system, pool, overrides=overrides)
            for pool in store.pools()
            for system in (systems or system_names())
        ]
    else:
        from arpad.flows.common import configured
        from arpad.flows.reconstruct import reconstruct_flow

        summaries = configured(reconstruct_flow)(str(store.root), systems, None, overrides)
    from arpad.pipeline import incremental

    for s in summaries:
        incremental.record_run(store, s.system, s.pool, None, None, None, overrides)
        print_rate_summary(s)
    return 0


def rating_list(store, system: str, pool: str, period: int | None, top: int | None):
    con = catalog.connect(store)
    try:
        if period is None:
            period = (
                catalog.query_arrow(
                    con,
                    "SELECT max(period) AS p FROM ratings WHERE system = ? AND pool = ?",
                    [system, pool],
                )
                .column("p")[0]
                .as_py()
            )
            if period is None:
                raise ValueError(
                    f"no ratings for system {system} pool {pool}; run arpad rate first"
                )
        sql = (
            "SELECT rank, player_id, name, federation, title, rating, games, status "
            "FROM rating_list WHERE system = ? AND pool = ? AND period = ? "
            "ORDER BY rank, player_id"
        )
        params: list = [system, pool, period]
        if top:
            sql += " LIMIT ?"
            params.append(top)
        return catalog.query_frame(con, sql, params), period
    finally:
        con.close()


def cmd_list(args) -> int:
    if args.top is not None and args.top < 1:
        raise ValueError(f"--top takes a positive number of players, got {args.top}")
    store = require_store(args)
    frame, period = rating_list(store, args.system, args.pool, args.period, args.top)
    if args.fmt == "table" and not args.output:
        print(f"{args.system} / {args.pool} / period {period}: {frame.height} players")
    output.render(frame, args.fmt, args.output, max_rows=args.top or 50, float_precision=1)
    return 0


READ_ONLY_STATEMENTS = {"SELECT", "EXPLAIN"}


def run_readonly_sql(store, query: str, params: list):
    """Run a query on the catalog opened read-only; refuse anything but SELECT/EXPLAIN."""
    con = catalog.connect_readonly(store)
    try:
        statements = con.extract_statements(query)
        if len(statements) != 1:
            raise ValueError(f"arpad sql runs exactly one statement, got {len(statements)}")
        kind = statements[0].type.name
        if kind not in READ_ONLY_STATEMENTS:
            raise ValueError(f"arpad sql is read-only: {kind} statements are refused")
        return catalog.query_frame(con, query, params)
    except duckdb.Error as exc:
        raise ValueError(f"SQL error: {exc}") from None
    finally:
        con.close()


def cmd_sql(args) -> int:
    store = require_store(args)
    frame = run_readonly_sql(store, args.query, args.param)
    output.render(frame, args.fmt, args.output)
    return 0
