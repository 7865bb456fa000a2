"""The site's player pages (docs/site.md): the player's published list rows, the
rating history chart as inline SVG, and the game-by-game card of each published
period.

The card of a FIDE list is ``fide_card.rating_card`` (the card ``arpad card`` prints:
the change of each game is K × ΔR); other systems rate a period as a whole, so their
card lists the period's games (opponent, the opponent's rating at the start of the
period, event, round, colour, result) with the period's change once, its ratings
rounded as the system's list rounds them (whole numbers for ``integer_ratings``, else
one decimal), K with one decimal, and a value the ratings row does not have (a first
rating's start, USCF's special-formula K) left out of the card's line. Cards and the
chart are read from the store when the site is built: when a late correction revised
a published period, the page shows the revised rating beside the published one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from arpad.pipeline import catalog, periods
from arpad.pipeline.site import PublishedList, e, list_label, page
from arpad.pipeline.store import Store
from arpad.pipeline.systems import FIDE_SYSTEM, get_system

HISTORY_SQL = """
SELECT player_id, period, rating, games FROM player_history
WHERE system = ? AND pool = ? AND period <= ? AND rating IS NOT NULL
  AND status IN ('rated', 'new', 'provisional', 'inactive')
ORDER BY player_id, period
"""


@dataclass
class CardRow:
    period: int
    round: str
    colour: str
    opponent: str
    opponent_name: str | None
    opponent_rating: float | None
    event: str | None
    score: float
    change: float | None  # this game's share of the change (FIDE: K × ΔR), else None
    game_id: str
    note: str = ""


@dataclass
class CardView:
    rating_before: float | None
    rating_after: float | None
    change: float | None
    k: float | None
    status: str
    rows: list[CardRow] = field(default_factory=list)
    note: str = ""


def result(score: float) -> str:
    return {1.0: "1", 0.5: "½", 0.0: "0"}.get(score, f"{score:g}")


def listed(value, whole: bool) -> float | int | None:
    """``value`` as a list shows a rating (pipeline/lists.py): a whole number when the
    system publishes whole numbers (``whole``), else one decimal, rounded half away
    from zero; None for none (None or NaN)."""
    if value is None or value != value:
        return None
    from arpad.kernels.rounding import round_half_away_array

    if whole:
        return int(round_half_away_array(np.array([value]))[0])
    return float(round_half_away_array(np.array([value * 10.0]))[0] / 10.0)


def num(value, digits: int = 0) -> str:
    if value is None or value != value:  # None or NaN
        return ""
    return (
        f"{value:.{digits}f}"
        if digits
        else f"{value:.0f}"
        if value == int(value)
        else f"{value:.1f}"
    )


# -- cards -------------------------------------------------------------------------------


def fide_cards(store: Store, pub: PublishedList) -> dict[str, CardView]:
    """``rating_card`` of every player with games on a published FIDE list."""
    from arpad.pipeline.fide_card import _round as round_of
    from arpad.pipeline.fide_card import rating_card

    out: dict[str, CardView] = {}
    cache: dict = {}
    con = catalog.connect(store)
    try:
        for r in pub.frame.filter(pl.col("games") > 0).iter_rows(named=True):
            try:
                card = rating_card(
                    store, r["player_id"], pub.period, pub.pool, con=con, cache=cache
                )
            except ValueError:
                continue  # no ratings row any more (a late merge): no card
            view = CardView(
                card.rating_in_force, card.rating_after, card.change, card.k, card.status
            )
            if not card.matches:
                view.note = "the card's total differs from the stored change (other rules?)"
            rated = card.rating_in_force is not None and card.k is not None
            for g in card.games:
                view.rows.append(
                    CardRow(
                        g.period, round_of(g.game_id), g.colour, g.opponent, g.opponent_name,
                        g.opponent_rating, g.event_id, g.score,
                        card.k * g.delta if rated and g.delta is not None else None,
                        g.game_id, g.note,
                    )
                )  # fmt: skip
            out[r["player_id"]] = view
    finally:
        con.close()
    return out


def period_cards(store: Store, pub: PublishedList, names: dict[str, str]) -> dict[str, CardView]:
    """The period's games of every player on a list of a system without per-game changes."""
    from arpad.pipeline.fide_card import _round as round_of

    files = [str(f) for f in store.game_files(pub.pool, pub.period)]
    if not files:
        return {}
    games = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed").filter(
        pl.col("rated")
    )
    whole = get_system(pub.system).integer_ratings
    ratings = {
        r["player_id"]: r for r in store.read_ratings(pub.system, pub.pool, pub.period).to_pylist()
    }
    on_list = set(pub.frame["player_id"].to_list())
    out: dict[str, CardView] = {}
    for g in games.iter_rows(named=True):
        for me, opp, colour, score in (
            (g["white_id"], g["black_id"], "white", float(g["score"])),
            (g["black_id"], g["white_id"], "black", 1.0 - float(g["score"])),
        ):
            if me not in on_list or me not in ratings:
                continue
            if me not in out:
                out[me] = _period_view(ratings[me], whole)
            opp_row = ratings.get(opp)
            out[me].rows.append(
                CardRow(
                    pub.period, round_of(g["game_id"]), colour, opp, names.get(opp),
                    None if opp_row is None else listed(opp_row["rating_before"], whole),
                    g["event_id"], score, None, g["game_id"],
                )
            )  # fmt: skip
    return out


