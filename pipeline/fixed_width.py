"""FIDE's fixed-width rating list read as a players file (docs/ingest.md "FIDE's
fixed-width list"): ``standard_rating_list.txt`` and the other per-pool files FIDE
publishes, its combined ``players_list_foa.txt``, and ``arpad list --format fide-txt``,
which writes the same layout (docs/lists.md "FIDE TXT").

The file has one header line (``ID Number      Name      …  Fed Sex Tit …``) and one
player a line, each field left-aligned under its heading. The columns are not taken
from a table of offsets (FIDE's layout has changed over time, and public parsers
disagree by a column or two after the rating): a field runs from the screen column
where its heading begins to the one where the next heading begins, the last to the
end of the line. Screen columns, as arpad writes them (pipeline/list_text.py): a CJK
character takes two, a combining accent none.

``as_csv`` turns such a text into CSV text with one row per line (line numbers kept),
which the CSV reader then reads with FIDE's headings (``ID Number`` as ``player_id``,
``DEC25`` as ``rating``, … pipeline/readers.py ``PLAYER_HEADINGS``). Read as CSV
itself, the file was one column headed with the whole header line, refused with
"missing required column(s): player_id … found: ID Number      Name …".

Lines that cannot be read by column (round 15, newuser15) are quarantined
(``malformed_row``, written as blank rows in their place) or refuse the file:

* the file's last line cut off (no final newline, ending inside a column: ``_cut``);
* a TAB in a line (its columns after the tab are at the wrong screen columns);
* text under no heading (``_stray``): a value that begins, after two or more blanks,
  at a screen column where no heading begins. On many lines at the same column it is
  a heading missing from the header line (``Fed`` blanked: the federation was read as
  the end of the name) and the file is refused naming the header's columns; on a few
  lines, those lines are quarantined;
* a header line with a TAB, or after other lines (a title, a blank line): refused,
  saying so.

``read_k`` reads the list's K column as what it says of a player's rated games and peak
(``peak_rating``, ``rated_games``) where that is unambiguous, and names in one note the
players whose K could not be read (round 15).
"""

from __future__ import annotations

import csv
import functools
import io
import itertools
import re
from collections import Counter
from collections.abc import Sequence

from arpad.pipeline.errors import InputError
from arpad.pipeline.reasons import Reason

