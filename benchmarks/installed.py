"""Benchmarks time arpad as it runs once installed.

A wheel install byte-compiles every module (pip's default), so an installed
``arpad`` never compiles its own source at start-up. The development checkout is an
editable install whose ``.pyc`` files are written on first import, unless
``PYTHONDONTWRITEBYTECODE`` is set (as on the shared benchmark machine): then every
process compiles arpad's ~65 modules again, about 0.1 s of each whole-process figure
(measured on the 2-core machine, imports of the rate path with and without them).
The whole-process benchmarks (bench_peer.py, bench_cli.py) therefore byte-compile the
package once before timing, as the wheel install would; ``compileall`` writes the files
whatever that variable says. They also build the kernels compiled ahead of time, as
``make`` does (``python -m arpad.pipeline.aot``, a no-op when current; docs/developing.md
"Kernels ahead of time").
"""

from __future__ import annotations

import compileall
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("pipeline", "kernels", "flows", "src")


def compile_package() -> bool:
    """Byte-compile arpad's source folders (``__pycache__`` next to the sources) and
    build the kernels compiled ahead of time."""
    ok = True
    for name in PACKAGE_DIRS:
        folder = ROOT / name
        if folder.is_dir():
            ok &= bool(compileall.compile_dir(folder, quiet=1))
    subprocess.run([sys.executable, "-m", "arpad.pipeline.aot"], check=True)
    return ok
