"""Issue 15 item 1/2: integer player keys assigned at ingest, typed Parquet columns
validated as typed columns, and the lean start-up of ``ingest``/``rate``."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from arpad.pipeline import engine, keys, synthetic
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store
from arpad.pipeline.validate import validate_games
from tests.conftest import results, write_csv


def _games_files(store: Store) -> list[pa.Table]:
    return [pq.read_table(f) for f in store.game_files()]


def test_keys_are_assigned_once_and_map_back_to_the_ids(tmp_path):
    store = Store(tmp_path / "s")
    first = write_csv(
        tmp_path / "g1.csv",
        "date,white_id,black_id,result",
        ["2025-01-10,a,b,1-0", "2025-01-11,c,a,0-1", "2025-02-03,b,c,1/2-1/2"],
    )
    ingest_file(store, first)
    ids1 = keys.read_keys(store.keys_path).to_pylist()
    assert sorted(ids1) == ["a", "b", "c"] and len(set(ids1)) == 3
    second = write_csv(
        tmp_path / "g2.csv",
        "date,white_id,black_id,result",
        ["2025-02-05,d,a,1-0", "2025-03-01,e,d,0-1"],
    )
    ingest_file(store, second)
    ids2 = keys.read_keys(store.keys_path).to_pylist()
    # Append-only: the first ingest's keys keep their ids.
    assert ids2[:3] == ids1 and sorted(ids2[3:]) == ["d", "e"]
    for table in _games_files(store):
        assert table.schema.field("white_key").type == pa.int32()
        for side in ("white", "black"):
            keys_col = table.column(f"{side}_key").to_pylist()
            assert [ids2[k] for k in keys_col] == table.column(f"{side}_id").to_pylist()


def _strip_keys(store: Store) -> None:
    """Make ``store`` look written before player keys existed."""
    for f in store.game_files():
        t = pq.read_table(f)
        pq.write_table(t.drop_columns(["white_key", "black_key"]), f)
    store.keys_path.unlink()


def test_engine_results_equal_with_and_without_keys(tmp_path):
    """A store written before the keys (string lookup) rates exactly as one with keys."""
    keyed = Store(tmp_path / "keyed")
    synthetic.generate(keyed, synthetic.SyntheticSpec(players=300, periods=3, games_per_period=900))
    legacy = Store(tmp_path / "legacy")
    shutil.copytree(keyed.root, legacy.root)
    _strip_keys(legacy)
    assert "white_key" not in pq.read_schema(legacy.game_files()[0]).names
    for system in ("elo", "fide"):
        engine.rate(keyed, system, refresh_catalog=False)
        engine.rate(legacy, system, refresh_catalog=False)
        for p in keyed.periods("standard"):
            a = results(keyed.read_ratings(system, "standard", p))
            b = results(legacy.read_ratings(system, "standard", p))
            assert a.equals(b), (system, p)


def test_dense_of_keys_resolves_merged_ids():
    key_ids = pa.array(["x", "dup", "y", "gone"])
    players = pa.array(["x", "y"])  # sorted ids of the run; "dup" was merged into "y"
    aliases = (pa.array(["dup"]), pa.array(["y"]))
    dense = keys.dense_of_keys(key_ids, players, aliases)
    assert dense.tolist() == [0, 1, 1, -1]
    assert keys.dense_of_keys(key_ids, players, None).tolist() == [0, -1, 1, -1]


def test_a_key_outside_the_dictionary_falls_back_to_the_ids(tmp_path):
    """A games file whose keys the dictionary lacks (never written by arpad) is still
    read correctly, through its string ids."""
    store = Store(tmp_path / "s")
    synthetic.generate(store, synthetic.SyntheticSpec(players=50, periods=1, games_per_period=200))
    (path,) = store.game_files()
    t = pq.read_table(path)
    bogus = pa.array(np.full(t.num_rows, 10_000, dtype=np.int32))
    info = engine.player_info(store.read_players())
    ids = engine.id_array(info.player_id)
    dense = keys.dense_of_keys(keys.read_keys(store.keys_path), ids, None)
    expected = engine.load_period_games([str(path)], ids, None, dense)
    pq.write_table(t.set_column(t.schema.get_field_index("white_key"), "white_key", bogus), path)
    got = engine.load_period_games([str(path)], ids, None, dense)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


# -- typed columns -----------------------------------------------------------------

TYPED = pa.table(
    {
        "game_id": [f"g{i}" for i in range(10)],
        "date": pa.array(
            [
                "2025-01-10",
                None,
                "2025-02-01",
                "1700-01-01",
                "2025-03-03",
                None,
                "2025-01-20",
                "2025-01-21",
                "2025-01-22",
                "2025-01-23",
            ],
            pa.string(),
        ).cast(pa.date32()),
        "period": pa.array(
            [None, 202501, 202503, None, None, 3_000_000_000, -4, None, 7, None], pa.int64()
        ),
        "white_id": ["a", "b", "c", "a", "b", "c", "a", "b", "c", "a"],
        "black_id": ["b", "c", "a", "b", "c", "a", "b", "c", "a", "a"],
        "score": pa.array([1.0, 0.5, 2.0, 0.0, math.nan, 1.0, 0.0, 1.0, 0.5, 1.0], pa.float32()),
        "rated": pa.array([True, None, False, True, True, True, True, False, True, True]),
        "white_rating": pa.array([2000, None, 4000, 1500, None, None, None, 4000, None, None]),
    }
)


def test_typed_parquet_columns_validate_like_their_text(tmp_path):
    """Typed Parquet columns give the same accepted games and the same quarantine
    (reasons, details, lines) as the same values written as text."""
    typed = tmp_path / "typed.parquet"
    text = tmp_path / "text.parquet"
    pq.write_table(TYPED, typed)
    # The text the reader made of every column before typed validation (polars' cast).
    as_text = pl.from_arrow(TYPED).with_columns(pl.all().cast(pl.String)).to_arrow()
    pq.write_table(as_text, text)
    a = validate_games(read_any(typed), "f", "b")
    b = validate_games(read_any(text), "f", "b")
    assert a.rows_read == b.rows_read == 10
    assert a.quarantine.equals(b.quarantine)
    assert a.accepted.equals(b.accepted)
    reasons = set(a.quarantine.column("reason").to_pylist())
    # The cases above hit these checks (a typed column is not a way around them).
    assert {"score_out_of_range", "period_out_of_range", "bad_period", "bad_rating"} <= reasons
    assert "self_play" in reasons
    assert a.accepted.num_rows >= 2


# -- start-up ----------------------------------------------------------------------


def test_console_ingest_and_rate_import_no_pandas(tmp_path):
    """The console process of ``arpad ingest`` (twice: the second file repeats a game,
    so the DuckDB duplicate checks run) and ``arpad rate`` never imports pandas, and
    still works (pipeline/lean.py); ``main(argv)`` inside a program is left alone."""
    import pandas  # noqa: F401  (a test extra: installed, so there is something to hide)

    from tests.conftest import SHARED

    players = write_csv(tmp_path / "p.csv", "player_id,rating", ["a,2100", "b,2000", "c,1900"])
    g1 = write_csv(
        tmp_path / "g1.csv",
        "date,white_id,black_id,result",
        ["2025-01-10,a,b,1-0", "2025-01-11,b,c,0-1"],
    )
    g2 = write_csv(
        tmp_path / "g2.csv",
        "date,white_id,black_id,result",
        ["2025-01-10,a,b,1-0", "2025-02-01,c,a,0-1"],
    )
    code = (
        "import sys\n"
        "import arpad.pipeline.lean as lean\n"
        "lean.exit_now = lambda code: None\n"  # several commands in one console process
        "from arpad.pipeline.cli import main\n"
        "for argv in ("
        f"['ingest', {str(g1)!r}, '--players', {str(players)!r}, '--store', 'S'],"
        f"['ingest', {str(g2)!r}, '--store', 'S'],"
        f"['ingest', {str(SHARED / 'pgn' / 'WorldChamp1886.pgn')!r}, '--store', 'S'],"
        f"['ingest', {str(next(iter(sorted((SHARED / 'trf').glob('*.trf')))))!r}, '--store', 'S'],"
        "['rate', '--system', 'elo', '--store', 'S']):\n"
        "    sys.argv = ['arpad', *argv]\n"
        "    print('exit', main())\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "PREFECT_API_URL"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    exits = [line for line in proc.stdout.splitlines() if line.startswith("exit ")]
    # The second ingest quarantines its repeated game (a non-zero exit, as always).
    assert exits[0] == "exit 0" and exits[4] == "exit 0", proc.stdout
    assert exits[2] in ("exit 0", "exit 2") and exits[3] in ("exit 0", "exit 2"), proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr  # PGN and TRF ingest work too
    assert "duplicate_game" in proc.stderr
    store = Store(tmp_path / "S")
    rated = store.rating_periods("elo", "standard")
    assert {188612, 202501, 202502} <= set(rated), rated  # the PGN's year-only games too
    assert "pandas" not in proc.stderr
