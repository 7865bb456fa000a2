"""Sparse state checkpoints (pipeline/checkpoints.py, docs/store.md "Checkpoints"): which
periods get one, and that every start between two of them — ``--from P``, an
incremental recompute, an old store's per-period checkpoints — gives the ratings of a
clean run. The kill-and-resume cases are in tests/test_resume.py."""

from __future__ import annotations

import json
import shutil

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, schemas
from arpad.pipeline.checkpoints import CHECKPOINT_EVERY, due
from arpad.pipeline.engine import rate, resolve_rules
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import results
from tests.test_engine import synthetic_fide

MONTHS = tuple(
    [202503, 202504, 202505, 202506, 202507, 202508, 202509, 202510, 202511, 202512, 202601]
)
SYSTEMS = ["elo", "fide", "glicko2", "whr"]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Store:
    base = tmp_path_factory.mktemp("sparse")
    pfile, gfile, _, _ = synthetic_fide(base, 11, months=MONTHS)
    store = Store(base / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert store.periods("standard") == list(MONTHS)
    return store


def copy(template: Store, tmp_path, name: str) -> Store:
    shutil.copytree(template.root, tmp_path / name)
    return Store(tmp_path / name)


def ratings(store: Store, system: str) -> dict[int, pa.Table]:
    return {
        p: results(store.read_ratings(system, "standard", p))
        for p in store.rating_periods(system, "standard")
    }


def assert_same_ratings(got: Store, want: Store, system: str) -> None:
    a, b = ratings(got, system), ratings(want, system)
    assert sorted(a) == sorted(b)
    for p in b:
        assert a[p].equals(b[p]), (system, p)


def test_schedule_first_every_nth_and_last():
    # 11 periods, every 4th: positions 3 and 7 (1-based 4 and 8), plus the first and last.
    marks = [i for i in range(11) if due(i, i, 11, 4)]
    assert marks == [0, 3, 7, 10]
    # A run of positions 5..9: its first (5), position 7, its last (9).
    assert [p for i, p in enumerate(range(5, 10)) if due(p, i, 5, 4)] == [5, 7, 9]
    # Resumed (right after its own checkpoint): no checkpoint at its first period.
    assert [p for i, p in enumerate(range(5, 10)) if due(p, i, 5, 4, first=False)] == [7, 9]
    assert CHECKPOINT_EVERY == 12


def test_a_run_writes_sparse_checkpoints_and_removes_older_ones(template, tmp_path):
    store = copy(template, tmp_path, "s")
    rate(store, "elo", checkpoint_every=1, refresh_catalog=False)
    assert store.state_periods("elo", "standard") == list(MONTHS)
    rate(store, "elo", checkpoint_every=4, refresh_catalog=False)
    assert store.state_periods("elo", "standard") == [202503, 202506, 202510, 202601]
    # A run from the 6th period: its first, the pool's 8th period, its last; the
    # checkpoints before its start stay.
    rate(store, "elo", start=202508, checkpoint_every=4, refresh_catalog=False)
    assert store.state_periods("elo", "standard") == [202503, 202506, 202508, 202510, 202601]
    meta = json.loads((store.state_partition("elo", "standard", 202508) / "meta.json").read_text())
    assert meta["replay"] == {"rules": None, "overrides": {}}


@pytest.mark.parametrize("system", SYSTEMS)
def test_from_a_period_without_checkpoint_equals_a_clean_run(template, tmp_path, system):
    clean = copy(template, tmp_path, "clean")
    rate(clean, system, checkpoint_every=1, refresh_catalog=False)
    sparse = copy(template, tmp_path, "sparse")
    rate(sparse, system, checkpoint_every=5, refresh_catalog=False)
    assert sparse.state_periods(system, "standard") == [202503, 202507, 202512, 202601]
    # Each start has no checkpoint at the period before it (the runs add their own).
    for start in (202511, 202509, 202505):
        summary = rate(sparse, system, start=start, checkpoint_every=5, refresh_catalog=False)
        assert summary.periods == [m for m in MONTHS if m >= start]
        assert summary.replayed, start  # the period before has no checkpoint
        assert_same_ratings(sparse, clean, system)
        # The last checkpoint is the clean run's state after the last period.
        last = MONTHS[-1]
        got, _ = sparse.read_state(system, "standard", last)
        want, _ = clean.read_state(system, "standard", last)
        assert sorted(got) == sorted(want)
        for name in want:
            assert got[name].equals(want[name]), (system, start, name)


def test_replay_uses_the_rules_of_the_run_that_wrote_the_checkpoint(template, tmp_path):
    """``--from P --set k=32`` over ratings computed with k=24: the periods between the
    checkpoint and P are replayed with k=24, as a checkpoint at P - 1 would have held."""
    every = copy(template, tmp_path, "every")
    rate(every, "elo", overrides={"k": "24"}, checkpoint_every=1, refresh_catalog=False)
    rate(every, "elo", start=202509, overrides={"k": "32"}, checkpoint_every=1)
    sparse = copy(template, tmp_path, "sparse")
    rate(sparse, "elo", overrides={"k": "24"}, checkpoint_every=7, refresh_catalog=False)
    assert sparse.state_periods("elo", "standard") == [202503, 202509, 202601]
    s = rate(sparse, "elo", start=202509, overrides={"k": "32"}, checkpoint_every=7)
    assert s.replayed == [202504, 202505, 202506, 202507, 202508]
    assert_same_ratings(sparse, every, "elo")


def test_replay_with_a_fixed_rule_version(template, tmp_path):
    """A run with ``--rules`` (one fixed FIDE version) records its fields in the
    checkpoint; a later run with the versions in force replays with that version."""
    fixed = resolve_rules("fide", "2014-07")
    every = copy(template, tmp_path, "every")
    rate(every, "fide", rules=fixed, checkpoint_every=1, refresh_catalog=False)
    rate(every, "fide", start=202510, checkpoint_every=1, refresh_catalog=False)
    sparse = copy(template, tmp_path, "sparse")
    rate(sparse, "fide", rules=fixed, checkpoint_every=12, refresh_catalog=False)
    s = rate(sparse, "fide", start=202510, checkpoint_every=12, refresh_catalog=False)
    assert s.replayed == [m for m in MONTHS if 202503 < m < 202510]
    assert_same_ratings(sparse, every, "fide")


def test_an_old_store_with_a_checkpoint_per_period_still_works(template, tmp_path):
    """Checkpoints written before they were sparse (after every period, no ``replay`` in
    their meta.json): ``--from`` any period, then a default run thins them out."""
    clean = copy(template, tmp_path, "clean")
    rate(clean, "fide", checkpoint_every=1, refresh_catalog=False)
    old = copy(template, tmp_path, "old")
    rate(old, "fide", checkpoint_every=1, refresh_catalog=False)
    for meta_path in old.state_dir.rglob("meta.json"):
        meta = json.loads(meta_path.read_text())
        del meta["replay"]
        meta_path.write_text(json.dumps(meta))
    for start in (202601, 202509, 202504):
        s = rate(old, "fide", start=start, refresh_catalog=False)
        assert s.replayed == []
        assert_same_ratings(old, clean, "fide")
    assert old.state_periods("fide", "standard") == [
        *[m for m in MONTHS if m < 202504],
        202504,  # the last run's first period
        MONTHS[-1],
    ]


def test_ratings_files_read_back_with_the_ratings_schema(template, tmp_path):
    """The engine writes ``status`` and the audit columns as Parquet dictionaries and the
    float columns with BYTE_STREAM_SPLIT, without the Arrow schema: readers see exactly
    RATINGS_FILE (plain strings), and DuckDB's views read the same values."""
    store = copy(template, tmp_path, "s")
    rate(store, "fide")
    path = store.rating_partition("fide", "standard", 202601) / "part-0.parquet"
    table = pq.read_table(path)
    assert table.schema.equals(schemas.RATINGS_FILE)
    assert pq.ParquetFile(path).schema_arrow.equals(schemas.RATINGS_FILE)
    meta = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {
        meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)
    }
    assert "BYTE_STREAM_SPLIT" in encodings["rating_after"]
    assert "RLE_DICTIONARY" in encodings["status"] and "RLE_DICTIONARY" in encodings["rules"]
    assert set(table.column("status").to_pylist()) <= set(schemas_status())
    con = catalog.connect(store)
    try:
        got = catalog.query_arrow(
            con,
            "SELECT player_id, rating_after, status, rules, run_id FROM ratings "
            "WHERE system = 'fide' AND period = 202601 ORDER BY player_id",
        )
    finally:
        con.close()
    want = table.select(["player_id", "rating_after", "status", "rules", "run_id"])
    want = want.sort_by("player_id")
    assert got.column("player_id").to_pylist() == want.column("player_id").to_pylist()
    for name in ("rating_after", "status", "rules", "run_id"):
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    assert duckdb.sql(f"SELECT count(*) FROM '{path}'").fetchall() == [(table.num_rows,)]


def schemas_status() -> list[str]:
    from arpad.pipeline.systems.base import STATUS_CODES

    return list(STATUS_CODES)


def test_cli_checkpoint_every_and_the_replay_line(template, tmp_path, capsys):
    from arpad.pipeline.cli import main

    store = copy(template, tmp_path, "s")
    common = ["--store", str(store.root), "--no-flow", "--system", "elo"]
    assert main(["rate", *common, "--checkpoint-every", "4"]) == 0
    assert store.state_periods("elo", "standard") == [202503, 202506, 202510, 202601]
    capsys.readouterr()
    assert main(["rate", *common, "--from", "2025-09", "--checkpoint-every", "4"]) == 0
    out = capsys.readouterr().out
    assert "rated 5 periods (202509..202601)" in out
    assert "2 earlier periods replayed from a checkpoint" in out
    assert main(["rate", *common, "--checkpoint-every", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--checkpoint-every must be at least 1, got 0" in err
