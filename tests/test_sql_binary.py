"""``arpad sql`` and ``Store.sql`` with result types polars cannot hold or write as they
come from DuckDB (docs/cli.md "arpad sql", docs/api.md round 4): BLOB (a Rust panic
``Writing BinaryView to JSON`` with ``--format json``, an internal error with ``csv``),
BIT (DuckDB's internal bytes ``b"\\x05\\xfd"`` for ``'101'``), UHUGEINT (its maximum
came back as ``-1``), TIME WITH TIME ZONE (the offset was dropped), GEOMETRY and
VARIANT (bytes), and lists, structs, maps and arrays of them. Each comes back as
DuckDB's own ``CAST(… AS VARCHAR)`` text, in every ``--format`` and in the API."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import duckdb
import polars as pl
import pyarrow as pa
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.sql import result_frame

# name: (SQL expression, DuckDB's text of it, written out by hand; test_duckdbs_own_text
# checks each against DuckDB itself)
TEXT_TYPES = {
    "blob": (r"'a\x00b'::BLOB", r"a\x00b"),  # DuckDB escapes bytes it cannot print
    "blob_high": (r"'\xAA\xFFz'::BLOB", r"\xAA\xFFz"),
    "blob_backslash": (r"'\x5C'::BLOB", r"\x5C"),  # a backslash is escaped too
    "bit": ("BIT '101'", "101"),  # (Arrow had DuckDB's bytes 0x05 0xFD)
    # 2^128 - 1 = 340282366920938463463374607431768211455 (it was the DECIMAL -1)
    "uhugeint": ("340282366920938463463374607431768211455::UHUGEINT", str(2**128 - 1)),
    "timetz": ("TIMETZ '12:00:00+02'", "12:00:00+02"),  # (was 12:00:00, no offset)
    "interval": ("INTERVAL 1 DAY", "1 day"),
    "union": ("1::UNION(n INT, s VARCHAR)", "1"),
    # 40 digits: past HUGEINT's 1.7e38 (39 digits)
    "bignum": ("1234567890" * 4 + "::VARINT", "1234567890" * 4),
    "geometry": ("'POINT(1 2)'::GEOMETRY", "POINT (1 2)"),
    "variant": ("42::VARIANT", "42"),
    "list_blob": ("['ab'::BLOB, NULL]", "[ab, NULL]"),
    # inside a list or struct DuckDB quotes a text with a backslash, and doubles the latter
    "struct_blob": (r"{'x': 'a\x00'::BLOB}", r"{'x': 'a\\x00'}"),
    "map_blob": ("MAP {'k': 'v'::BLOB}", "{k=v}"),
    "array_blob": ("['a'::BLOB, 'b'::BLOB]::BLOB[2]", "[a, b]"),
    "list_bit": ("[BIT '1', BIT '10']", "[1, 10]"),
    "list_timetz": ("[TIMETZ '01:00:00+01']", "['01:00:00+01']"),
    "struct_uhugeint": ("{'u': 1::UHUGEINT}", "{'u': 1}"),
}
FORMATS = ["table", "csv", "json", "parquet", "txt"]


def select(names) -> str:
    return "SELECT " + ", ".join(f"{TEXT_TYPES[n][0]} AS {n}" for n in names)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sqlbinary")
    games = folder / "games.csv"
    games.write_text(
        "game_id,date,white_id,black_id,result\n"
        "g1,2024-01-05,A,B,1-0\ng2,2024-01-06,C,D,1/2-1/2\ng3,2024-02-07,B,C,0-1\n"
    )
    path = str(folder / "store")
    assert main(["ingest", "--no-flow", "--store", path, str(games)]) == 0
    return arpad.Store(path)


def run_sql(store, query, fmt, tmp_path, capsys) -> tuple[str, pl.DataFrame | None]:
    """``arpad sql QUERY --format FMT``: its output, and the rows read back (CSV, JSON,
    Parquet) as text; exit 0 without a traceback."""
    args = ["sql", query, "--store", str(store.path), "--format", fmt]
    if fmt == "parquet":
        args += ["--output", str(tmp_path / "out.parquet")]
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    if fmt == "csv":
        return out, pl.read_csv(io.StringIO(out), infer_schema=False)
    if fmt == "json":
        return out, pl.DataFrame(json.loads(out))
    if fmt == "parquet":
        return out, pl.read_parquet(tmp_path / "out.parquet")
    return out, None


def test_duckdbs_own_text():
    """The hand-written texts are DuckDB's own ``CAST(x AS VARCHAR)``."""
    con = duckdb.connect()
    try:
        for name, (expr, text) in TEXT_TYPES.items():
            assert con.sql(f"SELECT CAST(({expr}) AS VARCHAR)").fetchall() == [(text,)], name
    finally:
        con.close()


