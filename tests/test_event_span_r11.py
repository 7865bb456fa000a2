"""An event whose games fall in consecutive months is one event for Harkness and Ingo
(historian round 11, finding 3; docs/legacy-systems.md "Events over several months").

Fischer–Spassky 1972 (Reykjavik, 11 July – 31 August; 20 rated games, Fischer 12½),
WhiteElo/BlackElo 2785 (Fischer) and 2660 (Spassky), game 2 a forfeit (no moves, not
rated). Dated game by game, the match used to be rated as two events, one per month
(Fischer 2785 → 2874 → 2648); dated "1972.??.??" as one (2785). As one
event (docs/legacy-systems.md "Harkness and Ingo"): new = Rc + 10 × (percentage − 50):

* Fischer: 2660 + 10 × (62.5 − 50) = 2785;  Spassky: 2785 + 10 × (37.5 − 50) = 2660.
* July alone (7 games, Fischer 5): 2660 + 10 × (71.43 − 50) = 2874.29 → 2874 (interim).
* Ingo (Ingo = 355 − Elo/8: Fischer 6.875, Spassky 22.5), new = P:
  Fischer 22.5 − 12.5 = 10; Spassky 6.875 + 12.5 = 19.375 → 19.
* Ingo DSB (new = 0.75 old + 0.25 P, old = Fischer's number before the event):
  0.75 × 6.875 + 0.25 × 10 = 7.656 → 8.
"""

from __future__ import annotations

import pytest

import arpad
from arpad.pipeline import catalog
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store

FISCHER = "Fischer, Robert James"
SPASSKY = "Spassky, Boris V"
# Fischer's results game by game (F: game 2, forfeited by Fischer)
RESULTS = "0-1 F 1-0 D 1-0 1-0 D 1-0 D 1-0 0-1 D 1-0 D D D D D D D 1-0".split()
DAYS = (
    "07.11 07.13 07.16 07.18 07.20 07.23 07.25 07.27 08.01 08.03 08.06 08.08 08.10 "
    "08.15 08.17 08.20 08.22 08.24 08.27 08.29 08.31"
).split()


def match_pgn(path, year_only: bool = False, event: str = "World Championship 28th", days=DAYS):
    """The match as the historian's files/make3.py writes it (``year_only``: every
    game dated 1972.??.??)."""
    out = []
    for i, (r, d) in enumerate(zip(RESULTS, days, strict=True), 1):
        fischer_white = i % 2 == 0
        w, b = (FISCHER, SPASSKY) if fischer_white else (SPASSKY, FISCHER)
        we, be = ("2785", "2660") if fischer_white else ("2660", "2785")
        if r == "F":
            result = "0-1" if fischer_white else "1-0"
            moves = result
        else:
            if r == "D":
                result = "1/2-1/2"
            else:
                won = r == "1-0"
                result = ("1-0" if won else "0-1") if fischer_white else ("0-1" if won else "1-0")
            moves = f"1. c4 e6 2. Nf3 d5 {i + 2}. d4 {result}"
        date = "1972.??.??" if year_only else f"1972.{d}"
        tags = [
            ("Event", event),
            ("Site", "Reykjavik ISL"),
            ("Date", date),
            ("Round", str(i)),
            ("White", w),
            ("Black", b),
            ("Result", result),
            ("WhiteElo", we),
            ("BlackElo", be),
        ]
        out.append("".join(f'[{k} "{v}"]\n' for k, v in tags) + "\n" + moves + "\n\n")
    path.write_text("".join(out), encoding="utf-8")
    return path


def _store(tmp_path, name: str, **kw) -> Store:
    folder = tmp_path / name
    folder.mkdir()
    store = Store(folder / "store")
    ingest_files(store, [match_pgn(folder / "wch1972.pgn", **kw)])
    return store


def _rows(store: Store, system: str, who: str = FISCHER) -> list[tuple]:
    """(period, rating_before, rating_after, games, score) of the player, by period."""
    con = catalog.connect(store)
    try:
        return con.execute(
            "SELECT period, rating_before, rating_after, games, score FROM ratings "
            "WHERE system = ? AND player_id LIKE ? ORDER BY period",
            [system, f"%{who}"],
        ).fetchall()
    finally:
        con.close()


def _last(store: Store, system: str, who: str = FISCHER) -> float:
    return _rows(store, system, who)[-1][2]


