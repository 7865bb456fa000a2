"""FIDE Elo, standard chess, as the FIDE Rating Regulations (B.02) say.

The rules are data: ``FideRules`` is a frozen dataclass, and ``FIDE_VERSIONS``
is the dated sequence of rule versions; a reconstruction takes the version in
force for each period (see docs/rules.md for sources and arpad's decisions).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kernels.fide import INITIAL_METHOD_2022, INITIAL_METHOD_2024, fide_initial_rating, fide_period
from kernels.rounding import round_half_away_array
from pipeline import periods
from pipeline.rules import dp_by_percent, pd_high_by_diff
from pipeline.systems import register
from pipeline.systems.base import (
    INACTIVE,
    NEW,
    NOT_REPORTED,
    RATED,
    UNRATED,
    PeriodGames,
    PlayerInfo,
    Report,
    State,
)


@dataclass(frozen=True)
class FideRules:
    """One version of the FIDE rating rules (fields cite B.02 clauses)."""

    name: str = "FIDE 2025-10"
    effective: str = "2025-10-01"  # first day the version applies (ISO date)
    # §8.3.3 K-factor
    k_new: int = 40  # fewer than new_player_games rated games
    new_player_games: int = 30
    k_junior: int = (
        40  # until the end of the year of the 18th birthday, while below junior_rating_below
    )
    junior_max_age: int = 18
    junior_rating_below: int = 2300  # 0 disables the junior rule
    k_mid: int = 20
    k_high: int = 10  # once the published rating has reached high_rating
    high_rating: int = 2400
    k_times_games_max: int = 700  # K × n ≤ 700; 0 disables
    # §8.3.1 400-point rule
    diff_cap: int = 400
    cap_exempt_from: int | None = 2650  # players rated ≥ this use the actual difference (2025-10)
    # §7 publication
    rating_floor: int = 1400  # below this a player is unrated
    # §8.2 initial ratings
    initial_method: str = "2024"  # "2024" (two hypothetical 1800 draws) or "2022"
    initial_min_games: int = 5
    initial_hypothetical_games: int = 2
    initial_hypothetical_rating: int = 1800
    initial_max: int = 2200  # 0 = no maximum
    initial_pool_months: int = 26
    initial_ignore_zero_first_event: bool = True

    def __post_init__(self):
        if self.initial_method not in ("2024", "2022"):
            raise ValueError("initial_method must be '2024' or '2022'")


FIDE_2024_03 = FideRules(name="FIDE 2024-03", effective="2024-03-01", cap_exempt_from=None)
FIDE_2025_10 = FideRules()

# Dated versions, oldest first. A period takes the last version whose
# effective date is on or before the period's first day.
FIDE_VERSIONS: tuple[FideRules, ...] = (FIDE_2024_03, FIDE_2025_10)


def rules_in_force(period: int, versions: tuple[FideRules, ...] = FIDE_VERSIONS) -> FideRules:
    """The version in force for a calendar period; the latest one for abstract periods."""
    day = periods.first_day(period)
    if day is None:
        return versions[-1]
    chosen = versions[0]
    for version in versions:
        if version.effective <= day.isoformat():
            chosen = version
    return chosen


def k_base(
    rules: FideRules,
    rating: np.ndarray,
    rated_games: np.ndarray,
    peak: np.ndarray,
    birth_year: np.ndarray,
    year: int | None,
) -> np.ndarray:
    """K before the 700 cap, from the state at the start of the period (§8.3.3, RULES.md §0)."""
    new = rated_games < rules.new_player_games
    junior = np.zeros(rating.shape, dtype=bool)
    if year is not None and rules.junior_rating_below > 0:
        junior = (birth_year > 0) & (year - birth_year <= rules.junior_max_age)
        junior &= rating < rules.junior_rating_below
    k = np.where(peak >= rules.high_rating, rules.k_high, rules.k_mid)
    k = np.where(junior, rules.k_junior, k)
    return np.where(new, rules.k_new, k).astype(np.int64)


class FideSystem:
    name = "fide"
    rules_type: ClassVar[type] = FideRules

    def rules_for(self, period: int, pool: str) -> FideRules:
        return rules_in_force(period)

    def initial_state(self, players: PlayerInfo, rules: FideRules) -> State:
        has_rating = ~np.isnan(players.rating)
        rating = np.where(has_rating, round_half_away_array(np.nan_to_num(players.rating)), 0)
        rating = rating.astype(np.int64)
        # Unknown game counts of rated players are taken as established (docs/rules.md).
        rated_games = np.where(
            players.rated_games >= 0, players.rated_games, rules.new_player_games
        )
        rated_games = np.where(has_rating, rated_games, 0).astype(np.int64)
        peak = np.fmax(players.peak_rating, players.rating)
        peak = np.where(np.isnan(peak), 0, round_half_away_array(np.nan_to_num(peak)))
        return State(
            players={
                "rating": rating,
                "is_rated": has_rating,
                "rated_games": rated_games,
                "peak": peak.astype(np.int64),
                "birth_year": players.birth_year.astype(np.int64),
                "pool_started": np.zeros(players.n, dtype=bool),
            },
            tables={"pool": _empty_pool()},
        )

    def step(self, state: State, games: PeriodGames, rules: FideRules) -> tuple[State, Report]:
        s = state.players
        rating, is_rated = s["rating"], s["is_rated"]
        kb = k_base(rules, rating, s["rated_games"], s["peak"], s["birth_year"], games.year)
        res = fide_period(
            rating,
            is_rated,
            kb,
            games.offsets,
            games.opponent,
            games.own_score,
            pd_high_by_diff(),
            cap=rules.diff_cap,
            exempt_from=rules.cap_exempt_from,
            k_times_games_max=rules.k_times_games_max,
        )
        n = games.n_players
        played = games.games_per_player() > 0

        status = np.full(n, NOT_REPORTED, dtype=np.int8)
        status[is_rated] = INACTIVE
        status[is_rated & played] = RATED
        fell = is_rated & (res.rating_after < rules.rating_floor)
        status[fell] = UNRATED

        new_rating = res.rating_after.copy()
        new_is_rated = is_rated & ~fell
        rated_games = s["rated_games"] + np.where(is_rated, res.games, 0)
        peak = np.where(new_is_rated, np.maximum(s["peak"], new_rating), s["peak"])

        # Unrated players: pool games vs rated opponents across periods (§8.2, §7.1.4).
        pool, pool_started, newly = self._pool_and_initial(state, games, res, is_rated, rules)
        status[(~is_rated) & played] = UNRATED
        initial = np.full(n, np.nan)
        if newly.size:
            idx, ru = newly[:, 0], newly[:, 1]
            new_rating[idx] = ru
            new_is_rated[idx] = True
            rated_games[idx] = newly[:, 2]
            peak[idx] = np.maximum(peak[idx], ru)
            status[idx] = NEW
            initial[idx] = ru

        rating_before = np.where(is_rated, rating, np.nan)
        rating_after = np.where(is_rated, res.rating_after, initial)
        unrated_played = ~is_rated
        report = Report(
            columns={
                "rating_before": rating_before,
                "rating_after": rating_after,
                "games": np.where(is_rated, res.games, res.unrated_games),
                "score": np.where(is_rated, res.score2, res.unrated_score2) / 2.0,
                "expected": np.where(is_rated & (res.games > 0), res.expected100 / 100.0, np.nan),
                "k": np.where(is_rated & (res.games > 0), res.k, np.nan),
                "change": np.where(is_rated, res.change, np.nan),
                "performance": np.where(unrated_played, np.nan, np.nan),
            },
            status=status,
        )
        new_state = State(
            players={
                "rating": np.where(new_is_rated, new_rating, 0).astype(np.int64),
                "is_rated": new_is_rated,
                "rated_games": rated_games.astype(np.int64),
                "peak": peak.astype(np.int64),
                "birth_year": s["birth_year"],
                "pool_started": pool_started,
            },
            tables={"pool": pool},
        )
        return new_state, report

    def _pool_and_initial(self, state, games, res, is_rated, rules):
        """Append this period's games of unrated players to their pools, drop entries
        older than the pooling window, and rate those with enough games.

        Returns (pool, pool_started, newly) where newly rows are (player, Ru, games).
        """
        month = periods.month_index(games.period)
        pool = state.tables.get("pool", _empty_pool())
        started = state.players["pool_started"].copy()
        who = np.flatnonzero((~is_rated) & (res.unrated_games > 0))
        if rules.initial_ignore_zero_first_event:
            # A zero score in the player's first event is disregarded (§8.2.1);
            # without event ids the first period with rated opposition is the first event.
            first = who[~started[who]]
            zero_first = first[res.unrated_score2[first] == 0]
            started[who] = True
            who = np.setdiff1d(who, zero_first, assume_unique=True)
        else:
            started[who] = True
        pool = {
            "player": np.concatenate([pool["player"], who.astype(np.int64)]),
            "month": np.concatenate([pool["month"], np.full(who.size, month, dtype=np.int64)]),
            "games": np.concatenate([pool["games"], res.unrated_games[who].astype(np.int64)]),
            "score2": np.concatenate([pool["score2"], res.unrated_score2[who]]),
            "opp_sum": np.concatenate([pool["opp_sum"], res.unrated_opp_sum[who]]),
        }
        keep = pool["month"] > month - rules.initial_pool_months
        keep &= ~is_rated[pool["player"]]  # players rated in the meantime leave the pool
        pool = {k: v[keep] for k, v in pool.items()}

        n = games.n_players
        g = np.bincount(pool["player"], weights=pool["games"], minlength=n).astype(np.int64)
        s2 = np.bincount(pool["player"], weights=pool["score2"], minlength=n).astype(np.int64)
        opp = np.bincount(pool["player"], weights=pool["opp_sum"], minlength=n).astype(np.int64)
        candidates = who[g[who] >= rules.initial_min_games]
        ru = fide_initial_rating(
            g[candidates],
            s2[candidates],
            opp[candidates],
            dp_by_percent(),
            method=INITIAL_METHOD_2024 if rules.initial_method == "2024" else INITIAL_METHOD_2022,
            hypothetical_games=rules.initial_hypothetical_games,
            hypothetical_rating=rules.initial_hypothetical_rating,
            max_rating=rules.initial_max,
        )
        ok = ru >= rules.rating_floor
        published = candidates[ok]
        newly = np.stack([published, ru[ok], g[published]], axis=1).astype(np.int64)
        drop = np.isin(pool["player"], published)
        pool = {k: v[~drop] for k, v in pool.items()}
        return pool, started, newly


def _empty_pool() -> dict[str, np.ndarray]:
    return {
        k: np.empty(0, dtype=np.int64) for k in ("player", "month", "games", "score2", "opp_sum")
    }


def versions_table() -> list[dict]:
    """The dated FIDE rule versions as plain dicts (for docs and ``arpad rules``)."""
    return [dataclasses.asdict(v) for v in FIDE_VERSIONS]


register(FideSystem())
