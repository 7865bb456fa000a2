"""Readers: turn an input file into a raw table of text columns in canonical names.

Every raw row keeps the number of the line (CSV) or row (Parquet) it came
from, so validation can name file, line and problem. Formats: canonical CSV
and Parquet (docs/cli.md), and named mappings for the bundled real files
(``kaggle2010``, ``deloitte2011``, ``deloitte2011-players``), detected from the
header or chosen with ``--mapping``. PGN and TRF readers register themselves
in ``READERS``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from arpad.pipeline.errors import InputError
from arpad.pipeline.reasons import Reason

GAME_COLUMNS = (
    "game_id",
    "date",
    "period",
    "pool",
    "white_id",
    "black_id",
    "result",
    "score",
    "rated",
    "event_id",
    "white_rating",
    "black_rating",
)
PLAYER_COLUMNS = (
    "player_id",
    "name",
    "federation",
    "sex",
    "birth_date",
    "birth_year",
    "title",
    "w_title",
    "o_title",
    "foa_title",
    "rating",
    "rated_games",
    "peak_rating",
    "rd",
    "volatility",
    "grade",
)


@dataclass
class RawTable:
    """Text columns in canonical names, plus ``_line`` (int) and ``_raw`` (the line's text)."""

    path: Path
    format: str
    kind: str  # "games" or "players"
    frame: pl.DataFrame
    mapping: str | None = None
    # Rows that could not even be split into fields: (line, reason, detail, raw).
    problems: list[tuple[int, str, str, str]] = field(default_factory=list)
    # Extra per-file notes for the summary (e.g. "decoded as Latin-1").
    notes: list[str] = field(default_factory=list)
    # Players described by a games file (PGN/TRF headers), as a raw players frame.
    players: pl.DataFrame | None = None
    # Items read but stored nowhere as games, by kind (TRF: pending pairings, byes,
    # absences), and the file's own accounting identity (TRF: player-round blocks).
    not_stored: dict[str, int] = field(default_factory=dict)
    accounting: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Mapping:
    """A named column mapping from a source layout to canonical columns."""

    name: str
    kind: str
    header: tuple[str, ...]
    rename: dict[str, str]
    derive: Callable[[pl.DataFrame], pl.DataFrame] | None = None


def _deloitte_players(frame: pl.DataFrame) -> pl.DataFrame:
    # K = 10 in the 2011 rules meant the published rating had reached 2400.
    return frame.with_columns(
        pl.when(pl.col("_kfactor") == "10")
        .then(pl.lit("2400"))
        .otherwise(None)
        .alias("peak_rating")
    ).drop("_kfactor")


MAPPINGS = {
    m.name: m
    for m in (
        Mapping(
            "kaggle2010",
            "games",
            ("Month #", "White Player #", "Black Player #", "Score"),
            {
                "Month #": "period",
                "White Player #": "white_id",
                "Black Player #": "black_id",
                "Score": "score",
            },
        ),
        Mapping(
            "deloitte2011",
            "games",
            ("TEID", "MonthID", "WhitePlayer", "BlackPlayer", "WhiteScore", "Leaderboard"),
            {
                "TEID": "game_id",
                "MonthID": "period",
                "WhitePlayer": "white_id",
                "BlackPlayer": "black_id",
                "WhiteScore": "score",
                "Leaderboard": "event_id",
            },
        ),
        Mapping(
            "deloitte2011-players",
            "players",
            ("Player", "Rating", "KFactor", "NumGames"),
            {
                "Player": "player_id",
                "Rating": "rating",
                "KFactor": "_kfactor",
                "NumGames": "rated_games",
            },
            _deloitte_players,
        ),
    )
}


def decode(data: bytes, path: Path, notes: list[str]) -> str:
    """UTF-8 (with or without BOM); Latin-1 when the bytes are not UTF-8. NUL bytes are refused."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(
            path, 1, "UTF-16 text (byte-order mark): arpad reads UTF-8 or Latin-1; save as UTF-8"
        )
    if b"\x00" in data[:65536]:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(path, line, "binary data (NUL byte): not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        notes.append("not valid UTF-8; decoded as Latin-1")
        return data.decode("latin-1")


def read_csv(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    data = path.read_bytes()
    notes: list[str] = []
    text = decode(data, path, notes)
    if not text.strip():
        raise InputError(path, 1, "empty file: no header and no rows")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise InputError(path, 1, f"unreadable header: {exc}") from None
    chosen = _choose_mapping(path, header, mapping)
    names = [chosen.rename.get(h, h) for h in header] if chosen else [h.lower() for h in header]
    row_kind = chosen.kind if chosen else _detect_kind(path, names, kind)
    if kind and row_kind != kind:
        raise InputError(path, 1, f"expected a {kind} file, the header looks like {row_kind}")
    _check_columns(path, names, row_kind)
    if len(set(names)) != len(names):
        raise InputError(path, 1, f"duplicate column names in header: {header}")

    columns: list[list[str | None]] = [[] for _ in names]
    lines: list[int] = []
    raws: list[str] = []
    problems: list[tuple[int, str, str, str]] = []
    width = len(names)
    last_line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append((reader.line_num, Reason.MALFORMED_ROW, f"CSV error: {exc}", ""))
            continue
        line = last_line + 1
        last_line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue  # blank lines carry no row
        raw = ",".join(row)
        if len(row) != width:
            problems.append(
                (line, Reason.MALFORMED_ROW, f"{len(row)} fields where the header has {width}", raw)
            )
            continue
        for col, value in zip(columns, row):
            col.append(value)
        lines.append(line)
        raws.append(raw)
    frame = pl.DataFrame(
        {name: pl.Series(name, col, dtype=pl.String) for name, col in zip(names, columns)}
    ).with_columns(
        pl.Series("_line", lines, dtype=pl.Int64), pl.Series("_raw", raws, dtype=pl.String)
    )
    if chosen and chosen.derive:
        frame = chosen.derive(frame)
    return RawTable(path, "csv", row_kind, frame, chosen.name if chosen else None, problems, notes)


def read_parquet(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, None, f"not a readable Parquet file: {exc}") from None
    return raw_from_arrow(table, path, "parquet", mapping, kind)


def raw_from_arrow(
    table: pa.Table, path: Path, fmt: str, mapping: str | None = None, kind: str | None = None
) -> RawTable:
    """An Arrow table (a Parquet file, or a DataFrame given to the Python API) as raw
    rows; ``path`` names it in messages, row numbers count from 1."""
    header = list(table.column_names)
    chosen = _choose_mapping(path, header, mapping)
    names = [chosen.rename.get(h, h) for h in header] if chosen else [h.lower() for h in header]
    row_kind = chosen.kind if chosen else _detect_kind(path, names, kind)
    _check_columns(path, names, row_kind)
    table = table.rename_columns(names)
    frame = pl.from_arrow(table)
    if isinstance(frame, pl.Series):
        frame = frame.to_frame()
    frame = frame.with_columns(pl.all().cast(pl.String))
    frame = frame.with_columns(
        pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("_line"),
        pl.lit(None, dtype=pl.String).alias("_raw"),
    )
    if chosen and chosen.derive:
        frame = chosen.derive(frame)
    return RawTable(path, fmt, row_kind, frame, chosen.name if chosen else None)


def _choose_mapping(path: Path, header: list[str], name: str | None) -> Mapping | None:
    if name:
        if name not in MAPPINGS:
            raise InputError(path, None, f"unknown mapping {name!r} (known: {', '.join(MAPPINGS)})")
        mapping = MAPPINGS[name]
        if tuple(header) != mapping.header:
            raise InputError(path, 1, f"header {header} does not match mapping {name!r}")
        return mapping
    for mapping in MAPPINGS.values():
        if tuple(header) == mapping.header:
            return mapping
    if tuple(header) == ("TEID", "MonthID", "WhitePlayer", "BlackPlayer"):
        raise InputError(path, 1, "Deloitte 2011 test file without results: use test_solution.csv")
    return None


def _detect_kind(path: Path, names: list[str], kind: str | None) -> str:
    if kind:
        return kind
    if "white_id" in names or "black_id" in names:
        return "games"
    if "player_id" in names:
        return "players"
    raise InputError(
        path,
        1,
        f"header {names} is neither a games file (white_id, black_id, …) "
        "nor a players file (player_id, …) nor a known mapping",
    )


def _check_columns(path: Path, names: list[str], kind: str) -> None:
    if kind == "games":
        missing = [c for c in ("white_id", "black_id") if c not in names]
        if not ({"result", "score"} & set(names)):
            missing.append("result or score")
        if not ({"date", "period"} & set(names)):
            missing.append("date or period")
    else:
        missing = [] if "player_id" in names else ["player_id"]
    if missing:
        raise InputError(path, 1, f"missing required column(s): {', '.join(missing)}")


READERS: dict[str, Callable[..., RawTable]] = {"csv": read_csv, "parquet": read_parquet}
SUFFIXES = {".csv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}


def detect_format(path: Path) -> str:
    name = path.name.lower()
    for suffix, fmt in sorted(SUFFIXES.items(), key=lambda kv: -len(kv[0])):
        if name.endswith(suffix):
            return fmt
    raise InputError(
        path, None, f"cannot tell the format from the name; use --format ({', '.join(READERS)})"
    )


def read_any(
    path: Path, fmt: str | None = None, mapping: str | None = None, kind: str | None = None
) -> RawTable:
    if not path.exists():
        raise InputError(path, None, "no such file")
    fmt = fmt or detect_format(path)
    if fmt not in READERS:
        raise InputError(path, None, f"unknown format {fmt!r} (known: {', '.join(READERS)})")
    return READERS[fmt](path, mapping=mapping, kind=kind)


# Readers in their own modules register themselves in READERS/SUFFIXES on import.
from arpad.pipeline import pgn as _pgn  # noqa: E402, F401
from arpad.pipeline import trf as _trf  # noqa: E402, F401
