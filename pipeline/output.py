"""Printing and exporting result tables (table, csv, json, parquet)."""

from __future__ import annotations

import errno
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from arpad.pipeline.store import atomic_write_parquet, atomic_write_text

if TYPE_CHECKING:  # polars is imported where a table is printed (not on the rate path)
    import polars as pl

FORMATS = ("table", "csv", "json", "parquet", "txt")
# ``arpad list``: also FIDE's list files (pipeline/lists.py; docs/lists.md); txt = fide-txt.
LIST_FORMATS = ("table", "csv", "json", "parquet", "fide-txt", "fide-xml", "txt")

# ``--output FILE`` without ``--format``: the format its extension names (docs/cli.md
# "Output files"). ``arpad list --output list.csv`` wrote the terminal's table, cut to
# 50 rows, into the CSV name: an officer's file short of players, exit 0.
# Per extension, the formats such a file may hold; without --format the first one the
# command writes (.txt: FIDE-style text, a list's fide-txt, else the whole table).
EXTENSION_FORMATS = {
    ".csv": ("csv",),
    ".json": ("json",),
    ".parquet": ("parquet",),
    ".pq": ("parquet",),
    ".txt": ("txt", "fide-txt", "table"),
    ".xml": ("fide-xml",),
}
# Subcommands whose --output is always one format, whatever --format says (the
# mapping of ``arpad players identify`` is CSV; its --format is the printed table's).
FIXED_OUTPUT = ("identify",)


def output_format(fmt: str, output: str, given: bool, choices, command: str) -> str:
    """The format ``--output`` ``output`` is written in: ``fmt`` when ``--format`` was
    ``given`` (refused when the extension names another format), else the format the
    extension names; an extension that names none, or none the command writes (its
    --format ``choices``), is refused: a file is never written in a format its name
    does not say (docs/cli.md "Output files")."""
    suffix = Path(output).suffix.lower()
    named = EXTENSION_FORMATS.get(suffix)
    if given:
        if named is not None and fmt not in named:
            raise ValueError(
                f"--format {fmt} contradicts --output {output} (a {suffix} name): "
                f"drop --format, or name the file for {fmt}"
            )
        return fmt
    written = [f for f in named or () if f in choices]
    if not written:
        known = ", ".join(choices)
        endings = ", ".join(e for e, fs in EXTENSION_FORMATS.items() if set(fs) & set(choices))
        why = (
            f"arpad {command} writes no {suffix} file"
            if suffix
            else "the name has no extension to say the format"
        )
        raise ValueError(
            f"--output {output}: {why}: give --format ({known}) or a name ending {endings}"
        )
    return written[0]


def innermost_parser(parser, args):
    """The parser of the (sub)command ``args`` were parsed for (`arpad players identify`:
    identify's), and the names of the subcommands leading to it."""
    import argparse

    found, names = parser, []
    while found._subparsers is not None:
        subs = next(
            a for a in found._subparsers._group_actions if isinstance(a, argparse._SubParsersAction)
        )
        name = getattr(args, subs.dest, None)
        if name not in subs.choices:
            break
        found, names = subs.choices[name], [*names, name]
    return found, names


def resolve_output_format(parser, args) -> None:
    """Set ``args.fmt`` for a command with ``--output FILE`` (``output_format``), from
    the command's own ``--format`` option in ``parser`` (its choices, and whether the
    command line gave it: pipeline/cli.py records the options given)."""
    found, names = innermost_parser(parser, args)
    option = next((a for a in found._actions if a.dest == "fmt"), None)
    if option is None or not option.choices or (names and names[-1] in FIXED_OUTPUT):
        return  # a free-text --format (an input format), or a fixed output format
    given = "fmt" in vars(args).get("_options_given", {})
    args.fmt = output_format(args.fmt, args.output, given, option.choices, " ".join(names))


# "txt": FIDE-style fixed-width text list (as FIDE's players_list.txt), header names.
FIDE_TXT_HEADERS = {
    "rank": "Rank",
    "player_id": "ID Number",
    "name": "Name",
    "federation": "Fed",
    "sex": "Sex",
    "title": "Tit",
    "rating": "Rtg",
    "games": "Gms",
    "k": "K",
    "birth_year": "B-day",
    "status": "Flag",
}


