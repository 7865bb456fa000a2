"""Parquet and Arrow files as every tool writes them (pandas, polars, Spark, DuckDB, R
arrow): each file gives what a CSV with the same values gives (stored games, quarantine
reasons and lines), or a one-line error naming the file and the problem with nothing
stored (docs/ingest.md "Parquet files attacked"). A Parquet row number is the CSV
line number minus the header line."""

from __future__ import annotations

import csv
import datetime as dt
import decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import stream_ingest
from arpad.pipeline.errors import InputError
from arpad.pipeline.ingest import ingest_file, ingest_files
from arpad.pipeline.store import Store

WHITE = ["a", "b", "c", "d"]
BLACK = ["b", "c", "d", "a"]


def games_table(**columns) -> pa.Table:
    """Four games of January 2024; ``columns`` replace or add columns (None drops)."""
    base = {
        "white_id": pa.array(WHITE),
        "black_id": pa.array(BLACK),
        "score": pa.array([1.0, 0.5, 0.0, 1.0]),
        "period": pa.array([202401] * 4, pa.int32()),
    }
    base.update(columns)
    return pa.table({k: v for k, v in base.items() if v is not None})


def csv_rows(**columns) -> list[list[str]]:
    base = {"white_id": WHITE, "black_id": BLACK, "score": ["1", "0.5", "0", "1"]}
    base["period"] = ["202401"] * 4
    base.update(columns)
    base = {k: v for k, v in base.items() if v is not None}
    names = list(base)
    return [names, *[list(row) for row in zip(*[base[n] for n in names], strict=True)]]


def _content(root, header_lines: int) -> tuple[list[dict], list[tuple]]:
    """Stored games (row numbers as Parquet rows, the file name left out) and quarantine
    (row, reason, detail)."""
    store = Store(root)
    games = []
    for f in store.game_files():
        for row in pq.read_table(f).to_pylist():
            for name in ("ingest_batch", "white_key", "black_key"):
                row.pop(name, None)
            if row["game_id"] == row["source"]:
                row["game_id"] = "<derived>"
            row["source"] = int(row["source"].rsplit(":", 1)[1]) - header_lines
            row["period"] = int(f.parent.name.split("=")[1])  # the partition's
            games.append(row)
    quarantine = [
        (r["line"] - header_lines, r["reason"], r["detail"])
        for f in sorted(store.quarantine_dir.rglob("*.parquet"))
        for r in pq.read_table(f).to_pylist()
    ]
    return sorted(games, key=lambda r: r["source"]), sorted(quarantine)


def ingest_parquet(tmp_path, table: pa.Table, kind=None, **write) -> tuple:
    path = tmp_path / "in.parquet"
    pq.write_table(table, path, **write)
    ingest_file(Store(tmp_path / "pq"), path, kind=kind)
    return _content(tmp_path / "pq", 0)


def ingest_csv(tmp_path, rows: list[list[str]], kind=None) -> tuple:
    path = tmp_path / "in.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    ingest_file(Store(tmp_path / "csv"), path, kind=kind)
    return _content(tmp_path / "csv", 1)


def same_as_csv(tmp_path, table: pa.Table, rows: list[list[str]], kind=None) -> tuple:
    got = ingest_parquet(tmp_path, table, kind)
    want = ingest_csv(tmp_path, rows, kind)
    assert got == want
    return got


def refused(tmp_path, table: pa.Table, *words: str) -> str:
    """The file is refused with one line naming it and the problem; nothing stored."""
    path = tmp_path / "in.parquet"
    pq.write_table(table, path)
    with pytest.raises(InputError) as err:
        ingest_file(Store(tmp_path / "pq"), path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(path))
    for word in words:
        assert word in message
    assert not list(Store(tmp_path / "pq").game_files())
    return message


# -- column types that must read as the CSV text of their values -------------------------


@pytest.mark.parametrize(
    "kind",
    [pa.string(), pa.large_string(), pa.string_view()],
    ids=["string", "large_string", "string_view"],
)
def test_text_ids_of_every_arrow_string_type(tmp_path, kind):
    """polars' own Arrow export is string_view (``DataFrame.to_arrow``, and Parquet
    files pyarrow writes from it keep the type in their schema): it was refused as
    'a type arpad cannot read'."""
    table = games_table(white_id=pa.array(WHITE, kind), black_id=pa.array(BLACK, kind))
    games, _ = same_as_csv(tmp_path, table, csv_rows())
    assert [g["white_id"] for g in games] == WHITE


