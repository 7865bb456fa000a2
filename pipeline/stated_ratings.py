"""Ingest note: ratings a games file states that differ from the store's own published
list in force.

A TRF's rating column (a PGN's ``WhiteElo``) is what the arbiter says the player's
published rating was; systems that seed from such observations (FIDE, Harkness, Ingo:
``RatingSystem.seeds_from_observations``) take it as the player's rating for the
period (docs/observations.md). When the federation publishes its own lists with arpad
and the arbiter copied the ratings from an older list, the file silently replaces
the players' ratings of the published list by the old ones: the previous month's
changes are lost. Nothing is refused (the file's ratings may be right, and they are
what the arbiter rated with); the ingest summary says which players' stated ratings
differ from the store's latest published list before the games' period, for each
published system that seeds (docs/operations.md "The officer's month, round 3";
tests/test_officer_attack3.py). A system/pool with ratings and no published list is
compared with its latest rated period before the games' period, the list ``arpad list``
shows (``rate`` says the same after the run: ``replaced_note``; new user, round 11:
before the first ``publish`` a stale TRF wiped out March's results without a word).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline.store import Store


def _stated(games: pa.Table, files: bool = False) -> pl.DataFrame:
    """(pool, period, player_id, rating) of every rating the games state (1..3500, as
    observations are read), one row per player and period: the first, as it counts. An
    event's repeated starting rating is stated once, at the event's first period
    (``observations.event_start_ratings``), as the engine reads it. ``files``: with the
    ``source_file`` that stated it, too. Not the ratings of a file ingested with
    --ignore-stated-ratings (``ingest_batch``: ``observations.ignores_stated``): they
    only start a player who has no rating, never replace one, so no note compares them
    (docs/observations.md "An officer whose own list is the authority")."""
    from arpad.pipeline import observations

    cols = ["pool", "period", "white_id", "black_id", "white_rating", "black_rating"]
    if games.num_rows == 0 or any(c not in games.column_names for c in cols):
        return pl.DataFrame()
    if "ingest_batch" in games.column_names:
        batch = games.column("ingest_batch").cast(pa.string())
        marked = [b for b in pc.unique(batch).to_pylist() if observations.ignores_stated(b)]
        if marked:
            games = games.filter(pc.invert(pc.is_in(batch, value_set=pa.array(marked))))
            if games.num_rows == 0:
                return pl.DataFrame()
    event, source_file = observations.event_keys(games)
    frame = pl.from_arrow(games.select(cols)).with_columns(
        pl.Series("event", event.to_pylist(), pl.String),
        pl.Series("source_file", source_file.to_pylist(), pl.String),
    )
    sides = [
        frame.select(
            "pool",
            "period",
            pl.col(f"{side}_id").alias("player_id"),
            pl.col(f"{side}_rating").cast(pl.Float64).alias("rating"),
            # Events are per pool, as the engine reads one pool at a time.
            pl.concat_str("pool", "event", separator="\x1f").alias("event"),
            pl.concat_str("pool", "event", "source_file", separator="\x1f").alias("in_file"),
            "source_file",
        )
        for side in ("white", "black")
    ]
    both = (
        pl.concat(sides)
        .with_row_index("order")
        .filter(pl.col("rating").is_between(1, 3500))
        .sort("period", "order")
    )
    out = ["pool", "period", "player_id", "rating", *(["source_file"] if files else [])]
    if both.is_empty():
        return both.select(out)
    codes = [
        both.get_column(c).cast(pl.Categorical).to_physical().cast(pl.Int64).fill_null(-1)
        for c in ("event", "in_file")
    ]
    player = both.get_column("player_id").cast(pl.Categorical).to_physical().cast(pl.Int64)
    keep, period = observations.event_start_ratings(
        codes[0].to_numpy(),
        codes[1].to_numpy(),
        player.to_numpy(),
        both.get_column("period").to_numpy(),
        both.get_column("rating").to_numpy(),
    )
    return (
        both.with_columns(pl.Series("period", period).cast(both.schema["period"]))
        .filter(pl.Series(keep))
        .sort("period", "order")
        .unique(["pool", "period", "player_id"], keep="first", maintain_order=True)
        .select(out)
    )


def _systems_in(folder) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.name.split("=", 1)[1] for p in folder.glob("system=*") if p.is_dir())


def _published_systems(store: Store) -> list[str]:
    return _systems_in(store.published_dir)


def _list_ratings(store: Store, system: str, pool: str, period: int) -> pl.DataFrame:
    path = store.published_partition(system, pool, period) / "list.parquet"
    frame = pl.read_parquet(path, columns=["player_id", "rating"])
    return frame.with_columns(pl.col("rating").cast(pl.Float64).alias("listed"))


# The statuses ``arpad list`` lists (pipeline/catalog.py ``_LISTED_STATUS``).
_LISTED = ("rated", "new", "provisional", "inactive")


def _rated_ratings(
    store: Store, system, pool: str, period: int, players: list[str]
) -> tuple[pl.DataFrame, list[str]]:
    """The ratings of ``players`` the list of the rated ``period`` shows (``arpad list``
    with no list published: rating_after at the system's list scale, docs/lists.md) as
    (player_id, listed), and those of them whose row there is ``unrated`` (below the
    floor, or a newcomer not rated yet: ``_fallen`` tells them apart). One read of one
    ratings partition, filtered to ``players``."""
    from arpad.kernels.rounding import round_half_away_array

    path = store.rating_partition(system.name, pool, period) / "part-0.parquet"
    schema = {"player_id": pl.String, "listed": pl.Float64}
    if not players or not path.is_file():
        return pl.DataFrame(schema=schema), []
    rows = (
        pl.scan_parquet(path)
        .select("player_id", "status", pl.col("rating_after").cast(pl.Float64))
        .filter(pl.col("player_id").is_in(players))
        .collect()
    )
    unrated = rows.filter(pl.col("status") == "unrated").get_column("player_id").to_list()
    rows = rows.filter(
        pl.col("status").is_in(_LISTED) & pl.col("rating_after").is_not_null()
    ).filter(pl.col("rating_after").is_not_nan())
    scale = 1.0 if system.integer_ratings else 10.0
    values = rows.get_column("rating_after").to_numpy()
    listed = pl.Series("listed", round_half_away_array(values * scale) / scale, pl.Float64)
    return rows.select("player_id").with_columns(listed), unrated


def _whole(values: np.ndarray) -> np.ndarray:
    """FIDE rounds a stated rating half away from zero (FideSystem.seed)."""
    return np.sign(values) * np.floor(np.abs(values) + 0.5)


def _fallen(store: Store, system: str, pool: str, upto: int, players: list[str]) -> pl.DataFrame:
    """(player_id, fell, fell_in) of ``players`` off the list because they fell below the
    floor: their latest ratings row with a rating at or before ``upto`` is ``unrated``
    (an unrated player's later games leave it empty; a player never rated has none:
    docs/observations.md "Who is on a list")."""
    schema = {"player_id": pl.String, "fell": pl.Float64, "fell_in": pl.Int64}
    periods = [p for p in store.rating_periods(system, pool) if p <= upto]
    scans = [
        pl.scan_parquet(path)
        .select("player_id", "status", pl.col("rating_after").alias("fell"))
        .filter(pl.col("player_id").is_in(players) & pl.col("fell").is_not_nan())
        .with_columns(pl.lit(p, pl.Int64).alias("fell_in"))
        for p in periods
        if (path := store.rating_partition(system, pool, p) / "part-0.parquet").is_file()
    ]
    if not players or not scans:
        return pl.DataFrame(schema=schema)
    latest = pl.concat(scans).sort("fell_in").group_by("player_id").last().collect()
    return latest.filter(pl.col("status") == "unrated").select(*schema)


def _differences(store: Store, stated: pl.DataFrame) -> list[tuple[str, str, list[tuple]]]:
    """(system, pool, differences) of each published system that seeds and pool where a
    rating of ``stated`` (``_stated``'s rows, with ``source_file`` or not) differs from the
    published list in force (the latest published before its period): differences are
    (in_force, player_id, rating, listed, fell_in, source_file, *other columns) rows
    (``merge_notes``: the duplicate). ``listed`` is the
    list's rating; for a player off that list because he fell below the floor, his rating
    then and ``fell_in`` its period (a stated rating above it rates him again: officer,
    round 10); a player never rated is not compared (a newcomer)."""
    return [(n, p, d) for n, p, _, d in _compared(store, stated, unpublished=False)]


def _compared(
    store: Store, stated: pl.DataFrame, unpublished: bool
) -> list[tuple[str, str, bool, list[tuple]]]:
    """``_differences`` as (system, pool, published, differences); with ``unpublished``,
    also of each system/pool that seeds with ratings and no published list, against the
    latest rated period before the games' period (``_rated_ratings``: the list ``arpad
    list`` shows), ``published`` False. Not Ingo's (``lower_is_better``): its numbers
    are converted from the stated Elo, and a list read before the first ``publish`` is
    not compared with Elo as the published list is."""
    published = _published_systems(store)
    rated = _systems_in(store.ratings_dir) if unpublished else []
    systems = sorted({*published, *rated})
    if not systems or stated.is_empty():
        return []
    from arpad.pipeline.systems import get_system  # only with a list to compare

    if "source_file" not in stated.columns:
        stated = stated.with_columns(pl.lit(None, pl.String).alias("source_file"))
    known = ("pool", "period", "player_id", "rating", "source_file")
    extra = [c for c in stated.columns if c not in known]
    out = []
    for name in systems:
        try:
            system = get_system(name)
        except ValueError:  # a system this installation does not know
            continue
        if not system.seeds_from_observations:
            continue
        for pool in sorted(stated.get_column("pool").unique().to_list()):
            lists = store.published_periods(name, pool)
            frozen = bool(lists)
            if not frozen and unpublished and not system.lower_is_better:
                lists = store.rating_periods(name, pool)
            if not lists:
                continue
            differ = []
            for period in sorted(stated.filter(pl.col("pool") == pool)["period"].unique()):
                before = [p for p in lists if p < period]
                if not before:
                    continue
                in_force = before[-1]
                mine = stated.filter((pl.col("pool") == pool) & (pl.col("period") == period))
                mine = mine.with_columns(pl.Series("whole", _whole(mine["rating"].to_numpy())))
                players = mine.get_column("player_id").unique().to_list()
                if frozen:
                    listed = _list_ratings(store, name, pool, in_force)
                    off = mine.join(listed, on="player_id", how="anti")["player_id"].to_list()
                else:  # only a player whose row says unrated may have fallen below the floor
                    listed, off = _rated_ratings(store, system, pool, in_force, players)
                # the list's ratings as they stand at the stated period (FIDE's compression)
                listed = _listed_in_force(store, system, pool, listed, in_force, period, frozen)
                on = mine.join(listed, on="player_id", how="inner").filter(
                    pl.col("whole") != pl.col("listed")
                )
                off = mine.filter(pl.col("player_id").is_in(off))
                fell = _fallen(store, name, pool, in_force, off["player_id"].to_list())
                off = off.join(fell, on="player_id")
                # a stated rating at or below his rating then is below the floor too: none
                off = off.filter(
                    pl.Series(off["whole"].to_numpy() > _whole(off["fell"].to_numpy()))
                )
                rows = ("player_id", "rating", "listed", "fell_in", "source_file", *extra)
                rows += ("as_listed",)  # the list's own rating (last: ``_examples``)
                on = on.with_columns(pl.lit(None, pl.Int64).alias("fell_in"))
                off = off.select(
                    *rows[:2],
                    pl.col("fell").alias("listed"),
                    *rows[3:-1],
                    pl.col("fell").alias("as_listed"),
                )
                for frame in (on, off):
                    differ += [(in_force, *row) for row in frame.select(rows).iter_rows()]
            if differ:
                out.append((name, pool, frozen, differ))
    return out


def _listed_in_force(
    store: Store, system, pool: str, listed: pl.DataFrame, in_force: int, period: int, frozen: bool
) -> pl.DataFrame:
    """``listed`` (player_id, listed: the list of ``in_force``'s ratings) with ``listed``
    as it stands at the start of the stated ``period`` (``RatingSystem.carried_ratings``)
    and ``as_listed`` the list's own. A published list shows the ratings in force when it
    takes effect (pipeline/lists.py ``in_force_ratings``: FIDE's list of 202402 is
    compressed), so it is carried from then; one published before it did so (an earlier
    arpad's list of 202402) is carried from ``in_force``, player by player where its
    rating is his row's own. A stated rating that is the compressed rating in force is
    no difference (officer, round 13)."""
    from arpad.pipeline.lists import list_date
    from arpad.pipeline.periods import period_of_date

    listed = listed.with_columns(pl.col("listed").alias("as_listed"))
    if listed.is_empty():
        return listed
    values = listed.get_column("listed").cast(pl.Float64).to_numpy().copy()
    start = in_force
    if frozen:
        day = list_date(in_force)
        if day is None:
            return listed
        start = period_of_date(day)
        compressed = _in_force(store, system, pool, values, in_force, start)
        if not np.array_equal(compressed, values, equal_nan=True):
            players = listed.get_column("player_id").to_list()
            rows, _ = _rated_ratings(store, system, pool, in_force, players)
            own = listed.select("player_id").join(rows, on="player_id", how="left")
            own = own.get_column("listed").cast(pl.Float64).fill_null(np.nan).to_numpy()
            old = (own == values) & (compressed != values)  # a list written uncompressed
            values = np.where(old, compressed, values)
    values = _in_force(store, system, pool, values, start, period)
    return listed.with_columns(pl.Series("listed", values, pl.Float64))


def _examples(differ: list[tuple], where: Callable[[tuple], str]) -> str:
    """The first difference with the list, and the first player off it (fell below the
    floor), each as "ID: R here, …" (``where``: what follows "here" for the row)."""
    listed = [d for d in differ if d[4] is None][:1]
    fallen = [d for d in differ if d[4] is not None][:1]
    return "; ".join(
        f"{d[1]}: {d[2]:g}{where(d)}, "
        + (
            _on_list(d, "on the list")
            if d[4] is None
            else f"not on the list: {d[3]:g} in {d[4]}, below the floor"
        )
        for d in [*listed, *fallen]
    )


def _on_list(d: tuple, what: str) -> str:
    """A difference's listed rating "R on the list", and where the list's rating changed
    before the file's period (``_listed_in_force``: FIDE's compression) "R on the list,
    R' in force for the file's period"."""
    if d[-1] is None or d[-1] == d[3]:
        return f"{d[3]:g} {what}"
    return f"{d[-1]:g} {what}, {d[3]:g} in force for the file's period"


def _seeding(names: list[str]) -> bool:
    """Whether a system of ``names`` takes stated ratings as published ones."""
    if not names:
        return False
    from arpad.pipeline.systems import get_system, system_names

    known = set(system_names())
    return any(n in known and get_system(n).seeds_from_observations for n in names)


def _changes(differ: list[tuple]) -> str:
    """The first three differences with the ratings in force of no published list, each
    "ID R → file S" (a player below the floor: "ID below the floor (R in P) → file S")."""
    firsts = list({d[1]: d for d in reversed(differ)}.values())[::-1]  # one per player
    shown = [
        f"{d[1]} {d[3]:g} → file {d[2]:g}"
        if d[4] is None and (d[-1] is None or d[-1] == d[3])
        else f"{d[1]} {d[-1]:g} ({d[3]:g} in force for the file's period) → file {d[2]:g}"
        if d[4] is None
        else f"{d[1]} below the floor ({d[3]:g} in {d[4]}) → file {d[2]:g}"
        for d in firsts[:3]
    ]
    return ", ".join(shown) + (", …" if len(firsts) > 3 else "")


def stated_rating_notes(store: Store, games: pa.Table) -> list[str]:
    """One note per system/pool that seeds whose list in force disagrees with ratings
    stated in ``games``: the published list in force, or with none published, the
    ratings of the latest rated period before the games' (``arpad list``'s list; a
    stale TRF ingested before the first ``publish`` replaced the store's results without
    a word: new user, round 11). Empty when there is nothing to compare."""
    if not _seeding(sorted({*_published_systems(store), *_systems_in(store.ratings_dir)})):
        return []
    stated = _stated(games)
    if not stated.is_empty() and store.aliases_path.exists():
        from arpad.pipeline.identity import alias_map  # a merged id's rating is his keep's

        stated = stated.with_columns(pl.col("player_id").replace(alias_map(store)))
    notes = []
    for name, pool, published, differ in _compared(store, stated, unpublished=True):
        players = len({d[1] for d in differ})
        if published:
            notes.append(
                f"{players} player(s) whose rating in the file differs from the published "
                f"{name}/{pool} list in force ({differ[0][0]}; e.g. "
                f"{_examples(differ, lambda d: ' here')}): the file's ratings replace the "
                "list's for its period (docs/observations.md); if the arbiter used an older "
                "list, correct the file"
            )
            continue
        notes.append(
            f"{players} player(s) whose rating in the file differs from the {name}/{pool} "
            f"ratings of period {differ[0][0]} (not published; the list arpad list shows): "
            f"{_changes(differ)} — the file's stated rating replaces the store's result "
            'for its period (docs/observations.md "Which systems seed from them, and '
            'when"); if the arbiter used an older list, correct the file, or ingest it '
            "with --ignore-stated-ratings"
        )
    return notes


def merge_notes(store: Store, moved: dict[str, str]) -> list[str]:
    """After ``arpad players merge`` (``moved``: duplicate -> keep of each id the merge
    counts for a new keep): one note per published system/pool whose list in force
    differs from a rating stated for a duplicate, now his keep's (a merged duplicate's
    observations count for his keep: docs/observations.md "Merges and stated ratings").
    A club PGN without FIDE ids copied from another list re-seeds the kept players at
    the next rate, and its ingest could not compare file-scoped ids (new user, round 10).
    Only statements that count after the merge: a keep's own one of the same period
    first in counting order wins (``pool_observations``). Empty when nothing differs."""
    systems = _published_systems(store)
    if not moved or not systems:
        return []
    from arpad.pipeline.identity import alias_map

    aliases = alias_map(store)
    frames = []
    for pool in store.pools():
        firsts = [lists[0] for s in systems if (lists := store.published_periods(s, pool))]
        if not firsts:
            continue
        # from the month of the first list on (the month before too: an event begun then
        # states its ratings once, there); a statement at the first list has none before
        months = store.periods(pool)
        months = [
            *[p for p in months if p < min(firsts)][-1:],
            *(p for p in months if p >= min(firsts)),
        ]
        games = _period_games(store, pool, months)
        if games.num_rows == 0:
            continue
        mine = _stated(games, files=True)
        if mine.is_empty():
            continue
        brought = mine.filter(pl.col("player_id").is_in(list(moved))).with_columns(
            pl.col("player_id").alias("duplicate"), pl.col("player_id").replace(moved)
        )
        if brought.is_empty():
            continue
        # as the engine counts them: the ids resolved first
        resolved = pl.from_arrow(games).with_columns(
            pl.col("white_id", "black_id").replace(aliases)
        )
        counted = _stated(resolved.to_arrow()).filter(
            pl.col("player_id").is_in(brought["player_id"].unique().to_list())
        )
        keys = ["pool", "period", "player_id", "rating"]
        frames.append(brought.join(counted.select(keys), on=keys, how="semi"))
    if not frames:
        return []
    notes = []
    for name, pool, differ in _differences(store, pl.concat(frames)):
        players = len({d[1] for d in differ})
        files = sorted({d[5] for d in differ if d[5] is not None})
        named = ", ".join(files[:3]) + (", …" if len(files) > 3 else "")
        notes.append(
            f"{players} kept player(s) whose rating stated for a merged duplicate differs "
            f"from the published {name}/{pool} list in force ({differ[0][0]}; e.g. "
            + _examples(differ, lambda d: f" stated for {d[6]} in {d[5]}")
            + "): the duplicates' stated ratings replace the list's for their periods at "
            'the next rate (docs/observations.md "Merges and stated ratings"); if the file '
            f"copied another list, ingest {named} again under the same --source with "
            "--ignore-stated-ratings, then rate"
        )
    return notes


# The columns of a stored game file ``_stated`` reads (``observations.EVENT_COLUMNS`` too).
_GAME_COLUMNS = ("game_id", "source", "event_id", "white_id", "black_id")


def stated_in(store: Store, pool: str, months: list[int]) -> pl.DataFrame:
    """``_stated`` of the stored games of ``pool`` in ``months``, with the source file, and
    a merged duplicate's statements as his keep's, as the engine counts them (empty when
    nothing is stated)."""
    from arpad.pipeline.identity import alias_map

    stated = _stated(_period_games(store, pool, months), files=True)
    if stated.is_empty():
        return stated
    aliases = alias_map(store)
    return stated.with_columns(pl.col("player_id").replace(aliases)) if aliases else stated


def _period_games(store: Store, pool: str, periods: list[int]) -> pa.Table:
    """The stored games of ``pool`` in ``periods`` that can state ratings, in counting
    order (period, file name, row), with the ``pool``, ``period`` and ``ingest_batch``
    (the file's) ``_stated`` reads."""
    from arpad.pipeline.observations import file_batch

    frames = []
    for period in periods:
        for path in store.game_files(pool, period):
            names = pl.read_parquet_schema(path)
            if not {"white_rating", "black_rating"} <= set(names):
                continue
            wanted = [c for c in (*_GAME_COLUMNS, "white_rating", "black_rating") if c in names]
            frame = pl.read_parquet(path, columns=wanted).with_columns(
                pl.lit(pool, pl.String).alias("pool"),
                pl.lit(period, pl.Int64).alias("period"),
                pl.lit(file_batch(path), pl.String).alias("ingest_batch"),
            )
            frames.append(frame.with_columns(pl.col("white_id", "black_id").cast(pl.String)))
    if not frames:
        return pa.table({})
    return pl.concat(frames, how="diagonal_relaxed").to_arrow()


def replaced_revisions(
    store: Store, system: str, pool: str, revisions: dict[int, pl.DataFrame]
) -> list[dict]:
    """The revised ratings that a rating stated in a later file replaced: a correction
    of a frozen month changes later months only where their files state no ratings, and
    an arbiter copies the list in force, the frozen one (docs/observations.md
    "Corrections and stated ratings"; the officer's attack, round 8).

    ``revisions``: period -> the players ``publish.diff`` finds on each frozen list a
    correction revised (``published``, ``revised``). For each such list and each of its
    revised players, his first stated rating in the periods that list is in force for
    (after it, up to the next frozen list, or the latest rated period), when his rating
    at the start of that period (``rating_before``, as the list writes it) is not his
    revised one: {player_id, name, list, published, revised, stated, start, period,
    file}, oldest list first. Empty for a system that does not seed from stated ratings
    (``seeds_from_observations``)."""
    from arpad.kernels.rounding import round_half_away_array
    from arpad.pipeline.systems import get_system

    if not get_system(system).seeds_from_observations:
        return []
    scale = 1.0 if get_system(system).integer_ratings else 10.0  # as its lists (lists.md)
    done, rated = store.published_periods(system, pool), store.rating_periods(system, pool)
    out = []
    for frozen in sorted(revisions):
        changed = revisions[frozen].filter(
            pl.col("published").is_not_null() & pl.col("revised").is_not_null()
        )
        later = [p for p in done if p > frozen]
        last = later[0] if later else (rated[-1] if rated else frozen)
        in_force = [p for p in rated if frozen < p <= last]
        if changed.is_empty() or not in_force:
            continue
        # (from the frozen month: an event begun then states its ratings once, there)
        months = [p for p in store.periods(pool) if frozen <= p <= last]
        stated = stated_in(store, pool, months)
        if stated.is_empty():
            continue
        first = (
            stated.filter(pl.col("period").is_in(in_force))
            .unique("player_id", keep="first", maintain_order=True)  # (sorted by period)
            .join(changed.select("player_id", "name", "published", "revised"), on="player_id")
        )
        for period in sorted(set(first.get_column("period").to_list())):
            rows = pl.from_arrow(
                store.read_ratings(system, pool, period).select(["player_id", "rating_before"])
            )
            mine = first.filter(pl.col("period") == period).join(rows, on="player_id")
            before = mine.get_column("rating_before").cast(pl.Float64).to_numpy()
            start = round_half_away_array(before * scale) / scale
            mine = mine.with_columns(pl.Series("start", start)).filter(
                pl.col("start").is_not_nan() & (pl.col("start") != pl.col("revised"))
            )
            out += [
                {
                    "player_id": r["player_id"],
                    "name": r["name"],
                    "list": frozen,
                    "published": r["published"],
                    "revised": r["revised"],
                    "stated": r["rating"],
                    "start": r["start"],
                    "period": period,
                    "file": r["source_file"],
                }
                for r in mine.sort("player_id").iter_rows(named=True)
            ]
    return out


def _months(period: int) -> int | None:
    """Months since year 0 of a YYYYMM period (None for an abstract period number)."""
    year, month = divmod(int(period), 100)
    return year * 12 + month - 1 if year >= 1000 and 1 <= month <= 12 else None


def old_games_notes(store: Store, games: pa.Table) -> list[str]:
    """One note per published list that games of the file dated more than a year before
    it will revise: a mistyped year (2016 for 2026) re-rates every list since, unsaid
    until `rate` reports the revised players (the officer's attack of 2026-12-04).
    ``games``: the games new to the store only, a correction's added and changed ones
    (pipeline/ingest.py ``_content_diff``): its unchanged games revise nothing."""
    systems = _published_systems(store)
    if not systems or games.num_rows == 0 or "period" not in games.column_names:
        return []
    frame = pl.from_arrow(games.select(["pool", "period", "game_id"]))
    notes = []
    for name in systems:
        for pool in sorted(frame.get_column("pool").unique().to_list()):
            lists = store.published_periods(name, pool)
            latest = _months(lists[-1]) if lists else None
            if latest is None:
                continue
            mine = frame.filter(pl.col("pool") == pool).sort("period")
            old = [
                (p, g)
                for p, g in mine.select("period", "game_id").iter_rows()
                if (m := _months(p)) is not None and latest - m > 12
            ]
            if not old:
                continue
            period, game = old[0]
            notes.append(
                f"{len(old)} game(s) dated more than a year before the latest published "
                f"{name}/{pool} list ({lists[-1]}; e.g. game {game}, period {period}): "
                "rating them revises every list since; if the year is a typo, correct the "
                "file and ingest it again with --replace (docs/ingest.md)"
            )
    return notes


@dataclass
class BeforeRecompute:
    """What a rate run that recomputes after a correction needs from before the run to
    name the stated ratings the recompute now overrides (``overridden_note``)."""

    stale: int  # the first period the run recomputes because of the correction
    periods: list[int]  # the rated periods from ``stale`` on, before the run
    stated: pl.DataFrame  # player_id, period, source_file: later periods' statements
    old: pl.DataFrame  # ``_starts`` of those players before the run


_STARTS = {
    "player_id": pl.String,
    "period": pl.Int64,
    "start": pl.Float64,
    "previous": pl.Float64,
    "previous_period": pl.Int64,
}


def _starts(
    store: Store, system: str, pool: str, periods: list[int], players: pl.DataFrame
) -> pl.DataFrame:
    """(player_id, period, start, previous, previous_period) of ``players`` in the rated
    ``periods`` (``players``: a frame of ``player_id``): the rating each period started
    from (``rating_before``) and his rating after the latest earlier period of ``periods``
    he has a row in, at the system's list scale (a whole number, or tenths: docs/lists.md);
    null where there is none."""
    from arpad.kernels.rounding import round_half_away_array
    from arpad.pipeline.systems import get_system

    scale = 1.0 if get_system(system).integer_ratings else 10.0
    frames = []
    for period in periods:
        path = store.rating_partition(system, pool, period) / "part-0.parquet"
        if path.is_file():
            frame = pl.read_parquet(path, columns=["player_id", "rating_before", "rating_after"])
            frame = frame.join(players, on="player_id", how="semi")
            frames.append(frame.with_columns(pl.lit(period, pl.Int64).alias("period")))
    if not frames:
        return pl.DataFrame(schema=_STARTS)
    frame = pl.concat(frames).sort("player_id", "period")
    at_scale = [
        pl.Series(
            name,
            round_half_away_array(frame.get_column(c).cast(pl.Float64).to_numpy() * scale) / scale,
        )
        for name, c in (("start", "rating_before"), ("after", "rating_after"))
    ]
    return (
        frame.select("player_id", "period")
        .with_columns(s.fill_nan(None) for s in at_scale)
        .with_columns(
            pl.col("after").shift(1).over("player_id").alias("previous"),
            pl.col("period").shift(1).over("player_id").alias("previous_period"),
        )
        .drop("after")
    )


def before_recompute(store: Store, system: str, pool: str, mark: int) -> BeforeRecompute | None:
    """Before a rate run of a system that seeds from stated ratings, whose pool a
    correction marked stale (``mark``; the caller, ``jobs._before_recompute``, checks
    both before importing this module): what ``overridden_note`` compares, when there
    are ratings on disk after the stale period whose games state ratings; else None."""
    from arpad.pipeline import incremental

    stale = incremental.first_stale(store, system, pool, mark)
    rated = [p for p in store.rating_periods(system, pool) if p >= stale]
    later = [p for p in rated if p > stale]
    if not later:
        return None
    # (from the month before: an event begun then states its ratings once, there)
    months = store.periods(pool)
    months = [
        *[p for p in months if p < stale][-1:],
        *(p for p in months if stale <= p <= later[-1]),
    ]
    stated = stated_in(store, pool, months)
    if stated.is_empty():
        return None
    stated = stated.filter(pl.col("period").is_in(later)).unique(
        ["player_id", "period"], keep="first", maintain_order=True
    )
    if stated.is_empty():
        return None
    stated = stated.select("player_id", "period", pl.col("source_file").fill_null("a later file"))
    old = _starts(store, system, pool, rated, stated.select("player_id").unique())
    return BeforeRecompute(stale, rated, stated, old)


def overridden_note(
    store: Store, system: str, pool: str, before: BeforeRecompute | None, rated: list[int]
) -> str | None:
    """After the rate run that ``before`` was taken for (``rated``: the periods it rated):
    the ratings stated in later files that the run's correction no longer carries into,
    else None. A player counts at period P when the run changed his rating after his
    previous period (Q, from the stale period on), his start of P equalled his old rating
    after Q (the file's rating agreed with it, or none replaced it) and now differs from
    his new one, and a file states his rating at P: the stated rating re-seeds him there,
    so the correction stops at P (docs/observations.md "Corrections and stated ratings";
    tests/test_round10_stated_override.py). One line: the count and three examples."""
    if before is None or not rated:
        return None
    players = before.stated.select("player_id").unique()
    new = _starts(store, system, pool, before.periods, players)
    keys = ["player_id", "period"]
    hit = (
        before.stated.filter(pl.col("period").is_in(rated))
        .join(before.old, on=keys)
        .join(new, on=keys, suffix="_new")
        .filter(
            (pl.col("previous") != pl.col("previous_new"))
            & (pl.col("start") == pl.col("previous"))
            & (pl.col("start_new") != pl.col("previous_new"))
        )
        .sort("period", "player_id")
    )
    if hit.is_empty():
        return None
    show, one, where = _shown_places(hit, system, "file(s) of later periods")
    examples = [
        f"{r['player_id']}: {show(r['start_new'])} stated"
        + ("" if one else f" in {r['source_file']} for {r['period']}")
        + f", {show(r['previous_new'])} now after {r['previous_period_new']}"
        for r in hit.head(3).iter_rows(named=True)
    ]
    more = ", …" if hit.height > 3 else ""
    files = sorted(set(hit.get_column("source_file").drop_nulls().to_list()))
    named = ", ".join(files[:3]) + (", …" if len(files) > 3 else "")
    return (
        f"{system}/{pool}: {hit.height} rating(s) stated {where} differ from the recomputed "
        f"ratings they agreed with before this run ({'; '.join(examples)}{more}): a stated "
        "rating re-seeds the player, so the correction does not carry past it "
        '(docs/observations.md "Corrections and stated ratings"); to carry it, ingest '
        f"{named} again under the same --source with --ignore-stated-ratings, then rate"
    )


def replaced_note(store: Store, system: str, pool: str, rated: list[int]) -> str | None:
    """After a rate run of a system that seeds from stated ratings (``rated``: the periods
    it rated that were not rated before it; the caller, ``jobs.stated_replaced_note``):
    the players a rating stated in a file started at one of those periods at another
    rating than the store's own result of his previous rated period, else None. The
    stated rating re-seeds him (docs/observations.md "Which systems seed from them, and
    when"): his result is not carried into the period, which no command said when no list
    was published to compare the file with at its ingest (new user, round 11: March took
    1001 from 2105 to 2091, the June TRF stated 2105, and June started him at 2105). Said
    once, by the run that first rates the period: a later recompute of it says nothing
    more (a correction it stops: ``overridden_note``). One line: the count and three
    examples, compared at the system's list scale."""
    from arpad.pipeline.systems import get_system

    if not rated or not get_system(system).seeds_from_observations:
        return None
    run = sorted(rated)
    # (from the month before: an event begun then states its ratings once, there)
    months = store.periods(pool)
    months = [*[p for p in months if p < run[0]][-1:], *(p for p in months if p in set(run))]
    stated = stated_in(store, pool, months)
    if stated.is_empty():
        return None
    keys = ["player_id", "period"]
    stated = (
        stated.filter(pl.col("period").is_in(run))
        .unique(keys, keep="first", maintain_order=True)
        .select(*keys, pl.col("source_file").fill_null("a file"))
    )
    if stated.is_empty():
        return None
    # every rated player has a row in each later period: the period before is his previous
    periods = store.rating_periods(system, pool)
    periods = [*[p for p in periods if p < run[0]][-1:], *(p for p in periods if p in set(run))]
    starts = _starts(store, system, pool, periods, stated.select("player_id").unique())
    hit = (
        _carried(store, system, pool, stated.join(starts, on=keys))
        .filter(
            pl.col("start").is_not_null()
            & pl.col("previous").is_not_null()
            & (pl.col("start") != pl.col("in_force"))
        )
        .sort("period", "player_id")
    )
    if hit.is_empty():
        return None
    show, one, where = _shown_places(hit, system, "file(s)")
    examples = [
        f"{r['player_id']}: {show(r['previous'])} after {r['previous_period']}"
        + (
            ""
            if r["in_force"] == r["previous"]
            else f", {show(r['in_force'])} in force at {r['period']}"
        )
        + f" → {show(r['start'])}"
        + ("" if one else f" in {r['source_file']} for {r['period']}")
        for r in hit.head(3).iter_rows(named=True)
    ]
    more = ", …" if hit.height > 3 else ""
    files = sorted(set(hit.get_column("source_file").to_list()))
    named = ", ".join(files[:3]) + (", …" if len(files) > 3 else "")
    players = hit.get_column("player_id").n_unique()
    return (
        f"{system}/{pool}: ratings stated {where} replaced the store's own results of an "
        f"earlier period for {players} player(s) ({'; '.join(examples)}{more}): the "
        "file's rating is the player's start, his rating after his previous period is "
        'not carried into it (docs/observations.md "Which systems seed from them, and '
        f'when"); if the arbiter used an older list, ingest {named} again under the same '
        "--source with --ignore-stated-ratings, then rate"
    )


def _in_force(store: Store, system, pool: str, values, after: int, at: int) -> np.ndarray:
    """``values``, ratings after period ``after``, as they stand at the start of ``at``
    (``RatingSystem.carried_ratings``: FIDE's compression of 1 March 2024 between them;
    the rules of the stored run, ``lists.rules_name``)."""
    from arpad.pipeline.lists import carried_values

    return carried_values(store, system, pool, values, after, at)


def _carried(store: Store, system: str, pool: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (``previous``, ``previous_period``, ``period``) with ``in_force``: the
    previous rating as it stands at the start of ``period`` (``_in_force``), so that a
    stated rating that is the compressed one is no difference (officer, round 13)."""
    from arpad.pipeline.systems import get_system

    rated = get_system(system)
    column = np.asarray(frame.get_column("previous").cast(pl.Float64).to_numpy(), np.float64)
    out = column.copy()
    for after, at in frame.select("previous_period", "period").drop_nulls().unique().iter_rows():
        rows = (pl.col("previous_period") == after) & (pl.col("period") == at)
        mask = frame.select(rows.fill_null(False)).to_series().to_numpy()
        out[mask] = _in_force(store, rated, pool, column[mask], int(after), int(at))
    return frame.with_columns(pl.Series("in_force", out, pl.Float64).fill_nan(None))


def _shown_places(hit: pl.DataFrame, system: str, files: str) -> tuple:
    """For a note on the rows ``hit`` (``source_file``, ``period``): how a rating of
    ``system`` is shown, whether one file of one period gave them all, and where they
    were stated (``in F for P`` or ``in N FILES``)."""
    from arpad.pipeline.systems import get_system

    whole = get_system(system).integer_ratings

    def show(value: float) -> str:
        return f"{value:.0f}" if whole else f"{value:g}"

    places = hit.select("source_file", "period").unique()
    one = places.height == 1
    where = (
        f"in {hit['source_file'][0]} for {hit['period'][0]}"
        if one
        else f"in {places['source_file'].n_unique()} {files}"
    )
    return show, one, where


# -- --ignore-stated-ratings: the store's own ratings are the authority -----------------
def ignore_stated(
    store: Store,
    games: pa.Table,
    players: pl.DataFrame | None,
    replaced: list[str],
    frame: pl.DataFrame | None = None,
) -> tuple:
    """``arpad ingest --ignore-stated-ratings`` (the officer's own list is the authority,
    docs/observations.md "An officer whose own list is the authority"): (games, players,
    note). The ratings ``games`` (validated rows) state are stored as the file gives
    them, and the batch id marks the option (``observations.ignores_stated``): the
    rating run decides, not the ingest. Such a rating starts a player only if no players
    file lists him (a merged id counted as his kept id) and he has no rating when the
    walk reaches it: the earliest such statement starts him, later ones are ignored
    (``observations.seed_period``). Decided here, from the store as it was at the ingest
    (officer, round 15), the outcome depended on the order the files came in, a kept
    duplicate was re-seeded by his merged id's kept rating, and a registered unrated
    junior was rated from the arbiter's number. ``players``: the file's described players
    (raw, TRF 001): their rating null but for the players the note expects the file to
    start (the players table's rating, shown by ``arpad players``). ``replaced``: the
    batches of the stored source this file is a new version of (its statements are not
    the store's). ``frame``: the file's rows, whose name columns name the players of a
    games table. The note counts the players the players files list, those the store
    rates already, and names up to three the file starts as the store stands."""
    cols = ["pool", "period", "white_id", "black_id", "white_rating", "black_rating"]
    kept = pl.DataFrame(schema={"player_id": pl.String, "rating": pl.Float64})
    stated = everyone = listed = rated = 0
    if games.num_rows and all(c in games.column_names for c in cols):
        rows = pl.from_arrow(games.select(cols)).with_row_index("_row")
        sides = pl.concat(
            [
                rows.select(
                    "_row",
                    "pool",
                    pl.col("period").cast(pl.Int64),
                    pl.col(f"{side}_id").cast(pl.String).alias("player_id"),
                    pl.col(f"{side}_rating").cast(pl.Float64).alias("rating"),
                )
                for side in ("white", "black")
            ]
        ).filter(pl.col("rating").is_not_null())
        aliases = _aliases(store)
        sides = sides.with_columns(pl.col("player_id").replace(aliases).alias("keep"))
        from arpad.pipeline.observations import listed_ids

        register = pl.Series(listed_ids(store).to_pylist(), dtype=pl.String).replace(aliases)
        on_file = sides.get_column("keep").is_in(register.to_list())
        stated, everyone = sides.height, sides.get_column("keep").n_unique()
        listed = sides.filter(on_file).get_column("keep").n_unique()
        rest = sides.filter(~on_file)
        # per player and pool: from the first period the file states him in
        first = rest.group_by("pool", "keep").agg(pl.col("period").min())
        own = _own_rated(store, first, aliases, replaced)
        marked = rest.join(own, on=["pool", "keep"], how="left")
        marked = marked.with_columns(pl.col("own").fill_null(False))
        rated = marked.filter("own").get_column("keep").n_unique()
        kept = (
            marked.filter(~pl.col("own"))
            .sort("period", "_row")
            .unique("player_id", keep="first", maintain_order=True)
            .select("player_id", "rating")
        )
    names = _described_names(games, players, frame)
    if players is not None and "rating" in players.columns:
        mine = kept.get_column("player_id").to_list()
        ids = players.get_column("player_id").cast(pl.String).str.strip_chars()
        players = players.with_columns(
            pl.when(ids.is_in(mine)).then(pl.col("rating")).otherwise(None).alias("rating")
        )
    return games, players, _ignore_note(stated, everyone, listed, rated, kept, names)


def _described_names(
    games: pa.Table, players: pl.DataFrame | None, frame: pl.DataFrame | None
) -> dict[str, str]:
    """id -> name the file gives: a TRF's 001 lines (``players``), else a games table's
    name columns beside the ids (``validate.game_names``: the first name of each id)."""
    if players is not None and "name" in players.columns:
        ids = players.get_column("player_id").cast(pl.String).str.strip_chars().to_list()
        return {i: n for i, n in zip(ids, players.get_column("name").to_list()) if n}
    if frame is None or not {"white_name", "black_name"} & set(frame.columns):
        return {}
    if "source" not in games.column_names:
        return {}
    from arpad.pipeline.validate import game_names

    named = game_names(frame, games).unique("player_id", keep="first", maintain_order=True)
    return dict(named.select("player_id", "name").iter_rows())


def _ignore_note(
    stated: int, everyone: int, listed: int, rated: int, kept: pl.DataFrame, names: dict
) -> str:
    """``ignore_stated``'s note: how the ratings stored count, and the players the file
    starts as the store stands (three named, with their ratings)."""
    head = (
        f"--ignore-stated-ratings: {stated} rating(s) stated on the games, stored marked: "
        "such a rating starts a player only if no players file lists him and he has no "
        "rating when it is rated, else it is ignored"
    )
    where = ' (docs/observations.md "An officer whose own list is the authority")'
    if not stated:
        return head + where
    shown = [
        f"{pid}" + (f" {names[pid]}" if names.get(pid) else "") + f" {rating:g}"
        for pid, rating in kept.head(3).iter_rows()
    ]
    more = "; …" if kept.height > 3 else ""
    counts = [f"{listed} listed by the players files"] if listed else []
    counts += [f"{rated} rated by the store already"] if rated else []
    counts.append(
        f"{kept.height} started by this file as the store stands: {'; '.join(shown)}{more}"
        if kept.height
        else "none started by this file"
    )
    return f"{head}; of their {everyone} player(s), {', '.join(counts)}{where}"


def _aliases(store: Store) -> dict[str, str]:
    """duplicate -> keep of the store's merges ({} without any)."""
    if not store.aliases_path.exists():
        return {}
    from arpad.pipeline.identity import alias_map

    return alias_map(store)


def _own_rated(
    store: Store, first: pl.DataFrame, aliases: dict[str, str], replaced: list[str]
) -> pl.DataFrame:
    """(pool, keep, own) of ``first`` (pool, keep: a player's id as merges resolve it,
    no players file listing him; period: the first period the file states his rating in
    that pool): ``own`` True when the store rates him there already when the file's
    games begin, as it stands now — a published list of the pool of an earlier period
    that lists him, an earlier rated period of the pool in which a system that seeds
    from stated ratings listed him (``_LISTED``: rated once, a player who fell below the
    floor too), or a rating another stored games file states for him in the pool at or
    before the period (not one of the ``replaced`` batches: the stored version of the
    source this file replaces). For the ingest note only: the rating run decides
    (``observations.seed_period``)."""
    from arpad.pipeline.systems import get_system, system_names

    keys = ["pool", "keep"]
    found: list[pl.DataFrame] = []
    known = set(system_names())
    seeding = [
        n
        for n in sorted({*_published_systems(store), *_systems_in(store.ratings_dir)})
        if n in known and get_system(n).seeds_from_observations
    ]
    for pool in first.get_column("pool").unique().to_list():
        mine = first.filter(pl.col("pool") == pool)
        # the rated periods and lists first; the games files for the players left only
        for scans in (_rated_scans, _stated_scans):
            rest = mine.join(pl.concat(found).unique(), on=keys, how="anti") if found else mine
            if rest.is_empty():
                break
            ids = rest.get_column("keep").unique().to_list()
            upto = int(rest.get_column("period").max())
            sources = scans(store, seeding, pool, ids, upto, aliases, replaced)
            if not sources:
                continue
            # (keep, since): the first period a rating of his holds in
            since = pl.concat(sources).group_by("keep").agg(pl.col("since").min()).collect()
            found.append(
                rest.join(since, on="keep").filter(pl.col("since") <= pl.col("period")).select(keys)
            )
    schema = {"pool": pl.String, "keep": pl.String}
    own = pl.concat(found).unique() if found else pl.DataFrame(schema=schema)
    return own.with_columns(pl.lit(True).alias("own"))


def _rated_scans(store: Store, seeding, pool, ids, upto, aliases, replaced) -> list:
    """``_own_rated``'s (keep, since) of ``ids`` listed by a rated period or a frozen
    list of ``pool`` before ``upto``: ``since`` the next period (p + 1 orders as the
    next month does)."""
    out = []
    for name in seeding:
        out += [
            pl.scan_parquet(path)
            .filter(
                pl.col("player_id").is_in(ids)
                & pl.col("status").is_in(_LISTED)
                & pl.col("rating_after").is_not_null()
                & pl.col("rating_after").is_not_nan()
            )
            .select(pl.col("player_id").alias("keep"), pl.lit(p + 1, pl.Int64).alias("since"))
            for p in store.rating_periods(name, pool)
            if p < upto
            and (path := store.rating_partition(name, pool, p) / "part-0.parquet").is_file()
        ]
        out += [
            pl.scan_parquet(path)
            .filter(pl.col("player_id").is_in(ids))
            .select(pl.col("player_id").alias("keep"), pl.lit(p + 1, pl.Int64).alias("since"))
            for p in store.published_periods(name, pool)
            if p < upto
            and (path := store.published_partition(name, pool, p) / "list.parquet").is_file()
        ]
    return out


def _stated_scans(store: Store, seeding, pool, ids, upto, aliases, replaced) -> list:
    """``_own_rated``'s (keep, since) of ``ids`` whose rating a stored games file of
    ``pool`` states at or before ``upto`` (not one of the ``replaced`` batches)."""
    out = []
    for period in (p for p in store.periods(pool) if p <= upto):
        games = pl.scan_parquet(store.game_files(pool, period))
        games = games.filter(~pl.col("ingest_batch").is_in(replaced))
        out += [
            games.filter(pl.col(f"{side}_rating").is_between(1, 3500))
            .select(pl.col(f"{side}_id").replace(aliases).alias("keep"))
            .filter(pl.col("keep").is_in(ids))
            .with_columns(pl.lit(period, pl.Int64).alias("since"))
            for side in ("white", "black")
        ]
    return out


# -- games before a pool's first period ---------------------------------------------------
def before_first(store: Store, games: pa.Table, source: str) -> list[str]:
    """One note per pool whose first stored period ``games`` (a games file's validated
    rows) come before. A players file's undated ratings hold as of the pool's first
    period (docs/observations.md), so such games move that period back: the register's
    ratings start the players then, and every period since is rated again, every frozen
    list revised (officer, round 14: a club CSV with 2025 for 2026 moved July's register
    to the November before, exit 0, no word). Noted, not refused: historical games before
    the first period, and a late file of the month before it (tests/test_monthly_round5.py),
    are ingested so. ``source``: the file's source identity, for the remedy."""
    import shlex

    if games.num_rows == 0 or not {"pool", "period"} <= set(games.column_names):
        return []
    frame = pl.from_arrow(games.select(["pool", "period"]))
    notes = []
    registered = None  # whether the players table holds an undated rating (read once)
    for pool in sorted(frame.get_column("pool").drop_nulls().unique().to_list()):
        stored = store.periods(pool)
        if not stored:  # a new pool: nothing moves
            continue
        first = stored[0]
        early = frame.filter((pl.col("pool") == pool) & (pl.col("period") < first))
        if early.is_empty():
            continue
        frozen = sorted(
            {p for s in _published_systems(store) for p in store.published_periods(s, pool)}
        )
        if registered is None:
            players = store.read_players()
            registered = "rating" in players.column_names and players["rating"].null_count < (
                players.num_rows
            )
        if not (frozen or registered):  # (a historian's files read out of order: nothing moves)
            continue
        earliest = int(early.get_column("period").min())
        months = _months(first), _months(earliest)
        gap = f", {months[0] - months[1]} month(s) before" if None not in months else ""
        lists = (
            f"{frozen[0]}"
            if len(frozen) == 1
            else f"{frozen[0]}..{frozen[-1]}, {len(frozen)} lists"
            if frozen
            else ""
        )
        notes.append(
            f"{early.height} game(s) dated before the first period of pool {pool} ({first}; "
            f"the earliest {earliest}{gap}): the pool now starts in {earliest}, so the "
            "players files' undated ratings (which hold as of the first period) start the "
            f"players in {earliest}, and every period from {earliest} on is rated again"
            + (f", every frozen list revised ({lists})" if frozen else "")
            + "; if the date is wrong, correct the file and ingest it again under the same "
            f"source (--source {shlex.quote(source)}; the monthly job: the inbox, under the "
            'same name) (docs/ingest.md "Games before the store\'s first period")'
        )
    return notes
