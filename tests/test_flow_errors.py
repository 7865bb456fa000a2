"""Bad input in a tracked run (docs/runners.md "Bad input in a flow"): with
PREFECT_API_URL set every command runs as a flow, and a bad file printed Prefect's
traceback (~90 lines) before arpad's one line; now the terminal shows the one line and
the exit code of the in-process run, and the server keeps the run's log lines."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arpad.flows.common import _quiet_user_errors
from arpad.pipeline.errors import InputError


@pytest.mark.prefect
def test_a_bad_file_as_a_flow_is_the_one_line_of_the_run_in_process(tmp_path, prefect_harness):
    bad = tmp_path / "bad.csv"
    bad.write_text("white_id,black_id\nA,B\n")
    arpad = str(Path(sys.executable).with_name("arpad"))
    env = {**os.environ, "PREFECT_API_URL": prefect_harness, "PREFECT_LOGGING_LEVEL": "INFO"}
    cmd = [arpad, "ingest", str(bad), "--store", str(tmp_path / "S")]
    tracked = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    local = subprocess.run([*cmd, "--no-flow"], env=env, capture_output=True, text=True)
    line = f"arpad: error: {bad}:1: missing required column(s): result or score, date or period"
    line += "; found: white_id, black_id"  # the columns found are named (round 8)
    assert (tracked.returncode, local.returncode) == (2, 2)
    assert local.stderr.splitlines() == [line]
    assert [x for x in tracked.stderr.splitlines() if "ERROR" in x or "Trace" in x] == []
    assert tracked.stderr.splitlines()[-1] == line


def test_the_filter_drops_user_errors_only_and_is_removed_after(caplog):
    handler = logging.StreamHandler()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with _quiet_user_errors():
            (quiet,) = handler.filters
            try:
                raise InputError("f.csv", 1, "bad")
            except InputError:
                user = logging.LogRecord("prefect.flow_runs", 40, "", 0, "x", (), sys.exc_info())
            try:
                raise RuntimeError("a bug")
            except RuntimeError:
                bug = logging.LogRecord("prefect.flow_runs", 40, "", 0, "x", (), sys.exc_info())
            task = logging.LogRecord(
                "prefect.task_runs", 40, "", 0,
                "Finished in state Failed('Task run encountered an exception InputError: f')",
                (), None,
            )  # fmt: skip
            other = logging.LogRecord("prefect.task_runs", 40, "", 0, "Finished", (), None)
            assert [quiet.filter(r) for r in (user, bug, task, other)] == [
                False,
                True,
                False,
                True,
            ]
        assert handler.filters == []
    finally:
        root.removeHandler(handler)
