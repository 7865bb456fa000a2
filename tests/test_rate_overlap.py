"""The rate path's overlap on two cores (docs/store.md "Write-behind" and "Read-ahead"):
the next period's games read and grouped on a read-ahead thread, the performance column
computed on the write-behind thread. Same files as the engine's thread doing everything
in order, and the same tables as the in-memory walk (``engine.rate_in_memory``, which
calls ``fill_performance`` inline after each step)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from arpad.pipeline import engine
from arpad.pipeline.performance import fill_performance, performance_job
from arpad.pipeline.store import Store
from arpad.pipeline.synthetic import SyntheticSpec
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import PeriodGames, Report
from tests.conftest import rating_files, synthetic_stores

SPEC = SyntheticSpec(players=300, periods=8, games_per_period=700, seed=23)
# elo and glicko2: the logistic true performance; fide: table 8.1.1; ecf fills its own
# column (no job); uscf reads event ids.
SYSTEMS = ["elo", "glicko2", "fide", "ecf", "uscf"]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    return synthetic_stores(tmp_path_factory, SPEC, ("overlapped", "in_order"))


@pytest.mark.parametrize("system", SYSTEMS)
def test_overlapped_run_gives_the_files_of_a_run_in_order(stores, system, monkeypatch):
    results = {}
    for name, flag in (("overlapped", "1"), ("in_order", "0")):
        monkeypatch.setenv("ARPAD_WRITE_BEHIND", flag)
        monkeypatch.setenv("ARPAD_READ_AHEAD", flag)
        store = Store(stores[name])
        summary = engine.rate(store, system, checkpoint_every=3, refresh_catalog=False)
        # the stored periods, then any the system walks without games to publish what
        # it holds (ECF: the close of the last cycle, docs/legacy-systems.md)
        sys_ = get_system(system)
        walked = engine.run_periods(
            store, sys_, "standard", engine.rules_picker(sys_, "standard", None, None)
        )
        assert summary.periods == walked
        assert walked[: SPEC.periods] == store.periods("standard")
        results[name] = rating_files(store, system)
    assert len(results["overlapped"]) == len(walked)
    assert results["overlapped"] == results["in_order"]
    # No thread of the run is left behind.
    assert not [
        t for t in threading.enumerate() if t.name.startswith(("arpad-read", "arpad-write"))
    ]


@pytest.mark.parametrize("system", ["elo", "glicko2"])  # systems seeded by no observations
def test_stored_ratings_equal_the_in_memory_walk(stores, system, monkeypatch):
    """An independent path: the in-memory walk fills the performance column inline."""
    monkeypatch.setenv("ARPAD_WRITE_BEHIND", "1")
    monkeypatch.setenv("ARPAD_READ_AHEAD", "1")
    store = Store(stores["overlapped"])
    engine.rate(store, system, refresh_catalog=False)
    info = engine.player_info(store.read_players())
    from arpad.pipeline import observations

    info.rating = observations.undated_ratings(store, info.player_id, info.rating)
    ids = engine.id_array(info.player_id)
    dense_of_key = None
    if store.keys_path.exists():
        from arpad.pipeline import keys

        dense_of_key = keys.dense_of_keys(keys.read_keys(store.keys_path), ids, None)
    periods = []
    for period in store.periods("standard"):
        files = [str(f) for f in store.game_files("standard", period)]
        periods.append((period, *engine.load_period_games(files, ids, None, dense_of_key, True)))
    assert not get_system(system).seeds_from_observations
    memory = engine.rate_in_memory(system, info, periods)
    stored = rating_files(store, system)
    performance_seen = 0
    for period, table in memory.items():
        expected = table.drop_columns(["run_id"]).to_pylist()
        got = [{k: row[k] for k in expected[0]} for row in stored[period]]
        assert got == expected
        performance_seen += sum(r["performance"] is not None for r in got)
    assert performance_seen > 0


def _status(n):
    return np.zeros(n, dtype=np.int8)


def test_performance_job_reads_the_ratings_of_its_period():
    """The job copies ``rating_before`` when it is made: a system updating its arrays in
    place in the next step does not change the column (it runs later, on another thread)."""
    rng = np.random.default_rng(5)
    n, g = 50, 400
    white = rng.integers(0, n, g).astype(np.int32)
    black = (white + 1 + rng.integers(0, n - 1, g).astype(np.int32)) % n
    score = rng.choice([0.0, 0.5, 1.0], g)
    games = PeriodGames.build(202501, white, black, score, n)
    before = rng.normal(1600, 200, n)
    system = get_system("elo")
    inline = fill_performance(
        system, Report(columns={"rating_before": before.copy()}, status=_status(n)), games
    )
    report = Report(columns={"rating_before": before}, status=_status(n))
    job = performance_job(system, report, games)
    before += 500.0  # the next step, in place
    assert np.array_equal(job(), inline.columns["performance"], equal_nan=True)
    assert np.isfinite(inline.columns["performance"]).sum() > n // 2


def test_performance_job_is_none_when_the_system_filled_the_column():
    games = PeriodGames.build(
        202501, np.array([0], np.int32), np.array([1], np.int32), np.array([1.0]), 2
    )
    system = get_system("elo")
    columns = {"rating_before": np.zeros(2), "performance": np.array([1.0, 2.0])}
    assert performance_job(system, Report(columns=columns, status=_status(2)), games) is None
    no_before = Report(columns={}, status=_status(2))
    assert performance_job(system, no_before, games) is None


def test_read_ahead_hands_over_the_period_asked_for_and_raises_its_errors():
    calls = []

    def load(period, previous):
        calls.append((period, previous, threading.current_thread().name))
        if period == 3:
            raise ValueError("bad file of period 3")
        return (period, previous)

    reader = engine.ReadAhead(load, enabled=True)
    try:
        assert reader.take(1, None, 2) == (1, None)  # nothing ahead: read here
        assert calls[0][2] == threading.current_thread().name
        assert reader.take(2, 1, 3) == (2, 1)  # read ahead on the reader thread
        assert calls[1][2].startswith("arpad-read")
        with pytest.raises(ValueError, match="period 3"):
            reader.take(3, 2, None)
        # A period other than the one read ahead is read here (the ahead one is dropped).
        reader.start(5, 4)
        assert reader.take(6, 5, None) == (6, 5)
    finally:
        reader.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("arpad-read")]


def test_read_ahead_disabled_reads_on_the_calling_thread():
    names = []
    reader = engine.ReadAhead(
        lambda p, q: names.append(threading.current_thread().name), enabled=False
    )
    reader.take(1, None, 2)
    reader.take(2, 1, None)
    reader.close()
    assert names == [threading.current_thread().name] * 2
