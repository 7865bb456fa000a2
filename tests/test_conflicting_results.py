"""A correction sent under another name (docs/ingest.md "Conflicting results"): a
game with the date and players in their colours of a game another source stored, with
another result, is quarantined as ``conflicting_result`` instead of being stored beside
it (both were rated: found by the officer's attack of 2026-12-03); ingesting the file
as the source it corrects (``--source``, or from that source's path) applies it, even
after the first attempt recorded its bytes."""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

HEADER = "date,white_id,black_id,result"
OCTOBER = [
    "2026-10-03,1001,1002,1-0",
    "2026-10-03,1003,1004,0-1",
    "2026-10-04,1001,1003,1/2-1/2",
]


def _write(path, rows, header=HEADER):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def _ingest(store, path, *extra):
    return main(["ingest", str(path), "--store", str(store), "--no-flow", *extra])


def _games(store) -> list[tuple]:
    rows = []
    for f in Store(store).game_files():
        t = pq.read_table(f, columns=["white_id", "black_id", "score", "source"])
        rows += zip(*(t.column(c).to_pylist() for c in t.column_names))
    return sorted(rows)


def _quarantine(store) -> list[tuple]:
    rows = []
    for f in Store(store).quarantine_dir.rglob("*.parquet"):
        t = pq.read_table(f, columns=["source", "line", "reason", "detail"])
        rows += zip(*(t.column(c).to_pylist() for c in t.column_names))
    return sorted(rows)


def test_a_changed_result_from_another_folder_is_not_stored_beside_the_old(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "S"
    first = _write(tmp_path / "g.csv", OCTOBER)
    corrected = [OCTOBER[0].replace("1-0", "0-1"), *OCTOBER[1:]]
    second = _write(tmp_path / "corr" / "g.csv", corrected)
    assert _ingest(store, first) == 0
    before = _games(store)
    capsys.readouterr()
    assert _ingest(store, second) == 2
    out = capsys.readouterr()
    assert _games(store) == before  # one game 1001-1002, White won: not rated twice
    q = _quarantine(store)
    assert [(s, line, r) for s, line, r, _ in q] == [
        ("corr/g.csv", 2, "conflicting_result"),
        ("corr/g.csv", 3, "duplicate_game"),
        ("corr/g.csv", 4, "duplicate_game"),
    ]
    assert q[0][3].startswith(
        "date, players and colours of the game stored from g.csv:2, with White's score 1 "
        "there, 0 here: not applied (to correct g.csv, ingest the file with --source 'g.csv'"
    )
    assert "1 game(s) with the date and players of a game stored from another file" in out.out


def _corrected_store(tmp_path):
    store = tmp_path / "S"
    first = _write(tmp_path / "g.csv", OCTOBER)
    rows = [OCTOBER[0].replace("1-0", "0-1"), *OCTOBER[1:], "2026-10-05,1002,1004,1-0"]
    second = _write(tmp_path / "corr" / "g.csv", rows)
    assert _ingest(store, first) == 0
    assert _ingest(store, second) == 2  # conflict quarantined, the new game stored
    return store, first, second


EXPECTED = [
    ("1001", "1002", 0.0, "g.csv:2"),
    ("1001", "1003", 0.5, "g.csv:4"),
    ("1002", "1004", 1.0, "g.csv:5"),
    ("1003", "1004", 0.0, "g.csv:3"),
]


def test_the_same_bytes_with_source_apply_the_correction(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store, _, second = _corrected_store(tmp_path)
    assert _ingest(store, second, "--source", "g.csv") == 0
    assert _games(store) == EXPECTED  # each game once, the corrected result
    assert _quarantine(store) == []  # the first attempt's quarantine went with it
    manifest = pq.read_table(Store(store).manifest_path).to_pylist()
    assert [(m["source"], m["rows"], m["accepted"]) for m in manifest] == [("g.csv", 4, 4)]
    assert main(["check", "--store", str(store)]) == 0


def test_the_same_bytes_from_the_corrected_sources_path_apply_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store, first, second = _corrected_store(tmp_path)
    shutil.copy(second, first)
    assert _ingest(store, first) == 0
    assert _games(store) == EXPECTED
    assert _quarantine(store) == []
    # and the same bytes once more, from anywhere: skipped, nothing changes
    assert _ingest(store, second) == 0
    assert _games(store) == EXPECTED


def test_one_for_one_a_second_game_of_the_day_is_new(tmp_path, monkeypatch):
    """Stored: 1001-1002 1-0 on one day. Another file holds that game and a second one
    between them that day with the same colours, 0-1 (a blitz match): the first is
    re-sent, the second uses no stored game, so it is stored, not a conflict."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "S"
    _ingest(store, _write(tmp_path / "a.csv", [OCTOBER[0]]))
    both = [OCTOBER[0], OCTOBER[0].replace("1-0", "0-1")]
    assert _ingest(store, _write(tmp_path / "b.csv", both)) == 2  # one duplicate_game
    assert [r for _, _, r, _ in _quarantine(store)] == ["duplicate_game"]
    assert [g[2] for g in _games(store)] == [0.0, 1.0]


def test_ids_the_files_vouch_for_tell_games_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "S"
    header = "game_id,date,white_id,black_id,result"
    _ingest(store, _write(tmp_path / "a.csv", ["G1,2026-10-03,1001,1002,1-0"], header))
    assert _ingest(store, _write(tmp_path / "b.csv", ["G2,2026-10-03,1001,1002,0-1"], header)) == 0
    assert len(_games(store)) == 2


def test_a_correction_under_its_own_path_is_no_conflict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "S"
    path = _write(tmp_path / "g.csv", OCTOBER)
    _ingest(store, path)
    _write(path, [OCTOBER[0].replace("1-0", "0-1"), *OCTOBER[1:]])
    assert _ingest(store, path) == 0
    assert [g[2] for g in _games(store) if g[:2] == ("1001", "1002")] == [0.0]
    assert _quarantine(store) == []


def test_rows_repeated_inside_a_file_are_stored_and_named(tmp_path, monkeypatch, capsys):
    """Two equal rows in one file are two games (the file says so, docs/ingest.md), and
    the summary says so: a row pasted twice would be rated twice (the officer's attack
    of 2026-12-03 had five copies of one row, with no word)."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "S"
    rows = [OCTOBER[0]] * 3 + [OCTOBER[1]]
    capsys.readouterr()
    assert _ingest(store, _write(tmp_path / "d.csv", rows)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 2 row(s) repeat an earlier row of the file exactly (e.g. 2026-10-03 1001-1002 1)"
        in out
    )
    assert len(_games(store)) == 4
    # rows with their own ids are not named: the ids say they are different games
    header = "game_id,date,white_id,black_id,result"
    ids = [f"G{i},{OCTOBER[0]}" for i in range(3)]
    capsys.readouterr()
    assert _ingest(tmp_path / "S2", _write(tmp_path / "e.csv", ids, header)) == 0
    assert "repeat an earlier row" not in capsys.readouterr().out
