"""The same PGN game submitted in two files is stored once (content-keyed game ids)."""

from __future__ import annotations

import pyarrow.parquet as pq

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

GAME = """[Event "Club Championship"]
[Site "Leeds ENG"]
[Date "2024.03.{day:02d}"]
[Round "{rnd}"]
[White "{white}"]
[Black "{black}"]
[Result "{result}"]

1. e4 e5 2. Nf3 Nc6 {result}
"""


def pgn(*games) -> str:
    return "\n".join(
        GAME.format(day=d, rnd=r, white=w, black=b, result=res) for d, r, w, b, res in games
    )


def test_same_game_in_two_files_is_quarantined_as_duplicate(tmp_path, capsys):
    a = tmp_path / "round1-2.pgn"
    b = tmp_path / "final.pgn"  # the organiser's final file repeats rounds 1-2
    g1 = (5, "1", "Smith, Ann", "Jones, Bob", "1-0")
    g2 = (12, "2", "Jones, Bob", "Smith, Ann", "1/2-1/2")
    g3 = (19, "3", "Smith, Ann", "Jones, Bob", "0-1")
    a.write_text(pgn(g1, g2))
    b.write_text(pgn(g1, g2, g3))
    store = str(tmp_path / "s")
    assert main(["ingest", str(a), "--store", store, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["ingest", str(b), "--store", store, "--no-flow"]) == 2
    err = capsys.readouterr().err
    assert "final.pgn:1: duplicate_game_id" in err and "already stored from round1-2.pgn" in err
    games = Store(store).game_files("standard", 202403)
    ids = sorted(pq.read_table(games).column("game_id").to_pylist())
    assert ids == [
        "pgn:Club Championship|Leeds ENG|2024.03.05|1|Smith, Ann|Jones, Bob",
        "pgn:Club Championship|Leeds ENG|2024.03.12|2|Jones, Bob|Smith, Ann",
        "pgn:Club Championship|Leeds ENG|2024.03.19|3|Smith, Ann|Jones, Bob",
    ]


def test_games_without_a_full_date_keep_file_and_line_ids(tmp_path):
    text = pgn((5, "1", "Smith, Ann", "Jones, Bob", "1-0")).replace("2024.03.05", "2024.03.??")
    path = tmp_path / "partial.pgn"
    path.write_text(text)
    store = Store(tmp_path / "s")
    assert main(["ingest", str(path), "--store", str(store.root), "--no-flow"]) == 0
    ids = pq.read_table(store.game_files("standard", 202403)).column("game_id").to_pylist()
    assert ids == ["partial.pgn:1"]
