"""A historian's sources, round 4 (docs/pgn-trf.md "Historian's sources, round 4"):
one game of London 1851 in two collections with incomplete dates (a move digest
tells it is one game), then the Python API as a historian's notebook uses it.
References: the real files, a second store built from one file only, python-chess's
reading of the moves, and hand-made files whose answer is known."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from tests.test_historian_attack import sql
from tests.test_historian_attack3 import ratings, split_games

LONDON = "London1851.pgn"


def game(moves: str, white="Anderssen, Adolf", black="Staunton, Howard", result="1-0", **tags):
    head = {"Event": "X", "Site": "London", "Date": "1851.??.??", "Round": "?"}
    head.update(tags)
    head.update(White=white, Black=black, Result=result)
    text = "".join(f'[{k} "{v}"]\n' for k, v in head.items())
    return f"{text}\n{moves} {result}\n\n"


def digests(tmp_path: Path, *texts: str) -> list[int | None]:
    path = tmp_path / "d.pgn"
    path.write_text("".join(texts), encoding="utf-8")
    return read_pgn(path).frame.get_column("moves_digest").to_list()


# -- defect 1: incomplete dates across collections ---------------------------------------


def test_move_digest_ignores_notation_comments_variations_and_layout(tmp_path):
    plain = "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O Nf6 5.d4 exd4 6.Re1+ Kf8"
    same = [
        plain,
        # spaces after move numbers, black's move numbers, zeros for castling
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 3... Bc5 4. 0-0 Nf6 5. d4 exd4 6. Re1+ Kf8",
        # comments, NAGs, annotation marks, a nested variation, a ; comment, lines
        "1.e4 {the king's pawn} e5 $1 2.Nf3! Nc6 (2...d6 3.d4 (3.Bc4 Be7) exd4)\n"
        "3.Bc4 Bc5 4.O-O!? ; castles\nNf6 5.d4 exd4 6.Re1 Kf8",
        # check mark left out, capture mark left out, lower-case castling
        "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.o-o Nf6 5.d4 ed4 6.Re1 Kf8",
        # a comment spanning lines
        "1.e4 e5 {a long\ncomment (with a paren) over\nthree lines} 2.Nf3 Nc6 3.Bc4 Bc5 "
        "4.O-O Nf6 5.d4 exd4 6.Re1+ Kf8",
    ]
    other = [
        "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O Nf6 5.d4 exd4 6.Re1+ Kg8",  # last move differs
        "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O-O Nf6 5.d4 exd4 6.Re1+ Kf8",  # long castling
        "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O Nf6 5.d4 exd4",  # shorter
    ]
    got = digests(tmp_path, *(game(m) for m in same + other))
    assert len(set(got[: len(same)])) == 1 and got[0] is not None
    assert len(set(got)) == 1 + len(other)
    # a forfeit (no moves) has no digest; the result does not enter it
    assert digests(tmp_path, game(""), game(plain, result="0-1"))[0] is None
    assert digests(tmp_path, game(plain, result="0-1"))[0] == got[0]


def test_move_digest_agrees_with_python_chess_main_line(shared_data, tmp_path):
    """Every game of London1851.pgn re-written from python-chess's main line in
    another layout (move numbers spaced, one move per line, 0-0) has the digest of
    the real file's game."""
    import io

    import chess.pgn

    real = shared_data / "pgn" / LONDON
    text = real.read_text(encoding="utf-8")
    ours = read_pgn(real).frame.get_column("moves_digest").to_list()
    rewritten = []
    stream = io.StringIO(text)
    while (g := chess.pgn.read_game(stream)) is not None:
        board = g.board()
        sans = []
        for move in g.mainline_moves():
            san = board.san(move).replace("O", "0")
            sans.append(f"{board.fullmove_number}. {san}" if board.turn else san)
            board.push(move)
        rewritten.append(game("\n".join(sans), result=g.headers["Result"]))
    assert len(rewritten) == len(ours) == 251
    assert digests(tmp_path, *rewritten) == ours
    assert None not in ours


