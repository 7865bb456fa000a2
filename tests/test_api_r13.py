"""Analyst round 13, findings 3 and 7 (docs/api.md).

3. A players frame's ``date`` of monthly pandas Periods was a ValueError advising "a
   period column", which a players frame ignores without a word: the player was then
   rated from the first period, before his first published rating. A monthly Period in a
   players ``date`` is now that month (as its text ``2023-03`` is), and a players frame's
   columns not read are named in a UserWarning, as a players file's note names them.
7. The "several files: use a store" TypeError covered only ``rate`` given a list or
   tuple: a generator of paths (``Path.glob``) said ``got generator of PosixPath``, and
   ``performance``/``whatif`` said ``got list of str``."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import arpad

GAMES = pl.DataFrame(
    {
        "date": ["2023-01-10", "2023-02-10", "2023-02-12", "2023-03-10"],
        "white_id": ["a", "a", "d", "d"],
        "black_id": ["b", "b", "a", "b"],
        "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
    }
)
PLAYERS = pl.DataFrame(
    {
        "player_id": ["a", "b", "d"],
        "rating": [2000, 2000, 1850],
        "date": ["2023-01-01", "2023-01-01", "2023-03-01"],
    }
)
COLS = ["period", "player_id", "rating_before", "rating_after", "status"]


def _monthly(players: pl.DataFrame, freq: str = "M") -> pd.DataFrame:
    frame = players.to_pandas()
    frame["date"] = pd.to_datetime(frame["date"]).dt.to_period(freq)
    return frame


def test_a_monthly_period_in_a_players_date_is_that_month():
    """d's only rating, 1850, is published for March 2023: unrated in February, then
    (FIDE, K 20) he beats b (1991 after January's loss, −10, and February's draw with a
    at D 20, +0.6 → +1; D 141 → .31): +0.69 × 20 = 13.8 → 1864."""
    got = arpad.rate(GAMES, "fide", players=_monthly(PLAYERS))
    d = got.select(COLS).filter(pl.col("player_id") == "d")
    assert d.rows() == [
        (202302, "d", None, None, "unrated"),
        (202303, "d", 1850.0, 1864.0, "rated"),
    ]
    assert got.equals(arpad.rate(GAMES, "fide", players=PLAYERS))  # as the text dates
    # a categorical of monthly Periods too
    cat = _monthly(PLAYERS)
    cat["date"] = pd.Categorical(cat["date"])
    assert arpad.rate(GAMES, "fide", players=cat).equals(got)


def test_other_periods_in_a_players_date_name_what_it_takes():
    with pytest.raises(ValueError) as err:
        arpad.rate(GAMES, "fide", players=_monthly(PLAYERS, "Q"))
    assert str(err.value) == (
        "players: column 'date' holds pandas Periods of frequency Q-DEC; it takes days "
        "('D') or months ('M')"
    )


def test_a_players_period_column_is_named_as_not_read():
    """Following the old advice (the column renamed ``period``) rated d from January
    (1850 → 1844 → 1858) without a word; the rows are undated, and a warning says so."""
    renamed = _monthly(PLAYERS).rename(columns={"date": "period"})
    with pytest.warns(UserWarning) as caught:
        got = arpad.rate(GAMES, "fide", players=renamed)
    assert [str(w.message) for w in caught] == [
        "players: columns not read: period (a row's published rating is dated by a date "
        "column: a day, or a month as YYYY-MM or a monthly pandas Period)"
    ]
    assert got.filter(pl.col("player_id") == "d")["rating_after"].to_list() == [
        1850.0, 1844.0, 1858.0,
    ]  # fmt: skip
    # other columns too, as a players file's note names them
    with pytest.warns(UserWarning, match=r"^players: columns not read: club, Gms \(FIDE's Gms"):
        arpad.rate(GAMES, "elo", players=PLAYERS.with_columns(club=pl.lit("x"), Gms=pl.lit(3)))
    # rate's own result as players=: its one warning, its columns (period, games, …)
    # left aside without a second
    january = arpad.rate(GAMES.head(1), "elo", players=PLAYERS.drop("date"))
    with pytest.warns(UserWarning) as caught:
        arpad.rate(GAMES.tail(3), "elo", players=january)
    assert [str(w.message).split(":")[:2] for w in caught] == [["players", " a ratings frame"]]


@pytest.fixture
def two_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    GAMES.head(2).write_csv("g1.csv")
    GAMES.tail(2).write_csv("g2.csv")
    return ["g1.csv", "g2.csv"]


STORE_ADVICE = (
    "for several files use store = arpad.Store(PATH), store.ingest([...]), "
    "store.rate('elo') and store.ratings('elo') (a store keeps one copy of a game that "
    "two files hold; concatenated here it would be rated twice)"
)


def test_an_iterator_of_paths_says_to_use_a_store(two_files):
    with pytest.raises(TypeError) as err:
        arpad.rate(sorted(Path(".").glob("g*.csv")).__iter__(), "elo")
    assert str(err.value) == (
        f"games: one games file per call (a path), got a list_iterator of 2 paths: {STORE_ADVICE}"
    )
    with pytest.raises(TypeError) as err:
        arpad.rate(Path(".").glob("g*.csv"), "elo")
    assert str(err.value) == (
        f"games: one games file per call (a path), got a generator of 2 paths: {STORE_ADVICE}"
    )
    with pytest.raises(TypeError, match=r"^games: one games file per call .* a map of 2 paths"):
        arpad.rate(map(Path, two_files), "elo")
    with pytest.raises(TypeError, match=r"^players: one players file per call .* a generator of 2"):
        arpad.rate("g1.csv", "elo", players=(p for p in two_files))
    # an iterator of rows as dicts is still rows
    rows = GAMES.to_dicts()
    assert arpad.rate(iter(rows), "elo").equals(arpad.rate(rows, "elo"))


def test_a_list_of_one_path_says_to_pass_the_path(two_files):
    with pytest.raises(TypeError) as err:
        arpad.rate(["g1.csv"], "elo")
    assert str(err.value) == (
        "games: one games file per call (a path), got a list of 1 path: pass the path "
        "itself (games='g1.csv')"
    )


def test_performance_and_whatif_say_one_file_per_call(two_files):
    with pytest.raises(TypeError) as err:
        arpad.performance(two_files)
    assert str(err.value) == (
        "games: one games file per call (a path), got a list of 2 paths: for several files "
        "call arpad.performance once per file, or pass their games as one table (with "
        "white_rating and black_rating)"
    )
    with pytest.raises(TypeError) as err:
        arpad.whatif(two_files, "2024-03", "2025-10")
    assert str(err.value) == (
        "games: one games file per call (a path), got a list of 2 paths: for several files "
        "use store = arpad.Store(PATH), store.ingest([...]) and arpad.whatif(store, rules, "
        "vs) (a store keeps one copy of a game that two files hold; concatenated here it "
        "would be rated twice)"
    )
    with pytest.raises(TypeError, match=r"^players: one players file per call .* list of 2 paths"):
        arpad.whatif("g1.csv", "2024-03", "2025-10", players=two_files)
    with warnings.catch_warnings():  # one path still reads as before
        warnings.simplefilter("error")
        assert arpad.rate("g1.csv", "elo").height == 4
