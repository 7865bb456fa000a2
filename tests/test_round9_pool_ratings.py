"""Round 9, the new user's defect 3 (docs/observations.md "Undated ratings and pools",
docs/ingest.md "Column names"): a players file headed as FIDE's lists are, with
``SRtng`` (the standard rating), seeded every pool with it, so rapid players started
from their standard ratings; FIDE's combined layout (``SRtng``, ``RRtng``, ``BRtng``)
was refused. Now each of those columns is the rating of its own pool only; a rating
without a pool (``Elo``, ``Rtng``) still seeds every pool.

Numbers by hand (docs/rules.md, FIDE table 8.1.2, K 20: no rated_games column, adults):
Müller 2285 v Schröder 2010, D 275: PD .83/.17; Müller 2200 v Schröder 2000 (rapid),
D 200: .76/.24; a change is K x ΣΔR rounded half away from zero.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

STD = (  # the report's std.csv
    "ID Number;Name;Fed;SRtng;B-day\r\n"
    "4600001;Müller, Jürgen;GER;2285;1979\r\n"
    "4600002;Schröder, Anna;GER;2010;2005\r\n"
)
COMBINED = (  # FIDE's combined layout (as arpad list --pool all writes it)
    "ID Number;Name;Fed;Sex;Tit;WTit;OTit;FOA;SRtng;SGm;SK;RRtng;RGm;Rk;BRtng;BGm;BK;B-day;Flag\r\n"
    "4600001;Müller, Jürgen;GER;M;;;;;2285;0;20;2200;0;20;2150;0;20;1979;\r\n"
    "4600002;Schröder, Anna;GER;F;;;;;2010;0;20;2000;0;20;0;0;0;2005;w\r\n"
)
RAPID = "Date;White;Black;Result\r\n2025.01.10;4600001;4600002;1-0\r\n"  # the report's rg.csv
STANDARD = "Date;White;Black;Result\r\n2025.01.12;4600001;4600002;0-1\r\n"
BLITZ = "Date;White;Black;Result\r\n2025.01.14;4600001;4600002;1/2-1/2\r\n"


def run(*args) -> int:
    flow = ["--no-flow"] if args[0] in ("ingest", "rate") else []
    return main([*map(str, args), *flow])


def ingest(tmp_path: Path, root: Path, players: tuple[str, str], *games, code: int = 0) -> None:
    """``games``: (pool, text) pairs, each its own file ingested with ``--pool``; ``code``:
    the exit code of the players file's ingest (2: rows quarantined)."""
    (tmp_path / players[0]).write_text(players[1], encoding="utf-8", newline="")
    args = ["--players", tmp_path / players[0]]
    for pool, text in games:
        (tmp_path / f"{pool}.csv").write_text(text, newline="")
        assert run("ingest", tmp_path / f"{pool}.csv", *args, "--pool", pool, "--store", root) == 0
        args = []
    if args:
        assert run("ingest", *args, "--store", root) == code


def rated(root: Path, pool: str) -> dict[str, tuple]:
    """player -> (rating_before, rating_after) of period 202501, rated by FIDE's rules."""
    assert run("rate", "--system", "fide", "--pool", pool, "--store", root) == 0
    rows = Store(root).read_ratings("fide", pool, 202501).to_pylist()
    return {r["player_id"]: (r["rating_before"], r["rating_after"]) for r in rows}


def listed(root: Path, pool: str, capsys) -> dict[str, int]:
    capsys.readouterr()
    assert run("list", "--system", "fide", "--pool", pool, "--store", root, "--format", "csv") == 0
    text = capsys.readouterr().out
    lines = [ln for ln in text.splitlines() if ln.startswith(("rank,", "1,", "2,"))]
    frame = pl.read_csv("\n".join(lines).encode(), infer_schema_length=0)
    return {r["player_id"]: int(r["rating"]) for r in frame.iter_rows(named=True)}


def table(root: Path) -> dict[str, float | None]:
    return {r["player_id"]: r["rating"] for r in Store(root).read_players().to_pylist()}


def test_srtng_seeds_the_standard_pool_only(tmp_path, capsys):
    root = tmp_path / "S"
    ingest(tmp_path, root, ("std.csv", STD), ("rapid", RAPID), ("standard", STANDARD))
    assert "SRtng as standard_rating" in capsys.readouterr().out
    # Rapid: no rapid rating given: refused (round 11; round 9 rated both as unrated,
    # before that 2285 and 2010, and the list said 2288/2007).
    capsys.readouterr()
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", root) == 2
    assert "for pool rapid" in capsys.readouterr().err
    # Standard, unchanged: Schröder wins, -.83 x 20 = -16.6 -> -17, +17.
    assert rated(root, "standard") == {
        "4600001": (2285.0, 2268.0),
        "4600002": (2010.0, 2027.0),
    }
    assert listed(root, "standard", capsys) == {"4600001": 2268, "4600002": 2027}
    assert table(root) == {"4600001": 2285.0, "4600002": 2010.0}


