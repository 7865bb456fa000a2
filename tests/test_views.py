"""Historical views (docs/lists.md "A list on a date", docs/analysis.md): the list on a
date, several players' histories on one dated axis, and the era table."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest

import arpad
from arpad.pipeline import catalog, engine, plots
from arpad.pipeline.cli import main
from arpad.pipeline.era import era_table
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.periods import PeriodError, parse_list_date, period_at
from arpad.pipeline.store import Store
from tests.conftest import write_csv

PNG = b"\x89PNG\r\n\x1a\n"

# Players of the 1880s (names only: no published ratings, so Elo and Glicko-2 rate from
# nothing). Two Laskers make "Lasker" ambiguous.
PLAYERS = [
    's,"Steinitz, Wilhelm",AUT',
    'z,"Zukertort, Johannes",GER',
    'c,"Chigorin, Mikhail",RUS',
    'b,"Blackburne, Joseph",ENG',
    'l,"Lasker, Emanuel",GER',
    'e,"Lasker, Edward",GER',
    'm,"Mason, James",USA',
]
GAMES = [
    # 1885: s, z, b, m play; c only in 1886+
    "1885-02-10,s,z,1-0",
    "1885-02-12,z,b,1-0",
    "1885-06-01,b,m,1/2-1/2",
    "1885-06-03,m,s,0-1",
    # 1886: the match (January-March), Chigorin and Mason later
    "1886-01-11,z,s,1-0",
    "1886-01-20,s,z,0-1",
    "1886-02-05,s,z,1-0",
    "1886-03-01,z,s,0-1",
    "1886-03-20,s,z,1-0",
    "1886-07-01,c,m,1-0",
    "1886-07-02,m,c,1/2-1/2",
    # 1889: a gap of two years; Laskers appear
    "1889-05-01,c,s,1-0",
    "1889-05-02,l,e,1-0",
    "1889-05-03,e,b,0-1",
    "1889-08-01,l,b,1-0",
]


@pytest.fixture(scope="module")
def history_store(tmp_path_factory) -> Store:
    tmp = tmp_path_factory.mktemp("views")
    players = write_csv(tmp / "players.csv", "player_id,name,federation", PLAYERS)
    games = write_csv(tmp / "games.csv", "date,white_id,black_id,result", GAMES)
    store = Store(tmp / "store")
    ingest_files(store, [games], players=[players])
    engine.rate(store, "elo")
    engine.rate(store, "glicko2")
    return store


def ratings(store: Store, system: str) -> pl.DataFrame:
    con = catalog.connect(store)
    try:
        return catalog.query_frame(
            con, "SELECT * FROM ratings WHERE system = ? AND pool = 'standard'", [system]
        )
    finally:
        con.close()


# -- dates to periods --------------------------------------------------------------------
def test_parse_list_date_names_the_last_day():
    assert parse_list_date("1886") == dt.date(1886, 12, 31)
    assert parse_list_date("1886-03") == dt.date(1886, 3, 31)
    assert parse_list_date("1886-02") == dt.date(1886, 2, 28)
    assert parse_list_date("1888-02") == dt.date(1888, 2, 29)  # leap year
    assert parse_list_date("1886-03-15") == dt.date(1886, 3, 15)
    for bad in ("1886-13", "1886-02-30", "March 1886", "18860315", ""):
        with pytest.raises(PeriodError, match="is not a date"):
            parse_list_date(bad)


def test_period_at_is_the_latest_period_at_or_before():
    rated = [188502, 188506, 188601, 188602, 188603, 188607, 188905, 188908]
    assert period_at("1886-03", rated) == 188603
    assert period_at("1886-03-15", rated) == 188603  # the month containing the day
    assert period_at("1886-03-01", rated) == 188603
    assert period_at("1886-02-28", rated) == 188602
    assert period_at("1886-05", rated) == 188603  # no games in April or May
    assert period_at("1886", rated) == 188607
    assert period_at("1888", rated) == 188607  # nothing rated in 1887-1888
    assert period_at("1950", rated) == 188908
    with pytest.raises(PeriodError, match="before the list's first rated period 1885-02"):
        period_at("1885-01", rated)
    with pytest.raises(PeriodError, match="no dated periods"):
        period_at("1886", [1, 2, 3])  # abstract period numbers (Kaggle)


# -- arpad list --date ---------------------------------------------------------------------
def test_list_date_cli_and_api(history_store, capsys):
    root = str(history_store.root)
    r = ratings(history_store, "elo")
    for date, period in (("1886-03", 188603), ("1886", 188607), ("1886-03-15", 188603)):
        assert main(["list", "--system", "elo", "--store", root, "--date", date]) == 0
        out = capsys.readouterr().out
        head = out.splitlines()[0]
        label = f"{period // 100}-{period % 100:02d}"
        assert head.startswith(f"elo / standard / list of {date} = period {label}")
        listed = r.filter(
            (pl.col("period") == period)
            & pl.col("status").is_in(["rated", "new", "provisional", "inactive"])
            & pl.col("rating_after").is_not_null()
        )
        assert head.endswith(f": {listed.height} players")
        api = arpad.Store(root).list("elo", date=date)
        by_period = arpad.Store(root).list("elo", period=period)
        assert api.equals(by_period)
        assert set(api["player_id"]) == set(listed["player_id"])
    # Chigorin has no game before July 1886, the Laskers none before 1889
    march = arpad.Store(root).list("elo", date="1886-03")
    assert not {"c", "l", "e"} & set(march["player_id"])


def test_list_date_errors_exit_2(history_store, capsys):
    root = str(history_store.root)
    assert main(["list", "--system", "elo", "--store", root, "--date", "1884-12"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "before the elo/standard list's first" in err
    assert main(["list", "--system", "elo", "--store", root, "--date", "1886-14"]) == 2
    assert "is not a date" in capsys.readouterr().err
    argv = ["list", "--system", "elo", "--store", root, "--date", "1886", "--period", "188601"]
    assert main(argv) == 2
    assert "not allowed with argument --date" in capsys.readouterr().err
    with pytest.raises(ValueError, match="period or date"):
        arpad.Store(root).list("elo", period=188601, date="1886")
    assert main(["list", "--system", "nope", "--store", root]) == 2
    assert "unknown rating system 'nope'" in capsys.readouterr().err


def test_list_date_csv_says_the_period_on_stderr(history_store, capsys):
    root = str(history_store.root)
    argv = ["list", "--system", "elo", "--store", root, "--date", "1886", "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("rank,player_id")
    assert "period 1886-07" in err


# -- plot history --------------------------------------------------------------------------
def test_plot_history_several_players_on_dated_axis(history_store, tmp_path):
    fig, ax = plots.history_figure(history_store, ["Steinitz", "z", "Chigorin, M."], "glicko2")
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == [
        "Steinitz, Wilhelm",
        "Zukertort, Johannes",
        "Chigorin, Mikhail",
    ]
    r = ratings(history_store, "glicko2").filter(pl.col("rating_after").is_not_null())
    assert r.filter(pl.col("player_id") == "s")["period"].max() == 188908  # rated, no games
    # each line ends at the player's last period with games (Steinitz: 1889-05, not 1889-08)
    r = r.filter(
        pl.col("period") <= pl.col("period").filter(pl.col("games") > 0).max().over("player_id")
    )
    assert r.filter(pl.col("player_id") == "s")["period"].max() == 188905
    for pid, line in zip("szc", lines, strict=True):
        mine = r.filter(pl.col("player_id") == pid).sort("period")
        xs = list(line.get_xdata(orig=True))
        assert all(isinstance(x, dt.date) for x in xs)
        assert xs == [dt.date(p // 100, p % 100, 1) for p in mine["period"]]
        np.testing.assert_allclose(line.get_ydata(orig=True), mine["rating_after"].to_numpy())
    # one band per player: rating ± 2 RD
    bands = ax.collections
    assert len(bands) == 3
    s = r.filter(pl.col("player_id") == "s").sort("period")
    verts = bands[0].get_paths()[0].vertices[:, 1]
    want = np.concatenate(
        [s["rating_after"] - 2 * s["rd_after"], s["rating_after"] + 2 * s["rd_after"]]
    )
    # every stored row's limits are drawn; between two rows months apart the RD is aged
    # month by month (round 14, tests/test_history_r14.py), so the band may be wider
    assert all(np.isclose(verts, w).any() for w in want)
    assert verts.min() <= want.min() + 1e-9 and verts.max() >= want.max() - 1e-9
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[-1] == "band: ±2 RD (≈95%)"
    assert "Steinitz, Wilhelm" in ax.get_title() and "Chigorin, Mikhail" in ax.get_title()
    assert ax.get_xlabel() == "date"
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_plot_history_without_rd_has_no_band(history_store):
    fig, ax = plots.history_figure(history_store, ["s"], "elo")
    assert len(ax.collections) == 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Steinitz, Wilhelm"]
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_plot_history_cli_writes_png_and_resolves_names(history_store, tmp_path, capsys):
    root = str(history_store.root)
    png = tmp_path / "h.png"
    argv = ["plot", "history", "Steinitz", "Zukertort, J", "Lasker, Emanuel"]
    assert main([*argv, "--system", "glicko2", "--store", root, "--output", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG
    one = tmp_path / "one.png"  # the one-player form, by id
    assert (
        main(["plot", "history", "s", "--system", "elo", "--store", root, "--output", str(one)])
        == 0
    )
    assert one.read_bytes()[:8] == PNG
    capsys.readouterr()
    bad = tmp_path / "bad.png"
    assert (
        main(
            ["plot", "history", "Lasker", "--system", "elo", "--store", root, "--output", str(bad)]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert (
        "matches 2 players" in err and "e (Lasker, Edward)" in err and "l (Lasker, Emanuel)" in err
    )
    assert not bad.exists()
    assert (
        main(
            ["plot", "history", "Morphy", "--system", "elo", "--store", root, "--output", str(bad)]
        )
        == 2
    )
    assert "no elo/standard history" in capsys.readouterr().err


# -- era table ----------------------------------------------------------------------------
def naive_era(store: Store, system: str, top: int, decade: bool = False) -> list[tuple]:
    """Row by row over the ratings table: per year and player, games summed, the rating of
    the last listed period; active players only; best first, ties by id."""
    r = ratings(store, system).sort("period").to_dicts()
    names = dict(
        zip(*store.read_players().select(["player_id", "name"]).to_pydict().values(), strict=True)
    )
    games: dict = {}
    last: dict = {}
    for row in r:
        year = row["period"] // 100
        key = (year - year % 10 if decade else year, row["player_id"])
        games[key] = games.get(key, 0) + (row["games"] or 0)
        if (
            row["status"] in ("rated", "new", "provisional", "inactive")
            and row["rating_after"] is not None
        ):
            last[key] = (row["rating_after"], row["period"])
    out = []
    for y in sorted({k[0] for k in games}):
        rows = [(k[1], *last[k], games[k]) for k in last if k[0] == y and games.get(k, 0) > 0]
        rows.sort(key=lambda t: (-t[1], t[0]))
        for rank, (pid, rating, period, g) in enumerate(rows[:top], start=1):
            out.append((y, rank, pid, names[pid], round(rating, 1), g, period))
    return out


@pytest.mark.parametrize("system", ["elo", "glicko2"])
def test_era_table_matches_naive(history_store, system):
    for top, decade in ((3, False), (10, False), (2, True)):
        t = era_table(history_store, system, top=top, by="decade" if decade else "year")
        got = [
            (row[0], row[1], row[2], row[3], round(row[5], 1), row[6], row[7])
            for row in t.iter_rows()
        ]
        assert got == naive_era(history_store, system, top, decade)
    year = era_table(history_store, system, top=10)
    assert sorted(set(year["year"])) == [1885, 1886, 1889]  # no active players in 1887-88
    assert 1885 not in year.filter(pl.col("player_id") == "c")["year"].to_list()
    import arpad

    assert arpad.Store(history_store.root).era(system, top=10).equals(year)  # the Python API


def test_era_cli_formats(history_store, capsys):
    root = str(history_store.root)
    assert main(["era", "--system", "elo", "--store", root, "--top", "2", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "year,rank,player_id,name,federation,rating,games,period"
    assert len(lines) == 1 + 3 * 2
    assert (
        main(["era", "--system", "elo", "--store", root, "--by", "decade", "--format", "json"]) == 0
    )
    rows = pl.read_json(capsys.readouterr().out.encode())
    assert set(rows["decade"]) == {1880}
    assert main(["era", "--system", "elo", "--store", root]) == 0
    assert capsys.readouterr().out.startswith("elo / standard / top 10 active players by year")
    assert main(["era", "--system", "elo", "--store", root, "--top", "0"]) == 2
    assert "positive" in capsys.readouterr().err


def test_abstract_periods_have_no_dates_or_years(tmp_path, capsys):
    games = write_csv(
        tmp_path / "games.csv",
        "period,white_id,black_id,result",
        ["1,a,b,1-0", "2,b,a,1/2-1/2", "3,a,b,0-1"],
    )
    store = Store(tmp_path / "store")
    ingest_files(store, [games])
    engine.rate(store, "elo")
    root = str(store.root)
    assert main(["list", "--system", "elo", "--store", root, "--period", "2"]) == 0
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--store", root, "--date", "1886"]) == 2
    assert "no dated periods" in capsys.readouterr().err
    assert main(["era", "--system", "elo", "--store", root]) == 2
    assert "the era table needs dated periods" in capsys.readouterr().err
    fig, ax = plots.history_figure(store, ["a"], "elo")  # numbers, not dates, on the axis
    assert list(ax.get_lines()[0].get_xdata(orig=True)) == [1, 2, 3]
    assert ax.get_xlabel() == "period"
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_players_by_id_or_name(history_store):
    from arpad.pipeline import lookup
    from arpad.pipeline.lookup import resolve_players

    rated = lookup.rated_ids(history_store, "elo", "standard")
    got = resolve_players(
        history_store,
        ["steinitz, wilhelm", "Lasker, Em", "Edward Lasker", "z", "Zukertort"],
        rated,
        "elo/standard",
    )
    assert got == [
        ("s", "Steinitz, Wilhelm"),
        ("l", "Lasker, Emanuel"),
        ("e", "Lasker, Edward"),
        ("z", "Zukertort, Johannes"),  # the same player twice is drawn once
    ]
    with pytest.raises(ValueError, match=r"'E\. Lasker' matches 2 players"):
        resolve_players(history_store, ["E. Lasker"], rated, "elo/standard")
    with pytest.raises(ValueError, match=r"no elo/standard history for player\(s\) Steiner"):
        resolve_players(history_store, ["Steiner"], rated, "elo/standard")
