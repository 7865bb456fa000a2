"""The officer's fifth attack on the monthly job, ``arpad recalculate`` (docs/operations.md
"The monthly recalculation", docs/lists.md "Lists are frozen in order"):

1. the ingest notes for the rating officer (a stated rating that differs from the
   published list in force) are in the report and on stderr, as ``arpad ingest`` prints
   them, and ``--ignore-stated-ratings`` is there, as on ``arpad ingest``;
2. every frozen month a correction changed is re-exported with the current ratings and
   reported under "Revised lists" and "Revisions", not only the latest; a correction
   undone by a later one brings the export back to the frozen list;
3. a late month before the frozen ones is named "Not frozen", with the reason;
4. the heading counts the games a correction changed, not the file's unchanged ones, and
   an unreadable file's kind is '-'."""

from __future__ import annotations

import datetime as dt
import hashlib

import polars as pl

from arpad.pipeline import monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_lists_attack import PLAYERS, PLAYERS_HEADER, month_run, pin_today
from tests.test_lists_attack2 import NOVEMBER, OCTOBER, section

BASE = "`STORE/exports/system=fide/pool=standard/list-"
STATED = "date,white_id,black_id,score,white_rating,black_rating"


def new_inbox(tmp_path, name: str):
    inbox = tmp_path / name / "inbox"
    (inbox / "players").mkdir(parents=True)
    write_csv(inbox / "players" / "players.csv", PLAYERS_HEADER, PLAYERS)
    return tmp_path / name / "S", inbox


def export_ratings(store: Store, period: int) -> dict[int, int]:
    path = store.export_dir("fide", "standard") / f"list-{period}.csv"
    return dict(pl.read_csv(path).select("player_id", "rating").iter_rows())


def published_hashes(store: Store) -> dict[str, str]:
    base = store.root / "published"
    return {
        str(p.relative_to(base)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(base.rglob("*"))
        if p.is_file()
    }


# -- 1. the officer's notes, --ignore-stated-ratings ------------------------------------------
def november_with_stated_ratings(tmp_path, monkeypatch, name: str, *options: str):
    """October frozen; then a November file stating Muller 2400 (his 202610 list: 2511)."""
    root, inbox = new_inbox(tmp_path, name)
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER})
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    write_csv(inbox / "nov.csv", STATED, ["2026-11-03,4600010,4600036,1,2400,"])
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    return root, main([*argv, "--systems", "fide", *options])


def test_recalculate_shows_the_notes_and_takes_ignore_stated_ratings(tmp_path, monkeypatch, capsys):
    capsys.readouterr()
    root, rc = november_with_stated_ratings(tmp_path, monkeypatch, "a")
    out, err = capsys.readouterr()
    assert rc == 0
    # October: Muller 2510 (K 10) beat Schafer 1850 (D 660, counted 400: expected 0.92):
    # 2510 + 10 x 0.08 = 2510.8, listed 2511 (docs/ingest.md "Two notes for the officer")
    note = (
        "note: 1 player(s) whose rating in the file differs from the published fide/standard "
        "list in force (202610; e.g. 4600010: 2400 here, 2511 on the list): the file's "
        "ratings replace the list's for its period (docs/observations.md); if the arbiter "
        "used an older list, correct the file"
    )
    assert section(out, "Notes on nov.csv:") == [f"- {note}"]
    lines = err.splitlines()  # as `arpad ingest` prints it, under the file
    assert lines[lines.index(f"{root.parent / 'inbox' / 'nov.csv'}:") + 1] == f"  {note}"
    # the file's rating replaces the list's: Muller starts November at 2400
    assert november_start(root) == 2400.0

    root, rc = november_with_stated_ratings(tmp_path, monkeypatch, "b", "--ignore-stated-ratings")
    out, err = capsys.readouterr()
    assert rc == 0
    assert "whose rating in the file differs" not in out + err
    # the stated rating is stored as null: Muller starts November at his 202610 list rating, 2511
    assert november_start(root) == 2511.0


def november_start(root) -> float:
    ratings = pl.from_arrow(Store(root).read_ratings("fide", "standard", 202611))
    row = ratings.filter(pl.col("player_id") == "4600010")
    return round(row["rating_before"].item(), 1)


# -- 2. every revised frozen month is re-exported and reported -------------------------------
OCTOBER_CORRECTED = ["2026-10-06,4600010,4600028,1", "2026-10-13,4600036,4600060,1"]


