"""One spelling of an id (docs/ingest.md "One spelling of an id"): a name-like id or a
name written composed (NFC, "é" as one code point) in one file and decomposed (NFD,
"e" + a combining accent, as macOS tools and some spreadsheets write it) in another is
one player. Before this, a CSV's NFD id and another file's NFC id were two players."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.identity import spelt_as_stored
from arpad.pipeline.readers import RawTable
from arpad.pipeline.store import Store
from arpad.pipeline.validate import validate_games

RETI = "Réti, Richard"
NFC, NFD = unicodedata.normalize("NFC", RETI), unicodedata.normalize("NFD", RETI)


def test_the_two_spellings_differ_as_bytes():
    # guard: the premise of every test below
    assert NFC != NFD and len(NFD) == len(NFC) + 1
    assert unicodedata.normalize("NFC", NFD) == NFC


def _write(path: Path, rows: list[str], header: str = "white_id,black_id,period,score") -> Path:
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def _stored_ids(store: Path) -> set[str]:
    ids: set[str] = set()
    for f in Store(store).game_files():
        t = pq.read_table(f, columns=["white_id", "black_id"]).to_pydict()
        ids |= set(t["white_id"]) | set(t["black_id"])
    return ids


def test_csv_files_in_two_spellings_give_one_player(tmp_path, capsys):
    store = tmp_path / "s"
    a = _write(tmp_path / "a.csv", [f'"{NFC}",Capablanca,202001,1', f'"{NFC}",Lasker,202001,0.5'])
    b = _write(tmp_path / "b.csv", [f'"{NFD}",Capablanca,202002,0', f'Lasker,"{NFD}",202002,1'])
    assert main(["ingest", str(a), str(b), "--store", str(store), "--no-flow"]) == 0
    assert _stored_ids(store) == {NFC, "Capablanca", "Lasker"}
    players = pq.read_table(Store(store).players_path).column("player_id").to_pylist()
    assert sorted(players) == sorted([NFC, "Capablanca", "Lasker"])
    capsys.readouterr()
    assert main(["rate", "--system", "elo", "--store", str(store), "--no-flow"]) == 0
    # the decomposed spelling typed on the command line finds the stored player
    capsys.readouterr()
    assert main(["history", NFD, "--system", "elo", "--store", str(store)]) == 0
    out = capsys.readouterr()
    assert "202002" in out.out and "note:" not in out.err


def test_a_players_file_in_the_other_spelling_names_the_same_player(tmp_path):
    store = tmp_path / "s"
    games = _write(tmp_path / "g.csv", [f'"{NFC}",Capablanca,202001,1'])
    players = _write(tmp_path / "p.csv", [f'"{NFD}","{NFD}",2450'], header="player_id,name,rating")
    assert main(["ingest", str(games), "--players", str(players), "--store", str(store)]) == 0
    table = pl.from_arrow(pq.read_table(Store(store).players_path))
    row = table.filter(pl.col("player_id") == NFC)
    assert row.height == 1 and row["name"][0] == NFC and row["rating"][0] == 2450


def test_ascii_columns_pass_through_untouched():
    # the normalisation runs only on a column with non-ASCII text; the rest are as read
    frame = pl.DataFrame(
        {
            "white_id": ["a", "b ", NFD],
            "black_id": ["x", "y", "z"],
            "period": ["202001"] * 3,
            "score": ["1", "0", "0.5"],
        }
    )
    frame = frame.with_columns(pl.Series("_line", [2, 3, 4]), pl.lit("raw").alias("_raw"))
    v = validate_games(RawTable(Path("f.csv"), "csv", "games", frame), "f.csv", "b")
    got = v.accepted.to_pydict()
    assert got["white_id"] == ["a", "b", NFC] and got["black_id"] == ["x", "y", "z"]


@pytest.mark.parametrize("typed", [NFC, NFD])
def test_spelt_as_stored(typed):
    assert spelt_as_stored(typed, {NFC}) == NFC
    assert spelt_as_stored(typed, {typed}) == typed  # an exact match wins
    assert spelt_as_stored(typed, set()) == typed
