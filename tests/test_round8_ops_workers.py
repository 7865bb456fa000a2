"""Dask workers of another arpad (round 8, ops8 #1; docs/runners.md "Workers of another
arpad"). Workers started before an upgrade of arpad kept the old modules: the next
``--cluster`` command unpickled the new client's objects against them and died with a
150-line traceback and "internal error", or would have rated with the old code. Now a
command that connects to an existing scheduler compares ``runner.source_digest`` of its
own arpad with every worker's and refuses in one line, exit 2.

The workers here run a real other arpad: a copy of the installed packages, laid out as
a wheel installs them, on the workers' PYTHONPATH (ahead of the editable install)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arpad
import arpad.flows
import arpad.kernels
import arpad.pipeline
from arpad.pipeline import runner
from arpad.pipeline.cli import main
from tests.conftest import free_port, kill_process_groups, wait_for_port, write_csv
from tests.test_runner_attack3 import plain_env

DIGEST = "from arpad.pipeline.runner import source_digest; print(source_digest())"


def installed_copy(where: Path, extra_line: bool = False) -> Path:
    """arpad's packages copied under ``where`` as a wheel lays them out (``arpad/``,
    ``arpad/pipeline/``, …); with ``extra_line``, pipeline/engine.py gains a comment
    line (another build). ``where`` is what PYTHONPATH takes."""
    skip = shutil.ignore_patterns("__pycache__", "_aot")
    root = where / "arpad"
    shutil.copytree(Path(arpad.__file__).parent, root, ignore=skip, dirs_exist_ok=True)
    for package in (arpad.pipeline, arpad.kernels, arpad.flows):
        name = package.__name__.rsplit(".", 1)[1]
        shutil.copytree(Path(package.__file__).parent, root / name, ignore=skip, dirs_exist_ok=True)
    if extra_line:
        engine = root / "pipeline" / "engine.py"
        engine.write_text(engine.read_text() + "# another build\n")
    return where


def digest_with(pythonpath: Path) -> str:
    env = plain_env(PYTHONPATH=str(pythonpath))
    out = subprocess.run([sys.executable, "-c", DIGEST], env=env, cwd=pythonpath,
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.strip()


def test_the_digest_is_the_sources_not_where_they_are_installed(tmp_path):
    """The same sources laid out as a wheel give this checkout's digest; one comment
    line more in one module gives another."""
    same = installed_copy(tmp_path / "same")
    other = installed_copy(tmp_path / "other", extra_line=True)
    here = runner.source_digest()
    assert len(here) == 64
    assert digest_with(same) == here
    assert digest_with(other) != here


def test_the_line_counts_the_workers_of_each_build(monkeypatch):
    """Workers of two other builds, and one whose arpad has no ``source_digest`` (older
    than the check: its ``client.run`` returns the error), are each named with their count."""
    here = runner.source_digest()

    class Client:
        def run(self, fn, on_error):
            assert fn is runner.source_digest and on_error == "return"
            return {"w1": "a" * 64, "w2": "a" * 64, "w3": AttributeError("source_digest"),
                    "w4": here}  # fmt: skip

    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    with pytest.raises(ValueError) as info:
        runner.check_workers_build(Client(), "tcp://10.0.0.5:8786")
    assert str(info.value) == (
        "the Dask workers at tcp://10.0.0.5:8786 run another version of arpad (sources "
        f"differ: {here[:8]} here, aaaaaaaa on 2 of 4 workers, unknown (an older arpad) on 1 "
        "of 4 workers); restart them (dask worker tcp://10.0.0.5:8786) after an upgrade"
    )


@pytest.fixture
def cluster(tmp_path):
    """A real ``dask scheduler`` in another folder; ``add(pythonpath)`` starts a ``dask
    worker`` process of two workers whose arpad is the one on ``pythonpath`` and waits
    for them; ``stop(proc)`` stops one. Everything is stopped at the end."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log = open(tmp_path / "dask.log", "w")
    procs = []

    def start(*args, env):
        procs.append(subprocess.Popen([dask, *args], env=env, cwd=elsewhere, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip
        return procs[-1]

    env = plain_env(NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("ARPAD_CLUSTER", None)
    start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard", env=env)
    wait_for_port(port, tmp_path / "dask.log")

    def add(pythonpath: Path):
        proc = start("worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                     "--local-directory", str(tmp_path / "dask-worker"),
                     env={**env, "PYTHONPATH": str(pythonpath)})  # fmt: skip
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=120)
        return proc

    def stop(proc):
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        with Client(address, timeout="30s") as client:
            deadline = time.monotonic() + 60
            while client.nthreads() and time.monotonic() < deadline:
                time.sleep(0.2)

    try:
        yield address, add, stop
    finally:
        kill_process_groups(procs, log)


@pytest.mark.once
def test_workers_of_another_arpad_are_refused_in_one_line(tmp_path, cluster, capsys, monkeypatch):
    """`arpad ingest --cluster` to workers of another build: one line, exit 2, no store
    made; the flow's Dask task runner says the same when its run starts. Workers of the
    same sources installed elsewhere (a wheel's layout) are accepted."""
    from arpad.flows.task_runners import CheckedDaskTaskRunner

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    address, add, stop = cluster
    other = installed_copy(tmp_path / "other", extra_line=True)
    theirs, here = digest_with(other)[:8], runner.source_digest()[:8]
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result",
                      ["2025-01-10,a,b,1-0", "2025-01-11,c,d,1/2-1/2"])  # fmt: skip
    store = tmp_path / "s"
    said = (
        f"the Dask workers at {address} run another version of arpad (sources differ: "
        f"{here} here, {theirs} on 2 of 2 workers); restart them (dask worker {address}) "
        "after an upgrade"
    )

    old = add(other)
    args = ["ingest", str(games), "--store", str(store), "--no-flow", "--cluster", address]
    assert main(args) == 2
    assert capsys.readouterr().err == f"arpad: error: {said}\n"
    assert not store.exists()
    with CheckedDaskTaskRunner(address=address) as task_runner:
        with pytest.raises(ValueError) as info:
            task_runner.ready()
    assert str(info.value) == said

    stop(old)  # restarted after the upgrade: this arpad, installed elsewhere
    add(installed_copy(tmp_path / "same"))
    assert main(args) == 0
    assert "g.csv: 2 rows read, 2 games stored, 0 quarantined" in capsys.readouterr().out