def respell4(text: str, k: int) -> str:
    """London 1851 as another collection gives it: Site and Round spelt otherwise,
    the month known for some games, the moves with spaced numbers, 0-0 castling, no
    check marks, a comment and a NAG."""
    text = text.replace('[Site "London"]', '[Site "London ENG"]')
    text = text.replace('[Round "?"]', f'[Round "{k + 1}"]')
    if k % 2 == 0:
        text = text.replace('[Date "1851.??.??"]', '[Date "1851.07.??"]')
    head, _, moves = text.partition("\n\n")
    moves = re.sub(r"(\d+)\.(?=\S)", r"\1. ", moves).replace("+", "")
    moves = re.sub(r"O-O(-O)?", lambda m: m[0].replace("O", "0"), moves)
    moves = moves.replace(" e5 ", " e5 {the classical reply} $1 ", 1)
    return f"{head}\n\n{moves}"


@pytest.fixture(scope="module")
def london(shared_data, tmp_path_factory):
    """London1851.pgn, and a second collection holding 30 of its games re-spelt,
    one of them with a move changed (another game), one as a forfeit (no moves):
    ingested together (store A), and London1851.pgn alone (store L)."""
    tmp = tmp_path_factory.mktemp("london")
    real = shared_data / "pgn" / LONDON
    games = split_games(real.read_text(encoding="utf-8"))
    chosen = list(range(0, 240, 8))
    other = [respell4(games[i], n) for n, i in enumerate(chosen)]
    # the last chosen game with one move changed: another game, not a copy
    changed = other[-1]
    head, _, moves = changed.partition("\n\n")
    first = re.search(r"\b2\. (\S+)", moves)
    other[-1] = head + "\n\n" + moves[: first.start(1)] + "a3" + moves[first.end(1) :]
    # the one before as a header-only forfeit: without moves, today's rule (no date)
    head, _, _ = other[-2].partition("\n\n")
    result = re.search(r'\[Result "([^"]+)"\]', head)[1]
    other[-2] = f"{head}\n\n{result}\n"
    second = tmp / "Anderssen_collection.pgn"
    second.write_text("\n".join(other) + "\n", encoding="utf-8")
    a, lo = tmp / "A", tmp / "L"
    code = main(["ingest", str(real), "--store", str(a), "--no-flow"])
    assert code == 0
    code2 = main(["ingest", str(second), "--store", str(a), "--no-flow"])
    main(["ingest", str(real), "--store", str(lo), "--no-flow"])
    for store in (a, lo):
        assert main(["rate", "--store", str(store), "--system", "elo", "--no-flow"]) == 0
    return a, lo, code2, len(chosen)


def test_london_1851_respelt_with_incomplete_dates_counts_once(london):
    a, lo, code, n = london
    assert code == 2  # rows were quarantined
    q = sql(a, "SELECT reason, detail FROM quarantine WHERE reason = 'probable_duplicate'")
    assert q.height == n - 2  # all but the changed game and the forfeit
    details = q.get_column("detail").to_list()
    assert all("same White, Black, result and moves" in d for d in details)
    assert any("1851.07.?? and 1851.??.??" in d for d in details)
    assert any("1851.??.?? and 1851.??.??" in d for d in details)
    games = sql(a, "SELECT count(*) AS n FROM games").item()
    assert games == 251 + 2  # London 1851, the changed game and the forfeit
    # the rated games are London's plus the changed one (the forfeit is not rated)
    rated = sql(a, "SELECT count(*) FROM games WHERE rated").item()
    assert rated == sql(lo, "SELECT count(*) FROM games WHERE rated").item() + 1


