"""PGN header-only throughput (issue 6 target: ≥ 200k games/s).

Input: the real KingBase subset (../shared/data/real/pgn/kingbase_kb1.pgn, 975
games with moves) repeated ``--copies`` times into one file, so tags and movetext
have real proportions. Timed: ``pipeline.pgn.read_pgn`` (decode, split, tags,
forfeit detection, dates, pools, ids, players) and, on the same file, python-chess's
``chess.pgn.read_headers`` loop (headers only, the fastest python-chess path) as
a reference. Medians of ``--repeats`` runs; both measured in the same run. The
same ``read_pgn`` with the file scanned in one part (``PARALLEL_MIN_BYTES`` raised
past the file's size; the default scans a file of 8 MB or more in one part per
core, side by side) is timed in alternation with the default, for a same-run ratio.
Writes benchmarks/results/bench_pgn.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import chess.pgn

from arpad.pipeline import pgn
from arpad.pipeline.pgn import read_pgn

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SOURCE = ROOT.parent / "shared" / "data" / "real" / "pgn" / "kingbase_kb1.pgn"


def python_chess_headers(path: Path) -> int:
    n = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        while chess.pgn.read_headers(fh) is not None:
            n += 1
    return n


def timed(fn, repeats: int) -> tuple[float, float, object]:
    """Median wall seconds, median CPU seconds (all threads of the process), last result."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chess-repeats", type=int, default=1)
    args = ap.parse_args(argv)
    data = SOURCE.read_bytes()
    if not data.endswith(b"\n\n"):
        data += b"\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.pgn"
        path.write_bytes(data * args.copies)
        size_mb = path.stat().st_size / 1e6
        read_pgn(path)  # warm-up (imports, kernel compilation or cache load, regexes)
        load_start = os.getloadavg()[0]
        default_min = pgn.PARALLEL_MIN_BYTES
        samples: dict[str, list[tuple[float, float]]] = {"parts": [], "one": []}
        for _ in range(args.repeats):  # alternated: the default, then one part
            for label, floor in (("parts", default_min), ("one", 1 << 62)):
                pgn.PARALLEL_MIN_BYTES = floor
                try:
                    wall, cpu, raw = timed(lambda: read_pgn(path), 1)
                finally:
                    pgn.PARALLEL_MIN_BYTES = default_min
                samples[label].append((wall, cpu))
        ours = statistics.median(w for w, _ in samples["parts"])
        ours_cpu = statistics.median(c for _, c in samples["parts"])
        one = statistics.median(w for w, _ in samples["one"])
        one_cpu = statistics.median(c for _, c in samples["one"])
        paired = statistics.median(
            o / p for (p, _), (o, _) in zip(samples["parts"], samples["one"])
        )
        games = raw.frame.height + len(raw.problems)
        theirs, _, n_chess = timed(lambda: python_chess_headers(path), args.chess_repeats)
    assert games == n_chess == 975 * args.copies, (games, n_chess)
    load = os.getloadavg()[0]
    result = {
        "when": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": f"shared, {os.cpu_count()} cores, 1-min load {load_start:.2f} at the start, "
        f"{load:.2f} at the end",
        "games": games,
        "file_mb": round(size_mb, 1),
        "read_pgn_median_s": round(ours, 4),
        "read_pgn_games_per_s": round(games / ours),
        "read_pgn_median_cpu_s": round(ours_cpu, 4),
        "read_pgn_one_part_median_s": round(one, 4),
        "read_pgn_one_part_median_cpu_s": round(one_cpu, 4),
        "one_part_vs_parts_paired": round(paired, 3),
        "python_chess_read_headers_median_s": round(theirs, 4),
        "python_chess_games_per_s": round(n_chess / theirs),
        "ratio": round(theirs / ours, 1),
        "target_games_per_s": 200_000,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_pgn.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# PGN header-only reading (issue 6)",
        "",
        f"Run {result['when']} on a {result['machine']} (other engineers' jobs running). "
        f"Data: kingbase_kb1.pgn x {args.copies} = {games:,} games, {size_mb:.1f} MB. "
        f"Medians of {args.repeats} runs (python-chess: {args.chess_repeats}).",
        "",
        "| what | median s | games/s | median CPU s |",
        "|---|---|---|---|",
        f"| `pipeline.pgn.read_pgn` | {ours:.3f} | {games / ours:,.0f} | {ours_cpu:.3f} |",
        f"| `read_pgn`, the file scanned in one part | {one:.3f} | {games / one:,.0f} "
        f"| {one_cpu:.3f} |",
        f"| python-chess `read_headers` loop | {theirs:.3f} | {n_chess / theirs:,.0f} | |",
        "",
        f"read_pgn vs python-chess: **{theirs / ours:.1f}x**; target ≥ 200,000 games/s: "
        f"**{'met' if games / ours >= 200_000 else 'not met'}**. Scanned in parts side by "
        f"side against one part, same run: **{paired:.2f}x** (median of the paired ratios).",
        "",
        "Reproduce: `.venv/bin/python benchmarks/bench_pgn.py`.",
    ]
    (RESULTS / "bench_pgn.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
