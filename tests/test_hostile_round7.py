"""Round 7, hostile input and a hurried user (docs/cli.md "Output files", docs/operations.md
"The monthly recalculation", docs/cli.md on names):

#2 an ``--output`` where no file can be created (/proc: not even root can) named a
   temporary file never typed (``[Errno 2] … '/proc/.x.csv.dif1ed6i.tmp'``); now the
   path given, and that the store is as before;
#3 every ``recalculate`` report repeated one "Not frozen" line per month passed over
   when the first list was frozen (89 lines on every run); now one line per
   system/pool with the count and the range;
minor: a name that only matches a player (an abbreviation, a surname alone) said "is
   the name of"; now "matches ID (NAME)", and the exact name keeps its wording."""

from __future__ import annotations

import sys

import pytest

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from tests.conftest import write_csv

PLAYERS = ['X1,"Zukertort, J."', 'X2,"Steinitz, William"']
# one game a month, January to June 2024: six finished months
GAMES = [f"2024-{m:02d}-10,X1,X2,{r}" for m, r in zip(range(1, 7), ["1-0", "0-1"] * 3)]


def run(*args: str) -> int:
    return main([*args, "--no-flow"] if args[0] in ("ingest", "rate") else list(args))


@pytest.fixture
def store(tmp_path, capsys) -> str:
    root = str(tmp_path / "S")
    write_csv(tmp_path / "p.csv", "player_id,name", PLAYERS)
    write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", GAMES)
    assert (
        run(
            "ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv"), "--store", root
        )
        == 0
    )
    assert run("rate", "--system", "elo", "--store", root) == 0
    capsys.readouterr()
    return root


# -- #2 an output that cannot be created ---------------------------------------------------
CANNOT_CREATE = "cannot be created in /proc: No such file or directory"
# Was "arpad: error: [Errno 2] No such file or directory: '/proc/a'" (docs/cli.md
# "Output files").
FOLDER_CANNOT = "its folder /proc/a cannot be created: No such file or directory"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.parametrize(
    "argv, problem",
    [
        (["list", "--system", "elo", "--format", "csv", "--output", "/proc/x.csv"], CANNOT_CREATE),
        (["sql", "select 1 AS one", "--output", "/proc/x.parquet"], CANNOT_CREATE),  # (Parquet)
        (["plot", "history", "X1", "--system", "elo", "--output", "/proc/x.png"], CANNOT_CREATE),
        (["players", "identify", "--output", "/proc/x.csv"], CANNOT_CREATE),
        (
            ["list", "--system", "elo", "--format", "csv", "--output", "/proc/a/x.csv"],
            FOLDER_CANNOT,
        ),
        (["sql", "select 1 AS one", "--output", "/proc/a/x.parquet"], FOLDER_CANNOT),
    ],
)
def test_an_output_that_cannot_be_created_names_the_path_given(store, capsys, argv, problem):
    given = argv[-1]
    assert run(*argv, "--store", store) == 2
    err = capsys.readouterr().err
    assert err == f"arpad: error: {given}: {problem} (the store is as before)\n"
    assert ".tmp" not in err


# -- #3 months passed over: one line ---------------------------------------------------------
def test_months_passed_over_are_one_not_frozen_line(store, tmp_path, capsys):
    assert run("publish", "--system", "elo", "--store", store) == 0  # June only
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for _ in range(2):  # every run, an empty inbox too: one line, not five
        summary = jobs.recalculate(jobs.RecalculateRequest(store, str(inbox), ["elo"]))
        assert summary.published["elo/standard"]["passed"] == [
            [p, 202406] for p in range(202401, 202406)
        ]
        lines = [s for s in monthly.markdown(summary).splitlines() if s.startswith("Not frozen")]
        assert lines == [
            "Not frozen: 5 lists elo/standard periods 202401-202405: the later period 202406 "
            "is already frozen, and lists are frozen in order (docs/lists.md)."
        ]
    # (a single month keeps its wording: tests/test_monthly_round5.py)


# -- minor: "matches", not "is the name of" ------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "how", "pid"),
    [
        ("Zukertort, Jan; DROP TABLE games", "matches X1 (Zukertort, J.)", "X1"),
        ("Zukertort, Jan Hermann", "matches X1 (Zukertort, J.)", "X1"),  # "J." abbreviates Jan
        ("Steinitz", "matches X2 (Steinitz, William)", "X2"),  # a surname alone
        ("zukertort, j.", "is the name of X1", "X1"),  # the name, in any case
        (" Steinitz, William ", "is the name of X2", "X2"),
    ],
)
def test_a_loose_match_says_matches_with_the_name(store, capsys, typed, how, pid):
    assert run("history", typed, "--system", "elo", "--store", store) == 0
    assert capsys.readouterr().err == f"arpad: note: {typed} {how}; showing {pid}\n"
