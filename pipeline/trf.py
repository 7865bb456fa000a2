"""FIDE Tournament Report File reader (TRF16 and the older 2005 layout).

Layout: docs/pgn-trf.md "TRF columns" (FIDE Handbook C.04 Annex 2). Columns are
1-based and inclusive; a Python slice ``line[a - 1:b]`` reads columns a..b.

Every 001 line has one 10-column block per round. Each block is accounted for
exactly once (``RawTable.accounting``): a played or unplayed pairing (two
blocks, one stored game), a pending pairing (two blocks, stored nowhere but
reported), a bye (H/F/U/Z, or +/- without an opponent), an absence (blank
block), a double forfeit (both sides ``-``), or a problem (quarantined with
file, line and reason). So players × rounds = the sum of those blocks.

Decisions where the format leaves room (docs/pgn-trf.md):

* A pairing is stored once, from the lower starting rank's line; White is the
  side marked ``w`` (``-`` on both sides: the lower starting rank).
* Results ``1 = 0`` are rated; ``+ -`` (forfeits) and ``W D L`` (under one
  move) are stored with ``rated = false``; a double forfeit is not a game.
* The game date is the round's date from the 132 line (``YY/MM/DD``: the year
  ending in YY nearest to the start date's; without one YY < 50 is 20YY), else
  the start date (042), else the end date (052); free-form dates ``28. 07. 2005``,
  ``24/09/2010`` (day first), ``May 29, 2020`` are understood. A round without a
  date after dated ones takes the last dated round's date, with a note
  (``undated_rounds``); a round date that cannot be read (a TAB before it, a shifted
  line, a four-digit year, no such day) quarantines the round's games ``bad_date`` at
  the 132 record's line (``round_dates``), and so does a round dated more than
  ``DATE_MARGIN_DAYS`` before the start date (042) or after the end date (052): a typo
  in the year, a date written day first (``outside_event``). Two 132 records that date
  a round differently quarantine its games naming both lines (``merged_round_dates``);
  rounds dated out of order are a note (``order_note``).
* Pool: blitz/bullet/rapid/standard named in 092, 122 or 012, else a
  ``N+M``/``N Plus M`` (minutes + seconds) time control there, else standard; a
  pool other than standard is named in the summary with the words it came from
  (``pool_note``), and ``arpad ingest --pool`` overrides it.
* Player id: the FIDE id (columns 58–68) when non-zero, else ``<file>#<rank>``.
* The points column (81–84) is compared with the sum of the line's results
  (``points_note``): a note names the players whose totals differ (a mis-keyed
  result?); nothing is quarantined for it.
* A 001 line that ends inside a right-aligned number (``CUT_FIELDS``), or the last
  line with no newline after it ending inside any field, is a file cut short
  (``cut_field``): quarantined whole; a 062 count unlike the 001 lines is a note.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from arpad.pipeline import pgn, readers
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import RawTable, decode
from arpad.pipeline.reasons import Reason

# Fields of a 001 line (1-based, inclusive columns; docs/pgn-trf.md "TRF columns").
RANK_COLS = (5, 8)
SEX_COLS = (10, 10)
TITLE_COLS = (11, 13)
NAME_COLS = (15, 47)
RATING_COLS = (49, 52)
FEDERATION_COLS = (54, 56)
FIDE_ID_COLS = (58, 68)
BIRTH_COLS = (70, 79)
POINTS_COLS = (81, 84)
FINAL_RANK_COLS = (86, 89)
# The fields a line cut short can end inside: (name, columns, right-aligned number).
# A cut inside a number leaves part of it, read as the value (FIDE id 4128737 as 412,
# rating 2448 as 24): any 001 line ending there is refused. A text field may just end
# early (an editor strips trailing blanks), so a cut inside one is only presumed on the
# last line when the file has no final newline (a download that stopped).
CUT_FIELDS = (
    ("starting rank", RANK_COLS, True),
    ("title", TITLE_COLS, False),
    ("name", NAME_COLS, False),
    ("rating", RATING_COLS, True),
    ("federation", FEDERATION_COLS, False),
    ("FIDE id", FIDE_ID_COLS, True),
    ("birth date", BIRTH_COLS, True),
    ("points", POINTS_COLS, True),
    ("rank", FINAL_RANK_COLS, True),
)
BLOCK_START = 92  # column of round 1's opponent field
BLOCK_WIDTH = 10
PLAYED = {"1": 1.0, "=": 0.5, "0": 0.0}
UNPLAYED = {"+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0}
COMPLEMENT = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D"}
BYES = {"H", "F", "U", "Z", "+"}
TITLES = {
    "g": "GM",
    "m": "IM",
    "f": "FM",
    "c": "CM",
    "wg": "WGM",
    "wm": "WIM",
    "wf": "WFM",
    "wc": "WCM",
}
# Tournament points per result code of a round block (FIDE Handbook C.04 Annex 2, TRF16;
# docs/pgn-trf.md "Points column"): wins (played, forfeit, under one move) 1, draws ½,
# losses 0; byes H ½, F 1, U 1 (a pairing-allocated bye scores a win, C.04.1), Z and
# blank 0. A 162 record (TRF-2026 draft: "W 3.0 D 1.0 L 0.0 …") can change them.
POINTS = {"1": 1.0, "+": 1.0, "W": 1.0, "=": 0.5, "D": 0.5, "H": 0.5, "F": 1.0, "U": 1.0}
# codes of a 162 record's "<code> <points>" pairs -> the result codes they score
SCORING_CODES = {
    "W": "1W+",
    "D": "=D",
    "L": "0L-",
    "FW": "+",
    "FL": "-",
    "HB": "H",
    "HPB": "H",
    "FB": "F",
    "FPB": "F",
    "PAB": "U",
    "U": "U",
    "ZB": "Z",
    "ZPB": "Z",
}
POINTS_EXAMPLES = 3  # players named in the points note
MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
# Records the reader reads (a player, the round dates, acceleration, the header fields
# of the date, pool, name and scoring): after leading blanks, not at column 1, each is
# refused by row (docs/pgn-trf.md); other records are ignored, indented or not.
READ_RECORDS = {"001", "132", "XXA", "012", "042", "052", "092", "122", "162"}
_INDENTED_RECORD = re.compile(r"(\s+)(\d{3}|XXA)(?=\s|$)")
MONTHS.update({"mai": 5, "okt": 10, "dez": 12, "mrz": 3, "mär": 3})


@dataclass
class _Player:
    rank: int
    line_no: int
    line: str
    player_id: str
    rating: str | None


@dataclass
class _Side:
    rank: int
    opponent: int
    colour: str
    result: str
    line_no: int
    block: str


def _digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts '²', which ``int`` refuses)."""
    return text.isascii() and text.isdigit()


