"""Title norms count a players file's WTit as well as its Tit (round 11).

FIDE's rating list downloads have two title columns: Tit (GM, IM, FM, CM, and a woman's
women's title) and WTit (WGM, WIM, WFM, WCM). A woman may hold Tit=IM and WTit=WGM, or
WTit=WIM alone. Title Regulations 1.4 (docs/legacy-systems.md): ≥ 50 % of the opponents
titled (GM, IM, FM, WGM, WIM, WFM; CM/WCM not counted); ≥ 1/3 holding the norm's title
or a higher one named by the rule (IM norm: GM, IM; WIM norm: GM, IM, WGM, WIM — an FM
does not count for a women's norm). An opponent's titles are the union of Tit and WTit.
Every figure below is worked by hand in the comments.
"""

from __future__ import annotations

import warnings

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.tournament import norm_check, title_label, title_set
from tests.conftest import write_csv

HEADER = "ID Number,Name,Fed,Sex,Tit,WTit,SRtng"


def games_csv(path, wins: int, n: int = 9):
    """Pat (id 100) against opponents 1..n in turn, winning the first ``wins`` games."""
    rows = [f"g{i},2024-05-0{i},100,{i},{'1-0' if i <= wins else '0-1'}" for i in range(1, n + 1)]
    return write_csv(path, "game_id,date,white_id,black_id,result", rows)


def cond(check, name):
    return next((ok, detail) for n, ok, detail in check.conditions if n == name)


# -- naming and reading an opponent's titles -----------------------------------------------


def test_title_label_is_the_union_of_tit_and_wtit_highest_first():
    assert title_label("IM", "WGM") == "IM (WGM)"  # FIDE's order: GM > IM > WGM > FM > WIM
    assert title_label("WGM", "IM") == "IM (WGM)"
    assert title_label("FM", "WIM") == "FM (WIM)"
    assert title_label("WGM", "WGM") == "WGM"  # FIDE lists a woman's WGM in Tit and WTit
    assert title_label(None, "WIM") == "WIM"
    assert title_label("", None) is None and title_label("-", "") is None
    assert title_label("wm", "WIM") == "WIM"  # a TRF's code and its WTit: one title
    # the label reads back as the same titles (``arpad norm --titles IM/WGM``)
    assert title_set("IM (WGM)") == title_set("IM/WGM") == title_set(("im", "WGM"))
    assert title_set("IM (WGM)") == frozenset({"IM", "WGM"})


def test_norm_check_counts_an_opponent_with_two_titles_once():
    # IM norm, 9 × 2407, 5 points: Ra 2407, 5/9 = 55.6 % → 56 % → dp 43 → Rp 2450 (§7.2).
    # Titled: GM, IM (WGM), IM, WIM, WGM, FM = 6 ≥ 4.5; the two-title opponent once.
    # GM/IM: GM, IM (WGM), IM = 3 ≥ 3.00.
    titles = ["GM", ("IM", "WGM"), "IM", "WIM", "WGM", "FM", None, None, None]
    check = norm_check([2407] * 9, 5, "IM", opponent_titles=titles)
    assert cond(check, "titled") == (
        True,
        "6 of 9 opponents titled, CM/WCM not counted (minimum 4.5); "
        "two titles, each opponent counted once: IM (WGM)",
    )
    assert cond(check, "norm_titles") == (True, "3 of 9 opponents GM/IM (minimum 3.00)")
    assert check.opponent_titles == ["GM", "IM (WGM)", "IM", "WIM", "WGM", "FM", None, None, None]
    # WGM norm on the same field: GM, IM (WGM), IM, WGM = 4 ≥ 3 hold "WGM or higher"
    wgm = norm_check([2407] * 9, 5, "WGM", opponent_titles=titles)
    assert cond(wgm, "norm_titles") == (True, "4 of 9 opponents GM/IM/WGM (minimum 3.00)")


# -- a FIDE-style players file (Tit and WTit) --------------------------------------------


