"""Round three of an analyst in a notebook (docs/api.md "Attacked in a notebook, round 3"):
real analyses on the Kaggle 2010 games checked against naive computations written here
(plain Python loops over the games), and the attacks of the round: stores written by
another arpad version, a store on a read-only mount, an interrupted ``Store.rate`` then a
re-run, ids with whitespace, NaN ratings, periods without games, games moved between two
stores."""

from __future__ import annotations

import errno
import math
import shutil
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

import arpad
from tests.test_officer_attack import _refuse_writes, snapshot

KAGGLE = Path(__file__).resolve().parents[1] / "data" / "real" / "kaggle2010_elo_vs_rest"
NAMES = {"Month #": "m", "White Player #": "w", "Black Player #": "b", "Score": "s"}


def kaggle(last_month: int) -> pl.DataFrame:
    games = pl.read_csv(KAGGLE / "training_data.csv")
    return games.filter(pl.col("Month #") <= last_month)


def naive_elo(games: pl.DataFrame, k: float = 20.0) -> dict[tuple[int, str], float]:
    """(month, player) → Elo after the month: from 1500, no white advantage, each game's
    expectation from the ratings at the month's start, the month's changes summed."""
    rating: dict[str, float] = {}
    out = {}
    for month in sorted(set(games["Month #"])):
        change: dict[str, float] = {}
        rows = games.filter(pl.col("Month #") == month).rename(NAMES).select("w", "b", "s")
        for w, b, s in rows.iter_rows():
            w, b = str(w), str(b)
            e = 1 / (1 + 10 ** ((rating.get(b, 1500.0) - rating.get(w, 1500.0)) / 400))
            change[w] = change.get(w, 0.0) + k * (s - e)
            change[b] = change.get(b, 0.0) - k * (s - e)
        for p, d in change.items():
            rating[p] = rating.get(p, 1500.0) + d
            out[(month, p)] = rating[p]
    return out


def played(ratings: pl.DataFrame) -> dict[tuple[int, str], float]:
    rows = ratings.filter(pl.col("games") > 0).select("period", "player_id", "rating_after")
    return {(p, i): r for p, i, r in rows.iter_rows()}


def kaggle_rmse(rows) -> float:
    """The Kaggle 2010 measure (docs/analysis.md "Protocols"): per (month, player), the
    actual total score minus the predicted total; the RMSE over those cells."""
    cells: dict[tuple[int, str], float] = {}
    for month, w, b, score, e in rows:
        cells[(month, w)] = cells.get((month, w), 0.0) + score - e
        cells[(month, b)] = cells.get((month, b), 0.0) + (1 - score) - (1 - e)
    return math.sqrt(sum(d * d for d in cells.values()) / len(cells))


# -- analyses checked against naive computations ---------------------------------------------


@pytest.fixture(scope="module")
def kaggle20():
    return kaggle(20)


@pytest.fixture(scope="module")
def store20(tmp_path_factory, kaggle20):
    folder = tmp_path_factory.mktemp("kaggle20")
    kaggle20.write_csv(folder / "k20.csv")
    store = arpad.Store(folder / "store")
    store.ingest(folder / "k20.csv", mapping="kaggle2010")
    store.rate("elo")
    return store


def test_elo_from_polars_pandas_and_a_store_is_the_naive_walk(kaggle20, store20):
    naive = naive_elo(kaggle20)
    from_polars = played(arpad.rate(kaggle20, system="elo", mapping="kaggle2010"))
    from_pandas = played(arpad.rate(kaggle20.to_pandas(), system="elo", mapping="kaggle2010"))
    from_store = played(store20.ratings("elo"))
    assert from_polars.keys() == from_pandas.keys() == from_store.keys() == naive.keys()
    for key, value in naive.items():
        assert from_polars[key] == pytest.approx(value, abs=1e-9)
        assert from_pandas[key] == from_polars[key]
        assert from_store[key] == from_polars[key]


