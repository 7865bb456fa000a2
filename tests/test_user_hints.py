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
        "no ratings for system elo pool blitz; run arpad rate first"
    )
