"""Harkness and Ingo: ratings recomputed from each event's results (docs/legacy-systems.md).

A player's CSR entries are ordered by event (``entry_event``; all −1 = the
whole period is one event). Per event, over the games against opponents who
have a rating (``opp_rating`` per entry: the opponents' ratings at the start of
the period, or at the start of the event for an event that began in an earlier
period):

* Harkness (USCF 1950–1960): new = Rc + f·(100·p − 50), f = 10, Rc the
  average opponent rating, p the score fraction. The old rating does not enter.
* Ingo (Hösslinger; lower is better): P = N − (100·p − 50), N the average
  opponent Ingo; new = P (``METHOD_INGO_PERFORMANCE``) or
  new = w·old + (1 − w)·P with w = 0.75 (``METHOD_INGO_DSB``; P for a player
  without a number). Expected score per game 0.5 + clamp(opp − own, ±cap)/100.

An event that continues from an earlier period (``prior_games`` ≥ 0 on its
entries: the games, score and opponents' rating sum it had then, and the
player's rating before it) is rated once more as a whole: its earlier sums are
added to the period's, and DSB's old rating is the one before the event.

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
    before: np.ndarray  # float64 per entry: the player's rating before the entry's event


@jit_parallel
def _event_ratings(
    rating,
    offsets,
    opp_rating,
    own_rating,
    own_score,
    entry_event,
    prior_games,
    prior_score,
    prior_sum,
    prior_before,
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
    before = np.full(opp_rating.shape[0], np.nan)
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
            first = j
            g = 0
            s = 0.0
            r = 0.0
            while j < hi and entry_event[j] == ev:
                o = opp_rating[j]
                if o == o:
                    g += 1
                    s += own_score[j]
                    r += o
                    own = own_rating[j]
                    if ingo and own == own:
                        d = o - own
                        if d > expected_cap:
                            d = expected_cap
                        elif d < -expected_cap:
                            d = -expected_cap
                        total_e += 0.5 + d / 100.0
                j += 1
            old = current
            earlier = prior_games[first]
            if earlier >= 0:  # the event began in an earlier period: rated as a whole
                old = prior_before[first]
            for k in range(first, j):
                before[k] = old
            if g == 0:
                continue
            total_g += g
            total_s += s
            total_r += r
            if earlier > 0:
                g_all = g + earlier
                value = (r + prior_sum[first]) / g_all + sign * factor * (
                    100.0 * (s + prior_score[first]) / g_all - 50.0
                )
            else:
                value = r / g + sign * factor * (100.0 * s / g - 50.0)
            if method == 2 and old == old:
                value = old_weight * old + (1.0 - old_weight) * value
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
    return games, score, events, after, performance, expected, before


class Prior(NamedTuple):
    """Per CSR entry, the earlier periods of the entry's event (``event_ratings``):
    ``games`` −1 for an event that begins in this period."""

    games: np.ndarray  # int64: games against rated opponents before this period, −1 = none
    score: np.ndarray  # float64: their score
    opponents: np.ndarray  # float64: the sum of their opponents' ratings
    before: np.ndarray  # float64: the player's rating before the event (NaN = none)


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
    opp_rating: np.ndarray | None = None,
    own_rating: np.ndarray | None = None,
    prior: Prior | None = None,
) -> EventRatingResult:
    """Harkness or Ingo ratings after the period's events (module docstring).

    ``rating`` float64[n] (NaN = none); ``entry_event`` int32 per CSR entry,
    each player's entries sorted so that one event's games are contiguous.
    For Ingo, ``factor`` is 1 (one Ingo point per percentage point).
    ``opp_rating`` / ``own_rating`` (float64 per entry): the opponent's and the
    player's rating for the entry's game, default ``rating`` of each at the start of
    the period; ``prior``: the entries' events' earlier periods (default: none).
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
    if opp_rating is None:
        opp_rating = rating[opponent]
    if own_rating is None:
        own_rating = np.repeat(rating, np.diff(offsets))
    if prior is None:
        prior = Prior(
            np.full(entries, -1, dtype=np.int64),
            np.zeros(entries),
            np.zeros(entries),
            np.full(entries, np.nan),
        )
    per_entry = [opp_rating, own_rating, *prior]
    if any(np.shape(a) != (entries,) for a in per_entry):
        raise ValueError("opp_rating, own_rating and prior need one entry per CSR entry")
    return EventRatingResult(
        *by_work(_event_ratings, n + entries)(
            rating,
            offsets,
            np.ascontiguousarray(opp_rating, dtype=np.float64),
            np.ascontiguousarray(own_rating, dtype=np.float64),
            own_score,
            entry_event,
            np.ascontiguousarray(prior.games, dtype=np.int64),
            np.ascontiguousarray(prior.score, dtype=np.float64),
            np.ascontiguousarray(prior.opponents, dtype=np.float64),
            np.ascontiguousarray(prior.before, dtype=np.float64),
            int(method),
            float(factor),
            float(old_weight),
            float(expected_cap),
            bool(round_result),
        )
    )
