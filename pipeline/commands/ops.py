"""Operations subcommands: ``recalculate`` (the monthly job, now) and ``deploy``
(its scheduled Prefect deployment). See docs/operations.md."""

from __future__ import annotations

import sys
from pathlib import Path

from arpad.pipeline.commands.common import add_orchestration, add_store, is_terminal

DEFAULT_CRON = "0 3 1 * *"  # 03:00 on the 1st of each month (FIDE lists are monthly, docs/rules.md)
REPO_ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = "flows/recalculate.py:recalculate_flow"


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


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
    add_orchestration(p)
    p.set_defaults(func=cmd_recalculate)

    p = sub.add_parser("deploy", help="create the scheduled Prefect deployment of recalculate")
    add_store(p)
    p.add_argument("--inbox", required=True, metavar="DIR")
    p.add_argument("--cron", default=DEFAULT_CRON, help=f'schedule (default "{DEFAULT_CRON}")')
    p.add_argument("--timezone", default="UTC")
    p.add_argument("--name", default="monthly", help="deployment name (default monthly)")
    p.add_argument("--work-pool", default="arpad", help="process work pool (created if missing)")
    p.add_argument("--systems", default=None)
    p.add_argument("--pools", default=None)
    p.add_argument("--mapping", default=None)
    p.add_argument(
        "--cluster", default=None, metavar="tcp://HOST:PORT", help="Dask scheduler for the runs"
    )
    p.add_argument("--workers", type=int, default=None, help="local Dask workers for the runs")
    p.set_defaults(func=cmd_deploy)


def cmd_recalculate(args) -> int:
    from arpad.pipeline.commands.core import Progress

    store_root = str(Path(args.store).resolve())
    progress = Progress("recalculate", enabled=is_terminal())
    systems, pools = _split(args.systems), _split(args.pools)
    if args.no_flow:
        from arpad.pipeline import monthly
        from arpad.pipeline.store import Store

        summary = monthly.recalculate(
            Store(store_root), Path(args.inbox), systems, pools, args.fmt, args.mapping, progress
        )
    else:
        from arpad.flows.common import configured
        from arpad.flows.recalculate import recalculate_flow

        summary = configured(recalculate_flow)(
            store_root,
            str(Path(args.inbox).resolve()),
            systems,
            pools,
            args.fmt,
            args.mapping,
            args.wait,
            progress,
        )
    from arpad.pipeline import monthly

    print(monthly.markdown(summary))
    rejected = [f for f in summary.files if f["outcome"] == monthly.REJECTED]
    for f in rejected:
        print(f"{f['path']}: rejected: {f['detail']}", file=sys.stderr)
    return 2 if rejected or summary.quarantined else 0


def deploy(
    store_root: str,
    inbox: str,
    cron: str = DEFAULT_CRON,
    timezone: str = "UTC",
    name: str = "monthly",
    work_pool: str = "arpad",
    systems: list[str] | None = None,
    pools: list[str] | None = None,
    mapping: str | None = None,
    cluster: str | None = None,
    workers: int | None = None,
):
    """Create (or update) the ``recalculate/<name>`` deployment on a process work pool.

    The worker runs the flow from this checkout (``set_working_directory`` pull step);
    ``--cluster``/``--workers`` become the run's ARPAD_CLUSTER/ARPAD_WORKERS.
    """
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists
    from prefect.schedules import Cron

    from arpad.flows.recalculate import recalculate_flow

    with get_client(sync_client=True) as client:
        try:
            client.create_work_pool(WorkPoolCreate(name=work_pool, type="process"))
        except ObjectAlreadyExists:
            pass
    env = {}
    if cluster:
        env["ARPAD_CLUSTER"] = cluster
    if workers:
        env["ARPAD_WORKERS"] = str(workers)
    parameters = {"store_root": store_root, "inbox": inbox}
    if systems:
        parameters["systems"] = systems
    if pools:
        parameters["pools"] = pools
    if mapping:
        parameters["mapping"] = mapping
    flow = recalculate_flow.from_source(source=str(REPO_ROOT), entrypoint=ENTRYPOINT)
    return flow.deploy(
        name=name,
        work_pool_name=work_pool,
        schedules=[Cron(cron, timezone=timezone)],
        parameters=parameters,
        job_variables={"env": env} if env else None,
        build=False,
        push=False,
        print_next_steps=False,
        ignore_warnings=True,
    )


def cmd_deploy(args) -> int:
    deployment_id = deploy(
        str(Path(args.store).resolve()),
        str(Path(args.inbox).resolve()),
        args.cron,
        args.timezone,
        args.name,
        args.work_pool,
        _split(args.systems),
        _split(args.pools),
        args.mapping,
        args.cluster,
        args.workers,
    )
    print(
        f"deployment recalculate/{args.name} ({deployment_id}) scheduled {args.cron!r} "
        f"{args.timezone} on work pool {args.work_pool!r}; start a worker with:\n"
        f"  prefect worker start --pool {args.work_pool}"
    )
    return 0
