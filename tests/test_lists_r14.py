"""Round 14, the officer's findings 3 and 5 (docs/lists.md "A month without games",
"FIDE TXT"):

3. A month without any game had no list: ``arpad list --period 202611`` and ``arpad
   publish --period 202611`` were exit 2, and ``--in-force 2026-12-01`` gave October's
   list headed ``NOV26``. FIDE publishes a list every month: the list of a finished month
   without games is the latest list carried forward (the current ratings, 0 games, no K,
   the inactivity flag aged to the month), headed with its own month, and ``publish``
   freezes it; the monthly job names such a month and the command that freezes it.
5. The per-pool ``list.txt`` and ``list.xml`` were ordered by rating, the combined file
   by name. FIDE's download files are alphabetical: so are arpad's TXT and XML files
   everywhere; the table, CSV, JSON and Parquet keep the ranked order.

The store: four players of the register (K 20: born 1980, 100 rated games), games in
November 2025 and October 2026 only, today 5 December 2026.

* 2025-11-10 Gamma 1800 beats Delta 1700: D 100 → PD .64 (table 8.1.2): Gamma +7.2 → 1807,
  Delta −7.2 → 1693.
* 2026-10-05 Alpha 2100 draws Beta 2000: .5 − .64 = −.14 × 20 = −2.8 → Alpha 2097, Beta
  2003. Corrected later to 1-0: +.36 × 20 = +7.2 → Alpha 2107, Beta 1993.
* Gamma and Delta's last game is November 2025: on the list of 202610 (11 months) they are
  active; on the list of 202611 (12 months) inactive, flag ``i``, no rank (B.02).
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from tests.test_lists_attack import pin_today

REGISTER = (
    "player_id,name,federation,sex,birth_year,rating,rated_games\n"
    '1001,"Alpha, Anna",HUN,F,1980,2100,100\n'
    '1002,"Beta, Bela",HUN,M,1980,2000,100\n'
    '1003,"Gamma, Geza",HUN,M,1980,1800,100\n'
    '1004,"Delta, Dora",HUN,F,1980,1700,100\n'
)
GAMES = "date,white_id,black_id,result\n2025-11-10,1003,1004,1-0\n2026-10-05,1001,1002,1/2-1/2\n"
TODAY = dt.date(2026, 12, 5)


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path, monkeypatch, capsys) -> str:
    """The store rated, October's list published, then October's game corrected to 1-0
    and rated again (the frozen October list now differs from the current one)."""
    pin_today(monkeypatch, TODAY)
    root = str(tmp_path / "S")
    (tmp_path / "players.csv").write_text(REGISTER)
    (tmp_path / "games.csv").write_text(GAMES)
    s = ["--no-flow", "--store", root]
    assert main(["ingest", *s, "--players", str(tmp_path / "players.csv")]) == 0
    assert main(["ingest", *s, str(tmp_path / "games.csv")]) == 0
    assert main(["rate", *s, "--system", "fide"]) == 0
    assert main(["publish", "--store", root, "--period", "202610"]) == 0
    (tmp_path / "games.csv").write_text(GAMES.replace("1002,1/2-1/2", "1002,1-0"))
    assert main(["ingest", *s, str(tmp_path / "games.csv")]) == 0
    assert main(["rate", *s, "--system", "fide"]) == 0
    capsys.readouterr()
    return root


def csv_rows(text: str) -> list[tuple]:
    frame = pl.read_csv(text.encode(), infer_schema_length=0)
    return list(frame.select("rank", "player_id", "rating", "games", "k", "flag").iter_rows())


def test_a_month_without_games_lists_the_current_ratings_carried(store, capsys):
    code, out, err = cli(capsys, "list", "--store", store, "--period", "202610", "--format", "csv")
    assert code == 0, err
    assert csv_rows(out) == [
        ("1", "1001", "2107", "1", "20", "w"),
        ("2", "1002", "1993", "1", "20", None),
        ("3", "1003", "1807", "0", None, None),  # 11 months without a game: active
        ("4", "1004", "1693", "0", None, "w"),
    ]
    # before: exit 2, "no fide/standard list for period 202611"
    code, out, err = cli(capsys, "list", "--store", store, "--period", "202611", "--format", "csv")
    assert code == 0, err
    assert csv_rows(out) == [
        ("1", "1001", "2107", "0", None, "w"),  # the corrected ratings, not the frozen ones
        ("2", "1002", "1993", "0", None, None),
        (None, "1003", "1807", "0", None, "i"),  # 12 months: inactive, no rank
        (None, "1004", "1693", "0", None, "wi"),
    ]
    code, txt, _ = cli(
        capsys, "list", "--store", store, "--period", "202611", "--format", "fide-txt"
    )
    assert txt.splitlines()[0][113:119] == "DEC26 "  # its own month, not NOV26
    # a gap month is carried too: 202606 is November 2025's list, everybody active
    code, out, err = cli(capsys, "list", "--store", store, "--period", "202606", "--format", "csv")
    assert code == 0, err
    assert csv_rows(out) == [
        ("1", "1001", "2100", "0", None, "w"),
        ("2", "1002", "2000", "0", None, None),
        ("3", "1003", "1807", "0", None, None),
        ("4", "1004", "1693", "0", None, "w"),
    ]
    # a month not over has no list yet
    code, _, err = cli(capsys, "list", "--store", store, "--period", "202612")
    assert code == 2 and "no fide/standard list for period 202612" in err


def test_in_force_on_1_december_is_the_month_without_games(store, capsys):
    argv = ["list", "--store", store, "--in-force", "2026-12-01", "--format", "fide-txt"]
    code, txt, err = cli(capsys, *argv)
    assert code == 0, err
    head, *lines = txt.splitlines()
    assert head[113:119] == "DEC26 "  # before: NOV26, October's list
    # October's list as published (the draw: 2097, 2003), carried, and a note says so
    assert [(line[:15].strip(), line[113:119].strip(), line[132:].strip()) for line in lines] == [
        ("1001", "2097", "w"),
        ("1002", "2003", ""),
        ("1004", "1693", "wi"),
        ("1003", "1807", "i"),
    ]
    assert err.splitlines()[0] == (
        "arpad: note: this is the fide/standard list of period 202610 as published (frozen), "
        "carried forward into period 202611 (no games of it); the ratings of 2 player(s) "
        "changed since: arpad diff --published 202610 shows them, arpad list --period 202611 "
        "the current list"
    )
    # the combined file of that day is the same month
    argv = ["list", "--store", store, "--pool", "all", "--in-force", "2026-12-01"]
    code, out, err = cli(capsys, *argv, "--format", "csv")
    assert code == 0, err
    assert err.splitlines()[-1].startswith(
        "fide / all pools / list in force on 2026-12-01 = period 2026-11"
    )
    assert pl.read_csv(out.encode())["standard_rating"].to_list() == [2097, 2003, 1693, 1807]


def test_publish_freezes_the_month_without_games(store, capsys):
    code, out, err = cli(capsys, "publish", "--store", store, "--period", "202611")
    assert code == 0, err  # before: exit 2, "no list of it is carried forward"
    assert out.splitlines()[2] == (
        "  the list of period 202610 carried forward: pool standard has no games in period "
        "202611 (0 games, no K)"
    )
    folder = Path(store) / "published/system=fide/pool=standard/period=202611"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["carried_from"] == 202610 and manifest["players"] == 4
    assert csv_rows((folder / "list.csv").read_text()) == [
        ("1", "1001", "2107", "0", None, "w"),
        ("2", "1002", "1993", "0", None, None),
        (None, "1003", "1807", "0", None, "i"),
        (None, "1004", "1693", "0", None, "wi"),
    ]
    # the frozen list is what --in-force shows now, without a note
    code, out, err = cli(capsys, "list", "--store", store, "--in-force", "2026-12-01",
                         "--format", "csv")  # fmt: skip
    assert csv_rows(out) == csv_rows((folder / "list.csv").read_text()) and "note" not in err


def test_the_monthly_report_names_the_month_without_games(store, tmp_path):
    (tmp_path / "inbox").mkdir()
    run = jobs.recalculate(jobs.RecalculateRequest(store, str(tmp_path / "inbox"), ["fide"]))
    assert run.published["fide/standard"]["frozen"] == []  # not frozen by the job itself
    report = monthly.markdown(run)
    assert (
        "No games: period 202611 has no fide/standard games; the list of a month without games "
        "is the list of period 202610 carried forward (arpad list --period 202611), not frozen "
        'by this job: arpad publish --period 202611 freezes it (docs/lists.md "A month '
        'without games").'
    ) in report.splitlines()
    # once published, the report no longer names it
    assert main(["publish", "--store", store, "--period", "202611"]) == 0
    run = jobs.recalculate(jobs.RecalculateRequest(store, str(tmp_path / "inbox"), ["fide"]))
    assert "No games:" not in monthly.markdown(run)


def test_fide_txt_and_xml_are_alphabetical_everywhere(store, capsys):
    """FIDE's download files are by name; the published ``list.txt``/``list.xml`` were by
    rating (Alpha 2107, Beta, Gamma 1807, Delta 1693), ``--pool all`` by name."""
    folder = Path(store) / "published/system=fide/pool=standard/period=202610"
    by_name = ["1001", "1002", "1004", "1003"]  # Alpha, Beta, Delta, Gamma
    txt = (folder / "list.txt").read_text().splitlines()[1:]
    assert [line[:15].strip() for line in txt] == by_name
    assert [p.findtext("fideid") for p in ET.parse(folder / "list.xml").getroot()] == by_name
    assert pl.read_csv(folder / "list.csv")["player_id"].cast(str).to_list() == [
        "1001", "1002", "1003", "1004",  # the ranked order: Gamma 1807 before Delta 1693
    ]  # fmt: skip
    argv = ["list", "--store", store, "--period", "202610", "--format"]
    txt = cli(capsys, *argv, "fide-txt")[1].splitlines()[1:]
    assert [line[:15].strip() for line in txt] == by_name
    xml = ET.fromstring(cli(capsys, *argv, "fide-xml")[1].encode())
    assert [p.findtext("fideid") for p in xml] == by_name
    table = cli(capsys, *argv, "csv")[1]
    assert [r[1] for r in csv_rows(table)] == ["1001", "1002", "1003", "1004"]
