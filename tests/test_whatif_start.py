"""A what-if on a store whose games carry no published rating is bad input, as a
``rate --system fide`` of the same store is (docs/cli.md, whatif)."""

from __future__ import annotations

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main


def _store(tmp_path):
    games = pl.DataFrame(
        {
            "date": ["2025-01-10", "2025-01-11", "2025-02-03", "2025-02-04"],
            "white_id": ["a", "c", "b", "d"],
            "black_id": ["b", "d", "c", "a"],
            "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
        }
    )
    path = tmp_path / "g.csv"
    games.write_csv(path)
    store = arpad.Store(tmp_path / "s")
    store.ingest(path)
    return store


def test_whatif_without_starting_ratings_is_refused(tmp_path, capsys):
    """It replayed 2 periods into empty tables: 'movers 0', as if no rating moved."""
    store = _store(tmp_path)
    with pytest.raises(ValueError, match="fide needs published starting ratings"):
        arpad.whatif(store, "2022-01", "dated")
    capsys.readouterr()
    argv = ["whatif", "--store", str(tmp_path / "s"), "--rules", "2022-01", "--vs", "dated"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fide needs published starting ratings" in err
