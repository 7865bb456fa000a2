"""Round two of a notebook user's inputs against the Python API (docs/api.md "Arguments:
what a notebook gets wrong, and what it gets back"): tables in the dtypes and containers
pandas, polars, pyarrow, DuckDB and NumPy hand out, results fed back in, and the Store's
keyword typos. Each call gives the ratings of the same games as a CSV file (read as
``arpad ingest`` reads it), checked against a naive Elo walk, or a one-line Python
exception naming the argument."""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
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
PLAYERS = pl.DataFrame(
    {"player_id": ["1", "2", "3", "4"], "rating": [2100, 2000, 1900, 1800], "rated_games": [50] * 4}
)


def naive_elo(k: float = 20.0) -> dict[tuple[int, str], float]:
    """(period, player) → Elo rating after the period, one game at a time from 1500, a
    period's changes summed from the ratings at its start."""
    rating: dict[str, float] = {}
    out = {}
    for month in sorted(set(GAMES["date"].str.slice(0, 7))):
        change: dict[str, float] = {}
        for g in GAMES.filter(GAMES["date"].str.starts_with(month)).iter_rows(named=True):
            w, b = g["white_id"], g["black_id"]
            s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[g["result"]]
            e = 1 / (1 + 10 ** ((rating.get(b, 1500.0) - rating.get(w, 1500.0)) / 400))
            change[w] = change.get(w, 0.0) + k * (s - e)
            change[b] = change.get(b, 0.0) - k * (s - e)
        for p, d in change.items():
            rating[p] = rating.get(p, 1500.0) + d
            out[(int(month.replace("-", "")), p)] = rating[p]
    return out


def by_key(ratings: pl.DataFrame) -> dict[tuple[int, str], float]:
    rows = ratings.select("period", "player_id", "rating_after").iter_rows()
    return {(p, i): r for p, i, r in rows}


@pytest.fixture(scope="module")
def csv_ratings(tmp_path_factory):
    """The reference: the games as a CSV file, rated as ``arpad ingest`` reads it."""
    path = tmp_path_factory.mktemp("csv") / "games.csv"
    GAMES.write_csv(path)
    return by_key(arpad.rate(path, system="elo"))


def test_the_csv_reference_is_the_naive_walk(csv_ratings):
    want = naive_elo()
    assert csv_ratings.keys() == want.keys()
    assert all(abs(csv_ratings[k] - want[k]) < 1e-9 for k in want)


def _pandas() -> pd.DataFrame:
    return GAMES.to_pandas()


def _with_period(frame: pd.DataFrame, values) -> pd.DataFrame:
    return frame.drop(columns="date").assign(period=values)


ALREADY_RIGHT = {
    # shapes that were right before this round: kept right
    "pandas categorical": lambda: _pandas().astype("category"),
    "pandas object": lambda: _pandas().astype(object),
    "pandas Int64 ids": lambda: _pandas().astype({"white_id": "Int64", "black_id": "Int64"}),
    "pandas pyarrow-backed": lambda: _pandas().convert_dtypes(dtype_backend="pyarrow"),
    "pandas datetime64 date": lambda: _pandas().assign(date=pd.to_datetime(_pandas()["date"])),
    "pandas tz-aware date": lambda: _pandas().assign(
        date=pd.to_datetime(_pandas()["date"]).dt.tz_localize("Europe/Berlin")
    ),
    "pandas period as text": lambda: _with_period(_pandas(), _pandas()["date"].str[:7]),
    "polars LazyFrame": lambda: GAMES.lazy(),
    "polars Categorical": lambda: GAMES.with_columns(pl.all().cast(pl.Categorical)),
    "polars Enum": lambda: GAMES.with_columns(
        pl.col("white_id", "black_id").cast(pl.Enum(["1", "2", "3", "4"]))
    ),
    "arrow chunked": lambda: pa.concat_tables(
        [GAMES.to_arrow().slice(0, 1), GAMES.to_arrow().slice(1)]
    ),
    "arrow dictionary": lambda: pa.table(
        {c: GAMES.to_arrow()[c].dictionary_encode() for c in GAMES.columns}
    ),
    "generator of dicts": lambda: (row for row in GAMES.iter_rows(named=True)),
    "dict of numpy arrays": lambda: {c: GAMES[c].to_numpy() for c in GAMES.columns},
    "extra columns": lambda: GAMES.with_columns(note=pl.lit("x"), board=pl.lit(1)),
}

