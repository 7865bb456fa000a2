"""The Parquet store: hive-partitioned games and ratings, players, quarantine,
the manifest of ingested files, state checkpoints and the DuckDB catalog.

Every file is written under a temporary name in its final directory and then
renamed (``os.replace``), so a killed run never leaves a half-written file
visible under a final name. Layout (docs/store.md):

    STORE/games/pool=standard/period=202403/part-<batch>.parquet
    STORE/players/players.parquet
    STORE/ratings/system=fide/pool=standard/period=202403/part-0.parquet
    STORE/state/system=fide/pool=standard/period=202403/{players,<table>}.parquet
    STORE/quarantine/batch=<batch>/part-0.parquet
    STORE/manifest/manifest.parquet
    STORE/catalog.duckdb
    STORE/store.json          the store format ({"format": 1}; ``STORE_FORMAT``)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline import names, schemas

MANIFEST = pa.schema(
    [
        # The source's label: the name its rows carry (``<label>:<line>``) and that
        # derived game ids start with; the file name unless another source has it.
        pa.field("source", pa.string(), nullable=False),
        pa.field("sha256", pa.string(), nullable=False),
        pa.field("batch", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # games | players
        pa.field("format", pa.string(), nullable=False),
        pa.field("rows", pa.int64(), nullable=False),
        pa.field("accepted", pa.int64(), nullable=False),
        pa.field("quarantined", pa.int64(), nullable=False),
        pa.field("ingested_at", pa.timestamp("s", tz="UTC"), nullable=False),
        pa.field("min_period", pa.int32()),
        # The source's identity (docs/ingest.md "Which file is which"): ``--source NAME``,
        # else the path relative to the working directory (the inbox for the monthly
        # job). Null for files ingested before identities were recorded (the label).
        pa.field("source_key", pa.string()),
        # SHA-256 over the file's normalised games (what they say, not their bytes).
        pa.field("content_sha256", pa.string()),
    ]
)

# ``manifest/history.parquet``: every version of every source, append-only (the
# manifest keeps only each source's current version). docs/store.md "Audit trail".
HISTORY = pa.schema(
    [
        pa.field("ingested_at", pa.timestamp("us", tz="UTC"), nullable=False),
        # ingest (a source's first version), correction (a new version of a source),
        # replace (``--replace``: games of other sources replaced)
        pa.field("action", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("source_key", pa.string()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("format", pa.string()),
        pa.field("sha256", pa.string(), nullable=False),
        pa.field("batch", pa.string(), nullable=False),
        pa.field("replaces", pa.string()),  # the corrected version's batch(es), ";"-joined
        pa.field("rows", pa.int64()),
        pa.field("accepted", pa.int64()),
        pa.field("quarantined", pa.int64()),
        pa.field("games_added", pa.int64()),
        pa.field("games_removed", pa.int64()),
        pa.field("games_changed", pa.int64()),
        pa.field("stale_from", pa.int32()),  # earliest period made stale (any pool)
        pa.field("stale", pa.string()),  # "pool:period;…" earliest per pool, "all", or null
    ]
)


def read_parquet_file(
    path: str | os.PathLike,
    columns: Sequence[str] | None = None,
    required: pa.Schema | None = None,
    expected: pa.Schema | None = None,
) -> pa.Table:
    """One Parquet file as a table. ``pq.ParquetFile`` rather than ``pq.read_table``:
    the latter goes through ``pyarrow.dataset``, whose import (pandas with it, when
    installed) costs more than a small command's whole work (docs/runners.md).

    ``columns``: only those (in that order), leaving out any the file does not have
    (one written before a column was added); the others are not read from disk.
    ``required``/``expected``: columns the file must have, and the types of those and
    of ``expected``'s present ones, checked on the footer (``integrity.open_parquet``)."""
    from arpad.pipeline.integrity import open_parquet

    # a damaged file: one line naming it (docs/store.md)
    with open_parquet(path, required, expected) as f:
        if columns is None:
            return f.read()
        present = set(f.schema_arrow.names)
        return f.read(columns=[c for c in columns if c in present])


def inside(root: str | os.PathLike, path: str | os.PathLike) -> Path:
    """``path`` where a write or removal really lands, checked to be under ``root``.

    The parent directory is resolved (symlinks followed, ``..`` collapsed) and the last
    component kept as is: ``os.replace``, ``unlink`` and ``rmtree`` act on that name
    itself, never on what a symlink there points to. Raises ValueError otherwise.
    """
    base = Path(root).resolve()
    path = Path(path)
    real = path.parent.resolve() / path.name
    if path.name in ("", ".", "..") or (real != base and base not in real.parents):
        raise ValueError(f"refusing to touch {path}: it is not inside the store {root}")
    return real


def outside(root: str | os.PathLike, path: str | os.PathLike, option: str = "--output") -> Path:
    """Refuse an output path that lands inside the store ``root`` (resolved, symlinks
    followed, also when the path itself is a symlink into the store)."""
    base = Path(root).resolve()
    path = Path(path)
    for real in (path.resolve(), path.parent.resolve() / path.name):
        if real == base or base in real.parents:
            raise ValueError(
                f"{option} {path} is inside the store {root}; write outputs outside the store"
            )
    return path


def partition_runs(games: pa.Table) -> pa.Table:
    """(pool, period, period_count) of a games table sorted by (pool, period), in that
    same order: the table's slice of each partition is the next ``period_count`` rows.

    The runs are sorted explicitly: a ``group_by``'s output order is not the order of
    appearance, even single-threaded (pyarrow 26 gave periods 15, 17, 16 for rows
    sorted 15, 16, 17, and the games of 16 and 17 were stored under each other's
    period; tests/test_cli_attack.py ``test_games_are_stored_in_their_own_period``)."""
    return (
        games.group_by(["pool", "period"], use_threads=False)
        .aggregate([("period", "count")])
        .sort_by([("pool", "ascending"), ("period", "ascending")])
    )


