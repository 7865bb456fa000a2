"""One-game-at-a-time references for ECF grading, Harkness, Ingo, Elo linear and
performance ratings: plain Python loops over a list of games, no arrays, no Numba.

Games are (white, black, white_score[, event]) tuples over player ids.
"""

from __future__ import annotations

import math


def ecf_points(own: float, opponent: float, score: float, cap: float = 40.0) -> float:
    if opponent > own + cap:
        opponent = own + cap
    if opponent < own - cap:
        opponent = own - cap
    return opponent + 100.0 * score - 50.0


def ecf_cycle(previous: dict, estimated: set, games: list, min_games: int = 30, tol=1e-9):
    """Grades of one cycle: estimates by plain fixed-point sweeps, then everybody else."""
    mine: dict = {}
    for w, b, s in games:
        mine.setdefault(w, []).append((b, s))
        mine.setdefault(b, []).append((w, 1.0 - s))
    est = {}
    for p in estimated:
        if p in previous and previous[p] is not None:
            est[p] = previous[p]
        else:
            known = [previous[o] for o, _ in mine[p] if previous.get(o) is not None]
            est[p] = sum(known) / len(known) if known else 100.0

    def value(o):
        return est[o] if o in estimated else previous[o]

    for _ in range(100_000):
        target = {
            p: sum(value(o) + 100.0 * s - 50.0 for o, s in mine[p]) / len(mine[p])
            for p in estimated
        }
        worst = max((abs(target[p] - est[p]) for p in estimated), default=0.0)
        if worst <= tol:
            est = target
            break
        est = {p: est[p] + 0.5 * (target[p] - est[p]) for p in estimated}
    grades = {}
    for p, played in mine.items():
        if p in estimated:
            grades[p] = est[p]
            continue
        total = sum(ecf_points(previous[p], value(o), s) for o, s in played)
        n = len(played)
        if n < min_games:
            total += (min_games - n) * previous[p]
            n = min_games
        grades[p] = total / n
    return grades


def event_rating(rating: dict, games: list, method: str, old_weight=0.75, round_result=True):
    """Harkness ('harkness') or Ingo ('ingo', 'ingo-dsb') per event, events in sorted order."""
    by_player: dict = {}
    for w, b, s, e in games:
        by_player.setdefault(w, []).append((e, b, s))
        by_player.setdefault(b, []).append((e, w, 1.0 - s))
    out = dict(rating)
    for p, played in by_player.items():
        current = rating.get(p)
        for e in sorted({e for e, _, _ in played}):
            rows = [(o, s) for ev, o, s in played if ev == e and rating.get(o) is not None]
            if not rows:
                continue
            avg = sum(rating[o] for o, _ in rows) / len(rows)
            pct = 100.0 * sum(s for _, s in rows) / len(rows)
            if method == "harkness":
                new = avg + 10.0 * (pct - 50.0)
            else:
                new = avg - (pct - 50.0)
                if method == "ingo-dsb" and current is not None:
                    new = old_weight * current + (1 - old_weight) * new
            if round_result:
                new = math.floor(abs(new) + 0.5) * (1 if new >= 0 else -1)
            current = new
        out[p] = current
    return out


def elo_linear(rating: dict, games: list, k: float, c: float = 200.0) -> dict:
    out = dict(rating)
    delta: dict = {}
    for w, b, s in games:
        for me, opp, sc in ((w, b, s), (b, w, 1.0 - s)):
            d = delta.setdefault(me, 0.0)
            delta[me] = d + 0.5 * k * ((2.0 * sc - 1.0) + 0.5 * (rating[opp] - rating[me]) / c)
    for p, d in delta.items():
        out[p] = rating[p] + d
    return out


def true_performance(opponents: list, score: float, curve: str = "normal") -> float:
    def expected(d):
        if curve == "normal":
            return 0.5 * (1.0 + math.erf(d / 400.0))
        return 1.0 / (1.0 + 10.0 ** (-d / 400.0))

    lo, hi = min(opponents) - 3000.0, max(opponents) + 3000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(expected(mid - r) for r in opponents) < score:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
