"""The hostile user, round 5 (items 6 and 7 of the report):

6. ``arpad check`` said "no problem found" after a killed ``arpad rate``, while ``arpad
   list`` warned that it was interrupted and ``publish`` refused: it is a note now, as an
   interrupted ingest is (docs/cli.md "arpad check").
7. ``arpad predict`` reads its pairings file as ``arpad ingest`` reads a CSV file (NUL
   refused, ``;`` and tab separators, errors naming the file and its line); ``--rules``
   with a date in the future says so; ``ARPAD_WORKERS=0`` is named; ``arpad convert``
   refuses a value that is no rating (docs/cli.md)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_cli_flow import small_store


@pytest.fixture()
def rated(tmp_path, capsys):
    """January and February 2025 (tests/test_cli_flow.py), rated with Elo and FIDE."""
    players, games = small_store(tmp_path)
    root = tmp_path / "s"
    s = ["--store", str(root), "--no-flow"]
    assert main(["ingest", str(games), "--players", str(players), *s]) == 0
    assert main(["rate", "--system", "elo", *s]) == 0
    assert main(["rate", "--system", "fide", *s]) == 0
    capsys.readouterr()
    return root


def _err(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


# -- 6. arpad check after a killed rate --------------------------------------------------------


def test_check_notes_an_interrupted_rate_as_list_warns_of_it(rated, capsys):
    """The state a SIGKILL leaves: the run journal still says "running"
    (tests/test_officer_attack.py ``test_publish_refuses_after_an_interrupted_rate``)."""
    s = ["--store", str(rated)]
    journal = Store(rated).journal_path("elo", "standard")
    data = json.loads(journal.read_text())
    assert data["status"] == "done"
    journal.write_text(json.dumps({**data, "status": "running"}))
    assert main(["list", "--system", "elo", *s]) == 0
    assert "the last arpad rate of elo/standard was interrupted" in capsys.readouterr().err
    # not damage (the rate run again replaces the mixture): a note, exit 0, as an ingest
    assert main(["check", *s]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "note: runs/system=elo/pool=standard.json: the last arpad rate of elo/standard was "
        "interrupted (its journal still says running): its periods may mix two runs, so "
        "arpad publish refuses them; run arpad rate --system elo --pool standard again",
        f"{rated}: no damage found; 1 interrupted rate(s) noted above",
    ]
    assert main(["rate", "--system", "elo", *s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["check", *s]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{rated}: no problem found"]


# -- 7. arpad predict's pairings file ----------------------------------------------------------

# Elo after 202501 (tests/test_predict.py, by hand): a 2107.1987, d 1802.8013;
# E = 1 / (1 + 10^(−304.3974/400)) = .851868
E_AD = 1 / (1 + 10 ** (-(2107.1987 - 1802.8013) / 400))


def _predict(rated, path, capsys):
    argv = ["predict", str(path), "--system", "elo", "--store", str(rated), "--period", "202501"]
    capsys.readouterr()
    code = main([*argv, "--format", "json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


@pytest.mark.parametrize(
    "text", ["White;Black;board\na;d;1\n", "white_id\tblack_id\tboard\na\td\t1\n"]
)
def test_predict_reads_semicolon_and_tab_separated_pairings_as_ingest(
    rated, tmp_path, capsys, text
):
    """docs/cli.md: the columns under any name ingest reads; ingest takes ``;`` and tab
    when the header has no comma (docs/ingest.md). ``White;Black`` was refused."""
    path = tmp_path / "pairs.csv"
    path.write_text(text)
    code, rows, err = _predict(rated, path, capsys)
    assert code == 0, err
    assert [(r["white_id"], r["black_id"], r["board"]) for r in rows] == [("a", "d", "1")]
    assert rows[0]["expected"] == pytest.approx(E_AD, abs=1e-6)


@pytest.mark.parametrize(
    "content, line, problem",
    [
        # a NUL byte: refused as ingest refuses it (it printed `x\x00y` as a player)
        (b"white_id,black_id\na,b\nx\x00y,c\n", 3, "binary data (NUL byte): not a text file"),
        # an empty file (it was Polars' "not a CSV file (NoDataError)")
        (b"", 1, "empty file: no header and no rows"),
        # a row of another width
        (b"white_id,black_id\na,b,c\n", 2, "3 fields where the header has 2"),
        # the second pairing is on line 4 (the header is line 1, line 3 is blank)
        (
            b"white_id,black_id\na,b\n\nc,c\n",
            4,
            "pairings row 2: self_play: player c plays himself (1 such row(s)); remove them",
        ),
    ],
)
def test_predict_errors_name_the_file_and_its_line(rated, tmp_path, capsys, content, line, problem):
    path = tmp_path / "pairs.csv"
    path.write_bytes(content)
    capsys.readouterr()
    assert main(["predict", str(path), "--system", "elo", "--store", str(rated)]) == 2
    assert _err(capsys) == f"arpad: error: {path}:{line}: {problem}"


# -- 7. --rules with a date in the future -----------------------------------------------------


def test_rules_date_in_the_future_says_so(rated, capsys):
    """2099-01 is a date, after the latest month a period may be (next month, docs/cli.md);
    it said "--rules takes a date … or a file". FIDE's latest version: 2025-10-01."""
    today = dt.datetime.now(dt.timezone.utc).date()
    nxt = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    s = ["--store", str(rated), "--no-flow"]
    for spec, day in (("2099-01", "2099-01-01"), ("2099-01-05", "2099-01-05")):
        assert main(["rate", "--system", "fide", "--rules", spec, *s]) == 2
        assert _err(capsys) == (
            f"arpad: error: --rules '{spec}': {day} is in the future (the latest month a date "
            f"may name is {nxt[0]}-{nxt[1]:02d}); the latest version arpad carries is in "
            "force from 2025-10-01; leave --rules out for the version in force in each period"
        )
    # not a date at all: as before
    assert main(["rate", "--system", "fide", "--rules", "2014-13", *s]) == 2
    assert "--rules takes a date (YYYY, YYYY-MM, YYYY-MM-DD, YYYYMM) or a file" in _err(capsys)


