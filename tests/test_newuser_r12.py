"""The new user's report, round 12 (findings 2, 3 and 4).

2. A players file's ``date`` column refused the date forms its ``birth_date`` and the
   games files read (``01.10.2026``, ``2026-10-1``): every such row was quarantined
   ``date … is not a date (YYYY-MM-DD, YYYY-MM) in range``, of dates in range.
3. Excel's scientific notation of a long id (``1,23457E+11``) was stored as a player id
   without a word: two people of a players file became one.
4. ``players identify --output map.csv`` proposing nothing, then ``players merge
   --mapping map.csv``, the README's monthly step, failed with exit 2.
"""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import identity, periods
from arpad.pipeline.cli import main
from arpad.pipeline.observations import observations_path
from arpad.pipeline.store import Store
from arpad.pipeline.validate import player_date_period

FORMS = "YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD, DD.MM.YYYY, YYYY-MM or YYYYMM"


def quarantine(store: Store) -> list[tuple[int, str, str]]:
    rows = []
    for path in sorted(store.quarantine_dir.rglob("*.parquet")):
        rows += pq.read_table(path, columns=["line", "reason", "detail"]).to_pylist()
    return sorted((r["line"], r["reason"], r["detail"]) for r in rows)


def ingest(tmp_path, monkeypatch, *argv) -> tuple[int, Store]:
    monkeypatch.chdir(tmp_path)
    code = main(["ingest", *argv, "--store", "S"])
    return code, Store(tmp_path / "S")


# -- 2. a players file's date column -------------------------------------------------------
def test_a_players_date_column_reads_the_dates_of_a_games_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "p.csv").write_text(
        "player_id;date;rating;birth_date\n"
        "1001;01.10.2026;2105;05.03.1990\n"  # DD.MM.YYYY, as birth_date and games read it
        "1002;2026-10-1;1650;1985-2-3\n"  # unpadded
        "1003;202610;1820;\n"  # YYYYMM and YYYY-MM, read before
        "1004;2026-10;2310;\n"
        "1005;2026-09-30 18:00;1700;\n"  # a spreadsheet's timestamp: its date as written
        "1006;10/2026;1950;\n"
        "1007;31.11.2026;1950;\n"
        "1008;1700-01;1950;\n",
        encoding="utf-8",
    )
    code, store = ingest(tmp_path, monkeypatch, "--players", "p.csv")
    assert code == 2  # three rows quarantined
    stored = pq.read_table(observations_path(store), columns=["player_id", "period"])
    dated = {r["player_id"]: r["period"] for r in stored.to_pylist() if r["period"] is not None}
    assert dated == {"1001": 202610, "1002": 202610, "1003": 202610, "1004": 202610, "1005": 202609}
    months = periods.valid_months_text()
    assert quarantine(store) == [
        (7, "bad_player_field", f"date 10/2026 is not a valid date ({FORMS})"),
        (
            8,
            "bad_player_field",
            f"date 31.11.2026 is not a valid date ({FORMS}): no such day, 2026-11 has no day 31",
        ),
        (9, "bad_player_field", f"date 1700-01 is outside the valid {months}"),
    ]
    born = {r["player_id"]: r["birth_date"] for r in store.read_players().to_pylist()}
    assert str(born["1001"]) == "1990-03-05"


def test_the_players_date_period_of_each_form():
    text = ["2026-10-05", "2026/10/05", "2026.10.05", "5.10.2026", "2026-10", "202610", "2026-13"]
    frame = pl.DataFrame({"d": [*text, "03.11.26", "2999-01", None]})
    got = frame.select(player_date_period(pl.col("d"))).to_series().to_list()
    assert got == [202610] * 6 + [None, None, None, None]


# -- 3. Excel's scientific notation of a long id ---------------------------------------------
SCIENTIFIC = (
    "in a spreadsheet's scientific notation (a long number in Excel's General format): its "
    "digits are lost, and two people can share it; re-export the file with {} formatted as text"
)


