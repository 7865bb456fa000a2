"""Analyst subcommands: ``arpad backtest`` and ``arpad plot distribution|history|calibration``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from arpad.pipeline import output
from arpad.pipeline.commands.common import (
    add_orchestration,
    add_store,
    note_out_of_date,
    require_store,
    run_job,
    split_list,
)
from arpad.pipeline.periods import parse_period


def default_data_dir() -> Path:
    """``data/real`` of the working directory, else of the source checkout."""
    here = Path("data/real")
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "data" / "real"


def register(sub) -> None:
    p = sub.add_parser(
        "backtest",
        help="score every rating system on the Kaggle 2010 / Deloitte 2011 protocols",
    )
    p.add_argument("--data", required=True, help="kaggle2010 or deloitte2011")
    p.add_argument(
        "--system",
        default="all",
        help="comma-separated systems, or 'all' (default: every registered system)",
    )
    p.add_argument("--data-dir", default=None, help="folder with the contest files (data/real)")
    p.add_argument("--report", default=None, metavar="FILE.md", help="write/update this table")
    p.add_argument("--plot", default=None, metavar="FILE.png", help="calibration plot")
    p.add_argument("--predictions", default=None, metavar="FILE.parquet")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--verbose", action="store_true", help="print every tuning candidate")
    add_orchestration(p, writes_store=False)
    p.set_defaults(func=cmd_backtest)

    p = sub.add_parser("plot", help="PNG plots: distribution, history, calibration")
    kinds = p.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True

    k = kinds.add_parser("distribution", help="rating distribution per period")
    add_store(k)
    k.add_argument("--system", required=True)
    k.add_argument("--pool", default="standard")
    k.add_argument("--period", action="append", type=parse_period, default=[], help="repeatable")
    k.add_argument("--output", required=True, metavar="FILE.png")
    k.set_defaults(func=cmd_plot_distribution)

    k = kinds.add_parser("history", help="players' rating histories (with ±2 RD bands)")
    k.add_argument("players", nargs="+", metavar="PLAYER")
    add_store(k)
    k.add_argument("--system", required=True)
    k.add_argument("--pool", default="standard")
    k.add_argument("--output", required=True, metavar="FILE.png")
    k.set_defaults(func=cmd_plot_history)

    k = kinds.add_parser("calibration", help="calibration curves of backtest predictions")
    k.add_argument("predictions", metavar="FILE.parquet", help="from arpad backtest --predictions")
    k.add_argument("--target", default=None, help="scored set (cv, public, private)")
    k.add_argument("--bins", type=int, default=10)
    k.add_argument("--output", required=True, metavar="FILE.png")
    k.set_defaults(func=cmd_plot_calibration)


def cmd_backtest(args) -> int:
    from arpad.pipeline import backtest, plots
    from arpad.pipeline.jobs import BacktestRequest

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    systems = None if args.system == "all" else split_list(args.system)
    request = BacktestRequest(args.data, str(data_dir), systems)

    def log(msg: str) -> None:
        if args.verbose or not msg.startswith("  "):
            print(msg, file=sys.stderr, flush=True)

    result = run_job(args, "backtest", request, log=log)
    frame = backtest.result_frame(result)
    output.render(frame, args.fmt, None, max_rows=100)
    if args.report:
        command = "arpad backtest " + " ".join(
            shlex.quote(a)
            for a in (
                "--data",
                args.data,
                "--system",
                args.system,
                "--report",
                args.report,
                *(["--plot", args.plot] if args.plot else []),
            )
        )
        backtest.write_markdown(result, Path(args.report), command)
        print(f"table written to {args.report}", file=sys.stderr)
    predictions = backtest.predictions_frame(result)
    if args.predictions:
        output.render(predictions, "parquet", args.predictions)
    if args.plot:
        base = backtest.predictions_frame(result, derived=False)
        plots.plot_calibration(base, args.plot, target=result.targets[-1])
        print(f"calibration plot written to {args.plot}", file=sys.stderr)
    return 0


def cmd_plot_distribution(args) -> int:
    from arpad.pipeline import plots

    store = require_store(args)
    out = plots.plot_distribution(store, args.system, args.output, args.pool, args.period or None)
    print(out)
    return 0


def cmd_plot_history(args) -> int:
    from arpad.pipeline import plots

    store = require_store(args)
    out = plots.plot_history(store, args.players, args.system, args.output, args.pool)
    note_out_of_date(store, args.system, args.pool)  # the note of arpad list (docs/cli.md)
    print(out)
    return 0


def cmd_plot_calibration(args) -> int:
    from arpad.pipeline import plots

    path = Path(args.predictions)
    if not path.exists():
        raise FileNotFoundError(f"no predictions file {path} (arpad backtest --predictions)")
    import polars as pl

    out = plots.plot_calibration(pl.read_parquet(path), args.output, args.target, args.bins)
    print(out)
    return 0
