"""A deployment's runs (round 8, ops8 #2 and #4; docs/runners.md "A deployed run whose
scheduler is down", docs/operations.md "The schedule").

#2: the deployment's entrypoint probed ``ARPAD_CLUSTER`` while its module was imported,
so a run whose scheduler was down could not even load the flow: Crashed, with Prefect's
random name and 40 lines of traceback. Now the run checks its task runner when it
starts: Failed, named like every run, the one line as its message.

#4: ``arpad deploy --systems S`` of a system that needs published starting ratings, on a
store without any, was accepted silently, and every run failed at its plan step. Now a
warning says so (not a refusal: a players file may still come through the inbox)."""

from __future__ import annotations

import contextlib
import re
import shlex
import subprocess
import sys
import time

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.jobs import starting_ratings_reason
from arpad.pipeline.systems import get_system, system_names
from tests.conftest import REPO, free_port, run_deployment_once
from tests.test_flow_logs import kaggle_months
from tests.test_runner_attack3 import plain_env

CHECK = """
import arpad.flows.recalculate as module
from arpad.flows.task_runners import ready
try:
    ready(module.monthly_flow.task_runner)
except ValueError as exc:
    print(exc)
"""


def closed_port() -> str:
    return f"tcp://127.0.0.1:{free_port()}"


