"""ECF cycles whose closing month has no stored period (docs/legacy-systems.md "A closing
month without games").

Year-only games ("1851.??.??") are stored in December, so under the annual season to
31 May no stored period is ever a closing month; before the first fix 1851-1941 was one
cycle, every row ``provisional``. The engine now walks the closing month of every
season that holds games, without games (``EcfSystem.closing_periods_within``), so each
season is published at its own closing month from its own games. A walk that still
skips a closing month (``EcfSystem.step``'s older rule) publishes the cycle at the first
walked period past its end. Expected grades are worked by hand from the rules
(docs/legacy-systems.md "Legacy ECF grading"): points = opponent (within 40 of the
player's grade) + 100·s − 50, grade = (Σ points + (30 − n) × previous grade) / 30,
rounded half away from zero.
"""

from __future__ import annotations

import numpy as np
import pytest

from arpad.pipeline import catalog
from arpad.pipeline.engine import player_info, rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import NOT_REPORTED, STATUS_CODES, PeriodGames
from arpad.pipeline.systems.ecf import ECF_ANNUAL, ECF_SIX_MONTHLY
from tests.conftest import write_csv

# No birth years: nobody is a junior. Grades a 150, b 130, c 100.
PLAYERS = ["a,Alice,,150", "b,Bob,,130", "c,Carol,,100"]


def store_of(tmp_path, games: list[str]) -> Store:
    players = write_csv(tmp_path / "players.csv", "player_id,name,birth_year,grade", PLAYERS)
    games_csv = write_csv(tmp_path / "games.csv", "period,white_id,black_id,result", games)
    store = Store(tmp_path / "store")
    ingest_files(store, [games_csv], players=[players])
    return store


def rows(store: Store, period: int) -> dict[str, tuple]:
    table = store.read_ratings("ecf", "standard", period).to_pylist()
    return {r["player_id"]: (r["status"], r["rating_after"], r["games"]) for r in table}


def game_report(store: Store) -> list[tuple]:
    con = catalog.connect(store)
    try:
        return con.execute(
            "SELECT period, player_id, game_period, points FROM "
            "read_parquet('ratings/system=ecf/*/*/games/*.parquet', hive_partitioning = true) "
            "ORDER BY period, player_id, game_period"
        ).fetchall()
    finally:
        con.close()


def test_cycle_end_is_the_first_closing_period_on_or_after():
    assert ECF_ANNUAL.cycle_end(185112) == 185205  # year-only games: December
    assert ECF_ANNUAL.cycle_end(185205) == 185205
    assert ECF_ANNUAL.cycle_end(185206) == 185305
    assert ECF_SIX_MONTHLY.cycle_end(202401) == 202406
    assert ECF_SIX_MONTHLY.cycle_end(202409) == 202412
    assert ECF_SIX_MONTHLY.cycle_end(202412) == 202412
    assert ECF_SIX_MONTHLY.cycle_end(7) == 12  # abstract periods: every 6
    assert ECF_SIX_MONTHLY.cycle_end(12) == 12


