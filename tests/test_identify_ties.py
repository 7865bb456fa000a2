"""Which spelling ``players identify`` keeps when two ids tie (docs/identity.md
"Candidates": the source's own id, then more games, then the more informative
spelling, then the smaller id).

Before, a tie on games went straight to the smaller id, so "Morphy, P." ("." sorts
before "a") was kept over "Morphy, Paul". Expected values are worked out by hand from
the games below and the scores in docs/identity.md (abbreviated given name 0.5, same
normalised name 0.6, years of play +0.1; the opponents all differ, so none is shared).
"""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store


def game(white: str, black: str, date: str, moves: str = "1. e4 e5") -> str:
    return (
        f'[Event "E"]\n[Site "S"]\n[Date "{date}"]\n[Round "1"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "1-0"]\n\n{moves} 1-0\n'
    )


def store_of(tmp_path: Path, *games: str) -> Store:
    pgn = tmp_path / "m.pgn"
    pgn.write_text("\n".join(games), encoding="utf-8")
    root = tmp_path / "s"
    assert main(["ingest", "--no-flow", "--store", str(root), str(pgn)]) == 0
    return Store(root)


def rows(store: Store) -> list[tuple]:
    return identity.candidates(store).rows()


def test_a_tie_on_games_keeps_the_full_given_name(tmp_path):
    """Three spellings, one game each in 1858 (ids all file-scoped): "Morphy, Paul"
    is kept; "P. Morphy" is proposed into it directly (abbreviated, 0.5 + 0.1)."""
    store = store_of(
        tmp_path,
        game("Morphy, P.", "Anderssen, Adolf", "1858.12.20"),
        game("Morphy, Paul", "Loewenthal, Johann", "1858.07.19", "1. d4 d5"),
        game("P. Morphy", "Harrwitz, Daniel", "1858.09.01", "1. c4 e5"),
    )
    years = "years 1858-1858 and 1858-1858"
    assert rows(store) == [
        ("m.pgn:Morphy, Paul", "m.pgn:Morphy, P.", f"abbreviated given name; {years}", 0.6),
        ("m.pgn:Morphy, Paul", "m.pgn:P. Morphy", f"abbreviated given name; {years}", 0.6),
    ]


def test_equally_informative_spellings_keep_the_smaller_id(tmp_path):
    """ "Morphy, P." and "P. Morphy" say the same (one initial): the smaller id is kept,
    whichever order the file gives them in."""
    store = store_of(
        tmp_path,
        game("P. Morphy", "Harrwitz, Daniel", "1858.09.01", "1. c4 e5"),
        game("Morphy, P.", "Anderssen, Adolf", "1858.12.20"),
    )
    years = "years 1858-1858 and 1858-1858"
    assert rows(store) == [
        ("m.pgn:Morphy, P.", "m.pgn:P. Morphy", f"same normalised name; {years}", 0.7),
    ]


def test_more_games_still_outrank_a_fuller_spelling(tmp_path):
    """The primary key is unchanged: "Morphy, P." with two games is kept over
    "Morphy, Paul" with one."""
    store = store_of(
        tmp_path,
        game("Morphy, P.", "Anderssen, Adolf", "1858.12.20"),
        game("Morphy, P.", "Mongredien, Augustus", "1859.01.01", "1. f4 e5"),
        game("Morphy, Paul", "Loewenthal, Johann", "1858.07.19", "1. d4 d5"),
    )
    assert rows(store) == [
        (
            "m.pgn:Morphy, P.",
            "m.pgn:Morphy, Paul",
            "abbreviated given name; years 1858-1859 and 1858-1858",
            0.6,
        ),
    ]


def test_informative_ranks_given_names():
    """More given-name letters first, then more given names longer than an initial."""
    rank = [
        identity._informative(identity.matching_name(n)[1])
        for n in ("Lasker, E", "Lasker, Em.", "Lasker, Emanuel", "Lasker, Emanuel Max")
    ]
    assert rank == [(1, 0), (2, 1), (7, 1), (10, 2)]
    assert identity._informative(("p",)) == identity._informative(
        identity.matching_name("P. Morphy")[1]
    )
