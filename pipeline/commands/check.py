"""``arpad check``: every file of a store checked (docs/store.md "A damaged store: what was
tried"; pipeline/integrity.py). Parses the arguments; the checks live in the pipeline."""

from __future__ import annotations

from arpad.pipeline.commands.common import add_store, require_store


def register(sub) -> None:
    p = sub.add_parser(
        "check",
        help="check every file of the store; name each damaged one and what repairs it",
    )
    add_store(p)
    p.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    from arpad.pipeline.integrity import (
        gameless_ratings,
        interrupted_rates,
        notes,
        problems,
        writer_busy,
    )

    store = require_store(args)
    # A store being written is not checked: files replaced, moved aside and removed under
    # the walk would be named as damage that is not there (docs/store.md "arpad check").
    if _busy(store, writer_busy):
        return 2
    found = None
    for _ in range(3):
        try:
            found = problems(store)
            break
        except FileNotFoundError:  # a file removed under the walk: not damage
            if _busy(store, writer_busy):
                return 2
    if found is None:
        found = problems(store)  # (a lasting error: named by the console, exit 2)
    if found and _busy(store, writer_busy):  # a writer began during the walk
        return 2
    for problem in found:
        print(problem.line())
    # not damage (exit 0 still), but the officer must know: an interrupted ingest or rate
    noted, rates, gameless = notes(store), interrupted_rates(store), gameless_ratings(store)
    for note in noted + rates + gameless:
        print(f"note: {note}")
    if not found:
        # a players merge or split is staged as an ingest is, but counted apart
        from collections import Counter

        from arpad.pipeline.journal import staged_ingests

        kinds = Counter(s["players"] or "ingest" for s in staged_ingests(store)) if noted else {}
        counted = [
            f"{kinds[kind]} staged {what}"
            for kind, what in (
                ("ingest", "ingest(s)"),
                ("merge", "players merge(s)"),
                ("split", "players split(s)"),
            )
            if kinds.get(kind)
        ]
        counted += [f"{len(rates)} interrupted rate(s)"] if rates else []
        counted += [f"{len(gameless)} rated pool(s) without games"] if gameless else []
        if counted:
            print(f"{store.root}: no damage found; {' and '.join(counted)} noted above")
        else:
            print(f"{store.root}: no problem found")
        return 0
    print(f"arpad: {len(found)} problem(s) in the store {store.root}")
    return 2


def _busy(store, writer_busy) -> bool:
    """True, with a one-line refusal on stderr, when a command holds the writer lock."""
    import sys

    holder = writer_busy(store.root)
    if holder is None:
        return False
    print(
        f"arpad: the store {store.root} is being written by {holder}: check again when it is done",
        file=sys.stderr,
    )
    return True
