"""The historian's second attack on PGN ids and notes (docs/pgn-trf.md "Historian's
sources, round 7", docs/ingest.md "Conflicting results"). Each test failed before its
fix:

1. a corrected PGN under another name was ``duplicate_game_id``, not
   ``conflicting_result`` (file-scoped player ids never match across files);
2. a name with two FIDE ids gave its id-less games the first id, and a FIDE id under
   two names took the later name, without a word;
3. "N row(s) repeat an earlier row" counted different games of a match dated to the
   year only (London 1851: 88);
4. two games of one file with the same six tags but other moves and result: the
   detail did not say they differ, nor how to keep both;
5. ``1/2-1/2 [Event "E"]`` on one line was "no game termination marker …: file
   truncated?".
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql


def game(
    date: str,
    white: str,
    black: str,
    result: str,
    moves: str = "1.e4 e5 2.Nf3 Nc6",
    rnd: str = "1",
    **tags,
) -> str:
    extra = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return (
        f'[Event "Paris casual"]\n[Site "Paris"]\n[Date "{date}"]\n[Round "{rnd}"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n{extra}\n'
        f"{moves} {result}\n\n"
    )


def write(path: Path, *games: str) -> Path:
    path.write_text("".join(games))
    return path


# -- 1. a corrected PGN under another name: conflicting_result -------------------------


def test_a_pgn_game_id_stored_from_another_file_with_another_result_conflicts(tmp_path):
    store = Store(tmp_path / "S")
    first = write(
        tmp_path / "kb3.pgn",
        game("2018.12.31", "Sundararajan, Kidambi", "Ziatdinov, Raset", "1/2-1/2"),
        game("2018.12.31", "Stojic, Dusan", "Johansen, Darryl K", "0-1", rnd="2"),
    )
    corrected = write(
        tmp_path / "kb3_corrected.pgn",
        game("2018.12.31", "Sundararajan, Kidambi", "Ziatdinov, Raset", "1-0"),
        game("2018.12.31", "Stojic, Dusan", "Johansen, Darryl K", "0-1", rnd="2"),
    )
    assert ingest_file(store, first, base=tmp_path).accepted == 2
    report = ingest_file(store, corrected, base=tmp_path)
    # the changed game conflicts; the unchanged one is the same game re-sent
    assert report.reasons == {"conflicting_result": 1, "duplicate_game_id": 1}
    conflict = next(e for e in report.examples if "conflicting_result" in e)
    assert "already stored from kb3.pgn:1 with White's score 0.5 there, 1 here" in conflict
    assert any(
        n.startswith("1 game(s) with the date and players of a game stored from another file")
        and "--source 'kb3.pgn'" in n
        for n in report.notes
    )
    # the way the note gives applies it: the stored game's score is 1 now (was 0.5)
    fixed = ingest_file(store, corrected, source="kb3.pgn", base=tmp_path)
    assert fixed.accepted == 2 and fixed.quarantined == 0
    assert fixed.correction == (0, 0, 1)  # removed, added, changed
    scores = sql(tmp_path / "S", "SELECT white_id, score FROM games ORDER BY white_id")
    assert scores.rows() == [
        ("kb3.pgn:Stojic, Dusan", 0.0),
        ("kb3.pgn:Sundararajan, Kidambi", 1.0),
    ]


# -- 2. a name with two FIDE ids, a FIDE id under two names ----------------------------


def n7(tmp_path: Path, first: str, second: str) -> Path:
    return write(
        tmp_path / "n7.pgn",
        game("2001.03.01", "Smith, John", "Brown, Al", "1-0", rnd="1", WhiteFideId=first),
        game("2001.03.02", "Smith, John", "Green, Bo", "1-0", rnd="2", WhiteFideId=second),
        game("2001.03.03", "Smith, John", "Brown, Al", "1-0", rnd="3"),
        game(
            "2001.03.04",
            "Smyth, John",
            "Green, Bo",
            "1-0",
            rnd="4",
            WhiteFideId="111",
            BlackFideId="333",
        ),
    )


def test_a_name_with_two_fide_ids_gives_its_idless_games_neither(tmp_path):
    for first, second in (("111", "222"), ("222", "111")):
        raw = read_pgn(n7(tmp_path, first, second))
        # the third game has no id: the file's own id, not the first id seen (111 / 222)
        assert raw.frame["white_id"].to_list() == [first, second, "n7.pgn:Smith, John", "111"]
        # a name with one FIDE id still gives it to its games without one (Green, Bo)
        assert raw.frame["black_id"].to_list()[1::2] == ["333", "333"]
        note = next(n for n in raw.notes if "two or more FIDE ids" in n)
        assert note.startswith(
            f"1 name(s) with two or more FIDE ids in the file ('Smith, John': FIDE ids "
            f"{first}, {second}, 1 game(s) without one)"
        )


def test_a_fide_id_under_two_names_is_named_in_a_note(tmp_path):
    raw = read_pgn(n7(tmp_path, "111", "222"))
    note = next(n for n in raw.notes if "under two or more names" in n)
    # 111 is "Smith, John" on 2001.03.01 and "Smyth, John" on 2001.03.04, the latest
    assert "111 as 'Smith, John' and 'Smyth, John' (stored as 'Smyth, John')" in note
    players = dict(raw.players.select("player_id", "name").iter_rows())
    assert players["111"] == "Smyth, John"


# -- 3. repeated rows: moves and round tell games apart --------------------------------


def test_games_of_a_year_told_apart_by_moves_or_round_are_no_repeated_rows(tmp_path):
    store = Store(tmp_path / "S")
    pgn = write(
        tmp_path / "match.pgn",
        game("1851.??.??", "Anderssen, Adolf", "Kieseritzky, Lionel", "1-0", "1.e4 e5 2.f4"),
        game("1851.??.??", "Anderssen, Adolf", "Kieseritzky, Lionel", "1-0", "1.e4 e5 2.Nf3"),
        game("1851.??.??", "Anderssen, Adolf", "Kieseritzky, Lionel", "1-0", "", rnd="3"),
        game("1851.??.??", "Anderssen, Adolf", "Kieseritzky, Lionel", "1-0", "", rnd="4"),
        # the first game pasted again: the only repeated row
        game("1851.??.??", "Anderssen, Adolf", "Kieseritzky, Lionel", "1-0", "1.e4 e5 2.f4"),
    )
    report = ingest_file(store, pgn, base=tmp_path)
    assert report.accepted == 5
    repeats = [n for n in report.notes if "repeat an earlier row" in n]
    # before: 4 (all five rows share date, players, result, event)
    assert len(repeats) == 1 and repeats[0].startswith("1 row(s) repeat an earlier row")


def test_london_1851_real_games_are_no_repeated_rows(tmp_path, shared_data):
    store = Store(tmp_path / "S")
    report = ingest_file(store, shared_data / "pgn" / "London1851.pgn", base=tmp_path)
    assert report.accepted == 251
    # before: "88 row(s) repeat an earlier row of the file exactly"
    assert not [n for n in report.notes if "repeat an earlier row" in n]


# -- 4. one file, the same six tags, another game ---------------------------------------


def test_same_tags_other_moves_and_result_says_so_and_how_to_keep_both(tmp_path):
    store = Store(tmp_path / "S")
    raw = read_pgn(
        write(
            tmp_path / "same_round.pgn",
            game("1858.10.05", "Morphy, Paul", "Harrwitz, Daniel", "1-0", "1.e4 e5 2.Nf3 d6"),
            game("1858.10.05", "Morphy, Paul", "Harrwitz, Daniel", "0-1", "1.d4 d5 2.c4 e6"),
            game("1858.10.05", "Morphy, Paul", "Harrwitz, Daniel", "0-1", "1.e4 e5 2.Nf3 d6"),
        )
    )
    assert raw.frame.height == 1  # the first game; the others quarantined
    (line2, reason2, detail2, _), (line3, reason3, detail3, _) = raw.problems
    key = "pgn:Paris casual|Paris|1858.10.05|1|Morphy, Paul|Harrwitz, Daniel"
    assert (line2, reason2, line3, reason3) == (11, "duplicate_game_id", 21, "duplicate_game_id")
    assert detail2.startswith(
        f"game_id {key} already on line 1, with other moves and another result "
        "(1-0 there, 0-1 here): another game"
    )
    assert 'a distinct Round tag for each game (e.g. "1.1" and "1.2") keeps both' in detail2
    assert detail3.startswith(
        f"game_id {key} already on line 1, the same moves but another result "
        "(1-0 there, 0-1 here): the game twice, one result mistyped?"
    )
    # an exact copy keeps validation's detail (a game pasted twice)
    copy = write(
        tmp_path / "copy.pgn",
        game("1858.10.05", "Morphy, Paul", "Harrwitz, Daniel", "1-0"),
        game("1858.10.05", "Morphy, Paul", "Harrwitz, Daniel", "1-0"),
    )
    report = ingest_file(store, copy, base=tmp_path)
    assert report.reasons == {"duplicate_game_id": 1}
    assert report.examples[0].endswith("already on line 1")
    # the way the detail gives keeps both games
    rounds = write(
        tmp_path / "rounds.pgn",
        game("1858.10.06", "Morphy, Paul", "Harrwitz, Daniel", "1-0", "1.e4", rnd="1.1"),
        game("1858.10.06", "Morphy, Paul", "Harrwitz, Daniel", "0-1", "1.d4", rnd="1.2"),
    )
    kept = ingest_file(store, rounds, base=tmp_path)
    assert (kept.accepted, kept.quarantined) == (2, 0)


# -- 5. a tag after the termination marker on its line ---------------------------------


def test_a_tag_after_the_marker_on_the_same_line_is_named(tmp_path):
    pgn = tmp_path / "n2.pgn"
    pgn.write_text(
        '[Event "E"]\n[Site "S"]\n[Date "1870.01.03"]\n[Round "3"]\n[White "Alpha, A."]\n'
        '[Black "Beta, B."]\n[Result "1/2-1/2"]\n\n1.e4 e5 1/2-1/2 [Event "E"]\n'
        '[Site "S"]\n[Date "1870.01.04"]\n[Round "4"]\n[White "Alpha, A."]\n'
        '[Black "Beta, B."]\n[Result "1-0"]\n\n1.e4 e5 1-0\n\n'
        '[Event "E"]\n[Site "S"]\n[Date "1870.01.05"]\n[Round "5"]\n[White "Alpha, A."]\n'
        '[Black "Beta, B."]\n[Result "1-0"]\n\n1.e4 e5\n'
    )
    raw = read_pgn(pgn)
    assert [(p[0], p[1]) for p in raw.problems] == [(1, "truncated_game"), (19, "truncated_game")]
    assert raw.problems[0][2] == (
        'the termination marker 1/2-1/2 on line 9 is followed by the tag [Event "E"] on '
        "the same line: the next game's tags must start on a line of their own (the next "
        "game was read without that tag)"
    )
    # a movetext that really ends without a marker keeps the old detail
    assert raw.problems[1][2].endswith("file truncated?")
    # the game after it is read without its Event (no game key: file + line id)
    assert raw.frame.select(pl.col("event_id"), pl.col("game_id")).row(0) == (None, None)
