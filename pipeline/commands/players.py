"""``arpad players``: the players table, or the identity conflicts between sources."""

from __future__ import annotations

from arpad.pipeline import output
from arpad.pipeline.commands.common import add_store, require_store


def register(sub) -> None:
    p = sub.add_parser("players", help="players table, or conflicts between sources")
    add_store(p)
    p.add_argument(
        "--conflicts",
        action="store_true",
        help="players whose sources give different birth years or ratings (same id)",
    )
    p.add_argument("--id", dest="player_id", default=None, help="one player and its sources")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_players)


def cmd_players(args) -> int:
    import polars as pl

    from arpad.pipeline import identity

    store = require_store(args)
    if args.conflicts:
        frame = identity.conflicts(store)
        if args.fmt == "table" and not args.output:
            n = frame.get_column("player_id").n_unique() if frame.height else 0
            print(f"{n} player(s) with conflicting values across sources")
    elif args.player_id:
        frame = identity.read_observations(store).filter(pl.col("player_id") == args.player_id)
    else:
        frame = pl.from_arrow(store.read_players())
    output.render(frame, args.fmt, args.output)
    return 0
