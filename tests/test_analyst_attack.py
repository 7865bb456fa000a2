"""A notebook user's mistakes against the Python API (docs/api.md "Arguments"): each test
is a defect found by attacking ``import arpad`` the way an analyst does (wrong types,
typos, calls in the wrong order); the right value where there is one (checked against a
naive calculation), else a one-line Python exception naming the argument."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import arpad

GAMES = pl.DataFrame(
    {
        "date": ["2025-01-10", "2025-01-11", "2025-02-03", "2025-02-04"],
        "white_id": ["1", "3", "2", "4"],
        "black_id": ["2", "4", "3", "1"],
        "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
    }
)


def naive_elo(games: pl.DataFrame, k: float = 20.0, start=1500.0) -> dict[str, float]:
    """Ratings after the last period: Elo's logistic curve, a period's changes summed from
    the ratings at its start (one game at a time, no arrays); ``start`` a number or a
    dict of starting ratings."""
    rating: dict[str, float] = dict(start) if isinstance(start, dict) else {}
    start = 1500.0 if isinstance(start, dict) else start
    for period in sorted(set(games["date"].str.slice(0, 7))):
        change: dict[str, float] = {}
        for g in games.filter(games["date"].str.starts_with(period)).iter_rows(named=True):
            w, b = g["white_id"], g["black_id"]
            rw, rb = rating.get(w, start), rating.get(b, start)
            s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[g["result"]]
            e = 1 / (1 + 10 ** ((rb - rw) / 400))
            change[w] = change.get(w, 0.0) + k * (s - e)
            change[b] = change.get(b, 0.0) - k * (s - e)
        for p, d in change.items():
            rating[p] = rating.get(p, start) + d
    return rating


def final(ratings: pl.DataFrame) -> dict[str, float]:
    last = ratings.filter(pl.col("period") == ratings["period"].max())
    return dict(zip(last["player_id"], last["rating_after"], strict=True))


def test_naive_reference_agrees_with_rate():
    got, want = final(arpad.rate(GAMES, system="elo")), naive_elo(GAMES)
    assert got.keys() == want.keys()
    assert all(abs(got[p] - want[p]) < 1e-9 for p in want)


# -- games in the shapes a notebook holds them -------------------------------------------


def test_rate_takes_a_list_of_dicts_and_an_iterator_of_dicts():
    want = naive_elo(GAMES)
    for games in (GAMES.to_dicts(), tuple(GAMES.to_dicts()), iter(GAMES.to_dicts())):
        got = final(arpad.rate(games, system="elo"))
        assert all(abs(got[p] - want[p]) < 1e-9 for p in want)
    players = [{"player_id": "1", "rating": 2100}, {"player_id": "2", "rating": 2000}]
    rated = arpad.rate(GAMES, system="elo", players=players)
    first = rated.filter(pl.col("period") == 202501).sort("player_id")
    assert first["rating_before"].to_list()[:2] == [2100.0, 2000.0]


def test_rows_mixing_types_in_a_column_read_as_text():
    """[{"score": "1"}, {"score": 0.5}] failed with pyarrow's "Expected bytes, got a
    'float' object"; the values are read as their text, as a CSV's are."""
    rows = [
        {"period": 1, "white_id": "1", "black_id": 2, "score": "1"},
        {"period": 1, "white_id": 3, "black_id": "4", "score": 0.5},
    ]
    got = final(arpad.rate(rows, system="elo"))
    assert got == {"1": 1510.0, "2": 1490.0, "3": 1500.0, "4": 1500.0}


def test_systems_that_need_published_ratings_say_so():
    """rate(games, system="fide") without players returned every player unrated (and
    Harkness no rows) where `arpad rate` refuses the store."""
    no_rating = pl.DataFrame(
        {"player_id": ["1"], "rating": [None]},
        schema={"player_id": pl.String, "rating": pl.Float64},
    )
    for system in ("fide", "harkness", "ingo"):
        with pytest.raises(ValueError, match=rf"{system} needs published starting ratings"):
            arpad.rate(GAMES, system=system)
        with pytest.raises(ValueError, match=r"needs published starting ratings"):
            arpad.rate(GAMES, system=system, players=no_rating)


