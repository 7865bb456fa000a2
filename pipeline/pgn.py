"""PGN reader: the tag section of every game, without parsing moves (docs/pgn-trf.md).

One compiled pass (``_scan``, Numba) walks the file's UTF-8 bytes: it splits
lines, strips them, finds where games start, parses the tag pairs and keeps, per
game, the byte ranges of the wanted tag values and of the first, second and last
movetext lines (no Python object per line). Tag values become Polars string
columns cut from the bytes; the per-game rules below are Polars expressions over
one row per game (target ≥ 200k games/s, benchmarks/bench_pgn.py). Per game we read the Seven Tag Roster plus
WhiteElo/BlackElo, WhiteFideId/BlackFideId, WhiteTitle/BlackTitle, TimeControl
and EventDate, and whether the movetext holds at least one move.

Decisions (the PGN standard, "PGN Standard 1994-03-12" §8, leaves them open):

* A game whose movetext is only a termination marker (``1-0``) was not played
  (a forfeit): stored with ``rated = false``.
* ``Date`` ``YYYY.MM.DD`` gives the date; ``YYYY.MM.??`` the period ``YYYYMM``;
  ``YYYY.??.??`` the period ``YYYY01`` (January of the year). An unknown Date
  falls back to ``EventDate`` the same way; no date at all is ``missing_period``.
* Pool: ``TimeControl`` when it is a time control (base + 60 × increment ≤ 10
  min blitz, < 60 min rapid, else standard; FIDE Laws, Appendices A and B),
  else the words blitz/bullet/rapid in ``Event``, else standard.
* Player id: the FIDE id (``WhiteFideId``) when present (also for the same
  name's other games in the file), else ``<file name>:<player name>``.
* Elo ``""``, ``"?"``, ``"-"`` and ``"0"`` mean unrated.
* A game without a termination marker at the end of its movetext is
  ``truncated_game``; a Result tag that contradicts the marker is ``result_mismatch``.
"""

from __future__ import annotations

import codecs
import gzip
import zipfile
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from kernels.config import jit
from pipeline import readers
from pipeline.errors import InputError
from pipeline.readers import RawTable, decode

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
)
TERMINATION = r"(1-0|0-1|1/2-1/2|\*)"
MARKERS = (None, "1-0", "0-1", "1/2-1/2", "*")
_HALF = np.frombuffer(b"1/2-1/2", np.uint8)
UNRATED_ELO = ("", "?", "-", "0")
BLITZ_MAX_SECONDS = 600  # FIDE Laws of Chess, Appendix B.1: 10 minutes or less
RAPID_MAX_SECONDS = 3600  # Appendix A.1: more than 10 and less than 60 minutes


