"""Tournament tools over a games file: FIDE category of each event and a player's
title-norm check (``arpad category FILE``, ``arpad norm FILE``, ``arpad.category`` and
``arpad.norm``; docs/legacy-systems.md "Tournament tools"). One definition for the
command and the Python API: the command prints what these return."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline.schemas import POOLS
from arpad.pipeline.tournament import (
    CATEGORY_SCHEMA,
    NormCheck,
    Roster,
    category_rows,
    norm_check,
    opponent_ratings,
    player_facts,
)


def read_notes(raw, games: pa.Table | None = None) -> list[str]:
    """The notes ``arpad ingest`` gives on reading a file (docs/ingest.md), for the calls
    that read one without storing it (``arpad.rate(FILE)``, ``norm``, ``category``,
    ``performance``): the reader's (``RawTable.notes``: Latin-1, ';', a column read as
    ``white_id``, columns not read, …), a PGN's pools and, given the accepted ``games``,
    the rows repeating an earlier row (a file pasted twice is rated twice). A pool note
    loses its ``pass --pool`` advice: only ingest has that option."""
    from arpad.pipeline.ingest import _pgn_pool_notes, _repeated_rows_note

    notes = list(raw.notes)
    if raw.format == "pgn" and raw.frame is not None:
        notes += _pgn_pool_notes(raw.frame)
    notes = [
        n.split("; pass --pool", 1)[0] + ")" if n.startswith("pool ") and "; pass --pool" in n
        else n
        for n in notes
    ]  # fmt: skip
    if games is not None:
        notes += _repeated_rows_note(games, raw.frame)
    return notes


def load(
    file,
    players=None,
    mapping: str | None = None,
    notes: list[str] | None = None,
    encoding: str | None = None,
):
    """(games, roster, raw) of a games file and an optional players file (the roster:
    ``tournament.Roster``, its ratings per pool); each file's ``read_notes`` and a line
    on its rows that could not be read are appended to ``notes``, each after the file's
    name. ``encoding``: the code page of the files that are not UTF-8 (``--encoding``,
    docs/ingest.md "Encodings"), else told from their letters."""
    from arpad.pipeline.performance import read_games_file, read_players_file

    games, quarantine, raw = read_games_file(Path(file), mapping=mapping, encoding=encoding)
    if notes is not None:
        notes.extend(f"{file}: {note}" for note in read_notes(raw, games))
    if quarantine.num_rows and notes is not None:
        notes.append(
            f"{file}: {quarantine.num_rows} rows could not be read and are left out "
            f"(first: line {quarantine.column('line')[0]}: {quarantine.column('detail')[0]})"
        )
    roster = read_players_file(Path(players), notes=notes, encoding=encoding) if players else None
    return games, roster, raw


def of_event(games: pa.Table, event: str | None) -> pa.Table:
    return games if event is None else games.filter(pc.equal(games.column("event_id"), event))


def file_categories(
    games: pa.Table, roster: Roster | None, event=None, women: bool = False
) -> pa.Table:
    """FIDE category of each event of ``games`` (CATEGORY_SCHEMA): a player's rating is
    the first one the event's games state, else the roster's of the pool of the player's
    first game in the event."""
    games = of_event(games, event)
    if event is not None and games.num_rows == 0:
        raise ValueError(f"no games of event {event!r} in the file")
    events: dict[str, dict[str, float | None]] = {}
    first_pool: dict[tuple[str, str], str | None] = {}  # (event, player) -> pool
    for row in games.to_pylist():
        name = row.get("event_id") or ""
        players = events.setdefault(name, {})
        for side in ("white", "black"):
            # the games' rating first (as --store and `arpad performance`), else the
            # players file's; a player's first stated rating in the event is kept
            pid = row[f"{side}_id"]
            first_pool.setdefault((name, pid), row.get("pool"))
            if players.get(pid) is None:
                players[pid] = row.get(f"{side}_rating")
    for name, players in events.items():
        for pid, rating in players.items():
            if rating is None and roster is not None:
                players[pid] = roster.rating(pid, first_pool[name, pid])
    summary = []
    for name, players in sorted(events.items()):
        ratings = [r for r in players.values() if r is not None]
        average = float(np.mean(ratings)) if ratings else None
        summary.append((name or None, len(players), len(ratings), average))
    return pa.Table.from_pylist(category_rows(summary, women=women), schema=CATEGORY_SCHEMA)


def _id_hint(name: str, games: pa.Table | None) -> str:
    """What the ids of the file look like, for "no rated games of player …": a TRF's
    players without a FIDE id are ``FILE#START`` (pipeline/trf.py), so a start number
    ``1`` is named as the id it means; otherwise two of the file's ids as examples."""
    if games is None or not games.num_rows:
        return ""
    ids = pc.unique(pa.chunked_array([games.column("white_id"), games.column("black_id")]))
    ids = [i for i in ids.to_pylist() if i is not None]
    meant = sorted(i for i in ids if i.endswith(f"#{name}") and "#" not in name)
    if meant:
        return f" (its players without a FIDE id are named by start number: {name} is {meant[0]!r})"
    shown = ", ".join(repr(i) for i in sorted(ids)[:2])
    return f" (its players' ids are like {shown})"


