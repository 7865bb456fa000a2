"""``arpad rate --from P`` while an earlier period is stale (a late result ingested after
it was rated): the run keeps P and says so, where it rated P from the stale period's
state without a word (the officer's fourth attack; docs/runners.md "--from after a
correction")."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import arpad
from arpad.pipeline import incremental
from arpad.pipeline.cli import main
from arpad.pipeline.jobs import StaleStartWarning
from arpad.pipeline.store import Store

PLAYERS = "player_id,rating,rated_games\n" + "".join(f"P{p},{2000 + 50 * p},40\n" for p in range(6))
# Three games a month among six rated players, January to March 2024.
GAMES = "game_id,date,white_id,black_id,result\n" + "".join(
    f"{month}-{i},2024-{month:02d}-{10 + i},P{w},P{b},{res}\n"
    for month in (1, 2, 3)
    for i, (w, b, res) in enumerate([(0, 1, "1-0"), (2, 3, "1/2-1/2"), (4, 5, "0-1")])
)


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def rated_store(tmp_path: Path, late_date: str | None) -> Path:
    """A store rated by FIDE over 202401..202403 in one run (checkpoints at 202401 and
    202403, its first and last period), then a late game on ``late_date`` ingested."""
    root = tmp_path / "store"
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text(GAMES)
    assert run("ingest", "--store", str(root), "--players", str(tmp_path / "players.csv"),
               str(tmp_path / "games.csv")) == 0  # fmt: skip
    assert run("rate", "--store", str(root), "--system", "fide") == 0
    assert Store(root).state_periods("fide", "standard") == [202401, 202403]
    if late_date is not None:
        late = tmp_path / "late.csv"
        late.write_text(f"game_id,date,white_id,black_id,result\nlate-1,{late_date},P1,P0,1-0\n")
        assert run("ingest", "--store", str(root), str(late)) == 0
    return root


def ratings(root: Path, period: int) -> dict[str, float]:
    table = Store(root).read_ratings("fide", "standard", period).to_pylist()
    return {r["player_id"]: r["rating_after"] for r in table}


def games(root: Path, period: int) -> dict[str, int]:
    table = Store(root).read_ratings("fide", "standard", period).to_pylist()
    return {r["player_id"]: r["games"] for r in table}


def note(stale: int, start: int, builds: bool) -> str:
    how = (
        f"the ratings from {start} on build on it"
        if builds
        else f"its ratings stay out of date (this run starts at {start})"
    )
    return (
        f"fide/standard: period {stale} is stale (games or players changed since it was "
        f"rated): {how}; run arpad rate --system fide --pool standard without --from, or "
        f"with --from {stale}"
    )


def test_from_after_a_stale_period_says_the_ratings_build_on_it(tmp_path, capsys):
    root = rated_store(tmp_path, "2024-01-28")  # late January: the 202401 checkpoint is stale
    march_before = ratings(root, 202403)
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202403") == 0
    out, err = capsys.readouterr()
    assert out.startswith("fide/standard: rated 1 period (202403..202403)")
    assert err == f"arpad: note: {note(202401, 202403, builds=True)}\n"
    # It does build on it: March rated from the January checkpoint without the late game
    # gives the ratings March had before the game came in.
    assert ratings(root, 202403) == march_before
    full = tmp_path / "full"
    shutil.copytree(root, full)
    assert run("rate", "--store", str(full), "--system", "fide", "--full") == 0
    assert ratings(full, 202403) != march_before  # (the late game moves P0 and P1)
    # The mark stays, so `arpad list` still says so later.
    assert incremental.read_stale(Store(root)) == {"fide/standard": 202401}
    capsys.readouterr()
    assert main(["list", "--store", str(root), "--period", "202403", "--format", "csv"]) == 0
    assert "(stale from period 202401)" in capsys.readouterr().err


def test_from_after_a_stale_period_replayed_from_an_earlier_checkpoint(tmp_path, capsys):
    root = rated_store(tmp_path, "2024-02-28")  # late February: no 202402 checkpoint
    march_before = ratings(root, 202403)
    full = tmp_path / "full"
    shutil.copytree(root, full)
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202403") == 0
    assert capsys.readouterr().err == f"arpad: note: {note(202402, 202403, builds=False)}\n"
    assert ratings(root, 202403) != march_before
    # The replay of February from the January checkpoint reads February's games as they
    # are now: March equals a full recompute's March (the naive reference), while
    # February's own ratings are the old ones (P1 has its one February game there, two
    # after the recompute).
    assert run("rate", "--store", str(full), "--system", "fide", "--full") == 0
    assert ratings(root, 202403) == ratings(full, 202403)
    assert games(root, 202402)["P1"] == 1 and games(full, 202402)["P1"] == 2
    assert incremental.read_stale(Store(root)) == {"fide/standard": 202402}


def test_no_note_without_an_earlier_stale_period(tmp_path, capsys):
    root = rated_store(tmp_path, None)
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202402") == 0
    assert capsys.readouterr().err == ""
    # Stale from the --from period itself: the run rates it again and clears the mark.
    (tmp_path / "late.csv").write_text(
        "game_id,date,white_id,black_id,result\nlate-1,2024-02-27,P1,P0,1-0\n"
    )
    assert run("ingest", "--store", str(root), str(tmp_path / "late.csv")) == 0
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202402") == 0
    assert capsys.readouterr().err == ""
    assert incremental.read_stale(Store(root)) == {}


def test_players_change_then_from_the_first_period_clears_the_mark(tmp_path, capsys):
    root = rated_store(tmp_path, None)
    (tmp_path / "players2.csv").write_text(PLAYERS.replace("P0,2000,", "P0,2010,"))
    assert run("ingest", "--store", str(root), "--players", str(tmp_path / "players2.csv")) == 0
    assert incremental.read_stale(Store(root)) == {"fide/standard": incremental.FROM_FIRST}
    capsys.readouterr()
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202402") == 0
    # Mark 0 (players changed): every checkpoint holds the old starting state.
    assert capsys.readouterr().err == f"arpad: note: {note(202401, 202402, builds=True)}\n"
    # --from the first period is a full run: it clears the mark (it stayed 0 before, and
    # `arpad list` called every period out of date for ever).
    assert run("rate", "--store", str(root), "--system", "fide", "--from", "202401") == 0
    assert capsys.readouterr().err == ""
    assert incremental.read_stale(Store(root)) == {}


def test_api_rate_with_start_warns_the_same(tmp_path):
    root = rated_store(tmp_path, "2024-01-28")
    with pytest.warns(StaleStartWarning) as caught:
        arpad.Store(root).rate("fide", start=202403)
    assert [str(w.message) for w in caught] == [note(202401, 202403, builds=True)]
    assert caught[0].filename == __file__  # it points at the caller's line
    with warnings.catch_warnings(record=True) as rest:
        warnings.simplefilter("always")
        arpad.Store(root).rate("fide", start=202401)  # from the stale period: no note
    assert [w for w in rest if issubclass(w.category, StaleStartWarning)] == []
    assert incremental.read_stale(Store(root)) == {}
