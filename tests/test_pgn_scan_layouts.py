"""The PGN scan's paths give one reading (docs/pgn-trf.md "Reading speed").

The scan keeps a tag's value on a fast path for export-format lines (one ``[Key
"value"]`` a line) and through ``_tag_pairs`` for every other line, checks the blanks
at a line's ends without a call for printable bytes, and reads a game's run of
movetext lines in one call. Reference: the real London 1851 file, whose games are
re-written in other layouts that the PGN standard (or common practice) allows; each
must read as the file itself does. A naive reading of the tags (a regular expression
over the file's text) is the second reference.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.pipeline.pgn import read_pgn

LONDON = "London1851.pgn"
TAG = re.compile(r'^\[(\w+) "(.*)"\]$')
# compared columns: everything the reading gives except where a line is
COLUMNS = ["game_id", "date", "period", "white_id", "black_id", "result", "event_id"]
COLUMNS += ["white_rating", "black_rating", "moves_digest", "rated", "pool"]


def games_of(text: str) -> list[tuple[list[tuple[str, str]], list[str]]]:
    """(tag pairs, movetext lines) of each game of an export-format file."""
    out: list[tuple[list[tuple[str, str]], list[str]]] = []
    for block in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags, moves = [], []
        for line in block.splitlines():
            m = TAG.match(line.strip())
            if m and not moves:
                tags.append((m[1], m[2]))
            elif line.strip():
                moves.append(line.strip())
        out.append((tags, moves))
    return out


def write(games, layout: int, end: str) -> str:
    """The games in one layout: bit 1 all tag pairs on one line, bit 2 blanks inside
    the brackets, bit 4 blanks (and a no-break space) at the lines' ends, bit 8 the
    moves on one line, bit 16 a comment line between the tags and the moves."""
    parts = []
    for tags, moves in games:
        pairs = [f'[ {k}  "{v}" ]' if layout & 2 else f'[{k} "{v}"]' for k, v in tags]
        tail = " \t\u00a0" if layout & 4 else ""
        lines = [" ".join(pairs)] if layout & 1 else pairs
        body = [" ".join(moves)] if layout & 8 else moves
        if layout & 16:
            body = ["{a note before the moves}", *body]
        parts.append(end.join(x + tail for x in [*lines, "", *body]) + end)
    return end.join(parts)


def frame(path: Path) -> pl.DataFrame:
    return read_pgn(path).frame.select(COLUMNS)


def test_london_tags_equal_a_naive_reading(shared_data):
    text = (shared_data / "pgn" / LONDON).read_text(encoding="utf-8")
    games = games_of(text)
    got = read_pgn(shared_data / "pgn" / LONDON).frame
    assert got.height == len(games) == 251
    naive = [dict(tags) for tags, _ in games]
    assert got["result"].to_list() == [t["Result"] for t in naive]
    assert got["event_id"].to_list() == [t["Event"] for t in naive]
    assert got["white_id"].to_list() == [f"{LONDON}:{t['White']}" for t in naive]


@given(layout=st.integers(0, 31), crlf=st.booleans())
@settings(max_examples=24, deadline=None)
def test_every_layout_reads_as_the_file(shared_data, tmp_path_factory, layout, crlf):
    src = shared_data / "pgn" / LONDON
    games = games_of(src.read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("layout") / LONDON
    path.write_bytes(write(games, layout, "\r\n" if crlf else "\n").encode("utf-8"))
    want = frame(src)
    got = frame(path)
    assert got.equals(want), f"layout {layout}, crlf {crlf}"
