"""``arpad players``: the players table, the identity conflicts between sources, and
merging duplicate players (``merge``, ``split``, ``identify``; docs/identity.md)."""

from __future__ import annotations

import argparse

from arpad.pipeline import output
from arpad.pipeline.commands.common import add_store, require_store


def register(sub) -> None:
    p = sub.add_parser("players", help="players table, conflicts, merging duplicates")
    add_store(p)
    p.add_argument(
        "--conflicts",
        action="store_true",
        help="players whose sources give different birth years, ratings or titles (same id), "
        "and the proposed merges with their strongest evidence",
    )
    p.add_argument(
        "--candidates",
        action="store_true",
        help="the proposed merges with their evidence (as arpad players identify)",
    )
    p.add_argument("--id", dest="player_id", default=None, help="one player and its sources")
    p.add_argument("--merges", action="store_true", help="every merge and split applied")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_players)
    actions = p.add_subparsers(dest="action", metavar="{merge,split,identify}")

    def store_option(q):
        q.add_argument("--store", default=argparse.SUPPRESS, help="store directory")

    m = actions.add_parser("merge", help="count the duplicates' games as KEEP's")
    m.add_argument("ids", nargs="*", metavar="KEEP DUPLICATE", help="KEEP then DUPLICATE...")
    m.add_argument("--mapping", default=None, metavar="FILE", help="CSV keep,duplicate rows")
    m.add_argument("--reason", default="", help="why (kept in the audit trail)")
    m.add_argument(
        "--force",
        action="store_true",
        help="merge ids that met in a game (those games are then not rated)",
    )
    m.add_argument("--wait", type=float, default=0.0, metavar="SECONDS")
    store_option(m)
    m.set_defaults(func=cmd_merge)
    s = actions.add_parser("split", help="undo a merge: DUPLICATE's games are its own again")
    s.add_argument("keep", metavar="KEEP")
    s.add_argument("duplicate", metavar="DUPLICATE")
    s.add_argument("--reason", default="", help="why (kept in the audit trail)")
    s.add_argument("--wait", type=float, default=0.0, metavar="SECONDS")
    store_option(s)
    s.set_defaults(func=cmd_split)
    i = actions.add_parser("identify", help="propose merges with their evidence")
    i.add_argument("--output", default=None, metavar="FILE", help="mapping CSV to review")
    i.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    i.add_argument(
        "--held-back",
        action="store_true",
        help="list the pairs not proposed (careers apart, met in a game, an abbreviation "
        "fitting several players) with the rule that held each back, instead of the "
        "proposals; with --output a mapping file whose rows are marked merge 'no'",
    )
    store_option(i)
    i.set_defaults(func=cmd_identify)


def cmd_players(args) -> int:
    import polars as pl

    from arpad.pipeline import identity

    store = require_store(args)
    if args.conflicts:
        frame = identity.conflicts(store)
        proposed = identity.candidates(store)
        if args.fmt == "table" and not args.output:
            n = frame.get_column("player_id").n_unique() if frame.height else 0
            print(f"{n} player(s) with conflicting values across sources")
            print(f"{proposed.height} proposed merge(s) (arpad players identify):")
            output.render(proposed, "table")
    elif args.candidates:
        frame = identity.candidates(store)
    elif args.merges:
        frame = identity.read_merge_log(store)
    elif args.player_id:
        frame = identity.read_observations(store).filter(pl.col("player_id") == args.player_id)
        if not frame.height:  # an empty table said nothing (the officer's report, round 14)
            return _no_source(store, args, frame)
    else:
        frame = pl.from_arrow(store.read_players())
    output.render(frame, args.fmt, args.output)
    return 0


