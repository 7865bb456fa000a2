"""Accuracy backtests of the rating systems on the two Kaggle contests (docs/analysis.md "Backtest").

* ``kaggle2010``: train on months 1-95 of ``training_data.csv``, predict the 3,184
  games of ``cross_validation_dataset.csv`` (months 96-100) from the ratings after
  month 95, score with the contest's RMSE of monthly aggregated scores (§A.1, §A.3).
  Tuning (validation split): train on months 1-90 and predict every training game of
  months 91-95; the scored games are never used for tuning.
* ``deloitte2011``: the training data of the contest is not available (see
  ``data/README.md``), so the systems start from ``initial_ratings.csv`` (FIDE ratings
  going into month 1; other players at 2100 as in Sonas's Glicko benchmark) and walk
  the solution file's real games month by month (133, 134, 135): each month is
  predicted from the state after the earlier months, then rated (prequential: no
  game's result is seen before it is predicted). Scored with the binomial deviance
  (§B.1, clip 0.01/0.99). The contest's own public leaderboard set (``Public``) is the
  validation split; ``Private`` is the out-of-sample score.

Every system is driven through its ``initial_state``/``step`` API. A game is predicted
from the two players' ratings before its period: White's expected score is
``1 / (1 + 10^(-(b·g·(R_w - R_b) + h)/400))`` with ``g = 1/sqrt(1 + 3 q² (RD_w² + RD_b²)/π²)``
(Glickman 1999) when the system has RDs, else ``g = 1``; the white advantage ``h`` and the
slope ``b`` are fitted by logistic regression on the validation predictions, so systems
on other scales (ECF grades, Ingo) are comparable. A system's main constant (K, c, τ, …)
is chosen from a grid on the validation split too.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from arpad.pipeline import draws
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import PeriodGames, PlayerInfo, RatingSystem, State

DATASETS = ("kaggle2010", "deloitte2011")
GRID_MULTIPLIERS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
TUNED_FIELDS = ("k", "c", "tau")  # the first of these a system's rules have is tuned
Q = math.log(10.0) / 400.0


# -- metrics -------------------------------------------------------------------------------
def monthly_rmse(
    month: np.ndarray,
    white: np.ndarray,
    black: np.ndarray,
    predicted: np.ndarray,
    actual: np.ndarray,
) -> float:
    """Kaggle 2010 metric (docs/analysis.md "Protocols"): RMSE over (month, player) cells of the
    difference between the player's actual and predicted total score in that month."""
    month = np.asarray(month, dtype=np.int64)
    players = np.concatenate([white, black]).astype(np.int64)
    months = np.concatenate([month, month])
    pred = np.concatenate([predicted, 1.0 - np.asarray(predicted, dtype=np.float64)])
    act = np.concatenate([actual, 1.0 - np.asarray(actual, dtype=np.float64)])
    _, cell = np.unique(np.stack([months, players]), axis=1, return_inverse=True)
    cell = cell.ravel()
    diff = np.bincount(cell, weights=act) - np.bincount(cell, weights=pred)
    return float(np.sqrt(np.mean(diff**2)))


def binomial_deviance(predicted: np.ndarray, actual: np.ndarray, clip: float = 0.01) -> float:
    """Deloitte 2011 metric (docs/analysis.md "Protocols"): mean of -[Y log10 E + (1-Y) log10(1-E)],
    E clipped to [clip, 1 - clip]."""
    e = np.clip(np.asarray(predicted, dtype=np.float64), clip, 1.0 - clip)
    y = np.asarray(actual, dtype=np.float64)
    return float(np.mean(-(y * np.log10(e) + (1.0 - y) * np.log10(1.0 - e))))


# -- data ----------------------------------------------------------------------------------
@dataclass
class Games:
    period: np.ndarray  # int64
    white: np.ndarray  # int32 dense player index
    black: np.ndarray  # int32
    score: np.ndarray  # float64, White's score

    def select(self, mask: np.ndarray) -> Games:
        return Games(self.period[mask], self.white[mask], self.black[mask], self.score[mask])

    @property
    def size(self) -> int:
        return int(self.period.size)


