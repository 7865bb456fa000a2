"""Tournament tools over a games file: FIDE category of each event and a player's
title-norm check (``arpad category FILE``, ``arpad norm FILE``, ``arpad.category`` and
``arpad.norm``; docs/legacy-systems.md "Tournament tools"). One definition for the
command and the Python API: the command prints what these return."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline.tournament import (
    CATEGORY_SCHEMA,
    NormCheck,
    category_rows,
    norm_check,
    opponent_ratings,
    player_facts,
    roster_ratings,
)


def load(file, players=None, mapping: str | None = None, notes: list[str] | None = None):
    """(games, roster, raw) of a games file and an optional players file; a line on the
    rows that could not be read is appended to ``notes``."""
    from arpad.pipeline.performance import read_games_file, read_players_file

    games, quarantine, raw = read_games_file(Path(file), mapping=mapping)
    if quarantine.num_rows and notes is not None:
        notes.append(
            f"{file}: {quarantine.num_rows} rows could not be read and are left out "
            f"(first: line {quarantine.column('line')[0]}: {quarantine.column('detail')[0]})"
        )
    roster = read_players_file(Path(players), notes=notes) if players else None
    return games, roster, raw


def of_event(games: pa.Table, event: str | None) -> pa.Table:
    return games if event is None else games.filter(pc.equal(games.column("event_id"), event))


def file_categories(games: pa.Table, roster, event=None, women: bool = False) -> pa.Table:
    """FIDE category of each event of ``games`` (CATEGORY_SCHEMA): a player's rating is
    the first one the event's games state, else the roster's."""
    games = of_event(games, event)
    if event is not None and games.num_rows == 0:
        raise ValueError(f"no games of event {event!r} in the file")
    listed = roster_ratings(roster)
    events: dict[str, dict[str, float | None]] = {}
    for row in games.to_pylist():
        players = events.setdefault(row.get("event_id") or "", {})
        for side in ("white", "black"):
            # the games' rating first (as --store and `arpad performance`), else the
            # players file's; a player's first stated rating in the event is kept
            pid = row[f"{side}_id"]
            if players.get(pid) is None:
                players[pid] = row.get(f"{side}_rating")
    for players in events.values():
        for pid, rating in players.items():
            if rating is None:
                players[pid] = listed.get(pid)
    summary = []
    for name, players in sorted(events.items()):
        ratings = [r for r in players.values() if r is not None]
        average = float(np.mean(ratings)) if ratings else None
        summary.append((name or None, len(players), len(ratings), average))
    return pa.Table.from_pylist(category_rows(summary, women=women), schema=CATEGORY_SCHEMA)


def player_by_name(name: str, raw, where: str, notes: list[str], roster=None) -> str:
    """A ``player`` that is no id with games in the file: a name matched among the
    file's players (PGN/TRF) and the ``--players`` file's (a CSV's names live there) as
    ``arpad history`` matches names (pipeline/lookup.py), with a note."""
    from arpad.pipeline.lookup import NoMatch, match_name

    missing = ValueError(f"no rated games of player {name!r} in {where}")
    names: dict = {}
    if roster is not None and "name" in roster.column_names:
        for pid, nm in zip(
            roster.column("player_id").to_pylist(), roster.column("name").to_pylist(), strict=True
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
    roster,
    raw,
    player: str,
    title: str,
    where: str,
    event: str | None = None,
    federation: str | None = None,
    notes: list[str] | None = None,
) -> NormCheck:
    """The title-norm check of ``player`` (an id, else a name of the file's players) in
    the rated games of ``games`` (of ``event``), with the opponents' titles and
    federations the roster or the file gives."""
    notes = [] if notes is None else notes
    games = of_event(games, event)
    ids: list[str] = []
    opponents, score = opponent_ratings(games, roster, player, ids)
    if not opponents:
        player = player_by_name(player, raw, where, notes, roster)
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
    return check


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
