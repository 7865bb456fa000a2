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
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
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
# A players file's columns of one pool's rating, in the pools' order (``pool_ratings``).
POOL_RATINGS = {"standard_rating": "standard", "rapid_rating": "rapid", "blitz_rating": "blitz"}
# The columns of a games file that name its players beside their ids (docs/ingest.md
# "Players' names in a games file", decided in round 14), after ``column_name``, in
# the order tried for each side: arpad's own ``white_name``, then a pairing program's
# or spreadsheet's ``WhiteName``, ``White Player``, ``Name White`` and the PGN tag
# ``White`` (which holds the id in a table without id columns, ``tag_aliases``).
NAME_HEADINGS = {
    "white_name": ("white_name", "whitename", "white_player", "name_white", "white"),
    "black_name": ("black_name", "blackname", "black_player", "name_black", "black"),
}


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
    # The first lines of the rows counted in ``not_stored`` by a CSV/Parquet reader
    # (byes, double forfeits: ``without_non_games``), for the summary's note.
    not_stored_lines: dict[str, list[int]] = field(default_factory=dict)
    # Rows of a Parquet/Arrow table with every field empty, skipped (a CSV's ",,,," lines).
    blank: int = 0
    # Id values that held invisible characters, by column (the note's counts; a
    # streamed file's slices add theirs up for one note, stream_ingest.py).
    invisible: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Whatever the reader (CSV, Parquet, PGN, TRF, a DataFrame given to the API),
        # ids come out without invisible characters (``INVISIBLE``).
        changed: dict[str, int] = {}
        self.frame = _visible(self.frame, INVISIBLE_COLUMNS, changed)
        if self.players is not None:
            self.players = _visible(self.players, INVISIBLE_COLUMNS, changed)
        if changed:
            self.notes.append(invisible_note(changed))
            self.invisible = {**self.invisible, **changed}


# Characters that show as nothing, picked up from a web page, a word processor or a
# right-to-left text (Unicode format characters, category Cf): the soft hyphen, the
# Mongolian vowel separator, the zero-width space, non-joiner and joiner, the
# left-to-right and right-to-left marks, the bidi embeddings, overrides and isolates,
# the word joiner and invisible operators, and the byte-order mark (zero-width
# no-break space). ``\u200bA`` looked like ``A`` and was stored as another player
# (the hostile-input attack, round 2). Other Cf characters (Arabic number signs, the
# tag characters of flag emoji) are visible or part of a visible sign, and are kept.
# Removed from ids, and from the PGN tags ids are made of (pgn.py ``INVISIBLE_TAGS``);
# a players file's ``name`` is kept as given (docs/lists.md: the fixed-width list
# files drop bidi controls, the machine formats keep the name).
INVISIBLE = "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
INVISIBLE_COLUMNS = ("white_id", "black_id", "player_id", "game_id", "event_id")


def _visible(frame: pl.DataFrame, columns, changed: dict[str, int]) -> pl.DataFrame:
    """``frame`` with the ``INVISIBLE`` characters removed from the text ``columns``
    (anywhere in a value); ``changed`` counts the values changed, by column. Columns of
    ASCII text only (nearly always) cost one pass over their bytes."""
    hit = []
    for name in columns:
        if name not in frame.columns or frame.schema[name] != pl.String:
            continue
        values = frame.get_column(name)
        if not (values.str.len_bytes() != values.str.len_chars()).any():
            continue
        count = int(values.str.contains(INVISIBLE).sum())
        if count:
            changed[name] = changed.get(name, 0) + count
            hit.append(name)
    if not hit:
        return frame
    return frame.with_columns(pl.col(c).str.replace_all(INVISIBLE, "") for c in hit)


def invisible_note(changed: dict[str, int]) -> str:
    where = ", ".join(f"{c} {n}" for c, n in changed.items())
    return (
        f"{sum(changed.values())} id value(s) held invisible characters (zero-width space, "
        f"soft hyphen, direction mark, …; {where}): removed, so that a look-alike is not "
        "another player"
    )


def without_invisible(frame: pl.DataFrame, notes: list[str], columns) -> pl.DataFrame:
    """``frame`` with the ``INVISIBLE`` characters removed from ``columns``, and a note
    counting the values changed (docs/ingest.md "Invisible characters"); for a reader
    that makes ids of a file's values before its raw table is made (PGN's names)."""
    changed: dict[str, int] = {}
    frame = _visible(frame, columns, changed)
    if changed:
        notes.append(invisible_note(changed))
    return frame


@dataclass(frozen=True)
class Mapping:
    """A named column mapping from a source layout to canonical columns."""

    name: str
    kind: str
    header: tuple[str, ...]
    rename: dict[str, str]
    derive: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    # Columns of the source layout left unread on purpose, with why (said in the note).
    unread: dict[str, str] = field(default_factory=dict)

    def names(self, header: list[str]) -> list[str]:
        """``header``'s cells as canonical names: the mapping's columns matched as
        ``column_name`` reads a name (any case, surrounding spaces), others as given."""
        rename = {column_name(k): v for k, v in self.rename.items()}
        return [rename.get(column_name(h), h) for h in header]


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
            ("TEID", "MonthID", "WhitePlayer", "BlackPlayer", "WhiteScore"),
            {
                "TEID": "game_id",
                "MonthID": "period",
                "WhitePlayer": "white_id",
                "BlackPlayer": "black_id",
                "WhiteScore": "score",
            },
            # Not event_id (decided in round 8): systems that rate per event (USCF,
            # Harkness, Ingo, FIDE's first event) rated each month as two events.
            unread={"Leaderboard": "Kaggle's random Public/Private scoring split, not an event"},
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


def line_breaks(data: bytes, end: int) -> int:
    """Line ends (LF, CRLF or a lone CR) in ``data[:end]``."""
    return data.count(b"\n", 0, end) + data.count(b"\r", 0, end) - data.count(b"\r\n", 0, end)


def refuse_nul(data: bytes, path: Path, first_line: int = 1, what: str = "") -> None:
    """Refuse text holding a NUL byte anywhere (the line is named): NUL is never text,
    and a NUL inside a field would otherwise end up inside a stored player id."""
    at = data.find(b"\x00")
    if at >= 0:
        line = first_line + line_breaks(data, at)
        raise InputError(path, line, f"{what}binary data (NUL byte): not a text file")


# The encoding of the files that are not UTF-8, when the command states it (``--encoding``,
# docs/ingest.md "Encodings"): set by ``read_any`` around the reader, so that the CSV,
# PGN and TRF readers, which all call ``decode``, follow it. None: told from the bytes.
_ENCODING: ContextVar[str | None] = ContextVar("arpad_encoding", default=None)
ENCODING_LABELS = {
    "cp1250": "Windows-1250",
    "cp1252": "Windows-1252",
    "iso8859-1": "Latin-1",
    "iso8859-2": "Latin-2",
    "utf-8": "UTF-8",
}


def encoding_name(name: str) -> str:
    """``--encoding NAME`` as Python's name of the codec (``windows-1250`` is
    ``cp1250``); refused unless it reads ASCII as ASCII (a code page, a Latin-N or
    UTF-8: UTF-16 is read from its byte-order mark, docs/ingest.md)."""
    import codecs

    plain = bytes(range(32, 127)) + b"\t\r\n"
    # escapes and labels that only a transform reads otherwise (unicode_escape,
    # raw_unicode_escape, idna were taken for code pages, hostile round 9)
    probes = (plain, b"Kasparov\\n\\u0041", b"xn--mller-kva")
    try:
        info = codecs.lookup(name.strip()) if isinstance(name, str) else None
        codec = info.name if info else ""
        ok = bool(info) and getattr(info, "_is_text_encoding", True)
        ok = ok and all(p.decode(codec) == p.decode("ascii") for p in probes)
    except (LookupError, UnicodeError):
        ok = False
    if not ok:
        raise ValueError(
            f"--encoding {name}: not an encoding arpad reads (the code page of a file that "
            "is not UTF-8: cp1250 for Central European, cp1252 for Western, latin-1, "
            "iso8859-2, …; or utf-8)"
        )
    return "utf-8" if codec == "utf-8-sig" else codec


def _single_byte(line: bytes, codec: str) -> str:
    """A line that is not UTF-8 in a code page (Windows-1252 for Western exports, e.g.
    ChessBase: 0x8A is Š, 0x9E is ž, where Latin-1 has invisible C1 controls); the
    bytes the code page leaves undefined are read as Latin-1 (the line is not lost)."""
    try:
        return line.decode(codec)
    except UnicodeDecodeError:
        return "".join(bytes([b]).decode(codec, "replace").replace("\ufffd", chr(b)) for b in line)


# Where Windows-1250 (Central European) and Windows-1252 (Western) differ, and what
# says which one a file is (``_central_european``, docs/ingest.md "Encodings").
_DIFFERENT = bytes(
    b
    for b in range(0x80, 0x100)
    if bytes([b]).decode("cp1250", "replace") != bytes([b]).decode("cp1252", "replace")
)
_DIFFERENT_AT = re.compile(b"[" + re.escape(_DIFFERENT) + b"]")
# Windows-1250's spacing accents and its undefined bytes: never in a name or a result,
# where Windows-1252 has ½ (a draw), ¡ ¢ ² ÿ ƒ.
_NOT_TEXT = set("ˇ˘˛˝˙\ufffd")
_EVIDENCE_CAP = 20_000  # places where the two differ that are looked at
_VOWELS = set("aeiouyáéíóúýäëöüâêîôûąęěůőű")
# Letters of Czech, Slovak, Polish, Hungarian and Croatian names where Windows-1252 has
# another letter or a sign (č is è, ř is ø, ł is ³): a file read as Western in which
# Windows-1250 would give one inside a word is told that --encoding cp1250 may be meant
# (the guess is the evidence's: French è is Czech č, historian round 9).
_EASTERN_LETTERS = set("čČřŘěĚůŮňŇťŤďĎśŚźŹżŻłŁąĄęĘőŐűŰćĆńŃľĽđĐ")


def _letter(c: str) -> bool:
    return c.isalpha() and c not in "ªº"  # (ordinal signs, Unicode letters)


def _in_word(west: str, before: str, after: str) -> bool:
    """Whether Windows-1252's symbol ``west`` stands where a letter of a name would:
    beside a letter (``£ucja``, ``Wa³êsa``, ``Pawe³``); ``¿`` after one (Spanish ``¿Qué``
    is not ``żQué``), ``º`` between two (``Nº 3``), ``ª`` starting a lower-case word."""
    if west == "¿":
        return _letter(before)
    if west == "º":
        return _letter(before) and _letter(after)
    if west == "ª":
        return after.islower() and not before.isalnum()
    return _letter(before) or _letter(after)


