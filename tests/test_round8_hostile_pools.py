"""A pool left with no games (its only source ingested again with ``--pool standard``, or
corrected to a header-only file): its ratings are removed by ``arpad rate`` of that pool,
``reconstruct`` and the monthly job, frozen lists stay, ``arpad check`` notes them until
then, and ``Store.pools()`` no longer lists the pool (docs/store.md "A pool left with no
games"; hostile round 8, defect 1: IndexError in ``jobs.check_pool`` and a monthly job
that refused for ever)."""

from __future__ import annotations

import shutil

import pytest

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REMOVED = (
    "elo/blitz: skipped: pool blitz holds no games now; its ratings of 1 period(s) "
    "(202005) were removed (published lists stay)"
)


def _moved(tmp_path, shared_data) -> tuple[str, str]:
    """A store whose blitz TRF (pool guessed from '5 Plus 0') was rated with elo, its
    list of 202005 frozen, then the file ingested again with --pool standard."""
    trf = tmp_path / "sw.trf"
    shutil.copy(shared_data / "trf" / "lichess_swiss_2020-05-29.trf", trf)
    s = str(tmp_path / "S")
    assert main(["ingest", str(trf), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "elo", "--pool", "blitz", "--store", s, "--no-flow"]) == 0
    assert main(["publish", "--system", "elo", "--pool", "blitz", "--store", s]) == 0
    assert main(["ingest", str(trf), "--pool", "standard", "--store", s, "--no-flow"]) == 0
    return s, str(trf)