def test_london_players_not_in_the_changed_game_rate_as_london_alone(london):
    a, lo, _, _ = london
    alone = ratings(lo, "elo")
    both = ratings(a, "elo")
    stored = sql(a, "SELECT white_id, black_id FROM games WHERE source LIKE 'Anderssen%'")
    touched = {x for row in stored.iter_rows() for x in row}
    # players of the second file: their own ids; London's players by name
    assert all(p.startswith("Anderssen_collection.pgn:") for p in touched)
    for player, rating in alone.items():
        assert both[player] == pytest.approx(rating, abs=1e-9), player


def test_complete_dates_keep_the_round_3_rule(tmp_path):
    """Two games of one complete date between the same players with the same result:
    still probable duplicates when their moves differ (a transcription slip), and
    the stored game with the same moves is the one named."""
    s = tmp_path / "s"
    one = tmp_path / "one.pgn"
    one.write_text(
        game("1.e4 e5 2.Nf3 Nc6", Date="1851.07.01", Round="1")
        + game("1.d4 d5 2.c4 e6", Date="1851.07.01", Round="2"),
        encoding="utf-8",
    )
    two = tmp_path / "two.pgn"
    two.write_text(game("1. d4 d5 2. c4 e6", Date="1851.07.01", Round="b"), encoding="utf-8")
    assert main(["ingest", str(one), "--store", str(s), "--no-flow"]) == 0
    assert main(["ingest", str(two), "--store", str(s), "--no-flow"]) == 2
    detail = sql(s, "SELECT detail FROM quarantine").item()
    assert "stored from one.pgn:" in detail and "and moves" in detail
    line = int(re.search(r"one\.pgn:(\d+)", detail)[1])
    assert line > 8  # the second game of one.pgn, whose moves are the same


def test_year_only_games_with_other_moves_are_other_games(tmp_path):
    """Capablanca-Marshall 1909: many year-only draws between them; a second file with
    the same players, year and result but other moves adds games."""
    s = tmp_path / "s"
    one = tmp_path / "one.pgn"
    one.write_text(game("1.e4 e5 2.Nf3 Nc6", result="1/2-1/2"), encoding="utf-8")
    two = tmp_path / "two.pgn"
    two.write_text(
        game("1.d4 d5", result="1/2-1/2", Date="1851.03.??")
        + game("1.e4 e5 2.Nf3 Nc6", result="1/2-1/2", Date="1852.??.??")  # another year
        + game("1.e4 e5 2.Nf3 Nc6", result="1-0", Date="1851.03.??"),  # another result
        encoding="utf-8",
    )
    assert main(["ingest", str(one), "--store", str(s), "--no-flow"]) == 0
    # the same moves with another result: that game, its result corrected, not applied
    # (conflicting_result since historian round 11, tests/test_historian_r11_duplicates.py)
    assert main(["ingest", str(two), "--store", str(s), "--no-flow"]) == 2
    assert sql(s, "SELECT reason FROM quarantine").item() == "conflicting_result"
    assert sql(s, "SELECT count(*) FROM games").item() == 3


def test_months_that_disagree_are_other_games(tmp_path):
    s = tmp_path / "s"
    one = tmp_path / "one.pgn"
    one.write_text(game("1.e4 e5", Date="1851.07.??"), encoding="utf-8")
    two = tmp_path / "two.pgn"
    two.write_text(
        game("1.e4 e5", Date="1851.08.??")
        + game("1.e4 e5", Date="1851.08.03")
        + game("1.e4 e5", Date="1851.07.03"),  # a day of that month: the copy
        encoding="utf-8",
    )
    assert main(["ingest", str(one), "--store", str(s), "--no-flow"]) == 0
    assert main(["ingest", str(two), "--store", str(s), "--no-flow"]) == 2
    q = sql(s, "SELECT line, detail FROM quarantine")
    assert q.height == 1 and "1851.07.03 and 1851.07.??" in q.item(0, "detail")
    assert sql(s, "SELECT count(*) FROM games").item() == 3
    assert q.get_column("line").to_list() == [21]  # the third game


