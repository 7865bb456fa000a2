"""Performance ratings: per player per period in the ratings output, and for any games file.

Methods and conventions: ``kernels.performance`` and docs/legacy-systems.md
("Performance ratings").

* ``fill_performance`` is the engine's post-step: after a system's ``step`` it
  fills the ``performance`` column (unless the system filled it itself, as
  ECF, Harkness and Ingo do on their own scales) from each player's games and
  the opponents' ``rating_before``. The method is the system's hook
  ``performance_method``: ``fide`` (table 8.1.1) for FIDE, ``linear`` for
  elo-linear, and the base class's default, the true performance on the
  logistic curve, for every other Elo-scale system.
* ``performance_table`` rates any set of games (``arpad performance FILE``):
  opponents' ratings come from the games' ``white_rating``/``black_rating``
  (PGN WhiteElo/BlackElo) and, where those are empty, from the players file's
  ratings of the game's pool (``read_players_file``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from arpad.kernels.performance import performance_period
from arpad.pipeline.rules import dp_by_percent
from arpad.pipeline.systems.base import PeriodGames, RatingSystem, Report

if TYPE_CHECKING:
    from arpad.pipeline.tournament import Roster

# method name -> (column of PerformanceResult, curve)
METHODS = {
    "fide": ("fide", "normal"),
    "linear": ("linear", "normal"),
    "true-normal": ("true", "normal"),
    "true-logistic": ("true", "logistic"),
}


def method_for(system: RatingSystem) -> str:
    """The system's ``performance_method`` (base default: the true logistic performance)."""
    name = system.performance_method
    if name not in METHODS:
        raise ValueError(f"unknown performance method {name!r} (known: {', '.join(METHODS)})")
    return name


def fill_performance(system: RatingSystem, report: Report, games: PeriodGames) -> Report:
    """Fill ``report.columns['performance']`` unless the system already filled it."""
    job = performance_job(system, report, games)
    if job is not None:
        report.columns["performance"] = job()
    return report


def performance_job(
    system: RatingSystem, report: Report, games: PeriodGames
) -> Callable[[], np.ndarray] | None:
    """The computation of ``fill_performance``'s column as a call, or None when the report
    keeps its column (the system filled it, no ``rating_before``, or no games).

    The call reads only the period's grouped games and a copy of ``rating_before`` taken
    now, so it may run on another thread while the next period is computed (the engine
    runs it on its write-behind thread, docs/store.md "Write-behind"): a system that
    updates its arrays in place in its next step does not change it.
    """
    current = report.columns.get("performance")
    if current is not None and not np.all(np.isnan(np.asarray(current, dtype=np.float64))):
        return None
    before = report.columns.get("rating_before")
    if before is None or games.n_games == 0:
        return None
    rating = np.array(before, dtype=np.float64)  # a copy (see above)
    column, curve = METHODS[method_for(system)]
    table = dp_by_percent()

    def compute() -> np.ndarray:
        # Opponents' ratings are read by index inside the kernel: no per-game gather, and
        # the logistic curve's 10^(R/400) once per player (kernels/performance.py). The
        # grouping is the light one of opponents and scores unless the step built it all.
        offsets, opponent, own_score = games.opponents()
        res = performance_period(
            offsets,
            rating,
            own_score,
            rating,
            table,
            curve,
            with_true=column == "true",
            opponent=opponent,
        )
        return getattr(res, column)

    return compute


def _entries_csr(unit: np.ndarray, n_units: int, *columns: np.ndarray):
    order = np.argsort(unit, kind="stable")
    offsets = np.zeros(n_units + 1, dtype=np.int64)
    np.cumsum(np.bincount(unit, minlength=n_units), out=offsets[1:])
    return offsets, [c[order] for c in columns]


