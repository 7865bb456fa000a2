"""Quarantine reason codes: every row that is read and not stored gets exactly one.

``Reason`` is the one list of codes, each with a one-line description; the readers
(CSV, PGN, TRF), validation and ingest produce only these. The table in docs/ingest.md
("Reason codes") is ``reason_table()`` and tests/test_ingest.py keeps the two equal.
"""

from __future__ import annotations

from enum import Enum


class Reason(str, Enum):
    """A quarantine reason code (the ``reason`` column of QUARANTINE rows)."""

    description: str

    def __new__(cls, code: str, description: str) -> Reason:
        member = str.__new__(cls, code)
        member._value_ = code
        member.description = description
        return member

    # Members are plain strings wherever they are written (Parquet, messages).
    __str__ = str.__str__
    __format__ = str.__format__

    MALFORMED_ROW = (
        "malformed_row",
        "has a different number of fields than the header, opens a quote that is never closed "
        "(or runs over several lines into a row of the wrong width), or holds a field longer "
        "than 131072 characters; PGN: a malformed tag line, text before the first tag, or a "
        "tag arpad reads given twice with different values; "
        "TRF: an unreadable rank or round",
    )
    EMPTY_PLAYER_ID = (
        "empty_player_id",
        "has no white or black id (players file: no player_id); the detail names the side, and in a PGN a placeholder name ('?', 'NN', 'Unknown'...) is no id",
    )
    BAD_PLAYER_ID = (
        "bad_player_id",
        "(games) has a white or black id in a spreadsheet's scientific notation (`1,23457E+11`, "
        "`1.23457E+11`: a long number in Excel's General format): its digits are lost, and "
        "two people can share it",
    )
    SELF_PLAY = "self_play", "has the same player on both sides"
    RESULT_SCORE_MISMATCH = (
        "result_score_mismatch",
        "has both a result and a score, and they disagree (`1-0` with score 0, or a score that "
        "is not a number)",
    )
    UNFINISHED_GAME = "unfinished_game", "has result `*`"
    UNKNOWN_RESULT = (
        "unknown_result",
        "has a result code not in the list, or a non-numeric / missing score (a result "
        "code such as `1-0` in the `score` column is refused with the hint to name that "
        "column `result`: a score is a number)",
    )
    SCORE_OUT_OF_RANGE = (
        "score_out_of_range",
        "has a numeric score other than 1, 0.5, 0 (e.g. Deloitte's −1 decoys)",
    )
    BAD_DATE = "bad_date", "has a date that is not a real calendar date"
    BAD_PERIOD = "bad_period", "has a period that is not a positive integer or YYYY-MM"
    PERIOD_OUT_OF_RANGE = (
        "period_out_of_range",
        "has a date or period outside the valid range (months 1800-01 to next month, or "
        "period numbers 1–99999), or a date after tomorrow (UTC): a game not played yet",
    )
    PERIOD_MISMATCH = "period_mismatch", "has a calendar period that disagrees with its date"
    MISSING_PERIOD = "missing_period", "has neither date nor period"
    BAD_POOL = "bad_pool", "has a pool other than standard/rapid/blitz"
    BAD_RATED = "bad_rated", "has a `rated` value that is not true/false"
    BAD_RATING = "bad_rating", "has a white/black rating outside 0..3500"
    DUPLICATE_GAME_ID = (
        "duplicate_game_id",
        "repeats a game id seen earlier in the file or already stored from another file",
    )
    DUPLICATE_GAME = (
        "duplicate_game",
        "is the same game as one already stored from another file (same date/period, players "
        "in their colours, result, and round where both name one), under another id or none: "
        'a re-sent file (see "Re-sent games")',
    )
    CONFLICTING_RESULT = (
        "conflicting_result",
        "has the date/period, players in their colours (and round where both name one) of a "
        "game already stored from another file, with another result (or its game id and "
        "players on another date): a correction sent under another name, not applied (see "
        '"Conflicting results")',
    )
    PROBABLE_DUPLICATE = (
        "probable_duplicate",
        "(PGN, TRF) has the complete date, White, Black and result of a game stored from "
        "another file, under other Event/Site/Round tags: one game from two collections "
        '(kept with `--keep-probable-duplicates`; docs/pgn-trf.md "Probable duplicates")',
    )
    BAD_PLAYER_FIELD = (
        "bad_player_field",
        "(players) has a non-numeric or absurd rating, games count, birth year …",
    )
    DUPLICATE_PLAYER_ID = (
        "duplicate_player_id",
        "(players) repeats a player id of the same file (TRF: a starting rank twice); "
        "with a `date` column the same id and date, with a `pool` column the same id (and "
        "date) in the same pool, named in the detail (one row per pool is kept: "
        'docs/observations.md "Undated ratings and pools")',
    )
    TRUNCATED_GAME = (
        "truncated_game",
        "(PGN) is a game without a termination marker (1-0, 0-1, 1/2-1/2, *)",
    )
    RESULT_MISMATCH = (
        "result_mismatch",
        "(PGN) has a Result tag other than the termination marker of its movetext",
    )
    INCONSISTENT_PAIRING = (
        "inconsistent_pairing",
        "(TRF) lists a game that the opponent's line does not list, or lists differently",
    )
    UNKNOWN_OPPONENT = (
        "unknown_opponent",
        "(TRF) names an opponent starting rank that has no 001 line",
    )


def reason_table() -> str:
    """The Markdown table of reason codes in docs/ingest.md, generated from ``Reason``."""
    lines = ["| code | the row … |", "|---|---|"]
    lines += [f"| `{r.value}` | {r.description} |" for r in Reason]
    return "\n".join(lines) + "\n"
