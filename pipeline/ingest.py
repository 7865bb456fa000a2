"""Ingest: read, validate, quarantine and store input files, atomically and idempotently.

Files are identified by content (SHA-256). Ingesting a file whose content is
already in the manifest changes nothing. A file with the same source name but
new content is a correction: the old batch's games are replaced, and the
earliest affected period is recorded so that ``arpad rate`` can recompute from
there (docs/ingest.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arpad.pipeline import catalog, identity, incremental, schemas
from arpad.pipeline.readers import RawTable, check_input_file, read_any
from arpad.pipeline.store import MANIFEST, Store, atomic_write_parquet, remove_path
from arpad.pipeline.validate import Validated, validate_games, validate_players


@dataclass
class FileReport:
    path: str
    source: str
    kind: str
    format: str
    rows: int = 0
    accepted: int = 0
    quarantined: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)  # "file:line: reason: detail"
    skipped: str | None = None  # why nothing was done (already ingested)
    replaced: bool = False
    notes: list[str] = field(default_factory=list)
    partitions: list[tuple[str, int]] = field(default_factory=list)
    new_players: int = 0
    # Players described by a games file (PGN tags, TRF 001 lines).
    players_read: int = 0
    players_accepted: int = 0
    players_quarantined: int = 0
    # Read but stored nowhere as games (TRF pending pairings, byes, absences).
    not_stored: dict[str, int] = field(default_factory=dict)
    accounting: dict[str, int] = field(default_factory=dict)
    replaced_games: int = 0  # games of other sources replaced (--replace)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class IngestReport:
    files: list[FileReport]
    store: str

    @property
    def quarantined(self) -> int:
        return sum(f.quarantined + f.players_quarantined for f in self.files)

    @property
    def accepted(self) -> int:
        return sum(f.accepted for f in self.files)

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ingest_file(
    store: Store,
    path: str | Path,
    fmt: str | None = None,
    kind: str | None = None,
    mapping: str | None = None,
    source: str | None = None,
    replace: bool = False,
    raw: RawTable | None = None,
) -> FileReport:
    """Ingest one file (games or players) into the store. See module docstring.

    ``replace``: games whose game_id is already stored from another source are
    replaced by this file's version (instead of being quarantined as duplicates).
    ``raw``: the file already read by ``read_any`` (flows/ingest.py reads files in
    parallel on Dask workers, then stores them one after another).
    """
    path = Path(path)
    check_input_file(path)
    store.ensure()
    source = source or path.name
    digest = sha256_file(path)
    batch = digest[:16]
    manifest = store.read_manifest()
    same = manifest.filter(pc.equal(manifest["sha256"], digest))
    if same.num_rows:
        prior = same.column("source")[0].as_py()
        report = FileReport(
            str(path), source, same.column("kind")[0].as_py(), same.column("format")[0].as_py()
        )
        report.skipped = f"identical content already ingested as {prior}"
        return report

    if raw is None:
        raw = read_any(path, fmt=fmt, mapping=mapping, kind=kind)
    report = FileReport(str(path), source, raw.kind, raw.format, notes=list(raw.notes))
    report.not_stored = dict(raw.not_stored)
    report.accounting = dict(raw.accounting)
    previous = manifest.filter(
        pc.and_(pc.equal(manifest["source"], source), pc.equal(manifest["kind"], raw.kind))
    )
    old_batches = previous.column("batch").to_pylist()

    player_quarantine = None
    if raw.kind == "players":
        validated = validate_players(raw, source, batch)
        if _merge_players(store, validated.accepted, source).changed:
            incremental.mark_all_stale(store)
        min_period = None
    else:
        validated = validate_games(raw, source, batch)
        touched: list[tuple[str, int]] = []
        if replace:
            removed, parts = _replace_store_games(store, validated.accepted, batch, old_batches)
            report.replaced_games = removed
            touched += parts
        else:
            validated = _drop_store_duplicates(store, validated, batch, old_batches)
        changed = _changed_partitions(store, old_batches, validated.accepted)
        for old in old_batches:
            store.remove_batch_games(old)
            report.replaced = True
        report.partitions = store.write_games(validated.accepted, batch)
        touched += changed
        report.new_players, player_quarantine = _add_game_players(
            store, validated.accepted, raw, source, batch, report
        )
        min_period = min((p for _, p in touched), default=None) if touched else None
        if touched:
            incremental.mark_stale(store, touched)

    if report.players_read:
        report.notes.append(
            f"players described by the file: {report.players_read} read, "
            f"{report.players_accepted} merged, {report.players_quarantined} quarantined"
        )
    if report.replaced_games:
        report.notes.append(f"--replace: {report.replaced_games} stored game(s) replaced")
    clash = identity.conflicts(store)
    clash_ids = clash.filter(clash["source"] == source).get_column("player_id").unique()
    if len(clash_ids):
        report.notes.append(
            f"{len(clash_ids)} player(s) whose birth year differs between sources "
            "(arpad players --conflicts)"
        )

    quarantine = validated.quarantine
    if player_quarantine is not None and player_quarantine.num_rows:
        quarantine = pa.concat_tables([quarantine, player_quarantine]).sort_by("line")
    store.write_quarantine(quarantine, batch)
    report.rows = validated.rows_read
    report.accepted = validated.accepted.num_rows
    report.quarantined = validated.quarantine.num_rows
    assert report.accepted + report.quarantined == report.rows, "rows lost in validation"
    reasons = Counter(quarantine.column("reason").to_pylist())
    report.reasons = dict(sorted(reasons.items()))
    q = quarantine.slice(0, 5).to_pylist()
    report.examples = [f"{path}:{r['line']}: {r['reason']}: {r['detail']}" for r in q]

    entry = pa.table(
        {
            "source": [source],
            "sha256": [digest],
            "batch": [batch],
            "kind": [raw.kind],
            "format": [raw.format if not raw.mapping else f"{raw.format}:{raw.mapping}"],
            "rows": [report.rows],
            "accepted": [report.accepted],
            "quarantined": [report.quarantined],
            "ingested_at": [dt.datetime.now(dt.timezone.utc).replace(microsecond=0)],
            "min_period": [min_period],
        },
        schema=MANIFEST,
    )
    keep = manifest.filter(
        pc.invert(
            pc.and_(pc.equal(manifest["source"], source), pc.equal(manifest["kind"], raw.kind))
        )
    )
    store.write_manifest(pa.concat_tables([keep, entry]))
    return report


def ingest_files(
    store: Store, paths, fmt=None, players=None, mapping=None, replace=False
) -> IngestReport:
    """Ingest players files first (so games find their players), then games files."""
    reports = []
    for p in players or []:
        reports.append(ingest_file(store, p, fmt=None, kind="players"))
    for p in paths:
        reports.append(ingest_file(store, p, fmt=fmt, mapping=mapping, replace=replace))
    catalog.refresh(store)
    return IngestReport(reports, str(store.root))


def _drop_store_duplicates(
    store: Store, v: Validated, batch: str, replaced_batches: list[str]
) -> Validated:
    """Quarantine games whose game_id is already stored by another batch."""
    ignore = {f"part-{b}.parquet" for b in [batch, *replaced_batches]}
    files = [str(f) for f in store.game_files() if f.name not in ignore]
    if not files or v.accepted.num_rows == 0:
        return v
    con = duckdb.connect()
    try:
        con.register("incoming", v.accepted.select(["game_id"]))
        dup = catalog.query_arrow(
            con,
            "SELECT s.game_id, min(s.source) AS source FROM read_parquet(?) s "
            "SEMI JOIN incoming i ON s.game_id = i.game_id GROUP BY s.game_id",
            [files],
        )
    finally:
        con.close()
    if dup.num_rows == 0:
        return v
    where = dict(zip(dup.column("game_id").to_pylist(), dup.column("source").to_pylist()))
    is_dup = pc.is_in(v.accepted["game_id"], value_set=dup.column("game_id"))
    dups = v.accepted.filter(is_dup)
    lines = [int(s.rsplit(":", 1)[1]) for s in dups.column("source").to_pylist()]
    rows = pa.table(
        {
            "source": [s.rsplit(":", 1)[0] for s in dups.column("source").to_pylist()],
            "line": lines,
            "reason": ["duplicate_game_id"] * dups.num_rows,
            "detail": [
                f"game_id {g} already stored from {where[g]}"
                for g in dups.column("game_id").to_pylist()
            ],
            "raw": [None] * dups.num_rows,
            "ingest_batch": [batch] * dups.num_rows,
        },
        schema=schemas.QUARANTINE,
    )
    return Validated(
        v.accepted.filter(pc.invert(is_dup)),
        pa.concat_tables([v.quarantine, rows]).sort_by("line"),
        v.rows_read,
    )


@dataclass
class MergeResult:
    added: int
    changed: bool  # a player already stored got a different value in a state field


# Fields the rating systems read as a player's starting state (engine.player_info).
STATE_FIELDS = (
    "rating",
    "rated_games",
    "peak_rating",
    "birth_year",
    "rd",
    "volatility",
    "grade",
    "sex",
)


def _merge_players(store: Store, incoming: pa.Table, source: str | None = None) -> MergeResult:
    """Upsert players: for each column the latest non-null value wins."""
    existing = pl.from_arrow(store.read_players())
    new = pl.from_arrow(schemas.conform(incoming, schemas.PLAYERS))
    both = pl.concat([existing, new], how="vertical_relaxed")
    merged = both.group_by("player_id", maintain_order=True).agg(
        [pl.col(c).drop_nulls().last() for c in both.columns if c != "player_id"]
    )
    changed = False
    if existing.height:
        before = existing.select("player_id", *STATE_FIELDS).sort("player_id")
        after = (
            merged.join(before.select("player_id"), on="player_id", how="semi")
            .select("player_id", *STATE_FIELDS)
            .sort("player_id")
        )
        changed = not before.equals(after)
    store.write_players(merged.sort("player_id").to_arrow())
    if source is not None:
        identity.record_observations(store, new, source)
    return MergeResult(merged.height - existing.height, changed)


def _add_game_players(
    store: Store, games: pa.Table, raw: RawTable, source: str, batch: str, report: FileReport
) -> tuple[int, pa.Table | None]:
    """Merge the players a games file describes (PGN tags, TRF 001 lines), then create
    (unrated) players that games mention but the players table lacks.

    Returns the number of players created and the quarantined player rows."""
    quarantine = None
    if raw.players is not None and raw.players.height:
        extra = RawTable(raw.path, raw.format, "players", raw.players)
        v = validate_players(extra, source, batch)
        report.players_read = v.rows_read
        report.players_accepted = v.accepted.num_rows
        report.players_quarantined = v.quarantine.num_rows
        assert report.players_accepted + report.players_quarantined == report.players_read
        quarantine = v.quarantine
        if _merge_players(store, v.accepted, source).changed:
            incremental.mark_all_stale(store)
    existing = store.read_players()
    ids = pa.chunked_array(
        [games.column("white_id").combine_chunks(), games.column("black_id").combine_chunks()]
    ).unique()
    missing = pc.filter(ids, pc.invert(pc.is_in(ids, value_set=existing.column("player_id"))))
    if len(missing) == 0:
        return 0, quarantine
    added = pa.table({"player_id": missing, "source": pa.nulls(len(missing), pa.string())})
    added = schemas.conform(added, schemas.PLAYERS)
    combined = pa.concat_tables([existing, added]).sort_by("player_id")
    store.write_players(combined)
    return len(missing), quarantine


def _replace_store_games(
    store: Store, incoming: pa.Table, batch: str, replaced_batches: list[str]
) -> tuple[int, list[tuple[str, int]]]:
    """``--replace``: delete stored games (of other sources) whose game_id comes again.

    Returns the number of games removed and the partitions touched."""
    ignore = {f"part-{b}.parquet" for b in [batch, *replaced_batches]}
    files = [str(f) for f in store.game_files() if f.name not in ignore]
    if not files or incoming.num_rows == 0:
        return 0, []
    con = duckdb.connect()
    try:
        con.register("incoming", incoming.select(["game_id"]))
        hits = catalog.query_arrow(
            con,
            "SELECT DISTINCT s.filename FROM read_parquet(?, filename = true) s "
            "SEMI JOIN incoming i ON s.game_id = i.game_id",
            [files],
        )
    finally:
        con.close()
    removed, touched = 0, []
    for name in hits.column("filename").to_pylist():
        path = Path(name)
        table = pq.read_table(path)
        hit = pc.is_in(table["game_id"], value_set=incoming["game_id"].combine_chunks())
        removed += pc.sum(hit).as_py() or 0
        keep = table.filter(pc.invert(hit))
        if keep.num_rows:
            atomic_write_parquet(keep, path)
        else:
            remove_path(path)
        pool = path.parent.parent.name.split("=", 1)[1]
        touched.append((pool, int(path.parent.name.split("=", 1)[1])))
    return removed, touched


# Columns that say what a game is (not where it was read from).
GAME_CONTENT = [f.name for f in schemas.GAMES if f.name not in ("source", "ingest_batch")]


def _changed_partitions(
    store: Store, old_batches: list[str], incoming: pa.Table
) -> list[tuple[str, int]]:
    """(pool, period) partitions whose games differ between the old batches of a
    source and its new content: only those make later periods stale."""
    old_parts: dict[tuple[str, int], list[pa.Table]] = {}
    for batch in old_batches:
        for path in store.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"):
            key = (path.parent.parent.name.split("=", 1)[1], int(path.parent.name.split("=", 1)[1]))
            t = pq.read_table(path)
            t = t.append_column("pool", pa.array([key[0]] * t.num_rows, pa.string()))
            t = t.append_column("period", pa.array([key[1]] * t.num_rows, pa.int32()))
            old_parts.setdefault(key, []).append(schemas.conform(t, schemas.GAMES))
    new = pl.from_arrow(schemas.conform(incoming, schemas.GAMES)).select(GAME_CONTENT)
    keys = set(old_parts) | set(new.select("pool", "period").unique().iter_rows())
    changed = []
    for pool, period in sorted(keys):
        after = new.filter((pl.col("pool") == pool) & (pl.col("period") == period))
        before = (
            pl.from_arrow(pa.concat_tables(old_parts[(pool, period)])).select(GAME_CONTENT)
            if (pool, period) in old_parts
            else after.clear()
        )
        if not before.sort("game_id").equals(after.sort("game_id")):
            changed.append((pool, int(period)))
    return changed
