"""The fourth hostile-input attack: an indented TRF record, symlink loops and dangling
symlinks as inputs, ``arpad convert`` of nan/inf/overflowing values, and files whose
bytes are not the format their name or ``--format`` says (docs/pgn-trf.md "Reading
TRF", docs/ingest.md "A file that is not what its name says", docs/cli.md)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import polars as pl
import pytest

from arpad.pipeline import conversions
from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import read_any
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store
from arpad.pipeline.trf import read_trf

GAMES_CSV = (
    "game_id,date,white_id,black_id,result\n"
    "g1,2024-01-05,A,B,1-0\n"
    "g2,2024-01-06,B,C,1/2-1/2\n"
    "g3,2024-02-07,C,A,0-1\n"
)
PLAYERS_CSV = "player_id,name,rating\nA,Alpha,2000\nB,Beta,1900\nC,Gamma,1800\n"


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("arpad: error: "), err
    assert "Traceback" not in err and "Warning" not in err
    return lines[0]


def p001(rank: int, name: str, fide: str, block: str) -> str:
    """A 001 line at the TRF16 columns (docs/pgn-trf.md "TRF columns"): rank 5-8, sex 10,
    name 15-47, rating 49-52, federation 54-56, FIDE id 58-68, points 81-84, round 1 at 92."""
    line = f"001 {rank:4d} m    {name:<33} 2000 GER {fide:>11}"
    return f"{line:<80}{'1.0':>4}{'':7}{block}"


# -- (1) a TRF record that does not start at column 1 ----------------------------------------


def test_an_indented_001_line_is_quarantined_with_its_blocks(tmp_path, capsys):
    """` 001    1 …` fell through to "unknown records are ignored": the player was
    neither counted nor quarantined, and his opponent's game was quarantined as
    unknown_opponent with no word of the line (repro indent.trf)."""
    lines = [
        "012 Hostile Open",
        "042 2024/01/10",
        " " + p001(1, "Alpha, A", "1001", "   2 w 1"),
        p001(2, "Beta, B", "1002", "   1 b 0"),
    ]
    path = tmp_path / "indent.trf"
    path.write_text("\n".join(lines) + "\n")
    raw = read_trf(path)
    by_line = {no: (reason, text) for no, reason, text, _ in raw.problems}
    reason, text = by_line[3]
    assert reason == Reason.MALFORMED_ROW
    assert text.startswith("record 001 does not start at column 1 (1 blank(s) before it)")
    assert "not aligned to the TRF columns" in text
    # 2 player lines × 1 round = 2 blocks: line 3's block quarantined with the line,
    # line 4's block names rank 1, which no line read gives (unknown_opponent).
    assert by_line[4][0] == Reason.UNKNOWN_OPPONENT
    assert raw.accounting["player_lines"] == 2
    assert raw.accounting["blocks"] == 2
    assert raw.accounting["problem_blocks"] == 2
    assert raw.frame.height == 0

    store = tmp_path / "s"
    assert main(["ingest", "--no-flow", str(path), "--store", str(store)]) == 2
    out, err = capsys.readouterr()
    assert "2 players × 1 rounds = 2 blocks: 0 games" in out
    assert f"{path}:3: malformed_row: record 001 does not start at column 1" in out + err


def test_an_indented_header_record_is_refused_and_others_are_ignored(tmp_path):
    """An indented 132 line (round dates) is refused by row, not read shifted: the game
    takes the start date (042) as in a file without a 132 line. An indented 013 (team)
    record, which the reader does not read, stays ignored."""
    block_col = 92
    lines = [
        "012 Hostile Open",
        "042 2024/01/10",
        "  132" + " " * (block_col - 1 - 3) + "24/01/11",
        " 013 Team A                1    2",
        p001(1, "Alpha, A", "1001", "   2 w 1"),
        p001(2, "Beta, B", "1002", "   1 b 0"),
    ]
    path = tmp_path / "dates.trf"
    path.write_text("\n".join(lines) + "\n")
    raw = read_trf(path)
    assert [(no, reason) for no, reason, _, _ in raw.problems] == [(3, Reason.MALFORMED_ROW)]
    assert raw.problems[0][2].startswith("record 132 does not start at column 1 (2 blank(s)")
    # one game, rank 1 White beats rank 2, dated 042 (2024-01-10), not the 132's 01-11
    assert raw.frame.select("date", "white_id", "black_id", "score").rows() == [
        ("2024-01-10", "1001", "1002", "1.0")
    ]
    # the same file without the indent reads the round date
    path.write_text("\n".join([lines[0], lines[1], lines[2].lstrip(), *lines[4:]]) + "\n")
    assert read_trf(path).problems == []
    assert read_trf(path).frame["date"].to_list() == ["2024-01-11"]


# -- (2) symlink loops and symlinks to nothing ------------------------------------------------


def test_a_symlink_loop_and_a_dangling_symlink_are_named(tmp_path, capsys):
    """Both were "no such file", while docs/cli.md promises the loop by name."""
    (tmp_path / "loop1.csv").symlink_to("loop2.csv")
    (tmp_path / "loop2.csv").symlink_to("loop1.csv")
    (tmp_path / "gone.csv").symlink_to(tmp_path / "missing.csv")
    games = tmp_path / "games.csv"
    games.write_text(GAMES_CSV)
    store = tmp_path / "s"
    loop = "too many levels of symbolic links (a symlink loop)"
    dangling = f"a symbolic link to {tmp_path / 'missing.csv'}, which does not exist"
    for argv, name, problem in (
        (["ingest", str(tmp_path / "loop1.csv")], "loop1.csv", loop),
        (["ingest", str(tmp_path / "gone.csv")], "gone.csv", dangling),
        (["ingest", str(games), "--players", str(tmp_path / "loop2.csv")], "loop2.csv", loop),
        (["ingest", str(games), "--players", str(tmp_path / "gone.csv")], "gone.csv", dangling),
    ):
        assert main([*argv, "--no-flow", "--store", str(store)]) == 2
        line = one_error_line(capsys.readouterr().err)
        assert line == f"arpad: error: {tmp_path / name}: {problem}"
    assert not Store(store).game_files()
    assert main(["performance", str(games), "--players", str(tmp_path / "gone.csv")]) == 2
    assert one_error_line(capsys.readouterr().err).endswith(dangling)
    # a missing file that is no symlink is still "no such file"
    assert main(["ingest", str(tmp_path / "nothing.csv"), "--store", str(store)]) == 2
    assert one_error_line(capsys.readouterr().err).endswith("nothing.csv: no such file")
    # a symlink to a file is read as the file
    (tmp_path / "link.csv").symlink_to(games)
    assert read_any(tmp_path / "link.csv").frame.height == 3


# -- (3) arpad convert of values that are no rating -------------------------------------------


@pytest.mark.parametrize(
    "value, shown", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("1e400", "inf")]
)
def test_convert_refuses_values_that_are_not_finite(value, shown, capsys):
    """`nan` printed `nan ecf = nan fide`, exit 0 (inf and 1e400 the same)."""
    assert main(["convert", "--from", "ecf", "--to", "fide", "--", value]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert one_error_line(err) == (
        f"arpad: error: {shown} ecf: not a finite number (nan, inf and values beyond "
        "±1.8e308 are no rating)"
    )


def test_convert_refuses_an_overflowing_conversion_without_a_warning(capsys):
    """1e308 ECF printed NumPy's RuntimeWarning naming pipeline/conversions.py and
    `1e+308 ecf = inf fide`. Warnings are errors here: the old code failed on one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["convert", "--from", "ecf", "--to", "fide", "--", "1e308"]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert one_error_line(err) == (
            "arpad: error: 1e+308 ecf: the fide value is beyond ±1.8e308 (overflows): no rating"
        )
        # a finite value still converts: pre-2009 Elo = 8 × grade + 600 = 8 × 100 + 600
        assert main(["convert", "--from", "ecf", "--to", "fide", "--era", "pre-2009", "100"]) == 0
        assert capsys.readouterr().out == "100 ecf = 1400.00 fide\n"


