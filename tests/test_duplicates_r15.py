"""Historian, round 15 (docs/pgn-trf.md "Probable duplicates", "Round 15"): copies the
round-14 rules counted twice, and a game they took for a copy.

1. A correction that only re-spells a player ("Morphy, Paul" -> "Morphy, Paul Charles")
   marked every other file's quarantined copy as an orphan; ingesting that file again,
   as the note said, stored them all: the match counted twice. A game the new version
   holds under another id (the same moves, result and date) is not gone.
2. A copy with White and Black swapped was "other player names", with advice to merge
   Steinitz with Zukertort; each was rated as the winner. Now a probable duplicate.
3. A copy under other spellings and a date a day off: no note, and a merge left it
   counted twice. The note covers near dates, and a merge takes such copies out (their
   length read from the files ingested).
4. Two complete dates 357 days apart under other Event, Site and Round: one game to the
   rule. Two complete dates are one game's only as a typo now; a long game left apart
   within two years is named in a note (a year and a day across a 29 February too).
5. ECF's split-event note asked for a store without the files; a header-only CSV
   withdraws a source."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_chaining_r14 import AUTUMN, EVENT, WINTER
from tests.test_duplicates_r14 import (
    AM,
    count,
    game,
    games_of,
    ingest,
    line,
    match,
    merged,
    quarantine,
)
from tests.test_ecf_seasons_r12 import pgn_text

SZ = ("Steinitz, William", "Zukertort, Johannes")


def merge(store: Path, *pairs: tuple[str, str]) -> None:
    for keep, dup in pairs:
        assert main(["players", "merge", keep, dup, "--store", str(store)]) == 0


def rated(store: Path) -> list[tuple[str, float]]:
    return [
        (r[0], r[1])
        for r in count_rows(store, "SELECT source, score FROM games WHERE rated ORDER BY source")
    ]


def count_rows(store: Path, query: str):
    from tests.test_historian_attack import sql

    return sql(store, query).rows()


# -- 1. a correction that re-spells a player -------------------------------------------
DATES = ["1858.12.20", "1858.12.20", "1858.12.22", "1858.12.23"]


def test_a_correction_that_respells_a_player_keeps_its_copies_quarantined(tmp_path, capsys):
    hist1, copy = tmp_path / "hist1.pgn", tmp_path / "copyA.pgn"
    hist1.write_text(match(DATES, 15))
    copy.write_text(match(DATES, 15).replace('"Paris m"', '"Paris match"'))
    store = tmp_path / "S"
    assert ingest(store, str(hist1)) == 0
    assert ingest(store, str(copy)) == 2
    assert [r[1] for r in quarantine(store, "copyA.pgn")] == ["probable_duplicate"] * 4
    v3 = tmp_path / "hist1_v3.pgn"
    v3.write_text(hist1.read_text().replace("Morphy, Paul", "Morphy, Paul Charles"))
    capsys.readouterr()
    assert ingest(store, str(v3), "--source", str(hist1)) == 0
    out = capsys.readouterr().out
    assert "removes or changes" not in out  # no copy named an orphan
    assert (
        "4 game(s) of other files quarantined as copies of games this version holds under "
        "another id (the same moves, result and date under other player names or tags: "
        "copyA.pgn:1 of game pgn:Paris m|Paris|1858.12.20|1|Anderssen, Adolf|Morphy, Paul "
        "Charles; copyA.pgn:11 of game pgn:Paris m|Paris|1858.12.20|2|Morphy, Paul Charles|"
        "Anderssen, Adolf; copyA.pgn:21 of game pgn:Paris m|Paris|1858.12.22|3|Anderssen, "
        "Adolf|Morphy, Paul Charles; 1 more) stay quarantined: the game is still stored once, "
        "and their details name it as it is stored now" in out
    )
    assert quarantine(store, "copyA.pgn")[2][2] == (
        "probable duplicate of game pgn:Paris m|Paris|1858.12.22|3|Anderssen, Adolf|Morphy, "
        "Paul Charles stored from hist1.pgn:21 (same date, White, Black, result and moves; "
        "Event 'Paris match' here, 'Paris m' there): --keep-probable-duplicates keeps it "
        "(game pgn:Paris m|Paris|1858.12.22|3|Anderssen, Adolf|Morphy, Paul until a new "
        "version of hist1.pgn stored it under this id)"
    )
    # the copies' file again: skipped, the match counted once
    assert ingest(store, str(copy)) == 0
    assert "skipped, identical content already ingested" in capsys.readouterr().out
    assert games_of(store, "Morphy") == 4
    # a version that also drops game 3: only its copy is an orphan; the file read again
    # stores it and keeps the three others quarantined (their names no longer match)
    v4 = tmp_path / "hist1_v4.pgn"
    parts = v3.read_text().split("\n\n[")
    v4.write_text("\n\n[".join(parts[:2] + parts[3:]))
    assert ingest(store, str(v4), "--source", str(hist1)) == 0
    out = capsys.readouterr().out
    assert (
        "1 game(s) of other files quarantined as copies of games this version removes or "
        "changes (copyA.pgn:21 of game pgn:Paris m|Paris|1858.12.22|3|Anderssen, Adolf|Morphy, "
        "Paul Charles)" in out
    )
    assert ingest(store, str(copy)) == 2
    out = capsys.readouterr().out
    assert "copyA.pgn: 4 rows read, 1 games stored, 3 quarantined" in out
    assert (
        "3 game(s) quarantined as copies of games still stored stay quarantined as they were" in out
    )
    assert [r[0] for r in quarantine(store, "copyA.pgn")] == [1, 11, 31]
    assert games_of(store, "Morphy") == 4


# -- 2. White and Black swapped --------------------------------------------------------
def test_a_copy_with_white_and_black_swapped_is_a_probable_duplicate(tmp_path, capsys):
    a, b = tmp_path / "vienna1882.pgn", tmp_path / "vienna_swapped.pgn"
    a.write_text(game("Vienna 1882", "Vienna", "1882.05.12", "4", *SZ[::-1], "1-0", line(0, 22)))
    b.write_text(game("Vienna 1882", "Vienna", "1882.05.12", "4", *SZ, "1-0", line(0, 22)))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    capsys.readouterr()
    assert ingest(store, str(b)) == 2
    out = capsys.readouterr().out
    assert "other player names" not in out
    [(_, reason, detail)] = quarantine(store, "vienna_swapped.pgn")
    assert (reason, detail) == (
        "probable_duplicate",
        "probable duplicate of game pgn:Vienna 1882|Vienna|1882.05.12|4|Zukertort, Johannes|"
        "Steinitz, William stored from vienna1882.pgn:1 (White and Black swapped: 'Steinitz, "
        "William' is White here and Black there, 'Zukertort, Johannes' Black here and White "
        "there, with the same moves (22 moves), the same date and the same result tag (1-0), "
        "so each source has another winner: the colours are swapped in one source, not two "
        "players to merge; the stored game counts; the same Event, Site and Round): "
        "--keep-probable-duplicates keeps it",
    )
    assert rated(store) == [("vienna1882.pgn:1", 1.0)]


def test_a_swapped_copy_with_the_result_swapped_too_and_a_short_line(tmp_path):
    """The result tag swapped with the names (the same winner) under another Event and a
    date a day off, 25 moves: a copy. A 12-move line swapped, other tags: two games (a
    theory draw either player can play as White)."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(
        game("Vienna 1882", "Vienna", "1882.05.12", "4", *SZ, "1-0", line(0, 25))
        + game("Vienna 1882", "Vienna", "1882.05.14", "5", *SZ, "1/2-1/2", line(1, 12))
    )
    b.write_text(
        game("Wien", "Wien AUT", "1882.05.13", "?", *SZ[::-1], "0-1", line(0, 25))
        + game("Wien", "Wien AUT", "1882.05.14", "?", *SZ[::-1], "1/2-1/2", line(1, 12))
    )
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    assert ingest(store, str(b)) == 2
    [(at, _, detail)] = quarantine(store, "b.pgn")
    assert at == 1
    assert (
        "with the same moves (25 moves), dates 1882.05.13 here and 1882.05.12 there and the "
        "result tag 0-1 here and 1-0 there (the same winner): the colours are swapped" in detail
    )
    assert games_of(store, "Steinitz") == 3


