"""The officer's attack, round 9, on the monthly job (docs/operations.md steps 4-5):

- a correction sent under a new file name is quarantined ``conflicting_result`` and not
  applied: that run freezes no list (as a run that rejects a file), and says why;
  other quarantined rows hold nothing;
- the "Revisions of the published … list" lines name their system/pool and the
  ``arpad diff`` that shows that list (``--pool rapid``);
- the "Revisions not carried forward" remedy keeps the ``--pool`` a file's stored
  version was read with (through ``arpad recalculate`` its games went back to the
  guessed pool);
- "players rated" counts players given a rating, not players pooled toward an initial
  rating or who met only unrated players.
"""

from __future__ import annotations

import datetime as dt
import shlex

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
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
    start_and_end,
    trf,
)

GAMES = "date,white_id,black_id,result\n"
OCTOBER = GAMES + "2026-10-10,1001,1002,1/2-1/2\n2026-10-11,1003,1004,1/2-1/2\n"
# oct.csv corrected (Alfa won), sent under another name: a conflicting result
OCTOBER_FIXED = GAMES + "2026-10-10,1001,1002,1-0\n2026-10-11,1003,1004,1/2-1/2\n"
RAPID = "date,white_id,black_id,result,pool\n2026-10-12,1001,1003,1-0,rapid\n"
NOVEMBER = GAMES + "2026-11-10,1001,1004,1-0\n2026-11-11,1003,1002,1-0\n"
BAD_ROW = GAMES + "2026-10-20,1002,1004,7\n"  # quarantined unknown_result


def recalculate(root, inbox, capsys, *options: str) -> tuple[int, str]:
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    rc = main([*argv, "--systems", "fide", *options])
    return rc, capsys.readouterr().out


def start(tmp_path, files: dict[str, str]):
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    for name, text in files.items():
        (inbox / name).write_text(text)
    return root, inbox


def test_an_unapplied_correction_freezes_nothing(tmp_path, monkeypatch, capsys):
    root, inbox = start(tmp_path, {"oct.csv": OCTOBER, "bad.csv": BAD_ROW})
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    # A bad row holds nothing (docs/operations.md step 4): exit 2, October frozen.
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 2 and "unknown\\_result" in out
    assert "Frozen list fide/standard period 202610 (`STORE/published/`)." in out
    assert Store(root).published_periods("fide", "standard") == [202610]

    (inbox / "nov.csv").write_text(NOVEMBER)
    (inbox / "oct-fixed.csv").write_text(OCTOBER_FIXED)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 2
    lines = out.splitlines()
    assert "conflicting\\_result" in out  # the quarantined row and its note, as before
    # November is rated and exported, but not frozen: the correction is not in it
    assert Store(root).published_periods("fide", "standard") == [202610]
    assert "Frozen list" not in out
    at = lines.index(
        "Not frozen (an inbox file holds an unapplied correction, below; the next run "
        "without one freezes them):"
    )
    assert lines[at + 2 : at + 4] == [
        "- `STORE/exports/system=fide/pool=standard/list-202611.csv`",
        "- `STORE/exports/system=fide/pool=standard/list-202611.parquet`",
    ]
    assert (
        "Not frozen: inbox file `oct-fixed.csv` (now in `INBOX/processed/`) has 1 game(s) "
        "quarantined as `conflicting_result`: a correction of games stored from another "
        "file (another result, or another date: a tournament's final report after its "
        "interim one), not applied; apply it as its note says (`arpad ingest` with "
        "`--source` naming the file it corrects), or leave it if the stored games stand, and run "
        "again: a run that leaves a correction unapplied freezes no list, as a month frozen "
        "without it stays so (waiting: fide/standard period 202611; docs/operations.md)."
    ) in lines

    # The correction applied as its note says: the next run freezes November with it.
    fixed = str(inbox / "processed" / "oct-fixed.csv")
    assert main(["ingest", fixed, "--source", "oct.csv", "--store", str(root)]) == 0
    capsys.readouterr()
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    assert "Frozen list fide/standard period 202611 (`STORE/published/`)." in out
    assert "Not frozen: inbox file" not in out
    assert Store(root).published_periods("fide", "standard") == [202610, 202611]
    # Alfa won on 10 October: 2000 - 1900 (D 100, PD 0.64, K 20): 20 x 0.36 = 7.2 -> +7
    assert start_and_end(root, 202610)["1001"] == (2000.0, 2007.0)


