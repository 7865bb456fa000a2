"""What-if replays: the same games under two FIDE rule sets, and what differs.

Each side is a normal engine run into a scratch store that shares the games
and players of the real store (symlinks) and, with ``start``, a copy of the
real store's checkpoint before ``start`` — so both sides begin from the same
ratings and the real store's ratings are never touched.

Reported: the biggest movers at the final list (rating under B − under A),
the rating distribution per period under both (n, mean, median, p10, p90),
and per threshold (1400, 2000, 2400) how many players reach it under each.

"The final list" is each side's own last walked period: under two-monthly
rules (2009-07, 2011-07) the games of a month count on the list that closes
the two months, which can be one month later than under monthly rules, so the
two sides can end on different periods.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from arpad.pipeline import engine
from arpad.pipeline.output import render
from arpad.pipeline.store import Store
from arpad.pipeline.systems.fide import FideSystem

FIDE = FideSystem.name  # what-if replays compare FIDE rule sets

THRESHOLDS = (1400, 2000, 2400)
LISTED = ("rated", "new", "inactive")


@dataclass
class WhatIf:
    rules_a: str
    rules_b: str
    periods: list[int]  # every period either side walked, in order
    final_a: int  # the period of side A's final list (its last walked period)
    final_b: int  # the same for side B: later than final_a when only B is two-monthly
    movers: pl.DataFrame
    distribution: pl.DataFrame
    crossings: pl.DataFrame

    def write_parquet(self, directory: str | Path) -> list[Path]:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        paths = []
        for name in ("movers", "distribution", "crossings"):
            path = directory / f"{name}.parquet"
            render(getattr(self, name), "parquet", str(path))
            paths.append(path)
        return paths


def _scratch_store(real: Store, root: Path, system: str, pool: str, start: int | None) -> Store:
    root.mkdir(parents=True)
    os.symlink(real.games_dir.resolve(), root / "games")
    os.symlink(real.players_path.parent.resolve(), root / "players")
    if start is not None:
        earlier = [p for p in real.state_periods(system, pool) if p < start]
        has_earlier_games = any(p < start for p in real.periods(pool))
        if has_earlier_games and not earlier:
            raise ValueError(
                f"--from {start}: no stored {system}/{pool} checkpoint before it; run "
                f"arpad rate --system {system} --pool {pool} first, or leave out --from"
            )
        if earlier:
            src = real.state_partition(system, pool, earlier[-1])
            dst = root / src.relative_to(real.root)
            shutil.copytree(src, dst)
    return Store(root)


def resolve(spec: str | None, pool: str):
    """(rules, name) of a ``--rules`` spec: None for the versions in force."""
    if spec is None or spec.lower() in ("dated", "auto", "in-force"):
        return None, "versions in force"
    rules = engine.resolve_rules(FIDE, spec, pool)
    return rules, rules.name


def _ratings(store: Store, pool: str, walked: list[int]) -> pl.DataFrame:
    frames = []
    for p in walked:
        t = pl.from_arrow(store.read_ratings(FIDE, pool, p))
        frames.append(t.select(["player_id", "rating_after", "status"]).with_columns(period=p))
    return pl.concat(frames) if frames else pl.DataFrame()


def replay_side(
    store_root: str, spec: str | None, pool: str, start: int | None, end: int | None
) -> tuple[str, list[int], pl.DataFrame]:
    """One side of a what-if: replay ``pool`` under ``spec`` (a ``--rules`` spec; None =
    versions in force) in a scratch store; (rules name, periods walked, ratings)."""
    real = Store(store_root)
    rules, name = resolve(spec, pool)
    scratch = Path(tempfile.mkdtemp(prefix="arpad-whatif-"))
    try:
        s = _scratch_store(real, scratch / "side", FIDE, pool, start)
        summary = engine.rate(
            s, FIDE, pool, start=start, end=end, rules=rules, refresh_catalog=False
        )
        return name, summary.periods, _ratings(s, pool, summary.periods)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def compare(side_a: tuple, side_b: tuple, top: int = 10) -> WhatIf:
    """Movers, distributions and threshold crossings of side B against side A."""
    (name_a, walked_a, ratings_a), (name_b, walked_b, ratings_b) = side_a, side_b
    if not walked_a or not walked_b:
        raise ValueError("no periods with games in the range")
    # Each side at its own final list: a two-monthly side closes a month later.
    last = {"a": walked_a[-1], "b": walked_b[-1]}
    listed = {
        k: v.filter(pl.col("status").is_in(LISTED) & pl.col("rating_after").is_not_null())
        for k, v in (("a", ratings_a), ("b", ratings_b))
    }
    return WhatIf(
        rules_a=name_a,
        rules_b=name_b,
        periods=sorted(set(walked_a) | set(walked_b)),
        final_a=last["a"],
        final_b=last["b"],
        movers=_movers(listed, last, top),
        distribution=_distribution(listed),
        crossings=_crossings(listed, last),
    )


def _final(listed, last: dict[str, int]) -> dict[str, pl.DataFrame]:
    """Each side's listed players on its own final list."""
    return {k: v.filter(pl.col("period") == last[k]) for k, v in listed.items()}


def _movers(listed, last: dict[str, int], top: int) -> pl.DataFrame:
    final = _final(listed, last)
    a = final["a"].select("player_id", rating_a="rating_after")
    b = final["b"].select("player_id", rating_b="rating_after")
    both = a.join(b, on="player_id", how="full", coalesce=True)
    return (
        both.with_columns(
            difference=pl.col("rating_b") - pl.col("rating_a"),
            period_a=pl.lit(last["a"], pl.Int32),
            period_b=pl.lit(last["b"], pl.Int32),
        )
        .sort(pl.col("difference").abs(), "player_id", descending=[True, False], nulls_last=True)
        .head(top)
        .select("period_a", "period_b", "player_id", "rating_a", "rating_b", "difference")
    )


def _distribution(listed) -> pl.DataFrame:
    def stats(frame, label):
        r = pl.col("rating_after")
        return frame.group_by("period").agg(
            r.count().alias(f"n_{label}"),
            r.mean().alias(f"mean_{label}"),
            r.median().alias(f"median_{label}"),
            r.quantile(0.1, "nearest").alias(f"p10_{label}"),
            r.quantile(0.9, "nearest").alias(f"p90_{label}"),
        )

    out = stats(listed["a"], "a").join(
        stats(listed["b"], "b"), on="period", how="full", coalesce=True
    )
    return out.sort("period").with_columns(
        mean_difference=pl.col("mean_b") - pl.col("mean_a"),
        median_difference=pl.col("median_b") - pl.col("median_a"),
    )


def _crossings(listed, last: dict[str, int]) -> pl.DataFrame:
    rows = []
    peak = {k: v.group_by("player_id").agg(pl.col("rating_after").max()) for k, v in listed.items()}
    final = _final(listed, last)
    for t in THRESHOLDS:
        reached = {
            k: set(v.filter(pl.col("rating_after") >= t)["player_id"]) for k, v in peak.items()
        }
        above = {k: int((v["rating_after"] >= t).sum()) for k, v in final.items()}
        rows.append(
            {
                "threshold": t,
                "reached_a": len(reached["a"]),
                "reached_b": len(reached["b"]),
                "only_a": len(reached["a"] - reached["b"]),
                "only_b": len(reached["b"] - reached["a"]),
                "above_at_end_a": above["a"],
                "above_at_end_b": above["b"],
            }
        )
    return pl.DataFrame(rows)
