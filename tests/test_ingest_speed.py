"""Issue 15 item 1, the time side of a streamed Parquet ingest (docs/ingest.md "Large
Parquet files"): the faster paths give the same results as the paths they replace —
writes behind the next slice against writes inline and a one-piece ingest, the
compiled digest pass against a naive row hash, the all-accepted validation path
against the general one, the byte-level NUL check against a search per value, and
the shortcuts of the per-file steps against their full computation."""

from __future__ import annotations

import datetime as dt
import random
import threading

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import digest, identity, readers, stream_ingest
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.readers import InputError
from arpad.pipeline.store import Store
from arpad.pipeline.validate import validate_games
from tests.conftest import write_csv
from tests.test_stream_ingest import _content, _games, _naive_row_hash, _write


def _ingest(root, path, batch_rows, monkeypatch, writers=64, behind=True):
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", batch_rows)
    monkeypatch.setattr(stream_ingest, "MAX_OPEN_WRITERS", writers)
    monkeypatch.setenv("ARPAD_WRITE_BEHIND", "1" if behind else "0")
    return ingest_file(Store(root), path)


def _many_periods(n: int = 300, seed: int = 11) -> dict:
    """Games over twelve months in random order: every slice touches many partitions."""
    rng = random.Random(seed)
    players = [f"P{i:03d}" for i in range(40)]
    rows = {"game_id": [], "period": [], "white_id": [], "black_id": [], "score": []}
    for i in range(n):
        w, b = rng.sample(players, 2)
        rows["game_id"].append(f"g{i}")
        rows["period"].append(202500 + rng.randint(1, 12))
        rows["white_id"].append(w)
        rows["black_id"].append(b)
        rows["score"].append(rng.choice([0.0, 0.5, 1.0]))
    rows["score"][17] = 2.0  # one bad row
    return rows


