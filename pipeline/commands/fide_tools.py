"""FIDE tools: rating card, rating history (and plot), what-if replays, rule versions,
and the synthetic 2009–2026 sample (docs/fide-history.md)."""

from __future__ import annotations

import dataclasses
import json
import sys

from arpad.pipeline import output
from arpad.pipeline.commands.common import (
    add_orchestration,
    add_store,
    note_out_of_date,
    parse_sets,
    require_store,
    resolve_player,
    run_job,
)
from arpad.pipeline.periods import parse_period
from arpad.pipeline.systems import DEFAULT_SYSTEM, FIDE_SYSTEM

FIDE = FIDE_SYSTEM  # the card, what-if and rule versions are FIDE's own tools
STALE_DIFFERS = (  # after the note of arpad list when the card DIFFERS (docs/cli.md)
    "the card recomputes from the games and players as they are now, so that change, "
    "not only other rules, can be why it says DIFFERS"
)


def register(sub) -> None:
    p = sub.add_parser("card", help="per-game breakdown of one player's FIDE change in a period")
    p.add_argument("player")
    p.add_argument("--period", type=parse_period, default=None, metavar="P",
                   help="default: the latest rated period")  # fmt: skip
    p.add_argument("--system", default=FIDE,
                   help="fide: the card is FIDE's only (another system is refused, naming "
                   "the commands that show its rows)")  # fmt: skip
    p.add_argument("--pool", default="standard")
    p.add_argument("--rules", default=None, metavar="DATE|FILE", help="rules the run used")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--format", dest="fmt", default="text", choices=["text", "json"])
    add_store(p)
    p.set_defaults(func=cmd_card)

    p = sub.add_parser("history", help="rating history of one player (table or --plot FILE.png)")
    p.add_argument("player")
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument("--pool", default="standard")
    p.add_argument("--plot", default=None, metavar="FILE.png")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.add_argument(
        "--every-period",
        action="store_true",
        help="the table lists every inactive period (default: a run of them is one line; "
        "the other formats always list every period)",
    )
    add_store(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("whatif", help="replay the same games under two FIDE rule sets")
    p.add_argument("--rules", dest="rules_a", required=True, metavar="A",
                   help="DATE, FILE.json or 'dated' (versions in force)")  # fmt: skip
    p.add_argument("--vs", dest="rules_b", required=True, metavar="B")
    p.add_argument("--pool", default="standard")
    p.add_argument("--from", dest="start", type=parse_period, default=None, metavar="P")
    p.add_argument("--to", dest="end", type=parse_period, default=None, metavar="P")
    p.add_argument("--top", type=int, default=10, help="biggest movers shown")
    p.add_argument("--output", default=None, metavar="DIR", help="write the Parquet tables here")
    add_store(p)
    add_orchestration(p, writes_store=False)
    p.set_defaults(func=cmd_whatif)

    p = sub.add_parser("rules", help="the dated FIDE rule versions")
    p.add_argument("--pool", default="standard")
    p.add_argument("--at", default=None, metavar="DATE", help="only the version in force then")
    p.add_argument("--format", dest="fmt", default="table", choices=["table", "json"])
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("fide-sample", help="write synthetic dated games 2009–2026 (CSV)")
    p.add_argument("directory")
    p.add_argument("--seed", type=int, default=7)
    p.set_defaults(func=cmd_sample)


def cmd_card(args) -> int:
    from arpad.pipeline.fide_card import check_card, format_card, latest_period, rating_card

    store = require_store(args)
    from arpad.pipeline import engine

    rules = engine.resolve_rules(FIDE, args.rules, args.pool)  # the arguments first
    if rules is not None and args.rules and not args.rules.endswith(".json"):
        # --rules 1975: the version the card uses instead (as rate's note says it)
        from arpad.pipeline.systems.base import before_oldest_note, parse_rules_date
        from arpad.pipeline.systems.fide import FideSystem

        try:
            day = parse_rules_date(args.rules)
        except ValueError:
            day = None  # a rules file: the user's own rules
        note = day and before_oldest_note(FideSystem(), args.pool, day, f"{day} is", "the card uses it")  # fmt: skip
        if note:
            print(f"arpad: note: {note}", file=sys.stderr)
    check_card(store, args.system, args.pool, args.player)  # FIDE only; names what the store has
    player = resolve_player(store, args.player, FIDE, args.pool)
    period = args.period if args.period is not None else latest_period(store, args.pool, player)
    card = rating_card(store, player, period, args.pool, rules, parse_sets(args.set))
    # The card recomputes from the games and players as they are now: after a correction
    # or a merge not rated yet, that change can be why the stored figures differ.
    differs = "" if card.matches else f"; {STALE_DIFFERS}"
    note_out_of_date(store, FIDE, args.pool, period, then=differs)
    if args.fmt == "json":
        print(json.dumps(card.to_dict(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(format_card(card))
    return 0 if card.matches else 2


def cmd_history(args) -> int:
    from arpad.pipeline.history import (
        collapse_inactive,
        plot_history,
        rating_history,
        stated_start_note,
        whole_numbers,
    )

    store = require_store(args)
    player = resolve_player(store, args.player, args.system, args.pool)
    frame = rating_history(store, player, args.system, args.pool)
    note_out_of_date(store, args.system, args.pool)  # the note of arpad list (docs/cli.md)
    # the table is read by a person: runs of inactive periods are one line each;
    # files are read by programs and keep every period (docs/cli.md "history")
    shown = (
        frame
        if args.fmt != "table" or args.every_period
        else collapse_inactive(frame, store=store, system=args.system, pool=args.pool)
    )
    shown = whole_numbers(shown, args.system)  # FIDE's 1720, not 1720.0
    output.render(shown, args.fmt, args.output, max_rows=shown.height)
    stated = stated_start_note(store, frame, player, args.system, args.pool)
    if stated:  # a rating_before that is not the row before's rating_after, explained
        from arpad.pipeline.errors import printable

        print(printable(f"arpad: note: {stated}"), file=sys.stderr)
    if args.plot:
        path = plot_history(frame, args.plot, f"{player} — {args.system}/{args.pool}")
        print(f"plot written to {path}", file=sys.stderr)
    return 0


def cmd_whatif(args) -> int:
    from arpad.pipeline.jobs import WhatIfRequest

    request = WhatIfRequest(
        args.store, args.rules_a, args.rules_b, args.pool, args.start, args.end, args.top
    )
    res = run_job(args, "whatif", request)
    first, last = res.periods[0], res.periods[-1]
    print(f"A = {res.rules_a}   B = {res.rules_b}   {args.pool}, periods {first}..{last}")
    # Each side at its own final list (a two-monthly side can close a month later).
    at = (
        str(res.final_a) if res.final_a == res.final_b else f"{res.final_a} (A) / {res.final_b} (B)"
    )
    print(f"\nBiggest movers at {at} (difference = B − A):")
    output.render(res.movers, "table")
    print("\nRating distribution per period (listed players):")
    cols = ["period", "n_a", "n_b", "mean_a", "mean_b", "mean_difference", "median_difference"]
    output.render(res.distribution.select(cols), "table", max_rows=24)
    print("\nPlayers reaching each threshold (any period) and above it at the end:")
    output.render(res.crossings, "table")
    if args.output:
        for path in res.write_parquet(args.output):
            print(f"wrote {path}")
    return 0


def cmd_rules(args) -> int:
    import polars as pl

    from arpad.pipeline.systems.fide import FideSystem, versions_for

    versions = versions_for(args.pool)
    if args.at:
        from arpad.pipeline.systems.base import before_oldest_note, parse_rules_date

        day = parse_rules_date(args.at)
        # a historian's date (1886, 1975): say that no older rules are carried
        note = before_oldest_note(
            FideSystem(), args.pool, day, f"{day} is", "replays of that time use it"
        )
        if note:
            print(f"note: {note}", file=sys.stderr)
        versions = (FideSystem().rules_at(args.at, pool=args.pool),)
    rows = [dataclasses.asdict(v) for v in versions]
    if args.fmt == "json":
        print(json.dumps(rows, indent=2))
        return 0
    frame = pl.DataFrame(rows).transpose(include_header=True, header_name="field")
    frame.columns = ["field", *[v.effective[:7] for v in versions]]
    output.render(frame.cast(pl.Utf8), "table", max_rows=frame.height)
    return 0


def cmd_sample(args) -> int:
    from arpad.pipeline.fide_sample import write_sample

    players, games = write_sample(args.directory, seed=args.seed)
    print(f"wrote {players} and {games}")
    import shlex

    games, players = shlex.quote(str(games)), shlex.quote(str(players))
    print(f"next: arpad ingest {games} --players {players} --store STORE")
    return 0