def _no_source(store, args, frame) -> int:
    """``arpad players --id X`` for an id no source describes: one line saying what the
    store holds of it (its games, its players row, the merge it counts in), in place of
    an empty table (a machine format still writes its empty table, the line on stderr);
    an id the store holds nothing of is refused (exit 2)."""
    import sys

    import polars as pl

    from arpad.pipeline import identity
    from arpad.pipeline.errors import printable

    pid = args.player_id
    files = [str(f) for f in store.game_files()]
    side = (pl.col("white_id") == pid) | (pl.col("black_id") == pid)
    games = pl.scan_parquet(files).filter(side).select(pl.len()).collect().item() if files else 0
    row = pl.from_arrow(store.read_players()).filter(pl.col("player_id") == pid)
    keep = identity.alias_map(store).get(pid)
    if not games and not row.height:
        print(
            printable(f"arpad: error: no player {pid} in the store (no game, no players row)"),
            file=sys.stderr,
        )
        return 2
    held = f"{games} game(s) stored under this id" if games else "no game"
    if keep is not None:
        held += f", counted as {keep}'s by a merge: arpad players --id {keep}"
    elif row.height and games:
        held += ", its players row made from its games alone"
    elif row.height:  # a row whose games are gone (a store of before round 15, which
        # kept the ids a corrected file no longer names: namesakes.drop_replaced_ids)
        held += ": its players row is left from games removed since, by a corrected file"
    else:
        held += ", no players row"
    line = printable(f"{pid}: no source describes this player ({held})")
    if args.fmt == "table" and not args.output:
        print(line)
    else:
        output.render(frame, args.fmt, args.output)
        print(f"arpad: note: {line}", file=sys.stderr)
    return 0


def cmd_merge(args) -> int:
    import sys

    from arpad.pipeline import identity, jobs
    from arpad.pipeline.errors import printable

    if args.mapping and args.ids:
        raise ValueError("give either KEEP DUPLICATE... or --mapping FILE, not both")
    if args.mapping:
        # every row checked against the store first, so that an error names its line
        notes: list[str] = []  # read as ingest reads a CSV: Latin-1, ";" (docs/identity.md)
        pairs = identity.read_mapping(args.mapping, require_store(args), args.force, notes)
        for note in notes:
            print(f"arpad: note: {printable(args.mapping)}: {note}", file=sys.stderr)
        if not pairs:  # a mapping with no row to merge: identify proposed none
            print(f"nothing to merge: {printable(args.mapping)} has no keep,duplicate row to merge")
            return 0
    elif len(args.ids) >= 2:
        pairs = [(args.ids[0], dup, args.reason) for dup in dict.fromkeys(args.ids[1:])]
    else:
        raise ValueError("players merge needs KEEP DUPLICATE... or --mapping FILE")
    pairs = _not_merged_yet(args, pairs)
    if not pairs:
        return 0
    request = jobs.MergeRequest(args.store, pairs, wait=args.wait, force=args.force)
    stale = _all_or_nothing(request, "merged")
    _report("merged", pairs, stale)
    if request.games_out:  # docs/identity.md "Copies a merge makes one game"
        print(
            f"took out {request.games_out} game(s) that this merge makes the same game as "
            "a game of an earlier-ingested file (same players after the merge, result, and "
            "date or moves): quarantined as probable_duplicate, not rated (the quarantine "
            "view; arpad players split puts them back)"
        )
    if request.self_play is not None and request.self_play.height:
        print(
            f"arpad: note: {request.self_play.height} game(s) of a player against himself "
            f"after this merge (--force; e.g. {request.self_play.row(0)[1]}): not rated "
            "(docs/identity.md)",
            file=sys.stderr,
        )
    for note in request.notes:  # stated ratings the merge brings (docs/observations.md)
        print(f"arpad: note: {note}", file=sys.stderr)
    # the kept id's own rated games, birth year, rating… win over the duplicate's
    # (docs/identity.md "An id change"): said when they differ (the officer, round 13)
    kept = identity.kept_values_notes(require_store(args), pairs)
    for note in kept[:MAX_KEPT_NOTES]:
        print(f"arpad: note: {printable(note)}", file=sys.stderr)
    if len(kept) > MAX_KEPT_NOTES:
        print(
            f"arpad: note: and {len(kept) - MAX_KEPT_NOTES} more merged pair(s) whose kept "
            "id's own values differ from the duplicate's",
            file=sys.stderr,
        )
    return 0


