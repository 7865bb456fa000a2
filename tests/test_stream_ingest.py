"""Issue 15 item 1: a Parquet games file is ingested slice by slice (bounded memory)
with the same store content as in one piece (docs/ingest.md "Large Parquet files"),
and the order-independent content digest (docs/store.md "Content digest")."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.kernels.digest import text_hashes as compiled_text_hashes
from arpad.pipeline import digest, keys, readers, stream_ingest
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.store import Store
from tests.conftest import write_csv


def _games(n: int = 40, seed: int = 5) -> dict:
    """Games over three months with bad rows, blank and duplicate ids spread through
    the file (so that slices of 1, 3 or 7 rows split them)."""
    rng = random.Random(seed)
    players = [f"P{i}" for i in range(9)]
    rows = {"game_id": [], "period": [], "white_id": [], "black_id": [], "score": []}
    for i in range(40):
        w, b = rng.sample(players, 2)
        rows["game_id"].append(None if i % 6 == 0 else f"g{i}")
        rows["period"].append(rng.choice([202501, 202502, 202503]))
        rows["white_id"].append(w)
        rows["black_id"].append(b)
        rows["score"].append(rng.choice([0.0, 0.5, 1.0]))
    rows["score"][4] = 3.0  # score_out_of_range
    rows["black_id"][9] = rows["white_id"][9]  # self_play
    rows["period"][13] = 0  # bad_period
    rows["game_id"][17] = "g2"  # duplicate of row 3, in a later slice
    rows["game_id"][25] = "g2"  # and again
    rows["game_id"][22] = "g4"  # row 5 (g4) is invalid: row 23 is the first valid one
    rows["game_id"][30] = "g4"
    return {c: v[:n] for c, v in rows.items()}


def _write(path, rows: dict, row_group_size: int | None = None):
    table = pa.table(
        {
            "game_id": pa.array(rows["game_id"], pa.string()),
            "period": pa.array(rows["period"], pa.int32()),
            "white_id": pa.array(rows["white_id"], pa.string()),
            "black_id": pa.array(rows["black_id"], pa.string()),
            "score": pa.array(rows["score"], pa.float32()),
        }
    )
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def _content(root) -> dict:
    """Everything an ingest leaves in a store, but the time it ran."""
    s = Store(root)
    return {
        "games": {str(f.relative_to(root)): pq.read_table(f).to_pylist() for f in s.game_files()},
        "keys": keys.read_keys(s.keys_path).to_pylist(),
        "quarantine": [
            pq.read_table(f).to_pylist() for f in sorted(s.quarantine_dir.rglob("*.parquet"))
        ],
        "manifest": s.read_manifest().drop_columns(["ingested_at"]).to_pylist(),
        "players": s.read_players().to_pylist(),
    }


def _ingest(root, path, batch_rows: int, monkeypatch, writers: int = 64):
    monkeypatch.setattr(stream_ingest, "BATCH_ROWS", batch_rows)
    monkeypatch.setattr(stream_ingest, "MAX_OPEN_WRITERS", writers)
    return ingest_file(Store(root), path)


def test_slices_give_the_same_store_as_one_piece(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "games.parquet", _games(), row_group_size=7)
    whole = _ingest(tmp_path / "whole", path, 10**6, monkeypatch)
    assert whole.rows == 40 and whole.quarantined == 6
    assert whole.reasons == {
        "bad_period": 1,
        "duplicate_game_id": 2 + 1,
        "score_out_of_range": 1,
        "self_play": 1,
    }
    expected = _content(tmp_path / "whole")
    # Slices smaller than, equal to and across the file's row groups; one writer open
    # at a time (a partition written again is joined from segments).
    for batch_rows, writers in ((1, 64), (3, 1), (7, 2), (11, 64)):
        root = tmp_path / f"s{batch_rows}"
        report = _ingest(root, path, batch_rows, monkeypatch, writers)
        assert (report.rows, report.accepted, report.quarantined) == (40, 34, 6)
        assert report.examples == whole.examples
        assert _content(root) == expected, (batch_rows, writers)


def test_a_file_of_one_row_group_is_read_in_bounded_slices(tmp_path):
    path = _write(tmp_path / "one.parquet", _games(10))  # one row group
    assert pq.ParquetFile(path).metadata.num_row_groups == 1
    slices = list(readers.iter_parquet(path, 4))
    assert [s.frame.height for s in slices] == [4, 4, 2]
    lines = [line for s in slices for line in s.frame.get_column("_line").to_list()]
    assert lines == list(range(1, 11))


def test_a_bad_row_in_a_later_slice_keeps_its_row_number(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = _games(12)
    path = _write(tmp_path / "g.parquet", rows)
    report = _ingest(tmp_path / "s", path, 4, monkeypatch)
    q = pq.read_table(next((tmp_path / "s" / "quarantine").rglob("*.parquet"))).to_pylist()
    assert [(r["line"], r["reason"]) for r in q] == [(5, "score_out_of_range"), (10, "self_play")]
    assert report.examples[1] == (
        f"{path}:10: self_play: player {rows['white_id'][9]} plays himself"
    )


def test_a_duplicate_id_across_slices_names_the_first_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "g.parquet", _games())
    _ingest(tmp_path / "s", path, 5, monkeypatch)
    q = pq.read_table(next((tmp_path / "s" / "quarantine").rglob("*.parquet"))).to_pylist()
    dups = {r["line"]: r["detail"] for r in q if r["reason"] == "duplicate_game_id"}
    # Row 5 (g4) is quarantined for its score, so row 23 is g4's first valid row.
    assert dups == {
        18: "game_id g2 already on line 3",
        26: "game_id g2 already on line 3",
        31: "game_id g4 already on line 23",
    }


def test_resent_games_are_used_up_one_for_one_across_slices(tmp_path, monkeypatch):
    """A pairing stored twice, then sent three times in one file whose slices split
    the three: the first two are duplicates, the third a new game, as in one piece."""
    monkeypatch.chdir(tmp_path)
    first = write_csv(
        tmp_path / "a.csv",
        "period,white_id,black_id,score",
        ["202501,A,B,1", "202501,A,B,1", "202501,C,D,0"],
    )
    rows = {"game_id": [None] * 9, "period": [202501] * 9, "score": [0.5] * 9}
    rows["white_id"] = [f"X{i}" for i in range(9)]
    rows["black_id"] = [f"Y{i}" for i in range(9)]
    for i in (1, 4, 7):
        rows["white_id"][i], rows["black_id"][i], rows["score"][i] = "A", "B", 1.0
    path = _write(tmp_path / "b.parquet", rows)
    outcomes = []
    for batch_rows in (10**6, 3, 1):
        root = tmp_path / f"s{batch_rows}"
        ingest_file(Store(root), first)
        report = _ingest(root, path, batch_rows, monkeypatch)
        assert report.reasons == {"duplicate_game": 2}
        content = _content(root)
        content["manifest"] = [m for m in content["manifest"] if m["source"] == "b.parquet"]
        outcomes.append(content)
        q = content["quarantine"][-1]
        assert [r["line"] for r in q] == [2, 5]
    assert outcomes[1] == outcomes[0] and outcomes[2] == outcomes[0]


def test_content_digest_ignores_order_slicing_and_format(tmp_path):
    rows = _games(30)
    rows["score"][4] = 1.0
    rows["black_id"][9] = "P8" if rows["white_id"][9] != "P8" else "P7"
    rows["period"][13] = 202502
    for i in (17, 22, 25, 30 - 1):
        rows["game_id"][i] = f"u{i}"
    path = _write(tmp_path / "g.parquet", rows)
    games = _accepted(path)
    assert games.num_rows == 30
    whole = digest.content_digest(games)
    assert whole.startswith("v2:") and len(whole) == 3 + 64
    shuffled = games.take(pa.array(np.random.default_rng(1).permutation(30)))
    assert digest.content_digest(shuffled) == whole
    sliced = digest.ContentDigest()
    for start in range(0, 30, 7):
        sliced.add(games.slice(start, 7))
    assert sliced.hexdigest() == whole
    # One game more, or one changed score, changes it.
    assert digest.content_digest(games.slice(1)) != whole
    changed = games.set_column(6, "score", pa.array([0.5] + [1.0] * 29, pa.float32()))
    assert digest.content_digest(changed) != whole
    # The same games as CSV text (another path through validation) digest the same.
    csv = tmp_path / "g.csv"
    lines = [
        f"{g or ''},{p},{w},{b},{s}" for g, p, w, b, s in zip(*(rows[c] for c in rows), strict=True)
    ]
    write_csv(csv, "game_id,period,white_id,black_id,score", lines)
    text = _accepted(csv)
    own = [g for g in rows["game_id"] if g]
    assert sorted(t for t in text.column("game_id").to_pylist() if t in own) == sorted(own)
    # Derived ids (blank game_id) name the line, which differs by one (the CSV header):
    # they are not part of the content, so the digests agree.
    assert digest.content_digest(text) == whole


def _accepted(path) -> pa.Table:
    from arpad.pipeline.validate import validate_games

    return validate_games(readers.read_any(path), path.name, "0" * 16).accepted


def _naive_row_hash(row: list) -> int:
    """pipeline/digest.py's row hash, one value at a time in Python integers."""
    mask = (1 << 64) - 1

    def mix(h):
        h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & mask
        h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & mask
        return h ^ (h >> 31)

    def value(v):
        if v is None:
            return int(digest.NULL_TAG)
        if isinstance(v, bytes):
            h = int(digest.SEED)
            for byte in v:
                h = ((h ^ byte) * 0x100000001B3) & mask
            return mix(h ^ len(v))
        return mix((v & mask) ^ int(digest.SEED))

    total = sum(int(w) * value(v) for w, v in zip(digest.WEIGHTS, row, strict=True))
    return mix(total & mask)


