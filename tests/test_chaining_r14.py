"""Users' attack, round 14 (an analyst and a historian).

* ``rate``'s own result given back as ``players=`` walked its first period as if nothing
  came before it: Glicko's RD grew by one period whatever the months between the two
  runs (player a, January then March: 1479.95/256.07 chained, 1475.39/260.93 in one
  run). The frame's ``period`` is the period its state is after (docs/api.md).
* A players row with volatility 0 was accepted (range 0..10), although the rule
  ``initial_volatility=0`` is refused (1e-06..10); Glicko-2 then never converged and the
  player's RD never grew while he did not play.
* An incremental ECF run re-rates from the first period, but its summary said
  ``incremental_from=51``.
* ECF: one event split into a file per year is graded as two events (an event is its
  Event tag in one file, kept); the run now says so, naming the files.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.store import Store
from arpad.pipeline.systems.glicko2 import Glicko2Rules
from tests.test_ecf_seasons_r12 import pgn_text

COLUMNS = ("rating_before", "rating_after", "rd_before", "rd_after", "volatility_after")


def quiet(*args, **kwargs) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return arpad.rate(*args, **kwargs)


def games_of(rows) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["date", "white_id", "black_id", "result"], orient="row")


def glicko_by_hand(r, rd, r_o, rd_o, score):
    """Glickman's (1995) Steps 2 of one game, from the RDs aged by Step 1."""
    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q**2 * rd_o**2 / math.pi**2)
    e = 1 / (1 + 10 ** (-g * (r - r_o) / 400))
    d2 = 1 / (q**2 * g**2 * e * (1 - e))
    new_rd = math.sqrt(1 / (1 / rd**2 + 1 / d2))
    return r + q / (1 / rd**2 + 1 / d2) * g * (score - e), new_rd


def aged(rd: float, months: int) -> float:
    return min(math.sqrt(rd**2 + months * 63.2**2), 350.0)


def assert_same(chained: pl.DataFrame, full: pl.DataFrame) -> None:
    """Every row of the chained run equals the single run's row of its period and player
    to 1e-9 (each column the system fills)."""
    joined = chained.join(full, on=["period", "player_id"], how="left", suffix="_full")
    assert joined.height == chained.height > 0
    for column in COLUMNS:
        if chained[column].null_count() == chained.height:
            continue
        diff = (joined[column] - joined[f"{column}_full"]).abs().max()
        assert diff is not None and diff < 1e-9, (column, diff)
    assert joined["status"].to_list() == joined["status_full"].to_list()


@pytest.mark.parametrize("system", ["glicko", "glicko2"])
@pytest.mark.parametrize("month", [2, 3, 7, 12])
def test_a_chained_run_ages_the_rd_over_the_months_between(system, month):
    """The analyst's chain2.py: January rated, its rows given back for a later month."""
    later = f"2025-{month:02d}"
    games = games_of(
        [
            ("2025-01-10", "a", "b", "1-0"),
            ("2025-01-12", "b", "c", "1/2-1/2"),
            (f"{later}-05", "a", "c", "0-1"),
            (f"{later}-06", "c", "b", "1-0"),
        ]
    )
    full = arpad.rate(games, system=system)
    january = arpad.rate(games.filter(pl.col("date") < "2025-02-01"), system=system)
    chained = quiet(games.filter(pl.col("date") >= "2025-02-01"), system=system, players=january)
    assert_same(chained, full)
    if system == "glicko":  # by hand: Step 1 ages RD by c²·t, t the months since January
        state = {
            r["player_id"]: (r["rating_after"], r["rd_after"])
            for r in january.iter_rows(named=True)
        }
        (ra, rda), (rc, rdc) = state["a"], state["c"]
        assert round(rda, 4) == 290.2305  # the analyst's: t=1 → 297.03, t=2 → 303.68
        assert round(aged(rda, 2), 2) == 303.68
        t = month - 1
        a = chained.filter(pl.col("player_id") == "a").row(0, named=True)
        hand = glicko_by_hand(ra, aged(rda, t), rc, aged(rdc, t), 0.0)
        assert (a["rating_after"], a["rd_after"]) == pytest.approx(hand, abs=1e-9)


