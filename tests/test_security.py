"""Security guarantees (docs/operations.md, "Guarantees and limits").

* Names that become paths are checked (pipeline/names.py) where the store builds
  paths, and every store write or removal stays inside the store root.
* ``arpad sql`` runs on a connection that can write nothing and read no file
  except the store's (through arpad) and the ``--allow-file`` files.
* ``--output`` (and every other output option) never lands inside the store;
  output files are written atomically.

Each attack is checked the same way: exit 2, a one-line ``arpad: error: …``
message, and every byte of the store, of a sentinel folder beside it and of the
working directory unchanged (no new file anywhere in the folder around the store).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, names
from arpad.pipeline.cli import main
from arpad.pipeline.sql import connect_locked, run_readonly_sql
from arpad.pipeline.store import Store, atomic_write_parquet, atomic_write_text
from tests.conftest import write_csv

SECRET = "top-secret-sentinel-text"


def snapshot(root: Path) -> dict[str, str]:
    """Every file (and symlink) under ``root`` with its content hash."""
    out = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink():
            out[key] = "link->" + os.readlink(p)
        elif p.is_file():
            out[key] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_dir():
            out[key] = "dir"
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """``world/store`` (ingested, rated by elo and glicko, with quarantined rows),
    ``world/sentinel`` (files that must never change) and ``world/work`` (the cwd)."""
    world = tmp_path_factory.mktemp("world")
    (world / "work").mkdir()
    sentinel = world / "sentinel"
    sentinel.mkdir()
    (sentinel / "secret.csv").write_text(f"a,b\n1,{SECRET}\n")
    (sentinel / "secret.txt").write_text(SECRET + "\n")
    inputs = world / "inputs"
    inputs.mkdir()
    players = write_csv(
        inputs / "players.csv", "player_id,name,federation", ["A,Anna,AUT", "B,Bert,GER"]
    )
    games = write_csv(
        inputs / "games.csv",
        "game_id,date,white_id,black_id,result",
        [
            "g1,2024-01-05,A,B,1-0",
            "g2,2024-01-06,C,D,1/2-1/2",
            "g3,2024-02-07,B,C,0-1",
            "g4,2024-02-08,A,A,1-0",  # quarantined: self_play
        ],
    )
    store = str(world / "store")
    assert (
        main(["ingest", "--no-flow", "--store", store, str(games), "--players", str(players)]) == 2
    )
    for system in ("elo", "glicko"):
        assert main(["rate", "--no-flow", "--store", store, "--system", system]) == 0
    return world


@pytest.fixture
def guarded(world, monkeypatch, capsys):
    """Run in ``world/work``; afterwards nothing in ``world`` may have changed."""
    monkeypatch.chdir(world / "work")
    before = snapshot(world)
    capsys.readouterr()
    yield world
    assert snapshot(world) == before


def run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, err: str, fragment: str = "") -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arpad: error: "), err
    assert fragment in lines[0], err


# -- 1. names that become paths ------------------------------------------------------------

BAD_NAMES = [
    "standard/../../system=glicko/pool=standard",  # the reported attack
    "..",
    "../standard",
    "standard/..",
    "/",
    "/etc",
    "/tmp/x",
    "a/b",
    "a\\b",
    "..\\..\\x",
    "std\x00ard",
    "x" * 300,
    "stándard",
    "ｓｔａｎｄａｒｄ",  # fullwidth letters
    "Standard",
    "",
    " standard",
    "standard\n",
    "pool=standard",
    "*",
]


@pytest.mark.parametrize("bad", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_rate_refuses_bad_pool(guarded, capsys, bad):
    store = str(guarded / "store")
    code, _, err = run(
        ["rate", "--no-flow", "--store", store, "--system", "elo", "--pool", bad], capsys
    )
    assert_refused(code, err, "invalid pool name")


def test_rate_reported_attack_leaves_glicko_ratings(guarded, capsys):
    store = guarded / "store"
    attack = "standard/../../system=glicko/pool=standard"
    code, _, err = run(
        ["rate", "--system", "elo", "--store", str(store), "--pool", attack, "--no-flow"], capsys
    )
    assert_refused(code, err, "invalid pool name 'standard/../../system=glicko/pool=standard'")
    assert Store(store).rating_periods("glicko", "standard") == [202401, 202402]


@pytest.mark.parametrize("bad", BAD_NAMES[:12], ids=range(12))
@pytest.mark.parametrize("option", ["--pool", "--system"])
def test_list_refuses_bad_names(guarded, capsys, bad, option):
    # one --system only: a second one with another value is refused as such (docs/cli.md)
    system = [] if option == "--system" else ["--system", "elo"]
    args = ["list", "--store", str(guarded / "store"), *system, option, bad]
    code, _, err = run(args, capsys)
    assert_refused(code, err, f"invalid {option[2:]} name")


@pytest.mark.parametrize("bad", ["../x", "standard,../x", "/etc", "a\\b"])
@pytest.mark.parametrize("option", ["--pools", "--systems"])
def test_recalculate_refuses_bad_names(guarded, capsys, bad, option):
    inbox = guarded / "work" / "inbox"
    inbox.mkdir()
    try:
        (inbox / "new.csv").write_text("date,white_id,black_id,result\n2024-03-01,A,B,1-0\n")
        before = snapshot(inbox)
        args = ["recalculate", "--no-flow", "--store", str(guarded / "store"), "--inbox"]
        code, _, err = run([*args, str(inbox), option, bad], capsys)
        assert_refused(code, err, f"invalid {option[2:-1]} name")
        assert snapshot(inbox) == before  # the inbox file was neither ingested nor moved
    finally:
        shutil.rmtree(inbox)


def test_reconstruct_refuses_bad_systems(guarded, capsys):
    args = ["reconstruct", "--no-flow", "--store", str(guarded / "store"), "--systems", "elo,../x"]
    code, _, err = run(args, capsys)
    assert_refused(code, err, "invalid system name")


def test_ingest_pool_column_cannot_escape(guarded, capsys, tmp_path):
    """A pool given in the data is a value, checked against the known pools: quarantined."""
    root = tmp_path / "store"
    shutil.copytree(guarded / "store", root)
    games = write_csv(
        tmp_path / "evil.csv",
        "date,white_id,black_id,result,pool",
        ["2024-03-01,A,B,1-0,standard/../../system=glicko/pool=standard", "2024-03-02,A,B,1-0,.."],
    )
    before = snapshot(root)
    code, _, err = run(["ingest", "--no-flow", "--store", str(root), str(games)], capsys)
    assert code == 2 and "bad_pool 2" in err
    changed = {k for k, v in snapshot(root).items() if before.get(k) != v}
    assert all(k.startswith(("quarantine", "manifest", "catalog")) for k in changed), changed


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".", "x\x00y", "a\nb", "x" * 256])
def test_source_and_file_names(bad):
    with pytest.raises(ValueError, match="invalid source name"):
        names.file_name(bad, "source")


def test_store_api_refuses_bad_names_and_escapes(world, tmp_path):
    """The Store checks names wherever it builds a path, so no caller can bypass it."""
    root = tmp_path / "store"
    shutil.copytree(world / "store", root)
    store = Store(root)
    before = snapshot(tmp_path)
    table = store.read_ratings("elo", "standard", 202401)
    attack = "standard/../../system=glicko/pool=standard"
    calls = [
        lambda: store.write_ratings("elo", attack, 202401, table),
        lambda: store.write_ratings("../elo", "standard", 202401, table),
        lambda: store.remove_ratings("elo", attack, 202401),
        lambda: store.rating_partition("elo", "standard", "202401/../../x"),
        lambda: store.rating_partition("elo", "standard", 0),
        lambda: store.rating_partition("elo", "standard", True),
        lambda: store.game_partition("/etc", 202401),
        lambda: store.game_files("..", None),
        lambda: store.periods("../x"),
        lambda: store.state_periods("elo", ".."),
        lambda: store.write_state("elo", "standard", 202401, {"../x": table}, {}),
        lambda: store.write_games(table, "../x"),
        lambda: store.remove_batch_games("*"),
        lambda: store.write_quarantine(table, "../../x"),
        lambda: store.journal_path("elo", "../x"),
        lambda: store.export_dir("../x", "standard"),
        lambda: store.remove_file(tmp_path / "outside.txt"),
        lambda: store.remove_tree(tmp_path),
        lambda: store.remove_tree(root / ".." / "x"),
        lambda: atomic_write_parquet(table, root / ".." / "x.parquet", root),
        lambda: atomic_write_text("x", root / "ratings" / ".." / ".." / "x.txt", root),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(ValueError):
            call()
        assert snapshot(tmp_path) == before, i


def test_store_writes_do_not_follow_symlinks_out(world, tmp_path):
    """A symlinked directory inside the store that points outside: writes refused."""
    root = tmp_path / "store"
    shutil.copytree(world / "store", root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "ratings" / "system=evil").symlink_to(outside, target_is_directory=True)
    store = Store(root)
    table = store.read_ratings("elo", "standard", 202401)
    with pytest.raises(ValueError, match="not inside the store"):
        store.write_ratings("evil", "standard", 202401, table)
    with pytest.raises(ValueError, match="not inside the store"):
        store.remove_ratings("evil", "standard", 202401)
    assert list(outside.iterdir()) == []


def test_valid_names_are_unchanged():
    for system in ("fide", "elo", "elo-linear", "glicko2", "whr", "uscf", "ecf", "ingo"):
        assert names.system(system) == system
    for pool in ("standard", "rapid", "blitz"):
        assert names.pool(pool) == pool
    assert names.period(202403) == 202403
    assert names.batch("1a8077569b467e9b") == "1a8077569b467e9b"
    assert names.file_name("Österreich 2024.pgn") == "Österreich 2024.pgn"


# -- 2./4. read-only SQL -------------------------------------------------------------------------

# Statements that must be refused; {T} is the sentinel folder, {S} the store.
WRITES = [
    "COPY (SELECT 42) TO 'x.csv'",
    "COPY (SELECT 42) TO '{T}/x.csv'",
    "COPY games TO '{S}/games/pool=standard/period=202401/part-evil.parquet' (FORMAT parquet)",
    "COPY (SELECT 1) TO '{S}/catalog.duckdb'",
    "COPY players FROM '{T}/secret.csv'",
    "EXPORT DATABASE '{T}/export'",
    "INSERT INTO players (player_id) VALUES ('X')",
    "UPDATE players SET name = 'x'",
    "DELETE FROM players",
    "MERGE INTO players USING (SELECT 'A' AS player_id) s "
    "ON players.player_id = s.player_id WHEN MATCHED THEN DELETE",
    "CREATE TABLE t AS SELECT 1",
    "CREATE TEMP TABLE t AS SELECT 1",
    "CREATE VIEW v AS SELECT 1",
    "CREATE OR REPLACE VIEW games AS SELECT 1",
    "CREATE MACRO m(x) AS x",
    "CREATE FUNCTION f(x) AS x",
    "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
    "CREATE SEQUENCE q",
    "CREATE SCHEMA sc",
    "CREATE TYPE ty AS ENUM ('a')",
    "DROP VIEW games",
    "DROP TABLE players",
    "ALTER VIEW games RENAME TO g",
    "COMMENT ON VIEW games IS 'x'",
    "ATTACH '{T}/x.db' AS x",
    "ATTACH '{S}/catalog.duckdb' AS c",
    "DETACH memory",
    "USE memory",
    "PRAGMA enable_profiling",
    "PRAGMA profiling_output = '{T}/profile.txt'",
    "PRAGMA database_size",
    "SET enable_external_access = true",
    "SET threads = 1",
    "SET temp_directory = '{T}'",
    "SET VARIABLE v = 1",
    "RESET enable_external_access",
    "CALL pragma_version()",
    "LOAD httpfs",
    "INSTALL httpfs",
    "VACUUM",
    "ANALYZE",
    "CHECKPOINT",
    "BEGIN TRANSACTION",
    "COMMIT",
    "ROLLBACK",
    "PREPARE p AS SELECT 1",
    "EXECUTE p",
    "COPY FROM DATABASE memory TO x",
    "UPDATE EXTENSIONS",
]
EXPLAINED = [f"EXPLAIN ANALYZE {s}" for s in WRITES] + [f"EXPLAIN {s}" for s in WRITES[:12]]
# Reads of files other than the store's: refused by DuckDB (external access off).
FILE_READS = [
    "SELECT * FROM read_csv('{T}/secret.csv')",
    "SELECT * FROM read_csv_auto('{T}/secret.csv')",
    "SELECT * FROM '{T}/secret.csv'",
    "SELECT * FROM 'x.csv'",
    "SELECT * FROM read_parquet('{S}/players/players.parquet')",
    "SELECT * FROM '{S}/players/players.parquet'",
    "SELECT * FROM read_json('{T}/secret.csv')",
    "SELECT * FROM read_json_auto('{T}/secret.csv')",
    "SELECT * FROM read_ndjson('{T}/secret.csv')",
    "SELECT * FROM read_text('{T}/secret.txt')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('{T}/secret.txt')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM glob('{T}/*')",
    "SELECT * FROM parquet_metadata('{S}/players/players.parquet')",
    "SELECT * FROM parquet_schema('{S}/players/players.parquet')",
    "SELECT * FROM parquet_file_metadata('{S}/players/players.parquet')",
    "SELECT * FROM parquet_kv_metadata('{S}/players/players.parquet')",
    "SELECT * FROM sniff_csv('{T}/secret.csv')",
    "SELECT * FROM read_csv(['{T}/secret.csv', '/etc/passwd'])",
    "SELECT * FROM query('SELECT * FROM read_text(''{T}/secret.txt'')')",
    "SELECT * FROM os",  # a Python object (replacement scan)
]
# Writes hidden inside reads, and more than one statement.
HIDDEN = [
    "WITH x AS (COPY (SELECT 1) TO 'x.csv') SELECT 1",
    "SELECT * FROM (COPY (SELECT 1) TO 'x.csv')",
    "SELECT * FROM query('COPY (SELECT 1) TO ''x.csv''')",
    "SELECT 1; COPY (SELECT 1) TO 'x.csv'",
    "SELECT 1; DROP VIEW games",
    "SELECT 1; SELECT 2",
    "/* comment */ EXPLAIN ANALYZE COPY (SELECT 42) TO 'x.csv'",
    "EXPLAIN (FORMAT json) COPY (SELECT 42) TO 'x.csv'",
    "explain analyse copy (select 42) to 'x.csv'",
]
ESCAPES = WRITES + EXPLAINED + FILE_READS + HIDDEN


def _fill(statement: str, world: Path) -> str:
    return statement.replace("{T}", str(world / "sentinel")).replace("{S}", str(world / "store"))


@pytest.mark.parametrize("statement", ESCAPES)
def test_sql_escape_refused(guarded, capsys, statement):
    query = _fill(statement, guarded)
    code, out, err = run(["sql", query, "--store", str(guarded / "store")], capsys)
    assert_refused(code, err)
    assert SECRET not in out + err
    assert "root:" not in out + err  # /etc/passwd


def test_sql_escape_suite_covers_every_statement_type():
    """Each duckdb.StatementType a statement can have is in the suite (the rest cannot
    be produced from SQL text by this DuckDB: parsed as another type, or internal)."""
    parser = duckdb.connect()
    seen = set()
    for statement in ESCAPES:
        try:
            seen.update(
                s.type.name for s in parser.extract_statements(_fill(statement, Path("/x")))
            )
        except (duckdb.Error, ValueError):
            continue
    not_from_text = {
        "INVALID",
        "RELATION",  # Python relational API objects
        "LOGICAL_PLAN",
        "MULTI",
        "EXTENSION",  # statements of parser extensions (none loaded)
        "ANALYZE",  # ANALYZE parses as VACUUM
        "VARIABLE_SET",  # SET VARIABLE parses as SET
        "CREATE_FUNC",  # CREATE MACRO/FUNCTION parse as CREATE
        "COPY_DATABASE",  # COPY FROM DATABASE parses as PRAGMA
    }
    assert seen | not_from_text >= set(duckdb.StatementType.__members__), (
        set(duckdb.StatementType.__members__) - seen - not_from_text
    )


HARMLESS = [
    ("SELECT count(*) AS n FROM games", "3"),
    ("EXPLAIN SELECT * FROM games", "physical_plan"),
    ("EXPLAIN ANALYZE SELECT count(*) FROM ratings", "analyzed_plan"),
    ("WITH x AS (SELECT 1 AS one) SELECT * FROM x", "one"),
    ("FROM players SELECT name ORDER BY name", "Anna"),
    ("DESCRIBE rating_list", "rating"),
    ("SHOW TABLES", "rating_list"),
    ("SUMMARIZE games", "game_id"),
    ("SELECT * FROM duckdb_settings() WHERE name = 'enable_external_access'", "false"),
    ("SELECT current_setting('lock_configuration') AS locked", "true"),
    ("SELECT * FROM query_table('players')", "Bert"),
]


@pytest.mark.parametrize("statement,expected", HARMLESS)
def test_sql_reads_still_work(guarded, capsys, statement, expected):
    code, out, err = run(["sql", statement, "--store", str(guarded / "store")], capsys)
    assert code == 0, err
    assert expected in out


def test_locked_views_equal_catalog_views(world, tmp_path):
    """The locked connection's views have the catalog's columns, types and rows."""
    import shutil

    # a copy with a merge, so the alias, merge-log and corrections views have rows too
    shutil.copytree(world / "store", tmp_path / "store")
    store = Store(tmp_path / "store")
    assert main(["players", "merge", "C", "D", "--force", "--store", str(store.root)]) == 0
    plain = catalog.connect(store)
    locked = connect_locked(store)
    try:
        for name in [*catalog.BASE_VIEWS, *catalog.DERIVED_VIEWS]:
            assert (
                locked.sql(f"DESCRIBE {name}").fetchall()
                == plain.sql(f"DESCRIBE {name}").fetchall()
            )
            rows = sorted(map(repr, plain.sql(f"SELECT * FROM {name}").fetchall()))
            assert sorted(map(repr, locked.sql(f"SELECT * FROM {name}").fetchall())) == rows
            assert rows or name == "movers", name  # every view has rows here
    finally:
        plain.close()
        locked.close()


def test_sql_on_an_empty_store(tmp_path):
    store = Store(tmp_path / "empty")
    store.ensure()
    frame = run_readonly_sql(store, "SELECT count(*) AS n FROM rating_list", [])
    assert frame["n"].to_list() == [0]


def test_sql_spill_directory_is_private_and_removed(world, monkeypatch, tmp_path):
    """Spill files go to a private temporary folder that is deleted afterwards."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    frame = run_readonly_sql(
        Store(world / "store"), "SELECT current_setting('temp_directory') AS d", []
    )
    spill = Path(frame["d"][0])
    assert spill.parent == tmp_path and spill.name.startswith("arpad-sql-")
    assert not spill.exists()


