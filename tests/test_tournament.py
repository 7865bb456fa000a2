"""Title-norm composition, event categories from a store, Ingo rating lists (issue #4 leftovers).

Every figure below is computed by hand from docs/legacy-systems.md (Title Regulations from 1 Jan 2024,
S2): §7.2 table (Ra, Rp, floor), §7.2 bullets "minimum 9 games … > 13 rounds count as 13",
"at most one opponent (the lowest-rated) is raised to the floor; other unrated opponents
count as 1400", and "Composition: ≥ 50 % titled (CM/WCM not counted); ≥ 1/3 holding the
title of the norm (or higher); ≥ 2 federations other than the player's; ≤ 3/5 from the
player's federation and ≤ 2/3 from any one federation". §7.1 for categories, §4.2 for Ingo.
"""

from __future__ import annotations

import pytest

from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system, system_names
from arpad.pipeline.tournament import norm_check, store_event_categories
from tests.conftest import write_csv

# A field that meets every composition condition for an IM norm by a player from ENG:
# 6 of 9 titled (≥ 4.5), 4 GM/IM (≥ 3), 5 of 9 from ENG (≤ 5.4), GER and FRA (2 others),
# at most 5 from one federation (≤ 6).
GOOD_TITLES = ["GM", "GM", "IM", "IM", "FM", "FM", None, None, None]
GOOD_FEDS = ["ENG"] * 5 + ["GER"] * 2 + ["FRA"] * 2


def cond(check, name):
    return next((ok, detail) for n, ok, detail in check.conditions if n == name)


def im_check(titles=GOOD_TITLES, feds=GOOD_FEDS, federation="ENG", ratings=None, score=5):
    return norm_check(
        ratings or [2407] * len(titles),
        score,
        "IM",
        opponent_titles=titles,
        opponent_federations=feds,
        federation=federation,
    )


# -- the existing IM example (§7.2) with and without the composition data -----------------


def test_im_example_with_composition_is_achieved():
    """§7.2 example: IM norm, 9 rounds, 5 points → 56 % → dp 43; Ra 2407 → Rp 2450."""
    check = im_check()
    assert (check.average, check.dp, check.performance) == (2407, 43, 2450)
    assert check.achieved and check.verdict == "achieved" and check.failed == []
    assert check.counts_as == 9
    assert cond(check, "titled") == (
        True,
        "6 of 9 opponents titled, CM/WCM not counted (minimum 4.5)",
    )
    assert cond(check, "norm_titles")[0] is True and "4 of 9" in cond(check, "norm_titles")[1]


def test_rating_conditions_alone_leave_the_norm_undecided():
    check = norm_check([2407] * 9, 5, "IM")
    assert check.failed == [] and not check.achieved and check.verdict == "undecided"
    assert check.unchecked == [
        "titled",
        "norm_titles",
        "federations",
        "own_federation",
        "one_federation",
    ]
    short = norm_check([2406] * 9, 5, "IM")  # Ra 2406 → Rp 2449 < 2450
    assert short.failed == ["performance"] and short.verdict == "not achieved"


# -- ≥ 50 % titled, CM/WCM not counted ---------------------------------------------------


def test_titled_half_boundary_and_cm_wcm_not_counted():
    # 9 opponents: 4 titled < 4.5 → fails (two CMs and a WCM do not count)
    titles = ["GM", "IM", "IM", "FM", "CM", "CM", "WCM", None, None]
    check = im_check(titles)
    assert cond(check, "titled") == (
        False,
        "4 of 9 opponents titled, CM/WCM not counted (minimum 4.5)",
    )
    assert check.failed == ["titled"]
    # 10 opponents, exactly 5 titled = 50 % → met
    titles10 = ["GM", "GM", "IM", "WFM", "WIM", None, None, None, None, None]
    check10 = im_check(titles10, ["ENG"] * 6 + ["GER"] * 2 + ["FRA"] * 2, score=6)
    assert cond(check10, "titled")[0] is True
    assert "5 of 10" in cond(check10, "titled")[1]


# -- ≥ 1/3 with the norm's title or higher ---------------------------------------------


