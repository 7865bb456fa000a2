"""Errors that tell a hurried user what to do next."""

from __future__ import annotations

import pytest

import arpad
from arpad.pipeline.cli import main

CSV = "white_id,black_id,result,date\na,b,1-0,2024-01-05\nb,c,0-1,2024-02-03\n"


@pytest.fixture()
def glicko_store(tmp_path, monkeypatch):
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")
    (tmp_path / "g.csv").write_text(CSV)
    store = arpad.Store(tmp_path / "S")
    store.ingest([tmp_path / "g.csv"])
    store.rate("glicko2")
    return store


def test_missing_system_names_what_the_store_has(glicko_store, capsys):
    root = str(glicko_store.path)
    assert main(["list", "--store", root]) == 2  # default system: fide, not rated here
    err = capsys.readouterr().err
    assert "no ratings for system fide pool standard" in err
    assert "this store has ratings of glicko2/standard" in err
    assert main(["list", "--store", root, "--system", "glicko2"]) == 0
    capsys.readouterr()
    # Names are lower case and never folded (two spellings would be two partitions),
    # but the refusal says which name was meant.
    assert main(["list", "--store", root, "--system", "Glicko2"]) == 2
    assert "(did you mean 'glicko2'?)" in capsys.readouterr().err
    assert main(["rate", "--store", root, "--system", "elo", "--pool", "Standard"]) == 2
    assert "invalid pool name 'Standard'" in capsys.readouterr().err


def test_empty_store_has_no_hint(tmp_path):
    from arpad.pipeline.store import Store

    store = Store(tmp_path / "empty")
    assert store.rated() == []
    assert str(store.no_ratings("elo", "blitz")) == (
        "no ratings for system elo pool blitz; run arpad rate --system elo --pool blitz first"
    )


def test_a_result_code_in_the_score_column_says_where_it_belongs(tmp_path):
    from arpad.pipeline.ingest import ingest_files
    from arpad.pipeline.store import Store
    from tests.conftest import write_csv

    rows = ["g1,2024-01-01,a,b,1-0", "g2,2024-01-01,a,b,x", "g3,2024-01-01,a,b, 1/2-1/2"]
    path = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,score", rows)
    store = Store(tmp_path / "s")
    ingest_files(store, [path])
    import polars as pl
    import pyarrow.parquet as pq

    q = pl.from_arrow(pq.read_table(store.quarantine_dir)).sort("line")
    assert q["reason"].to_list() == ["unknown_result"] * 3
    assert q["detail"].to_list() == [
        "score 1-0 is not a number (a result code: name the column 'result')",
        "score x is not a number",
        "score 1/2-1/2 is not a number (a result code: name the column 'result')",
    ]


def test_a_directory_that_is_no_store_is_refused_and_left_untouched(tmp_path, capsys):
    """``--store`` naming an unrelated directory (here one holding a user's file) or an
    empty one: a reading command says there is no store there and writes nothing
    (no lock file, no catalog)."""
    unrelated = tmp_path / "documents"
    unrelated.mkdir()
    (unrelated / "notes.txt").write_text("mine\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    for root in (unrelated, empty):
        before = sorted(p.name for p in root.iterdir())
        for args in (["rate", "--system", "fide"], ["list"], ["sql", "SELECT 1"]):
            capsys.readouterr()
            assert main([*args, "--no-flow", "--store", str(root)] if args[0] == "rate"
                        else [*args, "--store", str(root)]) == 2  # fmt: skip
            assert capsys.readouterr().err.strip() == (
                f"arpad: error: no store at {root} (ingest something first)"
            )
        assert sorted(p.name for p in root.iterdir()) == before
