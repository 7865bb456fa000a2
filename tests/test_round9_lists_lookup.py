"""Round 9 (officer9 defect 1, newuser9 defects 1 and 5): the combined list in force keeps
the frozen list of a pool that lost its games, ``diff --published`` of stale ratings says
they are stale, and a player not rated yet is found by name as by id (docs/lists.md
"--in-force", docs/cli.md "Out-of-date ratings" and "Players by name")."""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = 'player_id,name,rating\n1,"Alpha, A",2000\n2,"Beta, B",1900\n6,"Nguyễn, Văn An",\n'
HEADER = "date,white_id,black_id,result\n"
# Alpha 2000 beats Beta 1900 (D 100, PD .64, K 20): +7.2 → 2007, Beta −7.2 → 1893; Nguyễn
# (no rating) meets both: his games are pooled for an initial rating, 2 < 5 (not rated)
GAMES = "2026-10-05,1,2,1-0\n2026-10-06,6,1,0-1\n2026-10-07,2,6,1/2-1/2\n"
STALE = (
    "arpad: note: the fide/standard ratings of period 202610 are out of date: games or "
    "players changed since they were rated (stale from period 202610); run arpad rate "
    "--system fide --pool standard first"
)


def _store(tmp_path, games: str = GAMES) -> str:
    (tmp_path / "reg.csv").write_text(REGISTER, encoding="utf-8")
    (tmp_path / "std.csv").write_text(HEADER + games, encoding="utf-8")
    s = str(tmp_path / "M")
    players = str(tmp_path / "reg.csv")
    assert (
        main(["ingest", str(tmp_path / "std.csv"), "--players", players, "--store", s, "--no-flow"])
        == 0
    )
    assert main(["rate", "--system", "fide", "--store", s, "--no-flow"]) == 0
    return s


def test_combined_in_force_keeps_the_frozen_list_of_a_pool_left_with_no_games(tmp_path, capsys):
    # officer9 defect 1: the rapid pool's only file moved to standard, rapid's ratings
    # removed by rate; its frozen 202610 list stays (docs/store.md "A pool left with no games")
    rap = tmp_path / "rap.csv"
    rap.write_text("date,white_id,black_id,result,pool\n2026-10-06,1,2,0-1,rapid\n")
    s = _store(tmp_path, "2026-10-05,1,2,1-0\n")
    assert main(["ingest", str(rap), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--pool", "rapid", "--store", s, "--no-flow"]) == 0
    for pool in ("standard", "rapid"):
        assert main(["publish", "--store", s, "--period", "202610", "--pool", pool]) == 0
    assert main(["ingest", str(rap), "--pool", "standard", "--store", s, "--no-flow"]) == 0
    for pool in ("rapid", "standard"):
        assert main(["rate", "--system", "fide", "--pool", pool, "--store", s, "--no-flow"]) == 0
    assert Store(s).rating_periods("fide", "rapid") == []
    capsys.readouterr()
    args = ["list", "--pool", "all", "--in-force", "2026-11-15", "--store", s, "--format", "csv"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    # as published: standard 2007/1893 (one game), rapid 1987/1913 (Alpha lost, K 20)
    assert out.splitlines()[1:] == [
        '1,"Alpha, A",,,,,,,2007,1,20,1987,1,20,,,,,',
        '2,"Beta, B",,,,,,,1893,1,20,1913,1,20,,,,,',
    ]
    assert (
        "arpad: note: this is the fide/rapid list of period 202610 as published (frozen); "
        "the store no longer holds its ratings (pool rapid holds no games of that period now)"
    ) in err.splitlines()
    assert "arpad: note: this is the fide/standard list of period 202610 as published" in err


def test_diff_published_of_stale_ratings_says_they_are_out_of_date(tmp_path, capsys):
    # newuser9 defect 1: a correction ingested, not rated yet: "0 changed" with a note
    s = _store(tmp_path)
    assert main(["publish", "--store", s, "--period", "202610"]) == 0
    corrected = GAMES.replace("2026-10-05,1,2,1-0", "2026-10-05,1,2,0-1")
    (tmp_path / "std.csv").write_text(HEADER + corrected, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "std.csv"), "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["diff", "--published", "202610", "--store", s]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("0 player(s) whose fide/standard rating of period 202610 changed")
    assert err.splitlines() == [
        STALE + "; until then this diff compares the published list with ratings that do "
        "not count that change"
    ]
    # rated: the change shows (Alpha 2007 → 1987, −0.64 × 20 = −12.8), and no note
    assert main(["rate", "--system", "fide", "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["diff", "--published", "202610", "--store", s, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:3] == [
        '1,"Alpha, A",2007,1987,-20,0,0,1',
        '2,"Beta, B",1893,1913,20,0,0,1',
    ]
    assert err == ""


def test_card_and_history_find_a_player_not_rated_yet_by_name(tmp_path, capsys):
    # newuser9 defect 5: the id worked, the name was "who has no fide/standard rating"
    s = _store(tmp_path)
    capsys.readouterr()
    assert main(["card", "Nguyen", "--store", s]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Rating card: 6  fide/standard  period 202610")
    assert "not published: 2 game(s) against rated opponents < 5" in out
    assert err == "arpad: note: Nguyen matches 6 (Nguyễn, Văn An); showing 6\n"
    assert main(["history", "nguyen", "--store", s, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].startswith("202610,unrated,,,,2,0.5,")
    assert main(["history", "6", "--store", s, "--format", "csv"]) == 0
    assert capsys.readouterr().out == out  # the same player as by id
    import arpad  # the API finds him by name too

    history = arpad.Store(s).history("Nguyen", system="fide")
    assert history["status"].to_list() == ["unrated"] and history["games"].to_list() == [2]
    # a name of nobody with a row is still the one-line error
    assert main(["card", "Nobody", "--store", s]) == 2
    assert "no fide/standard history for player(s) Nobody (no such id or name" in (
        capsys.readouterr().err
    )
