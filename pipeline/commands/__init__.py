"""Subcommands of ``arpad``; each module defines ``register(subparsers)``.

``COMMAND_MODULES`` names the module that registers each command, so that a command
line naming one command builds only that module's parsers (``cli.build_parser``:
about 15-25 ms less of every command's start-up than importing and registering all
fifteen modules; docs/runners.md "Start-up"). tests/test_cli_parser_lazy.py checks it
against what the modules register."""

COMMAND_MODULES = {
    "backtest": "analysis",
    "plot": "analysis",
    "check": "check",
    "ingest": "core",
    "rate": "core",
    "reconstruct": "core",
    "list": "core",
    "sql": "core",
    "demo": "demo",
    "era": "era",
    "card": "fide_tools",
    "history": "fide_tools",
    "whatif": "fide_tools",
    "rules": "fide_tools",
    "fide-sample": "fide_tools",
    "recalculate": "ops",
    "serve": "ops",
    "deploy": "ops",
    "performance": "performance_tools",
    "convert": "performance_tools",
    "norm": "performance_tools",
    "category": "performance_tools",
    "class": "performance_tools",
    "players": "players",
    "predict": "predict",
    "publish": "published",
    "diff": "published",
    "audit": "published",
    "site": "site",
}
