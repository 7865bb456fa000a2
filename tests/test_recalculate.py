"""The monthly recalculation (pipeline/monthly.py, flows/recalculate.py), its
deployment, and the same flows on a Dask cluster: every path must give exactly
the ratings of a from-scratch run over the same files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import jobs, monthly, resume
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import results

KAGGLE_CV = ("kaggle2010_elo_vs_rest", "cross_validation_dataset.csv")  # months 96..100


@pytest.fixture(scope="module")
def month_files(tmp_path_factory, bundled_data) -> dict[str, Path]:
    """The Kaggle hold-out split as a federation would receive it: months 96-98, then
    99-100, then a corrected 96-98 file (one result of month 97 changed)."""
    lines = bundled_data.joinpath(*KAGGLE_CV).read_text().splitlines()
    header, rows = lines[0], lines[1:]
    first = [r for r in rows if int(r.split(",")[0]) <= 98]
    second = [r for r in rows if int(r.split(",")[0]) > 98]
    i = next(k for k, r in enumerate(first) if r.startswith("97,") and r.endswith(",1"))
    corrected = [*first[:i], first[i].rsplit(",", 1)[0] + ",0", *first[i + 1 :]]
    d = tmp_path_factory.mktemp("months")
    files = {}
    for name, body in (("a", first), ("b", second), ("a_corrected", corrected)):
        (d / name).mkdir()
        # the corrected file keeps the name of the file it corrects
        path = d / name / ("games-96-98.csv" if name != "b" else "games-99-100.csv")
        path.write_text("\n".join([header, *body]) + "\n")
        files[name] = path
    return files


def games_in(path: Path) -> int:
    return len(path.read_text().splitlines()) - 1  # header


def drop(inbox: Path, *files: Path) -> None:
    inbox.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copy(f, inbox / f.name)


def ratings_snapshot(store: Store) -> dict:
    return {
        str(f.relative_to(store.root)): results(pq.read_table(f))
        for f in sorted(store.ratings_dir.rglob("*.parquet"))
    }


def games_snapshot(store: Store) -> dict:
    return {
        str(f.relative_to(store.root)): pq.read_table(f)
        for f in sorted(store.games_dir.rglob("*.parquet"))
    }


def from_scratch(tmp_path: Path, files: list[Path], systems: list[str]) -> dict:
    store = Store(tmp_path / "scratch")
    ingest_files(store, files, mapping="kaggle2010")
    for system in systems:
        resume.rate_resumable(store, system)
    return ratings_snapshot(store)


def recalculate(store: Store, inbox: Path, systems, mapping=None) -> monthly.RecalculateSummary:
    """The monthly job in this process (pipeline/jobs.py)."""
    inbox.mkdir(parents=True, exist_ok=True)
    request = jobs.RecalculateRequest(str(store.root), str(inbox), systems, mapping=mapping)
    return jobs.recalculate(request)


def assert_same(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].equals(want[name]), name


SYSTEMS = ["elo", "glicko2"]  # systems that rate from nothing (Kaggle has no ratings)


def test_monthly_cycle_equals_from_scratch(month_files, tmp_path):
    store, inbox = Store(tmp_path / "store"), tmp_path / "inbox"

    drop(inbox, month_files["a"])
    s1 = recalculate(store, inbox, SYSTEMS, mapping="kaggle2010")
    assert [(j["system"], j["from"], j["periods"]) for j in s1.jobs] == [
        ("elo", None, 3),
        ("glicko2", None, 3),
    ]
    assert s1.games_ingested == games_in(month_files["a"]) and s1.quarantined == 0
    assert not list(inbox.glob("*.csv")) and (inbox / "processed" / "games-96-98.csv").exists()
    assert_same(ratings_snapshot(store), from_scratch(tmp_path / "1", [month_files["a"]], SYSTEMS))

    # next month: only the new periods are computed (from the last checkpoint)
    drop(inbox, month_files["b"])
    s2 = recalculate(store, inbox, None, mapping="kaggle2010")  # configured: those rated
    assert [(j["system"], j["from"], j["periods"]) for j in s2.jobs] == [
        ("elo", 99, 2),
        ("glicko2", 99, 2),
    ]
    both = [month_files["a"], month_files["b"]]
    assert_same(ratings_snapshot(store), from_scratch(tmp_path / "2", both, SYSTEMS))

    # a corrected file: recompute from the corrected period 97 only
    drop(inbox, month_files["a_corrected"])
    s3 = recalculate(store, inbox, None, mapping="kaggle2010")
    assert [(j["system"], j["from"], j["periods"]) for j in s3.jobs] == [
        ("elo", 97, 4),
        ("glicko2", 97, 4),
    ]
    fixed = [month_files["a_corrected"], month_files["b"]]
    assert_same(ratings_snapshot(store), from_scratch(tmp_path / "3", fixed, SYSTEMS))

    # nothing new: nothing recomputed, the lists are published again
    s4 = recalculate(store, inbox, None)
    assert s4.jobs == [] and s4.files == []
    assert sorted(s4.exports) == sorted(s3.exports)
    exported = pq.read_table(store.root / s4.exports[1])  # elo, period 100
    assert exported.num_rows > 0 and "rating" in exported.column_names


def test_summary_markdown_names_counts_and_movers(month_files, tmp_path):
    store, inbox = Store(tmp_path / "store"), tmp_path / "inbox"
    drop(inbox, month_files["a"])
    (inbox / "garbage.csv").write_bytes(b"\x00\x01\x02 not a csv")
    summary = recalculate(store, inbox, ["elo"], mapping="kaggle2010")
    text = monthly.markdown(summary)
    assert f"**{games_in(month_files['a']):,} games ingested**" in text
    assert "| garbage.csv | - | 0 | 0 | rejected" in text  # not read: its kind is unknown
    assert (inbox / "rejected" / "garbage.csv").exists()
    movers = summary.movers["elo/standard"]
    assert len(movers) == 10 and movers[0]["period"] == 98
    changes = [abs(m["change"]) for m in movers]
    assert changes == sorted(changes, reverse=True)
    # the players-rated count is the distinct players with games in the recomputed periods
    players = {r["player_id"] for r in _rows(store, "elo") if r["games"] > 0}
    assert summary.players_rated["elo/standard"] == len(players)
    assert f"**{len(players):,} players rated**" in text
    # the exported lists are named inside the store, as the report's other paths are
    for path in summary.exports:
        assert (store.root / path).is_file()
        assert f"- `STORE/{path}`" in text


def _rows(store: Store, system: str) -> list[dict]:
    out = []
    for period in store.rating_periods(system, "standard"):
        out += store.read_ratings(system, "standard", period).to_pylist()
    return out


# -- Prefect: the flow for real, its artifact, the deployment, Dask ---------------------


@pytest.mark.prefect
def test_recalculate_flow_records_artifact(month_files, tmp_path, prefect_harness):
    from prefect.client.orchestration import get_client

    from arpad.flows.recalculate import recalculate_flow

    store, inbox = tmp_path / "store", tmp_path / "inbox"
    drop(inbox, month_files["a"])
    summary = recalculate_flow(str(store), str(inbox), ["elo"], mapping="kaggle2010")
    assert summary.games_ingested == games_in(month_files["a"])
    assert_same(
        ratings_snapshot(Store(store)), from_scratch(tmp_path / "s", [month_files["a"]], ["elo"])
    )
    with get_client(sync_client=True) as client:
        artifact = client.read_latest_artifacts()
        texts = [a.data for a in artifact if a.key == "arpad-recalculation"]
    assert texts and f"**{games_in(month_files['a']):,} games ingested**" in texts[0]


@pytest.fixture
def dask_cluster(prefect_harness):
    """A real two-process Dask cluster whose workers talk to the harness's API server."""
    from distributed import LocalCluster

    # The workers inherit PREFECT_API_URL from the harness: no worker starts a server.
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        env={"NUMBA_NUM_THREADS": "1"},  # thread budget: 1 thread x 2 workers = 2 cores
    ) as cluster:
        yield cluster.scheduler_address


