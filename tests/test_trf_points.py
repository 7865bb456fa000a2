"""The points column of a TRF 001 line (columns 81-84) against the results in its
round blocks (docs/pgn-trf.md "Reading TRF"): a note, not a quarantine.

Points per code as FIDE Handbook C.04 Annex 2 (TRF16) gives them: 1 + W win 1, = D draw ½, 0 - L loss 0, H ½, F 1, U 1 (a pairing-allocated
bye scores a win, C.04.1), Z and blank 0. Expected totals are worked out by hand in
the comments; the real files in data/real/trf agree with their points columns.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.store import Store
from arpad.pipeline.trf import read_trf

HEADER = [
    "012 Points Open",
    "042 2026/10/31",
    "052 2026/11/02",
    "092 Individual: Swiss-System (Standard)",
]
REAL = [
    "fide_example1_karl_mala_2005.trf",
    "open_gros_2010_after_r4.trf",
    "lichess_swiss_bullet_2020-05-10.trf",
    "lichess_swiss_2020-05-29.trf",
    "lichess_swiss_2020-06-26.trf",
]


def line001(rank: int, name: str, points: str, blocks: list[str]) -> str:
    """A 001 line in the TRF16 columns: rank 5-8, name 15-47, FIDE id 58-68,
    points 81-84, rank 86-89, round blocks from 92 (``"   2 w 1"``, 8 columns each)."""
    head = f"001 {rank:>4}      {name:<33} 2000 POL {1000 + rank:>11}            {points:>4} {rank:>4}  "
    assert len(head) == 91 and head[80:84] == f"{points:>4}"
    return head + "  ".join(blocks)


def write(tmp_path: Path, lines: list[str], header: list[str] = HEADER) -> Path:
    path = tmp_path / "t.trf"
    path.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    return path


def points_notes(path: Path) -> list[str]:
    return [n for n in read_trf(path).notes if "points" in n]


# The rating officer's file (his t1.trf, written out here): player 2 is stated 2.0, his
# rounds give 0 + 1 + ½ = 1.5; the others agree (1: 1 + ½ + 1 forfeit = 2.5; 3: 1 + ½
# + ½ = 2.0; 4: 0 + 0 + 0 forfeit = 0.0).
OFFICER = [
    line001(1, "Łukasiewicz, Zbigniew", "2.5", ["   2 w 1", "   3 b =", "   4 w +"]),
    line001(2, "Müller, Jürgen", "2.0", ["   1 b 0", "   4 w 1", "   3 b ="]),
    line001(3, "Øverby, Åse", "2.0", ["   4 b 1", "   1 w =", "   2 w ="]),
    line001(4, "Smith, John", "0.0", ["   3 w 0", "   2 b 0", "   1 b -"]),
]


def test_officer_case_notes_the_one_player(tmp_path):
    assert points_notes(write(tmp_path, OFFICER)) == [
        "1 player(s) whose points on the 001 line differ from their results "
        "(#2 'Müller, Jürgen': 2.0 stated, 1.5 from the rounds): a mis-keyed result?"
    ]


def test_officer_case_is_a_note_not_a_quarantine(tmp_path):
    path = write(tmp_path, OFFICER)
    report = ingest_file(Store(tmp_path / "s"), path)
    assert (report.rows, report.accepted, report.quarantined) == (6, 6, 0)
    assert any("#2 'Müller, Jürgen': 2.0 stated, 1.5" in n for n in report.notes)


def test_points_that_agree_give_no_note(tmp_path):
    lines = list(OFFICER)
    lines[1] = line001(2, "Müller, Jürgen", "1.5", ["   1 b 0", "   4 w 1", "   3 b ="])
    assert points_notes(write(tmp_path, lines)) == []


def test_byes_count_as_the_format_says(tmp_path):
    # 5 players, 2 rounds; one bye a round in each of the forms
    lines = [
        # 1 + H ½ = 1.5
        line001(1, "Alpha", "1.5", ["   2 w 1", "0000 - H"]),
        # 0 + F 1 = 1.0
        line001(2, "Bravo", "1.0", ["   1 b 0", "0000 - F"]),
        # U 1 (blank-prefixed, as the Lichess files) + W 1 = 2.0
        line001(3, "Charlie", "2.0", ["       U", "   4 w W"]),
        # Z 0 + L 0 = 0.0
        line001(4, "Delta", "0.0", ["0000 - Z", "   3 b L"]),
        # absent (-) 0 + blank block 0 = 0.0
        line001(5, "Echo", "0.0", ["       -"]),
    ]
    assert points_notes(write(tmp_path, lines)) == []
    # the same file with Bravo's full-point bye counted as a half: 0.5 stated
    lines[1] = line001(2, "Bravo", "0.5", ["   1 b 0", "0000 - F"])
    assert points_notes(write(tmp_path, lines)) == [
        "1 player(s) whose points on the 001 line differ from their results "
        "(#2 'Bravo': 0.5 stated, 1.0 from the rounds): a mis-keyed result?"
    ]


def test_a_file_after_round_2_of_a_longer_event(tmp_path):
    # XXR 5, 2 rounds played, a pairing made for round 3 (blank result: 0 so far) and a
    # pre-announced H bye in round 3: counted (as the Gros file does) or not, both agree
    header = [*HEADER, "XXR 5"]
    lines = [
        line001(1, "Alpha", "2.0", ["   2 w 1", "   3 b 1", "   4 w  "]),
        line001(2, "Bravo", "0.5", ["   1 b 0", "   4 w =", "0000 - H"]),
        line001(3, "Charlie", "0.5", ["   4 b =", "   1 w 0"]),
        line001(4, "Delta", "1.0", ["   3 w =", "   2 b =", "   1 b  "]),
    ]
    assert points_notes(write(tmp_path, lines, header)) == []
    lines[1] = line001(2, "Bravo", "1.0", ["   1 b 0", "   4 w =", "0000 - H"])
    assert points_notes(write(tmp_path, lines, header)) == []
    lines[1] = line001(2, "Bravo", "1.5", ["   1 b 0", "   4 w =", "0000 - H"])
    assert len(points_notes(write(tmp_path, lines, header))) == 1


def test_at_most_three_examples(tmp_path):
    # 10 players in 5 games of one round; players 1-4 stated ½ off (winners 1.5,
    # losers 0.5), 5 of 10 differ, not a majority: a note with 3 examples
    lines = []
    for k in range(1, 11, 2):
        off = 0.5 if k <= 3 else 0.0
        lines.append(line001(k, f"P{k}", f"{1 + off:.1f}", [f"{k + 1:>4} w 1"]))
        lines.append(line001(k + 1, f"P{k + 1}", f"{off:.1f}", [f"{k:>4} b 0"]))
    lines[4] = line001(5, "P5", "0.5", ["   6 w 1"])  # 5th differs: 1.0 from the rounds
    assert points_notes(write(tmp_path, lines)) == [
        "5 player(s) whose points on the 001 line differ from their results "
        "(#1 'P1': 1.5 stated, 1.0 from the rounds, #2 'P2': 0.5 stated, 0.0 from the "
        "rounds, #3 'P3': 1.5 stated, 1.0 from the rounds, 2 more): a mis-keyed result?"
    ]


THREE_ONE_ZERO = [
    # a 3/1/0 event: win 3, draw 1, loss 0
    line001(1, "Alpha", "4.0", ["   2 w 1", "   3 b ="]),  # 3 + 1
    line001(2, "Bravo", "3.0", ["   1 b 0", "   4 w 1"]),  # 0 + 3
    line001(3, "Charlie", "4.0", ["   4 b 1", "   1 w ="]),  # 3 + 1
    line001(4, "Delta", "0.0", ["   3 w 0", "   2 b 0"]),  # 0 + 0
]


def test_another_scoring_system_is_not_a_flood_of_false_notes(tmp_path):
    # counted 1/½/0: 1.5, 1.0, 1.5, 0.0; three of four differ
    assert points_notes(write(tmp_path, THREE_ONE_ZERO)) == [
        "the points on the 001 lines of 3 of 4 players differ from their results counted "
        "1/½/0 (another scoring system, e.g. 3/1/0? a 162 record can give it): points "
        "not compared"
    ]


def test_a_162_scoring_record_is_used(tmp_path):
    header = [*HEADER, "162 W 3.0 D 1.0 L 0.0"]
    assert points_notes(write(tmp_path, THREE_ONE_ZERO, header)) == []
    lines = list(THREE_ONE_ZERO)
    lines[1] = line001(2, "Bravo", "4.0", ["   1 b 0", "   4 w 1"])
    assert points_notes(write(tmp_path, lines, header)) == [
        "1 player(s) whose points on the 001 line differ from their results "
        "(#2 'Bravo': 4.0 stated, 3.0 from the rounds): a mis-keyed result?"
    ]


def test_acceleration_points_in_the_column_are_accepted(tmp_path):
    # XXA 1: 1.0 virtual point in rounds 1 and 2; Alpha's column shows 1 + 1 + 2 = 4.0
    header = [*HEADER, "XXR 9", "XXA    1  1.0  1.0  1.0"]
    lines = [
        line001(1, "Alpha", "4.0", ["   2 w 1", "   3 w 1"]),
        line001(2, "Bravo", "0.0", ["   1 b 0", "0000 - Z"]),
        line001(3, "Charlie", "0.0", ["0000 - Z", "   1 b 0"]),
    ]
    assert points_notes(write(tmp_path, lines, header)) == []


def test_a_blank_points_column_is_not_compared(tmp_path):
    lines = [
        line001(1, "Alpha", "", ["   2 w 1"]),
        line001(2, "Bravo", "", ["   1 b 0"]),
    ]
    assert points_notes(write(tmp_path, lines)) == []


@pytest.mark.parametrize("name", REAL)
def test_real_files_agree_with_their_points(shared_data, name):
    # checked by hand on the files: every player's column equals his rounds (the Gros
    # file after round 4 counts its pre-announced round-5 H byes, and not its XXA
    # acceleration; the Lichess files score U byes 1)
    raw = read_trf(shared_data / "trf" / name)
    assert [n for n in raw.notes if "points" in n] == []