def test_writes_behind_give_the_store_of_inline_writes_and_of_one_piece(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, rows in (("mixed", _games()), ("periods", _many_periods())):
        path = _write(tmp_path / f"{name}.parquet", rows, row_group_size=50)
        whole = _ingest(tmp_path / f"{name}-whole", path, 10**6, monkeypatch, behind=False)
        expected = _content(tmp_path / f"{name}-whole")
        # Slices of 7 or 40 rows; up to 64 or 2 writers open: with 2, a slice that
        # touches more partitions closes writers while its own writes are pending.
        for batch_rows, writers in ((7, 64), (40, 2), (7, 2)):
            for behind in (True, False):
                root = tmp_path / f"{name}-{batch_rows}-{writers}-{behind}"
                report = _ingest(root, path, batch_rows, monkeypatch, writers, behind)
                assert (report.rows, report.accepted) == (whole.rows, whole.accepted)
                assert _content(root) == expected, (name, batch_rows, writers, behind)


def test_a_failed_write_behind_fails_the_ingest_and_leaves_the_store_as_it_was(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "g.parquet", _many_periods())
    root = tmp_path / "s"
    first = write_csv(tmp_path / "first.csv", "period,white_id,black_id,score", ["202501,A,B,1"])
    ingest_file(Store(root), first)
    before = _content(root)
    calls = {"n": 0}
    real = pq.ParquetWriter.write_table

    def failing(self, table, *a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError("disk full")
        return real(self, table, *a, **k)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", failing)
    with pytest.raises(OSError, match="disk full"):
        _ingest(root, path, 40, monkeypatch)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", real)
    assert _content(root) == before
    assert not [t for t in threading.enumerate() if t.name.startswith("arpad-ingest")]


def _table(n: int, large: bool) -> pa.Table:
    rng = random.Random(4)
    text = pa.large_string() if large else pa.string()
    ids = [None if i % 5 == 0 else f"f.csv:{i + 1}" if i % 7 == 0 else f"g{i}é" for i in range(n)]
    return pa.table(
        {
            "game_id": pa.array([g or f"f.csv:{i + 1}" for i, g in enumerate(ids)], text),
            "date": pa.array(
                [None if i % 3 else dt.date(2025, 1, 1 + i % 28) for i in range(n)], pa.date32()
            ),
            "period": pa.array([202501 + i % 3 for i in range(n)], pa.int32()),
            "pool": pa.array([("standard", "rapid")[i % 2] for i in range(n)], text),
            "white_id": pa.array([f"W{rng.randrange(50)}" for _ in range(n)], text),
            "black_id": pa.array(["Ζ" * (i % 4) + "B" for i in range(n)], text),
            "score": pa.array([rng.choice([0.0, 0.5, 1.0]) for _ in range(n)], pa.float32()),
            "event_id": pa.array([None if i % 4 else f"e{i % 3}" for i in range(n)], text),
            "rated": [True] * n,
            "source": pa.array([f"f.csv:{i + 1}" for i in range(n)], text),
            "ingest_batch": ["b"] * n,
        }
    )


@pytest.mark.parametrize("large", [False, True])
def test_compiled_digest_pass_equals_a_naive_row_hash(monkeypatch, large):
    games = _table(60, large)
    monkeypatch.setattr(digest, "COMPILED_FROM", 1)
    got = digest.row_hashes(games)
    assert np.array_equal(got, digest.row_hashes_numpy(games))
    for row, h in zip(games.to_pylist(), got.tolist(), strict=True):
        own = None if row["game_id"] == row["source"] else row["game_id"].encode()
        date = None if row["date"] is None else (row["date"] - dt.date(1970, 1, 1)).days
        score = int(np.float64(row["score"]).view(np.int64))
        text = [row[c].encode() if row[c] is not None else None for c in digest.TEXT[:-1]]
        assert h == _naive_row_hash([row["period"], date, score, *text, own])
    sliced = _table(80, large).slice(20)  # offsets not starting at 0
    assert np.array_equal(digest.row_hashes(sliced), digest.row_hashes_numpy(sliced))
    # The digest of a file is the same whichever pass hashed its slices.
    monkeypatch.setattr(digest, "COMPILED_FROM", 10**9)
    assert digest.content_digest(games) == digest.content_digest(games.slice(0, 60))
    numpy_digest = digest.content_digest(games)
    monkeypatch.setattr(digest, "COMPILED_FROM", 1)
    assert digest.content_digest(games) == numpy_digest


def _raw(frame: pl.DataFrame, first_row: int = 1) -> readers.RawTable:
    table = frame.to_arrow()
    return readers.raw_from_arrow(table, readers.Path("g.parquet"), "parquet", first_row=first_row)


def test_the_all_accepted_path_equals_the_general_one():
    """A slice with no bad row takes the short path; the same rows beside a bad one
    take the general path: the accepted games and the seen ids agree."""
    rng = random.Random(2)
    n = 500
    good = pl.DataFrame(
        {
            "game_id": [f"g{i}" for i in range(n)],
            "period": pl.Series([202501 + i % 5 for i in range(n)], dtype=pl.Int32),
            "white_id": [f"A{rng.randrange(30)}" for _ in range(n)],
            "black_id": [f"B{rng.randrange(30)}" for _ in range(n)],
            "score": pl.Series([rng.choice([0.0, 0.5, 1.0]) for _ in range(n)], dtype=pl.Float32),
        }
    )
    bad = good.head(1).with_columns(pl.lit("X").alias("black_id"), pl.lit("X").alias("white_id"))
    seen_short, seen_general = stream_ingest.SeenIds(), stream_ingest.SeenIds()
    short = validate_games(_raw(good), "g.parquet", "b", seen_short)
    general = validate_games(_raw(pl.concat([good, bad])), "g.parquet", "b", seen_general)
    assert short.quarantine.num_rows == 0
    assert general.quarantine.column("reason").to_pylist() == ["self_play"]
    assert short.accepted.equals(general.accepted)
    assert seen_short.count == seen_general.count == n
    for name in ("first", "second", "value"):
        assert np.array_equal(getattr(seen_short, name)[:n], getattr(seen_general, name)[:n])
    # A second slice repeating an id of the first: the general path, naming line 1.
    again = validate_games(_raw(good.head(3), n + 1), "g.parquet", "b", seen_short)
    assert again.quarantine.column("detail").to_pylist() == [
        "game_id g0 already on line 1",
        "game_id g1 already on line 2",
        "game_id g2 already on line 3",
    ]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.binary()])
