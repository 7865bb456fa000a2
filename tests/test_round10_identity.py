"""Round 10, identity (docs/identity.md "A merge run again", "Namesakes at ingest: the
birth years said", "Candidates").

1. A merge already in force is nothing to do in ``identity.merge`` itself, so
   ``jobs.merge_players`` (Python) skips it too: before, only the CLI did, and the job
   raised "X is already merged into K (split it first)".
2. The namesake note said "both born 1980" of two ids one of which had no birth year.
3. ``identify``'s shared opponents compared opponents' first given names by their
   phonetic keys, not by the spelling-variant keys the names themselves are compared
   with: "Mayet, Carl" and "Mayet, Karl" were two opponents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline import identity, jobs
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_identity_attack import players_store


def _store(tmp_path: Path) -> Store:
    players = [("K", "Keep, Karl", None), ("D", "Dup, Dora", None), ("E", "Else, Eva", None)]
    players += [("O", "Other, Otto", None)]
    return players_store(tmp_path, players, [("K", "O", 1990), ("D", "O", 1991)])


def test_a_python_merge_run_again_changes_nothing(tmp_path):
    store = _store(tmp_path)
    first = jobs.merge_players(jobs.MergeRequest(str(store.root), [("K", "D", "by hand")]))
    assert first == [("standard", 199003)]  # stale from the first period of K or D (March 1990)
    aliases, log = store.aliases_path.read_bytes(), store.merges_path.read_bytes()
    again = jobs.merge_players(jobs.MergeRequest(str(store.root), [("K", "D", "by hand")]))
    assert again == []  # nothing marked stale
    assert store.aliases_path.read_bytes() == aliases
    assert store.merges_path.read_bytes() == log
    # into another keep: still refused, nothing written
    with pytest.raises(ValueError, match=r"^D is already merged into K \(split it first\)$"):
        jobs.merge_players(jobs.MergeRequest(str(store.root), [("E", "D", "")]))
    assert store.aliases_path.read_bytes() == aliases


def test_merge_skips_the_pairs_in_force_and_says_which(tmp_path):
    store = _store(tmp_path)
    identity.merge(store, "K", ["D"], "first")
    skipped: list[str] = []
    identity.merge(store, "K", ["D", "E"], "second", skipped)
    assert skipped == ["D"]
    aliases = identity.read_aliases(store).select("duplicate", "keep", "reason").rows()
    assert aliases == [("D", "K", "first"), ("E", "K", "second")]
    log = identity.read_merge_log(store).select("action", "keep", "duplicate", "reason")
    assert log.rows() == [("merge", "K", "D", "first"), ("merge", "K", "E", "second")]
    assert identity.in_force(store, [("K", "D"), ("K", "E"), ("E", "D")]) == [
        ("K", "D"),
        ("K", "E"),
    ]


def test_the_namesake_note_says_only_the_birth_years_given(tmp_path, capsys):
    # round 9: hu.csv (11, no birth year), then pl.csv (2, born 1980) said
    # "(2 'Szűcs, Ödön' and stored 11 'Szűcs, Ödön', both born 1980)"
    hu, pl_ = tmp_path / "hu.csv", tmp_path / "pl.csv"
    hu.write_text('player_id,name\n11,"Szűcs, Ödön"\n', encoding="utf-8")
    pl_.write_text('player_id,name,birth_year\n2,"Szűcs, Ödön",1980\n', encoding="utf-8")
    root = str(tmp_path / "S")
    assert main(["ingest", "--no-flow", "--store", root, "--players", str(hu)]) == 0
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "--store", root, "--players", str(pl_)]) == 0
    out = capsys.readouterr().out
    assert (
        "(2 'Szűcs, Ödön' and stored 11 'Szűcs, Ödön', 2 born 1980, 11 without a birth "
        "year): a mistyped player id" in out
    )
    assert "both born" not in out


def test_the_namesake_note_for_a_stored_birth_year_and_for_both(tmp_path):
    import pyarrow as pa

    from arpad.pipeline.namesakes import namesake_notes

    def table(rows):
        ids, names, years = zip(*rows, strict=True)
        return pa.table(
            {
                "player_id": list(ids),
                "name": list(names),
                "birth_year": pa.array(years, pa.int32()),
                "source": [None] * len(ids),
            }
        )

    before = table([("11", "Szűcs, Ödön", 1980), ("12", "Eck, Emil", 1970), ("13", "Tal, M", None)])
    after = table(
        [
            *(tuple(r.values())[:3] for r in before.to_pylist()),
            ("2", "Szűcs, Ödön", None),
            ("3", "Eck, Emil", 1970),
            ("4", "Tal, M", None),
        ]
    )
    (note,) = namesake_notes(before, after)
    assert note.startswith(
        "3 player id(s) new to the store with the name of a stored player "
        "(2 'Szűcs, Ödön' and stored 11 'Szűcs, Ödön', 11 born 1980, 2 without a birth "
        "year; 3 'Eck, Emil' and stored 12 'Eck, Emil', both born 1970; "
        "4 'Tal, M' and stored 13 'Tal, M'): "
    )


def test_an_opponent_spelt_two_ways_is_one_shared_opponent(tmp_path):
    """A1 and A2 "Anderssen, Adolf" (same normalised name 0.6, years within 10 years
    +0.1) met "Mayet, Carl" and "Mayet, Karl" (spelling variants, docs/identity.md
    "Spelling variants of given names") and "Kolisch, Ignatz" and "Kolisch, Ignaz":
    2 shared opponents, +0.05 each: 0.8 (before: 0.7, no shared opponent). The
    opponents are proposed too: spelling variants 0.5 + years 0.1 + 1 shared opponent
    (the two Anderssens, one name) 0.05 = 0.65."""
    players = [
        ("A1", "Anderssen, Adolf", None),
        ("A2", "Anderssen, Adolf", None),
        ("M1", "Mayet, Carl", None),
        ("M2", "Mayet, Karl", None),
        ("K1", "Kolisch, Ignatz", None),
        ("K2", "Kolisch, Ignaz", None),
    ]
    games = [("A1", "M1", 1860), ("A1", "K1", 1860), ("A1", "K1", 1861)]
    games += [("A2", "M2", 1862), ("A2", "K2", 1862)]
    got = identity.candidates(players_store(tmp_path, players, games)).rows()
    sum_ = identity.SCORE_SAME_NAME + identity.SCORE_OVERLAP + 2 * identity.SCORE_SHARED_OPPONENT
    assert sum_ == pytest.approx(0.8)
    assert got == [
        ("A1", "A2", "same normalised name; years 1860-1861 and 1862-1862; 2 shared opponent(s)", 0.8),
        ("K1", "K2", "given names Ignatz / Ignaz (spelling variants); years 1860-1861 and 1862-1862; 1 shared opponent(s)", 0.65),
        ("M1", "M2", "given names Carl / Karl (spelling variants); years 1860-1860 and 1862-1862; 1 shared opponent(s)", 0.65),
    ]  # fmt: skip