def test_fides_combined_layout_gives_each_pool_its_own_rating(tmp_path, capsys):
    root = tmp_path / "S"
    games = [("rapid", RAPID), ("standard", STANDARD), ("blitz", BLITZ)]
    ingest(tmp_path, root, ("all.csv", COMBINED), *games)
    out = capsys.readouterr().out  # (it was refused: "would both be read as rating")
    assert (
        "SRtng as standard_rating, RRtng as rapid_rating, BRtng as blitz_rating, "
        "B-day as birth_year"
    ) in out
    assert "columns not read: SGm, SK, RGm, Rk, BGm, BK, Flag (FIDE's Gms" in out
    # Rapid from RRtng: Müller wins, .24 x 20 = 4.8 -> +5.
    assert rated(root, "rapid") == {"4600001": (2200.0, 2205.0), "4600002": (2000.0, 1995.0)}
    assert listed(root, "rapid", capsys) == {"4600001": 2205, "4600002": 1995}
    # Standard from SRtng, as with a standard list alone.
    assert rated(root, "standard") == {
        "4600001": (2285.0, 2268.0),
        "4600002": (2010.0, 2027.0),
    }
    assert listed(root, "standard", capsys) == {"4600001": 2268, "4600002": 2027}
    # Blitz: BRtng 0 is FIDE's unrated; a game against an unrated player changes nothing.
    assert rated(root, "blitz") == {"4600001": (2150.0, 2150.0), "4600002": (None, None)}
    # The players table's one rating is the standard one.
    assert table(root) == {"4600001": 2285.0, "4600002": 2010.0}


def test_a_corrected_rapid_rating_moves_the_rapid_start_only(tmp_path, capsys):
    root = tmp_path / "S"
    ingest(tmp_path, root, ("all.csv", COMBINED), ("rapid", RAPID), ("standard", STANDARD))
    rated(root, "rapid")
    rated(root, "standard")
    capsys.readouterr()
    corrected = COMBINED.replace(";2200;", ";2250;")
    (tmp_path / "all.csv").write_text(corrected, encoding="utf-8", newline="")
    assert run("ingest", "--players", tmp_path / "all.csv", "--store", root) == 0
    assert "undated rapid starting rating changes (4600001: 2200 -> 2250)" in (
        capsys.readouterr().out
    )
    # D 250: .81; .19 x 20 = 3.8 -> +4.
    assert rated(root, "rapid") == {"4600001": (2250.0, 2254.0), "4600002": (2000.0, 1996.0)}
    assert rated(root, "standard")["4600001"] == (2285.0, 2268.0)


def test_a_bad_pool_rating_quarantines_its_row_and_a_row_may_lack_standard(tmp_path):
    root = tmp_path / "S"
    players = "ID Number;Name;SRtng;RRtng;BRtng\n1;A;2000;abc;1900\n2;B;1800;;\n3;C;;1700;0\n"
    ingest(tmp_path, root, ("p.csv", players), code=2)
    rows = Store(root).quarantine_dir.rglob("*.parquet")
    bad = [r for f in rows for r in pl.read_parquet(f).iter_rows(named=True)]
    assert [(r["line"], r["detail"]) for r in bad] == [
        (2, "rapid_rating abc is not a number in 0..3500")
    ]
    # C has no standard rating: the table shows the rapid one.
    assert table(root) == {"2": 1800.0, "3": 1700.0}


@pytest.mark.parametrize("heading", ["Elo", "Rtng"])
def test_a_rating_without_a_pool_still_seeds_every_pool(tmp_path, heading):
    root = tmp_path / "S"
    players = STD.replace("SRtng", heading)
    ingest(tmp_path, root, ("std.csv", players), ("rapid", RAPID))
    # The report's numbers: .17 x 20 = 3.4 -> +3.
    assert rated(root, "rapid") == {"4600001": (2285.0, 2288.0), "4600002": (2010.0, 2007.0)}


def test_parquet_pool_ratings(tmp_path):
    root = tmp_path / "S"
    pl.DataFrame(
        {"ID Number": [4600001, 4600002], "SRtng": [2285, 2010], "RRtng": [2200, 2000]}
    ).write_parquet(tmp_path / "p.parquet")
    (tmp_path / "rapid.csv").write_text(RAPID, newline="")
    assert (
        run(
            "ingest",
            tmp_path / "rapid.csv",
            "--players",
            tmp_path / "p.parquet",
            "--pool",
            "rapid",
            "--store",
            root,
        )
        == 0
    )
    assert rated(root, "rapid") == {"4600001": (2200.0, 2205.0), "4600002": (2000.0, 1995.0)}


@pytest.mark.parametrize(
    ("header", "said"),
    [
        ("player_id,Rating,SRtng", "columns 'Rating' and 'SRtng' both give a rating"),
        ("player_id,pool,RRtng", "columns 'pool' and 'RRtng' both say a rating's pool"),
    ],
)
def test_a_pool_rating_beside_a_rating_of_every_pool_is_refused(tmp_path, capsys, header, said):
    (tmp_path / "p.csv").write_text(f"{header}\n1,2000,2000\n")
    assert run("ingest", "--players", tmp_path / "p.csv", "--store", tmp_path / "S") == 2
    err = capsys.readouterr().err
    assert f"p.csv:1: {said}" in err and "keep one" in err
