"""The notebook API inside a running asyncio event loop (docs/api.md "In a notebook").

Jupyter runs every cell inside the kernel's running event loop; code that calls
``asyncio.run`` or waits on a future of that loop fails or hangs there. Each public
call is made here from a coroutine under ``asyncio.run`` (the sync API called on the
loop's thread, as a cell calls it) and gives the values it gives outside a loop; the
calls that take ``workers=N`` or ``cluster=ADDRESS`` run on Dask from inside the loop.
A watchdog ends the process with every thread's traceback if a call hangs.
"""

from __future__ import annotations

import asyncio
import faulthandler
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import arpad
from arpad.pipeline.fide_sample import write_sample

KAGGLE = Path("kaggle2010_elo_vs_rest") / "training_data.csv"
HANG = 900  # seconds: far beyond the whole session (about a minute), short of CI's limit

# Dask processes; no kernel is exercised that the first pass does not cover
pytestmark = pytest.mark.once


@pytest.fixture
def watchdog():
    faulthandler.dump_traceback_later(HANG, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def inputs(bundled_data: Path, folder: Path) -> dict:
    """Kaggle months 1-30 in two files (two ingest units for Dask), and the FIDE sample."""
    folder.mkdir(parents=True, exist_ok=True)
    kaggle = pl.read_csv(bundled_data / KAGGLE).filter(pl.col("Month #") <= 30)
    kaggle.filter(pl.col("Month #") <= 15).write_csv(folder / "k1.csv")
    kaggle.filter(pl.col("Month #") > 15).write_csv(folder / "k2.csv")
    players, games = write_sample(folder / "fide", every=12)
    return {
        "kaggle": kaggle,
        "files": [folder / "k1.csv", folder / "k2.csv"],
        "fide_games": games,
        "fide_players": players,
    }


def session(bundled_data: Path, data: dict, folder: Path, how: dict) -> dict:
    """Every public call a notebook makes, in order; ``how`` (``workers``/``cluster``)
    for the calls that can run on Dask. Returns what each gave, as frames."""
    out: dict = {}
    out["systems"] = pl.DataFrame({"system": arpad.systems()})
    elo = arpad.rate(data["kaggle"], system="elo", mapping="kaggle2010")
    out["rate_elo"] = elo
    out["rate_glicko2"] = arpad.rate(data["kaggle"], system="glicko2", mapping="kaggle2010")
    last = elo.filter(pl.col("period") == elo["period"].max())
    pairings = (
        last.select(white_id="player_id")
        .head(20)
        .with_columns(black_id=pl.col("white_id").shift(1).fill_null(last["player_id"][-1]))
    )
    out["predict"] = arpad.predict(last, pairings, system="elo", draws=0.3)
    played = arpad.predict(last, pairings.with_columns(score=pl.lit(0.5)), system="elo")
    out["fit_draws"] = pl.DataFrame({"nu": [arpad.fit_draws(played).nu]})

    store = arpad.Store(folder / "kaggle-store")
    report = store.ingest(data["files"], mapping="kaggle2010", **how)
    out["ingest"] = pl.DataFrame({"accepted": [report.accepted], "bad": [report.quarantined]})
    out["rate_store"] = pl.DataFrame({"rows": [store.rate("elo", **how).rows_written]})
    out["ratings"] = store.ratings("elo").drop("run_id")
    store.rate("glicko", shards=2, **how)  # on Dask: the rating loop on a worker, shards too
    out["sharded"] = store.ratings("glicko").drop("run_id")
    top = store.list("elo", top=5)
    out["list"] = top
    out["history"] = store.history(top["player_id"][0], system="elo")
    out["sql"] = store.sql("SELECT count(*) AS n FROM ratings WHERE system = ?", "elo")
    fig, ax = store.plot_history(list(top["player_id"][:2]), system="elo")
    out["plot"] = pl.DataFrame({"lines": [len(ax.get_lines())], "axes": [len(fig.axes)]})

    fide = arpad.Store(folder / "fide-store")
    fide.ingest(data["fide_games"], players=data["fide_players"], **how)
    fide.rate("fide")
    fide_top = fide.list("fide", top=3)
    one = fide_top["player_id"][0]
    out["era"] = fide.era("fide", top=3)
    out["card"] = pl.DataFrame({"change": [fide.card(one).change]})
    periods, _ingests = fide.audit(one)  # ingest times differ between stores
    out["audit"] = periods.drop([c for c in periods.columns if c.endswith("run_id")])
    published = fide.publish("fide")
    out["publish"] = pl.DataFrame({"players": [published["players"]]})
    out["diff"], out["corrections"] = fide.diff(published["period"], "fide")
    site = fide.site(folder / "site")
    out["site"] = pl.DataFrame({"lists": [len(site.lists)], "cards": [site.cards]})
    whatif = arpad.whatif(fide, "dated", "2022-01", start=202201, top=5, **how)
    out["whatif_movers"], out["whatif_crossings"] = whatif.movers, whatif.crossings
    in_memory = arpad.whatif(pl.read_csv(data["fide_games"]), "2024-03", "2025-10",
                             players=pl.read_csv(data["fide_players"]), **how)  # fmt: skip
    out["whatif_memory"] = in_memory.distribution
    out["backtest"] = arpad.backtest("deloitte2011", "elo,glicko", data_dir=bundled_data, **how)
    return out


def assert_same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for name in want:
        assert_frame_equal(got[name], want[name], check_dtypes=False), name


def in_a_loop(fn, *args):
    """``fn(*args)`` called on the thread of a running event loop, as a notebook cell."""

    async def cell():
        loop = asyncio.get_running_loop()
        assert loop.is_running()
        return fn(*args)

    return asyncio.run(cell())


def test_every_api_call_inside_a_running_loop_gives_the_plain_values(
    bundled_data, tmp_path, watchdog
):
    data = inputs(bundled_data, tmp_path / "in")
    plain = session(bundled_data, data, tmp_path / "plain", {})
    assert plain["ingest"]["bad"][0] == 0 and plain["rate_store"]["rows"][0] > 0
    assert plain["plot"]["lines"][0] == 2 and plain["whatif_movers"].height == 5
    looped = in_a_loop(session, bundled_data, data, tmp_path / "loop", {})
    assert_same(looped, plain)


def test_dask_calls_inside_a_running_loop_give_the_plain_values(bundled_data, tmp_path, watchdog):
    """``workers=2`` (a local cluster started from the loop's thread) and
    ``cluster=ADDRESS`` (a scheduler started outside the loop) from inside the loop."""
    from distributed import LocalCluster

    data = inputs(bundled_data, tmp_path / "in")
    plain = session(bundled_data, data, tmp_path / "plain", {})
    workers = in_a_loop(session, bundled_data, data, tmp_path / "workers", {"workers": 2})
    assert_same(workers, plain)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:  # fmt: skip
        remote = in_a_loop(
            session,
            bundled_data,
            data,
            tmp_path / "cluster",
            {"cluster": cluster.scheduler_address},
        )
    assert_same(remote, plain)


@pytest.mark.prefect
def test_tracked_flows_inside_a_running_loop_give_the_plain_values(
    bundled_data, tmp_path, prefect_harness, watchdog
):
    """``flow=True`` (a Prefect flow run against a real server) from a cell: Prefect's
    sync flow call inside a running loop, with and without Dask workers."""
    data = inputs(bundled_data, tmp_path / "in")

    def calls(folder: Path, how: dict) -> dict:
        store = arpad.Store(folder / "store")
        store.ingest(data["files"], mapping="kaggle2010", **how)
        store.rate("elo", **how)
        fide = arpad.Store(folder / "fide")
        fide.ingest(data["fide_games"], players=data["fide_players"], **how)
        fide.rate("fide", **how)
        whatif = arpad.whatif(fide, "dated", "2022-01", start=202201, top=5, **how)
        return {
            "ratings": store.ratings("elo").drop("run_id"),
            "fide": fide.ratings("fide").drop("run_id"),
            "movers": whatif.movers,
            "backtest": arpad.backtest("deloitte2011", "elo", data_dir=bundled_data, **how),
        }

    plain = calls(tmp_path / "plain", {})
    assert_same(in_a_loop(calls, tmp_path / "flow", {"flow": True}), plain)
    assert_same(in_a_loop(calls, tmp_path / "flow-dask", {"flow": True, "workers": 2}), plain)


def test_a_figure_shows_itself_in_a_notebook_without_pyplot(bundled_data, tmp_path):
    """IPython's display of ``plot_history``'s figure is a PNG (the inline backend
    registers a display for figures only once pyplot is imported; without it a cell
    showed ``<Figure size 900x480 with 1 Axes>``), and no backend is chosen."""
    import subprocess
    import sys

    code = f"""
import sys
import polars as pl
import arpad
from IPython.core.interactiveshell import InteractiveShell
games = pl.read_csv({str(bundled_data / KAGGLE)!r}).filter(pl.col("Month #") <= 6)
games.write_csv({str(tmp_path / "g.csv")!r})
store = arpad.Store({str(tmp_path / "s")!r})
store.ingest({str(tmp_path / "g.csv")!r}, mapping="kaggle2010")
store.rate("elo")
fig, ax = store.plot_history(list(store.list("elo", top=2)["player_id"]), system="elo")
data, _ = InteractiveShell.instance().display_formatter.format(fig)
assert data["image/png"][:8] == b"\\x89PNG\\r\\n\\x1a\\n", sorted(data)
assert "matplotlib.pyplot" not in sys.modules
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
