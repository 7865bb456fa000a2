"""Ingest notes for a player id new to the store that has a stored player's name.

A tournament report (TRF, a players file) whose player carries another id (FIDE's or
a federation's) than the one stored for the same person (a mistyped digit) makes a
second player: his games are rated under the new id and he appears twice on the
list. arpad cannot tell a typo from a namesake, so nothing is refused; the ingest
summary says so, with the two ids and the command that joins them
(docs/operations.md "The officer's month, round 3"; tests/test_officer_attack3.py).

A match: the new id and a stored id are both real ids (not the file-scoped ids arpad
makes for players without one, ``<file>#<rank>``, ``<file>:<name>``: those are the
historian's duplicates, found by ``arpad players identify``), their names normalise
to the same surname and given names (pipeline/identity.py ``normalise_name``; a name
without given names matches nothing) and their birth years do not differ (equal, or
one unknown).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline.identity import normalise_name

MAX_EXAMPLES = 3  # pairs named in the note; the rest are counted


def _scoped(pid: str) -> bool:
    """An id arpad made for a player without one (as pipeline/identity.py reads them)."""
    return ":" in pid or "#" in pid


def _people(table: pa.Table) -> list[tuple[str, str, tuple, object]]:
    """(id, name, normalised name, birth year) of the named players with a real id."""
    rows = table.select(["player_id", "name", "birth_year"]).to_pylist()
    out = []
    for r in rows:
        pid, name = r["player_id"], r["name"]
        if not name or _scoped(pid):
            continue
        key = normalise_name(name)
        if key[0] and key[1]:
            out.append((pid, name, key, r["birth_year"]))
    return out


def _could_match(table: pa.Table, surnames: set[str]) -> pa.Table:
    """The rows of ``table`` whose name could normalise to one of ``surnames``: its
    letters (accents removed, lower case) contain the surname's, or it has letters
    outside the Latin script (transliterated by ``normalise_name``). One vectorised
    pass, so that only a handful of the stored names (of a million, for a federation)
    go through ``normalise_name`` (a Python call per name: about 20 µs)."""
    import re

    import polars as pl

    letters = (
        pl.col("name")
        .str.normalize("NFKD")
        .str.replace_all(r"\p{M}", "")
        .str.to_lowercase()
        .str.replace_all(r"[^a-z]", "")
    )
    wanted = "|".join(re.escape(s.replace(" ", "")) for s in sorted(surnames))
    other_script = pl.col("name").str.contains(r"[^\p{Latin}\P{L}]")
    keep = pl.from_arrow(table.select(["name"])).select(
        (letters.str.contains(wanted) | other_script).fill_null(False).cast(pl.Boolean)
    )
    return table.filter(pa.array(keep.to_series()))


def namesakes(before: pa.Table, after: pa.Table) -> list[tuple[str, str, str, str, object]]:
    """(new id, its name, stored id, stored name, birth year) for every id of the
    players table ``after`` an ingest that ``before`` did not hold and whose player
    has the name of a stored player (see the module docstring); the birth year is
    either's, when one is known (``_pairs`` keeps both)."""
    return [
        (pid, name, other, other_name, born if born is not None else other_born)
        for pid, name, other, other_name, born, other_born in _pairs(before, after)
    ]


def _pairs(before: pa.Table, after: pa.Table) -> list[tuple]:
    """``namesakes`` with both birth years: (new id, its name, stored id, stored name,
    the new id's birth year, the stored id's), None where unknown."""
    if not before.num_rows or after.num_rows == before.num_rows:  # nothing to match, or no id added
        return []
    ids = after.column("player_id")
    added = after.filter(pc.invert(pc.is_in(ids, value_set=before.column("player_id"))))
    if not added.num_rows:
        return []
    fresh = _people(added)
    if not fresh:
        return []
    stored: dict[tuple, list[tuple[str, str, object]]] = {}
    for pid, name, key, born in _people(_could_match(before, {f[2][0] for f in fresh})):
        stored.setdefault(key, []).append((pid, name, born))
    found = []
    for pid, name, key, born in sorted(fresh):
        for other, other_name, other_born in stored.get(key, []):
            if born is None or other_born is None or born == other_born:
                found.append((pid, name, other, other_name, born, other_born))
    return found


