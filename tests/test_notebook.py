"""A real notebook (docs/api.md "In a notebook"): the analyst's calls executed cell by
cell in an IPython kernel by nbclient, inside the kernel's running event loop, with
Dask workers, and a real "interrupt kernel" (SIGINT to the kernel process) during
``Store.rate``, after which the next cell rates the store to the uninterrupted values.
Slow (a kernel, two local clusters): ``pytest -m slow``."""

from __future__ import annotations

import os
import signal
import threading

import nbclient
import nbformat
import pytest

KAGGLE = "kaggle2010_elo_vs_rest/training_data.csv"

CELLS = [
    # a cell runs on the thread of the kernel's running event loop
    """
import asyncio
asyncio.get_running_loop().is_running()
""",
    """
import polars as pl
import arpad
kaggle = pl.read_csv(DATA / KAGGLE).filter(pl.col("Month #") <= 40)
elo = arpad.rate(kaggle, system="elo", mapping="kaggle2010")
last = elo.filter(pl.col("period") == 40)
pairs = pl.DataFrame({"white_id": last["player_id"][:5], "black_id": last["player_id"][5:10]})
predicted = arpad.predict(last, pairs, system="elo", draws=0.3)
assert predicted["p_draw"].null_count() == 0
""",
    """
store = arpad.Store(WORK / "store")
store.ingest(DATA / KAGGLE)
store.rate("elo", workers=2)
top = store.list("elo", top=5)
fig, ax = store.plot_history(list(top["player_id"][:2]), system="elo")
n = store.sql("SELECT count(*) AS n FROM ratings WHERE system = 'elo'")["n"][0]
assert n == store.ratings("elo").height and len(ax.get_lines()) == 2
store.history(top["player_id"][0], system="elo").height
""",
    # the figure as a cell's last expression, pyplot never imported: a picture
    """
import sys
assert "matplotlib.pyplot" not in sys.modules
fig
""",
    """
table = arpad.backtest("deloitte2011", "elo,glicko", data_dir=DATA, workers=2)
assert table["system"].to_list()[2:] == ["elo", "elo + davidson", "glicko", "glicko + davidson"]
whatif = arpad.whatif(pl.read_csv(FIDE_GAMES), "2024-03", "2025-10",
                      players=pl.read_csv(FIDE_PLAYERS), workers=2)
whatif.crossings["threshold"].to_list()
""",
    # a clean Glicko-2 run to compare with, then one paced so that the interrupt lands
    # mid-run (a pause after each period's ratings file, as tests/kill_driver.py "pace")
    """
import shutil, time
from arpad.pipeline.store import Store as _Store
shutil.copytree(WORK / "store", WORK / "clean")
clean = arpad.Store(WORK / "clean")
clean.rate("glicko2")
_writer = _Store.ratings_writer
def _paced(self, *args, **kwargs):
    write = _writer(self, *args, **kwargs)
    def write_then_pause():
        write()
        time.sleep(0.1)
    return write_then_pause
_Store.ratings_writer = _paced
print("ready")
""",
    """
store.rate("glicko2")
""",
    """
_Store.ratings_writer = _writer
done = store.ratings("glicko2").select("period").unique().height
store.rate("glicko2")
from polars.testing import assert_frame_equal
assert_frame_equal(store.ratings("glicko2").drop("run_id"), clean.ratings("glicko2").drop("run_id"))
print("interrupted after", done, "periods; the next cell gave the clean ratings")
""",
]


def text_of(cell) -> str:
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "execute_result":
            parts.append(out.data.get("text/plain", ""))
    return "".join(parts)


@pytest.mark.slow
def test_a_notebook_runs_every_call_and_survives_an_interrupt(bundled_data, tmp_path):
    from arpad.pipeline.fide_sample import write_sample

    players, games = write_sample(tmp_path / "fide", every=12)
    setup = (
        "from pathlib import Path\n"
        f"DATA, WORK, KAGGLE = Path({str(bundled_data)!r}), Path({str(tmp_path)!r}), {KAGGLE!r}\n"
        f"FIDE_GAMES, FIDE_PLAYERS = {str(games)!r}, {str(players)!r}\n"
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(setup)] + [
        nbformat.v4.new_code_cell(c.strip()) for c in CELLS
    ]
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=600,
                                     resources={"metadata": {"path": str(tmp_path)}})  # fmt: skip
    interrupted_cell = len(nb.cells) - 2
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if index != interrupted_cell:
                client.execute_cell(cell, index)
                continue
            pid = client.km.provisioner.pid
            timer = threading.Timer(3.0, os.kill, (pid, signal.SIGINT))  # "interrupt kernel"
            timer.start()
            with pytest.raises(nbclient.exceptions.CellExecutionError) as info:
                client.execute_cell(cell, index)
            timer.join()
            assert info.value.ename == "KeyboardInterrupt"
    assert text_of(nb.cells[1]).strip() == "True"  # the loop was running
    picture = [o for o in nb.cells[4].outputs if o.output_type == "execute_result"]
    assert picture[0].data["image/png"]  # base64 PNG, shown by Jupyter
    assert text_of(nb.cells[5]).strip() == "[1400, 2000, 2400]"
    assert "ready" in text_of(nb.cells[6])
    last = text_of(nb.cells[-1])
    assert "the next cell gave the clean ratings" in last
    done = int(last.split("after ")[1].split(" ")[0])
    assert 0 < done < 100  # the interrupt landed mid-run
