"""Whole-process cost of the commands a user runs first (issue 11 target: a 10-game
``arpad ingest`` plus ``arpad rate`` within 3x the bare imports).

Measured in the same run, paired and alternated, ``--repeats`` times each:

- ``python -c "import polars, duckdb, numba"`` (the bare imports the job needs);
- ``arpad ingest`` of a 10-game CSV into a new store, then ``arpad rate --system fide``
  (whole processes, the default runner, no Prefect server anywhere);
- ``arpad demo`` into a fresh folder (``--demo`` to include it; about a minute).

Reports medians, the ratio to the bare imports, and the 1-minute load average at the
start. Writes benchmarks/results/bench_cli.{json,md}.
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
sys.path.insert(0, str(ROOT))

from benchmarks.installed import compile_package  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
BIN = Path(sys.executable).parent


def wall(cmd: list[str], cwd: Path, env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def _has_pandas() -> bool:
    import importlib.util

    return importlib.util.find_spec("pandas") is not None


def ten_games(folder: Path) -> tuple[Path, Path]:
    players = folder / "players.csv"
    players.write_text(
        "player_id,name,rating,rated_games\n"
        + "".join(f"p{i},Player {i},{2000 + 25 * i},40\n" for i in range(6))
    )
    games = folder / "games.csv"
    rows = [
        f"2025-0{1 + g // 5}-1{g % 5},p{g % 6},p{(g + 1 + g // 6) % 6},{('1-0', '0-1', '1/2-1/2')[g % 3]}"
        for g in range(10)
    ]
    games.write_text("date,white_id,black_id,result\n" + "\n".join(rows) + "\n")
    return games, players


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--demo", action="store_true", help="also time arpad demo (3 runs)")
    args = ap.parse_args(argv)
    compile_package()  # as installed: no compiling of arpad's own source per process
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.pop("ARPAD_NO_FLOW", None)
    load = os.getloadavg()[0]
    bare, job, ingest_t, rate_t, demo = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        games, players = ten_games(tmp)
        imports = [sys.executable, "-c", "import polars, duckdb, numba"]
        wall(imports, tmp, env)  # warm the file cache once
        for i in range(args.repeats):
            bare.append(wall(imports, tmp, env))
            store = tmp / f"s{i}"
            a = wall(
                [
                    str(BIN / "arpad"),
                    "ingest",
                    str(games),
                    "--players",
                    str(players),
                    "--store",
                    str(store),
                ],
                tmp,
                env,
            )
            b = wall(
                [str(BIN / "arpad"), "rate", "--system", "fide", "--store", str(store)], tmp, env
            )
            ingest_t.append(a)
            rate_t.append(b)
            job.append(a + b)
        if args.demo:
            for i in range(3):
                out = tmp / f"demo{i}"
                demo.append(wall([str(BIN / "arpad"), "demo", "--out", str(out)], ROOT, env))
                shutil.rmtree(out, ignore_errors=True)
    med = statistics.median
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": os.cpu_count(), "load_1min_at_start": load},
        "repeats": args.repeats,
        "bare_imports_s": med(bare),
        "ingest_s": med(ingest_t),
        "rate_s": med(rate_t),
        "ingest_plus_rate_s": med(job),
        "ratio_to_bare_imports": med(job) / med(bare),
        "ingest_ratio": med(ingest_t) / med(bare),
        "rate_ratio": med(rate_t) / med(bare),
        "pandas_installed": _has_pandas(),
        "target_ratio": 3.0,
        "demo_s": med(demo) if demo else None,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_cli.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Whole-process cost of the first commands (benchmarks/bench_cli.py)",
        "",
        f"{result['date']}, {result['machine']['cores']} cores, 1-min load at start {load:.2f}; "
        f"medians of {args.repeats} paired runs; default runner (in process, no Prefect server).",
        "",
        "| command (whole process) | median wall s |",
        "|---|---:|",
        f'| `python -c "import polars, duckdb, numba"` | {result["bare_imports_s"]:.2f} |',
        f"| `arpad ingest` (10 games, 6 players, new store) | {result['ingest_s']:.2f} |",
        f"| `arpad rate --system fide` | {result['rate_s']:.2f} |",
        f"| ingest + rate | {result['ingest_plus_rate_s']:.2f} |",
        *(
            [f"| `arpad demo` (fresh folder, median of 3) | {result['demo_s']:.1f} |"]
            if demo
            else []
        ),
        "",
        "| ratio to the bare imports (same run) | value |",
        "|---|---:|",
        f"| `arpad ingest` alone | {result['ingest_ratio']:.2f} |",
        f"| `arpad rate` alone | {result['rate_ratio']:.2f} |",
        f"| both commands together (target ≤ 3) | **{result['ratio_to_bare_imports']:.2f}** |",
        "",
        f"pandas installed in this environment: {result['pandas_installed']} (when it is, "
        "pyarrow imports it on its first conversion of a Python value, about 0.5 s; the "
        "console `arpad ingest` and `arpad rate` keep it out of their process, "
        'docs/runners.md "Start-up").',
    ]
    (RESULTS / "bench_cli.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
