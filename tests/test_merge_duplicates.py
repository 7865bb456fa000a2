"""Copies a merge makes one game (docs/identity.md "Copies a merge makes one game").

The historian's attack: the 1886 match stored from two collections whose names differ
("Steinitz, William" and "Steinitz, W.") is two sets of games to ingest's
probable-duplicate check (pipeline/probable_duplicates.py); once ``arpad players
merge`` counts the names as one player, the later copy of each game must leave the
rated games (quarantined ``probable_duplicate``), and a split must bring it back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import identity, journal
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql

STEINITZ = "WorldChamp1886.pgn:Steinitz, William"
ZUKERTORT = "WorldChamp1886.pgn:Zukertort, Johannes Hermann"


def run(*args: str) -> int:
    return main(list(args) if args[0] == "players" else [*args, "--no-flow"])


def stored_count(root: Path) -> int:
    store = Store(root)
    return sum(pq.read_metadata(f).num_rows for f in store.game_files())


def steinitz(root: Path) -> tuple[int, float]:
    """Steinitz's (games, score) in the last elo period."""
    frame = sql(
        root,
        "SELECT games, score FROM player_history WHERE system = 'elo' "
        f"AND player_id = '{STEINITZ}' ORDER BY period DESC LIMIT 1",
    )
    return frame.row(0)


def quarantined(root: Path) -> list[tuple[str, str, str]]:
    return sql(root, "SELECT source, reason, detail FROM quarantine ORDER BY line").rows()


def match_score(pgn: Path) -> tuple[int, float]:
    """Steinitz's games and score in the match, counted from the PGN's tags."""
    games, score = 0, 0.0
    white = None
    points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    for line in pgn.read_text(encoding="utf-8").splitlines():
        if line.startswith("[White "):
            white = line.split('"')[1]
        elif line.startswith("[Result "):
            w, b = points[line.split('"')[1]]
            games += 1
            score += w if white == "Steinitz, William" else b
    return games, score


@pytest.fixture
def historian(shared_data, tmp_path):
    """The attack's store: WorldChamp1886.pgn and its renamed copy, ingested and rated,
    and the mapping ``arpad players identify`` proposes."""
    real = tmp_path / "WorldChamp1886.pgn"
    real.write_bytes((shared_data / "pgn" / "WorldChamp1886.pgn").read_bytes())
    text = real.read_text(encoding="utf-8")
    other = tmp_path / "wch_other_db.pgn"
    other.write_text(
        text.replace("Steinitz, William", "Steinitz, W.")
        .replace("Zukertort, Johannes Hermann", "Zukertort, J.")
        .replace('"World Championship 1st"', '"WCh 1886"'),
        encoding="utf-8",
    )
    root = tmp_path / "S"
    assert run("ingest", str(real), str(other), "--store", str(root)) == 0
    assert run("rate", "--system", "elo", "--store", str(root)) == 0
    mapping = tmp_path / "map.csv"
    assert run("players", "identify", "--store", str(root), "--output", str(mapping)) == 0
    return root, real, mapping


def test_merge_takes_the_later_copies_out_of_the_rated_games(historian, capsys):
    root, real, mapping = historian
    games, score = match_score(real)
    assert (games, score) == (20, 12.5)  # Steinitz +10 -5 =5: 10 + 5 * 0.5
    assert stored_count(root) == 40  # both copies stored: the names differ
    capsys.readouterr()
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert "merged 2 pair(s)" in out
    assert "took out 20 game(s)" in out and "probable_duplicate" in out
    assert stored_count(root) == 20
    rows = quarantined(root)
    assert len(rows) == 20
    assert {(src, reason) for src, reason, _ in rows} == {
        ("wch_other_db.pgn", "probable_duplicate")
    }
    # each names the game it repeats, the merge and the undo
    assert "probable duplicate of game WorldChamp1886.pgn:" in rows[0][2]
    assert "wch_other_db.pgn:Steinitz, W. counted as " + STEINITZ in rows[0][2]
    assert "after merge merge-" in rows[0][2] and "arpad players split" in rows[0][2]
    assert run("rate", "--system", "elo", "--store", str(root)) == 0
    assert steinitz(root) == (games, score)
    # the source left without games keeps an empty file: the store is not damaged
    assert main(["check", "--store", str(root)]) == 0
    assert not journal.pending_dir(Store(root)).exists()


def test_split_puts_the_copies_back(historian, capsys):
    root, _, mapping = historian
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(root)) == 0
    capsys.readouterr()
    assert (
        run("players", "split", ZUKERTORT, "wch_other_db.pgn:Zukertort, J.", "--store", str(root))
        == 0
    )
    assert "put back 20 game(s)" in capsys.readouterr().out
    assert stored_count(root) == 40 and quarantined(root) == []
    assert run("rate", "--system", "elo", "--store", str(root)) == 0
    # Steinitz's two ids are still one: both copies count, 2 * 20 games, 2 * 12.5 points
    assert steinitz(root) == (40, 25.0)
    # merged again: out again
    capsys.readouterr()
    pair = [ZUKERTORT, "wch_other_db.pgn:Zukertort, J."]
    assert run("players", "merge", *pair, "--store", str(root)) == 0
    assert "took out 20 game(s)" in capsys.readouterr().out
    assert run("rate", "--system", "elo", "--store", str(root)) == 0
    assert steinitz(root) == (20, 12.5)


MOVES_A = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"
MOVES_B = "1. d4 d5 2. c4 e6 3. Nc3 Nf6"
MOVES_C = "1. c4 e5 2. Nc3 Nf6 3. g3 d5"


def game(white, black, result, date, moves, event, rnd):
    tags = {"Event": event, "Site": "London", "Date": date, "Round": rnd}
    tags |= {"White": white, "Black": black, "Result": result}
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return f"{head}\n{moves} {result}\n\n"


