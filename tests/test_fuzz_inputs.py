"""Generated hostile inputs, round 4 (docs/ingest.md "Generated hostile inputs, round 4").

Each reader (CSV without and with a named mapping, the players file, PGN, TRF, and
``.gz``/``.zip`` archives) starts from a small VALID file cut from the real data
(data/real, ../shared/data/real) and Hypothesis applies generated mutations to it:
byte flips, truncation at any offset, duplicated or deleted lines, inserted NUL / CR /
byte order marks / invalid UTF-8, swapped columns, and fields replaced by hostile
values (huge numbers, negative and NaN ratings, 0000-00-00 and 9999-12-31, ids of
10,000 characters). The mutated file is ingested into a copy of a small store through
the real entry points (``arpad ingest`` by ``cli.main`` in process, and
``arpad.Store(...).ingest``), and the promise of docs/operations.md "Guarantees and
limits" is checked on whatever comes out:

* no exception escapes: exit code 0 or 2 (the API raises ``InputError`` only);
* a refusal (nothing added to the manifest) is exit 2 with ONE line naming the file,
  and the store is byte-identical to before the call;
* an accepted file accounts for every row: rows read = stored + quarantined (the
  manifest entry, the game partition and the quarantine rows agree), and for a CSV
  without quotes rows read = its non-blank lines after the header (blank lines and
  lines of separators only are the documented skips);
* nothing already stored changes: every file of the store's games and quarantine
  before the call is byte-identical after it, and the manifest's earlier entries too.

Parquet games files (a real one built from the Kaggle 2010 games) are damaged at the
byte level, ingested in a worker process (a PyArrow abort must not take the test run
down), and mutated at the value level: hostile values in one cell, the same values in
other Arrow types, columns duplicated, missing or extra; every row not touched is
stored as the CSV of the same games stores it.

The examples are derandomized (the same on every run); ``ARPAD_FUZZ_EXAMPLES`` raises
their number and ``ARPAD_FUZZ_RANDOM=1`` draws new ones, for a longer local search. The defects found this way each have a
minimal regression test at the end of the file.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import math
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import zipfile
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError, _printable
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store
from tests.conftest import BUNDLED, SHARED
from tests.test_hostile_input import _mutate

EXAMPLES = int(os.environ.get("ARPAD_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=not os.environ.get("ARPAD_FUZZ_RANDOM"),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- the valid files, cut small from the real data ---------------------------------------------


def _lines(path: Path, n: int) -> bytes:
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(n))


def _pgn_games(path: Path, n: int) -> bytes:
    """The first ``n`` games of a PGN file (each opens with an [Event line)."""
    text = path.read_bytes()
    starts = [m.start() for m in re.finditer(rb"^\[Event ", text, re.M)]
    return text[: starts[n]] if len(starts) > n else text


CANONICAL_CSV = (
    b"game_id,date,white_id,black_id,result,white_rating,black_rating\n"
    b"f1,2024-02-03,A,B,1-0,2100,2000\n"
    b"f2,2024-02-04,C,D,0-1,,\n"
    b"f3,2024-02-05,E,A,1/2-1/2,1900,\n"
    b"f4,2024-03-01,B,C,1-0,,2050\n"
)
CANONICAL_PLAYERS = (
    b"player_id,name,sex,birth_year,rating,rated_games,federation\n"
    b"A,Ann Alpha,F,1990,2100,40,ENG\n"
    b"B,Bob Beta,M,1985,2000,12,FRA\n"
    b"Q,Quin Q,M,2001,1800,3,GER\n"
)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


PGN = _pgn_games(SHARED / "pgn" / "WorldChamp1886.pgn", 3)
TRF = (SHARED / "trf" / "lichess_swiss_2020-06-26.trf").read_bytes()
KAGGLE = _lines(BUNDLED / "kaggle2010_elo_vs_rest" / "training_data.csv", 8)
DELOITTE = _lines(BUNDLED / "deloitte_fide_2011" / "test_solution.csv", 8)
DELOITTE_PLAYERS = _lines(BUNDLED / "deloitte_fide_2011" / "initial_ratings.csv", 8)

# name -> (file name, its inner text, how it is packed, extra command-line arguments,
# is it a players file)
SOURCES: dict[str, tuple[str, bytes, str, tuple[str, ...], bool]] = {
    "csv": ("fz.csv", CANONICAL_CSV, "", (), False),
    "csv-kaggle2010": ("fz.csv", KAGGLE, "", ("--mapping", "kaggle2010"), False),
    "csv-deloitte2011": ("fz.csv", DELOITTE, "", ("--mapping", "deloitte2011"), False),
    "players": ("pl.csv", CANONICAL_PLAYERS, "", (), True),
    "players-deloitte2011": ("pl.csv", DELOITTE_PLAYERS, "", (), True),
    "pgn": ("fz.pgn", PGN, "", (), False),
    "trf": ("fz.trf", TRF, "", (), False),
    "pgn.gz": ("fz.pgn.gz", PGN, "gz", (), False),
    "csv.gz": ("fz.csv.gz", CANONICAL_CSV, "gz", (), False),
    "pgn.zip": ("fz.zip", PGN, "zip", (), False),
    "csv.zip": ("fz.zip", CANONICAL_CSV, "zip", (), False),
    "players.gz": ("pl.csv.gz", DELOITTE_PLAYERS, "gz", (), True),
    "players.zip": ("pl.zip", CANONICAL_PLAYERS, "zip", (), True),
}


def kaggle_parquet_table(n: int = 12) -> pa.Table:
    """``n`` games of the Kaggle 2010 training file (every 300th row: months 1..10) as
    a canonical games table as pandas or polars would write it: ``period``,
    ``white_id`` and ``black_id`` as int64, ``score`` as float64."""
    lines = (SHARED / "kaggle2010_elo_vs_rest" / "training_data.csv").read_text().splitlines()
    rows = [line.split(",") for line in lines[1::300][:n]]
    return pa.table(
        {
            "period": pa.array([int(r[0]) for r in rows], pa.int64()),
            "white_id": pa.array([int(r[1]) for r in rows], pa.int64()),
            "black_id": pa.array([int(r[2]) for r in rows], pa.int64()),
            "score": pa.array([float(r[3]) for r in rows], pa.float64()),
        }
    )


def parquet_bytes(table: pa.Table, **write) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, **write)
    return out.getvalue()


KAGGLE_TABLE = kaggle_parquet_table()
# The Parquet games files: as pyarrow writes them by default (Snappy, dictionary
# pages), and uncompressed without dictionaries (a byte flip there changes values
# rather than breaking the decompression).
PARQUET_SOURCES: dict[str, tuple[str, bytes, str, tuple[str, ...], bool]] = {
    "parquet": ("fz.parquet", parquet_bytes(KAGGLE_TABLE), "", (), False),
    "parquet-plain": (
        "fz.parquet",
        parquet_bytes(KAGGLE_TABLE, compression="none", use_dictionary=False),
        "",
        (),
        False,
    ),
}
ALL_SOURCES = {**SOURCES, **PARQUET_SOURCES}


def pack(how: str, inner: bytes, name: str = "games") -> bytes:
    if how == "gz":
        return gzip.compress(inner, mtime=0)
    if how == "zip":
        ext = "pgn" if inner.lstrip().startswith(b"[") else "csv"
        return _zip({f"{name}.{ext}": inner})
    return inner


# -- the mutations ------------------------------------------------------------------------------

INSERTS = [
    b"\x00",
    b"\r",
    b"\r\n",
    b"\n",
    b"\xef\xbb\xbf",  # a byte order mark
    b"\xff\xfe",  # UTF-16's
    b"\xff",  # invalid UTF-8
    b"\xc3",  # a cut two-byte sequence
    b"\xed\xa0\x80",  # a UTF-8 surrogate
    b'"',
    b",",
    b";",
    b"\t",
    b"[",
    b"{",
    b"\x1a",
]
HOSTILE = [
    "9" * 40,
    "1e308",
    "1e309",
    "-1e309",
    "18446744073709551616",
    "-2100",
    "-0",
    "NaN",
    "nan",
    "inf",
    "-Infinity",
    "0000-00-00",
    "9999-12-31",
    "0001-01-01",
    "2024-02-30",
    "1900.00.00",
    "X" * 10_000,
    "9" * 10_000,
    "",
    " ",
    "0x7d0",
    "2_100",
    "\u0662\u0661\u0660\u0660",  # 2100 in Arabic-Indic digits
    "2100.5",
    "+2100",
    "1,5",
    "\u00bd",
    "1-0",
    "*",
    "\u202e",  # right-to-left override
]


def _replace_field(line: bytes, index: int, value: bytes) -> bytes:
    """``line`` with its index-th token (a run between separators, quotes or blanks)
    replaced by ``value``."""
    spans = [m.span() for m in re.finditer(rb'[^,;\t "\[\]]+', line)]
    if not spans:
        return line + value
    a, b = spans[index % len(spans)]
    return line[:a] + value + line[b:]


def mutate(data: bytes, ops: list[tuple]) -> bytes:
    for op, a, b in ops:
        if op in ("flip", "truncate", "insert", "duplicate", "delete"):  # the byte and line ops
            data = _mutate(data, [(op, a, b)], INSERTS)
        elif op == "field":
            lines = data.split(b"\n")
            i = a % len(lines)
            value = HOSTILE[b % len(HOSTILE)].encode()
            lines[i] = _replace_field(lines[i], b // len(HOSTILE), value)
            data = b"\n".join(lines)
        elif op == "swap":  # two columns of every line (CSV fields, TRF characters)
            out = []
            for line in data.split(b"\n"):
                if b"," in line:
                    f = line.split(b",")
                    i, j = a % len(f), b % len(f)
                    f[i], f[j] = f[j], f[i]
                    line = b",".join(f)
                elif len(line) > 10:
                    i, j = sorted((a % len(line), b % len(line)))
                    if i != j:
                        line = (
                            line[:i]
                            + line[j : j + 1]
                            + line[i + 1 : j]
                            + line[i : i + 1]
                            + line[j + 1 :]
                        )
                out.append(line)
            data = b"\n".join(out)
    return data


NAME_PREFIXES = [
    "with space ",
    "new\nline ",
    "tab\t",
    os.fsdecode(b"\xff\xfe"),  # not UTF-8: refused (see the regression test below)
    "Re\u0301ti ",  # decomposed
    "-dash ",
    "x" * 200,
    "semi;colon,comma ",
    'quote"s ',
]

OPS = st.lists(
    st.tuples(
        st.sampled_from(["flip", "truncate", "insert", "duplicate", "delete", "field", "swap"]),
        st.integers(0, 100_000),
        st.integers(0, 100_000),
    ),
    min_size=1,
    max_size=4,
)


# -- the store and what is checked --------------------------------------------------------------


BASE_TRF = (SHARED / "trf" / "lichess_swiss_2020-05-29.trf").read_bytes()
VALID_BESIDE = CANONICAL_CSV.replace(b"f", b"v").replace(b"2024-0", b"2023-0")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A small store: players, three CSV games, a PGN game of 1886 and a TRF tournament,
    all valid; the games files under the sources ``base-csv``, ``base-pgn``, ``base-trf``
    (which a file of mode "correction" corrects)."""
    root = tmp_path_factory.mktemp("fuzz") / "store"
    src = root.parent / "src"
    src.mkdir()
    (src / "base.csv").write_bytes(
        b"game_id,date,white_id,black_id,result,white_rating,black_rating\n"
        b"b1,2024-01-05,A,B,1-0,2100,2000\n"
        b"b2,2024-01-06,C,D,1/2-1/2,,\n"
        b"b3,2024-01-07,B,C,0-1,,\n"
    )
    (src / "base.pgn").write_bytes(_pgn_games(SHARED / "pgn" / "WorldChamp1886.pgn", 1))
    (src / "base.trf").write_bytes(BASE_TRF)
    (src / "players.csv").write_bytes(CANONICAL_PLAYERS.replace(b"Q,Quin Q", b"C,Cid Gamma"))
    args = ["ingest", "--no-flow", "--store", str(root)]
    assert main([*args, "--players", str(src / "players.csv")]) == 0
    for ext in ("csv", "pgn", "trf"):
        assert main([*args, "--source", f"base-{ext}", str(src / f"base.{ext}")]) == 0
    return root


def snapshot(root: Path) -> dict[str, str]:
    """Every file (with its digest) and folder under ``root``, but the lock file."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.name == ".lock":
            continue
        out[str(p.relative_to(root))] = (
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        )
    return out


def _manifest(root: Path) -> list[dict]:
    rows = Store(root).read_manifest().to_pylist()
    return [{k: v for k, v in r.items()} for r in rows]


def _quarantine(root: Path, batch: str) -> int:
    q = Store(root).quarantine_dir / f"batch={batch}"
    return sum(pq.read_metadata(f).num_rows for f in q.rglob("*.parquet")) if q.exists() else 0


def _stored_games(root: Path, batch: str) -> int:
    files = [f for f in Store(root).game_files() if f.name == f"part-{batch}.parquet"]
    return sum(pq.read_metadata(f).num_rows for f in files)


def naive_csv_rows(data: bytes) -> int | None:
    """Rows of a CSV without quotes: its non-blank lines after the header (a line of
    separators only is blank, docs/ingest.md); None when quotes make it unknowable."""
    if b'"' in data:
        return None
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sep = next((c for c in (",", ";", "\t") if c in lines[0]), ",")
    return sum(1 for x in lines[1:] if any(f.strip() for f in x.split(sep)))


def correcting(source: str) -> str | None:
    """The base source a file of this kind corrects (players files are merged, not
    corrected by ``--source``)."""
    if ALL_SOURCES[source][4]:
        return None
    name = ALL_SOURCES[source][0]
    inner = ALL_SOURCES[source][1]
    if name.endswith(".trf"):
        return "base-trf"
    return "base-pgn" if inner.lstrip().startswith(b"[") else "base-csv"


def ingest_call(
    store: Path, path: Path, source: str, mode: str, api: bool, capsys, fmt: str | None = None
) -> tuple[int, str, int]:
    """One ingest through the command line or the API: (exit code, error text, player
    lines of a games file quarantined). ``mode``: "new" (a new source), "correction"
    (``--source`` of a stored file), "beside" (with a valid file in the same command)."""
    _, _, _, extra, is_players = ALL_SOURCES[source]
    mapping = extra[1] if extra else None
    files = [] if is_players else [path]
    if mode.startswith("beside"):
        beside = path.with_name("beside.csv")
        beside.write_bytes(VALID_BESIDE)
        files.insert(0 if mode == "beside-first" else len(files), beside)
    if api and mode != "correction":  # the API has no ``source``: corrections by the CLI
        import arpad

        try:
            players = [path] if is_players else None
            report = arpad.Store(store).ingest(files, players, mapping=mapping, fmt=fmt)
        except InputError as exc:
            return 2, f"arpad: error: {exc}", 0
        return 0, "", sum(f.players_quarantined for f in report.files)
    args = ["ingest", "--no-flow", "--store", str(store), *extra]
    args += ["--format", fmt] if fmt else []
    if mode == "correction":
        args += ["--source", correcting(source)]
    args += ["--players", str(path)] if is_players else []
    code = main([*args, *map(str, files)])
    out, err = capsys.readouterr()
    described = re.findall(r"players described by the file: \d+ read, \d+ merged, (\d+) quar", out)
    return code, err, sum(map(int, described))


MODES = st.sampled_from(["new", "new", "correction", "beside", "beside-first"])


def _key(row: dict) -> tuple:
    return (row["source"], row["sha256"])


HANG_SECONDS = 120  # a file of a few kB ingests in well under a second


@contextlib.contextmanager
def no_hang(seconds: int):
    """A hang is a failure, not a stuck test run: SIGALRM interrupts the call."""

    def hung(signum, frame):
        raise AssertionError(f"the ingest did not end within {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def isolated_ingest(
    store: Path, path: Path, source: str, mode: str, api: bool, fmt: str | None, work: Path
) -> tuple[int, str, int]:
    """``ingest_call`` in a worker process: in ``work``, its output captured."""
    out, err = io.StringIO(), io.StringIO()

    class Captured:
        def readouterr(self) -> tuple[str, str]:
            return out.getvalue(), err.getvalue()

    os.chdir(work)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        return ingest_call(store, path, source, mode, api, Captured(), fmt)


class Isolated:
    """One spawned worker process that runs ingests: an abort of PyArrow's C++ code (a
    damaged Parquet file can raise a C++ exception PyArrow does not turn into a Python
    one) ends the worker, not the test run, and is reported as the failure it is; the
    next call starts a new worker."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None

    def call(self, fn, *args):
        if self.pool is None:
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(1, mp_context=context)
        try:
            return self.pool.submit(fn, *args).result(timeout=HANG_SECONDS)
        except BrokenProcessPool:
            self.close()
            raise AssertionError("the ingest process died (an abort or a crash)") from None
        except TimeoutError:
            self.close()
            raise AssertionError(f"the ingest did not end within {HANG_SECONDS} s") from None

    def close(self) -> None:
        if self.pool is not None:
            for proc in list(getattr(self.pool, "_processes", {}).values()):
                proc.kill()
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def one_line_naming(err: str, name: str, mode: str) -> None:
    """The refusal: one line ``arpad: error: …`` naming the file, the last on stderr."""
    lines = [x for x in err.splitlines() if x.strip()]
    error = [x for x in lines if x.startswith("arpad: error: ")]
    assert len(error) == 1 and error[0] == lines[-1], err
    shown = _printable(name).replace("\n", "\\n").replace("\r", "\\r")
    assert shown in error[0] or (mode.startswith("beside") and "beside.csv" in error[0]), err


