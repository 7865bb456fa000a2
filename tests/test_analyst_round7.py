"""The analyst's round 7 (a notebook; docs/analysis.md, docs/schemas.md, docs/api.md).

1. ``arpad sql … | head`` ended 0, not 141 (docs/analysis.md "Players by name"): one
   large ``sys.stdout.write`` lost its unread part to a short write without an error.
   Tested through a real pipe, not a mocked BrokenPipeError.
2. ``movers`` ranked by ``change`` (games only): a player moved only by FIDE's 2024
   compression was left out, and a 1480 → 1695 player ranked below a +98 one. It ranks
   by ``movement`` (``rating_after − rating_before``) now.
3. ``Store.diff`` of a period never published advised ``arpad publish``.
4. The ``quarantine`` view had an undocumented ``batch`` column (the folder's key).
5. The ``bad_date`` detail named two of the four accepted forms; ``reconstruct(["fide"])``
   said "fide need …".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline import catalog
from arpad.pipeline.fide_sample import write_sample
from arpad.pipeline.store import Store
from tests.conftest import write_csv

ARPAD = Path(sys.executable).parent / "arpad"  # the console process (exit_now, lean)
FORMS = "(YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY)"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Two months of Elo games, one row with an impossible date (quarantined)."""
    root = tmp_path_factory.mktemp("round7")
    games = write_csv(
        root / "games.csv",
        "date,white_id,black_id,result",
        [
            "2024-01-05,a,b,1-0",
            "2024/01/10,c,d,1/2-1/2",  # accepted: year first with slashes
            "2024.01.12,a,c,1-0",  # accepted: year first with dots
            "2024-02-30,a,d,0-1",  # no such day: bad_date
            "2024-02-03,b,c,0-1",
        ],
    )
    store = arpad.Store(root / "S")
    store.ingest(games)
    store.rate("elo")
    return store


