"""The shared loop of the systems that recompute a rating from each event's results
(Harkness, Ingo): per event when the games carry an event id, else per period.

Only the formula differs between them (``kernels.harkness_ingo``); each system
module holds its rules and says which formula it uses.
"""

from __future__ import annotations

import numpy as np

from arpad.kernels.harkness_ingo import event_ratings
from arpad.pipeline.systems.base import (
    INACTIVE,
    NEW,
    NOT_REPORTED,
    RATED,
    PeriodGames,
    Report,
    State,
)


def entries_by_event(games: PeriodGames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each player's CSR entries reordered so one event's games are contiguous.

    Events are taken in the order of their dense index (the engine's sorted
    event ids); unknown events (−1) form one unit per period. Returns
    (opponent, own_score, entry_event) in the new order (offsets are unchanged).
    """
    entry_event = games.event[games.game].astype(np.int64)
    entry_player = np.repeat(np.arange(games.n_players), np.diff(games.offsets))
    order = np.lexsort((entry_event, entry_player))  # stable: input order within an event
    return games.opponent[order], games.own_score[order], entry_event[order].astype(np.int32)


def rate_events(
    state: State, games: PeriodGames, method: int, factor: float, **formula
) -> tuple[State, Report]:
    """One period of an event-based system whose state is ``players['rating']`` (NaN = none)."""
    rating = state.players["rating"]
    opponent, own_score, entry_event = entries_by_event(games)
    res = event_ratings(
        rating, games.offsets, opponent, own_score, entry_event, method, factor, **formula
    )
    had = ~np.isnan(rating)
    changed = res.events > 0
    status = np.full(games.n_players, NOT_REPORTED, dtype=np.int8)
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
    return State(players={"rating": res.rating_after}), report