def check_one(
    template: Path,
    source: str,
    data: bytes,
    mode: str,
    api: bool,
    capsys,
    fmt: str | None = None,
    prefix: str = "",
    isolated: Isolated | None = None,
    then=None,
) -> None:
    """Ingest ``data`` as the file of ``source`` into a copy of ``template`` and check
    the promise. ``isolated``: the ingest runs in that worker process (a damaged
    Parquet file could abort PyArrow). ``then(store, entry, code, err)``: further checks
    of an accepted file, on the store after it."""
    name = prefix + ALL_SOURCES[source][0]
    if mode == "correction" and correcting(source) is None:
        mode = "new"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        store = tmp / "store"
        shutil.copytree(template, store)
        inputs = tmp / "in"
        inputs.mkdir()
        path = inputs / name
        path.write_bytes(data)
        before = snapshot(store)
        manifest_before = _manifest(store)
        work = tmp / "work"  # the working directory, which must stay empty
        work.mkdir()
        cwd = os.getcwd()
        os.chdir(work)
        try:
            if isolated is not None:
                code, err, described = isolated.call(
                    isolated_ingest, store, path, source, mode, api, fmt, work
                )
            else:
                with no_hang(HANG_SECONDS):
                    code, err, described = ingest_call(store, path, source, mode, api, capsys, fmt)
        finally:
            os.chdir(cwd)

        assert code in (0, 2), err
        assert "Traceback" not in err
        assert path.read_bytes() == data  # the input is only read
        assert not any(work.iterdir())
        after = snapshot(store)
        manifest = _manifest(store)
        if manifest == manifest_before:
            # refused as a whole (or the bytes of a stored file: "identical content",
            # exit 0): the store untouched (but the catalog, a cache of views rebuilt
            # from the files, which may be refreshed)
            assert {k: v for k, v in after.items() if not k.startswith("catalog")} == {
                k: v for k, v in before.items() if not k.startswith("catalog")
            }
            if code == 0:
                return
            one_line_naming(err, name, mode)
            return err
        # nothing already stored changes (but the corrected source's own games)
        old = {_key(r) for r in manifest_before}
        gone = [r for r in manifest_before if _key(r) not in {_key(m) for m in manifest}]
        assert [r["source"] for r in gone] in (
            [],
            [correcting(source)] if mode == "correction" else [],
        )
        kept = [r for r in manifest if _key(r) in old]
        assert kept == [r for r in manifest_before if r not in gone]
        gone_batches = {r["batch"] for r in gone}
        for key, digest in before.items():
            if key.startswith(("games", "quarantine")) and not any(b in key for b in gone_batches):
                assert after.get(key) == digest, key
        new = [r for r in manifest if _key(r) not in old]
        if mode.startswith("beside"):
            assert any(r["source"].endswith("beside.csv") for r in new), new
            new = [r for r in new if not r["source"].endswith("beside.csv")]
        if not new:
            # the beside file stored before the mutated one was refused (each file of a
            # command is its own transition), or identical content already stored
            if code == 2:
                one_line_naming(err, name, mode)
            return
        (entry,) = new
        assert entry["accepted"] + entry["quarantined"] == entry["rows"], entry
        # the quarantine holds the file's rows and the player lines it describes
        assert _quarantine(store, entry["batch"]) == entry["quarantined"] + described, entry
        if entry["kind"] == "games":
            assert _stored_games(store, entry["batch"]) == entry["accepted"], entry
        if then is not None:
            then(store, entry, code, err)
        how = ALL_SOURCES[source][2]
        inner = data
        if how == "gz":
            try:
                inner = gzip.decompress(data)
            except Exception:
                inner = None
        if fmt in (None, "csv") and name.endswith((".csv", ".csv.gz")):
            if inner is not None and inner[:2] not in (b"\xff\xfe", b"\xfe\xff"):
                want = naive_csv_rows(inner)
                if want is not None:
                    assert entry["rows"] == want, (entry, inner)


