"""Ctrl-C landing inside a DuckDB query of a command (DuckDB takes the SIGINT itself and
raises ``RuntimeError('Query interrupted')``) is the same one line and exit 130 as any
other Ctrl-C, not "internal error (exit 1)" with a traceback (hostile round 8: 5 of 10
Ctrl-Cs of a multi-file ingest; docs/cli.md "Ctrl-C")."""

from __future__ import annotations

import pytest

from arpad.pipeline import catalog, cli
from arpad.pipeline.store import Store


@pytest.mark.parametrize("error", [RuntimeError("Query interrupted"), None])
def test_a_query_interrupted_is_exit_130_and_one_line(tmp_path, capsys, monkeypatch, error):
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2025-01-05,A,B,1-0\n2025-01-06,B,C,1/2\n")
    root = str(tmp_path / "s")
    assert cli.main(["ingest", str(games), "--store", root, "--no-flow"]) == 0
    capsys.readouterr()

    def interrupted(*args, **kwargs):
        import duckdb

        raise error if error is not None else duckdb.InterruptException("INTERRUPT Error")

    monkeypatch.setattr(catalog, "refresh", interrupted)
    code = cli.main(["rate", "--system", "elo", "--store", root, "--no-flow"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_INTERRUPTED == 130
    assert err == cli.INTERRUPTED + "\n"
    # The writer lock undid the run's writes: no ratings stand for an interrupted run.
    assert Store(root).rating_periods("elo", "standard") == []