def test_year_only_periods_grade_each_season_on_its_own(tmp_path):
    # Periods YYYY12 as year-only dates are stored; the annual season closes in May.
    store = store_of(
        tmp_path,
        [
            "1851-12,a,b,1-0",
            "1851-12,b,c,1/2-1/2",
            "1852-12,c,a,1-0",
            "1853-12,a,b,1/2-1/2",
            "1854-12,b,c,1-0",
        ],
    )
    summary = rate(store, "ecf")
    # The closing month of every season with games (May) is walked without games: each
    # season is published at its own close; 185505 closes the store's last season.
    assert summary.periods == [185112, 185205, 185212, 185305, 185312, 185405, 185412, 185505]
    # 185112: the 1851/52 season so far (interim).
    assert rows(store, 185112) == {
        "a": ("provisional", 151, 1),
        "b": ("provisional", 128, 2),
        "c": ("provisional", 101, 1),
    }
    # 185205 closes the 1851/52 season: published from its own games.
    # a: beat b → 130 + 50 = 180; (180 + 29·150)/30 = 151
    # b: lost to a → 100; drew c → 100; (200 + 28·130)/30 = 128
    # c: drew b → 130; (130 + 29·100)/30 = 101
    assert rows(store, 185205) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 128, 2),
        "c": ("rated", 101, 1),
    }
    # 185212: the 1852/53 season so far (c beat a), graded from the 1851/52 grades.
    # a (151) vs c (101): 40-point rule → 111, loss → 61; (61 + 29·151)/30 = 148
    # c: a counts as 141, win → 191; (191 + 29·101)/30 = 104
    assert rows(store, 185212) == {"a": ("provisional", 148, 1), "c": ("provisional", 104, 1)}
    # 185305 publishes the 1852/53 season.
    assert rows(store, 185305) == {
        "a": ("rated", 148, 1),
        "b": ("inactive", 128, 0),
        "c": ("rated", 104, 1),
    }
    # 185312: the 1853/54 season so far (a drew b).
    # a: 128; (128 + 29·148)/30 = 147.33 → 147.   b: 148; (148 + 29·128)/30 = 128.67 → 129
    assert rows(store, 185312) == {"a": ("provisional", 147, 1), "b": ("provisional", 129, 1)}
    assert rows(store, 185405) == {
        "a": ("rated", 147, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 104, 0),
    }
    # 185412: the 1854/55 season so far (b beat c); 185505 publishes it.
    # b: c counts as 104, win → 154; (154 + 29·129)/30 = 129.83 → 130
    # c: b counts as 129, loss → 79; (79 + 29·104)/30 = 103.17 → 103
    assert rows(store, 185412) == {"b": ("provisional", 130, 1), "c": ("provisional", 103, 1)}
    assert rows(store, 185505) == {
        "a": ("inactive", 147, 0),
        "b": ("rated", 130, 1),
        "c": ("rated", 103, 1),
    }
    # Each publication's per-game report holds its own season's games only.
    report = game_report(store)
    assert {(p, g) for p, _, g, _ in report} == {
        (185205, 185112),
        (185305, 185212),
        (185405, 185312),
        (185505, 185412),
    }
    assert [(pl, pts) for p, pl, _, pts in report if p == 185305] == [("a", 61.0), ("c", 191.0)]
    assert [(pl, pts) for p, pl, _, pts in report if p == 185405] == [("a", 128.0), ("b", 148.0)]


def test_a_closing_month_without_games_publishes_its_own_cycle(tmp_path):
    # Six-monthly cycles (cut-offs June, December); no games in 202406 or 202412.
    store = store_of(
        tmp_path,
        [
            "2024-01,a,b,1-0",
            "2024-03,b,c,1/2-1/2",
            "2024-09,c,a,1-0",
            "2025-01,a,b,1/2-1/2",
        ],
    )
    summary = rate(store, "ecf")
    # 202406 and 202412 are walked without games; 202506 closes the last cycle.
    assert summary.periods == [202401, 202403, 202406, 202409, 202412, 202501, 202506]
    # 202401 interim: b lost to a → 100; (100 + 29·130)/30 = 129
    assert rows(store, 202401) == {"a": ("provisional", 151, 1), "b": ("provisional", 129, 1)}
    assert rows(store, 202403) == {
        "a": ("provisional", 151, 1),
        "b": ("provisional", 128, 2),
        "c": ("provisional", 101, 1),
    }
    # 202406 publishes January–June (games of 202401 and 202403).
    assert rows(store, 202406) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 128, 2),
        "c": ("rated", 101, 1),
    }
    # 202409: July–December so far (c beat a), from the June grades; 202412 publishes it.
    assert rows(store, 202409) == {"a": ("provisional", 148, 1), "c": ("provisional", 104, 1)}
    assert rows(store, 202412) == {
        "a": ("rated", 148, 1),
        "b": ("inactive", 128, 0),
        "c": ("rated", 104, 1),
    }
    # 202506 closes January–June 2025 (over: walked without games), a drew b in 202501:
    # a: b counts as 128, draw → 128; (128 + 29·148)/30 = 147.33 → 147
    # b: a counts as 148, draw → 148; (148 + 29·128)/30 = 128.67 → 129
    assert rows(store, 202501) == {"a": ("provisional", 147, 1), "b": ("provisional", 129, 1)}
    assert rows(store, 202506) == {
        "a": ("rated", 147, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 104, 0),
    }
    assert {(p, g) for p, _, g, _ in game_report(store)} == {
        (202406, 202401),
        (202406, 202403),
        (202412, 202409),
        (202506, 202501),
    }


