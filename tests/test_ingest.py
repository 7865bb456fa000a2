"""Ingest: every quarantine reason, idempotency, accounting, the bundled real files."""

from __future__ import annotations

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.ingest import ingest_file, ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv

HEADER = "game_id,date,period,white_id,black_id,result,score,pool,rated,white_rating"

CASES = [
    ("g1,2024-03-05,,a,b,1-0,,,,", None),
    ("g2,2024-03-05,,,b,1-0,,,,", "empty_player_id"),
    ("g3,2024-03-05,,a,a,1-0,,,,", "self_play"),
    ("g4,2024-03-05,,a,b,2-0,,,,", "unknown_result"),
    ("g5,2024-03-05,,a,b,*,,,,", "unfinished_game"),
    ("g6,2024-03-05,,a,b,,-1,,,", "score_out_of_range"),
    ("g7,2024-03-05,,a,b,,x,,,", "unknown_result"),
    ("g8,2024-02-30,,a,b,1-0,,,,", "bad_date"),
    ("g9,,abc,a,b,1-0,,,,", "bad_period"),
    ("g10,2024-03-05,202404,a,b,1-0,,,,", "period_mismatch"),
    ("g11,,,a,b,1-0,,,,", "missing_period"),
    ("g12,2024-03-05,,a,b,1-0,,chess960,,", "bad_pool"),
    ("g13,2024-03-05,,a,b,1-0,,,maybe,", "bad_rated"),
    ("g14,2024-03-05,,a,b,1-0,,,,9999", "bad_rating"),
    ("g1,2024-03-06,,c,d,0-1,,,,", "duplicate_game_id"),
    ("g15,2024-03-05,,a,b,+/-,,,,", None),
    ("g16,2024-03-05,,a,b,1/2-1/2,,rapid,,", None),
]


def test_each_quarantine_reason(tmp_path):
    path = write_csv(tmp_path / "games.csv", HEADER, [row for row, _ in CASES])
    store = Store(tmp_path / "s")
    report = ingest_file(store, path)
    assert report.rows == len(CASES)
    assert report.accepted + report.quarantined == report.rows
    q = pq.read_table(next(store.quarantine_dir.glob("batch=*/part-0.parquet"))).to_pylist()
    got = {r["line"]: r["reason"] for r in q}
    for line, (_, reason) in enumerate(CASES, start=2):
        assert got.get(line) == reason, (line, reason, got.get(line))
    for r in q:  # every reason comes with a detail and the raw line
        assert r["detail"] and r["raw"]
    games = pq.read_table(store.games_dir).to_pylist()
    by_id = {g["game_id"]: g for g in games}
    assert set(by_id) == {"g1", "g15", "g16"}
    assert (
        by_id["g15"]["rated"] is False and by_id["g15"]["score"] == 1.0
    )  # forfeit stored, not rated
    assert by_id["g16"]["score"] == 0.5
    assert {p.parent.name for p in store.games_dir.glob("*/*/*.parquet")} == {"period=202403"}


def test_ingesting_the_same_file_twice_changes_nothing(tmp_path):
    path = write_csv(tmp_path / "g.csv", "period,white_id,black_id,score", ["1,a,b,1", "1,b,c,0.5"])
    store = Store(tmp_path / "s")
    first = ingest_file(store, path)
    snapshot = {p: p.read_bytes() for p in store.root.rglob("*.parquet")}
    second = ingest_file(store, path)
    assert first.accepted == 2 and second.skipped and second.accepted == 0
    assert {p: p.read_bytes() for p in store.root.rglob("*.parquet")} == snapshot


def test_duplicates_across_files_are_quarantined(tmp_path):
    """A stored game id again: another game under it is duplicate_game_id; the same game
    (White, Black, period) with another result is conflicting_result (docs/ingest.md)."""
    header = "game_id,period,white_id,black_id,score"
    a = write_csv(tmp_path / "a.csv", header, ["x1,1,a,b,1", "x3,1,c,d,1"])
    b = write_csv(tmp_path / "b.csv", header, ["x1,1,a,b,0", "x2,1,a,c,0", "x3,1,e,f,1"])
    store = Store(tmp_path / "s")
    ingest_file(store, a)
    report = ingest_file(store, b)
    assert report.accepted == 1
    assert report.reasons == {"conflicting_result": 1, "duplicate_game_id": 1}
    assert any("already stored from a.csv" in e for e in report.examples)


def test_players_mentioned_by_games_are_created_unrated(tmp_path):
    players = write_csv(tmp_path / "p.csv", "player_id,name,rating", ["a,Anna,2100"])
    games = write_csv(tmp_path / "g.csv", "period,white_id,black_id,score", ["1,a,b,1"])
    store = Store(tmp_path / "s")
    ingest_files(store, [games], players=[players])
    table = store.read_players()
    rows = {r["player_id"]: r for r in table.to_pylist()}
    assert rows["a"]["rating"] == 2100 and rows["a"]["name"] == "Anna"
    assert rows["b"]["rating"] is None


