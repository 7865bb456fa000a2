"""A historian's PGN files against the reader: the shapes real databases write
(docs/pgn-trf.md). python-chess, which parses the whole movetext, is the reference
for what is a move and what is a comment (PGN Standard §8.2.5: ``{ }`` comments run
over lines, ``;`` comments to the end of the line)."""

from __future__ import annotations

import io
import re
import tempfile
import unicodedata
from pathlib import Path

import chess.pgn
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store


def sql(store: Path, query: str) -> pl.DataFrame:
    from arpad.pipeline import catalog

    con = catalog.connect(Store(store))
    try:
        return catalog.query_frame(con, query)
    finally:
        con.close()


TAGS = (
    '[Event "Hastings"]\n[Site "Hastings"]\n[Date "{date}"]\n[Round "{rnd}"]\n'
    '[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
)


def game(movetext: str, result: str = "1-0", date: str = "1895.08.05", rnd: str = "1",
         white: str = "Pillsbury, Harry Nelson", black: str = "Tarrasch, Siegbert") -> str:  # fmt: skip
    return (
        TAGS.format(date=date, rnd=rnd, white=white, black=black, result=result) + movetext + "\n\n"
    )


def read(tmp_path: Path, text: str | bytes, name: str = "h.pgn"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return read_pgn(path)


def python_chess(text: str) -> list[tuple[str, bool]]:
    """(Result, has a move) per game, by python-chess."""
    out, fh = [], io.StringIO(text)
    while (g := chess.pgn.read_game(fh)) is not None:
        out.append((g.headers["Result"], g.next() is not None))
    return out


def stored(raw) -> list[tuple[str, bool]]:
    """(result, has a move) per stored game: a game without a move is stored unrated."""
    return [(r, rated != "false") for r, rated in raw.frame.select("result", "rated").rows()]


# Annotated games of old events open with the annotator's words over several lines.
ANNOTATED = [
    "{This game was played in the\nfirst round.}\n1. e4 e5 2. Nf3 1-0",
    "; annotated by Steinitz\n; International Chess Magazine\n1. e4 e5 2. Nf3 1-0",
    "{Notes by Steinitz}\n{Source: the tournament book}\n1. e4 e5 2. Nf3 1-0",
    "{A long note\nover three\nlines} 1. e4 $1 e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 $2 1-0",
]


def test_annotated_game_opening_with_comment_lines_is_played_and_rated(tmp_path):
    for k, movetext in enumerate(ANNOTATED):
        text = game(movetext)
        raw = read(tmp_path, text, f"a{k}.pgn")
        assert not raw.problems, movetext
        assert stored(raw) == python_chess(text) == [("1-0", True)], movetext
        assert raw.frame["rated"].to_list() == [None]  # rated, not a forfeit


def test_comment_only_movetext_over_three_lines_is_a_forfeit(tmp_path):
    text = game("{White did not\nshow up for the\ngame: forfeit} 1-0")
    raw = read(tmp_path, text)
    assert stored(raw) == python_chess(text) == [("1-0", False)]
    assert raw.frame["rated"].to_list() == ["false"]


def test_line_comment_after_the_termination_marker(tmp_path):
    # "1-0 ; resigns" and a comment line after the result: the marker is the last
    # text outside the comments (was: truncated_game, the game quarantined)
    text = game("1. e4 e5 2. Qh5 1-0 ; Black resigned") + game(
        "1. e4 e5 0-1\n{Black won on time}", result="0-1", rnd="2"
    )
    raw = read(tmp_path, text)
    assert not raw.problems
    assert stored(raw) == python_chess(text) == [("1-0", True), ("0-1", True)]


def test_marker_inside_a_comment_is_not_the_result(tmp_path):
    text = game("1. e4 e5 {White wins 1-0}", rnd="1") + game("1. d4 d5 1-0", rnd="2")
    raw = read(tmp_path, text)
    assert [p[1] for p in raw.problems] == ["truncated_game"]
    assert raw.problems[0][0] == 1  # the first game's first tag line
    assert stored(raw) == [("1-0", True)]


def test_windows_1252_names_of_a_chessbase_export(tmp_path):
    # ChessBase writes Windows-1252: 0x8A is Š, 0x9E is ž (Latin-1 would make them C1 controls)
    text = game("1. e4 e5 1-0", white="Šmejkal, Jan", black="Ljubojević, Ljubomir")
    data = text.replace("ć", "c").encode("cp1252")
    assert b"\x8amejkal" in data
    raw = read(tmp_path, data + game("1. d4 1-0", white="Gheorghiu, Florin", black="Žnuderl, Vladimir", rnd="2").encode("cp1252"))  # fmt: skip
    assert raw.frame["white_id"].to_list() == ["h.pgn:Šmejkal, Jan", "h.pgn:Gheorghiu, Florin"]
    assert raw.frame["black_id"].to_list()[1] == "h.pgn:Žnuderl, Vladimir"
    assert any("Latin-1" in n for n in raw.notes)
    # the five bytes Windows-1252 leaves undefined stay Latin-1 (the line is not lost)
    odd = read(
        tmp_path,
        game("1. e4 1-0", white="X").encode("ascii").replace(b'"X"', b'"X\x81\xe9"'),
        "odd.pgn",
    )
    assert odd.frame["white_id"].to_list() == ["odd.pgn:X\x81é"]


def test_shortened_dates_keep_their_year_and_month(tmp_path):
    text = (
        game("1. e4 1-0", date="1924.07", rnd="1")
        + game("1. e4 1-0", date="1924", rnd="2")
        + game("1. e4 1-0", date="1924.??", rnd="3")
        + game("1. e4 1-0", date="1924.??.??", rnd="4")
        + game("1. e4 1-0", date="1924.07.??", rnd="5")
    )
    raw = read(tmp_path, text)
    assert not raw.problems
    assert raw.frame.select("period", "date", "date_precision").rows() == [
        ("192407", None, "month"),
        ("192412", None, "year"),
        ("192412", None, "year"),
        ("192412", None, "year"),
        ("192407", None, "month"),
    ]


def test_composed_and_decomposed_spellings_are_one_player_and_one_game(tmp_path):
    nfc = unicodedata.normalize("NFC", "Réti, Richard")
    nfd = unicodedata.normalize("NFD", "Réti, Richard")
    assert nfc != nfd
    raw = read(tmp_path, game("1. Nf3 1-0", white=nfc) + game("1. Nf3 0-1", white=nfd, rnd="2", result="0-1"))  # fmt: skip
    assert raw.frame["white_id"].to_list() == [f"h.pgn:{nfc}"] * 2
    # the same game, once written by a Windows tool and once by a macOS one, has one key
    a = read(tmp_path, game("1. Nf3 1-0", white=nfc), "a.pgn").frame["game_id"][0]
    b = read(tmp_path, game("1. Nf3 1-0", white=nfd), "b.pgn").frame["game_id"][0]
    assert a == b == f"pgn:Hastings|Hastings|1895.08.05|1|{nfc}|Tarrasch, Siegbert"


def test_hostile_collection_every_game_stored_or_quarantined(tmp_path, capsys):
    """One file with every shape at once, through `arpad ingest`: each game is stored
    or quarantined with its reason, and the exit code says so."""
    games = [
        game("{Notes by\nLasker.}\n1. e4 e5 1-0", rnd="1"),
        game("1. e4 $1 e5 (1... c5) 2. Nf3 1/2-1/2", result="1/2-1/2", rnd="2"),
        "% a line the PGN standard lets a program ignore\n",
        game("1. d4 d5 *", result="*", rnd="3"),  # unfinished: quarantined
        game("1-0", rnd="4"),  # forfeit: stored, not rated
        game("1. c4 0-1 ; lost on time", result="0-1", date="1895.08", rnd="5"),
        game("1. e4 1-0", white='O\\"Kelly, A.', rnd="6"),
        game("1. e4 1-0", date="????.??.??", rnd="7"),  # no date at all: quarantined
    ]
    text = "\ufeff" + "".join(games).replace("\n", "\r\n")
    path = tmp_path / "hastings1895.pgn"
    path.write_text(text, encoding="utf-8")
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 2
    out = capsys.readouterr()
    assert "7 rows read, 5 games stored, 2 quarantined" in out.out + out.err
    g = sql(store, "SELECT * FROM games")
    g = g.sort(g["source"].str.extract(r":(\d+)$").cast(pl.Int64))
    assert g["score"].to_list() == [1.0, 0.5, 1.0, 0.0, 1.0]
    assert g["rated"].to_list() == [True, True, False, True, True]
    assert g["white_id"][4] == 'hastings1895.pgn:O"Kelly, A.'
    assert g["period"].to_list()[3] == 189508
    q = sql(store, "SELECT * FROM quarantine ORDER BY line")
    assert q["reason"].to_list() == ["unfinished_game", "missing_period"]


# Property: generated movetext (comments over lines, ';' comments, NAGs, variations,
# '%' lines) is read as python-chess reads it.
MAIN = ["1.", "e4", "e5", "2.", "Nf3", "Nc6", "3.", "Bb5", "a6"]
WORD = st.sampled_from(["Nice", "1-0", "0-1", "*", "$1", "(", ")", "e4", ";", "1/2-1/2"])
COMMENT = st.lists(st.one_of(WORD, st.just("\n")), max_size=6).map(
    lambda w: "{" + " ".join(w).replace("\n ", "\n") + "}"
)
LINE_COMMENT = st.lists(WORD, max_size=4).map(lambda w: "; " + " ".join(w) + "\n")
EXTRA = st.one_of(
    COMMENT, LINE_COMMENT, st.just("$14"), st.just("\n"), st.just("\n% escaped line\n")
)


@st.composite
def movetexts(draw) -> str:
    n = draw(st.integers(0, len(MAIN)))
    parts = [draw(st.lists(EXTRA, max_size=3).map(" ".join))]
    for tok in MAIN[:n]:
        parts.append(tok)
        if tok == "e4" and draw(st.booleans()):
            parts.append("(1. d4 d5)")  # a variation replacing 1. e4
        parts.append(draw(st.lists(EXTRA, max_size=2).map(" ".join)))
    result = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2"]))
    tail = draw(st.sampled_from(["", " {end}", " ; end", "\n{end}", "\n; end"]))
    # no blank line inside the movetext: python-chess ends a game's movetext there
    text = re.sub(r"\n\s*\n", "\n", " ".join(parts) + " " + result + tail)
    return text.lstrip(), result


@settings(max_examples=150, deadline=None)
@given(st.lists(movetexts(), min_size=1, max_size=4), st.sampled_from(["\n", "\r\n"]))
def test_movetext_read_as_python_chess_reads_it(texts, newline):
    text = "".join(game(m, result=r, rnd=str(k + 1)) for k, (m, r) in enumerate(texts))
    text = text.replace("\n", newline)
    with tempfile.TemporaryDirectory() as tmp:
        raw = read(Path(tmp), text)
    assert not raw.problems
    assert stored(raw) == python_chess(text)


def test_tag_pair_shapes_of_the_import_format(tmp_path):
    # PGN Standard §8.1: "PGN import format may have multiple tag pairs on the same
    # line" and white space may stand between any two tokens of a pair (python-chess
    # reads one pair per line, so it is no reference here). Also a value with
    # unescaped quotes, as sloppy exports write it, beside an escaped one.
    text = (
        '[Event "Vienna"] [Site "Vienna"] [Date "1882.05.10"] [Round "1"]\n'
        '[White"Steinitz, William"][Black "Weiss, Max" ]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
        '[Event "The "Big" one"]\n[Site "Vienna"]\n[Date "1882.05.11"]\n[Round "2"]\n'
        '[White "Mason, James"]\n[Black "O\\"Hanlon, J."]\n[Result "0-1"]\n\n1. d4 0-1\n\n'
    )
    raw = read(tmp_path, text)
    assert not raw.problems
    assert raw.frame.select("event_id", "white_id", "black_id", "result").rows() == [
        ("Vienna", "h.pgn:Steinitz, William", "h.pgn:Weiss, Max", "1-0"),
        ('The "Big" one', "h.pgn:Mason, James", 'h.pgn:O"Hanlon, J.', "0-1"),
    ]
    assert raw.frame["game_id"][0] == "pgn:Vienna|Vienna|1882.05.10|1|Steinitz, William|Weiss, Max"


def test_a_broken_tag_line_is_quarantined_naming_its_line(tmp_path):
    text = '[Event "Vienna"]\n[Site "Vienna" x]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    raw = read(tmp_path, text)
    assert [(p[0], p[1]) for p in raw.problems] == [(1, "malformed_row")]
    assert "malformed tag line 2" in raw.problems[0][2]


def test_tags_without_movetext_are_quarantined_as_such(tmp_path):
    # a header-only export: quarantined (PGN Standard §8.2.6: every game ends with a
    # termination marker), and the reason says what is missing instead of "truncated?"
    text = game("1. e4 e5 1-0", rnd="1").replace("1. e4 e5 1-0\n", "") + game("1. d4 1-0", rnd="2")
    raw = read(tmp_path, text)
    assert [(p[0], p[1], p[2]) for p in raw.problems] == [
        (1, "truncated_game", "tags without movetext (no moves, no termination marker)")
    ]
    cut = read(tmp_path, game("1. e4 e5 1-0")[:-6], "cut.pgn")
    assert "file truncated?" in cut.problems[0][2]


def test_performance_of_an_unrated_historical_file_says_why_it_is_empty(shared_data, capsys):
    path = shared_data / "pgn" / "WorldChamp1886.pgn"
    assert main(["performance", str(path), "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert out.out.strip().splitlines() == [
        "player_id,games,score,percent,average_opponent,fide,linear,true,virtual_draw,curve"
    ]
    assert "none of its 20 games has an opponent with a rating" in out.err


def test_rules_at_a_date_before_the_oldest_version_says_so(capsys):
    assert main(["rules", "--at", "1886"]) == 0
    err = capsys.readouterr().err
    assert "1886-12-01 is before the oldest version arpad carries (2000-01-01)" in err
    assert main(["rules", "--at", "2015-03"]) == 0
    assert "before the oldest version" not in capsys.readouterr().err


def test_trf_of_a_windows_program_keeps_its_names(shared_data, tmp_path):
    from arpad.pipeline.trf import read_trf

    text = (shared_data / "trf" / "fide_example1_karl_mala_2005.trf").read_bytes().decode("latin-1")
    assert "Vasquez,Rodrigo " in text
    text = text.replace("Vasquez,Rodrigo ", "Šmejkal,Jan     ").replace("\n", "\r\n")
    path = tmp_path / "k.trf"
    path.write_bytes(text.encode("cp1252"))
    raw = read_trf(path)
    names = dict(zip(raw.players["player_id"], raw.players["name"]))
    assert names["3400042"] == "Šmejkal,Jan"


def test_files_joined_with_cat_each_with_its_byte_order_mark(tmp_path):
    # `cat a.pgn b.pgn > all.pgn` of two Windows exports: a BOM before b's first tag
    # (was: a's last game truncated_game, b's first game without its Event tag)
    a = "\ufeff" + game("1. e4 1-0", rnd="1")
    b = "\ufeff" + game("1. d4 1-0", rnd="2").replace("\n", "\r\n")
    raw = read(tmp_path, a + b)
    assert not raw.problems
    assert raw.frame.select("event_id", "result", "rated").rows() == [
        ("Hastings", "1-0", None),
        ("Hastings", "1-0", None),
    ]
    assert raw.frame["game_id"][1].startswith("pgn:Hastings|Hastings|1895.08.05|2|")


def test_pgn_file_under_another_name_is_refused_with_a_hint(tmp_path, capsys):
    path = tmp_path / "hastings.txt"
    path.write_text(game("1. e4 1-0"))
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"arpad: error: {path}:1: header")
    assert err[0].endswith("it looks like PGN: use --format pgn")
    assert main(["ingest", str(path), "--format", "pgn", "--store", str(store)]) == 0


def test_category_of_an_event_without_rated_players_is_unknown(shared_data, capsys):
    # the 1886 match has no Elo tags: no average, so no category (was 0, "below 1")
    path = shared_data / "pgn" / "WorldChamp1886.pgn"
    assert main(["category", str(path), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "event_id,players,rated_players,average,average_rounded,category"
    assert lines[1].startswith("World Championship 1st,2,0,") and lines[1].endswith(",,")
    assert main(["category", "--average", "2276"]) == 0  # a real average keeps its band
    assert capsys.readouterr().out.strip().endswith("2")


def test_a_brace_never_closed_ends_with_its_line(tmp_path):
    # the stray '{' swallows the rest of its line only (docs/pgn-trf.md): the result
    # after it is comment text, and the next games are read as they are
    text = (
        game("1. e4 {oops 1-0", rnd="1")
        + game("1. d4 1-0", rnd="2")
        + game('1. c4 {a\n[Event "inside a comment"]\nb} 1-0', rnd="3")
    )
    raw = read(tmp_path, text)
    assert [(p[0], p[1]) for p in raw.problems] == [(1, "truncated_game")]
    assert raw.frame.select("event_id", "result").rows() == [("Hastings", "1-0")] * 2
