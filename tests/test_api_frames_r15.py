"""Round 15 (an analyst's attack on the Python API): ratings frames given as ``players=``.

- A chained FIDE run lost a newcomer's games in progress without a word: his January
  games are not in the January ratings, so his first rating came late or never. Now a
  warning names the players unrated in the frame and what to do.
- A ratings frame written to CSV (as ``Store.ingest``'s TypeError advises) lost every
  rating: its ``rating_after`` was a "column not read". A file is now read as the frame.
- ``norm``/``performance``/``category`` read the oldest row of a multi-period result;
  ``rate`` refused it. Both now read each player's latest period, with a warning.
- A ``period`` as text (``"2024-04"``) was not read: the RD grew by one month. Other
  periods that cannot tell the months between are now said.
- A frame's bad row is named (row and problem), rows counted from 0 as ``df[i]``.
docs/api.md "`rate`'s own result as `players=`" (round 15).
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import arpad

# Newcomer N draws three rated players in January 2025 and two in February.
OPPONENTS = ["r1", "r2", "r3", "r4", "r5"]
NEWCOMER_GAMES = pl.DataFrame(
    [
        {"date": f"2025-01-{10 + i}", "white_id": "N", "black_id": o, "result": "1/2-1/2"}
        for i, o in enumerate(OPPONENTS[:3])
    ]
    + [
        {"date": f"2025-02-{10 + i}", "white_id": o, "black_id": "N", "result": "1/2-1/2"}
        for i, o in enumerate(OPPONENTS[3:])
    ]
)
RATED = pl.DataFrame(
    {
        "player_id": OPPONENTS,
        "rating": [1800, 1900, 2000, 2100, 2200],
        "rated_games": [100] * 5,
        "birth_year": [1980] * 5,
    }
)


def _recorded(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call(*args, **kwargs)
    return out, [str(w.message) for w in caught]


def _row(result: pl.DataFrame, player: str, period: int) -> dict:
    return result.filter((pl.col("player_id") == player) & (pl.col("period") == period)).row(
        0, named=True
    )


def test_a_chained_fide_run_says_its_newcomers_games_are_lost():
    """One run: N's five draws against 1800..2200 plus FIDE's two hypothetical 1800 draws
    average 13600 / 7 = 1942.86 at 50 %: Ru 1943 in February (FIDE 8.2). Chained from
    January's rows (rated_games, peak_rating and birth_year joined, as docs/api.md asks),
    N's January games are not in the frame: he stays unrated, and a warning says so."""
    one = arpad.rate(NEWCOMER_GAMES, system="fide", players=RATED)
    assert _row(one, "N", 202502)["rating_after"] == 1943.0
    january = arpad.rate(NEWCOMER_GAMES.head(3), system="fide", players=RATED)
    assert _row(january, "N", 202501)["status"] == "unrated"
    frame = january.join(
        RATED.select("player_id", "rated_games", "birth_year"), on="player_id", how="left"
    ).with_columns(
        rated_games=pl.col("rated_games").fill_null(0) + pl.col("games"),
        peak_rating=pl.col("rating_after"),
    )
    february, said = _recorded(arpad.rate, NEWCOMER_GAMES.tail(2), system="fide", players=frame)
    assert _row(february, "N", 202502)["rating_after"] is None  # what the warning is about
    assert said == [
        "players: a ratings frame: rating_after as rating (the state after its period)",
        "players: 1 player(s) unrated after their period (N): the games they played are not "
        "in the table (nor those of a player not in it who played before its period), so a "
        "system that rates a newcomer from his games of several periods (FIDE) counts only "
        "the games from here on: his first rating comes later or never, and his opponents' "
        "ratings differ from one run's; rate one run over all the games, or ingest every "
        "games file into one store (a chain is exact for rated players only)",
    ]


# a beats b in January, they draw in February (Elo, K 20, both from 1500)
AB = pl.DataFrame(
    {
        "date": ["2025-01-10", "2025-02-10"],
        "white_id": ["a", "a"],
        "black_id": ["b", "b"],
        "result": ["1-0", "1/2-1/2"],
    }
)
# January: a 1510, b 1490. February: E(a) = 1 / (1 + 10^(-20/400)) = .5287506, a draw
# moves a by 20 × (.5 - .5287506) = -.575011: 1509.424989, b 1490.575011. From 1500 each
# (the file's ratings not read): a draw changes nothing.
FEBRUARY = {"a": 1509.424989, "b": 1490.575011}


def _ratings(result: pl.DataFrame, period: int) -> dict:
    rows = result.filter(pl.col("period") == period)
    return {p: round(r, 6) for p, r in rows.select("player_id", "rating_after").iter_rows()}


