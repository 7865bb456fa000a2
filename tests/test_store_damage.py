"""A store damaged by hand, by a crash or by another tool (docs/store.md "A damaged store:
what was tried"). A small store (a players file with ratings, three months of games, rated
by FIDE and Glicko-2, the FIDE list of the last month published) is copied, the copy
damaged in one way, and the commands a user runs next are run on it: each gives the right
result (compared with the undamaged store) or exits 2 with one line naming the damaged
file, and no other file of the store changes."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import arpad
from arpad.pipeline.cli import main

PLAYERS = [str(1000 + i) for i in range(20)]


def _write_games(path: Path, month: int, rnd: random.Random) -> None:
    lines = ["date,white_id,black_id,score,event_id"]
    for j in range(30):
        w, b = rnd.sample(PLAYERS, 2)
        lines.append(
            f"2025-{month:02d}-{1 + j % 27:02d},{w},{b},{rnd.choice([0, 0.5, 1])},E{month}"
        )
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """(folder, store): the undamaged store; ``g4.csv`` (April) is the next month's file."""
    folder = tmp_path_factory.mktemp("damage")
    rnd = random.Random(1)
    rows = ["player_id,name,rating,rated_games"]
    rows += [f'{p},"P{i}, X",{1800 + 20 * i},50' for i, p in enumerate(PLAYERS)]
    (folder / "players.csv").write_text("\n".join(rows) + "\n")
    for month in (1, 2, 3, 4):
        _write_games(folder / f"g{month}.csv", month, rnd)
    store = folder / "store"
    games = [str(folder / f"g{m}.csv") for m in (1, 2, 3)]
    args = ["--players", str(folder / "players.csv"), *games]
    assert main(["ingest", "--no-flow", "--store", str(store), *args]) == 0
    for system in ("fide", "glicko2"):
        assert main(["rate", "--no-flow", "--system", system, "--store", str(store)]) == 0
    assert main(["publish", "--system", "fide", "--store", str(store)]) == 0
    return folder, store


@pytest.fixture
def copy(pristine, tmp_path):
    """A fresh copy of the undamaged store (symlinks kept as symlinks)."""
    _, store = pristine
    target = tmp_path / "store"
    shutil.copytree(store, target, symlinks=True)
    return target


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.name != ".lock"
    }


