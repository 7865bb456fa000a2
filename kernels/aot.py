"""Kernels compiled ahead of time: a rating process without Numba's start-up.

A process that calls a Numba kernel first imports Numba (~0.2 s of CPU) and, on the
first call, builds Numba's typing and target contexts and loads the kernel from its
cache (~0.2 s more, and ~0.02 s per further kernel), all under the GIL, before any
work. ``python -m arpad.pipeline.aot`` (run by ``make``) compiles the serial kernels
that rating runs call, with the argument types they call them with, into one
extension module with Numba's ahead-of-time compiler (``numba.pycc``), next to this
file in ``_aot/``. The module needs NumPy only. ``Kernel.__call__`` (kernels/config.py)
runs a call there when its argument types are exactly those of an export, and goes to
Numba otherwise (docs/developing.md "Kernels ahead of time").

* **Same code, same results.** The exports are the kernels' own Python functions,
  compiled by the installed Numba for the host CPU, without fastmath, as the JIT
  compiles them: tests/test_aot.py checks that every export returns bit for bit what
  the dispatcher returns.
* **Exact types or nothing.** A compiled export does not check its arguments (a
  wrong dtype reads memory wrongly), so ``argument_key`` describes each argument as
  Numba's ``typeof`` would (dtype, dimensions, layout, writeable, aligned; Python
  ``int``/``float``/``bool``), and only an exact match is sent there.
* **Never stale.** The module's stamp holds a digest of every kernel source file, the
  build's exercise (pipeline/aot.py), the Python, NumPy and Numba versions and the CPU;
  a change to any of them (an edited
  kernel) leaves the module unused until the next build. ``ARPAD_AOT=0`` turns it off;
  ``NUMBA_DISABLE_JIT=1`` does too (kernel bodies then run as Python).
* **Which types.** The build (``python -m arpad.pipeline.aot``) rates a tiny game set
  with every system through the engine's in-memory walk and through a real store
  (ingest, then ``rate``), under the JIT, and exports each serial kernel with the
  signatures those runs compiled.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "_aot"
MODULE = "arpad_kernels_aot"
STAMP = FOLDER / "stamp.json"

# How the module is built (part of the stamp's digest): 2 = the exports release the GIL.
BUILD = 2

_loaded: dict | None = None  # {kernel id: {argument key: function}} of a current module
_LOCK = threading.Lock()


def enabled() -> bool:
    from arpad.kernels.config import jit_enabled

    return jit_enabled() and os.environ.get("ARPAD_AOT", "1") != "0"


def _cpu() -> str:
    """The CPU the exports are built for (the stamp's; no Numba import)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith(("model name", "flags")):
                    return hashlib.sha256(line.encode()).hexdigest()[:16]
    except OSError:
        pass
    return platform.machine()


def source_digest() -> str:
    """Digest of what the compiled code depends on: every kernel source file, the
    build's exercise, the Python, NumPy and Numba versions, and the CPU."""
    import numpy as np

    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        if path.name == "aot.py":
            continue
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(f"{sys.version}|{np.__version__}|{_numba_version()}|{_cpu()}".encode())
    h.update(f"build {BUILD}".encode())
    exercise = HERE.parent / "pipeline" / "aot.py"  # which calls give the signatures
    if exercise.is_file():
        h.update(exercise.read_bytes())
    return h.hexdigest()


def _numba_version() -> str:
    """The installed Numba's version from its distribution folder's name (importing
    ``importlib.metadata`` costs more than the rest of the check)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return "none"
    site = Path(next(iter(spec.submodule_search_locations))).parent
    found = sorted(p.name for p in site.glob("numba-*.dist-info"))
    return found[-1] if found else "unknown"


# -- argument keys: Numba's typeof of each argument, without Numba ---------------------
def _array_key(a) -> tuple:
    flags = a.flags
    layout = "C" if flags.c_contiguous else ("F" if flags.f_contiguous else "A")
    return ("a", a.dtype.str, a.ndim, layout, bool(flags.writeable), bool(flags.aligned))


def argument_key(args) -> tuple | None:
    """The arguments' types as Numba's ``typeof`` sees them, or None when one is of a
    kind no export takes (tuples, strings, None, objects)."""
    import numpy as np

    key = []
    for value in args:
        kind = type(value)
        if kind is np.ndarray:
            if value.dtype.hasobject or value.dtype.fields is not None:
                return None
            key.append(_array_key(value))
        elif kind is bool or kind is np.bool_:
            key.append(("b",))
        elif kind is float:
            key.append(("s", "<f8"))
        elif kind is int:
            if not -(2**63) <= value < 2**63:
                return None
            key.append(("s", "<i8"))
        elif isinstance(value, np.integer | np.floating):
            key.append(("s", value.dtype.str))
        else:
            return None
    return tuple(key)


def _type_key(ty) -> tuple | None:
    """The argument key of a Numba type (at build time), or None when not exportable."""
    import numpy as np
    from numba.core import types

    if isinstance(ty, types.Literal):  # compiled for one constant: no call types this
        return None
    if isinstance(ty, types.Array):
        dtype = np.dtype(str(ty.dtype)) if not isinstance(ty.dtype, types.Boolean) else np.bool_
        return ("a", np.dtype(dtype).str, ty.ndim, ty.layout, bool(ty.mutable), bool(ty.aligned))
    if isinstance(ty, types.Boolean):
        return ("b",)
    if isinstance(ty, types.Integer | types.Float):
        return ("s", np.dtype(str(ty)).str)
    return None


def _returnable(ty) -> bool:
    from numba.core import types

    if isinstance(ty, types.BaseTuple):
        return all(_returnable(t) for t in ty.types)
    return _type_key(ty) is not None or isinstance(ty, types.NoneType)


# -- loading -----------------------------------------------------------------------------
def _load() -> dict:
    """{kernel id: {argument key: compiled function}} of the module when it is current,
    else {} (no module, a stale stamp, ``ARPAD_AOT=0``, no JIT). Loaded once per process,
    under a lock (two threads' first calls both see the module); a module that cannot be
    loaded, for any reason, leaves every kernel to the JIT."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _LOCK:
        if _loaded is None:
            try:
                table = _read_module() if enabled() and STAMP.exists() else {}
            except Exception:  # a broken module must never break a kernel call
                table = {}
            _loaded = table
    return _loaded


def _read_module() -> dict:
    stamp = json.loads(STAMP.read_text())
    if stamp.get("digest") != source_digest():
        return {}
    path = FOLDER / stamp["file"]
    loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    table: dict = {}
    for kernel_id, entries in stamp["exports"].items():
        for key, name in entries:
            table.setdefault(kernel_id, {})[_freeze(key)] = getattr(module, name)
    return table


def current() -> bool:
    """True when this process runs kernels from a current ahead-of-time module."""
    return bool(_load())


def _freeze(key) -> tuple:
    return tuple(tuple(part) for part in key)


def kernel_id(kernel) -> str:
    return f"{kernel.__module__}:{kernel.__qualname__}"


def exports_of(kernel) -> dict:
    """{argument key: compiled function} of ``kernel`` ({} without a current module)."""
    return _load().get(kernel_id(kernel), {})


# -- building ----------------------------------------------------------------------------
@contextlib.contextmanager
def _releasing_the_gil():
    """Exports whose Python wrappers release the GIL around the compiled body, as the
    JIT's ``nogil=True`` kernels do (kernels/config.py). ``numba.pycc`` builds its
    exports with default ``Flags`` (the GIL held), so a kernel on the engine's thread
    and the performance column's kernel on the write-behind's side thread ran one at a
    time, and blocked the writer's Python too: measured, two threads of one export
    took 2.1x one thread's time, against 1.0x with the JIT. The flag is Numba's own
    ``release_gil`` (numba/core/compiler.py); the bodies are nopython code, which
    touch no Python object."""
    from numba.pycc import compiler

    plain = compiler.Flags

    class Flags(plain):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compiler.Flags = Flags
    try:
        yield
    finally:
        compiler.Flags = plain


def build(exercise, verbose: bool = False) -> Path | None:
    """Compile the serial kernels that ``exercise()`` calls, with the argument types it
    calls them with, into the ahead-of-time module; return its path (None when it is
    already current). ``exercise`` runs under the JIT (pipeline/aot.py rates a tiny
    game set with every system)."""
    import shutil
    import tempfile

    digest = source_digest()
    if STAMP.exists():
        try:
            if json.loads(STAMP.read_text()).get("digest") == digest:
                return None
        except (OSError, ValueError):
            pass
    global _loaded
    _loaded = {}  # exercise the JIT, not an older module
    from llvmlite import binding
    from numba.pycc import CC

    from arpad.kernels import config

    config.materialize()
    exercise()
    cc = CC(MODULE)
    cc.target_cpu = binding.get_host_cpu_name()
    cc.verbose = verbose
    exports: dict[str, list] = {}
    n = 0
    for kernel in config.all_kernels():
        if kernel.options.get("parallel"):
            continue  # numba.pycc compiles serial code only; the serial twins are here
        for signature in kernel.dispatcher.nopython_signatures:
            keys = [_type_key(t) for t in signature.args]
            if any(k is None for k in keys) or not _returnable(signature.return_type):
                continue
            name = f"k{n}"
            n += 1
            cc.export(name, signature)(kernel.py_func)
            exports.setdefault(kernel_id(kernel), []).append([keys, name])
    if not exports:
        return None
    with tempfile.TemporaryDirectory(dir=HERE) as tmp, _releasing_the_gil():
        cc.output_dir = tmp
        cc.compile()
        FOLDER.mkdir(exist_ok=True)
        built = Path(tmp) / cc.output_file
        file = f"{MODULE}-{digest[:12]}{''.join(built.suffixes)}"
        for old in FOLDER.glob(f"{MODULE}-*"):
            old.unlink()
        shutil.move(built, FOLDER / file)
    text = json.dumps({"digest": digest, "file": file, "exports": exports}, indent=1)
    tmp_stamp = STAMP.with_suffix(".tmp")
    tmp_stamp.write_text(text)
    os.replace(tmp_stamp, STAMP)
    return FOLDER / file