FIXED = {
    # each of these raised, or was refused, before this round
    "pandas ids mixing int and str": lambda: _pandas().assign(white_id=[1, 3, "2", "4"]),
    "dict ids mixing int and str": lambda: {
        **{c: GAMES[c].to_list() for c in GAMES.columns},
        "white_id": [1, 3, "2", "4"],
    },
    "rows mixing float and str ids": lambda: [
        {**r, "white_id": 1.0 if r["white_id"] == "1" else r["white_id"]}
        for r in GAMES.iter_rows(named=True)
    ],
    "pandas Period period": lambda: _with_period(
        _pandas(), pd.to_datetime(_pandas()["date"]).dt.to_period("M")
    ),
    "pandas Period date": lambda: _pandas().assign(
        date=pd.to_datetime(_pandas()["date"]).dt.to_period("D")
    ),
    "pandas datetime period": lambda: _with_period(
        _pandas(), pd.to_datetime(_pandas()["date"].str[:7])
    ),
    "pandas tz-aware period": lambda: _with_period(
        _pandas(), pd.to_datetime(_pandas()["date"]).dt.tz_localize("Asia/Tokyo")
    ),
    "polars Date period": lambda: GAMES.with_columns(
        period=pl.col("date").str.to_date().dt.truncate("1mo")
    ).drop("date"),
    "polars Date period mid-month": lambda: GAMES.with_columns(
        period=pl.col("date").str.to_date()
    ).drop("date"),
    "pandas categorical of Periods": lambda: _with_period(
        _pandas(), pd.Categorical(pd.to_datetime(_pandas()["date"]).dt.to_period("M"))
    ),
    "pandas named index": lambda: _pandas().set_index("white_id"),
    "arrow string_view": lambda: GAMES.to_arrow().cast(
        pa.schema([(c, pa.string_view()) for c in GAMES.columns])
    ),
    # extra columns of types the readers refuse: "only scalar columns are read"
    "extra list and struct columns": lambda: GAMES.with_columns(
        tags=pl.lit(["a", "b"]), note=pl.struct(a=pl.lit(1))
    ),
    "extra timedelta and mixed object columns": lambda: _pandas().assign(
        clock=pd.to_timedelta([1, 2, 3, 4], unit="s"), z=[[1], "x", None, 2]
    ),
    "arrow RecordBatch": lambda: GAMES.to_arrow().to_batches()[0],
    "arrow RecordBatchReader": lambda: pa.RecordBatchReader.from_batches(
        GAMES.to_arrow().schema, GAMES.to_arrow().to_batches(max_chunksize=1)
    ),
    "duckdb relation": lambda: duckdb.connect().from_arrow(GAMES.to_arrow()),
    "numpy structured array": lambda: np.array(
        list(GAMES.iter_rows()), dtype=[(c, "U10") for c in GAMES.columns]
    ),
}


@pytest.mark.parametrize("shape", [*ALREADY_RIGHT, *FIXED])
def test_games_in_every_shape_rate_as_the_csv(shape, csv_ratings):
    make = ALREADY_RIGHT.get(shape) or FIXED[shape]
    got = by_key(arpad.rate(make(), system="elo"))
    assert got.keys() == csv_ratings.keys()
    assert all(abs(got[k] - csv_ratings[k]) < 1e-9 for k in got)


def test_a_tz_aware_period_is_the_month_of_its_local_date():
    # 1 Feb 01:00 in Tokyo is 31 Jan in UTC: the local calendar date decides, as for `date`
    at = pd.to_datetime(["2025-02-01 01:00", "2025-01-10 10:00"]).tz_localize("Asia/Tokyo")
    games = pd.DataFrame({"period": at, "white_id": ["a", "b"], "black_id": ["b", "a"]})
    ratings = arpad.rate(games.assign(score=[1.0, 0.0]), system="elo")
    assert sorted(set(ratings["period"])) == [202501, 202502]


def test_pandas_periods_other_than_months_name_the_column():
    games = _with_period(_pandas(), pd.to_datetime(_pandas()["date"]).dt.to_period("Q"))
    with pytest.raises(ValueError, match=r"^games: column 'period' holds pandas Periods of "):
        arpad.rate(games, system="elo")


def test_columns_arpad_reads_of_unreadable_types_are_still_named():
    games = GAMES.with_columns(period=pl.duration(days=pl.Series([1, 1, 2, 2]))).drop("date")
    with pytest.raises(arpad.InputError, match=r"column 'period' has the type duration"):
        arpad.rate(games, system="elo")


