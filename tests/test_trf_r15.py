"""Round 15, the new user and hostile tester (report-newuser15 findings 2, 3, 6, 8):

2. the final TRF dating a round the interim TRF left undated (the round-14 rule dated it
   as the round before) was quarantined ``duplicate_game_id`` with no word of the dates:
   round 3 stayed rated in October, played on 1 November;
3. 132 round dates far from the event's 042/052 dates were stored without a word (day
   first: a 2025 round in 2001; a year typo; a round a month before the start), rounds
   out of order were stored as given silently, and a second 132 record silently won;
6. ``arpad check`` after a killed ``players merge`` counted it as an ingest, had a stray
   comma, and did not name the command to run again;
8. a copy-paste hint with a newline in the store path printed ``'…/new\\nline'``, which a
   shell reads as a backslash and an n (docs/pgn-trf.md, docs/store.md, docs/identity.md,
   docs/cli.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.errors import shell_word
from arpad.pipeline.trf import read_trf
from tests.conftest import write_csv

# rank, name, FIDE id, points, blocks (opponent, colour, result) per round
PLAYERS = [
    (1, "Adams,Alice", 1000001, "2.0", [(2, "w", "1"), (3, "b", "1"), (4, "w", "0")]),
    (2, "Brown,Bob", 1000002, "1.0", [(1, "b", "0"), (4, "w", "1"), (3, "b", "0")]),
    (3, "Carlsen,Carl", 1000003, "1.0", [(4, "b", "0"), (1, "w", "0"), (2, "w", "1")]),
    (4, "Dane,Dora", 1000004, "2.0", [(3, "w", "1"), (2, "b", "0"), (1, "b", "1")]),
]


def p001(rank, name, fide, points, blocks):
    head = f"001 {rank:>4}      {name:<33} 2000 ISL {fide:>11} 1980/01/01 {points:>4} {rank:>4}  "
    return head + "".join(f"{o:>4} {c} {r}  " for o, c, r in blocks).rstrip()


def d132(*dates: str) -> str:
    """A 132 record with each round's date in its columns (92-99, 102-109, …)."""
    return ("132" + " " * 88 + "  ".join(f"{d:<8}" for d in dates)).rstrip()


def trf(path: Path, *dates_records: str, start="2025/10/30", end="2025/11/01", players=PLAYERS):
    header = ["012 Few Cup", f"042 {start}", *([f"052 {end}"] if end else []), "062 4", "092 Swiss"]
    path.write_text("\n".join([*header, *dates_records, *(p001(*p) for p in players)]) + "\n")
    return path


def dated(raw) -> dict[str, str]:
    ids = raw.frame["game_id"].str.extract(r":(r\d:\d-\d)$")
    return dict(zip(ids, raw.frame["date"], strict=True))


def sql(capsys, store, query) -> list[str]:
    capsys.readouterr()
    assert main(["sql", query, "--store", str(store), "--format", "csv"]) == 0
    return capsys.readouterr().out.splitlines()[1:]


# -- 2: the final TRF's date of a round the interim one left undated -----------------------


