"""Validation: every raw row is either accepted into the canonical table or
quarantined with a reason code, so accepted + quarantined = rows read.

Reason codes: ``pipeline.reasons.Reason`` (table in docs/ingest.md).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol

import polars as pl
import pyarrow as pa

from arpad.pipeline import periods, schemas
from arpad.pipeline.readers import GAME_COLUMNS, PLAYER_COLUMNS, RAW_TEXT_CAP, RawTable
from arpad.pipeline.reasons import Reason

# The longest text value a games row may hold: csv.field_size_limit()'s default, which
# the CSV reader enforces as it reads; validate_games applies it to other formats.
FIELD_LIMIT = 131072

# Result codes for White: (score, rated). Forfeits are stored but not rated.
RESULTS = {
    "1-0": (1.0, True),
    "0-1": (0.0, True),
    "1/2-1/2": (0.5, True),
    "½-½": (0.5, True),
    "0.5-0.5": (0.5, True),
    "=": (0.5, True),
    "1": (1.0, True),
    "0": (0.0, True),
    "0.5": (0.5, True),
    "1/2": (0.5, True),
    "½": (0.5, True),
    "0,5": (0.5, True),  # the decimal comma of a spreadsheet saved with ';' separators
    "+/-": (1.0, False),
    "+:-": (1.0, False),
    "+-": (1.0, False),
    "1-0f": (1.0, False),
    "-/+": (0.0, False),
    "-:+": (0.0, False),
    "-+": (0.0, False),
    "0-1f": (0.0, False),
}
UNFINISHED = {"*"}
# Other words for a pool, as the TRF and PGN readers read an event's title (docs/ingest.md):
# classical is standard, bullet and lightning are blitz ("" is the default, standard).
POOL_WORDS = {
    "": "standard",
    "classical": "standard",
    "classic": "standard",
    "bullet": "blitz",
    "lightning": "blitz",
}
MAX_RATING = 3500.0
# Event ids that name no event: blank and the PGN standard's "?" (unknown), with the
# spellings pipeline/pgn.py ``game_key`` takes as unknown. Stored as null, so that
# such games are read as games without an event id by every input and every system.
UNKNOWN_EVENTS = ("", "?", "??", "-")

PLAYER_NUMERIC = {
    "rating": (0.0, MAX_RATING),
    "peak_rating": (0.0, MAX_RATING),
    "rd": (1.0, 1000.0),  # the rules' initial_rd range; an RD of 0 divides by zero
    # the rules' initial_volatility range: a volatility of 0 never converged (Glicko-2's
    # iteration), and the player's RD then never grew while he did not play (round 14)
    "volatility": (1e-6, 10.0),
    "grade": (-100.0, 400.0),
    "rated_games": (0.0, 1e7),
    "birth_year": (1800.0, 2100.0),
}


@dataclass
class Validated:
    accepted: pa.Table  # GAMES or PLAYERS
    quarantine: pa.Table  # QUARANTINE
    rows_read: int
    notes: list[str] = field(default_factory=list)  # summary lines (players files)


def _text(name: str, frame: pl.DataFrame) -> pl.Expr:
    if name in frame.columns:
        return pl.col(name).str.strip_chars()
    return pl.lit(None, dtype=pl.String)


def one_spelling(frame: pl.DataFrame, columns) -> list[pl.Expr]:
    """Unicode NFC of the text ``columns`` that hold any non-ASCII text: an id or name
    composed ("Réti" as one é) or decomposed (e + combining accent, as macOS tools and
    some spreadsheets write it) is one player, one event, one game id (docs/ingest.md
    "One spelling of an id"). The ASCII check is one pass over the bytes (~7 ms per 1M
    values); normalising costs ~20 times as much, so only columns that need it pay."""
    out = []
    for name in columns:
        if name in frame.columns and frame.schema[name] == pl.String:
            values = frame.get_column(name)
            if (values.str.len_bytes() != values.str.len_chars()).any():
                out.append(pl.col(name).str.normalize("NFC"))
    return out


def _precision(frame: pl.DataFrame) -> pl.Expr:
    """``date_precision`` (day, month, year) where the reader gives one, else null
    (docs/pgn-trf.md "Imprecise dates")."""
    given = _text("date_precision", frame)
    return pl.when(given.is_in(schemas.DATE_PRECISIONS)).then(given).alias("date_precision")


def _moves(schema) -> pl.Expr:
    """``moves_digest`` where the reader gives one (an integer column: PGN), else null
    (docs/pgn-trf.md "Move digest")."""
    if "moves_digest" in schema and schema["moves_digest"].is_integer():
        return pl.col("moves_digest").cast(pl.Int64)
    return pl.lit(None, dtype=pl.Int64).alias("moves_digest")


def _empty(expr: pl.Expr) -> pl.Expr:
    return expr.is_null() | (expr == "")


def _first_failure(checks: list[tuple[pl.Expr, str, pl.Expr]]) -> tuple[pl.Expr, pl.Expr]:
    """Reason and detail of the first failing check (checks in priority order)."""
    reason = pl.lit(None, dtype=pl.String)
    detail = pl.lit(None, dtype=pl.String)
    for failed, code, message in reversed(checks):
        reason = pl.when(failed).then(pl.lit(code)).otherwise(reason)
        detail = pl.when(failed).then(message).otherwise(detail)
    return reason, detail


def too_long(columns: list[str], reason: Reason) -> list[tuple[pl.Expr, str, pl.Expr]]:
    """The check that a row's text ``columns`` hold at most ``FIELD_LIMIT`` characters
    (none when no column), naming the first that holds more."""
    if not columns:
        return []
    over = [(pl.col(c).str.len_chars() > FIELD_LIMIT).fill_null(False) for c in columns]
    which = pl.coalesce([pl.when(o).then(pl.lit(c)) for o, c in zip(over, columns)])
    detail = pl.format(f"{{}} holds more than {FIELD_LIMIT} characters (the field limit)", which)
    return [(pl.any_horizontal(over), reason, detail)]


def _failing(checks: list[tuple[pl.Expr, str, pl.Expr]]) -> pl.Expr:
    """Index of the first failing check (checks in priority order), null if none."""
    index = pl.lit(None, dtype=pl.UInt8)
    for i in reversed(range(len(checks))):
        index = pl.when(checks[i][0]).then(pl.lit(i, dtype=pl.UInt8)).otherwise(index)
    return index


def _failing_detail(checks: list[tuple[pl.Expr, str, pl.Expr]]) -> pl.Expr:
    """The detail of the check ``_check`` names."""
    detail = pl.lit(None, dtype=pl.String)
    for i in reversed(range(len(checks))):
        detail = pl.when(pl.col("_check") == i).then(checks[i][2]).otherwise(detail)
    return detail


# A result written as two scores around a separator, as pairing programs and
# spreadsheets export them: "1 - 0", "1:0", "0–1" (en dash), "½:½", "0,5-0,5".
_SIDE = r"(1|0|½|1/2|0[.,]5)"
_PAIR = rf"^{_SIDE}\s*[-–—:]\s*{_SIDE}$"
# A score written with decimals: "1.0", "0.50", "0,5", "1.00".
_DECIMAL = r"^(1[.,]0+|0[.,]0+|0[.,]50*)$"
# A forfeit written with spaces, as chess-results.com and Swiss-Manager print it:
# "+ - -", "+ : -", "+ / -", "+ -" (White wins by forfeit) and "- - +", "- : +", … (Black
# does); and a pair marked F for forfeit: "1-0 F", "1 - 0 F", "0:1 (F)", "1-0 ff",
# "1-0 forfeit" (docs/ingest.md "Result codes"; round 8, the new user's report). A
# double forfeit ("- - -", "0-0 F") is no game: the readers count it, not stored
# (readers.DOUBLE_FORFEIT).
_SEP = r"\s*[-–—:/]?\s*"
_FORFEIT_WON = rf"^\+{_SEP}-$"
_FORFEIT_LOST = rf"^-{_SEP}\+$"
_FORFEIT_MARK = r"\s*(f|ff|forfeit|\(f\)|\(ff\)|\(forfeit\))"
_PAIR_FORFEIT = rf"^([01])\s*[-–—:]\s*([01]){_FORFEIT_MARK}$"


def _has_forfeit_marks(values: pl.Series) -> bool:
    """Whether a result column holds a ``+`` or an ``f`` (one cheap literal look): only
    then are the forfeit spellings looked for, a third of the key's cost."""
    return bool(values.str.contains_any(["+", "f", "F"]).any())


