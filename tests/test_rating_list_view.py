"""The catalog's ``rating_list`` view (``arpad sql``, ``Store.sql``) ranks and flags as
``arpad list`` does (docs/observations.md "Who is on a list", docs/analysis.md): a
non-FIDE player is ``i`` and unranked only after 12 months without a rated game, FIDE
keeps its own status, and ECF's games count in their own month. Each comparison
failed on the old view, which had no ``flag`` and ranked on the row's
own status: A, idle one month, was unranked there and ranked on the list."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from arpad.pipeline import catalog, lists, periods
from arpad.pipeline.cli import main
from arpad.pipeline.sql import run_readonly_sql
from arpad.pipeline.store import Store

# A beats B in January 2023 and plays C in January 2024, then not in February 2024 (idle
# one month there); D beats E in January 2023 and never plays again (13 months idle on
# February 2024's list); E and F play on. Fay is a woman (flag ``w``).
DATED = (
    "date,white_id,black_id,result\n"
    "2023-01-10,D,E,1-0\n2023-01-11,A,B,1-0\n"
    "2023-12-10,E,F,1/2-1/2\n"
    "2024-01-10,A,C,1-0\n2024-01-11,E,F,1-0\n"
    "2024-02-10,B,C,1/2-1/2\n2024-02-11,E,F,0-1\n"
)
# The same games in abstract periods (one period counts as one month).
NUMBERED = (
    "period,white_id,black_id,result\n"
    "1,D,E,1-0\n1,A,B,1-0\n12,E,F,1/2-1/2\n13,A,C,1-0\n13,E,F,1-0\n"
    "14,B,C,1/2-1/2\n14,E,F,0-1\n"
)
PLAYERS = "player_id,name,sex\nA,Abe,M\nB,Bob,M\nC,Cid,M\nD,Dan,M\nE,Eli,M\nF,Fay,F\n"
FIDE_PLAYERS = (
    "player_id,name,sex,rating\nA,Abe,M,2010\nB,Bob,M,1990\nC,Cid,M,1970\n"
    "D,Dan,M,2050\nE,Eli,M,1930\nF,Fay,F,1910\n"
)


def _store(root: Path, games: str, players: str) -> Store:
    root.mkdir(parents=True, exist_ok=True)
    (root / "games.csv").write_text(games)
    (root / "players.csv").write_text(players)
    args = ["ingest", str(root / "games.csv"), "--players", str(root / "players.csv")]
    assert main([*args, "--store", str(root / "S")]) == 0
    return Store(root / "S")


def _rate(store: Store, system: str) -> None:
    assert main(["rate", "--system", system, "--store", str(store.root)]) == 0


def _view(store: Store, system: str, period: int) -> dict[str, tuple]:
    """{player_id: (rank, flag)} of the view, queried as ``arpad sql`` does."""
    frame = run_readonly_sql(
        store,
        "SELECT player_id, rank, flag FROM rating_list "
        "WHERE system = ? AND pool = 'standard' AND period = ?",
        [system, period],
    )
    return {r["player_id"]: (r["rank"], r["flag"]) for r in frame.iter_rows(named=True)}


def _list(store: Store, system: str, period: int) -> dict[str, tuple]:
    frame, _ = lists.list_frame(store, system, "standard", period)
    return {r["player_id"]: (r["rank"], r["flag"]) for r in frame.iter_rows(named=True)}


def _same_as_the_list(store: Store, system: str) -> dict[int, dict[str, tuple]]:
    """Every rated period's view rows equal to its list's; the view's rows by period."""
    seen = {}
    for period in store.rating_periods(system, "standard"):
        view = _view(store, system, period)
        assert view == _list(store, system, period), (system, period)
        seen[period] = view
    return seen


@pytest.mark.parametrize("system", ["elo", "glicko2", "uscf"])
def test_the_view_ranks_and_flags_as_the_list(tmp_path, system):
    """On February 2024's list A (last game January 2024) is active and ranked and D
    (last game January 2023, 13 months before) is ``i`` and unranked; Fay is ``w``.
    Every period's view rows are the list's."""
    store = _store(tmp_path, DATED, PLAYERS)
    _rate(store, system)
    seen = _same_as_the_list(store, system)
    february = seen[202402]
    assert february["A"][0] is not None and february["A"][1] is None
    assert february["D"] == (None, "i")
    assert february["F"][1] == "w"
    # A's row there says only "no game this period"
    statuses = run_readonly_sql(
        store,
        "SELECT player_id, status FROM rating_list WHERE system = ? AND period = 202402",
        [system],
    )
    assert dict(statuses.iter_rows())["A"] == "inactive"
    # December 2023: D's game 11 months before, still ranked; January 2024: 12, flagged
    assert seen[202312]["D"][0] is not None and seen[202312]["D"][1] is None
    assert seen[202401]["D"] == (None, "i")


