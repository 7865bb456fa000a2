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

A side is "equal" when the two ids are equal (after merges, docs/identity.md) or the
two names are equal up to case, blanks and punctuation ("Capablanca, Jose Raul" and
"capablanca,  jose raul."). Matching is one for one: two games of one day between
the same players with the same result in one file (a match played twice a day) match
at most two stored games, the first with the first (a stored game with the same
moves first). Games of one file are never compared with each other, and games dated
only to the month or year are compared by their moves only (a year holds many games
between two masters; docs/pgn-trf.md "Move digest").
"""

from __future__ import annotations

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

_STORED = ["game_id", "date", "white_id", "black_id", "score", "source"]
# Compared too, but null in files written before they existed (docs/pgn-trf.md "Move digest").
_LATER = {"date_precision": pl.String, "moves_digest": pl.Int64}
# What a stored games file must hold for the check (the one-line error of a damaged
# file otherwise), and the types of those columns and of ``_LATER``'s.
_REQUIRED = pa.schema([schemas.GAMES_FILE.field(c) for c in _STORED])
_EXPECTED = pa.schema([schemas.GAMES_FILE.field(c) for c in (*_STORED, *_LATER)])
_INCOMING = [
    *("date", "period", "pool", "white_id", "black_id", "score"),
    *("date_precision", "moves_digest"),
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
    period for a complete date; with moves, every period where a game of a compatible
    date is stored (a year-only game: the whole year; a month: that month and the
    year's year-only games, in December or, this year, the latest valid month)."""
    from arpad.pipeline import periods

    last = periods.last_month()
    wanted: set[tuple[str, int]] = set()
    dated = incoming.filter(pl.col("date").is_not_null()).select("pool", "period").unique()
    wanted.update((pool, int(period)) for pool, period in dated.iter_rows())
    moved = incoming.filter(pl.col("moves_digest").is_not_null()).select("pool", "_y", "_m")
    for pool, y, m in moved.unique().iter_rows():
        months = range(1, 13) if m is None else (m, 12)
        wanted.update((pool, y * 100 + k) for k in months)
        if last // 100 == y:
            wanted.add((pool, last))
    return wanted


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


def drop_probable_duplicates(
    store: Store,
    v: Validated,
    batch: str,
    replaced_batches: list[str] | tuple[str, ...] = (),
    players: pl.DataFrame | None = None,
) -> tuple[Validated, int]:
    """``v`` without its probable duplicates (see the module docstring), which join its
    quarantine as ``probable_duplicate``. ``players``: the raw players the file
    describes (their names). Returns the games left and how many were quarantined."""
    games = v.accepted
    if games.num_rows == 0:
        return v, 0
    incoming = pl.from_arrow(schemas.conform(games, schemas.GAMES).select(_INCOMING))
    incoming = _known_parts(incoming.with_row_index("_i")).filter(
        pl.col("date").is_not_null() | pl.col("moves_digest").is_not_null()
    )
    if incoming.height == 0:
        return v, 0
    ignore = {f"part-{b}.parquet" for b in [batch, *replaced_batches]}
    stored = _stored(store, _wanted(incoming), ignore)
    if stored is None:
        return v, 0
    # a stored game under the id of an incoming one is that game (--replace replaces
    # it; otherwise the copy is already duplicate_game_id)
    stored = stored.filter(
        ~pl.col("game_id").is_in(pl.Series(games.column("game_id")).implode())
        & (
            pl.col("date").is_in(incoming.get_column("date").drop_nulls().unique().implode())
            | pl.col("moves_digest").is_not_null()
        )
    )
    if stored.height == 0:
        return v, 0
    aliases = identity.alias_map(store)
    keys = _keys_by_id(_names(store, players), aliases)
    inc = _sides(incoming, keys, aliases)
    old = _known_parts(_sides(stored.with_row_index("_s"), keys, aliases))
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
    compatible = (
        pl.col("_m").is_null() | pl.col("_m_old").is_null() | (pl.col("_m") == pl.col("_m_old"))
    ) & (pl.col("_d").is_null() | pl.col("_d_old").is_null() | (pl.col("_d") == pl.col("_d_old")))
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
    pairs = pl.concat([*by_date, *by_moves]).unique()
    if pairs.height == 0:
        return v, 0
    # the same moves first: of two stored games of one day, the copy is the one
    # with its moves
    digests = pairs.join(inc.select("_i", pl.col("moves_digest").alias("_mi")), on="_i").join(
        old.select("_s", pl.col("moves_digest").alias("_ms")), on="_s"
    )
    pairs = digests.with_columns(
        (pl.col("_mi") == pl.col("_ms")).fill_null(False).alias("_same")
    ).select("_i", "_s", "_same")
    matched = _one_for_one(pairs)
    if not matched:
        return v, 0
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
    index = sorted(matched)
    dups = games.take(pa.array(index, pa.int64()))
    keep = pc.invert(
        pc.is_in(pa.array(range(games.num_rows), pa.int64()), value_set=pa.array(index, pa.int64()))
    )
    sources = dups.column("source").to_pylist()
    details = []
    for i in index:
        other_id, other_source, oy, om, od, omoves = where[matched[i]]
        y, m, d, moves, date = mine[i]
        if date is not None and od is not None and (y, m, d) == (oy, om, od):
            same = (
                "same date, White, Black, result and moves"
                if moves is not None and moves == omoves
                else "same date, White, Black and result"
            )
        else:
            same = (
                f"same White, Black, result and moves; dates {_date_text(y, m, d)} and "
                f"{_date_text(oy, om, od)} agree where both are known"
            )
        details.append(
            f"probable duplicate of game {other_id} stored from {other_source} ({same}; "
            f"Event/Site/Round spelt differently): {KEEP_OPTION} keeps it"
        )
    rows = pa.table(
        {
            "source": [s.rsplit(":", 1)[0] for s in sources],
            "line": [int(s.rsplit(":", 1)[1]) for s in sources],
            "reason": [Reason.PROBABLE_DUPLICATE.value] * len(index),
            "detail": details,
            "raw": [None] * len(index),
            "ingest_batch": [batch] * len(index),
        },
        schema=schemas.QUARANTINE,
    )
    kept = Validated(
        games.filter(keep),
        pa.concat_tables([v.quarantine, rows]).sort_by("line"),
        v.rows_read,
    )
    return kept, len(index)


def _one_for_one(pairs: pl.DataFrame) -> dict[int, int]:
    """Incoming row -> the stored row it duplicates, each stored row used once: incoming
    rows in file order take the first stored row still free, those with the same
    moves (``_same``) first, then in stored order."""
    used: set[int] = set()
    out: dict[int, int] = {}
    ordered = pairs.sort(["_i", "_same", "_s"], descending=[False, True, False])
    for i, s in zip(ordered.get_column("_i").to_list(), ordered.get_column("_s").to_list()):
        if i not in out and s not in used:
            used.add(s)
            out[i] = s
    return out


def note(n: int) -> str:
    """The ingest summary's line on the probable duplicates of a file."""
    return (
        f"{n} game(s) with the players, result and date (or moves and a date that "
        "agrees) of a game of another file: "
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