def test_predictions_and_their_scores_are_the_naive_ones():
    """Months 1-95 rated, the 3,184 cross-validation games predicted: ``predict``'s
    expectations are the logistic curve on the naive ratings, and the Kaggle RMSE and the
    log-loss of its output are those of the naive predictions."""
    training = kaggle(95)
    ratings = arpad.rate(training, system="elo", mapping="kaggle2010")
    cv = pl.read_csv(KAGGLE / "cross_validation_dataset.csv").rename(NAMES)
    pairs = cv.select(pl.col("w").alias("white_id"), pl.col("b").alias("black_id"))
    predicted = arpad.predict(ratings, pairs, system="elo")

    naive: dict[str, float] = {}
    for (_, player), value in sorted(naive_elo(training).items()):
        naive[player] = value  # months ascending: the last one stays
    rows = []
    for month, w, b, s in cv.select("m", "w", "b", "s").iter_rows():
        rw, rb = naive.get(str(w)), naive.get(str(b))
        e = None if rw is None or rb is None else 1 / (1 + 10 ** ((rb - rw) / 400))
        rows.append((month, str(w), str(b), s, e))
    got = predicted["expected"].to_list()
    assert [e is None for *_, e in rows] == [e is None for e in got]
    assert max(abs(a - e) for (*_, e), a in zip(rows, got) if e is not None) < 1e-9

    # the metric as written here gives the documented anchor for a constant 0.5
    assert kaggle_rmse([(m, w, b, s, 0.5) for m, w, b, s, _ in rows]) == pytest.approx(
        0.655417, abs=5e-7
    )
    known = [(m, w, b, s, e) for m, w, b, s, e in rows if e is not None]
    ours = kaggle_rmse([(*r[:4], a) for r, a in zip(rows, got) if a is not None])
    assert ours == pytest.approx(kaggle_rmse(known), abs=1e-12)
    assert 0.5 < ours < 0.8
    logloss = -sum(s * math.log(e) + (1 - s) * math.log(1 - e) for *_, s, e in known) / len(known)
    frame = predicted.with_columns(s=cv["s"]).drop_nulls("expected")
    e, s = frame["expected"].to_numpy(), frame["s"].to_numpy()
    assert float(-np.mean(s * np.log(e) + (1 - s) * np.log(1 - e))) == pytest.approx(logloss)


def test_sql_views_equal_polars_over_the_parquet_files(store20):
    root = store20.path
    ratings = pl.read_parquet(root / "ratings" / "system=elo", hive_partitioning=True)
    games = pl.read_parquet(root / "games", hive_partitioning=True)
    summary = store20.sql(
        "SELECT period, players, active_players, games, mean_rating FROM period_summary "
        "WHERE system = ? ORDER BY period",
        "elo",
    )
    ours = (
        ratings.group_by("period")
        .agg(
            players=pl.col("rating_after").is_not_null().sum(),
            active_players=(pl.col("games") > 0).sum(),
            mean_rating=pl.col("rating_after").mean(),
        )
        .join(games.group_by("period").agg(games=pl.len()), on="period")
        .sort("period")
    )
    assert summary["period"].to_list() == ours["period"].cast(pl.Int64).to_list()
    assert summary["players"].to_list() == ours["players"].to_list()
    assert summary["active_players"].to_list() == ours["active_players"].to_list()
    assert summary["games"].to_list() == ours["games"].to_list()
    assert np.allclose(summary["mean_rating"].to_numpy(), ours["mean_rating"].to_numpy())

    # ratings joined to games: each game with both players' ratings before it
    joined = store20.sql(
        "SELECT g.period, g.white_id, w.rating_before AS w FROM games g JOIN ratings r "
        "ON r.player_id = g.black_id AND r.period = g.period AND r.system = 'elo' "
        "JOIN ratings w ON w.player_id = g.white_id AND w.period = g.period "
        "AND w.system = 'elo' ORDER BY g.period, g.white_id, w"
    )
    before = ratings.select("period", "player_id", "rating_before")
    expected = (
        games.select("period", "white_id")
        .join(before, left_on=["period", "white_id"], right_on=["period", "player_id"])
        .sort("period", "white_id", "rating_before")
    )
    assert joined.height == games.height
    assert joined["w"].to_list() == expected["rating_before"].to_list()

    # one player's history
    one = store20.sql(
        "SELECT period, rating, games FROM player_history "
        "WHERE system = 'elo' AND player_id = '73' ORDER BY period"
    )
    mine = ratings.filter(pl.col("player_id") == "73").sort("period")
    assert one["rating"].to_list() == mine["rating_after"].to_list()
    assert one["games"].to_list() == mine["games"].to_list()
    assert store20.history("73", system="elo")["rating_after"].to_list() == one["rating"].to_list()