def test_each_cycle_publishes_at_its_own_closing_month(tmp_path):
    # 202403 (January–June, no 202406 stored) then 202412, which closes July–December.
    store = store_of(tmp_path, ["2024-03,a,b,1-0", "2024-12,a,c,1/2-1/2"])
    assert rate(store, "ecf").periods == [202403, 202406, 202412]
    # 202406 publishes January–June: a 151, b (100 + 29·130)/30 = 129.
    assert rows(store, 202406) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 100, 0),
    }
    # 202412, July–December with a at 151:
    # a: c counts as 111, draw → 111; (111 + 29·151)/30 = 149.67 → 150
    # c: a counts as 140, draw → 140; (140 + 29·100)/30 = 101.33 → 101
    assert rows(store, 202412) == {
        "a": ("rated", 150, 1),
        "b": ("inactive", 129, 0),
        "c": ("rated", 101, 1),
    }
    assert game_report(store) == [
        (202406, "a", 202403, 180.0),
        (202406, "b", 202403, 100.0),
        (202412, "a", 202412, 111.0),  # graded with the January–June grade 151
        (202412, "c", 202412, 140.0),
    ]


# -- a walk that skips a closing month ---------------------------------------------------
# ``EcfSystem.step`` keeps the older rule for a walk that does not visit a closing month
# (a checkpoint written before the closing months were walked, a season whose end was
# not over when it was rated): the cycle still open past its end is published at the
# next walked period from its own games, and that period's games open the next cycle
# (both published there when that period also closes it). The store engine now always
# walks the closing months, so these walks step the system over the given periods only.


def walk_skipping(store: Store, games: dict[int, list[tuple]], old_checkpoint: bool):
    """Step ECF over exactly the periods of ``games`` (period -> [(white, black, White's
    score)]) with the store's players: period -> (rows as ``rows`` gives, per-game
    report as (player, game_period, points)). ``old_checkpoint``: before each step the
    open cycle's end is dropped from the state, as in a checkpoint written before it
    was kept (``_past_end`` then finds it from the cycle's first period)."""
    sys_ = get_system("ecf")
    info = player_info(store.read_players())
    ids = list(info.player_id)
    state = sys_.initial_state(info, ECF_SIX_MONTHLY)
    out, previous = {}, None
    for period, played in sorted(games.items()):
        if old_checkpoint and state.tables["cycle_start"]["period"].size:
            state.tables["cycle_start"] = {"period": state.tables["cycle_start"]["period"]}
        pg = PeriodGames.build(
            period,
            np.array([ids.index(w) for w, _, _ in played], np.int32),
            np.array([ids.index(b) for _, b, _ in played], np.int32),
            np.array([s for *_, s in played], np.float64),
            info.n,
            previous_period=previous,
        )
        state, report = sys_.step(state, pg, ECF_SIX_MONTHLY)
        cols, status = report.columns, report.status
        table = {
            ids[i]: (STATUS_CODES[status[i]], cols["rating_after"][i], int(cols["games"][i]))
            for i in range(info.n)
            if status[i] != NOT_REPORTED
        }
        per_game = report.extra.get("games")
        played_report = (
            [
                (ids[p], int(g), float(pts))
                for p, g, pts in zip(
                    per_game["player"], per_game["game_period"], per_game["points"], strict=True
                )
            ]
            if per_game is not None
            else None
        )
        out[period] = (table, played_report)
        previous = period
    return out


