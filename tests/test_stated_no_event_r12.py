"""Analyst, round 12: stated ratings of games without an event id (a CSV's
white_rating/black_rating, a players file's dated rows) are each their own statement
(docs/observations.md "Events across a month boundary": "Games without an event id keep
the per-game reading"). Before, ``observations._codes`` gave every null event id the
code of one event (pyarrow's ``index_in`` matches a null to the null of the value set),
so the months with stated ratings made one "event": a player's first stated rating was
moved back to the first of those months (d on the January list, his rating first stated
in March) and a later equal rating was dropped as a repeat.

FIDE by hand (table 8.1.2, K 20, rounding half away from zero):
Jan: a 2000 beats b 2000, PD .50: a +10 (2010), b -10 (1990).
Feb: a 2010 - b 1990 draw, D 20, PD .53: a -.03 x 20 = -0.6 -> -1 (2009), b +1 (1991);
     a beats d, who has no rating yet (first stated in March): not rated.
Mar: d 1850 beats b, stated 1990 (replacing 1991), D 140, PD .69: b -13.8 -> -14 (1976),
     d +.69 x 20 = 13.8 -> +14 (1864).
"""

from __future__ import annotations

import pytest

import arpad
from arpad.pipeline.cli import main
from tests.test_historian_attack import sql

GAMES = (
    "date,white_id,black_id,result,white_rating,black_rating\n"
    "2023-01-10,a,b,1-0,2000,2000\n"
    "2023-02-10,a,b,1/2-1/2,2010,1990\n"
    "2023-02-12,d,a,0-1,,\n"
    "2023-03-10,d,b,1-0,1850,1990\n"
)
EXPECTED = [
    (202301, "a", 2000.0, 2010.0, "rated"),
    (202301, "b", 2000.0, 1990.0, "rated"),
    (202302, "a", 2010.0, 2009.0, "rated"),
    (202302, "b", 1990.0, 1991.0, "rated"),
    (202302, "d", None, None, "unrated"),
    (202303, "a", 2009.0, 2009.0, "rated"),
    (202303, "b", 1990.0, 1976.0, "rated"),
    (202303, "d", 1850.0, 1864.0, "rated"),
]


def test_stated_ratings_without_event_ids_are_read_game_by_game(tmp_path):
    (tmp_path / "games.csv").write_text(GAMES)
    store = tmp_path / "S"
    assert main(["ingest", str(tmp_path / "games.csv"), "--store", str(store), "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", str(store), "--no-flow"]) == 0
    rows = sql(
        store,
        "SELECT period, player_id, rating_before, rating_after, status FROM ratings "
        "WHERE system = 'fide' ORDER BY period, player_id",
    ).rows()
    assert rows == EXPECTED


@pytest.mark.parametrize("february", [None, "2023-02-15"])
def test_a_dated_players_row_starts_the_player_at_its_date(tmp_path, february):
    """d's only players row is dated 1 March: he is unrated before March, whether or not
    another player has a row dated in February (before, a February row made February and
    March one "event" and d was rated 1850 from February)."""
    games = (
        "date,white_id,black_id,result\n"
        "2023-01-10,a,b,1-0\n2023-02-10,d,a,0-1\n2023-03-10,d,b,1-0\n"
    )
    (tmp_path / "games.csv").write_text(games)
    rows = ["player_id,rating,date", "a,2000,", "b,2000,", "d,1850,2023-03-01"]
    if february:
        rows[2] = f"b,2000,{february}"
    (tmp_path / "players.csv").write_text("\n".join(rows) + "\n")
    frame = arpad.rate(tmp_path / "games.csv", "fide", players=tmp_path / "players.csv")
    d = sorted(
        (r["period"], r["rating_before"], r["status"])
        for r in frame.to_dicts()
        if r["player_id"] == "d"
    )
    assert d[:2] == [(202302, None, "unrated"), (202303, 1850.0, "rated")]
