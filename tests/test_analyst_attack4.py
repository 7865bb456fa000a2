"""Round four of an analyst's attack (docs/api.md "Attacked in a notebook, round 4"):
joins with repeated column names and INTERVAL results in ``arpad sql``/``Store.sql``,
games of no standard pool given to ``arpad.rate``, ``reconstruct`` of an empty store,
ids with spaces in ``arpad predict``, ``predict`` with a mapping or a store folder,
the commands' advice in API errors, a player paired with himself, Parquet on a
terminal."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.sql import unique_names

DATA = Path(__file__).resolve().parents[1] / "data" / "real"
KAGGLE = DATA / "kaggle2010_elo_vs_rest"
BULLET = DATA / "trf" / "lichess_swiss_bullet_2020-05-10.trf"


def logistic(white: float, black: float) -> float:
    return 1 / (1 + 10 ** ((black - white) / 400))


@pytest.fixture(scope="module")
def kaggle_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kaggle6")
    games = pl.read_csv(KAGGLE / "training_data.csv").filter(pl.col("Month #") <= 6)
    games.write_csv(folder / "k6.csv")
    store = arpad.Store(folder / "store")
    store.ingest(folder / "k6.csv", mapping="kaggle2010")
    store.rate("elo")
    return store


def latest(store: arpad.Store) -> dict[str, float]:
    rows = store.ratings("elo").sort("period")
    return {p: r for p, r in rows.select("player_id", "rating_after").iter_rows()}


# -- 1. arpad sql: repeated names, INTERVAL and other types polars cannot hold -------------


def test_unique_names_are_duckdbs_own():
    names = ["a", "a", "a_1", "A", "b"]
    con = duckdb.connect()
    try:
        theirs = list(con.sql('SELECT 1 AS a, 2 AS a, 3 AS a_1, 4 AS "A", 5 AS b').df().columns)
    finally:
        con.close()
    assert unique_names(names) == theirs == ["a", "a_1", "a_1_1", "A_2", "b"]
    assert unique_names(["player_id", "player_id", "player_id"]) == [
        "player_id",
        "player_id_1",
        "player_id_2",
    ]


JOIN = (
    "SELECT r.player_id, p.player_id, r.rating_after FROM ratings r "
    "JOIN players p ON r.player_id = p.player_id WHERE r.period = 6 ORDER BY r.player_id LIMIT 3"
)
ODD = (
    "SELECT INTERVAL 1 DAY AS i, INTERVAL '1 year 2 months' AS j, [INTERVAL 1 DAY, NULL] AS l, "
    "1::UNION(n INT, s VARCHAR) AS u, 'infinity'::DATE AS d, DATE '2020-01-02' AS ok"
)


def test_store_sql_join_with_a_repeated_column_name(kaggle_store):
    frame = kaggle_store.sql(JOIN)
    assert frame.columns == ["player_id", "player_id_1", "rating_after"]
    assert frame["player_id"].to_list() == frame["player_id_1"].to_list()
    ratings = kaggle_store.ratings("elo").filter(pl.col("period") == 6).sort("player_id").head(3)
    assert frame["player_id"].to_list() == ratings["player_id"].to_list()
    assert frame["rating_after"].to_list() == ratings["rating_after"].to_list()


def test_store_sql_interval_union_infinity_as_duckdbs_text(kaggle_store):
    row = kaggle_store.sql(ODD).row(0, named=True)
    assert row == {
        "i": "1 day",
        "j": "1 year 2 months",
        "l": "[1 day, NULL]",
        "u": "1",
        "d": "infinity",
        "ok": __import__("datetime").date(2020, 1, 2),
    }


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "txt", "parquet"])
def test_cli_sql_every_format_with_such_a_result(kaggle_store, tmp_path, capsys, fmt):
    query = JOIN.replace("r.rating_after", "r.rating_after, INTERVAL 1 DAY AS i")
    args = ["sql", query, "--store", str(kaggle_store.path), "--format", fmt]
    if fmt == "parquet":
        args += ["--output", str(tmp_path / "out.parquet")]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err
    if fmt == "parquet":
        back = pl.read_parquet(tmp_path / "out.parquet")
        assert back.columns == ["player_id", "player_id_1", "rating_after", "i"]
        assert back["i"].to_list() == ["1 day"] * 3
    else:
        assert "player_id_1" in out and "1 day" in out
    if fmt == "csv":
        back = pl.read_csv(io.StringIO(out), infer_schema=False)
        assert back.columns == ["player_id", "player_id_1", "rating_after", "i"]
        assert back["player_id"].to_list() == back["player_id_1"].to_list()


def test_cli_sql_parquet_on_a_terminal_is_refused(kaggle_store, capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code = main(["sql", "SELECT 1 AS x", "--store", str(kaggle_store.path), "--format", "parquet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (
        "arpad: error: --format parquet is binary: give --output FILE or redirect stdout"
    )


# -- 2. games of no standard pool, reconstruct of an empty store ---------------------------


def test_rate_games_of_another_pool_is_the_stores_error():
    with pytest.raises(ValueError) as caught:
        arpad.rate(BULLET, system="glicko2")
    assert str(caught.value) == (
        "no games stored in pool 'standard' (pools in the games: blitz): "
        "pass pool='blitz' to rate them"
    )
    blitz = arpad.rate(BULLET, system="glicko2", pool="blitz")
    assert blitz.height == 112 and blitz["pool"].unique().to_list() == ["blitz"]
    empty = pl.DataFrame(
        schema={
            "date": pl.String,
            "white_id": pl.String,
            "black_id": pl.String,
            "score": pl.Float64,
        }
    )
    assert arpad.rate(empty, system="elo").height == 0  # no games at all: no rows, as before
    # a pool named in the call: no rows, as round one decided (tests/test_analyst_attack.py)
    assert arpad.rate(BULLET, system="glicko2", pool="standard").height == 0


def test_reconstruct_of_an_empty_store_raises_as_rate(tmp_path):
    header = tmp_path / "empty.csv"
    header.write_text("date,white_id,black_id,result\n")
    store = arpad.Store(tmp_path / "store")
    store.ingest(header)
    with pytest.raises(ValueError) as by_rate:
        store.rate("elo")
    with pytest.raises(ValueError) as by_reconstruct:
        store.reconstruct(["elo"])
    assert str(by_reconstruct.value) == str(by_rate.value)
    assert str(by_rate.value) == "no games stored in pool 'standard' (pools in the store: none)"


def test_the_reconstruct_command_on_an_empty_store_exits_2_as_rate(tmp_path, capsys):
    header = tmp_path / "h.csv"
    header.write_text("date,white_id,black_id,result\n")
    store = str(tmp_path / "S")
    assert main(["ingest", str(header), "--store", store, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["reconstruct", "--store", store, "--systems", "elo", "--no-flow"]) == 2
    by_reconstruct = capsys.readouterr().err.strip().splitlines()[-1]
    assert main(["rate", "--store", store, "--system", "elo", "--no-flow"]) == 2
    by_rate = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        by_reconstruct
        == by_rate
        == ("arpad: error: no games stored in pool 'standard' (pools in the store: none)")
    )


# -- 3. arpad predict strips ids as arpad.predict does ----------------------------------------


def test_cli_predict_strips_ids_as_the_api(kaggle_store, tmp_path, capsys):
    state = latest(kaggle_store)
    one, two = sorted(state)[:2]
    pairings = tmp_path / "pairings.csv"
    pairings.write_text(f"white_id,black_id\n73,1246\n  73 ,1246\n{one}, {two} \n")
    assert main(
        ["predict", str(pairings), "--store", str(kaggle_store.path), "--system", "elo",
         "--format", "csv"]
    ) == 0  # fmt: skip
    cli = pl.read_csv(io.StringIO(capsys.readouterr().out), infer_schema=False)
    api = arpad.predict(kaggle_store, pairings, system="elo")
    assert cli["white_id"].to_list() == api["white_id"].to_list() == ["73", "73", one]
    assert cli["black_id"].to_list() == ["1246", "1246", two]
    want = [logistic(state["73"], state["1246"])] * 2 + [logistic(state[one], state[two])]
    assert [float(x) for x in cli["expected"]] == pytest.approx(want, abs=1e-12)
    assert api["expected"].to_list() == pytest.approx(want, abs=1e-12)
    assert float(cli["white_rating"][1]) == state["73"]


# -- 4. predict with a mapping ----------------------------------------------------------------


def test_predict_takes_the_kaggle_mapping(kaggle_store):
    cv = pl.read_csv(KAGGLE / "cross_validation_dataset.csv").head(50)
    state = latest(kaggle_store)
    out = arpad.predict(kaggle_store, cv, system="elo", mapping="kaggle2010")
    assert out.columns[:4] == ["period", "white_id", "black_id", "score"]
    assert out["score"].to_list() == cv["Score"].to_list()
    for w, b, e in out.select("white_id", "black_id", "expected").iter_rows():
        if w in state and b in state:
            assert e == pytest.approx(logistic(state[w], state[b]), abs=1e-12)
        else:
            assert e is None
    renamed = cv.rename({"White Player #": "white_id", "Black Player #": "black_id"})
    plain = arpad.predict(kaggle_store, renamed, system="elo")
    assert plain["expected"].to_list() == out["expected"].to_list()
    with pytest.raises(ValueError, match=r"pass mapping='kaggle2010'"):
        arpad.predict(kaggle_store, cv, system="elo")
    with pytest.raises(ValueError, match=r"mapping: 'kaggle' is not one of kaggle2010"):
        arpad.predict(kaggle_store, cv, system="elo", mapping="kaggle")


# -- 5. predict from a store folder -------------------------------------------------------------


def test_predict_takes_a_store_folder(kaggle_store):
    pairs = {"white_id": ["73", "1"], "black_id": ["1246", "2"]}
    by_path = arpad.predict(str(kaggle_store.path), pairs, system="elo")
    by_store = arpad.predict(kaggle_store, pairs, system="elo")
    assert by_path.equals(by_store)
    state = latest(kaggle_store)
    assert by_path["expected"][0] == pytest.approx(logistic(state["73"], state["1246"]))


# -- 6. the commands' advice in the API's words; rate(fmt=) ------------------------------------


def test_api_errors_give_api_advice(tmp_path):
    header = tmp_path / "empty.csv"
    header.write_text("date,white_id,black_id,result\n")
    store = arpad.Store(tmp_path / "store")
    store.ingest(header)
    with pytest.raises(ValueError) as caught:
        store.list("elo")
    assert str(caught.value) == (
        "no ratings for system elo pool standard; call store.rate('elo') first"
    )
    with pytest.raises(ValueError, match=r"call store\.rate\('elo', pool='standard'\) first"):
        store.history("Steinitz", system="elo")
    with pytest.raises(ValueError, match=r"call store\.rate\('fide'\) first"):
        store.card("a")


def test_rate_honours_fmt_and_refuses_format(tmp_path):
    pgn = DATA / "pgn" / "London1851.pgn"
    text = tmp_path / "london.txt"
    shutil.copy(pgn, text)
    by_fmt = arpad.rate(text, system="glicko2", fmt="pgn")
    by_name = arpad.rate(pgn, system="glicko2")
    # PGN players without ids are keyed by file and name: the .txt copy's file name
    ids = by_fmt["player_id"].str.replace("^london.txt:", "London1851.pgn:")
    assert by_fmt.height == 43 and ids.to_list() == by_name["player_id"].to_list()
    assert by_fmt.drop("run_id", "player_id").equals(by_name.drop("run_id", "player_id"))
    with pytest.raises(TypeError, match=r"'format' \(did you mean fmt=\?\)"):
        arpad.rate(text, system="glicko2", format="pgn")
    with pytest.raises(TypeError, match="fmt: only for a games file"):
        arpad.rate({"white_id": ["a"], "black_id": ["b"]}, system="elo", fmt="csv")


# -- 7. a player paired with himself ---------------------------------------------------------


def test_predict_refuses_a_player_paired_with_himself(kaggle_store, tmp_path, capsys):
    pairs = {"white_id": ["73", "1"], "black_id": ["1246", " 1"]}
    with pytest.raises(ValueError) as caught:
        arpad.predict(kaggle_store, pairs, system="elo")
    assert str(caught.value) == (
        "pairings row 2: self_play: player 1 plays himself (1 such row(s)); remove them"
    )
    pairings = tmp_path / "self.csv"
    pairings.write_text("white_id,black_id\n73,1246\n1, 1\n")
    code = main(["predict", str(pairings), "--store", str(kaggle_store.path), "--system", "elo"])
    err = capsys.readouterr().err
    assert code == 2 and "pairings row 2: self_play" in err and "Traceback" not in err