@FUZZ
@given(
    source=st.sampled_from(sorted(SOURCES)),
    ops=OPS,
    inside=st.booleans(),
    mode=MODES,
    api=st.booleans(),
    fmt=st.sampled_from([None, None, None, None, "csv", "pgn", "trf", "parquet"]),
    prefix=st.sampled_from(["", "", "", *NAME_PREFIXES]),
)
def test_mutated_real_files_keep_the_promise(
    template, capsys, source, ops, inside, mode, api, fmt, prefix
):
    """Mutations of each reader's valid file, applied to the text inside an archive or
    to the archive's own bytes; sometimes read with a ``--format`` of its own or another
    reader's, and under a hostile name (a line break, bytes that are not UTF-8, 200
    characters, a leading dash, a decomposed accent)."""
    _, inner, how, _, _ = SOURCES[source]
    if how and not inside:
        data = mutate(pack(how, inner), ops)
    else:
        data = pack(how, mutate(inner, ops))
    check_one(template, source, data, mode, api, capsys, fmt, prefix)


@FUZZ
@given(
    source=st.sampled_from(["csv", "csv-kaggle2010", "csv-deloitte2011", "players", "pgn", "trf"]),
    line=st.integers(0, 1000),
    field=st.integers(0, 1000),
    value=st.sampled_from(HOSTILE),
    mode=MODES,
)
def test_one_hostile_field_in_a_valid_file(template, capsys, source, line, field, value, mode):
    """A single field of a valid file replaced by a hostile value: the row is stored or
    quarantined with its reason, or the file refused in one line."""
    _, inner, _, _, _ = SOURCES[source]
    lines = inner.split(b"\n")
    i = 1 + line % max(1, len(lines) - 2)  # a row, not the header
    lines[i] = _replace_field(lines[i], field, value.encode())
    check_one(template, source, b"\n".join(lines), mode, False, capsys)


