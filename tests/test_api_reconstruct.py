"""``Store.reconstruct`` (docs/api.md "Several systems at once"): the API's way to rate
several systems side by side (issue 15's independent units). Its ratings equal one
``Store.rate`` per system and ``arpad reconstruct``'s, bit for bit, in process and on a
local Dask cluster; a list given to ``Store.rate`` names ``reconstruct``."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import arpad
from arpad.pipeline.cli import main
from tests.test_cli_attack import plain_csv

SYSTEMS = ["elo", "glicko2"]


def _ratings(store: arpad.Store, system: str) -> pl.DataFrame:
    keep = ["period", "player_id", "rating_after", "games"]
    return store.ratings(system).select(keep).sort("period", "player_id")


@pytest.fixture()
def games(tmp_path, monkeypatch):
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")
    return plain_csv(tmp_path / "k.csv", 300)


def _store(path, games) -> arpad.Store:
    store = arpad.Store(path)
    store.ingest(games)
    return store


def test_reconstruct_equals_one_rate_per_system_and_the_command(games, tmp_path, capsys):
    one_by_one = _store(tmp_path / "a", games)
    for system in SYSTEMS:
        one_by_one.rate(system)
    together = _store(tmp_path / "b", games)
    summaries = together.reconstruct(SYSTEMS)
    assert [(s.system, s.pool, s.skipped) for s in summaries] == [
        ("elo", "standard", None),
        ("glicko2", "standard", None),
    ]
    assert len(summaries[0].periods) > 10
    assert all(s.periods == summaries[0].periods for s in summaries)
    command = tmp_path / "c"
    _store(command, games)
    assert main(["reconstruct", "--systems", ",".join(SYSTEMS), "--store", str(command)]) == 0
    for system in SYSTEMS:
        expected = _ratings(one_by_one, system)
        assert expected.height > 100
        assert_frame_equal(_ratings(together, system), expected)
        assert_frame_equal(_ratings(arpad.Store(command), system), expected)


def test_one_name_and_skipped_systems(games, tmp_path):
    store = _store(tmp_path / "s", games)
    (elo,) = store.reconstruct("elo")
    assert elo.system == "elo" and elo.skipped is None
    # the Kaggle file has no published ratings: fide is skipped with its reason
    summaries = store.reconstruct(["elo", "fide"])
    assert summaries[1].system == "fide" and "published starting ratings" in summaries[1].skipped
    with pytest.raises(ValueError, match="nothing to reconstruct"):
        store.reconstruct(["fide"])


@pytest.mark.once
def test_reconstruct_on_two_dask_workers_equals_in_process(games, tmp_path):
    local = _store(tmp_path / "a", games)
    local.reconstruct(SYSTEMS)
    dask = _store(tmp_path / "b", games)
    summaries = dask.reconstruct(SYSTEMS, workers=2)
    assert [s.system for s in summaries] == SYSTEMS
    for system in SYSTEMS:
        assert_frame_equal(_ratings(dask, system), _ratings(local, system))


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        (dict(systems=[1]), TypeError, "systems: names are text"),
        (dict(systems=3), TypeError, "systems: a name or a list of names"),
        (dict(systems=[]), ValueError, "systems: give at least one name"),
        (dict(systems=["nope"]), ValueError, "unknown rating system 'nope'"),
        (dict(systems="elo", pools="blitz"), ValueError, "no games stored in pool 'blitz'"),
        (dict(systems="elo", kk=3), ValueError, "unknown rule field 'kk'"),
        (dict(systems="elo", workers=1.5), TypeError, "workers:"),
    ],
)
def test_bad_arguments_are_one_line(games, tmp_path, kwargs, error, text):
    store = _store(tmp_path / "s", games)
    with pytest.raises(error, match=text):
        store.reconstruct(**kwargs)


def test_a_list_given_to_rate_names_reconstruct(games, tmp_path):
    store = _store(tmp_path / "s", games)
    with pytest.raises(TypeError, match=r"store.reconstruct\(systems=\[...\]\)"):
        store.rate(SYSTEMS)


def test_reconstruct_of_a_path_with_no_store(tmp_path):
    with pytest.raises(FileNotFoundError, match="no store at"):
        arpad.Store(tmp_path / "typo").reconstruct("elo")


def test_a_rate_summary_reads_in_one_line():
    """A notebook shows a run's summary in one line: the periods as a span, each rule
    version once (100 periods printed 100 rule names before)."""
    from arpad.pipeline.engine import RateSummary

    summary = RateSummary(
        "elo",
        "standard",
        periods=list(range(1, 101)),
        games=65053,
        rows_written=354530,
        rules=["EloRules"] * 100,
    )
    text = repr(summary)
    assert "\n" not in text and len(text) < 200
    assert "periods=1..100 (100)" in text and "games=65,053" in text
    assert text.count("EloRules") == 1
    summary.skipped = "no games"
    assert "skipped='no games'" in repr(summary)
    assert summary.to_dict()["periods"] == list(range(1, 101))  # every field kept there


def test_reconstruct_reports_progress_per_period_of_each_unit(games, tmp_path):
    """``progress`` as ``Store.rate``'s: one call per rated period of each system/pool, in
    process; (done, total) count that unit's periods and the games add up to the store's."""
    store = _store(tmp_path / "s", games)
    calls = []
    summaries = store.reconstruct(SYSTEMS, progress=lambda *a: calls.append(a))
    periods = len(summaries[0].periods)
    assert len(calls) == periods * len(SYSTEMS)
    for unit in range(len(SYSTEMS)):
        part = calls[unit * periods : (unit + 1) * periods]
        assert [(d, t) for d, t, _ in part] == [(i, periods) for i in range(1, periods + 1)]
        assert sum(g for _, _, g in part) == summaries[unit].games
    with pytest.raises(TypeError, match="progress: a function"):
        store.reconstruct("elo", progress="yes")