def test_gm_norm_needs_a_third_grandmasters():
    ratings = [2600] * 9  # 5½/9 → 61 % → dp 80 → Rp 2680: rating conditions met
    ok = norm_check(ratings, 5.5, "GM", opponent_titles=["GM"] * 3 + ["IM"] * 6)
    assert cond(ok, "norm_titles") == (True, "3 of 9 opponents GM (minimum 3.00)")
    few = norm_check(ratings, 5.5, "GM", opponent_titles=["GM"] * 2 + ["IM"] * 7)
    assert cond(few, "norm_titles") == (False, "2 of 9 opponents GM (minimum 3.00)")
    assert cond(few, "titled")[0] is True and few.failed == ["norm_titles"]


def test_womens_norms_count_the_named_titles_only():
    # WIM norm: WIM, WGM, IM, GM count; FM does not (docs/legacy-systems.md)
    ratings = [2100] * 9
    wim = norm_check(
        ratings, 6, "WIM", opponent_titles=["WGM", "WIM", "IM"] + ["FM"] * 6
    )  # 3 of 9 ≥ 3
    assert cond(wim, "norm_titles") == (True, "3 of 9 opponents GM/IM/WGM/WIM (minimum 3.00)")
    fm = norm_check(ratings, 6, "WIM", opponent_titles=["WGM", "WIM"] + ["FM"] * 7)
    assert cond(fm, "norm_titles")[0] is False and cond(fm, "titled")[0] is True
    # WGM norm: a WIM does not count; TRF codes 'wg' and 'm' are WGM and IM
    wgm = norm_check([2250] * 9, 6, "WGM", opponent_titles=["wg", "m"] + ["WIM"] * 7)
    assert cond(wgm, "norm_titles") == (False, "2 of 9 opponents GM/IM/WGM (minimum 3.00)")


# -- federations ------------------------------------------------------------------------


def test_two_other_federations():
    check = im_check(feds=["ENG"] * 5 + ["GER"] * 4)
    assert cond(check, "federations") == (
        False,
        "1 federations other than ENG (GER; minimum 2)",
    )
    assert check.failed == ["federations"]
    # FIDE-flag players are no federation: they do not make a second one
    fid = im_check(feds=["ENG"] * 5 + ["GER"] * 3 + ["FID"])
    assert cond(fid, "federations")[0] is False
    assert "1 without a federation" in cond(fid, "federations")[1]


def test_at_most_three_fifths_from_own_federation():
    check = im_check(feds=["ENG"] * 6 + ["GER"] * 2 + ["FRA"])  # 6 > 5.4
    assert cond(check, "own_federation") == (False, "6 of 9 opponents from ENG (maximum 5.40)")
    assert check.failed == ["own_federation"]
    # 10 opponents: 6 = 3/5 × 10 exactly → met
    titles10 = [*GOOD_TITLES, "GM"]
    ten = im_check(titles10, ["ENG"] * 6 + ["GER"] * 2 + ["FRA"] * 2, score=6)
    assert cond(ten, "own_federation") == (True, "6 of 10 opponents from ENG (maximum 6.00)")


def test_at_most_two_thirds_from_one_federation():
    check = im_check(feds=["ENG"] + ["GER"] * 7 + ["FRA"])  # 7 > 6
    assert cond(check, "one_federation") == (
        False,
        "7 of 9 opponents from GER, the most from one federation (maximum 6.00)",
    )
    assert check.failed == ["one_federation"]
    edge = im_check(feds=["ENG"] + ["GER"] * 6 + ["FRA"] * 2)  # 6 = 2/3 × 9 → met
    assert cond(edge, "one_federation")[0] is True and edge.achieved


def test_unknown_player_federation_leaves_those_conditions_unchecked():
    check = im_check(federation=None)
    assert check.unchecked == ["federations", "own_federation"]
    assert cond(check, "one_federation")[0] is True  # 5 ENG ≤ 6 still checked


# -- games, 13-game count, floor, unrated -----------------------------------------------