def test_rate_of_a_pool_left_with_no_games_removes_its_ratings(tmp_path, shared_data, capsys):
    s, _ = _moved(tmp_path, shared_data)
    store = Store(s)
    assert store.pools() == ["standard"]  # the empty pool=blitz folder is no pool
    capsys.readouterr()
    # until rated again, check notes the stale ratings (exit 0: not damage)
    assert main(["check", "--store", s]) == 0
    out = capsys.readouterr().out
    assert "note: ratings/system=elo/pool=blitz: 1 period(s) of ratings of pool blitz" in out
    assert "no damage found; 1 rated pool(s) without games noted above" in out
    # rate: exit 0, one line (it was an IndexError, exit 1)
    assert main(["rate", "--system", "elo", "--pool", "blitz", "--store", s, "--no-flow"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == REMOVED and "Traceback" not in captured.err
    assert store.rating_periods("elo", "blitz") == [] and store.state_periods("elo", "blitz") == []
    assert store.published_periods("elo", "blitz") == [202005]  # frozen: history, kept
    assert main(["check", "--store", s]) == 0
    assert capsys.readouterr().out.strip() == f"{s}: no problem found"
    # again: nothing left to remove, bad input in one line
    assert main(["rate", "--system", "elo", "--pool", "blitz", "--store", s, "--no-flow"]) == 2
    err = capsys.readouterr().err
    assert "no games stored in pool 'blitz' (pools in the store: standard)" in err
    assert "Traceback" not in err


def test_reconstruct_and_recalculate_remove_them_instead_of_failing(tmp_path, shared_data, capsys):
    s, _ = _moved(tmp_path, shared_data)
    saved = tmp_path / "saved"
    shutil.copytree(s, saved)
    capsys.readouterr()
    assert main(["reconstruct", "--systems", "elo", "--store", s, "--no-flow"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == REMOVED
    assert out[1].startswith("elo/standard: rated 1 period (202005..202005), 56 games")
    assert Store(s).rated() == [("elo", "standard")]

    # the monthly job: it refused ("ratings … out of date; run arpad rate … first")
    shutil.rmtree(s)
    shutil.copytree(saved, s)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert main(["recalculate", "--inbox", str(inbox), "--store", s, "--no-flow"]) == 0
    assert Store(s).rated() == [("elo", "standard")]
    assert Store(s).published_periods("elo", "blitz") == [202005]
    # the monthly report names the removal (it was only a log line)
    summary = jobs.recalculate(jobs.RecalculateRequest(s, str(inbox)))
    assert summary.removed == []  # nothing left to remove on the second run
    shutil.rmtree(s)
    shutil.copytree(saved, s)
    summary = jobs.recalculate(jobs.RecalculateRequest(s, str(inbox)))
    assert summary.removed == [f"elo/blitz: {REMOVED.split(': skipped: ', 1)[1]}"]
    text = monthly.markdown(summary)
    assert (
        "Ratings removed (their pool holds no games now; published lists stay):\n\n"
        f"- elo/blitz: {REMOVED.split(': skipped: ', 1)[1]}\n"
    ) in text


def test_the_frozen_list_stays_in_force_after_its_ratings_are_removed(
    tmp_path, shared_data, capsys
):
    # `list --in-force` said "no ratings for system elo pool blitz; run arpad rate first"
    # once the pool's ratings were removed, though the frozen list is history that stays.
    s, _ = _moved(tmp_path, shared_data)
    assert main(["rate", "--system", "elo", "--pool", "blitz", "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    argv = ["list", "--system", "elo", "--pool", "blitz", "--in-force", "2020-06"]
    assert main([*argv, "--format", "csv", "--store", s]) == 0
    captured = capsys.readouterr()
    rows = captured.out.splitlines()
    assert rows[0].startswith("rank,player_id,name,") and len(rows) == 1 + 13
    assert rows[1].startswith("1,sw.trf#1,mattderkuerschner,")
    assert (
        "arpad: note: this is the elo/blitz list of period 202005 as published (frozen); the "
        "store no longer holds its ratings (pool blitz holds no games of that period now)"
    ) in captured.err
    # the current list has no ratings: refused as before, in one line
    assert main(["list", "--system", "elo", "--pool", "blitz", "--store", s]) == 2
    assert "no ratings for system elo pool blitz" in capsys.readouterr().err


def test_a_source_corrected_to_its_header_leaves_no_ratings_and_no_crash(tmp_path, capsys):
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2025-05-06,a,b,1-0\n")
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow"]) == 0
    games.write_text("date,white_id,black_id,result\n")  # a correction: no game now
    assert main(["ingest", str(games), "--store", s, "--no-flow"]) == 0
    assert Store(s).pools() == []
    capsys.readouterr()
    assert main(["rate", "--system", "elo", "--full", "--store", s, "--no-flow"]) == 0
    assert capsys.readouterr().out.strip() == (
        "elo/standard: skipped: pool standard holds no games now; its ratings of 1 "
        "period(s) (202505) were removed (published lists stay)"
    )
    for argv in (["rate", "--system", "fide"], ["rate", "--system", "elo"], ["reconstruct"]):
        assert main([*argv, "--store", s, "--no-flow"]) == 2
        err = capsys.readouterr().err
        assert "no games stored in pool 'standard' (pools in the store: none)" in err
        assert "Traceback" not in err


def test_the_api_reconstruct_removes_them_on_a_store_with_no_games_left(tmp_path):
    # Store.reconstruct refused such a store before the job could remove the stale
    # ratings (its "no games stored" pre-check); the CLI's reconstruct removed them.
    import arpad

    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2025-05-06,a,b,1-0\n")
    store = arpad.Store(tmp_path / "S")
    store.ingest(games)
    store.rate("elo")
    games.write_text("date,white_id,black_id,result\n")  # corrected: no game now
    store.ingest(games)
    summaries = store.reconstruct(["elo"])
    assert [(s.system, s.pool, s.skipped) for s in summaries] == [
        (
            "elo",
            "standard",
            "pool standard holds no games now; its ratings of 1 period(s) (202505) were "
            "removed (published lists stay)",
        )
    ]
    assert Store(str(tmp_path / "S")).rating_periods("elo", "standard") == []
    # nothing left to remove: refused in one line, as rate refuses it
    with pytest.raises(ValueError, match="no games stored in pool 'standard'"):
        store.reconstruct(["elo"])
