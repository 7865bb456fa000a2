"""FIDE rating card: the per-game breakdown of one player's change in one period.

Recomputed one game at a time from the stored games and the stored ratings in
force (``rating_before + adjustment`` of the period), with exactly the rules the
stored run used for the period (rebuilt from the ``rules`` name of its ratings rows:
the version, a rules file's changed fields, ``--set``'s; else from the run's
checkpoint record; either only when its ``rules_hash`` is the rows'), or the ones
given, so that a rating officer can follow every step:

    D = own − opponent, after the 400-point rule (B.02 §8.3.1: cap, 2650 exemption,
    once-per-event upgrade in the 2022-01 version); PD from table 8.1.2;
    ΔR = score − PD; change = K × ΣΔR rounded half away from zero (§8.3.4).

The card's rounded total must equal the stored change; ``matches`` says so.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction

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
class InitialRating:
    """The initial rating (B.02 §8.2) recomputed from the pooled games of a player not
    rated at the start of the period: the card of a ``new`` row (and of an ``unrated``
    one, which says why no rating is published yet)."""

    method: str  # "2024": two hypothetical 1800 draws; "2022": +20 per half point
    months: list[int]  # the periods whose games were pooled (within initial_pool_months)
    games: int  # n: pooled games against rated opponents
    score: float  # W
    opp_sum: int  # ΣR of the rated opponents
    disregarded: str | None = None  # the first event with a zero score (§8.2.1)
    disregarded_months: list[int] = field(default_factory=list)  # the months of its games
    disregarded_games: int = 0
    disregarded_ids: list[str] = field(default_factory=list)  # their game ids
    hypothetical_games: int = 0
    hypothetical_rating: int = 0
    ra_num: int = 0  # Ra = ra_num / ra_den
    ra_den: int = 1
    percent: int | None = None  # p as a whole percentage (half up), the dp lookup
    dp: int | None = None
    half_points_above: int | None = None  # 2022 method above 50 %
    per_half_point: float | None = None
    unrounded: float | None = None  # Ra + dp (or + per half point)
    rounded: int | None = None  # half away from zero
    cap: int = 0  # maximum initial rating (0: none)
    rating: int | None = None  # Ru after the cap
    min_games: int = 5
    floor: int = 1400
    published: bool = False
    reason: str = ""
    stored: float | None = None  # the stored rating_after

    @property
    def ra(self) -> float:
        return self.ra_num / self.ra_den

    @property
    def capped(self) -> bool:
        return self.rounded is not None and self.rating is not None and self.rating < self.rounded

    @property
    def matches(self) -> bool:
        if not self.published:
            return self.stored is None
        return self.stored is not None and int(self.stored) == self.rating


@dataclass
class KFactor:
    """K recomputed from the player's state at the start of the period (§8.3.3): the
    base K and its reason, then the K × n ≤ 700 cap over the games on the list."""

    base: int
    reason: str
    rated_games_before: int
    games: int  # n: the games that count in the rating period so far
    cap: int  # k_times_games_max (0: none)
    k: int
    stored: int | None
    pending: bool = False  # two-monthly, not the closing month: capped when it closes

    @property
    def capped(self) -> bool:
        return self.k != self.base

    @property
    def matches(self) -> bool:
        return self.stored is None or self.stored == self.k


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
    # Where the adjustment comes from (the compression, a late two-monthly list).
    adjustment_reason: str | None = None
    # Where the rating at the start came from when it is not the player's previous
    # rating (a stated rating re-seeded him, docs/observations.md); a single card only.
    start_source: str | None = field(default=None, compare=False)
    # K's derivation (rated rows with games that count) and the initial rating's
    # (players not rated at the start), both recomputed (docs/cli.md "card"); a batch's
    # cards (``arpad site``) have neither, and are equal to the single cards without.
    k_factor: KFactor | None = field(default=None, compare=False)
    initial: InitialRating | None = field(default=None, compare=False)
    # Set when the rules of the stored run could not be rebuilt (ratings of a rules file
    # stored before arpad named its fields, no checkpoint of that run): the one line the
    # card prints instead of claiming DIFFERS, as its figures were not checked.
    rules_note: str | None = None
    # A period before the oldest FIDE version arpad carries, rated with that version
    # (a run without --rules): the note of ``arpad rate`` / ``rules --at`` for it, which
    # the card prints under its header (historian round 14: "rules FIDE 2000-01" alone
    # for 1975 read as the rules of 1975).
    early_rules: str | None = field(default=None, compare=False)

    @property
    def matches(self) -> bool:
        if self.k_factor is not None and not self.k_factor.matches:
            return False
        if self.initial is not None:
            return self.initial.matches
        if self.pending:
            return True
        if self.stored_change is None:  # no change stored: the card must find none
            return self.change in (None, 0)
        return self.change == int(self.stored_change)

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["matches"] = self.matches
        if self.k_factor is not None:
            out["k_factor"]["capped"] = self.k_factor.capped
            out["k_factor"]["matches"] = self.k_factor.matches
        if self.initial is not None:
            out["initial"]["ra"] = self.initial.ra
            out["initial"]["capped"] = self.initial.capped
            out["initial"]["matches"] = self.initial.matches
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
_DAYS_SQL = """
SELECT game_id, date FROM read_parquet(?)
WHERE rated AND (list_contains(?, white_id) OR list_contains(?, black_id))
"""
_GAMES_SQL = _MONTH_GAMES.format(" AND (list_contains(?, white_id) OR list_contains(?, black_id))")
_ALL_GAMES_SQL = _MONTH_GAMES.format("")


def check_card(store: Store, system: str, pool: str = "standard", player: str = "PLAYER") -> None:
    """Refuse a card the store cannot give before any player is looked up, naming what
    it has: the card is FIDE's alone (K factors, the 400-point rule, the table of
    expected scores; no other system has one), so another ``system``, or a store
    without fide/``pool`` ratings, is a ``ValueError`` (exit 2) that names the systems
    the store has rated and the commands that show a player's rows there (``history``,
    ``audit``: of the system asked for when the store has it, none named when it has not;
    for fide, of another system the store has); a store without published ratings cannot be rated with fide at all,
    and the message says so instead of sending the user to ``arpad rate --system fide``
    (docs/cli.md "card")."""
    fide = FideSystem.name
    rated = store.rated()
    # for another system asked for, every rated pair (its fide ratings too: "this store
    # has no ratings" was said of a store rated with fide only, hostile round 9)
    others = [f"{s}/{p}" for s, p in rated if system != fide or s != fide or p != pool]
    if system != fide:  # the rows of the system asked for, else none named
        other = system if any(s == system for s, _ in rated) else None
    else:
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
    from arpad.pipeline.jobs import has_published_ratings, rated_pools

    if not has_published_ratings(store):
        why = (
            "and fide cannot be rated here: it needs published starting ratings, which "
            "neither the players table nor the games give (a historical store)"
        )
    elif not has_published_ratings(store, pool):
        why = (
            f"and fide cannot rate pool {pool} here: it needs published starting ratings "
            f"of that pool, and the store's ratings are of pool "
            f"{' and '.join(rated_pools(store))} only (give {pool} ratings: arpad ingest "
            "--players FILE; docs/observations.md)"
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


def latest_period(store: Store, pool: str = "standard", player_id: str | None = None) -> int:
    """The card's default period: the latest period with stored FIDE ratings of ``pool``
    in which ``player_id`` (if given) has a row, else the latest rated period (a player
    without a game then, unrated, has no row in it)."""
    periods = store.rating_periods(FideSystem.name, pool)
    if not periods:
        raise ValueError(
            f"no {FideSystem.name} ratings for pool {pool}; run arpad rate --system fide first"
        )
    if player_id is not None:
        con = catalog.connect(store)
        try:
            had = [r["period"] for r in _player_rows(con, pool, player_id, 10**9)]
        finally:
            con.close()
        if had:
            return max(had)
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
    explain: bool | None = None,
) -> Card:
    """The card of ``player_id`` for ``period`` (FIDE ratings of ``pool`` must be stored).

    ``con``: an open ``catalog.connect(store)`` connection to reuse for many cards;
    ``cache``: a dict kept across the cards of one batch (``arpad site``), so that each
    period's ratings, the players' names and the alias map are read once.
    ``explain``: also recompute K's derivation and, for a player not rated at the start,
    the initial rating from his pooled games (each reads the player's earlier rows);
    default: for a single card (no ``cache``).
    Merged ids count as the id they were merged into (docs/identity.md "Merged ids
    everywhere"): a duplicate's card is its keep's, whose games include the
    duplicate's, and an opponent's duplicate id shows as the kept id.
    """
    from arpad.pipeline import identity

    explain = cache is None if explain is None else explain
    fixed = rules is not None  # --rules: the same rules for the earlier periods too
    note = None
    aliases = _memo(cache, "aliases", lambda: identity.alias_map(store))
    player_id = aliases.get(player_id, player_id)  # a merged duplicate: its kept id
    own_ids = [player_id, *sorted(d for d, keep in aliases.items() if keep == player_id)]
    if rules is None:
        rules, note = _memo(
            cache, ("rules", pool, period), lambda: _stored_rules(store, pool, period)
        )
        note = None if overrides else note  # --set: the rules are the user's to say
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

        def ratings_of(m: int) -> dict[str, dict]:
            return _memo(cache, ("ratings", pool, m), lambda: _ratings(con, pool, m, store))

        def month_games(m: int) -> list[CardGame]:
            """The player's games of month ``m``, rated with the ratings in force in ``m``."""
            files = [str(f) for f in store.game_files(pool, m)]
            if not files:
                return []
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
            return _month_games(m, player_id, games, ratings_of(m), rules, pd_table)

        def days_of(m: int) -> dict:
            """game_id → date of the player's games of month ``m`` (the first event is
            the one of his earliest game, §8.2.1)."""
            files = [str(f) for f in store.game_files(pool, m)]
            if not files:
                return {}
            return dict(con.execute(_DAYS_SQL, [files, own_ids, own_ids]).fetchall())

        rows = {m: ratings_of(m) for m in months}
        me = rows[period].get(player_id)
        if me is None:
            raise ValueError(_no_row(store, pool, player_id, period))
        before = _int(me["rating_before"])
        adjustment = _int(me["adjustment"])
        card = Card(
            player_id=player_id,
            system=FideSystem.name,
            pool=pool,
            period=period,
            rules=rules.name,
            rules_note=note,
            early_rules=None if fixed else _early_rules(pool, period, rules),
            status=me["status"],
            rating_before=before,
            adjustment=adjustment,
            rating_in_force=None if before is None else before + (adjustment or 0),
            stored_change=me["change"],
            rating_after=me["rating_after"],
            k=_int(me["k"]),
        )
        if adjustment and before is not None:
            card.adjustment_reason = _adjustment_reason(store, pool, period, rules, before)
        total100 = 0
        for m in months:
            card.games.extend(month_games(m))
        history = None
        if explain:
            history = _player_rows(con, pool, player_id, period)
            if before is not None:
                card.start_source = _start_source(
                    store, con, pool, own_ids, period, before, history
                )
        if explain and card.rating_in_force is None:
            card.initial = _initial_rating(
                history, period, rules, month_games, me["rating_after"], days_of
            )
            # the pooled games of earlier months (and a disregarded first event's),
            # before the period's own (§8.2)
            shown = {g.period for g in card.games}
            wanted = {*card.initial.months, *card.initial.disregarded_months}
            earlier = sorted(m for m in wanted if m not in shown)
            card.games[:0] = [g for m in earlier for g in month_games(m)]
            _mark_disregarded(card)
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
        if explain and card.rating_in_force is not None and card.rated_games:

            def rules_at(m: int) -> FideRules:
                """The rules of an earlier period (the card's own with --rules)."""
                if fixed:
                    return rules
                at = _memo(cache, ("rules", pool, m), lambda: _stored_rules(store, pool, m))
                return apply_overrides(at[0], overrides or {})

            def pooled(m: int, earlier: list[dict]) -> int:
                """The games of an earlier ``new`` row's pool: his rated games then."""
                return _initial_rating(earlier, m, rules_at(m), month_games, None, days_of).games

            card.k_factor = _k_factor(store, history, card, rules, pooled, rules_at)
        return card
    finally:
        if own_con:
            con.close()


def _no_row(store: Store, pool: str, player_id: str, period: int) -> str:
    """Why the card has no ratings row: a period without games is no rated period (the
    nearest rated ones named, as ``arpad list --period`` names the rated periods), a
    period whose games are not rated yet, or a player without a row in a rated period."""
    rated = store.rating_periods(FideSystem.name, pool)
    if rated and period not in rated:
        span = f"rated periods: {rated[0]}..{rated[-1]}, {len(rated)} in all"
        if period in store.periods(pool):
            return (
                f"no FIDE {pool} ratings for period {period}: its games are not rated yet "
                f"(arpad rate --system fide --pool {pool}; {span})"
            )
        earlier = [p for p in rated if p < period]
        later = [p for p in rated if p > period]
        nearest = [f"{earlier[-1]} before"] if earlier else []
        nearest += [f"{later[0]} after"] if later else []
        return (
            f"no FIDE {pool} rating card for period {period}: the store has no {pool} games "
            f"in {period}, so it is no rated period (nearest rated: {', '.join(nearest)}; "
            f"{span})"
        )
    con = catalog.connect(store)
    try:
        had = sorted({r["period"] for r in _player_rows(con, pool, player_id, 10**9)})
    finally:
        con.close()
    if had:  # a player without a game that period (an unrated one has no row then)
        return (
            f"no FIDE {pool} rating row for {player_id} in period {period}: the player has rows in "
            f"{len(had)} period(s), {had[0]}..{had[-1]} (arpad card {player_id} "
            f"--period {had[-1]})"
        )
    return (
        f"no FIDE {pool} rating row for {player_id} in period {period} "
        "(run arpad rate --system fide first, or check the id)"
    )


def _adjustment_reason(store: Store, pool: str, period: int, rules: FideRules, before: int) -> str:
    """Which adjustment a row's is, from the rules and the period: the one-time
    compression when the run crossed its date at ``period`` (worked out), a change of a
    two-monthly rating period published late when two-monthly lists were in force."""
    import numpy as np

    from arpad.pipeline.systems.fide import compression_applies, compression_increase

    rated = store.rating_periods(FideSystem.name, pool)  # one listing of the folders
    previous = max((p for p in rated if p < period), default=None)
    two_monthly = rules.list_months > 1 or (
        previous is not None and FideSystem().rules_for(previous, pool).list_months > 1
    )
    late = "a change of a two-monthly rating period published late (its closing month had no games)"
    if compression_applies(rules, previous, period):
        increase = int(compression_increase(rules, np.array([before]))[0])
        gap = max(rules.compression_below - before, 0)
        text = (
            f"the one-time compression of {rules.compression_date}: "
            f"{rules.compression_factor:g} × ({rules.compression_below} − {before}) = "
            f"{rules.compression_factor * gap:g} → {increase:+d}"
        )
        return f"{text}, and {late}" if two_monthly else text
    if two_monthly:
        return late
    return (
        f"neither the compression nor a late two-monthly list explains it under "
        f"{rules.name} in {period}"
    )


# The first game of ``?`` files where one of the ids stated a rating in [low, high).
_STATED_SQL = """
SELECT source FROM read_parquet(?, filename = true, file_row_number = true, union_by_name = true)
WHERE (list_contains(?, white_id) AND white_rating >= ? AND white_rating < ?)
   OR (list_contains(?, black_id) AND black_rating >= ? AND black_rating < ?)
ORDER BY filename, file_row_number
LIMIT 1
"""


def _start_source(store: Store, con, pool: str, own_ids, period: int, before: int, history):
    """Where the rating at the start (``before``) came from when it is not the player's
    rating after his latest earlier row: the rating a source of the periods since stated
    (a dated observation, which re-seeded him: docs/observations.md), named with the
    previous rating. None when the start is the previous rating, or he has no earlier
    row (his starting rating). The latest period's statement is the one applied, and
    within a period a dated players-file row comes before the games' ratings."""
    import polars as pl
    import pyarrow.parquet as pq

    from arpad.pipeline import identity

    if not history:
        return None
    last = history[-1]
    after = last["rating_after"]
    if after is not None and _half_away(Fraction(after)) == before:
        return None
    if after is None:
        previous = f"the row of period {last['period']} had no rating"
    elif last.get("status") == "unrated":  # fell below the floor: on no list (§1.3.5)
        previous = (
            f"his row of period {last['period']} had {_half_away(Fraction(after))}, below "
            "the rating floor: unrated, not on the list"
        )
    else:
        previous = f"the list of period {last['period']} had {_half_away(Fraction(after))}"
        # the compression between: that list (or the next) shows his compressed rating
        from arpad.pipeline.lists import carried_values

        carried = carried_values(store, FideSystem(), pool, [after], last["period"], period)
        if int(carried[0]) != _half_away(Fraction(after)):
            previous = (
                f"his rating after period {last['period']} was {_half_away(Fraction(after))}, "
                f"{int(carried[0])} compressed"
            )
    low, high = before - 0.5, before + 0.5  # FIDE's seed rounds half away from zero
    given = identity.read_observations(store).filter(
        pl.col("player_id").is_in(own_ids)
        & (pl.col("pool").fill_null("standard") == pool)
        & (pl.col("rating") >= low)
        & (pl.col("rating") < high)
    )
    months = {*store.periods(pool), *given["period"].drop_nulls().to_list()}
    for m in sorted((m for m in months if last["period"] < m <= period), reverse=True):
        stated = None
        rows = given.filter(pl.col("period") == m).sort("source", "line")
        if rows.height:
            source, line = rows["source"][0], rows["line"][0]
            stated = f"{source} line {line}" if line is not None else source
        else:
            files = [
                str(f)
                for f in store.game_files(pool, m)
                if {"white_rating", "black_rating"} <= set(pq.read_schema(f).names)
            ]
            found = (
                files
                and con.execute(
                    _STATED_SQL, [files, own_ids, low, high, own_ids, low, high]
                ).fetchone()
            )
            if found:
                stated = found[0].rsplit(":", 1)[0] if ":" in found[0] else found[0]
        if stated is not None:
            where = "this period" if m == period else f"period {m}"
            return f"stated in {stated} for {where}; {previous}"
    return previous


_HISTORY_SQL = """
SELECT period, rating_before, adjustment, change, rating_after, games, status
FROM ratings WHERE system = ? AND pool = ? AND player_id = ? AND period < ?
ORDER BY period
"""


def _player_rows(con, pool: str, player_id: str, period: int) -> list[dict]:
    """The player's FIDE rows before ``period``, oldest first (NaN read as None)."""
    rows = catalog.query_arrow(con, _HISTORY_SQL, [FideSystem.name, pool, player_id, period])
    return [{k: _none(v) for k, v in r.items()} for r in rows.to_pylist()]


def _eighteenth(born):
    """The 18th birthday of a player born on ``born`` (29 February: 1 March)."""
    import datetime as dt

    try:
        return born.replace(year=born.year + 18)
    except ValueError:
        return dt.date(born.year + 18, 3, 1)


def _none(value):
    return None if isinstance(value, float) and value != value else value


def _half_away(x) -> int:
    """A Fraction rounded to a whole number, half away from zero (§8.2: Ru)."""
    import math

    return math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))