# -- 3. other spellings and a date a day off; the merge ----------------------------------
def spelt(tmp_path: Path) -> tuple[Path, Path, Path]:
    """a.pgn: a 25-move game of 1882.05.10 and Bird's game; b.pgn: the same 25 moves as
    "Steinitz, W."/"Zukertort, J." on 1882.05.11 (Event "Wien"), and another Bird game."""
    a, b = tmp_path / "vienna1882.pgn", tmp_path / "sp_dayoff.pgn"
    a.write_text(
        game("Vienna 1882", "Vienna", "1882.05.10", "3", *SZ, "1/2-1/2", line(0, 25))
        + game("Vienna 1882", "Vienna", "1882.05.20", "9", "Bird, Henry", SZ[0], "0-1", line(2, 8))
    )
    b.write_text(
        game("Wien", "Vienna", "1882.05.11", "3", "Steinitz, W.", "Zukertort, J.", "1/2-1/2", line(0, 25))
        + game("Wien", "Vienna", "1882.06.02", "?", "Bird, H.", "Mason, James", "1-0", line(3, 8))
    )  # fmt: skip
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    return store, a, b


PAIRS = (
    ("vienna1882.pgn:Steinitz, William", "sp_dayoff.pgn:Steinitz, W."),
    ("vienna1882.pgn:Zukertort, Johannes", "sp_dayoff.pgn:Zukertort, J."),
)


