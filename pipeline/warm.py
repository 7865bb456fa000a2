"""Warm Dask workers while the cluster starts (docs/runners.md "Dask start-up").

A fresh worker process pays its imports and the Numba cache loads of every kernel
its first unit calls (0.4–1 s each on a 2-core machine) before it does any work. A
local cluster started by ``--workers N`` loads this module as a worker preload:
``dask_setup`` starts one background thread that imports the modules named in
``ARPAD_WARM_MODULES`` and rates a tiny in-memory game set (four games, three
players with ratings) with every system named in ``ARPAD_WARM_SYSTEMS``, which
loads those systems' kernels from the Numba cache. The worker registers with the
scheduler at once; the warm-up runs while the rest of the cluster starts and the
command prepares its units.

Every unit sent by ``InProcess.map`` first waits for the warm-up of its worker
(``wait``), so a unit's kernels never run beside the warm-up's (Numba's default
threading layer does not support concurrent launches). A warm-up that fails is
only logged: the unit then loads what it needs itself, as without warm-up.

Nothing here starts a Prefect server or touches a store.
"""

from __future__ import annotations

import logging
import os
import threading
import time

log = logging.getLogger("arpad")

SYSTEMS_ENV = "ARPAD_WARM_SYSTEMS"
MODULES_ENV = "ARPAD_WARM_MODULES"

_thread: threading.Thread | None = None
#: seconds the last warm-up of this process took (None before one ran)
took: float | None = None


def _names(value: str | None) -> list[str]:
    return [v for v in (value or "").split(",") if v]


def warm_env(systems, modules) -> dict[str, str]:
    """The environment a warmed worker needs: which systems and modules to load."""
    return {SYSTEMS_ENV: ",".join(systems or ()), MODULES_ENV: ",".join(modules or ())}


def warm(systems, modules=()) -> None:
    """Import ``modules`` and load the kernels of ``systems`` (a tiny rating each)."""
    global took
    t0 = time.perf_counter()
    import importlib

    for name in modules:
        importlib.import_module(name)
    if systems:
        _tiny_ratings(systems)
    took = time.perf_counter() - t0


def _tiny_ratings(systems) -> None:
    """Rate two periods of four games among three rated players with each system,
    through the engine's in-memory walk (the kernels and dtypes of a store run)."""
    import numpy as np
    import pyarrow as pa

    from arpad.pipeline import engine, schemas

    players = schemas.conform(
        pa.table({"player_id": ["a", "b", "c"], "rating": [2000.0, 1900.0, 1800.0]}),
        schemas.PLAYERS,
    )
    info = engine.player_info(players)
    periods = [
        (
            period,
            np.array(white, dtype=np.int32),
            np.array(black, dtype=np.int32),
            np.array(score, dtype=np.float64),
            np.zeros(len(white), dtype=np.int32),
        )
        for period, white, black, score in (
            (1, [0, 1], [1, 2], [1.0, 0.5]),
            (2, [2, 0], [0, 2], [0.0, 1.0]),
        )
    ]
    for system in systems:
        engine.rate_in_memory(system, info, periods)


def _run(systems, modules) -> None:
    try:
        warm(systems, modules)
    except Exception as exc:  # the unit loads what it needs itself
        log.warning("arpad: worker warm-up failed: %s", exc)


def start(systems, modules=()) -> threading.Thread:
    """Start the warm-up on a background thread of this process (once)."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(
            target=_run, args=(list(systems), list(modules)), name="arpad-warm", daemon=True
        )
        _thread.start()
    return _thread


def beside(systems) -> threading.Thread | None:
    """Load ``systems``' kernels on a thread of their own while the caller prepares a
    run (the engine: players, keys, the first period's read), and return it to be
    joined before the first period, or None when there is nothing to load
    (``NUMBA_DISABLE_JIT``, ``ARPAD_LOAD_BESIDE=0``, or the kernels compiled ahead of
    time, kernels/aot.py: every system's run then imports no Numba). Numba's first cached-kernel
    load of a process (its typing and target contexts, ~0.2 s of CPU) holds the GIL,
    but Parquet decoding does not, so the two overlap (docs/runners.md "Start-up").
    The tiny rating runs only serial kernels, so it never launches Numba's threads
    beside the caller's; a failure is ignored (the run then loads what it needs)."""
    from arpad.kernels import aot
    from arpad.kernels.config import jit_enabled

    if not jit_enabled() or os.environ.get("ARPAD_LOAD_BESIDE", "1") == "0":
        return None
    if aot.current():  # the kernels are compiled ahead of time: nothing to load
        return None

    def load() -> None:
        try:
            _tiny_ratings(list(systems))
        except Exception as exc:  # the run loads what it needs itself
            log.debug("arpad: kernel load beside the run failed: %s", exc)

    thread = threading.Thread(target=load, name="arpad-load", daemon=True)
    thread.start()
    return thread


def wait() -> None:
    """Block until this process's warm-up (if any) has finished."""
    if _thread is not None:
        _thread.join()


def run_unit(fn, *args):
    """A unit on a worker: wait for the warm-up, then ``fn(*args)``."""
    wait()
    return fn(*args)


def dask_setup(worker) -> None:
    """Dask worker preload hook: start the warm-up named by the environment."""
    systems = _names(os.environ.get(SYSTEMS_ENV))
    modules = _names(os.environ.get(MODULES_ENV))
    if systems or modules:
        start(systems, modules)
