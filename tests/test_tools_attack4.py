"""`arpad performance`, `norm`, `category` and `class` as a non-FIDE rating officer met
them (docs/cli.md "Performance, norms, categories"): a players file's bad rows named,
a CSV player found by the name its players file gives, no rating out of range taken."""

from __future__ import annotations

import pytest

from arpad.pipeline.cli import main


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_players_file_rows_that_cannot_be_read_are_named(tmp_path, capsys):
    """The rows were dropped unsaid: X's two wins against A and B left out, exit 0."""
    games = _write(
        tmp_path / "games.csv",
        "date,white_id,black_id,result,event_id\n"
        "2024-05-02,X,A,1-0,T\n2024-05-03,B,X,0-1,T\n2024-05-04,X,C,0-1,T\n",
    )
    players = _write(
        tmp_path / "players.csv",
        'player_id,name,rating\nX,"Doe, Xavier",2200\nA,Smith, John,2000\nB,Brown,21OO\n'
        'C,"Cole, C",2600\n',
    )
    for argv in (
        ["performance", str(games), "--players", str(players)],
        ["category", str(games), "--players", str(players)],
        ["norm", str(games), "--player", "X", "--title", "IM", "--players", str(players)],
    ):
        main(argv)
        err = capsys.readouterr().err
        assert "players.csv: 2 players rows could not be read and are left out" in err
        assert "line 3: 4 fields where the header has 3" in err
        assert "line 4: rating 21OO is not a number" in err


def test_norm_finds_a_csv_player_by_the_players_file_name(tmp_path, capsys):
    """'Norm, Nora' was "no rated games of player 'Norm, Nora'": only a PGN/TRF's own
    names were searched."""
    rows = [f"2024-05-0{i + 1},N,P{i},1/2-1/2,Open" for i in range(1, 4)]
    games = _write(tmp_path / "g.csv", "date,white_id,black_id,result,event_id\n" + "\n".join(rows))
    players = _write(
        tmp_path / "p.csv",
        'player_id,name,rating\nN,"Norm, Nora",2420\nP1,"A, A",2500\nP2,"B, B",2400\n'
        'P3,"C, C",2300\n',
    )
    base = ["norm", str(games), "--title", "IM", "--players", str(players), "--player"]
    assert main([*base, "Norm, Nora"]) == 0
    out, err = capsys.readouterr()
    assert "Norm, Nora is the name of N (Norm, Nora)" in err
    # Ra = (2500 + 2400 + 2300) / 3 = 2400; 1.5 points of 3
    assert out.startswith("N: IM norm check, 3 games, 1.5 points (50 %)")
    assert "Ra 2400" in out
    assert main([*base, "Nobody"]) == 2
    assert "no rated games of player 'Nobody' in" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-5", "99999"])
def test_ratings_out_of_range_are_refused(capsys, value):
    """`class nan` was an AssertionError traceback; `category --average nan|-5` printed
    0 and `99999` printed 3910, exit 0."""
    for argv in (["class", "--", value], ["category", f"--average={value}"]):
        assert main(argv) == 2
        assert f"{value!r} is not a rating (a number in 0..4000)" in capsys.readouterr().err
    # 2251..2275 is category 1 (docs/rules.md): 2275.4 rounds to 2275
    assert main(["category", "--average", "2275.4"]) == 0
    assert capsys.readouterr().out.strip() == "1"


def test_a_stated_rating_of_zero_is_no_rating_in_performance(tmp_path, capsys):
    """B's opponent rated 0 in one game was averaged in: average opponent 1000, true
    performance about 0. A 0 is FIDE's "unrated" (docs/observations.md), so that game is
    left out, as the same games without the rating give."""
    header = "game_id,date,white_id,black_id,result,white_rating,black_rating\n"
    for name, first in (("zero.csv", "0"), ("empty.csv", "")):
        rows = f"z1,2024-01-05,A,B,1-0,{first},1900\nz2,2024-01-06,A,B,1-0,2000,1900\n"
        path = _write(tmp_path / name, header + rows)
        assert main(["performance", str(path), "--format", "csv"]) == 0
        out = capsys.readouterr().out.splitlines()
        b = next(line for line in out if line.startswith("B,"))
        # one game (z2), 0 of 1 against 2000: FIDE table dp(0 %) = -800 → 1200
        assert b.split(",")[1:6] == ["1", "0.0", "0.0", "2000.0", "1200.0"]
