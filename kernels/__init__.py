"""Numba kernels: pure functions over NumPy arrays (no I/O, no polars/DuckDB/Prefect).

Public wrappers check shapes and dtypes and call a private ``@njit`` kernel of
the same name with a leading underscore (``fide_period`` -> ``_fide_period``).
"""