def test_dictionary_encoded_ids_and_period(tmp_path):
    table = games_table(
        white_id=pa.array(WHITE).dictionary_encode(),
        period=pa.array(["2024-01"] * 4).dictionary_encode(),
    )
    games, _ = same_as_csv(tmp_path, table, csv_rows(period=["2024-01"] * 4))
    assert {g["period"] for g in games} == {202401}


def test_decimal256_score_reads_as_its_decimal_text(tmp_path):
    """A decimal256 column (Spark's DECIMAL(p > 38), R arrow) made polars panic inside
    the ingest (a Rust panic, not an error: a traceback, the process dead)."""
    values = [decimal.Decimal(v) for v in ("1.00", "0.50", "0", "0.51")]
    table = games_table(score=pa.array(values, pa.decimal256(40, 2)))
    games, quarantine = same_as_csv(tmp_path, table, csv_rows(score=["1.00", "0.50", "0", "0.51"]))
    assert [g["score"] for g in games] == [1.0, 0.5, 0.0]
    assert [q[:2] for q in quarantine] == [(4, "score_out_of_range")]


def test_decimal256_player_rating(tmp_path):
    table = pa.table({"player_id": ["a"], "rating": pa.array([2000], pa.decimal256(40, 0))})
    got = ingest_parquet(tmp_path, table, kind="players")
    assert got == ([], [])
    assert Store(tmp_path / "pq").read_players().column("rating").to_pylist() == [2000.0]


def test_whole_float_game_and_event_ids_are_their_integers(tmp_path):
    """A pandas integer column with one missing value is float64: game id 1.0 was stored
    as '1.0' (a CSV of the same ids says 1), so the same game sent as CSV later was
    not recognised; event ids alike."""
    table = games_table(
        game_id=pa.array([1.0, 2.0, 1.0, None]), event_id=pa.array([7.0, 7.5, None, 8.0])
    )
    rows = csv_rows(game_id=["1", "2", "1", ""], event_id=["7", "7.5", "", "8"])
    got = ingest_parquet(tmp_path, table)
    want = ingest_csv(tmp_path, rows)
    assert got[0] == want[0]
    assert [g["game_id"] for g in got[0]] == ["1", "2", "<derived>"]
    assert [g["event_id"] for g in got[0]] == ["7", "7.5", "8"]
    # the duplicate names the first row in its own numbering (row 1, CSV line 2)
    assert got[1] == [(3, "duplicate_game_id", "game_id 1 already on line 1")]


def test_float_id_beyond_2_to_53_is_refused(tmp_path):
    """Past 2**53 a float64 no longer holds every integer: id 2**60 + 1 written through
    a float column arrives as 2**60, another player. It was stored as the player
    '1.152921504606847e+18'."""
    table = games_table(white_id=pa.array([2.0**60, 2.0, 3.0, 4.0]))
    message = refused(tmp_path, table, "'white_id'", "row 1", "2**53")
    assert ":1:" in message


def test_float_id_below_2_to_53_is_its_integer(tmp_path):
    big = 2**53 - 1
    table = games_table(white_id=pa.array([float(big), 2.0, 3.0, 4.0]))
    games, _ = same_as_csv(tmp_path, table, csv_rows(white_id=[str(big), "2", "3", "4"]))
    assert games[0]["white_id"] == str(big)


def test_uint64_ids_beyond_2_to_63(tmp_path):
    ids = [2**63 + 1, 2, 3, 2**64 - 1]
    table = games_table(white_id=pa.array(ids, pa.uint64()))
    same_as_csv(tmp_path, table, csv_rows(white_id=[str(i) for i in ids]))


# -- dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "column",
    [
        pa.array([dt.datetime(2024, 1, 5, 23, 30)] * 4, pa.timestamp("ms")),
        pa.array([dt.date(2024, 1, 5)] * 4, pa.date64()),
        pa.array(["2024-01-05"] * 4),
        pa.array([dt.date(2024, 1, 5)] * 4, pa.date32()),
    ],
    ids=["timestamp", "date64", "string", "date32"],
)
def test_dates_of_every_type(tmp_path, column):
    table = games_table(period=None, date=column)
    games, _ = same_as_csv(tmp_path, table, csv_rows(period=None, date=["2024-01-05"] * 4))
    assert {g["date"] for g in games} == {dt.date(2024, 1, 5)}


def test_timestamp_with_a_zone_is_the_date_it_shows_there(tmp_path):
    """22:00 UTC on 5 January is 6 January in Tokyo: the local calendar date."""
    at = dt.datetime(2024, 1, 5, 22, 0, tzinfo=dt.timezone.utc)
    table = games_table(period=None, date=pa.array([at] * 4, pa.timestamp("us", tz="Asia/Tokyo")))
    games, _ = same_as_csv(tmp_path, table, csv_rows(period=None, date=["2024-01-06"] * 4))
    assert {g["date"] for g in games} == {dt.date(2024, 1, 6)}