@pytest.mark.parametrize("year_only", [False, True])
def test_the_1972_match_is_one_harkness_event_however_it_is_dated(tmp_path, year_only):
    store = _store(tmp_path, "s", year_only=year_only)
    rate(store, "harkness")
    assert _last(store, "harkness") == 2785  # 2660 + 10 × (62.5 − 50)
    assert _last(store, "harkness", SPASSKY) == 2660  # 2785 + 10 × (37.5 − 50)


def test_dated_game_by_game_july_is_interim_and_august_rates_the_whole_match(tmp_path):
    store = _store(tmp_path, "s")
    rate(store, "harkness")
    assert _rows(store, "harkness") == [
        (197207, 2785, 2874, 7, 5.0),  # 2660 + 10 × (500/7 − 50) = 2874.29, the match so far
        (197208, 2874, 2785, 13, 7.5),  # the whole match, 12½/20 vs 2660 (not 2571)
    ]
    assert _rows(store, "harkness", SPASSKY)[-1] == (197208, 2571, 2660, 13, 5.5)


@pytest.mark.parametrize("year_only", [False, True])
def test_ingo_rates_the_match_as_one_event(tmp_path, year_only):
    store = _store(tmp_path, "s", year_only=year_only)
    rate(store, "ingo")
    assert _last(store, "ingo") == 10  # 22.5 − (62.5 − 50)
    assert _last(store, "ingo", SPASSKY) == 19  # 6.875 + 12.5 = 19.375
    rate(store, "ingo", overrides={"ingo_update": "dsb"})
    assert _last(store, "ingo") == 8  # 0.75 × 6.875 (before the match) + 0.25 × 10 = 7.66


def test_event_months_1_rates_each_month_on_its_own(tmp_path):
    """The pre-round-11 behaviour, on request: July and August two events."""
    store = _store(tmp_path, "s")
    rate(store, "harkness", overrides={"event_months": "1"})
    # August alone: 7½/13 against Spassky's July result 2571 → 2571 + 10 × 7.69 = 2647.9
    assert [r[2] for r in _rows(store, "harkness")] == [2874, 2648]


def test_a_month_without_games_of_the_event_ends_it(tmp_path):
    """The same id in July and September (no game of it in August) is two events."""
    days = [d.replace("08.31", "08.30").replace("08.", "09.") for d in DAYS]
    store = _store(tmp_path, "s", days=days)
    rate(store, "harkness")
    # September alone, against Spassky's July result 2571: as with event_months=1
    assert [r[0] for r in _rows(store, "harkness")] == [197207, 197209]
    assert _last(store, "harkness") == 2648


def test_at_most_event_months_consecutive_months_are_one_event(tmp_path):
    store = _store(tmp_path, "s")
    rate(store, "harkness", overrides={"event_months": "2"})
    assert _last(store, "harkness") == 2785
    # a third month would start a new event: with the cap at 2, July and August are the
    # whole match; the table of events still open after August is empty
    tables, _ = store.read_state("harkness", "standard", 197208)
    assert tables["table_events"].num_rows == 0


def test_sharded_resumed_and_in_memory_runs_agree(tmp_path):
    store = _store(tmp_path, "s")
    rate(store, "harkness")
    whole = _rows(store, "harkness") + _rows(store, "harkness", SPASSKY)
    # the open event travels in the checkpoint of July (a run from August reads it)
    tables, _ = store.read_state("harkness", "standard", 197207)
    assert tables["table_events"].num_rows == 2
    rate(store, "harkness", start=197208)
    assert _rows(store, "harkness") + _rows(store, "harkness", SPASSKY) == whole
    rate(store, "harkness", shards=2)
    assert _rows(store, "harkness") + _rows(store, "harkness", SPASSKY) == whole
    # in memory (``arpad.rate``: starting ratings from players=, not from the Elo tags)
    games = tmp_path / "memory.pgn"
    match_pgn(games)
    text = games.read_text(encoding="utf-8")
    games.write_text("".join(x for x in text.splitlines(True) if "Elo " not in x))
    ids = [f"memory.pgn:{FISCHER}", f"memory.pgn:{SPASSKY}"]  # a PGN's ids are the file's
    players = {"player_id": ids, "rating": [2785, 2660]}
    frame = arpad.rate(games, system="harkness", players=players).sort("period")
    fischer = frame.filter(frame["player_id"] == ids[0])
    assert fischer["rating_after"].to_list() == [2874, 2785]