# -- 3. --output never inside the store ----------------------------------------------------------


def _inside_outputs(world: Path) -> list[str]:
    store = world / "store"
    part = next((store / "games").rglob("part-*.parquet"))
    link = world / "work" / "link-to-store"
    if not link.is_symlink():
        link.symlink_to(store, target_is_directory=True)
    file_link = world / "work" / "out-link.csv"
    if not file_link.is_symlink():
        file_link.symlink_to(store / "players" / "players.parquet")
    return [
        str(part),
        str(store / "catalog.duckdb"),
        str(store / "new.csv"),
        str(store),
        str(store / "ratings" / ".." / "x.csv"),
        str(world / "sentinel" / ".." / "store" / "x.csv"),
        "../store/players/players.parquet",
        "link-to-store/manifest/manifest.parquet",
        "out-link.csv",
    ]


@pytest.fixture
def guarded_links(world):
    _inside_outputs(world)  # the symlinks exist before the snapshot
    return world


@pytest.mark.parametrize("index", range(9))
@pytest.mark.parametrize(
    "command",
    [
        ["sql", "SELECT * FROM games"],
        ["sql", "SELECT * FROM games", "--format", "parquet"],
        ["list", "--system", "elo"],
        ["list", "--system", "elo", "--format", "parquet"],
        ["history", "A", "--system", "elo"],
        ["history", "A", "--system", "elo", "--plot-instead"],
        ["plot", "distribution", "--system", "elo"],
    ],
    ids=["sql", "sql-parquet", "list", "list-parquet", "history", "history-plot", "plot"],
)
def test_output_inside_store_refused(guarded_links, guarded, capsys, command, index):
    target = _inside_outputs(guarded)[index]
    option = "--output"
    if command[-1] == "--plot-instead":
        command, option = command[:-1], "--plot"
    args = [*command, "--store", str(guarded / "store"), option, target]
    code, _, err = run(args, capsys)
    assert_refused(code, err, "inside the store")


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "table"])
def test_output_outside_store_works(world, tmp_path, capsys, fmt):
    out = tmp_path / f"out.{fmt}"
    store = str(world / "store")
    args = ["sql", "SELECT player_id FROM players ORDER BY 1", "--store", store]
    assert main([*args, "--format", fmt, "--output", str(out)]) == 0
    if fmt == "parquet":
        assert pq.read_table(out).column("player_id").to_pylist() == ["A", "B", "C", "D"]
    else:
        assert "B" in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]  # no temporary left
    out2 = tmp_path / f"list.{fmt}"
    assert (
        main(["list", "--store", store, "--system", "elo", "--format", fmt, "--output", str(out2)])
        == 0
    )
    assert out2.stat().st_size > 0


