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

from pipeline import catalog, schemas
from pipeline.readers import RawTable, read_any
from pipeline.store import MANIFEST, Store
from pipeline.validate import Validated, validate_games, validate_players


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

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class IngestReport:
    files: list[FileReport]
    store: str

    @property
    def quarantined(self) -> int:
        return sum(f.quarantined for f in self.files)

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
) -> FileReport:
    """Ingest one file (games or players) into the store. See module docstring."""
    path = Path(path)
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

    raw = read_any(path, fmt=fmt, mapping=mapping, kind=kind)
    report = FileReport(str(path), source, raw.kind, raw.format, notes=list(raw.notes))
    previous = manifest.filter(
        pc.and_(pc.equal(manifest["source"], source), pc.equal(manifest["kind"], raw.kind))
    )
    old_batches = previous.column("batch").to_pylist()

    if raw.kind == "players":
        validated = validate_players(raw, source, batch)
        _merge_players(store, validated.accepted)
        min_period = None
    else:
        validated = validate_games(raw, source, batch)
        validated = _drop_store_duplicates(store, validated, batch, old_batches)
        touched: list[tuple[str, int]] = []
        for old in old_batches:
            touched += store.remove_batch_games(old)
            report.replaced = True
        report.partitions = store.write_games(validated.accepted, batch)
        touched += report.partitions
        report.new_players = _add_game_players(store, validated.accepted, raw)
        min_period = min((p for _, p in touched), default=None) if report.replaced else None
        if report.replaced and touched:
            _mark_stale(store, touched)

    store.write_quarantine(validated.quarantine, batch)
    report.rows = validated.rows_read
    report.accepted = validated.accepted.num_rows
    report.quarantined = validated.quarantine.num_rows
    assert report.accepted + report.quarantined == report.rows, "rows lost in validation"
    reasons = Counter(validated.quarantine.column("reason").to_pylist())
    report.reasons = dict(sorted(reasons.items()))
    q = validated.quarantine.slice(0, 5).to_pylist()
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


def ingest_files(store: Store, paths, fmt=None, players=None, mapping=None) -> IngestReport:
    """Ingest players files first (so games find their players), then games files."""
    reports = []
    for p in players or []:
        reports.append(ingest_file(store, p, fmt=None, kind="players"))
    for p in paths:
        reports.append(ingest_file(store, p, fmt=fmt, mapping=mapping))
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


def _merge_players(store: Store, incoming: pa.Table) -> int:
    """Upsert players: for each column the latest non-null value wins."""
    existing = pl.from_arrow(store.read_players())
    new = pl.from_arrow(schemas.conform(incoming, schemas.PLAYERS))
    both = pl.concat([existing, new], how="vertical_relaxed")
    merged = both.group_by("player_id", maintain_order=True).agg(
        [pl.col(c).drop_nulls().last() for c in both.columns if c != "player_id"]
    )
    store.write_players(merged.sort("player_id").to_arrow())
    return merged.height - existing.height


def _add_game_players(store: Store, games: pa.Table, raw: RawTable) -> int:
    """Create (unrated) players that games mention but the players table lacks;
    merge player details that the games file itself carries (PGN/TRF)."""
    if raw.players is not None and raw.players.height:
        from pipeline.validate import validate_players as _vp

        extra = RawTable(raw.path, raw.format, "players", raw.players)
        _merge_players(store, _vp(extra, raw.path.name, "").accepted)
    existing = store.read_players()
    ids = pa.chunked_array(
        [games.column("white_id").combine_chunks(), games.column("black_id").combine_chunks()]
    ).unique()
    missing = pc.filter(ids, pc.invert(pc.is_in(ids, value_set=existing.column("player_id"))))
    if len(missing) == 0:
        return 0
    added = pa.table({"player_id": missing, "source": pa.nulls(len(missing), pa.string())})
    added = schemas.conform(added, schemas.PLAYERS)
    combined = pa.concat_tables([existing, added]).sort_by("player_id")
    store.write_players(combined)
    return len(missing)


def _mark_stale(store: Store, touched: list[tuple[str, int]]) -> None:
    """Record, per pool, the earliest period whose games changed (a correction)."""
    import json

    from pipeline.store import atomic_write_text

    path = store.root / "manifest" / "stale.json"
    stale = json.loads(path.read_text()) if path.exists() else {}
    for pool, period in touched:
        stale[pool] = min(period, stale.get(pool, period))
    atomic_write_text(json.dumps(stale, sort_keys=True), path)
