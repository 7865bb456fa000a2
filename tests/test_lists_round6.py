"""Lists of the systems that are not FIDE's (a rating officer's attack of 2026-12-04,
round 6; docs/lists.md "The systems' own columns"). Each test of a defect failed
before its fix (``test_fide_layouts_and_other_systems_keep_their_columns`` guards what
stays):

* Glicko and Glicko-2 lists had no RD (and Glicko-2 no volatility) in any format;
* an ECF season whose closing month is still in progress was listed as published
  (``rated``/``new``) from the month's first games (docs/legacy-systems.md);
* USCF's fractional K was written raw (30.43084240297596) in CSV, JSON and Parquet;
* ``arpad site`` cards of USCF printed empty fields (``K , change ,``) and the
  opponents' ratings with decimals (1446.1) on a whole-number system.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import re
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline import periods, publish
from arpad.pipeline.cli import main
from arpad.pipeline.lists import LIST_COLUMNS, TABLE_COLUMNS, list_frame
from arpad.pipeline.store import Store
from tests.test_site import parse
from tests.test_table_cells import table_cells


def _run(capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _store(root: Path, games: str, players: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "games.csv").write_text(games)
    (root / "players.csv").write_text(players)
    store = root / "S"
    assert main(["ingest", str(root / "games.csv"), "--players", str(root / "players.csv"),
                 "--store", str(store)]) == 0  # fmt: skip
    return store


# -- 1. Glicko lists carry the RD -----------------------------------------------------
# Glickman's examples: a 1500/RD 200 player (volatility 0.06) beats a 1400/30, loses to
# a 1550/100 and to a 1700/300. Glicko-2 ("Example of the Glicko-2 system", tau 0.5):
# 1464.06, RD 151.52, sigma 0.05999 (full precision 1464.0507 / 151.5165 / 0.0599960,
# docs/glicko.md "Tests"). Glicko-1 ("The Glicko system", the RDs being those at the
# start of the period, so c = 0): 1464, RD 151.4 (151.39 at full precision).
GLICKMAN_PLAYERS = (
    "player_id,name,rating,rd,volatility\n"
    'P1,"Glickman, Player",1500,200,0.06\nP2,"Two, Op",1400,30,0.06\n'
    'P3,"Three, Op",1550,100,0.06\nP4,"Four, Op",1700,300,0.06\n'
)
GLICKMAN_GAMES = (
    "date,white_id,black_id,result\n"
    "2025-10-05,P1,P2,1-0\n2025-10-06,P3,P1,1-0\n2025-10-07,P1,P4,0-1\n"
)


@pytest.fixture(scope="module")
def glicko_store(tmp_path_factory) -> Path:
    store = _store(tmp_path_factory.mktemp("glicko"), GLICKMAN_GAMES, GLICKMAN_PLAYERS)
    assert main(["rate", "--system", "glicko2", "--store", str(store)]) == 0
    assert main(["rate", "--system", "glicko", "--store", str(store), "--set", "c=0"]) == 0
    return store


def test_glicko2_list_has_rd_and_volatility_in_every_format(glicko_store, capsys, tmp_path):
    """Glickman's player: rating 1464.1, RD 151.5 (one decimal, as the rating), volatility
    0.059996 (6 decimals), right after ``rating``, in CSV, JSON, Parquet and the table."""
    base = ["list", "--system", "glicko2", "--store", str(glicko_store)]
    rows = {r["player_id"]: r for r in _csv(_run(capsys, *base, "--format", "csv"))}
    assert (rows["P1"]["rating"], rows["P1"]["rd"], rows["P1"]["volatility"]) == (
        "1464.1",
        "151.5",
        "0.059996",
    )
    header = list(rows["P1"])
    assert header[header.index("rating") :][:4] == ["rating", "rd", "volatility", "games"]
    data = {d["player_id"]: d for d in json.loads(_run(capsys, *base, "--format", "json"))}
    assert (data["P1"]["rd"], data["P1"]["volatility"]) == (151.5, 0.059996)
    out = tmp_path / "l.parquet"
    _run(capsys, *base, "--format", "parquet", "--output", str(out))
    frame = pl.read_parquet(out).filter(pl.col("player_id") == "P1")
    assert frame.select("rating", "rd", "volatility").row(0) == (1464.1, 151.5, 0.059996)
    # the table: the same cells (the volatility with its decimals, not the table's one)
    cells = table_cells(_run(capsys, *base))
    assert cells[0] == ["rank", "player_id", "name", "federation", "title", "rating", "rd",
                        "volatility", "games", "k", "flag", "status"]  # fmt: skip
    p1 = dict(zip(cells[0], next(c for c in cells[1:] if c[1] == "P1")))
    assert (p1["rating"], p1["rd"], p1["volatility"]) == ("1464.1", "151.5", "0.059996")


def test_glicko1_list_has_rd_and_no_volatility(glicko_store, capsys):
    rows = _csv(_run(capsys, "list", "--system", "glicko", "--store", str(glicko_store),
                     "--format", "csv"))  # fmt: skip
    p1 = next(r for r in rows if r["player_id"] == "P1")
    assert (p1["rating"], p1["rd"]) == ("1464.1", "151.4")
    assert "volatility" not in p1


def test_fide_layouts_and_other_systems_keep_their_columns(glicko_store, capsys):
    """FIDE's TXT and XML layouts have no RD; Elo's list has FIDE's columns only."""
    base = ["list", "--system", "glicko2", "--store", str(glicko_store)]
    txt = _run(capsys, *base, "--format", "fide-txt").splitlines()
    assert txt[0].split() == ["ID", "Number", "Name", "Fed", "Sex", "Tit", "WTit", "OTit",
                              "FOA", "NOV25", "Gms", "K", "B-day", "Flag"]  # fmt: skip
    assert "<rd" not in _run(capsys, *base, "--format", "fide-xml")
    assert main(["rate", "--system", "elo", "--store", str(glicko_store)]) == 0
    frame, _ = list_frame(Store(glicko_store), "elo", "standard", None)
    assert tuple(frame.columns) == LIST_COLUMNS
    table = table_cells(_run(capsys, "list", "--system", "elo", "--store", str(glicko_store)))
    assert table[0] == list(TABLE_COLUMNS)


