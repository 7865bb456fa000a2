"""The monthly job names its quarantined rows (pipeline/monthly.py, ``arpad recalculate``):
per inbox file the rows ``arpad ingest`` shows (``file:line: reason: detail``), ``and N
more``, and the pointer to the quarantine view, printed and in the markdown report (the
ops person's defect: the report said "1 rows quarantined" and nothing else)."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline import monthly
from arpad.pipeline.cli import main

HEADER = '"Month #","White Player #","Black Player #","Score"'  # the bundled Kaggle files'


def recalculate(tmp_path: Path, rows: list[str], capsys) -> tuple[int, str, str, Path]:
    inbox, store = tmp_path / "inbox", tmp_path / "S"
    inbox.mkdir()
    (inbox / "badrow.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    args = ["recalculate", "--inbox", str(inbox), "--store", str(store)]
    code = main([*args, "--mapping", "kaggle2010", "--systems", "elo"])
    out, err = capsys.readouterr()
    return code, out, err, inbox


def test_recalculate_names_the_quarantined_row_and_the_view(tmp_path, capsys):
    # line 1 the header, line 2 a draw (stored), line 3 a score of 7 (quarantined)
    code, out, err, inbox = recalculate(tmp_path, ["96,4,2084,0.5", "96,36,4562,7"], capsys)
    assert code == 2
    store = (tmp_path / "S").resolve()
    src = inbox / "badrow.csv"  # named where it was read (now in processed/)
    sql = f'arpad sql "SELECT * FROM quarantine" --store {store}'
    # stderr: as `arpad ingest badrow.csv` prints them
    lines = err.splitlines()
    assert f"{src}:3: score_out_of_range: score 7 is not 1, 0.5 or 0" in lines
    assert f"1 rows quarantined: see the 'quarantine' view ({sql})" in lines
    # the markdown on stdout: the same, escaped ('_' would emphasise)
    md = out.splitlines()
    escaped_src = str(src).replace("_", "\\_")
    i = md.index("Quarantined rows of badrow.csv:")
    assert md[i + 1 : i + 4] == [
        "",
        f"- {escaped_src}:3: score\\_out\\_of\\_range: score 7 is not 1, 0.5 or 0",
        "",
    ]
    assert f"1 rows quarantined: see the 'quarantine' view (`{sql}`)." in md
    assert (inbox / "processed" / "badrow.csv").exists()


def test_recalculate_shows_the_first_rows_and_counts_the_rest(tmp_path, capsys):
    # 8 scores out of range on lines 3..10 (line 2 a stored draw): `arpad ingest` shows
    # the first five in line order (lines 3..7), so 8 - 5 = 3 more
    bad = [f"96,{10 + k},{20 + k},{7 + k}" for k in range(8)]
    code, out, err, inbox = recalculate(tmp_path, ["96,4,2084,0.5", *bad], capsys)
    assert code == 2
    src = inbox / "badrow.csv"
    shown = [
        f"{src}:{3 + k}: score_out_of_range: score {7 + k} is not 1, 0.5 or 0" for k in range(5)
    ]
    lines = err.splitlines()
    start = lines.index(shown[0])
    assert lines[start : start + 6] == [*shown, "and 3 more"]
    assert f"{src}:8: score_out_of_range: score 12 is not 1, 0.5 or 0" not in lines
    assert lines[start + 6].startswith("8 rows quarantined: see the 'quarantine' view (")
    md = out.splitlines()
    i = md.index("Quarantined rows of badrow.csv:")
    assert md[i + 2 : i + 9] == [
        *(f"- {line.replace('_', chr(92) + '_')}" for line in shown),
        "- and 3 more",
        "",
    ]


def test_markdown_lists_quarantined_rows_per_file_escaped():
    """``monthly.markdown`` on a summary: each file's rows under its name, text from the
    data escaped (``_text``), a file without quarantined rows and a rejected one none."""
    summary = monthly.RecalculateSummary("/st/S")
    summary.files = [
        {"path": "/in/ok.csv", "kind": "games", "accepted": 3, "quarantined": 0,
         "outcome": "processed", "detail": "", "examples": [], "more": 0},
        {"path": "/in/a|b.csv", "kind": "games", "accepted": 1, "quarantined": 12,
         "outcome": "processed", "detail": "",
         "examples": ["/in/a|b.csv:4: unknown_player: id *7* <b>x</b>"], "more": 11},
        {"path": "/in/gone.csv", "kind": "games", "accepted": 0, "quarantined": 0,
         "outcome": "rejected", "detail": "cannot read"},  # no examples: as before
    ]  # fmt: skip
    md = monthly.markdown(summary).splitlines()
    i = md.index("Quarantined rows of a\\|b.csv:")
    assert md[i : i + 7] == [
        "Quarantined rows of a\\|b.csv:",
        "",
        "- /in/a\\|b.csv:4: unknown\\_player: id \\*7\\* \\<b\\>x\\</b\\>",
        "- and 11 more",
        "",
        # 1 shown + 11 more = 12 rows
        "12 rows quarantined: see the 'quarantine' view "
        '(`arpad sql "SELECT * FROM quarantine" --store /st/S`).',
        "",
    ]
    assert not any(line.startswith("Quarantined rows of ok.csv") for line in md)
    assert not any(line.startswith("Quarantined rows of gone.csv") for line in md)


TRF = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "real" / "trf"


def test_recalculate_counts_a_games_files_quarantined_player_rows(tmp_path, capsys):
    # A TRF whose 001 line of player 2 has a birth date of month 13: its games are all
    # stored, the player row is quarantined (bad_player_field). `arpad ingest` exits 2
    # and counts 1 row; the monthly job said "0 rows quarantined" and exited 0.
    src = TRF / "fide_example1_karl_mala_2005.trf"
    text = src.read_text(encoding="latin-1")
    assert "14101068 1966.02.06" in text
    inbox, store = tmp_path / "inbox", tmp_path / "S"
    inbox.mkdir()
    bad = text.replace("14101068 1966.02.06", "14101068 1966.13.45")
    (inbox / "t.trf").write_text(bad, encoding="latin-1")
    code = main(["recalculate", "--inbox", str(inbox), "--store", str(store), "--systems", "fide"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "**1 rows quarantined**" in out
    assert "| t.trf | games | 980 | 1 | processed |" in out
    assert f"{inbox / 't.trf'}:15: bad_player_field: birth_date 1966.13.45" in err
