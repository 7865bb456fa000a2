"""Subcommands: performance, convert, norm, category, class (docs/legacy-systems.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import output
from arpad.pipeline.commands.common import require_store
from arpad.pipeline.conversions import ECF_ERAS, SCALES, convert
from arpad.pipeline.tournament import (
    CATEGORY_SCHEMA,
    DEFAULT_CLASS_TABLE,
    NORMS,
    RATING_CLASSES,
    category_rows,
    fide_category,
    norm_check,
    opponent_ratings,
    player_facts,
    rating_class,
    roster_ratings,
    store_event_categories,
)


def register(sub) -> None:
    p = sub.add_parser("performance", help="performance ratings of a set of games")
    p.add_argument("file", metavar="FILE", help="games file (CSV, Parquet, PGN, … as for ingest)")
    p.add_argument("--players", default=None, metavar="F", help="players file with ratings")
    p.add_argument("--by", default="player", choices=("player", "event"))
    p.add_argument("--curve", default="normal", choices=("normal", "logistic"))
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--mapping", default=None, help="named column mapping of the games file")
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_performance)

    p = sub.add_parser("convert", help="convert ratings between ECF, FIDE/Elo and Ingo")
    p.add_argument("values", nargs="+", type=float, metavar="VALUE")
    p.add_argument("--from", dest="source", required=True, choices=SCALES)
    p.add_argument("--to", dest="target", required=True, choices=SCALES)
    p.add_argument("--date", default=None, help="YYYY-MM-DD: picks the ECF era (default: today)")
    p.add_argument("--era", default=None, choices=[e.name for e in ECF_ERAS])
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("norm", help="title-norm check of one player's event")
    p.add_argument("file", nargs="?", default=None, metavar="FILE", help="games file")
    p.add_argument("--title", required=True, type=str.upper, choices=sorted(NORMS))
    p.add_argument("--player", default=None, help="player id in FILE")
    p.add_argument("--event", default=None, help="event id in FILE (default: all the games)")
    p.add_argument("--players", default=None, metavar="F", help="players file with ratings")
    p.add_argument(
        "--opponents",
        default=None,
        help="without FILE: comma-separated opponent ratings ('-' = unrated)",
    )
    p.add_argument("--score", type=float, default=None, help="without FILE: points scored")
    p.add_argument(
        "--titles",
        default=None,
        help="without FILE: comma-separated opponent titles in the order of --opponents "
        "('-' = none)",
    )
    p.add_argument(
        "--federations",
        default=None,
        help="without FILE: comma-separated opponent federations in the order of --opponents",
    )
    p.add_argument(
        "--federation",
        default=None,
        help="the player's federation (default: the players file's)",
    )
    p.set_defaults(func=cmd_norm)

    p = sub.add_parser("category", help="FIDE category of each event in a games file or store")
    p.add_argument("file", nargs="?", default=None, metavar="FILE")
    p.add_argument(
        "--store", default=None, metavar="S", help="the events of a store's games instead of FILE"
    )
    p.add_argument("--event", default=None, metavar="E", help="only this event id")
    p.add_argument("--players", default=None, metavar="F")
    p.add_argument("--average", type=float, default=None, help="category of one average rating")
    p.add_argument("--women", action="store_true", help="women's bands (200 lower)")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.set_defaults(func=cmd_category)

    p = sub.add_parser("class", help="rating class name (FIDE/Elo or USCF table)")
    p.add_argument("ratings", nargs="+", type=float, metavar="RATING")
    p.add_argument("--table", default=DEFAULT_CLASS_TABLE, choices=sorted(RATING_CLASSES))
    p.set_defaults(func=cmd_class)


def _load(file: str, players: str | None, mapping: str | None = None):
    from arpad.pipeline.performance import read_games_file, read_players_file

    games, quarantine, _ = read_games_file(Path(file), mapping=mapping)
    if quarantine.num_rows:
        print(
            f"{file}: {quarantine.num_rows} rows could not be read and are left out "
            f"(first: line {quarantine.column('line')[0]}: {quarantine.column('detail')[0]})",
            file=sys.stderr,
        )
    roster = read_players_file(Path(players)) if players else None
    return games, roster


def cmd_performance(args) -> int:
    games, roster = _load(args.file, args.players, args.mapping)
    from arpad.pipeline.performance import performance_table

    table = performance_table(games, roster, by=args.by, curve=args.curve)
    flagged = int(np.sum(table.column("virtual_draw").to_numpy(zero_copy_only=False)))
    output.render(table, args.fmt, args.output)
    if not table.num_rows and games.num_rows:
        # an empty table said nothing (a historical PGN file has no Elo tags)
        print(
            f"{args.file}: no performance: none of its {games.num_rows} games has an opponent "
            "with a rating (WhiteElo/BlackElo or --players F)",
            file=sys.stderr,
        )
    if flagged and args.fmt == "table" and not args.output:
        print(
            f"{flagged} at 0 %/100 %: true performance includes one virtual draw "
            "against the player's own rating (virtual_draw = true)"
        )
    return 0


def cmd_convert(args) -> int:
    result = convert(np.array(args.values), args.source, args.target, args.date, args.era)
    for value, converted in zip(args.values, np.atleast_1d(result)):
        print(f"{value:g} {args.source} = {converted:.2f} {args.target}")
    return 0


def _split(text: str | None) -> list | None:
    if text is None:
        return None
    return [None if t.strip() in ("-", "", "none") else t.strip() for t in text.split(",")]


def _player_by_name(args, raw) -> str:
    """``--player`` that is no id with games in the file: a name matched among the
    file's players as ``arpad history`` matches names (pipeline/lookup.py), with a note."""
    from arpad.pipeline.lookup import NoMatch, match_name

    missing = ValueError(f"no rated games of player {args.player!r} in {args.file}")
    players = getattr(raw, "players", None)
    if players is None or "name" not in players.columns:
        raise missing
    names = dict(zip(players["player_id"].to_list(), players["name"].to_list(), strict=True))
    try:
        found = match_name(args.player, names, str(args.file))
    except NoMatch:
        raise missing from None
    print(f"arpad: note: {args.player} is the name of {found} ({names[found]})", file=sys.stderr)
    return found


