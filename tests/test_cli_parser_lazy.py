"""The command line builds only the parsers of the command it names
(pipeline/commands/__init__.py ``COMMAND_MODULES``, docs/runners.md "Start-up")."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys

import pytest

import arpad.pipeline.commands as package
from arpad.pipeline.cli import build_parser, main


def _registered() -> dict[str, str]:
    """Each command -> the module whose ``register`` adds it, found by registering every
    module of the package on its own."""
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "register"):
            sub = argparse.ArgumentParser().add_subparsers()
            module.register(sub)
            for name in sub.choices:
                found[name] = info.name
    return found


def test_the_map_names_every_command_and_its_module():
    assert package.COMMAND_MODULES == _registered()


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["rate", "--system", "elo"], {"ingest", "rate", "reconstruct", "list", "sql"}),
        (
            ["--store", "S", "norm", "x.trf"],
            {"performance", "convert", "norm", "category", "class"},
        ),
        (["--store=S", "publish"], {"publish", "diff", "audit"}),
    ],
)
def test_a_named_command_builds_only_its_modules_parsers(argv, expected):
    assert _commands(build_parser(argv)) == expected


@pytest.mark.parametrize(
    "argv", [[], ["--help"], ["--version"], ["-h", "rate"], ["rat"], ["--store", "S"], None]
)
def test_otherwise_every_command_is_there(argv):
    assert _commands(build_parser(argv)) == set(package.COMMAND_MODULES)


def test_a_mistyped_command_still_gets_the_whole_list(capsys):
    assert main(["rat", "--system", "elo"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'rat'" in err and "'rate'" in err


def test_the_rate_command_line_imports_no_other_command_module():
    code = (
        "import sys\n"
        "from arpad.pipeline.cli import build_parser\n"
        "build_parser(['rate', '--system', 'elo'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('arpad.pipeline.commands.'))\n"
        "assert loaded == ['arpad.pipeline.commands.common', 'arpad.pipeline.commands.core'], loaded\n"
        "assert 'arpad.pipeline.tournament' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