def test_the_final_trf_dating_a_guessed_round_says_both_dates_and_the_command(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    trf(tmp_path / "interim.trf", d132("25/10/30", "25/10/31"))
    trf(tmp_path / "final.trf", d132("25/10/30", "25/10/31", "25/11/01"))
    s = ["--store", str(tmp_path / "S")]
    assert main(["ingest", "--no-flow", "interim.trf", *s]) == 0
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "final.trf", *s]) == 2
    said = capsys.readouterr()
    assert "final.trf: 6 rows read, 0 games stored, 6 quarantined" in said.out
    assert "quarantined by reason: conflicting_result 2, duplicate_game_id 4" in said.err
    detail = (
        "conflicting_result: game_id trf:Few Cup|2025-10-30:r3:1-4 already stored from "
        "interim.trf:7 dated 2025-10-31 there, 2025-11-01 here (round 2's date there: none "
        "given for round 3 in that file?): not applied (if this is the final report of that "
        "tournament: arpad ingest final.trf --source interim.trf, docs/pgn-trf.md)"
    )
    assert f"final.trf:7: {detail}" in said.err
    note = (
        "note: 2 game(s) with the game id and players of a game stored from interim.trf but "
        "another date (e.g. trf:Few Cup|2025-10-30:r3:1-4: 2025-10-31 there, 2025-11-01 "
        "here): not applied (quarantined as conflicting_result; if this is the final report "
        "of that tournament: arpad ingest final.trf --source interim.trf: a new version "
        "replaces all of that source's games, the dates and results of this file then stand)"
    )
    assert note in said.out
    # the rounds the files date alike stay duplicates, as before
    assert (
        "final.trf:7: duplicate_game_id: game_id trf:Few Cup|2025-10-30:r2:1-3 already "
        "stored from interim.trf:7\n" in said.err
    )
    periods = "SELECT period, count(*) FROM games GROUP BY 1 ORDER BY 1"
    assert sql(capsys, tmp_path / "S", periods) == ["202510,6"]  # nothing stored changed
    # the command the note gives: round 3 moves to November
    assert main(["ingest", "--no-flow", "final.trf", "--source", "interim.trf", *s]) == 0
    capsys.readouterr()
    assert sql(capsys, tmp_path / "S", periods) == ["202510,4", "202511,2"]


def test_another_date_and_another_result_are_said_in_one_detail(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trf(tmp_path / "interim.trf", d132("25/10/30", "25/10/31"))
    fixed = [list(p) for p in PLAYERS]  # round 3: 1-4 drawn, 2-3 as before
    fixed[0][4] = [*PLAYERS[0][4][:2], (4, "w", "=")]
    fixed[3][4] = [*PLAYERS[3][4][:2], (1, "b", "=")]
    trf(tmp_path / "final b.trf", d132("25/10/30", "25/10/31", "25/11/01"), players=fixed)
    s = ["--store", str(tmp_path / "S")]
    assert main(["ingest", "--no-flow", "interim.trf", *s]) == 0
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "final b.trf", *s]) == 2
    err = capsys.readouterr().err
    assert (
        "final b.trf:7: conflicting_result: game_id trf:Few Cup|2025-10-30:r3:1-4 already "
        "stored from interim.trf:7 with White's score 0 there, 0.5 here and dated 2025-10-31 "
        "there, 2025-11-01 here (round 2's date there: none given for round 3 in that file?): "
        "not applied (if this is the final report of that tournament: arpad ingest "
        "'final b.trf' --source interim.trf, docs/pgn-trf.md)"
    ) in err


# -- 3: round dates against the event's dates --------------------------------------------


WINDOW = "the event's dates 2025-10-30 (042) to 2025-11-01 (052)"