def test_other_spellings_a_day_off_are_noted_and_taken_out_by_the_merge(tmp_path, capsys):
    store, a, b = spelt(tmp_path)
    capsys.readouterr()
    assert ingest(store, str(b)) == 0
    assert (
        "1 game(s) of 20 moves or more have the moves, result and date of games stored from "
        "another file under other player names ('Steinitz, W.' here, 'Steinitz, William' "
        "there; 'Zukertort, J.' here, 'Zukertort, Johannes' there); 1 of them under another "
        "date, up to 1 day(s) apart (sp_dayoff.pgn:1, 1882.05.11 here and 1882.05.10 there): "
        "each such game counts twice until the players are merged" in capsys.readouterr().out
    )
    assert games_of(store, "Steinitz") == 3
    merge(store, *PAIRS)
    assert "took out 1 game(s)" in capsys.readouterr().out
    assert games_of(store, "Steinitz") == 2
    [(_, reason, detail)] = quarantine(store, "sp_dayoff.pgn")
    assert reason == "probable_duplicate"
    assert detail.startswith(
        "probable duplicate of game pgn:Vienna 1882|Vienna|1882.05.10|3|Steinitz, William|"
        "Zukertort, Johannes stored from vienna1882.pgn:1 (same White, Black, result and "
        "moves (25 moves); dates 1882.05.11 here and 1882.05.10 there, 1 day(s) apart"
    )
    # the files gone from where they were ingested: the held copy stays out when an
    # unrelated merge is undone (the pair it was taken for stands)
    a.rename(tmp_path / "moved_a.pgn")
    b.rename(tmp_path / "moved_b.pgn")
    bird = ("vienna1882.pgn:Bird, Henry", "sp_dayoff.pgn:Bird, H.")
    merge(store, bird)
    assert main(["players", "split", *bird, "--store", str(store)]) == 0
    assert games_of(store, "Steinitz") == 2
    # split, the copy goes back; merged again without the files: not taken, and said
    assert main(["players", "split", *PAIRS[0], "--store", str(store)]) == 0
    assert games_of(store, "Steinitz") == 3
    capsys.readouterr()
    merge(store, PAIRS[0])
    err = capsys.readouterr().err
    assert (
        "1 game(s) have the moves, White, Black and result of a game of another file under a "
        "date that disagrees (sp_dayoff.pgn:1 and game pgn:Vienna 1882|Vienna|1882.05.10|3|"
        "Steinitz, William|Zukertort, Johannes): a copy when the main line has 20 moves or "
        f"more, but their length could not be read, the file ingested ({b}) not being at "
        "that path with the bytes stored: they stay rated" in err
    )
    assert games_of(store, "Steinitz") == 3
    # back where they were: the merge made again takes it out
    assert main(["players", "split", *PAIRS[0], "--store", str(store)]) == 0
    (tmp_path / "moved_b.pgn").rename(b)
    merge(store, PAIRS[0])
    assert games_of(store, "Steinitz") == 2