@pytest.mark.prefect
def test_flows_on_dask_equal_single_process(month_files, tmp_path, dask_cluster):
    from arpad.flows.common import configured
    from arpad.flows.ingest import ingest_flow
    from arpad.flows.recalculate import recalculate_flow
    from arpad.flows.reconstruct import reconstruct_flow

    files = [month_files["a"], month_files["b"]]
    single = from_scratch(tmp_path / "single", files, SYSTEMS)
    single_games = games_snapshot(Store(tmp_path / "single" / "scratch"))

    # files read in parallel on the workers, stored one after another
    store = Store(tmp_path / "dask")
    report = configured(ingest_flow, cluster=dask_cluster)(
        str(store.root), [str(f) for f in files], mapping="kaggle2010"
    )
    assert report.accepted == sum(games_in(f) for f in files)
    assert_same(games_snapshot(store), single_games)
    # (system, pool) runs side by side
    summaries = configured(reconstruct_flow, cluster=dask_cluster)(str(store.root), SYSTEMS)
    assert sorted((s.system, len(s.periods)) for s in summaries) == [("elo", 5), ("glicko2", 5)]
    assert_same(ratings_snapshot(store), single)

    store2, inbox = tmp_path / "dask2", tmp_path / "inbox"
    drop(inbox, *files)
    (inbox / "garbage.csv").write_bytes(b"\x00\x01 not a csv")
    summary = configured(recalculate_flow, cluster=dask_cluster)(
        str(store2), str(inbox), SYSTEMS, mapping="kaggle2010"
    )
    assert summary.games_ingested == sum(games_in(f) for f in files)
    assert [f["outcome"] for f in summary.files] == ["processed", "processed", "rejected"]
    assert_same(ratings_snapshot(Store(store2)), single)