def test_the_summary_names_the_file_that_held_the_freeze(tmp_path, monkeypatch):
    """Through the job's API: ``freeze`` got the file as ``held_by``, and the markdown
    report of the summary has the line."""
    root, inbox = start(tmp_path, {"oct.csv": OCTOBER})
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    (inbox / "nov.csv").write_text(NOVEMBER)
    (inbox / "oct-fixed.csv").write_text(OCTOBER_FIXED)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    summary = jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    frozen = summary.published["fide/standard"]
    assert frozen["frozen"] == [] and frozen["held"] == [202611]
    assert frozen["held_by"] == ["oct-fixed.csv with an unapplied correction"]
    assert [f["reasons"] for f in summary.files] == [
        {},
        {"conflicting_result": 1, "duplicate_game": 1},
    ]
    assert "Not frozen: inbox file `oct-fixed.csv`" in monthly.markdown(summary)


def test_revisions_name_their_system_and_pool(tmp_path, monkeypatch, capsys):
    """Two pools frozen for 202610: each line names its list, and the rapid one's hint
    shows the rapid diff (it was `arpad diff --published 202610`, standard's)."""
    root, inbox = start(tmp_path, {"oct.csv": OCTOBER, "oct-rapid.csv": RAPID})
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    assert recalculate(root, inbox, capsys)[0] == 0
    (inbox / "nov.csv").write_text(NOVEMBER)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    # (November's run recomputed neither list: no "Revisions" block, round 15)
    assert not [line for line in out.splitlines() if line.startswith("Revisions of")]
    revisions = [
        monthly.revision_lines({"period": 202610, "changed": 0, "rows": [], "corrections": 0},
                               True, key)[0]
        for key in ("fide/rapid", "fide/standard")
    ]  # fmt: skip
    assert revisions == [
        "Revisions of the published fide/rapid list of period 202610: 0 player(s) changed, "
        "0 ingest(s) or merge(s) since publication touched it "
        "(`arpad diff --published 202610 --pool rapid`).",
        "Revisions of the published fide/standard list of period 202610: 0 player(s) "
        "changed, 0 ingest(s) or merge(s) since publication touched it "
        "(`arpad diff --published 202610`).",
    ]
    # the hint is the command that shows that list (its defaults: fide, standard)
    assert (
        monthly.diff_command("elo/blitz", 7) == "arpad diff --published 7 --system elo --pool blitz"
    )
    line = monthly.revision_line({"period": 202610, "changed": 2, "corrections": 1}, "fide/rapid")
    assert line[0].startswith(
        "Revisions of the published fide/rapid list of period 202610: unchanged by this run"
    )
    assert "(and `arpad diff --published 202610 --pool rapid`) lists them" in line[0]