def _letter_evidence(byte: int, before: str, after: str) -> int:
    """For a byte that is a letter in both code pages: > 0 for Windows-1250's letter,
    < 0 for Windows-1252's, by how names use them (``before`` and ``after`` as
    Windows-1250 reads them)."""
    start = not _letter(before) and after.islower()
    if byte in (0xF5, 0xD5):  # ő (Erdős, Győr); Portuguese õ comes before e (Simões)
        return -2 if after == "e" else 2
    if byte in (0xFB, 0xDB, 0x8C, 0x9C):  # ű (Szűcs), ś (French û, œ are rarer)
        return 1
    if byte in (0xEC, 0xF9):  # ě, ů inside a word (Němec, Růžička); Italian ì, French où
        return 2 if _letter(after) else 0
    if byte in (0xC8, 0xCC, 0xD9, 0xD0):  # Č, Ě, Ů, Đ starting a name (È, Ì, Ù, Ð seldom do)
        return 2 if start else 0
    if byte == 0xF1:  # Spanish ñ comes before a vowel (Peña); Polish ń never does (Stępień)
        return -2 if after.lower() in _VOWELS else (2 if _letter(before) else 0)
    if byte == 0xE6:  # ć ending a name (Ivanović); Danish æ seldom does
        return 2 if _letter(before) and not _letter(after) else 0
    if byte == 0xF8:  # ř before a vowel (Dvořák, Jiří); Danish ø before a consonant (Søren)
        return 1 if after.lower() in _VOWELS else (-1 if _letter(after) else 0)
    if byte in (0xE0, 0xC0, 0xE5, 0xC5):  # French à, Swedish å (ŕ, ĺ: rare Slovak letters)
        return -2
    if byte in (0xE3, 0xC3):  # Portuguese ã (Romanian ă)
        return -1
    return 0


def _central_european(lines: list[bytes]) -> tuple[bool, list[tuple[str, str]]]:
    """Whether ``lines`` (not UTF-8) are Windows-1250 rather than Windows-1252, and the
    letters that speak for Windows-1250 (as (its letter, Windows-1252's character)).

    Read both ways, at each byte where the two differ: a character Windows-1250 never
    has in text (``½`` there is ``˝``) decides Windows-1252; a Windows-1252 symbol that
    Windows-1250 reads as a letter inside a word (``£ ³ ¹ ¥ ¼ ¾ ¯ ¿ ª º``: Ł ł ą Ą Ľ ľ
    Ż ż Ş ş; an undefined byte: Ť Ź ť; ``Ÿ`` inside a lower-case word: ź) decides
    Windows-1250; letters both ways are weighed by ``_letter_evidence`` and decide
    Windows-1250 at 2 or more. Otherwise Windows-1252, the default, and the letters are
    those that speak for Windows-1250 then those of ``_EASTERN_LETTERS`` that nothing
    speaks against (the hint of the note, up to three)."""
    text = b"\n".join(lines)
    west = text.decode("cp1252", "replace")
    east = text.decode("cp1250", "replace")
    against = strong = weak = 0
    found: dict[str, str] = {}
    maybe: dict[str, str] = {}  # Central European letters weighed neither way (è: č)
    for k, at in enumerate(_DIFFERENT_AT.finditer(text)):
        if k == _EVIDENCE_CAP:  # enough to tell (a long file: no pass over every byte)
            break
        i = at.start()
        w, e = west[i], east[i]
        before = east[i - 1] if i else ""
        after = east[i + 1] if i + 1 < len(east) else ""
        if e in _NOT_TEXT:
            against += 1
            continue
        if not _letter(w) and _letter(e):
            evidence = 2 * _in_word(w, before, after)
            strong += evidence
        elif w.isupper() and e.islower() and before.islower() and after.islower():
            evidence = 2
            strong += evidence
        else:  # weighed by how names use the letter
            evidence = _letter_evidence(text[i], before, after)
            weak += evidence
            if not evidence and e in _EASTERN_LETTERS and (_letter(before) or _letter(after)):
                maybe.setdefault(e, w)
        if evidence > 0 and len(found) < 3:  # (an undefined byte shown as Latin-1 has it)
            found.setdefault(e, chr(text[i]) if w == "\ufffd" else w)
    is_east = not against and (strong > 0 or weak >= 2)
    return is_east, list(found.items()) if is_east else list({**found, **maybe}.items())[:3]


def _decode_mixed(data: bytes, path: Path, notes: list[str], encoding: str | None) -> str:
    """Text that is not UTF-8 as a whole: each line that is valid UTF-8 stays UTF-8
    (a file pasted together from two sources); the others are read in ``encoding`` (as
    stated, ``--encoding``; a byte it does not have is refused, naming the line), or in
    Windows-1250 or Windows-1252 as their letters say (``_central_european``)."""
    while data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    out: list[str | None] = []
    other: list[tuple[int, int]] = []  # (index, offset) of the lines that are not UTF-8
    utf8 = at = 0
    for line in lines:
        try:
            out.append(line.decode("utf-8"))
            utf8 += not line.isascii()
        except UnicodeDecodeError as exc:
            if encoding == "utf-8":
                raise InputError(
                    path,
                    1 + line_breaks(data, at),
                    f"byte 0x{line[exc.start]:02X} is not UTF-8 (--encoding utf-8): save the "
                    "file as UTF-8, or name its code page (--encoding cp1250, cp1252, …)",
                ) from None
            other.append((len(out), at))
            out.append(None)
        at += len(line) + 1
    found: list[tuple[str, str]] = []
    hint = ""
    if encoding:
        codec, why = encoding, f" (--encoding {encoding})"
    else:
        east, found = _central_european([lines[i] for i, _ in other])
        codec, why = ("cp1250", "") if east else ("cp1252", "")
        if east:
            why = (
                f" (Central European: {', '.join(repr(e) for e, _ in found)} inside names, "
                f"not Windows-1252's {', '.join(repr(w) for _, w in found)}; "
                "--encoding cp1252 reads it as Western)"
            )
        elif found:  # some letters would be Central European: said, the guess not made
            shown = ", ".join(f"{w!r} (Windows-1250: {e!r})" for e, w in found)
            hint = f"; {shown}: --encoding cp1250 if it is Central European"
    for i, start in other:
        line = lines[i]
        if not encoding:
            out[i] = _single_byte(line, codec)
            continue
        try:
            out[i] = line.decode(codec)
        except UnicodeDecodeError as exc:
            raise InputError(
                path,
                1 + line_breaks(data, start),
                f"byte 0x{line[exc.start]:02X} is not a character of "
                f"{ENCODING_LABELS.get(codec, codec)} (--encoding {codec})",
            ) from None
    # Windows-1252 as guessed keeps its words of before round 8 ("Latin-1")
    western = codec == "cp1252" and not encoding
    label = "Latin-1" if western else ENCODING_LABELS.get(codec, codec)
    if utf8:
        notes.append(
            f"not valid UTF-8; {len(other)} line(s) decoded as {label}{why}, {utf8} other "
            "non-ASCII line(s) kept as UTF-8"
            + (f" (Latin-1 read as Windows-1252){hint}" if western else "")
        )
    elif western:
        notes.append(f"not valid UTF-8; decoded as Latin-1 (Windows-1252){hint}")
    else:
        notes.append(f"not valid UTF-8; decoded as {label}{why}")
    return "\n".join(out)


