"""The rating engine: walk a pool's periods in order, carry the state, write reports.

Per period (docs/developing.md "The engine"):
1. one Arrow read of the period's game files gives its rated games, and one
   vectorised lookup maps player ids to dense indices (the run's player index,
   built once from the players table);
2. a counting-sort kernel groups the games by player (CSR offsets);
3. the system's ``step`` maps (state, games, rules) to (state, report);
4. the report is written as the period's ratings partition, and the state as
   a checkpoint, so a later run can start at any period (``--from``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import catalog, checkpoints, observations, sharding, warm
from arpad.pipeline import keys as player_keys
from arpad.pipeline.game_reports import write_game_report
from arpad.pipeline.integrity import open_games
from arpad.pipeline.performance import fill_performance, performance_job
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import (
    EVENT_FILE_SEPARATOR,
    NOT_REPORTED,
    STATUS_CODES,
    EventGames,
    PeriodGames,
    Placement,
    PlayerInfo,
    Report,
    State,
    apply_overrides,
    check_rules,
    overridden_name,
    parse_rule_value,
    rule_changes,
)

log = logging.getLogger(__name__)


@dataclass
class RateSummary:
    system: str
    pool: str
    periods: list[int] = field(default_factory=list)
    games: int = 0
    rows_written: int = 0
    seconds: dict[str, float] = field(
        default_factory=lambda: {"query": 0.0, "kernel": 0.0, "write": 0.0}
    )
    rules: list[str] = field(default_factory=list)  # rule version name per period
    shards: int = 1  # player shards per period (pipeline/sharding.py); 1 = unsharded
    resumed_after: int | None = None  # the last period a killed run had completed
    incremental_from: int | None = None  # the stale period an incremental run started at
    skipped: str | None = None  # why ``reconstruct`` did not rate this system/pool
    replayed: list[int] = field(default_factory=list)  # periods replayed from a checkpoint
    self_play: int = 0  # games of a player against himself (merged ids) left unrated
    # what the run did that a user should know of (ECF's games dated only to the year:
    # ``RatingSystem.placed_games``); ``arpad rate`` prints each on stderr
    notes: list[str] = field(default_factory=list)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def __repr__(self) -> str:
        """One line, as a notebook shows it: the periods as a span and the rule
        versions by name, not one entry per period (``to_dict`` has every field)."""
        parts = [f"system={self.system!r}", f"pool={self.pool!r}"]
        if self.periods:
            first, last = self.periods[0], self.periods[-1]
            span = str(first) if first == last else f"{first}..{last}"
            parts.append(f"periods={span} ({len(self.periods)})")
        else:
            parts.append("periods=none")
        parts += [f"games={self.games:,}", f"rows_written={self.rows_written:,}"]
        parts.append(f"seconds={self.total_seconds:.2f}")
        if self.rules:
            parts.append("rules=" + ", ".join(dict.fromkeys(self.rules)))
        if self.shards != 1:
            parts.append(f"shards={self.shards}")
        for name, value in (
            ("resumed_after", self.resumed_after),
            ("incremental_from", self.incremental_from),
            ("skipped", self.skipped),
        ):
            if value is not None:
                parts.append(f"{name}={value!r}")
        if self.replayed:
            parts.append(f"replayed={len(self.replayed)} period(s)")
        return f"RateSummary({', '.join(parts)})"


def player_info(players: pa.Table) -> PlayerInfo:
    """Dense arrays of the players table (sorted by player_id)."""
    ids = players.column("player_id")
    if len(ids) > 1 and not pc.all(pc.less_equal(ids[:-1], ids[1:])).as_py():
        players = players.sort_by("player_id")  # the store keeps it sorted: usually no copy

    def floats(name):
        return players.column(name).to_numpy(zero_copy_only=False).astype(np.float64)

    def ints(name):
        col = players.column(name).fill_null(-1)
        return col.to_numpy(zero_copy_only=False).astype(np.int64)

    birth_year = ints("birth_year")
    ids = players.column("player_id")
    return PlayerInfo(
        player_id=_objects(ids),
        rating=np.nan_to_num(floats("rating"), nan=np.nan),
        rated_games=ints("rated_games"),
        peak_rating=floats("peak_rating"),
        birth_year=birth_year,
        rd=floats("rd"),
        volatility=floats("volatility"),
        grade=floats("grade"),
        sex=_objects(players.column("sex")),
        birth_date=_yyyymmdd(players, "birth_date"),
        ids=ids.combine_chunks().cast(pa.string()),
    )


def _yyyymmdd(players: pa.Table, name: str) -> np.ndarray:
    """A date column as int64 YYYYMMDD, -1 where null (or when the table has no such
    column)."""
    if name not in players.column_names:
        return np.full(players.num_rows, -1, dtype=np.int64)
    col = players.column(name)
    value = pc.add(
        pc.add(pc.multiply(pc.year(col), 10000), pc.multiply(pc.month(col), 100)), pc.day(col)
    )
    return value.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _objects(column: pa.ChunkedArray) -> np.ndarray:
    """A string column as a NumPy object array (None where null), as ``to_pylist`` gives."""
    out = column.to_numpy(zero_copy_only=False)
    return out if out.dtype == object else np.asarray(column.to_pylist(), dtype=object)


def resolve_rules(system_name: str, spec: str | None, pool: str = "standard") -> Any | None:
    """``--rules``: None (dated versions), an ISO date/period (FIDE version in force
    for ``pool``), or a JSON file of rule fields."""
    if spec is None:
        return None
    system = get_system(system_name)
    path = Path(spec)
    if path.suffix == ".json" or path.exists():
        return file_rules_named(system, rules_from_file(system.rules_type(), path), path, pool)
    return system.rules_at(spec, pool=pool)


def file_rules_named(system: Any, rules: Any, path: Path, pool: str = "standard") -> Any:
    """A rules file's rules, named so that the stored ``rules`` column, the run summary
    and ``arpad audit`` say where they came from and ``rules_from_name`` rebuilds them:
    the version the file's ``"name"`` names (none: the system's default rules'), the
    file, then `` + key=value`` for each field that differs from that version
    (``overridden_name``): ``FIDE 2024-03 (my_fed_rules.json) + k_mid=25``. A name that
    is no version's is kept, its fields noted against the system's default rules. Rules
    without a ``name`` field are named by their class (``rules_name``) and left as they are."""
    if "name" not in {f.name for f in dataclasses.fields(rules)}:
        return rules
    head = split_rules_name(str(rules.name), rules)[0]
    version = named_version(system, head, pool)
    reference = system.rules_type() if version is None else version
    title = head if version is None else version.name
    label = f"{title} ({path.name.replace(' + ', '+')})"  # (no " + " but the notes')
    changes = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    return dataclasses.replace(rules, name=overridden_name(label, reference, changes))


def split_rules_name(name: str, rules: Any) -> tuple[str, dict[str, str]]:
    """(head, notes) of a rules name as ``overridden_name`` writes it: ``FIDE 2024-03 +
    k_mid=25`` is (``FIDE 2024-03``, {``k_mid``: ``25``}); a `` + `` that is not such a
    note (a field of ``rules`` = value) is part of the head, and then there are no notes."""
    fields = {f.name for f in dataclasses.fields(rules)}
    head, *parts = name.split(" + ")
    notes: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or key not in fields:
            return name, {}
        notes[key] = value
    return head, notes


def named_version(system: Any, head: str, pool: str = "standard") -> Any | None:
    """The dated version ``head`` names: its name, or its name then `` (FILE)`` (a rules
    file's, ``file_rules_named``); the versions of ``pool`` first, then the standard
    pool's; None when it names none."""
    versions = [*system.rule_versions(pool), *system.rule_versions("standard")]
    for v in sorted(versions, key=lambda v: -len(str(v.name))):  # the longest name first
        name = str(v.name)
        if head == name or (head.startswith(f"{name} (") and head.endswith(")")):
            return v
    return None


def rules_from_name(system: Any, name: str, pool: str = "standard") -> Any | None:
    """The rules a stored ``rules`` name describes (``file_rules_named``,
    ``apply_overrides``): the version it names (none: the system's default rules) with
    the fields its notes give, named ``name``; None when a note cannot be read or the
    rules have no ``name`` field. The caller checks ``rules_hash`` against the stored one."""
    base = system.rules_type()
    if "name" not in {f.name for f in dataclasses.fields(base)}:
        return None
    head, notes = split_rules_name(name, base)
    version = named_version(system, head, pool)
    base = base if version is None else version
    try:
        changes = rule_changes(base, notes, parse_rule_value)
        return dataclasses.replace(base, **{**changes, "name": name})
    except (TypeError, ValueError):
        return None


def rules_from_file(base: Any, path: Path) -> Any:
    """``--rules FILE.json``: ``base`` with the file's fields (a JSON object of field
    names and values). Each value is read as ``--set`` reads it (a JSON number, string,
    true/false, or null where the field may be empty) and checked against the field's
    range; anything else is refused with the file and the field named (exit 2)."""
    from arpad.pipeline.errors import RulesFileError

    if path.is_dir():  # (it was Python's "[Errno 21] Is a directory: '…'"; as ingest says it)
        raise RulesFileError(
            path,
            None,
            "is a directory, not a rules file (a JSON file of rule fields or an ISO date)",
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesFileError(path, None, f"cannot read the rules file: {exc}") from None
    try:
        values = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesFileError(
            path, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})"
        ) from None
    if not isinstance(values, dict):
        raise RulesFileError(
            path,
            None,
            f'a rules file holds one JSON object of rule fields (e.g. {{"k": 20}}), '
            f"not a {type(values).__name__}",
        )
    try:
        changes = rule_changes(base, values, _json_rule_value)
        return check_rules(dataclasses.replace(base, **changes))
    except (TypeError, ValueError) as exc:  # (TypeError: a rules type's own checks)
        raise RulesFileError(path, None, str(exc)) from None


