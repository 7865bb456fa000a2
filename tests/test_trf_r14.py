"""Round 14, the new user in a hurry (report-newuser14 findings 1-6):

1. a 132 record (round dates) written with tabs lost its dates without a word (every
   game on the start date, in the wrong month); one tab quarantined the games with a
   detail that did not say why;
2. a round with no date on the 132 record after dated rounds took the start date:
   round 4 rated in October, before round 3 in November;
3. a misaligned 132 record: the accounting note said "6 games … 0 blocks quarantined"
   of six quarantined games, and the errors named a 001 line;
4. arpad's own ``list --format fide-txt`` (FIDE's fixed-width layout) given as a
   players file was refused with a message that contradicted itself; the XML list
   "cannot tell the format from the name";
5. copy-paste hints printed ``--store PATH`` unquoted (a path with a space broke them);
6. ``arpad check`` after a killed ``players merge`` told the officer to ingest a file
   again (docs/pgn-trf.md, docs/ingest.md, docs/identity.md, docs/store.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.trf import read_trf
from tests.conftest import write_csv

HEADER = ["012 Island Cup", "042 2025/10/30", "052 2025/11/02", "062 4", "092 Swiss"]
# rank, name, FIDE id, points, blocks (opponent, colour, result) per round
PLAYERS = [
    (1, "Adams,Alice", 1000001, "3.0", [(2, "w", "1"), (3, "b", "1"), (4, "w", "0"), (3, "w", "1")]),
    (2, "Brown,Bob", 1000002, "1.5", [(1, "b", "0"), (4, "w", "1"), (3, "b", "0"), (4, "w", "=")]),
    (3, "Carlsen,Carl", 1000003, "1.0", [(4, "b", "0"), (1, "w", "0"), (2, "w", "1"), (1, "b", "0")]),
    (4, "Dane,Dora", 1000004, "2.5", [(3, "w", "1"), (2, "b", "0"), (1, "b", "1"), (2, "b", "=")]),
]  # fmt: skip
DATES = "25/10/30  25/10/31  25/11/01"


def p001(rank, name, fide, points, blocks, rounds):
    head = f"001 {rank:>4}      {name:<33} 2000 ISL {fide:>11} 1980/01/01 {points:>4} {rank:>4}  "
    assert len(head) == 91
    return head + "".join(f"{o:>4} {c} {r}  " for o, c, r in blocks[:rounds]).rstrip()


def trf(tmp_path, dates_record: str, rounds: int = 3, name: str = "cup.trf") -> Path:
    lines = [*HEADER, dates_record, *(p001(*p, rounds) for p in PLAYERS)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def dated(raw) -> dict[str, str]:
    return dict(
        zip(raw.frame["game_id"].str.extract(r":(r\d:\d-\d)$"), raw.frame["date"], strict=True)
    )


def accounting(games: int, quarantined: int, rounds: int = 3) -> str:
    return (
        f"4 players × {rounds} rounds = {4 * rounds} blocks: {games} games, 0 byes, 0 absences, "
        f"0 pending pairings (not stored), 0 double forfeits, {quarantined} blocks quarantined"
    )


TAB = (
    "132 record (round dates), round {r} (columns {c}-{e}): a TAB character at column 4: "
    "TRF columns are fixed-width (replace the tabs by spaces)"
)


@pytest.mark.parametrize(
    "record",
    [
        "132" + "\t" * 11 + "25/10/30\t25/10/31\t25/11/01",  # an editor's tabs: was read blank
        "132\t" + " " * 84 + DATES,  # one tab: was bad_date "date 10/30  2"
    ],
    ids=["tabs", "one-tab"],
)
def test_tabs_in_the_132_record_quarantine_every_game_naming_the_tab(tmp_path, capsys, record):
    path = trf(tmp_path, record)
    raw = read_trf(path)
    assert raw.frame.height == 0
    games = {1: ("1-2", "3-4"), 2: ("1-3", "2-4"), 3: ("1-4", "2-3")}
    lines = {1: 7, 2: 8, 3: 9, 4: 10}
    expected = []
    for r, pairs in games.items():
        c = 92 + 10 * (r - 1)
        for pair in pairs:
            a, b = (int(x) for x in pair.split("-"))
            detail = TAB.format(r=r, c=c, e=c + 7)
            detail += f"; the game of ranks {a} and {b} (lines {lines[a]} and {lines[b]})"
            expected.append((6, "bad_date", detail))
    assert [(p[0], str(p[1]), p[2]) for p in raw.problems] == expected
    assert accounting(0, 12) in raw.notes
    # the CLI: one line per game, at the 132 record's line; the store keeps no game
    store = tmp_path / "S"
    assert main(["ingest", "--no-flow", str(path), "--store", str(store)]) == 2
    said = capsys.readouterr()
    assert (
        f"{path}:6: bad_date: {TAB.format(r=1, c=92, e=99)}; the game of ranks 1 and 2" in said.err
    )
    assert f"{path}: 6 rows read, 0 games stored, 6 quarantined" in said.out
    # a tab after the last round's columns shifts none of them: the dates are read
    raw = read_trf(trf(tmp_path, "132" + " " * 88 + DATES + "\t", name="after.trf"))
    assert raw.problems == []
    assert dated(raw) == {
        "r1:1-2": "2025-10-30", "r1:3-4": "2025-10-30", "r2:1-3": "2025-10-31",
        "r2:2-4": "2025-10-31", "r3:1-4": "2025-11-01", "r3:2-3": "2025-11-01",
    }  # fmt: skip


def test_a_round_without_a_date_takes_the_last_dated_rounds_date(tmp_path, capsys):
    """The TRF sent after round 4, the arbiter did not add round 4's date: round 4 took
    the start date 2025-10-30 (October, before round 3 in November)."""
    path = trf(tmp_path, "132" + " " * 88 + DATES, rounds=4)
    raw = read_trf(path)
    assert raw.problems == []
    assert dated(raw)["r4:1-3"] == dated(raw)["r4:2-4"] == "2025-11-01"
    assert dated(raw)["r3:1-4"] == "2025-11-01" and dated(raw)["r1:1-2"] == "2025-10-30"
    note = (
        "no date on the 132 record (line 6) for round 4: dated 2025-11-01, as round 3 "
        "before it (give each round's date there, YY/MM/DD)"
    )
    assert note in raw.notes
    store = tmp_path / "S"
    assert main(["ingest", "--no-flow", str(path), "--store", str(store)]) == 0
    assert f"note: {note}" in capsys.readouterr().out
    assert main(["sql", "SELECT period, count(*) AS n FROM games GROUP BY 1 ORDER BY 1", "--store", str(store), "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == ["period,n", "202510,4", "202511,4"]


def test_undated_rounds_before_and_after_the_dated_ones_are_named(tmp_path):
    """Round 1 blank (the start date, as before, now named) and rounds 3-4 blank after
    round 2: both take the last dated round's date."""
    raw = read_trf(trf(tmp_path, "132" + " " * 98 + "25/10/31", rounds=4))
    assert [dated(raw)[g] for g in ("r1:1-2", "r2:1-3", "r3:1-4", "r4:1-3")] == [
        "2025-10-30", "2025-10-31", "2025-10-31", "2025-10-31",
    ]  # fmt: skip
    assert (
        "no date on the 132 record (line 6) for round 1: dated 2025-10-30, the start date "
        "(042); rounds 3 and 4: dated 2025-10-31, as round 2 before them (give each "
        "round's date there, YY/MM/DD)"
    ) in raw.notes
    # a 132 record that dates no round: a file without round dates, as before
    raw = read_trf(trf(tmp_path, "132", name="none.trf"))
    assert set(raw.frame["date"]) == {"2025-10-30"}
    assert not [n for n in raw.notes if "132" in n]


