"""Round 10: stated ratings that re-seed players without a word.

* officer: a player who fell below 1400 ("thereafter treated as unrated", docs/rules.md
  §7.2.1: off the list) came back through a stale stated rating, and the ingest note, which
  compared the file with the published list only for players on it, did not count him;
* new user: a club PGN without FIDE ids, its Elo tags copied from another list, merged
  into the FIDE-id players (`players identify`, `players merge --mapping`): the
  duplicates' stated ratings re-seed their keeps at the next rate (docs/observations.md:
  a merged duplicate's observations count for his keep), and no command said so.

docs/observations.md "Merges and stated ratings" and "Stated ratings of players below
the floor". Every player has 100 rated games, no birth year: K 20 (docs/rules.md
§8.3.3); expected scores from table 8.1.2 with the 400-point rule, changes rounded half
away from zero.
"""

from __future__ import annotations

import pytest

import arpad
from arpad.pipeline.cli import main

PLAYERS = (
    "player_id,name,rating,rated_games\n"
    '4600001,"Alpha, A",2000,100\n'
    '4600002,"Beta, B",1405,100\n'
    '4600003,"Gamma, C",1500,100\n'
)
# October: Alpha beats Beta twice (D 595, counted 400: PD .92/.08), Gamma beats Beta
# (D 95: .63/.37). Beta: 20 x (-.08 - .08 - .37) = -10.6 -> -11: 1394, below 1400, off
# the list. Alpha 20 x (.08 + .08) = 3.2 -> +3: 2003. Gamma 20 x .37 = 7.4 -> +7: 1507.
OCTOBER = (
    "date,white_id,black_id,result\n"
    "2026-10-05,4600001,4600002,1-0\n"
    "2026-10-06,4600002,4600001,0-1\n"
    "2026-10-07,4600003,4600002,1-0\n"
)
ROWS = "date,white_id,black_id,result,white_rating,black_rating\n"


def cli(root, *argv: str) -> int:
    return main(["--store", str(root), *argv])


def november(root, period: int = 202611) -> dict[str, int]:
    rows = arpad.Store(root).list("fide", pool="standard", period=period)
    return dict(zip(rows["player_id"], rows["rating"], strict=True))


