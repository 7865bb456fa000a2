"""Who is active on a list (docs/observations.md "Who is on a list"): flag ``i`` and no
rank after 12 months without a rated game, for every system (the non-FIDE systems'
status ``inactive`` only says "no game this period"); ECF's interim lists keep the
graded players who have not played yet this season (docs/legacy-systems.md "Interim
lists"). Each test failed before: A, who played in January, was ``i`` and unranked on
February's list, and Alice was missing from ECF's interim list."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from arpad.pipeline.cli import main


def _store(root: Path, games: str, players: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "games.csv").write_text(games)
    args = ["ingest", str(root / "games.csv"), "--store", str(root / "S")]
    if players is not None:
        (root / "players.csv").write_text(players)
        args += ["--players", str(root / "players.csv")]
    assert main(args) == 0
    return root / "S"


def _rate(store: Path, system: str) -> None:
    assert main(["rate", "--system", system, "--store", str(store)]) == 0


def _list(store: Path, capsys, *args: str) -> list[dict[str, str]]:
    capsys.readouterr()
    assert main(["list", "--store", str(store), "--format", "csv", *args]) == 0
    return list(csv.DictReader(capsys.readouterr().out.splitlines()))


def _rows(rows, *columns):
    return [tuple(r[c] for c in columns) for r in rows]


JAN_FEB = (
    "date,white_id,black_id,result\n"
    "2024-01-10,A,B,1-0\n2024-01-11,A,C,1-0\n2024-02-10,B,C,1/2-1/2\n"
)


@pytest.mark.parametrize("system", ["elo", "glicko2", "uscf"])
def test_a_player_who_played_last_month_is_ranked(tmp_path, capsys, system):
    """A beat B and C in January and did not play in February: on February's list he
    is active (a game within 12 months), ranked and in ``--top``; his row's status
    stays ``inactive`` (no game this period)."""
    store = _store(tmp_path, JAN_FEB)
    _rate(store, system)
    rows = _list(store, capsys, "--system", system)
    got = {r["player_id"]: (r["rank"], r["flag"], r["games"], r["status"]) for r in rows}
    assert got["A"][0] != "" and got["A"][1:] == ("", "0", "inactive")
    assert all(r["flag"] == "" and r["rank"] != "" for r in rows)
    top = _list(store, capsys, "--system", system, "--top", "3")
    assert sorted(r["player_id"] for r in top) == ["A", "B", "C"]
    # --active 12 keeps the same players with the same ranks
    active = _list(store, capsys, "--system", system, "--active", "12")
    assert sorted(_rows(active, "player_id", "rank")) == sorted(_rows(rows, "player_id", "rank"))
    if system == "elo":
        # Elo, K 20, everybody from 1500: A +10 +10 = 1520 (expected 0.5 twice), B and
        # C 1490; their draw at 1490 each changes nothing. A is first.
        assert _rows(rows, "rank", "player_id", "rating", "k", "flag", "status") == [
            ("1", "A", "1520.0", "", "", "inactive"),
            ("2", "B", "1490.0", "20", "", "rated"),
            ("2", "C", "1490.0", "20", "", "rated"),
        ]
        # the combined file flags a player inactive on every pool's list: A is not
        capsys.readouterr()
        assert main(["list", "--store", str(store), "--system", "elo", "--pool", "all",
                     "--format", "csv"]) == 0  # fmt: skip
        combined = list(csv.DictReader(capsys.readouterr().out.splitlines()))
        assert {r["player_id"]: r["flag"] for r in combined} == {"A": "", "B": "", "C": ""}


def test_twelve_months_without_a_game_is_inactive(tmp_path, capsys):
    """D beat E in January 2023 and never played again (E and F play on): D is active
    on the list of December 2023 (his game 11 months before) and flagged ``i``,
    unranked and last from January 2024 (12 months). Abstract periods count as
    months: period 1, 12 and 13 give the same. FIDE keeps its own rule (its status)."""
    dated = (
        "date,white_id,black_id,result\n"
        "2023-01-10,D,E,1-0\n2023-12-10,E,F,1/2-1/2\n2024-01-10,E,F,1/2-1/2\n"
    )
    numbered = "period,white_id,black_id,result\n1,D,E,1-0\n12,E,F,1/2-1/2\n13,E,F,1/2-1/2\n"
    for name, games, before, after in (
        ("dated", dated, "202312", "202401"),
        ("numbered", numbered, "12", "13"),
    ):
        store = _store(tmp_path / name, games)
        _rate(store, "elo")
        # Elo, K 20: D 1500 + 10 = 1510, E 1490; E (1490) and F (1500) draw:
        # E + 20 (0.5 - 1/(1 + 10^(10/400))) = 1490 + 0.288 = 1490.3, F 1499.7
        shown = ("rank", "player_id", "rating", "flag", "status")
        assert _rows(_list(store, capsys, "--system", "elo", "--period", before), *shown) == [
            ("1", "D", "1510.0", "", "inactive"),
            ("2", "F", "1499.7", "", "rated"),
            ("3", "E", "1490.3", "", "rated"),
        ]
        rows = _list(store, capsys, "--system", "elo", "--period", after)
        assert _rows(rows, "rank", "player_id", "flag", "status")[-1] == (
            "",
            "D",
            "i",
            "inactive",
        )
        assert [r["player_id"] for r in _list(store, capsys, "--system", "elo", "--period",
                                              after, "--top", "5")] == ["F", "E"]  # fmt: skip
    # FIDE: the players file's ratings (active the month before the first period, FIDE's
    # rule) and D's 202301 game: D active on 202312 (status rated), not on 202401
    players = "player_id,name,rating\nD,Dee,2000\nE,Eve,2000\nF,Fay,2000\n"
    store = _store(tmp_path / "fide", dated, players)
    _rate(store, "fide")
    before = _list(store, capsys, "--system", "fide", "--period", "202312")
    assert {r["player_id"]: (r["flag"], r["status"]) for r in before}["D"] == ("", "rated")
    after = _list(store, capsys, "--system", "fide", "--period", "202401")
    assert _rows(after, "rank", "player_id", "flag", "status")[-1] == ("", "D", "i", "inactive")


def test_an_ecf_interim_list_keeps_the_published_grades(tmp_path, capsys):
    """Alice (150) beat Bob (130) in March 2011; the 2010/11 season closes in May 2011:
    Alice (180 + 29 x 150) / 30 = 151, Bob (100 + 29 x 130) / 30 = 129 (30-game rule).
    In August 2011 Bob beat Carl (no grade): Carl's interim estimate 129 - 50 = 79, Bob's
    interim grade 129. August's interim list keeps Alice at her published 151 (no game
    this season: 0 games, status inactive, but active: her game was 5 months before);
    the December publication lists her, ranked, as before."""
    games = "date,white_id,black_id,result\n2011-03-10,A,B,1-0\n2011-08-10,B,C,1-0\n"
    players = "player_id,name,grade,birth_year\nA,Alice,150,1970\nB,Bob,130,1970\nC,Carl,,1970\n"
    store = _store(tmp_path, games, players)
    _rate(store, "ecf")
    shown = ("rank", "player_id", "rating", "games", "k", "flag", "status")
    interim = [
        ("1", "A", "151", "0", "", "", "inactive"),
        ("2", "B", "129", "1", "", "", "provisional"),
        ("3", "C", "79", "1", "", "", "provisional"),
    ]
    assert _rows(_list(store, capsys, "--system", "ecf", "--date", "2011-10"), *shown) == interim
    assert _rows(_list(store, capsys, "--system", "ecf", "--period", "201108"), *shown) == interim
    assert _rows(_list(store, capsys, "--system", "ecf", "--period", "201105"), *shown) == [
        ("1", "A", "151", "1", "", "", "rated"),
        ("2", "B", "129", "1", "", "", "rated"),
    ]
    december = _list(store, capsys, "--system", "ecf", "--period", "201112")
    assert _rows(december, "rank", "player_id", "rating", "flag", "status") == [
        ("1", "A", "151", "", "inactive"),
        ("2", "B", "129", "", "rated"),
        ("3", "C", "79", "", "new"),
    ]
    # --min-games counts Alice's one game of March (her carried row has none of its own)
    rows = _list(store, capsys, "--system", "ecf", "--period", "201108", "--min-games", "1")
    assert [r["player_id"] for r in rows] == ["A", "B", "C"]
