"""Kernels compiled ahead of time (kernels/aot.py, docs/developing.md "Kernels ahead of
time"): a rating process runs without importing Numba, its ratings are bit for bit the
JIT's for every system, a call whose argument types are not exactly an export's goes to
the JIT (never to compiled code that would read its memory wrongly), and a module built
from other sources is not used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from arpad.kernels import aot, config, csr
from arpad.pipeline.systems import system_names
from tests.test_cli_attack import plain_csv

ARPAD = str(Path(sys.executable).with_name("arpad"))


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "NUMBA_DISABLE_JIT")}
    return {**env, "ARPAD_NO_FLOW": "1", **extra}


@pytest.fixture(scope="module")
def built() -> dict:
    """The ahead-of-time module, current (``make`` builds it; built here when not)."""
    subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.aot"], check=True, env=_env(), capture_output=True
    )
    stamp = json.loads(aot.STAMP.read_text())
    assert stamp["digest"] == aot.source_digest(), "the ahead-of-time build failed"
    return stamp


@pytest.fixture()
def store(tmp_path) -> Path:
    games = plain_csv(tmp_path / "g.csv", 300)
    ids = sorted({x for line in games.read_text().splitlines()[1:] for x in line.split(",")[:2]})
    players = tmp_path / "p.csv"
    players.write_text(
        "player_id,rating,rated_games\n"
        + "".join(f"{p},{1500 + 37 * i % 700},{i % 40}\n" for i, p in enumerate(ids[::2]))
    )
    root = tmp_path / "S"
    cmd = [ARPAD, "ingest", str(games), "--players", str(players), "--store", str(root)]
    subprocess.run(cmd, check=True, capture_output=True, env=_env())
    return root


def _ratings(root: Path, system: str) -> dict[str, list]:
    out = {}
    for f in sorted((root / "ratings" / f"system={system}").rglob("*.parquet")):
        table = pq.read_table(f)
        keep = [c for c in table.column_names if c != "run_id"]  # a new id each run
        out[str(f.relative_to(root))] = table.select(keep).to_pylist()
    return out


def test_every_system_rates_bit_for_bit_as_under_the_jit(built, store):
    """Each system's whole run (every export it calls, with real arguments) gives the
    ratings files of the JIT, value for value."""
    assert len(built["exports"]) >= 10
    for system in system_names():
        runs = {}
        for mode in ("1", "0"):
            proc = subprocess.run(
                [ARPAD, "rate", "--system", system, "--store", str(store), "--full"],
                capture_output=True,
                text=True,
                env=_env(ARPAD_AOT=mode),
            )
            assert proc.returncode == 0, proc.stderr
            runs[mode] = _ratings(store, system)
        assert runs["1"], system
        assert runs["1"] == runs["0"], system


def test_a_rating_process_never_imports_numba(built, store):
    """``arpad rate`` of the systems whose kernels are all exported: no Numba module is
    imported (``python -X importtime`` lists every import of the process); with
    ``ARPAD_AOT=0`` the same command imports it."""
    for system in ("elo", "fide", "glicko2"):
        for mode, expect in (("1", False), ("0", True)):
            proc = subprocess.run(
                [sys.executable, "-X", "importtime", ARPAD, "rate", "--system", system,
                 "--store", str(store), "--full"],
                capture_output=True, text=True, env=_env(ARPAD_AOT=mode),
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            # (the module's own line, at any depth: a thread may import it inside another)
            numba = [
                line
                for line in proc.stderr.splitlines()
                if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == "numba"
            ]
            assert bool(numba) is expect, (system, mode)


def _naive_csr(white, black, score, n):
    rows = [[] for _ in range(n)]
    for g, (w, b, s) in enumerate(zip(white, black, score)):
        rows[w].append((b, s, True, g))
        rows[b].append((w, 1.0 - s, False, g))
    offsets = np.cumsum([0] + [len(r) for r in rows])
    flat = [e for r in rows for e in r]
    return offsets, [e[0] for e in flat], [e[1] for e in flat], [e[2] for e in flat]


def test_only_exact_argument_types_reach_compiled_code(built):
    """The CSR kernel's export takes int32 player arrays: int32 arrays go there, int64,
    strided or read-only ones (and a float count) to the JIT; every call gives the naive
    grouping's answer (a wrong type sent to the export would read memory wrongly)."""
    rng = np.random.default_rng(7)
    white = rng.integers(0, 50, 400).astype(np.int32)
    black = (white + 1 + rng.integers(0, 49, 400).astype(np.int32)) % 50
    score = rng.choice([0.0, 0.5, 1.0], 400)
    offsets, opponent, own, is_white = _naive_csr(white, black, score, 50)
    kernel = csr._group_by_player
    exports = aot.exports_of(kernel)
    readonly = white.copy()
    readonly.flags.writeable = False
    calls = {
        "int32": (white, black, score, np.int64(50)),
        "int64": (white.astype(np.int64), black.astype(np.int64), score, np.int64(50)),
        "strided": (np.repeat(white, 2)[::2], black, score, np.int64(50)),
        "read-only": (readonly, black, score, np.int64(50)),
        "Python int": (white, black, score, 50),
    }
    if aot.enabled():
        assert set(exports) == {aot.argument_key(calls["int32"])}
        assert aot.argument_key(calls["Python int"]) in exports  # Numba's typeof: int64
        for name in ("int64", "strided", "read-only"):
            assert aot.argument_key(calls[name]) not in exports, name
    else:  # NUMBA_DISABLE_JIT=1 (or ARPAD_AOT=0): the kernel bodies run as Python
        assert exports == {}
    for name, args in calls.items():
        got = kernel(*args)
        np.testing.assert_array_equal(got[0], offsets, err_msg=name)
        np.testing.assert_array_equal(got[1], opponent, err_msg=name)
        np.testing.assert_array_equal(got[2], own, err_msg=name)
        np.testing.assert_array_equal(got[3], is_white, err_msg=name)


