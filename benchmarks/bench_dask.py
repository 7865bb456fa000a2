"""Dask where the work is independent (issue 15 targets on a 2-core machine):

- ``arpad backtest --data kaggle2010 --system all --workers 2`` ≥ 1.6× faster than one
  worker, with an identical table;
- ``arpad reconstruct`` of four systems with ``--workers 2`` ≥ 1.5× faster than one.

Whole processes, paired and alternated (1 worker, 2 workers, in process), medians of
``--repeats``; the Numba cache is warmed first so no variant pays compilation. No
Prefect server anywhere (the in-process runner sends the units to the LocalCluster).
Writes benchmarks/results/bench_dask.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
ARPAD = str(Path(sys.executable).with_name("arpad"))
KAGGLE = ROOT / "data" / "real" / "kaggle2010_elo_vs_rest" / "training_data.csv"
# Four systems that rate from nothing; "reconstruct with whr" swaps glicko for WHR, the
# longest unit (it was ~80 % of such a reconstruction while it refitted every period:
# 3 + 4 + 7 + 50 s; it fits once now, docs/whr.md).
SYSTEMS = "elo,glicko,glicko2,uscf"
SYSTEMS_WHR = "elo,glicko2,uscf,whr"


LARGE = "reconstruct, 6M games"


def large_inputs() -> list[str]:
    """bench_peer.py's 6M-game synthetic inputs (games + players Parquet), written there
    first when missing (the same seed: the same files)."""
    sys.path.insert(0, str(ROOT))
    from arpad.pipeline.synthetic import SyntheticSpec
    from benchmarks.bench_peer import write_inputs

    work = ROOT / "benchmarks" / "work" / "bench_peer"
    games, players = work / "games.parquet", work / "players.parquet"
    if not (games.exists() and players.exists()):
        write_inputs(SyntheticSpec(players=200_000, periods=12, games_per_period=500_000), work)
    return [str(games), "--players", str(players)]


def run(args: list[str], env: dict, cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([ARPAD, *args], env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"arpad {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return took, proc.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-backtest", action="store_true")
    ap.add_argument(
        "--large",
        action="store_true",
        help="also reconstruct the four systems on bench_peer.py's 6M-game synthetic store",
    )
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ARPAD_NO_FLOW")}
    # the kernels compiled ahead of time, as `make` leaves them (docs/developing.md)
    subprocess.run([sys.executable, "-m", "arpad.pipeline.aot"], check=True, env=env)
    load = os.getloadavg()[0]
    variants = {"in process": [], "1 worker": ["--workers", "1"], "2 workers": ["--workers", "2"]}
    times: dict[str, dict[str, list[float]]] = {
        "reconstruct": {},
        "reconstruct with whr": {},
        "backtest": {},
        LARGE: {},
    }
    tables: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / "base"
        run(["ingest", str(KAGGLE), "--store", str(base)], env, tmp)
        # warm the Numba cache (every system once) so no variant pays compilation
        run(["reconstruct", "--store", str(base), "--systems", SYSTEMS_WHR + ",glicko"], env, tmp)
        large = tmp / "large" if args.large else None
        if large is not None:
            inputs = large_inputs()
            run(["ingest", *inputs, "--store", str(large)], env, tmp)
            run(["reconstruct", "--store", str(large), "--systems", SYSTEMS], env, tmp)
        for _ in range(args.repeats):
            jobs = [("reconstruct", SYSTEMS, base), ("reconstruct with whr", SYSTEMS_WHR, base)]
            if large is not None:
                jobs.append((LARGE, SYSTEMS, large))
            for job, systems, source in jobs:
                for label, extra in variants.items():
                    store = tmp / "s"
                    shutil.rmtree(store, ignore_errors=True)
                    shutil.copytree(source, store)
                    args_ = ["reconstruct", "--store", str(store), "--systems", systems, *extra]
                    took, _ = run(args_, env, tmp)
                    times[job].setdefault(label, []).append(took)
            if args.skip_backtest:
                continue
            for label, extra in variants.items():
                took, out = run(
                    ["backtest", "--data", "kaggle2010", "--system", "all", "--format", "csv",
                     "--data-dir", str(ROOT / "data" / "real"), *extra],
                    env, ROOT,
                )  # fmt: skip
                times["backtest"].setdefault(label, []).append(took)
                tables[label] = out
    load_end = os.getloadavg()[0]
    identical = len(set(tables.values())) <= 1
    med = {job: {k: statistics.median(v) for k, v in t.items()} for job, t in times.items() if t}
    paired = {
        job: statistics.median(a / b for a, b in zip(t["1 worker"], t["2 workers"]))
        for job, t in times.items()
        if t
    }
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "load_1min_at_start": load,
            "load_1min_at_end": load_end,
        },
        "repeats": args.repeats,
        "systems_reconstructed": SYSTEMS,
        "median_s": med,
        "speedup_2_vs_1_worker": {job: m["1 worker"] / m["2 workers"] for job, m in med.items()},
        # the same ratio taken within each repeat (the pair ran back to back), then the median
        "speedup_2_vs_1_worker_paired": paired,
        "speedup_2_workers_vs_in_process": {
            job: m["in process"] / m["2 workers"] for job, m in med.items()
        },
        "backtest_tables_identical": identical if tables else None,
        "targets": {
            "backtest": 1.6,
            "reconstruct": 1.5,
            "reconstruct with whr": 1.5,
            LARGE: 1.5,
        },
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_dask.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Dask where the work is independent (benchmarks/bench_dask.py)",
        "",
        f"{result['date']}, {os.cpu_count()} cores, 1-min load at start {load:.2f}, at end "
        f"{load_end:.2f}; whole "
        f"processes, medians of {args.repeats} alternated runs, Numba cache warm, no Prefect.",
        "",
        "| job | in process s | 1 worker s | 2 workers s | 2 vs 1 worker | paired | target |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for job, m in med.items():
        lines.append(
            f"| {job} | {m['in process']:.1f} | {m['1 worker']:.1f} | {m['2 workers']:.1f} | "
            f"{m['1 worker'] / m['2 workers']:.2f}× | {paired[job]:.2f}× | "
            f"≥ {result['targets'][job]}× |"
        )
    lines += [
        "",
        f"reconstruct: systems {SYSTEMS} (with whr: {SYSTEMS_WHR}) over the 100 Kaggle 2010 "
        "months, units sent longest first (`relative_cost`); "
        f"{LARGE} (with --large): the same four systems over bench_peer.py's 200k players "
        "and 12 x 500k games; backtest: "
        'kaggle2010, every system. "2 vs 1 worker" is the ratio of the medians; '
        '"paired" the median of the ratios within each repeat. Backtest tables identical '
        "across variants: "
        f"{result['backtest_tables_identical']}.",
    ]
    (RESULTS / "bench_dask.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