def test_integer_date_is_a_bad_date_as_in_csv(tmp_path):
    table = games_table(period=None, date=pa.array([20240105] * 4))
    _, quarantine = same_as_csv(tmp_path, table, csv_rows(period=None, date=["20240105"] * 4))
    assert {q[1] for q in quarantine} == {"bad_date"}


def test_dates_beyond_any_calendar_are_bad_dates_not_missing(tmp_path):
    """A date32 of 2**31 - 1 days (year 5,881,580: a sentinel some tools write) was
    quarantined as 'neither date nor period given' (polars cannot compute its year);
    printing it in a detail made polars panic. It is read as its text, as a CSV would
    give it, so it is a ``bad_date``; the other rows keep their typed dates."""
    days = pa.array([2**31 - 1, -(2**31), 19727, 19727], pa.date32())
    games, quarantine = ingest_parquet(tmp_path, games_table(period=None, date=days))
    assert [q[:2] for q in quarantine] == [(1, "bad_date"), (2, "bad_date")]
    assert [g["date"] for g in games] == [dt.date(2024, 1, 5)] * 2
    (tmp_path / "ts").mkdir()
    seconds = pa.array([10**14, -(10**10), 1704412800, 1704412800], pa.timestamp("s"))
    games, quarantine = ingest_parquet(tmp_path / "ts", games_table(period=None, date=seconds))
    assert [q[:2] for q in quarantine] == [(1, "bad_date"), (2, "period_out_of_range")]
    assert [g["date"] for g in games] == [dt.date(2024, 1, 5)] * 2


# -- scores, periods, ratings -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "text"),
    [
        (pa.array([1.0, 0.5, 0.0, 0.25], pa.float32()), ["1", "0.5", "0", "0.25"]),
        (pa.array([1, 0, 0, 2], pa.int8()), ["1", "0", "0", "2"]),
        (pa.array([True, False, False, True]), ["true", "false", "false", "true"]),
        (pa.array(["½", "1", "0", "½"]), ["½", "1", "0", "½"]),
        (
            pa.array([decimal.Decimal(v) for v in ("1", "0.5", "0", "2")], pa.decimal128(3, 1)),
            ["1.0", "0.5", "0.0", "2.0"],
        ),
    ],
    ids=["float32", "int8", "bool", "half-sign", "decimal128"],
)
def test_scores_of_every_type(tmp_path, column, text):
    same_as_csv(tmp_path, games_table(score=column), csv_rows(score=text))


@pytest.mark.parametrize(
    ("column", "text"),
    [
        (pa.array(["2024-01"] * 4), ["2024-01"] * 4),
        (pa.array([2**40, 202401, 202401, -5], pa.int64()), [str(2**40), "202401", "202401", "-5"]),
        (pa.array([202401] * 4, pa.int32()).dictionary_encode(), ["202401"] * 4),
        (pa.array([2**64 - 1, 202401, 1, 0], pa.uint64()), [str(2**64 - 1), "202401", "1", "0"]),
    ],
    ids=["yyyy-mm", "int64", "dictionary", "uint64"],
)
def test_periods_of_every_type(tmp_path, column, text):
    same_as_csv(tmp_path, games_table(period=column), csv_rows(period=text))


def test_nan_and_infinite_ratings_are_bad_ratings(tmp_path):
    """Quarantined as in a CSV; the detail prints NaN as polars does ('NaN'), a CSV's
    detail echoes its text (docs/ingest.md "Parquet files attacked")."""
    table = games_table(white_rating=pa.array([float("nan"), float("inf"), -float("inf"), 2000.0]))
    got = ingest_parquet(tmp_path, table)
    want = ingest_csv(tmp_path, csv_rows(white_rating=["NaN", "inf", "-inf", "2000"]))
    assert got == want
    assert [q[1] for q in got[1]] == ["bad_rating"] * 3


def test_a_null_typed_column_is_an_empty_column(tmp_path):
    same_as_csv(tmp_path, games_table(event_id=pa.nulls(4)), csv_rows(event_id=[""] * 4))
    score = games_table(
        score=pa.nulls(4),
        result=pa.array(
            [
                "1-0",
                "0-1",
                "1-0",
                "=",
            ]
        ),
    )
    rows = csv_rows(score=[""] * 4, result=["1-0", "0-1", "1-0", "="])
    (tmp_path / "2").mkdir()
    same_as_csv(tmp_path / "2", score, rows)


# -- shapes -----------------------------------------------------------------------------------


def test_nested_column_where_a_scalar_is_expected_is_refused(tmp_path):
    refused(tmp_path, games_table(score=pa.array([{"x": 1}] * 4)), "'score'", "nested")