def test_nine_games_minimum_and_thirteen_game_count():
    eight = im_check(GOOD_TITLES[:8], GOOD_FEDS[:8], ratings=[2407] * 8, score=4.5)
    assert cond(eight, "games") == (False, "8 games (minimum 9)")
    # 15 games: evaluated on all 15 (8½/15 → 57 % → dp 50; Ra 2400 → 2450); counts as 13
    titles = ["GM"] * 5 + ["IM"] * 5 + [None] * 5
    feds = ["ENG"] * 9 + ["GER"] * 3 + ["FRA"] * 3
    long = im_check(titles, feds, ratings=[2400] * 15, score=8.5)
    assert (long.percent, long.dp, long.performance) == (57, 50, 2450)
    assert long.achieved and long.counts_as == 13
    assert cond(long, "games") == (True, "15 games (minimum 9); the norm counts as 13 games")


def test_floor_raises_only_the_lowest_opponent():
    # IM floor 2050: 1900 → 2050, the 2000 stays; Ra = (2050 + 2000 + 7 × 2500)/9
    # = 21550/9 = 2394.44 → 2394
    check = norm_check([2000, 1900] + [2500] * 7, 5, "IM")
    assert check.raised == [1] and check.opponents_used[:2] == [2000, 2050]
    assert check.average == 2394


def test_unrated_opponents_count_as_1400_and_one_is_raised():
    # GM: two unrated (1400 each): one raised to 2200, the other 1400;
    # Ra = (2200 + 1400 + 7 × 2600)/9 = 21800/9 = 2422.2 → 2422; 6½/9 = 72 % → dp 166
    check = norm_check([None, None] + [2600] * 7, 6.5, "GM")
    assert check.opponents_used[:2] == [2200, 1400] and check.average == 2422
    assert check.performance == 2422 + 166


# -- CLI: arpad norm ---------------------------------------------------------------------


def test_cli_norm_reports_the_failing_composition_condition(capsys):
    args = ["norm", "--title", "IM", "--opponents", ",".join(["2407"] * 9), "--score", "5"]
    args += ["--titles", "GM,GM,IM,IM,FM,FM,-,-,-", "--federation", "ENG"]
    args += ["--federations", ",".join(["ENG"] * 6 + ["GER"] * 2 + ["FRA"])]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "FAIL own_federation" in out and "6 of 9 opponents from ENG (maximum 5.40)" in out
    assert "not achieved (fails: own_federation)" in out
    assert main(args[:7]) == 0
    assert "undecided" in capsys.readouterr().out


def _pgn_game(white, wid, wtitle, black, bid, btitle, result):
    return (
        f'[Event "Open"]\n[Date "2024.05.01"]\n[White "{white}"]\n[Black "{black}"]\n'
        f'[Result "{result}"]\n[WhiteElo "2407"]\n[BlackElo "2407"]\n'
        f'[WhiteFideId "{wid}"]\n[BlackFideId "{bid}"]\n'
        f'[WhiteTitle "{wtitle}"]\n[BlackTitle "{btitle}"]\n\n1. e4 e5 {result}\n\n'
    )