def load_the_entrypoint(**env) -> subprocess.CompletedProcess:
    """A fresh process that imports the deployment's entrypoint with ``env``, as a worker
    does when a run starts, then checks its task runner as the run's body does."""
    return subprocess.run([sys.executable, "-c", CHECK], env=plain_env(**env),
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_the_entrypoint_loads_with_its_scheduler_down_and_its_run_says_why():
    address = closed_port()
    out = load_the_entrypoint(ARPAD_CLUSTER=address)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == (
        f"cannot reach the Dask scheduler at ARPAD_CLUSTER={address}: Connection refused "
        "(is `dask scheduler` running there?)\n"
    )


@pytest.mark.parametrize(
    "env, said",
    [
        ({"ARPAD_WORKERS": "two"}, "ARPAD_WORKERS='two': takes a whole number of worker processes"),
        ({"ARPAD_WORKERS": "2", "ARPAD_CLUSTER": "tcp://127.0.0.1:9"},
         "ARPAD_WORKERS=2 and ARPAD_CLUSTER=tcp://127.0.0.1:9: give one (--workers starts a "
         "local cluster, --cluster uses the workers of a running scheduler)"),
    ],
)  # fmt: skip
def test_a_deployment_with_bad_dask_settings_fails_its_runs_with_the_line(env, said):
    """runners.md: "a deployment's run with a bad `ARPAD_WORKERS` fails with the same
    line" (it could not load the flow either)."""
    out = load_the_entrypoint(**env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == said + "\n"


@pytest.mark.prefect
def test_a_run_whose_scheduler_is_down_is_failed_and_named(tmp_path, prefect_harness, monkeypatch):
    """The flow a deployment's run loads (``configured(…, now=False)``), run against the
    server: Failed, named ``recalculate-<systems>-<store>``, the one line its message."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    from arpad.flows.common import configured
    from arpad.flows.recalculate import recalculate_flow

    address = closed_port()
    monkeypatch.setenv("ARPAD_CLUSTER", address)
    monthly = configured(recalculate_flow, now=False)
    store = tmp_path / f"down{time.time_ns()}"
    (tmp_path / "inbox").mkdir()
    said = (
        f"cannot reach the Dask scheduler at ARPAD_CLUSTER={address}: Connection refused "
        "(is `dask scheduler` running there?)"
    )
    with pytest.raises(ValueError) as info:
        monthly(store=str(store), inbox=str(tmp_path / "inbox"), systems=["elo"])
    assert str(info.value) == said
    name = f"recalculate-elo-{store.name}"
    with get_client(sync_client=True) as client:
        (run,) = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[name]))
        )
    assert run.state.is_failed()
    assert run.state.message == f"Flow run encountered an exception: ValueError: {said}"
    assert not store.exists()


@pytest.mark.prefect
@pytest.mark.slow
def test_a_deployed_run_with_the_scheduler_down_is_failed_not_crashed(tmp_path, prefect_harness):
    """The report's steps: `arpad deploy --cluster` (its scheduler down), `prefect
    deployment run`, `prefect worker start --run-once`: Failed (it was Crashed), named
    like arpad's runs (it kept Prefect's random name), the one line as its message."""
    from prefect.client.orchestration import get_client

    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", range(1, 4))
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    address = closed_port()
    name, pool = f"down-{time.time_ns()}", f"arpad-test-down-{time.time_ns()}"
    assert main(["deploy", "--store", str(store), "--inbox", str(inbox), "--name", name,
                 "--work-pool", pool, "--systems", "elo,glicko2", "--cluster", address]) == 0  # fmt: skip
    try:
        finished, output = run_deployment_once(name, pool, tmp_path)
        assert finished.state.is_failed(), output[-3000:]
        assert finished.name == "recalculate-elo,glicko2-club"
        assert finished.state.message == (
            "Flow run encountered an exception: ValueError: cannot reach the Dask scheduler "
            f"at ARPAD_CLUSTER={address}: Connection refused (is `dask scheduler` running there?)"
        )
    finally:
        with get_client(sync_client=True) as client, contextlib.suppress(Exception):
            client.delete_deployment(client.read_deployment_by_name(f"recalculate/{name}").id)


# -- #4: a system that needs published starting ratings ------------------------------------


def needs_ratings() -> str:
    return next(n for n in system_names() if get_system(n).needs_published_ratings)


def starts_from_nothing() -> str:
    return next(n for n in system_names() if not get_system(n).needs_published_ratings)


@pytest.mark.prefect
def test_deploy_warns_of_a_system_the_store_cannot_start(tmp_path, prefect_harness, capsys):
    """The run's own line (``jobs.starting_ratings_reason``), then what it means for the
    schedule; exit 0 and the deployment made. Nothing is said for a system that starts
    from nothing, nor while a players file waits in INBOX/players/."""
    from prefect.client.orchestration import get_client

    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", range(1, 3))
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    capsys.readouterr()
    name, pool = f"ratings-{time.time_ns()}", f"arpad-test-ratings-{time.time_ns()}"
    args = ["deploy", "--store", str(store), "--inbox", str(inbox), "--name", name,
            "--work-pool", pool]  # fmt: skip
    try:
        assert main([*args, "--systems", f"{starts_from_nothing()},{needs_ratings()}"]) == 0
        out, err = capsys.readouterr()
        assert err == (
            f"arpad: warning: {starting_ratings_reason(needs_ratings())}; the scheduled runs "
            f"fail at their plan step until such a players file is ingested or put in "
            f"{inbox}/players/\n"
        )
        assert f"deployment recalculate/{name}" in out
        assert main([*args, "--systems", starts_from_nothing()]) == 0
        assert capsys.readouterr().err == ""
        (inbox / "players").mkdir()
        (inbox / "players" / "register.csv").write_text("player_id,name,rating\n")
        assert main([*args, "--systems", needs_ratings()]) == 0
        assert capsys.readouterr().err == ""
    finally:
        with get_client(sync_client=True) as client, contextlib.suppress(Exception):
            client.delete_deployment(client.read_deployment_by_name(f"recalculate/{name}").id)


def test_the_schedule_examples_rate_the_pages_own_example_store():
    """operations.md "The schedule": its `serve` and `deploy` examples run on the store
    and inbox of the page's recalculate example (Kaggle games, no published ratings), so
    they name systems that start from nothing (`--systems fide` failed every run)."""
    text = (REPO / "docs" / "operations.md").read_text()
    example = re.search(
        r"arpad recalculate --inbox (\S+) --store (\S+) --mapping \S+ --systems", text
    )
    block = text.split("## The schedule", 1)[1].split("```", 2)[1]
    commands = re.findall(r"arpad (?:serve|deploy) (?:\\\n|[^\n])*", block)
    assert len(commands) == 2, commands
    for command in commands:
        words = shlex.split(command.replace("\\\n", " "))
        given = dict(zip(words[2::2], words[3::2]))
        assert given["--inbox"] == example.group(1) and given["--store"] == example.group(2)
        for system in given["--systems"].split(","):
            assert not get_system(system).needs_published_ratings, command