def naive_rating(text: str) -> float | str | None:
    """What a rating field means, written out: blank is no rating; a decimal number
    (sign, digits, a point, an exponent; blanks around it) in 0..3500 is that rating;
    anything else is a bad rating ("bad")."""
    t = text.strip(" ")
    if not t:
        return None
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
        return "bad"
    value = float(t)
    return value if 0 <= value <= 3500 else "bad"


NUMBERISH = st.one_of(
    st.sampled_from(HOSTILE[:16]),
    st.text(alphabet="0123456789+-.eE _", max_size=9),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**30), 10**30).map(str),
)


@FUZZ
@given(value=NUMBERISH, black=st.booleans())
def test_a_rating_field_is_stored_as_written_or_quarantined(template, capsys, value, black):
    """A naive reference for the stated ratings of a CSV: the generated text is stored as
    its number, or (not a number in 0..3500) the row is quarantined as bad_rating; the
    other rows are stored as written."""
    column = "black_rating" if black else "white_rating"
    lines = CANONICAL_CSV.decode().splitlines()
    fields = lines[2].split(",")
    fields[6 if black else 5] = value
    if "," in value or '"' in value or "\n" in value or "\r" in value:
        return  # not one field of a CSV line
    lines[2] = ",".join(fields)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.csv"
        path.write_text("\n".join(lines) + "\n")
        store = Path(tmp) / "store"
        shutil.copytree(template, store)
        code = main(["ingest", "--no-flow", "--store", str(store), str(path)])
        err = capsys.readouterr().err
        assert code in (0, 2) and "Traceback" not in err, err
        entry = _manifest(store)[-1]
        assert entry["source"].endswith("r.csv"), err
        files = [f for f in Store(store).game_files() if f.name == f"part-{entry['batch']}.parquet"]
        stored = {
            r["game_id"]: r[column]
            for f in files
            for r in pq.read_table(f, columns=["game_id", column]).to_pylist()
        }
        want = naive_rating(value)
        expected = {"f1": [2100.0, 2000.0], "f3": [1900.0, None], "f4": [None, 2050.0]}
        for game, pair in expected.items():
            assert stored[game] == pair[1 if black else 0], (game, stored)
        if want == "bad":
            assert "f2" not in stored, (value, stored)
            q = pq.read_table(Store(store).quarantine_dir / f"batch={entry['batch']}")
            assert q.column("reason").to_pylist() == ["bad_rating"], value
            assert q.column("line").to_pylist() == [3]
        else:
            assert stored["f2"] == want, (value, stored["f2"])