def test_cli_im_norm_counts_opponents_titled_only_in_wtit(tmp_path, capsys):
    """Pat (ENG) scores 5/9 against nine 2407s; by hand:
    Ra 2407, p 56 %, dp 43, Rp 2450 ≥ 2450.
    Opponents (Tit, WTit): 1 GM; 2 IM, WGM; 3 IM; 4 -, WIM; 5 -, WGM; 6 FM; 7-9 none.
    Titled: 1, 2, 3, 4, 5, 6 = 6 of 9 ≥ 4.5. Tit alone gives 1, 2, 3, 6 = 4 < 4.5: the
    old "FAIL titled". GM/IM (1/3 rule): 1, 2, 3 = 3 ≥ 3.00.
    Federations: 1-3 ENG, 4-6 GER, 7-9 FRA: 2 others, 3 ≤ 5.40 own, 3 ≤ 6.00 from one."""
    games = games_csv(tmp_path / "games.csv", wins=5)
    tit = {1: ("GM", ""), 2: ("IM", "WGM"), 3: ("IM", ""), 4: ("", "WIM"), 5: ("", "WGM")}
    tit[6] = ("FM", "")
    rows = ["100,Pat,ENG,F,,,2300"]
    for i in range(1, 10):
        t, w = tit.get(i, ("", ""))
        rows.append(f"{i},Opp{i},{['ENG', 'GER', 'FRA'][(i - 1) // 3]},F,{t},{w},2407")
    players = write_csv(tmp_path / "players.csv", HEADER, rows)
    argv = ["norm", str(games), "--player", "100", "--title", "IM", "--players", str(players)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ok   performance    Rp 2407 + dp(56 %) +43 = 2450 (minimum 2450)" in out
    assert (
        "ok   titled         6 of 9 opponents titled, CM/WCM not counted (minimum 4.5); "
        "two titles, each opponent counted once: IM (WGM)"
    ) in out
    assert "ok   norm_titles    3 of 9 opponents GM/IM (minimum 3.00)" in out
    assert "IM norm: achieved, counts as 9 games" in out


def test_api_wim_norm_counts_an_fm_holding_wtit_wim(tmp_path):
    """WIM norm: Pat scores 7/9 against nine 2100s; by hand Ra 2100 ≥ 2030,
    7/9 = 77.8 % → 78 % → dp 220, Rp 2320 ≥ 2250.
    Opponents (Tit, WTit): 1, 2 FM, WIM; 3 WIM, WIM; 4, 5 FM; 6 WFM, WFM; 7-9 none.
    Titled: 1-6 = 6 ≥ 4.5. GM/IM/WGM/WIM: 1, 2, 3 = 3 ≥ 3.00; Tit alone gives only
    opponent 3 (an FM does not count for a women's norm) = 1 < 3: the old failure."""
    games = games_csv(tmp_path / "games.csv", wins=7)
    tit = {1: ("FM", "WIM"), 2: ("FM", "WIM"), 3: ("WIM", "WIM"), 4: ("FM", ""), 5: ("FM", "")}
    tit[6] = ("WFM", "WFM")
    rows = ["100,Pat,ENG,F,,,2000"]
    for i in range(1, 10):
        t, w = tit.get(i, ("", ""))
        rows.append(f"{i},Opp{i},{['ENG', 'GER', 'FRA'][(i - 1) // 3]},F,{t},{w},2100")
    players = write_csv(tmp_path / "players.csv", HEADER, rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the players file's "column(s) read as" note
        check = arpad.norm(games, "100", "WIM", players=players)
    assert (check.average, check.percent, check.dp, check.performance) == (2100, 78, 220, 2320)
    assert cond(check, "titled") == (
        True,
        "6 of 9 opponents titled, CM/WCM not counted (minimum 4.5); "
        "two titles, each opponent counted once: FM (WIM); FM (WIM)",
    )
    assert cond(check, "norm_titles") == (True, "3 of 9 opponents GM/IM/WGM/WIM (minimum 3.00)")
    assert check.opponent_titles[:7] == ["FM (WIM)", "FM (WIM)", "WIM", "FM", "FM", "WFM", None]
    assert check.verdict == "achieved"


# -- a TRF: one title field per 001 line, and a players file beside it ---------------------


def trf_001(rank, title, name, fed, fide, points, blocks):
    head = (
        f"001 {rank:>4} f{title:>3} {name:<33} 2100 {fed} {fide:>11} 1990/01/01 "
        f"{points:>4.1f} {rank:>4}  "
    )
    assert len(head) == 91
    return head + "".join(b.ljust(10) for b in blocks).rstrip()


def test_trf_titles_and_a_players_file_wtit(tmp_path, capsys):
    """Pat (rank 1, ENG) plays ranks 2..10 in rounds 1..9, winning 7 (ranks 2-8): WIM
    norm, Ra 2100, 78 %, dp 220, Rp 2320. The TRF's title fields: 2 wm, 3 wg, 4 f, 5 f,
    6 wf, 7-10 none. From the TRF alone: titled WIM, WGM, FM, FM, WFM = 5 ≥ 4.5 (each
    women's code once, though the TRF reader fills title and WTit); GM/IM/WGM/WIM: 2 < 3,
    fails. A players file giving ranks 4 and 5 (ids 10004, 10005) Tit FM and WTit WIM
    makes it 4 ≥ 3; Tit alone (the old reading) left it at 2."""
    titles = {2: "wm", 3: "wg", 4: "f", 5: "f", 6: "wf"}
    feds = {r: ["ENG", "GER", "FRA"][(r - 2) // 3] for r in range(2, 11)}
    pat = [f"{r:>4} {'w' if r % 2 else 'b'} {'1' if r <= 8 else '0'}" for r in range(2, 11)]
    lines = [trf_001(1, "", "Pat", "ENG", 10001, 7.0, pat)]
    for r in range(2, 11):
        block = f"   1 {'b' if r % 2 else 'w'} {'0' if r <= 8 else '1'}"
        blocks = [""] * (r - 2) + [block]
        lines.append(
            trf_001(r, titles.get(r, ""), f"Opp{r}", feds[r], 10000 + r, float(r > 8), blocks)
        )
    head = ["012 Wtit Open", "042 2024/05/01", "052 2024/05/09", "092 Individual: Round robin"]
    trf = tmp_path / "event.trf"
    trf.write_text("\n".join(head + lines) + "\n")
    argv = ["norm", str(trf), "--player", "10001", "--title", "WIM"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ok   performance    Rp 2100 + dp(78 %) +220 = 2320 (minimum 2250)" in out
    assert "ok   titled         5 of 9 opponents titled, CM/WCM not counted (minimum 4.5)\n" in out
    assert "FAIL norm_titles    2 of 9 opponents GM/IM/WGM/WIM (minimum 3.00)" in out
    players = write_csv(
        tmp_path / "players.csv", "ID Number,Tit,WTit", ["10004,FM,WIM", "10005,FM,WIM"]
    )
    assert main([*argv, "--players", str(players)]) == 0
    out = capsys.readouterr().out
    assert "ok   norm_titles    4 of 9 opponents GM/IM/WGM/WIM (minimum 3.00)" in out
    assert "two titles, each opponent counted once: FM (WIM); FM (WIM)" in out
    assert "WIM norm: achieved, counts as 9 games" in out


@pytest.mark.parametrize("given", ["IM/WGM", "IM (WGM)"])
def test_cli_titles_option_takes_two_titles_of_one_opponent(capsys, given):
    # 9 × 2407, 5 points, IM norm: titled IM (WGM), WIM, WGM, GM, FM = 5 ≥ 4.5
    titles = ",".join([given, "WIM", "WGM", "GM", "FM", "-", "-", "-", "-"])
    argv = ["norm", "--opponents", ",".join(["2407"] * 9), "--score", "5", "--title", "IM"]
    assert main([*argv, "--titles", titles]) == 0
    out = capsys.readouterr().out
    assert "ok   titled         5 of 9 opponents titled" in out
    assert "FAIL norm_titles    2 of 9 opponents GM/IM (minimum 3.00)" in out
