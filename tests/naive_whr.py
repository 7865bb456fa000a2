"""Naive Whole-History Rating: the joint log-posterior over every node (and h) built one
game at a time, maximised by plain dense Newton steps. Slow and obviously correct; the
kernel (per-player tridiagonal Gauss-Seidel) must reach the same maximum."""

from __future__ import annotations

import itertools
import math

import numpy as np


def log_posterior(x, h, nodes, games, priors, w2, scale=400.0):
    """nodes: list of (player, month); games: list of (white_node, black_node, score);
    priors: {player: (mean, var)} for the player's first node."""
    total = 0.0
    for a, b, s in games:
        e = 1.0 / (1.0 + 10.0 ** (-(x[a] + h - x[b]) / scale))
        total += s * math.log(e) + (1.0 - s) * math.log(1.0 - e)
    by_player: dict[int, list[int]] = {}
    for k, (p, _) in enumerate(nodes):
        by_player.setdefault(p, []).append(k)
    for p, ks in by_player.items():
        ks = sorted(ks, key=lambda k: nodes[k][1])
        mean, var = priors[p]
        total -= (x[ks[0]] - mean) ** 2 / (2 * var)
        for k0, k1 in itertools.pairwise(ks):
            v = w2 * (nodes[k1][1] - nodes[k0][1])
            total -= (x[k1] - x[k0]) ** 2 / (2 * v)
    return total


def fit(nodes, games, priors, w2, h=0.0, estimate_h=False, scale=400.0, iterations=100):
    """Dense Newton on (x, h) with gradient and Hessian accumulated game by game."""
    n = len(nodes)
    m = n + (1 if estimate_h else 0)
    x = np.array([priors[p][0] for p, _ in nodes], dtype=float)
    c = math.log(10.0) / scale
    by_player: dict[int, list[int]] = {}
    for k, (p, _) in enumerate(nodes):
        by_player.setdefault(p, []).append(k)
    for _ in range(iterations):
        grad = np.zeros(m)
        hess = np.zeros((m, m))
        for a, b, s in games:
            e = 1.0 / (1.0 + 10.0 ** (-(x[a] + h - x[b]) / scale))
            g = c * (s - e)
            w = c * c * e * (1 - e)
            grad[a] += g
            grad[b] -= g
            hess[a, a] -= w
            hess[b, b] -= w
            hess[a, b] += w
            hess[b, a] += w
            if estimate_h:
                grad[n] += g
                hess[n, n] -= w
                hess[n, a] -= w
                hess[a, n] -= w
                hess[n, b] += w
                hess[b, n] += w
        for p, ks in by_player.items():
            ks = sorted(ks, key=lambda k: nodes[k][1])
            mean, var = priors[p]
            grad[ks[0]] -= (x[ks[0]] - mean) / var
            hess[ks[0], ks[0]] -= 1 / var
            for k0, k1 in itertools.pairwise(ks):
                v = w2 * (nodes[k1][1] - nodes[k0][1])
                grad[k0] += (x[k1] - x[k0]) / v
                grad[k1] -= (x[k1] - x[k0]) / v
                hess[k0, k0] -= 1 / v
                hess[k1, k1] -= 1 / v
                hess[k0, k1] += 1 / v
                hess[k1, k0] += 1 / v
        step = np.linalg.solve(hess, -grad)
        x += step[:n]
        if estimate_h:
            h += step[n]
        if np.max(np.abs(step)) < 1e-10:
            break
    return x, h
