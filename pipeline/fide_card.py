"""FIDE rating card: the per-game breakdown of one player's change in one period.

Recomputed one game at a time from the stored games and the stored ratings in
force (``rating_before + adjustment`` of the period), with the rules the stored
run used for the period (the version named in its ratings rows; the version in
force then when that name is not a dated version, e.g. a rules file), or the ones
given, so that a rating officer can follow every step:

    D = own − opponent, after the 400-point rule (B.02 §8.3.1: cap, 2650 exemption,
    once-per-event upgrade in the 2022-01 version); PD from table 8.1.2;
    ΔR = score − PD; change = K × ΣΔR rounded half away from zero (§8.3.4).

The card's rounded total must equal the stored change; ``matches`` says so.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from arpad.kernels.rounding import div_round_half_away
from arpad.pipeline import catalog, periods
from arpad.pipeline.rules import pd_high_by_diff
from arpad.pipeline.store import Store
from arpad.pipeline.systems.base import apply_overrides
from arpad.pipeline.systems.fide import FideRules, FideSystem, closing_month, unrated_by_difference


@dataclass
class CardGame:
    period: int
    game_id: str
    event_id: str | None
    colour: str
    opponent: str
    opponent_rating: int | None
    difference: int | None  # own − opponent, as it is
    difference_used: int | None  # after the 400-point rule
    pd: float | None
    score: float
    delta: float | None  # score − PD
    note: str = ""  # why a game does not count
    opponent_name: str | None = None  # from the players table


@dataclass
class Card:
    player_id: str
    system: str
    pool: str
    period: int
    rules: str
    status: str
    rating_before: int | None
    adjustment: int | None
    rating_in_force: int | None
    games: list[CardGame] = field(default_factory=list)
    k: int | None = None
    sum_delta: float = 0.0
    unrounded: float = 0.0
    change: int | None = None
    stored_change: float | None = None
    rating_after: float | None = None
    pending: bool = False  # two-monthly list: games wait for the closing month
    # Over the games that count (rated opponents): Rc their average rating, rounded
    # half up; p the whole percentage scored (half up); Rp = Rc + dp(p), table 8.1.1.
    rated_games: int = 0
    rc: int | None = None
    percent: int | None = None
    rp: int | None = None

    @property
    def matches(self) -> bool:
        if self.pending:
            return True
        if self.stored_change is None:  # no change stored: the card must find none
            return self.change in (None, 0)
        return self.change == int(self.stored_change)

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["matches"] = self.matches
        return out

    def __str__(self) -> str:
        """The text form ``arpad card`` prints (``print(card)`` in a notebook)."""
        return format_card(self)


_RATINGS_SQL = """
SELECT player_id, rating_before, adjustment, change, rating_after, k, status
FROM read_parquet(?)
"""

# A month's rated games in file order (``{}``: a further condition, or nothing).
_MONTH_GAMES = """
SELECT game_id, event_id, white_id, black_id, score::DOUBLE AS score
FROM read_parquet(?, filename = true, file_row_number = true)
WHERE rated{}
ORDER BY filename, file_row_number
"""
_GAMES_SQL = _MONTH_GAMES.format(" AND (list_contains(?, white_id) OR list_contains(?, black_id))")
_ALL_GAMES_SQL = _MONTH_GAMES.format("")


def check_card(store: Store, system: str, pool: str = "standard", player: str = "PLAYER") -> None:
    """Refuse a card the store cannot give before any player is looked up, naming what
    it has: the card is FIDE's alone (K factors, the 400-point rule, the table of
    expected scores; no other system has one), so another ``system``, or a store
    without fide/``pool`` ratings, is a ``ValueError`` (exit 2) that names the systems
    the store has rated and the commands that show a player's rows there (``history``,
    ``audit``); a store without published ratings cannot be rated with fide at all,
    and the message says so instead of sending the user to ``arpad rate --system fide``
    (docs/cli.md "card")."""
    fide = FideSystem.name
    rated = store.rated()
    others = [f"{s}/{p}" for s, p in rated if s != fide or p != pool]
    other = next((s for s, p in rated if s != fide and p == pool), None)
    other = other or next((s for s, p in rated if s != fide), None)
    see = (
        f"; for a player's {other} rows use arpad history {_quoted(player)} --system {other} "
        f"(or arpad audit {_quoted(player)} --system {other})"
        if other
        else ""
    )
    has = (
        f"this store has ratings of {', '.join(others)}" if others else "this store has no ratings"
    )
    if system != fide:
        raise ValueError(
            f"arpad card is FIDE's rating card only (the per-game breakdown of a FIDE rating "
            f"change), not {system}'s; {has}{see}"
        )
    if store.rating_periods(fide, pool):
        return
    from arpad.pipeline.jobs import has_published_ratings

    if not has_published_ratings(store):
        why = (
            "and fide cannot be rated here: it needs published starting ratings, which "
            "neither the players table nor the games give (a historical store)"
        )
    else:
        why = f"(arpad rate --system fide --pool {pool} gives them)"
    raise ValueError(
        f"no FIDE rating card: the card is FIDE's only and the store has no {fide}/{pool} "
        f"ratings {why}; {has}{see}"
    )


def _quoted(text: str) -> str:
    """``text`` as a shell word (a name with blanks or a comma in quotes)."""
    import shlex

    return shlex.quote(text)


def latest_period(store: Store, pool: str = "standard") -> int:
    """The card's default period: the latest period with stored FIDE ratings of ``pool``."""
    periods = store.rating_periods(FideSystem.name, pool)
    if not periods:
        raise ValueError(
            f"no {FideSystem.name} ratings for pool {pool}; run arpad rate --system fide first"
        )
    return max(periods)


