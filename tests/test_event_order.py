"""A period's events are rated in the order of their ids (as text), whatever the row
order of the games file (docs/legacy-systems.md "Harkness and Ingo", docs/uscf.md
"Events"): the engine's event codes follow the sorted ids on every path that builds
them (store, sharded, resumed from a checkpoint, in memory)."""

from __future__ import annotations

import random

import pytest

import arpad
from arpad.pipeline import catalog
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests import naive_legacy, naive_uscf
from tests.conftest import write_csv

HEADER = "date,white_id,black_id,result,event_id"
PLAYERS = ["H,Harry,1600", "A,Ay,1800", "B,Bee,1400"]
# H wins the early event with the late id, loses the late event with the early id
EARLY_WIN = "2024-05-02,H,A,1-0,Z-Early"
LATE_LOSS = "2024-05-20,H,B,0-1,A-Late"
SYSTEMS = ("harkness", "ingo", "uscf", "fide", "elo")


def _store(tmp_path, name: str, games: list[str], players: list[str], header: str) -> Store:
    folder = tmp_path / name
    folder.mkdir()
    gfile = write_csv(folder / "games.csv", HEADER, games)
    pfile = write_csv(folder / "players.csv", header, players)
    store = Store(folder / "store")
    ingest_files(store, [gfile], players=[pfile])
    return store


def _ratings(store: Store, system: str, periods: tuple[int, ...] | None = None) -> list[tuple]:
    con = catalog.connect(store)
    try:
        rows = con.execute(
            "SELECT period, player_id, rating_before, rating_after, games, score, status "
            "FROM ratings WHERE system = ? ORDER BY period, player_id",
            [system],
        ).fetchall()
    finally:
        con.close()
    return [r for r in rows if periods is None or r[0] in periods]


def _after(store: Store, system: str) -> dict[str, float]:
    return {r[1]: r[3] for r in _ratings(store, system)}


@pytest.mark.parametrize("rows", [[EARLY_WIN, LATE_LOSS], [LATE_LOSS, EARLY_WIN]])
def test_two_row_orders_give_the_documented_ratings(tmp_path, rows):
    store = _store(tmp_path, "s", rows, PLAYERS, "player_id,name,rating")
    for system in ("harkness", "ingo", "uscf"):
        rate(store, system)
    # Harkness (new = Rc + 10 × (percentage − 50), Rc the opponents' mean at the start of
    # the period). H's events by id: "A-Late" then "Z-Early", the last one stands:
    #   A-Late:  lost to B (1400): 1400 + 10 × (0 − 50)   =  900
    #   Z-Early: beat A (1800):    1800 + 10 × (100 − 50) = 2300   → H 2300
    # A lost to H (1600): 1600 − 500 = 1100; B beat H: 1600 + 500 = 2100.
    assert _after(store, "harkness") == {"H": 2300, "A": 1100, "B": 2100}
    # Ingo (P = N − (percentage − 50), new = P), numbers from Elo: 355 − Elo/8:
    # H 355 − 200 = 155, A 355 − 225 = 130, B 355 − 175 = 180.
    #   A-Late:  lost to B (180): 180 − (0 − 50)   = 230
    #   Z-Early: beat A (130):    130 − (100 − 50) =  80   → H 80
    # A lost to H (155): 155 + 50 = 205; B beat H: 155 − 50 = 105.
    assert _after(store, "ingo") == {"H": 80, "A": 205, "B": 105}
    # USCF: H's events one after another in id order (naive reference; ratings without
    # a game count are established, N = 26, docs/uscf.md)
    start = {"H": 1600.0, "A": 1800.0, "B": 1400.0}
    players = {p: naive_uscf.Player(rating=r, n=26) for p, r in start.items()}
    naive_uscf.rate_event(players, [("H", "B", 0.0)])  # A-Late
    naive_uscf.rate_event(players, [("H", "A", 1.0)])  # Z-Early
    got = _after(store, "uscf")
    for p, player in players.items():
        assert got[p] == pytest.approx(player.rating, abs=1e-6), p
    assert got["H"] == pytest.approx(1602.7156, abs=1e-4)


def test_two_row_orders_in_memory(tmp_path):
    """``arpad.rate`` (the engine's ``period_arrays``) numbers events as the store path."""

    def games(rows):
        return [dict(zip(HEADER.split(","), row.split(","), strict=True)) for row in rows]

    players = [{"player_id": p, "rating": r} for p, r in (("H", 1600), ("A", 1800), ("B", 1400))]
    want = {"harkness": 2300, "ingo": 80}
    for system in ("harkness", "ingo", "uscf"):
        got = [
            arpad.rate(games(rows), system, players=players).sort("player_id")
            for rows in ([EARLY_WIN, LATE_LOSS], [LATE_LOSS, EARLY_WIN])
        ]
        assert got[0].equals(got[1]), system
        h = got[0].filter(got[0]["player_id"] == "H")["rating_after"].item()
        if system == "uscf":
            assert h == pytest.approx(1602.7156, abs=1e-4)
        else:
            assert h == want[system]


