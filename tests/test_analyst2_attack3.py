"""A second analyst's round 3 (docs/api.md "Attacked in a notebook: predict's rules"):
``predict`` with the rules the ratings were made with (store runs, ``rate`` results,
``--set``), WHR's and Glicko-2's own scale, ECF's cumulative interim rows in
``period_summary``, text and zero-divisor rule fields, ``predict``'s ``pool``/``period``
and ``Store.ratings``."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from tests.conftest import write_csv

KAGGLE = Path(__file__).resolve().parents[1] / "data" / "real" / "kaggle2010_elo_vs_rest"
PAIRS = pl.DataFrame({"white_id": ["a"], "black_id": ["b"]})


def logistic(d: float, scale: float = 400.0) -> float:
    return 1.0 / (1.0 + 10.0 ** (-d / scale))


def store_of(tmp_path: Path, games: list[str], players: list[str], header: str) -> str:
    s = str(tmp_path / "st")
    g = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", games)
    p = write_csv(tmp_path / "p.csv", header, players)
    assert main(["ingest", str(g), "--players", str(p), "--store", s, "--no-flow"]) == 0
    return s


def command_expected(capsys, s: str, *args: str) -> tuple[float, str]:
    """``arpad predict`` of a vs b: (expected, stderr)."""
    pairs = write_csv(Path(s).parent / "pairs.csv", "white_id,black_id", ["a,b"])
    capsys.readouterr()
    assert main(["predict", str(pairs), "--store", s, "--format", "json", *args]) == 0
    out = capsys.readouterr()
    return json.loads(out.out)[0]["expected"], out.err


# -- 1. FIDE: the rules in force for the ratings' period, in the command and the API ----------
def test_fide_predicts_with_the_rules_in_force_in_the_ratings_period(tmp_path, capsys):
    # a 2700 beats b 2200 in January 2015 (rules 2014-07): 2701 vs 2198, D = 503. Under
    # 2014-07 the 400-point rule caps D at 400: table 8.1.2 gives 0.92 for D >= 392. FIDE
    # 2025-10 (the latest) exempts players above 2650 from it: D = 503 gives 0.96.
    s = store_of(
        tmp_path, ["2015-01-10,a,b,1-0"], ["a,2700,50", "b,2200,50"], "player_id,rating,rated_games"
    )
    assert main(["rate", "--system", "fide", "--store", s, "--no-flow"]) == 0
    assert command_expected(capsys, s, "--system", "fide")[0] == 0.92
    st = arpad.Store(s)
    assert arpad.predict(st, PAIRS, system="fide")["expected"][0] == 0.92  # was 0.96
    assert arpad.predict(st.ratings("fide"), PAIRS)["expected"][0] == 0.92  # was 0.96
    with pytest.warns(UserWarning, match="not the rules the fide ratings of period 201501"):
        assert arpad.predict(st, PAIRS, system="fide", rules="2025-10")["expected"][0] == 0.96


def test_a_rate_result_is_predicted_with_the_rules_it_was_rated_with():
    # a November 2025 game rated under rules="2014-07": the 400-point rule applies (0.92),
    # not the exemption of a 2700 of FIDE 2025-10, in force then (0.96)
    games = pl.DataFrame({"date": ["2025-11-10"], "white_id": ["a"], "black_id": ["b"],
                          "result": ["1-0"]})  # fmt: skip
    players = pl.DataFrame({"player_id": ["a", "b"], "rating": [2700, 2200],
                            "rated_games": [50, 50]})  # fmt: skip
    old = arpad.rate(games, system="fide", players=players, rules="2014-07")
    new = arpad.rate(games, system="fide", players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rules are found: no warning
        assert arpad.predict(old, PAIRS)["expected"][0] == 0.92  # was 0.96
        assert arpad.predict(new, PAIRS)["expected"][0] == 0.96


# -- 2. the run's own rules (--set, keywords) ------------------------------------------------
def elo_store(tmp_path) -> str:
    s = store_of(
        tmp_path,
        ["2025-01-10,a,b,1-0", "2025-01-11,b,a,1-0", "2025-01-12,a,b,1-0"],
        ["a,1600", "b,1400"],
        "player_id,rating",
    )
    sets = ["--set", "scale=200", "--set", "white_advantage=100"]
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow", *sets]) == 0
    return s


def test_predict_uses_the_store_runs_set_rules(tmp_path, capsys):
    s = elo_store(tmp_path)
    # by hand, one period from the starting ratings, K 20, scale 200, White +100:
    # a-b (a White): E_a = 1/(1+10^(-300/200)) = 0.969347, a +20·0.030653 (twice);
    # b-a (b White): E_b = 1/(1+10^(100/200)) = 0.240253, b +20·0.759747 = +15.1949
    e1, e2 = logistic(300, 200), logistic(-100, 200)
    a = 1600 + 2 * 20 * (1 - e1) - 20 * (1 - e2)
    b = 1400 - 2 * 20 * (1 - e1) + 20 * (1 - e2)
    assert a == pytest.approx(1586.0312, abs=1e-4)
    run_rules = logistic(a + 100 - b, 200)  # 0.958203
    expected, err = command_expected(capsys, s, "--system", "elo")
    assert expected == pytest.approx(run_rules, abs=1e-12)  # was 0.7292 (scale 400, no h)
    assert err == ""
    st = arpad.Store(s)
    assert arpad.predict(st, PAIRS, system="elo")["expected"][0] == pytest.approx(run_rules)
    # --set changes a field of the run's rules; other rules than the ratings' get a note
    expected, err = command_expected(capsys, s, "--system", "elo", "--set", "white_advantage=0")
    assert expected == pytest.approx(logistic(a - b, 200), abs=1e-12)
    hashes = set(st.ratings("elo")["rules_hash"].to_list())
    # the run's other field stays in the name (docs/rules.md "Changing a rule for one run")
    assert "note: predicting with EloRules + scale=200 (rules_hash" in err
    assert hashes.pop() in err
    with pytest.warns(UserWarning, match="not the rules the elo ratings of period 202501"):
        got = arpad.predict(st, PAIRS, system="elo", white_advantage=0)["expected"][0]
    assert got == pytest.approx(logistic(a - b, 200))
    assert main(["predict", str(Path(s).parent / "pairs.csv"), "--store", s,
                 "--system", "elo", "--set", "scal=1"]) == 2  # fmt: skip
    assert "unknown rule field 'scal'" in capsys.readouterr().err


SIX = pl.DataFrame(
    {
        "date": ["2025-01-10"] * 6,
        "white_id": ["a", "a", "a", "b", "b", "c"],
        "black_id": ["b", "c", "c", "c", "a", "a"],
        "result": ["1-0", "1-0", "1/2-1/2", "1-0", "0-1", "0-1"],
    }
)
AC = pl.DataFrame({"white_id": ["a"], "black_id": ["c"]})


def at(result: pl.DataFrame, player: str, column: str = "rating_after") -> float:
    return result.filter(pl.col("player_id") == player)[column][0]


@pytest.mark.parametrize(
    ("system", "rules", "formula"),
    [
        # Elo and WHR: 1/(1 + 10^(-(W + h - B)/scale))
        ("elo", {"scale": 200, "white_advantage": 100}, lambda r: logistic(r("a") + 100 - r("c"), 200)),
        ("whr", {"scale": 200}, lambda r: logistic(r("a") - r("c"), 200)),
        ("whr", {"white_advantage": 150}, lambda r: logistic(r("a") + 150 - r("c"))),
    ],
)  # fmt: skip
def test_rate_results_predict_with_their_own_rules(system, rules, formula):
    result = arpad.rate(SIX, system=system, **rules)
    want = formula(lambda p: at(result, p))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert arpad.predict(result, AC)["expected"][0] == pytest.approx(want, abs=1e-12)
        assert arpad.predict(result, AC, **rules)["expected"][0] == pytest.approx(want, abs=1e-12)
    # before: 0.5777 (Elo, without the keywords), 0.7643 and 0.8309 (WHR, either way)
    plain = logistic(at(result, "a") - at(result, "c"))
    assert abs(want - plain) > 0.05


def test_glicko2_predicts_on_its_scale():
    result = arpad.rate(SIX, system="glicko2", scale=100)
    # Glicko-2 on scale s: mu = r/s, phi = RD/s, E = 1/(1 + exp(-g(phi)(mu_a - mu_c))),
    # phi² = phi_a² + phi_c², g(phi) = 1/sqrt(1 + 3 phi²/pi²)
    s = 100.0
    phi2 = (at(result, "a", "rd_after") ** 2 + at(result, "c", "rd_after") ** 2) / s**2
    g = 1 / math.sqrt(1 + 3 * phi2 / math.pi**2)
    want = 1 / (1 + math.exp(-g * (at(result, "a") - at(result, "c")) / s))
    assert want == pytest.approx(0.9496, abs=1e-4)  # was 0.9052 (scale 173.7178)
    assert arpad.predict(result, AC)["expected"][0] == pytest.approx(want, rel=1e-7)
    # the default scale: Glicko-1's formula, as before
    plain = arpad.rate(SIX, system="glicko2")
    s, q = 173.7178, math.log(10) / 400
    phi2 = (at(plain, "a", "rd_after") ** 2 + at(plain, "c", "rd_after") ** 2) * q**2
    g = 1 / math.sqrt(1 + 3 * phi2 / math.pi**2)
    want = 1 / (1 + 10 ** (-g * (at(plain, "a") - at(plain, "c")) / 400))
    assert arpad.predict(plain, AC)["expected"][0] == pytest.approx(want, rel=1e-12)


def test_ratings_of_unknown_rules_warn_naming_both_hashes():
    result = arpad.rate(SIX, system="elo").with_columns(
        pl.lit("feedfacefeedface").alias("rules_hash")
    )
    with pytest.warns(UserWarning, match=r"rules_hash feedfacefeedface\)"):
        got = arpad.predict(result, AC)["expected"][0]
    assert got == pytest.approx(logistic(at(result, "a") - at(result, "c")))


# -- 3. period_summary counts ECF's games once ------------------------------------------------
def test_period_summary_counts_each_ecf_game_once(tmp_path):
    k = pl.read_csv(KAGGLE / "training_data.csv").filter(pl.col("Month #") <= 6)
    k.write_csv(tmp_path / "k6.csv")
    st = arpad.Store(tmp_path / "st")
    st.ingest(str(tmp_path / "k6.csv"))
    st.rate("ecf")
    st.rate("elo")
    # naive: the months' games and their distinct players, from the file
    games = k.group_by("Month #").len().sort("Month #")["len"].to_list()
    assert games == [566, 255, 772, 570, 313, 594]
    players = [
        len(set(m["White Player #"]) | set(m["Black Player #"]))
        for m in k.partition_by("Month #", maintain_order=True)
    ]
    for system in ("ecf", "elo"):
        got = st.sql(
            "SELECT games, active_players FROM period_summary WHERE system = ? ORDER BY period",
            system,
        )
        # ECF was 566, 821, 1593, 2163, 2476, 3070 (the season so far)
        assert got["games"].to_list() == games, system
        assert got["active_players"].to_list() == players, system


# -- 4./5. text rule fields and zero divisors ----------------------------------------------------
G3 = pl.DataFrame({"date": ["2025-01-10", "2025-06-11", "2025-07-01"], "white_id": ["a", "b", "a"],
                   "black_id": ["b", "a", "b"], "result": ["1-0", "1/2-1/2", "1-0"]})  # fmt: skip


@pytest.mark.parametrize("value", ["13", "0", "", "abc", "6,x"])
def test_ecf_cycle_end_months_must_be_calendar_months(value):
    grades = pl.DataFrame({"player_id": ["a", "b"], "grade": [150, 140]})
    with pytest.raises(ValueError, match=r"^rule cycle_end_months: cannot read .*EcfRules"):
        arpad.rate(G3, system="ecf", players=grades, cycle_end_months=value)
    result = arpad.rate(G3, system="ecf", players=grades, cycle_end_months="6, 12")
    assert "rated" in set(result["status"])


@pytest.mark.parametrize("value", ["garbage", "2024-13-01", "20240301"])
def test_fide_compression_date_must_be_a_day(value):
    players = pl.DataFrame({"player_id": ["a", "b"], "rating": [2000, 1900]})
    with pytest.raises(ValueError, match=r"^rule compression_date: cannot read .*YYYY-MM-DD"):
        arpad.rate(G3, system="fide", players=players, compression_date=value)


def test_zero_divisors_are_refused_and_ecf_stays_a_score():
    ratings = pl.DataFrame({"player_id": ["a", "b"], "rating": [2000.0, 1900.0]})
    with pytest.raises(ValueError, match=r"win_points=0.0: out of range .*valid range 1\.\.1000"):
        arpad.predict(ratings, PAIRS, system="ecf", win_points=0)
    with pytest.raises(ValueError, match=r"points_per_percent=0.0: out of range"):
        arpad.predict(ratings, PAIRS, system="harkness", points_per_percent=0)
    # ECF: D = 100 capped at 40; 0.5 + 40/(2·10) = 2.5 is no score: 1.0
    assert arpad.predict(ratings, PAIRS, system="ecf", win_points=10)["expected"][0] == 1.0
    # the default: 0.5 + 40/100 = 0.9
    assert arpad.predict(ratings, PAIRS, system="ecf")["expected"][0] == pytest.approx(0.9)


# -- 6./7. predict's pool and period; Store.ratings -----------------------------------------------
def test_predict_of_a_store_takes_pool_and_period_and_ratings_match_rate(tmp_path, capsys):
    s = store_of(
        tmp_path,
        ["2025-01-10,a,b,1-0", "2025-02-10,b,a,1-0"],
        ["a,1600", "b,1400"],
        "player_id,rating",
    )
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow"]) == 0
    st = arpad.Store(s)
    rows = st.ratings("elo")
    jan = rows.filter(pl.col("period") == 202501)
    want = logistic(at(jan, "a") - at(jan, "b"))
    got = arpad.predict(st, PAIRS, system="elo", pool="standard", period="2025-01")
    assert got["expected"][0] == pytest.approx(want, abs=1e-12)
    assert command_expected(capsys, s, "--system", "elo", "--period", "202501")[0] == pytest.approx(
        want, abs=1e-12
    )
    assert arpad.predict(rows, PAIRS, period=202501)["expected"][0] == pytest.approx(want)
    with pytest.raises(ValueError, match=r"no ratings for system elo pool blitz; call store\.rate"):
        arpad.predict(st, PAIRS, system="elo", pool="blitz")
    # Store.ratings: rate's column order (concatenates), an error for a system never rated
    games = pl.DataFrame({"date": ["2025-01-10", "2025-02-10"], "white_id": ["a", "b"],
                          "black_id": ["b", "a"], "result": ["1-0", "1-0"]})  # fmt: skip
    memory = arpad.rate(games, system="elo", players=pl.DataFrame({"player_id": ["a", "b"],
                                                                   "rating": [1600, 1400]}))  # fmt: skip
    assert rows.columns[:4] == ["system", "pool", "period", "player_id"]
    assert rows.columns == memory.columns
    assert pl.concat([memory, rows]).height == 2 * rows.height
    for system in ("fide", "whr"):
        with pytest.raises(ValueError, match=f"no ratings for system {system} pool standard; call"):
            st.ratings(system)


def test_cumulative_interim_constant_names_exactly_the_systems_declaring_it():
    """``systems.CUMULATIVE_INTERIM`` lets the catalog's period_summary count ECF's games
    without importing every system module; it names exactly the built-in systems whose
    class declares ``cumulative_interim_games``."""
    from arpad.pipeline.systems import CUMULATIVE_INTERIM, get_system, system_names

    declared = {n for n in system_names() if get_system(n).cumulative_interim_games}
    assert declared == set(CUMULATIVE_INTERIM) == {"ecf"}