def test_row_hash_equals_a_naive_reference():
    games = pa.table(
        {
            "game_id": ["g1", "f.csv:2", "", "g\u00e9\u00e9\u00e9" * 30],
            "date": pa.array([None, dt.date(2025, 1, 3), None, dt.date(1886, 1, 11)]),
            "period": pa.array([202501, 202501, 7, 188601], pa.int32()),
            "pool": ["standard", "standard", "rapid", "standard"],
            "white_id": ["A", "B", "P0001", "Steinitz"],
            "black_id": ["B", "A", "P0002", "Zukertort"],
            "score": pa.array([1.0, 0.5, 0.0, 1.0], pa.float32()),
            "event_id": [None, "e", None, "World Championship"],
            "rated": [True] * 4,
            "source": ["f.csv:1", "f.csv:2", "f.csv:3", "f.csv:4"],
            "ingest_batch": ["b"] * 4,
        }
    )
    got = digest.row_hashes(games).tolist()
    rows = games.to_pylist()
    for row, h in zip(rows, got, strict=True):
        own = None if row["game_id"] == row["source"] else row["game_id"].encode()
        date = None if row["date"] is None else (row["date"] - dt.date(1970, 1, 1)).days
        score = int(np.float64(row["score"]).view(np.int64))
        text = [row[c].encode() if row[c] is not None else None for c in digest.TEXT[:-1]]
        assert h == _naive_row_hash([row["period"], date, score, *text, own])
    # Text values hashed once per distinct value and gathered agree with row by row.
    ids = pa.array(["x", None, "", "x", "yy", None])
    assert np.array_equal(
        digest._text_column_hashes(ids, distinct=True),
        digest._text_column_hashes(ids, distinct=False),
    )
    # The compiled kernel (large slices) and NumPy (small ones) agree.
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 40, 500)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    data = rng.integers(0, 256, int(offsets[-1])).astype(np.uint8)
    valid = rng.random(500) > 0.1
    args = (digest.SEED, digest.FNV_PRIME, digest.NULL_TAG)
    assert np.array_equal(
        digest.text_hashes_numpy(data, offsets, valid),
        compiled_text_hashes(data, offsets, valid, *args),
    )
    for hashes in (digest.text_hashes_numpy, lambda *a: compiled_text_hashes(*a, *args)):
        with pytest.raises(ValueError):
            hashes(np.zeros(3, np.uint8), np.array([0, 1]), np.ones(3, bool))


