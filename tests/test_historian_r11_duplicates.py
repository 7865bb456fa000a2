"""Historian, round 11 (docs/pgn-trf.md "Historian's sources, round 11"): copies of
games dated short of the day in a second file.

1. A corrected download of a collection dated to the year or month: its unchanged games
   are probable duplicates, and the game whose result changed (same players, moves and
   a date that agrees) is ``conflicting_result`` naming the stored game — before, it was
   stored beside the original and both results were rated. ``--source NAME`` with the
   file name of a stored source ingested under its absolute path is refused naming the
   identity (it made a new source ``NAME@1`` with new player ids).
2. With ``--rate-moveless``, a crosstable (results without moves) of games already
   stored, or stored before them, is compared by content (year, players by name,
   result): ``probable_duplicate``; a merge of differently spelt names takes its copies
   out. Before, every game was stored and rated twice.

Ratings worked by hand with arpad's Elo (start 1500, K 20, one period: each game's
expected score 0.5 between players rated 1500)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from tests.test_historian_attack import sql

MOVES = ["1. e4 e5 2. Nf3 Nc6", "1. d4 d5 2. c4 e6", "1. c4 c5 2. Nc3 Nc6"]
# (White, Black, result, moves): Anderssen scores 2.5 of 3 (1-0, 0-1 as Black, a draw)
GAMES = [
    ("Anderssen, Adolf", "Slous, FL.", "1-0", MOVES[0]),
    ("Staunton, Howard", "Anderssen, Adolf", "0-1", MOVES[1]),
    ("Anderssen, Adolf", "Staunton, Howard", "1/2-1/2", MOVES[2]),
]


def pgn(games, date="1851.??.??", event="London", moves=True) -> str:
    out = []
    for n, (white, black, result, text) in enumerate(games, 1):
        tags = {"Event": event, "Site": "London", "Date": date, "Round": str(n)}
        tags.update(White=white, Black=black, Result=result)
        head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
        out.append(f"{head}\n{text + ' ' if moves else ''}{result}\n\n")
    return "".join(out)


def flipped(games):
    """The first game's result corrected (1-0 -> 0-1), in the tag and the movetext."""
    white, black, _, text = games[0]
    return [(white, black, "0-1", text), *games[1:]]


def ingest(store: Path, *args: str) -> int:
    return main(["ingest", *args, "--store", str(store), "--no-flow"])


def reasons(store: Path) -> dict[str, int]:
    rows = sql(store, "SELECT reason, count(*) AS n FROM quarantine GROUP BY 1").rows()
    return dict(rows)


def elo(store: Path) -> dict[str, float]:
    assert main(["rate", "--system", "elo", "--store", str(store), "--no-flow"]) == 0
    rows = sql(
        store,
        "SELECT player_id, rating_after FROM ratings WHERE system = 'elo' "
        "QUALIFY row_number() OVER (PARTITION BY player_id ORDER BY period DESC) = 1",
    ).rows()
    return {pid.split(":", 1)[1]: rating for pid, rating in rows}


# -- 1. a corrected download of a collection dated to the year or month -------------------


@pytest.mark.parametrize("date", ["1851.??.??", "1851.07.??"])
def test_a_corrected_copy_dated_short_of_the_day_is_a_conflicting_result(tmp_path, date):
    a, b = tmp_path / "London1851.pgn", tmp_path / "London1851 (2).pgn"
    a.write_text(pgn(GAMES, date))
    b.write_text(pgn(flipped(GAMES), date))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    assert ingest(store, str(b)) == 2
    assert reasons(store) == {"probable_duplicate": 2, "conflicting_result": 1}
    ((line, detail),) = sql(
        store, "SELECT line, detail FROM quarantine WHERE reason = 'conflicting_result'"
    ).rows()
    assert line == 1
    assert detail.startswith(
        "the same White, Black and moves as game London1851.pgn:1 stored from "
        f"London1851.pgn:1 (dates {date} and {date} agree where both are known), with "
        "White's score 1 there, 0 here: not applied (to correct London1851.pgn, ingest the "
        f"file with --source {str(a)!r}"
    )
    # nothing stored changed: the three games of the first file, its result
    assert sql(store, "SELECT source, score FROM games ORDER BY source").rows() == [
        ("London1851.pgn:1", 1.0),
        ("London1851.pgn:11", 0.0),
        ("London1851.pgn:21", 0.5),
    ]
    # Anderssen 2.5 of 3 at 1500 against 1500: 1500 + 20 x (2.5 - 1.5) = 1520 (both
    # results rated, he had 2.5 of 4: 1510); Slous 0 of 1: 1490
    ratings = elo(store)
    assert ratings["Anderssen, Adolf"] == pytest.approx(1520.0)
    assert ratings["Slous, FL."] == pytest.approx(1490.0)


