"""The tables a notebook holds, as the Arrow table the API reads (docs/api.md "Arguments:
what a notebook gets wrong"): Arrow record batches and readers, DuckDB relations, NumPy
record arrays, pandas frames with mixed or Period columns, and ``period`` columns typed
as dates. Each either becomes the table the equivalent CSV gives, or a one-line
``TypeError``/``ValueError`` naming the argument, never an exception from inside
pandas or pyarrow."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


def _root(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def cell_text(value: Any) -> str | None:
    """One cell as a CSV would hold it: None (and NaN) empty, a whole float ``3.0`` as
    ``"3"`` (pandas makes integer columns float), anything else its ``str``."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool | numbers.Integral):
        as_float = float(value)
        if as_float.is_integer() and abs(as_float) < 2.0**53:
            return str(int(as_float))
    return str(value)


def text_array(values) -> pa.Array:
    """A column whose values mix types (ids ``1`` and ``"2"``) as the text of each value."""
    return pa.array([cell_text(v) for v in values], pa.string())


def other_kinds(data: Any, what: str) -> pa.Table | None:
    """Arrow record batches and readers, DuckDB relations and NumPy record arrays as a
    table; None for anything else."""
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all()
    root = _root(data)
    if root == "duckdb" and type(data).__name__ == "DuckDBPyRelation":
        out = data.arrow()  # a RecordBatchReader from DuckDB 1.4 on, a Table before
        return out.read_all() if isinstance(out, pa.RecordBatchReader) else out
    if root == "numpy":
        import numpy as np

        if isinstance(data, np.ndarray) and data.dtype.names:
            return from_columns({name: data[name] for name in data.dtype.names}, what)
    return None


def from_columns(columns: dict, what: str) -> pa.Table:
    """A dict of columns (lists, NumPy arrays, Series) as a table; a column mixing types
    is its values' text, as rows of dicts and a CSV give it. A column that is a dict (pandas
    ``df.to_dict()``'s default, a dict of dicts) is a TypeError: it was read as its keys
    (the row labels), every game a ``self_play``."""
    inner = next((k for k, v in columns.items() if isinstance(v, Mapping)), None)
    if inner is not None:
        raise TypeError(
            f"{what}: column {inner!r} is a dict ({type(columns[inner]).__name__}); a column "
            "must be a list or array of values: a pandas df.to_dict() gives a dict of dicts, "
            "use df.to_dict('list') (columns) or df.to_dict('records') (rows), or pass the "
            "DataFrame itself"
        )
    sizes = {
        k: None if isinstance(v, str | bytes) or not hasattr(v, "__len__") else len(v)
        for k, v in columns.items()
    }
    if len(set(sizes.values())) > 1 or None in sizes.values():
        told = ", ".join(f"{k}: {'one value' if n is None else n}" for k, n in sizes.items())
        raise ValueError(f"{what}: the dict's columns do not make a table: lengths {told}")
    arrays = {}
    for name, values in columns.items():
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[name] = text_array(values)
    try:
        return pa.table(arrays)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ValueError(f"{what}: the dict's columns do not make a table: {exc}") from None


PERIOD_FORMATS = {"D": "%Y-%m-%d", "M": "%Y-%m"}


