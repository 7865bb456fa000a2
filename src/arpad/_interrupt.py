"""The notebook's "interrupt kernel" during a first call (docs/api.md "In a notebook").

Jupyter interrupts a cell with SIGINT: a KeyboardInterrupt in the main thread wherever
the cell is. ``import arpad`` is cheap and the packages behind the API load on the
first call, so the first ``Store.rate`` of a kernel spends its first second importing
Numba, DuckDB and pyarrow. An interrupt landing inside such an import leaves the
package half-imported (its submodules stay in ``sys.modules`` bound to a parent module
object that was dropped), and every later call failed (``module 'numba' has no
attribute 'core'``) until the kernel was restarted. ``ready`` does those imports, and
Numba's own lazy imports (its target context's registries), with SIGINT held back: an
interrupt that arrives meanwhile is delivered as soon as they are done, before any
work starts. Everything after them is interruptible as before; the store's journal and
checkpoints make an interrupted write safe (docs/store.md)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import signal
import sys
import threading
from collections.abc import Iterator

#: what every API call that reads or writes a store or a table needs
TABLES = ("numpy", "pyarrow", "pyarrow.parquet", "pyarrow.compute", "polars", "duckdb")
#: and what a rating run needs besides
RATING = ("arpad.pipeline.engine", "arpad.pipeline.resume", "arpad.pipeline.jobs",
          "arpad.pipeline.launch", "arpad.pipeline.catalog", "numba")  # fmt: skip

_numba_ready = False


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT held back for the block (on the main thread; elsewhere a signal never
    lands anyway) and delivered to the handler it was meant for when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: arrived.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if arrived:
        if callable(previous):
            previous(signal.SIGINT, arrived[0])  # Python's, IPython's or asyncio's handler
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt


def ready(*modules: str, jit: bool = False) -> None:
    """Import ``modules`` (those not imported yet) with interrupts held back; ``jit``:
    also Numba's lazily imported registries, which its first compile or cache load
    would import mid-run."""
    global _numba_ready
    todo = [m for m in modules if m not in sys.modules]
    if not todo and (_numba_ready or not jit):
        return
    with interrupts_held():
        for name in todo:
            importlib.import_module(name)
        if jit and not _numba_ready:
            from numba import config

            if not config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: nothing is compiled or loaded
                from numba.core.registry import cpu_target

                cpu_target.target_context.refresh()
            _numba_ready = True


def _interrupted(exc: BaseException) -> bool:
    """True when ``exc`` is an interrupt in another form: caused by a KeyboardInterrupt
    (its cause or context chain), or DuckDB's (which takes the SIGINT itself and raises
    ``RuntimeError('Query interrupted')``, or ``duckdb.InterruptException``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        if type(exc).__name__ == "InterruptException" or (
            type(exc) is RuntimeError and str(exc) == "Query interrupted"
        ):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def interruptible(function):
    """A notebook's interrupt comes out of the call as a KeyboardInterrupt, whatever
    turned it into something else on its way:

    * landing inside Numba's loading of a cached kernel (its first call in the process:
      ``_numba_unpickle``, called from compiled code), it came out as ``SystemError:
      CPUDispatcher(...) returned a result with an exception set``;
    * landing inside a DuckDB query (the catalog's refresh after a run, a list, ``sql``),
      as ``RuntimeError: Query interrupted``.

    The next call works either way (tests/test_interrupt.py)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            if _interrupted(exc):
                raise KeyboardInterrupt from exc
            raise

    return call


def reading(function):
    """A store's reading call, its imports (DuckDB, pyarrow, polars, the catalog) done
    with interrupts held back before its body runs."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        ready(*TABLES, "arpad.pipeline.catalog")
        return function(*args, **kwargs)

    return interruptible(call)


def for_rating(*extra: str, systems=()) -> None:
    """``ready`` for a call that rates (``arpad.rate``, ``Store.rate``, backtests, …),
    with the modules of ``systems`` (names; a wrong one is left to the call to report)."""
    ready(*TABLES, *RATING, *extra, jit=True)
    from arpad.pipeline.systems import get_system

    with interrupts_held():
        for name in systems:
            with contextlib.suppress(Exception):
                get_system(name)


def for_run(flow=None, cluster=None, workers=None) -> None:
    """``ready`` for where a job runs: Dask's client, Prefect's flow engine."""
    extra = []
    if cluster or workers:
        extra.append("distributed")
    if flow:
        extra.append("prefect")
    ready(*extra)