def _json_rule_value(value: Any, hint: Any, key: str) -> Any:
    """A JSON value for the rule field ``key`` of type ``hint`` (see ``rules_from_file``)."""
    if isinstance(value, str):
        return parse_rule_value(value, hint, key)  # as --set key=value reads it
    args = typing.get_args(hint)
    optional = type(None) in args
    kind = next((a for a in args if a is not type(None)), hint)
    if value is None:
        if optional:
            return None
        raise ValueError(f"rule {key}: null is not allowed (a {kind.__name__} is needed)")
    if kind is bool and isinstance(value, bool):
        return value
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is str and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"rule {key}: cannot read {json.dumps(value)} as {kind.__name__}")


def check_overrides(system_name: str, overrides: dict[str, str] | None) -> None:
    """``--set`` refused before any work: unknown fields, NaN, ±inf, out-of-range values."""
    apply_overrides(get_system(system_name).rules_type(), overrides or {})


def check_run_rules(
    system_name: str, spec: str | None, overrides: dict[str, str] | None, pool: str = "standard"
) -> None:
    """Fail before any work when ``--rules`` or a ``--set`` name or value is bad."""
    base = resolve_rules(system_name, spec, pool)
    if base is None:
        base = get_system(system_name).rules_type()
    apply_overrides(base, overrides or {})


class _Checkpoints:
    """State <-> Parquet tables keyed by player_id (so indices may change between runs)."""

    @staticmethod
    def to_tables(state: State, player_id) -> dict[str, pa.Table]:
        ids = id_array(player_id)
        cols = {"player_id": ids}
        cols.update({k: pa.array(v) for k, v in state.players.items()})
        tables = {"players": pa.table(cols)}
        for name, table in state.tables.items():
            t = {k: pa.array(v) for k, v in table.items() if k != "player"}
            if "player" in table:
                rows = pa.array(np.asarray(table["player"], dtype=np.int64))
                t = {"player_id": ids.take(rows), **t}
            tables[f"table_{name}"] = pa.table(t)
        return tables

    @staticmethod
    def from_tables(tables: dict[str, pa.Table], initial: State, player_id: np.ndarray) -> State:
        index = {pid: i for i, pid in enumerate(player_id)}
        saved = tables["players"]
        rows = np.array(
            [index.get(p, -1) for p in saved.column("player_id").to_pylist()], dtype=np.int64
        )
        known = rows >= 0
        players = {}
        for name, init in initial.players.items():
            arr = init.copy()
            if name in saved.column_names:
                values = saved.column(name).to_numpy(zero_copy_only=False)
                arr[rows[known]] = values[known]
            players[name] = arr
        out = State(players=players, tables={})
        for name in initial.tables:
            t = tables.get(f"table_{name}")
            if t is None:
                out.tables[name] = initial.tables[name]
                continue
            cols = {c: t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names}
            if "player_id" in cols:
                cols["player"] = np.array([index[p] for p in cols.pop("player_id")], dtype=np.int64)
            out.tables[name] = cols
        return out


def _report_table(
    report: Report, player_id: np.ndarray, encoded: bool = False, own: bool = False
) -> pa.Table:
    """The report's rows (players not reported left out). ``encoded``: ``status`` stays a
    dictionary array (what ``Store.write_ratings`` writes as it is; readers of the file
    see strings), else plain strings (the in-memory API's tables). ``own``: the table
    owns copies of the report's arrays (Arrow would otherwise view NumPy memory that a
    system may update in place in its next step — the write-behind thread reads the
    table while the next period is computed)."""
    keep = report.status != NOT_REPORTED
    every = bool(keep.all())  # the usual case: no copy of the ids and columns
    ids = id_array(player_id)
    cols: dict[str, Any] = {"player_id": ids if every else ids.filter(pa.array(keep))}
    for name, values in report.columns.items():
        v = np.asarray(values) if every else np.asarray(values)[keep]
        if every and own:
            v = v.copy()
        cols[name] = _column_array(v)
    codes = np.asarray(report.status if every else report.status[keep], dtype=np.int32)
    codes = pa.array(codes.copy() if every and own else codes)
    statuses = pa.DictionaryArray.from_arrays(codes, pa.array(STATUS_CODES, pa.string()))
    cols["status"] = statuses if encoded else statuses.dictionary_decode()
    return pa.table(cols)


def _column_array(v: np.ndarray) -> pa.Array:
    """A report column as Arrow: floats with NaN as null."""
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        return pa.array(v, mask=nan if nan.any() else None)
    return pa.array(v)


def _late_performance(job: Callable[[], np.ndarray], keep: np.ndarray | None) -> Callable:
    """``Store.ratings_writer``'s ``finish``: the performance column (``job``: the call of
    ``performance_job``, or ``WriteBehind.side``'s wait for it on its own thread) put
    into the conformed table, the players not reported (``keep`` false) left out as
    ``_report_table`` does."""

    def finish(table: pa.Table) -> pa.Table:
        values = job()
        v = np.asarray(values if keep is None else values[keep])
        index = table.schema.get_field_index("performance")
        field = table.schema.field(index)
        return table.set_column(index, field, _column_array(v).cast(field.type))

    return finish


