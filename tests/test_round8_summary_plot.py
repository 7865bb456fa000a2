"""`arpad plot history` of a one-period history draws the movement, from the rating
before the period (at the month before) to the rating after, on an axis of those
months, not a lone dot on an axis of 2023–2027 (round 8, newuser8 #5b; docs/cli.md
"arpad plot"). Histories of several periods are drawn as before."""

from __future__ import annotations

import datetime as dt

import matplotlib.dates as mdates
import pytest

from arpad.pipeline import plots
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

PLAYERS = "player_id,name,rating\n1001,M,2105\n1002,O,1950\n1003,Z,1820\n1004,D,2210\n"
JAN = "2025-01-11,1001,1002,1-0\n2025-01-18,1004,1001,1-0\n2025-01-11,1003,1004,1/2-1/2\n"


def _ingest_rate(tmp_path, root, name: str, games: str, players: str | None = None) -> None:
    (tmp_path / name).write_text("date,white_id,black_id,result\n" + games)
    extra = []
    if players is not None:
        (tmp_path / "p.csv").write_text(players)
        extra = ["--players", str(tmp_path / "p.csv")]
    assert main(["ingest", str(tmp_path / name), *extra, "--store", root, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0


def _days(ax) -> tuple[dt.date, dt.date]:
    low, high = ax.get_xlim()
    return mdates.num2date(low).date(), mdates.num2date(high).date()


@pytest.fixture
def one_month(tmp_path):
    root = str(tmp_path / "S")
    _ingest_rate(tmp_path, root, "jan.csv", JAN, PLAYERS)
    return root


def test_one_period_is_drawn_from_the_rating_before(one_month):
    _fig, ax = plots.history_figure(Store(one_month), ["1001", "1004"], "fide")
    m, d = ax.get_lines()
    months = [dt.date(2024, 12, 1), dt.date(2025, 1, 1)]
    assert list(m.get_xdata(orig=True)) == months == list(d.get_xdata(orig=True))
    # by hand (FIDE B.02 table 8.1.2, docs/rules.md; K 20):
    # 1001 +0.29 − 0.36 = −0.07 → −1.4 → −1;
    # 1004 +0.36 (D +105, PD 0.64) + 0.5 − 0.91 (D +390) = −0.05 → −1
    assert list(m.get_ydata(orig=True)) == [2105, 2104]
    assert list(d.get_ydata(orig=True)) == [2210, 2209]
    low, high = _days(ax)  # the data's month and a margin: not ±2 years
    assert dt.date(2024, 11, 25) < low < dt.date(2024, 12, 1)
    assert dt.date(2025, 1, 1) < high < dt.date(2025, 1, 7)


def test_a_lone_point_without_a_rating_before_keeps_to_its_month(tmp_path):
    players = "player_id,name,rating\n" + "".join(f"A{i},A{i},{1800 + 50 * i}\n" for i in range(5))
    games = "".join(f"2025-01-1{i},N,A{i},{'1-0' if i % 2 else '0-1'}\n" for i in range(5))
    root = str(tmp_path / "S")
    _ingest_rate(tmp_path, root, "n.csv", games, players)
    _fig, ax = plots.history_figure(Store(root), ["N"], "fide")  # an initial rating (§8.2)
    (line,) = ax.get_lines()
    assert list(line.get_xdata(orig=True)) == [dt.date(2025, 1, 1)]
    assert _days(ax) == (dt.date(2024, 12, 1), dt.date(2025, 2, 1))


def test_several_periods_are_drawn_as_before(tmp_path, one_month):
    _ingest_rate(tmp_path, one_month, "feb.csv", "2025-02-11,1001,1002,1-0\n")
    _fig, ax = plots.history_figure(Store(one_month), ["1001", "1003"], "fide")
    m, z = ax.get_lines()
    # 1001 played in both months: the ratings after each, as before
    assert list(m.get_xdata(orig=True)) == [dt.date(2025, 1, 1), dt.date(2025, 2, 1)]
    assert m.get_ydata(orig=True)[0] == 2104
    # 1003 played in January only: his line ends there (its last period with games),
    # one period drawn from the rating before it
    assert list(z.get_xdata(orig=True)) == [dt.date(2024, 12, 1), dt.date(2025, 1, 1)]
    assert z.get_ydata(orig=True)[0] == 1820
