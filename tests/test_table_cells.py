"""Empty cells in printed tables (docs/lists.md "Empty cells in tables"): a missing value
(a player without a title, federation, rank or K) is an empty cell in ``--format
table``, never the word ``null``; CSV keeps it empty and JSON ``null``. Tests named as
defects failed before their fix."""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
from pathlib import Path

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from arpad.pipeline import output
from arpad.pipeline.cli import main
from arpad.pipeline.lists import TABLE_COLUMNS
from tests.test_officer_attack4 import _elo_store


def table_cells(text: str) -> list[list[str]]:
    """The cells of a printed table, header row first, each stripped (polars' UTF-8
    table: rows between ``│``, cells split at ``┆``; the border lines left out)."""
    return [
        [cell.strip() for cell in line.strip().strip("│").split("┆")]
        for line in text.splitlines()
        if line.startswith("│")
    ]


def _store_without_titles(root: Path) -> Path:
    """An Elo store whose players file has no federation or title column; Echo and
    Foxtrot play no game in January 2024 (inactive: no rank, no K): officer round 4's."""
    return _elo_store(root)


def _list(store: Path, fmt: str, capsys) -> str:
    capsys.readouterr()
    assert main(["list", "--store", str(store), "--system", "elo", "--format", fmt]) == 0
    return capsys.readouterr().out


def test_list_table_shows_missing_values_as_empty_cells(tmp_path, capsys):
    """Defect: ``arpad list --format table`` printed ``null`` for the missing federation
    and title of every player and for the rank and K of the inactive ones. Now each
    table cell is the CSV's cell of the same player and column (the CSV writer is
    the reference: empty for a missing value)."""
    store = _store_without_titles(tmp_path)
    table = _list(store, "table", capsys)
    rows = list(csv.DictReader(_list(store, "csv", capsys).splitlines()))
    assert "null" not in table
    cells = table_cells(table)
    assert cells[0] == list(TABLE_COLUMNS)
    assert [dict(zip(cells[0], row)) for row in cells[1:]] == [
        {name: r[name] for name in TABLE_COLUMNS} for r in rows
    ]
    by_name = {row[2]: row for row in cells[1:]}
    assert by_name["Echo"][0] == "" and by_name["Echo"][7] == ""  # rank, k: inactive
    assert all(row[3] == row[4] == "" for row in cells[1:])  # federation, title


def test_csv_and_json_keep_missing_values_as_they_were(tmp_path, capsys):
    """Only the table changes: CSV writes an empty field, JSON ``null``."""
    store = _store_without_titles(tmp_path)
    rows = list(csv.DictReader(_list(store, "csv", capsys).splitlines()))
    data = json.loads(_list(store, "json", capsys))
    assert [r["name"] for r in rows] == [d["name"] for d in data]
    for row, record in zip(rows, data):
        assert row["federation"] == row["title"] == ""
        assert record["federation"] is None and record["title"] is None
    echo = next(d for d in data if d["name"] == "Echo")
    assert echo["rank"] is None and echo["k"] is None


# -- any table: polars' own text for every value, an empty cell for each missing one ----

TEXT = st.text(alphabet="abcXYZ äß-.", max_size=6).filter(lambda s: s != "null")
COLUMNS = {
    "text": (pl.String, TEXT),
    "integer": (pl.Int64, st.integers(-(10**12), 10**12)),
    "decimal": (pl.Float64, st.floats(allow_infinity=False, width=64)),
    "day": (pl.Date, st.dates(dt.date(1800, 1, 1), dt.date(2100, 1, 1))),
    "flag": (pl.Boolean, st.booleans()),
}


@st.composite
def frames(draw):
    height = draw(st.integers(0, 14))
    data = {
        name: draw(st.lists(st.none() | values, min_size=height, max_size=height))
        for name, (_, values) in COLUMNS.items()
    }
    frame = pl.DataFrame(data, schema={name: dtype for name, (dtype, _) in COLUMNS.items()})
    return frame.with_columns(pl.lit(None).alias("nothing"))  # a column of dtype Null


@given(
    frame=frames(),
    max_rows=st.integers(1, 6),
    precision=st.none() | st.integers(0, 3),
)
def test_a_table_is_polars_text_with_empty_cells_for_missing_values(frame, max_rows, precision):
    """Against a naive reference: polars' own printing of the same frame (the rows it
    elides elided alike), with each cell that polars writes as ``null`` emptied; no
    generated text is ``null``, so those are exactly the missing values."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        output.render(frame, "table", max_rows=max_rows, float_precision=precision)
    got = table_cells(printed.getvalue())
    with pl.Config(
        tbl_rows=max_rows,
        tbl_cols=-1,
        tbl_width_chars=160,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        fmt_str_lengths=40,
        float_precision=precision,
    ):
        reference = table_cells(str(frame))
    assert got == [["" if cell == "null" else cell for cell in row] for row in reference]
