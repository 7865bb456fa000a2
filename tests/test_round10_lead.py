"""Round-9 leftovers fixed by the lead (docs/ingest.md "Encodings" and "Quarantine").

- A PGN read in the wrong code page, then again with ``--encoding``, left the garbled
  name's player row ("Opoèenský, Karel", no games) beside the right one; ``arpad
  players`` listed both (historian, round 9). A new version of a PGN file now takes the
  file-scoped players only its earlier version named out of the players table.
- The per-line detail of ``empty_player_id`` said "white_id or black_id is empty" for a
  PGN game against 'NN', whose name is not empty (hostile and analyst, round 9): it now
  names the side, and in a PGN that the name is a placeholder.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

# "Opočenský, Karel" in Windows-1250: 'č' is byte 0xE8, which Windows-1252 reads as 'è'
BRNO = (
    b'[Event "Brno"]\n[Date "1921.??.??"]\n[White "Opo\xe8ensk\xfd, Karel"]\n'
    b'[Black "Treybal, Karel"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n'
)
GARBLED, RIGHT = "brno.pgn:Opoèenský, Karel", "brno.pgn:Opočenský, Karel"
TREYBAL = "brno.pgn:Treybal, Karel"


def player_ids(root: Path) -> list[str]:
    return sorted(pl.from_arrow(Store(root).read_players()).get_column("player_id").to_list())


def test_pgn_read_again_with_its_code_page_leaves_no_garbled_player(tmp_path, capsys):
    pgn = tmp_path / "brno.pgn"
    pgn.write_bytes(BRNO)
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(pgn)]) == 0
    assert player_ids(root) == [GARBLED, TREYBAL]
    capsys.readouterr()
    args = ["ingest", "--no-flow", "--store", str(root), "--encoding", "cp1250", str(pgn)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert player_ids(root) == [RIGHT, TREYBAL]
    assert (
        "1 player(s) only the earlier version of brno.pgn named ('Opoèenský, Karel'): "
        "removed from the players table with its games"
    ) in out
    # the rating of the right name only, and the store sound
    assert main(["rate", "--no-flow", "--store", str(root), "--system", "elo"]) == 0
    store = Store(root)
    ratings = pl.from_arrow(
        store.read_ratings("elo", "standard", store.rating_periods("elo", "standard")[-1])
    )
    assert sorted(ratings.get_column("player_id").to_list()) == [RIGHT, TREYBAL]
    assert main(["check", "--store", str(root)]) == 0


def test_a_corrected_name_removes_the_old_spelling_but_a_merged_one_stays(tmp_path, capsys):
    game = '[Event "L"]\n[Date "1851.??.??"]\n[White "{}"]\n[Black "{}"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    pgn = tmp_path / "london.pgn"
    pgn.write_text(
        game.format("Anderssen, Adolf", "Kieseritzky, Lionel")
        + "\n"
        + game.format("Staunton, Howard", "Williams, Elijah")
        + "\n"
        + game.format("Stuanton, H.", "Horwitz, Bernhard"),  # a typo, merged by hand
        encoding="utf-8",
    )
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(pgn)]) == 0
    keep, typo = "london.pgn:Staunton, Howard", "london.pgn:Stuanton, H."
    assert main(["players", "merge", keep, typo, "--store", str(root)]) == 0
    # the new version: Kieseritzky misspelt before, now right; the typo game still there
    pgn.write_text(
        game.format("Anderssen, Adolf", "Kieseritzki, Lionel")
        + "\n"
        + game.format("Staunton, Howard", "Williams, Elijah")
        + "\n"
        + game.format("Horwitz, Bernhard", "Williams, Elijah"),  # the typo game gone
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "--store", str(root), str(pgn)]) == 0
    ids = player_ids(root)
    assert "london.pgn:Kieseritzky, Lionel" not in ids  # named by the old version only
    assert "london.pgn:Kieseritzki, Lionel" in ids
    assert typo in ids  # a merge names it: kept (``players split`` needs it)
    assert "1 player(s) only the earlier version of london.pgn named" in capsys.readouterr().out


def test_empty_player_id_detail_names_the_side(tmp_path, capsys):
    pgn = tmp_path / "nn.pgn"
    game = '[Event "x"]\n[Date "2025.01.10"]\n[White "{}"]\n[Black "{}"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    pgn.write_text(
        game.format("Cora", "NN") + "\n" + game.format("?", "Dan") + "\n" + game.format("?", "NN"),
        encoding="utf-8",
    )
    csv = tmp_path / "e.csv"
    csv.write_text(
        "date,white_id,black_id,result\n2025-01-10,,b,1-0\n2025-01-10,a,,1-0\n"
        "2025-01-10,,,1-0\n2025-01-10,a,b,1-0\n",
        encoding="utf-8",
    )
    root = tmp_path / "S"
    capsys.readouterr()
    main(["ingest", "--no-flow", "--store", str(root), str(pgn), str(csv)])
    rows = [
        (Path(line.split(":")[0].strip()).name, line.split("empty_player_id: ")[1])
        for line in capsys.readouterr().err.splitlines()
        if "empty_player_id: " in line
    ]

    def placeholder(tags: str) -> str:
        return f" (the {tags} empty or a placeholder name such as '?' or 'NN', nobody's id)"

    assert rows == [
        ("nn.pgn", "black_id is empty" + placeholder("Black tag is")),
        ("nn.pgn", "white_id is empty" + placeholder("White tag is")),
        ("nn.pgn", "white_id and black_id are empty" + placeholder("White and Black tags are")),
        ("e.csv", "white_id is empty"),
        ("e.csv", "black_id is empty"),
        ("e.csv", "white_id and black_id are empty"),
    ]


def test_diff_published_names_a_player_renamed_since(tmp_path, capsys):
    """A players file corrects a name on a frozen list (officer, round 9: "Szûcs" read in
    the wrong code page): no rating changes, so the table is empty, and a note names the
    rename (docs/cli.md "arpad publish / arpad diff")."""
    players = tmp_path / "pl.csv"
    players.write_text("player_id,name,rating\n11,Szûcs Ödön,2000\n12,Kiss Anna,1900\n")
    games = tmp_path / "g.csv"
    games.write_text(
        "date,white_id,black_id,result\n2025-01-10,11,12,1-0\n2025-01-11,12,11,1/2-1/2\n"
    )
    root = str(tmp_path / "S")
    assert (
        main(["ingest", "--no-flow", "--store", root, "--players", str(players), str(games)]) == 0
    )
    assert main(["rate", "--no-flow", "--store", root, "--system", "fide"]) == 0
    assert main(["publish", "--store", root, "--period", "202501"]) == 0
    fixed = tmp_path / "pl2.csv"
    fixed.write_text("player_id,name\n11,Szűcs Ödön\n", encoding="utf-8")
    assert main(["ingest", "--no-flow", "--store", root, "--players", str(fixed)]) == 0
    capsys.readouterr()
    assert main(["diff", "--published", "202501", "--store", root]) == 0
    captured = capsys.readouterr()
    assert "0 player(s) whose fide/standard rating of period 202501 changed" in captured.out
    assert (
        "arpad: note: 1 player(s) renamed since the list of period 202501 was published "
        "(11: 'Szûcs Ödön' now 'Szűcs Ödön'): the published list keeps the names it was "
        "published with; the next list carries the new ones"
    ) in captured.err


def test_pgn_event_names_a_pool_with_the_trf_words(tmp_path, capsys):
    """A German arbiter's PGN "Herbst Schnellschach 2026" was stored as standard (his TRF
    of the same event went to rapid), and its rapid Elo tags re-seeded standard ratings
    (new user, round 10). PGN's Event and a TRF's header read one list of words
    (pipeline/pgn.py ``POOL_WORDS``; docs/pgn-trf.md)."""
    from arpad.pipeline import pgn, trf

    assert pgn.event_pool("Herbst Schnellschach 2026") == "rapid"
    assert pgn.event_pool("Lightning Open") == "blitz"
    assert pgn.event_pool("Blitzturnier Herbst") == "blitz"
    assert pgn.event_pool("Torneo de partidas rápidas") == "rapid"
    assert pgn.event_pool("Vienna 1873") is None
    assert trf.tournament_pool({"012": "Offene Schnellschach-Meisterschaft"}) == "rapid"
    game = (
        '[Event "{}"]\n[Date "2026.10.03"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    )
    path = tmp_path / "herbst.pgn"
    path.write_text(game.format("Herbst Schnellschach 2026") + "\n" + game.format("Klubturnier"))
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "pool rapid for 1 of 2 game(s) (the TimeControl tag, or without one the word "
        "'Schnell' in the Event tag 'Herbst Schnellschach 2026'; pass --pool standard to "
        "override)"
    ) in out
    store = Store(root)
    assert store.periods("rapid") == [202610] and store.periods("standard") == [202610]


@pytest.mark.parametrize("target", [".", "players"])
def test_an_inbox_players_link_into_the_store_is_refused(tmp_path, capsys, target):
    """``INBOX/players`` a symbolic link to the store (or its players folder): the link
    was not resolved, and the run moved store.json and the catalog into
    ``INBOX/rejected/`` (officer, round 10; docs/operations.md)."""
    from tests.test_round9_lead import files_of

    (tmp_path / "p.csv").write_text('player_id,name,rating\n1,"Alpha, A",2000\n2,"Beta, B",1900\n')
    (tmp_path / "g.csv").write_text("date,white_id,black_id,result\n2026-10-05,1,2,1-0\n")
    root = tmp_path / "S"
    argv = ["ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv")]
    assert main([*argv, "--store", str(root), "--no-flow"]) == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "players").symlink_to((root / target).resolve(), target_is_directory=True)
    before = files_of(root)
    capsys.readouterr()
    assert main(["recalculate", "--inbox", str(inbox), "--store", str(root), "--no-flow"]) == 2
    err = capsys.readouterr().err
    if target == ".":
        assert "holds the store in its players/ folder" in err
    else:
        assert f"has a players/ folder inside the store ({(root / 'players').resolve()})" in err
    assert "(nothing was read or moved)" in err
    assert files_of(root) == before
    assert not (inbox / "rejected").exists()


def test_a_games_file_given_as_players_and_the_reverse_say_so(tmp_path, capsys):
    """``--players GAMES.csv`` said only "missing required column(s): player_id" (new
    user, round 10); the error now says what the file is (docs/ingest.md)."""
    games = tmp_path / "gg.csv"
    games.write_text("Date,White ID,Black ID,Result\n2025-01-10,1,2,1-0\n")
    players = tmp_path / "pl.csv"
    players.write_text("player_id,name,rating\n1,A,2000\n")
    root = str(tmp_path / "S")
    assert main(["ingest", "--no-flow", "--store", root, "--players", str(games)]) == 2
    assert capsys.readouterr().err == (
        f"arpad: error: {games}:1: missing required column(s): player_id (this is a games "
        "file, not a players file); found: Date, White ID, Black ID, Result\n"
    )
    assert main(["performance", str(players)]) == 2
    assert capsys.readouterr().err == (
        f"arpad: error: {players}:1: missing required column(s): white_id, black_id, result "
        "or score, date or period (this is a players file, not a games file); found: "
        "player_id, name, rating\n"
    )


def test_a_stored_games_file_given_again_as_players_says_it_was_not_read(tmp_path, capsys):
    """The same bytes already stored as games, given as ``--players``: skipped, exit 0,
    and the user believed players were read (new user, round 10)."""
    games = tmp_path / "gg.csv"
    games.write_text("Date,White ID,Black ID,Result\n2025-01-10,1,2,1-0\n")
    root = str(tmp_path / "S")
    assert main(["ingest", "--no-flow", "--store", root, str(games)]) == 0
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "--store", root, "--players", str(games)]) == 0
    assert (
        "gg.csv: skipped, identical content already ingested as gg.csv (stored as a games "
        "file: not read as a players file; nothing new was read)"
    ) in capsys.readouterr().out
    assert main(["ingest", "--no-flow", "--store", root, str(games)]) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith("skipped, identical content already ingested as gg.csv")
    )


@pytest.mark.parametrize("module", ["pgn", "trf", "readers"])
def test_each_reader_module_imports_first(module):
    """pgn -> readers -> trf -> pgn: a module-level use of ``pgn.POOL_WORDS`` in trf.py
    broke ``import arpad.pipeline.pgn`` in a fresh process (round 10)."""
    import subprocess
    import sys

    code = f"import arpad.pipeline.{module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
