"""Round 10 (analyst): the tournament tools read a players file per pool, as
``arpad.rate`` and a store do (docs/observations.md "Undated ratings and pools",
docs/legacy-systems.md "Performance ratings"). ``arpad performance rapid.csv --players
fidecomb.csv`` averaged the opponents' *standard* ratings (SRtng) in rapid games: Rc of
1002 was 2067.5 = (2285 + 1850) / 2, where the rapid ratings (RRtng) are 2200 and none.
Now each game reads its opponent's rating of the game's pool (a player without one is
unrated there), in ``performance``, ``norm`` and ``category``, and the players file's
reader notes (';', the columns not read) are printed as ingest prints them.

Numbers by hand, FIDE's table (docs/rules.md; Title Regulations 1.4.7–1.4.9): Rc the
mean of the rated opponents, ``fide`` = Ra + dp(p) (Ra rounded .5 up, p a whole
percentage, dp(100 %) = +800, dp(75 %) = +193, dp(50 %) = 0, dp(0 %) = -800),
``linear`` = Rc + 800p - 400.
"""

from __future__ import annotations

import csv
import io
import math
import warnings

import pytest

import arpad
from arpad.pipeline.cli import main

# The analyst's FIDE combined list (1003 has no rapid rating), as the API's test has it
from tests.test_round10_api_seeds import FIDECOMB

RAPID = """\
date,white_id,black_id,result,pool
2025-11-05,1001,1002,0-1,rapid
2025-11-05,1002,1003,1-0,rapid
"""
MIXED = RAPID + "2025-11-06,1001,1003,1-0,standard\n2025-11-07,1002,1001,1/2-1/2,standard\n"
# the same ratings as rows with a pool column; 1003 has a standard row only
POOLS = """\
player_id,pool,rating
1001,standard,2285
1001,rapid,2200
1002,standard,2010
1002,rapid,2000
1003,standard,1850
"""
STDLIST = "ID Number;Name;Fed;SRtng;B-day\n1001;Kask;EST;2285;1985\n1002;Tamm;EST;2010;1990\n"
# the reader's notes on the combined file, as `arpad ingest` prints them
SEPARATOR = "fidecomb.csv: fields separated by ';' (from the header line)"
NOT_READ = "fidecomb.csv: columns not read: SGm, SK, RGm, Rk, BGm, BK, Flag"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (
        ("fidecomb.csv", FIDECOMB),
        ("rapid.csv", RAPID),
        ("games.csv", MIXED),
        ("pools.csv", POOLS),
        ("stdlist.csv", STDLIST),
    ):
        (tmp_path / name).write_text(text)
    return tmp_path


