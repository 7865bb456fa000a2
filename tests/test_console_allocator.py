"""The console process of a command that walks periods (rate, reconstruct, recalculate,
whatif, backtest) keeps freed memory for the next period (pipeline/lean.py
``keep_freed_memory``): pyarrow on the system allocator, glibc's malloc serving blocks
up to 32 MiB from its heap instead of a fresh mmap each time. A setting the user made
wins; ``ingest`` keeps its own settings; ``main(argv)`` inside another program and the
Python API leave the process alone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

# A 4 MiB block: above glibc's default mmap threshold (128 KiB), below the console's.
CODE = (
    "import ctypes, os, sys\n"
    "from arpad.pipeline import lean\n"
    "done = lean.hide_unneeded_modules({argv}) if {console} else False\n"
    "libc = ctypes.CDLL(None)\n"
    "libc.malloc.restype = libc.sbrk.restype = ctypes.c_void_p\n"
    "libc.malloc.argtypes = (ctypes.c_size_t,)\n"
    "libc.sbrk.argtypes = (ctypes.c_long,)\n"
    "block = libc.malloc(4 << 20)\n"
    "on_heap = block < libc.sbrk(0)\n"
    "import pyarrow\n"
    "print(on_heap, pyarrow.default_memory_pool().backend_name)\n"
)
MALLOC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="glibc's malloc settings (the console sets nothing elsewhere)",
)


def _run(argv: list[str], console: bool = True, **env) -> tuple[bool, str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in (*MALLOC_VARIABLES, "ARROW_DEFAULT_MEMORY_POOL", "PREFECT_API_URL")
    }
    proc = subprocess.run(
        [sys.executable, "-c", CODE.format(argv=argv, console=console)],
        capture_output=True,
        text=True,
        env={**clean, **env},
    )
    assert proc.returncode == 0, proc.stderr
    on_heap, pool = proc.stdout.split()
    return on_heap == "True", pool


@glibc
@pytest.mark.parametrize("command", ["rate", "reconstruct", "recalculate", "whatif", "backtest"])
def test_period_commands_keep_freed_memory(command):
    on_heap, pool = _run([command, "--store", "s"])
    assert on_heap  # glibc took the 32 MiB mmap threshold
    assert pool == "system"


@glibc
def test_other_processes_keep_the_default_allocators():
    default_heap, default_pool = _run([], console=False)
    assert not default_heap  # glibc's default: a 4 MiB block is its own mmap
    assert default_pool != "system"  # pyarrow's bundled allocator
    # ingest has its own settings (RETURN_FREED_MEMORY); list walks no periods;
    # a distributed run's workers start as they are
    assert _run(["ingest", "--store", "s", "f.csv"]) == (default_heap, default_pool)
    assert _run(["list", "--store", "s"]) == (default_heap, default_pool)
    assert _run(["rate", "--store", "s", "--workers", "2"]) == (default_heap, default_pool)


@glibc
def test_the_users_settings_win():
    # glibc set through the environment: not touched (the user's threshold, 1 MiB here)
    on_heap, pool = _run(["rate"], MALLOC_MMAP_THRESHOLD_=str(1 << 20))
    assert not on_heap
    assert pool == "system"
    assert _run(["rate"], ARROW_DEFAULT_MEMORY_POOL="mimalloc")[1] == "mimalloc"
