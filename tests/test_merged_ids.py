"""Merged ids everywhere (docs/identity.md "Merged ids everywhere"): after ``arpad
players merge KEEP DUP`` every place that shows games or ratings by player counts
DUP's games as KEEP's — the catalog views, the rating list's game counts, the card,
the history, the audit, ``arpad diff`` and the Python API — and a duplicate id
given on the command line resolves to KEEP with a note."""

from __future__ import annotations

import polars as pl
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import rating_card
from arpad.pipeline.history import rating_history
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.lists import list_frame
from arpad.pipeline.store import Store
from tests.conftest import write_csv

GAMES = [
    # X1 and X2 are one person: X1 is on the players file, X2 an id a second file made
    "g1,2025-01-05,X1,P1,1",
    "g2,2025-01-06,X2,P2,0.5",
    "g3,2025-01-07,P3,X2,0",
    "g4,2025-01-08,P1,P2,1",
    "g5,2025-02-05,X2,P3,1",
    "g6,2025-02-06,P1,P3,0.5",
]


@pytest.fixture
def merged(tmp_path) -> Store:
    pfile = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,rated_games",
        [
            '"X1","Xavier, Xenia",2000,50',
            '"P1","One, Paul",2100,50',
            '"P2","Two, Paula",1950,50',
            '"P3","Three, Pat",1900,50',
        ],
    )
    gfile = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,score", GAMES)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    root = str(store.root)
    assert main(["rate", "--no-flow", "--system", "fide", "--store", root]) == 0
    assert main(["players", "merge", "X1", "X2", "--store", root]) == 0
    assert main(["rate", "--no-flow", "--system", "fide", "--store", root]) == 0
    return store


def view(store: Store, sql: str, params=None) -> pl.DataFrame:
    con = catalog.connect(store)
    try:
        return catalog.query_frame(con, sql, params)
    finally:
        con.close()


def x_games(period: int) -> int:
    """By hand from GAMES: games of X1 or X2 in the month."""
    month = f"{str(period)[:4]}-{str(period)[4:]}"
    return sum(1 for g in GAMES if g.split(",")[1].startswith(month) and "X" in g)


def test_views_count_the_duplicates_games_as_the_keeps(merged):
    games = view(merged, "SELECT * FROM player_games ORDER BY game_id")
    assert "X2" not in {*games["white_id"], *games["black_id"]}
    assert games.filter(pl.col("white_source_id") == "X2")["game_id"].to_list() == ["g2", "g5"]
    assert games.filter(pl.col("white_id") == "X1")["game_id"].to_list() == ["g1", "g2", "g5"]
    history = view(
        merged,
        "SELECT player_id, period, games FROM player_history WHERE system = 'fide' ORDER BY period",
    )
    assert "X2" not in history["player_id"].to_list()
    x1 = history.filter(pl.col("player_id") == "X1")
    assert x1["games"].to_list() == [x_games(202501), x_games(202502)] == [3, 1]
    listed = view(merged, "SELECT DISTINCT player_id FROM rating_list")["player_id"].to_list()
    assert "X2" not in listed


def test_list_game_counts_include_the_duplicates_games(merged):
    for period in (202501, 202502):
        frame, _ = list_frame(merged, "fide", "standard", period)
        assert "X2" not in frame["player_id"].to_list()
        row = frame.filter(pl.col("player_id") == "X1").row(0, named=True)
        assert row["games"] == x_games(period)


def test_card_of_the_duplicate_is_the_keeps_card_with_a_note(merged, capsys):
    root = str(merged.root)
    capsys.readouterr()
    assert main(["card", "X2", "--period", "202501", "--store", root]) == 0  # 0: it matches
    out, err = capsys.readouterr()
    assert err.strip() == (
        "arpad: note: X2 was merged into X1 (arpad players --merges); showing X1"
    )
    assert out.startswith("Rating card: X1 ")
    assert [line.split()[-1] for line in out.splitlines() if line.rstrip().endswith(
        ("g1", "g2", "g3"))] == ["g1", "g2", "g3"]  # fmt: skip
    # the card's own arithmetic equals the stored change, which the engine computed
    # with the duplicate's games counted as X1's
    card = rating_card(merged, "X2", 202501)
    assert card.player_id == "X1" and card.matches and len(card.games) == 3
    # an opponent's duplicate id shows as the kept id, with the kept id's rating
    p2 = rating_card(merged, "P2", 202501)
    g2 = next(g for g in p2.games if g.game_id == "g2")
    assert g2.opponent == "X1" and g2.opponent_name == "Xavier, Xenia"
    assert g2.opponent_rating == 2000 and p2.matches