def rules_hash(rules: Any) -> str:
    """A content hash of a rules object's fields (16 hex digits of sha256 over their
    sorted JSON): two rule sets hash alike exactly when every field is equal."""
    fields = dataclasses.asdict(rules) if dataclasses.is_dataclass(rules) else dict(vars(rules))
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _audited(table: pa.Table, sys_, rules: Any, run: str | None, encoded: bool = False) -> pa.Table:
    """``table`` with the audit columns: rules name, rules hash, run id (docs/store.md).
    ``encoded``: each a one-value dictionary array (no string per row), else plain strings."""
    n = table.num_rows
    values = {"rules": sys_.rules_name(rules), "rules_hash": rules_hash(rules), "run_id": run}
    zeros = pa.array(np.zeros(n, dtype=np.int32)) if encoded else None
    for name, value in values.items():
        if value is None:
            column = pa.nulls(n, pa.string())
        elif encoded:
            column = pa.DictionaryArray.from_arrays(zeros, pa.array([value], pa.string()))
        else:
            column = pa.repeat(pa.scalar(value), n)
        table = table.append_column(name, column)
    return table


GAME_COLUMNS = ["white_id", "black_id", "score", "rated", "event_id"]


def id_array(player_id) -> pa.Array:
    """The run's player ids as one Arrow string array (built once per run, not per
    period), from a ``PlayerInfo`` (its ``ids`` when it has them), an Arrow array or
    Python strings."""
    if isinstance(player_id, PlayerInfo):
        if player_id.ids is not None:
            return player_id.ids
        player_id = player_id.player_id
    if isinstance(player_id, pa.Array):
        return player_id
    return pa.array(np.asarray(player_id, dtype=object), type=pa.string())


def _read_game_file(path: str) -> pa.Table:
    file = open_games(path)  # pq.ParquetFile, damaged files named (pipeline/integrity.py)
    present = set(file.schema_arrow.names)
    table = file.read(columns=[c for c in GAME_COLUMNS if c in present])
    cols = {}
    for name in GAME_COLUMNS:
        if name in table.column_names:
            cols[name] = table.column(name)
        else:  # an older file without the column: unknown everywhere
            cols[name] = pa.nulls(table.num_rows, pa.string())
    return pa.table(cols)


def alias_arrays(store: Store) -> tuple[pa.Array, pa.Array] | None:
    """(duplicate ids, keep ids) of the store's player merges, or None without any."""
    table = store.read_aliases()
    if table is None or table.num_rows == 0:
        return None
    return (
        table.column("duplicate").cast(pa.string()).combine_chunks(),
        table.column("keep").cast(pa.string()).combine_chunks(),
    )


# The facts of a player the rating systems read (``player_info``) that a kept id takes
# from its merged duplicates where its own players row has none (docs/identity.md "An id
# change": FIDE's new id in a register without the rated games of the old one).
MERGED_FACTS = (
    "rating",
    "rated_games",
    "peak_rating",
    "birth_year",
    "birth_date",
    "rd",
    "volatility",
    "grade",
    "sex",
)


def _duplicates_by_keep(
    players: pa.Table, aliases: tuple[pa.Array, pa.Array]
) -> tuple[pa.Table, pa.Array]:
    """The merged duplicates' players rows, sorted by id, and the kept id of each."""
    dups, keeps = aliases
    rows = players.filter(pc.is_in(players.column("player_id"), dups)).sort_by("player_id")
    keep_of = keeps.take(pc.index_in(rows.column("player_id"), value_set=dups))
    return rows, keep_of


def kept_players(players: pa.Table, aliases: tuple[pa.Array, pa.Array] | None) -> pa.Table:
    """The players a run rates: ``players`` without the merged duplicates (not players of
    their own), each kept id's null facts of ``MERGED_FACTS`` filled from its duplicates'
    rows, the first duplicate in id order that gives one. So a merge gives the ratings of
    a store whose kept id had the duplicate's register facts from the start
    (docs/identity.md "An id change")."""
    if aliases is None:
        return players
    kept = players.filter(pc.invert(pc.is_in(players.column("player_id"), aliases[0])))
    rows, keep_of = _duplicates_by_keep(players, aliases)
    if rows.num_rows == 0:
        return kept
    ids = kept.column("player_id")
    for name in MERGED_FACTS:
        if name not in kept.column_names or name not in rows.column_names:
            continue
        given = pc.is_valid(rows.column(name))
        where = pc.index_in(ids, value_set=keep_of.filter(given))  # the first in id order
        theirs = rows.column(name).filter(given).combine_chunks().take(where)
        own = kept.column(name)
        filled = pc.coalesce(own, theirs.cast(own.type))
        kept = kept.set_column(kept.column_names.index(name), name, filled)
    return kept


def kept_undated_ratings(
    store: Store,
    players: pa.Table,
    aliases: tuple[pa.Array, pa.Array] | None,
    player_ids,
    rating: np.ndarray,
    index=None,
    pool: str | None = None,
) -> np.ndarray:
    """``observations.undated_ratings`` of ``player_ids`` (a run's, duplicates left out),
    where a kept id has none the undated rating of its merged duplicates (``players``: the
    whole players table), the first in id order that has one: a register's rating of the
    old id counts for the new one (docs/identity.md "An id change")."""
    out = observations.undated_ratings(store, player_ids, rating, index, pool)
    if aliases is None or not np.isnan(out).any():
        return out
    rows, keep_of = _duplicates_by_keep(players, aliases)
    if rows.num_rows == 0:
        return out
    own = rows.column("rating").to_numpy(zero_copy_only=False).astype(np.float64)
    theirs = observations.undated_ratings(
        store, rows.column("player_id").combine_chunks(), own, None, pool
    )
    given = ~np.isnan(theirs)
    ids = player_ids if isinstance(player_ids, pa.Array) else pa.array(player_ids, pa.string())
    where = pc.index_in(ids, value_set=keep_of.filter(pa.array(given)))
    where = where.fill_null(-1).to_numpy(zero_copy_only=False)
    fill = np.isnan(out) & (where >= 0)
    out = out.copy()
    out[fill] = theirs[given][where[fill]]
    return out


