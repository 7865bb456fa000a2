"""Analyst round 11 (the analyst's report of the session): ``arpad predict --mapping`` reads
the contests' pairings files as ``arpad.predict(..., mapping=)`` does, and its error
without it names the mapping; ``arpad.performance`` is ``arpad performance FILE`` from
Python (docs/api.md, docs/cli.md)."""

from __future__ import annotations

import io
import warnings

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main


def logistic(white: float, black: float) -> float:
    return 1 / (1 + 10 ** ((black - white) / 400))


@pytest.fixture(scope="module")
def kaggle_store(tmp_path_factory, bundled_data):
    folder = tmp_path_factory.mktemp("kaggle6_r11")
    kaggle = bundled_data / "kaggle2010_elo_vs_rest"
    games = pl.read_csv(kaggle / "training_data.csv").filter(pl.col("Month #") <= 6)
    games.write_csv(folder / "k6.csv")
    store = arpad.Store(folder / "store")
    store.ingest(folder / "k6.csv", mapping="kaggle2010")
    store.rate("elo")
    return store


@pytest.fixture
def cv_file(tmp_path, bundled_data):
    """The first 60 rows of Kaggle's cross_validation_dataset.csv, its header as it is."""
    cv = bundled_data / "kaggle2010_elo_vs_rest" / "cross_validation_dataset.csv"
    path = tmp_path / "cross_validation_dataset.csv"
    lines = cv.read_text().splitlines()[:61]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- 1. arpad predict --mapping ---------------------------------------------------------------


