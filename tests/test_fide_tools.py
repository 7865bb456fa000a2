"""Rating cards, history (and plot), what-if replays and the fixed-width list export.

Runs on a replay of the synthetic 2009–2026 sample (pipeline/fide_sample.py).
Card totals are checked against the stored changes and, independently, against
the naive one-game-at-a-time reference of tests/naive_fide.py.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import polars as pl
import pytest

from arpad.pipeline import catalog, engine
from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import rating_card
from arpad.pipeline.fide_sample import write_sample
from arpad.pipeline.history import plot_history, rating_history
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.jobs import WhatIfRequest
from arpad.pipeline.jobs import whatif as whatif_job
from arpad.pipeline.output import fixed_width
from arpad.pipeline.store import Store
from tests import naive_fide


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    root = tmp_path_factory.mktemp("fide_tools")
    players_csv, games_csv = write_sample(root / "in", every=3)
    store = Store(root / "store")
    ingest_files(store, [games_csv], players=[players_csv])
    summary = engine.rate(store, "fide", "standard")
    return store, summary


def rated_rows(store, pool, period):
    return [
        r
        for r in store.read_ratings("fide", pool, period).to_pylist()
        if r["rating_before"] is not None and r["games"] > 0 and r["change"] is not None
    ]


def test_card_sums_equal_stored_changes_on_random_periods(replay):
    store, summary = replay
    rng = random.Random(3)
    checked = 0
    con = catalog.connect(store)
    for period in rng.sample(summary.periods, 12):
        for row in rated_rows(store, "standard", period):
            card = rating_card(store, row["player_id"], period, con=con)
            assert card.change == row["change"], (period, row["player_id"])
            assert card.matches
            assert card.rating_in_force + card.change == row["rating_after"]
            checked += 1
    assert checked > 50


def test_card_matches_the_naive_reference(replay):
    # Monthly versions with the plain cap (2012-07 … 2021-12, 2024-03 on): the card's games,
    # fed one at a time to tests/naive_fide.py, give the stored change.
    store, summary = replay
    checked = 0
    con = catalog.connect(store)
    for period in summary.periods[::3]:
        if not (201207 <= period < 202201 or period >= 202403):
            continue
        for row in rated_rows(store, "standard", period)[:3]:
            card = rating_card(store, row["player_id"], period, con=con)
            games = [
                (g.opponent_rating, Fraction(g.score)) for g in card.games if g.delta is not None
            ]
            if not games:
                continue
            exempt = 2650 if period >= 202510 else None
            _, change = naive_fide.rated_change(
                card.rating_in_force, games, int(row["k"]), exempt_from=exempt
            )
            assert change == row["change"]
            checked += 1
    assert checked > 30


def test_card_shows_compression_as_its_own_event(replay):
    store, summary = replay
    first = min(p for p in summary.periods if p >= 202403)
    row = next(r for r in rated_rows(store, "standard", first) if r["rating_before"] < 1900)
    card = rating_card(store, row["player_id"], first)
    # docs/fide-history.md: R' = R + 0.4 (2000 − R), rounded half away from zero (arpad's choice).
    exact = Fraction(2, 5) * (2000 - card.rating_before)
    assert card.adjustment == naive_fide.round_half_away(exact)
    assert card.rating_before + card.adjustment + card.change == row["rating_after"]


def test_card_rapid_600_point_rule_note(tmp_path):
    from tests.conftest import write_csv

    write_csv(tmp_path / "p.csv", "player_id,rating,rated_games,peak_rating",
              ["A,2650,100,2650", "B,2040,100,2040", "C,2060,100,2060"])  # fmt: skip
    write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,pool",
              ["2024-12-03,A,B,1-0,rapid", "2024-12-04,A,C,1-0,rapid"])  # fmt: skip
    store = Store(tmp_path / "s")
    ingest_files(store, [tmp_path / "g.csv"], players=[tmp_path / "p.csv"])
    engine.rate(store, "fide", "rapid")
    card = rating_card(store, "A", 202412, pool="rapid")
    assert [g.delta for g in card.games] == [None, 0.08]
    assert "600" in card.games[0].note
    assert card.k == 20 and card.change == 2 and card.matches


def test_history_lists_adjustments_as_events_and_plots(replay, tmp_path):
    store, summary = replay
    first = min(p for p in summary.periods if p >= 202403)
    row = next(r for r in rated_rows(store, "standard", first) if r["rating_before"] < 1900)
    frame = rating_history(store, row["player_id"])
    events = frame.filter(pl.col("period") == first)["event"].to_list()
    assert events[0] == "adjustment" and len(events) == 2
    # the events chain: each event starts where the previous one ended
    after = frame["rating_after"].to_list()
    before = frame["rating_before"].to_list()
    assert all(b == a for a, b in zip(after[:-1], before[1:], strict=True) if a and b)
    path = plot_history(frame, tmp_path / "h.png", "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def whatif(store, rules_a, rules_b, **kw):
    return whatif_job(WhatIfRequest(str(store.root), rules_a, rules_b, **kw))


def test_whatif_same_rules_is_identical_and_compression_moves_ratings(replay):
    store, _ = replay
    same = whatif(store, "2024-03", "2024-03", start=202401, end=202406)
    assert (same.movers["difference"] == 0).all()
    assert (same.distribution["mean_difference"] == 0).all()
    res = whatif(store, "dated", "2022-01", start=202201, top=5)
    first = min(p for p in res.periods if p >= 202403)
    dist = res.distribution.filter(pl.col("period") == first)
    assert dist["mean_difference"][0] < -50  # no compression under B
    assert res.movers.height == 5 and (res.movers["difference"] < 0).all()
    cross = {r["threshold"]: r for r in res.crossings.to_dicts()}
    assert cross[1400]["reached_a"] >= cross[1400]["reached_b"]


def test_whatif_and_card_from_the_cli(replay, tmp_path, capsys, monkeypatch):
    store, summary = replay
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")
    period = summary.periods[-1]
    row = rated_rows(store, "standard", period)[0]
    code = main(["card", row["player_id"], "--period", str(period), "--store", str(store.root),
                 "--format", "json"])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["change"] == row["change"] and data["matches"]
    # Without --period: the latest rated period's card (the same card).
    assert period == max(store.rating_periods("fide", "standard"))
    assert main(["card", row["player_id"], "--store", str(store.root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    out = tmp_path / "wi"
    code = main(["whatif", "--rules", "2024-03", "--vs", "2025-10", "--from", "202501",
                 "--store", str(store.root), "--output", str(out)])  # fmt: skip
    assert code == 0
    assert "Biggest movers" in capsys.readouterr().out
    assert pl.read_parquet(out / "crossings.parquet")["threshold"].to_list() == [1400, 2000, 2400]


def test_fixed_width_txt():
    frame = pl.DataFrame(
        {
            "rank": [1, 2],
            "player_id": ["1503014", "2020009"],
            "name": ["Carlsen, Magnus", "X"],
            "rating": [2833.0, 2758.5],
        }
    )
    lines = fixed_width(frame).splitlines()
    assert lines[0] == "Rank ID Number Name               Rtg"
    assert lines[1] == "   1 1503014   Carlsen, Magnus   2833"
    assert lines[2] == "   2 2020009   X               2758.5"
