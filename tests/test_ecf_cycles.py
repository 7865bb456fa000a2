"""ECF cycles whose closing month has no stored period (docs/legacy-systems.md "Cycles").

Year-only games ("1851.??.??") are stored in December, so under the annual season to
31 May no stored period is ever a closing month; before the fix 1851-1941 was one
cycle, every row ``provisional``. A cycle now closes at the first walked period past
its end, graded from its own games. Expected grades are worked by hand from the rules
(docs/legacy-systems.md "Legacy ECF grading"): points = opponent (within 40 of the
player's grade) + 100·s − 50, grade = (Σ points + (30 − n) × previous grade) / 30,
rounded half away from zero.
"""

from __future__ import annotations

import pytest

from arpad.pipeline import catalog
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
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
    # ... and 185505, the close of the last season, walked without games (its end has
    # passed): the store's last season is published too.
    assert summary.periods == [185112, 185212, 185312, 185412, 185505]
    # 185112: the 1851/52 season so far (interim).
    assert rows(store, 185112) == {
        "a": ("provisional", 151, 1),
        "b": ("provisional", 128, 2),
        "c": ("provisional", 101, 1),
    }
    # 185212 is past May 1852: the 1851/52 season is published from its own games.
    # a: beat b → 130 + 50 = 180; (180 + 29·150)/30 = 151
    # b: lost to a → 100; drew c → 100; (200 + 28·130)/30 = 128
    # c: drew b → 130; (130 + 29·100)/30 = 101
    assert rows(store, 185212) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 128, 2),
        "c": ("rated", 101, 1),
    }
    # 185312: the 1852/53 season (c beat a), with the 1851/52 grades.
    # a (151) vs c (101): 40-point rule → 111, loss → 61; (61 + 29·151)/30 = 148
    # c: a counts as 141, win → 191; (191 + 29·101)/30 = 104
    assert rows(store, 185312) == {
        "a": ("rated", 148, 1),
        "b": ("inactive", 128, 0),
        "c": ("rated", 104, 1),
    }
    # 185412: the 1853/54 season (a drew b).
    # a: 128; (128 + 29·148)/30 = 147.33 → 147.   b: 148; (148 + 29·128)/30 = 128.67 → 129
    assert rows(store, 185412) == {
        "a": ("rated", 147, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 104, 0),
    }
    # 185505: the 1854/55 season (b beat c), published at its own close.
    # b: c counts as 104, win → 154; (154 + 29·129)/30 = 129.83 → 130
    # c: b counts as 129, loss → 79; (79 + 29·104)/30 = 103.17 → 103
    assert rows(store, 185505) == {
        "a": ("inactive", 147, 0),
        "b": ("rated", 130, 1),
        "c": ("rated", 103, 1),
    }
    # Each publication's per-game report holds its own season's games only.
    report = game_report(store)
    assert {(p, g) for p, _, g, _ in report} == {
        (185212, 185112),
        (185312, 185212),
        (185412, 185312),
        (185505, 185412),
    }
    assert [(pl, pts) for p, pl, _, pts in report if p == 185312] == [("a", 61.0), ("c", 191.0)]


def test_a_gap_over_the_closing_month_closes_at_the_next_stored_period(tmp_path):
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
    rate(store, "ecf")
    # 202401 interim: b lost to a → 100; (100 + 29·130)/30 = 129
    assert rows(store, 202401) == {"a": ("provisional", 151, 1), "b": ("provisional", 129, 1)}
    assert {s for s, *_ in rows(store, 202403).values()} == {"provisional"}
    # 202409 is past June: January–June is published (games of 202401 and 202403 only).
    assert rows(store, 202409) == {
        "a": ("rated", 151, 1),
        "b": ("rated", 128, 2),
        "c": ("rated", 101, 1),
    }
    # 202501 is past December: July–December (c beat a in 202409) is published.
    assert rows(store, 202501) == {
        "a": ("rated", 148, 1),
        "b": ("inactive", 128, 0),
        "c": ("rated", 104, 1),
    }
    # 202506 closes January–June 2025 (over: walked without games), a drew b in 202501:
    # a: b counts as 128, draw → 128; (128 + 29·148)/30 = 147.33 → 147
    # b: a counts as 148, draw → 148; (148 + 29·128)/30 = 128.67 → 129
    assert rows(store, 202506) == {
        "a": ("rated", 147, 1),
        "b": ("rated", 129, 1),
        "c": ("inactive", 104, 0),
    }
    assert {(p, g) for p, _, g, _ in game_report(store)} == {
        (202409, 202401),
        (202409, 202403),
        (202501, 202409),
        (202506, 202501),
    }


def test_a_stale_cycle_and_a_closing_period_both_publish_there(tmp_path):
    # 202403 (January–June, no 202406) then 202412, which closes July–December itself.
    store = store_of(tmp_path, ["2024-03,a,b,1-0", "2024-12,a,c,1/2-1/2"])
    rate(store, "ecf")
    # January–June: a 151, b (100 + 29·130)/30 = 129. Then July–December with a at 151:
    # a: c counts as 111, draw → 111; (111 + 29·151)/30 = 149.67 → 150
    # c: a counts as 140, draw → 140; (140 + 29·100)/30 = 101.33 → 101
    assert rows(store, 202412) == {
        "a": ("rated", 150, 2),
        "b": ("rated", 129, 1),
        "c": ("rated", 101, 1),
    }
    assert [(pl, g, pts) for _, pl, g, pts in game_report(store)] == [
        ("a", 202403, 180.0),
        ("a", 202412, 111.0),  # graded with the January–June grade 151, not 150
        ("b", 202403, 100.0),
        ("c", 202412, 140.0),
    ]


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
    rate(store, "ecf")
    by_name = {
        period: {pid.split(":")[-1]: s for pid, (s, *_) in rows(store, period).items()}
        for period in (185112, 185212, 185312)
    }
    assert set(by_name[185112].values()) == {"provisional"}
    # 1851/52 published at 185212 (nobody had a grade: new); Morphy's 1852 games wait.
    assert by_name[185212] == {"Anderssen": "new", "Kieseritzky": "new"}
    assert by_name[185312] == {
        "Anderssen": "inactive",
        "Kieseritzky": "inactive",
        "Morphy": "new",
        "Paulsen": "new",
    }