def test_a_ratings_file_is_read_as_the_frame_is(tmp_path):
    """The CSV of a rate result, as Store.ingest's TypeError advises to write it, is read
    as its frame is: by arpad.rate(players=path), by Store.ingest and by arpad ingest."""
    january = arpad.rate(AB.head(1), system="elo")
    assert _ratings(january, 202501) == {"a": 1510.0, "b": 1490.0}
    january.write_csv(tmp_path / "january.csv")
    AB.tail(1).write_csv(tmp_path / "february.csv")
    frame, _ = _recorded(arpad.rate, AB.tail(1), system="elo", players=january)
    assert _ratings(frame, 202502) == FEBRUARY
    path = str(tmp_path / "january.csv")
    from_file, said = _recorded(arpad.rate, AB.tail(1), system="elo", players=path)
    assert _ratings(from_file, 202502) == FEBRUARY
    assert said == [f"{path}: a ratings file: rating_after as rating (the state after its period)"]
    store = arpad.Store(tmp_path / "store")
    report, said = _recorded(store.ingest, str(tmp_path / "february.csv"), players=path)
    assert said == []
    notes = report.files[0].notes
    assert notes[0] == "a ratings file: rating_after as rating (the state after its period)"
    assert not any(n.startswith("columns not read") for n in notes), notes
    store.rate("elo")
    assert _ratings(store.ratings("elo"), 202502) == FEBRUARY


def test_several_periods_read_as_each_players_latest_row(tmp_path):
    """rate's whole result: performance, category and rate read each player's latest row
    (its rows of February), as a frame and as a file."""
    games = pl.DataFrame(
        {
            "date": ["2025-03-01"] * 3,
            "white_id": ["x", "x", "x"],
            "black_id": ["o1", "o2", "o3"],
            "result": ["1-0", "1/2-1/2", "0-1"],
        }
    )
    history = pl.DataFrame(
        {
            "system": ["fide"] * 6,
            "pool": ["standard"] * 6,
            "period": [202501, 202501, 202501, 202502, 202502, 202502],
            "player_id": ["o1", "o2", "o3", "o1", "o2", "o3"],
            "rating_after": [2000.0, 2200.0, 1800.0, 2100.0, 2300.0, 1900.0],
            "games": [1] * 6,
            "status": ["rated"] * 6,
        }
    )
    games.write_csv(tmp_path / "games.csv")
    history.write_csv(tmp_path / "history.csv")
    note = (
        "a ratings {}: rating_after as rating (the state after its period); of its 2 "
        "periods (202501..202502) each player's latest row is read (3 rows of earlier "
        "periods left aside)"
    )
    for players, where in ((history, "players"), (str(tmp_path / "history.csv"), None)):
        what = "frame" if where else "file"
        where = where or players
        # 50 % against (2100 + 2300 + 1900) / 3 = 2100: FIDE 8.1.1 dp 0, Rp 2100
        result, said = _recorded(arpad.performance, str(tmp_path / "games.csv"), players=players)
        x = result.filter(pl.col("player_id") == "x").row(0, named=True)
        assert (x["average_opponent"], x["fide"]) == (2100.0, 2100.0)
        assert said == [f"{where}: {note.format(what)}"]
        table, _ = _recorded(arpad.category, str(tmp_path / "games.csv"), players=players)
        assert table["average"].to_list() == [2100.0]
    rated, said = _recorded(arpad.rate, games, system="elo", players=history)
    assert _row(rated, "o1", 202503)["rating_before"] == 2100.0
    assert said == [f"players: {note.format('frame')}"]


GLICKO = pl.DataFrame(
    {
        "date": ["2024-01-10", "2024-01-12", "2024-04-10"],
        "white_id": ["a", "b", "a"],
        "black_id": ["b", "c", "c"],
        "result": ["1-0", "1/2-1/2", "0-1"],
    }
)


def _glicko_after(r, rd, opponent, opponent_rd, score):
    """Glicko-1 after one game (Glickman's formulas, docs/glicko.md): (rating, RD)."""
    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q**2 * opponent_rd**2 / math.pi**2)
    e = 1 / (1 + 10 ** (-g * (r - opponent) / 400))
    d2 = 1 / (q**2 * g**2 * e * (1 - e))
    after = 1 / math.sqrt(1 / rd**2 + 1 / d2)
    return r + q * after**2 * g * (score - e), after


