"""Historian's sources, round 9 (docs/pgn-trf.md): a game dated only by its EventDate,
comment lines between tags, a day without its month, several games on one line, and
what the probable-duplicate detail says of Event/Site/Round. Each test failed before
its fix."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import numpy as np
import pytest

from arpad.pipeline import pgn
from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from tests.test_historian_attack import sql

MOVES = "1. c4 e6 2. Nc3 f5 3. g3 Nf6 4. Bg2 c6 5. d3 d5 6. Nf3 Be7 1-0"


def game(event: str, site: str, date: str, rnd: str, extra: str = "") -> str:
    return (
        f'[Event "{event}"]\n[Site "{site}"]\n[Date "{date}"]\n{extra}[Round "{rnd}"]\n'
        '[White "Staunton, Howard"]\n[Black "Horwitz, Bernhard"]\n[Result "1-0"]\n\n'
        f"{MOVES}\n\n"
    )


def ingest(store: Path, *files: Path) -> int:
    return main(["ingest", *map(str, files), "--store", str(store), "--no-flow"])


# -- 1. a game dated only by its EventDate -----------------------------------------------


def test_a_game_dated_by_its_event_date_is_a_year_only_game(tmp_path):
    """EventDate is the event's first day, a lower bound: the game was stored with
    date 1851-05-26, precision day (rated in May of a May-July event, against "the
    last month the game can have been played in", docs/pgn-trf.md "Imprecise dates")."""
    path = tmp_path / "a.pgn"
    path.write_text(
        game("London", "London", "????.??.??", "3.2", '[EventDate "1851.05.26"]\n')
        + game("London", "London", "????.??.??", "3.3", '[EventDate "1851.05.??"]\n')
    )
    raw = read_pgn(path)
    assert not raw.problems
    assert raw.frame.select("date", "period", "date_precision").rows() == [
        (None, "185112", "year"),
        (None, "185112", "year"),
    ]


def test_an_event_dated_game_and_a_dated_copy_are_one_game(tmp_path):
    """bookA (EventDate 1851.05.26 only) and bookB (Date 1851.06.10), same players,
    result and moves: both were stored (dates 1851-05-26 and 1851-06-10 "disagree")
    and the game was rated twice; now bookB's copy is a probable duplicate."""
    a, b = tmp_path / "bookA.pgn", tmp_path / "bookB.pgn"
    a.write_text(game("London", "London", "????.??.??", "3.2", '[EventDate "1851.05.26"]\n'))
    b.write_text(game("London 1851", "London ENG", "1851.06.10", "?"))
    assert ingest(tmp_path / "S", a, b) == 2  # a quarantined row
    games = sql(tmp_path / "S", "SELECT game_id, period, date, date_precision FROM games")
    assert games.rows() == [("bookA.pgn:1", 185112, None, "year")]
    q = sql(tmp_path / "S", "SELECT source, reason, detail FROM quarantine")
    assert q.rows()[0][:2] == ("bookB.pgn", "probable_duplicate")
    assert "dates 1851.06.10 and 1851.??.?? agree where both are known" in q["detail"][0]


# -- 2. comment lines between the tags ---------------------------------------------------

SEMI = (
    '[Event "Hastings"]\n[Site "Hastings"]\n[Date "1895.08.05"]\n[Round "1"]\n'
    "; source: tournament book p. 12\n"
    '[White "Pillsbury, Harry Nelson"]\n[Black "Tchigorin, Mikhail"]\n[Result "0-1"]\n\n'
    "1. d4 d5 2. c4 Nc6 0-1\n\n"
    '[Event "Hastings"]\n[Site "Hastings"]\n[Date "1895.08.06"]\n[Round "2"]\n'
    '[White "Tchigorin, Mikhail"]\n[Black "Pillsbury, Harry Nelson"]\n'
    "{ from the tournament book }\n"
    '[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    '[Event "After the event tag"]\n; a comment line\n[Site "S"]\n% escape line\n'
    '[Date "1890.01.02"]\n[Round "2"]\n[White "Aa, B"]\n[Black "Cc, D"]\n[Result "0-1"]\n\n'
    "1. d4 d5 0-1\n"
)


def test_comment_lines_between_tags_are_comments(tmp_path):
    """PGN Standard §5: a ';' comment runs to the line's end. Such a line (and a line
    that is one { } comment) between tags split the game: 4 rows, 0 stored, reasons
    "tags without movetext" and a false "no Date or EventDate tag"."""
    path = tmp_path / "semi.pgn"
    path.write_text(SEMI)
    raw = read_pgn(path)
    assert raw.problems == []
    frame = raw.frame.sort("_line")
    assert frame.select("event_id", "result", "date").rows() == [
        ("Hastings", "0-1", "1895.08.05"),
        ("Hastings", "1-0", "1895.08.06"),
        ("After the event tag", "0-1", "1890.01.02"),
    ]
    assert frame["game_id"].to_list() == [
        "pgn:Hastings|Hastings|1895.08.05|1|Pillsbury, Harry Nelson|Tchigorin, Mikhail",
        "pgn:Hastings|Hastings|1895.08.06|2|Tchigorin, Mikhail|Pillsbury, Harry Nelson",
        "pgn:After the event tag|S|1890.01.02|2|Aa, B|Cc, D",
    ]
    # python-chess (the docs' reference) reads the ';' game whole too
    with path.open() as handle:
        first = chess.pgn.read_game(handle)
    assert first.headers["Round"] == "1" and first.headers["White"] == frame["white_id"][
        0
    ].removeprefix("semi.pgn:")


def test_comment_lines_between_tags_read_alike_in_parts(tmp_path):
    """The scan in parts (cut at [Event lines) gives what one reading gives."""
    data = (SEMI + "\n") * 40
    buf = np.frombuffer(data.encode(), np.uint8)
    whole, _ = pgn.scan(buf, parts=1)
    parts, _ = pgn.scan(buf, parts=3)
    assert whole.shape[0] == 120
    assert np.array_equal(whole, parts)


# -- 3. a day without its month ----------------------------------------------------------


@pytest.mark.parametrize("date", ["1851.??.15", "1851.00.15", "1851.??.5"])
def test_a_day_without_its_month_is_a_year_only_date(tmp_path, date):
    """Was bad_date ("not a valid date in the PGN form"): the year is certain, and a
    day without its month places nothing, so it is read as 1851.??.??."""
    path = tmp_path / "d.pgn"
    path.write_text(game("E", "S", date, "1"))
    raw = read_pgn(path)
    assert raw.problems == []
    assert raw.frame.select("date", "period", "date_precision").rows() == [(None, "185112", "year")]


# -- 4. several games on one line --------------------------------------------------------


def test_several_games_on_one_line_are_counted_in_the_detail(tmp_path):
    """3 games on one line were one row "malformed tag line 1 (expected [Tag "value"])":
    the detail now says the line holds 3 games."""
    one = '[Event "E"][Site "S"][Date "1890.01.0{d}"][Round "{d}"][White "A, B"][Black "C, D"]'
    line = " ".join(
        one.format(d=d) + f'[Result "{r}"] 1. e4 e5 {r}' for d, r in ((2, "1-0"), (3, "0-1"))
    )
    path = tmp_path / "o.pgn"
    path.write_text(
        '[Event "X"]\n[Site "S"]\n[Date "1890.01.01"]\n[Round "1"]\n'
        '[White "A, B"]\n[Black "C, D"]\n[Result "1-0"]\n\n1. d4 1-0\n\n'
        + line
        + " "
        + one.format(d=4)
        + '[Result "1/2-1/2"] 1. c4 1/2-1/2\n\n'
        + one.format(d=5)
        + '[Result "1-0"] 1. c4 1-0\n'
    )
    raw = read_pgn(path)
    assert raw.frame.height == 1
    assert [(p[0], p[1], p[2]) for p in raw.problems] == [
        (
            11,
            "malformed_row",
            "malformed tag line 11: it holds 3 games, each one's tags, movetext and "
            'termination marker on the one line (expected [Tag "value"] lines, then the '
            "movetext on lines of its own); none of them was read: start each game's "
            "tags and its movetext on new lines",
        ),
        (
            13,
            "malformed_row",
            "malformed tag line 13: movetext follows the tags on the same line "
            '(expected [Tag "value"] lines, then the movetext on lines of its own)',
        ),
    ]


def test_a_malformed_tag_line_keeps_its_detail(tmp_path):
    """A guard (passed before): a malformed tag line without movetext on it keeps the
    round-1 detail."""
    path = tmp_path / "m.pgn"
    path.write_text(game("E", "S", "1890.01.01", "1", '[Annotator "x]\n'))
    [(line, reason, detail, _)] = read_pgn(path).problems
    assert (line, reason) == (1, "malformed_row")  # the game's first line
    assert detail == 'malformed tag line 4 (expected [Tag "value"])'


# -- 5. what the probable-duplicate detail says of Event, Site and Round ----------------


def test_a_re_saved_file_is_named_a_copy_not_spelt_differently(tmp_path):
    """The same file with CR line ends and a BOM: the detail said "Event/Site/Round
    spelt differently" though they are identical."""
    text = game("London", "London", "1851.??.??", "1")
    a, b = tmp_path / "london_cr.pgn", tmp_path / "London.pgn"
    a.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r").encode())
    b.write_text(text)
    assert ingest(tmp_path / "S", a, b) == 2
    [detail] = sql(tmp_path / "S", "SELECT detail FROM quarantine")["detail"].to_list()
    assert "spelt differently" not in detail
    assert detail == (
        "probable duplicate of game london_cr.pgn:1 stored from london_cr.pgn:1 (same "
        "White, Black, result and moves; dates 1851.??.?? and 1851.??.?? agree where both "
        "are known; the same Event 'London': a copy of that file (re-saved, converted or "
        "renamed)?): --keep-probable-duplicates keeps it"
    )


def test_the_detail_names_the_tags_that_differ(tmp_path):
    """Both games with full tags (game ids of the tags): the detail names the Event,
    Site and Round that differ, and only those."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(game("London", "London", "1851.06.10", "1"))
    b.write_text(game("London", "London ENG", "1851.06.10", "1.1"))
    assert ingest(tmp_path / "S", a, b) == 2
    [detail] = sql(tmp_path / "S", "SELECT detail FROM quarantine")["detail"].to_list()
    assert (
        "(same date, White, Black, result and moves; Site 'London ENG' here, 'London' "
        "there; Round '1.1' here, '1' there)" in detail
    )
