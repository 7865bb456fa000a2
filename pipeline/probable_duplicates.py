"""Probable duplicates: one historical game read from two collections (docs/pgn-trf.md
"Probable duplicates").

Two PGN files (or a PGN and a TRF file) often hold the same game with Event, Site and
Round spelt differently ("London" and "London ENG", Round "1" and "1.1", or no Round),
so the game ids built from the tags differ and the content check of re-sent games
(pipeline/stream_ingest.py, which compares player ids and rounds) does not see them:
the players of a PGN file have file-scoped ids. The rule here, for PGN and TRF
sources only (the CSV/Parquet bulk path is not touched):

    a game with a complete date whose date, White, Black (in their colours) and
    result equal those of a game stored from another source file (in the same
    pool) is a probable
    duplicate: quarantined ``probable_duplicate``, naming the other game's id and
    file:line, unless the user keeps them (``--keep-probable-duplicates``).

    or: a PGN game with moves whose White, Black, result and moves' digest (its
    main-line moves in a normal form, kernels/pgn_scan.py) equal those of a stored
    game of another source file, and whose date agrees with that game's where both
    are known (``1851.??.??`` and ``1851.07.??``; ``1851.07.??`` and ``1851.07.03``)

    or (round 11, "by content"): a rated game without moves on one side (a crosstable's
    result read with ``--rate-moveless``, a TRF game) and a date short of the day on
    one side, with the same White, Black, result and year, months and days that agree
    where both are known, and rounds where both ids name one.

    The same moves (without moves: the same line of its file) with another result, a
    date short of the day on one side, is ``conflicting_result`` (``_conflicts``).

    or (round 14, "near-date"; at a merge too since round 15): a PGN game with moves
    whose White, Black, result and moves' digest equal those of a stored game of another
    file, under dates that disagree the way one game's do (``_dates_fit``: two complete
    dates as a typo, up to ``TYPO_DAYS`` apart or the same day of two successive years;
    else spans up to ``NEAR_DAYS`` apart), when its main line has ``MIN_PLIES``
    half-moves (read again from the file: ``_Plies``; at a merge ``_StorePlies``), or
    the two PGN ids name the same Event, Site and Round and the dates lie up to
    ``NEAR_DAYS`` apart; never two rounds of one Event. Shorter ones are stored with a
    note (``_short_note``), as are long ones under dates further apart (``_far_note``)
    and the games with the moves of a stored game under other player names
    (``_other_names_note``).

    or (round 15, at ingest): the same moves with White and Black swapped
    (``_swapped``).

A side is "equal" when the two ids are equal (after merges, docs/identity.md) or the
two names are equal up to case, blanks and punctuation ("Capablanca, Jose Raul" and
"capablanca,  jose raul."). Matching is one for one: two games of one day between
the same players with the same result in one file (a match played twice a day) match
at most two stored games, the first with the first (a stored game with the same
moves first). Games of one file are never compared with each other, and games dated
only to the month or year are compared by their moves when both have moves (a year
holds many games between two masters; docs/pgn-trf.md "Move digest").
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import identity, schemas
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store, read_parquet_file
from arpad.pipeline.validate import Validated

# Formats whose games are checked: the historian's sources. CSV and Parquet files carry
# ids of their own (or none) and go through the bulk path unchanged (docs/ingest.md).
FORMATS = ("pgn", "trf")
KEEP_OPTION = "--keep-probable-duplicates"
# The near-date rule (docs/pgn-trf.md "Probable duplicates", round 14): the same moves,
# players and result under dates up to NEAR_DAYS apart (a date corrected in one source,
# a database dating a match over New Year by its first year) are one game when the
# main line has MIN_PLIES half-moves (20 moves each) or the two games' Event, Site and
# Round are the same; a shorter line can be a theory draw the same two players repeat.
NEAR_DAYS = 365
MIN_PLIES = 40
# Round 15: two complete dates are one game's only as a typo: up to TYPO_DAYS apart (a
# day or a month off), or the same day and month a year apart (a year off; 365 or 366
# days, across a 29 February) — unless the two games' Event, Site and Round agree (a date
# corrected in a copy of one file). A long game the rule leaves apart within NOTE_DAYS
# of a stored one is named in a note (``_far_note``).
TYPO_DAYS = 31
NOTE_DAYS = 730

_STORED = ["game_id", "date", "white_id", "black_id", "score", "source"]
# Compared too, but null in files written before they existed (docs/pgn-trf.md "Move digest").
_LATER = {"date_precision": pl.String, "moves_digest": pl.Int64}
# What a stored games file must hold for the check (the one-line error of a damaged
# file otherwise), and the types of those columns and of ``_LATER``'s.
_REQUIRED = pa.schema([schemas.GAMES_FILE.field(c) for c in _STORED])
_EXPECTED = pa.schema([schemas.GAMES_FILE.field(c) for c in (*_STORED, *_LATER)])
_INCOMING = [
    *("game_id", "source", "date", "period", "pool", "white_id", "black_id", "score"),
    *("date_precision", "moves_digest", "rated"),
]


def _name_key(col: str) -> pl.Expr:
    """A name compared up to case, blanks and punctuation (letters and digits kept)."""
    return pl.col(col).str.to_lowercase().str.replace_all(r"[^\p{L}\p{N}]", "")


def _names(store: Store, extra: pl.DataFrame | None) -> pl.DataFrame:
    """player_id -> name: the store's players, then the file's own (PGN tags, TRF lines)."""
    stored = pl.from_arrow(store.read_players()).select("player_id", "name")
    frames = [stored]
    if extra is not None and extra.height and "name" in extra.columns:
        frames.insert(0, extra.select(pl.col("player_id"), pl.col("name")).cast(pl.String))
    return (
        pl.concat(frames, how="vertical_relaxed")
        .filter(pl.col("player_id").is_not_null() & pl.col("name").is_not_null())
        .unique("player_id", keep="first")
    )


def _keys_by_id(names: pl.DataFrame, aliases: dict[str, str]) -> pl.DataFrame:
    """``_id`` (an id after merges) -> ``_keys``: the name keys of every id counted as it,
    its own and those of the ids merged into it (docs/pgn-trf.md "Probable
    duplicates": a merge only adds names a side is recognised by)."""
    key = _name_key("name").alias("_key")
    if not aliases:
        return names.select(pl.col("player_id").alias("_id"), pl.concat_list(key).alias("_keys"))
    return (
        names.select(pl.col("player_id").replace(aliases).alias("_id"), key)
        .group_by("_id")
        .agg(pl.col("_key").unique().alias("_keys"))
    )


def _sides(frame: pl.DataFrame, keys: pl.DataFrame, aliases: dict[str, str]) -> pl.DataFrame:
    """``frame`` with the compared forms of both sides: ``_w``/``_b`` (id after merges)
    and ``_wn``/``_bn`` (a list: the name keys of every id counted as that one — a
    stored game of "Lasker, Em." merged into "Lasker, Emanuel" answers to both names —
    or the id when no name is known; ``_flat`` makes one row per key)."""
    out = frame
    for side, col in (("_w", "white_id"), ("_b", "black_id")):
        canon = pl.col(col).replace(aliases) if aliases else pl.col(col)
        out = out.with_columns(canon.alias(side)).join(
            keys.rename({"_id": side, "_keys": f"{side}n"}),
            on=side,
            how="left",
            maintain_order="left",
        )
        out = out.with_columns(
            pl.when(pl.col(f"{side}n").is_null())
            .then(pl.concat_list(pl.col(side)))
            .otherwise(pl.col(f"{side}n"))
            .alias(f"{side}n")
        )
    return out


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with one row per name key of each side it holds (``_wn``, ``_bn``)."""
    for col in ("_wn", "_bn"):
        if col in frame.columns:
            frame = frame.explode(col)
    return frame


def _parts(y: pl.Expr, m: pl.Expr, d: pl.Expr) -> list[pl.Expr]:
    return [
        y.cast(pl.Int32).alias("_y"),
        m.cast(pl.Int32).alias("_m"),
        d.cast(pl.Int32).alias("_d"),
    ]


def _known_parts(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the known parts of each game's date: ``_y``, ``_m``, ``_d`` (null:
    unknown). A full date gives all three; a game without one its period's year, and
    its month unless ``date_precision`` says ``year`` (docs/pgn-trf.md "Move digest")."""
    date, period = pl.col("date"), pl.col("period")
    year_only = pl.col("date_precision") == "year"
    return frame.with_columns(
        _parts(
            pl.when(date.is_not_null()).then(date.dt.year()).otherwise(period // 100),
            pl.when(date.is_not_null())
            .then(date.dt.month())
            .when(year_only.fill_null(False))
            .then(None)
            .otherwise(period % 100),
            date.dt.day(),
        )
    )


def _date_text(y, m, d) -> str:
    """``1851.07.??``: a date's known parts as PGN writes them."""
    return f"{y:04d}.{f'{m:02d}' if m else '??'}.{f'{d:02d}' if d else '??'}"


def _wanted(incoming: pl.DataFrame) -> set[tuple[str, int]]:
    """(pool, period) of the stored games an incoming game can duplicate: its own
    period for a complete date, and the year's year-only games (a crosstable's
    results without moves, "by content" below); with moves or by content, every period
    where a game of a compatible date is stored (a year-only game: the whole year; a
    month: that month and the year's year-only games, in December or, this year, the
    latest valid month)."""
    from arpad.pipeline import periods

    last = periods.last_month()
    wanted: set[tuple[str, int]] = set()
    complete = pl.col("date").is_not_null()
    dated = incoming.filter(complete).select("pool", "period", "_y").unique()
    for pool, period, y in dated.iter_rows():
        wanted.update(((pool, int(period)), (pool, y * 100 + 12)))
        if last // 100 == y:
            wanted.add((pool, last))
    compared = incoming.filter(~complete & (pl.col("moves_digest").is_not_null() | _moveless()))
    for pool, y, m in compared.select("pool", "_y", "_m").unique().iter_rows():
        months = range(1, 13) if m is None else (m, 12)
        wanted.update((pool, y * 100 + k) for k in months)
        if last // 100 == y:
            wanted.add((pool, last))
    return wanted


def _span_of(y: int, m: int | None, d: int | None) -> tuple[dt.date, dt.date]:
    """The days a date's known parts cover: a day, a month or a year."""
    if d is not None and m is not None:
        day = dt.date(y, m, d)
        return day, day
    if m is not None:
        last = (dt.date(y + (m == 12), m % 12 + 1, 1)) - dt.timedelta(days=1)
        return dt.date(y, m, 1), last
    return dt.date(y, 1, 1), dt.date(y, 12, 31)


def _days_apart(a: tuple, b: tuple) -> int:
    """Days between the spans of two dates' known parts (``_span_of``; 0: they overlap)."""
    (a0, a1), (b0, b1) = _span_of(*a), _span_of(*b)
    return max((b0 - a1).days, (a0 - b1).days, 0)


def _complete(date: tuple) -> bool:
    return date[1] is not None and date[2] is not None


def _dates_fit(a: tuple, b: tuple) -> bool:
    """Two dates' known parts (``(y, m, d)``) that disagree the way one game's dates do in
    two sources (the near-date rule, round 15): two complete dates up to ``TYPO_DAYS``
    apart or on the same day and month of two successive years (a typo of the day, the
    month or the year), else — a year-only or month-only date on one side — spans up
    to ``NEAR_DAYS`` apart (a collection dating a match over New Year by its first year).
    Two complete dates 357 days apart are a line played again at next year's event."""
    if _complete(a) and _complete(b):
        if _days_apart(a, b) <= TYPO_DAYS:
            return True
        return a[1:] == b[1:] and abs(a[0] - b[0]) == 1
    return _days_apart(a, b) <= NEAR_DAYS


def _near_wanted(incoming: pl.DataFrame) -> set[tuple[str, int]]:
    """(pool, period) of the stored games a game with moves may repeat under a date up
    to ``NOTE_DAYS`` from its own (the near-date rule and its notes, ``_pairs``): every
    month of that window, and the December of each of its years (a year-only game is stored there; in
    the current year the latest valid month)."""
    from arpad.pipeline import periods

    last = periods.last_month()
    wanted: set[tuple[str, int]] = set()
    moved = incoming.filter(pl.col("moves_digest").is_not_null())
    for pool, y, m, d in moved.select("pool", "_y", "_m", "_d").unique().iter_rows():
        if y is None:
            continue
        start, end = _span_of(y, m, d)
        start -= dt.timedelta(days=NOTE_DAYS)
        end += dt.timedelta(days=NOTE_DAYS)
        month = start.year * 12 + start.month - 1
        while month <= end.year * 12 + end.month - 1:
            wanted.add((pool, (month // 12) * 100 + month % 12 + 1))
            month += 1
        for year in range(start.year, end.year + 1):
            wanted.add((pool, year * 100 + 12))
            if last // 100 == year:
                wanted.add((pool, last))
    return wanted


def _moveless(suffix: str = "") -> pl.Expr:
    """A rated game without moves (a crosstable's result read with ``--rate-moveless``,
    a TRF game): compared by content. Unrated ones (forfeits) are left alone."""
    return pl.col(f"moves_digest{suffix}").is_null() & pl.col(f"rated{suffix}").fill_null(True)


def _round(col: str = "game_id") -> pl.Expr:
    """The round a game id names (a PGN id's Round tag, a TRF pairing's round), else null
    (as the content check of re-sent games reads it, pipeline/stream_ingest.py)."""
    g = pl.col(col)
    return (
        pl.when(g.str.starts_with("pgn:"))
        .then(g.str.split("|").list.get(3, null_on_oob=True))
        .otherwise(g.str.extract(r":r([0-9]+):[^:]+-[^:]+$", 1))
    )


def _vouched(col: str = "game_id") -> pl.Expr:
    """A TRF pairing's id: two of them that differ are two games."""
    return pl.col(col).str.contains(r":r[0-9]+:[^:]+-[^:]+$").fill_null(False)


def _line(col: str = "source") -> pl.Expr:
    """The line of a game in its file (``file:line``)."""
    return pl.col(col).str.extract(r":(\d+)$", 1).cast(pl.Int64, strict=False)


def _stored(store: Store, wanted: set[tuple[str, int]], ignore: set[str]) -> pl.DataFrame | None:
    """The stored games of the ``wanted`` partitions (files of ``ignore`` left out),
    with their pool, period, precision and moves' digest (null in files written
    before those columns). Only those columns are read from each file (docs/pgn-trf.md
    "What the check reads")."""
    frames = []
    for pool in sorted({pool for pool, _ in wanted}):
        for f in sorted(store.game_files(pool)):
            period = int(f.parent.name.split("=", 1)[1])
            if (pool, period) not in wanted or f.name in ignore:
                continue
            frame = pl.from_arrow(read_parquet_file(f, [*_STORED, *_LATER], _REQUIRED, _EXPECTED))
            absent = [
                pl.lit(None, dtype=dtype).alias(c)
                for c, dtype in _LATER.items()
                if c not in frame.columns
            ]
            frames.append(
                frame.with_columns(
                    *absent, pool=pl.lit(pool), period=pl.lit(period, dtype=pl.Int32)
                ).select(*_STORED, *_LATER, "pool", "period")
            )
    if not frames:
        return None
    return pl.concat(frames, how="vertical_relaxed")


def _candidates(
    store: Store,
    games: pa.Table,
    ignore: set[str],
    skip_ids: pl.Series | None = None,
    near: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The games of ``games`` the rule can compare (``_i``: their row; a complete date or
    moves) and the stored games of the files not in ``ignore`` they may duplicate
    (``skip_ids``: game ids left out of those too), or None when there is nothing to
    compare. ``near``: and the stored games with the same moves dated up to a year
    apart (``_near_wanted``; ingest's check only)."""
    incoming = pl.from_arrow(schemas.conform(games, schemas.GAMES).select(_INCOMING))
    incoming = _known_parts(incoming.with_row_index("_i")).filter(
        pl.col("date").is_not_null() | pl.col("moves_digest").is_not_null() | _moveless()
    )
    if incoming.height == 0:
        return None
    wanted = _wanted(incoming)
    extra = _near_wanted(incoming) - wanted if near else set()
    stored = _stored(store, wanted | extra, ignore)
    if stored is None:
        return None
    if extra:  # of the partitions read for the near-date rule only, the same moves
        digests = incoming.get_column("moves_digest").drop_nulls().unique()
        part = pl.col("pool") + ":" + pl.col("period").cast(pl.String)
        stored = stored.filter(
            ~part.is_in([f"{pool}:{period}" for pool, period in extra])
            | pl.col("moves_digest").is_in(digests.implode())
        )
    # a stored game under the id of an incoming one is that game (--replace replaces
    # it; otherwise the copy is already duplicate_game_id)
    mine = pl.Series(games.column("game_id"))
    if skip_ids is not None:
        mine = pl.concat([mine, skip_ids])
    # a game short of the day may be the copy of any game of its year ("by content")
    years = incoming.filter(pl.col("date").is_null()).get_column("_y").unique()
    stored = stored.filter(
        ~pl.col("game_id").is_in(mine.implode())
        & (
            pl.col("date").is_in(incoming.get_column("date").drop_nulls().unique().implode())
            | pl.col("moves_digest").is_not_null()
            | pl.col("date").is_null()
            | pl.col("date").dt.year().cast(pl.Int32).is_in(years.implode())
        )
    )
    if stored.height == 0:
        return None
    return incoming, stored


def _pairs(
    store: Store,
    incoming: pl.DataFrame,
    stored: pl.DataFrame,
    aliases: dict[str, str],
    players: pl.DataFrame | None = None,
    near: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Every (incoming ``_i``, stored ``_s``) pair the rule matches with the merges
    ``aliases`` in force, ``_same`` True when their moves are the same; and the two
    frames with their compared forms (``inc``, ``old``). ``near``: with the pairs of
    the near-date rule too (``_kind`` 2: the same moves, dates that disagree up to
    ``NOTE_DAYS`` apart; weighed by their dates and length, ``_near_pairs``)."""
    keys = _keys_by_id(_names(store, players), aliases)
    inc = _sides(incoming, keys, aliases)
    # ``rated`` of a stored game is read only for those found by content (``_unrated``)
    old = _known_parts(_sides(stored.with_row_index("_s"), keys, aliases)).with_columns(
        rated=pl.lit(None, dtype=pl.Boolean)
    )
    # Equi-joins only (a day of a big tournament holds thousands of games): each side
    # equal by id or by name, the four combinations. By date: complete dates equal;
    # by moves: the same moves' digest and year, then months and days that agree
    # where both are known.
    by_date = [
        _flat(inc.filter(pl.col("date").is_not_null()).select("_i", "date", "pool", "score", w, b))
        .join(
            _flat(old.select("_s", "date", "pool", "score", w, b)),
            on=["date", "pool", "score", w, b],
        )
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
    ]
    on = ["pool", "score", "moves_digest", "_y"]
    compatible = _agree()
    by_moves = [
        _flat(inc.filter(pl.col("moves_digest").is_not_null()).select("_i", *on, "_m", "_d", w, b))
        .join(
            _flat(
                old.filter(pl.col("moves_digest").is_not_null()).select("_s", *on, "_m", "_d", w, b)
            ),
            on=[*on, w, b],
            suffix="_old",
        )
        .filter(compatible)
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
    ]
    # By content (round 11): a rated game without moves on one side (a crosstable's
    # result, a TRF game) and a date short of the day on one side: the same year, then
    # months and days that agree where both are known, and rounds where both ids name
    # one; two TRF pairings that differ are two games. Only such rows join, so a file
    # of complete dates with moves costs nothing here.
    on = ["pool", "score", "_y"]
    cols = [*on, "_m", "_d", "moves_digest", "rated", "date", "game_id"]
    either = _moveless() | pl.col("date").is_null()
    by_content = [
        _flat(inc.filter(either).select("_i", *cols, w, b))
        .join(
            _flat(old.filter(either).select("_s", *cols, w, b)),
            on=[*on, w, b],
            suffix="_old",
        )
        .filter(_content_match())
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
    ]
    content = pl.concat(by_content).unique()
    content = content.filter(~pl.col("_s").is_in(list(_unrated(store, old, content))))
    # The near-date rule (round 14): the same moves, pool, result and sides, dates that
    # disagree but lie up to NOTE_DAYS apart (``_near_pairs`` keeps those whose dates
    # fit, the others are noted), and not two rounds of one event.
    near_cols = ["pool", "score", "moves_digest", "_y", "_m", "_d", "game_id"]
    digested = pl.col("moves_digest").is_not_null()
    by_near = [
        _flat(inc.filter(digested).select("_i", *near_cols, w, b))
        .join(
            _flat(old.filter(digested).select("_s", *near_cols, w, b)),
            on=["pool", "score", "moves_digest", w, b],
            suffix="_old",
        )
        .filter(
            ~((pl.col("_y") == pl.col("_y_old")) & _agree())
            & (_gap() <= NOTE_DAYS)
            & ~_other_rounds()
        )
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
        if near
    ]
    pairs = pl.concat(
        [
            pl.concat([*by_date, *by_moves]).unique().with_columns(_kind=pl.lit(0)),
            content.with_columns(_kind=pl.lit(1)),
            *([pl.concat(by_near).unique().with_columns(_kind=pl.lit(2))] if by_near else []),
        ]
    )
    pairs = pairs.group_by("_i", "_s").agg(pl.col("_kind").min())
    # the same moves first: of two stored games of one day, the copy is the one
    # with its moves
    digests = pairs.join(inc.select("_i", pl.col("moves_digest").alias("_mi")), on="_i").join(
        old.select("_s", pl.col("moves_digest").alias("_ms")), on="_s"
    )
    pairs = digests.with_columns(
        (pl.col("_mi") == pl.col("_ms")).fill_null(False).alias("_same")
    ).select("_i", "_s", "_same", "_kind")
    return pairs, inc, old


def _agree() -> pl.Expr:
    """Months and days that agree where both are known (after a join, ``_old``: the
    stored game's)."""
    return (
        pl.col("_m").is_null() | pl.col("_m_old").is_null() | (pl.col("_m") == pl.col("_m_old"))
    ) & (pl.col("_d").is_null() | pl.col("_d_old").is_null() | (pl.col("_d") == pl.col("_d_old")))


def _span(suffix: str = "") -> tuple[pl.Expr, pl.Expr]:
    """The first and last day a date's known parts (``_y``, ``_m``, ``_d``) cover."""
    y, m, d = (pl.col(f"{c}{suffix}") for c in ("_y", "_m", "_d"))
    start = pl.date(y, m.fill_null(1), d.fill_null(1))
    end = (
        pl.when(d.is_not_null() & m.is_not_null())
        .then(start)
        .when(m.is_not_null())
        .then(start.dt.month_end())
        .otherwise(pl.date(y, 12, 31))
    )
    return start, end


def _gap() -> pl.Expr:
    """Days between the spans of two games' dates (after a join, ``_old``: the stored
    game's; 0: they overlap)."""
    (a0, a1), (b0, b1) = _span(), _span("_old")
    return pl.max_horizontal(
        (b0 - a1).dt.total_days(), (a0 - b1).dt.total_days(), pl.lit(0, dtype=pl.Int64)
    )


def _id_tag(col: str, k: int) -> pl.Expr:
    """Tag ``k`` (0 Event, 1 Site, 3 Round) of a PGN game id ``pgn:Event|Site|Date|Round|
    White|Black`` (``_key_tags``), null for another id or a tag that says nothing."""
    parts = pl.col(col).str.strip_prefix("pgn:").str.split("|")
    value = parts.list.get(k, null_on_oob=True)
    return (
        pl.when(pl.col(col).str.starts_with("pgn:") & (parts.list.len() == 6))
        .then(pl.when(value.str.strip_chars().is_in(UNKNOWN_TAGS)).then(None).otherwise(value))
        .otherwise(None)
    )


def _other_rounds() -> pl.Expr:
    """After a join: two games of one Event under two rounds (both named): two games,
    whatever their moves (a match's repeated theory draw)."""
    event, round_ = (
        (_id_tag("game_id", 0), _id_tag("game_id_old", 0)),
        (
            _id_tag("game_id", 3),
            _id_tag("game_id_old", 3),
        ),
    )
    return ((event[0] == event[1]) & (round_[0] != round_[1])).fill_null(False)


def _content_match() -> pl.Expr:
    """After a join of two games of the same pool, year and sides: the content rule's
    other conditions (``_pairs``, "by content")."""
    rounds = _round("game_id"), _round("game_id_old")
    return (
        _agree()
        & (_moveless() | _moveless("_old"))
        & (pl.col("date").is_null() | pl.col("date_old").is_null())
        & (rounds[0].is_null() | rounds[1].is_null() | (rounds[0] == rounds[1]))
        & ~(
            _vouched("game_id")
            & _vouched("game_id_old")
            & (pl.col("game_id") != pl.col("game_id_old"))
        )
    )


def _unrated(store: Store, old: pl.DataFrame, pairs: pl.DataFrame) -> set[int]:
    """The stored rows ``_s`` of ``pairs`` without a moves' digest that are no rated game
    known to be without moves: stored unrated (a forfeit, a crosstable read without
    ``--rate-moveless``), or in a file written before the digest (its games' moves
    unknown, "Move digest"). Never the copy a game is compared with by content.
    ``rated`` is read, with the game ids, from the files of the partitions holding
    them only ("What the check reads")."""
    if pairs.height == 0:
        return set()
    rows = pairs.select("_s").unique().join(old, on="_s").filter(pl.col("moves_digest").is_null())
    if rows.height == 0:
        return set()
    ids = set(rows.get_column("game_id").to_list())
    out: set[str] = set()
    for pool, period in rows.select("pool", "period").unique().iter_rows():
        for f in store.game_files(pool):
            if int(f.parent.name.split("=", 1)[1]) != period:
                continue
            table = read_parquet_file(f, ["game_id", "rated", "moves_digest"])
            known = "moves_digest" in table.column_names and "rated" in table.column_names
            rated = table.column("rated").to_pylist() if known else [None] * table.num_rows
            for gid, r in zip(table.column("game_id").to_pylist(), rated):
                if gid in ids and (not known or r is False):
                    out.add(gid)
    return set(rows.filter(pl.col("game_id").is_in(list(out))).get_column("_s").to_list())


def _without_digest(store: Store, games: pa.Table) -> pa.Table:
    """Stored ``games`` (with ``file``, as a merge reads them) whose file was written
    before the moves' digest: marked unrated for the comparison only, so that their
    moves, unknown, are not taken for none (``_moveless``)."""
    from arpad.pipeline.integrity import open_parquet

    files = games.column("file").to_pylist()
    old = set()
    for rel in set(files):
        path = store.root / rel
        if path.exists():
            with open_parquet(path) as f:
                if "moves_digest" not in f.schema_arrow.names:
                    old.add(rel)
    if not old:
        return games
    mask = pa.array([f in old for f in files])
    rated = pc.if_else(mask, False, games.column("rated"))
    return games.set_column(games.schema.get_field_index("rated"), "rated", rated)


def _stored_events(store: Store, old: pl.DataFrame, rows: set[int]) -> dict[int, str | None]:
    """Stored row ``_s`` of ``rows`` -> its event id, read (with the game ids) from the
    files of the partitions holding them only: the check itself does not read event ids
    ("What the check reads"), the details of the games it found name them."""
    hit = old.filter(pl.col("_s").is_in(sorted(rows)))
    ids = set(hit.get_column("game_id").to_list())
    events: dict[str, str | None] = {}
    for pool, period in hit.select("pool", "period").unique().iter_rows():
        for f in store.game_files(pool):
            if int(f.parent.name.split("=", 1)[1]) != period:
                continue
            table = read_parquet_file(f, ["game_id", "event_id"])
            if "event_id" not in table.column_names:
                continue
            for gid, event in zip(
                table.column("game_id").to_pylist(), table.column("event_id").to_pylist()
            ):
                if gid in ids:
                    events[gid] = event
    return {s: events.get(gid) for s, gid in hit.select("_s", "game_id").iter_rows()}


def _key_tags(game_id: str | None) -> tuple[str, str, str] | None:
    """(Event, Site, Round) of a PGN game id ``pgn:Event|Site|Date|Round|White|Black``
    (pipeline/pgn.py ``game_key``); None for another id (``file:line``)."""
    if not game_id or not game_id.startswith("pgn:"):
        return None
    parts = game_id[4:].split("|")
    return (parts[0], parts[1], parts[3]) if len(parts) == 6 else None


def _tags_compared(mine: tuple, theirs: tuple, copy: bool) -> str:
    """What the two games' Event, Site and Round say, as far as they are known: both
    game ids of PGN tags give all three; otherwise the stored event ids (Site and
    Round are not stored). ``mine``/``theirs``: (game id, event id). ``copy``: the
    same moves and the same date as written (docs/pgn-trf.md "Historian's sources,
    round 9": the detail said "Event/Site/Round spelt differently" for identical tags)."""
    here, there = _key_tags(mine[0]), _key_tags(theirs[0])
    if here is not None and there is not None:
        compared = list(zip(("Event", "Site", "Round"), here, there))
    else:
        compared = [("Event", mine[1], theirs[1])]
    differ = [
        f"{tag} {'none' if a is None else repr(a)} here, {'none' if b is None else repr(b)} there"
        for tag, a, b in compared
        if a != b
    ]
    if differ:
        return "; ".join(differ)
    if len(compared) == 3:
        same = "the same Event, Site and Round"
    else:
        event = compared[0][1]
        same = "no Event on either" if event is None else f"the same Event {event!r}"
    return f"{same}: a copy of that file (re-saved, converted or renamed)?" if copy else same


def _details(
    index: list[int],
    matched: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    tail: str | dict[int, str],
    events: tuple[list, list, dict[int, str | None]] | None = None,
    near: dict[int, str] | None = None,
) -> tuple[list[str], list[str]]:
    """Per incoming row of ``index``: the quarantine detail naming the stored game it
    duplicates, how they agree and what their Event, Site and Round say
    (``_tags_compared``; ``events``: the incoming games' ids and event ids by row
    ``_i``, and the stored games' event ids by row ``_s``), ending in ``tail`` (or the
    row's own tail); and that game's id. ``near``: how the rows matched by the
    near-date rule agree (``_near_pairs``)."""
    where = {
        row[0]: row[1:]
        for row in old.select(
            "_s", "game_id", "source", "_y", "_m", "_d", "moves_digest"
        ).iter_rows()
    }
    mine = {
        row[0]: row[1:]
        for row in inc.select("_i", "_y", "_m", "_d", "moves_digest", "date").iter_rows()
    }
    details, others = [], []
    for i in index:
        other_id, other_source, oy, om, od, omoves = where[matched[i]]
        y, m, d, moves, date = mine[i]
        same_moves = moves is not None and moves == omoves
        if near and i in near:
            same = near[i]
        elif date is not None and od is not None and (y, m, d) == (oy, om, od):
            same = (
                "same date, White, Black, result and moves"
                if same_moves
                else "same date, White, Black and result"
            )
        elif same_moves:
            same = (
                f"same White, Black, result and moves; dates {_date_text(y, m, d)} and "
                f"{_date_text(oy, om, od)} agree where both are known"
            )
        else:
            same = (
                f"same White, Black and result, no moves {'here' if moves is None else 'there'}"
                f" (a crosstable's result?); dates {_date_text(y, m, d)} and "
                f"{_date_text(oy, om, od)} agree where both are known"
            )
        if events is not None:
            ids, events_in, stored_events = events
            copy = same_moves and (y, m, d) == (oy, om, od) and not (near and i in near)
            tags = _tags_compared(
                (ids[i], events_in[i]), (other_id, stored_events.get(matched[i])), copy
            )
            same = f"{same}; {tags}"
        details.append(
            f"probable duplicate of game {other_id} stored from {other_source} ({same})"
            f"{tail if isinstance(tail, str) else tail[i]}"
        )
        others.append(other_id)
    return details, others


def _events(
    store: Store, games: pa.Table, old: pl.DataFrame, matched: dict[int, int]
) -> tuple[list, list, dict[int, str | None]]:
    """``_details``' ``events``: the incoming ``games``' ids and event ids (by row) and
    the event ids of the stored games ``matched`` names."""
    return (
        games.column("game_id").to_pylist(),
        games.column("event_id").to_pylist(),
        _stored_events(store, old, set(matched.values())),
    )


def _quarantine_rows(
    sources: list[str], details: list[str], batch: str, reason: Reason = Reason.PROBABLE_DUPLICATE
) -> pa.Table:
    """``reason`` (``probable_duplicate``) quarantine rows of the games stored as
    ``sources`` (file:line)."""
    return pa.table(
        {
            "source": [s.rsplit(":", 1)[0] for s in sources],
            "line": [int(s.rsplit(":", 1)[1]) for s in sources],
            "reason": [reason.value] * len(sources),
            "detail": details,
            "raw": [None] * len(sources),
            "ingest_batch": [batch] * len(sources),
        },
        schema=schemas.QUARANTINE,
    )


# -- the near-date rule's lengths and the ingest notes (round 14) -------------------------
_TOKEN = re.compile(r"\{[^}]*\}?|;[^\r\n]*|[()]|[^\s{};()]+")
_MOVE_NUMBER = re.compile(r"^[0-9]+\.+")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def count_plies(movetext: str) -> tuple[int, bool]:
    """(half-moves of the main line, whether its end was found): tokens outside
    comments (``{…}``, ``; …``) and variations (``( … )``) that are moves — a letter
    after any move number (``12.e4``, ``12...Nf6``), or castling written ``0-0``; not NAGs
    (``$1``), null moves (``--``) or the result, where the main line ends (as does the
    next game's tag section)."""
    depth = plies = 0
    for match in _TOKEN.finditer(movetext):
        token = match.group()
        head = token[0]
        if head in "{;":
            continue
        if head == "(":
            depth += 1
            continue
        if head == ")":
            depth = max(depth - 1, 0)
            continue
        if depth:
            continue
        if head == "[" or token in _RESULTS:
            return plies, True
        token = _MOVE_NUMBER.sub("", token)
        if token and (token[0].isalpha() or token.startswith("0-0")):
            plies += 1
    return plies, False


def _line_offsets(data: bytes, wanted: list[int]) -> dict[int, int]:
    """The byte offset of each line (numbers ``wanted``) of ``data``; lines end with CR
    LF, CR or LF (as the scanner counts them)."""
    import numpy as np

    buf = np.frombuffer(data, np.uint8)
    lf = buf == 10
    cr = buf == 13
    cr[:-1] &= ~lf[1:]  # a CR before an LF: one line end, the LF's
    starts = np.flatnonzero(lf | cr) + 1
    return {
        k: (0 if k == 1 else int(starts[k - 2])) for k in set(wanted) if 1 <= k <= len(starts) + 1
    }


def _plies_from(data: bytes, offset: int) -> int:
    """The main line's half-moves of the game whose tag section starts at ``offset``."""
    from arpad.pipeline.pgn import split_lines

    size = 1 << 13
    while True:
        lines = split_lines(data[offset : offset + size].decode("utf-8", "replace"))
        k = 0
        while k < len(lines) and (not lines[k].strip() or lines[k].lstrip().startswith("[")):
            k += 1
        plies, ended = count_plies("\n".join(lines[k:]))
        if ended or offset + size >= len(data) or size >= 1 << 24:
            return plies
        size *= 4


class _PgnFile:
    """A PGN file read again for the main-line length of its games at given lines (the
    scanner keeps only the moves' digest): read once, on the first question; a file
    that cannot be read now answers None."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self.data: bytes | None = None

    def plies(self, lines: list[int]) -> dict[int, int | None]:
        if self.path is not None and self.data is None:
            from arpad.pipeline.errors import InputError
            from arpad.pipeline.pgn import load_bytes

            try:
                self.data = load_bytes(self.path, [])
            except (OSError, InputError, ValueError):
                self.data = b""
        offsets = _line_offsets(self.data, lines) if self.data else {}
        return {k: None if k not in offsets else _plies_from(self.data, offsets[k]) for k in lines}


class _Plies:
    """The main-line length (half-moves) of incoming games, by row ``_i``: read again from
    their file (``path``) at their line (``_PgnFile``). None: not known (no path, the
    file unreadable now)."""

    def __init__(self, path: str | Path | None, inc: pl.DataFrame):
        self.file = _PgnFile(path)
        self.lines = dict(inc.select("_i", _line().alias("_line")).iter_rows())
        self.known: dict[int, int | None] = {}

    def of(self, rows) -> dict[int, int | None]:
        want = [i for i in dict.fromkeys(rows) if i not in self.known]
        if want:
            lines = [self.lines[i] for i in want if self.lines.get(i)]
            found = self.file.plies(lines) if lines else {}
            for i in want:
                self.known[i] = found.get(self.lines.get(i))
        return {i: self.known[i] for i in rows}


class _StorePlies:
    """``_Plies`` for games already stored (a merge, ``after_merge``; a held copy checked
    again, ``still_duplicates``): the store keeps no file, so a game's length is read
    from the file its source was ingested from (the manifest's ``source_key``, a path
    relative to the working directory or absolute) when that file still holds the bytes
    stored (their sha256); else from the file of the stored game it is paired with (the
    same moves: the same length); None when neither can be read."""

    def __init__(self, store: Store, inc: pl.DataFrame, old: pl.DataFrame, pairs: pl.DataFrame):
        manifest = store.read_manifest()
        self.where = {
            label: (key or label, sha)
            for label, key, sha in zip(
                *(manifest.column(c).to_pylist() for c in ("source", "source_key", "sha256"))
            )
        }
        theirs = dict(old.select("_s", "source").iter_rows())
        self.sources: dict[int, list[str]] = {
            i: [src] for i, src in inc.select("_i", "source").iter_rows()
        }
        for i, s in pairs.select("_i", "_s").iter_rows():
            self.sources.setdefault(i, []).append(theirs[s])
        self.files: dict[str, _PgnFile | None] = {}
        self.known: dict[int, int | None] = {}

    def _file(self, label: str) -> _PgnFile | None:
        if label not in self.files:
            from arpad.pipeline.ingest import sha256_file

            key, sha = self.where.get(label, (None, None))
            path = Path(key) if key else None
            try:
                same = path is not None and path.is_file() and sha256_file(path) == sha
            except OSError:
                same = False
            self.files[label] = _PgnFile(path) if same else None
        return self.files[label]

    def of(self, rows) -> dict[int, int | None]:
        for i in dict.fromkeys(rows):
            if i in self.known:
                continue
            self.known[i] = None
            for source in self.sources.get(i, []):
                label, _, line = source.rpartition(":")
                file = self._file(label) if line.isdigit() else None
                n = file.plies([int(line)]).get(int(line)) if file is not None else None
                if n is not None:
                    self.known[i] = n
                    break
        return {i: self.known[i] for i in rows}


def _moves_text(plies: int | None) -> str:
    """`` (31 moves)``: a main line's length in moves (half-moves: White's and Black's)."""
    return "" if plies is None else f" ({(plies + 1) // 2} moves)"


def _same_tags(mine: str | None, theirs: str | None) -> bool:
    """Both PGN game ids name the same Event, Site and Round, Event and Round known."""
    here, there = _key_tags(mine), _key_tags(theirs)
    if here is None or here != there:
        return False
    return here[0].strip() not in UNKNOWN_TAGS and here[2].strip() not in UNKNOWN_TAGS


def _near_pairs(
    pairs: pl.DataFrame,
    inc: pl.DataFrame,
    old: pl.DataFrame,
    plies: _Plies | _StorePlies,
    known: set[tuple[int, int]] = frozenset(),
) -> tuple[pl.DataFrame, dict[tuple[int, int], str], pl.DataFrame, pl.DataFrame]:
    """The near-date rule's pairs (``_kind`` 2) weighed: kept when the two games' Event,
    Site and Round are the same (a date corrected in a copy of one file) and their dates
    up to ``NEAR_DAYS`` apart, or when the main line has ``MIN_PLIES`` half-moves and the
    dates disagree as one game's do (``_dates_fit``); ``known``: pairs kept whatever
    they say (a held copy and the game it was taken out for, ``still_duplicates``).
    Returns the pairs kept (the others dropped), their detail's words by (``_i``,
    ``_s``), and the pairs to note only: ``short`` (a line under ``MIN_PLIES`` up to
    ``NEAR_DAYS`` apart, ``_short_note``) and ``far`` (a long line under dates the rule
    does not take for one game's, ``_far_note``)."""
    near = pairs.filter(pl.col("_kind") == 2)
    if near.height == 0:
        empty = near.select("_i", "_s")
        return pairs, {}, empty, empty
    ids = dict(inc.select("_i", "game_id").iter_rows())
    mine = {r[0]: r[1:] for r in inc.select("_i", "_y", "_m", "_d").iter_rows()}
    theirs = {r[0]: r[1:] for r in old.select("_s", "game_id", "_y", "_m", "_d").iter_rows()}
    lengths = plies.of(near.get_column("_i").unique().sort().to_list())
    words: dict[tuple[int, int], str] = {}
    short, far, dropped = [], [], []
    for i, s in near.select("_i", "_s").iter_rows():
        other_id, *when = theirs[s]
        here, there = tuple(mine[i]), tuple(when)
        n = lengths.get(i)
        gap = _days_apart(here, there)
        long = n is not None and n >= MIN_PLIES
        tags = _same_tags(ids[i], other_id) and gap <= NEAR_DAYS
        if not (tags or (long and _dates_fit(here, there)) or (i, s) in known):
            dropped.append((i, s))
            if long:
                far.append((i, s))
            elif gap <= NEAR_DAYS:
                short.append((i, s))
            continue
        year_typo = _complete(here) and _complete(there) and gap > TYPO_DAYS and not tags
        why = (
            "the same day and month a year apart: a year mistyped in one source?"
            if year_typo
            else "a date corrected in one source, or a collection dating an event by its "
            "first year?"
        )
        words[(i, s)] = (
            f"same White, Black, result and moves{_moves_text(n)}; dates "
            f"{_date_text(*here)} here and {_date_text(*there)} there, {gap} day(s) apart: "
            f"{why}"
        )

    def frame(rows: list) -> pl.DataFrame:
        out = pl.DataFrame(rows, schema={"_i": pl.UInt32, "_s": pl.UInt32}, orient="row")
        return out.cast({"_i": pairs.schema["_i"], "_s": pairs.schema["_s"]})

    kept = pairs.join(frame(dropped), on=["_i", "_s"], how="anti")
    return kept, words, frame(short), frame(far)


def _examples(items: list[str], k: int = 3) -> str:
    return "; ".join(items[:k]) + (f"; {len(items) - k} more" if len(items) > k else "")


def _short_note(
    short: pl.DataFrame,
    matched: dict[int, int],
    conflicts: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    plies: _Plies,
) -> list[str]:
    """The note on the games stored although the near-date rule pairs them with a
    stored game: their main line is shorter than ``MIN_PLIES`` (and their Event, Site
    and Round differ), so they may be a theory line the same two players repeated."""
    count, items, gaps = _left_pairs(short, matched, conflicts, inc, old, plies, False)
    if not count:
        return []
    return [
        f"{count} game(s) stored although they have the moves, White, Black and "
        f"result of a game of another file dated up to {max(gaps)} day(s) apart "
        f"({_examples(items)}): under {MIN_PLIES // 2} moves the same two players can "
        "repeat a line (a theory draw), so the dates decide; if one is a copy under a "
        "wrong date, correct its Date tag and ingest its file again as a new version of "
        'its source (--source; docs/pgn-trf.md "Probable duplicates")'
    ]


def _left_pairs(
    pairs: pl.DataFrame,
    matched: dict[int, int],
    conflicts: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    plies: _Plies,
    with_gap: bool,
) -> tuple[int, list[str], list[int]]:
    """(games, items, gaps) of the near-date ``pairs`` (``_i`` incoming, ``_s`` stored)
    no rule took out: each incoming game once, named with its length and both dates
    (and the days apart when ``with_gap``), for ``_short_note`` and ``_far_note``."""
    left = pairs.filter(~pl.col("_i").is_in(list(matched) + list(conflicts)))
    if left.height == 0:
        return 0, [], []
    left = left.sort("_i", "_s").unique("_i", keep="first", maintain_order=True)
    where = {r[0]: r[1:] for r in inc.select("_i", "source", "_y", "_m", "_d").iter_rows()}
    theirs = {r[0]: r[1:] for r in old.select("_s", "game_id", "_y", "_m", "_d").iter_rows()}
    lengths = plies.of(left.get_column("_i").to_list())
    items, gaps = [], []
    for i, s in left.iter_rows():
        source, *date = where[i]
        other, *when = theirs[s]
        gap = _days_apart(tuple(date), tuple(when))
        gaps.append(gap)
        items.append(
            f"{source}{_moves_text(lengths.get(i))} and game {other}, dated "
            f"{_date_text(*date)} and {_date_text(*when)}"
            + (f", {gap} day(s) apart" if with_gap else "")
        )
    return left.height, items, gaps


def _far_note(
    far: pl.DataFrame,
    matched: dict[int, int],
    conflicts: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    plies: _Plies,
) -> list[str]:
    """The note on the games of ``MIN_PLIES`` half-moves or more stored although they
    have the moves, sides and result of a stored game of another file dated up to
    ``NOTE_DAYS`` apart: dates the near-date rule does not take for one game's
    (``_dates_fit``; two complete dates 357 days apart under other tags, a year and a
    day), named so that a copy under a mistyped date can be corrected."""
    count, items, gaps = _left_pairs(far, matched, conflicts, inc, old, plies, True)
    if not count:
        return []
    return [
        f"{count} game(s) of {MIN_PLIES // 2} moves or more stored although they have "
        "the moves, White, Black and result of a game of another file dated up to "
        f"{max(gaps)} day(s) apart ({_examples(items)}): dates further apart than a typo "
        f"(two complete dates more than {TYPO_DAYS} days apart and not the same day of the "
        "next or last year, a date short of the day more than a year away) under another "
        "Event, Site or Round can be the line played again at another event, so both are "
        "rated; if one is a copy under a wrong date, correct its Date tag and ingest its "
        'file again as a new version of its source (--source; docs/pgn-trf.md "Probable '
        'duplicates")'
    ]


def _other_names_note(
    store: Store,
    inc: pl.DataFrame,
    old: pl.DataFrame,
    taken: set[int],
    plies: _Plies,
    players: pl.DataFrame | None,
) -> list[str]:
    """The note on the games stored with the moves (``MIN_PLIES`` half-moves or more),
    result, pool and a date that agrees of a stored game of another file, or one the
    near-date rule takes for the same game's (``_dates_fit``, round 15), under other
    player names (no side matched: "Steinitz, W." here, "Steinitz, William" there): the
    same game counted twice until the players are merged (docs/identity.md), which
    ingest cannot tell from the names (probable duplicates need the same players).
    ``taken``: the rows matched or noted already. Names crossed (White here Black
    there) are a colour swap (``_swapped``), never two spellings to merge."""
    digested = pl.col("moves_digest").is_not_null()
    free = inc.filter(digested & ~pl.col("_i").is_in(list(taken)))
    if free.height == 0:
        return []
    on = ["pool", "score", "moves_digest"]
    sides = ["_y", "_m", "_d", "white_id", "black_id", "game_id", "_wn", "_bn"]
    found = (
        free.select("_i", *on, *sides)
        .join(old.filter(digested).select("_s", *on, *sides), on=on, suffix="_old")
        .filter(((pl.col("_y") == pl.col("_y_old")) & _agree()) | (_gap() <= NEAR_DAYS + 1))
        .filter(~_other_rounds())
    )
    if found.height == 0:
        return []
    lengths = plies.of(found.get_column("_i").unique().sort().to_list())
    long = [i for i, n in lengths.items() if n is not None and n >= MIN_PLIES]
    found = found.filter(pl.col("_i").is_in(long)).sort("_i", "_s")
    keep, agrees = [], []
    for row in found.iter_rows(named=True):
        here = (row["_y"], row["_m"], row["_d"])
        there = (row["_y_old"], row["_m_old"], row["_d_old"])
        crossed = set(row["_wn"]) & set(row["_bn_old"]) and set(row["_bn"]) & set(row["_wn_old"])
        agree = here[0] == there[0] and all(
            a is None or b is None or a == b for a, b in zip(here[1:], there[1:])
        )
        near = _dates_fit(here, there) or (
            _same_tags(row["game_id"], row["game_id_old"]) and _days_apart(here, there) <= NEAR_DAYS
        )
        keep.append(bool(not crossed and (agree or near)))
        agrees.append(agree)
    found = found.with_columns(_same_date=pl.Series(agrees, dtype=pl.Boolean)).filter(
        pl.Series(keep, dtype=pl.Boolean)
    )
    if found.height == 0:
        return []
    # one stored game per copy, one whose date agrees first
    found = found.sort(["_i", "_same_date", "_s"], descending=[False, True, False])
    found = found.unique("_i", keep="first", maintain_order=True)
    names = dict(_names(store, players).iter_rows())
    spellings: dict[tuple[str, str], int] = {}
    for row in found.select("white_id", "white_id_old", "black_id", "black_id_old").iter_rows():
        for here, there in (row[:2], row[2:]):
            if here != there:
                pair = (names.get(here, here), names.get(there, there))
                spellings[pair] = spellings.get(pair, 0) + 1
    said = [
        f"{here!r} here, {there!r} there"
        for (here, there), _ in sorted(spellings.items(), key=lambda kv: -kv[1])
    ]
    sources = dict(inc.select("_i", "source").iter_rows())
    dated = [
        (sources[i], (y, m, d), (oy, om, od))
        for i, y, m, d, oy, om, od in found.filter(~pl.col("_same_date"))
        .select("_i", "_y", "_m", "_d", "_y_old", "_m_old", "_d_old")
        .iter_rows()
    ]
    later = (
        f"; {len(dated)} of them under another date, up to "
        f"{max(_days_apart(a, b) for _, a, b in dated)} day(s) apart ("
        + _examples(
            [f"{src}, {_date_text(*a)} here and {_date_text(*b)} there" for src, a, b in dated]
        )
        + ")"
        if dated
        else ""
    )
    return [
        f"{found.height} game(s) of {MIN_PLIES // 2} moves or more have the moves, result "
        f"and date of games stored from another file under other player names "
        f"({_examples(said)}){later}: each such game counts twice until the players "
        "are merged (arpad players identify proposes the merges; arpad players merge makes "
        "them and takes the later copies out of the ratings; docs/identity.md)"
    ]


_RESULT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}
# a side's compared form and the other colour's of the same form (``_sides``)
_CROSS = {"_w": "_b", "_wn": "_bn", "_b": "_w", "_bn": "_wn"}


def _swapped(
    store: Store,
    inc: pl.DataFrame,
    old: pl.DataFrame,
    used: dict[int, int],
    plies: _Plies,
    players: pl.DataFrame | None,
) -> tuple[dict[int, int], dict[int, str]]:
    """Incoming rows (not in ``used``) that repeat a stored game of another file (not
    used) with **White and Black swapped** (round 15; a common database error): the
    same pool and moves, the names crossed (White here is Black there, by id or name,
    as above), a result that is the same tag or the same winner, a date that agrees or
    that the near-date rule takes for one game's (``_dates_fit``), not two rounds of one
    Event, and a main line of ``MIN_PLIES`` half-moves or the same Event, Site and
    Round. Returns row -> stored row (one for one, in file order) and their detail's
    words. The two players are not two spellings to merge: the colours are wrong in
    one source, and the stored game counts."""
    digested = pl.col("moves_digest").is_not_null()
    left = inc.filter(digested & ~pl.col("_i").is_in(list(used)))
    right = old.filter(digested & ~pl.col("_s").is_in(list(used.values())))
    if left.height == 0 or right.height == 0:
        return {}, {}
    cols = ["pool", "moves_digest", "score", "_y", "_m", "_d", "game_id"]
    crossed = [
        _flat(left.select("_i", *cols, w, b))
        .join(
            _flat(
                right.select("_s", *cols, pl.col(_CROSS[w]).alias(w), pl.col(_CROSS[b]).alias(b))
            ),
            on=["pool", "moves_digest", w, b],
            suffix="_old",
        )
        .filter(
            (
                (pl.col("score") == pl.col("score_old"))
                | (pl.col("score") == 1 - pl.col("score_old"))
            )
            & (((pl.col("_y") == pl.col("_y_old")) & _agree()) | (_gap() <= NEAR_DAYS + 1))
            & ~_other_rounds()
        )
        .select("_i", "_s", "score", "score_old", "_y", "_m", "_d", "_y_old", "_m_old", "_d_old")
        for w, b in (("_w", "_b"), ("_wn", "_b"), ("_w", "_bn"), ("_wn", "_bn"))
    ]
    found = pl.concat(crossed).unique(["_i", "_s"]).sort("_i", "_s")
    if found.height == 0:
        return {}, {}
    ids = dict(inc.select("_i", "game_id").iter_rows())
    theirs = dict(old.select("_s", "game_id").iter_rows())
    lengths = plies.of(found.get_column("_i").unique().sort().to_list())
    names = dict(_names(store, players).iter_rows())
    sides = {r[0]: r[1:] for r in inc.select("_i", "white_id", "black_id").iter_rows()}
    out: dict[int, int] = {}
    words: dict[int, str] = {}
    taken: set[int] = set()
    for i, s, score, was, y, m, d, oy, om, od in found.iter_rows():
        if i in out or s in taken:
            continue
        here, there = (y, m, d), (oy, om, od)
        agree = y == oy and all(a is None or b is None or a == b for a, b in ((m, om), (d, od)))
        n = lengths.get(i)
        tags = _same_tags(ids[i], theirs[s])
        long = n is not None and n >= MIN_PLIES
        if not ((long or tags) and (agree or _dates_fit(here, there))):
            continue
        out[i] = s
        taken.add(s)
        white, black = (names.get(x, x) for x in sides[i])
        when = (
            "the same date"
            if here == there
            else f"dates {_date_text(*here)} here and {_date_text(*there)} there"
        )
        result = (
            f"the same result tag ({_RESULT.get(score, score)}), so each source has another winner"
            if score == was and score != 0.5
            else f"the same result ({_RESULT.get(score, score)})"
            if score == was
            else f"the result tag {_RESULT.get(score, score)} here and "
            f"{_RESULT.get(was, was)} there (the same winner)"
        )
        words[i] = (
            f"White and Black swapped: {white!r} is White here and Black there, {black!r} "
            f"Black here and White there, with the same moves{_moves_text(n)}, {when} and "
            f"{result}: the colours are swapped in one source, not two players to merge; "
            "the stored game counts"
        )
    return out, words


def _held_at_recheck(
    store: Store, batch: str, replaced_batches, games: pa.Table
) -> tuple[dict[int, tuple[str, str]], pa.Table | None]:
    """The bytes of a stored source read again because a new version of another source
    removed or changed games some of their copies repeat (``orphans``; the same bytes:
    the batches' first 16 characters, the bytes' sha256): the rows of ``games`` at the
    lines whose copies named a game still stored (no ``ORPHAN_MARK``) stay quarantined
    as they were, whatever the rules find now (a correction that re-spelt a player holds
    the game under a name the copy no longer matches: round 15, the match counted
    twice). Returns row -> (reason, detail) and the quarantine table those rows read."""
    same = [b for b in replaced_batches if b[:16] == batch[:16]]
    tables = []
    for b in same:
        path = store.quarantine_dir / f"batch={b}" / "part-0.parquet"
        if path.exists():
            tables.append(read_parquet_file(path))
    if not tables:
        return {}, None
    table = pa.concat_tables(tables)
    details = table.column("detail").to_pylist()
    if not any(ORPHAN_MARK in (d or "") for d in details):
        return {}, None
    wanted = (Reason.PROBABLE_DUPLICATE.value, Reason.CONFLICTING_RESULT.value)
    at = {
        line: (reason, detail)
        for line, reason, detail in zip(
            table.column("line").to_pylist(), table.column("reason").to_pylist(), details
        )
        if reason in wanted and ORPHAN_MARK not in (detail or "")
    }
    lines = [
        int(s.rsplit(":", 1)[1]) if s and s.rsplit(":", 1)[-1].isdigit() else None
        for s in games.column("source").to_pylist()
    ]
    return {k: at[line] for k, line in enumerate(lines) if line in at}, table


def drop_probable_duplicates(
    store: Store,
    v: Validated,
    batch: str,
    replaced_batches: list[str] | tuple[str, ...] = (),
    players: pl.DataFrame | None = None,
    path: str | Path | None = None,
    notes: list[str] | None = None,
) -> tuple[Validated, int]:
    """``v`` without its probable duplicates (see the module docstring), which join its
    quarantine as ``probable_duplicate``, and without the copies whose result differs
    (``_conflicts``), which join it as ``conflicting_result``. ``players``: the raw
    players the file describes (their names). ``path``: the PGN file read, whose
    movetexts give the length of games the near-date rule compares (``_Plies``; without
    it that rule takes only games whose Event, Site and Round agree). ``notes``: gets
    the notes on games stored although they repeat stored ones (a short line under
    another date, ``_short_note``; a long one under dates too far apart, ``_far_note``;
    other player names, ``_other_names_note``). The bytes of a source read again for
    their orphaned copies keep the other copies quarantined (``_held_at_recheck``).
    Returns the games left and how many were quarantined as probable duplicates."""
    games = v.accepted
    if games.num_rows == 0:
        return v, 0
    held, _ = _held_at_recheck(store, batch, replaced_batches, games)
    if held:
        rest = [k for k in range(games.num_rows) if k not in held]
        kept_rows = games.take(pa.array(sorted(held), pa.int64()))
        rows = [held[k] for k in sorted(held)]
        again = pa.table(
            {
                "source": [s.rsplit(":", 1)[0] for s in kept_rows.column("source").to_pylist()],
                "line": [int(s.rsplit(":", 1)[1]) for s in kept_rows.column("source").to_pylist()],
                "reason": [r for r, _ in rows],
                "detail": [d for _, d in rows],
                "raw": [None] * len(rows),
                "ingest_batch": [batch] * len(rows),
            },
            schema=schemas.QUARANTINE,
        )
        v = Validated(
            games.take(pa.array(rest, pa.int64())),
            pa.concat_tables([v.quarantine, again]).sort_by("line"),
            v.rows_read,
        )
        copies = sum(r == Reason.PROBABLE_DUPLICATE.value for r, _ in rows)
        if notes is not None:
            notes.append(
                f"{len(rows)} game(s) quarantined as copies of games still stored stay "
                "quarantined as they were (their details name the games); the others are "
                "checked against the store as it is now"
            )
        left, n = _drop(store, v, batch, replaced_batches, players, path, notes)
        return left, n + copies
    return _drop(store, v, batch, replaced_batches, players, path, notes)


def _drop(
    store: Store,
    v: Validated,
    batch: str,
    replaced_batches,
    players: pl.DataFrame | None,
    path: str | Path | None,
    notes: list[str] | None,
) -> tuple[Validated, int]:
    """``drop_probable_duplicates`` of the games the rules decide."""
    games = v.accepted
    if games.num_rows == 0:
        return v, 0
    ignore = {f"part-{b}.parquet" for b in [batch, *replaced_batches]}
    found = _candidates(store, games, ignore, near=True)
    if found is None:
        return v, 0
    aliases = identity.alias_map(store)
    pairs, inc, old = _pairs(store, *found, aliases, players, near=True)
    plies = _Plies(path, inc)
    pairs, near, short, far = _near_pairs(pairs, inc, old, plies)
    matched = _one_for_one(pairs)
    swapped, swap_words = _swapped(store, inc, old, matched, plies, players)
    conflicts = _conflicts(store, games, inc, old, {**matched, **swapped})
    if notes is not None:
        notes.extend(_short_note(short, matched, conflicts, inc, old, plies))
        notes.extend(_far_note(far, {**matched, **swapped}, conflicts, inc, old, plies))
        taken = {*matched, *swapped, *conflicts, *pairs.get_column("_i").to_list()}
        taken |= set(short.get_column("_i").to_list()) | set(far.get_column("_i").to_list())
        notes.extend(_other_names_note(store, inc, old, taken, plies, players))
    matched = {**matched, **swapped}
    if not matched and not conflicts:
        return v, 0
    # the near-date rule's detail for the rows it matched (not another stored game), and
    # the colour swaps'
    near = {i: near[(i, s)] for i, s in matched.items() if (i, s) in near}
    near.update(swap_words)
    index = sorted(matched)
    out = sorted([*index, *conflicts])
    keep = pc.invert(
        pc.is_in(pa.array(range(games.num_rows), pa.int64()), value_set=pa.array(out, pa.int64()))
    )
    tables = [v.quarantine]
    if index:
        dups = games.take(pa.array(index, pa.int64()))
        events = _events(store, games, old, matched)
        details, _ = _details(index, matched, inc, old, f": {KEEP_OPTION} keeps it", events, near)
        tables.append(_quarantine_rows(dups.column("source").to_pylist(), details, batch))
    if conflicts:
        tables.append(_conflict_rows(store, games, conflicts, inc, old, batch))
    kept = Validated(
        games.filter(keep),
        pa.concat_tables(tables).sort_by("line"),
        v.rows_read,
    )
    return kept, len(index)


# Tag values that say nothing (pipeline/pgn.py ``game_key``).
UNKNOWN_TAGS = ("", "?", "-", "??")


def _same_event(
    store: Store, games: pa.Table, old: pl.DataFrame, pairs: pl.DataFrame
) -> pl.DataFrame:
    """The pairs (``_i``, ``_s``) matched by line whose events agree where both games
    name one: a corrected copy of a file keeps its Event tag, and two results-only files
    of one year with the same pair on the same line under two Event tags are two matches
    (docs/pgn-trf.md "Historian's sources, round 11"). The stored events are read for
    these pairs only."""
    if pairs.height == 0 or "event_id" not in games.column_names:
        return pairs
    theirs = _stored_events(store, old, set(pairs.get_column("_s").to_list()))
    mine = games.column("event_id").to_pylist()

    def known(event: str | None) -> str | None:  # PGN's "?" is an unknown event
        return None if event is None or event.strip() in UNKNOWN_TAGS else event

    keep = [
        known(mine[i]) is None or known(theirs.get(s)) is None or mine[i] == theirs[s]
        for i, s in pairs.select("_i", "_s").iter_rows()
    ]
    return pairs.filter(pl.Series(keep, dtype=pl.Boolean))


def _conflicts(
    store: Store,
    games: pa.Table,
    inc: pl.DataFrame,
    old: pl.DataFrame,
    matched: dict[int, int],
) -> dict[int, int]:
    """Incoming row -> the stored game of another file it repeats with **another
    result** (docs/pgn-trf.md "Historian's sources, round 11"; a corrected download of a
    collection dated to the year or month): the same White and Black (by id or name,
    as above), pool, a date that agrees where both are known and is short of the day
    on one side at least, and the same moves, or, for a rated game without moves on
    one side, the same line of its file (a corrected copy of that file) and round where
    both ids name one. One for one, among the rows ``matched`` (probable duplicates)
    left free, in file order. Two complete dates are the content and id checks'
    (pipeline/stream_ingest.py, ingest ``_drop_store_duplicates``), as before."""
    free_i = pl.col("_i").is_in(list(matched)).not_()
    free_s = pl.col("_s").is_in(list(matched.values())).not_()
    left, right = inc.filter(free_i), old.filter(free_s)
    if left.height == 0 or right.height == 0:
        return {}
    cols = ["pool", "score", "_y", "_m", "_d", "moves_digest", "rated", "date", "game_id"]
    differ = pl.col("score") != pl.col("score_old")
    by_moves = [
        _flat(left.filter(pl.col("moves_digest").is_not_null()).select("_i", *cols, w, b))
        .join(
            _flat(right.filter(pl.col("moves_digest").is_not_null()).select("_s", *cols, w, b)),
            on=["pool", "moves_digest", "_y", w, b],
            suffix="_old",
        )
        .filter(_agree() & differ & (pl.col("date").is_null() | pl.col("date_old").is_null()))
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
    ]
    either = _moveless() | pl.col("date").is_null()
    lined = [*cols, _line().alias("_line")]
    by_line = [
        _flat(left.filter(either).select("_i", *lined, w, b))
        .join(
            _flat(right.filter(either).select("_s", *lined, w, b)),
            on=["pool", "_y", "_line", w, b],
            suffix="_old",
        )
        .filter(_content_match() & differ)
        .select("_i", "_s")
        for w in ("_w", "_wn")
        for b in ("_b", "_bn")
    ]
    lined_pairs = pl.concat(by_line).unique()
    lined_pairs = lined_pairs.filter(~pl.col("_s").is_in(list(_unrated(store, old, lined_pairs))))
    lined_pairs = _same_event(store, games, old, lined_pairs)
    pairs = pl.concat([*by_moves, lined_pairs]).unique().sort("_i", "_s")
    used: set[int] = set()
    out: dict[int, int] = {}
    for i, s in pairs.iter_rows():
        if i not in out and s not in used:
            used.add(s)
            out[i] = s
    return out


def _conflict_rows(
    store: Store,
    games: pa.Table,
    conflicts: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    batch: str,
) -> pa.Table:
    """``conflicting_result`` quarantine rows of the incoming rows ``conflicts`` names,
    each naming the stored game and the ``--source`` that corrects its file (the
    source's identity, as ingest's hint does: docs/ingest.md "Conflicting results")."""
    manifest = store.read_manifest()
    labels = manifest.column("source").to_pylist()
    keys = manifest.column("source_key").to_pylist()
    identities = {label: key or label for label, key in zip(labels, keys)}
    where = {
        r[0]: r[1:]
        for r in old.select(
            "_s", "game_id", "source", "score", "_y", "_m", "_d", "moves_digest"
        ).iter_rows()
    }
    mine = {
        r[0]: r[1:] for r in inc.select("_i", "score", "_y", "_m", "_d", "moves_digest").iter_rows()
    }
    index = sorted(conflicts)
    details = []
    for i in index:
        other_id, other_source, was, oy, om, od, omoves = where[conflicts[i]]
        now, y, m, d, moves = mine[i]
        label = other_source.rsplit(":", 1)[0]
        ident = identities.get(label, label)
        same = (
            "White, Black and moves"
            if moves is not None and moves == omoves
            else f"White and Black, no moves {'here' if moves is None else 'there'}, the same "
            f"line {other_source.rsplit(':', 1)[1]} of its file"
        )
        details.append(
            f"the same {same} as game {other_id} stored from {other_source} (dates "
            f"{_date_text(y, m, d)} and {_date_text(oy, om, od)} agree where both are known), "
            f"with White's score {float(was):g} there, {float(now):g} here: not applied (to "
            f"correct {label}, ingest the file with --source {ident!r}: a new version replaces "
            "all of that source's games; docs/pgn-trf.md)"
        )
    sources = games.take(pa.array(index, pa.int64())).column("source").to_pylist()
    return _quarantine_rows(sources, details, batch, Reason.CONFLICTING_RESULT)


def _one_for_one(pairs: pl.DataFrame) -> dict[int, int]:
    """Incoming row -> the stored row it duplicates, each stored row used once: incoming
    rows in file order take the first stored row still free, those with the same
    moves (``_same``) first, then in stored order; the pairs found by content only
    (``_kind`` 1) after all the others, so a game without moves never takes the stored
    game a copy with its moves repeats."""
    used: set[int] = set()
    out: dict[int, int] = {}
    if "_kind" not in pairs.columns:
        pairs = pairs.with_columns(_kind=pl.lit(0))
    ordered = pairs.sort(["_kind", "_i", "_same", "_s"], descending=[False, False, True, False])
    for i, s in zip(ordered.get_column("_i").to_list(), ordered.get_column("_s").to_list()):
        if i not in out and s not in used:
            used.add(s)
            out[i] = s
    return out


def note(n: int) -> str:
    """The ingest summary's line on the probable duplicates of a file."""
    return (
        f"{n} game(s) with the players, result and date (or moves and a date that "
        "agrees, or one a typo away for 20 moves or more, or White and Black swapped; "
        "without moves on one side, a date that agrees) of a game of another file: "
        f"quarantined as probable_duplicate ({KEEP_OPTION} stores them; docs/pgn-trf.md)"
    )


def quarantined(store: Store, batch: str, reason: Reason = Reason.PROBABLE_DUPLICATE) -> bool:
    """True when the ingest ``batch`` quarantined rows for ``reason`` (by default
    probable duplicates)."""
    path = store.quarantine_dir / f"batch={batch}" / "part-0.parquet"
    if not path.exists():
        return False
    reasons = read_parquet_file(path).column("reason")
    return bool(pc.any(pc.equal(reasons, reason.value)).as_py())


def kept_batch(batch: str) -> str:
    """The batch id of a file stored again with its probable duplicates kept (the
    bytes, hence the usual id, are the same as the first time's)."""
    return f"{batch}k"


def drop_quarantine(staged, batches) -> None:
    """Remove the quarantine rows of ``batches`` (a source stored again, keeping the
    probable duplicates it quarantined) in the staged transition."""
    for batch in batches:
        path = staged.real.quarantine_dir / f"batch={batch}" / "part-0.parquet"
        if path.exists():
            staged.deletes.append(str(path.relative_to(staged.root)))


def scoped_by_source(raw, file_name: str, source: str):
    """``raw`` (PGN or TRF) with its file-scoped ids (``<file>:<name>``, ``<file>#<rank>``,
    a TRF's ``<file>:r1:1-2``) scoped by the source named with ``--source`` instead
    of the file name: a corrected download (``London1851 (2).pgn --source
    London1851.pgn``) keeps the players and games of the source it corrects (they
    were all new ids, the old ones left without games; docs/pgn-trf.md)."""
    import dataclasses

    if source == file_name:
        return raw

    def rescope(frame: pl.DataFrame | None, columns) -> pl.DataFrame | None:
        if frame is None:
            return None
        out = []
        for col in columns:
            if col in frame.columns:
                v = pl.col(col)
                out.append(
                    pl.when(v.str.starts_with(file_name + ":") | v.str.starts_with(file_name + "#"))
                    .then(pl.lit(source) + v.str.slice(len(file_name)))
                    .otherwise(v)
                    .alias(col)
                )
        return frame.with_columns(out) if out else frame

    return dataclasses.replace(
        raw,
        frame=rescope(raw.frame, ("white_id", "black_id", "game_id")),
        players=rescope(raw.players, ("player_id",)),
    )


# -- copies a merge makes one game (docs/identity.md "Copies a merge makes one game") -----
@dataclass
class TakenOut:
    """What ``after_merge`` found: ``games``, the stored games to take out (whole rows of
    ``schemas.GAMES_FILE`` with ``pool``, ``period``, ``file`` — the games file, relative
    to the store — ``merge`` and ``duplicate_of``, the game each repeats), and their
    ``quarantine`` rows."""

    games: pa.Table
    quarantine: pa.Table


HELD_COLUMNS = pa.schema(
    [
        *schemas.GAMES_FILE,
        pa.field("pool", pa.string()),
        pa.field("period", pa.int32()),
        pa.field("file", pa.string()),
        pa.field("merge", pa.string()),
        pa.field("duplicate_of", pa.string()),
    ]
)


def ingest_order(store: Store) -> list[str]:
    """The games batches of the manifest, the earliest ingested first (manifest order
    within one second)."""
    m = pl.from_arrow(store.read_manifest().select(["batch", "kind", "ingested_at"]))
    m = m.with_row_index("_n").filter(pl.col("kind") == "games")
    return m.sort(["ingested_at", "_n"]).get_column("batch").to_list()


def _checked_batches(store: Store) -> set[str]:
    """The batches the rule applies to: games read from PGN and TRF files."""
    m = pl.from_arrow(store.read_manifest().select(["batch", "kind", "format"]))
    kept = m.filter((pl.col("kind") == "games") & pl.col("format").is_in(list(FORMATS)))
    return set(kept.get_column("batch").to_list())


def _regrouped(store: Store, before: dict[str, str], after: dict[str, str]) -> set[str]:
    """The ids whose games may match other games after the merges ``after`` and not
    with ``before``: every id of a group of ids counted as one that gained or lost an
    id, and the ids whose name is a name of such a group (they answer to it now)."""
    moved = {i for i in set(before) | set(after) if before.get(i, i) != after.get(i, i)}
    if not moved:
        return set()
    heads = {after.get(i, i) for i in moved} | {before.get(i, i) for i in moved}
    names = _names(store, None)
    ids = names.get_column("player_id")
    group = {i for i in ids.to_list() if after.get(i, i) in heads or before.get(i, i) in heads}
    group |= moved | heads
    keyed = names.with_columns(_name_key("name").alias("_key"))
    keys = keyed.filter(pl.col("player_id").is_in(list(group))).get_column("_key")
    namesakes = keyed.filter(pl.col("_key").is_in(keys.implode())).get_column("player_id")
    return group | set(namesakes.to_list())


def _games_with(store: Store, ids: set[str], batches: set[str]) -> dict[str, pa.Table]:
    """Per batch of ``batches``: its stored games with a side among ``ids``, whole rows
    (``schemas.GAMES_FILE``) with ``pool``, ``period`` and ``file`` (relative path)."""
    value_set = pa.array(sorted(ids), pa.string())
    out: dict[str, list[pa.Table]] = {}
    for pool in store.pools():
        for f in store.game_files(pool):
            batch = f.stem.removeprefix("part-")
            if batch not in batches:
                continue
            sides = read_parquet_file(f, ["white_id", "black_id"])
            hit = pc.or_(
                pc.is_in(sides.column("white_id").cast(pa.string()), value_set=value_set),
                pc.is_in(sides.column("black_id").cast(pa.string()), value_set=value_set),
            )
            if not pc.any(hit).as_py():
                continue
            games = schemas.conform(read_parquet_file(f).filter(hit), schemas.GAMES_FILE)
            n = games.num_rows
            period = int(f.parent.name.split("=", 1)[1])
            rel = str(f.relative_to(store.root))
            games = (
                games.append_column("pool", pa.array([pool] * n, pa.string()))
                .append_column("period", pa.array([period] * n, pa.int32()))
                .append_column("file", pa.array([rel] * n, pa.string()))
            )
            out.setdefault(batch, []).append(games)
    return {b: pa.concat_tables(t) for b, t in out.items()}


def after_merge(
    store: Store,
    before: dict[str, str],
    merge: str,
    split_hint: str,
    notes: list[str] | None = None,
) -> TakenOut | None:
    """The stored games that the merges in force in ``store`` (``before``: the merges
    in force before this one) make probable duplicates of games of earlier-ingested
    files, by the rule of the module docstring, as ingest would have found them had the
    players been merged then: the later-ingested copy goes. Pairs that already matched
    before the merge are left alone (both copies are stored, so the user kept them:
    ``--keep-probable-duplicates``). ``merge``: this merge's id, named in the details
    with ``split_hint`` (how to undo it). The near-date rule reads the length of a game
    from the file it was ingested from (``_StorePlies``); ``notes`` gets the note on the
    pairs whose length no file gave (``_unread_note``)."""
    after = identity.alias_map(store)
    ids = _regrouped(store, before, after)
    if not ids:
        return None
    order = ingest_order(store)
    rank = {b: n for n, b in enumerate(order)}
    by_batch = _games_with(store, ids, _checked_batches(store))
    taken: list[pa.Table] = []
    rows: list[pa.Table] = []
    gone = pl.Series("game_id", [], pl.String)
    unread: list[str] = []
    for batch in sorted(by_batch, key=lambda b: rank.get(b, len(rank))):
        games = by_batch[batch]
        later = order[rank.get(batch, len(order)) :]
        ignore = {f"part-{b}.parquet" for b in [batch, *later]}
        found = _candidates(store, _without_digest(store, games), ignore, gone, near=True)
        if found is None:
            continue
        # the near-date rule too (round 15), its lengths read from the files ingested
        now, inc, old = _pairs(store, *found, after, near=True)
        plies = _StorePlies(store, inc, old, now.filter(pl.col("_kind") == 2))
        now, near, short, _ = _near_pairs(now, inc, old, plies)
        then, _, _ = _pairs(store, *found, before, near=True)
        matched = _one_for_one(now.join(then, on=["_i", "_s"], how="anti"))
        unread += _unread(short.join(then, on=["_i", "_s"], how="anti"), matched, inc, old, plies)
        if not matched:
            continue
        index = sorted(matched)
        sides = {r[0]: r[1:] for r in inc.select("_i", "white_id", "black_id").iter_rows()}
        others = {r[0]: r[1:] for r in old.select("_s", "white_id", "black_id").iter_rows()}
        tails = {}
        for i in index:
            both = [*sides[i], *others[matched[i]]]
            # the ids of the two games this merge counts as another (a namesake's
            # game matches through a name and names none)
            counted = [
                f"{x} counted as {after[x]}"
                for x in dict.fromkeys(both)
                if x in after and before.get(x) != after[x]
            ]
            tails[i] = (
                f" after merge {merge} ({'; '.join(counted) or 'names of merged players'}): "
                f"{split_hint} puts it back"
            )
        near = {i: near[(i, s)] for i, s in matched.items() if (i, s) in near}
        details, dup_of = _details(
            index, matched, inc, old, tails, _events(store, games, old, matched), near
        )
        out = games.take(pa.array(index, pa.int64()))
        rows.append(_quarantine_rows(out.column("source").to_pylist(), details, merge))
        out = out.append_column("merge", pa.array([merge] * len(index), pa.string()))
        taken.append(out.append_column("duplicate_of", pa.array(dup_of, pa.string())))
        gone = pl.concat([gone, pl.Series("game_id", out.column("game_id").to_pylist())])
    if notes is not None and unread:
        notes.append(_unread_note(store, unread))
    if not taken:
        return None
    return TakenOut(
        pa.concat_tables(taken).select(HELD_COLUMNS.names).cast(HELD_COLUMNS),
        pa.concat_tables(rows),
    )


def _unread(
    short: pl.DataFrame,
    matched: dict[int, int],
    inc: pl.DataFrame,
    old: pl.DataFrame,
    plies: _StorePlies,
) -> list[tuple[str, str]]:
    """The pairs the near-date rule left apart at a merge for want of a length (no file
    gave it: ``_StorePlies``), whose dates it would take for one game's: (``file:line``,
    the stored game's id), one per game."""
    rows = short.filter(~pl.col("_i").is_in(list(matched))).sort("_i", "_s")
    rows = rows.unique("_i", keep="first", maintain_order=True)
    if rows.height == 0:
        return []
    lengths = plies.of(rows.get_column("_i").to_list())
    mine = {r[0]: r[1:] for r in inc.select("_i", "source", "_y", "_m", "_d").iter_rows()}
    theirs = {r[0]: r[1:] for r in old.select("_s", "game_id", "_y", "_m", "_d").iter_rows()}
    out = []
    for i, s in rows.iter_rows():
        source, *here = mine[i]
        other, *there = theirs[s]
        if lengths.get(i) is None and _dates_fit(tuple(here), tuple(there)):
            out.append((source, other))
    return out


def _unread_note(store: Store, unread: list[tuple[str, str]]) -> str:
    """The merge's note on ``_unread``'s pairs: they stay rated, and how to check them."""
    manifest = store.read_manifest()
    labels, keys = (manifest.column(c).to_pylist() for c in ("source", "source_key"))
    key = dict(zip(labels, keys))
    files = dict.fromkeys(
        key.get(label) or label for label in (source.rsplit(":", 1)[0] for source, _ in unread)
    )
    items = [f"{source} and game {other}" for source, other in unread]
    return (
        f"{len(unread)} game(s) have the moves, White, Black and result of a game of another "
        f"file under a date that disagrees ({_examples(items)}): a copy when the main line "
        f"has {MIN_PLIES // 2} moves or more, but their length could not be read, the file "
        f"ingested ({', '.join(files)}) not being at that path with the bytes stored: they "
        "stay rated; to check them, undo this merge (arpad players split) and make it again "
        'from the directory the files were ingested from (docs/pgn-trf.md "Probable '
        'duplicates")'
    )


def still_duplicates(store: Store, held: pa.Table) -> set[str]:
    """The game ids of ``held`` (games a merge took out, ``HELD_COLUMNS``) that are still
    probable duplicates of a stored game of another file with the merges in force in
    ``store`` (after a split, or a new version of the file of the game they repeated,
    the others go back). Any other file: the copy that stays stored counts, and the
    source a held game repeated may be stored later now (a new version of it is its
    latest ingest; round 14: its held copies all went back, each game counted twice)."""
    order = ingest_order(store)
    rank = {b: n for n, b in enumerate(order)}
    batches = pc.replace_substring_regex(
        pc.replace_substring_regex(held.column("file"), r"^.*/part-", ""), r"\.parquet$", ""
    ).to_pylist()
    aliases = identity.alias_map(store)
    still: set[str] = set()
    for batch in sorted(set(batches), key=lambda b: rank.get(b, len(rank))):
        games = held.filter(pa.array([b == batch for b in batches]))
        ignore = {f"part-{batch}.parquet"}
        found = _candidates(store, _without_digest(store, games), ignore, near=True)
        if found is None:
            continue
        pairs, inc, old = _pairs(store, *found, aliases, near=True)
        # a held copy and the game it was taken out for, by the near-date rule when the
        # merge took it: that pair stands (its length read then)
        named = dict(zip(range(games.num_rows), games.column("duplicate_of").to_pylist()))
        theirs = dict(old.select("_s", "game_id").iter_rows())
        near = pairs.filter(pl.col("_kind") == 2).select("_i", "_s").iter_rows()
        known = {(i, s) for i, s in near if named.get(i) == theirs[s]}
        plies = _StorePlies(store, inc, old, pairs.filter(pl.col("_kind") == 2))
        pairs, _, _, _ = _near_pairs(pairs, inc, old, plies, known)
        ids = games.column("game_id").to_pylist()
        still |= {ids[i] for i in _one_for_one(pairs)}
    return still


# -- copies of games a new version removes (docs/pgn-trf.md "Probable duplicates") -----
# Appended to the detail of a quarantined copy whose stored game a new version of its
# source removed or changed: the next ingest of the copy's file reads it again
# (``orphans``) instead of skipping the bytes it already holds.
ORPHAN_MARK = "that game is no longer stored as it was"
_NAMED = re.compile(
    r"^probable duplicate of game (.+?) stored from |^the same .+? as game (.+?) stored from "
)


class Gone(set):
    """``gone_games``' answer: the game ids a new version removes or changes (a set), and
    ``moved``: old id -> (its source, the new id, the new source) of the games it holds
    under another id with the same moves, result and date (round 15: a player re-spelt,
    "Morphy, Paul" -> "Morphy, Paul Charles", or another Event or Site tag). Those are
    not gone: their copies stay quarantined, naming the game as stored now."""

    def __init__(self, ids=(), moved: dict[str, tuple[str, str, str]] | None = None):
        super().__init__(ids)
        self.moved = dict(moved or {})


def _games_key(row: dict) -> tuple:
    """What a game of a source keeps under another id in a new version of it: pool,
    period, date and its precision, result and moves' digest."""
    return (
        row["pool"],
        row["period"],
        row["date"],
        row["date_precision"],
        row["score"],
        row["moves_digest"],
    )


def gone_games(store: Store, old_batches, accepted: pa.Table) -> Gone:
    """The game ids of the stored versions ``old_batches`` of a source that its new
    version (``accepted``) does not hold with the same result: removed, re-dated (a
    PGN id holds the date) or another score. A game the new version holds under another
    id with the same pool, date, result and moves (or, without moves, one side's id
    too) is not gone: ``Gone.moved`` names it (one for one, in file order)."""
    cols = ["game_id", "score", "date", "date_precision", "moves_digest", "white_id"]
    cols += ["black_id", "source"]
    old: list[dict] = []
    for batch in old_batches:
        for f in store.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"):
            t = read_parquet_file(f)
            t = t.select([c for c in cols if c in t.column_names]).to_pylist()
            pool = f.parent.parent.name.split("=", 1)[1]
            period = int(f.parent.name.split("=", 1)[1])
            for row in t:
                row.setdefault("date_precision", None)
                row.setdefault("moves_digest", None)
                old.append({**row, "pool": pool, "period": period})
    if not old:
        return Gone()
    new_rows = schemas.conform(accepted, schemas.GAMES).select([*cols, "pool", "period"])
    new_rows = new_rows.to_pylist()
    new = {r["game_id"]: r["score"] for r in new_rows}
    gone = {r["game_id"] for r in old if r["game_id"] not in new or new[r["game_id"]] != r["score"]}
    # the games removed (not changed): held under another id?
    stored = {r["game_id"] for r in old}
    added: dict[tuple, list[dict]] = {}
    for r in new_rows:
        if r["game_id"] not in stored:
            added.setdefault(_games_key(r), []).append(r)
    moved: dict[str, tuple[str, str, str]] = {}
    old.sort(key=lambda r: (_line_of(r["source"]), r["game_id"]))
    for r in old:
        if r["game_id"] in new:
            continue
        free = added.get(_games_key(r), [])
        for k, cand in enumerate(free):
            if r["moves_digest"] is not None or (
                cand["white_id"] == r["white_id"] or cand["black_id"] == r["black_id"]
            ):
                moved[r["game_id"]] = (r["source"], cand["game_id"], cand["source"])
                del free[k]
                break
    return Gone(gone - set(moved), moved)


def _line_of(source: str | None) -> int:
    tail = (source or "").rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _named_game(detail: str | None) -> str | None:
    """The stored game a ``probable_duplicate`` or ``conflicting_result`` detail names."""
    hit = _NAMED.match(detail or "")
    return None if hit is None else hit.group(1) or hit.group(2)


def orphaned_copies(staged, gone: set[str], label: str, skip) -> list[str]:
    """After a new version of the source ``label`` (staged in ``staged``) that removes or
    changes the games ``gone``: the quarantined copies of those games in other files'
    ingests (``probable_duplicate``, ``conflicting_result``; ``skip``: the batches of
    this source) get ``ORPHAN_MARK`` in their detail, in the same transaction, and the
    note naming them and the command that checks them again (their file ingested again
    is read, not skipped: ``orphans``). Copies a merge took out are put back after it
    (``put_back_orphans``). The copies of games it holds under another id
    (``Gone.moved``: a player re-spelt) stay quarantined, their detail naming the game
    as stored now (so that a later version removing it finds them), and a note says so."""
    moved = getattr(gone, "moved", {})
    if not gone and not moved:
        return []
    store = staged.real
    manifest = store.read_manifest()
    rows = zip(*(manifest.column(c).to_pylist() for c in ("batch", "kind", "source", "source_key")))
    found: list[tuple[str, str, int, str]] = []  # (file to ingest, source, line, game)
    kept: list[str] = []  # the copies of games held under another id now
    wanted = (Reason.PROBABLE_DUPLICATE.value, Reason.CONFLICTING_RESULT.value)
    for batch, kind, source, key in rows:
        path = store.quarantine_dir / f"batch={batch}" / "part-0.parquet"
        if kind != "games" or batch in skip or not path.exists():
            continue
        table = read_parquet_file(path)
        details = table.column("detail").to_pylist()
        reasons = table.column("reason").to_pylist()
        lines = table.column("line").to_pylist()
        marked = False
        for k, (reason, detail) in enumerate(zip(reasons, details)):
            named = _named_game(detail)
            if reason not in wanted or ORPHAN_MARK in (detail or ""):
                continue
            if named in moved:
                was, now, where = moved[named]
                details[k] = detail.replace(
                    f"game {named} stored from {was}", f"game {now} stored from {where}", 1
                ) + (f" (game {named} until a new version of {label} stored it under this id)")
                kept.append(f"{source}:{lines[k]} of game {now}")
                marked = True
                continue
            if named not in gone:
                continue
            details[k] = (
                f"{detail} ({ORPHAN_MARK}: a new version of {label} removed it or changed "
                f"its result; arpad ingest {key or source} checks this copy again)"
            )
            found.append((key or source, source, lines[k], named))
            marked = True
        if marked:
            at = table.schema.get_field_index("detail")
            staged.write_quarantine(table.set_column(at, "detail", pa.array(details)), batch)
    notes = []
    if kept:
        notes.append(
            f"{len(kept)} game(s) of other files quarantined as copies of games this version "
            "holds under another id (the same moves, result and date under other player "
            f"names or tags: {_examples(kept)}) stay quarantined: the game is still stored "
            "once, and their details name it as it is stored now"
        )
    if not found:
        return notes
    files = list(dict.fromkeys(f[0] for f in found))
    items = [f"{source}:{line} of game {game}" for _, source, line, game in found]
    return [
        f"{len(found)} game(s) of other files quarantined as copies of games this version "
        f"removes or changes ({_examples(items)}) stay out of the ratings until their "
        "file is checked against the store as it is now: ingest it again ("
        + "; ".join(f"arpad ingest {f}" for f in files)
        + "; a copy of a game still stored, under its old date or another, stays "
        'quarantined; docs/pgn-trf.md "Probable duplicates")',
        *notes,
    ]


def orphans(store: Store, batch: str) -> int:
    """How many quarantined copies of the ingest ``batch`` name a game a new version of
    its source removed or changed since (``orphaned_copies``): such bytes ingested again
    are read again, a new version of their source."""
    path = store.quarantine_dir / f"batch={batch}" / "part-0.parquet"
    if not path.exists():
        return 0
    details = read_parquet_file(path).column("detail")
    return int(pc.sum(pc.match_substring(details, ORPHAN_MARK)).as_py() or 0)


def orphans_note(label: str, n: int) -> str:
    """The ingest note on bytes read again for their ``n`` orphaned copies."""
    return (
        f"these bytes are stored (as {label}), but {n} of the copies they quarantined "
        "named games that a new version of another source has removed or changed since: "
        f"read again as a new version of {label}, checked against the store as it is now"
    )


def _other_result(store: Store, games: pa.Table) -> set[str]:
    """The game ids of held ``games`` (``HELD_COLUMNS``) that a stored game of another
    file repeats with another result (the same players, and moves or a date, by the
    rule of the module docstring under another score): conflicting sources, not copies
    to put back into the rated games."""
    files = games.column("file").to_pylist()
    out: set[str] = set()
    for rel in dict.fromkeys(files):
        mine = games.filter(pa.array([f == rel for f in files]))
        batch = rel.rsplit("/part-", 1)[-1].removesuffix(".parquet")
        at = mine.schema.get_field_index("score")
        own = mine.column("score").to_pylist()
        variants = [
            mine.filter(pa.array([x != score for x in own])).set_column(
                at, "score", pa.array([score] * sum(x != score for x in own), pa.float32())
            )
            for score in (0.0, 0.5, 1.0)
        ]
        games_v = pa.concat_tables([v for v in variants if v.num_rows])
        if games_v.num_rows == 0:
            continue
        found = _candidates(store, _without_digest(store, games_v), {f"part-{batch}.parquet"})
        if found is None:
            continue
        pairs, _, _ = _pairs(store, *found, identity.alias_map(store))
        ids = games_v.column("game_id").to_pylist()
        out |= {ids[i] for i in pairs.get_column("_i").unique().to_list()}
    return out


def put_back_orphans(store: Store, gone: set[str]) -> list[str]:
    """After a new version of a source that removes or changes the games ``gone``: the
    games merges took out as copies of them (``after_merge``, held whole; those of games
    it holds under another id, ``Gone.moved``, stay, naming that id) that are no
    longer probable duplicates of a stored game of another file, nor repeat one with
    another result, go back into their games files (the split's ``identity.put_back``,
    one more staged transaction: before it the store is as the new version left it).
    Returns the note."""
    from arpad.pipeline.store import atomic_write_parquet

    held_file = identity.held_path(store)
    moved = getattr(gone, "moved", {})
    if (not gone and not moved) or not held_file.exists():
        return []
    held = read_parquet_file(held_file).select(HELD_COLUMNS.names).cast(HELD_COLUMNS)
    named = held.column("duplicate_of").to_pylist()
    now = [moved[d][1] if d in moved else d for d in named]
    if now != named:  # the games it holds under another id: the held copies name them so
        held = held.set_column(
            held.schema.get_field_index("duplicate_of"), "duplicate_of", pa.array(now, pa.string())
        )
        staged = identity.staged_store(store, "putback")
        atomic_write_parquet(held, identity.held_path(staged), staged.root)
        identity.commit_staged(staged)
    if not gone:
        return []
    current = set(store.read_manifest().column("batch").to_pylist())
    batches = [
        f.rsplit("/part-", 1)[-1].removesuffix(".parquet") for f in held.column("file").to_pylist()
    ]
    named = [
        d in gone and b in current for d, b in zip(held.column("duplicate_of").to_pylist(), batches)
    ]
    candidates = held.filter(pa.array(named, pa.bool_()))
    if candidates.num_rows == 0:
        return []
    stay = still_duplicates(store, candidates)
    ids = candidates.column("game_id").to_pylist()
    free = candidates.filter(pa.array([g not in stay for g in ids], pa.bool_()))
    other = _other_result(store, free) if free.num_rows else set()
    back = free.filter(
        pa.array([g not in other for g in free.column("game_id").to_pylist()], pa.bool_())
    )
    out = []
    if back.num_rows:
        # identity.put_back on a held view of these games only, the rest held after it
        staged = identity.staged_store(store, "putback")
        staged_held = identity.held_path(staged)
        atomic_write_parquet(back, staged_held, staged.root)
        identity.put_back(staged)
        returned = pa.array(back.column("game_id").to_pylist(), pa.string())
        left = held.filter(pc.invert(pc.is_in(held.column("game_id"), returned)))
        atomic_write_parquet(left, staged_held, staged.root)
        identity.commit_staged(staged)
        items = [
            f"{src} as a copy of {d}"
            for src, d in zip(
                back.column("source").to_pylist(), back.column("duplicate_of").to_pylist()
            )
        ]
        out.append(
            f"{back.num_rows} game(s) a merge had taken out as copies of games this version "
            f"removes or changes put back into the rated games ({_examples(items)}): they "
            "repeat no stored game now"
        )
    if stay or other:
        out.append(
            f"{len(stay) + len(other)} game(s) a merge took out as copies of games this "
            "version removes or changes stay out: "
            + ", ".join(
                t
                for t in (
                    f"{len(stay)} repeat another stored game" if stay else "",
                    f"{len(other)} repeat a stored game with another result now (conflicting "
                    "sources: arpad players split KEEP DUPLICATE puts them back)"
                    if other
                    else "",
                )
                if t
            )
        )
    return out
