"""The shape every rating system shares.

``step(state, games, rules) -> (state, report)``: the state one period
produces is exactly what the next period accepts, so periods chain and any
period can be re-run from a checkpoint. Players are dense integers 0..n-1
inside a run; every per-player array has n entries.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

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

    @property
    def n(self) -> int:
        return int(self.player_id.shape[0])


@dataclass
class PeriodGames:
    """One period's rated games of one pool, with the CSR grouping by player."""

    period: int
    previous_period: int | None  # the period walked before this one (None = first)
    elapsed: int  # periods (months) since the previous walked period, ≥ 1
    year: int | None  # calendar year of the period, None for abstract periods
    n_players: int
    white: np.ndarray  # int32[g]
    black: np.ndarray  # int32[g]
    score: np.ndarray  # float64[g], White's score
    event: np.ndarray  # int32[g], dense event index, -1 = unknown
    offsets: np.ndarray  # int64[n + 1]
    opponent: np.ndarray  # int32[2g]
    own_score: np.ndarray  # float64[2g]
    is_white: np.ndarray  # bool[2g]
    game: np.ndarray  # int32[2g]

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
    ) -> PeriodGames:
        """A period's games from flat arrays: the CSR grouping, elapsed months and year."""
        from arpad.kernels.csr import group_by_player
        from arpad.pipeline import periods

        white = np.ascontiguousarray(white, dtype=np.int32)
        black = np.ascontiguousarray(black, dtype=np.int32)
        score = np.ascontiguousarray(score, dtype=np.float64)
        if event is None:
            event = np.full(white.shape[0], -1, dtype=np.int32)
        grouped = group_by_player(white, black, score, n_players)
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
            offsets=grouped.offsets,
            opponent=grouped.opponent,
            own_score=grouped.score,
            is_white=grouped.is_white,
            game=grouped.game,
        )

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
        )

    @property
    def n_games(self) -> int:
        return int(self.white.shape[0])

    def games_per_player(self) -> np.ndarray:
        return np.diff(self.offsets)


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


class RatingSystem(Protocol):
    name: str
    rules_type: ClassVar[type]

    def rules_for(self, period: int, pool: str) -> Any:
        """The rules in force for ``period`` (dated versions where the system has them)."""

    def initial_state(self, players: PlayerInfo, rules: Any) -> State: ...

    def step(self, state: State, games: PeriodGames, rules: Any) -> tuple[State, Report]: ...


def apply_overrides(rules: Any, overrides: dict[str, str]) -> Any:
    """dataclasses.replace with values parsed to each field's type (``--set key=value``)."""
    if not overrides:
        return rules
    fields = {f.name: f for f in dataclasses.fields(rules)}
    hints = typing.get_type_hints(type(rules))
    changes = {}
    for key, text in overrides.items():
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ValueError(
                f"unknown rule field {key!r} for {type(rules).__name__} (known: {known})"
            )
        changes[key] = _parse_value(text, hints[key], key)
    return dataclasses.replace(rules, **changes)


def _parse_value(text: str, hint: Any, key: str) -> Any:
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
