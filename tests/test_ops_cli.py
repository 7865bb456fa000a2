"""``arpad recalculate`` on the command line, and progress output (terminal vs CI)."""

from __future__ import annotations

import shutil

from arpad.pipeline.cli import main
from arpad.pipeline.commands.core import Progress
from arpad.pipeline.store import Store


def test_recalculate_cli_prints_summary_and_is_quiet_in_ci(
    tmp_path, bundled_data, capsys, monkeypatch
):
    monkeypatch.setenv("CI", "1")
    inbox, store = tmp_path / "inbox", tmp_path / "store"
    inbox.mkdir()
    src = bundled_data / "kaggle2010_elo_vs_rest" / "cross_validation_dataset.csv"
    shutil.copy(src, inbox / src.name)
    args = ["recalculate", "--inbox", str(inbox), "--store", str(store), "--no-flow"]
    code = main([*args, "--mapping", "kaggle2010", "--systems", "elo"])
    out, err = capsys.readouterr()
    assert code == 0, err
    games = len(src.read_text().splitlines()) - 1
    assert f"**{games:,} games ingested**" in out
    assert "## elo/standard" in out and "Recomputed 5 periods from the first period" in out
    assert "games/s" not in err  # no progress line in CI logs
    assert Store(store).rating_periods("elo", "standard") == [96, 97, 98, 99, 100]
    # a second run finds nothing new
    assert main(args) == 0
    assert "nothing recomputed" in capsys.readouterr().out


def test_progress_on_a_terminal_shows_periods_and_games_per_second(capsys):
    progress = Progress("fide/standard", enabled=True)
    progress(1, 2, 1000)
    progress(2, 2, 500)
    err = capsys.readouterr().err
    assert "\rfide/standard: period 1/2, " in err and "\rfide/standard: period 2/2, " in err
    assert err.endswith(" games/s\n")
    quiet = Progress("fide/standard", enabled=False)
    quiet(1, 1, 10)
    assert capsys.readouterr().err == ""
