"""``players merge --mapping`` reads a mapping file saved by a spreadsheet (round 8,
historian8 defect 2; docs/identity.md "Candidates", the mapping file).

Before, the mapping was read as UTF-8 with ``,`` only: Excel's Windows-1252 CSV was
refused ("not UTF-8 text") and a ``;``-separated file (a locale whose decimal mark is
the comma) was refused with "a mapping file needs the columns keep,duplicate" although
it had them. It is now read with the CSV rules of ``arpad ingest`` (docs/ingest.md:
byte-order mark, UTF-8 else Windows-1252 with a note, ``;`` or tab from the header line
with a note, CRLF), reusing pipeline/readers.py's functions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

CB, SCID = "morphy_cb.pgn", "morphy_scid.pgn"
LOW_CB, LOW_SCID = f"{CB}:Löwenthal, Johann Jakob", f"{SCID}:Loewenthal, J."
MORPHY_CB, MORPHY_SCID = f"{CB}:Morphy, Paul", f"{SCID}:P. Morphy"


def pgn_game(white: str, black: str, date: str, moves: str) -> str:
    return (
        f'[Event "London"]\n[Site "London"]\n[Date "{date}"]\n[Round "1"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "1-0"]\n\n{moves} 1-0\n'
    )


@pytest.fixture
def morphy(tmp_path) -> Path:
    """Two collections of 1858: Morphy and Löwenthal spelt differently in each."""
    cb = tmp_path / CB
    cb.write_text(pgn_game("Morphy, Paul", "Löwenthal, Johann Jakob", "1858.07.19", "1. e4 e5"))
    scid = tmp_path / SCID
    scid.write_text(pgn_game("P. Morphy", "Loewenthal, J.", "1858.07.20", "1. d4 d5"))
    root = tmp_path / "M"
    assert main(["ingest", "--no-flow", "--store", str(root), str(cb), str(scid)]) == 0
    return root


def merge(root: Path, mapping: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["players", "merge", "--mapping", str(mapping), "--store", str(root)])
    return code, capsys.readouterr().err.replace(str(mapping), "m.csv")


def test_identify_output_saved_by_excel_as_windows_1252_with_crlf_is_merged(morphy, capsys):
    """identify's file through iconv -t cp1252 and CRLF line ends (what Excel's "CSV"
    writes on Windows): both rows merged, the evidence (with its ö) kept as the reason."""
    out = morphy.parent / "m.csv"
    assert main(["players", "identify", "--store", str(morphy), "--output", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Löwenthal" in text
    excel = morphy.parent / "m_excel.csv"
    excel.write_bytes(text.replace("\n", "\r\n").encode("cp1252"))
    code, err = merge(morphy, excel, capsys)
    assert code == 0
    assert err == "arpad: note: m.csv: not valid UTF-8; decoded as Latin-1 (Windows-1252)\n"
    assert identity.alias_map(Store(morphy)) == {LOW_SCID: LOW_CB, MORPHY_SCID: MORPHY_CB}
    reasons = dict(zip(*identity.read_aliases(Store(morphy)).select("duplicate", "reason")))
    assert reasons[LOW_SCID] == (
        f"mapping {excel}: transliterated, abbreviated name; years 1858-1858 and 1858-1858; "
        "1 shared opponent(s)"
    )


@pytest.mark.parametrize("sep", [";", "\t"])
def test_semicolon_or_tab_separated_mapping_with_bom_and_crlf(morphy, capsys, sep):
    """The report's semi.csv: a byte-order mark, ``;`` and a decimal comma in the score."""
    text = f"\ufeffkeep{sep}duplicate{sep}evidence{sep}score\r\n"
    text += f"{MORPHY_CB}{sep}{MORPHY_SCID}{sep}x{sep}0,65\r\n"
    path = morphy.parent / "semi.csv"
    path.write_text(text, encoding="utf-8", newline="")
    code, err = merge(morphy, path, capsys)
    assert code == 0
    assert err == f"arpad: note: m.csv: fields separated by {sep!r} (from the header line)\n"
    assert identity.alias_map(Store(morphy)) == {MORPHY_SCID: MORPHY_CB}
    assert identity.read_aliases(Store(morphy))["reason"].to_list() == [f"mapping {path}: x"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # the columns found and the separator used are named
        (
            b"kept;dup\r\nX;Y\r\n",
            "m.csv:1: a mapping file needs the columns keep,duplicate (found the columns "
            "'kept', 'dup', separated by ';')",
        ),
        (
            b"Keep,Duplicate\nX,Y\n",
            "m.csv:1: a mapping file needs the columns keep,duplicate (found the columns "
            "'Keep', 'Duplicate', separated by ',')",
        ),
        # a spreadsheet's empty row (";;;") is a blank line: skipped, but counted
        (
            f"keep;duplicate;evidence;score\r\n;;;\r\n{MORPHY_CB};{MORPHY_CB};;\r\n".encode(),
            f"m.csv:3: cannot merge {MORPHY_CB} into itself",
        ),
        (b"", "m.csv:1: empty file: a mapping file needs the columns keep,duplicate"),
        (b"keep,duplicate\nA\x00,B\n", "m.csv:2: binary data (NUL byte): not a text file"),
    ],
)
def test_mapping_refusals_name_the_file_line_and_problem(morphy, capsys, data, message):
    path = morphy.parent / "bad.csv"
    path.write_bytes(data)
    code, err = merge(morphy, path, capsys)
    assert (code, err) == (2, f"arpad: error: {message}; nothing was merged\n")
    assert identity.read_aliases(Store(morphy)).height == 0


def test_a_directory_as_the_mapping_is_refused_without_a_traceback(morphy, capsys):
    """Before: IsADirectoryError, "arpad: internal error (exit 1)"."""
    code, err = merge(morphy, morphy.parent, capsys)
    assert code == 2
    assert err.endswith(
        "is a directory: name the mapping file (CSV keep,duplicate); nothing was merged\n"
    )
    assert "Traceback" not in err