def test_ratings_in_the_games_need_a_store_for_seeding_systems(tmp_path):
    """rate(games with WhiteElo/BlackElo, system="fide") returned every player unrated,
    where the store path seeds FIDE from those ratings (docs/observations.md)."""
    games = GAMES.with_columns(
        pl.Series("white_rating", [2100.0, 1900.0, 2000.0, 1800.0]),
        pl.Series("black_rating", [2000.0, 1800.0, 1900.0, 2100.0]),
    )
    with pytest.raises(ValueError, match=r"games: fide takes the ratings the games give"):
        arpad.rate(games, system="fide")
    path = tmp_path / "games.parquet"
    games.write_parquet(path)
    store = arpad.Store(tmp_path / "store")
    store.ingest(path)
    store.rate("fide")
    stored = store.ratings("fide").filter(pl.col("period") == 202501)
    # January: each player's observed rating is their rating, K 20 (FIDE table 8.1.2)
    assert stored.sort("player_id")["rating_before"].to_list() == [2100.0, 2000.0, 1900.0, 1800.0]
    assert arpad.rate(games, system="elo").height == 8  # Elo takes no observations


def test_rate_refuses_other_types_naming_the_argument():
    with pytest.raises(TypeError, match=r"games: .*list of dicts.*got ndarray"):
        arpad.rate(np.zeros((2, 4)), system="elo")
    with pytest.raises(TypeError, match=r"games: .*got list of int"):
        arpad.rate([1, 2, 3], system="elo")


def test_float_player_ids_are_the_integer_ids():
    """pandas makes an integer id column float64 as soon as one value is missing: 73.0 is
    player 73, not a player of its own (the players file names them 73)."""
    pd = pytest.importorskip("pandas")
    games = GAMES.to_pandas()
    games["white_id"] = games["white_id"].astype(float)  # 1.0, 3.0, 2.0, 4.0
    players = pd.DataFrame({"player_id": [1, 2, 3, 4], "rating": [2100, 2000, 1900, 1800]})
    got = arpad.rate(games, system="elo", players=players)
    assert sorted(got["player_id"].unique()) == ["1", "2", "3", "4"]
    start = {"1": 2100.0, "2": 2000.0, "3": 1900.0, "4": 1800.0}
    first = got.filter(pl.col("period") == 202501).sort("player_id")
    assert first["rating_before"].to_list() == list(start.values())
    # a fractional id stays what it says
    odd = GAMES.with_columns(pl.Series("white_id", [1.5, 3.0, 2.0, 4.0]))
    assert "1.5" in arpad.rate(odd, system="elo")["player_id"].to_list()