def test_a_published_glicko2_list_keeps_the_rd(glicko_store, capsys):
    """The frozen list (``arpad publish``) and ``--in-force``, which reads it, have it."""
    assert main(["publish", "--system", "glicko2", "--store", str(glicko_store),
                 "--period", "202510"]) == 0  # fmt: skip
    frozen = pl.read_parquet(
        Store(glicko_store).published_partition("glicko2", "standard", 202510) / "list.parquet"
    )
    assert frozen.filter(pl.col("player_id") == "P1").select("rd", "volatility").row(0) == (
        151.5,
        0.059996,
    )
    rows = _csv(_run(capsys, "list", "--system", "glicko2", "--store", str(glicko_store),
                     "--in-force", "2025-11-01", "--format", "csv"))  # fmt: skip
    assert next(r for r in rows if r["player_id"] == "P1")["rd"] == "151.5"


# -- 2. an ECF season closing in a month in progress is interim ------------------------
# Alice (150) beat Bob (130) in September 2026; Bob beat Carl (no grade) on 2 December,
# in the Jul-Dec season's closing month. Carl's estimate: Bob's 130 - 50 = 80; Alice
# (130 + 50 + 29 x 150) / 30 = 151, Bob (100 + 130 + 28 x 130) / 30 = 129 (30-game
# rule, docs/legacy-systems.md).
ECF_GAMES = "date,white_id,black_id,result\n2026-09-10,A,B,1-0\n2026-12-02,B,C,1-0\n"
ECF_PLAYERS = "player_id,name,grade,birth_year\nA,Alice,150,1970\nB,Bob,130,1970\nC,Carl,,1970\n"


def _pin(monkeypatch, day: dt.date) -> None:
    monkeypatch.setattr(publish, "today", lambda: day)
    monkeypatch.setattr(
        periods, "latest_game_date", lambda today=None: (day, day + dt.timedelta(days=1))
    )


def test_an_ecf_season_closing_in_a_month_in_progress_is_interim(tmp_path, capsys, monkeypatch):
    _pin(monkeypatch, dt.date(2026, 12, 4))
    store = _store(tmp_path, ECF_GAMES, ECF_PLAYERS)
    assert main(["rate", "--system", "ecf", "--store", str(store)]) == 0
    base = ["list", "--system", "ecf", "--store", str(store), "--format", "csv"]
    shown = ("player_id", "rating", "games", "status")
    rows = [tuple(r[c] for c in shown) for r in _csv(_run(capsys, *base))]
    assert rows == [
        ("A", "151", "1", "provisional"),
        ("B", "129", "2", "provisional"),
        ("C", "80", "1", "provisional"),
    ]
    # once December is over the same rows are the season's publication
    _pin(monkeypatch, dt.date(2027, 1, 2))
    rows = [tuple(r[c] for c in shown) for r in _csv(_run(capsys, *base))]
    assert rows == [("A", "151", "1", "rated"), ("B", "129", "2", "rated"), ("C", "80", "1", "new")]