def test_the_nul_check_looks_at_the_bytes_of_the_values_only(tmp_path, kind):
    values = pa.array([b"a", b"b\x00c", b"d", b"e"], kind)
    text = readers._as_text(pa.chunked_array([values]))
    assert readers._may_hold_nul(text)
    # The NUL lies in the buffer but outside the slice's values: no NUL.
    assert not readers._may_hold_nul(pa.chunked_array([text.chunk(0).slice(2)]))
    assert readers._may_hold_nul(pa.chunked_array([text.chunk(0).slice(1, 1)]))
    assert not readers._may_hold_nul(pa.chunked_array([pa.array([None, None], kind)]))
    # Agrees with a search per value, and the message names the row.
    for start in range(4):
        part = pa.chunked_array([text.chunk(0).slice(start)])
        assert readers._may_hold_nul(part) == pc.any(pc.match_substring(part, "\x00")).as_py()
    table = pa.table({"game_id": values, "white_id": ["A"] * 4, "black_id": ["B"] * 4})
    with pytest.raises(InputError, match=r"holds a NUL character in row 11$"):
        readers.raw_from_arrow(table, tmp_path / "g.parquet", "parquet", first_row=10)


def test_conflict_notes_shortcuts_agree_with_the_full_computation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = Store(tmp_path / "s")
    header = "player_id,name,rating"
    a = write_csv(tmp_path / "a.csv", header, ["P1,Anna,2100", "P2,Bo,1900"])
    b = write_csv(tmp_path / "b.csv", header, ["P1,Anna,2150", "P3,Cy,1800"])
    ingest_file(store, a, kind="players")
    assert identity.conflict_notes(store, "a.csv") == []  # one source only
    assert identity.conflict_notes(store, "nobody.parquet") == []  # the source said nothing
    report = ingest_file(store, b, kind="players")
    notes = [n for n in report.notes if "differs between sources" in n]
    assert len(notes) == 1 and "P1" in notes[0]
    assert identity.conflict_notes(store, "b.csv") == notes


def test_absent_columns_validate_as_columns_of_nulls():
    """Columns a file lacks are literals in the validation query; the same file with
    those columns present and empty gives the same games and quarantine."""
    lean = pl.DataFrame(
        {
            "game_id": ["g1", "g2", "g3", "g4"],
            "period": pl.Series([202501, 202502, 0, 202501], dtype=pl.Int32),
            "white_id": ["A", "B", "C", "D"],
            "black_id": ["B", "A", "D", "D"],
            "score": pl.Series([1.0, 0.5, 0.0, 2.0], dtype=pl.Float32),
        }
    )
    full = lean.with_columns(
        pl.lit(None, dtype=pl.String).alias("result"),
        pl.lit(None, dtype=pl.Date).alias("date"),
        pl.lit(None, dtype=pl.String).alias("pool"),
        pl.lit(None, dtype=pl.Boolean).alias("rated"),
        pl.lit(None, dtype=pl.Float64).alias("white_rating"),
        pl.lit(None, dtype=pl.Float64).alias("black_rating"),
        pl.lit(None, dtype=pl.String).alias("event_id"),
    )
    a = validate_games(_raw(lean), "g.parquet", "b")
    b = validate_games(_raw(full), "g.parquet", "b")
    assert a.accepted.equals(b.accepted) and a.quarantine.equals(b.quarantine)
    assert a.accepted.column("pool").to_pylist() == ["standard", "standard"]
    assert a.quarantine.column("reason").to_pylist() == ["bad_period", "self_play"]


def test_a_bad_later_slice_is_reported_while_the_one_before_is_stored(tmp_path, monkeypatch):
    """Slice 1 is being stored behind when slice 5 turns out unreadable (a NUL in row
    30): the ingest fails with that row's one-line message, the store is unchanged
    and no thread is left."""
    monkeypatch.chdir(tmp_path)
    rows = _many_periods(40)
    rows["white_id"][29] = "P0\x0001"
    path = _write(tmp_path / "g.parquet", rows)
    root = tmp_path / "s"
    ingest_file(
        Store(root),
        write_csv(tmp_path / "a.csv", "period,white_id,black_id,score", ["202501,A,B,1"]),
    )
    before = _content(root)
    with pytest.raises(InputError, match=r"holds a NUL character in row 30$"):
        _ingest(root, path, 7, monkeypatch)
    assert _content(root) == before
    assert not [t for t in threading.enumerate() if t.name.startswith("arpad-ingest")]
