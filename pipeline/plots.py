"""PNG plots for analysts (matplotlib): rating distributions, player histories with
uncertainty bands, and the calibration curve of a backtest.

Figures are ``matplotlib.figure.Figure`` objects made without pyplot: arpad never
selects a matplotlib backend, so a notebook's backend and its open figures are left
alone (``matplotlib.use("Agg")`` here switched them, closing every open figure), and
PNG files are drawn by Agg whatever the backend (docs/api.md "Arguments")."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl

from arpad.pipeline import catalog
from arpad.pipeline.periods import first_day
from arpad.pipeline.store import Store, atomic_write_bytes


def _figure(size: tuple[float, float], dpi: float | None = None):
    """(figure, axes) of one plot, outside pyplot's registry (no backend chosen). The
    figure shows itself as a PNG in a notebook (IPython's ``_repr_png_``): without pyplot
    imported no inline backend had registered a display for figures, and ``fig`` as a
    cell's last expression showed only ``<Figure size 900x480 with 1 Axes>``
    (docs/api.md "In a notebook")."""
    from functools import partial

    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=dpi)
    fig._repr_png_ = partial(_png, fig)
    return fig, fig.subplots()


def _png(fig) -> bytes:
    """The figure drawn by Agg as PNG bytes (as ``_save`` draws it), whatever the backend."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def _save(fig, output: str | Path) -> Path:
    """``fig`` as PNG in ``output``: atomically, or in place on a FIFO or /dev/null,
    never renamed over one (``store.atomic_write_bytes``, docs/cli.md "Output files")."""
    import io

    out = Path(output)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    atomic_write_bytes(buffer.getvalue(), out)
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
            raise store.no_ratings(system, pool)
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
    fig, ax = _figure((8, 4.5))
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


COARSE_LABEL = "games dated to the year only (bar: the year)"
BAND_LABEL = "band: ±2 RD (≈95%)"  # rating ± 2·RD: about 95 % under the normal model


def history_data(store: Store, players: list[str], system: str, pool: str) -> pl.DataFrame:
    """(player_id, period, rating_before, rating, rd, games, status) of ``players``
    (ids), by period."""
    con = catalog.connect(store)
    try:
        frame = catalog.query_frame(
            con,
            "SELECT player_id, period, rating_before, rating, rd, games, status "
            "FROM player_history "
            "WHERE system = ? AND pool = ? AND list_contains(?, player_id) ORDER BY period",
            [system, pool, players],
        )
    finally:
        con.close()
    missing = sorted(set(players) - set(frame["player_id"].to_list()))
    if missing:
        raise ValueError(f"no {system}/{pool} history for player(s) {', '.join(missing)}")
    return frame


def _x(period: int):
    """A period's place on the axis: its first day (a real date), or the period number
    for abstract periods (Kaggle's months), which have no date."""
    day = first_day(period)
    return day if day is not None else period


def _x_before(period: int):
    """Where the rating before ``period`` is drawn: at the period before it (the first
    day of the month before; the number before for abstract periods), where that
    period's rating after would be."""
    day = first_day(period)
    return period - 1 if day is None else _months_on(day, -1)


def _months_on(day: dt.date, months: int) -> dt.date:
    """The first day of the month ``months`` after (before, if negative) ``day``'s."""
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def _span(xs: list):
    """Axis limits for a plot whose points all fall on one period (a one-period store
    without a rating before): a period either side, not matplotlib's ±2 years."""
    (x,) = set(xs)
    if isinstance(x, dt.date):
        return _months_on(x, -1), _months_on(x, 1)
    return x - 1, x + 1


def _until_last_game(frame: pl.DataFrame) -> pl.DataFrame:
    """Each player's rows up to their last period with games: a master who stopped
    playing in 1914 is not drawn, his band widening, until the last period of the
    store. A player without any game keeps all rows (e.g. a published rating only)."""
    last = (
        frame.filter(pl.col("games").fill_null(0) > 0)
        .group_by("player_id")
        .agg(pl.col("period").max().alias("_last"))
    )
    return (
        frame.join(last, on="player_id", how="left")
        .filter(pl.col("_last").is_null() | (pl.col("period") <= pl.col("_last")))
        .drop("_last")
    )


def _coarse_players(store: Store, pool: str, periods: list[int]) -> dict[int, set[str]]:
    """Per period of ``periods`` holding games dated only to the year, the ids (after
    merges) that played such a game in it: a player's open marker is drawn for his own
    games, not for another player's of the pool (docs/pgn-trf.md "Imprecise dates")."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from arpad.pipeline.identity import alias_map
    from arpad.pipeline.precision import COARSE, coarse_periods

    aliases = alias_map(store)
    out: dict[int, set[str]] = {}
    for period in coarse_periods(store, pool, periods):
        ids: set[str] = set()
        for path in store.game_files(pool, period):
            if "date_precision" not in pq.ParquetFile(path).schema_arrow.names:
                continue
            table = pq.read_table(path, columns=["white_id", "black_id", "date_precision"])
            table = table.filter(pc.is_in(table["date_precision"], pa.array(COARSE)))
            ids.update(table["white_id"].to_pylist(), table["black_id"].to_pylist())
        out[period] = {aliases.get(i, i) for i in ids}
    return out


def band_points(
    store: Store, system: str, pool: str, player_id: str, rows: pl.DataFrame
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(periods, rating, rd) of the ±2·RD band of one player's ``rows`` (``history_data``'s,
    by period): each row, and in a gap between two rows (months in which no period was
    walked, or the store has none) one point a month, the rating held and the RD aged
    month by month from the earlier row as the system ages it (``history.aged_rd``,
    with the rules of the later row's period). Steinitz's RD 92.9 after 1866-08 is 187.2
    by 1886-11 under Glicko-2 (his band stayed at 92.9 for 20 years until round 14,
    docs/analysis.md "Plots"). A system that does not age an RD this way (WHR's fit):
    the rows alone."""
    from arpad.pipeline.history import _months_on, aged_rd
    from arpad.pipeline.periods import months_between

    at = rows["period"].to_list()
    rating = rows["rating"].cast(pl.Float64).to_numpy()
    rd = rows["rd"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    gaps = [
        (i, m)
        for i in range(len(at) - 1)
        if (m := months_between(at[i], at[i + 1])) > 1 and np.isfinite(rd[i])
    ]
    if not gaps:
        return at, rating, rd
    con = catalog.connect(store)
    try:
        volatility = dict(
            con.execute(
                "SELECT period, volatility_after FROM ratings WHERE system = ? AND pool = ? "
                "AND player_id = ? AND list_contains(?, period)",
                [system, pool, player_id, [at[i] for i, _ in gaps]],
            ).fetchall()
        )
    finally:
        con.close()
    filled = pl.DataFrame(
        [
            (at[i], j, float(rating[i]), float(rd[i]), volatility.get(at[i]), at[i + 1])
            for i, m in gaps
            for j in range(1, m)
        ],
        schema={
            "period": pl.Int64,
            "months": pl.Int64,
            "rating": pl.Float64,
            "rd": pl.Float64,
            "volatility": pl.Float64,
            "until": pl.Int64,
        },
        orient="row",
    )
    aged = aged_rd(store, system, pool, filled)
    if aged is None:
        return at, rating, rd
    points = [(p, rating[i], rd[i]) for i, p in enumerate(at)]
    points += [
        (_months_on(p, j), r, a)
        for (p, j, r, a) in zip(
            filled["period"].to_list(), filled["months"].to_list(), filled["rating"].to_list(),
            aged.tolist(), strict=True,
        )
    ]  # fmt: skip
    points.sort(key=lambda t: months_between(at[0], t[0]))
    return (
        [p for p, _, _ in points],
        np.array([r for _, r, _ in points], dtype=float),
        np.array([a for _, _, a in points], dtype=float),
    )


def history_figure(store: Store, players: list[str], system: str, pool: str = "standard"):
    """(figure, axes) of the players' ratings after each period on one dated axis, a
    step line per player (the rating holds until the next row; a dot for each period
    with games, as ``arpad history --plot``), with a ±2·RD band where the system keeps
    an RD (Glicko, Glicko-2, WHR). ``players``: ids or names (pipeline/lookup.py),
    matched as ``arpad history`` matches them: among the players with ratings rows,
    rated or not yet, so a name of two such players is refused (``'Mieses' matches 2
    players``), not the rated one drawn; a player found without any rating is refused
    (nothing to draw). The title and legend name them."""
    from arpad.pipeline.lookup import rated_ids, resolve_players

    what = f"{system}/{pool}"
    chosen = resolve_players(store, players, rated_ids(store, system, pool, unrated=True), what)
    frame = history_data(store, [pid for pid, _ in chosen], system, pool)
    frame = frame.filter(pl.col("rating").is_not_null())
    drawn_ids = set(frame["player_id"].to_list())
    unrated = [f"{pid} ({name})" for pid, name in chosen if pid not in drawn_ids]
    if unrated:
        raise ValueError(
            f"no {what} rating to plot for {'; '.join(unrated)}: not rated yet "
            "(arpad history shows the unrated rows)"
        )
    frame = _until_last_game(frame)
    shown = [name for _, name in chosen]
    labels = [
        f"{name} ({pid})" if shown.count(name) > 1 else name for (pid, name) in chosen
    ]  # two people of one name are told apart by id
    # Periods where the player has games known only to the year (docs/pgn-trf.md):
    # open markers.
    coarse = _coarse_players(store, pool, sorted(set(frame["period"].to_list())))
    fig, ax = _figure((9, 4.8))
    banded = marked = False
    drawn: list = []
    for (pid, _), label in zip(chosen, labels, strict=True):
        f = frame.filter(pl.col("player_id") == pid)
        x = [_x(p) for p in f["period"].to_list()]
        r = f["rating"].to_numpy().astype(float)
        # a dot where the player played, not on a row that exists because others played
        # (status inactive: Bird's 188612 of Steinitz–Zukertort), as ``arpad history
        # --plot`` draws it (pipeline/history.py; docs/analysis.md "Plots")
        played = np.flatnonzero(f["games"].fill_null(0).to_numpy() > 0).tolist()
        line_x, line_r = x, r
        if f.height == 1 and f["rating_before"][0] is not None:
            # One period: from the rating before it, at the period before (a lone dot
            # showed no movement; docs/cli.md "arpad plot", tests/test_round8_summary_plot.py).
            line_x = [_x_before(f["period"][0]), *x]
            line_r = np.concatenate([[float(f["rating_before"][0])], r])
            played = [i + 1 for i in played]
        drawn.extend(line_x)
        # A step line: the rating holds until the next period it changes in, so 15
        # years without games are flat, not a slope (historian round 12).
        (line,) = ax.plot(
            line_x,
            line_r,
            drawstyle="steps-post",
            marker="o",
            markersize=3,
            markevery=played,
            label=label,
        )
        rough = [i for i, p in enumerate(f["period"].to_list()) if pid in coarse.get(p, ())]
        if rough:
            ax.plot(
                [x[i] for i in rough],
                r[rough],
                "o",
                mfc="white",
                mec=line.get_color(),
                markersize=6,
            )
            marked = True
            if isinstance(x[rough[0]], dt.date):  # the whole year the games may be in
                years = [x[i].year for i in rough]
                ax.hlines(
                    r[rough],
                    [dt.date(y, 1, 1) for y in years],
                    [dt.date(y, 12, 31) for y in years],
                    color=line.get_color(),
                    alpha=0.5,
                    lw=1,
                )
        rd = f["rd"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        if np.isfinite(rd).any():
            if len(x) == 1:  # one period: a bar, since a band of no width is invisible
                ax.vlines(x, r - 2 * rd, r + 2 * rd, color=line.get_color(), alpha=0.3, lw=6)
            else:
                bx, br, brd = band_points(store, system, pool, pid, f)
                ax.fill_between(
                    [_x(p) for p in bx], br - 2 * brd, br + 2 * brd, step="post",
                    color=line.get_color(), alpha=0.18,
                )  # fmt: skip
            banded = True
    if marked:
        ax.plot([], [], "o", mfc="white", mec="grey", label=COARSE_LABEL)
    handles, texts = ax.get_legend_handles_labels()
    if banded:
        from matplotlib.patches import Patch

        handles.append(Patch(facecolor="grey", alpha=0.3))
        texts.append(BAND_LABEL)
    ax.legend(handles, texts, fontsize=8, loc="best")
    dated = any(isinstance(_x(p), dt.date) for p in frame["period"].to_list())
    ax.set_xlabel("date" if dated else "period")
    if drawn and len(set(drawn)) == 1:
        ax.set_xlim(*_span(drawn))
    if dated:
        fig.autofmt_xdate()
    else:  # period numbers are whole: no tick at 133.25 between two periods
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("rating")
    ax.set_title(f"Rating history ({system} / {pool}): {'; '.join(dict.fromkeys(shown))}")
    ax.grid(alpha=0.3)
    return fig, ax


def plot_history(
    store: Store, players: list[str], system: str, output: str | Path, pool: str = "standard"
) -> Path:
    """``history_figure`` written as a PNG (atomically)."""
    fig, _ = history_figure(store, players, system, pool)
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
    if frame.is_empty():  # a mistyped --target drew an empty plot
        have = ", ".join(predictions["target"].unique(maintain_order=True).to_list())
        raise ValueError(
            f"--target {target}: the predictions have no such target (they have: {have})"
        )
    fig, ax = _figure((6, 6))
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
