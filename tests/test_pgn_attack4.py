"""The historian's fourth attack on the PGN reader (docs/pgn-trf.md "Historian's
sources, round 8"). Each test failed before its fix:

1. text after a game's termination marker was read as that game's movetext: a
   second game that lost its tags was absorbed silently (or made the first one a
   ``result_mismatch``), and a source line after the result made the game
   ``truncated_game`` ("file truncated?");
2. ``[Result ""]`` was ``unknown_result`` ("no result and no score") although the
   movetext ends with ``1-0``;
3. ``Date "1858.13.??"`` was ``period_out_of_range`` (period 185813), where
   ``1858.13.01`` is ``bad_date`` naming the tag;
4. ``[Date ""]`` was "no Date or EventDate tag".
"""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import numpy as np

from arpad.pipeline import pgn
from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from tests.test_historian_attack import sql

HEAD = (
    '[Event "Vienna"]\n[Site "Vienna"]\n[Date "{date}"]\n[Round "{rnd}"]\n'
    '[White "Lasker, Emanuel"]\n[Black "Schlechter, Carl"]\n[Result "{result}"]\n\n'
)


def tags(date="1910.01.12", rnd="2", result="1-0") -> str:
    """A tag section of 7 lines and a blank line: its movetext starts on line 9."""
    return HEAD.format(date=date, rnd=rnd, result=result)


def write(tmp_path: Path, text: str, name: str = "h.pgn") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def python_chess_games(text: str) -> int:
    stream, n = io.StringIO(text), 0
    while chess.pgn.read_game(stream) is not None:
        n += 1
    return n


def rows_read(raw) -> int:
    """Rows read = stored candidates + quarantined problems (validation's sum)."""
    return raw.frame.height + len(raw.problems)


ORPHAN = "movetext without tags after the game ending at line {}: a game ends at its "
ORPHAN += "termination marker (PGN Standard §8.2.6), so this is another game, whose tag "
ORPHAN += "section is missing"


# -- 1. text after a game's termination marker -------------------------------------------


def test_a_tagless_game_after_a_game_is_a_row_of_its_own_not_absorbed(tmp_path):
    # files/orphan_same.pgn: was "1 rows read, 1 games stored, 0 quarantined"
    text = tags() + "1. e4 e5 1-0\n\n1. c4 c5 2. Nc3 1-0\n"
    raw = read_pgn(write(tmp_path, text))
    # the tagged game ends at its marker on line 9; the orphan starts on line 11
    assert [p[:3] for p in raw.problems] == [(11, "malformed_row", ORPHAN.format(9))]
    assert raw.problems[0][3] == "1. c4 c5 2. Nc3 1-0"
    assert raw.frame.select("result", "_line").rows() == [("1-0", 1)]
    assert rows_read(raw) == python_chess_games(text) == 2
    # the stored game's moves are its own (e4 e5), not e4 e5 c4 c5 Nc3
    alone = read_pgn(write(tmp_path, tags() + "1. e4 e5 1-0\n", "alone.pgn"))
    assert raw.frame["moves_digest"].to_list() == alone.frame["moves_digest"].to_list()
    merged = read_pgn(write(tmp_path, tags() + "1. e4 e5 1. c4 c5 2. Nc3 1-0\n", "m.pgn"))
    assert merged.frame["moves_digest"][0] != alone.frame["moves_digest"][0]
    # a marker inside a variation or a comment is not where the game ends, and a
    # comment after the marker (same line, next line) belongs to the game: no problem,
    # the digest is that of 1. e4 e5 2. Nf3
    plain = tags() + "1. e4 e5 2. Nf3 1-0\n"
    odd = tags() + "1. e4 (1. d4 d5 1-0) e5 {White won 1-0 later} 2. Nf3 1-0 {resigns}\n"
    odd += "{Notes by Steinitz}\n; source: ICM\n"
    a = read_pgn(write(tmp_path, plain, "a.pgn"))
    b = read_pgn(write(tmp_path, odd, "b.pgn"))
    assert a.problems == b.problems == []
    assert b.frame["moves_digest"].to_list() == a.frame["moves_digest"].to_list()
    assert b.frame["result"].to_list() == ["1-0"]
    # a marker glued to the last move (`Qxf7#1-0`) is no token of its own: it ends the
    # text as before (the last text's marker), with nothing after it
    glued = read_pgn(write(tmp_path, tags() + "1. e4 e5 2. Qh5 Nc6 3. Qxf7#1-0\n", "c.pgn"))
    assert glued.problems == [] and glued.frame["result"].to_list() == ["1-0"]


def test_a_tagless_game_with_another_result_does_not_lose_the_game_before_it(tmp_path):
    # files/orphan.pgn: was result_mismatch "Result tag 1-0 but the movetext ends with 0-1"
    text = tags() + "1. e4 e5 1-0\n\n1. c4 c5 2. Nc3 0-1\n"
    path = write(tmp_path, text)
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 2  # 2: rows quarantined
    games = sql(store, "SELECT white_id, black_id, score FROM games")
    assert games.rows() == [("h.pgn:Lasker, Emanuel", "h.pgn:Schlechter, Carl", 1.0)]
    q = sql(store, "SELECT line, reason, detail FROM quarantine")
    assert q.rows() == [(11, "malformed_row", ORPHAN.format(9))]