def performance(capsys, games: str, players: str) -> tuple[dict[str, dict], str]:
    argv = ["performance", games, "--players", players, "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    rows = {r["player_id"]: r for r in csv.DictReader(io.StringIO(out))}
    return rows, err


def numbers(row: dict) -> tuple:
    return (
        int(row["games"]),
        float(row["score"]),
        float(row["average_opponent"]),
        float(row["fide"]),
        float(row["linear"]),
    )


def test_rapid_games_read_the_rapid_ratings(files, capsys):
    rows, err = performance(capsys, "rapid.csv", "fidecomb.csv")
    # 1002 beat 1001 (RRtng 2200) and 1003 (no RRtng: unrated in rapid, the game left
    # out): 1 game, Rc 2200, p 100 %: 2200 + 800 = 3000, linear 2200 + 800 - 400 = 2600.
    # It was 2 games, Rc (2285 + 1850) / 2 = 2067.5, the standard ratings.
    assert numbers(rows["1002"]) == (1, 1.0, 2200.0, 3000.0, 2600.0)
    # 1001 and 1003 lost to 1002 (RRtng 2000, not SRtng 2010): 2000 - 800 = 1200
    assert numbers(rows["1001"]) == (1, 0.0, 2000.0, 1200.0, 1600.0)
    assert numbers(rows["1003"]) == (1, 0.0, 2000.0, 1200.0, 1600.0)
    # the players file's reader notes, each after its name (they were never shown)
    assert SEPARATOR in err.splitlines()
    assert any(line.startswith(NOT_READ) for line in err.splitlines())


def test_a_file_of_two_pools_reads_each_games_pool(files, capsys):
    rows, _ = performance(capsys, "games.csv", "fidecomb.csv")
    # 1001: lost to 1002 in rapid (2000), beat 1003 (SRtng 1850) and drew 1002 (SRtng
    # 2010) in standard: Rc (2000 + 1850 + 2010) / 3 = 1953.33, Ra 1953, p 50 %: 1953
    r = numbers(rows["1001"])
    assert r[:2] == (3, 1.5) and r[2] == pytest.approx(5860 / 3) and r[3] == 1953.0
    # 1002: beat 1001 in rapid (2200), beat 1003 in rapid (unrated: left out), drew 1001
    # in standard (2285): Rc 2242.5, Ra 2243, p 75 %: 2243 + 193 = 2436; linear
    # 2242.5 + 600 - 400 = 2442.5 (it was Rc 2140 from the standard ratings)
    assert numbers(rows["1002"]) == (2, 1.5, 2242.5, 2436.0, 2442.5)
    # 1003: lost to 1002 in rapid (2000) and to 1001 in standard (2285): Rc 2142.5,
    # Ra 2143 - 800 = 1343
    assert numbers(rows["1003"]) == (2, 0.0, 2142.5, 1343.0, 1742.5)


def test_a_pool_column_seeds_its_own_pool_only(files, capsys):
    rows, _ = performance(capsys, "rapid.csv", "pools.csv")
    # 1003 has a standard row only: unrated in rapid (it was 1850, Rc 2025 for 1002)
    assert numbers(rows["1002"]) == (1, 1.0, 2200.0, 3000.0, 2600.0)


def test_a_standard_list_rates_no_rapid_game(files, capsys):
    # SRtng only: no rapid rating at all, as a store reads it (all unrated in rapid)
    assert main(["performance", "rapid.csv", "--players", "stdlist.csv"]) == 0
    err = capsys.readouterr().err
    assert (
        "rapid.csv: no performance: none of its 2 games has an opponent with a rating "
        "(WhiteElo/BlackElo, or --players F's rating of the game's pool)"
    ) in err


def test_norm_reads_the_games_pool(files, capsys):
    argv = ["norm", "rapid.csv", "--player", "1002", "--title", "IM", "--players", "fidecomb.csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    # opponents 2200 (RRtng) and 1003 unrated (1400, raised to the IM floor 2050):
    # Ra (2200 + 2050) / 2 = 2125, Rp 2125 + 800 = 2925 (it was 2285 and 1850: Ra 2168)
    assert "opponents raised to the floor: #2 (unrated → 2050)" in out
    assert "Rp 2125 + dp(100 %) +800 = 2925" in out
    # the players file's notes as ingest prints them, not as "arpad: note: …"
    assert SEPARATOR in err.splitlines()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check = arpad.norm("rapid.csv", "1002", "IM", players="fidecomb.csv")
    assert check.opponents_given[0] == 2200.0 and math.isnan(check.opponents_given[1])
    assert (check.average, check.performance) == (2125, 2925)
    assert any(str(w.message).startswith(NOT_READ) for w in caught)
    # a standard game of the same file reads SRtng: 1003 lost to 1001 (2285) in
    # standard (the rapid game left out): Ra 2285, Rp 2285 - 800 = 1485
    check = arpad.norm("games.csv", "1003", "IM", players="fidecomb.csv")
    assert (check.opponents_given, check.average, check.performance) == ([2285.0], 2285, 1485)


def test_category_reads_the_games_pool(files, capsys):
    argv = ["category", "rapid.csv", "--players", "fidecomb.csv", "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    # RRtng 2200 and 2000, 1003 unrated in rapid: (2200 + 2000) / 2 = 2100 (it was the
    # three standard ratings, 2048.33)
    assert [(r["players"], r["rated_players"], float(r["average"])) for r in rows] == [
        ("3", "2", 2100.0)
    ]
    assert SEPARATOR in err.splitlines()
    with pytest.warns(UserWarning, match="fidecomb.csv: columns not read: SGm"):
        table = arpad.category("rapid.csv", players="fidecomb.csv")
    assert table.select("players", "rated_players", "average").rows() == [(3, 2, 2100.0)]