def run(capsys, store: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([args[0], "--store", str(store), *args[1:]])
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, err: str, *words: str) -> str:
    """Exit 2 with one line ``arpad: error: …`` holding every word; no traceback."""
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("arpad: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def unchanged_except(before: dict, after: dict, *allowed: str) -> None:
    """Every file of ``before`` still there with the same bytes, but those under ``allowed``."""
    for name, digest in before.items():
        if name.startswith(allowed):
            continue
        assert after.get(name) == digest, name


def games_file(store: Path, period: int = 202502) -> Path:
    return next((store / f"games/pool=standard/period={period}").glob("part-*.parquet"))


def ratings_file(store: Path, system: str = "fide", period: int = 202503) -> Path:
    return store / f"ratings/system={system}/pool=standard/period={period}/part-0.parquet"


def ratings_values(store: Path, system: str) -> dict[tuple[int, str], float]:
    table = arpad.Store(store).ratings(system)
    return {
        (p, i): r
        for p, i, r in zip(table["period"], table["player_id"], table["rating_after"], strict=True)
    }


def rewrite(path: Path, change) -> None:
    pq.write_table(change(pq.read_table(path)), path)


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# -- a games partition file ----------------------------------------------------------------

GAMES_DAMAGE = {
    "truncated": truncate,
    "csv": lambda p: p.write_text("date,white_id,black_id,score\n2025-02-01,1000,1001,1\n"),
    "directory": lambda p: (p.unlink(), p.mkdir()),
    "no-source": lambda p: rewrite(p, lambda t: t.drop_columns(["source"])),
    "no-rated": lambda p: rewrite(p, lambda t: t.drop_columns(["rated"])),
    "no-score": lambda p: rewrite(p, lambda t: t.drop_columns(["score"])),
}


# The command reads no column the damage removed: its answer is right (ingest checks new
# game ids against the stored ones, ``count(*)`` counts rows).
READS_NO_SUCH_COLUMN = {("ingest", "no-rated")} | {
    ("sql", d) for d in ("no-rated", "no-score", "no-source")
}


@pytest.mark.parametrize("damage", sorted(GAMES_DAMAGE))
@pytest.mark.parametrize(
    "command",
    [
        ("rate", "--no-flow", "--system", "glicko2", "--full"),
        ("reconstruct", "--no-flow", "--systems", "glicko2"),
        ("ingest", "--no-flow", "{g4}"),
        ("sql", "select count(*) as n from games", "--format", "csv"),
        ("history", "1005", "--system", "glicko2"),
    ],
    ids=lambda c: c[0] + ("-full" if "--full" in c else ""),
)
def test_a_damaged_games_file_is_named_and_nothing_else_changes(
    pristine, copy, capsys, damage, command
):
    folder, _ = pristine
    path = games_file(copy)
    GAMES_DAMAGE[damage](path)
    before = snapshot(copy)
    args = [a.replace("{g4}", str(folder / "g4.csv")) for a in command]
    code, out, err = run(capsys, copy, *args)
    if command[0] == "history" and code == 0:
        # history reads the ratings files, which the damage left alone: the right answer
        assert (code, out) == run(capsys, pristine[1], *args)[:2]
    elif (command[0], damage) in READS_NO_SUCH_COLUMN:  # the right answer
        assert code == 0, err
        if command[0] == "sql":
            assert out.split() == ["n", "90"]
        else:  # ingest: the damaged file and every games and ratings file as they were
            after = snapshot(copy)
            assert all(
                after[k] == v for k, v in before.items() if k.startswith(("games", "ratings"))
            )
            return
    else:
        line = refused(code, err, path.name)
        assert "arpad check" in line or "backup" in line
    unchanged_except(before, snapshot(copy), "catalog")


def test_a_games_file_with_an_extra_column_rates_as_before(pristine, copy, capsys):
    _, store = pristine
    path = games_file(copy)
    rewrite(path, lambda t: t.append_column("extra", pa.array(["x"] * t.num_rows)))
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2", "--full")
    assert code == 0, err
    assert ratings_values(copy, "glicko2") == ratings_values(store, "glicko2")


def test_a_deleted_games_file_is_noticed_by_rate(copy, capsys):
    """The manifest says batch B has accepted games; no file of B is left: rating
    without them would be a silent wrong answer (period 202502 rated as empty)."""
    path = games_file(copy)
    path.unlink()
    before = snapshot(copy)
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2", "--full")
    refused(code, err, path.stem.removeprefix("part-"), "manifest")
    assert snapshot(copy) == before


# -- ratings files -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    {
        "no-status": lambda t: t.drop_columns(["status"]),
        "rating-as-text": lambda t: t.set_column(
            t.schema.get_field_index("rating_after"),
            "rating_after",
            t.column("rating_after").cast(pa.string()),
        ),
    }.items(),
    ids=lambda d: d[0],
)
@pytest.mark.parametrize("command", ["list", "site"])
def test_a_damaged_ratings_file_is_named_by_list_and_site(copy, capsys, tmp_path, damage, command):
    path = ratings_file(copy)
    rewrite(path, damage[1])
    before = snapshot(copy)
    args = (
        ("list", "--system", "fide")
        if command == "list"
        else ("site", "--out", str(tmp_path / "s"))
    )
    code, _, err = run(capsys, copy, *args)
    refused(code, err, "period=202503", "part-0.parquet", "arpad rate")
    unchanged_except(before, snapshot(copy), "catalog")


def test_a_truncated_checkpoint_is_named_with_its_repair(pristine, copy, capsys):
    folder, store = pristine
    state = copy / "state/system=glicko2/pool=standard/period=202503/players.parquet"
    truncate(state)
    assert run(capsys, copy, "ingest", "--no-flow", str(folder / "g4.csv"))[0] == 0
    before = snapshot(copy)
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2")
    refused(code, err, "players.parquet", "--full")
    unchanged_except(before, snapshot(copy), "catalog")
    # the repair it names gives the ratings of the undamaged store
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2", "--full")
    assert code == 0, err
    old = ratings_values(store, "glicko2")
    assert {k: v for k, v in ratings_values(copy, "glicko2").items() if k[0] < 202504} == old


# -- the players table and the player keys ----------------------------------------------------


