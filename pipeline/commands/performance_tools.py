"""Subcommands: performance, convert, norm, category, class (docs/legacy-systems.md)."""

from __future__ import annotations

import sys

import numpy as np

from arpad.pipeline import output
from arpad.pipeline.commands.common import add_encoding, require_store
from arpad.pipeline.conversions import ECF_ERAS, SCALES, convert_values
from arpad.pipeline.tournament import (
    DEFAULT_CLASS_TABLE,
    NORMS,
    RATING_CLASSES,
    fide_category,
    norm_check,
    rating_class,
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
    add_encoding(p)
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
        type=_opponent_ratings,
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
    add_encoding(p)
    p.set_defaults(func=cmd_norm)

    p = sub.add_parser("category", help="FIDE category of each event in a games file or store")
    p.add_argument("file", nargs="?", default=None, metavar="FILE")
    p.add_argument(
        "--store", default=None, metavar="S", help="the events of a store's games instead of FILE"
    )
    p.add_argument("--event", default=None, metavar="E", help="only this event id")
    p.add_argument("--players", default=None, metavar="F")
    p.add_argument("--average", type=_rating, default=None, help="category of one average rating")
    p.add_argument("--women", action="store_true", help="women's bands (200 lower)")
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    add_encoding(p)
    p.set_defaults(func=cmd_category)

    p = sub.add_parser("class", help="rating class name (FIDE/Elo or USCF table)")
    p.add_argument("ratings", nargs="+", type=_rating, metavar="RATING")
    p.add_argument("--table", default=DEFAULT_CLASS_TABLE, choices=sorted(RATING_CLASSES))
    p.set_defaults(func=cmd_class)


def _rating(text: str) -> float:
    """A rating argument: a finite number in 0..4000 (``nan``, ``inf``, ``-5`` or
    ``99999`` is no rating: it printed category 0 or 3910, or a traceback for a class)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 <= value <= 4000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rating (a number in 0..4000)")
    return value


def _opponent_ratings(text: str) -> list[float]:
    """``--opponents``: each entry a rating as for ``_rating``, or ``-``/empty/``unrated``
    (NaN). A typo such as ``24l0`` or a literal ``...`` was a bare "could not convert
    string to float" naming no option; ``nan`` or ``99999`` gave Ra 13094."""
    import argparse

    ratings = []
    for i, entry in enumerate(text.split(","), 1):
        entry = entry.strip()
        if entry in ("-", "", "unrated"):
            ratings.append(np.nan)
            continue
        try:
            ratings.append(_rating(entry))
        except argparse.ArgumentTypeError as err:
            raise argparse.ArgumentTypeError(
                f"{err} (opponent {i}: give every opponent's rating, '-' = unrated)"
            ) from None
    return ratings


def file_encoding(args, without: str | None = None) -> str | None:
    """``--encoding``, checked as ``arpad ingest`` checks it (``readers.encoding_name``:
    an unknown name is one line, before anything is read); given with ``without`` (the
    way of the command that reads no file: ``--store``), a one-line refusal."""
    if args.encoding is None:
        return None
    if without:
        raise ValueError(f"--encoding is for the files the command reads, not {without}")
    from arpad.pipeline.readers import encoding_name

    return encoding_name(args.encoding)


def _load(file: str, players: str | None, mapping: str | None = None, encoding=None):
    """The games and roster of ``arpad performance``, the file's notes (as ingest gives
    them: a row repeated, Latin-1, …) and unreadable rows on stderr."""
    from arpad.pipeline.tournament_files import load

    notes: list[str] = []
    games, roster, _ = load(file, players, mapping, notes, encoding)
    for note in notes:
        print(note, file=sys.stderr)
    return games, roster


def cmd_performance(args) -> int:
    games, roster = _load(args.file, args.players, args.mapping, file_encoding(args))
    from arpad.pipeline.performance import performance_table

    table = performance_table(games, roster, by=args.by, curve=args.curve)
    flagged = int(np.sum(table.column("virtual_draw").to_numpy(zero_copy_only=False)))
    output.render(table, args.fmt, args.output)
    if not table.num_rows and games.num_rows:
        # an empty table said nothing (a historical PGN file has no Elo tags)
        print(
            f"{args.file}: no performance: none of its {games.num_rows} games has an opponent "
            "with a rating (WhiteElo/BlackElo, or --players F's rating of the game's pool)",
            file=sys.stderr,
        )
    if flagged and args.fmt == "table" and not args.output:
        print(
            f"{flagged} at 0 %/100 %: true performance includes one virtual draw "
            "against the player's own rating (virtual_draw = true)"
        )
    return 0


def cmd_convert(args) -> int:
    _check_convert_options(args)
    result = convert_values(args.values, args.source, args.target, args.date, args.era)
    for value, converted in zip(args.values, np.atleast_1d(result)):
        print(f"{value:g} {args.source} = {converted:.2f} {args.target}")
    return 0


def _check_convert_options(args) -> None:
    """``--date`` and ``--era`` both pick the ECF era: given both, they must agree (the
    era used to win silently); given for scales without eras, a note says so."""
    from arpad.pipeline.conversions import era_for, uses_era

    if args.date is not None:
        try:
            on_date = era_for(args.date)
        except ValueError:
            raise ValueError(f"--date {args.date}: not a date (YYYY-MM-DD)") from None
        if args.era is not None and on_date != args.era:
            raise ValueError(
                f"--era {args.era} and --date {args.date} disagree: the ECF era on "
                f"{args.date} is {on_date}; give one of them"
            )
    if (args.date is not None or args.era is not None) and not uses_era(args.source, args.target):
        given = "--date" if args.era is None else "--era"
        print(
            f"arpad: note: {given} picks the ECF grade era; converting {args.source} to "
            f"{args.target} does not use it",
            file=sys.stderr,
        )


def _split(text: str | None) -> list | None:
    if text is None:
        return None
    return [None if t.strip() in ("-", "", "none") else t.strip() for t in text.split(",")]


def cmd_norm(args) -> int:
    from arpad.pipeline.tournament_files import file_norm, load, norm_lines

    encoding = file_encoding(args, None if args.file else "--opponents")
    if args.file:
        if not args.player:
            raise ValueError("norm FILE needs --player ID")
        notes: list[str] = []
        try:  # the file's notes also before an error (how its pool was read, …)
            games, roster, raw = load(args.file, args.players, notes=notes, encoding=encoding)
            check = file_norm(
                games, roster, raw, args.player, args.title, str(args.file), args.event,
                args.federation, notes,
            )  # fmt: skip
        finally:  # a file's notes after its name, as ingest's; others as arpad's notes
            named = tuple(f"{f}: " for f in (args.file, args.players) if f)
            for note in notes:
                print(note if note.startswith(named) else f"arpad: note: {note}",
                      file=sys.stderr)  # fmt: skip
        who = check.player
    else:
        if args.opponents is None or args.score is None:
            raise ValueError("norm needs FILE --player ID, or --opponents R1,R2,… --score S")
        check = norm_check(
            args.opponents,
            args.score,
            args.title,
            opponent_titles=_split(args.titles),
            opponent_federations=_split(args.federations),
            federation=args.federation,
        )
        who = "player"
    print("\n".join(norm_lines(check, who)))
    return 0


def cmd_category(args) -> int:
    encoding = file_encoding(args, "--average" if args.average is not None else None)
    if args.average is not None:
        print(fide_category(args.average, women=args.women))
        return 0
    if args.store:
        if args.file:
            raise ValueError("category takes FILE or --store S, not both")
        file_encoding(args, "--store (its games are stored as text already)")
        store = require_store(args)
        output.render(store_event_categories(store, args.event, women=args.women), args.fmt)
        return 0
    if not args.file:
        raise ValueError("category needs FILE, --store S or --average R")
    from arpad.pipeline.tournament_files import file_categories, load

    notes: list[str] = []
    games, roster, _ = load(args.file, args.players, notes=notes, encoding=encoding)
    for note in notes:
        print(note, file=sys.stderr)
    output.render(file_categories(games, roster, args.event, women=args.women), args.fmt)
    return 0


def cmd_class(args) -> int:
    for r in args.ratings:
        print(f"{r:g}: {rating_class(r, args.table)}")
    return 0
