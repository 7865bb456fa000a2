"""Write-behind (docs/store.md "Write-behind"): each period's ratings file written on a
background thread while the next period computes gives the same files as writing on
the engine's thread, never writes a period's ratings after a later step changed them,
and a failed write fails the run with nothing left running."""

from __future__ import annotations

import threading

import pytest

from arpad.pipeline import engine
from arpad.pipeline import store as store_module
from arpad.pipeline.store import Store
from arpad.pipeline.synthetic import SyntheticSpec, generate
from tests.conftest import rating_files, synthetic_stores

SPEC = SyntheticSpec(players=400, periods=14, games_per_period=900, seed=11)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    return synthetic_stores(tmp_path_factory, SPEC, ("behind", "inline"))


@pytest.mark.parametrize("system", ["elo", "fide", "glicko2", "uscf"])
def test_write_behind_gives_the_files_written_inline(stores, system, monkeypatch):
    results = {}
    for name, flag in (("behind", "1"), ("inline", "0")):
        monkeypatch.setenv("ARPAD_WRITE_BEHIND", flag)
        store = Store(stores[name])
        engine.rate(store, system, checkpoint_every=5)
        results[name] = rating_files(store, system)
    assert len(results["behind"]) == SPEC.periods
    assert results["behind"] == results["inline"]
    # The files are each period's own ratings, not a later period's (the arrays a step
    # updates in place are copied before the write is handed over).
    periods = sorted(results["behind"])
    first, last = results["behind"][periods[0]], results["behind"][periods[-1]]
    assert [r["rating_after"] for r in first] != [r["rating_after"] for r in last]


def test_a_failed_write_fails_the_run_and_leaves_no_thread(tmp_path, monkeypatch):
    store = Store(tmp_path / "s")
    generate(store, SyntheticSpec(players=100, periods=6, games_per_period=200, seed=3))
    real = store_module.write_parquet_file
    calls = {"n": 0}

    def failing(table, path, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return real(table, path, *args, **kwargs)

    monkeypatch.setattr(store_module, "write_parquet_file", failing)
    monkeypatch.setenv("ARPAD_WRITE_BEHIND", "1")
    before = threading.active_count()
    with pytest.raises(OSError, match="No space left"):
        engine.rate(store, "elo")
    assert threading.active_count() == before
    assert not any(t.name.startswith("arpad-write") for t in threading.enumerate())


@pytest.mark.parametrize("depth", ["1", "2", "3"])
def test_no_later_period_is_written_after_a_failed_write(tmp_path, monkeypatch, depth):
    # Up to ``ARPAD_WRITE_DEPTH`` writes wait in line on the one write thread; once one
    # fails, the ones queued after it are dropped: no later period's ratings file stands
    # without the earlier one's (docs/store.md "Write-behind").
    store = Store(tmp_path / "s")
    generate(store, SyntheticSpec(players=100, periods=8, games_per_period=200, seed=5))
    periods = store.periods("standard")
    failing_period = periods[3]
    real = store_module.write_parquet_file

    def failing(table, path, *args, **kwargs):
        if "ratings" in str(path) and f"period={failing_period}" in str(path):
            raise OSError(28, "No space left on device")
        return real(table, path, *args, **kwargs)

    monkeypatch.setattr(store_module, "write_parquet_file", failing)
    monkeypatch.setenv("ARPAD_WRITE_BEHIND", "1")
    monkeypatch.setenv("ARPAD_WRITE_DEPTH", depth)
    with pytest.raises(OSError, match="No space left"):
        engine.rate(store, "elo")
    written = store.rating_periods("elo", "standard")
    assert written == periods[:3]
    assert not any(t.name.startswith("arpad-write") for t in threading.enumerate())


def test_a_deeper_queue_gives_the_same_files(stores, monkeypatch):
    results = {}
    for name, depth in (("behind", "3"), ("inline", "1")):
        monkeypatch.setenv("ARPAD_WRITE_BEHIND", "1")
        monkeypatch.setenv("ARPAD_WRITE_DEPTH", depth)
        store = Store(stores[name])
        engine.rate(store, "elo", checkpoint_every=5)
        results[name] = rating_files(store, "elo")
    assert len(results["behind"]) == SPEC.periods
    assert results["behind"] == results["inline"]
