"""Where ``--output`` lands, and where a store may be started (docs/cli.md "Output
files", docs/store.md "Where a store may be started").

Defects (hostile user, round 5), each test failing before the fix:
1. every --output was written to a temporary file renamed over the target, so
   ``--output /dev/null`` replaced the device, ``--output /dev/stdout`` the symlink
   (nothing printed, exit 0), a FIFO became a regular file and ``/dev/full`` exited 0;
2. ``--output`` naming one of the command's input files overwrote it, exit 0;
3. ``arpad ingest X --store .`` made an unrelated, non-empty folder a store.

Never the real /dev/null or /dev/stdout: FIFOs, symlinks and descriptors made here.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from arpad.pipeline.cli import main

GAMES = "date,white_id,black_id,result\n2024-01-05,a,b,1-0\n2024-01-06,c,d,0-1\n"
PLAYERS = "player_id,name,rating\na,A,2000\nb,B,1900\nc,C,1800\nd,D,1700\n"
SYSTEM = "elo"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("output_targets")
    (root / "g.csv").write_text(GAMES)
    (root / "p.csv").write_text(PLAYERS)
    s = ["--store", str(root / "store")]
    assert (
        main(["ingest", "--no-flow", str(root / "g.csv"), "--players", str(root / "p.csv"), *s])
        == 0
    )
    assert main(["rate", "--no-flow", "--system", SYSTEM, *s]) == 0
    return root / "store"


def list_to(store: Path, target: Path, *more: str) -> int:
    return main(["list", "--system", SYSTEM, "--store", str(store), *more, "--output", str(target)])


def expected_csv(store: Path, tmp_path: Path) -> bytes:
    plain = tmp_path / "plain.csv"
    assert list_to(store, plain) == 0
    return plain.read_bytes()


def read_fifo(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def reader():
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, got


def test_a_fifo_gets_the_bytes_and_stays_a_fifo(store, tmp_path):
    want = expected_csv(store, tmp_path)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    thread, got = read_fifo(fifo)
    assert list_to(store, fifo) == 0
    thread.join(10)
    assert got == [want]  # before: nothing read, the FIFO replaced by a regular file
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_plot_into_a_fifo(store, tmp_path):
    fifo = tmp_path / "plot.png"
    os.mkfifo(fifo)
    thread, got = read_fifo(fifo)
    argv = ["plot", "distribution", "--system", SYSTEM, "--store", str(store)]
    assert main([*argv, "--output", str(fifo)]) == 0
    thread.join(10)
    assert got and got[0].startswith(b"\x89PNG\r\n\x1a\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_to_dev_null_stays_and_dev_null_too(store, tmp_path):
    link = tmp_path / "null.csv"
    link.symlink_to("/dev/null")
    assert list_to(store, link) == 0
    assert link.is_symlink() and os.readlink(link) == "/dev/null"  # before: a regular file
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    parquet = tmp_path / "null.parquet"
    parquet.symlink_to("/dev/null")
    assert list_to(store, parquet) == 0
    assert parquet.is_symlink()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_is_a_full_disk(store, tmp_path, capsys):
    link = tmp_path / "full.csv"
    link.symlink_to("/dev/full")
    capsys.readouterr()
    assert list_to(store, link) == 2  # before: exit 0, the symlink replaced by the list
    assert "disk full" in capsys.readouterr().err
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_symlink_to_a_file_writes_the_file(store, tmp_path):
    want = expected_csv(store, tmp_path)
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert list_to(store, link) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == want  # atomically, at the file the symlink names


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
def test_an_open_descriptor_is_written_through_not_renamed_over(store, tmp_path):
    """``--output /dev/stdout > out.csv`` (here a link to /proc/self/fd/N open on a
    regular file): the list goes after what the file holds, the file is the same."""
    want = expected_csv(store, tmp_path)
    out = tmp_path / "out.csv"
    out.write_bytes(b"earlier\n")
    fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    try:
        link = tmp_path / "stdout.csv"
        link.symlink_to(f"/proc/self/fd/{fd}")
        inode = os.stat(out).st_ino
        assert list_to(store, link) == 0
        assert link.is_symlink()
    finally:
        os.close(fd)
    assert os.stat(out).st_ino == inode
    assert out.read_bytes() == b"earlier\n" + want


def test_a_socket_is_refused_before_the_work(store, tmp_path, capsys):
    path = tmp_path / "s.csv"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        capsys.readouterr()
        assert list_to(store, path) == 2
        err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--output {path} is a socket" in err


# -- 2. an output that is one of the command's inputs ---------------------------------


def test_the_games_file_as_output_is_refused(tmp_path, capsys):
    games = tmp_path / "g.csv"
    games.write_text(GAMES)
    (tmp_path / "p.csv").write_text(PLAYERS)
    argv = ["performance", str(games), "--players", str(tmp_path / "p.csv")]
    assert main([*argv, "--output", str(games)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--output {games} is the command's input (FILE {games})" in err
    assert games.read_text() == GAMES  # before: the performance table, the games gone


def test_the_players_file_as_output_is_refused(tmp_path, capsys):
    players = tmp_path / "p.csv"
    players.write_text(PLAYERS)
    (tmp_path / "g.csv").write_text(GAMES)
    argv = ["performance", str(tmp_path / "g.csv"), "--players", str(players)]
    assert main([*argv, "--output", str(players)]) == 2
    assert f"(--players {players})" in capsys.readouterr().err
    assert players.read_text() == PLAYERS


def test_pairings_as_output_are_refused_also_through_a_symlink(store, tmp_path, capsys):
    pairs = tmp_path / "pair.csv"
    pairs.write_text("white_id,black_id\na,b\n")
    link = tmp_path / "link.csv"
    link.symlink_to(pairs)
    argv = ["predict", "--system", SYSTEM, "--store", str(store)]
    assert main([*argv, str(link), "--output", str(pairs)]) == 2
    assert "is the command's input" in capsys.readouterr().err
    assert pairs.read_text() == "white_id,black_id\na,b\n"
    assert main([*argv, str(pairs), "--output", str(tmp_path / "out.csv")]) == 0


def test_an_allowed_file_as_sql_output_is_refused(store, tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("x\n1\n")
    argv = ["sql", "SELECT * FROM t", "--store", str(store), "--allow-file", f"t={table}"]
    assert main([*argv, "--output", str(table)]) == 2
    assert f"(--allow-file t={table})" in capsys.readouterr().err
    assert table.read_text() == "x\n1\n"


# -- 3. where a store may be started ---------------------------------------------------


def test_a_new_store_in_a_folder_of_other_things_is_refused(tmp_path, capsys):
    folder = tmp_path / "home"
    (folder / "games").mkdir(parents=True)
    (folder / "games" / "mine.pgn").write_text('[Event "mine"]\n')
    (folder / "notes.txt").write_text("mine\n")
    (tmp_path / "g.csv").write_text(GAMES)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    assert main(["ingest", "--no-flow", str(tmp_path / "g.csv"), "--store", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "holds other things (games, notes.txt) and no arpad store" in err
    assert "give an empty or new folder" in err
    # untouched: no .lock, no partitions in the user's games/ (before: pool=standard/)
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert not (folder / ".lock").exists()


def test_an_empty_folder_and_an_existing_store_are_fine(tmp_path):
    (tmp_path / "g.csv").write_text(GAMES)
    empty = tmp_path / "empty"
    empty.mkdir()
    for _ in range(2):  # a new store in an empty folder, then the same store again
        assert main(["ingest", "--no-flow", str(tmp_path / "g.csv"), "--store", str(empty)]) == 0
    assert (empty / "store.json").is_file()
    # a store begun by a first ingest stopped half-way (its own folders, nothing else)
    started = tmp_path / "started"
    (started / "games" / "pool=standard").mkdir(parents=True)
    (started / "players").mkdir()
    (started / ".lock").write_text("")
    assert main(["ingest", "--no-flow", str(tmp_path / "g.csv"), "--store", str(started)]) == 0