def cols(line: str, first: int, last: int) -> str:
    """Columns first..last (1-based, inclusive), blank-padded."""
    return line[first - 1 : last].ljust(last - first + 1)


def cut_field(line: str, unterminated: bool) -> str | None:
    """The quarantine detail for a 001 line that ends inside a field (``CUT_FIELDS``):
    after the field's first column, before its last. ``unterminated``: the file's last
    line, with no newline after it. A birth year alone (``1978`` in columns 70-73, as the
    Gros 2010 file writes it) is a whole value, not a cut."""
    end = len(line)
    for name, (first, last), number in CUT_FIELDS:
        if not first <= end < last or not (number or unterminated):
            continue
        if name == "birth date" and re.fullmatch(r"\d{4}", line[first - 1 :]):
            return None
        eof = ", the end of the file (no final newline)," if unterminated else ","
        return (
            f"001 line ends at column {end}{eof} inside the {name} (columns {first}-{last}): "
            "file truncated?"
        )
    return None


def parse_free_date(text: str | None) -> str | None:
    """ISO ``YYYY-MM-DD`` text of a free-form TRF header date, None if not understood.

    The result is not checked for validity (``2005-13-40`` stays), so that a
    wrong date is quarantined as ``bad_date`` instead of silently replaced."""
    if not text or not text.strip():
        return None
    t = text.strip()
    if m := re.search(r"(\d{4})\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{1,2})", t):
        y, mo, d = m.groups()
    elif m := re.search(r"(\d{1,2})\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{4})", t):
        d, mo, y = m.groups()
    elif m := re.search(r"([A-Za-zä]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})", t):
        name, d, y = m.groups()
        mo = MONTHS.get(name[:3].lower())
    elif m := re.search(r"(\d{1,2})\.?\s+([A-Za-zä]{3,})\.?\s+(\d{4})", t):
        d, name, y = m.groups()
        mo = MONTHS.get(name[:3].lower())
    else:
        return None
    if mo is None:
        return None
    return f"{int(y):04d}-{int(mo):02d}-{int(d):02d}"