@pytest.mark.parametrize(
    "dates, start, end, round_, detail",
    [
        (
            ("30/10/25", "31/10/25", "01/11/25"),
            "2025/10/30",
            "2025/11/01",
            3,
            "'01/11/25' is 2001-11-25, 8740 days before the start date 2025-10-30 (042): "
            f"more than 7 days outside {WINDOW} (written day first, DD/MM/YY? a 132 date is "
            "YY/MM/DD: 25/11/01 is 2025-11-01)",
        ),
        (
            ("25/10/30", "24/10/31", "25/11/01"),
            "2025/10/30",
            "2025/11/01",
            2,
            "'24/10/31' is 2024-10-31, 364 days before the start date 2025-10-30 (042): more "
            f"than 7 days outside {WINDOW} (a typo in the year?)",
        ),
        (
            ("25/10/01", "25/11/02", "25/11/03"),
            "2025/11/01",
            "2025/11/03",
            1,
            "'25/10/01' is 2025-10-01, 31 days before the start date 2025-11-01 (042): more "
            "than 7 days outside the event's dates 2025-11-01 (042) to 2025-11-03 (052)",
        ),
        (  # one day past the margin; 042 alone bounds only the start
            ("25/10/30", "25/10/22", "26/10/30"),
            "2025/10/30",
            None,
            2,
            "'25/10/22' is 2025-10-22, 8 days before the start date 2025-10-30 (042): more "
            "than 7 days outside the start date 2025-10-30 (042)",
        ),
    ],
    ids=["day-first", "year-typo", "month-before-start", "042-only"],
)
def test_a_round_dated_outside_the_event_is_refused_at_the_132_record(
    tmp_path, capsys, dates, start, end, round_, detail
):
    path = trf(tmp_path / "t.trf", d132(*dates), start=start, end=end)
    line = 6 if end else 5  # (the 132 record's)
    raw = read_trf(path)
    columns = f"{92 + 10 * (round_ - 1)}-{99 + 10 * (round_ - 1)}"
    where = f"132 record (round dates), round {round_} (columns {columns}): "
    found = {(p[0], str(p[1]), p[2].split("; the game")[0]) for p in raw.problems}
    assert (line, "bad_date", where + detail) in found
    assert {p[0] for p in raw.problems} == {line}  # at the 132 record, never a 001 line
    assert main(["ingest", "--no-flow", str(path), "--store", str(tmp_path / "S")]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: bad_date: {where}{detail}; the game of ranks" in err
    assert "period_out_of_range" not in err


def test_dates_within_a_week_of_the_event_are_read_as_given(tmp_path):
    # a round a week before 042 and one a week after 052: read; the order is kept
    raw = read_trf(trf(tmp_path / "t.trf", d132("25/10/23", "25/10/31", "25/11/08")))
    assert raw.problems == []
    assert dated(raw)["r1:1-2"] == "2025-10-23" and dated(raw)["r3:1-4"] == "2025-11-08"
    assert not [n for n in raw.notes if "132" in n]
    # an end date before the start date: named, the rounds not checked against them
    raw = read_trf(trf(tmp_path / "u.trf", d132("20/10/30"), start="2025/10/30", end="2025/10/01"))
    assert raw.problems == []
    assert (
        "the end date (052) '2025/10/01' is before the start date (042) '2025/10/30': the "
        "round dates are not checked against them"
    ) in raw.notes


def test_rounds_out_of_order_are_noted_and_two_132_records_are_refused(tmp_path, capsys):
    raw = read_trf(trf(tmp_path / "o.trf", d132("25/11/01", "25/10/31", "25/10/30")))
    assert raw.problems == [] and dated(raw)["r1:1-2"] == "2025-11-01"
    assert (
        "the 132 record (line 6) dates rounds out of order: round 2 2025-10-31 before round "
        "1's 2025-11-01; round 3 2025-10-30 before round 2's 2025-10-31 (stored as given, "
        "each game in its date's month: check the round dates, YY/MM/DD in each round's "
        "columns)"
    ) in raw.notes
    # two 132 records: a round they date differently is refused naming both lines; one
    # left blank in one of them takes the other's date
    path = trf(
        tmp_path / "two.trf",
        d132("25/10/30", "25/10/31", "25/11/01"),
        d132("25/10/30", "25/12/31"),
    )
    raw = read_trf(path)
    assert dated(raw) == {
        "r1:1-2": "2025-10-30", "r1:3-4": "2025-10-30",
        "r3:1-4": "2025-11-01", "r3:2-3": "2025-11-01",
    }  # fmt: skip
    assert [(p[0], str(p[1]), p[2]) for p in raw.problems] == [
        (
            7,
            "bad_date",
            "132 record (round dates), round 2 (columns 102-109): 2025-12-31 on line 7, "
            "2025-10-31 on the 132 record of line 6: two 132 records date the round "
            f"differently (keep the right one); the game of ranks {a} and {b} "
            f"(lines {a + 7} and {b + 7})",
        )
        for a, b in ((1, 3), (2, 4))
    ]


# -- 6: check after a killed players merge ---------------------------------------------------


def killed_merge(root: Path, *args: str) -> str:
    env = {**os.environ, "ARPAD_CRASH_AT": "correction:before-commit", "CI": "1", "ARPAD_NO_FLOW": "1"}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", "players", "merge", *args, "--store", str(root)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    (batch,) = [p.name for p in (root / ".pending").iterdir()]
    return batch


def test_check_counts_a_killed_merge_apart_and_names_the_command(tmp_path, capsys):
    write_csv(tmp_path / "games.csv", "date,white_id,black_id,result", ["2025-11-02,A,C,1-0", "2025-11-03,B,D,0-1", "2025-11-03,E,F,1-0"])  # fmt: skip
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(tmp_path / "games.csv")]) == 0
    batch = killed_merge(root, "A", "B", "E")
    capsys.readouterr()
    assert main(["check", "--store", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"note: .pending/{batch}: the players merge of batch {batch}, started "
    )
    assert out[0].endswith(
        "+00:00, was interrupted before its commit: nothing of it is in the store, the next "
        "writing command discards it, and the players merge must be run again: arpad "
        f"players merge A B E --store {root}"
    )
    assert out[1:] == [f"{root}: no damage found; 1 staged players merge(s) noted above"]
    # the command as named: the staged merge discarded, the merge done
    assert main(["players", "merge", "A", "B", "E", "--store", str(root)]) == 0
    assert f"discarded the unfinished players merge of batch {batch}" in capsys.readouterr().err

    # a mapping of pairs with several keeps (and --force): the pairs and the mapping
    root2 = tmp_path / "S2"
    assert main(["ingest", "--no-flow", "--store", str(root2), str(tmp_path / "games.csv")]) == 0
    write_csv(tmp_path / "m.csv", "keep,duplicate", ["A,B", "C,D"])
    batch = killed_merge(root2, "--mapping", str(tmp_path / "m.csv"), "--force")
    capsys.readouterr()
    assert main(["check", "--store", str(root2)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        ", and the players merge of 2 pairs (keep duplicate: A B; C D) must be run again: "
        f"arpad players merge --mapping FILE --force --store {root2}, with the mapping file "
        "it was given"
    )


def test_a_merge_staged_without_a_record_keeps_the_general_words(tmp_path, capsys):
    from arpad.pipeline import journal
    from arpad.pipeline.integrity import notes
    from arpad.pipeline.store import Store

    write_csv(tmp_path / "games.csv", "date,white_id,black_id,result", ["2025-11-02,A,C,1-0"])
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), str(tmp_path / "games.csv")]) == 0
    stage = journal.pending_dir(Store(root)) / "merge-20261205T105158569286"
    stage.mkdir(parents=True)  # (as an earlier arpad left it: no ingest.json)
    assert notes(Store(root)) == [
        ".pending/merge-20261205T105158569286: the players merge of batch "
        "merge-20261205T105158569286 was interrupted before its commit: nothing of it is in "
        "the store, the next writing command discards it, and the players merge must be "
        "run again"
    ]


