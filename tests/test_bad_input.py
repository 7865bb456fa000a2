"""The bad-input corpus (tests/data/bad/, written by tests/data/make_bad_corpus.py).

For every case: exit code 2; a message naming file, line and problem; the bad
row quarantined (row-level cases) with the good rows of the same file stored;
everything else in the store unchanged. Plus the accounting property
accepted + quarantined = read, for CSV and PGN input built by Hypothesis.
"""

from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arpad.pipeline.cli import main
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store
from arpad.pipeline.validate import validate_games

DATA = Path(__file__).resolve().parent / "data"
BAD = DATA / "bad"
CASES = list(csv.DictReader(open(BAD / "EXPECTED.csv", newline="")))


def test_corpus_has_at_least_30_kinds_across_formats():
    kinds = {(c["file"].split("_")[0], c["reason"], c["message"]) for c in CASES}
    assert len(kinds) >= 30
    assert {c["file"].split("_")[0] for c in CASES} == {"csv", "players", "pgn", "trf", "parquet"}
    assert sorted(p.name for p in BAD.iterdir() if p.name != "EXPECTED.csv") == sorted(
        c["file"] for c in CASES
    )


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("base") / "store"
    assert main(["ingest", "--no-flow", "--store", str(root), str(DATA / "good_base.csv")]) == 0
    return root


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_bad_input(case, base_store, tmp_path, capsys):
    root = tmp_path / "store"
    shutil.copytree(base_store, root)
    before = snapshot(root)
    players_before = Store(root).read_players()
    path = BAD / case["file"]
    args = ["ingest", "--no-flow", "--store", str(root)]
    if case["file"].startswith("players_"):
        args += ["--players", str(path), str(DATA / "good_base.csv")]  # games: already stored
    else:
        args += [str(path)]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    where = f"{path}:{case['line']}" if case["line"] else f"{path}:"
    assert where in err, err
    assert case["message"] in err, err

    if case["reason"] == "file":
        assert snapshot(root) == before
        return

    assert f"{case['reason']}" in err
    store = Store(root)
    quarantine = pq.read_table(store.quarantine_dir).to_pylist()
    assert any(
        q["source"] == path.name
        and q["line"] == int(case["line"])
        and q["reason"] == case["reason"]
        and case["message"] in q["detail"]
        for q in quarantine
    ), quarantine
    manifest = store.read_manifest().to_pylist()
    entry = next(m for m in manifest if m["source"] == path.name)
    assert entry["accepted"] + entry["quarantined"] == entry["rows"]
    after = snapshot(root)
    for name, digest in before.items():
        if name.startswith("games/"):
            assert after[name] == digest, f"{name} changed"
    stored = [f for f in store.game_files() if f.name == f"part-{entry['batch']}.parquet"]
    n_stored = sum(pq.read_metadata(f).num_rows for f in stored)
    if entry["kind"] == "games":
        assert n_stored == entry["accepted"] > 0  # the good rows of the file are stored
    base_ids = players_before.column("player_id")
    players_after = store.read_players()
    kept = players_after.filter(pc.is_in(players_after["player_id"], value_set=base_ids))
    if not case["file"].startswith(("players_", "trf_")):
        assert kept.sort_by("player_id").equals(players_before.sort_by("player_id"))


# -- accepted + quarantined = read ------------------------------------------------------------

