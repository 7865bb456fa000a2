"""Hostile input, round 2 (docs/cli.md "Options" and "arpad sql", docs/ingest.md
"Invisible characters" and "Spreadsheet workbooks and very wide files"): an
interrupted ``arpad sql`` ends at once with exit 130/143 and one line (it was a
``RuntimeError: Query interrupted`` traceback, exit 1, SIGTERM after 10-25 s), a
time limit on a query, whole-number options held to a range (``--top 10**23`` was an
OverflowError traceback), invisible characters removed from ids (``\\u200bA`` was
another player than ``A``), headers of a million columns refused at once, and
spreadsheet workbooks named as such."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import arpad
from arpad.pipeline import cli, sql
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

ARPAD = str(Path(sys.executable).with_name("arpad"))
SLOW = "SELECT count(*) FROM range(100000000000)"  # minutes, unless stopped
HUGE = "99999999999999999999999"
INVISIBLE_NOTE = (
    "note: {n} id value(s) held invisible characters (zero-width space, soft hyphen, "
    "direction mark, …; {where}): removed, so that a look-alike is not another player"
)


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def small_store(tmp_path, capsys) -> Path:
    """A store with three games, rated with Elo."""
    path = tmp_path / "g.csv"
    path.write_text(
        "date,white_id,black_id,result\n2024-01-05,A,B,1-0\n2024-01-06,B,C,0-1\n"
        "2024-02-07,C,A,1/2-1/2\n"
    )
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 0
    assert main(["rate", "--system", "elo", "--store", str(root)]) == 0
    capsys.readouterr()
    return root


# -- arpad sql: interrupted, and out of time ----------------------------------------------


@pytest.mark.parametrize(
    "sig, code, text",
    [
        (signal.SIGINT, 130, "arpad: interrupted (Ctrl-C)"),
        (signal.SIGTERM, 143, "arpad: terminated (SIGTERM)"),
    ],
)
def test_a_signal_stops_a_running_sql_query_at_once(
    small_store, monkeypatch, capsys, sig, code, text
):
    """The signal lands while the query runs (half a second after it started): one
    line, exit 130/143, within seconds of a query that would run for minutes; the
    next query works."""
    previous = signal.signal(signal.SIGTERM, cli._terminate)  # as the console has it
    original = sql._run_query
    started = []

    def run_then_signal(*args, **kwargs):
        started.append(time.monotonic())
        threading.Timer(0.5, os.kill, (os.getpid(), sig)).start()
        return original(*args, **kwargs)

    monkeypatch.setattr(sql, "_run_query", run_then_signal)
    try:
        assert main(["sql", SLOW, "--store", str(small_store)]) == code
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert started and time.monotonic() - started[0] < 8
    assert one_error_line(capsys.readouterr().err).startswith(text)
    monkeypatch.setattr(sql, "_run_query", original)
    assert main(["sql", "SELECT 42 AS x", "--store", str(small_store), "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["x", "42"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_the_arpad_sql_process(small_store, sig, code):
    """The attack as it was run: the console process, the signal a few seconds in."""
    proc = subprocess.Popen(
        [ARPAD, "sql", SLOW, "--store", str(small_store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("arpad sql still ran 20 s after the signal")
    assert proc.returncode == code, err
    assert time.monotonic() - sent < 10
    line = one_error_line(err)
    assert line.startswith("arpad: interrupted" if code == 130 else "arpad: terminated"), err


def test_a_query_that_runs_out_of_time_is_stopped(small_store):
    store = Store(small_store)
    started = time.monotonic()
    with pytest.raises(ValueError) as caught:
        sql.run_readonly_sql(store, SLOW, [], timeout=0.5)
    assert str(caught.value) == "query ran longer than 0.5 s (--timeout): stopped"
    assert time.monotonic() - started < 10
    frame = sql.run_readonly_sql(store, "SELECT count(*) AS n FROM games", [], timeout=30)
    assert frame["n"].to_list() == [3]
    for bad in (0, -1, "x", float("nan"), float("inf")):
        with pytest.raises(ValueError, match="--timeout takes a positive number of seconds"):
            sql.run_readonly_sql(store, "SELECT 1", [], timeout=bad)


def test_store_sql_interrupted_is_a_keyboard_interrupt_and_works_next(small_store):
    """The API's ``Store.sql`` in a notebook: the interrupt stops the query at once."""
    store = arpad.Store(small_store)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            store.sql(SLOW)
            time.sleep(30)  # an interrupt taken only after the query lands here
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 10
    assert store.sql("SELECT count(*) AS n FROM games")["n"][0] == 3


