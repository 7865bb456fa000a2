"""A name that matches a merged duplicate finds the id it was merged into
(docs/identity.md "Merged ids everywhere"), with the note the id lookup gives; a store
whose only games are of a player against himself after a forced merge says so
(docs/identity.md "Self-play"). Report historian7, defects 1 and 5."""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.history import rating_history
from arpad.pipeline.plots import history_figure
from arpad.pipeline.store import Store

KEEP_S, DUP_S = "wch.pgn:Steinitz, William", "other.pgn:Steinitz, W."
KEEP_Z, DUP_Z = "wch.pgn:Zukertort, Johannes Hermann", "other.pgn:Zukertort, J."


def pgn(white: str, black: str, result: str, date: str, rnd: int) -> str:
    return (
        f'[Event "WCh"]\n[Site "USA"]\n[Date "{date}"]\n[Round "{rnd}"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n1. e4 e5 {result}\n\n'
    )


def run(*args: str) -> int:
    return main([*args, "--no-flow"] if args[0] in ("ingest", "rate") else list(args))


@pytest.fixture
def merged(tmp_path, capsys) -> str:
    """The 1886 match in two files, one with abbreviated names, the ids merged."""
    games = [("1-0", "1886.01.11", 1), ("0-1", "1886.01.13", 2), ("1-0", "1886.01.15", 3)]
    full = "".join(
        pgn("Steinitz, William", "Zukertort, Johannes Hermann", r, d, n) for r, d, n in games
    )
    (tmp_path / "wch.pgn").write_text(full)
    short = full.replace("Steinitz, William", "Steinitz, W.").replace(
        "Zukertort, Johannes Hermann", "Zukertort, J."
    )
    (tmp_path / "other.pgn").write_text(
        short + pgn("Steinitz, W.", "Zukertort, J.", "1-0", "1886.02.01", 4)
    )
    root = str(tmp_path / "S")
    assert (
        run("ingest", str(tmp_path / "wch.pgn"), str(tmp_path / "other.pgn"), "--store", root) == 0
    )
    for keep, dup in ((KEEP_S, DUP_S), (KEEP_Z, DUP_Z)):
        assert run("players", "merge", keep, dup, "--store", root) == 0
    assert run("rate", "--system", "elo", "--store", root) == 0
    capsys.readouterr()
    return root


def note(root: str, name: str, capsys) -> tuple[str, str]:
    assert run("history", name, "--system", "elo", "--store", root, "--format", "csv") == 0
    out, err = capsys.readouterr()
    return out, err.strip()


def test_a_name_matching_only_a_merged_duplicate_finds_the_kept_id(merged, capsys):
    # "Jan" abbreviates to "J." (the duplicate's name), not to "Johannes Hermann"
    out, err = note(merged, "Zukertort, Jan", capsys)
    assert err == (
        f"arpad: note: Zukertort, Jan matches {DUP_Z} (Zukertort, J.), which was merged into "
        f"{KEEP_Z} "
        f"(arpad players --merges); showing {KEEP_Z}"
    )
    by_id, _ = note(merged, KEEP_Z, capsys)
    # the kept id's history: the copies a merge made one game counted once (3 games in
    # 188601, 1 of 3 points: Elo K 20 against an equal 1500, 20 * (1 - 1.5) = -10), and
    # the duplicate's own 4th game in 188602
    assert out == by_id
    assert out.splitlines()[1] == "188601,games,1500.0,-10.0,1490.0,3,1.0,20.0,rated"
    assert out.splitlines()[2].startswith("188602,games,1490.0,")
    assert rating_history(Store(merged), "Zukertort, Jan", "elo")["games"].sum() == 4


def test_the_duplicates_exact_name_says_it_was_merged(merged, capsys):
    # not "Steinitz, W. is the name of wch.pgn:Steinitz, William": it is the duplicate's
    _, err = note(merged, "Steinitz, W.", capsys)
    assert err == (
        f"arpad: note: Steinitz, W. is the name of {DUP_S}, which was merged into {KEEP_S} "
        f"(arpad players --merges); showing {KEEP_S}"
    )
    _, err = note(merged, DUP_S, capsys)  # the id: as before
    assert err == (
        f"arpad: note: {DUP_S} was merged into {KEEP_S} (arpad players --merges); showing {KEEP_S}"
    )
    # a name matching the kept id and its duplicate is one player, the kept id (not
    # "'Steinitz' matches 2 players")
    for name, keep in (("Steinitz", KEEP_S), ("Zukertort", KEEP_Z)):
        _, err = note(merged, name, capsys)
        full = keep.partition(":")[2]  # (a surname alone: "matches", tests/test_hostile_round7.py)
        assert err == f"arpad: note: {name} matches {keep} ({full}); showing {keep}"


def test_audit_and_plot_history_follow_the_merge(merged, capsys, tmp_path):
    assert run("audit", "Zukertort, Jan", "--system", "elo", "--store", merged) == 0
    assert f"which was merged into {KEEP_Z}" in capsys.readouterr().err
    _fig, ax = history_figure(Store(merged), ["Zukertort, Jan", "Steinitz, W."], "elo")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["Zukertort, Johannes Hermann", "Steinitz, William"]


def test_only_self_play_games_say_so_not_give_starting_ratings(tmp_path, capsys):
    (tmp_path / "self.pgn").write_text(pgn("Morphy, Paul", "Morphy, P.", "1-0", "1858.07.01", 1))
    root = str(tmp_path / "SP")
    assert run("ingest", str(tmp_path / "self.pgn"), "--store", root) == 0
    keep, dup = "self.pgn:Morphy, Paul", "self.pgn:Morphy, P."
    assert run("players", "merge", keep, dup, "--store", root, "--force") == 0
    capsys.readouterr()
    assert run("rate", "--system", "elo", "--store", root) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "arpad: error: elo/standard: nothing to rate: all 1 game(s) are of a player against "
        "himself (ids merged with arpad players merge --force), not rated; arpad players "
        "--merges lists the merges, arpad players split KEEP DUPLICATE undoes one"
    )
    assert "starting ratings" not in err
    assert not Path(root, "ratings").exists() or not any(Path(root, "ratings").rglob("*.parquet"))