def performance_table(
    games: pa.Table,
    players: Roster | None = None,
    by: str = "player",
    curve: str = "normal",
) -> pa.Table:
    """Performance of every player (``by='player'``) or player × event (``by='event'``).

    ``games``: canonical GAMES rows (only rated games count); ``players``: the
    players file's ratings per pool (``read_players_file``) or None, read for each
    game in its pool. Games whose opponent has no rating are left out. Columns:
    player_id, [event_id], games, score, percent, average_opponent, fide, linear,
    true, virtual_draw, curve.
    """
    if by not in ("player", "event"):
        raise ValueError("--by must be player or event")
    games = games.filter(games.column("rated"))
    white = np.asarray(games.column("white_id").to_pylist(), dtype=object)
    black = np.asarray(games.column("black_id").to_pylist(), dtype=object)
    score = games.column("score").to_numpy(zero_copy_only=False).astype(np.float64)

    def ratings(name: str) -> np.ndarray:
        if name not in games.column_names:
            return np.full(games.num_rows, np.nan)
        col = games.column(name).cast(pa.float64())
        values = col.to_numpy(zero_copy_only=False).astype(np.float64)
        # a stated rating of 0 is FIDE's "unrated", as `rate` and the players file read
        # it (docs/observations.md): such a game is left out, not played against 0
        return np.where(values > 0, values, np.nan)

    white_rating, black_rating = ratings("white_rating"), ratings("black_rating")
    pools = games.column("pool").to_pylist()

    def listed(ids: np.ndarray) -> np.ndarray:
        """The players file's rating of each game's player in the game's pool (NaN: none)."""
        if players is None:
            return np.full(len(ids), np.nan)
        found = (players.rating(p, pool) for p, pool in zip(ids, pools))
        return np.array([r if r is not None and r > 0 else np.nan for r in found], np.float64)

    white_listed, black_listed = listed(white), listed(black)
    white_rating = np.where(np.isnan(white_rating), white_listed, white_rating)
    black_rating = np.where(np.isnan(black_rating), black_listed, black_rating)

    player = np.concatenate([white, black])
    opp_rating = np.concatenate([black_rating, white_rating])
    own_game_rating = np.concatenate([white_rating, black_rating])
    own_listed = np.concatenate([white_listed, black_listed])
    own_score = np.concatenate([score, 1.0 - score])
    if by == "event":
        event = games.column("event_id").to_pylist() if "event_id" in games.column_names else []
        event = np.asarray([e if e is not None else "" for e in event] * 2, dtype=object)
        keys = np.asarray([f"{p}\x00{e}" for p, e in zip(player, event)], dtype=object)
    else:
        keys = player
    unit_keys, unit = np.unique(keys, return_inverse=True) if keys.size else (keys, keys)
    n_units = int(unit_keys.size)
    unit = np.asarray(unit, dtype=np.int64)
    offsets, (opp_sorted, score_sorted, own_sorted, listed_sorted) = _entries_csr(
        unit, n_units, opp_rating, own_score, own_game_rating, own_listed
    )
    unit_player = np.empty(n_units, dtype=object)
    unit_player[unit] = player
    # The player's own rating (only for the virtual draw at 0 %/100 %): players file
    # first (of the games' pool; the mean over a player's games of several pools),
    # else the mean of the ratings the games give the player.
    entry_unit = np.repeat(np.arange(n_units), np.diff(offsets))

    def mean_known(values: np.ndarray) -> np.ndarray:
        known = ~np.isnan(values)
        sums = np.bincount(entry_unit, np.where(known, values, 0.0), n_units)
        counts = np.bincount(entry_unit, known, n_units)
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    own = mean_known(listed_sorted)
    own = np.where(np.isnan(own), mean_known(own_sorted), own)
    res = performance_period(offsets, opp_sorted, score_sorted, own, dp_by_percent(), curve)
    keep = res.games > 0
    cols: dict[str, pa.Array] = {"player_id": pa.array(unit_player[keep].tolist(), pa.string())}
    if by == "event":
        events = [k.split("\x00", 1)[1] or None for k in unit_keys[keep]]
        cols["event_id"] = pa.array(events, pa.string())
    g = res.games[keep]
    cols.update(
        games=pa.array(g),
        score=pa.array(res.score[keep]),
        percent=pa.array(100.0 * res.score[keep] / g),
        average_opponent=pa.array(res.average_opponent[keep]),
        fide=pa.array(res.fide[keep]),
        linear=pa.array(res.linear[keep]),
        true=pa.array(res.true[keep]),
        virtual_draw=pa.array(res.extreme[keep]),
        curve=pa.array([curve] * int(keep.sum()), pa.string()),
    )
    table = pa.table(cols)
    sort = [("player_id", "ascending")] + ([("event_id", "ascending")] if by == "event" else [])
    return table.sort_by(sort)


