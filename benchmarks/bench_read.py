"""Whole-process cost of the reading commands on a store with many ratings files.

The Kaggle 2010 store (data/real, 100 monthly periods) rated by every system
(``arpad reconstruct``: ~700 ratings files) is read by ``arpad list``, ``arpad
history``, ``arpad audit`` and ``arpad predict``, each a whole process, in two
variants measured in the same run, paired and alternated, ``--repeats`` times:

- ``catalog file``: as shipped; arpad opens ``catalog.duckdb`` read-only when its
  stamp matches the store, and DuckDB binds a view only when a query uses it;
- ``views per connection``: ``ARPAD_CATALOG_FILE=0``, every view defined on a fresh
  in-memory connection (the behaviour before; each view over ``ratings`` reads the
  footer of every ratings file when it is defined).

Reports medians and the ratio per command, and the 1-minute load average.
Writes benchmarks/results/bench_read.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
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
VARIANTS = {"catalog file": {}, "views per connection": {"ARPAD_CATALOG_FILE": "0"}}


def run(args: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([ARPAD, *args], env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"arpad {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    return took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["ARPAD_NO_FLOW"] = "1"
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "kaggle")
        run(["ingest", str(KAGGLE), "--store", store], env)
        run(["reconstruct", "--store", store], env)
        files = len(list(Path(store, "ratings").glob("*/*/*/*.parquet")))
        pairings = Path(tmp) / "pairings.csv"
        pairings.write_text("white_id,black_id\n1,2\n3,4\n")
        commands = {
            "list": ["list", "--store", store, "--system", "elo"],
            "history": ["history", "--store", store, "--system", "elo", "1"],
            "audit": ["audit", "--store", store, "--system", "elo", "1"],
            "predict": ["predict", "--store", store, "--system", "elo", str(pairings)],
        }
        times = {c: {v: [] for v in VARIANTS} for c in commands}
        for rep in range(args.repeats):
            order = list(VARIANTS) if rep % 2 == 0 else list(VARIANTS)[::-1]
            for name, cmd in commands.items():
                for variant in order:
                    times[name][variant].append(run(cmd, {**env, **VARIANTS[variant]}))
    load_end = os.getloadavg()[0]
    med = {c: {v: statistics.median(t) for v, t in ts.items()} for c, ts in times.items()}
    ratio = {
        c: statistics.median(a / b for a, b in zip(ts["views per connection"], ts["catalog file"]))
        for c, ts in times.items()
    }
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "load_1min_at_start": load,
            "load_1min_at_end": load_end,
        },
        "ratings_files": files,
        "repeats": args.repeats,
        "median_s": med,
        "speedup_paired": ratio,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_read.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Reading commands on a store with many ratings files (benchmarks/bench_read.py)",
        "",
        f"{result['date']}, {os.cpu_count()} cores, 1-min load at start {load:.2f}, at end "
        f"{load_end:.2f}; the Kaggle 2010 store rated by every system ({files} ratings "
        f"files); whole processes, medians of {args.repeats} alternated pairs.",
        "",
        "| command | catalog file s | views per connection s | paired speed-up |",
        "|---|---:|---:|---:|",
    ]
    for c, m in med.items():
        lines.append(
            f"| `arpad {c}` | {m['catalog file']:.2f} | {m['views per connection']:.2f} | "
            f"{ratio[c]:.2f}× |"
        )
    (RESULTS / "bench_read.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