def leading_zero_notes(stored: pa.Array | pa.ChunkedArray, new: pa.Array) -> list[str]:
    """The ingest note for ``new`` player ids (not in the store) that equal a ``stored``
    id but for leading zeros: a spreadsheet drops them (``04100018`` saved as
    ``4100018``), or keeps them where the register lost them. Both sides all digits.
    Noted, never merged: ``arpad players merge`` joins them (docs/identity.md
    "Ids that differ only by leading zeros"; hostile round 8)."""

    def numeric(ids):
        """(ids of digits only, the same without leading zeros), vectorised: ``stored``
        may hold a federation's million ids."""
        ids = ids.cast(pa.string())
        ids = ids.filter(pc.fill_null(pc.match_substring_regex(ids, r"^[0-9]+$"), False))
        return ids, pc.utf8_ltrim(ids, characters="0")

    fresh, fresh_values = numeric(new)
    if not len(fresh):
        return []
    ids, values = numeric(stored)
    hit = pc.is_in(values, value_set=pc.unique(fresh_values))
    by_value: dict[str, list[str]] = {}
    for pid, value in zip(ids.filter(hit).to_pylist(), values.filter(hit).to_pylist()):
        by_value.setdefault(value, []).append(pid)
    found = [
        (pid, other)
        for pid, value in sorted(zip(fresh.to_pylist(), fresh_values.to_pylist()))
        for other in sorted(by_value.get(value, []))
        if other != pid
    ]
    if not found:
        return []
    shown = "; ".join(f"{pid} and stored {other}" for pid, other in found[:MAX_EXAMPLES])
    more = f" and {len(found) - MAX_EXAMPLES} more" if len(found) > MAX_EXAMPLES else ""
    # the id with the zeros is the one a spreadsheet did not touch: kept by the merge
    keep, drop = sorted(found[0], key=len, reverse=True)
    return [
        f"{len(found)} player id(s) new to the store equal a stored id but for leading "
        f"zeros ({shown}{more}): a spreadsheet drops leading zeros, and one player under "
        "two ids is rated as two; if so, keep the id column as text, correct the file and "
        f"ingest it again, or arpad players merge {keep} {drop}"
    ]


def namesake_notes(before: pa.Table, after: pa.Table) -> list[str]:
    """The ingest summary's notes (empty list when nothing matched): new ids with a
    stored player's name, and new ids of described players (a players file, TRF 001
    lines: ``source`` set) equal to a stored id but for leading zeros (the ids games
    alone bring in are noted where they are added, ``ingest._add_game_players``)."""
    zeros = []
    if before.num_rows and after.num_rows != before.num_rows:
        ids = after.column("player_id")
        added = after.filter(pc.invert(pc.is_in(ids, value_set=before.column("player_id"))))
        described = added.filter(pc.is_valid(added.column("source")))
        zeros = leading_zero_notes(before.column("player_id"), described.column("player_id"))
    found = _pairs(before, after)
    if not found:
        return zeros
    # one entry per new id, with all its stored namesakes (round 15: "2 player id(s)"
    # for one id with two namesakes, the merge hint naming one of them)
    by_id: dict[str, list[tuple]] = {}
    for pair in found:
        by_id.setdefault(pair[0], []).append(pair)
    groups = list(by_id.values())
    shown = "; ".join(_one_id(group) for group in groups[:MAX_EXAMPLES])
    more = f" and {len(groups) - MAX_EXAMPLES} more" if len(groups) > MAX_EXAMPLES else ""
    pid, _, other, *_ = groups[0][0]
    hint = f"arpad players merge {other} {pid}"
    if len(groups[0]) > 1:  # which of them: the officer's to say, not arpad's
        others = [p[2] for p in groups[0]]
        hint = (
            f"arpad players merge KEEP {pid} with KEEP the stored player it is, "
            f"{', '.join(others[:-1])} or {others[-1]} (it has the name of "
            f"{len(others)} stored players)"
        )
    note = (
        f"{len(groups)} player id(s) new to the store with the name of a stored player "
        f"({shown}{more}): a mistyped player id rates one person under two ids; if so, "
        f"correct the file and ingest it again, or {hint}"
    )
    return [note, *zeros]