def test_argument_keys_follow_numbas_typeof():
    import numba
    from numba.core import types

    samples = [
        np.zeros(3),
        np.zeros((2, 3), dtype=np.int32),
        np.zeros((2, 3), order="F"),
        np.zeros(6)[::2],
        np.zeros(3, dtype=np.bool_),
        1.5,
        7,
        True,
        np.int32(3),
        np.float32(2.5),
    ]
    readonly = np.zeros(4, dtype=np.uint32)
    readonly.flags.writeable = False
    samples.append(readonly)
    for value in samples:
        typ = numba.typeof(value)
        if isinstance(typ, types.Literal):
            typ = typ.literal_type
        assert aot.argument_key((value,)) == (aot._type_key(typ),), value
    assert aot.argument_key(("text",)) is None
    assert aot.argument_key((np.array(["a"], dtype=object),)) is None
    assert aot.argument_key(((1, 2),)) is None


@pytest.mark.once  # (the second pass runs with NUMBA_DISABLE_JIT=1: no compiled module)
def test_compiled_exports_release_the_gil(built):
    """A compiled export runs without the GIL, as the JIT's ``nogil`` kernels do: the
    engine's performance column runs on a thread beside the engine's own kernels and
    the writer (docs/developing.md "Kernels ahead of time"). While a worker thread is
    inside a long CSR call, this thread keeps running Python; an export holding the
    GIL would stop it for the whole call (no Python runs in between)."""
    import threading
    import time

    assert aot.enabled(), "ARPAD_AOT=0 or NUMBA_DISABLE_JIT=1: no compiled module to check"
    rng = np.random.default_rng(3)
    n, g = 100_000, 3_000_000
    white = rng.integers(0, n, g).astype(np.int32)
    black = rng.integers(0, n, g).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], g)
    args = (white, black, score, np.int64(n))
    assert aot.argument_key(args) in aot.exports_of(csr._group_by_player)
    csr._group_by_player(*args)  # loaded
    inside = threading.Event()
    done = threading.Event()
    span = []

    def worker():
        inside.set()
        t0 = time.perf_counter()
        for _ in range(3):
            csr._group_by_player(*args)
        span.append(time.perf_counter() - t0)
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait()
    beats = []
    while not done.is_set():
        beats.append(time.perf_counter())
    thread.join()
    gaps = np.diff(beats) if len(beats) > 1 else np.array([span[0]])
    # Held, the longest gap is a whole call (a third of the span); released, this thread
    # only waits for the interpreter's switch interval (5 ms) and the scheduler.
    assert gaps.max() < span[0] / 6, (gaps.max(), span[0])


def test_a_module_built_from_other_sources_is_not_used(built, tmp_path, monkeypatch):
    stamp = dict(built, digest="0" * 64)
    fake = tmp_path / "stamp.json"
    fake.write_text(json.dumps(stamp))
    monkeypatch.setattr(aot, "STAMP", fake)
    monkeypatch.setattr(aot, "_loaded", None)
    assert aot._load() == {}
    monkeypatch.setattr(aot, "STAMP", tmp_path / "missing.json")
    monkeypatch.setattr(aot, "_loaded", None)
    assert aot._load() == {}


def test_aot_off_by_environment(monkeypatch):
    monkeypatch.setenv("ARPAD_AOT", "0")
    assert not aot.enabled()
    monkeypatch.delenv("ARPAD_AOT")
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert not aot.enabled() and not config.jit_enabled()
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "0")
    assert config.jit_enabled()
