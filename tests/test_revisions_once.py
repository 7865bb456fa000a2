"""A frozen list's revision is reported in full once (docs/operations.md, the monthly
job, step 5 "Revisions"): by the run that recomputed its period; a later run that did
not recompute it gives one line (the officer's report, round 7, #5: after a merge of a
mistyped id the frozen November's revision was repeated in full in every later report).
The mistyped-id note says the list this run froze has both ids and how to correct it."""

from __future__ import annotations

import datetime as dt

from arpad.pipeline import monthly
from arpad.pipeline.cli import main
from tests.conftest import write_csv
from tests.test_lists_attack import PLAYERS, PLAYERS_HEADER, month_run, pin_today
from tests.test_lists_attack2 import DECEMBER, OCTOBER, section

# Ozturk's November games under a mistyped id, 4600099 (his is 4600036)
NOVEMBER_MISTYPED = ["2026-11-03,4600010,4600099,1", "2026-11-17,4600099,4600028,1"]
TABLE_HEADER = "| player | name | published | revised | change | games +/-/~ |"


def revision_lines(report: str) -> list[str]:
    return [line for line in report.splitlines() if line.startswith("Revisions of")]


def test_a_frozen_lists_revision_is_in_full_once_then_one_line(tmp_path, monkeypatch):
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", PLAYERS_HEADER, PLAYERS)
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER})

    # 1 December: the new id with Ozturk's name, then November's games: November is frozen
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    write_csv(inbox / "players" / "nov-players.csv", "player_id,name", ['4600099,"Ozturk, Mehmet"'])
    run = month_run(root, inbox, {"nov.csv": NOVEMBER_MISTYPED})
    assert run.published["fide/standard"]["frozen"] == [202611]
    notes = section(monthly.markdown(run), "Notes on nov-players.csv:")
    assert "arpad players merge 4600036 4600099" in notes[0]
    assert notes[1] == (
        "- This run froze fide/standard period 202611: if the ids above are one player, the "
        "list has them as two players, and a frozen list is never revised or published again "
        "(docs/lists.md). To correct it, merge them (`arpad players merge KEEP DUPLICATE`, as "
        "the note says); the next `arpad recalculate` recomputes, lists the frozen list's "
        'revision in full once ("Revisions of the published list …"), exports the current '
        "ratings as its revised list, and every list frozen from then on has one id."
    )

    # the officer merges; the next run recomputes November: its revision in full
    assert main(["players", "merge", "4600036", "4600099", "--store", str(root)]) == 0
    pin_today(monkeypatch, dt.date(2026, 12, 2))
    run = month_run(root, inbox, {})
    report = monthly.markdown(run)
    assert [line.split(":")[0] for line in revision_lines(report)] == [
        "Revisions of the published fide/standard list of period 202611"
    ]
    assert TABLE_HEADER in report.splitlines()
    # Ozturk's November games now count (under the new id, unrated, they were not rated)
    assert "| 4600036 | Ozturk, Mehmet | 2272 | 2270 | -2 | +0/-0/~0 |" in report.splitlines()

    # a later run (December's games: it recomputes December only) gives one line
    pin_today(monkeypatch, dt.date(2026, 12, 3))
    run = month_run(root, inbox, {"dec.csv": DECEMBER})
    frozen = run.published["fide/standard"]
    assert frozen["previous"] == 202611 and frozen["changed"] > 0  # it still differs
    report = monthly.markdown(run)
    assert TABLE_HEADER not in report.splitlines()
    assert not [line for line in report.splitlines() if line.endswith("+0/-0/~0 |")]  # no row
    export = "`STORE/exports/system=fide/pool=standard/list-202611.csv`"
    assert revision_lines(report) == [
        "Revisions of the published fide/standard list of period 202611: unchanged by this run (it did not "
        f"recompute the period): {frozen['changed']} player(s) changed by 1 ingest(s) or "
        f"merge(s) since publication, the latest recorded {frozen['latest']}; the report of "
        "the run that recomputed it (and `arpad diff --published 202611`) lists them. A "
        "frozen list is never published again (docs/lists.md): the current ratings are "
        f"{export}, and every list frozen from now on includes them."
    ]
    assert frozen["latest"] == dt.datetime.now(dt.timezone.utc).date().isoformat()  # the merge
