"""The rating officer's attack of 2026-12-03, sixth part (docs/ingest.md "Pool and stated
ratings", "Dates"):

1. a wrong ``--pool`` or ``--ignore-stated-ratings`` could not be undone by ingesting the
   file plainly again ("skipped, identical content already ingested"); the same bytes
   under another name with ``--pool`` were skipped without a word that the pool was
   not applied;
2. ``03.11.26`` (two-digit year) was ``period_out_of_range`` (read as the year 3) and
   ``3.11.98`` a ``bad_date`` saying only "not a valid YYYY-MM-DD date".
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import periods
from arpad.pipeline.ingest import _batch_options
from arpad.pipeline.observations import ignores_stated
from arpad.pipeline.readers import RawTable
from arpad.pipeline.store import Store
from arpad.pipeline.validate import validate_games
from tests.test_officer_attack5 import games, quarantine, run, trf

OCT = (
    "date,white_id,black_id,result\n05.10.2026,1001,1003,1-0\n05.10.2026,1002,1004,0-1\n"
    "12.10.2026,1006,1001,1/2-1/2\n12.10.2026,1005,1002,1-0\n"
)
FORMS = "is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY)"


def entries(root: Path) -> list[tuple]:
    t = pq.read_table(Store(root).manifest_path).to_pylist()
    return sorted((m["source_key"], m["batch"], m["accepted"]) for m in t)


def pools(root: Path) -> list[str]:
    return [g["pool"] for g in games(root)]


@pytest.fixture
def oct_csv(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("games_oct.csv").write_text(OCT)
    return hashlib.sha256(OCT.encode()).hexdigest()[:16]


def test_a_wrong_pool_is_undone_by_ingesting_plainly_again(oct_csv, capsys):
    assert run("ingest", "games_oct.csv", "--pool", "rapid", "--store", "S") == 0
    assert pools(Path("S")) == ["rapid"] * 4
    ((key, batch, accepted),) = entries(Path("S"))
    assert (key, batch[:16], len(batch), accepted) == ("games_oct.csv", oct_csv, 23, 4)
    capsys.readouterr()
    assert run("ingest", "games_oct.csv", "--store", "S") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "games_oct.csv: 4 rows read, 4 games stored, 0 quarantined; replaced the earlier "
        "version of games_oct.csv (4 games removed, 4 added, 0 changed)"
    )
    assert pools(Path("S")) == ["standard"] * 4
    assert entries(Path("S")) == [("games_oct.csv", oct_csv, 4)]
    # the same bytes with the same (no) options: skipped as before
    assert run("ingest", "games_oct.csv", "--store", "S") == 0
    assert capsys.readouterr().out == (
        "games_oct.csv: skipped, identical content already ingested as games_oct.csv\n"
    )
    # and with the options again: stored again, then skipped with them
    assert run("ingest", "games_oct.csv", "--pool", "rapid", "--store", "S") == 0
    assert run("ingest", "games_oct.csv", "--pool", "rapid", "--store", "S") == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "games_oct.csv: skipped, identical content already ingested as games_oct.csv"
    )
    assert pools(Path("S")) == ["rapid"] * 4
    assert len(entries(Path("S"))) == 1


def test_ignore_stated_ratings_undone_by_ingesting_plainly_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("open.trf").write_text(trf("Herbst 2026", "="))
    # the register rates them: their stated ratings are ignored (a player the store has
    # no rating for keeps his: tests/test_officer_r14.py)
    Path("reg.csv").write_text("player_id,rating\n4700001,2000\n4700002,2000\n4700004,2000\n")
    assert run("ingest", "--players", "reg.csv", "--store", "S") == 0
    assert run("ingest", "open.trf", "--ignore-stated-ratings", "--store", "S") == 0
    # (round 15: stored as stated, the batch marked; the rating run ignores them)
    assert {ignores_stated(g["ingest_batch"]) for g in games(Path("S"))} == {True}
    assert run("ingest", "open.trf", "--store", "S") == 0
    assert {ignores_stated(g["ingest_batch"]) for g in games(Path("S"))} == {False}
    rated = {(g["white_id"], g["white_rating"]) for g in games(Path("S"))}
    assert rated == {
        ("4700001", 2300.0),
        ("4700002", 2200.0),
        ("4700003", None),  # no rating in the file
        ("4700004", 2100.0),
    }
    assert len(games(Path("S"))) == 12
    assert [e[0] for e in entries(Path("S"))] == ["open.trf", "reg.csv"]


def test_a_copy_under_another_name_says_its_options_were_not_applied(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("in").mkdir()
    Path("other").mkdir()
    Path("in/open.trf").write_text(trf("Herbst 2026", "="))
    shutil.copy("in/open.trf", "other/open.trf")
    assert run("ingest", "in/open.trf", "--store", "S") == 0
    capsys.readouterr()
    assert run("ingest", "other/open.trf", "--pool", "rapid", "--store", "S") == 0
    assert capsys.readouterr().out == (
        "other/open.trf: skipped, identical content already ingested as open.trf (--pool "
        "rapid not applied: these bytes are stored as the source in/open.trf, read without "
        "options; to read that source with --pool rapid: arpad ingest in/open.trf --pool "
        "rapid, or this file with --source in/open.trf --pool rapid)\n"
    )
    assert set(pools(Path("S"))) == {"standard"}
    # following the hint reads the stored source with the option
    args = ("--source", "in/open.trf", "--pool", "rapid", "--store", "S")
    assert run("ingest", "other/open.trf", *args) == 0
    assert pools(Path("S")) == ["rapid"] * 12
    assert [e[0] for e in entries(Path("S"))] == ["in/open.trf"]
    capsys.readouterr()
    # a copy without options, the stored source read with some: they stay, and it says so
    assert run("ingest", "other/open.trf", "--store", "S") == 0
    assert capsys.readouterr().out == (
        "other/open.trf: skipped, identical content already ingested as open.trf (the "
        "stored source in/open.trf was read with options (--pool, --ignore-stated-ratings "
        "or --rate-moveless), which stay; to read it without them: arpad ingest "
        "in/open.trf, or this file with --source in/open.trf)\n"
    )
    # other options on the copy: "read with other options"
    assert run("ingest", "other/open.trf", "--ignore-stated-ratings", "--store", "S") == 0
    assert capsys.readouterr().out.startswith(
        "other/open.trf: skipped, identical content already ingested as open.trf "
        "(--ignore-stated-ratings not applied: these bytes are stored as the source "
        "in/open.trf, read with other options; "
    )
    # a copy with the options the stored source was read with: a plain skip
    assert run("ingest", "other/open.trf", "--pool", "rapid", "--store", "S") == 0
    assert capsys.readouterr().out == (
        "other/open.trf: skipped, identical content already ingested as open.trf\n"
    )
    # the source's own path, plainly: standard again
    assert run("ingest", "in/open.trf", "--store", "S") == 0
    assert pools(Path("S")) == ["standard"] * 12


def test_a_recorrection_carries_the_options_it_was_read_with(tmp_path, monkeypatch, capsys):
    """Bytes tried as another source with --pool, then applied plainly as the source they
    correct: the stored batch carries no options, so the same plain ingest is a skip."""
    monkeypatch.chdir(tmp_path)
    Path("a.csv").write_text(OCT.replace("1-0", "0-1"))
    assert run("ingest", "a.csv", "--store", "S") == 0
    Path("b.csv").write_text(OCT)
    assert run("ingest", "b.csv", "--pool", "rapid", "--store", "S") == 0
    assert run("ingest", "b.csv", "--source", "a.csv", "--store", "S") == 0
    ((key, batch, accepted),) = entries(Path("S"))
    digest = hashlib.sha256(OCT.encode()).hexdigest()[:16]
    assert (key, batch, accepted) == ("a.csv", digest + "c", 4)
    assert pools(Path("S")) == ["standard"] * 4
    capsys.readouterr()
    assert run("ingest", "b.csv", "--source", "a.csv", "--store", "S") == 0
    assert (
        capsys.readouterr().out == "b.csv: skipped, identical content already ingested as a.csv\n"
    )


def test_batch_options():
    d = "0123456789abcdef"
    assert _batch_options(d) == ""
    assert _batch_options(d + "c") == ""
    assert _batch_options(d + "k") == ""
    assert _batch_options(d + "oc0ffeec") == "oc0ffee"
    assert _batch_options(d + "oabc123mk") == "oabc123m"
    assert _batch_options(d + "m") == "m"
    assert _batch_options(d + "mcc") == "m"


def test_two_digit_years_and_bad_date_details(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("dd.csv").write_text(
        "date,white_id,black_id,result\n03.11.26,1001,1002,1-0\n3.11.98,1001,1002,1-0\n"
        "03/11/2026,1001,1002,1-0\n31.11.2024,1001,1002,1-0\n05.13.2024,1001,1002,1-0\n"
        "11/03/26,1001,1002,1-0\n26-11-03,1001,1002,1-0\n2024-02-30,1001,1002,1-0\n"
        "2024-11-04 25:00,1001,1002,1-0\n+2024-01-05,1001,1002,1-0\n03.11.2024,1001,1002,1-0\n"
        "0001-01-05,1001,1002,1-0\n"
    )
    assert run("ingest", "dd.csv", "--store", "S") == 2
    assert [str(g["date"]) for g in games(Path("S"))] == ["2024-11-03"]
    got = {
        r["line"]: (r["reason"], r["detail"])
        for f in Store("S").quarantine_dir.rglob("*.parquet")
        for r in pq.read_table(f).to_pylist()
    }
    assert got == {
        2: (
            "bad_date",
            f"date 03.11.26 {FORMS}: the year has two digits; write it with four (03.11.2026)",
        ),
        3: (
            "bad_date",
            f"date 3.11.98 {FORMS}: the year has two digits; write it with four (3.11.1998)",
        ),
        4: (
            "bad_date",
            f"date 03/11/2026 {FORMS}: with slashes and the year last, day first or month "
            "first cannot be told; write YYYY-MM-DD (2026-11-03 or 2026-03-11)",
        ),
        5: ("bad_date", f"date 31.11.2024 {FORMS}: no such day, 2024-11 has no day 31"),
        6: ("bad_date", f"date 05.13.2024 {FORMS}: there is no month 13 (the day comes first)"),
        7: (
            "bad_date",
            f"date 11/03/26 {FORMS}: with slashes and the year last, day first or month "
            "first cannot be told, and the year has two digits; write YYYY-MM-DD",
        ),
        8: ("bad_date", f"date 26-11-03 {FORMS}: the year has two digits; write it with four"),
        9: ("bad_date", f"date 2024-02-30 {FORMS}: no such day, 2024-02 has no day 30"),
        10: ("bad_date", f"date 2024-11-04 25:00 {FORMS}"),
        11: ("bad_date", f"date +2024-01-05 {FORMS}"),
        # a four-digit year is a year, however early: outside the valid months
        13: (
            "period_out_of_range",
            f"date 0001-01-05 is outside the valid {periods.valid_months_text()}",
        ),
    }


def test_a_two_digit_birth_year_is_a_bad_player_field(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p.csv").write_text("player_id,name,birth_date\nP1,Aa,03.11.90\nP2,Bb,03.11.1990\n")
    assert run("ingest", "--players", "p.csv", "--store", "S") == 2
    assert [(r, d) for _, r, d in quarantine(Path("S"))] == [
        ("bad_player_field", f"birth_date 03.11.90 {FORMS}")
    ]
    players = {p["player_id"]: p for p in Store("S").read_players().to_pylist()}
    assert str(players["P2"]["birth_date"]) == "1990-11-03"


def test_accepted_dates_unchanged(tmp_path):
    """The forms accepted before are accepted still, with the same dates."""
    dates = ["2024-01-05", "2024.1.5", "2024/01/05", "05.01.2024", "5.1.2024 10:30", "2024-01-05T09:00Z"]  # fmt: skip
    raw = RawTable(
        Path("d.csv"),
        "csv",
        "games",
        pl.DataFrame(
            {
                "date": dates,
                "white_id": [f"a{i}" for i in range(len(dates))],
                "black_id": [f"b{i}" for i in range(len(dates))],
                "result": ["1-0"] * len(dates),
                "_line": list(range(2, len(dates) + 2)),
                "_raw": [""] * len(dates),
            }
        ),
    )
    v = validate_games(raw, "d.csv", "b")
    assert v.quarantine.num_rows == 0
    assert {str(d) for d in v.accepted.column("date").to_pylist()} == {"2024-01-05"}
