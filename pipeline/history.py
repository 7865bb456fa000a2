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
SELECT period, rating_before, adjustment, change, rating_after, rd_after, volatility_after,
       games, score, k, status
FROM ratings WHERE system = ? AND pool = ? AND player_id = ?
ORDER BY period
"""


def rating_history(
    store: Store, player_id: str, system: str = DEFAULT_SYSTEM, pool: str = "standard"
):
    """Events of ``player_id``: columns period, event, rating_before, delta, rating_after,
    games, score, k, status; after rating_after, ``rd`` and ``volatility`` (the row's
    ``rd_after``, ``volatility_after``) when the system keeps them (Glicko: rd; Glicko-2:
    both; WHR: rd): the RD is what grows while a player does not play (historian round
    14). ``event`` is 'adjustment' or 'games'/'inactive'/'new'/'unrated'.
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
            # no RD of its own: the period's row after it has the RD
            events.append(
                _event(r, "adjustment", before, adj, before + adj, 0, None, None, rd=False)
            )
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
    frame = pl.DataFrame(events, schema=_FULL_SCHEMA, orient="row")
    # the system's own uncertainty columns, where it keeps them (none for Elo, FIDE, …)
    return frame.drop(c for c in _UNCERTAINTY if frame[c].null_count() == frame.height)


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
_UNCERTAINTY = {"rd": pl.Float64, "volatility": pl.Float64}
# rd and volatility after rating_after: rating_history's columns before it drops any
_FULL_SCHEMA = {
    **dict(list(_SCHEMA.items())[:5]),
    **_UNCERTAINTY,
    **dict(list(_SCHEMA.items())[5:]),
}