# -- round 4 in a notebook: the Python API on the real TRF and PGN files ---------------


@pytest.fixture(scope="module")
def trf_store(shared_data, tmp_path_factory):
    """The five real TRF files in one store, rated with FIDE (standard and blitz)."""
    import arpad

    store = arpad.Store(tmp_path_factory.mktemp("trf") / "S")
    store.ingest(sorted(str(p) for p in (shared_data / "trf").glob("*.trf")))
    store.rate("fide")
    store.rate("fide", pool="blitz")
    return store


POOL_CALLS = {
    "list": lambda s, p: s.list("fide", pool=p),
    "history": lambda s, p: s.history("Vasquez", system="fide", pool=p),
    "era": lambda s, p: s.era("fide", pool=p),
    "card": lambda s, p: s.card("Vasquez", pool=p),
    "audit": lambda s, p: s.audit("3400042", system="fide", pool=p),
    "plot_history": lambda s, p: s.plot_history("Vasquez", system="fide", pool=p),
}


@pytest.mark.parametrize("call", sorted(POOL_CALLS))
def test_a_pool_that_is_no_pool_is_named_as_such(trf_store, call):
    """`pool="rapd"` said "no ratings for system fide pool rapd; run arpad rate first"
    (a notebook then rates again, in vain); `"Blitz"` got a hint from some calls only."""
    with pytest.raises(ValueError) as err:
        POOL_CALLS[call](trf_store, "rapd")
    assert str(err.value) == "pool: 'rapd' is not one of standard, rapid, blitz"
    with pytest.raises(ValueError, match=r"did you mean 'blitz'\?"):
        POOL_CALLS[call](trf_store, "Blitz")


def test_blitz_pool_calls_work(trf_store):
    top = trf_store.list("fide", pool="blitz", top=3)
    assert top.height == 3 and top["rank"].to_list()[0] == 1
    assert trf_store.era("fide", pool="blitz").get_column("year").unique().to_list() == [2020]


KARL_MALA = "fide_example1_karl_mala_2005.trf"


def naive_trf_event(path: Path) -> tuple[int, list[float]]:
    """(players, ratings) of a TRF16 file read by hand: every 001 player with at least
    one round against an opponent (forfeits included: a paired player took part), and
    the ratings (columns 49-52) of those who have one."""
    players, ratings = 0, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("001"):
            continue
        rounds = [line[k : k + 10] for k in range(91, len(line), 10)]
        if not any(r[:4].strip() not in ("", "0000") for r in rounds):
            continue
        players += 1
        rating = line[48:52].strip()
        if rating and int(rating) > 0:
            ratings.append(float(rating))
    return players, ratings


