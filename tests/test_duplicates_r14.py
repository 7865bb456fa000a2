"""Historian, round 14 (docs/pgn-trf.md "Probable duplicates", "Historian's sources,
round 14"): copies of stored games that the duplicate rules let through.

1. The same moves, players and result under a date that disagrees (a one-day date
   fix in a corrected download; a database dating a match over New Year by its first
   year, "1862.??.??" for 1863.01.04): stored and rated twice, without a word. Now
   quarantined ``probable_duplicate`` when the dates are up to a year apart and the
   main line has 20 moves or more, or the two games' Event, Site and Round are the
   same; a shorter line (a theory draw two players can repeat) is stored with a note
   naming it; two rounds of one event stay two games.
2. A new version of a source (``--source``) that drops a game, or changes its result,
   left the other file's copy of it quarantined as a duplicate of a game no longer
   stored: the game was in no rating. A copy a merge took out is put back; a copy
   quarantined at ingest is named in a note, and its file ingested again is read again
   (not skipped), the copy stored.
3. The same games under other spellings of the players ("Steinitz, W." and
   "Steinitz, William"): 40 games for 20 and nothing said. Now a note counts them and
   points to ``arpad players identify`` / ``players merge``."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline.cli import main
from arpad.pipeline.probable_duplicates import count_plies
from tests.test_historian_attack import sql

# White's and Black's knights walk out and back: any number of legal moves, and a
# first move that tells one game's line from another's (the digest hashes the tokens).
FIRSTS = ["a3 a6", "a4 a5", "b3 b6", "h3 h6", "c3 c6", "d3 d6", "e3 e6", "f3 f6"]


def line(k: int, moves: int) -> str:
    """A main line of ``moves`` moves (2 * moves half-moves), game ``k``'s own."""
    out = [f"1. {FIRSTS[k]}"]
    for n in range(2, moves + 1):
        out.append(f"{n}. {'Nf3 Nf6' if n % 2 == 0 else 'Ng1 Ng8'}")
    return " ".join(out)


def game(event, site, date, rnd, white, black, result, moves) -> str:
    tags = {"Event": event, "Site": site, "Date": date, "Round": rnd}
    tags.update(White=white, Black=black, Result=result)
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return f"{head}\n{moves} {result}\n\n"


def ingest(store: Path, *args: str) -> int:
    return main(["ingest", *args, "--store", str(store), "--no-flow"])


def count(store: Path, query: str) -> int:
    return sql(store, query).row(0)[0]


def games_of(store: Path, name: str) -> int:
    return count(
        store,
        f"SELECT count(*) FROM games WHERE white_id LIKE '%{name}%' OR black_id LIKE '%{name}%'",
    )


def quarantine(store: Path, source: str) -> list[tuple[int, str, str]]:
    return sql(
        store,
        f"SELECT line, reason, detail FROM quarantine WHERE source = '{source}' ORDER BY line",
    ).rows()


def test_count_plies_reads_the_main_line_only():
    text = (
        "1. e4 {a comment 2. d4 d5} e5 2.Nf3 (2. f4 exf4 3. Nf3) Nc6 $1 3. O-O-O!? 0-0 "
        "; to the end of the line 4. a4\n4...Nf6 5. e8=Q+ -- 1-0 6. a3"
    )
    # e4 e5 Nf3 Nc6 O-O-O 0-0 Nf6 e8=Q+: 8 half-moves, the result ends the line
    assert count_plies(text) == (8, True)
    assert count_plies("1. e4 e5 2. Nf3 {open") == (3, False)
    assert count_plies('1. e4 e5\n\n[Event "next"]') == (2, True)


# -- 1. the same moves under a date that disagrees ----------------------------------------
AM = ("Anderssen, Adolf", "Morphy, Paul")


def match(dates: list[str], moves: int = 15) -> str:
    results = ["0-1", "1/2-1/2", "1-0", "0-1"]
    return "".join(
        game(
            "Paris m",
            "Paris",
            d,
            str(k + 1),
            *(AM if k % 2 == 0 else AM[::-1]),
            results[k],
            line(k, moves),
        )
        for k, d in enumerate(dates)
    )


