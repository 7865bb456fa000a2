"""The ``arpad`` command line (contract: ARCHITECTURE.md "CLI", docs/cli.md).

Exit codes: 0 success, 2 bad input (one line per problem, with a pointer to
the quarantine), 1 internal error. Each module in ``pipeline/commands``
registers its subcommands through ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
import traceback

from arpad.pipeline.errors import InputError, StoreBusyError, disk_full

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _prepare_environment() -> None:
    # A fresh Prefect home can fail with "database is locked" unless analytics are off.
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_LOGGING_TO_API_ENABLED", "false")


@contextlib.contextmanager
def _writer_lock(args):
    """Commands that write the store hold its single-writer lock (pipeline/store.py);
    their ``--cluster``/``--workers`` reach the flows through the environment
    (ARPAD_CLUSTER/ARPAD_WORKERS, restored afterwards)."""
    if not getattr(args, "writes_store", False):
        yield
        return
    saved = {k: os.environ.get(k) for k in ("ARPAD_CLUSTER", "ARPAD_WORKERS")}
    if getattr(args, "cluster", None):
        os.environ["ARPAD_CLUSTER"] = args.cluster
    if getattr(args, "workers", None):
        os.environ["ARPAD_WORKERS"] = str(args.workers)
    from arpad.pipeline.store import Store

    store = Store(args.store)
    try:
        if not store.exists() and args.command not in CREATES_STORE:
            yield  # the command reports the missing store itself
        else:
            with store.writer_lock(f"arpad {args.command}", wait=args.wait):
                yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


CREATES_STORE = {"ingest", "recalculate"}


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
        with _writer_lock(args):
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
    except Exception as exc:
        if disk_full(exc):  # the writer lock has put the store back as it was
            text = " ".join(str(exc).split())
            print(f"arpad: error: disk full ({text}): the store is as before", file=sys.stderr)
            return EXIT_BAD_INPUT
        traceback.print_exc()
        print("arpad: internal error (exit 1)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
