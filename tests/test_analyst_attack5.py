"""Round five of an analyst's attack (docs/api.md "Attacked in a notebook, round 5"):
stale ratings read without a word, ``predict`` ignoring the ratings' own system, the
``rd_max=inf`` of docs/glicko.md, rows skipped without a count, a pandas dict of dicts,
the commands' advice in API errors, ``predict``'s pairing column names, and ECF's
``rating`` column ignored without a word."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import arpad
from arpad.pipeline.lookup import NoMatch
from arpad.pipeline.periods import PeriodError

ROOT = Path(__file__).resolve().parents[1]


def _games() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "date": pd.to_datetime(["2025-01-10", "2025-01-11", "2025-02-03", "2025-02-04"]),
            "white_id": [1, 3, 2, 4],
            "black_id": [2, 4, 3, 1],
            "result": [1.0, 0.5, 0.0, 1.0],
        }
    )


def _no_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


# -- 1. stale ratings: the note of `arpad list` as a StaleRatingsWarning --------------------


@pytest.fixture(scope="module")
def corrected(tmp_path_factory):
    """The analyst's store: rated, then the first game corrected (1-0 → 0-1) and ingested
    again, not rated since."""
    folder = tmp_path_factory.mktemp("stale")
    games = _games()
    pd.DataFrame(
        {"player_id": [1, 2, 3, 4], "rating": [2100, 2000, 1900, 1800], "rated_games": [50] * 4}
    ).to_csv(folder / "p4.csv", index=False)
    games.to_csv(folder / "g4.csv", index=False)
    store = arpad.Store(folder / "S4")
    store.ingest(folder / "g4.csv", players=folder / "p4.csv")
    store.rate("fide")
    fresh = _no_warning(lambda: store.list("fide"))  # rated and unchanged: no warning
    games.loc[0, "result"] = 0.0
    games.to_csv(folder / "g4.csv", index=False)
    store.ingest(folder / "g4.csv")
    return store, fresh


STALE = (
    r"the fide/standard ratings of period 202502 are out of date: games or players changed "
    r"since they were rated \(stale from period 202501\); call store\.rate\('fide', "
    r"pool='standard'\) first"
)


def test_stale_ratings_warn_from_every_reading_call(corrected):
    store, fresh = corrected
    pairs = pd.DataFrame({"white_id": [1], "black_id": [4]})
    calls = {
        "list": lambda: store.list("fide"),
        "history": lambda: store.history(1, system="fide"),
        "ratings": lambda: store.ratings("fide"),
        "predict": lambda: arpad.predict(store, pairs),
        "audit": lambda: store.audit(1),
        "era": lambda: store.era("fide"),
        "plot_history": lambda: store.plot_history([1, 2], system="fide"),
        "card": lambda: store.card(1, period=202502),
    }
    for name, call in calls.items():
        with pytest.warns(arpad.StaleRatingsWarning, match=STALE) as caught:
            call()
        (warning,) = [w for w in caught if w.category is arpad.StaleRatingsWarning]
        assert Path(warning.filename) == Path(__file__), name  # the caller's line
        assert "arpad rate" not in str(warning.message), name
    assert issubclass(arpad.StaleRatingsWarning, UserWarning)
    # the stale list is the one rated before the correction (docs/api.md's example:
    # K 20, table 8.1.2, rounded half away from zero): 2090, 1980, 1910, 1820
    with pytest.warns(arpad.StaleRatingsWarning):
        stale = store.list("fide")
    assert stale.equals(fresh)
    assert dict(stale.select("player_id", "rating").iter_rows()) == {
        "1": 2090, "2": 1980, "3": 1910, "4": 1820,
    }  # fmt: skip


def test_stale_warning_ends_when_rated_again(tmp_path):
    games = _games()
    pd.DataFrame(
        {"player_id": [1, 2, 3, 4], "rating": [2100, 2000, 1900, 1800], "rated_games": [50] * 4}
    ).to_csv(tmp_path / "p.csv", index=False)
    games.to_csv(tmp_path / "g.csv", index=False)
    store = arpad.Store(tmp_path / "S")
    store.ingest(tmp_path / "g.csv", players=tmp_path / "p.csv")
    store.rate("fide")
    games.loc[0, "result"] = 0.0
    games.to_csv(tmp_path / "g.csv", index=False)
    store.ingest(tmp_path / "g.csv")
    with pytest.warns(arpad.StaleRatingsWarning):
        store.list("fide")
    store.rate("fide")
    ratings = _no_warning(lambda: store.list("fide"))
    # Corrected by hand (K 20, FIDE table 8.1.2, each period rounded half away from zero):
    # 202501: 2 (2000) beats 1 (2100): D 100, PD .64: 1 2100 − 12.8 → 2087, 2 → 2013;
    #   3 (1900) draws 4 (1800): 3 1900 − 2.8 → 1897, 4 → 1803.
    # 202502: 3 beats 2: D 116, PD(2) .66: 2 2013 − 13.2 → 2000, 3 1897 + 13.2 → 1910;
    #   4 beats 1: D 284, PD(1) .84: 1 2087 − 16.8 → 2070, 4 1803 + 16.8 → 1820.
    assert dict(ratings.select("player_id", "rating").iter_rows()) == {
        "1": 2070, "2": 2000, "3": 1910, "4": 1820,
    }  # fmt: skip
    _no_warning(lambda: store.history(1, system="fide"))
    # an older list, rated before the stale period, is not stale
    assert _no_warning(lambda: store.list("fide", period=202501)).height == 4


# -- 2. predict takes the system of the ratings' system column ----------------------------


def _glicko2_expected(r1, rd1, r2, rd2):
    """Glickman's expected score of a game between two rated players (rating points):
    E = 1 / (1 + 10^(−g(√(RD1² + RD2²))·(r1 − r2)/400)), g(RD) = 1/√(1 + 3q²RD²/π²),
    q = ln 10 / 400."""
    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q * q * (rd1 * rd1 + rd2 * rd2) / math.pi**2)
    return 1 / (1 + 10 ** (-g * (r1 - r2) / 400))


def test_predict_takes_the_system_of_the_ratings():
    games = pd.DataFrame(
        {"date": ["2025-01-05", "2025-01-06"], "white_id": ["a", "b"], "black_id": ["b", "a"],
         "score": [1.0, 0.0]}
    )  # fmt: skip
    ratings = arpad.rate(games, system="glicko2")
    pairs = pd.DataFrame({"white_id": ["a"], "black_id": ["b"]})
    a = ratings.filter(pl.col("player_id") == "a").row(0, named=True)
    b = ratings.filter(pl.col("player_id") == "b").row(0, named=True)
    by_hand = _glicko2_expected(a["rating_after"], a["rd_after"], b["rating_after"], b["rd_after"])
    assert by_hand == pytest.approx(0.8676, abs=1e-4)
    got = arpad.predict(ratings, pairs)["expected"][0]
    assert got == pytest.approx(by_hand, abs=1e-12)
    assert arpad.predict(ratings, pairs, system="glicko2")["expected"][0] == got
    with pytest.raises(ValueError, match="system='fide', but the ratings are glicko2's"):
        arpad.predict(ratings, pairs, system="fide")
    # several systems: system= chooses, none given is a ValueError
    both = pl.concat([ratings, arpad.rate(games, system="elo")], how="diagonal_relaxed")
    with pytest.raises(ValueError, match="hold the systems elo, glicko2: pass system="):
        arpad.predict(both, pairs)
    assert arpad.predict(both, pairs, system="glicko2")["expected"][0] == got
    # no system column: FIDE, as before (D 494 > 400: the 400-point rule, PD .92)
    bare = ratings.select("player_id", "rating_after")
    assert arpad.predict(bare, pairs)["expected"][0] == pytest.approx(0.92)


# -- 3. rd_max=inf: refused; docs/glicko.md says what works ---------------------------------


def test_rd_max_inf_is_refused_and_1000_lifts_the_cap():
    games = pl.DataFrame(
        {"date": ["2025-01-05"], "white_id": ["a"], "black_id": ["b"], "score": [1.0]}
    )
    players = pl.DataFrame(
        {"player_id": ["a", "b", "c"], "rating": [1500.0, 1500.0, 1600.0],
         "rd": [200.0, 200.0, 349.9], "volatility": [0.06, 0.06, 0.06]}
    )  # fmt: skip
    for value in (float("inf"), "inf"):
        with pytest.raises(ValueError, match=r"rd_max=inf: not a finite number"):
            arpad.rate(games, system="glicko2", players=players, rd_max=value)

    def rd_of_c(**rules):
        out = arpad.rate(games, system="glicko2", players=players, **rules)
        return out.filter(pl.col("player_id") == "c")["rd_after"][0]

    # c sits the period out: φ' = √(φ² + σ²), in rating points √(349.9² + (0.06·173.7178)²)
    grown = math.sqrt(349.9**2 + (0.06 * 173.7178) ** 2)
    assert grown == pytest.approx(350.0552, abs=1e-4)
    assert rd_of_c() == pytest.approx(350.0, abs=1e-9)  # capped at rd_max 350
    assert rd_of_c(rd_max=1000) == pytest.approx(grown, abs=1e-9)
    text = (ROOT / "docs" / "glicko.md").read_text()
    assert "rd_max=inf` removes" not in text and "rd_max=1000" in text


# -- 4. errors="skip" says how many rows went, and why --------------------------------------


def test_skipped_rows_are_counted_by_reason():
    games = pd.DataFrame(
        {"date": ["2025-01-05", "2025-01-06", "2025-13-01"], "white_id": ["a", "b", "c"],
         "black_id": ["b", "b", "a"], "score": [1.0, 0.5, 1.0]}
    )  # fmt: skip
    with pytest.warns(
        UserWarning, match=r"^games: 2 of 3 rows skipped \(self_play 1, bad_date 1\)$"
    ):
        out = arpad.rate(games, system="elo", errors="skip")
    # the one game left: a (1500) beats b (1500), K 20: ±10
    assert dict(out.select("player_id", "rating_after").iter_rows()) == {"a": 1510, "b": 1490}
    _no_warning(lambda: arpad.rate(games.iloc[:1], system="elo", errors="skip"))


# -- 5. a dict of dicts (pandas to_dict()) ---------------------------------------------------


def test_dict_of_dicts_is_a_type_error_naming_to_dict_list():
    frame = pd.DataFrame(
        {"date": ["2025-01-05", "2025-01-06"], "white_id": ["a", "b"], "black_id": ["c", "d"],
         "score": [1.0, 0.5]}
    )  # fmt: skip
    with pytest.raises(TypeError, match=r"column 'date' is a dict.*to_dict\('list'\)"):
        arpad.rate(frame.to_dict(), system="elo")
    with pytest.raises(TypeError, match=r"to_dict\('records'\)"):
        arpad.predict(
            pl.DataFrame({"player_id": ["a"], "rating": [1500.0]}),
            pd.DataFrame({"white_id": ["a"], "black_id": ["b"]}).to_dict(),
            system="elo",
        )
    as_lists = arpad.rate(frame.to_dict("list"), system="elo")
    assert as_lists.equals(arpad.rate(frame, system="elo"))
    assert as_lists.filter(pl.col("player_id") == "a")["rating_after"][0] == 1510.0


# -- 6. the commands' advice in the API's words ---------------------------------------------


@pytest.fixture(scope="module")
def numbered(tmp_path_factory):
    """A store rated in period numbers (1, 2), without published ratings."""
    folder = tmp_path_factory.mktemp("numbered")
    pl.DataFrame(
        {"period": [1, 1, 2], "white_id": ["a", "c", "b"], "black_id": ["b", "d", "c"],
         "score": [1.0, 0.5, 0.0]}
    ).write_csv(folder / "g.csv")  # fmt: skip
    store = arpad.Store(folder / "S")
    store.ingest(folder / "g.csv")
    store.rate("elo")
    return store, folder


def test_api_errors_name_the_python_arguments(numbered):
    store, folder = numbered
    with pytest.raises(PeriodError, match=r"give period=, not date=$") as info:
        store.list("elo", date="2011-01")
    assert "--" not in str(info.value)
    players = r"store\.sql\('SELECT player_id, name FROM players'\) lists them"
    for call in (
        lambda: store.history("nobody", system="elo"),
        lambda: store.audit("nobody", system="elo"),
        lambda: store.plot_history(["a", "nobody"], system="elo"),
    ):
        with pytest.raises(NoMatch, match=players) as info:
            call()
        assert "arpad players" not in str(info.value)
    ingest = r"\(ingest a players file with ratings: store\.ingest\(files, players=FILE\)\)"
    with pytest.raises(ValueError, match=r"^fide needs published starting ratings.*" + ingest):
        store.rate("fide")
    with pytest.raises(ValueError, match=r"^ingo needs published starting ratings.*" + ingest):
        store.rate("ingo", start=2)
    summaries = store.reconstruct(["elo", "fide"])
    skipped = {s.system: s.skipped for s in summaries}
    assert skipped["elo"] is None
    assert skipped["fide"].endswith("(ingest a players file with ratings: "
                                    "store.ingest(files, players=FILE))")  # fmt: skip
    with pytest.raises(TypeError, match=r"^players: .*got DataFrame \(in-memory players: "):
        store.ingest(folder / "g.csv", players=pd.DataFrame({"player_id": [1]}))
    with pytest.raises(TypeError, match=r"^files: .*got DataFrame \(in-memory games: "):
        store.ingest(pd.DataFrame({"white_id": [1]}))


# -- 7. predict reads the pairing columns rate reads -----------------------------------------


def test_predict_takes_the_pairing_column_names_rate_takes():
    ratings = pl.DataFrame({"player_id": ["1", "2"], "rating": [1600.0, 1500.0]})
    elo = 1 / (1 + 10 ** (-100 / 400))  # .640065
    for pairs in (
        pd.DataFrame({"White": [1], "Black": [2]}),
        pl.DataFrame({"white": ["1"], "black": ["2"], "board": [7]}),
        {"White ID": ["1"], "Black ID": ["2"]},
    ):
        out = arpad.predict(ratings, pairs, system="elo")
        assert out["white_id"].to_list() == ["1"] and out["black_id"].to_list() == ["2"]
        assert out["expected"][0] == pytest.approx(elo, abs=1e-12)
    assert arpad.predict(ratings, pl.DataFrame({"white": ["1"], "black": ["2"], "board": [7]}),
                         system="elo")["board"].to_list() == [7]  # fmt: skip
    # White/Black as well as white_id/black_id: the ids are white_id/black_id, kept
    both = pl.DataFrame({"white_id": ["1"], "black_id": ["2"], "White": ["x"], "Black": ["y"]})
    out = arpad.predict(ratings, both, system="elo")
    assert out["White"].to_list() == ["x"] and out["expected"][0] == pytest.approx(elo)
    with pytest.raises(ValueError, match="pairings need columns white_id and black_id"):
        arpad.predict(ratings, pl.DataFrame({"White": ["1"]}), system="elo")


# -- 8. ECF takes grade, not rating ----------------------------------------------------------


def test_ecf_warns_that_rating_is_ignored(tmp_path):
    games = pd.DataFrame(
        {"date": ["2025-01-05", "2025-01-06"], "white_id": ["a", "c"], "black_id": ["b", "a"],
         "score": [1.0, 0.5]}
    )  # fmt: skip
    with_rating = pd.DataFrame(
        {"player_id": ["a", "b", "c"], "grade": [150.0, 140.0, None], "rating": [None, None, 2000]}
    )
    with pytest.warns(UserWarning, match=r"ecf takes starting grades from the grade column "
                      r"and ignores rating: 1 player\(s\) with a rating and no grade"):  # fmt: skip
        out = arpad.rate(games, system="ecf", players=with_rating)
    grades_only = with_rating.drop(columns="rating")
    same = _no_warning(lambda: arpad.rate(games, system="ecf", players=grades_only))
    assert out.equals(same)  # the rating changed nothing
    published = out.filter(pl.col("status") != "provisional")
    # 30-game rule: a (150) beat b (140): (140 + 50 + 29·150)/30 = 151.33 → 151;
    # b: (150 − 50 + 29·140)/30 = 138.67 → 139; c, ungraded, drew with a: estimated 150
    assert dict(published.select("player_id", "rating_after").iter_rows()) == {
        "a": 151, "b": 139, "c": 150,
    }  # fmt: skip
    # a store's players table: Store.rate("ecf") says the same
    games.to_csv(tmp_path / "g.csv", index=False)
    with_rating.to_csv(tmp_path / "p.csv", index=False)
    store = arpad.Store(tmp_path / "S")
    store.ingest(tmp_path / "g.csv", players=tmp_path / "p.csv")
    with pytest.warns(UserWarning, match=r"ignores rating: 1 player\(s\)"):
        store.rate("ecf")


def test_store_list_carries_its_system_for_predict(tmp_path):
    """`predict(store.list("ecf"), …)` used FIDE's table (the list had no system
    column): a grade gap read as Elo points. The list now carries `system`, and
    predict takes ECF's expected score, 0.5 + D / (2 · 50) (docs/legacy-systems.md)."""
    games = pd.DataFrame(
        {"date": ["2025-01-05", "2025-01-06"], "white_id": ["a", "c"], "black_id": ["b", "a"],
         "score": [1.0, 0.5]}
    )  # fmt: skip
    games.to_csv(tmp_path / "g.csv", index=False)
    pd.DataFrame({"player_id": ["a", "b", "c"], "grade": [150.0, 140.0, 120.0]}).to_csv(
        tmp_path / "p.csv", index=False
    )
    store = arpad.Store(tmp_path / "S")
    store.ingest(tmp_path / "g.csv", players=tmp_path / "p.csv")
    store.rate("ecf")
    listed = store.list("ecf")
    assert listed.columns[-1] == "system" and set(listed["system"]) == {"ecf"}
    grade = dict(listed.select("player_id", "rating").iter_rows())
    pairs = pl.DataFrame({"white_id": ["a"], "black_id": ["b"]})
    got = arpad.predict(listed, pairs)["expected"][0]
    assert got == pytest.approx(0.5 + (grade["a"] - grade["b"]) / 100)
    # FIDE's table read the grades as ratings: 0.52 for a gap of 11-17 (the defect)
    as_fide = arpad.predict(listed.drop("system"), pairs)["expected"][0]
    assert as_fide == pytest.approx(0.5 + 0.01 * 2) and got != pytest.approx(as_fide)
    with pytest.raises(ValueError, match="the ratings are ecf's"):
        arpad.predict(listed, pairs, system="fide")


def test_history_calls_an_ecf_interim_row_with_games_games(tmp_path):
    """An ECF interim row (status provisional) with games was shown as event 'unrated'."""
    games = pd.DataFrame(
        {"date": ["2025-01-05", "2025-02-06"], "white_id": ["a", "a"], "black_id": ["b", "b"],
         "score": [1.0, 0.5]}
    )  # fmt: skip
    games.to_csv(tmp_path / "g.csv", index=False)
    store = arpad.Store(tmp_path / "S")
    store.ingest(tmp_path / "g.csv")
    store.rate("ecf")
    rows = store.history("a", system="ecf").filter(pl.col("status") == "provisional")
    assert rows.height > 0
    assert set(rows["event"]) == {"games"} and (rows["games"] > 0).all()
