"""Benchmark of the FIDE rating path (issue 2).

Seeded synthetic data: 200k players, 12 periods x 500k games. Measures, in one
run on this machine:
  * the FIDE period kernel alone (CSR already built), games/s;
  * the CSR grouping kernel, games/s;
  * a plain NumPy implementation of the same period step (identical results), games/s;
  * the whole `rate` path (Parquet -> DuckDB -> kernel -> Parquet + checkpoint), games/s.
Medians over repeats; writes benchmarks/results/bench_rate.{json,md}.

    .venv/bin/python benchmarks/bench_rate.py [--players N --periods N --games N --repeats N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arpad.kernels.csr import group_by_player  # noqa: E402
from arpad.kernels.fide import fide_period  # noqa: E402
from arpad.pipeline import engine  # noqa: E402
from arpad.pipeline.rules import pd_high_by_diff  # noqa: E402
from arpad.pipeline.store import Store  # noqa: E402
from arpad.pipeline.synthetic import SyntheticSpec, generate  # noqa: E402
from arpad.pipeline.systems.fide import FIDE_VERSIONS, k_base  # noqa: E402
from benchmarks.numpy_fide import fide_period_numpy  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "load_1min_at_start": load,
    }


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=200_000)
    ap.add_argument("--periods", type=int, default=12)
    ap.add_argument("--games", type=int, default=500_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--work", default=str(ROOT / "benchmarks" / "work" / "bench_rate"))
    ap.add_argument("--tag", default="bench_rate")
    a = ap.parse_args(argv)

    spec = SyntheticSpec(players=a.players, periods=a.periods, games_per_period=a.games)
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    store = Store(work)
    t0 = time.perf_counter()
    periods = generate(store, spec)
    gen_seconds = time.perf_counter() - t0

    # Inputs for the kernel-only measurements: the periods' games as dense arrays.
    info = engine.player_info(store.read_players())
    arrays = [
        engine.load_period_games([str(f) for f in store.game_files("standard", p)], info.player_id)
        for p in periods
    ]
    rules = FIDE_VERSIONS[-1]
    state = engine.get_system("fide").initial_state(info, rules)
    rating, is_rated = state.players["rating"], state.players["is_rated"]
    kb = k_base(
        rules,
        rating,
        state.players["rated_games"],
        state.players["peak"],
        state.players["birth_year"],
        2025,
    )
    table = pd_high_by_diff()
    total_games = sum(w.size for w, *_ in arrays)

    grouped = [group_by_player(w, b, s, info.n) for w, b, s, _ in arrays]  # compiles

    def run_csr():
        return [group_by_player(w, b, s, info.n) for w, b, s, _ in arrays]

    def run_kernel():
        return [
            fide_period(
                rating, is_rated, kb, g.offsets, g.opponent, g.score, table, exempt_from=2650
            )
            for g in grouped
        ]

    def run_numpy():
        return [
            fide_period_numpy(rating, is_rated, kb, w, b, s, table, exempt_from=2650)
            for w, b, s, _ in arrays
        ]

    run_kernel()  # compile
    csr_s, _ = timed(run_csr, a.repeats)
    kernel_s, kres = timed(run_kernel, a.repeats)
    numpy_s, nres = timed(run_numpy, max(1, a.repeats // 2))
    for k_out, n_out in zip(kres, nres):  # the comparison is only fair if the results agree
        assert np.array_equal(np.where(is_rated, k_out.change, 0), np.where(is_rated, n_out[4], 0))

    whole = []
    summaries = []
    for _ in range(max(1, a.repeats // 2)):
        t0 = time.perf_counter()
        summary = engine.rate(store, "fide")
        whole.append(time.perf_counter() - t0)
        summaries.append(summary)
    whole_s = statistics.median(whole)
    split = {k: statistics.median(s.seconds[k] for s in summaries) for k in summaries[0].seconds}

    result = {
        "benchmark": "FIDE rate path (issue 2)",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "data": {
            "players": a.players,
            "periods": a.periods,
            "games_per_period": a.games,
            "total_games": int(total_games),
            "seed": spec.seed,
            "generate_seconds": round(gen_seconds, 2),
        },
        "repeats": a.repeats,
        "median_seconds": {
            "fide_kernel": kernel_s,
            "csr_grouping": csr_s,
            "numpy_step": numpy_s,
            "whole_rate_path": whole_s,
        },
        "games_per_second": {
            "fide_kernel": total_games / kernel_s,
            "csr_grouping": total_games / csr_s,
            "fide_kernel_plus_csr": total_games / (kernel_s + csr_s),
            "numpy_step": total_games / numpy_s,
            "whole_rate_path": total_games / whole_s,
        },
        "ratios": {
            "kernel_vs_numpy": numpy_s / kernel_s,
            "kernel_plus_csr_vs_numpy": numpy_s / (kernel_s + csr_s),
        },
        "whole_path_split_seconds": split,
        "targets": {"fide_kernel_games_per_s": 20e6, "whole_path_games_per_s": 1e6},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{a.tag}.json").write_text(json.dumps(result, indent=2) + "\n")
    gps = result["games_per_second"]
    md = [
        f"# {result['benchmark']}",
        "",
        f"Run {result['date']} on {result['machine']['cpu']} ({result['machine']['cores']} cores, "
        f"{result['machine']['numba_threads']} Numba threads, 1-min load at start "
        f"{result['machine']['load_1min_at_start']}). Data: {a.players:,} players, {a.periods} "
        f"periods x {a.games:,} games = {total_games:,} games (seed {spec.seed}). "
        f"Medians of {a.repeats} repeats (whole path and NumPy: {max(1, a.repeats // 2)}).",
        "",
        "| what | median s | games/s | target |",
        "|---|---|---|---|",
        f"| FIDE period kernel alone | {kernel_s:.3f} | {gps['fide_kernel']:,.0f} | >= 20,000,000 |",
        f"| CSR grouping kernel | {csr_s:.3f} | {gps['csr_grouping']:,.0f} | |",
        f"| kernel + CSR | {kernel_s + csr_s:.3f} | {gps['fide_kernel_plus_csr']:,.0f} | |",
        f"| plain NumPy period step (same results) | {numpy_s:.3f} | {gps['numpy_step']:,.0f} | |",
        f"| whole `rate` path (Parquet->Arrow->kernel->Parquet) | {whole_s:.3f} | "
        f"{gps['whole_rate_path']:,.0f} | >= 1,000,000 |",
        "",
        f"Kernel vs NumPy: {result['ratios']['kernel_vs_numpy']:.1f}x "
        f"(kernel + CSR vs NumPy: {result['ratios']['kernel_plus_csr_vs_numpy']:.1f}x).",
        "Whole path split (median s): "
        + ", ".join(f"{k} {v:.2f}" for k, v in split.items())
        + " (query = Arrow read + id lookup; kernel = CSR + step + performance column; write = ratings + checkpoint Parquet).",
        "",
        "Reproduce: `.venv/bin/python benchmarks/bench_rate.py` (or `make bench`).",
    ]
    (RESULTS / f"{a.tag}.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return result


if __name__ == "__main__":
    main()
