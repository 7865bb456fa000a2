"""The shared loop of the systems that recompute a rating from each event's results
(Harkness, Ingo): per event when the games carry an event id, else per period.

Only the formula differs between them (``kernels.harkness_ingo``); each system
module holds its rules and says which formula it uses.

An event whose games fall in consecutive periods (a match from July to August, a
tournament over the New Year) is one event (docs/legacy-systems.md "Events over
several months"): the state table ``events`` keeps, per player and event of the last
period, the event's games so far, and the event's later games rate it again as a whole,
with everybody's ratings at the start of the event (rules ``event_months``).
"""

from __future__ import annotations

import numpy as np

from arpad.kernels.harkness_ingo import Prior, event_ratings
from arpad.pipeline import periods
from arpad.pipeline.systems.base import (
    INACTIVE,
    NEW,
    NOT_REPORTED,
    RATED,
    PeriodGames,
    Report,
    State,
)

# The state table of the events a later period may continue: one row per player and
# event of the last rated period (``event`` the engine's key of the event id).
EVENT_COLUMNS = {
    "player": np.int64,
    "event": np.int64,
    "first": np.int64,  # the period the player's event began in
    "last": np.int64,  # the period of its latest games
    "start": np.float64,  # the player's rating at the start of the event (NaN = none)
    "before": np.float64,  # the player's rating before the event (Ingo DSB's old)
    "games": np.int64,  # games against rated opponents so far
    "score": np.float64,
    "opponents": np.float64,  # the sum of those opponents' ratings
}


def empty_events() -> dict[str, np.ndarray]:
    """The ``events`` state table without rows (a system's ``initial_state``)."""
    return {name: np.empty(0, dtype=kind) for name, kind in EVENT_COLUMNS.items()}


def _sorted_entries(games: PeriodGames) -> np.ndarray:
    """The order that makes one event's games contiguous in each player's CSR entries."""
    entry_event = games.event[games.game].astype(np.int64)
    entry_player = np.repeat(np.arange(games.n_players), np.diff(games.offsets))
    return np.lexsort((entry_event, entry_player))  # stable: input order within an event


