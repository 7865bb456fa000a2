"""The catalog on a nearly full disk (newuser round 12; docs/operations.md "Nothing stored
half-way"), and a blank ``--store`` (docs/cli.md "Options").

On a tmpfs where the Parquet files fit but ``catalog.duckdb`` did not, ``rate`` and
``ingest`` exited 0 and left a catalog with no views: DuckDB's checkpoint at ``close()``
fails without raising, the views were in the WAL, and ``catalog.refresh`` removed the WAL
and stamped the empty file as current. ``list`` was then a DuckDB traceback (exit 1) and
``check`` said "no problem found". The tmpfs is not used here (the tests need not run as
root): the checkpoint is made to fail with ``ENOSPC`` as DuckDB does, or to be skipped
at close as DuckDB's failed one is (``PRAGMA disable_checkpoint_on_shutdown``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_hostile_input import snapshot

GAMES = [
    "white_id,black_id,period,score",
    "p1,p2,1,1",
    "p3,p4,1,0.5",
    "p1,p3,2,0",
    "p2,p4,2,1",
    "p4,p1,3,0.5",
]
EMPTY_LINE = (
    "catalog.duckdb: holds 0 of its 17 views (no games, players, ratings, quarantine, …); "
    "remove it: the next arpad ingest or rate writes it again "
    "(free some disk space first if the disk is full)"
)


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("arpad: error: "), err
    assert "Traceback" not in err
    return lines[0]


def views_in(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0]
    finally:
        con.close()


@pytest.fixture()
def games(tmp_path) -> Path:
    path = tmp_path / "games.csv"
    path.write_text("\n".join(GAMES) + "\n")
    return path


@pytest.fixture()
def ingested(tmp_path, games, capsys) -> Path:
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(games)]) == 0
    capsys.readouterr()
    return root


@pytest.fixture()
def rated(ingested, capsys) -> Path:
    assert main(["rate", "--no-flow", "--store", str(ingested), "--system", "elo"]) == 0
    capsys.readouterr()
    return ingested


class _Catalog:
    """A connection to the catalog ``refresh`` builds (a ``.catalog.*`` file), with its
    ``CHECKPOINT`` failing as DuckDB's does on a full disk, or failing silently: then
    DuckDB's checkpoint at ``close()`` is skipped too, as its failed one writes nothing."""

    def __init__(self, con, how: str) -> None:
        self._con = con
        self._how = how
        if how == "silent":
            con.execute("PRAGMA disable_checkpoint_on_shutdown")

    def execute(self, sql, *args, **kwargs):
        if sql.strip().upper() == "CHECKPOINT":
            if self._how == "silent":
                return self
            raise duckdb.FatalException(
                "FATAL Error: Failed to create checkpoint because of error: Could not write "
                'file "catalog": No space left on device'
            )
        return self._con.execute(sql, *args, **kwargs)

    def close(self) -> None:
        self._con.close()

    def __getattr__(self, name):
        return getattr(self._con, name)


def failing_checkpoint(monkeypatch, how: str) -> None:
    real = duckdb.connect

    def connect(database=":memory:", read_only=False, *args, **kwargs):
        con = real(database, read_only, *args, **kwargs)
        if not read_only and Path(str(database)).name.startswith(".catalog."):
            return _Catalog(con, how)
        return con

    monkeypatch.setattr(duckdb, "connect", connect)


def test_a_full_disk_at_the_catalog_checkpoint_is_exit_2_and_the_store_is_as_before(
    ingested, capsys, monkeypatch
):
    # The first rate of a store rebuilds the catalog (its ratings view's first file).
    before = snapshot(ingested)
    failing_checkpoint(monkeypatch, "enospc")
    code = main(["rate", "--no-flow", "--store", str(ingested), "--system", "elo"])
    line = one_error_line(capsys.readouterr().err)
    monkeypatch.undo()
    assert code == 2
    assert line == (
        f"arpad: error: disk full ([Errno 28] No space left on device: "
        f"'{ingested / 'catalog.duckdb'}'): the store is as before"
    )
    assert snapshot(ingested) == before  # no ratings, the old catalog and stamp, no temp file
    assert main(["rate", "--no-flow", "--store", str(ingested), "--system", "elo"]) == 0
    assert views_in(ingested / "catalog.duckdb") == 17


