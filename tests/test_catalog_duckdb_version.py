"""The catalog's stamp names the DuckDB that writes the catalog file (pipeline/catalog.py
``duckdb_version``), read from DuckDB's dist-info folder without importing
``importlib.metadata`` on the rate path: it must be the installed version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from arpad.pipeline.catalog import duckdb_version


def test_duckdb_version_is_the_installed_one():
    assert duckdb_version() == version("duckdb")


def test_duckdb_version_imports_neither_duckdb_nor_metadata():
    code = (
        "import sys\n"
        "from arpad.pipeline.catalog import duckdb_version\n"
        "duckdb_version()\n"
        "print('duckdb' in sys.modules, 'importlib.metadata' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
