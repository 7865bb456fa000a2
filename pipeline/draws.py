"""A draw model over any rating: Davidson's (1970) three-outcome Bradley–Terry model
(docs/backtest.md "Draws").

With ``s`` White's natural log-odds of a win against a loss (Bradley–Terry strength
difference) and ``ν ≥ 0`` the draw parameter::

    P(white) = e^{s/2} / D,   P(black) = e^{−s/2} / D,   P(draw) = ν / D,
    D = e^{s/2} + e^{−s/2} + ν

so P(draw) ∝ ν·sqrt(P_w·P_b) and White's expected score is P(white) + P(draw)/2.
Between equal players (s = 0) P(draw) = ν / (2 + ν).

``s`` is a linear function of the features: ``s = β·x`` with ``x = (1, Q·d, u)`` in the
backtest (d the rating difference, u the newcomer indicator, Q = ln 10 / 400), so the
intercept is the white advantage; over a system's own expected score E (the API and
``arpad predict``) ``d`` is E's Elo-equivalent difference ``400·log10(E/(1−E))``.

The model is an exponential family in (s, log ν), so the log-likelihood is concave and
:func:`fit_davidson` finds its maximum by Newton's method with the closed-form gradient
and Hessian (numpy only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Q = math.log(10.0) / 400.0
LOG_LOSS_FLOOR = 1e-12  # probabilities are floored here before the log (no infinities)


def newton(objective, theta: np.ndarray, gradient_hessian, iterations: int = 100) -> np.ndarray:
    """Newton's method with step halving for a negative log-likelihood ``objective``:
    ``gradient_hessian(theta)`` gives the log-likelihood's gradient and its negative
    Hessian; a step is halved until the objective does not increase (used by the draw
    model and the backtest's calibration)."""
    current = objective(theta)
    for _ in range(iterations):
        grad, hess = gradient_hessian(theta)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-8 and objective(theta + t * step) > current:
            t *= 0.5
        theta = theta + t * step
        previous, current = current, objective(theta)
        if previous - current < 1e-12 * max(abs(previous), 1.0):
            break
    return theta


def davidson(s: np.ndarray, nu: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P(white), P(draw), P(black)) for log-odds ``s`` and draw parameter ``nu``."""
    s = np.asarray(s, dtype=np.float64)
    half = 0.5 * np.abs(s)
    # divide by e^{|s|/2} for stability: the larger side's term becomes 1
    big, small = np.ones_like(s), np.exp(-2.0 * half)
    nu_scaled = nu * np.exp(-half)
    denom = big + small + nu_scaled
    strong, weak, draw = big / denom, small / denom, nu_scaled / denom
    white = np.where(s >= 0, strong, weak)
    black = np.where(s >= 0, weak, strong)
    return white, draw, black


def outcome_log_loss(
    p_white: np.ndarray, p_draw: np.ndarray, p_black: np.ndarray, score: np.ndarray
) -> float:
    """Mean −ln P(observed outcome) over games scored 1, ½ or 0 (natural log); NaN if any
    score is something else (a data set without known three-way outcomes)."""
    score = np.asarray(score, dtype=np.float64)
    if score.size == 0 or not np.all(np.isin(score, (0.0, 0.5, 1.0))):
        return math.nan
    p = np.where(score == 1.0, p_white, np.where(score == 0.0, p_black, p_draw))
    return float(np.mean(-np.log(np.maximum(p, LOG_LOSS_FLOOR))))


def two_outcome_reading(expected: np.ndarray, draw_rate: float):
    """The three-outcome reading of a two-outcome prediction E (docs/backtest.md "Draws"):
    P(draw) = the training draw rate δ, the rest split by E:
    P(white) = (1 − δ)·E, P(black) = (1 − δ)·(1 − E)."""
    e = np.asarray(expected, dtype=np.float64)
    return (1.0 - draw_rate) * e, np.full_like(e, draw_rate), (1.0 - draw_rate) * (1.0 - e)


def at_expected(expected: np.ndarray, nu: float):
    """Davidson's (P(white), P(draw), P(black)) whose expected score P(white) + P(draw)/2 is
    ``expected``: the layer over a system's own prediction (``arpad predict``), which keeps
    the system's expected score and splits it into three outcomes. With a = e^{s/2},
    E·(a + 1/a + ν) = a + ν/2 gives (1 − E)·a² + ν(½ − E)·a − E = 0, whose positive root
    is a = (−ν(½ − E) + sqrt(ν²(½ − E)² + 4E(1 − E))) / (2(1 − E)); E is clipped to
    [1e-9, 1 − 1e-9]."""
    e = np.clip(np.asarray(expected, dtype=np.float64), 1e-9, 1.0 - 1e-9)
    b = nu * (0.5 - e)
    a = (-b + np.sqrt(b * b + 4.0 * e * (1.0 - e))) / (2.0 * (1.0 - e))
    return davidson(2.0 * np.log(a), nu)


def elo_difference(expected: np.ndarray) -> np.ndarray:
    """The Elo-equivalent rating difference of an expected score: 400·log10(E/(1−E)),
    E clipped to [1e-6, 1 − 1e-6]."""
    e = np.clip(np.asarray(expected, dtype=np.float64), 1e-6, 1.0 - 1e-6)
    return 400.0 * np.log10(e / (1.0 - e))


@dataclass(frozen=True)
class DrawModel:
    """Davidson's model over a rating difference: ``s = Q·(slope·d + white_advantage +
    newcomer·u)`` (d, white_advantage, newcomer in rating points), draw parameter ``nu``.

    ``DrawModel.from_draw_rate(p)`` is the model whose draw probability between equal
    players (no white advantage) is ``p``."""

    nu: float
    white_advantage: float = 0.0
    slope: float = 1.0
    newcomer: float = 0.0

    def __post_init__(self):
        for name in ("nu", "white_advantage", "slope", "newcomer"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"draw model: {name} must be finite")
        if self.nu < 0:
            raise ValueError("draw model: nu must be >= 0")

    @classmethod
    def from_draw_rate(cls, p: float, white_advantage: float = 0.0) -> DrawModel:
        if not 0.0 <= p < 1.0:
            raise ValueError(f"draw rate must be in [0, 1), got {p}")
        return cls(nu=2.0 * p / (1.0 - p), white_advantage=white_advantage)

    @property
    def draw_rate(self) -> float:
        """P(draw) between equal players without white advantage: ν / (2 + ν)."""
        return self.nu / (2.0 + self.nu)

    def log_odds(self, d: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
        d = np.asarray(d, dtype=np.float64)
        u = np.zeros_like(d) if u is None else np.asarray(u, dtype=np.float64)
        return Q * (self.slope * d + self.white_advantage + self.newcomer * u)

    def probabilities(self, d: np.ndarray, u: np.ndarray | None = None):
        """(P(white), P(draw), P(black)) for rating differences ``d`` (White − Black)."""
        return davidson(self.log_odds(d, u), self.nu)

    def expected(self, d: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
        w, dr, _ = self.probabilities(d, u)
        return w + 0.5 * dr


def fit_davidson(
    d: np.ndarray, score: np.ndarray, u: np.ndarray | None = None, iterations: int = 100
) -> DrawModel:
    """Maximum-likelihood Davidson model of games scored 1/½/0 on rating differences ``d``
    (and newcomer indicators ``u``; omitted: no newcomer term). Non-finite ``d`` count as 0.

    Parameters θ = (β₀, β₁, β₂, log ν) with s = β₀ + β₁·Q·d + β₂·u. With T = ((y_w − y_b)/2,
    y_d) the sufficient statistics, the gradient in (s, log ν) is T − E[T] and the negative
    Hessian is Cov[T]: Var = ((P_w + P_b) − (P_w − P_b)²)/4, Cov = −P_d(P_w − P_b)/2,
    Var(y_d) = P_d(1 − P_d). Newton steps with step halving; a weak ridge keeps the fit
    finite on separable data (no draws, or results determined by d)."""
    d = np.asarray(d, dtype=np.float64)
    d = np.where(np.isfinite(d), d, 0.0)
    score = np.asarray(score, dtype=np.float64)
    if not np.all(np.isin(score, (0.0, 0.5, 1.0))):
        raise ValueError("the draw model is fitted on scores 1, 1/2 and 0 only")
    has_u = u is not None
    cols = [np.ones_like(d), Q * d]
    if has_u:
        cols.append(np.asarray(u, dtype=np.float64))
    x = np.stack(cols, axis=1)
    k = x.shape[1]
    yw, yd, yb = (score == 1.0).astype(float), (score == 0.5).astype(float), (score == 0.0)
    t1 = 0.5 * (yw - yb.astype(float))
    ridge = 1e-6 * max(d.size, 1)
    theta = np.zeros(k + 1)
    theta[1] = 1.0
    theta[k] = math.log(max(yd.mean(), 1e-3) * 2.0 / max(1.0 - yd.mean(), 1e-3))

    def objective(th):
        s, lognu = x @ th[:k], th[k]
        w, dr, b = davidson(s, math.exp(lognu))
        p = np.where(yw == 1.0, w, np.where(yd == 1.0, dr, b))
        return float(-np.sum(np.log(np.maximum(p, 1e-300))) + 0.5 * ridge * th @ th)

    def gradient_hessian(theta):
        s, nu = x @ theta[:k], math.exp(theta[k])
        w, dr, b = davidson(s, nu)
        g_s = t1 - 0.5 * (w - b)
        g_n = yd - dr
        grad = np.concatenate([x.T @ g_s, [g_n.sum()]]) - ridge * theta
        v_ss = ((w + b) - (w - b) ** 2) / 4.0
        v_sn = -dr * (w - b) / 2.0
        v_nn = dr * (1.0 - dr)
        hess = np.empty((k + 1, k + 1))
        hess[:k, :k] = (x * v_ss[:, None]).T @ x
        hess[:k, k] = hess[k, :k] = x.T @ v_sn
        hess[k, k] = v_nn.sum()
        hess += ridge * np.eye(k + 1)
        return grad, hess

    theta = newton(objective, theta, gradient_hessian, iterations)
    return DrawModel(
        nu=float(math.exp(theta[k])),
        white_advantage=float(theta[0] / Q),
        slope=float(theta[1]),
        newcomer=float(theta[2] / Q) if has_u else 0.0,
    )


def fit_nu(expected: np.ndarray, score: np.ndarray) -> DrawModel:
    """Maximum-likelihood ν of the layer over a system's own expected scores
    (:func:`at_expected`) on games scored 1/½/0: golden-section search on log ν in
    [−12, 6] (the log-likelihood is smooth and, in practice, unimodal there)."""
    e = np.asarray(expected, dtype=np.float64)
    score = np.asarray(score, dtype=np.float64)
    keep = np.isfinite(e)
    e, score = e[keep], score[keep]
    if not e.size or not np.all(np.isin(score, (0.0, 0.5, 1.0))):
        raise ValueError("fit the draw model on games with expected scores and results 1, 1/2, 0")

    def loss(log_nu: float) -> float:
        return outcome_log_loss(*at_expected(e, math.exp(log_nu)), score)

    lo, hi = -12.0, 6.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = loss(a), loss(b)
    for _ in range(80):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = loss(b)
    return DrawModel(nu=float(math.exp(0.5 * (lo + hi))))