ids = st.sampled_from(["A", "B", "C", "", "A "])
results = st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", "2-0", "+/-", "", "=", "0.5"])
dates = st.sampled_from(["2024-01-05", "2024-02-30", "", "2024.03.01", "nope", "2023-12-31"])
ratings = st.sampled_from(["", "2100", "9999", "abc", "0", "-5"])
row = st.tuples(st.sampled_from(["", "g1", "g2", "g3"]), dates, ids, ids, results, ratings)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(row, min_size=1, max_size=25))
def test_csv_accepted_plus_quarantined_is_read(tmp_path, rows):
    path = tmp_path / "games.csv"
    lines = ["game_id,date,white_id,black_id,result,white_rating"]
    lines += [",".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    raw = read_any(path)
    v = validate_games(raw, path.name, "b")
    assert v.rows_read == len(rows)
    assert v.accepted.num_rows + v.quarantine.num_rows == v.rows_read
    quarantined_lines = set(v.quarantine.column("line").to_pylist())
    accepted_lines = {int(s.rsplit(":", 1)[1]) for s in v.accepted.column("source").to_pylist()}
    assert not (quarantined_lines & accepted_lines)
    assert quarantined_lines | accepted_lines == set(range(2, len(rows) + 2))


pgn_game = st.fixed_dictionaries(
    {
        "White": st.sampled_from(["Ann", "Bob", "?", "Cid"]),
        "Black": st.sampled_from(["Ann", "Bob", "Dee"]),
        "Result": st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", "1:0"]),
        "Date": st.sampled_from(
            ["2024.01.02", "2024.01.??", "1900.??.??", "????.??.??", "2024.14.01"]
        ),
        "WhiteElo": st.sampled_from(["", "2000", "9999", "-"]),
        "moves": st.sampled_from(["1. e4 e5", "", "{forfeit}", "1. d4 {long\ncomment} d5"]),
        "marker": st.sampled_from(["same", "other", "none"]),
    }
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(pgn_game, min_size=1, max_size=12))
def test_pgn_accepted_plus_quarantined_is_read(tmp_path, games):
    parts = []
    for g in games:
        tags = "".join(
            f'[{k} "{g[k]}"]\n' for k in ("White", "Black", "Result", "Date", "WhiteElo")
        )
        marker = {
            "same": g["Result"],
            "other": "0-1" if g["Result"] != "0-1" else "1-0",
            "none": "",
        }
        parts.append(f'[Event "E"]\n{tags}\n{g["moves"]} {marker[g["marker"]]}\n\n')
    path = tmp_path / "games.pgn"
    path.write_text("".join(parts))
    raw = read_any(path)
    v = validate_games(raw, path.name, "b")
    assert v.rows_read == len(games)
    assert v.accepted.num_rows + v.quarantine.num_rows == len(games)


# -- impossible periods (docs/ingest.md, "Valid periods") ------------------------------------

IMPOSSIBLE_CSV = [
    # (date, period, why)
    ("", "2024-13", "month 13"),
    ("", "202413", "month 13, YYYYMM"),
    ("", "000101", "year 1, YYYYMM"),
    ("", "0001-01", "year 1"),
    ("", "1799-12", "before 1800-01"),
    ("", "299901", "year 2999"),
    ("", "100000", "month 0 of year 1000"),
    ("2999-01-01", "", "date in 2999"),
    ("9999-12-31", "", "date in 9999"),
    ("0001-01-01", "", "date in year 1"),
    ("1799-12-31", "", "date before 1800"),
]
POSSIBLE_CSV = [("2024-01-05", ""), ("", "2024-02"), ("", "133"), ("1800-01-01", ""), ("", "99999")]


def _period_rows() -> tuple[list[str], int]:
    rows = [f"{d},{p},A,B,1-0" for d, p, _ in IMPOSSIBLE_CSV]
    rows += [f"{d},{p},C,D,0-1" for d, p in POSSIBLE_CSV]
    return rows, len(IMPOSSIBLE_CSV)


def _ingest_report(tmp_path, path):
    from arpad.pipeline.ingest import ingest_file

    store = Store(tmp_path / "store")
    return store, ingest_file(store, path)


def _assert_out_of_range(store, report, bad: int, good: int):
    assert report.rows == report.accepted + report.quarantined == bad + good
    assert report.quarantined == bad and report.reasons == {"period_out_of_range": bad}
    stored = sum(pq.read_table(f).num_rows for f in store.game_files())
    assert stored == good
    periods = [p for pool in store.pools() for p in store.periods(pool)]
    assert all(1 <= p <= 99999 or 180001 <= p <= 999912 for p in periods), periods
    q = pq.read_table(next(store.quarantine_dir.rglob("*.parquet")))
    assert set(q.column("reason").to_pylist()) == {"period_out_of_range"}
    assert all("outside the valid months 1800-01.." in d for d in q.column("detail").to_pylist())


def test_impossible_periods_csv(tmp_path, capsys):
    rows, bad = _period_rows()
    path = tmp_path / "periods.csv"
    path.write_text("\n".join(["date,period,white_id,black_id,result", *rows]) + "\n")
    store, report = _ingest_report(tmp_path, path)
    _assert_out_of_range(store, report, bad, len(rows) - bad)
    code = main(["ingest", "--no-flow", "--store", str(tmp_path / "cli"), str(path)])
    err = capsys.readouterr().err
    assert code == 2 and f"period_out_of_range {bad}" in err
    assert f"{path}:2: period_out_of_range: period 2024-13 is outside the valid months" in err


def test_impossible_periods_parquet(tmp_path):
    rows, bad = _period_rows()
    cols = list(zip(*(r.split(",") for r in rows)))
    table = pa.table(
        {
            name: [v or None for v in values]
            for name, values in zip(["date", "period", "white_id", "black_id", "result"], cols)
        }
    )
    path = tmp_path / "periods.parquet"
    pq.write_table(table, path)
    store, report = _ingest_report(tmp_path, path)
    _assert_out_of_range(store, report, bad, len(rows) - bad)


def test_impossible_periods_parquet_integer_column(tmp_path):
    path = tmp_path / "int.parquet"
    pq.write_table(
        pa.table(
            {
                "period": pa.array([202413, 299901, 202403, 133], pa.int32()),
                "white_id": ["A", "A", "A", "A"],
                "black_id": ["B", "B", "B", "B"],
                "score": [1.0, 0.0, 0.5, 1.0],
            }
        ),
        path,
    )
    store, report = _ingest_report(tmp_path, path)
    _assert_out_of_range(store, report, 2, 2)


def test_impossible_periods_pgn(tmp_path):
    dates = ["2999.01.01", "9999.12.31", "0001.01.01", "0001.??.??", "1799.??.??"]
    good = ["2024.01.02", "2024.02.??", "1800.??.??"]
    games = []
    for i, date in enumerate(dates + good):
        games.append(
            f'[Event "E"]\n[Date "{date}"]\n[Round "{i}"]\n[White "W{i}"]\n[Black "B{i}"]\n'
            f'[Result "1-0"]\n\n1. e4 e5 1-0\n'
        )
    path = tmp_path / "periods.pgn"
    path.write_text("\n".join(games))
    store, report = _ingest_report(tmp_path, path)
    _assert_out_of_range(store, report, len(dates), len(good))
    # an impossible month with an unknown day is a bad Date tag, as `2024.13.01` is
    # (docs/pgn-trf.md; it was period_out_of_range "period 202413")
    bad_month = path.with_name("month13.pgn")
    bad_month.write_text(games[0].replace("2999.01.01", "2024.13.??"))
    _, report = _ingest_report(tmp_path / "m", bad_month)
    assert report.reasons == {"bad_date": 1}


def test_impossible_periods_trf(tmp_path):
    """Round 2 is dated 2049-03-03 (``49/03/03``): its games are quarantined (since
    round 15 as ``bad_date`` at the 132 record: 25 years after the 052 end date,
    tests/test_trf_r15.py; they were ``period_out_of_range`` at the 001 lines)."""
    text = (BAD / "trf_bad_round_date.trf").read_text().replace("24/13/45", "49/03/03")
    path = tmp_path / "periods.trf"
    path.write_text(text)
    store, report = _ingest_report(tmp_path, path)
    assert report.reasons == {"bad_date": 2}
    assert report.rows == report.accepted + report.quarantined
    assert report.accepted == 2 and store.periods("standard") == [202403]


@pytest.mark.parametrize(
    "text",
    [
        "2024-13",
        "202413",
        "2999-01",
        "299901",
        "0001-01",
        "000101",
        "1799-12",
        "0",
        "-3",
        "2024-3",
        "x",
        "100000",
    ],
)
def test_impossible_period_options_exit_2(tmp_path, capsys, text):
    from arpad.pipeline.periods import parse_period

    with pytest.raises(ValueError):
        parse_period(text)
    store = tmp_path / "store"
    for args in (
        ["rate", "--no-flow", "--store", str(store), "--system", "elo", "--from", text],
        ["rate", "--no-flow", "--store", str(store), "--system", "elo", "--to", text],
        ["list", "--store", str(store), "--period", text],
    ):
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("arpad: error: argument --"), err
        assert f"period {text!r}" in err[0]
    assert not store.exists()


def test_possible_periods_parse():
    from arpad.pipeline.periods import last_month, parse_period

    assert [parse_period(t) for t in ("2024-03", "202403", "133", "1", "99999", "1800-01")] == [
        202403,
        202403,
        133,
        1,
        99999,
        180001,
    ]
    assert parse_period(str(last_month())) == last_month()
