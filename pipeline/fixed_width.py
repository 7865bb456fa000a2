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
"""

from __future__ import annotations

import csv
import io
import itertools
import re

# The header line: ``ID Number`` then, after a run of blanks, ``Name`` (FIDE's and
# arpad's header; a CSV's header has a separator instead).
_HEADER = re.compile(r"\ufeff?ID Number {2,}Name {2,}\S")
_HEADING = re.compile(r"ID Number|\S+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # as readers._PHYSICAL_LINE


def _columns(line: str) -> list[int]:
    """The screen column each character of ``line`` starts at, and the line's width."""
    from arpad.pipeline.list_text import char_width

    if line.isascii():
        return list(range(len(line) + 1))
    out, col = [], 0
    for ch in line:
        out.append(col)
        col += char_width(ch)
    out.append(col)
    return out


def _fields(line: str, starts: list[int]) -> list[str]:
    """``line`` cut at the screen columns ``starts``, each field stripped of blanks."""
    at = _columns(line)
    cuts, i = [], 0
    for start in starts:
        while i < len(line) and at[i] < start:
            i += 1
        cuts.append(i)
    cuts.append(len(line))
    return [line[a:b].strip() for a, b in itertools.pairwise(cuts)]


def as_csv(text: str, notes: list[str]) -> str | None:
    """CSV text of a FIDE fixed-width list (see the module), one row per line, with a
    note; None when ``text`` does not start with such a header line."""
    if not _HEADER.match(text):
        return None
    lines = _LINE.findall(text)
    header = lines[0].rstrip("\r\n").lstrip("\ufeff")
    at = _columns(header)
    found = list(_HEADING.finditer(header))
    headings = [m.group(0) for m in found]
    starts = [at[m.start()] for m in found]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headings)
    for line in lines[1:]:
        body = line.rstrip("\r\n")
        writer.writerow(_fields(body, starts) if body.strip() else [])
    notes.append(
        "read as FIDE's fixed-width list (its header line has no separator): each "
        "column from the screen column where its heading begins to where the next begins"
    )
    return out.getvalue()
