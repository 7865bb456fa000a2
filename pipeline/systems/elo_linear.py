"""Elo's linear approximation (Elo 1978:28–29; docs/legacy-systems.md), ``--system elo-linear``:
R' = R + (K/2)·[W − L + ½·ΣD_i / C], D_i = opponent − player, per period.

Like the generic Elo system, every player starts at the players file's rating
or at ``initial_rating``; ratings are kept as floats unless ``round_result``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.elo_linear import elo_linear_period
from arpad.kernels.rounding import round_half_away_array
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
class EloLinearRules:
    k: float = 32.0  # Elo's K (32 in the USCF correspondence use; 10 in the Portisch example)
    c: float = 200.0  # class interval C
    initial_rating: float = 1500.0
    round_result: bool = False  # round each period's new rating (half away from zero)

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "k": (0, 1000),
        "c": (1, 10_000),
        "initial_rating": (-10_000, 10_000),
    }


class EloLinearSystem(RatingSystem):
    name = "elo-linear"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = EloLinearRules
    shardable = True  # per-player update from the pre-period ratings (pipeline/sharding.py)
    performance_method = "linear"  # Elo's "algorithm of 400", the linear method's own estimate

    def expected_scores(self, white, black, white_rd, black_rd, rules: EloLinearRules):
        """Elo's linear approximation: 0.5 + D/(4C), within [0, 1]."""
        return np.clip(0.5 + (white - black) / (4.0 * rules.c), 0.0, 1.0)

    def initial_state(self, players: PlayerInfo, rules: EloLinearRules) -> State:
        given = ~np.isnan(players.rating)
        return State(
            players={
                "rating": np.where(given, players.rating, rules.initial_rating),
                "known": given,
            }
        )

    def step(self, state: State, games: PeriodGames, rules: EloLinearRules):
        s = state.players
        res = elo_linear_period(s["rating"], *games.opponents(), rules.k, rules.c)
        after = res.rating_after
        if rules.round_result:
            after = round_half_away_array(after)
        played = res.games > 0
        known = s["known"] | played
        status = np.where(known, INACTIVE, NOT_REPORTED).astype(np.int8)
        status[played] = RATED
        report = Report(
            columns={
                "rating_before": s["rating"],
                "rating_after": after,
                "games": res.games,
                "score": res.score,
                "k": np.where(played, rules.k, np.nan),
                "change": after - s["rating"],
                "performance": res.linear_performance,
            },
            status=status,
        )
        return State(players={"rating": after, "known": known}), report


register(EloLinearSystem())
