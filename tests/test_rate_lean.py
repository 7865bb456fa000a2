"""Start-up of a console ``arpad rate`` whose store's catalog is current (docs/runners.md
"Start-up"): the process imports neither DuckDB (the catalog is not rebuilt, docs/store.md
"Catalog") nor cffi (hidden from the console rate and ingest, pipeline/lean.py), and
its ratings are those of a process that imports both."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq

from arpad.pipeline.store import Store
from tests.test_rate_startup import _store

CODE = (
    "import sys\n"
    "import arpad.pipeline.lean as lean\n"
    "lean.exit_now = lambda code: None  # return, to look at the modules (the console exits)\n"
    "from arpad.pipeline.cli import main\n"
    "sys.argv = ['arpad', 'rate', '--system', 'elo', '--store', {root!r}, '--no-flow', '--full']\n"
    "code = main()\n"
    "loaded = sorted({{m.split('.')[0] for m in sys.modules}} & {{'duckdb', 'cffi', 'pycparser'}})\n"
    "print('loaded', ','.join(loaded))\n"
    "sys.exit(code)\n"
)


def _ratings(root) -> list[dict]:
    store = Store(root)
    rows = []
    for period in store.rating_periods("elo", "standard"):
        path = store.rating_partition("elo", "standard", period) / "part-0.parquet"
        rows += pq.read_table(path).drop_columns(["run_id"]).to_pylist()
    return rows


def test_console_rate_with_a_current_catalog_imports_no_duckdb_or_cffi(tmp_path):
    root = _store(tmp_path)
    # Real kernels (as tests/test_rate_startup.py): Numba's typing is what imports cffi; the
    # JIT's (with the kernels compiled ahead of time no Numba is imported: tests/test_aot.py).
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "NUMBA_DISABLE_JIT")}
    env["ARPAD_AOT"] = "0"
    loaded = []
    for _ in range(2):  # the first run adds the ratings view's first file: a rebuild
        proc = subprocess.run(
            [sys.executable, "-c", CODE.format(root=str(root))],
            capture_output=True,
            text=True,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        loaded.append(proc.stdout.strip().splitlines()[-1])
        if len(loaded) == 1:
            first = _ratings(root)
    assert loaded[0] == "loaded duckdb"  # rebuilt: DuckDB, but still no cffi
    assert loaded[1] == "loaded"
    assert _ratings(root) == first and first
    # ``main(argv)`` inside another program hides nothing (pipeline/lean.py).
    code = (
        "import sys\n"
        "from arpad.pipeline.cli import main\n"
        f"assert main(['rate', '--system', 'elo', '--store', {str(root)!r}, '--full']) == 0\n"
        "assert 'cffi' in sys.modules\n"  # Numba's typing imported it: nothing hidden
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


def test_the_console_process_ends_at_once_with_its_output_flushed(tmp_path):
    """``lean.exit_now``: a lean console command ends with ``os._exit`` after flushing
    stdout and stderr (no module teardown); the code and every byte written survive."""
    import subprocess
    import sys

    code = (
        "import sys; from arpad.pipeline.lean import exit_now; "
        "print('x' * 100000); print('note', file=sys.stderr, end=''); exit_now(3)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 3
    assert proc.stdout == "x" * 100000 + "\n" and proc.stderr == "note"
    # the console `arpad rate` takes that exit: its summary line and exit status arrive
    from tests.conftest import write_csv

    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", ["2025-01-02,a,b,1-0"])
    arpad = str(__import__("pathlib").Path(sys.executable).with_name("arpad"))
    store = str(tmp_path / "s")
    assert (
        subprocess.run([arpad, "ingest", str(games), "--store", store, "--no-flow"]).returncode == 0
    )
    proc = subprocess.run(
        [arpad, "rate", "--system", "elo", "--store", store, "--no-flow"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("elo/standard: rated 1 period")


def test_every_in_process_console_command_keeps_pandas_out(tmp_path):
    """Reading commands too: ``arpad list`` imported pandas through pyarrow's conversion
    of a Python value (0.2-0.5 s); the console hides it for every command run in this
    process, not for ``serve``/``deploy``, a flow, Dask or a Prefect server."""
    from tests.conftest import write_csv

    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", ["2025-01-02,a,b,1-0"])
    store = str(tmp_path / "s")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    code = (
        "import sys\n"
        "import arpad.pipeline.lean as lean\n"
        "lean.exit_now = lambda code: None\n"
        "from arpad.pipeline.cli import main\n"
        "for argv in ("
        f"['ingest', {str(games)!r}, '--store', {store!r}],"
        f"['rate', '--system', 'elo', '--store', {store!r}],"
        f"['list', '--system', 'elo', '--store', {store!r}],"
        f"['history', '--system', 'elo', '--store', {store!r}, 'a']):\n"
        "    sys.argv = ['arpad', *argv]\n"
        "    assert main() == 0, argv\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
        "for argv in (['serve'], ['deploy'], ['list', '--workers', '2'], ['rate', '--flow'], []):\n"
        "    assert not lean.hide_unneeded_modules(argv), argv\n"
        "assert lean.hide_unneeded_modules(['list']) and lean.hide_unneeded_modules(['sql'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


def test_the_first_rate_of_a_store_rebuilds_the_catalog_ahead_and_ends_with_it_current(tmp_path):
    # catalog.RefreshAhead (docs/store.md "Catalog"): a store without ratings files gets
    # its catalog rebuilt on a thread once the run's first ratings file is written; the
    # run's own refresh then finds it current, and its views see every period's file.
    import threading

    from arpad.pipeline import catalog, engine

    root = _store(tmp_path)
    store = Store(root)
    assert catalog.rebuild_foreseen(store)
    threads = []
    start = catalog.RefreshAhead._start

    def spy(self):  # called after every ratings file: one thread at most per run
        start(self)
        if self._thread not in threads:
            threads.append(self._thread)

    try:
        catalog.RefreshAhead._start = spy
        summary = engine.rate(store, "elo")
    finally:
        catalog.RefreshAhead._start = start
    assert len(threads) == 1 and isinstance(threads[0], threading.Thread)
    assert not threads[0].is_alive()  # joined before the run returned
    assert not catalog.rebuild_foreseen(store)
    definition = catalog._definition(store, catalog._view_sqls(store))
    assert catalog._current(store, definition)
    with catalog.connect_readonly(store) as con:
        got = con.execute("SELECT count(DISTINCT period), count(*) FROM ratings").fetchone()
    rows = sum(
        pq.read_metadata(store.rating_partition("elo", "standard", p) / "part-0.parquet").num_rows
        for p in summary.periods
    )
    assert got == (len(summary.periods), rows) and rows > 0
    # A second run on the rated store: nothing foreseen, no thread.
    try:
        catalog.RefreshAhead._start = spy
        engine.rate(store, "elo")
    finally:
        catalog.RefreshAhead._start = start
    assert len(threads) == 1
    (root / "catalog.duckdb").unlink()  # no catalog: any run's end rebuilds it
    assert catalog.rebuild_foreseen(store)
