"""Round-10 analyst defect 3: a mistyped ``--system`` got "did you mean" from ``arpad
rate``, ``list`` and ``era`` only. ``plot``, ``publish``, ``predict``, ``history``,
``audit`` (and ``diff``, ``card``, ``site``) looked the name up among the store's
ratings and advised rating it ("run arpad rate --system eloo first"; ``publish``
said the period "has games that are not rated yet"). Every command that reads a
store now checks the name where it opens the store (pipeline/commands/common.py
``check_system``) and refuses with the line of ``arpad rate`` (docs/cli.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.systems import get_system

GAMES = "white_id,black_id,result,date\n1,2,1-0,2024-01-05\n2,3,0-1,2024-02-03\n3,1,1/2-1/2,2024-02-10\n"


def _refusal(name: str) -> str:
    """The registry's own line, as ``arpad rate`` prints it."""
    with pytest.raises(ValueError) as caught:
        get_system(name)
    return f"arpad: error: {caught.value}\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dym")
    (root / "g.csv").write_text(GAMES)
    (root / "pairs.csv").write_text("white_id,black_id\n1,2\n")
    s = root / "S"
    assert main(["ingest", "--no-flow", "--store", str(s), str(root / "g.csv")]) == 0
    assert main(["rate", "--no-flow", "--store", str(s), "--system", "elo"]) == 0
    return s


def _commands(root: Path, system: str) -> dict[str, list[str]]:
    out = str(root.parent / "x.png")
    return {
        "plot distribution": ["plot", "distribution", "--system", system, "--output", out],
        "plot history": ["plot", "history", "3", "--system", system, "--output", out],
        "publish": ["publish", "--system", system, "--period", "202402"],
        "predict": ["predict", str(root.parent / "pairs.csv"), "--system", system],
        "history": ["history", "3", "--system", system],
        "audit": ["audit", "3", "--system", system],
        "diff": ["diff", "--published", "202402", "--system", system],
        "card": ["card", "3", "--system", system],
        "site": ["site", "--out", str(root.parent / "site"), "--system", system],
    }


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "lock" not in p.name)


@pytest.mark.parametrize("typo", ["eloo", "glicko-2"])
def test_a_mistyped_system_gets_the_line_of_arpad_rate_everywhere(store, capsys, typo):
    expected = _refusal(typo)
    assert main(["rate", "--no-flow", "--store", str(store), "--system", typo]) == 2
    assert capsys.readouterr().err == expected
    before = _files(store)
    for command, argv in _commands(store, typo).items():
        assert main([*argv, "--store", str(store)]) == 2, command
        assert capsys.readouterr().err == expected, command
    assert _files(store) == before  # publish froze nothing
    assert not (store.parent / "x.png").exists() and not (store.parent / "site").exists()
    assert "(did you mean 'elo'?)" in _refusal("eloo")
    assert "(did you mean 'glicko2'?)" in _refusal("glicko-2")  # not an alias: a typo


def test_known_names_pass_and_keep_their_own_answers(store, capsys):
    # Every registered name passes the check (no alias is refused): the registry is
    # what rate/list accept.
    from argparse import Namespace

    from arpad.pipeline.commands.common import check_system

    for name in arpad.systems():
        check_system(Namespace(system=name))
    check_system(Namespace(system=None))  # site without --system: every system
    argv = _commands(store, "elo")
    assert main([*argv["history"], "--store", str(store)]) == 0
    capsys.readouterr()
    # a real system that is not rated here still names what the store has
    assert main([*argv["audit"][:2], "--system", "glicko2", "--store", str(store)]) == 2
    assert "no glicko2/standard rating" in capsys.readouterr().err
    # the card is FIDE's only: another real system keeps that refusal
    assert main([*argv["card"], "--store", str(store)]) == 2
    assert "arpad card is FIDE's rating card only" in capsys.readouterr().err
