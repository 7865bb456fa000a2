"""``arpad site``: a static HTML site of the store's published lists (docs/site.md).

The site is built from the frozen lists of ``arpad publish`` only
(``STORE/published/system=S/pool=P/period=N/``, pipeline/publish.py): an index of the
published periods and pools, one list page per published list (sortable columns, a
search box, federation and title filters, and the list files copied for download),
and one page per listed player with the rating history chart (inline SVG) and the
game-by-game card of each published period. Everything is escaped HTML with relative
links and one small script (pipeline/site_assets.py): it works offline from
``file://``.

The site is written into a temporary folder beside ``--out`` and renamed into place,
so a reader never sees half a site; a folder written by an earlier ``arpad site`` is
replaced, any other non-empty folder is refused.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from arpad.pipeline import names, periods
from arpad.pipeline.integrity import open_json
from arpad.pipeline.publish import COMBINED, FILES, MANIFEST
from arpad.pipeline.store import Store, outside

# The marker file that says a folder is a site written by ``arpad site``.
SITE_MARKER = ".arpad-site"
# Formats of a published list copied into the site for download, with their labels.
DOWNLOADS = (("fide-txt", "FIDE TXT"), ("fide-xml", "FIDE XML"), ("csv", "CSV"), ("json", "JSON"))
# The list page's columns: (list column, header, numeric).
LIST_PAGE_COLUMNS = (
    ("rank", "Rank", True),
    ("player_id", "ID", False),
    ("name", "Name", False),
    ("federation", "Fed", False),
    ("sex", "Sex", False),
    ("title", "Tit", False),
    ("w_title", "WTit", False),
    ("rating", "Rating", True),
    ("games", "Gms", True),
    ("k", "K", True),
    ("birth_year", "B-day", True),
    ("flag", "Flag", False),
)
NONE = "-"  # the filter value of an empty federation or title


def list_page_columns(system: str) -> tuple[tuple[str, str, bool], ...]:
    """``LIST_PAGE_COLUMNS`` of ``system``'s list pages: its own list columns
    (``RatingSystem.list_columns``, Glicko's ``rd``, Glicko-2's ``rd`` and
    ``volatility``: those ``arpad list`` shows), numeric, right after ``rating``."""
    from arpad.pipeline.systems import get_system

    own = tuple((column, column, True) for column, _, _ in get_system(system).list_columns)
    at = [col for col, _, _ in LIST_PAGE_COLUMNS].index("rating") + 1
    return LIST_PAGE_COLUMNS[:at] + own + LIST_PAGE_COLUMNS[at:]


class NothingPublishedError(ValueError):
    """The store has no published list to put on a site (bad input, exit 2)."""


@dataclass
class PublishedList:
    system: str
    pool: str
    period: int
    folder: Path
    manifest: dict
    frame: pl.DataFrame  # the frozen list (list.parquet)

    @property
    def page(self) -> str:
        return f"lists/{self.system}-{self.pool}-{self.period}.html"

    @property
    def files_dir(self) -> str:
        return f"files/{self.system}/{self.pool}/{self.period}"


@dataclass
class SiteSummary:
    out: Path
    lists: list[tuple[str, str, int]] = field(default_factory=list)
    players: int = 0
    cards: int = 0


def e(value) -> str:
    """HTML-escaped text of ``value`` (``None`` is empty): every value from the store
    goes through this, names are hostile input."""
    return "" if value is None else html.escape(str(value), quote=True)


def player_file(player_id: str) -> str:
    """The player page's file name: the id when it is a plain lower-case name, else a
    cleaned id plus a hash (ids may hold ``/``, ``..``, upper case on a case-insensitive
    file system, …)."""
    if re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", player_id):
        return f"{player_id}.html"
    clean = re.sub(r"[^a-z0-9_-]", "_", player_id.lower())[:40]
    digest = hashlib.sha256(player_id.encode("utf-8")).hexdigest()[:12]
    return f"{clean}-{digest}.html"


def published_lists(
    store: Store, system: str | None = None, pools: list[str] | None = None
) -> list[PublishedList]:
    """Every published list of the store (of ``system`` and ``pools`` when given),
    ordered by system, pool, period. Raises ``NothingPublishedError`` when none."""
    if system is not None:
        names.system(system)
    for p in pools or ():
        names.pool(p)
    found: list[PublishedList] = []
    base = store.published_dir
    systems = sorted(d.name.split("=", 1)[1] for d in base.glob("system=*") if d.is_dir())
    for s in systems:
        if system is not None and s != system:
            continue
        pool_names = sorted(
            d.name.split("=", 1)[1] for d in (base / f"system={s}").glob("pool=*") if d.is_dir()
        )
        for p in pool_names:
            if pools and p not in pools:
                continue
            for n in store.published_periods(s, p):
                folder = store.published_partition(s, p, n)
                if not (folder / MANIFEST).is_file():
                    continue  # not (yet) published: the manifest is written last
                manifest = open_json(folder / MANIFEST)  # a damaged one is named
                frame = pl.read_parquet(folder / FILES["parquet"])
                found.append(PublishedList(s, p, n, folder, manifest, frame))
    if not found:
        what = (
            " of " + "/".join(filter(None, [system, ",".join(pools or [])]))
            if (system or pools)
            else ""
        )
        raise NothingPublishedError(
            f"no published list{what} in the store {store.root}; the site shows published "
            "lists only: arpad publish --period P"
        )
    return found


def _check_target(out: Path) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ValueError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / SITE_MARKER).is_file():
        raise ValueError(
            f"--out {out} is a non-empty folder not written by arpad site; "
            "give a new or empty folder"
        )


def build_site(
    store: Store, out: str | os.PathLike, system: str | None = None, pools: list[str] | None = None
) -> SiteSummary:
    """Write the site of the published lists into ``out`` (atomically: a temporary
    folder beside it, renamed into place). Refuses an ``out`` inside the store."""
    # ``..`` collapsed without following symlinks (``outside`` follows them to check)
    out = outside(store.root, Path(os.path.abspath(out)), "--out")
    lists = published_lists(store, system, pools)
    _check_target(out)
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    old: Path | None = None
    try:
        os.chmod(tmp, 0o755)
        summary = _write(store, lists, tmp)
        (tmp / SITE_MARKER).write_text("written by arpad site (docs/site.md)\n")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.replace(out, old / "site")
        os.replace(tmp, out)
    except BaseException:
        if old is not None and (old / "site").exists() and not out.exists():
            os.replace(old / "site", out)  # put the previous site back
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    summary.out = out
    return summary


# -- writing -----------------------------------------------------------------------------


def _write(store: Store, lists: list[PublishedList], root: Path) -> SiteSummary:
    from arpad.pipeline.site_assets import SITE_CSS, SITE_JS

    summary = SiteSummary(out=root)
    (root / "site.js").write_text(SITE_JS, encoding="utf-8")
    (root / "site.css").write_text(SITE_CSS, encoding="utf-8")
    (root / "lists").mkdir()
    (root / "players").mkdir()
    for pub in lists:
        _copy_files(pub, root)
    listed = sorted({pid for pub in lists for pid in pub.frame["player_id"].to_list()})
    pages = {pid: player_file(pid) for pid in listed}
    for pub in lists:
        _write_text(root / pub.page, _list_page(pub, pages))
        summary.lists.append((pub.system, pub.pool, pub.period))
    _write_text(root / "index.html", _index_page(lists))
    from arpad.pipeline.site_players import player_pages

    for pid, text, cards in player_pages(store, lists, pages):
        _write_text(root / "players" / pages[pid], text)
        summary.players += 1
        summary.cards += cards
    return summary


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _copy_files(pub: PublishedList, root: Path) -> None:
    """Copy the downloadable list files, checked against the publication's sha256."""
    dest = root / pub.files_dir
    dest.mkdir(parents=True)
    for name, _ in downloads(pub):
        data = (pub.folder / name).read_bytes()
        expected = pub.manifest.get("files", {}).get(name)
        if expected is not None and hashlib.sha256(data).hexdigest() != expected:
            raise ValueError(
                f"{pub.folder / name}: content differs from the sha256 in its manifest "
                "(a published file was changed after publication)"
            )
        (dest / name).write_bytes(data)