def fixed_width(frame: pl.DataFrame) -> str:
    """Fixed-width text: one header line, text columns left-aligned, numbers right-aligned;
    floats that are whole numbers are written without decimals (ratings)."""
    columns = []
    for name in frame.columns:
        col = frame[name]
        numeric = col.dtype.is_numeric()
        cells = []
        for v in col.to_list():
            if v is None:
                cells.append("")
            elif isinstance(v, float):
                cells.append(f"{v:.0f}" if v == int(v) else f"{v:.1f}")
            else:
                cells.append(str(v))
        header = FIDE_TXT_HEADERS.get(name, name)
        width = max([len(header), *map(len, cells)])
        columns.append((header, cells, width, numeric))
    lines = [" ".join(h.rjust(w) if num else h.ljust(w) for h, _, w, num in columns).rstrip()]
    for i in range(frame.height):
        lines.append(
            " ".join(c[i].rjust(w) if num else c[i].ljust(w) for _, c, w, num in columns).rstrip()
        )
    return "\n".join(lines) + "\n"


# A text cell a spreadsheet would take for a formula (OWASP "CSV injection"): a name
# "=HYPERLINK(...)" in an input file must not become a live link in a published list.
FORMULA_START = r"^[=+\-@\t\r]"


def spreadsheet_safe(frame):
    """``frame`` with a leading apostrophe on every text value that begins with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return (docs/lists.md "Spreadsheet-safe
    CSV"): Excel and LibreOffice show the text as written instead of running it.
    Numbers are never touched (a rating change of -12 stays a number)."""
    import polars as pl

    text = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    if not text:
        return frame
    return frame.with_columns(
        pl.when(pl.col(name).str.contains(FORMULA_START))
        .then(pl.lit("'") + pl.col(name))
        .otherwise(pl.col(name))
        .alias(name)
        for name in text
    )


def blank_missing(frame: pl.DataFrame, max_rows: int, options: dict) -> pl.DataFrame:
    """``frame`` as a table prints it, with every missing value an empty cell instead of
    polars' ``null`` (docs/lists.md "Empty cells in tables"). Text columns: null → "".
    Numbers, dates, times and booleans become text: polars' own text of each value
    (printed with ``options``, one cell per line), "" for a missing one; the table hides
    the column types, so only the empty cells change. Only the first and last
    ``max_rows + 1`` rows are kept when there are more: a table of ``max_rows`` rows
    shows no other, and formatting a million values to show fifty would be slow. Lists
    and structs are left as they are (polars may print them on several lines)."""
    import polars as pl

    if max_rows >= 0 and frame.height > 2 * (max_rows + 1):
        frame = pl.concat([frame.head(max_rows + 1), frame.tail(max_rows + 1)])
    columns = []
    for name, dtype in frame.schema.items():
        column = frame[name]
        if column.null_count() == 0 or dtype.is_nested():
            columns.append(column)
        elif dtype == pl.Null:
            columns.append(pl.Series(name, [""] * frame.height, dtype=pl.String))
        elif dtype in (pl.String, pl.Categorical, pl.Enum):
            columns.append(column.cast(pl.String).fill_null(""))
        elif dtype.is_numeric() or dtype.is_temporal() or dtype == pl.Boolean:
            with pl.Config(
                tbl_rows=-1, tbl_formatting="NOTHING", tbl_hide_column_names=True, **options
            ):
                lines = str(column.to_frame()).splitlines()
            texts = ["" if v is None else t.strip() for v, t in zip(column, lines, strict=True)]
            columns.append(pl.Series(name, texts, dtype=pl.String))
        else:  # binary, objects: as polars prints them
            columns.append(column)
    return pl.DataFrame(columns)


# errors._CONTROL in the regex syntax of polars (Rust): which text columns need escaping.
_CONTROL_RUST = r"[\x00-\x1f\x7f-\x9f\x{202A}-\x{202E}\x{2066}-\x{2069}]"