def test_the_conflict_names_the_command_that_applies_it(tmp_path, capsys):
    a, b = tmp_path / "London1851.pgn", tmp_path / "London1851 (2).pgn"
    a.write_text(pgn(GAMES))
    b.write_text(pgn(flipped(GAMES)))
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    capsys.readouterr()
    assert ingest(store, str(b)) == 2
    out = capsys.readouterr().out
    assert (
        "note: 1 game(s) with the date and players of a game stored from another file but "
        "another result: not applied (quarantined as conflicting_result; to correct "
        f"{a}, ingest this file with --source {str(a)!r}" in out
    )
    # the hint followed: the corrected copy is the source's new version
    assert ingest(store, str(b), "--source", str(a)) == 0
    assert reasons(store) == {}
    assert sql(store, "SELECT score FROM games WHERE source = 'London1851.pgn:1'").item() == 0.0
    ratings = elo(store)  # Anderssen 1.5 of 3: 1500; Slous 1 of 1: 1510
    assert ratings["Anderssen, Adolf"] == pytest.approx(1500.0)
    assert ratings["Slous, FL."] == pytest.approx(1510.0)


def test_a_source_given_by_the_file_name_of_a_stored_source_is_refused(
    tmp_path, monkeypatch, capsys
):
    """The stored source was ingested from another folder (its identity is the absolute
    path); ``--source London1851.pgn`` made a new source ``London1851.pgn@1`` with three
    new player ids, both results rated. Refused now, naming the identity, nothing stored."""
    (tmp_path / "pgn").mkdir()
    (tmp_path / "work").mkdir()
    a = tmp_path / "pgn" / "London1851.pgn"
    a.write_text(pgn(GAMES))
    (tmp_path / "work" / "London1851 (2).pgn").write_text(pgn(flipped(GAMES)))
    monkeypatch.chdir(tmp_path / "work")
    store = tmp_path / "S"
    assert ingest(store, str(a)) == 0
    before = sql(store, "SELECT count(*) FROM players").item()
    capsys.readouterr()
    assert ingest(store, "London1851 (2).pgn", "--source", "London1851.pgn") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "arpad: error: London1851 (2).pgn: --source London1851.pgn is no stored source's "
        f"identity; the stored source {a} is named London1851.pgn: to ingest this file as "
        f"its new version (it replaces all of that source's games), --source {str(a)!r}; for "
        "a new source, a name no stored source has (nothing was stored)"
    ]
    assert sql(store, "SELECT source, source_key FROM manifest").rows() == [
        ("London1851.pgn", str(a))
    ]
    assert sql(store, "SELECT count(*) FROM players").item() == before == 3
    assert sql(store, "SELECT count(*) FROM games").item() == 3
    # the identity it names applies the correction
    assert ingest(store, "London1851 (2).pgn", "--source", str(a)) == 0
    assert sql(store, "SELECT score FROM games WHERE source = 'London1851.pgn:1'").item() == 0.0


# -- 2. a crosstable (results without moves) beside the games ---------------------------


