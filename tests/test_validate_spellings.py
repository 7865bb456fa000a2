"""What a games or players file may spell in other ways, found by the officer's,
historian's and analyst's attacks of 2026-12-03 (docs/ingest.md "Result codes",
"Dates with a time of day", "Players' fields"): each case failed before its fix.

* Results as pairing programs and spreadsheets export them: ``1 - 0``, ``1:0``, ``1–0``,
  ``½:½``, ``1.0``, ``0.50`` were ``unknown_result``; ``1.5`` still is.
* A date with a time of day (``DataFrame.to_csv`` of a timestamp column) was
  ``bad_date``; it is the date as written.
* A date known to the month or year only, in a month or year that has not begun
  (PGN ``2027.01.??``), was stored: it is ``period_out_of_range``, as a full date after
  today is.
* Birth years and dates after today were stored (a junior's K 40); a sex field other
  than M/F was stored as written (``female`` got no ``w`` flag on the list).
"""

from __future__ import annotations

import datetime as dt

import pytest

from arpad.pipeline import periods
from arpad.pipeline.readers import read_any
from arpad.pipeline.validate import validate_games, validate_players


def _games(tmp_path, results=None, dates=None):
    results = results or ["1-0"] * len(dates)
    dates = dates or ["2024-03-02"] * len(results)
    path = tmp_path / "g.csv"
    rows = [f'{d},A{i},B{i},"{r}"' for i, (d, r) in enumerate(zip(dates, results))]
    path.write_text("date,white_id,black_id,result\n" + "\n".join(rows) + "\n")
    return validate_games(read_any(path), "g.csv", "b")


@pytest.mark.parametrize(
    ("result", "score"),
    [
        ("1 - 0", 1.0), ("0 - 1", 0.0), ("1:0", 1.0), ("0:1", 0.0), ("1–0", 1.0),
        ("0—1", 0.0), ("½:½", 0.5), ("½ - ½", 0.5), ("1/2 : 1/2", 0.5), ("0,5-0,5", 0.5),
        ("0.5:0.5", 0.5), ("1.0", 1.0), ("1.00", 1.0), ("0.0", 0.0), ("0.50", 0.5),
        ("0,50", 0.5), ("1-0", 1.0), ("=", 0.5),
    ],
)  # fmt: skip
def test_results_spelt_otherwise_are_read(tmp_path, result, score):
    v = _games(tmp_path, [result])
    assert v.quarantine.num_rows == 0
    assert v.accepted.column("score").to_pylist() == [score]
    assert v.accepted.column("rated").to_pylist() == [True]


@pytest.mark.parametrize("result", ["1.5", "2-0", "1:1", "0.05", "10", "01", "1.", "0-0"])
def test_results_that_are_no_result_stay_refused(tmp_path, result):
    v = _games(tmp_path, [result])
    assert v.accepted.num_rows == 0
    assert v.quarantine.column("reason").to_pylist() == ["unknown_result"]


def test_forfeit_codes_are_not_read_as_score_pairs(tmp_path):
    v = _games(tmp_path, ["+:-", "-:+", "+/-"])
    assert v.accepted.column("score").to_pylist() == [1.0, 0.0, 1.0]
    assert v.accepted.column("rated").to_pylist() == [False, False, False]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2025-01-10 09:00:00", "2025-01-10"),
        ("2025-01-10T09:00", "2025-01-10"),
        ("2025-01-31 23:59:59.999", "2025-01-31"),
        ("2025-02-01T01:00:00+09:00", "2025-02-01"),  # the date as written (local)
        ("2025-01-31T23:00:00Z", "2025-01-31"),
        ("2025.01.10 09:00", "2025-01-10"),
    ],
)
def test_a_date_with_a_time_of_day_is_its_date(tmp_path, text, day):
    v = _games(tmp_path, dates=[text])
    assert v.quarantine.num_rows == 0
    assert str(v.accepted.column("date")[0].as_py()) == day


@pytest.mark.parametrize("text", ["2025-01-10 25:00", "2025-01-10 09:61", "2025-01-10 9h00"])
def test_a_time_that_is_no_time_stays_a_bad_date(tmp_path, text):
    v = _games(tmp_path, dates=[text])
    assert v.quarantine.column("reason").to_pylist() == ["bad_date"]