# -- 7. ARPAD_WORKERS=0 -------------------------------------------------------------------------


def test_workers_zero_from_the_environment_is_named(rated, capsys, monkeypatch):
    """docs/cli.md: --workers is at least 1, also from ARPAD_WORKERS, named in the error."""
    s = ["--store", str(rated), "--no-flow"]
    monkeypatch.setenv("ARPAD_WORKERS", "0")
    assert main(["rate", "--system", "elo", *s]) == 2
    assert _err(capsys) == "arpad: error: ARPAD_WORKERS=0: the number of workers must be at least 1"
    monkeypatch.delenv("ARPAD_WORKERS")
    assert main(["rate", "--system", "elo", "--workers", "0", *s]) == 2
    assert _err(capsys) == "arpad: error: --workers must be at least 1, got 0"


# -- 7. arpad convert of a value that is no rating ----------------------------------------------


@pytest.mark.parametrize(
    "argv, error",
    [
        # 2009-2024: FIDE = 7.5 × grade + 700, so Elo 0..4000 is grade −93.33..440
        (
            ["999999", "--from", "ecf", "--to", "fide", "--era", "2009-2024"],
            "999999 ecf: not a rating (ecf values are -93.33..440 in the 2009-2024 era: "
            "Elo/FIDE 0..4000, as arpad class takes)",
        ),
        (
            ["4001", "--from", "fide", "--to", "ecf"],
            "4001 fide: not a rating (fide values are 0..4000, as arpad class takes)",
        ),
        (
            ["--from", "elo", "--to", "ingo", "--", "-5"],
            "-5 elo: not a rating (elo values are 0..4000, as arpad class takes)",
        ),
        # Ingo = 355 − Elo/8: Elo 0..4000 is Ingo −145..355
        (
            ["400", "--from", "ingo", "--to", "elo"],
            "400 ingo: not a rating (ingo values are -145..355: Elo/FIDE 0..4000, as arpad "
            "class takes)",
        ),
    ],
)
def test_convert_refuses_what_class_refuses(capsys, argv, error):
    """`class` takes 0..4000 (docs/cli.md); convert printed 999999 ECF as 7500692.50 FIDE."""
    assert main(["convert", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"arpad: error: {error}"


def test_convert_keeps_the_ends_of_the_range(capsys):
    assert main(["convert", "4000", "--from", "fide", "--to", "ingo"]) == 0
    assert main(["convert", "--from", "ingo", "--to", "elo", "--", "-145"]) == 0
    assert main(["convert", "440", "--from", "ecf", "--to", "fide", "--era", "2009-2024"]) == 0
    assert capsys.readouterr().out == (
        "4000 fide = -145.00 ingo\n-145 ingo = 4000.00 elo\n440 ecf = 4000.00 fide\n"
    )
