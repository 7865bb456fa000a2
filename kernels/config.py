"""The one place that decides Numba compilation flags for every kernel.

No kernel uses ``fastmath``: several results must match a regulation to the
unit, and fastmath may reorder sums. ``cache=True`` keeps compiled kernels on
disk between runs. Set ``NUMBA_DISABLE_JIT=1`` to run kernel bodies as plain
Python (readable tracebacks, coverage).

Serial or parallel by work size: every ``jit_parallel`` kernel is also compiled
without ``parallel`` (its serial twin, a cache entry of its own), and a wrapper
calls ``by_work(kernel, work)``: the threaded kernel only when the call has at
least ``PARALLEL_MIN_WORK`` units of work (players + game entries), because on
small periods starting and joining the threads costs more than the loop (and on
a loaded 2-core machine a thread may wait for a core). Both compile the same
body, and ``prange`` loops only write outputs their unit owns, so the results
are identical either way.

Numba on first need (docs/developing.md "Kernels ahead of time"): ``jit`` and
``jit_parallel`` return a ``Kernel``, not a Numba dispatcher. Numba is imported,
and the dispatchers made, when a kernel first needs them (``materialize``). A
call whose argument types match an export of the ahead-of-time module
(kernels/aot.py, built by ``make``) runs that compiled code: the same source
compiled by the same Numba, without importing Numba or loading its cache (about
0.4 s of CPU at the start of every rating process). Any other call goes to the
dispatcher, as before. Inside compiled code a ``Kernel`` types as its dispatcher
(``_numba_type_``), so kernels call kernels as they did.
"""

from __future__ import annotations

import os
import sys
import threading

from arpad.kernels import aot

JIT_OPTIONS = {"cache": True, "nogil": True, "fastmath": False}
PARALLEL_OPTIONS = {**JIT_OPTIONS, "parallel": True}

# Below this many units of work (players + CSR entries of a call) one thread is faster.
PARALLEL_MIN_WORK = 4_000_000


class _Prange:
    """``prange`` until Numba is imported: ``range`` in Python; ``materialize`` then
    rebinds every kernel module's ``prange`` to Numba's, which compiled code needs."""

    def __new__(cls, *args):
        return range(*args)


prange = _Prange

_KERNELS: list[Kernel] = []
_SERIAL_TWINS: dict[int, Kernel] = {}
_LOCK = threading.RLock()
_materialized = False


def jit_enabled() -> bool:
    """False under ``NUMBA_DISABLE_JIT=1`` (kernel bodies run as plain Python); read as
    Numba reads it, without importing Numba."""
    try:
        return int(os.environ.get("NUMBA_DISABLE_JIT", "0") or "0") == 0
    except ValueError:
        return True


class Kernel:
    """A kernel: its ahead-of-time export when the arguments match one, else its Numba
    dispatcher (made on first need)."""

    def __init__(self, func, options: dict):
        self.py_func = func
        self.options = options
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._dispatcher = None
        self._exports = None  # {argument key: compiled function}, once looked up
        with _LOCK:
            _KERNELS.append(self)
            if _materialized:
                self._dispatcher = _njit(self)

    def __repr__(self) -> str:
        return f"<arpad kernel {self.__module__}.{self.__qualname__}>"

    @property
    def dispatcher(self):
        """The Numba dispatcher (Numba imported on first need)."""
        if self._dispatcher is None:
            materialize()
        return self._dispatcher

    @property
    def _numba_type_(self):  # compiled callers type a Kernel global as its dispatcher
        return self.dispatcher._numba_type_

    def __getattr__(self, name):  # signatures, overloads, stats, ...: the dispatcher's
        if name.startswith("__") or name in ("_dispatcher", "_exports", "py_func", "options"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __call__(self, *args):
        exports = self._exports
        if exports is None:
            exports = self._exports = aot.exports_of(self)
        if exports:
            compiled = exports.get(aot.argument_key(args))
            if compiled is not None:
                return compiled(*args)
        return self.dispatcher(*args)


def _njit(kernel: Kernel):
    from numba import njit

    return njit(**kernel.options)(kernel.py_func)


def materialize() -> None:
    """Import Numba and make every kernel's dispatcher (once per process). Kernel
    modules get Numba's ``prange`` in place of the stand-in, so that their
    ``parallel`` kernels compile as before; kernels defined later get their
    dispatcher at once."""
    global _materialized, prange
    with _LOCK:
        if _materialized:
            return
        import numba

        for kernel in _KERNELS:
            if kernel._dispatcher is None:
                kernel._dispatcher = _njit(kernel)
        prange = numba.prange
        for name, module in list(sys.modules.items()):
            if name.startswith("arpad.kernels") and getattr(module, "prange", None) is _Prange:
                module.prange = numba.prange
        _materialized = True


def read_only(a):
    """A read-only view of the array ``a``. A kernel's inputs passed through it have one
    type whether they are views of Arrow or polars buffers (read-only) or NumPy copies
    (writeable), so that the export compiled ahead of time is the one called
    (kernels/aot.py matches the writeable flag too: a copy once sent the 6M-game
    ingest's digest pass to the JIT, Numba imported and the pass compiled)."""
    view = a.view()
    view.flags.writeable = False
    return view


def jit(func) -> Kernel:
    """A serial kernel with the project-wide flags."""
    return Kernel(func, JIT_OPTIONS)


def _renamed(func, suffix: str):
    """A copy of ``func`` under another qualified name (Numba names cache files by it)."""
    twin = type(func)(
        func.__code__, func.__globals__, func.__name__ + suffix, func.__defaults__, func.__closure__
    )
    twin.__qualname__ = func.__qualname__ + suffix
    twin.__module__ = func.__module__
    twin.__doc__ = func.__doc__
    return twin


def jit_parallel(func) -> Kernel:
    """A kernel whose outer loop is a ``prange`` over owning units, and its serial twin
    (``by_work`` picks one per call)."""
    parallel = Kernel(func, PARALLEL_OPTIONS)
    _SERIAL_TWINS[id(parallel)] = Kernel(_renamed(func, "__serial"), JIT_OPTIONS)
    return parallel


def serial_twin(kernel: Kernel) -> Kernel:
    """The serial twin of a ``jit_parallel`` kernel (the kernel itself for others)."""
    return _SERIAL_TWINS.get(id(kernel), kernel)


def by_work(kernel, work: int, threshold: int = PARALLEL_MIN_WORK):
    """The threaded ``kernel`` when ``work`` ≥ ``threshold``, else its serial twin."""
    if work >= threshold:
        return kernel
    return serial_twin(kernel)


def all_kernels() -> list[Kernel]:
    """Every kernel defined so far (kernels/aot.py builds from these)."""
    with _LOCK:
        return list(_KERNELS)


__all__ = [
    "PARALLEL_MIN_WORK",
    "Kernel",
    "all_kernels",
    "by_work",
    "jit",
    "jit_enabled",
    "jit_parallel",
    "materialize",
    "prange",
    "serial_twin",
]
