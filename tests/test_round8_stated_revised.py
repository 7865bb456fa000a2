"""The officer's attack, round 8, defect 2: a correction of a frozen month revises
players' ratings (the report's "Revisions"), and the next month's file states the frozen,
pre-correction rating, which replaces the revised one (docs/observations.md "Corrections
and stated ratings": the rule is kept). The monthly report names each such player, with
his revised and stated ratings and the file, and the remedy, ``--ignore-stated-ratings``
on the files ingested again, carries the corrections."""

from __future__ import annotations

import datetime as dt
import os

from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_lists_attack import pin_today

REGISTER = (
    "player_id,name,federation,birth_year,rating,rated_games\n"
    '1001,"Alfa, Anna",HUN,1980,2000,100\n'
    '1002,"Bravo, Bela",HUN,1980,1900,100\n'
    '1003,"Cseh, Csaba",HUN,1980,2100,100\n'
    '1004,"Dudas, Dora",HUN,1980,2000,100\n'
)
GAMES = "date,white_id,black_id,result\n"
SEPTEMBER = GAMES + "2026-09-10,1001,1002,1/2-1/2\n2026-09-11,1003,1004,1/2-1/2\n"
SEPTEMBER_CORRECTED = GAMES + "2026-09-10,1001,1002,1-0\n2026-09-11,1003,1004,1-0\n"
A, B = ("1001", "Alfa, Anna"), ("1002", "Bravo, Bela")
C, D = ("1003", "Cseh, Csaba"), ("1004", "Dudas, Dora")
HEADING = "Revisions not carried forward (fide/standard)"


def put(line: str, first: int, last: int, text: str, right: bool = False) -> str:
    """``text`` in the TRF columns first..last (1-based, docs/pgn-trf.md)."""
    width = last - first + 1
    text = text.rjust(width) if right else text.ljust(width)
    return line[: first - 1] + text + line[last:]


def trf(event: str, day: str, white: tuple, black: tuple, result: str) -> str:
    """A one-round TRF on ``day`` (YYYY/MM/DD): ``white`` and ``black`` are (id, name,
    stated rating); ``result`` is White's: 1, = or 0."""
    lines = [
        f"012 {event}",
        f"042 {day}",
        f"052 {day}",
        "092 Individual: Round robin",
        "132" + " " * 88 + day[2:],
    ]
    points = {"1": "1.0", "=": "0.5", "0": "0.0"}
    other = {"1": "0", "0": "1", "=": "="}[result]
    for rank, (pid, name, rating), opponent, colour, res in (
        (1, white, 2, "w", result),
        (2, black, 1, "b", other),
    ):
        line = put(" " * 100, 1, 3, "001")
        line = put(line, 5, 8, str(rank), right=True)
        line = put(line, 10, 10, "m")
        line = put(line, 15, 47, name)
        line = put(line, 49, 52, str(rating), right=True)
        line = put(line, 54, 56, "HUN")
        line = put(line, 58, 68, pid, right=True)
        line = put(line, 70, 79, "1980")
        line = put(line, 81, 84, points[res], right=True)
        line = put(line, 86, 89, str(rank), right=True)
        line = put(line, 92, 95, str(opponent), right=True)
        line = put(line, 97, 97, colour)
        line = put(line, 99, 99, res)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def recalculate(root, inbox, *options: str) -> int:
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    return main([*argv, "--systems", "fide", *options])


def start_and_end(root, period: int) -> dict[str, tuple[float, float]]:
    table = Store(root).read_ratings("fide", "standard", period)
    return {r["player_id"]: (r["rating_before"], r["rating_after"]) for r in table.to_pylist()}


