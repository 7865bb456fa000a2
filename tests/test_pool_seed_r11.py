"""Round 11: ``arpad rate --system fide --pool rapid`` on a store whose players table gives
standard ratings only (FIDE's ``SRtng``) exited 0 with every player unrated, while the
API (``arpad.rate(..., pool="rapid")``) refused it: ``jobs.has_published_ratings`` looked
at any rating of any pool. Now the check is per pool (``observations.has_pool_seeds``, as
the engine picks a pool's starting ratings): a pool nobody has a rating of is refused for
a system that ``needs_published_ratings`` (exit 2, one line naming the pool and what to
give), and a pool with a rating of its own (RRtng, a dated ``pool=rapid`` row, the rapid
games' ratings, a rating of every pool) still rates (docs/observations.md "Starting
ratings check").

Numbers by hand (FIDE table 8.1.2, K 20 in rapid): A 2200 beats B 2000, D 200: PD
.76/.24, so A +.24 x 20 = 4.8 -> +5 (2205), B -5 (1995). Then B beats A, D 210: PD
.77/.23, A -.77 x 20 = -15.4 -> -15 (2190), B +15 (2010).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

STD = "ID Number;Name;Fed;SRtng;B-day\n1;A, Ann;HUN;2400;1990\n2;B, Bob;HUN;2300;1991\n"
GAMES = (
    "date,white_id,black_id,result,pool\n"
    "2025-01-10,1,2,1-0,rapid\n"  # A beats B in rapid
    "2025-01-12,1,2,0-1,standard\n"  # B beats A in standard
)
REFUSED = (
    "arpad: error: fide needs published starting ratings for pool rapid and neither the "
    "players table nor the games give any rapid rating (the store's ratings are of pool "
    "standard only, and a pool's ratings seed that pool alone): ingest a players file with "
    "rapid ratings (arpad ingest --players FILE with the column RRtng or rapid_rating, or "
    "rows with pool rapid; docs/observations.md)\n"
)


def run(*args) -> int:
    flow = ["--no-flow"] if args[0] in ("ingest", "rate", "reconstruct") else []
    return main([*map(str, args), *flow])


def store(tmp_path: Path, players: str, games: str = GAMES) -> Path:
    (tmp_path / "players.csv").write_text(players)
    (tmp_path / "games.csv").write_text(games)
    root = tmp_path / "S"
    args = ["ingest", tmp_path / "games.csv", "--players", tmp_path / "players.csv"]
    assert run(*args, "--store", root) == 0
    return root


def ratings(root: Path, pool: str, period: int = 202501) -> dict[str, tuple]:
    rows = Store(root).read_ratings("fide", pool, period).to_pylist()
    return {r["player_id"]: (r["rating_before"], r["rating_after"]) for r in rows}


def test_a_pool_without_its_own_ratings_is_refused_by_the_cli_and_the_api(tmp_path, capsys):
    root = store(tmp_path, STD)
    capsys.readouterr()
    # Before: exit 0, "fide/rapid: rated 1 periods ... 2 rating rows", both unrated.
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", root) == 2
    assert capsys.readouterr().err == REFUSED
    assert Store(root).rating_periods("fide", "rapid") == []
    # The Store API refuses it alike (it rated it too, as the command did).
    with pytest.raises(ValueError, match=r"^fide needs published starting ratings for pool rapid"):
        arpad.Store(root).rate("fide", pool="rapid")
    # As arpad.rate does with the same files.
    with pytest.raises(ValueError, match="needs published starting ratings of the rapid pool"):
        arpad.rate(tmp_path / "games.csv", "fide", players=tmp_path / "players.csv", pool="rapid")
    # Standard still rates from SRtng: B beats A, D 100: PD .64, A -.64 x 10 (2400: K 10)
    # = -6.4 -> -6; B 2300 +.64 x 20 = 12.8 -> +13.
    assert run("rate", "--system", "fide", "--pool", "standard", "--store", root) == 0
    assert ratings(root, "standard") == {"1": (2400.0, 2394.0), "2": (2300.0, 2313.0)}
    # A system that rates from nothing is not concerned.
    assert run("rate", "--system", "elo", "--pool", "rapid", "--store", root) == 0


RAPID_SEEDS = {
    # FIDE's combined layout: RRtng is the rapid rating.
    "RRtng": ("ID Number;Name;SRtng;RRtng\n1;A, Ann;2400;2200\n2;B, Bob;2300;2000\n", GAMES),
    # A rating of every pool (no pool in its heading).
    "Elo": ("ID Number;Name;Elo\n1;A, Ann;2200\n2;B, Bob;2000\n", GAMES),
    # Undated rows of pool rapid beside standard ones.
    "pool rows": (
        "player_id,name,pool,rating\n1,A,standard,2400\n1,A,rapid,2200\n"
        "2,B,standard,2300\n2,B,rapid,2000\n",
        GAMES,
    ),
    # Dated rows of pool rapid (the December list), standard undated ones.
    "dated rapid rows": (
        "player_id,name,pool,rating,date\n1,A,standard,2400,\n1,A,rapid,2200,2024-12\n"
        "2,B,standard,2300,\n2,B,rapid,2000,2024-12\n",
        GAMES,
    ),
    # No rating in the players file: the rapid games state them (white/black_rating).
    "rapid games' ratings": (
        "player_id,name\n1,A\n2,B\n",
        "date,white_id,black_id,result,pool,white_rating,black_rating\n"
        "2025-01-10,1,2,1-0,rapid,2200,2000\n",
    ),
}


@pytest.mark.parametrize("how", list(RAPID_SEEDS))
def test_a_pool_with_ratings_of_its_own_still_rates(tmp_path, how):
    players, games = RAPID_SEEDS[how]
    root = store(tmp_path, players, games)
    assert run("rate", "--system", "fide", "--pool", "rapid", "--store", root) == 0
    assert ratings(root, "rapid") == {"1": (2200.0, 2205.0), "2": (2000.0, 1995.0)}


def test_reconstruct_skips_the_unseeded_pool_and_refuses_it_alone(tmp_path, capsys):
    root = store(tmp_path, STD)
    capsys.readouterr()
    assert run("reconstruct", "--systems", "fide", "--store", root) == 0
    out = capsys.readouterr().out
    assert "fide/standard: rated 1 period (202501..202501)" in out
    skipped = REFUSED.removeprefix("arpad: error: ").rstrip("\n")
    assert f"fide/rapid: skipped: {skipped}" in out
    assert Store(root).rating_periods("fide", "rapid") == []
    args = ("reconstruct", "--systems", "fide", "--pools", "rapid", "--store", root)
    assert run(*args) == 2
    assert capsys.readouterr().err == REFUSED.replace(
        "error: fide needs", "error: nothing to reconstruct: fide needs"
    )


def test_the_card_says_fide_cannot_rate_the_pool(tmp_path, capsys):
    root = store(tmp_path, STD)
    assert run("rate", "--system", "fide", "--pool", "standard", "--store", root) == 0
    capsys.readouterr()
    assert run("card", "1", "--pool", "rapid", "--store", root) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "fide cannot rate pool rapid here: it needs published starting ratings of that pool, "
        "and the store's ratings are of pool standard only"
    ) in err


def test_whatif_of_a_pool_takes_that_pools_ratings(tmp_path):
    games = tmp_path / "rapid.csv"
    games.write_text(
        "date,white_id,black_id,result,pool\n2025-01-10,1,2,1-0,rapid\n2025-02-10,2,1,1-0,rapid\n"
    )
    std = tmp_path / "std.csv"
    std.write_text(STD)
    with pytest.raises(ValueError) as refused:
        arpad.whatif(games, "dated", "dated", players=std, pool="rapid")
    assert str(refused.value) == (
        "players: fide needs published starting ratings of the rapid pool: the players and "
        "games give standard ratings only, and a pool's ratings seed that pool alone "
        "(docs/observations.md): give players= with a rapid_rating column or rows with pool "
        "rapid"
    )
    both = tmp_path / "both.csv"
    both.write_text(RAPID_SEEDS["RRtng"][0])
    # From February: January is rated first in the rapid pool (it rated standard, which
    # has no games: "no games stored in pool 'standard'").
    w = arpad.whatif(games, "dated", "dated", players=both, pool="rapid", start=202502)
    assert w.periods == [202502]
    movers = {r["player_id"]: r["rating_a"] for r in w.movers.iter_rows(named=True)}
    assert movers == {"1": 2190.0, "2": 2010.0}


def test_the_check_reads_no_polars(tmp_path):
    """It runs on every ``rate``: pyarrow alone (docs/runners.md "Start-up")."""
    root = store(tmp_path, STD)
    code = (
        "import sys\n"
        "from arpad.pipeline.jobs import has_published_ratings, rated_pools\n"
        "from arpad.pipeline.store import Store\n"
        f"s = Store({str(root)!r})\n"
        "assert has_published_ratings(s, 'standard') and not has_published_ratings(s, 'rapid')\n"
        "assert rated_pools(s) == ['standard'], rated_pools(s)\n"
        "assert 'polars' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
