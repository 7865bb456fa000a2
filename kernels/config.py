"""The one place that decides Numba compilation flags for every kernel.

No kernel uses ``fastmath``: several results must match a regulation to the
unit, and fastmath may reorder sums. ``cache=True`` keeps compiled kernels on
disk between runs. Set ``NUMBA_DISABLE_JIT=1`` to run kernel bodies as plain
Python (readable tracebacks, coverage).
"""

from numba import njit, prange

JIT_OPTIONS = {"cache": True, "nogil": True, "fastmath": False}
PARALLEL_OPTIONS = {**JIT_OPTIONS, "parallel": True}


def jit(func):
    """Compile a serial kernel with the project-wide flags."""
    return njit(**JIT_OPTIONS)(func)


def jit_parallel(func):
    """Compile a kernel whose outer loop is a ``prange`` over owning units."""
    return njit(**PARALLEL_OPTIONS)(func)


__all__ = ["jit", "jit_parallel", "prange"]
