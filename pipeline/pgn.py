"""PGN reader: the tag section of every game, without parsing moves (docs/pgn-trf.md).

One compiled pass (``kernels.pgn_scan.scan_pgn``, Numba) walks the file's UTF-8 bytes: it splits
lines, strips them, finds where games start, parses the tag pairs and keeps, per
game, the byte ranges of the wanted tag values, whether a move stands outside the
movetext's comments and the termination marker ending the text outside them (no
Python object per line). Tag values become Polars string
columns cut from the bytes; the per-game rules below are Polars expressions over
one row per game (target ≥ 200k games/s, benchmarks/bench_pgn.py). Per game we read the Seven Tag Roster plus
WhiteElo/BlackElo, WhiteFideId/BlackFideId, WhiteTitle/BlackTitle, TimeControl
EventDate, Variant and FEN, whether the movetext holds at least one move, and a
digest of its main-line moves (``moves_digest``; docs/pgn-trf.md "Move digest").

Decisions (the PGN standard, "PGN Standard 1994-03-12" §8, leaves them open):

* A game whose movetext is only a termination marker (``1-0``) is a forfeit or a
  result whose moves were not kept: stored with ``rated = false`` (``rate_moveless``,
  ``arpad ingest --rate-moveless``, rates them). Old databases' markers ``½-½``,
  ``1:0``, ``0:1``, ``½:½`` are read as the standard's (``_old_markers``).
* ``Date`` ``YYYY.MM.DD`` gives the date; ``YYYY.MM.??`` (or ``YYYY.MM``) the period
  ``YYYYMM``; ``YYYY.??.??`` (or ``YYYY.??``, ``YYYY``) the period ``YYYY12`` (the year's last month: no list of an
  earlier month holds a game that may have been played after it; in the current
  year the latest valid month). The game's
  ``date_precision`` says which (``day``, ``month``, ``year``; docs/pgn-trf.md
  "Imprecise dates"). An unknown Date falls back to ``EventDate``, the event's first
  day: the game is placed as a year-only game of the event's year (``_event_dated``);
  no date at all is ``missing_period``. A day without its month (``1851.??.15``) is
  read as ``1851.??.??``.
* Pool: ``TimeControl`` when it is a time control (base + 60 × increment ≤ 10
  min blitz, < 60 min rapid, else standard; FIDE Laws, Appendices A and B),
  else the words of ``POOL_WORDS`` in ``Event`` (blitz/bullet/lightning, rapid/schnell),
  else standard.
* Player id: the FIDE id (``WhiteFideId``) when present (also for the same
  name's other games in the file, unless the file gives that name two FIDE ids),
  else ``<file name>:<player name>``; a note names a name with two FIDE ids and a
  FIDE id under two names (``_twin_notes``).
* A game whose id (``game_key``) is an earlier game's of the file, with other moves
  or another result: ``duplicate_game_id`` saying so (``_same_key_other_game``).
* Elo ``""``, ``"?"``, ``"-"`` and ``"0"`` mean unrated.
* A name ``?``, ``-``, ``NN``, ``N.N.``, ``Amateur``, ``Unknown`` or ``Anonymous`` is an unknown player: no id (the game is
  quarantined ``empty_player_id``), not one player met in every such game.
* A name of ``readers.BYE_IDS`` (``BYE``, ``(bye)``, ``spielfrei``, ``-``, …; the whole
  name, any case) against a name is a bye, not a game: counted, noted and not stored,
  whatever the result, as a CSV's (``_without_byes``; a lone ``-`` is a bye then).
* A ``Variant`` tag naming another game (Chess960, Crazyhouse, …; not
  ``Standard``/``From Position``): stored with ``rated = false``.
* A ``FEN`` tag other than the initial position (an odds game, a study): stored
  with ``rated = false``.
* Tags come in any order (§8.1): a game's tag section ends at its movetext, or at an
  ``[Event`` line when the section already holds one (a header-only game).
* A game ends at its first termination marker outside comments and variations
  (§8.2.6); text after it before the next tag section is a game without tags or
  stray text, quarantined as rows of their own (``_after_marker``). A game without
  a termination marker is ``truncated_game``; a Result tag that contradicts the
  marker is ``result_mismatch``; an empty Result tag is a missing one.
* A tag of ``TAGS`` given twice in one tag section with different values is
  ``malformed_row`` naming both lines (``_repeated_tags``); the same value again is
  harmless.
"""

from __future__ import annotations

import codecs
import dataclasses
import itertools
import re
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from arpad.pipeline import periods, readers
from arpad.pipeline.archives import read_gzip, zip_members
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import RawTable, decode
from arpad.pipeline.reasons import Reason

TAGS = (
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "WhiteFideId",
    "BlackFideId",
    "WhiteTitle",
    "BlackTitle",
    "TimeControl",
    "EventDate",
    "Variant",
    "FEN",
)
UNRATED_ELO = ("", "?", "-", "0")
BLITZ_MAX_SECONDS = 600  # FIDE Laws of Chess, Appendix B.1: 10 minutes or less
RAPID_MAX_SECONDS = 3600  # Appendix A.1: more than 10 and less than 60 minutes


# A name that says the player is not known: "?" (PGN Standard §8.1.1.5), "-", and
# "NN"/"N.N." (nomen nescio), "Amateur", "Unknown", "Anonymous" of old collections.
# Every such player is someone else, so the side gets no id and the game is
# quarantined (empty_player_id), instead of one player "file:NN" rated from every
# game against an unknown opponent.
UNKNOWN_NAME = r"(?i)^(?:\?+|-+|n\.?\s*n\.?|amateur|unknown|anonymous)$"
# Variant tag values that are chess itself (lichess writes "From Position" for a
# standard game from a set-up position); any other variant (Chess960, Crazyhouse, …)
# is stored with rated = false.
# "Classical" is python-chess's name for standard chess (its Board.uci_variant aliases).
CHESS_VARIANTS = ("", "?", "standard", "chess", "classical", "normal", "from position")
# The initial position (FEN piece placement and side to move). A game from any other
# position (an odds game of the 1850s, a study, a lichess "From Position" game) is
# not a game between equals from the start: stored with rated = false.
INITIAL_POSITION = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"

MEMBER_NOTES = 20  # zip members whose first line is given in a note