def _one_id(group: list[tuple]) -> str:
    """A new id and its stored namesakes, as the note names them: "1000030 'Charlie,
    Csaba' and stored 1000003 'Charlie, Csaba', 1000003 born 1990, 1000030 without a
    birth year"; with several namesakes "… and stored 1000004 'Öztürk, Ali' or 1000005
    'Ozturk, Ali', 1000004 born 1992, 1000005 born 1993, 1000040 without a birth year"."""
    pid, name, other, other_name, born, other_born = group[0]
    if len(group) == 1:
        return (
            f"{pid} {name!r} and stored {other} {other_name!r}{_born(pid, born, other, other_born)}"
        )
    stored = " or ".join(f"{o} {n!r}" for _, _, o, n, _, _ in group)
    years = [(o, y) for _, _, o, _, _, y in group] + [(pid, born)]
    known = [(i, y) for i, y in years if y is not None]
    if not known:
        return f"{pid} {name!r} and stored {stored}"
    if len(known) == len(years) and len({y for _, y in known}) == 1:
        return f"{pid} {name!r} and stored {stored}, all born {known[0][1]}"
    unknown = [i for i, y in years if y is None]
    said = [f"{i} born {y}" for i, y in known]
    if unknown:
        said.append(f"{', '.join(unknown)} without a birth year")
    return f"{pid} {name!r} and stored {stored}, {', '.join(said)}"


def _born(pid: str, born, other: str, other_born) -> str:
    """What the note says of two namesakes' birth years: only what a source gave
    (", both born 1980"; ", 2 born 1980, 11 without a birth year"; nothing when neither
    is known; round 9: "both born 1980" was said of an id without a birth year)."""
    if born is None and other_born is None:
        return ""
    if born is not None and other_born is not None:
        return f", both born {born}"  # not different (``namesakes``): the same year
    if born is None:
        pid, born, other = other, other_born, pid
    return f", {pid} born {born}, {other} without a birth year"


