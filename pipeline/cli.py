"""The ``arpad`` command line (contract: docs/cli.md).

Exit codes: 0 success, 2 bad input (one line per problem, with a pointer to
the quarantine), 1 internal error. Each module in ``pipeline/commands``
registers its subcommands through ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from pathlib import Path

from arpad.pipeline.errors import InputError, StoreBusyError, disk_full, not_writable

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _prepare_environment() -> None:
    # Only used when a command runs as a Prefect flow (docs/runners.md).
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


# Options that name files a command writes (docs/operations.md, "Names and paths").
OUTPUT_OPTIONS = {"output": "--output", "plot": "--plot", "report": "--report"}
# Folders a command creates files in: ``arpad demo --out``, ``arpad fide-sample DIR``.
OUTPUT_FOLDERS = {
    "demo": ("out", "--out"),
    "fide-sample": ("directory", "DIRECTORY"),
    "site": ("out", "--out"),
}
# Options whose values become parts of store paths (comma-separated lists allowed).
NAME_OPTIONS = {"pool": "pool", "pools": "pool", "system": "system", "systems": "system"}


def _enclosing_store(path: str) -> Path | None:
    """The store folder ``path`` lies in (or is), recognised by its catalog or manifest."""
    real = Path(path).resolve()
    for folder in (real, *real.parents):
        if (folder / "catalog.duckdb").is_file() or (
            folder / "manifest" / "manifest.parquet"
        ).is_file():
            return folder
    return None


def _check_args(args) -> None:
    """Refuse, before anything runs, names that would become unsafe paths and output
    files that would land inside the store (pipeline/names.py, pipeline/store.py).
    The store checks names again wherever it builds a path; this gives the early,
    one-line error."""
    from arpad.pipeline import names
    from arpad.pipeline.store import outside

    for attr, kind in NAME_OPTIONS.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str):
            continue
        parts = [v.strip() for v in value.split(",")] if attr != "pool" else [value]
        for part in parts:
            if kind == "system" and part == "all" and args.command == "backtest":
                continue
            getattr(names, kind)(part)
    options = dict(OUTPUT_OPTIONS)
    if args.command == "backtest":
        options["predictions"] = "--predictions"
    if args.command in OUTPUT_FOLDERS:
        attr, option = OUTPUT_FOLDERS[args.command]
        options[attr] = option
    store = getattr(args, "store", None)
    for attr, option in options.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str) or not value:
            continue
        if store:
            outside(store, value, option)
        found = _enclosing_store(value)
        if found is not None:
            outside(found, value, option)
    for attr, option in dict(OUTPUT_OPTIONS, predictions="--predictions").items():
        value = getattr(args, attr, None)  # files, not folders: `--output /tmp` is a typo
        if args.command == "whatif" and attr == "output":
            continue  # `arpad whatif --output DIR`: a folder of Parquet tables
        if isinstance(value, str) and value and os.path.isdir(value):
            raise ValueError(f"{option} {value} is a directory: give a file name")


class UsageError(Exception):
    """A command line argparse refuses (unknown option, impossible period, …)."""


class _Parser(argparse.ArgumentParser):
    # Bad arguments are bad input: one line ``arpad: error: …`` and exit 2 (not argparse's
    # usage block and SystemExit), like every other refusal; --help still prints usage.
    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


class _Version(argparse.Action):
    """``arpad --version``: the version looked up only when asked (start-up is timed)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"arpad {_version()}")
        parser.exit()


def _version() -> str:
    """The installed distribution's version (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arpad")
    except PackageNotFoundError:  # a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arpad", description="Batch rating pipeline for chess federations.")
    parser.add_argument("--version", action=_Version, help="print arpad's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    import arpad.pipeline.commands as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool cut off by `head`


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    _prepare_environment()
    lean = False
    if argv is None:  # the console process itself (pipeline/lean.py)
        from arpad.pipeline.lean import hide_unneeded_modules

        lean = hide_unneeded_modules(sys.argv[1:])
    code = _main(argv)
    if lean:  # an in-process ingest or rate: done, nothing left to tear down
        from arpad.pipeline.lean import exit_now

        exit_now(code)
    return code


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"arpad: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        _check_args(args)
        code = args.func(args)
        return EXIT_OK if code is None else int(code)
    except InputError as exc:
        print(f"arpad: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreBusyError as exc:
        print(f"arpad: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, FileNotFoundError) as exc:
        print(f"arpad: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `arpad ... | head`: the reader has gone; no traceback
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        if disk_full(exc):  # the writer lock has put the store back as it was
            text = " ".join(str(exc).split())
            print(f"arpad: error: disk full ({text}): the store is as before", file=sys.stderr)
            return EXIT_BAD_INPUT
        if (denied := not_writable(exc)) is not None:  # the writer lock has undone its writes
            where = str(denied.filename if denied.filename is not None else "the output")
            name = os.path.basename(where)
            if name.startswith(".") and ".tmp" in name:  # an atomic write's temporary file
                where = os.path.dirname(where) or "."
            why = denied.strerror or str(denied)
            print(f"arpad: error: {where}: {why} (the store is as before)", file=sys.stderr)
            return EXIT_BAD_INPUT
        traceback.print_exc()
        print("arpad: internal error (exit 1)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
