"""The monthly job's requests checked before any work, and its inbox and input paths
(the ops attack, docs/runners.md "Requests checked before any work"): an unknown pool,
mapping, format or time zone is exit 2 with nothing read or moved; an inbox file that
cannot be archived is one line; input files are absolute paths in the request (read
by Dask workers in other folders, recorded in a flow run's parameters) while messages
name them as given; ``serve --cluster`` names the option, not ARPAD_CLUSTER."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from tests.conftest import free_port, kill_process_groups, wait_for_port, write_csv
from tests.test_cli_flow import small_store

ARPAD = str(Path(sys.executable).with_name("arpad"))
POOLS_LINE = "is not one of standard, rapid, blitz"


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` with its content hash (folders as "dir")."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def month(tmp_path, capsys, monkeypatch):
    """A store rated with Elo for 2025-01..02 and an inbox holding March's games."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    players, games = small_store(tmp_path)
    store = tmp_path / "s"
    assert main(["ingest", str(games), "--players", str(players), "--store", str(store)]) == 0
    assert main(["rate", "--system", "elo", "--store", str(store)]) == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_csv(inbox / "march.csv", "date,white_id,black_id,result", ["2025-03-02,a,c,1-0"])
    capsys.readouterr()
    return store, inbox


def refused(capsys, args: list[str], text: str) -> None:
    assert main(args) == 2, args
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and text in err, err


@pytest.mark.parametrize(
    ("extra", "text"),
    [
        (["--pools", "nosuch"], f"arpad: error: --pools: 'nosuch' {POOLS_LINE}"),
        (["--pools", "standard,standrad"], f"--pools: 'standrad' {POOLS_LINE}"),
        (["--mapping", "nosuch"], "arpad: error: --mapping nosuch: unknown mapping (known: "),
        (["--format", "xls"], "arpad: error: --format xls: unknown format (known: csv, "),
    ],
)
def test_recalculate_refuses_before_reading_or_moving(month, capsys, extra, text):
    """`recalculate --pools nosuch` said "up to date" and exited 0 (nothing planned);
    `--mapping nosuch`/`--format xls` moved the delivery to rejected/ and froze the lists
    without it. docs/cli.md: an unknown mapping is "exit 2 before anything is read"."""
    store, inbox = month
    before = snapshot(store), snapshot(inbox)
    args = ["recalculate", "--store", str(store), "--inbox", str(inbox), "--systems", "elo"]
    refused(capsys, [*args, *extra, "--no-flow"], text)
    assert (snapshot(store), snapshot(inbox)) == before  # nothing ingested, nothing moved


def test_reconstruct_refuses_an_unknown_pool(month, capsys):
    store, _ = month
    before = snapshot(store)
    args = ["reconstruct", "--store", str(store), "--systems", "elo", "--pools", "standrad"]
    refused(capsys, [*args, "--no-flow"], f"--pools: 'standrad' {POOLS_LINE}")
    assert snapshot(store) == before


@pytest.mark.parametrize("command", ["serve", "deploy"])
def test_serve_and_deploy_check_the_request_first(month, capsys, command):
    """Accepted before (deploy exited 0 with `'pools': ['standrad']` in its parameters;
    the typo showed at 03:00 on the 1st); a bad --timezone was a pydantic error with
    literal \\n after "serving …". Checked before the server is asked for, so without
    one each is its own line, not the PREFECT_API_URL one."""
    store, inbox = month
    args = [command, "--store", str(store), "--inbox", str(inbox)]
    for extra, text in [
        (["--pools", "standrad"], f"--pools: 'standrad' {POOLS_LINE}"),
        (["--mapping", "nosuch"], "--mapping nosuch: unknown mapping"),
        (["--format", "xls"], "--format xls: unknown format"),
        (["--systems", "nosuch"], "unknown rating system 'nosuch'"),
        (
            ["--timezone", "Mars/Base"],
            "arpad: error: --timezone 'Mars/Base': not an IANA time zone name (for example "
            "UTC or Europe/Budapest)",
        ),
    ]:
        refused(capsys, [*args, *extra], text)
    # valid values pass these checks: the next refusal is the missing server's
    valid = ["--pools", "standard", "--mapping", "kaggle2010", "--format", "CSV"]
    refused(capsys, [*args, *valid, "--timezone", "Europe/Budapest"], "PREFECT_API_URL")


def test_an_inbox_file_that_cannot_be_archived_is_one_line(month, capsys):
    """INBOX/processed a file (as an unwritable folder): a 28-line FileExistsError
    traceback and "internal error (exit 1)". The failed run is undone (pipeline/store.py
    ``undo_on_failure``): the store is as before and the file still in the inbox."""
    store, inbox = month
    (inbox / "processed").write_text("x\n")
    before = snapshot(store), snapshot(inbox)
    args = ["recalculate", "--store", str(store), "--inbox", str(inbox), "--systems", "elo"]
    refused(
        capsys,
        [*args, "--no-flow"],
        f"arpad: error: {inbox / 'processed'}: cannot move march.csv there (a file, not a "
        "folder): the run is undone, the store is as before and the files are still in "
        f"the inbox; make {inbox / 'processed'} a writable folder and run again",
    )
    assert (snapshot(store), snapshot(inbox)) == before


