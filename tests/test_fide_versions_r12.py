"""FIDE rule versions before 2009-07 (historian, round 12, finding 2).

docs/fide-history.md "Before 2009-07" (the spec's history of rule changes): from ~2000 (GA 1999) four lists a year, a floor of 1801, 9 games for a
first rating, K 25 for new players (arpad: FIDE 2000-01); the 350-point rule from
1 Apr 2006 to 30 Jun 2009 (FIDE 2006-04). A default run (rules by date) that walks
periods before the oldest version says so on stderr / as a warning, as ``--rules 1886``
does (docs/fide-history.md "Before 2009-07").
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline import jobs
from arpad.pipeline.cli import main
from arpad.pipeline.systems import fide as F

# The historian's file: Topalov 2450, Minor 2050, Lesser 2080, six games of one event.
GAMES = [  # round, white, black, result, white elo, black elo
    (1, "Topalov, V.", "Minor, A.", "1-0", 2450, 2050),
    (2, "Minor, A.", "Topalov, V.", "1/2-1/2", 2050, 2450),
    (3, "Topalov, V.", "Lesser, B.", "1-0", 2450, 2080),
    (4, "Lesser, B.", "Topalov, V.", "1-0", 2080, 2450),
    (5, "Minor, A.", "Lesser, B.", "1/2-1/2", 2050, 2080),
    (6, "Lesser, B.", "Minor, A.", "0-1", 2080, 2050),
]


def write_pgn(path: Path, year: int, month: int) -> Path:
    parts = []
    for rnd, white, black, result, we, be in GAMES:
        parts.append(
            f'[Event "Spring Open {year}"]\n[Site "Somewhere"]\n'
            f'[Date "{year}.{month:02d}.{9 + rnd:02d}"]\n[Round "{rnd}"]\n'
            f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[WhiteElo "{we}"]\n[BlackElo "{be}"]\n\n1. e4 e5 2. Nf3 Nc6 {result}\n'
        )
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def rated_store(tmp_path: Path, year: int, month: int, capsys) -> tuple[Path, str, str]:
    store = tmp_path / "S"
    pgn = write_pgn(tmp_path / f"fide{year}.pgn", year, month)
    assert main(["ingest", str(pgn), "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "fide", "--store", str(store), "--no-flow"]) == 0
    out = capsys.readouterr()
    return store, out.out, out.err


def changes(store: Path) -> dict[str, int]:
    """Each player's total published change over the run."""
    frame = arpad.Store(store).ratings("fide")
    frame = frame.filter(pl.col("change").is_not_null())
    totals = frame.group_by("player_id").agg(pl.col("change").sum())
    return {pid.split(":")[-1].split(",")[0]: int(c) for pid, c in totals.iter_rows()}


def test_versions_before_2009_07_are_those_rules_md_confirms():
    names = [v.name for v in F.FIDE_VERSIONS]
    assert names[:3] == ["FIDE 2000-01", "FIDE 2006-04", "FIDE 2009-07"]
    v2000, v2006 = F.FIDE_2000_01, F.FIDE_2006_04
    assert (v2000.list_months, v2000.rating_floor, v2000.initial_min_games) == (3, 1801, 9)
    assert (v2000.k_new, v2000.k_mid, v2000.k_high, v2000.diff_cap) == (25, 15, 10, 400)
    assert (v2006.effective, v2006.diff_cap, v2006.list_months) == ("2006-04-01", 350, 3)
    assert v2006.rating_floor == 1801
    assert F.version_at("2009-06-30").name == "FIDE 2006-04"
    assert F.version_at("2009-07-01").diff_cap == 400
    assert F.version_at("2006-03-31").name == "FIDE 2000-01"


