"""FIDE lists of several months (two-monthly, 2009-07 … 2012-06): the closing month of
every rating period that holds games is walked even when it has none
(``FideSystem.closing_periods_within``), so that month's list exists, publishes the
period's change, and is the list ``arpad list --in-force`` answers with
(docs/fide-history.md "Two-monthly lists", docs/lists.md "--in-force").

Values by hand: PD from table 8.1.2 (docs/rules.md; D 198–206 → 0.76 / 0.24,
D 345–357 → 0.89 / 0.11), K 15 for an established player under the 2009-07 and
2012-07 versions (docs/fide-history.md), the change rounded half away from zero.
"""

from __future__ import annotations

import csv
import io

from arpad.pipeline import engine
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.lists import period_in_force
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system

PLAYERS = """player_id,name,birth_year,rating,rated_games
A,A,1970,2000,100
B,B,1970,1800,100
C,C,1970,1900,100
D,D,1970,1900,100
"""


def _rate(tmp_path, games: list[str]) -> Store:
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text("date,white_id,black_id,result\n" + "\n".join(games) + "\n")
    store = Store(tmp_path / "store")
    ingest_files(store, [tmp_path / "games.csv"], players=[tmp_path / "players.csv"])
    engine.rate(store, "fide", "standard")
    return store


def _rows(store: Store, period: int) -> dict[str, dict]:
    return {r["player_id"]: r for r in store.read_ratings("fide", "standard", period).to_pylist()}


def _listed(capsys, args: list[str]) -> tuple[dict[str, str], str]:
    """player_id -> rating of ``arpad list … --format csv``, and the heading (stderr)."""
    capsys.readouterr()
    assert main([*args, "--format", "csv"]) == 0
    out = capsys.readouterr()
    rows = csv.DictReader(io.StringIO(out.out))
    return {r["player_id"]: r["rating"] for r in rows}, out.out + out.err


def test_a_closing_month_without_games_is_walked_and_publishes_the_change(tmp_path, capsys):
    # January 2011 (FIDE 2009-07: rating period January–February, list of 1 March):
    # B 1800 beats A 2000. D = 200 → PD 0.76 / 0.24. A: 15 × (0 − 0.76) = −11.4 → −11
    # → 1989; B: 15 × (1 − 0.24) = +11.4 → +11 → 1811. No game in February; C and D
    # draw in March. Before the fix 201102 was not walked: the change came as an
    # adjustment in 201103 and the list in force on 15 April was the one of 201012.
    store = _rate(tmp_path, ["2011-01-10,A,B,0-1", "2011-03-10,C,D,1/2-1/2"])
    assert store.periods("standard") == [201101, 201103]
    assert store.rating_periods("fide", "standard") == [201101, 201102, 201103, 201104]
    jan, feb, mar = _rows(store, 201101), _rows(store, 201102), _rows(store, 201103)
    assert jan["A"]["rating_after"] == 2000 and jan["A"]["change"] is None  # held
    assert (feb["A"]["rating_before"], feb["A"]["rating_after"], feb["A"]["change"]) == (
        2000,
        1989,
        -11,
    )
    assert feb["A"]["games"] == 1 and feb["A"]["adjustment"] is None
    assert (feb["B"]["rating_after"], feb["B"]["change"]) == (1811, 11)
    assert mar["A"]["rating_before"] == 1989 and mar["A"]["adjustment"] is None
    assert mar["B"]["rating_before"] == 1811 and mar["B"]["adjustment"] is None
    # The list of 1 March 2011 (period 201102) is in force on 15 April (docs/lists.md).
    rated = store.rating_periods("fide", "standard")
    assert period_in_force("2011-04-15", rated, system="fide") == 201102
    listed, text = _listed(capsys, ["list", "--in-force", "2011-04-15", "--store", str(store.root)])
    assert "period 2011-02" in text
    assert listed["A"] == "1989" and listed["B"] == "1811"


def test_the_hook_adds_only_missing_closing_months_of_multi_month_lists():
    fide = get_system("fide")
    rules_for = engine.rules_picker(fide, "standard", None, None)
    # 201001 → 201002; 201003 closes in 201004 (stored); 201011 → 201012; 201205 → 201206
    # (the last two-monthly period); 201207 and 202401 are monthly: nothing.
    stored = [201001, 201003, 201004, 201011, 201205, 201207, 202401]
    assert fide.closing_periods_within(stored, rules_for) == [201002, 201012, 201206]
    # Every closing month has games: the walk is the stored periods, as before the fix.
    full = [201101, 201102, 201103, 201104, 202403]
    assert fide.closing_periods_within(full, rules_for) == []
    assert engine.walked_periods(fide, full, rules_for) == full
    assert fide.closing_periods_within([1, 2, 3], rules_for) == []  # abstract periods
    # Quarterly lists (``--set list_months=3``): quarters close in March, June, …
    quarterly = engine.rules_picker(fide, "standard", None, {"list_months": "3"})
    assert fide.closing_periods_within([201001, 201005, 201009], quarterly) == [201003, 201006]
    assert engine.walked_periods(fide, [201001, 201005], quarterly) == [
        201001,
        201003,
        201005,
        201006,
    ]


def test_monthly_lists_walk_no_empty_month_and_fall_back_to_identical_ratings(tmp_path, capsys):
    # January 2013 (FIDE 2012-07, monthly lists): B 1800 beats A 2000 → A 1989, B 1811 (as
    # above). February has no games, so FIDE's list of 1 March equals the one of 1 February:
    # on 15 March arpad answers with 201302, 201301's list carried forward (docs/lists.md "A
    # month without games"; 201301 itself before round 14), whose ratings are 201303's
    # ratings before.
    store = _rate(tmp_path, ["2013-01-10,A,B,0-1", "2013-03-10,C,D,1/2-1/2"])
    assert store.rating_periods("fide", "standard") == [201301, 201303]
    listed, text = _listed(capsys, ["list", "--in-force", "2013-03-15", "--store", str(store.root)])
    assert "period 2013-02" in text
    before = {p: r["rating_before"] for p, r in _rows(store, 201303).items()}
    assert listed == {p: str(int(before[p])) for p in listed}
    assert listed["A"] == "1989" and listed["B"] == "1811"


def test_the_sample_store_has_the_lists_of_march_2011_and_january_2012(
    tmp_path, capsys, monkeypatch
):
    # docs/fide-history.md "Example: a replay across 2009–2026": the sample has no games in
    # 201004, 201102, 201112. P002 (1839) lost to P037 (2194) in January 2011: D = 355 →
    # PD 0.11, 15 × (0 − 0.11) = −1.65 → −2: FIDE's list of 1 March 2011 had him at 1837.
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "S")
    assert main(["fide-sample", "sample/"]) == 0
    assert (
        main(["ingest", "sample/games.csv", "--players", "sample/players.csv", "--store", store])
        == 0
    )
    assert main(["rate", "--system", "fide", "--store", store]) == 0
    listed, text = _listed(capsys, ["list", "--in-force", "2011-04-15", "--store", store])
    assert "period 2011-02" in text and listed["P002"] == "1837"
    for day, period in (("2010-05-15", "2010-04"), ("2012-01-15", "2011-12")):
        assert (
            f"period {period}" in _listed(capsys, ["list", "--in-force", day, "--store", store])[1]
        )
    # The only adjustments left are the compression of March 2024.
    s = Store(tmp_path / "S")
    adjusted = [
        p
        for p in s.rating_periods("fide", "standard")
        if any(
            a is not None
            for a in s.read_ratings("fide", "standard", p).column("adjustment").to_pylist()
        )
    ]
    assert adjusted == [202403]