@pytest.mark.parametrize(
    "written, first, hint",
    [
        (" " * 86 + DATES, "'/10/30  '", "not aligned to the rounds' columns 92-99, 102-109, …?"),
        (
            " " * 88 + "2025/10/30  2025/10/31  2025/11/01",
            "'2025/10/'",
            "a four-digit year? each round's date is YY/MM/DD in its 8 columns",
        ),
    ],
    ids=["shifted", "four-digit-years"],
)
def test_an_unreadable_round_date_names_the_132_record_and_is_counted(
    tmp_path, capsys, written, first, hint
):
    path = trf(tmp_path, "132" + written)
    raw = read_trf(path)
    assert raw.frame.height == 0
    assert raw.problems[0][:3] == (
        6,
        "bad_date",
        f"132 record (round dates), round 1 (columns 92-99): {first} is not a date YY/MM/DD "
        f"({hint}); the game of ranks 1 and 2 (lines 7 and 8)",
    )
    assert len(raw.problems) == 6 and {p[0] for p in raw.problems} == {6}
    assert accounting(0, 12) in raw.notes  # said "6 games, … 0 blocks quarantined"
    assert main(["ingest", "--no-flow", str(path), "--store", str(tmp_path / "S")]) == 2
    err = capsys.readouterr().err
    assert f"{path}:6: bad_date: 132 record (round dates), round 1 (columns 92-99)" in err
    assert f"{path}:7:" not in err