def test_a_one_day_date_fix_in_a_corrected_download_is_a_probable_duplicate(tmp_path, capsys):
    a, b = tmp_path / "hist1.pgn", tmp_path / "hist1_datefix.pgn"
    a.write_text(match(["1858.12.20", "1858.12.20", "1858.12.22", "1858.12.23"]))
    # game 3 (15 moves, a short line) re-dated by a day; the same Event, Site and Round
    b.write_text(match(["1858.12.20", "1858.12.20", "1858.12.23", "1858.12.23"]))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    capsys.readouterr()
    assert ingest(store, str(b)) == 2
    rows = quarantine(store, "hist1_datefix.pgn")
    assert [(line, reason) for line, reason, _ in rows] == [
        (1, "duplicate_game_id"),
        (11, "duplicate_game_id"),
        (21, "probable_duplicate"),
        (31, "duplicate_game_id"),
    ]
    assert rows[2][2] == (
        "probable duplicate of game pgn:Paris m|Paris|1858.12.22|3|Anderssen, Adolf|Morphy, Paul "
        "stored from hist1.pgn:21 (same White, Black, result and moves (15 moves); dates "
        "1858.12.23 here and 1858.12.22 there, 1 day(s) apart: a date corrected in one source, "
        "or a collection dating an event by its first year?; the same Event, Site and Round): "
        "--keep-probable-duplicates keeps it"
    )
    assert games_of(store, "Morphy") == 4
    # kept anyway, as the rule says
    assert ingest(store, str(b), "--keep-probable-duplicates") == 2  # duplicate ids stay
    assert games_of(store, "Morphy") == 5


SB = ("Steinitz, William", "Blackburne, Joseph Henry")


def test_a_match_over_new_year_dated_by_its_first_year(tmp_path, capsys):
    """hist1 dates the games 1862.12.29 and 1863.01.04, a database every game
    1862.??.?? under another Event and no Round: the January game (25 moves) is the
    stored one 4 days after the span of 1862 ends; the 15-move January game is stored
    with a note (a short line can be a repeated theory draw)."""
    first = tmp_path / "hist1.pgn"
    first.write_text(
        game("London m 1862/63", "London", "1862.12.29", "?", *SB, "1-0", line(0, 25))
        + game("London m 1862/63", "London", "1863.01.04", "?", *SB[::-1], "0-1", line(1, 25))
        + game("London m 1862/63", "London", "1863.01.07", "?", *SB, "1/2-1/2", line(2, 15))
    )
    db = tmp_path / "sb_db.pgn"
    db.write_text(
        game("Steinitz-Blackburne m", "London ENG", "1862.??.??", "?", *SB, "1-0", line(0, 25))
        + game(
            "Steinitz-Blackburne m", "London ENG", "1862.??.??", "?", *SB[::-1], "0-1", line(1, 25)
        )
        + game(
            "Steinitz-Blackburne m", "London ENG", "1862.??.??", "?", *SB, "1/2-1/2", line(2, 15)
        )
    )
    store = tmp_path / "S"
    assert ingest(store, str(first)) == 0
    capsys.readouterr()
    assert ingest(store, str(db)) == 2
    out = capsys.readouterr().out
    rows = quarantine(store, "sb_db.pgn")
    assert [(line, reason) for line, reason, _ in rows] == [
        (1, "probable_duplicate"),
        (11, "probable_duplicate"),
    ]
    assert "dates 1862.??.?? and 1862.12.29 agree where both are known" in rows[0][2]
    assert (
        "(same White, Black, result and moves (25 moves); dates 1862.??.?? here and "
        "1863.01.04 there, 4 day(s) apart" in rows[1][2]
    )
    assert rows[1][2].endswith("--keep-probable-duplicates keeps it")
    assert (
        "1 game(s) stored although they have the moves, White, Black and result of a game "
        "of another file dated up to 7 day(s) apart (sb_db.pgn:21 (15 moves) and game "
        "hist1.pgn:21, dated 1862.??.?? and 1863.01.07): under 20 moves the same two players "
        "can repeat a line" in out
    )
    assert games_of(store, "Blackburne") == 4