def test_a_merge_takes_out_a_short_redated_copy_under_the_same_tags(tmp_path, capsys):
    """The historian's copyA.pgn:49: 15 moves, a day later, the same Event, Site and
    Round, under another spelling of Morphy: left rated by the merge before."""
    hist1, copy = tmp_path / "hist1.pgn", tmp_path / "copyB.pgn"
    hist1.write_text(match(DATES, 15))
    later = ["1858.12.20", "1858.12.20", "1858.12.23", "1858.12.23"]
    copy.write_text(match(later, 15).replace("Morphy, Paul", "Morphy, P."))
    store = tmp_path / "S"
    assert ingest(store, str(hist1), str(copy)) == 0
    assert games_of(store, "Morphy") == 8
    capsys.readouterr()
    merge(store, ("hist1.pgn:Morphy, Paul", "copyB.pgn:Morphy, P."))
    assert "took out 4 game(s)" in capsys.readouterr().out
    assert games_of(store, "Morphy") == 4
    assert (
        "1858.12.23 here and 1858.12.22 there, 1 day(s) apart"
        in (quarantine(store, "copyB.pgn")[2][2])
    )


# -- 4. two complete dates: a typo or two games -----------------------------------------
def casual(path: Path, date: str, event: str = "Casual games") -> Path:
    path.write_text(
        game(event, "London", date, "?", "Morphy, Paul", "Lowenthal, Johann", "1-0", line(4, 26))
    )
    return path


def test_complete_dates_far_apart_are_two_games_and_a_year_typo_one(tmp_path, capsys):
    a, b = tmp_path / "vienna1882.pgn", tmp_path / "london1883.pgn"
    a.write_text(game("Vienna 1882", "Vienna", "1882.05.10", "3", *SZ, "1/2-1/2", line(0, 25)))
    b.write_text(game("London 1883", "London", "1883.05.02", "12", *SZ, "1/2-1/2", line(0, 25)))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    capsys.readouterr()
    assert ingest(store, str(b)) == 0
    assert (
        "1 game(s) of 20 moves or more stored although they have the moves, White, Black and "
        "result of a game of another file dated up to 357 day(s) apart (london1883.pgn:1 (25 "
        "moves) and game pgn:Vienna 1882|Vienna|1882.05.10|3|Steinitz, William|Zukertort, "
        "Johannes, dated 1883.05.02 and 1882.05.10, 357 day(s) apart): dates further apart "
        "than a typo (two complete dates more than 31 days apart and not the same day of the "
        "next or last year, a date short of the day more than a year away) under another "
        "Event, Site or Round can be the line played again at another event, so both are rated"
        in capsys.readouterr().out
    )
    assert games_of(store, "Steinitz") == 2
    # the same day a year later (365 days; 366 across a 29 February): a year typo
    for first, second, days in (
        ("1858.12.20", "1859.12.20", 365),
        ("1883.06.01", "1884.06.01", 366),
    ):
        store = tmp_path / f"S{days}"
        assert ingest(store, str(casual(tmp_path / "e1.pgn", first, "Casual"))) == 0
        assert ingest(store, str(casual(tmp_path / "e3.pgn", second))) == 2
        [(_, reason, detail)] = quarantine(store, "e3.pgn")
        assert reason == "probable_duplicate"
        assert (
            f"dates {second} here and {first} there, {days} day(s) apart: the same day and "
            "month a year apart: a year mistyped in one source?" in detail
        )
    # a year and a day: stored, and named
    store = tmp_path / "Sday"
    assert ingest(store, str(casual(tmp_path / "e1.pgn", "1858.12.20", "Casual"))) == 0
    capsys.readouterr()
    assert ingest(store, str(casual(tmp_path / "e2.pgn", "1859.12.21"))) == 0
    assert (
        "stored although they have the moves, White, Black and result of a game of another "
        "file dated up to 366 day(s) apart (e2.pgn:1 (26 moves) and game e1.pgn:1, dated "
        "1859.12.21 and 1858.12.20, 366 day(s) apart)" in capsys.readouterr().out
    )
    assert games_of(store, "Morphy") == 2
    # a date short of the day keeps the span rule: 1857.??.?? is 354 days from 1858.12.20
    store = tmp_path / "Syear"
    assert ingest(store, str(casual(tmp_path / "e1.pgn", "1858.12.20", "Casual"))) == 0
    assert ingest(store, str(casual(tmp_path / "e4.pgn", "1857.??.??"))) == 2
    assert games_of(store, "Morphy") == 1


