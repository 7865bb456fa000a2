"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arpad.pipeline.store import Store, check_store_path

DEFAULT_STORE = "./arpad-store"


def add_store(parser: argparse.ArgumentParser) -> None:
    """``--store S``; also accepted before the command (``arpad --store S list``). The
    default ($ARPAD_STORE, else ./arpad-store) is filled in after parsing, where the
    two places are reconciled (pipeline/cli.py ``_resolve_store``)."""
    parser.add_argument(
        "--store",
        default=None,
        metavar="S",
        help="store directory (default ./arpad-store or $ARPAD_STORE; may also come "
        "before the command)",
    )
    parser.set_defaults(_takes_store=True)


def add_encoding(parser: argparse.ArgumentParser) -> None:
    """``--encoding CODEPAGE`` of the commands that read games and players files
    (``ingest``, ``recalculate``, ``serve``/``deploy``, ``performance``, ``norm``,
    ``category``, ``predict``; docs/ingest.md "Encodings"), checked before a file is read."""
    parser.add_argument(
        "--encoding",
        default=None,
        metavar="CODEPAGE",
        help="the code page of files that are not UTF-8 (cp1250 for Central European, "
        "cp1252 for Western, …; default: told from their letters; docs/ingest.md)",
    )


def add_orchestration(parser: argparse.ArgumentParser, writes_store: bool = True) -> None:
    """How a job runs (docs/runners.md): in this process by default; as a tracked
    Prefect flow with --flow or whenever PREFECT_API_URL is set; --no-flow forces
    in-process even then."""
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--flow",
        dest="flow",
        action="store_const",
        const=True,
        default=False if os.environ.get("ARPAD_NO_FLOW") == "1" else None,
        help="run as a tracked Prefect flow on the server at PREFECT_API_URL "
        "(default when PREFECT_API_URL is set)",
    )
    how.add_argument(
        "--no-flow",
        dest="flow",
        action="store_const",
        const=False,
        help="run in this process even when PREFECT_API_URL is set (also ARPAD_NO_FLOW=1)",
    )
    add_cluster(parser, writes_store)


def add_cluster(parser: argparse.ArgumentParser, writes_store: bool = True) -> None:
    """Scale-out options, and the single-writer wait of commands that write the store
    (docs/operations.md)."""
    parser.add_argument(
        "--cluster",
        default=os.environ.get("ARPAD_CLUSTER"),
        metavar="tcp://HOST:PORT",
        help="run the job's independent units on this Dask scheduler (also ARPAD_CLUSTER)",
    )
    parser.add_argument(
        "--workers",
        type=worker_count,
        # A string default is converted by ``type`` when this command is parsed: a bad
        # ARPAD_WORKERS is that command's one-line usage error, not a traceback of every
        # command at start-up (docs/runners.md "Runners attacked, round 3").
        default=FromEnv(os.environ["ARPAD_WORKERS"]) if os.environ.get("ARPAD_WORKERS") else None,
        metavar="N",
        help="run the job's independent units on a local Dask cluster of N worker processes",
    )
    if not writes_store:
        return
    parser.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="if another run is writing to the store, wait up to SECONDS for it (default: exit)",
    )


class FromEnv(str):
    """An option's default taken from the environment (named so in its error)."""


def worker_count(text: str) -> int:
    """``--workers N`` (or ``ARPAD_WORKERS``): a whole number; its range is checked with
    the request (``runner.check_scale_out``)."""
    try:
        return int(text)
    except ValueError:
        given = f"ARPAD_WORKERS={text!r}" if isinstance(text, FromEnv) else repr(text)
        raise argparse.ArgumentTypeError(
            f"takes a whole number of worker processes, got {given}"
        ) from None


def run_job(args, job: str, request, progress=None, log=None):
    """Run ``job`` as the command line asked (pipeline/launch.py)."""
    from arpad.pipeline import launch

    return launch.run(
        job,
        request,
        flow=getattr(args, "flow", None),
        cluster=getattr(args, "cluster", None),
        workers=getattr(args, "workers", None),
        progress=progress,
        log=log,
    )


