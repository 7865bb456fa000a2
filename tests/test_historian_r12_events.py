"""Historian, round 12 (docs/pgn-trf.md "Historian's sources, round 11", the rule by
line): two *different* results-only files of one year with the same pair on the same
line and another result are two matches, not a corrected copy, when their Event tags
differ; a corrected copy (the same Event) is still ``conflicting_result``.

Ratings worked by hand with arpad's Elo (start 1500, K 20, one period, every expected
score 0.5). The players of a PGN file without FIDE ids have ids scoped to the file
(``match_b.pgn:Anderssen, Adolf``) until the historian merges them."""

from __future__ import annotations

import pytest

from tests.test_historian_attack import sql
from tests.test_historian_r11_duplicates import GAMES, elo, flipped, ingest, pgn, reasons


def test_two_results_only_matches_of_one_year_with_other_events_are_both_stored(tmp_path):
    a, b = tmp_path / "match_a.pgn", tmp_path / "match_b.pgn"
    a.write_text(pgn(GAMES, event="Match A", moves=False))
    # match B: the same pairings, the first game won by Slous, the others as match A
    b.write_text(pgn(flipped(GAMES), event="Match B", moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(a), "--rate-moveless") == 0
    # games 2 and 3 of match B repeat match A's players, result and year: the accepted
    # risk of the probable-duplicate rule (docs/pgn-trf.md); game 1 is stored now
    assert ingest(store, str(b), "--rate-moveless") == 2
    assert reasons(store) == {"probable_duplicate": 2}
    assert sql(store, "SELECT count(*) FROM games").item() == 4
    assert elo(store)["Anderssen, Adolf"]  # rates the store
    ratings = dict(
        sql(
            store,
            "SELECT player_id, rating_after FROM ratings WHERE system = 'elo' "
            "AND player_id LIKE '%Anderssen%'",
        ).rows()
    )
    # match A: 2.5 of 3, expected 1.5: 1500 + 20 × 1; match B's first game lost: − 20 × 0.5
    assert ratings == {
        "match_a.pgn:Anderssen, Adolf": pytest.approx(1520.0),
        "match_b.pgn:Anderssen, Adolf": pytest.approx(1490.0),
    }


def test_a_corrected_copy_with_the_same_event_is_still_a_conflicting_result(tmp_path):
    a, b = tmp_path / "match.pgn", tmp_path / "match_fixed.pgn"
    a.write_text(pgn(GAMES, event="Match A", moves=False))
    b.write_text(pgn(flipped(GAMES), event="Match A", moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(a), "--rate-moveless") == 0
    assert ingest(store, str(b), "--rate-moveless") == 2
    assert reasons(store) == {"probable_duplicate": 2, "conflicting_result": 1}
    assert elo(store)["Anderssen, Adolf"] == pytest.approx(1520.0)


def test_a_file_without_an_event_tag_is_compared_by_line_as_before(tmp_path):
    a, b = tmp_path / "table.pgn", tmp_path / "table_fixed.pgn"
    a.write_text(pgn(GAMES, event="Match A", moves=False))
    b.write_text(pgn(flipped(GAMES), event="?", moves=False))
    store = tmp_path / "S"
    assert ingest(store, str(a), "--rate-moveless") == 0
    assert ingest(store, str(b), "--rate-moveless") == 2
    assert reasons(store)["conflicting_result"] == 1
