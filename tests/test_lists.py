"""Official list files (docs/lists.md) and "nothing empty published as success".

The FIDE TXT file is read back with an independent fixed-width reader (polars
string slicing with the widths written down in docs/lists.md, typed again here),
the XML with ``xml.etree``; both are compared with the store.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.lists import EmptyListError, list_frame
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system, system_names
from tests.conftest import write_csv

# docs/lists.md "FIDE TXT": (column, 0-based start, width)
TXT_LAYOUT = [
    ("ID Number", 0, 15),
    ("Name", 15, 61),
    ("Fed", 76, 4),
    ("Sex", 80, 4),
    ("Tit", 84, 5),
    ("WTit", 89, 5),
    ("OTit", 94, 15),
    ("FOA", 109, 4),
    ("Rating", 113, 6),
    ("Gms", 119, 4),
    ("K", 123, 3),
    ("B-day", 126, 6),
    ("Flag", 132, 4),
]

PLAYERS = [
    '1001,"Alpha, Anna",NOR,F,1990,GM,WGM,,,2650,100',
    '1002,"Beta, Bob",USA,M,1985,IM,,FA,,2400,100',
    '1003,"Gamma, Carl",GER,M,2001,,,,CM,2100,100',
    '1004,"Delta, Dora",FRA,F,1970,,WIM,,,2000,100',
]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fide_store(tmp_path) -> Store:
    """Four rated players; 1004 plays in January only and is inactive 12 months later."""
    pfile = write_csv(
        tmp_path / "players.csv",
        "player_id,name,federation,sex,birth_year,title,w_title,o_title,foa_title,rating,rated_games",
        PLAYERS,
    )
    rows = [
        "2025-01-05,1001,1002,1",  # by hand (table 8.1.2, D = 250 → PD 0.80): 1001 K 10
        "2025-01-06,1002,1003,0.5",
        "2025-01-07,1003,1004,1",
        "2026-01-05,1001,1003,0.5",
    ]
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    return store


def read_fixed_width(text: str) -> pl.DataFrame:
    lines = text.splitlines()
    frame = pl.DataFrame({"line": lines[1:]})
    return frame.select(
        pl.col("line").str.slice(start, width).str.strip_chars().replace("", None).alias(name)
        for name, start, width in TXT_LAYOUT
    )


def store_list(store: Store, period: int) -> dict[str, dict]:
    """The period's listed players straight from the ratings partition and players table."""
    ratings = store.read_ratings("fide", "standard", period).to_pylist()
    players = {p["player_id"]: p for p in store.read_players().to_pylist()}
    return {
        r["player_id"]: {**players[r["player_id"]], **r}
        for r in ratings
        if r["status"] in ("rated", "new", "inactive") and r["rating_after"] is not None
    }


def test_fide_txt_round_trip_with_an_independent_fixed_width_reader(fide_store, tmp_path, capsys):
    out = tmp_path / "list.txt"
    argv = ["list", "--store", str(fide_store.root), "--system", "fide", "--period", "202601"]
    assert main([*argv, "--format", "fide-txt", "--output", str(out)]) == 0
    text = out.read_text()
    header = text.splitlines()[0]
    assert header.startswith("ID Number      Name")
    # period 202601 is the list of 1 February 2026 (docs/lists.md "Which month a list is")
    assert header[113:118] == "FEB26" and header[132:136] == "Flag"
    got = read_fixed_width(text)
    want = store_list(fide_store, 202601)
    assert sorted(got["ID Number"]) == sorted(want)
    for row in got.iter_rows(named=True):
        w = want[row["ID Number"]]
        assert row["Name"] == w["name"] and row["Fed"] == w["federation"]
        # a women's title in WTit with Tit empty is listed in both (1004: ",WIM" -> WIM WIM)
        listed = w["title"] or (w["w_title"] if w["w_title"] == "WIM" else None)
        assert row["Sex"] == w["sex"] and row["Tit"] == listed
        assert (row["WTit"], row["OTit"], row["FOA"]) == (
            w["w_title"],
            w["o_title"],
            w["foa_title"],
        )
        assert int(row["Rating"]) == w["rating_after"]
        assert int(row["Gms"]) == w["games"]
        assert row["K"] == (None if w["k"] is None else str(int(w["k"])))
        assert int(row["B-day"]) == w["birth_year"]
    # Flags by hand: 1001 woman, played this month; 1002 and 1004 last played 12
    # months ago (inactive); 1004 is a woman.
    flags = dict(zip(got["ID Number"], got["Flag"]))
    assert flags == {"1001": "w", "1002": "i", "1003": None, "1004": "wi"}


