"""Control characters read from a file never reach a terminal raw (docs/cli.md "The
command line attacked").

Defect (hostile-input attacker, round 4): a games file whose rating cell was
``ESC[2J ESC[31m PWNED ESC[0m`` and whose result was ``ESC]0;TITLE BEL`` had both
printed raw on stderr in its quarantine lines: on a terminal they clear the screen,
recolour the text and set the window title, so a hostile file could erase the very
lines that name it. The same raw bytes came out of ``arpad sql`` tables of
``quarantine.raw``, of player names in ``arpad list`` and ``arpad players``, of a
file name in an error line, of an ingest note. Now every such printed text shows
them as Python's escapes (``\\x1b``, ``\\x07``, ``\\u202e``), as a name's non-UTF-8
byte was already shown (``\\xff``); CSV, JSON and TXT files written with --output and
the stored values keep every byte. Every test here failed before the fix."""

from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline import output
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError, printable

# What must never be printed raw: ESC (escape sequences), BEL, the C1 CSI, and the
# bidi override and isolate characters (they reorder the rest of the line on screen).
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2069")

ESC_NAME = "Alpha\x1b[2J\x1b[31mPWNED\x1b[0m"
BEL_NAME = "Beta\x07Bell"
BIDI_NAME = "Gamma\u202eevil\u2066x\u2069"
# The same names as printed: each control character as its Python escape.
ESC_SHOWN = "Alpha\\x1b[2J\\x1b[31mPWNED\\x1b[0m"
BEL_SHOWN = "Beta\\x07Bell"
BIDI_SHOWN = "Gamma\\u202eevil\\u2066x\\u2069"

# The attacker's games file (esc.csv of the hostile round 4): line 2's rating and
# line 3's result code are escape sequences.
ESC_ROW = "e1,2024-01-05,A,B,1-0,\x1b[2J\x1b[31mPWNED\x1b[0m"
TITLE_ROW = "e2,2024-01-05,A,B,\x1b]0;TITLE\x07,2000"
HOSTILE_GAMES = f"game_id,date,white_id,black_id,result,white_rating\n{ESC_ROW}\n{TITLE_ROW}\n"
# A file name with an escape sequence and a right-to-left override.
HOSTILE_FILE = "e\x1b[31mred\u202e.csv"
HOSTILE_FILE_SHOWN = "e\\x1b[31mred\\u202e.csv"

GOOD_GAMES = (
    "game_id,date,white_id,black_id,result\n"
    "g1,2024-01-05,A,B,1-0\n"
    "g2,2024-01-06,B,C,1/2-1/2\n"
    "g3,2024-01-07,C,A,0-1\n"
)