# -- the whole monthly job killed with SIGKILL and started again --------------------------


@pytest.mark.parametrize(
    "kill",
    [
        "checkpoint:4",  # month 2: inside the rating of the new periods
        pytest.param("write:2", marks=pytest.mark.slow),  # month 2: inside the ingest
    ],
)
def test_monthly_job_killed_and_restarted_equals_uninterrupted(kill, month_files, tmp_path):
    import signal

    from tests.test_resume import run_arpad

    def month(root: Path, files: list[Path], kill_at: str | None = None):
        inbox = root / "inbox"
        drop(inbox, *files)
        args = ["recalculate", "--no-flow", "--store", str(root / "store"), "--inbox", str(inbox)]
        proc = run_arpad([*args, "--mapping", "kaggle2010", "--systems", "elo,glicko2"], kill_at)
        _, err = proc.communicate(timeout=300)
        # (the ingest notes, "FILE:" then "  note: …", test_monthly_round5.py: not errors)
        lines = err.decode().splitlines(keepends=True)
        notes = {i for i, line in enumerate(lines) if line.startswith("  note: ")}
        notes |= {i - 1 for i in notes if not lines[i - 1].startswith("  ")}
        return proc.returncode, "".join(x for i, x in enumerate(lines) if i not in notes)

    calm, crash = tmp_path / "calm", tmp_path / "crash"
    for root in (calm, crash):
        assert month(root, [month_files["a"]]) == (0, "")
    assert month(calm, [month_files["b"]]) == (0, "")
    code, err = month(crash, [month_files["b"]], kill)
    assert code == -signal.SIGKILL, err
    code, err = month(crash, [])  # the next run (e.g. the next scheduled one)
    assert code == 0, err
    # A kill inside the ingest leaves its staging behind; the next run discards it and
    # says so (pipeline/journal.py), then ingests the file again from the inbox.
    said = [line for line in err.splitlines() if line]
    assert all(line.startswith("arpad: discarded the unfinished ingest of batch ") for line in said)
    assert bool(said) == (kill == "write:2"), err

    assert_same(ratings_snapshot(Store(crash / "store")), ratings_snapshot(Store(calm / "store")))
    for name in ("games", "exports"):
        got = sorted(p.relative_to(crash) for p in (crash / "store" / name).rglob("*.*"))
        want = sorted(p.relative_to(calm) for p in (calm / "store" / name).rglob("*.*"))
        assert got == want
    csv = "store/exports/system=elo/pool=standard/list-100.csv"
    assert (crash / csv).read_text() == (calm / csv).read_text()
    assert sorted(p.name for p in (crash / "inbox" / "processed").iterdir()) == [
        "games-96-98.csv",
        "games-99-100.csv",
    ]


@pytest.mark.slow
def test_cli_workers_option_runs_a_local_dask_cluster(month_files, tmp_path):
    """``arpad reconstruct --workers 2``: a LocalCluster of two processes, same ratings."""
    from arpad.pipeline.cli import main

    files = [month_files["a"], month_files["b"]]
    single = from_scratch(tmp_path / "single", files, SYSTEMS)
    store = Store(tmp_path / "cli")
    ingest_files(store, files, mapping="kaggle2010")
    args = ["reconstruct", "--store", str(store.root), "--systems", "elo,glicko2", "--workers", "2"]
    assert main(args) == 0
    assert "ARPAD_WORKERS" not in os.environ  # the option does not leak out of the command
    assert_same(ratings_snapshot(store), single)
