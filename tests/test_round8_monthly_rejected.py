"""A run that rejects an inbox file freezes no list (ops8, round 8, defect 3;
docs/operations.md step 4, docs/lists.md "Only finished months are frozen").

The run froze every finished month, also the one the rejected file was meant for: the
corrected file, sent later, was rated, but a frozen list is never revised, so that
month's list stayed without its games for good, and every later frozen list was a
"revised" one. Now such a run ingests, rates and exports as usual, exits 2, freezes
nothing and says so in one line; the next run, with the corrected file, freezes the
month with its games.
"""

from __future__ import annotations

import datetime as dt

import pytest

from arpad.pipeline import cli, publish
from arpad.pipeline.store import Store

GOOD = "date,white_id,black_id,result\n2026-11-05,A,B,1-0\n2026-11-06,B,A,1/2\n"
# the same columns under names no reader knows: the file cannot be read at all
BAD = "when,who,whom,score\n2026-11-20,C,D,1-0\n"
FIXED = "date,white_id,black_id,result\n2026-11-20,C,D,1-0\n"
LINE = (
    "Not frozen: inbox file `late.csv` was rejected (now in `INBOX/rejected/`); fix it, "
    "put it back in the inbox and run again: nothing is frozen until the inbox is clean, "
    "a run that rejects a file freezes no list (waiting: elo/standard period 202611; "
    "docs/operations.md)."
)


@pytest.fixture
def day(monkeypatch):
    # 4 December 2026: November is a finished month (publish.in_progress)
    monkeypatch.setattr(publish, "today", lambda: dt.date(2026, 12, 4))


def run(store, inbox) -> int:
    args = ["recalculate", "--store", str(store), "--inbox", str(inbox), "--systems", "elo"]
    return cli.main([*args, "--no-flow"])


def test_a_rejected_file_freezes_nothing_until_it_is_fixed(tmp_path, capsys, day):
    store, inbox = tmp_path / "store", tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "nov.csv").write_text(GOOD)
    (inbox / "late.csv").write_text(BAD)

    assert run(store, inbox) == 2
    out, err = capsys.readouterr()
    assert "late.csv: rejected: " in err
    assert LINE in out.splitlines()
    # rated and exported, but not frozen, and not called published or "already frozen"
    assert Store(store).published_periods("elo", "standard") == []
    export = "system=elo/pool=standard/list-202611.csv"
    assert (store / "exports" / export).is_file()
    published = out.split("Published lists:", 1)[1] if "Published lists:" in out else ""
    assert export not in published.split("\n\n", 1)[0]
    assert f"- `STORE/exports/{export}`" in out.split("Not frozen (an inbox file", 1)[1]
    assert "Frozen list" not in out and "Already frozen" not in out
    assert (inbox / "rejected" / "late.csv").is_file()

    # the corrected file back in the inbox: November is frozen with its games
    (inbox / "late.csv").write_text(FIXED)
    assert run(store, inbox) == 0
    out = capsys.readouterr().out
    assert "Frozen list elo/standard period 202611 (`STORE/published/`)." in out
    assert "Not frozen: inbox file" not in out
    assert Store(store).published_periods("elo", "standard") == [202611]
    frozen = (store / "published" / "system=elo" / "pool=standard").rglob("*.csv")
    text = "".join(p.read_text() for p in frozen)
    assert all(player in text for player in ("A", "B", "C", "D"))


def test_without_a_rejected_file_the_finished_month_is_frozen(tmp_path, capsys, day):
    # the rule is the rejection's, not the run's: a clean inbox freezes as before
    store, inbox = tmp_path / "store", tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "nov.csv").write_text(GOOD)
    assert run(store, inbox) == 0
    out = capsys.readouterr().out
    assert "Frozen list elo/standard period 202611 (`STORE/published/`)." in out
    assert "Not frozen: inbox file" not in out
