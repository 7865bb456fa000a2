"""A historian's sources, round 3 (docs/pgn-trf.md "Historian's sources, round 3"):
one game from two collections under other Event/Site/Round spellings (probable
duplicates), the history of a player inactive for a century, and the shapes a hurried
historian's files take. References: the real files (a naive game count, python-chess),
a second store built from one file only, and hand-made files whose answer is known."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main
from tests.test_historian_attack import sql

KINGBASE = "kingbase_kb1.pgn"


def split_games(text: str) -> list[str]:
    """The games of a PGN text, each from its [Event line (the real files start every
    game with one)."""
    return [g for g in re.split(r"\n(?=\[Event )", text) if g.strip()]


def respell(game: str, k: int) -> str:
    """The same game as another database writes it: Site with the country, Round as
    round.board, Event in capitals, or no Round at all."""
    game = re.sub(r'\[Site "([^"]*)"\]', r'[Site "\1 ENG"]', game)
    if k % 3 == 0:
        game = re.sub(r'\[Round "([^"]*)"\]\n', "", game)
    elif k % 3 == 1:
        game = re.sub(r'\[Round "([^"]*)"\]', r'[Round "\1.1"]', game)
    else:
        game = re.sub(r'\[Event "([^"]*)"\]', lambda m: f'[Event "{m[1].upper()}"]', game)
    return game


def ratings(store: Path, system: str) -> dict[str, float]:
    frame = sql(
        store,
        f"SELECT player_id, rating_after FROM ratings WHERE system = '{system}' "
        "AND period = (SELECT max(period) FROM ratings)",
    )
    return dict(frame.iter_rows())


# -- defect 1: probable duplicates ----------------------------------------------------------


@pytest.fixture(scope="module")
def overlap(shared_data, tmp_path_factory):
    """kingbase_kb1.pgn, and a second collection holding 40 of its games re-spelt plus
    one game of its own: ingested together (store A), and kingbase alone (store K)."""
    tmp = tmp_path_factory.mktemp("overlap")
    real = shared_data / "pgn" / KINGBASE
    games = split_games(real.read_text(encoding="utf-8"))
    chosen = list(range(0, 400, 10))
    other = [respell(games[i], n) for n, i in enumerate(chosen)]
    own = (
        '[Event "Club"]\n[Site "Hastings"]\n[Date "2018.12.31"]\n[Round "1"]\n'
        '[White "Someone, New"]\n[Black "Sundararajan, Kidambi"]\n[Result "1-0"]\n\n'
        "1. e4 e5 1-0\n"
    )
    second = tmp / "other_db.pgn"
    second.write_text("\n".join(other) + "\n\n" + own, encoding="utf-8")
    a, k = tmp / "A", tmp / "K"
    codes = main(["ingest", str(real), str(second), "--store", str(a), "--no-flow"])
    main(["ingest", str(real), "--store", str(k), "--no-flow"])
    for store in (a, k):
        for system in ("elo", "glicko2"):
            assert main(["rate", "--store", str(store), "--system", system, "--no-flow"]) == 0
    return a, k, codes, len(chosen), real


def test_the_same_game_respelt_in_another_collection_counts_once(overlap):
    a, k, code, n, _ = overlap
    assert code == 2  # rows were quarantined
    stored = sql(a, "SELECT count(*) AS n FROM games").item()
    alone = sql(k, "SELECT count(*) AS n FROM games").item()
    assert stored == alone + 1  # only the second file's own game is new
    q = sql(a, "SELECT reason, detail FROM quarantine WHERE source = 'other_db.pgn'")
    assert q.get_column("reason").to_list() == ["probable_duplicate"] * n
    # each names the other game's id and file:line
    assert all(
        re.search(r"of game pgn:.*\|2018\.\d\d\.\d\d\|.* stored from kingbase_kb1\.pgn:\d+", d)
        for d in q.get_column("detail")
    )


def test_ratings_with_the_second_collection_equal_ratings_without_it(overlap):
    """The duplicates do not count twice: every player of kingbase has the rating the
    file alone gives (the second file's own game moves its two players only)."""
    a, k, *_ = overlap
    for system in ("elo", "glicko2"):
        with_second, alone = ratings(a, system), ratings(k, system)
        moved = {p for p in alone if with_second[p] != pytest.approx(alone[p], abs=1e-9)}
        assert moved <= {"kingbase_kb1.pgn:Sundararajan, Kidambi"}, (system, moved)


def test_the_detail_names_the_stored_game_one_for_one(tmp_path):
    """A match of two games a day in one file stays two games; a second collection with
    both re-spelt loses both (each naming another stored line); a third game of that day
    in it is new."""
    head = (
        '[Event "{e}"]\n[Site "{s}"]\n[Date "1894.03.15"]\n[Round "{r}"]\n'
        '[White "Lasker, Emanuel"]\n[Black "Steinitz, William"]\n[Result "1/2-1/2"]\n\n'
        "1. e4 e5 1/2-1/2\n\n"
    )
    one = tmp_path / "match.pgn"
    one.write_text(
        head.format(e="WCh", s="New York", r="1") + head.format(e="WCh", s="New York", r="2")
    )
    two = tmp_path / "book.pgn"
    two.write_text(
        "".join(head.format(e="World Ch.", s="New York USA", r=r) for r in ("1.1", "2.1", "3.1"))
    )
    store = tmp_path / "S"
    assert main(["ingest", str(one), "--store", str(store)]) == 0
    assert sql(store, "SELECT count(*) FROM games").item() == 2
    assert main(["ingest", str(two), "--store", str(store)]) == 2
    q = sql(store, "SELECT line, reason, detail FROM quarantine ORDER BY line")
    assert q.get_column("reason").to_list() == ["probable_duplicate"] * 2
    assert "stored from match.pgn:1 " in q.get_column("detail")[0]
    assert "stored from match.pgn:11 " in q.get_column("detail")[1]
    assert sql(store, "SELECT count(*) FROM games").item() == 3


def test_keep_probable_duplicates_stores_them(tmp_path):
    text = (
        '[Event "{e}"]\n[Site "London"]\n[Date "1883.05.01"]\n[Round "1"]\n'
        '[White "Zukertort, J."]\n[Black "Steinitz, W."]\n[Result "1-0"]\n\n1. e4 1-0\n'
    )
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(text.format(e="London"))
    b.write_text(text.format(e="London 1883"))
    store = tmp_path / "S"
    assert (
        main(["ingest", str(a), str(b), "--store", str(store), "--keep-probable-duplicates"]) == 0
    )
    assert sql(store, "SELECT count(*) FROM games").item() == 2
    # forgotten at the first ingest: the same file again with the option stores them,
    # as a correction of that source (its quarantine rows go)
    late = tmp_path / "L"
    assert main(["ingest", str(a), str(b), "--store", str(late)]) == 2
    assert main(["ingest", str(b), "--store", str(late)]) == 0  # skipped, says why
    assert main(["ingest", str(b), "--store", str(late), "--keep-probable-duplicates"]) == 0
    assert sql(late, "SELECT count(*) FROM games").item() == 2
    assert sql(late, "SELECT count(*) FROM quarantine").item() == 0
    assert sql(late, "SELECT count(*) FROM manifest").item() == 2
    # and once stored, the same bytes are skipped again
    assert main(["ingest", str(b), "--store", str(late), "--keep-probable-duplicates"]) == 0
    assert sql(late, "SELECT count(*) FROM games").item() == 2
    # the Python API takes the same option
    import arpad

    api = arpad.Store(tmp_path / "T")
    report = api.ingest([a, b])
    assert (report.accepted, report.quarantined) == (1, 1)
    api2 = arpad.Store(tmp_path / "U")
    report = api2.ingest([a, b], keep_probable_duplicates=True)
    assert (report.accepted, report.quarantined) == (2, 0)


def test_games_dated_to_the_year_or_of_other_results_are_not_compared(tmp_path):
    base = (
        '[Event "{e}"]\n[Site "?"]\n[Date "{d}"]\n[Round "?"]\n'
        '[White "Morphy, Paul"]\n[Black "Anderssen, Adolf"]\n[Result "{r}"]\n\n1. {m} {r}\n'
    )
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(
        base.format(e="Paris", d="1858.??.??", r="1-0", m="c4")
        + "\n"
        + base.format(e="Paris", d="1858.12.20", r="1-0", m="e4")
    )
    # year only: compared by the moves since round 4 (tests/test_historian_attack4.py),
    # so the year-only games have moves of their own here
    b.write_text(
        base.format(e="Paris m", d="1858.??.??", r="1-0", m="d4")
        + "\n" + base.format(e="Paris m", d="1858.12.20", r="0-1", m="e4")  # another result
        + "\n" + base.format(e="Paris m", d="1858.12.21", r="1-0", m="e4")  # another day
    )  # fmt: skip
    store = tmp_path / "S"
    assert main(["ingest", str(a), str(b), "--store", str(store)]) == 0
    assert sql(store, "SELECT count(*) FROM games").item() == 5


def test_csv_games_are_not_checked(tmp_path):
    """The bulk path is unchanged: two CSV files with the same pairing, date and result
    under two game ids are two games."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("game_id,date,white_id,black_id,result\ng1,2020-01-05,x,y,1-0\n")
    b.write_text("game_id,date,white_id,black_id,result\ng2,2020-01-05,x,y,1-0\n")
    store = tmp_path / "S"
    assert main(["ingest", str(a), str(b), "--store", str(store)]) == 0
    assert sql(store, "SELECT count(*) FROM games").item() == 2


# -- defect 2: history of a long-inactive player --------------------------------------------


@pytest.fixture(scope="module")
def eras(shared_data, tmp_path_factory):
    """The five real files (1851 to 2022: 33 walked periods), rated with Glicko-2."""
    tmp = tmp_path_factory.mktemp("eras")
    store = tmp / "S"
    files = sorted(str(p) for p in (shared_data / "pgn").glob("*.pgn"))
    assert main(["ingest", *files, "--store", str(store), "--no-flow"]) == 2
    # the one unfinished game of Capablanca.pgn; no probable duplicate among the five
    reasons = sql(store, "SELECT reason FROM quarantine")["reason"].to_list()
    assert reasons == ["unfinished_game"]
    assert main(["rate", "--store", str(store), "--system", "glicko2", "--no-flow"]) == 0
    return store


def table_rows(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("│")]


def test_history_of_a_long_inactive_player_collapses_the_run(eras, capsys):
    walked = sql(eras, "SELECT DISTINCT period FROM ratings ORDER BY period")["period"].to_list()
    after = [p for p in walked if p > 188612]
    capsys.readouterr()
    assert main(["history", "Steinitz", "--store", str(eras), "--system", "glicko2"]) == 0
    lines = table_rows(capsys.readouterr().out)
    assert len(lines) == 3  # header, his 1886 match, one line for 1901 to 2022
    assert "│ 188612 ┆ games " in lines[1] and "┆ 20 " in lines[1]
    p = after[0]
    # the calendar months after his match, not the walked periods (round 14: it said
    # "inactive to 2022-01 (31 periods)"): 1887-01 to 2022-01 is 135 years and a month
    assert len(after) == 31
    assert f"│ {p} ┆ inactive 1887-01 to 2022-01 (135y 1m) " in lines[2]
    # the rating did not move while he was away: delta 0, before = after
    frame = sql(
        eras,
        "SELECT rating_after FROM ratings WHERE system = 'glicko2' "
        "AND player_id = 'WorldChamp1886.pgn:Steinitz, William' ORDER BY period",
    )
    assert frame["rating_after"].n_unique() == 1
    assert "┆ 0.0 " in lines[2]


def test_history_files_keep_every_period_and_the_table_flag(eras, capsys):
    store = str(eras)
    capsys.readouterr()
    main(["history", "Steinitz", "--store", store, "--system", "glicko2", "--format", "json"])
    every = json.loads(capsys.readouterr().out)
    stored = sql(
        eras,
        "SELECT count(*) FROM ratings WHERE system = 'glicko2' "
        "AND player_id = 'WorldChamp1886.pgn:Steinitz, William'",
    ).item()
    assert len(every) == stored == 32
    main(["history", "Steinitz", "--store", store, "--system", "glicko2", "--every-period"])
    assert len(table_rows(capsys.readouterr().out)) == len(every) + 1
    # an active player's table is unchanged: Capablanca played in every walked period
    # from 1901 to 1941 (the runs after it collapse)
    main(["history", "Capablanca", "--store", store, "--system", "glicko2", "--format", "csv"])
    csv = pl.read_csv(capsys.readouterr().out.encode())
    main(["history", "Capablanca", "--store", store, "--system", "glicko2"])
    lines = table_rows(capsys.readouterr().out)
    active = csv.filter(pl.col("event") != "inactive").height
    assert len(lines) == 1 + active + 1  # header, active rows, one run (2018-12, 2022-01)


def test_collapse_inactive_against_a_naive_count():
    """Runs of two or more inactive events become one row each; the rows and the games
    add up; delta is the run's whole change."""
    from arpad.pipeline.history import _SCHEMA, collapse_inactive

    events = ["games", "inactive", "inactive", "inactive", "games", "inactive", "adjustment", "inactive", "inactive"]  # fmt: skip
    rows = [
        (190001 + k, e, 1500.0 + k, 1.0 if e != "inactive" else 0.0,
         1500.0 + k + (1.0 if e != "inactive" else 0.0), 3 if e == "games" else 0, 1.0, None, e)
        for k, e in enumerate(events)
    ]  # fmt: skip
    frame = pl.DataFrame(rows, schema=_SCHEMA, orient="row")
    out = collapse_inactive(frame)
    assert out.get_column("event").to_list() == [
        "games",
        "inactive 1900-02 to 1900-04 (3m)",
        "games",
        "inactive",
        "adjustment",
        "inactive 1900-08 to 1900-09 (2m)",
    ]
    assert out.get_column("period").to_list() == [190001, 190002, 190005, 190006, 190007, 190008]
    assert out.get_column("games").sum() == frame.get_column("games").sum()
    run = out.row(1, named=True)
    assert run["rating_before"] == 1501.0 and run["rating_after"] == 1503.0
    assert run["delta"] == 2.0
    assert collapse_inactive(frame.head(0)).height == 0


# -- round 3 attack: the shapes a hurried historian's files take ----------------------------

GAME = (
    '[Event "Hastings"]\n[Site "Hastings"]\n[Date "1895.08.{day:02d}"]\n[Round "{day}"]\n'
    '[White "Pillsbury, Harry Nelson"]\n[Black "Tarrasch, Siegbert"]\n[Result "1-0"]\n\n'
    "1. e4 e5 2. Nf3 1-0\n\n"
)


def stored_games(path: Path) -> list[tuple]:
    from arpad.pipeline.pgn import read_pgn

    frame = read_pgn(path).frame
    return frame.select("game_id", "date", "white_id", "black_id", "result").rows()


def test_tag_names_in_lower_case_are_read(tmp_path):
    """`[white "…"]` (a converter's export): the games were quarantined as games
    against unknown players; the tags are read whatever their case, with a note."""
    from arpad.pipeline.pgn import read_pgn

    text = "".join(GAME.format(day=d) for d in (5, 6))
    proper, lower = tmp_path / "proper.pgn", tmp_path / "lower.pgn"
    proper.write_text(text)
    lower.write_text(re.sub(r"^\[(\w+)", lambda m: "[" + m[1].lower(), text, flags=re.M))
    upper = tmp_path / "upper.pgn"
    upper.write_text(re.sub(r"^\[(\w+)", lambda m: "[" + m[1].upper(), text, flags=re.M))
    want = [(g.replace("proper", "x"), *rest) for g, *rest in stored_games(proper)]
    for path in (lower, upper):
        got = [(g.replace(path.stem, "x"), *rest) for g, *rest in stored_games(path)]
        assert [(g, d, w.split(":")[1], b.split(":")[1], r) for g, d, w, b, r in got] == [
            (g, d, w.split(":")[1], b.split(":")[1], r) for g, d, w, b, r in want
        ]
        assert any("tag names" in n for n in read_pgn(path).notes)
    assert not any("tag names" in n for n in read_pgn(proper).notes)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_is_read_as_its_utf8_twin(tmp_path, encoding):
    """A Windows "Unicode" export (UTF-16, with or without a byte-order mark) was
    refused as "binary data (NUL byte): not a text file"."""
    from arpad.pipeline.pgn import read_pgn

    text = GAME.format(day=5).replace("Tarrasch, Siegbert", "Réti, Richard")
    utf8, utf16 = tmp_path / "a.pgn", tmp_path / "b.pgn"
    utf8.write_text(text, encoding="utf-8")
    utf16.write_bytes(text.encode(encoding))
    assert stored_games(utf16) == [
        (g, d, w.replace("a.pgn", "b.pgn"), b.replace("a.pgn", "b.pgn"), r)
        for g, d, w, b, r in stored_games(utf8)
    ]
    assert any("UTF-16" in n for n in read_pgn(utf16).notes)


@pytest.mark.parametrize(
    "written, date, period, precision",
    [
        ("1851.7.3", "1851-07-03", "185107", "day"),  # no leading zeros
        ("1851.07.00", None, "185107", "month"),  # 00: the day is not known
        ("1851.00.00", None, "185112", "year"),
        ("1851.07", None, "185107", "month"),
        ("1851.07.03", "1851-07-03", "185107", "day"),
    ],
)
def test_dates_written_by_old_databases(tmp_path, written, date, period, precision):
    """`1851.00.00` (a zero for an unknown month or day) was bad_date, the game lost;
    `1851.7.3` was stored without its precision."""
    from arpad.pipeline.pgn import read_pgn
    from arpad.pipeline.validate import validate_games

    path = tmp_path / "d.pgn"
    path.write_text(GAME.format(day=5).replace("1895.08.05", written))
    v = validate_games(read_pgn(path), "d.pgn", "b")
    assert v.quarantine.num_rows == 0
    row = pl.from_arrow(v.accepted).row(0, named=True)
    assert (str(row["date"]) if row["date"] else None, str(row["period"])) == (date, period)
    assert row["date_precision"] == precision
    # a complete date gives the game key, so the same game in two files is one
    assert row["game_id"].startswith("pgn:") == (date is not None)


def test_a_year_with_unknown_digits_falls_back_to_event_date(tmp_path):
    """`18??.??.??` (the decade known) was bad_date: it is an unknown date, so the
    EventDate places the game, as for `????.??.??`; without one it is missing_period."""
    from arpad.pipeline.pgn import read_pgn
    from arpad.pipeline.validate import validate_games

    game = GAME.format(day=5).replace("1895.08.05", "18??.??.??")
    path = tmp_path / "d.pgn"
    path.write_text(game.replace('[Round "5"]', '[Round "5"]\n[EventDate "1858.??.??"]') + game)
    v = validate_games(read_pgn(path), "d.pgn", "b")
    assert pl.from_arrow(v.accepted).get_column("period").to_list() == [185812]
    assert v.quarantine.column("reason").to_pylist() == ["missing_period"]


def test_the_ingest_flow_takes_every_field_of_the_request():
    """`arpad ingest --flow` passes the request's fields to the Prefect flow by name
    (pipeline/launch.py): the new option must be a parameter of the flow."""
    import dataclasses
    import inspect

    from arpad.flows.ingest import ingest_flow
    from arpad.pipeline.jobs import IngestRequest

    fields = {f.name for f in dataclasses.fields(IngestRequest)}
    assert "keep_probable_duplicates" in fields
    assert fields <= set(inspect.signature(ingest_flow.fn).parameters)


def test_a_pgn_of_games_a_trf_holds_counts_once(shared_data, tmp_path):
    """The Karl Mala 2005 TRF, then a PGN of three of its first-round games as a club
    bulletin writes them ("Vasquez, Rodrigo" for the TRF's "Vasquez,Rodrigo", no FIDE
    ids, another event name) and one game the TRF does not hold."""
    trf = shared_data / "trf" / "fide_example1_karl_mala_2005.trf"
    store = tmp_path / "S"
    assert main(["ingest", str(trf), "--store", str(store)]) == 0
    first = sql(
        store,
        "SELECT strftime(g.date, '%Y.%m.%d') AS d, w.name AS w, b.name AS b, g.score, "
        "g.game_id FROM games g JOIN players w ON w.player_id = g.white_id "
        "JOIN players b ON b.player_id = g.black_id WHERE g.game_id LIKE '%:r1:%' "
        "ORDER BY g.game_id LIMIT 3",
    )
    result = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}
    pgn = ""
    for d, w, b, score, _ in first.iter_rows():
        pgn += (
            f'[Event "Karl Mala Memorial"]\n[Site "Dresden"]\n[Date "{d}"]\n[Round "1"]\n'
            f'[White "{w.replace(",", ", ")}"]\n[Black "{b.replace(",", ", ")}"]\n'
            f'[Result "{result[score]}"]\n\n1. d4 {result[score]}\n\n'
        )
    d, w, b, score, _ = first.row(0)
    pgn += (  # the same pairing a day later: not in the TRF
        f'[Event "Karl Mala Memorial"]\n[Site "Dresden"]\n[Date "2005.07.29"]\n'
        f'[Round "2"]\n[White "{w}"]\n[Black "{b}"]\n[Result "1-0"]\n\n1. d4 1-0\n\n'
    )
    bulletin = tmp_path / "bulletin.pgn"
    bulletin.write_text(pgn + "\n")
    assert main(["ingest", str(bulletin), "--store", str(store)]) == 2
    q = sql(store, "SELECT detail FROM quarantine WHERE reason = 'probable_duplicate'")
    ids = first.get_column("game_id").to_list()
    assert sorted(re.search(r"of game (.+) stored from", d)[1] for d in q["detail"]) == sorted(ids)
    assert sql(store, "SELECT count(*) FROM games WHERE source LIKE 'bulletin%'").item() == 1


def test_a_double_space_in_a_name_is_the_same_player(tmp_path):
    """ "Capablanca,  Jose Raul" (a typist's double space) was a player of its own."""
    from arpad.pipeline.pgn import read_pgn

    a = GAME.format(day=5).replace("Pillsbury, Harry Nelson", "Capablanca, Jose Raul")
    b = GAME.format(day=6).replace("Pillsbury, Harry Nelson", "Capablanca,  Jose  Raul ")
    path = tmp_path / "d.pgn"
    path.write_text(a + b)
    raw = read_pgn(path)
    assert raw.frame.get_column("white_id").unique().to_list() == ["d.pgn:Capablanca, Jose Raul"]
    assert raw.players.height == 2
    # and the game key: the same game with a double space in another file is one game
    other = tmp_path / "e.pgn"
    other.write_text(a.replace("Capablanca, Jose Raul", "Capablanca,  Jose Raul"))
    assert read_pgn(other).frame["game_id"][0] == raw.frame["game_id"][0]


@pytest.mark.parametrize("result", ["0-0", "1/2", "+-"])
def test_a_result_no_standard_knows_is_named(tmp_path, result):
    """`[Result "0-0"]` (both players scored a loss, as old tournaments did) with the
    movetext ending the same way was "no game termination marker: file truncated?"."""
    from arpad.pipeline.pgn import read_pgn

    path = tmp_path / "r.pgn"
    path.write_text(GAME.format(day=5).replace("1-0", result))
    raw = read_pgn(path)
    assert raw.frame.height == 0
    [(line, reason, detail, _)] = raw.problems
    assert (line, reason) == (1, "unknown_result")
    assert f"unknown result code {result} in the Result tag" in detail


def test_replace_of_a_pgn_game_is_no_probable_duplicate(tmp_path):
    """`--replace` of a game by a file with the same game key: the stored copy is the
    game replaced, not another collection's copy."""
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(GAME.format(day=5))
    b.write_text(GAME.format(day=5).replace("2. Nf3 1-0", "2. Nf3 Nc6 1-0"))
    store = tmp_path / "S"
    assert main(["ingest", str(a), "--store", str(store)]) == 0
    assert main(["ingest", str(b), "--store", str(store), "--replace"]) == 0
    assert sql(store, "SELECT source FROM games")["source"].to_list() == ["b.pgn:1"]


def test_players_merged_before_are_the_same_player(tmp_path):
    """Names are not guessed ("Lasker, Em." is not "Lasker, Emanuel"), but once the
    ids are merged a later collection's copy is a probable duplicate."""
    text = GAME.format(day=5).replace("Pillsbury, Harry Nelson", "{w}")
    a, b, c = tmp_path / "a.pgn", tmp_path / "b.pgn", tmp_path / "c.pgn"
    a.write_text(
        text.format(w="Lasker, Em.")
        + GAME.format(day=6).replace("Pillsbury, Harry Nelson", "Lasker, Emanuel")
    )
    b.write_text(text.format(w="Lasker, Emanuel").replace("Hastings", "Hastings ENG"))
    c.write_text(text.format(w="Lasker, Emanuel").replace("Hastings", "Hastings 1895"))
    store = str(tmp_path / "S")
    assert main(["ingest", str(a), "--store", store]) == 0
    assert main(["ingest", str(b), "--store", store]) == 0  # not the same name as a:1
    assert (
        main(["players", "merge", "a.pgn:Lasker, Emanuel", "a.pgn:Lasker, Em.", "--store", store])
        == 0
    )
    assert main(["ingest", str(c), "--store", store]) == 2
    # the merge made b:1 a copy of a:1 and took it out (docs/identity.md "Copies a
    # merge makes one game"); c's copy matches a:1 (merged into "Lasker, Emanuel")
    q = sql(tmp_path / "S", "SELECT source, reason, detail FROM quarantine ORDER BY source")
    assert q["source"].to_list() == ["b.pgn", "c.pgn"]
    assert q["reason"].to_list() == ["probable_duplicate"] * 2
    assert re.search(r"stored from a\.pgn:1 ", q["detail"][1])
    # with a's merge alone (no b), the merge is what finds it
    d = tmp_path / "S2"
    assert main(["ingest", str(a), "--store", str(d)]) == 0
    assert (
        main(["players", "merge", "a.pgn:Lasker, Emanuel", "a.pgn:Lasker, Em.", "--store", str(d)])
        == 0
    )
    assert main(["ingest", str(c), "--store", str(d)]) == 2
    assert "stored from a.pgn:1 " in sql(d, "SELECT detail FROM quarantine")["detail"][0]


def trf_line(rank: int, name: str, opponent: int, colour: str, result: str) -> str:
    """A TRF16 001 line (FIDE Handbook C.04 Annex 2; columns in docs/pgn-trf.md):
    no rating, id or birth date; one round block at column 92."""
    line = f"001 {rank:4d} m    {name:<33} {'':4} {'':3} {'':11} {'':10} {'':4} {'':4}  "
    assert len(line) == 91
    return line + f"{opponent:4d} {colour} {result}"


@pytest.mark.parametrize(
    "start, written, day",
    [
        ("1851/05/26", "51/05/27", "1851-05-27"),  # was 1951-05-27: a century off
        ("1886/01/11", "86/01/11", "1886-01-11"),  # was 1986
        ("1924/12/31", "25/01/02", "1925-01-02"),  # an event over the new year: was 2025
        ("2005/07/28", "05/07/28", "2005-07-28"),
        (None, "05/07/28", "2005-07-28"),  # no start date: YY < 50 is 20YY
        (None, "86/01/11", "1986-01-11"),
    ],
)
def test_trf_round_dates_take_the_century_of_the_start_date(tmp_path, start, written, day):
    """A TRF written for a historical event (132 round dates are YY/MM/DD): the two-digit
    year is read in the century of the start date (042), the year nearest to it."""
    from arpad.pipeline.trf import read_trf

    lines = ["012 London 1851"]
    if start:
        lines.append(f"042 {start}")
    lines.append("132" + " " * 88 + written)
    lines += [
        trf_line(1, "Anderssen, Adolf", 2, "w", "1"),
        trf_line(2, "Kieseritzky, Lionel", 1, "b", "0"),
    ]
    path = tmp_path / "l.trf"
    path.write_text("\n".join(lines) + "\n")
    raw = read_trf(path)
    assert raw.frame.get_column("date").to_list() == [day]


def test_a_corrected_download_under_source_keeps_its_players(shared_data, tmp_path, monkeypatch):
    """`London1851 (2).pgn` (one Site re-spelt) ingested with `--source London1851.pgn`
    corrects the first file: the same 251 games and 43 players. Its file-scoped ids
    were all new (`London1851 (2).pgn:Staunton, Howard`), the first file's players
    left without games, merges made on them lost."""
    first = tmp_path / "London1851.pgn"
    first.write_bytes((shared_data / "pgn" / "London1851.pgn").read_bytes())
    second = tmp_path / "London1851 (2).pgn"
    second.write_bytes(first.read_bytes().replace(b'[Site "London"]', b'[Site "London ENG"]', 1))
    store = tmp_path / "S"
    monkeypatch.chdir(tmp_path)  # the first file's source is its relative path
    assert main(["ingest", first.name, "--store", str(store)]) == 0
    before = sql(store, "SELECT player_id FROM players ORDER BY 1")
    assert main(["ingest", second.name, "--source", "London1851.pgn", "--store", str(store)]) == 0
    assert sql(store, "SELECT player_id FROM players ORDER BY 1").equals(before)
    assert before.height == 43
    games = sql(store, "SELECT DISTINCT white_id FROM games")["white_id"]
    assert games.str.starts_with("London1851.pgn:").all()
    assert sql(store, "SELECT count(*) FROM games").item() == 251


def test_games_of_another_pool_are_not_compared(tmp_path):
    """A blitz game (TimeControl 180+2) and a standard game of one day between the same
    players with the same result are two games."""
    game = GAME.format(day=5).replace("1895.08.05", "2018.12.31")
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(game)
    b.write_text(
        game.replace('[Round "5"]', '[Round "5"]\n[TimeControl "180+2"]').replace(
            "Hastings", "Blitz"
        )
    )
    store = tmp_path / "S"
    assert main(["ingest", str(a), str(b), "--store", str(store)]) == 0
    pools = sql(store, "SELECT pool FROM games ORDER BY pool")["pool"].to_list()
    assert pools == ["blitz", "standard"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_a_utf16_trf_is_read_as_its_utf8_twin(shared_data, tmp_path, encoding):
    """A TRF saved as "Unicode" was refused ("save as UTF-8"); PGN and CSV read it."""
    from arpad.pipeline.trf import read_trf

    real = shared_data / "trf" / "fide_example1_karl_mala_2005.trf"
    utf8 = tmp_path / "k.trf"
    utf8.write_bytes(real.read_bytes())
    other = tmp_path / "u" / "k.trf"
    other.parent.mkdir()
    other.write_bytes(real.read_bytes().decode("utf-8").encode(encoding))
    a, b = read_trf(utf8), read_trf(other)
    assert a.frame.equals(b.frame) and a.players.equals(b.players)
    assert any("UTF-16" in n for n in b.notes)


def test_an_undated_game_names_its_date_tags_and_keeps_its_text(tmp_path):
    """A game whose Date tag has no year (`????.05.??`) and no EventDate is quarantined
    as missing_period naming the tag as written, and every quarantined PGN game keeps
    its tags in `raw`, a missing Event or Round written `?` (the text was empty: a null
    tag made the whole text null)."""
    path = tmp_path / "u.pgn"
    path.write_text(
        '[White "Anderssen, A."]\n[Black "Dufresne, J."]\n[Result "1-0"]\n\n1. e4 0-1\n\n'
        '[White "Morphy, P."]\n[Black "Paulsen, L."]\n[Date "????.05.??"]\n'
        '[Result "1-0"]\n\n1. e4 1-0\n\n'
        '[White "Morphy, P."]\n[Black "Paulsen, L."]\n[Result "1-0"]\n\n1. d4 1-0\n'
    )
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 2
    q = sql(store, "SELECT line, reason, detail, raw FROM quarantine ORDER BY line")
    assert q["line"].to_list() == [1, 7, 14]
    assert q["reason"].to_list() == ["result_mismatch", "missing_period", "missing_period"]
    assert q["detail"][1] == (
        "Date tag '????.05.??' gives no year: the game cannot be placed in a period"
    )
    assert q["detail"][2] == "no Date or EventDate tag: the game cannot be placed in a period"
    assert q["raw"].to_list() == [
        "Anderssen, A. - Dufresne, J. 1-0 (?, ?, round ?)",
        "Morphy, P. - Paulsen, L. 1-0 (?, ????.05.??, round ?)",
        "Morphy, P. - Paulsen, L. 1-0 (?, ?, round ?)",
    ]