def load_period_games(
    files: list[str],
    player_ids,
    aliases: tuple[pa.Array, pa.Array] | None = None,
    dense_of_key: np.ndarray | None = None,
    read_events: bool = True,
    self_play: list[int] | None = None,
    days: dict[str, np.ndarray] | None = None,
    select: dict[str, tuple[tuple[str, ...], bool]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """White, black (dense), White's score and event index (-1 unknown) of a period's rated games.

    One Arrow read per game file of the period, files in name order, rows in file
    order (the order every system sees the games in). Files with the integer player
    keys of ingest (``white_key``/``black_key``, docs/store.md "Player keys") are
    mapped to dense indices through ``dense_of_key`` (key -> dense index, built once
    per run by ``keys.dense_of_keys``; merged ids already resolved there): no string
    is looked up. Files without keys (written before them), or with a key the
    dictionary lacks, fall back to one vectorised lookup of the string ids against
    the run's player ids (``player_ids``: the players table's ids, sorted; dense
    index = position). Games with a player missing from the players table are left
    out, as are unrated games. ``aliases`` (duplicate, keep): a merged duplicate's
    games count as the kept id's (docs/identity.md). ``read_events=False`` (a system
    whose ``uses_events`` is False) skips the event ids: every event index is -1.
    ``days`` (a system whose ``uses_game_days`` is True): filled with ``day`` (each
    game's date as days since 1970-01-01, -1 unknown) and ``event_key`` (each game's
    event id as a key that is the same in every period, -1 unknown).
    ``select`` (path -> (event ids, take)): of that file only the games dated to the year
    alone whose event id is one of them (``take`` True), or all but those (False): the
    games a system walks in another period (``placed_files``).
    """
    empty = np.empty(0, dtype=np.int32)
    if days is not None:
        days["day"], days["event_key"] = empty, np.empty(0, dtype=np.int64)
    if not files:
        return empty, empty, np.empty(0), empty
    whites, blacks, scores, rateds, events, dates = [], [], [], [], [], []
    for path in sorted(files, key=str):
        white, black, score, rated, event = _read_game_file_dense(
            path,
            player_ids,
            aliases,
            dense_of_key,
            read_events,
            dates if days is not None else None,
        )
        if select and path in select:
            taken = _placed_rows(path, select[path][0])
            if not select[path][1]:
                taken = ~taken
            white, black, score, rated = white[taken], black[taken], score[taken], rated[taken]
            event = event.filter(pa.array(taken))
            if days is not None:
                dates[-1] = dates[-1][taken]
        whites.append(white)
        blacks.append(black)
        scores.append(score)
        rateds.append(rated)
        events.append(event)
    white, black = np.concatenate(whites), np.concatenate(blacks)
    score, rated = np.concatenate(scores), np.concatenate(rateds)
    keep = (white >= 0) & (black >= 0) & rated
    # one player on both sides (ids that met, merged with --force; docs/identity.md):
    # not rated, counted in ``self_play`` when given
    own = keep & (white == black)
    if own.any():
        keep &= ~own
        if self_play is not None:
            self_play.append(int(own.sum()))
    event_ids = pa.chunked_array(events, type=pa.string())
    day = np.concatenate(dates) if days is not None else None
    if not keep.all():
        white, black, score = white[keep], black[keep], score[keep]
        event_ids = event_ids.filter(pa.array(keep))
        day = day[keep] if day is not None else None
    if days is not None:
        days["day"], days["event_key"] = day, _event_keys(event_ids)
    return white, black, score, _event_codes(event_ids)


def _game_days(table: pa.Table) -> np.ndarray:
    """A games table's dates as days since 1970-01-01 (int32), -1 where unknown."""
    if "date" not in table.column_names:
        return np.full(table.num_rows, -1, dtype=np.int32)
    date = table.column("date").cast(pa.date32()).cast(pa.int32())
    return np.asarray(pc.fill_null(date, -1).to_numpy(zero_copy_only=False), dtype=np.int32)


def _event_keys(event_ids: pa.ChunkedArray) -> np.ndarray:
    """Events as 63-bit keys of their ids (BLAKE2b), the same in every period and run
    (a checkpoint keeps them), -1 where unknown."""
    import hashlib

    if event_ids.null_count == len(event_ids):
        return np.full(len(event_ids), -1, dtype=np.int64)
    encoded = pc.dictionary_encode(event_ids).combine_chunks()
    keys = np.array(
        [
            int.from_bytes(hashlib.blake2b(e.encode(), digest_size=8).digest(), "little") >> 1
            for e in encoded.dictionary.to_pylist()
        ],
        dtype=np.int64,
    )
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    return np.where(codes >= 0, keys[np.maximum(codes, 0)], -1).astype(np.int64)


def _event_codes(event_ids: pa.ChunkedArray) -> np.ndarray:
    """Events as dense codes in the order of their ids (as text), -1 where unknown.

    The systems that rate a period's events one after another (Harkness, Ingo, USCF)
    take them in code order, documented as the order of the ids (docs/legacy-systems.md,
    docs/uscf.md): codes in order of first appearance made the ratings depend on the
    row order of the games file.
    """
    if event_ids.null_count == len(event_ids):
        return np.full(len(event_ids), -1, dtype=np.int32)
    encoded = pc.dictionary_encode(event_ids).combine_chunks()
    # rank of each distinct id among the sorted ids (Arrow sorts strings by their UTF-8
    # bytes, which is code point order: Python's ``sorted``)
    order = pc.array_sort_indices(encoded.dictionary).to_numpy(zero_copy_only=False)
    rank = np.empty(order.size, dtype=np.int32)
    rank[order] = np.arange(order.size, dtype=np.int32)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    return np.where(codes >= 0, rank[np.maximum(codes, 0)], -1).astype(np.int32)


def _read_game_file_dense(path, player_ids, aliases, dense_of_key, read_events=True, dates=None):
    """One games file as (white, black) dense indices (-1: not a player of the run),
    score (float64), rated (bool) and event ids (an Arrow string array; all null
    without ``read_events``); ``dates`` (a list) gets the games' days (``_game_days``),
    read in the same pass."""
    file = open_games(path)  # pq.ParquetFile, damaged files named (pipeline/integrity.py)
    present = set(file.schema_arrow.names)
    if not read_events:
        present.discard("event_id")
    keyed = dense_of_key is not None and "white_key" in present and "black_key" in present
    wanted = ["white_key", "black_key"] if keyed else ["white_id", "black_id"]
    wanted += [c for c in ("score", "rated", "event_id") if c in present]
    if dates is not None and "date" in present:
        wanted.append("date")
    table = file.read(columns=wanted)
    if dates is not None:
        dates.append(_game_days(table))
    n = table.num_rows
    white = black = None
    if keyed:
        wk, bk = table.column("white_key"), table.column("black_key")
        if wk.null_count == 0 and bk.null_count == 0:
            wk = wk.to_numpy()
            bk = bk.to_numpy()
            top = max(int(wk.max(initial=-1)), int(bk.max(initial=-1)))
            if top < len(dense_of_key) and min(wk.min(initial=0), bk.min(initial=0)) >= 0:
                white, black = dense_of_key[wk], dense_of_key[bk]
        if white is None:  # a key the dictionary lacks: read the ids after all
            table = _read_game_file(path)
    if white is None:
        white, black = _dense_by_id(table, player_ids, aliases)
    score = table.column("score").to_numpy().astype(np.float64, copy=False)
    if "rated" in table.column_names:
        rated = pc.fill_null(table.column("rated").cast(pa.bool_()), False)
        rated = rated.to_numpy().astype(bool, copy=False)
    else:
        rated = np.zeros(n, dtype=bool)
    if read_events and "event_id" in table.column_names:
        event = table.column("event_id").cast(pa.string()).combine_chunks()
    else:
        event = pa.nulls(n, pa.string())
    return white, black, score, rated, event


def _dense_by_id(table: pa.Table, player_ids, aliases) -> tuple[np.ndarray, np.ndarray]:
    """Dense indices of a games table's string ids (-1 when not a player of the run)."""
    ids = id_array(player_ids)

    def dense(column):
        idx = pc.index_in(player_keys.resolve_aliases(column, aliases), value_set=ids)
        idx = pc.fill_null(idx, -1).combine_chunks()
        return idx.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)

    return dense(table.column("white_id")), dense(table.column("black_id"))


def period_arrays(
    res: pa.Table,
    player_ids,
    aliases: tuple[pa.Array, pa.Array] | None = None,
    days: dict[str, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A period's games (columns white_id, black_id, score, rated, event_id, in the order
    the system sees them) as dense arrays: white, black, White's score, event index.
    ``days`` (a system whose ``uses_game_days`` is True): filled with ``day`` and
    ``event_key`` as ``load_period_games`` fills them (a ``date`` column if any)."""
    ids = id_array(player_ids)
    white = pc.index_in(player_keys.resolve_aliases(res.column("white_id"), aliases), value_set=ids)
    black = pc.index_in(player_keys.resolve_aliases(res.column("black_id"), aliases), value_set=ids)
    keep = pc.and_kleene(
        pc.and_kleene(pc.is_valid(white), pc.is_valid(black)),
        pc.fill_null(res.column("rated"), False),
    )
    if not pc.all(keep).as_py():
        res = res.append_column("_w", white).append_column("_b", black).filter(keep)
        white, black = res.column("_w"), res.column("_b")
    if days is not None:  # the games kept, as on the store path
        if "date" in res.column_names:
            date = res.column("date").cast(pa.date32()).cast(pa.int32())
            day = pc.fill_null(date, -1).to_numpy(zero_copy_only=False)
        else:
            day = np.full(res.num_rows, -1)
        days["day"] = np.asarray(day, dtype=np.int32)
        days["event_key"] = _event_keys(
            pa.chunked_array([res.column("event_id").cast(pa.string())])
        )
    # Events: dense codes in the order of their ids, -1 where unknown (as on the store path).
    event = _event_codes(pa.chunked_array([res.column("event_id").cast(pa.string())]))

    def ints(col):
        return col.combine_chunks().to_numpy(zero_copy_only=False).astype(np.int32, copy=False)

    score = res.column("score").combine_chunks().to_numpy(zero_copy_only=False)
    return (
        ints(white),
        ints(black),
        score.astype(np.float64, copy=False),
        np.asarray(event, dtype=np.int32),
    )


class GamePlan(typing.NamedTuple):
    """Where a run takes each period's games from (``game_plan``)."""

    stored: list[int]  # the periods holding games the run walks (ascending)
    placements: list[Placement]  # games walked in another period than their own
    notes: list[str]  # what the system says of them (``RateSummary.notes``)


def _year_only(precision: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """True where a games table's ``date_precision`` is ``year``."""
    year = pc.fill_null(pc.equal(precision, "year"), False)
    return np.asarray(year.to_numpy(zero_copy_only=False), dtype=bool)


def _event_games(event, year_only: np.ndarray, rated: np.ndarray) -> dict:
    """{event id (None: none): EventGames} of one period's games."""
    ids = pa.chunked_array([event]).cast(pa.string()) if isinstance(event, pa.Array) else event
    encoded = pc.dictionary_encode(ids.cast(pa.string())).combine_chunks()
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    names = [*encoded.dictionary.to_pylist(), None]
    k = len(names)
    at = np.where(codes >= 0, codes, k - 1)
    games = np.bincount(at, minlength=k)
    only = np.bincount(at[year_only], minlength=k)
    only_rated = np.bincount(at[year_only & rated], minlength=k)
    return {
        names[i]: EventGames(int(games[i]), int(only[i]), int(only_rated[i]))
        for i in range(k)
        if games[i]
    }


def _placement_events(table: pa.Table) -> pa.Array:
    """Each game's event key for ``placed_games``: its event id and the file it came from
    (``source`` without its line; ``EVENT_FILE_SEPARATOR``), null without an event id. Two
    clubs' files that both name their event "Club Championship" hold two events (the
    historian's attack, round 13), as a file's stated ratings are read per file and event
    (docs/observations.md)."""
    n = table.num_rows
    if "event_id" not in table.column_names:
        return pa.nulls(n, pa.string())
    event = table.column("event_id").cast(pa.string()).combine_chunks()
    if "source" not in table.column_names:
        return event
    source = table.column("source").cast(pa.string()).combine_chunks()
    origin = pc.replace_substring_regex(source, r":\d+$", "")
    return pc.binary_join_element_wise(event, origin, EVENT_FILE_SEPARATOR)


def _file_event_columns(path: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """A games file's event keys (``_placement_events``), whether each game is dated only
    to the year, and whether it is rated (files written before a column: none, none, not
    rated)."""
    file = open_games(path)
    present = set(file.schema_arrow.names)
    wanted = ("event_id", "source", "date_precision", "rated")
    table = file.read(columns=[c for c in wanted if c in present])
    n = table.num_rows
    event = _placement_events(table)
    year = _year_only(table.column("date_precision")) if "date_precision" in present else None
    rated = (
        pc.fill_null(table.column("rated").cast(pa.bool_()), False).to_numpy(zero_copy_only=False)
        if "rated" in present
        else np.zeros(n, dtype=bool)
    )
    return event, np.zeros(n, bool) if year is None else year, np.asarray(rated, dtype=bool)


def _placed_rows(path: str, events: tuple[str, ...]) -> np.ndarray:
    """The games of a file dated only to the year whose event id is one of ``events``."""
    event, year, _ = _file_event_columns(path)
    of_event = pc.fill_null(pc.is_in(event, value_set=pa.array(list(events), pa.string())), False)
    return year & np.asarray(of_event.to_numpy(zero_copy_only=False), dtype=bool)


def _planned(sys_, stored: list[int], events: Callable, rules_for: Callable) -> GamePlan:
    """The run's ``GamePlan`` from the pool's ``stored`` periods and ``events(period)``
    (``RatingSystem.placed_games``): a period whose games all go elsewhere is not walked,
    the periods they go to are."""
    if not sys_.places_games or not stored:
        return GamePlan(stored, [], [])
    placements, notes = sys_.placed_games(stored, events, rules_for)
    if not placements:
        return GamePlan(stored, [], list(notes))
    moved: dict[int, int] = {}
    for p in placements:
        moved[p.source] = moved.get(p.source, 0) + p.games
    emptied = {
        source for source, n in moved.items() if n >= sum(c.games for c in events(source).values())
    }
    walked = sorted({*(p for p in stored if p not in emptied), *(p.target for p in placements)})
    return GamePlan(walked, list(placements), list(notes))


def game_plan(store: Store, sys_, pool: str, rules_for: Callable) -> GamePlan:
    """The ``GamePlan`` of a run of ``pool``: the stored periods and the games the system
    walks in another period than their own (``placed_games``; ECF's games dated only to
    the year, docs/legacy-systems.md "Games dated only to the year"). The stored games'
    event ids and date precision are read only for a system that ``places_games``, and
    only for the periods it asks about."""
    stored = store.periods(pool)
    if not sys_.places_games:
        return GamePlan(stored, [], [])
    cache: dict[int, dict] = {}

    def events(period: int) -> dict:
        if period not in cache:
            counts: dict = {}
            for path in sorted(str(f) for f in store.game_files(pool, period)):
                for name, c in _event_games(*_file_event_columns(path)).items():
                    old = counts.get(name, EventGames(0, 0, 0))
                    counts[name] = EventGames(*(a + b for a, b in zip(old, c, strict=True)))
            cache[period] = counts
        return cache[period]

    return _planned(sys_, stored, events, rules_for)


def placed_files(store: Store, pool: str, period: int, plan: GamePlan) -> tuple[list[str], dict]:
    """The games files a run reads for ``period`` under ``plan`` and ``load_period_games``'s
    ``select``: the period's own files (less the games walked elsewhere) and the files of
    the periods whose games are walked in it (only those games)."""
    files = [str(f) for f in store.game_files(pool, period)]
    select: dict[str, tuple[tuple[str, ...], bool]] = {}
    for p in plan.placements:
        if p.source == period:
            for f in files:
                taken = select.get(f, ((), False))[0]
                select[f] = (tuple(sorted({*taken, *p.events})), False)
        elif p.target == period:
            for f in (str(f) for f in store.game_files(pool, p.source)):
                taken = select.get(f, ((), True))[0]
                select[f] = (tuple(sorted({*taken, *p.events})), True)
                if f not in files:
                    files.append(f)
    return files, select


def placed_table(sys_, games: pa.Table, rules_for: Callable) -> tuple[pa.Table, list[str]]:
    """In-memory games (``arpad.rate``) with the ``period`` of those the system walks in
    another period set to it (``placed_games``, as ``game_plan`` for a store) and the
    system's notes."""
    if not sys_.places_games or games.num_rows == 0:
        return games, []
    period = games.column("period").to_numpy(zero_copy_only=False).astype(np.int64)
    n = games.num_rows
    event = pa.chunked_array([_placement_events(games)])
    year = (
        _year_only(games.column("date_precision"))
        if "date_precision" in games.column_names
        else np.zeros(n, dtype=bool)
    )
    rated = np.asarray(
        pc.fill_null(games.column("rated").cast(pa.bool_()), False).to_numpy(zero_copy_only=False),
        dtype=bool,
    )
    cache: dict[int, dict] = {}

    def events(p: int) -> dict:
        if p not in cache:
            rows = np.flatnonzero(period == p)
            cache[p] = _event_games(event.take(pa.array(rows)), year[rows], rated[rows])
        return cache[p]

    plan = _planned(sys_, sorted(int(p) for p in np.unique(period)), events, rules_for)
    if not plan.placements:
        return games, plan.notes
    new = period.copy()
    for p in plan.placements:
        of_event = pc.fill_null(pc.is_in(event, value_set=pa.array(list(p.events))), False)
        taken = (period == p.source) & year & np.asarray(of_event, dtype=bool)
        new[taken] = p.target
    at = games.column_names.index("period")
    column = pa.array(new).cast(games.schema.field("period").type)
    return games.set_column(at, games.schema.field("period"), column), plan.notes


def run_periods(store: Store, sys_, pool: str, rules_for: Callable) -> list[int]:
    """The periods a run of ``pool`` walks: those with games, then any the system walks
    without games after the last one to publish what it still holds (``closing_periods``:
    FIDE's two-monthly lists, docs/fide-history.md), and any the system walks without
    games between them (``closing_periods_within``: ECF's season closes). Games a system
    walks in another period than their own count there (``game_plan``)."""
    return walked_periods(sys_, game_plan(store, sys_, pool, rules_for).stored, rules_for)


def walked_periods(sys_, stored: list[int], rules_for: Callable) -> list[int]:
    """``stored`` (ascending periods with games) with the periods the system walks
    without games: between them (``closing_periods_within``) and after the last."""
    if not stored:
        return stored
    extra = sys_.closing_periods_within(stored, rules_for)
    extra = [*extra, *_closing_after(sys_, stored[-1], rules_for)]
    return sorted({*stored, *extra}) if extra else stored


def _closing_after(sys_, last: int, rules_for: Callable) -> list[int]:
    """The periods after ``last`` the system walks without games (``closing_periods``)."""
    return [p for p in sys_.closing_periods(last, rules_for(last)) if p > last]


def rules_picker(sys_, pool: str, rules: Any | None, overrides: dict | None) -> Callable:
    """period -> the rules for it: ``rules`` fixed for every period, else the version in
    force, with ``--set`` overrides on top."""

    def rules_for(period: int):
        base = rules if rules is not None else sys_.rules_for(period, pool)
        return apply_overrides(base, overrides or {})

    return rules_for


def step_period(sys_, state: State, games: PeriodGames, rules, shards: int = 1, shard_map=None):
    """One period's step (in player shards when ``shards`` > 1) and its performance column."""
    state, report = _step_only(sys_, state, games, rules, shards, shard_map)
    return state, fill_performance(sys_, report, games)


def _step_only(sys_, state: State, games: PeriodGames, rules, shards: int = 1, shard_map=None):
    if shards > 1:
        return sharding.step_sharded(sys_, state, games, rules, shards, shard_map)
    return sys_.step(state, games, rules)


def _absorbed_checkpoint(store, system, pool, period, state, ids, writer, rules_name, meta, due):
    """The checkpoint step of an absorbed period (as a stepped period's, without its file)."""
    if not due:  # an older run's checkpoint would not match this run
        store.remove_tree(store.state_partition(system, pool, period))
        return
    writer.wait()  # a checkpoint stands for every rating before it, on disk
    meta = {"system": system, "pool": pool, "period": period, "rules": rules_name, **meta}
    store.write_state(system, pool, period, _Checkpoints.to_tables(state, ids), meta)


def revised_reports(sys_, state: State, done: list[int], rules) -> dict[int, Report]:
    """Retroactive systems (WHR) re-estimate every rated period from all games (docs/whr.md)."""
    return sys_.history_reports(state, done, rules) if sys_.retroactive and done else {}


def rate_in_memory(
    system: str,
    info: PlayerInfo,
    periods: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    pool: str = "standard",
    rules: Any | None = None,
    overrides: dict | None = None,
    seeds: observations.Observations | None = None,
    after: np.ndarray | None = None,
) -> dict[int, pa.Table]:
    """The engine's walk over in-memory periods — (period, white, black, score, event)
    in period order, players as dense indices into ``info``, and optionally a sixth item,
    the ``day``/``event_key`` arrays of ``period_arrays(days=…)`` — with no store:
    period -> ratings table (the columns of a stored ratings partition). ``seeds``: dated
    observations a seeding system takes before each period, as ``rate`` does. ``after``:
    per player the period his starting state is after (a ratings frame given as players;
    -1 none), walked on from as a run that walked it would (``_walked_from``)."""
    sys_ = get_system(system)
    rules_for = rules_picker(sys_, pool, rules, overrides)
    if not periods:
        return {}
    empty = np.empty(0, dtype=np.int32)
    stored = [p[0] for p in periods]
    closing = set(walked_periods(sys_, stored, rules_for)) - set(stored)  # as a store run
    periods = [*periods, *((p, empty, empty, np.empty(0), empty) for p in closing)]
    periods.sort(key=lambda p: p[0])
    state = sys_.initial_state(info, rules_for(periods[0][0]))
    previous, state = _walked_from(sys_, state, after, periods[0][0], rules_for)
    out: dict[int, pa.Table] = {}
    ids = id_array(info)
    absorbing = sys_.revises_history(rules_for(periods[-1][0]))
    for i, (period, white, black, score, event, *days) in enumerate(periods):
        extra = days[0] if days and sys_.uses_game_days else {}
        games = PeriodGames.build(period, white, black, score, info.n, event, previous, **extra)
        if seeds is not None and sys_.seeds_from_observations:
            state = observations.seed_period(
                sys_, state, seeds, previous, period, rules_for(period)
            )
        if absorbing and i < len(periods) - 1:  # replaced by history_reports below
            state = sys_.absorb(state, games, rules_for(period))
        else:
            state, report = step_period(sys_, state, games, rules_for(period))
            out[period] = _audited(_report_table(report, ids), sys_, rules_for(period), None)
        previous = period
    last_rules = rules_for(previous)
    walked = [p[0] for p in periods]
    for p, report in revised_reports(sys_, state, walked, last_rules).items():
        out[p] = _audited(_report_table(report, ids), sys_, last_rules, None)
    return out


def _walked_from(sys_, state: State, after: np.ndarray | None, first: int, rules_for):
    """(previous, state) for a walk whose players' state is after the periods ``after``
    (per player, -1 none): the latest of them is the period walked before ``first``, so
    the months between count as a run that walked it counts them (Glicko's RD grows by
    c²·t, t the months since: docs/glicko.md; FIDE's 2024 compression when the gap
    crosses it). A player whose state is of an earlier period is first carried to the
    latest, by a step without games from his period (a system that ``ages_by_elapsed``;
    a store run walks those periods with him inactive). None, ``first`` or later, or
    periods of another kind: (None, state), as a walk from nothing (docs/api.md)."""
    from arpad.pipeline.periods import is_calendar

    given = after[after >= 0] if after is not None else np.empty(0, dtype=np.int64)
    if not given.size:
        return None, state
    latest = int(given.max())
    if latest >= first or is_calendar(latest) != is_calendar(first):
        return None, state
    if sys_.ages_by_elapsed:
        empty, n = np.empty(0, dtype=np.int32), len(after)
        for earlier in np.unique(given[given < latest]):
            games = PeriodGames.build(latest, empty, empty, np.empty(0), n, None, int(earlier))
            carried, _ = sys_.step(state, games, rules_for(latest))
            behind = after == earlier
            state = dataclasses.replace(
                state,
                players={
                    k: np.where(behind, carried.players[k], v) for k, v in state.players.items()
                },
            )
    return latest, state


class WriteBehind:
    """Each period's ratings file is encoded and written on one background thread while
    the next period is read and computed (docs/store.md "Write-behind"): Parquet's
    encoder and zstd release the GIL, so on a machine with a free core the write is
    hidden behind the kernels. Up to ``ARPAD_WRITE_DEPTH`` writes (default 2) wait in
    line for the one write thread, so the engine steps on while a write waits for its
    performance column; after a failed write the ones behind it are dropped (no later
    period's file without an earlier one's). The journal's record of the file is made
    on the engine's thread before it is handed over (``ratings_writer``); ``wait``
    re-raises a failed write; a checkpoint and the end of a run wait first, so a
    checkpoint never stands for ratings not yet on disk. ``ARPAD_WRITE_BEHIND=0``
    writes on the engine's thread instead."""

    def __init__(self, enabled: bool | None = None) -> None:
        import os

        if enabled is None:
            enabled = os.environ.get("ARPAD_WRITE_BEHIND", "1") != "0"
        self._pool = self._side = None
        if enabled:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="arpad-write")
            if os.environ.get("ARPAD_PERFORMANCE_THREAD", "1") != "0":
                self._side = ThreadPoolExecutor(1, thread_name_prefix="arpad-write-side")
        self._pending: list = []
        self._depth = max(1, int(os.environ.get("ARPAD_WRITE_DEPTH", "2") or "2"))
        self._failed = False

    def side(self, job: Callable[[], Any]) -> Callable[[], Any]:
        """Start ``job`` (the performance column) on a thread of its own, beside the write
        in flight; the returned call waits for its result (the write's ``finish`` calls it).
        Inline when writing inline."""
        if self._side is None:
            return job
        return self._side.submit(job).result

    def submit(self, write: Callable[[], None]) -> None:
        if self._pool is None:
            write()
            return
        while len(self._pending) >= self._depth:
            self._pending.pop(0).result()
        self._pending.append(self._pool.submit(self._guarded, write))

    def _guarded(self, write: Callable[[], None]) -> None:
        # Writes run in order on one thread; after a failed one, none of the later ones
        # is written (a later period's file never stands without an earlier one's).
        if self._failed:
            return
        try:
            write()
        except BaseException:
            self._failed = True
            raise

    def wait(self) -> None:
        pending, self._pending = self._pending, []
        error = None
        for future in pending:
            try:
                future.result()
            except BaseException as exc:  # the first failure, after every write settled
                error = error or exc
        if error is not None:
            raise error

    def close(self) -> None:
        try:
            self.wait()
        finally:
            for pool in (self._pool, self._side):
                if pool is not None:
                    pool.shutdown(wait=True)


class ReadAhead:
    """The next period's games read and grouped by player on one background thread while
    the engine steps the current one (docs/store.md "Read-ahead"): a period's games
    depend only on its files and the run's player index, never on the state, and
    pyarrow's reads and the CSR kernel release the GIL. One period is read ahead at
    most (``take`` hands over the period asked for and starts the next). Off unless
    ``ARPAD_READ_AHEAD=1``: on this 2-core machine it did not pay (docs/benchmarks.md)."""

    def __init__(self, load: Callable[[int, int | None], Any], enabled: bool | None = None):
        import os

        if enabled is None:
            enabled = os.environ.get("ARPAD_READ_AHEAD", "0") == "1"
        self.load = load
        self._pool = None
        if enabled:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="arpad-read")
        self._ahead: tuple[int, Any] | None = None

    def start(self, period: int, previous: int | None) -> None:
        """Begin reading ``period`` (its previous walked period ``previous``)."""
        if self._pool is not None:
            self._ahead = (period, self._pool.submit(self.load, period, previous))

    def take(self, period: int, previous: int | None, following: int | None) -> PeriodGames:
        """``period``'s games (read ahead when started), and start ``following``'s."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == period:
            games = ahead[1].result()
        else:
            if ahead is not None:
                ahead[1].result()
            games = self.load(period, previous)
        if following is not None:
            self.start(following, period)
        return games

    def close(self) -> None:
        ahead, self._ahead = self._ahead, None
        if self._pool is not None:
            if ahead is not None:
                ahead[1].cancel()
            self._pool.shutdown(wait=True)


def rate(
    store: Store,
    system: str,
    pool: str = "standard",
    start: int | None = None,
    end: int | None = None,
    rules: Any | None = None,
    overrides: dict[str, str] | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    refresh_catalog: bool = True,
    checkpoint_meta: dict | None = None,
    shards: int | None = None,
    shard_map: Callable | None = None,
    checkpoint_every: int | None = None,
    resumed: bool = False,
    catalog_ahead: bool = False,
) -> RateSummary:
    """Rate ``pool`` with ``system`` over the store's periods in [start, end].

    ``rules`` fixes one rule set for every period (None: the version in force
    per period); ``overrides`` are ``--set key=value`` fields applied on top.
    Starting at ``start`` needs the checkpoint of an earlier period (written by
    a previous run; the periods between it and ``start`` are replayed, state only);
    without ``start`` the run begins from the players table. A checkpoint is
    written at the run's first and last period and every ``checkpoint_every``-th
    period of the pool (pipeline/checkpoints.py); ``checkpoint_meta`` is merged
    into each checkpoint's meta.json. ``resumed``: the call continues a killed run
    right after that run's own checkpoint (no checkpoint at its first period).
    ``shards`` > 1 computes each period's step in that many player shards
    (pipeline/sharding.py; same results) when the system is shardable, else
    unsharded (logged); ``shard_map`` runs the shards (default: on Dask inside a
    Dask task, else one after the other). ``catalog_ahead``: the caller refreshes the
    catalog after the run (``refresh_catalog`` here, or a job's step), so a rebuild it is
    bound to do starts once the first ratings file is written (``catalog.RefreshAhead``).
    """
    sys_ = get_system(system)
    # Unknown fields, NaN and out-of-range values of --set are refused before any work.
    apply_overrides(rules if rules is not None else sys_.rules_type(), overrides or {})
    # The system's kernels are loaded on a thread while the run reads its players, keys
    # and checkpoint (pipeline/warm.py ``beside``); joined before the first step.
    loading = warm.beside([system])
    try:
        return _rate(
            store, system, sys_, pool, start, end, rules, overrides, progress,
            refresh_catalog, checkpoint_meta, shards, shard_map, checkpoint_every,
            resumed, loading, catalog_ahead,
        )  # fmt: skip
    finally:
        if loading is not None:
            loading.join()


def _rate(
    store, system, sys_, pool, start, end, rules, overrides, progress, refresh_catalog,
    checkpoint_meta, shards, shard_map, checkpoint_every, resumed, loading, catalog_ahead,
) -> RateSummary:  # fmt: skip
    summary = RateSummary(system, pool)
    if shards and shards > 1:
        if sharding.is_shardable(sys_):
            summary.shards = int(shards)
            shard_map = shard_map or sharding.auto_map()
        else:
            log.info("%s cannot be sharded by player; rating unsharded", system)
    aliases = alias_arrays(store)
    every = store.read_players()
    # A merged duplicate is not a player of its own; its kept id takes the facts it lacks
    # from it (the rated games of an old FIDE id: docs/identity.md "An id change").
    players = kept_players(every, aliases)
    info = player_info(players)
    ids = id_array(info)
    # One hash table of the run's player ids, for the observations' ids and the keys'.
    index = player_keys.StringIndex(ids)
    # Ratings PGN/TRF files gave are dated observations, not undated seeds (docs/observations.md).
    # A players-file row with a pool seeds that pool only (docs/observations.md).
    info.rating = kept_undated_ratings(store, every, aliases, ids, info.rating, index, pool)
    n = info.n
    rules_for = rules_picker(sys_, pool, rules, overrides)
    plan = game_plan(store, sys_, pool, rules_for)
    all_periods = walked_periods(sys_, plan.stored, rules_for)
    if start is not None and sys_.places_games:
        # A game added or corrected anywhere can move year-only games into or out of an
        # earlier season (ECF: docs/legacy-systems.md "Games dated only to the year"), and
        # a checkpoint holds the seasons as graded before: rated from the first period,
        # as --full (the historian's attack, round 13: an incremental run kept a season
        # that still held games the full run grades a year later).
        start = None
    walk = [p for p in all_periods if (start is None or p >= start) and (end is None or p <= end)]
    summary.notes = list(plan.notes) if walk else []

    every = checkpoints.every_or_default(checkpoint_every)

    first_rules = rules_for(walk[0] if walk else (all_periods[0] if all_periods else 0))
    state = sys_.initial_state(info, first_rules)
    previous: int | None = None
    meta: dict = {}
    if start is not None and any(p < start for p in all_periods):
        earlier = [p for p in store.state_periods(system, pool) if p < start]
        if not earlier:
            raise ValueError(
                f"no checkpoint of {system}/{pool} before period {start}; rate from the first period"
            )
        tables, meta = store.read_state(system, pool, earlier[-1])
        state = _Checkpoints.from_tables(tables, state, info.player_id)
        previous = meta["period"]

    # A system whose reports are all replaced at the end of the run (WHR, retroactive)
    # absorbs every period but the last: no refit, no file, only the games kept (and the
    # checkpoints); ``history_reports`` then writes every period (docs/whr.md).
    absorbing = bool(walk) and sys_.revises_history(rules_for(walk[-1]))
    run = (checkpoint_meta or {}).get("run")
    seeds = observations.Observations.empty()
    if sys_.seeds_from_observations:
        seeds = observations.pool_observations(store, pool, ids, aliases)
    # Player keys of ingest -> dense indices, once per run (pipeline/keys.py).
    dense_of_key = None
    if store.keys_path.exists():
        dense_of_key = player_keys.dense_of_keys(
            player_keys.read_keys(store.keys_path), ids, aliases, index
        )
    # Sparse checkpoints: the periods between the checkpoint and ``start``, state only,
    # with the rules of the run that wrote them (pipeline/checkpoints.py).
    if loading is not None:
        loading.join()
    if previous is not None:
        replay_for = checkpoints.replay_rules(sys_, pool, meta, rules_picker, rules_for)
        for period in [p for p in all_periods if previous < p < walk[0]] if walk else []:
            r = replay_for(period)
            files, select = placed_files(store, pool, period, plan)
            days: dict | None = {} if sys_.uses_game_days else None
            white, black, score, event = load_period_games(
                files, ids, aliases, dense_of_key, days=days, select=select
            )
            games = PeriodGames.build(
                period, white, black, score, n, event, previous, **(days or {})
            )
            state = observations.seed_period(sys_, state, seeds, previous, period, r)
            # (state only: a system whose reports the run's end replaces absorbs, as the walk)
            state = sys_.absorb(state, games, r) if absorbing else sys_.step(state, games, r)[0]
            summary.replayed.append(period)
            previous = period
    position = {p: i for i, p in enumerate(all_periods)}
    replay = checkpoints.replay_meta(rules, overrides)

    def load(period: int, before: int | None) -> PeriodGames:
        files, select = placed_files(store, pool, period, plan)
        own: list[int] = []
        days: dict | None = {} if sys_.uses_game_days else None
        white, black, score, event = load_period_games(
            files, ids, aliases, dense_of_key, sys_.uses_events, own, days, select
        )
        summary.self_play += sum(own)
        return PeriodGames.build(period, white, black, score, n, event, before, **(days or {}))

    # The first run of a store rebuilds the catalog beside its later periods.
    ahead = catalog.RefreshAhead(store, enabled=(refresh_catalog or catalog_ahead) and bool(walk))
    writer = WriteBehind()
    reader = ReadAhead(load)
    try:
        for i, period in enumerate(walk):
            r = rules_for(period)
            t0 = time.perf_counter()
            following = walk[i + 1] if i + 1 < len(walk) else None
            games = reader.take(period, previous, following)
            white = games.white
            t1 = time.perf_counter()
            state = observations.seed_period(sys_, state, seeds, previous, period, r)
            if absorbing and i < len(walk) - 1:
                state = sys_.absorb(state, games, r)
                _absorbed_checkpoint(
                    store, system, pool, period, state, ids, writer, sys_.rules_name(r),
                    {"replay": replay, **(checkpoint_meta or {})},
                    checkpoints.due(position[period], i, len(walk), every, not resumed),
                )  # fmt: skip
                summary.seconds["kernel"] += time.perf_counter() - t1
                summary.periods.append(period)
                summary.games += int(white.size)
                summary.rules.append(sys_.rules_name(r))
                previous = period
                if progress:
                    progress(i + 1, len(walk), int(white.size))
                continue
            state, report = _step_only(sys_, state, games, r, summary.shards, shard_map)
            # The performance column is computed on the write-behind thread, just before
            # the file is encoded, while the next period is stepped (same values).
            job = performance_job(sys_, report, games)
            t2 = time.perf_counter()
            checkpoint = checkpoints.due(position[period], i, len(walk), every, not resumed)
            if not checkpoint:  # an older run's checkpoint would not match these ratings
                store.remove_tree(store.state_partition(system, pool, period))
            table = _report_table(report, ids, encoded=True, own=True)
            table = _audited(table, sys_, r, run, encoded=True)
            finish = None
            if job is not None:
                keep = report.status != NOT_REPORTED
                finish = _late_performance(writer.side(job), None if keep.all() else keep.copy())
            writer.submit(ahead.wrap(store.ratings_writer(system, pool, period, table, finish)))
            write_game_report(store, system, pool, period, report, ids)
            meta = {
                "system": system,
                "pool": pool,
                "period": period,
                "rules": sys_.rules_name(r),
                "replay": replay,
                **(checkpoint_meta or {}),  # the run id pipeline/resume.py keys on
            }
            if checkpoint:
                writer.wait()  # a checkpoint stands for every rating before it, on disk
                store.write_state(system, pool, period, _Checkpoints.to_tables(state, ids), meta)
            t3 = time.perf_counter()
            summary.seconds["query"] += t1 - t0
            summary.seconds["kernel"] += t2 - t1
            summary.seconds["write"] += t3 - t2
            summary.periods.append(period)
            summary.games += int(white.size)
            summary.rows_written += table.num_rows
            summary.rules.append(meta["rules"])
            previous = period
            if progress:
                progress(i + 1, len(walk), int(white.size))
    finally:
        reader.close()
        try:
            writer.close()  # every file written (or the first failure raised) before going on
        finally:
            ahead.join()  # no catalog write left running past the run
    # Periods in range that no longer hold games (e.g. after a correction) lose their reports.
    for p in store.rating_periods(system, pool):
        in_range = (start is None or p >= start) and (end is None or p <= end)
        if in_range and p not in walk:
            store.remove_ratings(system, pool, p)
    if summary.periods:
        last = summary.periods[-1]
        done = [p for p in store.rating_periods(system, pool) if p <= last]
        if absorbing:  # absorbed periods (this run's or a killed one's) have no file yet
            done = sorted({*done, *(p for p in all_periods if p <= last)})
        last_rules = rules_for(last)
        for p, report in revised_reports(sys_, state, done, last_rules).items():
            table = _audited(
                _report_table(report, ids, encoded=True), sys_, last_rules, run, encoded=True
            )
            store.write_ratings(system, pool, p, table)
            if absorbing and p in summary.periods[:-1]:  # written here, not in the walk
                summary.rows_written += table.num_rows
    if refresh_catalog:
        catalog.refresh(store)
    return summary
