"""Player identity across sources (docs/pgn-trf.md "Player identity").

A player's id is the FIDE id when a source gives one (PGN ``WhiteFideId``, TRF
columns 58–68, or a CSV's own ``player_id``), else an id scoped to the source
(``<file>:<name>`` for PGN, ``<file>#<starting rank>`` for TRF), so two
different "Smith, J" in two files never merge by accident.

The ``players`` table keeps, per column, the latest non-null value any source
gave, except that a games file's description never overwrites a field a players
file gave (``register_fields``; docs/ingest.md "The register wins"). What each
source said is kept in ``STORE/players/observations.parquet`` (one row per player
and source; a corrected source replaces its rows), so that
disagreements stay visible: ``conflicts`` lists players whose sources give
different values of a field that matters (birth year, and the starting state the
rating systems read: rating, rated games, peak rating, rd, volatility, grade),
one row per player, field and source (``arpad players --conflicts``).

One person under several ids is merged through an alias table
(``STORE/players/aliases.parquet``, duplicate -> keep) that the engine applies when
it reads games; ``split`` deletes the alias; ``candidates`` proposes merges from
normalised names, birth years, years of play and shared opponents
(docs/identity.md).
"""

from __future__ import annotations

import re

import polars as pl

from arpad.pipeline import list_text, observations, schemas
from arpad.pipeline.store import Store, atomic_write_parquet, read_parquet_file
from arpad.pipeline.transliterate import phonetic_key, variant_key

OBSERVED = ("name", "birth_year", "federation", "sex", "title", "w_title")
# A player's titles (FIDE's Tit and WTit). A players file with a ``title`` or ``w_title``
# column gives both: its empty cell is kept as "" (no such title), so that it is told
# from a file that said nothing (``record_observations``; docs/ingest.md "The register
# wins"), and they are compared with the games files' (``conflicts``).
TITLE_FIELDS = ("title", "w_title")
# Numeric fields kept per source too, so that two files giving one player
# different ratings are reported instead of the last one winning silently.
OBSERVED_STATE = ("rating", "rated_games", "peak_rating", "rd", "volatility", "grade")
# Fields compared between sources, in report order.
CONFLICT_FIELDS = ("birth_year", *OBSERVED_STATE)
# Fields a players-file row gives its own pool (pipeline/ingest.py POOL_FIELDS): compared
# within one pool (``conflicts``).
POOL_FIELDS = ("rating", "rated_games", "peak_rating", "rd", "volatility")
FIELD_LABELS = {"birth_year": "birth year", "rated_games": "rated games", "peak_rating": "peak"}


def _dtype(column: str):
    if column in ("birth_year", "rated_games"):
        return pl.Int32
    if column in OBSERVED_STATE:
        return pl.Float64
    return pl.String


observations_path = observations.observations_path


def read_observations(store: Store) -> pl.DataFrame:
    schema = {"player_id": pl.String, "source": pl.String, "line": pl.Int64} | {
        c: _dtype(c) for c in (*OBSERVED, *OBSERVED_STATE)
    }
    # A players file's row with a date: a dated rating observation (docs/observations.md).
    schema |= {"period": pl.Int32, "pool": pl.String}
    path = observations_path(store)
    if not path.exists():
        return pl.DataFrame(schema=schema)
    frame = pl.from_arrow(read_parquet_file(path))
    # Observations written before the state fields were kept lack those columns.
    missing = [
        pl.lit(None, dtype).alias(c) for c, dtype in schema.items() if c not in frame.columns
    ]
    return frame.with_columns(missing).select(list(schema))


def record_observations(
    store: Store,
    players: pl.DataFrame,
    source: str,
    state: bool = False,
    dated: pl.DataFrame | None = None,
    titles: bool = False,
) -> None:
    """Replace ``source``'s observations with the accepted players rows it gave.

    ``state``: keep the starting-state fields too (players files). The ratings a PGN
    or TRF file gives are the ratings at that event; they differ between events by
    nature, so they are not compared. ``titles``: a players file with a title column
    (``TITLE_FIELDS``): an empty title is kept as ""."""
    kept = (*OBSERVED, *OBSERVED_STATE) if state else OBSERVED
    if state and titles:
        players = players.with_columns(pl.col(c).fill_null("") for c in TITLE_FIELDS)
    rows = players.select(
        "player_id",
        pl.lit(source).alias("source"),
        pl.col("source").str.extract(r":(\d+)$", 1).cast(pl.Int64).alias("line"),
        *[
            (pl.col(c) if c in players.columns and c in kept else pl.lit(None))
            .cast(_dtype(c))
            .alias(c)
            for c in (*OBSERVED, *OBSERVED_STATE)
        ],
        pl.col("source").alias("_key"),
    ).filter(pl.any_horizontal([pl.col(c).is_not_null() for c in kept]))
    # ``dated``: (source, period, pool) of a dated players file's rows (``file:line``).
    when = pl.DataFrame(schema={"_key": pl.String, "period": pl.Int32, "pool": pl.String})
    if dated is not None:
        when = dated.select(pl.col("source").alias("_key"), "period", "pool")
    rows = rows.join(when, on="_key", how="left", maintain_order="left").drop("_key")
    old = read_observations(store).filter(pl.col("source") != source)
    merged = pl.concat([old, rows], how="vertical_relaxed").sort("player_id", "source")
    atomic_write_parquet(merged.to_arrow(), observations_path(store), store.root)


def register_sources(store: Store) -> list[str]:
    """The stored players files (the federation's register), from the manifest."""
    manifest = store.read_manifest()
    kinds = manifest.column("kind").to_pylist()
    return [s for s, k in zip(manifest.column("source").to_pylist(), kinds) if k == "players"]


def register_fields(store: Store, ids: pl.Series) -> pl.DataFrame:
    """Per player of ``ids`` that a players file described: one Boolean column per field
    of ``OBSERVED`` and ``OBSERVED_STATE``, True when a players file gave it a value
    (docs/ingest.md "The register wins")."""
    fields = (*OBSERVED, *OBSERVED_STATE)
    obs = read_observations(store)
    obs = obs.filter(
        pl.col("source").is_in(register_sources(store)) & pl.col("player_id").is_in(ids.implode())
    )
    return obs.group_by("player_id").agg([pl.col(c).is_not_null().any() for c in fields])


def conflicts(store: Store) -> pl.DataFrame:
    """Players whose sources disagree on a field of ``CONFLICT_FIELDS``: one row per
    (player, field, source) with the value that source gave, sorted by player, field,
    source. The fields of ``POOL_FIELDS`` are compared within one pool (``_pools``):
    field ``rating``, ``rated_games`` ... (standard), ``rapid rating``, ``rapid
    rated_games``, ``blitz peak_rating`` ... The players table holds, of ``POOL_FIELDS``,
    the standard row's value (or a row's without a pool; a rapid or blitz row only fills
    an empty field, pipeline/ingest.py ``_merge_players``), and of the other fields
    (``birth_year``, ``grade``, and the uncompared name, federation, sex) the
    value of the file ingested last. The titles (``TITLE_FIELDS``) are compared for the
    players whose titles a players file gave (``_title_conflicts``)."""
    every = read_observations(store)
    # Dated observations differ over time by nature: only undated rows are compared.
    obs = every.filter(pl.col("period").is_null())
    frames = [_title_conflicts(store, every)]
    for field in CONFLICT_FIELDS:
        given = obs.filter(pl.col(field).is_not_null())
        if field in POOL_FIELDS:
            given = _pools(given, field)
        else:
            given = given.with_columns(
                pl.lit(None, pl.String).alias("_pool"), pl.lit(field).alias("_field")
            )
        key = ["player_id", "_pool"]
        bad = (
            given.group_by(key)
            .agg(pl.col(field).n_unique().alias("values"))
            .filter(pl.col("values") > 1)
        )
        frames.append(
            given.join(bad.select(key), on=key, how="semi", nulls_equal=True).select(
                "player_id",
                "source",
                "line",
                "name",
                pl.col("_field").alias("field"),
                pl.col(field).cast(pl.String).alias("value"),
            )
        )
    return pl.concat(frames).unique(maintain_order=True).sort("player_id", "field", "source")


def compared_titles(register: pl.Expr, prefix: str = "") -> list[pl.Expr]:
    """A source's ``title`` and ``w_title`` (columns ``prefix`` + name) as compared,
    upper case: a women's title (``WGM`` … ``WCM``) in ``title`` is the source's
    ``w_title`` when that is empty (a PGN's ``WhiteTitle "WIM"``, a players file's
    ``title`` column of FIDE's Tit), and says of the open title: nothing for a games
    file (null), none ("") for a players file (``register``), which gives a player's
    titles whole."""
    title = pl.col(f"{prefix}title").str.strip_chars().str.to_uppercase()
    w_title = pl.col(f"{prefix}w_title").str.strip_chars().str.to_uppercase()
    women = title.is_in(list_text.WOMEN_TITLES).fill_null(False)
    return [
        pl.when(women)
        .then(pl.when(register).then(pl.lit("")).otherwise(pl.lit(None, pl.String)))
        .otherwise(title)
        .alias(f"{prefix}title"),
        pl.when(w_title.is_null() | (w_title == ""))
        .then(pl.when(women).then(title).otherwise(w_title))
        .otherwise(w_title)
        .alias(f"{prefix}w_title"),
    ]


def _title_conflicts(store: Store, obs: pl.DataFrame) -> pl.DataFrame:
    """``conflicts``' rows of the titles: for each player whose titles a players file
    gave (a title column, even empty: ""), each of ``TITLE_FIELDS`` that his sources
    (players files and games files, dated rows too: a title is not a rating at a
    date) give different values of (``compared_titles``; "" shown as ``none``). Games
    files alone are not compared: a TRF of March may name the title of a promotion
    in February."""
    registers = register_sources(store)
    said = obs.with_columns(compared_titles(pl.col("source").is_in(registers)))
    described = said.filter(
        pl.col("source").is_in(registers)
        & (pl.col("title").is_not_null() | pl.col("w_title").is_not_null())
    ).get_column("player_id")
    said = said.filter(pl.col("player_id").is_in(described.implode()))
    frames = []
    for field in TITLE_FIELDS:
        given = said.filter(pl.col(field).is_not_null())
        bad = (
            given.group_by("player_id")
            .agg(pl.col(field).n_unique().alias("values"))
            .filter(pl.col("values") > 1)
        )
        frames.append(
            given.join(bad.select("player_id"), on="player_id", how="semi").select(
                "player_id",
                "source",
                "line",
                "name",
                pl.lit(field).alias("field"),
                pl.when(pl.col(field) == "")
                .then(pl.lit("none"))
                .otherwise(pl.col(field))
                .alias("value"),
            )
        )
    return pl.concat(frames)