def test_category_of_a_trf_file_and_of_the_store_in_a_notebook(shared_data, trf_store):
    """`arpad category` had no Python API: a historian had to leave the notebook."""
    import arpad
    from arpad.kernels.rounding import round_half_up

    path = shared_data / "trf" / KARL_MALA
    players, ratings = naive_trf_event(path)
    table = arpad.category(path)
    assert table.height == 1
    row = table.row(0, named=True)
    assert row["players"] == players and row["rated_players"] == len(ratings)
    assert row["average"] == pytest.approx(sum(ratings) / len(ratings), abs=1e-9)
    rounded = int(round_half_up(sum(ratings) / len(ratings)))
    assert row["average_rounded"] == rounded
    assert row["category"] == max(0, -(-(rounded - 2250) // 25))  # below category 1: 0
    stored = arpad.category(trf_store, event=row["event_id"])
    assert stored.to_dicts() == table.to_dicts()
    assert arpad.category(trf_store).height == 5  # the five events of the five files
    # one average: FIDE's bands (docs/legacy-systems.md "Categories")
    assert [arpad.category(average=a) for a in (2250, 2251, 2275, 2276, 2300.5)] == [0, 1, 1, 2, 3]
    assert arpad.category(average=2076, women=True) == 2


def test_norm_check_of_a_trf_player_in_a_notebook(shared_data, capsys):
    import arpad

    path = shared_data / "trf" / KARL_MALA
    check = arpad.norm(path, "Vasquez", "GM")  # by surname, as `arpad norm` takes it
    assert check.player == "3400042" and check.title == "GM"
    # his 001 line: seven games played, 6 points (the other rounds unplayed)
    line = next(x for x in path.read_text().splitlines() if "Vasquez" in x)
    assert float(line[80:84]) == check.score == 6.0
    assert check.games == 7 and check.verdict == "not achieved" and "games" in check.failed
    shown = repr(check)
    assert "\n" not in shown and "verdict='not achieved'" in shown and "games=7" in shown
    assert main(["norm", str(path), "--player", "Vasquez", "--title", "GM"]) == 0
    assert str(check) == capsys.readouterr().out.rstrip("\n")


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda p: __import__("arpad").norm(p, "Vasquez", "GMX"), ValueError,
         "title: 'GMX' is not one of GM, IM, WGM, WIM"),
        (lambda p: __import__("arpad").norm(p, "Nobody", "GM"), ValueError,
         f"no rated games of player 'Nobody' in {KARL_MALA}"),
        (lambda p: __import__("arpad").norm(p.with_name("nope.trf"), "x", "GM"),
         FileNotFoundError, "norm: no such file: "),
        (lambda p: __import__("arpad").norm(None, "x", "GM"), TypeError,
         "norm: a games file path (str or os.PathLike), got NoneType"),
        (lambda p: __import__("arpad").category(p, average=2300), ValueError,
         "category takes a games file or a Store, or average=R (one of them)"),
        (lambda p: __import__("arpad").category(p, event="Nope"), ValueError,
         "no games of event 'Nope' in the file"),
        (lambda p: __import__("arpad").category(average="2300"), TypeError,
         "average: a rating (a number), got '2300'"),
        (lambda p: __import__("arpad").category(p, women="yes"), TypeError,
         "women: True or False, got 'yes'"),
    ],
)  # fmt: skip
def test_tournament_calls_fail_with_one_line(shared_data, call, error, message):
    with pytest.raises(error) as err:
        call(shared_data / "trf" / KARL_MALA)
    text = str(err.value)
    assert "\n" not in text and text.startswith(message)


TWO_MONTHS = """[Event "E"]
[Site "X"]
[Date "{date}"]
[Round "{r}"]
[White "{w}"]
[Black "{b}"]
[Result "{res}"]
[WhiteElo "{we}"]
[BlackElo "{be}"]

1. e4 e5 {res}

"""


def test_the_closing_month_of_a_two_monthly_list_reports_the_score_of_both(tmp_path):
    """FIDE 2009-07 (two-monthly lists): the row of the closing month says its games,
    score and expected score cover both months (docs/fide-history.md). Its score and
    expected score were 0 (the pending sums were zeroed before the row was made),
    with or without games in the closing month; the change was right."""
    import arpad

    games = [
        ("2010.03.05", "A, A", "B, B", "1-0", 2400, 2300),
        ("2010.03.06", "B, B", "A, A", "1/2-1/2", 2300, 2400),
        ("2010.04.07", "A, A", "C, C", "0-1", 2400, 2200),
    ]
    for name, played in (("march.pgn", games[:2]), ("both.pgn", games)):
        path = tmp_path / name
        path.write_text(
            "".join(
                TWO_MONTHS.format(date=d, r=k + 1, w=w, b=b, res=res, we=we, be=be)
                for k, (d, w, b, res, we, be) in enumerate(played)
            ),
            encoding="utf-8",
        )
        store = arpad.Store(tmp_path / name.replace(".pgn", ""))
        store.ingest(path)
        store.rate("fide", rules="2010-03")
        row = store.sql(
            "SELECT games, score, expected, change FROM ratings WHERE period = 201004 "
            "AND player_id = ?",
            f"{name}:A, A",
        ).row(0, named=True)
        # naive: FIDE table 8.1.2, D = 100 → PD 0.64; D = 200 → 0.76 (2400 vs 2200)
        expected = [0.64, 0.64] + ([0.76] if played is games else [])
        score = [1.0, 0.5] + ([0.0] if played is games else [])
        assert row["games"] == len(score)
        assert row["score"] == sum(score)
        assert row["expected"] == pytest.approx(sum(expected), abs=1e-9)
        # K 10 (2400): ΔR summed, rounded half away from zero
        dr = sum(s - e for s, e in zip(score, expected))
        assert row["change"] == round_half_away(10 * dr)


