"""Benchmarks time arpad as it runs once installed.

A wheel install byte-compiles every module (pip's default), so an installed
``arpad`` never compiles its own source at start-up. The development checkout is an
editable install whose ``.pyc`` files are written on first import, unless
``PYTHONDONTWRITEBYTECODE`` is set (as on the shared benchmark machine): then every
process compiles arpad's ~65 modules again, about 0.1 s of each whole-process figure
(measured on the 2-core machine, imports of the rate path with and without them).
The whole-process benchmarks (bench_peer.py, bench_cli.py) therefore byte-compile the
package once before timing, as the wheel install would; ``compileall`` writes the files
whatever that variable says.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("pipeline", "kernels", "flows", "src")


def compile_package() -> bool:
    """Byte-compile arpad's source folders (``__pycache__`` next to the sources)."""
    ok = True
    for name in PACKAGE_DIRS:
        folder = ROOT / name
        if folder.is_dir():
            ok &= bool(compileall.compile_dir(folder, quiet=1))
    return ok