def _pools(given: pl.DataFrame, field: str) -> pl.DataFrame:
    """``given``'s undated values of ``field`` once per pool they start (``_pool``;
    docs/observations.md "Undated ratings and pools"): a row with a pool in that pool, a
    row of a file without a pool column in every pool. ``_field``: ``field`` for
    standard, ``<pool> <field>`` for another pool that a row names; a disagreement
    between rows without a pool holds in every pool, and is reported once, as ``field``."""
    pools = pl.lit(list(schemas.POOLS), pl.List(pl.String))
    given = given.with_columns(
        pl.when(pl.col("pool").is_null())
        .then(pools)
        .otherwise(pl.concat_list(pl.col("pool")))
        .alias("_pool")
    ).explode("_pool")
    named = pl.col("pool").is_not_null().any().over("player_id", "_pool")
    other = named & (pl.col("_pool") != schemas.POOLS[0])
    label = pl.when(other).then(pl.format("{} " + field, pl.col("_pool"))).otherwise(pl.lit(field))
    return given.with_columns(label.alias("_field"))


def conflict_notes(store: Store, source: str, register: bool = True) -> list[str]:
    """Ingest summary lines: per field, the players on whom ``source`` disagrees with
    another source, with one example naming both files. ``register``: ``source`` is a
    players file (a games file never overwrites a players file's value)."""
    obs = read_observations(store).filter(pl.col("period").is_null())
    if not (obs.get_column("source") == source).any():
        return []  # the source said nothing about its players (a Parquet games file)
    if not obs.get_column("player_id").is_duplicated().any():
        return []  # each player named by one source at most: nothing can differ
    clash = conflicts(store)
    mine = clash.filter(pl.col("source") == source)
    notes = []
    # A field of POOL_FIELDS is compared within a pool: one note per pool (``conflicts``).
    for base, field, pool in [(c, f, p) for c in CONFLICT_FIELDS for f, p in _pool_fields(c)]:
        ids = mine.filter(pl.col("field") == field).get_column("player_id").unique().sort()
        if not len(ids):
            continue
        example = clash.filter((pl.col("field") == field) & (pl.col("player_id") == ids[0]))
        said = ", ".join(f"{v} in {s}" for s, v in example.select("source", "value").iter_rows())
        label = FIELD_LABELS.get(base, base)
        label = f"{pool} {label}" if pool else label  # "rapid rated games"
        rule = "the file ingested last wins"
        if pool and base != "rating":
            # the players table keeps one value, the standard row's (``conflicts``)
            rule = "the players table keeps the standard row's value, if any"
        if not register and set(example.get_column("source")) & set(register_sources(store)):
            rule = "the players file's value is kept"  # docs/ingest.md "The register wins"
        notes.append(
            f"{len(ids)} player(s) whose {label} differs between sources "
            f"(e.g. {ids[0]}: {said}; {rule}; arpad players --conflicts)"
        )
    return notes


def _pool_fields(field: str) -> list[tuple[str, str | None]]:
    """The ``field`` values ``conflicts`` gives ``field``, each with its pool (None:
    standard or every pool): a field of ``POOL_FIELDS``'s per pool."""
    if field not in POOL_FIELDS:
        return [(field, None)]
    return [(field, None), *((f"{pool} {field}", pool) for pool in schemas.POOLS[1:])]


# -- merging duplicate players (docs/identity.md) -------------------------------------------
ALIAS_COLUMNS = ("duplicate", "keep", "merged_at", "reason")
LOG_COLUMNS = ("at", "action", "keep", "duplicate", "reason", "stale_from")


def read_aliases(store: Store) -> pl.DataFrame:
    """The store's merges in force: one row per duplicate id, with the id it counts as."""
    table = store.read_aliases()
    if table is None:
        return pl.DataFrame(schema={c: pl.String for c in ALIAS_COLUMNS})
    return pl.from_arrow(table).select(ALIAS_COLUMNS)


def nfc(text: str) -> str:
    """``text`` in Unicode NFC, the one spelling ingest stores ids and names in
    (docs/ingest.md "One spelling of an id")."""
    import unicodedata

    return unicodedata.normalize("NFC", text)


def spelt_as_stored(text: str, known) -> str:
    """``text``, or its NFC spelling when only that is among ``known`` ids (an id typed
    decomposed, as a macOS terminal may send it, names the stored composed id)."""
    if text in known:
        return text
    composed = nfc(text)
    return composed if composed in known else text


def resolve_id(store: Store, player_id: str) -> str:
    """The id ``player_id``'s games count as: the kept id of a merged duplicate
    (aliases never chain, ``merge``), else ``player_id`` itself."""
    table = store.read_aliases()
    if table is None:
        return player_id
    current = dict(zip(table.column("duplicate").to_pylist(), table.column("keep").to_pylist()))
    return current.get(spelt_as_stored(player_id, current), player_id)


def duplicates_of(store: Store, keep: str) -> list[str]:
    """The ids merged into ``keep``, sorted."""
    aliases = read_aliases(store)
    return sorted(aliases.filter(pl.col("keep") == keep).get_column("duplicate").to_list())


def alias_map(store: Store) -> dict[str, str]:
    """duplicate -> keep of every merge in force."""
    aliases = read_aliases(store)
    return dict(zip(aliases["duplicate"].to_list(), aliases["keep"].to_list(), strict=True))


def read_merge_log(store: Store) -> pl.DataFrame:
    """Every merge and split ever applied (the audit trail), oldest first."""
    schema = {c: pl.String for c in LOG_COLUMNS}
    if not store.merges_path.exists():
        return pl.DataFrame(schema=schema)
    return pl.from_arrow(read_parquet_file(store.merges_path)).select(LOG_COLUMNS)


def _earliest_periods(store: Store, ids: set[str]) -> list[tuple[str, int]]:
    """(pool, earliest period) where any of ``ids`` has a stored game, per pool."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    value_set = pa.array(sorted(ids), type=pa.string())
    touched = []
    for pool in store.pools():
        for period in store.periods(pool):
            hit = False
            for f in store.game_files(pool, period):
                t = pq.read_table(f, columns=["white_id", "black_id"])
                for col in ("white_id", "black_id"):
                    if pc.any(pc.is_in(t.column(col).cast("string"), value_set=value_set)).as_py():
                        hit = True
            if hit:
                touched.append((pool, period))
                break
    return touched


def _known_ids(store: Store) -> set[str]:
    return set(pl.from_arrow(store.read_players()).get_column("player_id").to_list())


def _write_merge(store: Store, aliases: pl.DataFrame, log_rows: list[dict]) -> None:
    atomic_write_parquet(
        aliases.select(ALIAS_COLUMNS).sort("duplicate").to_arrow(), store.aliases_path, store.root
    )
    new = pl.DataFrame(log_rows, schema={c: pl.String for c in LOG_COLUMNS})
    log = pl.concat([read_merge_log(store), new])
    atomic_write_parquet(log.to_arrow(), store.merges_path, store.root)


def merged_into(current: dict[str, str], keep: str, duplicate: str) -> bool:
    """The merge of ``duplicate`` into ``keep`` is in force in ``current`` (duplicate ->
    keep): asking for it again is nothing to do (``merge`` skips it), while a duplicate
    merged into another keep is refused (docs/identity.md "A merge run again")."""
    return current.get(duplicate) == keep


def in_force(store: Store, pairs) -> list:
    """The pairs of ``pairs`` (keep, duplicate[, ...]) whose merge is in force in
    ``store`` (``merged_into``; ids spelt as stored), in order: those ``merge`` skips."""
    current = alias_map(store)
    known = set(current) | set(current.values())
    return [
        pair
        for pair in pairs
        if merged_into(current, spelt_as_stored(pair[0], known), spelt_as_stored(pair[1], known))
    ]


def merge(
    store: Store,
    keep: str,
    duplicates: list[str],
    reason: str = "",
    skipped: list[str] | None = None,
) -> list[tuple[str, int]]:
    """Count every game of each id in ``duplicates`` as ``keep``'s: an alias row
    (duplicate -> keep, when, why) in ``players/aliases.parquet``, read by the engine
    when it maps ids to players; stored games are not rewritten, so ``split`` is exact.
    A duplicate that was itself a keep brings its own duplicates along. Marks every
    rated system stale from the earliest period where any of the ids played, or from
    each pool's first period when the merge gives ``keep`` facts he starts from
    (``_starting_facts``: an id change, docs/identity.md); returns those (pool, period)
    marks. A duplicate already merged into ``keep``
    (``merged_into``) is skipped: no alias row, no trail row, no stale mark; it is
    appended to ``skipped`` when a list is given. Nothing is written when every
    duplicate is skipped."""
    from datetime import UTC, datetime

    aliases = read_aliases(store)
    before = aliases
    current = dict(zip(aliases["duplicate"], aliases["keep"], strict=True))
    known = _known_ids(store)
    keep = spelt_as_stored(keep, known)
    duplicates = [spelt_as_stored(d, known) for d in duplicates]
    if keep in current:
        raise ValueError(
            f"{keep} is itself merged into {current[keep]} (arpad players --merges); "
            f"merge into {current[keep]}"
        )
    for pid in (keep, *duplicates):
        if pid not in known:
            raise ValueError(f"unknown player id {pid!r} (arpad players lists the ids)")
    now = datetime.now(UTC).isoformat(timespec="microseconds")  # orders the trail
    rows, log_rows, involved = [], [], {keep}
    for dup in dict.fromkeys(duplicates):
        if dup == keep:
            raise ValueError(f"cannot merge {keep} into itself")
        if merged_into(current, keep, dup):  # a merge run again: nothing to do
            if skipped is not None:
                skipped.append(dup)
            continue
        if dup in current:
            raise ValueError(f"{dup} is already merged into {current[dup]} (split it first)")
        involved.add(dup)
        rows.append({"duplicate": dup, "keep": keep, "merged_at": now, "reason": reason})
        log_rows.append(
            {"at": now, "action": "merge", "keep": keep, "duplicate": dup, "reason": reason}
        )
    if not rows:
        return []
    dups = {r["duplicate"] for r in rows}
    # ids merged into a duplicate before now follow it to ``keep`` (no chains)
    moved = aliases.filter(pl.col("keep").is_in(list(dups)))
    involved |= set(moved.get_column("duplicate").to_list())
    aliases = aliases.with_columns(
        pl.when(pl.col("keep").is_in(list(dups)))
        .then(pl.lit(keep))
        .otherwise(pl.col("keep"))
        .alias("keep")
    )
    aliases = pl.concat([aliases, pl.DataFrame(rows, schema={c: pl.String for c in ALIAS_COLUMNS})])
    touched = _earliest_periods(store, involved)
    if _starting_facts(store, keep, before) != _starting_facts(store, keep, aliases):
        touched = _from_first(store, touched)
    stale = ";".join(f"{pool}:{p}" for pool, p in touched)
    for r in log_rows:
        r["stale_from"] = stale
    # The stale marks first: a merge killed after its alias file (SIGKILL, Ctrl-C: not
    # undone) must not leave ratings that look current (docs/identity.md). Staged
    # (``staged_store``), the store's own marks too, before the commit.
    _mark_stale(store, touched)
    _write_merge(store, aliases, log_rows)
    return touched


def _starting_facts(store: Store, keep: str, aliases: pl.DataFrame) -> tuple:
    """What the engine starts ``keep`` from under the merges ``aliases``: his facts of
    ``engine.MERGED_FACTS`` and his undated rating in each pool, a duplicate's where he
    has none (``engine.kept_players``; docs/identity.md "An id change")."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from arpad.pipeline import engine

    mine = aliases.filter(pl.col("keep") == keep)
    pairs = (
        (
            pa.array(mine["duplicate"].to_list(), pa.string()),
            pa.array([keep] * mine.height, pa.string()),
        )
        if mine.height
        else None
    )
    every = store.read_players()
    ids = every.column("player_id")
    every = every.filter(pc.is_in(ids, pa.array([keep, *mine["duplicate"].to_list()], pa.string())))
    row = engine.kept_players(every, pairs)
    row = row.filter(pc.equal(row.column("player_id"), keep))
    if row.num_rows == 0:
        return ()
    facts = [row.column(c)[0].as_py() for c in engine.MERGED_FACTS if c in row.column_names]
    own = row.column("rating")[0].as_py()
    given = np.array([np.nan if own is None else own], dtype=np.float64)
    for pool in store.pools():
        start = engine.kept_undated_ratings(store, every, pairs, [keep], given, None, pool)[0]
        facts.append(None if np.isnan(start) else float(start))
    return tuple(facts)


