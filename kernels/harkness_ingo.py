"""Harkness and Ingo: ratings recomputed from each event's results (docs/legacy-systems.md).

A player's CSR entries are ordered by event (``entry_event``; all −1 = the
whole period is one event). Per event, over the games against opponents who
have a rating (opponents' ratings are those at the start of the period):

* Harkness (USCF 1950–1960): new = Rc + f·(100·p − 50), f = 10, Rc the
  average opponent rating, p the score fraction. The old rating does not enter.
* Ingo (Hösslinger; lower is better): P = N − (100·p − 50), N the average
  opponent Ingo; new = P (``METHOD_INGO_PERFORMANCE``) or
  new = w·old + (1 − w)·P with w = 0.75 (``METHOD_INGO_DSB``; P for a player
  without a number). Expected score per game 0.5 + clamp(opp − own, ±cap)/100.

With ``round_result`` each event's result is rounded to an integer, half away
from zero (1577.27 → 1577; 109.09 → 109). The outer loop is a ``prange`` over
players; each player owns its output.
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit_parallel, prange
from arpad.kernels.rounding import round_half_away

METHOD_HARKNESS = 0
METHOD_INGO_PERFORMANCE = 1
METHOD_INGO_DSB = 2


class EventRatingResult(NamedTuple):
    games: np.ndarray  # int32: games against opponents with a rating
    score: np.ndarray  # float64
    events: np.ndarray  # int32: events that changed the rating
    rating_after: np.ndarray  # float64 (NaN: still without a rating)
    performance: np.ndarray  # float64: the formula over all the period's games
    expected: np.ndarray  # float64: Ingo expected score (NaN for Harkness)


@jit_parallel
def _event_ratings(
    rating,
    offsets,
    opponent,
    own_score,
    entry_event,
    method,
    factor,
    old_weight,
    expected_cap,
    round_result,
):
    n = rating.shape[0]
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    events = np.zeros(n, dtype=np.int32)
    after = rating.copy()
    performance = np.full(n, np.nan)
    expected = np.full(n, np.nan)
    ingo = method != 0
    sign = -1.0 if ingo else 1.0  # Ingo: a better score lowers the number
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        total_g = 0
        total_s = 0.0
        total_r = 0.0
        total_e = 0.0
        current = rating[p]
        j = lo
        while j < hi:
            ev = entry_event[j]
            g = 0
            s = 0.0
            r = 0.0
            while j < hi and entry_event[j] == ev:
                o = rating[opponent[j]]
                if o == o:
                    g += 1
                    s += own_score[j]
                    r += o
                    if ingo and rating[p] == rating[p]:
                        d = o - rating[p]
                        if d > expected_cap:
                            d = expected_cap
                        elif d < -expected_cap:
                            d = -expected_cap
                        total_e += 0.5 + d / 100.0
                j += 1
            if g == 0:
                continue
            total_g += g
            total_s += s
            total_r += r
            value = r / g + sign * factor * (100.0 * s / g - 50.0)
            if method == 2 and current == current:
                value = old_weight * current + (1.0 - old_weight) * value
            if round_result:
                value = round_half_away(value)
            current = value
            events[p] += 1
        games[p] = total_g
        score[p] = total_s
        after[p] = current
        if total_g > 0:
            performance[p] = total_r / total_g + sign * factor * (100.0 * total_s / total_g - 50.0)
            if ingo and rating[p] == rating[p]:
                expected[p] = total_e
    return games, score, events, after, performance, expected


def event_ratings(
    rating: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    entry_event: np.ndarray,
    method: int,
    factor: float = 10.0,
    old_weight: float = 0.75,
    expected_cap: float = 40.0,
    round_result: bool = True,
) -> EventRatingResult:
    """Harkness or Ingo ratings after the period's events (module docstring).

    ``rating`` float64[n] (NaN = none); ``entry_event`` int32 per CSR entry,
    each player's entries sorted so that one event's games are contiguous.
    For Ingo, ``factor`` is 1 (one Ingo point per percentage point).
    """
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    opponent = np.ascontiguousarray(opponent, dtype=np.int32)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    entry_event = np.ascontiguousarray(entry_event, dtype=np.int32)
    n = rating.shape[0]
    if offsets.shape != (n + 1,):
        raise ValueError("offsets must have n_players + 1 entries")
    entries = int(offsets[-1])
    if not (opponent.shape == own_score.shape == entry_event.shape == (entries,)):
        raise ValueError("opponent, own_score and entry_event need one entry per CSR entry")
    if method not in (METHOD_HARKNESS, METHOD_INGO_PERFORMANCE, METHOD_INGO_DSB):
        raise ValueError(f"unknown method {method}")
    return EventRatingResult(
        *by_work(_event_ratings, n + entries)(
            rating,
            offsets,
            opponent,
            own_score,
            entry_event,
            int(method),
            float(factor),
            float(old_weight),
            float(expected_cap),
            bool(round_result),
        )
    )
