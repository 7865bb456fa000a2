"""`arpad card`: a players file without a game count gives K from 30 games taken as
established (docs/rules.md "Decisions where the sources leave room"); the card says
the count was not given and taken as 30, instead of stating "30 rated games" as a fact
(round 8, newuser8 #5a; docs/cli.md "FIDE tools")."""

from __future__ import annotations

from arpad.pipeline.cli import main

GAMES = "date,white_id,black_id,result\n"


def _store(tmp_path, players: str) -> str:
    (tmp_path / "p.csv").write_text(players)
    (tmp_path / "jan.csv").write_text(
        GAMES + "2025-01-11,1001,1002,1-0\n2025-01-18,1004,1001,1-0\n2025-01-11,1003,1004,1/2-1/2\n"
    )
    root = str(tmp_path / "S")
    assert main(["ingest", str(tmp_path / "jan.csv"), "--players", str(tmp_path / "p.csv"),
                 "--store", root, "--no-flow"]) == 0  # fmt: skip
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    return root


def _k_line(root: str, capsys, period: str) -> str:
    capsys.readouterr()
    assert main(["card", "1001", "--period", period, "--store", root]) == 0
    out = capsys.readouterr().out
    # by hand (FIDE B.02 table 8.1.2, docs/rules.md): 2105 v 1950 won, D +155 → PD 0.71,
    # ΔR +0.29; v 2210 lost, D −105 → PD 0.36, ΔR −0.36; ΣΔR −0.07 × 20 = −1.4 → −1: 2104
    if period == "202501":
        assert "rating after: 2104" in out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("K = ")]
    return line


def test_an_unknown_count_is_said_to_be_taken_as_30(tmp_path, capsys):
    root = _store(tmp_path, "player_id,name,rating\n1001,M,2105\n1002,O,1950\n1003,Z,1820\n"
                  "1004,D,2210\n")  # fmt: skip
    assert _k_line(root, capsys, "202501") == (
        "K = 20: base K 20 (rated games not known: taken as 30, peak rating 2105 < 2400); "
        "K × n = 20 × 2 = 40 ≤ 700"
    )
    # a month later: the 2 games of January's published change are added to the 30
    (tmp_path / "feb.csv").write_text(GAMES + "2025-02-11,1001,1002,1-0\n")
    assert main(["ingest", str(tmp_path / "feb.csv"), "--store", root, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    assert _k_line(root, capsys, "202502") == (
        "K = 20: base K 20 (rated games not known: taken as 30, + 2 games since = 32, "
        "peak rating 2105 < 2400); K × n = 20 × 1 = 20 ≤ 700"
    )


def test_a_given_count_is_stated(tmp_path, capsys):
    root = _store(tmp_path, "player_id,name,rating,rated_games\n1001,M,2105,45\n1002,O,1950,\n"
                  "1003,Z,1820,\n1004,D,2210,\n")  # fmt: skip
    assert _k_line(root, capsys, "202501") == (
        "K = 20: base K 20 (45 rated games, peak rating 2105 < 2400); K × n = 20 × 2 = 40 ≤ 700"
    )