def test_a_text_period_is_read_and_others_are_said():
    """January's frame for April's game (a loses to c): each RD grows over three months,
    sqrt(RD² + 3 · 63.2²) (c 63.2, docs/glicko.md), then a's game moves him as Glicko-1
    says, with the period as 202401, "2024-01" or "2024-01-31". A period that cannot tell
    the gap is said, with what was assumed (one month's growth)."""
    january = arpad.rate(GLICKO.head(2), system="glicko")
    april = GLICKO.tail(1)
    a, c = _row(january, "a", 202401), _row(january, "c", 202401)

    def expected(months):
        return _glicko_after(
            a["rating_after"],
            math.sqrt(a["rd_after"] ** 2 + months * 63.2**2),
            c["rating_after"],
            math.sqrt(c["rd_after"] ** 2 + months * 63.2**2),
            0.0,
        )

    def got(result):
        row = _row(result, "a", 202404)
        return row["rating_after"], row["rd_after"]

    assert got(arpad.rate(GLICKO, system="glicko")) == pytest.approx(expected(3), abs=1e-9)
    for period in (pl.lit(202401), pl.lit("2024-01"), pl.lit("2024-01-31")):
        frame = january.with_columns(period=period)
        chained, said = _recorded(arpad.rate, april, system="glicko", players=frame)
        assert got(chained) == pytest.approx(expected(3), abs=1e-9)
        assert said == [
            "players: a ratings frame: rating_after as rating, rd_after as rd (the state "
            "after its period)"
        ]
    then = (
        "each player's state is taken as of the period before the games' first (202404), "
        "the months between not counted (an RD grows by one period)"
    )
    for frame, problem in (
        (
            january.with_columns(period=pl.lit("garbage")),
            "a ratings table's period 'garbage' (row 0) is not a period (YYYYMM, YYYY-MM, a "
            f"date, or a period number): for 3 player(s) {then}",
        ),
        (january.drop("period"), f"a ratings table without a period column: {then}"),
        (
            january.with_columns(period=pl.lit(202506)),
            "a ratings table's period 202506 is not before the games' first period "
            f"(202404): {then}",
        ),
        (
            january.with_columns(period=pl.lit(10)),
            "a ratings table's period 10 (a period number) is not of the kind of the games' "
            f"periods (202404: a month): {then}",
        ),
    ):
        chained, said = _recorded(arpad.rate, april, system="glicko", players=frame)
        assert got(chained) == pytest.approx(expected(1), abs=1e-9)
        assert said[1:] == [f"players: {problem}"]


NORM_GAMES = pl.DataFrame(
    {
        "date": ["2025-03-01"] * 3,
        "white_id": ["x"] * 3,
        "black_id": ["o1", "o2", "o3"],
        "result": ["1-0", "1/2-1/2", "0-1"],
    }
)


def test_a_frames_bad_row_is_named_counted_from_0(tmp_path):
    """norm/performance/category: a frame's bad row is named with its problem, as a
    file's is (a file by line, a frame by row as df[i]); a duplicate says which row is
    read; rate's refusal counts the same way."""
    NORM_GAMES.write_csv(tmp_path / "games.csv")
    games = str(tmp_path / "games.csv")
    bad = pl.DataFrame({"player_id": ["o1", "o2", "o3"], "rating": ["2000", "21OO", "1800"]})
    for call in (arpad.performance, arpad.category):
        _, said = _recorded(call, games, players=bad)
        assert said == [
            "players: 1 of 3 rows skipped (bad_player_field 1; row 1: rating 21OO is not a "
            "number in 0..3500)"
        ]
    _, said = _recorded(arpad.norm, games, "x", "IM", players=bad)
    assert "players: 1 of 3 rows skipped (bad_player_field 1; row 1: rating 21OO" in said[0]
    twice = pl.DataFrame({"player_id": ["o1", "o2", "o1"], "rating": [2000, 2200, 2100]})
    result, said = _recorded(arpad.performance, games, players=twice)
    assert said == [
        "players: 1 of 3 rows skipped (duplicate_player_id 1; row 2: player_id o1 already in "
        "row 0 (the row read))"
    ]
    # o1 2000 (row 0), o2 2200: 1.5 of 2, average 2100
    assert result.filter(pl.col("player_id") == "x")["average_opponent"].to_list() == [2100.0]
    with pytest.raises(arpad.InputError) as raised:
        arpad.rate(NORM_GAMES, "elo", players=twice)
    assert "(row 2: duplicate_player_id: player_id o1 already in row 0 (the row read))" in str(
        raised.value
    )
    twice.write_csv(tmp_path / "twice.csv")
    with pytest.raises(arpad.InputError) as raised:
        arpad.rate(NORM_GAMES, "elo", players=str(tmp_path / "twice.csv"))
    assert "(line 4: duplicate_player_id: player_id o1 already on line 2)" in str(raised.value)


def test_the_k_facts_are_said_only_where_they_are_read():
    """Glicko-2 and norm read no rated_games, peak or age: their ratings-frame warning
    does not speak of K; FIDE's names the facts it lacks."""
    january = arpad.rate(AB.head(1), system="glicko2")
    _, said = _recorded(arpad.rate, AB.tail(1), system="glicko2", players=january)
    assert said == [
        "players: a ratings frame: rating_after as rating, rd_after as rd, volatility_after "
        "as volatility (the state after its period)"
    ]
    fide = arpad.rate(
        AB.head(1),
        system="fide",
        players=pl.DataFrame({"player_id": ["a", "b"], "rating": [2100, 2000]}),
    )
    _, said = _recorded(arpad.rate, AB.tail(1), system="fide", players=fide)
    assert said == [
        "players: a ratings frame: rating_after as rating (the state after its period); it "
        "has no rated_games, peak_rating, birth_year (its games count one period's games): "
        "fide reads them: each rated player is taken as established and adult unless you "
        "join them as columns"
    ]
    _, said = _recorded(
        arpad.performance,
        NORM_GAMES.with_columns(white_rating=pl.lit(None), black_rating=pl.lit(None)),
        players=fide,
    )
    assert (
        said[0] == "players: a ratings frame: rating_after as rating (the state after its period)"
    )
