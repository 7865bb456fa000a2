"""A rating officer's third attack on FIDE: the first event of §8.2.1 judged as a whole
event, by date, whatever the periods and row order; ratings below the floor are no
ratings; two-monthly newcomers are rated when the rating period closes.

Each case is rated through the store (ingest, then ``engine.rate``): the engine gives
the system the games' dates and event keys. Expected values are computed by hand
from docs/rules.md: FIDE tables 8.1.1 and 8.1.2 and the initial rating (§8.2).
"""

from __future__ import annotations

from arpad.pipeline import engine
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store

PLAYERS = """player_id,name,birth_year,rating,rated_games
R,Rated,1970,1800,100
U11,SpanNonZero,1990,,
U12,SpanZero,1990,,
U13,FileOrder,1990,,
"""

# U11: E1 0/2 in November, 1/1 in December; E2 1.5/3 in December.
# U12: E1 0/1 in November, 0/2 in December; E2 4/5 in December.
# U13: LateEvent (20–21 Nov, 0/2) comes first in the file, EarlyEvent (1–5 Nov, 3/5).
GAMES = [
    "2025-11-29,U11,R,0-1,E1-U11",
    "2025-11-30,U11,R,0-1,E1-U11",
    "2025-12-01,U11,R,1-0,E1-U11",
    "2025-12-10,U11,R,1/2-1/2,E2-U11",
    "2025-12-11,U11,R,1/2-1/2,E2-U11",
    "2025-12-12,U11,R,1/2-1/2,E2-U11",
    "2025-11-30,U12,R,0-1,E1-U12",
    "2025-12-01,U12,R,0-1,E1-U12",
    "2025-12-02,U12,R,0-1,E1-U12",
    "2025-12-10,U12,R,1-0,E2-U12",
    "2025-12-11,U12,R,1-0,E2-U12",
    "2025-12-12,U12,R,1-0,E2-U12",
    "2025-12-13,U12,R,1/2-1/2,E2-U12",
    "2025-12-14,U12,R,1/2-1/2,E2-U12",
    "2025-11-20,U13,R,0-1,LateEvent",
    "2025-11-21,U13,R,0-1,LateEvent",
    "2025-11-01,U13,R,1-0,EarlyEvent",
    "2025-11-02,U13,R,1-0,EarlyEvent",
    "2025-11-03,U13,R,1-0,EarlyEvent",
    "2025-11-04,U13,R,0-1,EarlyEvent",
    "2025-11-05,U13,R,0-1,EarlyEvent",
]


def _rate(
    tmp_path, players: str, games: list[str], header="date,white_id,black_id,result,event_id", **kw
):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "players.csv").write_text(players)
    (tmp_path / "games.csv").write_text("\n".join([header, *games]) + "\n")
    store = Store(tmp_path / "store")
    ingest_files(store, [tmp_path / "games.csv"], players=[tmp_path / "players.csv"])
    engine.rate(store, "fide", "standard", **kw)
    return store


def _rows(store, period) -> dict[str, dict]:
    return {r["player_id"]: r for r in store.read_ratings("fide", "standard", period).to_pylist()}


def _assert_first_event_cases(store):
    nov, dec = _rows(store, 202511), _rows(store, 202512)
    # (a) U11: E1 scores 1/3 over both months, so nothing is disregarded. In December
    # the pool is 6 games vs 1800, 2.5 points (2024 method, FIDE §8.2, docs/rules.md):
    #   Ra = (6 × 1800 + 3600) / 8 = 1800, p = (2.5 + 1) / 8 = .4375 → .44, dp −43 → 1757.
    # (November: 0/2 in E1 so far, disregarded for now; 2 games < 5 anyway.)
    assert nov["U11"]["rating_after"] is None and nov["U11"]["status"] == "unrated"
    assert dec["U11"]["rating_after"] == 1757 and dec["U11"]["status"] == "new"
    # (b) U12: E1 is 0/3 over both months, disregarded whole; E2 alone, 4/5 vs 1800:
    #   Ra = (5 × 1800 + 3600) / 7 = 1800, p = (4 + 1) / 7 = .714 → .71, dp +158 → 1958.
    assert dec["U12"]["rating_after"] == 1958 and dec["U12"]["status"] == "new"
    # (c) U13: EarlyEvent (1 Nov) is his first event, 3/5, nothing disregarded: 7 games,
    # 3 points: Ra = 1800, p = (3 + 1) / 9 = .444 → .44, dp −43 → 1757.
    assert nov["U13"]["rating_after"] == 1757 and nov["U13"]["status"] == "new"
    # R's games vs unrated players are not rated.
    assert nov["R"]["rating_after"] == dec["R"]["rating_after"] == 1800