def _result_key(result: pl.Expr, forfeits: bool = True) -> pl.Expr:
    """A result code as ``RESULTS`` spells it: lower case, the two scores of a pair
    joined by "-" (``1:0``, ``1 - 0``, ``1–0`` are ``1-0``; ``0,5`` is ``0.5``), and a
    score with decimals (``1.0``, ``0.50``) as ``1``, ``0.5`` (docs/ingest.md "Result
    codes"); a forfeit with spaces or an F mark (``+ - -``, ``- : +``, ``1 - 0 F``) as
    ``+-``, ``-+``, ``1-0f``. Anything else is looked up as written (``+:-``). The one
    key for text and typed (Parquet) files: ``result`` is always read as text."""
    key = result.str.to_lowercase()
    if not forfeits:  # no value has a "+" or an "f" (``_has_forfeit_marks``)
        return _scores_key(key)
    key = (
        pl.when(key.str.contains(_FORFEIT_WON))
        .then(pl.lit("+-"))
        .when(key.str.contains(_FORFEIT_LOST))
        .then(pl.lit("-+"))
        .when(key.str.contains(_PAIR_FORFEIT))
        .then(key.str.replace(_PAIR_FORFEIT, "${1}-${2}f"))
        .otherwise(key)
    )
    return _scores_key(key)


def _scores_key(key: pl.Expr) -> pl.Expr:
    """``_result_key`` of a lower-cased result: pairs and decimal scores."""
    pair = key.str.contains(_PAIR)
    joined = key.str.replace(_PAIR, "$1-$2").str.replace_all("0,5", "0.5")
    decimal = key.str.contains(_DECIMAL)
    number = (
        pl.when(key.str.replace(",", ".").cast(pl.Float64, strict=False) == 0.5)
        .then(pl.lit("0.5"))
        .otherwise(key.str.slice(0, 1))
    )
    return pl.when(pair).then(joined).when(decimal).then(number).otherwise(key)


# A date followed by a time of day, as a spreadsheet or ``DataFrame.to_csv`` writes a
# timestamp: "2025-01-10 09:00:00", "2025-01-10T09:00", with a zone "…+09:00" or "…Z".
# The game's date is the date as written (the players' local date: docs/ingest.md).
# ASCII digits only ([0-9], not \d: the regex engine's \d takes full-width digits too),
# and a zone within UTC-14..+14 (`+99:99` is no zone).
_TIME_OF_DAY = (
    r"^([0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4})"
    r"[ T]([01]?[0-9]|2[0-3]):[0-5][0-9]"
    r"(:[0-5][0-9](\.[0-9]+)?)?(Z|[+-](0[0-9]|1[0-4])(:?[0-5][0-9])?)?$"
)
# The European date: day first, with dots, four-digit year last (``03.11.2026``, as a
# German or Austrian spreadsheet writes it; the officer's attack of 2026-12-03). It is
# unambiguous: the US writes its month-first dates with slashes. Slashed dates with the
# year last (``03/11/2026``: day or month first?) stay ``bad_date`` (docs/ingest.md).
_DAY_FIRST = r"^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})$"


def _normal_date(expr: pl.Expr) -> pl.Expr:
    """The date text as ``Y-M-D`` (time of day cut, day-first turned round)."""
    normal = expr.str.replace(_TIME_OF_DAY, "$1").str.replace(_DAY_FIRST, "$3-$2-$1")
    return normal.str.replace_all(r"[./]", "-")


def _parse_date(expr: pl.Expr) -> pl.Expr:
    normal = _normal_date(expr)
    # A sign (`+2024-01-05`) is no date: strptime would read it as the year. Nor is a
    # year of one or two digits first: `03.11.26` (DD.MM.YY) was read as 26 November of
    # the year 3 (the officer's attack of 2026-12-03): a two-digit year is `bad_date`.
    return pl.when(normal.str.contains(r"^[0-9]{3}")).then(
        normal.str.strptime(pl.Date, "%Y-%m-%d", strict=False)
    )


DATE_FORMS = "YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY"
# Faults a bad date's detail names (docs/ingest.md "Dates"), tried in this order.
_SLASHED_YEAR_LAST = r"^([0-9]{1,2})/([0-9]{1,2})/([0-9]{4}|[0-9]{2})$"
_TWO_DIGIT_YEAR = r"^([0-9]{1,2})([.-])([0-9]{1,2})[.-]([0-9]{2})$"
_YMD = r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$"