def shown_on_screen(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` as a printed table shows it: every text value and column name
    ``errors.printable`` (control characters, DEL and bidi overrides escaped as
    ``\\x1b``, ``\\n``, ``\\u202e``; docs/cli.md "The command line attacked"), so that a
    name or a quarantined row read from a hostile file cannot clear, recolour or retitle
    the terminal, nor break a row over lines. Only what is printed: files keep every
    byte."""
    import polars as pl

    from arpad.pipeline.errors import printable

    columns = []
    for name, dtype in frame.schema.items():
        column = frame[name]
        if dtype in (pl.Categorical, pl.Enum):
            column = column.cast(pl.String)
        if column.dtype == pl.String and column.str.contains(_CONTROL_RUST).any():
            column = pl.Series(
                name, [None if v is None else printable(v) for v in column], dtype=pl.String
            )
        columns.append(column)
    names = [printable(name) for name in frame.columns]
    if len(set(names)) == len(names):  # else: kept, and escaped in the printed text
        columns = [c.alias(n) for c, n in zip(columns, names, strict=True)]
    return pl.DataFrame(columns)


def _screen_text(text: str) -> str:
    """``text``, lines of a printed table, with what ``shown_on_screen`` could not reach
    (a list's or struct's text, as polars prints it) escaped: the line breaks stay."""
    from arpad.pipeline.errors import printable

    return "\n".join(printable(line) for line in text.split("\n"))


def render(
    table: pa.Table | pl.DataFrame,
    fmt: str = "table",
    output: str | None = None,
    max_rows: int = 50,
    float_precision: int | None = None,
    root: Path | None = None,
) -> None:
    """Print ``table`` (or write it to ``output``, atomically) in ``fmt``; with ``root``
    (a store writing its own exports) the output must be inside that store. A printed
    table shows ``max_rows`` rows and says so when it has more; a file has every row."""
    import polars as pl

    frame = table if isinstance(table, pl.DataFrame) else pl.from_arrow(table)
    if fmt == "parquet":
        if output:
            atomic_write_parquet(frame.to_arrow(), Path(output), root)
        elif sys.stdout.isatty():  # binary on a terminal: refused (docs/cli.md)
            raise ValueError("--format parquet is binary: give --output FILE or redirect stdout")
        else:  # `> list.parquet`, `| duckdb`: the file's bytes on standard output
            buf = io.BytesIO()
            frame.write_parquet(buf)
            write_stdout(buf.getvalue())
        return
    if fmt == "csv":
        nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
        if nested:  # CSV has no lists or structs: a one-line refusal, not a traceback
            raise ValueError(
                f"--format csv cannot hold the nested column(s) {', '.join(nested)} (a list "
                "or struct): use --format json or parquet, or make it text in the query"
            )
        text = spreadsheet_safe(frame).write_csv()
    elif fmt == "json":
        buf = io.StringIO()
        frame.write_json(buf)
        text = buf.getvalue() + "\n"
    elif fmt == "table":
        options = {
            "tbl_cols": -1,
            "tbl_width_chars": 160,
            "tbl_hide_dataframe_shape": True,
            "tbl_hide_column_data_types": True,
            "fmt_str_lengths": 40,
            "float_precision": float_precision,
        }
        if output:  # a file holds every row: the cut is for a screen
            max_rows = -1
        shown = blank_missing(frame, max_rows, options)
        if not output:  # a screen: values shown as written (a file keeps every byte)
            shown = shown_on_screen(shown)
        with pl.Config(tbl_rows=max_rows, **options):
            text = str(shown) + "\n"
        if not output:
            text = _screen_text(text)
        if 0 <= max_rows < frame.height:  # said, not only a "…" row (docs/cli.md)
            text += (
                f"showing {max_rows} of {frame.height} rows ({frame.height - max_rows} left "
                "out at the … row): --format csv, or --output FILE, has every row\n"
            )
    elif fmt == "txt":
        text = fixed_width(frame) if output else _screen_text(fixed_width(shown_on_screen(frame)))
    else:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if output:
        atomic_write_text(text, Path(output), root)
    else:
        write_stdout(text)


def write_stdout(data: str | bytes) -> None:
    """Write ``data`` to standard output, every byte or a BrokenPipeError.

    A reader that goes away (``arpad sql … | head``) ends the command with exit 141
    (pipeline/cli.py, docs/analysis.md). One large ``sys.stdout.write`` did not: the
    kernel's write took the 64 KiB the pipe held and returned that short count,
    which CPython's buffered writer reports as success, so the rest was dropped and
    the command ended 0. The bytes are written here until all are taken, so a short
    write is followed by one that fails with EPIPE (tests/test_analyst_round7.py).
    """
    stream = sys.stdout
    binary = getattr(stream, "buffer", None)
    if isinstance(data, str):
        encoding = getattr(stream, "encoding", None)
        if not encoding or binary is None:
            # an in-memory text stream (io.StringIO), a notebook's output stream: no
            # bytes, no pipe
            stream.write(data)
            return
        data = data.encode(encoding, getattr(stream, "errors", None) or "strict")
    stream.flush()  # what was printed before goes first
    binary = stream.buffer
    view = memoryview(data)
    while view:
        taken = binary.write(view)
        if not taken:  # nothing taken and no error: never loop on it
            raise OSError(errno.EIO, "standard output took no bytes")
        view = view[taken:]
    binary.flush()
