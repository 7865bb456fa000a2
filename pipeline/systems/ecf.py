"""Legacy ECF grading (Clarke system, 1958–2020) as docs/legacy-systems.md describes.

The engine walks months; ECF grades per cycle. The state keeps the current
cycle's games; a period that closes a cycle (``cycle_end_months``) publishes
the grades, every other period reports *interim* grades of the cycle so far
(status ``provisional``) and leaves the published grades unchanged. Formula:
``kernels.ecf``; decisions: docs/legacy-systems.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.csr import group_by_player
from arpad.kernels.ecf import ecf_cycle
from arpad.kernels.rounding import round_half_away_array
from arpad.pipeline import periods
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import (
    INACTIVE,
    NEW,
    NOT_REPORTED,
    PROVISIONAL,
    RATED,
    PeriodGames,
    PlayerInfo,
    RatingSystem,
    Report,
    State,
    version_for_period,
)


@dataclass(frozen=True)
class EcfRules:
    """One version of the legacy ECF grading rules (docs/legacy-systems.md)."""

    name: str = "ECF six-monthly (2011/12-2019/20)"
    effective: str = "2011-06-01"
    # Calendar months whose period closes a cycle: "5" = the annual season to
    # 31 May, "6,12" = six-monthly cut-offs 30 June and 31 December.
    cycle_end_months: str = "6,12"
    # Abstract periods (no calendar): a cycle closes when period % n == 0.
    abstract_cycle_periods: int = 6
    diff_cap: float = 40.0  # the 40-point rule
    win_points: float = 50.0  # opponent ± 50 for a win/loss
    min_games: int = 30  # the 30-game rule: pad with the previous grade
    junior_age: int = 18  # under this age at the cycle start: re-estimated each cycle
    default_grade: float = 100.0  # starting value of an estimate with no graded opponent
    round_published: bool = True  # published grades are whole numbers (half away from zero)
    damping: float = 0.5  # names the estimates' fixed point; no grade depends on it
    tol: float = 1e-3  # points; published grades are whole numbers
    max_iter: int = 10_000

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "abstract_cycle_periods": (0, 1200),
        "diff_cap": (0, 1000),
        "win_points": (0, 1000),
        "min_games": (0, 1000),
        "junior_age": (0, 100),
        "default_grade": (-100, 400),
        "damping": (0.01, 1),
        "tol": (1e-12, 100),
        "max_iter": (1, 10_000_000),
    }

    def end_months(self) -> tuple[int, ...]:
        return tuple(int(m) for m in self.cycle_end_months.split(",") if m.strip())

    def closes_cycle(self, period: int) -> bool:
        if periods.is_calendar(period):
            return period % 100 in self.end_months()
        return self.abstract_cycle_periods > 0 and period % self.abstract_cycle_periods == 0


ECF_ANNUAL = EcfRules(
    name="ECF annual (1958-2010/11)",
    effective="1958-01-01",
    cycle_end_months="5",
    abstract_cycle_periods=12,
)
ECF_SIX_MONTHLY = EcfRules()
ECF_VERSIONS: tuple[EcfRules, ...] = (ECF_ANNUAL, ECF_SIX_MONTHLY)


def rules_in_force(period: int) -> EcfRules:
    """Annual until the 2010/11 season (to May 2011), six-monthly from June 2011."""
    return version_for_period(ECF_VERSIONS, period)


def _empty_cycle() -> dict[str, np.ndarray]:
    # Entries of the cycle's games in pairs: row 2i is White of game i, row 2i+1 Black.
    return {
        "player": np.empty(0, dtype=np.int64),
        "score": np.empty(0, dtype=np.float64),
        "period": np.empty(0, dtype=np.int64),
    }


class EcfSystem(RatingSystem):
    name = "ecf"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = EcfRules
    needs_initial_ratings = True  # no initial_rating rule: grades come from the players file
    integer_ratings = True  # published grades are whole numbers (``round_published``)

    def expected_scores(self, white, black, white_rd, black_rd, rules: EcfRules):
        """The score at which a game is worth the player's own grade: a win is worth the
        opponent's grade + win_points, so E = 0.5 + D/(2·win_points), D within the
        40-point rule."""
        d = np.clip(white - black, -rules.diff_cap, rules.diff_cap)
        return 0.5 + d / (2.0 * rules.win_points)

    def rule_versions(self, pool: str = "standard") -> tuple[EcfRules, ...]:
        """Annual, then six-monthly grading (the same for every pool)."""
        return ECF_VERSIONS

    def current_rating(self, state: State) -> tuple[np.ndarray, None]:
        """The published grade (NaN = ungraded); no RD."""
        return np.asarray(state.players["grade"], dtype=np.float64).copy(), None

    def initial_state(self, players: PlayerInfo, rules: EcfRules) -> State:
        return State(
            players={
                "grade": players.grade.astype(np.float64).copy(),
                "birth_year": players.birth_year.astype(np.int64),
            },
            tables={"cycle": _empty_cycle(), "cycle_start": {"period": np.empty(0, np.int64)}},
        )

    def step(self, state: State, games: PeriodGames, rules: EcfRules) -> tuple[State, Report]:
        n = games.n_players
        grade = state.players["grade"]
        cycle = state.tables.get("cycle", _empty_cycle())
        start_period = state.tables.get("cycle_start", {}).get("period", np.empty(0, np.int64))
        if start_period.size == 0:
            start_period = np.array([games.period], dtype=np.int64)

        # Append this period's games to the cycle (White row, then Black row, per game).
        g = games.n_games
        add_player = np.empty(2 * g, dtype=np.int64)
        add_player[0::2] = games.white
        add_player[1::2] = games.black
        add_score = np.empty(2 * g, dtype=np.float64)
        add_score[0::2] = games.score
        add_score[1::2] = 1.0 - games.score
        cycle = {
            "player": np.concatenate([cycle["player"], add_player]),
            "score": np.concatenate([cycle["score"], add_score]),
            "period": np.concatenate([cycle["period"], np.full(2 * g, games.period, np.int64)]),
        }
        white, black = cycle["player"][0::2], cycle["player"][1::2]
        grouped = group_by_player(white, black, cycle["score"][0::2], n)
        played = np.diff(grouped.offsets) > 0

        junior = np.zeros(n, dtype=bool)
        start_year = periods.year_of(int(start_period[0]))
        birth = state.players["birth_year"]
        if start_year is not None:
            junior = (birth > 0) & (start_year - birth < rules.junior_age)
        estimated = played & (junior | np.isnan(grade))
        start = self._starting_estimates(grade, grouped, rules)
        res = ecf_cycle(
            grade,
            estimated,
            start,
            grouped.offsets,
            grouped.opponent,
            grouped.score,
            diff_cap=rules.diff_cap,
            win_points=rules.win_points,
            min_games=rules.min_games,
            damping=rules.damping,
            tol=rules.tol,
            max_iter=rules.max_iter,
        )
        published = res.published
        if rules.round_published:
            published = np.where(np.isnan(published), np.nan, round_half_away_array(published))

        closes = rules.closes_cycle(games.period)
        status = np.full(n, NOT_REPORTED, dtype=np.int8)
        has_grade = ~np.isnan(grade)
        if closes:
            status[has_grade] = INACTIVE
            status[played & has_grade] = RATED
            status[played & ~has_grade] = NEW
            rating_after = np.where(played, published, grade)
        else:
            status[played] = PROVISIONAL
            rating_after = np.where(played, published, np.nan)
        report = Report(
            columns={
                "rating_before": grade,
                "rating_after": rating_after,
                "games": res.games,
                "score": res.score,
                "change": np.where(played & has_grade, rating_after - grade, np.nan),
                "performance": res.performance,
            },
            status=status,
            extra={
                "iterations": res.iterations,
                "converged": res.converged,
                "closes_cycle": closes,
            },
        )
        if closes:
            entry_player = np.repeat(np.arange(n), np.diff(grouped.offsets))
            report.extra["games"] = {
                "player": entry_player,
                "opponent": grouped.opponent.astype(np.int64),
                "game_period": cycle["period"][0::2][grouped.game],
                "score": grouped.score,
                "opponent_grade": res.opponent_grade,
                "points": res.points,
                "estimated": estimated[entry_player],
            }
            new_grade = np.where(played, published, grade)
            new_tables = {"cycle": _empty_cycle(), "cycle_start": {"period": np.empty(0, np.int64)}}
        else:
            new_grade = grade
            new_tables = {"cycle": cycle, "cycle_start": {"period": start_period}}
        new_state = State(
            players={"grade": new_grade, "birth_year": state.players["birth_year"]},
            tables=new_tables,
        )
        return new_state, report

    @staticmethod
    def _starting_estimates(grade, grouped, rules: EcfRules) -> np.ndarray:
        """The previous grade, else the mean grade of the graded opponents, else the default."""
        n = grade.shape[0]
        entry_player = np.repeat(np.arange(n), np.diff(grouped.offsets))
        opp = grade[grouped.opponent]
        known = ~np.isnan(opp)
        sums = np.bincount(entry_player[known], opp[known], minlength=n)
        counts = np.bincount(entry_player[known], minlength=n)
        mean_opp = np.where(counts > 0, sums / np.maximum(counts, 1), rules.default_grade)
        return np.where(np.isnan(grade), mean_opp, grade)


register(EcfSystem())
