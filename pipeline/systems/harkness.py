"""Harkness (USCF 1950–1960; docs/legacy-systems.md): after each event
new = average opponent rating + 10 × (percentage score − 50).

Rated per event when the games carry an event id, else per period
(``pipeline.event_ratings``); docs/legacy-systems.md.
An event id's games in consecutive months are one event (``event_months``; the
state's ``events`` table, docs/legacy-systems.md "Events over several months").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.harkness_ingo import METHOD_HARKNESS
from arpad.pipeline.event_ratings import empty_events, rate_events
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import PeriodGames, PlayerInfo, RatingSystem, State


@dataclass(frozen=True)
class HarknessRules:
    points_per_percent: float = 10.0  # rating points per percentage point above/below 50 %
    round_result: bool = True  # each event's result rounded to an integer (1577.27 → 1577)
    # an event id's games in up to this many consecutive months are one event, rated as a
    # whole with the ratings at its start (docs/legacy-systems.md "Events over several
    # months"); 1: each month's games of an event are an event of their own
    event_months: int = 6

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    # (points_per_percent from 1: the expected score divides by it)
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "points_per_percent": (1, 100),
        "event_months": (1, 120),
    }


class HarknessSystem(RatingSystem):
    name = "harkness"
    rules_type: ClassVar[type] = HarknessRules
    uses_game_days = True  # the event ids' keys in every period: events over several months
    shardable = True  # a player's events read only the opponents' pre-period ratings
    needs_initial_ratings = True  # no initial_rating rule: starting ratings from the players
    needs_published_ratings = True  # an event needs rated opponents to rate anybody
    integer_ratings = True  # Harkness published whole numbers (``round_result``)
    seeds_from_observations = (
        True  # published ratings are the starting point (docs/observations.md)
    )

    def expected_scores(self, white, black, white_rd, black_rd, rules: HarknessRules):
        """The percentage Harkness's update treats as par: 50 % + D/points_per_percent."""
        return np.clip(0.5 + (white - black) / (100.0 * rules.points_per_percent), 0.0, 1.0)

    def initial_state(self, players: PlayerInfo, rules: HarknessRules) -> State:
        return State(
            players={"rating": players.rating.astype(np.float64).copy()},
            tables={"events": empty_events()},
        )

    def seed(self, state: State, players, ratings, rules: HarknessRules) -> State:
        """Published ratings observed since the last walked period replace the players'
        ratings (docs/observations.md)."""
        rating = state.players["rating"].copy()
        rating[players] = ratings
        return State(players={**state.players, "rating": rating}, tables=state.tables)

    def step(self, state: State, games: PeriodGames, rules: HarknessRules):
        return rate_events(
            state,
            games,
            METHOD_HARKNESS,
            rules.points_per_percent,
            event_months=rules.event_months,
            round_result=rules.round_result,
        )


register(HarknessSystem())