def read_games_file(
    path: Path, fmt: str | None = None, mapping: str | None = None, encoding: str | None = None
):
    """Any games file a reader understands → (accepted GAMES table, quarantined rows).
    ``encoding``: the code page of a text file that is not UTF-8 (``--encoding``, as
    ``read_any`` takes it), else told from its letters."""
    from arpad.pipeline.readers import read_any
    from arpad.pipeline.validate import validate_games

    raw = read_any(Path(path), fmt=fmt, mapping=mapping, kind="games", encoding=encoding)
    validated = validate_games(raw, Path(path).name, "performance")
    return validated.accepted, validated.quarantine, raw


def read_players_file(
    path: Path,
    fmt: str | None = None,
    notes: list[str] | None = None,
    encoding: str | None = None,
) -> Roster:
    """A players file as ``arpad.rate`` reads it (``api._validated``, ``observations.pool_players``):
    one row per player, and each player's rating of each pool, a row's own pool only
    (FIDE's SRtng/RRtng/BRtng, a ``pool`` column: ``observations.dated_players``; a
    rating without a pool seeds every pool). Appended to ``notes``, after the file's
    name: the notes ``arpad ingest`` prints for it (``read_notes``: ';', the columns read
    and not read, Latin-1, ratings of 0 read as unrated, …) and a line on the rows that
    could not be read (each named by line and problem, as ingest names them): a rating
    ``21OO`` or a row split by an unquoted comma is never dropped unsaid.
    ``encoding``: as ``read_games_file``'s."""
    import polars as pl

    from arpad.pipeline.observations import (
        dated_players,
        has_pool_column,
        pool_players,
    )
    from arpad.pipeline.readers import read_any
    from arpad.pipeline.schemas import POOLS
    from arpad.pipeline.tournament import Roster, roster_ratings
    from arpad.pipeline.tournament_files import read_notes
    from arpad.pipeline.validate import validate_players

    raw = read_any(Path(path), fmt=fmt, kind="players", encoding=encoding)
    name = Path(path).name
    validated = validate_players(raw, name, "performance", for_rating=False)  # no K, no chain
    rows = validated.accepted
    if has_pool_column(raw):  # each row's pool, as ingest and arpad.rate split them
        validated, pools, rows = dated_players(raw, validated, name, "performance")
        rows = (
            pl.from_arrow(rows)
            .join(pools.select("source", "pool"), on="source", how="left", maintain_order="left")
            .to_arrow()
        )
    bad = validated.quarantine
    if notes is not None:
        notes.extend(f"{path}: {note}" for note in [*read_notes(raw), *validated.notes])
    if bad.num_rows and notes is not None:
        lines = bad.column("line").to_pylist()
        details = bad.column("detail").to_pylist()
        shown = "; ".join(f"line {ln}: {d}" for ln, d in list(zip(lines, details))[:3])
        more = f"; and {bad.num_rows - 3} more" if bad.num_rows > 3 else ""
        notes.append(
            f"{path}: {bad.num_rows} players rows could not be read and are left out "
            f"({shown}{more})"
        )
    by_pool = {pool: pool_players(rows, pool) for pool in POOLS}
    return Roster(
        by_pool[POOLS[0]], {pool: roster_ratings(table) for pool, table in by_pool.items()}
    )
