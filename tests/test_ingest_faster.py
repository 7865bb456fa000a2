"""Issue 15 item 1, the third round on the time of a streamed Parquet ingest
(docs/ingest.md "Large Parquet files"): each faster path against a naive reference
or the path it replaced."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa

from arpad.pipeline import keys


def _naive_keys(known: list[str], slices):
    """Keys row by row, White then Black, a Python dict: the reference."""
    key_of = {pid: k for k, pid in enumerate(known)}
    out = []
    for white, black in slices:
        wk, bk = [], []
        for w, b in zip(white, black):
            for pid, dest in ((w, wk), (b, bk)):
                if pid not in key_of:
                    key_of[pid] = len(key_of)
                dest.append(key_of[pid])
        out.append((wk, bk))
    return out, list(key_of)


def test_keys_by_one_lookup_equal_a_naive_dictionary(tmp_path):
    rng = random.Random(5)
    players = [f"P{i:04d}" for i in range(300)]
    for known_n in (0, 50, 300):
        known = players[:known_n]
        path = tmp_path / f"keys-{known_n}.parquet"
        if known:
            table = pa.table(
                {"player_id": known, "key": pa.array(np.arange(known_n, dtype=np.int32))},
                schema=keys.KEYS,
            )
            import pyarrow.parquet as pq

            pq.write_table(table, path)
        slices = []
        for size in (0, 1, 7, 40, 400, 3):
            white = [rng.choice(players) for _ in range(size)]
            black = [rng.choice([p for p in players if p != w]) for w in white]
            slices.append((white, black))
        expected, expected_ids = _naive_keys(known, slices)
        dictionary = keys.KeyDictionary(path)
        for (white, black), (wk, bk) in zip(slices, expected):
            got_w, got_b = dictionary.keys(
                pa.array(white, pa.string()), pa.array(black, pa.string())
            )
            assert got_w.type == pa.int32() and got_b.type == pa.int32()
            assert got_w.null_count == 0 and got_b.null_count == 0
            assert got_w.to_pylist() == wk
            assert got_b.to_pylist() == bk
        assert dictionary.ids.to_pylist() == expected_ids
        assert dictionary.grown == (len(expected_ids) > known_n)


def test_keys_of_an_empty_batch_leave_the_dictionary_unchanged(tmp_path):
    dictionary = keys.KeyDictionary(tmp_path / "none.parquet")
    w, b = dictionary.keys(pa.array([], pa.string()), pa.array([], pa.string()))
    assert len(w) == len(b) == 0 and not dictionary.grown and len(dictionary.ids) == 0
    dictionary.keys(pa.array(["a", "b"]), pa.array(["b", "c"]))
    assert dictionary.ids.to_pylist() == ["a", "b", "c"]
    dictionary.grown = False
    w, b = dictionary.keys(pa.chunked_array([["c"], ["a"]]), pa.chunked_array([["a"], ["b"]]))
    assert w.to_pylist() == [2, 0] and b.to_pylist() == [0, 1] and not dictionary.grown
