"""A reconstruction of the five bundled PGN files in one store (issue 14; docs/observations.md,
docs/pgn-trf.md "Imprecise dates"): nobody is on a list before his first game or
observation, year-only games are rated in the year's last month and flagged, the 1886
list of active players is Steinitz and Zukertort, FIDE lists start with the Elo tags."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.activity import active_only
from arpad.pipeline.cli import main
from arpad.pipeline.lists import list_frame
from arpad.pipeline.precision import period_precision
from arpad.pipeline.store import Store

LISTED = ("rated", "new", "provisional", "inactive")


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


@pytest.fixture(scope="module")
def history(shared_data, tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("history") / "s"
    files = sorted(str(p) for p in (shared_data / "pgn").glob("*.pgn"))
    assert len(files) == 5
    # exit 2: Capablanca.pgn has one unfinished game, quarantined; the rest is stored
    assert run("ingest", "--store", str(root), *files) in (0, 2)
    for system in ("elo", "fide"):
        assert run("rate", "--system", system, "--store", str(root)) == 0
    return Store(root)


def first_game(store: Store) -> dict[str, int]:
    con = catalog.connect(store)
    try:
        rows = con.execute(
            "SELECT player_id, min(period) FROM ("
            " SELECT white_id AS player_id, period FROM games"
            " UNION ALL SELECT black_id, period FROM games) GROUP BY player_id"
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def first_observation(store: Store) -> dict[str, int]:
    con = catalog.connect(store)
    try:
        rows = con.execute(
            "SELECT player_id, min(period) FROM ("
            " SELECT white_id AS player_id, period FROM games"
            "  WHERE white_rating IS NOT NULL AND pool = 'standard'"
            " UNION ALL SELECT black_id, period FROM games"
            "  WHERE black_rating IS NOT NULL AND pool = 'standard') GROUP BY player_id"
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def listed(store: Store, system: str) -> list[tuple[int, str]]:
    out = []
    for period in store.rating_periods(system, "standard"):
        table = store.read_ratings(system, "standard", period)
        for row in table.select(["player_id", "rating_after", "status"]).to_pylist():
            if row["status"] in LISTED and row["rating_after"] is not None:
                out.append((period, row["player_id"]))
    return out


def test_year_only_games_are_rated_in_the_years_last_month(history):
    assert history.periods("standard")[:3] == [185112, 188612, 190112]
    counts = period_precision(history, "standard", 185112)
    assert counts["year"] == sum(counts.values()) > 0
    files = history.game_files("standard", 202201)
    assert set(pq.read_table(files).column("date_precision").to_pylist()) == {"day"}


def test_nobody_is_listed_before_his_first_game(history):
    first = first_game(history)
    for period, player in listed(history, "elo"):
        assert first[player] <= period, (player, period)


def test_fide_lists_start_from_the_first_observation(history):
    seen = first_observation(history)
    rows = listed(history, "fide")
    assert rows and min(p for p, _ in rows) == 201812  # no Elo tag before KingBase
    for period, player in rows:
        # rated from a tag, or rated as a newcomer from his games (also at/after a tag)
        assert player in seen or period >= 201812, (player, period)
        if player in seen:
            assert seen[player] <= period, (player, period)
    carlsen = history.read_ratings("fide", "standard", 202201).to_pylist()
    carlsen = next(r for r in carlsen if r["player_id"] == "1503014")
    assert carlsen["rating_before"] == 2865  # his Tata Steel 2022 tag, not before
    assert all(player != "1503014" for p, player in rows if p < 202201)


def test_the_1886_list_of_active_players(history, capsys):
    frame, period = list_frame(history, "elo", "standard", 188612)
    # Without --active, the London 1851 players are still on it (inactive, rated from
    # 1851), unranked, after the ranked active players: Steinitz and Zukertort on top.
    inactive = frame.filter(frame["status"] == "inactive")
    assert inactive.height > 0 and inactive["rank"].is_null().all()
    assert frame["name"].to_list()[:2] == ["Steinitz, William", "Zukertort, Johannes Hermann"]
    assert frame["rank"].to_list()[:3] == [1, 2, None]
    active = active_only(frame, history, "elo", "standard", period, 24)
    names = active.get_column("name").to_list()
    assert names[:2] == ["Steinitz, William", "Zukertort, Johannes Hermann"]
    assert active.get_column("rank").to_list()[:2] == [1, 2]
    capsys.readouterr()
    args = ["list", "--store", str(history.root), "--system", "elo", "--period", "188612"]
    assert main([*args, "--active", "24"]) == 0
    out = capsys.readouterr().out
    assert "2 players" in out and "20 known only to the year" in out
    assert "Steinitz" in out and "Anderssen" not in out
    assert main([*args, "--active", "0"]) == 2
    assert "--active takes a positive number of months" in capsys.readouterr().err


def test_history_plot_marks_year_only_periods(history, tmp_path):
    from arpad.pipeline.plots import COARSE_LABEL, history_figure, plot_history

    steinitz = ["WorldChamp1886.pgn:Steinitz, William"]
    out = plot_history(history, steinitz, "elo", tmp_path / "h.png")
    assert out.exists() and out.stat().st_size > 0
    _, ax = history_figure(history, steinitz, "elo")
    assert COARSE_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
    open_markers = [line for line in ax.get_lines() if line.get_markerfacecolor() == "white"]
    assert open_markers and all(d.year == 1886 for d in open_markers[0].get_xdata())
    (bar,) = [c for c in ax.collections if len(c.get_segments()) == 1]  # the year's span
    (start, y0), (end, y1) = bar.get_segments()[0]
    assert (y0, y1) == (open_markers[0].get_ydata()[0],) * 2 and end - start == 364


def test_bundled_trf_files_keep_their_pools_and_dates(shared_data, tmp_path):
    """The issue's TRF store: the 2005 standard list holds only the 2005 tournament's
    players, none of the 2020 Lichess (blitz/bullet) players."""
    root = tmp_path / "t"
    files = sorted(str(p) for p in (shared_data / "trf").glob("*.trf"))
    assert run("ingest", "--store", str(root), *files) in (0, 2)
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    store = Store(root)
    con = catalog.connect(store)
    try:
        played = {
            period: {
                r[0]
                for r in con.execute(
                    "SELECT white_id FROM games WHERE period = ? AND pool = 'standard' UNION "
                    "SELECT black_id FROM games WHERE period = ? AND pool = 'standard'",
                    [period, period],
                ).fetchall()
            }
            for period in store.periods("standard")
        }
        lichess = {
            r[0]
            for r in con.execute(
                "SELECT white_id FROM games WHERE pool = 'blitz' UNION "
                "SELECT black_id FROM games WHERE pool = 'blitz'"
            ).fetchall()
        }
    finally:
        con.close()
    assert lichess and 200507 in played
    first = dict(listed(store, "fide")[:1])
    assert first  # the 2005 list is not empty
    for period, player in listed(store, "fide"):
        assert player not in lichess, (player, period)
        if period == 200507:
            assert player in played[200507], player
