"""A named mapping reads a header holding its columns in any order beside other
columns (docs/ingest.md "Named mappings"; the analyst's defect: a pandas ``to_csv``
with its index, or a frame with one added column, was refused)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline.errors import InputError

KAGGLE = Path(__file__).resolve().parents[1] / "data" / "real" / "kaggle2010_elo_vs_rest"


@pytest.fixture(scope="module")
def months():
    frame = pl.read_csv(KAGGLE / "training_data.csv")
    return frame.filter(pl.col("Month #") <= 6)


@pytest.fixture(scope="module")
def plain(months):
    return arpad.rate(months, system="elo", mapping="kaggle2010")


def test_pandas_index_column_and_detection(months, plain, tmp_path):
    path = tmp_path / "with_index.csv"
    months.to_pandas().to_csv(path)  # a first column '' holding 0, 1, 2, ...
    assert path.read_text().splitlines()[0] == ",Month #,White Player #,Black Player #,Score"
    named = arpad.rate(path, system="elo", mapping="kaggle2010")
    detected = arpad.rate(path, system="elo")
    assert named.equals(plain) and detected.equals(plain)


def test_reordered_columns_with_an_extra_one(months, plain):
    odd = months.with_columns(pl.lit("x").alias("note")).select(
        ["Score", "note", "Black Player #", "Month #", "White Player #"]
    )
    assert arpad.rate(odd, system="elo", mapping="kaggle2010").equals(plain)
    assert arpad.rate(odd, system="elo").equals(plain)


def test_a_missing_mapping_column_is_named(months):
    with pytest.raises(InputError, match="lacks 'Score'"):
        arpad.rate(months.drop("Score"), system="elo", mapping="kaggle2010")


def test_ingest_notes_the_columns_not_read(months, tmp_path, capsys):
    from arpad.pipeline.cli import main

    path = tmp_path / "g.csv"
    months.to_pandas().to_csv(path)
    assert main(["ingest", str(path), "--store", str(tmp_path / "S")]) == 0
    assert "note: mapping 'kaggle2010': column(s) '' not read" in capsys.readouterr().out
