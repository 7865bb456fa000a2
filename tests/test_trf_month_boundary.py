"""An event's stated ratings are its starting ratings (docs/observations.md "Events
across a month boundary"): a TRF whose rounds run from 31 October to 2 November states
each player's rating once, and the November rounds must not re-seed the players with it
(that erased October's change, and every other October file's result of those players).

Expected values are worked by hand from FIDE B.02: PD from table 8.1.2 (docs/rules.md),
K = 20 (established, rated below 2400, adults), change K·ΣΔR rounded once per period,
half away from zero (§8.3.4).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arpad.pipeline import observations
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

PLAYERS = """player_id,name,birth_year,rating,rated_games,peak_rating
1001,"Aa, Anna",1980,2310,100,2350
1002,"Bb, Bert",1975,2220,100,2300
1003,"Cc, Cleo",1990,2250,100,2260
1004,"Ee, Emil",1985,2105,100,2150
1005,"Dd, Dora",1985,1950,100,1990
"""


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def _line001(rank: int, name: str, rating: int, fide: int, rounds) -> str:
    """A TRF16 001 line (docs/pgn-trf.md "TRF columns"); ``rounds``: per round
    (opponent rank, colour, result), or None for an absence (blank block)."""
    cells = [" "] * 91

    def put(col: int, text: str) -> None:  # 1-based columns
        for i, ch in enumerate(text):
            while col - 1 + i >= len(cells):
                cells.append(" ")
            cells[col - 1 + i] = ch

    put(1, "001")
    put(5, f"{rank:>4}")
    put(10, "m")
    put(15, f"{name:<33}")
    put(49, f"{rating:>4}")
    put(54, "POL")
    put(58, f"{fide:>11}")
    put(70, "1980/01/01")
    for r, block in enumerate(rounds):
        if block is not None:
            opponent, colour, result = block
            put(92 + 10 * r, f"{opponent:>4}")
            put(97 + 10 * r, colour)
            put(99 + 10 * r, result)
    return "".join(cells).rstrip()


def _trf(name: str, start: str, end: str, round_dates: list[str], players) -> str:
    dates = [" "] * 91
    for r, d in enumerate(round_dates):
        col = 92 + 10 * r
        dates += [" "] * max(0, col + 8 - len(dates))
        dates[col - 1 : col + 7] = d
    dates[0:3] = "132"
    lines = [
        f"012 {name}",
        f"042 {start}",
        f"052 {end}",
        "092 Individual: Swiss-System (Standard)",
        "".join(dates).rstrip(),
    ]
    lines += [_line001(*p) for p in players]
    return "\n".join(lines) + "\n"


def _ratings(root: Path, period: int) -> dict[str, dict]:
    rows = Store(root).read_ratings("fide", "standard", period).to_pylist()
    return {r["player_id"]: r for r in rows}


# Ranks 1..6: A 1001, B 1002, C 1003, D 1005 (also in the players file), F 1006 and
# G 1007 (TRF ratings only: absent in round 1, they meet in round 2 on 1 November).
BOUNDARY = _trf(
    "Memorial across the month",
    "2025/10/31",
    "2025/11/02",
    ["25/10/31", "25/11/01", "25/11/02"],
    [
        (1, "Aa, Anna", 2310, 1001, [(2, "w", "1"), (3, "b", "="), (4, "w", "=")]),
        (2, "Bb, Bert", 2220, 1002, [(1, "b", "0"), (4, "w", "1"), (3, "b", "=")]),
        (3, "Cc, Cleo", 2250, 1003, [(4, "b", "1"), (1, "w", "="), (2, "w", "=")]),
        (4, "Dd, Dora", 1950, 1005, [(3, "w", "0"), (2, "b", "0"), (1, "b", "=")]),
        (5, "Ff, Fritz", 1900, 1006, [None, (6, "w", "1"), None]),
        (6, "Gg, Greta", 2000, 1007, [None, (5, "b", "0"), None]),
    ],
)
# October games of the same players in the federation's monthly CSV.
OCTOBER_CSV = """game_id,date,white_id,black_id,result
oct-1,2025-10-15,1004,1001,1-0
oct-2,2025-10-20,1006,1007,1-0
"""


def test_november_rounds_continue_from_october(tmp_path):
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "t.trf").write_text(BOUNDARY)
    (tmp_path / "october.csv").write_text(OCTOBER_CSV)
    root = tmp_path / "s"
    files = [str(tmp_path / f) for f in ("october.csv", "t.trf")]
    assert (
        run("ingest", *files, "--players", str(tmp_path / "players.csv"), "--store", str(root)) == 0
    )
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    october, november = _ratings(root, 202510), _ratings(root, 202511)

    # October (from the players file; the TRF's ratings are the same):
    # A 2310: vs E 2105 (D 205, PD .76) lost -.76; vs B 2220 (D 90, PD .62) won +.38;
    #   20 × -.38 = -7.6 → -8: 2302 (the CSV game counts).
    # B 2220: vs A (D -90, PD .38) lost: 20 × -.38 = -7.6 → -8: 2212.
    # C 2250: vs D 1950 (D 300, PD .85) won: 20 × .15 = 3: 2253.  D: 20 × -.15 = -3: 1947.
    # E 2105: vs A (PD .24) won: 20 × .76 = 15.2 → 15: 2120.
    # F 1900 and G 2000, seeded from the TRF at its first month (31 October), not from
    # their first round (1 November): F vs G (D -100, PD .36) won: 20 × .64 = 12.8 → 13:
    #   1913; G: -13: 1987.
    expected_october = {
        "1001": (2310, 2302, 2),
        "1002": (2220, 2212, 1),
        "1003": (2250, 2253, 1),
        "1005": (1950, 1947, 1),
        "1004": (2105, 2120, 1),
        "1006": (1900, 1913, 1),
        "1007": (2000, 1987, 1),
    }
    # November, from October's results (not from the TRF's 001 ratings again):
    # A 2302: vs C 2253 (D 49, PD .57) ½ -.07; vs D 1947 (D 355, PD .89) ½ -.39;
    #   20 × -.46 = -9.2 → -9: 2293.
    # B 2212: vs D (D 265, PD .82) won +.18; vs C (D -41, PD .44) ½ +.06; 20 × .24 = 4.8 → 5.
    # C 2253: vs A (D -49, PD .43) ½ +.07; vs B (D 41, PD .56) ½ -.06; 20 × .01 = .2 → 0.
    # D 1947: vs B (PD .18) lost -.18; vs A (PD .11) ½ +.39; 20 × .21 = 4.2 → 4: 1951.
    # F 1913: vs G 1987 (D -74, PD .40) won: 20 × .60 = 12: 1925; G: -12: 1975.
    expected_november = {
        "1001": (2302, 2293, 2),
        "1002": (2212, 2217, 2),
        "1003": (2253, 2253, 2),
        "1005": (1947, 1951, 2),
        "1006": (1913, 1925, 1),
        "1007": (1987, 1975, 1),
    }
    for table, expected in ((october, expected_october), (november, expected_november)):
        for pid, (before, after, games) in expected.items():
            row = table[pid]
            assert (row["rating_before"], row["rating_after"], row["games"]) == (
                before,
                after,
                games,
            ), pid
    for pid in expected_november:
        assert november[pid]["rating_before"] == october[pid]["rating_after"], pid


def test_a_tournament_within_one_month_seeds_as_before(tmp_path):
    """A TRF inside October states A at 2300 while the system has him at 2315 after a
    September game: the stated (published) rating re-seeds him for October, as before."""
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "september.csv").write_text(
        "game_id,date,white_id,black_id,result\nsep-1,2025-09-10,1001,1004,1-0\n"
    )
    (tmp_path / "t.trf").write_text(
        _trf(
            "October Open",
            "2025/10/01",
            "2025/10/03",
            ["25/10/01", "25/10/03"],
            [
                (1, "Aa, Anna", 2300, 1001, [(2, "w", "1"), (2, "b", "=")]),
                (2, "Bb, Bert", 2220, 1002, [(1, "b", "0"), (1, "w", "=")]),
            ],
        )
    )
    root = tmp_path / "s"
    files = [str(tmp_path / f) for f in ("september.csv", "t.trf")]
    assert run("ingest", *files, "--store", str(root)) == 0
    # The players file last: its 2310 is A's undated starting rating (the last rating
    # ingested is; docs/observations.md "Edge cases").
    assert run("ingest", str(tmp_path / "players.csv"), "--store", str(root)) == 0
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    # September: A 2310 vs E 2105 (D 205, PD .76) won: 20 × .24 = 4.8 → 5: 2315.
    assert _ratings(root, 202509)["1001"]["rating_after"] == 2315
    october = _ratings(root, 202510)
    # October from the TRF's 2300: vs B 2220 (D 80, PD .61) won +.39, ½ -.11;
    # 20 × .28 = 5.6 → 6: 2306. B: 20 × -.28 = -5.6 → -6: 2214.
    assert (october["1001"]["rating_before"], october["1001"]["rating_after"]) == (2300, 2306)
    assert (october["1002"]["rating_before"], october["1002"]["rating_after"]) == (2220, 2214)


def test_event_start_ratings_rule():
    """The rule on arrays: per player and event a repeated rating is dropped, the first
    is dated at the first month of its file's run of consecutive months, a different
    later rating stays; ratings of no event (-1) are untouched."""
    event = np.array([0, 0, 0, 0, 0, -1, -1])
    in_file = np.array([0, 0, 0, 0, 0, -1, -1])
    player = np.array([1, 1, 2, 1, 1, 1, 1])
    period = np.array([202510, 202511, 202511, 202512, 202603, 202511, 202512])
    rating = np.array([2310.0, 2310.0, 2000.0, 2330.0, 2330.0, 2310.0, 2310.0])
    keep, moved = observations.event_start_ratings(event, in_file, player, period, rating)
    assert keep.tolist() == [True, False, True, True, False, True, True]
    assert moved[keep].tolist() == [202510, 202510, 202512, 202511, 202512]


def test_a_pgn_event_across_months_states_its_tags_once(tmp_path):
    """PGN tags go through the same rule, per file and Event: a November game of the same
    event repeating October's tag does not re-seed; a changed tag does."""
    game = (
        '[Event "{event}"]\n[Date "{date}"]\n[White "{w}"]\n[Black "{b}"]\n'
        '[Result "{r}"]\n[WhiteElo "{we}"]\n[BlackElo "{be}"]\n\n1. e4 e5 {r}\n'
    )
    text = "\n".join(
        [
            game.format(event="Open", date="2025.10.31", w="A", b="B", r="1-0", we=2310, be=2220),
            game.format(
                event="Open", date="2025.11.01", w="B", b="A", r="1/2-1/2", we=2220, be=2310
            ),
            game.format(
                event="Club Match", date="2025.11.02", w="A", b="B", r="1-0", we=2310, be=2250
            ),
        ]
    )
    path = tmp_path / "e.pgn"
    path.write_text(text)
    root = tmp_path / "s"
    assert run("ingest", str(path), "--store", str(root)) == 0
    ids = ["e.pgn:A", "e.pgn:B"]
    obs = observations.pool_observations(Store(root), "standard", ids)
    got = sorted(zip(obs.period.tolist(), obs.player.tolist(), obs.rating.tolist()))
    # "Open": one observation per player, October. "Club Match" (another event, standard
    # pool): A's and B's tags are that event's own first statements.
    assert got == [
        (202510, 0, 2310.0),
        (202510, 1, 2220.0),
        (202511, 0, 2310.0),
        (202511, 1, 2250.0),
    ]
