"""An undated players file that changes stored players' ratings in a store already
rated says what it does: an undated rating counts as of the first period, so the next
``rate`` recomputes every period from it, published lists included (it was silent and
a monthly list ingested without its date re-based two published months: the officer's
attack, 2026-12-03; docs/observations.md)."""

from __future__ import annotations

from arpad.pipeline.cli import main

PLAYERS = "player_id,name,rating\n1001,A,2310\n1002,B,2420\n1003,C,2250\n"
GAMES = "date,white_id,black_id,result\n2026-10-03,1001,1002,1-0\n2026-11-04,1002,1003,0-1\n"


def _ingest(store, *args):
    return main(["ingest", *map(str, args), "--store", str(store), "--no-flow"])


def _setup(tmp_path, rate=True):
    store = tmp_path / "S"
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text(GAMES)
    assert _ingest(store, "--players", tmp_path / "players.csv", tmp_path / "games.csv") == 0
    if rate:
        assert main(["rate", "--system", "elo", "--store", str(store), "--no-flow"]) == 0
    return store


def test_an_undated_list_rebasing_rated_players_is_named(tmp_path, capsys):
    store = _setup(tmp_path)
    new = tmp_path / "nov" / "players.csv"
    new.parent.mkdir()
    new.write_text(PLAYERS.replace("2310", "2212").replace("2420", "2332"))
    capsys.readouterr()
    assert _ingest(store, "--players", new) == 0
    out = capsys.readouterr().out
    assert (
        "note: 2 player(s) whose undated starting rating changes (1001: 2310 -> 2212; "
        "1002: 2420 -> 2332): an undated rating counts as of the first period, so the next "
        "rate recomputes every period from it. The systems rated here (elo) rate from the "
        "games and read no dated ratings" in out
    )


def test_no_note_before_any_rating_or_for_a_dated_list(tmp_path, capsys):
    store = _setup(tmp_path, rate=False)
    changed = tmp_path / "p2.csv"
    changed.write_text(PLAYERS.replace("2310", "2212"))
    capsys.readouterr()
    assert _ingest(store, "--players", changed) == 0
    assert "undated starting rating" not in capsys.readouterr().out
    main(["rate", "--system", "elo", "--store", str(store), "--no-flow"])
    dated = tmp_path / "p3.csv"
    dated.write_text("player_id,date,rating\n1001,2026-11-01,2200\n")
    capsys.readouterr()
    assert _ingest(store, "--players", dated) == 0
    assert "undated starting rating" not in capsys.readouterr().out