def test_other_games_of_the_same_players_and_day_stay(tmp_path, capsys):
    """By ingest's rule a copy has the same players, result and complete date, or the
    same moves and dates that agree: games of one day with other moves and another
    result, or of one year with other moves, are other games and stay rated."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(
        game("Morphy, Paul", "Anderssen, Adolf", "1-0", "1858.12.20", MOVES_A, "Paris m", "1")
        + game("Morphy, Paul", "Anderssen, Adolf", "1/2-1/2", "1858.??.??", MOVES_B, "Paris m", "2")
        + game("Anderssen, Adolf", "Morphy, Paul", "0-1", "1858.12.21", MOVES_A, "Paris m", "3")
    )
    b.write_text(
        # another game of the same day: other moves, another result
        game("Morphy, P.", "Anderssen, A.", "0-1", "1858.12.20", MOVES_C, "Paris 1858", "1")
        # another game of the same year: other moves (the same result)
        + game("Morphy, P.", "Anderssen, A.", "1/2-1/2", "1858.??.??", MOVES_C, "Paris 1858", "2")
        # a copy (same day, players, result and moves): the one game taken out
        + game("Anderssen, A.", "Morphy, P.", "0-1", "1858.12.21", MOVES_A, "Paris 1858", "3")
    )
    root = tmp_path / "S"
    assert run("ingest", str(a), str(b), "--store", str(root)) == 0
    assert stored_count(root) == 6
    pairs = [
        ("a.pgn:Morphy, Paul", "b.pgn:Morphy, P."),
        ("a.pgn:Anderssen, Adolf", "b.pgn:Anderssen, A."),
    ]
    capsys.readouterr()
    for keep, dup in pairs:
        assert run("players", "merge", keep, dup, "--store", str(root)) == 0
    out = capsys.readouterr().out
    # the first merge makes no copy (Anderssen is still two players), the second one
    assert out.count("took out") == 1 and "took out 1 game(s)" in out
    assert stored_count(root) == 5
    rows = quarantined(root)
    assert len(rows) == 1 and rows[0][:2] == ("b.pgn", "probable_duplicate")
    # a.pgn's third game (10 lines a game: its tags start on line 21)
    assert "|1858.12.21|3|Anderssen, Adolf|Morphy, Paul stored from a.pgn:21 " in rows[0][2]


def test_copies_the_user_kept_stay_kept(tmp_path, capsys):
    """A pair both stored although it matched at ingest was kept on purpose
    (--keep-probable-duplicates): a later merge of one of its players leaves it, and
    takes out only the copy the merge makes."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(
        game("Morphy, Paul", "Anderssen, Adolf", "1-0", "1858.12.20", MOVES_A, "Paris m", "1")
        + game("Anderssen, Adolf", "Harrwitz, Daniel", "1-0", "1858.12.24", MOVES_B, "Paris m", "2")
    )
    b.write_text(
        game("Morphy, Paul", "Anderssen, Adolf", "1-0", "1858.12.20", MOVES_A, "Paris 1858", "1")
        + game("Anderssen, A.", "Harrwitz, Daniel", "1-0", "1858.12.24", MOVES_B, "Paris 1858", "2")
    )
    root = tmp_path / "S"
    assert run("ingest", str(a), "--store", str(root)) == 0
    assert run("ingest", str(b), "--store", str(root), "--keep-probable-duplicates") == 0
    assert stored_count(root) == 4
    capsys.readouterr()
    # b's Anderssen ids are one player now, who answers to a's name "Anderssen, Adolf":
    # b's second game is a's second; b's first matched a's first before, and stays
    keep, dup = "b.pgn:Anderssen, Adolf", "b.pgn:Anderssen, A."
    assert run("players", "merge", keep, dup, "--store", str(root)) == 0
    assert "took out 1 game(s)" in capsys.readouterr().out
    assert stored_count(root) == 3
    rows = quarantined(root)
    assert len(rows) == 1 and "stored from a.pgn:11 " in rows[0][2]  # a's second game


def kill_merge(root: Path, mapping: Path, point: str) -> None:
    env = {**os.environ, "ARPAD_CRASH_AT": point, "CI": "1", "ARPAD_NO_FLOW": "1"}
    cmd = ["players", "merge", "--mapping", str(mapping), "--store", str(root)]
    proc = subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", *cmd],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, proc.stderr[-2000:])
    assert journal.pending_dir(Store(root)).is_dir()  # it died inside the transition


@pytest.mark.parametrize(
    ("point", "done"),
    [("correction:before-commit", False), ("correction:after-add", True)],
)
def test_a_killed_merge_is_all_or_nothing(historian, capsys, point, done):
    """Killed before its plan: nothing of the merge (the next writer discards it).
    Killed after its plan, with the games files already rewritten and the aliases not
    yet in place: the next writing command completes it."""
    root, _, mapping = historian
    kill_merge(root, mapping, point)
    assert run("rate", "--system", "elo", "--store", str(root)) == 0  # a writer: recovers
    err = capsys.readouterr().err
    assert "completed the interrupted players merge of batch merge-" in err or not done
    assert not journal.pending_dir(Store(root)).exists()
    if done:
        assert len(identity.alias_map(Store(root))) == 2
        assert stored_count(root) == 20 and len(quarantined(root)) == 20
        assert steinitz(root) == (20, 12.5)
    else:
        assert identity.alias_map(Store(root)) == {}
        assert stored_count(root) == 40 and quarantined(root) == []
        assert steinitz(root) == (20, 12.5)  # Steinitz, W. is another player
        assert sql(root, "SELECT count(*) FROM player_history WHERE games = 20").item() == 4