class _Journal:
    """What a writer changed in a store, so that a failed command can undo it.

    Before a file under the store is replaced or removed, its old version is kept
    under a hidden name (a hard link: no data is copied, so this works on a full
    disk); a file or directory that did not exist is remembered as new. ``rollback``
    puts every old version back and removes the new ones; ``commit`` drops the kept
    versions. A SIGKILL leaves the kept versions as ``.*.tmp`` files, which the next
    writer deletes (``_remove_leftover_temporaries``), as before: then the files of
    the killed run stay (crash-safe resume, pipeline/resume.py)."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self.token = f"{os.getpid()}-{time.monotonic_ns()}"
        self.seen: set[Path] = set()
        self.entries: list[tuple[Path, Path | None]] = []  # (path, kept old version or None)
        self.new_dirs: list[Path] = []
        self.undo: list = []  # callables, for changes outside the store (inbox moves)
        self.guard = threading.Lock()

    def owns(self, path: Path) -> bool:
        try:
            path.resolve().relative_to(self.root)
        except ValueError:
            return False
        return True

    def before_change(self, path: Path) -> None:
        """Keep the current version of ``path`` (a file or a directory) before it changes."""
        path = Path(os.path.abspath(path))
        with self.guard:
            if path in self.seen or not self.owns(path):
                return
            self.seen.add(path)
            parent = path.parent
            missing = []
            while not parent.exists() and self.owns(parent):
                missing.append(parent)
                parent = parent.parent
            self.new_dirs.extend(missing)
            if not os.path.lexists(path):
                self.entries.append((path, None))
                return
            kept = path.with_name(f".{path.name}.{self.token}.kept.tmp")
            if path.is_dir() and not path.is_symlink():
                os.replace(path, kept)  # only remove_path changes directories: it is gone now
            else:
                try:
                    os.link(path, kept)
                except OSError:
                    shutil.copy2(path, kept)
            self.entries.append((path, kept))

    def rollback(self) -> None:
        for undo in reversed(self.undo):
            with contextlib.suppress(OSError):
                undo()
        # Best effort, entry by entry: one path that cannot be restored must not stop
        # the others (nor hide the error that made the command fail).
        for path, kept in reversed(self.entries):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            if kept is not None:
                with contextlib.suppress(OSError):
                    os.replace(kept, path)
        for directory in sorted(self.new_dirs, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                directory.rmdir()  # only when empty

    def commit(self) -> None:
        for _, kept in self.entries:
            if kept is None:
                continue
            if kept.is_dir():
                shutil.rmtree(kept, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(kept)


# Open journals, by resolved store root (one per outermost writer lock).
_JOURNALS: dict[Path, _Journal] = {}


def _journal_for(path: Path) -> _Journal | None:
    if not _JOURNALS:
        return None
    with _HELD_GUARD:
        journals = list(_JOURNALS.values())
    for journal in journals:
        if journal.owns(path):
            return journal
    return None


def before_change(path: Path) -> None:
    """Record ``path`` in the open journal of its store (if any) before it is changed.

    A directory is moved aside (only ``remove_path`` passes directories)."""
    journal = _journal_for(Path(path))
    if journal is not None:
        journal.before_change(Path(path))


def undo_on_failure(undo) -> None:
    """Have ``undo()`` called if the command now writing a store fails (its changes to
    the store are undone then): for changes outside the store that belong with them,
    such as moving an ingested inbox file to ``processed/``."""
    with _HELD_GUARD:
        journals = list(_JOURNALS.values())
    for journal in journals:
        with journal.guard:
            journal.undo.append(undo)


def remove_path(path: Path) -> None:
    """Delete a file or directory tree of the store (undone if the command fails)."""
    path = Path(path)
    if not os.path.lexists(path):
        return
    before_change(path)
    if not os.path.lexists(path):
        return  # a directory: the open journal moved it aside (undone if the command fails)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink()


def low_cardinality_columns(table: pa.Table) -> list[str]:
    """String columns worth dictionary-encoding: all but the ids (``player_id`` has one
    value per row in ratings and checkpoints; encoding it doubles the write time)."""
    return [
        f.name for f in table.schema if pa.types.is_string(f.type) and not f.name.endswith("_id")
    ]


def float_columns(table: pa.Table) -> list[str]:
    """The floating-point columns of ``table``."""
    return [f.name for f in table.schema if pa.types.is_floating(f.type)]


def dictionary_columns(table: pa.Table) -> list[str]:
    """Columns that are Arrow dictionary arrays (written as Parquet dictionaries as they are)."""
    return [f.name for f in table.schema if pa.types.is_dictionary(f.type)]


def lean_options(table: pa.Table) -> dict:
    """Parquet options of the files the engine writes every period (ratings partitions,
    checkpoints, per-game reports; docs/store.md "Cost of the per-period files"): no
    column statistics, dictionary encoding only for low-cardinality and dictionary
    columns, and BYTE_STREAM_SPLIT for the float columns. A float column of arbitrary
    doubles (Elo's ratings) is compressed with LZ4, every other column with zstd: zstd
    on such split bytes was a third of the encoding's CPU for 5-15 % smaller columns;
    doubles in whole hundredths (FIDE's ratings and expected scores) compress far
    better with zstd and keep it (``_arbitrary``; docs/store.md "Cost of the
    per-period files"). DuckDB and polars read both codecs."""
    floats = float_columns(table)
    return {
        "use_dictionary": [*low_cardinality_columns(table), *dictionary_columns(table)],
        "write_statistics": False,
        "byte_stream_split": floats,
        "compression": {
            name: "lz4" if name in floats and _arbitrary(table.column(name)) else "zstd"
            for name in table.column_names
        },
    }


# The values ``_arbitrary`` looks at: the codec is a matter of speed and size only.
CODEC_SAMPLE = 4096


def _arbitrary(column: pa.ChunkedArray) -> bool:
    """Whether the float ``column``'s first ``CODEC_SAMPLE`` values are arbitrary doubles
    (Elo's ratings), not whole hundredths (FIDE's ratings and expected scores, scores in
    halves), whose split bytes zstd compresses far better."""
    hundredths = pc.multiply(column.slice(0, CODEC_SAMPLE), 100.0)
    off = pc.abs(pc.subtract(hundredths, pc.round(hundredths)))  # sums: 1.4000000000000001
    whole = pc.all(pc.less(off, 1e-6)).as_py()  # None: no value at all
    return whole is False


def _file_schema(table: pa.Table, schema: pa.Schema) -> pa.Schema:
    """``schema`` with the string fields that ``table`` holds as dictionary arrays typed
    as those dictionaries (``schemas.conform`` then keeps them encoded)."""
    fields = []
    for field in schema:
        typ = table.schema.field(field.name).type if field.name in table.column_names else None
        if (
            typ is not None
            and pa.types.is_dictionary(typ)
            and typ.value_type == field.type
            and pa.types.is_string(field.type)
        ):
            field = field.with_type(typ)
        fields.append(field)
    return pa.schema(fields, metadata=schema.metadata)


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` sets it, which would
    race with the write-behind thread); the swap is the fallback off Linux."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Mode of every file arpad writes: what ``open`` would give (0666 less the umask), not
# mkstemp's private 0600, so that published lists and the store are readable by the
# web server and the analysts the umask allows (docs/operations.md).
FILE_MODE = 0o666 & ~_umask()


def atomic_write_parquet(
    table: pa.Table,
    path: Path,
    root: Path | None = None,
    use_dictionary=True,
    write_statistics: bool = True,
    byte_stream_split: list[str] | bool = False,
    store_schema: bool = True,
    compression: str | dict[str, str] = "zstd",
) -> None:
    """Write ``table`` to ``path`` atomically (temporary file in the same directory, then rename).

    With ``root``, the path must be inside that store (``inside``). ``use_dictionary``:
    Parquet dictionary encoding for all columns (True) or only the listed ones.
    ``write_statistics=False`` leaves out the column-chunk min/max statistics (see
    ``Store.write_ratings``); ``byte_stream_split`` lists the float columns written
    with that encoding; ``store_schema=False`` leaves out the serialised Arrow schema
    (readers then see the Parquet types: a dictionary column reads as its values);
    ``compression``: one codec, or one per column (``lean_options``).
    Without ``root`` (an output file) the target is as ``output_target`` says."""
    given = path
    if root is None:
        path, in_place = output_target(path)
        if in_place:  # /dev/null, a FIFO, /dev/stdout: its bytes, written there
            buffer = io.BytesIO()
            pq.write_table(
                table,
                buffer,
                compression=compression,
                use_dictionary=use_dictionary,
                write_statistics=write_statistics,
                use_byte_stream_split=byte_stream_split,
                store_schema=store_schema,
            )
            with open(path, "ab") as fh:
                fh.write(buffer.getvalue())
            return
    path = prepare_write(path, root, None if root is not None else given)
    write_parquet_file(
        table,
        path,
        use_dictionary,
        write_statistics,
        byte_stream_split,
        store_schema,
        compression,
        output=None if root is not None else given,
    )


def prepare_write(
    path: Path, root: Path | None = None, output: str | os.PathLike | None = None
) -> Path:
    """The journal's part of an atomic write, on the calling thread: ``path`` checked
    to lie inside ``root``, recorded for undo (``before_change``), its folder made
    (``output``: the name given for an output file, ``_make_folder``)."""
    path = Path(path)
    if root is not None:
        inside(root, path)
    before_change(path)
    _make_folder(path, output)
    return path


def _make_folder(path: Path, output: str | os.PathLike | None) -> None:
    """``path``'s folder made. For an output file (``output``: the name as given), a
    folder that cannot be made (``--output /proc/a/b.csv``) is bad input naming that
    name, as ``_temporary`` does for the file itself; a folder not writable and a full
    disk keep their own lines (pipeline/cli.py)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _output_refused(exc, output, f"its folder {path.parent} cannot be created")


def _output_refused(exc: OSError, output: str | os.PathLike | None, what: str) -> None:
    """Raise ``exc`` as bad input naming the output file ``output`` (``what`` happened,
    and why), or as it is when it is no output's or a folder not writable or a full
    disk, which keep their own lines (pipeline/cli.py)."""
    from arpad.pipeline.errors import DISK_FULL_ERRNOS, NOT_WRITABLE_ERRNOS, InputError

    if output is None or exc.errno in NOT_WRITABLE_ERRNOS | DISK_FULL_ERRNOS:
        raise exc
    why = exc.strerror or str(exc)
    raise InputError(output, None, f"{what}: {why} (the store is as before)") from exc


def write_parquet_file(
    table: pa.Table,
    path: Path,
    use_dictionary=True,
    write_statistics: bool = True,
    byte_stream_split: list[str] | bool = False,
    store_schema: bool = True,
    compression: str | dict[str, str] = "zstd",
    output: str | os.PathLike | None = None,
) -> None:
    """The file part of ``atomic_write_parquet`` (temporary file, then rename), for a
    ``path`` already through ``prepare_write``; safe on another thread. ``output``: the
    name given for an output file (``_temporary``)."""
    fd, tmp = _temporary(path, output)
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    try:
        pq.write_table(
            table,
            tmp,
            compression=compression,
            use_dictionary=use_dictionary,
            write_statistics=write_statistics,
            use_byte_stream_split=byte_stream_split,
            store_schema=store_schema,
        )
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(text: str, path: Path, root: Path | None = None) -> None:
    """Write ``text`` to ``path`` atomically; with ``root``, inside that store only;
    without, as ``output_target`` says (in place on a device, a FIFO, /dev/stdout)."""
    _atomic_write(path, root, text, "w")


def atomic_write_bytes(data: bytes, path: Path, root: Path | None = None) -> None:
    """``atomic_write_text`` for bytes (a PNG)."""
    _atomic_write(path, root, data, "wb")


# The folder of a process's open descriptors, once symlinks are resolved: /dev/stdout,
# /dev/fd/1 and /proc/self/fd/1 all lead there (docs/cli.md "Output files").
_DESCRIPTORS = re.compile(r"/proc/\d+(/task/\d+)?/fd|/dev/fd")


def _names_descriptor(path: Path) -> bool:
    """Whether ``path`` (through its symlinks) is an open descriptor, /dev/stdout."""
    link = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on symlinks followed
        if _DESCRIPTORS.fullmatch(os.path.realpath(os.path.dirname(link))):
            return True
        if not os.path.islink(link):
            return False
        link = os.path.normpath(os.path.join(os.path.dirname(link), os.readlink(link)))
    return False


def output_target(path: str | os.PathLike) -> tuple[Path, bool]:
    """Where an output file (``--output``, ``--plot``, ``--report``) named ``path`` is
    written, and whether in place (docs/cli.md "Output files"). A new name or a regular
    file: atomically (temporary file, then rename), through a symlink at the file it
    names (the symlink stays). What is not a regular file is never renamed over: an
    open descriptor (/dev/stdout, /dev/fd/N: what it is open on gets the bytes, after
    anything already there), a character device (/dev/null, a terminal) or a FIFO is
    written in place; a directory, block device or socket is refused (ValueError)."""
    path = Path(path)
    if _names_descriptor(path):
        return path, True
    try:
        mode = os.stat(path).st_mode  # symlinks followed
    except (FileNotFoundError, NotADirectoryError):  # (a parent is made, or refused, later)
        return (Path(os.path.realpath(path)) if path.is_symlink() else path), False
    if stat.S_ISREG(mode):
        return (Path(os.path.realpath(path)) if path.is_symlink() else path), False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return path, True
    kinds = {stat.S_ISDIR: "a directory", stat.S_ISBLK: "a block device", stat.S_ISSOCK: "a socket"}
    kind = next((name for test, name in kinds.items() if test(mode)), "not a regular file")
    raise ValueError(f"{path} is {kind}: give a file name")


def _temporary(path: Path, output: str | os.PathLike | None) -> tuple[int, str]:
    """``mkstemp`` beside ``path``. For an output file (``output``: the name as given),
    a folder where no file can be made (/proc, a name too long once the temporary's
    prefix is added) is bad input naming that name, not the errno of a temporary file
    never typed (docs/cli.md "Output files"); a folder not writable and a full disk
    keep their own lines (pipeline/cli.py)."""
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        _output_refused(exc, output, f"cannot be created in {path.parent}")
        raise  # (not reached: _output_refused raises)


def _atomic_write(path: Path, root: Path | None, data: str | bytes, mode: str) -> None:
    given = path
    path = Path(path)
    if root is not None:
        inside(root, path)
    else:
        path, in_place = output_target(path)
        if in_place:
            with open(path, mode.replace("w", "a")) as fh:
                fh.write(data)
            return
    before_change(path)
    _make_folder(path, None if root is not None else given)
    fd, tmp = _temporary(path, None if root is not None else given)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, mode) as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_store_path(root: Path) -> None:
    """Refuse a store path that is (or lies inside) a regular file: bad input, not a crash."""
    from arpad.pipeline.errors import InputError

    for part in (root, *root.parents):
        if part.exists():
            if not part.is_dir():
                what = "is a file" if part == root else f"lies inside the file {part}"
                raise InputError(root, None, f"--store {what}, not a store directory")
            return


# Locks this process holds, by lock-file path: the writer lock is re-entrant within a
# process (the CLI takes it, then the flow it starts takes it again).
_HELD: dict[str, list] = {}
_HELD_GUARD = threading.Lock()


def _lock_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return "another process"
    pid, command, since = (info.get(k, "?") for k in ("pid", "command", "since"))
    return f"pid {pid} ({command}, since {since})"


@contextlib.contextmanager
def _writable(root: Path) -> Iterator[None]:
    """A read-only store (a read-only mount, no permission) is bad input, refused
    before anything is written: exit 2 naming the store, not a traceback."""
    from arpad.pipeline.errors import NOT_WRITABLE_ERRNOS, InputError

    try:
        yield
    except OSError as exc:
        if exc.errno in NOT_WRITABLE_ERRNOS:
            problem = f"the store cannot be written ({exc.strerror}); nothing was changed"
        elif exc.errno in (errno.ENOENT, errno.ENOTDIR):  # --store /proc/foo (hostile round 8)
            problem = f"the store cannot be created there ({exc.strerror}); nothing was changed"
        else:
            raise
        raise InputError(root, None, problem) from None


@contextlib.contextmanager
def writer_lock(root: Path, command: str = "arpad", wait: float = 0.0) -> Iterator[None]:
    """Hold the store's single-writer lock (``STORE/.lock``, an advisory ``flock``).

    A second writer waits up to ``wait`` seconds, then raises StoreBusyError naming
    the holder. The kernel drops the lock when its holder dies (even by SIGKILL),
    so a crashed run never leaves a stale lock behind.
    """
    from arpad.pipeline.errors import StoreBusyError

    root = Path(root)
    check_store_path(root)
    store_format(root)  # a store of a newer arpad is not written (nor locked)
    with _writable(root):
        root.mkdir(parents=True, exist_ok=True)
    path = root / ".lock"
    key = str(path.resolve())
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is not None:
            held[1] += 1
    if held is not None:
        try:
            yield
        finally:
            with _HELD_GUARD:
                held[1] -= 1
        return
    made = not os.path.lexists(path)
    with _writable(root):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + max(wait, 0.0)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise StoreBusyError(
                    f"store {root} is busy: {_lock_holder(path)} is writing to it; "
                    "try again when it has finished (or pass --wait SECONDS)"
                ) from None
            time.sleep(0.2)
    try:
        refuse_foreign_folder(root)  # under the lock: another writer may be starting it
    except Exception:
        if made:  # the folder is left as it was found
            path.unlink(missing_ok=True)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        raise
    info = {"pid": os.getpid(), "command": command, "since": time.strftime("%Y-%m-%dT%H:%M:%S")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode(), 0)
    _remove_leftover_temporaries(root)
    _finish_interrupted_ingests(root)
    with _HELD_GUARD:
        _HELD[key] = [fd, 1]
        journal = _JOURNALS[root.resolve()] = _Journal(root)
    try:
        try:
            if Store(root).exists():  # (refused when newer than this arpad)
                write_format(root)  # a store written before store.json: its format now
            yield
        except Exception:
            # A failed command (disk full, bad input found late, a bug) leaves the
            # store as it found it; KeyboardInterrupt keeps the checkpoints (resume).
            journal.rollback()
            raise
        else:
            journal.commit()
    finally:
        with _HELD_GUARD:
            _JOURNALS.pop(root.resolve(), None)
            entry = _HELD[key]
            entry[1] -= 1
            last = entry[1] == 0
            if last:
                del _HELD[key]
        if last:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def is_store_folder(root: Path) -> bool:
    """Whether ``root`` holds an arpad store: its ``store.json`` (every store a writer
    touched since format 1) or its ``manifest/`` (``Store.ensure`` makes it in every
    store, also those written before ``store.json``)."""
    return os.path.lexists(root / STORE_FILE) or (root / "manifest").is_dir()


# What arpad puts in a store's folder (docs/store.md): a folder holding nothing else (a
# first ingest stopped half-way) is a store being started.
_STORE_ENTRIES = {
    *("games", "players", "ratings", "state", "quarantine", "manifest", "runs", "exports"),
    *("published", "catalog.duckdb", "catalog.stamp", "store.json", ".lock", ".pending"),
}


def _arpad_entry(entry: os.DirEntry) -> bool:
    """Whether ``entry`` of a folder is what arpad puts there: one of a store's names
    (a folder of them holding only partitions ``key=value``, Parquet and JSON files
    and hidden temporaries, not a user's own ``games/`` of PGN files) or a temporary."""
    name = entry.name
    if name.startswith(".") and (name.endswith(".tmp") or name.startswith(".catalog.")):
        return True
    if name not in _STORE_ENTRIES:
        return False
    if name.startswith(".") or not entry.is_dir(follow_symlinks=False):
        return True
    return all(
        e.name.startswith(".") or "=" in e.name or e.name.endswith((".parquet", ".json"))
        for e in os.scandir(entry.path)
    )


def refuse_foreign_folder(root: Path) -> None:
    """Refuse to start a store in an existing folder that holds something else and no
    arpad store (``--store .``, ``--store ~``): partitions would be mixed into a user's
    own ``games/`` folder, and the writer deletes every ``.*.tmp`` under the store. A
    new or empty folder, or one holding only what a store holds, is fine (docs/store.md
    "Where a store may be started")."""
    from arpad.pipeline.errors import InputError

    if is_store_folder(root):
        return
    try:
        others = sorted(e.name for e in os.scandir(root) if not _arpad_entry(e))
    except FileNotFoundError:
        return
    if others:
        shown = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
        raise InputError(
            root,
            None,
            f"--store is a folder that holds other things ({shown}) and no arpad store: "
            "give an empty or new folder for a new store",
        )


def _remove_leftover_temporaries(root: Path) -> None:
    """Delete ``.*.tmp`` files a killed writer left behind (we hold the lock: none is live)."""
    leftovers = [*root.rglob(".*.tmp"), *root.glob(".catalog.*.duckdb*")]
    for tmp in leftovers:
        if tmp.is_dir() and not tmp.is_symlink():
            shutil.rmtree(tmp, ignore_errors=True)  # a directory kept by a killed writer's journal
            continue
        with contextlib.suppress(OSError, ValueError):
            inside(root, tmp).unlink()


def _finish_interrupted_ingests(root: Path) -> None:
    """Roll forward (or discard) an ingest a killed writer left staged (pipeline/journal.py)."""
    if (root / ".pending").is_dir():
        from arpad.pipeline import catalog, journal

        store = Store(root)
        done = journal.recover(store)
        for line in done:
            print(f"arpad: {line}", file=sys.stderr)
        if done:
            catalog.refresh(store)


# The store's format (docs/store.md "Store format"): ``STORE/store.json`` holds
# ``{"format": N}``, written when a store is created and by the next write into a store
# without it; a store without it is format 1. An arpad refuses a store of a format newer
# than ``STORE_FORMAT``: it cannot know what such a store's files mean.
STORE_FORMAT = 1
STORE_FILE = "store.json"
# store.json files already read by this process: (path, inode, size, mtime) -> format
_FORMATS: dict[tuple, int] = {}


def format_problem(data: dict) -> str | None:
    """``store.json``'s content: a ``format`` that is a whole number from 1 (a file
    without one, ``{}``, is damaged: docs/store.md "Store format")."""
    if "format" not in data:
        return "it has no format"
    value = data["format"]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return f"its format is {json.dumps(value)[:40]}, not a store format number"
    return None


def store_format(root: str | os.PathLike) -> int:
    """The format of the store at ``root`` (1 without ``store.json``); ``InputError``
    naming ``store.json`` when it is damaged or newer than this arpad reads. One stat per
    call; the file (a few bytes) is read once per process while it does not change."""
    from arpad.pipeline.errors import InputError
    from arpad.pipeline.integrity import open_json

    path = Path(root) / STORE_FILE
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return 1
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    found = _FORMATS.get(key)
    if found is None:
        try:
            found = open_json(path, format_problem).get("format", 1)
        except FileNotFoundError:  # removed just now
            return 1
    if found > STORE_FORMAT:
        raise InputError(
            path,
            None,
            f"written by a newer arpad (store format {found}; this arpad reads up to "
            f"{STORE_FORMAT}): upgrade arpad",
        )
    _FORMATS[key] = found
    return found


def write_format(root: Path) -> None:
    """Write ``store.json`` (atomically, undone with the command) when the store lacks it."""
    path = Path(root) / STORE_FILE
    if not os.path.lexists(path):
        text = json.dumps({"format": STORE_FORMAT}) + "\n"
        atomic_write_text(text, path, root)


def _period_of(folder: Path) -> int:
    """A ``period=N`` folder's period; a folder of another name (``period=2024-13``, put
    there by hand) is named in a one-line error instead of an int() ValueError."""
    from arpad.pipeline.integrity import period_of

    return period_of(folder)


def _casts(column, to: pa.DataType) -> bool:
    try:
        column.cast(to)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


class Store:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        store_format(self.root)  # a store of a newer arpad: refused by every command

    # -- paths ---------------------------------------------------------------
    @property
    def games_dir(self) -> Path:
        return self.root / "games"

    @property
    def players_path(self) -> Path:
        return self.root / "players" / "players.parquet"

    @property
    def ratings_dir(self) -> Path:
        return self.root / "ratings"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def quarantine_dir(self) -> Path:
        return self.root / "quarantine"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest" / "manifest.parquet"

    @property
    def published_dir(self) -> Path:
        return self.root / "published"

    def published_partition(self, system: str, pool: str, period: int) -> Path:
        """Where ``arpad publish`` freezes a list (docs/lists.md "Published lists")."""
        base = self._system_pool(self.published_dir, system, pool)
        return base / f"period={names.period(period)}"

    def published_periods(self, system: str, pool: str) -> list[int]:
        """Periods whose list is published: the folder's ``manifest.json`` is written last
        (pipeline/publish.py), so a folder without it is a publication killed half-way,
        not a published list (the next ``publish`` writes it)."""
        base = self._system_pool(self.published_dir, system, pool)
        return sorted(_period_of(p) for p in self._subdirs(base) if (p / "manifest.json").is_file())

    @property
    def catalog_path(self) -> Path:
        return self.root / "catalog.duckdb"

    def exists(self) -> bool:
        """A directory holding a store: something arpad wrote (games, players, ratings,
        the manifest, quarantine). An empty or unrelated directory (``--store /etc``)
        is no store, so a reading command refuses it without writing a lock there."""
        if not self.root.is_dir():
            return False
        own = (self.games_dir, self.players_path.parent, self.ratings_dir)
        return any(d.is_dir() for d in (*own, self.manifest_path.parent, self.quarantine_dir))

    def writer_lock(self, command: str = "arpad", wait: float = 0.0):
        """The single-writer lock of this store (see ``writer_lock``)."""
        return writer_lock(self.root, command, wait)

    def ensure(self) -> None:
        dirs = (self.games_dir, self.players_path.parent, self.ratings_dir, self.quarantine_dir)
        for d in (*dirs, self.manifest_path.parent):
            if not d.exists():
                before_change(d)  # a failed first ingest leaves no empty skeleton behind
            d.mkdir(parents=True, exist_ok=True)
        write_format(self.root)  # a new store (or one written before store.json)

    # -- games -----------------------------------------------------------------
    def game_partition(self, pool: str, period: int) -> Path:
        return self.games_dir / f"pool={names.pool(pool)}" / f"period={names.period(period)}"

    def game_files(self, pool: str | None = None, period: int | None = None) -> list[Path]:
        if period is not None:
            names.period(period)
        pools = (
            [names.pool(pool)]
            if pool
            else [p.name.split("=", 1)[1] for p in self._subdirs(self.games_dir)]
        )
        files: list[Path] = []
        for pl in pools:
            base = self.games_dir / f"pool={pl}"
            parts = (
                [base / f"period={period}"]
                if period is not None
                else [p for p in self._subdirs(base) if _period_of(p)]
            )
            for part in parts:
                files.extend(sorted(part.glob("part-*.parquet")))
        return files

    def periods(self, pool: str) -> list[int]:
        """Periods of ``pool`` that hold at least one game file, ascending."""
        out = []
        for part in self._subdirs(self.games_dir / f"pool={names.pool(pool)}"):
            if any(part.glob("part-*.parquet")):
                out.append(_period_of(part))
        return sorted(out)

    def pools(self) -> list[str]:
        """Pools holding at least one games file. A pool whose games all went elsewhere
        (its source ingested again with ``--pool``, or corrected to no game) keeps an
        empty folder: it is no pool (docs/store.md "A pool left with no games")."""
        return sorted(
            p.name.split("=", 1)[1]
            for p in self._subdirs(self.games_dir)
            if any(p.glob("period=*/part-*.parquet"))
        )

    def write_games(self, games: pa.Table, batch: str) -> list[tuple[str, int]]:
        """Write a batch's games, one file per (pool, period). Returns the partitions written."""
        written = []
        names.batch(batch)
        if games.num_rows == 0:
            return written
        from arpad.pipeline import keys as player_keys

        white_key, black_key = player_keys.assign(
            self.keys_path, self.root, games.column("white_id"), games.column("black_id")
        )
        games = games.append_column("white_key", white_key).append_column("black_key", black_key)
        # One stable sort by (pool, period), then a slice per partition: rows keep their
        # file order inside a partition, and the table is not scanned once per partition.
        order = pc.sort_indices(games, sort_keys=[("pool", "ascending"), ("period", "ascending")])
        games = games.take(order)
        runs = partition_runs(games)
        start = 0
        for pool, period, count in zip(
            runs.column("pool").to_pylist(),
            runs.column("period").to_pylist(),
            runs.column("period_count").to_pylist(),
        ):
            part = games.slice(start, count)
            start += count
            part = schemas.conform(part, schemas.GAMES_FILE)
            atomic_write_parquet(
                part, self.game_partition(pool, period) / f"part-{batch}.parquet", self.root
            )
            written.append((pool, int(period)))
        return written

    def remove_batch_games(self, batch: str) -> list[tuple[str, int]]:
        """Delete every games file of a batch (a corrected source). Returns the partitions touched."""
        touched = []
        for path in self.games_dir.glob(f"pool=*/period=*/part-{names.batch(batch)}.parquet"):
            pool = path.parent.parent.name.split("=", 1)[1]
            period = _period_of(path.parent)
            self.remove_file(path)
            touched.append((pool, period))
        return touched

    def rewrite_game_file(self, path: Path, table: pa.Table) -> None:
        """Replace one games file with ``table`` (``--replace`` removed some of its games)."""
        atomic_write_parquet(table, path, self.root)

    def delete_game_file(self, path: Path) -> None:
        self.remove_file(path)

    # -- players -----------------------------------------------------------------
    def read_players(self) -> pa.Table:
        """The players table. Missing while games are stored (every games ingest writes
        it), or with a player_id twice (a list showed every such player twice), it is a
        damaged store: one line naming it (docs/store.md "A damaged store")."""
        from arpad.pipeline.integrity import BACKUP, damaged

        if not self.players_path.exists():
            if self.players_path.is_symlink() or any(self.games_dir.glob("pool=*/period=*/*")):
                raise damaged(self.players_path, "missing while games are stored", BACKUP)
            return schemas.empty(schemas.PLAYERS)
        table = schemas.conform(read_parquet_file(self.players_path), schemas.PLAYERS)
        ids = table.column("player_id").combine_chunks()
        # arpad writes the table sorted by id: strictly increasing ids are unique (3 ms at
        # 500k players; counting distinct ids took ~200 ms, once per run on the rate path)
        increasing = len(ids) < 2 or pc.all(pc.less(ids[:-1], ids[1:])).as_py()
        if not increasing and pc.count_distinct(ids).as_py() != len(ids):
            counts = pc.value_counts(ids)
            twice = counts.filter(pc.greater(counts.field("counts"), 1))[0]["values"]
            raise damaged(self.players_path, f"player_id {twice.as_py()!r} appears twice", BACKUP)
        return table

    def write_players(self, players: pa.Table) -> None:
        atomic_write_parquet(
            schemas.conform(players, schemas.PLAYERS), self.players_path, self.root
        )

    @property
    def keys_path(self) -> Path:
        """``players/keys.parquet``: the append-only ``player_id -> key`` dictionary
        (pipeline/keys.py, docs/store.md "Player keys")."""
        return self.players_path.parent / "keys.parquet"

    @property
    def aliases_path(self) -> Path:
        """``players/aliases.parquet``: merged ids, duplicate -> keep (docs/identity.md)."""
        return self.players_path.parent / "aliases.parquet"

    @property
    def merges_path(self) -> Path:
        """``players/merges.parquet``: every merge and split, for the audit trail."""
        return self.players_path.parent / "merges.parquet"

    def read_aliases(self) -> pa.Table | None:
        return read_parquet_file(self.aliases_path) if self.aliases_path.exists() else None

    # -- quarantine ------------------------------------------------------------
    def write_quarantine(self, rows: pa.Table, batch: str) -> Path | None:
        if rows.num_rows == 0:
            return None
        path = self.quarantine_dir / f"batch={names.batch(batch)}" / "part-0.parquet"
        atomic_write_parquet(schemas.conform(rows, schemas.QUARANTINE), path, self.root)
        return path

    # -- manifest ----------------------------------------------------------------
    def read_manifest(self) -> pa.Table:
        from arpad.pipeline.errors import InputError

        if not self.manifest_path.exists():
            return MANIFEST.empty_table()
        table = read_parquet_file(self.manifest_path)
        for field in MANIFEST:  # a manifest written before a column was added
            if field.name not in table.column_names:
                if not field.nullable:  # no version of arpad wrote a manifest without it
                    raise InputError(
                        self.manifest_path,
                        None,
                        f"no column {field.name!r}: the manifest was written by another "
                        "arpad version or edited; restore it from a backup (nothing was "
                        "changed)",
                    )
                table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        try:
            return table.select(MANIFEST.names).cast(MANIFEST)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
            odd = [f for f in MANIFEST if not _casts(table.column(f.name), f.type)]
            what = (
                f"column {odd[0].name!r} is {table.schema.field(odd[0].name).type}, not "
                f"{odd[0].type}"
                if odd
                else "a column arpad needs holds nulls"
            )
            raise InputError(
                self.manifest_path,
                None,
                f"{what} ({exc}): the manifest was written by another arpad version or "
                "edited; restore it from a backup (nothing was changed)",
            ) from None

    def write_manifest(self, table: pa.Table) -> None:
        atomic_write_parquet(table.cast(MANIFEST), self.manifest_path, self.root)

    @property
    def history_path(self) -> Path:
        """``manifest/history.parquet``: every ingested version, append-only."""
        return self.manifest_path.parent / "history.parquet"

    def read_history(self) -> pa.Table:
        """Every version of every source ingested since the history was kept (a store
        written before it has none: its manifest rows stand in, pipeline/trail.py)."""
        if not self.history_path.exists():
            return HISTORY.empty_table()
        table = read_parquet_file(self.history_path)
        for field in HISTORY:
            if field.name not in table.column_names:
                table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        return table.select(HISTORY.names).cast(HISTORY)

    def append_history(self, rows: pa.Table) -> None:
        table = pa.concat_tables([self.read_history(), rows.select(HISTORY.names).cast(HISTORY)])
        atomic_write_parquet(table, self.history_path, self.root)

    # -- ratings and state -------------------------------------------------------
    def rating_partition(self, system: str, pool: str, period: int) -> Path:
        return self._system_pool(self.ratings_dir, system, pool) / f"period={names.period(period)}"

    def write_ratings(self, system: str, pool: str, period: int, table: pa.Table) -> None:
        """Write a period's ratings partition. String columns may come as dictionary
        arrays (the engine's ``status`` and audit columns): they are written as Parquet
        dictionaries without the Arrow schema, so every reader sees the RATINGS_FILE
        types (docs/store.md "Cost of the per-period files")."""
        self.ratings_writer(system, pool, period, table)()

    def ratings_writer(
        self,
        system: str,
        pool: str,
        period: int,
        table: pa.Table,
        finish: Callable[[pa.Table], pa.Table] | None = None,
    ) -> Callable[[], None]:
        """``write_ratings`` in two parts: the checks and the journal's record happen
        now, on this thread; the returned call encodes and writes the file, and may run
        on another thread (the engine's write-behind, docs/store.md). ``finish`` (called
        first, on that thread) may replace column values of the conformed table, keeping
        its schema (the engine's performance column)."""
        table = schemas.conform(table, _file_schema(table, schemas.RATINGS_FILE))
        path = prepare_write(
            self.rating_partition(system, pool, period) / "part-0.parquet", self.root
        )
        # No min/max statistics: every ratings (and checkpoint) file holds one row group
        # spanning every player, so they never let a reader skip anything, and leaving
        # them out makes the engine's per-period writes ~15 % cheaper (docs/store.md).
        options = lean_options(table)

        def write() -> None:
            final = table if finish is None else finish(table)
            write_parquet_file(final, path, **options, store_schema=False)

        return write

    def rating_periods(self, system: str, pool: str) -> list[int]:
        """The periods with a ratings file. A period's folder is made before its file is
        written (perhaps on the write-behind thread): a run interrupted in between (a
        notebook's "interrupt kernel") left the folder empty until the next run, and a
        list of that period had "no rated player" (docs/api.md "In a notebook")."""
        base = self._system_pool(self.ratings_dir, system, pool)
        out = []
        for p in self._subdirs(base):
            part = p / "part-0.parquet"
            if part.is_file():
                out.append(_period_of(p))
            elif part.is_dir():  # a directory in its place: not "no rated period"
                # (``is_dir``, not ``exists``: a file a writer renamed into place between
                # the two looks was called damage, analyst round 9)
                from arpad.pipeline.integrity import damaged

                raise damaged(part, "a directory where a Parquet file belongs")
        return sorted(out)

    def rated(self) -> list[tuple[str, str]]:
        """(system, pool) pairs that have at least one stored ratings period."""
        out = []
        for system_dir in self._subdirs(self.ratings_dir):
            for pool_dir in self._subdirs(system_dir):
                if any(self._subdirs(pool_dir)):
                    out.append((system_dir.name.split("=", 1)[1], pool_dir.name.split("=", 1)[1]))
        return sorted(out)

    def no_ratings(self, system: str, pool: str) -> ValueError:
        """The error for a missing system/pool, naming what the store does have and the
        command that rates it (its pool too: "run arpad rate first" led an analyst to
        rate the standard pool again for a blitz list, round 9)."""
        have = ", ".join(f"{s}/{p}" for s, p in self.rated())
        hint = f" (this store has ratings of {have})" if have else ""
        which = f"--system {system}" + (f" --pool {pool}" if pool != "standard" else "")
        return ValueError(
            f"no ratings for system {system} pool {pool}; run arpad rate {which} first{hint}"
        )

    def remove_ratings(self, system: str, pool: str, period: int) -> None:
        for directory in (
            self.rating_partition(system, pool, period),
            self.state_partition(system, pool, period),
        ):
            self.remove_tree(directory)

    def read_ratings(self, system: str, pool: str, period: int) -> pa.Table:
        path = self.rating_partition(system, pool, period) / "part-0.parquet"
        return read_parquet_file(path)

    def state_partition(self, system: str, pool: str, period: int) -> Path:
        return self._system_pool(self.state_dir, system, pool) / f"period={names.period(period)}"

    def write_state(
        self, system: str, pool: str, period: int, tables: dict[str, pa.Table], meta: dict
    ) -> None:
        """Write a state checkpoint; ``meta.json`` is written last and marks it complete."""
        base = self.state_partition(system, pool, period)
        for name, table in tables.items():
            atomic_write_parquet(
                table, base / f"{names.table(name)}.parquet", self.root, **lean_options(table)
            )
        atomic_write_text(json.dumps(meta, sort_keys=True), base / "meta.json", self.root)

    def state_periods(self, system: str, pool: str) -> list[int]:
        base = self._system_pool(self.state_dir, system, pool)
        return sorted(_period_of(p) for p in self._subdirs(base) if (p / "meta.json").exists())

    def read_state(self, system: str, pool: str, period: int) -> tuple[dict[str, pa.Table], dict]:
        from arpad.pipeline.integrity import open_json

        base = self.state_partition(system, pool, period)
        meta = open_json(base / "meta.json")  # damaged: named, with `arpad rate … --full`
        tables = {p.stem: read_parquet_file(p) for p in sorted(base.glob("*.parquet"))}
        return tables, meta

    # -- run journals and published lists -------------------------------------------
    def journal_path(self, system: str, pool: str) -> Path:
        """``STORE/runs/system=<s>/pool=<p>.json`` (pipeline/resume.py)."""
        return (
            self.root / "runs" / f"system={names.system(system)}" / f"pool={names.pool(pool)}.json"
        )

    def export_dir(self, system: str, pool: str) -> Path:
        """``STORE/exports/system=<s>/pool=<p>/`` (pipeline/monthly.py publishes here)."""
        return self._system_pool(self.root / "exports", system, pool)

    # -- checked removal -----------------------------------------------------------
    def remove_file(self, path: Path) -> None:
        """Delete one file of this store (refused outside the store root; undone if the
        command fails)."""
        remove_path(inside(self.root, path))

    def remove_tree(self, path: Path) -> None:
        """Delete a directory of this store, if any (refused outside the store root;
        undone if the command fails)."""
        remove_path(inside(self.root, path))

    # -- helpers -----------------------------------------------------------------
    @staticmethod
    def _system_pool(base: Path, system: str, pool: str) -> Path:
        return base / f"system={names.system(system)}" / f"pool={names.pool(pool)}"

    @staticmethod
    def _subdirs(path: Path) -> Iterator[Path]:
        if not path.is_dir():
            return iter(())
        # Hidden names are a writer's temporaries (a partition the journal moved aside
        # is ``.period=N.<token>.kept.tmp`` until the next writer removes it).
        return iter(
            sorted(
                p
                for p in path.iterdir()
                if p.is_dir() and "=" in p.name and not p.name.startswith(".")
            )
        )
