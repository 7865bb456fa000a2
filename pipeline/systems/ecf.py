"""Legacy ECF grading (Clarke system, 1958–2020) as docs/legacy-systems.md describes.

The engine walks the stored periods (months with games); ECF grades per cycle.
The state keeps the current cycle's games and the period that ends it; a period
that closes a cycle (``cycle_end_months``) publishes the grades, every other
period reports *interim* grades of the cycle so far (status ``provisional``)
and leaves the published grades unchanged. The engine walks the closing period of
every cycle that holds games even when it has none (``closing_periods_within``), so
each season is published at its own closing month; a cycle still open past its end
(a walk that skipped it) closes at the next walked period, with its own games only
(``EcfRules.cycle_end``). Formula: ``kernels.ecf``; decisions:
docs/legacy-systems.md.

Games dated only to the year are stored in December; those of an event that fits in
the season holding that January (a club season over the New Year) are graded in it (``placed_games``, rules
``year_only_events``; docs/legacy-systems.md "Games dated only to the year").
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from arpad.kernels.csr import group_by_player
from arpad.kernels.ecf import EcfCycleResult, ecf_cycle
from arpad.kernels.rounding import round_half_away_array
from arpad.pipeline import periods
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import (
    EVENT_FILE_SEPARATOR,
    INACTIVE,
    NEW,
    NOT_REPORTED,
    PROVISIONAL,
    RATED,
    EventGames,
    PeriodGames,
    Placement,
    PlayerInfo,
    RatingSystem,
    Report,
    State,
    event_name,
    version_for_period,
)


def _month_list(text: str) -> None:
    """``cycle_end_months``: calendar months 1..12 separated by commas, at least one (no
    month: no season would ever close, every grade interim); ValueError saying why not."""
    months = [m.strip() for m in text.split(",") if m.strip()]
    if not months:
        raise ValueError("no month (give the months that close a season, e.g. '6,12' or '5')")
    for m in months:
        if not (m.isdigit() and 1 <= int(m) <= 12):
            raise ValueError(f"{m!r} is not a calendar month 1..12 (e.g. '6,12' or '5')")


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
    # Games dated only to the year (stored in December) of an event that fits in the
    # season holding that January (some of its games in the year before) are graded in
    # that season, not in the one December opens (docs/legacy-systems.md "Games dated only to the year").
    year_only_events: bool = True

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "abstract_cycle_periods": (0, 1200),
        "diff_cap": (0, 1000),
        "win_points": (1, 1000),  # the expected score divides by it
        "min_games": (0, 1000),
        "junior_age": (0, 100),
        "default_grade": (-100, 400),
        "damping": (0.01, 1),
        "tol": (1e-12, 100),
        "max_iter": (1, 10_000_000),
    }
    # Format of each text field (``--set`` refuses others; base.py ``check_rule_text``).
    FORMATS: ClassVar[dict[str, Callable[[str], None]]] = {
        "cycle_end_months": _month_list,
    }

    def end_months(self) -> tuple[int, ...]:
        return tuple(int(m) for m in self.cycle_end_months.split(",") if m.strip())

    def closes_cycle(self, period: int) -> bool:
        if periods.is_calendar(period):
            return period % 100 in self.end_months()
        return self.abstract_cycle_periods > 0 and period % self.abstract_cycle_periods == 0

    def cycle_end(self, period: int) -> int | None:
        """The period that closes the cycle holding ``period``: the first closing month
        on or after it (185112 → 185205 under the annual season to May), for abstract
        periods the next multiple of ``abstract_cycle_periods``; None when no period
        closes a cycle (no end months, or ``abstract_cycle_periods`` 0)."""
        if periods.is_calendar(period):
            months = sorted(m for m in self.end_months() if 1 <= m <= 12)
            if not months:
                return None
            year, month = divmod(period, 100)
            later = [m for m in months if m >= month]
            return year * 100 + later[0] if later else (year + 1) * 100 + months[0]
        n = self.abstract_cycle_periods
        return -(-period // n) * n if n > 0 else None

    def cycle_start(self, end: int) -> int:
        """The first month of the calendar cycle closed by period ``end`` (a closing
        month): the month after the closing month before it (196305 → 196206 under the
        annual season, 201206 → 201201 six-monthly)."""
        months = sorted(set(self.end_months()))
        year, month = divmod(end, 100)
        earlier = [m for m in months if m < month]
        before = year * 100 + earlier[-1] if earlier else (year - 1) * 100 + months[-1]
        return before + 89 if before % 100 == 12 else before + 1

    def season_label(self, end: int) -> str:
        """A calendar cycle by name: ``1962/63`` for one over the New Year, else its months
        (``Jul-Dec 2011``)."""
        start = self.cycle_start(end)
        if start // 100 != end // 100:
            return f"{start // 100}/{end // 100 % 100:02d}"
        return f"{_MONTHS[start % 100 - 1]}-{_MONTHS[end % 100 - 1]} {end // 100}"


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


ECF_ANNUAL = EcfRules(
    name="ECF annual (1958-2010/11)",
    effective="1958-01-01",
    cycle_end_months="5",
    abstract_cycle_periods=12,
)
ECF_SIX_MONTHLY = EcfRules()
ECF_VERSIONS: tuple[EcfRules, ...] = (ECF_ANNUAL, ECF_SIX_MONTHLY)


def ignored_ratings_note(players) -> str | None:
    """ECF grades start from the players' ``grade`` only (docs/legacy-systems.md "Legacy
    ECF grading"): the players of ``players`` (an Arrow players table, or None) with a
    ``rating`` and no grade start ungraded. The sentence counting them, with the
    conversion arpad offers, else None (``EcfSystem.players_notes``)."""
    if players is None or "rating" not in players.column_names:
        return None
    import pyarrow.compute as pc

    rated = pc.is_valid(players.column("rating"))
    if "grade" in players.column_names:
        rated = pc.and_(rated, pc.is_null(players.column("grade")))
    n = pc.sum(rated.cast("int64")).as_py() or 0
    if not n:
        return None
    return (
        f"players: ecf takes starting grades from the grade column and ignores rating: "
        f"{n} player(s) with a rating and no grade start ungraded (convert a FIDE "
        "rating with arpad convert R --from fide --to ecf --date D, e.g. 2000 is grade "
        "173.33 from 2009-07 on, and give it as grade)"
    )


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


def _no_cycle_open() -> dict[str, np.ndarray]:
    # The open cycle's first period and the period that closes it (-1: none closes it).
    return {"period": np.empty(0, np.int64), "end": np.empty(0, np.int64)}


def _cycle_opened(period: int, rules: EcfRules) -> dict[str, np.ndarray]:
    end = rules.cycle_end(period)
    return {
        "period": np.array([period], np.int64),
        "end": np.array([-1 if end is None else end], np.int64),
    }


def _period_entries(games: PeriodGames) -> dict[str, np.ndarray]:
    """The period's games as cycle entries (White row, then Black row, per game)."""
    g = games.n_games
    player = np.empty(2 * g, dtype=np.int64)
    player[0::2] = games.white
    player[1::2] = games.black
    score = np.empty(2 * g, dtype=np.float64)
    score[0::2] = games.score
    score[1::2] = 1.0 - games.score
    return {"player": player, "score": score, "period": np.full(2 * g, games.period, np.int64)}


