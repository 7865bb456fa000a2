"""Issue 15 item 1: ``keys.StringIndex`` (kernels/strings.py), the kept hash table that
looks player ids up against the key dictionary. Checked against a naive reference (a
Python dict of each string's first position) and against ``pyarrow.compute.index_in``,
whose result it replaces."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.kernels import strings
from arpad.pipeline import keys


def _naive(value_set: list, values: list) -> list[int]:
    first: dict = {}
    for i, v in enumerate(value_set):
        if v is not None:
            first.setdefault(v, i)
    return [first.get(v, -1) if v is not None else -1 for v in values]


# Short texts over a small alphabet (so that values repeat and collide in slots), with
# non-ASCII letters, the empty string and embedded NULs.
TEXT = st.text(alphabet=st.sampled_from(list("ab\x00é漢 ")), max_size=4)


@settings(max_examples=200, deadline=None)
@given(value_set=st.lists(TEXT, max_size=40), values=st.lists(TEXT, max_size=40))
def test_lookups_equal_a_dict_of_first_positions(value_set, values):
    index = keys.StringIndex(pa.array(value_set, pa.string()))
    found = index.index_in(pa.array(values, pa.string()))
    assert found.dtype == np.int32
    assert found.tolist() == _naive(value_set, values)
    assert index._table is not None  # the kept table answered, not index_in


@settings(max_examples=100, deadline=None)
@given(
    value_set=st.lists(st.one_of(st.none(), TEXT), max_size=20),
    values=st.lists(st.one_of(st.none(), TEXT), max_size=20),
)
def test_nulls_on_either_side_are_minus_one_or_their_position(value_set, values):
    """With nulls ``index_in`` itself answers; a null value is -1 (never found)."""
    index = keys.StringIndex(pa.array(value_set, pa.string()))
    found = index.index_in(pa.array(values, pa.string()))
    assert found.tolist() == _naive(value_set, values)


def test_sliced_chunked_large_and_dictionary_arrays_are_read_where_they_lie():
    ids = pa.array([f"id{i}" for i in range(1000)])
    index = keys.StringIndex(ids.slice(100, 500))  # offsets that do not start at 0
    values = pa.chunked_array([pa.array(["id100", "id599"]), pa.array(["id600", "id350", "x"])])
    assert index.index_in(values).tolist() == [0, 499, -1, 250, -1]
    assert index.index_in(pa.array(["id101"], pa.large_string())).tolist() == [1]
    encoded = pa.array(["id102", "id102", "id0"]).dictionary_encode()
    assert index.index_in(encoded).tolist() == [2, 2, -1]
    sliced = pa.array(["zz", "id103", "id104"]).slice(1)
    assert index.index_in(sliced).tolist() == [3, 4]


def test_large_sets_take_index_in_when_the_kernels_run_as_python(monkeypatch):
    """Under NUMBA_DISABLE_JIT the kernels are Python loops (~30 µs a string): past
    ``PYTHON_MAX`` strings either side goes to ``index_in``, with the same answers."""
    from arpad.kernels import config

    monkeypatch.setattr(config, "jit_enabled", lambda: False)
    big = pa.array([f"id{i}" for i in range(keys.PYTHON_MAX + 1)])
    assert keys.StringIndex(big)._table is None
    small = keys.StringIndex(pa.array(["id5", "id7"]))
    assert small._table is not None
    assert small.index_in(big).tolist()[:9] == [-1] * 5 + [0, -1, 1, -1]


def test_equals_index_in_on_many_ids():
    rng = np.random.default_rng(7)
    value_set = pa.array([f"P{int(i):07d}" for i in rng.integers(0, 50_000, 20_000)])
    values = pa.array([f"P{int(i):07d}" for i in rng.integers(0, 60_000, 100_000)])
    expected = pc.fill_null(pc.index_in(values, value_set=value_set), -1).to_numpy()
    assert np.array_equal(keys.StringIndex(value_set).index_in(values), expected)


@pytest.fixture
def colliding(monkeypatch):
    """Every string hashes alike: the set's table cannot be trusted (two different set
    strings share a hash), and a probe finds a different string of the same hash."""

    def same_hash(offsets, data):
        return np.zeros(offsets.shape[0] - 1, dtype=np.uint64)

    monkeypatch.setattr(strings, "_hashes", same_hash)


def test_a_hash_shared_by_two_set_strings_falls_back_to_index_in(colliding):
    index = keys.StringIndex(pa.array(["a", "b", "a"]))
    assert index._table is None
    assert index.index_in(pa.array(["b", "a", "c"])).tolist() == [1, 0, -1]


def test_a_probe_whose_hash_matches_another_string_is_looked_up_exactly(colliding):
    index = keys.StringIndex(pa.array(["a"]))  # one string: its table is sound
    assert index._table is not None
    # "b" hashes as "a" does: the table's answer (0) fails the byte check.
    assert index.index_in(pa.array(["b", "a"])).tolist() == [-1, 0]


def test_the_key_dictionary_grows_and_finds_its_new_ids(tmp_path):
    dictionary = keys.KeyDictionary(tmp_path / "keys.parquet")  # no file: empty
    w, b = dictionary.keys(pa.array(["a", "b"]), pa.array(["b", "c"]))
    assert (w.to_pylist(), b.to_pylist()) == ([0, 1], [1, 2])
    w, b = dictionary.keys(pa.array(["c", "d"]), pa.array(["a", "a"]))
    assert (w.to_pylist(), b.to_pylist()) == ([2, 3], [0, 0])
    w, b = dictionary.keys(pa.array(["d"]), pa.array(["b"]))  # all held: the kept table
    assert (w.to_pylist(), b.to_pylist()) == ([3], [1])
    assert dictionary.ids.to_pylist() == ["a", "b", "c", "d"]


# -- the game ids of earlier slices (stream_ingest.SeenIds, kernels/idset.py) -----------
def _first_lines_naive(earlier: dict, ids: list) -> dict:
    return {i: earlier[i] for i in ids if i in earlier}


@settings(max_examples=100, deadline=None)
@given(
    slices=st.lists(st.lists(st.text(alphabet="abc", max_size=3), max_size=30), max_size=6),
    expected=st.integers(0, 40),
)
def test_seen_ids_find_the_first_line_of_every_id_of_an_earlier_slice(slices, expected):
    """Each slice's ids looked up among the ids added from earlier slices (its first
    line each, the line counting on across slices), then the slice's new ids added, as
    validate_games does; equal to a dict of first lines."""
    import polars as pl

    from arpad.pipeline.stream_ingest import SeenIds

    seen = SeenIds(expected)
    earlier: dict = {}
    line = 1
    for ids in slices:
        got = seen.first_lines(pl.Series(ids, dtype=pl.String))
        assert dict(zip(got["_game_id"], got["_before"])) == _first_lines_naive(earlier, ids)
        assert got["_game_id"].n_unique() == got.height
        new = {}
        for offset, i in enumerate(ids):
            if i not in earlier and i not in new:
                new[i] = line + offset
        seen.add(pl.Series(list(new), dtype=pl.String), pl.Series(list(new.values())))
        earlier.update(new)
        line += len(ids)
    assert seen.count == len(earlier)


def test_seen_ids_grow_past_the_footers_count():
    import polars as pl

    from arpad.pipeline.stream_ingest import SeenIds

    seen = SeenIds(expected=10)  # a footer that says 10 rows
    for k in range(5):
        ids = pl.Series([f"g{k}-{i}" for i in range(1000)])
        assert seen.first_lines(ids).height == 0
        seen.add(ids, pl.Series(range(k * 1000 + 1, k * 1000 + 1001)))
    assert seen.count == 5000 and len(seen.first) >= 5000
    assert seen.indexed == 4000  # the last slice's ids wait for the next lookup
    got = seen.first_lines(pl.Series(["g0-0", "g4-999", "g9-0"]))
    assert dict(zip(got["_game_id"], got["_before"])) == {"g0-0": 1, "g4-999": 5000}
    assert (seen.slot != 0).sum() == 5000 and (seen.slot != 0).mean() <= 0.7
