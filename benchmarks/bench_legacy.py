"""Kernel throughput of the issue-4 systems on one synthetic period (games/s, medians).

Run: .venv/bin/python benchmarks/bench_legacy.py [--players N] [--games G] [--repeats R]
Writes benchmarks/results/bench_legacy.json. Figures in the repo were taken on a
shared 2-core machine while other work ran, so treat them as rough.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from arpad.kernels.csr import group_by_player
from arpad.kernels.ecf import ecf_cycle
from arpad.kernels.elo_linear import elo_linear_period
from arpad.kernels.harkness_ingo import METHOD_HARKNESS, event_ratings
from arpad.kernels.performance import performance_period
from arpad.pipeline.rules import dp_by_percent


def median_seconds(fn, repeats: int) -> float:
    fn()  # compile / warm up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=50_000)
    ap.add_argument("--games", type=int, default=500_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(4)
    n, g = args.players, args.games
    white = rng.integers(0, n, g).astype(np.int32)
    black = ((white + rng.integers(1, n, g)) % n).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    rating = rng.normal(1800, 250, n).round()
    grade = (rating - 700) / 7.5
    grouped = group_by_player(white, black, score, n)
    opp = rating[grouped.opponent]
    juniors = rng.random(n) < 0.1
    ev = np.full(2 * g, -1, np.int32)
    dp = dp_by_percent()
    cases = {
        "performance_normal": lambda: performance_period(
            grouped.offsets, opp, grouped.score, rating, dp, "normal"
        ),
        "performance_logistic": lambda: performance_period(
            grouped.offsets, opp, grouped.score, rating, dp, "logistic"
        ),
        "ecf_cycle_10pct_juniors": lambda: ecf_cycle(
            grade, juniors, grade, grouped.offsets, grouped.opponent, grouped.score
        ),
        "harkness": lambda: event_ratings(
            rating, grouped.offsets, grouped.opponent, grouped.score, ev, METHOD_HARKNESS
        ),
        "elo_linear": lambda: elo_linear_period(
            rating, grouped.offsets, grouped.opponent, grouped.score, 32.0
        ),
    }
    results = {}
    for name, fn in cases.items():
        sec = median_seconds(fn, args.repeats)
        results[name] = {"median_seconds": sec, "games_per_second": g / sec}
        print(f"{name:<26} {sec * 1000:9.1f} ms  {g / sec:14,.0f} games/s")
    out = Path(__file__).parent / "results" / "bench_legacy.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "players": n,
                "games": g,
                "repeats": args.repeats,
                "machine": f"{platform.machine()}, shared 2-core machine (other work running)",
                "results": results,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
