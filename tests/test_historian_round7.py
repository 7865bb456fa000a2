"""Historian, round 7 (docs/pgn-trf.md "Imprecise dates", docs/identity.md "Candidates",
docs/fide-history.md "History and plot"): open markers for a player's own year-only
games, shared opponents matched by surname and first initial, and the "period with
games" dot only where there were games."""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import history, identity, plots
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def pgn(path, games) -> str:
    """A PGN file of (date, white, black, result) games."""
    text = "".join(
        f'[Event "E"]\n[Site "S"]\n[Date "{d}"]\n[Round "{i}"]\n[White "{w}"]\n'
        f'[Black "{b}"]\n[Result "{r}"]\n\n1. e4 e5 {r}\n\n'
        for i, (d, w, b, r) in enumerate(games, 1)
    )
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_open_markers_are_the_players_own_year_only_games(tmp_path):
    """Anderssen's only 1859 game is dated 1859.12.27, rated in 185912 together with
    Morphy's year-only 1859 game; Lowenthal did not play in 1859. Only Morphy gets an
    open marker for 1859 (the markers were decided per pool: all three got one)."""
    games = [
        ("1858.??.??", "Morphy, Paul", "Anderssen, Adolf", "1-0"),
        ("1858.??.??", "Lowenthal, Johann", "Harrwitz, Daniel", "1-0"),
        ("1859.??.??", "Morphy, Paul", "Harrwitz, Daniel", "1-0"),
        ("1859.12.27", "Anderssen, Adolf", "Kolisch, Ignatz", "1-0"),
        ("1860.??.??", "Anderssen, Adolf", "Morphy, Paul", "0-1"),
        ("1860.??.??", "Lowenthal, Johann", "Kolisch, Ignatz", "1-0"),
    ]
    root = tmp_path / "s"
    assert run("ingest", pgn(tmp_path / "m.pgn", games), "--store", str(root)) == 0
    assert run("rate", "--system", "glicko2", "--store", str(root)) == 0
    store = Store(root)
    # a December-dated game and the year's year-only games share one period
    table = pq.read_table(store.game_files("standard", 185912))
    assert sorted(table.column("date_precision").to_pylist()) == ["day", "year"]

    def open_years(player: str) -> list[int]:
        _, ax = plots.history_figure(store, [f"m.pgn:{player}"], "glicko2")
        lines = [line for line in ax.get_lines() if line.get_markerfacecolor() == "white"]
        years = sorted(d.year for line in lines for d in line.get_xdata())
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert (plots.COARSE_LABEL in texts) == bool(years)
        return years

    assert open_years("Morphy, Paul") == [1858, 1859, 1860]
    assert open_years("Anderssen, Adolf") == [1858, 1860]
    assert open_years("Lowenthal, Johann") == [1858, 1860]


def test_shared_opponents_match_by_surname_and_first_initial(tmp_path):
    """identity.md evidence table: shared opponents by surname and first initial.
    "Lowenthal, J." and "Lowenthal, Johann Jacob" are one opponent (0.6 -> 0.65 for
    the Morphy pair); "Zukertort, Jan" and "Zukertort, Johannes" are not."""
    a = pgn(
        tmp_path / "a.pgn",
        [
            ("1858.??.??", "Morphy, P.", "Lowenthal, J.", "1-0"),
            ("1886.??.??", "Steinitz, W.", "Zukertort, Jan", "1-0"),
        ],
    )
    b = pgn(
        tmp_path / "b.pgn",
        [
            ("1858.??.??", "Morphy, Paul", "Lowenthal, Johann Jacob", "1-0"),
            ("1886.??.??", "Steinitz, William", "Zukertort, Johannes", "1-0"),
        ],
    )
    root = tmp_path / "s"
    assert run("ingest", a, b, "--store", str(root)) == 0
    got = identity.candidates(Store(root))
    rows = {(k, d): (e, s) for k, d, e, s in got.iter_rows()}
    assert rows[("b.pgn:Morphy, Paul", "a.pgn:Morphy, P.")] == (
        "abbreviated given name; years 1858-1858 and 1858-1858; 1 shared opponent(s)",
        0.65,
    )
    assert rows[("b.pgn:Lowenthal, Johann Jacob", "a.pgn:Lowenthal, J.")][1] == 0.65
    assert rows[("b.pgn:Steinitz, William", "a.pgn:Steinitz, W.")] == (
        "abbreviated given name; years 1886-1886 and 1886-1886",
        0.6,
    )


@pytest.mark.parametrize(
    ("x", "y", "same"),
    [
        (("iohanes", "J."), ("iohanes", "Johannes Hermann"), True),
        (("iohanes", "Jan"), ("iohanes", "Johannes"), False),
        (("iohanes", "Johannes"), ("iohanes", "Johannes"), True),
        (("iohanes", "C."), ("iohanes", "Charles"), True),  # key "harles", initial "c"
    ],
)
def test_same_opponent_initial_rule(x, y, same):
    def name(surname_key: str, given: str):
        sur, g = identity.matching_name(f"Zukertort, {given}")
        key = identity.phonetic_key(sur, g)
        return key[0], "".join(key[1][:1]), "".join(g[:1])

    assert identity._same_opponent(name(*x), name(*y)) is same


def test_history_plot_dots_only_periods_with_games(tmp_path, monkeypatch):
    """fide-history.md: a FIDE history labels a rated period without games "games";
    `history --plot` drew its "period with games" dot (P002: 85 of 164 dots)."""
    frame = pl.DataFrame(
        [
            (200907, "games", 1800.0, 5.0, 1805.0, 4, 2.5, 20.0, "rated"),
            (200909, "games", 1805.0, 0.0, 1805.0, 0, 0.0, 20.0, "rated"),
            (200911, "games", 1805.0, -3.0, 1802.0, 2, 0.5, 20.0, "rated"),
        ],
        schema=history._SCHEMA,
        orient="row",
    )
    figures = []
    real = plots._figure

    def keep(*args, **kwargs):
        figures.append(real(*args, **kwargs))
        return figures[-1]

    monkeypatch.setattr(plots, "_figure", keep)
    history.plot_history(frame, tmp_path / "h.png", "P002")
    ((_, ax),) = figures
    (dots,) = [line for line in ax.get_lines() if line.get_label() == "period with games"]
    assert [(d.year, d.month) for d in dots.get_xdata()] == [(2009, 7), (2009, 11)]