def test_unknown_columns_of_any_type_are_ignored(tmp_path):
    """A CSV's unknown column is ignored; a Parquet file's unknown list, struct or
    duration column (Spark's array of moves, a clock column) refused the whole file."""
    table = games_table(
        moves=pa.array([["e4"], ["d4"], [], None]),
        meta=pa.array([{"x": 1}] * 4),
        clock=pa.array([1, 2, 3, 4], pa.duration("s")),
        wide=pa.array([decimal.Decimal(1)] * 4, pa.decimal256(50, 0)),
    )
    same_as_csv(tmp_path, table, csv_rows())


def test_players_file_with_extra_columns(tmp_path):
    table = pa.table(
        {
            "player_id": ["a", "b", "c"],
            "rating": [2000.0, float("nan"), 2100.0],
            "club": ["x", "y", "z"],
            "history": pa.array([[1], [2], None]),
        }
    )
    got = ingest_parquet(tmp_path, table, kind="players")
    assert got[1] == [(2, "bad_player_field", "rating NaN is not a number in 0..3500")]
    players = Store(tmp_path / "pq").read_players()
    assert players.column("player_id").to_pylist() == ["a", "c"]


def test_players_timestamp_dates_are_their_dates(tmp_path):
    """A timestamp birth_date or observation date (pandas datetime64) was quarantined
    as 'birth_date 1990-05-01 12:00:00.000000 is not a valid date'."""
    table = pa.table(
        {
            "player_id": ["a", "a"],
            "date": pa.array(
                [dt.datetime(2024, 1, 1), dt.datetime(2024, 2, 1)], pa.timestamp("ms")
            ),
            "birth_date": pa.array([dt.datetime(1990, 5, 1, 12)] * 2, pa.timestamp("us")),
            "rating": [2000.0, 2010.0],
        }
    )
    rows = [
        ["player_id", "date", "birth_date", "rating"],
        ["a", "2024-01-01", "1990-05-01", "2000"],
        ["a", "2024-02-01", "1990-05-01", "2010"],
    ]
    got = ingest_parquet(tmp_path, table, kind="players")
    want = ingest_csv(tmp_path, rows, kind="players")
    assert got == want == ([], [])
    strip = lambda t: t.drop_columns(["source"]).to_pylist()  # noqa: E731
    assert strip(Store(tmp_path / "pq").read_players()) == strip(
        Store(tmp_path / "csv").read_players()
    )


def test_spaced_upper_case_names(tmp_path):
    table = games_table(period=pa.array([202401] * 4))
    table = table.rename_columns(["White ID", " BLACK_ID ", "Score", "PERIOD"])
    same_as_csv(tmp_path, table, csv_rows())


def test_duplicate_column_names_are_refused(tmp_path):
    table = pa.Table.from_arrays(
        [
            pa.array(WHITE),
            pa.array(BLACK),
            pa.array([1.0] * 4),
            pa.array([1] * 4),
            pa.array([0.0] * 4),
        ],
        names=["white_id", "black_id", "score", "period", "score"],
    )
    refused(tmp_path, table, "duplicate column names", "score")


def test_zero_rows_and_zero_columns(tmp_path):
    assert same_as_csv(tmp_path, games_table().slice(0, 0), csv_rows()[:1]) == ([], [])
    (tmp_path / "0").mkdir()
    refused(tmp_path / "0", pa.table({}), "neither a games file")


def test_ids_with_newline_and_10_kb(tmp_path):
    long = "x" * 10_000
    table = games_table(white_id=pa.array(["a\nz", long, "c", "d"]))
    games, _ = ingest_parquet(tmp_path, table)
    assert [g["white_id"] for g in games] == ["a\nz", long, "c", "d"]
    assert [g["source"] for g in games] == [1, 2, 3, 4]  # rows, not physical lines


def test_ids_with_nul_are_refused(tmp_path):
    refused(tmp_path, games_table(white_id=pa.array(["a", "b\x00", "c", "d"])), "NUL", "row 2")


# -- row groups, slices, several files --------------------------------------------------------


def _numbered(n: int, repeat: dict[int, int]) -> pa.Table:
    ids = [f"g{repeat.get(i, i)}" for i in range(n)]
    white = [f"p{i % 97}" for i in range(n)]
    black = [f"p{(i % 97 + 1 + i % 5) % 97}" for i in range(n)]
    return pa.table(
        {
            "game_id": ids,
            "white_id": white,
            "black_id": black,
            "score": pa.array([1.0, 0.5, 0.0][i % 3] for i in range(n)),
            "period": pa.array([202401 + i % 3 for i in range(n)], pa.int32()),
        }
    )


