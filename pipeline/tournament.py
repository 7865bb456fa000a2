"""Tournament tools: FIDE categories, rating class names, title-norm checks (docs/legacy-systems.md).

* Category (§7.1, S2): category c covers the average ratings
  2251 + 25(c − 1) … 2275 + 25(c − 1), i.e. c = ⌈(avg − 2250)/25⌉ for avg ≥ 2251;
  women's events use the same bands 200 points lower. How the average is
  rounded before banding is UNVERIFIED: arpad rounds it to an integer, .5 up,
  as the Title Regulations do for Ra (1.4.7). Below category 1 → 0 (none).
* Rating classes: the FIDE (Elo) table and the USCF class table as printed in
  the Wikipedia "Chess rating systems" article (Just & Burg 2003:259–73 for USCF).
* Title norms (Title Regulations from 1 Jan 2024, §7.2): minimum 9 games,
  score ≥ 35 %, unrated opponents count as 1400, at most one opponent (the
  lowest-rated) is raised to the rating floor, Ra = average rounded (.5 up),
  p a whole percentage (.5 up), Rp = Ra + dp(p) (table 1.4.9 = 8.1.1), and the
  norm's minimum Ra and Rp, and the composition rules of 1.4 (docs/legacy-systems.md):
  ≥ 50 % titled opponents (CM/WCM not counted), ≥ 1/3 holding the norm's title or a
  higher one (``NORM_TITLES``), ≥ 2 federations other than the player's, ≤ 3/5 from
  the player's federation, ≤ 2/3 from any one federation. A composition condition
  whose data is missing (no titles, no federations) is reported as not checked, and
  the norm is then undecided rather than achieved. Events longer than 13 games are
  evaluated on all their games; the norm counts as 13 games (``counts_as``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from arpad.pipeline.rules import dp_by_percent
from arpad.pipeline.schemas import POOLS

CATEGORY_BASE = 2250
CATEGORY_WIDTH = 25
WOMEN_OFFSET = 200


def fide_category(average: float, women: bool = False) -> int:
    """FIDE tournament category of an event with this average rating (0 = below category 1)."""
    if average is None or (isinstance(average, float) and math.isnan(average)):
        return 0
    from arpad.kernels.rounding import round_half_up  # Numba: not at import (the CLI parser)

    avg = round_half_up(float(average))
    base = CATEGORY_BASE - (WOMEN_OFFSET if women else 0)
    if avg <= base:
        return 0
    return int(-(-(avg - base) // CATEGORY_WIDTH))  # ceil for integers


def category_band(category: int, women: bool = False) -> tuple[int, int]:
    """The (lowest, highest) average rating of a category."""
    if category < 1:
        raise ValueError("categories start at 1")
    base = CATEGORY_BASE - (WOMEN_OFFSET if women else 0)
    return base + 1 + CATEGORY_WIDTH * (category - 1), base + CATEGORY_WIDTH * category


# (lowest rating of the class, name), highest first. The keys name class tables
# (``--table``), not rating systems.
DEFAULT_CLASS_TABLE = "fide"
RATING_CLASSES: dict[str, tuple[tuple[int, str], ...]] = {
    "fide": (
        (2600, "World Championship contenders"),
        (2400, "most Grandmasters (GM) and International Masters (IM)"),
        (2300, "FIDE Masters (FM)"),
        (2200, "FIDE Candidate Masters (CM), most national masters"),
        (2000, "candidate masters, experts"),
        (1800, "Class A, category 1"),
        (1600, "Class B, category 2"),
        (1400, "Class C, category 3"),
        (1200, "Class D, category 4"),
        (-(10**9), "novices"),
    ),
    "uscf": (
        (2400, "Senior Master"),
        (2200, "National Master"),
        (2000, "Expert"),
        (1800, "Class A"),
        (1600, "Class B"),
        (1400, "Class C"),
        (1200, "Class D"),
        (1000, "Class E"),
        (800, "Class F"),
        (600, "Class G"),
        (400, "Class H"),
        (200, "Class I"),
        (100, "Class J"),
        (-(10**9), "below Class J"),
    ),
}


def rating_class(rating: float, table: str = DEFAULT_CLASS_TABLE) -> str:
    """The class name of a rating in the FIDE (Elo) or USCF table."""
    if table not in RATING_CLASSES:
        raise ValueError(f"unknown class table {table!r} (known: {', '.join(RATING_CLASSES)})")
    for low, name in RATING_CLASSES[table]:
        if rating >= low:
            return name
    raise AssertionError("unreachable: the last class has no lower bound")


@dataclass(frozen=True)
class NormRequirement:
    title: str
    min_performance: int  # Rp (≥ min − 0.5 before rounding; Rp is an integer here)
    min_average: int  # Ra
    rating_floor: int  # 1.4.6b: at most one opponent raised to this


NORMS: dict[str, NormRequirement] = {
    "GM": NormRequirement("GM", 2600, 2380, 2200),
    "IM": NormRequirement("IM", 2450, 2230, 2050),
    "WGM": NormRequirement("WGM", 2400, 2180, 2000),
    "WIM": NormRequirement("WIM", 2250, 2030, 1850),
}


# Titles that count as "titled" for the 50 % rule (Title Regulations 1.4; CM and WCM
# excluded) — the same set for all four norms, women's norms included.
TITLED = frozenset({"GM", "IM", "FM", "WGM", "WIM", "WFM"})

# "The title of the norm or higher" for the 1/3 rule. Not a single chain: FIDE's order
# GM > IM > WGM > FM > WIM > CM > WFM > WCM would let an FM count for a WIM norm, but the
# rule names the titles: GM norm → GMs; IM → IMs, GMs; WGM → WGMs, IMs, GMs;
# WIM → WIMs, WGMs, IMs, GMs (FM does not count for women's norms).
NORM_TITLES: dict[str, frozenset[str]] = {
    "GM": frozenset({"GM"}),
    "IM": frozenset({"GM", "IM"}),
    "WGM": frozenset({"GM", "IM", "WGM"}),
    "WIM": frozenset({"GM", "IM", "WGM", "WIM"}),
}

# TRF-style one/two-letter title codes (g, m, f, c, wg, wm, wf, wc) and spellings.
TITLE_ALIASES = {
    "G": "GM",
    "M": "IM",
    "F": "FM",
    "C": "CM",
    "WG": "WGM",
    "WM": "WIM",
    "WF": "WFM",
    "WC": "WCM",
}

# Federation codes that are no federation (players under the FIDE flag).
NO_FEDERATION = frozenset({"", "FID", "FIDE", "NONE", "-"})


def normalise_title(title) -> str | None:
    """``"gm"``, ``"g"``, ``" GM "`` → ``"GM"``; empty or unknown spellings → None/upper-case."""
    if title is None:
        return None
    text = str(title).strip().upper()
    if not text or text in ("-", "NONE"):
        return None
    return TITLE_ALIASES.get(text, text)


# FIDE's list order of titles, highest first (as in NORM_TITLES' comment), for naming an opponent
# who holds two: a players file's Tit and WTit (``title_label``).
TITLE_ORDER = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
_TITLE_SEPARATORS = re.compile(r"[\s/(),]+")


def title_set(entry) -> frozenset[str]:
    """An opponent's titles, normalised: None → none; one title (``"GM"``, ``"wg"``);
    several in one text as ``title_label`` writes them (``"IM (WGM)"``, ``"IM/WGM"``);
    or a list/tuple of titles (a players file's Tit and WTit)."""
    if entry is None:
        return frozenset()
    parts = _TITLE_SEPARATORS.split(entry) if isinstance(entry, str) else entry
    held = (normalise_title(part) for part in parts)
    return frozenset(t for t in held if t)


def title_label(*titles) -> str | None:
    """One opponent's titles as one text (each argument as ``title_set`` reads it), the
    highest first and the others in parentheses: Tit IM and WTit WGM → ``"IM (WGM)"``;
    Tit WGM and WTit WGM (FIDE's lists give a woman's women's title in both) →
    ``"WGM"``; Tit empty and WTit WIM → ``"WIM"``; no title → None."""
    held = frozenset().union(*(title_set(t) for t in titles))
    rank = {t: i for i, t in enumerate(TITLE_ORDER)}
    ordered = sorted(held, key=lambda t: (rank.get(t, len(TITLE_ORDER)), t))
    if not ordered:
        return None
    rest = f" ({', '.join(ordered[1:])})" if len(ordered) > 1 else ""
    return ordered[0] + rest


def normalise_federation(federation) -> str | None:
    if federation is None:
        return None
    text = str(federation).strip().upper()
    return None if text in NO_FEDERATION else text


@dataclass(frozen=True)
class NormRules:
    min_games: int = 9
    min_percent: float = 35.0
    unrated_as: float = 1400.0
    raise_to_floor: int = 1  # how many (lowest-rated) opponents are raised to the floor
    min_titled_fraction: float = 0.5  # 1.4: at least 50 % title-holders (CM/WCM excluded)
    min_norm_title_fraction: float = 1 / 3  # at least 1/3 with the norm's title or higher
    min_other_federations: int = 2  # opponents from ≥ 2 federations other than the player's
    max_own_federation_fraction: float = 3 / 5
    max_one_federation_fraction: float = 2 / 3
    max_counted_games: int = 13  # events with more games count as this many


@dataclass
class NormCheck:
    title: str
    games: int
    score: float
    percent: int  # rounded, .5 up
    opponents_used: list[float]  # after the unrated and floor adjustments
    raised: list[int]  # indices of opponents raised to the floor
    average: int  # Ra
    dp: int
    performance: int  # Rp = Ra + dp
    # (name, True = ok / False = fails / None = not checked (no data), detail with the numbers)
    conditions: list[tuple[str, bool | None, str]] = field(default_factory=list)
    counts_as: int = 0  # games the norm counts for (at most 13)
    opponents_given: list[float] = field(default_factory=list)  # as given (NaN: unrated)
    player: str | None = None  # the player checked, when read from a games file
    # each opponent's titles as ``title_label`` names them ("IM (WGM)"; None: untitled),
    # in the order of ``opponents_given``; empty when the titles are not known
    opponent_titles: list[str | None] = field(default_factory=list)

    def __repr__(self) -> str:
        """One line for a notebook (docs/api.md "Tournaments"); ``str()`` the check
        condition by condition, as ``arpad norm`` prints it."""
        fails = f", fails={self.failed}" if self.failed else ""
        return (
            f"NormCheck(player={self.player!r}, title={self.title!r}, games={self.games}, "
            f"score={self.score:g}, percent={self.percent}, average={self.average}, "
            f"performance={self.performance}, verdict={self.verdict!r}{fails})"
        )

    def __str__(self) -> str:
        from arpad.pipeline.tournament_files import norm_lines

        return "\n".join(norm_lines(self, self.player or "player"))

    @property
    def achieved(self) -> bool:
        """Every condition checked and met."""
        return all(ok is True for _, ok, _ in self.conditions)

    @property
    def failed(self) -> list[str]:
        return [name for name, ok, _ in self.conditions if ok is False]

    @property
    def unchecked(self) -> list[str]:
        return [name for name, ok, _ in self.conditions if ok is None]

    @property
    def verdict(self) -> str:
        if self.failed:
            return "not achieved"
        return "achieved" if self.achieved else "undecided"


def _at_least(count: int, n: int, fraction: float) -> bool:
    """count ≥ fraction × n, exact for the fractions of the rules (1/2, 1/3)."""
    return count >= fraction * n - 1e-9


def _at_most(count: int, n: int, fraction: float) -> bool:
    """count ≤ fraction × n, exact for 3/5 and 2/3."""
    return count <= fraction * n + 1e-9


def composition_conditions(
    title: str,
    opponent_titles,
    opponent_federations,
    federation,
    rules: NormRules = NormRules(),
) -> list[tuple[str, bool | None, str]]:
    """The composition conditions of Title Regulations 1.4 (docs/legacy-systems.md), with numbers.

    ``opponent_titles``/``opponent_federations`` hold one entry per game (None =
    untitled / unknown federation); pass None for the whole list when the data is
    not known — those conditions are then reported as not checked. An opponent's
    entry may name several titles (``"IM (WGM)"``, ``("IM", "WGM")``: ``title_set``):
    he counts as titled, and for the 1/3 rule, when any of them does.
    """
    key = title.upper()
    out: list[tuple[str, bool | None, str]] = []
    if opponent_titles is None:
        out.append(("titled", None, "opponents' titles not known"))
        out.append(("norm_titles", None, "opponents' titles not known"))
    else:
        # an opponent's titles are all he holds (a players file's Tit and WTit): one
        # title of the set makes him titled, or a holder of the norm's title, once
        held = [title_set(t) for t in opponent_titles]
        n = len(held)
        titled = sum(bool(h & TITLED) for h in held)
        need = rules.min_titled_fraction * n
        two = [title_label(h) for h in held if len(h) > 1]
        out.append(
            (
                "titled",
                _at_least(titled, n, rules.min_titled_fraction),
                f"{titled} of {n} opponents titled, CM/WCM not counted (minimum {need:g})"
                + (f"; two titles, each opponent counted once: {'; '.join(two)}" if two else ""),
            )
        )
        allowed = NORM_TITLES[key]
        holders = sum(bool(h & allowed) for h in held)
        need = rules.min_norm_title_fraction * n
        names = "/".join(sorted(allowed, key=["GM", "IM", "WGM", "WIM"].index))
        out.append(
            (
                "norm_titles",
                _at_least(holders, n, rules.min_norm_title_fraction),
                f"{holders} of {n} opponents {names} (minimum {need:.2f})",
            )
        )
    if opponent_federations is None:
        for name in ("federations", "own_federation", "one_federation"):
            out.append((name, None, "opponents' federations not known"))
        return out
    feds = [normalise_federation(f) for f in opponent_federations]
    n = len(feds)
    own = normalise_federation(federation)
    counts: dict[str, int] = {}
    for f in feds:
        if f is not None:
            counts[f] = counts.get(f, 0) + 1
    unknown = sum(f is None for f in feds)
    note = f"; {unknown} without a federation" if unknown else ""
    if own is None:
        out.append(("federations", None, "the player's federation is not known"))
        out.append(("own_federation", None, "the player's federation is not known"))
    else:
        others = sorted(f for f in counts if f != own)
        out.append(
            (
                "federations",
                len(others) >= rules.min_other_federations,
                f"{len(others)} federations other than {own}"
                f" ({', '.join(others) or 'none'}; minimum {rules.min_other_federations}){note}",
            )
        )
        mine = counts.get(own, 0)
        limit = rules.max_own_federation_fraction * n
        out.append(
            (
                "own_federation",
                _at_most(mine, n, rules.max_own_federation_fraction),
                f"{mine} of {n} opponents from {own} (maximum {limit:.2f})",
            )
        )
    if counts:
        top = max(sorted(counts), key=lambda f: counts[f])
        most = counts[top]
    else:
        top, most = "-", 0
    limit = rules.max_one_federation_fraction * n
    out.append(
        (
            "one_federation",
            _at_most(most, n, rules.max_one_federation_fraction),
            f"{most} of {n} opponents from {top}, the most from one federation"
            f" (maximum {limit:.2f}){note}",
        )
    )
    return out


def norm_check(
    opponent_ratings,
    score: float,
    title: str,
    rules: NormRules = NormRules(),
    *,
    opponent_titles=None,
    opponent_federations=None,
    federation: str | None = None,
) -> NormCheck:
    """Check one player's event for a title norm; unrated opponents are NaN (or None).

    ``opponent_titles`` and ``opponent_federations`` (one entry per game, in the
    order of ``opponent_ratings``) and the player's ``federation`` feed the
    composition conditions; without them those conditions are not checked.
    """
    key = title.upper()
    if key not in NORMS:
        raise ValueError(f"unknown norm {title!r} (known: {', '.join(NORMS)})")
    need = NORMS[key]
    opp = np.array([np.nan if r is None else r for r in opponent_ratings], dtype=np.float64)
    n = int(opp.size)
    if n == 0:
        raise ValueError("a norm check needs at least one game")
    if not 0 <= score <= n or (2 * score) != int(2 * score):
        raise ValueError(f"score {score} is not a number of half points between 0 and {n}")
    used = np.where(np.isnan(opp), rules.unrated_as, opp)
    raised: list[int] = []
    for _ in range(rules.raise_to_floor):
        low = int(np.argmin(used))
        if used[low] < need.rating_floor and low not in raised:
            used[low] = need.rating_floor
            raised.append(low)
    from arpad.kernels.rounding import round_half_up

    average = int(round_half_up(float(used.sum()) / n))
    s2 = int(2 * score)
    percent = (100 * s2 + n) // (2 * n)  # whole percent, .5 up, exactly
    dp = int(dp_by_percent()[percent])
    rp = average + dp
    exact_percent = 100.0 * score / n
    conditions = [
        (
            "games",
            n >= rules.min_games,
            f"{n} games (minimum {rules.min_games})"
            + (
                f"; the norm counts as {rules.max_counted_games} games"
                if n > rules.max_counted_games
                else ""
            ),
        ),
        (
            "score",
            exact_percent >= rules.min_percent,
            f"{exact_percent:.1f} % (minimum {rules.min_percent:g} %)",
        ),
        (
            "average",
            average >= need.min_average,
            f"Ra {average} (minimum {need.min_average})",
        ),
        (
            "performance",
            rp >= need.min_performance,
            f"Rp {average} + dp({percent} %) {dp:+d} = {rp} (minimum {need.min_performance})",
        ),
    ]
    for name, values in (("titles", opponent_titles), ("federations", opponent_federations)):
        if values is not None and len(values) != n:
            raise ValueError(f"{len(values)} opponent {name} for {n} games")
    conditions += composition_conditions(
        key, opponent_titles, opponent_federations, federation, rules
    )
    return NormCheck(
        title=key,
        games=n,
        score=float(score),
        percent=int(percent),
        opponents_used=used.tolist(),
        raised=raised,
        average=average,
        dp=dp,
        performance=rp,
        conditions=conditions,
        counts_as=min(n, rules.max_counted_games),
        opponents_given=opp.tolist(),
        opponent_titles=[]
        if opponent_titles is None
        else [title_label(t) for t in opponent_titles],
    )


# -- Categories of a store's events (arpad category --store) ----------------------------

CATEGORY_SCHEMA = pa.schema(
    [
        ("event_id", pa.string()),
        ("players", pa.int64()),
        ("rated_players", pa.int64()),
        ("average", pa.float64()),
        ("average_rounded", pa.int64()),
        ("category", pa.int64()),
    ]
)

# One row per (event, player): the rating stated in the player's earliest game of the
# event (PGN WhiteElo/BlackElo, TRF, a games column), else the players table's rating.
# Merged ids count once, as the kept id (``player_games``, docs/identity.md).
STORE_EVENT_PLAYERS_SQL = """
WITH sides AS (
    SELECT event_id, white_id AS player_id, white_rating AS rating, date, game_id
    FROM player_games
    UNION ALL
    SELECT event_id, black_id AS player_id, black_rating AS rating, date, game_id
    FROM player_games
),
per_player AS (
    SELECT s.event_id, s.player_id,
           coalesce(
               first(s.rating ORDER BY s.date NULLS LAST, s.game_id)
                   FILTER (WHERE s.rating IS NOT NULL),
               max(p.rating)
           ) AS rating
    FROM sides s LEFT JOIN players p ON p.player_id = s.player_id
    WHERE ?::VARCHAR IS NULL OR s.event_id = ?::VARCHAR
    GROUP BY s.event_id, s.player_id
)
SELECT event_id, count(*) AS players, count(rating) AS rated_players,
       avg(rating)::DOUBLE AS average
FROM per_player
GROUP BY event_id
ORDER BY event_id NULLS FIRST
"""


def category_rows(events: list[tuple[str | None, int, int, float | None]], women: bool = False):
    """(event, players, rated players, average) → rows with the rounded average and category
    (null for an event without rated players, e.g. a historical one)."""
    from arpad.kernels.rounding import round_half_up

    rows = []
    for event, players, rated, average in events:
        average = float("nan") if average is None else float(average)
        rounded = None if math.isnan(average) else int(round_half_up(average))
        rows.append(
            {
                "event_id": event,
                "players": int(players),
                "rated_players": int(rated),
                "average": None if rounded is None else average,  # null, not NaN, in CSV too
                "average_rounded": rounded,
                # no rated player: the category is unknown, not "below category 1" (0)
                "category": None if rounded is None else fide_category(average, women=women),
            }
        )
    return rows


def store_event_categories(store, event: str | None = None, women: bool = False):
    """FIDE category of each event in a store's games (or of one event), as an Arrow table.

    The average is over the event's players with a rating (unrated players left out),
    rounded to an integer .5 up before banding (``fide_category``)."""
    from arpad.pipeline import catalog

    con = catalog.connect(store)
    try:
        table = catalog.query_arrow(con, STORE_EVENT_PLAYERS_SQL, [event, event])
    finally:
        con.close()
    events = list(
        zip(
            table.column("event_id").to_pylist(),
            table.column("players").to_pylist(),
            table.column("rated_players").to_pylist(),
            table.column("average").to_pylist(),
        )
    )
    if event is not None and not events:
        raise ValueError(f"no games of event {event!r} in the store")
    return pa.Table.from_pylist(category_rows(events, women), schema=CATEGORY_SCHEMA)


# -- a player's event, from a games file and an optional roster (arpad norm) ------------------
@dataclass(frozen=True)
class Roster:
    """A players file as the tournament tools read it (``--players``; performance, norm,
    category): ``players`` one row per player (name, title, federation: PLAYERS) and
    ``ratings`` per pool each player's own rating there, picked as ``arpad.rate`` and a
    store run pick it (``performance.read_players_file``): FIDE's SRtng/RRtng/BRtng or a
    ``pool`` column seed their own pool only, a plain ``rating`` every pool; a player
    without a rating of a pool is unrated there (docs/observations.md "Undated ratings
    and pools")."""

    players: pa.Table
    ratings: dict[str, dict[str, float]]

    def rating(self, player: str, pool: str | None) -> float | None:
        """``player``'s rating in ``pool`` (a game's pool; none: standard), or None."""
        return self.ratings.get(pool or POOLS[0], {}).get(player)


def roster_ratings(players: pa.Table | None) -> dict[str, float]:
    """player id -> rating of a players table (players without a rating left out)."""
    if players is None:
        return {}
    ids, ratings = players.column("player_id").to_pylist(), players.column("rating").to_pylist()
    return {p: r for p, r in zip(ids, ratings) if r is not None}


def opponent_ratings(
    games: pa.Table, roster: Roster | None, player: str, ids: list[str] | None = None
) -> tuple[list[float], float]:
    """Ratings of ``player``'s opponents in the rated games (the game's stated rating,
    else the roster's of the game's pool; NaN when neither), and the player's score;
    appends the opponents' ids to ``ids`` when given."""
    rated = games.filter(games.column("rated"))
    opponents: list[float] = []
    score = 0.0
    for row in rated.to_pylist():
        if row["white_id"] == player:
            opp, rating, s = row["black_id"], row.get("black_rating"), row["score"]
        elif row["black_id"] == player:
            opp, rating, s = row["white_id"], row.get("white_rating"), 1.0 - row["score"]
        else:
            continue
        if rating is None and roster is not None:
            rating = roster.rating(opp, row.get("pool"))
        opponents.append(np.nan if rating is None else float(rating))
        score += float(s)
        if ids is not None:
            ids.append(opp)
    return opponents, score


def player_facts(roster: Roster | None, raw_players) -> tuple[dict, dict]:
    """player id → title and → federation: the players file first, else the games file's
    own players rows (PGN WhiteTitle/BlackTitle; TRF title and federation). A player's
    title is the union of the file's ``title`` and ``w_title`` (FIDE's Tit and WTit) as
    ``title_label`` names it: Tit IM and WTit WGM → ``"IM (WGM)"``, WTit WIM alone →
    ``"WIM"``."""
    titles: dict = {}
    feds: dict = {}
    if raw_players is not None:
        ids = raw_players["player_id"].to_list()
        columns = raw_players.columns
        _titles_into(titles, ids, *(_column(raw_players, c, columns) for c in TITLE_COLUMNS))
        if "federation" in columns:
            for pid, v in zip(ids, raw_players["federation"].to_list()):
                if v is not None:
                    feds[pid] = v
    if roster is not None:
        players = roster.players
        ids = players.column("player_id").to_pylist()
        columns = players.column_names
        _titles_into(titles, ids, *(_column(players, c, columns) for c in TITLE_COLUMNS))
        for pid, f in zip(ids, players.column("federation").to_pylist()):
            if f is not None:
                feds[pid] = f
    return titles, feds


# A players file's columns of the titles that count for norms: FIDE's Tit and WTit (OTit
# and FOA name arbiters', trainers' and organisers' titles, no playing title).
TITLE_COLUMNS = ("title", "w_title")


def _column(table, name: str, columns) -> list | None:
    """A column of a polars frame or an Arrow table as a list; None when absent."""
    if name not in columns:
        return None
    if isinstance(table, pa.Table):
        return table.column(name).to_pylist()
    return table[name].to_list()


def _titles_into(titles: dict, ids: list, *columns: list | None) -> None:
    """Each id's ``title_label`` of its values in ``columns`` into ``titles`` (an id
    without a title in any of them keeps what ``titles`` has)."""
    given = [c for c in columns if c is not None]
    for i, pid in enumerate(ids):
        label = title_label(*(c[i] for c in given))
        if label is not None:
            titles[pid] = label