def test_a_date_typo_in_a_copy_of_one_file_with_the_same_tags(tmp_path):
    """Two complete dates 200 days apart under the same Event, Site and Round (a date
    corrected in a copy of one file): one game, whatever the length."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(game("Paris m", "Paris", "1858.06.05", "3", *AM, "0-1", line(0, 12)))
    b.write_text(game("Paris m", "Paris", "1858.12.22", "3", *AM, "0-1", line(0, 12)))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    assert ingest(store, str(b)) == 2
    assert "200 day(s) apart" in quarantine(store, "b.pgn")[0][2]


# -- 5. ECF: one event split over two files ----------------------------------------------
def test_the_ecf_split_event_note_can_be_followed(tmp_path, capsys):
    autumn, winter = tmp_path / "hastings_1862.pgn", tmp_path / "hastings_1863.pgn"
    autumn.write_text(pgn_text(AUTUMN, event=EVENT, ids=True))
    winter.write_text(pgn_text(WINTER, event=EVENT, ids=True))
    store = tmp_path / "S"
    assert main(["ingest", str(autumn), str(winter), "--store", str(store), "--no-flow"]) == 0
    assert main(["rate", "--system", "ecf", "--store", str(store), "--no-flow"]) == 0
    assert "withdraw each file but one (ingest a CSV file" in capsys.readouterr().err
    assert 186405 in Store(store).rating_periods("ecf", "standard")
    # as the note says: a header-only CSV withdraws hastings_1863.pgn, one PGN with
    # every game replaces hastings_1862.pgn
    empty = tmp_path / "withdraw.csv"
    empty.write_text("date,white,black,result\n")
    assert ingest(store, str(empty), "--source", str(winter)) == 0
    assert "holds 0 game(s) against 3 stored: 3 removed" in capsys.readouterr().out
    both = tmp_path / "hastings.pgn"
    both.write_text(pgn_text(AUTUMN + WINTER, event=EVENT, ids=True))
    assert ingest(store, str(both), "--source", str(autumn)) == 0
    assert count(store, "SELECT count(*) FROM games") == 6
    capsys.readouterr()
    assert main(["rate", "--system", "ecf", "--store", str(store), "--no-flow"]) == 0
    assert "separate event" not in capsys.readouterr().err
    assert Store(store).rating_periods("ecf", "standard")[-1] == 186305


def test_the_copies_a_merge_took_out_follow_a_respelling(tmp_path, capsys):
    """hist2.pgn's copies, taken out by a merge, are held as copies of hist1's games: a
    version re-spelling Morphy keeps them held, naming the games as stored now, so that
    a later version dropping game 3 puts that game's copy back (it was lost before)."""
    store, hist1, _, _ = merged(tmp_path)
    v3 = tmp_path / "hist1_v3.pgn"
    v3.write_text(hist1.read_text().replace("Morphy, Paul", "Morphy, Paul Charles"))
    capsys.readouterr()
    assert ingest(store, str(v3), "--source", str(hist1)) == 0
    assert "put back" not in capsys.readouterr().out
    assert games_of(store, "Morphy") == 4
    v4 = tmp_path / "hist1_v4.pgn"
    parts = v3.read_text().split("\n\n[")
    v4.write_text("\n\n[".join(parts[:2] + parts[3:]))
    assert ingest(store, str(v4), "--source", str(hist1)) == 0
    assert (
        "1 game(s) a merge had taken out as copies of games this version removes or changes "
        "put back into the rated games (hist2.pgn:21 as a copy of pgn:Paris m|Paris|"
        "1858.12.22|3|Anderssen, Adolf|Morphy, Paul Charles)" in capsys.readouterr().out
    )
    assert games_of(store, "Morphy") == 4
