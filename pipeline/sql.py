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

import math
import re
import shutil
import signal
import tempfile
import threading
import time
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


# A PIVOT without an ``IN`` list: DuckDB parses it as several statements (one that reads
# the distinct values of the ``ON`` column into a type, then the pivot), which a
# read-only connection refuses; with the values listed it is one SELECT (docs/cli.md
# "arpad sql").
DYNAMIC_PIVOT = re.compile(r"\bPIVOT(?:_WIDER)?\b", re.I)
DYNAMIC_PIVOT_REFUSED = (
    "arpad sql is read-only: a PIVOT without an IN list runs several statements, which "
    "are refused; list the pivot values: PIVOT … ON col IN ('a', 'b') USING …"
)


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
            if len(inner) == 1 and inner[0].type.name == "MULTI" and DYNAMIC_PIVOT.search(query):
                raise ValueError(DYNAMIC_PIVOT_REFUSED)
            if len(inner) != 1 or inner[0].type.name != "SELECT":
                raise ValueError(
                    "arpad sql is read-only: only EXPLAIN [ANALYZE] of a SELECT is allowed"
                )
        elif kind == "MULTI" and DYNAMIC_PIVOT.search(query):
            raise ValueError(DYNAMIC_PIVOT_REFUSED)
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
        if path.is_dir() and name not in catalog.LEAVE_OUT_DAMAGED:
            raise damaged(path, "a directory where a Parquet file belongs")
        if path.parent.name.startswith("period="):
            period_of(path.parent)
    if name in catalog.LEAVE_OUT_DAMAGED:  # a cut quarantine file: left out, with a note
        shown = [store.root / Path(f).relative_to(root) for f in files]
        kept, _ = catalog.usable_files(store, name, shown)
        files = [str(root / p.relative_to(store.root)) for p in kept]
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
    hidden = catalog.HIDDEN_COLUMNS.get(name, ())
    columns = [
        f"CAST({_ident(c)} AS {t}) AS {_ident(c)}" for c, t, *_ in described if c not in hidden
    ]
    if not hive:  # the schema's columns the files lack, as typed NULLs (catalog._absent)
        columns += catalog._nulls(catalog._absent([Path(f) for f in files], schema))
    view = f"SELECT {', '.join(columns)} FROM {source}"
    if hive:  # the schema's column order, the keys' types, hidden columns left out
        view = catalog.hive_view(name, f"({view})")
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
        table = _read_allowed(reader, function, str(path.resolve()))
    except duckdb.Error as exc:
        raise ValueError(f"--allow-file {spec}: {_one_line(exc)}") from None
    return name, table


def _is_id_column(column: str) -> bool:
    """``id`` or ``…_id`` (player_id, white_id, fide_id, …): an identifier, read as text."""
    low = column.lower()
    return low == "id" or low.endswith("_id")


def _read_allowed(reader, function: str, path: str) -> pa.Table:
    """An allowed file with its id columns as text: the store's ids are text, and a CSV
    column of ids that look like numbers would be guessed INT64 — joining it to
    ``players`` then fails on the first id that is not a number, and ``007`` loses its
    zeros. CSV is read with those columns typed VARCHAR; Parquet and JSON keep the
    types they state, and an id column of integers there is turned into text."""
    if function == "read_csv":
        header = catalog.query_arrow(reader, "SELECT * FROM read_csv(?) LIMIT 0", [path])
        ids = {c: "VARCHAR" for c in header.column_names if _is_id_column(c)}
        if ids:
            sql = "SELECT * FROM read_csv(?, types = ?)"
            return catalog.query_arrow(reader, sql, [path, ids])
    table = catalog.query_arrow(reader, f"SELECT * FROM {function}(?)", [path])
    for i, field in enumerate(table.schema):
        if _is_id_column(field.name) and pa.types.is_integer(field.type):
            text = table.column(i).cast(pa.string())
            table = table.set_column(i, pa.field(field.name, pa.string()), text)
    return table


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


# After a SIGINT/SIGTERM, how long the query is waited for once DuckDB was told to stop
# (a second signal stops the wait at once); then the call ends, the query left behind.
INTERRUPT_GRACE = 10.0


