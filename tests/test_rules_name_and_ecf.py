"""A rating officer's attack (2026-12-04): rules changed by ``--set`` kept the version's
name (``USCF 2017`` with ``n_star_formula=2004``: only ``rules_hash`` told), ``arpad
rate --system ecf`` started players with a rating and no grade ungraded without the
note ``arpad.rate`` warns with, and docs/legacy-systems.md gave an ``arpad sql`` query
of the ECF per-game reports that fails ("file system operations are disabled").
docs/rules.md "Changing a rule for one run", docs/legacy-systems.md "Legacy ECF grading".
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.engine import rules_hash
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import apply_overrides
from arpad.pipeline.systems.elo import EloRules
from arpad.pipeline.systems.uscf import USCF_2004, USCF_2017
from tests.conftest import REPO, write_csv

US_PLAYERS = ["B,Bonus,1700,30", "Q1,Opp1,1700,100", "Q2,Opp2,1700,100", "Q3,Opp3,1700,100"]
US_GAMES = [
    "2024-05-02,B,Q1,1-0,E1",
    "2024-05-03,Q2,B,0-1,E1",
    "2024-05-04,B,Q3,1-0,E1",
]
ECF_NOTE = (
    "players: ecf takes starting grades from the grade column and ignores rating: "
    "{n} player(s) with a rating and no grade start ungraded (convert a FIDE rating with "
    "arpad convert R --from fide --to ecf --date D, e.g. 2000 is grade 173.33 from "
    "2009-07 on, and give it as grade)"
)


def us_files(tmp_path: Path) -> tuple[Path, Path]:
    players = write_csv(tmp_path / "p.csv", "player_id,name,rating,rated_games", US_PLAYERS)
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,event_id", US_GAMES)
    return players, games


def stored_rules(store: str, system: str) -> set[tuple[str, str]]:
    st = Store(store)
    out = set()
    for period in st.rating_periods(system, "standard"):
        t = pq.read_table(st.rating_partition(system, "standard", period) / "part-0.parquet")
        out |= set(zip(t.column("rules").to_pylist(), t.column("rules_hash").to_pylist()))
    return out


# -- (1) the name of rules changed by --set ---------------------------------------------------


def test_set_names_the_rules_in_the_summary_the_store_and_the_checkpoint(tmp_path, capsys):
    players, games = us_files(tmp_path)
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "uscf", "--store", s, "--set", "n_star_formula=2004"]) == 0
    out = capsys.readouterr().out
    name = "USCF 2017 + n_star_formula=2004"  # May 2024: USCF 2017 in force
    # 3 games, players B, Q1, Q2, Q3 (4 rows)
    assert f"rated 1 period (202405..202405), 3 games, 4 rating rows; rules: {name}\n" in out
    expected = dataclasses.replace(USCF_2017, n_star_formula="2004", name=name)
    assert stored_rules(s, "uscf") == {(name, rules_hash(expected))}
    meta = json.loads(
        (Store(s).state_partition("uscf", "standard", 202405) / "meta.json").read_text()
    )
    assert meta["rules"] == name
    # the same --set again: an incremental run finds nothing stale and keeps the name
    assert main(["rate", "--system", "uscf", "--store", s, "--set", "n_star_formula=2004"]) == 0
    assert stored_rules(s, "uscf") == {(name, rules_hash(expected))}
    # without --set the version's own name and hash come back
    assert main(["rate", "--system", "uscf", "--store", s]) == 0
    assert stored_rules(s, "uscf") == {("USCF 2017", rules_hash(USCF_2017))}


def test_the_name_notes_only_changed_fields_sorted_by_key():
    # k_numerator 800 is the version's own value (800.0): not noted; bonus=off -> false
    got = apply_overrides(
        USCF_2017, {"n_star_formula": "2004", "bonus": "off", "k_numerator": "800"}
    )
    assert got.name == "USCF 2017 + bonus=false + n_star_formula=2004"
    assert (got.bonus, got.n_star_formula, got.k_numerator) == (False, "2004", 800.0)
    # USCF 2004 has formula 2004 already: nothing differs, name and hash unchanged
    same = apply_overrides(USCF_2004, {"n_star_formula": "2004"})
    assert same.name == "USCF 2004" and rules_hash(same) == rules_hash(USCF_2004)
    # overridden twice: the earlier notes stay, a new key joins in key order; floats as
    # --set takes them back (900.0 -> 900, 12.5 -> 12.5), None as none
    again = apply_overrides(got, {"bonus_b": "12.5", "k_numerator": "900", "special_max": "none"})
    assert again.name == (
        "USCF 2017 + bonus=false + bonus_b=12.5 + k_numerator=900 + n_star_formula=2004"
    )  # special_max is None in USCF 2017 already
    assert apply_overrides(got, {"bonus": "true"}).name == (
        "USCF 2017 + bonus=true + n_star_formula=2004"
    )
    # --set name=… names the rules itself
    assert apply_overrides(USCF_2017, {"name": "club", "bonus": "off"}).name == "club"
    # a name with its own " + " is not taken for notes
    odd = dataclasses.replace(USCF_2017, name="A + B")
    assert apply_overrides(odd, {"bonus": "off"}).name == "A + B + bonus=false"
    # rules without a name field: the class name and the fields unlike its defaults
    elo = get_system("elo")
    assert elo.rules_name(EloRules()) == "EloRules"
    rules = apply_overrides(EloRules(), {"k": "32", "scale": "400"})
    assert elo.rules_name(rules) == "EloRules + k=32"


def test_api_keywords_name_the_rules_and_a_rules_file_is_named_with_its_file(tmp_path, capsys):
    players, games = us_files(tmp_path)
    result = arpad.rate(str(games), system="uscf", players=str(players), n_star_formula="2004")
    assert set(result["rules"].to_list()) == {"USCF 2017 + n_star_formula=2004"}
    rules_file = tmp_path / "club.json"
    rules_file.write_text('{"name": "Club 2024", "n_star_formula": "2004"}')
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    assert main(["rate", "--system", "uscf", "--store", s, "--rules", str(rules_file)]) == 0
    # its name, the file, the fields unlike the system's defaults (round 11: name kept before)
    assert capsys.readouterr().out.endswith("rules: Club 2024 (club.json) + n_star_formula=2004\n")
    args = ["rate", "--system", "uscf", "--store", s, "--rules", str(rules_file)]
    assert main([*args, "--set", "bonus=off"]) == 0
    assert capsys.readouterr().out.endswith(
        "rules: Club 2024 (club.json) + bonus=false + n_star_formula=2004\n"
    )


def test_card_finds_the_version_of_a_set_run(tmp_path):
    from arpad.pipeline.fide_card import _run_rules

    players = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,rated_games",
        ["a,Anna,2100,50", "b,Boris,2000,50"],
    )
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", ["2025-01-10,a,b,1-0"])
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    rate = ["rate", "--system", "fide", "--store", s, "--rules", "2015", "--set", "k_mid=15"]
    assert main(rate) == 0
    assert stored_rules(s, "fide").pop()[0] == "FIDE 2014-07 + k_mid=15"
    # the version by the name before " + " (not the version in force, FIDE 2024-03)
    assert _run_rules(Store(s), "standard", 202501).name == "FIDE 2014-07"


# -- (2) ECF: a rating without a grade, said by the command too ------------------------------


def test_ecf_rate_notes_players_with_a_rating_and_no_grade(tmp_path, capsys):
    # H and O3: a rating, no grade (counted); O1: both (its grade is used); O2: grade only
    players = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,grade,birth_year",
        ["H,Harry,1600,,1980", "O1,Opp1,1800,150,1980", "O2,Opp2,,140,1980", "O3,O3,1700,,1980"],
    )
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result",
        ["2024-05-02,H,O1,1-0", "2024-05-03,O2,H,0-1", "2024-05-04,O3,O1,1/2-1/2"],
    )
    note = ECF_NOTE.format(n=2)
    with pytest.warns(UserWarning) as caught:
        arpad.rate(str(games), system="ecf", players=str(players))
    assert [str(w.message) for w in caught] == [note]
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "ecf", "--store", s]) == 0
    assert f"arpad: note: {note}\n" in capsys.readouterr().err
    assert main(["reconstruct", "--systems", "ecf", "--store", s]) == 0
    assert capsys.readouterr().err.count(f"arpad: note: {note}\n") == 1
    # a system without notes never reads the players table (the CLI reads it only if asked)
    assert get_system("elo").players_notes(lambda: 1 / 0) == []
    # graded players only: no note
    graded = write_csv(
        tmp_path / "p2.csv",
        "player_id,name,grade",
        ["H,Harry,120", "O1,Opp1,150", "O2,Opp2,140", "O3,O3,130"],
    )
    s2 = str(tmp_path / "S2")
    assert main(["ingest", str(games), "--players", str(graded), "--store", s2]) == 0
    assert main(["rate", "--system", "ecf", "--store", s2]) == 0
    assert "ecf takes starting grades" not in capsys.readouterr().err


# -- (3) the documented query of the ECF per-game reports ------------------------------------


def doc_lines() -> str:
    return (REPO / "docs" / "legacy-systems.md").read_text(encoding="utf-8")


def test_the_documented_ecf_game_report_query_runs(tmp_path):
    # J (junior, grade 100: re-estimated) and N (no grade) are estimated; A1..A3 adults
    players = write_csv(
        tmp_path / "players.csv",
        "player_id,name,grade,birth_year",
        [
            "J,Junior,100,1995",
            "N,Newbie,,1970",
            "A1,A1,150,1970",
            "A2,A2,160,1970",
            "A3,A3,170,1970",
        ],
    )
    games = write_csv(
        tmp_path / "games.csv",
        "date,white_id,black_id,result",
        [
            "2009-09-10,J,A1,1-0",
            "2009-09-11,A2,J,0-1",
            "2009-09-12,J,A3,1/2-1/2",
            "2009-10-10,N,A1,0-1",
            "2009-10-11,A2,N,1-0",
        ],
    )
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    assert main(["rate", "--system", "ecf", "--store", s]) == 0
    text = doc_lines()
    [command] = re.findall(r"^\s*(arpad sql .*cycle=S/ratings/system=ecf.*)$", text, re.M)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    table = [
        [c.strip() for c in re.split("[│┆]", line)[1:-1]]
        for line in done.stdout.splitlines()
        if "┆" in line
    ]
    head, rows = table[0], [r[:7] for r in table[1:]]
    assert head[:7] == [
        "player_id", "opponent_id", "game_period", "score", "opponent_grade", "points",
        "estimated",
    ]  # fmt: skip
    # Estimates (no 40-point rule, no padding): J = (150+50 + 160+50 + 170+0)/3 = 193.333;
    # N = (150−50 + 160−50)/2 = 105. The adults against them, 40-point rule on the
    # estimate: A1 vs J 193.33 → 150+40 = 190, lost: 140; A1 vs N 105 → 150−40 = 110,
    # won: 160; A2 vs J 193.33 (within 40), lost: 143.33; A2 vs N 105 → 120, won: 170;
    # A3 vs J 193.33, drawn: 193.33.
    expected = [
        ("A1", "J", 200909, 0.0, 190.0, 140.0, "false"),
        ("A1", "N", 200910, 1.0, 110.0, 160.0, "false"),
        ("A2", "J", 200909, 0.0, 580 / 3, 430 / 3, "false"),
        ("A2", "N", 200910, 1.0, 120.0, 170.0, "false"),
        ("A3", "J", 200909, 0.5, 580 / 3, 580 / 3, "false"),
        ("J", "A1", 200909, 1.0, 150.0, 200.0, "true"),
        ("J", "A2", 200909, 1.0, 160.0, 210.0, "true"),
        ("J", "A3", 200909, 0.5, 170.0, 170.0, "true"),
        ("N", "A1", 200910, 0.0, 150.0, 100.0, "true"),
        ("N", "A2", 200910, 0.0, 160.0, 110.0, "true"),
    ]
    got = [(p, o, int(gp), float(sc), float(og), float(pt), e) for p, o, gp, sc, og, pt, e in rows]
    assert [g[:4] + g[6:] for g in got] == [e[:4] + e[6:] for e in expected]
    for g, e in zip(got, expected):
        assert g[4:6] == pytest.approx(e[4:6], abs=1e-6)  # the table shows 6 decimals
    # the Python way the doc gives: every cycle at once, with its period
    import duckdb

    [sql] = re.findall(r'duckdb\.sql\("(.+?)"\)', text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        read = duckdb.sql(sql).fetchall()
    finally:
        os.chdir(cwd)
    assert len(read) == 10 and {r[-3:] for r in read} == {(201005, "standard", "ecf")}