def test_a_crosstable_of_stored_games_is_a_probable_duplicate(tmp_path):
    games, table = tmp_path / "games.pgn", tmp_path / "crosstable.pgn"
    games.write_text(pgn(GAMES))
    table.write_text(pgn(GAMES, event="London 1851 crosstable", moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(games)) == 0
    assert ingest(store, str(table), "--rate-moveless") == 2
    assert reasons(store) == {"probable_duplicate": 3}
    details = sql(store, "SELECT line, detail FROM quarantine ORDER BY line").rows()
    assert [line for line, _ in details] == [1, 11, 21]
    assert details[0][1].startswith(
        "probable duplicate of game games.pgn:1 stored from games.pgn:1 (same White, Black "
        "and result, no moves here (a crosstable's result?); dates 1851.??.?? and "
        "1851.??.?? agree where both are known"
    )
    # counted once: Anderssen 2.5 of 3 -> 1520 (counted twice, 5 of 6: 1540)
    assert elo(store)["Anderssen, Adolf"] == pytest.approx(1520.0)


def test_games_after_their_crosstable_are_its_copies(tmp_path):
    """The crosstable stored first (rated): the games file's copies are the duplicates
    ("the copy stored first counts"); a crosstable stored unrated (no --rate-moveless)
    is never the copy a rated game is compared with."""
    games, table = tmp_path / "games.pgn", tmp_path / "crosstable.pgn"
    games.write_text(pgn(GAMES))
    table.write_text(pgn(GAMES, moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(table), "--rate-moveless") == 0
    assert ingest(store, str(games)) == 2
    assert reasons(store) == {"probable_duplicate": 3}
    assert elo(store)["Anderssen, Adolf"] == pytest.approx(1520.0)
    unrated = tmp_path / "U"
    assert ingest(unrated, str(table)) == 0
    assert ingest(unrated, str(games)) == 0
    assert reasons(unrated) == {}
    assert sql(unrated, "SELECT rated, count(*) FROM games GROUP BY 1 ORDER BY 1").rows() == [
        (False, 3),
        (True, 3),
    ]


def test_a_corrected_crosstable_is_a_conflicting_result(tmp_path):
    """Without moves, the changed game of a corrected copy is found by its line."""
    a, b = tmp_path / "table.pgn", tmp_path / "table_fixed.pgn"
    a.write_text(pgn(GAMES, moves=False))
    b.write_text(pgn(flipped(GAMES), moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(a), "--rate-moveless") == 0
    assert ingest(store, str(b), "--rate-moveless") == 2
    assert reasons(store) == {"probable_duplicate": 2, "conflicting_result": 1}
    detail = sql(store, "SELECT detail FROM quarantine WHERE reason = 'conflicting_result'")
    assert detail.item().startswith(
        "the same White and Black, no moves here, the same line 1 of its file as game "
        "table.pgn:1 stored from table.pgn:1"
    )
    assert elo(store)["Anderssen, Adolf"] == pytest.approx(1520.0)


def test_a_merge_takes_out_the_crosstable_copies_of_other_spellings(tmp_path, capsys):
    games, table = tmp_path / "games.pgn", tmp_path / "crosstable.pgn"
    games.write_text(pgn(GAMES))
    short = {"Anderssen, Adolf": "Anderssen, A.", "Staunton, Howard": "Staunton, H."}
    respelt = [(short.get(w, w), short.get(b, b), r, m) for w, b, r, m in GAMES]
    table.write_text(pgn(respelt, moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(games), str(table), "--rate-moveless") == 0
    assert sql(store, "SELECT count(*) FROM games").item() == 6
    assert elo(store)["Anderssen, A."] == pytest.approx(1520.0)  # 2.5 of 3 as "A."
    merge = [
        "players",
        "merge",
        "games.pgn:Anderssen, Adolf",
        "crosstable.pgn:Anderssen, A.",
        "--store",
        str(store),
    ]
    capsys.readouterr()
    assert main(merge) == 0  # Anderssen-Slous (Slous spelt alike) is one game now
    assert "took out 1 game(s)" in capsys.readouterr().out
    merge[2:4] = ["games.pgn:Staunton, Howard", "crosstable.pgn:Staunton, H."]
    assert main(merge) == 0  # and his two games with Staunton
    assert "took out 2 game(s)" in capsys.readouterr().out
    assert sql(store, "SELECT count(*) FROM games").item() == 3
    assert reasons(store) == {"probable_duplicate": 3}
    # counted once: 1520 (all six counted: 5 of 6, 1540)
    assert elo(store)["Anderssen, Adolf"] == pytest.approx(1520.0)
