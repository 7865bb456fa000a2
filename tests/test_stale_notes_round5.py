"""Stale ratings said by every reading command, and a range re-rated with other rules
marks the periods after it stale (round 5: the historian's third attack, the analyst's
third; docs/cli.md "Out-of-date ratings", docs/store.md "Limits").

1. After a correction or a players merge not rated yet, ``arpad list`` prints the note of
   pipeline/publish.py ``out_of_date`` on stderr; ``history``, ``era``, ``plot history``,
   ``audit`` and ``card`` printed nothing and exited 0. They now print the same line
   (stdout and exit codes as before); ``card`` says the change, not only other rules, can
   be why its recomputation DIFFERS.
2. ``rate --to P`` (``store.rate(end=P)``) with rules other than the recorded run's left
   the periods after P on the old chain without a mark (stale.json ``{}``).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import arpad
from arpad.pipeline.cli import main

PLAYERS = "player_id,rating,rated_games\n1,2100,50\n2,2000,50\n3,1900,50\n4,1800,50\n"
GAMES = (
    "game_id,date,white_id,black_id,result\n"
    "g1,2025-01-10,1,2,0-1\n"
    "g2,2025-01-11,3,4,1/2-1/2\n"
    "g3,2025-02-10,2,3,0-1\n"
    "g4,2025-02-11,1,4,0-1\n"
)


def run(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([*args, "--no-flow"] if args[0] == "rate" else list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def note(system: str, period: int, since: str) -> str:
    """The note of ``arpad list`` (pipeline/publish.py ``out_of_date``)."""
    return (
        f"arpad: note: the {system}/standard ratings of period {period} are out of date: "
        f"games or players changed since they were rated (stale from {since}); run arpad "
        f"rate --system {system} --pool standard first"
    )


@pytest.fixture
def store(tmp_path, capsys) -> Path:
    """FIDE over 202501..202502 (docs/api.md's four players), rated."""
    root = tmp_path / "S"
    (tmp_path / "p.csv").write_text(PLAYERS)
    (tmp_path / "g.csv").write_text(GAMES)
    assert run(capsys, "ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv"),
               "--store", str(root))[0] == 0  # fmt: skip
    assert run(capsys, "rate", "--system", "fide", "--store", str(root))[0] == 0
    return root


def corrected(root: Path, capsys) -> None:
    """g1 corrected 0-1 → 1-0 and ingested again, not rated since: stale from 202501."""
    games = root.parent / "g.csv"
    games.write_text(GAMES.replace("g1,2025-01-10,1,2,0-1", "g1,2025-01-10,1,2,1-0"))
    assert run(capsys, "ingest", str(games), "--store", str(root))[0] == 0


READERS = {
    "history": ["history", "1", "--system", "fide"],
    "era": ["era", "--system", "fide"],
    "plot history": ["plot", "history", "1", "2", "--system", "fide", "--output", "PNG"],
    "audit": ["audit", "1", "--system", "fide"],
    "card": ["card", "1"],  # the latest period, 202502: its recomputation matches
}


def readers(root: Path) -> dict[str, list[str]]:
    png = str(root.parent / "h.png")
    return {k: [png if a == "PNG" else a for a in v] + ["--store", str(root)] for k, v in
            READERS.items()}  # fmt: skip


def test_every_reading_command_prints_the_note_of_list(store, capsys):
    fresh = {name: run(capsys, *argv) for name, argv in readers(store).items()}
    for name, (rc, _, err) in fresh.items():  # rated and unchanged: no note
        assert (rc, err) == (0, ""), name
    corrected(store, capsys)
    stale = note("fide", 202502, "period 202501")
    rc, _, err = run(capsys, "list", "--system", "fide", "--store", str(store))
    assert (rc, err.splitlines()) == (0, [stale])  # the note the others now print too
    for name, argv in readers(store).items():
        rc, out, err = run(capsys, *argv)
        assert rc == 0, name  # exit codes unchanged
        assert err.splitlines() == [stale], name
        assert "out of date" not in out, name  # stdout unchanged: the note is on stderr
        if name not in ("audit", "plot history"):  # (audit's trail lists the correction)
            assert out == fresh[name][1], name  # the stale ratings, as before


def test_card_that_differs_names_the_out_of_date_ratings(store, capsys):
    corrected(store, capsys)
    rc, out, err = run(capsys, "card", "1", "--period", "202501", "--store", str(store))
    # The card replays g1 as it is now (1 beats 2: a win), the store holds the loss.
    assert rc == 2
    assert "DIFFERS (rules other than the card's?)" in out  # (pipeline/fide_card.py's text)
    assert err.splitlines() == [
        note("fide", 202501, "period 202501") + "; the card recomputes from the games and "
        "players as they are now, so that change, not only other rules, can be why it says "
        "DIFFERS"
    ]
    rc, out, err = run(capsys, "card", "1", "--period", "202501", "--format", "json",
                       "--store", str(store))  # fmt: skip
    assert rc == 2 and json.loads(out)["matches"] is False and "can be why" in err