# The header line: ``ID Number`` then, after a run of blanks, ``Name`` (FIDE's and
# arpad's header; a CSV's header has a separator instead).
_HEADER = re.compile(r"\ufeff?ID Number {2,}Name {2,}\S")
# The same with TABs for blanks (an editor's): a fixed-width header, not a TSV's, when
# it also has a run of blanks.
_TAB_HEADER = re.compile(r"\ufeff?ID Number[ \t]*\t[ \t]*Name|\ufeff?ID Number {2,}Name[ \t]*\t")
_HEADING = re.compile(r"ID Number|\S+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # as readers._PHYSICAL_LINE
# Text after a run of two or more blanks (or at the line's start after them): where a
# value begins. At a heading's column it is the next column's value; anywhere else it
# is under no heading (``_stray``).
_AFTER_BLANKS = re.compile(r"(?<! ) {2,}(?=\S)")
_HEADER_WITHIN = 10  # lines searched for a header that is not the first line
_SYSTEMATIC = 100  # text under no heading at one column on 1 line in 100 or more: refused
_SHOWN_LINES = 5


def _columns(line: str) -> Sequence[int]:
    """The screen column each character of ``line`` starts at, and the line's width."""
    from arpad.pipeline.list_text import char_width

    if line.isascii():
        return range(len(line) + 1)
    out, col = [], 0
    for ch in line:
        out.append(col)
        col += char_width(ch)
    out.append(col)
    return out


def _cuts(line: str, at: Sequence[int], starts: list[int]) -> list[int]:
    """The character index each field of ``line`` begins at (cut at the screen columns
    ``starts``), then the line's length."""
    if line.isascii():  # a character a column
        n = len(line)
        return [start if start < n else n for start in starts] + [n]
    cuts, i = [], 0
    for start in starts:
        while i < len(line) and at[i] < start:
            i += 1
        cuts.append(i)
    cuts.append(len(line))
    return cuts


def _fields(line: str, starts: list[int], at: Sequence[int] | None = None) -> list[str]:
    """``line`` cut at the screen columns ``starts``, each field stripped of blanks."""
    cuts = _cuts(line, at or _columns(line), starts)
    return [line[a:b].strip() for a, b in itertools.pairwise(cuts)]


def _field_at(starts: list[int], col: int) -> int:
    """The index of the field holding screen column ``col``."""
    return max(0, sum(1 for s in starts if s <= col) - 1)


def _span(headings: list[str], starts: list[int], k: int) -> str:
    """``Name column (columns 16-76)``: field ``k``, 1-based screen columns."""
    last = f"-{starts[k + 1]}" if k + 1 < len(starts) else " on"
    return f"{headings[k]} column (columns {starts[k] + 1}{last})"


def _header_columns(headings: list[str], starts: list[int]) -> str:
    return ", ".join(f"{h} at {s + 1}" for h, s in zip(headings, starts, strict=True))


def _stray(body: str, at: Sequence[int], starts: list[int], heading_columns: set[int]):
    """(character index, screen column) of the first text of ``body`` under no heading,
    else None: text beginning after two or more blanks where no heading begins, and read
    wrong there: after other text of its column (two values read as one), two or more
    columns after its heading (left-aligned values begin at it: ``2018`` in an empty
    ``FOA`` column when the rating has no heading), or running past the next heading (cut
    in two). A value one column after its heading, alone in its column, reads as it is
    (a header edited one column off, a longer value before it)."""
    for m in _AFTER_BLANKS.finditer(body):
        i, col = m.end(), at[m.end()]
        if col in heading_columns:
            continue
        k = _field_at(starts, col)
        end = at[i + len(body[i:].split(" ", 1)[0])]
        first = _cuts(body, at, starts)[k]
        if (
            col - starts[k] >= 2
            or body[first:i].strip()
            or (k + 1 < len(starts) and end > starts[k + 1])
        ):
            return i, col
    return None


def _stray_text(body: str, found: tuple[int, int], headings: list[str], starts: list[int]) -> str:
    """What the text under no heading ``found`` (``_stray``) of line ``body`` is."""
    i, col = found
    k = _field_at(starts, col)
    word = body[i:].split(" ", 1)[0]
    fields = [re.sub(" {2,}", " … ", f) for f in _fields(body, starts)]
    read = f"it would be read as {fields[k]!r}"
    if k + 1 < len(starts) and _columns(body)[i + len(word)] > starts[k + 1]:
        read += f" and its end as the {headings[k + 1]} column's {fields[k + 1]!r}"
    elif fields[k] != word:
        read = f"it would be read as part of {fields[k]!r}"
    return (
        f"{word!r} begins at screen column {col + 1}, after a run of blanks, where no heading "
        f"begins: inside the {_span(headings, starts, k)}, {read}"
    )


def _cut(body: str, bodies: list[str], headings: list[str], starts: list[int]) -> str | None:
    """Why the file's last line ``body``, with no final newline, was cut off (a download
    or a copy cut short), else None. It stops before the last heading's column and ends
    in blanks (padding toward a column that never came), or every other line reaches
    that column (FIDE pads its lines to the header's width), or a value of the column
    it stops in runs further on another line (``25`` where the others have ``2513``).
    ``bodies``: the file's other data lines."""
    at = _columns(body)
    width = at[-1]
    if width >= starts[-1] or not body.strip():
        return None
    k = _field_at(starts, width - 1)
    others = [b for b in bodies if b.strip()]
    cut = body.endswith(" ")
    if not cut and others:
        cut = all(_columns(b)[-1] >= starts[-1] for b in others)
    if not cut:
        for other in others:
            o_at = _columns(other)
            cuts = _cuts(other, o_at, starts)
            text = other[cuts[k] : cuts[k + 1]].rstrip()
            if text and o_at[cuts[k] + len(text)] > width:
                cut = True
                break
    if not cut:
        return None
    return (
        f"line ends at column {width}, the end of the file (no final newline), inside the "
        f"{_span(headings, starts, k)}: file truncated?"
    )


def _tabbed_header(header: str, path) -> None:
    """Refuse a fixed-width list's header line with a TAB (its columns would be found at
    the wrong screen columns)."""
    raise InputError(
        path,
        1,
        f"a TAB character at column {header.lstrip(chr(0xFEFF)).index(chr(9)) + 1} of the "
        "header line of a fixed-width list (FIDE's TXT): its columns are found by screen "
        "column (replace the tabs by spaces)",
    )


def _find_header(text: str, path) -> None:
    """Refuse, saying what is wrong, a fixed-width list whose header line is not its
    first (a title or a blank line before it) or has TABs for blanks; else nothing (the
    text is no such list)."""
    lines = [m.group(0) for m in itertools.islice(_LINE.finditer(text), _HEADER_WITHIN)]
    if lines and _TAB_HEADER.match(lines[0]) and "  " in lines[0]:
        _tabbed_header(lines[0], path)
    for no, line in enumerate(lines[1:], 2):
        if _HEADER.match(line):
            before = [repr(x.strip()) for x in lines[: no - 1] if x.strip()]
            what = f"after {', '.join(before)}" if before else "after blank line(s)"
            raise InputError(
                path,
                no,
                f"the header line of a fixed-width list (FIDE's TXT: ID Number, Name, …) "
                f"must be the first line; here it is line {no}, {what}: remove the "
                f"line(s) before it",
            )


def as_csv(text: str, notes: list[str], path=None, problems: list | None = None) -> str | None:
    """CSV text of a FIDE fixed-width list (see the module), one row per line, with a
    note; None when ``text`` does not start with such a header line. Lines quarantined
    are added to ``problems`` (line, reason, detail, text) and written as blank rows."""
    if not _HEADER.match(text):
        _find_header(text, path)
        return None
    problems = [] if problems is None else problems
    lines = _LINE.findall(text)
    header = lines[0].rstrip("\r\n").lstrip("\ufeff")
    if "\t" in header:
        _tabbed_header(header, path)
    at = _columns(header)
    found = list(_HEADING.finditer(header))
    headings = [m.group(0) for m in found]
    starts = [at[m.start()] for m in found]
    heading_columns = set(starts)
    bodies = [line.rstrip("\r\n") for line in lines]
    rows: list[list[str]] = []
    bad: dict[int, str] = {}  # line number -> detail
    strays: dict[int, tuple[int, int]] = {}  # line number -> (index, screen column)
    last = len(lines) - 1
    for no, body in enumerate(bodies[1:], 2):
        rows.append([])
        if not body.strip():
            continue
        if no - 1 == last and not lines[last].endswith(("\n", "\r")):
            if why := _cut(body, bodies[1:last], headings, starts):
                bad[no] = why
                continue
        if "\t" in body:
            bad[no] = (
                f"a TAB character at column {body.index(chr(9)) + 1}: a fixed-width list "
                "(FIDE's TXT) is read by screen column (replace the tabs by spaces)"
            )
            continue
        line_at = _columns(body)
        if found_at := _stray(body, line_at, starts, heading_columns):
            strays[no] = found_at
        rows[-1] = _fields(body, starts, line_at)
    if strays:
        read = sum(1 for row in rows if row) + len(bad)
        col, count = Counter(c for _, c in strays.values()).most_common(1)[0]
        if count >= 2 and count * _SYSTEMATIC >= read:
            on = [no for no, (_, c) in strays.items() if c == col]
            first = on[0]
            shown = ", ".join(map(str, on[:_SHOWN_LINES]))
            more = f" and {len(on) - _SHOWN_LINES} more" if len(on) > _SHOWN_LINES else ""
            raise InputError(
                path,
                first,
                f"{_stray_text(bodies[first - 1], strays[first], headings, starts)}; the same "
                f"on {len(on)} line(s) ({shown}{more}): the header line does not match the "
                "lines' columns (a heading missing, or a column's values not under its "
                f"heading?); its columns: {_header_columns(headings, starts)}, each running "
                "from its heading to the next: give every column a heading where its values "
                "begin",
            )
        for no, found_at in strays.items():
            bad[no] = (
                f"{_stray_text(bodies[no - 1], found_at, headings, starts)}; the line is not "
                "aligned to the header's columns (a wide character padded as one column, a "
                "run of blanks inside a value, or a heading missing from line 1?)"
            )
            rows[no - 2] = []
    for no in sorted(bad):
        problems.append((no, Reason.MALFORMED_ROW, bad[no], bodies[no - 1]))
    notes.append(
        "read as FIDE's fixed-width list (its header line has no separator): each "
        "column from the screen column where its heading begins to where the next begins"
    )
    headings, rows = read_k(headings, rows, notes)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headings)
    writer.writerows(rows)
    return out.getvalue()