def test_every_frozen_month_a_correction_changed_is_revised(tmp_path, monkeypatch):
    root, inbox = new_inbox(tmp_path, "c")
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER, "nov.csv": NOVEMBER})
    store = Store(root)
    frozen = published_hashes(store)
    # the arbiter's correction: Ozturk beat Nowak on 13 October (the draw was a typo)
    run = month_run(root, inbox, {"oct.csv": OCTOBER_CORRECTED})
    assert run.published["fide/standard"]["revised"] == [202610, 202611]
    report = monthly.markdown(run)
    heading = (
        "Revised lists (the current ratings of a list an earlier run froze; they differ from "
        "the frozen list, `arpad diff --published`):"
    )
    assert section(report, heading) == [
        f"- {BASE}202610.csv`",
        f"- {BASE}202610.parquet`",
        f"- {BASE}202611.csv`",
        f"- {BASE}202611.parquet`",
    ]
    revisions = [line for line in report.splitlines() if line.startswith("Revisions of")]
    assert [line.split(":")[0] for line in revisions] == [
        "Revisions of the published fide/standard list of period 202610",
        "Revisions of the published fide/standard list of period 202611",
    ]
    # Ozturk (2280, K 20) against Nowak (1520; D 760 counted 400, expected 0.92):
    # frozen draw 2280 - 20 x 0.42 = 2271.6, listed 2272; the win 2280 + 20 x 0.08 =
    # 2281.6, listed 2282, on October's export, not only on November's
    assert "| 4600036 | Ozturk, Mehmet | 2272 | 2282 | +10 | +0/-0/~1 |" in report.splitlines()
    assert export_ratings(store, 202610)[4600036] == 2282
    assert published_hashes(store) == frozen  # the frozen lists stay byte for byte
    # The heading counts the one changed game, not the file's unchanged one.
    assert (
        "1 files taken from the inbox, **1 games ingested** (2 in the files read, 1 of them "
        "unchanged), **0 rows quarantined**."
    ) in report

    # the arbiter takes it back (the same games, in another order): October's export is
    # the frozen list again, and neither month is revised
    run = month_run(root, inbox, {"oct.csv": list(reversed(OCTOBER))})
    assert run.published["fide/standard"]["revised"] == []
    exports = store.export_dir("fide", "standard")
    for period in (202610, 202611):
        assert (exports / f"list-{period}.csv").read_bytes() == (
            store.published_partition("fide", "standard", period) / "list.csv"
        ).read_bytes()
    assert published_hashes(store) == frozen


# -- 3. a late month before the frozen ones ------------------------------------------------
def test_a_late_month_before_the_frozen_ones_says_why_it_is_not_frozen(tmp_path, monkeypatch):
    root, inbox = new_inbox(tmp_path, "d")
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    month_run(root, inbox, {"oct.csv": OCTOBER, "nov.csv": NOVEMBER})
    (inbox / "notes.txt").write_text("hello world\n")  # neither a games nor a players file
    run = month_run(root, inbox, {"sep.csv": ["2026-09-15,4600010,4600070,0"]})
    store = Store(root)
    assert store.rating_periods("fide", "standard") == [202609, 202610, 202611]  # rated
    assert store.published_periods("fide", "standard") == [202610, 202611]
    assert not (store.export_dir("fide", "standard") / "list-202609.csv").exists()
    assert run.published["fide/standard"]["passed"] == [[202609, 202610]]
    lines = monthly.markdown(run).splitlines()
    assert (
        "Not frozen: list fide/standard period 202609: the later period 202610 is already "
        "frozen, and lists are frozen in order (docs/lists.md)."
    ) in lines
    # the unreadable file: its kind is not known
    row = next(line for line in lines if line.startswith("| notes.txt |"))
    assert row.startswith("| notes.txt | - | 0 | 0 | rejected (")


def test_inbox_entries_not_read_are_named_and_left(tmp_path, capsys):
    # a FIFO, a symlink to nothing and a hidden file beside a real games file: the job
    # said "1 files taken" and nothing else (the hostile attack, round 5)
    import os

    from arpad.pipeline.cli import main as cli

    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "g.csv").write_text("white_id,black_id,result,date\nA,B,1-0,2024-01-02\n")
    os.mkfifo(inbox / "fifo.csv")
    (inbox / "dang.csv").symlink_to(tmp_path / "nothing")
    (inbox / ".hidden.csv").write_text("x\n")
    (inbox / "players" / ".DS_Store").write_text("x")
    args = ["recalculate", "--inbox", str(inbox), "--store", str(tmp_path / "S")]
    assert cli([*args, "--systems", "elo"]) == 0
    out, err = capsys.readouterr()
    assert "1 files taken from the inbox" in out
    i = out.splitlines().index("Not read, left in the inbox:")
    assert out.splitlines()[i + 2 : i + 6] == [
        "- `.hidden.csv`: a hidden name (starts with '.')",
        "- `dang.csv`: a symlink to nothing",
        "- `fifo.csv`: not a regular file (a FIFO, socket or device)",
        "- `players/.DS_Store`: a hidden name (starts with '.')",
    ]
    assert f"{inbox / 'fifo.csv'}: not read: not a regular file (a FIFO, socket or device)" in err
    assert sorted(p.name for p in inbox.iterdir()) == [
        ".hidden.csv", "dang.csv", "fifo.csv", "players", "processed",
    ]  # fmt: skip
