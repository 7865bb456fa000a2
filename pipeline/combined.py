"""FIDE's combined list file: the standard, rapid and blitz lists of one period on one
line per player (docs/lists.md "Combined file").

``combined_frame`` joins the lists of ``COMBINED_POOLS`` (``lists.list_frame`` of each
pool that has one for the period) by player: the player fields once, then rating,
games and K per pool, the birth year and one flag (``w`` woman; ``i`` when the
player is inactive on every pool list they are on). ``arpad list --pool all`` writes
it; ``arpad publish`` adds it to a publication when the system has more than one of
these pools rated (pipeline/publish.py).
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline import list_text, lists

# The pools of the combined file, in FIDE's order, with the header prefix of each.
COMBINED_POOLS = (("standard", "S"), ("rapid", "R"), ("blitz", "B"))
ALL_POOLS = "all"  # ``arpad list --pool all``

PLAYER_COLUMNS = (
    "player_id",
    "name",
    "federation",
    "sex",
    "title",
    "w_title",
    "o_title",
    "foa_title",
)
POOL_FIELDS = ("rating", "games", "k")
COMBINED_COLUMNS = (
    *PLAYER_COLUMNS,
    *(f"{pool}_{f}" for pool, _ in COMBINED_POOLS for f in POOL_FIELDS),
    "birth_year",
    "flag",
)

# What ``arpad list --pool all`` prints as a table (the files have every column).
TABLE_COLUMNS = (
    "player_id",
    "name",
    "federation",
    "title",
    *(f"{pool}_{f}" for pool, _ in COMBINED_POOLS for f in ("rating", "games")),
    "flag",
)

# (header, column, 0-based start, width): the player fields as in the per-pool file
# (lists.FIDE_TXT_LAYOUT), then rating 6, games 4, K 3 per pool, B-day 6, Flag 4.
COMBINED_TXT_LAYOUT = (
    *lists.FIDE_TXT_LAYOUT[: lists.FIDE_TXT_PLAYER_FIELDS],
    ("SRtng", "standard_rating", 113, 6),
    ("SGm", "standard_games", 119, 4),
    ("SK", "standard_k", 123, 3),
    ("RRtng", "rapid_rating", 126, 6),
    ("RGm", "rapid_games", 132, 4),
    ("Rk", "rapid_k", 136, 3),
    ("BRtng", "blitz_rating", 139, 6),
    ("BGm", "blitz_games", 145, 4),
    ("BK", "blitz_k", 149, 3),
    ("B-day", "birth_year", 152, 6),
    ("Flag", "flag", 158, 4),
)

# FIDE's combined XML download names the standard fields like the per-pool file and
# prefixes the others.
COMBINED_XML_ELEMENTS = (
    *lists.FIDE_XML_ELEMENTS[: lists.FIDE_XML_PLAYER_FIELDS],
    ("rating", "standard_rating"),
    ("games", "standard_games"),
    ("k", "standard_k"),
    ("rapid_rating", "rapid_rating"),
    ("rapid_games", "rapid_games"),
    ("rapid_k", "rapid_k"),
    ("blitz_rating", "blitz_rating"),
    ("blitz_games", "blitz_games"),
    ("blitz_k", "blitz_k"),
    ("birthday", "birth_year"),
    ("flag", "flag"),
)


def pool_periods(store, system: str, pool: str, frozen: bool = False) -> list[int]:
    """The periods of ``system``/``pool`` with a list: the rated ones; ``frozen`` (the
    lists as published, ``--in-force``): the published ones too, whose ratings may be
    gone (docs/store.md "A pool left with no games": frozen lists stay)."""
    rated = store.rating_periods(system, pool)
    if not frozen:
        return rated
    return sorted({*rated, *store.published_periods(system, pool)})


def rated_pools(store, system: str, frozen: bool = False) -> list[str]:
    """The pools of ``COMBINED_POOLS`` that ``system`` has ratings for (``frozen``: or a
    published list, ``pool_periods``)."""
    return [pool for pool, _ in COMBINED_POOLS if pool_periods(store, system, pool, frozen)]


def combined_frame(
    store, system: str, period: int | None = None, top: int | None = None, frozen: bool = False
):
    """(frame, period): the combined list of ``period`` (default: the latest period any
    of the pools has rated) in ``COMBINED_COLUMNS``, sorted by name then id (FIDE's
    download is alphabetical); ``frozen``: each pool's list as published, when it was
    (``lists.published_list``), also of a pool whose ratings of the period are gone since
    (docs/lists.md "--in-force"). A pool without games in the period but with a list
    before it has that list carried forward (``lists.carried_list``: 0 games, no K);
    a pool without any list up to the period leaves its columns empty; no list in any
    pool is ``EmptyListError`` (or ValueError for a period no pool has rated)."""
    pools = rated_pools(store, system, frozen)
    if not pools:
        raise ValueError(
            f"no {system} ratings for the standard, rapid or blitz pools; run arpad rate first"
        )
    if period is None:
        period = max(max(pool_periods(store, system, pool, frozen)) for pool in pools)
    frames: dict[str, pl.DataFrame] = {}
    empty = None
    for pool in pools:
        # rated, or (``frozen``) published with its ratings removed since, or carried
        # forward from the pool's latest list (no games of the pool in the period)
        listed = pool_periods(store, system, pool, frozen)
        if period not in listed and period not in lists.carried_periods(
            store, system, pool, frozen
        ):
            continue
        try:
            frames[pool], _ = lists.list_frame(store, system, pool, period, frozen=frozen)
        except lists.EmptyListError as exc:
            empty = exc
    if not frames:
        if empty is not None:
            raise empty
        raise ValueError(f"no {system} list of any pool for period {period}")
    woman = pl.col("sex").str.strip_chars().str.to_uppercase().is_in(["F", "W"]).fill_null(False)
    people = pl.concat(
        [f.select(*PLAYER_COLUMNS, "birth_year") for f in frames.values()], how="vertical_relaxed"
    ).unique("player_id", keep="first", maintain_order=True)
    out = people
    active = []
    for pool, _ in COMBINED_POOLS:
        if pool in frames:
            part = frames[pool].select(
                "player_id",
                *(pl.col(f).alias(f"{pool}_{f}") for f in POOL_FIELDS),
                # the pool list's flag ``i`` (docs/lists.md), not "no game this period"
                ~pl.col("flag").fill_null("").str.contains("i").alias(f"_{pool}_active"),
            )
            out = out.join(part, on="player_id", how="left")
            active.append(pl.col(f"_{pool}_active").fill_null(False))
        else:
            out = out.with_columns(pl.lit(None, pl.Int64).alias(f"{pool}_{f}") for f in POOL_FIELDS)
    inactive = ~pl.any_horizontal(active)
    out = out.with_columns(
        pl.concat_str(
            pl.when(woman).then(pl.lit("w")).otherwise(pl.lit("")),
            pl.when(inactive).then(pl.lit("i")).otherwise(pl.lit("")),
        )
        .replace("", None)
        .alias("flag")
    )
    # alphabetical: accents removed and case folded, then as written, then id (list_text)
    key = pl.Series("_key", [list_text.name_key(n) for n in out["name"].to_list()], pl.String)
    out = out.with_columns(key).sort("_key", pl.col("name").fill_null(""), "player_id")
    out = out.select(COMBINED_COLUMNS)
    if top:
        out = out.head(top)
    return out, period


def combined_txt(frame: pl.DataFrame) -> str:
    """The combined fixed-width file: header line, one line per player; ratings are
    whole numbers (rounded half away from zero for systems that keep decimals)."""
    whole = [f"{pool}_{f}" for pool, _ in COMBINED_POOLS for f in ("rating", "k")]
    frame = frame.with_columns(lists._whole(frame[c]) for c in whole if frame[c].dtype.is_float())
    return lists.txt_file(frame, COMBINED_TXT_LAYOUT)


def combined_xml(frame: pl.DataFrame) -> str:
    """``<playerslist><player>…</player></playerslist>`` with ``COMBINED_XML_ELEMENTS``."""
    return lists.fide_xml(frame, COMBINED_XML_ELEMENTS)


def write_combined(frame: pl.DataFrame, fmt: str, out: str | None, root=None, max_rows=50):
    """Print or write (atomically) the combined list in ``fmt`` (``lists.LIST_FORMATS``)."""
    from arpad.pipeline.lists import emit

    emit(frame, fmt, out, combined_txt, combined_xml, TABLE_COLUMNS, root=root, max_rows=max_rows)