def test_a_round_date_with_no_such_month_or_day(tmp_path):
    raw = read_trf(trf(tmp_path, "132" + " " * 88 + "25/10/30  25/13/31  25/02/30"))
    assert dated(raw) == {"r1:1-2": "2025-10-30", "r1:3-4": "2025-10-30"}
    details = sorted({p[2].split(";")[0] for p in raw.problems})
    assert details == [
        "132 record (round dates), round 2 (columns 102-109): '25/13/31' is not a date: "
        "there is no month 13",
        "132 record (round dates), round 3 (columns 112-119): '25/02/30' is not a date: "
        "2025-02 has no day 30",
    ]
    assert accounting(2, 8) in raw.notes


# -- 4: FIDE's fixed-width list as a players file ----------------------------------------

PLAYERS_HEADER = "player_id,name,federation,birth_year,rating,rated_games"
LIST_PLAYERS = [
    "P1,Alice Adams,ISL,1980,2000,50",
    "O1,Bob Brown,ISL,1975,1900,60",
    "O2,陳 美玲,CHN,1970,2100,80",  # two screen columns a character in the list
    'O3,"Dane, Dora",ISL,1985,2520,200',
]
GAMES = ["2025-11-02,P1,O1,1-0", "2025-11-03,O2,P1,1/2-1/2", "2025-11-04,O3,O1,1-0"]


def test_arpads_fide_txt_list_is_read_as_a_players_file(tmp_path, capsys):
    write_csv(tmp_path / "players.csv", PLAYERS_HEADER, LIST_PLAYERS)
    write_csv(tmp_path / "games.csv", "date,white_id,black_id,result", GAMES)
    s = ["--store", str(tmp_path / "S")]
    assert main(["ingest", "--no-flow", *s, "--players", str(tmp_path / "players.csv"), str(tmp_path / "games.csv")]) == 0  # fmt: skip
    assert main(["rate", "--no-flow", *s, "--system", "fide"]) == 0
    out = tmp_path / "list.txt"
    assert main(["list", *s, "--system", "fide", "--format", "fide-txt", "--output", str(out)]) == 0
    capsys.readouterr()
    assert main(["list", *s, "--system", "fide", "--format", "csv"]) == 0
    listed = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False)
    assert out.read_text().startswith("ID Number      Name")

    rt = ["--store", str(tmp_path / "RT")]
    assert main(["ingest", "--no-flow", *rt, "--players", str(out)]) == 0
    said = capsys.readouterr().out
    assert "note: read as FIDE's fixed-width list (its header line has no separator)" in said
    assert main(["sql", "SELECT player_id, name, federation, birth_year, rating FROM players ORDER BY 1", *rt, "--format", "csv"]) == 0  # fmt: skip
    back = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False)
    assert back.rows() == [
        ("O1", "Bob Brown", "ISL", "1975", f"{float(listed.filter(pl.col('player_id') == 'O1')['rating'][0]):.1f}"),
        ("O2", "陳 美玲", "CHN", "1970", f"{float(listed.filter(pl.col('player_id') == 'O2')['rating'][0]):.1f}"),
        ("O3", "Dane, Dora", "ISL", "1985", f"{float(listed.filter(pl.col('player_id') == 'O3')['rating'][0]):.1f}"),
        ("P1", "Alice Adams", "ISL", "1980", f"{float(listed.filter(pl.col('player_id') == 'P1')['rating'][0]):.1f}"),
    ]  # fmt: skip
    # the ratings are the list's, not the players file's: P1 beat O1 and drew O2
    assert back.filter(pl.col("player_id") == "P1")["rating"][0] != "2000.0"