class _Interrupts:
    """SIGINT and SIGTERM while ``arpad sql`` (or ``Store.sql``) runs, on the main thread.

    While the query runs (on a thread of its own, ``_run_query``) a signal calls DuckDB's
    ``interrupt()`` on its connection and is delivered once the query has stopped, as
    the handler it was meant for would have (KeyboardInterrupt; the console's SIGTERM
    handler's ``Terminated``): exit 130/143 at once, not a ``RuntimeError: Query
    interrupted`` traceback after DuckDB's next look at Python's signals, seconds or
    minutes later (docs/cli.md "arpad sql"). Outside the query the handler is called
    at once, as without this. A signal whose handler is not Python's (SIG_DFL,
    SIG_IGN) is left alone; so is every signal off the main thread."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.arrived: list[tuple[int, object]] = []
        self.previous: dict[int, object] = {}
        self.connection: duckdb.DuckDBPyConnection | None = None

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                handler = signal.getsignal(signum)
                if callable(handler):
                    self.previous[signum] = signal.signal(signum, self._take)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def _take(self, signum, frame) -> None:
        self.arrived.append((signum, frame))
        if self.connection is not None:
            self.connection.interrupt()
        else:
            self.deliver()

    def deliver(self) -> None:
        """Raise what the first signal's own handler raises (KeyboardInterrupt else)."""
        signum, frame = self.arrived[0]
        self.previous[signum](signum, frame)
        raise KeyboardInterrupt


def _run_query(con, query: str, params, interrupts: _Interrupts, timeout: float | None):
    """``fetch_result`` on a thread of its own while this thread waits, so that a
    signal is handled at once (``_Interrupts``) and ``timeout`` (seconds) is kept: then
    DuckDB's ``interrupt()`` stops the query (asked again until it has stopped: a query
    that had not started yet does not see the first). True in ``abandoned`` when the
    query was left running (it did not stop within ``INTERRUPT_GRACE`` of a signal)."""
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["table"] = fetch_result(con, query, params)
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="arpad-sql-query", daemon=True)
    deadline = None if timeout is None else time.monotonic() + timeout
    timed_out = False
    given_up = None  # when to stop waiting for a query told to stop by a signal
    interrupts.connection = con
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.05)
            if not worker.is_alive():
                break
            if deadline is not None and time.monotonic() >= deadline:
                timed_out = True
            if interrupts.arrived and given_up is None:
                given_up = time.monotonic() + INTERRUPT_GRACE
            if timed_out or interrupts.arrived:
                con.interrupt()
            if given_up is not None and (
                len(interrupts.arrived) > 1 or time.monotonic() >= given_up
            ):
                outcome["abandoned"] = True
                break
    finally:
        interrupts.connection = None
    if interrupts.arrived:
        return outcome
    if "error" in outcome and timed_out and isinstance(outcome["error"], duckdb.Error):
        raise ValueError(f"query ran longer than {timeout:g} s (--timeout): stopped") from None
    return outcome


def check_timeout(timeout) -> float | None:
    """``timeout`` as seconds (None: no limit); a ValueError unless a positive number."""
    if timeout is None:
        return None
    try:
        seconds = float(timeout)
    except (TypeError, ValueError):
        seconds = math.nan
    if not (0 < seconds < math.inf):
        raise ValueError(f"--timeout takes a positive number of seconds, got {timeout!r}")
    return seconds


def run_readonly_sql(
    store: Store, query: str, params, allow_files=(), timeout: float | None = None
) -> pl.DataFrame:
    """Run one read-only statement over the catalog views; returns the result.

    ``timeout``: seconds the query may run (None: no limit). A SIGINT or SIGTERM stops
    the query at once (``_Interrupts``). Raises ValueError (exit 2) for a refused
    statement, an SQL error or a query that ran out of time, and an InputError naming
    the players table deleted from a store with games, as ``rate`` and ``list`` (the
    ``players`` view read as empty, every name null: analyst round 10). A stat of the
    file; no view reads the key dictionary, so none is refused without it."""
    timeout = check_timeout(timeout)
    check_statement(query)
    if not store.players_path.exists():
        store.read_players()  # (refused while games are stored)
    for attempt in range(1, RACE_ATTEMPTS + 1):
        try:
            return _run_readonly_once(store, query, params, allow_files, timeout)
        except _Raced as raced:
            if attempt == RACE_ATTEMPTS:
                raise raced.error from None
            time.sleep(0.01 * 2 ** (attempt - 1))
    raise AssertionError("unreachable")


# A file an ingest or a run deletes or replaces between the listing of the store's files
# (``_base_view``) and their reading fails the query with one of these; the listing and
# the query are made again, as catalog.query_arrow does (readers are never blocked,
# docs/store.md). 8 attempts: 1.3 s in all before a lasting error is reported.
RACED_FILE = (*catalog.RACED_READ, "No files found that match", "Failed to open local file")
RACE_ATTEMPTS = 8


