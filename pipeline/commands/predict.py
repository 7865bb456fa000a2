"""``arpad predict``: expected scores (and, with a draw model, win/draw/loss probabilities)
of pairings from a store's ratings (pipeline/predict.py; docs/cli.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from arpad.pipeline import output
from arpad.pipeline.commands.common import add_encoding, add_store, parse_sets, require_store
from arpad.pipeline.periods import parse_period
from arpad.pipeline.store import outside
from arpad.pipeline.systems import DEFAULT_SYSTEM


def register(sub) -> None:
    p = sub.add_parser("predict", help="expected scores of pairings from a store's ratings")
    p.add_argument(
        "pairings", metavar="PAIRINGS.csv", help="white_id, black_id (other columns kept)"
    )
    add_store(p)
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument("--pool", default="standard")
    p.add_argument(
        "--period",
        type=parse_period,
        default=None,
        help="ratings after this period (each player's latest at or before it; default: the latest)",
    )
    p.add_argument(
        "--draw-rate",
        type=float,
        default=None,
        metavar="P",
        help="add p_white, p_draw, p_black from Davidson's draw model with draw probability P "
        'between equal players (docs/backtest.md "Draws")',
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rule field on top of the rules the ratings were made with (as rate --set)",
    )
    p.add_argument(
        "--mapping",
        default=None,
        metavar="NAME",
        help="named column mapping of the pairings file, as for ingest (kaggle2010, "
        "deloitte2011: the contests' cross_validation_dataset.csv, test.csv)",
    )
    p.add_argument("--format", dest="fmt", default="table", choices=("table", "csv", "json"))
    p.add_argument("--output", default=None, metavar="FILE")
    add_encoding(p)
    p.set_defaults(func=cmd_predict)


def cmd_predict(args) -> int:
    from arpad.pipeline.draws import DrawModel
    from arpad.pipeline.predict import (
        check_games_mapping,
        check_pairings,
        mapped_pairings,
        merged_pairing_ids,
        predict_pairings,
        read_pairings,
        store_rules,
        store_state,
        unknown_count,
    )

    sets = parse_sets(args.set)
    check_games_mapping(args.mapping, cli=True)  # an unknown name before any file is read
    path = Path(args.pairings)
    # read as arpad ingest reads a CSV file; every error names the file and its line
    pairs, lines, notes = read_pairings(path, args.encoding)
    for note in notes:
        print(f"note: {path}: {note}", file=sys.stderr)
    # --mapping's columns, else White/Black, White ID: as arpad.predict and rate read them
    # (a contest file without --mapping: the error names the mapping that reads it)
    pairs = mapped_pairings(pairs, args.mapping, path, cli=True)
    pairs = check_pairings(pairs, path, lines)
    draws = None if args.draw_rate is None else DrawModel.from_draw_rate(args.draw_rate)
    store = require_store(args)
    if args.output:
        outside(store.root, args.output)
    state, period = store_state(store, args.system, args.pool, args.period)
    # the rules the ratings were made with (the run's own, --set included), --set on top
    rules, note = store_rules(store, args.system, args.pool, period, sets)
    if note:
        print(f"note: {note}: give their rule fields with --set KEY=VALUE", file=sys.stderr)
    state, merged = merged_pairing_ids(store, state, pairs)  # docs/identity.md
    if merged:
        print(f"note: {merged}", file=sys.stderr)
    frame = predict_pairings(state, pairs, args.system, rules, draws)
    output.render(frame, args.fmt, args.output, max_rows=100)
    unknown = unknown_count(frame)
    if unknown:
        print(
            f"note: {unknown} of {frame.height} pairings have a player without a "
            f"{args.system}/{args.pool} rating at period {period} (empty values)",
            file=sys.stderr,
        )
    return 0