def name_game_players(
    store, raw, games: pa.Table | None, source: str, batch: str, merge
) -> tuple[int, list[str]]:
    """Give the players of the games file ``raw`` (its accepted ``games``; None: a
    Parquet file streamed, read again in slices for its names) that the store has no
    name for the names the file gives beside their ids (``validate.game_names``;
    docs/ingest.md "Players' names in a games file"); a stored name is never replaced,
    the register's or an earlier file's, but the names an earlier version of this
    ``source`` gave (no other source naming the player) are this version's to give:
    replaced by its names, or removed where it names the player no more (round 15: a
    corrected 'Xray, Xavr' stayed on the list, and the correction wiped what the source
    had said). ``merge``: ingest's ``_merge_players``, which stores them as a TRF's
    player lines are (the name, its source line, and what the file said, shown by
    ``arpad players --id``). Returns the players created and the notes;
    ``namesake_notes`` then names a new id with a stored player's name, as for a
    TRF. Before round 14 a CSV's names were not read: a mistyped id (1000030 for
    1000003) was a nameless new player, said nowhere (the rating officer's report)."""
    import polars as pl

    from arpad.pipeline import identity
    from arpad.pipeline.validate import first_game_names, game_names

    if games is not None:
        named = game_names(raw.frame, games)
    else:
        from arpad.pipeline.readers import iter_parquet
        from arpad.pipeline.stream_ingest import BATCH_ROWS
        from arpad.pipeline.validate import validate_games

        slices = iter_parquet(raw.path, BATCH_ROWS, raw.mapping, raw.kind)
        named = pl.concat(
            [game_names(s.frame, validate_games(s, source, batch).accepted) for s in slices]
        )
    named, notes = first_game_names(named, source)
    players = pl.from_arrow(store.read_players()).select("player_id", "name", "source")
    own = _own_names(store, source)  # id -> the name this source's earlier version gave
    stored = players.filter(pl.col("name").is_not_null())
    was = dict(
        stored.filter(pl.col("player_id").is_in(list(own))).select("player_id", "name").iter_rows()
    )
    has_name = stored.filter(~pl.col("player_id").is_in(list(was))).get_column("player_id")
    named = named.filter(~pl.col("player_id").is_in(has_name.implode()))
    given = dict(named.select("player_id", "name").iter_rows())
    renamed = [
        (pid, old, given[pid])
        for pid, old in sorted(was.items())
        if pid in given and given[pid] != old
    ]
    cleared = sorted(pid for pid in was if pid not in given)
    if cleared:  # this version names them no more: the earlier version's name goes
        _clear_names(store, cleared, source)
        notes.append(
            f"{len(cleared)} player id(s) the earlier version of {source} named and this "
            f"version does not: the name is removed ({_examples([(p, was[p]) for p in cleared])})"
        )
    if renamed:
        shown = "; ".join(f"{pid} {old!r} now {new!r}" for pid, old, new in renamed[:MAX_EXAMPLES])
        more = f" and {len(renamed) - MAX_EXAMPLES} more" if len(renamed) > MAX_EXAMPLES else ""
        notes.append(
            f"{len(renamed)} name(s) the earlier version of {source} gave replaced by this "
            f"version's ({shown}{more})"
        )
    if not named.height:  # an earlier version of this file may have said something
        if own:
            identity.record_observations(store, named, source)
        return 0, notes
    merged = merge(store, named.to_arrow(), source)
    notes = [*notes, *merged.notes]
    fresh = named.filter(~pl.col("player_id").is_in(list(was)))
    if fresh.height:
        notes.append(
            f"names read from the file for {fresh.height} player id(s) the store had no name "
            f"for (e.g. {fresh.item(0, 'player_id')} {fresh.item(0, 'name')!r}); a stored "
            "name is kept"
        )
    return merged.added, notes


def _examples(pairs: list[tuple[str, str | None]]) -> str:
    """ "4100003 'Xray, Xavr'; …" of (id, name) pairs, ``MAX_EXAMPLES`` of them."""
    shown = "; ".join(f"{pid} {name!r}" if name else pid for pid, name in pairs[:MAX_EXAMPLES])
    more = f" and {len(pairs) - MAX_EXAMPLES} more" if len(pairs) > MAX_EXAMPLES else ""
    return shown + more


def _own_names(store, source: str) -> dict[str, str]:
    """The names ``source`` (its stored version) gave that no other source gives: id ->
    name, from the observations (``identity.read_observations``). A players file (the
    register), a TRF's player line or another file naming the player keeps his name
    from being this source's to replace."""
    import polars as pl

    from arpad.pipeline import identity

    said = identity.read_observations(store).filter(pl.col("name").is_not_null())
    own = said.filter(pl.col("source") == source)
    if not own.height:  # (a first version: nothing of its own)
        return {}
    ids = own.get_column("player_id").implode()
    others = said.filter((pl.col("source") != source) & pl.col("player_id").is_in(ids))
    own = own.filter(~pl.col("player_id").is_in(others.get_column("player_id").implode()))
    return dict(own.select("player_id", "name").iter_rows())