def test_plots_are_saved_without_a_display(store20, tmp_path):
    fig, ax = store20.plot_history(["73", "1246"], system="elo")
    fig.savefig(tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib.get_backend().lower() in ("agg", matplotlib.rcParams["backend"].lower())
    history = store20.history("73", system="elo")
    last = history.filter(pl.col("games") > 0)["period"].max()  # a line ends at the last games
    history = history.filter(pl.col("period") <= last)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["73"].get_ydata()) == pytest.approx(history["rating_after"].to_list())


def test_whatif_with_two_workers_equals_one(tmp_path):
    games = pl.DataFrame(
        {
            "date": ["2025-01-10", "2025-01-11", "2025-02-03", "2025-02-04"],
            "white_id": ["a", "c", "b", "d"],
            "black_id": ["b", "d", "c", "a"],
            "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
        }
    )
    players = pl.DataFrame(
        {"player_id": list("abcd"), "rating": [2100, 2000, 1900, 1800], "rated_games": [50] * 4}
    )
    one = arpad.whatif(games, "2024-03", "2009-07", players=players)
    two = arpad.whatif(games, "2024-03", "2009-07", players=players, workers=2)
    for name in ("movers", "distribution", "crossings"):
        assert getattr(one, name).equals(getattr(two, name))
    assert one.periods == two.periods == [202501, 202502]


# -- a store written by another arpad version --------------------------------------------------