def test_a_resend_is_recognised_against_a_version_1_digest(tmp_path, monkeypatch, capsys):
    """A store whose manifest an older arpad wrote (version-1 digests): the same games
    re-sent as Parquet under another name are still "the same games as" that file."""
    monkeypatch.chdir(tmp_path)
    rows = ["202501,A,B,1", "202501,C,D,0", "202502,A,C,0.5"]
    first = write_csv(tmp_path / "a.csv", "period,white_id,black_id,score", rows)
    store = Store(tmp_path / "s")
    ingest_file(store, first)
    manifest = store.read_manifest()
    old = digest.digest_v1(_accepted(first))
    assert old != manifest.column("content_sha256")[0].as_py() and len(old) == 64
    pq.write_table(
        manifest.set_column(11, "content_sha256", pa.array([old], pa.string())),
        store.manifest_path,
    )
    games = {
        "game_id": [None, None, None],  # ids derived from the rows: compared by content
        "period": [202501, 202501, 202502],
        "white_id": ["A", "C", "A"],
        "black_id": ["B", "D", "C"],
        "score": [1.0, 0.0, 0.5],
    }
    resent = _write(tmp_path / "b.parquet", games)
    report = ingest_file(store, resent)
    assert report.accepted == 0 and report.reasons == {"duplicate_game": 3}
    assert any("the same games as a.csv" in n for n in report.notes), report.notes
    # Its own entry is recorded with a version-2 digest, the old one is kept.
    recorded = store.read_manifest().column("content_sha256").to_pylist()
    assert recorded[0] == old and recorded[1].startswith("v2:")
    # Without the old entry, the note says how many were re-sent instead.
    other = _write(tmp_path / "c.parquet", {**games, "score": [1.0, 0.0, 1.0]})
    report = ingest_file(store, other)
    assert report.accepted == 1 and report.reasons == {"duplicate_game": 2}
    assert any(n.startswith("2 game(s) already stored") for n in report.notes), report.notes


