"""The engine reads what the system needs (issue 15): a system whose ``uses_events`` is
False is rated without the games' event ids, with the same ratings; one that uses them
(FIDE) still sees every event."""

from __future__ import annotations

import numpy as np
import pytest

from arpad.pipeline import engine
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system, system_names
from tests.test_engine import synthetic_fide


def _store(tmp_path) -> Store:
    pfile, gfile, _, _ = synthetic_fide(tmp_path, seed=4, events=True)
    store = Store(tmp_path / "s")
    ingest_files(store, [gfile], players=[pfile])
    return store


def _ratings(store: Store, system: str) -> dict[int, list]:
    return {
        p: store.read_ratings(system, "standard", p).to_pylist()
        for p in store.rating_periods(system, "standard")
    }


@pytest.mark.parametrize("system", ["elo", "glicko2"])
def test_skipping_event_ids_changes_no_rating(tmp_path, monkeypatch, system):
    store = _store(tmp_path)
    sys_ = get_system(system)
    assert not sys_.uses_events
    engine.rate(store, system, refresh_catalog=False)
    skipped = _ratings(store, system)
    monkeypatch.setattr(type(sys_), "uses_events", True)
    engine.rate(store, system, refresh_catalog=False)
    read = _ratings(store, system)
    drop = {"run_id"}
    assert skipped.keys() == read.keys() and skipped
    for p in skipped:
        a = [{k: v for k, v in row.items() if k not in drop} for row in skipped[p]]
        b = [{k: v for k, v in row.items() if k not in drop} for row in read[p]]
        assert a == b


def test_event_ids_are_read_only_when_asked(tmp_path):
    store = _store(tmp_path)
    period = store.periods("standard")[0]
    files = [str(f) for f in store.game_files("standard", period)]
    ids = engine.id_array(engine.player_info(store.read_players()).player_id)
    *_, with_events = engine.load_period_games(files, ids)
    *_, without = engine.load_period_games(files, ids, read_events=False)
    assert (with_events >= 0).all() and len(np.unique(with_events)) == 3
    assert (without == -1).all() and without.size == with_events.size


def test_systems_that_read_events_say_so():
    # The event-level rules: FIDE (§8.3.1 once per event, §8.2.1 first event), USCF's
    # event layers, Harkness and Ingo (ratings per event).
    users = {name for name in system_names() if get_system(name).uses_events}
    assert users == {"fide", "uscf", "harkness", "ingo"}
