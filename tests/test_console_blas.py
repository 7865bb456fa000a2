"""The console process runs NumPy's OpenBLAS on one thread (pipeline/lean.py
``SINGLE_THREADED_BLAS``): the pool of a thread per core that OpenBLAS starts when NumPy
loads spins beside the run's own threads. A value the user set wins, and ``main(argv)``
inside another program leaves the environment alone."""

from __future__ import annotations

import os
import subprocess
import sys

# What OpenBLAS reads for its pool size (another test or the suite may have set one).
BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")

CODE = (
    "import os, sys\n"
    "from arpad.pipeline.cli import main\n"
    "sys.argv = ['arpad', '--version']\n"
    "try:\n"
    "    main({argv})\n"
    "except SystemExit:\n"
    "    pass\n"
    "import numpy\n"
    "print('blas', os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))\n"
)


def _run(argv: str, **env) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    proc = subprocess.run(
        [sys.executable, "-c", CODE.format(argv=argv)],
        capture_output=True,
        text=True,
        env={**clean, **env},
    )
    assert proc.returncode == 0, proc.stderr
    _, value, threads = proc.stdout.strip().splitlines()[-1].split()
    return value, int(threads)


def test_console_process_sets_one_blas_thread_unless_the_user_did():
    value, threads = _run("")  # main() with no argv: the console process
    assert value == "1"
    # the console's pool is the one a user gets by setting the variable to 1
    assert threads == _run("", OPENBLAS_NUM_THREADS="1")[1]
    assert _run("", OPENBLAS_NUM_THREADS="2")[0] == "2"
    # main(argv) inside another program: nothing set, OpenBLAS's own pool (a thread per
    # core: never fewer threads than the console's one).
    other, other_threads = _run("['--version']")
    assert other == "None"
    assert threads <= other_threads