@pytest.mark.parametrize("old_checkpoint", [False, True])
def test_a_walk_skipping_the_closing_month_publishes_at_the_next_period(tmp_path, old_checkpoint):
    # The games of test_a_closing_month_without_games_publishes_its_own_cycle, walked
    # without 202406 and 202412.
    store = store_of(
        tmp_path,
        ["2024-01,a,b,1-0", "2024-03,b,c,1/2-1/2", "2024-09,c,a,1-0", "2025-01,a,b,1/2-1/2"],
    )
    out = walk_skipping(
        store,
        {
            202401: [("a", "b", 1.0)],
            202403: [("b", "c", 0.5)],
            202409: [("c", "a", 1.0)],
            202501: [("a", "b", 0.5)],
            202506: [],  # the closing month of the last cycle, walked without games
        },
        old_checkpoint,
    )
    assert out[202401] == ({"a": ("provisional", 151, 1), "b": ("provisional", 129, 1)}, None)
    assert out[202403][0] == {
        "a": ("provisional", 151, 1),
        "b": ("provisional", 128, 2),
        "c": ("provisional", 101, 1),
    }
    # 202409 is past June: January–June is published there, from its own games (the
    # grades 202406 publishes when walked); 202409's game (c beat a) waits.
    assert out[202409] == (
        {"a": ("rated", 151, 1), "b": ("rated", 128, 2), "c": ("rated", 101, 1)},
        [("a", 202401, 180.0), ("b", 202401, 100.0), ("b", 202403, 100.0), ("c", 202403, 130.0)],
    )
    # 202501 is past December: July–December (c beat a in 202409) is published there,
    # graded from the June grades; a: c counts as 111, loss → 61; (61 + 29·151)/30 = 148
    # c: a counts as 141, win → 191; (191 + 29·101)/30 = 104. 202501's game waits.
    assert out[202501] == (
        {"a": ("rated", 148, 1), "b": ("inactive", 128, 0), "c": ("rated", 104, 1)},
        [("a", 202409, 61.0), ("c", 202409, 191.0)],
    )
    # 202506 closes January–June 2025 with 202501's game only (a drew b):
    # a: (128 + 29·148)/30 = 147.33 → 147; b: (148 + 29·128)/30 = 128.67 → 129
    assert out[202506] == (
        {"a": ("rated", 147, 1), "b": ("rated", 129, 1), "c": ("inactive", 104, 0)},
        [("a", 202501, 128.0), ("b", 202501, 148.0)],
    )
    # The store engine walks 202406 and 202412: the same publications, dated there.
    rate(store, "ecf")
    assert rows(store, 202406) == out[202409][0]
    assert rows(store, 202412) == out[202501][0]
    assert rows(store, 202506) == out[202506][0]


@pytest.mark.parametrize("old_checkpoint", [False, True])
def test_a_walk_skipping_the_closing_month_into_a_closing_period_publishes_both(
    tmp_path, old_checkpoint
):
    # 202403 then 202412 without 202406: 202412 publishes January–June (stale) and then
    # July–December, its own games, graded with the January–June grades.
    store = store_of(tmp_path, ["2024-03,a,b,1-0", "2024-12,a,c,1/2-1/2"])
    out = walk_skipping(
        store, {202403: [("a", "b", 1.0)], 202412: [("a", "c", 0.5)]}, old_checkpoint
    )
    assert out[202403] == ({"a": ("provisional", 151, 1), "b": ("provisional", 129, 1)}, None)
    # January–June: a 151, b (100 + 29·130)/30 = 129. Then July–December with a at 151:
    # a: c counts as 111, draw → 111; (111 + 29·151)/30 = 149.67 → 150
    # c: a counts as 140, draw → 140; (140 + 29·100)/30 = 101.33 → 101
    # The row has the grade after both cycles and the games of both.
    assert out[202412] == (
        {"a": ("rated", 150, 2), "b": ("rated", 129, 1), "c": ("rated", 101, 1)},
        [
            ("a", 202403, 180.0),
            ("b", 202403, 100.0),
            ("a", 202412, 111.0),  # graded with the January–June grade 151, not 150
            ("c", 202412, 140.0),
        ],
    )


