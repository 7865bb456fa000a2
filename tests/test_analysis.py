"""Analyst views, read-only SQL with parameters, and the PNG plots."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from arpad.pipeline import catalog, engine, plots
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.sql import run_readonly_sql
from tests.conftest import write_csv

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def rated_store(tmp_path_factory):
    from arpad.pipeline.store import Store

    tmp_path = tmp_path_factory.mktemp("analysis")
    store = Store(tmp_path / "store")
    players = write_csv(
        tmp_path / "players.csv",
        "player_id,name,federation,rating",
        [
            "a,Anna,HUN,1600",
            "b,Bela,HUN,1500",
            "c,Cili,AUT,1400",
            "d,Dora,AUT,1500",
            "e,Emil,AUT,1500",
        ],
    )
    games = write_csv(
        tmp_path / "games.csv",
        "date,white_id,black_id,result",
        [
            "2024-01-05,a,b,1-0",
            "2024-01-06,c,d,1/2-1/2",
            "2024-01-07,a,c,1-0",
            "2024-01-08,e,b,0-1",
            "2024-02-03,b,c,0-1",
            "2024-02-04,d,a,1-0",
        ],
    )
    ingest_files(store, [games], players=[players])
    engine.rate(store, "elo", overrides={"k": "20"})
    engine.rate(store, "whr")
    return store


def sql(store, query, params=()):
    return run_readonly_sql(store, query, list(params))


def test_period_summary_counts(rated_store):
    f = sql(
        rated_store,
        "SELECT period, players, active_players, games, inactive_players, mean_rating "
        "FROM period_summary WHERE system = ? ORDER BY period",
        ["elo"],
    )
    assert f["period"].to_list() == [202401, 202402]
    assert f["games"].to_list() == [4, 2]
    assert f["active_players"].to_list() == [5, 4]
    assert f["players"].to_list() == [5, 5]
    assert f["inactive_players"].to_list() == [0, 1]  # e played only in January
    # Elo at one K is zero-sum: the mean stays at the starting mean (1500)
    np.testing.assert_allclose(f["mean_rating"].to_numpy(), [1500.0, 1500.0])


def test_movers_rank_the_changes(rated_store):
    f = sql(
        rated_store,
        "SELECT player_id, change, rank_up, rank_down FROM movers "
        "WHERE system = ? AND period = ? ORDER BY rank_up",
        ["elo", 202402],
    )
    # February: c beat b as Black, d beat a as White (a is the favourite).
    assert f["player_id"].to_list()[0] == "d"
    assert f["player_id"].to_list()[-1] == "a"
    changes = f["change"].to_numpy()
    assert np.all(np.diff(changes) <= 0)
    assert f["rank_down"].to_list() == f["rank_up"].to_list()[::-1]


def test_player_history_and_rating_list(rated_store):
    hist = sql(
        rated_store,
        "SELECT period, rating, rd, games, name FROM player_history "
        "WHERE system = ? AND player_id = ? ORDER BY period",
        ["whr", "a"],
    )
    assert hist["games"].to_list() == [2, 1]
    assert hist["name"].to_list() == ["Anna", "Anna"]
    assert hist["rd"].is_not_null().all()  # WHR reports an uncertainty
    top = sql(
        rated_store,
        "SELECT player_id, rank FROM rating_list WHERE system = ? AND period = ? ORDER BY rank",
        ["elo", 202401],
    )
    assert top["player_id"][0] == "a" and top["rank"][0] == 1


def test_federation_summary(rated_store):
    f = sql(
        rated_store,
        "SELECT federation, players, mean_rating, top_rating FROM federation_summary "
        "WHERE system = ? AND period = ? ORDER BY federation",
        ["elo", 202402],
    )
    assert f["federation"].to_list() == ["AUT", "HUN"]
    assert f["players"].to_list() == [3, 2]
    ratings = sql(
        rated_store,
        "SELECT player_id, rating_after FROM ratings WHERE system = ? AND period = ?",
        ["elo", 202402],
    )
    r = dict(zip(ratings["player_id"].to_list(), ratings["rating_after"].to_list()))
    assert f["mean_rating"][0] == pytest.approx((r["c"] + r["d"] + r["e"]) / 3)
    assert f["top_rating"][1] == pytest.approx(max(r["a"], r["b"]))


@pytest.mark.parametrize(
    "statement",
    [
        "DROP VIEW movers",
        "CREATE TABLE x AS SELECT 1",
        "INSERT INTO players (player_id) VALUES ('z')",
        "COPY (SELECT 1) TO 'out.csv'",
        "ATTACH 'other.duckdb' AS o",
        "SELECT 1; DROP VIEW movers",
        "PRAGMA enable_profiling",
    ],
)
def test_sql_refuses_anything_but_queries(rated_store, statement):
    with pytest.raises(ValueError, match=r"read-only|exactly one"):
        sql(rated_store, statement)
    # the views are still there
    assert sql(rated_store, "SELECT count(*) AS n FROM movers")["n"][0] > 0


def test_sql_parameters_are_values_not_text(rated_store):
    # A parameter is bound as a value: an injection attempt matches no player.
    f = sql(rated_store, "SELECT * FROM players WHERE player_id = ?", ["a' OR '1'='1"])
    assert f.height == 0
    f = sql(rated_store, "SELECT name FROM players WHERE player_id = $1", ["b"])
    assert f["name"].to_list() == ["Bela"]


def test_sql_cli_exit_codes(rated_store, capsys):
    args = ["sql", "SELECT name FROM players WHERE federation = ? ORDER BY name"]
    assert main([*args, "--param", "AUT", "--store", str(rated_store.root)]) == 0
    assert "Cili" in capsys.readouterr().out
    assert main(["sql", "DELETE FROM players", "--store", str(rated_store.root)]) == 2
    assert "read-only" in capsys.readouterr().err


def test_plots_are_png(rated_store, tmp_path):
    out = plots.plot_distribution(rated_store, "elo", tmp_path / "dist.png")
    assert out.read_bytes()[:8] == PNG
    out = plots.plot_history(rated_store, ["a", "b"], "whr", tmp_path / "hist.png")
    assert out.read_bytes()[:8] == PNG
    with pytest.raises(ValueError, match="no whr/standard history"):
        plots.plot_history(rated_store, ["nobody"], "whr", tmp_path / "x.png")


def test_plot_cli(rated_store, tmp_path):
    root = str(rated_store.root)
    png = tmp_path / "h.png"
    assert (
        main(["plot", "history", "a", "--system", "elo", "--store", root, "--output", str(png)])
        == 0
    )
    assert png.read_bytes()[:8] == PNG
    png = tmp_path / "d.png"
    args = ["plot", "distribution", "--system", "whr", "--period", "2024-02"]
    assert main([*args, "--store", root, "--output", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG


def test_calibration_table_and_plot(tmp_path):
    predicted = np.array([0.05, 0.15, 0.15, 0.95])
    actual = np.array([0.0, 1.0, 0.0, 1.0])
    t = plots.calibration_table(predicted, actual, bins=10)
    assert t["bin"].to_list() == [0, 1, 9]
    assert t["games"].to_list() == [1, 2, 1]
    np.testing.assert_allclose(t["actual"].to_numpy(), [0.0, 0.5, 1.0])
    frame = pl.DataFrame(
        {
            "system": ["x"] * 4,
            "target": ["cv"] * 4,
            "game": np.arange(4),
            "predicted": predicted,
            "actual": actual,
        }
    )
    path = tmp_path / "p.parquet"
    frame.write_parquet(path)
    png = tmp_path / "cal.png"
    assert main(["plot", "calibration", str(path), "--output", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG


def test_views_exist_in_the_catalog_file(rated_store):
    con = catalog.connect_readonly(rated_store)
    try:
        names = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
    finally:
        con.close()
    assert {"rating_list", "player_history", "period_summary", "movers"} <= names
    assert "federation_summary" in names