def parse_sets(values: list[str] | None) -> dict[str, str]:
    out = {}
    for item in values or []:
        if "=" not in item:
            raise ValueError(f"--set takes key=value, got {item!r}")
        key, value = item.split("=", 1)
        key, value = key.strip(), value.strip()
        if key in out and out[key] != value:  # as a single-valued option given twice
            raise ValueError(
                f"--set {key} given twice ({out[key]!r}, then {value!r}): give it once"
            )
        out[key] = value
    return out


def split_list(value: str | None) -> list[str] | None:
    """``a,b,c`` -> [a, b, c]; empty or None -> None (the default set)."""
    return [v.strip() for v in value.split(",") if v.strip()] or None if value else None


def open_store(args) -> Store:
    check_store_path(Path(args.store))
    return Store(args.store)


def require_store(args) -> Store:
    check_system(args)
    store = open_store(args)
    if not store.exists():
        raise FileNotFoundError(f"no store at {args.store} (ingest something first)")
    return store


def check_system(args) -> None:
    """The one check of ``--system`` for every command that reads a store (they all
    open it here): a name no rating system has is refused with the line of ``arpad
    rate`` and ``list`` (``unknown rating system 'eloo' (did you mean 'elo'?)``), not
    the advice to rate it (analyst round 10; docs/cli.md)."""
    name = getattr(args, "system", None)
    if isinstance(name, str):  # (site's default None: every system)
        from arpad.pipeline.systems import get_system

        get_system(name)  # ValueError: the one line, exit 2


def resolve_player(store: Store, player_id: str, system: str, pool: str = "standard") -> str:
    """A merged duplicate id given on the command line: the id it was merged into, with
    a note on stderr (docs/identity.md "Merged ids everywhere"); a text that is not a
    player id: the one player of that name rated in ``system``/``pool``, with a note
    (pipeline/lookup.py); else ``player_id``. A text that is not the found player's name
    (any case) but matches it (an abbreviation, a transliteration) "matches ID (NAME)"."""
    from arpad.pipeline.errors import printable
    from arpad.pipeline.identity import nfc
    from arpad.pipeline.lookup import found_player

    kept, found = found_player(store, player_id, system, pool)
    if kept not in (player_id, nfc(player_id)):  # (not for the id typed decomposed)
        merged = f"was merged into {kept} (arpad players --merges)"
        if _is_stored_id(store, player_id):
            how = merged
        else:
            name = _stored_name(store, found)
            exact = name is not None and nfc(name.strip()).lower() == nfc(player_id.strip()).lower()
            how = f"is the name of {found}" if exact else f"matches {found} ({name})"
            if found != kept:  # a merged duplicate's name
                how += f", which {merged}"
        print(printable(f"arpad: note: {player_id} {how}; showing {kept}"), file=sys.stderr)
    return kept


def _stored_name(store: Store, player_id: str) -> str | None:
    """The name the players table holds for ``player_id``."""
    import pyarrow.compute as pc

    players = store.read_players()
    names = players.filter(pc.equal(players.column("player_id"), player_id)).column("name")
    return names[0].as_py() if len(names) else None


def note_out_of_date(
    store: Store, system: str, pool: str, period: int | None = None, then: str = ""
) -> str | None:
    """The note ``arpad list`` prints on stderr when the ``system``/``pool`` ratings of
    ``period`` (None: the latest rated period, for commands reading every period) are out
    of date (pipeline/publish.py ``out_of_date``), printed here too, ``then`` after it;
    returns it, else None (docs/cli.md, tests/test_stale_notes_round5.py)."""
    from arpad.pipeline.errors import printable
    from arpad.pipeline.publish import out_of_date

    if period is None:
        rated = store.rating_periods(system, pool)
        if not rated:
            return None
        period = rated[-1]
    stale = out_of_date(store, system, pool, period)
    if stale:
        print(printable(f"arpad: note: {stale}{then}"), file=sys.stderr)
    return stale


def _is_stored_id(store: Store, text: str) -> bool:
    from arpad.pipeline.identity import resolve_id

    return resolve_id(store, text) != text


def is_terminal() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI") is None
