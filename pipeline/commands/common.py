"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arpad.pipeline.store import Store, check_store_path

DEFAULT_STORE = "./arpad-store"


def add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        default=os.environ.get("ARPAD_STORE", DEFAULT_STORE),
        help="store directory (default ./arpad-store or $ARPAD_STORE)",
    )


def add_orchestration(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-flow",
        action="store_true",
        default=os.environ.get("ARPAD_NO_FLOW") == "1",
        help="run the pipeline function directly instead of the Prefect flow "
        "(also ARPAD_NO_FLOW=1)",
    )
    add_cluster(parser)


def add_cluster(parser: argparse.ArgumentParser) -> None:
    """Scale-out and single-writer options of commands that write the store (docs/operations.md)."""
    parser.add_argument(
        "--cluster",
        default=os.environ.get("ARPAD_CLUSTER"),
        metavar="tcp://HOST:PORT",
        help="run the flow's tasks on this Dask scheduler (also ARPAD_CLUSTER)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("ARPAD_WORKERS") or 0) or None,
        metavar="N",
        help="run the flow's tasks on a local Dask cluster of N worker processes",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="if another run is writing to the store, wait up to SECONDS for it (default: exit)",
    )
    parser.set_defaults(writes_store=True)


def parse_sets(values: list[str] | None) -> dict[str, str]:
    out = {}
    for item in values or []:
        if "=" not in item:
            raise ValueError(f"--set takes key=value, got {item!r}")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def open_store(args) -> Store:
    check_store_path(Path(args.store))
    return Store(args.store)


def require_store(args) -> Store:
    store = open_store(args)
    if not store.exists():
        raise FileNotFoundError(f"no store at {args.store} (ingest something first)")
    return store


def is_terminal() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI") is None
