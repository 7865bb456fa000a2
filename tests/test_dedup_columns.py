"""What the probable-duplicate check reads of the stored games (docs/pgn-trf.md
"Probable duplicates", "What the check reads"): only the columns it compares, with
the same games and the same duplicates found as a read of every column, files written
before ``date_precision``/``moves_digest`` read as null there, and a damaged games
file named in one line. The store: London1851.pgn and the Karl Mala 2005 TRF, then a
second collection of 30 London games re-spelt with incomplete dates and a club
bulletin of three of the TRF's games. Tests named as defects failed before their fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

from arpad.pipeline import probable_duplicates
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql
from tests.test_historian_attack3 import split_games
from tests.test_historian_attack4 import respell4

LONDON = "London1851.pgn"
KARL_MALA = "fide_example1_karl_mala_2005.trf"
NEEDED = {*probable_duplicates._STORED, "date_precision", "moves_digest"}
LONDON_COPIES = 30
BULLETIN_COPIES = 3


def naive_stored(store: Store, wanted, ignore) -> pl.DataFrame | None:
    """The stored games as the check read them before: every column of each file
    (``pq.read_table``), then the compared ones, null where a file lacks one."""
    frames = []
    for pool in sorted({pool for pool, _ in wanted}):
        for f in sorted(store.game_files(pool)):
            period = int(f.parent.name.split("=", 1)[1])
            if (pool, period) not in wanted or f.name in ignore:
                continue
            frame = pl.from_arrow(pq.read_table(f))
            for name, dtype in (("date_precision", pl.String), ("moves_digest", pl.Int64)):
                if name not in frame.columns:
                    frame = frame.with_columns(pl.lit(None, dtype=dtype).alias(name))
            frames.append(
                frame.select(
                    *probable_duplicates._STORED, "date_precision", "moves_digest"
                ).with_columns(pool=pl.lit(pool), period=pl.lit(period, dtype=pl.Int32))
            )
    return pl.concat(frames, how="vertical_relaxed") if frames else None


def every_partition(store: Store) -> set[tuple[str, int]]:
    return {
        (pool, int(f.parent.name.split("=", 1)[1]))
        for pool in store.pools()
        for f in store.game_files(pool)
    }


@pytest.fixture(scope="module")
def sources(shared_data, tmp_path_factory) -> tuple[Path, list[Path]]:
    """A store of London1851.pgn and the Karl Mala TRF, and the two files of the second
    ingest (the London copies, the bulletin)."""
    tmp = tmp_path_factory.mktemp("dedup_columns")
    london = shared_data / "pgn" / LONDON
    trf = shared_data / "trf" / KARL_MALA
    base = tmp / "base"
    assert main(["ingest", str(london), str(trf), "--store", str(base), "--no-flow"]) == 0
    games = split_games(london.read_text(encoding="utf-8"))
    copies = tmp / "Anderssen_collection.pgn"
    chosen = range(0, 8 * LONDON_COPIES, 8)
    copies.write_text("\n".join(respell4(games[i], n) for n, i in enumerate(chosen)) + "\n")
    first = sql(
        base,
        "SELECT strftime(g.date, '%Y.%m.%d') AS d, w.name AS w, b.name AS b, g.score "
        "FROM games g JOIN players w ON w.player_id = g.white_id "
        "JOIN players b ON b.player_id = g.black_id WHERE g.game_id LIKE '%:r1:%' "
        f"ORDER BY g.game_id LIMIT {BULLETIN_COPIES}",
    )
    result = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}
    bulletin = tmp / "bulletin.pgn"
    bulletin.write_text(
        "".join(
            f'[Event "Karl Mala Memorial"]\n[Site "Dresden"]\n[Date "{d}"]\n[Round "1"]\n'
            f'[White "{w.replace(",", ", ")}"]\n[Black "{b.replace(",", ", ")}"]\n'
            f'[Result "{result[score]}"]\n\n1. d4 {result[score]}\n\n'
            for d, w, b, score in first.iter_rows()
        )
    )
    return base, [copies, bulletin]


def _copy(base: Path, to: Path) -> Path:
    shutil.copytree(base, to)
    return to


def _second_ingest(store: Path, files: list[Path]) -> tuple[int, pl.DataFrame, pl.DataFrame]:
    code = main(["ingest", *map(str, files), "--store", str(store), "--no-flow"])
    quarantine = sql(
        store, "SELECT source, line, reason, detail FROM quarantine ORDER BY source, line"
    )
    games = sql(store, "SELECT game_id, source FROM games ORDER BY game_id")
    return code, quarantine, games


def test_the_check_reads_only_the_columns_it_compares(sources, monkeypatch):
    """Defect: every column of each stored games file of the periods was read (event
    ids, ratings, keys, batches) where the check compares eight. Now each read asks
    for those columns only."""
    base, _ = sources
    store = Store(base)
    asked = []
    read = pq.ParquetFile.read

    def spy(self, columns=None, *args, **kwargs):
        asked.append(columns)
        return read(self, columns, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read", spy)
    stored = probable_duplicates._stored(store, every_partition(store), set())
    assert stored is not None and stored.height > 251  # London's 251 and the TRF's
    assert len(asked) == len(every_partition(store))
    assert all(columns is not None and set(columns) <= NEEDED for columns in asked)


def test_the_stored_games_equal_a_read_of_every_column(sources):
    base, _ = sources
    store = Store(base)
    wanted = every_partition(store)
    got = probable_duplicates._stored(store, wanted, set())
    assert_frame_equal(got, naive_stored(store, wanted, set()))
    assert got.get_column("moves_digest").null_count() < got.height  # London has moves
    assert got.get_column("date_precision").null_count() < got.height  # 1851.??.??


def test_the_same_duplicates_as_with_a_read_of_every_column(sources, tmp_path, monkeypatch):
    """The second ingest into two copies of the store, one with the check reading every
    column (the naive reader above): the same quarantine and the same games; each copy
    of a stored game found (the 30 London games by their moves, the 3 bulletin games
    by their dates)."""
    base, files = sources
    code, quarantine, games = _second_ingest(_copy(base, tmp_path / "new"), files)
    monkeypatch.setattr(probable_duplicates, "_stored", naive_stored)
    code_old, quarantine_old, games_old = _second_ingest(_copy(base, tmp_path / "old"), files)
    assert code == code_old
    assert_frame_equal(quarantine, quarantine_old)
    assert_frame_equal(games, games_old)
    # the figures, from the files written
    assert code == 2
    found = quarantine.filter(pl.col("reason") == "probable_duplicate")
    assert found.height == LONDON_COPIES + BULLETIN_COPIES
    by_source = found.get_column("source").value_counts().sort("source").rows()
    assert [(Path(s).name, n) for s, n in by_source] == [
        ("Anderssen_collection.pgn", LONDON_COPIES),
        ("bulletin.pgn", BULLETIN_COPIES),
    ]


def _as_written_before_the_columns(store: Path) -> int:
    """Every games file of ``store`` rewritten without ``date_precision`` and
    ``moves_digest``, as stores were written before them; returns how many."""
    files = sorted((store / "games").rglob("*.parquet"))
    for f in files:
        table = pq.read_table(f)
        pq.write_table(table.drop_columns(["date_precision", "moves_digest"]), f)
    return len(files)


def test_files_written_before_the_columns_read_them_as_null(sources, tmp_path):
    """An older store: the check reads null precisions and digests, the other columns
    as a read of every column gives them; the bulletin's copies are still found by
    their complete dates, the London copies (year or month dates, found by moves only)
    are not: the stored games have no digest (docs/pgn-trf.md "Move digest")."""
    base, files = sources
    old = _copy(base, tmp_path / "older")
    assert _as_written_before_the_columns(old) > 0
    store = Store(old)
    wanted = every_partition(store)
    got = probable_duplicates._stored(store, wanted, set())
    assert got.get_column("moves_digest").null_count() == got.height
    assert got.get_column("date_precision").null_count() == got.height
    assert_frame_equal(got, naive_stored(store, wanted, set()))
    code, quarantine, _ = _second_ingest(old, files)
    assert code == 2
    found = quarantine.filter(pl.col("reason") == "probable_duplicate")
    assert [Path(s).name for s in found.get_column("source")] == ["bulletin.pgn"] * 3


def _a_games_file(store: Path) -> Path:
    """A games file of the TRF's period (the bulletin's games are compared with it)."""
    trf = [
        f
        for f in sorted((store / "games").rglob("*.parquet"))
        if "karl_mala" in pq.read_table(f, columns=["source"]).column("source")[0].as_py()
    ]
    return trf[0]


def test_a_damaged_games_file_is_named_in_one_line(sources, tmp_path, capsys):
    """A games file of the compared periods that is not Parquet: the check's error is
    the store's one line naming the file (as every read of a store file), exit 2, and
    nothing stored changes."""
    base, files = sources
    store = _copy(base, tmp_path / "damaged")
    path = _a_games_file(store)
    path.write_bytes(b"not parquet at all\n")
    with pytest.raises(InputError) as caught:
        probable_duplicates._stored(Store(store), every_partition(Store(store)), set())
    assert caught.value.path == str(path)
    assert "not a readable Parquet file" in caught.value.problem
    before = sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file())
    capsys.readouterr()
    assert main(["ingest", str(files[1]), "--store", str(store), "--no-flow"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any(str(path) in line and "the store is damaged" in line for line in err)
    after = sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file())
    assert after == before


def test_a_games_file_without_a_compared_column_is_named(sources, tmp_path):
    """Defect: a games file without ``white_id`` stopped the check with a KeyError
    (a traceback). Now it is the store's one-line error naming the file and the
    column."""
    base, _ = sources
    store = _copy(base, tmp_path / "no_white")
    path = _a_games_file(store)
    pq.write_table(pq.read_table(path).drop_columns(["white_id"]), path)
    with pytest.raises(InputError) as caught:
        probable_duplicates._stored(Store(store), every_partition(Store(store)), set())
    assert caught.value.path == str(path)
    assert "no column 'white_id'" in caught.value.problem