@pytest.mark.parametrize("with_gap", [False, True])
def test_a_store_with_every_closing_month_is_unchanged(tmp_path, with_gap):
    """Closing months 202406 and 202412 stored: cycles close there, as before the fix;
    (with_gap) a gap inside a cycle changes nothing."""
    games = ["2024-03,a,b,1-0", "2024-06,b,c,1/2-1/2", "2024-12,a,b,1/2-1/2"]
    if not with_gap:
        games.insert(2, "2024-09,c,a,1-0")
    else:
        games.insert(2, "2024-11,c,a,1-0")
    store = store_of(tmp_path, games)
    rate(store, "ecf")
    middle = 202411 if with_gap else 202409
    assert rows(store, 202406) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 128, 2),
        "c": ("rated", 101, 1),
    }
    # interim: the July–December cycle so far (c beat a), nothing published
    assert rows(store, middle) == {"a": ("provisional", 148, 1), "c": ("provisional", 104, 1)}
    # July–December: a lost to c (111 → 61), drew b (128); (189 + 28·151)/30 = 147.23 → 147
    # b: drew a → 151; (151 + 29·128)/30 = 128.77 → 129.   c: (191 + 29·101)/30 = 104
    assert rows(store, 202412) == {
        "a": ("rated", 147, 2),
        "b": ("rated", 129, 1),
        "c": ("rated", 104, 1),
    }
    assert sorted({p for p, *_ in game_report(store)}) == [202406, 202412]


def test_year_only_pgn_dates_give_one_season_per_year(tmp_path):
    """The historian's case end to end: PGN dates known only to the year (games with
    moves: a game without them reads as a forfeit, not rated)."""
    pgn = tmp_path / "hist.pgn"
    games = [("1851.??.??", "Anderssen", "Kieseritzky", "1-0")] * 2 + [
        ("1852.??.??", "Morphy", "Paulsen", "1/2-1/2"),
        ("1853.??.??", "Morphy", "Anderssen", "1-0"),
    ]
    pgn.write_text(
        "\n".join(
            f'[Event "E"]\n[Date "{d}"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n1. e4 e5 2. Nf3 Nc6 {r}\n'
            for d, w, b, r in games
        )
    )
    store = Store(tmp_path / "store")
    ingest_files(store, [pgn])
    assert rate(store, "ecf").periods == [185112, 185205, 185212, 185305, 185312, 185405]
    by_name = {
        period: {pid.split(":")[-1]: row for pid, row in rows(store, period).items()}
        for period in (185112, 185205, 185212, 185305, 185312, 185405)
    }
    # 1851/52: Anderssen beat Kieseritzky twice, neither graded: both estimated from the
    # season alone, e_A = e_K + 50, their level fixed by the starting values (100 each).
    assert by_name[185112] == {
        "Anderssen": ("provisional", 125, 2),
        "Kieseritzky": ("provisional", 75, 2),
    }
    # 1851/52 published at its own close, 185205 (nobody had a grade: new).
    assert by_name[185205] == {"Anderssen": ("new", 125, 2), "Kieseritzky": ("new", 75, 2)}
    # Morphy's 1852 game opens 1852/53, published at 185305 (a draw of two new players).
    assert by_name[185212] == {
        "Morphy": ("provisional", 100, 1),
        "Paulsen": ("provisional", 100, 1),
    }
    assert by_name[185305] == {
        "Anderssen": ("inactive", 125, 0),
        "Kieseritzky": ("inactive", 75, 0),
        "Morphy": ("new", 100, 1),
        "Paulsen": ("new", 100, 1),
    }
    # 1853/54: Morphy (100) beat Anderssen (125): Morphy 125 + 50 = 175,
    # (175 + 29·100)/30 = 102.5 → 103; Anderssen 100 − 50 = 50, (50 + 29·125)/30 = 122.5 → 123
    assert by_name[185405] == {
        "Anderssen": ("rated", 123, 1),
        "Kieseritzky": ("inactive", 75, 0),
        "Morphy": ("rated", 103, 1),
        "Paulsen": ("inactive", 100, 0),
    }
    assert {(p, g) for p, _, g, _ in game_report(store)} == {
        (185205, 185112),
        (185305, 185212),
        (185405, 185312),
    }