@pytest.fixture
def fresh(store20, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(store20.path, copy)
    return arpad.Store(copy)


MANIFEST_COLUMNS = [
    "source", "sha256", "batch", "kind", "format", "rows", "accepted", "quarantined",
    "ingested_at", "min_period", "source_key", "content_sha256",
]  # fmt: skip
REQUIRED = {"source", "sha256", "batch", "kind", "format", "rows", "accepted", "quarantined",
            "ingested_at"}  # fmt: skip


@pytest.mark.parametrize("column", MANIFEST_COLUMNS)
def test_a_manifest_without_a_column_leaves_the_reading_calls_working(fresh, column, tmp_path):
    """Every reading call failed with DuckDB's "Binder Error: Referenced column … not
    found" (the ``ingest_history`` view over the manifest would not bind), and ingest with
    "Casting field 'sha256' with null values to non-nullable"."""
    path = fresh.path / "manifest" / "manifest.parquet"
    before = fresh.list("elo", top=3)
    pq.write_table(pq.read_table(path).drop_columns([column]), path)
    assert fresh.list("elo", top=3).equals(before)
    assert fresh.sql("SELECT count(*) AS n FROM manifest")["n"][0] == 1
    assert fresh.sql(f"SELECT {column} FROM manifest")[column].null_count() == 1
    assert fresh.sql("SELECT count(*) AS n FROM ingest_history")["n"][0] >= 1
    more = tmp_path / "k21.csv"
    pl.read_csv(KAGGLE / "training_data.csv").filter(pl.col("Month #") == 21).write_csv(more)
    if column in REQUIRED:
        with pytest.raises(arpad.InputError) as raised:
            fresh.ingest(more, mapping="kaggle2010")
        assert str(raised.value) == (
            f"{path}: no column {column!r}: the manifest was written by another arpad "
            "version or edited; restore it from a backup (nothing was changed)"
        )
    else:
        assert fresh.ingest(more, mapping="kaggle2010").accepted > 0


def test_a_manifest_column_of_another_type_is_named(fresh, tmp_path):
    path = fresh.path / "manifest" / "manifest.parquet"
    table = pl.read_parquet(path).with_columns(pl.col("ingested_at").cast(pl.String))
    table.write_parquet(path)
    assert fresh.list("elo", top=1).height == 1
    more = tmp_path / "k21.csv"
    pl.read_csv(KAGGLE / "training_data.csv").filter(pl.col("Month #") == 21).write_csv(more)
    with pytest.raises(arpad.InputError, match="column 'ingested_at' is large_string, not"):
        fresh.ingest(more, mapping="kaggle2010")


# -- a read-only store, a path that is a file, two stores --------------------------------------


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_read_only_store_is_read_and_refuses_writes_in_one_line(fresh, monkeypatch, code):
    """As root the permission bits of ``chmod -R a-w`` stop nothing, so the read-only
    mount is simulated (the same calls were also run on a real read-only bind mount)."""
    before = snapshot(fresh.path)
    listed = fresh.list("elo", top=5)
    _refuse_writes(monkeypatch, fresh.path, code)
    assert fresh.list("elo", top=5).equals(listed)
    assert fresh.history("73", system="elo").height > 0
    assert fresh.sql("SELECT count(*) AS n FROM ratings")["n"][0] > 0
    for call in (lambda: fresh.rate("elo", full=True), lambda: fresh.rate("glicko")):
        with pytest.raises(arpad.InputError) as raised:
            call()
        assert str(raised.value) == (
            f"{fresh.path}: the store cannot be written ({__import__('os').strerror(code)}); "
            "nothing was changed"
        )
    assert snapshot(fresh.path) == before


def test_a_store_path_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    store = arpad.Store(tmp_path / "f")
    with pytest.raises(FileNotFoundError, match="no store at"):
        store.list("elo")
    with pytest.raises(arpad.InputError, match="is a file, not a store directory"):
        store.ingest(KAGGLE / "cross_validation_dataset.csv", mapping="kaggle2010")


def test_games_moved_between_two_stores_by_the_games_view(store20, tmp_path):
    """A store's game file holds neither ``period`` nor ``pool`` (they are its folder
    names): ingested into another store, every row is ``missing_period``. The games view
    has them; its rows ingest into another store, which assigns its own player keys."""
    part = next((store20.path / "games").rglob("*.parquet"))
    other = arpad.Store(tmp_path / "other")
    report = other.ingest(part)
    assert report.accepted == 0 and set(report.files[0].reasons) == {"missing_period"}

    moved = tmp_path / "moved.parquet"
    store20.sql("SELECT * FROM games").write_parquet(moved)
    target = arpad.Store(tmp_path / "target")
    target.ingest(KAGGLE / "cross_validation_dataset.csv", mapping="kaggle2010")  # other keys
    assert target.ingest(moved).accepted == store20.sql("SELECT count(*) n FROM games")["n"][0]
    target.rate("elo")
    keys = pl.read_parquet(target.path / "players" / "keys.parquet")
    stored = pl.read_parquet(target.path / "games", hive_partitioning=True)
    check = stored.join(keys, left_on="white_key", right_on="key")
    assert (check["white_id"] == check["player_id"]).all()
    early = target.ratings("elo").filter(pl.col("period") <= 20)
    assert played(early) == played(store20.ratings("elo"))


# -- an interrupted Store.rate, then a re-run ----------------------------------------------------


def test_an_interrupt_in_the_progress_callback_then_a_rerun(store20, tmp_path):
    copy = tmp_path / "s"
    shutil.copytree(store20.path, copy)
    store = arpad.Store(copy)
    calls = []

    def stop_at_seven(done, total, games):
        calls.append((done, total, games))
        if done == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.rate("glicko2", progress=stop_at_seven)
    per_month = kaggle(20).group_by("Month #").len().sort("Month #")["len"].to_list()
    assert calls == [(i + 1, 20, n) for i, n in enumerate(per_month[:7])]
    # as a crash leaves it: the periods written so far are the latest list until a re-run
    assert store.list("glicko2", top=1)["rank"].to_list() == [1]
    assert store.rate("glicko2").periods[-1] == 20
    store20.rate("glicko2")
    ours, theirs = store.ratings("glicko2"), store20.ratings("glicko2")
    assert ours.drop("run_id").equals(theirs.drop("run_id"))

    with pytest.raises(TypeError, match="progress: a function"):
        store.rate("elo", progress=3)


# -- in-memory inputs ----------------------------------------------------------------------------

GAMES = pl.DataFrame(
    {
        "date": ["2025-01-10", "2025-01-11", "2025-03-03", "2025-03-04"],
        "white_id": ["a", "c", "b", "d"],
        "black_id": ["b", "d", "c", "a"],
        "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
    }
)


def test_predict_strips_whitespace_from_ids_as_rate_does():
    """``rate`` strips the ids (``"a "`` is player ``a``), ``predict`` did not: pairing
    ``" a"`` came back null without a word."""
    ratings = arpad.rate(GAMES.with_columns(pl.col("white_id") + " "), system="elo")
    assert sorted(set(ratings["player_id"])) == ["a", "b", "c", "d"]
    pairs = pl.DataFrame({"white_id": [" a", "a"], "black_id": ["b\t", "b"]})
    got = arpad.predict(ratings, pairs, system="elo")
    assert got["white_id"].to_list() == ["a", "a"]
    assert got["expected"][0] == got["expected"][1] is not None
    spaced = ratings.with_columns(" " + pl.col("player_id"))
    assert arpad.predict(spaced, pairs, system="elo")["expected"].equals(got["expected"])


def test_extra_columns_other_order_and_spaces_rate_as_the_plain_frame():
    plain = arpad.rate(GAMES, system="elo")
    odd = GAMES.with_columns(
        note=pl.lit("x"),
        n=pl.lit(1),
        white_id=" " + pl.col("white_id"),
        black_id=pl.col("black_id") + " ",
    ).select("result", "note", "black_id", "n", "white_id", "date")
    assert arpad.rate(odd, system="elo").equals(plain)
    assert arpad.rate(odd.to_pandas(), system="elo").equals(plain)


def test_nan_ratings_polars_refused_pandas_missing():
    """polars NaN (a number that is none) is a rejected row, as a CSV's ``nan``; in pandas
    NaN is the missing value, so that player starts as one without a rating."""
    players = pl.DataFrame(
        {"player_id": list("abcd"), "rating": [float("nan"), 2000.0, 1900.0, 1800.0]}
    )
    for bad in (float("nan"), float("inf"), -float("inf")):
        frame = players.with_columns(rating=pl.Series([bad, 2000.0, 1900.0, 1800.0]))
        with pytest.raises(arpad.InputError, match="bad_player_field: rating"):
            arpad.rate(GAMES, system="elo", players=frame)
    with pytest.raises(arpad.InputError, match="bad_player_field: rating inf"):
        arpad.rate(GAMES, system="elo", players=players.to_pandas().replace(np.nan, np.inf))
    got = arpad.rate(GAMES, system="elo", players=players.to_pandas())
    first = got.filter(pl.col("period") == 202501).sort("player_id")
    assert first["rating_before"].to_list() == [1500.0, 2000.0, 1900.0, 1800.0]
    skipped = arpad.rate(GAMES, system="elo", players=players, errors="skip")
    assert skipped.equals(got)


def test_a_month_without_games_is_no_period_in_memory_or_in_a_store(tmp_path):
    """No rows for February (no games); Glicko's RD grows over the two months elapsed, as
    the store path does it."""
    memory = arpad.rate(GAMES, system="glicko")
    assert sorted(set(memory["period"])) == [202501, 202503]
    GAMES.write_csv(tmp_path / "g.csv")
    store = arpad.Store(tmp_path / "s")
    store.ingest(tmp_path / "g.csv")
    store.rate("glicko")
    stored = store.ratings("glicko").drop("run_id")
    assert memory.drop("run_id").equals(stored.select(memory.drop("run_id").columns))
    # the two months elapsed inflate the RD before March's games (c²·t, t = 2): more
    # than the same games a month apart; rd_before is the RD at January's end
    march = memory.filter(pl.col("period") == 202503).sort("player_id")
    january = memory.filter(pl.col("period") == 202501).sort("player_id")
    assert march["rd_before"].to_list() == january["rd_after"].to_list()
    next_month = arpad.rate(
        GAMES.with_columns(pl.col("date").str.replace("2025-03", "2025-02")), system="glicko"
    )
    february = next_month.filter(pl.col("period") == 202502).sort("player_id")
    assert np.all(march["rd_after"].to_numpy() > february["rd_after"].to_numpy())


@pytest.mark.parametrize(
    "period",
    [
        pl.Series([pd.Timestamp("2025-01-01")] * 2 + [pd.Timestamp("2025-03-01")] * 2),
        pl.Series(["2025-01"] * 2 + ["2025-03"] * 2),
        pl.Series([202501] * 2 + [202503] * 2),
        pl.Series(["202501"] * 2 + ["202503"] * 2),
        pl.Series([202501.0] * 2 + [202503.0] * 2),
    ],
    ids=["timestamp", "text-month", "int", "text-int", "float"],
)
def test_periods_given_in_different_types_rate_alike(period):
    plain = arpad.rate(GAMES, system="elo")
    frame = GAMES.drop("date").with_columns(period.alias("period"))
    assert arpad.rate(frame, system="elo").equals(plain)
    assert arpad.rate(frame.to_pandas(), system="elo").equals(plain)


def test_player_keys_without_their_key_column_are_named(fresh):
    """``players/keys.parquet`` without ``key`` (another version, an edit) was a bare
    ``KeyError: 'Field "key" does not exist in schema'`` from ``rate`` and ``ingest``."""
    path = fresh.path / "players" / "keys.parquet"
    pq.write_table(pq.read_table(path).drop_columns(["key"]), path)
    assert fresh.list("elo", top=1).height == 1
    with pytest.raises(arpad.InputError) as raised:
        fresh.rate("elo", full=True)
    assert str(raised.value) == (
        f"{path}: no column 'key': the player keys were written by another arpad version "
        "or edited; restore the file from a backup (nothing was changed)"
    )


# FIDE table 8.1.1 (p = 0.50 … 1.00 → dp; dp(1 − p) = −dp(p)), as printed in the
# regulations (docs/rules.md)
DP_UPPER = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149,
    158, 166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336,
    351, 366, 383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
]  # fmt: skip


