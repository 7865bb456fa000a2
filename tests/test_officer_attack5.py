"""The rating officer's attack of 2026-12-03, fifth part (docs/ingest.md "Which file is
which", "Conflicting results", "Pool and stated ratings", "Dates"):

1. a corrected TRF under a new name was eleven ``duplicate_game_id``, and could never be
   applied afterwards (its bytes were "identical content already ingested");
2. the correction hint named the label (``games_nov.csv``), not the source identity
   (``in/games_nov.csv``); a one-row new version replaced a 15-game source silently;
3. a TRF's pool guessed from a word of its name (``SK Rapid Wien``) without a word;
4. European dates ``03.11.2026`` were ``bad_date``;
5. no way to keep a games file's stated ratings out of the store.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.observations import ignores_stated
from arpad.pipeline.store import Store


def p001(rank, name, rating, fid, blocks):
    """A TRF16 001 line laid out by columns (docs/pgn-trf.md "TRF columns")."""
    rating_text = f"{rating:>4}" if rating else "    "
    head = f"001 {rank:>4} m    {name:<33} {rating_text} GER {fid:>11} 1980/01/01  0.0 {rank:>4}  "
    assert len(head) == 91
    return head + "".join(b.ljust(10) for b in blocks).rstrip()


def blk(opp, col, res):
    return f"{opp:>4} {col} {res}"


# A double round robin of four players (Berger tables): (round, White, Black).
ROUNDS = [(1, 1, 4), (1, 2, 3), (2, 4, 3), (2, 1, 2), (3, 2, 4), (3, 3, 1)]
ROUNDS += [(r + 3, b, w) for r, w, b in ROUNDS]
PLAYERS = [("Aa, Anna", 2300), ("Bb, Bert", 2200), ("Cc, Carl", None), ("Dd, Dora", 2100)]


def trf(name: str, last: str, rating3=None) -> str:
    """The tournament's TRF, every game drawn but round 6's Anna-Carl (1-3): ``last``,
    White's result."""
    blocks = {rank: [""] * 6 for rank in range(1, 5)}
    for r, w, b in ROUNDS:
        res = last if (r, w, b) == (6, 1, 3) else "="
        blocks[w][r - 1] = blk(b, "w", res)
        blocks[b][r - 1] = blk(w, "b", {"1": "0", "0": "1", "=": "="}[res])
    lines = [
        f"012 {name}",
        "042 2026/11/02",
        "052 2026/11/04",
        "092 Individual: Double round robin",
    ]
    for rank, (player, rating) in enumerate(PLAYERS, 1):
        rating = rating3 if rank == 3 and rating3 else rating
        lines.append(p001(rank, player, rating, 4700000 + rank, blocks[rank]))
    return "\n".join(lines) + "\n"


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def games(root: Path) -> list[dict]:
    rows = []
    for f in Store(root).game_files():
        rows += pq.read_table(f).to_pylist()
        pool = f.parent.parent.name.split("=", 1)[1]
        for r in rows[-pq.read_metadata(f).num_rows :]:
            r["pool"] = pool
    return sorted(rows, key=lambda r: r["game_id"])


def quarantine(root: Path) -> list[tuple]:
    rows = []
    for f in Store(root).quarantine_dir.rglob("*.parquet"):
        rows += [(r["source"], r["reason"], r["detail"]) for r in pq.read_table(f).to_pylist()]
    return sorted(rows)


def manifest(root: Path) -> list[tuple]:
    t = pq.read_table(Store(root).manifest_path).to_pylist()
    return [(m["source"], m["source_key"], m["rows"], m["accepted"], m["quarantined"]) for m in t]


