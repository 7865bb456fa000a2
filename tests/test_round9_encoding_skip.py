"""``--encoding`` on bytes already stored, and the Windows-1250 hint (docs/ingest.md
"Encodings", round 9).

newuser9 #2, officer9 #6, historian9 #4: a file first read in the wrong code page
(``Szûcs``, ``Opoèenský``) and ingested again with ``--encoding cp1250``, as the tool's
own note said, was "skipped, identical content already ingested", the names left
wrong and no word that --encoding was not applied. Now the same source is read again
in the stated code page, a new version of it; the same reading, a UTF-8 file or
another source's copy is skipped with a word why. And the hint names Czech ``č`` (read
as ``è``), ``ř``, ``ň``, not only ``ű``, without changing the code page chosen."""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.readers import decode
from arpad.pipeline.store import Store

HU = 'player_id,name,rating\r\n11,"Szűcs, Ödön",1900\r\n12,"Kiss, Béla",1800\r\n'
WESTERN_HINT = "not valid UTF-8; decoded as Latin-1 (Windows-1252); {}: --encoding cp1250 if it is Central European"
STATED = "not valid UTF-8; decoded as Windows-1250 (--encoding cp1250)"
PGN = """[Event "Brno NC"]
[Site "Brno"]
[Date "1921.05.0{n}"]
[Round "{n}"]
[White "{white}"]
[Black "{black}"]
[Result "1-0"]

1. e4 e5 1-0

"""


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files named as a user names them: hu.csv, brno.pgn
    monkeypatch.delenv("PREFECT_API_URL", raising=False)


def names(store: str) -> list[str]:
    return Store(store).read_players().sort_by("player_id").column("name").to_pylist()


def out_of(capsys, args: list[str], code: int = 0) -> list[str]:
    capsys.readouterr()
    assert main([*args, "--no-flow"]) == code
    return capsys.readouterr().out.splitlines()


def test_the_hinted_encoding_reads_a_stored_players_file_again(tmp_path, capsys):
    Path("hu.csv").write_bytes(HU.encode("cp1250"))
    first = out_of(capsys, ["ingest", "--players", "hu.csv", "--store", "S"])
    assert "  note: " + WESTERN_HINT.format("'û' (Windows-1250: 'ű')") in first
    assert names("S") == ["Szûcs, Ödön", "Kiss, Béla"]
    # as the note says: a new version of hu.csv, read in Windows-1250 (was: skipped)
    again = out_of(
        capsys, ["ingest", "--players", "hu.csv", "--store", "S", "--encoding", "cp1250"]
    )
    assert again == [
        "hu.csv: 2 rows read, 2 players stored, 0 quarantined",
        f"  note: {STATED}",
        "  note: --encoding cp1250 reads these bytes otherwise than their stored version "
        "(read as Windows-1252): stored again, a new version of hu.csv",
    ]
    assert names("S") == ["Szűcs, Ödön", "Kiss, Béla"]
    manifest = Store("S").read_manifest()
    assert manifest.num_rows == 1 and manifest.column("source").to_pylist() == ["hu.csv"]
    # once more: the same reading, skipped, saying so; without --encoding: skipped as
    # before, the names kept
    assert out_of(
        capsys, ["ingest", "--players", "hu.csv", "--store", "S", "--encoding", "cp1250"]
    ) == [
        "hu.csv: skipped, identical content already ingested as hu.csv (--encoding cp1250 "
        "reads them as their stored version was read: Windows-1250)"
    ]
    assert out_of(capsys, ["ingest", "--players", "hu.csv", "--store", "S"]) == [
        "hu.csv: skipped, identical content already ingested as hu.csv"
    ]
    assert names("S") == ["Szűcs, Ödön", "Kiss, Béla"]


def test_the_api_reads_it_again_too(tmp_path):
    import arpad

    Path("hu.csv").write_bytes(HU.encode("cp1250"))
    store = arpad.Store(tmp_path / "api")
    store.ingest([], players="hu.csv")
    report = store.ingest([], players="hu.csv", encoding="cp1250")
    assert report.files[0].skipped is None
    assert names(str(tmp_path / "api")) == ["Szűcs, Ödön", "Kiss, Béla"]
    # a copy under another name: the way to read the stored source, in the API's words
    Path("hu2.csv").write_bytes(Path("hu.csv").read_bytes())
    report = store.ingest([], players="hu2.csv", encoding="cp1252")
    assert report.files[0].skipped == (
        "identical content already ingested as hu.csv (encoding='cp1252' not applied: these "
        "bytes are stored as the source hu.csv, read as Windows-1250; to read that source in "
        "cp1252: store.ingest([], players='hu.csv', encoding='cp1252'))"
    )