def test_the_library_convert_keeps_nan_and_convert_values_refuses_it():
    """A NaN in an array is a missing rating to ``convert`` (Ingo = 355 − NaN/8 = NaN);
    the one-by-one ``convert_values`` (the command's) refuses it."""
    out = conversions.convert(np.array([np.nan, 1600.0]), "elo", "ingo")
    assert np.isnan(out[0]) and out[1] == 355.0 - 1600.0 / 8.0  # 155.0
    with pytest.raises(ValueError, match="nan elo: not a finite number"):
        conversions.convert_values([1600.0, np.nan], "elo", "ingo")
    assert conversions.convert_values([1600.0], "elo", "ingo").tolist() == [155.0]


# -- (4) the bytes against the name or --format -----------------------------------------------


def test_a_csv_named_parquet_is_named_as_text(tmp_path, capsys):
    """It got PyArrow's "Parquet magic bytes not found in footer…"."""
    store = tmp_path / "s"
    for name, text, hint in (
        ("games.parquet", GAMES_CSV, "it is text (CSV?): use --format csv or name it .csv"),
        (
            "bulletin.parquet",
            '[Event "x"]\n',
            "it is text (PGN?): use --format pgn or name it .pgn",
        ),
        ("event.parquet", "012 Open\n", "it is text (TRF?): use --format trf or name it .trf"),
        (
            "utf16.parquet",
            GAMES_CSV.encode("utf-16-le"),
            "it is text (CSV?): use --format csv or name it .csv",
        ),
    ):
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        assert main(["ingest", "--no-flow", str(path), "--store", str(store)]) == 2
        line = one_error_line(capsys.readouterr().err)
        assert line.startswith(f"arpad: error: {path}: is not a Parquet file (no PAR1 header): ")
        assert line.endswith(hint), line
        # the whole-file reader (performance, --players) says the same
        with pytest.raises(InputError) as caught:
            read_any(path)
        assert caught.value.problem == line.split(f"{path}: ", 1)[1]
    assert not Store(store).game_files()


