"""``arpad demo``: the main job on the bundled real data.

1. FIDE ratings (2025-10 rules) for the Deloitte/FIDE 2011 games of months
   133–135, starting from the contest's initial FIDE ratings; the 11,543 decoy
   rows (WhiteScore −1) are quarantined with their reason.
2. A generic-Elo reconstruction of the 100 months of Kaggle 2010 games.
Prints where the outputs are and a top-10 list of each.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

from arpad.pipeline.commands.common import add_orchestration, run_job

DATA = Path(__file__).resolve().parents[2] / "data" / "real"


def register(sub) -> None:
    p = sub.add_parser(
        "demo", help="main job on the bundled real data (Deloitte 2011, Kaggle 2010)"
    )
    p.add_argument(
        "--out",
        default=os.environ.get("ARPAD_DEMO_DIR", "./arpad-demo"),
        help="where the demo stores go (default ./arpad-demo)",
    )
    p.add_argument("--data", default=str(DATA), help="bundled data folder (default: data/real)")
    add_orchestration(p)
    # The demo writes two stores of its own; each ingest/rate call takes that store's lock.
    p.set_defaults(func=cmd_demo, writes_store=False)


def cmd_demo(args) -> int:
    from arpad.pipeline import catalog, output
    from arpad.pipeline.commands.core import Progress, print_ingest_report, print_rate_summary
    from arpad.pipeline.jobs import IngestRequest, RateRequest
    from arpad.pipeline.lists import rating_list
    from arpad.pipeline.store import Store
    from arpad.pipeline.systems.elo import EloSystem
    from arpad.pipeline.systems.fide import FideSystem

    data = Path(args.data)
    if not (data / "deloitte_fide_2011" / "test_solution.csv").exists():
        raise FileNotFoundError(f"bundled data not found under {data} (use --data)")
    out = Path(args.out)
    started = time.perf_counter()

    print("== 1. FIDE ratings for the Deloitte/FIDE 2011 games (months 133-135) ==")
    fide = Store(out / "deloitte2011")
    request = IngestRequest(
        str(fide.root),
        [str(data / "deloitte_fide_2011" / "test_solution.csv")],
        players=[str(data / "deloitte_fide_2011" / "initial_ratings.csv")],
    )
    report = run_job(args, "ingest", request)
    print_ingest_report(report)
    if report.quarantined:  # a re-run skips the files: nothing quarantined to explain
        print("(the quarantined rows are the contest's 'Spurious' decoys, WhiteScore = -1)")
    summary = run_job(
        args,
        "rate",
        RateRequest(str(fide.root), FideSystem.name),
        progress=Progress(FideSystem.name),
    )
    print_rate_summary(summary)
    period_fide = summary.periods[-1]

    print("\n== 2. Generic Elo reconstruction of the Kaggle 2010 games (months 1-100) ==")
    elo = Store(out / "kaggle2010")
    request = IngestRequest(
        str(elo.root), [str(data / "kaggle2010_elo_vs_rest" / "training_data.csv")]
    )
    report = run_job(args, "ingest", request)
    print_ingest_report(report)
    summary = run_job(
        args, "rate", RateRequest(str(elo.root), EloSystem.name), progress=Progress(EloSystem.name)
    )
    print_rate_summary(summary)

    for store, system in ((fide, FideSystem.name), (elo, EloSystem.name)):
        frame, period = rating_list(store, system, "standard", None, 10)
        print(f"\nTop 10, {system}, period {period} ({store.root}):")
        output.render(frame.drop("name", "federation", "title"), "table", float_precision=1)
    con = catalog.connect(fide)
    try:
        movers = catalog.query_frame(
            con,
            "SELECT player_id, rating_before, change, rating_after, games FROM movers "
            "WHERE system = ? AND period = ? AND rank_up <= 5 ORDER BY rank_up, player_id",
            [FideSystem.name, period_fide],
        )
    finally:
        con.close()
    print(f"\nBiggest FIDE gains in period {period_fide}:")
    output.render(movers, "table", float_precision=0)

    print(f"\nOutputs (Parquet + DuckDB catalog), done in {time.perf_counter() - started:.1f} s:")
    for store in (fide, elo):
        print(f"  {store.root}/ratings/   catalog: {store.catalog_path}")
    # the catalog's views read store-relative paths: DuckDB opened elsewhere finds no files
    print(
        "Open a catalog in DuckDB from its store (its views use paths relative to it): "
        f"cd {shlex.quote(str(fide.root))} && duckdb -readonly {fide.catalog_path.name}\n"
        "  (the duckdb command-line tool is a separate install; in Python: "
        f"duckdb.connect({fide.catalog_path.name!r}, read_only=True), from the same folder)"
    )
    store = shlex.quote(str(fide.root))
    print(f'Query them: arpad sql "SELECT * FROM rating_list LIMIT 5" --store {store}')
    return 0
