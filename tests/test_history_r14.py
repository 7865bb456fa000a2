"""Round 14 (historian findings 5 and 7, officer finding 6): a long inactivity said as
its real calendar gap in `arpad history`; the RD in Glicko's history and aged across a
gap in `plot history`'s band; the card's note for a period before the oldest FIDE
version; FIDE ratings as whole numbers in `arpad audit` (docs/cli.md, docs/analysis.md).
"""

from __future__ import annotations

import datetime as dt
import io
import math

import matplotlib.dates as mdates
import numpy as np
import polars as pl
import pytest

from arpad.pipeline import plots
from arpad.pipeline.cli import main
from arpad.pipeline.history import collapse_inactive, inactive_label
from arpad.pipeline.store import Store

# A plays in December 1858, July 1866 and not after; B and C play in 1862-12, 1863-01,
# 1866-08 and 1886-12, so A has walked inactive rows in 1862-12, 1863-01, 1866-08 and
# 1886-12, and nothing at all for the months between. B has no row from 1866-08 to
# 1886-12 (no period walked): Steinitz's 20 years.
GAMES = (
    "date,white_id,black_id,result\n"
    "1858-12-10,A,B,1-0\n"
    "1858-12-11,B,A,1/2-1/2\n"
    "1862-12-10,B,C,1-0\n"
    "1863-01-10,C,B,1-0\n"
    "1866-07-10,A,C,1-0\n"
    "1866-08-10,B,C,0-1\n"
    "1886-12-10,B,C,1-0\n"
)
S = 173.7178  # Glicko-2's scale (Glickman)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hist14")
    (tmp / "g.csv").write_text(GAMES)
    root = str(tmp / "S")
    assert main(["ingest", str(tmp / "g.csv"), "--store", root, "--no-flow"]) == 0
    for system in ("elo", "glicko", "glicko2"):
        assert main(["rate", "--system", system, "--store", root, "--no-flow"]) == 0
    return root


def stored(root: str, system: str, player: str) -> pl.DataFrame:
    """The player's stored rows: period, rating_after, rd_after, volatility_after."""
    from arpad.pipeline import catalog

    con = catalog.connect(Store(root))
    try:
        return catalog.query_frame(
            con,
            "SELECT period, rating_after, rd_after, volatility_after FROM ratings "
            "WHERE system = ? AND player_id = ? ORDER BY period",
            [system, player],
        )
    finally:
        con.close()


def table_rows(out: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in ln.strip("│").split("┆")]
        for ln in out.splitlines()
        if ln.startswith("│")
    ]


def history(root: str, player: str, system: str, capsys, *extra: str) -> str:
    capsys.readouterr()
    assert main(["history", player, "--system", system, "--store", root, *extra]) == 0
    return capsys.readouterr().out


# -- 1. the fold says the calendar gap ------------------------------------------------------


def test_inactive_label_counts_calendar_months():
    assert inactive_label(185901, 186606) == "inactive 1859-01 to 1866-06 (7y 6m)"
    assert inactive_label(186608, 188612) == "inactive 1866-08 to 1886-12 (20y 5m)"
    assert inactive_label(197507, 200706) == "inactive 1975-07 to 2007-06 (32y)"
    assert inactive_label(202001, 202005) == "inactive 2020-01 to 2020-05 (5m)"
    assert inactive_label(120, 133) == "inactive 120 to 133 (14 periods)"  # abstract periods


@pytest.mark.parametrize("system", ["elo", "glicko", "glicko2"])
def test_history_folds_say_the_real_gap(store, system, capsys):
    rows = table_rows(history(store, "A", system, capsys))
    events = [(r[0], r[1]) for r in rows[1:]]
    # walked: 1862-12 and 1863-01 (2 periods), but away from 1859-01 to 1866-06; it
    # said "inactive to 1863-01 (2 periods)"
    assert events == [
        ("185812", "games"),
        ("186212", "inactive 1859-01 to 1866-06 (7y 6m)"),
        ("186607", "games"),
        ("186608", "inactive 1866-08 to 1886-12 (20y 5m)"),
    ]
    # files keep every stored row, each its own "inactive"
    csv = pl.read_csv(io.StringIO(history(store, "A", system, capsys, "--format", "csv")))
    assert csv["period"].to_list() == [185812, 186212, 186301, 186607, 186608, 188612]
    assert csv["event"].to_list() == ["games", "inactive", "inactive", "games", "inactive", "inactive"]  # fmt: skip