def assert_no_raw(text: str) -> None:
    for char in RAW:
        assert char not in text, f"raw {char!r} printed: {text!r}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """A store with the attacker's quarantined rows (from a file with a hostile
    name) and three players whose names hold ESC sequences, BEL and bidi overrides,
    rated with elo."""
    root = tmp_path_factory.mktemp("control")
    (root / HOSTILE_FILE).write_text(HOSTILE_GAMES, encoding="utf-8")
    (root / "games.csv").write_text(GOOD_GAMES)
    players = "player_id,name,federation,birth_year\n" + "".join(
        f'{pid},"{name}",GER,1990\n'
        for pid, name in (("A", ESC_NAME), ("B", BEL_NAME), ("C", BIDI_NAME))
    )
    (root / "players.csv").write_text(players, encoding="utf-8")
    s = ["--store", str(root / "store")]
    good = str(root / "games.csv")
    assert main(["ingest", "--no-flow", good, "--players", str(root / "players.csv"), *s]) == 0
    assert main(["rate", "--no-flow", "--system", "elo", *s]) == 0
    return root


def run(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_printable_escapes_control_characters_and_bidi_overrides():
    # C0 (NUL, BEL, tab, LF, CR, US), DEL, C1 (0x80, CSI 0x9b, 0x9f): \xNN, with
    # Python's short forms for tab, LF and CR
    assert printable("\x00\x07\t\n\r\x1f\x7f\x80\x9b\x9f") == (
        "\\x00\\x07\\t\\n\\r\\x1f\\x7f\\x80\\x9b\\x9f"
    )
    # the bidi embeddings/overrides U+202A..U+202E and isolates U+2066..U+2069
    assert printable("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") == (
        "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
    )
    assert printable(ESC_NAME) == ESC_SHOWN
    # a name's byte that is not UTF-8 (a surrogate escape) is shown as before
    assert printable("f\udcff\x1b.csv") == "f\\xff\\x1b.csv"
    # letters of any script, a space, a backslash, a hyphen stay as they are
    assert printable("Émile Çelik 中文 a\\b ‐") == "Émile Çelik 中文 a\\b ‐"


def test_input_error_escapes_name_and_problem_and_keeps_the_raw_values():
    exc = InputError("x\x1b[31mred.csv", 3, "white_rating \x1b[2J is not a rating")
    assert str(exc) == "x\\x1b[31mred.csv:3: white_rating \\x1b[2J is not a rating"
    # the attributes (the Python API's) keep what the file said; a pickled copy (a
    # Dask worker's) reads the same
    assert exc.path == "x\x1b[31mred.csv"
    assert exc.problem == "white_rating \x1b[2J is not a rating"
    assert str(pickle.loads(pickle.dumps(exc))) == str(exc)


def test_ingest_quarantine_lines_and_summary_are_escaped(hostile, capsys):
    store = str(hostile / "qstore")
    path = str(hostile / HOSTILE_FILE)
    code, out, err = run(capsys, "ingest", "--no-flow", path, "--store", store)
    assert code == 2  # rows quarantined
    assert_no_raw(out + err)
    shown = str(hostile / HOSTILE_FILE_SHOWN)
    assert f"{shown}: 2 rows read, 0 games stored, 2 quarantined" in out
    assert (
        f"  {shown}:2: bad_rating: white_rating \\x1b[2J\\x1b[31mPWNED\\x1b[0m "
        "is not a rating in 0..3500"
    ) in err.splitlines()
    assert f"  {shown}:3: unknown_result: unknown result code \\x1b]0;TITLE\\x07" in (
        err.splitlines()
    )


def test_an_error_naming_a_hostile_file_is_escaped(tmp_path, capsys):
    bad = tmp_path / "bad\x1b[2J\u202e.csv"
    bad.write_text("a,b\n1,2\n")
    code, out, err = run(capsys, "ingest", "--no-flow", str(bad), "--store", str(tmp_path / "s"))
    assert code == 2
    assert_no_raw(out + err)
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"arpad: error: {tmp_path}/bad\\x1b[2J\\u202e.csv:1: header ")


def test_an_ingest_note_quoting_a_hostile_id_is_escaped(tmp_path, capsys):
    # an id new to the store with a stored player's name and birth year: the
    # namesake note names both ids (pipeline/namesakes.py)
    (tmp_path / "one.csv").write_text("player_id,name,birth_year\nB,Beta Bell,1990\n")
    (tmp_path / "two.csv").write_text("player_id,name,birth_year\nZ\x1b[2J\x07,Beta Bell,1990\n")
    s = ["--store", str(tmp_path / "s")]
    assert main(["ingest", "--no-flow", "--players", str(tmp_path / "one.csv"), *s]) == 0
    code, out, err = run(capsys, "ingest", "--no-flow", "--players", str(tmp_path / "two.csv"), *s)
    assert code == 0
    assert_no_raw(out + err)
    assert "(Z\\x1b[2J\\x07 'Beta Bell' and stored B 'Beta Bell', both born 1990)" in out
    assert out.rstrip().endswith("arpad players merge B Z\\x1b[2J\\x07")


def test_sql_table_and_txt_of_the_quarantine_are_escaped_its_files_are_not(hostile, capsys):
    store = str(hostile / "qstore")
    if not (hostile / "qstore").exists():  # run alone: the ingest test's store
        main(["ingest", "--no-flow", str(hostile / HOSTILE_FILE), "--store", store])
    query = "SELECT raw, detail FROM quarantine ORDER BY line"
    code, out, err = run(capsys, "sql", query, "--store", store)
    assert code == 0
    assert_no_raw(out + err)
    # the table cuts at 40 characters: "e1,2024-01-05,A,B,1-0," is 22, then the escapes
    assert "e1,2024-01-05,A,B,1-0,\\x1b[2J\\x1b[31mPWN" in out
    assert "unknown result code \\x1b]0;TITLE\\x07" in out
    code, out, err = run(capsys, "sql", query, "--store", store, "--format", "txt")
    assert code == 0
    assert_no_raw(out + err)
    assert "e2,2024-01-05,A,B,\\x1b]0;TITLE\\x07,2000" in out.splitlines()[2]
    # files keep every byte: CSV and JSON read back, and the TXT file
    files = {ext: str(hostile / f"q.{ext}") for ext in ("csv", "json", "txt")}
    for name in files.values():
        assert main(["sql", query, "--store", store, "--output", name]) == 0
    with open(files["csv"], newline="", encoding="utf-8") as f:
        assert [r["raw"] for r in csv.DictReader(f)] == [ESC_ROW, TITLE_ROW]
    rows = json.loads(Path(files["json"]).read_text(encoding="utf-8"))
    assert [r["raw"] for r in rows] == [ESC_ROW, TITLE_ROW]
    text = Path(files["txt"]).read_text(encoding="utf-8")
    assert ESC_ROW in text and TITLE_ROW in text


def test_an_sql_error_quoting_a_hostile_value_is_escaped(hostile, capsys):
    store = str(hostile / "qstore")
    if not (hostile / "qstore").exists():
        main(["ingest", "--no-flow", str(hostile / HOSTILE_FILE), "--store", store])
    query = "SELECT CAST(raw AS INTEGER) FROM quarantine ORDER BY line"
    code, out, err = run(capsys, "sql", query, "--store", store)
    assert code == 2
    assert_no_raw(out + err)
    # DuckDB's conversion error quotes the first value it could not convert
    assert "'e1,2024-01-05,A,B,1-0,\\x1b[2J\\x1b[31mPWNED\\x1b[0m'" in err


def test_list_and_players_tables_escape_names_their_files_do_not(hostile, capsys):
    s = ["--store", str(hostile / "store")]
    code, out, err = run(capsys, "list", "--system", "elo", *s)
    assert code == 0
    assert_no_raw(out + err)
    for shown in (ESC_SHOWN, BEL_SHOWN, BIDI_SHOWN):  # each under 40 characters: whole
        assert shown in out
    code, out, err = run(capsys, "list", "--system", "elo", "--format", "txt", *s)
    assert code == 0
    assert_no_raw(out + err)
    code, out, err = run(capsys, "players", *s)
    assert code == 0
    assert_no_raw(out + err)
    # the players table has 18 columns: polars wraps the name cell, "Beta\x07" first
    assert "Beta\\x07" in out
    for command in (["list", "--system", "elo"], ["players"]):
        for ext in ("csv", "json"):
            name = str(hostile / f"{command[0]}.{ext}")
            assert main([*command, *s, "--output", name]) == 0
            if ext == "csv":
                with open(name, newline="", encoding="utf-8") as f:
                    names = {r["name"] for r in csv.DictReader(f)}
            else:
                names = {r["name"] for r in json.loads(Path(name).read_text(encoding="utf-8"))}
            assert names == {ESC_NAME, BEL_NAME, BIDI_NAME}
    # the stored players keep the names as read
    code, out, err = run(
        capsys, "sql", "SELECT name FROM players ORDER BY player_id", *s, "--format", "json"
    )
    assert [r["name"] for r in json.loads(out)] == [ESC_NAME, BEL_NAME, BIDI_NAME]


def test_render_escapes_cells_column_names_categoricals_and_lists(capsys):
    frame = pl.DataFrame(
        {
            "a\x1b[2J": ["l1\nl2", None],
            "cat": pl.Series(["x\x07y", "ok"], dtype=pl.Categorical),
            "list": [["p\u202eq"], []],
        }
    )
    capsys.readouterr()
    output.render(frame, "table")
    out = capsys.readouterr().out
    assert_no_raw(out)
    assert "a\\x1b[2J" in out  # the column name
    assert "l1\\nl2" in out  # a line break inside a value: one table row, escaped
    assert "l2" not in out.replace("l1\\nl2", "")
    assert "x\\x07y" in out  # a categorical value
    assert "p\\u202eq" in out  # inside a list, as polars prints it