def test_elo_values_and_abstract_periods(tmp_path):
    """Elo (K 20, everybody from 1500, expected score 1/(1 + 10^(-d/400))) on abstract
    periods: period 14's list by hand. Period 1: D 1510, E 1490, A 1510, B 1490.
    Period 12: E (1490) - F (1500) draw: E + 20 (0.5 - 0.48561) = 1490.29, F 1499.71.
    Period 13: A (1510) beats C (1500): + 20 (1 - 0.51439) = +9.71, A 1519.71, C
    1490.29; E (1490.29) beats F (1499.71): + 20 (1 - 0.48645) = +10.27, E 1500.56, F
    1489.44. Period 14: B (1490) - C (1490.29) draw: B + 20 (0.5 - 0.49959) = +0.01,
    B 1490.01, C 1490.28; F (1489.44) beats E (1500.56): + 20 (1 - 0.48400) = +10.32,
    F 1499.76, E 1490.24. Active on 14: A (game in 13), B, C, E, F (14); D (period 1,
    13 periods before) is ``i``. Ranks: A 1519.71, F 1499.76, C 1490.28, E 1490.24,
    B 1490.01 (no two equal to one decimal, so the list's rounded ranking agrees)."""
    store = _store(tmp_path, NUMBERED, PLAYERS)
    _rate(store, "elo")
    seen = _same_as_the_list(store, "elo")
    assert seen[14] == {
        "A": (1, None),
        "F": (2, "w"),
        "C": (3, None),
        "E": (4, None),
        "B": (5, None),
        "D": (None, "i"),
    }
    # period 12: D (period 1, 11 periods before) and A still active
    assert seen[12]["D"][1] is None and seen[12]["A"][1] is None
    # the old view ranked on the row's status: A (no game in 14) unranked
    frame = run_readonly_sql(
        store,
        "SELECT rank, position, status FROM rating_list WHERE system = 'elo' "
        "AND period = 14 AND player_id = 'A'",
        [],
    )
    assert frame.row(0) == (1, 1, "inactive")


def test_fide_keeps_its_own_status(tmp_path):
    """FIDE flags from its status (its own rule): the view's rows equal the list's in
    every period, and a FIDE ``i`` is exactly a row with status ``inactive``."""
    store = _store(tmp_path, DATED, FIDE_PLAYERS)
    _rate(store, "fide")
    seen = _same_as_the_list(store, "fide")
    frame = run_readonly_sql(
        store, "SELECT flag, status FROM rating_list WHERE system = 'fide'", []
    )
    for flag, status in frame.iter_rows():
        assert ((flag or "").endswith("i")) == (status == "inactive")
    # D's one game was January 2023: inactive on FIDE's list of January 2024
    assert seen[202401]["D"] == (None, "i")


def test_ecf_counts_each_game_in_its_own_month(tmp_path):
    """ECF (tests/test_list_activity.py's store; interim rows count the season's games
    so far): Alice's one game is March 2011, so she is active, ranked first, on the
    December 2011 publication (9 months), as ``arpad list`` has her, though her row
    there has 0 games and status inactive. The publications' view rows are the list's.
    August's interim list differs, as docs/lists.md says: ``arpad list`` carries Alice
    at her published grade (no row of her own in August), the view has the rows there
    are, Bob and Carl, ranked among themselves."""
    games = "date,white_id,black_id,result\n2011-03-10,A,B,1-0\n2011-08-10,B,C,1-0\n"
    players = "player_id,name,grade,birth_year\nA,Alice,150,1970\nB,Bob,130,1970\nC,Carl,,1970\n"
    store = _store(tmp_path, games, players)
    _rate(store, "ecf")
    for period in (201105, 201112):
        assert _view(store, "ecf", period) == _list(store, "ecf", period), period
    assert _view(store, "ecf", 201112) == {"A": (1, None), "B": (2, None), "C": (3, None)}
    assert _list(store, "ecf", 201108) == {"A": (1, None), "B": (2, None), "C": (3, None)}
    assert _view(store, "ecf", 201108) == {"B": (1, None), "C": (2, None)}


def test_the_month_index_sql_is_periods_month_index():
    """``catalog._month_index`` gives ``periods.month_index`` for calendar months (also
    the first and last valid years) and abstract period numbers."""
    values = [1, 12, 13, 99, 133, 1799, 99999, 180001, 189912, 202312, 202401, 299912]
    con = duckdb.connect()
    sql = catalog._month_index("period")
    got = [con.execute(f"SELECT {sql} FROM (SELECT CAST(? AS INTEGER) AS period)", [p]).fetchone()[0]
           for p in values]  # fmt: skip
    assert got == [periods.month_index(p) for p in values]


def test_the_constants_agree_with_the_list_and_the_systems():
    """The view's 12 months are the list's, and ``systems.LIST_ACTIVITY`` (known
    without importing every system) is the systems declaring their status the list's
    activity."""
    from arpad.pipeline.systems import LIST_ACTIVITY, get_system, system_names

    assert catalog.INACTIVE_MONTHS == lists.INACTIVE_MONTHS == 12
    declared = {n for n in system_names() if get_system(n).status_is_list_activity}
    assert declared == set(LIST_ACTIVITY) == {"fide"}
