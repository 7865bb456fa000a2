"""Ingest notes, round 6 (docs/ingest.md "Games long before the published lists" and
"Two notes for the rating officer"; docs/observations.md "Players files: undated
ratings keep their meaning"):

* a corrected file ingested again counts, in the note on games long before the
  published lists, only the games the correction adds or changes (it counted every
  old game of the file: "1812 game(s) … rating them revises every list since" for one
  changed result, the new user's report of round 6, item 2);
* the note on a changed undated rating advises a dated rating list only where a rated
  system reads dated ratings (``seeds_from_observations``), and the namesake note says
  "a mistyped player id", not "FIDE id" (the non-FIDE officer's report, item 4).
"""

from __future__ import annotations

from arpad.pipeline.cli import main

PLAYERS = 'player_id,name,birth_year,rating\nE1,"Eck, Emil",1980,2000\nE2,Bb,1970,2100\n'
PLAYERS += "E3,Cc,1985,1900\nE4,Dd,1990,2050\n"
HEADER = "game_id,date,white_id,black_id,result\n"
OLD = "g1,2024-01-10,E1,E2,1-0\ng2,2024-01-11,E3,E4,0-1\ng3,2024-02-12,E1,E3,1/2-1/2\n"
RECENT = "g4,2026-10-03,E2,E3,1-0\ng5,2026-10-04,E4,E1,1/2-1/2\n"
NOTE = "dated more than a year before the latest published"


def _run(*args):
    flow = ["--no-flow"] if args[0] in ("ingest", "rate") else []
    return main([*map(str, args), *flow])


def _store(tmp_path, system):
    store = tmp_path / "S"
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text(HEADER + OLD + RECENT)
    players = tmp_path / "players.csv"
    assert _run("ingest", tmp_path / "games.csv", "--players", players, "--store", store) == 0
    assert _run("rate", "--system", system, "--store", store) == 0
    return store


def test_a_correction_notes_only_the_old_games_it_changes(tmp_path, capsys):
    store = _store(tmp_path, "fide")
    assert _run("publish", "--system", "fide", "--period", "202610", "--store", store) == 0
    games = tmp_path / "games.csv"
    capsys.readouterr()
    # one October result corrected: the three 2024 games are stored already, unchanged
    games.write_text(HEADER + OLD + RECENT.replace("E2,E3,1-0", "E2,E3,0-1"))
    assert _run("ingest", games, "--store", store) == 0
    out = capsys.readouterr().out
    assert "(0 games removed, 0 added, 1 changed)" in out
    assert NOTE not in out  # it said "3 game(s) dated more than a year before ..."
    # a January 2024 result corrected (33 months before the list): that game only
    games.write_text(HEADER + OLD.replace("E3,E4,0-1", "E3,E4,1-0") + RECENT)
    assert _run("ingest", games, "--store", store) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 game(s) dated more than a year before the latest published fide/standard "
        "list (202610; e.g. game g2, period 202401): rating them revises every list since"
    ) in out


def test_a_new_file_still_counts_all_its_old_games(tmp_path, capsys):
    store = _store(tmp_path, "fide")
    assert _run("publish", "--system", "fide", "--period", "202610", "--store", store) == 0
    late = tmp_path / "late.csv"
    late.write_text(HEADER + "h1,2016-10-03,E1,E4,1-0\nh2,2016-11-02,E2,E4,0-1\n")
    capsys.readouterr()
    assert _run("ingest", late, "--store", store) == 0
    assert "note: 2 game(s) " + NOTE + " fide/standard list (202610; e.g. game h1, period " \
        "201610)" in capsys.readouterr().out  # fmt: skip


def _rerate(tmp_path, store, capsys):
    changed = tmp_path / "nov" / "players.csv"
    changed.parent.mkdir()
    changed.write_text(PLAYERS.replace("2000", "2010"))
    capsys.readouterr()
    assert _run("ingest", "--players", changed, "--store", store) == 0
    return capsys.readouterr().out


def test_no_dated_list_advised_where_no_rated_system_reads_one(tmp_path, capsys):
    """Glicko starts from the undated ratings only (docs/observations.md "Which systems
    seed from them"): a dated rating list would be stored and never read."""
    out = _rerate(tmp_path, _store(tmp_path, "glicko"), capsys)
    assert (
        "note: 1 player(s) whose undated starting rating changes (E1: 2000 -> 2010): an "
        "undated rating counts as of the first period, so the next rate recomputes every "
        "period from it. The systems rated here (glicko) rate from the games and read no "
        "dated ratings: a players file only sets the starting ratings (docs/observations.md)"
    ) in out
    assert "date column" not in out


def test_a_dated_list_is_advised_where_fide_is_rated(tmp_path, capsys):
    out = _rerate(tmp_path, _store(tmp_path, "fide"), capsys)
    assert (
        "period from it. A rating list of a month is ingested with a date column "
        "(docs/observations.md)"
    ) in out


def test_the_namesake_note_names_no_fide_id(tmp_path, capsys):
    store = _store(tmp_path, "glicko")
    other = tmp_path / "more.csv"
    other.write_text('player_id,name,birth_year\nE9,"Eck, Emil",1980\n')
    capsys.readouterr()
    assert _run("ingest", "--players", other, "--store", store) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 player id(s) new to the store with the name of a stored player (E9 'Eck, "
        "Emil' and stored E1 'Eck, Emil', both born 1980): a mistyped player id rates one "
        "person under two ids; if so, correct the file and ingest it again, or arpad "
        "players merge E1 E9"
    ) in out
