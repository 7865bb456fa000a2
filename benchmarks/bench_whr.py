"""WHR speed on the bundled Kaggle 2010 games (65,053 games, 7,301 players, 100 months).

Measures (medians of --repeat runs, in one process after a warm-up compile):
* one whole-history fit of all games from a cold start (the backtest's cost per setting);
* the same fit warm-started from the converged solution plus one month (the cost of
  arpad rate per period);
and writes benchmarks/results/whr.md. Figures are from whatever machine runs it (the
committed file names the conditions).
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import time
from pathlib import Path

from arpad.pipeline import backtest as bt
from arpad.pipeline.systems.whr import WhrRules, WhrSystem

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--note", default="shared 2-core machine, other jobs running")
    args = ap.parse_args()
    ds = bt.load_kaggle2010(ROOT / "data" / "real")
    system = WhrSystem()
    rules = dataclasses.replace(WhrRules(), initial_rating=ds.default_rating)
    games = ds.train  # months 1-95
    runner = bt.Runner("whr", rules, ds.players)
    runner.walk(games.select(games.period <= 1))  # compile
    cold, warm, nodes = [], [], []
    for _ in range(args.repeat):
        runner = bt.Runner("whr", rules, ds.players)
        t0 = time.perf_counter()
        runner.walk(games)
        cold.append(time.perf_counter() - t0)
        state = runner.state
        # one more month on top of the converged state: what arpad rate pays per period
        extra = ds.targets["cv"].select(ds.targets["cv"].period == 96)
        pg = bt.period_games(96, 95, extra, ds.players.n)
        t0 = time.perf_counter()
        system.step(state, pg, rules)
        warm.append(time.perf_counter() - t0)
        nodes.append(system.fit(state, rules).rating.size)
    lines = [
        "# WHR benchmark (benchmarks/bench_whr.py)",
        "",
        f"Conditions: {args.note}; Python {platform.python_version()}, {platform.machine()}.",
        f"Data: Kaggle 2010 months 1-95, {games.size:,} games, {nodes[0]:,} player-month nodes;"
        f" rules: {rules}.",
        "",
        "| measurement | median s | runs |",
        "|---|---|---|",
        f"| whole-history fit, cold start (95 periods absorbed, one fit) | "
        f"{statistics.median(cold):.3f} | {args.repeat} |",
        f"| one more period, warm start (arpad rate per period) | "
        f"{statistics.median(warm):.3f} | {args.repeat} |",
        "",
        f"Games per second of a cold fit: {games.size / statistics.median(cold):,.0f}.",
        "",
    ]
    out = ROOT / "benchmarks" / "results" / "whr.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