@dataclass
class Dataset:
    name: str
    players: PlayerInfo
    default_rating: float  # rating of players the data gives none (prediction fallback too)
    metric: str  # "rmse" | "deviance"
    # protocol pieces
    validation_train: Games
    validation_target: Games
    train: Games
    targets: dict[str, Games]  # scored sets by name
    prequential: bool  # predict each target period from the state after the earlier ones
    notes: list[str] = field(default_factory=list)
    # players for systems with ``needs_initial_ratings`` (None: ``players``)
    seeded_players: PlayerInfo | None = None

    def players_for(self, system: RatingSystem) -> PlayerInfo:
        if not system.needs_initial_ratings or self.seeded_players is None:
            return self.players
        return self.seeded_players

    @property
    def draw_rate(self) -> float:
        """Share of draws in the training games (the validation target when there are none):
        P(draw) of the three-outcome reading of two-outcome predictions."""
        games = self.train if self.train.size else self.validation_target
        return float(np.mean(games.score == 0.5)) if games.size else 0.0

    def log_loss3(self, games: Games, predicted: np.ndarray, probabilities=None) -> float:
        """Three-outcome log-loss (docs/backtest.md "Draws"): of ``probabilities``
        (P(white), P(draw), P(black)) when given, else of the two-outcome reading of
        ``predicted`` (P(draw) = the training draw rate, the rest split by E)."""
        if probabilities is None:
            probabilities = draws.two_outcome_reading(predicted, self.draw_rate)
        return draws.outcome_log_loss(*probabilities, games.score)

    def score(self, games: Games, predicted: np.ndarray) -> float:
        if self.metric == "rmse":
            return monthly_rmse(games.period, games.white, games.black, predicted, games.score)
        return binomial_deviance(predicted, games.score)


def _players(ids: np.ndarray, rating=None, rated_games=None, peak=None) -> PlayerInfo:
    n = ids.size
    nan = np.full(n, np.nan)
    return PlayerInfo(
        player_id=np.asarray([str(i) for i in ids], dtype=object),
        rating=nan.copy() if rating is None else rating,
        rated_games=np.full(n, -1, dtype=np.int64) if rated_games is None else rated_games,
        peak_rating=nan.copy() if peak is None else peak,
        birth_year=np.full(n, -1, dtype=np.int64),
        rd=nan.copy(),
        volatility=nan.copy(),
        grade=nan.copy(),
        sex=np.full(n, None, dtype=object),
    )


def _games(frame: pl.DataFrame, index: dict[int, int]) -> Games:
    return Games(
        frame["period"].to_numpy().astype(np.int64),
        np.array([index[i] for i in frame["white"].to_list()], dtype=np.int32),
        np.array([index[i] for i in frame["black"].to_list()], dtype=np.int32),
        frame["score"].to_numpy().astype(np.float64),
    )


KAGGLE_COLUMNS = {
    "Month #": "period",
    "White Player #": "white",
    "Black Player #": "black",
    "Score": "score",
}


def load_kaggle2010(data_dir: Path, seed_rating: float = 2200.0) -> Dataset:
    """Kaggle 2010 protocol (docs/analysis.md "Protocols"). The data give no ratings: systems with an
    ``initial_rating`` rule start everyone there (``seed_rating``); for the others (FIDE,
    which rates newcomers only against rated opponents) every player starts rated at
    ``seed_rating`` with 0 rated games. Only rating differences matter."""
    base = Path(data_dir) / "kaggle2010_elo_vs_rest"
    train = pl.read_csv(base / "training_data.csv").rename(KAGGLE_COLUMNS)
    cv = pl.read_csv(base / "cross_validation_dataset.csv").rename(KAGGLE_COLUMNS)
    ids = np.unique(np.concatenate([train["white"].to_numpy(), train["black"].to_numpy()]))
    index = {int(p): i for i, p in enumerate(ids)}
    all_games = _games(train, index)
    n = ids.size
    seeded = _players(ids, rating=np.full(n, seed_rating), rated_games=np.zeros(n, dtype=np.int64))
    return Dataset(
        name="kaggle2010",
        players=_players(ids),
        seeded_players=seeded,
        default_rating=seed_rating,
        metric="rmse",
        validation_train=all_games.select(all_games.period <= 90),
        validation_target=all_games.select((all_games.period > 90) & (all_games.period <= 95)),
        train=all_games.select(all_games.period <= 95),
        targets={"cv": _games(cv, index)},
        prequential=False,
        notes=[
            f"the data give no ratings: every player starts at {seed_rating:.0f} "
            "(systems without an initial_rating rule, e.g. FIDE: rated, with 0 rated games)"
        ],
    )


