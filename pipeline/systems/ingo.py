"""Ingo (Hösslinger, West Germany 1948–1992; docs/legacy-systems.md) — lower is better.

Per event: performance P = N − (100·S/n − 50), N the opponents' average Ingo.
``ingo_update="performance"`` (default, docs/legacy-systems.md): new = P;
``ingo_update="dsb"``: new = 0.75 × old + 0.25 × P. Starting numbers come from
the players file's ``rating`` read as Elo: Ingo = (2840 − Elo) / 8.
Rated per event when the games carry an event id, else per period.
An event id's games in consecutive months are one event (``event_months``; the
state's ``events`` table, docs/legacy-systems.md "Events over several months").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.harkness_ingo import METHOD_INGO_DSB, METHOD_INGO_PERFORMANCE
from arpad.pipeline.conversions import elo_to_ingo
from arpad.pipeline.event_ratings import empty_events, rate_events
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import PeriodGames, PlayerInfo, RatingSystem, State


@dataclass(frozen=True)
class IngoRules:
    ingo_update: str = "performance"  # "performance" (new = P) or "dsb" (0.75·old + 0.25·P)
    dsb_old_weight: float = 0.75
    expected_cap: float = 40.0  # DSB "40-Grad-Grenze" for the expected score
    round_result: bool = True  # each event's result rounded to an integer (109.09 → 109)
    initial_from_elo: bool = True  # players file `rating` is Elo: Ingo = (2840 − Elo)/8
    # an event id's games in up to this many consecutive months are one event, rated as a
    # whole with the ratings at its start (docs/legacy-systems.md "Events over several
    # months"); 1: each month's games of an event are an event of their own
    event_months: int = 6

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "dsb_old_weight": (0, 1),
        "expected_cap": (0, 1000),
        "event_months": (1, 120),
    }

    def __post_init__(self):
        if self.ingo_update not in ("performance", "dsb"):
            raise ValueError("ingo_update must be 'performance' or 'dsb'")


class IngoSystem(RatingSystem):
    name = "ingo"
    rules_type: ClassVar[type] = IngoRules
    uses_game_days = True  # the event ids' keys in every period: events over several months
    shardable = True  # a player's events read only the opponents' pre-period numbers
    lower_is_better = True
    needs_initial_ratings = True  # no initial_rating rule: starting numbers from the players
    needs_published_ratings = True  # an event needs rated opponents to rate anybody
    integer_ratings = True  # the DSB published whole Ingo numbers (``round_result``)
    seeds_from_observations = (
        True  # published ratings are the starting point (docs/observations.md)
    )

    def expected_scores(self, white, black, white_rd, black_rd, rules: IngoRules):
        """The DSB expected score: 0.5 + D/100 with D = Black's Ingo − White's (lower is
        better) capped at ± expected_cap."""
        d = np.clip(black - white, -rules.expected_cap, rules.expected_cap)
        return 0.5 + d / 100.0

    def initial_state(self, players: PlayerInfo, rules: IngoRules) -> State:
        rating = players.rating.astype(np.float64)
        if rules.initial_from_elo:
            rating = elo_to_ingo(rating)
        return State(players={"rating": rating.copy()}, tables={"events": empty_events()})

    def seed(self, state: State, players, ratings, rules: IngoRules) -> State:
        """Published ratings observed since the last walked period (Elo, converted as in
        ``initial_state``) replace the players' Ingo numbers (docs/observations.md)."""
        values = np.asarray(ratings, dtype=np.float64)
        if rules.initial_from_elo:
            values = elo_to_ingo(values)
        rating = state.players["rating"].copy()
        rating[players] = values
        return State(players={**state.players, "rating": rating}, tables=state.tables)

    def step(self, state: State, games: PeriodGames, rules: IngoRules):
        method = METHOD_INGO_DSB if rules.ingo_update == "dsb" else METHOD_INGO_PERFORMANCE
        return rate_events(
            state,
            games,
            method,
            1.0,
            old_weight=rules.dsb_old_weight,
            expected_cap=rules.expected_cap,
            event_months=rules.event_months,
            round_result=rules.round_result,
        )


register(IngoSystem())