@pytest.mark.parametrize("batch_rows", [5_000, 5_001, 250_000])
def test_ten_thousand_row_groups_and_a_repeated_id_across_them(tmp_path, monkeypatch, batch_rows):
    """One row per row group (10k row groups); row 5001 repeats the id of row 11 in
    another row group, and, with 5,000-row slices, in another slice."""
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", batch_rows)
    table = _numbered(10_000, {5000: 10})
    path = tmp_path / "in.parquet"
    pq.write_table(table, path, row_group_size=1)
    assert pq.ParquetFile(path).metadata.num_row_groups == 10_000
    ingest_file(Store(tmp_path / "pq"), path)
    games, quarantine = _content(tmp_path / "pq", 0)
    assert len(games) == 9_999
    assert quarantine == [(5001, "duplicate_game_id", "game_id g10 already on line 11")]


def test_files_of_one_command_that_disagree_in_types(tmp_path):
    """Three files of one ingest: integer ids, float ids (one missing), text ids; the
    same players whatever the type, and the second file's repeated game is caught."""
    a = pa.table(
        {"game_id": ["x1"], "white_id": pa.array([1], pa.int64()), "black_id": pa.array([2], pa.int32()),
         "score": [1.0], "period": pa.array([202401], pa.int32())}
    )  # fmt: skip
    b = pa.table(
        {"game_id": ["x2", "x1"], "white_id": [2.0, None], "black_id": [1.0, 3.0],
         "result": ["1-0", "0-1"], "date": pa.array([dt.date(2024, 1, 3)] * 2)}
    )  # fmt: skip
    c = pa.table(
        {"game_id": ["x3"], "white_id": [" 1 "], "black_id": ["2"], "score": ["0,5"],
         "period": ["2024-01"]}
    )  # fmt: skip
    paths = []
    for name, table in (("a", a), ("b", b), ("c", c)):
        paths.append(tmp_path / f"{name}.parquet")
        pq.write_table(table, paths[-1])
    ingest_files(Store(tmp_path / "pq"), paths)
    store = Store(tmp_path / "pq")
    rows = sorted(
        (r["game_id"], r["white_id"], r["black_id"], r["score"], f.parent.name)
        for f in store.game_files()
        for r in pq.read_table(f).to_pylist()
    )
    month = "period=202401"
    assert rows == [("x1", "1", "2", 1.0, month), ("x2", "2", "1", 1.0, month),
                    ("x3", "1", "2", 0.5, month)]  # fmt: skip
    reasons = [
        (r["source"], r["line"], r["reason"])
        for f in store.quarantine_dir.rglob("*.parquet")
        for r in pq.read_table(f).to_pylist()
    ]
    assert [r[1:] for r in reasons] == [(2, "empty_player_id")]


def test_nan_id_is_a_missing_id_and_infinite_id_is_refused(tmp_path):
    """A NaN in a float id column (numpy, polars) is a missing id, as pandas's own CSV
    export writes it (empty): ``empty_player_id``, where it was the player 'NaN'; an
    infinite id is refused like one past 2**53."""
    table = games_table(white_id=pa.array([float("nan"), 2.0, 3.0, 4.0]))
    _, quarantine = same_as_csv(tmp_path, table, csv_rows(white_id=["", "2", "3", "4"]))
    assert [q[:2] for q in quarantine] == [(1, "empty_player_id")]
    (tmp_path / "inf").mkdir()
    table = games_table(black_id=pa.array([2.0, 3.0, 4.0, -float("inf")]))
    refused(tmp_path / "inf", table, "'black_id'", "row 4", "-inf")


def test_uuid_game_ids_are_their_canonical_text(tmp_path):
    """DuckDB and Spark write UUID columns as Parquet's UUID type (pyarrow: the
    ``arrow.uuid`` extension over 16 bytes); they were refused as 'a type arpad cannot
    read'. A UUID id is its 8-4-4-4-12 text, the CSV those tools export."""
    import uuid

    ids = [uuid.UUID(int=1), uuid.UUID(int=2**127 + 255), uuid.uuid5(uuid.NAMESPACE_DNS, "x"), None]
    table = games_table(game_id=pa.array([u.bytes if u else None for u in ids], pa.uuid()))
    games, _ = same_as_csv(tmp_path, table, csv_rows(game_id=[str(u) if u else "" for u in ids]))
    assert [g["game_id"] for g in games][:3] == [str(u) for u in ids[:3]]


