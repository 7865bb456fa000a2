"""PNG plots for analysts (matplotlib, Agg backend): rating distributions, player
histories with uncertainty bands, and the calibration curve of a backtest."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from arpad.pipeline import catalog
from arpad.pipeline.periods import month_index
from arpad.pipeline.store import Store


def _save(fig, output: str | Path) -> Path:
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp.png")
    fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(out)
    return out


def distribution_data(
    store: Store, system: str, pool: str, periods: list[int] | None, last: int = 4
) -> pl.DataFrame:
    """(period, rating) of the players on the list; the ``last`` periods when none are given."""
    con = catalog.connect(store)
    try:
        if not periods:
            rows = con.execute(
                "SELECT DISTINCT period FROM rating_list WHERE system = ? AND pool = ? "
                "ORDER BY period DESC LIMIT ?",
                [system, pool, last],
            ).fetchall()
            periods = sorted(r[0] for r in rows)
        if not periods:
            raise ValueError(f"no ratings for {system}/{pool}; run arpad rate first")
        return catalog.query_frame(
            con,
            "SELECT period, rating FROM rating_list WHERE system = ? AND pool = ? "
            "AND list_contains(?, period) ORDER BY period",
            [system, pool, periods],
        )
    finally:
        con.close()


def plot_distribution(
    store: Store,
    system: str,
    output: str | Path,
    pool: str = "standard",
    periods: list[int] | None = None,
    bins: int = 40,
) -> Path:
    """Histogram of the listed ratings, one outline per period."""
    frame = distribution_data(store, system, pool, periods)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    values = frame["rating"].to_numpy()
    edges = np.histogram_bin_edges(values, bins=bins)
    for period in frame["period"].unique().sort().to_list():
        r = frame.filter(pl.col("period") == period)["rating"].to_numpy()
        ax.hist(r, bins=edges, histtype="step", linewidth=1.4, label=f"{period} (n={r.size})")
    ax.set_xlabel("rating")
    ax.set_ylabel("players")
    ax.set_title(f"Rating distribution: {system} / {pool}")
    ax.legend(fontsize=8)
    return _save(fig, output)


def history_data(store: Store, players: list[str], system: str, pool: str) -> pl.DataFrame:
    con = catalog.connect(store)
    try:
        frame = catalog.query_frame(
            con,
            "SELECT player_id, period, rating, rd, games, status FROM player_history "
            "WHERE system = ? AND pool = ? AND list_contains(?, player_id) ORDER BY period",
            [system, pool, players],
        )
    finally:
        con.close()
    missing = sorted(set(players) - set(frame["player_id"].to_list()))
    if missing:
        raise ValueError(f"no {system}/{pool} history for player(s) {', '.join(missing)}")
    return frame


def plot_history(
    store: Store, players: list[str], system: str, output: str | Path, pool: str = "standard"
) -> Path:
    """Rating after each period; a ±2·RD band where the system has RDs (Glicko, WHR)."""
    from arpad.pipeline.precision import coarse_periods

    frame = history_data(store, players, system, pool)
    # Periods with games known only to the year: open markers, "YYYY (year)" ticks.
    coarse = coarse_periods(store, pool, sorted(set(frame["period"].to_list())))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    # x is a month count, so players with different periods line up and gaps show as gaps
    for pid in players:
        f = frame.filter(pl.col("player_id") == pid)
        x = np.array([month_index(p) for p in f["period"].to_list()])
        r = f["rating"].to_numpy().astype(float)
        (line,) = ax.plot(x, r, marker="o", markersize=3, label=pid)
        rd = f["rd"].to_numpy().astype(float)
        if np.isfinite(rd).any():
            ax.fill_between(x, r - 2 * rd, r + 2 * rd, color=line.get_color(), alpha=0.18)
        rough = np.array([p in coarse for p in f["period"].to_list()], dtype=bool)
        if rough.any():
            ax.plot(x[rough], r[rough], "o", mfc="white", mec=line.get_color(), markersize=6)
    if coarse:
        ax.plot([], [], "o", mfc="white", mec="grey", label="games dated to the year only")
    ticks = sorted(set(frame["period"].to_list()))
    step = max(1, len(ticks) // 12)
    ax.set_xticks(
        [month_index(p) for p in ticks[::step]],
        [f"{p // 100} (year)" if p in coarse else str(p) for p in ticks[::step]],
        rotation=45,
        fontsize=8,
    )
    ax.set_xlabel("period")
    ax.set_ylabel("rating")
    ax.set_title(f"Rating history: {system} / {pool}")
    ax.legend(fontsize=8)
    return _save(fig, output)


def calibration_table(predicted: np.ndarray, actual: np.ndarray, bins: int = 10) -> pl.DataFrame:
    """Mean predicted and mean actual score per equal-width bin of the prediction."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, predicted, side="right") - 1, 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    keep = count > 0
    mean_p = np.bincount(which, weights=predicted, minlength=bins)[keep] / count[keep]
    mean_a = np.bincount(which, weights=actual, minlength=bins)[keep] / count[keep]
    return pl.DataFrame(
        {"bin": np.flatnonzero(keep), "games": count[keep], "predicted": mean_p, "actual": mean_a}
    )


def plot_calibration(
    predictions: pl.DataFrame, output: str | Path, target: str | None = None, bins: int = 10
) -> Path:
    """Calibration curves (mean actual vs mean predicted White score) of a backtest's
    predictions (``pipeline.backtest.predictions_frame``), one line per system."""
    if predictions.is_empty():
        raise ValueError("no predictions to plot")
    target = target or predictions["target"][0]
    frame = predictions.filter(pl.col("target") == target)
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for system in frame["system"].unique(maintain_order=True).to_list():
        f = frame.filter(pl.col("system") == system)
        if f["predicted"].n_unique() == 1:
            continue  # a constant predictor is a single point: not a curve
        t = calibration_table(f["predicted"].to_numpy(), f["actual"].to_numpy(), bins)
        ax.plot(t["predicted"], t["actual"], marker="o", markersize=3, label=system)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted White score")
    ax.set_ylabel("actual White score")
    ax.set_title(f"Calibration ({target})")
    ax.legend(fontsize=8)
    return _save(fig, output)