def decode(data: bytes, path: Path, notes: list[str], encoding: str | None = None) -> str:
    """UTF-8 (with or without BOM); when the bytes are not UTF-8, ``encoding`` (or the
    one ``read_any`` was given, ``--encoding``), else Windows-1250 or Windows-1252 as
    the file's letters say (``_decode_mixed``). NUL bytes anywhere are refused;
    repeated byte-order marks at the start are dropped with a note."""
    encoding = encoding or _ENCODING.get()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(
            path, 1, "UTF-16 text (byte-order mark): arpad reads UTF-8 or Latin-1; save as UTF-8"
        )
    refuse_nul(data, path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _decode_mixed(data, path, notes, encoding)
    if encoding not in (None, "utf-8") and not data.isascii():
        notes.append(
            f"valid UTF-8: read as UTF-8 (--encoding {encoding} is for files that are not)"
        )
    if text.startswith("\ufeff"):
        stripped = text.lstrip("\ufeff")
        notes.append(f"{len(text) - len(stripped) + 1} byte-order marks at the start; dropped")
        text = stripped
    return text


_DECODED_AS = re.compile(
    r"not valid UTF-8; (?:\d+ line\(s\) )?decoded as (Latin-1 \(Windows-1252\)|[^\s,;()]+)"
)


def decoded_as(notes: list[str]) -> str | None:
    """The code page (its label: ``Windows-1250``) in which a reading's text that is not
    UTF-8 was read, as its note says (``_decode_mixed``); None: the text is UTF-8."""
    for note in notes:
        if found := _DECODED_AS.search(note):
            label = found.group(1)
            return "Windows-1252" if label.startswith("Latin-1 (") else label
    return None


def _csv_bytes(path: Path, notes: list[str]) -> bytes:
    """A CSV file's bytes: ``.gz`` decompressed, the one ``.csv`` member of a
    ``.zip``, within the archive limits (pipeline/archives.py); UTF-16 (a spreadsheet's
    "Unicode text"; with a byte-order mark, or without one when the header's first two
    characters are ASCII, as PGN and TRF read it) as UTF-8, with a note (docs/ingest.md)."""
    from arpad.pipeline.archives import read_gzip, zip_members
    from arpad.pipeline.pgn import from_utf16

    name = path.name.lower()
    if name.endswith(".gz"):
        data = read_gzip(path)
    elif name.endswith(".zip"):
        members = zip_members(path, (".csv",), notes)
        if len(members) != 1:
            found = ", ".join(m for m, _ in members[:5]) or "none"
            raise InputError(
                path,
                None,
                f"zip archive holds {len(members)} .csv members ({found}): arpad reads "
                "one CSV per zip; unzip it and name the files",
            )
        data = members[0][1]
    else:
        data = path.read_bytes()
    # (without a byte-order mark it was "binary data (NUL byte)", read by PGN and TRF)
    return from_utf16(data, path, notes)


RAW_TEXT_CAP = 4096  # characters of a row's text kept in the quarantine's raw column
# Columns a CSV header or a Parquet file may have: arpad reads some thirty; a header of
# a million (9 MB) took 25 s and 1.6 GB before it was refused (docs/ingest.md).
MAX_COLUMNS = 200_000
_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def capped(text: str, cap: int = RAW_TEXT_CAP) -> str:
    """``text`` cut to ``cap`` characters, saying how long it was."""
    if len(text) <= cap:
        return text
    return f"{text[:cap]}… [cut: {len(text)} characters in all]"


class _Lines:
    """Physical lines fed to ``csv.reader``, with the index of the next one to read."""

    def __init__(self, lines: list[str], pos: int):
        self.lines = lines
        self.pos = pos

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.pos >= len(self.lines):
            raise StopIteration
        self.pos += 1
        return self.lines[self.pos - 1]


def _quote_left_open(text: str, delimiter: str = ",") -> bool:
    """Whether ``text`` ends inside a quoted field (a quote that never closes)."""
    try:
        for _ in csv.reader(io.StringIO(text, newline=""), strict=True, delimiter=delimiter):
            pass
    except csv.Error as exc:
        return "unexpected end of data" in str(exc)
    return False


def _delimiter(header: str) -> str:
    """The field separator: ``,``, unless the header line has no comma (outside quotes)
    and has ``;`` (a spreadsheet saved in a locale whose decimal mark is the comma) or a
    tab; then that one (docs/ingest.md)."""
    bare = re.sub(r'"[^"]*"', "", header)
    if "," in bare:
        return ","
    for other in (";", "\t"):
        if other in bare:
            return other
    return ","


def _csv_header(
    path: Path, header: list[str], mapping: str | None, kind: str | None, notes: list[str]
) -> tuple[Mapping | None, list[str], str]:
    """A CSV header's mapping, canonical names and kind of rows (refused, naming the
    problem, when it is none of arpad's)."""
    chosen = _choose_mapping(path, header, mapping, notes)
    names = chosen.names(header) if chosen else [column_name(h) for h in header]
    if not chosen:
        names = name_columns(header, tag_aliases(names, notes), notes)
        names = player_aliases(path, header, names, kind, notes)
    # Columns without a name (a spreadsheet's trailing ",,") are unknown columns like any
    # other, each under its own name, not duplicates of one another (docs/ingest.md).
    names = [n if n else f"unnamed column {i}" for i, n in enumerate(names, 1)]
    row_kind = chosen.kind if chosen else _detect_kind(path, names, kind)
    if kind and row_kind != kind:
        raise InputError(path, 1, f"expected a {kind} file, the header looks like {row_kind}")
    _check_columns(path, names, row_kind, header)
    if len(set(names)) != len(names):
        counts = Counter(names)  # the repeated names only, at most ten: one short line
        same = list(dict.fromkeys(h for h, n in zip(header, names) if counts[n] > 1))
        more = f" and {len(same) - 10} more" if len(same) > 10 else ""
        shown = ", ".join(repr(capped(n, 40)) for n in same[:10])
        raise InputError(path, 1, f"duplicate column names in header: {shown}{more}")
    if not chosen:  # a mapping notes the columns it leaves (``_choose_mapping``)
        unread_note(header, names, row_kind, notes)
    return chosen, names, row_kind


# Excel's first line naming the separator (``sep=;``, ``sep=,``, ``sep=`` and a tab):
# read as the separator and skipped (docs/ingest.md "Separator"; it was refused as a
# header "['sep=', 'unnamed column 2']").
_SEP_LINE = re.compile(r'^\ufeff?"?sep=([,;\t|])"?[ \t]*(?:\r\n|\r|\n|$)', re.IGNORECASE)


def read_csv(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    """Every physical line is accounted for: a header, a blank line, a row (which may
    span lines inside a quoted field) or a problem quarantined at its own line.

    A row that runs over several lines and does not have the header's number of
    fields, or that ends inside a quote at the end of the file, is taken to be a
    stray quote: its first line is quarantined (``malformed_row``, naming the line
    where the quote opened) and reading starts again on the next line. A field
    longer than ``csv.field_size_limit()`` (131072 characters) quarantines its row;
    the quarantine keeps at most ``RAW_TEXT_CAP`` characters of a row's text."""
    notes: list[str] = []
    text = decode(_csv_bytes(path, notes), path, notes)
    from arpad.pipeline.fixed_width import as_csv  # FIDE's fixed-width list (a .txt)

    fixed: list[tuple[int, str, str, str]] = []  # its lines quarantined, blank in the CSV
    text = as_csv(text, notes, path, fixed) or text
    if not text.strip():
        raise InputError(path, 1, "empty file: no header and no rows")
    lines = _PHYSICAL_LINE.findall(text)
    declared = _SEP_LINE.match(lines[0]) if lines else None
    if declared:  # Excel's "sep=;" line: the separator, then the header on line 2
        delimiter = declared.group(1)
        notes.append(
            f"first line {lines[0].strip()!r} (a spreadsheet's separator line): fields "
            f"separated by {delimiter!r}, the header read from line 2"
        )
        if len(lines) < 2 or not lines[1].strip():
            raise InputError(path, 2, "no header after the separator line 'sep=…'")
    else:
        delimiter = _delimiter(lines[0] if lines else "")
        if delimiter != ",":
            notes.append(f"fields separated by {delimiter!r} (from the header line)")
    head = 1 + bool(declared)  # the header's line
    source = _Lines(lines, head - 1)
    reader = csv.reader(source, delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise InputError(path, head, f"unreadable header: {exc}") from None
    if len(header) > MAX_COLUMNS:  # before a column is built for each
        raise InputError(path, head, f"{len(header)} columns in the header (at most {MAX_COLUMNS})")
    if source.pos > head:
        raise InputError(
            path, head, "the header runs over several lines (a quote that never closes?)"
        )
    try:
        chosen, names, row_kind = _csv_header(path, header, mapping, kind, notes)
    except InputError as exc:  # the header's own line, after a "sep=;" line
        if exc.line != 1 or head == 1:
            raise
        raise InputError(exc.path, head, exc.problem) from None

    columns: list[list[str | None]] = [[] for _ in names]
    line_numbers: list[int] = []
    raws: list[str] = []
    problems: list[tuple[int, str, str, str]] = fixed
    width = len(names)
    blank = -len(fixed)

    def quarantine_line_and_restart(first: int, detail: str):
        """Quarantine physical line ``first + 1`` and read again from the next line."""
        problems.append(
            (first + 1, Reason.MALFORMED_ROW, detail, capped(lines[first].rstrip("\r\n")))
        )
        source.pos = first + 1
        return csv.reader(source, delimiter=delimiter)

    while True:
        first = source.pos  # index of the row's first physical line (line first + 1)
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            reader = quarantine_line_and_restart(first, f"CSV error: {exc}")
            continue
        span = source.pos - first
        if not row or all(not value.strip() for value in row):
            blank += 1
            continue  # blank lines (and a spreadsheet's ",,,," rows) carry no row
        raw = lines[first] if span == 1 else "".join(lines[first : source.pos])
        raw = raw.rstrip("\r\n")
        if len(raw) > RAW_TEXT_CAP:
            raw = capped(raw)
        if span > 1 or source.pos == len(lines):
            text = "".join(lines[first : source.pos])
            if _quote_left_open(text, delimiter):
                why = "is never closed"
            elif span > 1 and len(row) != width:
                why = f"runs over {span} lines into a row of {len(row)} fields"
            else:
                why = None
            if why:
                detail = (
                    f"a quote opened on line {first + 1} {why}; read again from line {first + 2}"
                )
                reader = quarantine_line_and_restart(first, detail)
                continue
        if len(row) != width:
            problems.append(
                (
                    first + 1,
                    Reason.MALFORMED_ROW,
                    f"{len(row)} fields where the header has {width}",
                    raw,
                )
            )
            continue
        if [v.strip() for v in row] == header:  # two exports joined with `cat`
            detail = "the header line again (two files joined?): not a row"
            problems.append((first + 1, Reason.MALFORMED_ROW, detail, raw))
            continue
        for col, value in zip(columns, row):
            col.append(value)
        line_numbers.append(first + 1)
        raws.append(raw)
    if blank:
        notes.append(f"{blank} blank line(s) skipped")
    frame = pl.DataFrame(
        {name: pl.Series(name, col, dtype=pl.String) for name, col in zip(names, columns)}
    ).with_columns(
        pl.Series("_line", line_numbers, dtype=pl.Int64),
        pl.Series("_raw", raws, dtype=pl.String),
    )
    frame = pool_ratings(_thousands_dots(frame, delimiter, notes), row_kind)
    if chosen and chosen.derive:
        frame = chosen.derive(frame)
    frame, not_stored, lines = without_non_games(frame, row_kind, notes)
    return RawTable(
        path,
        "csv",
        row_kind,
        frame,
        chosen.name if chosen else None,
        problems,
        notes,
        not_stored=not_stored,
        not_stored_lines=lines,
    )


# A rating written with a thousands separator (Excel's number format ``#.##0`` in a
# locale whose decimal mark is the comma): ``1.850`` is 1850 (``_thousands_dots``).
RATING_COLUMNS = ("rating", "peak_rating", "white_rating", "black_rating", *POOL_RATINGS)
_THOUSANDS = r"^\s*\d{1,2}\.\d{3}\s*$"
_DECIMAL_COMMA = r"^\s*\d+,\d+\s*$"


def _thousands_dots(frame: pl.DataFrame, delimiter: str, notes: list[str]) -> pl.DataFrame:
    """In a CSV of a decimal-comma locale (``;`` separators, or a number written with a
    decimal comma, ``0,5``), a rating ``d.ddd`` or ``dd.ddd`` is read with the dot as a
    thousands separator (``1.850`` is 1850), counted in a note naming the column and
    the first line. Read as a decimal it was a rating of 1.85, below every floor: the
    player unrated, unsaid (hostile8, round 8; docs/ingest.md "Separator")."""
    columns = [c for c in RATING_COLUMNS if c in frame.columns]
    if not columns or not frame.height:
        return frame
    dotted = [pl.col(c).str.contains(_THOUSANDS).fill_null(False) for c in columns]
    hits = frame.select(d.sum() for d in dotted).row(0)
    if not any(hits):
        return frame
    if delimiter != ";":
        numbers = [c for c in (*columns, "score", "result") if c in frame.columns]
        comma = pl.any_horizontal(pl.col(c).str.contains(_DECIMAL_COMMA) for c in numbers)
        if not frame.select(comma.fill_null(False).any()).item():
            return frame
    said = []
    for column, dots, count in zip(columns, dotted, hits):
        if count:
            line, value = frame.filter(dots).select("_line", column).row(0)
            value = value.strip()
            said.append(f"{column} {count} (line {line}: {value!r} as {value.replace('.', '')})")
    why = "';' separators" if delimiter == ";" else "decimal commas"
    notes.append(
        f"rating(s) written with a thousands separator read as whole numbers: "
        f"{', '.join(said)} (the file uses {why}: its decimals are written 0,5)"
    )
    return frame.with_columns(
        pl.when(d).then(pl.col(c).str.replace_all(r"[.\s]", "")).otherwise(pl.col(c)).alias(c)
        for c, d in zip(columns, dotted)
    )


def _open_parquet(path: Path, pre_buffer: bool = True) -> pq.ParquetFile:
    """The Parquet file, its declared decompressed size held to ``ARPAD_MAX_DECOMPRESSED``."""
    from arpad.pipeline.archives import Limits, human

    meta = pq.read_metadata(path)
    if meta.num_columns > MAX_COLUMNS:  # before a schema or an array is built for each
        raise InputError(path, None, f"{meta.num_columns} columns (at most {MAX_COLUMNS})")
    # Row-group totals only: reading a damaged file's column-chunk statistics can
    # abort the process inside PyArrow (a C++ exception it does not turn into one
    # Python can catch; found by fuzzing, tests/test_hostile_input.py).
    declared = sum(meta.row_group(g).total_byte_size for g in range(meta.num_row_groups))
    limit = Limits.from_environment().max_bytes
    if declared > limit:
        raise InputError(
            path,
            None,
            f"decompresses to {human(declared)}, more than {human(limit)} "
            "(limit ARPAD_MAX_DECOMPRESSED)",
        )
    # INT96 timestamps (Spark, Hive) as microseconds: as nanoseconds, pyarrow's default,
    # a date before 1677 wraps around 2**64 ns into another century, silently
    # (docs/ingest.md "Parquet files attacked").
    return pq.ParquetFile(path, pre_buffer=pre_buffer, coerce_int96_timestamp_unit="us")


def read_parquet(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    """Scalar columns only (text, numbers, booleans, dates); each is read as text.

    Refused, naming the column: nested types (list, struct, map), binary that is not
    UTF-8, text with a NUL character, and two columns whose names differ only in case
    (``white_id`` beside ``White_Id``).
    The decompressed size the file declares is held to ``ARPAD_MAX_DECOMPRESSED``."""
    try:
        with _open_parquet(path) as f:
            table = f.read()
        table.validate(full=True)  # a damaged file can decode to invalid arrays
    except (pa.ArrowException, OSError, ValueError) as exc:  # ValueError: names not UTF-8
        raise InputError(path, None, _parquet_problem(path, exc)) from None
    return raw_from_arrow(table, path, "parquet", mapping, kind)


def parquet_head(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    """A Parquet file's header as a raw table without rows: its kind and mapping,
    with every check ``read_parquet`` makes of the columns' names and types."""
    try:
        with _open_parquet(path) as f:
            empty = f.schema_arrow.empty_table()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(path, None, _parquet_problem(path, exc)) from None
    return raw_from_arrow(empty, path, "parquet", mapping, kind)


def iter_parquet(
    path: Path, batch_rows: int, mapping: str | None = None, kind: str | None = None
) -> Iterator[RawTable]:
    """A Parquet file as raw tables of at most ``batch_rows`` rows, in file order, row
    numbers counting on across slices (a file written as one huge row group is still
    read slice by slice). Each slice is checked as ``read_parquet`` checks the whole
    file, with the same messages; a file without rows gives one empty slice."""
    try:
        f = _open_parquet(path, pre_buffer=False)  # no whole row group read ahead
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(path, None, f"not a readable Parquet file: {exc}") from None
    with f:
        first = 1
        batches = f.iter_batches(batch_size=batch_rows)
        while True:
            try:
                batch = next(batches, None)
                if batch is None:
                    if first == 1:
                        yield raw_from_arrow(
                            f.schema_arrow.empty_table(), path, "parquet", mapping, kind
                        )
                    return
                table = pa.Table.from_batches([batch])
                table.validate(full=True)
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise InputError(path, None, f"not a readable Parquet file: {exc}") from None
            yield raw_from_arrow(table, path, "parquet", mapping, kind, first_row=first)
            first += table.num_rows


def raw_from_arrow(
    table: pa.Table,
    path: Path,
    fmt: str,
    mapping: str | None = None,
    kind: str | None = None,
    first_row: int = 1,
) -> RawTable:
    """An Arrow table (a Parquet file, or a DataFrame given to the Python API) as raw
    rows; ``path`` names it in messages, row numbers count from ``first_row`` (1; a
    later slice of a streamed file starts further on)."""
    header = list(table.column_names)
    # Columns without a name are unknown columns each on its own, as in a CSV.
    lowered = [column_name(h) or f"unnamed column {i}" for i, h in enumerate(header, 1)]
    counts = Counter(lowered)  # once: a count per name is quadratic in the columns
    same = sorted({h for h, low in zip(header, lowered) if counts[low] > 1})
    if same:
        raise InputError(path, 1, f"duplicate column names (case-insensitive): {', '.join(same)}")
    table = _pandas_periods(table, path)
    notes: list[str] = []
    chosen = _choose_mapping(path, header, mapping, notes)
    if chosen and len(header) > len(chosen.header):  # the mapping's columns only
        read = {column_name(h) for h in chosen.header}
        table = table.select([i for i, h in enumerate(header) if column_name(h) in read])
        header = list(table.column_names)
    names = chosen.names(header) if chosen else tag_aliases(lowered, notes)
    if not chosen:
        names = name_columns(header, names, notes)
        names = player_aliases(path, header, names, kind, notes)
    given = (list(header), list(names))  # every column, for the messages and notes
    if not chosen:  # unknown columns arpad cannot read are left out, as a CSV's are ignored
        kept = [i for i, n in enumerate(names) if n in KNOWN_COLUMNS or _kept(table.column(i))]
        if len(kept) < len(names):
            table = table.select(kept)
            header, names = [header[i] for i in kept], [names[i] for i in kept]
    for name, column in zip(header, table.columns):
        _check_parquet_column(path, name, column, first_row)
    row_kind = chosen.kind if chosen else _detect_kind(path, names, kind)
    _check_columns(path, names, row_kind, given[0])
    if not chosen:
        unread_note(*given, row_kind, notes)
    table = table.rename_columns(names)
    try:
        table = pa.table([_as_text(col) for col in table.columns], names=table.column_names)
        table = _past_the_calendar_as_text(_timestamps_as_dates(table, row_kind, path))
        frame = pl.from_arrow(table)
        if isinstance(frame, pl.Series):
            frame = frame.to_frame()
        typed = typed_game_columns(frame.schema) if row_kind == "games" else set()
        if chosen and chosen.derive:
            typed = set()  # a named mapping's derive step works on text
        _refuse_inexact_float_ids(frame, path, first_row)
        frame = frame.with_columns(_float_ids_as_integers(frame))
        frame = frame.with_columns(
            pl.col(c).cast(pl.String) for c in frame.columns if c not in typed
        )
    except (pl.exceptions.PolarsError, pa.ArrowException) as exc:
        problem = " ".join(str(exc).split())[:300]
        raise InputError(path, None, f"a column cannot be read as text: {problem}") from None
    frame = frame.with_columns(
        pl.int_range(first_row, first_row + frame.height, dtype=pl.Int64).alias("_line"),
        pl.lit(None, dtype=pl.String).alias("_raw"),
    )
    frame, blank = _without_blank_rows(frame, row_kind)
    frame = pool_ratings(frame, row_kind)
    if blank:
        notes.append(f"{blank} blank row(s) skipped")
    if chosen and chosen.derive:
        frame = chosen.derive(frame)
    frame, not_stored, lines = without_non_games(frame, row_kind, notes)
    return RawTable(
        path,
        fmt,
        row_kind,
        frame,
        chosen.name if chosen else None,
        notes=notes,
        not_stored=not_stored,
        blank=blank,
        not_stored_lines=lines,
    )


def _without_blank_rows(frame: pl.DataFrame, kind: str) -> tuple[pl.DataFrame, int]:
    """The rows with every field null or blank left out, and their number: a
    spreadsheet's formatted empty rows, which a CSV writes as ",,,," lines, skipped as
    blank (docs/ingest.md "Parquet files attacked"). Rows keep their numbers. Only rows
    whose player id is empty are looked at (usually none: one pass over one column)."""
    key = "white_id" if kind == "games" else "player_id"
    if key not in frame.columns or not frame.height:
        return frame, 0

    def empty(name: str) -> pl.Expr:
        col = pl.col(name)
        if frame.schema[name] == pl.String:
            return col.is_null() | (col.str.strip_chars() == "")
        return col.is_null()

    values = frame.get_column(key)
    if values.dtype == pl.String and not values.null_count():
        # pyarrow's whitespace test: a third of the cost of stripping every id
        text = values.to_arrow()
        if pa.types.is_string_view(text.type):
            text = text.cast(pa.large_string())
        some = pc.or_(pc.equal(pc.binary_length(text), 0), pc.utf8_is_space(text))
        if not pc.any(some).as_py():
            return frame, 0
    elif not frame.select(empty(key).any()).item():
        return frame, 0
    data = [c for c in frame.columns if c not in ("_line", "_raw")]
    blank = pl.all_horizontal([empty(c) for c in data])
    count = int(frame.select(blank.sum()).item())
    return (frame.filter(~blank), count) if count else (frame, 0)


def _pandas_period_freq(field: pa.Field) -> str | None:
    """The frequency of a pandas Period column (``pandas.period``: int64 ordinals since
    1970), whether pyarrow reads it as pandas's registered extension type (pandas
    imported) or as plain int64 with the extension's name in the field's metadata."""
    import json

    kind = field.type
    if isinstance(kind, pa.BaseExtensionType):
        if kind.extension_name != "pandas.period":
            return None
        meta = kind.__arrow_ext_serialize__()
    else:
        given = field.metadata or {}
        if given.get(b"ARROW:extension:name") != b"pandas.period":
            return None
        meta = given.get(b"ARROW:extension:metadata", b"{}")
    try:
        return str(json.loads(meta).get("freq"))
    except (ValueError, AttributeError):
        return "?"


def _pandas_periods(table: pa.Table, path: Path) -> pa.Table:
    """pandas Period columns as what they say: monthly ones (ordinal months since
    1970-01) as YYYYMM integers, daily ones (days since 1970-01-01) as dates; another
    frequency is refused, naming it. Read as int64, a monthly period 2024-01 was the
    period number 648 (docs/ingest.md "Parquet files attacked")."""
    for i, given in enumerate(table.schema):
        freq = _pandas_period_freq(given)
        if freq is None:
            continue
        column = table.column(i)
        if isinstance(column.type, pa.BaseExtensionType):
            column = pa.chunked_array([c.storage for c in column.chunks], column.type.storage_type)
        if freq == "M":
            years = pc.floor(pc.divide(column.cast(pa.float64()), 12.0)).cast(pa.int64())
            months = pc.subtract(column, pc.multiply(years, 12))
            value = pc.add(pc.multiply(pc.add(years, 1970), 100), pc.add(months, 1))
        elif freq == "D":
            try:
                value = column.cast(pa.int32()).cast(pa.date32())
            except pa.ArrowInvalid:
                raise InputError(
                    path, None, f"column {given.name!r} holds a pandas daily period past any date"
                ) from None
        else:
            raise InputError(
                path,
                None,
                f"column {given.name!r} is a pandas period of frequency {freq}: arpad reads "
                "monthly (M) and daily (D) periods; write it as YYYY-MM or as dates",
            )
        table = table.set_column(i, pa.field(given.name, value.type), value)
    return table


WHOLE_NUMBER_COLUMNS = ("white_id", "black_id", "player_id", "game_id", "event_id", "period")
ID_COLUMNS = ("white_id", "black_id", "player_id", "game_id", "event_id")
# Every column name a games or players file is read for (others are ignored): an
# unknown column of a type arpad cannot read is left out, not refused.
KNOWN_COLUMNS = {
    *GAME_COLUMNS,
    *PLAYER_COLUMNS,
    "date",
    "pool",
    "date_precision",
    *POOL_RATINGS,
    *NAME_HEADINGS,
}


def _refuse_inexact_float_ids(frame: pl.DataFrame, path: Path, first_row: int) -> None:
    """An id in a float column at or past 2**53, where a float64 no longer holds every
    integer (2**60 + 1 arrives as 2**60), or infinite: the id it was written from is
    lost, so the file is refused, naming the column and row (docs/ingest.md "Parquet
    files attacked"). NaN is a missing id (``_float_ids_as_integers``)."""
    for name in ID_COLUMNS:
        if name in frame.columns and frame.schema[name].is_float():
            col = pl.col(name)
            lost = ~col.is_nan() & (col.abs() >= 2.0**53)
            bad = frame.select(lost.fill_null(False).arg_true())
            if bad.height:
                at = int(bad.item(0, 0))
                value = frame.get_column(name)[at]
                row = first_row + at
                raise InputError(
                    path,
                    row,
                    f"column {name!r} holds the float {value:.17g} in row {row}: past 2**53 "
                    "a float is not the integer id it was written from (write ids as "
                    "integers or text)",
                )


def _float_ids_as_integers(frame: pl.DataFrame) -> list[pl.Expr]:
    """Player ids and periods in a float column (pandas makes an integer column float64
    as soon as one value is missing) read as the integers they hold: 73.0 is player
    ``73``, as in a CSV or an integer column, not a player ``73.0`` of its own, and 3.0
    is period 3; a fractional value (73.5) keeps its text (a period 3.5 is then
    quarantined as ``bad_period``; docs/ingest.md "Typed columns")."""
    out = []
    for name in WHOLE_NUMBER_COLUMNS:
        if name in frame.columns and frame.schema[name].is_float():
            col = pl.col(name)
            whole = (col == col.floor()) & (col.abs() < 2.0**53)
            # A NaN id is a missing id (pandas's CSV export writes it empty); a NaN
            # period keeps its text ("NaN": bad_period).
            missing = col.is_nan() if name in ID_COLUMNS else pl.lit(False)
            text = (
                pl.when(missing)
                .then(None)
                .when(whole)
                .then(col.cast(pl.Int64, strict=False).cast(pl.String))
            )
            out.append(text.otherwise(col.cast(pl.String)).alias(name))
    return out


DATE_COLUMNS = {"games": ("date",), "players": ("date", "birth_date")}
# 0001-01-01 and 9999-12-31 as days from 1970-01-01: the dates polars can print.
FIRST_DAY, LAST_DAY = -719_162, 2_932_896


def _timestamps_as_dates(table: pa.Table, kind: str, path: Path | None = None) -> pa.Table:
    """A timestamp ``date`` (games, players) or ``birth_date`` (players) — a pandas
    datetime64 column, say — as its dates: the calendar date the timestamp shows, in
    its own time zone when it has one (docs/ingest.md "Typed columns"). A date
    column with a day outside the years 1..9999 (a sentinel such as 2**31 - 1 days)
    is read as text, as a CSV would give it, and so quarantined as ``bad_date``
    (docs/ingest.md "Parquet files attacked")."""
    for name in DATE_COLUMNS.get(kind, ()):
        if name not in table.column_names:
            continue
        column = table.column(name)
        if not (pa.types.is_timestamp(column.type) or pa.types.is_date(column.type)):
            continue
        zone = column.type.tz if pa.types.is_timestamp(column.type) else None
        if zone:
            try:
                pa.array([0], column.type).cast(pa.date32())
            except pa.ArrowInvalid:  # the calendar date depends on the zone
                raise InputError(
                    path,
                    None,
                    f"column {name!r} has the time zone {zone!r}, which this machine's time "
                    "zone database does not know",
                ) from None
        outside = _outside_the_calendar(column)
        if pc.any(outside).as_py():
            within = pc.if_else(outside, pa.scalar(None, column.type), column)
            days = pc.if_else(
                outside, column.cast(pa.string()), within.cast(pa.date32()).cast(pa.string())
            )
        else:
            days = column.cast(pa.date32())
        table = table.set_column(table.column_names.index(name), name, days)
    return table


def _past_the_calendar_as_text(table: pa.Table) -> pa.Table:
    """Date and timestamp columns other than the dates (``_timestamps_as_dates``) with a
    value outside the years 1..9999 as text: such a value as pyarrow's ``<value out of
    range: N>`` (N the number the file stores), the others as polars prints them.
    polars panics when it prints such a value (``invalid or out-of-range datetime``), a
    traceback, so those columns must reach it as text (docs/ingest.md "Generated
    hostile inputs": a date in a ``game_id``)."""
    for i, column in enumerate(table.columns):
        kind = column.type
        if not (pa.types.is_timestamp(kind) or pa.types.is_date(kind)):
            continue
        outside = _outside_the_calendar(column)
        if not pc.any(outside).as_py():
            continue
        within = pc.if_else(outside, pa.scalar(None, kind), column)
        shown = pl.Series(within).cast(pl.String).to_arrow().cast(pa.string())
        text = pc.if_else(outside, column.cast(pa.string()), shown)
        table = table.set_column(i, table.schema.field(i).name, text)
    return table


# A timestamp's ticks per day, by unit (nanoseconds span only 1677..2262: never outside).
_TICKS_PER_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000}


def _outside_the_calendar(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """True where a date or timestamp is outside the years 1..9999 (a day inside the
    bounds for timestamps, whose time zone may move the date by one)."""
    kind = column.type
    if pa.types.is_date32(kind):
        number, per_day = column.cast(pa.int32()), 1
    elif pa.types.is_date64(kind):
        number, per_day = column.cast(pa.int64()), 86_400_000
    elif kind.unit in _TICKS_PER_DAY:
        number, per_day = column.cast(pa.int64()), _TICKS_PER_DAY[kind.unit]
    else:  # nanoseconds
        return pc.and_(pc.is_valid(column), pa.scalar(False))
    margin = 0 if pa.types.is_date(kind) else 1
    low, high = (FIRST_DAY + margin) * per_day, (LAST_DAY - margin) * per_day
    return pc.or_(pc.less(number, low), pc.greater(number, high)).fill_null(False)


def _plain_number(dtype) -> bool:
    return dtype.is_integer() or dtype.is_float()


def typed_game_columns(schema) -> set[str]:
    """Columns of a games table validated as typed columns, not as text (docs/ingest.md
    "Typed columns"): an integer ``period``, a numeric ``score``, ``white_rating`` or
    ``black_rating``, a date ``date`` and a boolean ``rated``. Any other type is cast
    to text and parsed as a CSV field would be (the same checks, the same messages)."""
    kinds = {
        "period": lambda t: t.is_integer(),
        "score": _plain_number,
        "white_rating": _plain_number,
        "black_rating": _plain_number,
        "date": lambda t: t == pl.Date,
        "rated": lambda t: t == pl.Boolean,
    }
    return {name for name, ok in kinds.items() if name in schema and ok(schema[name])}


def _check_parquet_column(
    path: Path, name: str, column: pa.ChunkedArray, first_row: int = 1
) -> None:
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_nested(kind):
        raise InputError(
            path, None, f"column {name!r} has the nested type {kind}: only scalar columns are read"
        )
    if not _readable(column):
        raise InputError(
            path, None, f"column {name!r} has the type {kind}, which arpad cannot read"
        )
    text = _as_text(column, path, name)
    if pa.types.is_string(text.type) or pa.types.is_large_string(text.type):
        if not _may_hold_nul(text):
            return
        nul = pc.match_substring(text, "\x00")
        if pc.any(nul).as_py():
            row = pc.index(nul, True).as_py() + first_row
            raise InputError(path, row, f"column {name!r} holds a NUL character in row {row}")


# The Arrow types a column arpad reads may have (``_readable``; UUIDs besides).
READABLE_TYPES = (
    pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view,
    pa.types.is_integer, pa.types.is_floating, pa.types.is_boolean, pa.types.is_date,
    pa.types.is_timestamp, pa.types.is_decimal, pa.types.is_null, pa.types.is_binary,
    pa.types.is_large_binary, pa.types.is_binary_view, pa.types.is_fixed_size_binary,
)  # fmt: skip


def _readable(column: pa.ChunkedArray) -> bool:
    """A column type arpad reads: text (any Arrow string type), numbers, booleans,
    dates, timestamps, decimals, nulls, binary (if UTF-8), or a dictionary of those."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return _is_uuid(kind) or any(readable(kind) for readable in READABLE_TYPES)


def _kept(column: pa.ChunkedArray) -> bool:
    """An unknown column arpad keeps beside the ones it reads: one it can read, but not
    binary (a blob, DuckDB's INTERVAL as 12 bytes), which is never text anyone reads."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    binary = (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_binary_view(kind)
        or pa.types.is_fixed_size_binary(kind)
        or _is_uuid(kind)
    )
    return _readable(column) and not binary


def _is_uuid(kind) -> bool:
    """Parquet's UUID logical type (DuckDB's and Spark's UUID columns), read by pyarrow
    as the ``arrow.uuid`` extension type."""
    return isinstance(kind, pa.BaseExtensionType) and kind.extension_name == "arrow.uuid"


def _uuid_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """UUIDs as their canonical text, 8-4-4-4-12 lower-case hex digits."""
    storage = pa.chunked_array([c.storage for c in column.chunks], column.type.storage_type)
    hexed = pl.from_arrow(storage.cast(pa.binary())).bin.encode("hex")
    parts = [hexed.str.slice(a, b - a) for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))]
    text = pl.select(pl.concat_str(parts, separator="-")).to_series()
    return pa.chunked_array([text.to_arrow()]).cast(pa.large_string())


def _may_hold_nul(text: pa.ChunkedArray) -> bool:
    """False when no byte of the column's values is NUL: one vectorised look at each
    chunk's bytes (the row of a NUL is then found by ``match_substring``)."""
    import numpy as np

    for chunk in text.chunks:
        if len(chunk) == 0:
            continue
        buffers = chunk.buffers()
        if buffers[2] is None:
            continue
        wide = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(buffers[1], np.int64 if wide else np.int32)
        lo, hi = int(offsets[chunk.offset]), int(offsets[chunk.offset + len(chunk)])
        if not np.frombuffer(buffers[2], np.uint8)[lo:hi].all():
            return True
    return False


def _as_text(column: pa.ChunkedArray, path: Path | None = None, name: str = "") -> pa.ChunkedArray:
    """Binary columns as UTF-8 text (refused if they are not UTF-8), string views as
    strings and decimal256 as its decimal text (polars reads neither: a decimal256
    made it panic); others unchanged."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if pa.types.is_string_view(kind):
        return column.cast(pa.large_string())
    if _is_uuid(kind):
        return _uuid_text(column)
    if pa.types.is_decimal256(kind):
        return column.cast(pa.large_string())
    if not (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_binary_view(kind)
        or pa.types.is_fixed_size_binary(kind)
    ):
        return column
    try:
        return column.cast(pa.large_string())
    except pa.ArrowInvalid:
        raise InputError(
            path, None, f"column {name!r} holds binary data that is not UTF-8 text"
        ) from None


def column_name(header: str) -> str:
    """A header cell as a column name: case, surrounding spaces and runs of spaces or
    hyphens inside do not matter (``White ID``, ``white-id`` and ``WHITE_ID`` are
    ``white_id``; docs/ingest.md "Column names")."""
    # a byte-order mark left at the start of a name (a CSV read without stripping it,
    # then written as Parquet) is not part of it (docs/ingest.md "Parquet files attacked")
    return re.sub(r"[\s\-]+", "_", header.strip().lstrip("\ufeff").strip().lower())


# PGN tag names read as the columns they mean (docs/ingest.md "Column names"): a games
# table exported from PGN (White, Black, Result, Date, WhiteElo, …) ingests as it is.
TAG_ALIASES = {
    "white": "white_id",
    "black": "black_id",
    "whiteelo": "white_rating",
    "blackelo": "black_rating",
    "event": "event_id",
}


def tag_aliases(names: list[str], notes: list[str]) -> list[str]:
    """``names`` (lower-cased) with PGN tag names read as canonical columns; each
    renaming is noted. White and Black name the players only in a table without
    white_id/black_id; Event, WhiteElo and BlackElo are read wherever their column is
    missing (an ``Event`` column beside ``White ID`` was ignored unsaid, and FIDE's
    first-event rule, which needs the event, was not applied)."""
    present = set(names)
    players = {"white", "black"} <= present and not present & {"white_id", "black_id"}
    games = players or {"white_id", "black_id"} <= present  # a players file: untouched
    out = []
    for name in names:
        target = TAG_ALIASES.get(name) if games else None
        if name in ("white", "black") and not players:
            target = None
        if target is not None and target not in present:
            notes.append(f"column {name!r} read as {target}")
            out.append(target)
        else:
            out.append(name)
    return out


def name_columns(header: list[str], names: list[str], notes: list[str]) -> list[str]:
    """``names`` with a games file's columns of its players' names (``NAME_HEADINGS``)
    read as ``white_name`` and ``black_name``, when the file has both id columns; each
    renaming is noted. Before round 14 a pairing program's ``White,Black`` beside the
    id columns was "not read", and a mistyped id became a nameless new player unsaid
    (the rating officer's report, round 14)."""
    present = set(names)
    if not {"white_id", "black_id"} <= present:
        return names
    out = list(names)
    said = []
    for target, spellings in NAME_HEADINGS.items():
        at = next((names.index(s) for s in spellings if s in present), None)
        if at is None or names[at] == target:
            continue
        out[at] = target
        said.append(f"{capped(header[at].strip(), 40)} as {target}")
    if said:
        notes.append(f"column(s) read as the players' names: {', '.join(said)}")
    return out


# A players file's headings read as canonical columns (docs/ingest.md "Column names",
# decided in round 8): FIDE's list headings, as ``arpad list --format fide-txt`` writes
# them (pipeline/lists.py ``FIDE_TXT_LAYOUT``), and common spellings, each after
# ``column_name`` (``ID Number`` is ``id_number``, ``B-day`` ``b_day``). FIDE's ``Gms``
# is not here: it counts one period's games, not the rated games so far (``rated_games``,
# which sets K); nor are ``K`` and ``Flag``, which a list derives. They are named in the
# note of columns not read. The headings of one pool's rating (FIDE's combined file:
# SRtng, RRtng, BRtng; decided in round 9) are read as that pool's (``POOL_RATINGS``).
PLAYER_HEADINGS = {
    "player_id": ("ID Number", "ID", "FIDE ID", "FIDEID"),
    "federation": ("Fed",),
    "title": ("Tit",),
    "w_title": ("WTit",),
    "o_title": ("OTit",),
    "foa_title": ("FOA",),
    "rating": ("Elo", "Rtg", "Rtng", "FIDE rating"),
    "standard_rating": ("SRtng", "SRtg", "Std. rating", "Std rating"),
    "rapid_rating": ("RRtng", "RRtg"),
    "blitz_rating": ("BRtng", "BRtg"),
    "birth_year": ("B-day", "Born", "Birthyear", "Year of birth", "YOB"),
    "birth_date": ("Date of birth", "Birthdate", "DOB"),
    "sex": ("Gender",),
}
PLAYER_ALIASES = {
    column_name(heading): target
    for target, headings in PLAYER_HEADINGS.items()
    for heading in headings
}
# FIDE heads a list's rating column with the month the list takes effect (``DEC25``).
_LIST_MONTH = re.compile(r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\d{2}$")


def player_aliases(
    path: Path, header: list[str], names: list[str], kind: str | None, notes: list[str]
) -> list[str]:
    """``names`` (``column_name``'d) of a file that is not a games file with
    ``PLAYER_ALIASES`` and FIDE's month headings read as canonical columns; the renamings
    are noted in one note. A canonical column present beside an alias of it is kept, the
    alias left unread (as ``tag_aliases`` does); two aliases of one column without it
    (``Elo`` and ``DEC25``, ``ID`` and ``FIDE ID``) are refused, naming both."""
    present = set(names)
    if kind == "games" or present & {"white_id", "black_id"}:
        return names
    targets = ["rating" if _LIST_MONTH.match(n) else PLAYER_ALIASES.get(n) for n in names]
    read: dict[str, int] = {}
    for i, target in enumerate(targets):
        if target is None or target in present:
            continue
        if target in read:
            first = header[read[target]]
            why = (
                " (a players file gives one rating of every pool per row, or one of each pool "
                "headed SRtng, RRtng, BRtng, or one row per pool with a pool column)"
                if target == "rating"
                else ""
            )
            raise InputError(
                path,
                1,
                f"columns {capped(first, 40)!r} and {capped(header[i], 40)!r} would both be "
                f"read as {target}{why}: keep one, or head it {target}",
            )
        read[target] = i
    at = {i: t for t, i in read.items()}
    out = [at.get(i, n) for i, n in enumerate(names)]
    _one_kind_of_rating(path, header, out)
    if read:
        said = ", ".join(f"{capped(header[i], 40)} as {t}" for t, i in read.items())
        notes.append(f"column(s) read as arpad's: {said}")
    return out


def _one_kind_of_rating(path: Path, header: list[str], names: list[str]) -> None:
    """Refuse a column of one pool's rating (``POOL_RATINGS``: SRtng, Rapid rating, …)
    beside a rating of every pool (``rating``, ``Elo``) or a ``pool`` column: which pool
    a row's rating is of would be said twice (docs/ingest.md "Column names")."""
    pooled = next((i for i, n in enumerate(names) if n in POOL_RATINGS), None)
    other = next((i for i, n in enumerate(names) if n in ("rating", "pool")), None)
    if pooled is None or other is None:
        return
    a, b = capped(header[other], 40), capped(header[pooled], 40)
    pool = POOL_RATINGS[names[pooled]]
    said = (
        f"both give a rating: {a!r} of every pool, {b!r} of the {pool} pool only"
        if names[other] == "rating"
        else f"both say a rating's pool: {a!r} each row's, {b!r} the {pool} pool"
    )
    raise InputError(
        path,
        1,
        f"columns {a!r} and {b!r} {said}: keep one (a players file gives either one "
        "rating of every pool, or one of each pool headed SRtng, RRtng, BRtng, or one "
        "row per pool with a pool column)",
    )


def pool_ratings(frame: pl.DataFrame, kind: str) -> pl.DataFrame:
    """A players file's columns of one pool's rating (``POOL_RATINGS``; FIDE's SRtng,
    RRtng, BRtng, decided in round 9): the first of them (standard's when given) is the
    row's ``rating`` and a ``pool`` column names its pool, so that it seeds that pool only
    (docs/observations.md "Undated ratings and pools"); the others stay as they are, and
    ``observations.dated_players`` gives each its pool. Before, SRtng was read as a
    rating of every pool, and SRtng beside RRtng was refused."""
    pooled = [c for c in POOL_RATINGS if c in frame.columns]
    if kind != "players" or not pooled:
        return frame
    first = pooled[0]
    return frame.rename({first: "rating"}).with_columns(pl.lit(POOL_RATINGS[first]).alias("pool"))


# The columns validation reads, by kind of file (others are named in a note).
READ_COLUMNS = {
    "games": {*GAME_COLUMNS, "date_precision", *NAME_HEADINGS},
    "players": {*PLAYER_COLUMNS, "date", "pool", *POOL_RATINGS},
}
# Headings of games counts that are not ``rated_games`` (``PLAYER_ALIASES``).
_PERIOD_GAMES = {"gms", "games", "sgm", "rgm", "bgm"}


def unread_note(header: list[str], names: list[str], kind: str, notes: list[str]) -> None:
    """A note naming the columns of the file that are not read (``READ_COLUMNS``), as
    headed in the file: a column was left out unsaid (the new user's report, round 8).
    A ratings table's columns (``rate``'s result as a CSV: ``rating_after`` and no
    ``rating``) are not named: validate.py ``ratings_table`` reads it, and says how."""
    read = READ_COLUMNS[kind]
    ratings = kind == "players" and "rating_after" in names and "rating" not in names
    if ratings:
        from arpad.pipeline.schemas import RATINGS

        read = read | set(RATINGS.names)
    unread = [h for h, n in zip(header, names) if n not in read]
    if not unread:
        return
    named = [capped(h.strip().lstrip("\ufeff").strip(), 40) for h in unread]
    shown = [h for h in named if h][:10]
    more = len([h for h in named if h]) - len(shown)
    nameless = len(named) - len([h for h in named if h])
    text = ", ".join(shown)
    if more:
        text += f" and {more} more"
    if nameless:
        text += f"{', ' if text else ''}{nameless} without a name"
    hint = ""
    if kind == "players" and not ratings and {n for n in names if n in _PERIOD_GAMES}:
        hint = (
            " (FIDE's Gms counts one period's games; the rated games so far, which set "
            "K, go in rated_games)"
        )
    notes.append(f"columns not read: {text}{hint}")


# An opponent id that says "no opponent" (docs/ingest.md "Byes and double forfeits"),
# any case, surrounding spaces ignored: a pairing program's or spreadsheet's bye.
BYE_IDS = ("bye", "(bye)", "[bye]", "-bye-", "spielfrei", "freilos", "-")
_BYE_HINTS = ["bye", "spielfrei", "freilos", "-"]  # each marker holds one (a cheap look first)
_BYE_BYTES = 24  # no marker, with the spaces around it, is longer (a UUID id is 36)
# A double forfeit (no game: neither player came), any case, spaces anywhere: ``- - -``,
# ``-:-``, ``-/-``, ``--``, ``0-0 F``, ``0:0 (F)``. ``0-0`` without the F stays
# unknown_result (docs/ingest.md "Result codes").
DOUBLE_FORFEIT = (
    r"(?i)^\s*(-\s*[-–—:/]?\s*-|0\s*[-–—:]\s*0\s*(f|ff|forfeit|\(f\)|\(ff\)|\(forfeit\)))\s*$"
)
NOT_STORED_SHOWN = 5  # lines named in the note


def without_non_games(
    frame: pl.DataFrame, kind: str, notes: list[str]
) -> tuple[pl.DataFrame, dict[str, int], dict[str, list[int]]]:
    """A games table's rows that are no game left out, counted, their first lines kept,
    and noted (``not_stored_notes``), as the TRF reader counts byes and double forfeits:
    a bye (an id in ``BYE_IDS`` against a player) and a double forfeit (a result
    matching ``DOUBLE_FORFEIT``). A row with an empty id is left to validation
    (``empty_player_id``). Before round 8 a ``BYE`` was stored as a player with rated
    games (the new user's report). One cheap look at the ids (a literal search) and
    one anchored pattern on the results when there is nothing to leave out."""
    if kind != "games" or not frame.height or not {"white_id", "black_id"} <= set(frame.columns):
        return frame, {}, {}

    def hint(name: str) -> pl.Expr:
        value = pl.col(name).cast(pl.String)
        short = value.str.len_bytes() <= _BYE_BYTES
        return short & value.str.contains_any(_BYE_HINTS, ascii_case_insensitive=True)

    some = (hint("white_id") | hint("black_id")).fill_null(False)
    result = (
        pl.col("result").cast(pl.String) if "result" in frame.columns else pl.lit(None, pl.String)
    )
    double = result.str.contains(DOUBLE_FORFEIT).fill_null(False)
    looks = frame.select(some.any().alias("bye"), double.any().alias("forfeit")).row(0)
    if not any(looks):
        return frame, {}, {}
    ids = [pl.col(c).cast(pl.String).str.strip_chars() for c in ("white_id", "black_id")]
    both = pl.all_horizontal([i.str.len_bytes() > 0 for i in ids]).fill_null(False)
    if looks[0]:
        bye = some & pl.any_horizontal([i.str.to_lowercase().is_in(BYE_IDS) for i in ids]) & both
        bye = bye.fill_null(False)
    else:
        bye = pl.lit(False)
    flags = frame.select(bye.alias("bye"), (double & both & ~bye).alias("forfeit"))
    lines = frame.get_column("_line")
    not_stored, shown = {}, {}
    for key, flag in (("byes", "bye"), ("double_forfeits", "forfeit")):
        mask = flags.get_column(flag)
        if mask.any():
            not_stored[key] = int(mask.sum())
            shown[key] = lines.filter(mask).head(NOT_STORED_SHOWN).to_list()
    if not not_stored:  # an id such as "GER-1" holds a hint and is no bye
        return frame, {}, {}
    notes.extend(not_stored_notes(not_stored, shown))
    keep = ~(flags.get_column("bye") | flags.get_column("forfeit"))
    return frame.filter(keep), not_stored, shown


def not_stored_notes(counts: dict[str, int], lines: dict[str, list[int]]) -> list[str]:
    """The summary's notes of the byes and double forfeits ``without_non_games`` left
    out (a streamed file's slices added up, pipeline/stream_ingest.py)."""
    out = []
    for key, one, many, what in (
        ("byes", "bye", "byes", f"an opponent written {', '.join(BYE_IDS)}, any case"),
        ("double_forfeits", "double forfeit", "double forfeits", "result - - -, -:- or 0-0 F"),
    ):
        n = counts.get(key, 0)
        if not n:
            continue
        shown = lines.get(key, [])[:NOT_STORED_SHOWN]
        at = ", ".join(map(str, shown)) + (", …" if n > len(shown) else "")
        word = "line" if n == 1 else "lines"
        out.append(
            f"{n} {one if n == 1 else many} ({what}; {word} {at}): not "
            f"{'a game' if n == 1 else 'games'}, counted and not stored"
        )
    return out


def _choose_mapping(
    path: Path, header: list[str], name: str | None, notes: list[str] | None = None
) -> Mapping | None:
    """The named mapping (``name``), or the one whose header ``header`` is. A header
    that holds every column of a mapping, in any order and beside other columns (a
    pandas index written as a first unnamed column, an added column), is read with it
    too: named, or detected when the header has no canonical id column; the other
    columns are noted and left unread (docs/ingest.md "Named mappings"). Names are
    compared as ``column_name`` reads them: any case, surrounding spaces ignored
    (``month #`` is ``Month #``; a lower-cased export was refused before round 8)."""
    keys = [column_name(h) for h in header]
    present = set(keys)
    if name:
        if name not in MAPPINGS:
            raise InputError(path, None, f"unknown mapping {name!r} (known: {', '.join(MAPPINGS)})")
        mapping = MAPPINGS[name]
        missing = [h for h in mapping.header if column_name(h) not in present]
        if missing:
            found = ", ".join(repr(capped(h, 40)) for h in header[:20])
            more = f" and {len(header) - 20} more" if len(header) > 20 else ""
            raise InputError(
                path,
                1,
                f"header does not match mapping {name!r}: it lacks "
                f"{', '.join(map(repr, missing))} (found: {found}{more}; the mapping's "
                f"columns, any case: {', '.join(map(repr, mapping.header))})",
            )
    else:

        def wanted(m: Mapping) -> list[str]:
            return [column_name(h) for h in m.header]

        exact = [m for m in MAPPINGS.values() if keys == wanted(m)]
        within = [
            m
            for m in MAPPINGS.values()
            if set(wanted(m)) <= present and not present & {"white_id", "black_id", "player_id"}
        ]
        if not (exact or within):
            if keys == ["teid", "monthid", "whiteplayer", "blackplayer"]:
                raise InputError(
                    path, 1, "Deloitte 2011 test file without results: use test_solution.csv"
                )
            return None
        mapping = (exact or within)[0]
    read = {column_name(h) for h in mapping.header}
    other = [h for h, k in zip(header, keys) if k not in read]
    if other and notes is not None:
        shown = ", ".join(repr(capped(h, 40)) for h in other[:10])
        more = f" and {len(other) - 10} more" if len(other) > 10 else ""
        why = {column_name(k): f"{k}: {v}" for k, v in mapping.unread.items()}
        said = "; ".join(why[k] for k in dict.fromkeys(keys) if k in why and k not in read)
        notes.append(
            f"mapping {mapping.name!r}: column(s) {shown}{more} not read"
            + (f" ({said})" if said else "")
        )
    return mapping


def _detect_kind(path: Path, names: list[str], kind: str | None) -> str:
    if kind:
        return kind
    if "white_id" in names or "black_id" in names:
        return "games"
    if "player_id" in names:
        return "players"
    # a PGN file under another name (games.txt): its first line is a tag pair
    pgn = "; it looks like PGN: use --format pgn" if names and names[0].startswith("[") else ""
    raise InputError(
        path,
        1,
        f"header {names} is neither a games file (white_id, black_id, …) "
        f"nor a players file (player_id, …) nor a known mapping{pgn}",
    )


def _check_columns(path: Path, names: list[str], kind: str, header: list[str]) -> None:
    """Refuse a file without its kind's required columns, naming the columns found."""
    if kind == "games":
        missing = [c for c in ("white_id", "black_id") if c not in names]
        if not ({"result", "score"} & set(names)):
            missing.append("result or score")
        if not ({"date", "period"} & set(names)):
            missing.append("date or period")
    else:
        missing = [] if "player_id" in names else ["player_id"]
    if missing:
        found = ", ".join(capped(h, 40) or "(no name)" for h in header[:20])
        if len(header) > 20:
            found += f" and {len(header) - 20} more"
        hint = (
            " (the player's id is headed player_id, ID, ID Number or FIDE ID)"
            if "player_id" in missing
            else ""
        )
        if kind == "players" and {"white_id", "black_id"} <= set(names):
            # a games file given as --players (new user, round 10)
            hint = " (this is a games file, not a players file)"
        elif kind == "games" and "player_id" in names and not {"white_id", "black_id"} & set(names):
            hint = " (this is a players file, not a games file)"
        raise InputError(
            path, 1, f"missing required column(s): {', '.join(missing)}{hint}; found: {found}"
        )


READERS: dict[str, Callable[..., RawTable]] = {"csv": read_csv, "parquet": read_parquet}
SUFFIXES = {
    ".csv": "csv",
    ".txt": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv.gz": "csv",
    ".txt.gz": "csv",
    ".csv.zip": "csv",
}


def _zip_of_csv(path: Path) -> bool:
    """A ``.zip`` holding CSV members and no PGN (else it is read as PGN)."""
    import zipfile

    from arpad.pipeline.archives import ZIP_ERRORS

    try:
        with zipfile.ZipFile(path) as zf:
            names = [n.lower() for n in zf.namelist()]
    except ZIP_ERRORS:  # damaged, or a newer zip version than Python reads
        return False  # the PGN reader names the problem
    return not any(n.endswith(".pgn") for n in names) and any(n.endswith(".csv") for n in names)


# A spreadsheet's own file (docs/ingest.md "Spreadsheet workbooks"): arpad reads none;
# by name (refused when the format is not given) and by content (refused always).
WORKBOOK_SUFFIXES = {
    ".xlsx": "an Excel workbook",
    ".xlsm": "an Excel workbook",
    ".xlsb": "an Excel workbook",
    ".xls": "an Excel workbook",
    ".ods": "a spreadsheet workbook (OpenDocument)",
}
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the container of .xls (and .doc) files
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"


def workbook_problem(what: str) -> str:
    return f"{what}: save it as CSV (File > Save As > CSV UTF-8) and ingest the CSV"


def _workbook_inside(path: Path) -> str | None:
    """What spreadsheet workbook the file's bytes are, whatever its name, else None:
    an OLE2 container (.xls), a zip holding ``[Content_Types].xml`` and ``xl/`` (.xlsx)
    or OpenDocument's spreadsheet ``mimetype`` (.ods). Only the zip's directory (and
    at most 100 bytes of its ``mimetype``) is read."""
    import zipfile

    from arpad.pipeline.archives import ZIP_ERRORS

    with open(path, "rb") as fh:
        head = fh.read(8)
    if head == OLE2:
        return "an Excel workbook (.xls)"
    if not head.startswith(b"PK\x03\x04"):
        return None
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if "[Content_Types].xml" in names and any(n.startswith("xl/") for n in names):
                return "an Excel workbook"
            if "mimetype" in names:
                with zf.open("mimetype") as member:
                    if member.read(100).strip() == ODS_MIMETYPE:
                        return "a spreadsheet workbook (OpenDocument)"
    except ZIP_ERRORS:  # damaged: the reader of its format names the problem
        return None
    return None


def detect_format(path: Path) -> str:
    _refuse_unread_compression(path)
    name = path.name.lower()
    for suffix, what in WORKBOOK_SUFFIXES.items():
        if name.endswith(suffix):  # text saved under such a name is read with --format csv
            problem = workbook_problem(what)
            raise InputError(path, None, f"{problem} (text under this name: --format csv)")
    if name.endswith(".zip") and not name.endswith(".pgn.zip") and _zip_of_csv(path):
        return "csv"
    for suffix, fmt in sorted(SUFFIXES.items(), key=lambda kv: -len(kv[0])):
        if name.endswith(suffix):
            return fmt
    if name.endswith((".xml", ".xml.gz", ".xml.zip")):  # FIDE's XML list (fide-xml)
        raise InputError(
            path,
            None,
            "an XML file (a FIDE XML rating list?) is not read: give the players as CSV or "
            "as FIDE's fixed-width TXT list (arpad list --format csv or fide-txt writes them)",
        )
    raise InputError(
        path, None, f"cannot tell the format from the name; use --format ({', '.join(READERS)})"
    )


def check_input_file(path: Path) -> None:
    """Refuse, as bad input, a path that is no readable regular file."""
    if str(path) == "-" or _standard_stream(path):
        # /dev/stdin of a redirected file is a regular file, but its name is the same
        # for every input: the second ingest would replace the first as its new version
        raise InputError(
            path,
            None,
            "standard input (or a descriptor under /dev or /proc) is not read: save the "
            "data to a file first and name it (the file's name is its source identity)",
        )
    if problem := _missing(path):
        raise InputError(path, None, problem)
    if path.is_dir():
        raise InputError(path, None, "is a directory: name the files in it (e.g. DIR/*.pgn)")
    if not path.is_file():
        raise InputError(path, None, "is not a regular file (a device, a pipe or a socket)")
    try:  # the name is recorded (source, label, quarantine rows) as UTF-8 text
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            path, None, "the file's name is not valid UTF-8 (the store records it): rename it"
        ) from None
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        workbook = _workbook_inside(path)
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    if workbook:  # whatever its name or --format says
        raise InputError(path, None, workbook_problem(workbook))


def _missing(path: Path) -> str | None:
    """Why ``path`` names no file, None when it does: a symlink loop and a symlink to a
    path that does not exist are named as such (``Path.exists()`` says False for both,
    and they were reported as "no such file", docs/cli.md)."""
    import errno
    import os

    try:
        os.stat(path)
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "too many levels of symbolic links (a symlink loop)"
        if exc.errno == errno.ENAMETOOLONG:
            return "file name too long"
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):  # EACCES on a directory on the way
            return f"cannot be read: {exc.strerror or exc}"
    if os.path.islink(path):
        return f"a symbolic link to {os.readlink(path)}, which does not exist"
    glob = " (a pattern that matched no file is passed on as it is)"
    return f"no such file{glob if set('*?[') & set(path.name) else ''}"


def _standard_stream(path: Path) -> bool:
    """Whether ``path``, or a symlink on the way to its file, is under /dev or /proc
    (``/dev/stdin``, ``/dev/fd/0``, ``/proc/self/fd/0``)."""
    import os

    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit of symlinks followed
        if here.startswith(("/dev/", "/proc/")):
            return True
        try:
            target = os.readlink(here)
        except OSError:  # not a symlink (or not there): the file itself
            return False
        here = os.path.abspath(os.path.join(os.path.dirname(here), target))
    return False


# What a file's first bytes say it is, whatever its name (docs/ingest.md).
MAGIC = (
    (b"PAR1", "a Parquet file", "use --format parquet or name it .parquet"),
    (b"\x1f\x8b", "gzip-compressed", "name it .csv.gz or .pgn.gz"),
    (b"PK\x03\x04", "a zip archive", "name it .zip"),
)
SUFFIX_OF = {"csv": (".gz", ".zip"), "pgn": (".gz", ".zip"), "parquet": ()}
FORMAT_NAMES = {"csv": "CSV", "pgn": "PGN", "trf": "TRF", "parquet": "Parquet"}
# Compressions arpad does not read, whatever the file's name or --format: named as such
# (not "binary data" or "cannot tell the format") with the way out.
UNREAD_COMPRESSION = (
    (b"BZh", "bzip2-compressed", "bunzip2"),
    (b"\xfd7zXZ", "xz-compressed", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd"),
    (b"7z\xbc\xaf", "a 7-Zip archive", "7z x"),
)


def _refuse_unread_compression(path: Path) -> None:
    """Refuse a bzip2, xz, zstd or 7-Zip file by what it is (docs/ingest.md)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(6)
    except OSError:
        return  # the reader names the problem
    for magic, what, tool in UNREAD_COMPRESSION:
        if head.startswith(magic) and (magic != b"BZh" or head[3:4] in b"123456789"):
            raise InputError(
                path,
                None,
                f"is {what}; arpad reads plain files, gzip (.gz) and zip: "
                f"decompress it first ({tool}) or compress it with gzip",
            )


def _check_content(path: Path, fmt: str, given: bool = False) -> None:
    """Refuse, with the fix, a file whose first bytes contradict the format its name
    gives (a Parquet file named .csv, a gzip file named .csv), or ``--format`` when
    ``given`` (``--format csv`` on a Parquet file was "binary data (NUL byte)")."""
    with open(path, "rb") as fh:
        head = fh.read(4)
    name = path.name.lower()
    for magic, what, fix in MAGIC:
        if not head.startswith(magic):
            continue
        if what == "a Parquet file" and fmt == "parquet":
            return
        if what != "a Parquet file" and name.endswith(SUFFIX_OF.get(fmt, ())):
            return
        if given:
            fix = "use --format parquet" if what == "a Parquet file" else fix
            named = FORMAT_NAMES.get(fmt, fmt)
            raise InputError(path, None, f"is {what}, not {named} (--format {fmt}): {fix}")
        raise InputError(path, None, f"is {what}, not what its name says: {fix}")


def _text_kind(head: bytes) -> str | None:
    """What text the first bytes of a file are (``pgn``, ``trf`` or ``csv``: a PGN's
    ``[Event``, a TRF's ``012 ``), None when they are no text (a control byte other
    than TAB, LF, FF or CR; UTF-16 is decoded first). For the hint of a file read as
    Parquet that is none."""
    from arpad.pipeline.pgn import from_utf16

    for cut in (head, head[:-1]):  # (a UTF-16 head cut after an odd byte)
        try:
            head = from_utf16(cut, Path("head"), [])
            break
        except InputError:
            continue
    if any((b < 32 and b not in b"\t\n\x0c\r") or b == 127 for b in head):
        return None
    text = head.decode("latin-1").lstrip("\ufeff\xef\xbb\xbf \t\r\n")  # (a UTF-8 BOM)
    if text.startswith("["):
        return "pgn"
    if re.match(r"\d{3} ", text):
        return "trf"
    return "csv"


def _parquet_problem(path: Path, exc: BaseException) -> str:
    """The message of a file the Parquet reader cannot open: what it is, from its first
    bytes, and the fix (a CSV file named .parquet got PyArrow's "Parquet magic bytes
    not found in footer"); PyArrow's words when it does begin as a Parquet file."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        head = b"PAR1"
    if head.startswith(b"PAR1"):
        return f"not a readable Parquet file: {exc}"
    if not head:
        return "is empty (0 bytes): not a Parquet file"
    for magic, what, fix in MAGIC:
        if head.startswith(magic):
            return f"is {what}, not a Parquet file: {fix}"
    if fmt := _text_kind(head):
        return (
            f"is not a Parquet file (no PAR1 header): it is text ({FORMAT_NAMES[fmt]}?): "
            f"use --format {fmt} or name it .{fmt}"
        )
    return f"is not a Parquet file (no PAR1 header): not a readable Parquet file: {exc}"


def read_any(
    path: Path,
    fmt: str | None = None,
    mapping: str | None = None,
    kind: str | None = None,
    encoding: str | None = None,
) -> RawTable:
    """The file read by the reader of its format. ``encoding``: the code page of a
    text file that is not UTF-8 (``--encoding``; ``encoding_name``), else told from
    its letters (``decode``)."""
    if encoding is not None:
        token = _ENCODING.set(encoding_name(encoding))
        try:
            return read_any(path, fmt, mapping, kind)
        finally:
            _ENCODING.reset(token)
    check_input_file(path)
    given = bool(fmt)
    if given:  # detect_format refuses them otherwise
        _refuse_unread_compression(path)
    else:
        fmt = detect_format(path)
        _check_content(path, fmt)
    fmt = fmt.strip().lower()  # --format CSV as --format csv
    if fmt not in READERS:
        raise InputError(path, None, f"unknown format {fmt!r} (known: {', '.join(READERS)})")
    if given:
        _check_content(path, fmt, given=True)
    return READERS[fmt](path, mapping=mapping, kind=kind)


# Readers in their own modules register themselves in READERS/SUFFIXES on import.
from arpad.pipeline import pgn as _pgn  # noqa: E402, F401
from arpad.pipeline import trf as _trf  # noqa: E402, F401
