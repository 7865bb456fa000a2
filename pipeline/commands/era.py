"""``arpad era``: the top players of each year or decade (docs/analysis.md "Era table")."""

from __future__ import annotations

from arpad.pipeline.commands.common import add_store, note_out_of_date, require_store

ERA_FORMATS = ("table", "csv", "json", "parquet")


def register(sub) -> None:
    p = sub.add_parser("era", help="the top N active players of each year or decade")
    add_store(p)
    p.add_argument("--system", required=True)
    p.add_argument("--pool", default="standard")
    p.add_argument("--top", type=int, default=10, help="players per year (default 10)")
    p.add_argument("--by", default="year", choices=("year", "decade"))
    p.add_argument(
        "--min-games",
        type=int,
        default=None,
        metavar="N",
        help="only players with at least N rated games in the year (decade)",
    )
    p.add_argument("--format", dest="fmt", default="table", choices=ERA_FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_era)


def cmd_era(args) -> int:
    from arpad.pipeline import output
    from arpad.pipeline.era import era_table

    store = require_store(args)
    frame = era_table(store, args.system, args.pool, args.top, args.by, args.min_games)
    note_out_of_date(store, args.system, args.pool)  # the note of arpad list (docs/cli.md)
    if args.fmt == "table" and not args.output:
        fewest = f" with at least {args.min_games} games" if args.min_games else ""
        print(f"{args.system} / {args.pool} / top {args.top} active players by {args.by}{fewest}")
    output.render(frame, args.fmt, args.output, max_rows=max(50, frame.height), float_precision=1)
    return 0