def _shown(value) -> str:
    """A fact as a players file gives it: 1633.0 as 1633."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def kept_values_notes(store: Store, pairs) -> list[str]:
    """One note per merged pair (keep, duplicate[, ...]) whose kept id's own value of a
    fact the rules read (``engine.MERGED_FACTS``; the rating as each pool's undated
    start) differs from the duplicate's: the kept id's wins (docs/identity.md "An id
    change"), and a new id's register row with FIDE's count for a fresh id (rated_games
    0) makes a 100-game player a new one (the officer's report, round 13)."""
    import numpy as np

    from arpad.pipeline import engine

    players = store.read_players()
    known = set(players.column("player_id").to_pylist())
    rows = {r["player_id"]: r for r in players.to_pylist()}
    pools = store.pools() or [schemas.POOLS[0]]
    notes = []
    for pair in pairs:
        keep, dup = (spelt_as_stored(pair[i], known) for i in (0, 1))
        own, theirs = rows.get(keep), rows.get(dup)
        if own is None or theirs is None:
            continue
        differ = [
            (name, own[name], theirs[name])
            for name in engine.MERGED_FACTS
            if name != "rating" and name in own
            if own[name] is not None and theirs[name] is not None and own[name] != theirs[name]
        ]
        table = np.array(
            [np.nan if r["rating"] is None else r["rating"] for r in (own, theirs)], np.float64
        )
        starts = {}  # pool -> (kept's, duplicate's) undated starting rating, where they differ
        for pool in pools:
            a, b = observations.undated_ratings(store, [keep, dup], table, pool=pool)
            if not np.isnan(a) and not np.isnan(b) and a != b:
                starts[pool] = (float(a), float(b))
        if starts and len(starts) == len(pools) and len(set(starts.values())) == 1:
            differ.insert(0, ("rating", *next(iter(starts.values()))))
        else:
            differ[:0] = [(f"{pool} rating", *v) for pool, v in starts.items()]
        if not differ:
            continue
        kept = ", ".join(f"{name} {_shown(a)}" for name, a, _ in differ)
        had = ", ".join(f"{name} {_shown(b)}" for name, _, b in differ)
        games = next((a for name, a, _ in differ if name == "rated_games"), None)
        follows = f": K follows {_shown(games)}" if games is not None else ""
        notes.append(
            f"{keep} keeps {kept} ({dup} had {had}){follows}; the kept id's own values win "
            f'(docs/identity.md "An id change"): if this is an id change, give {keep}\'s '
            "players-file row the old id's values and ingest it again"
        )
    return notes


def _from_first(store: Store, touched: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``touched`` moved to the first period of every pool: a merge or split that changes
    what a kept id starts from (``_starting_facts``) changes his state in every checkpoint,
    so the next ``rate`` is a full run (pipeline/incremental.py)."""
    first = {pool: periods[0] for pool in store.pools() if (periods := store.periods(pool))}
    for pool, period in touched:
        first[pool] = min(period, first.get(pool, period))
    return sorted(first.items())


def _mark_stale(store: Store, touched: list[tuple[str, int]]) -> None:
    """Mark ``touched`` stale in ``store`` and, when it is a staged view (``staged_store``),
    in the store itself at once: at worst a mark without the merge (one needless
    recomputation), never a merge in force with ratings that look current."""
    from arpad.pipeline import incremental

    real = getattr(store, "real", None)
    if real is not None:
        incremental.mark_stale(real, touched)
    incremental.mark_stale(store, touched)


def split(store: Store, keep: str, duplicate: str, reason: str = "") -> list[tuple[str, int]]:
    """Undo ``merge``: ``duplicate``'s games are its own again. Marks every rated system
    stale from the earliest period where either id played (each pool's first period
    when ``keep`` had facts from ``duplicate``, as ``merge``)."""
    from datetime import UTC, datetime

    aliases = read_aliases(store)
    keep = spelt_as_stored(keep, set(aliases.get_column("keep").to_list()))
    duplicate = spelt_as_stored(duplicate, set(aliases.get_column("duplicate").to_list()))
    row = aliases.filter((pl.col("duplicate") == duplicate) & (pl.col("keep") == keep))
    if row.height == 0:
        raise ValueError(f"{duplicate} is not merged into {keep} (arpad players --merges)")
    before = aliases
    aliases = aliases.filter(pl.col("duplicate") != duplicate)
    touched = _earliest_periods(store, {keep, duplicate})
    if _starting_facts(store, keep, before) != _starting_facts(store, keep, aliases):
        touched = _from_first(store, touched)
    now = datetime.now(UTC).isoformat(timespec="microseconds")  # orders the trail
    stale = ";".join(f"{pool}:{p}" for pool, p in touched)
    _mark_stale(store, touched)  # first, as in ``merge``
    _write_merge(
        store,
        aliases,
        [
            {
                "at": now,
                "action": "split",
                "keep": keep,
                "duplicate": duplicate,
                "reason": reason,
                "stale_from": stale,
            }
        ],
    )
    return touched


# -- copies a merge makes one game (docs/identity.md "Copies a merge makes one game") ----
# The games a merge took out as probable duplicates, whole (pipeline/probable_duplicates.py
# HELD_COLUMNS), so that a split puts them back.
HELD = "merge_quarantine.parquet"


def held_path(store: Store):
    """``players/merge_quarantine.parquet`` (in a staged view, its staged copy)."""
    return store.players_path.parent / HELD


def staged_store(store: Store, action: str):
    """A staged view of ``store`` (pipeline/journal.py) for one merge or split: every
    write of ``merge``/``split``, ``take_out`` and ``put_back`` lands in
    ``STORE/.pending/<action>-<time>/`` until ``commit_staged``, so that a kill leaves
    the store before or after the whole command, never half of it."""
    import os
    import shutil
    from datetime import UTC, datetime

    from arpad.pipeline import journal

    batch = f"{action}-{datetime.now(UTC):%Y%m%dT%H%M%S%f}"
    staged = journal.StagedStore(store, batch)
    for final in (store.aliases_path, store.merges_path, held_path(store)):
        if final.exists():  # read (and rewritten) through the staged view
            copy = staged.stage / final.relative_to(store.root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(final, copy)
            except OSError:
                shutil.copy2(final, copy)
    return staged


def commit_staged(staged) -> None:
    """Write the staged merge's plan (the commit point) and apply it: games files,
    quarantine, the merge files, stale marks (pipeline/journal.py ``apply``; a kill
    after the plan is completed by the next writing command)."""
    from arpad.pipeline import journal

    store = staged.real
    for final in (store.aliases_path, store.merges_path, held_path(store)):
        if (staged.stage / final.relative_to(store.root)).exists():
            staged._move("players", final)
    journal.apply(store, staged.stage, staged.commit())


def _held(store: Store):
    """The games merges took out (``probable_duplicates.HELD_COLUMNS``)."""
    from arpad.pipeline.probable_duplicates import HELD_COLUMNS

    path = held_path(store)
    if not path.exists():
        return HELD_COLUMNS.empty_table()
    return read_parquet_file(path).select(HELD_COLUMNS.names).cast(HELD_COLUMNS)


def _write_held(staged, table) -> None:
    from arpad.pipeline.probable_duplicates import HELD_COLUMNS

    atomic_write_parquet(table.cast(HELD_COLUMNS), held_path(staged), staged.root)


def _partitions(games) -> list[tuple[str, int]]:
    pairs = zip(games.column("pool").to_pylist(), games.column("period").to_pylist(), strict=True)
    return sorted({(pool, int(period)) for pool, period in pairs})


def take_out(
    staged, before: dict[str, str], notes: list[str] | None = None
) -> tuple[int, list[tuple[str, int]]]:
    """After the merges staged in ``staged`` (``before``: the merges in force before
    them): take the stored games they make probable duplicates of games of an
    earlier-ingested file out of the rated games (pipeline/probable_duplicates.py
    ``after_merge``): out of their games files, into the quarantine as
    ``probable_duplicate`` (batch: the merge's id) and, whole, into ``HELD`` for a
    split. Returns how many, and the (pool, period) partitions marked stale. ``notes``:
    gets the note on games whose length the near-date rule could not read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from arpad.pipeline import probable_duplicates

    merge = staged.stage.name
    taken = probable_duplicates.after_merge(
        staged, before, merge, "arpad players split KEEP DUPLICATE", notes
    )
    if taken is None:
        return 0, []
    store = staged.real
    out = pl.from_arrow(taken.games.select(["file", "game_id"]))
    emptied: dict[str, list] = {}  # batch -> its games files left without games
    for (rel,), group in out.group_by("file", maintain_order=True):
        path = store.root / rel
        table = read_parquet_file(path)
        ids = pa.array(group.get_column("game_id").to_list(), pa.string())
        left = table.filter(pc.invert(pc.is_in(table.column("game_id").cast(pa.string()), ids)))
        if left.num_rows:
            staged.rewrite_game_file(path, left)
        else:
            emptied.setdefault(path.stem.removeprefix("part-"), []).append((path, left))
    empty = {path for files in emptied.values() for path, _ in files}
    for batch, files in emptied.items():
        # The manifest lists every games source with games: a source whose games were all
        # copies keeps one empty file (else the store reads as damaged, a file missing:
        # integrity.missing_batches), in a partition that keeps other games if one does.
        if len(list(store.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"))) == len(files):
            files.sort(key=lambda f: len(set(f[0].parent.glob("part-*.parquet")) - empty))
            staged.rewrite_game_file(*files.pop())
        for path, _ in files:
            staged.delete_game_file(path)
    staged.write_quarantine(taken.quarantine, merge)
    _write_held(staged, pa.concat_tables([_held(staged), taken.games]))
    touched = _partitions(taken.games)
    _mark_stale(staged, touched)
    return taken.games.num_rows, touched


def put_back(staged) -> tuple[int, list[tuple[str, int]]]:
    """After the splits staged in ``staged``: put back the games merges took out
    (``take_out``) that are no longer probable duplicates of a stored game — into their
    games file in their source order, out of the quarantine and of ``HELD``. A game of
    a source no longer stored (corrected since) stays out. Returns how many, and the
    (pool, period) partitions marked stale."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from arpad.pipeline import probable_duplicates, schemas

    held = _held(staged)
    if held.num_rows == 0:
        return 0, []
    store = staged.real
    stored = set(store.read_manifest().column("batch").to_pylist())
    files = held.column("file").to_pylist()
    current = [f.rsplit("/part-", 1)[-1].removesuffix(".parquet") in stored for f in files]
    candidates = held.filter(pa.array(current))
    still = probable_duplicates.still_duplicates(staged, candidates)
    ids = candidates.column("game_id").to_pylist()
    back = candidates.filter(pa.array([gid not in still for gid in ids]))
    if back.num_rows == 0:
        return 0, []
    line = pl.col("source").str.extract(r":(\d+)$", 1).cast(pl.Int64)
    frame = pl.from_arrow(back)
    for (rel,), group in frame.group_by("file", maintain_order=True):
        path = store.root / rel
        table = read_parquet_file(path) if path.exists() else schemas.GAMES_FILE.empty_table()
        returned = schemas.conform(group.to_arrow(), table.schema)
        merged = pl.from_arrow(pa.concat_tables([table, returned]))
        # back in the file's order (the source's lines), the others' order kept
        merged = merged.with_row_index("_n").sort([line, pl.col("_n")]).drop("_n")
        staged.rewrite_game_file(path, merged.to_arrow().cast(table.schema))
    for (merge,), group in frame.group_by("merge", maintain_order=True):
        path = store.quarantine_dir / f"batch={merge}" / "part-0.parquet"
        if not path.exists():
            continue
        rows = pl.from_arrow(read_parquet_file(path))
        gone = group.select(
            pl.col("source").str.replace(r":\d+$", "").alias("source"), line.alias("line")
        )
        left = rows.join(gone.unique(), on=["source", "line"], how="anti")
        if left.height:
            staged.write_quarantine(left.to_arrow(), merge)
        else:
            staged.deletes.append(str(path.relative_to(store.root)))
    returned_ids = pa.array(back.column("game_id").to_pylist(), pa.string())
    _write_held(staged, held.filter(pc.invert(pc.is_in(held.column("game_id"), returned_ids))))
    touched = _partitions(back)
    _mark_stale(staged, touched)
    _log_put_back(staged, frame)
    return back.num_rows, touched


def _log_put_back(staged, back: pl.DataFrame) -> None:
    """Add the periods of the games ``put_back`` returns (``back``) to the
    ``stale_from`` of the splits staged in ``staged`` (the trail's rows this
    transition added): a split's row records the marks it set, the earliest period
    per pool, as the command prints them ("affected: standard from 188205"). A game
    counts for the splits of its White or Black (the stored ids), else for every one.
    Before round 10 a split recorded only its two ids' stored games, later than the
    games it put back (docs/identity.md "Copies a merge makes one game")."""
    log = read_merge_log(staged)
    start = read_merge_log(staged.real).height
    if log.height <= start:
        return
    rows = log.slice(start).to_dicts()
    marks: list[list[tuple[str, int]]] = [[] for _ in rows]
    for white, black, pool, period in back.select("white_id", "black_id", "pool", "period").rows():
        hit = [i for i, r in enumerate(rows) if {white, black} & {r["keep"], r["duplicate"]}]
        for i in hit or range(len(rows)):
            marks[i].append((pool, int(period)))
    for row, more in zip(rows, marks, strict=True):
        given = [m.rsplit(":", 1) for m in (row["stale_from"] or "").split(";") if m]
        earliest: dict[str, int] = {}
        for pool, period in [*((pool, int(p)) for pool, p in given), *more]:
            earliest[pool] = min(period, earliest.get(pool, period))
        row["stale_from"] = ";".join(f"{pool}:{p}" for pool, p in sorted(earliest.items()))
    new = pl.DataFrame(rows, schema={c: pl.String for c in LOG_COLUMNS})
    log = pl.concat([log.head(start), new])
    atomic_write_parquet(log.to_arrow(), staged.merges_path, staged.root)


NOTHING_MERGED = "nothing was merged"
# The mapping file's ``merge`` column (docs/identity.md "Pairs held back"): a row is
# merged when the column is missing, empty or yes, left out when it is no.
MERGE_YES = frozenset({"", "yes", "y", "true", "1"})
MERGE_NO = frozenset({"no", "n", "false", "0"})


def read_mapping(
    path, store: Store | None = None, force: bool = False, notes: list[str] | None = None
) -> list[tuple[str, str, str]]:
    """A reviewed mapping file: CSV with columns ``keep,duplicate`` (``evidence`` and
    ``score`` as written by ``identify`` are kept as the merge's reason), as (keep,
    duplicate, reason) in file order. Read as ``arpad ingest`` reads a CSV file
    (pipeline/readers.py, so that a file saved by a spreadsheet is read): ``.gz``,
    ``.zip`` and UTF-16 as there, a byte-order mark, UTF-8 else Windows-1252, ``;`` or a
    tab as the separator when the header line has no comma, any line ends; a row of
    empty fields only (a spreadsheet's ``;;;``) is skipped as a blank line. A row whose
    ``merge`` column (``identify``'s held-back pairs) is "no" is left out, and counted
    in a note; "yes" or empty merges it. The reading's
    notes (Latin-1, the separator) are appended to ``notes``. With ``store``, the rows
    are checked as ``merge`` would apply them one after another (``check_mapping``), and
    a row that would make two ids that met in a game one player is refused naming its
    line (unless ``force``, ``--force``; docs/identity.md "Self-play"). Every error is
    an ``InputError`` naming the file and its line, and says that nothing was merged."""
    import csv
    import io
    from pathlib import Path

    from arpad.pipeline.errors import InputError
    from arpad.pipeline.readers import _csv_bytes, _delimiter, check_input_file, decode

    def refuse(line, problem: str):
        raise InputError(path, line, f"{problem}; {NOTHING_MERGED}")

    notes = [] if notes is None else notes
    if Path(path).is_dir():
        refuse(None, "is a directory: name the mapping file (CSV keep,duplicate)")
    try:
        check_input_file(Path(path))
        text = decode(_csv_bytes(Path(path), notes), Path(path), notes)
    except InputError as exc:
        refuse(exc.line, exc.problem)
    if not text.strip():
        refuse(1, "empty file: a mapping file needs the columns keep,duplicate")
    handle = io.StringIO(text, newline="")
    delimiter = _delimiter(handle.readline())
    handle.seek(0)
    if delimiter != ",":
        notes.append(f"fields separated by {delimiter!r} (from the header line)")
    out, lines, held = [], [], 0
    try:
        reader = csv.reader(handle, delimiter=delimiter)
        header = [h.strip() for h in next(reader, [])]
        if not {"keep", "duplicate"} <= set(header):
            found = ", ".join(repr(h) for h in header[:10]) or "none"
            more = f" and {len(header) - 10} more" if len(header) > 10 else ""
            refuse(
                1,
                "a mapping file needs the columns keep,duplicate (found the columns "
                f"{found}{more}, separated by {delimiter!r})",
            )
        names = ("keep", "duplicate", "evidence", "merge")
        at = {n: header.index(n) for n in names if n in header}

        def field(row: list[str], name: str) -> str:
            i = at.get(name)
            return row[i].strip() if i is not None and i < len(row) else ""

        for row in reader:
            line = reader.line_num  # the physical line: blank lines count
            if not any(value.strip() for value in row):
                continue  # a blank line, or a spreadsheet's ",,," / ";;;"
            switch = field(row, "merge").lower()  # identify's held-back rows: "no"
            if switch not in MERGE_YES | MERGE_NO:
                refuse(line, f"merge is {switch!r}: yes (or empty) to merge the row, no to not")
            if switch in MERGE_NO:
                held += 1
                continue
            keep, dup = field(row, "keep"), field(row, "duplicate")
            if not keep or not dup:
                refuse(line, "empty keep or duplicate")
            reason = f"mapping {path}"
            if evidence := field(row, "evidence"):
                reason += f": {evidence}"
            out.append((keep, dup, reason))
            lines.append(line)
    except csv.Error as exc:
        refuse(None, f"not a CSV file ({exc})")
    # no row to merge (identify proposed none): [], "nothing to merge", exit 0 (round 12)
    if held:
        notes.append(
            f"{held} row(s) marked merge 'no' left out (pairs arpad players identify held "
            "back; write yes in the merge column to merge one)"
        )
    if store is not None and out:
        check_mapping(store, path, [(n, k, d) for n, (k, d, _) in zip(lines, out, strict=True)])
        if not force:
            games = self_play_games(store, out)
            if games.height:
                row = games.row(0, named=True)
                i = _first_joining(store, out, row["white_id"], row["black_id"])
                met = {row["white_id"], row["black_id"]}
                via = "" if set(out[i][:2]) == met else " (with the rows above it)"
                refuse(lines[i], f"{self_play_refusal(games)}{via}")
    return out


def _first_joining(store: Store, pairs, white: str, black: str) -> int:
    """The index of the first of ``pairs`` after which ``white`` and ``black`` count as
    one id (the mapping row a self-play refusal names)."""
    known = _known_ids(store)
    current = alias_map(store)
    white, black = spelt_as_stored(white, known), spelt_as_stored(black, known)
    for i, (keep, dup, *_) in enumerate(pairs):
        current = merged_ids(current, [(spelt_as_stored(keep, known), spelt_as_stored(dup, known))])
        if current.get(white, white) == current.get(black, black):
            return i
    return len(pairs) - 1


def check_mapping(store: Store, path, rows: list[tuple[int, str, str]]) -> None:
    """Refuse a mapping whose (line, keep, duplicate) rows ``merge`` would refuse when
    applied in order to ``store``: an unknown id, a player merged into himself, a keep
    that is a duplicate (in the store or by an earlier line: a row reversing an earlier
    one), a duplicate already merged. One ``InputError`` naming the file, the line and,
    for a conflict, the earlier line; the store is not touched."""
    from arpad.pipeline.errors import InputError

    known = _known_ids(store)
    current = alias_map(store)  # duplicate -> keep, as the rows are applied
    # duplicate -> (line, keep) that merged it; line None: a merge in the store
    origin: dict[str, tuple[int | None, str]] = {d: (None, k) for d, k in current.items()}

    def why(pid: str) -> str:
        line, keep = origin[pid]
        if line is None:
            return f"merged into {keep} in the store: arpad players --merges"
        return f"line {line} merges {pid} into {keep}"

    for line, keep, dup in rows:
        keep, dup = spelt_as_stored(keep, known), spelt_as_stored(dup, known)
        problem = None
        unknown = [pid for pid in (keep, dup) if pid not in known]
        if unknown:
            problem = f"unknown player id {unknown[0]!r} (arpad players lists the ids)"
        elif keep == dup:
            problem = f"cannot merge {keep} into itself"
        elif keep in current:
            problem = f"cannot merge {dup} into {keep}: {keep} is a duplicate ({why(keep)})"
        elif merged_into(current, keep, dup) and origin[dup][0] is None:
            continue  # merged so in the store: a mapping run again (``merge`` skips it)
        elif dup in current:
            problem = f"cannot merge {dup} into {keep}: {dup} is already a duplicate ({why(dup)})"
        if problem:
            raise InputError(path, line, f"{problem}; {NOTHING_MERGED}")
        # as ``merge``: ids merged into ``dup`` follow it to ``keep``
        current = {d: (keep if k == dup else k) for d, k in current.items()}
        current[dup] = keep
        origin[dup] = (line, keep)


# -- candidates (docs/identity.md "Candidates") ---------------------------------------------
# Evidence scores; a pair is proposed from PROPOSE_AT. Names decide (a pair needs
# compatible names, or one FIDE id); the rest adds to or vetoes the score.
SCORE_SAME_NAME = 0.6  # same surname and same given names once normalised
SCORE_ABBREVIATED = 0.5  # same surname, given names one the abbreviation of the other
# Names that agree only once transliterated (pipeline/transliterate.py): full given names
# alone are proposed; an abbreviated one needs more evidence (years, opponents).
SCORE_TRANSLITERATED = 0.5
SCORE_TRANSLITERATED_ABBREVIATED = 0.4
# Given names that agree only as spelling variants (pipeline/transliterate.py
# ``VARIANT_RULES``: Carl / Karl, Jacob / Jakob, Ignatz / Ignaz): as transliterations.
SCORE_VARIANT = SCORE_TRANSLITERATED
SCORE_VARIANT_ABBREVIATED = SCORE_TRANSLITERATED_ABBREVIATED
SCORE_BIRTH_YEAR = 0.3  # both give the same birth year
SCORE_OVERLAP = 0.1  # their years of play overlap or are at most MAX_GAP years apart
SCORE_SHARED_OPPONENT = 0.05  # per opponent (by name, ``_same_opponent``) both met, at most 0.2
MAX_GAP = 10  # years between two careers beyond which one person is implausible
MAX_CAREER = 60  # years a combined career may span
PROPOSE_AT = 0.5


# What joins the players of a consultation team in one name: "/", "+" or "&" (spaces
# around them or not), or "and" / "und" as a word of its own between two names
# ("Andersson", "Anand", "Sandor" and a hyphen, "Rubinstein-Kolisch", join nothing),
# but not before a nobiliary particle: "Heydebrand und der Lasa" is one player.
TEAM_JOINER = re.compile(
    r"\s*[/+&]\s*|(?<=\S)\s+(?:and|und)\s+"
    r"(?!(?:der|den|dem|des|von|vom|zu|zum|zur|van|de|du|la|le)\b)(?=\S)",
    re.IGNORECASE,
)


def normalise_name(name: str | None) -> tuple[str, tuple[str, ...]]:
    """(surname, given names) of a player name, lower case, accents and punctuation
    removed: "Lasker, Emanuel", "Lasker, Em.", "Lasker,E", "E. Lasker" and
    "LASKER Emanuel" all give surname "lasker" (given names "emanuel", "em" or "e").
    With a comma the surname comes first; without one, the last word is the surname
    unless the first word is written in capitals ("LASKER Emanuel"). Cyrillic is
    transliterated first (pipeline/transliterate.py ``to_latin``): "Алехин, Александр"
    gives ("alekhin", ("aleksandr",)); letters without a decomposition are spelt out
    (``fold_letters``: "Meßner" → "messner"). German ä ö ü lose their dots like any
    accent ("Löwenthal" → "lowenthal"); "Loewenthal" stays "loewenthal" and meets it
    through the phonetic key (docs/identity.md "Transliterations"). A consultation
    team ("Zukertort/Hoffer", "Steinitz, W. + Zukertort, J.", "Alekhine & Reti",
    ``TEAM_JOINER``) gives its members' surnames and no given names:
    ("steinitz zukertort", ()).
    """
    import unicodedata

    from arpad.pipeline.transliterate import fold_letters, to_latin

    if not name:
        return "", ()
    text = unicodedata.normalize("NFKD", fold_letters(to_latin(name)))
    text = "".join(c for c in text if not unicodedata.combining(c))
    members = [m for m in TEAM_JOINER.split(text) if re.search(r"[^\W\d_]", m)]
    if len(members) > 1:
        # A consultation team: its members' surnames are its surname, and it has no
        # given names, so it matches no single player (nor any other name) in
        # ``identify``, and a lookup of one member's surname does not find it
        # (docs/identity.md "Candidates").
        return " ".join(normalise_name(m)[0] for m in members), ()
    if "," in text:
        surname, _, given = text.partition(",")
    else:
        words = text.replace(".", ". ").split()
        if len(words) > 1 and words[0].isupper() and len(words[0].rstrip(".")) > 1:
            surname, given = words[0], " ".join(words[1:])
        elif words:
            surname, given = words[-1], " ".join(words[:-1])
        else:
            surname, given = "", ""

    def clean(part: str) -> list[str]:
        return [w for w in re.split(r"[^a-z]+", part.lower()) if w]

    return " ".join(clean(surname)), tuple(clean(given))


# Forms of address a source may write before a name ("Owen, Rev. John", "Herr Max
# Lange", "Capt. Mackenzie", "Mackenzie, Capt. George Henry"): left out of identify's
# matching key, never out of the stored name. Civil, academic and military ones; none
# of these words is a given name.
HONORIFICS = frozenset(
    {
        "rev", "revd", "reverend", "mr", "dr", "herr", "sir",
        "prof", "professor",
        "capt", "captain", "lt", "lieut", "lieutenant", "colonel", "major", "general",
    }
)  # fmt: skip
# Abbreviated forms of address that are given names too ("Col" for Colin, the Swedish
# "Maj"): left out only when written with their full stop ("Col. Moreau", "Maj. Hanham").
DOTTED_HONORIFICS = re.compile(r"(?<![^\W\d_])(?:col|maj|gen)\.", re.IGNORECASE)
# Nobiliary particles ("von der Lasa", "de Rivière", "van der Wiel"): a catalogue writes
# them after the given names ("Lasa, Tassilo von der"), where ``matching_name`` takes
# them back to the surname. Words and phrases that are not given names; "le", "la", "do"
# alone are left out (Vietnamese and Chinese names), "de la" is in.
PARTICLES = frozenset(
    {
        "von", "von der", "von dem", "von den", "vom", "zu", "zum", "zur", "von und zu",
        "van", "van der", "van den", "van de", "de", "de la", "de las", "de los",
        "del", "della", "dello", "degli", "di", "da", "du", "des", "ten", "ter",
        "dos", "das",
    }
)  # fmt: skip


def matching_name(name: str | None) -> tuple[str, tuple[str, ...]]:
    """``normalise_name`` without the forms of address of ``HONORIFICS`` (and
    ``DOTTED_HONORIFICS``), with a nobiliary particle written after the given names
    taken back to the surname: "Owen, Rev. John" and "Rev. John Owen" give ("owen",
    ("john",)) as "Owen, John" does; "Mackenzie, Capt. George Henry" gives
    ("mackenzie", ("george", "henry")); "Lasa, Tassilo von der" and "Tassilo von der
    Lasa" give ("von der lasa", ("tassilo",)) as "von der Lasa, Tassilo" does. In the
    surname a word is left out only when another remains ("Sir" alone stays a name);
    given names of forms of address only are no given names (they match nothing). A
    particle moves only when a given name stays before it ("Wang, Da" keeps "da")."""
    if name and "." in name:
        name = DOTTED_HONORIFICS.sub(" ", name)
    surname, given = normalise_name(name)
    words = surname.split()
    if len(words) > 1 and any(w in HONORIFICS for w in words):
        kept = [w for w in words if w not in HONORIFICS]
        surname = " ".join(kept) if kept else surname
    if any(w in HONORIFICS for w in given):
        given = tuple(w for w in given if w not in HONORIFICS)
    for n in (3, 2, 1):  # the longest particle first: "von der", not "der"
        if len(given) > n and " ".join(given[-n:]) in PARTICLES and surname:
            surname, given = f"{' '.join(given[-n:])} {surname}", given[:-n]
            break
    return surname, given


def _given_match(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """ "same" when equal, "abbreviated" when each word of the shorter is a prefix of
    the other's word in the same place ("em" of "emanuel", "e" of "edward"), else None.
    A name without given names matches nothing (too weak alone)."""
    if not a or not b:
        return None
    if a == b:
        return "same"
    if all(x.startswith(y) or y.startswith(x) for x, y in zip(a, b, strict=False)):
        return "abbreviated"
    return None


def _activity(store: Store, aliases: dict[str, str] | None = None) -> pl.DataFrame:
    """Per player id: games, first and last year of play, and opponents' ids. With
    ``aliases`` (duplicate -> keep, ``alias_map``), per id after the merges: a kept id
    counts the games of the ids merged into it (it stands for the person: its years,
    games and opponents), a merged duplicate has no row, and an opponent is the id it
    counts as (docs/identity.md "Candidates")."""
    import pyarrow.parquet as pq

    frames = []
    for pool in store.pools():
        for period in store.periods(pool):
            for f in store.game_files(pool, period):
                t = pl.from_arrow(pq.read_table(f, columns=["white_id", "black_id", "date"]))
                year = pl.col("date").dt.year().fill_null(period // 100)
                frames.append(
                    pl.concat(
                        [
                            t.select(
                                pl.col("white_id").alias("player_id"),
                                pl.col("black_id").alias("opponent"),
                                year.alias("year"),
                            ),
                            t.select(
                                pl.col("black_id").alias("player_id"),
                                pl.col("white_id").alias("opponent"),
                                year.alias("year"),
                            ),
                        ]
                    )
                )
    if not frames:
        return pl.DataFrame(
            schema={
                "player_id": pl.String,
                "games": pl.UInt32,
                "first": pl.Int32,
                "last": pl.Int32,
                "opponents": pl.List(pl.String),
            }
        )
    games = pl.concat(frames)
    if aliases:
        games = games.with_columns(
            pl.col("player_id").replace(aliases), pl.col("opponent").replace(aliases)
        )
    return games.group_by("player_id").agg(
        pl.len().alias("games"),
        pl.col("year").min().cast(pl.Int32).alias("first"),
        pl.col("year").max().cast(pl.Int32).alias("last"),
        pl.col("opponent").unique().alias("opponents"),
    )


def identified(store: Store) -> tuple[pl.DataFrame, pl.DataFrame, list[str], bool]:
    """What ``arpad players identify`` and ``Store.identify`` show: (the proposals, the
    pairs held back as mapping rows marked merge "no", the notes on the pairs not
    proposed — met in a game, careers apart, an ambiguous abbreviation — without a
    prefix, whether a note names only some of its pairs)."""
    vetoed: list = []
    apart: list = []
    ambiguous: list = []
    held: list = []  # every pair held back, as mapping rows (docs/identity.md)
    frame = candidates(store, vetoed, apart, ambiguous, held)
    rows = pl.DataFrame(
        held,
        schema={"keep": pl.String, "duplicate": pl.String, "evidence": pl.String},
        orient="row",
    ).with_columns(pl.lit(None, pl.Float64).alias("score"), pl.lit("no").alias("merge"))
    notes = []
    if vetoed:
        shown = "; ".join(f"{keep} and {dup}" for keep, dup, *_ in vetoed[:3])
        notes.append(
            f"{len(vetoed)} pair(s) with compatible names not proposed: they met in a game "
            f"({shown}{_more(vetoed)}); one person does not play himself"
        )
    if apart:
        shown = "; ".join(f"{a} ({ya}) and {b} ({yb})" for a, b, ya, yb in apart[:3])
        notes.append(
            f"{len(apart)} pair(s) with compatible names not proposed: their years of play "
            f"are more than {MAX_GAP} years apart or span more than {MAX_CAREER} years "
            f"({shown}{_more(apart)}); after merging the proposals, identify again (a kept "
            "id counts its duplicates' years), or merge by hand"
        )
    if ambiguous:
        shown = "; ".join(f"{short}: {' / '.join(fits)}" for short, fits in ambiguous[:3])
        notes.append(
            f"{len(ambiguous)} abbreviated name(s) not proposed: each fits several players' "
            f"full names ({shown}{_more(ambiguous)}); merge by hand the one the sources name "
            "(arpad players merge KEEP DUPLICATE), or merge those players first if they are one"
        )
    cut = any(len(kind) > 3 for kind in (vetoed, apart, ambiguous))
    return frame, rows, notes, cut


def _more(pairs: list) -> str:
    return f" and {len(pairs) - 3} more" if len(pairs) > 3 else ""


def candidates(
    store: Store,
    vetoed: list | None = None,
    apart: list | None = None,
    ambiguous: list | None = None,
    held: list | None = None,
) -> pl.DataFrame:
    """Proposed merges with their evidence: one row per (keep, duplicate), the keep being
    the source's own id over a file-scoped one, then the id with more games, then the
    more informative spelling (``_informative``), then the smaller id; sorted by score,
    highest first.

    Two ids that met in a game (after the merges in force) are two people: such a pair
    is not proposed, and is appended to ``vetoed`` (keep, duplicate, evidence, score)
    when a list is given (``arpad players identify`` names them in a note).

    An id stands for the person: a kept id's years of play, games and opponents count
    the games of the ids already merged into it (``_activity``), and those duplicates
    are not proposed again. A pair with compatible names whose careers are too far apart
    (``_careers_apart``) is not proposed, and is appended to ``apart`` (a, b, a's years,
    b's years) when a list is given (``identify``'s note).

    A pair needs compatible names (same surname, given names equal or one the
    abbreviation of the other, docs/identity.md) or one FIDE id under two ids; an
    abbreviated name compatible with two players whose full names differ ("Lasker, E"
    with both "Lasker, Emanuel" and "Lasker, Edward") is left out as ambiguous, and
    different birth years or careers too far apart veto a pair; such an abbreviated id
    is appended to ``ambiguous`` as (id, the ids of the players it fits) when a list is
    given (``identify``'s note).

    A kept id is compared under its own name and under each name of the ids merged into
    it (the spellings the user already confirmed), with the best evidence of any of
    them; the evidence then says which ("same normalised name as merged X"), and its
    names are one player's when an abbreviation is weighed (``_ambiguous``).

    Each duplicate is proposed once, for the end of its chain of best keeps (no chains
    in the alias table, ``merge``); the row's evidence and score are those of the pair
    it shows (``_chain_row``).

    ``held``, when a list is given, gets every pair held back by those three rules as
    (keep, duplicate, why) rows (``_held_rows``): the mapping file's rows marked
    ``merge`` "no" (``arpad players identify``, docs/identity.md "Pairs held back")."""
    vetoed = [] if vetoed is None else vetoed
    apart = [] if apart is None else apart
    ambiguous = [] if ambiguous is None else ambiguous
    players = pl.from_arrow(store.read_players()).select("player_id", "name", "birth_year")
    current = alias_map(store)
    act = {r["player_id"]: r for r in _activity(store, current).iter_rows(named=True)}
    met = _met(act)
    people, merged_names = {}, []
    for pid, name, birth in players.iter_rows():
        surname, given = matching_name(name or pid.rsplit(":", 1)[-1])
        # (surname, given, birth year, phonetic surname, phonetic given names,
        # spelling-variant key of the given names)
        person = (surname, given, birth, *phonetic_key(surname, given), variant_key(given))
        if pid in current:
            merged_names.append((pid, person))
        else:
            people[pid] = person
    # a kept id's other spellings: keep -> [(merged id, its name with the keep's birth
    # year)], one per spelling other than the keep's own
    aka: dict[str, list[tuple[str, tuple]]] = {}
    for dup, person in sorted(merged_names):
        keep = current[dup]
        if keep not in people:
            continue
        spelt = {people[keep][:2], *(p[:2] for _, p in aka.get(keep, ()))}
        if person[:2] not in spelt:
            birth = people[keep][2]
            aka.setdefault(keep, []).append((dup, (*person[:2], birth, *person[3:])))
    # an opponent's name: (surname key, first given name's spelling-variant key, first
    # normalised given name): the keys the names themselves are compared with
    opponent_name = {pid: (v[3], "".join(v[5][:1]), "".join(v[1][:1])) for pid, v in people.items()}
    by_surname: dict[str, list[str]] = {}  # by phonetic surname: transliterations meet
    for pid, person in people.items():
        keys = {person[3], *(p[3] for _, p in aka.get(pid, ()))}
        for key in sorted(k for k in keys if k):
            by_surname.setdefault(key, []).append(pid)
    found = []  # (a, b, row) of every pair proposed
    # a pair with a kept id's other spellings: its best row, its veto notes (pair -> ...)
    best_of: dict[tuple[str, str], tuple] = {}
    notes: dict[tuple[str, str], tuple[list, list]] = {}
    unclear: list = []  # (short id, the ids it fits) of the pairs held back as ambiguous
    for key, ids in by_surname.items():
        ids.sort()
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                if a not in aka and b not in aka:  # one spelling each: as before
                    row = _score_pair(a, b, people, act, opponent_name, ids, apart, unclear, aka)
                    if row is not None:
                        found.append((a, b, row))
                    continue
                far, vague = notes.setdefault((a, b), ([], []))
                for via_a, pa in _spellings(a, key, people, aka):
                    for via_b, pb in _spellings(b, key, people, aka):
                        via = " and ".join(f"merged {d}" for d in (via_a, via_b) if d)
                        spelt = {a: pa, b: pb}
                        row = _score_pair(
                            a, b, people, act, opponent_name, ids, far, vague, aka, spelt, via
                        )
                        old = best_of.get((a, b))
                        if row is not None and (old is None or row[3] > old[3]):
                            best_of[(a, b)] = row
    for (a, b), (far, vague) in notes.items():
        if (row := best_of.get((a, b))) is not None:
            found.append((a, b, row))
            continue
        if far and apart is not None:  # the careers do not depend on the spelling
            apart.append(far[0])
        # a kept id held back under one of its other names is no note of its own
        unclear += [(short, fits) for short, fits in vague if short not in fits]
    rows = []
    for a, b, row in found:
        if met(a, b):  # a player is not his own opponent
            if vetoed is not None:
                vetoed.append(row)
        else:
            rows.append(row)
    if ambiguous is not None:  # once per abbreviated id, every player it fits
        fits: dict[str, set[str]] = {}
        for short, ids in unclear:
            fits.setdefault(short, set()).update(ids)
        ambiguous += [(short, sorted(ids)) for short, ids in sorted(fits.items())]
    if apart:  # the nearest careers first: the likeliest to be one person after all
        apart.sort(key=lambda r: (_gap(r[0], r[1], act), r[0], r[1]))
    if held is not None:
        held += _held_rows(vetoed, apart, ambiguous, people, act)
    schema = {"keep": pl.String, "duplicate": pl.String, "evidence": pl.String, "score": pl.Float64}
    out = pl.DataFrame(rows, schema=schema, orient="row")
    # one keep per duplicate (its best-scoring proposal), followed to the end of a chain
    best = out.sort(["score", "keep"], descending=[True, False]).unique(
        "duplicate", keep="first", maintain_order=True
    )
    link = {d: (k, e, s) for k, d, e, s in best.iter_rows()}
    direct = {frozenset((k, d)): (e, s) for k, d, e, s in out.iter_rows()}
    proposed = [
        row
        for dup in best["duplicate"]
        if (row := _chain_row(dup, link, direct, people, act, met, aka)) is not None
    ]
    return pl.DataFrame(proposed, schema=schema, orient="row").sort(
        ["score", "keep", "duplicate"], descending=[True, False, False]
    )


def _held_rows(vetoed, apart, ambiguous, people, act) -> list[tuple[str, str, str]]:
    """(keep, duplicate, why) of every pair ``candidates`` held back: careers apart
    (``apart``, nearest first; keep by ``_keep_first``), ids that met in a game
    (``vetoed``) and, per abbreviated id fitting several players (``ambiguous``), one
    row into each player it fits. ``why`` starts "held back: " and says the rule."""
    rows = []
    for a, b, *_ in apart:
        keep, dup = _keep_first(a, b, people, act)
        xk, xd = act[keep], act[dup]
        span = max(xk["last"], xd["last"]) - min(xk["first"], xd["first"])
        if _gap(a, b, act) > MAX_GAP:
            rule = f"{_gap(a, b, act)} years apart (more than {MAX_GAP})"
        else:
            rule = f"spanning {span} years (more than {MAX_CAREER})"
        rows.append(
            (
                keep,
                dup,
                f"held back: years of play {_years(keep, act)} and {_years(dup, act)}, {rule}",
            )
        )
    for keep, dup, evidence, _ in vetoed:
        rows.append((keep, dup, f"held back: they met in a game ({evidence})"))
    for short, fits in ambiguous:
        others = " / ".join(fits)
        for fit in fits:
            rows.append(
                (fit, short, f"held back: the abbreviated name fits several players ({others})")
            )
    return rows


def _spellings(pid: str, key: str, people, aka) -> list[tuple[str | None, tuple]]:
    """``pid``'s spellings whose surname key is ``key``: (None, its own name) and, for a
    kept id, (merged id, that id's name) of ``aka`` (``candidates``)."""
    named = [(None, people[pid]), *aka.get(pid, ())]
    return [(via, person) for via, person in named if person[3] == key]


def _chain_row(dup, link, direct, people, act, met=None, aka=None) -> tuple | None:
    """The row proposing ``dup`` for the end of its chain of best keeps, with the
    evidence and score *of that pair*: its own when the two were scored directly, else
    "linked through" the ids between them, each link's evidence, and the weakest link's
    score; None when the two ends could not be one person (names, birth years, careers:
    the vetoes of ``_score_pair``). ``link``: duplicate -> (its best keep, evidence,
    score); ``direct``: every scored pair (as a frozenset) -> (evidence, score)."""
    path = [dup]
    while path[-1] in link and link[path[-1]][0] not in path:  # keeps outrank: no cycle
        path.append(link[path[-1]][0])
    keep = path[-1]
    if len(path) == 2:
        return keep, dup, *link[dup][1:]
    if frozenset((keep, dup)) in direct:
        return keep, dup, *direct[frozenset((keep, dup))]
    names = [[p for _, p in (("", people[x]), *(aka or {}).get(x, ()))] for x in (keep, dup)]
    if not (
        any(_compatible(p, q) for p in names[0] for q in names[1])
        and _plausible(keep, dup, people, act)
    ):
        return None
    if met is not None and met(keep, dup):  # the two ends played each other
        return None
    steps = [(link[d][0], d, *link[d][1:]) for d in path[:-1]]
    evidence = " | ".join(f"{k} <- {d}: {e} ({s})" for k, d, e, s in steps)
    return (
        keep,
        dup,
        f"linked through {', '.join(path[1:-1])}: {evidence}",
        min(s for *_, s in steps),
    )


def _met(act: dict):
    """``met(a, b)``: True when ids ``a`` and ``b`` (ids after merges) played each other
    in a stored game, counting the games of the ids merged into them. ``act``: per id
    after the merges, its ``opponents`` after the merges (``_activity`` with the
    aliases)."""
    seen: dict[str, set[str]] = {}

    def opponents(pid: str) -> set[str]:
        if pid not in seen:
            seen[pid] = set(act[pid]["opponents"]) if pid in act else set()
        return seen[pid]

    return lambda a, b: b in opponents(a)


def merged_ids(current: dict[str, str], pairs) -> dict[str, str]:
    """duplicate -> keep after applying ``pairs`` (keep, duplicate[, ...]) in order to the
    merges ``current``, as ``merge`` applies them (ids merged into a duplicate follow it)."""
    out = dict(current)
    for keep, dup, *_ in pairs:
        out = {d: (keep if k == dup else k) for d, k in out.items()}
        out[dup] = keep
    return out


def self_play_games(store: Store, pairs) -> pl.DataFrame:
    """The stored games that ``pairs`` (keep, duplicate[, reason]) would make a game of a
    player against himself: both sides count as one id after the merges and did not
    before. Columns ``game_id``, ``source`` (file:line), ``white_id``, ``black_id`` and
    ``player`` (the id both count as), in store order."""
    import pyarrow.parquet as pq

    before = alias_map(store)
    known = _known_ids(store)
    pairs = [(spelt_as_stored(k, known), spelt_as_stored(d, known)) for k, d, *_ in pairs]
    after = merged_ids(before, pairs)
    # a game turns into self-play only when one of its sides changes the id it counts as
    moved = sorted({d for d, k in after.items() if before.get(d) != k} | {k for k, _ in pairs})
    cols = ["game_id", "source", "white_id", "black_id"]
    frames = []
    for pool in store.pools():
        for f in store.game_files(pool):
            t = pl.from_arrow(pq.read_table(f, columns=cols)).filter(
                pl.col("white_id").is_in(moved) | pl.col("black_id").is_in(moved)
            )
            if t.height:
                frames.append(t)
    schema = {c: pl.String for c in (*cols, "player")}
    if not frames:
        return pl.DataFrame(schema=schema)

    def canon(col: str, table: dict[str, str]) -> pl.Expr:
        return pl.col(col).replace(table) if table else pl.col(col)

    games = pl.concat(frames, how="vertical_relaxed").with_columns(
        canon("white_id", after).alias("player")
    )
    return games.filter(
        (pl.col("player") == canon("black_id", after))
        & (canon("white_id", before) != canon("black_id", before))
    ).select(list(schema))


SELF_PLAY_SHOWN = 3  # games named in the refusal; the rest are counted


def self_play_refusal(games: pl.DataFrame) -> str:
    """The refusal of a merge that would make ``games`` (``self_play_games``) games of a
    player against himself: the ids, and the games by source line and game id."""
    shown = "; ".join(
        f"{src} {w} - {b} (game {gid})"
        for gid, src, w, b, _ in games.head(SELF_PLAY_SHOWN).iter_rows()
    )
    more = f" and {games.height - SELF_PLAY_SHOWN} more" if games.height > SELF_PLAY_SHOWN else ""
    players = ", ".join(sorted(set(games.get_column("player").to_list())))
    return (
        f"the ids to merge into {players} met in {games.height} game(s): {shown}{more}; "
        "two players who met are two people (--force merges anyway: those games are "
        "then not rated)"
    )


def _compatible(p: tuple, q: tuple) -> bool:
    """Two names (``candidates``' tuples) with equal surname keys whose given names agree
    as normalised names (same surname), as transliteration keys or as spelling variants
    (``variant_key``: "Carl" / "Karl")."""
    (sa, ga, _, ha, ka, va), (sb, gb, _, hb, kb, vb) = p, q
    return ha == hb and (
        (sa == sb and _given_match(ga, gb) is not None)
        or _given_match(ka, kb) is not None
        or _given_match(va, vb) is not None
    )


def _scoped(pid: str) -> bool:
    """An id arpad made for a player without one (``<file>:<name>``, ``<file>#<rank>``)."""
    return ":" in pid or "#" in pid


def _plausible(a: str, b: str, people, act) -> bool:
    """Could ``a`` and ``b`` be one person: no two birth years, careers close enough."""
    ba, bb = people[a][2], people[b][2]
    if ba is not None and bb is not None and ba != bb:
        return False
    return not _careers_apart(a, b, act)


def _careers_apart(a: str, b: str, act) -> bool:
    """The years-of-play veto: ``a``'s and ``b``'s years of play (``_activity``) are more
    than ``MAX_GAP`` years apart or span more than ``MAX_CAREER`` years together."""
    xa, xb = act.get(a), act.get(b)
    if not (xa and xb):
        return False
    span = max(xa["last"], xb["last"]) - min(xa["first"], xb["first"])
    return _gap(a, b, act) > MAX_GAP or span > MAX_CAREER


def _bridged(a: str, b: str, act, name_a: tuple, name_b: tuple, shared: int) -> bool:
    """The years-of-play rule lifted (docs/identity.md "Careers apart, an opponent in
    both"): ``a`` and ``b`` (their careers more than ``MAX_GAP`` years apart, spanning
    at most ``MAX_CAREER`` together) have the same full name (surname and given names
    equal once normalised, ``name_a`` and ``name_b``: (surname, given names), with a
    given name longer than an initial) and at least one opponent in common
    (``shared``): "Nimzowitsch, Aron" of 1914 and of 1927, both against Capablanca."""
    if not shared or name_a != name_b or not _informative(name_a[1])[1]:
        return False
    xa, xb = act[a], act[b]
    return max(xa["last"], xb["last"]) - min(xa["first"], xb["first"]) <= MAX_CAREER


def _keep_first(a: str, b: str, people, act) -> tuple[str, str]:
    """(keep, duplicate) of ids ``a`` and ``b``: a source's own id (FIDE or the CSV's)
    over a file-scoped one, then more games, then the more informative spelling
    (``_informative``, the ids' own names), then the smaller id."""
    xa, xb = act.get(a), act.get(b)
    rank_a = (not _scoped(a), xa["games"] if xa else 0, _informative(people[a][1]), b)
    rank_b = (not _scoped(b), xb["games"] if xb else 0, _informative(people[b][1]), a)
    return (a, b) if rank_a >= rank_b else (b, a)


def _gap(a: str, b: str, act) -> int:
    """Years between ``a``'s and ``b``'s years of play (negative: they overlap)."""
    xa, xb = act[a], act[b]
    return max(xa["first"], xb["first"]) - min(xa["last"], xb["last"])


def _years(pid: str, act) -> str:
    """``first-last`` of ``pid``'s years of play (``_activity``), "" without games."""
    x = act.get(pid)
    return f"{x['first']}-{x['last']}" if x else ""


def _ambiguous(a, b, among, people, act, aka=None, spelt=None) -> tuple | None:
    """The abbreviated given name of ``a`` or ``b`` (the shorter) is compatible
    (``_compatible``) with two plausible players of ``among`` whose given names
    are longer and not compatible with each other ("Lasker, E" with "Lasker, Emanuel"
    and "Lasker, Edward"): (the shorter id, the ids of the players it fits, sorted), else
    None. ``among``: the ids of one surname key, so "Loewenthal, J." counts "Löwenthal,
    Johann Jakob" as it counts "Loewenthal, Johann Jacob"; two spellings of one name
    ("Johann Jacob" / "Johann Jakob") are one full name. A kept id is one player under
    its own name and its merged ids' (``aka``, ``candidates``): "Steinitz, William" with
    "Steinitz, Wilhelm" merged into it leaves "Steinitz, W." one player to fit.
    ``spelt``: the names ``a`` and ``b`` are compared under (default: their own)."""
    name = {x: (spelt or {}).get(x, people[x]) for x in (a, b)}
    length = {x: len("".join(name[x][1])) for x in (a, b)}
    short_id = a if length[a] < length[b] else b
    short = name[short_id]
    fulls = {}  # id -> its names longer than the short name and compatible with it
    for c in among:
        names = [people[c], *(p for _, p in (aka or {}).get(c, ()))]
        names = [
            p for p in names if len("".join(p[1])) > length[short_id] and _compatible(short, p)
        ]
        if names and _plausible(short_id, c, people, act):
            fulls[c] = names
    if any(
        not any(_compatible(p, q) for p in fulls[x] for q in fulls[y])
        for x in fulls
        for y in fulls
        if x < y
    ):
        return short_id, sorted(fulls)
    return None


def _variant_words(ga: tuple[str, ...], gb: tuple[str, ...], ka, kb) -> str:
    """The given names of two names that agree only as spelling variants, shown for the
    evidence: the words whose transliteration keys (``ka``, ``kb``) do not agree,
    capitalised ("Jacob / Jakob" of "Johann Jacob" and "Johann Jakob")."""
    pairs = [
        (x, y)
        for x, y, kx, ky in zip(ga, gb, ka, kb, strict=False)
        if not (kx.startswith(ky) or ky.startswith(kx))
    ]
    return " / ".join(" ".join(w.capitalize() for w in side) for side in zip(*pairs, strict=True))


def _informative(given: tuple[str, ...]) -> tuple[int, int]:
    """How much a spelling's normalised given names say, to rank two ids tied on games:
    (given-name letters, given names longer than an initial). "Morphy, Paul" (4, 1)
    outranks "Morphy, P." (1, 0); "Lasker, Emanuel" outranks "Lasker, Em." and
    "Lasker, E" (docs/identity.md "Candidates")."""
    return sum(len(w) for w in given), sum(len(w) > 1 for w in given)


def _same_opponent(x: tuple[str, str, str], y: tuple[str, str, str]) -> bool:
    """Two opponents' names (``candidates``' ``opponent_name``) are one: the surname keys
    agree and the first given names are equal (as spelling-variant keys, ``variant_key``:
    "Carl" / "Karl") or one is the other's initial ("Zukertort, J." and "Zukertort,
    Johannes Hermann"; "C." and "Karl"; "Jan" is not "Johannes")."""
    if x[0] != y[0]:
        return False
    if x[1] == y[1]:
        return True
    short, long = sorted((x, y), key=lambda n: len(n[2]))
    return len(short[2]) == 1 and (long[2].startswith(short[2]) or long[1].startswith(short[1]))


def _shared_opponents(names_a: set, names_b: set) -> int:
    """How many opponents two players share, by name (``_same_opponent``): the opponents
    of each matched by one of the other's, the smaller of the two counts."""
    by_surname: dict[str, list] = {}
    for name in names_b:
        by_surname.setdefault(name[0], []).append(name)
    pairs = [(x, y) for x in names_a for y in by_surname.get(x[0], ()) if _same_opponent(x, y)]
    return min(len({x for x, _ in pairs}), len({y for _, y in pairs}))


def _score_pair(
    a,
    b,
    people,
    act,
    opponent_name,
    same_key,
    apart=None,
    ambiguous=None,
    aka=None,
    spelt=None,
    via="",
) -> tuple | None:
    """(keep, duplicate, evidence, score) of ids ``a`` and ``b``, None when not proposed;
    a pair left out only by the years-of-play veto is appended to ``apart`` (a, b, a's
    years, b's years), and one left out as ambiguous to ``ambiguous`` (``_ambiguous``'s
    short id and the ids it fits), when a list is given. ``spelt``: the names ``a`` and
    ``b`` are compared under (a kept id's merged ids' names, ``candidates``; default:
    their own), said in the evidence as ``via`` ("same normalised name as merged X")."""
    spelt = spelt or {}
    (sa, ga, ba, _, ka, va), (sb, gb, bb, _, kb, vb) = (spelt.get(x, people[x]) for x in (a, b))
    match = _given_match(ga, gb) if sa == sb else None
    evidence, score = [], 0.0
    if match is None and (match := _given_match(ka, kb)) is not None:
        # transliterations of one name: the keys agree, the normalised names do not
        score += SCORE_TRANSLITERATED if match == "same" else SCORE_TRANSLITERATED_ABBREVIATED
        evidence.append(
            "transliterated name" if match == "same" else "transliterated, abbreviated name"
        )
    elif match is None:
        # spellings of one given name (Carl / Karl): only the variant keys agree
        match = _given_match(va, vb)
        if match is None:
            return None
        if sa != sb:
            evidence.append("transliterated surname")
        short = "abbreviated " if match != "same" else ""
        words = _variant_words(ga, gb, ka, kb)
        score += SCORE_VARIANT if match == "same" else SCORE_VARIANT_ABBREVIATED
        evidence.append(f"{short}given names {words} (spelling variants)")
    elif match == "same":
        score += SCORE_SAME_NAME
        evidence.append("same normalised name")
    else:
        score += SCORE_ABBREVIATED
        evidence.append("abbreviated given name")
    if via:
        evidence[-1] += f" as {via}"
    if match != "same" and (fits := _ambiguous(a, b, same_key, people, act, aka, spelt)):
        if ambiguous is not None:
            ambiguous.append(fits)
        return None
    if ba is not None and bb is not None and ba != bb:
        return None  # two birth years: two people
    xa, xb = act.get(a), act.get(b)
    shared = 0
    if xa and xb:
        shared = _shared_opponents(
            {opponent_name.get(o) for o in xa["opponents"]} - {None},
            {opponent_name.get(o) for o in xb["opponents"]} - {None},
        )
    bridged = _careers_apart(a, b, act)
    if bridged and not _bridged(a, b, act, (sa, ga), (sb, gb), shared):
        if apart is not None:
            apart.append((a, b, _years(a, act), _years(b, act)))
        return None
    if ba is not None and bb is not None:
        score += SCORE_BIRTH_YEAR
        evidence.append(f"birth year {ba}")
    keep, dup = _keep_first(a, b, people, act)
    if xa and xb:
        xk, xd = act[keep], act[dup]  # keep's years first, as the row shows the ids
        years = f"years {xk['first']}-{xk['last']} and {xd['first']}-{xd['last']}"
        if bridged:  # no overlap score: the shared opponents carry the pair
            gap = _gap(a, b, act)
            evidence.append(f"{years}: {gap} years apart, allowed for one full name with")
            evidence[-1] += " a shared opponent"
        else:
            score += SCORE_OVERLAP
            evidence.append(years)
        if shared:
            score += min(0.2, SCORE_SHARED_OPPONENT * shared)
            evidence.append(f"{shared} shared opponent(s)")
    if score < PROPOSE_AT:
        return None
    return keep, dup, "; ".join(evidence), round(min(score, 1.0), 2)
