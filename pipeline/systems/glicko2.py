"""Glicko-2 (Glickman, "Example of the Glicko-2 system", volatility step of 22 Feb 2012).

State per player: rating, RD, volatility σ, known. The volatility is found by
the Illinois iteration inside the kernel, per player in parallel, capped at
``max_iterations``; players for whom it did not converge are listed in
``report.extra["volatility_not_converged"]`` and logged. Formulas, parameters
and decisions: docs/glicko.md.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.glicko import glicko2_period
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import PeriodGames, Report, State
from arpad.pipeline.systems.glicko import GlickoFamily

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Glicko2Rules:
    name: str = "Glicko-2 (2012)"
    tau: float = 0.5  # system constant; Glickman: 0.3–1.2
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    rd_max: float = 350.0  # φ never grows above rd_max/173.7178
    rd_min: float = 0.0  # no floor unless set (Glickman gives none for Glicko-2)
    epsilon: float = 1e-6  # convergence tolerance of the volatility iteration
    max_iterations: int = 100  # cap of the Illinois iteration (and of the bracketing search)
    white_advantage: float = 0.0  # rating points added to White's side of E
    scale: float = 173.7178  # Glicko-2 scale: μ = (r − 1500)/scale

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "tau": (0, 10),
        "initial_rating": (-10_000, 10_000),
        "initial_rd": (1, 1000),
        "initial_volatility": (1e-6, 10),
        "rd_max": (1, 1000),
        "rd_min": (0, 1000),
        "epsilon": (1e-15, 1),
        "max_iterations": (1, 1_000_000),
        "white_advantage": (-1000, 1000),
        "scale": (1, 10_000),
    }

    def __post_init__(self):
        if self.rd_min > self.rd_max:
            # a floor above the ceiling: RD 400 after a game and 350 after a month without
            raise ValueError(
                f"rd_min {self.rd_min:g} is above rd_max {self.rd_max:g}: RD would be "
                "raised to the floor after a game and cut to the ceiling without one"
            )


class Glicko2System(GlickoFamily):
    name = "glicko2"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = Glicko2Rules
    shardable = True  # per-player update from the pre-period state (pipeline/sharding.py)
    shard_index_extras = ("volatility_not_converged",)
    # lists publish the RD and the volatility (docs/glicko.md "Outputs")
    list_columns = (("rd", "rd_after", 1), ("volatility", "volatility_after", 6))

    def expected_scores(self, white, black, white_rd, black_rd, rules):
        """Glickman's expected outcome of a game between two rated players on the rules'
        scale s: 1/(1 + exp(−g(√(φ_W² + φ_B²))(μ_W − μ_B))) with μ = r/s, φ = RD/s,
        White's advantage added to White. At the default s = 173.7178 (400/ln 10) it is
        Glicko-1's 1/(1 + 10^(−g(√(RD_W² + RD_B²))(W − B)/400)): that formula on ratings
        and RDs times 173.7178/s, the same value for any s."""
        from arpad.kernels.glicko import glicko1_expected_score

        f = Glicko2Rules.scale / rules.scale  # 1.0 (exactly) at the default scale
        rd_w = np.nan_to_num(np.asarray(white_rd, dtype=np.float64), nan=0.0)
        rd_b = np.nan_to_num(np.asarray(black_rd, dtype=np.float64), nan=0.0)
        return glicko1_expected_score(
            (white + rules.white_advantage) * f, rd_w * f, black * f, rd_b * f
        )

    def step(self, state: State, games: PeriodGames, rules: Glicko2Rules) -> tuple[State, Report]:
        s = state.players
        res = glicko2_period(
            s["rating"],
            s["rd"],
            s["volatility"],
            s["known"],
            games.offsets,
            games.opponent,
            games.own_score,
            games.is_white,
            elapsed=games.elapsed,
            tau=rules.tau,
            epsilon=rules.epsilon,
            max_iterations=rules.max_iterations,
            rd_max=rules.rd_max,
            rd_min=rules.rd_min,
            white_advantage=rules.white_advantage,
            scale=rules.scale,
        )
        report, known = self.report(state, res, volatility_after=res.volatility_after)
        failed = np.flatnonzero(~res.converged)
        report.extra["volatility_not_converged"] = failed
        if failed.size:
            log.warning(
                "glicko2 period %s: volatility iteration did not converge for %d players "
                "(max_iterations=%d); their last iterate is kept",
                games.period,
                failed.size,
                rules.max_iterations,
            )
        new_state = State(
            players={
                "rating": res.rating_after,
                "rd": res.rd_after,
                "volatility": res.volatility_after,
                "known": known,
            }
        )
        return new_state, report


register(Glicko2System())