def _clear_names(store, ids: list[str], source: str) -> None:
    """The players rows of ``ids`` without the name ``source`` gave them (and without
    its line as their ``source``): as games alone made them."""
    import polars as pl

    players = pl.from_arrow(store.read_players())
    hit = pl.col("player_id").is_in(ids)
    mine = pl.col("source").str.starts_with(f"{source}:").fill_null(False)
    players = players.with_columns(
        pl.when(hit).then(None).otherwise(pl.col("name")).alias("name"),
        pl.when(hit & mine).then(None).otherwise(pl.col("source")).alias("source"),
    )
    store.write_players(players.to_arrow())


def drop_replaced_ids(
    store, source: str, old_batches: list[str], games: pa.Table, raw
) -> list[str]:
    """A new version of the games file ``source`` (staged in ``store``, its ``games``
    accepted, its earlier version's games the batches ``old_batches``): the player ids
    only the earlier version brought in are dropped from the players table, with what
    that version said of them: no game of theirs is left anywhere (nor held by a merge),
    no other source describes them (a players file, another file's player lines or
    names), no merge names them, and this version does not describe them either. The
    case (round 15): a mistyped id corrected, 1000040 for 1000004, left a players row
    1000040 'Öztürk, Ali' without a game, proposed by ``arpad players identify`` as a
    merge with 1000004 (docs/ingest.md "Players' names in a games file"). The file-scoped
    ids of a PGN (``SOURCE:Name``) are left to ``ingest._drop_replaced_players``.
    Returns the note."""
    import polars as pl

    from arpad.pipeline import identity
    from arpad.pipeline.store import atomic_write_parquet

    real = getattr(store, "real", store)  # a staged view reads the real store's games
    old_names = {f"part-{b}.parquet" for b in old_batches}
    files = list(real.game_files())
    old_files = [str(f) for f in files if f.name in old_names]
    if not old_files:
        return []

    def ids_of(frame) -> set:
        return {i for c in ("white_id", "black_id") for i in frame.get_column(c).to_list()}

    sides = ["white_id", "black_id"]
    old_ids = ids_of(pl.scan_parquet(old_files).select(sides).unique().collect())
    candidates = old_ids - ids_of(pl.from_arrow(games.select(sides)))
    if raw.players is not None and raw.players.height:
        candidates -= set(raw.players.get_column("player_id").to_list())
    candidates = {i for i in candidates if i is not None and not i.startswith(f"{source}:")}
    if not candidates:
        return []
    wanted = list(candidates)
    side = pl.col("white_id").is_in(wanted) | pl.col("black_id").is_in(wanted)
    others = [str(f) for f in files if f.name not in old_names]
    if others:
        candidates -= ids_of(pl.scan_parquet(others).select(sides).filter(side).collect())
    held = identity.held_path(real)  # (not copied into a staged view)
    if candidates and held.exists():
        candidates -= ids_of(pl.read_parquet(held, columns=sides))
    aliases = identity.read_aliases(real)
    candidates -= set(aliases.get_column("keep").to_list()) | set(
        aliases.get_column("duplicate").to_list()
    )
    said = identity.read_observations(store)
    candidates -= set(said.filter(pl.col("source") != source).get_column("player_id").to_list())
    players = pl.from_arrow(store.read_players())
    gone = pl.col("player_id").is_in(list(candidates))
    dropped = players.filter(gone)
    if not dropped.height:
        return []
    store.write_players(players.filter(~gone).to_arrow())
    kept = said.filter(~((pl.col("source") == source) & gone))
    if kept.height != said.height:
        atomic_write_parquet(kept.to_arrow(), identity.observations_path(store), store.root)
    shown = _examples(list(dropped.select("player_id", "name").iter_rows()))
    return [
        f"{dropped.height} player id(s) only the earlier version of {source} brought in "
        f"({shown}): no game of theirs is left and no other source describes them, "
        "removed from the players table"
    ]