def test_fide_xml_round_trip_with_xml_etree(fide_store, tmp_path):
    out = tmp_path / "list.xml"
    argv = ["list", "--store", str(fide_store.root), "--system", "fide", "--period", "202601"]
    assert main([*argv, "--format", "fide-xml", "--output", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == "playerslist"
    want = store_list(fide_store, 202601)
    players = root.findall("player")
    assert len(players) == len(want)
    for p in players:
        assert [c.tag for c in p] == [
            "fideid", "name", "country", "sex", "title", "w_title", "o_title",
            "foa_title", "rating", "games", "k", "birthday", "flag",
        ]  # fmt: skip
        w = want[p.findtext("fideid")]
        assert p.findtext("name") == w["name"] and p.findtext("country") == w["federation"]
        assert int(p.findtext("rating")) == w["rating_after"]
        assert int(p.findtext("games")) == w["games"]
        assert int(p.findtext("birthday")) == w["birth_year"]
        assert (p.findtext("w_title") or None) == w["w_title"]


def test_january_list_values_by_hand(fide_store):
    frame, _ = list_frame(fide_store, "fide", "standard", 202501)
    rows = {r["player_id"]: r for r in frame.iter_rows(named=True)}
    # Table 8.1.2, K × ΣΔR rounded half away from zero once (docs/rules.md):
    # 1001 (2650, peak ≥ 2400: K 10) beats 1002 (2400): D = 250 → PD 0.81;
    #   10 × (1 − 0.81) = 1.9 → +2 → 2652.
    # 1002 (K 10): loss vs 1001, D = −250 → PD 0.19: −0.19; draw vs 1003 (2100),
    #   D = 300 → PD 0.85: 0.5 − 0.85 = −0.35; 10 × (−0.54) = −5.4 → −5 → 2395.
    # 1003 (K 20): draw vs 1002, PD 0.15: +0.35; win vs 1004 (2000), D = 100 → PD 0.64:
    #   +0.36; 20 × 0.71 = 14.2 → +14 → 2114.
    # 1004 (K 20): loss vs 1003, PD 0.36: −0.36; 20 × (−0.36) = −7.2 → −7 → 1993.
    assert [rows[p]["rating"] for p in ("1001", "1002", "1003", "1004")] == [
        2652, 2395, 2114, 1993
    ]  # fmt: skip
    assert rows["1001"]["k"] == 10 and rows["1001"]["flag"] == "w"
    assert frame["rating"].dtype == pl.Int64  # never 2652.0 for FIDE


def test_csv_and_json_write_integer_ratings_for_integer_systems(fide_store, tmp_path, capsys):
    argv = ["list", "--store", str(fide_store.root), "--system", "fide", "--period", "202501"]
    code, out, _ = run([*argv, "--format", "csv"], capsys)
    assert code == 0 and ",2652," in out and ".0," not in out
    code, out, _ = run([*argv, "--format", "json"], capsys)
    assert code == 0 and '"rating":2652' in out
    parquet = tmp_path / "l.parquet"
    assert main([*argv, "--format", "parquet", "--output", str(parquet)]) == 0
    assert pq.read_table(parquet).schema.field("rating").type == pa.int64()


def test_integer_ratings_declared_per_system():
    integer = {n for n in system_names() if get_system(n).integer_ratings}
    assert integer == {"fide", "uscf", "ecf", "harkness", "ingo"}
    # a system that needs published ratings cannot seed a backtest from nothing either
    for n in system_names():
        if get_system(n).needs_published_ratings:
            assert get_system(n).needs_initial_ratings


def test_float_systems_list_one_decimal(tmp_path, capsys):
    gfile = write_csv(
        tmp_path / "g.csv", "date,white_id,black_id,score", ["2025-01-05,A,B,1", "2025-01-06,B,C,1"]
    )
    store = Store(tmp_path / "s")
    ingest_files(store, [gfile])
    assert main(["rate", "--no-flow", "--system", "glicko2", "--store", str(store.root)]) == 0
    frame, _ = list_frame(store, "glicko2", "standard", None)
    assert frame["rating"].dtype == pl.Float64
    assert all(round(r, 1) == r for r in frame["rating"])


# -- nothing empty published as success -------------------------------------------------
@pytest.fixture
def unrated_store(tmp_path) -> Store:
    """Games only: no players file, so no published rating."""
    rows = [f"2025-0{m}-0{d},P{d},P{d + 1},1" for m in (1, 2) for d in range(1, 8)]
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,score", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile])
    return store


@pytest.mark.parametrize("system", ["fide", "harkness", "ingo"])
def test_systems_needing_published_ratings_refuse_a_store_without_them(
    unrated_store, system, capsys
):
    code, _, err = run(
        ["rate", "--no-flow", "--system", system, "--store", str(unrated_store.root)], capsys
    )
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("arpad: error: ")
    assert "needs published starting ratings" in err and "--players" in err
    assert not list(unrated_store.ratings_dir.rglob("*.parquet"))  # nothing rated


def test_reconstruct_skips_them_and_says_which(unrated_store, capsys):
    argv = ["reconstruct", "--no-flow", "--store", str(unrated_store.root)]
    code, out, _ = run([*argv, "--systems", "elo,fide,harkness"], capsys)
    assert code == 0
    assert "fide/standard: skipped: fide needs published starting ratings" in out
    assert "harkness/standard: skipped: harkness needs published" in out
    assert "elo/standard: rated 2 periods" in out
    assert unrated_store.rating_periods("elo", "standard") == [202501, 202502]
    assert unrated_store.rating_periods("fide", "standard") == []
    code, _, err = run([*argv, "--systems", "fide,ingo"], capsys)
    assert code == 2 and "nothing to reconstruct: fide, ingo need" in err


def test_list_of_a_period_without_a_list_is_refused(fide_store, capsys):
    argv = ["list", "--store", str(fide_store.root), "--system", "fide"]
    code, _, err = run([*argv, "--period", "999"], capsys)
    assert code == 2
    assert err == "arpad: error: no fide/standard list for period 999 (rated periods: " \
        "202501..202601, 2 in all)\n"  # fmt: skip
    # a month before the first list (a month with no games after it has the latest list
    # carried forward: docs/lists.md "A month without games", tests/test_lists_r14.py)
    code, _, err = run([*argv, "--period", "202412"], capsys)
    assert code == 2 and "no fide/standard list for period 202412" in err


def test_list_without_a_rated_player_is_refused(unrated_store, capsys):
    # --set initial_rating cannot help FIDE; force a run past the plan check to get a
    # partition of unrated rows only, as an older arpad would have written.
    from arpad.pipeline.engine import rate

    rate(unrated_store, "fide")
    with pytest.raises(EmptyListError, match="has no rated player"):
        list_frame(unrated_store, "fide", "standard", None)
    code, _, err = run(["list", "--store", str(unrated_store.root), "--system", "fide"], capsys)
    assert code == 2 and "has no rated player" in err and "--players" in err


def test_recalculate_fails_instead_of_publishing_an_empty_list(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    rows = [f"2025-01-0{d},P{d},P{d + 1},1" for d in range(1, 8)]
    write_csv(inbox / "games.csv", "date,white_id,black_id,score", rows)
    request = jobs.RecalculateRequest(str(tmp_path / "store"), str(inbox), ["fide"])
    with pytest.raises(ValueError, match="needs published starting ratings"):
        jobs.recalculate(request)
    assert not (tmp_path / "store" / "exports").exists() or not list(
        (tmp_path / "store" / "exports").rglob("*.csv")
    )


def test_publish_refuses_an_empty_list(unrated_store):
    from arpad.pipeline.engine import rate

    rate(unrated_store, "fide")
    from arpad.pipeline import catalog

    catalog.refresh(unrated_store)
    with pytest.raises(EmptyListError):
        monthly.publish(unrated_store, "fide", "standard")


# -- titles -----------------------------------------------------------------------------
def test_old_players_table_without_the_new_title_columns_is_readable(fide_store):
    path = fide_store.players_path
    old = pq.read_table(path).drop_columns(["w_title", "o_title", "foa_title"])
    pq.write_table(old, path)
    players = fide_store.read_players()
    assert players.column("w_title").null_count == players.num_rows
    frame, _ = list_frame(fide_store, "fide", "standard", 202601)
    assert frame["w_title"].null_count() == frame.height


def test_trf_womens_title_is_w_title(tmp_path):
    from arpad.pipeline.readers import read_any

    a = "001    1 m    Aa, Anna                          2200 GER      100001 1990/01/01  1.0    1     2 w 1"
    b = "001    2 m    Bb, Bert                          2100 GER      100002 1990/01/01  0.0    2     1 b 0"
    a = a[:9] + "wwg " + a[13:]  # sex w (col 10), title wg (cols 11-13)
    trf = tmp_path / "t.trf"
    trf.write_text("012 Test\n042 2024/03/01\n" + a + "\n" + b + "\n")
    raw = read_any(Path(trf))
    rows = {r["player_id"]: r for r in raw.players.iter_rows(named=True)}
    # the TRF's one title is her WTit; a list shows it in both (tests/test_titles_r11.py)
    assert (rows["100001"]["title"], rows["100001"]["w_title"]) == (None, "WGM")
    assert rows["100001"]["sex"] == "F"
    assert rows["100002"]["w_title"] is None


# -- the card a player can read -----------------------------------------------------------
def test_card_shows_names_results_contributions_and_aligns_unrated_opponents(tmp_path, capsys):
    pfile = write_csv(
        tmp_path / "players.csv",
        "player_id,name,rating,rated_games",
        ['1002,"Beta, Bob",2400,100', '1003,"Gamma, Carl",2100,100', '9,"Newcomer, Nina",,'],
    )
    game_id = "trf:9. Karl-Marx-Stadt Open 1985 round 7 board 12"
    rows = [
        f'2025-01-06,1002,1003,0.5,E1,"{game_id}"',
        "2025-01-07,9,1002,0,E2,g2",  # 9 is unrated: not rated for 1002
    ]
    gfile = write_csv(tmp_path / "g.csv", "date,white_id,black_id,score,event_id,game_id", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    capsys.readouterr()
    code, out, _ = run(["card", "1002", "--period", "202501", "--store", str(store.root)], capsys)
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("period"))
    rated = next(line for line in lines if "Gamma, Carl" in line)
    unrated = next(line for line in lines if "Newcomer, Nina" in line)
    # the full game reference, not cut
    assert rated.endswith(game_id)
    # by hand: 1002 (2400, K 10) draws 1003 (2100): D = +300 → PD 0.85 (table 8.1.2),
    # ΔR = 0.5 − 0.85 = −0.35, K × ΔR = −3.50; the game vs the unrated 9 does not count.
    assert " W " in rated and " ½ " in rated and "-0.35" in rated and "-3.50" in rated
    assert "unrated" in unrated and " B " in unrated and " 1 " in unrated
    # aligned: the result and event columns start at the same place on every row
    for column in ("res", "event"):
        at = header.index(column)
        assert rated[at - 1] == " " and unrated[at - 1] == " "
    assert rated.index("E1") == unrated.index("E2") == header.index("event")
    assert rated.index(" ½ ") == unrated.index(" 1 ")
    assert "rounded half away from zero = -4" in out  # 10 × (−0.35) = −3.5 → −4


def test_a_rate_into_no_rating_row_is_refused():
    from arpad.pipeline.engine import RateSummary

    empty = RateSummary("elo", "standard", periods=[202501, 202502], rows_written=0)
    with pytest.raises(ValueError, match=r"rated 2 periods into 0 rating rows .*--players"):
        jobs.check_rows_written(empty)
    jobs.check_rows_written(RateSummary("elo", "standard"))  # nothing to rate: no error
    jobs.check_rows_written(RateSummary("elo", "standard", periods=[1], rows_written=3))


def test_flag_expression_agrees_with_the_rule():
    from arpad.pipeline.lists import flag

    assert [flag("F", "inactive"), flag("f", "rated"), flag("M", "inactive"), flag(None, "rated")] == [
        "wi", "w", "i", None
    ]  # fmt: skip


def test_card_round_from_trf_game_ids():
    from arpad.pipeline.fide_card import _round

    assert _round("trf:Open :r2: Cup|2024-03-01:r7:3-12") == "7" and _round("g2") == "-"
