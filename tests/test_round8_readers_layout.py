"""Round 8 reader fixes of a file's layout (docs/ingest.md "Separator", "Named
mappings"): Excel's ``sep=;`` first line, ``1.850`` in a decimal-comma file (hostile8
#3, #6), mapping headers in any case (ops8 #3), and the Deloitte ``Leaderboard`` split
no longer read as events (analyst8 #1)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import read_any


def _sql(store: str, query: str, capsys) -> list[str]:
    capsys.readouterr()
    assert main(["sql", query, "--store", store, "--format", "csv"]) == 0
    return capsys.readouterr().out.splitlines()[1:]


def test_thousands_dot_in_a_semicolon_file_is_a_whole_rating(tmp_path, capsys):
    players = tmp_path / "p.csv"
    players.write_bytes(
        b'player_id;name;rating\r\n1;"A, A";1.850\r\n2;"B, B";2.105\r\n3;C;1850\r\n'
    )
    games = tmp_path / "g.csv"
    games.write_bytes(
        b"date;white_id;black_id;result;white_rating;black_rating\r\n"
        b"2025-05-06;1;2;1-0;1.850;2.105\r\n2025-05-07;3;2;1-0;1850;2.105\r\n"
    )
    store = str(tmp_path / "S")
    args = ["ingest", str(games), "--players", str(players), "--store", store, "--no-flow"]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        "  note: rating(s) written with a thousands separator read as whole numbers: rating 2 "
        "(line 2: '1.850' as 1850) (the file uses ';' separators: its decimals are written 0,5)"
    ) in out
    assert (
        "  note: rating(s) written with a thousands separator read as whole numbers: "
        "white_rating 1 (line 2: '1.850' as 1850), black_rating 2 (line 2: '2.105' as 2105) "
        "(the file uses ';' separators: its decimals are written 0,5)"
    ) in out
    # before: 1.85 and 2.105 (both players below every floor, unrated)
    q = "select player_id, rating from players order by player_id"
    assert _sql(store, q, capsys) == ["1,1850.0", "2,2105.0", "3,1850.0"]
    q = "select white_rating, black_rating from games order by date"
    assert _sql(store, q, capsys) == ["1850.0,2105.0", "1850.0,2105.0"]


def test_dotted_rating_of_a_comma_file_is_left_to_validation(tmp_path):
    # a ',' file without decimal commas: the dot is a decimal point (not a locale's)
    path = tmp_path / "p.csv"
    path.write_text("player_id,rating\n1,1.850\n")
    raw = read_any(path)
    assert raw.frame["rating"].to_list() == ["1.850"]
    assert not any("thousands" in n for n in raw.notes)
    # a tab file whose draws are written 0,5 is of a decimal-comma locale
    tab = tmp_path / "g.csv"
    tab.write_text("date\twhite_id\tblack_id\tscore\twhite_rating\n2025-01-01\t1\t2\t0,5\t2.100\n")
    assert read_any(tab).frame["white_rating"].to_list() == ["2100"]


@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_excel_sep_line_declares_the_separator(tmp_path, sep):
    path = tmp_path / "g.csv"
    body = [f"sep={sep}", sep.join(["date", "white_id", "black_id", "result"])]
    body.append(sep.join(["2025-01-02", "a", "b", "1-0"]))
    path.write_text("\r\n".join(body) + "\r\n")
    raw = read_any(path)
    assert raw.frame.select("white_id", "black_id", "result", "_line").row(0) == (
        "a",
        "b",
        "1-0",
        3,
    )
    assert (
        f"first line 'sep={sep.strip()}' (a spreadsheet's separator line): fields separated "
        f"by {sep!r}, the header read from line 2"
    ) in raw.notes
    # a problem of the header names its own line, 2
    bad = tmp_path / "bad.csv"
    bad.write_text("sep=;\nfoo;bar\n1;2\n")
    with pytest.raises(InputError, match=r"bad\.csv:2: header \['foo', 'bar'\] is neither"):
        read_any(bad)


def test_mapping_headers_are_matched_in_any_case(tmp_path):
    path = tmp_path / "d98_lower.csv"
    path.write_text("month #,white player #,black player #,score\n98,1,2,1\n98,2,3,0.5\n")
    for mapping in (None, "kaggle2010"):
        raw = read_any(path, mapping=mapping)
        assert raw.mapping == "kaggle2010"
        assert raw.frame.select("period", "white_id", "black_id", "score").rows() == [
            ("98", "1", "2", "1"),
            ("98", "2", "3", "0.5"),
        ]
    parquet = tmp_path / "upper.parquet"
    frame = pl.DataFrame({" MONTH # ": [98], "White Player #": [1], "black player #": [2]})
    frame.with_columns(pl.lit(1.0).alias("SCORE")).write_parquet(parquet)
    # (typed Parquet columns stay typed, docs/ingest.md "Typed columns")
    assert read_any(parquet).frame.select("period", "white_id", "score").row(0) == (98, "1", 1.0)
    # a header that truly lacks columns is refused naming what it found
    short = tmp_path / "short.csv"
    short.write_text("month,white player #,score\n1,1,1\n")
    with pytest.raises(InputError) as got:
        read_any(short, mapping="kaggle2010")
    assert str(got.value) == (
        f"{short}:1: header does not match mapping 'kaggle2010': it lacks 'Month #', "
        "'Black Player #' (found: 'month', 'white player #', 'score'; the mapping's "
        "columns, any case: 'Month #', 'White Player #', 'Black Player #', 'Score')"
    )


def _deloitte(boards: list[str]) -> pl.DataFrame:
    """A month of a deloitte2011 test_solution.csv: player 1 plays two Private games
    and one Public game."""
    return pl.DataFrame(
        {
            "TEID": [1, 2, 3, 4, 5],
            "MonthID": [100] * 5,
            "WhitePlayer": [1, 1, 1, 2, 4],
            "BlackPlayer": [2, 3, 4, 3, 2],
            "WhiteScore": [1.0, 1.0, 0.0, 0.5, 1.0],
            "Leaderboard": boards,
        }
    )


PLAYERS = pl.DataFrame(
    {"player_id": ["1", "2", "3", "4"], "rating": [2200, 2000, 1900, 2100], "rated_games": 40}
)


@pytest.mark.parametrize("system", ["harkness", "uscf"])
def test_deloitte_leaderboard_is_not_an_event(system, tmp_path):
    split = tmp_path / "test_solution.csv"
    _deloitte(["Private", "Private", "Public", "Public", "Private"]).write_csv(split)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        got = arpad.rate(split, system=system, players=PLAYERS, mapping="deloitte2011")
    assert any(
        "mapping 'deloitte2011': column(s) 'Leaderboard' not read (Leaderboard: Kaggle's "
        "random Public/Private scoring split, not an event)" in str(w.message)
        for w in said
    )
    one = arpad.rate(
        _deloitte(["Public"] * 5), system=system, players=PLAYERS, mapping="deloitte2011"
    )
    assert got.select("player_id", "rating_after").equals(one.select("player_id", "rating_after"))
    if system == "harkness":
        # docs/legacy-systems.md "Harkness and Ingo", the month as one event: new = Rc +
        # 10 (pct - 50), rounded.
        # 1: Rc 2000, 2 of 3 -> 2167 (before: his Public game alone, a loss to 2100)
        # 2: Rc 2066.7, 0.5 of 3 -> 1733; 3: Rc 2100, 0.5 of 2 -> 1850; 4: Rc 2100, 2 of 2
        assert got["rating_after"].to_list() == [2167.0, 1733.0, 1850.0, 2600.0]