def round_date(text: str, start: str | None = None) -> str | None:
    """A 132-line round date ``YY/MM/DD`` as ISO text; other text is returned as is.
    The two-digit year is the year ending in YY nearest to the start date's year
    (``start``, ISO, from 042/052): a TRF written for London 1851 or the 1886 match
    gives 1851 and 1886, not 1951 and 1986. Without a start date YY < 50 is 20YY,
    else 19YY."""
    t = text.strip()
    if not t:
        return None
    if m := re.fullmatch(r"(\d{2})[./-](\d{2})[./-](\d{2})", t):
        yy, mo, d = (int(g) for g in m.groups())
        if start is None:
            year = 2000 + yy if yy < 50 else 1900 + yy
        else:
            base = int(start[:4])
            year = min(
                (c * 100 + yy for c in (base // 100 - 1, base // 100, base // 100 + 1)),
                key=lambda y: abs(y - base),
            )
        return f"{year:04d}-{mo:02d}-{d:02d}"
    return parse_free_date(t) or t


def _date_fault(day: str | None) -> str | None:
    """Why the ISO text ``round_date`` gave is no calendar date; None when it is one."""
    import datetime

    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", day or "")
    if m is None:
        return "is not a date YY/MM/DD"
    try:
        datetime.date.fromisoformat(day)
        return None
    except ValueError:
        year, month, d = (int(g) for g in m.groups())
        if not 1 <= month <= 12:
            return f"is not a date: there is no month {month}"
        return f"is not a date: {year}-{month:02d} has no day {d}"


# How far a 132 round date may lie before the start date (042) or after the end date
# (052) before its games are refused (``outside_event``, docs/pgn-trf.md): a week, so
# that a round postponed by a few days, a 052 written as the planned last day or a 042
# as the arrival day are read as given, while a typo in the year (24/10/31 in a 2025
# event), a date written day first (30/10/25 read as 2030-10-25) or a round a month
# before the start are not rated in a month the event was never played in.
DATE_MARGIN_DAYS = 7


def _calendar_date(text: str | None):
    """``datetime.date`` of ISO text, None when it is none (or no date)."""
    import datetime

    try:
        return datetime.date.fromisoformat(text) if text else None
    except ValueError:
        return None


def event_window(header: dict[str, str]) -> tuple:
    """(start, end) of the event as ``datetime.date`` (None where 042 or 052 is not
    given or not understood); ``(None, None)`` when the end is before the start (the
    header contradicts itself: nothing to check the rounds against)."""
    lo = _calendar_date(parse_free_date(header.get("042")))
    hi = _calendar_date(parse_free_date(header.get("052")))
    if lo and hi and hi < lo:
        return None, None
    return lo, hi


def _within(day, lo, hi) -> bool:
    import datetime

    margin = datetime.timedelta(days=DATE_MARGIN_DAYS)
    return (lo is None or day >= lo - margin) and (hi is None or day <= hi + margin)


def outside_event(text: str, day: str, window: tuple, start: str | None) -> str | None:
    """Why round date ``day`` (ISO, read from the 132 text ``text``) cannot be the
    round's: more than ``DATE_MARGIN_DAYS`` before the start date (042) or after the end
    date (052), with what the text more likely meant (written day first, a typo in the
    year); None when it lies within them or there are none (``window``: ``event_window``)."""
    lo, hi = window
    d = _calendar_date(day)
    if d is None or (lo is None and hi is None) or _within(d, lo, hi):
        return None
    if lo is not None and d < lo:
        far = f"{(lo - d).days} days before the start date {lo} (042)"
    else:
        far = f"{(d - hi).days} days after the end date {hi} (052)"
    if lo is not None and hi is not None:
        span = f"the event's dates {lo} (042) to {hi} (052)"
    else:
        span = f"the start date {lo} (042)" if lo is not None else f"the end date {hi} (052)"
    hint = ""
    m = re.fullmatch(r"(\d{2})[./-](\d{2})[./-](\d{2})", text.strip())
    if m:
        a, b, c = m.groups()
        flipped = _calendar_date(round_date(f"{c}/{b}/{a}", start))
        if flipped is not None and _within(flipped, lo, hi):
            hint = (
                f" (written day first, DD/MM/YY? a 132 date is YY/MM/DD: {c}/{b}/{a} is {flipped})"
            )
        elif any(
            (x := _calendar_date(f"{y.year:04d}-{d.month:02d}-{d.day:02d}")) is not None
            and _within(x, lo, hi)
            for y in (lo, hi)
            if y is not None
        ):
            hint = " (a typo in the year?)"
    return (
        f"{text.strip()!r} is {day}, {far}: more than {DATE_MARGIN_DAYS} days outside {span}{hint}"
    )


def round_dates(line: str, rounds: int, start: str | None) -> tuple[dict, dict]:
    """The 132 record's round dates: ``(dates, bad)``, round -> ISO date, and round ->
    why its date cannot be read (the games of that round are quarantined ``bad_date``
    naming the record, the round and its columns). A round whose 8 columns are blank is
    in neither (``undated_rounds``). A TAB at or before a round's columns shifts them
    (an editor's tabs: TRF columns are fixed-width); a four-digit year or a line shifted
    by a column leaves a round's columns holding part of a date (the event's dates are
    checked over every 132 record, ``merged_round_dates``)."""
    dates: dict[int, str] = {}
    bad: dict[int, str] = {}
    if not line:
        return dates, bad
    tab = line.find("\t") + 1  # the first TAB's column, 0: none
    if re.search(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}", line[3:]):
        hint = "a four-digit year? each round's date is YY/MM/DD in its 8 columns"
    else:
        hint = "not aligned to the rounds' columns 92-99, 102-109, …?"
    # (without a tab, the rounds past the line's end are blank: not walked, so that many
    # 132 records of a file of many rounds cost their length, not records × rounds)
    held = rounds if tab else min(rounds, max(0, (len(line) - BLOCK_START) // BLOCK_WIDTH + 1))
    for r in range(1, held + 1):
        c = BLOCK_START + BLOCK_WIDTH * (r - 1)
        where = f"132 record (round dates), round {r} (columns {c}-{c + 7})"
        if tab and tab <= c + 7:
            bad[r] = (
                f"{where}: a TAB character at column {tab}: TRF columns are fixed-width "
                "(replace the tabs by spaces)"
            )
            continue
        text = cols(line, c, c + 7)
        if not text.strip():
            continue
        day = round_date(text, start)
        fault = _date_fault(day)
        if fault is None:
            dates[r] = day
        elif fault.startswith("is not a date:"):  # YY/MM/DD, no such month or day
            bad[r] = f"{where}: {text.strip()!r} {fault}"
        else:
            bad[r] = f"{where}: {text!r} {fault} ({hint})"
    return dates, bad


def merged_round_dates(
    records: list[tuple[int, str]], rounds: int, start: str | None, window: tuple
) -> tuple[dict, dict, dict]:
    """The round dates of every 132 record (``records``: (line number, line)):
    ``(dates, bad, at)``, as ``round_dates`` gives them, and round -> the line of the 132
    record its date (or its fault) comes from. Two records that date a round differently
    make it bad, naming both lines (the second one silently won: every game moved by two
    months); a round one record leaves blank takes the other's date. Then a date outside
    the event's dates (``window``: ``event_window``) is bad (``outside_event``)."""
    dates: dict[int, str] = {}
    bad: dict[int, str] = {}
    at: dict[int, int] = {}
    text: dict[int, str] = {}  # round -> the 132 text its date was read from
    distinct = {line: no for no, line in reversed(records)}  # (a record repeated: once)
    read = []
    for line, no in sorted(distinct.items(), key=lambda x: x[1]):
        if len(bad) == rounds:  # (every round refused already: a record of tabs)
            break
        read.append((no, line, *round_dates(line, rounds, start)))
        for r, why in read[-1][3].items():
            if r not in bad:
                bad[r], at[r] = why, no
    for no, line, given, _ in read:
        for r, day in given.items():
            c = BLOCK_START + BLOCK_WIDTH * (r - 1)
            if r in bad:
                continue
            if r in dates and dates[r] != day:
                bad[r] = (
                    f"132 record (round dates), round {r} (columns {c}-{c + 7}): {day} on "
                    f"line {no}, {dates.pop(r)} on the 132 record of line {at[r]}: two 132 "
                    "records date the round differently (keep the right one)"
                )
                at[r] = no
            elif r not in dates:
                dates[r], at[r], text[r] = day, no, cols(line, c, c + 7)
    for r in sorted(dates):  # then the dates against the event's (042, 052)
        if far := outside_event(text[r], dates[r], window, start):
            c = BLOCK_START + BLOCK_WIDTH * (r - 1)
            bad[r] = f"132 record (round dates), round {r} (columns {c}-{c + 7}): {far}"
            del dates[r]
    return dates, bad, at


def order_note(dates: dict[int, str], at: dict[int, int]) -> str | None:
    """A note naming the rounds the 132 record dates before the round before them (its
    dates reversed, a round keyed in the wrong columns: rounds 2-3 rated in October
    after round 1 in November); None when the dates keep the rounds' order. Stored as
    given: which date is wrong cannot be told."""
    back = []
    rounds = sorted(dates)
    for before, r in itertools.pairwise(rounds):
        if dates[r] < dates[before]:
            back.append(f"round {r} {dates[r]} before round {before}'s {dates[before]}")
    if not back:
        return None
    lines = sorted({at[r] for r in rounds})
    where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines))}"
    return (
        f"the 132 record ({where}) dates rounds out of order: {'; '.join(back)} (stored as "
        "given, each game in its date's month: check the round dates, YY/MM/DD in each "
        "round's columns)"
    )


def undated_rounds(dates: dict, bad: dict, rounds: int) -> dict[int, int]:
    """Round -> the dated round it takes its date from: a round with blank columns on
    the 132 record after a dated one takes the date of the last dated round before it
    (a TRF sent after round 4 whose arbiter did not add round 4's date: the start date
    would rate it before round 3, in an earlier month). Rounds before the first dated
    one keep the start date."""
    taken: dict[int, int] = {}
    last = None
    for r in range(1, rounds + 1):
        if r in dates:
            last = r
        elif r not in bad and last is not None:
            taken[r] = last
    return taken


def _rounds_text(rounds: list[int]) -> str:
    """``round 4``, ``rounds 4 and 5``, ``rounds 4, 5 and 6``."""
    if len(rounds) == 1:
        return f"round {rounds[0]}"
    return f"rounds {', '.join(map(str, rounds[:-1]))} and {rounds[-1]}"


def undated_note(
    line_no: int,
    used: set[int],
    dates: dict,
    bad: dict,
    taken: dict[int, int],
    start: str | None,
    start_record: str,
) -> str | None:
    """The note naming the rounds with games but no date on a 132 record that dates
    others, and the date each got; None when there are none."""
    if not dates:
        return None  # no round dated: a file without round dates (the start date)
    parts = []
    leading = sorted(r for r in used if r not in dates and r not in bad and r not in taken)
    if leading and start:
        what = "the start date (042)" if start_record == "042" else "the end date (052)"
        parts.append(f"{_rounds_text(leading)}: dated {start}, {what}")
    for source in sorted(set(taken.values())):
        rounds = sorted(r for r, s in taken.items() if s == source and r in used)
        if rounds:
            them = "it" if len(rounds) == 1 else "them"
            parts.append(
                f"{_rounds_text(rounds)}: dated {dates[source]}, as round {source} before {them}"
            )
    if not parts:
        return None
    return (
        f"no date on the 132 record (line {line_no}) for {'; '.join(parts)} "
        "(give each round's date there, YY/MM/DD)"
    )


# The header records the pool is read from, in this order, and what each one is.
POOL_RECORDS = {"092": "tournament type", "122": "time control", "012": "tournament name"}
# (with pgn.POOL_WORDS, read when called: pgn imports readers, which imports this module)
_STANDARD_WORDS = ("standard", r"standard|classical")


def pool_origin(header: dict[str, str]) -> tuple[str | None, str | None]:
    """The pool the header names and where it was read (for the ingest summary, the
    officer's attack of 2026-12-03: ``012 SK Rapid Wien Klubmeisterschaft`` was stored
    as rapid without a word): ``("rapid", "the word 'Rapid' in the 012 tournament name
    'SK Rapid Wien …'")``; ``(None, None)`` when the header names none (standard)."""
    texts = [(code, header.get(code, "")) for code in POOL_RECORDS]
    for code, text in texts:
        for pool, words in (*pgn.POOL_WORDS, _STANDARD_WORDS):
            if m := re.search(words, text, re.IGNORECASE):
                where = f"{code} {POOL_RECORDS[code]} {text.strip()!r}"
                return pool, f"the word {m.group(0)!r} in the {where}"
    for code, text in texts:
        if m := re.search(r"(\d+)\s*(?:\+|plus)\s*(\d+)", text, re.IGNORECASE):
            pool = pgn.time_control_pool(f"{int(m.group(1)) * 60}+{m.group(2)}")
            where = f"{code} {POOL_RECORDS[code]} {text.strip()!r}"
            return pool, f"the time control {m.group(0)!r} (minutes + seconds) in the {where}"
    return None, None


def tournament_pool(header: dict[str, str]) -> str | None:
    return pool_origin(header)[0]


def pool_note(pool: str | None, origin: str | None) -> str | None:
    """The summary's note for a file whose games go to a pool other than standard."""
    if pool is None or pool == "standard":
        return None
    return f"pool {pool} ({origin}; pass --pool standard to override)"


def _misaligned(line: str) -> bool:
    """Column 4 or 9 of a 001 line is not blank: the line is shifted."""
    return bool(line[3:4].strip() or line[8:9].strip())


def _birth(text: str) -> tuple[str | None, str | None]:
    t = text.strip()
    if not t or re.fullmatch(r"[0.\-/ ]*", t):
        return None, None
    if re.fullmatch(r"\d{4}", t):
        return None, t
    if re.fullmatch(r"\d{4}[./-]00[./-]00", t):
        return None, t[:4]
    return t, None


def _scoring(header: dict[str, str]) -> dict[str, float]:
    """Points per result code: ``POINTS``, changed by the ``<code> <points>`` pairs of a
    162 record (scoring system, TRF-2026 draft) where it gives them."""
    points = dict(POINTS)
    for code, value in re.findall(r"\b([A-Za-z]{1,3})\s+(\d+(?:[.,]\d+)?)", header.get("162", "")):
        for result in SCORING_CODES.get(code.upper(), ""):
            points[result] = float(value.replace(",", "."))
    return points


def _acceleration(lines: list[str]) -> dict[int, list[float]]:
    """Virtual points per round of each starting rank, from ``XXA NNNN p1 p2 …`` lines
    (the JaVaFo form, as in the Gros 2010 file); other XXA forms give nothing."""
    out: dict[int, list[float]] = {}
    for line in lines:
        parts = line[3:].split()
        if len(parts) >= 2 and _digits(parts[0]):
            try:
                out[int(parts[0])] = [float(x) for x in parts[1:]]
            except ValueError:
                continue
    return out


def _points(x: float) -> str:
    return f"{x:.1f}" if round(x, 1) == x else f"{x:g}"


def points_note(
    players: list[_Player], header: dict[str, str], accelerated: list[str]
) -> str | None:
    """A note naming the players whose points (columns 81-84) differ from the sum of
    their results, the usual sign of a mis-keyed result; None when all agree.

    Each round block the line holds counts (``_scoring``); a file sent after round 4
    holds 4 rounds and is compared on them. Also accepted as agreeing: the total
    without the byes of rounds after the last one with a result (a pre-announced bye
    a program may or may not have added yet) and the total with the XXA acceleration
    points of the rounds held (some programs print them in the column). When most
    players differ the column follows another scoring system (a 3/1/0 event): one
    note says it is not compared, instead of a false note per player."""
    scoring = _scoring(header)
    accel = _acceleration(accelerated)
    per_player = []
    last_played = 0
    for p in players:
        stated_text = cols(p.line, *POINTS_COLS).strip().replace(",", ".")
        try:
            stated = float(stated_text)
        except ValueError:
            continue  # no points given (or not a number): nothing to compare
        results = []
        body = p.line[BLOCK_START - 1 :]
        for r in range(0, len(body), BLOCK_WIDTH):
            block = body[r : r + 8].ljust(8)
            opponent, result = block[0:4].strip(), block[7].upper()
            results.append((opponent not in ("", "0000"), result))
            if opponent not in ("", "0000") and result != " ":
                last_played = max(last_played, r // BLOCK_WIDTH + 1)
        per_player.append((p, stated, results))
    if not per_player:
        return None
    differ = []
    for p, stated, results in per_player:
        total = sum(scoring.get(result, 0.0) for _, result in results)
        announced = sum(
            scoring.get(result, 0.0)
            for r, (paired, result) in enumerate(results, 1)
            if r > last_played and not paired
        )
        extra = sum(accel.get(p.rank, [])[: len(results)])
        accepted = {total, total - announced, total + extra, total - announced + extra}
        if not any(abs(stated - x) < 1e-9 for x in accepted):
            differ.append((p, stated, total))
    if not differ:
        return None
    if len(differ) >= 3 and 2 * len(differ) > len(per_player):
        return (
            f"the points on the 001 lines of {len(differ)} of {len(per_player)} players differ "
            "from their results counted 1/½/0 (another scoring system, e.g. 3/1/0? a 162 "
            "record can give it): points not compared"
        )
    examples = ", ".join(
        f"#{p.rank} {cols(p.line, *NAME_COLS).strip()!r}: {_points(stated)} stated, "
        f"{_points(total)} from the rounds"
        for p, stated, total in differ[:POINTS_EXAMPLES]
    )
    more = f", {len(differ) - POINTS_EXAMPLES} more" if len(differ) > POINTS_EXAMPLES else ""
    return (
        f"{len(differ)} player(s) whose points on the 001 line differ from their results "
        f"({examples}{more}): a mis-keyed result?"
    )


def read_trf(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    if kind == "players":
        raise InputError(path, None, "a TRF file holds a tournament, not a players list")
    notes: list[str] = []
    # UTF-16 (a Windows "Unicode" save) is read as PGN reads it (pipeline/pgn.py)
    text = decode(pgn.from_utf16(path.read_bytes(), path, notes), path, notes)
    if not text.strip():
        raise InputError(path, 1, "empty file: no TRF records")
    source = path.name
    header: dict[str, str] = {}
    dates_records: list[tuple[int, str]] = []  # (line number, line) of each 132 record
    problems: list[tuple[int, str, str, str]] = []
    problem_blocks = 0
    players: dict[int, _Player] = {}
    by_id: dict[str, _Player] = {}
    rejected: list[str] = []  # 001 lines whose blocks cannot be read at all
    player_rows = []
    accelerated: list[str] = []  # XXA lines (acceleration), for the points check
    lines = pgn.split_lines(text)
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        indented = _INDENTED_RECORD.match(line)
        if indented and indented.group(2) in READ_RECORDS:
            # A record after a blank or two (pasted from an e-mail, an editor's indent):
            # every column is shifted, so a 001 line's fields would be its neighbours'
            # digits and its blocks would name the wrong ranks; it was ignored as an
            # unknown record, its opponents' games then quarantined as unknown_opponent.
            code, shift = indented.group(2), len(indented.group(1))
            what = "starting rank in columns 5-8" if code == "001" else "data from column 5"
            problems.append(
                (
                    no,
                    Reason.MALFORMED_ROW,
                    f"record {code} does not start at column 1 ({shift} blank(s) before it): "
                    f"not aligned to the TRF columns ({what}); remove the indent",
                    line,
                )
            )
            if code == "001":
                rejected.append(line[shift:])  # its blocks are counted, as quarantined
            continue
        code = line[:3]
        if code == "132":
            dates_records.append((no, line))
            continue
        if code == "XXA":
            accelerated.append(line)
            continue
        if code != "001":
            if re.fullmatch(r"\d{3}", code):
                header.setdefault(code, line[4:].strip())
            continue  # unknown records (XXR, XXA, 013, …) are ignored
        unterminated = no == len(lines)  # the last line, with no newline after it
        cut = cut_field(line, unterminated)
        if cut and "\t" not in line and not _misaligned(line):
            # A file cut short (a download that stopped): the field's part would be read
            # as its value. The line's player is not stored; his opponents' blocks then
            # name an unknown rank, as for any refused line.
            problems.append((no, Reason.MALFORMED_ROW, cut, line))
            rejected.append(line)
            continue
        rank_text = cols(line, *RANK_COLS).strip()
        if not _digits(rank_text) or int(rank_text) == 0:
            problems.append(
                (
                    no,
                    Reason.MALFORMED_ROW,
                    f"starting rank {rank_text!r} (columns 5-8) is not 1-9999",
                    line,
                )
            )
            rejected.append(line)
            continue
        if "\t" in line:
            # An editor's tabs: every column after the first tab is at the wrong offset.
            problems.append(
                (
                    no,
                    Reason.MALFORMED_ROW,
                    "a TAB character in a 001 line: TRF columns are fixed-width "
                    "(replace the tabs by spaces)",
                    line,
                )
            )
            rejected.append(line)
            continue
        if _misaligned(line):
            # Columns 4 and 9 are blank in every 001 line: a character there means the
            # line is shifted (an editor added or removed a column), and every field read
            # from it would be a neighbour's digits (a wrong FIDE id, a rating of 182).
            problems.append(
                (
                    no,
                    Reason.MALFORMED_ROW,
                    "column 4 or 9 is not blank: the line is not aligned to the TRF "
                    "columns (starting rank in columns 5-8)",
                    line,
                )
            )
            rejected.append(line)
            continue
        rank = int(rank_text)
        if rank in players:
            problems.append(
                (
                    no,
                    Reason.DUPLICATE_PLAYER_ID,
                    f"starting rank {rank} already on line {players[rank].line_no}",
                    line,
                )
            )
            rejected.append(line)
            continue
        fide = cols(line, *FIDE_ID_COLS).strip()
        if fide and not _digits(fide):
            notes.append(f"line {no}: FIDE id {fide!r} is not a number; using {source}#{rank}")
        pid = fide.lstrip("0") if _digits(fide) and int(fide) else f"{source}#{rank}"
        if (twin := by_id.get(pid)) is not None:
            # One FIDE id on two lines: a typo in one of them. Its games would be rated
            # as the other person's, so the line is refused with its blocks (the
            # opponents' blocks then name an unknown rank) and the officer fixes the id.
            problems.append(
                (
                    no,
                    Reason.DUPLICATE_PLAYER_ID,
                    f"FIDE id {pid} (columns 58-68) already on line {twin.line_no} "
                    f"(starting rank {twin.rank})",
                    line,
                )
            )
            rejected.append(line)
            continue
        rating = cols(line, *RATING_COLS).strip()
        rating = None if rating in ("", "0") else rating
        players[rank] = by_id[pid] = _Player(rank, no, line, pid, rating)
        birth_date, birth_year = _birth(cols(line, *BIRTH_COLS))
        sex = cols(line, *SEX_COLS).strip().lower()
        title = cols(line, *TITLE_COLS).strip()
        # A women's title (wg, wm, wf, wc) is the player's WTit, not her Tit: the TRF
        # gives one title, the highest, so her open title (a WGM may be an FM) is not
        # said; a list shows "WFM WFM" for a WFM without one (docs/lists.md).
        women = title.lower().startswith("w")
        player_rows.append(
            {
                "player_id": pid,
                "name": cols(line, *NAME_COLS).strip() or None,
                "federation": cols(line, *FEDERATION_COLS).strip() or None,
                "sex": {"m": "M", "w": "F", "f": "F"}.get(sex, sex.upper() or None),
                "birth_date": birth_date,
                "birth_year": birth_year,
                "title": None if women else TITLES.get(title.lower(), title.upper()) or None,
                "w_title": TITLES.get(title.lower(), title.upper()) if women else None,
                "rating": rating,
                "_line": no,
                "_raw": line,
            }
        )
    if not players and not problems:
        raise InputError(path, 1, "no player records (001 lines): not a TRF file")
    player_lines = len(players) + len(rejected)
    stated = header.get("062", "")
    if _digits(stated) and int(stated) != player_lines:
        # A note, not a quarantine: the 001 lines are the data (a file cut short has fewer).
        why = "truncated?" if player_lines < int(stated) else "the 062 record not updated?"
        notes.append(
            f"062 says {int(stated)} players, the file has {player_lines} 001 lines: {why}"
        )
    # The points column against the rounds: a note, not a quarantine (the results are the data)
    if note := points_note(list(players.values()), header, accelerated):
        notes.append(note)

    def blocks_of(line: str) -> int:
        body = line[BLOCK_START - 1 :]
        n = 0
        for r in range(0, len(body), BLOCK_WIDTH):
            if body[r : r + 8].strip():
                n = r // BLOCK_WIDTH + 1
        return n

    rounds = max([blocks_of(p.line) for p in players.values()] + [blocks_of(x) for x in rejected])
    problem_blocks += len(rejected) * rounds

    start = parse_free_date(header.get("042")) or parse_free_date(header.get("052"))
    if start is None and (header.get("042") or header.get("052")):
        # Without it a game with no 132 round date is quarantined "neither date nor
        # period": say which header text was not understood.
        given = ", ".join(f"{c} {header[c]!r}" for c in ("042", "052") if header.get(c))
        notes.append(f"header date(s) {given} not understood: give YYYY/MM/DD")
    window = event_window(header)
    if window == (None, None) and all(parse_free_date(header.get(c)) for c in ("042", "052")):
        notes.append(
            f"the end date (052) {header['052']!r} is before the start date (042) "
            f"{header['042']!r}: the round dates are not checked against them"
        )
    dates, bad_dates, dated_at = merged_round_dates(dates_records, rounds, start, window)
    dates_no = dates_records[0][0] if dates_records else 0  # (the first 132 record's line)
    taken = undated_rounds(dates, bad_dates, rounds)
    if note := order_note(dates, dated_at):
        notes.append(note)
    pool, origin = pool_origin(header)
    if note := pool_note(pool, origin):
        notes.append(note)
    from arpad.pipeline.validate import UNKNOWN_EVENTS  # (validate imports readers, this)

    event = header.get("012") or source
    if event in UNKNOWN_EVENTS:  # "?": no name, the file is the event (as without a 012)
        event = source
    # Games are keyed by the tournament (012 name + start date) when the header has both,
    # so the TRF after round 4 and the final TRF of one event share their first rounds.
    game_scope = f"trf:{header['012'].strip()}|{start}" if header.get("012") and start else source

    counts = {"bye": 0, "absent": 0, "pending": 0, "double_forfeit": 0}
    sides: dict[tuple[int, int, int], list[_Side]] = {}
    for p in players.values():
        # Blocks past the end of a line are blank (absent): counted, not walked, so that
        # one hostile line of 10^5 rounds does not cost players × 10^5 steps.
        own = min(rounds, blocks_of(p.line))
        counts["absent"] += rounds - own
        for r in range(1, own + 1):
            c = BLOCK_START + BLOCK_WIDTH * (r - 1)
            block = cols(p.line, c, c + 7)
            where = f"round {r} (columns {c}-{c + 7}) {block.strip()!r}"
            opp_text, colour, result = block[0:4].strip(), block[5].lower(), block[7].upper()
            if not block.strip():
                counts["absent"] += 1
                continue
            if block[4] != " " or block[6] != " " or (opp_text and not _digits(opp_text)):
                problems.append(
                    (p.line_no, Reason.MALFORMED_ROW, f"{where}: not 'NNNN c r'", p.line)
                )
                problem_blocks += 1
                continue
            if colour not in "wb- ":
                problems.append(
                    (
                        p.line_no,
                        Reason.MALFORMED_ROW,
                        f"{where}: colour {colour!r} not w/b/-",
                        p.line,
                    )
                )
                problem_blocks += 1
                continue
            opponent = int(opp_text) if opp_text else 0
            if opponent == 0:
                if result in BYES:
                    counts["bye"] += 1
                elif result in ("-", " "):
                    counts["absent"] += 1
                else:
                    problems.append(
                        (
                            p.line_no,
                            Reason.UNKNOWN_RESULT,
                            f"{where}: result {result!r} without an opponent",
                            p.line,
                        )
                    )
                    problem_blocks += 1
                continue
            if opponent == p.rank:
                problems.append(
                    (p.line_no, Reason.SELF_PLAY, f"{where}: paired with himself", p.line)
                )
                problem_blocks += 1
                continue
            if opponent not in players:
                problems.append(
                    (
                        p.line_no,
                        Reason.UNKNOWN_OPPONENT,
                        f"{where}: no player with starting rank {opponent}",
                        p.line,
                    )
                )
                problem_blocks += 1
                continue
            if result not in PLAYED and result not in UNPLAYED and result != " ":
                problems.append(
                    (
                        p.line_no,
                        Reason.UNKNOWN_RESULT,
                        f"{where}: unknown result code {result!r}",
                        p.line,
                    )
                )
                problem_blocks += 1
                continue
            key = (r, min(p.rank, opponent), max(p.rank, opponent))
            sides.setdefault(key, []).append(
                _Side(p.rank, opponent, colour, result, p.line_no, block)
            )

    rows = []
    used: set[int] = set()  # the rounds of the stored games
    game_blocks = 0
    for (r, low, high), pair in sorted(sides.items()):
        a = pair[0] if pair[0].rank == low else pair[-1]
        if len(pair) == 1:
            other = players[a.opponent]
            problems.append(
                (
                    a.line_no,
                    Reason.INCONSISTENT_PAIRING,
                    f"round {r}: rank {a.rank} lists rank {a.opponent}, whose line {other.line_no} "
                    "does not list this game",
                    players[a.rank].line,
                )
            )
            problem_blocks += 1
            continue
        b = pair[1] if pair[0] is a else pair[0]
        colours_ok = {a.colour, b.colour} == {"w", "b"} or (a.colour in "- " and b.colour in "- ")
        if a.result == " " and b.result == " " and colours_ok:
            counts["pending"] += 2
            continue
        if a.result == "-" and b.result == "-" and colours_ok:
            counts["double_forfeit"] += 2
            continue
        if not colours_ok or COMPLEMENT.get(a.result) != b.result:
            problems.append(
                (
                    a.line_no,
                    Reason.INCONSISTENT_PAIRING,
                    f"round {r}: rank {a.rank} has '{a.colour} {a.result}' against rank {b.rank}, "
                    f"whose line {b.line_no} has '{b.colour} {b.result}'",
                    players[a.rank].line,
                )
            )
            problem_blocks += 2
            continue
        if r in bad_dates:
            # The round's date cannot be read: quarantined here, naming the 132 record
            # (it was left to validation, which named a 001 line and the accounting
            # note counted the games as stored).
            problems.append(
                (
                    dated_at[r],
                    Reason.BAD_DATE,
                    f"{bad_dates[r]}; the game of ranks {low} and {high} "
                    f"(lines {a.line_no} and {b.line_no})",
                    f"round {r}: {a.block!r} on line {a.line_no}, {b.block!r} on line {b.line_no}",
                )
            )
            problem_blocks += 2
            continue
        white, black = (b, a) if b.colour == "w" else (a, b)
        code = white.result
        game_blocks += 2
        used.add(r)
        rows.append(
            {
                "game_id": f"{game_scope}:r{r}:{low}-{high}",
                "date": dates.get(r) or dates.get(taken.get(r, 0)) or start,
                "pool": pool,
                "white_id": players[white.rank].player_id,
                "black_id": players[black.rank].player_id,
                "score": str(PLAYED.get(code, UNPLAYED.get(code))),
                "rated": "true" if code in PLAYED else "false",
                "event_id": event,
                "white_rating": players[white.rank].rating,
                "black_rating": players[black.rank].rating,
                "_line": a.line_no,
                "_raw": f"round {r}: {a.block!r} on line {a.line_no}, {b.block!r} on line {b.line_no}",
            }
        )

    start_record = "042" if parse_free_date(header.get("042")) else "052"
    if note := undated_note(dates_no, used, dates, bad_dates, taken, start, start_record):
        notes.append(note)
    blocks = (len(players) + len(rejected)) * rounds
    accounting = {
        "player_lines": len(players) + len(rejected),
        "rounds": rounds,
        "blocks": blocks,
        "game_blocks": game_blocks,
        "pending_blocks": counts["pending"],
        "bye_blocks": counts["bye"],
        "absent_blocks": counts["absent"],
        "double_forfeit_blocks": counts["double_forfeit"],
        "problem_blocks": problem_blocks,
    }
    assert sum(v for k, v in accounting.items() if k.endswith("_blocks")) == blocks, accounting
    not_stored = {
        "pending_pairings": counts["pending"] // 2,
        "byes": counts["bye"],
        "absences": counts["absent"],
        "double_forfeits": counts["double_forfeit"] // 2,
    }
    notes.append(
        f"{len(players) + len(rejected)} players × {rounds} rounds = {blocks} blocks: "
        f"{game_blocks // 2} games, "
        f"{not_stored['byes']} byes, {not_stored['absences']} absences, "
        f"{not_stored['pending_pairings']} pending pairings (not stored), "
        f"{not_stored['double_forfeits']} double forfeits, {problem_blocks} blocks quarantined"
    )
    string_cols = [c for c in readers.GAME_COLUMNS if c not in ("period", "result")]
    frame = pl.DataFrame(
        rows,
        schema={**{c: pl.String for c in string_cols}, "_line": pl.Int64, "_raw": pl.String},
    )
    player_frame = pl.DataFrame(
        player_rows,
        schema={
            **{c: pl.String for c in ("player_id", "name", "federation", "sex", "birth_date")},
            **{c: pl.String for c in ("birth_year", "title", "w_title", "rating")},
            "_line": pl.Int64,
            "_raw": pl.String,
        },
    )
    return RawTable(
        path, "trf", "games", frame, None, problems, notes, player_frame, not_stored, accounting
    )


readers.READERS["trf"] = read_trf
readers.SUFFIXES.update({".trf": "trf", ".trfx": "trf"})
