"""Glicko settings that contradict each other, and an RD of 0 in a players file, are
refused (docs/glicko.md "Floor and ceiling")."""

from __future__ import annotations

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.systems.glicko import GlickoRules
from arpad.pipeline.systems.glicko2 import Glicko2Rules


def _store(tmp_path, rd_a="0"):
    (tmp_path / "g.csv").write_text("date,white_id,black_id,result\n2024-05-03,A,B,1-0\n")
    (tmp_path / "p.csv").write_text(f"player_id,name,rating,rd\nA,Ay,1500,{rd_a}\nB,Bee,1500,100\n")
    s = tmp_path / "S"
    argv = ["ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv")]
    # a quarantined row makes the ingest's exit 2 (docs/cli.md, exit codes)
    assert main([*argv, "--store", str(s)]) == (2 if rd_a == "0" else 0)
    return s


@pytest.mark.parametrize("rules", [GlickoRules, Glicko2Rules])
def test_rd_floor_above_ceiling_is_refused(rules):
    with pytest.raises(ValueError, match="rd_min 400 is above rd_max 350"):
        rules(rd_min=400.0)
    assert rules(rd_min=350.0).rd_min == 350.0  # equal bounds: a fixed RD, allowed


def test_rd_min_above_rd_max_from_the_command_line(tmp_path, capsys):
    s = _store(tmp_path, rd_a="200")
    for system in ("glicko", "glicko2"):
        argv = ["rate", "--system", system, "--store", str(s), "--set", "rd_min=400"]
        assert main(argv) == 2
        assert "rd_min 400 is above rd_max 350" in capsys.readouterr().err


def test_a_players_file_rd_of_zero_is_quarantined(tmp_path, capsys):
    """It was stored, and `rate --system glicko --set c=0` died in ZeroDivisionError."""
    s = _store(tmp_path)
    out = capsys.readouterr()
    assert "1 players stored, 1 quarantined" in out.out
    assert "p.csv:2: bad_player_field: rd 0 is not a number in 1..1000" in out.err
    assert main(["rate", "--system", "glicko", "--store", str(s), "--set", "c=0"]) == 0
    rows = arpad.Store(s).ratings("glicko").sort("player_id")
    # A's RD is unknown (quarantined) → rules' 350 with rating 1500; B RD 100.
    # Glicko-1 with c = 0: r' = r + q/(1/RD² + 1/d²) Σ g(RD_j)(s − E); both finite
    assert rows["rd_before"].to_list() == [350.0, 100.0]
    assert all(x == x for x in rows["rating_after"].to_list())
