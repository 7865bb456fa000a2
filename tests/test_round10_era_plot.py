"""Round-10 historian defects in ``arpad era`` and ``arpad plot history`` (docs/analysis.md
"Era table" and "Players by name").

- Under FIDE's two-monthly lists (the 2009-07 rules, given here with ``--rules 2009-07``:
  a replay of 1882 by date uses the quarterly lists of FIDE 2000-01, docs/fide-history.md)
  the first month's row holds its games and the closing month's
  row counts both months'. ``era`` added the rows, so each game of a first month counted
  twice and ``--min-games`` let in players who did not have the games.
- ``plot history NAME`` matched names among the rated players only: of two stored
  "Mieses, Jacques", one not rated yet, it drew the rated one without a word, where
  ``history`` and ``card`` refuse the name as matching 2 players.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main


def _game(date: str, white: str, black: str, result: str, elos=None) -> str:
    tags = f'[White "{white}"]\n[Black "{black}"]\n'
    if elos:
        tags += f'[WhiteElo "{elos[0]}"]\n[BlackElo "{elos[1]}"]\n'
    return (
        f'[Event "Wien 1882"]\n[Date "{date}"]\n{tags}[Result "{result}"]\n\n1. e4 e5 {result}\n\n'
    )


ELO = {"Steinitz, W": 2720, "Winawer, S": 2640, "Noa, J": 2150}


def _rated_game(date: str, white: str, black: str, result: str) -> str:
    return _game(date, white, black, result, (ELO[white], ELO[black]))


# May/June and July/August 1882 are two-monthly rating periods (closing in June and
# August): Steinitz plays 2 games in May and 1 in July (3), Winawer 1 in May, 1 in June
# and 1 in July (3), Noa 1 in May and 1 in June (2).
WIEN = (
    _rated_game("1882.05.10", "Steinitz, W", "Winawer, S", "1-0")
    + _rated_game("1882.05.12", "Noa, J", "Steinitz, W", "1-0")
    + _rated_game("1882.06.02", "Winawer, S", "Noa, J", "1/2-1/2")
    + _rated_game("1882.07.01", "Winawer, S", "Steinitz, W", "0-1")
)
PLAYED = {"wien.pgn:Steinitz, W": 3, "wien.pgn:Winawer, S": 3, "wien.pgn:Noa, J": 2}


@pytest.fixture(scope="module")
def wien(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("era")
    pgn = root / "wien.pgn"
    pgn.write_text(WIEN)
    store = str(root / "S")
    assert main(["ingest", "--no-flow", "--store", store, str(pgn)]) == 0
    for system, rules in (("fide", ["--rules", "2009-07"]), ("elo", [])):
        assert main(["rate", "--no-flow", "--store", store, "--system", system, *rules]) == 0
    return store


def _era(store: str, system: str, capsys, *extra: str) -> dict[str, int]:
    capsys.readouterr()
    args = ["era", "--system", system, "--store", store, "--format", "csv", *extra]
    assert main(args) == 0
    table = pl.read_csv(capsys.readouterr().out.encode())
    assert set(table[table.columns[0]].to_list()) <= {1880, 1882}  # the year or decade
    return dict(zip(table["player_id"].to_list(), table["games"].to_list(), strict=True))


def test_fide_two_monthly_rows_are_two_monthly(wien):
    # the premise: the first month's row holds its games (change null), the closing
    # month's repeats them (docs/fide-history.md "Two-monthly lists")
    from arpad.pipeline.store import Store

    store = Store(wien)
    rows = {
        p: pl.from_arrow(store.read_ratings("fide", "standard", p))
        for p in store.rating_periods("fide", "standard")
    }
    steinitz = {
        p: f.filter(pl.col("player_id") == "wien.pgn:Steinitz, W").select("games", "change").row(0)
        for p, f in rows.items()
    }
    assert steinitz[188205] == (2, None)
    assert steinitz[188206][0] == 2  # May's two games again, published in June
    assert steinitz[188207] == (1, None)
    assert steinitz[188208][0] == 1


def test_fide_era_counts_each_game_once(wien, capsys):
    # before: Steinitz 6 (2 + 2 + 1 + 1), Winawer 5, Noa 3
    assert _era(wien, "fide", capsys) == PLAYED
    assert _era(wien, "fide", capsys, "--by", "decade") == PLAYED


def test_fide_era_min_games_counts_the_games_played(wien, capsys):
    # before: --min-games 3 listed all three, Noa with his 2 games among them
    assert _era(wien, "fide", capsys, "--min-games", "3") == {
        "wien.pgn:Steinitz, W": 3,
        "wien.pgn:Winawer, S": 3,
    }
    assert _era(wien, "fide", capsys, "--min-games", "4") == {}


def test_elo_era_is_unchanged(wien, capsys):
    assert _era(wien, "elo", capsys) == PLAYED
    assert _era(wien, "elo", capsys, "--min-games", "3") == {
        "wien.pgn:Steinitz, W": 3,
        "wien.pgn:Winawer, S": 3,
    }


def test_a_late_publication_does_not_repeat_the_held_games():
    # A closing month the run did not walk: the held change is published in a later
    # period as an ``adjustment`` and that row's games are its own (fide.py ``step`` (1)).
    from arpad.pipeline.era import _games_of_each_period

    rows = pl.DataFrame(
        {
            "player_id": ["a"] * 4,
            "period": [188205, 188206, 188209, 188210],
            "games": [2, 3, 1, 1],
            "status": ["rated"] * 4,
            "rating_before": [2700.0] * 4,
            "change": [None, 5.0, None, 2.0],
            "adjustment": [None, None, 4.0, None],
        }
    )
    # 188206 closes May/June (2 + 1); 188209 is late: its 1 is September's own
    own = _games_of_each_period(rows, interim=False, held=True)["games"].to_list()
    assert own == [2, 1, 1, 0]
    # without ``held`` (every system but FIDE) the counts are the rows' own
    assert _games_of_each_period(rows, interim=False)["games"].to_list() == [2, 3, 1, 1]


# Two stored "Mieses, Jacques": Berlin 1883's rated (Elo tags), a later file's not rated
# yet (no tags, an unrated opponent: a ratings row with status unrated).
BERLIN = _game("1883.10.01", "Mieses, Jacques", "Steinitz, W", "1-0", (2600, 2720))
LATER = _game("1928.05.01", "Mieses, Jacques", "Tartakower, S", "1/2-1/2")
MATCHES = (
    "arpad: error: 'Mieses' matches 2 players: berlin.pgn:Mieses, Jacques (Mieses, Jacques); "
    "later.pgn:Mieses, Jacques (Mieses, Jacques); give an id or a fuller name\n"
)


@pytest.fixture(scope="module")
def mieses(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("plot")
    (root / "berlin.pgn").write_text(BERLIN)
    (root / "later.pgn").write_text(LATER)
    store = root / "S"
    files = [str(root / "berlin.pgn"), str(root / "later.pgn")]
    assert main(["ingest", "--no-flow", "--store", str(store), *files]) == 0
    assert main(["rate", "--no-flow", "--store", str(store), "--system", "fide"]) == 0
    return store


def test_plot_refuses_a_name_of_two_players_as_history_does(mieses, capsys):
    s = str(mieses)
    capsys.readouterr()
    assert main(["history", "Mieses", "--system", "fide", "--store", s]) == 2
    assert capsys.readouterr().err == MATCHES
    out = mieses.parent / "h.png"
    args = ["plot", "history", "Mieses", "--system", "fide", "--store", s, "--output", str(out)]
    assert main(args) == 2  # before: 0, Berlin's Mieses drawn without a word
    assert capsys.readouterr().err == MATCHES
    assert not out.exists()


def test_plot_draws_the_rated_id_and_names_the_unrated_one(mieses, capsys):
    s = str(mieses)
    out = mieses.parent / "one.png"
    plot = ["plot", "history", "--system", "fide", "--store", s, "--output", str(out)]
    assert main([*plot[:2], "berlin.pgn:Mieses, Jacques", *plot[2:]]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    assert main([*plot[:2], "later.pgn:Mieses, Jacques", *plot[2:]]) == 2
    assert capsys.readouterr().err == (
        "arpad: error: no fide/standard rating to plot for later.pgn:Mieses, Jacques "
        "(Mieses, Jacques): not rated yet (arpad history shows the unrated rows)\n"
    )
