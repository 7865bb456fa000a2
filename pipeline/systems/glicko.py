"""Glicko-1 (Glickman 1995, "The Glicko system"): a rating and a rating deviation (RD).

The state is (rating, RD, known) per player; the players file may give
``rating`` and ``rd`` (the state at the end of the period before the first
walked one). Every known player's RD grows by c²·t at the start of each walked
period (t = periods since the previous walked period), whether or not they play.
Formulas, parameters and decisions: docs/glicko.md.

``GlickoFamily`` holds what Glicko-1 and Glicko-2 share (initial state, report
layout); the modules differ only in the kernel they call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.glicko import glicko1_period
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
class GlickoRules:
    name: str = "Glicko-1 (1995)"
    c: float = 63.2  # RD growth per period: RD 50 → 350 after 30 periods (Glickman's example)
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    rd_max: float = 350.0  # RD never grows above this (Step 1)
    rd_min: float = 30.0  # RD never falls below this after an update ("about 30", Glickman)
    white_advantage: float = 0.0  # rating points added to White's side of E

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "c": (0, 1000),
        "initial_rating": (-10_000, 10_000),
        "initial_rd": (1, 1000),
        "rd_max": (1, 1000),
        "rd_min": (0, 1000),
        "white_advantage": (-1000, 1000),
    }

    def __post_init__(self):
        if self.rd_min > self.rd_max:
            # a floor above the ceiling: RD 400 after a game and 350 after a month without
            raise ValueError(
                f"rd_min {self.rd_min:g} is above rd_max {self.rd_max:g}: RD would be "
                "raised to the floor after a game and cut to the ceiling without one"
            )


class GlickoFamily(RatingSystem):
    """Shared initial state and report of the Glicko systems."""

    expected_uses_rd = True
    ages_by_elapsed = True  # RD grows by the months since (engine ``_walked_from``)

    def initial_state(self, players: PlayerInfo, rules) -> State:
        known = ~np.isnan(players.rating) | ~np.isnan(players.rd)
        state = {
            "rating": np.where(np.isnan(players.rating), rules.initial_rating, players.rating),
            "rd": np.where(np.isnan(players.rd), rules.initial_rd, players.rd),
            "known": known,
        }
        if hasattr(rules, "initial_volatility"):
            vol = players.volatility
            state["volatility"] = np.where(np.isnan(vol), rules.initial_volatility, vol)
        return State(players={k: np.asarray(v) for k, v in state.items()})

    @staticmethod
    def report(state: State, res, volatility_after=None) -> tuple[Report, np.ndarray]:
        """Report columns shared by Glicko-1 and Glicko-2; returns (report, known after)."""
        s = state.players
        played = res.games > 0
        known = s["known"] | played
        status = np.where(known, INACTIVE, NOT_REPORTED).astype(np.int8)
        status[played] = RATED
        nan = np.full(played.shape, np.nan)
        columns = {
            "rating_before": s["rating"],
            "rating_after": res.rating_after,
            "games": res.games,
            "score": res.score,
            "expected": np.where(played, res.expected, np.nan),
            "change": res.rating_after - s["rating"],
            "rd_before": s["rd"],
            "rd_after": res.rd_after,
            "volatility_before": s.get("volatility", nan),
            "volatility_after": nan if volatility_after is None else volatility_after,
        }
        return Report(columns=columns, status=status), known


class GlickoSystem(GlickoFamily):
    name = "glicko"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = GlickoRules
    shardable = True  # per-player update from the pre-period state (pipeline/sharding.py)
    list_columns = (("rd", "rd_after", 1),)  # lists publish the RD (docs/glicko.md)

    def expected_scores(self, white, black, white_rd, black_rd, rules):
        """Glickman's expected outcome of a game between two rated players:
        1/(1 + 10^(−g(√(RD_W² + RD_B²))(W − B)/400)), White's advantage added to White."""
        from arpad.kernels.glicko import glicko1_expected_score

        rd_w = np.nan_to_num(np.asarray(white_rd, dtype=np.float64), nan=0.0)
        rd_b = np.nan_to_num(np.asarray(black_rd, dtype=np.float64), nan=0.0)
        return glicko1_expected_score(white + rules.white_advantage, rd_w, black, rd_b)

    def step(self, state: State, games: PeriodGames, rules: GlickoRules) -> tuple[State, Report]:
        s = state.players
        res = glicko1_period(
            s["rating"],
            s["rd"],
            s["known"],
            games.offsets,
            games.opponent,
            games.own_score,
            games.is_white,
            elapsed=games.elapsed,
            c=rules.c,
            rd_max=rules.rd_max,
            rd_min=rules.rd_min,
            white_advantage=rules.white_advantage,
        )
        report, known = self.report(state, res)
        new_state = State(players={"rating": res.rating_after, "rd": res.rd_after, "known": known})
        return new_state, report


register(GlickoSystem())