def cut_off(args: list[str], read_first: bool) -> tuple[int, str]:
    """Run ``arpad ARGS`` with its stdout a real pipe that the reader closes: after its
    first 100 bytes (``read_first``; JSON is one long line) or before reading anything.
    (exit code, stderr)."""
    proc = subprocess.Popen([str(ARPAD), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if read_first:
        proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


def test_a_large_output_cut_off_by_a_real_pipe_exits_141(small):
    # 1.7 MB of CSV: far more than a pipe holds (64 KiB)
    query = "SELECT i, repeat('x', 80) AS pad FROM range(20000) t(i)"
    args = ["sql", query, "--store", str(small.path), "--format", "csv"]
    whole = subprocess.run([str(ARPAD), *args], capture_output=True, check=True).stdout
    assert len(whole) > 1_000_000
    code, err = cut_off(args, read_first=True)
    assert code == 141, err  # was 0: the short write was taken for a whole one
    assert "Traceback" not in err and "Exception ignored" not in err
    json_code, err = cut_off([*args[:-1], "json"], read_first=True)
    assert json_code == 141 and "Traceback" not in err


def test_a_small_output_whose_reader_has_gone_exits_141(small):
    code, err = cut_off(
        ["sql", "SELECT 1 AS a", "--store", str(small.path), "--format", "csv"],
        read_first=False,
    )
    assert code == 141 and "Traceback" not in err, err


def test_the_whole_output_still_reaches_a_reader_that_reads_it(small):
    query = "SELECT i FROM range(200000) t(i)"
    out = subprocess.run(
        [str(ARPAD), "sql", query, "--store", str(small.path), "--format", "csv"],
        capture_output=True,
        check=True,
    ).stdout
    assert out.splitlines() == [b"i", *(str(i).encode() for i in range(200000))]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The synthetic FIDE sample (every 12th month), rated: 202407 is its first month
    after FIDE's 2024 compression (docs/fide-history.md)."""
    root = tmp_path_factory.mktemp("round7_fide")
    players, games = write_sample(root / "in", every=12)
    store = arpad.Store(root / "store")
    store.ingest(games, players=players)
    store.rate("fide")
    return store


def test_movers_rank_by_the_whole_movement_and_keep_adjustment_only_movers(sample):
    period = 202407
    ratings = sample.sql(
        "SELECT player_id, rating_before, rating_after, games, adjustment FROM ratings "
        "WHERE system = 'fide' AND pool = 'standard' AND period = ?",
        [period],
    )
    assert (ratings["adjustment"].fill_null(0) != 0).any()  # the compression month
    # docs/analysis.md: a player whose rating moved (games or adjustment); rank_up 1 =
    # the biggest gain, ties sharing a rank
    naive = (
        ratings.with_columns(movement=pl.col("rating_after") - pl.col("rating_before"))
        .filter(
            pl.col("movement").is_not_null(),
            pl.col("movement") != 0,
            (pl.col("games") > 0) | (pl.col("adjustment").fill_null(0) != 0),
        )
        .with_columns(
            rank_up=pl.col("movement").rank("min", descending=True),
            rank_down=pl.col("movement").rank("min"),
        )
        .sort("player_id")
    )
    movers = sample.sql(
        "SELECT * FROM movers WHERE system = 'fide' AND pool = 'standard' AND period = ?",
        [period],
    ).sort("player_id")
    assert movers.columns == [
        "system", "pool", "period", "rank_up", "rank_down", "player_id", "name", "federation",
        "rating_before", "rating_after", "change", "games", "movement",
    ]  # fmt: skip
    assert movers["player_id"].to_list() == naive["player_id"].to_list()
    assert movers["movement"].to_list() == naive["movement"].to_list()
    assert movers["rank_up"].to_list() == naive["rank_up"].to_list()
    assert movers["rank_down"].to_list() == naive["rank_down"].to_list()
    # moved only by the compression (no game), and the biggest gain of the month
    first = movers.filter(pl.col("rank_up") == 1).row(0, named=True)
    assert first["games"] == 0 and first["change"] == 0
    assert first["movement"] == first["rating_after"] - first["rating_before"] > 200


def test_diff_of_a_period_never_published_names_store_publish(small):
    with pytest.raises(ValueError) as raised:
        small.diff(202401, "elo")
    text = str(raised.value)
    assert text.endswith("(published: none; store.publish('elo', period=202401))"), text
    assert "arpad publish" not in text


def test_the_quarantine_view_has_the_documented_columns(small):
    documented = ["source", "line", "reason", "detail", "raw", "ingest_batch"]  # schemas.md
    assert small.sql("SELECT * FROM quarantine").columns == documented
    con = catalog.connect(Store(small.path))  # the catalog file's view (store.md)
    try:
        assert [d[0] for d in con.execute("SELECT * FROM quarantine").description] == documented
    finally:
        con.close()


def test_bad_date_names_every_accepted_form(small):
    # 2024/01/10 and 2024.01.12 are stored; 2024-02-30 is quarantined naming the forms
    assert small.sql("SELECT count(*) AS n FROM games").item() == 4
    detail = small.sql("SELECT detail FROM quarantine WHERE reason = 'bad_date'").item()
    assert (
        detail == f"date 2024-02-30 is not a valid date {FORMS}: no such day, 2024-02 has no day 30"
    )


def test_reconstruct_of_one_system_without_starting_ratings_says_needs(small):
    with pytest.raises(ValueError, match="fide needs published starting ratings"):
        small.reconstruct(["fide"])


def test_text_goes_to_a_stdout_without_a_byte_buffer(monkeypatch):
    """A notebook's output stream has an encoding but no ``buffer``: the text is written
    to it as text (pipeline/output.py ``write_stdout``)."""
    from arpad.pipeline import output

    class NotebookStream:
        encoding = "UTF-8"

        def __init__(self):
            self.parts = []

        def write(self, text):
            self.parts.append(text)
            return len(text)

        def flush(self):
            pass

    stream = NotebookStream()
    monkeypatch.setattr("sys.stdout", stream)
    output.write_stdout("é1,2\n")
    assert stream.parts == ["é1,2\n"]
