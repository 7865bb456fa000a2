"""One player by name (pipeline/lookup.py ``one_player``; docs/analysis.md "Players by
name"): ``arpad history``, ``card`` and ``audit`` and the API's ``history``, ``card``
and ``audit`` take a player id or a name, as ``plot history`` does; a name matches
among the players rated in the system and pool asked for, exactly once. And a
command cut off by its reader (``arpad … | head``) ends quietly with 141; ``arpad
--version`` prints the installed version."""

from __future__ import annotations

import pytest

from arpad.pipeline import cli
from arpad.pipeline.audit import audit
from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import rating_card
from arpad.pipeline.history import rating_history
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.lookup import one_player
from arpad.pipeline.store import Store
from tests.conftest import write_csv


@pytest.fixture
def named(tmp_path) -> Store:
    pfile = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,rated_games",
        [
            '"100","Lasker, Emanuel",2100,50',
            '"101","Lasker, Edward",2000,50',
            '"102","Steinitz, Wilhelm",2050,50',
            '"103","Tarrasch, Siegbert",1990,50',
            '"104","Unrated, Ursula",,',
        ],
    )
    games = [
        "g1,2025-01-05,100,102,1",
        "g2,2025-01-06,101,103,0.5",
        "g3,2025-01-07,102,101,0",
        "g4,2025-02-05,103,100,0.5",
    ]
    gfile = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,score", games)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    return store


def test_one_player_by_id_name_surname_and_initial(named):
    assert one_player(named, "102", "fide") == "102"  # an id is used as it is
    assert one_player(named, "Steinitz", "fide") == "102"  # a unique surname
    assert one_player(named, "steinitz, wilhelm", "fide") == "102"  # exact, any case
    assert one_player(named, "Lasker, Em", "fide") == "100"  # abbreviated given name
    assert one_player(named, "Edward Lasker", "fide") == "101"  # "Given Surname"
    with pytest.raises(ValueError, match=r"'Lasker' matches 2 players: 100 \(Lasker, Emanuel\)"):
        one_player(named, "Lasker", "fide")
    with pytest.raises(ValueError, match=r"no fide/standard history for player\(s\) Capablanca"):
        one_player(named, "Capablanca", "fide")
    with pytest.raises(ValueError, match="no glicko2/standard history"):
        one_player(named, "Steinitz", "glicko2")  # names match only among the rated


def test_history_audit_and_card_by_name_equal_by_id(named):
    assert rating_history(named, "Tarrasch", "fide").equals(rating_history(named, "103", "fide"))
    by_name, by_id = audit(named, "Lasker, Emanuel", "fide"), audit(named, "100", "fide")
    assert by_name[0].equals(by_id[0]) and by_name[1].equals(by_id[1])
    import arpad

    api = arpad.Store(named.root)
    assert api.history("Steinitz").equals(api.history("102"))
    assert api.audit("Steinitz")[0].equals(api.audit("102")[0])
    card = api.card("Edward Lasker", 202501)
    assert card.player_id == "101"
    assert card.to_dict() == rating_card(named, "101", 202501).to_dict()


def test_cli_takes_a_name_with_a_note_and_refuses_an_ambiguous_one(named, capsys):
    root = str(named.root)
    capsys.readouterr()
    assert main(["history", "Steinitz", "--system", "fide", "--store", root]) == 0
    out, err = capsys.readouterr()
    # (a surname alone is no name: "matches", tests/test_hostile_round7.py)
    assert err.strip() == "arpad: note: Steinitz matches 102 (Steinitz, Wilhelm); showing 102"
    assert "202501" in out
    assert main(["card", "Tarrasch", "--period", "202501", "--store", root]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Rating card: 103 ") and "Tarrasch matches 103 (" in err
    assert main(["audit", "Lasker, Emanuel", "--system", "fide", "--store", root]) == 0
    assert main(["history", "Lasker", "--system", "fide", "--store", root]) == 2
    err = capsys.readouterr().err
    assert "'Lasker' matches 2 players" in err and "give an id or a fuller name" in err
    assert main(["history", "102", "--system", "fide", "--store", root]) == 0
    assert "note" not in capsys.readouterr().err  # an id: no note


def test_a_reader_that_goes_away_ends_the_command_quietly(named, monkeypatch, capsys):
    def cut_off(args):
        raise BrokenPipeError(32, "Broken pipe")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda argv=None: parser)
    parser._subparsers._group_actions[0].choices["sql"].set_defaults(func=cut_off)
    monkeypatch.setattr(cli, "_silence_stdout", lambda: None)  # keep pytest's stdout
    assert main(["sql", "SELECT 1", "--store", str(named.root)]) == cli.EXIT_BROKEN_PIPE == 141
    assert "Traceback" not in capsys.readouterr().err


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"arpad {version('arpad')}\n"