def test_two_rounds_of_one_event_and_dates_a_year_apart_stay_two_games(tmp_path):
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(
        game("Paris m", "Paris", "1858.12.20", "3", *AM, "1/2-1/2", line(0, 30))
        + game("Paris m", "Paris", "1858.12.20", "4", *AM, "1-0", line(1, 30))
        + game("Paris m", "Paris", "1858.12.24", "6", *AM, "0-1", line(2, 30))
    )
    # the same long draw in round 5 of the same match, the second game 366 days
    # later: two games each; the third under another Event a day later: a copy
    b.write_text(
        game("Paris m", "Paris", "1858.12.22", "5", *AM, "1/2-1/2", line(0, 30))
        + game("Paris m", "Paris", "1859.12.21", "4", *AM, "1-0", line(1, 30))
        + game("Paris 1858 (match)", "Paris FRA", "1858.12.25", "?", *AM, "0-1", line(2, 30))
    )
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    assert ingest(store, str(b)) == 2
    [(at, reason, detail)] = quarantine(store, "b.pgn")
    assert (at, reason) == (21, "probable_duplicate")
    assert (
        "(same White, Black, result and moves (30 moves); dates 1858.12.25 here and "
        "1858.12.24 there, 1 day(s) apart" in detail
    )
    assert games_of(store, "Morphy") == 5


# -- 2. copies of games a new version of their source removes -----------------------------
def collections(tmp_path: Path, names=AM) -> tuple[Path, Path, Path, Path]:
    """hist1.pgn (4 games, full dates), its new version without game 3 and one with
    game 1's result corrected, and hist2.pgn: the same 4 games dated 1858.??.??."""
    dates = ["1858.12.20", "1858.12.20", "1858.12.22", "1858.12.23"]
    hist1, v2, fixed = (tmp_path / n for n in ("hist1.pgn", "hist1_v2.pgn", "hist1_fixed.pgn"))
    hist1.write_text(match(dates, 25))
    text = match(dates, 25).split("\n\n[")
    v2.write_text("\n\n[".join(text[:2] + text[3:]))
    fixed.write_text(match(dates, 25).replace("0-1", "1-0", 2))
    white, black = names
    hist2 = tmp_path / "hist2.pgn"
    hist2.write_text(
        "".join(
            game(
                "Anderssen - Morphy",
                "Paris FRA",
                "1858.??.??",
                "?",
                *((white, black) if k % 2 == 0 else (black, white)),
                r,
                line(k, 25),
            )
            for k, r in enumerate(["0-1", "1/2-1/2", "1-0", "0-1"])
        )
    )
    return hist1, v2, fixed, hist2


def test_a_copy_quarantined_at_ingest_is_named_and_stored_when_its_file_comes_again(
    tmp_path, capsys
):
    hist1, v2, _, hist2 = collections(tmp_path)
    store = tmp_path / "S"
    assert ingest(store, str(hist1)) == 0
    assert ingest(store, str(hist2)) == 2
    assert [r[1] for r in quarantine(store, "hist2.pgn")] == ["probable_duplicate"] * 4
    capsys.readouterr()
    assert ingest(store, str(v2), "--source", str(hist1)) == 0
    out = capsys.readouterr().out
    assert (
        "1 game(s) of other files quarantined as copies of games this version removes or "
        "changes (hist2.pgn:21 of game pgn:Paris m|Paris|1858.12.22|3|Anderssen, Adolf|"
        "Morphy, Paul) stay out of the ratings until their file is checked against the "
        f"store as it is now: ingest it again (arpad ingest {hist2}; a copy of a game still "
        "stored, under its old date or another, stays quarantined" in out
    )
    detail = quarantine(store, "hist2.pgn")[2][2]
    assert detail.endswith(
        "(that game is no longer stored as it was: a new version of hist1.pgn removed it or "
        f"changed its result; arpad ingest {hist2} checks this copy again)"
    )
    assert games_of(store, "Morphy") == 3
    # the same bytes again: read again, not skipped; the copy of the dropped game is
    # stored, the three others stay quarantined
    assert ingest(store, str(hist2)) == 2
    out = capsys.readouterr().out
    assert "hist2.pgn: 4 rows read, 1 games stored, 3 quarantined" in out
    assert "read again as a new version of hist2.pgn" in out
    assert [r[0] for r in quarantine(store, "hist2.pgn")] == [1, 11, 31]
    assert games_of(store, "Morphy") == 4
    # and once more: skipped as before
    assert ingest(store, str(hist2)) == 0
    assert "skipped, identical content already ingested" in capsys.readouterr().out


