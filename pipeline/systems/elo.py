"""Generic Elo: the logistic curve, one K, an optional white advantage.

For data without official ratings (e.g. the Kaggle 2010 games): every player
starts at the players file's rating or at ``initial_rating``; ratings are kept
as floats (no rounding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.elo import elo_period, elo_period_games
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import (
    INACTIVE,
    NOT_REPORTED,
    RATED,
    PeriodGames,
    PlayerInfo,
    RatingSystem,
    Report,
    State,
)


@dataclass(frozen=True)
class EloRules:
    k: float = 20.0
    white_advantage: float = 0.0  # rating points added to White's side of the expectation
    initial_rating: float = 1500.0
    scale: float = 400.0  # logistic scale: 400 → a 400-point gap is 10:1 odds

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "k": (0, 1000),
        "white_advantage": (-1000, 1000),
        "initial_rating": (-10_000, 10_000),
        "scale": (1, 10_000),
    }


class EloSystem(RatingSystem):
    name = "elo"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = EloRules
    shardable = True  # per-player update from the pre-period ratings (pipeline/sharding.py)

    def expected_scores(self, white, black, white_rd, black_rd, rules: EloRules) -> np.ndarray:
        """The logistic curve on the rules' scale, White's advantage added to White."""
        d = white + rules.white_advantage - black
        return 1.0 / (1.0 + 10.0 ** (-d / rules.scale))

    def initial_state(self, players: PlayerInfo, rules: EloRules) -> State:
        given = ~np.isnan(players.rating)
        return State(
            players={
                "rating": np.where(given, players.rating, rules.initial_rating),
                "games_total": np.zeros(players.n, dtype=np.int64),
                "known": given,
            }
        )

    def step(self, state: State, games: PeriodGames, rules: EloRules) -> tuple[State, Report]:
        s = state.players
        # The games in input order, no grouping (the same sums to the bit); the grouping
        # and a per-game pow when the ratings' spread is too wide for powers.
        res = elo_period_games(
            s["rating"], games.white, games.black, games.score,
            rules.k, rules.white_advantage, rules.scale,
        )  # fmt: skip
        if res is None:
            res = elo_period(
                s["rating"],
                games.offsets,
                games.opponent,
                games.own_score,
                games.is_white,
                rules.k,
                rules.white_advantage,
                rules.scale,
            )
        played = res.games > 0
        known = s["known"] | played
        status = np.where(known, INACTIVE, NOT_REPORTED).astype(np.int8)
        status[played] = RATED
        report = Report(
            columns={
                "rating_before": s["rating"],
                "rating_after": res.rating_after,
                "games": res.games,
                "score": res.score,
                "expected": res.expected,
                "k": np.where(played, rules.k, np.nan),
                "change": res.rating_after - s["rating"],
            },
            status=status,
        )
        new_state = State(
            players={
                "rating": res.rating_after,
                "games_total": s["games_total"] + res.games,
                "known": known,
            }
        )
        return new_state, report


register(EloSystem())