def load_deloitte2011(data_dir: Path, unrated_rating: float = 2100.0) -> Dataset:
    """Deloitte 2011 solution file walked month by month from the month-1 FIDE ratings."""
    base = Path(data_dir) / "deloitte_fide_2011"
    initial = pl.read_csv(base / "initial_ratings.csv")
    sol = pl.read_csv(base / "test_solution.csv").rename(
        {"MonthID": "period", "WhitePlayer": "white", "BlackPlayer": "black", "WhiteScore": "score"}
    )
    sol = sol.filter(pl.col("Leaderboard") != "Spurious")
    ids = np.unique(
        np.concatenate(
            [sol["white"].to_numpy(), sol["black"].to_numpy(), initial["Player"].to_numpy()]
        )
    )
    index = {int(p): i for i, p in enumerate(ids)}
    n = ids.size
    rating = np.full(n, np.nan)
    games = np.zeros(n, dtype=np.int64)
    peak = np.full(n, np.nan)
    rows = np.array([index[p] for p in initial["Player"].to_list()])
    rating[rows] = initial["Rating"].to_numpy()
    games[rows] = initial["NumGames"].to_numpy()
    # K = 10 in the 2011 rules meant the published rating had reached 2400.
    peak[rows] = np.where(initial["KFactor"].to_numpy() == 10, 2400.0, np.nan)
    players = _players(ids, rating=rating, rated_games=games, peak=peak)
    public = _games(sol.filter(pl.col("Leaderboard") == "Public"), index)
    private = _games(sol.filter(pl.col("Leaderboard") == "Private"), index)
    everything = _games(sol, index)
    empty = everything.select(np.zeros(everything.size, dtype=bool))
    return Dataset(
        name="deloitte2011",
        players=players,
        default_rating=unrated_rating,
        metric="deviance",
        validation_train=empty,
        validation_target=public,
        train=empty,
        targets={"public": public, "private": private},
        prequential=True,
        notes=[
            "training data of the contest unavailable: systems start from the month-1 FIDE "
            f"ratings (others at {unrated_rating:.0f}) and rate months 133-135 prequentially",
            "public = validation split (tuned on), private = out-of-sample",
        ],
    )


def load(name: str, data_dir: Path) -> Dataset:
    if name == "kaggle2010":
        return load_kaggle2010(data_dir)
    if name == "deloitte2011":
        return load_deloitte2011(data_dir)
    raise ValueError(f"unknown backtest data {name!r} (known: {', '.join(DATASETS)})")


# -- driving a system ----------------------------------------------------------------------
def period_games(
    period: int, previous: int | None, games: Games, n_players: int, elapsed: int | None = None
) -> PeriodGames:
    """A period's games as the engine hands them to ``step`` (``PeriodGames.build``, the
    engine's own constructor); the protocols' periods are abstract (no calendar year)."""
    built = PeriodGames.build(
        period, games.white, games.black, games.score, n_players, None, previous
    )
    return dataclasses.replace(
        built, year=None, elapsed=built.elapsed if elapsed is None else elapsed
    )


class Runner:
    """One system with fixed rules: walks periods through ``initial_state``/``step``."""

    def __init__(self, system_name: str, rules, players: PlayerInfo):
        self.system = get_system(system_name)
        self.rules = rules
        self.n = players.n
        self.state: State = self.system.initial_state(players, rules)
        self.previous: int | None = None

    def walk(self, games: Games) -> None:
        if not games.size:
            return
        order = np.argsort(games.period, kind="stable")
        ps = games.period[order]
        bounds = np.flatnonzero(np.diff(ps)) + 1
        chunks = np.split(order, bounds)
        # Only the state after the last period is used: earlier periods are absorbed
        # (a plain step by default; WHR stores the games without refitting, same state).
        for i, chunk in enumerate(chunks):
            period = int(games.period[chunk[0]])
            pg = period_games(period, self.previous, games.select(chunk), self.n)
            if i < len(chunks) - 1:
                self.state = self.system.absorb(self.state, pg, self.rules)
            else:
                self.state, _ = self.system.step(self.state, pg, self.rules)
            self.previous = period

    def ratings(self, default: float) -> tuple[np.ndarray, np.ndarray | None]:
        return ratings_of(self.system, self.state, default)


