"""`arpad backtest --report` to a FIFO or /dev/stdout is written in place, as `--output`
is (docs/cli.md "Output files"; docs/backtest.md "Draws", "The report file"); a regular file is
replaced atomically. Before, the report file was read first to keep the other data sets'
sections: a FIFO blocked that read (the command hung after the run), and so did
/dev/stdout on a pipe."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from arpad.pipeline import backtest as bt

SECTION_START, SECTION_END = "<!-- backtest:kaggle2010 -->", "<!-- /backtest:kaggle2010 -->"


def _backtest(data, report: str, **kw) -> subprocess.CompletedProcess:
    argv = ["backtest", "--data", "kaggle2010", "--system", "elo", "--data-dir", str(data)]
    return subprocess.run(
        [sys.executable, "-m", "arpad.pipeline.cli", *argv, "--report", report],
        text=True,
        timeout=60,  # the old code hung here
        **kw,
    )


def _one_report(text: str) -> None:
    assert text.startswith(bt.REPORT_HEADER)
    assert text.count(SECTION_START) == 1 and text.rstrip().endswith(SECTION_END)
    assert "| elo |" in text and "| constant 0.5 |" in text


def test_report_to_a_fifo_read_by_another_reader(tmp_path, bundled_data):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        proc = _backtest(bundled_data, str(fifo), capture_output=True)
    finally:
        if reader.is_alive():  # never leave the reader blocked on the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
    assert proc.returncode == 0, proc.stderr
    assert f"table written to {fifo}" in proc.stderr
    _one_report(got[0].decode())
    assert fifo.is_fifo()  # not renamed over by a regular file


def test_report_to_dev_stdout_on_a_pipe(bundled_data):
    proc = _backtest(bundled_data, "/dev/stdout", capture_output=True)
    assert proc.returncode == 0, proc.stderr
    printed, _, report = proc.stdout.partition(bt.REPORT_HEADER)
    assert "elo" in printed  # the printed table first, then the report after it
    _one_report(bt.REPORT_HEADER + report)


def _result() -> bt.BacktestResult:
    row = bt.Row("constant 0.5", "p=0.500000", 0.75, {"cv": 0.65}, log_loss3={"cv": 1.05})
    return bt.BacktestResult("kaggle2010", "rmse", ["cv"], [row], [], {"cv": np.zeros(1)})


def test_a_failed_write_leaves_the_regular_file_as_it_was(tmp_path, monkeypatch):
    report = tmp_path / "backtest.md"
    report.write_text("# by hand\n")

    def refuse(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        bt.write_markdown(_result(), report, "arpad backtest --data kaggle2010")
    assert report.read_text() == "# by hand\n"
    assert os.listdir(tmp_path) == ["backtest.md"]  # no temporary file left


def test_a_regular_file_keeps_its_other_sections(tmp_path):
    report = tmp_path / "backtest.md"
    report.write_text("# by hand\n\n<!-- backtest:other -->\nkept\n<!-- /backtest:other -->\n")
    bt.write_markdown(_result(), report, "arpad backtest --data kaggle2010")
    bt.write_markdown(_result(), report, "arpad backtest --data kaggle2010")
    text = report.read_text()
    assert text.startswith("# by hand\n") and "kept" in text
    assert text.count(SECTION_START) == 1 and "| constant 0.5 |" in text
