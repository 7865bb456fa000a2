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
"""

from numba import njit, prange

JIT_OPTIONS = {"cache": True, "nogil": True, "fastmath": False}
PARALLEL_OPTIONS = {**JIT_OPTIONS, "parallel": True}

# Below this many units of work (players + CSR entries of a call) one thread is faster.
PARALLEL_MIN_WORK = 4_000_000

_SERIAL_TWINS: dict[int, object] = {}


def jit_enabled() -> bool:
    """False under ``NUMBA_DISABLE_JIT=1`` (kernel bodies run as plain Python)."""
    from numba.core import config

    return not config.DISABLE_JIT


def jit(func):
    """Compile a serial kernel with the project-wide flags."""
    return njit(**JIT_OPTIONS)(func)


def _renamed(func, suffix: str):
    """A copy of ``func`` under another qualified name (Numba names cache files by it)."""
    twin = type(func)(
        func.__code__, func.__globals__, func.__name__ + suffix, func.__defaults__, func.__closure__
    )
    twin.__qualname__ = func.__qualname__ + suffix
    twin.__module__ = func.__module__
    twin.__doc__ = func.__doc__
    return twin


def jit_parallel(func):
    """Compile a kernel whose outer loop is a ``prange`` over owning units, and its serial twin
    (``by_work`` picks one per call)."""
    parallel = njit(**PARALLEL_OPTIONS)(func)
    _SERIAL_TWINS[id(parallel)] = njit(**JIT_OPTIONS)(_renamed(func, "__serial"))
    return parallel


def by_work(kernel, work: int, threshold: int = PARALLEL_MIN_WORK):
    """The threaded ``kernel`` when ``work`` ≥ ``threshold``, else its serial twin."""
    if work >= threshold:
        return kernel
    return _SERIAL_TWINS.get(id(kernel), kernel)


__all__ = ["PARALLEL_MIN_WORK", "by_work", "jit", "jit_enabled", "jit_parallel", "prange"]