def ratings_of(
    system: RatingSystem, state: State, default: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """(rating, rd or None) per player from the system's ``current_rating``;
    unrated players → ``default``, unknown RDs → 350."""
    rating, rd = system.current_rating(state)
    rating[np.isnan(rating)] = default
    if rd is not None:
        rd[np.isnan(rd)] = 350.0
    return rating, rd


def rating_difference(
    rating: np.ndarray, rd: np.ndarray | None, white: np.ndarray, black: np.ndarray
) -> np.ndarray:
    """g·(R_w − R_b): the RD-discounted difference when the system has RDs (Glickman 1999)."""
    d = rating[white] - rating[black]
    if rd is None:
        return d
    g = 1.0 / np.sqrt(1.0 + 3.0 * Q * Q * (rd[white] ** 2 + rd[black] ** 2) / math.pi**2)
    return g * d


@dataclass(frozen=True)
class Calibration:
    """White's expected score 1/(1 + 10^(−(slope·d + white_advantage + newcomer·u)/400)),
    u = (Black is a newcomer) − (White is a newcomer): a newcomer is a player with no
    starting rating and no game before the prediction, whom every system puts at its
    initial rating; ``newcomer`` is how much weaker newcomers prove to be."""

    white_advantage: float = 0.0
    slope: float = 1.0
    newcomer: float = 0.0

    def predict(self, features: np.ndarray) -> np.ndarray:
        d = np.where(np.isfinite(features[:, 0]), features[:, 0], 0.0)
        z = Q * (self.slope * d + self.white_advantage + self.newcomer * features[:, 1])
        return 0.5 * (1.0 + np.tanh(0.5 * z))


def fit_calibration(features: np.ndarray, score: np.ndarray, iterations: int = 100) -> Calibration:
    """Logistic regression of White's score on (d, u) (a draw counts half a win), by
    Newton's method with step halving; a weak ridge keeps it finite when the features
    separate the results. Non-finite differences count as 0."""
    d = np.where(np.isfinite(features[:, 0]), features[:, 0], 0.0)
    # intercept and newcomer coefficients in natural-log units, the slope dimensionless
    x = np.stack([np.ones_like(d), d * Q, features[:, 1]], axis=1)
    ridge = 1e-6 * max(d.size, 1)

    def objective(beta):
        z = x @ beta
        # -log-likelihood of fractional outcomes, written stably: log(1 + e^z) - y z
        return float(np.sum(np.logaddexp(0.0, z) - score * z) + 0.5 * ridge * beta @ beta)

    def gradient_hessian(beta):
        p = 0.5 * (1.0 + np.tanh(0.5 * (x @ beta)))
        grad = x.T @ (score - p) - ridge * beta
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(3)
        return grad, hess

    beta = draws.newton(objective, np.array([0.0, 1.0, 0.0]), gradient_hessian, iterations)
    return Calibration(
        white_advantage=float(beta[0] / Q), slope=float(beta[1]), newcomer=float(beta[2] / Q)
    )


def predict_targets(
    ds: Dataset, system: str, rules, train: Games, target: Games, calibration: Calibration | None
) -> tuple[np.ndarray, np.ndarray]:
    """(features [d, u] per game, predictions) of ``target`` after walking ``train``."""
    runner = Runner(system, rules, ds.players_for(get_system(system)))
    runner.walk(train)
    seen = ~np.isnan(ds.players.rating)
    seen[train.white] = True
    seen[train.black] = True
    features = np.empty((target.size, 2))

    def fill(rows):
        rating, rd = runner.ratings(ds.default_rating)
        w, b = target.white[rows], target.black[rows]
        features[rows, 0] = rating_difference(rating, rd, w, b)
        features[rows, 1] = (~seen[b]).astype(float) - (~seen[w]).astype(float)

    if ds.prequential:
        for period in np.unique(target.period):
            rows = np.flatnonzero(target.period == period)
            fill(rows)
            runner.walk(target.select(rows))
            seen[target.white[rows]] = True
            seen[target.black[rows]] = True
    else:
        fill(np.arange(target.size))
    cal = calibration or Calibration()
    return features, cal.predict(features)


# -- the table -----------------------------------------------------------------------------
@dataclass
class Row:
    system: str
    settings: str
    validation: float
    scores: dict[str, float]
    calibration: Calibration | None = None
    predictions: dict[str, np.ndarray] = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0
    log_loss3: dict[str, float] = field(default_factory=dict)  # three-outcome log-loss
    extra: list[Row] = field(default_factory=list)  # rows derived from this one (draw model)
    derived: bool = False  # a draw-model row over another row's ratings


@dataclass
class BacktestResult:
    dataset: str
    metric: str
    targets: list[str]
    rows: list[Row]
    notes: list[str]
    actual: dict[str, np.ndarray]
    draw_rate: float = math.nan  # the training draw rate of the two-outcome reading


def base_rules(system: str, ds: Dataset):
    """The system's default rules with the data set's starting rating where it has one."""
    sys_ = get_system(system)
    rules = sys_.rules_for(int(ds.train.period.max()) if ds.train.size else 1, "standard")
    names = {f.name for f in dataclasses.fields(rules)}
    if "initial_rating" in names:
        rules = dataclasses.replace(rules, initial_rating=ds.default_rating)
    return rules


def tuning_candidates(system: str, rules) -> list[dict[str, object]]:
    """Candidate rule overrides: the system's own ``tuning_grid``, else its K/c/τ × multipliers."""
    sys_ = get_system(system)
    grid = sys_.tuning_grid
    if grid:
        keys = list(grid)
        combos: list[dict[str, object]] = [{}]
        for key in keys:
            combos = [{**c, key: v} for c in combos for v in grid[key]]
        return combos
    names = {f.name for f in dataclasses.fields(rules)}
    for key in TUNED_FIELDS:
        if key in names:
            base = float(getattr(rules, key))
            return [{key: base * m} for m in GRID_MULTIPLIERS]
    return [{}]


def _settings_text(changes: dict[str, object], cal: Calibration) -> str:
    parts = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in changes.items()]
    parts.append(f"h={cal.white_advantage:.1f}")
    parts.append(f"slope={cal.slope:.2f}")
    parts.append(f"newcomer={cal.newcomer:.0f}")
    return ", ".join(parts)