def _period_view(row: dict, whole: bool) -> CardView:
    """The card's line of a ratings ``row``: the ratings as the list rounds them, the
    change as the difference of the two shown (1504.69 → 1512.84 is 1505 → 1513, change
    8), else the stored change rounded (no rating at the start: none), K with one
    decimal (USCF's 800/(N' + m))."""
    before, after = listed(row["rating_before"], whole), listed(row["rating_after"], whole)
    change = listed(row["change"], whole)
    if before is not None and after is not None and change is not None:
        change = after - before if whole else listed(after - before, whole)
    k = row["k"]
    k = None if k is None or k != k else (k if k == int(k) else listed(k, False))
    return CardView(before, after, change, k, row["status"])


# -- the chart ---------------------------------------------------------------------------


def history_svg(points: list[tuple[int, float]], published: set[int], whole: bool = False,
                width: int = 640, height: int = 220) -> str:  # fmt: skip
    """The rating after each period as an inline SVG line chart (published periods as
    red dots); nothing external. Each point and its tooltip are the rating as the
    system's list shows it (``listed``): a whole number when the system publishes whole
    numbers (``whole``), else one decimal, so the tooltip of a published period equals
    the list row and the card's "rating after"."""
    points = [(p, v) for p, r in points if (v := listed(r, whole)) is not None]
    if not points:
        return '<p class="note">No rating history.</p>'
    xs = [periods.month_index(p) for p, _ in points]
    ys = [float(r) for _, r in points]
    x0, x1 = min(xs), max(xs)
    if x0 == x1:
        x0, x1 = x0 - 1, x1 + 1
    y0, y1 = min(ys), max(ys)
    pad = max(10.0, (y1 - y0) * 0.1)
    y0, y1 = y0 - pad, y1 + pad
    left, right, top, bottom = 50, 15, 12, 30

    def sx(x):
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def sy(y):
        return top + (y1 - y) / (y1 - y0) * (height - top - bottom)

    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="rating history">'
    ]
    for y in (y0 + pad, (y0 + y1) / 2, y1 - pad):
        parts.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{sy(y):.1f}" '
            f'y2="{sy(y):.1f}"/><text x="{left - 4}" y="{sy(y) + 4:.1f}" '
            f'text-anchor="end">{y:.0f}</text>'
        )
    coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, ys))
    parts.append(f'<polyline class="line" points="{coords}"/>')
    for (p, r), x, y in zip(points, xs, ys):
        cls = "pub" if p in published else "pt"
        size = 4 if p in published else 2.5
        parts.append(
            f'<circle class="{cls}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="{size}">'
            f"<title>period {p}: {r if whole else f'{r:.1f}'}</title></circle>"
        )
    base = height - bottom + 16
    parts.append(f'<text x="{sx(xs[0]):.1f}" y="{base}" text-anchor="start">{points[0][0]}</text>')
    if len(points) > 1:
        parts.append(
            f'<text x="{sx(xs[-1]):.1f}" y="{base}" text-anchor="end">{points[-1][0]}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


# -- pages -------------------------------------------------------------------------------


def player_pages(
    store: Store, lists: list[PublishedList], pages: dict[str, str]
) -> Iterator[tuple[str, str, int]]:
    """(player_id, page HTML, number of cards) of every player on a published list."""
    from arpad.pipeline.lists import list_frame

    players = pl.from_arrow(store.read_players())
    info = {r["player_id"]: r for r in players.iter_rows(named=True) if r["player_id"] in pages}
    names = {
        r["player_id"]: r["name"]
        for r in players.select("player_id", "name").iter_rows(named=True)
        if r["name"]
    }
    groups: dict[tuple[str, str], list[PublishedList]] = {}
    for pub in lists:
        groups.setdefault((pub.system, pub.pool), []).append(pub)
    sections: dict[str, list[str]] = {pid: [] for pid in pages}
    cards_per_player: dict[str, int] = dict.fromkeys(pages, 0)
    for (system, pool), pubs in groups.items():
        last = max(p.period for p in pubs)
        con = catalog.connect(store)
        try:
            hist = catalog.query_frame(con, HISTORY_SQL, [system, pool, last])
        finally:
            con.close()
        history: dict[str, list[tuple[int, float]]] = {}
        published = {p.period for p in pubs}
        for pid, period, rating, games in hist.iter_rows():
            # the periods he played in and the published lists he is on (not every
            # inactive month of a reconstruction's century)
            if games or period in published:
                history.setdefault(pid, []).append((period, rating))
        rows: dict[str, list] = {}
        cards: dict[tuple[str, int], CardView] = {}
        for pub in sorted(pubs, key=lambda p: p.period, reverse=True):
            try:
                current, _ = list_frame(store, system, pool, pub.period)
                revised = dict(current.select("player_id", "rating").iter_rows())
            except ValueError:
                revised = {}
            for r in pub.frame.iter_rows(named=True):
                rows.setdefault(r["player_id"], []).append((pub, r, revised.get(r["player_id"])))
            made = (
                fide_cards(store, pub) if system == FIDE_SYSTEM else period_cards(store, pub, names)
            )
            for pid, view in made.items():
                cards[(pid, pub.period)] = view
        whole = get_system(system).integer_ratings
        for pid, mine in rows.items():
            html_parts = [f"<h2>{e(system)} / {e(pool)}</h2>", _published_table(mine)]
            html_parts.append("<h3>Rating history</h3>")
            html_parts.append(history_svg(history.get(pid, []), published, whole))
            for pub, _, _ in mine:
                view = cards.get((pid, pub.period))
                if view is not None:
                    html_parts.append(_card_html(pub, view, pages))
                    cards_per_player[pid] += 1
            sections[pid].append("\n".join(html_parts))
    for pid in sorted(pages):
        yield pid, _player_page(pid, info.get(pid), sections[pid]), cards_per_player[pid]


def _published_table(mine: list) -> str:
    """The player's rows of the published lists; K with one decimal where it is
    fractional (a list published before K was rounded held USCF's 30.43084240297596)."""
    head = "<tr><th>List</th><th class=n>Rank</th><th class=n>Rating</th><th class=n>Gms</th><th class=n>K</th><th>Flag</th><th class=n>Revised</th></tr>"
    body = []
    for pub, r, revised in mine:
        now = "" if revised is None or revised == r["rating"] else e(revised)
        body.append(
            f'<tr><td><a href="../{e(pub.page)}">{e(list_label(pub))}</a></td>'
            f"<td class=n>{e(r['rank'])}</td><td class=n>{e(r['rating'])}</td>"
            f"<td class=n>{e(r['games'])}</td><td class=n>{e(num(r['k']))}</td>"
            f"<td>{e(r['flag'])}</td><td class=n>{now}</td></tr>"
        )
    return f'<table class="published"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


def _card_html(pub: PublishedList, view: CardView, pages: dict[str, str]) -> str:
    anchor = f"card-{pub.system}-{pub.pool}-{pub.period}"
    # a value the card has not (a first rating's start, a K the rules did not use) is
    # left out, not printed empty (docs/uscf.md "Outputs")
    parts = [
        f"{label} {e(num(value))}"
        for label, value in (
            ("rating at the start", view.rating_before),
            ("K", view.k),
            ("change", view.change),
            ("rating after", view.rating_after),
        )
        if num(value) != ""
    ]
    summary = ", ".join(parts) + f" ({e(view.status)})"
    if view.note:
        summary += f"; {e(view.note)}"
    head = (
        "<tr><th>Period</th><th>Rnd</th><th>Col</th><th>Opponent</th><th class=n>Opp. rating</th>"
        "<th>Event</th><th>Result</th><th class=n>Change</th><th>Game</th></tr>"
    )
    body = []
    for g in view.rows:
        label = e(g.opponent_name or g.opponent)
        opp = f'<a href="{e(pages[g.opponent])}">{label}</a>' if g.opponent in pages else label
        change = "" if g.change is None else f"{g.change:+.2f}"
        note = f' title="{e(g.note)}"' if g.note else ""
        body.append(
            f'<tr class="game"{note}><td>{g.period}</td><td>{e(g.round)}</td>'
            f"<td>{e(g.colour)}</td><td>{opp}</td><td class=n>{e(num(g.opponent_rating))}</td>"
            f"<td>{e(g.event)}</td><td>{e(result(g.score))}</td><td class=n>{change}</td>"
            f"<td>{e(g.game_id)}</td></tr>"
        )
    return (
        f'<h3 id="{e(anchor)}">Card: {e(list_label(pub))}</h3>\n<p>{summary}</p>\n'
        f'<table class="card"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
    )


def _player_page(pid: str, info: dict | None, sections: list[str]) -> str:
    info = info or {}
    name = info.get("name") or pid
    facts = [f"ID {e(pid)}"]
    for key, label in (("federation", "federation"), ("title", "title"), ("sex", "sex"),
                       ("birth_year", "born")):  # fmt: skip
        if info.get(key) is not None:
            facts.append(f"{label} {e(info[key])}")
    body = (
        '<p><a href="../index.html">All published lists</a></p>\n'
        f"<h1>{e(name)}</h1>\n<p>{' · '.join(facts)}</p>\n" + "\n".join(sections)
    )
    return page(str(name), body, 1)