# -- whole-number options -----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["list", "--top", HUGE], f"argument --top: {HUGE} is out of range (1..1000000000)"),
        (["list", "--active", HUGE], f"argument --active: {HUGE} is out of range (1..12000)"),
        (
            ["list", "--min-games", HUGE],
            f"argument --min-games: {HUGE} is out of range (1..1000000000)",
        ),
        (
            ["era", "--system", "elo", "--top", HUGE],
            f"argument --top: {HUGE} is out of range (1..1000000000)",
        ),
        (
            ["rate", "--system", "elo", "--shards", HUGE],
            f"argument --shards: {HUGE} is out of range (1..10000)",
        ),
        (
            ["rate", "--system", "elo", "--checkpoint-every", HUGE],
            f"argument --checkpoint-every: {HUGE} is out of range (1..1000000)",
        ),
        (
            ["rate", "--system", "elo", "--workers", "5000"],
            "argument --workers: 5000 is out of range (1..1000)",
        ),
        (
            ["fide-sample", "d", "--seed", "-1"],
            "argument --seed: -1 is out of range (0..4294967295)",
        ),
        (
            ["list", "--top", "9" * 60],
            "argument --top: 99999999999999999999… (60 characters) is out of range (1..1000000000)",
        ),
        (["list", "--top", "abc"], "argument --top: invalid int value: 'abc'"),
    ],
)
def test_whole_number_options_are_held_to_a_range(tmp_path, capsys, argv, message):
    code = main([*argv, "--store", str(tmp_path / "s")] if argv[0] != "fide-sample" else argv)
    assert code == 2
    line = one_error_line(capsys.readouterr().err)
    command = argv[0]
    assert line == f"arpad: error: {message} (see arpad {command} --help)"
    assert not (tmp_path / "s").exists()


def test_a_top_past_the_list_is_the_whole_list(small_store, capsys):
    assert main(["list", "--system", "elo", "--store", str(small_store), "--top", "0"]) == 2
    assert "--top takes a positive number of players, got 0" in capsys.readouterr().err
    args = ["list", "--system", "elo", "--store", str(small_store), "--format", "csv"]
    assert main(args) == 0
    whole = capsys.readouterr().out
    assert main([*args, "--top", "1000000000"]) == 0
    # every player ranked: B, without a game in February, played in January (12 months)
    ranked = [line for line in whole.splitlines() if not line.startswith(",")]
    assert capsys.readouterr().out.splitlines() == ranked and len(ranked) == 1 + 3
    store = arpad.Store(small_store)
    assert store.list("elo", top=10**23).height == 3  # was OverflowError


# -- invisible characters in ids ----------------------------------------------------------


def test_invisible_characters_do_not_make_a_look_alike_player(tmp_path, capsys):
    path = tmp_path / "zw.csv"
    path.write_text(
        "date,white_id,black_id,result\n"
        "2024-01-05,\u200bA,B,1-0\n"  # zero-width space
        "2024-01-06,A,B\u00ad,1-0\n"  # soft hyphen
        "2024-01-07,\u202eA\u202c,\ufeffB,0-1\n"  # bidi override, BOM inside
        "2024-01-08,A\u2066\u2069,\u200e\u200fB\u2060,1/2-1/2\n"
        "2024-01-09,Ré\u200bti,A,1-0\n",
        encoding="utf-8",
    )
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 0
    out = capsys.readouterr().out
    assert INVISIBLE_NOTE.format(n=7, where="white_id 4, black_id 3") in out
    players = Store(root).read_players().column("player_id").to_pylist()
    assert sorted(players) == ["A", "B", "Réti"]
    # an id that is nothing but invisible characters is an empty id
    empty = tmp_path / "empty.csv"
    empty.write_text("date,white_id,black_id,result\n2024-01-10,\u200b\u200d,B,1-0\n")
    assert main(["ingest", str(empty), "--store", str(root)]) == 2
    out = capsys.readouterr().out
    assert "1 rows read, 0 games stored, 1 quarantined" in out


