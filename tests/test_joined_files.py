"""Two CSV exports joined with ``cat`` (docs/ingest.md "Canonical CSV / Parquet"): the
second file's header line is quarantined as ``malformed_row`` naming it, never stored
as a player named ``name`` with id ``player_id`` (the hostile-input defect, exit 0)
nor quarantined as a game with an "unknown result code result"."""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store


def test_players_file_with_its_header_twice(tmp_path, capsys):
    path = tmp_path / "pcat.csv"
    path.write_text(
        "player_id,name,federation\nx1,Xavier,FRA\nplayer_id,name,federation\nx2,Yves,FRA\n"
    )
    store = tmp_path / "S"
    assert main(["ingest", "--players", str(path), "--store", str(store)]) == 2
    out, err = capsys.readouterr()
    assert "pcat.csv: 3 rows read, 2 players stored, 1 quarantined" in out
    assert f"{path}:3: malformed_row: the header line again (two files joined?): not a row" in err
    ids = Store(store).read_players().column("player_id").to_pylist()
    assert sorted(ids) == ["x1", "x2"]


def test_games_file_with_its_header_twice_spaced(tmp_path, capsys):
    path = tmp_path / "cat.csv"
    rows = ["white_id,black_id,result,date", "A,B,1-0,2024-01-02"]
    path.write_text("\n".join([*rows, " white_id, black_id ,result,date", "B,A,0-1,2024-01-03"]))
    assert main(["ingest", str(path), "--store", str(tmp_path / "S")]) == 2
    out, err = capsys.readouterr()
    assert "cat.csv: 3 rows read, 2 games stored, 1 quarantined" in out
    assert f"{path}:3: malformed_row: the header line again" in err
    assert "unknown_result" not in err