@dataclass
class Candidate:
    """One tuning candidate of a system scored on the validation split (a backtest unit)."""

    system: str
    changes: dict[str, object]
    score: float = math.nan
    calibration: Calibration | None = None
    features: np.ndarray | None = None  # validation features [d, u]
    seconds: float = 0.0
    error: str = ""  # "Type: message" when the system could not be driven


def score_candidate(ds: Dataset, system: str, changes: dict[str, object]) -> Candidate:
    """Walk the validation training games under ``changes`` and score the validation
    target after calibration. Independent of every other candidate: the backtest's
    unit of work on a parallel runner."""
    t0 = time.perf_counter()
    out = Candidate(system, changes)
    try:
        rules = dataclasses.replace(base_rules(system, ds), **changes)
        val = ds.validation_target
        d, _ = predict_targets(ds, system, rules, ds.validation_train, val, None)
        out.calibration = fit_calibration(d, val.score)
        out.score = ds.score(val, out.calibration.predict(d))
        out.features = d
    except Exception as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    out.seconds = time.perf_counter() - t0
    return out


def candidate_units(ds: Dataset, systems: list[str]) -> list[tuple[str, dict[str, object]]]:
    """(system, changes) of every tuning candidate of ``systems``, in tuning order; a
    system whose rules cannot be built gets one empty candidate (it fails there)."""
    units: list[tuple[str, dict[str, object]]] = []
    for system in systems:
        try:
            combos = tuning_candidates(system, base_rules(system, ds))
        except Exception:
            combos = [{}]
        units += [(system, changes) for changes in combos]
    return units


