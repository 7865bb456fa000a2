"""Published (frozen) lists, their revisions after a late correction, and the audit
trail (issue 13 items 2 and 3; docs/lists.md "Published lists", docs/store.md
"Audit trail"), end to end on the bundled Deloitte/FIDE 2011 data."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, engine, publish, resume
from arpad.pipeline.audit import audit
from arpad.pipeline.cli import main
from arpad.pipeline.lists import list_frame
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system

SYSTEM = "fide"
PERIOD = 135  # the last month of the Deloitte test games
AUDIT_COLUMNS = ("rules", "rules_hash", "run_id")


def corrected_copy(src: Path, dest: Path) -> tuple[str, str]:
    """``src`` with the first draw of month 134 between two players with a starting
    rating turned into a white win: (white, black) of that game."""
    rated = {r["Player"] for r in csv.DictReader(open(src.parent / "initial_ratings.csv"))}
    rows = list(csv.reader(open(src)))
    game = None
    for r in rows[1:]:
        if game is None and r[1] == "134" and r[4] == "0.5" and r[2] in rated and r[3] in rated:
            r[4] = "1"
            game = (r[2], r[3])
    with open(dest, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    assert game is not None
    return game


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def cycle(tmp_path_factory, bundled_data):
    """ingest -> rate -> publish -> correction -> re-rate; what each step saw."""
    d = tmp_path_factory.mktemp("publish")
    src = bundled_data / "deloitte_fide_2011" / "test_solution.csv"
    players = bundled_data / "deloitte_fide_2011" / "initial_ratings.csv"
    root = d / "store"
    store = Store(root)
    common = ["--store", str(root), "--no-flow"]
    # exit 2: the contest's 11,543 decoy rows are quarantined, as in the demo
    assert (
        main(["ingest", str(src), "--players", str(players), "--source", "deloitte", *common]) == 2
    )
    assert main(["rate", "--system", SYSTEM, *common]) == 0
    before = {p: list_frame(store, SYSTEM, "standard", p)[0] for p in (133, 134, 135)}
    # Checkpoints are sparse (docs/store.md): the run's first and last period have one.
    assert store.state_periods(SYSTEM, "standard") == [133, 135]
    run_before = resume.read_journal(store, SYSTEM, "standard")["run"]
    assert {store.read_state(SYSTEM, "standard", p)[1]["run"] for p in (133, 135)} == {run_before}
    assert main(["publish", "--store", str(root), "--period", str(PERIOD)]) == 0
    folder = store.published_partition(SYSTEM, "standard", PERIOD)
    hashes = {f.name: sha(f) for f in folder.iterdir()}
    corrected = d / "corrected.csv"
    game = corrected_copy(src, corrected)
    assert main(["ingest", str(corrected), "--source", "deloitte", *common]) == 2
    assert main(["rate", "--system", SYSTEM, *common]) == 0
    return {
        "store": store,
        "folder": folder,
        "hashes": hashes,
        "before": before,
        "run_before": run_before,
        "game": game,
    }


def test_published_files_never_change_after_a_correction(cycle):
    folder = cycle["folder"]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(manifest["files"]) == {*publish.FILES.values(), publish.GAMES}
    for name, digest in manifest["files"].items():
        assert sha(folder / name) == digest == cycle["hashes"][name], name
    assert sha(folder / "manifest.json") == cycle["hashes"]["manifest.json"]
    assert manifest["period"] == PERIOD and manifest["rules"] == ["FIDE 2025-10"]
    assert manifest["run_id"] == [cycle["run_before"]]
    # the frozen list is the list as it was before the correction
    published = pl.read_parquet(folder / "list.parquet")
    assert published.equals(cycle["before"][PERIOD])


def test_publish_twice_is_refused(cycle, capsys):
    root = str(cycle["store"].root)
    assert main(["publish", "--store", root, "--period", str(PERIOD)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already published" in err[0]
    assert {f.name: sha(f) for f in cycle["folder"].iterdir()} == cycle["hashes"]


def test_diff_shows_exactly_the_players_whose_rating_changed(cycle, capsys):
    store = cycle["store"]
    old = cycle["before"][PERIOD].select("player_id", "rating")
    new = list_frame(store, SYSTEM, "standard", PERIOD)[0].select("player_id", "rating")
    both = old.join(new, on="player_id", how="full", coalesce=True, suffix="_new")
    want = both.filter((pl.col("rating") != pl.col("rating_new")).fill_null(True))
    assert want.height > 0  # the correction changed something
    players, corrections = publish.diff(store, SYSTEM, "standard", PERIOD)
    assert players["player_id"].to_list() == sorted(want["player_id"].to_list())
    got = players.join(want, on="player_id")
    assert (got["published"] == got["rating"].cast(pl.Float64)).all()
    assert (got["revised"] == got["rating_new"].cast(pl.Float64)).all()
    assert (got["change"] == got["revised"] - got["published"]).all()
    # the two players of the corrected game: one game with another result, none added
    white, black = cycle["game"]
    for pid in (white, black):
        row = players.filter(pl.col("player_id") == pid).row(0, named=True)
        assert (row["games_changed"], row["games_added"], row["games_removed"]) == (1, 0, 0)
    assert players.filter(~pl.col("player_id").is_in([white, black]))["games_changed"].sum() == 0
    # the correction is the one ingest since the publication; it made 134 stale
    assert corrections.height == 1
    assert corrections.row(0, named=True)["source"] == "deloitte"
    assert corrections.row(0, named=True)["stale_from"] == 134
    assert corrections.row(0, named=True)["action"] == "correction"
    # the CLI prints the same
    assert main(["diff", "--store", str(store.root), "--published", str(PERIOD)]) == 0
    out = capsys.readouterr().out
    assert f"{players.height} player(s) whose fide/standard rating of period 135 changed" in out
    assert main(["diff", "--store", str(store.root), "--published", "134"]) == 2


def test_audit_rows_carry_the_checkpoints_rules_and_run(cycle, capsys):
    store = cycle["store"]
    white, _ = cycle["game"]
    periods, ingests = audit(store, white, SYSTEM)
    assert periods["period"].to_list() == [133, 134, 135]
    system = get_system(SYSTEM)
    for row in periods.iter_rows(named=True):
        table = store.read_ratings(SYSTEM, "standard", row["period"])
        meta = store.read_state(SYSTEM, "standard", row["period"])[1]
        assert row["rules"] == meta["rules"] == "FIDE 2025-10"
        assert row["run_id"] == meta["run"]
        assert row["rules_hash"] == engine.rules_hash(system.rules_for(row["period"], "standard"))
        assert set(table.column("run_id").to_pylist()) == {meta["run"]}
    # 133 was not recomputed by the correction (stale from 134): the first run's id
    assert periods["run_id"][0] == cycle["run_before"]
    assert periods["run_id"][1] != cycle["run_before"]
    # the first ingest and its correction (docs/store.md "Audit trail")
    assert ingests["source"].to_list() == ["deloitte", "deloitte"]
    assert ingests["action"].to_list() == ["ingest", "correction"]
    assert ingests["games_changed"].to_list() == [0, 1]
    assert main(["audit", white, "--store", str(store.root)]) == 0
    assert "FIDE 2025-10" in capsys.readouterr().out
    assert main(["audit", "no-such-player", "--store", str(store.root)]) == 2


def test_a_store_without_the_audit_columns_still_reads(cycle, tmp_path):
    root = tmp_path / "old"
    shutil.copytree(cycle["store"].root, root)
    old = Store(root)
    for f in old.ratings_dir.rglob("*.parquet"):
        table = pq.read_table(f)
        pq.write_table(table.drop_columns(list(AUDIT_COLUMNS)), f)
    catalog.refresh(old)
    frame, period = list_frame(old, SYSTEM, "standard", None)
    assert period == PERIOD and frame.height == cycle["before"][PERIOD].height
    periods, _ = audit(old, cycle["game"][0], SYSTEM)
    assert periods["rules"].null_count() == periods.height
    # one period rewritten by a new run beside old files: the view has the columns
    old.write_ratings(SYSTEM, "standard", 133, cycle["store"].read_ratings(SYSTEM, "standard", 133))
    con = catalog.connect(old)
    try:
        rows = con.execute(
            "SELECT period, count(rules) FROM ratings GROUP BY period ORDER BY period"
        ).fetchall()
    finally:
        con.close()
    assert rows[0][0] == 133 and rows[0][1] > 0 and all(n == 0 for _, n in rows[1:])


def test_in_memory_ratings_name_their_rules():
    import arpad

    frame = pl.DataFrame(
        {"period": [1, 1, 2], "white_id": ["a", "b", "a"], "black_id": ["b", "c", "c"],
         "score": [1.0, 0.5, 0.0]}
    )  # fmt: skip
    out = arpad.rate(frame, system="elo")
    system = get_system("elo")
    assert out["rules"].unique().to_list() == [system.rules_name(system.rules_for(1, "standard"))]
    assert out["rules_hash"].unique().to_list() == [
        engine.rules_hash(system.rules_for(1, "standard"))
    ]
    assert out["run_id"].null_count() == out.height  # no run outside the store


def test_monthly_job_freezes_the_list_and_reports_its_revisions(tmp_path, bundled_data):
    from arpad.pipeline import jobs, monthly

    folder = bundled_data / "deloitte_fide_2011"
    inbox, root = tmp_path / "inbox", tmp_path / "store"
    (inbox / "players").mkdir(parents=True)
    shutil.copy(folder / "initial_ratings.csv", inbox / "players" / "initial_ratings.csv")
    shutil.copy(folder / "test_solution.csv", inbox / "test_solution.csv")
    request = jobs.RecalculateRequest(str(root), str(inbox), systems=[SYSTEM])
    first = jobs.recalculate(request)
    store = Store(root)
    assert first.published[f"{SYSTEM}/standard"]["period"] == PERIOD
    assert first.published[f"{SYSTEM}/standard"]["previous"] is None
    frozen = store.published_partition(SYSTEM, "standard", PERIOD)
    hashes = {f.name: sha(f) for f in frozen.iterdir()}
    # the corrected file, under the name of the file it corrects
    corrected_copy(folder / "test_solution.csv", inbox / "test_solution.csv")
    second = jobs.recalculate(request)
    revisions = second.published[f"{SYSTEM}/standard"]
    assert revisions["previous"] == PERIOD and revisions["corrections"] == 1
    players, _ = publish.diff(store, SYSTEM, "standard", PERIOD)
    assert revisions["changed"] == players.height > 0
    assert {f.name: sha(f) for f in frozen.iterdir()} == hashes
    report = monthly.markdown(second)
    assert f"Revisions of the published {SYSTEM}/standard list of period {PERIOD}" in report
    assert f"| {players['player_id'][0]} |" in report


def test_corrections_view_and_python_api(cycle):
    import arpad

    store = cycle["store"]
    con = catalog.connect(store)
    try:
        rows = con.execute("SELECT source, kind, stale_from FROM corrections").fetchall()
    finally:
        con.close()
    assert rows == [("deloitte", "games", 134)]  # the correction (not the first ingest)
    api = arpad.Store(store.root)
    players, corrections = api.diff(PERIOD)
    assert players.equals(publish.diff(store, SYSTEM, "standard", PERIOD)[0])
    assert corrections.height == 1
    periods, _ = api.audit(cycle["game"][0])
    assert periods["period"].to_list() == [133, 134, 135]
    with pytest.raises(ValueError, match="already published"):
        api.publish(period=PERIOD)


def test_a_store_of_long_ids_publishes_without_the_fixed_width_files(tmp_path, shared_data, capsys):
    """A historian's PGN players have file-scoped ids longer than FIDE's ID Number
    column: publish writes the other list files, says why the TXT file is missing, and
    the site offers what was written."""
    root = str(tmp_path / "s")
    pgn = str(shared_data / "pgn" / "London1851.pgn")
    assert main(["ingest", pgn, "--store", root]) == 0
    assert main(["rate", "--system", "elo", "--store", root]) == 0
    capsys.readouterr()
    assert main(["publish", "--system", "elo", "--store", root]) == 0
    out = capsys.readouterr().out
    assert "not written: list.txt:" in out and "ID Number" in out
    store = Store(root)
    period = store.published_periods("elo", "standard")[0]
    m = publish.read_manifest(store, "elo", "standard", period)
    assert "list.txt" not in m["files"] and set(m["skipped"]) == {"list.txt"}
    folder = store.published_partition("elo", "standard", period)
    assert not (folder / "list.txt").exists()
    frame, _ = list_frame(store, "elo", "standard", period)
    assert pl.read_csv(folder / "list.csv")["player_id"].to_list() == frame["player_id"].to_list()
    site = tmp_path / "site"
    assert main(["site", "--store", root, "--out", str(site)]) == 0
    pages = [p.read_text() for p in site.rglob("*.html")]
    assert any("list.csv" in page for page in pages)
    assert not any('href="list.txt"' in page or "/list.txt" in page for page in pages)
    assert not list(site.rglob("list.txt"))