def test_players_merge_latest_non_null_wins(tmp_path):
    store = Store(tmp_path / "s")
    ingest_file(
        store,
        write_csv(tmp_path / "p1.csv", "player_id,name,rating,federation", ["a,Anna,2100,ENG"]),
        kind="players",
    )
    ingest_file(
        store,
        write_csv(tmp_path / "p2.csv", "player_id,rating,federation", ["a,2150,"]),
        kind="players",
    )
    row = store.read_players().to_pylist()[0]
    assert (row["name"], row["rating"], row["federation"]) == ("Anna", 2150, "ENG")


def test_bad_players_rows_are_quarantined(tmp_path):
    path = write_csv(
        tmp_path / "p.csv",
        "player_id,rating,birth_year",
        ["a,2100,1990", ",2000,", "b,abc,", "c,2000,3000", "a,2200,"],
    )
    report = ingest_file(Store(tmp_path / "s"), path, kind="players")
    assert report.accepted == 1
    assert report.reasons == {"bad_player_field": 2, "duplicate_player_id": 1, "empty_player_id": 1}


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "empty file"),
        (b"foo,bar\n1,2\n", "neither a games file"),
        (b"white_id,black_id,score\na,b,1\n", "missing required column(s): date or period"),
        (b"PK\x03\x04\x00\x00garbage", "is a zip archive, not what its name says"),
    ],
)
def test_unusable_files_raise_with_file_and_line(tmp_path, content, problem):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    store = Store(tmp_path / "s")
    with pytest.raises(InputError) as err:
        ingest_file(store, path)
    assert problem in str(err.value) and "bad.csv" in str(err.value)
    assert not list(store.games_dir.glob("**/*.parquet"))


def test_malformed_rows_are_quarantined_with_line_numbers(tmp_path):
    path = write_csv(
        tmp_path / "g.csv",
        "period,white_id,black_id,score",
        ["1,a,b,1", "1,a,b", "1,a,b,1,extra", "1,c,d,0"],
    )
    report = ingest_file(Store(tmp_path / "s"), path)
    assert report.accepted == 2 and report.reasons == {"malformed_row": 2}
    assert report.examples[0].endswith("g.csv:3: malformed_row: 3 fields where the header has 4")


def test_latin1_file_is_read_and_noted(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes("player_id,name\nx,Mu\xf1oz\n".encode("latin-1"))
    store = Store(tmp_path / "s")
    report = ingest_file(store, path, kind="players")
    assert report.accepted == 1 and "Latin-1" in report.notes[0]
    assert store.read_players().column("name").to_pylist() == ["Muñoz"]


def test_cli_exit_code_two_when_anything_is_quarantined(tmp_path, capsys):
    path = write_csv(tmp_path / "g.csv", "period,white_id,black_id,score", ["1,a,b,1", "1,a,a,1"])
    code = main(["ingest", str(path), "--store", str(tmp_path / "s"), "--no-flow"])
    err = capsys.readouterr().err
    assert code == 2
    assert "g.csv:3: self_play" in err and "quarantine" in err
    assert main(["ingest", str(path), "--store", str(tmp_path / "s"), "--no-flow"]) == 0


def test_deloitte_and_kaggle_mappings(bundled_data, tmp_path):
    store = Store(tmp_path / "d")
    report = ingest_files(
        store,
        [bundled_data / "deloitte_fide_2011" / "test_solution.csv"],
        players=[bundled_data / "deloitte_fide_2011" / "initial_ratings.csv"],
    )
    players, games = report.files
    # data README: 14,118 rated players; 100,000 rows of which 11,543 Spurious decoys (WhiteScore −1).
    assert (players.rows, players.accepted) == (14118, 14118)
    assert (games.rows, games.accepted, games.quarantined) == (100000, 88457, 11543)
    assert games.reasons == {"score_out_of_range": 11543}
    table = store.read_players()
    assert table.num_rows == 14118 + games.new_players
    k10 = table.filter(pc.equal(table["peak_rating"], 2400.0)).num_rows
    assert k10 > 0
    kaggle = Store(tmp_path / "k")
    report = ingest_files(kaggle, [bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"])
    assert (report.files[0].rows, report.files[0].accepted) == (65053, 65053)
    # 7,301 distinct ids appear in training (data README).
    assert kaggle.read_players().num_rows == 7301
    assert kaggle.periods("standard") == list(range(1, 101))


def test_reason_table_in_docs_is_the_enumeration():
    """docs/ingest.md lists exactly the Reason codes with their descriptions."""
    from pathlib import Path

    from arpad.pipeline.reasons import reason_table

    text = (Path(__file__).resolve().parents[1] / "docs" / "ingest.md").read_text()
    start = text.index("<!-- reason-codes")
    start = text.index("\n", start) + 1
    end = text.index("<!-- /reason-codes -->")
    assert text[start:end] == reason_table()


def test_reason_codes_are_produced_only_through_the_enumeration():
    """No reader, validation or ingest module spells a reason code as a bare string."""
    import ast
    from pathlib import Path

    from arpad.pipeline.reasons import Reason

    codes = {r.value for r in Reason}
    pipeline = Path(__file__).resolve().parents[1] / "pipeline"
    for path in sorted(pipeline.rglob("*.py")):
        if path.name == "reasons.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in codes:
                raise AssertionError(f"{path.name}:{node.lineno}: {node.value!r}: use Reason")


def test_every_quarantine_reason_is_a_known_code():
    from arpad.pipeline.reasons import Reason

    for _, reason in CASES:
        assert reason is None or Reason(reason)
