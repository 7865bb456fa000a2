"""ECF seasons of year-only games, the historian's attack, round 13
(docs/legacy-systems.md "Games dated only to the year"):

1. an event is its Event tag *in one file*: another club's file that also calls its
   event "Club Championship" (games of autumn 1963) made the Hastings event span three
   years, so its 1963 games were no longer placed in 1962/63;
2. an incremental run equals a full one: the run after that other file arrived kept
   the 1962/63 list that held the 1963 games and graded them again in 1963/64;
3. a spring event (dated games of February and March 1963, the rest `1963.??.??`) is
   one season's event: it was split over 1962/63 and 1963/64.

Grades by hand (40-point rule, pre-2011 padding to 30 games at the previous grade;
Alder 160, Birch 140, Cedar 100, Dogwood 150), for 3: Alder beat Birch (190) and
Dogwood (200): (390 + 28·160)/30 = 162.33 → 162; Birch lost to Alder (110), beat Cedar
(100, 40 below: 150): (260 + 28·140)/30 = 139.33 → 139; Cedar lost to Dogwood (150 →
140: 90) and Birch (90): (180 + 28·100)/30 = 99.33 → 99; Dogwood beat Cedar (100 → 110:
160), lost to Alder (110): (270 + 28·150)/30 = 149.
"""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_ecf_seasons_r12 import CLUB, club_files, grades, pgn_text, season

OTHER_CLUB = [  # Bristol's autumn 1963, players of its own
    ("1963.09.20", "Elm", "Fir", "1-0"),
    ("1963.10.20", "Fir", "Elm", "1/2-1/2"),
]
SPRING = [
    ("1963.02.10", "Alder", "Birch", "1-0"),
    ("1963.03.15", "Cedar", "Dogwood", "0-1"),
    ("1963.??.??", "Dogwood", "Alder", "0-1"),
    ("1963.??.??", "Birch", "Cedar", "1-0"),
]


def rate(store) -> None:
    assert main(["rate", "--system", "ecf", "--store", str(store), "--no-flow"]) == 0


def ingest(store, *args) -> None:
    assert main(["ingest", *map(str, args), "--store", str(store), "--no-flow"]) == 0


def test_another_files_event_of_the_same_name_is_another_event(tmp_path):
    hastings, players = club_files(tmp_path, CLUB)
    hastings.write_text(pgn_text(CLUB, event="Club Championship"))
    bristol = tmp_path / "bristol.pgn"
    bristol.write_text(
        pgn_text(OTHER_CLUB, event="Club Championship").replace("Hastings", "Bristol")
    )
    store = tmp_path / "S"
    ingest(store, hastings, bristol, "--players", players)
    rate(store)
    assert grades(Store(store), 196305) == season()  # as the Hastings file alone


def test_an_incremental_run_equals_a_full_one(tmp_path):
    hastings, players = club_files(tmp_path, CLUB)
    bristol = tmp_path / "bristol.pgn"
    # the same Event name in both files, as in the attack
    hastings.write_text(pgn_text(CLUB, event="Club Championship"))
    bristol.write_text(
        pgn_text(OTHER_CLUB, event="Club Championship").replace("Hastings", "Bristol")
    )
    step, whole = tmp_path / "step", tmp_path / "whole"
    ingest(step, hastings, "--players", players)
    rate(step)
    ingest(step, bristol)
    rate(step)  # stale from 196309: rated from the first period
    ingest(whole, hastings, bristol, "--players", players)
    rate(whole)
    a, b = Store(step), Store(whole)
    assert a.rating_periods("ecf", "standard") == b.rating_periods("ecf", "standard")
    for period in b.rating_periods("ecf", "standard"):
        assert grades(a, period) == grades(b, period), period
    assert grades(a, 196305) == season()


def test_a_spring_event_with_year_only_games_is_one_seasons_event(tmp_path):
    pgn, players = club_files(tmp_path, SPRING, name="spring.pgn")
    pgn.write_text(pgn_text(SPRING, event="Spring League 1963"))
    store = tmp_path / "S"
    ingest(store, pgn, "--players", players)
    rate(store)
    s = Store(store)
    assert grades(s, 196305) == {
        "Alder": ("rated", 162.0, 2),
        "Birch": ("rated", 139.0, 2),
        "Cedar": ("rated", 99.0, 2),
        "Dogwood": ("rated", 149.0, 2),
    }
    assert 196405 not in s.rating_periods("ecf", "standard")
