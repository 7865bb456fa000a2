"""Whole-History Rating (Coulom 2008): every player's rating at every period, fitted at once.

Model (Coulom, "Whole-History Rating: A Bayesian Rating System for Players of
Time-Varying Strength", Computers and Games 2008, §2-§3), in Elo units:

* a player has one rating ``x_k`` per period ``k`` in which they played (a "node");
* a game between White node ``a`` and Black node ``b`` has White's expected score
  ``E = 1 / (1 + 10^(-(x_a + h - x_b) / scale))`` (Bradley-Terry with a white
  advantage ``h``); its log-likelihood is ``s ln E + (1 - s) ln(1 - E)``, so a
  draw counts as half a win and half a loss;
* consecutive nodes of a player follow a Wiener process:
  ``x_{k+1} - x_k ~ N(0, w2 * (month_{k+1} - month_k))``;
* the first node has a Gaussian prior ``N(prior_mean, prior_var)`` (arpad's
  choice instead of Coulom's virtual draws; documented in docs/whr.md).

The maximum a posteriori ratings are found by Newton's method per player
(the Hessian of one player's nodes is tridiagonal, §3.2), sweeping over the
players in order (Gauss-Seidel: each player's step sees the opponents' latest
values), and, when asked, a one-dimensional Newton step for ``h`` per sweep.
The posterior is strictly concave, so the maximum is unique and does not
depend on the order of the games.

Node uncertainty is the diagonal of the inverse of the player's own negative
Hessian (§3.3: opponents' ratings taken as known).
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import jit

LN10 = np.log(10.0)


@jit
def _expected(d, scale):
    """1 / (1 + 10^(-d/scale)), written with exp (the same value as kernels.expected.logistic)."""
    return 1.0 / (1.0 + np.exp(-LN10 * d / scale))


class WhrFit(NamedTuple):
    rating: np.ndarray  # float64[n_nodes], MAP rating of each node
    white_advantage: float  # h (fitted or as given)
    sweeps: int  # Gauss-Seidel sweeps done
    max_change: float  # largest |step| of the last sweep (Elo points)
    converged: bool


@jit
def _player_system(
    p,
    x,
    node_offsets,
    node_month,
    prior_mean,
    prior_var,
    game_offsets,
    opponent,
    own_score,
    is_white,
    w2,
    h,
    scale,
    diag,
    off,
    grad,
):
    """Gradient and negative Hessian (diag, off-diagonal) of player ``p``'s log-posterior."""
    c = LN10 / scale
    a = node_offsets[p]
    b = node_offsets[p + 1]
    for k in range(a, b):
        g = 0.0
        d = 0.0
        for j in range(game_offsets[k], game_offsets[k + 1]):
            adv = h if is_white[j] else -h
            e = _expected(x[k] + adv - x[opponent[j]], scale)
            g += c * (own_score[j] - e)
            d += c * c * e * (1.0 - e)
        grad[k] = g
        diag[k] = d
        off[k] = 0.0
    grad[a] -= (x[a] - prior_mean[p]) / prior_var[p]
    diag[a] += 1.0 / prior_var[p]
    for k in range(a, b - 1):
        v = w2 * (node_month[k + 1] - node_month[k])
        diff = x[k + 1] - x[k]
        grad[k] += diff / v
        grad[k + 1] -= diff / v
        diag[k] += 1.0 / v
        diag[k + 1] += 1.0 / v
        off[k] = -1.0 / v


@jit
def _solve_tridiagonal(a, b, diag, off, rhs, out, work):
    """Solve A·out = rhs on nodes a..b-1 (A symmetric positive definite tridiagonal; Thomas)."""
    # forward elimination: work holds the modified super-diagonal
    denom = diag[a]
    work[a] = off[a] / denom
    out[a] = rhs[a] / denom
    for k in range(a + 1, b):
        denom = diag[k] - off[k - 1] * work[k - 1]
        work[k] = off[k] / denom
        out[k] = (rhs[k] - off[k - 1] * out[k - 1]) / denom
    for k in range(b - 2, a - 1, -1):
        out[k] -= work[k] * out[k + 1]


