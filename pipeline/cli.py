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

from arpad.pipeline.errors import InputError, StoreBusyError

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _prepare_environment() -> None:
    # Only used when a command runs as a Prefect flow (docs/runners.md).
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arpad", description="Batch rating pipeline for chess federations."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    import arpad.pipeline.commands as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    _prepare_environment()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
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
    except Exception:
        traceback.print_exc()
        print("arpad: internal error (exit 1)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
