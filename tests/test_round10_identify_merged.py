"""Round 10 (historian): ``players identify`` and the names already merged, and the
split's audit-trail row (docs/identity.md "Candidates", "Copies a merge makes one game").

3. A kept id was compared under its own name only: "Steinitz, Wilhelm" merged into
   "Steinitz, William" by hand, then a new file's "Steinitz, Wilhelm" was proposed
   nowhere. Now a kept id is compared under its merged ids' names too, and the evidence
   says which ("same normalised name as merged w1882.pgn:Steinitz, Wilhelm").
4. An abbreviation held back as ambiguous ("Steinitz, W." with both "Steinitz, William"
   and "Steinitz, Wilhelm") vanished without a note; once the two are merged it is one
   player to fit, and is proposed into the keep.
6. A split's trail row recorded ``stale_from`` of its two ids' stored games only, later
   than the games it put back (printed "affected: standard from 188205", recorded
   "standard:188601").

Scores from docs/identity.md's evidence table: same normalised name 0.6, abbreviated
given name 0.5, years of play within 10 years +0.1 (the opponents below all differ, so
none is shared).
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


def ingest(tmp_path: Path, root: Path, name: str, *games: str) -> None:
    pgn = tmp_path / name
    pgn.write_text("\n".join(games), encoding="utf-8")
    assert main(["ingest", "--no-flow", "--store", str(root), str(pgn)]) == 0


def identify(root: Path, capsys) -> tuple[list[tuple], str]:
    capsys.readouterr()
    assert main(["players", "identify", "--store", str(root), "--format", "csv"]) == 0
    return identity.candidates(Store(root)).rows(), capsys.readouterr().err


def merge(root: Path, keep: str, dup: str, capsys) -> str:
    assert main(["players", "merge", keep, dup, "--store", str(root)]) == 0
    return capsys.readouterr().out


def test_a_spelling_merged_by_hand_finds_the_next_file_spelt_so(tmp_path, capsys):
    """The historian's session: Wien 1882's "Steinitz, Wilhelm" merged into 1886's
    "Steinitz, William"; Berlin 1883's "Steinitz, Wilhelm" is proposed into the keep
    (0.6 + 0.1: the keep's years count the merged 1882)."""
    root = tmp_path / "V"
    ingest(
        tmp_path, root, "m1886.pgn", game("Steinitz, William", "Zukertort, Johannes", "1886.01.11")
    )
    ingest(tmp_path, root, "w1882.pgn", game("Steinitz, Wilhelm", "Winawer, Szymon", "1882.05.10"))
    merge(root, "m1886.pgn:Steinitz, William", "w1882.pgn:Steinitz, Wilhelm", capsys)
    ingest(tmp_path, root, "b1883.pgn", game("Steinitz, Wilhelm", "Mieses, Jacques", "1883.10.01"))
    rows, err = identify(root, capsys)
    evidence = "same normalised name as merged w1882.pgn:Steinitz, Wilhelm"
    assert rows == [
        (
            "m1886.pgn:Steinitz, William",
            "b1883.pgn:Steinitz, Wilhelm",
            f"{evidence}; years 1882-1886 and 1883-1883",
            0.7,
        )
    ]
    assert "note" not in err


def test_an_ambiguous_abbreviation_is_noted_then_proposed_once_its_fits_are_merged(
    tmp_path, capsys
):
    """ "Steinitz, W." fits two players, William and Wilhelm: not proposed, and a note
    names them. Once they are merged, W. fits one player and is proposed into the keep;
    it fits the keep's own "William" and its merged "Wilhelm" equally (abbreviated,
    0.5), and the evidence is the own name's, without "as merged"."""
    root = tmp_path / "S"
    ingest(tmp_path, root, "a.pgn", game("Steinitz, William", "Zukertort, Johannes", "1886.01.11"))
    ingest(tmp_path, root, "b.pgn", game("Steinitz, Wilhelm", "Winawer, Szymon", "1882.05.10"))
    ingest(tmp_path, root, "c.pgn", game("Steinitz, W.", "Mieses, Jacques", "1883.10.01"))
    rows, err = identify(root, capsys)
    assert rows == []  # ambiguous: W. fits William and Wilhelm, two players
    assert err == (
        "arpad: note: 1 abbreviated name(s) not proposed: each fits several players' full "
        "names (c.pgn:Steinitz, W.: a.pgn:Steinitz, William / b.pgn:Steinitz, Wilhelm); "
        "merge by hand the one the sources name (arpad players merge KEEP DUPLICATE), or "
        "merge those players first if they are one\n"
    )
    ambiguous: list = []
    identity.candidates(Store(root), ambiguous=ambiguous)
    assert ambiguous == [
        ("c.pgn:Steinitz, W.", ["a.pgn:Steinitz, William", "b.pgn:Steinitz, Wilhelm"])
    ]
    # William and Wilhelm are one player: W. fits one player, and is proposed into him
    merge(root, "a.pgn:Steinitz, William", "b.pgn:Steinitz, Wilhelm", capsys)
    rows, err = identify(root, capsys)
    assert rows == [
        (
            "a.pgn:Steinitz, William",
            "c.pgn:Steinitz, W.",
            "abbreviated given name; years 1882-1886 and 1883-1883",
            0.6,
        )
    ]
    assert err == ""


def test_an_abbreviation_merged_into_a_keep_does_not_join_another_full_name(tmp_path, capsys):
    """ "Steinitz, W." merged into "Steinitz, William" says W. is William, not that a new
    "Steinitz, Wilhelm" is: W. would fit both, so nothing is proposed, and no note (the
    abbreviation is the keep's own merged name, not an id left apart)."""
    root = tmp_path / "S"
    ingest(tmp_path, root, "a.pgn", game("Steinitz, William", "Zukertort, Johannes", "1886.01.11"))
    ingest(tmp_path, root, "c.pgn", game("Steinitz, W.", "Mieses, Jacques", "1883.10.01"))
    merge(root, "a.pgn:Steinitz, William", "c.pgn:Steinitz, W.", capsys)
    ingest(tmp_path, root, "b.pgn", game("Steinitz, Wilhelm", "Winawer, Szymon", "1882.05.10"))
    rows, err = identify(root, capsys)
    assert rows == []
    assert err == ""


def test_a_splits_trail_row_records_the_periods_of_the_games_it_puts_back(tmp_path, capsys):
    """f3's "Steinitz, W." copy of the Wien 1882 game (May 1882) is taken out by the merge
    that makes it f2's game; the split puts it back: "affected: standard from 188205"
    printed, and the trail row's stale_from is that mark (before: standard:188601, the
    two ids' stored games only: the keep's 1886 game, W.'s 1887 one)."""
    root = tmp_path / "S"
    ingest(tmp_path, root, "f1.pgn", game("Steinitz, William", "Zukertort, Johannes", "1886.01.11"))
    ingest(
        tmp_path,
        root,
        "f2.pgn",
        game("Steinitz, Wilhelm", "Winawer, Szymon", "1882.05.10", "1. d4 d5"),
    )
    ingest(
        tmp_path,
        root,
        "f3.pgn",
        game("Steinitz, W.", "Winawer, Szymon", "1882.05.10", "1. d4 d5"),
        game("Steinitz, W.", "Blackburne, Joseph", "1887.03.01", "1. c4 e5"),
    )
    merge(root, "f1.pgn:Steinitz, William", "f2.pgn:Steinitz, Wilhelm", capsys)
    merge(root, "f2.pgn:Winawer, Szymon", "f3.pgn:Winawer, Szymon", capsys)
    out = merge(root, "f1.pgn:Steinitz, William", "f3.pgn:Steinitz, W.", capsys)
    assert "took out 1 game(s)" in out
    assert (
        main(
            [
                "players",
                "split",
                "f1.pgn:Steinitz, William",
                "f3.pgn:Steinitz, W.",
                "--store",
                str(root),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("split 1 pair(s); affected: standard from 188205 ")
    assert "put back 1 game(s)" in out
    log = identity.read_merge_log(Store(root)).select("action", "duplicate", "stale_from")
    assert log.rows()[-1] == ("split", "f3.pgn:Steinitz, W.", "standard:188205")
    assert log.rows()[-2] == ("merge", "f3.pgn:Steinitz, W.", "standard:188205")
