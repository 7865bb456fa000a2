"""The officer's attack, round 9, defect 3: a monthly run stopped with Ctrl-C after it
moved its files to ``INBOX/processed/`` and recomputed, then run again as the interrupt
message says, lost its report: the re-run said "nothing recomputed" and "the report of
the run that recomputed it … lists them", a report never written, so the revision tables
and "Revisions not carried forward" were nowhere.

Each step that changes the store now records its part under
``STORE/manifest/unreported/`` until the report (pipeline/monthly.py
``note_unreported``); the next run reports it ("Not reported before: an interrupted run
(started …)"), the revisions of the periods it recomputed in full, and removes the
record (docs/operations.md "A run stopped before its report"). The interruption is a
``KeyboardInterrupt`` raised in-process from a step, as Ctrl-C raises it there.
"""

from __future__ import annotations

import datetime as dt
import shutil

import pytest

from arpad.pipeline import monthly
from arpad.pipeline.cli import main
from tests.test_lists_attack import pin_today
from tests.test_round8_stated_revised import (
    HEADING,
    REGISTER,
    SEPTEMBER,
    SEPTEMBER_CORRECTED,
    A,
    B,
    C,
    D,
    trf,
)

STOPPED = "Not reported before: an interrupted run (started "
# the stopped run's row of m1.csv in the files table
CORRECTED = (
    "| m1.csv | games | 2 | 0 | processed (corrects m1.csv: 2 games removed, 2 added, 0 changed) |"
)


def recalculate(root, inbox, capsys, *options: str) -> tuple[int, str]:
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    rc = main([*argv, "--systems", "fide", *options])
    return rc, capsys.readouterr().out


@pytest.fixture(scope="module")
def november(tmp_path_factory):
    """tests/test_round8_stated_revised.py's store on 1 November: September (two draws)
    and October (m2.trf, stating the frozen September list) rated and frozen."""
    base = tmp_path_factory.mktemp("november")
    root, inbox = base / "S", base / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    (inbox / "m1.csv").write_text(SEPTEMBER)
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    with pytest.MonkeyPatch.context() as mp:
        pin_today(mp, dt.date(2026, 10, 1))
        assert main([*argv, "--systems", "fide"]) == 0
        (inbox / "m2.trf").write_text(trf("Autumn Cup", "2026/10/14", (*C, 2097), (*D, 2003), "1"))
        pin_today(mp, dt.date(2026, 11, 1))
        assert main([*argv, "--systems", "fide"]) == 0
    return root, inbox


def december(november, tmp_path, name: str):
    """A copy of the November store, its inbox holding December's delivery: September
    corrected (both games won by White) and m3.trf (stating the frozen October list)."""
    root, inbox = tmp_path / name / "S", tmp_path / name / "inbox"
    shutil.copytree(november[0], root)
    shutil.copytree(november[1], inbox)
    (inbox / "m1.csv").write_text(SEPTEMBER_CORRECTED)
    (inbox / "m3.trf").write_text(trf("Winter Cup", "2026/11/12", (*A, 1997), (*B, 1903), "="))
    return root, inbox


def stop_at(monkeypatch, step: str, after: int = 0) -> None:
    """Ctrl-C in the monthly step ``step`` (its ``after``+1-th call), as the terminal's
    SIGINT raises it in the process."""
    real, calls = getattr(monthly, step), []

    def interrupted(*args):
        calls.append(args)
        if len(calls) > after:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(monthly, step, interrupted)


def waiting(inbox) -> list[str]:
    return sorted(p.name for p in inbox.iterdir() if p.is_file())


def tables(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("| ")]