def test_first_event_is_judged_as_a_whole_event_by_date(tmp_path):
    _assert_first_event_cases(_rate(tmp_path, PLAYERS, GAMES))


def test_first_event_does_not_depend_on_row_order(tmp_path):
    # The same games in date order, and in reverse order: the same ratings.
    _assert_first_event_cases(_rate(tmp_path / "sorted", PLAYERS, sorted(GAMES)))
    _assert_first_event_cases(_rate(tmp_path / "reversed", PLAYERS, GAMES[::-1]))


def test_first_event_in_memory_equals_the_store(tmp_path):
    # arpad.rate on frames (no store) gives the system the same dates and event keys.
    import io

    import polars as pl

    import arpad

    games = pl.read_csv(
        io.StringIO("\n".join(["date,white_id,black_id,result,event_id", *GAMES[::-1]])),
        infer_schema_length=0,
    )
    players = pl.read_csv(io.StringIO(PLAYERS), infer_schema_length=0)
    rows = arpad.rate(games, system="fide", players=players).to_dicts()
    got = {(r["player_id"], r["period"]): r["rating_after"] for r in rows}
    assert got[("U11", 202512)] == 1757
    assert got[("U12", 202512)] == 1958
    assert got[("U13", 202511)] == 1757
    assert got[("R", 202512)] == 1800


def test_first_event_sharded_and_resumed_from_a_checkpoint(tmp_path):
    # The dates and event keys reach each shard; the pool's first-event rows and the
    # player's first event survive a checkpoint (December rated from November's).
    store = _rate(tmp_path, PLAYERS, GAMES, shards=2)
    _assert_first_event_cases(store)
    engine.rate(store, "fide", "standard", start=202512)
    _assert_first_event_cases(store)


def test_no_event_ids_keep_the_first_period_as_the_first_event(tmp_path):
    # Without event ids the first period's games are the first event (docs/rules.md):
    # U12's November 0/1 is disregarded, his December games all count (0/2 and 4/5):
    #   7 games, 4 points: Ra = (7 × 1800 + 3600) / 9 = 1800, p = 5/9 = .556 → .56,
    #   dp +43 → 1843.
    games = [g.rsplit(",", 1)[0] for g in GAMES if ",U12," in g]
    store = _rate(tmp_path, PLAYERS, games, header="date,white_id,black_id,result")
    assert _rows(store, 202512)["U12"]["rating_after"] == 1843


def test_a_rating_below_the_floor_is_no_rating(tmp_path):
    # 2025 rules, floor 1400: L (1350 in the players file) is unrated from the start,
    # so A's loss to him is not rated: A stays 1500.
    players = (
        "player_id,name,birth_year,rating,rated_games\nA,A,1970,1500,100\nL,Low,1970,1350,100\n"
    )
    store = _rate(
        tmp_path / "new", players, ["2025-11-05,A,L,0-1"], header="date,white_id,black_id,result"
    )
    row = _rows(store, 202511)
    assert row["A"]["rating_after"] == 1500 and row["A"]["games"] == 0
    assert row["L"]["status"] == "unrated" and row["L"]["rating_after"] is None
    # Under the 2012-07 rules the floor is 1000: L is rated and A's loss counts.
    # K 15 (established, below 2400); D = 1500 − 1350 = 150 → PD(H) .70 (table 8.1.2,
    # 146–153); ΔR = 0 − .70; 15 × −.70 = −10.5 → −11 (half away from zero) → 1489.
    store = _rate(
        tmp_path / "old", players, ["2013-11-05,A,L,0-1"], header="date,white_id,black_id,result"
    )
    assert _rows(store, 201311)["A"]["rating_after"] == 1489


def test_a_published_rating_below_the_floor_unrates_the_player(tmp_path):
    # L is 1600 in the players file; a dated players row publishes 1350 on 1 Dec 2025.
    # November: A 1500 loses to L 1600: D −100 → PD .36, 20 × −.36 = −7.2 → −7 → 1493.
    # December: L's 1350 is below the floor, so L is unrated and A's second loss is
    # not rated: A stays 1493.
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "dated.csv").write_text("player_id,rating,date\nL,1350,2025-12-01\n")
    (tmp_path / "players.csv").write_text(
        "player_id,name,birth_year,rating,rated_games\nA,A,1970,1500,100\nL,Low,1970,1600,100\n"
    )
    (tmp_path / "games.csv").write_text(
        "date,white_id,black_id,result\n2025-11-05,A,L,0-1\n2025-12-05,A,L,0-1\n"
    )
    store = Store(tmp_path / "store")
    ingest_files(
        store, [tmp_path / "games.csv"], players=[tmp_path / "players.csv", tmp_path / "dated.csv"]
    )
    engine.rate(store, "fide", "standard")
    nov, dec = _rows(store, 202511), _rows(store, 202512)
    assert nov["A"]["rating_after"] == 1493 and nov["L"]["rating_after"] == 1607
    assert dec["A"]["rating_after"] == 1493 and dec["A"]["games"] == 0
    assert dec["L"]["status"] == "unrated"


