"""Legacy ECF grading (Clarke system) of one cycle for every player (docs/legacy-systems.md).

Per game a player earns "points": the opponent's grade + 50 for a win, the
grade for a draw, − 50 for a loss (opponent + 100·s − 50). The 40-point rule
takes an opponent graded more than 40 away as exactly 40 above/below the
player's own grade. A grade is the mean of the cycle's points; a player with
fewer than ``min_games`` games is padded with (min_games − n) games at the
previous grade (the pre-2011 method). Published grade = max(0, mean).

Players to *estimate* (juniors, and players without a previous grade) get a
grade from the current cycle's games alone: the mean of (opponent value +
100·s − 50), where an opponent's value is its estimate if it is estimated
itself, else its previous grade. Those equations are solved by a damped
fixed-point iteration (x ← x + damping·(f(x) − x), which converges also for
groups of estimated players who only meet each other). No 40-point rule and
no padding apply to an estimate (the player has no trusted grade to compare
with). Everybody else is then graded with the estimates as the opponents'
grades. Each iteration and the final pass are ``prange`` loops over players
(CSR offsets), so every thread owns its output.
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import by_work, jit, jit_parallel, prange


class EcfCycleResult(NamedTuple):
    grade: np.ndarray  # float64[n]: the cycle's grade before the zero clamp (NaN: no games)
    published: np.ndarray  # float64[n]: max(0, grade)
    performance: np.ndarray  # float64[n]: mean points of the cycle's games (no padding)
    games: np.ndarray  # int32[n]
    score: np.ndarray  # float64[n]
    padded: np.ndarray  # int32[n]: games added at the previous grade
    opponent_grade: np.ndarray  # float64[entries]: opponent's grade as used (after the 40 rule)
    points: np.ndarray  # float64[entries]: the game's points
    iterations: int
    converged: bool


@jit
def ecf_game_points(own, opponent, score, diff_cap, win_points):
    """Points of one game: clamp(opponent, own ± cap) + 2·win_points·score − win_points."""
    used = opponent
    if used > own + diff_cap:
        used = own + diff_cap
    elif used < own - diff_cap:
        used = own - diff_cap
    return used + 2.0 * win_points * score - win_points


@jit
def _estimate_pass(
    estimate, previous, estimated, who, offsets, opponent, own_score, win_points, out
):
    # Serial over the estimated players only: the sweep is short and runs hundreds of
    # times per cycle, where starting a parallel region each time costs more than it saves.
    for i in range(who.shape[0]):
        p = who[i]
        lo = offsets[p]
        hi = offsets[p + 1]
        total = 0.0
        for j in range(lo, hi):
            o = opponent[j]
            value = estimate[o] if estimated[o] else previous[o]
            total += value + 2.0 * win_points * own_score[j] - win_points
        out[i] = total / (hi - lo)


@jit
def _max_abs_diff(a, b):
    worst = 0.0
    for i in range(a.shape[0]):
        d = abs(a[i] - b[i])
        if d > worst:
            worst = d
    return worst


@jit_parallel
def _final_pass(
    estimate, previous, estimated, offsets, opponent, own_score, diff_cap, win_points, min_games
):
    n = offsets.shape[0] - 1
    entries = opponent.shape[0]
    grade = np.full(n, np.nan)
    performance = np.full(n, np.nan)
    games = np.zeros(n, dtype=np.int32)
    score = np.zeros(n, dtype=np.float64)
    padded = np.zeros(n, dtype=np.int32)
    opponent_grade = np.empty(entries, dtype=np.float64)
    points = np.empty(entries, dtype=np.float64)
    for p in prange(n):
        lo = offsets[p]
        hi = offsets[p + 1]
        g = hi - lo
        games[p] = g
        if g == 0:
            continue
        total = 0.0
        s = 0.0
        for j in range(lo, hi):
            o = opponent[j]
            value = estimate[o] if estimated[o] else previous[o]
            if estimated[p]:
                used = value
            else:
                used = value
                if used > previous[p] + diff_cap:
                    used = previous[p] + diff_cap
                elif used < previous[p] - diff_cap:
                    used = previous[p] - diff_cap
            opponent_grade[j] = used
            points[j] = used + 2.0 * win_points * own_score[j] - win_points
            total += points[j]
            s += own_score[j]
        score[p] = s
        performance[p] = total / g
        if estimated[p]:
            grade[p] = estimate[p]
        elif g < min_games:
            padded[p] = min_games - g
            grade[p] = (total + (min_games - g) * previous[p]) / min_games
        else:
            grade[p] = total / g
    return grade, performance, games, score, padded, opponent_grade, points


@jit
def _solve(
    start, previous, estimated, offsets, opponent, own_score, win_points, damping, tol, max_iter
):
    estimate = start.copy()
    who = np.flatnonzero(estimated & (offsets[1:] > offsets[:-1]))
    current = np.empty(who.shape[0], dtype=np.float64)
    target = np.empty(who.shape[0], dtype=np.float64)
    for i in range(who.shape[0]):
        current[i] = estimate[who[i]]
    iterations = 0
    converged = who.shape[0] == 0
    while not converged and iterations < max_iter:
        _estimate_pass(
            estimate, previous, estimated, who, offsets, opponent, own_score, win_points, target
        )
        iterations += 1
        if _max_abs_diff(target, current) <= tol:
            current[:] = target
            converged = True
        else:
            for i in range(current.shape[0]):
                current[i] = current[i] + damping * (target[i] - current[i])
        for i in range(who.shape[0]):
            estimate[who[i]] = current[i]
    return estimate, iterations, converged


def ecf_cycle(
    previous: np.ndarray,
    estimated: np.ndarray,
    start: np.ndarray,
    offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    diff_cap: float = 40.0,
    win_points: float = 50.0,
    min_games: int = 30,
    damping: float = 0.5,
    tol: float = 1e-3,
    max_iter: int = 10_000,
) -> EcfCycleResult:
    """Grades of one cycle (module docstring; docs/legacy-systems.md).

    ``previous`` float64[n]: previous grades (used for established players and
    as their opponents' grades); ``estimated`` bool[n]: players whose grade is
    re-estimated from this cycle alone (every player who plays without a
    previous grade must be in it); ``start`` float64[n]: starting values of the
    estimates. CSR arrays as from ``kernels.csr.group_by_player``.
    """
    previous = np.ascontiguousarray(previous, dtype=np.float64)
    estimated = np.ascontiguousarray(estimated, dtype=np.bool_)
    start = np.ascontiguousarray(start, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    opponent = np.ascontiguousarray(opponent, dtype=np.int32)
    own_score = np.ascontiguousarray(own_score, dtype=np.float64)
    n = previous.shape[0]
    if estimated.shape != (n,) or start.shape != (n,) or offsets.shape != (n + 1,):
        raise ValueError("previous, estimated, start need n entries and offsets n + 1")
    if opponent.shape != own_score.shape or opponent.shape != (int(offsets[-1]),):
        raise ValueError("opponent and own_score need one entry per CSR entry")
    played = np.diff(offsets) > 0
    if np.any(played & ~estimated & np.isnan(previous)):
        raise ValueError("a player without a previous grade played but is not estimated")
    if np.any(estimated & played & np.isnan(start)):
        raise ValueError("estimated players need a finite starting value")
    if not 0.0 < damping <= 1.0:
        raise ValueError("damping must be in (0, 1]")
    estimate, iterations, converged = _solve(
        np.where(estimated, start, np.nan),
        previous,
        estimated,
        offsets,
        opponent,
        own_score,
        float(win_points),
        float(damping),
        float(tol),
        int(max_iter),
    )
    final_pass = by_work(_final_pass, offsets.shape[0] + len(opponent))
    grade, performance, games, score, padded, opponent_grade, points = final_pass(
        estimate,
        previous,
        estimated,
        offsets,
        opponent,
        own_score,
        float(diff_cap),
        float(win_points),
        int(min_games),
    )
    return EcfCycleResult(
        grade=grade,
        published=np.where(np.isnan(grade), np.nan, np.maximum(grade, 0.0)),
        performance=performance,
        games=games,
        score=score,
        padded=padded,
        opponent_grade=opponent_grade,
        points=points,
        iterations=int(iterations),
        converged=bool(converged),
    )