def test_float_periods_are_the_integer_periods():
    """A pandas period column with a missing value is float64: period 3.0 was
    quarantined as 'period 3.0 is not a positive integer'."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"period": [1, 2, None], "white_id": ["1", "2", "3"], "black_id": ["2", "1", "4"],
         "score": [1.0, 0.0, 0.5]}
    )  # fmt: skip
    assert frame["period"].dtype == np.float64
    got = arpad.rate(frame, system="elo", errors="skip")
    assert sorted(got["period"].unique()) == [1, 2]
    # 1 beat 2 in period 1, and again (as Black) in period 2: naive Elo, K = 20
    r1 = 1500 + 20 * 0.5
    e = 1 / (1 + 10 ** ((1500 - 20 * 0.5 - r1) / 400))
    assert abs(final(got)["1"] - (r1 + 20 * (1 - e))) < 1e-9
    with pytest.raises(arpad.InputError, match=r"bad_period: period 2.5"):
        arpad.rate(frame.assign(period=[1, 2.5, 2]), system="elo")


def test_a_dict_of_ragged_columns_names_the_argument():
    with pytest.raises(ValueError, match=r"games: the dict's columns do not make a table"):
        arpad.rate({"period": [1, 1], "white_id": ["a"], "black_id": ["b", "c"], "score": [1, 0]})


# -- keyword typos and wrong rules --------------------------------------------------------


def test_keyword_typo_names_the_parameter():
    with pytest.raises(
        TypeError, match=r"rate\(\) got an unexpected keyword argument 'sytem'.*system"
    ):
        arpad.rate(GAMES, sytem="elo")
    with pytest.raises(TypeError, match=r"predict\(\) .*'sytem'.*system"):
        arpad.predict(arpad.rate(GAMES, system="elo"), GAMES, sytem="elo")
    with pytest.raises(TypeError, match=r"'player'.*players"):
        arpad.rate(GAMES, system="elo", player=[])
    # a real rule field is still a rule field
    assert arpad.rate(GAMES, system="elo", k=32).height == 8


def test_rules_of_another_system_or_a_dict_are_refused():
    from arpad.pipeline.systems import get_system

    elo_rules = get_system("elo").rules_type(k=32)
    with pytest.raises(TypeError, match=r"rules: .*glicko2.*EloRules"):
        arpad.rate(GAMES, system="glicko2", rules=elo_rules)
    with pytest.raises(TypeError, match=r"rules: .*dict.*keyword"):
        arpad.rate(GAMES, system="elo", rules={"k": 32})
    with pytest.raises(TypeError, match=r"rules: "):
        arpad.predict(arpad.rate(GAMES, system="elo"), GAMES, system="glicko2", rules=elo_rules)
    got = final(arpad.rate(GAMES, system="elo", rules=elo_rules))
    want = naive_elo(GAMES, k=32)
    assert all(abs(got[p] - want[p]) < 1e-9 for p in want)


def test_unknown_pool_is_refused_and_an_empty_result_keeps_its_columns():
    with pytest.raises(ValueError, match=r"pool: 'bogus'.*standard, rapid, blitz"):
        arpad.rate(GAMES, system="elo", pool="bogus")
    full = arpad.rate(GAMES, system="elo")
    empty = arpad.rate(GAMES, system="elo", pool="rapid")  # no rapid games
    assert empty.height == 0 and set(empty.columns) >= set(full.columns)
    assert all(empty.schema[c] == full.schema[c] for c in full.columns)


def test_results_of_several_systems_concatenate(store):
    """rate's columns depended on the system (Elo 16, Glicko-2 19, ECF 14), so
    pl.concat of two systems' results failed; they are the ratings view's columns, as
    Store.ratings returns them (the docs said so)."""
    players = pl.DataFrame({"player_id": ["1", "2", "3", "4"], "rating": [2100, 2000, 1900, 1800]})
    results = [arpad.rate(GAMES, system=s, players=players) for s in arpad.systems()]
    both = pl.concat(results)
    assert both.height == sum(r.height for r in results)
    assert set(results[0].columns) >= set(store.ratings("elo").columns)
    elo = both.filter(pl.col("system") == "elo")
    assert elo["rd_after"].null_count() == elo.height  # Elo keeps no RD
    got = final(elo)
    want = naive_elo(GAMES, start={"1": 2100.0, "2": 2000.0, "3": 1900.0, "4": 1800.0})
    assert all(abs(got[p] - want[p]) < 1e-9 for p in want)


# -- predict and fit_draws ------------------------------------------------------------------


def test_predict_refuses_two_rows_of_one_player():
    """Two ratings rows of one player for one period (two systems' results concatenated,
    a frame without periods) made each pairing appear twice in the answer."""
    pairs = pl.DataFrame({"white_id": ["a"], "black_id": ["b"]})
    twice = pl.DataFrame({"player_id": ["a", "a", "b"], "rating": [1600.0, 1700.0, 1500.0]})
    with pytest.raises(ValueError, match=r"ratings: player 'a' has 2 rows"):
        arpad.predict(twice, pairs, system="elo")
    one = arpad.predict(twice.tail(2), pairs, system="elo")
    assert one.height == 1 and abs(one["expected"][0] - 1 / (1 + 10 ** (-200 / 400))) < 1e-12


def test_predict_uses_the_rows_of_its_system_when_ratings_hold_several():
    elo = arpad.rate(GAMES, system="elo")
    glicko2 = arpad.rate(GAMES, system="glicko2")
    both = pl.concat([elo, glicko2], how="diagonal_relaxed")
    pairs = pl.DataFrame({"white_id": ["1"], "black_id": ["4"]})
    for system, alone in (("elo", elo), ("glicko2", glicko2)):
        got = arpad.predict(both, pairs, system=system)
        assert got.equals(arpad.predict(alone, pairs, system=system))
    with pytest.raises(ValueError, match=r"ratings hold .*elo.*glicko2.*not fide"):
        arpad.predict(both, pairs, system="fide")


def test_predict_run_again_on_its_own_output():
    """A cell `pairs = arpad.predict(ratings, pairs)` run twice joined the ratings again
    as white_rating_right, and computed `expected` from the previous run's (stale)
    white_rating column instead of from `ratings`."""
    pairs = pl.DataFrame({"white_id": ["1", "4"], "black_id": ["4", "2"], "round": [1, 2]})
    first = arpad.predict(arpad.rate(GAMES, system="elo"), pairs, system="elo", draws=0.3)
    moved = pl.DataFrame({"player_id": ["1", "2", "4"], "rating": [1700.0, 1500.0, 1500.0]})
    again = arpad.predict(moved, first, system="elo", draws=0.3)
    assert again.columns == first.columns
    assert again["white_rating"].to_list() == [1700.0, 1500.0]
    assert abs(again["expected"][0] - 1 / (1 + 10 ** (-200 / 400))) < 1e-12
    assert again["expected"][1] == 0.5
    assert arpad.predict(moved, again, system="elo", draws=0.3).equals(again)


def test_predict_reads_files_as_the_command_does(tmp_path):
    """The TypeError said 'or a file path', but predict took no path; now a CSV (read
    as text, as `arpad predict PAIRINGS.csv`) or a Parquet file."""
    ratings = arpad.rate(GAMES, system="elo")
    pairs = pl.DataFrame({"white_id": ["1", "4"], "black_id": ["4", "2"]})
    want = arpad.predict(ratings, pairs, system="elo")
    pairs.write_csv(tmp_path / "pairs.csv")
    ratings.write_parquet(tmp_path / "ratings.parquet")
    got = arpad.predict(tmp_path / "ratings.parquet", str(tmp_path / "pairs.csv"), system="elo")
    assert got.equals(want)
    with pytest.raises(FileNotFoundError, match=r"pairings: no such file"):
        arpad.predict(ratings, tmp_path / "nope.csv", system="elo")


def test_glicko_predictions_need_the_rds():
    """A Glicko-2 frame without RDs (Store.list's columns) was predicted with RD 0: the
    plain logistic curve, not Glickman's g(RD)-damped one, without a word."""
    glicko2 = arpad.rate(GAMES, system="glicko2")
    pairs = pl.DataFrame({"white_id": ["1"], "black_id": ["4"]})
    with pytest.raises(ValueError, match=r"ratings: glicko2 predicts with the players' RDs"):
        arpad.predict(glicko2.drop("rd_after", "rd_before"), pairs, system="glicko2")
    got = arpad.predict(glicko2, pairs, system="glicko2")["expected"][0]
    last = glicko2.filter(pl.col("period") == 202502)
    r = dict(zip(last["player_id"], last["rating_after"], strict=True))
    rd = dict(zip(last["player_id"], last["rd_after"], strict=True))
    q = math.log(10) / 400  # Glickman (1999): E = 1/(1 + 10^(-g(sqrt(RD1²+RD2²))(r1-r2)/400))
    g = 1 / math.sqrt(1 + 3 * q**2 * (rd["1"] ** 2 + rd["4"] ** 2) / math.pi**2)
    assert abs(got - 1 / (1 + 10 ** (-g * (r["1"] - r["4"]) / 400))) < 1e-12
    elo = arpad.rate(GAMES, system="elo").drop("rd_after", "rd_before", strict=False)
    assert arpad.predict(elo, pairs, system="elo").height == 1  # Elo has no RD to need


def test_fit_draws_names_a_missing_column():
    predicted = arpad.predict(arpad.rate(GAMES, system="elo"), GAMES, system="elo")
    with pytest.raises(ValueError, match=r"predicted: no column 'score'"):
        arpad.fit_draws(predicted)


# -- WHR on games all won by one colour ------------------------------------------------------


def test_whr_when_every_game_is_won_by_white():
    """The white advantage has no finite estimate when White won every game; its Newton
    step divided by zero inside the kernel (ZeroDivisionError from Numba)."""
    one = pl.DataFrame(
        {"date": ["2025-01-10"], "white_id": ["a"], "black_id": ["b"], "result": ["1-0"]}
    )
    for games in (one, pl.concat([one, one])):
        got = arpad.rate(games, system="whr")
        ratings = dict(zip(got["player_id"], got["rating_after"], strict=True))
        assert all(math.isfinite(r) for r in ratings.values())
        assert ratings["a"] >= ratings["b"]
    # with the advantage fixed the winner gains what the loser loses (equal priors), to
    # the fit's convergence (Gauss-Seidel sweeps stop at steps below 1e-6)
    fixed = arpad.rate(one, system="whr", white_advantage=0)
    r = dict(zip(fixed["player_id"], fixed["rating_after"], strict=True))
    assert r["a"] > r["b"] and abs((r["a"] - 1500) - (1500 - r["b"])) < 0.01


# -- a store ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analyst")
    path = folder / "games.csv"
    GAMES.write_csv(path)
    store = arpad.Store(folder / "store")
    store.ingest(path)
    store.rate("elo")
    return store


def test_store_list_checks_top_and_period(store):
    assert store.list("elo", top=2).height == 2
    for bad in (0, -1):
        with pytest.raises(ValueError, match=r"top: a positive number of players"):
            store.list("elo", top=bad)
    with pytest.raises(TypeError, match=r"top: a positive number of players, got str"):
        store.list("elo", top="5")
    by_text = store.list("elo", period="2025-01")
    assert by_text.equals(store.list("elo", period=202501))
    assert store.list("elo", period="202501").equals(by_text)


def test_store_player_calls_take_int_ids_and_refuse_lists(store):
    want = naive_elo(GAMES)
    history = store.history(1, system="elo")
    assert abs(history["rating_after"][-1] - want["1"]) < 1e-9
    assert store.history(1, system="elo").equals(store.history("1", system="elo"))
    with pytest.raises(TypeError, match=r"player: one player id or name.*got list"):
        store.history(["1", "2"], system="elo")
    with pytest.raises(TypeError, match=r"player: one player id or name.*got NoneType"):
        store.history(None, system="elo")


def test_plot_history_takes_one_player_as_text_and_int_ids(store):
    """plot_history("12") drew players "1" and "2" (the text iterated as characters)."""
    _, ax = store.plot_history("1", system="elo")
    assert len(ax.get_lines()) == 1
    _, ax = store.plot_history([1, 2], system="elo")
    assert len(ax.get_lines()) == 2


def test_store_periods_as_text_everywhere(store):
    """card(period="202502") failed with "unsupported operand type(s) for //" and
    diff("202502") with "invalid period '202502'"; era(top="3") with a TypeError from a
    comparison; plot_history([]) drew an empty figure."""
    with pytest.raises(ValueError, match=r"no FIDE standard rating row for 1 in period 202502"):
        store.card("1", period="2025-02")  # the period is read; this store has no FIDE
    with pytest.raises(TypeError, match=r"top: a positive number of players, got str"):
        store.era("elo", top="3")
    with pytest.raises(ValueError, match=r"players: give at least one"):
        store.plot_history([], system="elo")
    with pytest.raises(ValueError, match=r"period: period 'soon'"):
        store.diff("soon", "elo")


def test_plots_leave_the_notebooks_matplotlib_alone(store, tmp_path):
    """pipeline/plots.py called matplotlib.use("Agg") on import: the first plot_history
    of a session switched the notebook's backend to Agg and closed its open figures."""
    import subprocess
    import sys

    code = (
        "import sys, matplotlib; matplotlib.use('pdf'); import matplotlib.pyplot as plt; "
        "import arpad; mine = plt.figure(); "
        "fig, ax = arpad.Store(sys.argv[1]).plot_history(['1', '2'], system='elo'); "
        "assert matplotlib.get_backend() == 'pdf', matplotlib.get_backend(); "
        "assert plt.fignum_exists(mine.number), 'the open figure was closed'; "
        "assert len(ax.get_lines()) == 2; fig.savefig(sys.argv[2])"
    )
    png = tmp_path / "h.png"
    subprocess.run([sys.executable, "-c", code, str(store.path), str(png)], check=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_store_card_takes_a_rules_object(store):
    """card(rules=FideRules(...)) failed in pathlib ('expected str, bytes or os.PathLike
    object, not FideRules'); a dict is refused naming the argument."""
    from arpad.pipeline.systems import get_system

    with pytest.raises(TypeError, match=r"rules: .*FideRules for fide, got dict"):
        store.card("1", rules={"k": 20})
    with pytest.raises(ValueError, match=r"no fide ratings"):  # this store has Elo only
        store.card("1", rules=get_system("fide").rules_type())


def test_site_takes_one_pool_as_text(store, tmp_path):
    """site(out, pools="standard") looked for the pools s, t, a, n, d, a, r, d."""
    from arpad.pipeline.site import NothingPublishedError

    with pytest.raises(NothingPublishedError, match=r"no published list of standard in"):
        store.site(tmp_path / "site", pools="standard")  # nothing published in this store


def test_store_sql_takes_its_parameters_as_a_list(store):
    n = store.sql("SELECT count(*) AS n FROM ratings WHERE system = ?", "elo")["n"][0]
    assert n == 8
    assert store.sql("SELECT count(*) AS n FROM ratings WHERE system = ?", ["elo"])["n"][0] == n
    both = store.sql("SELECT ? AS a, ? AS b", ("x", "y"))
    assert both.row(0) == ("x", "y")


def test_store_ingest_refuses_a_dataframe_and_a_number(store):
    with pytest.raises(TypeError, match=r"files: .*paths.*got DataFrame.*arpad.rate"):
        store.ingest(GAMES)
    with pytest.raises(TypeError, match=r"files: .*got int"):
        store.ingest(5)
    with pytest.raises(TypeError, match=r"players: .*got DataFrame"):
        store.ingest([], players=GAMES)


def test_store_ingest_refuses_unknown_keywords(store, tmp_path):
    """ingest(f, player="p.csv") or mappping= were dropped without a word (the players
    file never ingested)."""
    with pytest.raises(TypeError, match=r"ingest\(\) .*'player' \(did you mean players=\?\)"):
        store.ingest([], player="p.csv")
    with pytest.raises(TypeError, match=r"'mappping' \(did you mean mapping=\?\)"):
        store.ingest([], mappping="kaggle2010")
    with pytest.raises(TypeError, match=r"workers: a positive number of workers, got str"):
        store.ingest([], workers="2")


def test_store_rate_checks_periods_and_workers(store):
    with pytest.raises(TypeError, match=r"workers: a positive number of workers, got str"):
        store.rate("elo", workers="2")
    with pytest.raises(TypeError, match=r"rate\(\) got an unexpected keyword argument 'sytem'"):
        store.rate(sytem="elo")
    summary = store.rate("elo", start="2025-02", end="202502")
    assert summary.periods == [202502]
    with pytest.raises(ValueError, match=r"start: period 'soon'"):
        store.rate("elo", start="soon")
    with pytest.raises(ValueError, match=r"^start 202502 is after end 202501$"):
        store.rate("elo", start=202502, end="2025-01")  # said "--from … is after --to …"


def test_store_calls_check_system_shards_and_rules(store):
    from arpad.pipeline.systems import get_system

    with pytest.raises(ValueError, match=r"invalid system name None"):
        store.list(None)  # was AttributeError: 'NoneType' object has no attribute 'replace'
    with pytest.raises(ValueError, match=r"invalid system name"):
        store.history("1", system=["elo"])
    with pytest.raises(TypeError, match=r"shards: a positive number of shards, got str"):
        store.rate("elo", shards="2")
    with pytest.raises(TypeError, match=r"rules: a rules spec .*got EloRules"):
        store.rate("elo", rules=get_system("elo").rules_type(k=32))


def test_a_busy_store_says_what_the_api_takes(store):
    """StoreBusyError told a notebook to 'pass --wait SECONDS', which no API call took."""
    import subprocess
    import sys

    hold = (
        "import sys, time; from pathlib import Path; "
        "from arpad.pipeline.store import writer_lock; "
        "lock = writer_lock(Path(sys.argv[1]), 'another writer'); lock.__enter__(); "
        "print('held', flush=True); sys.stdin.readline()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(store.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(arpad.StoreBusyError, match=r"or pass wait=SECONDS\)"):
            store.rate("elo")
        with pytest.raises(arpad.StoreBusyError, match=r"wait=SECONDS"):
            store.ingest([], wait=0.3)
    finally:
        holder.communicate("\n", timeout=30)
    assert store.rate("elo", wait=1).system == "elo"  # the lock is free again


def test_home_folder_paths(tmp_path, monkeypatch):
    """arpad.Store("~/s") expanded ~, but rate("~/games.csv") and ingest("~/games.csv")
    said 'no such file'."""
    monkeypatch.setenv("HOME", str(tmp_path))
    GAMES.write_csv(tmp_path / "games.csv")
    want = naive_elo(GAMES)
    got = final(arpad.rate("~/games.csv", system="elo"))
    assert all(abs(got[p] - want[p]) < 1e-9 for p in want)
    store = arpad.Store("~/store")
    assert store.ingest("~/games.csv").files[0].accepted == 4
    assert store.ingest(["~/games.csv"]).files[0].skipped  # the same file again


def test_store_ratings_of_an_unknown_system(store):
    with pytest.raises(ValueError, match=r"unknown rating system 'elo3'"):
        store.ratings("elo3")
    assert store.ratings("elo").height == 8


# -- reading a store while a run rewrites it ----------------------------------------------


def test_reads_while_ratings_files_are_replaced(tmp_path):
    """A writer replaces each period's ratings file atomically (docs/operations.md "What a
    reader sees during a run"), but DuckDB opens a file by its path more than once per
    query: a file replaced in between failed the query with a raw DuckDB error ('Prefetch
    registered for bytes outside file', 'TProtocolException: Invalid data'). The reader
    now runs such a query again; the answers are the store's, before or after (history:
    each period of one run or the other)."""
    import shutil
    import threading
    import time

    rng = np.random.default_rng(7)
    n, players = 60_000, 3_000  # 20 periods of 3,000 games: files of 3,000 rows
    white = rng.integers(0, players, n)
    frame = pl.DataFrame(
        {
            "period": np.repeat(np.arange(1, 21), n // 20),
            "white_id": white.astype(str),
            "black_id": ((white + rng.integers(1, players, n)) % players).astype(str),
            "score": rng.integers(0, 3, n) / 2,
        }
    )
    path = tmp_path / "games.parquet"
    frame.write_parquet(path)
    store = arpad.Store(tmp_path / "store")
    store.ingest(path)
    versions = []  # the files and answers of two runs (tau 0.5 and 1.2)
    for tau in (0.5, 1.2):
        store.rate("glicko2", tau=tau, full=True)
        files = sorted((tmp_path / "store").rglob("ratings/**/*.parquet"))
        answers = (
            store.list("glicko2"),
            store.history("7", system="glicko2"),
        )
        versions.append(([(f, f.read_bytes()) for f in files], answers))
    stop = threading.Event()

    def rewrite():  # one run's files, then the other's, replaced file by file as a run does
        while not stop.is_set():
            for copies, _ in versions:
                for target, data in copies:
                    tmp = target.with_name(f".{target.name}.tmp")
                    tmp.write_bytes(data)
                    tmp.replace(target)
                    time.sleep(0.01)  # a period every 10 ms: a fast run

    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        deadline = time.monotonic() + 6
        calls = 0
        while time.monotonic() < deadline:
            top = store.list("glicko2")
            assert any(top.equals(answers[0]) for _, answers in versions)
            history = store.history("7", system="glicko2")  # periods of either run
            assert history.height == versions[0][1][1].height
            calls += 1
    finally:
        stop.set()
        writer.join()
    assert calls >= 3 and len(versions[0][0]) == 20
    shutil.rmtree(tmp_path / "store")
