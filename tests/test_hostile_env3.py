"""A hostile environment, round 3: standard output on a full device or closed, a file
replaced under ``arpad sql``, ``arpad check`` during a write, symlink loops and
over-long names, ``--`` before an input, ``/dev/stdin`` as an input."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from arpad.pipeline import catalog, lean
from arpad.pipeline.cli import main

PLAYERS = [f"P{i}" for i in range(8)]


def _games(path: Path, month: int) -> None:
    lines = ["date,white_id,black_id,score"]
    for j in range(12):
        w, b = PLAYERS[j % 8], PLAYERS[(j + 3) % 8]
        lines.append(f"2025-{month:02d}-{1 + j:02d},{w},{b},{(0, 0.5, 1)[j % 3]}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def store(tmp_path):
    """A store of two months of 12 games each (24 games)."""
    for month in (1, 2):
        _games(tmp_path / f"g{month}.csv", month)
    target = tmp_path / "store"
    files = [str(tmp_path / "g1.csv"), str(tmp_path / "g2.csv")]
    assert main(["ingest", "--no-flow", "--store", str(target), *files]) == 0
    return target


def count_games(capsys, store: Path) -> str:
    capsys.readouterr()
    code = main(
        ["sql", "SELECT count(*) AS n FROM games", "--store", str(store), "--format", "csv"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.split()[-1]


class _FullDevice:
    """A standard output on a full device (``> /dev/full``)."""

    encoding = "utf-8"

    def write(self, text):
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self):
        pass

    def isatty(self):
        return False


def test_a_full_standard_output_is_named_and_the_ingest_is_kept(tmp_path, capsys, monkeypatch):
    _games(tmp_path / "g1.csv", 1)
    target = tmp_path / "store"
    monkeypatch.setattr(sys, "stdout", _FullDevice())
    code = main(["ingest", "--no-flow", "--store", str(target), str(tmp_path / "g1.csv")])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2
    assert "could not write the command's output to standard output: disk full" in err
    assert "the store is as before" not in err  # the old, false claim
    assert count_games(capsys, target) == "12"  # the 12 games of g1.csv are stored


def test_a_closed_standard_output_is_one_line_and_the_ingest_is_kept(tmp_path, capsys, monkeypatch):
    _games(tmp_path / "g1.csv", 1)
    target = tmp_path / "store"
    monkeypatch.setattr(sys, "stdout", None)  # `arpad ingest ... >&-`
    code = main(["ingest", "--no-flow", "--store", str(target), str(tmp_path / "g1.csv")])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2
    assert "standard output is closed" in err and "Traceback" not in err
    assert count_games(capsys, target) == "12"


def test_exit_now_with_a_closed_standard_output(monkeypatch):
    codes = []
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(os, "_exit", codes.append)
    lean.exit_now(0)  # was: AttributeError, 'NoneType' object has no attribute 'flush'
    assert codes == [0]


def test_sql_makes_its_query_again_when_a_file_is_replaced_under_it(store, capsys, monkeypatch):
    real = catalog.query_arrow
    replaced = []

    def replace_then_query(con, sql, params=None, **kw):
        if not replaced:  # an ingest replaces a period's file after sql listed the files
            old = sorted(store.glob("games/**/*.parquet"))[0]
            new = old.with_name("part-replaced.parquet")
            old.rename(new)
            replaced.append(new)
        return real(con, sql, params, **kw)

    monkeypatch.setattr(catalog, "query_arrow", replace_then_query)
    # 2 files of 12 games; one renamed between listing and reading: still 12 + 12 = 24
    assert count_games(capsys, store) == "24"
    assert len(replaced) == 1


def test_sql_makes_its_query_again_when_a_file_is_deleted_under_it(store, capsys, monkeypatch):
    real = catalog.query_arrow
    deleted = []

    def delete_then_query(con, sql, params=None, **kw):
        if not deleted:  # a correction removed a period's file after sql listed the files
            victim = sorted(store.glob("games/**/*.parquet"))[0]
            victim.unlink()
            deleted.append(victim)
        return real(con, sql, params, **kw)

    monkeypatch.setattr(catalog, "query_arrow", delete_then_query)
    assert count_games(capsys, store) == "12"  # 24 - the 12 games of the deleted file


def test_check_refuses_a_store_being_written(store, capsys):
    from arpad.pipeline.store import writer_lock

    capsys.readouterr()
    with writer_lock(store, "rate"):
        code = main(["check", "--store", str(store)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"the store {store} is being written by pid {os.getpid()} (rate, since" in err
    assert "check again when it is done" in err
    capsys.readouterr()
    assert main(["check", "--store", str(store)]) == 0  # the lock released: checked


def test_check_skips_a_hidden_temporary_folder_and_a_file_gone_under_it(store, capsys, monkeypatch):
    from arpad.pipeline import integrity

    # a folder a rate moves aside, named like a period folder (was: "not a period folder")
    aside = store / "games" / "pool=standard" / ".period=59.123.kept.tmp"
    aside.mkdir(parents=True)
    (aside / "part-x.parquet").write_bytes(b"not parquet")
    real = integrity.open_parquet
    gone = []

    def vanish(path, *args):
        if not gone:  # a writer removes the first file after the walk listed it
            gone.append(Path(path))
            raise FileNotFoundError(2, "Failed to open local file", str(path))
        return real(path, *args)

    monkeypatch.setattr(integrity, "open_parquet", vanish)
    capsys.readouterr()
    code = main(["check", "--store", str(store)])
    out = capsys.readouterr().out
    assert (code, len(gone)) == (0, 1), out
    assert "no problem found" in out and ".period=59" not in out


def test_a_symlink_loop_and_an_over_long_name_are_one_line(tmp_path, capsys):
    (tmp_path / "loopA").symlink_to(tmp_path / "loopB")
    (tmp_path / "loopB").symlink_to(tmp_path / "loopA")
    capsys.readouterr()
    assert main(["list", "--store", str(tmp_path / "loopA")]) == 2  # was: exit 1, traceback
    err = capsys.readouterr().err
    assert err.startswith(f"arpad: error: {tmp_path / 'loopA'}") and "Traceback" not in err
    assert "too many levels of symbolic links" in err
    long = str(tmp_path / ("x" * 300))  # a name of 300 > 255 bytes
    assert main(["ingest", "--no-flow", "--store", str(tmp_path / "s"), long + ".csv"]) == 2
    err = capsys.readouterr().err
    assert err == f"arpad: error: {long}.csv: file name too long\n"


def test_double_dash_ends_the_options(tmp_path, capsys, monkeypatch):
    _games(tmp_path / "-games.csv", 1)
    monkeypatch.chdir(tmp_path)
    code = main(["ingest", "--no-flow", "--store", "s", "--", "-games.csv"])
    assert code == 0, capsys.readouterr().err
    assert count_games(capsys, tmp_path / "s") == "12"


@pytest.mark.parametrize("name", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-", "link"])
def test_standard_input_is_refused_with_its_remedy(tmp_path, capsys, name):
    if name == "link":
        (tmp_path / "link").symlink_to("/proc/self/fd/0")
        name = str(tmp_path / "link")
    code = main(["ingest", "--no-flow", "--store", str(tmp_path / "s"), name, "--format", "csv"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"arpad: error: {name}: standard input")
    assert "save the data to a file first" in err
