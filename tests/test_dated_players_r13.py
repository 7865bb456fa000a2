"""Analyst, round 13, finding 1: a players row with a ``date`` column keeps its
``rated_games`` (docs/observations.md: a players file's ``rated_games`` and
``peak_rating`` are starting values "with or without a date column"). Before, a player
first rated by a dated row (or a stated rating) was seeded "with an unknown game count,
taken as 30": a newcomer with 5 rated games got K 20 instead of 40.

FIDE by hand (docs/rules.md, table 8.1.2): n 1800 beats y 1900 on 10 March 2023;
D 100, PD(L) .36: n +.64 x K. n has 5 rated games (< 30): K 40, +25.6 -> +26, 1826
(with 30 taken: K 20, +12.8 -> +13, 1813). y 1900, 100 games: K 20, PD(H) .64:
-.64 x 20 = -12.8 -> -13, 1887.
"""

from __future__ import annotations

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from tests.test_historian_attack import sql

GAMES = "date,white_id,black_id,result\n2023-03-10,n,y,1-0\n"
DATED = "player_id,rating,date,rated_games,birth_year\nn,1800,2023-03-01,5,1980\ny,1900,,100,1980\n"
UNDATED = "player_id,rating,rated_games,birth_year\nn,1800,5,1980\ny,1900,100,1980\n"
# (rating_before, k, change, rating_after)
N_ROW = (1800.0, 40.0, 26.0, 1826.0)
Y_ROW = (1900.0, 20.0, -13.0, 1887.0)


def store_rows(tmp_path, players: str, games: str = GAMES):
    (tmp_path / "games.csv").write_text(games)
    (tmp_path / "players.csv").write_text(players)
    store = tmp_path / "S"
    argv = ["--store", str(store), "--no-flow"]
    assert (
        main(
            [
                "ingest",
                str(tmp_path / "games.csv"),
                "--players",
                str(tmp_path / "players.csv"),
                *argv,
            ]
        )
        == 0
    )
    assert main(["rate", "--system", "fide", *argv]) == 0
    rows = sql(
        store,
        "SELECT player_id, rating_before, k, change, rating_after FROM ratings "
        "WHERE system = 'fide' ORDER BY player_id",
    ).rows()
    return store, {r[0]: r[1:] for r in rows}


@pytest.mark.parametrize("players", [DATED, UNDATED], ids=["dated", "undated"])
def test_a_store_counts_the_rated_games_of_a_dated_players_row(tmp_path, players, capsys):
    store, rows = store_rows(tmp_path, players)
    assert rows == {"n": N_ROW, "y": Y_ROW}
    capsys.readouterr()
    assert main(["card", "n", "--store", str(store)]) == 0
    k_line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("K = ")]
    assert len(k_line) == 1 and k_line[0].startswith("K = 40: ")
    assert "not known" not in k_line[0]


@pytest.mark.parametrize("dated", [True, False])
def test_in_memory_a_dated_players_frame_keeps_rated_games(dated):
    games = pl.DataFrame(
        {"date": ["2023-03-10"], "white_id": ["n"], "black_id": ["y"], "result": ["1-0"]}
    )
    players = pl.DataFrame(
        {
            "player_id": ["n", "y"],
            "rating": [1800, 1900],
            "rated_games": [5, 100],
            "birth_year": [1980, 1980],
            "date": ["2023-03-01" if dated else None, None],
        }
    )
    if not dated:
        players = players.drop("date")
    out = arpad.rate(games, "fide", players=players)
    got = {
        r[0]: r[1:]
        for r in out.select("player_id", "rating_before", "k", "change", "rating_after").rows()
    }
    assert got == {"n": N_ROW, "y": Y_ROW}


STATED = "date,white_id,black_id,result,white_rating,black_rating\n2023-03-10,n,y,1-0,1800,1900\n"


def test_a_stated_rating_of_a_player_with_a_known_count_uses_it(tmp_path):
    """n has no rating in the players file, only his 5 rated games; the game states his
    rating 1800 (white_rating): he is rated from it with his 5 games, K 40."""
    players = "player_id,rating,rated_games\nn,,5\ny,1900,100\n"
    assert store_rows(tmp_path, players, STATED)[1] == {"n": N_ROW, "y": Y_ROW}


def test_a_stated_rating_without_a_count_is_still_taken_as_established(tmp_path):
    """No rated_games for n: a player first rated by a stated rating is established
    (30 games taken), K 20: +.64 x 20 = 12.8 -> +13, 1813 (as before)."""
    players = "player_id,rating,rated_games\nn,,\ny,1900,100\n"
    rows = store_rows(tmp_path, players, STATED)[1]
    assert rows == {"n": (1800.0, 20.0, 13.0, 1813.0), "y": Y_ROW}