def dp(percent: int) -> int:
    return DP_UPPER[percent - 50] if percent >= 50 else -DP_UPPER[50 - percent]


def test_fide_performance_of_the_published_example():
    """2½/3 against 2400, 2500, 2600: FIDE performance 2773 (Ra 2500, p .83)."""
    games = pl.DataFrame(
        {
            "date": ["2025-01-10", "2025-01-11", "2025-01-12"],
            "white_id": ["a", "c", "a"],
            "black_id": ["b", "a", "d"],
            "result": ["1-0", "0-1", "1/2-1/2"],
        }
    )
    players = pl.DataFrame(
        {"player_id": list("abcd"), "rating": [2500, 2400, 2500, 2600], "rated_games": [50] * 4}
    )
    row = arpad.rate(games, system="fide", players=players).filter(pl.col("player_id") == "a")
    assert row["performance"].to_list() == [2773.0]


def test_fide_performance_on_deloitte_is_the_table_computed_naively(bundled_data):
    """Month 133 of the Deloitte games: per player, Ra = the mean of the rated opponents'
    ratings before the month rounded .5 up, p their score as a percentage rounded .5 up,
    Rp = Ra + dp(p) (Title Regulations 1.4.7–1.4.9, docs/rules.md)."""
    from fractions import Fraction

    folder = bundled_data / "deloitte_fide_2011"
    games = pl.read_csv(folder / "test_solution.csv").filter(pl.col("MonthID") == 133)
    players = pl.read_csv(folder / "initial_ratings.csv")
    ratings = arpad.rate(games, "fide", players, mapping="deloitte2011", errors="skip")
    games = games.filter(pl.col("WhiteScore") >= 0)  # the contest's decoys score -1
    before = {p: r for p, r in ratings.select("player_id", "rating_before").iter_rows()}
    totals: dict[str, list] = {}
    for w, b, s in games.select("WhitePlayer", "BlackPlayer", "WhiteScore").iter_rows():
        w, b = str(w), str(b)
        for me, opp, score in ((w, b, s), (b, w, 1 - s)):
            if before.get(opp) is not None:
                t = totals.setdefault(me, [0, Fraction(0), Fraction(0)])
                t[0] += 1
                t[1] += Fraction(before[opp]).limit_denominator(1000)
                t[2] += Fraction(score).limit_denominator(2)
    got = {p: v for p, v in ratings.select("player_id", "performance").iter_rows() if v is not None}
    checked = 0
    for player, (n, total, score) in totals.items():
        ra = int(total / n + Fraction(1, 2))  # .5 up; the means are positive
        percent = int(100 * score / n + Fraction(1, 2))
        assert got[player] == ra + dp(percent), player
        checked += 1
    assert checked > 1000 and set(got) == set(totals)


