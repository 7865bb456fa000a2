"""Stopping `arpad serve` (round 8, ops8 #5; docs/runners.md "Stopping `arpad serve`").

Started in the background from a script (`arpad serve … &`: the shell starts the job with
SIGINT ignored, and Python keeps it so), `kill -INT` left it serving for good, and
SIGTERM stopped it after a while without a word (Prefect's runner had replaced the
CLI's handler). Now both stop it with the line every command gives, exit 130 or 143."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from arpad.pipeline.cli import INTERRUPTED, TERMINATED, main
from tests.test_flow_logs import ARPAD, kaggle_months, tracked_env


def ignore_sigint() -> None:
    """What a shell does for a background job (`cmd &` in a script)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.prefect
@pytest.mark.parametrize(
    "signum, code, line",
    [(signal.SIGINT, 130, INTERRUPTED), (signal.SIGTERM, 143, TERMINATED)],
)
def test_serve_started_in_the_background_stops_on_a_signal(
    tmp_path, prefect_harness, signum, code, line
):
    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", [1])
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    name = f"stop-{signum}-{time.time_ns()}"
    serve = subprocess.Popen(
        [ARPAD, "serve", "--store", str(store), "--inbox", str(inbox), "--name", name,
         "--systems", "elo", "--mapping", "kaggle2010"],
        env=tracked_env(prefect_harness), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=ignore_sigint,
    )  # fmt: skip
    try:
        first = serve.stderr.readline()
        assert first.startswith(f"serving recalculate/{name} on '0 3 1 * *' UTC"), first
        time.sleep(3)  # the runner polls its schedule
        assert serve.poll() is None
        serve.send_signal(signum)
        _, err = serve.communicate(timeout=30)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.communicate()
    assert serve.returncode == code
    assert err == line + "\n"
    assert first.endswith(f"(Ctrl-C or kill -INT/-TERM {serve.pid} stops it)\n"), first
