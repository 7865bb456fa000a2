"""A small synthetic, dated data set spanning every FIDE rule version (2009–2026).

Used by the tests of dated rule versions and by the example in
docs/fide-history.md (``arpad fide-sample DIR``). Deterministic for a seed.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

FIRST_PERIOD = 200907
LAST_PERIOD = 202603


def sample_periods(first: int = FIRST_PERIOD, last: int = LAST_PERIOD) -> list[int]:
    out, year, month = [], first // 100, first % 100
    while year * 100 + month <= last:
        out.append(year * 100 + month)
        month += 1
        if month > 12:
            year, month = year + 1, 1
    return out


def write_sample(
    directory: str | Path,
    seed: int = 7,
    n_players: int = 40,
    games_per_month: int = 12,
    skip_every: int = 5,
    every: int = 1,
) -> tuple[Path, Path]:
    """Write ``players.csv`` and ``games.csv`` (standard and rapid games) to ``directory``.

    Every ``skip_every``-th month has no games, so replays also cross months that
    are not walked (e.g. the closing month of a two-monthly rating period).
    With ``every`` > 1 only every ``every``-th month is kept (a smaller set).
    Each month's games form one event per pool. Returns (players, games) paths.
    """
    rng = np.random.default_rng(seed)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    strength = rng.normal(1900, 350, n_players).clip(1250, 2780)
    players = directory / "players.csv"
    with players.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["player_id", "name", "federation", "sex", "birth_year", "rating",
                    "rated_games", "peak_rating"])  # fmt: skip
        for i in range(n_players):
            rated = i % 8 != 7  # every eighth player starts unrated
            rating = int(strength[i]) if rated else ""
            birth = int(rng.integers(1960, 2008))
            w.writerow([f"P{i:03d}", f"Player {i:03d}", ("NOR", "IND", "USA", "FRA")[i % 4],
                        "M" if i % 3 else "F", birth, rating,
                        int(rng.integers(0, 200)) if rated else "", rating])  # fmt: skip
    games = directory / "games.csv"
    with games.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["game_id", "date", "white_id", "black_id", "score", "pool", "event_id"])
        for m, period in enumerate(sample_periods()):
            if m % skip_every == skip_every - 1 or m % every:
                continue
            year, month = divmod(period, 100)
            for pool, count in (("standard", games_per_month), ("rapid", games_per_month // 2)):
                for g in range(count):
                    a, b = rng.choice(n_players, 2, replace=False)
                    p_white = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
                    u = rng.random()
                    score = 1.0 if u < p_white - 0.15 else (0.0 if u > p_white + 0.15 else 0.5)
                    day = 1 + (g % 27)
                    w.writerow([f"{pool[0]}{period}-{g}", f"{year:04d}-{month:02d}-{day:02d}",
                                f"P{a:03d}", f"P{b:03d}", score, pool, f"{pool}-{period}"])  # fmt: skip
    return players, games
