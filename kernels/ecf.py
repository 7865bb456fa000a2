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
itself, else its previous grade. Those equations are linear: they are solved
as one symmetric system by conjugate gradients (``_solve``), which gives the
fixed point of the damped iteration x ← x + damping·(f(x) − x) — the same
for every damping, also for groups of estimated players who only meet each
other — in hundreds of steps where that iteration took thousands (and stopped
early: 7,571 steps and 1.2 points short on the Deloitte 2011 players). No 40-point rule and
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
def _dot(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@jit
def _max_abs(a):
    worst = 0.0
    for i in range(a.shape[0]):
        worst = max(worst, abs(a[i]))
    return worst


@jit
def _apply(x, who, pos, offsets, opponent, out):
    """out = M x over the estimated players: (M x)_i = g_i x_i − Σ x of i's estimated
    opponents, one term per game (M = D − N, symmetric: N counts the games of a pair)."""
    for i in range(who.shape[0]):
        p = who[i]
        acc = (offsets[p + 1] - offsets[p]) * x[i]
        for j in range(offsets[p], offsets[p + 1]):
            k = pos[opponent[j]]
            if k >= 0:
                acc -= x[k]
        out[i] = acc


@jit
def _solve(start, previous, estimated, offsets, opponent, own_score, win_points, tol, max_iter):
    """The estimates' fixed point x = f(x), f(x)_p = mean over p's games of (opponent
    value + 2·win_points·s − win_points), as the linear system M x = b (``_apply``; b: the
    score terms and the graded opponents' grades), by conjugate gradients preconditioned
    with the game counts. A group of estimated players who meet only each other has a
    singular block (any common shift solves it): the iteration keeps the group's
    games-weighted mean of the starting values, as the fixed-point iteration
    x ← x + d(f(x) − x) does. Converged when max |f(x) − x| ≤ tol / 1000: a small
    residual bounds the distance to the fixed point less tightly than a contraction's
    step does (on the Deloitte 2011 players, all estimated, a residual of 1e-3 left
    0.03 points; 1e-6 left 8e-5)."""
    n = start.shape[0]
    estimate = start.copy()
    who = np.flatnonzero(estimated & (offsets[1:] > offsets[:-1]))
    m = who.shape[0]
    if m == 0:
        return estimate, 0, True
    tol = tol / 1000.0
    pos = np.full(n, -1, dtype=np.int64)
    for i in range(m):
        pos[who[i]] = i
    games = np.empty(m, dtype=np.float64)
    x = np.empty(m, dtype=np.float64)
    r = np.empty(m, dtype=np.float64)
    for i in range(m):
        p = who[i]
        games[i] = offsets[p + 1] - offsets[p]
        x[i] = estimate[p]
        acc = 0.0
        for j in range(offsets[p], offsets[p + 1]):
            acc += 2.0 * win_points * own_score[j] - win_points
            if pos[opponent[j]] < 0:
                acc += previous[opponent[j]]
        r[i] = acc
    mx = np.empty(m, dtype=np.float64)
    _apply(x, who, pos, offsets, opponent, mx)
    for i in range(m):
        r[i] -= mx[i]  # r = b − M x; r_i / g_i = f(x)_i − x_i
    z = r / games
    direction = z.copy()
    rz = _dot(r, z)
    iterations = 0
    converged = _max_abs(z) <= tol
    while not converged and iterations < max_iter:
        _apply(direction, who, pos, offsets, opponent, mx)
        curvature = _dot(direction, mx)
        if not curvature > 0.0:  # only the singular direction is left: nothing to move
            converged = _max_abs(z) <= tol
            break
        alpha = rz / curvature
        for i in range(m):
            x[i] += alpha * direction[i]
            r[i] -= alpha * mx[i]
            z[i] = r[i] / games[i]
        iterations += 1
        converged = _max_abs(z) <= tol
        rz_next = _dot(r, z)
        beta = rz_next / rz
        rz = rz_next
        for i in range(m):
            direction[i] = z[i] + beta * direction[i]
    for i in range(m):
        estimate[who[i]] = x[i]
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
    estimates. CSR arrays as from ``kernels.csr.group_by_player``. ``damping`` (0, 1]
    names the fixed-point iteration whose fixed point the solver finds; the estimates do
    not depend on it (it is checked, then unused). ``tol``: the estimates' fixed-point
    equations hold to ``tol``/1000 points; ``max_iter`` bounds the solver's steps.
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