def test_one_inactive_row_after_a_gap_is_a_fold_and_one_month_is_not():
    from arpad.pipeline.history import _SCHEMA

    def frame(rows):
        return pl.DataFrame(
            [(p, e, 1500.0, 0.0, 1500.0, 2 * (e == "games"), 1.0, None, e) for p, e in rows],
            schema=_SCHEMA,
            orient="row",
        )

    # one walked inactive row in 1886-12 after games in 1866-08: twenty years
    out = collapse_inactive(frame([(186608, "games"), (188612, "inactive")]))
    assert out["event"].to_list() == ["games", "inactive 1866-09 to 1886-12 (20y 4m)"]
    # one month between two periods with games: still plain "inactive"
    out = collapse_inactive(frame([(200001, "games"), (200002, "inactive"), (200003, "games")]))
    assert out["event"].to_list() == ["games", "inactive", "games"]
    # a row in 2000-02, games again in 2000-06: 2000-02 to 2000-05
    out = collapse_inactive(frame([(200001, "games"), (200002, "inactive"), (200006, "games")]))
    assert out["event"].to_list() == ["games", "inactive 2000-02 to 2000-05 (4m)", "games"]


# -- 2. the RD in history, and aged in the fold and the plot's band ------------------------


def test_history_has_the_rd_and_volatility_where_the_system_keeps_them(store, capsys):
    g2 = pl.read_csv(io.StringIO(history(store, "A", "glicko2", capsys, "--format", "csv")))
    assert g2.columns[4:7] == ["rating_after", "rd", "volatility"]
    rows = stored(store, "glicko2", "A")
    np.testing.assert_allclose(g2["rd"].to_numpy(), rows["rd_after"].to_numpy())
    np.testing.assert_allclose(g2["volatility"].to_numpy(), rows["volatility_after"].to_numpy())
    g1 = pl.read_csv(io.StringIO(history(store, "A", "glicko", capsys, "--format", "csv")))
    assert "rd" in g1.columns and "volatility" not in g1.columns
    elo = pl.read_csv(io.StringIO(history(store, "A", "elo", capsys, "--format", "csv")))
    assert "rd" not in elo.columns and "volatility" not in elo.columns
    assert "┆ rd " in history(store, "A", "glicko2", capsys)  # the table too


def glicko2_aged(rd: float, sigma: float, months: int) -> float:
    """Glickman's step 6 once per period without games: φ² + σ², capped at 350/S."""
    return min(math.sqrt((rd / S) ** 2 + months * sigma**2), 350 / S) * S


def glicko1_aged(rd: float, months: int, c: float = 63.2) -> float:
    """Glickman (1995), step 1: RD = min(√(RD² + c²t), 350)."""
    return min(math.sqrt(rd * rd + c * c * months), 350.0)


def test_the_fold_shows_the_rd_aged_to_the_end_of_the_gap(store, capsys):
    rows = stored(store, "glicko2", "A").rows(named=True)
    jan63 = next(r for r in rows if r["period"] == 186301)
    # 1863-01 to 1866-06: 41 more months without games after the last walked row
    want = glicko2_aged(jan63["rd_after"], jan63["volatility_after"], 41)
    assert jan63["rd_after"] + 5 < want < 350  # grew by 41 × (0.06 × 173.7)², not capped
    fold = table_rows(history(store, "A", "glicko2", capsys))[2]
    assert fold[1].startswith("inactive 1859-01")
    assert float(fold[5]) == pytest.approx(want, abs=1e-5)
    # the run's last row is the store's last (1886-12): its own RD, nothing to age
    last = table_rows(history(store, "A", "glicko2", capsys))[4]
    assert float(last[5]) == pytest.approx(rows[-1]["rd_after"], abs=1e-5)


