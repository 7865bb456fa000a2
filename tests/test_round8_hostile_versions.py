"""A new version of a stored source of which no row could be read (a UK spreadsheet
re-save: every date 06/05/2025, bad_date) keeps the stored games: exit 2, one line
naming the file (docs/ingest.md "A new version replaces the whole source"; hostile
round 8, defect 4). And ids that differ from stored ids only by leading zeros are noted,
not merged (docs/identity.md "Ids that differ only by leading zeros"; defect 5)."""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store


def _games(store: str) -> int:
    return sum(Store(store).read_manifest().column("accepted").to_pylist())


def test_a_new_version_with_every_row_quarantined_keeps_the_stored_games(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white_id,black_id,result\n2025-05-06,a,b,1-0\n2025-05-06,c,d,1-0\n"
        "2025-05-07,a,c,0-1\n2025-05-07,b,d,1/2-1/2\n"
    )
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 0
    games.write_text(
        "date,white_id,black_id,result\r\n06/05/2025,a,b,1-0\r\n06/05/2025,c,d,1-0\r\n"
        "07/05/2025,a,c,0-1\r\n07/05/2025,b,d,1/2-1/2\r\n"
    )
    capsys.readouterr()
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        f"arpad: error: {games}: no row of this new version could be read "
        "(4 quarantined: bad_date 4; line 2: bad_date: date 06/05/2025"
    )
    assert err.endswith("the stored version (4 games) is kept") and "\n" not in err
    assert len(Store(s).game_files()) == 1 and _games(s) == 4  # nothing replaced

    # one good row is a version: it replaces the whole source, as documented
    games.write_text("date,white_id,black_id,result\n2025-05-06,a,b,1-0\n06/05/2025,c,d,1-0\n")
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 2  # (1 quarantined)
    assert _games(s) == 1
    # and so does a header-only file: nothing was quarantined, it holds no game now
    games.write_text("date,white_id,black_id,result\n")
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 0
    assert _games(s) == 0


ZEROS = (
    "note: 2 player id(s) new to the store equal a stored id but for leading zeros "
    "({}): a spreadsheet drops leading zeros, and one player under two ids is rated as "
    "two; if so, keep the id column as text, correct the file and ingest it again, or "
    "arpad players merge {}"
)


def test_ids_equal_to_stored_ids_but_for_leading_zeros_are_noted(tmp_path, capsys):
    players = tmp_path / "p.csv"
    players.write_text('player_id,name,rating\n04100018,"Zero, Z",2000\n0042,"Lead, L",1900\n')
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2025-05-06,4100018,42,1-0\n")
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s, "--no-flow"]) == 0
    out = capsys.readouterr().out
    shown = "4100018 and stored 04100018; 42 and stored 0042"
    assert ZEROS.format(shown, "04100018 4100018") in out
    # not merged: four players
    assert sorted(Store(s).read_players().column("player_id").to_pylist()) == [
        "0042",
        "04100018",
        "4100018",
        "42",
    ]

    # the other way round: the games first, then a register keeping the zeros
    t = str(tmp_path / "T")
    assert main(["ingest", str(games), "--store", t, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["ingest", "--players", str(players), "--store", t, "--no-flow"]) == 0
    out = capsys.readouterr().out
    assert ZEROS.format("0042 and stored 42; 04100018 and stored 4100018", "0042 42") in out