def test_the_remedy_keeps_the_pool_of_the_stored_version(tmp_path, monkeypatch, capsys):
    """A rapid-looking TRF moved to standard with ``--pool standard``: the remedy of
    "Revisions not carried forward" is its exact ``arpad ingest`` with that pool (through
    ``recalculate --ignore-stated-ratings`` its games went back to rapid)."""
    root, inbox = start(tmp_path, {"m1.csv": SEPTEMBER})
    pin_today(monkeypatch, dt.date(2026, 10, 1))
    assert recalculate(root, inbox, capsys)[0] == 0
    # October: a TRF whose name says Rapid (docs/pgn-trf.md), stating the September list
    (inbox / "m2.trf").write_text(trf("Autumn Rapid", "2026/10/14", (*C, 2097), (*D, 2003), "1"))
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    assert recalculate(root, inbox, capsys)[0] == 0
    assert Store(root).rating_periods("fide", "rapid") == [202610]
    # ... moved to standard, the documented way (docs/ingest.md), then rated and frozen
    m2 = str(inbox / "processed" / "m2.trf")
    argv = ["ingest", m2, "--source", "m2.trf", "--pool", "standard", "--store", str(root)]
    assert main(argv) == 0
    assert recalculate(root, inbox, capsys)[0] == 0
    assert Store(root).published_periods("fide", "standard") == [202609, 202610]

    # December 1: September corrected, and November's TRF stating the October list
    (inbox / "m1.csv").write_text(SEPTEMBER_CORRECTED)
    (inbox / "m3.trf").write_text(trf("Winter Cup", "2026/11/12", (*A, 1997), (*B, 1903), "="))
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith(HEADING)))
    # (the ratings of tests/test_round8_stated_revised.py: m2.trf is in standard)
    assert lines[at + 4 : at + 8] == [
        "| 1003 | Cseh, Csaba | 202609 | 2097 | 2107 | 2097 | 202610 | m2.trf |",
        "| 1004 | Dudas, Dora | 202609 | 2003 | 1993 | 2003 | 202610 | m2.trf |",
        "| 1001 | Alfa, Anna | 202610 | 1997 | 2007 | 1997 | 202611 | m3.trf |",
        "| 1002 | Bravo, Bela | 202610 | 1903 | 1893 | 1903 | 202611 | m3.trf |",
    ]
    store = shlex.quote(str(root))
    commands = [
        f"arpad ingest INBOX/processed/m2.trf --source m2.trf --pool standard "
        f"--ignore-stated-ratings --store {store}",
        f"arpad ingest INBOX/processed/m3.trf --source m3.trf --ignore-stated-ratings "
        f"--store {store}",
    ]
    assert lines[at + 9] == (
        "To carry the revised ratings, ingest `m2.trf`, `m3.trf` again without their stated "
        "ratings, each with the options its stored version was read with (`m2.trf` with "
        "`--pool standard`), which `arpad recalculate` does not give (read through it "
        "without `--pool`, a file's games go back to the pool it names): "
        f"`{commands[0]}`; `{commands[1]}`; then run `arpad recalculate` "
        "(`--ignore-stated-ratings` applies to the files it is given only; a player no "
        "players file lists and the store has not rated yet starts from the earliest "
        "rating such a file states for him); or have the arbiter send them with the "
        "revised ratings."
    )

    # The remedy as written: the corrections are carried, m2.trf's games stay standard.
    for command in commands:
        argv = shlex.split(command.replace("INBOX", str(inbox)))
        assert argv[0] == "arpad" and main(argv[1:]) == 0
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0 and HEADING not in out
    assert Store(root).rating_periods("fide", "rapid") == []
    # October from the revised September: Cseh 2107 - Dudas 1993 (D 114, PD 0.66):
    # 20 x 0.34 = 6.8 -> +7; November: Alfa 2007 - Bravo 1893 draw: 20 x -0.16 -> -3.
    assert start_and_end(root, 202610)["1003"] == (2107.0, 2114.0)
    assert start_and_end(root, 202611)["1001"] == (2007.0, 2004.0)


def test_players_rated_counts_only_players_given_a_rating(tmp_path, monkeypatch, capsys):
    """October: Alfa beats Bravo (both rated: K 20, 20 x 0.36 -> Alfa 2007, Bravo 1893);
    the unrated 2001 plays three rated players (pooled: fewer than 5 games, no rating,
    docs/rules.md); Cseh and Dudas meet only unrated players (games not rated for them).
    Two players rated, where the report said 4 (every row with games > 0)."""
    october = GAMES + (
        "2026-10-10,1001,2001,1-0\n2026-10-11,2001,1002,1/2-1/2\n"
        "2026-10-12,1003,2001,0-1\n2026-10-13,1004,2002,1-0\n2026-10-14,1001,1002,1-0\n"
    )
    root, inbox = start(tmp_path, {"oct.csv": october})
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    rc, out = recalculate(root, inbox, capsys)
    assert rc == 0
    assert "Recomputed 1 period from the first period: 5 games, **2 players rated**." in out
    rows = {
        r["player_id"]: r for r in Store(root).read_ratings("fide", "standard", 202610).to_pylist()
    }
    assert rows["1001"]["rating_after"] == 2007.0 and rows["1002"]["rating_after"] == 1893.0
    assert rows["2001"]["rating_after"] is None and rows["2001"]["games"] == 3
    assert rows["1003"]["games"] == 0 and rows["1004"]["games"] == 0