def band_at(ax, day: dt.date) -> set[float]:
    """The band's upper and lower edges drawn at ``day`` (the fill's vertices)."""
    (fill,) = ax.collections
    x = mdates.date2num(day)
    points = fill.get_paths()[0].vertices
    return {round(float(y), 6) for xv, y in points if abs(xv - x) < 1e-9}


def test_plot_band_widens_across_twenty_years_without_a_row(store):
    """B: 1866-08, then nothing walked until 1886-12. The band was RD(1866-08) wide
    for 20 years; now month by month as Glicko-2 ages it, 243 months by 1886-11."""
    rows = stored(store, "glicko2", "B").rows(named=True)
    aug66 = next(r for r in rows if r["period"] == 186608)
    assert next(r["period"] for r in rows if r["period"] > 186608) == 188612
    _fig, ax = plots.history_figure(Store(store), ["B"], "glicko2")
    rating, rd, sigma = aug66["rating_after"], aug66["rd_after"], aug66["volatility_after"]
    for day, months in ((dt.date(1866, 8, 1), 0), (dt.date(1876, 8, 1), 120), (dt.date(1886, 11, 1), 243)):  # fmt: skip
        aged = glicko2_aged(rd, sigma, months)
        assert {round(rating + 2 * aged, 6), round(rating - 2 * aged, 6)} <= band_at(ax, day)
    assert glicko2_aged(rd, sigma, 243) > rd + 50  # far wider than the flat band of 1866


def test_plot_band_ages_as_a_walked_store_ages(store, tmp_path):
    """The band's RD for the months A was away equals the RD a store that walked every
    one of those months (others playing) stores for him: the system's own aging."""
    filler = "".join(
        f"{y}-{m:02d}-15,D,E,1/2-1/2\n"
        for y in range(1863, 1867)
        for m in range(1, 13)
        if 186302 <= y * 100 + m <= 186606
    )
    (tmp_path / "g.csv").write_text(GAMES + filler)
    walked = str(tmp_path / "W")
    assert main(["ingest", str(tmp_path / "g.csv"), "--store", walked, "--no-flow"]) == 0
    for system in ("glicko", "glicko2"):
        assert main(["rate", "--system", system, "--store", walked, "--no-flow"]) == 0
        want = stored(walked, system, "A").filter(pl.col("period").is_between(186302, 186606))
        assert want.height == 41
        got = plots.band_points(Store(store), system, "standard", "A", _rows(store, system, "A"))
        at = dict(zip(got[0], got[2].tolist(), strict=True))
        np.testing.assert_allclose(
            [at[p] for p in want["period"].to_list()], want["rd_after"].to_numpy(), rtol=1e-9
        )
    # and by hand, Glicko-1 after one month away: √(RD² + 63.2²)
    jan63 = stored(store, "glicko", "A").filter(pl.col("period") == 186301).row(0, named=True)
    got = plots.band_points(Store(store), "glicko", "standard", "A", _rows(store, "glicko", "A"))
    at = dict(zip(got[0], got[2].tolist(), strict=True))
    assert at[186302] == pytest.approx(glicko1_aged(jan63["rd_after"], 1), rel=1e-12)


def _rows(root: str, system: str, player: str) -> pl.DataFrame:
    return plots.history_data(Store(root), [player], system, "standard")


# -- 3. the card's note for a period before the oldest FIDE version ------------------------