SCRIPT = """
import sys
import arpad

if __name__ == "__main__":  # each Dask worker process imports the main program
    table = arpad.backtest("deloitte2011", ["elo", "glicko"], data_dir=sys.argv[1], workers=2)
    table.write_parquet(sys.argv[2])
"""


def test_a_script_backtest_with_two_workers_equals_the_one_in_process(bundled_data, tmp_path):
    """A script's ``workers=2`` needs the main guard (docs/runners.md "Workers from a
    script"); with it, the table equals the in-process one, and the constant 0.5 row
    scores log10 2 (docs/analysis.md "Protocols")."""
    import subprocess
    import sys

    (tmp_path / "bt.py").write_text(SCRIPT)
    out = tmp_path / "bt.parquet"
    subprocess.run(
        [sys.executable, str(tmp_path / "bt.py"), str(bundled_data), str(out)],
        check=True,
        cwd=tmp_path,
        timeout=600,
    )
    here = arpad.backtest("deloitte2011", ["elo", "glicko"], data_dir=bundled_data)
    assert pl.read_parquet(out).equals(here)
    half = here.filter(pl.col("system") == "constant 0.5")
    assert half["public"][0] == pytest.approx(math.log10(2))
    assert half["private"][0] == pytest.approx(math.log10(2))