def test_archive_errors_are_retried_then_bad_input(tmp_path, monkeypatch):
    """A folder that refuses the file (EACCES): an OSError, so a flow's I/O task retries
    it (flows/runner.py ``retry_on_os_error``), and a ValueError, so the CLI says it in
    one line (exit 2) and the flow's terminal lines stay quiet (flows/common.py)."""
    from arpad.pipeline import monthly

    (tmp_path / "inbox").mkdir()
    src = write_csv(tmp_path / "inbox" / "march.csv", "date,white_id,black_id,result", [])
    real = os.replace

    def refuse(a, b):
        if Path(b).parent.name == "processed":
            raise PermissionError(13, "Permission denied", str(b))
        return real(a, b)

    monkeypatch.setattr(monthly.os, "replace", refuse)
    with pytest.raises(ValueError) as info:
        monthly.archive(tmp_path / "inbox", str(src), "processed")
    assert isinstance(info.value, OSError)
    assert str(info.value).startswith(
        f"{tmp_path / 'inbox' / 'processed'}: cannot move march.csv there (Permission denied)"
    )
    assert src.exists()


def test_input_files_are_absolute_and_named_as_given(tmp_path, capsys, monkeypatch):
    """`ingest g.csv` kept "g.csv" in the request: a Dask worker in another folder said
    "no such file" and the flow run's parameters (the request's fields, launch.py) held
    a relative path, though docs/runners.md says they are absolute. Messages still name
    the files as typed: the summary line, a quarantined row, a bad file's error."""
    from arpad.pipeline.jobs import IngestRequest

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    players, games = small_store(tmp_path)
    with games.open("a") as fh:
        fh.write("2025-02-05,a,a,1-0\n")  # line 6: a self-play row, quarantined
    monkeypatch.chdir(tmp_path)
    request = IngestRequest("s", ["g.csv"], ["p.csv"])
    fields = dataclasses.asdict(request)
    assert fields["files"] == [str(games)] and fields["players"] == [str(players)]
    assert main(["ingest", "g.csv", "--players", "p.csv", "--store", "s", "--no-flow"]) == 2
    out, err = capsys.readouterr()
    lines = (out + err).splitlines()
    assert any(
        line.startswith("g.csv: 5 rows read, 4 games stored, 1 quarantined") for line in lines
    )
    assert any(line.strip().startswith("g.csv:6: ") for line in lines), lines
    assert str(tmp_path) not in out
    write_csv(tmp_path / "bad.csv", "when,who", ["x,y"])
    assert main(["ingest", "bad.csv", "--store", "s", "--no-flow"]) == 2
    assert capsys.readouterr().err.startswith("arpad: error: bad.csv:")


@pytest.fixture
def elsewhere_cluster(tmp_path):
    """A ``dask scheduler`` and one ``dask worker`` started in another folder, as the
    attack's were (from /tmp): its address."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    log = open(tmp_path / "dask.log", "w")
    procs = []
    for args in (
        ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        ["worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
    ):
        procs.append(subprocess.Popen([dask, *args], cwd=folder, env=env, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip
        if args[0] == "scheduler":
            wait_for_port(port, tmp_path / "dask.log")
    try:
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(1, timeout=120)
        yield address
    finally:
        kill_process_groups(procs, log)


@pytest.mark.once
def test_ingest_on_a_cluster_reads_relative_paths(tmp_path, elsewhere_cluster):
    """`arpad ingest g.csv --players p.csv --cluster …` from the files' folder: the
    worker, started elsewhere, said "g.csv: no such file" (exit 2)."""
    small_store(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ARPAD_CLUSTER")}
    args = ["ingest", "g.csv", "--players", "p.csv", "--store", "s", "--no-flow"]
    proc = subprocess.run([ARPAD, *args, "--cluster", elsewhere_cluster], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "g.csv: 4 rows read, 4 games stored, 0 quarantined" in proc.stdout


@pytest.mark.prefect
def test_serve_names_the_cluster_option(month, capsys, prefect_harness):
    """`serve --cluster tcp://127.0.0.1:9` said "…at ARPAD_CLUSTER=tcp://127.0.0.1:9"
    (serve had put the address into that variable for its runs before probing)."""
    store, inbox = month
    args = ["serve", "--store", str(store), "--inbox", str(inbox), "--systems", "elo"]
    try:
        assert main([*args, "--cluster", "tcp://127.0.0.1:9"]) == 2
    finally:
        os.environ.pop("ARPAD_CLUSTER", None)
    err = capsys.readouterr().err
    assert err.startswith("arpad: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert "ARPAD_CLUSTER" not in err and "serving" not in err
