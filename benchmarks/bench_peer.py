"""Peer comparison (issue 15): R PlayerRatings vs `arpad rate`, whole processes.

Same seeded synthetic data as benchmarks/bench_rate.py (pipeline/synthetic.py:
200k players, 12 periods x 500k games = 6M games by default; ``--games`` sets
the games per period for quick runs). Measured as whole processes, paired and
alternated within each repeat (the order flips every repeat), medians and
same-run ratios:

  * R: ``Rscript peer.R elo|fide`` — reads the games (binary int/double
    vectors, R's fastest plain reader, so the peer is not charged for CSV
    parsing), runs PlayerRatings ``elo()`` or ``fide()``, writes the final
    ratings;
  * arpad: ``arpad ingest`` of a games and a players Parquet file (once per
    repeat), ``arpad rate --system elo`` and ``arpad rate --system fide``, both
    ``--no-flow``;
  * the ingest target (issue 15 item 1): ``arpad ingest`` against a bare
    ``polars.read_parquet`` of the same games file, both whole processes, paired
    and alternated; peak RSS of each (``os.wait4``).

Elo settings are aligned with arpad's ``elo`` rules: K 20, no white advantage
(gamma 0), the players file's rating as the start (``status``) and 1500 for
players without one. PlayerRatings' ``elo_c`` sums every player's score and
expectation over the period's games in input order from the ratings at the
start of the period, exactly as arpad's CSR kernel does, so the final ratings
must agree to 1e-9 (checked every repeat). ``fide()`` implements an older,
simpler FIDE scheme (K 10/15/30, no 400-point rule, no unrated pool): only its
time is compared.

Needs R (``Rscript``): on Debian ``apt-get update && apt-get install -y
r-base-core``. PlayerRatings is built from its source (default
``../shared/peers/PlayerRatings``) into ``benchmarks/work/Rlib`` with
``R CMD INSTALL -l``; this script installs nothing else.

    .venv/bin/python benchmarks/bench_peer.py [--games 500000 --repeats 3]

Writes benchmarks/results/bench_peer.{json,md}.
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
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arpad.pipeline.store import Store  # noqa: E402
from arpad.pipeline.synthetic import (  # noqa: E402
    SyntheticSpec,
    calendar_periods,
    period_games,
    players_table,
)
from benchmarks.bench_rate import machine  # noqa: E402
from benchmarks.installed import compile_package  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_PEER = ROOT.parent / "shared" / "peers" / "PlayerRatings"
ELO_K = 20.0
ELO_INIT = 1500.0
TOLERANCE = 1e-9

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
lib <- args[1]; data <- args[2]; what <- args[3]; out <- args[4]
suppressPackageStartupMessages(library(PlayerRatings, lib.loc = lib))
rd <- function(name, type, n) {
  con <- file(file.path(data, name), "rb"); on.exit(close(con))
  readBin(con, type, n = n, size = if (type == "integer") 4 else 8)
}
n_games <- as.integer(readLines(file.path(data, "n_games.txt")))
n_players <- as.integer(readLines(file.path(data, "n_players.txt")))
x <- data.frame(
  Month = rd("period.bin", "integer", n_games),
  White = rd("white.bin", "integer", n_games),
  Black = rd("black.bin", "integer", n_games),
  Score = rd("score.bin", "double", n_games)
)
status <- data.frame(
  Player = rd("player.bin", "integer", n_players),
  Rating = rd("rating.bin", "double", n_players)
)
if (what == "elo") {
  r <- elo(x, status = status, init = @INIT@, gamma = 0, kfac = @K@, sort = FALSE)
} else {
  r <- fide(x, status = status, init = @INIT@, gamma = 0, sort = FALSE)
}
con <- file(out, "wb")
writeBin(as.integer(r$ratings$Player), con, size = 4)
writeBin(as.double(r$ratings$Rating), con, size = 8)
close(con)
""".replace("@INIT@", repr(ELO_INIT)).replace("@K@", repr(ELO_K))


def need_rscript() -> str:
    rscript = shutil.which("Rscript")
    if rscript is None:
        sys.exit(
            "bench_peer: Rscript not found. Install R first (Debian/Ubuntu: "
            "`apt-get update && apt-get install -y r-base-core`); this script installs "
            "nothing but the PlayerRatings source into benchmarks/work/Rlib."
        )
    return rscript