@pytest.fixture
def officer(tmp_path, monkeypatch):
    """``in/vm.trf`` stored; ``in/copy/vm_korr.trf`` is it with round 6's Anna-Carl
    changed from ½ to 1-0 (and Carl's rating given)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in" / "copy").mkdir(parents=True)
    (tmp_path / "in" / "vm.trf").write_text(trf("VM November 2026", "="))
    (tmp_path / "in" / "copy" / "vm_korr.trf").write_text(trf("VM November 2026", "1", 2046))
    assert run("ingest", "in/vm.trf", "--store", "S") == 0
    return tmp_path


def _round4(root: Path) -> float:
    (score,) = [g["score"] for g in games(root) if g["game_id"].endswith(":r6:1-3")]
    return score


def test_corrected_trf_under_a_new_name_is_a_conflict_with_a_note(officer, capsys):
    capsys.readouterr()
    assert run("ingest", "in/copy/vm_korr.trf", "--store", "S") == 2
    out = capsys.readouterr()
    assert (
        "note: 1 game(s) with the date and players of a game stored from another file but "
        "another result: not applied (quarantined as conflicting_result; to correct in/vm.trf, "
        "ingest this file with --source 'in/vm.trf'" in out.out
    )
    assert "quarantined by reason: conflicting_result 1, duplicate_game_id 11" in out.err
    # the changed game is among the examples, however many duplicates come before it
    shown = [line for line in out.err.splitlines() if ": conflicting_result: " in line]
    assert len(shown) == 1 and ":r6:1-3 already stored from vm.trf:" in shown[0]
    assert len([line for line in out.err.splitlines() if ": duplicate_game_id: " in line]) == 4
    assert "with White's score 0.5 there, 1 here: not applied" in shown[0]
    assert "--source 'in/vm.trf' or --replace" in shown[0]
    assert _round4(Path("S")) == 0.5


def test_the_same_bytes_with_source_apply_the_correction(officer, capsys):
    assert run("ingest", "in/copy/vm_korr.trf", "--store", "S") == 2
    capsys.readouterr()
    assert run("ingest", "in/copy/vm_korr.trf", "--source", "in/vm.trf", "--store", "S") == 0
    out = capsys.readouterr().out
    assert "replaced the earlier version of vm.trf" in out
    assert (
        "note: these bytes were ingested before as in/copy/vm_korr.trf (0 games stored, "
        "12 quarantined): that ingest is undone, the file is stored as the new version of "
        "in/vm.trf" in out
    )
    assert _round4(Path("S")) == 1.0
    assert len(games(Path("S"))) == 12
    assert quarantine(Path("S")) == []
    assert manifest(Path("S")) == [("vm.trf", "in/vm.trf", 12, 12, 0)]
    # the same bytes once more, from anywhere: skipped, nothing changes
    assert run("ingest", "in/copy/vm_korr.trf", "--store", "S") == 0
    assert "skipped, identical content already ingested as vm.trf" in capsys.readouterr().out
    assert manifest(Path("S")) == [("vm.trf", "in/vm.trf", 12, 12, 0)]
    assert main(["check", "--store", "S"]) == 0


def test_the_same_bytes_over_the_sources_own_path_apply_it(officer, capsys):
    assert run("ingest", "in/copy/vm_korr.trf", "--store", "S") == 2
    shutil.copy("in/copy/vm_korr.trf", "in/vm.trf")
    assert run("ingest", "in/vm.trf", "--store", "S") == 0
    assert _round4(Path("S")) == 1.0
    assert quarantine(Path("S")) == []
    assert manifest(Path("S")) == [("vm.trf", "in/vm.trf", 12, 12, 0)]


def test_a_source_named_by_its_label_gets_the_identity(officer, capsys):
    """``--source vm.trf`` (the label the old hint gave) names no stored source."""
    assert run("ingest", "in/copy/vm_korr.trf", "--store", "S") == 2
    capsys.readouterr()
    assert run("ingest", "in/copy/vm_korr.trf", "--source", "vm.trf", "--store", "S") == 2
    out = capsys.readouterr().err  # refused (historian round 11: it made vm.trf@1)
    assert (
        "--source vm.trf is no stored source's identity; the stored source in/vm.trf is "
        "named vm.trf: to ingest this file as its new version (it replaces all of that "
        "source's games), --source 'in/vm.trf'" in out
    )
    assert "replaced the earlier version" not in out  # nothing of vm.trf was replaced
    assert _round4(Path("S")) == 0.5
    # and the identity then applies it
    assert run("ingest", "in/copy/vm_korr.trf", "--source", "in/vm.trf", "--store", "S") == 0
    assert _round4(Path("S")) == 1.0
    assert [m[1] for m in manifest(Path("S"))] == ["in/vm.trf"]


NOV = "date;white_id;black_id;result\n" + "".join(
    f"2026-11-{d:02d};P{d};Q{d};1-0\n" for d in range(1, 16)
)


def test_csv_hint_gives_the_identity_and_a_short_version_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "games_nov.csv").write_text(NOV)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "korr.csv").write_text(
        "date;white_id;black_id;result\n2026-11-03;P3;Q3;0-1\n"
    )
    assert run("ingest", "in/games_nov.csv", "--store", "S") == 0
    capsys.readouterr()
    assert run("ingest", "k/korr.csv", "--store", "S") == 2
    (row,) = quarantine(Path("S"))
    assert row[1] == "conflicting_result"
    assert "(to correct games_nov.csv, ingest the file with --source 'in/games_nov.csv', " in row[2]
    # applied as a new version of the stored source: it replaces all 15 games
    capsys.readouterr()
    assert run("ingest", "k/korr.csv", "--source", "in/games_nov.csv", "--store", "S") == 0
    out = capsys.readouterr().out
    assert "(15 games removed, 1 added, 0 changed)" in out
    assert (
        "note: the new version of games_nov.csv holds 1 game(s) against 15 stored: 14 removed "
        "— a new version replaces the whole source" in out
    )
    assert [g["score"] for g in games(Path("S"))] == [0.0]


def test_a_skip_for_a_label_as_source_names_the_identity(tmp_path, monkeypatch, capsys):
    """The bytes were re-sent games (no conflict): ``--source`` with the label is skipped,
    and says which identity would correct the source."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "games_nov.csv").write_text(NOV)
    (tmp_path / "korr.csv").write_text("date;white_id;black_id;result\n2026-11-03;P3;Q3;1-0\n")
    assert run("ingest", "in/games_nov.csv", "--store", "S") == 0
    assert run("ingest", "korr.csv", "--store", "S") == 2  # duplicate_game
    capsys.readouterr()
    assert run("ingest", "korr.csv", "--source", "games_nov.csv", "--store", "S") == 0
    out = capsys.readouterr().out
    assert "skipped, identical content already ingested as korr.csv" in out
    assert "to correct that source, --source 'in/games_nov.csv'" in out
    assert len(games(Path("S"))) == 15