def load_bytes(path: Path, notes: list[str]) -> bytes:
    """The file as UTF-8 bytes (``_utf8``): ``.gz`` decompressed; of a ``.zip`` only the
    ``.pgn`` members (others are skipped with a note), each decoded on its own and
    ended by a blank line, joined in name order. Decompression is bounded
    (pipeline/archives.py)."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return _utf8(read_gzip(path), path, notes)
    if not name.endswith(".zip"):
        return _utf8(path.read_bytes(), path, notes)
    members = zip_members(path, (".pgn",), notes)
    if not members:
        raise InputError(path, None, "zip archive holds no .pgn member")
    parts, line = [], 1
    for k, (member, data) in enumerate(members):
        body = _utf8(data, path, notes, first_line=line, what=f"zip member {member}: ")
        if body and not body.endswith((b"\n", b"\r")):
            body += b"\n"
        body += b"\n"  # a blank line: a member never runs into the next one
        if k < MEMBER_NOTES:
            notes.append(f"zip member {member} starts at line {line}")
        line += readers.line_breaks(body, len(body))
        parts.append(body)
    if len(members) > MEMBER_NOTES:
        notes.append(f"{len(members) - MEMBER_NOTES} more zip members (not listed)")
    return b"".join(parts)


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with CRLF, CR or LF endings (str.splitlines also splits on \\x0c etc.)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def time_control_pool(tc: str | None) -> str | None:
    """Pool of a PGN TimeControl value (seconds): ``300+2``, ``40/7200:3600``, ``*180``."""
    if tc is None:
        return None
    first = tc.strip().split(":")[0]
    if not first or first in ("?", "-"):
        return None
    first = first.lstrip("*")
    if "/" in first:  # moves/seconds: the first period's time
        first = first.split("/", 1)[1]
    base, _, inc = first.partition("+")
    try:
        seconds = float(base) + 60.0 * (float(inc) if inc else 0.0)
    except ValueError:
        return None
    if seconds <= BLITZ_MAX_SECONDS:
        return "blitz"
    if seconds < RAPID_MAX_SECONDS:
        return "rapid"
    return "standard"


# The words that name a pool in an event's title, PGN's Event as a TRF's 092/122/012
# records (pipeline/trf.py): one list, so that the German "Schnellschach" of an
# arbiter's PGN goes to rapid as his TRF does (new user's attack, round 10: the PGN was
# stored as standard and its rapid Elo tags re-seeded standard ratings).
POOL_WORDS = (
    ("blitz", r"blitz|bullet|lightning"),
    ("rapid", r"rapid|schnell|rápid"),
)


def event_pool(event: str | None) -> str | None:
    """Pool named by an event title (``POOL_WORDS``): blitz/bullet/lightning -> blitz,
    rapid/schnell/rápid -> rapid."""
    if not event:
        return None
    for pool, words in POOL_WORDS:
        if re.search(words, event, re.IGNORECASE):
            return pool
    return None


def _map_unique(expr_name: str, frame: pl.DataFrame, func) -> pl.Expr:
    values = frame.get_column(expr_name).unique().to_list()
    mapping = {v: func(v) for v in values if v is not None}
    return pl.col(expr_name).replace_strict(mapping, default=None, return_dtype=pl.String)


def _year_end(year: pl.Expr) -> pl.Expr:
    """``YYYY12`` of a year-only date; for the current year the latest valid month
    (``periods.last_month``), so that such a game is not out of range."""
    last = periods.last_month()
    return (
        pl.when(year.cast(pl.Int64, strict=False) == last // 100)
        .then(pl.lit(str(last)))
        .otherwise(year + "12")
    )


def _odd_dates(games: pl.DataFrame) -> bool:
    """True when a Date or EventDate is written in a form ``_dates_as_written`` rewrites
    (a zero month or day, a one-digit month or day, unknown digits of the year, an ``x``
    or a single ``?`` for unknown digits)."""
    odd = (
        r"^\s|\s$|^\d{4}\.(00|\d)(\.|$)|^\d{4}\.\d\d\.(00|\d)$|^\d{0,3}\?"
        r"|^[\d?.]*[xX][\dxX?.]*$|\.\?(\.|$)|\.(\d\?|\?\d)(\.|$)|^\d{4}\.\?\?\.\d"
    )
    return any(games.get_column(c).str.contains(odd).any() for c in ("Date", "EventDate"))


def _blanks_inside(games: pl.DataFrame, columns) -> bool:
    """True when a value of ``columns`` holds a run of blanks, a tab or another Unicode
    space (a no-break space, U+00A0): then runs of them are made one plain blank
    ("Capablanca,  Jose Raul", a typist's double space, or "Morphy,\\u00a0Paul" is the
    player of "Capablanca, Jose Raul" and the same game key; docs/pgn-trf.md)."""
    return any(
        (
            games.get_column(c).str.contains("  ", literal=True)
            | games.get_column(c).str.contains(r"[\t\p{Zs}--\x20]")  # tab, no-break space…
        ).any()
        for c in columns
    )


def _dates_as_written() -> list[pl.Expr]:
    """Date and EventDate in the standard's form, as old databases also write them
    (docs/pgn-trf.md "Historian's sources, round 3"): a zero for an unknown month or
    day (``1851.00.00``, ``1851.07.00``) is ``??``; a one-digit month or day
    (``1851.7.3``) gets its leading zero; a year with unknown digits (``18??``) is an
    unknown date (then EventDate places the game). An ``x``/``X`` or a single ``?`` is
    an unknown digit or field as ``??`` is (``1858.07.xx``, ``1858.07.?``, ``1858.?.?``
    are ``1858.07.??`` and ``1858.??.??``; ``18xx.??.??`` an unknown date; round 6). The
    game key is built from the result, so ``1851.7.3`` and ``1851.07.03`` are one game."""
    out = []
    for col in ("Date", "EventDate"):
        d = pl.col(col).str.strip_chars()
        unknown_digits = d.str.contains(r"^[\dxX?]{4}(\.[\dxX?]{1,2}){0,2}$")
        d = pl.when(unknown_digits).then(d.str.replace_all("[xX]", "?")).otherwise(d)
        d = d.str.replace(r"^([\d?]{4})\.\?(\.|$)", "$1.??$2")
        d = d.str.replace(r"^([\d?]{4}\.\S+)\.\?$", "$1.??")
        # a month or day with one digit known (1858.0?.??) says no more than ??
        d = d.str.replace(r"^([\d?]{4})\.(\d\?|\?\d)\.", "$1.??.").str.replace(
            r"^([\d?]{4}\.\S\S)\.(\d\?|\?\d)$", "$1.??"
        )
        d = d.str.replace(r"^(\d{4})\.(\d)\.", "$1.0$2.").str.replace(
            r"^(\d{4}\.\d\d)\.(\d)$", "$1.0$2"
        )
        d = d.str.replace(r"^(\d{4})\.(\d)$", "$1.0$2")
        d = d.str.replace(r"^(\d{4})\.00(\.00|\.\?\?)?$", "$1.??.??")
        d = d.str.replace(r"^(\d{4}\.\d\d)\.00$", "$1.??")
        # a day without its month (1851.??.15, 1851.00.15) says only the year (round 9)
        d = d.str.replace(r"^(\d{4})\.(00|\?\?)\.\d{1,2}$", "$1.??.??")
        d = pl.when(d.str.contains(r"^\d{0,3}\?")).then(pl.lit("????.??.??")).otherwise(d)
        out.append(d.alias(col))
    return out


def _date_and_period(col: str) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(date text, period text, precision) of a PGN date tag; see the module docstring."""
    d = pl.col(col).str.strip_chars()
    full = d.str.contains(r"^\d{4}[.\-/]\d{2}[.\-/]\d{2}$")
    # YYYY.MM.?? and YYYY.??.?? (the standard's form), also shortened to YYYY.MM, YYYY.??
    # and YYYY as some databases write them (docs/pgn-trf.md)
    month = d.str.contains(r"^\d{4}\.\d{2}(\.\?\?)?$")
    year = d.str.contains(r"^\d{4}(\.\?\?(\.\?\?)?)?$")
    unknown = d.is_null() | d.str.contains(r"^[?.\-]*$")
    date = pl.when(full).then(d).when(month | year | unknown).then(None).otherwise(d)
    period = (
        pl.when(month)
        .then(d.str.slice(0, 4) + d.str.slice(5, 2))
        .when(year)
        .then(_year_end(d.str.slice(0, 4)))
        .otherwise(None)
    )
    precision = (
        pl.when(full)
        .then(pl.lit("day"))
        .when(month)
        .then(pl.lit("month"))
        .when(year)
        .then(pl.lit("year"))
        .otherwise(None)
    )
    return date, period, precision


def _strings(
    buf: np.ndarray, games: np.ndarray, col0: int, ncol: int
) -> tuple[list[pl.Series], np.ndarray]:
    """String columns of the byte ranges (start, end) in columns ``col0, col0 + 2, ...``
    of ``games`` (valid UTF-8 cut at character bounds; null where start < 0), and each
    column's bytes (``ncol`` views, in order)."""
    from arpad.kernels.pgn_scan import gather_ranges

    data, off = gather_ranges(buf, games, col0, ncol)
    g = games.shape[0]
    columns = [data[off[k * g] : off[(k + 1) * g]] for k in range(ncol)]
    # compared row by row, then transposed (a column-wise walk of the wide rows is slow)
    valid = np.ascontiguousarray((games[:, col0 : col0 + 2 * ncol : 2] >= 0).T).ravel()
    arr = pa.LargeStringArray.from_buffers(
        valid.size,
        pa.py_buffer(off),
        pa.py_buffer(data),
        pa.py_buffer(np.packbits(valid, bitorder="little")),
        int(valid.size - valid.sum()),
    )
    series = pl.from_arrow(arr)
    return [series.slice(k * g, g) for k in range(ncol)], columns


def _utf8(data: bytes, path: Path, notes: list[str], first_line: int = 1, what: str = "") -> bytes:
    """The text as UTF-8 bytes under ``readers.decode``'s rules (UTF-8 with or without
    BOM, else Latin-1; UTF-16 and NUL anywhere refused; UTF-8 text with ``--encoding``
    given: a note that it is read as UTF-8), without building a str for UTF-8 text
    (but for that note)."""
    data = from_utf16(data, path, notes, first_line, what)
    readers.refuse_nul(data, path, first_line, what)
    body = data
    while body.startswith(codecs.BOM_UTF8):
        body = body[3:]
    if len(data) - len(body) > 3:
        notes.append(f"{what}{(len(data) - len(body)) // 3} byte-order marks at the start; dropped")
    if body.isascii():
        return body
    try:
        pl.Series([body], dtype=pl.Binary).cast(pl.String)  # strict: raises unless UTF-8
    except (pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError):
        return decode(data, path, notes).encode("utf-8")
    if readers._ENCODING.get():  # --encoding given for UTF-8 text: ``decode``'s note says so
        said: list[str] = []
        decode(body, path, said)
        notes.extend(what + n for n in said)
    return body


