"""Hostile round 8, small fixes: a store that cannot be created (`--store /proc/foo`)
and the other words for a pool on the command line (docs/cli.md "Options")."""

from __future__ import annotations

import sys

import pytest

from arpad.pipeline import cli
from arpad.pipeline.validate import POOL_WORDS


@pytest.fixture
def games(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text(
        "date,white_id,black_id,result,pool\n"
        "2025-01-05,A,B,1-0,bullet\n"
        "2025-01-06,B,C,1/2,bullet\n"
        "2025-01-06,A,C,0-1,classical\n"
    )
    return path


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_store_that_cannot_be_created_is_one_line(games, capsys):
    # Was "arpad: error: [Errno 2] No such file or directory: '/proc/foo'".
    assert cli.main(["ingest", str(games), "--store", "/proc/foo", "--no-flow"]) == 2
    assert capsys.readouterr().err == (
        "arpad: error: /proc/foo: the store cannot be created there (No such file or "
        "directory); nothing was changed\n"
    )


def test_the_option_reads_the_pool_words_games_files_read():
    assert cli.POOL_OPTION_WORDS == {k: v for k, v in POOL_WORDS.items() if k}


@pytest.mark.parametrize(
    ("word", "pool", "games_rated"), [("bullet", "blitz", 2), ("Classical", "standard", 1)]
)
def test_pool_words_on_the_command_line(games, tmp_path, capsys, word, pool, games_rated):
    root = str(tmp_path / "s")
    assert cli.main(["ingest", str(games), "--store", root, "--no-flow"]) == 0
    capsys.readouterr()
    # Was "no games stored in pool 'bullet' (pools in the store: blitz, standard)".
    assert cli.main(["rate", "--system", "elo", "--pool", word, "--store", root, "--no-flow"]) == 0
    err = capsys.readouterr().err
    assert f"arpad: note: --pool {word} read as {pool}, as games files read it" in err
    assert (
        cli.main(["list", "--system", "elo", "--pool", word, "--store", root, "--format", "csv"])
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    header = out[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=True)) for line in out[1:]]
    played = {"blitz": {"A", "B", "C"}, "standard": {"A", "C"}}[pool]
    assert {r["player_id"] for r in rows if r["games"] != "0"} == played
    assert sum(int(r["games"]) for r in rows) == 2 * games_rated


def test_schemas_doc_lists_every_quarantine_reason():
    # docs/schemas.md "quarantine" listed 17 of the 25 codes (hostile round 8).
    from pathlib import Path

    from arpad.pipeline.reasons import Reason

    doc = (Path(__file__).parents[1] / "docs" / "schemas.md").read_text()
    section = doc.split("## quarantine", 1)[1].split("\n## ", 1)[0]
    assert [r.value for r in Reason if f"`{r.value}`" not in section] == []


def test_a_list_of_the_month_in_progress_says_it_is_provisional(tmp_path, capsys, monkeypatch):
    # Officer round 8: on 2026-12-04 `arpad list` wrote the 202612 list (four days of
    # December) with exit 0 and nothing said; publish refuses that month without --force.
    import datetime as dt

    from arpad.pipeline import publish

    monkeypatch.setattr(publish, "today", lambda: dt.date(2026, 12, 4))
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2026-11-05,A,B,1-0\n2026-12-02,A,B,1/2\n")
    root = str(tmp_path / "s")
    assert cli.main(["ingest", str(games), "--store", root, "--no-flow"]) == 0
    assert cli.main(["rate", "--system", "elo", "--store", root, "--no-flow"]) == 0
    capsys.readouterr()
    note = (
        "arpad: note: period 202612 is a month in progress (today is 2026-12-04, UTC): this "
        "list is provisional, not the month's final list; --period 202611 for the last "
        "finished month\n"
    )
    assert cli.main(["list", "--system", "elo", "--store", root, "--format", "csv"]) == 0
    assert capsys.readouterr().err == note
    for pool in ("standard", "all"):
        assert cli.main(["list", "--system", "elo", "--pool", pool, "--store", root]) == 0
        assert note in capsys.readouterr().err
    # The last finished month: nothing to say.
    args = ["list", "--system", "elo", "--period", "202611", "--store", root, "--format", "csv"]
    assert cli.main(args) == 0
    assert capsys.readouterr().err == ""


def test_pairings_with_a_mapping_read_headers_in_any_case():
    # ops round 8 found the mapping case-sensitive for files; api._mapped was too.
    import polars as pl

    import arpad

    games = pl.DataFrame(
        {"Month #": [1, 1], "White Player #": [1, 2], "Black Player #": [2, 3], "Score": [1.0, 0.5]}
    )
    lower = pl.DataFrame({"month #": [2], " white player # ": [1], "BLACK PLAYER #": [3]})
    state = arpad.rate(games, system="elo", mapping="kaggle2010")
    got = arpad.predict(state, lower, mapping="kaggle2010")
    same = arpad.predict(
        state,
        lower.rename({" white player # ": "White Player #", "BLACK PLAYER #": "Black Player #"}),
        mapping="kaggle2010",
    )
    assert got.height == 1
    assert got.get_column("expected").to_list() == same.get_column("expected").to_list()
    assert 0.5 < got.get_column("expected")[0] < 1.0  # 1 beat 2, 3 drew 2: 1 is stronger
