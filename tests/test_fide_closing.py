"""Two-monthly FIDE lists (2009-07 … 2012-06): a store whose last games fall in the first
month of a rating period gets that period's closing month walked without games, so the
change is published instead of being held for ever (docs/fide-history.md)."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest

from arpad.pipeline.engine import rate, rate_in_memory
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system
from tests.conftest import write_csv

PLAYERS = ["A,2050,40", "B,1980,40", "C,2110,40", "D,1905,40"]
GAMES = ["A,B,1-0", "C,D,1/2-1/2", "A,C,0-1", "B,D,1-0", "D,A,0-1"]


def _store(tmp_path, name: str, month: str) -> Store:
    store = Store(tmp_path / name)
    players = write_csv(tmp_path / f"{name}-p.csv", "player_id,rating,rated_games", PLAYERS)
    rows = [f"{month}-12,{g},ev1" for g in GAMES]
    games = write_csv(tmp_path / f"{name}-g.csv", "date,white_id,black_id,result,event_id", rows)
    ingest_files(store, [games], players=[players])
    return store


def _after(store: Store, period: int) -> dict[str, tuple[float, float]]:
    t = store.read_ratings("fide", "standard", period)
    return {
        pid: (after, change)
        for pid, after, change in zip(
            t.column("player_id").to_pylist(),
            t.column("rating_after").to_pylist(),
            t.column("change").to_pylist(),
        )
    }


def test_the_closing_month_publishes_the_first_months_games(tmp_path):
    # March 2010 (2009-07 rules, lists every two months): the period closes in April.
    march = _store(tmp_path, "march", "2010-03")
    rate(march, "fide")
    assert march.periods("standard") == [201003]
    assert march.rating_periods("fide", "standard") == [201003, 201004]
    held = _after(march, 201003)
    assert all(change is None for _, change in held.values())  # held for the list
    published = _after(march, 201004)
    # The same games played in the closing month itself give the same list.
    april = _store(tmp_path, "april", "2010-04")
    rate(april, "fide")
    assert april.rating_periods("fide", "standard") == [201004]
    assert published == _after(april, 201004)
    assert any(change for _, change in published.values())  # the games moved ratings
    assert published["A"][0] != pytest.approx(2050.0)
    # A second run walks the same periods and keeps the closing month's list.
    rate(march, "fide")
    assert march.rating_periods("fide", "standard") == [201003, 201004]
    assert _after(march, 201004) == published


def test_no_extra_period_when_the_last_month_closes_or_lists_are_monthly(tmp_path):
    fide = get_system("fide")
    two_monthly = fide.rules_for(201003, "standard")
    assert two_monthly.list_months == 2
    assert fide.closing_periods(201003, two_monthly) == [201004]
    assert fide.closing_periods(201004, two_monthly) == []
    assert fide.closing_periods(201011, two_monthly) == [201012]
    monthly = fide.rules_for(202403, "standard")
    assert monthly.list_months == 1 and fide.closing_periods(202403, monthly) == []
    assert fide.closing_periods(7, two_monthly) == []  # abstract periods: no calendar
    store = _store(tmp_path, "recent", "2024-03")
    rate(store, "fide")
    assert store.rating_periods("fide", "standard") == [202403]


def test_rate_in_memory_walks_the_closing_month_too(tmp_path):
    store = _store(tmp_path, "mem", "2010-03")
    from arpad.pipeline.engine import id_array, load_period_games, player_info

    info = player_info(store.read_players())
    files = [str(f) for f in store.game_files("standard", 201003)]
    white, black, score, event = load_period_games(files, id_array(info.player_id))
    out = rate_in_memory("fide", info, [(201003, white, black, score, event)])
    assert sorted(out) == [201003, 201004]
    rate(store, "fide")
    stored = store.read_ratings("fide", "standard", 201004)
    mine = out[201004]
    assert mine.column("player_id").equals(stored.column("player_id"))
    assert mine.column("rating_after").equals(stored.column("rating_after"))
    assert pc.max(pc.abs(mine.column("change"))).as_py() > 0