def test_cli_norm_from_pgn_titles_and_players_file_federations(tmp_path, capsys):
    titles = ["GM", "GM", "IM", "IM", "FM", "FM", "", "", ""]
    pgn = "".join(
        _pgn_game("Pat", 100, "", f"Opp{i}", i + 1, titles[i], "1-0" if i < 5 else "0-1")
        for i in range(9)
    )
    games = tmp_path / "event.pgn"
    games.write_text(pgn)
    feds = ["ENG"] * 5 + ["GER"] * 2 + ["FRA"] * 2
    rows = ["100,Pat,ENG"] + [f"{i + 1},Opp{i},{feds[i]}" for i in range(9)]
    players = write_csv(tmp_path / "players.csv", "player_id,name,federation", rows)
    assert main(["norm", str(games), "--player", "100", "--title", "IM"]) == 0
    out = capsys.readouterr().out
    assert "6 of 9 opponents titled" in out  # from the PGN title tags
    assert "opponents' federations not known" in out and "undecided" in out
    argv = ["norm", str(games), "--player", "100", "--title", "IM", "--players", str(players)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "IM norm: achieved, counts as 9 games" in out
    rows[6] = "6,Opp5,ENG"  # a sixth opponent from ENG: 6 > 5.4
    write_csv(tmp_path / "players.csv", "player_id,name,federation", rows)
    assert main(argv) == 0
    assert "fails: own_federation" in capsys.readouterr().out


# -- categories from a store (§7.1) ------------------------------------------------------


@pytest.fixture
def category_store(tmp_path) -> Store:
    players = write_csv(
        tmp_path / "players.csv",
        "player_id,name,rating",
        ["a,A,2300", "b,B,2290", "c,C,", "d,D,2100", "e,E,2500"],
    )
    games = write_csv(
        tmp_path / "games.csv",
        "date,white_id,black_id,result,event_id,white_rating,black_rating",
        [
            # E1: a's game rating 2260 (not the players file's 2300), b 2290 from the
            # players file, c unrated → (2260 + 2290)/2 = 2275 → category 1
            "2024-01-10,a,b,1-0,E1,2260,",
            "2024-01-11,b,c,1/2-1/2,E1,,",
            "2024-01-12,c,a,0-1,E1,,2280",  # a's later game rating is not used
            # E2: d 2100, e 2500, a 2300 → 6900/3 = 2300 → category 2;
            # women's bands: 2300 − 2050 = 250 → ⌈250/25⌉ = 10
            "2024-02-10,d,e,0-1,E2,,",
            "2024-02-11,a,d,1-0,E2,,",
        ],
    )
    store = Store(tmp_path / "store")
    ingest_files(store, [games], players=[players])
    return store


def test_store_event_categories(category_store):
    rows = store_event_categories(category_store).to_pylist()
    assert [(r["event_id"], r["players"], r["rated_players"]) for r in rows] == [
        ("E1", 3, 2),
        ("E2", 3, 3),
    ]
    assert rows[0]["average"] == 2275 and rows[0]["category"] == 1
    assert rows[1]["average"] == 2300 and rows[1]["category"] == 2
    women = store_event_categories(category_store, "E2", women=True).to_pylist()
    assert len(women) == 1 and women[0]["category"] == 10
    with pytest.raises(ValueError, match="no games of event"):
        store_event_categories(category_store, "E9")


def test_cli_category_store(category_store, capsys):
    argv = ["category", "--store", str(category_store.root), "--event", "E1", "--format", "csv"]
    assert main(argv) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "event_id,players,rated_players,average,average_rounded,category"
    assert out[1] == "E1,3,2,2275.0,2275,1"


# -- Ingo rating list: lower is better (docs/legacy-systems.md)---------------------------------------


def test_lower_is_better_list_matches_the_registry():
    lower = {n for n in system_names() if get_system(n).lower_is_better}
    assert lower and lower == set(catalog._lower_is_better())
    for name in lower:  # the rating_list view ranks them smallest first
        assert f"'{name}'" in catalog.derived_views()["rating_list"]


def test_ingo_list_ranks_the_smallest_number_first(tmp_path, capsys):
    # x 2400, y 2000, z 1600 → Ingo 55, 105, 155. One period, no events, new = P:
    # x: N = (105 + 155)/2 = 130, 100 % → 130 − 50 = 80; y: N = 105, 50 % → 105;
    # z: N = (55 + 105)/2 = 80, 0 % → 130.
    players = write_csv(
        tmp_path / "p.csv", "player_id,name,rating", ["x,X,2400", "y,Y,2000", "z,Z,1600"]
    )
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result",
        ["2024-01-10,x,y,1-0", "2024-01-11,y,z,1-0", "2024-01-12,z,x,0-1"],
    )
    store = Store(tmp_path / "store")
    ingest_files(store, [games], players=[players])
    rate(store, "ingo")
    rate(store, "harkness")
    argv = ["list", "--store", str(store.root), "--format", "csv"]
    assert main([*argv, "--system", "ingo"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    # the list's CSV columns (docs/lists.md): rank, player_id, …, rating (10th); whole numbers
    ranked = [(f[0], f[1], f[9]) for f in (x.split(",") for x in lines[1:])]
    assert ranked == [("1", "x", "80"), ("2", "y", "105"), ("3", "z", "130")]
    # Harkness stays higher-is-better: x 1800 + 500 = 2300, y 2000, z 2200 − 500 = 1700
    assert main([*argv, "--system", "harkness"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    ranked = [(f[0], f[1], f[9]) for f in (x.split(",") for x in lines[1:])]
    assert ranked == [("1", "x", "2300"), ("2", "y", "2000"), ("3", "z", "1700")]
