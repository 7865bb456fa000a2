"""``arpad site``: a static HTML site of the store's published lists (docs/site.md)."""

from __future__ import annotations

from arpad.pipeline.commands.common import add_store, require_store


def register(sub) -> None:
    p = sub.add_parser("site", help="write a static HTML site of the published lists")
    p.add_argument("--out", required=True, metavar="DIR", help="the site's folder (replaced)")
    add_store(p)
    p.add_argument("--system", default=None, help="only this system's lists (default: all)")
    p.add_argument(
        "--pool", dest="pools", nargs="+", default=None, metavar="P", help="only these pools"
    )
    p.set_defaults(func=cmd_site)


def cmd_site(args) -> int:
    from arpad.pipeline.site import build_site

    store = require_store(args)
    summary = build_site(store, args.out, args.system, args.pools)
    print(
        f"site: {len(summary.lists)} published list(s), {summary.players} player page(s), "
        f"{summary.cards} card(s)"
    )
    print(f"  {summary.out}/index.html")
    return 0