def _pgn(tmp_path, date):
    path = tmp_path / "h.pgn"
    path.write_text(
        f'[Event "E"]\n[Date "{date}"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    )
    return validate_games(read_any(path), "h.pgn", "b")


def test_a_month_or_year_not_begun_is_not_played_yet(tmp_path):
    today = periods.latest_game_date()[0]
    next_year = today.year + 1
    for date in (f"{next_year}.01.??", f"{next_year}.??.??", f"{next_year + 3}.??.??"):
        v = _pgn(tmp_path, date)
        assert v.accepted.num_rows == 0, date
        assert v.quarantine.column("reason").to_pylist() == ["period_out_of_range"]
        assert "has not begun" in v.quarantine.column("detail")[0].as_py()
    # the current month and year are fine
    for date in (f"{today.year}.{today.month:02d}.??", f"{today.year}.??.??"):
        v = _pgn(tmp_path, date)
        assert v.quarantine.num_rows == 0, date


def test_a_period_before_1800_says_so(tmp_path):
    v = _pgn(tmp_path, "0999.??.??")
    detail = v.quarantine.column("detail")[0].as_py()
    assert v.quarantine.column("reason").to_pylist() == ["period_out_of_range"]
    assert detail.startswith("period 099912 is before 1800-01, the first month arpad rates")


def _players(tmp_path, header, rows):
    path = tmp_path / "p.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return validate_players(read_any(path, kind="players"), "p.csv", "b")


def test_birth_after_today_is_refused(tmp_path):
    today = periods.latest_game_date()[0]
    tomorrow = today + dt.timedelta(days=2)
    v = _players(
        tmp_path,
        "player_id,name,birth_year,birth_date",
        [
            f"1,A,{today.year + 1},",
            f"2,B,,{tomorrow.isoformat()}",
            "3,C,,1750-01-01",
            f"4,D,{today.year},",
            "5,E,,1990-05-17",
        ],
    )
    assert v.accepted.column("player_id").to_pylist() == ["4", "5"]
    assert v.accepted.column("birth_year").to_pylist() == [today.year, 1990]
    reasons = dict(
        zip(v.quarantine.column("line").to_pylist(), v.quarantine.column("detail").to_pylist())
    )
    assert f"birth_year {today.year + 1} is not a number in 1800..{today.year}" == reasons[2]
    assert reasons[3].startswith(f"birth_date {tomorrow.isoformat()} is not in 1800-01-01..")
    assert reasons[4].startswith("birth_date 1750-01-01 is not in 1800-01-01..")


def test_sex_is_read_as_m_or_f(tmp_path):
    rows = ["1,M", "2,f", "3,female", "4,W", "5,Woman", "6,male", "7,?", "8,", "9,K", "10,x"]
    v = _players(tmp_path, "player_id,sex", rows)
    got = dict(
        zip(v.accepted.column("player_id").to_pylist(), v.accepted.column("sex").to_pylist())
    )
    assert got == {"1": "M", "2": "F", "3": "F", "4": "F", "5": "F", "6": "M", "7": None, "8": None}
    assert v.quarantine.column("reason").to_pylist() == ["bad_player_field"] * 2
    assert v.quarantine.column("detail")[0].as_py().startswith("sex K is neither M nor F")


@pytest.mark.parametrize(
    ("pool", "stored"),
    [
        ("Classical", "standard"), ("classic", "standard"), ("", "standard"),
        ("standard", "standard"), ("Bullet", "blitz"), ("lightning", "blitz"),
        ("rapid", "rapid"), ("BLITZ", "blitz"),
    ],
)  # fmt: skip
def test_pool_words_read_as_the_trf_and_pgn_readers_read_them(tmp_path, pool, stored):
    path = tmp_path / "g.csv"
    path.write_text(f"date,white_id,black_id,result,pool\n2024-03-02,A,B,1-0,{pool}\n")
    v = validate_games(read_any(path), "g.csv", "b")
    assert v.accepted.column("pool").to_pylist() == [stored]


def test_an_unknown_pool_stays_refused(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("date,white_id,black_id,result,pool\n2024-03-02,A,B,1-0,chess960\n")
    v = validate_games(read_any(path), "g.csv", "b")
    assert v.quarantine.column("reason").to_pylist() == ["bad_pool"]
