"""``arpad card`` for a rating officer (attack 3): the initial rating of a ``new`` row
worked out (docs/rules.md, FIDE §8.2), where K comes from (§1.4, the 700 cap), which adjustment
a row's is, a period without games, and the hint of a card asked for another system
(docs/cli.md "card")."""

from __future__ import annotations

import json

from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import format_card, rating_card
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv


def _rated(tmp_path, players: list[str], games: list[str], *systems: str) -> Store:
    pfile = write_csv(tmp_path / "players.csv", "player_id,name,birth_year,rating,rated_games",
                      players)  # fmt: skip
    gfile = write_csv(tmp_path / "games.csv", "date,white_id,black_id,result,event_id", games)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    for system in systems or ("fide",):
        args = ["rate", "--no-flow", "--system", system, "--store", str(store.root)]
        assert main(args) == 0
    return store


RATED = [f"R{i},R{i},1970,{r},100" for i, r in enumerate((1750, 1820, 1900, 1650, 2100), 1)]


def test_new_row_shows_the_rules_example_initial_rating(tmp_path, capsys):
    # docs/rules.md, FIDE §8.2: 3.5/5 against 1750, 1820, 1900, 1650, 2100 (Σ 9220);
    # Ra = (9220 + 2 × 1800)/7 = 12820/7 = 1831.43; p = 4.5/7 = .6429 → 64 %;
    # dp(.64) = +102; Ru = 1933.43 → 1933 (≤ 2200, ≥ 1400: published)
    games = [f"2025-11-0{i},U1,R{i},{r},E" for i, r in enumerate(("1-0", "1-0", "1-0", "1/2-1/2",
                                                                    "0-1"), 1)]  # fmt: skip
    store = _rated(tmp_path, [*RATED, "U1,Newcomer,1990,,"], games)
    card = rating_card(store, "U1", 202511)
    init = card.initial
    assert card.status == "new"
    assert (init.games, init.score, init.opp_sum) == (5, 3.5, 9220)
    assert (init.ra_num, init.ra_den, init.percent, init.dp) == (12820, 7, 64, 102)
    assert (init.rounded, init.rating, init.published, init.capped) == (1933, 1933, True, False)
    assert init.months == [202511] and init.disregarded is None and card.matches
    text = format_card(card)
    assert "Ra = (ΣR 9220 + 2 × 1800) / (5 + 2) = 12820/7 = 1831.43" in text
    assert "p = (W 3.5 + 2 × ½) / 7 = 4.5/7 → 64 %   dp = +102" in text
    assert "Ru = Ra + dp = 1831.43 + 102 = 1933.43 → 1933" in text
    assert "published: 5 games ≥ 5 and 1933 ≥ the floor 1400" in text
    assert "stored initial rating = 1933  (matches)" in text
    capsys.readouterr()
    assert main(["card", "U1", "--store", str(store.root), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["initial"]["rating"] == 1933 and out["initial"]["matches"] is True


def test_initial_rating_pools_months_disregards_a_zero_first_event_and_caps(tmp_path):
    players = [
        "A1,A1,1970,2000,100", "A2,A2,1970,2000,100",
        "B1,B1,1970,2300,100", "B2,B2,1970,2300,100", "B3,B3,1970,2300,100",
        "U,Upstart,1990,,",
    ]  # fmt: skip
    games = [
        "2025-09-01,U,A1,0-1,E0",  # his first event, 0/2: disregarded (§8.2.1)
        "2025-09-02,U,A2,0-1,E0",
        "2025-10-01,U,B1,1-0,E1",  # 3 games: fewer than 5, no rating yet
        "2025-10-02,U,B2,1-0,E1",
        "2025-10-03,U,B3,1-0,E1",
        "2025-11-01,U,B1,1-0,E2",
        "2025-11-02,U,B2,1-0,E2",
    ]
    store = _rated(tmp_path, players, games)
    early = rating_card(store, "U", 202510)
    assert early.status == "unrated" and early.initial.games == 3
    assert early.initial.published is False and early.initial.stored is None and early.matches
    assert "not published: 3 game(s) against rated opponents < 5" in format_card(early)
    card = rating_card(store, "U", 202511)
    init = card.initial
    # 5 wins against 2300 (Σ 11500): Ra = (11500 + 3600)/7 = 15100/7 = 2157.14;
    # p = 6/7 = .857 → 86 %, dp(.86) = 309; 2466.14 → 2466, above the maximum 2200
    assert init.months == [202510, 202511] and (init.games, init.opp_sum) == (5, 11500)
    assert (init.disregarded, init.disregarded_months, init.disregarded_games) == (
        "E0",
        [202509],
        2,
    )
    assert (init.ra_num, init.ra_den, init.percent, init.dp) == (15100, 7, 86, 309)
    assert (init.rounded, init.rating, init.capped) == (2466, 2200, True)
    assert card.rating_after == 2200 and card.matches
    assert [g.period for g in card.games] == [202509] * 2 + [202510] * 3 + [202511] * 2
    text = format_card(card)
    assert "first event E0 (202509): zero score in 2 game(s), disregarded (§8.2.1)" in text
    assert "pooled from 202510, 202511" in text
    assert "maximum initial rating 2200: 2466 → 2200" in text
    assert text.count("first event with a zero score: disregarded (§8.2.1)") == 2


def test_unrated_row_below_the_floor_is_not_published(tmp_path):
    # 1/5 against 1450 × 5: Ra = (7250 + 3600)/7 = 10850/7 = 1550; p = 2/7 = .2857 →
    # 29 %, dp(.29) = −158 (docs/rules.md, FIDE §8.2's second example); Ru = 1392 < 1400
    players = [*(f"L{i},L{i},1970,1450,100" for i in range(1, 6)), "U,Under,1990,,"]
    games = [f"2025-11-0{i},U,L{i},{'1-0' if i == 1 else '0-1'},E" for i in range(1, 6)]
    card = rating_card(_rated(tmp_path, players, games), "U", 202511)
    init = card.initial
    assert card.status == "unrated" and (init.ra_num, init.ra_den) == (10850, 7)
    assert (init.percent, init.dp, init.rating, init.published) == (29, -158, 1392, False)
    assert card.matches
    text = format_card(card)
    assert "Ru = Ra + dp = 1550.00 − 158 = 1392.00 → 1392" in text
    assert "not published: 1392 < the floor 1400" in text
    assert "stored initial rating = not rated  (matches)" in text


def test_initial_rating_under_the_2022_rules(tmp_path):
    # docs/rules.md, FIDE §8.2 under the 2022 text: Ra = 9220/5 = 1844; 3.5/5 is 2 half points above
    # 50 % → 1844 + 20 × 2 = 1884
    games = [f"2023-05-0{i},U1,R{i},{r},E" for i, r in enumerate(("1-0", "1-0", "1-0", "1/2-1/2",
                                                                    "0-1"), 1)]  # fmt: skip
    card = rating_card(_rated(tmp_path, [*RATED, "U1,Newcomer,1990,,"], games), "U1", 202305)
    assert card.rules == "FIDE 2022-01" and card.initial.method == "2022"
    assert (card.initial.half_points_above, card.initial.rating, card.rating_after) == (
        2,
        1884,
        1884,
    )
    text = format_card(card)
    assert "Ra = ΣR / n = 9220/5 = 1844.00" in text and "2 half point(s) above 50 %" in text
    assert "Ru = Ra + 20 × 2 = 1844.00 + 40 = 1884.00 → 1884" in text


def _k_store(tmp_path) -> Store:
    players = [
        "N,NewTen,1990,1800,10", "Z,Z,1970,1800,100",
        "J,Junior,2008,2290,100", "Y,Y,1970,2290,100",
        "H,Hotel,1980,2390,100", "X1,X1,1970,2390,100", "X2,X2,1970,2390,100",
    ]  # fmt: skip
    games = [f"2025-11-{d:02d},N,Z,1-0,NN" for d in range(1, 21)]
    games += ["2025-11-10,J,Y,1-0,JN", "2025-11-11,H,X1,1-0,HN", "2025-11-12,H,X2,1-0,HN"]
    games += ["2025-12-01,H,X1,0-1,HD"]
    return _rated(tmp_path, players, games)


def test_k_names_its_base_and_the_700_cap(tmp_path, capsys):
    store = _k_store(tmp_path)
    # docs/rules.md, FIDE §8.3.3: 10 rated games < 30 → 40; 40 × 20 = 800 > 700 → ⌊700/20⌋ = 35
    card = rating_card(store, "N", 202511)
    kf = card.k_factor
    assert (kf.base, kf.rated_games_before, kf.games, kf.k, kf.stored) == (40, 10, 20, 35, 35)
    assert kf.capped and kf.matches and card.matches
    assert (
        "K = 35: base K 40 (new player: 10 rated game(s) before the period < 30); "
        "K × n = 40 × 20 = 800 > 700 → ⌊700/20⌋ = 35"
    ) in format_card(card)
    # junior: 2025 − 2008 = 17 ≤ 18 and 2290 < 2300 → 40, one game: 40 ≤ 700
    junior = rating_card(store, "J", 202511).k_factor
    assert (junior.base, junior.k, junior.capped) == (40, 40, False)
    assert junior.reason == "junior: 2025 − 2008 = 17 ≤ 18, rating 2290 < 2300"
    # H: 2390 + 20 × (2 × (1 − .5)) = 2410 published in 202511 → K 10 in 202512
    high = rating_card(store, "H", 202512).k_factor
    assert (high.base, high.k) == (10, 10)
    assert high.reason == "peak published rating 2410 ≥ 2400"
    # other rules for the card (k_new 30): 30 × 20 = 600 ≤ 700 → 30, not the stored 35
    other = rating_card(store, "N", 202511, overrides={"k_new": "30"})
    assert other.k_factor.k == 30 and not other.k_factor.matches and not other.matches
    assert "stored K = 35 DIFFERS from the recomputed K = 30" in format_card(other)


def test_adjustment_named_the_compression_in_2024_03(tmp_path):
    # 202402 (FIDE 2022-01): C1 1500 draws C2 1001, D 499 → 400, PD .92, ΔR −.42,
    # K 20 → −8.4 → −8: 1492. 202403: compression 0.4 × (2000 − 1492) = 203.2 → +203
    players = ["C1,C1,1970,1500,100", "C2,C2,1970,1001,100", "C3,C3,1970,1999,100"]
    games = ["2024-02-10,C1,C2,1/2-1/2,F", "2024-03-10,C3,C1,1/2-1/2,G"]
    card = rating_card(_rated(tmp_path, players, games), "C1", 202403)
    assert (card.rating_before, card.adjustment, card.rating_in_force) == (1492, 203, 1695)
    text = format_card(card)
    assert (
        "rating at the start: 1492, adjustment +203 (the one-time compression of 2024-03-01: "
        "0.4 × (2000 − 1492) = 203.2 → +203) → 1695"
    ) in text
    assert "two-monthly" not in text


def test_period_without_games_names_the_nearest_rated_periods(tmp_path, capsys):
    players = ["A,Alpha,1970,2000,100", "B,Bravo,1970,2000,100"]
    games = ["2025-10-05,A,B,1-0,E", "2025-12-05,A,B,0-1,F"]
    store = _rated(tmp_path, players, games)
    capsys.readouterr()
    assert main(["card", "A", "--period", "202511", "--store", str(store.root)]) == 2
    err = capsys.readouterr().err
    assert "the store has no standard games in 202511, so it is no rated period" in err
    assert "nearest rated: 202510 before, 202512 after" in err
    assert "rated periods: 202510..202512, 2 in all" in err and "arpad rate" not in err


def test_an_unrated_player_without_a_row_in_the_latest_period(tmp_path, capsys):
    # U (unrated) plays 2 games in October only: he has an October row (unrated, 2 < 5
    # games) and none in December, when only A and B play. The card's default period is
    # his latest row; asked for December, the error names the periods he has rows in.
    players = ["A,Alpha,1970,2000,100", "B,Bravo,1970,2000,100", "U,Uno,1990,,"]
    games = ["2025-10-05,U,A,0-1,E", "2025-10-06,B,U,1-0,E", "2025-12-05,A,B,0-1,F"]
    store = _rated(tmp_path, players, games)
    capsys.readouterr()
    assert main(["card", "U", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert "period 202510" in out and "stored initial rating = not rated  (matches)" in out
    assert main(["card", "U", "--period", "202512", "--store", str(store.root)]) == 2
    err = capsys.readouterr().err
    assert "no FIDE standard rating row for U in period 202512: the player has rows in " in err
    assert "1 period(s), 202510..202510 (arpad card U --period 202510)" in err


def test_card_of_another_system_names_that_system(tmp_path, capsys):
    players = ["A,Alpha,1970,2000,100", "B,Bravo,1970,2000,100"]
    store = _rated(tmp_path, players, ["2025-10-05,A,B,1-0,E"], "ecf", "elo")
    capsys.readouterr()
    assert main(["card", "A", "--system", "elo", "--store", str(store.root)]) == 2
    err = capsys.readouterr().err
    assert "not elo's" in err and "arpad history A --system elo" in err
    assert "--system ecf" not in err
    assert main(["card", "A", "--system", "glicko", "--store", str(store.root)]) == 2
    err = capsys.readouterr().err
    assert "not glicko's" in err and "arpad history" not in err