def test_a_deleted_players_table_is_named(copy, capsys):
    (copy / "players/players.parquet").unlink()
    before = snapshot(copy)
    for args in (
        ("rate", "--no-flow", "--system", "glicko2", "--full"),
        ("list", "--system", "glicko2"),
    ):
        code, _, err = run(capsys, copy, *args)
        refused(code, err, "players.parquet", "backup")
    unchanged_except(before, snapshot(copy), "catalog")


def test_duplicate_player_ids_are_named(copy, capsys):
    """Today's list showed every player twice; rate must not pick one of the rows."""
    rewrite(copy / "players/players.parquet", lambda t: pa.concat_tables([t, t.slice(5, 1)]))
    before = snapshot(copy)
    for args in (("list", "--system", "fide"), ("rate", "--no-flow", "--system", "fide")):
        code, _, err = run(capsys, copy, *args)
        refused(code, err, "players.parquet", "1005")
    unchanged_except(before, snapshot(copy), "catalog")


def test_deleted_keys_rate_right_and_ingest_refuses(pristine, copy, capsys):
    """Without the dictionary the engine maps games by their string ids: the same ratings.
    An ingest would start the keys again at 0 and give the old files' keys to other
    players: refused."""
    folder, store = pristine
    (copy / "players/keys.parquet").unlink()
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2", "--full")
    assert code == 0, err
    assert ratings_values(copy, "glicko2") == ratings_values(store, "glicko2")
    before = snapshot(copy)
    code, _, err = run(capsys, copy, "ingest", "--no-flow", str(folder / "g4.csv"))
    refused(code, err, "keys.parquet", "backup")
    unchanged_except(before, snapshot(copy), "catalog")


def test_keys_inconsistent_with_the_games_are_found_by_check(copy, capsys):
    path = copy / "players/keys.parquet"
    rewrite(path, lambda t: pa.table({"player_id": t["player_id"][::-1], "key": t["key"]}))
    code, out, err = run(capsys, copy, "check")
    assert code == 2
    assert "keys.parquet" in out + err


# -- the catalog, the lock, folder names, unreadable files, symlinks ---------------------------


@pytest.mark.parametrize(
    "damage",
    ["deleted", "truncated", "older"],
)
def test_a_damaged_catalog_is_rebuilt(pristine, copy, capsys, damage):
    _, store = pristine
    catalog = copy / "catalog.duckdb"
    if damage == "deleted":
        catalog.unlink()
    elif damage == "truncated":
        truncate(catalog)
    else:
        import duckdb

        catalog.unlink()
        con = duckdb.connect(str(catalog))
        con.execute("CREATE VIEW games AS SELECT 1 AS x")
        con.close()
    expected = run(capsys, store, "list", "--system", "fide", "--format", "csv")
    got = run(capsys, copy, "list", "--system", "fide", "--format", "csv")
    assert got == expected
    assert run(capsys, copy, "sql", "select count(*) as n from games", "--format", "csv")[1] == (
        "n\n90\n"
    )


@pytest.mark.parametrize("pid", [999_999_999, 1])
def test_a_stale_lock_file_does_not_block(copy, capsys, pid):
    """The lock is a ``flock``: a file left by a dead process (or naming a live process
    that is not arpad) holds no lock."""
    (copy / ".lock").write_text(json.dumps({"pid": pid, "command": "arpad rate", "since": "x"}))
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2")
    assert code == 0, err


@pytest.mark.parametrize("name", ["period=2024-13", "period=abc"])
@pytest.mark.parametrize("kind", ["games", "games-sql", "ratings"])
def test_a_partition_folder_with_a_wrong_name_is_named(copy, capsys, name, kind):
    """A copy of a period folder under a wrong name: ``sql`` counted its games twice."""
    if kind.startswith("games"):
        base = copy / "games/pool=standard"
        shutil.copytree(games_file(copy).parent, base / name)
        args = ("rate", "--no-flow", "--system", "glicko2", "--full")
        if kind == "games-sql":
            args = ("sql", "select count(*) as n from games")
    else:
        base = copy / "ratings/system=fide/pool=standard"
        shutil.copytree(ratings_file(copy).parent, base / name)
        args = ("list", "--system", "fide")
    before = snapshot(copy)
    code, _, err = run(capsys, copy, *args)
    refused(code, err, name)
    unchanged_except(before, snapshot(copy), "catalog")


