"""The rate path's threads on two cores (issue 15, docs/store.md "Read-ahead"), in one
process: ``engine.rate`` over a store's periods in five modes, alternated —

* ``in_order``: everything on the engine's thread (``ARPAD_WRITE_BEHIND=0``,
  ``ARPAD_READ_AHEAD=0``);
* ``write_behind``: ratings files (and the performance column) on the write-behind
  thread, reads on the engine's thread (``ARPAD_READ_AHEAD=0``,
  ``ARPAD_PERFORMANCE_THREAD=0``);
* ``performance_thread`` (the default): the performance column on a thread of its
  own beside the write in flight, reads on the engine's thread;
* ``read_ahead``: the write-behind as in ``write_behind``, and the next period's
  games read and grouped on the read-ahead thread;
* ``overlapped``: read-ahead and the performance column's own thread together
  (``ARPAD_READ_AHEAD=1``).

For each run: wall and process CPU seconds, and the CPU seconds (``thread_time``, on
whichever thread) of each lane's work — reading a period's games, the CSR grouping,
the performance column, the Parquet writes — so the lanes' sums can be set against
the wall time: with a free core the wall time tends to the longest lane, on a loaded
machine to the CPU time. The same files are written in every mode
(tests/test_rate_overlap.py). The catalog is not refreshed; start-up is not included
(``bench_peer.py`` times whole processes).
Writes benchmarks/results/bench_overlap.{json,md}.

    .venv/bin/python benchmarks/bench_overlap.py --store COPY_OF_A_STORE [--systems elo,fide]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import arpad.kernels.csr as csr  # noqa: E402
import arpad.pipeline.performance as performance  # noqa: E402
import arpad.pipeline.store as store_module  # noqa: E402
from arpad.pipeline import engine  # noqa: E402
from arpad.pipeline.store import Store  # noqa: E402
from benchmarks.bench_rate import machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
MODES = {
    "in_order": {"ARPAD_WRITE_BEHIND": "0", "ARPAD_READ_AHEAD": "0"},
    "write_behind": {
        "ARPAD_WRITE_BEHIND": "1",
        "ARPAD_READ_AHEAD": "0",
        "ARPAD_PERFORMANCE_THREAD": "0",
    },
    "performance_thread": {
        "ARPAD_WRITE_BEHIND": "1",
        "ARPAD_READ_AHEAD": "0",
        "ARPAD_PERFORMANCE_THREAD": "1",
    },
    "read_ahead": {
        "ARPAD_WRITE_BEHIND": "1",
        "ARPAD_READ_AHEAD": "1",
        "ARPAD_PERFORMANCE_THREAD": "0",
    },
    "overlapped": {
        "ARPAD_WRITE_BEHIND": "1",
        "ARPAD_READ_AHEAD": "1",
        "ARPAD_PERFORMANCE_THREAD": "1",
    },
}
LANES = ("read", "csr", "performance", "write")

_lock = threading.Lock()
_cpu: dict[str, float] = {}


def _timed(name: str, func):
    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return func(*args, **kwargs)
        finally:
            with _lock:
                _cpu[name] = _cpu.get(name, 0.0) + time.thread_time() - start

    return wrapper


def _instrument() -> None:
    engine.load_period_games = _timed("read", engine.load_period_games)
    csr.group_by_player = _timed("csr", csr.group_by_player)
    performance.performance_period = _timed("performance", performance.performance_period)
    store_module.write_parquet_file = _timed("write", store_module.write_parquet_file)


def run_once(store: Store, system: str, mode: str) -> dict:
    os.environ.update(MODES[mode])
    _cpu.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    summary = engine.rate(store, system, refresh_catalog=False)
    out = {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "waits": dict(summary.seconds),
        "load_1min": os.getloadavg()[0],
    }
    out.update({lane: _cpu.get(lane, 0.0) for lane in LANES})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True, help="a store with games (a copy: it is rated)")
    ap.add_argument("--systems", default="elo,fide")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    a = ap.parse_args(argv)
    store = Store(a.store)
    _instrument()
    info = machine()
    rows = []
    for system in a.systems.split(","):
        run_once(store, system, "overlapped")  # Numba's cache loads, page cache
        for rep in range(a.repeats):
            for mode in a.modes.split(","):
                r = run_once(store, system, mode)
                rows.append({"system": system, "mode": mode, "repeat": rep, **r})
                print(
                    f"{system} {mode:12s} wall {r['wall']:.3f} cpu {r['cpu']:.3f} "
                    + " ".join(f"{lane} {r[lane]:.3f}" for lane in LANES)
                    + f" load {r['load_1min']:.2f}",
                    flush=True,
                )
    medians = {}
    for row in rows:
        medians.setdefault((row["system"], row["mode"]), []).append(row)
    table = [
        "| system | mode | wall s | CPU s | read | CSR | performance | writes | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (system, mode), rs in medians.items():
        m = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", *LANES)}
        loads = f"{min(r['load_1min'] for r in rs):.2f}–{max(r['load_1min'] for r in rs):.2f}"
        table.append(
            f"| {system} | {mode} | {m['wall']:.3f} | {m['cpu']:.3f} | "
            + " | ".join(f"{m[lane]:.3f}" for lane in LANES)
            + f" | {loads} |"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    payload = {"benchmark": "rate path threads", "at": stamp, "machine": info, "runs": rows}
    (RESULTS / "bench_overlap.json").write_text(json.dumps(payload, indent=2) + "\n")
    text = (
        f"# Rate path threads (in process), {stamp}\n\n"
        f"Store: {store.root.name}; medians of {a.repeats} alternated runs per mode; "
        f"lanes are CPU seconds of that work on whichever thread ran it.\n\n"
        + "\n".join(table)
        + "\n"
    )
    (RESULTS / "bench_overlap.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