def test_fixed_size_binary_ids_are_text_if_utf8(tmp_path):
    table = games_table(white_id=pa.array([b"a1", b"b2", b"c3", b"d4"], pa.binary(2)))
    same_as_csv(tmp_path, table, csv_rows(white_id=["a1", "b2", "c3", "d4"]))
    (tmp_path / "bin").mkdir()
    table = games_table(white_id=pa.array([b"\xff\xfe", b"b2", b"c3", b"d4"], pa.binary(2)))
    refused(tmp_path / "bin", table, "'white_id'", "not UTF-8")


def test_byte_order_mark_in_the_first_column_name(tmp_path):
    """A CSV read without stripping its byte-order mark (Python's ``utf-8`` codec, some
    add-ins) names its first column '\\ufeffwhite_id', and the Parquet file written from
    it keeps that name: refused as 'missing required column(s): white_id', where the
    CSV itself ingests (docs/ingest.md: a BOM is fine)."""
    table = games_table(period=pa.array([202401] * 4))
    table = table.rename_columns(["\ufeffwhite_id", "black_id", "score", "period"])
    same_as_csv(tmp_path, table, csv_rows())


@pytest.mark.parametrize("batch_rows", [1, 3, 250_000])
def test_a_slice_read_as_text_beside_typed_slices(tmp_path, monkeypatch, batch_rows):
    """Row 5's sentinel date makes its slice's date column text while the others stay
    typed: the store is the same for any slicing, and the same as the CSV's."""
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", batch_rows)
    days = [19727, 19728, 19729, 19730, 2**31 - 1, 19731, -(10**5), 19732]
    white, black = [f"p{i}" for i in range(8)], [f"q{i}" for i in range(8)]
    table = pa.table(
        {
            "game_id": [f"g{i}" for i in range(7)] + ["g2"],
            "white_id": white,
            "black_id": black,
            "score": [1.0] * 8,
            "date": pa.array(days, pa.date32()),
        }
    )
    got = ingest_parquet(tmp_path, table)
    assert [q[:2] for q in got[1]] == [
        (5, "bad_date"),
        (7, "period_out_of_range"),
        (8, "duplicate_game_id"),
    ]
    text = [
        "<value out of range: 2147483647>"
        if d > 10**6
        else str(dt.date(1970, 1, 1) + dt.timedelta(days=d))
        for d in days
    ]
    rows = [["game_id", "white_id", "black_id", "score", "date"]] + [
        [g, w, b, "1", d]
        for g, w, b, d in zip(table["game_id"].to_pylist(), white, black, text, strict=True)
    ]
    want = ingest_csv(tmp_path, rows)
    assert got[0] == want[0]
    assert [q[:2] for q in want[1]] == [q[:2] for q in got[1]]


def test_a_lost_float_id_in_a_later_slice_stores_nothing(tmp_path, monkeypatch):
    """Slices 1 and 2 are stored behind while slice 3 is read: its float id past 2**53
    refuses the file with its row, and the store is as before."""
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", 2)
    table = games_table(
        white_id=pa.array([1.0, 2.0, 3.0, 4.0] * 2 + [2.0**53, 5.0]),
        black_id=pa.array([9.0] * 10),
        score=pa.array([1.0] * 10),
        period=pa.array([202401] * 10, pa.int32()),
    )
    message = refused(tmp_path, table, "'white_id'", "row 9")
    assert ":9:" in message
    store = Store(tmp_path / "pq")
    assert not list(store.quarantine_dir.rglob("*.parquet"))
    assert store.read_manifest().num_rows == 0


def _pandas_period_table(freq: str, ordinals: list[int | None]) -> pa.Table:
    """A games table whose ``period`` is a pandas Period column as pandas writes it:
    int64 ordinals (months or days since 1970) under the ``pandas.period`` extension
    name, read back without pandas's type registered as plain int64 with that name in
    the field's metadata."""
    meta = {
        b"ARROW:extension:name": b"pandas.period",
        b"ARROW:extension:metadata": f'{{"freq": "{freq}"}}'.encode(),
    }
    n = len(ordinals)
    field = pa.field("period", pa.int64(), metadata=meta)
    schema = pa.schema(
        [pa.field("white_id", pa.string()), pa.field("black_id", pa.string()),
         pa.field("score", pa.float64()), field]
    )  # fmt: skip
    columns = [WHITE[:n], BLACK[:n], [1.0] * n, pa.array(ordinals, pa.int64())]
    return pa.Table.from_arrays(columns, schema=schema)