def split_units(
    ds: Dataset, systems: list[str], cost: dict[str, float]
) -> tuple[list[tuple[str, dict[str, object]]], dict[str, int]]:
    """The candidates scored as units of their own, and the systems that are one unit
    (their candidates, then their finish: ``finish_with`` without candidates) with their
    number of candidates. A system is one unit when its candidates together cost (by
    ``cost``, a system's ``relative_cost``) at most an eighth of all candidates: a
    scheduler round trip per 40 ms candidate costs as much as the candidate, while
    the costly systems' candidates (WHR's) stay units of their own so that the
    workers share them (docs/runners.md "Dask start-up and hand-out")."""
    units = candidate_units(ds, systems)
    total = sum(cost[s] for s, _ in units)
    count: dict[str, int] = {}
    for s, _ in units:
        count[s] = count.get(s, 0) + 1
    whole = {s: n for s, n in count.items() if cost[s] * n <= total / 8}
    return [(s, changes) for s, changes in units if s not in whole], whole


class _NotScored(Exception):
    """A candidate of the system failed (its message says how)."""


def finish_system(
    ds: Dataset,
    system: str,
    candidates: list[Candidate],
    log: Callable[[str], None] | None = None,
) -> Row:
    """The best candidate (the first with the lowest validation score), the fitted white
    advantage tried inside the system's own update, the draw layer, and every target
    set scored: the system's row (with a note instead when it could not be driven)."""
    t0 = time.perf_counter()
    spent = sum(c.seconds for c in candidates)
    failed = next((c.error for c in candidates if c.error), "")
    if log and not failed:
        for c in candidates:
            log(f"  {system} {c.changes}: validation {c.score:.6f}")
    try:
        if failed:
            raise _NotScored(failed)
        row = _finish(ds, system, candidates)
    except Exception as exc:
        row = Row(system, "", math.nan, dict.fromkeys(ds.targets, math.nan))
        row.log_loss3 = dict.fromkeys(ds.targets, math.nan)
        message = str(exc) if isinstance(exc, _NotScored) else f"{type(exc).__name__}: {exc}"
        row.note = f"not scored: {message}"
    row.seconds = spent + time.perf_counter() - t0
    if log:
        log(f"{system}: {row.scores} ({row.seconds:.1f}s)")
    return row


def finish_with(
    ds: Dataset, system: str, log: Callable[[str], None] | None, candidates: list[Candidate]
) -> Row:
    """``finish_system`` with the candidates last (a ``Runner.map_then`` second stage);
    with none, the system's candidates are scored here first (``evaluate_system``: a
    system cheap enough to be one unit)."""
    if not candidates:
        return evaluate_system(ds, system, log)
    return finish_system(ds, system, candidates, log)


def _finish(ds: Dataset, system: str, candidates: list[Candidate]) -> Row:
    best = candidates[0]
    for c in candidates[1:]:
        if c.score < best.score:
            best = c
    assert best.calibration is not None and best.features is not None
    rules0 = base_rules(system, ds)
    val = ds.validation_target
    val_score, changes, cal, val_features = (
        best.score,
        best.changes,
        best.calibration,
        best.features,
    )
    names = {f.name for f in dataclasses.fields(rules0)}
    if "white_advantage" in names and getattr(rules0, "white_advantage", None) is not None:
        # try the fitted white advantage inside the system's own update too
        trial = {**changes, "white_advantage": round(cal.white_advantage, 1)}
        rules = dataclasses.replace(rules0, **trial)
        d, _ = predict_targets(ds, system, rules, ds.validation_train, val, None)
        cal2 = fit_calibration(d, val.score)
        score = ds.score(val, cal2.predict(d))
        if score < val_score:
            val_score, changes, cal, val_features = score, trial, cal2, d
    rules = dataclasses.replace(rules0, **changes)
    row = Row(system, _settings_text(changes, cal), val_score, {}, cal)
    model = draw_model(val_features, val.score)
    extra = None
    if model is not None:
        extra = Row(
            f"{system} + davidson",
            draw_settings_text(model),
            ds.score(val, model.expected(val_features[:, 0], val_features[:, 1])),
            {},
            derived=True,
        )
        row.extra.append(extra)
    for name, target in ds.targets.items():
        features, pred = predict_targets(ds, system, rules, ds.train, target, cal)
        row.scores[name] = ds.score(target, pred)
        row.log_loss3[name] = ds.log_loss3(target, pred)
        row.predictions[name] = pred
        if extra is not None and model is not None:
            probs = model.probabilities(features[:, 0], features[:, 1])
            extra.predictions[name] = probs[0] + 0.5 * probs[1]
            extra.scores[name] = ds.score(target, extra.predictions[name])
            extra.log_loss3[name] = ds.log_loss3(target, extra.predictions[name], probs)
    return row


