"""The codecs of the engine's per-period files (pipeline/store.py ``lean_options``,
docs/store.md "Cost of the per-period files"): a float column of arbitrary doubles (an
Elo rating) is LZ4, one in whole hundredths (a FIDE rating, a score in halves, a sum of
table expectations) and every other column zstd; both read back exactly, through
pyarrow, polars and the DuckDB catalog."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, engine
from arpad.pipeline.store import Store, _arbitrary, lean_options
from arpad.pipeline.synthetic import SyntheticSpec, generate


def test_arbitrary_doubles_and_whole_hundredths():
    assert _arbitrary(pa.chunked_array([[1500.0, 1512.3456789, None]]))
    assert not _arbitrary(pa.chunked_array([[2400.0, 1399.0, None]]))  # whole ratings
    assert not _arbitrary(pa.chunked_array([[0.5, 3.5, 2.0]]))  # scores in halves
    assert not _arbitrary(pa.chunked_array([[0.76 + 0.64, 2.31]]))  # table sums: 1.4000000000000001
    assert not _arbitrary(pa.chunked_array([[None, None]], type=pa.float64()))  # nothing to see
    # only the sample decides (a speed/size choice, never a value)
    late = np.full(10_000, 1500.0)
    late[-1] = 1500.25
    assert not _arbitrary(pa.chunked_array([late]))


def test_lean_options_pick_lz4_for_arbitrary_floats_only():
    table = pa.table(
        {
            "player_id": ["a", "b"],
            "rating_after": [1512.345, 1487.655],
            "games": pa.array([3, 3], pa.int32()),
            "score": [1.5, 1.5],
            "rd_after": pa.array([None, None], pa.float64()),
        }
    )
    assert lean_options(table)["compression"] == {
        "player_id": "zstd",
        "rating_after": "lz4",
        "games": "zstd",
        "score": "zstd",
        "rd_after": "zstd",
    }


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("codecs") / "s")
    generate(store, SyntheticSpec(players=300, periods=2, games_per_period=900, seed=7))
    for system in ("elo", "fide"):
        engine.rate(store, system)
    return store


@pytest.mark.parametrize(("system", "lz4"), [("elo", True), ("fide", False)])
def test_ratings_files_codecs_and_values(rated, system, lz4):
    period = rated.rating_periods(system, "standard")[-1]
    path = rated.rating_partition(system, "standard", period) / "part-0.parquet"
    meta = pq.ParquetFile(path).metadata.row_group(0)
    codecs = {
        meta.column(i).path_in_schema: meta.column(i).compression for i in range(meta.num_columns)
    }
    assert codecs["player_id"] == "ZSTD"
    assert (codecs["rating_after"] == "LZ4") is lz4
    written = pq.read_table(path)
    assert pl.read_parquet(path).equals(pl.from_arrow(written))
    con = catalog.connect(rated)
    try:
        got = con.execute(
            "SELECT player_id, rating_after FROM ratings WHERE system = ? AND period = ? "
            "ORDER BY player_id",
            [system, period],
        ).fetchall()
    finally:
        con.close()
    want = sorted(zip(written["player_id"].to_pylist(), written["rating_after"].to_pylist()))
    assert got == want
