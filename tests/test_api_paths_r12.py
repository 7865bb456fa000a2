"""Historian round 12, finding 4: ``arpad.rate(["a.pgn", "b.pgn"])`` was a TypeError that
said only "got list of str". Decision (docs/api.md "Several files: a store"): ``rate``
reads one file per argument; a list of paths is a TypeError that says to ingest the files
into a store, which keeps one copy of a game two files hold (concatenated in memory it
would be rated twice)."""

from __future__ import annotations

from pathlib import Path

import pytest

import arpad

GAME = """[Event "Match"]
[Site "London"]
[Date "1866.02.{day}"]
[Round "{rnd}"]
[White "{white}"]
[Black "{black}"]
[Result "{result}"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {result}

"""


def _pgn(path: Path, games) -> str:
    path.write_text("".join(GAME.format(day=d, rnd=r, white=w, black=b, result=res)
                            for d, r, w, b, res in games))  # fmt: skip
    return str(path)


@pytest.fixture
def two_files(tmp_path):
    a = _pgn(tmp_path / "a.pgn", [("01", "1", "Steinitz", "Bird", "1-0")])
    b = _pgn(tmp_path / "b.pgn", [("02", "1", "Bird", "Anderssen", "1/2-1/2")])
    return a, b


def test_a_list_of_paths_says_to_use_a_store(two_files):
    with pytest.raises(TypeError) as err:
        arpad.rate(list(two_files), system="elo")
    assert str(err.value) == (
        "games: one games file per call (a path), got a list of 2 paths: for several files "
        "use store = arpad.Store(PATH), store.ingest([...]), store.rate('elo') and "
        "store.ratings('elo') (a store keeps one copy of a game that two files hold; "
        "concatenated here it would be rated twice)"
    )
    with pytest.raises(TypeError, match=r"^games: one games file per call .* a tuple of 2 paths"):
        arpad.rate(tuple(Path(p) for p in two_files), system="glicko2")


def test_a_list_of_players_paths_says_so_too(two_files, tmp_path):
    (tmp_path / "p.csv").write_text("player_id,rating\nx,1500\n")
    with pytest.raises(TypeError) as err:
        arpad.rate(two_files[0], system="elo", players=[tmp_path / "p.csv", tmp_path / "p.csv"])
    assert str(err.value).startswith("players: one players file per call (a path), got a list")
    assert "store.ingest(files, players=[...])" in str(err.value)


def test_rows_as_dicts_keep_their_message():
    with pytest.raises(TypeError, match="got list of int"):
        arpad.rate([1, 2], system="elo")


def test_the_store_route_the_message_gives(two_files, tmp_path):
    """What the message advises works, with file-scoped ids, and rates a game held by two
    files once: the reason a list is not concatenated in memory."""
    a, b = two_files
    store = arpad.Store(tmp_path / "S")
    store.ingest([a, b])
    store.rate("elo")
    r = store.ratings("elo").sort("period", "player_id")
    assert r["player_id"].to_list() == [
        "a.pgn:Bird", "a.pgn:Steinitz", "b.pgn:Anderssen", "b.pgn:Bird",
    ]  # fmt: skip
    # Elo K 20 by hand: Steinitz beats Bird (1500 each): ±10; the draw: 0
    assert r["rating_after"].to_list() == [1490.0, 1510.0, 1500.0, 1500.0]
    # each file alone in memory: the same ids and numbers as the store gives
    one = arpad.rate(a, system="elo")
    assert one["player_id"].to_list() == ["a.pgn:Bird", "a.pgn:Steinitz"]
    assert one["rating_after"].to_list() == [1490.0, 1510.0]
    # a.pgn's game in another collection (another Event and Site): the store keeps one
    # copy, quarantining the other as a probable duplicate (docs/pgn-trf.md)
    copy = tmp_path / "copy.pgn"
    copy.write_text(Path(a).read_text().replace("Match", "London match").replace('London"', 'ENG"'))
    report = arpad.Store(tmp_path / "T").ingest([a, str(copy)])
    assert (report.accepted, report.quarantined) == (1, 1)
    assert report.files[1].reasons == {"probable_duplicate": 1}