# -- 8: a control character in a copy-paste hint's path ------------------------------------


@pytest.mark.parametrize(
    "text, word",
    [
        ("/tmp/x/plain", "/tmp/x/plain"),
        ("/tmp/x/sp ace", "'/tmp/x/sp ace'"),
        ("/tmp/x/new\nline", "$'/tmp/x/new\\nline'"),
        ("/tmp/x/it's\ta", "$'/tmp/x/it\\'s\\ta'"),
        ("/tmp/x/back\\slash\x1b", "$'/tmp/x/back\\\\slash\\x1b'"),
        ("/tmp/x/bad\udcff", "$'/tmp/x/bad\\xff'"),
    ],
    ids=["plain", "space", "newline", "quote-tab", "backslash-esc", "not-utf8"],
)
def test_shell_word(text, word):
    assert shell_word(text) == word


def test_a_newline_in_the_store_path_gives_a_hint_the_shell_reads(tmp_path, capsys):
    games = write_csv(
        tmp_path / "q.csv", "date,white_id,black_id,result", ["2025-10-05,1,2,1-0", "2025-10-05,1,1,1-0"]
    )  # fmt: skip
    store = tmp_path / "new\nline"
    assert main(["ingest", "--no-flow", str(games), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    hint = f"arpad sql \"SELECT * FROM quarantine\" --store $'{tmp_path}/new\\nline'"
    assert f"({hint})" in err
    # pasted into bash, it names the store (it named '…/new\\nline', no such store)
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        ["bash", "-c", hint],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stderr
    assert "plays himself" in done.stdout