def ensure_peer(rscript: str, source: Path, lib: Path) -> str:
    """Build PlayerRatings from source into ``lib`` unless it loads from there already."""
    check = [rscript, "-e", f"library(PlayerRatings, lib.loc = '{lib}')"]
    if subprocess.run(check, capture_output=True).returncode != 0:
        if not (source / "DESCRIPTION").exists():
            sys.exit(f"bench_peer: no PlayerRatings source at {source} (see --peer)")
        lib.mkdir(parents=True, exist_ok=True)
        subprocess.run(["R", "CMD", "INSTALL", "-l", str(lib), str(source)], check=True)
    version = subprocess.run(
        [rscript, "-e", f"cat(as.character(packageVersion('PlayerRatings', lib.loc = '{lib}')))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return version


def player_number(ids: pa.Array) -> np.ndarray:
    """'P0000123' -> 123 (synthetic ids are 'P' + a zero-padded number)."""
    digits = pc.utf8_slice_codeunits(ids, 1)
    return pc.cast(digits, pa.int32()).to_numpy(zero_copy_only=False)


def write_inputs(spec: SyntheticSpec, work: Path) -> dict:
    """The synthetic data as arpad input files (games + players Parquet) and R vectors."""
    rng = np.random.default_rng(spec.seed)  # the same draws as synthetic.generate
    players = players_table(spec, rng)
    games, ints = [], {"period": [], "white": [], "black": [], "score": []}
    for period in calendar_periods(spec.first_period, spec.periods):
        t = period_games(spec, period, rng)
        games.append(
            pa.table(
                {
                    "game_id": t.column("game_id"),
                    "period": pa.array(np.full(t.num_rows, period, dtype=np.int32)),
                    "white_id": t.column("white_id"),
                    "black_id": t.column("black_id"),
                    "score": t.column("score"),
                }
            )
        )
        ints["period"].append(np.full(t.num_rows, period, dtype=np.int32))
        ints["white"].append(player_number(t.column("white_id").combine_chunks()))
        ints["black"].append(player_number(t.column("black_id").combine_chunks()))
        ints["score"].append(t.column("score").to_numpy().astype(np.float64))
    work.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.concat_tables(games), work / "games.parquet")
    pq.write_table(
        players.select(["player_id", "rating", "rated_games", "peak_rating", "birth_year"]),
        work / "players.parquet",
    )
    rdata = work / "rdata"
    rdata.mkdir(exist_ok=True)
    for name, parts in ints.items():
        np.concatenate(parts).tofile(rdata / f"{name}.bin")
    start = players.column("rating").to_numpy(zero_copy_only=False).astype(np.float64)
    start = np.where(np.isnan(start), ELO_INIT, start)  # arpad elo: initial_rating when none
    player_number(players.column("player_id").combine_chunks()).astype(np.int32).tofile(
        rdata / "player.bin"
    )
    start.tofile(rdata / "rating.bin")
    n_games = sum(p.size for p in ints["period"])
    (rdata / "n_games.txt").write_text(f"{n_games}\n")
    (rdata / "n_players.txt").write_text(f"{players.num_rows}\n")
    return {"games": int(n_games), "players": players.num_rows, "rdata": rdata}


def run(cmd: list[str], env: dict, cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"bench_peer: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return seconds


# A bare copy of the games file into one zstd Parquet file per period (polars, all cores).
BARE_COPY = """
import os, sys, polars as pl
games = pl.read_parquet(sys.argv[1])
os.makedirs(sys.argv[2], exist_ok=True)
for (period,), part in games.partition_by("period", as_dict=True).items():
    part.write_parquet(os.path.join(sys.argv[2], f"{period}.parquet"), compression="zstd")
"""

GNU_TIME = Path("/usr/bin/time")  # Debian's package `time`


def run_rss(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (GiB) of one whole process.

    The peak comes from GNU time (``%M``) when it is installed: Linux keeps a process's
    ``ru_maxrss`` across ``exec``, and Python starts a child by ``vfork``, so a child's
    ``wait4`` figure was at least this benchmark's own RSS (0.77 GiB here, holding the
    data set): the bare polars read and the ingest both showed exactly that. GNU time
    forks the command from its own small process. Without it, ``wait4`` (an upper bound
    that may be the parent's RSS)."""
    import tempfile

    timed = GNU_TIME.is_file()
    full = [str(GNU_TIME), "-f", "peak-rss-kib %M", *cmd] if timed else cmd
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
        if proc.returncode != 0:
            raise SystemExit(f"bench_peer: {' '.join(cmd)} failed ({proc.returncode}):\n{text}")
    kib = usage.ru_maxrss
    if timed:
        kib = int(text.rsplit("peak-rss-kib ", 1)[1].split()[0])
    return seconds, kib / 1024**2  # KiB -> GiB


def arpad_final_elo(store: Store) -> dict[int, float]:
    """Every player's Elo after the last period (the last checkpoint's ratings)."""
    last = store.state_periods("elo", "standard")[-1]
    tables, _ = store.read_state("elo", "standard", last)
    t = tables["players"]
    ids = player_number(t.column("player_id").combine_chunks())
    return ids, t.column("rating").to_numpy(zero_copy_only=False)


def read_r_ratings(path: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    raw = path.read_bytes()
    ids = np.frombuffer(raw[: 4 * n], dtype=np.int32)
    rating = np.frombuffer(raw[4 * n :], dtype=np.float64)
    return ids, rating


def elo_difference(store: Store, r_out: Path, n_players: int) -> float:
    a_ids, a_rating = arpad_final_elo(store)
    r_ids, r_rating = read_r_ratings(r_out, n_players)
    a = np.full(n_players, np.nan)
    a[a_ids] = a_rating
    r = np.full(n_players, np.nan)
    r[r_ids] = r_rating
    if np.isnan(a).any() or np.isnan(r).any():
        raise SystemExit("bench_peer: a player is missing from arpad's or R's ratings")
    return float(np.max(np.abs(a - r)))


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=200_000)
    ap.add_argument("--periods", type=int, default=12)
    ap.add_argument("--games", type=int, default=500_000, help="games per period")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--peer", type=Path, default=DEFAULT_PEER, help="PlayerRatings source")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "work" / "bench_peer")
    ap.add_argument("--tag", default="bench_peer")
    a = ap.parse_args(argv)

    load_at_start = os.getloadavg()[0]
    rscript = need_rscript()
    lib = ROOT / "benchmarks" / "work" / "Rlib"
    version = ensure_peer(rscript, a.peer, lib)
    compile_package()  # as installed: no compiling of arpad's own source per process
    arpad = str(Path(sys.executable).with_name("arpad"))
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["ARPAD_NO_FLOW"] = "1"
    # With the kernels compiled ahead of time (compile_package builds them, as `make`
    # does); the same commands with ARPAD_AOT=0 (the JIT alone) run beside for a delta.
    env_jit = {**env, "ARPAD_AOT": "0"}

    spec = SyntheticSpec(players=a.players, periods=a.periods, games_per_period=a.games)
    shutil.rmtree(a.work, ignore_errors=True)
    a.work.mkdir(parents=True)
    inputs = write_inputs(spec, a.work)
    (a.work / "peer.R").write_text(R_SCRIPT)
    store_dir = a.work / "store"

    def r_cmd(what):
        out = a.work / f"r_{what}.bin"
        return [rscript, str(a.work / "peer.R"), str(lib), str(inputs["rdata"]), what, str(out)]

    def rate_cmd(system):
        return [arpad, "rate", "--store", str(store_dir), "--system", system, "--no-flow"]

    ingest = [arpad, "ingest", "--store", str(store_dir), "--no-flow"]
    ingest += ["--players", str(a.work / "players.parquet"), str(a.work / "games.parquet")]
    # Issue 15 item 1: ingest against a bare polars read of the same games file.
    bare = [sys.executable, "-c", "import sys, polars; polars.read_parquet(sys.argv[1])"]
    bare.append(str(a.work / "games.parquet"))
    # The floor under any ingest into the store's layout: the same file read and written
    # again as one zstd Parquet file per period, nothing checked, keyed or hashed.
    copy_dir = a.work / "bare_copy"
    copy = [sys.executable, "-c", BARE_COPY, str(a.work / "games.parquet"), str(copy_dir)]
    names = ("polars read", "polars copy", "ingest", "R elo", "arpad elo", "R fide", "arpad fide",
             "arpad elo (JIT)", "arpad fide (JIT)")  # fmt: skip
    times: dict[str, list[float]] = {k: [] for k in names}
    rss: dict[str, list[float]] = {"polars read": [], "polars copy": [], "ingest": []}
    diffs = []
    for rep in range(a.repeats):
        shutil.rmtree(store_dir, ignore_errors=True)
        shutil.rmtree(copy_dir, ignore_errors=True)
        first = [("polars read", bare), ("polars copy", copy), ("ingest", ingest)]
        for name, cmd in first if rep % 2 == 0 else first[::-1]:
            seconds, peak = run_rss(cmd, env, a.work)
            times[name].append(seconds)
            rss[name].append(peak)
        pairs = [("R elo", r_cmd("elo")), ("arpad elo", rate_cmd("elo"))]
        pairs += [("R fide", r_cmd("fide")), ("arpad fide", rate_cmd("fide"))]
        if rep % 2:  # alternate which side of each pair goes first
            pairs = [pairs[1], pairs[0], pairs[3], pairs[2]]
        for name, cmd in pairs:
            times[name].append(run(cmd, env, a.work))
        jit = [("arpad elo (JIT)", rate_cmd("elo")), ("arpad fide (JIT)", rate_cmd("fide"))]
        for name, cmd in jit if rep % 2 else jit[::-1]:
            times[name].append(run(cmd, env_jit, a.work))
        diffs.append(elo_difference(Store(store_dir), a.work / "r_elo.bin", inputs["players"]))
        line = ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items())
        print(f"repeat {rep + 1}: {line}; max |arpad elo - R elo| {diffs[-1]:.2e}", flush=True)
    return finish(a, spec, inputs, times, diffs, version, load_at_start, rss)


def finish(a, spec, inputs, times, diffs, version, load_at_start, rss=None) -> dict:
    med = {k: statistics.median(v) for k, v in times.items()}
    # Same-run ratios: per repeat R time / arpad time of the same pair, then the median.
    ratio = {
        s: statistics.median(r / p for r, p in zip(times[f"R {s}"], times[f"arpad {s}"]))
        for s in ("elo", "fide")
    }
    targets = {"elo": 3.0, "fide": 10.0}
    games = inputs["games"]
    rss = rss or {}
    ingest_ratio = None
    if times.get("polars read"):
        ingest_ratio = statistics.median(
            i / p for i, p in zip(times["ingest"], times["polars read"])
        )
    ingest_rss = max(rss.get("ingest") or [0.0])
    copy_ratio = ingest_over_copy = None
    if times.get("polars copy"):
        copy_ratio = statistics.median(
            c / p for c, p in zip(times["polars copy"], times["polars read"])
        )
        ingest_over_copy = statistics.median(
            i / c for i, c in zip(times["ingest"], times["polars copy"])
        )
    result = {
        "benchmark": "R PlayerRatings vs arpad rate, whole processes (issue 15)",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **machine(),
            "load_1min_at_start": load_at_start,
            "load_1min_at_end": os.getloadavg()[0],
        },
        "peer": f"PlayerRatings {version} ({os.path.relpath(a.peer, ROOT)})",
        "data": {
            "players": a.players,
            "periods": a.periods,
            "games_per_period": a.games,
            "total_games": games,
            "seed": spec.seed,
        },
        "repeats": a.repeats,
        "seconds": times,
        "median_seconds": med,
        "same_run_ratio_r_over_arpad": ratio,
        "targets_ratio": targets,
        "targets_met": {s: ratio[s] >= targets[s] for s in targets},
        "ingest_over_polars_read": ingest_ratio,
        "ingest_peak_rss_gb": ingest_rss,
        "bare_copy_over_polars_read": copy_ratio,
        "ingest_over_bare_copy": ingest_over_copy,
        "ingest_targets": {"ratio_to_polars_read": 3.0, "peak_rss_gb": 1.0},
        "peak_rss_gb": {k: max(v) for k, v in rss.items() if v},
        "elo_max_abs_difference": max(diffs),
        "elo_tolerance": TOLERANCE,
        "elo_equal": max(diffs) <= TOLERANCE,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    m = result["machine"]
    rows = [
        ("R PlayerRatings `elo()`, whole Rscript", "R elo", ""),
        ("`arpad rate --system elo --no-flow`", "arpad elo", "elo"),
        ("R PlayerRatings `fide()`, whole Rscript", "R fide", ""),
        ("`arpad rate --system fide --no-flow`", "arpad fide", "fide"),
        ("`arpad rate --system elo --no-flow`, `ARPAD_AOT=0` (JIT only)", "arpad elo (JIT)", ""),
        ("`arpad rate --system fide --no-flow`, `ARPAD_AOT=0` (JIT only)", "arpad fide (JIT)", ""),
        ("`arpad ingest --no-flow` (games + players Parquet)", "ingest", None),
        ("bare `polars.read_parquet` of the games file, whole process", "polars read", None),
        ("bare polars copy: read, one zstd file per period, nothing checked", "polars copy", None),
    ]
    md = [
        f"# {result['benchmark']}",
        "",
        f"Run {result['date']} on {m['cpu']} ({m['cores']} cores, 1-min load "
        f"{m['load_1min_at_start']:.2f} at start, {m['load_1min_at_end']:.2f} at end). "
        f"Peer: {result['peer'].split(' (')[0]}. Data: {a.players:,} players, {a.periods} "
        f"periods x {a.games:,} games = {games:,} games (seed {spec.seed}). "
        f"{a.repeats} repeats, each pair alternated; medians.",
        "",
        "| command (whole process) | median s | games/s | same-run ratio R / arpad | target |",
        "|---|---|---|---|---|",
    ]
    for label, key, system in rows:
        if key not in med:
            continue
        if system:
            met = "met" if result["targets_met"][system] else "**not met**"
            extra = f"{ratio[system]:.2f}x | >= {targets[system]:.0f}x ({met})"
        else:
            extra = " | "
        md.append(f"| {label} | {med[key]:.2f} | {games / med[key]:,.0f} | {extra} |")
    if times.get("arpad elo (JIT)"):
        aot = {
            s: statistics.median(
                j / k for j, k in zip(times[f"arpad {s} (JIT)"], times[f"arpad {s}"])
            )
            for s in ("elo", "fide")
        }
        result["jit_only_over_aot"] = aot
        md += [
            "",
            "Kernels compiled ahead of time (docs/developing.md): the same `rate` with "
            f"`ARPAD_AOT=0` took {aot['elo']:.2f}x (elo) and {aot['fide']:.2f}x (fide) the "
            "time with them (same-run medians of the per-repeat ratios).",
        ]
    if ingest_ratio is not None:
        met = ingest_ratio <= 3.0 and ingest_rss <= 1.0
        md += [
            "",
            f"Ingest: {ingest_ratio:.2f}x the bare polars read of the same file (same-run "
            f"median of the per-repeat ratios; target <= 3x), peak RSS {ingest_rss:.2f} GiB "
            f"(target <= 1 GiB): {'met' if met else '**not met**'}.",
        ]
    if copy_ratio is not None:
        md += [
            "",
            f"The floor: a bare polars copy of the games file into one zstd Parquet file "
            f"per period (no validation, no player keys, no duplicate checks, no content "
            f"digest, no players table, no journal) took {copy_ratio:.2f}x the bare read; "
            f"the ingest took {ingest_over_copy:.2f}x that copy (same-run medians of the "
            f"per-repeat ratios).",
        ]
    md += [
        "",
        f"Elo equals the peer: max |arpad - R| over all {a.players:,} final ratings = "
        f"{result['elo_max_abs_difference']:.2e} (tolerance {TOLERANCE:g}; "
        f"{'equal' if result['elo_equal'] else '**NOT equal**'}). Settings: K {ELO_K:g}, "
        f"start = players file rating else {ELO_INIT:g}, no white advantage. R `fide()` is "
        "an older FIDE scheme than arpad's, so only its time is compared.",
        "",
        "Per repeat (s): "
        + "; ".join(f"{k} " + ", ".join(f"{t:.2f}" for t in v) for k, v in times.items()),
        "",
        "Reproduce: `.venv/bin/python benchmarks/bench_peer.py` (needs `Rscript`; "
        "`--games 50000` for a quick run).",
    ]
    (RESULTS / f"{a.tag}.md").write_text("\n".join(md) + "\n")
    (RESULTS / f"{a.tag}.json").write_text(json.dumps(result, indent=2) + "\n")
    print("\n".join(md))
    return result


if __name__ == "__main__":
    main()
