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


def test_digest_kernels_load_behind_for_a_large_file_only(tmp_path, monkeypatch):
    import threading

    import pyarrow.parquet as pq

    from arpad.pipeline import stream_ingest
    from arpad.pipeline.ingest import ingest_file
    from arpad.pipeline.store import Store
    from tests.test_stream_ingest import _content, _games, _write

    calls = []
    real = stream_ingest.warm_up

    def recorded():
        calls.append(threading.current_thread().name)
        real()

    monkeypatch.setattr(stream_ingest, "warm_up", recorded)
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "g.parquet", _games(), row_group_size=50)
    rows = pq.ParquetFile(path).metadata.num_rows
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", 7)
    ingest_file(Store(tmp_path / "small"), path)
    assert calls == []  # fewer rows than COMPILED_FROM: no kernel load
    monkeypatch.setattr(stream_ingest, "COMPILED_FROM", rows)
    ingest_file(Store(tmp_path / "large"), path)
    assert len(calls) == 1 and calls[0].startswith("arpad-ingest-write")
    assert _content(tmp_path / "large") == _content(tmp_path / "small")
    monkeypatch.setenv("ARPAD_WRITE_BEHIND", "0")  # nothing to overlap: no warm-up
    ingest_file(Store(tmp_path / "inline"), path)
    assert len(calls) == 1
    assert _content(tmp_path / "inline") == _content(tmp_path / "small")


def test_partitions_keep_statistics_but_for_the_player_ids(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from arpad.pipeline import stream_ingest
    from arpad.pipeline.ingest import ingest_file
    from arpad.pipeline.store import Store
    from tests.test_stream_ingest import _games, _write

    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "g.parquet", _games(), row_group_size=50)
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", 7)
    ingest_file(Store(tmp_path / "s"), path)
    files = sorted((tmp_path / "s" / "games").rglob("*.parquet"))
    assert files
    for f in files:
        meta = pq.ParquetFile(f).metadata
        names = meta.schema.to_arrow_schema().names
        for g in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                column = meta.row_group(g).column(c)
                has = column.is_stats_set
                assert has == (names[c] not in ("white_id", "black_id")), names[c]


def test_registering_the_readers_loads_no_numba():
    """The PGN reader's compiled scan loads with the first PGN file, not with every
    command that imports the readers (start-up of a Parquet or CSV ingest)."""
    import subprocess
    import sys

    code = (
        "import sys, arpad.pipeline.readers as r; "
        "assert 'pgn' in r.READERS; print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