RAPID_WIEN = (
    "\n".join(
        [
            "012 SK Rapid Wien Klubmeisterschaft 2026",
            "042 2026/11/05",
            "052 2026/11/05",
            "092 Individual: Round robin",
            p001(1, "Aa, Anna", 2517, 4700001, [blk(2, "w", "1")]),
            p001(2, "Bb, Bert", 2388, 4700002, [blk(1, "b", "0")]),
        ]
    )
    + "\n"
)


def test_trf_pool_is_named_and_overridden(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wien.trf").write_text(RAPID_WIEN)
    assert run("ingest", "wien.trf", "--store", "S") == 0
    out = capsys.readouterr().out
    assert (
        "note: pool rapid (the word 'Rapid' in the 012 tournament name 'SK Rapid Wien "
        "Klubmeisterschaft 2026'; pass --pool standard to override)" in out
    )
    assert [g["pool"] for g in games(Path("S"))] == ["rapid"]
    # the same bytes with --pool: a new version of the source, in the standard pool
    assert run("ingest", "wien.trf", "--pool", "standard", "--store", "S") == 0
    out = capsys.readouterr().out
    assert "replaced the earlier version of wien.trf" in out
    assert "pool standard for every game (--pool standard); the file alone gives pool rapid" in out
    assert [(g["pool"], g["white_rating"]) for g in games(Path("S"))] == [("standard", 2517.0)]
    # again with the same option: skipped
    assert run("ingest", "wien.trf", "--pool", "standard", "--store", "S") == 0
    assert "skipped, identical content" in capsys.readouterr().out
    assert [g["pool"] for g in games(Path("S"))] == ["standard"]
    # without it: read as the file says again (a wrong --pool is undone this way;
    # before, skipped: tests/test_officer_attack6.py)
    assert run("ingest", "wien.trf", "--store", "S") == 0
    assert "replaced the earlier version of wien.trf" in capsys.readouterr().out
    assert [g["pool"] for g in games(Path("S"))] == ["rapid"]
    assert run("ingest", "wien.trf", "--pool", "rapd", "--store", "S") == 2


def test_pgn_pool_note(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    tags = '[Event "{}"]\n[Date "2026.11.05"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n{}\n1. e4 1-0\n\n'
    text = tags.format("SK Rapid Wien Open", "") + tags.format("Club", '[TimeControl "180+2"]\n')
    text += tags.format("Club", "")
    (tmp_path / "g.pgn").write_text(text)
    assert run("ingest", "g.pgn", "--store", "S") == 0
    out = capsys.readouterr().out
    assert (
        "note: pool rapid for 1 of 3 game(s) (the TimeControl tag, or without one the word "
        "'Rapid' in the Event tag 'SK Rapid Wien Open'; pass --pool standard to override)" in out
    )
    assert "note: pool blitz for 1 of 3 game(s) (the TimeControl tag; pass" in out
    assert "note: pool standard" not in out  # the third game, standard, is not named


def test_european_dotted_dates(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "players.csv").write_text(
        "player_id;name;birth_date\nP1;Aa;03.11.1990\nP2;Bb;3/11/1990\n"
    )
    (tmp_path / "g.csv").write_text(
        "date;white_id;black_id;result\n03.11.2026;P1;P2;1-0\n4.11.2026 10:30;P2;P1;0-1\n"
        "05/11/2026;P1;P2;1-0\n31.11.2026;P1;P2;1-0\n"
    )
    assert run("ingest", "g.csv", "--players", "players.csv", "--store", "S") == 2
    assert [str(g["date"]) for g in sorted(games(Path("S")), key=lambda g: g["date"])] == [
        "2026-11-03",
        "2026-11-04",
    ]
    bad = [(r[1], r[2].split(" is ")[0]) for r in quarantine(Path("S"))]
    assert bad == [
        ("bad_date", "date 05/11/2026"),
        ("bad_date", "date 31.11.2026"),
        ("bad_player_field", "birth_date 3/11/1990"),
    ]
    players = {p["player_id"]: p for p in Store("S").read_players().to_pylist()}
    assert str(players["P1"]["birth_date"]) == "1990-11-03"
    assert players["P1"]["birth_year"] == 1990


def test_ignore_stated_ratings(officer, capsys):
    root = Path("S")
    before = {p["player_id"]: p["rating"] for p in Store(root).read_players().to_pylist()}
    assert before["4700001"] == 2300.0
    (officer / "other.trf").write_text(
        trf("Herbst 2026", "=", 2046)
        .replace(" 2300 GER", " 2350 GER")
        .replace("042 2026/11/02", "042 2026/11/09")
    )
    capsys.readouterr()
    assert run("ingest", "other.trf", "--ignore-stated-ratings", "--store", "S") == 0
    out = capsys.readouterr().out
    # Carl (4700003), rated nowhere in the store, is started by the file's 2046 (officer,
    # round 14: tests/test_officer_r14.py); the others' ratings are ignored by the rating
    # run (round 15: stored as stated, the batch marked, tests/test_ignore_stated_r15.py)
    assert (
        "--ignore-stated-ratings: 24 rating(s) stated on the games, stored marked: such a "
        "rating starts a player only if no players file lists him and he has no rating when "
        "it is rated, else it is ignored; of their 4 player(s), 3 rated by the store "
        "already, 1 started by this file as the store stands: 4700003 Cc, Carl 2046"
    ) in out
    herbst = [g for g in games(root) if "Herbst" in g["game_id"]]
    assert len(herbst) == 12
    assert all(ignores_stated(g["ingest_batch"]) for g in herbst)
    assert run("rate", "--system", "fide", "--store", "S") == 0
    rows = Store(root).read_ratings("fide", "standard", 202611).to_pylist()
    start = {r["player_id"]: r["rating_before"] for r in rows}
    # vm.trf's 2300 (not other.trf's 2350); Carl from other.trf's 2046
    assert (start["4700001"], start["4700003"]) == (2300.0, 2046.0)
    after = {p["player_id"]: p["rating"] for p in Store(root).read_players().to_pylist()}
    assert after["4700001"] == 2300.0  # the file's 2350 was not taken
    # the first file's stated ratings stay as they were
    assert {g["white_rating"] for g in games(root) if "VM" in g["game_id"]} >= {2300.0}
