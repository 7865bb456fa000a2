"""The notebook's "interrupt kernel" during ``Store.rate`` (docs/api.md "In a notebook").

Jupyter interrupts a cell by sending SIGINT to the kernel: a KeyboardInterrupt in the
main thread at whatever point the run has reached, while the engine's write-behind
thread may be writing a ratings file. Here a helper thread sends the real SIGINT to this
process at chosen points of the run (as a ratings file or a checkpoint is written, as a
Parquet write begins) and at times spread over the run. After each: the store reads,
no lock is left held, and the next ``Store.rate`` works and gives the ratings of an
uninterrupted run, value for value."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time

import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

import arpad
from arpad.pipeline.store import Store as _Store

KAGGLE = "kaggle2010_elo_vs_rest/training_data.csv"

# subprocesses, Dask processes and real signals; the kernels are the first pass's
pytestmark = pytest.mark.once


@pytest.fixture(scope="module")
def template(bundled_data, tmp_path_factory):
    """An ingested store (Kaggle 2010, 100 periods) and its clean Elo ratings."""
    root = tmp_path_factory.mktemp("interrupt") / "template"
    arpad.Store(root).ingest(bundled_data / KAGGLE)
    clean = tmp_path_factory.mktemp("interrupt") / "clean"
    shutil.copytree(root, clean)
    store = arpad.Store(clean)
    started = time.perf_counter()
    store.rate("elo")
    seconds = time.perf_counter() - started
    return root, store.ratings("elo").drop("run_id"), seconds


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt in the main thread, as in a Jupyter kernel."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt() -> None:
    """The kernel's interrupt: SIGINT to this process, sent from another thread."""
    threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT)).start()


def at_nth(monkeypatch, where: str, n: int) -> None:
    """Send the interrupt when the ``n``-th ratings file / checkpoint / Parquet write of
    the run is reached (the ratings file perhaps on the write-behind thread)."""
    count = {"n": 0}

    def hit() -> None:
        count["n"] += 1
        if count["n"] == n:
            interrupt()
            time.sleep(0.05)  # let it land while the run is still inside this step

    if where == "ratings":
        original = _Store.ratings_writer

        def writer(self, *args, **kwargs):
            write = original(self, *args, **kwargs)

            def write_then_hit():
                write()
                hit()

            return write_then_hit

        monkeypatch.setattr(_Store, "ratings_writer", writer)
    elif where in ("prepared", "checkpoint"):
        # "prepared": the ratings file's folder made, its write not handed over
        name = "ratings_writer" if where == "prepared" else "write_state"
        original_method = getattr(_Store, name)

        def then_hit(self, *args, **kwargs):
            result = original_method(self, *args, **kwargs)
            hit()
            return result

        monkeypatch.setattr(_Store, name, then_hit)
    else:
        original_write = pq.write_table

        def write_table(*args, **kwargs):
            hit()
            return original_write(*args, **kwargs)

        monkeypatch.setattr(pq, "write_table", write_table)


def rate_interrupted(store: arpad.Store) -> bool:
    """``store.rate("elo")`` with an interrupt on its way; True when it interrupted the
    run (a SIGINT arriving just after the run lands in the pause)."""
    finished = False
    try:
        store.rate("elo")
        finished = True
        time.sleep(1.0)
    except KeyboardInterrupt:
        return not finished
    return False


def assert_intact_and_next_call_works(store: arpad.Store, clean) -> None:
    rows = store.sql("SELECT count(*) AS n FROM ratings WHERE system = 'elo'")["n"].item()
    # (cut before its first period was written, no rows: elo may not count as rated
    # yet, and Store.ratings then raises "no ratings …", docs/api.md)
    if rows:  # the latest list, as it stands (ties share a rank)
        ranks = store.list("elo", top=3)["rank"].to_list()
        assert len(ranks) == 3 and ranks[0] == 1 and ranks == sorted(ranks)
    store.rate("elo", wait=0)  # no lock left held: StoreBusyError at once otherwise
    assert_frame_equal(store.ratings("elo").drop("run_id"), clean)
    assert store.list("elo", top=3)["rank"].to_list() == [1, 2, 3]


