"""FIDE's junior K of the 2014-07 rules: "K = 40 for all players until their 18th
birthday, as long as their rating remains under 2300" (FIDE Rating Regulations
effective 1 July 2014, §8.56; docs/fide-history.md "Junior age"). With a birth date
the birthday decides: a player born 2000-12-31 is 17 in June 2018 and has K 40 (the
expert's round 6: arpad gave K 20, reading the birth year only). Without one, the
year rule stays (year − birth year ≤ 17)."""

from __future__ import annotations

import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

PLAYERS = """player_id,name,rating,rated_games,peak_rating,birth_date,birth_year
J,J,2100,100,2100,2000-12-31,
K,K,2100,100,2100,2001-01-01,
B,B,2100,100,2100,2000-06-01,
Y,Y,2100,100,2100,,2000
O,O,2100,100,2100,1980-01-01,
"""


def rate(tmp_path, date: str):
    players = tmp_path / "p.csv"
    players.write_text(PLAYERS)
    games = tmp_path / "g.csv"
    rows = [f"{p.lower()}1,{date},{p},O,1-0,E{p}" for p in "JKBY"]
    games.write_text("\n".join(["game_id,date,white_id,black_id,result,event_id", *rows]) + "\n")
    store = tmp_path / "S"
    assert main(["ingest", str(games), "--players", str(players), "--store", str(store)]) == 0
    assert main(["rate", "--system", "fide", "--store", str(store)]) == 0
    files = [str(f) for f in (store / "ratings").rglob("*.parquet")]
    t = pq.read_table(files, columns=["player_id", "k", "rating_after"])
    t = t.filter(pc.field("player_id") != "O")
    return {r["player_id"]: (r["k"], r["rating_after"]) for r in t.to_pylist()}


def test_the_birthday_decides_under_the_2014_rules(tmp_path):
    # June 2018, rules FIDE 2022-01 (2014-07's K rules): each junior beats O (2100):
    # D 0, PD 0.50, ΔR = K × 0.5: K 40 → +20, K 20 → +10
    got = rate(tmp_path, "2018-06-03")
    assert got["J"] == (40, 2120)  # 18 on 2018-12-31: junior all of June
    assert got["K"] == (40, 2120)
    assert got["B"] == (20, 2110)  # 18 on 2018-06-01, the period's first day: not junior
    assert got["Y"] == (20, 2110)  # birth year only: 2018 − 2000 = 18 > 17


def test_the_2024_rule_is_the_year_of_the_18th_birthday(tmp_path):
    # June 2025 (rules 2024-03): "until the end of the year of their 18th birthday":
    # born 2007 is junior all of 2025, so the table is by year again (2007 + 18 = 2025)
    got = rate(tmp_path, "2025-06-03")
    assert got["J"] == (20, 2110)  # born 2000: 25
    assert got["Y"] == (20, 2110)


def test_the_card_says_why(tmp_path, capsys):
    rate(tmp_path, "2018-06-03")
    capsys.readouterr()
    assert main(["card", "J", "--period", "2018-06", "--store", str(tmp_path / "S")]) == 0
    out = capsys.readouterr().out
    assert "junior: born 2000-12-31, the period begins before the 18th birthday" in out
    assert Store(tmp_path / "S").read_players().num_rows == 5
