"""Seeded synthetic stores for benchmarks and scale tests.

Writes straight into the store layout (games partitions with player keys,
players.parquet, keys.parquet),
bypassing CSV parsing and validation: the data are valid by construction, and
what is measured downstream is the rating path, not ingest.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import catalog, keys, schemas
from arpad.pipeline.store import Store, atomic_write_parquet


@dataclass(frozen=True)
class SyntheticSpec:
    players: int = 200_000
    periods: int = 12
    games_per_period: int = 500_000
    first_period: int = 202501  # YYYYMM
    unrated_share: float = 0.05
    seed: int = 20261129


def calendar_periods(first: int, count: int) -> list[int]:
    year, month = divmod(first, 100)
    out = []
    for _ in range(count):
        out.append(year * 100 + month)
        month += 1
        if month == 13:
            year, month = year + 1, 1
    return out


def _ids(prefix: str, numbers: np.ndarray, width: int) -> pa.Array:
    text = pc.utf8_lpad(pa.array(numbers).cast(pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise(pa.scalar(prefix), text, pa.scalar(""))


def players_table(spec: SyntheticSpec, rng: np.random.Generator) -> pa.Table:
    n = spec.players
    rating = np.clip(np.round(rng.normal(1800, 280, n)), 1400, 2850)
    unrated = rng.random(n) < spec.unrated_share
    rated_games = rng.choice([5, 20, 40, 300], n, p=[0.1, 0.1, 0.3, 0.5]).astype(np.int32)
    peak = np.where(rng.random(n) < 0.1, np.maximum(rating, 2400), rating)
    birth = rng.integers(1950, 2016, n).astype(np.int32)
    return schemas.conform(
        pa.table(
            {
                "player_id": _ids("P", np.arange(n), 7),
                "rating": pa.array(rating, mask=unrated),
                "rated_games": pa.array(rated_games, mask=unrated),
                "peak_rating": pa.array(peak, mask=unrated),
                "birth_year": birth,
            }
        ),
        schemas.PLAYERS,
    )


def period_games(spec: SyntheticSpec, period: int, rng: np.random.Generator) -> pa.Table:
    g = spec.games_per_period
    white = rng.integers(0, spec.players, g)
    black = (white + rng.integers(1, spec.players, g)) % spec.players
    score = rng.choice(np.array([0.0, 0.5, 1.0], dtype=np.float32), g, p=[0.3, 0.35, 0.35])
    return pa.table(
        {
            "game_id": _ids(f"S{period}-", np.arange(g), 7),
            "date": pa.nulls(g, pa.date32()),
            "white_id": _ids("P", white, 7),
            "black_id": _ids("P", black, 7),
            "score": score,
            "rated": np.ones(g, dtype=bool),
            "event_id": pa.nulls(g, pa.string()),
            "source": pa.array(["synthetic"] * 1, pa.string()).take(np.zeros(g, dtype=np.int64)),
            "ingest_batch": pa.array(["synthetic"], pa.string()).take(np.zeros(g, dtype=np.int64)),
            "white_rating": pa.nulls(g, pa.float64()),
            "black_rating": pa.nulls(g, pa.float64()),
            "date_precision": pa.nulls(g, pa.string()),
            "moves_digest": pa.nulls(g, pa.int64()),
            # Player keys (docs/store.md "Player keys"): player i has key i here.
            "white_key": white.astype(np.int32),
            "black_key": black.astype(np.int32),
        },
        schema=schemas.GAMES_FILE,
    )


def generate(store: Store, spec: SyntheticSpec) -> list[int]:
    """Write a synthetic store; returns its periods."""
    rng = np.random.default_rng(spec.seed)
    store.ensure()
    players = players_table(spec, rng)
    store.write_players(players)
    ids = players.column("player_id").combine_chunks()
    atomic_write_parquet(
        pa.table(
            {"player_id": ids, "key": pa.array(np.arange(len(ids), dtype=np.int32))},
            schema=keys.KEYS,
        ),
        store.keys_path,
        store.root,
    )
    periods = calendar_periods(spec.first_period, spec.periods)
    for period in periods:
        table = period_games(spec, period, rng)
        atomic_write_parquet(
            table, store.game_partition("standard", period) / "part-synthetic.parquet", store.root
        )
    catalog.refresh(store)
    return periods


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a seeded synthetic arpad store.")
    parser.add_argument("store")
    parser.add_argument("--players", type=int, default=SyntheticSpec.players)
    parser.add_argument("--periods", type=int, default=SyntheticSpec.periods)
    parser.add_argument("--games", type=int, default=SyntheticSpec.games_per_period)
    parser.add_argument("--first-period", type=int, default=SyntheticSpec.first_period)
    parser.add_argument("--seed", type=int, default=SyntheticSpec.seed)
    a = parser.parse_args(argv)
    spec = SyntheticSpec(a.players, a.periods, a.games, a.first_period, seed=a.seed)
    periods = generate(Store(a.store), spec)
    print(f"wrote {len(periods)} periods x {spec.games_per_period} games, {spec.players} players")


if __name__ == "__main__":
    main()