class _Raced(Exception):
    """A query that met a file vanishing under it (``RACED_FILE``): to be made again."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


def _raced(error: BaseException) -> bool:
    """Whether ``error`` (or one it came from) is a store file vanishing under a read."""
    seen, met = error, set()
    while seen is not None and id(seen) not in met:  # (a chain may loop)
        met.add(id(seen))
        if isinstance(seen, FileNotFoundError) or any(m in str(seen) for m in RACED_FILE):
            return True
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return False


def _run_readonly_once(store: Store, query: str, params, allow_files, timeout) -> pl.DataFrame:
    """One listing of the store's files and one run of the query (``run_readonly_sql``);
    raises _Raced when a file vanished between the two."""
    spill = tempfile.mkdtemp(prefix="arpad-sql-")
    abandoned = False
    try:
        with _Interrupts() as interrupts:
            try:
                con = connect_locked(store, allow_files, temp_directory=spill)
                try:
                    outcome = _run_query(
                        con, query, list(params or []) or None, interrupts, timeout
                    )
                    abandoned = outcome.get("abandoned", False)
                finally:
                    if not abandoned:  # closing under a running query could block
                        con.close()
            except Exception as exc:
                if interrupts.arrived:  # DuckDB's "Query interrupted" while connecting
                    interrupts.deliver()
                if _raced(exc):
                    raise _Raced(exc) from exc
                raise
            if interrupts.arrived:
                interrupts.deliver()
    finally:
        if not abandoned:
            shutil.rmtree(spill, ignore_errors=True)
    if "error" in outcome:
        error = outcome["error"]
        if not abandoned and _raced(error):
            raise _Raced(error)
        if isinstance(error, duckdb.Error):
            raise ValueError(f"SQL error: {_one_line(error)}") from None
        raise error
    return result_frame(outcome["table"])


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique as DuckDB's Python client does (``.pl()``, ``.df()``):
    compared without case, a repeated name gets ``_1``, ``_2``, … (the next number not
    taken), so ``r.player_id, p.player_id`` are ``player_id`` and ``player_id_1``.
    polars refuses two columns of one name (it was an internal error)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        low = name.lower()
        if low not in seen:
            seen[low] = 1
            out.append(name)
            continue
        number = seen[low]
        while f"{name}_{number}".lower() in seen:
            number += 1
        seen[low] = number + 1
        new = f"{name}_{number}"
        seen[new.lower()] = 1
        out.append(new)
    return out


# DuckDB types (``DuckDBPyType.id``) whose Arrow form polars holds with DuckDB's values;
# lists, structs, maps and arrays of them too. Every other type is returned as DuckDB's
# text of it (``held``): BLOB and BIT come to Arrow as bytes (a BIT is DuckDB's internal
# bytes, b"\x05\xfd" for '101'; polars cannot write bytes to CSV or JSON, it panicked),
# UHUGEINT as a DECIMAL(38,0) that wraps past 2^127 (its maximum came back as -1), TIME
# WITH TIME ZONE as a TIME without its offset, GEOMETRY and VARIANT as bytes; INTERVAL,
# UNION and BIGNUM polars cannot hold; and a type DuckDB adds later is text until known.
HELD_TYPES = frozenset(
    {
        *("boolean", "tinyint", "smallint", "integer", "bigint", "hugeint"),
        *("utinyint", "usmallint", "uinteger", "ubigint", "float", "double", "decimal"),
        *("varchar", "uuid", "enum", "null", "date", "time", "time_ns"),
        *("timestamp", "timestamp_s", "timestamp_ms", "timestamp_ns"),
        "timestamp with time zone",
    }
)
NESTED_TYPES = frozenset({"list", "struct", "map", "array"})


def held(kind) -> bool:
    """Whether a result column of DuckDB type ``kind`` (a ``DuckDBPyType``) is returned as
    its values (else as DuckDB's text of them, ``HELD_TYPES``); a nested type when every
    part is held."""
    if kind.id in NESTED_TYPES:  # children: (name, type) pairs; an array's ("size", n)
        return all(held(t) for _, t in kind.children if hasattr(t, "id"))
    return kind.id in HELD_TYPES


def fetch_result(con, query: str, params) -> pa.Table:
    """The query's result as Arrow, columns of a type not ``held`` cast to VARCHAR by the
    query's own connection (``CAST(… AS VARCHAR)``: DuckDB's own text, ``a\\x00b`` for a
    BLOB, ``101`` for a BIT); again when a file was replaced under it
    (``catalog.query_arrow``)."""
    return catalog.query_arrow(con, query, params, shape=_text_of_unheld)


def _text_of_unheld(relation):
    """The bound relation with each column of a type polars cannot hold as DuckDB's text,
    by position (#n: names may repeat); the projection keeps the row order."""
    kinds = relation.types
    if all(held(k) for k in kinds):
        return relation
    return relation.project(
        ", ".join(
            f"{f'#{n}' if held(k) else f'CAST(#{n} AS VARCHAR)'} AS {_ident(c)}"
            for n, (c, k) in enumerate(zip(relation.columns, kinds), start=1)
        )
    )


def _unheld(kind: pa.DataType) -> bool:
    """An Arrow type polars cannot hold or write (INTERVAL, UNION, bytes, an extension
    type such as DuckDB's opaque BIGNUM), also inside a list, array, map or struct
    (polars panics on an interval in a list). ``fetch_result`` makes such columns text
    already; this is for a table from elsewhere."""
    if pa.types.is_interval(kind) or pa.types.is_union(kind):
        return True
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return True
    if pa.types.is_binary_view(kind) or pa.types.is_fixed_size_binary(kind):
        return True
    if isinstance(kind, pa.ExtensionType) or isinstance(kind, pa.BaseExtensionType):
        return True
    if isinstance(kind, pa.ListType | pa.LargeListType | pa.FixedSizeListType):
        return _unheld(kind.value_type)
    if isinstance(kind, pa.MapType):
        return _unheld(kind.key_type) or _unheld(kind.item_type)
    if isinstance(kind, pa.StructType):
        return any(_unheld(kind.field(i).type) for i in range(kind.num_fields))
    return False


# chrono, which polars prints dates with, stops near year 262,000 (it panicked on
# DuckDB's 'infinity'::DATE); days from 1970 past this are shown as DuckDB's text
CALENDAR_DAYS = 95_000_000
PER_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}