def test_every_public_call_documents_what_it_returns_and_raises():
    """``help(...)`` is what a notebook reads: each public call's docstring says what it
    returns and which errors a bad argument gives."""
    import re

    calls = {n: getattr(arpad, n) for n in ("rate", "predict", "fit_draws", "backtest", "whatif")}
    calls |= {
        f"Store.{n}": getattr(arpad.Store, n) for n in dir(arpad.Store) if not n.startswith("_")
    }
    for name, call in calls.items():
        doc = call.__doc__ or ""
        assert re.search(r"\b[A-Z]\w*Error\b", doc), f"{name}: no error named"
        assert re.search(r"[Rr]eturns?|DataFrame|figure|summar|report|manifest", doc), name


def test_an_error_in_the_progress_callback_undoes_the_run(store20, tmp_path):
    """Another exception than an interrupt is a failure: the store's writer lock undoes
    the run's writes (an interrupt keeps them, for resuming)."""
    copy = tmp_path / "s"
    shutil.copytree(store20.path, copy)
    store = arpad.Store(copy)
    before = snapshot(copy)

    def broken(done, total, games):
        if done == 4:
            raise RuntimeError("my callback broke")

    with pytest.raises(RuntimeError, match="my callback broke"):
        store.rate("elo", full=True, progress=broken)
    assert snapshot(copy) == before
    assert store.rate("elo", full=True).periods[-1] == 20
    assert store.ratings("elo").drop("run_id").equals(store20.ratings("elo").drop("run_id"))


def test_the_list_of_a_month_without_games(tmp_path):
    GAMES.write_csv(tmp_path / "g.csv")
    store = arpad.Store(tmp_path / "s")
    store.ingest(tmp_path / "g.csv")
    store.rate("elo")
    with pytest.raises(ValueError, match=r"no elo/standard list for period 202412 \(rated"):
        store.list("elo", period=202412)
    january = store.list("elo", period=202501)
    # February, a month without games that is over: January's list carried forward, 0
    # games (docs/lists.md "A month without games"; it was exit 2 before round 14)
    february = store.list("elo", period=202502)
    assert february["rating"].to_list() == january["rating"].to_list()
    assert february["games"].to_list() == [0, 0, 0, 0]
    assert store.list("elo", date="2025-02").equals(january)
    assert store.list("elo", date="2025-02-15").equals(january)


