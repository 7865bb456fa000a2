"""``arpad publish``, ``arpad diff --published``, ``arpad audit``: frozen lists, what
changed since, and why a player has a rating (docs/lists.md, docs/store.md)."""

from __future__ import annotations

import sys

from arpad.pipeline import output
from arpad.pipeline.commands.common import (
    add_store,
    note_out_of_date,
    require_store,
    resolve_player,
)
from arpad.pipeline.periods import parse_period
from arpad.pipeline.systems import DEFAULT_SYSTEM


def register(sub) -> None:
    p = sub.add_parser("publish", help="freeze one period's list (never revised afterwards)")
    add_store(p)
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument("--pool", default="standard")
    p.add_argument(
        "--period",
        type=parse_period,
        default=None,
        help="default: the latest rated period whose month is over",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="freeze a month still in progress (refused without it: docs/lists.md)",
    )
    p.add_argument(
        "--skip-earlier",
        action="store_true",
        help="publish PERIOD although finished months after the latest published list are "
        "not published: they can then never be (refused without it: docs/lists.md)",
    )
    p.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="if another run is writing to the store, wait up to SECONDS for it (default: exit)",
    )
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("diff", help="published list of a period against the current ratings")
    add_store(p)
    p.add_argument("--published", type=parse_period, required=True, metavar="PERIOD")
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument("--pool", default="standard")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("audit", help="why a player has a rating: per period rules, run, games")
    p.add_argument("player_id", metavar="PLAYER")
    add_store(p)
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument("--pool", default="standard")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_audit)


def cmd_publish(args) -> int:
    from arpad.pipeline import publish

    store = require_store(args)
    if args.period is None:  # the months not over are passed over: each named
        day = publish.today()
        skipped = publish.not_finished(store, args.system, args.pool, day)
        if len(skipped) < len(store.rating_periods(args.system, args.pool)):
            for period in skipped:  # (else the refusal names them)
                note = publish.in_progress_note(args.system, args.pool, period, day)
                print(f"arpad: note: {note}", file=sys.stderr)
    m = publish.freeze(
        store,
        args.system,
        args.pool,
        args.period,
        wait=args.wait,
        force=args.force,
        skip_earlier=args.skip_earlier,
    )
    if args.force and (state := publish.month_state(m["period"])):
        note = f"period {m['period']} is a month {state}, frozen anyway (--force)"
        print(f"arpad: note: {note}", file=sys.stderr)
    if passed := m.get(publish.PASSED_OVER):  # (--skip-earlier) never to be frozen now
        one = len(passed) == 1
        note = (
            f"the {args.system}/{args.pool} list{'' if one else 's'} of period"
            f"{'' if one else 's'} {', '.join(map(str, passed))} passed over (--skip-earlier): "
            f"{'it' if one else 'they'} can no longer be published, lists being frozen in "
            f"order; arpad list --period P prints {'it' if one else 'them'}"
        )
        print(f"arpad: note: {note}", file=sys.stderr)
    folder = store.published_partition(args.system, args.pool, m["period"])
    print(f"published {args.system}/{args.pool} period {m['period']}: {m['players']} players")
    print(f"  {folder}")
    if "carried_from" in m:  # a month without games in the pool (docs/lists.md)
        print(
            f"  the list of period {m['carried_from']} carried forward: pool {args.pool} has "
            f"no games in period {m['period']} (0 games, no K)"
        )
    for name, why in m.get("skipped", {}).items():
        print(f"  not written: {name}: {why}")
    if seeded := m.get(publish.EVERY_POOL):  # a register's rating of every pool listed
        note = publish.every_pool_note(args.system, args.pool, m["period"], seeded, m["players"])
        print(f"arpad: note: {note}", file=sys.stderr)
    return 0


# After ``out_of_date``'s note: what the diff of stale ratings does not show yet.
STALE_DIFF = (
    "; until then this diff compares the published list with ratings that do not count that change"
)


def cmd_diff(args) -> int:
    from arpad.pipeline.publish import diff

    store = require_store(args)
    players, corrections = diff(store, args.system, args.pool, args.published)
    if players.get_column("published_id").null_count() == players.height:
        players = players.drop("published_id")  # no id change among them (docs/lists.md)
    # "0 changed" of stale ratings is not "the correction changed nothing" (docs/cli.md)
    note_out_of_date(store, args.system, args.pool, args.published, STALE_DIFF)
    if args.fmt == "table" and not args.output:
        print(
            f"{players.height} player(s) whose {args.system}/{args.pool} rating of period "
            f"{args.published} changed since it was published"
        )
    output.render(players, args.fmt, args.output)
    _note_renamed(store, args)
    if args.fmt == "table" and not args.output:
        print(
            f"\n{corrections.height} ingest(s) and merge(s) since publication touching "
            f"periods <= {args.published}:"
        )
        output.render(corrections, "table")
    return 0


def _note_renamed(store, args) -> None:
    """A name corrected since the publication: a note on stderr (no rating changed, so
    the table does not list it; docs/cli.md "arpad diff")."""
    import sys

    from arpad.pipeline.errors import printable
    from arpad.pipeline.publish import renamed

    names = renamed(store, args.system, args.pool, args.published)
    if names.is_empty():
        return
    shown = "; ".join(
        f"{pid}: {printable(old)!r} now {printable(new)!r}"
        for pid, old, new in names.head(3).iter_rows()
    )
    more = f"; and {names.height - 3} more" if names.height > 3 else ""
    print(
        f"arpad: note: {names.height} player(s) renamed since the list of period "
        f"{args.published} was published ({shown}{more}): the published list keeps the "
        "names it was published with; the next list carries the new ones",
        file=sys.stderr,
    )


def cmd_audit(args) -> int:
    from arpad.pipeline.audit import audit, cut_rules

    store = require_store(args)
    player = resolve_player(store, args.player_id, args.system, args.pool)
    periods, trail = audit(store, player, args.system, args.pool)
    note_out_of_date(store, args.system, args.pool)  # the note of arpad list (docs/cli.md)
    from arpad.pipeline.history import whole_numbers

    # FIDE's 2029, not 2029.0, as history, list and card print it (officer round 14)
    output.render(whole_numbers(periods, args.system), args.fmt, args.output)
    if args.fmt == "table" and not args.output:
        for line in cut_rules(periods):  # a name the table cuts, whole (docs/rules.md)
            print(line)
        print(f"\n{trail.height} ingest(s), correction(s) and merge(s) touching these periods:")
        output.render(trail, "table", max_rows=max(trail.height, 1))
    return 0
