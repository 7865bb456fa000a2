"""Round 10 (analyst): ``arpad.rate``'s starting ratings (docs/api.md "Attacked in a
notebook, round 10").

1. A pool's own ratings seed it in memory as in a store: FIDE's combined file (SRtng,
   RRtng, BRtng), ``standard_rating``/``rapid_rating`` columns and a ``pool`` column
   (docs/observations.md "Undated ratings and pools"). The standard rating seeded
   rapid and blitz in memory, against the store's result for the same files.
2. ``rate``'s own result given back as ``players=`` starts from its ``rating_after``,
   ``rd_after`` and ``volatility_after`` (every player started at 1500 / RD 350 without
   a word), with a UserWarning naming what such a frame lacks for K.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import arpad
from tests.test_api import KAGGLE, assert_same_ratings

# The analyst's files (the analyst of round 10): a FIDE combined list and four
# games, two rapid and two standard.
FIDECOMB = """\
ID Number;Name;Fed;Sex;Tit;WTit;OTit;FOA;SRtng;SGm;SK;RRtng;RGm;Rk;BRtng;BGm;BK;B-day;Flag
1001;Kask, Tonu;EST;M;FM;;;;2285;0;20;2200;0;20;2150;0;20;1985;
1002;Tamm, Jaan;EST;M;;;;;2010;0;20;2000;0;20;0;0;0;1990;
1003;Ots, Mari;EST;F;;WFM;;;1850;0;20;;0;0;1700;0;20;2012;w
"""
GAMES = """\
date,white_id,black_id,result,pool
2025-11-05,1001,1002,0-1,rapid
2025-11-05,1002,1003,1-0,rapid
2025-11-06,1001,1003,1-0,standard
2025-11-07,1002,1001,1/2-1/2,standard
"""
STDLIST = """\
ID Number;Name;Fed;SRtng;B-day
1001;Kask, Tonu;EST;2285;1985
1002;Tamm, Jaan;EST;2010;1990
1003;Ots, Mari;EST;1850;2012
"""
# Rapid (RULES §1.2, §1.3, K 20): 1001 (2200) loses to 1002 (2000), D 200 → PD .76,
# ∓15.2 → ∓15; 1003 has no rapid rating (RRtng empty): unrated, and 1002's game against
# him is not rated.
RAPID = {"1001": (2200.0, 2185.0), "1002": (2000.0, 2015.0), "1003": (None, None)}
# Standard: 1001 (2285) beats 1003 (1850), D 435 → the 400-point rule, PD .92: +1.6; draws
# 1002 (2010), D 275 → .83: −6.6; 1001 −5. 1002 +6.6 → +7. 1003 junior (born 2012), K 40:
# −0.08 × 40 = −3.2 → −3.
STANDARD = {"1001": (2285.0, 2280.0), "1002": (2010.0, 2017.0), "1003": (1850.0, 1847.0)}


def before_after(ratings: pl.DataFrame) -> dict:
    rows = ratings.sort("player_id").select("player_id", "rating_before", "rating_after")
    return {pid: (before, after) for pid, before, after in rows.iter_rows()}


def quiet_rate(*args, **kwargs) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the file's reading notes
        return arpad.rate(*args, **kwargs)


def stored(tmp_path, name: str, players, pool: str, system: str = "fide") -> pl.DataFrame:
    store = arpad.Store(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store.ingest([str(tmp_path / "games.csv")], players=str(players))
        store.rate(system, pool=pool)
        return store.ratings(system, pool=pool)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "fidecomb.csv").write_text(FIDECOMB)
    (tmp_path / "games.csv").write_text(GAMES)
    (tmp_path / "stdlist.csv").write_text(STDLIST)
    return tmp_path


@pytest.mark.parametrize("pool, want", [("rapid", RAPID), ("standard", STANDARD)])
def test_fide_combined_file_in_memory_equals_the_store(files, pool, want):
    memory = quiet_rate(
        str(files / "games.csv"), system="fide", players=str(files / "fidecomb.csv"), pool=pool
    )
    assert before_after(memory) == want
    store = stored(files, f"st-{pool}", files / "fidecomb.csv", pool)
    assert before_after(store) == want
    assert_same_ratings(memory, store)
    if pool == "rapid":  # was 2285 → 2268, 2010 → 2032, 1850 → 1844 rated
        assert memory.filter(pl.col("player_id") == "1003")["status"].to_list() == ["unrated"]


def test_pool_rating_columns_of_a_frame_seed_their_own_pool(files):
    games = pl.read_csv(files / "games.csv")
    players = pl.DataFrame(
        {
            "player_id": ["1001", "1002", "1003"],
            "standard_rating": [2285, 2010, 1850],
            "rapid_rating": [2200, 2000, None],
        }
    )
    assert before_after(arpad.rate(games, system="fide", players=players, pool="rapid")) == RAPID


def test_a_pool_column_seeds_only_its_pool_as_in_the_store(files):
    """1003 has a standard row only: unrated in rapid (he was seeded at 1850 in memory,
    and 1002 ended at 2021 against the store's 2015)."""
    players = pl.DataFrame(
        {
            "player_id": ["1001", "1001", "1002", "1002", "1003"],
            "pool": ["standard", "rapid", "standard", "rapid", "standard"],
            "rating": [2285, 2200, 2010, 2000, 1850],
        }
    )
    players.write_csv(files / "pools.csv")
    games = pl.read_csv(files / "games.csv")
    memory = arpad.rate(games, system="fide", players=players, pool="rapid")
    assert before_after(memory) == RAPID
    store = stored(files, "st-pools", files / "pools.csv", "rapid")
    assert_same_ratings(memory, store)
    standard = arpad.rate(games, system="fide", players=players, pool="standard")
    assert before_after(standard)["1001"] == (2285.0, 2280.0)


def test_a_standard_list_does_not_seed_rapid(files):
    """FIDE: no rapid rating at all is the API's refusal of a run that can rate no one,
    naming the pool (the standard ratings rated everyone before). Elo: every player at
    Elo's initial rating (1500), as the store starts them."""
    with pytest.raises(ValueError, match=r"of the rapid pool: the players give standard ratings"):
        quiet_rate(
            str(files / "games.csv"), system="fide", players=str(files / "stdlist.csv"),
            pool="rapid",
        )  # fmt: skip
    memory = quiet_rate(
        str(files / "games.csv"), system="elo", players=str(files / "stdlist.csv"), pool="rapid"
    )
    assert set(memory["rating_before"].to_list()) == {1500.0}
    assert_same_ratings(memory, stored(files, "st-elo", files / "stdlist.csv", "rapid", "elo"))


def test_rates_own_result_continues_a_glicko_history(bundled_data):
    """Kaggle 2010 months 1–10 rated, the last period's rows given back as players= for
    months 11–20: the same ratings as one run of months 1–20 (they all started at 1500 /
    RD 350, up to 362.5 points off)."""
    kaggle = pl.read_csv(bundled_data / KAGGLE)
    month = pl.col("Month #")
    full = arpad.rate(kaggle.filter(month <= 20), system="glicko", mapping="kaggle2010")
    first = arpad.rate(kaggle.filter(month <= 10), system="glicko", mapping="kaggle2010")
    last = first.filter(pl.col("period") == 10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        second = arpad.rate(
            kaggle.filter(month > 10, month <= 20),
            system="glicko",
            players=last,
            mapping="kaggle2010",
        )
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and said[0].startswith(
        "players: a ratings frame: rating_after as rating, rd_after as rd (the state after"
    ), said
    a = full.filter(pl.col("period") == 20).sort("player_id")
    b = second.filter(pl.col("period") == 20).sort("player_id")
    assert a["player_id"].to_list() == b["player_id"].to_list()
    assert a.height > 1500
    for column in ("rating_after", "rd_after"):
        assert (a[column] - b[column]).abs().max() < 1e-9, column


def test_a_fide_ratings_frame_is_read_and_the_warning_names_rated_games():
    """FIDE's frame (it was refused: 'needs published starting ratings') starts from its
    rating_after; K by rated games, peak and age cannot be known from it: said."""
    games = pl.DataFrame(
        {"date": ["2025-01-10", "2025-02-03"], "white_id": ["a", "b"], "black_id": ["b", "a"],
         "result": ["1-0", "1/2-1/2"]}
    )  # fmt: skip
    players = pl.DataFrame(
        {"player_id": ["a", "b"], "rating": [2100, 2000], "rated_games": [50, 50]}
    )
    january = arpad.rate(games.head(1), system="fide", players=players)
    with pytest.warns(UserWarning, match=r"no rated_games, peak_rating, birth_year") as caught:
        february = arpad.rate(games.tail(1), system="fide", players=january)
    assert "taken as established and adult" in str(caught[0].message)
    # January: a (2100) beats b (2000), D 100 → .64, ±7.2 → ±7 (K 20); February: they
    # draw, D 114 → .66, ∓3.2 → ∓3 (FIDE table 8.1.2)
    assert before_after(february) == {"a": (2107.0, 2104.0), "b": (1993.0, 1996.0)}
    # Both columns given: rating counts, as before, and no word
    both = players.with_columns(rating_after=pl.lit(1000.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert before_after(arpad.rate(games.head(1), system="fide", players=both))["a"][0] == 2100