def round_half_away(x: float) -> int:
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


GROS = "open_gros_2010_after_r4.trf"


def test_a_trf_name_without_comma_is_found_by_its_surname(shared_data, trf_store):
    """Spanish TRF files write "Lakunza Oyarbide Juan Carlos" (surnames first, no
    comma): "Lakunza" found nobody (the name was read as surname "Carlos"), in
    `history`, `card` and `arpad.norm`."""
    import arpad

    path = shared_data / "trf" / GROS
    line = next(x for x in path.read_text().splitlines() if "Lakunza" in x)
    fide_id = line[57:68].strip()
    assert fide_id == "2201836"
    for spec in ("Lakunza", "lakunza oyarbide", "Lakunza Oyarbide Juan Carlos"):
        assert arpad.norm(path, spec, "IM").player == fide_id
    by_name = trf_store.history("Lakunza", system="fide")
    assert by_name.equals(trf_store.history(fide_id, system="fide"))
    assert trf_store.card("Lakunza").player_id == fide_id
    # a surname two players of the file share (two "Garcia …") is refused, naming them
    with pytest.raises(ValueError, match="'Garcia' matches 2 players"):
        arpad.norm(path, "Garcia", "IM")


def test_a_list_on_a_date_given_as_a_pandas_timestamp(trf_store):
    """`list(date=datetime.date(...))` worked, a pandas Timestamp (a datetime) was
    "Timestamp('2005-07-31 00:00:00') is not a date"."""
    import datetime

    import pandas as pd

    want = trf_store.list("fide", date="2005-07-31")
    assert trf_store.list("fide", date=datetime.date(2005, 7, 31)).equals(want)
    assert trf_store.list("fide", date=pd.Timestamp("2005-07-31")).equals(want)
    assert trf_store.list("fide", date=datetime.datetime(2005, 7, 31, 18, 30)).equals(want)
    assert want.height > 0


def test_capablanca_year_only_copies_count_once_and_his_1909_draws_stay(shared_data, tmp_path):
    """Round 3 left it documented: a re-spelt copy of Capablanca.pgn (every game dated
    to the year) counted twice. Now each copy is a probable duplicate of its own game
    (same moves), and the year's many Capablanca-Marshall draws stay apart."""
    import arpad

    real = shared_data / "pgn" / "Capablanca.pgn"
    games = split_games(real.read_text(encoding="utf-8"))
    copy = tmp_path / "capablanca_other_db.pgn"
    copy.write_text(
        "\n".join(g.replace('[Site "', '[Site "X ') for g in games[:100]) + "\n", encoding="utf-8"
    )
    store = arpad.Store(tmp_path / "S")
    first = store.ingest(real).files[0]
    second = store.ingest(copy).files[0]
    assert second.accepted == 0 and second.reasons == {"probable_duplicate": 100}
    # each copy names its own game: the line of the copy's original in the real file
    text = real.read_text(encoding="utf-8")
    starts = [1 + text[: text.find(g)].count("\n") for g in games[:100]]
    named = store.sql(
        "SELECT detail FROM quarantine WHERE reason = 'probable_duplicate' ORDER BY line"
    )["detail"].to_list()
    assert [int(re.search(r"stored from Capablanca\.pgn:(\d+)", d)[1]) for d in named] == starts
    assert store.sql("SELECT count(*) FROM games").item() == first.accepted