TWO_MONTHLY_PLAYERS = (
    "player_id,name,birth_year,rating,rated_games\nR,Rated,1970,1800,100\nU,New,1990,,\n"
)


def test_two_monthly_newcomer_is_rated_when_the_rating_period_closes(tmp_path):
    # March–April 2011 is one rating period (2009-07 rules), rated from the 1 March list
    # where U is unrated: R's games vs U are not rated (R stays 1800), and U's initial
    # rating comes from all 12 games (2009 method, 9 games needed, 12.5 per half point):
    #   Ra = 1800, 7.5/12 is 15 − 12 = 3 half points above 50 % → 1800 + 37.5 → 1838.
    games = [f"2011-03-0{d},U,R,1/2-1/2" for d in range(1, 10)]
    games += [f"2011-04-0{d},U,R,1-0" for d in range(1, 4)]
    store = _rate(
        tmp_path / "both", TWO_MONTHLY_PLAYERS, games, header="date,white_id,black_id,result"
    )
    mar, apr = _rows(store, 201103), _rows(store, 201104)
    assert mar["U"]["rating_after"] is None and mar["U"]["status"] == "unrated"
    assert apr["U"]["rating_after"] == 1838 and apr["U"]["status"] == "new"
    assert apr["R"]["rating_after"] == 1800 and apr["R"]["games"] == 0
    # Only March's nine draws: published on the closing April list (walked without
    # games): Ra = 1800, 4.5/9 is 50 % → 1800.
    store = _rate(
        tmp_path / "march", TWO_MONTHLY_PLAYERS, games[:9], header="date,white_id,black_id,result"
    )
    assert _rows(store, 201103)["U"]["rating_after"] is None
    assert _rows(store, 201104)["U"]["rating_after"] == 1800


def test_two_monthly_newcomer_is_rated_on_a_closing_list_without_games(tmp_path):
    # March's nine draws, then no game in April and a rated game in May: April, the
    # closing month, is walked without games (``closing_periods_within``), so U is rated
    # on its list from his March games (1800, as above), not late at May.
    games = [f"2011-03-0{d},U,R,1/2-1/2" for d in range(1, 10)]
    games.append("2011-05-10,R,X,1-0")
    players = TWO_MONTHLY_PLAYERS + "X,Other,1970,1800,100\n"
    store = _rate(tmp_path, players, games, header="date,white_id,black_id,result")
    assert _rows(store, 201103)["U"]["rating_after"] is None
    apr = _rows(store, 201104)["U"]
    assert apr["rating_after"] == 1800 and apr["status"] == "new"
    assert _rows(store, 201105)["U"]["status"] == "rated"


def test_two_monthly_first_months_have_no_list_in_force(tmp_path, capsys):
    # Under the 2009-07 rules FIDE published lists on 1 March and 1 May 2011, none on
    # 1 April: on 2011-04-15 the list in force was the one closing January–February,
    # which this store does not have; from 1 May the one closing March–April (201104).
    from arpad.pipeline.cli import main
    from arpad.pipeline.lists import list_periods, period_in_force

    assert list_periods("fide", [201101, 201102, 201103, 201104]) == [201102, 201104]
    assert list_periods("fide", [202403, 202404]) == [202403, 202404]  # monthly lists
    assert list_periods("elo", [201103, 201104]) == [201103, 201104]
    assert period_in_force("2011-04-15", [201102, 201103, 201104], system="fide") == 201102
    assert period_in_force("2011-04-15", [201102, 201103, 201104]) == 201103
    games = [f"2011-03-0{d},U,R,1/2-1/2" for d in range(1, 10)]
    games += [f"2011-04-0{d},U,R,1-0" for d in range(1, 4)]
    store = _rate(tmp_path, TWO_MONTHLY_PLAYERS, games, header="date,white_id,black_id,result")
    root = str(store.root)
    capsys.readouterr()
    args = ["list", "--system", "fide", "--store", root, "--format", "fide-txt"]
    assert main([*args, "--in-force", "2011-04-15"]) == 2
    assert "no fide/standard list was in force on 2011-04-15" in capsys.readouterr().err
    assert main([*args, "--in-force", "2011-05-02"]) == 0
    out = capsys.readouterr()
    assert "= period 2011-04" in out.err and "MAY11" in out.out
