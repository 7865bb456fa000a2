"""Read-only SQL for analysts (``arpad sql``): a connection that cannot write anything.

The query runs on a fresh in-memory DuckDB connection opened with
``enable_external_access = false`` (DuckDB itself can then open no file at all:
no ``COPY``/``EXPORT``, no ``ATTACH``, no ``read_csv``/``read_text``/``glob``, no
extension install or load), with extension autoloading and autoinstalling off,
Python replacement scans off, spill files confined to a private temporary
directory that is deleted afterwards, and the configuration locked
(``lock_configuration = true``) before the analyst's SQL runs, so no ``SET`` can
undo any of it.

The catalog views still work because arpad, not DuckDB, opens the store's
files: each base view (games, players, ratings, quarantine) is a PyArrow
dataset over exactly the files the catalog view would read, registered on the
connection, with the column names, order and types that the catalog's
``read_parquet`` view has (asked of DuckDB on a separate, throwaway connection
before). The derived views (rating_list, …) are the catalog's own SQL over
those. ``--allow-file`` files are read by arpad the same way (DuckDB's own
readers on the throwaway connection) and registered as tables.

On top of that only one statement is run, and only a ``SELECT`` (also
``WITH … SELECT``, ``FROM …``, ``VALUES``, ``DESCRIBE``/``SUMMARIZE``/``SHOW``, which
DuckDB parses as SELECT) or ``EXPLAIN [ANALYZE]`` of a SELECT; anything else is
refused with a one-line message. docs/operations.md, "Read-only SQL", lists
what is promised and the tests that prove it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from arpad.pipeline import catalog
from arpad.pipeline.store import Store

# Settings of the analyst's connection (fixed at connect time, then locked).
LOCKED_CONFIG = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "python_enable_replacements": False,
    "allow_community_extensions": False,
}

ALLOWED_FILE_READERS = {
    ".csv": "read_csv",
    ".tsv": "read_csv",
    ".txt": "read_csv",
    ".parquet": "read_parquet",
    ".json": "read_json",
    ".jsonl": "read_json",
    ".ndjson": "read_json",
}
TABLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
EXPLAIN = re.compile(r"\s*EXPLAIN\s+(?:ANALYZE\s+|ANALYSE\s+)?(?P<rest>.*)", re.I | re.S)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def check_statement(query: str) -> None:
    """Refuse anything but one SELECT, or EXPLAIN [ANALYZE] of one SELECT (ValueError)."""
    parser = duckdb.connect(":memory:", config=dict(LOCKED_CONFIG))
    try:
        statements = parser.extract_statements(query)
        if len(statements) != 1:
            raise ValueError(f"arpad sql runs exactly one statement, got {len(statements)}")
        kind = statements[0].type.name
        if kind == "EXPLAIN":
            match = EXPLAIN.fullmatch(statements[0].query)
            inner = parser.extract_statements(match["rest"]) if match else []
            if len(inner) != 1 or inner[0].type.name != "SELECT":
                raise ValueError(
                    "arpad sql is read-only: only EXPLAIN [ANALYZE] of a SELECT is allowed"
                )
        elif kind != "SELECT":
            raise ValueError(f"arpad sql is read-only: {kind} statements are refused")
    except duckdb.Error as exc:
        raise ValueError(f"SQL error: {_one_line(exc)}") from None
    except ValueError as exc:  # e.g. a statement type the Python client cannot name
        if str(exc).startswith("arpad sql"):
            raise
        raise ValueError(f"arpad sql is read-only: statement refused ({_one_line(exc)})") from None
    finally:
        parser.close()


def _reader() -> duckdb.DuckDBPyConnection:
    """The throwaway connection arpad itself reads files with (never sees analyst SQL)."""
    return duckdb.connect(
        ":memory:",
        config={"autoload_known_extensions": False, "autoinstall_known_extensions": False},
    )


def _base_view(reader, con, store: Store, name: str) -> str:
    """SQL of base view ``name`` over a registered PyArrow dataset (no DuckDB file access)."""
    pattern, hive, schema = catalog.BASE_VIEWS[name]
    root = store.root.resolve()
    files = [
        r[0]
        for r in reader.execute(
            "SELECT file FROM glob(?) ORDER BY file", [str(root / pattern)]
        ).fetchall()
    ]
    # DuckDB's glob skips a directory in a file's place: the query would count without it
    # and reads a folder ``period=abc`` put there by hand as a partition of its own
    from arpad.pipeline.integrity import damaged, period_of

    for path in root.glob(pattern):
        if path.is_dir():
            raise damaged(path, "a directory where a Parquet file belongs")
        if path.parent.name.startswith("period="):
            period_of(path.parent)
    if not files:
        return catalog._empty_select(schema)
    # Exactly the catalog's read_parquet call (catalog._view_sql): same columns and types.
    hive_args = ", hive_partitioning = true" if hive else ""
    described = reader.execute(
        f"DESCRIBE SELECT * FROM read_parquet(?, union_by_name = true{hive_args})", [files]
    ).fetchall()
    columns_seen = {c for c, *_ in described}
    base = root / pattern.split("/", 1)[0]
    # key=value folders DuckDB made columns of (also when it detected them by itself)
    keys = [
        part.split("=", 1)[0]
        for part in Path(files[0]).relative_to(base).parts[:-1]
        if "=" in part and part.split("=", 1)[0] in columns_seen
    ]
    file_schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
    file_schema = pa.schema([f for f in file_schema if f.name not in keys])
    partitioning = (
        ds.partitioning(pa.schema([(k, pa.string()) for k in keys]), flavor="hive")
        if keys
        else None
    )
    full = pa.schema([*file_schema, *((k, pa.string()) for k in keys)])
    dataset = ds.dataset(
        files,
        schema=full,
        format="parquet",
        partitioning=partitioning,
        partition_base_dir=str(base),
    )
    source = f"_arpad_files_{name}"
    con.register(source, dataset)
    columns = [f"CAST({_ident(c)} AS {t}) AS {_ident(c)}" for c, t, *_ in described]
    if not hive:  # the schema's columns the files lack, as typed NULLs (catalog._absent)
        columns += catalog._nulls(catalog._absent([Path(f) for f in files], schema))
    view = f"SELECT {', '.join(columns)} FROM {source}"
    if hive and name in ("games", "ratings"):
        view = f"SELECT * REPLACE (CAST(period AS INTEGER) AS period) FROM ({view})"
    return view


def _allowed_file(reader, spec: str, taken: set[str]) -> tuple[str, pa.Table]:
    """``PATH`` or ``NAME=PATH`` → (table name, contents read by DuckDB's own reader)."""
    name, _, rest = spec.partition("=")
    if rest and TABLE_NAME.fullmatch(name):
        path = Path(rest)
    else:
        path = Path(spec)
        name = re.sub(r"[^a-z0-9_]", "_", path.stem.lower())
        if name[:1].isdigit():
            name = f"_{name}"
    if not TABLE_NAME.fullmatch(name or ""):
        raise ValueError(f"--allow-file {spec}: give it a name, e.g. --allow-file mytable={spec}")
    if name in taken:
        raise ValueError(f"--allow-file {spec}: the name {name} is already taken")
    if not path.is_file():
        raise FileNotFoundError(f"--allow-file {spec}: no such file {path}")
    function = ALLOWED_FILE_READERS.get(path.suffix.lower())
    if function is None:
        known = ", ".join(sorted(ALLOWED_FILE_READERS))
        raise ValueError(f"--allow-file {spec}: unknown file type (known: {known})")
    try:
        table = catalog.query_arrow(reader, f"SELECT * FROM {function}(?)", [str(path.resolve())])
    except duckdb.Error as exc:
        raise ValueError(f"--allow-file {spec}: {_one_line(exc)}") from None
    return name, table


def connect_locked(
    store: Store, allow_files=(), temp_directory: str | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with the catalog views (and ``allow_files`` tables) that
    cannot open, read or write any file; its configuration is locked."""
    config = dict(LOCKED_CONFIG)
    if temp_directory is not None:
        config["temp_directory"] = temp_directory
    con = duckdb.connect(":memory:", config=config)
    reader = _reader()
    try:
        for name in catalog.BASE_VIEWS:
            con.execute(f"CREATE VIEW {name} AS {_base_view(reader, con, store, name)}")
        for name, sql in catalog.derived_views().items():
            con.execute(f"CREATE VIEW {name} AS {sql}")
        taken = {*catalog.BASE_VIEWS, *catalog.DERIVED_VIEWS}
        for spec in allow_files or ():
            name, table = _allowed_file(reader, str(spec), taken)
            con.register(f"_arpad_file_{name}", table)
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM _arpad_file_{name}")
            taken.add(name)
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    finally:
        reader.close()
    return con


def run_readonly_sql(store: Store, query: str, params, allow_files=()) -> pl.DataFrame:
    """Run one read-only statement over the catalog views; returns the result.

    Raises ValueError (exit 2) for a refused statement or an SQL error."""
    check_statement(query)
    spill = tempfile.mkdtemp(prefix="arpad-sql-")
    try:
        con = connect_locked(store, allow_files, temp_directory=spill)
        try:
            return catalog.query_frame(con, query, list(params or []) or None)
        except duckdb.Error as exc:
            raise ValueError(f"SQL error: {_one_line(exc)}") from None
        finally:
            con.close()
    finally:
        shutil.rmtree(spill, ignore_errors=True)