def evaluate_system(ds: Dataset, system: str, log: Callable[[str], None] | None = None) -> Row:
    """Tune on the validation split, then score every target set (in this process)."""
    candidates = [score_candidate(ds, s, c) for s, c in candidate_units(ds, [system])]
    return finish_system(ds, system, candidates, log)


def draw_model(features: np.ndarray, score: np.ndarray) -> draws.DrawModel | None:
    """Davidson's draw layer fitted on the validation predictions' features (the same
    games and features as the calibration); None when the scores are not all 1/½/0."""
    if not score.size or not np.all(np.isin(score, (0.0, 0.5, 1.0))):
        return None
    return draws.fit_davidson(features[:, 0], score, features[:, 1])


def draw_settings_text(model: draws.DrawModel) -> str:
    return (
        f"nu={model.nu:.3f}, h={model.white_advantage:.1f}, slope={model.slope:.2f}, "
        f"newcomer={model.newcomer:.0f}"
    )


def constant_rows(ds: Dataset) -> list[Row]:
    """The two constant predictions. The training mean predicts the targets from the
    training games; its validation score is of the mean of the validation split's own
    training games (Kaggle: months 1–90), so that column stays out of sample as the
    systems' is (the analyst's attack, round 12: it used months 1–95, the scored months
    91–95 among them). Without training games the validation mean is the row's, as its
    label says."""
    rows = []
    trained = bool(ds.train.size)
    mean = float(np.mean(ds.train.score if trained else ds.validation_target.score))
    held_out = mean
    if trained and ds.validation_train.size:
        held_out = float(np.mean(ds.validation_train.score))
    for label, value, on_validation in (
        ("constant 0.5", 0.5, 0.5),
        (
            "constant mean White score (training)"
            if trained
            else "constant mean White score (validation)",
            mean,
            held_out,
        ),
    ):
        settings = f"p={value:.6f}"
        if on_validation != value:
            settings += f"; validation p={on_validation:.6f}"
        row = Row(
            label,
            settings,
            ds.score(ds.validation_target, np.full(ds.validation_target.size, on_validation)),
            {},
        )
        for name, target in ds.targets.items():
            pred = np.full(target.size, value)
            row.scores[name] = ds.score(target, pred)
            row.log_loss3[name] = ds.log_loss3(target, pred)
            row.predictions[name] = pred
        rows.append(row)
    return rows


def result(ds: Dataset, dataset: str, rows: list[Row]) -> BacktestResult:
    """The table: each row followed by the rows derived from it (its draw model)."""
    return BacktestResult(
        dataset=dataset,
        metric=ds.metric,
        targets=list(ds.targets),
        rows=[r for row in rows for r in (row, *row.extra)],
        notes=ds.notes,
        actual={k: g.score for k, g in ds.targets.items()},
        draw_rate=ds.draw_rate,
    )


# -- outputs -------------------------------------------------------------------------------
METRIC_NAMES = {
    "rmse": "RMSE of monthly aggregated scores (docs/analysis.md, Protocols)",
    "deviance": "binomial deviance, E clipped to [0.01, 0.99] (docs/analysis.md, Protocols)",
}