def test_fides_layout_is_read_from_its_own_header(tmp_path, capsys):
    """FIDE's download (another rating month, K and B-day where its header puts them)."""
    text = (
        "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SEP24 Gms  K   B-day Flag\n"
        "4100018        Kramnik, Vladimir                                            RUS M   GM                           2753  0    10  1975  i\n"
        "\n"
        "13300474       Abdusattorov, Nodirbek                                       UZB M   GM                           2766  9    10  2004\n"
    )  # fmt: skip
    path = tmp_path / "standard_rating_list.txt"
    path.write_text(text)
    s = ["--store", str(tmp_path / "S")]
    assert main(["ingest", "--no-flow", *s, "--players", str(path)]) == 0
    capsys.readouterr()
    assert main(["sql", "SELECT player_id, name, federation, sex, title, birth_year, rating, source FROM players ORDER BY 1", *s, "--format", "csv"]) == 0  # fmt: skip
    rows = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False).rows()
    assert rows == [
        ("13300474", "Abdusattorov, Nodirbek", "UZB", "M", "GM", "2004", "2766.0", "standard_rating_list.txt:4"),
        ("4100018", "Kramnik, Vladimir", "RUS", "M", "GM", "1975", "2753.0", "standard_rating_list.txt:2"),
    ]  # fmt: skip


def test_an_xml_list_is_refused_naming_what_to_give(tmp_path, capsys):
    path = tmp_path / "list.xml"
    path.write_text("<playerslist><player><fideid>1</fideid></player></playerslist>\n")
    assert (
        main(["ingest", "--no-flow", "--store", str(tmp_path / "S"), "--players", str(path)]) == 2
    )
    err = capsys.readouterr().err
    assert err == (
        f"arpad: error: {path}: an XML file (a FIDE XML rating list?) is not read: give the "
        "players as CSV or as FIDE's fixed-width TXT list (arpad list --format csv or "
        "fide-txt writes them)\n"
    )


# -- 5: hints quote the store's path --------------------------------------------------------


def test_copy_paste_hints_quote_a_store_path_with_spaces(tmp_path, capsys):
    folder = tmp_path / "sp ace" / "ü dir"
    folder.mkdir(parents=True)
    games = folder / "O'Neil bad.csv"
    write_csv(
        games, "date,white_id,black_id,result", [f"2025-11-0{i},{i},{i},1-0" for i in range(1, 8)]
    )
    store = folder / "my store ü"
    assert main(["ingest", "--no-flow", str(games), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    quoted = f"'{store}'"
    assert (
        'and 2 more (all in the quarantine view: arpad sql "SELECT * FROM quarantine WHERE '
        f"source = 'O''Neil bad.csv'\" --store {quoted})"
    ) in err
    assert f'(arpad sql "SELECT * FROM quarantine" --store {quoted})' in err
    # pasted into a shell, the hint runs
    hint = err.split("(all in the quarantine view: ", 1)[1].split("\n", 1)[0][:-1]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["sh", "-c", hint], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "plays himself" in done.stdout
    # a path that needs no quotes is printed as it is
    plain = tmp_path / "plain"
    assert main(["ingest", "--no-flow", str(games), "--store", str(plain)]) == 2
    assert f"--store {plain})" in capsys.readouterr().err


# -- 6: check names a killed players merge ----------------------------------------------------


def test_check_names_an_interrupted_players_merge(tmp_path, capsys):
    write_csv(tmp_path / "games.csv", "date,white_id,black_id,result", ["2025-11-02,A,C,1-0", "2025-11-03,B,D,0-1"])  # fmt: skip
    root = tmp_path / "S"
    s = ["--store", str(root)]
    assert main(["ingest", "--no-flow", *s, str(tmp_path / "games.csv")]) == 0
    env = {**os.environ, "ARPAD_CRASH_AT": "correction:before-commit", "CI": "1", "ARPAD_NO_FLOW": "1"}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", "players", "merge", "A", "B", "--force", *s],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    (batch,) = [p.name for p in (root / ".pending").iterdir()]
    assert batch.startswith("merge-")
    capsys.readouterr()
    assert main(["check", *s]) == 0
    out = capsys.readouterr().out.splitlines()
    # (round 15: the time it started and the command to run again, tests/test_trf_r15.py)
    assert out[0].startswith(
        f"note: .pending/{batch}: the players merge of batch {batch}, started "
    )
    assert out[0].endswith(
        ", was interrupted before its commit: nothing of it is in the store, the next writing "
        "command discards it, and the players merge must be run again: arpad players merge "
        f"A B --force --store {root}"
    )
    # as the next merge words it
    assert main(["players", "merge", "A", "B", "--force", *s]) == 0
    assert f"discarded the unfinished players merge of batch {batch}" in capsys.readouterr().err
