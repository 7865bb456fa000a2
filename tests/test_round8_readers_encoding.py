"""A file that is not UTF-8 is read as Windows-1250 (Central European) or Windows-1252
(Western) as its letters say, or as ``--encoding`` states (docs/ingest.md "Encodings";
officer8 #1: a Hungarian/Polish federation's cp1250 export was read as Windows-1252,
``Erdős`` stored as ``Erdõs`` and ``Łucja`` as ``£ucja``, over the correct stored names,
with no warning)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.errors import InputError
from arpad.pipeline.readers import decode, read_any

CP1250_NOTE = (
    "not valid UTF-8; decoded as Windows-1250 (Central European: 'ő', 'ł', 'Ł' inside "
    "names, not Windows-1252's 'õ', '³', '£'; --encoding cp1252 reads it as Western)"
)


def _officer_files(tmp_path: Path) -> tuple[str, str, str]:
    """The report's inline example: a UTF-8 register, a players change saved as cp1250
    (as ``iconv -t cp1250`` writes it), one game."""
    reg = tmp_path / "reg-utf8.csv"
    reg.write_bytes(
        "player_id;name;rating\r\n1005;Erdős, Gábor;1720\r\n1006;Wałęsa, Łucja;1800\r\n".encode()
    )
    change = tmp_path / "change-cp1250.csv"
    change.write_bytes(
        "player_id;name;federation\r\n1005;Erdős, Gábor;AUT\r\n1006;Wałęsa, Łucja;POL\r\n".encode(
            "cp1250"
        )
    )
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2026-11-05,1005,1006,1-0\n")
    return str(reg), str(change), str(games)


def _names(store: str, capsys) -> list[str]:
    capsys.readouterr()
    sql = "select name from players order by player_id"
    assert main(["sql", sql, "--store", store, "--format", "csv"]) == 0
    return capsys.readouterr().out.splitlines()[1:]


def test_cp1250_change_file_keeps_the_stored_names(tmp_path, capsys):
    reg, change, games = _officer_files(tmp_path)
    store = str(tmp_path / "M")
    assert main(["ingest", games, "--players", reg, "--store", store, "--no-flow"]) == 0
    assert main(["ingest", "--players", change, "--store", store, "--no-flow"]) == 0
    out = capsys.readouterr().out
    assert f"  note: {CP1250_NOTE}" in out.splitlines()
    # before: "Erdõs, Gábor" and "Wa³êsa, £ucja" replaced the register's names
    assert _names(store, capsys) == ['"Erdős, Gábor"', '"Wałęsa, Łucja"']


def test_western_cp1252_file_stays_cp1252(tmp_path):
    path = tmp_path / "west.csv"
    rows = ["Müller, Hans", "García, José", "Señor, Pablo", "Françoise, Anne", "Œuvre, Jean"]
    text = "player_id;name\r\n" + "".join(f"{i};{n}\r\n" for i, n in enumerate(rows, 1))
    path.write_bytes(text.encode("cp1252"))
    raw = read_any(path)
    assert raw.frame["name"].to_list() == rows
    note = next(n for n in raw.notes if "UTF-8" in n)
    assert note.startswith("not valid UTF-8; decoded as Latin-1 (Windows-1252)")
    # ½ is never in Windows-1250 (its 0xBD is the accent ˝): Western, whatever else
    draws = tmp_path / "draws.csv"
    # (0xA3 before a letter alone would say Ł: the ½ of a result outweighs it)
    draws.write_bytes(b"date;white_id;black_id;result\r\n2025-01-02;\xa3ukasz;Bak;\xbd-\xbd\r\n")
    assert read_any(draws).frame.row(0)[1:4] == ("£ukasz", "Bak", "½-½")


@pytest.mark.parametrize(
    ("names", "letters"),
    [
        (["Dvořák, Jiří", "Kučera, Věra"], "ř ě"),  # Czech: ř before a vowel, ě inside a word
        (["Ivanović, Đorđe"], "ć Đ"),  # Croatian: ć ending a name, Đ starting one
        (["Stępień, Paweł"], "ń ł"),  # Polish
        (["Juhász, Jenő", "Győr"], "ő"),  # Hungarian only: ő, not Portuguese õ before e
    ],
)
def test_central_european_letters_choose_cp1250(tmp_path, names, letters):
    path = tmp_path / "ce.csv"
    text = "player_id;name\r\n" + "".join(f"{i};{n}\r\n" for i, n in enumerate(names, 1))
    path.write_bytes(text.encode("cp1250"))
    raw = read_any(path)
    assert raw.frame["name"].to_list() == names
    assert any(n.startswith("not valid UTF-8; decoded as Windows-1250") for n in raw.notes)


def test_portuguese_and_scandinavian_stay_western(tmp_path):
    for names in (["Simões, João"], ["Jørgensen, Søren", "Åberg, Pär"], ["Peña, Muñoz"]):
        path = tmp_path / "w.csv"
        text = "player_id;name\r\n" + "".join(f"{i};{n}\r\n" for i, n in enumerate(names, 1))
        path.write_bytes(text.encode("cp1252"))
        assert read_any(path).frame["name"].to_list() == names


def test_encoding_option_states_the_code_page(tmp_path, capsys):
    # ű alone is not evidence enough (French û): the default stays Western and says so
    path = tmp_path / "hu.csv"
    path.write_bytes("player_id;name\r\n1;Bíró-Szűcs, Anna\r\n".encode("cp1250"))
    guessed = read_any(path)
    assert guessed.frame["name"].to_list() == ["Bíró-Szûcs, Anna"]
    assert (
        "not valid UTF-8; decoded as Latin-1 (Windows-1252); 'û' (Windows-1250: 'ű'): "
        "--encoding cp1250 if it is Central European"
    ) in guessed.notes
    stated = read_any(path, encoding="windows-1250")
    assert stated.frame["name"].to_list() == ["Bíró-Szűcs, Anna"]
    assert "not valid UTF-8; decoded as Windows-1250 (--encoding cp1250)" in stated.notes
    store = str(tmp_path / "S")
    args = ["ingest", "--players", str(path), "--store", store, "--no-flow"]
    assert main([*args, "--encoding", "cp1250"]) == 0
    assert _names(store, capsys) == ['"Bíró-Szűcs, Anna"']
    # a UTF-8 file is UTF-8 whatever --encoding says; a bad name is one line, exit 2
    utf8 = tmp_path / "u.csv"
    utf8.write_text("player_id;name\n2;Wałęsa, Łucja\n")
    assert read_any(utf8, encoding="cp1250").frame["name"].to_list() == ["Wałęsa, Łucja"]
    assert main([*args, "--encoding", "klingon"]) == 2
    assert "--encoding klingon: not an encoding arpad reads" in capsys.readouterr().err
    with pytest.raises(InputError, match=r":2: byte 0xED is not UTF-8 \(--encoding utf-8\)"):
        read_any(path, encoding="utf-8")


def test_trf_and_utf8_speed_path_untouched(tmp_path):
    # the TRF reader decodes through readers.decode: a cp1250 TRF name is read right
    notes: list[str] = []
    text = decode("001    5 m    Nowak, Łukasz\r\n".encode("cp1250"), tmp_path / "x.trf", notes)
    assert "Nowak, Łukasz" in text and notes[0].startswith(
        "not valid UTF-8; decoded as Windows-1250"
    )
    notes = []
    assert decode("Erdős\n".encode(), tmp_path / "u.csv", notes) == "Erdős\n" and notes == []
