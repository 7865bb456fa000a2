"""Start-up of ``arpad rate`` (issue 15, docs/runners.md "Start-up"): the command line is
built without Numba, polars or DuckDB, and a run of one system imports only that system
and loads only the Numba kernels it calls (shared CSR grouping, its own step, the
performance column)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.test_cli_flow import small_store

ARPAD = str(Path(sys.executable).with_name("arpad"))


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "NUMBA_DISABLE_JIT")}
    return {**env, **extra}


def test_building_the_parser_imports_no_numba_polars_or_duckdb():
    code = (
        "import sys\n"
        "from arpad.pipeline.cli import build_parser\n"
        "build_parser()\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'numba', 'polars', 'duckdb', 'pandas', 'matplotlib', 'prefect', 'distributed'})\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def _store(tmp_path) -> Path:
    players, games = small_store(tmp_path)
    root = tmp_path / "S"
    subprocess.run(
        [ARPAD, "ingest", str(games), "--players", str(players), "--store", str(root)],
        check=True,
        capture_output=True,
        env=_env(),
    )
    return root


def test_rating_elo_imports_only_its_system_and_no_polars(tmp_path):
    root = _store(tmp_path)
    code = (
        "import sys\n"
        "from arpad.pipeline.engine import rate\n"
        "from arpad.pipeline.jobs import RateRequest\n"
        "from arpad.pipeline.store import Store\n"
        f"RateRequest(store={str(root)!r}, system='elo')\n"  # checks the system name
        f"summary = rate(Store({str(root)!r}), 'elo', refresh_catalog=False)\n"
        "assert summary.periods, summary\n"
        "systems = sorted(m for m in sys.modules if m.startswith('arpad.pipeline.systems.'))\n"
        "assert systems == ['arpad.pipeline.systems.base', 'arpad.pipeline.systems.elo'], systems\n"
        "assert 'polars' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def test_rate_loads_only_the_kernels_it_calls(tmp_path):
    """Under the JIT (``ARPAD_AOT=0``; with the ahead-of-time module, tests/test_aot.py,
    no Numba kernel is loaded at all)."""
    root = _store(tmp_path)
    for system, own in (("elo", "elo"), ("fide", "fide")):
        proc = subprocess.run(
            [ARPAD, "rate", "--system", system, "--store", str(root), "--full"],
            capture_output=True,
            text=True,
            env=_env(NUMBA_DEBUG_CACHE="1", ARPAD_AOT="0"),
        )
        assert proc.returncode == 0, proc.stderr
        files = re.findall(r"\[cache\] \w+ (?:loaded from|saved to) '([^']+)'", proc.stdout)
        modules = {Path(f).name.split(".")[0] for f in files}
        assert modules, proc.stdout
        # (strings: the run's key -> player lookup, pipeline/keys.py StringIndex)
        allowed = {"csr", own, "performance", "expected", "rounding", "strings"}
        assert modules <= allowed, modules


def _ratings_rows(root: Path) -> dict[str, list]:
    import pyarrow.parquet as pq

    out = {}
    for f in sorted((root / "ratings").rglob("*.parquet")):
        t = pq.read_table(f).drop_columns(["run_id"])
        out[str(f.relative_to(root))] = t.to_pylist()
    return out


def test_kernels_loaded_beside_the_run_change_no_rating(tmp_path):
    """The kernels' load on a thread beside the run's preparation (pipeline/warm.py
    ``beside``) gives the same ratings as a run that loads them on its own thread."""
    root = _store(tmp_path)
    results = {}
    for beside in ("1", "0"):
        for system in ("elo", "fide", "glicko2"):
            subprocess.run(
                [ARPAD, "rate", "--system", system, "--store", str(root), "--full"],
                check=True,
                capture_output=True,
                env=_env(ARPAD_LOAD_BESIDE=beside, ARPAD_NO_FLOW="1", ARPAD_AOT="0"),
            )
        results[beside] = _ratings_rows(root)
    assert results["1"] and results["1"] == results["0"]


def test_no_kernel_load_beside_without_jit_or_when_switched_off():
    """The load runs under the JIT; not without it, when switched off, or when the kernels
    are compiled ahead of time (kernels/aot.py: nothing to load)."""
    build = [sys.executable, "-m", "arpad.pipeline.aot"]
    subprocess.run(build, check=True, capture_output=True, env=_env())
    code = (
        "from arpad.pipeline import warm\n"
        "t = warm.beside(['elo'])\n"
        "print('none' if t is None else 'thread')\n"
        "t is None or t.join()\n"
    )
    outputs = {}
    for name, extra in {
        "jit": {"ARPAD_AOT": "0"},
        "off": {"ARPAD_LOAD_BESIDE": "0", "ARPAD_AOT": "0"},
        "nojit": {"NUMBA_DISABLE_JIT": "1"},
        "aot": {},
    }.items():
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=_env(**extra)
        )
        assert proc.returncode == 0, proc.stderr
        outputs[name] = proc.stdout.strip()
    assert outputs == {"jit": "thread", "off": "none", "nojit": "none", "aot": "none"}


def test_the_rate_job_of_a_seeding_system_imports_no_polars(tmp_path):
    """The rate job's check for stated ratings that stop a correction (jobs.rate,
    pipeline/stated_ratings.py) is imported only when the pool has a stale mark: that
    module imports polars, 0.11 s of every FIDE rate (round 10)."""
    root = _store(tmp_path)
    code = (
        "import sys\n"
        "from arpad.pipeline import jobs\n"
        f"summary = jobs.rate(jobs.RateRequest(store={str(root)!r}, system='fide'))\n"
        "assert summary.periods, summary\n"
        "assert 'polars' not in sys.modules\n"
        "assert 'arpad.pipeline.stated_ratings' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())