def bad_date_detail(name: str, text: pl.Expr, this_year: int, forms: str = DATE_FORMS) -> pl.Expr:
    """The detail of a ``bad_date``: the date as written, the accepted ``forms`` and, where
    the text tells, the fault: a two-digit year (and the date with four, read as the
    nearest year not after next year), a slashed date with the year last (day or month
    first cannot be told), no such month or day. Built for the quarantined rows only."""
    head = f"{name} {{}} is not a valid date ({forms})"
    slashed = text.str.extract_groups(_SLASHED_YEAR_LAST)
    first, second, year = (slashed.struct.field(k).str.zfill(2) for k in ("1", "2", "3"))
    two = text.str.extract_groups(_TWO_DIGIT_YEAR)
    yy = two.struct.field("4")
    century = pl.when(yy.cast(pl.Int32) <= (this_year + 1) % 100).then(
        pl.lit(str((this_year + 1) // 100))
    )
    century = century.otherwise(pl.lit(str((this_year + 1) // 100 - 1)))
    ymd = _normal_date(text).str.extract_groups(_YMD)
    month = ymd.struct.field("2").cast(pl.Int32)
    day = ymd.struct.field("3").cast(pl.Int32)
    day_first = text.str.contains(r"^[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4}")
    return (
        pl.when(
            text.str.contains(_SLASHED_YEAR_LAST) & (slashed.struct.field("3").str.len_chars() == 2)
        )
        .then(
            pl.format(
                head + ": with slashes and the year last, day first or month first cannot "
                "be told, and the year has two digits; write YYYY-MM-DD",
                text,
            )
        )
        .when(text.str.contains(_SLASHED_YEAR_LAST))
        .then(
            pl.format(
                head + ": with slashes and the year last, day first or month first cannot "
                "be told; write YYYY-MM-DD ({}-{}-{} or {}-{}-{})",
                text,
                year,
                second,
                first,
                year,
                first,
                second,
            )
        )
        .when(text.str.contains(_TWO_DIGIT_YEAR) & (two.struct.field("2") == "."))
        .then(
            pl.format(
                head + ": the year has two digits; write it with four ({}.{}.{}{})",
                text,
                two.struct.field("1"),
                two.struct.field("3"),
                century,
                yy,
            )
        )
        .when(text.str.contains(_TWO_DIGIT_YEAR))
        .then(pl.format(head + ": the year has two digits; write it with four", text))
        .when(~month.is_between(1, 12))
        .then(
            pl.when(day_first)
            .then(pl.format(head + ": there is no month {} (the day comes first)", text, month))
            .otherwise(pl.format(head + ": there is no month {}", text, month))
        )
        .when(~day.is_between(1, 31))
        .then(pl.format(head + ": there is no day {}", text, day))
        .when(day.is_not_null())
        .then(
            pl.format(
                head + ": no such day, {}-{} has no day {}",
                text,
                ymd.struct.field("1"),
                ymd.struct.field("2").str.zfill(2),
                day,
            )
        )
        .otherwise(pl.format(head, text))
    )


# A players file's ``date`` column (docs/ingest.md "Dates"; docs/observations.md): a day
# read as a games file's date is (``_parse_date``: ``01.10.2026``, ``2026-10-1`` too; the
# new user's round 12, where every such row was ``bad_player_field``) or a month,
# ``YYYY-MM`` or ``YYYYMM``.
PLAYER_DATE_FORMS = "YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD, DD.MM.YYYY, YYYY-MM or YYYYMM"
_MONTH_ONLY = r"^([0-9]{4})-?([0-9]{2})$"


def _player_date_month(text: pl.Expr) -> pl.Expr:
    """The ``YYYYMM`` (Int64) of a players file's date ``text``, range not checked; null
    for no date of the forms read."""
    day = _parse_date(text)
    month = text.str.extract_groups(_MONTH_ONLY)
    return pl.coalesce(
        day.dt.year().cast(pl.Int64) * 100 + day.dt.month().cast(pl.Int64),
        month.struct.field("1").cast(pl.Int64) * 100 + month.struct.field("2").cast(pl.Int64),
    )


def _possible_month(period: pl.Expr) -> pl.Expr:
    """A calendar month from ``periods.FIRST_MONTH`` to next month (``periods.is_valid``)."""
    last = periods.last_month()
    return (period % 100).is_between(1, 12) & period.is_between(periods.FIRST_MONTH, last)


def player_date_period(text: pl.Expr) -> pl.Expr:
    """The period (Int64) of a players file's date ``text`` (``PLAYER_DATE_FORMS``); null
    for none, for text that is no such date and for a month outside the valid months."""
    month = _player_date_month(text)
    return pl.when(_possible_month(month)).then(month)


def player_date_detail(text: pl.Expr) -> pl.Expr:
    """The ``bad_player_field`` detail of a players file's date that gives no period
    (``player_date_period``): a date outside the valid months, or no date of the forms
    read, with the fault where the text tells (``bad_date_detail``)."""
    month = _player_date_month(text)
    valid = periods.valid_months_text()
    return (
        pl.when((month % 100).is_between(1, 12).fill_null(False))
        .then(pl.format(f"date {{}} is outside the valid {valid}", text))
        .otherwise(
            bad_date_detail("date", text, periods.latest_game_date()[0].year, PLAYER_DATE_FORMS)
        )
    )


# A long number as a spreadsheet shows and saves it in a General cell: 123456789012 as
# ``1,23457E+11`` (``1.23457E+11``). An id so written has lost its digits: two people
# whose ids begin alike share it (the new user's round 12, stored without a word).
_SCIENTIFIC = r"^[0-9]([.,][0-9]+)?[eE]\+[0-9]{2,3}$"
SCIENTIFIC_ID = (
    "in a spreadsheet's scientific notation (a long number in Excel's General format): "
    "its digits are lost, and two people can share it; re-export the file with {} "
    "formatted as text"
)


def scientific_id(column: str) -> pl.Expr:
    """True for an id of ``column`` written in a spreadsheet's scientific notation."""
    return pl.col(column).cast(pl.String).str.contains(_SCIENTIFIC).fill_null(False)


def _scientific_ids_note(f: pl.DataFrame, source: str) -> list[str]:
    """The note for a players file whose ``player_id`` holds ids in a spreadsheet's
    scientific notation (``scientific_id``): how many, an example with its lines."""
    hit = f.filter(scientific_id("player_id"))
    if not hit.height:
        return []
    ids = hit.group_by("player_id", maintain_order=True).agg(pl.col("_line"))
    first, lines = ids.row(0)
    shown = ", ".join(str(n) for n in lines[:5]) + (" …" if len(lines) > 5 else "")
    return [
        f"{source}: the player_id column holds {ids.height} id(s) in a spreadsheet's "
        f"scientific notation (e.g. {first} on line(s) {shown}), as Excel shows and saves "
        "a long number in a General cell: the digits are lost, and two people whose ids "
        "begin alike become one player; re-export the file with the player_id column "
        "formatted as text"
    ]


class SeenIds(Protocol):
    """Game ids accepted from earlier slices of the same file (a streamed ingest)."""

    def first_lines(self, ids: pl.Series) -> pl.DataFrame:
        """``_game_id`` and ``_before`` (its accepted line) for those of ``ids`` seen."""

    def add(self, ids: pl.Series, lines: pl.Series) -> None: ...


def _empty_side(white: pl.Expr, black: pl.Expr, pgn: bool) -> pl.Expr:
    """The empty_player_id detail, naming the side; in a PGN an empty id is a name tag
    that is empty or nobody's ('?', 'NN', 'Unknown', ...: pipeline/pgn.py), so it says
    that too (the hostile and analyst attacks, round 9: "white_id or black_id is empty"
    for a game against 'NN')."""

    def why(tags: str) -> str:
        if not pgn:
            return ""
        return f" (the {tags} empty or a placeholder name such as '?' or 'NN', nobody's id)"

    return (
        pl.when(white & black)
        .then(pl.lit("white_id and black_id are empty" + why("White and Black tags are")))
        .when(white)
        .then(pl.lit("white_id is empty" + why("White tag is")))
        .otherwise(pl.lit("black_id is empty" + why("Black tag is")))
    )


def validate_games(
    raw: RawTable, source: str, batch: str, seen: SeenIds | None = None
) -> Validated:
    """``seen``: the ids accepted from earlier slices of the file, when it is read in
    slices; a game id seen there is a duplicate of that line, as it would be in the
    whole file."""
    # Only the columns validation reads: an unknown column named like one of its helper
    # columns ("_before", a Parquet file's) would be read in its place.
    own = {*GAME_COLUMNS, "date_precision", "moves_digest", "_line", "_raw"}
    f = raw.frame.select([c for c in raw.frame.columns if c in own])
    missing = [pl.lit(None, dtype=pl.String).alias(c) for c in GAME_COLUMNS if c not in f.columns]
    # Typed Parquet/Arrow columns (readers.typed_game_columns) are validated as typed
    # values; text columns (every CSV field) are stripped and parsed. Every step up to
    # the first failing check is one lazy query, collected once per slice.
    schema = {**f.schema, **{c: pl.String for c in GAME_COLUMNS if c not in f.columns}}
    text = {c for c in GAME_COLUMNS if schema[c] == pl.String}
    lf = f.lazy().with_columns(missing) if missing else f.lazy()
    lf = lf.with_columns([pl.col(c).str.strip_chars() for c in GAME_COLUMNS if c in text])
    spelt = one_spelling(f, ("white_id", "black_id", "game_id", "event_id"))
    if spelt:
        lf = lf.with_columns(spelt)

    def blank(name: str) -> pl.Expr:
        return _empty(pl.col(name)) if name in text else pl.col(name).is_null()

    def parsed(name: str, text_parse: pl.Expr, typed: pl.Expr) -> pl.Expr:
        return text_parse if name in text else typed

    absent = {c for c in GAME_COLUMNS if c not in f.columns}

    def or_absent(name: str, expr: pl.Expr, dtype) -> pl.Expr:
        """``expr``, or its value for a column the input lacks (every row null) as a
        literal: nothing parsed for nothing (a typed Parquet file has few columns)."""
        return pl.lit(None, dtype=dtype) if name in absent else expr

    given = f.get_column("result") if "result" in text - absent else None
    result_key = _result_key(pl.col("result"), given is None or _has_forfeit_marks(given))
    lf = lf.with_columns(
        or_absent(
            "result",
            result_key.replace_strict(
                list(RESULTS),
                [v[0] for v in RESULTS.values()],
                default=None,
                return_dtype=pl.Float64,
            ),
            pl.Float64,
        ).alias("_res_score"),
        or_absent(
            "result",
            result_key.replace_strict(
                list(RESULTS),
                [v[1] for v in RESULTS.values()],
                default=None,
                return_dtype=pl.Boolean,
            ),
            pl.Boolean,
        ).alias("_res_rated"),
    )
    has_result = ~blank("result")
    score_num = parsed(
        "score",
        # "0,5": the decimal comma of a spreadsheet saved in such a locale (docs/ingest.md)
        pl.col("score").str.replace(r"^(\d),(\d)$", "$1.$2").cast(pl.Float64, strict=False),
        pl.col("score").cast(pl.Float64, strict=False),
    )
    lf = lf.with_columns(
        pl.when(has_result).then(pl.col("_res_score")).otherwise(score_num).alias("_score"),
        or_absent(
            "date", parsed("date", _parse_date(pl.col("date")), pl.col("date")), pl.Date
        ).alias("_date"),
        parsed(
            "period",
            pl.col("period").str.replace(r"^(\d{4})-(\d{2})$", "$1$2").cast(pl.Int32, strict=False),
            pl.col("period").cast(pl.Int32, strict=False),
        ).alias("_period_given"),
        pl.col("pool").str.to_lowercase().fill_null("standard").replace(POOL_WORDS).alias("_pool"),
        or_absent(
            "white_rating", pl.col("white_rating").cast(pl.Float64, strict=False), pl.Float64
        ).alias("_wr"),
        or_absent(
            "black_rating", pl.col("black_rating").cast(pl.Float64, strict=False), pl.Float64
        ).alias("_br"),
    )
    lf = lf.with_columns(
        (
            pl.col("_date").dt.year().cast(pl.Int32) * 100
            + pl.col("_date").dt.month().cast(pl.Int32)
        ).alias("_period_of_date")
    )
    lf = lf.with_columns(
        pl.coalesce("_period_given", "_period_of_date").alias("_period"),
        or_absent(
            "rated",
            parsed(
                "rated",
                pl.when(pl.col("rated").str.to_lowercase().is_in(["1", "true", "yes", "y", "t"]))
                .then(True)
                .when(pl.col("rated").str.to_lowercase().is_in(["0", "false", "no", "n", "f"]))
                .then(False)
                .otherwise(None),
                pl.col("rated"),
            ),
            pl.Boolean,
        ).alias("_rated_given"),
    )
    # Valid periods (pipeline/periods.py): months FIRST_MONTH..last_month(), or period
    # numbers 1..MAX_PERIOD_NUMBER. Six or more digits, or YYYY-MM, is always a month.
    last = periods.last_month()
    # A game's date may not be after today (a day's grace for time zones east of UTC):
    # next month's period is for lists prepared ahead, not for games not played yet
    # (docs/operations.md "The officer's month, round 3").
    today, last_day = periods.latest_game_date()
    this_month = today.year * 100 + today.month
    precision = _text("date_precision", f)
    given = pl.col("period")
    month_shaped = parsed(
        "period",
        given.str.contains(r"^\d{4}-\d{2}$") | given.str.contains(r"^\d{6,}$"),
        given >= 100_000,  # six or more digits
    )
    month_shaped = month_shaped | (pl.col("_period_given") > periods.MAX_PERIOD_NUMBER)

    def possible_month(period: pl.Expr) -> pl.Expr:
        return (period % 100).is_between(1, 12) & period.is_between(periods.FIRST_MONTH, last)

    given_possible = (
        pl.when(month_shaped.fill_null(False))
        .then(possible_month(pl.col("_period_given")))
        .otherwise(pl.col("_period_given").is_between(1, periods.MAX_PERIOD_NUMBER))
    )
    period_is_calendar = month_shaped.fill_null(False) & given_possible
    valid_range = periods.valid_range_text()
    valid_months = periods.valid_months_text()

    def bad_rating(column: str, parsed: str) -> pl.Expr:
        value = pl.col(parsed)
        return ~blank(column) & (value.is_null() | ~value.is_between(0.0, MAX_RATING))

    checks = []
    # A CSV field longer than FIELD_LIMIT characters quarantines its row as it is read
    # (readers.read_csv); a Parquet or PGN value gets the same limit here, so a 20 MB
    # "player id" is never stored, listed or printed (docs/ingest.md "Field length").
    if raw.format != "csv":
        long = [c for c in ("white_id", "black_id", *GAME_COLUMNS) if c in text]
        if raw.format in ("pgn", "trf"):  # its game id is built from its tags, checked
            long = [c for c in long if c != "game_id"]
        checks += too_long(
            [c for c in dict.fromkeys(long) if c not in absent], Reason.MALFORMED_ROW
        )
    checks += [
        (
            blank("white_id") | blank("black_id"),
            Reason.EMPTY_PLAYER_ID,
            _empty_side(blank("white_id"), blank("black_id"), raw.format == "pgn"),
        ),
        (
            scientific_id("white_id") | scientific_id("black_id"),
            Reason.BAD_PLAYER_ID,
            pl.format(
                "{} {} is " + SCIENTIFIC_ID.format("the white_id and black_id columns"),
                pl.when(scientific_id("white_id"))
                .then(pl.lit("white_id"))
                .otherwise(pl.lit("black_id")),
                pl.when(scientific_id("white_id"))
                .then(pl.col("white_id"))
                .otherwise(pl.col("black_id")),
            ),
        ),
        (
            pl.col("white_id") == pl.col("black_id"),
            Reason.SELF_PLAY,
            pl.format("player {} plays himself", pl.col("white_id")),
        ),
        (
            has_result & pl.col("result").is_in(list(UNFINISHED)),
            Reason.UNFINISHED_GAME,
            pl.lit("result '*': game unfinished or result unknown"),
        ),
        (
            has_result & pl.col("_res_score").is_null(),
            Reason.UNKNOWN_RESULT,
            pl.format("unknown result code {}", pl.col("result")),
        ),
        (
            has_result
            & ~blank("score")
            & (score_num.is_null() | (score_num != pl.col("_res_score"))).fill_null(True),
            Reason.RESULT_SCORE_MISMATCH,
            pl.format("result {} but score {}", pl.col("result"), pl.col("score")),
        ),
        (
            ~has_result & blank("score"),
            Reason.UNKNOWN_RESULT,
            pl.lit("no result and no score"),
        ),
        (
            ~has_result & score_num.is_null(),
            Reason.UNKNOWN_RESULT,
            pl.when(pl.col("score").cast(pl.String).str.strip_chars().is_in(list(RESULTS)))
            .then(
                pl.format(
                    "score {} is not a number (a result code: name the column 'result')",
                    pl.col("score"),
                )
            )
            .otherwise(pl.format("score {} is not a number", pl.col("score"))),
        ),
        (
            ~has_result & ~score_num.is_in([0.0, 0.5, 1.0]),
            Reason.SCORE_OUT_OF_RANGE,
            pl.format("score {} is not 1, 0.5 or 0", pl.col("score")),
        ),
        (
            ~blank("date") & pl.col("_date").is_null(),
            Reason.BAD_DATE,
            bad_date_detail("date", pl.col("date"), today.year)
            if "date" in text
            else pl.format(f"date {{}} is not a valid date ({DATE_FORMS})", pl.col("date")),
        ),
        (
            ~blank("period") & (pl.col("_period_given").is_null() | (pl.col("_period_given") <= 0)),
            Reason.BAD_PERIOD,
            pl.format("period {} is not a positive integer or YYYYMM", pl.col("period")),
        ),
        (
            pl.col("_period_of_date").is_not_null() & ~possible_month(pl.col("_period_of_date")),
            Reason.PERIOD_OUT_OF_RANGE,
            pl.format(f"date {{}} is outside the valid {valid_months}", pl.col("date")),
        ),
        (
            pl.col("_date").is_not_null() & (pl.col("_date") > pl.lit(last_day, dtype=pl.Date)),
            Reason.PERIOD_OUT_OF_RANGE,
            pl.format(
                f"date {{}} is after today ({today.isoformat()}, UTC): not played yet "
                "(a typo in the year?)",
                pl.col("date"),
            ),
        ),
        (
            # A date known to the month or the year only (PGN "2027.01.??", "2027.??.??")
            # whose month or year has not begun: not played yet, as a full date after
            # today (its period alone may be next month's, valid for a list).
            pl.col("_period_given").is_not_null()
            & (
                ((precision == "month") & (pl.col("_period_given") > this_month))
                | ((precision == "year") & (pl.col("_period_given") // 100 > today.year))
            ).fill_null(False),
            Reason.PERIOD_OUT_OF_RANGE,
            pl.format(
                f"date known to the {{}} only, period {{}}: that {{}} has not begun (today is "
                f"{today.isoformat()}, UTC): not played yet (a typo in the year?)",
                precision,
                pl.col("period"),
                precision,
            ),
        ),
        (
            pl.col("_period_given").is_not_null() & ~given_possible,
            Reason.PERIOD_OUT_OF_RANGE,
            pl.when(month_shaped.fill_null(False) & (pl.col("_period_given") < periods.FIRST_MONTH))
            .then(
                pl.format(
                    f"period {{}} is before {periods.FIRST_MONTH // 100}-"
                    f"{periods.FIRST_MONTH % 100:02d}, the first month arpad rates (outside "
                    f"the valid {valid_range})",
                    pl.col("period"),
                )
            )
            .otherwise(
                pl.format(f"period {{}} is outside the valid {valid_range}", pl.col("period"))
            ),
        ),
        (
            pl.col("_period_given").is_not_null()
            & pl.col("_period_of_date").is_not_null()
            & period_is_calendar
            & (pl.col("_period_given") != pl.col("_period_of_date")),
            Reason.PERIOD_MISMATCH,
            pl.format("date {} is not in period {}", pl.col("date"), pl.col("period")),
        ),
        (
            pl.col("_period").is_null(),
            Reason.MISSING_PERIOD,
            pl.lit("neither date nor period given"),
        ),
        (
            ~pl.col("_pool").is_in(list(schemas.POOLS)),
            Reason.BAD_POOL,
            pl.format("pool {} is not standard, rapid or blitz", pl.col("pool")),
        ),
        (
            ~blank("rated") & pl.col("_rated_given").is_null(),
            Reason.BAD_RATED,
            pl.format("rated {} is not true/false", pl.col("rated")),
        ),
        (
            bad_rating("white_rating", "_wr"),
            Reason.BAD_RATING,
            pl.format("white_rating {} is not a rating in 0..3500", pl.col("white_rating")),
        ),
        (
            bad_rating("black_rating", "_br"),
            Reason.BAD_RATING,
            pl.format("black_rating {} is not a rating in 0..3500", pl.col("black_rating")),
        ),
    ]
    # Which check fails first, as a small integer per row; the reason and detail
    # texts are built for the rows quarantined only.
    f = lf.with_columns(
        _failing(checks).alias("_check"), blank("game_id").alias("_no_id")
    ).collect()
    if f.get_column("_no_id").any():
        derived = pl.format("{}:{}", pl.lit(source), pl.col("_line"))
        game_id = pl.when(pl.col("_no_id")).then(derived).otherwise(pl.col("game_id"))
    else:  # every row names its id: no derived text built for nothing
        game_id = pl.col("game_id")
    f = f.with_columns(game_id.alias("_game_id"), pl.col("_check").is_null().alias("_ok"))
    # Duplicate game ids inside the file: the first valid occurrence wins.
    all_ok = f.get_column("_check").null_count() == f.height
    ok_ids = f.get_column("_game_id") if all_ok else f.filter(pl.col("_ok")).get_column("_game_id")
    first_line = pl.col("_line").filter(pl.col("_ok")).min().over("_game_id")
    repeated = ok_ids.hash(seed=0).n_unique() < len(ok_ids)
    before = seen.first_lines(ok_ids) if seen is not None else None
    if all_ok and not repeated and (before is None or not before.height):
        # The common case: every row accepted; no flags, filters or quarantine texts.
        if seen is not None:
            seen.add(ok_ids, f.get_column("_line"))
        good = f.lazy()
        bad = f.head(0).with_columns(
            pl.lit(None, dtype=pl.String).alias("_reason"),
            pl.lit(None, dtype=pl.String).alias("_detail"),
        )
    else:
        if not repeated:  # distinct hashes: distinct ids
            first_line = pl.col("_line")
        if before is not None and before.height:
            f = f.join(before, on="_game_id", how="left", maintain_order="left")
            first_line = pl.coalesce(pl.col("_before"), first_line)
        dup = pl.col("_ok") & (pl.col("_line") != first_line)
        f = f.with_columns(pl.when(dup).then(first_line).alias("_first_line"))
        accept = pl.col("_ok") & pl.col("_first_line").is_null()

        good = f.lazy().filter(accept)
        is_dup = pl.col("_first_line").is_not_null()
        codes = [Reason(code).value for _, code, _ in checks]
        bad = f.filter(~accept).with_columns(
            pl.when(is_dup)
            .then(pl.lit(Reason.DUPLICATE_GAME_ID.value))
            .otherwise(pl.col("_check").replace_strict(list(range(len(codes))), codes))
            .alias("_reason"),
            pl.when(is_dup)
            .then(
                pl.format(
                    "game_id {} already on line {}", pl.col("_game_id"), pl.col("_first_line")
                )
            )
            .otherwise(_failing_detail(checks))
            .alias("_detail"),
        )
        if seen is not None:
            ids = good.select("_game_id", "_line").collect()
            seen.add(ids.get_column("_game_id"), ids.get_column("_line"))
    # Only the accepted columns are filtered (a lazy projection), not every helper.
    accepted = good.select(
        pl.col("_game_id").alias("game_id"),
        pl.col("_date").alias("date"),
        pl.col("_period").cast(pl.Int32).alias("period"),
        pl.col("_pool").alias("pool"),
        pl.col("white_id"),
        pl.col("black_id"),
        pl.col("_score").cast(pl.Float32).alias("score"),
        pl.coalesce(
            pl.col("_rated_given") & pl.col("_res_rated").fill_null(True),
            pl.col("_res_rated"),
            pl.lit(True),
        ).alias("rated"),
        _known_event(pl.col("event_id")).alias("event_id"),
        pl.format("{}:{}", pl.lit(source), pl.col("_line")).alias("source"),
        pl.lit(batch).alias("ingest_batch"),
        pl.col("_wr").alias("white_rating"),
        pl.col("_br").alias("black_rating"),
        _precision(f),
        _moves(schema),
    ).collect()
    quarantine = _quarantine_rows(raw, bad, source, batch)
    return Validated(
        schemas.conform(accepted.to_arrow(), schemas.GAMES),
        quarantine,
        raw.frame.height + len(raw.problems),
    )


# A games file's name cell that names nobody: no letter (an id copied, "-"), or a
# placeholder as pgn.py ``UNKNOWN_NAME`` reads one ("?", "NN", "N.N.", "Unknown").
_NOBODY = r"(?i)^(?:n\.?\s*n\.?|amateur|unknown|anonymous)$"
NAMES_SHOWN = 3  # ids named in the note of ids with several names


def game_names(frame: pl.DataFrame, games: pa.Table) -> pl.DataFrame:
    """The players' names a games file gives beside their ids (``white_name``,
    ``black_name``: readers.NAME_HEADINGS; docs/ingest.md "Players' names in a games
    file") on the rows of ``frame`` accepted as ``games``: each id's names, the first
    line of each, in file order (``player_id``, ``name``, ``_line``), stripped and in
    NFC. A cell without a letter (an id copied, "-", "?"), a placeholder (``_NOBODY``)
    or longer than ``FIELD_LIMIT`` names nobody."""
    sides = [s for s in ("white", "black") if f"{s}_name" in frame.columns]
    schema = {"player_id": pl.String, "name": pl.String, "_line": pl.Int64}
    if not sides or not games.num_rows:
        return pl.DataFrame(schema=schema)
    rows = pl.from_arrow(games.select([f"{s}_id" for s in sides] + ["source"]))
    line = pl.col("source").str.extract(r":(\d+)$").cast(pl.Int64)
    given = frame.select("_line", *[pl.col(f"{s}_name").cast(pl.String) for s in sides])
    rows = rows.with_columns(line.alias("_line")).join(
        given, on="_line", how="left", maintain_order="left"
    )
    name = pl.col("name").str.strip_chars()
    named = pl.concat(
        [
            rows.select(
                pl.col(f"{s}_id").alias("player_id"),
                pl.col(f"{s}_name").alias("name"),
                "_line",
                pl.lit(i, pl.Int8).alias("_side"),
            )
            for i, s in enumerate(sides)
        ]
    ).with_columns(name.str.normalize("NFC"))
    named = named.filter(
        pl.col("player_id").is_not_null()
        & name.str.contains(r"\p{L}").fill_null(False)
        & ~name.str.contains(_NOBODY).fill_null(False)
        & (name.str.len_chars() <= FIELD_LIMIT).fill_null(False)
    )
    named = named.sort("_line", "_side").unique(["player_id", "name"], keep="first")
    return named.sort("_line").select(list(schema))


def first_game_names(named: pl.DataFrame, source: str) -> tuple[pl.DataFrame, list[str]]:
    """Of ``game_names`` (a whole file's, in file order), each id's first name with
    ``source`` the line that gave it (``file:line``), and the note of ids the file gives
    different names (``identity.normalise_name`` told apart: "Charlie, Csaba" and
    "CHARLIE Csaba" are one): a mistyped id on one of their lines."""
    from arpad.pipeline.identity import normalise_name

    first = named.unique("player_id", keep="first", maintain_order=True)
    out = first.select(
        "player_id", "name", pl.format("{}:{}", pl.lit(source), pl.col("_line")).alias("source")
    )
    several = named.filter(pl.len().over("player_id") > 1)
    found = []
    for pid, group in several.group_by("player_id", maintain_order=True):
        keys: dict = {}
        for n, line in group.select("name", "_line").iter_rows():
            keys.setdefault(normalise_name(n), (n, line))
        if len(keys) > 1:
            found.append((pid[0], list(keys.values())))
    if not found:
        return out, []
    shown = "; ".join(
        f"{pid}: " + ", ".join(f"{n!r} line {line}" for n, line in given)
        for pid, given in found[:NAMES_SHOWN]
    )
    more = f" and {len(found) - NAMES_SHOWN} more" if len(found) > NAMES_SHOWN else ""
    note = (
        f"{len(found)} player id(s) with different names in the file ({shown}{more}): a "
        "mistyped player id on one of those lines is rated as the other player's game; the "
        "first name is read for an id the store has no name for"
    )
    return out, [note]


def _known_event(event: pl.Expr) -> pl.Expr:
    """The event id, null when it names no event (``UNKNOWN_EVENTS``, after stripping:
    a PGN ``[Event "?"]`` is a game without an event, docs/pgn-trf.md)."""
    text = event.cast(pl.String)
    return pl.when(text.str.strip_chars().is_in(UNKNOWN_EVENTS)).then(None).otherwise(text)


def _quarantine_rows(raw: RawTable, bad: pl.DataFrame, source: str, batch: str) -> pa.Table:
    rows = bad.select(
        pl.lit(source).alias("source"),
        pl.col("_line").alias("line"),
        pl.col("_reason").alias("reason"),
        pl.col("_detail").alias("detail"),
        pl.col("_raw").alias("raw"),
        pl.lit(batch).alias("ingest_batch"),
    )
    if raw.problems:
        extra = pl.DataFrame(
            {
                "source": [source] * len(raw.problems),
                "line": [p[0] for p in raw.problems],
                "reason": [p[1] for p in raw.problems],
                "detail": [p[2] for p in raw.problems],
                "raw": [p[3] for p in raw.problems],
                "ingest_batch": [batch] * len(raw.problems),
            },
            schema=rows.schema,
        )
        rows = pl.concat([rows, extra]).sort("line")
    rows = rows.with_columns(capped_raw(pl.col("raw")))
    return schemas.conform(rows.to_arrow(), schemas.QUARANTINE)


# The spellings of a player's sex read from players files (FIDE's lists: M, F; its TRF:
# m, w). "" stands for unknown; anything else is refused (the list's "w" flag and the
# women's titles depend on it).
SEXES = {
    **dict.fromkeys(("m", "male", "man", "men", "h", "homme", "masculin"), "M"),
    **dict.fromkeys(("f", "female", "w", "woman", "women", "femme", "féminin"), "F"),
    **dict.fromkeys(("?", "-", "u", "unknown"), ""),
}


def _spellings(value: str) -> str:
    return ", ".join(k for k, v in SEXES.items() if v == value)


# The spellings the bad_player_field message names, from ``SEXES`` itself (the message
# left out h, homme, femme, - and unknown, which were read: the new user's report, round 7).
SEX_SPELLINGS = (
    f"M for {_spellings('M')}; F for {_spellings('F')}; "
    f"unknown for empty, {_spellings('')}; any case"
)


def _sex(sex: pl.Expr) -> pl.Expr:
    """``M``, ``F``, "" (unknown) or null (not read: refused) of a sex field."""
    return sex.str.to_lowercase().replace_strict(SEXES, default=None, return_dtype=pl.String)


def capped_raw(raw: pl.Expr) -> pl.Expr:
    """The quarantine keeps at most ``RAW_TEXT_CAP`` characters of a row's text."""
    too_long = raw.str.len_chars() > RAW_TEXT_CAP
    cut = pl.format(
        "{}… [cut: {} characters in all]", raw.str.slice(0, RAW_TEXT_CAP), raw.str.len_chars()
    )
    return pl.when(too_long).then(cut).otherwise(raw).alias("raw")


# A ratings table given as players (``arpad.rate``'s result, ``Store.ratings``, or a
# file of them: no ``rating`` but ``rating_after``): the state after its period read as
# the starting state (docs/api.md "`rate`'s own result as `players=`").
RATINGS_STATE = {"rating_after": "rating", "rd_after": "rd", "volatility_after": "volatility"}
# What a ratings table does not carry: K by the rated games so far, the peak, the age.
HISTORY_FACTS = ("rated_games", "peak_rating", "birth_year")


def ratings_period(value: pl.Expr) -> pl.Expr:
    """A ratings table's ``period`` as the period (Int64) it names, as a games file's
    period is read: a number (``202404``, Kaggle's ``10``) as it is, a month ``2024-04``
    or a day (``2024-04-30``, any form a players file's date takes) as its ``YYYYMM``;
    null for anything else (``garbage``, a month outside the valid months)."""
    text = value.cast(pl.String).str.strip_chars()
    number = text.cast(pl.Float64, strict=False)
    whole = (number == number.floor()) & number.is_between(1, 10**9)
    return pl.coalesce(pl.when(whole).then(number).cast(pl.Int64), player_date_period(text))


@dataclass
class RatingsTable:
    """A ratings table read as players (``ratings_table``)."""

    frame: pl.DataFrame  # the rows read: each player's latest period, columns renamed
    read: dict[str, str]  # rating_after -> rating, … (the columns read)
    # per row of ``frame``: player_id, at (its line, or a frame's row from 0), given (its
    # period as written), pool, period (Int64, null: none or not read), rated and pending
    # (unrated after his period: his games so far are not in the table)
    rows: pl.DataFrame
    periods: list[int]  # the table's periods (those read), oldest first
    earlier: int  # rows of a player's earlier periods, left aside
    has_period: bool  # the table has a ``period`` column
    lacking: list[str]  # HISTORY_FACTS it does not have

    def note(self, what: str) -> str:
        """How it is read: ``a ratings frame: rating_after as rating, … (the state after
        its period)``, and the rows of earlier periods left aside (``what``: frame, file)."""
        said = ", ".join(f"{a} as {n}" for a, n in self.read.items())
        text = f"a ratings {what}: {said} (the state after its period)"
        if self.earlier:
            text += (
                f"; of its {len(self.periods)} periods ({self.periods[0]}..{self.periods[-1]}) "
                f"each player's latest row is read ({self.earlier} rows of earlier periods "
                "left aside)"
            )
        return text

    def history_note(self, who: str = "where K depends on them (FIDE, USCF)") -> str | None:
        """The facts it lacks, which set K and a first rating (None: it has them)."""
        if not self.lacking:
            return None
        return (
            f"it has no {', '.join(self.lacking)} (its games count one period's games): "
            f"{who} each rated player is taken as established and adult unless you join "
            "them as columns"
        )

    def pending_note(self) -> str | None:
        """Players unrated after their period (a row is a player who played: his games
        so far are not in the table), so a system that pools a newcomer's games of
        several periods for his first rating (FIDE §8.2) rates him later than one run, or
        never, without a word (analyst round 15). None: there are none."""
        pending = self.rows.filter(pl.col("pending")).get_column("player_id")
        if pending.is_empty():
            return None
        shown = ", ".join(pending.head(5).to_list()) + (", …" if len(pending) > 5 else "")
        return (
            f"{len(pending)} player(s) unrated after their period ({shown}): the games they "
            "played are not in the table (nor those of a player not in it who played before "
            "its period), so a system that rates a newcomer from his games of several "
            "periods (FIDE) counts only the games from here on: his first rating comes later "
            "or never, and his opponents' ratings differ from one run's; rate one run over "
            "all the games, or ingest every games file into one store (a chain is exact for "
            "rated players only)"
        )


def ratings_table(frame: pl.DataFrame) -> RatingsTable | None:
    """``frame`` (a players file's raw text rows, or a players frame) read as a ratings
    table when it has no ``rating`` column but a ``rating_after`` with values:
    ``rating_after``, ``rd_after`` and ``volatility_after`` (those with values, and no
    column of the name they are read as) renamed ``rating``, ``rd`` and ``volatility``,
    and, when a player has rows of several periods (``rate``'s whole result), only his
    rows of his latest period (of each pool) kept. None for any other frame. A ratings
    CSV's rows were read as a players file's, and every rating was left out under
    "columns not read": the same rows gave other ratings as a frame and as a file
    (analyst round 15); the frame route kept each player's oldest row."""
    names = frame.columns
    if "rating" in names or "rating_after" not in names:
        return None

    def values(name: str) -> pl.Expr:  # text, null for none (empty, a float's NaN)
        column = pl.col(name).fill_nan(None) if frame.schema[name].is_float() else pl.col(name)
        return column.cast(pl.String).str.strip_chars().replace("", None)

    given = frame.select(values(c).is_not_null().any() for c in RATINGS_STATE if c in names)
    with_values = {c for c in given.columns if given.item(0, c)}
    read = {a: n for a, n in RATINGS_STATE.items() if a in with_values and n not in names}
    if "rating_after" not in read:
        return None
    has_period = "period" in names
    pool = values("pool").str.to_lowercase() if "pool" in names else pl.lit(None, pl.String)
    # each row a player of its own without an id column (the players' own error follows)
    player = values("player_id") if "player_id" in names else pl.int_range(pl.len()).cast(pl.String)
    at = pl.col("_line") if "_line" in names else pl.int_range(pl.len())  # a frame's df[i]
    rows = frame.select(
        player.alias("player_id"),
        at.cast(pl.Int64).alias("at"),
        (values("period") if has_period else pl.lit(None, pl.String)).alias("given"),
        pool.replace({k: v for k, v in POOL_WORDS.items() if k}).alias("pool"),
        (ratings_period(pl.col("period")) if has_period else pl.lit(None, pl.Int64)).alias(
            "period"
        ),
        values("rating_after").is_not_null().alias("rated"),
        values("rating_after").is_null().alias("pending"),
    )
    latest = pl.col("period").max().over(["player_id", "pool"])
    keep = rows.select(latest.is_null() | (pl.col("period") == latest)).to_series()
    kept = rows.filter(keep)
    periods = sorted(rows.get_column("period").drop_nulls().unique().to_list())
    return RatingsTable(
        frame.filter(keep).rename(read),
        read,
        kept,
        periods,
        rows.height - kept.height,
        has_period,
        [c for c in HISTORY_FACTS if c not in names],
    )


def validate_players(
    raw: RawTable, source: str, batch: str, by_date: bool = False, for_rating: bool = True
) -> Validated:
    """``by_date``: a players file with a ``date`` column (dated observations,
    docs/observations.md): one row per player and date, so duplicates are by both; in a
    file with a ``pool`` column, by the pool too (one row per player in each pool).
    A ratings table (``ratings_table``: a CSV of ``rate``'s result) is read as its state
    after its period, each player's latest row (the rows of earlier periods are not
    counted in ``rows_read``), with a note saying so; ``for_rating`` (a store's players,
    not ``arpad norm``'s): the notes on the facts it lacks and its newcomers too."""
    f = raw.frame
    table = ratings_table(f) if raw.kind == "players" else None
    table_notes: list[str] = []
    if table is not None:
        f = table.frame
        table_notes = [table.note("file")]
        if for_rating:
            table_notes += [n for n in (table.history_note(), table.pending_note()) if n]
    elif raw.kind == "players" and "rating_after" in f.columns and "rating" not in f.columns:
        table_notes = ["a ratings file without a rating_after value: no rating is read"]
    for name in PLAYER_COLUMNS:
        if name not in f.columns:
            f = f.with_columns(pl.lit(None, dtype=pl.String).alias(name))
    f = f.with_columns([pl.col(c).str.strip_chars().replace("", None) for c in PLAYER_COLUMNS])
    spelt = one_spelling(f, ("player_id", "name"))
    if spelt:
        f = f.with_columns(spelt)
    f = f.with_columns(
        *[pl.col(c).cast(pl.Float64, strict=False).alias(f"_{c}") for c in PLAYER_NUMERIC],
        _parse_date(pl.col("birth_date")).alias("_birth_date"),
        _sex(pl.col("sex")).alias("_sex"),
    )
    # No one on a list was born after today (a typo in the year: K 40 for a junior).
    today = periods.latest_game_date()[0]
    numeric = {**PLAYER_NUMERIC, "birth_year": (PLAYER_NUMERIC["birth_year"][0], today.year)}
    checks = too_long(
        [c for c in PLAYER_COLUMNS if f.schema[c] == pl.String], Reason.BAD_PLAYER_FIELD
    )
    checks.append(
        (pl.col("player_id").is_null(), Reason.EMPTY_PLAYER_ID, pl.lit("player_id is empty"))
    )
    for c, (lo, hi) in numeric.items():
        detail = pl.format(f"{c} {{}} is not a number in {lo:g}..{hi:g}", pl.col(c))
        if c == "birth_year":  # a "Born" column of dates (readers.PLAYER_HEADINGS)
            detail = (
                pl.when(_parse_date(pl.col(c)).is_not_null())
                .then(
                    pl.format(
                        "birth_year {} is a date, not a year: head a column of dates birth_date",
                        pl.col(c),
                    )
                )
                .otherwise(detail)
            )
        checks.append(
            (
                pl.col(c).is_not_null()
                & (pl.col(f"_{c}").is_null() | ~pl.col(f"_{c}").is_between(lo, hi)),
                Reason.BAD_PLAYER_FIELD,
                detail,
            )
        )
    for c in ("rated_games", "birth_year"):
        # stored as whole numbers: 29.9 rated games was cut to 29 (K 40 under FIDE) unsaid
        checks.append(
            (
                (pl.col(f"_{c}") != pl.col(f"_{c}").floor()).fill_null(False),
                Reason.BAD_PLAYER_FIELD,
                pl.format(f"{c} {{}} is not a whole number", pl.col(c)),
            )
        )
    first_birth = dt.date(int(numeric["birth_year"][0]), 1, 1)
    checks += [
        (
            pl.col("birth_date").is_not_null() & pl.col("_birth_date").is_null(),
            Reason.BAD_PLAYER_FIELD,
            pl.format(f"birth_date {{}} is not a valid date ({DATE_FORMS})", pl.col("birth_date")),
        ),
        (
            ~pl.col("_birth_date").is_between(first_birth, today).fill_null(True),
            Reason.BAD_PLAYER_FIELD,
            pl.format(
                f"birth_date {{}} is not in {first_birth.isoformat()}..{today.isoformat()}",
                pl.col("birth_date"),
            ),
        ),
        (
            pl.col("sex").is_not_null() & pl.col("_sex").is_null(),
            Reason.BAD_PLAYER_FIELD,
            pl.format(
                f"sex {{}} is neither M nor F (read: {SEX_SPELLINGS})",
                pl.col("sex"),
            ),
        ),
    ]
    reason, detail = _first_failure(checks)
    f = f.with_columns(reason.alias("_reason"), detail.alias("_detail"))
    f = f.with_columns(pl.col("_reason").is_null().alias("_ok"))
    key = ["player_id", "date"] if by_date else ["player_id"]
    said = pl.format("player_id {}", pl.col("player_id"))
    if "pool" in f.columns:
        # One row per player (and date) in each pool: a register lists a player once per
        # pool (docs/observations.md "Undated ratings and pools"); an empty cell is
        # standard, and the words of a games file are read as there.
        pool = pl.col("pool").cast(pl.String).str.strip_chars().str.to_lowercase()
        f = f.with_columns(pool.fill_null("").replace(POOL_WORDS).alias("_pool_key"))
        key.append("_pool_key")
        said = pl.format("player_id {} in pool {}", pl.col("player_id"), pl.col("_pool_key"))
    first_line = pl.col("_line").filter(pl.col("_ok")).min().over(key)
    dup = pl.col("_ok") & (pl.col("_line") != first_line)
    # a frame's rows are rows (counted from 0, as df[i]: docs/api.md), and which is read
    where = "in row {} (the row read)" if raw.format == "dataframe" else "on line {}"
    f = f.with_columns(
        pl.when(dup)
        .then(pl.lit(Reason.DUPLICATE_PLAYER_ID))
        .otherwise(pl.col("_reason"))
        .alias("_reason"),
        pl.when(dup)
        .then(
            pl.when(scientific_id("player_id"))
            .then(
                pl.format(
                    "{} already "
                    + where
                    + ", an id "
                    + SCIENTIFIC_ID.format("the player_id column"),
                    said,
                    first_line,
                )
            )
            .otherwise(pl.format("{} already " + where, said, first_line))
        )
        .otherwise(pl.col("_detail"))
        .alias("_detail"),
    )
    good = f.filter(pl.col("_reason").is_null())
    bad = f.filter(pl.col("_reason").is_not_null())
    # A rating of 0 is FIDE's (and TRF's) "unrated", not a rating: read as none, and the
    # rated games with it; a peak of 0 likewise. An ECF grade 0 is a real grade.
    zero = pl.col("_rating") == 0.0
    notes = table_notes + _zero_rating_notes(good) + _scientific_ids_note(f, source)
    good = good.with_columns(
        pl.when(zero).then(None).otherwise(pl.col("_rating")).alias("_rating"),
        pl.when(zero).then(None).otherwise(pl.col("_rated_games")).alias("_rated_games"),
        pl.when(pl.col("_peak_rating") == 0.0)
        .then(None)
        .otherwise(pl.col("_peak_rating"))
        .alias("_peak_rating"),
    )
    accepted = good.select(
        "player_id",
        "name",
        "federation",
        pl.when(pl.col("_sex") != "").then(pl.col("_sex")).alias("sex"),
        pl.col("_birth_date").alias("birth_date"),
        pl.coalesce(
            pl.col("_birth_year").cast(pl.Int32), pl.col("_birth_date").dt.year().cast(pl.Int32)
        ).alias("birth_year"),
        "title",
        "w_title",
        "o_title",
        "foa_title",
        pl.col("_rating").alias("rating"),
        pl.col("_rated_games").cast(pl.Int32).alias("rated_games"),
        pl.col("_peak_rating").alias("peak_rating"),
        pl.col("_rd").alias("rd"),
        pl.col("_volatility").alias("volatility"),
        pl.col("_grade").alias("grade"),
        pl.format("{}:{}", pl.lit(source), pl.col("_line")).alias("source"),
    )
    return Validated(
        schemas.conform(accepted.to_arrow(), schemas.PLAYERS),
        _quarantine_rows(raw, bad, source, batch),
        raw.frame.height - (table.earlier if table else 0) + len(raw.problems),
        notes,
    )


def _zero_rating_notes(good: pl.DataFrame) -> list[str]:
    """The note for accepted players rows whose rating or peak is 0 (read as none)."""
    rating = int((good.get_column("_rating") == 0.0).sum())
    peak = int((good.get_column("_peak_rating") == 0.0).sum())
    notes = []
    if rating:
        notes.append(
            f"{rating} player row(s) with rating 0: read as unrated (no rating, no rated "
            "games; FIDE's lists and TRF write 0 for unrated)"
        )
    if peak:
        notes.append(f"{peak} player row(s) with peak_rating 0: read as no peak rating")
    return notes
