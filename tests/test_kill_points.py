"""Crashes at random points (docs/ingest.md "Generated hostile inputs, round 4"):
``arpad ingest``, ``arpad rate --system fide``, ``arpad publish`` and the monthly job
``arpad recalculate`` (a corrected games file and two new months in its inbox) run as
real subprocesses (tests/kill_driver.py, no kill point installed) on a small store, and
are killed with SIGKILL from outside after a seeded random delay. Then ``arpad check``
runs (the store passes it, or each problem it names comes with its repair) and the same
command again, and then the rest of the month (rate, publish, recalculate): the
ratings, rating checkpoints, games, the published lists, the exported lists and the
inbox equal those of a month never killed.

Unlike tests/test_resume.py, whose kills fall at chosen write boundaries, the moment is
not chosen: the delays are spread over the command's measured run time (start-up,
reading, writing, the end), so a kill can fall anywhere. The fast variant kills each
command once; the ``slow`` one several times each.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.integrity import problems
from arpad.pipeline.store import Store
from tests.conftest import results

DRIVER = Path(__file__).with_name("kill_driver.py")
MONTHS = 8  # Kaggle 2010 months 1..8
NEW_MONTHS = (9, 10)  # the monthly job's new games
CORRECTED_MONTH = 5  # the month of the result the corrected file changes


def command(step: str, root: Path, src: Path) -> list[str]:
    """The step's command line; the monthly job's inbox is the folder ``inbox`` beside
    the store (a fresh copy of ``src/inbox`` per run, see ``fresh_inbox``)."""
    if step == "ingest":
        # ``--source games.csv``: the identity the inbox's corrected games.csv has
        # (docs/ingest.md "Which file is which"), so that it corrects this file
        return ["ingest", "--no-flow", "--store", str(root), "--mapping", "kaggle2010",
                "--source", "games.csv", "--players", str(src / "players.csv"),
                str(src / "games.csv")]  # fmt: skip
    if step == "rate":
        return ["rate", "--no-flow", "--store", str(root), "--system", "fide"]
    if step == "recalculate":
        return ["recalculate", "--no-flow", "--store", str(root), "--mapping", "kaggle2010",
                "--inbox", str(root.parent / "inbox")]  # fmt: skip
    return ["publish", "--store", str(root), "--system", "fide"]


STEPS = ("ingest", "rate", "publish", "recalculate")


def fresh_inbox(root: Path, src: Path) -> None:
    """The month's deliveries, waiting in the inbox beside ``root``."""
    inbox = root.parent / "inbox"
    if inbox.exists():
        shutil.rmtree(inbox)
    shutil.copytree(src / "inbox", inbox)


