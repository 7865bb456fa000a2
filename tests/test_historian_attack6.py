"""The historian's attack, round 6 (docs/legacy-systems.md "A closing month without
games", docs/pgn-trf.md "Historian's sources, round 6", docs/cli.md "card").

ECF grades are worked by hand from the rules (docs/legacy-systems.md "Legacy ECF
grading"): points = opponent (within 40 of the player's grade) + 100·s − 50, grade =
(Σ points + (30 − n) × previous grade) / 30, rounded half away from zero.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.engine import rate, rate_in_memory
from arpad.pipeline.era import era_table
from arpad.pipeline.ingest import ingest_file, ingest_files
from arpad.pipeline.pgn import rate_moveless, read_pgn
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_ecf_cycles import game_report, rows
from tests.test_historian_attack import sql

# No birth years: nobody is a junior. Grades a 150, b 130, c 100.
PLAYERS = ["a,Alice,,150", "b,Bob,,130", "c,Carol,,100"]


def store_of(tmp_path: Path, games: list[str]) -> Store:
    players = write_csv(tmp_path / "players.csv", "player_id,name,birth_year,grade", PLAYERS)
    games_csv = write_csv(tmp_path / "games.csv", "period,white_id,black_id,result", games)
    store = Store(tmp_path / "store")
    ingest_files(store, [games_csv], players=[players])
    return store


# -- 1. each ECF season is published at its own closing month --------------------------


@pytest.fixture
def decades(tmp_path) -> Store:
    """1886 and 1901 games stored in December (year-only dates), nothing in between."""
    store = store_of(tmp_path, ["1886-12,a,b,1-0", "1901-12,a,c,1/2-1/2"])
    summary = rate(store, "ecf")
    # the closing months 188705 and 190205 are walked without games
    assert summary.periods == [188612, 188705, 190112, 190205]
    return store


def test_a_season_is_published_at_its_closing_month_not_at_the_next_games(decades):
    # 188612: the 1886/87 season so far. a beat b: 130 + 50 = 180, (180 + 29·150)/30 = 151;
    # b: 150 − 50 = 100, (100 + 29·130)/30 = 129
    assert rows(decades, 188612) == {"a": ("provisional", 151, 1), "b": ("provisional", 129, 1)}
    # 188705 publishes 1886/87 from its own games
    assert rows(decades, 188705) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 100, 0),
    }
    # 190112: interim of 1901/02 (a drew c), graded from the 1887 grades, nothing of 1886
    # a: c counts as 151 − 40 = 111, draw → 111; (111 + 29·151)/30 = 149.67 → 150
    # c: a counts as 140, draw → 140; (140 + 29·100)/30 = 101.33 → 101
    assert rows(decades, 190112) == {"a": ("provisional", 150, 1), "c": ("provisional", 101, 1)}
    assert rows(decades, 190205) == {
        "a": ("rated", 150, 1),
        "b": ("inactive", 129, 0),
        "c": ("rated", 101, 1),
    }
    # each publication's per-game report holds its own season's games
    assert {(p, g) for p, _, g, _ in game_report(decades)} == {(188705, 188612), (190205, 190112)}


def test_era_puts_players_in_the_years_they_played_counting_each_game_once(decades):
    era = era_table(decades, "ecf", by="year")
    got = {
        (r["year"], r["player_id"]): (r["rating"], r["games"], r["period"]) for r in era.to_dicts()
    }
    # 1887 and 1902 hold no games: nobody is listed there, though grades were published
    assert got == {
        (1886, "a"): (151, 1, 188612),
        (1886, "b"): (129, 1, 188612),
        (1901, "a"): (150, 1, 190112),
        (1901, "c"): (101, 1, 190112),
    }
    decade = era_table(decades, "ecf", by="decade")
    games = {(r["decade"], r["player_id"]): r["games"] for r in decade.to_dicts()}
    # the interim row and the publication count the one game once
    assert games == {(1880, "a"): 1, (1880, "b"): 1, (1900, "a"): 1, (1900, "c"): 1}


def test_era_counts_games_of_a_season_spread_over_months_once(tmp_path):
    # 1885/86 season: games in 188507, 188511 (interim), 188605 (its closing month)
    store = store_of(tmp_path, ["1885-07,a,b,1-0", "1885-11,a,b,0-1", "1886-05,b,c,1-0"])
    rate(store, "ecf")
    # 188605 publishes: a 2 games, b 3, c 1; the interim rows say 1, then 2.
    # 188511, a so far: beat b (130 + 50 = 180), lost to b (130 − 50 = 80);
    # (180 + 80 + 28·150)/30 = 148.67 → 149
    assert rows(store, 188511)["a"] == ("provisional", 149, 2)
    assert {k: v[2] for k, v in rows(store, 188605).items()} == {"a": 2, "b": 3, "c": 1}
    era = era_table(store, "ecf", by="year")
    games = {(r["year"], r["player_id"]): r["games"] for r in era.to_dicts()}
    assert games == {(1885, "a"): 2, (1885, "b"): 2, (1886, "b"): 1, (1886, "c"): 1}


def test_rate_in_memory_walks_the_closing_months_as_a_store_run(decades):
    from arpad.pipeline.engine import player_info

    info = player_info(decades.read_players())
    ids = list(info.player_id)
    a, b, c = (ids.index(x) for x in "abc")

    def period(p, w, bl, s):
        return (
            p,
            np.array([w], np.int32),
            np.array([bl], np.int32),
            np.array([s]),
            np.array([-1], np.int32),
        )

    out = rate_in_memory("ecf", info, [period(188612, a, b, 1.0), period(190112, a, c, 0.5)])
    assert sorted(out) == [188612, 188705, 190112, 190205]
    published = {r["player_id"]: (r["status"], r["rating_after"]) for r in out[188705].to_pylist()}
    assert published == {"a": ("rated", 151), "b": ("rated", 129), "c": ("inactive", 100)}


def test_a_store_with_games_in_every_closing_month_walks_no_other_period(tmp_path):
    store = store_of(tmp_path, ["1886-05,a,b,1-0", "1887-05,a,c,1/2-1/2"])
    assert rate(store, "ecf").periods == [188605, 188705]
    # 188605 closes 1885/86 with its games: a 151, b 129 (as above)
    assert rows(store, 188605) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 100, 0),
    }


def pgn_game(
    date: str, white: str, black: str, result: str, moves="1. e4 e5 2. Nf3 Nc6", marker=None, **tags
):
    extra = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    end = result if marker is None else marker
    return (
        f'[Event "E"]\n[Site "?"]\n[Date "{date}"]\n[Round "?"]\n[White "{white}"]\n'
        f'[Black "{black}"]\n[Result "{result}"]\n{extra}\n{moves} {end}\n\n'
    )


def test_history_and_list_of_an_1886_match_are_dated_in_its_season(tmp_path, capsys):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(
        pgn_game("1858.??.??", "Morphy, Paul", "Harrwitz, Daniel", "1-0")
        + pgn_game("1886.??.??", "Steinitz, William", "Zukertort, Johannes", "1-0")
        + pgn_game("1886.??.??", "Zukertort, Johannes", "Steinitz, William", "1/2-1/2")
        + pgn_game("1901.??.??", "Capablanca, Jose Raul", "Corzo, Juan", "1-0")
    )
    s = str(tmp_path / "s")
    assert main(["ingest", str(pgn), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["history", "Steinitz", "--system", "ecf", "--store", s, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # 188612 interim, 188705 new; then inactive at later closing months, never "new" in 1902
    assert lines[1].startswith("188612,")
    assert lines[2].startswith("188705,") and lines[2].endswith(",new")
    assert not any(line.startswith("190205,") and line.endswith(",new") for line in lines)
    assert (
        main(
            [
                "list",
                "--system",
                "ecf",
                "--date",
                "1887-06",
                "--active",
                "12",
                "--store",
                s,
                "--format",
                "csv",
            ]
        )
        == 0
    )
    listed = capsys.readouterr().out
    assert "Steinitz" in listed and "Zukertort" in listed and "Morphy" not in listed


# -- 2. PGN: old markers and dates --------------------------------------------------------


def test_old_termination_markers_read_as_the_standard_ones(tmp_path):
    pgn = tmp_path / "old.pgn"
    pgn.write_text(
        pgn_game("1858.07.19", "A", "B", "1/2-1/2", marker="½-½")
        + pgn_game("1858.07.20", "A", "B", "1-0", marker="1:0")
        + pgn_game("1858.07.21", "A", "B", "0-1", marker="0:1")
        + pgn_game("1858.07.22", "A", "B", "½-½", marker="½:½")
        + pgn_game("1858.07.23", "A", "B", "1-0", marker="{won 1:0}")  # inside a comment
        + pgn_game("1858.07.24", "A", "B", "1-0", marker="21:0")  # not a word of its own
    )
    raw = read_pgn(pgn)
    assert raw.frame["result"].to_list() == ["1/2-1/2", "1-0", "0-1", "1/2-1/2"]
    assert raw.frame["rated"].to_list() == [None] * 4
    assert [p[1] for p in raw.problems] == ["truncated_game", "truncated_game"]
    assert any("4 game(s) end with an old database's termination marker" in n for n in raw.notes)


@pytest.mark.parametrize(
    "written, period, precision",
    [
        ("1858.07.xx", "185807", "month"),
        ("1858.07.XX", "185807", "month"),
        ("1858.07.?", "185807", "month"),
        ("1858.?.?", "185812", "year"),
        ("1858.xx.xx", "185812", "year"),
        ("1858.07.??", "185807", "month"),
        ("1858.07.19", None, "day"),
    ],
)
def test_unknown_digits_written_x_or_a_single_question_mark(tmp_path, written, period, precision):
    pgn = tmp_path / "d.pgn"
    pgn.write_text(pgn_game(written, "A", "B", "1-0"))
    raw = read_pgn(pgn)
    assert raw.problems == []
    row = raw.frame.row(0, named=True)
    assert row["date_precision"] == precision
    if period is None:
        assert row["date"] == "1858.07.19" and row["period"] in (None, "185807")
    else:
        assert (row["date"], row["period"]) == (None, period)


def test_a_year_with_unknown_digits_is_placed_by_event_date(tmp_path):
    pgn = tmp_path / "d.pgn"
    pgn.write_text(
        pgn_game("18xx.??.??", "A", "B", "1-0", EventDate="1858.07.??")
        + pgn_game("18xx.??.??", "C", "D", "1-0")
    )
    raw = read_pgn(pgn)
    # the EventDate is the event's start, a lower bound: the game is placed as a
    # year-only game of 1858 (docs/pgn-trf.md "Historian's sources, round 9")
    assert raw.frame["period"].to_list() == ["185812"]
    assert [(p[1], p[2]) for p in raw.problems] == [
        (
            "missing_period",
            "Date tag '18xx.??.??' gives no year: the game cannot be placed in a period",
        )
    ]


def test_a_bad_date_names_its_tag_and_the_pgn_form(tmp_path):
    pgn = tmp_path / "d.pgn"
    pgn.write_text(
        pgn_game("19.07.1858", "A", "B", "1-0")
        + pgn_game("????.??.??", "C", "D", "1-0", EventDate="1858.13.01")
    )
    raw = read_pgn(pgn)
    assert raw.frame.height == 0
    assert [(p[1], p[2].split(" (")[0]) for p in raw.problems] == [
        ("bad_date", "Date tag '19.07.1858' is not a valid date in the PGN form YYYY.MM.DD"),
        ("bad_date", "EventDate tag '1858.13.01' is not a valid date in the PGN form YYYY.MM.DD"),
    ]


# -- 3. games without moves -------------------------------------------------------------


MOVELESS = (
    pgn_game("1858.??.??", "A", "B", "1/2-1/2", moves="")
    + pgn_game("1858.??.??", "A", "C", "1-0", moves="")
    + pgn_game("1858.??.??", "B", "C", "0-1", moves="", Variant="Chess960")
    + pgn_game("1858.??.??", "B", "C", "1/2-1/2")
)


def test_moveless_games_stay_unrated_by_default_with_an_honest_note(tmp_path):
    pgn = tmp_path / "x.pgn"
    pgn.write_text(MOVELESS)
    raw = read_pgn(pgn)
    assert raw.frame["rated"].to_list() == ["false", "false", "false", None]
    assert (
        "3 game(s) without moves (a forfeit, or a result whose moves were not kept), "
        "1 of them draws: stored, not rated (--rate-moveless rates them)"
    ) in raw.notes
    rated = rate_moveless(raw)
    # the Chess960 game stays unrated; the others are rated
    assert rated.frame["rated"].to_list() == [None, None, "false", None]
    assert not any("(a forfeit" in n for n in rated.notes)


def test_ingest_rate_moveless_stores_them_rated(tmp_path):
    pgn = tmp_path / "x.pgn"
    pgn.write_text(MOVELESS)
    s = tmp_path / "s"
    assert main(["ingest", str(pgn), "--store", str(s), "--no-flow", "--rate-moveless"]) == 0
    games = sorted(sql(s, "SELECT white_id, black_id, rated FROM games").iter_rows())
    games = [(w[-1], b[-1], r) for w, b, r in games]
    assert games == [("A", "B", True), ("A", "C", True), ("B", "C", False), ("B", "C", True)]


def test_ingest_file_without_the_option_stores_moveless_unrated(tmp_path):
    pgn = tmp_path / "x.pgn"
    pgn.write_text(MOVELESS)
    store = Store(tmp_path / "s")
    ingest_file(store, pgn)
    rated = sorted(sql(store.root, "SELECT rated FROM games")["rated"].to_list())
    assert rated == [False, False, False, True]


# -- 5. Variant "Classical" is chess -----------------------------------------------------


@pytest.mark.parametrize("variant", ["Classical", "Standard", "chess", "classical"])
def test_variant_names_of_standard_chess_are_rated(tmp_path, variant):
    pgn = tmp_path / "v.pgn"
    pgn.write_text(pgn_game("1858.??.??", "A", "B", "1-0", Variant=variant))
    raw = read_pgn(pgn)
    assert raw.frame["rated"].to_list() == [None]
    assert not any("another variant" in n for n in raw.notes)


# -- 4. the card on a store without FIDE ratings -----------------------------------------


def test_card_on_a_historical_store_names_what_the_store_has(tmp_path, capsys):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(pgn_game("1858.??.??", "Morphy, Paul", "Harrwitz, Daniel", "1-0"))
    s = str(tmp_path / "s")
    assert main(["ingest", str(pgn), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["card", "Morphy", "--store", s]) == 2
    err = capsys.readouterr().err
    assert "the card is FIDE's only" in err
    assert "needs published starting ratings" in err
    assert "this store has ratings of ecf/standard" in err
    assert "arpad history Morphy --system ecf" in err
    assert "history:" not in err
    assert main(["card", "Morphy", "--system", "ecf", "--store", s]) == 2
    err = capsys.readouterr().err
    assert "FIDE's rating card only" in err and "not ecf's" in err