# -- Parquet games files -------------------------------------------------------------------------

PARQUET_EXAMPLES = int(os.environ.get("ARPAD_FUZZ_EXAMPLES", "25"))
FUZZ_PARQUET = settings(FUZZ, max_examples=PARQUET_EXAMPLES)


@pytest.fixture(scope="module")
def isolated():
    worker = Isolated()
    yield worker
    worker.close()


PARQUET_OPS = st.lists(
    st.tuples(
        st.sampled_from(["flip", "flip", "truncate", "insert", "zero", "copy"]),
        st.integers(0, 100_000),
        st.integers(0, 100_000),
    ),
    min_size=1,
    max_size=4,
)


def mutate_bytes(data: bytes, ops: list[tuple]) -> bytes:
    """Byte-level damage: flips, truncation and inserted bytes (``_mutate``), a run of
    up to 16 bytes zeroed, and a run of up to 16 bytes copied over another place (a
    torn write, a block of another file)."""
    for op, a, b in ops:
        n = len(data)
        if op in ("flip", "truncate", "insert"):
            data = _mutate(data, [(op, a, b)], INSERTS)
        elif op == "zero" and n:
            i = a % n
            data = data[:i] + bytes(min(1 + b % 16, n - i)) + data[i + 1 + b % 16 :]
        elif op == "copy" and n:
            i, j, k = a % n, b % n, 1 + (a ^ b) % 16
            run = data[j : j + k]
            data = data[:i] + run + data[i + len(run) :]
    return data


def stored_rows(store: Path, batch: str) -> dict[int, tuple]:
    """The games a batch stored, by the row of the file they came from: (period,
    white_id, black_id, score)."""
    out = {}
    for f in Store(store).game_files():
        if f.name != f"part-{batch}.parquet":
            continue
        period = int(f.parent.name.split("=", 1)[1])
        for r in pq.read_table(f, columns=["source", "white_id", "black_id", "score"]).to_pylist():
            row = int(r["source"].rsplit(":", 1)[1])
            out[row] = (period, r["white_id"], r["black_id"], r["score"])
    return out


def quarantined_rows(store: Path, batch: str) -> list[dict]:
    q = Store(store).quarantine_dir / f"batch={batch}"
    return pq.read_table(q).to_pylist() if q.exists() and any(q.rglob("*.parquet")) else []


# The rows of the file as a CSV of the same values would store them (the naive reference).
KAGGLE_ROWS = {
    i: (r["period"], str(r["white_id"]), str(r["black_id"]), r["score"])
    for i, r in enumerate(KAGGLE_TABLE.to_pylist(), 1)
}


