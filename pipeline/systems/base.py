"""The shape every rating system shares.

``step(state, games, rules) -> (state, report)``: the state one period
produces is exactly what the next period accepts, so periods chain and any
period can be re-run from a checkpoint. Players are dense integers 0..n-1
inside a run; every per-player array has n entries.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
import threading
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from arpad.pipeline import periods

STATUS_CODES = ("rated", "new", "provisional", "inactive", "unrated")
RATED, NEW, PROVISIONAL, INACTIVE, UNRATED = range(5)
NOT_REPORTED = -1  # status code for players left out of a period's report


@dataclass
class PlayerInfo:
    """The players table as dense arrays (index = dense player index)."""

    player_id: np.ndarray  # object (str)
    rating: np.ndarray  # float64, NaN = none
    rated_games: np.ndarray  # int64, -1 = unknown
    peak_rating: np.ndarray  # float64, NaN = none
    birth_year: np.ndarray  # int64, -1 = unknown
    rd: np.ndarray  # float64, NaN = none
    volatility: np.ndarray  # float64, NaN = none
    grade: np.ndarray  # float64, NaN = none
    sex: np.ndarray  # object (str or None)
    # int64 YYYYMMDD of the birth date, -1 = unknown (FIDE's junior K "until their 18th
    # birthday" of the 2014-07 rules); None when the caller has no players table
    birth_date: np.ndarray | None = None
    # ``player_id`` as one Arrow string array, when read from a players table: the
    # run's ids without building them again from the Python strings (``engine.id_array``)
    ids: object = None

    @property
    def n(self) -> int:
        return int(self.player_id.shape[0])


@dataclass
class PeriodGames:
    """One period's rated games of one pool, with the CSR grouping by player.

    The grouping (``offsets``, ``opponent``, ``own_score``, ``is_white``, ``game``) is
    built on first use, once, under a lock: a system whose step and performance column
    walk the games in input order (Elo, ``elo_period_games``) never needs it, and the
    counting sort of a 500k-game period is ~35 ms of CPU (docs/developing.md "The
    engine")."""

    period: int
    previous_period: int | None  # the period walked before this one (None = first)
    elapsed: int  # periods (months) since the previous walked period, ≥ 1
    year: int | None  # calendar year of the period, None for abstract periods
    n_players: int
    white: np.ndarray  # int32[g]
    black: np.ndarray  # int32[g]
    score: np.ndarray  # float64[g], White's score
    event: np.ndarray  # int32[g], dense event index, -1 = unknown
    # Given by the engine to a system whose ``uses_game_days`` is True, else None:
    day: np.ndarray | None = None  # int32[g], date as days since 1970-01-01, -1 = unknown
    event_key: np.ndarray | None = None  # int64[g], event id's key in every period, -1 = unknown
    _grouped: Any = field(default=None, repr=False, compare=False)
    _opponents: Any = field(default=None, repr=False, compare=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        period: int,
        white: np.ndarray,
        black: np.ndarray,
        score: np.ndarray,
        n_players: int,
        event: np.ndarray | None = None,
        previous_period: int | None = None,
        day: np.ndarray | None = None,
        event_key: np.ndarray | None = None,
    ) -> PeriodGames:
        """A period's games from flat arrays: elapsed months and year (the CSR grouping
        by player follows on first use)."""
        from arpad.kernels.csr import check_games

        white = np.ascontiguousarray(white, dtype=np.int32)
        black = np.ascontiguousarray(black, dtype=np.int32)
        score = np.ascontiguousarray(score, dtype=np.float64)
        check_games(white, black, score, n_players)
        if event is None:
            event = np.full(white.shape[0], -1, dtype=np.int32)
        for name, values in (("day", day), ("event_key", event_key)):
            if values is not None and np.shape(values) != white.shape:
                raise ValueError(f"{name} must have one entry per game")
        elapsed = 1
        if previous_period is not None:
            elapsed = max(1, periods.months_between(previous_period, period))
        return cls(
            period=period,
            previous_period=previous_period,
            elapsed=elapsed,
            year=periods.year_of(period),
            n_players=n_players,
            white=white,
            black=black,
            score=score,
            event=np.ascontiguousarray(event, dtype=np.int32),
            day=None if day is None else np.ascontiguousarray(day, dtype=np.int32),
            event_key=None if event_key is None else np.ascontiguousarray(event_key, np.int64),
        )

    def grouped(self):
        """The CSR grouping by player (kernels/csr.py ``PlayerGames``), built once."""
        grouped = self._grouped
        if grouped is None:
            with self._lock:
                grouped = self._grouped
                if grouped is None:
                    from arpad.kernels.csr import PlayerGames, _group_by_player

                    # (the arrays were checked by ``build``)
                    n = np.int64(self.n_players)
                    grouped = PlayerGames(*_group_by_player(self.white, self.black, self.score, n))
                    self._grouped = grouped
        return grouped

    def opponents(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(``offsets``, ``opponent``, ``own_score``) of the grouping by player: the full
        grouping's when it is built, else a lighter one of these three alone, built once
        (kernels/csr.py ``_group_opponents``; same arrays, a third of the cost). The
        performance column needs no more, and for Elo nothing else groups the games."""
        with self._lock:  # the same lock as ``grouped``: each is built once
            grouped = self._grouped
            if grouped is not None:
                return grouped.offsets, grouped.opponent, grouped.score
            if self._opponents is None:
                from arpad.kernels.csr import _group_opponents

                n = np.int64(self.n_players)
                self._opponents = _group_opponents(self.white, self.black, self.score, n)
            return self._opponents

    def __getstate__(self) -> dict:  # pickled to Dask workers: a lock is not
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def offsets(self) -> np.ndarray:  # int64[n + 1]
        return self.grouped().offsets

    @property
    def opponent(self) -> np.ndarray:  # int32[2g]
        return self.grouped().opponent

    @property
    def own_score(self) -> np.ndarray:  # float64[2g]
        return self.grouped().score

    @property
    def is_white(self) -> np.ndarray:  # bool[2g]
        return self.grouped().is_white

    @property
    def game(self) -> np.ndarray:  # int32[2g]
        return self.grouped().game

    def subset(self, keep: np.ndarray) -> PeriodGames:
        """The same period with only the games where ``keep`` is true (regrouped)."""
        return PeriodGames.build(
            self.period,
            self.white[keep],
            self.black[keep],
            self.score[keep],
            self.n_players,
            self.event[keep],
            self.previous_period,
            None if self.day is None else self.day[keep],
            None if self.event_key is None else self.event_key[keep],
        )

    @property
    def n_games(self) -> int:
        return int(self.white.shape[0])

    def games_per_player(self) -> np.ndarray:
        return np.diff(self.opponents()[0])


@dataclass
class State:
    """A system's state between periods.

    ``players`` holds per-player arrays (n entries each); ``tables`` holds any
    other columnar state (e.g. FIDE's pooled games of unrated players) as dicts
    of equal-length arrays. Both are written to checkpoints as Parquet.
    """

    players: dict[str, np.ndarray]
    tables: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)


@dataclass
class Report:
    """Per-player columns of the ratings output for one period.

    Keys are RATINGS column names (``rating_before``, ``rating_after``, ``games``,
    ``score``, ``expected``, ``k``, ``change``, ``rd_before`` …) plus ``status``
    as int codes (STATUS_CODES index, NOT_REPORTED to leave a player out).
    Missing columns are written as nulls; NaN floats are written as nulls.
    """

    columns: dict[str, np.ndarray]
    status: np.ndarray  # int8[n]
    extra: dict[str, Any] = field(default_factory=dict)


# An event key of ``engine.game_plan`` is its event id and the file its games came from:
# "Club Championship" in two clubs' files is two events (the historian, round 13).
EVENT_FILE_SEPARATOR = "\x1f"


def event_name(key: str) -> str:
    """The event id of an event key of ``engine.game_plan`` (event id and file)."""
    return key.split(EVENT_FILE_SEPARATOR, 1)[0]


class EventGames(typing.NamedTuple):
    """One event id's stored games in one period (``RatingSystem.placed_games``)."""

    games: int  # every stored game of the event in the period, rated or not
    year_only: int  # of them, dated only to the year (``date_precision`` "year")
    year_only_rated: int  # of those, rated


class Placement(typing.NamedTuple):
    """Stored games a system walks in another period than their own
    (``RatingSystem.placed_games``): the games of period ``source`` dated only to the
    year whose event id is one of ``events`` are walked in period ``target``."""

    source: int
    target: int
    events: tuple[str, ...]
    games: int  # how many (rated or not)


class RatingSystem:
    """The whole interface of a rating system: every hook the pipeline may call.

    A system subclasses this, sets ``name`` and ``rules_type`` and implements
    ``initial_state`` and ``step``; every other hook has the default documented
    here, and callers call the hooks directly (no probing with getattr/hasattr;
    tests/test_architecture.py guards this). docs/developing.md "A rating system"
    says when to override which hook.
    """

    # -- identity -------------------------------------------------------------------
    name: ClassVar[str] = ""  # registry key, ``--system NAME``; every system sets it
    rules_type: ClassVar[type] = object  # the frozen rules dataclass; every system sets it

    # -- capabilities (class attributes; override by assigning) --------------------------
    # A player's update reads only their own games and the pre-period state, so a period
    # may be split by player (pipeline/sharding.py; docs/operations.md).
    shardable: ClassVar[bool] = False
    # Row order of state tables that are not ordered by player alone, e.g. FIDE's pool
    # ``{"pool": ("month", "player")}``; tables not named here are ordered by player.
    shard_table_order: ClassVar[dict[str, tuple[str, ...]]] = {}
    # Keys of ``report.extra`` holding arrays of player indices (split and concatenated
    # by the sharded step), e.g. Glicko-2's unconverged players.
    shard_index_extras: ClassVar[tuple[str, ...]] = ()
    # Smaller numbers are better (rank 1 = smallest), e.g. Ingo; used by the catalog's
    # rating_list ranks.
    lower_is_better: ClassVar[bool] = False
    # Performance method of ``fill_performance`` (a key of pipeline.performance.METHODS)
    # for reports that leave the ``performance`` column empty.
    performance_method: ClassVar[str] = "true-logistic"
    # The rules have no ``initial_rating``: players without a starting rating are not
    # rated from one, so the backtest seeds every player with a rating (pipeline/backtest.py).
    needs_initial_ratings: ClassVar[bool] = False
    # Nobody can be rated unless the players table gives some players a published
    # starting rating (FIDE: newcomers are rated only against rated opponents; Harkness,
    # Ingo: no rule for a first rating). The rate job refuses such a system on a store
    # without any published rating (exit 2), and ``reconstruct`` skips it with the reason
    # (pipeline/jobs.py ``check_starting_ratings``). Implies ``needs_initial_ratings``.
    needs_published_ratings: ClassVar[bool] = False
    # Published ratings found in the sources (PGN Elo tags, TRF ratings: dated
    # observations, pipeline/observations.py) seed this system: before each period the
    # engine passes ``seed`` the latest observation of each player at or before it
    # that is newer than the last period walked (docs/observations.md). False: the
    # system rates from its games only and ``seed`` is never called.
    seeds_from_observations: ClassVar[bool] = False
    # The system publishes whole-number ratings: list files (CSV, JSON, FIDE TXT/XML)
    # write ``rating`` as an integer, rounded half away from zero (FIDE, USCF, ECF,
    # Harkness, Ingo); otherwise lists keep one decimal (docs/lists.md).
    integer_ratings: ClassVar[bool] = False
    # Columns a list carries after ``rating`` besides FIDE's, in every list format but
    # FIDE's TXT and XML layouts: (list column, ratings column, decimals), e.g. Glicko's
    # ``("rd", "rd_after", 1)`` (docs/lists.md "The systems' own columns").
    list_columns: ClassVar[tuple[tuple[str, str, int], ...]] = ()
    # A ``provisional`` row's ``games`` are the player's games of the open cycle so far
    # (ECF's interim grades), the next row's include them again; a row of another status
    # closes the cycle. Counts of games per year (pipeline/era.py) take differences.
    cumulative_interim_games: ClassVar[bool] = False
    # A rated row with ``change`` null holds its games for the row that publishes them,
    # which counts them again (FIDE's two-monthly lists: the first month's row, and the
    # closing month's row counts both months; a late publication, an ``adjustment``,
    # does not). Counts of games per year (pipeline/era.py) take differences.
    held_games_repeated: ClassVar[bool] = False
    # The status ``inactive`` the system rates is already a list's inactivity (FIDE's own
    # rule, dated); otherwise a list flags ``i`` after 12 months without a rated game
    # (pipeline/lists.py ``idle_players``, docs/observations.md "Who is on a list").
    status_is_list_activity: ClassVar[bool] = False
    # ``history_reports`` revises earlier periods at the end of a run (WHR, docs/whr.md).
    retroactive: ClassVar[bool] = False
    # Rule fields the backtest tunes on its validation split, with candidate values;
    # empty: the backtest scales the first of K/c/τ the rules have (pipeline/backtest.py).
    tuning_grid: ClassVar[dict[str, tuple[Any, ...]]] = {}
    # ``step`` reads ``PeriodGames.event`` (FIDE, USCF, Harkness, Ingo). False: the engine
    # does not read the games' event ids, and ``event`` is -1 for every game.
    uses_events: ClassVar[bool] = True
    # ``step`` reads ``PeriodGames.day`` and ``event_key`` (FIDE's first event, §8.2.1):
    # the engine reads the games' dates and keys their event ids across periods.
    uses_game_days: ClassVar[bool] = False
    # ``placed_games`` may walk games dated only to the year in another period than their
    # own (ECF's seasons): the engine reads the stored games' event ids and date
    # precision for it before a run.
    places_games: ClassVar[bool] = False
    # Rough cost of a run relative to Elo on the same games (measured on the Kaggle 2010
    # store, docs/benchmarks.md): independent units go to Dask longest first.
    relative_cost: ClassVar[float] = 1.0
    # ``expected_scores`` reads the RDs (Glicko, Glicko-2): ``arpad.predict`` refuses
    # ratings without an ``rd``/``rd_after`` column rather than predict without them.
    expected_uses_rd: ClassVar[bool] = False
    # ``step`` ages known players by ``PeriodGames.elapsed`` (Glicko's RD): a starting
    # state of an earlier period than the others' is carried to theirs by a step without
    # games (engine ``_walked_from``: a ratings frame given back as players, round 14).
    ages_by_elapsed: ClassVar[bool] = False

    # -- rules ----------------------------------------------------------------------
    def rule_versions(self, pool: str = "standard") -> tuple[Any, ...]:
        """The dated rule versions for ``pool``, oldest first (each with an ISO
        ``effective`` date); default ``()``: the system has one undated rule set."""
        return ()

    def rules_before_oldest(self, pool: str = "standard") -> str:
        """What the sources say differed, before its date, from the oldest dated version
        of ``pool`` (``rule_versions(pool)[0]``), which a replay of earlier periods uses:
        said in ``before_oldest_note``. Default: nothing known (``""``)."""
        return ""

    def rules_for(self, period: int, pool: str) -> Any:
        """The rules in force for ``period``: the dated version in force
        (``version_for_period``), or ``rules_type()`` when there are no versions."""
        versions = self.rule_versions(pool)
        if not versions:
            return self.rules_type()
        return version_for_period(versions, period)

    def rules_at(self, spec: str | int, pool: str = "standard") -> Any:
        """``--rules DATE``: the version in force on that day (``parse_rules_date``
        spellings). Raises ValueError for systems without dated versions."""
        versions = self.rule_versions(pool)
        if not versions:
            raise ValueError(
                f"--rules DATE is only meaningful for systems with dated versions; "
                f"{self.name} has none (give a rules FILE.json instead)"
            )
        return pick_version(versions, parse_rules_date(spec, versions))

    def players_notes(self, players: Callable[[], Any]) -> list[str]:
        """Notes on the players table a run starts from (``players()`` gives it, an Arrow
        table or None; called only by a system with notes: a store's table is read for
        them alone): what the system ignores in it that a user may count on (ECF: a
        rating without a grade). ``arpad.rate`` and ``Store.rate`` warn with each,
        ``arpad rate`` and ``arpad reconstruct`` print each as a note. Default: none."""
        return []

    def rules_name(self, rules: Any) -> str:
        """Label of a rule set in checkpoints, run summaries and the stored ``rules``
        column: its ``name`` field (``apply_overrides`` notes ``--set`` changes in it),
        else the rules class name with the fields that differ from the class's defaults
        noted as ``apply_overrides`` notes them (``EloRules + k=32``)."""
        fields = dataclasses.fields(rules)
        if "name" in {f.name for f in fields}:
            return str(rules.name)
        try:
            defaults = type(rules)()
        except TypeError:  # a rules class with required fields: no defaults to compare
            return type(rules).__name__
        changes = {f.name: getattr(rules, f.name) for f in fields}
        return overridden_name(type(rules).__name__, defaults, changes)

    # -- the step -------------------------------------------------------------------
    def initial_state(self, players: PlayerInfo, rules: Any) -> State:
        """The state before the first walked period, from the players table."""
        raise NotImplementedError(f"{type(self).__name__} must implement initial_state")

    def seed(self, state: State, players: np.ndarray, ratings: np.ndarray, rules: Any) -> State:
        """The state with published ratings observed since the last walked period:
        ``players`` (dense indices, unique) now have the published ``ratings`` (Elo
        scale, as the source gave them). Called before the period's ``step`` when
        ``seeds_from_observations``; the default leaves the state unchanged."""
        return state

    def seed_observed(
        self, state: State, players: np.ndarray, ratings: np.ndarray, observed, rules: Any
    ) -> State:
        """``seed`` with ``observed``, the period each rating was stated for (one per
        player): a system whose published ratings all changed on a date (FIDE's
        compression of 1 March 2024) tells a rating stated before it from one stated
        after it, already changed. Default: ``seed``."""
        return self.seed(state, players, ratings, rules)

    def carried_ratings(
        self,
        ratings: np.ndarray,
        after: int,
        at: int,
        pool: str = "standard",
        rules_name: Callable[[], str | None] | None = None,
    ) -> np.ndarray:
        """The published ratings ``ratings`` of period ``after`` as they stand at the
        start of the later period ``at``, before its games and any rating stated for it
        (a list of ``after`` takes effect at the next period: pipeline/lists.py). A
        system whose rules change every published rating on a date (FIDE's compression
        of 1 March 2024, docs/fide-history.md) changes them when that date falls in
        (after, at]; ``rules_name`` gives the stored rules name of ``after``'s ratings
        rows (its ``--set`` fields apply), called only when needed. Default: unchanged."""
        return ratings

    def step(self, state: State, games: PeriodGames, rules: Any) -> tuple[State, Report]:
        """One period: ``(state, games, rules) -> (state, report)``."""
        raise NotImplementedError(f"{type(self).__name__} must implement step")

    def absorb(self, state: State, games: PeriodGames, rules: Any) -> State:
        """Add a period's games when only a later state is needed (the backtest's
        training periods). Default: ``step`` and drop the report; a system whose
        later step re-estimates everything anyway (WHR) just stores the games."""
        return self.step(state, games, rules)[0]

    def closing_periods(self, last: int, rules: Any) -> list[int]:
        """Periods after ``last`` (the pool's last period with games) that a run walks
        without games, because results of ``last`` are published only then (FIDE's
        two-monthly lists: the month that closes ``last``'s rating period). Default: none."""
        return []

    def list_periods(self, rated: list[int]) -> list[int]:
        """The periods of ``rated`` (ascending) whose ratings were published as a list,
        under the rules in force then (``arpad list --in-force``). Default: every
        period."""
        return rated

    def placed_games(
        self,
        stored: list[int],
        events: Callable[[int], dict[str | None, EventGames]],
        rules_for: Callable[[int], Any],
    ) -> tuple[list[Placement], list[str]]:
        """Games dated only to the year that a run walks in another period than the one
        they are stored in, and notes saying so (ECF: such games of an event that began
        the year before are graded in its season, docs/legacy-systems.md "Games dated
        only to the year"). ``stored``: the pool's periods with games (ascending);
        ``events(period)``: that period's stored games per event id (None: no event id);
        ``rules_for``: period -> rules. Called only when ``places_games``. Default: none."""
        return [], []

    def closing_periods_within(
        self, stored: list[int], rules_for: Callable[[int], Any]
    ) -> list[int]:
        """Periods before or between the pool's ``stored`` periods (ascending, with games)
        that a run walks without games, because results are published only then
        (ECF: the closing month of every season that holds games; FIDE: of every
        two-monthly rating period; ``rules_for``: period -> rules). The engine merges them
        with ``stored`` and ``closing_periods``. Default: none."""
        return []

    def revises_history(self, rules: Any) -> bool:
        """True when a run's reports are all replaced at its end by ``history_reports``
        under these rules (WHR with ``retroactive`` on): the engine then only ``absorb``s
        the periods before the last one instead of stepping and writing them (docs/whr.md
        "In the pipeline"). Default: ``retroactive``."""
        return self.retroactive

    def history_reports(self, state: State, walked: list[int], rules: Any) -> dict[int, Report]:
        """Revised reports of the ``walked`` periods from the final ``state`` (called
        at the end of a run when ``retroactive``). Default: ``{}`` (nothing revised)."""
        return {}

    def expected_scores(
        self,
        white: np.ndarray,
        black: np.ndarray,
        white_rd: np.ndarray,
        black_rd: np.ndarray,
        rules: Any,
    ) -> np.ndarray:
        """White's expected score per pairing from the two ratings (and RDs, NaN where
        the system has none), by the system's own formula (``arpad.predict``). Default:
        the logistic curve 1/(1 + 10^(−(W − B)/400))."""
        return 1.0 / (1.0 + 10.0 ** (-(white - black) / 400.0))

    def current_rating(self, state: State) -> tuple[np.ndarray, np.ndarray | None]:
        """(rating, rd or None) per player from ``state``, NaN where a player has none.
        Default: ``players["rating"]`` and ``players["rd"]`` when the state has it."""
        p = state.players
        rating = np.asarray(p["rating"], dtype=np.float64).copy()
        rd = p.get("rd")
        return rating, None if rd is None else np.asarray(rd, dtype=np.float64).copy()


# -- dated rule versions (docs/rules.md "Dated versions") -----------------------------------
def pick_version(versions: typing.Sequence[Any], day: str) -> Any:
    """The last version whose ``effective`` date (ISO) is on or before ``day``;
    the oldest one for a day before the first."""
    chosen = versions[0]
    for version in versions:
        if version.effective <= day:
            chosen = version
    return chosen


def before_oldest_note(
    system: RatingSystem, pool: str, day: str, subject: str, uses: str = "the run uses it"
) -> str | None:
    """``{subject} before the oldest version arpad carries (EFFECTIVE); {uses} (NAME)``
    and the known differences (``rules_before_oldest``) when ``day`` (ISO) is before the
    oldest dated version of ``pool``; None otherwise or for a system without versions.
    The note of ``--rules DATE``, ``arpad rules --at`` and ``early_periods_note``."""
    versions = system.rule_versions(pool)
    if not versions or str(day) >= str(versions[0].effective):
        return None
    oldest = versions[0]
    text = (
        f"{subject} before the oldest version arpad carries ({oldest.effective}); "
        f"{uses} ({system.rules_name(oldest)})"
    )
    known = system.rules_before_oldest(pool)
    return f"{text}; known differences: {known}" if known else text


def early_periods_note(
    system: RatingSystem, pool: str, walked: typing.Iterable[int], label: str | None = None
) -> str | None:
    """A run whose rules were chosen by date (no ``--rules``) that walked calendar periods
    before the oldest dated version of ``pool``: ``before_oldest_note`` naming them (the
    run used the oldest version for them, docs/fide-history.md "Before 2009-07"); else None."""
    versions = system.rule_versions(pool)
    if not versions:
        return None
    first = str(versions[0].effective)
    early = []
    for period in walked:
        day = periods.first_day(period)
        if day is not None and day.isoformat() < first:
            early.append(period)
    if not early:
        return None
    early.sort()
    span = f"period {early[0]} is" if len(early) == 1 else f"periods {early[0]}..{early[-1]} are"
    subject = f"{label or f'{system.name}/{pool}'}: {span}"
    return before_oldest_note(system, pool, periods.first_day(early[0]).isoformat(), subject)


def version_for_period(versions: typing.Sequence[Any], period: int) -> Any:
    """The version in force on a calendar period's first day; the latest for
    abstract periods (no calendar)."""
    day = periods.first_day(period)
    if day is None:
        return versions[-1]
    return pick_version(versions, day.isoformat())


def parse_rules_date(spec: str | int, versions: typing.Sequence[Any] = ()) -> str:
    """``--rules`` dates → ISO day: '2014-07-15' as is, '2014-07' and '201407' → the
    month's first day, '2014' → 1 December 2014 (the year's last list). A date after
    the latest month a period may be (``periods.last_month``: next month) is refused as
    in the future, naming the latest of ``versions`` (the system's dated versions)."""
    text = str(spec).strip()
    if re.fullmatch(r"\d{4}", text):
        text += "12"
    month = re.fullmatch(r"(\d{4})-?(\d{2})", text)
    first = None
    try:
        if month:
            first = dt.date(int(month[1]), int(month[2]), 1)
            if periods.period_of_date(first) < periods.FIRST_MONTH:
                first = None
        elif len(text) == 10 and text[4] == "-" and text[7] == "-":
            first = dt.date.fromisoformat(text)
    except ValueError:
        first = None
    if first is None:
        raise ValueError(
            f"--rules takes a date (YYYY, YYYY-MM, YYYY-MM-DD, YYYYMM) or a file: {spec!r}"
        )
    last = periods.last_month()
    if periods.period_of_date(first) > last:
        latest = (
            f"; the latest version arpad carries is in force from {versions[-1].effective}"
            if versions
            else ""
        )
        raise ValueError(
            f"--rules {spec!r}: {first.isoformat()} is in the future (the latest month a "
            f"date may name is {last // 100}-{last % 100:02d}){latest}; leave --rules out "
            "for the version in force in each period"
        )
    return first.isoformat()


def rule_range(rules_type: type, key: str) -> tuple[float, float] | None:
    """The declared valid range [lo, hi] of a rules field (the rules class's ``RANGES``),
    None for fields without one (text and on/off fields)."""
    ranges: dict[str, tuple[float, float]] = getattr(rules_type, "RANGES", {})
    return ranges.get(key)


def check_rule_text(rules_type: type, key: str, text: str) -> None:
    """Raise a one-line ValueError naming the field when a text rules value is not in its
    field's format: the rules class's ``FORMATS`` (field -> check raising ValueError with
    the reason), else an ISO date (YYYY-MM-DD) for ``effective`` and ``*_date`` fields
    (FIDE ``compression_date``); other text fields are free."""
    formats: dict[str, Callable[[str], None]] = getattr(rules_type, "FORMATS", {})
    check = formats.get(key)
    if check is None and (key == "effective" or key.endswith("_date")):
        check = iso_date
    if check is None:
        return
    try:
        check(text)
    except ValueError as exc:
        raise ValueError(
            f"rule {key}: cannot read {text!r}: {exc} ({rules_type.__name__}.{key})"
        ) from None


def iso_date(text: str) -> None:
    """A text rule field holding a day: ValueError unless ``YYYY-MM-DD`` and a real day
    (versions compare these as text: ``20240301`` would sort wrong)."""
    try:
        ok = len(text) == 10 and text[4] == text[7] == "-" and bool(dt.date.fromisoformat(text))
    except ValueError:
        ok = False
    if not ok:
        raise ValueError("not a day YYYY-MM-DD (e.g. '2024-03-01')")


def check_rule_value(rules_type: type, key: str, value: Any) -> None:
    """Raise a one-line ValueError naming field, value and valid range when a rules
    value is NaN/±inf or outside its declared range (docs/rules.md "Valid ranges"),
    or a text value is not in its field's format (``check_rule_text``)."""
    if isinstance(value, str):
        check_rule_text(rules_type, key, value)
        return
    if value is None or isinstance(value, bool):
        return
    bounds = rule_range(rules_type, key)
    where = f"{rules_type.__name__}.{key}"
    valid = f"valid range {bounds[0]:g}..{bounds[1]:g}" if bounds else "no declared range"
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"rule {key}={value}: not a finite number ({where}, {valid})")
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"rule {key}={value}: out of range ({where}, {valid})")


def check_rules(rules: Any) -> Any:
    """Every numeric field of ``rules`` within its declared range (``check_rule_value``)."""
    for f in dataclasses.fields(rules):
        check_rule_value(type(rules), f.name, getattr(rules, f.name))
    return rules


def apply_overrides(rules: Any, overrides: dict[str, str]) -> Any:
    """dataclasses.replace with values parsed to each field's type (``--set key=value``);
    NaN, ±inf and values outside a field's declared range are refused. Rules with a
    ``name`` field are renamed after the fields that differ from ``rules``
    (``USCF 2017 + n_star_formula=2004``, ``overridden_name``) unless ``name`` is one
    of the overrides: the stored ``rules`` column and the run summary tell an
    overridden run from the version's (docs/rules.md "Changing a rule for one run")."""
    if not overrides:
        return rules
    changes = rule_changes(rules, overrides, parse_rule_value)
    if "name" not in changes and "name" in {f.name for f in dataclasses.fields(rules)}:
        changes["name"] = overridden_name(str(rules.name), rules, changes)
    return dataclasses.replace(rules, **changes)


def overridden_name(name: str, base: Any, changes: dict[str, Any]) -> str:
    """``name`` (of ``base``) + `` + key=value`` for each field of ``changes`` whose value
    differs from ``base``'s, sorted by key: ``USCF 2017 + bonus=false + k_numerator=900``.
    The notes a ``name`` already carries (rules overridden twice) are kept, a key set
    again taking its new value; a ``+`` that is not such a note is part of the name."""
    fields = {f.name for f in dataclasses.fields(base)}
    head, *parts = name.split(" + ")
    notes: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or key not in fields:  # the name's own " + ": no notes to merge
            head, notes = name, {}
            break
        notes[key] = value
    for key, value in changes.items():
        if key != "name" and value != getattr(base, key):
            notes[key] = rule_text(value)
    return " + ".join([head, *(f"{key}={notes[key]}" for key in sorted(notes))])


def rule_text(value: Any) -> str:
    """A rule value as ``--set`` takes it back: ``true``/``false``, ``none``, a whole float
    without ``.0`` (``900``), other floats exactly (``repr``), text as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def rule_changes(
    rules: Any, values: dict[str, Any], parse: Callable[[Any, Any, str], Any]
) -> dict[str, Any]:
    """``values`` as field changes of ``rules``: each name a field of the rules type,
    each value read by ``parse(value, field type, name)`` and within the field's range
    (one-line ValueError otherwise). ``--set`` reads text; a rules file JSON values."""
    fields = {f.name for f in dataclasses.fields(rules)}
    hints = typing.get_type_hints(type(rules))
    changes = {}
    for key, value in values.items():
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ValueError(
                f"unknown rule field {key!r} for {type(rules).__name__} (known: {known})"
            )
        changes[key] = parse(value, hints[key], key)
        check_rule_value(type(rules), key, changes[key])
    return changes


def parse_rule_value(text: str, hint: Any, key: str) -> Any:
    """A rule value given as text (``--set key=value``, a string in a rules file) read as
    the field's type ``hint``; one-line ValueError when it cannot be."""
    if not isinstance(text, str):
        return text
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if text.lower() in ("none", "null", ""):
            if type(None) in args:
                return None
        hint = next(a for a in args if a is not type(None))
    try:
        if hint is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if hint is int:
            return int(text)
        if hint is float:
            return float(text)
        if hint is str:
            return text
    except ValueError:
        raise ValueError(f"rule {key}: cannot read {text!r} as {hint.__name__}") from None
    raise ValueError(f"rule {key} cannot be set from the command line")