@pytest.mark.parametrize(
    "where",
    [
        "players/players.parquet",
        "manifest/manifest.parquet",
        "games/pool=standard/period=202502/part-2acdf0d36b3adefe.parquet",
    ],
)
def test_an_unreadable_file_is_named(pristine, copy, capsys, where):
    """Simulated by a directory in the file's place (the tests run as root). FIDE's
    incremental rate reads the games' published ratings first (pipeline/observations.py)."""
    path = copy / where
    assert path.is_file()
    path.unlink()
    path.mkdir()
    for args in (("rate", "--no-flow", "--system", "fide"), ("list", "--system", "fide")):
        code, out, err = run(capsys, copy, *args)
        if "games" in where and args[0] == "list":  # reads no games file: the right list
            assert (code, out) == run(capsys, pristine[1], *args)[:2]
            continue
        refused(code, err, where.rsplit("/", 1)[-1], "a directory where a")


def test_a_symlink_out_of_the_store_is_read_and_never_written_through(
    pristine, copy, capsys, tmp_path
):
    _, store = pristine
    path = games_file(copy)
    outside = tmp_path / "elsewhere.parquet"
    shutil.copy(path, outside)
    path.unlink()
    path.symlink_to(outside)
    before = outside.read_bytes()
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "glicko2", "--full")
    assert code == 0, err
    assert ratings_values(copy, "glicko2") == ratings_values(store, "glicko2")
    assert outside.read_bytes() == before
    code, out, _ = run(capsys, copy, "check")
    assert code == 2 and "symlink" in out and path.name in out


# -- a published list edited by hand -----------------------------------------------------------


@pytest.mark.parametrize("command", ["diff", "site"])
def test_an_edited_published_list_is_noticed(copy, capsys, tmp_path, command):
    path = copy / "published/system=fide/pool=standard/period=202503/list.csv"
    path.write_text(path.read_text().replace(",", ";", 1))
    before = snapshot(copy)
    args = (
        ("diff", "--published", "202503", "--system", "fide")
        if command == "diff"
        else ("site", "--out", str(tmp_path / "s"))
    )
    code, _, err = run(capsys, copy, *args)
    refused(code, err, "list.csv", "sha256")
    unchanged_except(before, snapshot(copy), "catalog")


# -- arpad check ---------------------------------------------------------------------------------


def test_check_is_clean_on_an_undamaged_store(copy, capsys):
    code, out, err = run(capsys, copy, "check")
    assert code == 0, out + err
    assert "no problem" in out


def test_check_names_every_damaged_file_and_its_repair(copy, capsys):
    truncate(games_file(copy, 202501))
    rewrite(ratings_file(copy), lambda t: t.drop_columns(["status"]))
    truncate(copy / "state/system=glicko2/pool=standard/period=202503/players.parquet")
    before = snapshot(copy)
    code, out, _ = run(capsys, copy, "check")
    assert code == 2
    lines = out.strip().splitlines()
    problems = [line for line in lines if line.startswith(("games/", "ratings/", "state/"))]
    assert len(problems) == 3, out
    assert any(games_file(copy, 202501).name in p and "backup" in p for p in problems)
    assert any("period=202503/part-0.parquet" in p and "arpad rate" in p for p in problems)
    assert any("state/system=glicko2" in p and "--full" in p for p in problems)
    assert snapshot(copy) == before


def test_the_api_raises_the_same_one_line_errors(pristine, copy):
    """``arpad.Store`` in a notebook: the same checks, as ``arpad.InputError``."""
    store = arpad.Store(copy)
    path = games_file(copy)
    truncate(path)
    with pytest.raises(arpad.InputError, match=path.name) as caught:
        store.rate("glicko2", full=True)
    assert "\n" not in str(caught.value)
    shutil.copy(games_file(pristine[1]), path)  # repaired from the "backup"
    rewrite(ratings_file(copy), lambda t: t.drop_columns(["status"]))
    with pytest.raises(arpad.InputError, match="no column 'status'"):
        store.list("fide")


def test_a_directory_in_place_of_the_latest_ratings_file_is_not_an_older_list(copy, capsys):
    """``list`` showed the period before as the latest list, ``diff`` every published
    player as removed."""
    path = ratings_file(copy)
    path.unlink()
    path.mkdir()
    for args in (("list", "--system", "fide"), ("diff", "--published", "202503")):
        code, _, err = run(capsys, copy, *args)
        refused(code, err, "period=202503/part-0.parquet", "--full")