def test_output_write_is_atomic(world, tmp_path, monkeypatch):
    """A write that dies half-way leaves the previous file intact and no temporary file."""
    out = tmp_path / "list.parquet"
    out.write_bytes(b"previous content")
    real_write = pq.write_table

    def dies(table, where, **kwargs):
        real_write(table.slice(0, 1), where, **kwargs)
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", dies)
    args = ["sql", "SELECT * FROM players", "--store", str(world / "store"), "--format", "parquet"]
    assert main([*args, "--output", str(out)]) == 1
    assert out.read_bytes() == b"previous content"
    assert [p.name for p in tmp_path.iterdir()] == ["list.parquet"]


# -- 4. --allow-file --------------------------------------------------------------------------


def test_allow_file_join(world, tmp_path, capsys):
    clubs = write_csv(tmp_path / "clubs.csv", "player_id,club", ["A,Wien", "B,Graz"])
    query = "SELECT p.name, c.club FROM players p JOIN clubs c USING (player_id) ORDER BY p.name"
    store = str(world / "store")
    code, out, err = run(
        ["sql", query, "--store", store, "--allow-file", str(clubs), "--format", "csv"], capsys
    )
    assert code == 0, err
    assert out == "name,club\nAnna,Wien\nBert,Graz\n"
    # NAME=PATH, and a Parquet file
    pq.write_table(pa.table({"player_id": ["A"], "norms": [2]}), tmp_path / "n.parquet")
    args = ["--allow-file", f"c={clubs}", "--allow-file", f"norms={tmp_path / 'n.parquet'}"]
    query = "SELECT club, norms FROM c JOIN norms USING (player_id)"
    code, out, err = run(["sql", query, "--store", store, *args, "--format", "csv"], capsys)
    assert code == 0, err
    assert out == "club,norms\nWien,2\n"