@jit
def _whr_fit(
    x,
    node_offsets,
    node_month,
    prior_mean,
    prior_var,
    game_offsets,
    opponent,
    own_score,
    is_white,
    white_node,
    black_node,
    score,
    w2,
    h,
    estimate_h,
    scale,
    max_sweeps,
    tolerance,
    max_step,
):
    n_players = node_offsets.shape[0] - 1
    n_nodes = x.shape[0]
    diag = np.zeros(n_nodes)
    off = np.zeros(n_nodes)
    grad = np.zeros(n_nodes)
    step = np.zeros(n_nodes)
    work = np.zeros(n_nodes)
    c = LN10 / scale
    sweeps = 0
    largest = np.inf
    for _ in range(max_sweeps):
        sweeps += 1
        largest = 0.0
        for p in range(n_players):
            a = node_offsets[p]
            b = node_offsets[p + 1]
            if b == a:
                continue
            _player_system(
                p,
                x,
                node_offsets,
                node_month,
                prior_mean,
                prior_var,
                game_offsets,
                opponent,
                own_score,
                is_white,
                w2,
                h,
                scale,
                diag,
                off,
                grad,
            )
            _solve_tridiagonal(a, b, diag, off, grad, step, work)
            biggest = 0.0
            for k in range(a, b):
                biggest = max(biggest, abs(step[k]))
            shrink = 1.0 if biggest <= max_step else max_step / biggest
            for k in range(a, b):
                x[k] += shrink * step[k]
            largest = max(largest, biggest * shrink)
        if estimate_h and score.shape[0] > 0:
            g = 0.0
            d = 0.0
            for i in range(score.shape[0]):
                e = _expected(x[white_node[i]] + h - x[black_node[i]], scale)
                g += c * (score[i] - e)
                d += c * c * e * (1.0 - e)
            # d underflows to 0 when White (or Black) won every game: h has no finite
            # maximum then, and it stays where the steps left it (docs/whr.md)
            dh = g / d if d > 0.0 else 0.0
            if dh > max_step:
                dh = max_step
            elif dh < -max_step:
                dh = -max_step
            h += dh
            largest = max(largest, abs(dh))
        if largest < tolerance:
            break
    return x, h, sweeps, largest


def whr_fit(
    rating: np.ndarray,
    node_offsets: np.ndarray,
    node_month: np.ndarray,
    prior_mean: np.ndarray,
    prior_var: np.ndarray,
    game_offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    white_node: np.ndarray,
    black_node: np.ndarray,
    score: np.ndarray,
    w2: float,
    white_advantage: float = 0.0,
    estimate_white_advantage: bool = False,
    scale: float = 400.0,
    max_sweeps: int = 200,
    tolerance: float = 1e-6,
    max_step: float = 200.0,
) -> WhrFit:
    """MAP ratings of the whole-history model (module docstring), from the start values ``rating``.

    Nodes are grouped by player: player ``p`` owns nodes ``node_offsets[p]:node_offsets[p+1]``
    in increasing ``node_month``. ``game_offsets/opponent/own_score/is_white`` list each node's
    games (``kernels.csr.group_by_player`` over node indices); ``white_node/black_node/score``
    are the same games flat. ``prior_var`` is the prior variance of each player's first node.
    """
    x = np.array(rating, dtype=np.float64)  # a copy: the caller's start values stay intact
    node_offsets = np.ascontiguousarray(node_offsets, dtype=np.int64)
    node_month = np.ascontiguousarray(node_month, dtype=np.int64)
    prior_mean = np.ascontiguousarray(prior_mean, dtype=np.float64)
    prior_var = np.ascontiguousarray(prior_var, dtype=np.float64)
    game_offsets = np.ascontiguousarray(game_offsets, dtype=np.int64)
    n_nodes = x.shape[0]
    n_players = node_offsets.shape[0] - 1
    if node_month.shape != (n_nodes,) or game_offsets.shape != (n_nodes + 1,):
        raise ValueError("node_month needs n_nodes entries and game_offsets n_nodes + 1")
    if prior_mean.shape != (n_players,) or prior_var.shape != (n_players,):
        raise ValueError("prior_mean and prior_var need one entry per player")
    if n_players < 0 or node_offsets[-1] != n_nodes:
        raise ValueError("node_offsets must end at n_nodes")
    if not (w2 > 0) or np.any(prior_var <= 0):
        raise ValueError("w2 and prior_var must be positive")
    same_player = np.repeat(np.arange(n_players), np.diff(node_offsets))
    steps = np.diff(node_month)
    if np.any((steps <= 0) & (same_player[1:] == same_player[:-1])):
        raise ValueError("a player's nodes must have strictly increasing months")
    x, h, sweeps, largest = _whr_fit(
        x,
        node_offsets,
        node_month,
        prior_mean,
        prior_var,
        game_offsets,
        np.ascontiguousarray(opponent, dtype=np.int32),
        np.ascontiguousarray(own_score, dtype=np.float64),
        np.ascontiguousarray(is_white, dtype=np.bool_),
        np.ascontiguousarray(white_node, dtype=np.int64),
        np.ascontiguousarray(black_node, dtype=np.int64),
        np.ascontiguousarray(score, dtype=np.float64),
        float(w2),
        float(white_advantage),
        bool(estimate_white_advantage),
        float(scale),
        int(max_sweeps),
        float(tolerance),
        float(max_step),
    )
    return WhrFit(x, float(h), int(sweeps), float(largest), bool(largest < tolerance))


