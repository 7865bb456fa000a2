"""The catalog is rebuilt only when a rebuild would change it (docs/store.md "Catalog"):
the views' SQL, the DuckDB version, or a catalog file replaced by anything else. What a
run adds to a kind that already has files (a new system, pool, period) is seen through
the existing views, since DuckDB binds a view's ``read_parquet`` glob when queried."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

from arpad.pipeline import catalog, engine
from arpad.pipeline.store import Store
from arpad.pipeline.synthetic import SyntheticSpec, generate

SPEC = SyntheticSpec(players=120, periods=3, games_per_period=300, seed=7)


def _identity(store: Store) -> tuple[int, int, int]:
    st = store.catalog_path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def _query(store: Store, sql: str) -> list[tuple]:
    con = catalog.connect_readonly(store)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture()
def store(tmp_path) -> Store:
    s = Store(tmp_path / "s")
    generate(s, SPEC)  # ingests and refreshes the catalog
    return s


def test_refresh_keeps_a_current_catalog_and_new_systems_are_visible(store):
    engine.rate(store, "elo")  # ratings: the first file of the kind, so a rebuild
    built = _identity(store)
    assert _query(store, "SELECT DISTINCT system FROM ratings") == [("elo",)]
    engine.rate(store, "glicko2")  # same views: no rebuild
    assert _identity(store) == built
    systems = sorted(r[0] for r in _query(store, "SELECT DISTINCT system FROM ratings"))
    assert systems == ["elo", "glicko2"]
    # The derived views read through the base views too.
    ranked = _query(store, "SELECT count(*) FROM rating_list WHERE system = 'glicko2'")
    assert ranked[0][0] > 0
    catalog.refresh(store, force=True)
    assert _identity(store) != built


def test_a_view_whose_sql_changes_is_rebuilt(store):
    catalog.refresh(store)
    built = _identity(store)
    assert _query(store, "SELECT count(*) FROM aliases") == [(0,)]  # an empty SELECT
    store.aliases_path.parent.mkdir(parents=True, exist_ok=True)
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({c: [v] for c, v in zip(catalog.ALIASES.names, ["p1", "p2", "2026", "x"])}),
        store.aliases_path,
    )
    catalog.refresh(store)
    assert _identity(store) != built
    assert _query(store, "SELECT duplicate, keep FROM aliases") == [("p1", "p2")]


def test_a_catalog_changed_or_removed_by_anything_else_is_rebuilt(store):
    catalog.refresh(store)
    stamp = json.loads((store.root / catalog.STAMP_NAME).read_text())
    assert stamp["catalog"] == list(_identity(store))
    # Replaced by another writer (an older arpad rebuilds it without a stamp).
    store.catalog_path.write_bytes(b"not a catalog")
    catalog.refresh(store)
    assert _query(store, "SELECT count(*) FROM players")[0][0] == SPEC.players
    os.unlink(store.catalog_path)
    catalog.refresh(store)
    assert store.catalog_path.exists()
    # A stamp that does not parse counts as none.
    (store.root / catalog.STAMP_NAME).write_text("{")
    before = _identity(store)
    catalog.refresh(store)
    assert _identity(store) != before


def test_the_definition_names_every_view_and_the_duckdb_version(store, monkeypatch):
    sqls = catalog._view_sqls(store)
    assert set(catalog.BASE_VIEWS) | set(catalog.DERIVED_VIEWS) == set(sqls)
    one = catalog._definition(store, sqls)
    assert one == catalog._definition(store, dict(sqls))
    changed = dict(sqls, ratings=sqls["ratings"] + " ")
    assert catalog._definition(store, changed) != one
    monkeypatch.setattr(catalog, "duckdb_version", lambda: "0.0.0")
    assert catalog._definition(store, sqls) != one


def test_a_partition_removed_in_the_same_command_is_not_read(store):
    """A writer's journal keeps a removed partition as a hidden ``.period=N.….kept.tmp``
    folder until the command ends; the catalog rebuilt in that command must not read it
    (the globs name each partition level, ``period=*``: DuckDB's ``*`` matches hidden
    names, and a kept folder gave a "Hive partition mismatch" error)."""
    engine.rate(store, "elo")
    periods = store.rating_periods("elo", "standard")
    with store.writer_lock("test"):
        store.remove_ratings("elo", "standard", periods[-1])
        pool_dir = store.rating_partition("elo", "standard", periods[0]).parent
        hidden = [p.name for p in pool_dir.iterdir()]
        assert any(name.startswith(".period=") for name in hidden)  # kept until the end
        catalog.refresh(store, force=True)
        got = _query(store, "SELECT DISTINCT period FROM ratings ORDER BY 1")
    assert [p for (p,) in got] == periods[:-1]