SAN = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "O-O-O", "exd5", "Qxf7+", "e8=Q", "Kh1"]


def _written(moves: list[str], style: int, cut: list[bool], notes: list[bool]) -> str:
    """``moves`` as one of the ways collections write them."""
    out = []
    for k, m in enumerate(moves):
        if style & 1:
            m = m.replace("O", "0")
        if style & 2:
            m = m.replace("+", "").replace("x", "")
        if style & 4 and k % 2 == 1:
            out.append(f"{k // 2 + 1}...")
        if k % 2 == 0:
            out.append(f"{k // 2 + 1}." if style & 8 else f"{k // 2 + 1}.{m}")
        if k % 2 == 1 or style & 8:
            out.append(m)
        if notes[k % len(notes)]:
            out.append("{a note (with a variation 1.d4)} $2 (3. Kh2 Kh7)")
        if cut[k % len(cut)]:
            out.append("\n")
    return " ".join(out).replace(" \n ", "\n")


@given(
    moves=st.lists(st.sampled_from(SAN), min_size=1, max_size=30),
    style=st.integers(0, 15),
    cut=st.lists(st.booleans(), min_size=1, max_size=5),
    notes=st.lists(st.booleans(), min_size=1, max_size=5),
    other=st.integers(0, len(SAN) - 1),
)
@settings(max_examples=60, deadline=None)
def test_property_the_digest_is_the_moves_not_their_writing(
    tmp_path_factory, moves, style, cut, notes, other
):
    """However a collection writes the moves (0-0, no check or capture marks, Black's
    move numbers, numbers apart from the moves, comments, NAGs, variations, line
    breaks), the digest is the plain main line's; another move in one place is
    another digest."""
    tmp = tmp_path_factory.mktemp("digest")
    plain = " ".join(moves)
    changed = list(moves)
    k = len(moves) // 2
    changed[k] = SAN[other] if SAN[other] != moves[k] else "h3"
    got = digests(
        tmp,
        game(plain),
        game(_written(moves, style, cut, notes)),
        game(" ".join(changed)),
    )
    assert got[0] is not None and got[1] == got[0]
    if _normal(changed[k]) != _normal(moves[k]):
        assert got[2] != got[0]


def _normal(san: str) -> str:
    return san.replace("x", "").replace("+", "").replace("=", "")


def test_card_with_a_system_keyword(trf_store):
    """`store.card("Vasquez", system="elo")` (as `history` takes it) was "unknown rule
    field 'system' for FideRules (known: …)" with some forty field names."""
    want = trf_store.card("Vasquez")
    assert trf_store.card("Vasquez", system="fide").to_dict() == want.to_dict()
    with pytest.raises(ValueError) as err:
        trf_store.card("Vasquez", system="elo")
    assert str(err.value) == "system: the rating card is FIDE's (system='fide' or none)"


def test_an_ingest_report_prints_as_a_short_table(shared_data, tmp_path):
    """`store.ingest(files)` as a cell's last line printed the whole dataclass on one
    line: every example and note of every file (several thousand characters)."""
    import arpad

    store = arpad.Store(tmp_path / "S")
    files = [shared_data / "pgn" / n for n in ("Capablanca.pgn", "London1851.pgn")]
    report = store.ingest(files)
    lines = repr(report).splitlines()
    assert len(lines) == 3 and all(len(x) < 160 for x in lines)
    assert lines[0].startswith("IngestReport(") and "quarantined=1" in lines[0]
    capa = report.files[0]
    assert f"rows={capa.rows:,}" in lines[1] and "'unfinished_game': 1" in lines[1]
    assert capa.examples and capa.to_dict()["examples"] == capa.examples  # still there
    again = repr(store.ingest(files[1]))
    assert "skipped: identical content" in again.splitlines()[1]