@FUZZ_PARQUET
@given(
    source=st.sampled_from(sorted(PARQUET_SOURCES)),
    ops=PARQUET_OPS,
    mode=MODES,
    api=st.booleans(),
)
def test_damaged_parquet_bytes_keep_the_promise(isolated, template, source, ops, mode, api):
    """A real Parquet games file (Kaggle 2010 games) damaged at the byte level, ingested
    by the CLI or the API in a worker process: usually unreadable, then refused in one
    line naming the file (exit 2, the store unchanged); when PyArrow still reads it,
    every row it gives is stored or quarantined, and nothing stored changes. A worker
    that dies (a PyArrow abort) fails the example."""
    data = mutate_bytes(PARQUET_SOURCES[source][1], ops)
    check_one(template, source, data, mode, api, None, isolated=isolated)


def _with(table: pa.Table, name: str, column: pa.Array) -> pa.Table:
    """``table`` with the column ``name`` replaced (or appended)."""
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, column)
    return table.append_column(name, column)


def _one_value(name: str, value, kind: pa.DataType, row: int, n: int) -> tuple[pa.Array, bool]:
    """The column ``name`` of the Kaggle table (or nulls, for a new column) as ``kind``,
    with ``value`` in ``row`` (0-based), and whether the other rows changed too: a type
    that cannot hold the column's values (a bool or date period, a decimal score) holds
    them cast (the period 1 as the date 1970-01-02), or null where it cannot."""
    if name not in KAGGLE_TABLE.column_names:
        values = [None] * n
        values[row] = value
        return pa.array(values, kind), False
    column = KAGGLE_TABLE.column(name)
    values = column.to_pylist()
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        values = [str(v) for v in values]
    values[row] = value
    # numbers stay the same numbers, text the same text; any other type (a bool, a date:
    # pyarrow takes the period 1 as the day 1970-01-02) changes every row
    same = any(
        test(kind)
        for test in (pa.types.is_integer, pa.types.is_floating, pa.types.is_decimal,
                     pa.types.is_string, pa.types.is_large_string)
    )  # fmt: skip
    try:
        made = pa.array(values, kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        pass
    else:
        if not same:
            return made, True
        held = made.to_pylist()  # (pyarrow puts a score 0.5 into an int64 column as 0)
        return made, any(held[i] != values[i] for i in range(n) if i != row)
    try:
        others = column.cast(kind, safe=False).to_pylist()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        others = [None] * n
    others[row] = value
    return pa.array(others, kind), True


# One hostile value in one cell: (Arrow type, value). The column takes that type.
CELL_VALUES = [
    (pa.int64(), None),
    (pa.int64(), 2**63 - 1),
    (pa.int64(), -(2**63)),
    (pa.uint64(), 2**64 - 1),
    (pa.int64(), 0),
    (pa.int64(), -1),
    (pa.float64(), math.nan),
    (pa.float64(), math.inf),
    (pa.float64(), -math.inf),
    (pa.float64(), 1e308),
    (pa.float64(), -0.0),
    (pa.float64(), 0.1),
    (pa.float64(), 2.0**53),
    (pa.float32(), 0.5),
    (pa.string(), ""),
    (pa.string(), " "),
    (pa.string(), "X" * 10_000),
    (pa.string(), "line\nbreak"),
    (pa.string(), "\u00bd"),
    (pa.string(), "NaN"),
    (pa.string(), "\u202e73"),
    (pa.large_string(), "1e309"),
    (pa.bool_(), True),
    (pa.date32(), 2**31 - 1),
    (pa.date32(), -(2**31)),
    (pa.date32(), 2_932_896),  # 9999-12-31
    (pa.date64(), 2**62),
    (pa.timestamp("ms"), 2**62),
    (pa.timestamp("ms"), -(2**63)),
    (pa.timestamp("us", tz="Asia/Tokyo"), 2**62),
    (pa.timestamp("ns"), -(2**63) + 1),
    (pa.decimal128(38, 0), Decimal(10**37)),
    (pa.decimal256(76, 0), Decimal(10**70)),
]
CELL_COLUMNS = ["period", "white_id", "black_id", "score", "date", "game_id", "event_id",
                "white_rating", "black_rating", "rated", "pool", "result"]  # fmt: skip


def _cell(table: pa.Table, name: str, kind: pa.DataType, value, row: int) -> tuple[pa.Table, bool]:
    """``table`` with the cell given ``value`` of ``kind``; and whether the column's
    other values changed with it (``_one_value``)."""
    plain = kind.value_type if pa.types.is_dictionary(kind) else kind
    column, all_rows = _one_value(name, value, plain, row, table.num_rows)
    if pa.types.is_dictionary(kind):
        column = column.dictionary_encode()
    return _with(table, name, column), all_rows


# A whole column of the same values in another type: the same games (docs/ingest.md
# "Typed columns": a file gives what a CSV of the same values gives).
def _as_type(name: str, kind: pa.DataType) -> pa.Array:
    values = KAGGLE_TABLE.column(name)
    if pa.types.is_dictionary(kind):
        return values.cast(kind.value_type).dictionary_encode().combine_chunks()
    if pa.types.is_string_view(kind):
        return values.cast(pa.string()).cast(kind)
    return values.cast(kind)


SAME_VALUES = {
    "period": [pa.int8(), pa.uint16(), pa.int32(), pa.uint64(), pa.float64(), pa.string(),
               pa.large_string(), pa.dictionary(pa.int8(), pa.string()),
               pa.dictionary(pa.int32(), pa.int64())],
    "white_id": [pa.int16(), pa.uint64(), pa.float64(), pa.string(), pa.large_string(),
                 pa.string_view(), pa.dictionary(pa.int32(), pa.string()),
                 pa.dictionary(pa.int8(), pa.int64()), pa.decimal128(20, 0)],
    "score": [pa.float32(), pa.float16(), pa.string(), pa.large_string(),
              pa.dictionary(pa.int8(), pa.float64()), pa.decimal128(3, 1)],
}  # fmt: skip
SAME_VALUES["black_id"] = SAME_VALUES["white_id"]

TABLE_CHANGES = ["duplicate", "duplicate-case", "missing", "extra-nested", "extra-text",
                 "reordered", "row-groups", "no-rows", "null-type"]  # fmt: skip
REQUIRED = ("period", "white_id", "black_id", "score")


def _table_change(change: str, name: str) -> pa.Table:
    t = KAGGLE_TABLE
    if change == "duplicate":
        return pa.Table.from_arrays([*t.columns, t.column(name)], [*t.column_names, name])
    if change == "duplicate-case":
        return pa.Table.from_arrays([*t.columns, t.column(name)], [*t.column_names, name.upper()])
    if change == "missing":
        return t.drop_columns([name])
    if change == "extra-nested":
        return t.append_column("moves", pa.array([[1, 2]] * t.num_rows))
    if change == "extra-text":
        return t.append_column("site", pa.array(["Kaggle"] * t.num_rows))
    if change == "reordered":
        return t.select(list(reversed(t.column_names)))
    if change == "no-rows":
        return t.slice(0, 0)
    if change == "null-type":
        return _with(t, name, pa.nulls(t.num_rows))
    return t  # "row-groups": written with one row per row group


def check_parquet_values(
    template, capsys, table, mode, api, *, touched: set[int], refusable: bool, **write
) -> None:
    """Ingest ``table`` written as Parquet and check, beyond ``check_one``: every row not
    in ``touched`` (1-based) is stored as the CSV of the Kaggle rows stores it; a
    touched row is stored or quarantined at its own row with a reason code and a
    detail; a refusal happens only where ``refusable``."""
    outcome = {}

    def then(store, entry, code, err):
        outcome["accepted"] = True
        stored = stored_rows(store, entry["batch"])
        quarantined = quarantined_rows(store, entry["batch"])
        for row, want in KAGGLE_ROWS.items():
            if row > table.num_rows:
                continue
            if row not in touched:
                assert stored.get(row) == want, (row, stored.get(row), want, quarantined)
        codes = {r.value for r in Reason}
        for q in quarantined:
            assert q["line"] in touched, q
            assert q["reason"] in codes and q["detail"], q
        assert set(stored) | {q["line"] for q in quarantined} == set(range(1, table.num_rows + 1))

    data = parquet_bytes(table, **write)
    err = check_one(template, "parquet", data, mode, api, capsys, then=then)
    if not refusable and not outcome.get("accepted"):
        # A new version of a stored source of which no row could be read keeps the stored
        # one (docs/ingest.md "A new version of which no row could be read").
        assert mode == "correction" and "no row of this new version" in (err or ""), (
            "refused as a whole"
        )


@FUZZ_PARQUET
@given(
    name=st.sampled_from(CELL_COLUMNS),
    cell=st.sampled_from(CELL_VALUES),
    row=st.integers(0, len(KAGGLE_ROWS) - 1),
    dictionary=st.booleans(),
    mode=MODES,
    api=st.booleans(),
)
def test_one_hostile_value_in_a_parquet_file(
    template, capsys, name, cell, row, dictionary, mode, api
):
    """One cell of the real Parquet file given a hostile value (a null, huge or negative
    integers, NaN and ±inf, 1e308, dates and timestamps past any calendar, 10,000
    characters, a line break, a right-to-left mark, 40-digit decimals), its column typed
    to hold it (dictionary-encoded or not), in a column arpad reads (period, ids, score)
    or an optional one (date, game_id, event_id, ratings, rated, pool, result): the
    other rows are stored as written; the row is stored or quarantined with its reason,
    or the file is refused in one line naming it."""
    kind, value = cell
    if dictionary and not pa.types.is_timestamp(kind) and not pa.types.is_date64(kind):
        kind = pa.dictionary(pa.int32(), kind)
    table, all_rows = _cell(KAGGLE_TABLE, name, kind, value, row)
    touched = set(range(1, table.num_rows + 1)) if all_rows else {row + 1}
    check_parquet_values(template, capsys, table, mode, api, touched=touched, refusable=True)


@FUZZ_PARQUET
@given(
    name=st.sampled_from(sorted(SAME_VALUES)),
    index=st.integers(0, 100),
    mode=MODES,
    api=st.booleans(),
)
def test_the_same_values_in_another_arrow_type_are_the_same_games(
    template, capsys, name, index, mode, api
):
    """A column of the real file written in another Arrow type holding the same values
    (int8 and uint64 periods, int16 and float64 ids, large_string, string_view,
    dictionary-encoded strings and integers, a float32 or decimal score): every game is
    stored as the CSV of the same values stores it, nothing quarantined."""
    kinds = SAME_VALUES[name]
    table = _with(KAGGLE_TABLE, name, _as_type(name, kinds[index % len(kinds)]))
    check_parquet_values(template, capsys, table, mode, api, touched=set(), refusable=False)


@FUZZ_PARQUET
@given(
    change=st.sampled_from(TABLE_CHANGES),
    name=st.sampled_from(REQUIRED),
    mode=MODES,
    api=st.booleans(),
)
def test_parquet_columns_duplicated_missing_or_extra(template, capsys, change, name, mode, api):
    """Columns of the real file duplicated (exactly, or in another case), missing, of
    the null type, in reverse order, with extra columns (a nested list, text), the rows
    in one row group each, or no rows: refused in one line naming the file where a
    column arpad needs is duplicated or missing, else every row stored as written (the
    null-type column's rows quarantined with their reason)."""
    table = _table_change(change, name)
    write = {"row_group_size": 1} if change == "row-groups" else {}
    refusable = change in ("duplicate", "duplicate-case", "missing")
    touched = set(range(1, table.num_rows + 1)) if change == "null-type" else set()
    check_parquet_values(
        template, capsys, table, mode, api, touched=touched, refusable=refusable, **write
    )
    if refusable:
        # a needed column twice or not at all: never stored
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "fz.parquet"
            path.write_bytes(parquet_bytes(table))
            code = main(["ingest", "--no-flow", "--store", str(Path(tmp) / "s"), str(path)])
            err = capsys.readouterr().err
            assert code == 2 and len(err.strip().splitlines()) == 1, err
            assert "fz.parquet" in err and name in err.lower(), err


# -- defects found, each a minimal regression test ----------------------------------------------


def test_a_zip_of_a_newer_version_than_python_reads_is_refused_in_one_line(tmp_path, capsys):
    """Found by the generator (a byte order mark inserted before a zip, two columns
    swapped): a central directory entry whose "version needed to extract" is above what
    Python's zipfile reads (6.3) raised NotImplementedError from the format detection
    of a ``.zip`` (``_zip_of_csv``): a traceback and exit 1."""
    data = bytearray(_zip({"games.csv": CANONICAL_CSV}))
    central = data.index(b"PK\x01\x02")
    data[central + 6 : central + 8] = (239).to_bytes(2, "little")  # version 23.9
    path = tmp_path / "new.zip"
    path.write_bytes(bytes(data))
    store = tmp_path / "store"
    code = main(["ingest", "--no-flow", "--store", str(store), str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith("arpad: error: ") and "new.zip" in line, err
    assert not store.exists() or not list(store.rglob("*.parquet"))


def test_a_file_name_that_is_not_utf8_is_refused_in_one_line(tmp_path, capsys):
    """Found by hand while choosing hostile names for the generator: a name whose bytes are not UTF-8
    (``b"\\xff\\xfe.csv"``, as a Latin-1 or Windows machine writes "ÿþ.csv") reached the
    manifest lookup as a str holding surrogate escapes, which Arrow cannot compare
    (``TypeError: Got unexpected argument type <class 'str'>``): a traceback and exit 1.
    It is refused before anything is read, naming the file, as the CLI and the API."""
    if os.name != "posix":
        pytest.skip("byte file names are a POSIX matter")  # pragma: no cover
    name = os.fsdecode(b"\xff\xfe.csv")
    path = tmp_path / name
    path.write_bytes(CANONICAL_CSV)
    store = tmp_path / "store"
    code = main(["ingest", "--no-flow", "--store", str(store), str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith("arpad: error: ") and "not valid UTF-8" in line, err
    assert "\\xff\\xfe.csv" in line  # its bytes shown, so the line prints anywhere
    assert not store.exists() or not list(store.rglob("*.parquet"))
    import arpad

    with pytest.raises(InputError, match="not valid UTF-8"):
        arpad.Store(store).ingest([path])
    # the same bytes under a UTF-8 name are stored
    good = tmp_path / "good.csv"
    good.write_bytes(CANONICAL_CSV)
    assert main(["ingest", "--no-flow", "--store", str(store), str(good)]) == 0


def test_dates_past_the_calendar_in_any_column_are_their_text_not_a_panic(tmp_path, capsys):
    """Found by the Parquet generator (``test_one_hostile_value_in_a_parquet_file``): a
    date or timestamp outside the years 1..9999 in a column other than ``date`` (a
    ``game_id``, an id, a rating written as a date by mistake) made polars panic while
    reading the column as text (``PanicException: invalid or out-of-range datetime``): a
    traceback and exit 1, through the CLI and the API. Such a value is now the text
    ``<value out of range: N>``, N the number the file stores, as the ``date`` column
    already read it, and the row is validated as that text. (A date64 is stored in
    Parquet as days: pyarrow writes 2**62 ms as the day count 1836388031, wrapped to 32
    bits, and that is the number the file holds.)"""
    n = KAGGLE_TABLE.num_rows
    big = 2**62
    table = KAGGLE_TABLE.append_column("game_id", pa.array([2**31 - 1] + [None] * (n - 1), pa.int32()).cast(pa.date32()))  # fmt: skip
    table = table.append_column("event_id", pa.array([None, big] + [None] * (n - 2), pa.timestamp("ms")))  # fmt: skip
    table = table.append_column("white_rating", pa.array([None] * 2 + [big] + [None] * (n - 3), pa.date64()))  # fmt: skip
    table = table.append_column("date", pa.array([None] * 3 + [big] + [None] * (n - 4), pa.date64()))  # fmt: skip
    path = tmp_path / "far.parquet"
    pq.write_table(table, path)
    store = tmp_path / "store"
    code = main(["ingest", "--no-flow", "--store", str(store), str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    (entry,) = _manifest(store)
    assert (entry["rows"], entry["accepted"], entry["quarantined"]) == (n, n - 2, 2)
    quarantined = {q["line"]: (q["reason"], q["detail"]) for q in quarantined_rows(store, entry["batch"])}  # fmt: skip
    days = pq.read_table(path).column("date").cast(pa.int32())[3].as_py()  # as written
    assert days == 1836388031
    assert quarantined == {
        3: ("bad_rating", f"white_rating <value out of range: {days}> is not a rating in 0..3500"),
        4: (
            "bad_date",
            f"date <value out of range: {days}> is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY)",
        ),
    }
    games = {
        int(r["source"].rsplit(":", 1)[1]): r
        for f in Store(store).game_files()
        for r in pq.read_table(f).to_pylist()
    }
    assert games[1]["game_id"] == "<value out of range: 2147483647>"
    assert games[2]["event_id"] == f"<value out of range: {big}>"
    stored = stored_rows(store, entry["batch"])
    assert {row: stored[row] for row in stored} == {
        row: want for row, want in KAGGLE_ROWS.items() if row not in (3, 4)
    }
    import arpad

    report = arpad.Store(tmp_path / "api").ingest([path])
    assert [(f.accepted, f.quarantined) for f in report.files] == [(n - 2, 2)]