def rating_card(
    store: Store,
    player_id: str,
    period: int,
    pool: str = "standard",
    rules: FideRules | None = None,
    overrides: dict[str, str] | None = None,
    con=None,
    cache: dict | None = None,
) -> Card:
    """The card of ``player_id`` for ``period`` (FIDE ratings of ``pool`` must be stored).

    ``con``: an open ``catalog.connect(store)`` connection to reuse for many cards;
    ``cache``: a dict kept across the cards of one batch (``arpad site``), so that each
    period's ratings, the players' names and the alias map are read once.
    Merged ids count as the id they were merged into (docs/identity.md "Merged ids
    everywhere"): a duplicate's card is its keep's, whose games include the
    duplicate's, and an opponent's duplicate id shows as the kept id.
    """
    from arpad.pipeline import identity

    aliases = _memo(cache, "aliases", lambda: identity.alias_map(store))
    player_id = aliases.get(player_id, player_id)  # a merged duplicate: its kept id
    own_ids = [player_id, *sorted(d for d, keep in aliases.items() if keep == player_id)]
    if rules is None:
        rules = _memo(cache, ("rules", pool, period), lambda: _run_rules(store, pool, period))
    rules = apply_overrides(rules, overrides or {})
    close = closing_month(period, rules.list_months)
    months = [
        m
        for m in _memo(cache, ("periods", pool), lambda: store.periods(pool))
        if m <= period and closing_month(m, rules.list_months) == close
    ]
    if period not in months:
        months.append(period)
    pd_table = pd_high_by_diff()
    own_con = con is None
    con = catalog.connect(store) if own_con else con
    try:
        rows = {
            m: _memo(cache, ("ratings", pool, m), lambda m=m: _ratings(con, pool, m, store))
            for m in months
        }
        me = rows[period].get(player_id)
        if me is None:
            raise ValueError(
                f"no FIDE {pool} rating row for {player_id} in period {period} "
                "(run arpad rate --system fide first, or check the id)"
            )
        before = _int(me["rating_before"])
        adjustment = _int(me["adjustment"])
        card = Card(
            player_id=player_id,
            system=FideSystem.name,
            pool=pool,
            period=period,
            rules=rules.name,
            status=me["status"],
            rating_before=before,
            adjustment=adjustment,
            rating_in_force=None if before is None else before + (adjustment or 0),
            stored_change=me["change"],
            rating_after=me["rating_after"],
            k=_int(me["k"]),
        )
        total100 = 0
        for m in months:
            files = [str(f) for f in store.game_files(pool, m)]
            if not files:
                continue
            if cache is None:
                found = con.execute(_GAMES_SQL, [files, own_ids, own_ids]).fetchall()
            else:  # many cards: the month's games read once, indexed by player
                listed, by_player = _memo(
                    cache, ("games", pool, m), lambda f=files: _games_by_player(con, f)
                )
                mine = sorted({i for p in own_ids for i in by_player.get(p, ())})
                found = [listed[i] for i in mine]
            games = [
                (game_id, event, aliases.get(white, white), aliases.get(black, black), score)
                for game_id, event, white, black, score in found
            ]
            card.games.extend(_month_games(m, player_id, games, rows[m], rules, pd_table))
        opponents = {g.opponent for g in card.games}
        names = (
            _names(store, opponents)
            if cache is None
            else _memo(cache, "names", lambda: _names(store))
        )
        for g in card.games:
            g.opponent_name = names.get(g.opponent)
            if g.delta is not None:
                total100 += round_hundredths(g.delta)
        card.sum_delta = total100 / 100
        _performance(card)
        card.pending = rules.list_months > 1 and periods.month_index(period) != close
        if card.rating_in_force is not None and card.k is not None:
            card.unrounded = card.k * total100 / 100
            card.change = int(div_round_half_away(card.k * total100, 100))
        elif card.rating_in_force is not None:
            card.change = 0  # no game against a rated opponent
        return card
    finally:
        if own_con:
            con.close()