def test_may_2007_uses_the_350_point_rule(tmp_path, capsys):
    # Minor (2050, K 15): 2/4 against 2450, 2450, 2080, 2080. D −400 counts as −350:
    # table 8.1.2, 345–357 → PD(L) 0.11; D −30 → 26–32 → PD(L) 0.46.
    # ΣΔR = (0 − 0.11) + (½ − 0.11) + (½ − 0.46) + (1 − 0.46) = 0.86; 15 × 0.86 = 12.9 → +13
    # (the 2009-07 cap of 400 gave PD 0.08 and +14).
    # Topalov (K 10): 0.11 − 0.39 + 0.10 − 0.90 = −1.08 → −11 (D +370: 358–374 → 0.90).
    # Lesser (K 15): −0.10 + 0.90 − 0.04 − 0.54 = 0.22 → 3.3 → +3.
    store, out, err = rated_store(tmp_path, 2007, 5, capsys)
    assert "rules: FIDE 2006-04" in out
    assert "rated 2 periods (200705..200706)" in out  # quarterly: June closes Apr–Jun
    assert changes(store) == {"Minor": 13, "Topalov": -11, "Lesser": 3}
    assert "before the oldest version" not in err


def test_august_2009_still_uses_the_400_point_rule(tmp_path, capsys):
    # D −400 → 392–411 → PD(L) 0.08: −0.08 + 0.42 + 0.04 + 0.54 = 0.92; 15 × 0.92 = 13.8 → +14
    store, out, err = rated_store(tmp_path, 2009, 8, capsys)
    assert "rules: FIDE 2009-07" in out
    assert changes(store)["Minor"] == 14
    assert "before the oldest version" not in err


NOTE_1975 = (
    "fide/standard: periods 197505..197506 are before the oldest version arpad carries "
    "(2000-01-01); the run uses it (FIDE 2000-01); known differences: FIDE adopted Elo's "
    "system in 1970 and published no list before; its first lists (1970s) had a rating "
    "floor of 2200 (FIDE 2000-01: 1801)"
)


def test_a_default_run_of_1975_names_the_version_it_uses_and_the_known_differences(
    tmp_path, capsys
):
    store, out, err = rated_store(tmp_path, 1975, 5, capsys)
    assert "rules: FIDE 2000-01" in out
    assert f"arpad: note: {NOTE_1975}" in err
    assert err.count("before the oldest version") == 1
    # the Python API: a UserWarning from Store.rate with the same text
    with pytest.warns(jobs.EarlyRulesWarning) as caught:
        arpad.Store(store).rate("fide", full=True)
    notes = [str(w.message) for w in caught if w.category is jobs.EarlyRulesWarning]
    assert len(notes) == 1 and notes[0].startswith(NOTE_1975)
    # explicit --rules: the --rules note, not the run's
    assert main(["rate", "--system", "fide", "--store", str(store), "--no-flow", "--rules", "1975"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "arpad: note: 1975-12-01 is before the oldest version arpad carries (2000-01-01); the run uses it (FIDE 2000-01); known differences:" in err  # fmt: skip
    assert err.count("before the oldest version") == 1


def test_in_memory_rate_warns_for_periods_before_the_oldest_version():
    games = [
        {"white_id": "A", "black_id": "B", "result": "1-0", "date": "1985-03-10"},
        {"white_id": "B", "black_id": "A", "result": "1/2-1/2", "date": "1985-03-11"},
    ]
    players = [{"player_id": "A", "rating": 2300}, {"player_id": "B", "rating": 2250}]
    # March closes the quarter January–March: one period walked
    note = "fide/standard: period 198503 is before the oldest version arpad carries (2000-01-01)"
    with pytest.warns(jobs.EarlyRulesWarning, match=re.escape(note)):
        arpad.rate(games, system="fide", players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("error", jobs.EarlyRulesWarning)
        arpad.rate(games, system="fide", players=players, rules="1985")  # rules given: no run note
        later = [dict(g, date=g["date"].replace("1985", "2015")) for g in games]
        arpad.rate(later, system="fide", players=players)
