"""What sharding a period by player costs and gives (issue 7), FIDE on synthetic data.

Seeded synthetic store (default 200k players, 4 periods x 500k games). The same
``engine.rate`` run three ways, results checked identical (every ratings and
checkpoint Parquet file):
  * unsharded, in this process;
  * ``shards`` player shards one after the other in this process (the overhead:
    subsetting the games and rebuilding each shard's CSR, merging);
  * ``shards`` shards as tasks on a local Dask cluster of ``workers`` processes
    (one Numba thread each: the thread budget on 2 cores), cluster started outside
    the timing.
Medians over repeats of the engine's "kernel" time (CSR, step, merge, performance) and of
the whole run; writes benchmarks/results/bench_sharding.{json,md}.

    .venv/bin/python benchmarks/bench_sharding.py [--players N --periods N --games N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arpad.pipeline import engine, sharding  # noqa: E402
from arpad.pipeline.store import Store  # noqa: E402
from arpad.pipeline.synthetic import SyntheticSpec, generate  # noqa: E402
from benchmarks.bench_rate import machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = ROOT / "benchmarks" / "work" / "bench_sharding"


def digest(store: Store) -> str:
    """One hash over every ratings and checkpoint Parquet file (byte-identical runs)."""
    h = hashlib.sha256()
    for root in (store.ratings_dir, store.state_dir):
        for f in sorted(root.rglob("*.parquet")):
            h.update(str(f.relative_to(store.root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def run(store: Store, repeats: int, **kwargs) -> tuple[dict, str]:
    walls, kernels = [], []
    for _ in range(repeats):
        shutil.rmtree(store.ratings_dir, ignore_errors=True)
        shutil.rmtree(store.state_dir, ignore_errors=True)
        t0 = time.perf_counter()
        summary = engine.rate(store, "fide", refresh_catalog=False, **kwargs)
        walls.append(time.perf_counter() - t0)
        kernels.append(summary.seconds["kernel"])
    return {
        "wall_s": statistics.median(walls),
        "kernel_s": statistics.median(kernels),
        "games": summary.games,
        "shards": summary.shards,
    }, digest(store)


def main(argv=None) -> dict:
    from distributed import Client, LocalCluster

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=200_000)
    p.add_argument("--periods", type=int, default=4)
    p.add_argument("--games", type=int, default=500_000)
    p.add_argument("--shards", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)

    shutil.rmtree(WORK, ignore_errors=True)
    store = Store(WORK / "store")
    spec = SyntheticSpec(players=a.players, periods=a.periods, games_per_period=a.games)
    generate(store, spec)
    info = machine()
    rows = {}
    try:
        engine.rate(store, "fide", end=store.periods("standard")[0], refresh_catalog=False)  # JIT
        rows["unsharded"], want = run(store, a.repeats)
        rows[f"{a.shards} shards, this process"], local = run(store, a.repeats, shards=a.shards)
        threads = max(1, (info["cores"] or 1) // a.workers)
        with (
            LocalCluster(
                n_workers=a.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                env={"NUMBA_NUM_THREADS": str(threads)},
            ) as cluster,
            Client(cluster) as client,
        ):
            label = f"{a.shards} shards, Dask {a.workers} workers x {threads} Numba thread"
            rows[label], on_dask = run(
                store, a.repeats, shards=a.shards, shard_map=sharding.dask_map(client)
            )
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    assert want == local == on_dask, "sharded results differ from the unsharded run"

    result = {
        "run_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": info,
        "data": {
            "players": a.players,
            "periods": a.periods,
            "games_per_period": a.games,
            "seed": spec.seed,
        },
        "repeats": a.repeats,
        "identical_results": True,
        "rows": rows,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_sharding.json").write_text(json.dumps(result, indent=2) + "\n")
    base = rows["unsharded"]
    lines = [
        "# Period work sharded by player (issue 7)",
        "",
        f"Run {result['run_at']} on {info['cpu']} ({info['cores']} cores, shared machine, "
        f"1-min load at start {info['load_1min_at_start']:.2f}). FIDE, synthetic data: "
        f"{a.players:,} players, {a.periods} periods x {a.games:,} games (seed {spec.seed}). "
        f"Medians of {a.repeats} runs. Every ratings and checkpoint Parquet file is "
        "byte-identical in the three ways.",
        "",
        "| how | whole run s | kernel s (CSR, step, merge, performance) | games/s (whole run) | kernel vs unsharded |",
        "|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['wall_s']:.2f} | {r['kernel_s']:.2f} | "
            f"{r['games'] / r['wall_s']:,.0f} | {r['kernel_s'] / base['kernel_s']:.2f}x |"
        )
    lines += [
        "",
        "Kernel time of the Dask row includes scattering the state and games to the "
        "workers and gathering the shards' rows.",
        "",
        "Reproduce: `.venv/bin/python benchmarks/bench_sharding.py`.",
    ]
    (RESULTS / "bench_sharding.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return result


if __name__ == "__main__":
    main()