# -- FIDE's K column (docs/ingest.md "FIDE's fixed-width list": the officer's attack, round
# 15: read back, every player was taken as established with his rating as his peak, so a
# player who had reached 2450 got K 20 instead of 10 and a new player K 20 instead of 40)
# The K column of a per-pool list, and the standard one of the combined file, with the
# column of the period's games beside it.
_K_COLUMNS = {"K": "Gms", "SK": "SGm"}
_RATING = re.compile(r"(?i)(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(\d{2})$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SHOWN = 5  # players named in the note, then "and N more"


def _list_rules(headings: list[str]):
    """(rules, list year, rating column): the standard rules in force in the month the
    list takes effect (its rating heading, ``NOV26``: the K of the games rated on it),
    the latest without a month (the combined file's ``SRtng``)."""
    from arpad.pipeline.systems.fide import FIDE_VERSIONS, rules_in_force

    for i, heading in enumerate(headings):
        if m := _RATING.match(heading):
            year = int(m[2]) + (1900 if int(m[2]) >= 70 else 2000)  # FIDE's lists: 1971 on
            month = _MONTHS.index(m[1].lower()) + 1
            return rules_in_force(year * 100 + month), year, i
    column = next((i for i, h in enumerate(headings) if h in ("SRtng", "Rtg")), None)
    return FIDE_VERSIONS[-1], None, column


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def _cell(row: list[str], i: int | None) -> str:
    return row[i] if i is not None and i < len(row) else ""


def _some(players: list[str]) -> str:
    more = f" and {len(players) - _SHOWN} more" if len(players) > _SHOWN else ""
    return ", ".join(players[:_SHOWN]) + more


def read_k(
    headings: list[str], rows: list[list[str]], notes: list[str]
) -> tuple[list[str], list[list[str]]]:
    """The list's K column (``K``; the combined file's ``SK``) read as what it says of
    each rated player under the standard rules of the list's month (``_list_rules``),
    where it is unambiguous, into the players file's ``peak_rating`` and
    ``rated_games``: K 10 (``k_high``) is a peak of at least 2400, so a player listed
    below it gets ``peak_rating`` 2400, the least K 10 allows; K 40 (``k_new``) of a
    player no junior by birth year (``B-day``; rating below 2300) is fewer than 30 rated
    games, so ``rated_games`` is the list's ``Gms`` (the games of its month, the fewest he
    can have); K 20 (``k_mid``), or 40 of a junior, is what a players file without
    those columns gives already. ``Flag`` ``w`` is sex F where ``Sex`` is blank. The
    columns read (K, its games column, Flag) are taken out; one note says what was
    read and names the rated players whose K could not be read (none given, as arpad's
    own list has for a player without games in its month, or not a K of those rules):
    they are taken as established with their rating as their peak. A file with a
    ``rated_games`` or ``peak_rating`` column of its own, or without K, is left as is."""
    k_col = next((h for h in _K_COLUMNS if h in headings), None)
    lowered = {h.lower() for h in headings}
    if k_col is None or lowered & {"rated_games", "peak_rating"}:
        return headings, rows
    rules, year, rating_at = _list_rules(headings)
    if rating_at is None:
        return headings, rows
    at = {h: i for i, h in enumerate(headings)}
    k_at, games_at = at[k_col], at.get(_K_COLUMNS[k_col])
    flag_at, sex_at, born_at = at.get("Flag"), at.get("Sex"), at.get("B-day")
    id_at, name_at = at.get("ID Number"), at.get("Name")
    high, mid, new, junior_k = rules.k_high, rules.k_mid, rules.k_new, rules.k_junior
    known = {high, mid, new, junior_k}
    peaks, counts, women = [], [], 0
    guessed: dict[str, list[str]] = {}  # why -> players
    added = []  # per row: (peak_rating, rated_games)
    for row in rows:
        cell = functools.partial(_cell, row)
        peak = games = ""
        if row and flag_at is not None and sex_at is not None:
            if "w" in cell(flag_at).lower() and not cell(sex_at) and sex_at < len(row):
                row[sex_at] = "F"
                women += 1
        rating = _number(cell(rating_at))
        if row and rating is not None:
            who = cell(id_at) + (f" {cell(name_at)!r}" if cell(name_at) else "")
            k = _number(cell(k_at))
            born = _number(cell(born_at))
            junior = (
                rules.junior_rating_below > 0
                and year is not None
                and born is not None
                and born > 0
                and year - born <= rules.junior_max_age
                and rating < rules.junior_rating_below
            )
            if k is None or k not in known:
                why = "no K given" if k is None else f"K {cell(k_at)}, not a K of these rules"
                guessed.setdefault(why, []).append(who)
            elif k == high and high not in (mid, new) and rating < rules.high_rating:
                peak = str(rules.high_rating)
                peaks.append(who)
            elif k == new and new != mid and not (junior and k == junior_k):
                played = _number(cell(games_at)) or 0
                games = str(int(min(max(played, 0), rules.new_player_games - 1)))
                counts.append(who)
        added.append((peak, games))
    drop = {k_at, *(i for i in (games_at, flag_at) if i is not None)}
    keep = [i for i in range(len(headings)) if i not in drop]
    extra = [("peak_rating", 0, peaks), ("rated_games", 1, counts)]
    extra = [(name, j) for name, j, found in extra if found]
    headings = [headings[i] for i in keep] + [name for name, _ in extra]
    rows = [
        [row[i] if i < len(row) else "" for i in keep] + [more[j] for _, j in extra] if row else []
        for row, more in zip(rows, added, strict=True)
    ]
    read = [col for col in (k_col, _K_COLUMNS[k_col], "Flag") if col in at]
    said = [
        f"{', '.join(read)} read with the {rules.name} rules: K {high} as a peak of at least "
        f"{rules.high_rating}"
        + (
            f" (peak_rating {rules.high_rating} for {len(peaks)} rated below it: {_some(peaks)})"
            if peaks
            else ""
        ),
        f"K {new} of a player no junior by birth year as fewer than "
        f"{rules.new_player_games} rated games"
        + (
            f" (rated_games taken as his {_K_COLUMNS[k_col]}, the fewest he can have, for "
            f"{len(counts)}: {_some(counts)})"
            if counts
            else ""
        ),
        f"K {mid} as {rules.new_player_games} or more",
    ]
    if women:
        said.append(f"Flag w as sex F for {women} player(s) without a Sex")
    note = "; ".join(said) + (
        f"; {_K_COLUMNS[k_col]} and Flag otherwise not read (one month's games; "
        "a list derives its flags)"
    )
    for why, players in guessed.items():
        note += (
            f"; K not read for {len(players)} rated player(s) ({why}: {_some(players)}"
            + (
                "; arpad's own list gives K only to a player with games in its month"
                if why == "no K given"
                else ""
            )
            + f"): taken as having {rules.new_player_games} rated games and his rating as "
            f"his peak (K {mid}, {junior_k} a junior by birth year, {high} at "
            f"{rules.high_rating} or more); give rated_games and peak_rating in a players "
            "file to set them"
        )
    notes.append(note)
    return headings, rows
