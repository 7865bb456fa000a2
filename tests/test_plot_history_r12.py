"""Historian round 12, finding 3: ``arpad plot history`` drew each player as a plain
polyline with a marker on every ratings row, including a period where the player
played no game (status ``inactive``, a row that exists because others played), so a
gap of years read as a gradual trend. It now draws as ``arpad history --plot`` does: a
step line (the rating holds until the next row) with dots only where the player played
(docs/analysis.md "Plots", docs/fide-history.md "History and plot")."""

from __future__ import annotations

import datetime as dt

import matplotlib.dates as mdates
import numpy as np
import pytest

from arpad.pipeline import plots
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

# A plays in January 2000 and January 2001; in June 2000 only B and C play, so A has an
# ``inactive`` row there (rating unchanged, no game).
GAMES = (
    "date,white_id,black_id,result\n"
    "2000-01-10,A,B,1-0\n"
    "2000-01-11,B,A,1/2-1/2\n"
    "2000-06-10,B,C,0-1\n"
    "2001-01-10,A,C,0-1\n"
)
JAN00, JUN00, JAN01 = dt.date(2000, 1, 1), dt.date(2000, 6, 1), dt.date(2001, 1, 1)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.csv").write_text(GAMES)
    root = str(tmp_path / "S")
    assert main(["ingest", "g.csv", "--store", root, "--no-flow"]) == 0
    for system in ("elo", "glicko2"):
        assert main(["rate", "--system", system, "--store", root, "--no-flow"]) == 0
    return root


def _captured(monkeypatch) -> list:
    """The (figure, axes) pairs drawn while the test runs (plots._figure's)."""
    figures = []
    real = plots._figure

    def keep(*args, **kwargs):
        figures.append(real(*args, **kwargs))
        return figures[-1]

    monkeypatch.setattr(plots, "_figure", keep)
    return figures


def _marked(line) -> list:
    """The x positions where ``line`` draws a marker."""
    xs = list(line.get_xdata(orig=True))
    every = line.get_markevery()
    return xs if every is None else [xs[i] for i in every]


def test_plot_history_is_a_step_line_with_dots_where_the_player_played(store):
    _fig, ax = plots.history_figure(Store(store), ["A"], "elo")
    (line,) = ax.get_lines()
    assert line.get_drawstyle() == "steps-post"
    # every row is on the line (the June row holds the January rating) ...
    assert list(line.get_xdata(orig=True)) == [JAN00, JUN00, JAN01]
    # Elo K 20 by hand: A 1.5/2 against B (1500, E 0.5 each) → 1510; C beat B (1490)
    # in June: 1500 + 20 × (1 − 0.5144) = 1509.71; A loses to C: E 0.5004 → −10.008
    np.testing.assert_allclose(line.get_ydata(orig=True), [1510.0, 1510.0, 1499.9917], atol=1e-3)
    # ... but the dots are the periods with games only: not the inactive June 2000
    assert line.get_marker() == "o"
    assert _marked(line) == [JAN00, JAN01]


def test_plot_history_and_history_plot_agree(store, tmp_path, monkeypatch):
    figures = _captured(monkeypatch)
    out = tmp_path / "multi.png"
    argv = ["plot", "history", "A", "--system", "elo", "--store", store, "--output", str(out)]
    assert main(argv) == 0
    argv = ["history", "A", "--system", "elo", "--store", store, "--plot", str(tmp_path / "a.png")]
    assert main(argv) == 0
    (_, multi), (_, single) = figures
    (line,) = multi.get_lines()
    step = next(ln for ln in single.get_lines() if ln.get_label() == "rating after the period")
    dots = next(ln for ln in single.get_lines() if ln.get_label() == "period with games")
    assert line.get_drawstyle() == step.get_drawstyle() == "steps-post"
    assert list(line.get_xdata(orig=True)) == list(step.get_xdata(orig=True))
    assert _marked(line) == list(dots.get_xdata(orig=True)) == [JAN00, JAN01]


def test_rd_band_is_a_step_band(store):
    """Glicko-2: the ±2 RD band holds with the line, flat up to the next row."""
    from arpad.pipeline import catalog

    _fig, ax = plots.history_figure(Store(store), ["A"], "glicko2")
    (line,) = ax.get_lines()
    assert line.get_drawstyle() == "steps-post" and _marked(line) == [JAN00, JAN01]
    con = catalog.connect(Store(store))
    try:
        rows = con.execute(
            "SELECT period, rating, rd FROM player_history WHERE system = 'glicko2' "
            "AND player_id = 'A' ORDER BY period"
        ).fetchall()
    finally:
        con.close()
    assert [r[0] for r in rows] == [200001, 200006, 200101]
    (band,) = ax.collections
    verts = band.get_paths()[0].vertices
    jan, jun = mdates.date2num(JAN00), mdates.date2num(JUN00)
    top_jan = rows[0][1] + 2 * rows[0][2]
    # the top edge is a step band (a sloped one had June's value at June only); since
    # round 14 it steps up a month at a time while A is away, his RD aged as Glicko-2
    # ages it (tests/test_history_r14.py): at June from May's aged RD to June's own
    at_june = verts[np.isclose(verts[:, 0], jun), 1]
    upper = np.sort(at_june[at_june > rows[0][1]])
    top_jun = rows[1][1] + 2 * rows[1][2]
    assert len(upper) == 2 and np.isclose(upper[1], top_jun)
    assert top_jan < upper[0] < top_jun
    assert np.isclose(verts[np.isclose(verts[:, 0], jan), 1], top_jan).any()
    assert rows[1][2] != rows[0][2]  # the RD grew while inactive: the values differ
