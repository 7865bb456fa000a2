"""A tracked `arpad ingest` (PREFECT_API_URL set) prints exactly what ``--no-flow``
prints (docs/runners.md "Logs of a tracked run"): it named the files by their absolute
paths, the flow's parameters (round 7, ops7 #3); and the flow's summary line on the server
has thousands separators, as its task lines."""

from __future__ import annotations

import subprocess

import pytest

from tests.test_flow_logs import ARPAD, kaggle_months, run_logs, tracked_env


@pytest.mark.prefect
def test_a_tracked_ingest_names_files_as_typed(tmp_path, prefect_harness):
    kaggle_months(tmp_path / "k.csv", range(1, 4))
    (tmp_path / "bad.csv").write_text(
        '"Month #","White Player #","Black Player #","Score"\n91,1,2,7\n91,3,4,1\n'
    )
    (tmp_path / "nohead.csv").write_text("a,b\n1,2\n")
    env = tracked_env(prefect_harness)

    def ingest(*args):
        return subprocess.run(
            [ARPAD, "ingest", *args, "--mapping", "kaggle2010"],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip

    quiet = ingest("k.csv", "bad.csv", "--store", "a", "--no-flow")
    tracked = ingest("k.csv", "bad.csv", "--store", "b")
    assert quiet.returncode == tracked.returncode == 2
    assert tracked.stdout.splitlines() == [
        "k.csv: 1593 rows read, 1593 games stored, 0 quarantined",
        "bad.csv: 2 rows read, 1 games stored, 1 quarantined",
        "2 files: 1595 rows read, 1594 games stored, 1 quarantined",  # (docs/cli.md)
    ]
    assert "  bad.csv:2: score_out_of_range: score 7 is not 1, 0.5 or 0" in tracked.stderr
    same = quiet.stderr.replace(str(tmp_path / "a"), str(tmp_path / "b"))  # (the pointer)
    assert (tracked.stdout, tracked.stderr) == (quiet.stdout, same)
    # bad input: the one error line names the file as typed too
    quiet = ingest("nohead.csv", "--store", "a", "--no-flow")
    tracked = ingest("nohead.csv", "--store", "b")
    assert quiet.returncode == tracked.returncode == 2
    assert tracked.stderr.startswith("arpad: error: nohead.csv")
    assert tracked.stderr == quiet.stderr
    # the flow's summary line on the server
    messages = [m for _, _, logs in run_logs(tmp_path / "b", "ingest") for _, m in logs]
    assert "ingest: 2 files, 1,594 rows stored, 1 quarantined" in messages
