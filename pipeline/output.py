"""Printing and exporting result tables (table, csv, json, parquet)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa

from pipeline.store import atomic_write_parquet, atomic_write_text

FORMATS = ("table", "csv", "json", "parquet")


def render(
    table: pa.Table | pl.DataFrame,
    fmt: str = "table",
    output: str | None = None,
    max_rows: int = 50,
    float_precision: int | None = None,
) -> None:
    """Print ``table`` (or write it to ``output``) in ``fmt``."""
    frame = table if isinstance(table, pl.DataFrame) else pl.from_arrow(table)
    if fmt == "parquet":
        if not output:
            raise ValueError("--format parquet needs --output FILE")
        atomic_write_parquet(frame.to_arrow(), Path(output))
        return
    if fmt == "csv":
        text = frame.write_csv()
    elif fmt == "json":
        buf = io.StringIO()
        frame.write_json(buf)
        text = buf.getvalue() + "\n"
    elif fmt == "table":
        with pl.Config(
            tbl_rows=max_rows,
            tbl_cols=-1,
            tbl_width_chars=160,
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            fmt_str_lengths=40,
            float_precision=float_precision,
        ):
            text = str(frame) + "\n"
    else:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if output:
        atomic_write_text(text, Path(output))
    else:
        sys.stdout.write(text)