def test_history_audit_and_api_resolve_the_duplicate(merged, capsys):
    import arpad

    root = str(merged.root)
    want = rating_history(merged, "X1", "fide")
    assert rating_history(merged, "X2", "fide").equals(want)
    capsys.readouterr()
    assert main(["history", "X2", "--system", "fide", "--store", root]) == 0
    assert "X2 was merged into X1" in capsys.readouterr().err
    api = arpad.Store(merged.root)
    assert api.history("X2").equals(api.history("X1"))
    card = api.card("X2", 202501)
    assert card.player_id == "X1"
    from arpad.pipeline.fide_card import format_card

    assert str(card) == format_card(card) and "X1" in str(card)  # print(card): the text form
    periods, trail = api.audit("X2")
    assert periods["period"].to_list() == [202501, 202502]
    merges = trail.filter(pl.col("action") == "merge")
    assert merges.select("keep", "duplicate").rows() == [("X1", "X2")]
    assert main(["audit", "X2", "--store", root]) == 0
    assert "X2 was merged into X1" in capsys.readouterr().err


def test_diff_counts_the_duplicates_games_as_the_keeps(tmp_path):
    gfile = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,score", GAMES)
    root = tmp_path / "store"
    store = Store(root)
    ingest_files(store, [gfile])
    assert main(["rate", "--no-flow", "--system", "elo", "--store", str(root)]) == 0
    assert main(["publish", "--system", "elo", "--store", str(root), "--period", "202502"]) == 0
    assert main(["players", "merge", "X1", "X2", "--store", str(root)]) == 0
    assert main(["rate", "--no-flow", "--system", "elo", "--store", str(root)]) == 0
    from arpad.pipeline.publish import diff

    players, since = diff(store, "elo", "standard", 202502)
    # no game was added, removed or rescored: the merge moved ratings, not games
    assert players["games_added"].sum() == players["games_removed"].sum() == 0
    assert "X2" in players["player_id"].to_list()  # on the published list only
    assert since.select("action", "keep", "duplicate").rows() == [("merge", "X1", "X2")]


def test_event_categories_count_a_merged_player_once(tmp_path):
    from arpad.pipeline.tournament import store_event_categories

    rows = [
        "e1,2025-01-05,A,B,1,E,2400,2300",
        "e2,2025-01-06,C,D,1,E,2200,2100",
        "e3,2025-01-07,A,C2,0,E,2400,2200",  # C2: C under a second id
    ]
    gfile = write_csv(
        tmp_path / "g.csv",
        "game_id,date,white_id,black_id,score,event_id,white_rating,black_rating",
        rows,
    )
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile])
    assert store_event_categories(store, "E").column("players").to_pylist() == [5]
    assert main(["players", "merge", "C", "C2", "--store", str(store.root)]) == 0
    after = store_event_categories(store, "E")
    # by hand: A 2400, B 2300, C 2200, D 2100 → 4 players, average 2250
    assert after.column("players").to_pylist() == [4]
    assert after.column("average").to_pylist() == [2250.0]


def test_plot_history_of_the_duplicate_is_the_keeps(merged):
    from arpad.pipeline.plots import history_figure

    _, by_dup = history_figure(merged, ["X2"], "fide")
    _, by_keep = history_figure(merged, ["X1"], "fide")
    assert [t.get_text() for t in by_dup.get_legend().get_texts()] == ["Xavier, Xenia"]
    (a,), (b,) = by_dup.get_lines(), by_keep.get_lines()
    assert list(a.get_xdata()) == list(b.get_xdata()) and list(a.get_ydata()) == list(b.get_ydata())


def test_cards_of_a_batch_equal_the_single_cards(merged):
    """``arpad site`` makes every card of a list with one cache (each month's games read
    once and indexed by player); each card equals the one ``arpad card`` makes alone,
    the duplicate's id included."""
    cache: dict = {}
    for period in (202501, 202502):
        for pid in ("X1", "X2", "P1", "P2", "P3"):
            alone = rating_card(merged, pid, period)
            batched = rating_card(merged, pid, period, cache=cache)
            assert batched == alone, (pid, period)
    card = rating_card(merged, "X2", 202501, cache=cache)
    assert card.player_id == "X1" and len(card.games) == 3  # g1, g2, g3