def result_frame(result: BacktestResult) -> pl.DataFrame:
    """One row per system: validation score, each target's score, chosen settings, note."""
    data: dict[str, list] = {"system": [r.system for r in result.rows]}
    data["validation"] = [r.validation for r in result.rows]
    for t in result.targets:
        data[t] = [r.scores.get(t, math.nan) for r in result.rows]
    for t in result.targets:
        data[f"{t} log-loss3"] = [r.log_loss3.get(t, math.nan) for r in result.rows]
    data["settings"] = [r.settings for r in result.rows]
    data["note"] = [r.note for r in result.rows]
    return pl.DataFrame(data)


def predictions_frame(result: BacktestResult, derived: bool = True) -> pl.DataFrame:
    """Long table (system, target, game, predicted, actual) for calibration plots;
    ``derived=False`` leaves out the draw-model rows (the calibration plot shows the
    systems; docs/backtest.md "Draws")."""
    parts = []
    for row in result.rows:
        if row.derived and not derived:
            continue
        for target, pred in row.predictions.items():
            actual = result.actual[target]
            parts.append(
                pl.DataFrame(
                    {
                        "system": [row.system] * pred.size,
                        "target": [target] * pred.size,
                        "game": np.arange(pred.size, dtype=np.int64),
                        "predicted": pred,
                        "actual": actual,
                    }
                )
            )
    return pl.concat(parts) if parts else pl.DataFrame()


def markdown_section(result: BacktestResult, command: str) -> str:
    """The data set's section of docs/backtest.md, between markers so reruns replace it."""
    lines = [
        f"<!-- backtest:{result.dataset} -->",
        f"## {result.dataset}",
        "",
        f"Metric: {METRIC_NAMES[result.metric]}; lower is better.",
        "",
        "Reproduce with:",
        "",
        "```",
        command,
        "```",
        "",
    ]
    lines += [f"- {note}" for note in result.notes]
    lines.append(
        "- *target* log-loss3: mean −ln P(outcome) over win/draw/loss (docs/backtest.md "
        '"Draws"); two-outcome rows read P(draw) = the draw rate of the '
        f"training games {result.draw_rate:.4f} (of the validation split where the protocol "
        "has no training games), the rest split by E; `+ davidson` rows: Davidson's draw "
        "model fitted on the validation split; lower is better"
    )
    lines.append("")
    loss_cols = [f"{t} log-loss3" for t in result.targets]
    header = ["system", "validation", *result.targets, *loss_cols, "tuned settings"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in result.rows:
        cells = [row.system, _fmt(row.validation)]
        cells += [_fmt(row.scores.get(t, math.nan)) for t in result.targets]
        cells += [_fmt(row.log_loss3.get(t, math.nan)) for t in result.targets]
        cells.append(row.note or row.settings)
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"<!-- /backtest:{result.dataset} -->", ""]
    return "\n".join(lines)


def _fmt(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.6f}"


REPORT_HEADER = """# Backtest: how well each rating system predicts results

Generated by `arpad backtest` (pipeline/backtest.py); protocols in docs/analysis.md
("Protocols") and docs/backtest.md ("Draws"). Each system's settings (K/c/τ/…, white
advantage h and the slope of the prediction curve) were tuned on the validation split,
never on the scored games. Timings and scores were taken on a shared 2-core machine; the
scores do not depend on it.

"""


def write_markdown(result: BacktestResult, path: Path, command: str) -> None:
    """Insert or replace the data set's section of the report file. A target written in
    place (a FIFO, /dev/stdout, a terminal: store.output_target, docs/cli.md "Output
    files") is never read, which would block or read the wrong stream: it gets the header
    and this section. A regular file is replaced atomically."""
    from arpad.pipeline.store import atomic_write_text, output_target

    section = markdown_section(result, command)
    target, in_place = output_target(path)
    if in_place:
        atomic_write_text(REPORT_HEADER + section, path)
        return
    text = target.read_text() if target.exists() else REPORT_HEADER
    start = text.find(f"<!-- backtest:{result.dataset} -->")
    end_marker = f"<!-- /backtest:{result.dataset} -->"
    end = text.find(end_marker)
    if start >= 0 and end >= 0:
        text = text[:start] + section.rstrip("\n") + text[end + len(end_marker) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    atomic_write_text(text, path)
