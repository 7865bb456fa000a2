"""New user, round 11: a TRF whose player lines state old ratings re-seeds the players
from them (docs/observations.md "Which systems seed from them, and when"), wiping out
the store's own results of March, and nothing said so until a list was published:
`ingest` compared the file with the published list in force only, and `rate`, `list`
and the first `recalculate` of a new federation (which ingests before it publishes)
said nothing. Now `ingest` compares with the ratings of the latest rated period before
the file's when no list is published, `rate` names the stated ratings that replaced the
store's results in the periods it rates first, and `recalculate` reports that note.
docs/ingest.md "Two notes for the rating officer".

March, FIDE 2024-03 (docs/rules.md), changes rounded half away from zero, the 400-point
rule, expected scores from table 8.1.2:

* 1001 Kovács 2105, K 20 (60 games): beat 1002 (D 455 → 400: .92), lost to 1004 (D 215:
  .77): 20 × (1 − 1.69) = −13.8 → −14: 2091;
* 1002 Nagy 1650, K 40 (born 2008): lost to 1001 (.08) and 1003 (D −660 → −400: .08):
  40 × −0.16 = −6.4 → −6: 1644;
* 1003 Szabó 2310, K 20: drew 1004 (D 420 → 400: .92), beat 1002 (.92): 20 × −0.34 =
  −6.8 → −7: 2303;
* 1004 Tóth 1890, K 20: drew 1003 (.08), beat 1001 (D −215: .23): 20 × 1.19 = 23.8 →
  +24: 1914;
* 1005, unrated, plays only in March: five games, the games against him are not rated.

The June club TRF states the players-file ratings 2105, 1650, 2310 and 1890.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.jobs import StatedOverrideWarning
from arpad.pipeline.store import Store

PLAYERS = (
    "player_id,name,federation,sex,birth_year,rating,rated_games\n"
    '1001,"Kovács, Anna",HUN,F,1990,2105,60\n'
    '1002,"Nagy, Béla",HUN,M,2008,1650,10\n'
    '1003,"Szabó, Csaba",HUN,M,1975,2310,200\n'
    '1004,"Tóth, Dóra",HUN,F,2001,1890,40\n'
    '1005,"Új, Ember",HUN,M,1999,,\n'
)
MARCH = (
    "date,white_id,black_id,result\n"
    "2025-03-01,1001,1002,1-0\n"
    "2025-03-01,1003,1004,1/2-1/2\n"
    "2025-03-08,1002,1003,0-1\n"
    "2025-03-08,1004,1001,1-0\n"
    "2025-03-15,1005,1001,0-1\n"
    "2025-03-15,1005,1002,1-0\n"
    "2025-03-22,1005,1003,0-1\n"
    "2025-03-22,1005,1004,1/2-1/2\n"
    "2025-03-29,1001,1005,1/2-1/2\n"
)


def _line(rank, sex, name, rating, fid, pts, rounds) -> str:
    head = (
        f"001 {rank:>4} {sex}    {name:<33} {rating:>4} HUN {fid:>11} 1990/01/01 {pts:>4} {rank:>4}"
    )
    return head + "".join(f"  {opp:>4} {colour} {res}" for opp, colour, res in rounds)


CLUB = (
    "012 Club Championship 2025\n042 2025/06/01\n052 2025/06/03\n062 4\n"
    "092 Individual: Round robin\n"
    "132"
    + " " * 86
    + "  25/06/01  25/06/02  25/06/03\n"
    + "\n".join(
        [
            _line(
                1, "w", "Kovacs, Anna", 2105, 1001, "2.5", [(4, "w", 1), (3, "b", "="), (2, "w", 1)]
            ),
            _line(2, "m", "Nagy, Bela", 1650, 1002, "0.0", [(3, "b", 0), (4, "w", 0), (1, "b", 0)]),
            _line(
                3, "m", "Szabo, Csaba", 2310, 1003, "2.5", [(2, "w", 1), (1, "w", "="), (4, "b", 1)]
            ),
            _line(4, "w", "Toth, Dora", 1890, 1004, "1.0", [(1, "b", 0), (2, "b", 1), (3, "w", 0)]),
        ]
    )
    + "\n"
)

INGEST_NOTE = (
    "  note: 4 player(s) whose rating in the file differs from the fide/standard ratings of "
    "period 202503 (not published; the list arpad list shows): 1001 2091 → file 2105, "
    "1002 1644 → file 1650, 1003 2303 → file 2310, … — the file's stated rating replaces "
    "the store's result for its period (docs/observations.md \"Which systems seed from "
    'them, and when"); if the arbiter used an older list, correct the file, or ingest it '
    "with --ignore-stated-ratings"
)
RATE_NOTE = (
    "fide/standard: ratings stated in club.trf for 202506 replaced the store's own results "
    "of an earlier period for 4 player(s) (1001: 2091 after 202503 → 2105; 1002: 1644 "
    "after 202503 → 1650; 1003: 2303 after 202503 → 2310, …): the file's rating is the "
    "player's start, his rating after his previous period is not carried into it "
    '(docs/observations.md "Which systems seed from them, and when"); if the arbiter used '
    "an older list, ingest club.trf again under the same --source with "
    "--ignore-stated-ratings, then rate"
)


def cli(root, *argv: str) -> int:
    return main(["--store", str(root), *argv])


def starts(root, period: int) -> dict[str, float]:
    table = Store(root).read_ratings("fide", "standard", period)
    return {r["player_id"]: r["rating_before"] for r in table.to_pylist()}


def afters(root, period: int) -> dict[str, float]:
    table = Store(root).read_ratings("fide", "standard", period)
    return {r["player_id"]: r["rating_after"] for r in table.to_pylist()}


@pytest.fixture()
def march(tmp_path, monkeypatch, capsys):
    """March ingested and rated with FIDE; nothing published."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text(MARCH)
    (tmp_path / "club.trf").write_text(CLUB)
    root = tmp_path / "N"
    assert cli(root, "ingest", "games.csv", "--players", "players.csv") == 0
    assert cli(root, "rate", "--system", "fide", "--no-flow") == 0
    capsys.readouterr()
    after = afters(root, 202503)
    assert [after[p] for p in ("1001", "1002", "1003", "1004")] == [2091, 1644, 2303, 1914]
    return root


