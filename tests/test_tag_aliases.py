"""A games table with PGN tag names as columns (White, Black, Result, Date, WhiteElo …)
ingests as the canonical table it means (docs/ingest.md "PGN tag names as columns")."""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq
import pytest

import arpad
from arpad.pipeline.readers import read_csv, tag_aliases

ROWS = [
    ("Rated Blitz", "alice", "bob", "1-0", "2024.01.05", 1500, 1600),
    ("Rated Blitz", "bob", "carol", "1/2-1/2", "2024.01.06", 1610, 1400),
    ("Rated Blitz", "alice", "carol", "0-1", "2024.02.01", 1510, 1420),
]
TAGS = ["Event", "White", "Black", "Result", "Date", "WhiteElo", "BlackElo"]
CANONICAL = ["event_id", "white_id", "black_id", "result", "date", "white_rating", "black_rating"]


def _csv(path, header, rows):
    lines = [",".join(header)] + [",".join(str(v) for v in r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_tag_names_are_read_as_canonical_columns():
    notes: list[str] = []
    names = tag_aliases([t.lower() for t in TAGS], notes)
    assert names == CANONICAL
    assert "column 'white' read as white_id" in notes
    assert len(notes) == 5  # result and date are canonical already


def test_canonical_tables_are_left_alone():
    notes: list[str] = []
    # white_id present: White stays an unknown column, but Event is the event (an
    # officer's `White ID,…,Event` lost its events unsaid; docs/ingest.md)
    assert tag_aliases(["white_id", "black_id", "white", "event"], notes) == [
        "white_id",
        "black_id",
        "white",
        "event_id",
    ]
    # A canonical column beside its tag name keeps its place; the tag column stays unknown.
    assert tag_aliases(["white", "black", "event", "event_id"], notes) == [
        "white_id",
        "black_id",
        "event",
        "event_id",
    ]
    # A players file (no White/Black) is untouched.
    assert tag_aliases(["player_id", "event"], []) == ["player_id", "event"]


def test_tag_named_csv_equals_canonical_csv(tmp_path):
    tags = read_csv(_csv(tmp_path / "tags.csv", TAGS, ROWS))
    canon = read_csv(_csv(tmp_path / "canon.csv", CANONICAL, ROWS))
    assert tags.kind == canon.kind == "games"
    cols = [c for c in canon.frame.columns if c != "_raw"]
    assert tags.frame.select(cols).equals(canon.frame.select(cols))
    assert any("read as white_id" in n for n in tags.notes)


def test_tag_named_file_and_frame_rate_like_canonical(tmp_path):
    stored = {}
    for name, header in (("tags", TAGS), ("canon", CANONICAL)):
        (tmp_path / name).mkdir()
        arpad.Store(tmp_path / name / "store").ingest(
            [_csv(tmp_path / name / "g.csv", header, ROWS)]
        )
        files = sorted((tmp_path / name / "store").rglob("games/**/*.parquet"))
        stored[name] = [
            pq.read_table(f).drop_columns(["source", "ingest_batch"]).to_pylist() for f in files
        ]
    assert stored["tags"] == stored["canon"]
    first = stored["tags"][0][0]
    assert (first["white_id"], first["white_rating"], first["event_id"]) == (
        "alice",
        1500.0,
        "Rated Blitz",
    )

    frame = pl.DataFrame([list(r) for r in ROWS], schema=TAGS, orient="row")
    by_tags = arpad.rate(frame, system="elo")
    by_canon = arpad.rate(frame.rename(dict(zip(TAGS, CANONICAL))), system="elo")
    assert by_tags.equals(by_canon)
    # alice beat bob (both 1500 at K 20): 1510 after January.
    jan = by_tags.filter((pl.col("period") == 202401) & (pl.col("player_id") == "alice"))
    assert jan["rating_after"].item() == pytest.approx(1510.0)


def test_timestamp_dates_are_their_calendar_dates():
    """A pandas datetime64 / Arrow timestamp ``date`` column is read as the dates it shows
    (docs/ingest.md "Typed columns"), in its own time zone when it has one."""
    import datetime as dt

    import pandas as pd

    when = ["2024-01-05 23:30", "2024-01-31 00:00", "2024-02-01 08:00"]
    base = {"white_id": ["a", "b", "a"], "black_id": ["b", "c", "c"], "score": [1.0, 0.5, 0.0]}
    dated = pl.DataFrame({**base, "date": [dt.date(2024, 1, 5), dt.date(2024, 1, 31),
                                           dt.date(2024, 2, 1)]})  # fmt: skip
    expected = arpad.rate(dated, system="elo")
    naive = pd.DataFrame({**base, "date": pd.to_datetime(when)})
    assert arpad.rate(naive, system="elo").equals(expected)
    # 23:30 UTC on 31 January is already 1 February in Tokyo: that game moves a period.
    tokyo = pd.DataFrame({**base, "date": pd.to_datetime(when).tz_localize("Asia/Tokyo")})
    assert arpad.rate(tokyo, system="elo").equals(expected)
    shifted = pd.to_datetime(["2024-01-05 12:00", "2024-01-31 23:30", "2024-02-01 08:00"])
    moved = pd.DataFrame({**base, "date": shifted.tz_localize("UTC").tz_convert("Asia/Tokyo")})
    periods = arpad.rate(moved, system="elo").filter(pl.col("player_id") == "b")["period"]
    # b played in January only (5 Jan); his game with c is on 1 February in Tokyo.
    assert periods.to_list() == [202401, 202402]
    games_b = arpad.rate(moved, system="elo").filter(pl.col("player_id") == "b")["games"]
    assert games_b.to_list() == [1, 1]


def test_rate_takes_a_file_path_and_a_lazy_frame(tmp_path):
    """``arpad.rate`` reads a path as ``arpad ingest`` reads it; a LazyFrame is collected."""
    path = _csv(tmp_path / "g.csv", CANONICAL, ROWS)
    frame = pl.read_csv(path)
    expected = arpad.rate(frame, system="glicko2")
    assert arpad.rate(path, system="glicko2").equals(expected)
    assert arpad.rate(str(path), system="glicko2").equals(expected)
    assert arpad.rate(frame.lazy(), system="glicko2").equals(expected)
    bad = tmp_path / "bad.csv"
    bad.write_text("white_id,black_id,result,date\na,b,1-0,2024-01-01\na,b,9-9,2024-01-02\n")
    with pytest.raises(
        arpad.InputError, match=r"bad\.csv: 1 of 2 rows rejected \(line 3: unknown_result"
    ):
        arpad.rate(bad, system="elo")
    with pytest.raises(arpad.InputError, match="no such file"):
        arpad.rate(tmp_path / "missing.csv", system="elo")
