"""``arpad.rate(games, system, players=frame)`` reads a players frame's ``date`` column as
dated observations, as a store reads a dated players file (docs/observations.md "Players
files with dates", docs/api.md): a rating stated on a date seeds FIDE at that month and
re-seeds it later, and is no undated starting rating for Elo. Before, a second row of a
player was refused as ``duplicate_player_id``, and a single dated row was read as the
player's rating from the first period (2100 from January instead of unrated until March).
"""

from __future__ import annotations

import datetime as dt
import warnings

import pandas as pd
import polars as pl
import pytest

import arpad

GAMES = pl.DataFrame(
    {
        "date": [f"2023-{m:02d}-{d:02d}" for m in (1, 2, 3, 4) for d in (m + 9, m + 10)],
        "white_id": ["a", "c", "b", "d", "a", "c", "b", "a"],
        "black_id": ["b", "d", "c", "a", "d", "b", "a", "c"],
        "result": ["1-0", "1/2-1/2", "0-1", "1-0", "1-0", "0-1", "1/2-1/2", "1-0"],
    }
)
# a: 2000 stated on 2023-01-01, 2100 on 2023-03-01; the others undated.
DATES = ["2023-01-01", "2023-03-01", None, None, None]
PLAYERS = pl.DataFrame(
    {
        "player_id": ["a", "a", "b", "c", "d"],
        "rating": [2000, 2100, 2050, 1900, 1800],
        "rated_games": [50] * 5,
        "date": DATES,
    }
)
COLUMNS = ["period", "player_id", "rating_before", "rating_after", "k", "status"]


def _stored(tmp_path, system: str, players: pl.DataFrame) -> pl.DataFrame:
    games_file, players_file = tmp_path / "games.csv", tmp_path / "players.csv"
    GAMES.write_csv(games_file)
    players.write_csv(players_file)
    store = arpad.Store(tmp_path / "store")
    store.ingest(str(games_file), players=str(players_file))
    store.rate(system)
    return store.ratings(system).select(COLUMNS).sort("period", "player_id")


def _in_memory(system: str, players) -> pl.DataFrame:
    return arpad.rate(GAMES, system, players=players).select(COLUMNS).sort("period", "player_id")


def _of(frame: pl.DataFrame, player: str, column: str = "rating_after") -> list:
    return frame.filter(pl.col("player_id") == player).get_column(column).to_list()


def test_fide_seeds_and_reseeds_from_a_frames_dated_rows_as_a_store(tmp_path):
    memory = _in_memory("fide", PLAYERS)
    # FIDE table 8.1.2, K 20, the period's change rounded half away from zero:
    # Jan 2000 beats b 2050 (D 50: .43): +11.4 -> 2011; Feb loses to d 1803 (D 208: .77):
    # -15.4 -> 1996; Mar re-seeded with 2100, beats d 1818 (D 282: .83): +3.4 -> 2103;
    # Apr draws b 2032 (D 71: .60), beats c 1904 (D 199: .76): 20 x .14 = 2.8 -> 2106.
    assert _of(memory, "a", "rating_before") == [2000.0, 2011.0, 2100.0, 2103.0]
    assert _of(memory, "a") == [2011.0, 1996.0, 2103.0, 2106.0]
    assert memory.equals(_stored(tmp_path, "fide", PLAYERS))


def test_elo_takes_no_dated_rating_as_a_start_as_a_store(tmp_path):
    memory = _in_memory("elo", PLAYERS)
    # a has dated ratings only: Elo rates from the games, a starts at 1500 and beats
    # b 2050: 20 x (1 - 1 / (1 + 10 ** (550 / 400))) = 19.1907.
    assert _of(memory, "a", "rating_before")[0] == 1500.0
    assert _of(memory, "a")[0] == pytest.approx(1519.190733, abs=1e-6)
    assert memory.equals(_stored(tmp_path, "elo", PLAYERS))


def test_a_single_dated_row_is_no_rating_before_its_date(tmp_path):
    players = PLAYERS.slice(1)  # a: only 2100 on 2023-03-01
    memory = _in_memory("fide", players)
    # unrated in January and February (was 2100 from January), seeded in March: beats
    # d 1803 (D 297: .85) +3 -> 2103
    assert _of(memory, "a", "rating_before") == [None, None, 2100.0, 2103.0]
    assert _of(memory, "a")[2] == 2103.0
    assert memory.equals(_stored(tmp_path, "fide", players))


@pytest.mark.parametrize(
    "dates",
    [
        ["2023-01", "2023-03", None, None, None],
        [dt.date(2023, 1, 1), dt.date(2023, 3, 1), None, None, None],
        [dt.datetime(2023, 1, 31, 23, 59), dt.datetime(2023, 3, 1), None, None, None],
        pd.to_datetime(["2023-01-01", "2023-03-01", None, None, None]),
    ],
    ids=["month", "date", "datetime", "pandas"],
)
def test_a_date_column_of_dates_datetimes_or_text(dates):
    if isinstance(dates, pd.DatetimeIndex):
        players = PLAYERS.drop("date").to_pandas().assign(date=dates)
    else:
        players = PLAYERS.with_columns(pl.Series("date", dates))
    assert _of(_in_memory("fide", players), "a") == [2011.0, 1996.0, 2103.0, 2106.0]


def test_a_bad_date_names_the_row_and_the_value():
    players = PLAYERS.with_columns(pl.Series("date", ["2023-01-01", "2023-13-01", *DATES[2:]]))
    with pytest.raises(arpad.InputError) as raised:
        arpad.rate(GAMES, "fide", players=players)
    assert str(raised.value) == (
        "<players DataFrame>: 1 of 5 rows rejected (row 1: bad_player_field: date 2023-13-01 "
        "is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD, DD.MM.YYYY, YYYY-MM or "
        "YYYYMM): there is no month 13); fix them or pass errors='skip' to rate without them"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skipped = arpad.rate(GAMES, "fide", players=players, errors="skip")
    assert [str(w.message) for w in caught] == [  # the row as players[1] (round 15)
        "players: 1 of 5 rows skipped (bad_player_field 1; row 1: date 2023-13-01 is not a "
        "valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD, DD.MM.YYYY, YYYY-MM or YYYYMM): "
        "there is no month 13)"
    ]
    assert _of(skipped, "a", "rating_before")[2] == 2011.0 - 15.0  # not re-seeded