def merged(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """hist1.pgn and hist2.pgn under other spellings ("Adolf Anderssen"), merged: the
    merge takes hist2's four copies out of the rated games."""
    hist1, v2, fixed, hist2 = collections(tmp_path, ("Adolf Anderssen", "Paul Morphy"))
    store = tmp_path / "S"
    assert ingest(store, str(hist1), str(hist2)) == 0
    for keep, dup in ((AM[0], "Adolf Anderssen"), (AM[1], "Paul Morphy")):
        pair = [f"hist1.pgn:{keep}", f"hist2.pgn:{dup}"]
        assert main(["players", "merge", *pair, "--store", str(store)]) == 0
    assert games_of(store, "Morphy") == 4
    assert len(quarantine(store, "hist2.pgn")) == 4
    return store, hist1, v2, fixed


def test_a_copy_a_merge_took_out_goes_back_when_the_new_version_drops_its_game(tmp_path, capsys):
    store, hist1, v2, _ = merged(tmp_path)
    capsys.readouterr()
    assert ingest(store, str(v2), "--source", str(hist1)) == 0
    assert (
        "1 game(s) a merge had taken out as copies of games this version removes or changes "
        "put back into the rated games (hist2.pgn:21 as a copy of pgn:Paris m|Paris|"
        "1858.12.22|3|Anderssen, Adolf|Morphy, Paul): they repeat no stored game now"
        in capsys.readouterr().out
    )
    # 3 of hist1's new version, the put-back copy of the dropped game; no game twice
    assert games_of(store, "Morphy") == 4
    assert [r[0] for r in quarantine(store, "hist2.pgn")] == [1, 11, 31]


def test_a_copy_with_the_result_a_correction_changed_stays_out(tmp_path, capsys):
    store, hist1, _, fixed = merged(tmp_path)
    capsys.readouterr()
    assert ingest(store, str(fixed), "--source", str(hist1)) == 0
    assert (
        "1 game(s) a merge took out as copies of games this version removes or changes stay "
        "out: 1 repeat a stored game with another result now (conflicting sources"
        in capsys.readouterr().out
    )
    assert games_of(store, "Morphy") == 4


# -- 3. the same games under other spellings of the players -------------------------------
def test_the_same_games_under_other_names_are_noted(tmp_path, capsys):
    a, b = tmp_path / "WorldChamp1886.pgn", tmp_path / "wch1886_b.pgn"
    pairs = [
        ("Steinitz, William", "Zukertort, Johannes"),
        ("Zukertort, Johannes", "Steinitz, William"),
    ]
    a.write_text(
        "".join(
            game(
                "World Championship",
                "USA",
                "1886.??.??",
                "?",
                *pairs[k % 2],
                "1-0",
                line(k, 20 if k < 3 else 19),
            )
            for k in range(4)
        )
    )
    b.write_text(
        a.read_text()
        .replace("Steinitz, William", "Steinitz, W.")
        .replace("Zukertort, Johannes", "Zukertort, J.")
        .replace("1886.??.??", "1886.02.01")
    )
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    capsys.readouterr()
    assert ingest(store, str(b)) == 0
    out = capsys.readouterr().out
    # the fourth game (19 moves) is not counted: a short line of two other players
    assert (
        "3 game(s) of 20 moves or more have the moves, result and date of games stored from "
        "another file under other player names ('Steinitz, W.' here, 'Steinitz, William' "
        "there; 'Zukertort, J.' here, 'Zukertort, Johannes' there): each such game counts "
        "twice until the players are merged (arpad players identify proposes the merges; "
        "arpad players merge makes them" in out
    )
    assert games_of(store, "Steinitz") == 8