def test_a_revision_a_later_file_replaced_is_named_with_the_remedy(tmp_path, monkeypatch, capsys):
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    # Every player K 20 (100 rated games, born 1980, never 2400: §8.3.3, docs/rules.md);
    # each pairing's difference is 100 or 94: PD(H) 0.64 (D 99-106) or 0.63 (D 92-98),
    # FIDE table 8.1.2, a period's change rounded half away from zero.
    # September: two draws. Alfa 2000 - Bravo 1900: 20 x (0.5 - 0.64) = -2.8 -> -3:
    # Alfa 1997, Bravo 1903; Cseh 2100 - Dudas 2000 the same: Cseh 2097, Dudas 2003.
    (inbox / "m1.csv").write_text(SEPTEMBER)
    pin_today(monkeypatch, dt.date(2026, 10, 1))
    assert recalculate(root, inbox) == 0
    # October: the arbiter states the September list (Cseh 2097, Dudas 2003); Cseh wins
    # (D 94, PD 0.63): 20 x 0.37 = 7.4 -> +7: Cseh 2104, Dudas 1996. Alfa, Bravo idle.
    (inbox / "m2.trf").write_text(trf("Autumn Cup", "2026/10/14", (*C, 2097), (*D, 2003), "1"))
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    assert recalculate(root, inbox) == 0
    capsys.readouterr()

    # December 1: September corrected (both games were won by White), and November's TRF,
    # which states the frozen October list (Alfa 1997, Bravo 1903); they draw.
    (inbox / "m1.csv").write_text(SEPTEMBER_CORRECTED)
    (inbox / "m3.trf").write_text(trf("Winter Cup", "2026/11/12", (*A, 1997), (*B, 1903), "="))
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    assert recalculate(root, inbox) == 0
    out = capsys.readouterr().out
    # Revised September: 20 x (1 - 0.64) = 7.2 -> +7: Alfa 2007, Bravo 1893, Cseh 2107,
    # Dudas 1993; the idle Alfa and Bravo keep them on the revised October list.
    assert "| 1001 | Alfa, Anna | 1997 | 2007 | +10 | +0/-0/~1 |" in out
    assert "| 1003 | Cseh, Csaba | 2097 | 2107 | +10 | +0/-0/~1 |" in out
    # The rule is kept: October starts Cseh and Dudas from m2.trf's 2097 and 2003, and
    # November Alfa and Bravo from m3.trf's 1997 and 1903 (D 94, PD 0.63: a draw is
    # 20 x (0.5 - 0.63) = -2.6 -> -3: Alfa 1994, Bravo 1906), not from 2007 and 1893.
    assert start_and_end(root, 202610)["1003"] == (2097.0, 2104.0)
    assert start_and_end(root, 202611)["1001"] == (1997.0, 1994.0)
    assert start_and_end(root, 202611)["1002"] == (1903.0, 1906.0)
    # ... and the report (the command's output) says so, player by player.
    lines = out.splitlines()
    heading = next(line for line in lines if line.startswith(HEADING))
    assert heading.startswith(f"{HEADING}: 4 player(s) whose revised rating was replaced")
    at = lines.index(heading)
    assert lines[at + 2 : at + 8] == [
        "| player | name | list | published | revised | stated | from period | stated in |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        "| 1003 | Cseh, Csaba | 202609 | 2097 | 2107 | 2097 | 202610 | m2.trf |",
        "| 1004 | Dudas, Dora | 202609 | 2003 | 1993 | 2003 | 202610 | m2.trf |",
        "| 1001 | Alfa, Anna | 202610 | 1997 | 2007 | 1997 | 202611 | m3.trf |",
        "| 1002 | Bravo, Bela | 202610 | 1903 | 1893 | 1903 | 202611 | m3.trf |",
    ]
    remedy = lines[at + 9]
    assert remedy.startswith("To carry the revised ratings, ingest `m2.trf`, `m3.trf` again")
    assert "--ignore-stated-ratings" in remedy and "the files of that run only" in remedy

    # A run that recomputes nothing does not repeat it (as a revision's table).
    assert HEADING not in monthly.markdown(
        jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    )

    # The remedy: the two files again, under their names, with --ignore-stated-ratings.
    for name in ("m2.trf", "m3.trf"):
        os.replace(inbox / "processed" / name, inbox / name)
    assert recalculate(root, inbox, "--ignore-stated-ratings") == 0
    assert HEADING not in capsys.readouterr().out
    # October from the revised September: Cseh 2107 - Dudas 1993 (D 114, PD 0.66, table 8.1.2):
    # 20 x 0.34 = 6.8 -> +7: 2114, 1986. November: Alfa 2007 - Bravo 1893 (D 114), a
    # draw: 20 x (0.5 - 0.66) = -3.2 -> -3: Alfa 2004, Bravo 1896.
    assert start_and_end(root, 202610)["1003"] == (2107.0, 2114.0)
    assert start_and_end(root, 202610)["1004"] == (1993.0, 1986.0)
    assert start_and_end(root, 202611)["1001"] == (2007.0, 2004.0)
    assert start_and_end(root, 202611)["1002"] == (1893.0, 1896.0)