# The notes of kept ids whose own values win over their duplicates' (``cmd_merge``).
MAX_KEPT_NOTES = 10


def _not_merged_yet(args, pairs: list) -> list:
    """``pairs`` without those already in force (``identity.in_force``: the duplicate
    merged into that keep, which ``identity.merge`` skips): a merge run again, as a
    script that repeats its merges every month does, is said and is exit 0 (officer
    round 9, docs/identity.md "A merge run again"). A duplicate merged into another
    keep is still refused (by ``identity.merge``)."""
    import sys

    from arpad.pipeline import identity

    store = require_store(args)
    if not store.aliases_path.exists():
        return pairs
    done = identity.in_force(store, pairs)
    current = identity.alias_map(store)
    known = set(current) | set(current.values())
    for pair in done:
        keep, dup = (identity.spelt_as_stored(p, known) for p in pair[:2])
        print(f"arpad: note: {dup} is already merged into {keep}: nothing to do", file=sys.stderr)
    left = [pair for pair in pairs if pair not in done]
    if not left:
        print(f"merged 0 pair(s); all {len(pairs)} already in force")
    return left


def _all_or_nothing(request, done: str):
    """Run the merge or split job; a refusal says that nothing was done (the writer
    lock's undo journal puts back the pairs applied before it)."""
    from arpad.pipeline import jobs

    try:
        return jobs.merge_players(request)
    except ValueError as exc:
        raise ValueError(f"{exc}; nothing was {done}") from exc


def _report(done: str, pairs, stale) -> None:
    where = ", ".join(f"{pool} from {period}" for pool, period in stale)
    then = f"affected: {where} (the next arpad rate recomputes)" if where else "no games involved"
    print(f"{done} {len(pairs)} pair(s); {then}")


def cmd_split(args) -> int:
    from arpad.pipeline import jobs

    pairs = [(args.keep, args.duplicate, args.reason)]
    request = jobs.MergeRequest(args.store, pairs, split=True, wait=args.wait)
    stale = _all_or_nothing(request, "split")
    _report("split", pairs, stale)
    if request.games_out:  # the games the merge took out as copies (docs/identity.md)
        print(
            f"put back {request.games_out} game(s) a merge had taken out as probable "
            "duplicates: no longer the same game as another file's"
        )
    return 0


def cmd_identify(args) -> int:
    import sys

    import polars as pl

    from arpad.pipeline import identity

    store = require_store(args)
    frame, rows, notes, cut = identity.identified(store)
    if not args.held_back:  # the pairs not proposed, said on stderr (docs/identity.md)
        for note in notes:
            print(f"arpad: note: {note}", file=sys.stderr)
    if cut and not args.held_back:  # where to find all of them (the notes name 3 each)
        where = f"is a row of {args.output} marked merge 'no' (write yes to merge one)"
        if not args.output:
            where = (
                "is listed by arpad players identify --held-back (with --output: a mapping file)"
            )
        print(f"arpad: note: each of the {rows.height} pair(s) held back {where}", file=sys.stderr)
    proposed = frame.height
    if args.held_back:
        frame = rows
    elif args.output and rows.height:  # proposals, then the pairs held back (identity.md)
        frame = pl.concat([frame.with_columns(pl.lit("yes").alias("merge")), rows])
    if args.output:
        output.render(frame, "csv", args.output)
        if args.held_back:
            print(
                f"{frame.height} pair(s) held back written to {args.output}, marked merge "
                f"'no' (write yes in the rows to merge, then arpad players merge --mapping "
                f"{args.output})"
            )
        else:
            also = ""
            if rows.height:
                also = f" and {rows.height} pair(s) held back (marked merge 'no')"
            print(
                f"{proposed} proposed merge(s)"
                f"{also} written to {args.output} (review, then arpad players merge "
                f"--mapping {args.output})"
            )
    else:
        output.render(frame, args.fmt)
    return 0