def test_a_wrong_stated_code_page_mended_by_the_monthly_job(tmp_path, capsys):
    # officer9 #6: recalculate --encoding cp1252 (wrong), the file put back, cp1250
    inbox = Path("inbox")
    (inbox / "players").mkdir(parents=True)
    Path("inbox/players/hu.csv").write_bytes(HU.encode("cp1250"))
    Path("inbox/g.csv").write_text("date,white_id,black_id,result\n2026-08-05,11,12,1-0\n")
    args = ["recalculate", "--inbox", "inbox", "--store", "R", "--systems", "elo"]
    assert main([*args, "--encoding", "cp1252"]) == 0
    assert names("R") == ["Szûcs, Ödön", "Kiss, Béla"]
    Path("inbox/processed/hu.csv").rename("inbox/players/hu.csv")
    capsys.readouterr()
    assert main([*args, "--encoding", "cp1250"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert (
        "  note: --encoding cp1250 reads these bytes otherwise than their stored version "
        "(read as Windows-1252): stored again, a new version of hu.csv"
    ) in err
    assert names("R") == ["Szűcs, Ödön", "Kiss, Béla"]


def test_a_czech_pgn_is_hinted_and_read_again_its_games_renamed(tmp_path, capsys):
    text = PGN.format(n=1, white="Opočenský, Karel", black="Réti, Richard") + PGN.format(
        n=2, white="Treybal, Karel", black="Opočenský, Karel"
    )
    Path("brno.pgn").write_bytes(text.encode("cp1250"))
    # historian9 #4: no hint at all for è (Czech č), the most common Czech letter
    first = out_of(capsys, ["ingest", "brno.pgn", "--store", "P"])
    assert "  note: " + WESTERN_HINT.format("'è' (Windows-1250: 'č')") in first
    again = out_of(capsys, ["ingest", "brno.pgn", "--store", "P", "--encoding", "cp1250"])
    assert again[0] == (
        "brno.pgn: 2 rows read, 2 games stored, 0 quarantined; replaced the earlier version "
        "of brno.pgn (2 games removed, 2 added, 0 changed)"
    )
    capsys.readouterr()
    sql = "select white_id, black_id from games order by source"
    assert main(["sql", sql, "--store", "P", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        '"brno.pgn:Opočenský, Karel","brno.pgn:Réti, Richard"',
        '"brno.pgn:Treybal, Karel","brno.pgn:Opočenský, Karel"',
    ]
    # a copy under another name: not read again, the skip says how
    Path("copy.pgn").write_bytes(Path("brno.pgn").read_bytes())
    assert out_of(capsys, ["ingest", "copy.pgn", "--store", "P", "--encoding", "cp1252"]) == [
        "copy.pgn: skipped, identical content already ingested as brno.pgn (--encoding cp1252 "
        "not applied: these bytes are stored as the source brno.pgn, read as Windows-1250; "
        "to read that source in cp1252: arpad ingest brno.pgn --encoding cp1252, or this "
        "file with --source brno.pgn --encoding cp1252)"
    ]


def test_a_utf8_file_stored_is_skipped_saying_the_code_page_is_not_for_it(tmp_path, capsys):
    Path("u.csv").write_text(HU)
    out_of(capsys, ["ingest", "--players", "u.csv", "--store", "U"])
    assert out_of(
        capsys, ["ingest", "--players", "u.csv", "--store", "U", "--encoding", "cp1250"]
    ) == [
        "u.csv: skipped, identical content already ingested as u.csv (valid UTF-8: "
        "--encoding cp1250 is for files that are not)"
    ]
    assert Store("U").read_manifest().num_rows == 1


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("Opočenský, Karel", "'è' (Windows-1250: 'č')"),
        ("Kolář, Oldřich", "'ø' (Windows-1250: 'ř')"),
        ("Kaňa, Jan", "'ò' (Windows-1250: 'ň')"),
        ("Ďurica, Ján", "'Ï' (Windows-1250: 'Ď')"),
    ],
)
def test_central_european_letters_weighed_neither_way_are_hinted(name, hint):
    notes: list[str] = []
    text = decode(name.encode("cp1250"), Path("x.csv"), notes)
    assert text == name.encode("cp1250").decode("cp1252")  # still read as Western
    assert notes == [WESTERN_HINT.format(hint)]


def test_western_names_get_no_hint_and_french_stays_western():
    notes: list[str] = []
    text = "Réti, Richard;Müller, Hans;Lépine, Paul;Hübner, Robert"
    assert decode(text.encode("cp1252"), Path("w.csv"), notes) == text
    assert notes == ["not valid UTF-8; decoded as Latin-1 (Windows-1252)"]
    notes = []
    assert decode("Molière, Jean".encode("cp1252"), Path("f.csv"), notes) == "Molière, Jean"
    assert notes == [WESTERN_HINT.format("'è' (Windows-1250: 'č')")]
