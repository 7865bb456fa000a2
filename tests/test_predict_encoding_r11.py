"""``arpad.predict``'s ratings CSV and ``arpad.fit_draws``' predictions CSV in a code page
(round 11): both were read by polars' ``read_csv``, which refused a file that is not
UTF-8 whatever ``encoding=`` said (``ratings: r.csv is not a CSV or Parquet file
(invalid utf-8 sequence)``), while the pairings file beside them was read in it
(round 10). They are read as ``arpad predict PAIRINGS.csv`` reads its pairings
(pipeline/predict.py ``read_text_csv``), and a byte the code page lacks is one line
naming the file, the line and the byte: a ``ValueError`` (an ``arpad.InputError``)
from the API, exit 2 from the command, with the same words (docs/api.md).
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main

MULLER, LJUBO = "Müller", "Ljubojević"  # ć is 0xE6 in Windows-1250 (æ in Windows-1252)
RATINGS = f"player_id,rating\n{MULLER},2100\n{LJUBO},2000\n"
PAIRINGS = f"white_id,black_id\n{MULLER},{LJUBO}\n{LJUBO},{MULLER}\n"


def elo_expected(white: float, black: float) -> float:
    """Elo's expected score of White, by hand: 1 / (1 + 10^((Rb - Ra)/400))."""
    return 1 / (1 + 10 ** ((black - white) / 400))


@pytest.fixture
def files(tmp_path):
    ratings, pairings = tmp_path / "ratings1250.csv", tmp_path / "pairs1250.csv"
    ratings.write_bytes(RATINGS.encode("cp1250"))
    pairings.write_bytes(PAIRINGS.encode("cp1250"))
    return ratings, pairings


def test_a_ratings_csv_is_read_in_its_code_page(files):
    ratings, pairings = files
    with pytest.warns(UserWarning) as caught:
        got = arpad.predict(str(ratings), pairings, system="elo", encoding="cp1250")
    notes = [str(w.message) for w in caught]
    assert f"{ratings}: not valid UTF-8; decoded as Windows-1250 (encoding='cp1250')" in notes
    assert got.select("white_id", "black_id", "white_rating", "black_rating").rows() == [
        (MULLER, LJUBO, 2100.0, 2000.0),
        (LJUBO, MULLER, 2000.0, 2100.0),
    ]
    # 100 points: 1 / (1 + 10^(-1/4)) = 0.6400649998…, and its complement
    assert got["expected"].to_list() == pytest.approx(
        [elo_expected(2100, 2000), elo_expected(2000, 2100)], rel=1e-12
    )
    assert got["expected"][0] == pytest.approx(0.6400649998, abs=1e-9)
    # unstated: the guess reads ć as Central European in both files, as the command does
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        guessed = arpad.predict(ratings, pairings, system="elo")
    assert guessed["white_rating"].to_list() == [2100.0, 2000.0]
    # a ratings CSV with a pairings table: encoding= is for the ratings file
    table = pl.DataFrame({"white_id": [LJUBO], "black_id": [MULLER]})
    with pytest.warns(UserWarning, match="decoded as Windows-1250"):
        one = arpad.predict(ratings, table, system="elo", encoding="cp1250")
    assert one["expected"][0] == pytest.approx(elo_expected(2000, 2100), rel=1e-12)
    # nothing to read in it: refused, not ignored
    with pytest.raises(TypeError) as raised:
        arpad.predict(got.select(player_id="white_id", rating="white_rating"), table,
                      system="elo", encoding="cp1250")  # fmt: skip
    assert str(raised.value) == (
        "encoding: only for a pairings CSV file or a ratings CSV file (a path), "
        "got DataFrame and DataFrame"
    )


def test_a_byte_the_code_page_lacks_is_one_line_in_the_api_and_the_command(files, tmp_path, capsys):
    ratings, pairings = files
    bad = tmp_path / "bad1250.csv"  # 0x81 is no character of Windows-1250
    bad.write_bytes(RATINGS.encode("cp1250") + b"Nov\x81k,1900\n")
    with pytest.raises(ValueError) as raised:
        arpad.predict(bad, pairings, system="elo", encoding="cp1250")
    assert isinstance(raised.value, arpad.InputError)
    assert str(raised.value) == (
        f"{bad}:4: byte 0x81 is not a character of Windows-1250 (encoding='cp1250')"
    )
    # a file that is not what encoding= says: the first byte that is not UTF-8
    with pytest.raises(ValueError) as raised:
        arpad.predict(ratings, pairings, system="elo", encoding="utf-8")
    assert str(raised.value).startswith(f"{ratings}:2: byte 0xFC is not UTF-8 (encoding='utf-8')")
    # the pairings file: a ValueError too (it was an InputError only), in the command's words
    pairs_bad = tmp_path / "pairs_bad.csv"
    pairs_bad.write_bytes(PAIRINGS.encode("cp1250") + b"Nov\x81k,M\n")
    with pytest.raises(ValueError) as raised:
        arpad.predict(ratings, pairs_bad, system="elo", encoding="cp1250")
    api_line = str(raised.value)
    assert api_line == (
        f"{pairs_bad}:4: byte 0x81 is not a character of Windows-1250 (encoding='cp1250')"
    )
    games = tmp_path / "games.csv"
    games.write_bytes(f"date,white_id,black_id,result\n2025-01-10,{MULLER},{LJUBO},1-0\n".encode())
    store = str(tmp_path / "S")
    assert main(["ingest", str(games), "--store", store, "--no-flow"]) == 0
    assert main(["rate", "--store", store, "--system", "elo", "--no-flow"]) == 0
    capsys.readouterr()
    argv = ["predict", str(pairs_bad), "--store", store, "--system", "elo"]
    assert main([*argv, "--encoding", "cp1250"]) == 2
    cli_line = api_line.replace("(encoding='cp1250')", "(--encoding cp1250)")
    assert capsys.readouterr() == ("", f"arpad: error: {cli_line}\n")


def test_fit_draws_reads_a_predictions_csv_in_its_code_page(tmp_path):
    # six games between equal players, two drawn: P(draw) = ν / (2 + ν) = 1/3, ν = 1
    rows = [(MULLER, LJUBO, "1-0"), (LJUBO, MULLER, "1/2-1/2"), (MULLER, LJUBO, "0-1")]
    text = "white_id;black_id;expected;score\n" + "".join(
        f"{w};{b};0.5;{s}\n" for w, b, s in rows + rows[::-1]
    )
    played = tmp_path / "played1250.csv"
    played.write_bytes(text.encode("cp1250"))
    with pytest.warns(UserWarning, match=r"decoded as Windows-1250 \(encoding='cp1250'\)"):
        model = arpad.fit_draws(played, encoding="cp1250")
    assert model.nu == pytest.approx(1.0, abs=1e-6)
    with pytest.warns(UserWarning, match="decoded as Windows-1250"):  # told from its ć
        assert arpad.fit_draws(str(played)).nu == pytest.approx(1.0, abs=1e-6)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(text.encode("cp1250").replace(b"0.5", b"0.5\x98", 1))
    with pytest.raises(ValueError) as raised:
        arpad.fit_draws(bad, encoding="windows-1250")
    assert str(raised.value) == (
        f"{bad}:2: byte 0x98 is not a character of Windows-1250 (encoding='cp1250')"
    )
    with pytest.raises(TypeError, match=r"^encoding: only for a CSV file \(a path\), got dict$"):
        arpad.fit_draws({"expected": [0.5], "score": [1.0]}, encoding="cp1250")
