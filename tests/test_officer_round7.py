"""The federation rating officer's attack, round 7 (items 2, 3 and 4):

3. the monthly report's "Biggest movers" table shows the ratings and changes of a
   system whose lists have one decimal (Elo, Glicko-2) with that decimal, as its lists
   and the report's revisions do: Elo's 1490 -> 1537.5 is ``+47.5``, where it showed
   "1490 | 1537 | +47" (docs/operations.md step 5);
4. the report's ``Rules:`` line names no command: on a store only the monthly job has
   rated, it said "kept from the last `arpad rate`" (docs/operations.md "The rules of
   the monthly job"); docs/lists.md's ``--date`` header example is the header printed;
   docs/cli.md's synopses of recalculate, serve and deploy name
   ``--ignore-stated-ratings``, which all three accept;
2. docs/operations.md no longer says a ``list.csv`` name beginning with ``=`` is
   written as given (docs/lists.md "Spreadsheet-safe CSV": an apostrophe is put first).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline import engine, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_lists_attack import pin_today

DOCS = Path(__file__).resolve().parent.parent / "docs"
GAMES = "date,white_id,black_id,result"
PLAYERS = ["1,Ames Ann", "2,Berg Bo", "3,Carl Cy", "4,Dahl Dag"]
OCTOBER = [
    "2026-10-03,1,2,1-0",
    "2026-10-03,3,4,1/2-1/2",
    "2026-10-10,1,3,1-0",
    "2026-10-10,2,4,0-1",
]
NOVEMBER = ["2026-11-07,1,4,0-1", "2026-11-07,2,3,1-0", "2026-11-14,4,2,1/2-1/2"]


def recalculate(root: Path, inbox: Path, capsys, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox), *extra]
    rc = main(argv)
    return rc, capsys.readouterr().out


def movers_table(out: str) -> dict[str, tuple[str, str, str]]:
    """player -> (before, after, change) as the report's movers table writes them."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Biggest movers"))
    rows = {}
    for line in lines[start + 4 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = (cells[2], cells[3], cells[4])
    return rows


@pytest.fixture
def elo_months(tmp_path, monkeypatch, capsys):
    """Two monthly runs on a new Elo store, as the officer runs them: October (the
    job rates the store first and records its rules), then November."""
    pin_today(monkeypatch, dt.date(2026, 12, 4))
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", "player_id,name", PLAYERS)
    write_csv(inbox / "oct.csv", GAMES, OCTOBER)
    rc, first = recalculate(root, inbox, capsys, "--systems", "elo")
    assert rc == 0, first
    write_csv(inbox / "nov.csv", GAMES, NOVEMBER)
    rc, second = recalculate(root, inbox, capsys)
    assert rc == 0, second
    return root, first, second


def test_biggest_movers_of_a_decimal_system_have_its_decimal(elo_months):
    root, _, out = elo_months
    lists = root / "exports" / "system=elo" / "pool=standard"
    schema = {"player_id": pl.String, "rating": pl.String}
    october, november = (
        dict(pl.read_csv(lists / f"list-{p}.csv", schema_overrides=schema).select("player_id", "rating").iter_rows())
        for p in (202610, 202611)
    )  # fmt: skip
    table = movers_table(out)
    assert "Biggest movers of period 202611:" in out
    assert set(table) == {"1", "2", "3", "4"}
    for player, (before, after, change) in table.items():
        # the lists' own text: one decimal (docs/lists.md), the change theirs
        assert (before, after) == (october[player], november[player])
        expected = float(november[player]) - float(october[player])
        assert change == f"{expected:+.1f}"
    # 1 lost to 4 (Elo K 20): a change with its decimal, never rounded to a whole
    assert all(re.fullmatch(r"[+-]\d+\.\d", change) for _, _, change in table.values())


def test_rules_line_names_no_command_the_officer_never_ran(elo_months):
    _, first, second = elo_months
    # first run: nothing recorded yet
    assert "Rules: `EloRules`, the system's own (no `arpad rate` rules recorded)." in first
    # second run: the rules the first run recorded, and `arpad rate` was never run
    assert "kept from the last rating of elo/standard (`no --rules or --set`)." in second
    assert "kept from the last `arpad rate`" not in second


def test_movers_of_a_whole_number_system_stay_whole_and_a_change_not_shown_is_none():
    """FIDE's list has whole numbers: 2400 -> 2412 is ``+12``; an Elo change that the
    list does not show (1500.04 -> 1500.02, both 1500.0) is no mover."""
    summary = monthly.RecalculateSummary(store="S")
    for system, movers in (
        ("fide", [(2400.0, 2412.0)]),
        ("elo", [(1490.0, 1537.5), (1500.04, 1500.02)]),
    ):
        summary.jobs.append(
            {"system": system, "pool": "standard", "from": None, "periods": 1, "games": 1}
        )
        summary.movers[f"{system}/standard"] = [
            {"period": 202611, "player_id": f"P{i}", "name": "", "rating_before": b,
             "rating_after": a, "change": a - b, "games": 1}
            for i, (b, a) in enumerate(movers)
        ]  # fmt: skip
    text = monthly.markdown(summary)
    assert "| P0 |  | 2400 | 2412 | +12 | 1 |" in text
    assert "| P0 |  | 1490.0 | 1537.5 | +47.5 | 1 |" in text
    assert "| P1 |" not in text


def _synopsis(command: str, text: str) -> str:
    """The synopsis lines of ``arpad COMMAND`` in docs/cli.md's code block."""
    block = text.split("## arpad recalculate / arpad serve / arpad deploy", 1)[1]
    block = block.split("```", 2)[1]
    parts = re.split(r"^(?=arpad )", block, flags=re.M)
    return next(p for p in parts if p.startswith(f"arpad {command} "))


@pytest.mark.parametrize("command", ["recalculate", "serve", "deploy"])
def test_cli_synopses_name_ignore_stated_ratings(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--ignore-stated-ratings" in capsys.readouterr().out
    assert "[--ignore-stated-ratings]" in _synopsis(command, (DOCS / "cli.md").read_text())


def test_the_date_header_example_is_the_header_printed(tmp_path, capsys):
    """docs/lists.md "A list on a date": the 1886 example's header, as printed."""
    from tests.test_views import GAMES as HISTORY
    from tests.test_views import PLAYERS as HISTORIANS

    players = write_csv(tmp_path / "players.csv", "player_id,name,federation", HISTORIANS)
    games = write_csv(tmp_path / "games.csv", GAMES, HISTORY)
    store = Store(tmp_path / "store")
    ingest_files(store, [games], players=[players])
    engine.rate(store, "elo")
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--store", str(store.root), "--date", "1886-03"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("(latest rated at or before it; in force from 1886-04-01): 4 players")
    section = (DOCS / "lists.md").read_text().split("## A list on a date", 1)[1]
    assert f"`{header}`" in " ".join(section.split())


def test_operations_md_says_list_csv_names_get_an_apostrophe():
    text = (DOCS / "operations.md").read_text()
    (row,) = [line for line in text.splitlines() if line.startswith("| a name beginning with `=`")]
    assert "open `list.xml` or `list.txt` in a spreadsheet instead" not in row
    assert "apostrophe" in row and "Spreadsheet-safe CSV" in row