@pytest.mark.parametrize(
    ("where", "n"),
    [
        ("ratings", 2),
        ("ratings", 40),
        ("prepared", 1),
        ("prepared", 48),
        ("checkpoint", 1),
        ("checkpoint", 3),
        ("write", 1),
        ("write", 30),
    ],
)
def test_interrupt_at_a_write_leaves_the_store_for_the_next_call(
    where, n, template, tmp_path, monkeypatch, sigint_raises
):
    root, clean, _ = template
    shutil.copytree(root, tmp_path / "store")
    store = arpad.Store(tmp_path / "store")
    with monkeypatch.context() as patch:
        at_nth(patch, where, n)
        assert rate_interrupted(store), f"the run finished before {where} {n}"
    assert_intact_and_next_call_works(store, clean)


def test_interrupt_at_times_spread_over_the_run(template, tmp_path, sigint_raises):
    root, clean, seconds = template
    interrupted = 0
    for i, fraction in enumerate((0.05, 0.25, 0.45, 0.65, 0.85)):
        shutil.copytree(root, tmp_path / f"store-{i}")
        store = arpad.Store(tmp_path / f"store-{i}")
        timer = threading.Timer(fraction * seconds, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        interrupted += rate_interrupted(store)
        timer.join()
        assert_intact_and_next_call_works(store, clean)
    assert interrupted >= 2  # a loaded machine may run slower than the clean run; not faster


FIRST_CALL = """
import os, signal, sys, threading, time
import arpad
kind, where, delay, out = sys.argv[1:]
store = arpad.Store(where)
def call():
    if kind == "store":
        store.rate("elo")
        return store.ratings("elo").drop("run_id")
    return arpad.rate(where + "/games.csv", system="elo", mapping="kaggle2010")
threading.Timer(float(delay), os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    call()
    time.sleep(1.0)  # an interrupt sent just after the run lands here
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
call().write_parquet(out)  # the next cell
"""


@pytest.mark.parametrize("kind", ["store", "memory"])
def test_interrupt_during_the_first_call_leaves_the_next_call_working(
    kind, template, bundled_data, tmp_path
):
    """The first ``Store.rate`` (or ``arpad.rate``) of a kernel imports Numba, DuckDB,
    pyarrow …: an interrupt landing inside one of those imports left the package
    half-imported, and every later call failed (``module 'numba' has no attribute
    'core'``) until the kernel was restarted. Each delay in a fresh interpreter, as a
    kernel's first cell; the next call gives the uninterrupted values."""
    import subprocess
    import sys

    import polars as pl

    root, clean, _ = template
    if kind == "memory":
        clean = arpad.rate(bundled_data / KAGGLE, system="elo", mapping="kaggle2010")
    outcomes = []
    for i, delay in enumerate((0.02, 0.1, 0.2, 0.35, 0.5, 0.8, 0.95, 1.2)):
        where = tmp_path / f"run-{i}"
        if kind == "store":
            shutil.copytree(root, where)
        else:
            where.mkdir()
            shutil.copy(bundled_data / KAGGLE, where / "games.csv")
        out = tmp_path / f"ratings-{i}.parquet"
        run = subprocess.run(
            [sys.executable, "-c", FIRST_CALL, kind, str(where), str(delay), str(out)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, (delay, run.stderr[-3000:])
        outcomes.append(run.stdout.strip())
        assert_frame_equal(pl.read_parquet(out), clean)
    assert outcomes.count("interrupted") >= 3, outcomes


def test_interrupt_then_rate_again_in_a_running_loop(template, tmp_path, sigint_raises):
    """The same from a notebook cell: the interrupt inside the loop's thread, then the
    next cell rates the store again. ``asyncio.run`` turns SIGINT into a cancellation
    of its task; ipykernel runs a cell with Python's own handler, as here."""
    import asyncio

    root, clean, _ = template
    shutil.copytree(root, tmp_path / "store")
    store = arpad.Store(tmp_path / "store")

    async def cell(call):
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as ipykernel's cells
        return call()

    with pytest.MonkeyPatch.context() as patch:
        at_nth(patch, "ratings", 10)
        assert asyncio.run(cell(lambda: rate_interrupted(store)))
    asyncio.run(cell(lambda: assert_intact_and_next_call_works(store, clean)))


def test_interrupt_during_a_dask_backtest_leaves_no_worker_and_the_next_call_works(
    bundled_data, sigint_raises, monkeypatch
):
    """``workers=2``: the interrupt lands while the cell waits for the cluster's units
    (sent when the first unit's value is back, the others still out: a timer of a fixed
    6 s fired after the whole backtest had finished on a quiet machine); the local
    cluster is closed (no worker process left), and the next call, on a new cluster,
    gives the in-process values."""
    import psutil
    from polars.testing import assert_frame_equal

    from arpad.pipeline import runner

    real_result = runner.unit_result
    sent = threading.Event()

    def first_value_then_interrupt(client, future):
        value = real_result(client, future)
        if not sent.is_set():
            sent.set()
            os.kill(os.getpid(), signal.SIGINT)
        return value

    monkeypatch.setattr(runner, "unit_result", first_value_then_interrupt)

    def workers() -> list:
        return [
            child
            for child in psutil.Process().children(recursive=True)
            if child.status() != psutil.STATUS_ZOMBIE
            and "resource_tracker" not in " ".join(child.cmdline())  # multiprocessing's own
        ]

    before = {p.pid for p in workers()}
    finished = False
    try:
        arpad.backtest("kaggle2010", "all", data_dir=bundled_data, workers=2)
        finished = True
    except KeyboardInterrupt:
        pass
    assert sent.is_set() and not finished, "the backtest ran to its end"
    monkeypatch.setattr(runner, "unit_result", real_result)
    deadline = time.monotonic() + 30
    while {p.pid for p in workers()} - before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not {p.pid for p in workers()} - before
    plain = arpad.backtest("deloitte2011", "elo", data_dir=bundled_data)
    assert_frame_equal(
        arpad.backtest("deloitte2011", "elo", data_dir=bundled_data, workers=2), plain
    )


def test_an_interrupt_numba_turned_into_a_system_error_is_an_interrupt():
    """Numba's compiled code calling back into Python (``_numba_unpickle``) turns an
    interrupt into ``SystemError: … returned a result with an exception set`` (seen in
    the first-call test above at about 0.95 s); the API raises the KeyboardInterrupt."""
    from arpad import _interrupt

    @_interrupt.interruptible
    def kernel_load():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(f) returned a result with an exception set") from exc

    @_interrupt.interruptible
    def other_error():
        raise SystemError("not an interrupt")

    with pytest.raises(KeyboardInterrupt):
        kernel_load()
    with pytest.raises(SystemError, match="not an interrupt"):
        other_error()


def test_an_interrupt_duckdb_took_is_an_interrupt(template, tmp_path, sigint_raises):
    """DuckDB takes the SIGINT of a query itself and raises ``RuntimeError('Query
    interrupted')`` (seen in the spread-over-the-run test when the interrupt hit the
    catalog's refresh); ``Store.sql`` raises the KeyboardInterrupt, and works next.
    DuckDB does not always stop the query at once: in some runs it ran to its end
    first (docs/api.md "In a notebook", not fixed), so the query here is short."""
    root, clean, _ = template
    shutil.copytree(root, tmp_path / "store")
    store = arpad.Store(tmp_path / "store")
    store.rate("elo")
    slow = "SELECT count(*) AS n FROM range(1000000000) t(x) WHERE x % 7 = 3"  # ~3 s
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        store.sql(slow)
        time.sleep(5)  # an interrupt taken only after the query lands here
    timer.join()
    n = store.sql("SELECT count(*) AS n FROM ratings WHERE system = ?", "elo")["n"][0]
    assert n == clean.height