def test_an_id_in_scientific_notation_is_noted_and_its_games_quarantined(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "ids.csv").write_text(
        "player_id;name;rating\n"
        "1,23457E+11;Big Id One;1900\n"
        "1,23457E+11;Big Id Two;2000\n"
        "00123;Zero Lead;1800\n"
        "3E10;Plain Id;1700\n",  # no E+: an id as any other
        encoding="utf-8",
    )
    (tmp_path / "g.csv").write_text(
        "date;white_id;black_id;result\n"
        "2026-10-05;1,23457E+11;00123;1-0\n"
        "2026-10-06;00123;1.23457E+11;0-1\n"
        "2026-10-07;00123;3E10;1-0\n",
        encoding="utf-8",
    )
    code, store = ingest(tmp_path, monkeypatch, "g.csv", "--players", "ids.csv")
    assert code == 2
    out = capsys.readouterr().out
    assert (
        "  note: ids.csv: the player_id column holds 1 id(s) in a spreadsheet's scientific "
        "notation (e.g. 1,23457E+11 on line(s) 2, 3), as Excel shows and saves a long number "
        "in a General cell: the digits are lost, and two people whose ids begin alike become "
        "one player; re-export the file with the player_id column formatted as text\n"
    ) in out
    games = SCIENTIFIC.format("the white_id and black_id columns")
    assert quarantine(store) == [
        (2, "bad_player_id", f"white_id 1,23457E+11 is {games}"),
        (3, "bad_player_id", f"black_id 1.23457E+11 is {games}"),
        (
            3,
            "duplicate_player_id",
            "player_id 1,23457E+11 already on line 2, an id "
            + SCIENTIFIC.format("the player_id column"),
        ),
    ]
    stored = [g for f in store.game_files() for g in pq.read_table(f).to_pylist()]
    assert [(g["white_id"], g["black_id"]) for g in stored] == [("00123", "3E10")]


# -- 4. a mapping file with no row to merge ---------------------------------------------------
@pytest.fixture
def store(tmp_path, monkeypatch):
    (tmp_path / "g.csv").write_text(
        "date,white_id,black_id,result\n2026-10-05,1001,1002,1-0\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["ingest", "g.csv", "--store", "S"]) == 0
    return Store(tmp_path / "S")


def test_identify_proposing_nothing_then_merge_is_nothing_to_merge(store, capsys):
    argv = ["--store", str(store.root)]
    assert main(["players", "identify", *argv, "--output", "map.csv"]) == 0
    assert (store.root.parent / "map.csv").read_text().splitlines() == [
        "keep,duplicate,evidence,score"
    ]
    capsys.readouterr()
    assert main(["players", "merge", "--mapping", "map.csv", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.out == "nothing to merge: map.csv has no keep,duplicate row to merge\n"
    assert captured.err == ""
    assert identity.read_aliases(store).height == 0


def test_a_mapping_of_held_back_rows_alone_is_nothing_to_merge(store, capsys):
    (store.root.parent / "m.csv").write_text(
        "keep,duplicate,evidence,score,merge\n1001,1002,held back: they met in a game,,no\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["players", "merge", "--mapping", "m.csv", "--store", str(store.root)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "nothing to merge: m.csv has no keep,duplicate row to merge\n"
    assert captured.err == (
        "arpad: note: m.csv: 1 row(s) marked merge 'no' left out (pairs arpad players "
        "identify held back; write yes in the merge column to merge one)\n"
    )
    assert identity.read_aliases(store).height == 0


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "m.csv:1: empty file: a mapping file needs the columns keep,duplicate"),
        (
            "kept,dup\n",
            "m.csv:1: a mapping file needs the columns keep,duplicate (found the columns "
            "'kept', 'dup', separated by ',')",
        ),
    ],
)
def test_a_file_that_is_no_mapping_is_still_refused(store, capsys, text, problem):
    (store.root.parent / "m.csv").write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["players", "merge", "--mapping", "m.csv", "--store", str(store.root)]) == 2
    assert capsys.readouterr().err == f"arpad: error: {problem}; nothing was merged\n"
