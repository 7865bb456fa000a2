"""FIDE's combined list file (docs/lists.md "Combined file"): standard, rapid and blitz
on one line per player. Read back with an independent fixed-width reader (polars
string slicing with the widths written down in docs/lists.md, typed again here) and
compared with each pool's ratings partition; published with the other files when
more than one pool is rated."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET

import polars as pl
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv

# docs/lists.md "Combined file": (column, 0-based start, width)
LAYOUT = [
    ("ID Number", 0, 15),
    ("Name", 15, 61),
    ("Fed", 76, 4),
    ("Sex", 80, 4),
    ("Tit", 84, 5),
    ("WTit", 89, 5),
    ("OTit", 94, 15),
    ("FOA", 109, 4),
    ("SRtng", 113, 6),
    ("SGm", 119, 4),
    ("SK", 123, 3),
    ("RRtng", 126, 6),
    ("RGm", 132, 4),
    ("Rk", 136, 3),
    ("BRtng", 139, 6),
    ("BGm", 145, 4),
    ("BK", 149, 3),
    ("B-day", 152, 6),
    ("Flag", 158, 4),
]
POOLS = {"standard": "S", "rapid": "R", "blitz": "B"}
K_HEADER = {"S": "SK", "R": "Rk", "B": "BK"}  # FIDE's header line writes Rk
LISTED = ("rated", "new", "provisional", "inactive")


@pytest.fixture
def three_pools(tmp_path) -> Store:
    """Four rated players: everybody plays standard in January 2025, three rapid, two
    blitz; in February 2026 only 1001 and 1003 play standard (1002 and 1004 are then
    inactive there), and 1002 plays rapid."""
    pfile = write_csv(
        tmp_path / "players.csv",
        "player_id,name,federation,sex,birth_year,title,w_title,o_title,foa_title,rating,rated_games",
        [
            '1001,"Alpha, Anna",NOR,F,1990,GM,WGM,,,2650,100',
            '1002,"Beta, Bob",USA,M,1985,IM,,FA,,2400,100',
            '1003,"Gamma, Carl",GER,M,2001,,,,CM,2100,100',
            '1004,"Delta, Dora",FRA,F,1970,,WIM,,,2000,100',
        ],
    )
    rows = [
        "2025-01-05,1001,1002,1,standard",
        "2025-01-06,1003,1004,0.5,standard",
        "2025-01-07,1001,1003,0,rapid",
        "2025-01-07,1002,1003,1,rapid",
        "2025-01-08,1001,1004,0.5,blitz",
        "2026-02-05,1001,1003,0.5,standard",
        "2026-02-06,1002,1003,1,rapid",
    ]
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score,pool", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    for pool in POOLS:
        argv = ["rate", "--no-flow", "--system", "fide", "--pool", pool]
        assert main([*argv, "--store", str(store.root)]) == 0
    return store


def read_fixed_width(text: str) -> pl.DataFrame:
    frame = pl.DataFrame({"line": text.splitlines()[1:]})
    return frame.select(
        pl.col("line").str.slice(start, width).str.strip_chars().replace("", None).alias(name)
        for name, start, width in LAYOUT
    )


def pool_rows(store: Store, pool: str, period: int) -> dict[str, dict]:
    """The pool's listed players straight from its ratings partition (or none); a pool
    without games in the period has its latest list carried forward (docs/lists.md "A
    pool without games in a period"): 0 games, no K, and here inactive (blitz's only
    games are of 202501, 13 months before 202602)."""
    rated = [p for p in store.rating_periods("fide", pool) if p <= period]
    if not rated:
        return {}
    rows = store.read_ratings("fide", pool, rated[-1]).to_pylist()
    listed = {
        r["player_id"]: r for r in rows if r["status"] in LISTED and r["rating_after"] is not None
    }
    if rated[-1] != period:
        return {i: {**r, "games": 0, "k": None, "status": "inactive"} for i, r in listed.items()}
    return listed


@pytest.mark.parametrize("period", [202501, 202602])
def test_combined_txt_round_trip_against_each_pools_ratings(three_pools, tmp_path, period):
    out = tmp_path / "combined.txt"
    argv = ["list", "--store", str(three_pools.root), "--pool", "all", "--period", str(period)]
    assert main([*argv, "--format", "fide-txt", "--output", str(out)]) == 0
    text = out.read_text()
    header = text.splitlines()[0]
    for name, start, width in LAYOUT:
        assert header[start : start + width].strip() == name
    got = read_fixed_width(text)
    players = {p["player_id"]: p for p in three_pools.read_players().to_pylist()}
    per_pool = {pool: pool_rows(three_pools, pool, period) for pool in POOLS}
    listed = set().union(*per_pool.values())
    assert sorted(got["ID Number"]) == sorted(listed)
    # alphabetical, as FIDE's download
    assert got["Name"].to_list() == sorted(players[i]["name"] for i in listed)
    for row in got.iter_rows(named=True):
        p = players[row["ID Number"]]
        assert (row["Name"], row["Fed"], row["Sex"], row["Tit"]) == (
            p["name"],
            p["federation"],
            p["sex"],
            p["title"] or (p["w_title"] if p["w_title"] == "WIM" else None),  # 1004: WIM WIM
        )
        assert (row["WTit"], row["OTit"], row["FOA"]) == (
            p["w_title"],
            p["o_title"],
            p["foa_title"],
        )
        assert int(row["B-day"]) == p["birth_year"]
        statuses = []
        for pool, prefix in POOLS.items():
            r = per_pool[pool].get(row["ID Number"])
            if r is None:
                assert row[f"{prefix}Rtng"] is None and row[f"{prefix}Gm"] is None
                continue
            statuses.append(r["status"])
            assert row[f"{prefix}Rtng"] == str(int(r["rating_after"]))  # whole numbers
            assert int(row[f"{prefix}Gm"]) == r["games"]
            assert row[K_HEADER[prefix]] == (None if r["k"] is None else str(int(r["k"])))
        woman = "w" if p["sex"] == "F" else ""
        inactive = "i" if all(s == "inactive" for s in statuses) else ""
        assert row["Flag"] == ((woman + inactive) or None)
    if period == 202602:
        # by hand: 1004 played nothing for 13 months in any pool: inactive everywhere;
        # 1002 is inactive in standard but played rapid this month: no i
        flags = dict(zip(got["ID Number"], got["Flag"], strict=True))
        assert flags["1004"] == "wi" and flags["1002"] is None


def test_combined_csv_xml_and_bad_pool(three_pools, tmp_path, capsys):
    root = str(three_pools.root)
    out = tmp_path / "c.csv"
    argv = ["list", "--store", root, "--pool", "all", "--period", "202501"]
    assert main([*argv, "--format", "csv", "--output", str(out)]) == 0
    frame = pl.read_csv(out)
    assert frame["standard_rating"].dtype == pl.Int64  # never 2650.0
    want = pool_rows(three_pools, "blitz", 202501)
    blitz = frame.filter(pl.col("blitz_rating").is_not_null())
    assert dict(zip(blitz["player_id"].cast(str), blitz["blitz_rating"], strict=True)) == {
        k: int(v["rating_after"]) for k, v in want.items()
    }
    xml = tmp_path / "c.xml"
    assert main([*argv, "--format", "fide-xml", "--output", str(xml)]) == 0
    first = ET.parse(xml).getroot()[0]
    assert [e.tag for e in first][8:17] == [
        "rating",
        "games",
        "k",
        "rapid_rating",
        "rapid_games",
        "rapid_k",
        "blitz_rating",
        "blitz_games",
        "blitz_k",
    ]
    capsys.readouterr()
    assert main(["list", "--store", root, "--pool", "all", "--period", "202612"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "period 202612" in err[0]
    # --date: the combined list as it stood on that date (the latest rated period before it)
    by_date = tmp_path / "d.csv"
    dated = ["list", "--store", root, "--pool", "all", "--date", "2025-01-20"]
    assert main([*dated, "--format", "csv", "--output", str(by_date)]) == 0
    assert pl.read_csv(by_date).equals(frame)


def test_publish_freezes_the_combined_file_when_several_pools_are_rated(three_pools):
    root = str(three_pools.root)
    assert main(["publish", "--store", root, "--period", "202602"]) == 0
    folder = three_pools.published_partition("fide", "standard", 202602)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "combined.txt" in manifest["files"]
    digest = hashlib.sha256((folder / "combined.txt").read_bytes()).hexdigest()
    assert manifest["files"]["combined.txt"] == digest
    got = read_fixed_width((folder / "combined.txt").read_text())
    assert set(got["ID Number"]) == set().union(*(pool_rows(three_pools, p, 202602) for p in POOLS))


def test_publish_of_a_single_pool_store_has_no_combined_file(tmp_path):
    pfile = write_csv(
        tmp_path / "p.csv", "player_id,rating,rated_games", ["1,2000,50", "2,2100,50"]
    )
    gfile = write_csv(tmp_path / "g.csv", "date,white_id,black_id,score", ["2025-01-05,1,2,1"])
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    assert main(["publish", "--store", str(store.root)]) == 0
    folder = store.published_partition("fide", "standard", 202501)
    assert not (folder / "combined.txt").exists()
    assert "combined.txt" not in json.loads((folder / "manifest.json").read_text())["files"]