def test_ids_already_stored_are_found_in_every_slice(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = write_csv(
        tmp_path / "a.csv",
        "game_id,period,white_id,black_id,score",
        ["g1,202501,A,B,1", "g7,202501,C,D,0"],
    )
    rows = {
        "game_id": [f"g{i}" for i in range(9)],
        "period": [202502] * 9,
        "white_id": [f"X{i}" for i in range(9)],
        "black_id": [f"Y{i}" for i in range(9)],
        "score": [1.0] * 9,
    }
    path = _write(tmp_path / "b.parquet", rows)
    for batch_rows in (10**6, 2):
        store = Store(tmp_path / f"s{batch_rows}")
        ingest_file(store, first)
        report = _ingest(store.root, path, batch_rows, monkeypatch)
        assert report.reasons == {"duplicate_game_id": 2}
        assert [e.split(": ", 2)[2] for e in report.examples] == [
            "game_id g1 already stored from a.csv:2",
            # g7's stored score is 0, this file's 1: the detail says it was not applied
            "game_id g7 already stored from a.csv:3 with White's score 0 there, 1 here: not "
            "applied (a correction of a.csv is ingested with --source 'a.csv' or --replace, "
            "docs/ingest.md)",
        ]


def test_an_empty_parquet_file_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "empty.parquet", {c: [] for c in _games(0)})
    report = _ingest(tmp_path / "s", path, 3, monkeypatch)
    assert (report.rows, report.accepted, report.quarantined) == (0, 0, 0)
    assert Store(tmp_path / "s").game_files() == []