def player_by_name(
    name: str,
    raw,
    where: str,
    notes: list[str],
    roster: Roster | None = None,
    games: pa.Table | None = None,
) -> str:
    """A ``player`` that is no id with games in the file: a name matched among the
    file's players (PGN/TRF) and the ``--players`` file's (a CSV's names live there) as
    ``arpad history`` matches names (pipeline/lookup.py), with a note; no match, a
    ValueError naming the ids the file has (``_id_hint``)."""
    from arpad.pipeline.lookup import NoMatch, match_name

    missing = ValueError(f"no rated games of player {name!r} in {where}{_id_hint(name, games)}")
    names: dict = {}
    if roster is not None and "name" in roster.players.column_names:
        listed = roster.players
        for pid, nm in zip(
            listed.column("player_id").to_pylist(), listed.column("name").to_pylist(), strict=True
        ):
            if nm:
                names[pid] = nm
    players = raw.players if raw is not None else None
    if players is not None and "name" in players.columns:
        # the games file's own names first: they are the ones its games were read under
        names.update(
            (pid, nm)
            for pid, nm in zip(
                players["player_id"].to_list(), players["name"].to_list(), strict=True
            )
            if nm
        )
    if not names:
        raise missing
    try:
        found = match_name(name, names, where)
    except NoMatch:
        raise missing from None
    notes.append(f"{name} is the name of {found} ({names[found]})")
    return found


def file_norm(
    games: pa.Table,
    roster: Roster | None,
    raw,
    player: str,
    title: str,
    where: str,
    event: str | None = None,
    federation: str | None = None,
    notes: list[str] | None = None,
) -> NormCheck:
    """The title-norm check of ``player`` (an id, else a name of the file's players) in
    the rated games of ``games`` (of ``event``), with the opponents' ratings of each
    game's pool and their titles and federations the roster or the file gives."""
    notes = [] if notes is None else notes
    games = of_event(games, event)
    ids: list[str] = []
    opponents, score = opponent_ratings(games, roster, player, ids)
    if not opponents:
        player = player_by_name(player, raw, where, notes, roster, games)
        opponents, score = opponent_ratings(games, roster, player, ids)
    # Title norms come from standard games only: in a file mixing pools (a rapid
    # tie-break) the others are left out with a note; a player with no standard game is
    # checked on his games with the condition `pool` failed (docs/legacy-systems.md)
    pools = _pools_of(games, player)
    other = {p: n for p, n in pools.items() if p != POOLS[0]}
    if other and pools.get(POOLS[0]):
        notes.append(
            f"{player}: {_pool_counts(other)} left out: title norms come from {POOLS[0]} games only"
        )
        games = games.filter(pc.equal(games.column("pool"), POOLS[0]))
        ids = []
        opponents, score = opponent_ratings(games, roster, player, ids)
    titles_by_id, feds_by_id = player_facts(roster, raw.players if raw is not None else None)
    # No title (federation) anywhere in the data: the condition is not checked
    # rather than failed; otherwise a missing entry is an untitled opponent.
    titles = [titles_by_id.get(o) for o in ids] if titles_by_id else None
    federations = [feds_by_id.get(o) for o in ids] if feds_by_id else None
    check = norm_check(
        opponents,
        score,
        title,
        opponent_titles=titles,
        opponent_federations=federations,
        federation=federation or feds_by_id.get(player),
    )
    check.player = player
    if other and not pools.get(POOLS[0]):
        check.conditions.insert(
            0,
            ("pool", False, f"{_pool_counts(other)}: title norms come from {POOLS[0]} games only"),
        )
    return check


def _pools_of(games: pa.Table, player: str) -> dict[str, int]:
    """pool → the number of ``player``'s rated games in it."""
    mine = pc.and_(
        games.column("rated"),
        pc.or_(
            pc.equal(games.column("white_id"), player), pc.equal(games.column("black_id"), player)
        ),
    )
    pools = games.filter(pc.fill_null(mine, False)).column("pool").to_pylist()
    return {p: pools.count(p) for p in dict.fromkeys(pools)}


def _pool_counts(pools: dict[str, int]) -> str:
    """``20 games in the blitz pool``; of several pools ``22 games in the blitz and rapid
    pools (20, 2)``."""
    total = sum(pools.values())
    games = f"{total} game{'s' if total != 1 else ''}"
    if len(pools) == 1:
        return f"{games} in the {next(iter(pools))} pool"
    counts = ", ".join(str(n) for n in pools.values())
    return f"{games} in the {' and '.join(pools)} pools ({counts})"


def norm_lines(check: NormCheck, who: str) -> list[str]:
    """The text of a norm check, condition by condition (``arpad norm``'s output)."""
    opponents = check.opponents_given
    raised = (
        ", ".join(
            f"#{i + 1} ({'unrated' if np.isnan(opponents[i]) else f'{opponents[i]:g}'}"
            f" → {check.opponents_used[i]:g})"
            for i in check.raised
        )
        or "none"
    )
    lines = [
        f"{who}: {check.title} norm check, {check.games} games, {check.score:g} points "
        f"({check.percent} %), opponents raised to the floor: {raised}"
    ]
    mark = {True: "ok  ", False: "FAIL", None: "n/a "}
    for name, ok, detail in check.conditions:
        lines.append(f"  {mark[ok]} {name:<14} {detail}")
    if check.achieved:
        lines.append(f"  {check.title} norm: achieved, counts as {check.counts_as} games")
    elif check.failed:
        lines.append(f"  {check.title} norm: not achieved (fails: {', '.join(check.failed)})")
    else:
        lines.append(
            f"  {check.title} norm: undecided, the rating conditions are met "
            f"(not checked: {', '.join(check.unchecked)})"
        )
    return lines