def test_a_source_line_after_the_result_is_named_with_the_markers_line(tmp_path):
    # files/trailing_text.pgn: was truncated_game "no game termination marker …: file
    # truncated?" although the marker stands on line 9
    text = tags(date="1895.08.05", rnd="1") + "1. e4 e5 2. f4 exf4 1-0\n\n"
    text += "Source: Hastings 1895 tournament book, p. 12.\n"
    raw = read_pgn(write(tmp_path, text))
    assert [p[:2] for p in raw.problems] == [(11, "malformed_row")]
    assert raw.problems[0][2] == (
        "text after the termination marker 1-0 on line 9: 'Source: Hastings 1895 "
        "tournament book, p. 12.' is no movetext (a note belongs in a { } comment)"
    )
    assert raw.frame["result"].to_list() == ["1-0"]
    assert rows_read(raw) == python_chess_games(text) == 2


def test_several_tagless_games_are_one_row_each_each_naming_the_game_before(tmp_path):
    # the game's moves on line 9, orphans on lines 11 and 14 (the second after a ;
    # comment line on line 13), a note on line 16, a tagged game again from line 18
    text = tags() + "1. e4 e5 1-0\n\n1. c4 c5 2. Nc3 1-0\n\n; a line comment\n1. d4 d5 0-1\n\n"
    text += "from the Deutsche Schachzeitung\n\n" + tags(rnd="3", result="0-1") + "1. f4 0-1\n"
    raw = read_pgn(write(tmp_path, text))
    assert [(p[0], p[1]) for p in raw.problems] == [
        (11, "malformed_row"),
        (14, "malformed_row"),
        (16, "malformed_row"),
    ]
    assert raw.problems[0][2] == ORPHAN.format(9)
    assert raw.problems[1][2] == ORPHAN.format(11)  # after the first orphan's 1-0
    assert raw.problems[2][2].startswith(
        "text after the termination marker 0-1 on line 14: 'from the Deutsche Schachzeitung'"
    )
    assert raw.frame.select("_line", "result").rows() == [(1, "1-0"), (18, "0-1")]
    assert rows_read(raw) == python_chess_games(text) == 5


def test_the_parallel_scan_reads_the_text_after_a_marker_as_one_scan(tmp_path):
    # parts cut at [Event lines give the byte ranges of one reading (absolute offsets)
    one = tags() + "1. e4 e5 1-0\n\n1. c4 c5 1-0\n\n"
    text = "".join(one.replace('"2"', f'"{k}"') for k in range(12))
    buf = np.frombuffer(text.encode(), np.uint8)
    whole, _ = pgn.scan(buf, 1)
    parts, _ = pgn.scan(buf, 3)
    assert np.array_equal(whole, parts)
    raw = read_pgn(write(tmp_path, text))
    # orphan k on line 11 + 12 * k (a game with its orphan: 7 tag lines, a blank line,
    # the moves on line 9, a blank line, the orphan on line 11, a blank line)
    assert [p[0] for p in raw.problems] == [11 + 12 * k for k in range(12)]
    assert raw.frame.height == 12


# -- 2. an empty Result tag --------------------------------------------------------------


def test_an_empty_result_tag_is_a_missing_one(tmp_path):
    # files/emptyresult.pgn: was unknown_result "no result and no score"
    text = tags(date="1858.10.05", rnd="1", result="") + "1. e4 e5 2. Nf3 1-0\n\n"
    text += tags(date="1858.10.06", rnd="2", result=" ") + "1. d4 d5 0-1\n"
    path = write(tmp_path, text)
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 0
    got = sql(store, "SELECT score FROM games ORDER BY date")
    assert got["score"].to_list() == [1.0, 0.0]


# -- 3, 4. dates -------------------------------------------------------------------------

BAD_DATE = (
    "Date tag {!r} is not a valid date in the PGN form YYYY.MM.DD (?? for an unknown "
    "month or day: YYYY.MM.??, YYYY.??.??)"
)


def test_an_impossible_month_with_an_unknown_day_is_a_bad_date_naming_the_tag(tmp_path):
    # files/baddates.pgn: 1858.13.?? was period_out_of_range "period 185813 is outside …"
    text = "".join(
        tags(date=d, rnd=str(k)) + "1. e4 e5 1-0\n\n"
        for k, d in enumerate(["1858.13.01", "1858.13.??", "1858.13", "1858.00.??"], 1)
    )
    raw = read_pgn(write(tmp_path, text))
    # four games of 10 lines each: lines 1, 11, 21, 31
    assert [p[:3] for p in raw.problems] == [
        (1, "bad_date", BAD_DATE.format("1858.13.01")),
        (11, "bad_date", BAD_DATE.format("1858.13.??")),
        (21, "bad_date", BAD_DATE.format("1858.13")),
    ]
    # a zero month is an unknown one (round 3): the year's last month
    assert raw.frame.select("period", "date_precision").rows() == [("185812", "year")]


def test_an_empty_date_tag_is_named_as_empty(tmp_path):
    # files/baddates.pgn: [Date ""] was "no Date or EventDate tag"
    text = tags(date="", rnd="1") + "1. e4 e5 1-0\n\n"
    text += tags(date="", rnd="2").replace("\n\n", '\n[EventDate "????.??.??"]\n\n')
    text += "1. e4 e5 1-0\n\n"
    text += tags(date="", rnd="3").replace('[Date ""]', "") + "1. e4 e5 1-0\n"
    raw = read_pgn(write(tmp_path, text))
    assert [p[:3] for p in raw.problems] == [
        (1, "missing_period", "Date tag '' is empty: the game cannot be placed in a period"),
        (
            11,
            "missing_period",
            "Date tag '' is empty and EventDate tag '????.??.??' gives no year: the game "
            "cannot be placed in a period",
        ),
        (22, "missing_period", "no Date or EventDate tag: the game cannot be placed in a period"),
    ]
