"""Predictions (pipeline/predict.py, ``arpad predict``, ``arpad.predict``) and the draw model
(pipeline/draws.py, docs/backtest.md "Draws")."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.pipeline import draws
from arpad.pipeline.cli import main
from tests.conftest import write_csv
from tests.test_cli_flow import small_store

finite = st.floats(-1500, 1500, allow_nan=False)
nus = st.floats(0.0, 20.0, allow_nan=False)


# -- the draw model ------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(d=finite, nu=nus, h=st.floats(-100, 100), slope=st.floats(0.1, 3))
def test_davidson_probabilities_sum_to_one(d, nu, h, slope):
    model = draws.DrawModel(nu=nu, white_advantage=h, slope=slope)
    w, dr, b = model.probabilities(np.array([d]))
    assert min(w[0], dr[0], b[0]) >= 0
    assert w[0] + dr[0] + b[0] == pytest.approx(1.0, abs=1e-12)
    assert model.expected(np.array([d]))[0] == pytest.approx(w[0] + dr[0] / 2)


@settings(max_examples=100, deadline=None)
@given(d=st.floats(0, 1500), nu=nus)
def test_davidson_is_symmetric_without_white_advantage(d, nu):
    model = draws.DrawModel(nu=nu)
    w, dr, b = model.probabilities(np.array([d, -d]))
    assert w[0] == pytest.approx(b[1], abs=1e-12) and dr[0] == pytest.approx(dr[1], abs=1e-12)
    w0, dr0, b0 = model.probabilities(np.array([0.0]))
    assert w0[0] == pytest.approx(b0[0]) and dr0[0] == pytest.approx(nu / (2 + nu))


def test_davidson_is_monotone_in_the_rating_difference():
    d = np.linspace(-1200, 1200, 2401)
    for nu in (0.0, 0.3, 1.0, 5.0):
        w, dr, b = draws.DrawModel(nu=nu, white_advantage=30.0).probabilities(d)
        assert np.all(np.diff(w) > 0) and np.all(np.diff(b) < 0)
        if nu > 0:
            # the draw is most likely between equal players (d + h = 0), less either side
            peak = int(np.argmax(dr))
            assert d[peak] == pytest.approx(-30.0, abs=1.0)
            assert np.all(np.diff(dr[: peak + 1]) >= 0) and np.all(np.diff(dr[peak:]) <= 0)


def test_from_draw_rate_and_refusals():
    model = draws.DrawModel.from_draw_rate(0.3)
    assert model.draw_rate == pytest.approx(0.3)
    assert model.probabilities(np.array([0.0]))[1][0] == pytest.approx(0.3)
    for bad in (-0.1, 1.0, math.nan):
        with pytest.raises(ValueError):
            draws.DrawModel.from_draw_rate(bad)
    with pytest.raises(ValueError):
        draws.DrawModel(nu=-1.0)


def _simulate(model, d, u, seed):
    rng = np.random.default_rng(seed)
    w, dr, _ = model.probabilities(d, u)
    r = rng.random(d.size)
    return np.where(r < w, 1.0, np.where(r < w + dr, 0.5, 0.0))


def test_fit_recovers_known_parameters():
    rng = np.random.default_rng(11)
    d = rng.normal(0, 200, 60_000)
    u = rng.choice([-1.0, 0.0, 1.0], d.size, p=[0.1, 0.8, 0.1])
    true = draws.DrawModel(nu=0.8, white_advantage=35.0, slope=0.7, newcomer=80.0)
    fit = draws.fit_davidson(d, _simulate(true, d, u, 12), u)
    assert fit.nu == pytest.approx(0.8, rel=0.05)
    assert fit.white_advantage == pytest.approx(35.0, abs=5.0)
    assert fit.slope == pytest.approx(0.7, abs=0.03)
    assert fit.newcomer == pytest.approx(80.0, abs=15.0)


def test_fit_without_draws_stays_finite():
    d = np.linspace(-300, 300, 400)
    fit = draws.fit_davidson(d, (d > 0).astype(float))
    assert np.isfinite(fit.slope) and fit.nu < 1e-3
    with pytest.raises(ValueError):
        draws.fit_davidson(d, np.full(d.size, 0.25))


def test_layer_over_an_expected_score_keeps_it():
    e = np.array([0.01, 0.2, 0.5, 0.64, 0.97])
    for nu in (0.0, 0.5, 2.0):
        w, dr, b = draws.at_expected(e, nu)
        np.testing.assert_allclose(w + dr / 2, e, atol=1e-12)
        np.testing.assert_allclose(w + dr + b, 1.0, atol=1e-12)
    # at E = 1/2 the layer is Davidson between equal players
    assert draws.at_expected(np.array([0.5]), 1.0)[1][0] == pytest.approx(1 / 3)


def test_fit_nu_recovers_the_draw_parameter():
    rng = np.random.default_rng(5)
    e = rng.uniform(0.05, 0.95, 40_000)
    w, dr, _ = draws.at_expected(e, 0.6)
    r = rng.random(e.size)
    score = np.where(r < w, 1.0, np.where(r < w + dr, 0.5, 0.0))
    assert draws.fit_nu(e, score).nu == pytest.approx(0.6, rel=0.05)


def test_outcome_log_loss_by_hand():
    # games 1, ½, 0 with P = (.5,.3,.2) each: −(ln .5 + ln .3 + ln .2)/3
    p = (np.full(3, 0.5), np.full(3, 0.3), np.full(3, 0.2))
    want = -(math.log(0.5) + math.log(0.3) + math.log(0.2)) / 3
    assert draws.outcome_log_loss(*p, np.array([1.0, 0.5, 0.0])) == pytest.approx(want)
    assert math.isnan(draws.outcome_log_loss(*p, np.array([1.0, 0.25, 0.0])))
    w, dr, b = draws.two_outcome_reading(np.array([0.7]), 0.2)
    assert (w[0], dr[0], b[0]) == pytest.approx((0.56, 0.2, 0.24))


# -- arpad predict -------------------------------------------------------------------------
def _store(tmp_path, system):
    players, games = small_store(tmp_path)
    # one more month in which only a and b play: c and d keep their 202502 ratings
    extra = write_csv(tmp_path / "g3.csv", "date,white_id,black_id,result", ["2025-03-05,a,b,1-0"])
    s = str(tmp_path / "s")
    assert main(["ingest", str(games), "--players", str(players), "--store", s, "--no-flow"]) == 0
    assert main(["ingest", str(extra), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", system, "--store", s, "--no-flow"]) == 0
    pairings = write_csv(
        tmp_path / "pairs.csv",
        "board,white_id,black_id",
        ["1,a,d", "2,c,b", "3,zz,a"],
    )
    return s, pairings


def _predict(capsys, *args):
    capsys.readouterr()
    code = main(["predict", *args, "--format", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


def test_cli_predict_fide_by_hand(tmp_path, capsys):
    s, pairings = _store(tmp_path, "fide")
    # Ratings after 202501 (tests/test_cli_flow.py): a 2107, b 1993, c 1897, d 1803.
    code, rows, err = _predict(capsys, str(pairings), "--system", "fide", "--store", s,
                               "--period", "202501")  # fmt: skip
    assert code == 0
    # a−d: D 304 → table 8.1.2 PD .86; c−b: D −96 → 1 − .63 = .37
    assert [r["board"] for r in rows] == ["1", "2", "3"]
    assert [r["white_rating"] for r in rows[:2]] == [2107.0, 1897.0]
    assert [r["expected"] for r in rows] == [pytest.approx(0.86), pytest.approx(0.37), None]
    assert "note: 1 of 3 pairings have a player without a fide/standard rating" in err
    # Latest (202503): a beat b again from 2090/1980 (D 110, PD .65: a +7, b −7):
    # a 2097, b 1973; c 1910 and d 1820 keep their 202502 rows.
    code, rows, _ = _predict(capsys, str(pairings), "--system", "fide", "--store", s)
    assert [r["white_rating"] for r in rows[:2]] == [2097.0, 1910.0]
    assert [r["black_rating"] for r in rows[:2]] == [1820.0, 1973.0]
    # a−d: D 277 → PD .83; c−b: D −63 → 1 − .59 = .41
    assert [r["expected"] for r in rows[:2]] == [pytest.approx(0.83), pytest.approx(0.41)]


def test_cli_predict_elo_by_hand_with_draws(tmp_path, capsys):
    s, pairings = _store(tmp_path, "elo")
    # K 20, logistic, floats. 202501: a 2100 beats b 2000, E = 1/(1 + 10^(−1/4)) = .640065,
    # a = 2100 + 20·.359935 = 2107.1987, b = 1992.8013; c 1900 draws d 1800:
    # c = 1900 − 20·.140065 = 1897.1987, d = 1802.8013.
    code, rows, _ = _predict(capsys, str(pairings), "--system", "elo", "--store", s,
                             "--period", "202501", "--draw-rate", "0.25")  # fmt: skip
    assert code == 0
    assert rows[0]["white_rating"] == pytest.approx(2107.1987, abs=1e-4)
    assert rows[1]["black_rating"] == pytest.approx(1992.8013, abs=1e-4)
    e_ad = 1 / (1 + 10 ** (-(2107.1987 - 1802.8013) / 400))  # .851868
    e_cb = 1 / (1 + 10 ** (-(1897.1987 - 1992.8013) / 400))  # .365304
    assert rows[0]["expected"] == pytest.approx(e_ad, abs=1e-6)
    assert rows[1]["expected"] == pytest.approx(e_cb, abs=1e-6)
    # draw rate .25 between equals → ν = 2/3; the layer keeps E and sums to 1
    for r in rows[:2]:
        assert r["p_white"] + r["p_draw"] + r["p_black"] == pytest.approx(1.0)
        assert r["p_white"] + r["p_draw"] / 2 == pytest.approx(r["expected"])
        assert 0 < r["p_draw"] < 0.25
    assert rows[2]["p_draw"] is None


def test_cli_predict_bad_input_exits_2(tmp_path, capsys):
    s, pairings = _store(tmp_path, "elo")
    bad = write_csv(tmp_path / "bad.csv", "first,second", ["a,b"])
    for args in (
        [str(bad), "--system", "elo", "--store", s],
        [str(tmp_path / "missing.csv"), "--system", "elo", "--store", s],
        [str(pairings), "--system", "fide", "--store", s],  # not rated with fide
        [str(pairings), "--system", "elo", "--store", s, "--period", "202412"],
        [str(pairings), "--system", "elo", "--store", s, "--draw-rate", "1.5"],
    ):
        capsys.readouterr()
        assert main(["predict", *args]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_api_predict_with_draws_equals_the_cli_layer():
    import arpad

    ratings = pl.DataFrame({"player_id": ["a", "b"], "rating": [2100.0, 2000.0]})
    pairs = pl.DataFrame({"white_id": ["a", "b", "x"], "black_id": ["b", "a", "a"]})
    out = arpad.predict(ratings, pairs, system="elo", draws=0.3)
    e = 1 / (1 + 10 ** (-100 / 400))
    assert out["expected"].to_list()[:2] == [pytest.approx(e), pytest.approx(1 - e)]
    w, dr, _ = draws.at_expected(np.array([e]), draws.DrawModel.from_draw_rate(0.3).nu)
    assert out["p_white"][0] == pytest.approx(w[0]) and out["p_black"][1] == pytest.approx(w[0])
    assert out["p_draw"][0] == pytest.approx(dr[0]) and out["p_draw"][2] is None
    assert "p_draw" not in arpad.predict(ratings, pairs, system="elo").columns
    with pytest.raises(TypeError):
        arpad.predict(ratings, pairs, system="elo", draws="often")


def test_cli_predict_reads_the_column_names_rate_reads(tmp_path, capsys):
    """`arpad predict` takes `White,Black` and `white,black` as arpad.predict does (it
    refused them: "pairings need columns white_id and black_id")."""
    s, pairings = _store(tmp_path, "elo")
    base = [str(pairings), "--system", "elo", "--store", s, "--format", "csv"]
    capsys.readouterr()
    assert main(["predict", *base]) == 0
    want = capsys.readouterr().out
    text = pairings.read_text().splitlines()
    for header in ("White,Black", "white,black", "White ID,Black ID"):
        renamed = tmp_path / f"{header.replace(' ', '_')}.csv"
        names = header.split(",")
        first = text[0].replace("white_id", names[0]).replace("black_id", names[1])
        renamed.write_text("\n".join([first, *text[1:]]) + "\n")
        assert main(["predict", str(renamed), *base[1:]]) == 0
        got = capsys.readouterr().out
        assert got.splitlines()[1:] == want.splitlines()[1:]