def test_a_streamed_parquet_file_says_its_invisible_characters_once(tmp_path, capsys, monkeypatch):
    """A Parquet games file is read slice by slice (stream_ingest.py); the note counts
    the ids cleaned over every slice, once, as for a file read whole."""
    from arpad.pipeline import stream_ingest

    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", 4)
    white = ["A", "\u200bA", "B", "C", "D", "A\u00ad", "B", "C", "\u200eC", "D"]
    black = ["B", "C", "D", "\ufeffA", "B", "C", "D", "A", "B", "C"]
    path = tmp_path / "zw.parquet"
    pl.DataFrame(
        {
            "game_id": [f"g{i}" for i in range(10)],
            "date": ["2024-01-05"] * 10,
            "white_id": white,
            "black_id": black,
            "score": [1.0, 0.5, 0.0, 1.0, 1.0, 0.0, 0.5, 1.0, 0.0, 1.0],
        }
    ).write_parquet(path, row_group_size=3)
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.count("invisible characters") == 1, out
    assert INVISIBLE_NOTE.format(n=4, where="white_id 3, black_id 1") in out
    players = Store(root).read_players().column("player_id").to_pylist()
    assert sorted(players) == ["A", "B", "C", "D"]


def test_a_players_file_id_is_cleaned_its_name_kept(tmp_path, capsys):
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2024-01-05,A,B,1-0\n")
    players = tmp_path / "p.csv"
    players.write_text("player_id,name\n\u200bA,Evil\u202e Name\n", encoding="utf-8")
    root = tmp_path / "s"
    assert main(["ingest", str(games), "--store", str(root)]) == 0
    assert main(["ingest", str(players), "--store", str(root)]) == 0
    assert INVISIBLE_NOTE.format(n=1, where="player_id 1") in capsys.readouterr().out
    table = Store(root).read_players().to_pylist()
    names = {r["player_id"]: r["name"] for r in table}
    assert names == {"A": "Evil\u202e Name", "B": None}