def test_a_checkpoint_that_fails_silently_leaves_no_catalog_without_views(
    tmp_path, games, capsys, monkeypatch
):
    # The report's ingest variant: a first ingest on a 300 KiB tmpfs exited 0 with a
    # catalog of 0 views. Here the disk counts as full (any free space is too little).
    root = tmp_path / "N"
    failing_checkpoint(monkeypatch, "silent")
    monkeypatch.setattr(catalog, "CATALOG_ROOM", 2**62, raising=False)
    code = main(["ingest", "--no-flow", "--store", str(root), str(games)])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2
    assert line == (
        f"arpad: error: disk full ([Errno 28] No space left on device: "
        f"'{root / 'catalog.duckdb'}'): the store is as before"
    )
    assert not (root / "catalog.duckdb").exists() and not (root / "games").exists()
    # With room on the disk the same silent failure is an error naming it, and the
    # catalog in place (built before) is kept with its stamp.
    monkeypatch.undo()
    assert main(["ingest", "--no-flow", "--store", str(root), str(games)]) == 0
    before = snapshot(root)
    failing_checkpoint(monkeypatch, "silent")
    with pytest.raises(RuntimeError, match="DuckDB wrote the catalog with its views in its WAL"):
        catalog.refresh(Store(root), force=True)
    monkeypatch.undo()
    assert snapshot(root) == before
    assert views_in(root / "catalog.duckdb") == 17


def _viewless_catalog(root: Path, views_in_stamp: bool) -> None:
    """``catalog.duckdb`` as the old arpad left it on a nearly full disk: no views, stamped
    as current (``views``: as a stamp of this arpad would say, which it never writes for
    such a file)."""
    store = Store(root)
    os.unlink(store.catalog_path)
    duckdb.connect(str(store.catalog_path)).close()
    stamp = {
        "definition": catalog._definition(store, catalog._view_sqls(store)),
        "catalog": catalog._file_identity(store.catalog_path),
    }
    if views_in_stamp:
        stamp["views"] = 17  # len(catalog.VIEW_NAMES)
    (root / catalog.STAMP_NAME).write_text(json.dumps(stamp))


def test_a_catalog_stamped_without_its_views_is_rebuilt_and_named_by_check(rated, capsys):
    listing = ["list", "--store", str(rated), "--system", "elo"]
    assert main(listing) == 0
    expected = capsys.readouterr().out
    assert "p1" in expected
    _viewless_catalog(rated, views_in_stamp=False)
    assert views_in(rated / "catalog.duckdb") == 0
    # Reading commands define the views themselves (it was a DuckDB CatalogException).
    assert main(listing) == 0
    assert capsys.readouterr().out == expected
    assert main(["check", "--store", str(rated)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out == [EMPTY_LINE, f"arpad: 1 problem(s) in the store {rated}"]
    # The next writing command rebuilds it (its stamp did not keep it any more).
    assert main(["rate", "--no-flow", "--store", str(rated), "--system", "elo"]) == 0
    assert views_in(rated / "catalog.duckdb") == 17
    stamp = json.loads((rated / catalog.STAMP_NAME).read_text())
    assert stamp["views"] == 17
    capsys.readouterr()
    assert main(["check", "--store", str(rated)]) == 0
    assert capsys.readouterr().out == f"{rated}: no problem found\n"


def test_a_reading_command_on_a_trusted_catalog_without_views_is_one_line(rated, capsys):
    _viewless_catalog(rated, views_in_stamp=True)  # a stamp this arpad would trust
    for command in (["list", "--system", "elo"], ["history", "p1"], ["era", "--system", "elo"]):
        assert main([*command, "--store", str(rated)]) == 2, command
        line = one_error_line(capsys.readouterr().err)
        assert line == (
            f"arpad: error: {rated / 'catalog.duckdb'}: holds 0 of its 17 views (no games, "
            "players, ratings, quarantine, …): the store is damaged; remove it: the next "
            "arpad ingest or rate writes it again (free some disk space first if the disk "
            "is full)"
        )
    os.unlink(rated / "catalog.duckdb")  # the repair given
    assert main(["list", "--store", str(rated), "--system", "elo"]) == 0
    assert (
        main(["ingest", "--no-flow", "--store", str(rated), str(rated.parent / "games.csv")]) == 0
    )
    assert views_in(rated / "catalog.duckdb") == 17


@pytest.mark.parametrize(
    ("argv", "env", "said"),
    [
        (["--store", " "], None, "--store is blank (' ')"),
        (["--store", "\t "], None, "--store is blank ('\\t ')"),
        ([], " ", "ARPAD_STORE is blank (' ')"),
    ],
)
def test_a_blank_store_is_refused(tmp_path, games, monkeypatch, capsys, argv, env, said):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    if env is None:
        monkeypatch.delenv("ARPAD_STORE", raising=False)
    else:
        monkeypatch.setenv("ARPAD_STORE", env)
    assert main(["ingest", "--no-flow", str(games), *argv]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"arpad: error: {said}: name the store directory")
    assert list(work.iterdir()) == []  # no store named with a space