def cmd_norm(args) -> int:
    if args.file:
        if not args.player:
            raise ValueError("norm FILE needs --player ID")
        from arpad.pipeline.performance import read_games_file, read_players_file

        games, quarantine, raw = read_games_file(Path(args.file))
        if quarantine.num_rows:
            print(f"{args.file}: {quarantine.num_rows} rows left out", file=sys.stderr)
        roster = read_players_file(Path(args.players)) if args.players else None
        if args.event is not None:
            games = games.filter(pc.equal(games.column("event_id"), args.event))
        ids: list[str] = []
        player = args.player
        opponents, score = opponent_ratings(games, roster, player, ids)
        if not opponents:
            player = _player_by_name(args, raw)
            opponents, score = opponent_ratings(games, roster, player, ids)
        who = player
        titles_by_id, feds_by_id = player_facts(roster, getattr(raw, "players", None))
        # No title (federation) anywhere in the data: the condition is not checked
        # rather than failed; otherwise a missing entry is an untitled opponent.
        titles = [titles_by_id.get(o) for o in ids] if titles_by_id else None
        federations = [feds_by_id.get(o) for o in ids] if feds_by_id else None
        federation = args.federation or feds_by_id.get(player)
    else:
        if args.opponents is None or args.score is None:
            raise ValueError("norm needs FILE --player ID, or --opponents R1,R2,… --score S")
        opponents = [
            np.nan if t.strip() in ("-", "", "unrated") else float(t)
            for t in args.opponents.split(",")
        ]
        score, who = args.score, "player"
        titles, federations = _split(args.titles), _split(args.federations)
        federation = args.federation
    check = norm_check(
        opponents,
        score,
        args.title,
        opponent_titles=titles,
        opponent_federations=federations,
        federation=federation,
    )
    raised = (
        ", ".join(
            f"#{i + 1} ({'unrated' if np.isnan(opponents[i]) else f'{opponents[i]:g}'}"
            f" → {check.opponents_used[i]:g})"
            for i in check.raised
        )
        or "none"
    )
    print(
        f"{who}: {check.title} norm check, {check.games} games, {check.score:g} points "
        f"({check.percent} %), opponents raised to the floor: {raised}"
    )
    mark = {True: "ok  ", False: "FAIL", None: "n/a "}
    for name, ok, detail in check.conditions:
        print(f"  {mark[ok]} {name:<14} {detail}")
    if check.achieved:
        print(f"  {check.title} norm: achieved, counts as {check.counts_as} games")
    elif check.failed:
        print(f"  {check.title} norm: not achieved (fails: {', '.join(check.failed)})")
    else:
        print(
            f"  {check.title} norm: undecided, the rating conditions are met "
            f"(not checked: {', '.join(check.unchecked)})"
        )
    return 0


def cmd_category(args) -> int:
    if args.average is not None:
        print(fide_category(args.average, women=args.women))
        return 0
    if args.store:
        if args.file:
            raise ValueError("category takes FILE or --store S, not both")
        store = require_store(args)
        output.render(store_event_categories(store, args.event, women=args.women), args.fmt)
        return 0
    if not args.file:
        raise ValueError("category needs FILE, --store S or --average R")
    games, roster = _load(args.file, args.players)
    if args.event is not None:
        games = games.filter(pc.equal(games.column("event_id"), args.event))
    listed = roster_ratings(roster)
    events: dict[str, dict[str, float | None]] = {}
    for row in games.to_pylist():
        event = row.get("event_id") or ""
        players = events.setdefault(event, {})
        for side in ("white", "black"):
            # the games' rating first (as --store and `arpad performance`), else the
            # players file's; a player's first stated rating in the event is kept
            pid = row[f"{side}_id"]
            rating = row.get(f"{side}_rating")
            if players.get(pid) is None:
                players[pid] = rating
    for players in events.values():
        for pid, rating in players.items():
            if rating is None:
                players[pid] = listed.get(pid)
    summary = []
    for event, players in sorted(events.items()):
        ratings = [r for r in players.values() if r is not None]
        average = float(np.mean(ratings)) if ratings else None
        summary.append((event or None, len(players), len(ratings), average))
    rows = category_rows(summary, women=args.women)
    output.render(pa.Table.from_pylist(rows, schema=CATEGORY_SCHEMA), args.fmt)
    return 0


def cmd_class(args) -> int:
    for r in args.ratings:
        print(f"{r:g}: {rating_class(r, args.table)}")
    return 0