def whole_numbers(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    """``frame`` (``rating_history``'s) with its rating columns as whole numbers when
    ``system`` publishes whole numbers (``RatingSystem.integer_ratings``: FIDE's 1720, not
    1720.0, as ``arpad list`` and ``card`` print them) and every value is one; K too
    when whole. What ``arpad history`` prints (the officer's report, round 9), and
    ``arpad audit`` (its ``change`` too: 2029.0 until round 14); the API's frames keep
    their floats."""
    from arpad.pipeline.lists import _all_whole
    from arpad.pipeline.systems import get_system

    if not get_system(system).integer_ratings:
        return frame
    numbers = ("rating_before", "delta", "change", "rating_after", "k")
    whole = [c for c in numbers if c in frame.columns and _all_whole(frame[c])]
    return frame.with_columns(pl.col(c).fill_nan(None).cast(pl.Int64) for c in whole)


# Consecutive inactive periods shown as one line by the table of `arpad history`
# (docs/cli.md "history"): a run of at least this many (or one row standing for more
# than one month without games).
COLLAPSE_MIN = 2


def collapse_inactive(
    frame: pl.DataFrame,
    min_run: int = COLLAPSE_MIN,
    store: Store | None = None,
    system: str | None = None,
    pool: str = "standard",
) -> pl.DataFrame:
    """``frame`` (``rating_history``) with every run of consecutive ``inactive`` events
    that stands for more than one month without games (at least ``min_run`` rows, or
    one row after a gap of unwalked periods) as one row: the run's first period, event
    ``inactive 1859-01 to 1866-06 (7y 6m)`` (``inactive_label``: the calendar months
    between the player's rows around it, not only the periods walked: Anderssen's
    1859–1866 read "inactive to 1863-01 (2 periods)" until round 14), rating_before of
    the first, rating_after of the last, delta their difference (0: the rating did not
    move; WHR's revised history may move it), no games. Its ``rd`` (``store`` and
    ``system`` given): the RD at the end of the gap, aged as the system ages it
    (``aged_rd``) from the run's last row to the month before the next row. Any other
    event (games, an adjustment, new, unrated) ends a run. Nothing else changes."""
    rows = frame.rows(named=True)
    out: list[dict] = []
    age: list[tuple[int, int, int]] = []  # (row of out, its last period, the next row's)
    k = 0
    while k < len(rows):
        end = k
        while end < len(rows) and rows[end]["event"] == "inactive":
            end += 1
        first, last = rows[k], rows[end - 1] if end > k else rows[k]
        # the months without games: after the row before the run, up to the row after it
        since = first["period"]
        if k > 0 and rows[k - 1]["period"] < since:
            since = _months_on(rows[k - 1]["period"], 1)
        until = last["period"]
        following = rows[end]["period"] if end < len(rows) else None
        if following is not None and following > until:
            until = _months_on(following, -1)
        if end == k or (end - k < min_run and periods.months_between(since, until) < 1):
            out.append(rows[k])
            k += 1
            continue
        before, after = first["rating_before"], last["rating_after"]
        delta = after - before if before is not None and after is not None else None
        if following is not None and until != last["period"]:
            age.append((len(out), last["period"], following))
        out.append(
            {
                **first,
                "event": inactive_label(since, until),
                "delta": delta,
                "rating_after": after,
                **{c: last[c] for c in _UNCERTAINTY if c in last},
                "games": 0,
                "score": 0.0,
                "k": None,
            }
        )
        k = end
    if age and "rd" in frame.columns and store is not None and system is not None:
        gaps = pl.DataFrame(
            {
                "period": [p for _, p, _ in age],
                "months": [periods.months_between(p, nxt) - 1 for _, p, nxt in age],
                "rating": [out[i]["rating_after"] for i, _, _ in age],
                "rd": [out[i]["rd"] for i, _, _ in age],
                "volatility": [out[i].get("volatility") for i, _, _ in age],
                "until": [nxt for _, _, nxt in age],
            },
            schema_overrides={"rating": pl.Float64, "rd": pl.Float64, "volatility": pl.Float64},
        )
        aged = aged_rd(store, system, pool, gaps)
        if aged is not None:
            for (i, _, _), rd in zip(age, aged.tolist(), strict=True):
                out[i]["rd"] = None if rd != rd else rd  # NaN: no RD to age
    return pl.DataFrame(out, schema=frame.schema, orient="row") if out else frame.clear()


def inactive_label(since: int, until: int) -> str:
    """``inactive 1859-01 to 1866-06 (7y 6m)``: the months ``since``..``until`` (both
    included) in years and months; abstract periods (no calendar) ``inactive 120 to 133
    (14 periods)``. 40 characters at most: the table's width for a text
    (pipeline/output.py)."""
    months = periods.months_between(since, until) + 1
    if periods.is_calendar(since) and periods.is_calendar(until):
        years, rest = divmod(months, 12)
        span = " ".join(t for t in (f"{years}y" * bool(years), f"{rest}m" * bool(rest)) if t)
    else:
        span = f"{months} period{'s' * (months != 1)}"
    label = periods.period_label
    return f"inactive {label(since)} to {label(until)} ({span})"


def _months_on(period: int, months: int) -> int:
    """The period ``months`` after ``period`` (before it, if negative): calendar months
    across years, abstract periods by number."""
    if not periods.is_calendar(period):
        return period + months
    index = periods.month_index(period) + months
    return (index // 12) * 100 + index % 12 + 1


def aged_rd(store: Store, system: str, pool: str, gaps: pl.DataFrame):
    """Per row of ``gaps`` (columns period, months, rating, rd, volatility, until) the RD
    of a player whose state after ``period`` was (rating, rd, volatility) once
    ``months`` more periods without a game have passed: what the system's own ``step``
    gives for a period without games ``months`` after ``period`` (Glicko: RD =
    min(√(RD² + c²t), rd_max); Glicko-2: φ = min(√(φ² + tσ²), rd_max/scale);
    docs/glicko.md), under the rules the store's ratings of period ``until`` were made
    with (``predict.store_rules``). A NumPy array, NaN where ``months`` < 1 or no RD;
    None for a system that does not age a player by the periods elapsed
    (``ages_by_elapsed``): WHR's whole-history fit (a gap's uncertainty is the fit's,
    not an aging), and the systems without an RD."""
    import numpy as np

    from arpad.pipeline.predict import store_rules
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import PeriodGames, PlayerInfo

    sys_ = get_system(system)
    if not sys_.ages_by_elapsed:  # (the engine's own flag for a chained run's gap)
        return None
    out = np.full(gaps.height, np.nan)
    indexed = gaps.with_row_index("_i").filter(pl.col("months") >= 1, pl.col("rd").is_not_null())
    if indexed.is_empty():
        return out
    # the rules of each ``until``: asked once per rules hash its rows carry (a period's
    # ``store_rules`` reads the catalog and a checkpoint: ~0.1 s, once, not once a gap)
    untils = sorted(set(indexed["until"].to_list()))
    con = catalog.connect(store)
    try:
        hash_of = dict(
            con.execute(
                "SELECT period, min(rules_hash) FROM ratings WHERE system = ? AND pool = ? "
                "AND list_contains(?, period) GROUP BY period",
                [system, pool, untils],
            ).fetchall()
        )
    finally:
        con.close()
    by_hash: dict[object, object] = {}
    rules_of: dict[int, object] = {}
    for until in untils:
        key = hash_of.get(until) or ("period", until)  # no hash stored: the period's own
        if key not in by_hash:
            by_hash[key] = store_rules(store, system, pool, until)[0]
        rules_of[until] = by_hash[key]
    for (until, months), group in indexed.group_by(["until", "months"], maintain_order=True):
        rules = rules_of[until]
        n = group.height
        nan = np.full(n, np.nan)
        values = {
            c: group[c].fill_null(np.nan).to_numpy().astype(float)
            for c in ("rating", "rd", "volatility")
        }
        info = PlayerInfo(
            player_id=np.array([str(i) for i in range(n)], dtype=object),
            rating=values["rating"],
            rated_games=np.full(n, -1, dtype=np.int64),
            peak_rating=nan,
            birth_year=np.full(n, -1, dtype=np.int64),
            rd=values["rd"],
            volatility=values["volatility"],
            grade=nan,
            sex=np.full(n, None, dtype=object),
        )
        state = sys_.initial_state(info, rules)
        start = int(group["period"][0])
        empty = np.empty(0, dtype=np.int32)
        games = PeriodGames.build(
            _months_on(start, int(months)), empty, empty, np.empty(0), n, None, start
        )
        _, report = sys_.step(state, games, rules)
        rd = report.columns.get("rd_after")
        if rd is None:
            return None
        out[group["_i"].to_numpy()] = np.asarray(rd, dtype=float)
    return out


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


def _event(r, kind, before, delta, after, games, score, k, rd=True):
    rd, volatility = (r["rd_after"], r["volatility_after"]) if rd else (None, None)
    return (r["period"], kind, before, delta, after, rd, volatility, games, score, k, r["status"])


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
