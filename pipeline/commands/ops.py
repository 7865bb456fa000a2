"""Operations subcommands: ``recalculate`` (the monthly job, now), ``serve`` (schedule
it on this machine with ``flow.serve``) and ``deploy`` (a deployment on a Prefect
server's work pool). See docs/operations.md and docs/runners.md."""

from __future__ import annotations

import sys
from pathlib import Path

from arpad.pipeline.commands.common import (
    add_encoding,
    add_orchestration,
    add_store,
    is_terminal,
    run_job,
    split_list,
)
from arpad.pipeline.errors import printable

DEFAULT_CRON = "0 3 1 * *"  # 03:00 on the 1st of each month (FIDE lists are monthly, docs/rules.md)
# A module path, not a file: the worker imports the flow as arpad.flows.recalculate, so
# its tasks pickle by their arpad.* names, which an external Dask scheduler and its workers
# import too. A file entrypoint (recalculate.py:monthly_flow) made it a top-level module
# ``recalculate`` that they could not import (tests/test_deploy_entrypoint.py).
ENTRYPOINT = "arpad.flows.recalculate.monthly_flow"


def register(sub) -> None:
    p = sub.add_parser(
        "recalculate",
        help="the monthly job now: ingest the inbox, recompute stale periods, publish lists",
    )
    add_store(p)
    p.add_argument("--inbox", required=True, metavar="DIR", help="folder of new files")
    p.add_argument("--systems", default=None, help="comma-separated (default: those rated)")
    p.add_argument("--pools", default=None, help="comma-separated (default: all)")
    p.add_argument("--format", dest="fmt", default=None, help="input format of games files")
    p.add_argument("--mapping", default=None, help="named column mapping of games files")
    add_ignore_stated_ratings(p)
    add_encoding(p)
    add_orchestration(p)
    p.set_defaults(func=cmd_recalculate)

    for command, text in (
        ("serve", "schedule the monthly recalculation on this machine (runs until stopped)"),
        ("deploy", "create the scheduled deployment of recalculate on a Prefect server"),
    ):
        p = sub.add_parser(command, help=text)
        add_store(p)
        p.add_argument("--inbox", required=True, metavar="DIR")
        p.add_argument("--cron", default=DEFAULT_CRON, help=f'schedule (default "{DEFAULT_CRON}")')
        p.add_argument("--timezone", default="UTC")
        p.add_argument("--name", default="monthly", help="deployment name (default monthly)")
        p.add_argument("--systems", default=None)
        p.add_argument("--pools", default=None)
        p.add_argument("--format", dest="fmt", default=None)
        p.add_argument("--mapping", default=None)
        add_encoding(p)
        add_ignore_stated_ratings(p)
        p.add_argument(
            "--cluster", default=None, metavar="tcp://HOST:PORT", help="Dask scheduler for the runs"
        )
        p.add_argument("--workers", type=int, default=None, help="local Dask workers for the runs")
        if command == "deploy":
            p.add_argument(
                "--work-pool", default="arpad", help="process work pool (created if missing)"
            )
            p.set_defaults(func=cmd_deploy)
        else:
            p.set_defaults(func=cmd_serve)


def add_ignore_stated_ratings(p) -> None:
    """``arpad ingest``'s option, for each inbox file's ingest (docs/observations.md)."""
    p.add_argument(
        "--ignore-stated-ratings",
        action="store_true",
        help="store the ratings the inbox's games files state as null, as arpad ingest "
        "--ignore-stated-ratings: your own list is the authority (docs/observations.md)",
    )


def cmd_recalculate(args) -> int:
    from arpad.pipeline import monthly
    from arpad.pipeline.commands.core import Progress
    from arpad.pipeline.jobs import RecalculateRequest

    request = RecalculateRequest(
        args.store,
        args.inbox,
        split_list(args.systems),
        split_list(args.pools),
        args.fmt,
        args.mapping,
        args.wait,
        args.ignore_stated_ratings,
        args.encoding,
    )
    progress = Progress("recalculate", enabled=is_terminal())
    summary = run_job(args, "recalculate", request, progress=progress)
    print(monthly.markdown(summary))
    rejected = [f for f in summary.files if f["outcome"] == monthly.REJECTED]
    for f in rejected:
        print(f"{f['path']}: rejected: {f['detail']}", file=sys.stderr)
    # Which rows were quarantined and why, as `arpad ingest` prints them (``printable``:
    # a detail holds text from the file), then where all of them are.
    for f in summary.files:
        for line in monthly.quarantine_lines(f):
            print(printable(line), file=sys.stderr)
    # The notes for the rating officer, as `arpad ingest` prints them under its file.
    for f in summary.files:
        notes = monthly.note_lines(f)
        if notes:
            print(printable(f"{f['path']}:"), file=sys.stderr)
        for line in notes:
            print(printable(f"  {line}"), file=sys.stderr)
    rows = monthly.quarantine_rows(summary.files)
    if rows:
        print(printable(monthly.quarantine_pointer(summary.store, rows)), file=sys.stderr)
    for name in summary.unread:
        folder = Path(args.inbox) / name
        print(
            f"{folder}: not read: a folder (files are read from the inbox and its players/)",
            file=sys.stderr,
        )
    for name, why in summary.left_in_inbox:
        print(printable(f"{Path(args.inbox) / name}: not read: {why}"), file=sys.stderr)
    # A freeze held (a file rejected, a correction unapplied, frozen lists revised by a
    # players file; of this run or of one stopped before its report): exit 2.
    if summary.held:
        said = "; ".join(summary.held)
        print(printable(f"froze no list: {said} (the report says why)"), file=sys.stderr)
    return 2 if rejected or summary.quarantined or summary.held else 0


