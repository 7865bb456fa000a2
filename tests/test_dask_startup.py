"""A local Dask cluster started in the background, warmed workers, units handed out
one per free worker thread in the costliest-first order, and a close that leaves no
process behind (pipeline/runner.py, pipeline/warm.py; docs/runners.md)."""

from __future__ import annotations

import os
import time

import pytest

from arpad.pipeline import warm
from tests.conftest import assert_same_backtest


def _children() -> set[str]:
    """Live (not zombie) child processes of this process, as their command lines;
    multiprocessing's resource tracker (one per parent, for its lifetime) left out."""
    me = str(os.getpid())
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            if "resource_tracker" not in cmd:
                out.add(f"{entry} {cmd}")
    return out


def _record(label: str, seconds: float):
    """A unit: busy for ``seconds`` (sleeping), then where and when it ran."""
    from distributed import get_worker

    start = time.time()
    time.sleep(seconds)
    return label, get_worker().address, start, warm.took


def _fails():
    raise ValueError("a unit failed")


def test_tiny_warm_up_rates_every_system():
    """The warm-up's tiny rating runs with every system (kernels loaded, no store)."""
    from arpad.pipeline.systems import system_names

    warm.warm(system_names(), ["arpad.pipeline.resume"])
    assert warm.took is not None and warm.took >= 0


def test_warm_env_and_names_round_trip():
    env = warm.warm_env(["elo", "uscf"], ["arpad.pipeline.backtest"])
    assert env == {warm.SYSTEMS_ENV: "elo,uscf", warm.MODULES_ENV: "arpad.pipeline.backtest"}
    assert warm._names(env[warm.SYSTEMS_ENV]) == ["elo", "uscf"]
    assert warm._names("") == [] and warm._names(None) == []


@pytest.mark.once
def test_local_cluster_warms_hands_out_in_order_and_leaves_no_process():
    """``in_process(workers=2, warm=…)``: the workers warm up while the cluster starts
    (each unit sees its worker's finished warm-up); one unit per free worker thread in
    the given (costliest-first) order, so the long unit's worker runs nothing else while
    the other worker runs the three short ones; values come back in order; after the
    block no worker process is left."""
    from arpad.pipeline.runner import in_process, map_by_cost

    before = _children()
    with in_process(None, 2, warm=["elo"], warm_modules=["arpad.pipeline.resume"]) as runner:
        assert runner.parallel
        calls = [("short-1", 0.3), ("long", 2.0), ("short-2", 0.3), ("short-3", 0.3)]
        out = map_by_cost(runner, _record, calls, costs=[1, 5, 1, 1], names=[c[0] for c in calls])
        assert [o[0] for o in out] == ["short-1", "long", "short-2", "short-3"]
        assert all(o[3] is not None for o in out)  # ran after the worker's warm-up
        long_worker = out[1][1]
        assert {o[1] for o in out if o[0] != "long"} == ({o[1] for o in out} - {long_worker}), out
        runner.release()  # closes in the background; joined when the block ends
        assert runner.map(abs, [(-1,), (-2,)]) == [1, 2]  # after release: in this process
    assert _children() <= before


@pytest.mark.once
def test_failing_unit_closes_the_cluster_and_raises():
    from arpad.pipeline.runner import in_process

    before = _children()
    with pytest.raises(ValueError, match="a unit failed"):
        with in_process(None, 2) as runner:
            runner.map(_fails, [(), ()])
    assert _children() <= before


@pytest.mark.once
def test_a_cluster_that_cannot_start_is_an_error_where_it_is_needed(monkeypatch):
    """The cluster starts in the background; if it fails, the first ``map`` that needs
    it raises (and so does the end of the block when nothing needed it)."""
    from arpad.pipeline import runner as runner_mod

    real = runner_mod.local_cluster_kwargs

    def broken(workers):
        return {**real(workers), "n_workers": "not a number"}

    monkeypatch.setattr(runner_mod, "local_cluster_kwargs", broken)
    with pytest.raises(RuntimeError, match="did not start"):
        with runner_mod.in_process(None, 2) as runner:
            assert runner.map(abs, [(-1,)]) == [1]  # one unit: runs here, no cluster
            runner.map(abs, [(-1,), (-2,)])
    with pytest.raises(RuntimeError, match="did not start"):
        with runner_mod.in_process(None, 2):
            pass


