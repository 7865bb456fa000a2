"""Round 9 (historian9, defects 2 and 3): a PGN's notes on games "stored, not rated"
count the games stored, not those quarantined as well; ``--encoding`` on a valid
UTF-8 PGN file gives the note a CSV file gets (docs/pgn-trf.md "Reading PGN",
docs/ingest.md "Encodings")."""

from __future__ import annotations

import warnings

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql

ODDS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1"  # knight odds


def game(rnd, black, result, moves, date="1859.??.??", **extra) -> str:
    tags = {"Event": "Casual", "Site": "Paris", "Date": date, "Round": rnd}
    tags |= {"White": "Morphy, Paul", "Black": black, "Result": result, **extra}
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return f"{head}\n{moves}\n\n"


# The report's file: nothing is stored (an unknown player twice, a `*`)
REPORTED = (
    game("?", "NN", "1-0", "1-0")
    + game("?", "Amateur", "1-0", "1. e4 e5 1-0", FEN=ODDS, Variant="Chess960")
    + game("?", "Harrwitz, Daniel", "*", "*")
)
# ... and games stored not rated, one of each kind, beside others quarantined by
# validation (a WhiteElo that is no rating, a date not reached yet)
MIXED = (
    REPORTED
    + game("4", "Anderssen, Adolf", "1/2-1/2", "1/2-1/2")  # stored, without moves
    + game("5", "Anderssen, Adolf", "1-0", "1. e4 1-0", WhiteElo="abc", Variant="Chess960")
    + game("6", "Loewenthal, Johann", "1-0", "1. e4 1-0", date="2999.??.??", FEN=ODDS)
    + game("7", "Loewenthal, Johann", "1-0", "1. e4 1-0", FEN=ODDS)  # stored, set-up
    + game("8", "Bird, Henry", "0-1", "1. e4 0-1", Variant="Crazyhouse")  # stored, variant
)
MOVELESS = (
    "1 game(s) without moves (a forfeit, or a result whose moves were not kept), "
    "1 of them draws: stored, not rated (--rate-moveless rates them)"
)
VARIANT = "1 game(s) of another variant (Variant tag: Crazyhouse): stored, not rated"
SET_UP = (
    "1 game(s) from a set-up position (FEN other than the initial position: "
    "odds games, studies): stored, not rated"
)
UNRATED = ("game(s) without moves", "game(s) of another variant", "game(s) from a set-up")


def unrated(notes: list[str]) -> list[str]:
    return [n for n in notes if any(u in n for u in UNRATED)]


def test_the_reported_file_stores_nothing_and_notes_nothing_stored(tmp_path, capsys):
    # was: "2 game(s) without moves …: stored, not rated" and "1 game(s) of another
    # variant (Variant tag: Chess960): stored, not rated" beside "0 games stored"
    path = tmp_path / "nn.pgn"
    path.write_text(REPORTED)
    assert main(["ingest", str(path), "--store", str(tmp_path / "S"), "--no-flow"]) == 2
    out = capsys.readouterr().out
    assert "nn.pgn: 3 rows read, 0 games stored, 3 quarantined" in out
    assert "stored, not rated" not in out
    assert "2 game(s) against an unknown player" in out  # quarantined, and said so
    # a lone '-' against a name is a bye now (tests/test_pgn_byes.py), not an unknown
    assert "(name '?', 'NN', 'N.N.', 'Amateur', 'Unknown' or 'Anonymous'; '-' against no" in out


def test_ingest_counts_only_the_games_stored(tmp_path):
    path = tmp_path / "mix.pgn"
    path.write_text(MIXED)
    report = ingest_file(Store(tmp_path / "S"), path)
    assert (report.rows, report.accepted, report.quarantined) == (8, 3, 5)
    assert report.reasons == {
        "bad_rating": 1,
        "empty_player_id": 2,
        "period_out_of_range": 1,
        "unfinished_game": 1,
    }
    # was: 3 without moves (2 of them quarantined), 3 of another variant (Chess960,
    # Crazyhouse; 2 quarantined), 2 from a set-up position (1 quarantined)
    assert unrated(report.notes) == [MOVELESS, VARIANT, SET_UP]


