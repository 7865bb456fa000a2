"""A store damaged where the earlier damage tests did not look (docs/store.md "A damaged
store: what was tried", "Store format"): a cut quarantine file, damaged JSON metadata
(stale.json, rated.json, a run journal, a checkpoint's meta.json, a staged ingest's
plan), a cut history, a ratings row with an unknown status, and a store written by a
newer arpad. Each: ``arpad check`` names the file, and the commands either answer as on
the undamaged store or exit 2 with one line naming the file and its repair."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.integrity import problems
from arpad.pipeline.store import STORE_FORMAT, Store

PLAYERS = [f"P{i}" for i in range(8)]


def _games(path: Path, month: int, bad_row: bool = False) -> None:
    lines = ["date,white_id,black_id,score"]
    for j in range(12):
        w, b = PLAYERS[j % 8], PLAYERS[(j + 3) % 8]
        lines.append(f"2025-{month:02d}-{1 + j:02d},{w},{b},{(0, 0.5, 1)[j % 3]}")
    if bad_row:
        lines.append(f"2025-{month:02d}-20,P1,P2,7")  # an impossible score: quarantined
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile_store")
    rows = ["player_id,name,rating"] + [
        f"{p},Name {p},{1600 + 25 * i}" for i, p in enumerate(PLAYERS)
    ]
    (folder / "players.csv").write_text("\n".join(rows) + "\n")
    for month in (1, 2, 3):
        _games(folder / f"g{month}.csv", month, bad_row=month == 2)
    _games(folder / "g4.csv", 4)
    store = folder / "store"
    first = ["ingest", "--no-flow", "--store", str(store), "--players", str(folder / "players.csv")]
    assert main([*first, str(folder / "g1.csv"), str(folder / "g3.csv")]) == 0
    # a row quarantined (an ingest that quarantines rows exits 2: docs/ingest.md)
    assert main(["ingest", "--no-flow", "--store", str(store), str(folder / "g2.csv")]) in (0, 2)
    assert len(list(store.glob("quarantine/batch=*/part-0.parquet"))) == 1
    assert main(["rate", "--no-flow", "--system", "elo", "--store", str(store)]) == 0
    return folder, store


@pytest.fixture
def copy(pristine, tmp_path):
    _, store = pristine
    target = tmp_path / "store"
    shutil.copytree(store, target, symlinks=True)
    return target


def run(capsys, store: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([args[0], "--store", str(store), *args[1:]])
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, err: str, start: str) -> str:
    """Exit 2 with exactly one line, ``arpad: error: <start>…``; no traceback."""
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith(f"arpad: error: {start}"), (start, lines[0])
    return lines[0]


def check_lines(capsys, store: Path) -> list[str]:
    code, out, err = run(capsys, store, "check")
    assert code == 2, out + err
    assert "Traceback" not in err
    lines = out.strip().splitlines()
    assert lines[-1].startswith("arpad: ") and "problem(s) in the store" in lines[-1]
    return lines[:-1]


# -- the store format ------------------------------------------------------------------------


def test_a_new_store_records_its_format(pristine, capsys):
    _, store = pristine
    assert json.loads((store / "store.json").read_text()) == {"format": STORE_FORMAT}
    code, out, _ = run(capsys, store, "check")
    assert code == 0 and out.strip() == f"{store}: no problem found"


def test_a_store_without_store_json_gets_it_on_its_next_write(copy, capsys):
    (copy / "store.json").unlink()
    assert run(capsys, copy, "list", "--system", "elo")[0] == 0
    assert not (copy / "store.json").exists()  # a reading command writes nothing
    assert run(capsys, copy, "rate", "--no-flow", "--system", "elo")[0] == 0
    assert json.loads((copy / "store.json").read_text()) == {"format": 1}


def test_a_failed_first_ingest_leaves_no_store_json(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,games\nfile,at,all\n")
    code, _, err = run(capsys, tmp_path / "new", "ingest", "--no-flow", str(bad))
    assert code == 2, err
    assert not (tmp_path / "new" / "store.json").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("list", "--system", "elo"),
        ("rate", "--no-flow", "--system", "elo"),
        ("sql", "SELECT count(*) FROM games"),
        ("history", "P1", "--system", "elo"),
        ("check",),
        ("ingest", "--no-flow", "NEXT"),
    ],
)
def test_a_store_of_a_newer_arpad_is_refused_by_every_command(pristine, copy, capsys, command):
    folder, _ = pristine
    (copy / "store.json").write_text('{"format": 2}\n')
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file() and p.name != ".lock"}
    command = tuple(str(folder / "g4.csv") if c == "NEXT" else c for c in command)
    code, _, err = run(capsys, copy, *command)
    line = refused(code, err, f"{copy}/store.json: " if command[0] != "rate" else "")
    assert line.endswith(
        "store.json: written by a newer arpad (store format 2; this arpad reads up to 1): "
        "upgrade arpad"
    ), line
    after = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before  # nothing written into it


def test_a_damaged_store_json_is_named(copy, capsys):
    (copy / "store.json").write_text('{"format": "one"}')
    line = refused(*run(capsys, copy, "list", "--system", "elo")[::2], f"{copy}/store.json: ")
    assert 'its format is "one", not a store format number: the store is damaged' in line
    (copy / "store.json").write_text("{")
    line = refused(*run(capsys, copy, "check")[::2], f"{copy}/store.json: not valid JSON (")
    assert line.endswith(
        "restore it from a backup, or remove it if this arpad wrote the store (it holds the store format)"
    )
    # an object without a format is damaged too (it was read as format 1)
    (copy / "store.json").write_text("{}")
    line = refused(*run(capsys, copy, "list", "--system", "elo")[::2], f"{copy}/store.json: ")
    assert "it has no format: the store is damaged" in line


# -- a cut quarantine file -------------------------------------------------------------------


def quarantine_file(store: Path) -> Path:
    (path,) = store.glob("quarantine/batch=*/part-0.parquet")
    return path


def test_a_cut_quarantine_file_is_named_by_check(copy, capsys):
    path = quarantine_file(copy)
    path.write_bytes(path.read_bytes()[:100])
    rel = path.relative_to(copy)
    assert check_lines(capsys, copy) == [
        f"{rel}: not a readable Parquet file (Parquet magic bytes not found in footer. Either "
        "the file is corrupted or this is not a parquet file.); restore it from a backup, or "
        "remove it (it holds only the rows an ingest rejected)"
    ]


def test_a_cut_quarantine_file_is_left_out_of_the_quarantine_view(pristine, copy, capsys):
    folder, store = pristine
    expected = run(capsys, store, "list", "--system", "elo")[1]
    path = quarantine_file(copy)
    path.write_bytes(path.read_bytes()[:100])
    note = f"arpad: note: {path}: not a readable Parquet file ("
    catalog._NOTED.clear()

    code, out, err = run(capsys, copy, "list", "--system", "elo")
    assert code == 0, err
    assert out == expected
    assert err.startswith(note) and err.strip().endswith("the quarantine view leaves it out")
    assert "Traceback" not in err

    catalog._NOTED.clear()  # (a note is given once per process; each command is one)
    code, out, err = run(
        capsys, copy, "sql", "SELECT count(*) AS n FROM quarantine", "--format", "csv"
    )
    assert code == 0, err
    assert out.split() == ["n", "0"]  # the one quarantine file is left out, and said so
    assert note in err

    code, out, err = run(capsys, copy, "sql", "SELECT count(*) AS n FROM games", "--format", "csv")
    assert code == 0, err
    assert out.split() == ["n", "36"]

    assert run(capsys, copy, "rate", "--no-flow", "--system", "elo")[0] == 0
    assert run(capsys, copy, "ingest", "--no-flow", str(folder / "g4.csv"))[0] == 0
    assert path.read_bytes()  # left as it was: arpad check names it


# -- a cut history ---------------------------------------------------------------------------


def test_a_cut_history_is_named_as_itself_with_its_repair_once(copy, capsys):
    history = copy / "manifest" / "history.parquet"
    history.write_bytes(history.read_bytes()[:100])
    lines = check_lines(capsys, copy)
    assert len(lines) == 1
    assert lines[0].startswith("manifest/history.parquet: not a readable Parquet file (")
    assert lines[0].endswith("); restore it from a backup")
    assert lines[0].count("restore it from a backup") == 1
    code, _, err = run(capsys, copy, "sql", "SELECT count(*) FROM history")
    line = refused(code, err, f"{history}: not a readable Parquet file (")
    assert line.endswith("): the store is damaged; restore it from a backup")
    # diagnose (the error path of every command) names the same file
    found = problems(Store(copy), first_only=True)
    assert [p.path for p in found] == ["manifest/history.parquet"]


# -- JSON metadata ---------------------------------------------------------------------------

STALE_REPAIR = (
    "restore it from a backup, or remove it and run arpad rate --system S --pool P --full "
    "for every rated system and pool (it holds the periods corrections made stale)"
)
RATED_REPAIR = (
    "remove it (the next arpad rate of each system and pool is then a full run; it holds "
    "the rules of the last runs), or restore it from a backup"
)
RUNS_REPAIR = (
    "remove it and run arpad rate --system elo --pool standard --full (it is the journal "
    "of the last rate, for resuming it), or restore it from a backup"
)


@pytest.mark.parametrize(
    "rel, text, problem, repair, commands",
    [
        (
            "manifest/stale.json",
            "[1,2",
            "not valid JSON (Expecting ',' delimiter: line 1 column 5 (char 4))",
            STALE_REPAIR,
            ["list", "rate", "ingest"],
        ),
        (
            "manifest/stale.json",
            "[1, 2]",
            "not a JSON object (an array)",
            STALE_REPAIR,
            ["list", "rate", "ingest"],
        ),
        (
            "manifest/stale.json",
            '{"elo/standard": "soon"}',
            "the stale mark of 'elo/standard' is \"soon\", not a period",
            STALE_REPAIR,
            ["list", "rate", "ingest"],
        ),
        (
            "manifest/rated.json",
            "{'elo/standard': 1}",
            "not valid JSON (Expecting property name enclosed in double quotes: line 1 "
            "column 2 (char 1))",
            RATED_REPAIR,
            ["rate"],
        ),
        (
            "runs/system=elo/pool=standard.json",
            "",
            "not valid JSON (Expecting value: line 1 column 1 (char 0))",
            RUNS_REPAIR,
            ["list", "rate"],
        ),
    ],
)
def test_damaged_json_metadata_is_named_with_its_repair(
    pristine, copy, capsys, rel, text, problem, repair, commands
):
    folder, _ = pristine
    (copy / rel).write_text(text)
    assert check_lines(capsys, copy) == [f"{rel}: {problem}; {repair}"]
    argv = {
        "list": ("list", "--system", "elo"),
        "rate": ("rate", "--no-flow", "--system", "elo"),
        "ingest": ("ingest", "--no-flow", str(folder / "g4.csv")),
    }
    for command in commands:
        code, _, err = run(capsys, copy, *argv[command])
        line = refused(code, err, "")
        assert line.endswith(f"{rel}: {problem}: the store is damaged; {repair}"), (command, line)
    assert (copy / rel).read_text() == text  # nothing rewritten over it


def test_a_removed_rated_json_is_repaired_by_the_next_rate(copy, capsys):
    (copy / "manifest" / "rated.json").write_text("{")
    (copy / "manifest" / "rated.json").unlink()  # the repair the line names
    assert run(capsys, copy, "rate", "--no-flow", "--system", "elo")[0] == 0
    code, out, _ = run(capsys, copy, "check")
    assert code == 0, out


def test_a_garbage_checkpoint_meta_is_named_and_rate_full_repairs_it(copy, capsys):
    meta = copy / "state/system=elo/pool=standard/period=202501/meta.json"
    assert meta.exists()
    meta.write_text("garbage")
    repair = "arpad rate --system elo --pool standard --full rewrites it"
    assert check_lines(capsys, copy) == [
        f"{meta.relative_to(copy)}: not valid JSON (Expecting value: line 1 column 1 (char 0)); "
        + repair
    ]
    # an incremental start from period 2 reads that checkpoint
    (copy / "manifest" / "stale.json").write_text('{"elo/standard": 202502}')
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "elo")
    line = refused(code, err, "")
    assert line.endswith(
        f"{meta.relative_to(copy)}: not valid JSON (Expecting value: line 1 column 1 (char 0)): the store is damaged; {repair}"
    )
    assert run(capsys, copy, "rate", "--no-flow", "--system", "elo", "--full")[0] == 0
    assert run(capsys, copy, "check")[0] == 0


def test_a_published_manifest_that_is_not_json_is_reported_by_check(copy, capsys):
    assert run(capsys, copy, "publish", "--system", "elo", "--force")[0] == 0
    (manifest,) = copy.glob("published/system=elo/pool=standard/period=*/manifest.json")
    manifest.write_text("{")
    assert check_lines(capsys, copy) == [
        f"{manifest.relative_to(copy)}: not valid JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)); a published list is frozen: restore it "
        "from a backup"
    ]


# -- a staged ingest's plan ------------------------------------------------------------------


def test_a_plan_naming_a_file_outside_the_store_is_refused(copy, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    stage = copy / ".pending" / "0123456789abcdef"
    stage.mkdir(parents=True)
    plan = {"moves": [], "deletes": ["../victim.txt"]}
    (stage / "plan.json").write_text(json.dumps(plan))
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "elo")
    line = refused(code, err, "")
    assert line.endswith(
        '.pending/0123456789abcdef/plan.json: a path outside the store ("../victim.txt"): the '
        "plan of an interrupted ingest; the store is damaged; restore the store from a backup"
    ), line
    assert victim.read_text() == "keep me"


def test_a_plan_that_is_not_json_is_named(copy, capsys):
    stage = copy / ".pending" / "0123456789abcdef"
    stage.mkdir(parents=True)
    (stage / "plan.json").write_text('{"moves": [')
    code, _, err = run(capsys, copy, "rate", "--no-flow", "--system", "elo")
    line = refused(code, err, "")
    assert ".pending/0123456789abcdef/plan.json: not a readable JSON file (" in line


# -- an unknown status ---------------------------------------------------------------------


def test_ratings_rows_with_an_unknown_status_are_named_not_an_empty_list(pristine, copy, capsys):
    _, store = pristine
    path = copy / "ratings/system=elo/pool=standard/period=202503/part-0.parquet"
    table = pq.read_table(path)
    status = pc.if_else(pc.equal(table["status"], "rated"), "active", table["status"])
    table = table.set_column(table.schema.get_field_index("status"), "status", status)
    pq.write_table(table, path)
    rel = path.relative_to(copy)
    problem = "status 'active' is not one of rated, new, provisional, inactive, unrated"
    repair = "arpad rate --system elo --pool standard --full rewrites it"
    assert check_lines(capsys, copy) == [f"{rel}: {problem}; {repair}"]
    code, _, err = run(capsys, copy, "list", "--system", "elo")
    line = refused(code, err, f"{path}: {problem}: the store is damaged; {repair}")
    assert "no rated player" not in line
    # another period's list is not this file's business
    expected = run(capsys, store, "list", "--system", "elo", "--period", "202502")[1]
    code, out, err = run(capsys, copy, "list", "--system", "elo", "--period", "202502")
    assert code == 0 and out == expected, err
    assert run(capsys, copy, "rate", "--no-flow", "--system", "elo", "--full")[0] == 0
    assert run(capsys, copy, "check")[0] == 0