def downloads(pub: PublishedList) -> list[tuple[str, str]]:
    """(file name, label) of the files of a published list offered for download: the
    list files, and FIDE's combined standard/rapid/blitz file when it was published."""
    files = pub.manifest.get("files", {})
    out = [(FILES[fmt], label) for fmt, label in DOWNLOADS if FILES[fmt] in files]
    if COMBINED in files:
        out.append((COMBINED, "combined TXT (all pools)"))
    return out


def page(title: str, body: str, depth: int, script: bool = False) -> str:
    """A whole HTML page; ``depth``: folders below the site root (for relative links)."""
    up = "../" * depth
    js = f'<script src="{up}site.js"></script>\n' if script else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{e(title)}</title>\n"
        f'<link rel="stylesheet" href="{up}site.css">\n</head>\n<body>\n'
        f"{body}\n{js}</body>\n</html>\n"
    )


def list_label(pub: PublishedList) -> str:
    return f"{pub.system} / {pub.pool} — period {pub.period}"


def _index_page(lists: list[PublishedList]) -> str:
    parts = ["<h1>Published rating lists</h1>"]
    for s in sorted({p.system for p in lists}):
        mine = [p for p in lists if p.system == s]
        pools = sorted({p.pool for p in mine})
        by = {(p.period, p.pool): p for p in mine}
        parts.append(f"<h2>{e(s)}</h2>")
        parts.append('<table class="index"><thead><tr><th>Period</th>')
        parts.extend(f"<th>{e(p)}</th>" for p in pools)
        parts.append("</tr></thead><tbody>")
        for n in sorted({p.period for p in mine}, reverse=True):
            cells = []
            for pool in pools:
                pub = by.get((n, pool))
                if pub is None:
                    cells.append("<td></td>")
                else:
                    cells.append(
                        f'<td><a href="{e(pub.page)}">{pub.frame.height} players</a>'
                        f' <span class="note">published {e(pub.manifest.get("published_at"))}'
                        "</span></td>"
                    )
            parts.append(f"<tr><td>{n}{_month(n)}</td>{''.join(cells)}</tr>")
        parts.append("</tbody></table>")
    parts.append(
        '<p class="note">Written by arpad site from the frozen lists of arpad publish.</p>'
    )
    return page("Published rating lists", "\n".join(parts), 0)


