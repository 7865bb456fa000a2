"""A PGN game against a bye (``[White "BYE"]``, ``[Black "-"]``, ``[Black "spielfrei"]``:
pairing programs' and broadcasts' exports) is no game: counted, noted and not stored,
as a CSV's bye row (readers.BYE_IDS, docs/ingest.md "Byes and double forfeits").
Before, the PGN reader stored "BYE" as a player with rated games."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

import arpad
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store

ARPAD = Path(sys.executable).parent / "arpad"  # the console script: the real CLI


def game(white: str, black: str, result: str, moves: str, rnd: str, extra: str = "") -> str:
    return (
        f'[Event "Club 2024"]\n[Site "Here"]\n[Date "2024.03.0{rnd}"]\n[Round "{rnd}"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n{extra}\n'
        f"{moves} {result}\n\n"
    )


# Every game takes 10 lines (7 tags, a blank, the movetext, a blank): game k starts on
# line 10 k + 1 (its [Event tag), the line the note names.
GAMES = "".join(
    [
        game("Carlsen, Magnus", "Caruana, Fabiano", "1-0", "1. e4 e5 2. Nf3", "1"),  # line 1
        game("BYE", "Nakamura, Hikaru", "0-1", "", "1"),  # 11
        game("Nakamura, Hikaru", " Bye ", "+/-", "", "2"),  # 21
        game("Caruana, Fabiano", "-", "1/2-1/2", "", "2"),  # 31
        game("(bye)", "spielfrei", "*", "", "3"),  # 41: both sides byes
        game("Byers, John", "Bye-Larsen, Ole", "1-0", "1. d4 d5", "3"),  # 51: players
    ]
)
NOTE = (
    "4 byes (an opponent written bye, (bye), [bye], -bye-, spielfrei, freilos, -, any case; "
    "lines 11, 21, 31, 41): not games, counted and not stored"
)
PLAYERS = [
    "byes.pgn:Bye-Larsen, Ole",
    "byes.pgn:Byers, John",
    "byes.pgn:Carlsen, Magnus",
    "byes.pgn:Caruana, Fabiano",
]


def write(tmp_path: Path, text: str = GAMES) -> Path:
    path = tmp_path / "byes.pgn"
    path.write_text(text)
    return path


def test_the_file_as_written():
    lines = GAMES.splitlines()
    events = [i + 1 for i, line in enumerate(lines) if line.startswith("[Event")]
    assert events == [1, 11, 21, 31, 41, 51]


def test_read_pgn_counts_byes_and_makes_no_bye_player(tmp_path):
    raw = read_pgn(write(tmp_path))
    assert raw.problems == []  # the bye's +/- (no standard result) is no unknown_result
    assert raw.not_stored == {"byes": 4}
    assert raw.not_stored_lines == {"byes": [11, 21, 31, 41]}
    assert NOTE in raw.notes
    assert raw.frame.select("white_id", "black_id").rows() == [
        ("byes.pgn:Carlsen, Magnus", "byes.pgn:Caruana, Fabiano"),
        ("byes.pgn:Byers, John", "byes.pgn:Bye-Larsen, Ole"),
    ]
    assert sorted(raw.players["player_id"].to_list()) == PLAYERS


def test_a_name_holding_a_marker_is_a_player(tmp_path):
    text = game("Byers, John", "Bye-Larsen, Ole", "1-0", "1. d4 d5", "3") + game(
        "Freilos, Anna", "Spielfreier, Max", "0-1", "1. e4 e5", "4"
    )
    raw = read_pgn(write(tmp_path, text))
    assert (raw.not_stored, raw.problems, raw.frame.height) == ({}, [], 2)
    assert not any("bye" in n for n in raw.notes)


def test_a_bye_against_an_empty_name_or_with_a_repeated_tag_stays_quarantined(tmp_path):
    # as a CSV bye row with the other id empty (empty_player_id); a repeated White tag
    # with another value: which name is the game's is not known (malformed_row)
    text = game("", "BYE", "1-0", "", "1") + game(
        "BYE", "Tal, Mikhail", "0-1", "", "2", '[White "Smith, Jan"]\n'
    )
    raw = read_pgn(write(tmp_path, text))
    assert raw.not_stored == {}
    assert [(p[0], p[1]) for p in raw.problems] == [(11, "malformed_row")]
    assert raw.frame.select("white_id", "black_id").rows() == [(None, "byes.pgn:BYE")]
    assert raw.players["player_id"].to_list() == []  # no player BYE


def test_the_cli_leaves_byes_out_of_the_store(tmp_path):
    path, store = write(tmp_path), tmp_path / "S"
    env = {"PREFECT_HOME": str(tmp_path / ".prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    done = subprocess.run(
        [str(ARPAD), "--store", str(store), "ingest", str(path), "--no-flow"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # was 2: +/- and * quarantined
    assert "byes.pgn: 2 rows read, 2 games stored, 0 quarantined" in done.stdout
    assert f"  note: {NOTE}\n" in done.stdout
    s = Store(store)
    assert sorted(s.read_players().column("player_id").to_pylist()) == PLAYERS
    games = [pq.read_table(f, columns=["white_id", "black_id"]) for f in s.game_files()]
    assert sum(t.num_rows for t in games) == 2
    ids = {i for t in games for c in ("white_id", "black_id") for i in t.column(c).to_pylist()}
    assert not any(i.lower().split(":")[-1].strip() in ("bye", "-", "(bye)") for i in ids)
    # the API's report counts them as a CSV's (ingest.FileReport.not_stored)
    report = arpad.Store(tmp_path / "T").ingest(path)
    assert report.files[0].not_stored == {"byes": 4}