def test_a_store_where_a_table_is_expected(store20, kaggle20):
    """``arpad.rate(store)`` and ``arpad.rate(STORE_FOLDER)`` name the store's own calls
    (the folder was "is a directory: name the files in it"); ``predict`` takes a store
    as ``arpad predict --store`` does (it was a TypeError); ``arpad.Store(store)`` is that
    store (it was "expected str, bytes or os.PathLike object, not Store")."""
    with pytest.raises(TypeError, match=r"a store is rated with store\.rate\(system\)"):
        arpad.rate(store20, system="elo")
    with pytest.raises(arpad.InputError, match="is an arpad store, not a games file"):
        arpad.rate(store20.path, system="elo")
    pairs = pl.DataFrame({"white_id": ["73", "zz"], "black_id": ["1246", "73"]})
    from_store = arpad.predict(store20, pairs, system="elo")
    assert from_store.equals(arpad.predict(store20.ratings("elo"), pairs, system="elo"))
    naive = {p: r for (_, p), r in sorted(naive_elo(kaggle20).items())}
    e = 1 / (1 + 10 ** ((naive["1246"] - naive["73"]) / 400))
    assert from_store["expected"][0] == pytest.approx(e, abs=1e-9)
    assert from_store["expected"][1] is None
    assert arpad.Store(store20).path == store20.path


def test_predict_refuses_infinite_ratings_and_rated_players_without_rd():
    """An ``inf`` rating predicted 1.0 (FIDE 0.92) with NumPy's "invalid value" warning; a
    NaN RD was taken as 0 by Glicko. NaN or null stays no rating (null predictions)."""
    ratings = pl.DataFrame(
        {"player_id": list("abc"), "rating": [float("nan"), 2000.0, 1900.0], "rd": [50.0] * 3}
    )
    pairs = pl.DataFrame({"white_id": ["a", "b"], "black_id": ["b", "c"]})
    e = 1 / (1 + 10 ** (-100 / 400))
    assert arpad.predict(ratings, pairs, system="elo")["expected"].to_list() == [None, e]
    for system in ("elo", "fide", "glicko2"):
        for value in (float("inf"), -float("inf")):
            bad = ratings.with_columns(rating=pl.Series([1.0, value, 1900.0]))
            with pytest.raises(ValueError, match=f"player 'b' has rating {value}"):
                arpad.predict(bad, pairs, system=system)
    no_rd = ratings.with_columns(rd=pl.Series([50.0, float("nan"), 50.0]))
    assert arpad.predict(no_rd, pairs, system="elo")["expected"].to_list() == [None, e]
    with pytest.raises(ValueError, match="player 'b' has a rating but RD nan"):
        arpad.predict(no_rd, pairs, system="glicko2")


def test_rating_list_and_movers_equal_polars_over_the_parquet_files(store20):
    ratings = pl.read_parquet(store20.path / "ratings" / "system=elo", hive_partitioning=True)
    last = ratings.filter(pl.col("period") == 20)
    listed = store20.sql(
        "SELECT player_id, rank, rating FROM rating_list WHERE system = 'elo' AND period = 20 "
        "AND rank IS NOT NULL ORDER BY rank, player_id"
    )
    # ``arpad list`` and the view rank every player with a rated game in the last 12
    # periods (9..20; docs/observations.md), also one without a game in period 20 (status
    # inactive)
    recent = ratings.filter(pl.col("period") >= 20 - 11, pl.col("games") > 0)["player_id"]
    active = last.filter(
        pl.col("player_id").is_in(recent.unique().to_list()), pl.col("rating_after").is_not_null()
    )
    ours = active.with_columns(
        rank=pl.col("rating_after").rank(method="min", descending=True).cast(pl.Int64)
    ).sort("rank", "player_id")
    assert listed["player_id"].to_list() == ours["player_id"].to_list()
    assert listed["rank"].to_list() == ours["rank"].to_list()
    shown = last.filter(pl.col("player_id").is_in(recent.unique().to_list())).with_columns(
        (pl.col("rating_after") * 10).round() / 10
    )
    top = shown.sort(["rating_after", "player_id"], descending=[True, False])
    assert store20.list("elo", top=10)["player_id"].to_list() == top["player_id"][:10].to_list()

    movers = store20.sql(
        "SELECT player_id, change FROM movers WHERE system = 'elo' AND period = 20 AND rank_up = 1"
    )
    played = last.filter(pl.col("games") > 0, pl.col("change") != 0)
    best = played.filter(pl.col("change") == played["change"].max())
    assert sorted(movers["player_id"]) == sorted(best["player_id"])