@pytest.mark.once
def test_backtest_on_a_warmed_local_cluster_equals_in_process():
    """The backtest through the launcher with ``--workers 2`` (warmed workers, units in
    order) gives the in-process rows bit for bit."""
    from pathlib import Path

    from arpad.pipeline import jobs, launch

    data = Path(__file__).resolve().parents[1] / "data" / "real"
    req = jobs.BacktestRequest("kaggle2010", str(data), ["elo", "uscf", "harkness"])
    local = launch.run("backtest", req, flow=False)
    before = _children()
    remote = launch.run("backtest", req, flow=False, workers=2)
    assert _children() <= before
    assert_same_backtest(local, remote)


def _numba_threads():
    import os

    return os.environ.get("NUMBA_NUM_THREADS")


def _allocator():
    """The worker's malloc settings, whether glibc serves a 4 MiB block from its heap
    (above glibc's default mmap threshold, below arpad's), and pyarrow's pool."""
    import ctypes
    import os

    import pyarrow

    libc = ctypes.CDLL(None)
    libc.malloc.restype = libc.sbrk.restype = ctypes.c_void_p
    libc.malloc.argtypes = (ctypes.c_size_t,)
    libc.sbrk.argtypes = (ctypes.c_long,)
    block = libc.malloc(4 << 20)
    on_heap = block < libc.sbrk(0)
    libc.free.argtypes = (ctypes.c_void_p,)
    libc.free(block)
    settings = {k: v for k, v in os.environ.items() if k.startswith("MALLOC_")}
    return settings, on_heap, pyarrow.default_memory_pool().backend_name


@pytest.mark.once
def test_local_workers_get_the_period_commands_allocator(monkeypatch):
    """Dask's nanny would start workers with MALLOC_TRIM_THRESHOLD_=65536, which turns
    off glibc's adaptive mmap threshold (every large array a fresh mmap: 3.3 s more
    system time on the 6M-game reconstruction); arpad's local workers start with the
    settings of the console's period-walking commands (pipeline/lean.py
    ``keep_freed_memory``), with the thread budget of ``local_cluster_kwargs`` still in
    their environment."""
    from arpad.pipeline import lean
    from arpad.pipeline.runner import dask_client, numba_threads_per_worker

    for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "ARROW_DEFAULT_MEMORY_POOL"):
        # recorded, so that the values Dask's nanny puts into this process's own
        # environment as it starts a worker are gone after the test
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    with dask_client(None, 1) as client:
        seen = list(client.run(_allocator).values())
        threads = list(client.run(_numba_threads).values())
    expected = {
        "MALLOC_TRIM_THRESHOLD_": str(lean.TRIM_THRESHOLD),
        "MALLOC_MMAP_THRESHOLD_": str(lean.MMAP_THRESHOLD),
    }
    assert seen == [(expected, True, "system")]
    assert threads == [str(numba_threads_per_worker(1))]


def test_backtest_workers_import_the_systems_modules_without_rating():
    """The backtest warms its workers with the systems' modules only (a tiny rating
    loaded kernels its units never call); the reconstruction rates a tiny set."""
    import importlib

    from arpad.pipeline import jobs, launch
    from arpad.pipeline.systems import system_names

    data = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "real"
    systems, modules = launch.warm_up("backtest", jobs.BacktestRequest("kaggle2010", str(data)))
    assert systems == []
    assert modules[0] == "arpad.pipeline.backtest"
    assert len(modules) == 1 + len(system_names())
    for name in modules:  # every one imports (elo-linear: systems/elo_linear.py)
        importlib.import_module(name)
    request = jobs.BacktestRequest("kaggle2010", str(data), ["elo-linear"])
    assert launch.warm_up("backtest", request)[1][1] == "arpad.pipeline.systems.elo_linear"


