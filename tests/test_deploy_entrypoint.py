"""`arpad deploy`'s entrypoint (docs/runners.md "Deployed runs"): the worker imports the
monthly flow as ``arpad.flows.recalculate``, so the tasks it sends to a Dask scheduler
pickle by ``arpad.*`` names that the scheduler and its workers import. The entrypoint
``recalculate.py:monthly_flow`` made it a top-level module ``recalculate``, and every run
of a ``deploy --cluster tcp://…`` deployment failed with ``ModuleNotFoundError: No module
named 'recalculate'`` (round 7, ops7 #1)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from arpad.pipeline.cli import main
from tests.conftest import run_deployment_once
from tests.test_flow_logs import kaggle_months
from tests.test_runners import dask_processes  # noqa: F401 (a fixture)

# What the worker does (prefect.flows.load_flow_from_flow_run): run the pull step (into
# the deployment's working directory), load the entrypoint, as a file relative to it or
# as a module path; then the flow, pickled as the Dask client pickles what a task's run
# carries (its flow run context holds the flow, and the flow its run-name function).
WORKER = """
import os, sys, cloudpickle
from prefect.flows import load_flow_from_entrypoint
directory, entrypoint, out = sys.argv[1:]
os.chdir(directory)
if ":" in entrypoint:
    sys.path.insert(0, ".")
flow = load_flow_from_entrypoint(entrypoint, use_placeholder_flow=False)
open(out, "wb").write(cloudpickle.dumps(flow))
print(flow.fn.__module__)
"""

# A Dask worker elsewhere: another folder, a fresh interpreter.
DASK_SIDE = """
import pickle, sys
flow = pickle.loads(open(sys.argv[1], "rb").read())
print(flow.fn.__module__, flow.flow_run_name.__module__)
"""


def test_the_deployment_loads_the_flow_as_arpad_flows_recalculate(tmp_path):
    from arpad.pipeline.commands.ops import deployable_flow

    deployment = deployable_flow().to_deployment(name="entrypoint-test")
    assert deployment.entrypoint == "arpad.flows.recalculate.monthly_flow"
    directory = deployment.storage.to_pull_step()[
        "prefect.deployments.steps.set_working_directory"
    ]["directory"]
    pickled = tmp_path / "flow.pickle"
    loaded = subprocess.run(
        [sys.executable, "-c", WORKER, directory, deployment.entrypoint, str(pickled)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.split() == ["arpad.flows.recalculate"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    unpickled = subprocess.run(
        [sys.executable, "-c", DASK_SIDE, str(pickled)], capture_output=True, text=True,
        cwd=elsewhere,
    )  # fmt: skip
    assert unpickled.returncode == 0, unpickled.stderr[-2000:]
    assert unpickled.stdout.split() == ["arpad.flows.recalculate"] * 2


@pytest.mark.prefect
@pytest.mark.slow
def test_a_deployment_on_an_external_dask_scheduler_completes(
    tmp_path,
    prefect_harness,
    dask_processes,  # noqa: F811
):
    """``arpad deploy --cluster tcp://…``, ``run_deployment`` and ``prefect worker start
    --run-once``: the run completes, its read and rate tasks ran on the cluster."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter

    store, inbox = tmp_path / "club", tmp_path / "inbox"
    inbox.mkdir()
    kaggle_months(tmp_path / "g.csv", range(1, 4))
    kaggle_months(inbox / "m4.csv", [4])
    assert main(["ingest", str(tmp_path / "g.csv"), "--mapping", "kaggle2010", "--store",
                 str(store), "--no-flow"]) == 0  # fmt: skip
    name, pool = f"cluster-{time.time_ns()}", f"arpad-test-cluster-{time.time_ns()}"
    assert main(["deploy", "--store", str(store), "--inbox", str(inbox), "--name", name,
                 "--work-pool", pool, "--systems", "elo", "--mapping", "kaggle2010",
                 "--cluster", dask_processes]) == 0  # fmt: skip
    try:
        finished, output = run_deployment_once(name, pool, tmp_path)
        assert finished.state.is_completed(), output[-3000:]
        with get_client(sync_client=True) as client:
            tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [finished.id]}))
        states = {t.name: t.state_name for t in tasks}
        assert states["read-m4.csv"] == states["rate-elo-standard"] == "Completed"
        assert (inbox / "processed" / "m4.csv").exists()
        assert "No module named" not in output
    finally:
        with get_client(sync_client=True) as client:
            client.delete_deployment(client.read_deployment_by_name(f"recalculate/{name}").id)
