"""A TRF's 001 ratings of a rapid or blitz event count for that pool only (the rating
officer's report, round 12, finding 3; docs/observations.md "Stated ratings and the
players table"): they do not become the players table's `rating` (the standard one)
and do not mark the standard pool stale. A standard TRF still writes the rating of a
player no players file rated into the table, and marks only its own periods stale.

FIDE figures by hand with docs/rules.md: table 8.1.2 gives PD(H) .63 for D 92..98,
.77 for D 207..215, .78 for D 216..224; K 20 below 2400 with 30 or more rated games
(the register's rated_games count in every pool); the change K × ΣΔR is rounded once,
0.5 away from zero."""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline import incremental
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,federation,birth_year,rating,rated_games\n"
    '4100001,"Alt, Anna",HUN,1980,2000,100\n'
    '4100002,"Berg, Bela",HUN,1980,2100,100\n'
    '4100003,"Csak, Csaba",HUN,1980,,50\n'  # no rating in the register (as 1000050)
)
A = ("Alt, Anna", "4100001")
B = ("Berg, Bela", "4100002")
C = ("Csak, Csaba", "4100003")


def line(rank: int, player: tuple[str, str], rating: int, opp: int, colour: str, res: str) -> str:
    name, fid = player
    pts = {"1": "1.0", "=": "0.5", "0": "0.0"}[res]
    return (
        f"001 {rank:>4} m    {name:<33} {rating:>4} HUN {fid:>11} 1980/01/01 {pts:>4} {rank:>4}"
        f"  {opp:>4} {colour} {res}"
    )


def trf(event: str, date: str, white: tuple, black: tuple, result: str) -> str:
    """A one-round TRF on ``date``: ``white`` and ``black`` are (player, rating),
    ``result`` white's score (1, =, 0)."""
    y, m, d = date.split("/")
    other = {"1": "0", "=": "=", "0": "1"}[result]
    return (
        "\n".join(
            [
                f"012 {event}",
                f"042 {date}",
                f"052 {date}",
                "132" + " " * 88 + f"{y[2:]}/{m}/{d}",
                line(1, white[0], white[1], 2, "w", result),
                line(2, black[0], black[1], 1, "b", other),
            ]
        )
        + "\n"
    )


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def table_rating(root: Path, player_id: str):
    rows = Store(root).read_players().to_pylist()
    return {r["player_id"]: r["rating"] for r in rows}[player_id]


def rate(root: Path) -> None:
    for pool in ("standard", "rapid"):
        assert run("rate", "--system", "fide", "--pool", pool, "--store", str(root)) == 0


def after(root: Path, pool: str, period: int) -> dict[str, tuple]:
    """(rating before, after) of the players who played in ``period``."""
    rows = Store(root).read_ratings("fide", pool, period).to_pylist()
    return {r["player_id"]: (r["rating_before"], r["rating_after"]) for r in rows if r["games"]}


def test_a_rapid_trf_marks_its_pool_alone_and_keeps_the_table_rating(tmp_path, capsys):
    files = {
        "players.csv": REGISTER,
        # January, standard: Berg 2100 beats Csak 1886 (his only rating: this TRF's)
        "jan.trf": trf("Club Championship", "2026/01/10", (B, 2100), (C, 1886), "1"),
        # January, rapid: Alt 2000 draws Csak 1900
        "janr.trf": trf("Club Rapid January", "2026/01/17", (A, 2000), (C, 1900), "="),
        # February, rapid: the arbiter's ratings after January; Csak beats Alt
        "febr.trf": trf("Club Rapid February", "2026/02/07", (A, 1997), (C, 1903), "0"),
        # February, standard: Berg 2105 draws Csak 1881
        "feb.trf": trf("Club Championship", "2026/02/14", (B, 2105), (C, 1881), "="),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    root = tmp_path / "S"
    first = [str(tmp_path / n) for n in ("players.csv", "jan.trf", "janr.trf")]
    assert run("ingest", *first, "--store", str(root)) == 0
    # A standard TRF gives a player no players file rated his table rating; the rapid
    # TRF's 1900 does not replace it (before: 1900).
    assert table_rating(root, "4100003") == 1886
    rate(root)
    assert incremental.read_stale(Store(root)) == {}
    # Standard 202601: D 214, PD .77/.23: Berg +.23 × 20 = 4.6 -> 2105; Csak -5 -> 1881.
    assert after(root, "standard", 202601) == {"4100002": (2100, 2105), "4100003": (1886, 1881)}
    # Rapid 202601: D 100, PD .64: a draw, Alt -.14 × 20 = -2.8 -> 1997; Csak +3 -> 1903.
    assert after(root, "rapid", 202601) == {"4100001": (2000, 1997), "4100003": (1900, 1903)}

    capsys.readouterr()
    assert run("ingest", str(tmp_path / "febr.trf"), "--store", str(root)) == 0
    assert "pool rapid (the word 'Rapid' in the 012 tournament name" in capsys.readouterr().out
    # Only the rapid pool, from February (before: {"fide/rapid": 0, "fide/standard": 0},
    # Csak's table rating 1886 -> 1903 read as a changed starting state).
    assert incremental.read_stale(Store(root)) == {"fide/rapid": 202602}
    assert table_rating(root, "4100003") == 1886
    rate(root)
    # Rapid 202602 by hand: D = 1997 - 1903 = 94, PD .63/.37. Csak wins: +.63 × 20 =
    # 12.6 -> +13, 1916; Alt -.63 × 20 = -12.6 -> -13, 1984.
    assert after(root, "rapid", 202602) == {"4100001": (1997, 1984), "4100003": (1903, 1916)}
    assert after(root, "standard", 202601) == {"4100002": (2100, 2105), "4100003": (1886, 1881)}

    # A standard TRF updates the table rating of a player only games files rated
    # (docs/ingest.md "The register wins"), and marks its own period alone: that
    # rating seeds nothing (the undated start comes from players files only).
    assert run("ingest", str(tmp_path / "feb.trf"), "--store", str(root)) == 0
    assert table_rating(root, "4100003") == 1881
    assert incremental.read_stale(Store(root)) == {"fide/standard": 202602}
    rate(root)
    # Standard 202602: D 224, PD .78/.22: a draw, Berg -.28 × 20 = -5.6 -> 2099;
    # Csak +.28 × 20 = 5.6 -> 1887.
    assert after(root, "standard", 202602) == {"4100002": (2105, 2099), "4100003": (1881, 1887)}
    assert after(root, "rapid", 202602) == {"4100001": (1997, 1984), "4100003": (1903, 1916)}


def test_ratings_of_a_blitz_trf_are_not_the_table_rating_of_a_new_player(tmp_path):
    # Players known from a blitz TRF only: the table has no (standard) rating for them.
    (tmp_path / "b.trf").write_text(trf("Blitz Open", "2026/03/01", (A, 2050), (B, 2150), "="))
    root = tmp_path / "S"
    assert run("ingest", str(tmp_path / "b.trf"), "--store", str(root)) == 0
    assert table_rating(root, "4100001") is None and table_rating(root, "4100002") is None
    # read as a standard event (--pool standard), the same ratings fill the table
    root2 = tmp_path / "S2"
    args = ("ingest", str(tmp_path / "b.trf"), "--pool", "standard", "--store", str(root2))
    assert run(*args) == 0
    assert table_rating(root2, "4100001") == 2050 and table_rating(root2, "4100002") == 2150