def test_rate_moveless_counts_only_the_games_stored(tmp_path):
    path = tmp_path / "mix.pgn"
    path.write_text(MIXED)
    report = ingest_file(Store(tmp_path / "S"), path, rate_moveless=True)
    assert report.accepted == 3
    rated = (
        "1 game(s) without moves, 1 of them draws: stored and rated "
        "(--rate-moveless: results whose moves were not kept)"
    )
    assert unrated(report.notes) == [rated, VARIANT, SET_UP]


def test_reading_alone_leaves_out_the_unknown_players_and_unfinished_games(tmp_path):
    # read_pgn (arpad.rate(FILE), norm, category) cannot know validation's verdicts;
    # it leaves out the games it knows are quarantined: no id, result "*"
    path = tmp_path / "mix.pgn"
    path.write_text(MIXED)
    notes = unrated(read_pgn(path).notes)
    assert notes == [
        MOVELESS,
        "2 game(s) of another variant (Variant tag: Chess960, Crazyhouse): stored, not rated",
        SET_UP.replace("1 game(s)", "2 game(s)"),
    ]


UTF8_NOTE = "valid UTF-8: read as UTF-8 (--encoding cp1252 is for files that are not)"


def test_encoding_on_a_utf8_pgn_gives_the_csv_note(tmp_path, capsys):
    path = tmp_path / "u.pgn"
    path.write_text(game("1", "Löwenthal, Johann Jakob", "0-1", "1. e4 0-1"), encoding="utf-8")
    store = str(tmp_path / "S")
    assert main(["ingest", str(path), "--store", store, "--no-flow", "--encoding", "cp1252"]) == 0
    out = capsys.readouterr().out
    assert f"note: {UTF8_NOTE}" in out
    # the name is read as UTF-8
    assert sql(store, "SELECT name FROM players ORDER BY name")["name"].to_list() == [
        "Löwenthal, Johann Jakob",
        "Morphy, Paul",
    ]
    # not without --encoding, nor with --encoding utf-8
    for extra in ([], ["--encoding", "utf-8"]):
        s2 = str(tmp_path / f"S{len(extra)}")
        assert main(["ingest", str(path), "--store", s2, "--no-flow", *extra]) == 0
        assert "valid UTF-8" not in capsys.readouterr().out


def test_encoding_on_a_utf8_pgn_in_the_api_and_in_a_gz_and_zip(tmp_path):
    import gzip
    import zipfile

    text = game("1", "Löwenthal, Johann Jakob", "0-1", "1. e4 0-1")
    path = tmp_path / "u.pgn"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = arpad.Store(tmp_path / "A").ingest(path, encoding="cp1252")
    note = "valid UTF-8: read as UTF-8 (encoding='cp1252' is for files that are not)"
    assert note in report.files[0].notes
    gz = tmp_path / "u.pgn.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    with zipfile.ZipFile(tmp_path / "u.zip", "w") as z:
        z.writestr("u.pgn", text)
    for name, said in (("u.pgn.gz", UTF8_NOTE), ("u.zip", f"zip member u.pgn: {UTF8_NOTE}")):
        got = arpad.pipeline.readers.read_any(tmp_path / name, encoding="cp1252").notes
        assert said in got, name


def test_encoding_on_a_utf8_trf_gives_the_note_too(tmp_path):
    # (TRF decodes with readers.decode: it had the note; a guard)
    from arpad.pipeline.readers import read_any

    a = "001    1 m    Aa, Anna                          2200 GER      100001 1990/01/01  1.0    1     2 w 1"
    b = "001    2 m    Bb, Bert                          2100 GER      100002 1990/01/01  0.0    2     1 b 0"
    path = tmp_path / "t.trf"
    path.write_text("012 Turnier München\n042 2024/03/01\n" + a + "\n" + b + "\n")
    assert UTF8_NOTE in read_any(path, encoding="cp1252").notes