@jit
def _whr_variance(
    x,
    node_offsets,
    node_month,
    prior_mean,
    prior_var,
    game_offsets,
    opponent,
    own_score,
    is_white,
    w2,
    h,
    scale,
):
    n_players = node_offsets.shape[0] - 1
    n_nodes = x.shape[0]
    diag = np.zeros(n_nodes)
    off = np.zeros(n_nodes)
    grad = np.zeros(n_nodes)
    forward = np.zeros(n_nodes)
    backward = np.zeros(n_nodes)
    var = np.zeros(n_nodes)
    for p in range(n_players):
        a = node_offsets[p]
        b = node_offsets[p + 1]
        if b == a:
            continue
        _player_system(
            p,
            x,
            node_offsets,
            node_month,
            prior_mean,
            prior_var,
            game_offsets,
            opponent,
            own_score,
            is_white,
            w2,
            h,
            scale,
            diag,
            off,
            grad,
        )
        # (A^-1)_kk = 1 / (F_k + B_k - d_k) with the forward/backward pivots of A.
        forward[a] = diag[a]
        for k in range(a + 1, b):
            forward[k] = diag[k] - off[k - 1] * off[k - 1] / forward[k - 1]
        backward[b - 1] = diag[b - 1]
        for k in range(b - 2, a - 1, -1):
            backward[k] = diag[k] - off[k] * off[k] / backward[k + 1]
        for k in range(a, b):
            var[k] = 1.0 / (forward[k] + backward[k] - diag[k])
    return var


def whr_variance(
    rating: np.ndarray,
    node_offsets: np.ndarray,
    node_month: np.ndarray,
    prior_mean: np.ndarray,
    prior_var: np.ndarray,
    game_offsets: np.ndarray,
    opponent: np.ndarray,
    own_score: np.ndarray,
    is_white: np.ndarray,
    w2: float,
    white_advantage: float = 0.0,
    scale: float = 400.0,
) -> np.ndarray:
    """Posterior variance of each node: diagonal of the inverse of the player's negative
    Hessian at ``rating`` (Coulom 2008 §3.3; opponents taken as known)."""
    rating = np.ascontiguousarray(rating, dtype=np.float64)
    node_offsets = np.ascontiguousarray(node_offsets, dtype=np.int64)
    if node_offsets[-1] != rating.shape[0]:
        raise ValueError("node_offsets must end at n_nodes")
    return _whr_variance(
        rating,
        node_offsets,
        np.ascontiguousarray(node_month, dtype=np.int64),
        np.ascontiguousarray(prior_mean, dtype=np.float64),
        np.ascontiguousarray(prior_var, dtype=np.float64),
        np.ascontiguousarray(game_offsets, dtype=np.int64),
        np.ascontiguousarray(opponent, dtype=np.int32),
        np.ascontiguousarray(own_score, dtype=np.float64),
        np.ascontiguousarray(is_white, dtype=np.bool_),
        float(w2),
        float(white_advantage),
        float(scale),
    )


@jit
def _player_components(white, black, n_players):
    # union-find with path halving; the root of a set is its smallest player
    parent = np.arange(n_players)
    for i in range(white.shape[0]):
        a = white[i]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = black[i]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a < b:
            parent[b] = a
        elif b < a:
            parent[a] = b
    label = np.full(n_players, -1, dtype=np.int64)
    n_components = 0
    for p in range(n_players):
        root = p
        while parent[root] != root:
            root = parent[root]
        if label[root] < 0:
            label[root] = n_components
            n_components += 1
        label[p] = label[root]
    return label, n_components


class PlayerComponents(NamedTuple):
    label: np.ndarray  # int64[n_players], component of each player (0 = the first player's)
    n_components: int


def player_components(white: np.ndarray, black: np.ndarray, n_players: int) -> PlayerComponents:
    """Connected components of the game graph: players are linked when they met in a game.

    Components are numbered in the order of their smallest player; a player without a game
    is a component of their own. Two components have no game between them, so the data say
    nothing about their relative level: only the priors place each one (docs/whr.md).
    """
    white = np.asarray(white)
    black = np.asarray(black)
    if white.shape != black.shape or white.ndim != 1:
        raise ValueError("white and black need one entry per game")
    if white.dtype.kind not in "iu" or black.dtype.kind not in "iu":
        raise ValueError("white and black must be integer player indices")
    if white.size and (
        min(white.min(), black.min()) < 0 or max(white.max(), black.max()) >= n_players
    ):
        raise ValueError("player index out of range 0..n_players-1")
    label, n = _player_components(
        np.ascontiguousarray(white, dtype=np.int64),
        np.ascontiguousarray(black, dtype=np.int64),
        int(n_players),
    )
    return PlayerComponents(label, int(n))
