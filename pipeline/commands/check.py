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
    from arpad.pipeline.integrity import notes, problems

    store = require_store(args)
    found = problems(store)
    for problem in found:
        print(problem.line())
    # not damage (exit 0 still), but the officer must know: an interrupted ingest
    noted = notes(store)
    for note in noted:
        print(f"note: {note}")
    if not found:
        if noted:
            print(f"{store.root}: no damage found; {len(noted)} staged ingest(s) noted above")
        else:
            print(f"{store.root}: no problem found")
        return 0
    print(f"arpad: {len(found)} problem(s) in the store {store.root}")
    return 2