def test_predict_keeps_the_pairings_other_columns_as_they_are():
    ratings = arpad.rate(GAMES, system="elo")
    pairs = pl.DataFrame({"white_id": ["1"], "black_id": ["2"], "tags": [["a", "b"]]})
    assert arpad.predict(ratings, pairs, system="elo")["tags"].to_list() == [["a", "b"]]


def test_pandas_month_periods_as_dates_name_the_column():
    # a CSV's date 2025-01 is a bad_date: months go in a period column
    games = _pandas().assign(date=pd.to_datetime(_pandas()["date"]).dt.to_period("M"))
    with pytest.raises(ValueError, match=r"^games: column 'date' holds pandas Periods of freq"):
        arpad.rate(games, system="elo")


def test_rules_given_as_dates():
    players = PLAYERS.with_columns(rating=pl.col("rating") + 300)  # K 10 from 2400 (2014)
    want = arpad.rate(GAMES, system="fide", players=players, rules="2014-07")
    for day in (pd.Period("2014-07", "M"), pd.Timestamp("2014-07-01"), dt.date(2014, 7, 1)):
        assert arpad.rate(GAMES, system="fide", players=players, rules=day).equals(want)
    assert not want.equals(arpad.rate(GAMES, system="fide", players=players, rules="2022-01"))
    what = arpad.whatif(GAMES, "2014-07", "2022-01", players=players)
    for day in (pd.Period("2014-07", "M"), pd.Timestamp("2014-07-01")):
        other = arpad.whatif(GAMES, day, "2022-01", players=players)
        assert other.movers.equals(what.movers) and other.rules_a == what.rules_a


def test_duplicate_column_names_name_the_argument():
    games = pd.concat([_pandas(), _pandas()[["white_id"]]], axis=1)
    with pytest.raises(ValueError, match=r"^games: duplicate column names: white_id$"):
        arpad.rate(games, system="elo")
    pairs = pd.DataFrame([["1", "2", "3"]], columns=["white_id", "black_id", "black_id"])
    ratings = arpad.rate(GAMES, system="elo")
    with pytest.raises(ValueError, match=r"^pairings: duplicate column names: black_id$"):
        arpad.predict(ratings, pairs, system="elo")


def test_players_in_every_shape_give_the_same_fide_ratings():
    want = arpad.rate(GAMES, system="fide", players=PLAYERS)["rating_after"].to_list()
    # K 20, FIDE table 8.1.2 (docs/api.md's first example): the last period's ratings
    assert want[-4:] == [2090.0, 1980.0, 1910.0, 1820.0]
    shapes = [
        PLAYERS.to_pandas().assign(player_id=[1, "2", 3, "4"]),  # mixed: raised ArrowInvalid
        PLAYERS.to_pandas().assign(player_id=[1, 2, 3, 4]),
        PLAYERS.to_pandas().astype({"player_id": "category", "rating": "Int64"}),
        PLAYERS.lazy(),
        PLAYERS.to_arrow().to_batches()[0],
        duckdb.connect().from_arrow(PLAYERS.to_arrow()),
        (r for r in PLAYERS.iter_rows(named=True)),
        {
            "player_id": np.arange(1, 5),
            "rating": np.array([2100, 2000, 1900, 1800]),
            "rated_games": np.full(4, 50),
        },
    ]
    for players in shapes:
        got = arpad.rate(GAMES, system="fide", players=players)["rating_after"].to_list()
        assert got == want, type(players).__name__


def test_empty_inputs_give_no_rows_with_the_columns_or_name_what_is_missing():
    columns = arpad.rate(GAMES, system="elo").columns
    for empty in (GAMES.clear(), GAMES.clear().lazy(), _pandas().iloc[:0],
                  GAMES.to_arrow().slice(0, 0), {c: [] for c in GAMES.columns},
                  np.array([], dtype=[(c, "U10") for c in GAMES.columns]),
                  pa.RecordBatchReader.from_batches(GAMES.to_arrow().schema, []),
                  duckdb.connect().from_arrow(GAMES.to_arrow()).limit(0)):  # fmt: skip
        out = arpad.rate(empty, system="elo")
        assert out.height == 0 and out.columns == columns
    for nothing in ([], {}, iter([])):  # no columns at all: as a CSV with no header
        with pytest.raises(arpad.InputError, match=r"missing required column\(s\): white_id"):
            arpad.rate(nothing, system="elo")


def test_one_game():
    out = arpad.rate(GAMES.head(1), system="elo").sort("player_id")
    assert out["rating_after"].to_list() == [1510.0, 1490.0]  # K 20, E 0.5