def _games_by_player(con, files: list[str]) -> tuple[list[tuple], dict[str, list[int]]]:
    """The rated games of ``files`` in ``_GAMES_SQL``'s order, and each player's rows in
    it: a player's games are the rows ``_GAMES_SQL`` selects for that player alone."""
    rows = con.execute(_ALL_GAMES_SQL, [files]).fetchall()
    by_player: dict[str, list[int]] = {}
    for i, (_, _, white, black, _) in enumerate(rows):
        by_player.setdefault(white, []).append(i)
        by_player.setdefault(black, []).append(i)
    return rows, by_player


def _performance(card: Card) -> None:
    """Rc, p and Rp of the games that count (FIDE B.02 table 8.1.1; docs/fide-history.md
    "Rating card"): Rc the average of the opponents' ratings and p the whole percentage
    scored, both rounded half up as the Title Regulations round Ra and p."""
    from arpad.kernels.rounding import round_half_up
    from arpad.pipeline.rules import dp_by_percent

    counted = [g for g in card.games if g.difference is not None]
    card.rated_games = len(counted)
    if not counted:
        return
    card.rc = int(round_half_up(sum(g.opponent_rating for g in counted) / len(counted)))
    card.percent = int(round_half_up(100 * sum(g.score for g in counted) / len(counted)))
    card.rp = card.rc + int(dp_by_percent()[card.percent])


def round_hundredths(x: float) -> int:
    """ΔR values are exact hundredths (scores in halves, PD in hundredths)."""
    return int(x * 100 + (0.5 if x >= 0 else -0.5))


def _ratings(con, pool: str, period: int, store: Store) -> dict[str, dict]:
    # The period's own partition file (much faster than the ratings view over every file).
    files = sorted(
        str(f) for f in store.rating_partition(FideSystem.name, pool, period).glob("*.parquet")
    )
    if not files:
        return {}
    table = catalog.query_arrow(con, _RATINGS_SQL, [files])
    return {r["player_id"]: r for r in table.to_pylist()}


