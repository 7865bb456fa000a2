"""The register wins (docs/ingest.md "The register wins"; the officer's attack, round 1):
a games file's player description (TRF 001 line, PGN tags) never overwrites a field a
players file gave; the undated starting rating comes from players files only
(docs/observations.md); a players-file rating of 0 is unrated.

FIDE figures are computed by hand with docs/rules.md: table 8.1.2 gives PD(H) 0.66 for
D 114..121 and 0.67 for D 122..129; K 10 for a player rated 2400 or more, 20 below
with 30 or more rated games; the change K × ΣΔR is rounded once, 0.5 away from zero."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from arpad.pipeline import observations
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

PLAYERS = (
    "player_id,name,federation,title,rating,rated_games,birth_year\n"
    '4600010,"Müller, Jürgen",TUR,,2510,500,1975\n'
    '4600052,"García, José",ESP,IM,2395,300,1980\n'
)
NOV = "date,white_id,black_id,result\n2026-11-17,4600010,4600052,1-0\n"
TEMPLATES = (  # the two 001 lines of the officer's dec3.trf
    "001    1 m GM Müller, Jürgen                    2513 GER     4600010 1975"
    "        1.0    1     2 w 1",
    "001    2 m IM García, José                      2388 ESP     4600052 1980"
    "        0.0    2     1 b 0",
)


def put(line: str, first: int, last: int, text: str, right: bool = False) -> str:
    width = last - first + 1
    text = text.rjust(width) if right else text.ljust(width)
    return line[: first - 1] + text + line[last:]


def trf(event: str, players: list[tuple[str, str, str, str, str]]) -> str:
    """A one-round TRF on 2026-12-01: the first player beats the second. ``players``:
    (title letter(s) as a TRF writes them, name, rating, federation, FIDE id)."""
    lines = [
        f"012 {event}",
        "042 2026/12/01",
        "052 2026/12/01",
        "092 Individual: Round robin",
        "132" + " " * 88 + "26/12/01",
    ]
    for rank, (title, name, rating, fed, fid) in enumerate(players, start=1):
        line = put(TEMPLATES[rank - 1], 11, 13, title, right=True)
        line = put(line, 15, 47, name)
        line = put(line, 49, 52, rating, right=True)
        line = put(line, 54, 56, fed)
        line = put(line, 58, 68, fid, right=True)
        lines.append(line)
    return "\n".join(lines) + "\n"


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def ratings(root: Path, period: int) -> dict[str, dict]:
    table = Store(root).read_ratings("fide", "standard", period)
    return {r["player_id"]: r for r in table.to_pylist()}


def players(root: Path) -> dict[str, dict]:
    return {r["player_id"]: r for r in Store(root).read_players().to_pylist()}


def undated(root: Path) -> dict[str, float]:
    store = Store(root)
    table = store.read_players()
    ids = table.column("player_id")
    rating = table.column("rating").to_numpy(zero_copy_only=False).astype(float)
    got = observations.undated_ratings(store, pa.array(ids.to_pylist(), pa.string()), rating)
    return dict(zip(ids.to_pylist(), got.tolist()))


def test_a_trf_does_not_re_rate_a_published_month(tmp_path, capsys):
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "nov.csv").write_text(NOV)
    (tmp_path / "dec3.trf").write_text(
        trf(
            "Vereinsmeisterschaft Dezember",
            [
                ("GM", "Müller, Jürgen", "2513", "GER", "4600010"),
                ("IM", "García, José", "2388", "ESP", "4600052"),
            ],
        )
    )
    root = str(tmp_path / "S")
    files = [str(tmp_path / "players.csv"), str(tmp_path / "nov.csv")]
    assert run("ingest", *files, "--store", root) == 0
    assert run("rate", "--system", "fide", "--store", root) == 0
    # November by hand: D = 115, PD 0.66; Müller K 10: 2510 + 3.4 -> 2513; García K 20:
    # 2395 - 6.8 -> 2388.
    nov = ratings(tmp_path / "S", 202611)
    assert (nov["4600010"]["rating_after"], nov["4600052"]["rating_after"]) == (2513, 2388)
    assert main(["publish", "--store", root]) == 0
    capsys.readouterr()
    assert run("ingest", str(tmp_path / "dec3.trf"), "--store", root) == 0
    out = capsys.readouterr().out
    # The TRF's 001 line says GER, the register TUR: kept, and said once.
    assert "federation GER here, TUR in the register" in out
    # The register's rating, federation and titles stay: its title column gave Müller
    # none, so the TRF's GM is not taken either (round 11, tests/test_titles_r11.py).
    assert "4600010: title GM here, none in the register, federation GER here" in out
    table = players(tmp_path / "S")
    assert table["4600010"]["rating"] == 2510 and table["4600052"]["rating"] == 2395
    assert table["4600010"]["federation"] == "TUR" and table["4600010"]["title"] is None
    assert undated(tmp_path / "S") == {"4600010": 2510.0, "4600052": 2395.0}
    assert run("rate", "--system", "fide", "--store", root) == 0
    nov = ratings(tmp_path / "S", 202611)
    assert (nov["4600010"]["rating_before"], nov["4600052"]["rating_before"]) == (2510, 2395)
    assert (nov["4600010"]["rating_after"], nov["4600052"]["rating_after"]) == (2513, 2388)
    # December from November's result (the TRF states the same numbers): D = 125, PD
    # 0.67; 2513 + 3.3 -> 2516; 2388 - 6.6 -> 2381.
    dec = ratings(tmp_path / "S", 202612)
    assert (dec["4600010"]["rating_after"], dec["4600052"]["rating_after"]) == (2516, 2381)
    capsys.readouterr()
    assert main(["diff", "--published", "202611", "--store", root]) == 0
    assert "0 player(s) whose fide/standard rating of period 202611 changed" in (
        capsys.readouterr().out
    )


def test_the_register_updated_in_the_same_command_as_a_trf_wins(tmp_path, capsys):
    (tmp_path / "players.csv").write_text(PLAYERS)
    root = str(tmp_path / "S")
    assert run("ingest", str(tmp_path / "players.csv"), "--store", root) == 0
    # The register moves Müller TUR -> GER; the TRF, read after it, still says TUR.
    (tmp_path / "players2.csv").write_text(
        'player_id,name,federation\n4600010,"Müller, Jürgen",GER\n'
    )
    (tmp_path / "x.trf").write_text(
        trf(
            "Open",
            [
                ("GM", "Müller, Jürgen", "2513", "TUR", "4600010"),
                ("f", "Neu, Nina", "1900", "AUT", "4600099"),
            ],
        ).replace("4600010 1975", "4600010 1976")  # and a birth year unlike the register's
    )
    capsys.readouterr()
    code = run(
        "ingest", str(tmp_path / "x.trf"), "--players", str(tmp_path / "players2.csv"),
        "--store", root,
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "1 player(s) whose name, title or federation in the file differs" in out
    # (players.csv's title column gave Müller no title: the TRF's GM differs too)
    assert "4600010: title GM here, none in the register, federation TUR here, GER" in out
    table = players(tmp_path / "S")
    assert table["4600010"]["federation"] == "GER"
    assert table["4600010"]["rating"] == 2510  # not the TRF's 2513
    assert table["4600010"]["birth_year"] == 1975
    assert "birth year differs between sources" in out
    assert "the players file's value is kept" in out
    # A player known from TRFs only: the TRF's values; a later TRF updates them.
    assert (table["4600099"]["title"], table["4600099"]["federation"]) == ("FM", "AUT")
    (tmp_path / "y.trf").write_text(
        trf(
            "Open 2",
            [
                ("m", "Neu, Nina", "1950", "GER", "4600099"),
                ("GM", "Müller, Jürgen", "2513", "GER", "4600010"),
            ],
        )
    )
    capsys.readouterr()
    assert run("ingest", str(tmp_path / "y.trf"), "--store", root) == 0
    # all agree but Müller's GM, which the register's title column does not give him
    assert (
        "the players file's (the register's value is kept; e.g. 4600010: title GM here, "
        "none in the register)" in capsys.readouterr().out
    )
    table = players(tmp_path / "S")
    assert (table["4600099"]["title"], table["4600099"]["federation"]) == ("IM", "GER")
    assert table["4600099"]["rating"] == 1950
    # Among players files the latest wins, as before.
    (tmp_path / "players3.csv").write_text("player_id,federation\n4600010,AUT\n")
    assert run("ingest", "--players", str(tmp_path / "players3.csv"), "--store", root) == 0
    assert players(tmp_path / "S")["4600010"]["federation"] == "AUT"


def test_the_undated_start_is_the_latest_players_files_not_the_table(tmp_path):
    root = str(tmp_path / "S")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("player_id,rating,rated_games\nP1,2400,100\nP2,2000,50\n")
    b.write_text("player_id,rating\nP1,2450\n")
    assert run("ingest", "--players", str(a), "--store", root) == 0
    assert run("ingest", "--players", str(b), "--store", root) == 0
    assert undated(tmp_path / "S") == {"P1": 2450.0, "P2": 2000.0}
    # A correction of a.csv is the latest players file now.
    a.write_text("player_id,rating,rated_games\nP1,2420,100\nP2,2000,50\n")
    assert run("ingest", "--players", str(a), "--store", root) == 0
    assert players(tmp_path / "S")["P1"]["rating"] == 2420
    assert undated(tmp_path / "S") == {"P1": 2420.0, "P2": 2000.0}
    # A dated players file writes its last row into the players table, but it is a
    # dated observation: the undated start stays the undated row's.
    dated = tmp_path / "dated.csv"
    dated.write_text("player_id,date,rating\nP1,2026-01,2600\n")
    assert run("ingest", "--players", str(dated), "--store", root) == 0
    assert players(tmp_path / "S")["P1"]["rating"] == 2600
    assert undated(tmp_path / "S") == {"P1": 2420.0, "P2": 2000.0}


def test_an_observations_file_without_sources_keeps_the_table_value(tmp_path):
    # Not written by ingest (no source column): no ingest order, the table's value of
    # the players it rates, as before.
    import pyarrow.parquet as pq

    store = Store(tmp_path / "S")
    path = observations.observations_path(store)
    path.parent.mkdir(parents=True)
    table = pa.table(
        {
            "player_id": ["A", "B"],
            "rating": [1500.0, None],
            "period": pa.array([None, None], pa.int32()),
        }
    )
    pq.write_table(table, path)
    got = observations.undated_ratings(store, ["A", "B", "C"], np.array([2000.0, 2100.0, 2200.0]))
    assert got[0] == 2000.0 and np.isnan(got[1]) and np.isnan(got[2])


def test_a_rating_of_0_is_unrated(tmp_path, capsys):
    (tmp_path / "players.csv").write_text(
        "player_id;name;rating;rated_games;peak_rating;grade\n"
        '4700001;"Alt, Anna";2000;100;2050;\n'
        '4700004;"Ny, Per";0;0;0;0\n'
    )
    (tmp_path / "games.csv").write_text(
        "date,white_id,black_id,result\n2026-11-05,4700001,4700004,1-0\n"
    )
    root = str(tmp_path / "S")
    capsys.readouterr()
    files = [str(tmp_path / "players.csv"), str(tmp_path / "games.csv")]
    assert run("ingest", *files, "--store", root) == 0
    out = capsys.readouterr().out
    assert "1 player row(s) with rating 0: read as unrated" in out
    assert "1 player row(s) with peak_rating 0" in out
    per = players(tmp_path / "S")["4700004"]
    assert per["rating"] is None and per["rated_games"] is None and per["peak_rating"] is None
    assert per["grade"] == 0.0  # an ECF grade 0 is a real grade
    assert run("rate", "--system", "fide", "--store", root) == 0
    nov = ratings(tmp_path / "S", 202611)
    # Against an unrated opponent a rated player's rating does not change (docs/rules.md
    # "Games that are not rated"); rated 0, Anna got 2000 + 20 × (1 - 0.92) -> 2002.
    assert nov["4700001"]["rating_after"] == 2000
    assert nov["4700004"]["rating_after"] is None