@pytest.fixture()
def october(tmp_path, monkeypatch, capsys):
    """October rated and published (Beta fell to 1394: off the 202610 list)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reg.csv").write_text(PLAYERS)
    (tmp_path / "oct.csv").write_text(OCTOBER)
    root = tmp_path / "S"
    assert cli(root, "ingest", "--players", "reg.csv", "oct.csv") == 0
    assert cli(root, "rate", "--system", "fide", "--no-flow") == 0
    assert cli(root, "publish", "--system", "fide", "--period", "202610") == 0
    assert november(root, 202610) == {"4600001": 2003, "4600003": 1507}
    capsys.readouterr()
    return root


def test_a_stated_rating_above_a_fallen_players_counts_in_the_ingest_note(october, capsys):
    # the arbiter copied the ratings of September: Alpha 2000 (list 2003), Gamma 1500
    # (1507), Beta 1405 (off the list: 1394 in 202610)
    csv = (
        ROWS
        + "2026-11-05,4600002,4600003,1-0,1405,1500\n2026-11-06,4600001,4600002,1/2-1/2,2000,1405\n"
    )
    (october.parent / "nov.csv").write_text(csv)
    assert cli(october, "ingest", "nov.csv") == 0
    assert (
        "note: 3 player(s) whose rating in the file differs from the published "
        "fide/standard list in force (202610; e.g. 4600001: 2000 here, 2003 on the list; "
        "4600002: 1405 here, not on the list: 1394 in 202610, below the floor): the file's "
        "ratings replace the list's for its period (docs/observations.md); if the arbiter "
        "used an older list, correct the file"
    ) in capsys.readouterr().out
    # as documented, the stated 1405 rates Beta again: v Gamma 1500 (D 95: .37) 1, v Alpha
    # 2000 (400: .08) ½: 20 x (.63 + .42) = 21 -> 1426, on the list
    assert cli(october, "rate", "--system", "fide", "--no-flow") == 0
    assert november(october)["4600002"] == 1426
    # and the card says where he came from without calling him listed (it said "the
    # list of period 202610 had 1394": no list holds him)
    capsys.readouterr()
    assert cli(october, "card", "4600002", "--period", "202611") == 0
    assert (
        "rating at the start: 1405 (stated in nov.csv for this period; his row of period "
        "202610 had 1394, below the rating floor: unrated, not on the list)"
    ) in capsys.readouterr().out


def test_ratings_as_listed_and_a_fallen_players_own_rating_say_nothing(october, capsys):
    # 1394 is below the floor: no rating (FideSystem.seed), Beta stays unrated
    csv = (
        ROWS
        + "2026-11-05,4600002,4600003,1-0,1394,1507\n2026-11-06,4600001,4600002,1/2-1/2,2003,1394\n"
    )
    (october.parent / "nov.csv").write_text(csv)
    assert cli(october, "ingest", "nov.csv") == 0
    assert "differs from the published" not in capsys.readouterr().out


def club(alpha: int, beta: int, gamma: int) -> str:
    """A club PGN without FideId tags (file-scoped ids "club_nov.pgn:Name")."""

    def game(rnd, white, black, result, welo, belo):
        return (
            f'[Event "Club November"]\n[Site "Here"]\n[Date "2026.11.20"]\n[Round "{rnd}"]\n'
            f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[WhiteElo "{welo}"]\n[BlackElo "{belo}"]\n\n1. d4 d5 {result}\n\n'
        )

    return game(1, "Alpha, A", "Gamma, C", "1-0", alpha, gamma) + game(
        2, "Gamma, C", "Beta, B", "1/2-1/2", gamma, beta
    )


MERGE_NOTE = (
    "arpad: note: 3 kept player(s) whose rating stated for a merged duplicate differs from "
    "the published fide/standard list in force (202610; e.g. 4600001: 2000 stated for "
    "club_nov.pgn:Alpha, A in club_nov.pgn, 2003 on the list; 4600002: 1405 stated for "
    "club_nov.pgn:Beta, B in club_nov.pgn, not on the list: 1394 in 202610, below the "
    "floor): the duplicates' stated ratings replace the list's for their periods at the "
    'next rate (docs/observations.md "Merges and stated ratings"); if the file copied '
    "another list, ingest club_nov.pgn again under the same --source with "
    "--ignore-stated-ratings, then rate"
)


def merge_club(root, capsys, *ratings: int) -> str:
    (root.parent / "club_nov.pgn").write_text(club(*ratings))
    assert cli(root, "ingest", "club_nov.pgn") == 0
    out = capsys.readouterr().out
    assert "differs from the published" not in out  # file-scoped ids: nobody to compare
    assert cli(root, "players", "identify", "--output", "map.csv") == 0
    assert (root.parent / "map.csv").read_text().count("club_nov.pgn:") == 3
    capsys.readouterr()
    assert cli(root, "players", "merge", "--mapping", "map.csv") == 0
    return capsys.readouterr().err


def test_a_merge_names_the_stated_ratings_it_brings_to_the_keeps(october, capsys):
    err = merge_club(october, capsys, 2000, 1405, 1500)  # September's ratings
    assert MERGE_NOTE in err.splitlines()
    # the next rate starts November from them: Alpha 2000 beats Gamma 1500 (D 500, 400:
    # .92): +1.6 -> +2, 2002. Gamma 1500: 0 v Alpha (.08), ½ v Beta 1405 (D 95: .63):
    # 20 x (-.08 - .13) = -4.2 -> -4, 1496. Beta 1405 (rated again; 30 games taken: K 20):
    # ½ v Gamma (.37): +2.6 -> +3, 1408.
    assert cli(october, "rate", "--system", "fide", "--no-flow") == 0
    assert november(october) == {"4600001": 2002, "4600003": 1496, "4600002": 1408}
    # the remedy the note gives: from the list, Alpha 2003 beats Gamma 1507 (D 496, 400:
    # .92) +2, 2005; Gamma -2, 1505 (Beta, unrated at 1394, is no rated opponent)
    argv = ["ingest", "club_nov.pgn", "--source", "club_nov.pgn", "--ignore-stated-ratings"]
    assert cli(october, *argv) == 0
    assert cli(october, "rate", "--system", "fide", "--no-flow") == 0
    assert november(october) == {"4600001": 2005, "4600003": 1505}


def test_a_merge_of_ratings_as_listed_says_nothing(october, capsys):
    err = merge_club(october, capsys, 2003, 1394, 1507)  # the 202610 list (Beta: his 1394)
    assert "stated for a merged duplicate" not in err
