"""Core subcommands: ingest, rate, reconstruct, list, sql."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from arpad.pipeline import output
from arpad.pipeline.commands.common import (
    add_encoding,
    add_orchestration,
    add_store,
    is_terminal,
    parse_sets,
    require_store,
    run_job,
    split_list,
)
from arpad.pipeline.errors import printable
from arpad.pipeline.periods import parse_period, period_label
from arpad.pipeline.store import outside
from arpad.pipeline.systems import DEFAULT_SYSTEM


def register(sub) -> None:
    p = sub.add_parser("ingest", help="ingest games/players files into the store")
    p.add_argument("files", nargs="*", metavar="FILE")  # none: a players file alone
    add_store(p)
    p.add_argument(
        "--format", dest="fmt", default=None, help="csv|parquet|pgn|trf (default: from the name)"
    )
    p.add_argument(
        "--players", action="append", default=[], metavar="F", help="players file (repeatable)"
    )
    p.add_argument(
        "--mapping", default=None, help="named column mapping (kaggle2010, deloitte2011, …)"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="games whose game_id is already stored (from another file) are replaced",
    )
    p.add_argument(
        "--source",
        default=None,
        metavar="NAME",
        help="the source's name: a file ingested again under the same name is a "
        "correction of it (default: the path relative to the working directory)",
    )
    p.add_argument(
        "--keep-probable-duplicates",
        action="store_true",
        help="PGN/TRF: store games whose date, White, Black and result equal a game of "
        "another file (default: quarantined as probable_duplicate)",
    )
    p.add_argument(
        "--pool",
        default=None,
        choices=("standard", "rapid", "blitz"),
        help="every game of the games files in this pool, whatever the file says (a TRF's "
        "or PGN's pool is otherwise read from its header or tags; docs/ingest.md)",
    )
    p.add_argument(
        "--ignore-stated-ratings",
        action="store_true",
        help="store the ratings games files state (TRF 001, PGN WhiteElo/BlackElo, "
        "white_rating/black_rating) as null: your own list is the authority "
        "(docs/observations.md)",
    )
    p.add_argument(
        "--rate-moveless",
        action="store_true",
        help="PGN: store games without moves as rated (a historical collection's results "
        "whose moves were not kept; default: stored unrated, as a forfeit may be; "
        "docs/pgn-trf.md)",
    )
    add_encoding(p)
    add_orchestration(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("rate", help="rate one pool with one system over its periods")
    add_store(p)
    p.add_argument("--system", required=True, help="the rating system (docs/cli.md lists them)")
    p.add_argument("--pool", default="standard")
    p.add_argument("--from", dest="start", type=parse_period, default=None, metavar="P")
    p.add_argument("--to", dest="end", type=parse_period, default=None, metavar="P")
    p.add_argument("--rules", default=None, metavar="DATE|FILE", help="force one rule version")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    p.add_argument(
        "--full",
        action="store_true",
        help="recompute from the first period even when only later periods are stale",
    )
    p.add_argument(
        "--shards",
        type=int,
        default=None,
        metavar="N",
        help="compute each period in N player shards, on Dask with --cluster/--workers "
        "(same results; shardable systems only, docs/operations.md)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=int,
        default=None,
        metavar="N",
        help="write the state checkpoint every N periods (and at the run's first and last; "
        "default 12; docs/store.md)",
    )
    add_orchestration(p)
    p.set_defaults(func=cmd_rate)

    p = sub.add_parser("reconstruct", help="rate every system and pool from the first period")
    add_store(p)
    p.add_argument("--systems", default=None, help="comma-separated systems (default: all)")
    p.add_argument("--pools", default=None, help="comma-separated pools (default: all)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    add_orchestration(p)
    p.set_defaults(func=cmd_reconstruct)

    p = sub.add_parser("list", help="rating list of one period")
    add_store(p)
    p.add_argument("--system", default=DEFAULT_SYSTEM)
    p.add_argument(
        "--pool", default="standard", help="'all': FIDE's combined standard/rapid/blitz file"
    )
    when = p.add_mutually_exclusive_group()
    when.add_argument("--period", type=parse_period, default=None, help="default: the latest")
    when.add_argument(
        "--date",
        default=None,
        metavar="YYYY[-MM[-DD]]",
        help="the list as it stood on that date: the latest rated period at or before it",
    )
    when.add_argument(
        "--in-force",
        default=None,
        metavar="YYYY[-MM[-DD]]",
        help="the list in force on that day (FIDE's list date: 2026-12 is the list of "
        "1 December 2026, November's games)",
    )
    p.add_argument("--top", type=int, default=None, help="the first N ranked (active) players")
    p.add_argument(
        "--min-games",
        type=int,
        default=None,
        metavar="N",
        help="only players with at least N rated games up to the list's period, ranked again",
    )
    p.add_argument(
        "--active",
        type=int,
        default=None,
        metavar="MONTHS",
        help="only players with a rated game in the last MONTHS months, ranked again "
        "(docs/observations.md)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        default="table",
        choices=output.LIST_FORMATS,
        help="fide-txt/fide-xml: FIDE's list files (docs/lists.md); txt = fide-txt",
    )
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("sql", help="read-only SQL over the catalog views")
    p.add_argument("query")
    add_store(p)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="VALUE",
        help="positional parameter for ? / $1 placeholders (repeatable)",
    )
    p.add_argument(
        "--allow-file",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="make a local CSV/Parquet/JSON file a table NAME (default: the file's stem) "
        "the query can join (repeatable; no other file can be read)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the query after SECONDS (exit 2; default: no limit)",
    )
    p.add_argument("--format", dest="fmt", default="table", choices=output.FORMATS)
    p.add_argument("--output", default=None, metavar="FILE")
    p.set_defaults(func=cmd_sql)


# From this many files on, a note said identically for several files is said once, with
# the number of files (200 files repeated "decoded as Latin-1" 200 times; docs/cli.md).
FOLD_NOTES_FROM = 4


def print_ingest_report(report) -> int:
    """One line per file, the first problems with file:line, a pointer to the quarantine.
    With several files, a total line after the files' lines; with ``FOLD_NOTES_FROM``
    files or more, a note given identically for several files once, with their number.
    Every line is ``printable``: a file's name, a note or a quarantined row's detail may
    hold control characters that would clear or recolour the terminal (docs/cli.md)."""

    def say(text: str, err: bool = False) -> None:
        print(printable(text), file=sys.stderr if err else sys.stdout)

    shared = shared_notes(report.files) if len(report.files) >= FOLD_NOTES_FROM else {}
    for f in report.files:
        if f.skipped:
            say(f"{f.path}: skipped, {f.skipped}")
            continue
        what = "players" if f.kind == "players" else "games"
        extra = f"; replaced the earlier version of {f.source}" if f.replaced else ""
        if f.replaced and f.correction is not None:
            removed, added, changed = f.correction
            games = "game" if removed == 1 else "games"  # "1 games removed" read wrong
            extra += f" ({removed} {games} removed, {added} added, {changed} changed)"
        say(
            f"{f.path}: {f.rows} rows read, {f.accepted} {what} stored, "
            f"{f.quarantined} quarantined{extra}"
        )
        for note in f.notes:
            if note not in shared:
                say(f"  note: {note}")
        if f.quarantined or f.players_quarantined:
            reasons = ", ".join(f"{k} {v}" for k, v in f.reasons.items())
            say(f"  quarantined by reason: {reasons}", err=True)
            for example in f.examples:
                say(f"  {example}", err=True)
            if more := quarantined_more(f, report.store):
                say(f"  {more}", err=True)
    for paths, notes in shared_by_files(shared).items():
        say(f"notes for {files_noted(paths, len(report.files))}:")
        for note in notes:
            say(f"  note: {note}")
    if len(report.files) > 1:
        say(ingest_total(report))
    if report.quarantined:
        say(
            f"{report.quarantined} rows quarantined: see the 'quarantine' view "
            f'(arpad sql "SELECT * FROM quarantine" --store {shell_word(report.store)})',
            err=True,
        )
        return 2
    return 0


def shell_word(path) -> str:
    """A path as one word of a command to paste into a shell: quoted only when it needs
    it (``/tmp/x/sp ace/my store`` → ``'/tmp/x/sp ace/my store'``), in bash's ``$'…'``
    form when it holds a control character (``$'/tmp/new\\nline'``; errors.shell_word)."""
    from arpad.pipeline.errors import shell_word as word

    return word(path)


def quarantined_more(f, store: str | None = None) -> str:
    """``and N more (all in the quarantine view: arpad sql "…")`` under a file's first
    quarantined rows when it has more than those shown, as the monthly report says it
    (docs/operations.md step 5); empty otherwise. Five of eight rows were shown with no
    word of the other three (the new user's report, round 11)."""
    more = f.quarantined + f.players_quarantined - len(f.examples)
    if more <= 0 or not f.examples:
        return ""
    query = "SELECT * FROM quarantine"
    if not any(c in f.source for c in '"$`\\'):  # (quoted safely in the shell)
        label = f.source.replace("'", "''")
        query += f" WHERE source = '{label}'"
    where = f" --store {shell_word(store)}" if store else ""
    return f'and {more:,} more (all in the quarantine view: arpad sql "{query}"{where})'


def shared_notes(files) -> dict[str, list[str]]:
    """The notes given identically for two files or more, each with those files' names
    (in the order the files and notes came)."""
    where: dict[str, list[str]] = {}
    for f in files:
        for note in dict.fromkeys(f.notes):
            where.setdefault(note, []).append(f.path)
    return {note: paths for note, paths in where.items() if len(paths) > 1}


def shared_by_files(shared: dict[str, list[str]]) -> dict[tuple[str, ...], list[str]]:
    """``shared_notes`` grouped by the files they are given for: one heading per group."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for note, paths in shared.items():
        groups.setdefault(tuple(paths), []).append(note)
    return groups


def files_noted(paths: tuple[str, ...], total: int) -> str:
    """``all 200 files``, or ``150 of 200 files (a.csv, b.csv, c.csv, …)``."""
    if len(paths) == total:
        return f"all {total} files"
    names = ", ".join(paths[:3]) + (", …" if len(paths) > 3 else "")
    return f"{len(paths)} of {total} files ({names})"


def ingest_total(report) -> str:
    """The sum of the files' lines of an ingest of several files, worded as they are:
    ``200 files: 1000 rows read, 1000 games stored, 0 quarantined`` (players files'
    rows ``N players stored``; files skipped as already ingested counted, and alone
    when every file was)."""
    ingested = [f for f in report.files if not f.skipped]
    if not ingested:  # (a re-run: nothing read, nothing to count)
        return f"{len(report.files)} files: {len(report.files)} skipped"
    games = [f for f in ingested if f.kind != "players"]
    players = [f for f in ingested if f.kind == "players"]
    parts = [f"{sum(f.rows for f in ingested)} rows read"]
    if games:
        parts.append(f"{sum(f.accepted for f in games)} games stored")
    if players:
        parts.append(f"{sum(f.accepted for f in players)} players stored")
    parts.append(f"{sum(f.quarantined for f in ingested)} quarantined")
    if skipped := len(report.files) - len(ingested):
        parts.append(f"{skipped} skipped")
    return f"{len(report.files)} files: {', '.join(parts)}"


def cmd_ingest(args) -> int:
    from arpad.pipeline.jobs import IngestRequest

    if not args.files and not args.players:
        raise ValueError("give the files to ingest: FILE... and/or --players F")
    check_mapping(args.mapping, args.files, args.fmt)
    request = IngestRequest(
        args.store,
        args.files,
        args.players,
        args.fmt,
        args.mapping,
        args.replace,
        args.wait,
        args.source,
        args.keep_probable_duplicates,
        args.pool,
        args.ignore_stated_ratings,
        args.rate_moveless,
        encoding=args.encoding,
    )
    return print_ingest_report(run_job(args, "ingest", request))


def check_mapping(mapping: str | None, files: list[str], fmt: str | None) -> None:
    """``--mapping``: an unknown name is bad input whatever the files (only a CSV's reader
    used to look at it: a PGN or TRF ingest said nothing); a known one given for a
    PGN/TRF file, which mappings do not apply to, is a note naming the file."""
    if mapping is None:
        return
    from arpad.pipeline import pgn, readers, trf  # noqa: F401 (registers PGN/TRF suffixes)
    from arpad.pipeline.errors import InputError

    if mapping not in readers.MAPPINGS:
        known = ", ".join(readers.MAPPINGS)
        raise ValueError(f"--mapping {mapping}: unknown mapping (known: {known})")
    for name in files:
        try:
            what = fmt or readers.detect_format(Path(name))
        except InputError:
            continue  # the ingest says what is wrong with the file
        if what not in ("csv", "parquet"):
            print(
                printable(
                    f"arpad: note: {name}: --mapping {mapping} applies to CSV and Parquet "
                    f"files; this {what.upper()} file is read without it"
                ),
                file=sys.stderr,
            )


class Progress:
    """Periods done and games/s on a terminal; silent otherwise (CI logs)."""

    def __init__(self, label: str, enabled: bool | None = None):
        self.label = label
        self.enabled = is_terminal() if enabled is None else enabled
        self.start = time.perf_counter()
        self.games = 0

    def __call__(self, done: int, total: int, games: int) -> None:
        self.games += games
        if not self.enabled:
            return
        rate = self.games / max(time.perf_counter() - self.start, 1e-9)
        end = "\n" if done == total else ""
        print(
            f"\r{self.label}: period {done}/{total}, {rate:,.0f} games/s",
            end=end,
            file=sys.stderr,
            flush=True,
        )


def print_rate_summary(s) -> None:
    from arpad.pipeline.jobs import summary_line

    if s.incremental_from is not None:
        print(f"{s.system}/{s.pool}: recomputing from stale period {s.incremental_from}")
    print(summary_line(s))
    if s.self_play:  # ids that met, merged with --force (docs/identity.md)
        print(
            f"arpad: note: {s.system}/{s.pool}: {s.self_play} game(s) of a player against "
            "himself (ids merged with arpad players merge --force) not rated",
            file=sys.stderr,
        )
    for note in s.notes:  # the run's notes (ECF's year-only games)
        print(f"arpad: note: {s.system}/{s.pool}: {note}", file=sys.stderr)


def players_notes(args, summaries) -> None:
    """The notes of each system that rated periods on the store's players table, on
    stderr, as ``arpad.rate`` warns (``RatingSystem.players_notes``: ECF's players with a
    rating and no grade start ungraded, docs/legacy-systems.md)."""
    from functools import cache

    from arpad.pipeline.systems import get_system

    players = cache(lambda: require_store(args).read_players())  # read once, if asked
    for system in sorted({s.system for s in summaries if s.periods}):
        for note in get_system(system).players_notes(players):
            print(f"arpad: note: {note}", file=sys.stderr)


def rules_date_note(system_name: str, spec: str | None, pool: str) -> None:
    """``--rules DATE`` before a system's oldest dated version (a historian's 1886):
    say on stderr which version the run uses instead (docs/pgn-trf.md)."""
    if spec is None or spec.endswith(".json") or os.path.exists(spec):
        return
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import before_oldest_note, parse_rules_date

    try:
        system = get_system(system_name)
        day = parse_rules_date(spec)
    except (KeyError, ValueError):
        return  # the run refuses it with its own message
    # the note of a run whose dated rules reach back before them (jobs.early_rules_note)
    note = before_oldest_note(system, pool, str(day), f"{day} is")
    if note:
        print(f"arpad: note: {note}", file=sys.stderr)


def cmd_rate(args) -> int:
    import warnings

    from arpad.pipeline.jobs import (
        EarlyRulesWarning,
        RateRequest,
        StaleStartWarning,
        StatedOverrideWarning,
    )

    rules_date_note(args.system, args.rules, args.pool)

    request = RateRequest(
        args.store,
        args.system,
        args.pool,
        args.start,
        args.end,
        args.rules,
        parse_sets(args.set),
        args.full,
        args.shards,
        args.wait,
        checkpoint_every=args.checkpoint_every,
    )
    with warnings.catch_warnings(record=True) as caught:
        notes = (StaleStartWarning, StatedOverrideWarning, EarlyRulesWarning)
        for category in notes:  # said even where ignored
            warnings.simplefilter("always", category)
        summary = run_job(args, "rate", request, progress=Progress(request.label))
    print_rate_summary(summary)
    players_notes(args, [summary])
    # the job's notes: an earlier stale period (jobs.stale_start_note); stated ratings
    # that stop a correction (stated_ratings.overridden_note); periods before the oldest
    # dated rules (jobs.early_rules_note)
    job_notes(caught, notes)
    return 0


def job_notes(caught, notes) -> None:
    """The job's warnings of the ``notes`` categories as ``arpad: note:`` lines on stderr,
    any other warning as Python shows it."""
    import warnings

    for w in caught:
        if issubclass(w.category, notes):
            print(f"arpad: note: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def cmd_reconstruct(args) -> int:
    import warnings

    from arpad.pipeline.jobs import ReconstructRequest

    request = ReconstructRequest(
        args.store,
        split_list(args.systems),
        split_list(args.pools),
        parse_sets(args.set),
        args.wait,
    )
    from arpad.pipeline.jobs import EarlyRulesWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EarlyRulesWarning)  # said even where ignored
        summaries = run_job(args, "reconstruct", request, progress=Progress("reconstruct"))
    for summary in summaries:
        print_rate_summary(summary)
    players_notes(args, summaries)
    job_notes(caught, (EarlyRulesWarning,))  # periods before the oldest dated rules
    return 0


def cmd_list(args) -> int:
    if args.top is not None and args.top < 1:
        raise ValueError(f"--top takes a positive number of players, got {args.top}")
    if args.min_games is not None and args.min_games < 1:
        raise ValueError(f"--min-games takes a positive number of games, got {args.min_games}")
    store = require_store(args)
    from arpad.pipeline.lists import list_frame, top_ranked, write_list

    if args.pool == "all":  # FIDE's combined file: every pool on one line (docs/lists.md)
        from arpad.pipeline.combined import combined_frame, write_combined

        period = args.period
        if args.date is not None:
            from arpad.pipeline import periods
            from arpad.pipeline.schemas import POOLS

            rated = sorted({p for pool in POOLS for p in store.rating_periods(args.system, pool)})
            period = periods.period_at(args.date, rated, f"the {args.system} lists")
        elif args.in_force is not None:  # published lists too, their ratings gone or not
            from arpad.pipeline.combined import pool_periods
            from arpad.pipeline.lists import carried_periods, period_in_force
            from arpad.pipeline.schemas import POOLS

            # (a month without games carries the latest list: docs/lists.md)
            listed = {
                p
                for pool in POOLS
                for p in [
                    *pool_periods(store, args.system, pool, True),
                    *carried_periods(store, args.system, pool, True),
                ]
            }
            period = period_in_force(args.in_force, sorted(listed), args.system, args.system)
        if args.min_games is not None:
            raise ValueError("--min-games is for one pool's list, not --pool all")
        frozen = args.in_force is not None  # the pools' lists as published (docs/lists.md)
        frame, period = combined_frame(store, args.system, period, args.top, frozen=frozen)
        if frozen:
            from arpad.pipeline.combined import rated_pools
            from arpad.pipeline.lists import revised_note

            for pool in rated_pools(store, args.system, frozen):
                if note := revised_note(store, args.system, pool, period):
                    print(printable(f"arpad: note: {note}"), file=sys.stderr)
        _provisional_note(store, args.system, "all", period)
        if args.fmt == "table" and not args.output:  # the same header as one pool's
            print(f"{args.system} / all pools / {_shown(args, period)}: {frame.height} players")
        elif args.date is not None or args.in_force is not None:  # no header line: stderr
            print(f"{args.system} / all pools / {_shown(args, period)}", file=sys.stderr)
        write_combined(frame, args.fmt, args.output, max_rows=args.top or 50)
        return 0
    active = args.active
    frame, period = list_frame(
        store,
        args.system,
        args.pool,
        args.period,
        None if active else args.top,
        args.date,
        args.min_games,
        args.in_force,
    )
    if active is not None:
        from arpad.pipeline.activity import active_only
        from arpad.pipeline.systems import get_system

        lower = get_system(args.system).lower_is_better
        frame = active_only(frame, store, args.system, args.pool, period, active, lower)
        frame = top_ranked(frame, args.top) if args.top else frame
    from arpad.pipeline.lists import frozen_source
    from arpad.pipeline.publish import out_of_date

    if args.in_force is not None and (
        period in store.published_periods(args.system, args.pool)
        or frozen_source(store, args.system, args.pool, period) is not None
    ):
        from arpad.pipeline.lists import revised_note  # the list as published (docs/lists.md)

        if note := revised_note(store, args.system, args.pool, period):
            print(printable(f"arpad: note: {note}"), file=sys.stderr)
    elif stale := out_of_date(store, args.system, args.pool, period):  # docs/lists.md
        print(printable(f"arpad: note: {stale}"), file=sys.stderr)
    if args.in_force is None:
        _provisional_note(store, args.system, args.pool, period)
    if args.fmt == "table" and not args.output:
        print(f"{args.system} / {args.pool} / {_shown(args, period)}: {frame.height} players")
        from arpad.pipeline.precision import period_precision, precision_note

        if note := precision_note(period_precision(store, args.pool, period)):
            print(note)  # games dated only to the year/month (docs/pgn-trf.md)
    elif args.date is not None or args.in_force is not None:  # no header line: stderr
        print(f"{args.system} / {args.pool} / {_shown(args, period)}", file=sys.stderr)
    write_list(frame, period, args.fmt, args.output, max_rows=args.top or 50)
    return 0


def _provisional_note(store, system: str, pool: str, period: int) -> None:
    """The list of a month not over (the current month, or one whose games are dated
    later) is provisional: one line on standard error, naming the last finished month
    the list has, as the monthly job's "Provisional" and ``publish``'s refusal say
    (docs/lists.md "Only finished months are frozen"; officer round 8: `arpad list` on
    the 4th wrote the month in progress with nothing said)."""
    from arpad.pipeline import publish

    state = publish.month_state(period)
    if state is None:
        return
    pools = [pool] if pool != "all" else store.pools()
    rated = sorted({p for one in pools for p in store.rating_periods(system, one)})
    finished = [p for p in rated if not publish.in_progress(p)]
    hint = f"; --period {finished[-1]} for the last finished month" if finished else ""
    day = publish.today().isoformat()
    print(
        f"arpad: note: period {period} is a month {state} (today is {day}, UTC): this list "
        f"is provisional, not the month's final list{hint}",
        file=sys.stderr,
    )


def _shown(args, period: int) -> str:
    """Which list is shown: ``period P``, or for ``--date``/``--in-force`` the period it
    resolved to, with the day its list takes effect (FIDE's list date, docs/lists.md)."""
    from arpad.pipeline.lists import list_date

    effect = list_date(period)
    since = f"; in force from {effect.isoformat()}" if effect else ""
    if args.in_force is not None:
        return (
            f"list in force on {args.in_force} = period {period_label(period)} "
            f"(latest rated period closed by then{since})"
        )
    if args.date is None:
        return f"period {period}" + (f" (in force from {effect.isoformat()})" if effect else "")
    return (
        f"list of {args.date} = period {period_label(period)} (latest rated at or before it{since})"
    )


def cmd_sql(args) -> int:
    """Read-only SQL (pipeline/sql.py); ``--output`` never inside the store."""
    store = require_store(args)
    if args.output:
        outside(store.root, args.output)
    from arpad.pipeline.sql import run_readonly_sql  # DuckDB and polars: only for `arpad sql`

    frame = run_readonly_sql(
        store, args.query, args.param, allow_files=args.allow_file, timeout=args.timeout
    )
    output.render(frame, args.fmt, args.output)
    for line in stale_ratings_notes(store):
        print(f"arpad: note: {line}", file=sys.stderr)
    return 0


def stale_ratings_notes(store) -> list[str]:
    """The ratings the views show that are out of date (``publish.out_of_date``: a
    correction, a late result or a merge since they were rated), one line each: `arpad
    sql` answers from them as they are, and said nothing after a merge while `arpad list`
    warned (the analyst's attack, round 13)."""
    from arpad.pipeline import incremental
    from arpad.pipeline.publish import out_of_date

    notes = []
    for key in sorted(incremental.read_stale(store)):
        system, _, pool = key.partition("/")
        rated = store.rating_periods(system, pool)
        if rated and (problem := out_of_date(store, system, pool, rated[-1])):
            notes.append(problem.replace(f" of period {rated[-1]}", "", 1))
    return notes
