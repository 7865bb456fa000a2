"""Analyst, round 13, finding 2: an event id of "?" (the PGN standard's "unknown"
Event tag), "??", "-" or blank is no event, for every input (docs/pgn-trf.md,
docs/observations.md). Before, a PGN ``[Event "?"]`` and a CSV event_id "?" were one
event named "?": the games' stated ratings were one event's starting ratings (d put on
the January list, his rating first stated in March; b's March 1990 dropped as a
repeat: the round-12 defect back for PGN), and the systems that rate per event
(Harkness, Ingo, USCF, FIDE's first event) took every such game for one event.

FIDE by hand (as tests/test_stated_no_event_r12.py, table 8.1.2, K 20):
Jan: a 2000 beats b 2000, PD .50: a +10 (2010), b -10 (1990).
Feb: a 2010 - b 1990 draw, D 20, PD .53: a -.03 x 20 = -0.6 -> -1 (2009), b +1 (1991);
     a beats d, who has no rating yet (first stated in March): not rated.
Mar: d 1850 beats b, stated 1990 (replacing 1991), D 140, PD .69: b -13.8 -> -14 (1976),
     d +.69 x 20 = 13.8 -> +14 (1864).
"""

from __future__ import annotations

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main
from tests.test_historian_attack import sql
from tests.test_stated_no_event_r12 import EXPECTED  # the same rows: no event

GAMES = [  # date, white, black, result, white Elo, black Elo
    ("2023.01.10", "a", "b", "1-0", 2000, 2000),
    ("2023.02.10", "a", "b", "1/2-1/2", 2010, 1990),
    ("2023.02.12", "d", "a", "0-1", None, None),
    ("2023.03.10", "d", "b", "1-0", 1850, 1990),
]


def pgn(event: str | None) -> str:
    out = []
    for i, (date, white, black, result, we, be) in enumerate(GAMES, 1):
        tags = [] if event is None else [f'[Event "{event}"]']
        tags += ['[Site "?"]', f'[Date "{date}"]', f'[Round "{i}"]', f'[White "{white}"]']
        tags += [f'[Black "{black}"]', f'[Result "{result}"]']
        if we is not None:
            tags += [f'[WhiteElo "{we}"]', f'[BlackElo "{be}"]']
        out.append("\n".join(tags) + f"\n\n1. e4 e5 {result}\n")
    return "\n".join(out)


def csv(event: str | None) -> str:
    head = "date,white_id,black_id,result,white_rating,black_rating"
    rows = []
    for date, white, black, result, we, be in GAMES:
        cells = [
            date.replace(".", "-"),
            white,
            black,
            result,
            *("" if x is None else str(x) for x in (we, be)),
        ]
        rows.append(",".join(cells + ([event] if event is not None else [])))
    return "\n".join([head + (",event_id" if event is not None else ""), *rows]) + "\n"


def rated(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(text)
    store = tmp_path / "S"
    argv = ["--store", str(store), "--no-flow"]
    assert main(["ingest", str(tmp_path / name), *argv]) == 0
    assert main(["rate", "--system", "fide", *argv]) == 0
    rows = sql(
        store,
        "SELECT period, player_id, rating_before, rating_after, status FROM ratings "
        "WHERE system = 'fide' ORDER BY period, player_id",
    ).rows()
    # PGN players are file-scoped (ev.pgn:a): the bare names, as in EXPECTED
    rows = [(p, who.rsplit(":", 1)[-1], *rest) for p, who, *rest in rows]
    events = sql(store, "SELECT count(*) FROM games WHERE event_id IS NOT NULL").item()
    return rows, events


@pytest.mark.parametrize("event", ["?", "??", "-", " ? ", None])
def test_a_pgn_event_tag_of_unknown_is_no_event(tmp_path, event):
    rows, events = rated(tmp_path, "ev.pgn", pgn(event))
    assert rows == EXPECTED
    assert events == 0


@pytest.mark.parametrize("event", ["?", "??", "-", None])
def test_a_csv_event_id_of_unknown_is_no_event(tmp_path, event):
    rows, events = rated(tmp_path, "ev.csv", csv(event))
    assert rows == EXPECTED
    assert events == 0


def test_a_named_event_stays_an_event(tmp_path):
    """A real event name is still one event: d's first stated rating (March) is his
    rating from the event's first month (January), as documented for events."""
    _, events = rated(tmp_path, "ev.pgn", pgn("Club 2023"))
    assert events == 4


def harkness(event: str | None):
    games = pl.DataFrame(
        {
            "date": ["2023-01-10", "2023-02-10"],
            "white_id": ["a", "a"],
            "black_id": ["b", "c"],
            "result": ["1-0", "1-0"],
        }
    )
    if event is not None:
        games = games.with_columns(event_id=pl.lit(event))
    players = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [2000, 2000, 1800]})
    out = arpad.rate(games, "harkness", players=players)
    return out.select("period", "player_id", "rating_before", "rating_after", "games").rows()


@pytest.mark.parametrize("event", ["?", "??", "-"])
def test_in_memory_an_unknown_event_id_is_no_event(event, tmp_path):
    # Harkness rates an event id's games of consecutive months as one event; without
    # an event id each month's games are rated on their own.
    assert harkness(event) == harkness(None)
    assert harkness(event) != harkness("Club")
    (tmp_path / "g.csv").write_text(csv(event))
    perf = arpad.performance(tmp_path / "g.csv", by="event")
    assert perf.get_column("event_id").null_count() == perf.height == 3


@pytest.mark.parametrize("name", ["?", "Club Championship"])
def test_a_trf_without_a_tournament_name_is_its_file(tmp_path, name):
    """A TRF is one tournament: with a 012 name of "?" its event is the file, as with no
    012 line (before, "?": every such TRF one event named "?")."""
    from tests.test_trf_pool_ratings_r12 import A, B, trf

    (tmp_path / "jan.trf").write_text(trf(name, "2026/01/10", (A, 2000), (B, 2100), "1"))
    store = tmp_path / "S"
    assert main(["ingest", str(tmp_path / "jan.trf"), "--store", str(store), "--no-flow"]) == 0
    events = sql(store, "SELECT DISTINCT event_id FROM games").rows()
    assert events == [("jan.trf" if name == "?" else name,)]
