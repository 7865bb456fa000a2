"""Round 10: the lists of a month without a pool's games, and ``--min-games`` under FIDE's
two-monthly lists (docs/lists.md "A pool without games in a period", "A minimum of games").

- officer10 defect 4: with rapid games only in October and standard games in October and
  November, the combined file of 1 December left the rapid columns empty and
  ``--pool rapid --in-force 2026-12-01`` printed October's list headed ``NOV26``; FIDE
  publishes the three lists every month, the rapid ratings carried with 0 games.
- historian: ``list --min-games`` added FIDE's two-monthly rows, whose closing month
  repeats the held month's games (as ``era`` did before round 10).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.cli import main

# Standard: Alpha 2000 beats Beta 1900 in October (D 100, PD 0.64, K 20: +7.2 → 2007 and
# 1893), draws in November (D 114, PD 0.66: −3.2 → 2004 and 1896). Rapid, October only:
# Alpha 1950 loses to Beta 1850 (−12.8 → 1937 and 1863). docs/rules.md.
REGISTER = (
    'player_id,name,standard_rating,rapid_rating\n1,"Alpha, A",2000,1950\n2,"Beta, B",1900,1850\n'
)
STANDARD = "date,white_id,black_id,result\n2026-10-05,1,2,1-0\n2026-11-05,1,2,1/2-1/2\n"
RAPID = "date,white_id,black_id,result,pool\n2026-10-06,1,2,0-1,rapid\n"


def _csv(out: str) -> pl.DataFrame:
    return pl.read_csv(out.encode(), schema_overrides={"player_id": pl.String})


def _run(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def officer(tmp_path) -> str:
    (tmp_path / "reg.csv").write_text(REGISTER)
    (tmp_path / "std.csv").write_text(STANDARD)
    (tmp_path / "rap.csv").write_text(RAPID)
    s = str(tmp_path / "M")
    files = [str(tmp_path / "std.csv"), str(tmp_path / "rap.csv")]
    assert (
        main(["ingest", "--no-flow", "--store", s, *files, "--players", str(tmp_path / "reg.csv")])
        == 0
    )
    for pool in ("standard", "rapid"):
        assert main(["rate", "--no-flow", "--store", s, "--system", "fide", "--pool", pool]) == 0
    return s


def test_the_combined_file_carries_the_rapid_ratings_of_a_month_without_rapid_games(
    officer, capsys
):
    # before: 1,"Alpha, A",…,2004,1,20,,,,,,,, (the rapid columns empty)
    want = [
        '1,"Alpha, A",,,,,,,2004,1,20,1937,0,,,,,,',
        '2,"Beta, B",,,,,,,1896,1,20,1863,0,,,,,,',
    ]
    for which in (["--period", "202611"], ["--in-force", "2026-12-01"]):
        code, out, _ = _run(
            capsys, "list", "--store", officer, "--pool", "all", *which, "--format", "csv"
        )
        assert code == 0 and out.splitlines()[1:] == want, which
    code, out, _ = _run(
        capsys,
        "list",
        "--store",
        officer,
        "--pool",
        "all",
        "--period",
        "202611",
        "--format",
        "fide-txt",
    )
    alpha = out.splitlines()[1]
    # docs/lists.md "Combined file": RRtng 126 (6), RGm 132 (4), Rk 136 (3)
    assert (alpha[126:132].strip(), alpha[132:136].strip(), alpha[136:139].strip()) == (
        "1937",
        "0",
        "",
    )
    # a month before the pool's first list has none: October's standard file is unchanged
    code, out, _ = _run(
        capsys, "list", "--store", officer, "--pool", "all", "--period", "202610", "--format", "csv"
    )
    assert out.splitlines()[1] == '1,"Alpha, A",,,,,,,2007,1,20,1937,1,20,,,,,'


def test_the_rapid_list_of_december_is_a_dec26_list(officer, capsys, monkeypatch):
    # before: period 2026-10, headed NOV26, with October's game and K
    code, out, err = _run(
        capsys,
        "list",
        "--store",
        officer,
        "--pool",
        "rapid",
        "--in-force",
        "2026-12-01",
        "--format",
        "fide-txt",
    )
    assert code == 0
    assert "list in force on 2026-12-01 = period 2026-11" in err
    lines = out.splitlines()
    assert lines[0][113:119].strip() == "DEC26"
    # rating 113 (6), Gms 119 (4), K 123 (3), Flag 132: carried, 0 games, no K, active
    assert [
        (ln[15:76].strip(), ln[113:119].strip(), ln[119:123].strip(), ln[123:].strip())
        for ln in lines[1:]
    ] == [
        ("Alpha, A", "1937", "0", ""),
        ("Beta, B", "1863", "0", ""),
    ]
    code, out, _ = _run(
        capsys,
        "list",
        "--store",
        officer,
        "--pool",
        "rapid",
        "--period",
        "202611",
        "--format",
        "csv",
    )
    assert code == 0  # before: exit 2, no fide/rapid list for period 202611
    assert out.splitlines()[1:] == [
        '1,1,"Alpha, A",,,,,,,1937,0,,,,rated',
        '2,2,"Beta, B",,,,,,,1863,0,,,,rated',
    ]
    # the latest rated rapid list is still the default; --date keeps its meaning
    code, out, _ = _run(capsys, "list", "--store", officer, "--pool", "rapid", "--format", "csv")
    assert out.splitlines()[1] == '1,1,"Alpha, A",,,,,,,1937,1,20,,,rated'
    # a month not over that no pool has a list of is still none (a finished month without
    # games has the latest list carried: docs/lists.md "A month without games")
    import datetime as dt

    from arpad.pipeline import publish

    monkeypatch.setattr(publish, "today", lambda: dt.date(2026, 12, 5))
    code, _, err = _run(capsys, "list", "--store", officer, "--pool", "rapid", "--period", "202612")
    assert code == 2 and "no fide/rapid list for period 202612" in err


def test_publications_carry_the_rapid_list_and_it_is_published_alone(officer, capsys):
    for pool, period in (("rapid", "202610"), ("standard", "202610"), ("standard", "202611")):
        assert (
            _run(capsys, "publish", "--store", officer, "--pool", pool, "--period", period)[0] == 0
        )
    folder = Path(officer) / "published" / "system=fide" / "pool=standard" / "period=202611"
    alpha = (folder / "combined.txt").read_text().splitlines()[1]
    assert (alpha[113:119].strip(), alpha[126:132].strip(), alpha[132:136].strip()) == (
        "2004",
        "1937",
        "0",
    )
    # round 11 (officer11 finding 3): the carried rapid list is frozen on its own too, as
    # FIDE publishes it (tests/test_monthly_r11.py); before, exit 2 "no fide/rapid ratings"
    code, _, err = _run(
        capsys, "publish", "--store", officer, "--pool", "rapid", "--period", "202611"
    )
    assert code == 0, err
    assert (Path(officer) / "published" / "system=fide" / "pool=rapid" / "period=202611").is_dir()


def test_in_force_carries_the_rapid_list_as_published(officer, tmp_path, capsys):
    assert (
        _run(capsys, "publish", "--store", officer, "--pool", "rapid", "--period", "202610")[0] == 0
    )
    # a correction of October's rapid game: a draw, D 100, PD 0.64: −2.8 → 1947 and 1853
    (tmp_path / "rap.csv").write_text(RAPID.replace("0-1", "1/2-1/2"))
    assert main(["ingest", "--no-flow", "--store", officer, str(tmp_path / "rap.csv")]) == 0
    assert (
        main(["rate", "--no-flow", "--store", officer, "--system", "fide", "--pool", "rapid"]) == 0
    )
    current = ["list", "--store", officer, "--pool", "rapid", "--format", "csv"]
    out = _run(capsys, *current, "--period", "202611")[1]
    assert _csv(out)["rating"].to_list() == [1947, 1853]
    out = _run(capsys, *current, "--in-force", "2026-12-01")[1]  # October's list as frozen
    assert _csv(out)["rating"].to_list() == [1937, 1863]
    out = _run(
        capsys,
        "list",
        "--store",
        officer,
        "--pool",
        "all",
        "--in-force",
        "2026-12-01",
        "--format",
        "csv",
    )[1]
    assert _csv(out)["rapid_rating"].to_list() == [1937, 1863]


# A carried list is the list the pool would have if it had been rated in the month with no
# game of these players: store X has rapid games in October 2025 only; store Y the same and
# rapid games of Gamma and Delta in September and October 2026. Eps has a rapid rating
# and no game. Standard games (Alpha–Beta) in 2025-10, 2026-09 and 2026-10.
REGISTER5 = (
    "player_id,name,sex,standard_rating,rapid_rating\n"
    '1,"Alpha, A",M,2000,1950\n2,"Beta, B",F,1900,1850\n3,"Gamma, C",M,1800,1800\n'
    '4,"Delta, D",M,1700,1700\n5,"Eps, E",F,,1600\n'
)
GAMES_X = (
    "date,white_id,black_id,result,pool\n2025-10-05,1,2,1-0,standard\n2025-10-06,1,2,0-1,rapid\n"
    "2026-09-05,1,2,1/2-1/2,standard\n2026-10-05,1,2,1/2-1/2,standard\n"
)
GAMES_Y = "date,white_id,black_id,result,pool\n2026-09-07,3,4,1-0,rapid\n2026-10-07,3,4,1-0,rapid\n"


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("carried")
    (root / "reg.csv").write_text(REGISTER5)
    (root / "x.csv").write_text(GAMES_X)
    (root / "y.csv").write_text(GAMES_Y)
    stores = {"X": [root / "x.csv"], "Y": [root / "x.csv", root / "y.csv"]}
    out = {}
    for name, files in stores.items():
        s = str(root / name)
        argv = [
            "ingest",
            "--no-flow",
            "--store",
            s,
            *map(str, files),
            "--players",
            str(root / "reg.csv"),
        ]
        assert main(argv) == 0
        for system in ("fide", "elo", "glicko"):
            for pool in ("standard", "rapid"):
                assert (
                    main(["rate", "--no-flow", "--store", s, "--system", system, "--pool", pool])
                    == 0
                )
        out[name] = s
    return out


def _rapid(store: str, system: str, period: int, capsys) -> pl.DataFrame:
    code, out, _ = _run(
        capsys,
        "list",
        "--store",
        store,
        "--system",
        system,
        "--pool",
        "rapid",
        "--period",
        str(period),
        "--format",
        "csv",
    )
    assert code == 0
    frame = _csv(out).filter(pl.col("player_id").is_in(["1", "2", "5"])).sort("player_id")
    # k all empty reads as text: compared as numbers
    return frame.select(
        "player_id", "rating", "games", pl.col("k").cast(pl.Float64), "flag", "status"
    )


@pytest.mark.parametrize("system", ["fide", "elo"])
def test_a_carried_list_is_the_list_of_a_month_rated_without_their_games(walked, system, capsys):
    for period in (202609, 202610):
        carried = _rapid(walked["X"], system, period, capsys)
        assert carried.equals(_rapid(walked["Y"], system, period, capsys)), (system, period)
    # by hand (docs/fide-history.md "Inactivity": i once the last rated game is 12 months
    # back; Eps's rating without a game counts as one in 2025-09, the month before the
    # first rated one): September 2026 Alpha and Beta active, Eps i; October all i
    sept = _rapid(walked["X"], system, 202609, capsys)
    octo = _rapid(walked["X"], system, 202610, capsys)
    assert sept["flag"].to_list() == [None, "w", "wi"]
    assert octo["flag"].to_list() == ["i", "wi", "wi"]
    assert set(sept["games"]) == {0} and sept["k"].null_count() == 3
    if system == "fide":
        assert sept["rating"].to_list() == [1937, 1863, 1600]
        assert sept["status"].to_list() == ["rated", "rated", "inactive"]
        assert octo["status"].to_list() == ["inactive"] * 3


def test_a_list_with_an_rd_is_not_carried(walked, capsys):
    # Glicko's RD grows in a period without games: the October 2025 RD is not September 2026's
    code, _, err = _run(
        capsys,
        "list",
        "--store",
        walked["X"],
        "--system",
        "glicko",
        "--pool",
        "rapid",
        "--period",
        "202609",
    )
    assert code == 2 and "no glicko/rapid list for period 202609" in err


# FIDE's two-monthly lists (the 2009-07 rules of every replay before 2009): May/June and
# July/August 1882 close in June and August; Steinitz plays 2 games in May and 1 in July,
# Winawer 1 in May, June and July, Noa 1 in May and June (tests/test_round10_era_plot.py).
def _game(date: str, white: str, black: str, result: str) -> str:
    elo = {"Steinitz, W": 2720, "Winawer, S": 2640, "Noa, J": 2150}
    return (
        f'[Event "Wien 1882"]\n[Date "{date}"]\n[White "{white}"]\n[Black "{black}"]\n'
        f'[WhiteElo "{elo[white]}"]\n[BlackElo "{elo[black]}"]\n[Result "{result}"]\n\n1. e4 e5 {result}\n\n'
    )


WIEN = (
    _game("1882.05.10", "Steinitz, W", "Winawer, S", "1-0")
    + _game("1882.05.12", "Noa, J", "Steinitz, W", "1-0")
    + _game("1882.06.02", "Winawer, S", "Noa, J", "1/2-1/2")
    + _game("1882.07.01", "Winawer, S", "Steinitz, W", "0-1")
)


def test_min_games_counts_two_monthly_fide_games_once(tmp_path, capsys):
    (tmp_path / "wien.pgn").write_text(WIEN)
    s = str(tmp_path / "S")
    assert main(["ingest", "--no-flow", "--store", s, str(tmp_path / "wien.pgn")]) == 0
    assert main(["rate", "--no-flow", "--store", s, "--system", "fide"]) == 0

    def listed(*extra: str) -> tuple[int, list[str]]:
        code, out, _ = _run(
            capsys, "list", "--store", s, "--system", "fide", "--format", "csv", *extra
        )
        return code, _csv(out)["player_id"].to_list() if code == 0 else []

    # before: Steinitz 6 (2 + 2 + 1 + 1), Winawer 5, Noa 3: all three had "3 or more"
    assert listed("--min-games", "3") == (0, ["wien.pgn:Steinitz, W", "wien.pgn:Winawer, S"])
    assert listed("--min-games", "4")[0] == 2
    # June's list (May and June): 2 games each; before, Steinitz 4, Winawer and Noa 3
    assert listed("--period", "188206", "--min-games", "2")[1] == [
        "wien.pgn:Steinitz, W",
        "wien.pgn:Winawer, S",
        "wien.pgn:Noa, J",
    ]
    assert listed("--period", "188206", "--min-games", "3")[0] == 2