def from_pandas(frame: Any, what: str) -> pa.Table:
    """A pandas DataFrame as a table: duplicate column names and a column of pandas
    Periods other than days in ``date`` or months in ``period`` (days or months in a
    players frame's ``date``: a published rating's day or month) are a ValueError
    naming the argument; Period columns are their text (``"2024-03"``, as a CSV has
    them); a column mixing types (ids ``1`` and ``"2"``) is its values' text."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what}: a pandas DataFrame, got {type(frame).__name__}")
    named = [n for n in frame.index.names if n is not None]
    if named:  # frame.set_index("white_id"): the index is a column, as reset_index() gives
        frame = frame.reset_index(level=named)
    names = [str(c) for c in frame.columns]
    same = sorted({n for n in names if names.count(n) > 1})
    if same:
        raise ValueError(f"{what}: duplicate column names: {', '.join(same)}")
    arrays = []
    for name in frame.columns:
        column = frame.iloc[:, len(arrays)]
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype) and isinstance(
            dtype.categories.dtype, pd.PeriodDtype
        ):
            column = column.astype(dtype.categories.dtype)  # categories of Periods
        if isinstance(column.dtype, pd.PeriodDtype):
            freq = str(column.dtype).removeprefix("period[").removesuffix("]").upper()
            # a games CSV's date is a day (2025-01 is a bad_date), its period a month; a
            # players date may be a month too (YYYY-MM: the list's month, docs/api.md)
            wanted = ("M",) if str(name).lower() == "period" else ("D",)
            if what == "players" and str(name).lower() == "date":
                wanted = ("D", "M")
            if what == "players" and str(name).lower() == "period":  # not read: named
                arrays.append(pa.array(column.astype(str), pa.string()))  # as such
                continue
            if freq not in wanted:
                takes = {
                    ("M",): "months ('M')",
                    ("D",): "days ('D'; months: a period column)",
                    ("D", "M"): "days ('D') or months ('M')",
                }[wanted]
                raise ValueError(
                    f"{what}: column {name!r} holds pandas Periods of frequency {freq}; it "
                    f"takes {takes}"
                )
            arrays.append(pa.array(column.dt.strftime(PERIOD_FORMATS[freq]), pa.string()))
            continue
        try:
            arrays.append(pa.Array.from_pandas(column))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            arrays.append(text_array(column.tolist()))
    return pa.table(arrays, names=names)


VIEWS = {"string_view": pa.large_string(), "binary_view": pa.large_binary()}


def without_views(table: pa.Table) -> pa.Table:
    """Arrow's ``string_view``/``binary_view`` columns (polars ``to_arrow(compat_level=
    …newest)``, DuckDB) as large strings/binaries, which the readers take; they were an
    InputError "has the type string_view, which arpad cannot read"."""
    for at, field in enumerate(table.schema):
        wanted = VIEWS.get(str(field.type))
        if wanted is not None:
            table = table.set_column(at, field.name, table.column(at).cast(wanted))
    return table


def _unreadable(kind: pa.DataType) -> bool:
    """A type the readers refuse: nested, durations, times of day, intervals."""
    t = pa.types
    return t.is_nested(kind) or t.is_duration(kind) or t.is_time(kind) or t.is_interval(kind)


def extra_columns_as_text(table: pa.Table) -> pa.Table:
    """Columns arpad does not read (a list of tags, a dict of notes, a timedelta), of a
    type the readers refuse, as their text, as a CSV would hold them: an analyst's frame
    with such an extra column was an InputError ("only scalar columns are read"). A
    column arpad reads (``date``, ``period``, ids, …) of such a type stays the readers'
    InputError naming it."""
    from arpad.pipeline.readers import GAME_COLUMNS, PLAYER_COLUMNS, column_name

    read = set(GAME_COLUMNS) | set(PLAYER_COLUMNS)
    for at, field in enumerate(table.schema):
        if not _unreadable(field.type) or column_name(str(field.name)) in read:
            continue
        try:
            text = table.column(at).cast(pa.string())
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            text = text_array(table.column(at).to_pylist())
        table = table.set_column(at, field.name, text)
    return table


def periods_of_dates(table: pa.Table) -> pa.Table:
    """A ``period`` column typed as dates or timestamps (a polars Date, a pandas
    datetime64, tz-aware or not) as the months they fall in, YYYYMM (the calendar date
    in the column's own time zone, as ``date`` columns are read: docs/ingest.md "Typed
    columns"); a CSV's text period ``2024-01-01`` stays a ``bad_period``."""
    if "period" not in table.column_names:
        return table
    column = table.column("period")
    kind = column.type
    if pa.types.is_dictionary(kind):
        column, kind = column.cast(kind.value_type), kind.value_type
    if not (pa.types.is_timestamp(kind) or pa.types.is_date(kind)):
        return table
    days = column.cast(pa.date32())
    months = pc.add(pc.multiply(pc.year(days), 100), pc.month(days)).cast(pa.int32())
    return table.set_column(table.column_names.index("period"), "period", months)
