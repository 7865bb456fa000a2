"""`make demo` run twice as README.md and docs/cli.md "arpad demo" describe it: the
second run skips the ingested files and recomputes the ratings, and says nothing of
quarantined decoys it did not quarantine (docs/cli.md "Documented examples, checked").
Run on the first rows of the bundled files, so it takes a few seconds. Also README.md's
Python example, verbatim."""

from __future__ import annotations

import math
import shutil

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.systems.glicko2 import Glicko2Rules


def _head(source, target, lines: int) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source, encoding="utf-8") as f:
        target.write_text("".join(f.readline() for _ in range(lines)), encoding="utf-8")


def test_demo_twice_on_the_bundled_files(bundled_data, tmp_path, capsys):
    data = tmp_path / "data"
    deloitte = bundled_data / "deloitte_fide_2011"
    _head(deloitte / "test_solution.csv", data / "deloitte_fide_2011" / "test_solution.csv", 61)
    shutil.copy(deloitte / "initial_ratings.csv", data / "deloitte_fide_2011")
    kaggle = bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv"
    _head(kaggle, data / "kaggle2010_elo_vs_rest" / "training_data.csv", 301)
    # the decoys among those 60 games: WhiteScore -1 (data/README.md)
    decoys = sum(
        line.split(",")[4] == "-1"
        for line in (data / "deloitte_fide_2011" / "test_solution.csv").read_text().splitlines()[1:]
    )
    assert decoys > 0
    argv = ["demo", "--no-flow", "--data", str(data), "--out", str(tmp_path / "demo")]

    assert main(argv) == 0
    first = capsys.readouterr().out
    assert f"60 rows read, {60 - decoys} games stored, {decoys} quarantined" in first
    assert "'Spurious' decoys" in first
    assert "Top 10, fide" in first and "Top 10, elo" in first

    assert main(argv) == 0
    second = capsys.readouterr().out
    assert second.count("skipped, identical content already ingested") == 3
    assert "quarantined" not in second  # nothing was quarantined by this run
    assert "elo/standard: rated" in second and "fide/standard: rated" in second
    # the lists are the first run's: the ratings recomputed from the same games
    assert (
        first[first.index("Top 10, fide") :].split("Outputs")[0]
        == (second[second.index("Top 10, fide") :].split("Outputs")[0])
    )


def test_the_readme_python_example_runs_as_written(monkeypatch):
    """README.md's ```python block, verbatim, from the root of a clone (its paths)."""
    import re
    from pathlib import Path

    import polars as pl

    root = Path(__file__).resolve().parents[1]
    blocks = re.findall(
        r"```python\n(.*?)```", (root / "README.md").read_text(encoding="utf-8"), re.S
    )
    assert len(blocks) == 1
    code = blocks[0]
    *body, last = code.strip().splitlines()
    namespace: dict = {}
    monkeypatch.chdir(root)
    exec("\n".join([*body, f"predicted = {last}"]), namespace)
    ratings, predicted = namespace["ratings"], namespace["predicted"]
    assert ratings["period"].n_unique() == 100  # the Kaggle 2010 months
    latest = ratings.sort("period").group_by("player_id").last()
    rating = dict(zip(latest["player_id"], latest["rating_after"], strict=True))
    rd = dict(zip(latest["player_id"], latest["rd_after"], strict=True))
    row = predicted.row(0, named=True)
    assert (row["white_rating"], row["black_rating"]) == (rating["73"], rating["1246"])
    # Glickman's expected score, written out: 1/(1 + 10^(-g(sqrt(RD_W^2 + RD_B^2))(W + a - B)/400))
    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q**2 * (rd["73"] ** 2 + rd["1246"] ** 2) / math.pi**2)
    advantage = Glicko2Rules().white_advantage
    diff = rating["73"] + advantage - rating["1246"]
    assert row["expected"] == pytest.approx(1 / (1 + 10 ** (-g * diff / 400)), abs=1e-12)
    assert isinstance(predicted, pl.DataFrame)
