"""A player's rating history (one system, one pool) as events, and a plot of it.

Each stored period gives one row; a one-off adjustment (FIDE's 2024
compression, or a two-monthly list published in a month without games) is an
event of its own, listed before the period's games:

    rating_after = rating_before + adjustment + change
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import polars as pl

from arpad.pipeline import catalog, periods
from arpad.pipeline.store import Store, atomic_write_bytes
from arpad.pipeline.systems import DEFAULT_SYSTEM

_SQL = """
SELECT period, rating_before, adjustment, change, rating_after, games, score, k, status
FROM ratings WHERE system = ? AND pool = ? AND player_id = ?
ORDER BY period
"""


def rating_history(
    store: Store, player_id: str, system: str = DEFAULT_SYSTEM, pool: str = "standard"
):
    """Events of ``player_id``: columns period, event, rating_before, delta, rating_after,
    games, score, k, status. ``event`` is 'adjustment' or 'games'/'inactive'/'new'/'unrated'.
    A merged duplicate id gives the history of the id it was merged into; a text that
    is not a player id is a name (pipeline/lookup.py ``one_player``)."""
    from arpad.pipeline.lookup import one_player

    player_id = one_player(store, player_id, system, pool)
    con = catalog.connect(store)
    try:
        rows = catalog.query_arrow(con, _SQL, [system, pool, player_id]).to_pylist()
    finally:
        con.close()
    if not rows:
        raise ValueError(f"no {system}/{pool} ratings for {player_id}")
    events = []
    for r in rows:
        before = r["rating_before"]
        adj = r["adjustment"]
        if adj is not None and before is not None:
            events.append(_event(r, "adjustment", before, adj, before + adj, 0, None, None))
            before = before + adj
        # an ECF interim row (status provisional) holds the season's games so far
        kind = {
            "rated": "games",
            "inactive": "inactive",
            "new": "new",
            "provisional": "games" if r["games"] else "provisional",
        }.get(r["status"], "unrated")
        delta = r["change"] if before is not None else None
        events.append(
            _event(r, kind, before, delta, r["rating_after"], r["games"], r["score"], r["k"])
        )
    return pl.DataFrame(events, schema=_SCHEMA, orient="row")


_SCHEMA = {
    "period": pl.Int32,
    "event": pl.Utf8,
    "rating_before": pl.Float64,
    "delta": pl.Float64,
    "rating_after": pl.Float64,
    "games": pl.Int32,
    "score": pl.Float64,
    "k": pl.Float64,
    "status": pl.Utf8,
}


def whole_numbers(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    """``frame`` (``rating_history``'s) with its rating columns as whole numbers when
    ``system`` publishes whole numbers (``RatingSystem.integer_ratings``: FIDE's 1720, not
    1720.0, as ``arpad list`` and ``card`` print them) and every value is one; K too
    when whole. What ``arpad history`` prints (the officer's report, round 9); the
    API's frame keeps its floats."""
    from arpad.pipeline.lists import _all_whole
    from arpad.pipeline.systems import get_system

    if not get_system(system).integer_ratings:
        return frame
    whole = [c for c in ("rating_before", "delta", "rating_after", "k") if _all_whole(frame[c])]
    return frame.with_columns(pl.col(c).fill_nan(None).cast(pl.Int64) for c in whole)


# Consecutive inactive periods shown as one line by the table of `arpad history`
# (docs/cli.md "history"): a run of at least this many.
COLLAPSE_MIN = 2


def collapse_inactive(frame: pl.DataFrame, min_run: int = COLLAPSE_MIN) -> pl.DataFrame:
    """``frame`` (``rating_history``) with every run of at least ``min_run`` consecutive
    ``inactive`` events as one row: the run's first period, event ``inactive to
    2022-01 (31 periods)`` (its last period), rating_before of the first, rating_after
    of the last, delta their difference (0: the rating did not move; WHR's revised
    history may move it), no games. Any other event (games, an adjustment, new,
    unrated) ends a run. Nothing else changes."""
    from arpad.pipeline.periods import period_label

    rows = frame.rows(named=True)
    out: list[dict] = []
    k = 0
    while k < len(rows):
        end = k
        while end < len(rows) and rows[end]["event"] == "inactive":
            end += 1
        if end - k < min_run:
            out.append(rows[k])
            k += 1
            continue
        first, last = rows[k], rows[end - 1]
        before, after = first["rating_before"], last["rating_after"]
        # 40 characters at most: the table's width for a text (pipeline/output.py)
        label = f"inactive to {period_label(last['period'])} ({end - k} periods)"
        delta = after - before if before is not None and after is not None else None
        out.append(
            {
                **first,
                "event": label,
                "delta": delta,
                "rating_after": after,
                "games": 0,
                "score": 0.0,
                "k": None,
            }
        )
        k = end
    return pl.DataFrame(out, schema=_SCHEMA, orient="row") if out else frame.clear()


def stated_start_note(
    store: Store, frame: pl.DataFrame, player_id: str, system: str, pool: str
) -> str | None:
    """The footnote of `arpad history` for the rows of ``frame`` (``rating_history``'s)
    whose rating_before is not the previous row's rating_after because a games file
    states the player's rating for that period: the stated rating re-seeded him (a
    system that seeds, ``seeds_from_observations``; docs/observations.md "Corrections and
    stated ratings"). None when there is no such row; the count and three examples."""
    from arpad.kernels.rounding import round_half_away_array
    from arpad.pipeline.systems import get_system

    if frame.height < 2 or not get_system(system).seeds_from_observations:
        return None
    scale = 1.0 if get_system(system).integer_ratings else 10.0
    at_scale = [
        pl.Series(c, round_half_away_array(frame.get_column(c).to_numpy() * scale) / scale)
        for c in ("rating_before", "rating_after")
    ]
    rows = (
        frame.select("period")
        .with_columns(s.fill_nan(None) for s in at_scale)
        .with_columns(
            pl.col("rating_after").shift(1).alias("previous"),
            pl.col("period").shift(1).alias("previous_period"),
        )
        .filter(pl.col("rating_before") != pl.col("previous"))
    )
    if rows.is_empty():
        return None
    from arpad.pipeline.stated_ratings import stated_in

    stored = store.periods(pool)
    months = sorted(
        {
            p
            for a, b in rows.select("previous_period", "period").iter_rows()
            for p in stored
            if a <= p <= b
        }
    )
    stated = stated_in(store, pool, months)
    if stated.is_empty():
        return None
    mine = stated.filter(pl.col("player_id") == player_id).unique("period", keep="first")
    hit = rows.with_columns(pl.col("period").cast(pl.Int64)).join(
        mine.select("period", "source_file"), on="period"
    )
    if hit.is_empty():
        return None

    def show(value: float) -> str:
        return f"{value:.0f}" if scale == 1.0 else f"{value:g}"

    examples = [
        f"{r['period']}: {show(r['rating_before'])} stated in {r['source_file']}, "
        f"{show(r['previous'])} after {r['previous_period']}"
        for r in hit.sort("period").head(3).iter_rows(named=True)
    ]
    return (
        f"{hit.height} period(s) of {player_id} start from the rating a games file states, "
        f"not the previous rating_after ({'; '.join(examples)}"
        + (", …" if hit.height > 3 else "")
        + '): a stated rating re-seeds the player (docs/observations.md "Corrections and '
        'stated ratings")'
    )


def _event(r, kind, before, delta, after, games, score, k):
    return (r["period"], kind, before, delta, after, games, score, k, r["status"])


def _x(period: int):
    day = periods.first_day(period)
    return day if day is not None else period


def plot_history(frame: pl.DataFrame, path: str | Path, title: str) -> Path:
    """A step plot of the rating after each event; adjustments are marked and labelled."""
    from arpad.pipeline.plots import _figure  # no backend chosen (pipeline/plots.py)

    rated = frame.filter(pl.col("rating_after").is_not_null())
    fig, ax = _figure((9, 4.5), dpi=110)
    xs = [_x(p) for p in rated["period"]]
    ax.step(xs, rated["rating_after"].to_list(), where="post", color="#1f5fa8", lw=1.6,
            label="rating after the period")  # fmt: skip
    # a dot where the player played: FIDE's rated periods without games are "games" rows
    # too (docs/fide-history.md "History and plot")
    games = rated.filter((pl.col("event") == "games") & (pl.col("games").fill_null(0) > 0))
    ax.plot([_x(p) for p in games["period"]], games["rating_after"].to_list(), "o", ms=3,
            color="#1f5fa8", label="period with games")  # fmt: skip
    adjustments = rated.filter((pl.col("event") == "adjustment") & (pl.col("delta") != 0))
    if adjustments.height:
        ax.plot([_x(p) for p in adjustments["period"]], adjustments["rating_after"].to_list(),
                "^", ms=8, color="#c0392b", label="adjustment (e.g. 2024 compression)")  # fmt: skip
        for p, before, d in adjustments.select(["period", "rating_before", "delta"]).iter_rows():
            ax.annotate(f"{d:+.0f}", (_x(p), before + d), textcoords="offset points",
                        xytext=(4, 6), color="#c0392b", fontsize=8)  # fmt: skip
    ax.set_title(title)
    ax.set_ylabel("rating")
    if xs and isinstance(xs[0], dt.date):
        fig.autofmt_xdate()
    else:
        ax.set_xlabel("period")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    path = Path(path)
    fig.tight_layout()
    buffer = io.BytesIO()  # then atomically, or in place on a FIFO (docs/cli.md)
    fig.savefig(buffer, format=path.suffix[1:] or None)
    atomic_write_bytes(buffer.getvalue(), path)
    return path
