"""The complete corrections history (docs/store.md "Audit trail"): every version of
a source is kept (``manifest/history.parquet``), so a source corrected twice shows
two corrections with their own counts in the ``corrections`` view, in ``arpad
audit`` and in ``arpad diff``; merges are listed too; a store written before the
history was kept still reads."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline import catalog, trail
from arpad.pipeline.audit import audit
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

HEADER = "game_id,date,white_id,black_id,result"
FIRST = [
    "g1,2024-01-05,A,B,1-0",
    "g2,2024-01-06,C,D,1/2-1/2",
    "g3,2024-02-05,A,C,0-1",
    "g4,2024-02-06,B,D,1-0",
    "g5,2024-03-05,A,D,1/2-1/2",
    "g6,2024-03-06,B,C,0-1",
]
# correction 1: g3 gets another result (changed), g7 is new in March (added)
SECOND = [*FIRST[:2], "g3,2024-02-05,A,C,1-0", *FIRST[3:], "g7,2024-03-20,A,B,1-0"]
# correction 2: g2 is struck out (removed)
THIRD = [SECOND[0], *SECOND[2:]]


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def ingest(root: Path, folder: Path, rows: list[str], name: str) -> None:
    path = folder / name
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    assert run("ingest", "--store", str(root), "--source", "club", str(path)) == 0
    assert run("rate", "--store", str(root), "--system", "elo") == 0


@pytest.fixture
def corrected(tmp_path) -> Store:
    root = tmp_path / "store"
    ingest(root, tmp_path, FIRST, "v1.csv")
    ingest(root, tmp_path, SECOND, "v2.csv")
    ingest(root, tmp_path, THIRD, "v3.csv")
    return Store(root)


def view(store: Store, sql: str) -> pl.DataFrame:
    con = catalog.connect(store)
    try:
        return catalog.query_frame(con, sql)
    finally:
        con.close()


def test_two_corrections_are_two_rows_with_their_counts(corrected):
    got = view(
        corrected,
        "SELECT action, source, games_added, games_removed, games_changed, stale_from, stale "
        "FROM corrections",
    )
    assert got.rows() == [
        ("correction", "club", 1, 0, 1, 202402, "standard:202402"),
        ("correction", "club", 0, 1, 0, 202401, "standard:202401"),
    ]
    # the manifest still holds the current version only; the history every version
    assert corrected.read_manifest().num_rows == 1
    history = view(corrected, "SELECT action, rows, games_added, replaces FROM ingest_history")
    batches = corrected.read_history().column("batch").to_pylist()
    assert history.rows() == [
        ("ingest", 6, 6, None),
        ("correction", 7, 1, batches[0]),
        ("correction", 6, 0, batches[1]),
    ]
    assert corrected.read_manifest().column("batch").to_pylist() == [batches[2]]


def test_audit_shows_both_corrections(corrected, capsys):
    periods, rows = audit(corrected, "A", "elo")
    assert periods["period"].to_list() == [202401, 202402, 202403]
    assert rows["action"].to_list() == ["ingest", "correction", "correction"]
    assert rows["games_changed"].to_list() == [0, 1, 0]
    capsys.readouterr()
    assert main(["audit", "A", "--system", "elo", "--store", str(corrected.root)]) == 0
    out = capsys.readouterr().out
    assert "3 ingest(s), correction(s) and merge(s)" in out
    assert out.count("correction ") >= 2


def test_merges_and_splits_are_in_the_corrections_view(corrected, capsys):
    root = str(corrected.root)
    assert main(["players", "merge", "C", "D", "--store", root, "--reason", "one man"]) == 0
    assert main(["players", "split", "C", "D", "--store", root]) == 0
    got = view(
        corrected, "SELECT action, keep, duplicate, reason, stale_from, stale FROM corrections"
    )
    assert got.filter(pl.col("keep").is_not_null()).rows() == [
        # g2 (C-D, January) was struck out: C and D first play in February (g3, g4)
        ("merge", "C", "D", "one man", 202402, "standard:202402"),
        ("split", "C", "D", "", 202402, "standard:202402"),
    ]
    # in the audit of either id, not of an uninvolved player
    _, rows = audit(corrected, "D", "elo")
    assert rows.filter(pl.col("action").is_in(["merge", "split"])).height == 2
    _, rows = audit(corrected, "A", "elo")
    assert rows.filter(pl.col("action").is_in(["merge", "split"])).height == 0


def test_two_corrections_after_a_publication_show_as_two(tmp_path):
    root = tmp_path / "store"
    ingest(root, tmp_path, FIRST, "v1.csv")
    assert main(["publish", "--store", str(root), "--system", "elo"]) == 0
    ingest(root, tmp_path, SECOND, "v2.csv")
    ingest(root, tmp_path, THIRD, "v3.csv")
    from arpad.pipeline.publish import diff

    _, since = diff(Store(root), "elo", "standard", 202403)
    assert since["action"].to_list() == ["correction", "correction"]
    assert since["games_removed"].to_list() == [0, 1]


def test_a_store_without_history_still_reads(corrected):
    corrected.history_path.unlink()
    got = view(corrected, "SELECT action, source, stale_from FROM corrections")
    # only the current version is known: one row, first ingest or correction unknown
    assert got.rows() == [("unrecorded", "club", 202401)]
    _, rows = audit(corrected, "A", "elo")
    assert rows["action"].to_list() == ["unrecorded"]
    assert trail.corrections(corrected).height == 1


def test_a_publication_without_trail_counts_goes_by_time_and_batch(tmp_path):
    """A publication written before ``history_rows``/``merge_rows`` were recorded: the
    versions ingested after ``published_at`` (to the second) or of another batch."""
    import json
    import time

    from arpad.pipeline.publish import diff

    root = tmp_path / "store"
    ingest(root, tmp_path, FIRST, "v1.csv")
    assert main(["publish", "--store", str(root), "--system", "elo"]) == 0
    store = Store(root)
    path = store.published_partition("elo", "standard", 202403) / "manifest.json"
    manifest = json.loads(path.read_text())
    for key in ("history_rows", "merge_rows"):
        del manifest[key]
    path.write_text(json.dumps(manifest))
    time.sleep(1.1)  # the merge log keeps seconds: the merge must fall in a later one
    ingest(root, tmp_path, SECOND, "v2.csv")
    assert main(["players", "merge", "C", "D", "--force", "--store", str(root)]) == 0
    _, since = diff(store, "elo", "standard", 202403)
    assert since["action"].to_list() == ["correction", "merge"]