def _run_rules(store: Store, pool: str, period: int) -> FideRules:
    """The dated version the stored run used for ``period`` (the ``rules`` name of its
    ratings rows), else the version in force then (``rules_for``)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    system = FideSystem()
    used: set[str] = set()
    for f in sorted(store.rating_partition(FideSystem.name, pool, period).glob("*.parquet")):
        column = pq.read_table(f, columns=["rules"]).column("rules")
        used.update(v for v in pc.unique(column).to_pylist() if v)
    by_name = {v.name: v for v in system.rule_versions(pool)}
    if len(used) == 1 and (name := used.pop()) in by_name:
        return by_name[name]
    return system.rules_for(period, pool)


def _names(store: Store, ids: set[str] | None = None) -> dict[str, str]:
    """player_id → name for ``ids`` (default: everybody; players without a name are left out)."""
    players = store.read_players().select(["player_id", "name"]).to_pylist()
    return {
        p["player_id"]: p["name"]
        for p in players
        if (ids is None or p["player_id"] in ids) and p["name"]
    }


def _memo(cache: dict | None, key, make):
    if cache is None:
        return make()
    if key not in cache:
        cache[key] = make()
    return cache[key]


def _int(value) -> int | None:
    return None if value is None else int(value)


def _in_force(row: dict | None) -> int | None:
    if row is None or row["rating_before"] is None:
        return None
    return int(row["rating_before"]) + int(row["adjustment"] or 0)


def _month_games(period, player_id, games, ratings, rules: FideRules, pd_table) -> list[CardGame]:
    own = _in_force(ratings.get(player_id))
    out: list[CardGame] = []
    for game_id, event_id, white, black, score in games:
        is_white = white == player_id
        opp = black if is_white else white
        opp_rating = _in_force(ratings.get(opp))
        own_score = score if is_white else 1.0 - score
        g = CardGame(period, game_id, event_id, "white" if is_white else "black", opp,
                     opp_rating, None, None, None, own_score, None)  # fmt: skip
        if opp_rating is None:
            g.note = "opponent unrated: not rated for this player"
        elif own is None:
            g.note = "player unrated: pooled for an initial rating (§8.2)"
        elif unrated_by_difference(rules, own, opp_rating, True, True):
            g.note = f"not rated: difference ≥ {rules.unrated_diff_from} with a player above 2600"
        else:
            g.difference = own - opp_rating
        out.append(g)
    counted = [g for g in out if g.difference is not None]
    for i, g in enumerate(counted):
        d = g.difference
        exempt = rules.cap_exempt_from is not None and own >= rules.cap_exempt_from
        if not exempt:
            if d < -rules.diff_cap:
                d = -rules.diff_cap
            elif d > rules.diff_cap:
                d = rules.diff_cap
                if rules.cap_once_per_event:
                    rivals = [h for h in counted if h.event_id == g.event_id]
                    best = max(rivals, key=lambda h: (h.difference, -counted.index(h)))
                    if best is not g:
                        d = g.difference
                        g.note = "400-point upgrade taken by another game of the event"
        g.difference_used = d
        a = min(abs(d), pd_table.shape[0] - 1)
        pd100 = int(pd_table[a]) if d >= 0 else 100 - int(pd_table[a])
        g.pd = pd100 / 100
        g.delta = (round_hundredths(g.score) - pd100) / 100
        del i
    return out


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters (… marks a cut)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _round(game_id: str) -> str:
    """The round named by a TRF game id (``…:r7:…``, pipeline/trf.py), else ``-``: the
    games schema has no round column."""
    import re

    found = re.search(r":r(\d+):[^:]*$", game_id)
    return found.group(1) if found else "-"


def _result(score: float) -> str:
    return {1.0: "1", 0.5: "½", 0.0: "0"}.get(score, f"{score:g}")


def format_card(card: Card) -> str:
    """The card as text, one line per game, then the sum, K, rounding and the stored change."""
    head = f"{card.player_id}  {card.system}/{card.pool}  period {card.period}  rules {card.rules}"
    lines = [f"Rating card: {head}", f"status: {card.status}"]
    if card.rating_in_force is None:
        lines.append("not rated at the start of the period (no rating change)")
    else:
        start = f"rating at the start: {card.rating_before}"
        if card.adjustment:
            start += (
                f", adjustment {card.adjustment:+d} (the 2024 compression or a change "
                f"published late by a two-monthly list) → {card.rating_in_force}"
            )
        lines.append(start)
    k_game = card.k if card.rating_in_force is not None else None
    lines.append(
        f"{'period':>7} {'rd':>3} {'col':<3} {'opponent':<12} {'name':<24} {'opp':>7} {'D':>5} "
        f"{'D used':>6} {'PD':>5} {'res':>3} {'ΔR':>6} {'K×ΔR':>7}  {'event':<12} game"
    )
    for g in card.games:

        def num(v, fmt, width):
            # an empty value keeps the column's width (rows against unrated opponents align)
            return format(v, fmt) if v is not None else "-".rjust(width)

        opp = "unrated" if g.opponent_rating is None else str(g.opponent_rating)
        contribution = None if g.delta is None or k_game is None else k_game * g.delta
        lines.append(
            f"{g.period:>7} {_round(g.game_id):>3} {'W' if g.colour == 'white' else 'B':<3} "
            f"{_cut(g.opponent, 12):<12} "
            f"{_cut(g.opponent_name or '', 24):<24} {opp:>7} {num(g.difference, '>+5', 5)} "
            f"{num(g.difference_used, '>+6', 6)} {num(g.pd, '>5.2f', 5)} "
            f"{_result(g.score):>3} {num(g.delta, '>+6.2f', 6)} "
            f"{num(contribution, '>+7.2f', 7)}  {_cut(g.event_id or '-', 12):<12} {g.game_id}"
        )
        if g.note:
            lines.append(f"{'':>7} {'':>3} {'':<3} ({g.note})")
    if card.rc is not None:
        score = sum(g.score for g in card.games if g.difference is not None)
        dp = card.rp - card.rc
        lines.append(
            f"Rc = {card.rc} (average of {card.rated_games} rated opponent(s))   "
            f"score {score:g}/{card.rated_games} = {card.percent} %   "
            f"Rp = Rc + dp = {card.rc} {'+' if dp >= 0 else '-'} {abs(dp)} = {card.rp}"
        )
    if card.rating_in_force is not None:
        k = "-" if card.k is None else str(card.k)
        lines.append(
            f"ΣΔR = {card.sum_delta:+.2f}   K = {k}   K × ΣΔR = {card.unrounded:+.2f}   "
            f"rounded half away from zero = {card.change:+d}"
        )
        if card.pending:
            lines.append("two-monthly list: the change is published with the closing month")
        else:
            stored = "-" if card.stored_change is None else f"{card.stored_change:+.0f}"
            mark = "matches" if card.matches else "DIFFERS (rules other than the card's?)"
            lines.append(f"stored change = {stored}  ({mark})")
            if card.rating_after is not None:
                lines.append(f"rating after: {card.rating_after:.0f}")
    return "\n".join(lines) + "\n"