def test_allow_file_allows_only_that_file(guarded, capsys, tmp_path):
    clubs = write_csv(tmp_path / "clubs.csv", "player_id,club", ["A,Wien"])
    store = str(guarded / "store")
    for query in (
        f"SELECT * FROM read_csv('{clubs}')",
        f"SELECT * FROM read_csv('{guarded / 'sentinel' / 'secret.csv'}')",
        "SELECT * FROM read_text('/etc/passwd')",
    ):
        code, out, err = run(["sql", query, "--store", store, "--allow-file", str(clubs)], capsys)
        assert_refused(code, err, "Permission Error")
        assert SECRET not in out


@pytest.mark.parametrize(
    "spec,message",
    [
        ("missing.csv", "no such file"),
        ("games=clubs.csv", "already taken"),
        ("clubs.xlsx", "unknown file type"),
    ],
)
def test_allow_file_errors(world, tmp_path, monkeypatch, capsys, spec, message):
    monkeypatch.chdir(tmp_path)
    write_csv(tmp_path / "clubs.csv", "player_id,club", ["A,Wien"])
    (tmp_path / "clubs.xlsx").write_bytes(b"x")
    args = ["sql", "SELECT 1", "--store", str(world / "store"), "--allow-file", spec]
    code, _, err = run(args, capsys)
    assert_refused(code, err, message)


def test_inbox_file_with_unusable_name_is_rejected(world, tmp_path, capsys):
    root = tmp_path / "store"
    shutil.copytree(world / "store", root)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    bad = inbox / "march\x01.csv"
    bad.write_text("date,white_id,black_id,result\n2024-03-01,A,B,1-0\n")
    args = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    code, _, err = run([*args, "--systems", "elo"], capsys)
    assert code == 2 and "invalid inbox file name" in err
    assert (inbox / "rejected" / bad.name).exists() and not bad.exists()
    assert Store(root).periods("standard") == [202401, 202402]  # nothing ingested


@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--no-flow", "--out", "{S}/demo"],
        ["fide-sample", "{S}/ratings"],
        ["performance", "{T}/secret.csv", "--output", "{S}/perf.csv"],
        ["plot", "calibration", "{T}/p.parquet", "--output", "{S}/cal.png"],
    ],
    ids=["demo", "fide-sample", "performance", "plot-calibration"],
)
def test_outputs_of_commands_without_store_option_refused(guarded, capsys, args):
    """Commands without --store: an output inside any store (a folder with a catalog or a
    manifest) is refused too."""
    code, _, err = run([_fill(a, guarded) for a in args], capsys)
    assert_refused(code, err, "inside the store")