def _half_up_percent(x) -> int:
    """A fraction of 1 as a whole percentage, 0.5 rounded up (Title Regulations 1.4.9)."""
    import math

    return math.floor(100 * x + Fraction(1, 2))


def _initial_rating(
    history, period, rules: FideRules, month_games, stored, days_of
) -> InitialRating:
    """Ru of a player not rated at the start of ``period``, recomputed from his games:
    the months pooled are those since he was last rated (or made ``new``) within
    ``initial_pool_months``, in which he played while unrated; each pools its games
    against opponents rated in force then. His first event ever is the event of his
    earliest such game (by date, then file order; games without an event id are one
    event per month); while its pooled games score zero they are disregarded (§8.2.1).
    Then Ra, p, dp, Ru and the maximum, published when n ≥ ``initial_min_games`` and
    Ru ≥ the floor (§7.1.4)."""
    import datetime as dt

    from arpad.pipeline.rules import dp_by_percent

    earlier = [r for r in history if r["period"] < period]
    reset = max(
        (r["period"] for r in earlier if r["rating_before"] is not None or r["status"] == "new"),
        default=None,
    )
    unrated = [r["period"] for r in earlier if r["rating_before"] is None and r["status"] != "new"]
    unrated.append(period)
    counted: dict[int, list[CardGame]] = {}

    def rated_opponents(m: int) -> list[CardGame]:
        if m not in counted:
            counted[m] = [g for g in month_games(m) if g.opponent_rating is not None]
        return counted[m]

    started = next((m for m in unrated if rated_opponents(m)), None)
    now = periods.month_index(period)
    out = InitialRating(
        method=rules.initial_method, months=[], games=0, score=0.0, opp_sum=0,
        min_games=rules.initial_min_games, floor=rules.rating_floor, cap=rules.initial_max,
        stored=_none(stored),
    )  # fmt: skip
    first = None  # the first event: (event id, None), or (None, month) without an id
    if started is not None and rules.initial_ignore_zero_first_event:
        games = rated_opponents(started)
        days = days_of(started)
        at = min(range(len(games)), key=lambda i: (days.get(games[i].game_id) or dt.date.min, i))
        event = games[at].event_id
        first = (event, None) if event is not None else (None, started)

    def in_first(g: CardGame) -> bool:
        return first is not None and (g.event_id, None if first[0] else g.period) == first

    window = [
        m
        for m in unrated
        if (reset is None or m > reset) and periods.month_index(m) > now - rules.initial_pool_months
    ]
    firsts = [g for m in window for g in rated_opponents(m) if in_first(g)]
    if firsts and sum(g.score for g in firsts) == 0:
        out.disregarded = first[0] or "(no event id)"
        out.disregarded_months = sorted({g.period for g in firsts})
        out.disregarded_games = len(firsts)
        out.disregarded_ids = [g.game_id for g in firsts]
    score2 = 0
    for m in window:
        games = [g for g in rated_opponents(m) if g.game_id not in out.disregarded_ids]
        if not games:
            continue
        out.months.append(m)
        out.games += len(games)
        score2 += sum(round_hundredths(g.score) // 50 for g in games)
        out.opp_sum += sum(g.opponent_rating for g in games)
    out.score = score2 / 2
    n = out.games
    if n < rules.initial_min_games:
        out.reason = (
            f"not published: {n} game(s) against rated opponents < {rules.initial_min_games} "
            "(§7.1.4; the games stay pooled)"
        )
        return out
    dp = dp_by_percent()
    if rules.initial_method == "2024":
        h = rules.initial_hypothetical_games
        out.hypothetical_games, out.hypothetical_rating = h, rules.initial_hypothetical_rating
        out.ra_num, out.ra_den = out.opp_sum + h * rules.initial_hypothetical_rating, n + h
        out.percent = _half_up_percent(Fraction(score2 + h, 2 * (n + h)))
        out.dp = int(dp[out.percent])
        exact = Fraction(out.ra_num, out.ra_den) + out.dp
    else:
        out.ra_num, out.ra_den = out.opp_sum, n
        above = score2 - n  # half points above 50 %
        exact = Fraction(out.ra_num, out.ra_den)
        if above > 0:
            out.half_points_above = above
            out.per_half_point = rules.initial_per_half_point
            exact += Fraction(str(rules.initial_per_half_point)) * above
        elif above < 0:
            out.percent = _half_up_percent(Fraction(score2, 2 * n))
            out.dp = int(dp[out.percent])
            exact += out.dp
    out.unrounded = float(exact)
    out.rounded = _half_away(exact)
    out.rating = min(out.rounded, rules.initial_max) if rules.initial_max > 0 else out.rounded
    out.published = out.rating >= rules.rating_floor
    out.reason = (
        f"published: {n} games ≥ {rules.initial_min_games} and {out.rating} ≥ the floor "
        f"{rules.rating_floor}"
        if out.published
        else f"not published: {out.rating} < the floor {rules.rating_floor} (the games stay "
        "pooled, §7.1.4)"
    )
    return out


def _mark_disregarded(card: Card) -> None:
    """Notes the games of the first event that §8.2.1 disregards (a zero score)."""
    init = card.initial
    if init is None or init.disregarded is None:
        return
    for g in card.games:
        if g.game_id in init.disregarded_ids:
            g.note = "first event with a zero score: disregarded (§8.2.1)"


def _k_factor(store: Store, history, card: Card, rules: FideRules, pooled, rules_at) -> KFactor:
    """K recomputed (§8.3.3): the rated games before the period (the players table's
    count, or 30 when it has none, or an initial rating's pooled games, plus the games of
    each published change since), the peak published rating, the player's age; then
    K × n ≤ 700 over the n games that count."""
    import pyarrow.compute as pc

    walked = {periods.month_index(r["period"]) for r in history}

    def closed(m: int) -> bool:
        """Whether the games of a two-monthly month ``m`` are in its closing month's row
        (else the next walked period published them late, as an adjustment)."""
        months = rules_at(m).list_months
        return months > 1 and closing_month(m, months) in walked

    from arpad.pipeline import engine

    # His facts as the engine reads them: a kept id's from its merged duplicates where
    # it has none (docs/identity.md "An id change").
    every, aliases = store.read_players(), engine.alias_arrays(store)
    players = engine.kept_players(every, aliases)
    mine = players.filter(pc.equal(players.column("player_id"), card.player_id)).to_pylist()
    info = {k: _none(v) for k, v in (mine[0] if mine else {}).items()}
    start = _undated_rating(store, card.player_id, card.pool, info.get("rating"), every, aliases)
    rated = start is not None
    games = 0
    # A count nobody gave (no rated_games in the players file, a rating read from a
    # published list) is taken as new_player_games (docs/rules.md): ``assumed`` says so,
    # ``since`` counts the games of the published changes added to it.
    assumed, since = False, 0
    known = info.get("rated_games")
    # A player first rated from a published rating (a dated players row, a stated
    # rating) starts with the players file's count when it gives one (the engine's seed).
    first = None if known is None or known < 0 else known
    if rated:
        assumed = first is None
        games = rules.new_player_games if assumed else known
        first = None
    peak = max(
        (_half_away(Fraction(v)) for v in (info.get("peak_rating"), start) if v is not None),
        default=0,
    )
    for r in history:
        if r["period"] >= card.period:
            break
        before = r["rating_before"]
        if r["status"] == "new":  # his rated games are the pooled ones (§8.2)
            games = pooled(r["period"], [h for h in history if h["period"] < r["period"]])
            rated, assumed, first = True, False, None
            peak = max(peak, int(r["rating_after"]))
            continue
        if before is None:
            continue
        if not rated:  # rated from a published rating: taken as established
            games, rated, assumed, since = rules.new_player_games, True, True, 0
            if first is not None:
                games, assumed, first = first, False, None
        peak = max(peak, int(before + (r["adjustment"] or 0)))
        if r["change"] is not None or (r["games"] and not closed(r["period"])):
            # a published change (a closing month), or games published late (an adjustment)
            games += int(r["games"])
            since += int(r["games"])
        if r["status"] == "unrated":  # fell below the floor
            rated = False
        elif r["rating_after"] is not None:
            peak = max(peak, int(r["rating_after"]))
    if not rated:
        # Rated at the start of this period from a rating a source stated (his own or a
        # merged duplicate's, observations.md): established, as the engine's seed.
        games, assumed, since = rules.new_player_games, True, 0
        if first is not None:
            games, assumed = first, False
    own = card.rating_in_force
    peak = max(peak, own)
    year = periods.year_of(card.period)
    born = info.get("birth_year")
    junior = (
        year is not None
        and born is not None
        and born > 0
        and rules.junior_rating_below > 0
        and year - born <= rules.junior_max_age
        and own < rules.junior_rating_below
    )
    # 2014-07 to 2024-02: "until their 18th birthday": a known birth date decides
    birthday = info.get("birth_date") if rules.junior_to_birthday else None
    if birthday is not None and year is not None:
        eighteen = _eighteenth(birthday)
        first = periods.first_day(card.period)
        junior = rules.junior_rating_below > 0 and own < rules.junior_rating_below
        junior = junior and first < eighteen
    if games < rules.new_player_games:
        base, why = (
            rules.k_new,
            (f"new player: {games} rated game(s) before the period < {rules.new_player_games}"),
        )
    elif junior and birthday is not None and year is not None:
        base, why = (
            rules.k_junior,
            (
                f"junior: born {birthday.isoformat()}, the period begins before the 18th "
                f"birthday, rating {own} < {rules.junior_rating_below}"
            ),
        )
    elif junior:
        base, why = (
            rules.k_junior,
            (
                f"junior: {year} − {born} = {year - born} ≤ {rules.junior_max_age}, "
                f"rating {own} < {rules.junior_rating_below}"
            ),
        )
    elif peak >= rules.high_rating:
        base, why = rules.k_high, f"peak published rating {peak} ≥ {rules.high_rating}"
    else:
        count = f"{games} rated games"
        if assumed:  # the card says it was not given (round 8, newuser8 #5)
            taken = rules.new_player_games
            count = f"rated games not known: taken as {taken}"
            if since:
                count += f", + {since} games since = {games}"
        base, why = rules.k_mid, f"{count}, peak rating {peak} < {rules.high_rating}"
    n = card.rated_games
    k = base
    cap = rules.k_times_games_max
    if not card.pending and cap > 0 and base * n > cap:
        k = cap // n
    return KFactor(base, why, games, n, cap, k, card.k, card.pending)


def _undated_rating(
    store: Store, player_id: str, pool: str, rating, players, aliases
) -> float | None:
    """The player's rating before the first period as the engine takes it
    (``engine.kept_undated_ratings``): the latest undated players-file rating of his own
    id, not the players table's, which a games file's stated rating may have written (a
    dated observation, seeded in its period); without one, a merged duplicate's
    (docs/identity.md "An id change"). None: not rated then."""
    import numpy as np

    from arpad.pipeline import engine

    given = np.array([np.nan if rating is None else rating], dtype=np.float64)
    value = engine.kept_undated_ratings(store, players, aliases, [player_id], given, None, pool)
    return None if np.isnan(value[0]) else float(value[0])


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


def _early_rules(pool: str, period: int, rules: FideRules) -> str | None:
    """``period 197506 is before the oldest version arpad carries (2000-01-01); the card
    uses it (FIDE 2000-01); known differences: …`` when ``period`` is before the oldest
    dated version of ``pool`` and ``rules`` are that version (with any changes): the
    note a run of that period gives (``base.before_oldest_note``; docs/fide-history.md
    "Before 2009-07"). None otherwise."""
    from arpad.pipeline.systems.base import before_oldest_note

    system = FideSystem()
    versions = system.rule_versions(pool)
    day = periods.first_day(period)
    if day is None or not versions or rules.effective != versions[0].effective:
        return None
    return before_oldest_note(
        system, pool, day.isoformat(), f"period {period} is", "the card uses it"
    )


def _run_rules(store: Store, pool: str, period: int) -> FideRules:
    """The dated version the stored run used for ``period`` (the ``rules`` name of its
    ratings rows), else the version in force then (``rules_for``)."""
    return _version_of(_stored_audit(store, pool, period)[0], pool, period)


def _version_of(names: set[str], pool: str, period: int) -> FideRules:
    """The dated version one stored ``rules`` name starts with (``FIDE 2014-07 +
    k_mid=15``, ``FIDE 2024-03 (my.json) + k_mid=25``: engine.named_version), else the
    version in force for ``period``."""
    from arpad.pipeline import engine

    system = FideSystem()
    if len(names) == 1:
        (name,) = names
        version = engine.named_version(system, engine.split_rules_name(name, FideRules())[0], pool)
        if version is not None:
            return version
    return system.rules_for(period, pool)


def _stored_audit(store: Store, pool: str, period: int) -> tuple[set[str], set[str], set[str]]:
    """The ``rules`` names, ``rules_hash`` values and ``run_id`` values of the period's
    stored ratings rows (nulls and columns an older file has not left out)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    found: dict[str, set[str]] = {"rules": set(), "rules_hash": set(), "run_id": set()}
    for f in sorted(store.rating_partition(FideSystem.name, pool, period).glob("*.parquet")):
        columns = [c for c in found if c in pq.read_schema(f).names]
        table = pq.read_table(f, columns=columns)
        for c in columns:
            found[c].update(v for v in pc.unique(table.column(c)).to_pylist() if v)
    return found["rules"], found["rules_hash"], found["run_id"]


def _stored_rules(store: Store, pool: str, period: int) -> tuple[FideRules, str | None]:
    """(rules, note): exactly the rules the stored run used for ``period``. The first of
    the rules its ``rules`` name describes (engine.rules_from_name: the version, a rules
    file's changed fields, ``--set``'s), its version, and the rules the ``replay``
    record of a checkpoint of that run gives (pipeline/predict.py), whose ``rules_hash``
    is the rows'; rows without one hash (older files): the version (``_version_of``).
    None of them: the version, and ``note`` the line the card prints instead of DIFFERS."""
    from arpad.pipeline import engine, predict

    names, hashes, runs = _stored_audit(store, pool, period)
    version = _version_of(names, pool, period)
    if len(hashes) != 1:
        return version, None
    (wanted,) = hashes
    system = FideSystem()

    def candidates():
        if len(names) == 1:
            yield engine.rules_from_name(system, next(iter(names)), pool)
        yield version
        yield predict._run_rules(store, FideSystem.name, pool, period, runs)

    for rules in candidates():
        if rules is not None and engine.rules_hash(rules) == wanted:
            return rules, None
    name = " / ".join(sorted(names)) or "no name"
    return version, (
        f"not checked: the rules of the stored run ({name}, rules_hash {wanted}) cannot be "
        f"rebuilt from the store (a rules file rated before arpad named its changed "
        f"fields, no checkpoint of that run left); the card used {version.name}: give the "
        f"run's --rules FILE or --set to check"
    )


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
    if card.early_rules:  # 1975 rated with FIDE 2000-01: said, as rate and rules --at say it
        lines.insert(1, f"note: {card.early_rules}")
    if card.rating_in_force is None:
        lines.append("not rated at the start of the period (no rating change)")
    else:
        start = f"rating at the start: {card.rating_before}"
        if card.start_source:  # not the previous rating: where it came from
            start += f" ({card.start_source})"
        if card.adjustment:
            why = card.adjustment_reason or (
                "the 2024 compression or a change published late by a two-monthly list"
            )
            start += f", adjustment {card.adjustment:+d} ({why}) → {card.rating_in_force}"
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
        # the stored run's rules not rebuilt: one line says so, no DIFFERS (unchecked)
        unchecked = card.rules_note is not None and not card.matches
        if card.k_factor is not None:
            lines.extend(_k_lines(card.k_factor, card.rules, flag=not unchecked))
        if card.pending:
            lines.append("two-monthly list: the change is published with the closing month")
        else:
            stored = "-" if card.stored_change is None else f"{card.stored_change:+.0f}"
            mark = "matches" if card.matches else "DIFFERS (rules other than the card's?)"
            lines.append(f"stored change = {stored}" + ("" if unchecked else f"  ({mark})"))
            if card.rating_after is not None:
                lines.append(f"rating after: {card.rating_after:.0f}")
        if unchecked and card.initial is None:
            lines.append(card.rules_note)
    if card.initial is not None:
        unchecked = card.rules_note is not None and not card.initial.matches
        lines.extend(_initial_lines(card.initial, None if not unchecked else card.rules_note))
    return "\n".join(lines) + "\n"


def _k_lines(kf: KFactor, rules: str, flag: bool = True) -> list[str]:
    """K's derivation (§8.3.3) and, when the stored K is another, a flag (``flag``)."""
    text = f"K = {kf.k}: base K {kf.base} ({kf.reason}); "
    if kf.pending:
        text += "the K × n cap applies when the rating period closes"
    elif kf.cap <= 0:
        text += f"no K × n cap in {rules}"
    elif kf.capped:
        text += (
            f"K × n = {kf.base} × {kf.games} = {kf.base * kf.games} > {kf.cap} → "
            f"⌊{kf.cap}/{kf.games}⌋ = {kf.k}"
        )
    else:
        text += f"K × n = {kf.base} × {kf.games} = {kf.base * kf.games} ≤ {kf.cap}"
    lines = [text]
    if flag and not kf.matches:
        lines.append(f"stored K = {kf.stored} DIFFERS from the recomputed K = {kf.k}")
    return lines


def _initial_lines(init: InitialRating, unchecked: str | None = None) -> list[str]:
    """The initial rating's computation (§8.2), step by step, and the stored one (with
    ``unchecked``, the line saying the stored run's rules were not rebuilt, not DIFFERS)."""
    pooled = ", ".join(str(m) for m in init.months) or "no period"
    lines = [
        f"initial rating (§8.2, {init.method} method): {init.games} game(s) against rated "
        f"opponents pooled from {pooled}"
    ]
    if init.disregarded is not None:
        lines.append(
            f"  first event {init.disregarded} "
            f"({', '.join(str(m) for m in init.disregarded_months)}): zero score in "
            f"{init.disregarded_games} game(s), disregarded (§8.2.1)"
        )
    n, w = init.games, init.score
    if init.rounded is not None:
        ra = f"{init.ra_num}/{init.ra_den} = {init.ra:.2f}"
        if init.method == "2024":
            h, hr = init.hypothetical_games, init.hypothetical_rating
            lines.append(f"  Ra = (ΣR {init.opp_sum} + {h} × {hr}) / ({n} + {h}) = {ra}")
            lines.append(
                f"  p = (W {w:g} + {h} × ½) / {n + h} = {w + h / 2:g}/{n + h} → {init.percent} %"
                f"   dp = {init.dp:+d}"
            )
            step = f"Ra + dp = {init.ra:.2f} {'+' if init.dp >= 0 else '−'} {abs(init.dp)}"
        else:
            lines.append(f"  Ra = ΣR / n = {ra}")
            if init.half_points_above:
                lines.append(f"  W {w:g}/{n}: {init.half_points_above} half point(s) above 50 %")
                step = (
                    f"Ra + {init.per_half_point:g} × {init.half_points_above} = {init.ra:.2f} "
                    f"+ {init.per_half_point * init.half_points_above:g}"
                )
            elif init.dp is None:
                lines.append(f"  W {w:g}/{n} = 50 %")
                step = f"Ra = {init.ra:.2f}"
            else:
                lines.append(f"  p = W / n = {w:g}/{n} → {init.percent} %   dp = {init.dp:+d}")
                step = f"Ra + dp = {init.ra:.2f} {'+' if init.dp >= 0 else '−'} {abs(init.dp)}"
        lines.append(f"  Ru = {step} = {init.unrounded:.2f} → {init.rounded}")
        if init.capped:
            lines.append(f"  maximum initial rating {init.cap}: {init.rounded} → {init.rating}")
    lines.append(f"  {init.reason}")
    stored = "not rated" if init.stored is None else f"{init.stored:.0f}"
    if unchecked is not None:  # the stored run's rules not rebuilt (``Card.rules_note``)
        return [*lines, f"stored initial rating = {stored}", unchecked]
    mark = "matches" if init.matches else "DIFFERS (rules other than the card's?)"
    lines.append(f"stored initial rating = {stored}  ({mark})")
    return lines