class _GradedCycle(NamedTuple):
    """One cycle's grades for every player (``EcfSystem._grade``)."""

    res: EcfCycleResult
    published: np.ndarray  # float64[n]: the grade as published (rounded when the rules say so)
    played: np.ndarray  # bool[n]: the player has games in the cycle
    games: dict[str, np.ndarray]  # the per-game report's columns (entries in CSR order)


class EcfSystem(RatingSystem):
    name = "ecf"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = EcfRules
    needs_initial_ratings = True  # no initial_rating rule: grades come from the players file
    integer_ratings = True  # published grades are whole numbers (``round_published``)
    cumulative_interim_games = True  # interim rows count the cycle's games so far
    places_games = True  # year-only games of an event go to its season (``placed_games``)

    def expected_scores(self, white, black, white_rd, black_rd, rules: EcfRules):
        """The score at which a game is worth the player's own grade: a win is worth the
        opponent's grade + win_points, so E = 0.5 + D/(2·win_points), D within the
        40-point rule."""
        d = np.clip(white - black, -rules.diff_cap, rules.diff_cap)
        # within 0..1 when diff_cap exceeds win_points (a score, not 0.5 + 40/20 = 2.5)
        return np.clip(0.5 + d / (2.0 * rules.win_points), 0.0, 1.0)

    def rule_versions(self, pool: str = "standard") -> tuple[EcfRules, ...]:
        """Annual, then six-monthly grading (the same for every pool)."""
        return ECF_VERSIONS

    def players_notes(self, players: Callable) -> list[str]:
        """Players with a rating and no grade start ungraded (``ignored_ratings_note``)."""
        note = ignored_ratings_note(players())
        return [note] if note else []

    def current_rating(self, state: State) -> tuple[np.ndarray, None]:
        """The published grade (NaN = ungraded); no RD."""
        return np.asarray(state.players["grade"], dtype=np.float64).copy(), None

    def initial_state(self, players: PlayerInfo, rules: EcfRules) -> State:
        return State(
            players={
                "grade": players.grade.astype(np.float64).copy(),
                "birth_year": players.birth_year.astype(np.int64),
            },
            tables={"cycle": _empty_cycle(), "cycle_start": _no_cycle_open()},
        )

    def closing_periods(self, last: int, rules: EcfRules) -> list[int]:
        """The period that closes ``last``'s cycle, when ``last`` is not it and it is
        over (a calendar month before the current one; an abstract period always): the
        run walks it without games, so that the store's last season is published
        (year-only dated games sit in December: 1941's season closes in 194205, and
        without this walk the last list showed the season before; docs/legacy-systems.md
        "A closing month without games")."""
        end = rules.cycle_end(last)
        if end is None or end <= last:
            return []
        if periods.is_calendar(end):
            today = periods.latest_game_date()[0]
            return [end] if end < today.year * 100 + today.month else []
        return [end] if periods.is_valid(end) else []

    def closing_periods_within(self, stored: list[int], rules_for) -> list[int]:
        """The closing period of every stored period's season when it holds no games and
        is over (``closing_periods`` of each): the run walks it, so each season is
        published at its own closing month from its own games — 1886's year-only games
        (188612) at 188705, not at the next stored period decades later
        (docs/legacy-systems.md "A closing month without games")."""
        have = set(stored)
        ends = {e for p in stored for e in self.closing_periods(p, rules_for(p))}
        return sorted(ends - have)

    def placed_games(self, stored, events, rules_for) -> tuple[list[Placement], list[str]]:
        """Games dated only to the year Y are stored in December Y (pipeline/pgn.py), in
        the season that December opens; games of January to May Y (annual seasons) belong
        to the season before. Those of an event that fits in the season holding January
        Y (a club season "1962-63": its other games all lie in that season, some in Y-1,
        none in Y-2 or Y+1) are graded in that season, walked in its closing month (rules
        ``year_only_events``; ``_fits_season``). Notes: how many were placed so, in which
        season and why; how many others were graded in the season of their December, a
        guess (docs/legacy-systems.md "Games dated only to the year")."""
        this_year = periods.latest_game_date()[0].year
        ends: dict[int, int | None] = {}

        def end_of(period: int) -> int | None:
            if period not in ends:
                ends[period] = rules_for(period).cycle_end(period)
            return ends[period]

        placements: list[Placement] = []
        placed: list[tuple[int, int, int, list[str], EcfRules]] = []
        guessed: dict[int, list] = {}  # season end -> [games, year, rules]
        split: list[tuple[int, str, int, list[str], str, str]] = []  # (``_split_note``)
        for p in stored:
            if not periods.is_calendar(p) or (p % 100 != 12 and p // 100 < this_year):
                continue  # year-only games are stored in December (this year: its last month)
            only = {e: c for e, c in events(p).items() if c.year_only}
            if not only:
                continue
            rules, year, own = rules_for(p), p // 100, end_of(p)
            january = rules_for(year * 100 + 1)  # the rules of the season holding January
            moved: dict[str, EventGames] = {}
            target = end_of(year * 100 + 1) if rules.year_only_events else None
            if target is not None and own is not None and target != own:
                lo = bisect.bisect_left(stored, (year - 2) * 100 + 1)
                hi = bisect.bisect_left(stored, (year + 2) * 100 + 1)
                near = [(q, end_of(q), events(q)) for q in stored[lo:hi]]
                moved = {
                    e: c
                    for e, c in only.items()
                    if e is not None and _fits_season(e, p, year, target, near)
                }
                label, by_name = january.season_label(target), _by_event_name(near)
                for e, c in only.items():
                    if e in moved or not c.year_only_rated:
                        continue
                    others = _other_files(e, p, year, target, by_name)
                    if others:
                        split.append((year, e, c.year_only_rated, others, label, str(own)))
            if moved:
                games = sum(c.year_only for c in moved.values())
                placements.append(Placement(p, target, tuple(sorted(moved)), games))
                rated = sum(c.year_only_rated for c in moved.values())
                if rated:
                    placed.append((year, target, rated, sorted(moved), january))
            rest = sum(c.year_only_rated for e, c in only.items() if e not in moved)
            if rest and own is not None and rules.cycle_start(own) % 100 != 1:
                entry = guessed.setdefault(own, [0, year, rules, end_of(year * 100 + 1), january])
                entry[0] += rest
        notes = [n for n in (_placed_note(placed), _guessed_note(guessed), _split_note(split)) if n]
        return placements, notes

    def step(self, state: State, games: PeriodGames, rules: EcfRules) -> tuple[State, Report]:
        """Add the period's games to the open cycle; publish the cycle at its closing
        period. A cycle still open past its end (its closing period had no games) is
        published here first, from its own games; this period's games open the next
        cycle, published here too when this period closes it."""
        cycle = state.tables.get("cycle", _empty_cycle())
        opened = state.tables.get("cycle_start", _no_cycle_open())
        entries = _period_entries(games)
        if opened["period"].size == 0:
            cycle, opened = entries, _cycle_opened(games.period, rules)
        elif _past_end(opened, games.period, rules):
            return self._step_after_stale_cycle(state, games, rules, cycle, opened, entries)
        else:
            cycle = {k: np.concatenate([cycle[k], entries[k]]) for k in cycle}
        graded = self._grade(state, games.n_players, cycle, int(opened["period"][0]), rules)
        if rules.closes_cycle(games.period):
            return self._published(state, [graded])
        return self._interim(state, graded, cycle, opened)

    def _step_after_stale_cycle(self, state, games, rules, cycle, opened, entries):
        stale = self._grade(state, games.n_players, cycle, int(opened["period"][0]), rules)
        grade = np.where(stale.played, stale.published, state.players["grade"])
        after_stale = State(players={**state.players, "grade": grade}, tables=state.tables)
        if not rules.closes_cycle(games.period):
            published, report = self._published(state, [stale])
            tables = {"cycle": entries, "cycle_start": _cycle_opened(games.period, rules)}
            return State(players=published.players, tables=tables), report
        # This period also closes the cycle its own games open: both are published
        # here, each graded from its own games, the second with the first's grades.
        current = self._grade(after_stale, games.n_players, entries, games.period, rules)
        return self._published(state, [stale, current])

    def _grade(self, state: State, n: int, cycle, start: int, rules: EcfRules) -> _GradedCycle:
        """The grades of the cycle that started in period ``start`` from its ``cycle``
        entries, the previous grades being the state's."""
        grade = state.players["grade"]
        white, black = cycle["player"][0::2], cycle["player"][1::2]
        grouped = group_by_player(white, black, cycle["score"][0::2], n)
        played = np.diff(grouped.offsets) > 0

        junior = np.zeros(n, dtype=bool)
        start_year = periods.year_of(start)
        birth = state.players["birth_year"]
        if start_year is not None:
            junior = (birth > 0) & (start_year - birth < rules.junior_age)
        estimated = played & (junior | np.isnan(grade))
        first_guess = self._starting_estimates(grade, grouped, rules)
        res = ecf_cycle(
            grade,
            estimated,
            first_guess,
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
        entry_player = np.repeat(np.arange(n), np.diff(grouped.offsets))
        per_game = {
            "player": entry_player,
            "opponent": grouped.opponent.astype(np.int64),
            "game_period": cycle["period"][0::2][grouped.game],
            "score": grouped.score,
            "opponent_grade": res.opponent_grade,
            "points": res.points,
            "estimated": estimated[entry_player],
        }
        return _GradedCycle(res, published, played, per_game)

    @staticmethod
    def _interim(state: State, graded: _GradedCycle, cycle, opened) -> tuple[State, Report]:
        """A period inside the cycle: interim grades (``provisional``), nothing published."""
        grade = state.players["grade"]
        res, played = graded.res, graded.played
        status = np.full(grade.shape[0], NOT_REPORTED, dtype=np.int8)
        status[played] = PROVISIONAL
        report = Report(
            columns={
                "rating_before": grade,
                "rating_after": np.where(played, graded.published, np.nan),
                "games": res.games,
                "score": res.score,
                "change": np.full(grade.shape[0], np.nan),
                "performance": res.performance,
            },
            status=status,
            extra={"iterations": res.iterations, "converged": res.converged, "closes_cycle": False},
        )
        tables = {"cycle": cycle, "cycle_start": opened}
        return State(players=dict(state.players), tables=tables), report

    @staticmethod
    def _published(state: State, cycles: list[_GradedCycle]) -> tuple[State, Report]:
        """The period that publishes ``cycles`` (one, or a stale cycle and then this
        period's own, graded in that order): the row has the grade after them, the
        games, score and mean points of both, and the per-game report of both."""
        grade = state.players["grade"]
        n = grade.shape[0]
        after = grade.copy()
        played = np.zeros(n, dtype=bool)
        games = np.zeros(n, dtype=np.int64)
        score = np.zeros(n, dtype=np.float64)
        points = np.zeros(n, dtype=np.float64)
        for c in cycles:
            after = np.where(c.played, c.published, after)
            played |= c.played
            games += c.res.games
            score += c.res.score
            points += np.where(c.played, c.res.performance * c.res.games, 0.0)
        has_grade = ~np.isnan(grade)
        status = np.full(n, NOT_REPORTED, dtype=np.int8)
        status[has_grade] = INACTIVE
        status[played & has_grade] = RATED
        status[played & ~has_grade] = NEW
        columns = {
            "rating_before": grade,
            "rating_after": after,
            "games": cycles[0].res.games,
            "score": cycles[0].res.score,
            "change": np.where(played & has_grade, after - grade, np.nan),
            "performance": cycles[0].res.performance,
        }
        if len(cycles) > 1:
            columns["games"] = games.astype(cycles[0].res.games.dtype)
            columns["score"] = score
            columns["performance"] = np.where(played, points / np.maximum(games, 1), np.nan)
        report = Report(
            columns=columns,
            status=status,
            extra={
                "iterations": sum(c.res.iterations for c in cycles),
                "converged": all(c.res.converged for c in cycles),
                "closes_cycle": True,
                "games": {k: np.concatenate([c.games[k] for c in cycles]) for k in cycles[0].games},
            },
        )
        tables = {"cycle": _empty_cycle(), "cycle_start": _no_cycle_open()}
        new_state = State(players={**state.players, "grade": after}, tables=tables)
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


def _fits_season(event: str, source: int, year: int, target: int, near: list) -> bool:
    """True when ``event`` has games other than its year-only games of ``source``
    (December of ``year``) and they all lie in the season closing at ``target`` (the one
    holding January of ``year``), in ``year - 1`` or ``year``: one event of one season,
    over the New Year (a club season "1962-63") or in its spring months (a league of
    February and March whose other games are dated to the year; the historian's attack,
    round 13: such an event was split over two seasons). ``near``: (period, the end of
    its cycle, its ``events``) of the stored periods of the years around."""
    other = False
    for q, end, counts in near:
        c = counts.get(event)
        if c is None:
            continue
        if q == source and c.games == c.year_only:
            continue  # (the games to place)
        if end != target or not (year - 1 <= q // 100 <= year):
            return False
        other = True
    return other


def _by_event_name(near: list) -> dict[str, list]:
    """``near`` (``_fits_season``'s) by Event name: name -> [(period, end, file,
    EventGames)] of every file's games of that name (keys with a file only)."""
    out: dict[str, list] = {}
    for q, end, counts in near:
        for key, c in counts.items():
            if key is not None and EVENT_FILE_SEPARATOR in key:
                name, file = key.split(EVENT_FILE_SEPARATOR, 1)
                out.setdefault(name, []).append((q, end, file, c))
    return out


def _other_files(key: str, source: int, year: int, target: int, by_name: dict) -> list[str]:
    """The other files holding games of ``key``'s Event in the season closing at
    ``target``, when the event's games of every file together fit that season
    (``_fits_season`` of them as one event): the year-only games of ``key`` would be
    graded there were the files one (the historian's attack, round 14: "Hastings Club
    Ch 1862-63" in hastings_1862.pgn and hastings_1863.pgn). An event is its Event tag
    in one file (docs/legacy-systems.md), so they are not: ``_split_note`` says so.
    ``by_name``: ``_by_event_name`` of the periods around."""
    if key is None or EVENT_FILE_SEPARATOR not in key:
        return []
    name, own_file = key.split(EVENT_FILE_SEPARATOR, 1)
    rows = by_name.get(name, [])
    others = {
        file
        for q, end, file, _ in rows
        if file != own_file and end == target and year - 1 <= q // 100 <= year
    }
    if not others:
        return []
    merged: dict[tuple[int, int | None], EventGames] = {}
    for q, end, _, c in rows:  # the event's games of every file, as one event's
        old = merged.get((q, end), EventGames(0, 0, 0))
        merged[(q, end)] = EventGames(*(a + b for a, b in zip(old, c, strict=True)))
    as_one = [(q, end, {name: c}) for (q, end), c in merged.items()]
    return sorted(others) if _fits_season(name, source, year, target, as_one) else []


def _split_note(split: list) -> str | None:
    """The note on year-only games whose Event another file holds in the season they
    would be graded in were the files one (``_other_files``)."""
    if not split:
        return None
    total = sum(entry[2] for entry in split)
    parts = []
    for year, key, games, others, label, own in split:
        name, file = key.split(EVENT_FILE_SEPARATOR, 1)
        parts.append(
            f"{games} of {year} in {file}, listed at {own} (Event {name!r}, also in "
            f"{' and '.join(others)} in {label})"
        )
    shown = "; ".join(parts[:_MORE]) + (
        f"; and {len(parts) - _MORE} more" if len(parts) > _MORE else ""
    )
    return (
        f"{total} game(s) dated only to the year are graded as a separate event from games "
        f"of the same Event tag in another file: {shown}. An event is its Event tag in one "
        "file; to grade them as one event, make the files one source: withdraw each file "
        "but one (ingest a CSV file holding only the line date,white,black,result with "
        "--source and the path that file was ingested from: a new version without games "
        "replaces a source), then ingest one PGN holding all the event's games with "
        f"--source and the path of the file left ({_SECTION})"
    )


_MORE = 3  # seasons a note names before "and N more"
_SECTION = 'docs/legacy-systems.md "Games dated only to the year"'


def _more(parts: list[str]) -> str:
    extra = len(parts) - _MORE
    return "; ".join(parts[:_MORE]) + (f"; and {extra} more season(s)" if extra > 0 else "")


def _placed_note(placed: list) -> str | None:
    """The note on games dated only to the year graded in the season their event began
    in (``EcfSystem.placed_games``)."""
    if not placed:
        return None
    total = sum(entry[2] for entry in placed)
    parts = []
    for year, target, games, names, rules in placed:
        shown = ", ".join(repr(event_name(name)) for name in names[:2])
        if len(names) > 2:
            shown += f" and {len(names) - 2} more event(s)"
        parts.append(
            f"{games} of {year} in {rules.season_label(target)} (listed at {target}; {shown})"
        )
    year, target, _, _, rules = placed[0]
    return (
        f"{total} game(s) dated only to the year were graded in the season their event began "
        f"in, not in the season their year's December opens: {_more(parts)}. Games of "
        f"{_MONTHS[0]}-{_MONTHS[target % 100 - 1]} {year} belong to "
        f"{rules.season_label(target)}, and an event of one file whose other games all "
        f"lie in that season is taken to have been played in it ({_SECTION}; --set "
        "year_only_events=false grades them by their December)"
    )


def _guessed_note(guessed: dict[int, list]) -> str | None:
    """The note on the other games dated only to the year: graded in the season holding
    their year's December, which is a guess (``EcfSystem.placed_games``)."""
    if not guessed:
        return None
    ends = sorted(guessed)
    total = sum(guessed[end][0] for end in ends)
    parts = [
        f"{guessed[end][0]} of {guessed[end][1]} in {guessed[end][2].season_label(end)} "
        f"(listed at {end})"
        for end in ends
    ]
    _, year, rules, before, january = guessed[ends[0]]
    start = rules.cycle_start(ends[0])
    earlier = f" belongs to {january.season_label(before)}" if before is not None else ""
    return (
        f"{total} game(s) dated only to the year were graded in the season holding their "
        f"year's December: {_more(parts)}. A game of {_MONTHS[0]}-"
        f"{_MONTHS[start % 100 - 2]} {year}{earlier}: the season of such a game is a "
        f"guess ({_SECTION})"
    )


def _past_end(opened: dict[str, np.ndarray], period: int, rules: EcfRules) -> bool:
    """True when ``period`` is past the end of the open cycle: its closing period was
    not walked (no games then), so the cycle is published before ``period``'s games.
    The end was fixed when the cycle opened (the rules then); a checkpoint written
    before it was kept has it from ``period``'s rules."""
    if "end" in opened and opened["end"].size:
        end = int(opened["end"][0])
    else:
        found = rules.cycle_end(int(opened["period"][0]))
        end = -1 if found is None else found
    return end >= 0 and period > end


register(EcfSystem())
