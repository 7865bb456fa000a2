"""Round 12: the monthly job checks a system's starting ratings per pool, as `arpad rate
--pool` does (docs/operations.md "A pool without starting ratings"). A register with
standard ratings only (SRtng) and a month with a rapid game: before, the job's check
looked for a rating of any pool, rated fide/rapid into an empty list and failed at
publishing (exit 2, "... has no rated player (... --set initial_rating=...)"), and no
list of any pool was published. Now fide/standard is rated and published, fide/rapid
is left unrated with its reason in the report, exit 0.

Numbers by hand (FIDE table 8.1.2): B 2300 beats A 2400 in standard, D 100: PD .64;
A (2400: K 10) -.64 x 10 = -6.4 -> -6 (2394); B (K 20) +.64 x 20 = 12.8 -> +13 (2313).
"""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.commands.ops import warn_missing_starting_ratings
from arpad.pipeline.store import Store
from tests.test_pool_seed_r11 import STD, ratings, store

RAPID_ONLY = "ID Number;Name;Fed;SRtng;RRtng;B-day\n1;A, Ann;HUN;2400;2200;1990\n2;B, Bob;HUN;2300;2000;1991\n"


def recalculate(root, inbox, *extra) -> int:
    inbox.mkdir(exist_ok=True)
    args = ["recalculate", "--store", str(root), "--inbox", str(inbox), "--no-flow"]
    return main([*args, "--systems", "fide", *extra])


def test_the_monthly_job_rates_the_seeded_pool_and_names_the_other(tmp_path, capsys):
    root = store(tmp_path, STD)
    capsys.readouterr()
    assert recalculate(root, tmp_path / "inbox") == 0
    out = capsys.readouterr().out
    assert "Not rated (no published starting ratings of the pool):" in out
    assert (
        "- fide/rapid: fide needs published starting ratings for pool rapid and neither "
        "the players table nor the games give any rapid rating" in out
    )
    assert "## fide/standard" in out
    assert ratings(root, "standard") == {"1": (2400.0, 2394.0), "2": (2300.0, 2313.0)}
    assert Store(root).rating_periods("fide", "rapid") == []
    exports = root / "exports" / "system=fide"
    assert (exports / "pool=standard" / "list-202501.csv").is_file()
    assert not (exports / "pool=rapid").exists()


def test_rapid_ratings_arriving_later_start_the_rapid_pool(tmp_path, capsys):
    root = store(tmp_path, STD)
    inbox = tmp_path / "inbox"
    assert recalculate(root, inbox) == 0
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(RAPID_ONLY)
    capsys.readouterr()
    assert recalculate(root, inbox) == 0
    assert "Not rated" not in capsys.readouterr().out
    # rapid, K 20: A 2200 beats B 2000, D 200: PD .76; A +.24 x 20 = 4.8 -> +5
    assert ratings(root, "rapid") == {"1": (2200.0, 2205.0), "2": (2000.0, 1995.0)}


def test_a_system_with_no_starting_rating_at_all_still_fails_the_run(tmp_path, capsys):
    root = store(tmp_path, "ID Number;Name;Fed;B-day\n1;A, Ann;HUN;1990\n2;B, Bob;HUN;1991\n")
    capsys.readouterr()
    assert recalculate(root, tmp_path / "inbox") == 2
    err = capsys.readouterr().err
    assert "fide needs published starting ratings and neither the players table" in err
    assert Store(root).rating_periods("fide", "standard") == []


def test_deploy_warns_of_the_pool_the_runs_leave_unrated(tmp_path, capsys):
    root = store(tmp_path, STD)
    capsys.readouterr()
    warn_missing_starting_ratings(Store(root), ["fide"], tmp_path / "inbox")
    err = capsys.readouterr().err
    assert err.startswith(
        "arpad: warning: fide has no published starting rating of pool rapid: the "
        "scheduled runs leave fide/rapid unrated"
    )
    assert "pool standard" not in err