# -- 3. and 4. USCF: K with one decimal in list files; the site's cards ------------------
# Ann (1800, 200 games) plays a 4-game event in August 2025: N* = 50/sqrt(0.662 +
# 0.00000739 (2569 - 1800)^2) = 22.289 (docs/uscf.md step 2), K = 800/(N* + 4) = 30.43.
# In September Nat (no rating: new) meets Bob and Cid, whose ratings after August
# have decimals.
USCF_PLAYERS = (
    "player_id,name,birth_year,rating,rated_games\n"
    "A,Ann,1970,1800,200\nB,Bob,1970,1700,100\nC,Cid,1970,1750,100\n"
    "D,Dot,1970,1650,100\nE,Eve,1970,1850,100\nN,Nat,1970,,\n"
)
USCF_GAMES = (
    "date,white_id,black_id,result,event_id\n"
    "2025-08-10,A,B,1-0,aug\n2025-08-10,C,A,1/2-1/2,aug\n"
    "2025-08-11,A,D,1-0,aug\n2025-08-11,E,A,1-0,aug\n"
    "2025-09-06,N,B,1-0,sep\n2025-09-06,C,N,1-0,sep\n"
)
ANN_K = 800 / (50 / math.sqrt(0.662 + 0.00000739 * (2569 - 1800) ** 2) + 4)


@pytest.fixture(scope="module")
def uscf_store(tmp_path_factory) -> Path:
    store = _store(tmp_path_factory.mktemp("uscf"), USCF_GAMES, USCF_PLAYERS)
    assert main(["rate", "--system", "uscf", "--store", str(store)]) == 0
    return store


def test_uscf_k_has_one_decimal_in_every_list_file(uscf_store, capsys, tmp_path):
    assert round(ANN_K, 2) == 30.43
    base = ["list", "--system", "uscf", "--store", str(uscf_store), "--period", "202508"]
    ann = next(r for r in _csv(_run(capsys, *base, "--format", "csv")) if r["player_id"] == "A")
    assert ann["k"] == "30.4"
    data = json.loads(_run(capsys, *base, "--format", "json"))
    assert next(d for d in data if d["player_id"] == "A")["k"] == 30.4
    out = tmp_path / "u.parquet"
    _run(capsys, *base, "--format", "parquet", "--output", str(out))
    assert pl.read_parquet(out).filter(pl.col("player_id") == "A")["k"].to_list() == [30.4]
    cells = table_cells(_run(capsys, *base))
    assert dict(zip(cells[0], next(c for c in cells[1:] if c[1] == "A")))["k"] == "30.4"
    assert "<k>30.4</k>" in _run(capsys, *base, "--format", "fide-xml")


def test_uscf_site_cards_have_no_empty_fields_and_whole_ratings(uscf_store, capsys, tmp_path):
    for period in ("202508", "202509"):
        assert main(["publish", "--system", "uscf", "--store", str(uscf_store),
                     "--period", period]) == 0  # fmt: skip
    out = tmp_path / "site"
    assert main(["site", "--store", str(uscf_store), "--out", str(out), "--system", "uscf"]) == 0
    store = Store(uscf_store)
    after = {r["player_id"]: r for r in store.read_ratings("uscf", "standard", 202508).to_pylist()}
    nat_row = next(
        r
        for r in store.read_ratings("uscf", "standard", 202509).to_pylist()
        if r["player_id"] == "N"
    )
    pages = {p.read_text(encoding="utf-8"): p for p in (out / "players").glob("*.html")}
    nat = next(p for t, p in pages.items() if "<h1>Nat</h1>" in t)
    ann = next(p for t, p in pages.items() if "<h1>Ann</h1>" in t)
    lines = re.findall(r"<p>([^<]*\((?:new|rated|provisional)\)[^<]*)</p>", nat.read_text())
    # Nat's first rating: no rating at the start, no K (the special formula), no change
    assert lines == [f"rating after {round(nat_row['rating_after'])} (new)"]
    card = parse(nat).tables["card"]
    # the opponents' ratings at the start of September, whole as on USCF's list
    assert {r[3]: r[4] for r in card} == {
        "Bob": str(round(after["B"]["rating_after"])),
        "Cid": str(round(after["C"]["rating_after"])),
    }
    assert after["B"]["rating_after"] != round(after["B"]["rating_after"])  # had decimals
    ann_text = ann.read_text()
    ann_after = round(after["A"]["rating_after"])
    assert f"rating at the start 1800, K 30.4, change {ann_after - 1800}, rating after " \
        f"{ann_after} (rated)" in ann_text  # fmt: skip
    assert "30.43" not in ann_text  # the published table's K too
