"""Analyst round 5 (docs/analysis.md "Views", docs/schemas.md): ``period_summary.games``
is the period's stored rated games whatever the system counts on each side; the
``ratings`` and ``games`` views keep the column order of docs/schemas.md (the games
files' player keys hidden); a PIVOT without an ``IN`` list is refused with a message
that says what to write; ``plot history`` on abstract periods has whole-number ticks."""

from __future__ import annotations

import polars as pl
import pyarrow.parquet as pq
import pytest

import arpad
from arpad.pipeline import catalog, plots, schemas
from arpad.pipeline.sql import check_statement, run_readonly_sql
from arpad.pipeline.store import Store
from tests.conftest import write_csv


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory) -> arpad.Store:
    """a and b rated (FIDE 2000/1900), c and d unrated. Period 1: a-b, a-c, c-d rated,
    one b-a game stored unrated; period 2: a-b."""
    tmp = tmp_path_factory.mktemp("round5")
    players = write_csv(tmp / "players.csv", "player_id,rating", ["a,2000", "b,1900"])
    games = write_csv(
        tmp / "games.csv",
        "period,white_id,black_id,result,rated",
        ["1,a,b,1-0,true", "1,a,c,1-0,true", "1,c,d,1/2-1/2,true", "1,b,a,1-0,false",
         "2,a,b,0-1,true"],
    )  # fmt: skip
    store = arpad.Store(tmp / "store")
    store.ingest(str(games), players=str(players))
    for system in ("fide", "elo"):
        store.rate(system)
    return store


def test_period_summary_games_are_the_periods_rated_games_for_every_system(mixed_store):
    # FIDE counts a-c only on c's side and c-d on neither: its rows' games sum to 3 in
    # period 1, and half of that (1.5, shown as 2) was the view's figure
    sums = mixed_store.sql(
        "SELECT period, sum(games)::INT AS g FROM ratings WHERE system = 'fide' GROUP BY 1 ORDER BY 1"
    )
    assert sums["g"].to_list() == [3, 2]
    for system in ("fide", "elo"):
        got = mixed_store.sql(
            "SELECT period, games FROM period_summary WHERE system = ? ORDER BY period", system
        )
        # three rated games in period 1 (the unrated b-a game is not one), one in period 2
        assert got["games"].to_list() == [3, 1], system
        assert got["games"].dtype == pl.Int64


def test_period_summary_games_on_deloitte_fide_are_the_months_games(bundled_data, tmp_path):
    folder = bundled_data / "deloitte_fide_2011"
    store = arpad.Store(tmp_path / "sd")
    store.ingest(str(folder / "test_solution.csv"), players=str(folder / "initial_ratings.csv"))
    store.rate("fide")
    store.rate("elo")
    # naive: the month's real games (the contest's decoys, WhiteScore -1, are quarantined)
    real = (
        pl.read_csv(folder / "test_solution.csv")
        .filter(pl.col("WhiteScore").is_in([0.0, 0.5, 1.0]))
        .group_by("MonthID")
        .len()
        .sort("MonthID")
    )
    assert real["len"][0] == 28_460  # month 133, the analyst's hand count
    for system in ("fide", "elo"):
        got = store.sql(
            "SELECT period, games FROM period_summary WHERE system = ? ORDER BY period", system
        )
        assert got["period"].to_list() == real["MonthID"].to_list()
        assert got["games"].to_list() == real["len"].to_list(), system


def _memory_result() -> pl.DataFrame:
    games = pl.DataFrame({"period": [1], "white_id": ["a"], "black_id": ["b"], "result": ["1-0"]})
    return arpad.rate(games, system="elo")


def test_ratings_and_games_views_follow_the_schemas_order(mixed_store):
    ratings = mixed_store.sql("SELECT * FROM ratings ORDER BY system, period, player_id")
    assert ratings.columns == schemas.RATINGS.names  # was player_id, …, period, pool, system
    memory = _memory_result()
    assert pl.concat([memory, ratings]).height == memory.height + ratings.height
    games = mixed_store.sql("SELECT * FROM games")
    # the schema's columns; the files' white_key/black_key (the store's integer player
    # keys, read by the engine from the files) are not the view's
    assert games.columns == schemas.GAMES.names
    assert games["period"].dtype == pl.Int32
    # the catalog file (arpad's own reads) has the same columns
    con = catalog.connect(Store(mixed_store.path))
    try:
        assert con.sql("SELECT * FROM ratings").columns == schemas.RATINGS.names
        assert con.sql("SELECT * FROM games").columns == schemas.GAMES.names
    finally:
        con.close()


def test_views_bind_over_files_without_audit_columns_and_keep_extra_ones(tmp_path):
    """A ratings file of an older store (no rules, rules_hash, run_id) or with a column of
    its own: the view still binds, those columns absent or last."""
    games = write_csv(tmp_path / "g.csv", "period,white_id,black_id,result", ["1,a,b,1-0"])
    store = arpad.Store(tmp_path / "s")
    store.ingest(str(games))
    store.rate("elo")
    (part,) = (store.path / "ratings").rglob("*.parquet")
    table = pq.read_table(part).drop_columns(["rules", "rules_hash", "run_id"])
    pq.write_table(table.append_column("mine", table.column("games")), part)
    want = [n for n in schemas.RATINGS.names if n not in ("rules", "rules_hash", "run_id")]
    for got in (
        run_readonly_sql(Store(store.path), "SELECT * FROM ratings", []).columns,
        catalog.connect(Store(store.path)).sql("SELECT * FROM ratings").columns,
    ):
        assert got == [*want, "mine"]


@pytest.mark.parametrize(
    "query",
    [
        "PIVOT ratings ON system USING avg(rating_after)",
        "SELECT * FROM (pivot ratings ON system USING avg(rating_after))",
        "EXPLAIN PIVOT ratings ON system USING avg(rating_after)",
    ],
)
def test_a_pivot_without_in_list_says_to_list_the_values(query):
    with pytest.raises(ValueError) as raised:
        check_statement(query)
    message = str(raised.value)
    assert "MULTI" not in message
    assert message.startswith("arpad sql is read-only: a PIVOT without an IN list")
    assert "ON col IN ('a', 'b')" in message


def test_a_pivot_with_in_list_runs(mixed_store):
    got = mixed_store.sql(
        "PIVOT (SELECT system, period, rating_after FROM ratings WHERE player_id = 'a') "
        "ON system IN ('elo', 'fide') USING max(rating_after) GROUP BY period ORDER BY period"
    )
    assert got.columns == ["period", "elo", "fide"] and got.height == 2


def test_plot_history_on_abstract_periods_has_whole_number_ticks(tmp_path):
    games = write_csv(
        tmp_path / "g.csv",
        "period,white_id,black_id,result",
        ["133,a,b,1-0", "134,b,a,1/2-1/2", "135,a,b,0-1"],
    )
    store = arpad.Store(tmp_path / "s")
    store.ingest(str(games))
    store.rate("elo")
    fig, ax = plots.history_figure(Store(store.path), ["a"], "elo")
    fig.canvas.draw()
    low, high = ax.get_xlim()
    shown = [t for t in ax.get_xticks() if low <= t <= high]
    assert shown == [133, 134, 135]  # were 133.00, 133.25, …, 135.00
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all("." not in text for text in labels)


def test_hidden_games_columns_are_the_store_player_keys():
    from arpad.pipeline.keys import KEY_COLUMNS

    assert catalog.HIDDEN_COLUMNS["games"] == KEY_COLUMNS  # quarantine: its batch= key
