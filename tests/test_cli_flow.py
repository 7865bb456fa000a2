"""The CLI contract (rate, list, sql) and one run through real Prefect flows."""

from __future__ import annotations

import json

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import results, write_csv


def small_store(tmp_path):
    players = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,rated_games",
        ["a,Anna,2100,50", "b,Boris,2000,50", "c,Chen,1900,50", "d,Dana,1800,50"],
    )
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result",
        [
            "2025-01-10,a,b,1-0",
            "2025-01-11,c,d,1/2-1/2",
            "2025-02-03,b,c,0-1",
            "2025-02-04,d,a,1-0",
        ],
    )
    return players, games


def test_cli_ingest_rate_list_sql(tmp_path, capsys):
    players, games = small_store(tmp_path)
    s = str(tmp_path / "s")
    assert main(["ingest", str(games), "--players", str(players), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", s, "--no-flow"]) == 0
    out = capsys.readouterr().out
    assert "fide/standard: rated 2 periods (202501..202502), 4 games" in out
    assert main(["list", "--system", "fide", "--store", s, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # By hand, K 20 (table 8.1.2, rounding half away from zero):
    # 202501: a 2100 beats b 2000 (D 100, PD .64): a +7.2 → +7, b −7; c 1900 draws d 1800:
    #         c .5 − .64 → −2.8 → −3, d +3.
    # 202502: c 1897 beats b 1993 (D 96, PD(b) .63): b −12.6 → −13 = 1980, c +13 = 1910;
    #         d 1803 beats a 2107 (D 304, PD(a) .86): a −17.2 → −17 = 2090, d +17 = 1820.
    ratings = {r["player_id"]: r["rating"] for r in rows}
    assert ratings == {"a": 2090.0, "b": 1980.0, "c": 1910.0, "d": 1820.0}
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert (
        main(
            [
                "sql",
                "SELECT player_id, change FROM ratings WHERE period = ? ORDER BY 1",
                "--param",
                "202501",
                "--store",
                s,
                "--format",
                "csv",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "player_id,change",
        "a,7.0",
        "b,-7.0",
        "c,-3.0",
        "d,3.0",
    ]


@pytest.mark.parametrize(
    "statement",
    [
        "DROP VIEW games",
        "INSERT INTO x VALUES (1)",
        "COPY (SELECT 1) TO 'x.csv'",
        "ATTACH 'x.db'",
        "SELECT 1; SELECT 2",
    ],
)
def test_sql_refuses_anything_but_reads(tmp_path, capsys, statement):
    players, games = small_store(tmp_path)
    s = str(tmp_path / "s")
    main(["ingest", str(games), "--players", str(players), "--store", s, "--no-flow"])
    capsys.readouterr()
    assert main(["sql", statement, "--store", s]) == 2
    assert "arpad" in capsys.readouterr().err


def test_rate_unknown_rule_field_is_bad_input(tmp_path, capsys):
    players, games = small_store(tmp_path)
    s = str(tmp_path / "s")
    main(["ingest", str(games), "--players", str(players), "--store", s, "--no-flow"])
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow", "--set", "kay=3"]) == 2
    assert "unknown rule field 'kay'" in capsys.readouterr().err


@pytest.mark.prefect
def test_flows_through_prefect_equal_plain_run(tmp_path, prefect_harness):
    from arpad.flows.ingest import ingest_flow
    from arpad.flows.rate import rate_flow

    players, games = small_store(tmp_path)
    flow_store = str(tmp_path / "flow")
    report = ingest_flow(flow_store, [str(games)], players=[str(players)])
    assert report.accepted == 4 + 4 and report.quarantined == 0
    summary = rate_flow(flow_store, "fide")
    assert summary.periods == [202501, 202502]
    plain = str(tmp_path / "plain")
    main(["ingest", str(games), "--players", str(players), "--store", plain, "--no-flow"])
    main(["rate", "--system", "fide", "--store", plain, "--no-flow"])
    for period in (202501, 202502):
        a = Store(flow_store).read_ratings("fide", "standard", period)
        b = Store(plain).read_ratings("fide", "standard", period)
        assert results(a).equals(results(b))