def test_pandas_monthly_period_column_is_its_months(tmp_path):
    """``df["period"] = df.date.dt.to_period("M")`` then ``to_parquet``: pyarrow reads
    the column back as int64 months since 1970-01 (648 is 2024-01), which was stored
    as the period number 648, silently."""
    table = _pandas_period_table("M", [648, 649, -1, None])
    path = tmp_path / "in.parquet"
    pq.write_table(table, path)
    assert pq.read_table(path).column("period").to_pylist() == [648, 649, -1, None]
    got = ingest_parquet(tmp_path, table)
    want = ingest_csv(
        tmp_path, csv_rows(period=["2024-01", "2024-02", "1969-12", ""], score=["1"] * 4)
    )
    assert got == want
    assert [g["period"] for g in got[0]] == [202401, 202402, 196912]


def test_pandas_period_of_another_frequency_is_refused(tmp_path):
    refused(tmp_path, _pandas_period_table("Q-DEC", [216, 217, 218, 219]), "'period'", "Q-DEC")


def test_pandas_period_columns_written_by_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"white_id": ["a", "b"], "black_id": ["b", "c"], "score": [1.0, 0.0],
         "period": pd.to_datetime(["2024-01-05", "2023-12-31"]).to_period("M")}
    )  # fmt: skip
    path = tmp_path / "in.parquet"
    frame.to_parquet(path)
    ingest_file(Store(tmp_path / "pq"), path)
    games, _ = _content(tmp_path / "pq", 0)
    assert [g["period"] for g in games] == [202401, 202312]


def test_spark_int96_timestamps_before_1677(tmp_path):
    """Spark and Hive write timestamps as INT96; read as nanoseconds (pyarrow's
    default) a date before 1677 wraps around 2**64 ns: 1300-03-01 became a game of
    1884 and was stored there, silently. Read as microseconds it is its own date
    (quarantined: before the valid months), and a date in range is unchanged."""
    dates = [dt.datetime(1300, 3, 1), dt.datetime(1500, 1, 5), dt.datetime(2024, 1, 5, 23, 30)]
    table = pa.table(
        {
            "white_id": WHITE[:3],
            "black_id": BLACK[:3],
            "score": [1.0, 0.5, 0.0],
            "date": pa.array(dates, pa.timestamp("us")),
        }
    )
    path = tmp_path / "in.parquet"
    pq.write_table(table, path, use_deprecated_int96_timestamps=True)
    assert pq.ParquetFile(path).schema.column(3).physical_type == "INT96"
    ingest_file(Store(tmp_path / "pq"), path)
    games, quarantine = _content(tmp_path / "pq", 0)
    want = ingest_csv(
        tmp_path,
        [["white_id", "black_id", "score", "date"], ["a", "b", "1", "1300-03-01"],
         ["b", "c", "0.5", "1500-01-05"], ["c", "d", "0", "2024-01-05"]],
    )  # fmt: skip
    assert (games, quarantine) == want
    assert [q[:2] for q in quarantine] == [(1, "period_out_of_range"), (2, "period_out_of_range")]
    assert [g["date"] for g in games] == [dt.date(2024, 1, 5)]


def test_columns_without_a_name_are_not_duplicates(tmp_path):
    """Two columns named '' (R arrow and pyarrow allow them; a spreadsheet's trailing
    ',,' in a CSV turned into Parquet) were refused as 'duplicate column names
    (case-insensitive): ' with nothing named; a CSV's are unknown columns, each on its
    own (docs/ingest.md "Canonical CSV / Parquet")."""
    table = pa.Table.from_arrays(
        [*games_table().columns, pa.array(["x"] * 4), pa.array([1, 2, 3, 4]), pa.array([" "] * 4)],
        names=["white_id", "black_id", "score", "period", "", " ", "  "],
    )
    rows = [[*r, "x", str(i), " "] for i, r in enumerate(csv_rows(), 0)]
    rows[0][-3:] = ["", " ", "  "]
    same_as_csv(tmp_path, table, rows)


def test_timestamp_in_an_unknown_time_zone_is_refused_with_its_name(tmp_path):
    """A zone this machine's database does not know (a Windows zone name, a typo) made
    the ingest fail with pyarrow's message, not naming the file (a traceback through
    the Python API): the calendar date depends on the zone, so the file is refused."""
    at = pa.array([0, 1, 2, 3], pa.timestamp("us", tz="W. Europe Standard Time"))
    refused(tmp_path, games_table(period=None, date=at), "'date'", "W. Europe Standard Time")


def test_pandas_daily_period_past_any_date_is_refused(tmp_path):
    """A daily pandas period whose ordinal is no date32 (2**40 days) failed with
    pyarrow's overflow message, not naming the file."""
    table = _pandas_period_table("D", [19727, 2**40, 19728, 19729]).rename_columns(
        ["white_id", "black_id", "score", "date"]
    )
    refused(tmp_path, table, "'date'")


