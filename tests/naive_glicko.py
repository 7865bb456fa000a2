"""Naive Glicko-1 and Glicko-2: dicts of players, one game at a time, Glickman's steps
written out literally (no arrays, no Numba). The reference the kernels are compared with."""

from __future__ import annotations

import math
from collections import defaultdict

Q = math.log(10) / 400


def glicko1_period(
    rating: dict,
    rd: dict,
    known: set,
    games: list[tuple],
    elapsed=1.0,
    c=63.2,
    rd_max=350.0,
    rd_min=0.0,
    white_advantage=0.0,
):
    """One period; ``games`` are (white, black, white's score). Returns (rating, rd) dicts."""
    pre = {}
    for p in rating:
        if p in known:
            pre[p] = min(math.sqrt(rd[p] ** 2 + c**2 * elapsed), rd_max)
        else:
            pre[p] = rd[p]

    def g(x):
        return 1 / math.sqrt(1 + 3 * Q**2 * x**2 / math.pi**2)

    info = defaultdict(float)
    delta = defaultdict(float)
    for white, black, score in games:
        for me, opp, s, adv in (
            (white, black, score, white_advantage),
            (black, white, 1 - score, -white_advantage),
        ):
            e = 1 / (1 + 10 ** (-g(pre[opp]) * (rating[me] + adv - rating[opp]) / 400))
            info[me] += g(pre[opp]) ** 2 * e * (1 - e)
            delta[me] += g(pre[opp]) * (s - e)
    new_r, new_rd = dict(rating), dict(pre)
    for p in info:
        d2 = 1 / (Q**2 * info[p])
        denom = 1 / pre[p] ** 2 + 1 / d2
        new_r[p] = rating[p] + Q / denom * delta[p]
        new_rd[p] = max(math.sqrt(1 / denom), rd_min)
    return new_r, new_rd


SCALE = 173.7178


def volatility(phi, v, delta, sigma, tau, eps=1e-6):
    """Glicko-2 step 5 exactly as the 2012 text (no iteration cap: reference only)."""
    a = math.log(sigma**2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    A = a
    if delta**2 > phi**2 + v:
        B = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    while abs(B - A) > eps:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB < 0:
            A, fA = B, fB
        else:
            fA = fA / 2
        B, fB = C, fC
    return math.exp(A / 2)


def glicko2_period(
    rating: dict,
    rd: dict,
    sigma: dict,
    known: set,
    games: list[tuple],
    elapsed=1.0,
    tau=0.5,
    rd_max=350.0,
    rd_min=0.0,
    white_advantage=0.0,
):
    """One Glicko-2 period. Returns (rating, rd, sigma) dicts."""
    mu = {p: (rating[p] - 1500) / SCALE for p in rating}
    phi = {}
    for p in rating:
        x = rd[p] / SCALE
        if p in known and elapsed > 1:
            x = min(math.sqrt(x**2 + (elapsed - 1) * sigma[p] ** 2), rd_max / SCALE)
        phi[p] = x

    def g(x):
        return 1 / math.sqrt(1 + 3 * x**2 / math.pi**2)

    opponents = defaultdict(list)
    for white, black, score in games:
        adv = white_advantage / SCALE
        opponents[white].append((black, score, adv))
        opponents[black].append((white, 1 - score, -adv))
    new_r, new_rd, new_sigma = dict(rating), {}, dict(sigma)
    for p in rating:
        if p not in opponents:
            grown = math.sqrt(phi[p] ** 2 + sigma[p] ** 2) if p in known else phi[p]
            new_rd[p] = min(grown, rd_max / SCALE) * SCALE if p in known else rd[p]
            continue
        inv_v = 0.0
        total = 0.0
        for opp, s, adv in opponents[p]:
            e = 1 / (1 + math.exp(-g(phi[opp]) * (mu[p] + adv - mu[opp])))
            inv_v += g(phi[opp]) ** 2 * e * (1 - e)
            total += g(phi[opp]) * (s - e)
        v = 1 / inv_v
        s_new = volatility(phi[p], v, v * total, sigma[p], tau)
        phi_star = min(math.sqrt(phi[p] ** 2 + s_new**2), rd_max / SCALE)
        phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
        new_r[p] = SCALE * (mu[p] + phi_new**2 * total) + 1500
        new_rd[p] = max(SCALE * phi_new, rd_min)
        new_sigma[p] = s_new
    return new_r, new_rd, new_sigma
