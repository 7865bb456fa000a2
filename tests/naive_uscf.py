"""Naive USCF event rating: dicts, one player and one game at a time, the five steps
written out (Glickman & Doan; docs/uscf.md). The special formula is solved by bisection
(not by the kernel's corner search), so the two share no algorithm."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field


def n_star(r0, formula="2015"):
    if formula == "2004":
        return 50.0 if r0 > 2200 else 50 / math.sqrt(1 + (2200 - r0) ** 2 / 100000)
    return 50.0 if r0 > 2355 else 50 / math.sqrt(0.662 + 0.00000739 * (2569 - r0) ** 2)


def pwe(r, ri):
    if r <= ri - 400:
        return 0.0
    if r >= ri + 400:
        return 1.0
    return 0.5 + (r - ri) / 800


def special(prior, prior_adj, n_eff, opps, score_adj):
    """The R with N'·PWe(R, R0') + Σ PWe(R, Ri) = S'; on a flat stretch, R0 clipped into it."""

    def f(r):
        return n_eff * pwe(r, prior_adj) + sum(pwe(r, o) for o in opps) - score_adj

    lo_bound = min([*opps, prior_adj]) - 1000
    hi_bound = max([*opps, prior_adj]) + 1000

    def first_above(level):  # smallest R with f(R) > level, by bisection
        a, b = lo_bound, hi_bound
        if f(a) > level:
            return -math.inf
        if f(b) <= level:
            return math.inf
        for _ in range(200):
            mid = (a + b) / 2
            if f(mid) > level:
                b = mid
            else:
                a = mid
        return b

    low = first_above(-1e-9)
    high = first_above(1e-9)
    if high - low < 1e-6:
        return (low + high) / 2
    return min(max(prior, low), high)


@dataclass
class Player:
    rating: float | None = None  # None = unrated
    n: int = 0
    all_wins: bool = False
    all_losses: bool = False
    wins: int = 0
    draws: int = 0
    events_3: int = 0
    peak: float | None = None
    history: list = field(default_factory=list)


@dataclass
class Rules:
    formula: str = "2015"
    b: float = 14.0
    initial: float = 1300.0
    prior_games_step3: float = 1.0
    white_advantage: float = 0.0
    floors: bool = True


def rate_event(players: dict[str, Player], games: list[tuple], rules: Rules | None = None):
    """Rate one event in place; ``games`` are (white, black, white's score)."""
    rules = rules or Rules()
    in_event = sorted({p for g in games for p in g[:2]})
    mine = {p: [] for p in in_event}  # (opponent, score, colour sign)
    for w, b, s in games:
        mine[w].append((b, s, +1))
        mine[b].append((w, 1 - s, -1))
    adv = rules.white_advantage
    # Step 1 and 2
    r0 = {p: players[p].rating if players[p].n > 0 else rules.initial for p in in_event}
    n = {p: players[p].n for p in in_event}
    n_eff = {p: min(n[p], n_star(r0[p], rules.formula)) for p in in_event}
    # Step 3: N = 0 players, against rated opponents only
    first = dict(r0)
    for p in in_event:
        if n[p] > 0:
            continue
        rated = [(o, s, c) for o, s, c in mine[p] if n[o] > 0]
        if rated:
            opps = [r0[o] - c * adv for o, _, c in rated]
            score = sum(s for _, s, _ in rated)
            k = rules.prior_games_step3
            first[p] = special(r0[p], r0[p], k, opps, score + k / 2)

    def rate(p, opp_rating):
        games_p = mine[p]
        m = len(games_p)
        s = sum(x[1] for x in games_p)
        opps = [opp_rating[o] - c * adv for o, _, c in games_p]
        pl = players[p]
        if n[p] <= 8 or pl.all_wins or pl.all_losses:
            if n[p] > 0 and pl.all_wins:
                return special(r0[p], r0[p] - 400, n_eff[p], opps, s + n_eff[p]), None
            if n[p] > 0 and pl.all_losses:
                return special(r0[p], r0[p] + 400, n_eff[p], opps, s), None
            return special(r0[p], r0[p], n_eff[p], opps, s + n_eff[p] / 2), None
        e = sum(1 / (1 + 10 ** (-(r0[p] - o) / 400)) for o in opps)
        k = 800 / (n_eff[p] + m)
        change = k * (s - e)
        most = max(Counter(o for o, _, _ in games_p).values())
        if m >= 3 and most <= 2:
            return r0[p] + change + max(0.0, change - rules.b * math.sqrt(max(m, 4))), k
        return r0[p] + change, k

    # Step 4 and 5
    inter = {p: rate(p, first)[0] for p in in_event}
    final = {p: rate(p, inter) for p in in_event}
    out = {}
    for p in in_event:
        pl = players[p]
        r, k = final[p]
        games_p = mine[p]
        w = sum(1 for _, s, _ in games_p if s == 1)
        d = sum(1 for _, s, _ in games_p if s == 0.5)
        pl.wins += w
        pl.draws += d
        pl.events_3 += len(games_p) >= 3
        if rules.floors:
            floor = min(150, 100 + 4 * pl.wins + 2 * pl.draws + pl.events_3)
            if pl.n > 25 and pl.peak is not None:
                level = 100 * math.floor((pl.peak - 200) / 100)
                if level >= 1200:
                    floor = max(floor, min(level, 2100))
            r = max(r, floor if pl.n == 0 else min(floor, r0[p]))
        all_w = w == len(games_p)
        all_l = w == 0 and d == 0
        pl.all_wins = all_w if pl.n == 0 else pl.all_wins and all_w
        pl.all_losses = all_l if pl.n == 0 else pl.all_losses and all_l
        pl.n += len(games_p)
        pl.rating = r
        if pl.n > 25:
            pl.peak = r if pl.peak is None else max(pl.peak, r)
        out[p] = (r, k)
    return out


def event_layers(event, white, black):
    """Layer of each game, event by event in ascending order (the naive reading of
    docs/uscf.md "Events within a period"): an event sits one layer above the highest
    layer any of its players has played in so far."""
    last: dict[int, int] = {}
    layer_of: dict[int, int] = {}
    for e in sorted(set(int(x) for x in event)):
        players = {int(p) for x, w, b in zip(event, white, black) if x == e for p in (w, b)}
        layer = 1 + max((last.get(p, -1) for p in players), default=-1)
        for p in players:
            last[p] = layer
        layer_of[e] = layer
    return [layer_of[int(e)] for e in event]
