"""FIDE Elo, standard chess, as the FIDE Rating Regulations (B.02) say.

The rules are data: ``FideRules`` is a frozen dataclass, and ``FIDE_VERSIONS``
is the dated sequence of rule versions; a reconstruction takes the version in
force for each period (see docs/rules.md for sources and arpad's decisions).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.fide import (
    INITIAL_METHOD_2022,
    INITIAL_METHOD_2024,
    fide_initial_rating,
    fide_period,
)
from arpad.kernels.rounding import round_half_away_array
from arpad.pipeline import periods
from arpad.pipeline.rules import dp_by_percent, pd_high_by_diff
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import (
    INACTIVE,
    NEW,
    NOT_REPORTED,
    RATED,
    UNRATED,
    PeriodGames,
    PlayerInfo,
    RatingSystem,
    Report,
    State,
    parse_rule_value,
    pick_version,
    rule_changes,
    version_for_period,
)


@dataclass(frozen=True)
class FideRules:
    """One version of the FIDE rating rules (fields cite B.02 clauses).

    Defaults are the rules from 1 Oct 2025; ``FIDE_VERSIONS`` holds the dated
    versions (sources and arpad's choices for UNVERIFIED details in
    docs/fide-history.md).
    """

    name: str = "FIDE 2025-10"
    effective: str = "2025-10-01"  # first day the version applies (ISO date)
    # §7 lists: 1 = monthly; 2 = two-monthly (2009-07 … 2012-06), a rating
    # period of two months that closes in even months (lists of Jan, Mar, …)
    list_months: int = 1
    # §8.3.3 K-factor
    k_new: int = 40  # fewer than new_player_games rated games
    new_player_games: int = 30
    k_junior: int = 40  # juniors (see junior_max_age) while below junior_rating_below
    junior_max_age: int = 18  # junior while year − birth year ≤ this
    junior_rating_below: int = 2300  # 0 disables the junior rule
    # 2014-07 to 2024-02: K 40 "until their 18th birthday": a player whose birth date is
    # known is junior while the period's first day is before it (else by birth year)
    junior_to_birthday: bool = False
    k_mid: int = 20
    k_high: int = 10  # once the published rating has reached high_rating
    high_rating: int = 2400
    k_times_games_max: int = 700  # K × n ≤ 700; 0 disables
    # §8.3.1 400-point rule
    diff_cap: int = 400
    cap_exempt_from: int | None = 2650  # players rated ≥ this use the actual difference (2025-10)
    cap_once_per_event: bool = False  # upgrade only for the greatest difference per event
    # §7 publication
    rating_floor: int = 1400  # below this a player is unrated
    # Inactive (flag i): no rated game in the last inactive_months months, i.e. the
    # list of month M flags a player whose last rated game was in month M − 12 or
    # before. 24 for the lists of the COVID suspension, 2020-11 … 2021-12
    # (docs/fide-history.md "Inactivity").
    inactive_months: int = 12
    # §8.2 initial ratings
    initial_method: str = "2024"  # "2024" (two hypothetical 1800 draws) or "2022"
    initial_per_half_point: float = 20.0  # "2022" method: points per half point above 50 %
    initial_min_games: int = 5
    initial_hypothetical_games: int = 2
    initial_hypothetical_rating: int = 1800
    initial_max: int = 2200  # 0 = no maximum
    initial_pool_months: int = 26
    initial_ignore_zero_first_event: bool = True
    # One-time compression of 1 March 2024 (docs/fide-history.md): applied once, at the
    # start of the first walked period on or after compression_date, when the
    # replay walked a period before it. None = no compression in this version.
    compression_date: str | None = "2024-03-01"
    compression_below: int = 2000
    compression_factor: float = 0.4  # R' = R + factor × (below − R), rounded half away
    # Rapid/blitz from 1 Dec 2024: a game with |D| ≥ unrated_diff_from is not
    # rated when either player is rated above unrated_diff_above (0 disables).
    unrated_diff_from: int = 0
    unrated_diff_above: int = 2600

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "list_months": (1, 12),
        "k_new": (0, 100),
        "new_player_games": (0, 1000),
        "k_junior": (0, 100),
        "junior_max_age": (0, 100),
        "junior_rating_below": (0, 3500),
        "k_mid": (0, 100),
        "k_high": (0, 100),
        "high_rating": (0, 3500),
        "k_times_games_max": (0, 100_000),
        "diff_cap": (0, 1000),
        "cap_exempt_from": (0, 3500),
        "rating_floor": (0, 3500),
        "inactive_months": (1, 120),
        "initial_per_half_point": (0, 100),
        "initial_min_games": (1, 1000),
        "initial_hypothetical_games": (0, 100),
        "initial_hypothetical_rating": (0, 3500),
        "initial_max": (0, 3500),
        "initial_pool_months": (1, 1200),
        "compression_below": (0, 3500),
        "compression_factor": (0, 1),
        "unrated_diff_from": (0, 3500),
        "unrated_diff_above": (0, 3500),
    }

    def __post_init__(self):
        if self.initial_method not in ("2024", "2022"):
            raise ValueError("initial_method must be '2024' or '2022'")
        if self.list_months not in (1, 2, 3, 4, 6, 12):
            raise ValueError("list_months must divide 12")


# -- dated versions (docs/fide-history.md) -------------------------------------------------------
# The versions before 2009-07 take what the history of rule changes confirms (sources quoted
# in docs/fide-history.md "Before 2009-07", tags as in docs/sources.md); every field it is
# silent on keeps the 2009-07 value (arpad's decision, listed there).
FIDE_2000_01 = FideRules(
    name="FIDE 2000-01",
    # "~2000 (GA 1999)" (S1): arpad dates it 2000-01-01 (UNVERIFIED day)
    effective="2000-01-01",
    list_months=3,  # ~2000 (S1): "four lists a year"
    k_new=25,  # ~2000 (S1): "K = 25 for new players"
    k_junior=25,
    junior_max_age=17,
    junior_rating_below=0,  # no junior K before 2014-07
    k_mid=15,  # 1 Jul 2009 (P + S1): "K stays 25/15/10", so 15 and 10 before
    k_times_games_max=0,  # as 2009-07 (arpad's choice)
    diff_cap=400,  # no source before 2006-04: the 2009-07 value (arpad's choice, UNVERIFIED)
    cap_exempt_from=None,
    # ~2000 (S1): "floor around 1800 (players 'below 1801' delisted)": 1801 is the lowest
    # rating kept, as 1200 (2009-07), 1000 and 1400 are the lowest ratings published
    rating_floor=1801,
    initial_method="2022",
    initial_per_half_point=12.5,  # half of K for new players (arpad's choice, as 2009-07)
    initial_min_games=9,  # ~2000 (S1): "9 games for first rating"
    initial_max=0,
    compression_date=None,
)
# "1 Apr 2006 – 30 Jun 2009: 350-point rule" (S1); lists still four a year (the 2-monthly
# lists start 1 Jul 2009, P); floor and K as 2000-01 (no source names a change between)
FIDE_2006_04 = dataclasses.replace(
    FIDE_2000_01, name="FIDE 2006-04", effective="2006-04-01", diff_cap=350
)
FIDE_2009_07 = FideRules(
    name="FIDE 2009-07",
    effective="2009-07-01",
    list_months=2,
    k_new=25,
    k_junior=25,
    junior_max_age=17,
    junior_rating_below=0,  # no junior K before 2014-07
    k_mid=15,
    k_times_games_max=0,  # K × n ≤ 700 from 2014-07 (arpad's choice, date UNVERIFIED)
    cap_exempt_from=None,
    rating_floor=1200,
    initial_method="2022",
    initial_per_half_point=12.5,  # half of K for new players (arpad's choice)
    initial_min_games=9,
    initial_max=0,
    compression_date=None,
)
FIDE_2011_07 = dataclasses.replace(
    FIDE_2009_07, name="FIDE 2011-07", effective="2011-07-01", k_new=30, initial_per_half_point=15.0
)
FIDE_2012_07 = dataclasses.replace(
    FIDE_2011_07, name="FIDE 2012-07", effective="2012-07-01", list_months=1, rating_floor=1000
)
FIDE_2014_07 = dataclasses.replace(
    FIDE_2012_07,
    name="FIDE 2014-07",
    effective="2014-07-01",
    k_new=40,
    k_junior=40,
    junior_rating_below=2300,
    junior_to_birthday=True,
    k_mid=20,
    k_times_games_max=700,
    initial_per_half_point=20.0,
    initial_min_games=5,
)
# FIDE Council, 2 November 2020: "from the November 2020 list UNTIL FURTHER NOTICE" a
# player is inactive after 24 months without a rated game, not 12. The end is not dated
# in the sources arpad has; arpad ends it with the 2022-01 version (UNVERIFIED,
# docs/fide-history.md "Inactivity").
FIDE_2020_11 = dataclasses.replace(
    FIDE_2014_07, name="FIDE 2020-11", effective="2020-11-01", inactive_months=24
)
FIDE_2022_01 = dataclasses.replace(
    FIDE_2014_07, name="FIDE 2022-01", effective="2022-01-01", cap_once_per_event=True
)
FIDE_2024_03 = FideRules(name="FIDE 2024-03", effective="2024-03-01", cap_exempt_from=None)
FIDE_2025_10 = FideRules()

# Dated versions, oldest first. A period takes the last version whose
# effective date is on or before the period's first day.
FIDE_VERSIONS: tuple[FideRules, ...] = (
    FIDE_2000_01,
    FIDE_2006_04,
    FIDE_2009_07,
    FIDE_2011_07,
    FIDE_2012_07,
    FIDE_2014_07,
    FIDE_2020_11,
    FIDE_2022_01,
    FIDE_2024_03,
    FIDE_2025_10,
)


def rapid_blitz(standard: FideRules, name: str, effective: str, **changes) -> FideRules:
    """The rapid/blitz version beside a standard one: K 20 for everybody, the plain
    400-point cap (no 2650 exemption, no once-per-event limit), monthly lists,
    no compression (FIDE's texts name the standard list only; docs/fide-history.md)."""
    return dataclasses.replace(
        standard,
        name=name,
        effective=effective,
        list_months=1,
        k_new=20,
        k_junior=20,
        k_mid=20,
        k_high=20,
        cap_exempt_from=None,
        cap_once_per_event=False,
        compression_date=None,
        **changes,
    )


RAPID_BLITZ_VERSIONS: tuple[FideRules, ...] = (
    rapid_blitz(FIDE_2012_07, "FIDE rapid/blitz 2012-07", "2012-07-01"),
    rapid_blitz(FIDE_2014_07, "FIDE rapid/blitz 2014-07", "2014-07-01"),
    rapid_blitz(FIDE_2020_11, "FIDE rapid/blitz 2020-11", "2020-11-01"),
    rapid_blitz(FIDE_2022_01, "FIDE rapid/blitz 2022-01", "2022-01-01"),
    rapid_blitz(FIDE_2024_03, "FIDE rapid/blitz 2024-03", "2024-03-01"),
    rapid_blitz(FIDE_2024_03, "FIDE rapid/blitz 2024-12", "2024-12-01", unrated_diff_from=600),
)


def versions_for(pool: str) -> tuple[FideRules, ...]:
    return RAPID_BLITZ_VERSIONS if pool in ("rapid", "blitz") else FIDE_VERSIONS


def version_at(day: str, versions: tuple[FideRules, ...] = FIDE_VERSIONS) -> FideRules:
    """The version in force on ``day`` (ISO date); the oldest one before the first."""
    return pick_version(versions, day)


def rules_in_force(period: int, versions: tuple[FideRules, ...] = FIDE_VERSIONS) -> FideRules:
    """The version in force for a calendar period; the latest one for abstract periods."""
    return version_for_period(versions, period)


def _compression_period(rules: FideRules) -> int | None:
    if not rules.compression_date:
        return None
    day = dt.date.fromisoformat(rules.compression_date)
    return periods.period_of_date(day)


def div_round_half_away_array(num: np.ndarray, den: int) -> np.ndarray:
    """Exact integer round_half_away(num / den), vectorised (den > 0)."""
    num = np.asarray(num, dtype=np.int64)
    return np.where(num >= 0, (2 * num + den) // (2 * den), -((-2 * num + den) // (2 * den)))


def k_base(
    rules: FideRules,
    rating: np.ndarray,
    rated_games: np.ndarray,
    peak: np.ndarray,
    birth_year: np.ndarray,
    year: int | None,
    birth_date: np.ndarray | None = None,
    first_day: int | None = None,
) -> np.ndarray:
    """K before the 700 cap, from the state at the start of the period (§8.3.3, docs/rules.md).
    ``birth_date`` (YYYYMMDD, -1 unknown) and ``first_day`` (the period's, YYYYMMDD): under
    ``junior_to_birthday`` a known birth date decides (junior before the 18th birthday)."""
    new = rated_games < rules.new_player_games
    junior = np.zeros(rating.shape, dtype=bool)
    if year is not None and rules.junior_rating_below > 0:
        junior = (birth_year > 0) & (year - birth_year <= rules.junior_max_age)
        if rules.junior_to_birthday and birth_date is not None and first_day is not None:
            dated = birth_date > 0
            junior = np.where(dated, first_day < birth_date + 180000, junior)
        junior &= rating < rules.junior_rating_below
    k = np.where(peak >= rules.high_rating, rules.k_high, rules.k_mid)
    k = np.where(junior, rules.k_junior, k)
    return np.where(new, rules.k_new, k).astype(np.int64)


PENDING = ("pending_close", "pending_games", "pending_score2", "pending_expected100", "pending_k")


def closing_month(period: int, list_months: int) -> int:
    """Month index of the last month of the rating period that holds ``period``."""
    idx = periods.month_index(period)
    return (idx // list_months) * list_months + list_months - 1


def compression_applies(rules: FideRules, previous: int | None, period: int) -> bool:
    """True when a replay that walked ``previous`` crosses the compression date at ``period``."""
    cp = _compression_period(rules)
    if cp is None or previous is None:
        return False
    if not (periods.is_calendar(previous) and periods.is_calendar(period)):
        return False
    return previous < cp <= period


# State key (transient: set by ``seed_observed``, read and dropped by the next ``step``):
# players whose rating was stated for a period on or after the compression date.
STATED_COMPRESSED = "stated_compressed"


def carried_rules(system, after: int, at: int, pool: str, name: str | None) -> FideRules:
    """The rules a replay uses at ``at`` (the compression's: ``carried_ratings``), from the
    stored rules name of ``after``'s rows: a dated run (its version is the one in force at
    ``after``) takes the version in force at ``at`` with the name's ``--set`` fields; a
    run on fixed rules (``--rules DATE`` or a rules file) those rules; no name or one that
    cannot be read, the version in force at ``at``."""
    from arpad.pipeline import engine

    version = system.rules_for(at, pool)
    if not name:
        return version
    head, notes = engine.split_rules_name(name, FideRules())
    if head != system.rules_for(after, pool).name:
        return engine.rules_from_name(system, name, pool) or version
    try:
        return dataclasses.replace(version, **rule_changes(version, notes, parse_rule_value))
    except (TypeError, ValueError):
        return version


def compression_increase(rules: FideRules, rating: np.ndarray) -> np.ndarray:
    """R' − R = factor × (below − R) for R < below, rounded half away from zero (docs/fide-history.md)."""
    rating = np.asarray(rating, dtype=np.int64)
    gap = np.maximum(rules.compression_below - rating, 0)
    return round_half_away_array(rules.compression_factor * gap).astype(np.int64)


def unrated_by_difference(
    rules: FideRules, white_rating, black_rating, white_rated, black_rated
) -> np.ndarray:
    """Rapid/blitz from 1 Dec 2024: games with |D| ≥ 600 are not rated when a player
    is rated above 2600 (docs/rules.md, S1). Returns a mask of such games."""
    if rules.unrated_diff_from <= 0:
        return np.zeros(np.shape(white_rating), dtype=bool)
    both = np.asarray(white_rated) & np.asarray(black_rated)
    diff = np.abs(np.asarray(white_rating) - np.asarray(black_rating))
    top = np.maximum(white_rating, black_rating) > rules.unrated_diff_above
    return both & (diff >= rules.unrated_diff_from) & top


class FideSystem(RatingSystem):
    name = "fide"
    rules_type: ClassVar[type] = FideRules
    # A player's update reads only his games and the pre-period state (pipeline/sharding.py);
    # the pool table's rows are in (month, player) order.
    shardable = True
    shard_table_order: ClassVar[dict[str, tuple[str, ...]]] = {"pool": ("month", "player")}
    performance_method = "fide"  # table 8.1.1 (docs/rules.md: "normal for FIDE")
    needs_initial_ratings = True  # newcomers are rated only against rated opponents (§8.2)
    needs_published_ratings = True  # so with no rated player nobody can ever be rated
    integer_ratings = True  # all arithmetic is in whole points (§8.3.4)
    seeds_from_observations = True  # a published FIDE rating is the rating (docs/observations.md)
    uses_game_days = True  # the first event is the one of the earliest game (§8.2.1)
    status_is_list_activity = True  # inactive: its rules' own inactive_months, dated
    held_games_repeated = True  # two-monthly lists: the closing row repeats the first month's

    def expected_scores(self, white, black, white_rd, black_rd, rules: FideRules):
        """White's expected score of the game (``arpad predict``): table 8.1.2 with the
        400-point rule, judged from the higher-rated player's side, so PD(L) = 1 − PD(H)
        whichever colour is listed first. Under the 2650 exemption (2025-10) a pairing
        with a player rated ≥ 2650 uses the actual difference for both sides; the cap
        the lower-rated opponent keeps is a rating-change rule (§8.3.1), not part of the
        forecast (docs/cli.md "arpad predict"). Ratings rounded half away from zero."""
        from arpad.kernels.expected import expected_score_fide_table
        from arpad.kernels.rounding import round_half_away_array

        w = round_half_away_array(np.asarray(white, dtype=np.float64)).astype(np.int64)
        b = round_half_away_array(np.asarray(black, dtype=np.float64)).astype(np.int64)
        high = expected_score_fide_table(
            np.maximum(w, b),
            np.minimum(w, b),
            pd_high_by_diff(),
            cap=rules.diff_cap,
            exempt_from=rules.cap_exempt_from,
        )
        high100 = np.rint(high * 100.0)  # PD(H) in hundredths, exact
        return np.where(w >= b, high100, 100.0 - high100) / 100.0

    def rule_versions(self, pool: str = "standard") -> tuple[FideRules, ...]:
        """Standard, or rapid/blitz, dated versions (docs/fide-history.md)."""
        return versions_for(pool)

    def rules_before_oldest(self, pool: str = "standard") -> str:
        """What the sources know of the rules before the oldest version (the note of a
        replay of earlier periods; docs/fide-history.md "Before 2009-07")."""
        if pool in ("rapid", "blitz"):
            return (
                "FIDE's first rapid and blitz lists are of 1 July 2012; there were no FIDE "
                "rapid or blitz ratings before (docs/fide-history.md)"
            )
        return (
            "FIDE adopted Elo's system in 1970 and published no list before; its first lists "
            f"(1970s) had a rating floor of 2200 (FIDE 2000-01: {FIDE_2000_01.rating_floor}) "
            "and fewer than 600 players; the list frequency, K, the difference cap and the "
            'floors of before 2000 are not in arpad\'s sources (docs/fide-history.md "Before 2009-07")'
        )

    def current_rating(self, state: State) -> tuple[np.ndarray, None]:
        """The published rating of rated players, NaN for unrated ones; no RD."""
        p = state.players
        rating = np.asarray(p["rating"], dtype=np.float64).copy()
        rating[~np.asarray(p["is_rated"], dtype=bool)] = np.nan
        return rating, None

    def initial_state(self, players: PlayerInfo, rules: FideRules) -> State:
        """The players file's ratings as the first list. A rating below the floor of
        ``rules`` (those of the first walked period) is no rating: that player is
        unrated, as one who fell below it (§7.2.1, docs/rules.md)."""
        rounded = round_half_away_array(np.nan_to_num(players.rating)).astype(np.int64)
        has_rating = ~np.isnan(players.rating) & (rounded >= rules.rating_floor)
        rating = np.where(has_rating, rounded, 0).astype(np.int64)
        # Unknown game counts of rated players are taken as established (docs/rules.md).
        rated_games = np.where(
            players.rated_games >= 0, players.rated_games, rules.new_player_games
        )
        rated_games = np.where(has_rating, rated_games, 0).astype(np.int64)
        peak = np.fmax(players.peak_rating, players.rating)
        peak = np.where(np.isnan(peak), 0, round_half_away_array(np.nan_to_num(peak)))
        state_players = {
            "rating": rating,
            "is_rated": has_rating,
            "rated_games": rated_games,
            "peak": peak.astype(np.int64),
            "birth_year": players.birth_year.astype(np.int64),
            "birth_date": (
                np.full(players.n, -1, dtype=np.int64)
                if players.birth_date is None
                else players.birth_date.astype(np.int64)
            ),
            "pool_started": np.zeros(players.n, dtype=bool),
            # Key of the event of the first game vs a rated opponent (``first_event_games``).
            "first_event": np.full(players.n, NO_EVENT, dtype=np.int64),
            # Month index of the last rated game, -1 = unknown (a rating from the players
            # file): taken as the month before the first walked period.
            "last_played": np.full(players.n, -1, dtype=np.int64),
            # The players file's rated_games of a player not rated yet, -1 when unknown
            # or once rated: his count when a published rating first rates him (``seed``).
            "first_games": np.where(has_rating, -1, players.rated_games).astype(np.int64),
        }
        # An open two-monthly rating period (games rated but not yet on a list).
        for name in PENDING:
            state_players[name] = np.zeros(players.n, dtype=np.int64)
        return State(players=state_players, tables={"pool": _empty_pool()})

    def seed(self, state: State, players, ratings, rules: FideRules) -> State:
        """Published ratings observed since the last walked period become the players'
        ratings (rounded half away from zero). A player not rated so far is rated from
        it with the players file's rated_games (a dated row's too: docs/observations.md),
        else with an unknown game count, taken as established as in ``initial_state`` (as
        is one who fell below the floor), and leaves the newcomers' pool; a rated player
        whose published rating differs takes it, and his open two-monthly rating period
        is dropped (the published list already holds it). A rating below the floor of ``rules`` is no rating: a player
        not rated stays so, a rated one becomes unrated (as one who fell below it).
        docs/observations.md."""
        s = state.players
        published = round_half_away_array(np.asarray(ratings, dtype=np.float64)).astype(np.int64)
        was_rated = s["is_rated"][players]
        below = published < rules.rating_floor
        if below.any():
            state = _unrate(state, players[below & was_rated])
            s = state.players
            players, published, was_rated = players[~below], published[~below], was_rated[~below]
        changed = ~was_rated | (s["rating"][players] != published)
        idx, published, was_rated = players[changed], published[changed], was_rated[changed]
        if idx.size == 0:
            return state
        out = dict(s)
        names = ("rating", "is_rated", "rated_games", "peak", "last_played", "first_games")
        for name in (*names, *PENDING):
            if name in out:
                out[name] = out[name].copy()
        out["rating"][idx] = published
        out["is_rated"][idx] = True
        first = out["first_games"][idx] if "first_games" in out else np.full(idx.size, -1)
        # (0 games counted: never rated, also from a checkpoint written without first_games)
        known = (first >= 0) & (out["rated_games"][idx] == 0)
        count = np.where(known, first, rules.new_player_games)
        out["rated_games"][idx] = np.where(was_rated, out["rated_games"][idx], count)
        if "first_games" in out:
            out["first_games"][idx] = -1
        out["peak"][idx] = np.maximum(out["peak"][idx], published)
        # -1: taken as the month before the period being rated (``step``).
        out["last_played"][idx] = np.where(was_rated, out["last_played"][idx], -1)
        for name in PENDING:
            if name in out:
                out[name][idx] = 0
        return State(players=out, tables=state.tables)

    def seed_observed(self, state: State, players, ratings, observed, rules: FideRules) -> State:
        """``seed``, and the players whose rating was stated for a period on or after the
        compression date of ``rules`` marked (``STATED_COMPRESSED``, until the period's
        ``step``): FIDE's lists from March 2024 on are compressed, so the step does not
        compress such a rating again (officer, round 13). A rating stated before the
        date is compressed with the store's own (docs/fide-history.md)."""
        state = self.seed(state, players, ratings, rules)
        cp = _compression_period(rules)
        if cp is None:
            return state
        after = np.asarray(observed, dtype=np.int64) >= cp
        if not after.any():
            return state
        stated = np.zeros(state.players["rating"].shape[0], dtype=bool)
        stated[np.asarray(players)[after]] = True
        return State(players={**state.players, STATED_COMPRESSED: stated}, tables=state.tables)

    def carried_ratings(
        self, ratings, after: int, at: int, pool: str = "standard", rules_name=None
    ):
        """The ratings of period ``after`` at the start of ``at``: compressed when the
        replay's compression (``compression_applies``, the rules of ``at``:
        ``carried_rules``) falls between them, as ``step`` compresses them; NaN stays NaN."""
        if not (periods.is_calendar(after) and periods.is_calendar(at)) or at <= after:
            return ratings
        rules = carried_rules(self, after, at, pool, rules_name() if rules_name else None)
        if not compression_applies(rules, after, at):
            return ratings
        values = np.asarray(ratings, dtype=np.float64)
        whole = np.isfinite(values)
        out = values.copy()
        rounded = round_half_away_array(values[whole]).astype(np.int64)
        out[whole] = rounded + compression_increase(rules, rounded)
        return out

    def list_periods(self, rated: list[int]) -> list[int]:
        """FIDE's two-monthly lists (the rules of 2009-07 to 2012-06) were published after
        every second month only: the first month of such a rating period had no list of
        its own (its row is the month's games, rated on the closing month's list;
        docs/fide-history.md)."""

        def closes(p: int) -> bool:
            if not periods.is_calendar(p):
                return True
            months = rules_in_force(p).list_months
            return months <= 1 or closing_month(p, months) == periods.month_index(p)

        return [p for p in rated if closes(p)]

    def closing_periods(self, last: int, rules: FideRules) -> list[int]:
        """Under two-monthly lists, the closing month of ``last``'s rating period when
        ``last`` is its first month: the run walks it (without games) so that the change
        of ``last``'s games is published, not held for ever (docs/fide-history.md)."""
        if rules.list_months <= 1 or not periods.is_calendar(last):
            return []
        close = closing_month(last, rules.list_months)
        if close == periods.month_index(last):
            return []
        period = (close // 12) * 100 + close % 12 + 1
        return [period] if periods.is_valid(period) else []

    def closing_periods_within(self, stored: list[int], rules_for) -> list[int]:
        """Under lists of several months, the closing month of every stored period's
        rating period when it has no games (``closing_periods`` of each): the run walks
        it, so each list is published in its own month from its own games — January
        2011's games on the list of 1 March 2011 (period 201102), not as an adjustment
        in 201103 (docs/fide-history.md "Two-monthly lists"). Monthly rules add nothing."""
        have = set(stored)
        calendar = (p for p in stored if periods.is_calendar(p))
        ends = {e for p in calendar for e in self.closing_periods(p, rules_for(p))}
        return sorted(ends - have)

    def step(self, state: State, games: PeriodGames, rules: FideRules) -> tuple[State, Report]:
        s = state.players
        n = games.n_players
        rating_start, is_rated = s["rating"], s["is_rated"]
        rating = rating_start.copy()
        rated_games = s["rated_games"].copy()
        pending = {k: s[k].copy() if k in s else np.zeros(n, np.int64) for k in PENDING}
        adjustment = np.zeros(n, dtype=np.int64)
        adjusted = np.zeros(n, dtype=bool)

        # (1) A two-monthly rating period whose closing month had no games is
        # published before this period, as an adjustment (docs/fide-history.md).
        close = closing_month(games.period, rules.list_months)
        stale = is_rated & (pending["pending_games"] > 0) & (pending["pending_close"] != close)
        if stale.any():
            late = _pending_change(pending, rules.k_times_games_max)
            rating[stale] += late[stale]
            rated_games[stale] += pending["pending_games"][stale]
            adjustment[stale] += late[stale]
            adjusted |= stale
            for name in PENDING:
                pending[name][stale] = 0

        # (2) The one-time compression of 1 March 2024, its own event in the history; not
        # of a rating stated for a period on or after it, already compressed (``seed_observed``).
        if compression_applies(rules, games.previous_period, games.period):
            compressed = is_rated & ~s.get(STATED_COMPRESSED, np.zeros(n, dtype=bool))
            increase = np.where(compressed, compression_increase(rules, rating), 0)
            rating += increase
            adjustment += increase
            adjusted |= compressed
        peak = np.where(is_rated, np.maximum(s["peak"], rating), s["peak"])

        # (3) Rapid/blitz: games the 600-point rule leaves unrated.
        games = self._drop_unrated_by_difference(games, rating, is_rated, rules)

        # (4) The period's games.
        two_monthly = rules.list_months > 1
        first_day = games.period * 100 + 1 if games.year is not None else None
        kb = k_base(
            rules, rating, rated_games, peak, s["birth_year"], games.year,
            s.get("birth_date"), first_day,
        )  # fmt: skip
        if two_monthly:
            kb = np.where(pending["pending_games"] > 0, pending["pending_k"], kb)
        # The grouping's offsets, opponents and scores alone unless the events need the
        # full one (``PeriodGames.opponents``: the same order either way).
        offsets, opponent, own_score = games.opponents()
        res = fide_period(
            rating,
            is_rated,
            kb,
            offsets,
            opponent,
            own_score,
            pd_high_by_diff(),
            cap=rules.diff_cap,
            exempt_from=rules.cap_exempt_from,
            k_times_games_max=0 if two_monthly else rules.k_times_games_max,
            # Without any event id every game is one event: no per-entry gather.
            entry_event=games.event[games.game] if games.event.max(initial=-1) >= 0 else None,
            cap_once_per_event=rules.cap_once_per_event,
        )
        month = periods.month_index(games.period)
        last = s["last_played"].copy() if "last_played" in s else np.full(n, -1, np.int64)
        last = np.where(is_rated & (last < 0), month - 1, last)
        last = np.where(is_rated & (res.games > 0), month, last)
        active = month - last < rules.inactive_months
        played = games.games_per_player() > 0
        if not two_monthly:
            m, s2, e100, k_used, change = res.games, res.score2, res.expected100, res.k, res.change
            closing = True
        else:
            rated_now = is_rated & (res.games > 0)
            pending["pending_games"] += np.where(rated_now, res.games, 0)
            pending["pending_score2"] += np.where(rated_now, res.score2, 0)
            pending["pending_expected100"] += np.where(rated_now, res.expected100, 0)
            pending["pending_k"] = np.where(rated_now, kb, pending["pending_k"])
            pending["pending_close"] = np.where(rated_now, close, pending["pending_close"])
            closing = periods.month_index(games.period) == close
            if closing:
                m = pending["pending_games"].astype(np.int32)
                # copies: the pending arrays are zeroed below (the row kept a score
                # and an expected score of 0 while its games and change were right)
                s2 = pending["pending_score2"].copy()
                e100 = pending["pending_expected100"].copy()
                k_used = np.where(m > 0, _k_capped(pending["pending_k"], m, rules), 0)
                change = _pending_change(pending, rules.k_times_games_max)
                for name in PENDING:
                    pending[name][:] = 0
            else:  # the month's games wait for the list that closes the rating period
                m, s2, e100 = res.games, res.score2, res.expected100
                k_used = np.where(res.games > 0, kb, 0)
                change = np.zeros(n, dtype=np.int64)
        rated_after = rating + change

        # Inactive as FIDE defines it: no rated game for inactive_months (not "no game
        # this period"); a player is active again with his next rated game.
        status = np.full(n, NOT_REPORTED, dtype=np.int8)
        status[is_rated] = INACTIVE
        status[is_rated & active] = RATED
        fell = is_rated & (rated_after < rules.rating_floor)
        status[fell] = UNRATED

        new_rating = rated_after.copy()
        new_is_rated = is_rated & ~fell
        if closing:
            rated_games += np.where(is_rated, m, 0)
        peak = np.where(new_is_rated, np.maximum(peak, new_rating), peak)

        # Unrated players: pool games vs rated opponents across periods (§8.2, §7.1.4).
        pool, pool_started, first_event, newly = self._pool_and_initial(
            state, games, res, rating, is_rated, rules
        )
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
            last[idx] = month

        counted = is_rated & (m > 0)
        report = Report(
            columns={
                "rating_before": np.where(is_rated, rating_start, np.nan),
                "rating_after": np.where(is_rated, rated_after, initial),
                "games": np.where(is_rated, m, res.unrated_games),
                "score": np.where(is_rated, s2, res.unrated_score2) / 2.0,
                "expected": np.where(counted, e100 / 100.0, np.nan),
                "k": np.where(counted, k_used, np.nan),
                "change": np.where(is_rated & closing, change, np.nan),
                "adjustment": np.where(is_rated & adjusted, adjustment, np.nan),
                "performance": np.full(n, np.nan),
            },
            status=status,
        )
        new_players = {
            "rating": np.where(new_is_rated, new_rating, 0).astype(np.int64),
            "is_rated": new_is_rated,
            "rated_games": rated_games.astype(np.int64),
            "peak": peak.astype(np.int64),
            "birth_year": s["birth_year"],
            "birth_date": s.get("birth_date", np.full(n, -1, dtype=np.int64)),
            "pool_started": pool_started,
            "first_event": first_event,
            "last_played": np.where(new_is_rated, last, -1).astype(np.int64),
            "first_games": np.where(
                new_is_rated, -1, s.get("first_games", np.full(n, -1, np.int64))
            ).astype(np.int64),
        }
        for name in PENDING:
            new_players[name] = np.where(new_is_rated, pending[name], 0).astype(np.int64)
        return State(players=new_players, tables={"pool": pool}), report

    @staticmethod
    def _drop_unrated_by_difference(games: PeriodGames, rating, is_rated, rules) -> PeriodGames:
        if rules.unrated_diff_from <= 0:  # no such rule: no per-game gathers either
            return games
        drop = unrated_by_difference(
            rules,
            rating[games.white],
            rating[games.black],
            is_rated[games.white],
            is_rated[games.black],
        )
        if not drop.any():
            return games
        return games.subset(~drop)

    def _pool_and_initial(self, state, games, res, rating, is_rated, rules):
        """Append this period's games of unrated players to their pools, drop entries
        older than the pooling window, and rate those with enough games.

        A player's games of a period are pooled as up to two rows, those of his first
        event (``first`` = 1) and the others, so that a zero score in his first event
        is disregarded while the event's pooled score is zero, whichever periods its
        games fall in (§8.2.1, docs/rules.md).

        Returns (pool, pool_started, first_event, newly) where newly rows are
        (player, Ru, games).
        """
        n = games.n_players
        month = periods.month_index(games.period)
        pool = state.tables.get("pool", _empty_pool())
        if "first" not in pool:  # a checkpoint written before first events were pooled apart
            pool = {**pool, "first": np.zeros(pool["player"].shape[0], dtype=np.int64)}
        started = state.players["pool_started"].copy()
        first_event = state.players.get("first_event", np.full(n, NO_EVENT, np.int64)).copy()
        who = np.flatnonzero((~is_rated) & (res.unrated_games > 0))
        all_games = res.unrated_games.astype(np.int64)
        all_score2 = res.unrated_score2.astype(np.int64)
        all_opp = res.unrated_opp_sum.astype(np.int64)
        if rules.initial_ignore_zero_first_event:
            f_games, f_score2, f_opp = first_event_games(
                games, res, who, rating, is_rated, started, first_event
            )
        else:
            f_games = f_score2 = f_opp = np.zeros(n, dtype=np.int64)
        started[who] = True
        in_first = who[f_games[who] > 0]
        rest = who[all_games[who] > f_games[who]]
        new_rows = {
            "player": np.concatenate([in_first, rest]).astype(np.int64),
            "month": np.full(in_first.size + rest.size, month, dtype=np.int64),
            "games": np.concatenate([f_games[in_first], all_games[rest] - f_games[rest]]),
            "score2": np.concatenate([f_score2[in_first], all_score2[rest] - f_score2[rest]]),
            "opp_sum": np.concatenate([f_opp[in_first], all_opp[rest] - f_opp[rest]]),
            "first": np.concatenate(
                [np.ones(in_first.size, np.int64), np.zeros(rest.size, np.int64)]
            ),
        }
        # (month, player) order, a player's first-event row first, as a sharded run merges them
        order = np.argsort(new_rows["player"], kind="stable")
        pool = {k: np.concatenate([pool[k], new_rows[k][order]]) for k in new_rows}
        keep = pool["month"] > month - rules.initial_pool_months
        keep &= ~is_rated[pool["player"]]  # players rated in the meantime leave the pool
        pool = {k: v[keep] for k, v in pool.items()}

        # A first event whose pooled games score zero is left out, judged on the pool as
        # it is now: a later point in the same event brings its games back (§8.2.1).
        counted = np.ones(pool["player"].shape[0], dtype=bool)
        if rules.initial_ignore_zero_first_event:
            first = pool["first"] == 1
            fg = np.bincount(pool["player"][first], weights=pool["games"][first], minlength=n)
            fs = np.bincount(pool["player"][first], weights=pool["score2"][first], minlength=n)
            zero = (fg > 0) & (fs == 0)
            counted = ~(first & zero[pool["player"]])
        player = pool["player"][counted]

        def total(column):
            weights = pool[column][counted]
            return np.bincount(player, weights=weights, minlength=n).astype(np.int64)

        g, s2, opp = total("games"), total("score2"), total("opp_sum")
        candidates = who
        if rules.list_months > 1:
            # Two-monthly lists: a newcomer is rated on the list that closes the rating
            # period, from all its games (docs/fide-history.md); before, he is unrated
            # for his opponents in the period's later months. A rating period whose
            # closing month was not walked (no games) rates its newcomers now, late.
            close = closing_month(games.period, rules.list_months)
            since = close if month != close else close - rules.list_months
            prev = games.previous_period
            if prev is not None:
                prev_close = closing_month(prev, rules.list_months)
                if prev_close < close and periods.month_index(prev) != prev_close:
                    since = min(since, prev_close - rules.list_months)
            candidates = np.unique(pool["player"][pool["month"] > since])
        candidates = candidates[g[candidates] >= rules.initial_min_games]
        ru = fide_initial_rating(
            g[candidates],
            s2[candidates],
            opp[candidates],
            dp_by_percent(),
            method=INITIAL_METHOD_2024 if rules.initial_method == "2024" else INITIAL_METHOD_2022,
            hypothetical_games=rules.initial_hypothetical_games,
            hypothetical_rating=rules.initial_hypothetical_rating,
            max_rating=rules.initial_max,
            per_half_point=rules.initial_per_half_point,
        )
        ok = ru >= rules.rating_floor
        published = candidates[ok]
        newly = np.stack([published, ru[ok], g[published]], axis=1).astype(np.int64)
        drop = np.isin(pool["player"], published)
        pool = {k: v[~drop] for k, v in pool.items()}
        return pool, started, first_event, newly


NO_EVENT = -1  # ``first_event`` of a player who has no game vs a rated opponent yet


def _local_event_key(month: int, event: np.ndarray) -> np.ndarray:
    """A key (≤ −2) for events known only within one period: the period's dense event
    index (−1 unknown) with its month, so that it matches no other period's events."""
    return -(np.int64(month) * (1 << 31) + np.asarray(event, dtype=np.int64) + 3)


def first_event_games(games: PeriodGames, res, who, rating, is_rated, started, first_event):
    """Per player (n entries): games, score in half points and opponents' rating sum of
    this period's games vs rated opponents that belong to the player's first event
    (``res``: the period's ``fide_period`` result, whose unrated totals these split).

    The first event of a player in ``who`` not yet ``started`` is the event of his
    earliest game vs a rated opponent: by ``games.day``, then in the games' order (file
    order); ``first_event`` is set to its key (updated in place). Events are keyed by
    ``games.event_key`` (the same key in every period) where the engine gives it, else
    by the period's event index, which matches no later period; games without an event
    id form one event per period (docs/rules.md).
    """
    n = games.n_players
    f_games = np.zeros(n, dtype=np.int64)
    f_score2 = np.zeros(n, dtype=np.int64)
    f_opp = np.zeros(n, dtype=np.int64)
    if who.size == 0:
        return f_games, f_score2, f_opp
    month = periods.month_index(games.period)
    keyed = games.event_key is not None and bool((games.event_key >= 0).any())
    if not keyed and games.event.max(initial=-1) < 0:
        # No event id this period: its games form one event, which is the first event
        # of the players starting now and of no one else (no grouping needed).
        new = who[~started[who]]
        first_event[new] = _local_event_key(month, np.int64(-1))
        f_games[new] = res.unrated_games[new]
        f_score2[new] = res.unrated_score2[new]
        f_opp[new] = res.unrated_opp_sum[new]
        return f_games, f_score2, f_opp
    # The CSR entries of ``who``'s games vs rated opponents.
    offsets = games.offsets
    lo, length = offsets[who], offsets[who + 1] - offsets[who]
    owner = np.repeat(who, length)
    entry = np.arange(int(length.sum()), dtype=np.int64)
    entry += np.repeat(lo - (np.cumsum(length) - length), length)
    vs_rated = is_rated[games.opponent[entry]]
    owner, entry = owner[vs_rated], entry[vs_rated]
    game = games.game[entry].astype(np.int64)
    key = _local_event_key(month, games.event[game])
    if keyed:
        stable = games.event_key[game]
        key = np.where(stable >= 0, stable, key)
    new = np.flatnonzero(~started[owner])
    if new.size:
        day = games.day[game[new]] if games.day is not None else np.zeros(new.size, np.int32)
        order = new[np.lexsort((game[new], day, owner[new]))]  # by player, day, file order
        earliest = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
        first_event[owner[earliest]] = key[earliest]
    mine = key == first_event[owner]
    owner, entry = owner[mine], entry[mine]
    half = np.floor(games.own_score[entry] * 2.0 + 0.5).astype(np.int64)
    f_games += np.bincount(owner, minlength=n).astype(np.int64)
    f_score2 += np.bincount(owner, weights=half, minlength=n).astype(np.int64)
    f_opp += np.bincount(owner, weights=rating[games.opponent[entry]], minlength=n).astype(np.int64)
    return f_games, f_score2, f_opp


def _unrate(state: State, idx: np.ndarray) -> State:
    """``state`` with the rated players ``idx`` unrated (as ``step`` leaves one who fell
    below the floor: no rating, no open rating period, no last rated game)."""
    if idx.size == 0:
        return state
    out = dict(state.players)
    for name in ("rating", "is_rated", "last_played", *PENDING):
        if name in out:
            out[name] = out[name].copy()
    out["rating"][idx] = 0
    out["is_rated"][idx] = False
    if "last_played" in out:
        out["last_played"][idx] = -1
    for name in PENDING:
        if name in out:
            out[name][idx] = 0
    return State(players=out, tables=state.tables)


def _k_capped(k: np.ndarray, m: np.ndarray, rules: FideRules) -> np.ndarray:
    """K = min(K, ⌊k_times_games_max / n⌋) over the whole rating period (§8.3.3)."""
    if rules.k_times_games_max <= 0:
        return k
    cap = rules.k_times_games_max // np.maximum(m, 1)
    return np.where(k * m > rules.k_times_games_max, cap, k)


def _pending_change(pending: dict[str, np.ndarray], k_times_games_max: int) -> np.ndarray:
    """round_half_away(K × ΣΔR) of an open two-monthly rating period (§8.3.4)."""
    m = pending["pending_games"]
    k = pending["pending_k"]
    if k_times_games_max > 0:
        k = np.where(k * m > k_times_games_max, k_times_games_max // np.maximum(m, 1), k)
    dr100 = 50 * pending["pending_score2"] - pending["pending_expected100"]
    return np.where(m > 0, div_round_half_away_array(k * dr100, 100), 0).astype(np.int64)


def _empty_pool() -> dict[str, np.ndarray]:
    # first: 1 for the games of the player's first event (§8.2.1), else 0
    columns = ("player", "month", "games", "score2", "opp_sum", "first")
    return {k: np.empty(0, dtype=np.int64) for k in columns}


def versions_table(pool: str = "standard") -> list[dict]:
    """The dated FIDE rule versions as plain dicts (for docs and ``arpad rules``)."""
    return [dataclasses.asdict(v) for v in versions_for(pool)]


register(FideSystem())
