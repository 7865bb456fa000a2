"""Start-up: keep imports a command does not need out of its process (docs/runners.md
"Start-up").

pyarrow imports pandas, when it is installed, on its first conversion of a Python
value (``pa.scalar``, ``fill_null`` with a number, ``pa.array`` of a list): about
0.2-0.5 s of a command's start-up, although no arpad command hands pyarrow a pandas
object. For every command run in process (no ``--flow``, ``--workers`` or
``--cluster``, no ``PREFECT_API_URL``; not ``serve`` or ``deploy``, which run Prefect),
the console entry point makes ``import pandas`` raise ImportError (a finder in front
of ``sys.meta_path``), which pyarrow treats as "pandas not installed", and ends the
process with ``exit_now`` when the command is done. This was for ``ingest`` and
``rate`` only until 2026-11-30: ``arpad list`` on the Deloitte store imported pandas
through a ``fill_null`` (0.95-1.01 s whole process; 0.63-0.67 s now).
Only the real console process does this (``cli.main`` called without ``argv``);
``cli.main(argv)`` inside another program, and the Python API, never do.
"""

from __future__ import annotations

import os
import sys

# Commands that run or create Prefect flows keep every module (and a normal exit).
FULL_COMMANDS = ("serve", "deploy")
DISTRIBUTING_OPTIONS = ("--flow", "--workers", "--cluster")


def command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option), or None:
    none given, or an option other than ``--store S`` before it (``--help``,
    ``--version``: the whole parser answers those)."""
    skip = False
    for arg in argv:
        if skip:  # the value of ``--store S`` given before the command (docs/cli.md)
            skip = False
        elif arg == "--store":
            skip = True
        elif arg.startswith("--store="):
            continue
        elif arg.startswith("-"):
            return None
        else:
            return arg
    return None


def hide_unneeded_modules(argv: list[str]) -> bool:
    """Make pandas absent for a command run in this process; True when done (the
    console then ends with ``exit_now``). Not for ``serve``/``deploy``, a flow, Dask
    or a Prefect server (``PREFECT_API_URL``)."""
    command = command_of(argv)
    if "pandas" in sys.modules or command is None or command in FULL_COMMANDS:
        return False
    if os.environ.get("PREFECT_API_URL"):
        return False
    if any(a.split("=", 1)[0] in DISTRIBUTING_OPTIONS for a in argv):
        return False
    if not any(isinstance(f, _Absent) for f in sys.meta_path):
        sys.meta_path.insert(0, _Absent(HIDDEN))
    if command == "ingest":
        for name, value in RETURN_FREED_MEMORY.items():
            os.environ.setdefault(name, value)
    elif command in PERIOD_COMMANDS:
        keep_freed_memory()
    return True


# Allocator settings for the console ``ingest`` process, read when polars
# (jemalloc) and pyarrow (mimalloc) load: memory a slice of a streamed ingest freed
# goes back to the system after a second (not kept for the process's life, not
# returned at once only to be faulted in again by the next slice; peak RSS and page
# faults, docs/ingest.md "Large Parquet files"). A value already in the environment wins.
RETURN_FREED_MEMORY = {
    "_RJEM_MALLOC_CONF": "dirty_decay_ms:1000,muzzy_decay_ms:1000",
    "MIMALLOC_PURGE_DELAY": "1000",
}


# Commands that walk periods in this process: each period allocates and frees the same
# arrays again (its games, CSR, report, the Parquet file being encoded).
PERIOD_COMMANDS = ("rate", "reconstruct", "recalculate", "whatif", "backtest")

# Allocator settings for those commands, a value already in the environment winning.
# pyarrow's default pool (mimalloc) and glibc's malloc both gave each period's freed
# memory back to the system, to fault it in again for the next period: 60-67k page
# faults and 0.5-1.1 s of system time in a 1.8-2.2 s `arpad rate --system elo` on the
# 6M-game store. With pyarrow on the system allocator and glibc keeping blocks up to
# 32 MiB on its heap (mmap threshold) and up to 256 MiB free at the heap's top (trim
# threshold), paired runs took 1.52-1.57 s against 2.15 s, with a lower peak RSS
# (0.30 against 0.36-0.38 GiB; docs/benchmarks.md "Allocator of the rate path").
KEEP_FREED_MEMORY = {"ARROW_DEFAULT_MEMORY_POOL": "system"}
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's own upper bound for this setting
TRIM_THRESHOLD = 256 * 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # malloc.h
_GLIBC_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def keep_freed_memory() -> bool:
    """``KEEP_FREED_MEMORY`` into the environment (read when pyarrow loads, so before
    it does) and glibc's thresholds set with ``mallopt``; True when glibc took them.
    Not where the user set glibc's malloc through the environment, nor off glibc
    (``mallopt`` missing: the process runs as before)."""
    for name, value in KEEP_FREED_MEMORY.items():
        os.environ.setdefault(name, value)
    if any(name in os.environ for name in _GLIBC_SETTINGS):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


# NumPy's OpenBLAS starts a thread per core when NumPy loads, and such a thread spins
# (``blas_thread_server``) for a while after its start and after every BLAS call: 2.3 %
# of the CPU samples of an ``arpad rate`` on the 6M-game store, on a core the run's own
# threads (write-behind, performance column) want. arpad's only BLAS calls are the
# backtest's and the draw model's fits of 3-4 columns, for which one thread is as
# fast. Set for the console process before anything imports NumPy (Dask workers get
# ``OMP_NUM_THREADS=1``, which OpenBLAS reads too); a value already set wins.
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1"}


def single_threaded_blas() -> None:
    """``SINGLE_THREADED_BLAS`` into the environment, where not set already."""
    for name, value in SINGLE_THREADED_BLAS.items():
        os.environ.setdefault(name, value)


# cffi: Numba's typing imports it, when installed, to type CFFI functions, which no
# arpad kernel calls (cffi and pycparser: ~0.05 s of each process; Numba runs without).
HIDDEN = ("pandas", "cffi")


class _Absent:
    """A meta path finder for which the ``names`` packages are not installed."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".", 1)[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def exit_now(code: int) -> None:
    """End the console ``ingest``/``rate`` process at once, after flushing its output.

    By then every file the command writes is written and renamed into place, its
    threads are joined and the store's lock is released (each in its own ``with`` or
    ``finally``); what the interpreter would still do is tear down the modules and
    free the run's arrays one by one (polars, Numba, DuckDB, pyarrow): 0.15-0.2 s of
    a 2.4 s ``arpad rate`` on the 6M-game store (docs/runners.md "Start-up"). Only
    the console process does this; ``cli.main(argv)`` returns as before.
    """
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed by the caller (``>&-``): nothing to flush
            continue
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            if stream is sys.stdout and code == 0:
                code = 141  # the reader went away: cli.EXIT_BROKEN_PIPE
    os._exit(code)