@pytest.mark.parametrize("system", ["glicko", "glicko2"])
def test_each_players_last_rated_row_is_aged_from_its_own_period(system):
    """A frame of each player's last rated row (c's is January's, a's and b's March's):
    c's RD grows over the five months to June, a's and b's over three, as one run."""
    games = games_of(
        [
            ("2025-01-10", "a", "b", "1-0"),
            ("2025-01-12", "b", "c", "1/2-1/2"),
            ("2025-03-05", "a", "b", "0-1"),
            ("2025-06-05", "a", "c", "1-0"),
            ("2025-06-06", "c", "b", "1/2-1/2"),
        ]
    )
    full = arpad.rate(games, system=system)
    spring = arpad.rate(games.filter(pl.col("date") < "2025-04-01"), system=system)
    rated = spring.filter(pl.col("status") == "rated")
    last_rated = rated.unique("player_id", keep="last", maintain_order=True)
    assert last_rated.filter(pl.col("player_id") == "c")["period"].to_list() == [202501]
    chained = quiet(games.filter(pl.col("date") >= "2025-04-01"), system=system, players=last_rated)
    assert_same(chained, full)


def test_a_chained_fide_run_across_march_2024_is_compressed_as_one_run():
    """FIDE's 2024 compression (0.4·(2000 − R) below 2000) falls between the two runs:
    applied once, at the first period after it, as one run applies it (it was skipped)."""
    games = games_of([("2024-01-10", "a", "b", "1-0"), ("2024-05-03", "b", "a", "1/2-1/2")])
    players = pl.DataFrame(
        {"player_id": ["a", "b"], "rating": [1700, 1600], "rated_games": [50, 50]}
    )
    full = arpad.rate(games, system="fide", players=players)
    january = arpad.rate(games.head(1), system="fide", players=players)
    may = quiet(games.tail(1), system="fide", players=january)
    assert_same(may, full)
    # 1707 + round(0.4 · 293) = 1824 before May's draw; 1593 + round(0.4 · 407) = 1756
    assert may.select("player_id", "adjustment").rows() == [("a", 117.0), ("b", 163.0)]


def test_a_frame_of_the_games_own_period_is_read_as_before():
    """A frame whose period is not before the games (the same month rated again): no
    months between, the first period walked as before."""
    games = games_of([("2025-03-05", "a", "b", "1-0")])
    march = arpad.rate(games, system="glicko")
    again = quiet(games, system="glicko", players=march)
    (ra, rda), (rb, rdb) = march.select("rating_after", "rd_after").rows()
    hand = glicko_by_hand(ra, aged(rda, 1), rb, aged(rdb, 1), 1.0)
    a = again.filter(pl.col("player_id") == "a").row(0, named=True)
    assert (a["rating_after"], a["rd_after"]) == pytest.approx(hand, abs=1e-9)


def test_a_volatility_of_zero_is_refused_as_the_rule_is():
    games = games_of([("2025-01-05", "p", "o", "1-0")])
    low, high = Glicko2Rules.RANGES["initial_volatility"]
    assert (low, high) == (1e-6, 10)
    with pytest.raises(ValueError, match=r"valid range 1e-06\.\.10"):
        arpad.rate(games, "glicko2", initial_volatility=0)
    players = pl.DataFrame(
        {"player_id": ["p", "o"], "rating": [1500, 1500], "rd": [50.0, 50.0],
         "volatility": [0.0, 0.06]}
    )  # fmt: skip
    with pytest.raises(InputError) as caught:
        arpad.rate(games, "glicko2", players=players)
    assert "row 0: bad_player_field: volatility 0.0 is not a number in 1e-06..10" in str(
        caught.value
    )
    # the smallest the rule takes is taken
    ok = arpad.rate(games, "glicko2", players=players.with_columns(volatility=pl.lit(1e-6)))
    assert ok.filter(pl.col("player_id") == "p")["volatility_before"].item() == 1e-6


def test_a_players_file_with_volatility_zero_is_quarantined(tmp_path, capsys):
    (tmp_path / "g.csv").write_text("date,white_id,black_id,result\n2025-01-05,p,o,1-0\n")
    (tmp_path / "p.csv").write_text("player_id,rating,rd,volatility\np,1500,50,0\no,1500,50,-0.1\n")
    s = str(tmp_path / "S")
    code = main(["ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv"),
                 "--store", s, "--no-flow"])  # fmt: skip
    assert code == 2  # rows quarantined, as an RD of 0
    err = capsys.readouterr().err
    assert "p.csv:2: bad_player_field: volatility 0 is not a number in 1e-06..10" in err
    details = arpad.Store(s).sql("SELECT reason, detail FROM quarantine ORDER BY detail")
    assert details.rows() == [
        ("bad_player_field", "volatility -0.1 is not a number in 1e-06..10"),
        ("bad_player_field", "volatility 0 is not a number in 1e-06..10"),
    ]