def test_reconstruct_workers_rate_one_tiny_set_and_import_every_system(tmp_path):
    """The reconstruction warms its workers with one tiny rating (the first system: the
    engine's shared kernels) and every requested system's module; each system's own
    kernels load on the worker that runs it (docs/runners.md)."""
    import importlib

    from arpad.pipeline import jobs, launch

    Store = __import__("arpad.pipeline.store", fromlist=["Store"]).Store
    Store(tmp_path / "s").ensure()
    request = jobs.ReconstructRequest(str(tmp_path / "s"), systems=["uscf", "elo-linear"])
    systems, modules = launch.warm_up("reconstruct", request)
    assert systems == ["uscf"]
    assert modules == [
        "arpad.pipeline.resume",
        "arpad.pipeline.systems.uscf",
        "arpad.pipeline.systems.elo_linear",
    ]
    for name in modules:
        importlib.import_module(name)
    warm.warm(systems, modules)
    assert warm.took is not None


def _finish_of(label: str, needed: list):
    """A second-stage unit: when it started, and the first-stage values it was given."""
    return label, time.time(), [value[0] for value in needed]


def test_map_then_in_process_passes_the_values_each_unit_needs():
    """``Runner.map_then`` here: the first stage, then each second-stage unit with the
    values of the first-stage units it names, in the order it names them."""
    from arpad.pipeline.runner import Runner, Stage

    first = Stage(lambda x: (x, x * x), [(1,), (2,), (3,)], costs=[1, 3, 2])
    then = Stage(lambda tag, values: (tag, values), [("a",), ("b",)], costs=[1, 1])
    out = Runner().map_then(first, then, [[2, 0], [1]])
    assert out == [("a", [(3, 9), (1, 1)]), ("b", [(2, 4)])]


@pytest.mark.once
def test_map_then_on_a_cluster_starts_a_second_stage_unit_without_a_barrier():
    """On two workers: the long first-stage unit runs on one worker while the other runs
    the two short ones and then, without waiting for the long one, the second-stage
    unit that needs only the short ones; every second-stage unit gets the values it
    names, and the values come back in order."""
    from arpad.pipeline.runner import Stage, in_process

    before = _children()
    with in_process(None, 2) as runner:
        first = Stage(
            _record,
            [("long", 2.0), ("short-1", 0.2), ("short-2", 0.2)],
            costs=[5, 1, 1],
            names=["long", "short-1", "short-2"],
        )
        then = Stage(_finish_of, [("after-long",), ("after-short",)], costs=[10, 2])
        out = runner.map_then(first, then, [[0], [2, 1]])
        assert [o[0] for o in out] == ["after-long", "after-short"]
        assert out[0][2] == ["long"] and out[1][2] == ["short-2", "short-1"]
        # no barrier: the finish of the short ones started while the long one ran
        assert out[1][1] < out[0][1] - 1.0, out
        runner.release()
    assert _children() <= before


@pytest.mark.once
def test_a_script_without_a_main_guard_is_told_why_workers_fail(tmp_path):
    """A script calling the API with ``workers=2`` without a main guard (or code piped
    on stdin) failed with "Nanny failed to start." and the workers' tracebacks; the
    error now names the missing guard (docs/runners.md "Workers from a script"). A
    backtest takes no store lock, so the workers' own calls race nothing."""
    import subprocess
    import sys

    body = "import arpad\nprint(arpad.backtest('kaggle2010', systems='elo', workers=2).height)\n"
    script = tmp_path / "noguard.py"
    script.write_text(body)
    env = {**os.environ, "ARPAD_NO_FLOW": "1"}
    env.pop("PREFECT_API_URL", None)
    for args, stdin, said in (
        ([str(script)], None, 'noguard.py has no `if __name__ == "__main__":` guard'),
        (["-"], body, "(<stdin>) is not a file the workers can import"),
    ):
        done = subprocess.run(
            [sys.executable, *args], input=stdin, capture_output=True, text=True, env=env,
            timeout=300, cwd=tmp_path,
        )  # fmt: skip
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode == 1 and last.startswith("RuntimeError: the local Dask cluster")
        assert said in last and 'under `if __name__ == "__main__":`' in last
    # the same script with its call under the guard runs on two workers
    guarded = body.replace("print(", "if __name__ == '__main__':\n    print(")
    script.write_text(guarded)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 0
