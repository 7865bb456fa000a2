"""The field limit of every input format (docs/ingest.md "Field length"): a CSV field
over 131072 characters quarantines its row as it is read; a Parquet value or a PGN tag
over the same limit quarantines its row in validation (the hostile-input defect: a
1 MB player id from a Parquet file was stored, listed and printed)."""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq

from arpad.pipeline import readers
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from arpad.pipeline.validate import FIELD_LIMIT, validate_games, validate_players


def test_limit_is_the_csv_readers():
    import csv

    assert FIELD_LIMIT == csv.field_size_limit() == 131072


def test_parquet_value_over_the_limit_is_quarantined_naming_the_column(tmp_path, capsys):
    path = tmp_path / "big.parquet"
    pl.DataFrame(
        {
            "game_id": ["g1", "g2", "g3", "g4"],
            "date": ["2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08"],
            "white_id": ["A" * (FIELD_LIMIT + 1), "B", "C", "D" * FIELD_LIMIT],
            "black_id": ["B", "A", "A", "A"],
            "score": [1.0, 0.5, 0.0, 1.0],
            "event": ["x", "é" * (FIELD_LIMIT + 1), "y", "z"],
        }
    ).write_parquet(path)
    store = tmp_path / "S"
    code = main(["ingest", str(path), "--store", str(store)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"big.parquet:1: malformed_row: white_id holds more than {FIELD_LIMIT} characters" in err
    assert f"big.parquet:2: malformed_row: event_id holds more than {FIELD_LIMIT} characters" in err
    games = pq.read_table(
        [str(f) for f in Store(store).game_files()], columns=["game_id", "white_id"]
    )
    # exactly the limit is kept (line 4), as the CSV reader keeps it
    assert sorted(games.column("game_id").to_pylist()) == ["g3", "g4"]
    assert max(len(w) for w in games.column("white_id").to_pylist()) == FIELD_LIMIT


def test_pgn_tag_over_the_limit_quarantines_the_game_and_its_player(tmp_path):
    w = "W" * (FIELD_LIMIT + 5)
    games = []
    for rnd, (white, result) in enumerate([(w, "1-0"), ("A", "0-1")], 1):
        games.append(
            f'[Event "E"]\n[Site "S"]\n[Date "1990.01.02"]\n[Round "{rnd}"]\n'
            f'[White "{white}"]\n[Black "B"]\n[Result "{result}"]\n\n1. e4 e5 {result}\n'
        )
    path = tmp_path / "big.pgn"
    path.write_text("\n".join(games))
    raw = readers.read_any(path)
    v = validate_games(raw, "big.pgn", "b")
    assert v.accepted.num_rows == 1
    q = v.quarantine.to_pylist()
    assert [(r["line"], r["reason"]) for r in q] == [(1, "malformed_row")]
    assert q[0]["detail"].startswith(f"white_id holds more than {FIELD_LIMIT} characters")
    players = validate_players(
        readers.RawTable(path, "pgn", "players", raw.players), "big.pgn", "b"
    )
    bad = players.quarantine.to_pylist()
    assert [r["reason"] for r in bad] == ["bad_player_field"]
    assert bad[0]["detail"].startswith("player_id holds more than")
    assert "W" * 10 not in "".join(players.accepted.column("player_id").to_pylist())