def test_an_incremental_ecf_run_says_it_rated_from_the_first_period(tmp_path):
    first = tmp_path / "first.csv"
    second = tmp_path / "second.csv"
    first.write_text("date,white_id,black_id,result\n2020-01-05,a,b,1-0\n2020-09-05,b,c,0-1\n")
    second.write_text("date,white_id,black_id,result\n2021-09-05,a,c,1-0\n")
    store = arpad.Store(tmp_path / "S")
    store.ingest(first)
    for system in ("ecf", "elo"):
        quiet_store_rate(store, system)
    store.ingest(second)
    ecf = quiet_store_rate(store, "ecf")
    assert ecf.incremental_from is None  # it said 202109
    assert ecf.periods[0] == 202001  # rated from the first period (docs/legacy-systems.md)
    assert "incremental_from" not in repr(ecf)
    elo = quiet_store_rate(store, "elo")
    assert (elo.incremental_from, elo.periods) == (202109, [202109])


def quiet_store_rate(store, system):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return store.rate(system)


AUTUMN = [  # the historian's hastings_1862.pgn: the season's dated games
    ("1862.10.05", "Alder", "Birch", "1-0"),
    ("1862.10.06", "Cedar", "Dogwood", "0-1"),
    ("1862.11.08", "Alder", "Cedar", "1/2-1/2"),
]
WINTER = [  # hastings_1863.pgn: the rest of it, dated to the year
    ("1863.??.??", "Birch", "Cedar", "1-0"),
    ("1863.??.??", "Dogwood", "Alder", "0-1"),
    ("1863.??.??", "Birch", "Dogwood", "1/2-1/2"),
]
EVENT = "Hastings Club Ch 1862-63"
SPLIT_NOTE = (
    "arpad: note: ecf/standard: 3 game(s) dated only to the year are graded as a separate "
    "event from games of the same Event tag in another file: 3 of 1863 in "
    f"hastings_1863.pgn, listed at 186405 (Event '{EVENT}', also in hastings_1862.pgn in "
    "1862/63). An event is its Event tag in one file; to grade them as one event, make the "
    "files one source: withdraw each file but one (ingest a CSV file holding only the line "
    "date,white,black,result with --source and the path that file was ingested from: a new "
    "version without games replaces a source), then ingest one PGN holding all the event's "
    'games with --source and the path of the file left (docs/legacy-systems.md "Games '
    'dated only to the year")'
)


def rate_ecf(capsys, store, *files) -> list[str]:
    assert main(["ingest", *map(str, files), "--store", str(store), "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "ecf", "--store", str(store), "--no-flow"]) == 0
    return capsys.readouterr().err.splitlines()


def test_one_event_in_a_file_per_year_is_graded_apart_and_said(tmp_path, capsys):
    autumn, winter = tmp_path / "hastings_1862.pgn", tmp_path / "hastings_1863.pgn"
    autumn.write_text(pgn_text(AUTUMN, event=EVENT, ids=True))
    winter.write_text(pgn_text(WINTER, event=EVENT, ids=True))
    err = rate_ecf(capsys, tmp_path / "split", autumn, winter)
    assert SPLIT_NOTE in err
    # the rule is kept: the 1863 games graded in 1863/64, a season of their own
    assert 186405 in Store(tmp_path / "split").rating_periods("ecf", "standard")
    one = tmp_path / "hastings.pgn"
    one.write_text(pgn_text(AUTUMN + WINTER, event=EVENT, ids=True))
    err = rate_ecf(capsys, tmp_path / "one", one)
    assert not [line for line in err if "separate event" in line]
    assert Store(tmp_path / "one").rating_periods("ecf", "standard")[-1] == 186305
    # another event name in the other file: nothing to say
    winter.write_text(pgn_text(WINTER, event="Hastings Winter Cup 1863", ids=True))
    err = rate_ecf(capsys, tmp_path / "two", autumn, winter)
    assert not [line for line in err if "separate event" in line]