def test_no_note_once_rated_again(store, capsys):
    corrected(store, capsys)
    assert run(capsys, "rate", "--system", "fide", "--store", str(store))[0] == 0
    for name, argv in readers(store).items():
        rc, _, err = run(capsys, *argv)
        assert (rc, err) == (0, ""), name


def test_a_merge_not_rated_yet_is_noted(store, capsys):
    """The historian's case: players merged, no re-rate (the merge marks the first period
    of the duplicate's games, 202501)."""
    assert run(capsys, "players", "merge", "2", "4", "--store", str(store))[0] == 0
    stale = note("fide", 202502, "period 202501")
    for name in ("history", "era", "plot history", "audit"):
        rc, _, err = run(capsys, *readers(store)[name])
        assert rc == 0 and stale in err.splitlines(), name


# -- 2. a range re-rated with other rules -------------------------------------------------

ELO_GAMES = GAMES + "g5,2025-03-10,1,3,1-0\ng6,2025-03-11,2,4,1/2-1/2\n"


@pytest.fixture
def elo_store(tmp_path, capsys) -> Path:
    root = tmp_path / "E"
    (tmp_path / "g.csv").write_text(ELO_GAMES)
    assert run(capsys, "ingest", str(tmp_path / "g.csv"), "--store", str(root))[0] == 0
    assert run(capsys, "rate", "--system", "elo", "--store", str(root))[0] == 0
    return root


def stale_json(root: Path) -> dict:
    path = root / "manifest" / "stale.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_range_with_other_rules_marks_the_later_periods(elo_store, capsys):
    root = str(elo_store)
    rc, _, _ = run(capsys, "rate", "--system", "elo", "--to", "202501", "--set", "k=40",
                   "--store", root)  # fmt: skip
    assert rc == 0
    assert stale_json(elo_store) == {"elo/standard": 202502}
    rc, _, err = run(capsys, "list", "--system", "elo", "--store", root)
    assert err.splitlines() == [note("elo", 202503, "period 202502")]
    assert run(capsys, "era", "--system", "elo", "--store", root)[2] == err
    # a full re-rate (the rules the user now runs) clears it
    assert run(capsys, "rate", "--system", "elo", "--store", root)[0] == 0
    assert stale_json(elo_store) == {}
    assert run(capsys, "list", "--system", "elo", "--store", root)[2] == ""


def test_range_with_the_recorded_rules_marks_nothing(elo_store, capsys):
    """The same rules rate the range as before (deterministic), so the chain holds."""
    rc = run(capsys, "rate", "--system", "elo", "--to", "202502", "--store",
                     str(elo_store))[0]  # fmt: skip
    assert rc == 0 and stale_json(elo_store) == {}
    assert run(capsys, "list", "--system", "elo", "--store", str(elo_store))[2] == ""


def test_api_range_with_other_k_warns(tmp_path):
    """The analyst's notebook: ``st.rate("elo")`` then ``st.rate("elo", start=…, end=…,
    k=40)``: reading the list warns (docs/api.md round 5)."""
    (tmp_path / "g.csv").write_text(ELO_GAMES)
    st = arpad.Store(tmp_path / "A")
    st.ingest(tmp_path / "g.csv")
    st.rate("elo")
    st.rate("elo", start=202501, end=202502, k=40)
    assert stale_json(tmp_path / "A") == {"elo/standard": 202503}
    with pytest.warns(arpad.StaleRatingsWarning, match=r"stale from period 202503"):
        st.list("elo")
    st.rate("elo")  # the incremental rate of the mark clears it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st.list("elo")
    assert stale_json(tmp_path / "A") == {}


def test_incremental_and_monthly_runs_leave_nothing_stale(elo_store, tmp_path, capsys):
    late = tmp_path / "late.csv"
    late.write_text("game_id,date,white_id,black_id,result\nlate1,2025-02-20,3,1,1-0\n")
    assert run(capsys, "ingest", str(late), "--store", str(elo_store))[0] == 0
    assert stale_json(elo_store) == {"elo/standard": 202502}
    assert run(capsys, "rate", "--system", "elo", "--store", str(elo_store))[0] == 0
    assert stale_json(elo_store) == {}
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "april.csv").write_text(
        "game_id,date,white_id,black_id,result\napr1,2025-04-10,2,1,1-0\n"
    )
    argv = ["recalculate", "--no-flow", "--inbox", str(inbox), "--store", str(elo_store)]
    assert main(argv) == 0
    assert stale_json(elo_store) == {}
