"""US Chess (USCF) regular ratings, rated per event in the five-step order.

An event is a period's games with one ``event_id``; games without one form a
single event of the period (rated before the named events). A player's events
within one period are rated one after another in the order of their event ids
(as text); events that share no player are rated together in one kernel call
("layers"), which gives the same result as rating them one by one.

Formulas, parameters, sources and decisions: docs/uscf.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.csr import group_by_player
from arpad.kernels.uscf import (
    N_STAR_2004,
    N_STAR_2015,
    effective_games,
    event_layers,
    uscf_event_layer,
    uscf_floor,
)
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
class UscfRules:
    """One version of the US Chess regular rating rules (docs/uscf.md)."""

    name: str = "USCF 2017"
    effective: str = "2017-05-01"  # B raised from 12 to 14 for events ending on/after 1 May 2017
    n_star_formula: str = "2015"  # "2015" (2015+ documents) or "2004"
    k_numerator: float = 800.0  # K = 800/(N' + m)
    bonus_b: float = 14.0  # bonus threshold B·√max(m, 4); 0 gives a bonus whenever K(S−E) > 0
    bonus: bool = True
    bonus_min_games: int = 3  # no bonus in events of fewer games
    bonus_max_meetings: int = 2  # no bonus when any opponent is met more often
    bonus_min_m: int = 4  # 3-round events count as 4 in the threshold
    special_max_games: int = 8  # special formula while N ≤ 8 (and after all wins / all losses)
    special_max: float | None = None  # cap of unrated players' special ratings (S1: 2700)
    established_games: int = 25  # established when based on more than 25 games
    initial_rating: float = 1300.0  # step 1 for unrated adults / unknown age
    age_based_initial: bool = True  # step 1: 50 × age for ages 2–26 when the birth year is known
    first_estimate_prior_games: float = 1.0  # weight of R0 in the step 3 estimate (docs/uscf.md)
    special_tolerance: float = 1e-7
    white_advantage: float = 0.0
    floors: bool = True
    floor_base: float = 100.0
    floor_cap: float = 150.0
    floor_per_win: float = 4.0
    floor_per_draw: float = 2.0
    floor_per_event: float = 1.0  # per event with at least floor_event_min_games games
    floor_event_min_games: int = 3
    floor_gap: float = 200.0
    floor_level_min: float = 1200.0
    floor_level_max: float = 2100.0

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "k_numerator": (0, 10_000),
        "bonus_b": (0, 100),
        "bonus_min_games": (0, 1000),
        "bonus_max_meetings": (0, 1000),
        "bonus_min_m": (0, 1000),
        "special_max_games": (0, 1000),
        "special_max": (0, 4000),
        "established_games": (0, 1000),
        "initial_rating": (0, 4000),
        "first_estimate_prior_games": (0, 1000),
        "special_tolerance": (1e-12, 1),
        "white_advantage": (-1000, 1000),
        "floor_base": (0, 4000),
        "floor_cap": (0, 4000),
        "floor_per_win": (0, 100),
        "floor_per_draw": (0, 100),
        "floor_per_event": (0, 100),
        "floor_event_min_games": (0, 1000),
        "floor_gap": (0, 4000),
        "floor_level_min": (0, 4000),
        "floor_level_max": (0, 4000),
    }

    def __post_init__(self):
        if self.n_star_formula not in ("2015", "2004"):
            raise ValueError("n_star_formula must be '2015' or '2004'")


USCF_2004 = UscfRules(name="USCF 2004", effective="2004-01-01", n_star_formula="2004", bonus_b=10.0)
USCF_2017 = UscfRules()

# Dated versions, oldest first (see docs/uscf.md for what is and is not dated).
USCF_VERSIONS: tuple[UscfRules, ...] = (USCF_2004, USCF_2017)


def rules_in_force(period: int, versions: tuple[UscfRules, ...] = USCF_VERSIONS) -> UscfRules:
    """The version in force for a calendar period; the latest one for abstract periods."""
    return version_for_period(versions, period)


class UscfSystem(RatingSystem):
    name = "uscf"
    rules_type: ClassVar[type] = UscfRules
    relative_cost: ClassVar[float] = 2.0  # two passes per event
    integer_ratings = True  # stored as floats, published rounded (docs/uscf.md)

    def rule_versions(self, pool: str = "standard") -> tuple[UscfRules, ...]:
        """2004 and 2017 rules (``--rules 2010-06`` or ``--rules 2004``; docs/uscf.md)."""
        return USCF_VERSIONS

    def initial_state(self, players: PlayerInfo, rules: UscfRules) -> State:
        rated = ~np.isnan(players.rating)
        # Unknown game counts of rated players are taken as established (docs/uscf.md).
        n_games = np.where(
            players.rated_games >= 0, players.rated_games, rules.established_games + 1
        )
        n_games = np.where(rated, n_games, 0).astype(np.int64)
        peak = np.fmax(players.peak_rating, players.rating)
        return State(
            players={
                "rating": np.where(rated, players.rating, np.nan),
                "n_games": n_games,
                "all_wins": np.zeros(players.n, dtype=bool),
                "all_losses": np.zeros(players.n, dtype=bool),
                "wins_total": np.zeros(players.n, dtype=np.int64),
                "draws_total": np.zeros(players.n, dtype=np.int64),
                "events_3": np.zeros(players.n, dtype=np.int64),
                "peak": np.where(n_games > rules.established_games, peak, np.nan),
                "birth_year": players.birth_year.astype(np.int64),
            }
        )

    def step_one_rating(self, state: State, year: int | None, rules: UscfRules) -> np.ndarray:
        """Step 1: R0 of every player (pre-event rating, or the initial rating of unrated ones)."""
        s = state.players
        initial = np.full(s["rating"].shape, rules.initial_rating)
        if rules.age_based_initial and year is not None:
            known_age = s["birth_year"] > 0
            age = np.clip(year - s["birth_year"], 2, 26)
            initial = np.where(known_age, 50.0 * age, initial)
        return np.where(s["n_games"] > 0, s["rating"], initial)

    def step(self, state: State, games: PeriodGames, rules: UscfRules) -> tuple[State, Report]:
        s = {k: v.copy() for k, v in state.players.items()}
        n = games.n_players
        before = np.where(s["n_games"] > 0, s["rating"], np.nan)
        was_rated = s["n_games"] > 0
        total_games = np.zeros(n, dtype=np.int64)
        total_score = np.zeros(n)
        total_expected = np.zeros(n)
        last_k = np.full(n, np.nan)
        formula = N_STAR_2004 if rules.n_star_formula == "2004" else N_STAR_2015
        layers = event_layers(games.event, games.white, games.black)
        for layer in np.unique(layers):
            pick = layers == layer
            grouped = group_by_player(games.white[pick], games.black[pick], games.score[pick], n)
            rating0 = self.step_one_rating(State(players=s), games.year, rules)
            n_eff = effective_games(rating0, s["n_games"], formula)
            res = uscf_event_layer(
                rating0,
                s["n_games"],
                n_eff,
                s["all_wins"],
                s["all_losses"],
                grouped.offsets,
                grouped.opponent,
                grouped.score,
                grouped.is_white,
                k_numerator=rules.k_numerator,
                bonus_b=rules.bonus_b if rules.bonus else np.inf,
                bonus_min_games=rules.bonus_min_games,
                bonus_max_meetings=rules.bonus_max_meetings,
                bonus_min_m=rules.bonus_min_m,
                special_max_games=rules.special_max_games,
                special_max=np.inf if rules.special_max is None else rules.special_max,
                first_estimate_prior_games=rules.first_estimate_prior_games,
                white_advantage=rules.white_advantage,
                tol=rules.special_tolerance,
            )
            played = res.games > 0
            m = res.games.astype(np.int64)
            final = res.final
            first_event = played & (s["n_games"] == 0)
            s["wins_total"] += np.where(played, res.wins, 0)
            s["draws_total"] += np.where(played, res.draws, 0)
            s["events_3"] += (m >= rules.floor_event_min_games).astype(np.int64)
            if rules.floors:
                established = s["n_games"] > rules.established_games
                floor = uscf_floor(
                    s["wins_total"],
                    s["draws_total"],
                    s["events_3"],
                    s["peak"],
                    established,
                    base=rules.floor_base,
                    cap=rules.floor_cap,
                    per_win=rules.floor_per_win,
                    per_draw=rules.floor_per_draw,
                    per_event=rules.floor_per_event,
                    gap=rules.floor_gap,
                    level_min=rules.floor_level_min,
                    level_max=rules.floor_level_max,
                )
                # A floor stops a fall; it never lifts a rating that was already below it.
                limit = np.where(first_event, floor, np.minimum(floor, rating0))
                final = np.where(played, np.maximum(final, limit), final)
            all_w = res.wins == res.games
            all_l = (res.wins == 0) & (res.draws == 0)
            s["all_wins"] = np.where(
                played, np.where(first_event, all_w, s["all_wins"] & all_w), s["all_wins"]
            )
            s["all_losses"] = np.where(
                played, np.where(first_event, all_l, s["all_losses"] & all_l), s["all_losses"]
            )
            s["n_games"] = s["n_games"] + m
            s["rating"] = np.where(played, final, s["rating"])
            established_now = s["n_games"] > rules.established_games
            s["peak"] = np.where(played & established_now, np.fmax(s["peak"], final), s["peak"])
            total_games += m
            total_score += np.where(played, res.score, 0.0)
            total_expected += np.where(played, res.expected, 0.0)
            last_k = np.where(played, res.k, last_k)

        played = total_games > 0
        rated_now = s["n_games"] > 0
        status = np.full(n, NOT_REPORTED, dtype=np.int8)
        status[rated_now] = INACTIVE
        status[played & (s["n_games"] > rules.established_games)] = RATED
        status[played & (s["n_games"] <= rules.established_games)] = PROVISIONAL
        status[played & ~was_rated] = NEW
        after = np.where(rated_now, s["rating"], np.nan)
        report = Report(
            columns={
                "rating_before": before,
                "rating_after": after,
                "games": total_games.astype(np.int32),
                "score": total_score,
                "expected": np.where(played, total_expected, np.nan),
                "k": last_k,
                "change": after - before,
            },
            status=status,
        )
        return State(players=s), report


def versions_table() -> list[dict]:
    return [dataclasses.asdict(v) for v in USCF_VERSIONS]


register(UscfSystem())