def test_ingest_compares_with_the_ratings_in_force_when_nothing_is_published(march, capsys):
    assert cli(march, "ingest", "club.trf") == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "rating in the file differs" in line] == [
        INGEST_NOTE
    ]
    # the remedy the note gives: the same file again, its stated ratings ignored, says
    # nothing, and June starts from March's results
    argv = ["ingest", "club.trf", "--source", "club.trf", "--ignore-stated-ratings"]
    assert cli(march, *argv) == 0
    assert "rating in the file differs" not in capsys.readouterr().out
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        arpad.Store(march).rate("fide")
    assert not [w for w in caught if issubclass(w.category, StatedOverrideWarning)]
    june = starts(march, 202506)
    assert [june[p] for p in ("1001", "1002", "1003", "1004")] == [2091, 1644, 2303, 1914]


def test_rate_names_the_replaced_results_once(march, capsys):
    assert cli(march, "ingest", "club.trf") == 0
    capsys.readouterr()
    assert cli(march, "rate", "--system", "fide", "--no-flow") == 0
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if "replaced the store" in line] == [
        f"arpad: note: {RATE_NOTE}"
    ]
    # the rule is kept: June starts from the file's ratings
    june = starts(march, 202506)
    assert [june[p] for p in ("1001", "1002", "1003", "1004")] == [2105, 1650, 2310, 1890]
    # said by the run that first rates June; a recompute of it says nothing more
    assert cli(march, "rate", "--system", "fide", "--no-flow", "--full") == 0
    assert "replaced the store" not in capsys.readouterr().err
    # a system that rates from the games alone (no stated rating counts) says nothing
    assert cli(march, "rate", "--system", "elo", "--no-flow") == 0
    assert "replaced the store" not in capsys.readouterr().err


def test_store_rate_warns(march, capsys):
    assert cli(march, "ingest", "club.trf") == 0
    with pytest.warns(StatedOverrideWarning) as caught:
        arpad.Store(march).rate("fide")
    notes = [str(w.message) for w in caught if issubclass(w.category, StatedOverrideWarning)]
    assert notes == [RATE_NOTE]


def test_the_first_recalculate_of_a_federation_reports_the_note(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "players.csv").write_text(PLAYERS)
    (inbox / "games.csv").write_text(MARCH)
    (inbox / "club.trf").write_text(CLUB)
    root = tmp_path / "S"
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    assert main([*argv, "--systems", "fide"]) == 0
    out = capsys.readouterr().out
    # ingested before anything was rated: only the run can say it, under its system/pool
    assert "rating in the file differs" not in out
    section = out[out.index("## fide/standard") :]
    assert section.splitlines()[6] == f"Note: {RATE_NOTE}"
    assert starts(root, 202506)["1001"] == 2105


def test_a_rate_of_a_store_without_stated_ratings_imports_no_polars(tmp_path):
    """The note costs a ``rate`` without stated ratings one Parquet metadata read per game
    file of its new periods (docs/runners.md "Start-up"), and a run with them names them."""
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "games.csv").write_text(MARCH)
    (tmp_path / "club.trf").write_text(CLUB)
    root = tmp_path / "S"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    arpad_bin = os.path.join(os.path.dirname(sys.executable), "arpad")
    ingest = [arpad_bin, "--store", str(root), "ingest"]
    subprocess.run(
        [*ingest, "games.csv", "--players", "players.csv"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    code = (
        "import sys, warnings\n"
        "from arpad.pipeline.jobs import RateRequest, rate\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    rate(RateRequest(store={str(root)!r}, system='fide'))\n"
        "print('polars' in sys.modules, len(caught))\n"
    )
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, env=env, check=True, capture_output=True, text=True)
    assert first.stdout.split() == ["False", "0"]
    subprocess.run([*ingest, "club.trf"], cwd=tmp_path, env=env, check=True, capture_output=True)
    second = subprocess.run(run, env=env, check=True, capture_output=True, text=True)
    assert second.stdout.split() == ["True", "1"]