def test_other_numpy_arrays_are_still_refused():
    with pytest.raises(TypeError, match=r"^games: expected a polars .* got ndarray$"):
        arpad.rate(np.zeros((4, 4)), system="elo")


def test_predict_float_ids_are_the_integer_ids():
    ratings = arpad.rate(GAMES, system="fide", players=PLAYERS)
    by_text = arpad.predict(ratings, {"white_id": ["1", "2"], "black_id": ["3", "4"]}, "fide")
    # a pandas integer column with a missing value is float64: 1.0 is player "1"
    pairs = pd.DataFrame({"white_id": [1.0, 2.0, 1.0], "black_id": [3.0, 4.0, np.nan]})
    got = arpad.predict(ratings, pairs, system="fide")
    assert got["expected"].to_list()[:2] == by_text["expected"].to_list() == [0.74, 0.71]
    assert got["expected"][2] is None and got["white_rating"][2] == 2090.0
    as_floats = ratings.to_pandas().assign(player_id=lambda f: f["player_id"].astype(float))
    again = arpad.predict(as_floats, {"white_id": [1, 2], "black_id": [3, 4]}, "fide")
    assert again["expected"].to_list() == [0.74, 0.71]


def test_results_fed_back_in():
    ratings = arpad.rate(GAMES, system="glicko2")
    pairs = pl.DataFrame({"white_id": ["1", "2"], "black_id": ["3", "4"]})
    first = arpad.predict(ratings, pairs, system="glicko2")
    assert arpad.predict(ratings, first, system="glicko2").equals(first)
    assert arpad.predict(ratings.to_pandas(), pairs.lazy(), system="glicko2").equals(first)
    with pytest.raises(ValueError, match=r"no player_id: the pairings\?"):
        arpad.predict(first, pairs, system="elo")  # predictions are no ratings


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attack2")
    GAMES.write_csv(folder / "games.csv")
    store = arpad.Store(folder / "store")
    store.ingest(folder / "games.csv")
    store.rate("elo")
    return store


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("sytems", "systems"),
        ("system", "systems"),
        ("pool", "pools"),
        ("worker", "workers"),
        ("wiat", "wait"),
    ],
)
def test_store_reconstruct_keyword_typos_name_the_parameter(store, typo, meant):
    # before: "unknown rule field 'system' for EcfRules", the first system's rules
    with pytest.raises(TypeError, match=rf"reconstruct\(\) got an unexpected keyword argument "
                       rf"'{typo}' \(did you mean {meant}=\?\)$"):  # fmt: skip
        store.reconstruct("elo", **{typo: 1})


def test_store_reconstruct_takes_systems_as_tuple_set_or_generator(store):
    want = store.reconstruct(["elo", "glicko"])
    for systems in (("elo", "glicko"), {"glicko", "elo"}, (s for s in ["elo", "glicko"])):
        got = store.reconstruct(systems, pools=frozenset({"standard"}))
        assert sorted(s.system for s in got) == ["elo", "glicko"]
        assert {s.system: s.games for s in got} == {s.system: s.games for s in want}
    assert by_key(store.ratings("elo")) == pytest.approx(naive_elo())


def test_store_rate_and_card_keyword_typos(store):
    for typo, meant in (("flw", "flow"), ("worker", "workers"), ("wiat", "wait")):
        with pytest.raises(TypeError, match=rf"'{typo}' \(did you mean {meant}=\?\)"):
            store.rate("elo", **{typo: 1})
    # before: the typo went in as a FIDE rule field and the card answered something else
    with pytest.raises(TypeError, match=r"card\(\) .* 'perod' \(did you mean period=\?\)"):
        store.card("1", perod=202501)


def test_store_ratings_of_an_unknown_pool(store):
    with pytest.raises(ValueError, match=r"^pool: 'rapd' is not one of standard, rapid, blitz$"):
        store.ratings("elo", pool="rapd")  # was an empty frame


def test_store_periods_as_pandas_periods(store):
    assert store.list("elo", period=pd.Period("2025-01", "M")).equals(
        store.list("elo", period=202501)
    )
    assert store.list("elo", period=np.int64(202501)).equals(store.list("elo", period=202501))
    with pytest.raises(ValueError, match=r"^period: a pandas Period of a month"):
        store.list("elo", period=pd.Period("2025Q1", "Q"))
    for day in (pd.Timestamp("2025-01-01"), dt.date(2025, 1, 1)):
        with pytest.raises(TypeError, match=r"^period: .* \(its month as '2024-03'; Store.list"):
            store.list("elo", period=day)