def _month(period: int) -> str:
    day = periods.first_day(period)
    return "" if day is None else f" ({day:%Y-%m})"


def _options(values: list[str | None]) -> str:
    present = sorted({v for v in values if v})
    opts = ['<option value="">all</option>']
    opts.extend(f'<option value="{e(v)}">{e(v)}</option>' for v in present)
    if any(not v for v in values):
        opts.append(f'<option value="{NONE}">(none)</option>')
    return "".join(opts)


def _list_page(pub: PublishedList, pages: dict[str, str]) -> str:
    frame = pub.frame
    columns = list_page_columns(pub.system)
    rows = []
    for r in frame.iter_rows(named=True):
        pid = r["player_id"]
        link = f"../players/{pages[pid]}"
        cells = []
        for col, _, numeric in columns:
            value = r.get(col)  # a system's own column: empty on a list published without it
            if col in ("player_id", "name") and value is not None:
                cells.append(f'<td><a class="player" href="{e(link)}">{e(value)}</a></td>')
            else:
                cells.append(f"<td{' class=n' if numeric else ''}>{e(value)}</td>")
        rows.append(
            f'<tr data-id="{e(pid.lower())}" data-name="{e((r["name"] or "").lower())}" '
            f'data-fed="{e(r["federation"] or NONE)}" data-title="{e(r["title"] or NONE)}">'
            + "".join(cells)
            + "</tr>"
        )
    head = "".join(
        f'<th{" class=n" if numeric else ""} data-type="{"num" if numeric else "text"}">'
        f"{e(label)}</th>"
        for _, label, numeric in columns
    )
    links = " · ".join(
        f'<a href="../{e(pub.files_dir)}/{e(name)}">{e(label)}</a>'
        for name, label in downloads(pub)
    )
    m = pub.manifest
    body = f"""<p><a href="../index.html">All published lists</a></p>
<h1>{e(list_label(pub))}{e(_month(pub.period))}</h1>
<p class="note">Published {e(m.get("published_at"))}; rules {e(", ".join(m.get("rules", [])))};
{frame.height} players. Download: {links}</p>
<div class="controls">
<label>Search <input id="search" type="search" placeholder="name or id" autocomplete="off"></label>
<label>Federation <select id="fed">{_options(frame["federation"].to_list())}</select></label>
<label>Title <select id="title">{_options(frame["title"].to_list())}</select></label>
<span><span id="shown">{frame.height}</span> of {frame.height} players shown</span>
</div>
<table id="list"><thead><tr>{head}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>"""
    return page(list_label(pub), body, 1, script=True)
