"""A TRF file cut off part-way through a 001 line (docs/pgn-trf.md "Reading TRF",
hostile report item 3): the partial field was read as the value (Kunin's FIDE id
4128737 stored as 412, his rating 2448 as 24, a Lichess name as 'fey') and nothing
said the file was cut. Columns are TRF16's (FIDE Handbook C.04 Annex 2): rating
49-52, FIDE id 58-68, name 15-47, birth date 70-79; the 062 record is the number of
players.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store
from arpad.pipeline.trf import read_trf

KARL = "fide_example1_karl_mala_2005.trf"
LICHESS = "lichess_swiss_2020-06-26.trf"
# name: (players, games) read from the complete file (docs/pgn-trf.md accounting)
REAL = {
    KARL: (284, 980),
    "open_gros_2010_after_r4.trf": (52, 93),
    "lichess_swiss_bullet_2020-05-10.trf": (112, 574),
    "lichess_swiss_2020-05-29.trf": (13, 56),
    LICHESS: (9, 36),
}


def karl_cut(shared_data: Path, tmp_path: Path, width: int, newline: str = "") -> Path:
    """The FIDE example cut after ``width`` characters of Kunin's line (starting rank 7,
    line 20: ``… Kunin,Vitaly   2448         4128737 1983.10.02 …``)."""
    lines = (shared_data / "trf" / KARL).read_text(encoding="latin-1").split("\n")
    i = next(k for k, line in enumerate(lines) if line.startswith("001    7"))
    path = tmp_path / "karlcut.trf"
    path.write_text("\n".join(lines[:i]) + "\n" + lines[i][:width] + newline, encoding="latin-1")
    return path


def malformed(raw) -> list[tuple[int, str]]:
    return [
        (no, detail) for no, reason, detail, _ in raw.problems if reason == Reason.MALFORMED_ROW
    ]


def test_cut_inside_the_fide_id(shared_data, tmp_path):
    raw = read_trf(karl_cut(shared_data, tmp_path, 64))
    assert malformed(raw) == [
        (
            20,
            "001 line ends at column 64, the end of the file (no final newline), "
            "inside the FIDE id (columns 58-68): file truncated?",
        )
    ]
    assert "412" not in raw.players["player_id"].to_list()
    assert "Kunin,Vitaly" not in raw.players["name"].to_list()
    assert raw.players.height == 6
    assert "062 says 284 players, the file has 7 001 lines: truncated?" in raw.notes


@pytest.mark.parametrize("newline", ["", "\n"])
def test_cut_inside_the_rating(shared_data, tmp_path, newline):
    # a right-aligned number: refused with or without a final newline (2448 read as 24)
    raw = read_trf(karl_cut(shared_data, tmp_path, 50, newline))
    eof = "" if newline else ", the end of the file (no final newline)"
    assert malformed(raw) == [
        (20, f"001 line ends at column 50{eof}, inside the rating (columns 49-52): file truncated?")
    ]
    assert "24" not in raw.players["rating"].to_list()
    assert "karlcut.trf#7" not in raw.players["player_id"].to_list()


def test_cut_inside_the_birth_date(shared_data, tmp_path):
    raw = read_trf(karl_cut(shared_data, tmp_path, 75, "\n"))  # '1983.' of 1983.10.02
    assert malformed(raw) == [
        (20, "001 line ends at column 75, inside the birth date (columns 70-79): file truncated?")
    ]


def test_cut_inside_the_name_at_the_end_of_the_file(shared_data, tmp_path):
    path = tmp_path / "lichcut.trf"
    path.write_bytes((shared_data / "trf" / LICHESS).read_bytes()[:1500])  # 'feyre17' cut
    raw = read_trf(path)
    assert malformed(raw) == [
        (
            23,
            "001 line ends at column 17, the end of the file (no final newline), "
            "inside the name (columns 15-47): file truncated?",
        )
    ]
    assert "fey" not in raw.players["name"].to_list()
    assert raw.players.height == 7
    # her opponents' blocks name a rank without a player, as for any refused line
    # (before: 'fey' was stored and her pairings were inconsistent_pairing)
    reasons = {reason for _, reason, _, _ in raw.problems}
    assert reasons == {Reason.MALFORMED_ROW, Reason.UNKNOWN_OPPONENT}
    assert (16, Reason.UNKNOWN_OPPONENT) in [
        (no, r) for no, r, d, _ in raw.problems if "rank 8" in d
    ]
    assert "062 says 9 players, the file has 8 001 lines: truncated?" in raw.notes


def test_ingest_stores_no_ghost_player(shared_data, tmp_path):
    store = Store(tmp_path / "s")
    report = ingest_file(store, karl_cut(shared_data, tmp_path, 64))
    assert report.quarantined > 0
    ids = store.read_players().column("player_id").to_pylist()
    assert "412" not in ids and "4128737" not in ids
    assert len(ids) == 6


def line001(rank: int, tail: str) -> str:
    """A 001 line: rank 5-8, name from column 15, then ``tail`` from column 48."""
    return f"001 {rank:>4}      {'Player ' + str(rank):<33}{tail}"


HEADER = ["012 Cut Open", "042 2026/10/31", "062 5"]


@pytest.mark.parametrize("final_newline", [True, False])
def test_lines_without_their_trailing_fields_are_read(tmp_path, final_newline):
    # A line may end after any whole field (an editor strips trailing blanks): after the
    # name, the rating (52), the federation (56), the FIDE id (68), a birth year (73).
    lines = [
        "001    1      Short",  # ends inside the name: a whole line, it has a newline
        line001(2, " 2100"),  # column 52
        line001(3, " 2000 POL"),  # column 56
        line001(4, " 1900 POL    12345678"),  # column 68
        line001(5, " 1800 POL    12345679 1978"),  # column 73, a birth year alone
    ]
    assert [len(x) for x in lines] == [19, 52, 56, 68, 73]
    path = tmp_path / "short.trf"
    lines = [*HEADER, *lines]
    if not final_newline:
        lines[2] = "062 6"
        lines.append(line001(6, " 1700"))  # the last line, ending after the rating
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    raw = read_trf(path)
    assert malformed(raw) == []
    assert raw.players["player_id"].to_list()[1:] == [
        "short.trf#2",
        "short.trf#3",
        "12345678",
        "12345679",
        *([] if final_newline else ["short.trf#6"]),
    ]
    assert raw.players["rating"].to_list()[1:5] == ["2100", "2000", "1900", "1800"]
    assert raw.players.filter(raw.players["player_id"] == "12345679")["birth_year"].item() == (
        "1978"
    )
    assert not [n for n in raw.notes if n.startswith("062")]


def test_last_line_without_newline_cut_inside_the_name(tmp_path):
    path = tmp_path / "eof.trf"
    path.write_text("\n".join([*HEADER, line001(1, " 2100"), "001    2      Pla"]), "utf-8")
    raw = read_trf(path)
    assert malformed(raw) == [
        (
            5,
            "001 line ends at column 17, the end of the file (no final newline), "
            "inside the name (columns 15-47): file truncated?",
        )
    ]
    assert raw.players["player_id"].to_list() == ["eof.trf#1"]
    assert "062 says 5 players, the file has 2 001 lines: truncated?" in raw.notes


def test_more_001_lines_than_the_062_record(tmp_path):
    path = tmp_path / "more.trf"
    lines = ["062 1", line001(1, " 2100"), line001(2, " 2000")]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    raw = read_trf(path)
    assert "062 says 1 players, the file has 2 001 lines: the 062 record not updated?" in (
        raw.notes
    )


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_files_are_not_affected(shared_data, name):
    raw = read_trf(shared_data / "trf" / name)
    assert (raw.players.height, raw.frame.height) == REAL[name]
    assert raw.problems == []
    assert not [n for n in raw.notes if "062" in n]