def spawn(args: list[str]) -> subprocess.Popen:
    env = {**os.environ}
    env.pop("ARPAD_KILL", None)
    return subprocess.Popen(
        [sys.executable, str(DRIVER), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def outcome(root: Path) -> dict[str, object]:
    """What a month leaves: ratings and checkpoints (Arrow tables without the run id),
    games and quarantine, the published and exported lists' files but the published
    manifests (which hold the time of publication and the run id), and the inbox's
    files, where they are now."""
    out: dict[str, object] = {}
    for d in ("ratings", "state", "games", "quarantine"):
        for f in sorted((root / d).rglob("*.parquet")):
            if not f.name.startswith("."):
                out[str(f.relative_to(root))] = results(pq.read_table(f))
    for d in ("published", "exports"):
        for f in sorted((root / d).rglob("*")) if (root / d).exists() else []:
            if f.is_file() and f.name != "manifest.json":
                key = str(f.relative_to(root))
                out[key] = results(pq.read_table(f)) if f.suffix == ".parquet" else f.read_bytes()
    for f in sorted((root / "published").rglob("manifest.json")):
        out[f"{f.relative_to(root)} players"] = json.loads(f.read_text())["players"]
    inbox = root.parent / "inbox"
    for f in sorted(inbox.rglob("*")) if inbox.exists() else []:
        if f.is_file():
            out[f"inbox {f.relative_to(inbox)}"] = f.read_bytes()
    return out


def assert_same(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        same = got[key].equals(value) if hasattr(value, "equals") else got[key] == value
        assert same, key


@pytest.fixture(scope="module")
def month(tmp_path_factory, bundled_data) -> dict:
    """The sources, the store before each step, and a month never killed with each
    step's run time measured as a subprocess."""
    base = tmp_path_factory.mktemp("kill")
    src = base / "src"
    src.mkdir()
    lines = (bundled_data / "kaggle2010_elo_vs_rest" / "training_data.csv").read_text()
    lines = lines.splitlines()
    keep = [lines[0], *(row for row in lines[1:] if int(row.split(",")[0]) <= MONTHS)]
    (src / "games.csv").write_text("\n".join(keep) + "\n")
    rows = [f"{i},{1500 + 3 * i}" for i in range(1, 301)]
    (src / "players.csv").write_text("\n".join(["player_id,rating", *rows]) + "\n")
    # The monthly job's inbox: games.csv again with one result of month 5 changed (a
    # correction: it has the identity of the file ingested above), and months 9-10.
    inbox = src / "inbox"
    inbox.mkdir()
    i = next(k for k, row in enumerate(keep) if row.startswith(f"{CORRECTED_MONTH},"))
    front, score = keep[i].rsplit(",", 1)
    keep[i] = f"{front},{'0' if score != '0' else '1'}"
    (inbox / "games.csv").write_text("\n".join(keep) + "\n")
    new = [row for row in lines[1:] if int(row.split(",")[0]) in NEW_MONTHS]
    (inbox / "games-9-10.csv").write_text("\n".join([lines[0], *new]) + "\n")

    root = base / "store"
    fresh_inbox(root, src)
    before: dict[str, Path] = {}
    seconds: dict[str, float] = {}
    for step in STEPS:
        before[step] = base / f"before-{step}"
        if root.exists():
            shutil.copytree(root, before[step])
        t = time.perf_counter()
        proc = spawn(command(step, root, src))
        _, err = proc.communicate(timeout=300)
        seconds[step] = time.perf_counter() - t
        assert proc.returncode == 0, err.decode()
    t = time.perf_counter()
    assert spawn(["--help"]).wait(timeout=120) == 0
    startup = time.perf_counter() - t  # the interpreter and the command line's imports
    # the monthly job did what it is here for: both files taken, the correction applied
    # (month 5's ratings changed), months 9-10 rated and both published (every finished
    # month after the latest frozen one, docs/lists.md "Lists are frozen in order")
    assert sorted(p.name for p in (base / "inbox" / "processed").iterdir()) == [
        "games-9-10.csv",
        "games.csv",
    ]
    store, earlier = Store(root), Store(before["recalculate"])
    assert store.published_periods("fide", "standard") == [MONTHS, *NEW_MONTHS]
    assert store.rating_periods("fide", "standard") == [*range(1, MONTHS + 1), *NEW_MONTHS]
    fifth = f"system=fide/pool=standard/period={CORRECTED_MONTH}"
    after, was = (results(pq.read_table(s.ratings_dir / fifth)) for s in (store, earlier))
    assert not after.equals(was)
    return {
        "src": src,
        "before": before,
        "seconds": seconds,
        "startup": startup,
        "reference": outcome(root),
    }


def kill_and_recover(month: dict, step: str, after: float, tmp_path: Path, capsys) -> None:
    root = tmp_path / "store"
    if month["before"][step].exists():
        shutil.copytree(month["before"][step], root)
    fresh_inbox(root, month["src"])
    args = command(step, root, month["src"])
    proc = spawn(args)
    try:
        proc.wait(timeout=after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    # it may have ended on its own before the kill (or just as it was sent)
    assert proc.returncode in (0, -signal.SIGKILL), err
    finished = proc.returncode == 0

    if root.exists():  # a kill before the first write may leave no store at all
        assert main(["check", "--store", str(root)]) in (0, 2)
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        for problem in problems(Store(root)):  # named with its repair
            assert problem.problem and problem.repair, problem

    again = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if step == "publish" and (finished or again == 2):
        # the kill fell after the publication's commit (its folder renamed into place):
        # the list is published, and publishing it again is refused as always
        assert again == 2 and "already published" in err, err
    else:
        assert again == 0, err
    for later in STEPS[STEPS.index(step) + 1 :]:
        assert main(command(later, root, month["src"])) == 0, capsys.readouterr().err
    assert main(["check", "--store", str(root)]) == 0, capsys.readouterr().out
    assert_same(outcome(root), month["reference"])


def delay(seed: int, month: dict, step: str) -> float:
    """A seeded delay spread over the step's run, from half-way through the start-up
    (most of a short command's time is its imports) to its end."""
    rng = random.Random(seed)
    return round(rng.uniform(month["startup"] / 2, month["seconds"][step]), 3)


@pytest.mark.parametrize("step", STEPS)
def test_killed_at_a_random_moment_then_checked_and_run_again(month, step, tmp_path, capsys):
    kill_and_recover(month, step, delay(STEPS.index(step), month, step), tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("seed", range(100, 106))
def test_killed_at_many_random_moments(month, step, seed, tmp_path, capsys):
    kill_and_recover(month, step, delay(seed, month, step), tmp_path, capsys)
