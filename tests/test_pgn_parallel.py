"""A large PGN file is scanned in parts side by side (pipeline/pgn.py ``scan``,
docs/pgn-trf.md "Reading speed"): the joined result must be the one reading from
the file's start gives, byte position for byte position and line for line.

References: the one-part scan of the same bytes (``parts=1``) on the real files in
every layout the PGN standard allows, on generated files mixing every construct the
scan treats specially (comments over several lines, header-only games, tag lines
inside comments, ``[Event`` lines after other tags, CR/LF/CRLF, byte-order marks),
and ``read_pgn``'s frame with the parallel path switched off.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels import pgn_scan
from arpad.pipeline import pgn, runner
from arpad.pipeline.pgn import read_pgn
from tests.test_pgn_scan_layouts import LONDON, games_of, write


def scan(data: bytes, parts: int | None):
    return pgn.scan(np.frombuffer(data, np.uint8), parts)


def assert_same(data: bytes, parts: int) -> None:
    games, pre = scan(data, 1)
    got_games, got_pre = scan(data, parts)
    assert got_pre.tolist() == pre.tolist()
    assert got_games.shape == games.shape
    assert np.array_equal(got_games, games)


def joined_or_none(data: bytes, parts: int):
    buf = np.frombuffer(data, np.uint8)
    cuts = pgn.split_points(buf, parts)
    return cuts, pgn._joined(buf, cuts) if cuts else None


@pytest.mark.parametrize("layout", [0, 5, 8, 16, 31])
@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("parts", [2, 7])
def test_london_in_every_layout_scans_alike_in_parts(shared_data, layout, crlf, parts):
    games = games_of((shared_data / "pgn" / LONDON).read_text(encoding="utf-8"))
    data = write(games, layout, "\r\n" if crlf else "\n").encode("utf-8")
    assert_same(data, parts)
    cuts, joined = joined_or_none(data, parts)
    if layout & 2:  # `[ Event  "…" ]`: no line starts with `[Event `, so no cut
        assert cuts == []
        return
    # the parts were really read side by side and joined (not the one-reading fallback)
    assert len(cuts) == parts - 1
    assert joined is not None


def test_kingbase_scans_alike_in_parts(shared_data):
    data = (shared_data / "pgn" / "kingbase_kb1.pgn").read_bytes()
    for parts in (2, 16):
        assert_same(data, parts)
        assert joined_or_none(data, parts)[1] is not None


def test_line_numbers_count_on_across_parts():
    game = '[Event "E"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    data = (game * 6).encode()
    games, _ = scan(data, 3)
    assert games[:, pgn_scan.LINE].tolist() == [1 + 7 * k for k in range(6)]


def test_a_comment_open_across_a_cut_sends_the_file_to_one_reading():
    # the second game's tag lines stand inside a comment that closes after them: they
    # are comment text, so the file holds one game (what one reading says)
    data = (
        b'[Event "A"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 {a long note\n'
        b'[Event "B"]\n[White "c"]\n[Black "d"]\n'
        b"still the note} e5 1-0\n"
    )
    cuts, joined = joined_or_none(data, 2)
    assert cuts  # a cut at the [Event line inside the comment ...
    assert joined is None  # ... that the first part says is not a game's start
    games, _ = scan(data, 2)
    assert games.shape[0] == 1
    assert_same(data, 2)


def test_an_event_line_after_other_tags_of_a_game_without_one_is_the_same_game():
    # a header-only game without [Event: the [Event line after its tags is its own
    data = b'[White "a"]\n[Black "b"]\n[Result "1-0"]\n[Event "late"]\n\n1. e4 1-0\n'
    data = b'[Event "first"]\n[White "x"]\n[Black "y"]\n\n1. d4 0-1\n\n' + data
    cuts, joined = joined_or_none(data, 3)
    assert data[cuts[-1] :].startswith(b'[Event "late"]')
    assert joined is None
    games, _ = scan(data, 3)
    assert games.shape[0] == 2
    assert_same(data, 3)


# -- generated files: every construct the scan treats specially, cut anywhere -------------
TAGS = st.sampled_from(
    [
        '[Event "Casual"]',
        '[Event "London"]',
        '[White "Morphy, Paul"]',
        '[Black "Anderssen"]',
        '[Result "1-0"]',
        '[Result "1/2-1/2"]',
        '[Date "1858.??.??"]',
        '[white "lower"]',
        '[ White  "blanks" ]',
        '[Event "a"] [Site "b"]',
        '[Round "broken',
    ]
)
MOVES = st.sampled_from(
    [
        "1. e4 e5 2. Nf3 Nc6 1-0",
        "1.d4 d5 {a note} 2. c4 0-1",
        "1. e4 {a note that runs",
        "on and ends} e5 *",
        "1. e4 (1. d4 d5) e5 1/2-1/2",
        "1. e4 ; rest of line",
        "0-0 O-O-O 1-0",
        '{ [Event "in a comment"] }',
        "1-0",
        "%escaped line",
    ]
)
BLANKS = st.sampled_from(["", " ", "\t", "\u00a0", "\ufeff"])


@st.composite
def pgn_files(draw):
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append("text before the first tag")
    for _ in range(draw(st.integers(1, 12))):
        lines += draw(st.lists(TAGS, min_size=0, max_size=4))
        if draw(st.booleans()):
            lines.append('[Event "next"]')
        lines += [""] * draw(st.integers(0, 2))
        lines += draw(st.lists(MOVES, min_size=0, max_size=4))
        lines += [""] * draw(st.integers(0, 2))
    lines = [draw(BLANKS) + line if draw(st.booleans()) else line for line in lines]
    return end.join(lines).encode("utf-8") + (end.encode() if draw(st.booleans()) else b"")


@given(data=pgn_files(), parts=st.integers(2, 6))
@settings(max_examples=300, deadline=None)
def test_generated_files_scan_alike_in_parts(data, parts):
    assert_same(data, parts)


# -- read_pgn end to end --------------------------------------------------------------------
def test_read_pgn_in_parts_equals_one_reading(shared_data, tmp_path, monkeypatch):
    path = tmp_path / "kb.pgn"
    path.write_bytes((shared_data / "pgn" / "kingbase_kb1.pgn").read_bytes())
    monkeypatch.setattr(pgn, "PARALLEL_MIN_BYTES", 1 << 62)
    whole = read_pgn(path)
    monkeypatch.setattr(pgn, "PARALLEL_MIN_BYTES", 1)
    calls = []
    real = pgn._joined
    monkeypatch.setattr(pgn, "_joined", lambda *a: calls.append(a[1]) or real(*a))
    parted = read_pgn(path)
    assert calls and calls[0]  # the file was cut
    assert parted.frame.equals(whole.frame)
    assert parted.problems == whole.problems
    assert parted.notes == whole.notes
    assert parted.players.equals(whole.players)


def test_split_points_are_event_line_starts(shared_data):
    data = (shared_data / "pgn" / "kingbase_kb1.pgn").read_bytes()
    buf = np.frombuffer(data, np.uint8)
    cuts = pgn.split_points(buf, 5)
    assert len(cuts) == 4 and cuts == sorted(set(cuts))
    for cut in cuts:
        assert data[cut - 1 : cut + 7] == b"\n[Event "
    # a file without such a line is not cut
    assert pgn.split_points(np.frombuffer(b"1. e4 e5 1-0\n" * 100, np.uint8), 4) == []


def test_find_crosses_its_windows():
    data = b"x" * 100 + b"\n[Event " + b"y" * 10
    buf = np.frombuffer(data, np.uint8)
    for window in (1, 3, 7, 50, 101, 1000):
        assert pgn._find(buf, b"\n[Event ", 0, window) == 100
    assert pgn._find(buf, b"\n[Event ", 101, 7) == -1


def test_parallel_min_bytes_decides_the_default(monkeypatch):
    data = ('[Event "E"]\n[White "a"]\n[Black "b"]\n\n1. e4 1-0\n\n' * 50).encode()
    seen = []
    real = pgn._joined
    monkeypatch.setattr(pgn, "_joined", lambda *a: seen.append(1) or real(*a))
    monkeypatch.setattr(runner, "local_cores", lambda: 2)
    monkeypatch.setattr(pgn, "PARALLEL_MIN_BYTES", len(data) + 1)
    scan(data, None)
    assert seen == []
    monkeypatch.setattr(pgn, "PARALLEL_MIN_BYTES", len(data))
    scan(data, None)
    assert seen == [1]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="uint8"):
        pgn_scan.scan_pgn(np.zeros(3, np.int64), pgn._TAG_NAMES, pgn._TAG_LEN)
    buf = np.frombuffer(b"[Event ", np.uint8)
    with pytest.raises(ValueError, match="outside"):
        pgn_scan.scan_pgn(buf, pgn._TAG_NAMES, pgn._TAG_LEN, 3, 99)