def schedule_parameters(args) -> tuple[dict, dict]:
    """The deployment's flow parameters and run environment, checked: the store and
    the inbox must exist (absolute paths are recorded), the server must answer."""
    from arpad.flows.common import SCHEDULE_HINT, require_server
    from arpad.pipeline.jobs import RecalculateRequest
    from arpad.pipeline.runner import check_scale_out
    from arpad.pipeline.store import Store

    store, inbox = Path(args.store).expanduser().resolve(), Path(args.inbox).expanduser()
    if not Store(store).manifest_path.exists():
        raise FileNotFoundError(
            f"--store {args.store}: no store there (ingest something first: arpad ingest … --store)"
        )
    request = RecalculateRequest(
        str(store),
        str(inbox),
        split_list(args.systems),
        split_list(args.pools),
        args.fmt,
        args.mapping,
        ignore_stated_ratings=args.ignore_stated_ratings,
        encoding=args.encoding,
    )
    check_scale_out(args.cluster, args.workers)
    check_timezone(args.timezone)
    from prefect.schedules import Cron

    try:
        Cron(args.cron, timezone=args.timezone)
    except Exception as exc:
        raise ValueError(f"--cron {args.cron!r} --timezone {args.timezone!r}: {exc}") from None
    require_server(hint=SCHEDULE_HINT)
    warn_missing_starting_ratings(Store(store), request.systems, inbox)
    # (an option left at its default is left out: the flow's own default is the same)
    parameters = {
        k: v for k, v in vars(request).items() if v is not None and v is not False and k != "wait"
    }
    env = {}
    if args.cluster:
        env["ARPAD_CLUSTER"] = args.cluster
    if args.workers:
        env["ARPAD_WORKERS"] = str(args.workers)
    return parameters, env


def warn_missing_starting_ratings(store, systems: list[str] | None, inbox: Path) -> None:
    """A warning (not a refusal) for each system the runs would rate that needs published
    starting ratings the store does not have: each run would fail at its plan step
    (``jobs.check_starting_ratings``, the run's own check and line) until a players file
    with ratings is ingested or arrives in the inbox. Not refused, since that file may be
    put in the inbox after the schedule is made; nothing is said while a players file
    waits in INBOX/players/ (the run ingests it before it plans). A deployment of
    ``--systems fide`` on a store without ratings was created silently, and its runs
    failed at 03:00 on the 1st (docs/operations.md "The schedule")."""
    from arpad.pipeline.jobs import check_starting_ratings, has_published_ratings
    from arpad.pipeline.monthly import configured_systems
    from arpad.pipeline.systems import get_system

    waiting = inbox / "players"
    if waiting.is_dir() and any(p.is_file() for p in waiting.iterdir()):
        return
    for system in configured_systems(store, systems):
        try:
            check_starting_ratings(store, system)
        except ValueError as exc:
            print(
                f"arpad: warning: {exc}; the scheduled runs fail at their plan step until "
                f"such a players file is ingested or put in {waiting}/",
                file=sys.stderr,
            )
            continue
        if not get_system(system).needs_published_ratings:
            continue
        # per pool, as the runs plan it (monthly.plan: such a pool is left unrated)
        for pool in store.pools():
            if store.periods(pool) and not has_published_ratings(store, pool):
                print(
                    f"arpad: warning: {system} has no published starting rating of pool "
                    f"{pool}: the scheduled runs leave {system}/{pool} unrated (and say so in "
                    f"their report) until a players file with {pool} ratings is ingested or "
                    f"put in {waiting}/",
                    file=sys.stderr,
                )