def entries_by_event(games: PeriodGames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each player's CSR entries reordered so one event's games are contiguous.

    Events are taken in the order of their dense index (the engine's sorted
    event ids); unknown events (−1) form one unit per period. Returns
    (opponent, own_score, entry_event) in the new order (offsets are unchanged).
    """
    order = _sorted_entries(games)
    entry_event = games.event[games.game][order].astype(np.int32)
    return games.opponent[order], games.own_score[order], entry_event


class _OpenEvents:
    """The rows of the ``events`` table found by (player, event key)."""

    def __init__(self, table: dict[str, np.ndarray]):
        self.events = np.unique(table["event"])  # the last period's events: few
        self.width = int(table["player"].max()) + 1
        rows = np.searchsorted(self.events, table["event"]) * self.width + table["player"]
        self.order = np.argsort(rows, kind="stable")
        self.rows = rows[self.order]

    def find(self, players: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """The row for each (player, event key), −1 where there is none."""
        found = np.full(players.shape[0], -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.events, keys), self.events.size - 1)
        ask = np.flatnonzero((self.events[at] == keys) & (keys >= 0) & (players < self.width))
        if ask.size:
            wanted = at[ask] * self.width + players[ask]
            row = np.minimum(np.searchsorted(self.rows, wanted), self.rows.size - 1)
            hit = self.rows[row] == wanted
            found[ask[hit]] = self.order[row[hit]]
        return found


def _take(column: np.ndarray, rows: np.ndarray, default) -> np.ndarray:
    """``column[rows]`` where a row is ≥ 0, else ``default`` (a value or an array)."""
    if column.size == 0:
        return np.broadcast_to(np.asarray(default, dtype=column.dtype), rows.shape).copy()
    return np.where(rows >= 0, column[np.maximum(rows, 0)], default)


def _months_since(values: np.ndarray, period: int) -> np.ndarray:
    """Months from each period of ``values`` to ``period`` (``periods.months_between``)."""
    if values.size and values.min() == values.max():  # the usual case: one period
        return np.full(values.shape, periods.months_between(int(values[0]), period))
    distinct, inverse = np.unique(values, return_inverse=True)
    months = [periods.months_between(int(p), period) for p in distinct]
    return np.asarray(months, dtype=np.int64)[inverse]


def _continuing(table: dict[str, np.ndarray], period: int, months: int) -> dict:
    """The rows of ``table`` whose event may go on in ``period``: its latest games in the
    month before, begun fewer than ``months`` months before."""
    if table["player"].size == 0:
        return table
    keep = (_months_since(table["last"], period) == 1) & (
        _months_since(table["first"], period) < months
    )
    return {name: values[keep] for name, values in table.items()}


def rate_events(
    state: State,
    games: PeriodGames,
    method: int,
    factor: float,
    event_months: int = 1,
    **formula,
) -> tuple[State, Report]:
    """One period of an event-based system whose state is ``players['rating']`` (NaN =
    none) and the ``events`` table (module docstring). ``event_months``: the most
    consecutive periods one event id is rated over as one event (1: each period's games
    of an event are an event of their own)."""
    rating = state.players["rating"]
    n = games.n_players
    order = _sorted_entries(games)
    opponent = games.opponent[order]
    own_score = games.own_score[order]
    entry_event = games.event[games.game][order].astype(np.int32)
    entry_player = np.repeat(np.arange(n, dtype=np.int64), np.diff(games.offsets))
    opp_rating = rating[opponent]
    own_rating = rating[entry_player]
    keyed = event_months > 1 and games.event_key is not None
    key = games.event_key[games.game][order] if keyed else None
    prior = None
    mine = np.full(opponent.shape[0], -1, dtype=np.int64)
    open_events = empty_events()
    if keyed and (key >= 0).any():
        table = state.tables.get("events", empty_events())
        open_events = _continuing(table, games.period, event_months)
        if open_events["player"].size:  # only the events this period goes on with
            going = np.isin(open_events["event"], np.unique(games.event_key))
            open_events = {name: values[going] for name, values in open_events.items()}
    if open_events["player"].size:
        index = _OpenEvents(open_events)
        mine = index.find(entry_player, key)
        theirs = index.find(opponent.astype(np.int64), key)
        # every game of an event is rated with the ratings at the event's start
        opp_rating = _take(open_events["start"], theirs, opp_rating)
        own_rating = _take(open_events["start"], mine, own_rating)
        if (mine >= 0).any():
            prior = Prior(
                _take(open_events["games"], mine, -1),
                _take(open_events["score"], mine, 0.0),
                _take(open_events["opponents"], mine, 0.0),
                _take(open_events["before"], mine, np.nan),
            )
    res = event_ratings(
        rating,
        games.offsets,
        opponent,
        own_score,
        entry_event,
        method,
        factor,
        opp_rating=opp_rating,
        own_rating=own_rating,
        prior=prior,
        **formula,
    )
    had = ~np.isnan(rating)
    changed = res.events > 0
    status = np.full(n, NOT_REPORTED, dtype=np.int8)
    status[had] = INACTIVE
    status[had & changed] = RATED
    status[~had & changed] = NEW
    report = Report(
        columns={
            "rating_before": rating,
            "rating_after": res.rating_after,
            "games": res.games,
            "score": res.score,
            "expected": res.expected,
            "change": np.where(had & changed, res.rating_after - rating, np.nan),
            "performance": res.performance,
        },
        status=status,
        extra={"events": res.events},
    )
    tables = {}
    if "events" in state.tables or keyed:
        tables["events"] = empty_events()
        if keyed:
            tables["events"] = _next_events(
                games.period, event_months, rating, entry_player, entry_event, key,
                opp_rating, own_score, res.before, mine, open_events,
            )  # fmt: skip
    return State(players={"rating": res.rating_after}, tables=tables), report


def _next_events(
    period, months, rating, entry_player, entry_event, key, opp_rating, own_score, before,
    mine, open_events,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The ``events`` table after ``period``: per player and event of its games (entries
    sorted by player, then event), the event so far, if it may still go on next month."""
    if not (key >= 0).any():
        return empty_events()
    edge = np.ones(key.size, dtype=bool)
    edge[1:] = (entry_player[1:] != entry_player[:-1]) | (entry_event[1:] != entry_event[:-1])
    starts = np.flatnonzero(edge)
    rated = ~np.isnan(opp_rating)
    g = np.add.reduceat(rated.astype(np.int64), starts)
    s = np.add.reduceat(np.where(rated, own_score, 0.0), starts)
    r = np.add.reduceat(np.where(rated, opp_rating, 0.0), starts)
    player, event, row = entry_player[starts], key[starts], mine[starts]
    first = _take(open_events["first"], row, period).astype(np.int64)
    table = {
        "player": player,
        "event": event,
        "first": first,
        "last": np.full(starts.size, period, dtype=np.int64),
        "start": _take(open_events["start"], row, rating[player]),
        "before": before[starts],
        "games": _take(open_events["games"], row, 0) + g,
        "score": _take(open_events["score"], row, 0.0) + s,
        "opponents": _take(open_events["opponents"], row, 0.0) + r,
    }
    # (rows by player, then event as the period rates them: a sharded step's merge by
    # player keeps each shard's order, so both give the same table)
    keep = (event >= 0) & (_months_since(first, period) + 1 < months)
    return {name: np.asarray(values[keep], EVENT_COLUMNS[name]) for name, values in table.items()}