@pytest.mark.parametrize("name", list(TEXT_TYPES))
def test_store_sql_gives_duckdbs_text(store, name):
    frame = store.sql(select([name]))
    assert frame.schema == pl.Schema({name: pl.String})
    assert frame[name].to_list() == [TEXT_TYPES[name][1]]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(TEXT_TYPES))
def test_cli_sql_every_format_gives_duckdbs_text(store, tmp_path, capsys, name, fmt):
    out, back = run_sql(store, select([name]), fmt, tmp_path, capsys)
    text = TEXT_TYPES[name][1]
    if fmt == "table":  # the cell is the text (it was b"a\x00b", bytes as polars shows them)
        assert f"│ {text} " in out
    elif fmt == "txt":  # a header line, then the value
        assert out.splitlines()[1].strip() == text
    else:
        assert back.columns == [name]
        assert back[name].to_list() == [text]


def test_the_reported_blob_and_bit(store, tmp_path, capsys):
    """The analyst's queries: ``'ab'::BLOB`` (a panic with --format json) and ``BIT
    '101'`` (b"\\x05\\xfd" from Store.sql)."""
    assert store.sql("SELECT 'ab'::BLOB AS b").row(0) == ("ab",)
    assert store.sql("SELECT BIT '101' AS b").row(0) == ("101",)
    out, _ = run_sql(store, "SELECT 'ab'::BLOB AS b", "json", tmp_path, capsys)
    assert json.loads(out) == [{"b": "ab"}]
    out, _ = run_sql(store, "SELECT 'ab'::BLOB AS b", "csv", tmp_path, capsys)
    assert out == "b\nab\n"


MANY = (
    select(TEXT_TYPES)
    + ", NULL::BLOB AS no_blob, 'x'::BLOB AS dup, BIT '1' AS dup, 7 AS n, 'd2ba5de1-57ff-4671-"
    "81ad-6ff4f8c4eddd'::UUID AS u, 'y'::ENUM('x', 'y') AS e"
)


def test_one_query_with_every_odd_type_api(store):
    row = store.sql(MANY).row(0, named=True)
    expected = {name: text for name, (_, text) in TEXT_TYPES.items()}
    # a missing BLOB stays missing; repeated names made unique (dup, dup_1)
    expected |= {"no_blob": None, "dup": "x", "dup_1": "1", "n": 7}
    expected |= {"u": "d2ba5de1-57ff-4671-81ad-6ff4f8c4eddd", "e": "y"}
    assert row == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_query_with_every_odd_type_every_format(store, tmp_path, capsys, fmt):
    out, back = run_sql(store, MANY, fmt, tmp_path, capsys)
    if fmt == "table":  # 24 columns in 160 characters: cells cut (each type's test above)
        assert out.startswith("┌") and out.endswith("┘\n")
        return
    if fmt == "txt":
        for _, text in TEXT_TYPES.values():
            assert text in out
        return
    got = back.row(0, named=True)
    for name, (_, text) in TEXT_TYPES.items():
        assert got[name] == text, name
    assert (got["dup"], got["dup_1"]) == ("x", "1")
    assert got["no_blob"] in (None, "")  # CSV has an empty cell
    assert str(got["n"]) == "7"


def test_held_types_keep_their_values(store):
    """Types polars holds as DuckDB's values stay typed (HUGEINT is DuckDB's Arrow
    DECIMAL(38,0), as before): only the ones above become text."""
    row = store.sql(
        "SELECT 12345678901234567890123::HUGEINT AS h, MAP {'a': 1} AS m, [1, 2]::INT[2] AS a,"
        " [TIME '10:00'] AS t, {'d': DATE '2024-01-05'} AS s"
    ).row(0, named=True)
    assert row == {
        "h": Decimal("12345678901234567890123"),
        "m": {"a": 1},
        "a": [1, 2],
        "t": [__import__("datetime").time(10, 0)],
        "s": {"d": __import__("datetime").date(2024, 1, 5)},
    }


def test_store_columns_with_blobs_keep_their_rows(store):
    """Text made of a store view's rows keeps their order, and a parameter works."""
    frame = store.sql(
        "SELECT player_id, (player_id || ?)::BLOB AS b FROM players ORDER BY player_id DESC",
        "\x01",
    )
    # players A, B, C, D of the games, descending; byte 0x01 as DuckDB writes it: \x01
    assert frame.rows() == [(p, p + r"\x01") for p in "DCBA"]


def test_result_frame_of_arrow_bytes_is_text():
    """A table from elsewhere with bytes (Arrow binary, a list of it) is DuckDB's text."""
    table = pa.table(
        {
            "b": pa.array([b"a\x00b", None], pa.binary()),
            "l": pa.array([[b"z"], []], pa.list_(pa.large_binary())),
            "n": [1, 2],
        }
    )
    frame = result_frame(table)
    assert frame.rows() == [(r"a\x00b", "[z]", 1), (None, "[]", 2)]
