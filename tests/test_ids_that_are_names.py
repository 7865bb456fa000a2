"""A games file whose player ids are the names of stored players (``White,Black`` holding
"Smith, John") says so: its games are rated under new, unrated ids and never count for
the players meant (it was silent: the officer's attack, 2026-12-03)."""

from __future__ import annotations

from arpad.pipeline.cli import main

PLAYERS = 'player_id,name,rating\n1005,"Smith, John",2000\n1006,"Smith, John",1900\n1002,"Müller, Jürgen",2100\n'


def test_names_given_as_ids_are_named_in_a_note(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(PLAYERS)
    games = tmp_path / "names.csv"
    games.write_text(
        'Date,White,Black,Result\n2026.11.20,"Smith, John"," müller, jürgen ",1-0\n'
        "2026.11.21,1005,1002,0-1\n"
    )
    store = str(tmp_path / "S")
    assert (
        main(["ingest", "--players", str(tmp_path / "p.csv"), "--store", store, "--no-flow"]) == 0
    )
    capsys.readouterr()
    assert main(["ingest", str(games), "--store", store, "--no-flow"]) == 0
    out = capsys.readouterr().out
    assert (
        "note: 2 new player id(s) that are the names of stored players ('Smith, John' is the "
        "name of 1005, 1006; 'müller, jürgen' is the name of 1002): the file names its "
        "players instead of giving their ids?" in out
    )


def test_no_note_for_ids(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(PLAYERS)
    games = tmp_path / "ids.csv"
    games.write_text(
        "date,white_id,black_id,result\n2026-11-21,1005,1002,0-1\n2026-11-21,1005,77,1-0\n"
    )
    store = str(tmp_path / "S")
    main(["ingest", "--players", str(tmp_path / "p.csv"), "--store", store, "--no-flow"])
    capsys.readouterr()
    assert main(["ingest", str(games), "--store", store, "--no-flow"]) == 0
    assert "names of stored players" not in capsys.readouterr().out