FIDE_GAMES = [  # round, white, black, result, white elo, black elo (tests/test_fide_versions_r12.py)
    (1, "Topalov, V.", "Minor, A.", "1-0", 2450, 2050),
    (2, "Minor, A.", "Topalov, V.", "1/2-1/2", 2050, 2450),
    (3, "Topalov, V.", "Lesser, B.", "1-0", 2450, 2080),
    (4, "Lesser, B.", "Topalov, V.", "1-0", 2080, 2450),
    (5, "Minor, A.", "Lesser, B.", "1/2-1/2", 2050, 2080),
    (6, "Lesser, B.", "Minor, A.", "0-1", 2080, 2050),
]
EARLY = (
    "period 197506 is before the oldest version arpad carries (2000-01-01); the card "
    "uses it (FIDE 2000-01); known differences: FIDE adopted Elo's system in 1970"
)


def fide_store(tmp_path, year: int, month: int) -> str:
    parts = [
        f'[Event "Spring Open {year}"]\n[Site "Somewhere"]\n'
        f'[Date "{year}.{month:02d}.{9 + rnd:02d}"]\n[Round "{rnd}"]\n'
        f'[White "{w}"]\n[Black "{b}"]\n[Result "{res}"]\n'
        f'[WhiteElo "{we}"]\n[BlackElo "{be}"]\n\n1. e4 e5 2. Nf3 Nc6 {res}\n'
        for rnd, w, b, res, we, be in FIDE_GAMES
    ]
    pgn = tmp_path / f"fide{year}.pgn"
    pgn.write_text("\n".join(parts), encoding="utf-8")
    root = str(tmp_path / f"S{year}")
    assert main(["ingest", str(pgn), "--store", root]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    return root


def test_card_of_1975_says_the_rules_are_the_oldest_version(tmp_path, capsys):
    root = fide_store(tmp_path, 1975, 5)
    capsys.readouterr()
    assert main(["card", "Minor", "--period", "197506", "--store", root]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("period 197506  rules FIDE 2000-01")
    assert lines[1].startswith(f"note: {EARLY}")
    assert main(["card", "Minor", "--period", "197506", "--store", root, "--format", "json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["early_rules"].startswith(EARLY)
    # --rules 1975: the user's choice, said on stderr as rate --rules says it
    assert main(["card", "Minor", "--period", "197506", "--store", root, "--rules", "1975"]) == 0
    out = capsys.readouterr()
    assert "note: period" not in out.out
    assert (
        "arpad: note: 1975-12-01 is before the oldest version arpad carries (2000-01-01); "
        "the card uses it (FIDE 2000-01)" in out.err
    )


def test_card_of_2007_has_no_such_note(tmp_path, capsys):
    root = fide_store(tmp_path, 2007, 5)
    capsys.readouterr()
    assert main(["card", "Minor", "--period", "200706", "--store", root]) == 0
    out = capsys.readouterr()
    assert "before the oldest version" not in out.out + out.err
    assert out.out.splitlines()[1] == "status: rated"


# -- 4. audit prints FIDE ratings as whole numbers -----------------------------------------


def test_audit_prints_fide_ratings_as_whole_numbers(tmp_path, capsys):
    # Minor 2050, 2/4 against 2450, 2450, 2080, 2080 under FIDE 2000-01 (cap 400):
    # ΣΔR = (0 − 0.08) + (½ − 0.08) + (½ − 0.46) + (1 − 0.46) = 0.92; 15 × 0.92 = 13.8 → +14
    root = fide_store(tmp_path, 1975, 5)
    capsys.readouterr()
    assert main(["audit", "Minor", "--store", root, "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0].startswith("period,rating_before,rating_after,change,")
    assert csv[1].startswith("197505,2050,2050,,")
    assert csv[2].startswith("197506,2050,2064,14,")
    assert main(["audit", "Minor", "--store", root]) == 0
    table = table_rows(capsys.readouterr().out)
    assert table[2][:4] == ["197506", "2050", "2064", "14"]
    # the API's frame keeps its floats (as Store.history's)
    import arpad

    periods, _trail = arpad.Store(root).audit("Minor", system="fide")
    assert periods["rating_after"].dtype == pl.Float64