def test_pgn_names_with_invisible_characters_are_one_player(tmp_path, capsys):
    game = (
        '[Event "E"]\n[Site "S"]\n[Date "2024.01.0{day}"]\n[Round "{day}"]\n'
        '[White "{white}"]\n[Black "Nakamura, Hikaru"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    )
    path = tmp_path / "g.pgn"
    path.write_text(
        game.format(day=5, white="\u200bCarlsen, Magnus")
        + game.format(day=6, white="Carlsen, Magnus"),
        encoding="utf-8",
    )
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 0
    out = capsys.readouterr().out
    assert "2 rows read, 2 games stored, 0 quarantined" in out
    assert "players described by the file: 2 read, 2 merged, 0 quarantined" in out
    assert INVISIBLE_NOTE.format(n=1, where="White 1") in out
    players = Store(root).read_players().select(["player_id", "name"]).to_pylist()
    assert sorted((p["player_id"], p["name"]) for p in players) == [
        ("g.pgn:Carlsen, Magnus", "Carlsen, Magnus"),
        ("g.pgn:Nakamura, Hikaru", "Nakamura, Hikaru"),
    ]


def test_a_parquet_file_ids_are_cleaned_too(tmp_path, capsys):
    path = tmp_path / "zw.parquet"
    pl.DataFrame(
        {
            "date": ["2024-01-05", "2024-01-06"],
            "white_id": ["\u200bA", "A"],
            "black_id": ["B", "B\u200f"],
            "result": ["1-0", "0-1"],
        }
    ).write_parquet(path)
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 0
    assert sorted(Store(root).read_players().column("player_id").to_pylist()) == ["A", "B"]


# -- very wide files ----------------------------------------------------------------------


def test_a_header_of_too_many_columns_is_refused_at_once(tmp_path, capsys):
    """More than 200,000 columns (a 100,000-column wide export still ingests:
    tests/test_hostile_input.py ``test_a_hundred_thousand_columns``)."""
    head = "date,white_id,black_id,result"
    wide = tmp_path / "wide.csv"
    wide.write_text(head + "".join(f",x{i}" for i in range(199_997)) + "\n2024-01-05,A,B,1-0\n")
    assert main(["ingest", str(wide), "--store", str(tmp_path / "s")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line == f"arpad: error: {wide}:1: 200001 columns in the header (at most 200000)"
    huge = tmp_path / "huge.csv"  # a million columns, 9 MB: 25 s and 1.6 GB before
    huge.write_text(head + ",c" * 1_000_000 + "\n2024-01-05,A,B,1-0\n")
    started = time.monotonic()
    assert main(["ingest", str(huge), "--store", str(tmp_path / "s")]) == 2
    assert time.monotonic() - started < 10
    line = one_error_line(capsys.readouterr().err)
    assert line == f"arpad: error: {huge}:1: 1000004 columns in the header (at most 200000)"
    assert not (tmp_path / "s" / "manifest").exists()


def test_duplicate_column_names_are_named_once_each(tmp_path, capsys):
    """The message printed the whole header: 200,000 names on one line."""
    path = tmp_path / "dup.csv"
    path.write_text("date,white_id,black_id,result,White_ID" + ",c" * 100_000 + "\n")
    assert main(["ingest", str(path), "--store", str(tmp_path / "s")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line == (
        f"arpad: error: {path}:1: duplicate column names in header: 'white_id', 'White_ID', 'c'"
    )


def test_a_parquet_file_of_too_many_columns_is_refused(tmp_path, capsys, monkeypatch):
    from arpad.pipeline import readers

    monkeypatch.setattr(readers, "MAX_COLUMNS", 1000)  # writing 200,001 columns takes long
    columns = {"date": ["2024-01-05"], "white_id": ["A"], "black_id": ["B"], "result": ["1-0"]}
    columns.update({f"c{i}": [i] for i in range(996)})
    fine = tmp_path / "fine.parquet"
    pq.write_table(pa.table(columns), fine)
    assert main(["ingest", str(fine), "--store", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    columns["c996"] = [1]
    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table(columns), path)
    assert main(["ingest", str(path), "--store", str(tmp_path / "s")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line == f"arpad: error: {path}: 1001 columns (at most 1000)"


# -- spreadsheet workbooks ----------------------------------------------------------------

EXCEL = "an Excel workbook: save it as CSV (File > Save As > CSV UTF-8) and ingest the CSV"


def _xlsx(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("xl/workbook.xml", "<workbook/>")
    return path


@pytest.mark.parametrize(
    "name, fmt",
    [("x.xlsx", None), ("x.xlsx", "csv"), ("x.xlsx", "parquet"), ("x.csv", None), ("x.zip", None)],
)
def test_an_excel_workbook_is_named_as_such(tmp_path, capsys, name, fmt):
    path = _xlsx(tmp_path / name)
    argv = ["ingest", str(path), "--store", str(tmp_path / "s")]
    assert main(argv + (["--format", fmt] if fmt else [])) == 2
    assert one_error_line(capsys.readouterr().err) == f"arpad: error: {path}: {EXCEL}"
    assert not (tmp_path / "s" / "manifest").exists()


def test_xls_and_ods_workbooks_and_text_under_a_workbook_name(tmp_path, capsys):
    store = str(tmp_path / "s")
    xls = tmp_path / "old.csv"
    xls.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    assert main(["ingest", str(xls), "--store", store]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"arpad: error: {xls}: an Excel workbook (.xls): save it as CSV (File > Save As > "
        "CSV UTF-8) and ingest the CSV"
    )
    ods = tmp_path / "sheet.ods"
    with zipfile.ZipFile(ods, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr("content.xml", "<x/>")
    assert main(["ingest", str(ods), "--store", store, "--format", "csv"]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"arpad: error: {ods}: a spreadsheet workbook (OpenDocument): save it as CSV "
        "(File > Save As > CSV UTF-8) and ingest the CSV"
    )
    text = tmp_path / "export.xls"  # a web application's tab-separated "Excel" export
    text.write_text("date\twhite_id\tblack_id\tresult\n2024-01-05\tA\tB\t1-0\n")
    assert main(["ingest", str(text), "--store", store]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"arpad: error: {text}: {EXCEL} (text under this name: --format csv)"
    )
    assert main(["ingest", str(text), "--store", store, "--format", "csv"]) == 0
    assert "1 rows read, 1 games stored, 0 quarantined" in capsys.readouterr().out


def test_arpad_sql_timeout_on_the_command_line(small_store, capsys):
    """`arpad sql --timeout SECONDS`: exit 2, one line; a quick query is not touched."""
    argv = ["sql", "--store", str(small_store), "--format", "csv"]
    assert main([*argv, SLOW, "--timeout", "0.5"]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        "arpad: error: query ran longer than 0.5 s (--timeout): stopped"
    )
    assert main([*argv, "SELECT count(*) AS n FROM games", "--timeout", "30"]) == 0
    assert capsys.readouterr().out.split() == ["n", "3"]


def test_a_signed_date_is_a_bad_date(tmp_path, capsys):
    """`+2024-01-05` was read as 2024-01-05 (strptime takes a sign before the year)."""
    path = tmp_path / "g.csv"
    path.write_text("date,white_id,black_id,result\n+2024-01-05,A,B,1-0\n2024-01-06,A,B,1-0\n")
    root = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(root)]) == 2
    assert f"{path}:2: bad_date: date +2024-01-05 is not a valid" in capsys.readouterr().err
    got = sql.run_readonly_sql(Store(root), "SELECT date FROM games", [])
    assert [str(d) for d in got["date"].to_list()] == ["2024-01-06"]
