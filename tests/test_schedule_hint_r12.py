"""Officer, round 12: `arpad serve` and `arpad deploy` without a Prefect server said
"… or leave out --flow to run in this process", advice neither command can follow (no
--flow was given; a schedule cannot run in this process). They now name the
alternative, the monthly job under cron (docs/operations.md "Without Prefect: cron")."""

from __future__ import annotations

import pytest

from arpad.pipeline.cli import main


@pytest.mark.parametrize("command", ["serve", "deploy"])
def test_scheduling_without_a_server_names_cron_not_flow(tmp_path, monkeypatch, capsys, command):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tmp_path / "g.csv").write_text("date,white_id,black_id,result\n2025-01-10,1,2,1-0\n")
    store, inbox = tmp_path / "S", tmp_path / "inbox"
    inbox.mkdir()
    assert main(["ingest", str(tmp_path / "g.csv"), "--store", str(store), "--no-flow"]) == 0
    capsys.readouterr()
    args = [command, "--store", str(store), "--inbox", str(inbox), "--systems", "elo"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("arpad: error: scheduling needs a Prefect server: set PREFECT_API_URL")
    assert "leave out --flow" not in err
    assert "arpad recalculate --inbox /abs/inbox --store /abs/store" in err
    assert len(err.strip().splitlines()) == 1


def test_flow_without_a_server_still_says_leave_out_flow(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tmp_path / "g.csv").write_text("date,white_id,black_id,result\n2025-01-10,1,2,1-0\n")
    assert main(["ingest", str(tmp_path / "g.csv"), "--store", str(tmp_path / "S"), "--flow"]) == 2
    assert "or leave out --flow to run in this process" in capsys.readouterr().err
