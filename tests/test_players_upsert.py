"""The players upsert of an ingest (pipeline/ingest.py ``_merge_players``) merges only
the stored players the file names (docs/ingest.md "Many files"). Reference: the
naive upsert it replaced — every stored row and every incoming row grouped by
player, the latest non-null value of each column kept, and "changed" when a stored
player's starting state differs afterwards — on hand-made and generated tables."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.pipeline import schemas
from arpad.pipeline.ingest import STATE_FIELDS, _merge_players
from arpad.pipeline.store import Store


def naive_merge(existing: pa.Table, incoming: pa.Table) -> tuple[pl.DataFrame, bool]:
    old = pl.from_arrow(existing)
    new = pl.from_arrow(schemas.conform(incoming, schemas.PLAYERS))
    both = pl.concat([old, new], how="vertical_relaxed")
    merged = both.group_by("player_id", maintain_order=True).agg(
        [pl.col(c).drop_nulls().last() for c in both.columns if c != "player_id"]
    )
    changed = False
    if old.height:
        before = old.select("player_id", *STATE_FIELDS).sort("player_id")
        after = (
            merged.join(before.select("player_id"), on="player_id", how="semi")
            .select("player_id", *STATE_FIELDS)
            .sort("player_id")
        )
        changed = not before.equals(after)
    return merged.sort("player_id"), changed


def players(rows: list[dict]) -> pa.Table:
    if not rows:
        return schemas.empty(schemas.PLAYERS)
    return schemas.conform(pa.Table.from_pylist(rows), schemas.PLAYERS)


def check(tmp_path, existing: list[dict], incoming: list[dict]) -> tuple[int, bool]:
    store = Store(tmp_path / "s")
    store.root.mkdir(parents=True, exist_ok=True)
    store.players_path.parent.mkdir(parents=True, exist_ok=True)
    if existing:
        store.write_players(players(existing).sort_by("player_id"))
    before = store.read_players()
    want, want_changed = naive_merge(before, players(incoming))
    result = _merge_players(store, players(incoming))
    got = pl.from_arrow(store.read_players())
    assert got.equals(pl.from_arrow(schemas.conform(want.to_arrow(), schemas.PLAYERS)))
    assert result.changed == want_changed
    assert result.added == want.height - before.num_rows
    return result.added, result.changed


def test_untouched_players_are_kept_and_named_ones_merged(tmp_path):
    existing = [
        {"player_id": "a", "name": "A", "rating": 2000.0, "federation": "ENG"},
        {"player_id": "b", "name": "B", "rating": 1900.0},
        {"player_id": "c", "name": "C", "rating": None, "title": "FM"},
    ]
    incoming = [
        {"player_id": "b", "name": None, "rating": 1950.0, "federation": "SCO"},
        {"player_id": "d", "name": "D"},
        {"player_id": "d", "name": None, "rating": 1500.0},  # twice in the file
    ]
    added, changed = check(tmp_path, existing, incoming)
    assert (added, changed) == (1, True)
    got = pl.from_arrow(Store(tmp_path / "s").read_players())
    b = got.filter(pl.col("player_id") == "b").row(0, named=True)
    assert (b["name"], b["rating"], b["federation"]) == ("B", 1950.0, "SCO")
    d = got.filter(pl.col("player_id") == "d").row(0, named=True)
    assert (d["name"], d["rating"]) == ("D", 1500.0)
    a = got.filter(pl.col("player_id") == "a").row(0, named=True)
    assert (a["name"], a["rating"], a["federation"]) == ("A", 2000.0, "ENG")


def test_a_file_of_new_players_only_changes_nothing_stored(tmp_path):
    existing = [{"player_id": "a", "rating": 2000.0}]
    assert check(tmp_path, existing, [{"player_id": "z", "rating": 1000.0}]) == (1, False)


def test_a_file_repeating_the_stored_state_changes_nothing(tmp_path):
    existing = [{"player_id": "a", "rating": 2000.0, "rated_games": 30}]
    incoming = [{"player_id": "a", "rating": 2000.0, "name": "New name"}]
    assert check(tmp_path, existing, incoming) == (0, False)


def test_an_empty_store_with_a_player_twice(tmp_path):
    incoming = [{"player_id": "a", "rating": 2000.0}, {"player_id": "a", "rating": 2100.0}]
    assert check(tmp_path, [], incoming) == (1, False)


IDS = st.sampled_from([f"p{i}" for i in range(12)])
RATING = st.one_of(st.none(), st.sampled_from([1500.0, 1800.0, 2000.0]))
ROW = st.fixed_dictionaries(
    {
        "player_id": IDS,
        "name": st.one_of(st.none(), st.sampled_from(["X", "Y", "Zoë"])),
        "rating": RATING,
        "rated_games": st.one_of(st.none(), st.integers(0, 40)),
        "birth_date": st.one_of(st.none(), st.just(dt.date(1990, 1, 2))),
        "title": st.one_of(st.none(), st.sampled_from(["GM", "IM"])),
    }
)


@given(
    existing=st.lists(ROW, max_size=10, unique_by=lambda r: r["player_id"]),
    incoming=st.lists(ROW, max_size=10),
)
@settings(max_examples=150, deadline=None)
def test_generated_upserts_equal_the_naive_one(tmp_path_factory, existing, incoming):
    check(tmp_path_factory.mktemp("upsert"), existing, incoming)