def test_a_run_stopped_after_recomputing_is_reported_by_the_next(
    november, tmp_path, monkeypatch, capsys
):
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    # The run not stopped: its report (as tests/test_round8_stated_revised.py has it).
    root, inbox = december(november, tmp_path, "whole")
    rc, whole = recalculate(root, inbox, capsys)
    assert rc == 0 and f"{HEADING}: 4 player(s)" in whole

    # Stopped after the files moved and September-November were recomputed (the stale
    # marks cleared), in the publish step: what the officer's Ctrl-C at 0.9 s did.
    root, inbox = december(november, tmp_path, "stopped")
    with monkeypatch.context() as mp:
        stop_at(mp, "publish")
        assert recalculate(root, inbox, capsys)[0] == 130
    assert waiting(inbox) == []  # both moved to INBOX/processed/
    assert (root / "manifest" / "unreported").is_dir()

    # Run again, as the interrupt message says: nothing to recompute, and the report
    # gives the stopped run's files and, in full, the revisions of what it recomputed.
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    said = next(line for line in out.splitlines() if line.startswith(STOPPED))
    assert (
        "took 2 file(s) from the inbox and recomputed fide/standard from the first period" in said
    )
    assert "Nothing else to recompute: every system and pool was up to date." in out
    assert "Recomputed from the first period by an interrupted run (started " in out
    assert "unchanged by this run" not in out  # (the one-line form of a revision)
    # The same tables as the run not stopped: files, movers, revisions, not carried forward
    assert tables(out) == tables(whole)
    # ... with the numbers of tests/test_round8_stated_revised.py: revised September
    # (K 20, PD 0.64, 20 x 0.36 = 7.2 -> +7 instead of -3), and the four players whose
    # revised rating a later file's stated rating replaced.
    assert CORRECTED in out
    assert "| 1001 | Alfa, Anna | 1997 | 2007 | +10 | +0/-0/~1 |" in out
    assert "| 1003 | Cseh, Csaba | 2097 | 2107 | +10 | +0/-0/~1 |" in out
    assert f"{HEADING}: 4 player(s)" in out
    assert "| 1003 | Cseh, Csaba | 202609 | 2097 | 2107 | 2097 | 202610 | m2.trf |" in out
    assert "| 1002 | Bravo, Bela | 202610 | 1903 | 1893 | 1903 | 202611 | m3.trf |" in out
    assert not (root / "manifest" / "unreported").exists()

    # Reported once: the next run has nothing of it, and the revision is one line again.
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0 and STOPPED not in out and HEADING not in out
    assert "Every system and pool was up to date: nothing recomputed." in out
    assert "unchanged by this run (it did not recompute the period)" in out


def test_a_run_stopped_while_taking_files_is_reported_with_the_rerun(
    november, tmp_path, monkeypatch, capsys
):
    """Stopped as it moved the second file (ingested, not moved): the next run takes that
    file again (identical content), recomputes itself, and names the stopped run's files."""
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    root, inbox = december(november, tmp_path, "taking")
    with monkeypatch.context() as mp:
        stop_at(mp, "archive", after=1)
        assert recalculate(root, inbox, capsys)[0] == 130
    assert waiting(inbox) == ["m3.trf"]  # ingested, not moved
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    said = next(line for line in out.splitlines() if line.startswith(STOPPED))
    assert "took 2 file(s) from the inbox, and was stopped" in said  # (it recomputed nothing)
    # the stopped run's correction of m1.csv, and this run's m3.trf: already ingested
    assert CORRECTED in out
    assert any("m3.trf" in line and "identical content" in line for line in tables(out))
    assert "Recomputed 3 periods from the first period" in out  # (this run's own job)
    assert "| 1001 | Alfa, Anna | 1997 | 2007 | +10 | +0/-0/~1 |" in out
    assert f"{HEADING}: 4 player(s)" in out
    assert not (root / "manifest" / "unreported").exists()


def test_a_run_that_fails_leaves_no_record_and_a_damaged_one_is_named(
    november, tmp_path, monkeypatch, capsys
):
    """A run that fails (an OSError) is undone, its record too: the next run reports no
    stopped run. A record that cannot be read is named in the report and removed."""
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    root, inbox = december(november, tmp_path, "failed")

    def disk_trouble(*args):
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as mp:
        mp.setattr(monthly, "freeze", disk_trouble)
        assert recalculate(root, inbox, capsys)[0] != 0
    assert not (root / "manifest" / "unreported").exists()
    assert waiting(inbox) == ["m1.csv", "m3.trf"]  # moved back
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0 and STOPPED not in out and f"{HEADING}: 4 player(s)" in out

    record = root / "manifest" / "unreported" / "1-1-file.json"
    record.parent.mkdir()
    record.write_text("{not json")
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0 and STOPPED not in out
    line = next(line for line in out.splitlines() if line.startswith("Not read: "))
    assert "1-1-file.json" in line and "not valid JSON" in line and "it was removed" in line
    assert not record.parent.exists()
