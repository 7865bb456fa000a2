"""Where the compute of ``arpad rate`` goes, stage by stage, in one process (issue 15).

On an existing store (``--store``, e.g. the 6M-game store ``bench_peer.py`` fills) or
a seeded synthetic one (``pipeline/synthetic.py``), for each system: the players-file
ratings (``observations.undated_ratings``), the reads of every period's games (once,
kept in memory), then ``--repeats`` walks over the periods timing the CSR grouping
(``PeriodGames.build``), the system's ``step`` and the performance column
(``fill_performance``), with wall (perf_counter) and CPU (process_time) seconds. The
first walk includes Numba's cached-kernel loads and is reported apart. Nothing is
written to the store. To compare two versions, run the script from each checkout on
copies of one store, alternated (docs/benchmarks.md).
Writes benchmarks/results/bench_stages.{json,md}.

    .venv/bin/python benchmarks/bench_stages.py [--store S] [--systems elo,fide] [--repeats 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arpad.pipeline import engine, observations  # noqa: E402
from arpad.pipeline import keys as player_keys  # noqa: E402
from arpad.pipeline.performance import fill_performance  # noqa: E402
from arpad.pipeline.store import Store  # noqa: E402
from arpad.pipeline.synthetic import SyntheticSpec, generate  # noqa: E402
from arpad.pipeline.systems import get_system  # noqa: E402
from arpad.pipeline.systems.base import PeriodGames  # noqa: E402
from benchmarks.bench_rate import machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = ROOT / "benchmarks" / "work" / "bench_stages"
STAGES = ("csr", "step", "performance")


class Clock:
    """Wall and CPU seconds of a block, added to ``totals[name]``."""

    def __init__(self, totals: dict, name: str):
        self.totals, self.name = totals, name

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def __exit__(self, *exc):
        wall, cpu = self.totals.setdefault(self.name, [0.0, 0.0])
        self.totals[self.name] = [
            wall + time.perf_counter() - self.wall,
            cpu + time.process_time() - self.cpu,
        ]


def load(store: Store, system: str, pool: str):
    """The run's players and every period's games as the engine reads them."""
    sys_ = get_system(system)
    info = engine.player_info(store.read_players())
    totals: dict = {}
    with Clock(totals, "players-file ratings"):
        info.rating = observations.undated_ratings(store, info.player_id, info.rating)
    ids = engine.id_array(info.player_id)
    dense_of_key = None
    if store.keys_path.exists():
        dense_of_key = player_keys.dense_of_keys(player_keys.read_keys(store.keys_path), ids, None)
    periods = []
    with Clock(totals, "reads"):
        for period in store.periods(pool):
            files = [str(f) for f in store.game_files(pool, period)]
            periods.append(
                (
                    period,
                    *engine.load_period_games(files, ids, None, dense_of_key, sys_.uses_events),
                )
            )
    return sys_, info, periods, totals


def walk(sys_, info, periods, pool: str) -> dict:
    totals: dict = {}
    state = sys_.initial_state(info, sys_.rules_for(periods[0][0], pool))
    previous = None
    for period, white, black, score, event in periods:
        rules = sys_.rules_for(period, pool)
        with Clock(totals, "csr"):
            games = PeriodGames.build(period, white, black, score, info.n, event, previous)
        with Clock(totals, "step"):
            state, report = sys_.step(state, games, rules)
        with Clock(totals, "performance"):
            fill_performance(sys_, report, games)
        previous = period
    return totals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default=None, help="an existing store (default: synthetic)")
    ap.add_argument("--systems", default="elo,fide")
    ap.add_argument("--pool", default="standard")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--players", type=int, default=200_000)
    ap.add_argument("--periods", type=int, default=12)
    ap.add_argument("--games", type=int, default=500_000, help="games per period")
    a = ap.parse_args()
    if a.store:
        store = Store(a.store)
    else:
        store = Store(WORK / f"{a.players}-{a.periods}-{a.games}")
        if not store.root.exists():
            generate(store, SyntheticSpec(a.players, a.periods, a.games))
    info_machine = machine()
    out = {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    out |= {"machine": info_machine, "store": str(store.root), "systems": {}}
    for system in a.systems.split(","):
        sys_, info, periods, once = load(store, system, a.pool)
        first = walk(sys_, info, periods, a.pool)
        walks = [walk(sys_, info, periods, a.pool) for _ in range(a.repeats)]
        median = {s: [statistics.median(w[s][i] for w in walks) for i in (0, 1)] for s in STAGES}
        out["systems"][system] = {
            "games": int(sum(p[1].size for p in periods)),
            "once": once,
            "first_walk": first,
            "median_walk": median,
        }
    out["load_1min_at_end"] = os.getloadavg()[0]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_stages.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        "# Rate stages in one process (benchmarks/bench_stages.py)",
        "",
        f"{out['when']}, store `{store.root.name}`, {info_machine['cpu']}, "
        f"{info_machine['cores']} cores, 1-min load {info_machine['load_1min_at_start']:.1f} "
        f"at the start and {out['load_1min_at_end']:.1f} at the end. Medians of the walks "
        "after the first (which includes Numba's cached-kernel loads).",
        "",
        "| system | stage | wall s | CPU s | first walk wall s |",
        "|---|---|---:|---:|---:|",
    ]
    for system, r in out["systems"].items():
        for stage, (wall, cpu) in r["once"].items():
            lines.append(f"| {system} | {stage} (once) | {wall:.3f} | {cpu:.3f} | |")
        for stage in STAGES:
            wall, cpu = r["median_walk"][stage]
            lines.append(
                f"| {system} | {stage} | {wall:.3f} | {cpu:.3f} | {r['first_walk'][stage][0]:.3f} |"
            )
    (RESULTS / "bench_stages.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
