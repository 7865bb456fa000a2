"""`arpad ingest` of many files ends on one total line worded as the files' lines, and
a note given identically for several files is said once with the number of files
(docs/cli.md "arpad ingest", round 8, newuser8 #4: 200 files printed 601 lines, every
note 200 times, and no total)."""

from __future__ import annotations

from arpad.pipeline.cli import main


def _cp1252(path, rows: list[str], sep: str = ";") -> str:
    """A games file as a club's spreadsheet saves it: Windows-1252, CRLF, `White`/`Black`
    headings (each note below is one readers.py gives such a file)."""
    lines = [sep.join(["Date", "White", "Black", "Result", "Event"]), *rows]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1252"))
    return str(path)


def _files(tmp_path, n: int) -> list[str]:
    return [
        _cp1252(
            tmp_path / f"m{i}.csv",
            [f"2025-01-1{j};A{i};B{j};1:0;Caf\xe9 Cup {i}" for j in range(2)],
        )
        for i in range(n)
    ]


LATIN1 = "not valid UTF-8; decoded as Latin-1 (Windows-1252)"
EVENT = "column 'event' read as event_id"


def test_many_files_end_on_a_total_and_say_each_shared_note_once(tmp_path, capsys):
    files = _files(tmp_path, 5)
    players = tmp_path / "p.csv"
    players.write_text("player_id,name,rating\nA0,Ann,1800\nA1,Bob,1900\nA2,Cy,\n")
    store = str(tmp_path / "S")
    assert main(["ingest", *files, "--players", str(players), "--store", store, "--no-flow"]) == 0
    out = capsys.readouterr().out.splitlines()
    # one line per file (players first), then the shared notes once, then the total:
    # 5 files x 2 games + 3 players = 13 rows read
    assert out[0] == f"{players}: 3 rows read, 3 players stored, 0 quarantined"
    assert out[1:6] == [f"{f}: 2 rows read, 2 games stored, 0 quarantined" for f in files]
    shared = out[
        6 : out.index("6 files: 13 rows read, 10 games stored, 3 players stored, 0 quarantined")
    ]
    head = f"notes for 5 of 6 files ({files[0]}, {files[1]}, {files[2]}, …):"
    assert shared[0] == head
    assert f"  note: {LATIN1}" in shared and f"  note: {EVENT}" in shared
    assert len(shared) == len(set(shared))  # each note once
    assert out[-1] == "6 files: 13 rows read, 10 games stored, 3 players stored, 0 quarantined"
    # a re-run skips every file: the total says so, and nothing of quarantine
    assert main(["ingest", *files, "--store", store, "--no-flow"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "5 files: 5 skipped" and len(out) == 6


def test_a_note_of_some_files_names_them_and_one_of_one_file_stays_under_it(tmp_path, capsys):
    files = _files(tmp_path, 3)
    comma = tmp_path / "comma.csv"  # UTF-8, `,`: not the others' notes
    comma.write_text("date,white_id,black_id,result\n2025-01-20,A0,A1,1-0\n")
    bad = _cp1252(tmp_path / "bad.csv", ["2025-01-21;A0;A0;1:0;Caf\xe9 Cup"])  # self-play
    args = [*files, str(comma), bad, "--store", str(tmp_path / "S"), "--no-flow"]
    assert main(["ingest", *args]) == 2  # exit codes as before: a row quarantined
    out = capsys.readouterr().out.splitlines()
    assert out[out.index(f"{comma}: 1 rows read, 1 games stored, 0 quarantined") + 1] == (
        f"{bad}: 1 rows read, 0 games stored, 1 quarantined"
    )  # no note of its own: the comma file has none
    assert f"notes for 4 of 5 files ({files[0]}, {files[1]}, {files[2]}, …):" in out
    assert out.count(f"  note: {LATIN1}") == 1
    assert out[-1] == "5 files: 8 rows read, 7 games stored, 1 quarantined"


def test_a_few_files_keep_their_notes_and_get_a_total(tmp_path, capsys):
    files = _files(tmp_path, 2)  # below FOLD_NOTES_FROM: each file's notes under it
    assert main(["ingest", *files, "--store", str(tmp_path / "S"), "--no-flow"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out.count(f"  note: {LATIN1}") == 2
    assert out[-1] == "2 files: 4 rows read, 4 games stored, 0 quarantined"
    assert main(["ingest", _cp1252(tmp_path / "one.csv", ["2025-01-22;X;Y;0:1;Caf\xe9 Cup"]),
                 "--store", str(tmp_path / "S"), "--no-flow"]) == 0  # fmt: skip
    assert "files:" not in capsys.readouterr().out  # one file: its line is the total