def test_cli_predict_reads_the_kaggle_file_with_mapping_as_the_api(kaggle_store, cv_file, capsys):
    store = str(kaggle_store.path)
    code = main(["predict", str(cv_file), "--store", store, "--system", "elo",
                 "--mapping", "kaggle2010", "--format", "csv"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    cli = pl.read_csv(io.StringIO(out), infer_schema=False)
    api = arpad.predict(kaggle_store, cv_file, system="elo", mapping="kaggle2010")
    assert cli.columns == api.columns
    assert cli.columns[:4] == ["period", "white_id", "black_id", "score"]
    assert cli.height == api.height == 60
    assert cli["white_id"].to_list() == api["white_id"].to_list()
    assert cli["black_id"][0] == "2084" and cli["score"][0] == "0.5"
    known = 0
    for row_cli, row_api in zip(cli.iter_rows(named=True), api.iter_rows(named=True)):
        if row_api["expected"] is None:
            assert row_cli["expected"] is None
            continue
        known += 1
        want = logistic(row_api["white_rating"], row_api["black_rating"])
        assert row_api["expected"] == pytest.approx(want, abs=1e-12)
        assert float(row_cli["expected"]) == row_api["expected"]
        assert float(row_cli["white_rating"]) == row_api["white_rating"]
    assert known > 0


def test_cli_predict_without_mapping_names_the_mapping(kaggle_store, cv_file, capsys):
    store = str(kaggle_store.path)
    code = main(["predict", str(cv_file), "--store", store, "--system", "elo"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2
    assert err == (
        f"arpad: error: {cv_file}:1: pairings: no white_id and black_id, but "
        "White Player #, Black Player #: pass --mapping kaggle2010"
    )
    with pytest.raises(ValueError, match=r"Black Player #: pass mapping='kaggle2010'$"):
        arpad.predict(kaggle_store, cv_file, system="elo")


def test_cli_predict_names_the_deloitte_mapping_for_its_test_file(kaggle_store, tmp_path, capsys):
    test = tmp_path / "test.csv"  # the first rows of Deloitte's test.csv (not bundled)
    test.write_text("TEID,MonthID,WhitePlayer,BlackPlayer\n1,133,6,43390\n2,133,8,30402\n")
    store = str(kaggle_store.path)
    assert main(["predict", str(test), "--store", store, "--system", "elo"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"arpad: error: {test}:1: pairings: no white_id and black_id, but "
        "WhitePlayer, BlackPlayer: pass --mapping deloitte2011"
    )
    code = main(["predict", str(test), "--store", store, "--system", "elo",
                 "--mapping", "deloitte2011", "--format", "csv"])  # fmt: skip
    assert code == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out), infer_schema=False)
    assert out.columns[:4] == ["game_id", "period", "white_id", "black_id"]
    assert out.row(0)[:4] == ("1", "133", "6", "43390")


def test_cli_predict_mapping_mistakes_are_one_line(kaggle_store, cv_file, capsys):
    store = str(kaggle_store.path)
    base = ["predict", str(cv_file), "--store", store, "--system", "elo", "--mapping"]
    assert main([*base, "deloitte2011-players"]) == 2
    assert capsys.readouterr().err.strip() == (
        "arpad: error: --mapping deloitte2011-players: not a games mapping "
        "(known: kaggle2010, deloitte2011)"
    )
    assert main([*base, "deloitte2011"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"arpad: error: {cv_file}:1: pairings: mapping 'deloitte2011' reads the columns "
        "TEID, MonthID, WhitePlayer, BlackPlayer, WhiteScore; these pairings have "
        "Month #, White Player #, Black Player #, Score"
    )


# -- 2. arpad.performance ---------------------------------------------------------------------


def cli_performance(capsys, path, *options) -> pl.DataFrame:
    assert main(["performance", str(path), "--format", "csv", *options]) == 0
    out = capsys.readouterr().out
    overrides = {"player_id": pl.String, "event_id": pl.String}
    return pl.read_csv(io.StringIO(out), schema_overrides=overrides)


@pytest.mark.parametrize("by", ["player", "event"])
@pytest.mark.parametrize("curve", ["normal", "logistic"])
@pytest.mark.parametrize(
    "name", ["fide_example1_karl_mala_2005.trf", "open_gros_2010_after_r4.trf"]
)
def test_performance_equals_the_command_on_a_real_trf(shared_data, capsys, name, by, curve):
    trf = shared_data / "trf" / name
    cli = cli_performance(capsys, trf, "--by", by, "--curve", curve)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api = arpad.performance(trf, by=by, curve=curve)
    assert api.columns == cli.columns
    assert api.height == cli.height > 50
    assert api.to_dicts() == cli.to_dicts()
    # the command's notes on stderr are the call's warnings
    assert any("players ×" in str(w.message) for w in caught)
    rows = {r["player_id"]: r for r in api.iter_rows(named=True)}
    if name.startswith("fide"):
        # 6/7 = 85.7 % → p 0.86 → dp 309 (table 8.1.1); Ra 2205.57 → 2206: 2515
        assert rows["1101463"]["fide"] == 2515.0
        assert rows["1101463"]["linear"] == pytest.approx(2205.5714285714 + 800 * (6 / 7 - 0.5))
        assert rows["1100564"]["fide"] == 2118.0  # 3/6 against 2118
    else:
        assert rows["13400304"]["virtual_draw"] is True  # 4/4: dp 800 on Ra 2006
        assert rows["13400304"]["fide"] == 2806.0


def test_performance_of_a_frame_by_hand(tmp_path, capsys):
    games = pl.DataFrame(
        {
            "white_id": ["a", "b", "a", "c"],
            "black_id": ["b", "a", "c", "a"],
            "result": ["1-0", "1/2-1/2", "1-0", "0-1"],
            "date": ["2024-01-05"] * 4,
            "white_rating": [2000, 2100, 2000, 2200],
            "black_rating": [2100, 2000, 2200, 2000],
        }
    )
    table = arpad.performance(games)
    assert isinstance(table, pl.DataFrame)
    rows = {r["player_id"]: r for r in table.iter_rows(named=True)}
    # a: 3.5/4 = 87.5 % → 0.88 → dp 336 on Ra 2150; b: 25 % → -193; c: 0 % → -800
    assert [rows[p]["fide"] for p in "abc"] == [2486.0, 1807.0, 1200.0]
    assert [rows[p]["linear"] for p in "abc"] == [2450.0, 1800.0, 1600.0]
    assert [rows[p]["virtual_draw"] for p in "abc"] == [False, False, True]
    path = tmp_path / "g.csv"
    games.write_csv(path)
    assert table.to_dicts() == cli_performance(capsys, path).to_dicts()
    assert arpad.performance(path).equals(table)
    by_event = arpad.performance(games, by="event", curve="logistic")
    assert by_event.columns[:2] == ["player_id", "event_id"]
    assert by_event["curve"].to_list() == ["logistic"] * 3


def test_performance_of_unrated_games_warns_as_the_command_notes(shared_data, capsys):
    trf = shared_data / "trf" / "lichess_swiss_2020-05-29.trf"
    with pytest.warns(UserWarning, match=r"no performance: none of its 56 games has an"):
        table = arpad.performance(trf)
    assert table.height == 0 and "virtual_draw" in table.columns


def test_performance_arguments(tmp_path):
    assert "performance" in dir(arpad)
    games = {"white_id": ["a"], "black_id": ["b"], "result": ["1-0"], "date": ["2024-01-05"]}
    with pytest.raises(ValueError, match=r"^by: 'round' is not one of player, event$"):
        arpad.performance(games, by="round")
    with pytest.raises(ValueError, match=r"^curve: 'cauchy' is not one of normal, logistic$"):
        arpad.performance(games, curve="cauchy")
    with pytest.raises(TypeError, match=r"got a Store"):
        arpad.performance(arpad.Store(tmp_path / "s"))
    with pytest.raises(FileNotFoundError, match=r"performance: no such file"):
        arpad.performance(tmp_path / "none.csv")