def test_a_file_sorted_by_period_gives_the_same_store_in_slices(tmp_path, monkeypatch):
    """Slices already in partition order are written without a sort."""
    monkeypatch.chdir(tmp_path)
    rows = _games()
    order = sorted(range(40), key=lambda i: rows["period"][i])
    rows = {c: [v[i] for i in order] for c, v in rows.items()}
    path = _write(tmp_path / "sorted.parquet", rows)
    _ingest(tmp_path / "whole", path, 10**6, monkeypatch)
    _ingest(tmp_path / "sliced", path, 4, monkeypatch, writers=1)
    assert _content(tmp_path / "sliced") == _content(tmp_path / "whole")
    games = pq.read_table(next(iter(Store(tmp_path / "sliced").game_files())))
    lines = [int(s.rsplit(":", 1)[1]) for s in games.column("source").to_pylist()]
    assert lines == sorted(lines)  # file order within a period


def test_new_ids_get_keys_in_row_by_row_order_whatever_the_slicing():
    rng = random.Random(9)
    white = [f"p{rng.randrange(30)}" for _ in range(200)]
    black = [f"p{rng.randrange(30)}" for _ in range(200)]
    naive = ["p3", "p7"]  # already in the dictionary
    for w, b in zip(white, black, strict=True):
        for pid in (w, b):
            if pid not in naive:
                naive.append(pid)
    for size in (200, 17, 1):
        dictionary = keys.KeyDictionary("/nonexistent/keys.parquet")
        dictionary.ids = pa.array(["p3", "p7"])
        got_white, got_black = [], []
        for start in range(0, 200, size):
            k_white, k_black = dictionary.keys(
                pa.array(white[start : start + size]), pa.array(black[start : start + size])
            )
            got_white += k_white.to_pylist()
            got_black += k_black.to_pylist()
        assert dictionary.ids.to_pylist() == naive
        assert [naive[k] for k in got_white] == white and [naive[k] for k in got_black] == black


@pytest.mark.parametrize("batch_rows", [10**6, 50])
def test_every_game_is_stored_in_its_own_period(tmp_path, monkeypatch, batch_rows):
    """Every 200th Kaggle 2010 game as Parquet (326 games over 100 months): 8 of them
    were stored under another month's folder, because ``PartitionWriters.write`` took
    a pyarrow ``group_by``'s output order for the sorted order of the runs (as
    ``Store.write_games`` did for a CSV; pipeline/store.py ``partition_runs``). Each
    stored game's row must hold the month of its folder."""
    import polars as pl

    from tests.conftest import BUNDLED

    rows = pl.read_csv(BUNDLED / "kaggle2010_elo_vs_rest" / "training_data.csv")[::200]
    table = pa.table(
        {
            "period": rows["Month #"].to_list(),
            "white_id": [str(x) for x in rows["White Player #"]],
            "black_id": [str(x) for x in rows["Black Player #"]],
            "score": rows["Score"].to_list(),
        }
    )
    path = tmp_path / "sample.parquet"
    pq.write_table(table, path)
    months = table.column("period").to_pylist()
    report = _ingest(tmp_path / "s", path, batch_rows, monkeypatch)
    assert report.accepted == 326
    stored = 0
    for f in Store(tmp_path / "s").game_files():
        period = int(f.parent.name.split("=")[1])
        lines = [int(s.rsplit(":", 1)[1]) for s in pq.read_table(f).column("source").to_pylist()]
        assert {months[n - 1] for n in lines} == {period}, f
        stored += len(lines)
    assert stored == 326
