"""Two costs of a Dask run that were not the units' (docs/runners.md "Dask start-up and
hand-out"): the client rebuilt the store's catalog after the last unit, alone
(``catalog.RefreshBeside`` now rebuilds it while the units run), and a worker whose
heartbeat met the closing scheduler printed a traceback after a run that went well
(``worker_signals.HeartbeatFilter``)."""

from __future__ import annotations

import logging
import shutil
import threading

import pytest

from arpad.pipeline import catalog, jobs
from arpad.pipeline.runner import in_process, local_cluster_kwargs
from arpad.pipeline.store import Store
from arpad.pipeline.synthetic import SyntheticSpec, generate
from arpad.pipeline.worker_signals import HeartbeatFilter, quiet_heartbeats

SPEC = SyntheticSpec(players=300, periods=3, games_per_period=600, seed=14)


def _current(store: Store) -> bool:
    return catalog._current(store, catalog._definition(store, catalog._view_sqls(store)))


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_a_failed_heartbeat_is_dropped_and_every_other_record_passes():
    logger = logging.getLogger("arpad.tests.heartbeat")
    lines = _Lines()
    logger.addHandler(lines)
    try:
        quiet_heartbeats(logger)
        quiet_heartbeats(logger)  # installed once
        assert sum(isinstance(f, HeartbeatFilter) for f in logger.filters) == 1
        try:
            raise OSError("Stream is closed")
        except OSError:
            logger.exception("Failed to communicate with scheduler during heartbeat.")
            logger.exception("Unexpected exception during heartbeat. Closing worker.")
        logger.error("Failed to communicate with scheduler: %s", "no route")
    finally:
        logger.removeHandler(lines)
    assert lines.lines == [
        "Unexpected exception during heartbeat. Closing worker.",
        "Failed to communicate with scheduler: no route",
    ]


@pytest.mark.once
def test_local_workers_carry_the_heartbeat_filter():
    from distributed import Client, LocalCluster

    def filtered() -> bool:
        worker_log = logging.getLogger("distributed.worker")
        return any(type(f).__name__ == "HeartbeatFilter" for f in worker_log.filters)

    with LocalCluster(**local_cluster_kwargs(2)) as cluster, Client(cluster) as client:
        assert set(client.run(filtered).values()) == {True}


def test_a_store_without_ratings_is_rebuilt_once_its_first_ratings_file_exists(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(jobs, "on_dask_worker", lambda: True)  # a worker's unit: no ahead
    store = Store(tmp_path / "s")
    generate(store, SPEC)
    catalog.refresh(store)
    assert catalog.rebuild_foreseen(store)
    calls = []
    real = catalog.refresh

    def counted(s, force=False):
        calls.append(threading.current_thread().name)
        return real(s, force)

    monkeypatch.setattr(catalog, "refresh", counted)
    with catalog.RefreshBeside(store):  # no ratings file written: nothing rebuilt
        pass
    assert calls == []
    with catalog.RefreshBeside(store) as beside:
        jobs.rate_periods(jobs.RateRequest(str(store.root), "elo", "standard"), None)
        beside._thread.join(timeout=30)  # it rebuilds as soon as the file is there
        assert calls == ["arpad-catalog"]
    assert _current(store)


def test_a_copied_store_is_rebuilt_at_once(tmp_path):
    store = Store(tmp_path / "s")
    generate(store, SPEC)
    jobs.rate_periods(jobs.RateRequest(str(store.root), "elo", "standard"), None)
    catalog.refresh(store)
    shutil.copytree(store.root, tmp_path / "copy")
    copy = Store(tmp_path / "copy")
    assert not _current(copy)  # the stamp names the original's file
    with catalog.RefreshBeside(copy):
        pass
    assert _current(copy)


@pytest.mark.once
def test_reconstruct_on_two_workers_rebuilds_the_catalog_beside_the_units(tmp_path, monkeypatch):
    store = Store(tmp_path / "s")
    generate(store, SPEC)
    local = Store(tmp_path / "local")
    generate(local, SPEC)
    calls = []
    real = catalog.refresh

    def counted(s, force=False):
        calls.append((threading.current_thread().name, _current(s)))
        return real(s, force)

    monkeypatch.setattr(catalog, "refresh", counted)
    request = jobs.ReconstructRequest(str(store.root), systems=["elo", "glicko"])
    with in_process(workers=2) as runner:
        jobs.reconstruct(request, runner)
    # the client's thread rebuilt it while the units ran; the job's own refresh after
    # them (the main thread) found it current
    assert calls[0][0] == "arpad-catalog"
    assert calls[-1] == ("MainThread", True)
    jobs.reconstruct(jobs.ReconstructRequest(str(local.root), systems=["elo", "glicko"]))
    for system in ("elo", "glicko"):
        for period in store.rating_periods(system, "standard"):
            assert period in local.rating_periods(system, "standard")