@pytest.mark.parametrize("batch_rows", [1, 250_000])
def test_rows_with_every_field_empty_are_blank_rows(tmp_path, monkeypatch, batch_rows):
    """A spreadsheet's formatted empty rows become rows of nulls (or of spaces) in the
    Parquet file an add-in writes; in a CSV they are ',,,' lines, skipped as blank with
    a note. They were quarantined as ``empty_player_id``, one per empty row."""
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", batch_rows)
    table = games_table(
        white_id=pa.array(["a", None, " ", "d"]),
        black_id=pa.array(["b", None, "", "a"]),
        score=pa.array([1.0, None, None, 1.0]),
        period=pa.array([202401, None, None, 202401], pa.int32()),
    )
    path = tmp_path / "in.parquet"
    pq.write_table(table, path)
    report = ingest_file(Store(tmp_path / "pq"), path)
    assert "2 blank row(s) skipped" in report.notes
    assert (report.rows, report.accepted, report.quarantined) == (2, 2, 0)
    got = _content(tmp_path / "pq", 0)
    want = ingest_csv(tmp_path, csv_rows(white_id=["a", "", " ", "d"], black_id=["b", "", "", "a"],
                      score=["1", "", "", "1"], period=["202401", "", "", "202401"]))  # fmt: skip
    assert got == want
    assert [g["source"] for g in got[0]] == [1, 4]  # rows keep their numbers


@pytest.mark.parametrize("name", ["_before", "_first_line", "_check", "_game_id", "_line"])
def test_columns_named_like_validation_helpers(tmp_path, monkeypatch, name):
    """An unknown column named like one of validation's own helper columns: with the
    duplicate id in a later slice, '_before' crashed the ingest (polars: 'cannot
    compare string with numeric type')."""
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", 1)
    ids = ["g1", "g2", "g1", "g3"]
    table = games_table(game_id=pa.array(ids), **{name: pa.array(["7", "8", "9", "x"])})
    _, quarantine = ingest_parquet(tmp_path, table)
    assert quarantine == [(3, "duplicate_game_id", "game_id g1 already on line 1")]


def test_a_hundred_thousand_columns(tmp_path):
    """The duplicate-name check counted each name in the whole header: quadratic, 9 s
    of a 20,000-column file's 11.5 s, and hours for 100,000 columns (twice per file:
    header and every slice). Counted once, the file ingests in seconds."""
    import time

    columns = {"white_id": ["a"], "black_id": ["b"], "score": [1.0], "period": [1]}
    columns.update({f"extra {i}": pa.array([i % 100], pa.int8()) for i in range(100_000)})
    start = time.perf_counter()
    games, quarantine = ingest_parquet(tmp_path, pa.table(columns))
    assert [(g["white_id"], g["black_id"]) for g in games] == [("a", "b")] and not quarantine
    assert time.perf_counter() - start < 120  # quadratic: hours


def test_a_duckdb_export_with_every_odd_type(tmp_path):
    """DuckDB's COPY TO of a games table with extra HUGEINT, UUID, INTERVAL (12 bytes
    holding NULs), TIME, LIST, STRUCT, MAP, BLOB and ENUM columns: the INTERVAL column
    refused the file ('holds a NUL character'), an unknown column of no use. Unknown
    binary columns are left out; the games are what the CSV gives."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "in.parquet"
    duckdb.connect().execute(
        f"""COPY (SELECT * FROM (VALUES
          ('g1', 'a', 2::UBIGINT, 1.0::DECIMAL(4,1), DATE '2024-01-05', 1::HUGEINT, uuid(),
           INTERVAL 3 DAY, TIME '10:00', [1, 2], {{'x': 1}}, MAP {{'k': 1}}, '\\x00'::BLOB,
           'a'::ENUM('a', 'b')),
          ('g2', 'b', 3::UBIGINT, 0.5::DECIMAL(4,1), DATE '2024-01-06', 2::HUGEINT, uuid(),
           INTERVAL 1 DAY, TIME '11:00', [3], {{'x': 2}}, MAP {{'k': 2}}, 'y'::BLOB,
           'b'::ENUM('a', 'b'))
        ) t(game_id, white_id, black_id, score, date, big, u, iv, tm, li, st, mp, bl, en))
        TO '{path}' (FORMAT parquet)"""
    )
    ingest_file(Store(tmp_path / "pq"), path)
    got = _content(tmp_path / "pq", 0)
    rows = [["game_id", "white_id", "black_id", "score", "date"],
            ["g1", "a", "2", "1.0", "2024-01-05"], ["g2", "b", "3", "0.5", "2024-01-06"]]  # fmt: skip
    assert got == ingest_csv(tmp_path, rows)
    assert [g["game_id"] for g in got[0]] == ["g1", "g2"]
