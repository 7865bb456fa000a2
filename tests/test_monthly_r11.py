"""The rating officer's report, round 11, findings 2 and 3 (docs/lists.md "A pool without
games in a period", docs/operations.md "Frozen lists with a duplicate id" and step 4).

2. A frozen list's revision told in one line said "every list frozen from now on includes
   them" of players whose revised rating a later file's stated rating had replaced (the
   March list had Delta at 2165 + 8, not 2166 + 8): the line now names them.
3. A month without rapid games: the rapid list carried forward was only in the combined
   file; ``arpad publish --pool rapid --period P`` refused it, and every later monthly
   report listed January's unchanged rapid export under "Published lists". Now the
   monthly job and ``arpad publish`` freeze the carried list as its own files, and
   "Published lists" holds only the lists the run froze.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_lists_attack import pin_today
from tests.test_lists_attack2 import section
from tests.test_round8_stated_revised import (
    REGISTER,
    SEPTEMBER,
    SEPTEMBER_CORRECTED,
    A,
    B,
    C,
    D,
    recalculate,
    start_and_end,
    trf,
)

# Standard: Alpha 2000 beats Beta 1900 in October (D 100, PD 0.64, K 20: +7.2 -> 2007 and
# 1893), draws in November (D 114, PD 0.66: -3.2 -> 2004 and 1896). Rapid, October only:
# Alpha 1950 loses to Beta 1850 (20 x -0.64 = -12.8 -> 1937 and 1863). docs/rules.md.
PLAYERS = (
    'player_id,name,standard_rating,rapid_rating\n1,"Alpha, A",2000,1950\n2,"Beta, B",1900,1850\n'
)
OCT_STANDARD = "date,white_id,black_id,result\n2026-10-05,1,2,1-0\n"
NOV_STANDARD = "date,white_id,black_id,result\n2026-11-05,1,2,1/2-1/2\n"
OCT_RAPID = "date,white_id,black_id,result,pool\n2026-10-06,1,2,0-1,rapid\n"
EXPORTS = "`STORE/exports/system=fide/pool="
ALREADY = "Already frozen by an earlier run (the export is that list, its ratings as frozen):"


def run(root: Path, inbox: Path, files: dict[str, str]):
    for name, text in files.items():
        (inbox / name).write_text(text)
    return jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))


def published(root: Path, pool: str, period: int) -> Path:
    return Store(root).published_partition("fide", pool, period)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def months(tmp_path, monkeypatch):
    """October (standard and rapid) and November (standard only), one monthly run each."""
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "reg.csv").write_text(PLAYERS)
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    october = run(root, inbox, {"oct-std.csv": OCT_STANDARD, "oct-rap.csv": OCT_RAPID})
    assert Store(root).published_periods("fide", "rapid") == [202610]
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    november = run(root, inbox, {"nov-std.csv": NOV_STANDARD})
    return root, inbox, october, november


# -- 3. the carried rapid list, frozen -------------------------------------------------------
def test_monthly_job_freezes_the_carried_rapid_list_and_publishes_only_its_own(
    tmp_path, monkeypatch, capsys
):
    root, inbox, _, november = months(tmp_path, monkeypatch)
    store = Store(root)
    assert store.published_periods("fide", "rapid") == [202610, 202611]
    assert store.rating_periods("fide", "rapid") == [202610]  # no ratings row written
    folder = published(root, "rapid", 202611)
    assert sorted(p.name for p in folder.iterdir()) == [
        "combined.txt",
        "games.parquet",
        "list.csv",
        "list.json",
        "list.parquet",
        "list.txt",
        "list.xml",
        "manifest.json",
    ]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert (manifest["carried_from"], manifest["players"]) == (202610, 2)
    # October's ratings carried, 0 games, no K; headed DEC26 (period 202611)
    assert (folder / "list.csv").read_text().splitlines()[1:] == [
        '1,1,"Alpha, A",,,,,,,1937,0,,,,rated',
        '2,2,"Beta, B",,,,,,,1863,0,,,,rated',
    ]
    code, txt, _ = cli(
        capsys, "list", "--store", str(root), "--pool", "rapid", "--period", "202611",
        "--format", "fide-txt",
    )  # fmt: skip
    assert code == 0 and (folder / "list.txt").read_text() == txt
    assert " DEC26 " in txt.splitlines()[0]

    report = monthly.markdown(november)
    # before: rapid list-202610 (January's, in the officer's months) under "Published lists"
    assert section(report, "Published lists:") == [
        f"- {EXPORTS}rapid/list-202611.csv`",
        f"- {EXPORTS}rapid/list-202611.parquet`",
        f"- {EXPORTS}standard/list-202611.csv`",
        f"- {EXPORTS}standard/list-202611.parquet`",
    ]
    assert "Frozen list fide/rapid period 202611 (`STORE/published/`)." in report.splitlines()
    assert "list-202610" not in report and ALREADY not in report

    # the next run freezes nothing: both November lists are an earlier run's
    pin_today(monkeypatch, dt.date(2026, 12, 2))
    report = monthly.markdown(run(root, inbox, {}))
    assert section(report, "Published lists:") == []
    assert section(report, ALREADY) == [
        f"- {EXPORTS}rapid/list-202611.csv`",
        f"- {EXPORTS}rapid/list-202611.parquet`",
        f"- {EXPORTS}standard/list-202611.csv`",
        f"- {EXPORTS}standard/list-202611.parquet`",
    ]
    assert (
        "Already frozen: list fide/rapid period 202611, by an earlier run "
        "(`STORE/published/`; left as it is)."
    ) in report.splitlines()
    assert "Frozen list" not in report
    # nothing recomputed since: the carried list is compared by its source's run ids
    assert monthly.recomputed_since_frozen(Store(root), "fide", "rapid") == []


def test_a_frozen_carried_list_is_final_and_a_correction_revises_it(tmp_path, monkeypatch, capsys):
    root, inbox, _, _ = months(tmp_path, monkeypatch)
    frozen = (published(root, "rapid", 202611) / "list.csv").read_bytes()
    # October's rapid game corrected to a draw: D 100, PD 0.64, 20 x -0.14 = -2.8 -> -3:
    # Alpha 1947, Beta 1853
    pin_today(monkeypatch, dt.date(2026, 12, 2))
    corrected = run(root, inbox, {"oct-rap.csv": OCT_RAPID.replace("0-1", "1/2-1/2")})
    assert (published(root, "rapid", 202611) / "list.csv").read_bytes() == frozen
    assert Store(root).published_periods("fide", "rapid") == [202610, 202611]
    assert corrected.published["fide/rapid"]["revised"] == [202610, 202611]
    report = monthly.markdown(corrected)
    heading = (
        "Revised lists (the current ratings of a list an earlier run froze; they differ "
        "from the frozen list, `arpad diff --published`):"
    )
    assert section(report, heading) == [
        f"- {EXPORTS}rapid/list-202610.csv`",
        f"- {EXPORTS}rapid/list-202610.parquet`",
        f"- {EXPORTS}rapid/list-202611.csv`",
        f"- {EXPORTS}rapid/list-202611.parquet`",
    ]
    lines = report.splitlines()
    at = lines.index(
        "Revisions of the published fide/rapid list of period 202611: 2 player(s) changed, "
        "1 ingest(s) or merge(s) since publication touched it (`arpad diff --published "
        "202611 --pool rapid`)."
    )
    assert lines[at + 4 : at + 6] == [
        "| 1 | Alpha, A | 1937 | 1947 | +10 | +0/-0/~1 |",
        "| 2 | Beta, B | 1863 | 1853 | -10 | +0/-0/~1 |",
    ]
    export = Store(root).export_dir("fide", "rapid") / "list-202611.csv"
    assert export.read_text().splitlines()[1] == '1,1,"Alpha, A",,,,,,,1947,0,,,,rated'
    assert monthly.recomputed_since_frozen(Store(root), "fide", "rapid") == [202610, 202611]
    code, out, _ = cli(capsys, "diff", "--store", str(root), "--published", "202611",
                       "--pool", "rapid", "--format", "csv")  # fmt: skip
    assert code == 0 and out.splitlines()[1:] == [
        '1,"Alpha, A",1937,1947,10,0,0,1',
        '2,"Beta, B",1863,1853,-10,0,0,1',
    ]


def test_arpad_publish_freezes_the_carried_rapid_list(tmp_path, monkeypatch, capsys):
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    standard = OCT_STANDARD + "2026-11-05,1,2,1/2-1/2\n"
    for name, text in (("reg.csv", PLAYERS), ("std.csv", standard), ("rap.csv", OCT_RAPID)):
        (tmp_path / name).write_text(text)
    s = str(tmp_path / "M")
    files = [str(tmp_path / "std.csv"), str(tmp_path / "rap.csv")]
    assert (
        main(["ingest", "--no-flow", "--store", s, *files, "--players", str(tmp_path / "reg.csv")])
        == 0
    )
    for pool in ("standard", "rapid"):
        assert main(["rate", "--no-flow", "--store", s, "--system", "fide", "--pool", pool]) == 0
    publish = ["publish", "--store", s, "--pool", "rapid", "--period"]
    assert cli(capsys, *publish, "202610")[0] == 0
    code, out, err = cli(capsys, *publish, "202611")
    assert code == 0, err  # before: exit 2, "no fide/rapid ratings of period 202611 to publish"
    assert out.splitlines()[0] == "published fide/rapid period 202611: 2 players"
    assert out.splitlines()[2] == (
        "  the list of period 202610 carried forward: pool rapid has no games in period "
        "202611 (0 games, no K)"
    )
    code, txt, _ = cli(capsys, "list", "--store", s, "--pool", "rapid", "--period", "202611",
                       "--format", "fide-txt")  # fmt: skip
    assert (Path(s) / "published/system=fide/pool=rapid/period=202611/list.txt").read_text() == txt
    # frozen once, final like any other
    code, _, err = cli(capsys, *publish, "202611")
    assert code == 2 and "the fide/rapid list of period 202611 is already published" in err
    # a month no pool has a list of carries nothing
    code, _, err = cli(capsys, *publish, "202609")
    assert code == 2
    assert err == (
        "arpad: error: no fide/rapid ratings of period 202609 to publish: pool rapid has no "
        'rated games in it, and no list of it is carried forward (docs/lists.md "A pool '
        'without games in a period")\n'
    )


# -- 2. revisions a later stated rating replaced are not "in every list from now on" ---------
def test_one_line_revision_names_the_players_a_stated_rating_kept_from_later_lists(
    tmp_path, monkeypatch, capsys
):
    """tests/test_round8_stated_revised.py's months: September corrected on 1 December,
    after October's TRF stated Cseh 2097 and Dudas 2003 and November's Alfa 1997 and
    Bravo 1903 (the frozen, pre-correction ratings). The run of 1 January recomputes
    only December, so each revision is one line."""
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    (inbox / "m1.csv").write_text(SEPTEMBER)
    pin_today(monkeypatch, dt.date(2026, 10, 1))
    assert recalculate(root, inbox) == 0
    (inbox / "m2.trf").write_text(trf("Autumn Cup", "2026/10/14", (*C, 2097), (*D, 2003), "1"))
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    assert recalculate(root, inbox) == 0
    (inbox / "m1.csv").write_text(SEPTEMBER_CORRECTED)
    (inbox / "m3.trf").write_text(trf("Winter Cup", "2026/11/12", (*A, 1997), (*B, 1903), "="))
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    assert recalculate(root, inbox) == 0
    # December: Cseh 2104 - Dudas 1996 draw (D 108, PD 0.65, table 8.1.2): 20 x -0.15 = -3:
    # Cseh 2101, Dudas 1999; Alfa and Bravo idle at 1994 and 1906 (from the stated ratings)
    (inbox / "m4.csv").write_text("date,white_id,black_id,result\n2026-12-09,1003,1004,1/2-1/2\n")
    pin_today(monkeypatch, dt.date(2027, 1, 1))
    capsys.readouterr()
    january = jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    assert [j["from"] for j in january.jobs] == [202612]
    # the December list, frozen now, has none of the four September revisions (+10/-10)
    assert start_and_end(root, 202612)["1003"] == (2104.0, 2101.0)
    december = (published(root, "standard", 202612) / "list.csv").read_text().splitlines()
    assert december[1:] == [
        '1,1003,"Cseh, Csaba",HUN,M,,,,,2101,1,20,1980,,rated',
        '2,1004,"Dudas, Dora",HUN,M,,,,,1999,1,20,1980,,rated',
        '3,1001,"Alfa, Anna",HUN,M,,,,,1994,0,,1980,,rated',
        '4,1002,"Bravo, Bela",HUN,M,,,,,1906,0,,1980,,rated',
    ]
    lines = monthly.markdown(january).splitlines()
    head = "Revisions of the published fide/standard list of period {}: unchanged by this run"
    september = next(line for line in lines if line.startswith(head.format(202609)))
    assert september.endswith(
        "the current ratings are `STORE/exports/system=fide/pool=standard/list-202609.csv`; "
        "no list frozen from now on includes them: a rating stated in a later file replaced "
        "the revised rating of all 4 (not carried forward: 1001, 1002, 1003, 1004; that "
        'report lists them under "Revisions not carried forward").'
    )
    october = next(line for line in lines if line.startswith(head.format(202610)))
    assert "2 player(s) changed" in october
    assert october.endswith(
        "the revised rating of all 2 (not carried forward: 1001, 1002; that report lists "
        'them under "Revisions not carried forward").'
    )
    assert "every list frozen from now on includes them" not in "\n".join(lines)


def test_one_line_revision_with_some_players_not_carried():
    r = {"period": 202512, "changed": 3, "corrections": 1, "latest": "2026-12-05",
         "not_carried": ["5000004"]}  # fmt: skip
    line = monthly.revision_line(r, "fide/standard")[0]
    assert line.endswith(
        "the current ratings are `STORE/exports/system=fide/pool=standard/list-202512.csv`; "
        "every list frozen from now on includes them except 1 player(s) whose revised rating "
        "a rating stated in a later file replaced (not carried forward: 5000004; that report "
        'lists them under "Revisions not carried forward").'
    )
    line = monthly.revision_line({**r, "not_carried": []}, "fide/standard")[0]
    assert line.endswith("list-202512.csv`, and every list frozen from now on includes them.")
