"""FIDE's fixed-width list read as a players file: lines that cannot be read by column
(the new user's attack, round 15, newuser15 findings 1, 4, 5; docs/ingest.md "FIDE's
fixed-width list", pipeline/fixed_width.py).

1. The last line cut off (no final newline, ending inside a column) was stored with
   the cut digits as its rating (2513 cut to 25: the player unrated), or without its
   federation, rating and birth year: now quarantined, "file truncated?", exit 2.
2. A heading missing from the header (``Fed`` blanked) read the federation as the end of
   the name, nothing said: now refused, naming the line, the text and the columns.
3. A TAB in a line, a title or a blank line before the header: said what is wrong.
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline.cli import main

HEADER = (
    "ID Number      Name                                                         "
    "Fed Sex Tit  WTit OTit           FOA DEC25 Gms K  B-day Flag"
)
PLAYERS = [
    ("1000001", "Adams,Alice", "2018", "1980"),
    ("1000002", "Brown,Bob", "1906", "1975"),
    ("1000003", "Carlsen,Carl", "2091", "1970"),
    ("1000004", "Dane,Dora", "2513", "1985"),
]


def line(pid: str, name: str, rating: str, born: str, fed: str = "ISL", pad: bool = False):
    """A line as arpad's list writes it (FIDE's, ``pad``: blank-padded to the header's
    width): id at column 1, name 16, federation 77, rating 114, Gms 120, K 124, B-day 127."""
    text = f"{pid:<15}{name:<61}{fed:<4}{'':33}{rating:<6}{'1':<4}{'20':<3}{born}"
    return f"{text:<{len(HEADER)}}" if pad else text


LINES = [line(*p) for p in PLAYERS]


def ingest(tmp_path, capsys, text: str, name: str = "list.txt") -> tuple[int, str]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    code = main(["ingest", "--no-flow", "--store", str(tmp_path / "S"), "--players", str(path)])
    said = capsys.readouterr()
    return code, said.out + said.err


def stored(tmp_path, capsys) -> list[tuple]:
    sql = "SELECT player_id, name, federation, rating, birth_year FROM players ORDER BY 1"
    assert main(["sql", sql, "--store", str(tmp_path / "S"), "--format", "csv"]) == 0
    return pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False).rows()


THREE = [
    ("1000001", "Adams,Alice", "ISL", "2018.0", "1980"),
    ("1000002", "Brown,Bob", "ISL", "1906.0", "1975"),
    ("1000003", "Carlsen,Carl", "ISL", "2091.0", "1970"),
]


# -- 1: the last line cut off --------------------------------------------------------------


def test_a_last_line_cut_inside_its_rating_is_quarantined_as_truncated(tmp_path, capsys):
    cut = LINES[3][:115]  # "…ISL   25": Dane's 2513 cut, no final newline
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER, *LINES[:3], cut]))
    assert code == 2
    assert (
        f"{tmp_path / 'list.txt'}:5: malformed_row: line ends at column 115, the end of the "
        "file (no final newline), inside the DEC25 column (columns 114-119): file truncated?"
    ) in said
    assert "4 rows read, 3 players stored, 1 quarantined" in said
    assert stored(tmp_path, capsys) == THREE  # (Dane was stored with rating 25.0)


def test_a_last_line_cut_in_the_name_area_is_quarantined_as_truncated(tmp_path, capsys):
    cut = LINES[3][:50]  # "1000004        Dane,Dora" and blanks toward the federation
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER, *LINES[:3], cut]))
    assert code == 2
    assert (
        f"{tmp_path / 'list.txt'}:5: malformed_row: line ends at column 50, the end of the "
        "file (no final newline), inside the Name column (columns 16-76): file truncated?"
    ) in said
    assert stored(tmp_path, capsys) == THREE


def test_a_padded_list_cut_after_a_whole_rating_is_truncated(tmp_path, capsys):
    """FIDE pads every line to the header's width: a last line that stops before the
    last heading's column was cut, even after a whole value (Dane's K and B-day lost)."""
    lines = [line(*p, pad=True) for p in PLAYERS]
    code, said = ingest(tmp_path, capsys, "\r\n".join([HEADER, *lines[:3], lines[3][:117]]))
    assert code == 2
    assert (
        ":5: malformed_row: line ends at column 117, the end of the file (no final "
        "newline), inside the DEC25 column (columns 114-119): file truncated?"
    ) in said
    assert stored(tmp_path, capsys) == THREE


def test_a_whole_last_line_without_a_final_newline_is_read(tmp_path, capsys):
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER, *LINES]))  # no final newline
    assert code == 0, said
    assert "4 rows read, 4 players stored, 0 quarantined" in said
    assert stored(tmp_path, capsys) == [*THREE, ("1000004", "Dane,Dora", "ISL", "2513.0", "1985")]


# -- 2: a heading missing from the header ---------------------------------------------------


def test_a_heading_missing_from_the_header_refuses_the_file(tmp_path, capsys):
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER.replace("Fed", "   "), *LINES]) + "\n")
    assert code == 2
    assert (
        f"{tmp_path / 'list.txt'}:2: 'ISL' begins at screen column 77, after a run of blanks, "
        "where no heading begins: inside the Name column (columns 16-80), it would be read "
        "as part of 'Adams,Alice … ISL'; the same on 4 line(s) (2, 3, 4, 5): the header line "
        "does not match the lines' columns (a heading missing, or a column's values not "
        "under its heading?); its columns: ID Number at 1, Name at 16, Sex at 81, Tit at 85, "
        "WTit at 90, OTit at 95, FOA at 110, DEC25 at 114, Gms at 120, K at 124, B-day at "
        "127, Flag at 133, each running from its heading to the next: give every column a "
        "heading where its values begin"
    ) in said
    sql = ["sql", "SELECT 1 FROM players", "--store", str(tmp_path / "S")]
    assert main(sql) == 2  # refused before anything was stored
    assert "no store at" in capsys.readouterr().err


def test_the_rating_without_its_heading_refuses_the_file(tmp_path, capsys):
    """The rating read as the FOA title (an empty column before it), the list unrated."""
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER.replace("DEC25", "     "), *LINES]) + "\n")  # fmt: skip
    assert code == 2
    assert (
        ":2: '2018' begins at screen column 114, after a run of blanks, where no heading "
        "begins: inside the FOA column (columns 110-119), it would be read as '2018'; the "
        "same on 4 line(s)"
    ) in said


def test_a_header_one_column_off_is_still_read(tmp_path, capsys):
    """A value one column after its heading, alone in its column, reads as it is."""
    shifted = HEADER.replace("ID Number      Name ", "ID Number     Name  ")
    code, said = ingest(tmp_path, capsys, "\n".join([shifted, *LINES]) + "\n")
    assert code == 0, said
    assert stored(tmp_path, capsys)[:3] == THREE


def test_one_line_with_text_under_no_heading_is_quarantined(tmp_path, capsys):
    """On one line (not the same column on many): that line, the others stored."""
    odd = line("1000005", "Evans,  Eve", "1950", "1990")  # a run of blanks in a name
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER, *LINES[:3], odd]) + "\n")
    assert code == 2
    assert (
        ":5: malformed_row: 'Eve' begins at screen column 24, after a run of blanks, where "
        "no heading begins: inside the Name column (columns 16-76), it would be read as part "
        "of 'Evans, … Eve'; the line is not aligned to the header's columns (a wide character "
        "padded as one column, a run of blanks inside a value, or a heading missing from "
        "line 1?)"
    ) in said
    assert stored(tmp_path, capsys) == THREE


# -- 3: what is wrong, said -----------------------------------------------------------------


def test_a_tab_in_a_line_is_named(tmp_path, capsys):
    tabbed = LINES[0].replace("       ", "\t", 1)  # as an editor's tab after the id
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER, tabbed, *LINES[1:]]) + "\n")
    assert code == 2
    assert (
        ":2: malformed_row: a TAB character at column 8: a fixed-width list (FIDE's TXT) is "
        "read by screen column (replace the tabs by spaces)"
    ) in said  # (was "rating 1   20 is not a number in 0..3500")
    assert [r[0] for r in stored(tmp_path, capsys)] == ["1000002", "1000003", "1000004"]


def test_a_tab_in_the_header_line_is_named(tmp_path, capsys):
    code, said = ingest(tmp_path, capsys, "\n".join([HEADER.replace("      ", "\t", 1), *LINES]) + "\n")  # fmt: skip
    assert code == 2
    assert (
        f"{tmp_path / 'list.txt'}:1: a TAB character at column 10 of the header line of a "
        "fixed-width list (FIDE's TXT): its columns are found by screen column (replace the "
        "tabs by spaces)"
    ) in said  # (was "malformed_row: 1 fields where the header has 2" on every line)


def test_a_title_line_before_the_header_is_named(tmp_path, capsys):
    text = "\n".join(["FIDE Rating List December 2025", "", HEADER, *LINES]) + "\n"
    code, said = ingest(tmp_path, capsys, text)
    assert code == 2
    assert (
        f"{tmp_path / 'list.txt'}:3: the header line of a fixed-width list (FIDE's TXT: ID "
        "Number, Name, …) must be the first line; here it is line 3, after 'FIDE Rating List "
        "December 2025': remove the line(s) before it"
    ) in said  # (was "missing required column(s): player_id … found: FIDE Rating List …")


def test_a_blank_line_before_the_header_is_named(tmp_path, capsys):
    code, said = ingest(tmp_path, capsys, "\n".join(["", HEADER, *LINES]) + "\n")
    assert code == 2
    assert (
        ":2: the header line of a fixed-width list (FIDE's TXT: ID Number, Name, …) must be "
        "the first line; here it is line 2, after blank line(s): remove the line(s) before it"
    ) in said