# -- a bigger file: six events in one period, rows in several orders ----------------------

IDS = [f"P{i}" for i in range(10)]
BIG_HEADER = "player_id,name,rating,rated_games"
ELO = {p: 1400 + 48 * i for i, p in enumerate(IDS)}  # multiples of 8: whole Ingo numbers
# May's events, each on its own day (so FIDE's first event does not hang on file order):
# the id order (A-Late, B10, B9, Z-Early, m-mid, é-cup: code point order) is neither the
# date order nor the order of first appearance of any of the files below
MAY = {"Z-Early": 1, "m-mid": 8, "B9": 12, "é-cup": 15, "B10": 19, "A-Late": 27}


def _big_games() -> tuple[list[str], list[tuple]]:
    """Rows by date, and (period, white, black, score, event) for the naive references."""
    rng = random.Random(7)
    rows, games = [], []
    plan = [(202404, {"April": 10}), (202405, MAY), (202406, {"June": 10})]
    for period, events in plan:
        for event, day in sorted(events.items(), key=lambda e: e[1]):
            for _ in range(5):
                w, b = rng.sample(IDS, 2)
                s = rng.choice([0.0, 0.5, 1.0])
                result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[s]
                rows.append(
                    f"{period // 100}-{period % 100:02d}-{day:02d},{w},{b},{result},{event}"
                )
                games.append((period, w, b, s, event))
    return rows, games


def _orders(rows: list[str]) -> dict[str, list[str]]:
    shuffled = {f"shuffled{seed}": random.Random(seed).sample(rows, len(rows)) for seed in (1, 2)}
    return {"by_date": rows, "reversed": rows[::-1], **shuffled}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """One store per row order of the bigger file, every system rated in each."""
    tmp = tmp_path_factory.mktemp("event_order")
    rows, games = _big_games()
    players = [f"{p},{p},{ELO[p]},26" for p in IDS]
    stores = {}
    for name, ordered in _orders(rows).items():
        store = _store(tmp, name, ordered, players, BIG_HEADER)
        for system in SYSTEMS:
            rate(store, system)
        stores[name] = store
    return tmp, rows, games, players, stores


@pytest.mark.parametrize("system", SYSTEMS)
def test_row_order_does_not_change_the_ratings(big, system):
    *_, stores = big
    want = _ratings(stores["by_date"], system)
    assert want
    for name, store in stores.items():
        assert _ratings(store, system) == want, name


@pytest.mark.parametrize("method", ["harkness", "ingo"])
def test_events_in_id_order_match_the_naive_reference(big, method):
    """Every period (naive_legacy.event_rating: a player's events in sorted id order, the
    opponents' ratings of the period's start), for every row order."""
    *_, games, _, stores = big
    rating = {p: ELO[p] if method == "harkness" else 355 - ELO[p] // 8 for p in IDS}
    want = {}
    for period in (202404, 202405, 202406):
        mine = [(w, b, s, e) for p, w, b, s, e in games if p == period]
        rating = naive_legacy.event_rating(rating, mine, method)
        want[period] = dict(rating)
    for name, store in stores.items():
        got = {}
        for period, player, _, after, *_ in _ratings(store, method):
            got.setdefault(period, {})[player] = after
        assert got == want, name


def test_uscf_events_in_id_order_match_the_naive_reference(big):
    *_, games, _, stores = big
    players = {p: naive_uscf.Player(rating=float(ELO[p]), n=26) for p in IDS}
    want = {}
    for period in (202404, 202405, 202406):
        mine = [(e, w, b, s) for p, w, b, s, e in games if p == period]
        for event in sorted({g[0] for g in mine}):
            naive_uscf.rate_event(players, [g[1:] for g in mine if g[0] == event])
        want[period] = {p: pl.rating for p, pl in players.items()}
    for name, store in stores.items():
        for period, player, _, after, *_ in _ratings(store, "uscf"):
            assert after == pytest.approx(want[period][player], abs=1e-3), (name, player)


@pytest.mark.parametrize("system", ["harkness", "ingo", "fide", "elo"])
def test_sharded_run_of_shuffled_rows(big, system):
    tmp, rows, _, players, stores = big
    store = _store(tmp, f"sharded_{system}", _orders(rows)["shuffled1"], players, BIG_HEADER)
    summary = rate(store, system, shards=2)
    assert summary.shards == 2
    assert _ratings(store, system) == _ratings(stores["by_date"], system)


@pytest.mark.parametrize("system", ["harkness", "ingo", "uscf"])
def test_resumed_run_replays_the_period_in_id_order(big, system):
    """A run from June starts at April's checkpoint and replays May (state only)."""
    tmp, rows, _, players, stores = big
    store = _store(tmp, f"resumed_{system}", _orders(rows)["reversed"], players, BIG_HEADER)
    rate(store, system, end=202404)
    summary = rate(store, system, start=202406)
    assert 202405 in summary.replayed
    want = _ratings(stores["by_date"], system, (202406,))
    assert want and _ratings(store, system, (202406,)) == want