def load_bytes(path: Path, notes: list[str]) -> bytes:
    """The file's bytes; ``.gz`` decompressed, ``.zip`` members concatenated in name order."""
    name = path.name.lower()
    data = path.read_bytes()
    if name.endswith(".gz"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(path, None, f"not a readable gzip file: {exc}") from None
    if name.endswith(".zip"):
        try:
            with zipfile.ZipFile(path) as zf:
                members = sorted(i.filename for i in zf.infolist() if not i.is_dir())
                parts, line = [], 1
                for member in members:
                    body = zf.read(member)
                    if body and not body.endswith(b"\n"):
                        body += b"\n"
                    notes.append(f"zip member {member} starts at line {line}")
                    line += body.count(b"\n")
                    parts.append(body)
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(path, None, f"not a readable zip file: {exc}") from None
        if not members:
            raise InputError(path, None, "empty zip archive: no PGN member")
        return b"".join(parts)
    return data


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


def event_pool(event: str | None) -> str | None:
    """Pool named by an event title: blitz/bullet -> blitz, rapid -> rapid."""
    if not event:
        return None
    text = event.lower()
    if "blitz" in text or "bullet" in text:
        return "blitz"
    if "rapid" in text:
        return "rapid"
    return None


def _map_unique(expr_name: str, frame: pl.DataFrame, func) -> pl.Expr:
    values = frame.get_column(expr_name).unique().to_list()
    mapping = {v: func(v) for v in values if v is not None}
    return pl.col(expr_name).replace_strict(mapping, default=None, return_dtype=pl.String)


def _date_and_period(col: str) -> tuple[pl.Expr, pl.Expr]:
    """(date text, period text) of a PGN date tag; see the module docstring."""
    d = pl.col(col).str.strip_chars()
    full = d.str.contains(r"^\d{4}[.\-/]\d{2}[.\-/]\d{2}$")
    month = d.str.contains(r"^\d{4}\.\d{2}\.\?\?$")
    year = d.str.contains(r"^\d{4}\.\?\?\.\?\?$")
    unknown = d.is_null() | d.str.contains(r"^[?.\-]*$")
    date = pl.when(full).then(d).when(month | year | unknown).then(None).otherwise(d)
    period = (
        pl.when(month)
        .then(d.str.slice(0, 4) + d.str.slice(5, 2))
        .when(year)
        .then(d.str.slice(0, 4) + "01")
        .otherwise(None)
    )
    return date, period


def _ws_fwd(buf, i, end):
    """Byte length of the Unicode White_Space character starting at ``buf[i]`` (0: none).

    The set is Rust's ``char::is_whitespace``, i.e. what Polars ``str.strip_chars()``
    strips: ASCII 9-13 and 32, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
    U+202F, U+205F, U+3000 (UTF-8 encoded)."""
    c = buf[i]
    if c == 32 or (c >= 9 and c <= 13):
        return 1
    if c < 0x80:
        return 0
    if c == 0xC2:
        if i + 1 < end and (buf[i + 1] == 0x85 or buf[i + 1] == 0xA0):
            return 2
        return 0
    if i + 2 < end:
        return 3 if _ws3(c, buf[i + 1], buf[i + 2]) else 0
    return 0


def _ws3(c0, c1, c2):
    if c0 == 0xE2:
        if c1 == 0x80:
            return c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF
        return c1 == 0x81 and c2 == 0x9F
    if c0 == 0xE1:
        return c1 == 0x9A and c2 == 0x80
    if c0 == 0xE3:
        return c1 == 0x80 and c2 == 0x80
    return False


def _ws_back(buf, j, start):
    """Byte length of the White_Space character ending just before ``buf[j]`` (0: none)."""
    c = buf[j - 1]
    if c == 32 or (c >= 9 and c <= 13):
        return 1
    if c < 0x80:
        return 0
    if j - 2 >= start and buf[j - 2] == 0xC2 and (c == 0x85 or c == 0xA0):
        return 2
    if j - 3 >= start and _ws3(buf[j - 3], buf[j - 2], c):
        return 3
    return 0


_ws3 = jit(_ws3)
_ws_fwd = jit(_ws_fwd)
_ws_back = jit(_ws_back)


# Layout of a game's row in the scan result (int64; -1: absent).
_LINE, _BAD, _MOVE, _MARKER, _FIRST, _SECOND, _LAST, _VALUES = 0, 1, 2, 3, 4, 6, 8, 10
_WIDTH = _VALUES + 2 * len(TAGS)


@jit
def _line_move(buf, a, b):
    """1 if the line holds a letter (a move), 0 if not, -1 if it holds comment
    characters ({, }, ;): then only the regular expressions of ``has_move`` decide."""
    letter = 0
    for q in range(a, b):
        c = buf[q]
        if c == 123 or c == 125 or c == 59:
            return -1
        if (c >= 65 and c <= 90) or (c >= 97 and c <= 122):
            letter = 1
    return letter


@jit
def _line_marker(buf, a, b):
    """Termination marker ending the stripped line ``buf[a:b]`` (0: none, 1-4: MARKERS);
    -1 when the line holds '}' (a trailing comment: the regular expressions decide).
    No marker is a suffix of another, and a stripped line has no trailing blanks."""
    for q in range(a, b):
        if buf[q] == 125:
            return -1
    n = b - a
    if buf[b - 1] == 42:
        return 4
    if n >= 3 and buf[b - 2] == 45:
        if buf[b - 3] == 49 and buf[b - 1] == 48:
            return 1
        if buf[b - 3] == 48 and buf[b - 1] == 49:
            return 2
    if n >= 7:
        for q in range(7):
            if buf[b - 7 + q] != _HALF[q]:
                return 0
        return 3
    return 0


@jit
def _close_game(buf, row):
    if row[_LAST] >= 0:
        row[_MARKER] = _line_marker(buf, row[_LAST], row[_LAST + 1])


@jit
def _scan(buf, names, name_len):
    """One pass over the UTF-8 bytes of a PGN file (the rules of ``read_pgn``).

    Lines end at LF, CRLF or CR; each is stripped of White_Space; blank lines and
    ``%`` escape lines are skipped. A game starts at a tag line after a non-tag line
    (or at the first tag line) or at an ``[Event `` line. Returns one row per game
    (layout ``_LINE`` ... ``_VALUES``: first line, first malformed tag line, has a
    move, termination marker, byte ranges of the first, second and last movetext
    lines and of the first value of each wanted tag) and ``pre``: lines of text
    before the first tag, the first one's line and byte range, the first kept line
    and the number of tag lines."""
    n = buf.size
    ntag = names.shape[0]
    games = np.empty((n // 2048 + 16, _WIDTH), np.int64)
    nt = 0
    g = 0
    prev_tag = False
    pre_n = 0
    pre_line = -1
    pre_a = 0
    pre_b = 0
    first_kept = -1
    line = 0
    i = 0
    while i <= n:
        j = i
        while j < n and buf[j] != 10 and buf[j] != 13:
            j += 1
        line += 1
        if j < n:
            nxt = j + 2 if (buf[j] == 13 and j + 1 < n and buf[j + 1] == 10) else j + 1
        else:
            nxt = n + 1
        a = i
        b = j
        i = nxt
        while a < b:
            w = _ws_fwd(buf, a, b)
            if w == 0:
                break
            a += w
        while b > a:
            w = _ws_back(buf, b, a)
            if w == 0:
                break
            b -= w
        if a == b or buf[a] == 37:  # blank or a '%' escape line
            continue
        if first_kept < 0:
            first_kept = line
        if buf[a] != 91:  # movetext (or text before the first tag)
            prev_tag = False
            if g == 0:
                if pre_n == 0:
                    pre_line = line
                    pre_a = a
                    pre_b = b
                pre_n += 1
                continue
            row = games[g - 1]
            if row[_FIRST] < 0:
                row[_FIRST] = a
                row[_FIRST + 1] = b
                row[_MOVE] = _line_move(buf, a, b)
            elif row[_SECOND] < 0:
                row[_SECOND] = a
                row[_SECOND + 1] = b
                if row[_MOVE] == 0:
                    row[_MOVE] = _line_move(buf, a, b)
            row[_LAST] = a
            row[_LAST + 1] = b
            continue
        event = (
            b - a >= 7
            and buf[a + 1] == 69  # E
            and buf[a + 2] == 118  # v
            and buf[a + 3] == 101  # e
            and buf[a + 4] == 110  # n
            and buf[a + 5] == 116  # t
            and buf[a + 6] == 32
        )
        if event or not prev_tag:
            if g > 0:
                _close_game(buf, games[g - 1])
            if g == games.shape[0]:
                bigger = np.empty((2 * g, _WIDTH), np.int64)
                bigger[:g] = games
                games = bigger
            games[g, :] = -1
            games[g, _LINE] = line
            games[g, _MOVE] = 0
            games[g, _MARKER] = 0
            g += 1
        prev_tag = True
        nt += 1
        row = games[g - 1]
        # [Key "value"]: the key runs to the first blank; the value, after White_Space,
        # must start with '"' and end with '"]'. Else the tag line is malformed.
        s = a + 1
        while s < b and buf[s] != 32:
            s += 1
        ok = False
        c = s + 1
        if s < b:
            while c < b:
                w = _ws_fwd(buf, c, b)
                if w == 0:
                    break
                c += w
            ok = b - c >= 3 and buf[c] == 34 and buf[b - 2] == 34 and buf[b - 1] == 93
        if not ok:
            if row[_BAD] < 0:
                row[_BAD] = line
            continue
        klen = s - a - 1
        for k in range(ntag):
            if name_len[k] == klen:
                same = True
                for q in range(klen):
                    if buf[a + 1 + q] != names[k, q]:
                        same = False
                        break
                if same:
                    if row[_VALUES + 2 * k] < 0:
                        row[_VALUES + 2 * k] = c + 1
                        row[_VALUES + 2 * k + 1] = b - 2
                    break
    if g > 0:
        _close_game(buf, games[g - 1])
    pre = np.array([pre_n, pre_line, pre_a, pre_b, first_kept, nt], np.int64)
    return games[:g], pre


@jit
def _gather(buf, games, col0, ncol):
    """Bytes and Arrow offsets of the byte ranges in columns ``col0, col0 + 2, ...`` of
    ``games`` (start, end pairs; start < 0: empty), column after column. Copied in
    file order (game after game) so that ``buf`` is read once, front to back."""
    g = games.shape[0]
    off = np.empty(ncol * g + 1, np.int64)
    off[0] = 0
    for r in range(g):
        for k in range(ncol):
            s = games[r, col0 + 2 * k]
            off[k * g + r + 1] = games[r, col0 + 2 * k + 1] - s if s >= 0 else 0
    for q in range(1, ncol * g + 1):
        off[q] += off[q - 1]
    out = np.empty(off[ncol * g], np.uint8)
    for r in range(g):
        for k in range(ncol):
            s = games[r, col0 + 2 * k]
            if s >= 0:
                p = off[k * g + r]
                for q in range(games[r, col0 + 2 * k + 1] - s):
                    out[p + q] = buf[s + q]
    return out, off


def _strings(buf: np.ndarray, games: np.ndarray, col0: int, ncol: int) -> list[pl.Series]:
    """String columns of the byte ranges (start, end) in columns ``col0, col0 + 2, ...``
    of ``games`` (valid UTF-8 cut at character bounds); null where start < 0."""
    data, off = _gather(buf, games, col0, ncol)
    valid = games[:, col0 : col0 + 2 * ncol : 2].T.ravel() >= 0
    arr = pa.LargeStringArray.from_buffers(
        valid.size,
        pa.py_buffer(off),
        pa.py_buffer(data),
        pa.py_buffer(np.packbits(valid, bitorder="little")),
        int(valid.size - valid.sum()),
    )
    series = pl.from_arrow(arr)
    g = games.shape[0]
    return [series.slice(k * g, g) for k in range(ncol)]


def _utf8(data: bytes, path: Path, notes: list[str]) -> bytes:
    """The file as UTF-8 bytes under ``readers.decode``'s rules (UTF-8 with or without
    BOM, else Latin-1; UTF-16 and NUL refused), without building a str for UTF-8 files."""
    decode(data[:65536], path, [])  # its UTF-16 and NUL checks look at the start only
    body = data[3:] if data.startswith(codecs.BOM_UTF8) else data
    if body.isascii():
        return body
    try:
        pl.Series([body], dtype=pl.Binary).cast(pl.String)  # strict: raises unless UTF-8
        return body
    except (pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError):
        return decode(data, path, notes).encode("utf-8")


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


def read_pgn(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    if kind == "players":
        raise InputError(path, None, "a PGN file holds games, not a players list")
    notes: list[str] = []
    raw_bytes = _utf8(load_bytes(path, notes), path, notes)
    if _blank(raw_bytes):
        raise InputError(path, 1, "empty file: no PGN games")
    source = path.name
    buf = np.frombuffer(raw_bytes, np.uint8)
    rows, pre = _scan(buf, _TAG_NAMES, _TAG_LEN)
    pre_n, pre_line, pre_a, pre_b, first_kept, n_tag_lines = (int(x) for x in pre)
    if n_tag_lines == 0:
        first = first_kept if first_kept > 0 else 1
        raise InputError(path, first, 'no PGN tag pairs ([Tag "value"]) found: not a PGN file')

    problems: list[tuple[int, str, str, str]] = []
    if pre_n:
        problems.append(
            (
                pre_line,
                "malformed_row",
                f"{pre_n} line(s) of text before the first tag section",
                raw_bytes[pre_a:pre_b].decode("utf-8")[:200],
            )
        )

    # Per game: the first value of each tag (backslash escapes undone), as string
    # columns cut from the file's bytes.
    games = pl.DataFrame(
        [pl.Series("_line", rows[:, _LINE])]
        + [s.alias(t) for s, t in zip(_strings(buf, rows, _VALUES, len(TAGS)), TAGS)]
        + [pl.Series("_bad_tag_line", rows[:, _BAD])]
    )

    def unescape(col: str) -> pl.Expr:
        v = pl.col(col)
        return (
            pl.when(v.str.contains("\\", literal=True))
            .then(v.str.replace_all(r"\\([\\\"])", "$1"))
            .otherwise(v)
            .alias(col)
        )

    # Movetext: a move in its first two lines, and the termination marker ending its
    # last line (only those lines are scanned; a forfeit is one line, e.g. "1-0").
    # The kernel decides lines without comments; the rest go through these expressions.
    def has_move(col: str) -> pl.Expr:
        clean = (
            pl.col(col)
            .str.replace_all(r"\{[^}]*(\}|$)", " ")
            .str.replace(r"^[^{]*\}", " ")
            .str.replace(r";.*$", "")
            .str.replace_all(TERMINATION, " ")
        )
        return clean.str.contains(r"[A-Za-z]").fill_null(False)

    move = rows[:, _MOVE].copy()
    todo = np.flatnonzero(move < 0)
    if todo.size:
        first, second = _strings(buf, rows[todo], _FIRST, 2)
        lines = pl.DataFrame({"_first": first, "_second": second})
        decided = lines.select(has_move("_first") | has_move("_second")).to_series()
        move[todo] = decided.to_numpy()
    marker = rows[:, _MARKER].copy()
    todo = np.flatnonzero(marker < 0)
    if todo.size:
        (last,) = _strings(buf, rows[todo], _LAST, 1)
        found = last.str.replace(r"\{[^}]*\}\s*$", "").str.extract(TERMINATION + r"\s*$", 1)
        codes = found.replace_strict(
            {m: k for k, m in enumerate(MARKERS) if m}, default=0, return_dtype=pl.Int64
        )
        marker[todo] = codes.to_numpy()
    bad_tag = pl.col("_bad_tag_line").is_not_null()
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
            pl.Series("_marker", marker).replace_strict(
                dict(enumerate(MARKERS)), return_dtype=pl.String
            ),
        )
        .with_columns(
            pl.format(
                "{} - {} {} ({}, {}, round {})",
                "White",
                "Black",
                "Result",
                "Event",
                "Date",
                "Round",
            ).alias("_raw")
        )
        .with_columns(pl.col("Result").str.strip_chars())
        .with_columns((bad_tag | truncated | mismatch).alias("_bad"))
        .collect()
    )
    bad = games.filter(pl.col("_bad")).with_columns(
        pl.when(bad_tag)
        .then(pl.lit("malformed_row"))
        .when(truncated)
        .then(pl.lit("truncated_game"))
        .when(~pl.col("Result").is_in(["1-0", "0-1", "1/2-1/2", "*"]))
        .then(pl.lit("unknown_result"))
        .otherwise(pl.lit("result_mismatch"))
        .alias("_reason"),
        pl.when(bad_tag)
        .then(pl.format('malformed tag line {} (expected [Tag "value"])', "_bad_tag_line"))
        .when(truncated)
        .then(pl.lit("no game termination marker (1-0, 0-1, 1/2-1/2, *): file truncated?"))
        .when(~pl.col("Result").is_in(["1-0", "0-1", "1/2-1/2", "*"]))
        .then(pl.format("unknown result code {} in the Result tag", "Result"))
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
    games = _identity(
        games.with_columns(pl.coalesce(pl.col("Result"), pl.col("_marker")).alias("Result")),
        source,
    )
    date, period = _date_and_period("Date")
    edate, eperiod = _date_and_period("EventDate")
    date_known = date.is_not_null() | period.is_not_null()
    games = games.with_columns(
        pl.when(date_known).then(date).otherwise(edate).alias("date"),
        pl.when(date_known).then(period).otherwise(eperiod).alias("period"),
        pool.alias("pool"),
    )

    def elo(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.is_in(UNRATED_ELO)).then(None).otherwise(v)

    frame = games.select(
        pl.lit(None, dtype=pl.String).alias("game_id"),
        "date",
        "period",
        "pool",
        pl.col("_white_id").alias("white_id"),
        pl.col("_black_id").alias("black_id"),
        pl.col("Result").alias("result"),
        pl.when(pl.col("_has_move")).then(None).otherwise(pl.lit("false")).alias("rated"),
        pl.col("Event").alias("event_id"),
        elo("WhiteElo").alias("white_rating"),
        elo("BlackElo").alias("black_rating"),
        "_line",
        "_raw",
    ).sort("_line")
    players = _players(games, frame, source)
    not_played = frame.filter(pl.col("rated") == "false").height
    if not_played:
        notes.append(f"{not_played} game(s) without moves (forfeits): stored, not rated")
    return RawTable(path, "pgn", "games", frame, None, problems, notes, players)


def _identity(games: pl.DataFrame, source: str) -> pl.DataFrame:
    """White/Black player ids: FIDE id when the file gives one for that name, else source:name."""

    def fide(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.str.contains(r"^\d+$") & ~v.str.contains(r"^0+$")).then(
            v.str.replace(r"^0+", "")
        )

    def name(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.is_in(["", "?", "-"])).then(None).otherwise(v)

    out = games.with_columns(
        name("White").alias("_wn"),
        name("Black").alias("_bn"),
        fide("WhiteFideId").alias("_wf"),
        fide("BlackFideId").alias("_bf"),
    )
    sides = pl.concat(
        [
            out.select(pl.col("_wn").alias("name"), pl.col("_wf").alias("fide")),
            out.select(pl.col("_bn").alias("name"), pl.col("_bf").alias("fide")),
        ]
    )
    by_name = (
        sides.filter(pl.col("name").is_not_null() & pl.col("fide").is_not_null())
        .group_by("name")
        .agg(pl.col("fide").first())
    )
    for side, n in (("_white_id", "_wn"), ("_black_id", "_bn")):
        out = out.join(
            by_name.rename({"name": n, "fide": f"{side}_byname"}),
            on=n,
            how="left",
            maintain_order="left",
        )
    return out.with_columns(
        pl.coalesce(pl.col(f), pl.col(f"{side}_byname"), pl.lit(source + ":") + pl.col(n)).alias(
            side
        )
        for side, n, f in (("_white_id", "_wn", "_wf"), ("_black_id", "_bn", "_bf"))
    )


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
        .with_columns(pl.format("{} (PGN tags)", pl.col("name")).alias("_raw"))
        .sort("_line")
    )


readers.READERS["pgn"] = read_pgn
readers.SUFFIXES.update({".pgn": "pgn", ".pgn.gz": "pgn", ".zip": "pgn", ".pgn.zip": "pgn"})