def _beyond_calendar(column: pa.ChunkedArray) -> bool:
    """A date or timestamp column with a value polars cannot print (``infinity``)."""
    kind = column.type
    if pa.types.is_date32(kind):
        per_day = 1
    elif pa.types.is_date64(kind):
        per_day = PER_DAY["ms"]
    elif pa.types.is_timestamp(kind):
        per_day = PER_DAY[kind.unit]
    else:
        return False
    import pyarrow.compute as pc

    bounds = pc.min_max(column.cast(pa.int32() if per_day == 1 else pa.int64()))
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    limit = CALENDAR_DAYS * per_day
    return low is not None and (low < -limit or high > limit)


def result_frame(table: pa.Table) -> pl.DataFrame:
    """A query's Arrow result as a polars DataFrame: repeated column names made unique
    (``unique_names``) and columns of an Arrow type polars cannot hold or write
    (INTERVAL, UNION, BIGNUM, bytes, or a list/struct of them; ``fetch_result`` made the
    DuckDB types not ``held`` text before) and dates at ``infinity`` as DuckDB's own text
    of them (``CAST(… AS VARCHAR)``: ``1 day``, ``[1 day, NULL]``). Anything polars still
    refuses is a one-line ValueError asking for a CAST in the query (docs/cli.md "arpad
    sql")."""
    names = unique_names(table.column_names)
    if names != table.column_names:
        table = table.rename_columns(names)
    unheld = [
        i
        for i, field in enumerate(table.schema)
        if _unheld(field.type) or _beyond_calendar(table.column(i))
    ]
    if unheld:
        table = _as_text(table, unheld)
    try:
        return pl.from_arrow(table)
    except BaseException as exc:  # polars panics (pyo3 PanicException) on some types
        if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
            raise
        kinds = ", ".join(f"{f.name} ({f.type})" for f in table.schema)
        raise ValueError(
            f"the result has a column of a type arpad cannot return ({kinds}; "
            f"{_one_line(exc)[:200]}): CAST it in the query, e.g. CAST(x AS VARCHAR)"
        ) from None


def _as_text(table: pa.Table, columns: list[int]) -> pa.Table:
    """``columns`` of ``table`` replaced by DuckDB's VARCHAR text of them (a throwaway
    connection that can open no file and sees only these columns)."""
    part = pa.table({f"c{i}": table.column(i) for i in columns})
    con = duckdb.connect(":memory:", config=dict(LOCKED_CONFIG))
    try:
        con.register("_arpad_result", part)
        texts = ", ".join(f"CAST(c{i} AS VARCHAR) AS c{i}" for i in columns)
        text = catalog.query_arrow(con, f"SELECT {texts} FROM _arpad_result")
    except duckdb.Error as exc:
        names = ", ".join(table.column_names[i] for i in columns)
        raise ValueError(
            f"the column(s) {names} cannot be returned as they are ({_one_line(exc)}): "
            "CAST them in the query, e.g. CAST(x AS VARCHAR)"
        ) from None
    finally:
        con.close()
    for i in columns:
        table = table.set_column(i, table.schema.field(i).name, text.column(f"c{i}"))
    return table
