"""The Python API (docs/api.md): its examples run, the in-memory path equals the store
path on the bundled real data, predictions follow the systems' formulas."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import arpad
from tests.conftest import REPO

DOC = REPO / "docs" / "api.md"
KAGGLE = Path("kaggle2010_elo_vs_rest") / "training_data.csv"


def doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_api_doc_examples_run(tmp_path, monkeypatch):
    """Every ```python block of docs/api.md, in order, in one namespace."""
    blocks = doc_blocks()
    assert len(blocks) >= 5
    os.symlink(REPO / "data", tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name} block {i + 1}", "exec"), namespace)


def test_import_arpad_is_cheap_and_lazy(tmp_path):
    """``import arpad`` loads neither the engine nor Prefect (subprocess: a clean interpreter)."""
    import subprocess
    import sys

    code = (
        "import sys, arpad; "
        "assert 'polars' not in sys.modules and 'prefect' not in sys.modules, sorted(sys.modules); "
        "assert callable(arpad.rate) and 'fide' in arpad.systems()"
    )
    # from an empty folder: beside the checkout a folder named "arpad" (a clone) would
    # be imported as a namespace package instead
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


def store_ratings(tmp_path, system, games_file, players_file=None, **ingest):
    store = arpad.Store(tmp_path / f"store-{system}")
    store.ingest(games_file, players_file, **ingest)
    store.rate(system)
    return store.ratings(system)


def assert_same_ratings(memory: pl.DataFrame, stored: pl.DataFrame) -> None:
    # run_id names the run that wrote a stored row: none in memory
    cols = [c for c in stored.columns if c in memory.columns and c != "run_id"]
    assert set(cols) >= {"period", "player_id", "rating_after", "status"}
    a = memory.select(cols).sort(["period", "player_id"])
    b = stored.select(cols).sort(["period", "player_id"])
    assert a.shape == b.shape
    for c in cols:
        assert a[c].cast(b[c].dtype).equals(b[c]), c


@pytest.mark.parametrize("system", ["elo", "glicko2"])
def test_in_memory_equals_store_path_on_kaggle(system, bundled_data, tmp_path):
    games = pl.read_csv(bundled_data / KAGGLE).filter(pl.col("Month #") <= 40)
    path = tmp_path / "kaggle-40.csv"
    games.write_csv(path)
    memory = arpad.rate(games, system=system, mapping="kaggle2010")
    assert_same_ratings(memory, store_ratings(tmp_path, system, path))


def test_in_memory_equals_store_path_on_deloitte_fide(bundled_data, tmp_path):
    folder = bundled_data / "deloitte_fide_2011"
    games = pl.read_csv(folder / "test_solution.csv")
    players = pl.read_csv(folder / "initial_ratings.csv")
    memory = arpad.rate(
        games, "fide", players, mapping="deloitte2011", errors="skip"
    )  # the contest's decoy rows are rejected, as at ingest
    stored = store_ratings(
        tmp_path, "fide", folder / "test_solution.csv", folder / "initial_ratings.csv"
    )
    assert memory.height > 10_000
    assert_same_ratings(memory, stored)


def test_rate_accepts_pandas_and_arrow_and_rejects_other_types():
    frame = pl.DataFrame(
        {"period": [1, 1, 2], "white_id": ["a", "b", "a"], "black_id": ["b", "c", "c"],
         "score": [1.0, 0.5, 0.0]}
    )  # fmt: skip
    want = arpad.rate(frame, system="elo")
    assert arpad.rate(frame.to_arrow(), system="elo").equals(want)
    assert arpad.rate(frame.to_pandas(), system="elo").equals(want)  # pandas: a test extra


def test_rate_bad_arguments_are_clear_errors():
    frame = pl.DataFrame({"period": [1], "white_id": ["a"], "black_id": ["b"], "score": [1.0]})
    with pytest.raises(ValueError, match="unknown rating system 'nope'"):
        arpad.rate(frame, system="nope")
    with pytest.raises(ValueError, match="unknown rule field 'kay'"):
        arpad.rate(frame, system="elo", kay=3)
    with pytest.raises(TypeError, match="expected a polars or pandas DataFrame"):
        arpad.rate([1, 2, 3], system="elo")
    with pytest.raises(arpad.InputError, match="missing required column"):
        arpad.rate(pl.DataFrame({"white_id": ["a"]}), system="elo")


def test_predict_uses_each_systems_expected_score():
    ratings = pl.DataFrame(
        {
            "player_id": ["a", "b", "c"],
            "rating": [2400.0, 2000.0, 1900.0],
            "rd": [50.0, 300.0, 80.0],
        }
    )
    pairs = pl.DataFrame({"white_id": ["a", "b", "a"], "black_id": ["b", "c", "x"]})
    elo = arpad.predict(ratings, pairs, system="elo")["expected"].to_list()
    # the logistic curve: 1 / (1 + 10^(-D/400))
    assert elo[0] == pytest.approx(1 / (1 + 10 ** (-400 / 400)))
    assert elo[1] == pytest.approx(1 / (1 + 10 ** (-100 / 400)))
    assert elo[2] is None
    # FIDE: table 8.1.2, a difference of 400 or more counts as 400 -> PD 0.92
    fide = arpad.predict(ratings, pairs, system="fide")["expected"].to_list()
    assert fide[0] == pytest.approx(0.92) and fide[1] == pytest.approx(0.64)
    # Glicko, a game between two rated players (Glickman, "expected outcome"):
    # E = 1 / (1 + 10^(-g(sqrt(RD_w^2 + RD_b^2)) D / 400)), g(RD) = 1/sqrt(1 + 3 q^2 RD^2 / pi^2)
    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q**2 * (50.0**2 + 300.0**2) / math.pi**2)
    glicko = arpad.predict(ratings, pairs, system="glicko")["expected"].to_list()
    assert glicko[0] == pytest.approx(1 / (1 + 10 ** (-g * 400 / 400)), rel=1e-9)
    # every system gives expected scores in (0, 1) that rise with the difference
    for system in arpad.systems():
        e = arpad.predict(ratings, pairs, system=system)["expected"].to_numpy()
        assert np.all((e[:2] >= 0) & (e[:2] <= 1)), system
    # Ingo: lower is better; 0.5 + (Black − White)/100 within ±40
    low = pl.DataFrame({"player_id": ["a", "b"], "rating": [100.0, 120.0]})
    ingo = arpad.predict(low, pl.DataFrame({"white_id": ["a"], "black_id": ["b"]}), "ingo")
    assert ingo["expected"][0] == pytest.approx(0.7)


def test_a_path_with_no_store_is_named_by_every_reading_call(tmp_path):
    """A mistyped store path: each reading call says there is no store there (as
    ``arpad`` commands do), rather than an empty table or a missing-ratings hint;
    nothing is created."""
    store = arpad.Store(tmp_path / "typo")
    calls = {
        "list": lambda: store.list("fide"),
        "history": lambda: store.history("x"),
        "card": lambda: store.card("x"),
        "audit": lambda: store.audit("x"),
        "era": lambda: store.era(),
        "sql": lambda: store.sql("SELECT 1"),
        "ratings": lambda: store.ratings(),
    }
    for name, call in calls.items():
        with pytest.raises(
            FileNotFoundError, match=r"no store at .*typo \(ingest something first\)"
        ):
            call()
        assert not (tmp_path / "typo").exists(), name