def check_timezone(name: str) -> None:
    """``--timezone``: a name of the IANA time zone database, the names Prefect's
    schedule takes; another was a pydantic error after ``serve`` said it was serving."""
    from zoneinfo import available_timezones

    if name not in available_timezones():
        raise ValueError(
            f"--timezone {name!r}: not an IANA time zone name (for example UTC or Europe/Budapest)"
        )


def deploy(args, parameters: dict, env: dict):
    """Create (or update) ``recalculate/<name>`` on a process work pool; the worker runs
    the flow from the installed arpad.flows package."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists
    from prefect.schedules import Cron

    from arpad.flows.common import run_tags

    with get_client(sync_client=True) as client:
        try:
            client.create_work_pool(WorkPoolCreate(name=args.work_pool, type="process"))
        except ObjectAlreadyExists:
            pass
    return deployable_flow().deploy(
        name=args.name,
        work_pool_name=args.work_pool,
        schedules=[Cron(args.cron, timezone=args.timezone)],
        parameters=parameters,
        job_variables={"env": env} if env else None,
        tags=run_tags("recalculate", parameters),
        build=False,
        push=False,
        print_next_steps=False,
        ignore_warnings=True,
    )


def deployable_flow():
    """The monthly flow as a deployment records it: the installed arpad.flows folder as
    its (local) source, the working directory of its runs, and ``ENTRYPOINT``."""
    import arpad.flows
    from arpad.flows.recalculate import monthly_flow

    source = str(Path(arpad.flows.__file__).resolve().parent)
    return monthly_flow.from_source(source=source, entrypoint=ENTRYPOINT)


def cmd_deploy(args) -> int:
    parameters, env = schedule_parameters(args)
    deployment_id = deploy(args, parameters, env)
    print(
        f"deployment recalculate/{args.name} ({deployment_id}) scheduled {args.cron!r} "
        f"{args.timezone} on work pool {args.work_pool!r}; start a worker with:\n"
        f"  prefect worker start --pool {args.work_pool}"
    )
    return 0


def cmd_serve(args) -> int:
    """Serve the schedule from this process (a Prefect ``Runner``, as ``flow.serve``
    does): no work pool, no worker. SIGINT and SIGTERM stop it with the one line every
    command gives (``serve_until_stopped``)."""
    parameters, env = schedule_parameters(args)
    import os

    from arpad.flows.common import configured, run_tags
    from arpad.flows.recalculate import recalculate_flow

    # The scheduler is probed before ARPAD_CLUSTER is set for the runs: its error names
    # --cluster as given, not a variable the user never set.
    served = configured(recalculate_flow, args.cluster, args.workers)
    os.environ.update(env)
    from prefect.runner import Runner
    from prefect.schedules import Cron

    runner = Runner(name=args.name)
    runner.add_flow(
        served,
        name=args.name,
        schedules=[Cron(args.cron, timezone=args.timezone)],
        parameters=parameters,
        tags=run_tags("recalculate", parameters),
    )
    print(
        f"serving recalculate/{args.name} on {args.cron!r} {args.timezone} "
        f"(Ctrl-C or kill -INT/-TERM {os.getpid()} stops it)",
        file=sys.stderr,
        flush=True,
    )
    serve_until_stopped(runner)
    return 0


def serve_until_stopped(runner) -> None:
    """Run ``runner`` (a Prefect ``Runner``) until SIGINT or SIGTERM, then end as every
    command does on them: ``KeyboardInterrupt`` or ``cli.Terminated``, one line, exit
    130 or 143 (pipeline/cli.py).

    Both handlers are set here, explicitly: a shell starts a background job (`arpad
    serve … &` in a script) with SIGINT ignored, and Python keeps it ignored, so `kill
    -INT` did nothing; Prefect's runner put its own SIGTERM handler in place of the
    CLI's as it started and stopped without a word, exit 0. Either signal now makes the
    runner stop as Prefect's SIGTERM handler does (the runs in flight are cancelled and
    their processes stopped: a `kill -INT` reaches this process alone, and the run's
    process went on without it), then raises; a second signal, or one before the
    runner has started, raises at once (docs/runners.md "Stopping arpad serve")."""
    import asyncio
    import signal

    from arpad.pipeline.cli import Terminated

    graceful = runner.handle_sigterm  # Prefect's: cancel the runs in flight, end start()
    got: list[int] = []

    def stopped(signum: int) -> KeyboardInterrupt:
        return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    def stop(signum, frame):
        if got or not runner.started:
            raise stopped(signum)
        got.append(signum)
        graceful()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    runner.handle_sigterm = stop  # the runner installs it for SIGTERM as it starts
    asyncio.run(runner.start())
    if got:
        raise stopped(got[0])