def _ascii_pair(a: int, b: int) -> bool:
    """Two bytes of text: printable ASCII or a blank (TAB, LF, CR)."""
    return all(32 <= c < 127 or c in (9, 10, 13) for c in (a, b))


def from_utf16(
    data: bytes, path: Path, notes: list[str], first_line: int = 1, what: str = ""
) -> bytes:
    """UTF-16 text (a Windows "Unicode" export: with a byte-order mark, or without one
    when its first two characters are ASCII, as a PGN's ``[E`` or a TRF's ``01``) as
    UTF-8 bytes, with a note; other bytes unchanged. It was refused as "binary data
    (NUL byte)" (PGN) or "save as UTF-8" (TRF)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding, how = "utf-16", "byte-order mark"
    elif len(data) >= 4 and data[1] == data[3] == 0 and _ascii_pair(data[0], data[2]):
        encoding, how = "utf-16-le", "no byte-order mark"  # "[\0E\0", "0\01\0" (TRF)
    elif len(data) >= 4 and data[0] == data[2] == 0 and _ascii_pair(data[1], data[3]):
        encoding, how = "utf-16-be", "no byte-order mark"
    else:
        return data
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        problem = f"{what}UTF-16 text ({how}) that does not decode: {exc}"
        raise InputError(path, first_line, problem) from None
    notes.append(f"{what}decoded as UTF-16 ({how})")
    return text.lstrip("\ufeff").encode("utf-8")


def _blank(buf: bytes) -> bool:
    """``not text.strip()`` for the decoded text (Python's whitespace), mostly without decoding."""
    rest = buf.lstrip(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
    if not rest:
        return True
    if rest[0] < 0x80:
        return False
    return not rest.decode("utf-8").strip()


_TAG_NAMES = np.zeros((len(TAGS), max(len(t) for t in TAGS)), np.uint8)
for _k, _t in enumerate(TAGS):
    _TAG_NAMES[_k, : len(_t)] = np.frombuffer(_t.encode(), np.uint8)
_TAG_LEN = np.array([len(t) for t in TAGS], np.int64)


KEY_TAGS = ("Event", "Site", "Date", "Round", "White", "Black")


def game_key() -> pl.Expr:
    """The game's id from its tags, so that the same game in two files is one game.

    ``pgn:Event|Site|Date|Round|White|Black`` when every part is known (a full
    ``YYYY.MM.DD`` date, a round, non-empty names, event and site not ``?``);
    otherwise null, and validation falls back to ``<file name>:<line>``.
    """
    parts = [pl.col(t).str.strip_chars() for t in KEY_TAGS]
    known = pl.col("Date").str.strip_chars().str.contains(r"^\d{4}\.\d{2}\.\d{2}$")
    for t, part in zip(KEY_TAGS, parts):
        if t != "Date":
            known = known & part.is_not_null() & ~part.is_in(["", "?", "-", "??"])
    key = pl.concat_str([pl.lit("pgn:"), pl.concat_str(parts, separator="|")])
    return pl.when(known.fill_null(False)).then(key).otherwise(None)


# A file of at least this many bytes is scanned in parts side by side (``scan``).
PARALLEL_MIN_BYTES = 8 << 20
_EVENT_LINE = b"\n[Event "


def scan(buf: np.ndarray, parts: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(games, preamble) of the PGN bytes ``buf`` (kernels/pgn_scan.py ``_scan``). A file
    of ``PARALLEL_MIN_BYTES`` or more is scanned in ``parts`` parts (default: one per
    core) cut at ``[Event`` lines, side by side, and joined to what one reading gives;
    where a part's start is not a game's start in that reading, the file is scanned
    whole (docs/pgn-trf.md "Reading speed")."""
    from arpad.kernels.pgn_scan import scan_pgn
    from arpad.pipeline.runner import local_cores

    if parts is None:
        parts = local_cores() if buf.size >= PARALLEL_MIN_BYTES else 1
    cuts = split_points(buf, parts) if parts > 1 else []
    if cuts:
        joined = _joined(buf, cuts)
        if joined is not None:
            return joined
    games, state = scan_pgn(buf, _TAG_NAMES, _TAG_LEN)
    return games, state[:6]


def split_points(buf: np.ndarray, parts: int) -> list[int]:
    """Where ``scan`` may cut ``buf`` into about ``parts`` parts of equal size: the first
    ``[Event `` line start (after a LF) after each equal share and after the cut before
    it (fewer parts when the file has fewer such lines)."""
    cuts: list[int] = []
    for k in range(1, parts):
        # searched from the last cut at the latest: its '[' cannot start the next match
        at = _find(buf, _EVENT_LINE, max(k * buf.size // parts - 1, cuts[-1] if cuts else 0))
        if at < 0:
            break
        cuts.append(at + 1)
    return cuts


def _find(buf: np.ndarray, needle: bytes, start: int, window: int = 1 << 20) -> int:
    """The first index of ``needle`` in ``buf`` at or after ``start`` (-1: none), searched
    a window at a time (no copy of the whole file)."""
    while start < buf.size:
        at = buf[start : start + window + len(needle) - 1].tobytes().find(needle)
        if at >= 0:
            return start + at
        start += window
    return -1


def _joined(buf: np.ndarray, cuts: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
    """The scan of ``buf`` in the parts between ``cuts``, side by side on threads (the
    compiled scan releases the GIL), joined; None when a part's start was not where a
    game starts in a reading from the file's start (a ``{`` comment open across it, or
    the ``[Event`` line in the tags of a game before it): the caller reads it whole.
    Every part but the first begins with an ``[Event`` line, so it begins a game exactly
    when the part before it ends outside a comment and with a movetext line, or inside
    tags that already hold an ``[Event`` line (``_scan``'s rule)."""
    from concurrent.futures import ThreadPoolExecutor

    from arpad.kernels.pgn_scan import BAD, LINE, REPEAT, REPEAT_FIRST, scan_pgn

    spans = list(itertools.pairwise([0, *cuts, buf.size]))
    with ThreadPoolExecutor(len(spans) - 1, thread_name_prefix="arpad-pgn-scan") as pool:
        later = [pool.submit(scan_pgn, buf, _TAG_NAMES, _TAG_LEN, a, b) for a, b in spans[1:]]
        results = [scan_pgn(buf, _TAG_NAMES, _TAG_LEN, *spans[0])]
        results += [f.result() for f in later]
    games, states = zip(*results)
    for state in states[:-1]:
        in_comment, prev_tag, seen_event = state[6], state[7], state[8]
        if in_comment or (prev_tag and not seen_event):
            return None
    if states[0][4] < 0:  # no kept line before the first cut: the first tag line is later
        return None
    offset = 0
    for part, state in zip(games, states):
        if offset:
            for col in (LINE, BAD, REPEAT, REPEAT_FIRST):
                given = part[:, col] >= 0
                part[given, col] += offset
        offset += int(state[9])
    first = states[0]
    pre = np.array([*first[:5], sum(int(s[5]) for s in states)], np.int64)
    return np.concatenate(games), pre


def _repeated_tags(buf: np.ndarray, rows: np.ndarray) -> pl.Expr | pl.Series:
    """``_repeat_detail`` per game: for a game whose wanted tag is given twice with
    different values (the scan's REPEAT columns), "tag White given twice with different
    values ('A5' on line 3, 'Z5' on line 5)"; else null. Both values as written (blanks
    at their ends dropped, backslash escapes undone)."""
    from arpad.kernels.pgn_scan import REPEAT, REPEAT_FIRST, REPEAT_TAG, REPEAT_VALUE, VALUES

    at = np.flatnonzero(rows[:, REPEAT] >= 0)
    if not at.size:  # the common case: no column to build
        return pl.lit(None, dtype=pl.String).alias("_repeat_detail")
    detail: list[str | None] = [None] * rows.shape[0]
    for r in at.tolist():
        k = int(rows[r, REPEAT_TAG])
        values = []
        for col in (VALUES + 2 * k, REPEAT_VALUE):
            raw = bytes(buf[rows[r, col] : rows[r, col + 1]]).decode("utf-8", errors="replace")
            values.append(re.sub(r'\\([\\"])', r"\1", raw.strip(" \t")))
        detail[r] = (
            f"tag {TAGS[k]} given twice with different values ({values[0]!r} on line "
            f"{int(rows[r, REPEAT_FIRST])}, {values[1]!r} on line {int(rows[r, REPEAT])})"
        )
    return pl.Series("_repeat_detail", detail, dtype=pl.String)


_LINE_END = re.compile(rb"\r\n|\r|\n")
_LEADING_TAGS = re.compile(rb'(?:\s*\[\s*[A-Za-z0-9_]+\s*"[^"\r\n]*"\s*\])+')


def _line_texts(data: bytes, wanted: list[int]) -> dict[int, bytes]:
    """The bytes of each line (numbers ``wanted``) of ``data``: counted a MiB at a time,
    then line by line in the MiB holding the line (only for malformed tag lines)."""
    out: dict[int, bytes] = {}
    line, pos, n = 1, 0, len(data)
    for target in sorted(set(wanted)):
        while line < target:
            end = min(pos + (1 << 20), n)
            if end < n and data[end - 1] == 13:  # a CR LF is not cut
                end += 1
            k = data.count(b"\n", pos, end) + data.count(b"\r", pos, end)
            k -= data.count(b"\r\n", pos, end)
            if line + k < target and end < n:
                pos, line = end, line + k
                continue
            step = _LINE_END.search(data, pos)
            if step is None:
                break
            pos, line = step.end(), line + 1
        stop = _LINE_END.search(data, pos)
        out[target] = data[pos : stop.start() if stop else n]
    return out


def _games_on_one_line(data: bytes, rows: np.ndarray) -> pl.Expr | pl.Series:
    """``_one_line`` per game: for a game whose malformed tag line holds its tags and
    then movetext (a whole game on one line; several games when a termination marker
    is followed by another tag pair on it), the malformed_row detail saying so; else
    null ("malformed tag line N"). The scan reads a line as tags or as movetext, so such
    a line is one malformed row; the detail counts the games in it (docs/pgn-trf.md
    "Historian's sources, round 9")."""
    from arpad.kernels.pgn_scan import BAD

    at = np.flatnonzero(rows[:, BAD] >= 0)
    if not at.size:  # the common case: no column to build
        return pl.lit(None, dtype=pl.String).alias("_one_line")
    texts = _line_texts(data, rows[at, BAD].tolist())
    detail: list[str | None] = [None] * rows.shape[0]
    for r in at.tolist():
        n = int(rows[r, BAD])
        text = texts.get(n, b"").strip()
        tags = _LEADING_TAGS.match(text)
        rest = text[tags.end() :].strip() if tags else b""
        if not rest or rest.startswith(b"["):
            continue
        k = 1 + len(_MARKER_THEN_TAG.findall(text))
        expected = 'expected [Tag "value"] lines, then the movetext on lines of its own'
        detail[r] = (
            f"malformed tag line {n}: it holds {k} games, each one's tags, movetext and "
            f"termination marker on the one line ({expected}); none of them was read: "
            "start each game's tags and its movetext on new lines"
            if k > 1
            else f"malformed tag line {n}: movetext follows the tags on the same line ({expected})"
        )
    return pl.Series("_one_line", detail, dtype=pl.String)


def read_pgn(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    # The compiled scan (and Numba) loads with the first PGN file read, not with
    # every command that registers the reader (docs/runners.md "Start-up").
    from arpad.kernels.pgn_scan import (
        BAD,
        CASE,
        DIGEST,
        LAST,
        LINE,
        MARKER,
        MARKERS,
        MOVE,
        NO_MOVES,
        VALUES,
    )

    if kind == "players":
        raise InputError(path, None, "a PGN file holds games, not a players list")
    notes: list[str] = []
    raw_bytes = load_bytes(path, notes)
    if _blank(raw_bytes):
        raise InputError(path, 1, "empty file: no PGN games")
    source = path.name
    buf = np.frombuffer(raw_bytes, np.uint8)
    rows, pre = scan(buf)
    pre_n, pre_line, pre_a, pre_b, first_kept, n_tag_lines = (int(x) for x in pre)
    if n_tag_lines == 0:
        first = first_kept if first_kept > 0 else 1
        raise InputError(path, first, 'no PGN tag pairs ([Tag "value"]) found: not a PGN file')

    other_case = int((rows[:, CASE] == 1).sum())
    if other_case:  # a converter's `[white "…"]`: read as White (the scan folds case)
        notes.append(
            f"{other_case} game(s) with tag names in another case than the PGN standard's "
            "([white …] read as [White …])"
        )
    problems: list[tuple[int, str, str, str]] = []
    if pre_n:
        problems.append(
            (
                pre_line,
                Reason.MALFORMED_ROW,
                f"{pre_n} line(s) of text before the first tag section",
                raw_bytes[pre_a:pre_b].decode("utf-8")[:200],
            )
        )

    # Per game: the first value of each tag (backslash escapes undone), as string
    # columns cut from the file's bytes.
    series, column_bytes = _strings(buf, rows, VALUES, len(TAGS))
    games = pl.DataFrame(
        [pl.Series("_line", rows[:, LINE])]
        + [s.alias(t) for s, t in zip(series, TAGS)]
        + [pl.Series("_bad_tag_line", rows[:, BAD])]
    )
    # A wanted tag given twice with different values (`[White "A5"]`, later `[White
    # "Z5"]`): which one is the game's is not known, so the game is quarantined naming
    # both lines (the scan keeps the first value; python-chess would keep the last).
    games = games.with_columns(_repeated_tags(buf, rows), _games_on_one_line(raw_bytes, rows))
    # The key tags' bytes say cheaply whether a name can need NFC or a run of blanks
    # made one (a few ms, against ~0.1 s for the string checks on every game)
    key_bytes = [column_bytes[TAGS.index(t)] for t in KEY_TAGS]
    key_ascii = all(not (b >= 128).any() for b in key_bytes)
    key_blank_runs = (
        any((b == 9).any() or ((b[:-1] == 32) & (b[1:] == 32)).any() for b in key_bytes)
        or (  # a Unicode space (no-break U+00A0; U+1680, U+2000-U+205F, U+3000: roughly)
            not key_ascii
            and any(
                ((b[:-1] == 0xC2) & (b[1:] == 0xA0)).any()
                or ((b[:-1] == 0xE2) & (b[1:] <= 0x81)).any()
                or (b == 0xE1).any()
                or (b == 0xE3).any()
                for b in key_bytes
            )
        )
    )

    def unescape(col: str) -> pl.Expr:
        v = pl.col(col)
        return (
            pl.when(v.str.contains("\\", literal=True))
            .then(v.str.replace_all(r"\\([\\\"])", "$1"))
            .otherwise(v)
            .alias(col)
        )

    # Movetext (the kernel follows its comments): a move outside the comments, and
    # the termination marker ending the game (text after it: rows of their own).
    move = rows[:, MOVE]
    marker = _after_marker(raw_bytes, rows, rows[:, MARKER], problems)
    marker = _old_markers(buf, rows, marker, notes)
    tag_after = _tag_after_marker(buf, rows, marker)
    bad_tag = pl.col("_bad_tag_line").is_not_null()
    repeated = pl.col("_repeat_detail").is_not_null()
    truncated = pl.col("_marker").is_null()
    mismatch = (
        pl.col("Result").is_not_null()
        & (pl.col("Result") != "")
        & (pl.col("Result") != pl.col("_marker"))
    )
    games = (
        games.lazy()
        .with_columns(
            *(unescape(t) for t in TAGS),
            pl.when(pl.col("_bad_tag_line") >= 0)
            .then(pl.col("_bad_tag_line"))
            .alias("_bad_tag_line"),
            pl.Series("_has_move", move == 1),
            # the moves' digest (kernels/pgn_scan.py; docs/pgn-trf.md "Move digest")
            pl.Series("_moves", rows[:, DIGEST]),
            pl.Series("_movetext", rows[:, LAST] >= 0),
            tag_after,
            pl.Series("_marker", marker).replace_strict(
                dict(enumerate(MARKERS)), return_dtype=pl.String
            ),
        )
        .with_columns(
            # a missing tag is "?" (a null would make the whole text null)
            pl.format(
                "{} - {} {} ({}, {}, round {})",
                *(
                    pl.col(t).fill_null("?")
                    for t in ("White", "Black", "Result", "Event", "Date", "Round")
                ),
            ).alias("_raw"),
            pl.col("Date").alias("_date_tag"),
            pl.col("EventDate").alias("_event_date_tag"),
        )
        .with_columns(
            # an empty Result tag is a missing one: the marker gives the result
            pl.col("Result").str.strip_chars().replace(OLD_RESULTS).replace("", None),
            pl.when(pl.col("_moves") != int(NO_MOVES)).then(pl.col("_moves")).alias("_moves"),
        )
        # one spelling per name: "Réti" composed (NFC) or decomposed (NFD, as macOS
        # tools write it) is the same player and the same game key
        .with_columns(*([] if key_ascii else [pl.col(*KEY_TAGS).str.normalize("NFC")]))
        .with_columns((bad_tag | repeated | truncated | mismatch).alias("_bad"))
        .collect()
    )
    # The file's bytes and the scan's rows are in the frame now: let them go before the
    # steps below build their columns (read_pgn of a 220 MB file peaked at 1.04 GB, 0.66 now)
    del raw_bytes, buf, rows, move, marker, series, column_bytes, key_bytes
    # A Result tag that is no code of the standard (`0-0`, a double loss; `1/2`) says
    # what is wrong even when the movetext then ends without a marker (it ends with
    # that same text): unknown_result, not "file truncated?" (docs/pgn-trf.md)
    codes = ["1-0", "0-1", "1/2-1/2", "*"]
    odd = pl.col("Result").is_not_null() & (pl.col("Result") != "") & ~pl.col("Result").is_in(codes)
    header_only = truncated & ~pl.col("_movetext")
    if _odd_dates(games):  # the rewrite costs ~10% of a read: only files that need it
        games = games.with_columns(_dates_as_written())
    if key_blank_runs and _blanks_inside(games, KEY_TAGS):
        games = games.with_columns(pl.col(*KEY_TAGS).str.replace_all(r"[\t\p{Zs}]+", " "))
    games, not_stored, not_stored_lines = _without_byes(games, bad_tag | repeated, notes)
    bad = games.filter(pl.col("_bad")).with_columns(
        pl.when(bad_tag | repeated)
        .then(pl.lit(Reason.MALFORMED_ROW))
        .when(header_only)
        .then(pl.lit(Reason.TRUNCATED_GAME))
        .when(odd)
        .then(pl.lit(Reason.UNKNOWN_RESULT))
        .when(truncated)
        .then(pl.lit(Reason.TRUNCATED_GAME))
        .otherwise(pl.lit(Reason.RESULT_MISMATCH))
        .alias("_reason"),
        pl.when(bad_tag)
        .then(
            pl.coalesce(
                "_one_line",
                pl.format('malformed tag line {} (expected [Tag "value"])', "_bad_tag_line"),
            )
        )
        .when(repeated)
        .then(pl.col("_repeat_detail"))
        .when(header_only)
        .then(pl.lit("tags without movetext (no moves, no termination marker)"))
        .when(odd)
        .then(
            pl.format(
                "unknown result code {} in the Result tag (the PGN standard's: "
                "1-0, 0-1, 1/2-1/2, *)",
                "Result",
            )
        )
        .when(truncated & pl.col("_tag_after").is_not_null())
        .then(pl.col("_tag_after"))
        .when(truncated)
        .then(pl.lit("no game termination marker (1-0, 0-1, 1/2-1/2, *): file truncated?"))
        .otherwise(pl.format("Result tag {} but the movetext ends with {}", "Result", "_marker"))
        .alias("_detail"),
    )
    for row in bad.select("_line", "_reason", "_detail", "_raw").iter_rows():
        problems.append((int(row[0]), row[1], row[2], row[3]))
    games = games.filter(~pl.col("_bad"))

    pool = pl.coalesce(
        _map_unique("TimeControl", games, time_control_pool),
        _map_unique("Event", games, event_pool),
    )
    # names and FIDE ids become player ids here: without invisible characters (readers.py)
    games = readers.without_invisible(games, notes, INVISIBLE_TAGS)
    games = _identity(
        games.with_columns(pl.coalesce(pl.col("Result"), pl.col("_marker")).alias("Result")),
        source,
    )
    date, period, precision = _date_and_period("Date")
    edate, eperiod, eprecision = _date_and_period("EventDate")
    date_known = date.is_not_null() | period.is_not_null()
    games = games.with_columns(
        pl.when(date_known).then(date).otherwise(edate).alias("date"),
        pl.when(date_known).then(period).otherwise(eperiod).alias("period"),
        pl.when(date_known).then(precision).otherwise(eprecision).alias("date_precision"),
        pool.alias("pool"),
        pl.when(date_known).then(pl.lit("Date")).otherwise(pl.lit("EventDate")).alias("_date_from"),
    )

    # A game no tag places in time: quarantined here, where the tags as written can be
    # named (validation would only say "neither date nor period given")
    undated = games.filter(pl.col("date").is_null() & pl.col("period").is_null())
    for row in undated.select("_line", "_date_tag", "_event_date_tag", "_raw").iter_rows():
        tags = [
            (t, v.strip()) for t, v in (("Date", row[1]), ("EventDate", row[2])) if v is not None
        ]
        # an empty tag (`[Date ""]`) is named as one: "no Date tag" sent the user looking
        # for a tag that is there
        said = [f"{t} tag '' is empty" for t, v in tags if not v]
        written = [f"{t} tag {v!r}" for t, v in tags if v]
        if written:
            said.append(f"{' and '.join(written)} give{'s' if len(written) == 1 else ''} no year")
        detail = (
            f"{' and '.join(said)}: the game cannot be placed in a period"
            if said
            else "no Date or EventDate tag: the game cannot be placed in a period"
        )
        problems.append((int(row[0]), Reason.MISSING_PERIOD, detail, row[3]))
    games = games.filter(pl.col("date").is_not_null() | pl.col("period").is_not_null())
    games = _drop_bad_dates(games, problems)
    games = _event_dated(games)

    def elo(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.is_in(UNRATED_ELO)).then(None).otherwise(v)

    frame = games.select(
        game_key().alias("game_id"),
        "date",
        "period",
        "date_precision",
        "pool",
        pl.col("_white_id").alias("white_id"),
        pl.col("_black_id").alias("black_id"),
        pl.col("Result").alias("result"),
        pl.when(pl.col("_has_move") & ~_variant() & ~_set_up())
        .then(None)
        .otherwise(pl.lit("false"))
        .alias("rated"),
        pl.col("Event").alias("event_id"),
        elo("WhiteElo").alias("white_rating"),
        elo("BlackElo").alias("black_rating"),
        pl.col("_moves").alias("moves_digest"),
        "_line",
        "_raw",
        # the round, for the note on repeated rows (ingest._repeated_rows_note): two
        # games of a match dated to the year only are told apart by it (no stored column)
        pl.col("Round").str.strip_chars().replace(["", "?", "-"], None).alias("_round"),
        # a game of chess rated but for its moves (``rate_moveless``; validation drops it)
        (~pl.col("_has_move") & ~_variant() & ~_set_up()).alias(MOVELESS),
        # why a game is not rated, for the notes on them (``_unrated_notes``)
        "_has_move",
        pl.when(_variant()).then(pl.col("Variant").str.strip_chars()).alias("_variant_tag"),
        _set_up().alias("_set_up"),
    ).sort("_line")
    frame = _same_key_other_game(frame, problems)
    players = _players(games, frame, source)
    notes.extend(_twin_notes(games, players))
    notes.extend(_unrated_notes(frame))
    unknown = games.filter(pl.col("_wn").is_null() | pl.col("_bn").is_null()).height
    if unknown:
        notes.append(
            f"{unknown} game(s) against an unknown player (name '?', 'NN', 'N.N.', "
            "'Amateur', 'Unknown' or 'Anonymous'; '-' against no name): "
            "quarantined, a placeholder is nobody's id"
        )
    return RawTable(
        path,
        "pgn",
        "games",
        frame,
        None,
        problems,
        notes,
        players,
        not_stored=not_stored,
        not_stored_lines=not_stored_lines,
    )


def _without_byes(
    games: pl.DataFrame, malformed: pl.Expr, notes: list[str]
) -> tuple[pl.DataFrame, dict[str, int], dict[str, list[int]]]:
    """``games`` without the byes: a White or Black name of ``readers.BYE_IDS``
    (``[Black "BYE"]``, ``[White "(bye)"]``, ``[Black "-"]``; any case, spaces around
    ignored, the whole name: "Byers, John" is a player) against a name, whatever the
    result, counted and noted as the CSV reader does (``readers.without_non_games``,
    docs/ingest.md "Byes and double forfeits"). Before, ``BYE`` was stored as a player
    with rated games. A game with a malformed or repeated tag stays quarantined. The
    exact look runs only on the games whose names hold a marker (one literal search:
    ~5-10 ms per 100k games)."""
    marker = [
        pl.col(t).str.contains_any(list(readers.BYE_IDS), ascii_case_insensitive=True)
        for t in ("White", "Black")
    ]
    named = (
        games.lazy()
        .with_row_index("_row")
        .filter(pl.any_horizontal(marker).fill_null(False) & ~malformed.fill_null(False))
        .select(
            pl.col("White").alias("white_id"), pl.col("Black").alias("black_id"), "_line", "_row"
        )
        .collect()
    )
    if not named.height:
        return games, {}, {}
    kept, not_stored, lines = readers.without_non_games(named, "games", notes)
    if not not_stored:
        return games, {}, {}
    bye = np.zeros(games.height, dtype=bool)
    bye[named.get_column("_row").to_numpy()] = True
    bye[kept.get_column("_row").to_numpy()] = False
    return games.filter(pl.Series(~bye)), not_stored, lines


def _same_key_other_game(frame: pl.DataFrame, problems: list) -> pl.DataFrame:
    """``frame`` without the games whose game id (``game_key``: the six tags) is that of
    an earlier game of the file with other moves or another result: quarantined
    ``duplicate_game_id`` here, whose detail says how they differ and how to keep
    both (the id rule stays: stored games depend on it). An exact copy is left to
    validation ("game_id … already on line N", a game pasted twice)."""
    keyed = pl.col("game_id").is_not_null()
    if frame.filter(keyed).get_column("game_id").is_unique().all():
        return frame
    first = pl.col("_line").min().over("game_id")
    at_first = pl.col("_line") == first

    def of_first(col: str) -> pl.Expr:
        return pl.col(col).filter(at_first).first().over("game_id")

    other_moves = pl.col("moves_digest").ne_missing(of_first("moves_digest"))
    other_result = pl.col("result") != of_first("result")
    seen = frame.with_columns(
        first.alias("_first"),
        other_moves.alias("_other_moves"),
        of_first("result").alias("_first_result"),
        (of_first("moves_digest").is_null() & pl.col("moves_digest").is_null()).alias("_none"),
    ).with_columns(
        (keyed & ~at_first & (other_moves | other_result)).fill_null(False).alias("_other")
    )
    other = seen.filter(pl.col("_other"))
    for row in other.iter_rows(named=True):
        results = f"{row['_first_result']} there, {row['result']} here"
        if row["_other_moves"]:
            how = "other moves" + (
                f" and another result ({results})" if row["result"] != row["_first_result"] else ""
            )
            detail = (
                f"game_id {row['game_id']} already on line {row['_first']}, with {how}: "
                "another game with the same Event, Site, Date, Round, White and Black "
                "tags (they make its id); a distinct Round tag for each game (e.g. "
                '"1.1" and "1.2") keeps both (docs/pgn-trf.md "Historian\'s sources, '
                'round 7")'
            )
        else:
            moves = "neither has moves" if row["_none"] else "the same moves"
            detail = (
                f"game_id {row['game_id']} already on line {row['_first']}, {moves} but "
                f"another result ({results}): the game twice, one result mistyped? "
                "Correct it (or, for another game, give it a distinct Round tag) and "
                "ingest the file again"
            )
        problems.append((int(row["_line"]), Reason.DUPLICATE_GAME_ID, detail, row["_raw"]))
    return frame.filter(~seen.get_column("_other"))


def _drop_bad_dates(games: pl.DataFrame, problems: list) -> pl.DataFrame:
    """``games`` without those whose date is written in no form ``_date_and_period``
    reads (``19.07.1858``) or is no calendar date (``1858.13.01``, also with the day
    unknown: ``1858.13.??``): quarantined ``bad_date`` here, naming the tag it came from
    as written and the standard's form (validation would say YYYY-MM-DD, a CSV's form,
    or, for a month-only date, that period 185813 is out of range)."""
    day = pl.col("date").str.replace_all(r"[./]", "-")
    month = pl.col("period").str.slice(4, 2).cast(pl.Int64, strict=False)
    wrong = (
        pl.col("date").is_not_null() & day.str.strptime(pl.Date, "%Y-%m-%d", strict=False).is_null()
    ) | ((pl.col("date_precision") == "month") & ~month.is_between(1, 12)).fill_null(False)
    bad = games.filter(wrong)
    if not bad.height:
        return games
    for row in bad.select(
        "_line", "_date_from", "_date_tag", "_event_date_tag", "_raw"
    ).iter_rows():
        written = (row[2] if row[1] == "Date" else row[3]) or ""
        detail = (
            f"{row[1]} tag {written.strip()!r} is not a valid date in the PGN form YYYY.MM.DD "
            "(?? for an unknown month or day: YYYY.MM.??, YYYY.??.??)"
        )
        problems.append((int(row[0]), Reason.BAD_DATE, detail, row[4]))
    return games.filter(~wrong)


def _event_dated(games: pl.DataFrame) -> pl.DataFrame:
    """``games`` with those dated by their EventDate only (no Date) placed as year-only
    games of the event's year: the EventDate is the event's first day, a lower bound of
    the game's date, not its date, so the game gets no date, the period of its year's
    last month (``_year_end``) and precision ``year`` (docs/pgn-trf.md "Historian's
    sources, round 9"). Called after ``_drop_bad_dates``: an EventDate in no PGN form
    stays ``bad_date``."""
    from_event = pl.col("_date_from") == "EventDate"
    year = pl.coalesce(pl.col("date"), pl.col("period")).str.slice(0, 4)
    return games.with_columns(
        pl.when(from_event).then(None).otherwise(pl.col("date")).alias("date"),
        pl.when(from_event).then(_year_end(year)).otherwise(pl.col("period")).alias("period"),
        pl.when(from_event)
        .then(pl.lit("year"))
        .otherwise(pl.col("date_precision"))
        .alias("date_precision"),
    )


MOVELESS = "_moveless"  # read_pgn's frame: the game would be rated but has no moves


def _moveless_note(moveless: pl.DataFrame, rated: bool) -> str:
    """The summary's note on games without moves: a forfeit or a result whose moves were
    not kept (a crosstable) cannot be told apart in a PGN (docs/pgn-trf.md)."""
    draws = moveless.filter(pl.col("result") == "1/2-1/2").height
    of_them = f", {draws} of them draws" if draws else ""
    if rated:
        return (
            f"{moveless.height} game(s) without moves{of_them}: stored and rated "
            "(--rate-moveless: results whose moves were not kept)"
        )
    return (
        f"{moveless.height} game(s) without moves (a forfeit, or a result whose moves were "
        f"not kept){of_them}: stored, not rated (--rate-moveless rates them)"
    )


def rate_moveless(raw: RawTable) -> RawTable:
    """``arpad ingest --rate-moveless``: a PGN file's games without moves stored as rated
    games (a historical collection's results whose moves were not kept: crosstables).
    A game of another variant or from a set-up position stays unrated; other formats
    are returned as they are (a TRF marks its forfeits). The note on them says so."""
    if raw.format != "pgn" or MOVELESS not in raw.frame.columns:
        return raw
    moveless = raw.frame.filter(pl.col(MOVELESS))
    if not moveless.height:
        return raw
    frame = raw.frame.with_columns(
        pl.when(pl.col(MOVELESS)).then(None).otherwise(pl.col("rated")).alias("rated")
    )
    notes = _replaced(raw.notes, _unrated_notes(frame))
    return dataclasses.replace(raw, frame=frame, notes=notes)


# The notes on games stored but not rated (``_unrated_notes``): replaced by
# ``stored_notes`` once the stored games are known.
UNRATED_NOTE = re.compile(r"\d+ game\(s\) (?:without moves|of another variant|from a set-up)")


def _unrated_notes(frame: pl.DataFrame, kept: pl.Expr | None = None) -> list[str]:
    """The notes on the games of ``frame`` (read_pgn's) stored not rated: without moves
    (or rated, ``rate_moveless``), of another variant, from a set-up position
    (docs/pgn-trf.md). Counted among the games ``kept`` selects, else those that can be
    stored: not a game against an unknown player (no id) or with the result "*"
    (quarantined); ``stored_notes`` counts the games stored."""
    unrated = pl.col("rated").is_not_null() | pl.col(MOVELESS)
    # --rate-moveless was given when a game without moves is rated (in the whole file)
    rated = frame.select((pl.col(MOVELESS) & pl.col("rated").is_null()).any()).item()
    if kept is None:
        kept = (
            pl.col("white_id").is_not_null()
            & pl.col("black_id").is_not_null()
            & (pl.col("result") != "*")
        )
    # only the games not rated, and only the columns the notes read
    columns = ["result", "rated", MOVELESS, "_has_move", "_variant_tag", "_set_up"]
    games = frame.lazy().filter(unrated & kept).select(columns).collect()
    notes = []
    moveless = games.filter(
        pl.col(MOVELESS) & pl.col("rated").is_null() if rated else ~pl.col("_has_move")
    )
    if moveless.height:
        notes.append(_moveless_note(moveless, rated=rated))
    variants = games.filter(pl.col("_has_move"))["_variant_tag"].drop_nulls()
    if variants.len():
        names = ", ".join(sorted(set(variants.to_list())))
        notes.append(
            f"{variants.len()} game(s) of another variant (Variant tag: {names}): stored, not rated"
        )
    set_up = games.filter(
        pl.col("_has_move") & pl.col("_variant_tag").is_null() & pl.col("_set_up")
    ).height
    if set_up:
        notes.append(
            f"{set_up} game(s) from a set-up position (FEN other than the initial position: "
            "odds games, studies): stored, not rated"
        )
    return notes


def stored_notes(notes: list[str], frame: pl.DataFrame, accepted: pa.Table) -> list[str]:
    """``notes`` with the notes on games stored not rated (``_unrated_notes``) counting
    the ``accepted`` games only (``arpad ingest``'s "games stored": after validation and
    the duplicates taken out), in the place of the reader's: a game quarantined is not
    "stored, not rated" (docs/pgn-trf.md "Reading PGN")."""
    if (
        accepted.num_rows == frame.height
        or "_variant_tag" not in frame.columns
        or not any(UNRATED_NOTE.match(n) for n in notes)
    ):  # every game stored, none unrated (or not read_pgn's frame): the reader's notes
        return notes
    # an accepted game's source is "<source>:<line>"
    line = pl.from_arrow(accepted.column("source")).str.extract(r":(\d+)$").cast(pl.Int64)
    stored = pl.col("_line").cast(pl.Int64).is_in(line.implode())
    return _replaced(notes, _unrated_notes(frame, stored))


def _replaced(notes: list[str], fresh: list[str]) -> list[str]:
    """``notes`` with ``fresh`` in the place of the notes ``UNRATED_NOTE`` matches."""
    at = next((i for i, n in enumerate(notes) if UNRATED_NOTE.match(n)), len(notes))
    kept = [n for n in notes if not UNRATED_NOTE.match(n)]
    return kept[:at] + fresh + kept[at:]


# Termination markers of old databases and print-era collections (``½-½``, ``1:0``):
# read as the standard's marker they mean (docs/pgn-trf.md "Historian's sources, round
# 6"); also as Result tag values. Code = the kernel's MARKER code (kernels/pgn_scan.py).
OLD_MARKERS = {"½-½": 3, "½:½": 3, "1:0": 1, "0:1": 2}
OLD_RESULTS = {"½-½": "1/2-1/2", "½:½": "1/2-1/2", "1:0": "1-0", "0:1": "0-1"}
_OLD_MARKER_BYTES = [(k.encode(), v) for k, v in OLD_MARKERS.items()]


def _old_markers(buf: np.ndarray, rows: np.ndarray, marker: np.ndarray, notes: list[str]):
    """``marker`` (the scan's MARKER codes) with the games whose movetext ends with an old
    database's marker (``OLD_MARKERS``, a word of its own) given the standard code it
    means; a note counts them. Only games without a standard marker are looked at."""
    from arpad.kernels.pgn_scan import LAST

    todo = np.flatnonzero((marker == 0) & (rows[:, LAST] >= 0))
    if not todo.size:
        return marker
    out = marker.copy()
    found = 0
    for r in todo:
        a, b = int(rows[r, LAST]), int(rows[r, LAST + 1])
        text = buf[max(a, b - 16) : b].tobytes().rstrip()
        for word, code in _OLD_MARKER_BYTES:
            at = len(text) - len(word)
            if text.endswith(word) and (at == 0 or text[at - 1 : at] in b" \t.)}"):
                out[r] = code
                found += 1
                break
    if found:
        notes.append(
            f"{found} game(s) end with an old database's termination marker "
            "(½-½, 1:0, 0:1, ½:½): read as 1/2-1/2, 1-0, 0-1"
        )
    return out


# A termination marker, then a tag pair on the same line: the next game's tag section
# begun on the movetext's last line (`1/2-1/2 [Event "E"]`), which the standard does
# not allow (a tag pair is on a line of its own, §8.1) and the scan reads as movetext.
_MARKER_THEN_TAG = re.compile(
    rb'(?:^|[\s.)}])(1-0|0-1|1/2-1/2|\*)\s*(\[[A-Za-z0-9_]+\s*"[^"\r\n]*"\s*\])'
)


# The text after a game's termination marker (``_after_marker``), as tokens: a comment
# (``{ }``, one left open ends with its line as in the scan; ``;`` to the line's end),
# a parenthesis, or a word.
_AFTER_TOKEN = re.compile(rb"\{[^{}]*\}|\{[^\r\n]*|;[^\r\n]*|[()]|[^\s(){};]+")
# A move in SAN as a word of the text (a move number glued to it, marks after it): the
# words that make the text after a marker a game's movetext, not prose ("Source: …").
_SAN = re.compile(
    rb"^(?:\d+\.+)?(?:[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](?:x[a-h])?[1-8](?:=?[QRBN])?"
    rb"|[O0]-[O0](?:-[O0])?)[+#]?[!?]*$"
)
_STANDARD_MARKERS = (b"1-0", b"0-1", b"1/2-1/2", b"*")
_TAG_FIRST = re.compile(rb'\[[A-Za-z0-9_]+\s*"')


def _after_marker(data: bytes, rows: np.ndarray, marker: np.ndarray, problems: list):
    """``marker`` (the scan's MARKER codes; ``data`` the file's bytes), with the text
    outside comments after a game's first termination marker (the scan's ``AFTER``)
    quarantined as rows of its own in ``problems``: a game ends at its marker (PGN
    Standard §8.2.6), so what follows before the next tag section is a game that lost
    its tags (a move in it: "movetext without tags after the game ending at line N")
    or stray text (a source line: "text after the termination marker 1-0 on line N:
    …"), one row per part ended by a marker, as python-chess reads each as a game (it
    was read as the game's own movetext, the result then the last marker's). A tag
    pair right after the marker (`1/2-1/2 [Event "E"]`) is left to
    ``_tag_after_marker``: that game keeps no marker, as before (round 7)."""
    from arpad.kernels.pgn_scan import AFTER, FIRST, LAST

    todo = np.flatnonzero(rows[:, AFTER] >= 0)
    if not todo.size:
        return marker
    out = marker.copy()
    line, counted = 1, 0  # line breaks counted up to byte ``counted`` (games in file order)

    def line_at(at: int) -> int:
        nonlocal line, counted
        line += readers.line_breaks(data[counted:at], at - counted)
        counted = at
        return line

    for r in todo.tolist():
        after, end = int(rows[r, AFTER]), int(rows[r, LAST + 1])
        if _TAG_FIRST.match(data, after):
            out[r] = 0
            continue
        end_line = line_at(int(rows[r, FIRST]))
        end_marker = data[rows[r, FIRST] : rows[r, FIRST + 1]].decode()
        part: list | None = None  # [start, has a move, marker's start, marker's end]
        parts = []
        depth = 0
        for token in _AFTER_TOKEN.finditer(data, after, end):
            word = token.group()
            if word[:1] in (b"{", b";"):
                continue
            if part is None:
                part = [token.start(), False, -1, -1]
            if word == b"(":
                depth += 1
            elif word == b")":
                depth = max(depth - 1, 0)
            elif depth == 0 and word in _STANDARD_MARKERS:
                part[2:] = token.start(), token.end()
                parts.append(part)
                part = None
            elif depth == 0 and _SAN.match(word):
                part[1] = True
        if part is not None:
            parts.append([*part[:2], -1, end])
        for start, moves, mark_at, stop in parts:
            first = line_at(start)
            text = data[start:stop].decode("utf-8", errors="replace")
            shown = " ".join(text.split())
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            if moves:
                detail = (
                    f"movetext without tags after the game ending at line {end_line}: a "
                    "game ends at its termination marker (PGN Standard §8.2.6), so this "
                    "is another game, whose tag section is missing"
                )
            else:
                detail = (
                    f"text after the termination marker {end_marker} on line {end_line}: "
                    f"{shown!r} is no movetext (a note belongs in a {{ }} comment)"
                )
            problems.append((first, Reason.MALFORMED_ROW, detail, text.strip()[:200]))
            if mark_at >= 0:
                end_line = line_at(mark_at)
                end_marker = data[mark_at:stop].decode()
    return out


def _tag_after_marker(buf: np.ndarray, rows: np.ndarray, marker: np.ndarray) -> pl.Series:
    """``_tag_after`` per game: for a game without a termination marker whose movetext's
    last line holds one followed by a tag pair, the truncated_game detail saying so
    (the marker is there: "file truncated?" sent the user looking for lost moves);
    else null. Only games without a marker are looked at."""
    from arpad.kernels.pgn_scan import LAST

    detail: list[str | None] = [None] * rows.shape[0]
    line, counted = 1, 0  # line breaks counted up to byte ``counted`` (games in file order)
    for r in np.flatnonzero((marker == 0) & (rows[:, LAST] >= 0)).tolist():
        a, b = int(rows[r, LAST]), int(rows[r, LAST + 1])
        found = _MARKER_THEN_TAG.search(buf[a:b].tobytes())
        if found is None:
            continue
        line += readers.line_breaks(buf[counted:a].tobytes(), a - counted)
        counted = a
        tag = found.group(2).decode("utf-8", errors="replace")
        detail[r] = (
            f"the termination marker {found.group(1).decode()} on line {line} is followed by "
            f"the tag {tag} on the same line: the next game's tags must start on a line of "
            "their own (the next game was read without that tag)"
        )
    return pl.Series("_tag_after", detail, dtype=pl.String)


def _variant() -> pl.Expr:
    """True for a game whose Variant tag names another game than chess (Chess960, …)."""
    v = pl.col("Variant").str.strip_chars().str.to_lowercase()
    return v.is_not_null() & ~v.is_in(CHESS_VARIANTS)


def _set_up() -> pl.Expr:
    """True for a game whose FEN tag is not the initial position."""
    v = pl.col("FEN").str.replace_all(r"\s+", " ").str.strip_chars()
    return v.is_not_null() & (v != "") & ~v.str.starts_with(INITIAL_POSITION)


# The tags player ids and game ids are made of (``_identity``, ``game_key``).
INVISIBLE_TAGS = ("White", "Black", "WhiteFideId", "BlackFideId", "Event", "Site", "Round")


def _identity(games: pl.DataFrame, source: str) -> pl.DataFrame:
    """White/Black player ids: FIDE id when the file gives one for that name, else source:name."""

    def fide(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.str.contains(r"^\d+$") & ~v.str.contains(r"^0+$")).then(
            v.str.replace(r"^0+", "")
        )

    def name(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when((v == "") | v.str.contains(UNKNOWN_NAME)).then(None).otherwise(v)

    out = games.with_columns(
        name("White").alias("_wn"),
        name("Black").alias("_bn"),
        fide("WhiteFideId").alias("_wf"),
        fide("BlackFideId").alias("_bf"),
    )
    sides = pl.concat(
        [
            out.select(pl.col("_wn").alias("name"), pl.col("_wf").alias("fide_id")),
            out.select(pl.col("_bn").alias("name"), pl.col("_bf").alias("fide_id")),
        ]
    )
    # Per name, its FIDE ids in the file. A name with one id gives it to its games
    # without one; a name with two (111 on one game, 222 on another: namesakes, or a
    # typo) gives none: which of them plays an id-less game is not known, so that game
    # gets the file-scoped id (``_twin_notes`` says so; the first id seen was taken).
    by_name = (
        sides.filter(pl.col("name").is_not_null() & pl.col("fide_id").is_not_null())
        .group_by("name", maintain_order=True)
        .agg(pl.col("fide_id").unique(maintain_order=True).alias("_ids"))
    )
    for side, n in (("_white_id", "_wn"), ("_black_id", "_bn")):
        out = out.join(
            by_name.rename({"name": n, "_ids": f"{side}_ids"}),
            on=n,
            how="left",
            maintain_order="left",
        )
    return out.with_columns(
        pl.coalesce(
            pl.col(f),
            pl.when(pl.col(f"{side}_ids").list.len() == 1).then(pl.col(f"{side}_ids").list.first()),
            pl.lit(source + ":") + pl.col(n),
        ).alias(side)
        for side, n, f in (("_white_id", "_wn", "_wf"), ("_black_id", "_bn", "_bf"))
    )


TWIN_EXAMPLES = 3  # names (FIDE ids) a note on two ids (two names) gives


def _twin_notes(games: pl.DataFrame, players: pl.DataFrame) -> list[str]:
    """The notes on a name given two FIDE ids in the file (its games without an id are
    given none: ``_identity``) and on a FIDE id given under two names (one player, the
    players row keeps the name of his latest game: ``_players``); a typo in an id or a
    name, which only the user can tell (the TRF reader refuses a FIDE id on two lines)."""
    sides = pl.concat(
        [
            games.select(
                pl.col(n).alias("name"), pl.col(f).alias("fide_id"), pl.col(i).alias("_ids")
            )
            for n, f, i in (("_wn", "_wf", "_white_id_ids"), ("_bn", "_bf", "_black_id_ids"))
        ]
    ).filter(pl.col("name").is_not_null())
    notes = []
    twins = sides.filter(pl.col("fide_id").is_null() & (pl.col("_ids").list.len() > 1))
    if twins.height:
        named = twins.group_by("name", maintain_order=True).agg(pl.len(), pl.col("_ids").first())
        shown = "; ".join(
            f"{name!r}: FIDE ids {', '.join(ids)}, {k} game(s) without one"
            for name, k, ids in named.head(TWIN_EXAMPLES).iter_rows()
        )
        more = f" and {named.height - TWIN_EXAMPLES} more" if named.height > TWIN_EXAMPLES else ""
        notes.append(
            f"{named.height} name(s) with two or more FIDE ids in the file ({shown}{more}): "
            "who played a game without an id is not known, so it counts for none of them "
            "(the file's own player id for the name, as for a name without a FIDE id); "
            "give the id on those games, or arpad players merge KEEP DUPLICATE"
        )
    names = (
        sides.filter(pl.col("fide_id").is_not_null())
        .group_by("fide_id", maintain_order=True)
        .agg(pl.col("name").unique(maintain_order=True))
        .filter(pl.col("name").list.len() > 1)
    )
    if names.height:
        kept = dict(players.select("player_id", "name").iter_rows())
        shown = "; ".join(
            f"{fide} as {' and '.join(repr(n) for n in spelt)} (stored as {kept.get(fide)!r})"
            for fide, spelt in names.head(TWIN_EXAMPLES).iter_rows()
        )
        more = f" and {names.height - TWIN_EXAMPLES} more" if names.height > TWIN_EXAMPLES else ""
        notes.append(
            f"{names.height} FIDE id(s) under two or more names in the file ({shown}{more}): "
            "one player each, named as in his latest game; if a name belongs to someone "
            "else, the FIDE id on that game is a typo: correct it and ingest the file again"
        )
    return notes


def _players(games: pl.DataFrame, frame: pl.DataFrame, source: str) -> pl.DataFrame:
    """One raw players row per player id: name, title, FIDE rating of the earliest
    standard game in the file (the rating in force before the file's games)."""
    lazy = games.lazy().with_columns(
        pl.coalesce(pl.col("date").str.replace_all(r"\D", ""), pl.col("period") + "00").alias(
            "_when"
        ),
        (pl.col("pool").is_null() | (pl.col("pool") == "standard")).alias("_standard"),
    )

    def side(id_col, name_col, title_col, elo_col) -> pl.LazyFrame:
        rating = pl.col(elo_col).str.strip_chars()
        rating = pl.when(
            rating.cast(pl.Float64, strict=False).is_between(1.0, 3500.0) & pl.col("_standard")
        ).then(rating)
        return lazy.select(
            pl.col(id_col).alias("player_id"),
            pl.col(name_col).alias("name"),
            pl.col(title_col).str.strip_chars().replace("", None).alias("title"),
            rating.alias("rating"),
            "_when",
            "_line",
        )

    both = (
        pl.concat(
            [
                side("_white_id", "_wn", "WhiteTitle", "WhiteElo"),
                side("_black_id", "_bn", "BlackTitle", "BlackElo"),
            ]
        )
        .filter(pl.col("player_id").is_not_null())
        .collect()
    )
    return (
        both.sort("_when", "_line", nulls_last=True)
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("name").drop_nulls().last(),
            pl.col("title").drop_nulls().last(),
            pl.col("rating").drop_nulls().first(),
            pl.col("_line").min(),
        )
        # a bye against an empty name stays quarantined (empty_player_id), not a player
        .filter(~pl.col("name").str.to_lowercase().is_in(readers.BYE_IDS).fill_null(False))
        .with_columns(pl.format("{} (PGN tags)", pl.col("name")).alias("_raw"))
        .sort("_line")
    )


readers.READERS["pgn"] = read_pgn
readers.SUFFIXES.update({".pgn": "pgn", ".pgn.gz": "pgn", ".zip": "pgn", ".pgn.zip": "pgn"})