def test_format_csv_on_a_parquet_file_names_it(tmp_path, capsys):
    """`--format csv` on a Parquet file was "binary data (NUL byte): not a text file"."""
    path = tmp_path / "games.parquet"
    pl.read_csv(GAMES_CSV.encode()).write_parquet(path)
    store = tmp_path / "s"
    for fmt, named in (("csv", "CSV"), ("pgn", "PGN"), ("trf", "TRF")):
        argv = ["ingest", "--no-flow", str(path), "--format", fmt, "--store", str(store)]
        assert main(argv) == 2
        assert one_error_line(capsys.readouterr().err) == (
            f"arpad: error: {path}: is a Parquet file, not {named} (--format {fmt}): "
            "use --format parquet"
        )
    assert not Store(store).game_files()
    assert (
        main(["ingest", "--no-flow", str(path), "--format", "parquet", "--store", str(store)]) == 0
    )


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_csv_without_a_byte_order_mark_is_read(encoding, tmp_path):
    """It was refused as "binary data (NUL byte): not a text file", while PGN and TRF
    read the same encoding with a note."""
    plain, wide = tmp_path / "plain.csv", tmp_path / "wide.csv"
    plain.write_text(GAMES_CSV)
    wide.write_bytes(GAMES_CSV.encode(encoding))
    expected, got = read_any(plain), read_any(wide)
    assert got.frame.drop("_raw").equals(expected.frame.drop("_raw"))
    assert got.frame["_raw"].to_list() == expected.frame["_raw"].to_list()
    assert "decoded as UTF-16 (no byte-order mark)" in got.notes
    # with a byte-order mark as before
    wide.write_bytes(GAMES_CSV.encode("utf-16"))
    assert "decoded as UTF-16 (byte-order mark)" in read_any(wide).notes
    assert read_any(wide).frame.drop("_raw").equals(expected.frame.drop("_raw"))


def test_a_utf16_csv_cut_in_the_middle_of_a_character_is_refused(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_bytes(GAMES_CSV.encode("utf-16-le")[:-1])  # an odd byte count
    with pytest.raises(InputError) as caught:
        read_any(path)
    assert caught.value.problem.startswith("UTF-16 text (no byte-order mark) that does not decode")
    assert os.path.getsize(path) % 2 == 1