def test_system_must_be_one_name():
    pairs = {"white_id": ["1"], "black_id": ["2"]}
    ratings = arpad.rate(GAMES, system="elo")
    calls = (
        lambda s: arpad.rate(GAMES, system=s),
        lambda s: arpad.predict(ratings, pairs, system=s),  # was "unhashable type: 'list'"
    )
    for call in calls:
        with pytest.raises(ValueError, match=r"^system: invalid system name \['elo'\]: one "):
            call(["elo"])
        with pytest.raises(ValueError, match=r"^system: invalid system name None: one name"):
            call(None)  # predict: was AttributeError 'NoneType' object has no attribute


def test_rule_values_that_are_no_number_say_so_as_set_does():
    # in memory these were TypeErrors from the Elo kernel and the range check
    for bad, text in ((None, "None"), ([32], r"\[32\]")):
        with pytest.raises(ValueError, match=rf"^rule k: cannot read '{text}' as float$"):
            arpad.rate(GAMES, system="elo", k=bad)
    k32 = arpad.rate(GAMES, system="elo", k=32)
    for same in (np.int64(32), np.float64(32.0), "32", 32.0):
        # the rules hash too: k=32 hashed as the int 32, "32" as the float --set gives
        assert arpad.rate(GAMES, system="elo", k=same).equals(k32)


def test_rule_values_hash_as_the_command_sets_them(store):
    store.rate("elo", k=32)
    stored = store.ratings("elo")["rules_hash"].unique().to_list()
    store.rate("elo")  # the fixture's ratings back
    assert arpad.rate(GAMES, system="elo", k=32)["rules_hash"].unique().to_list() == stored


def test_fit_draws_takes_results_as_text():
    expected = [0.5, 0.6, 0.7, 0.4, 0.55]
    as_numbers = arpad.fit_draws(pd.DataFrame({"expected": expected[:4], "score": [1, 0.5, 1, 0]}))
    as_text = arpad.fit_draws(  # a forfeit (0-1f) is no game: left out
        pd.DataFrame({"expected": expected, "score": ["1-0", "1/2-1/2", "1", "0-1", "0-1f"]})
    )
    assert as_text == as_numbers
    with pytest.raises(ValueError, match=r"^predicted: column 'score' holds 'win': White's score"):
        arpad.fit_draws(pd.DataFrame({"expected": [0.5], "score": ["win"]}))


def test_store_takes_series_and_arrays_of_paths_and_sql_parameters(store, tmp_path):
    other = tmp_path / "more.csv"
    GAMES.with_columns(pl.col("date").str.replace("2025", "2026")).write_csv(other)
    report = store.ingest(pd.Series([str(other)]))  # was "got Series (in-memory games…"
    assert report.accepted == 4
    assert store.ingest(np.array([str(other)])).accepted == 0  # the same file, once
    got = store.sql("SELECT ? + ? AS s", np.array([1, 2]))  # was "Values were not provided"
    assert got["s"].to_list() == [3]
    assert store.sql("SELECT ? AS s", np.int64(7))["s"].to_list() == [7]  # DuckDB refused it


def test_store_reconstruct_with_two_workers_equals_one(store):
    store.reconstruct({"glicko", "elo"})
    alone = {s: store.ratings(s).drop("run_id", strict=False) for s in ("elo", "glicko")}
    summaries = (
        store.reconstruct(s for s in ("elo", "glicko")),
        store.reconstruct(("elo", "glicko"), pools=("standard",), workers=2),
    )
    assert [sorted(x.system for x in run) for run in summaries] == [["elo", "glicko"]] * 2
    for system, frame in alone.items():
        assert frame.height >= 8  # 4 players, 2 periods or more
        assert store.ratings(system).drop("run_id", strict=False).equals(frame)


def test_predict_with_its_arguments_swapped_says_so():
    """`predict(pairings, ratings)` (the order swapped, a hurried notebook call) said the
    frame had no rd column (glicko2) or no player_id; it now names the mistake."""
    games = {"period": [1, 1], "white_id": ["a", "b"], "black_id": ["c", "d"], "score": [1, 0]}
    ratings = arpad.rate(games, system="glicko2")
    pairings = {"white_id": ["a"], "black_id": ["b"]}  # a won, b lost
    for system in ("glicko2", "elo"):
        with pytest.raises(
            ValueError, match=r"the pairings\? The call is predict\(ratings, pairings\)"
        ):
            arpad.predict(pairings, ratings, system=system)
    assert arpad.predict(ratings, pairings, system="glicko2")["expected"][0] > 0.5
