"""Ingest: read, validate, quarantine and store input files, atomically and idempotently.

Files are identified by content (SHA-256). Ingesting a file whose content is
already in the manifest changes nothing. A file with the same source identity
(``--source NAME``, else its path relative to the working directory; never the
base name alone) but new content is a correction: the old batch's games are
replaced, and the earliest affected period is recorded so that ``arpad rate`` can
recompute from there. Games another source already stored (same id, or same
content: ``duplicate_game``) are quarantined. Each ingest is staged and swapped in
as one transition (pipeline/journal.py). docs/ingest.md.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from dataclasses import replace as _replace_fields
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from arpad.pipeline import (
    catalog,
    identity,
    incremental,
    integrity,
    journal,
    keys,
    names,
    observations,
    probable_duplicates,
    readers,
    schemas,
    stream_ingest,
    trail,
)
from arpad.pipeline.digest import content_digest, digest_v1
from arpad.pipeline.errors import InputError, shell_word
from arpad.pipeline.namesakes import (
    drop_replaced_ids,
    leading_zero_notes,
    name_game_players,
    namesake_notes,
)
from arpad.pipeline.pgn import POOL_WORDS
from arpad.pipeline.readers import RawTable, check_input_file, read_any
from arpad.pipeline.reasons import Reason
from arpad.pipeline.stated_ratings import (
    before_first,
    ignore_stated,
    old_games_notes,
    stated_rating_notes,
)
from arpad.pipeline.store import MANIFEST, Store, read_parquet_file
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
    # A correction: (games removed, added, changed) against the source's earlier version.
    correction: tuple[int, int, int] | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        """One line, as a notebook shows it (the attributes and ``to_dict`` keep every
        field; docs/api.md): the file, its counts, the reasons, why it was skipped."""
        if self.skipped:
            return f"FileReport({self.source!r}, skipped: {self.skipped})"
        parts = [
            f"{self.source!r}",
            f"rows={self.rows:,}",
            f"accepted={self.accepted:,}",
            f"quarantined={self.quarantined:,}",
        ]
        if self.reasons:
            parts.append(f"reasons={self.reasons}")
        if self.players_read:
            parts.append(f"players={self.players_accepted:,}/{self.players_read:,}")
        if self.replaced:
            parts.append("replaced=True")
        return f"FileReport({', '.join(parts)})"


@dataclass
class IngestReport:
    files: list[FileReport]
    store: str

    def __repr__(self) -> str:
        """The totals, then one line per file (docs/api.md): the whole dataclass, every
        example and note of every file, was one line of several thousand characters."""
        head = (
            f"IngestReport(store={self.store!r}, files={len(self.files)}, rows={self.rows:,}, "
            f"accepted={self.accepted:,}, quarantined={self.quarantined:,})"
        )
        return "\n".join([head, *(f"  {f!r}" for f in self.files)])

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


def source_identity(path: Path, source: str | None = None, base: str | Path | None = None) -> str:
    """Which source a file is (docs/ingest.md "Which file is which"): ``source`` when the
    user names it, else the file's path relative to ``base`` (the working directory;
    the inbox for the monthly job), or its absolute path when it lies outside ``base``.
    Never the base name alone: ``jan/results.csv`` and ``feb/results.csv`` are two sources."""
    if source:
        return source
    full = os.path.abspath(path)
    here = os.path.abspath(base if base is not None else os.getcwd())
    if full == here or full.startswith(here.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(full, here)).as_posix()
    return Path(full).as_posix()


def _previous_entries(
    manifest: pa.Table, path: Path, key: str, kind: str, explicit: bool
) -> pa.ChunkedArray:
    """Mask of the manifest rows this file corrects: the same source identity and kind.

    A row written before identities were recorded (``source_key`` null) matches when
    its file name equals the identity (a file in the working directory or the inbox,
    or ``--source NAME``). Such a row whose name equals this file's base name while the
    identity differs is ambiguous for a games file: the user must say which it is
    (``--source``)."""
    legacy = pc.is_null(manifest["source_key"])
    same_kind = pc.equal(manifest["kind"], kind)
    by_key = pc.fill_null(pc.equal(manifest["source_key"], key), False)
    # A players file deletes nothing when it corrects (its rows are merged): an old
    # players file of the same base name is taken to be this one, as before.
    legacy_name = path.name if kind == "players" and not explicit else key
    by_legacy_name = pc.and_(legacy, pc.equal(manifest["source"], legacy_name))
    mask = pc.and_(same_kind, pc.or_(by_key, by_legacy_name))
    if not pc.any(mask).as_py() and not explicit and key != path.name:
        old = pc.and_(same_kind, pc.and_(legacy, pc.equal(manifest["source"], path.name)))
        if pc.any(old).as_py():
            raise InputError(
                path,
                None,
                f"a file named {path.name} was ingested before arpad recorded which folder "
                "a file comes from, so it is unknown whether this file corrects it. If it "
                f"does, run again with --source {path.name} (and use that on every later "
                f"correction); if it is another file, run again with --source {key}",
            )
    return mask


def _label(manifest: pa.Table, previous: pa.Table, path: Path, key: str, explicit: bool) -> str:
    """The name this source's rows carry: kept across corrections; the file name (or
    ``--source``) unless another source already carries it, then the identity."""
    if previous.num_rows:
        return previous.column("source")[0].as_py()
    other = manifest.filter(
        pc.invert(pc.fill_null(pc.equal(manifest["source_key"], key), False))
    ).column("source")
    taken = set(other.to_pylist())
    for name in (key if explicit else path.name, key):
        if name not in taken:
            return name
    return f"{key}@{len(taken)}"


def ingest_file(
    store: Store,
    path: str | Path,
    fmt: str | None = None,
    kind: str | None = None,
    mapping: str | None = None,
    source: str | None = None,
    replace: bool = False,
    raw: RawTable | None = None,
    base: str | Path | None = None,
    keep_probable_duplicates: bool = False,
    pool: str | None = None,
    ignore_stated_ratings: bool = False,
    rate_moveless: bool = False,
    encoding: str | None = None,
) -> FileReport:
    """Ingest one file (games or players) into the store. See module docstring.

    ``source``: the source's name as the user gives it (``arpad ingest --source``);
    default: the path relative to ``base`` (the working directory), see
    ``source_identity``. ``replace``: games whose game_id is already stored from
    another source are replaced by this file's version (instead of being quarantined
    as duplicates). ``keep_probable_duplicates``: PGN/TRF games that repeat the date,
    players and result of a game of another file are stored (default: quarantined,
    pipeline/probable_duplicates.py). ``raw``: the file already read by ``read_any`` (flows/ingest.py
    reads files in parallel on Dask workers, then stores them one after another).
    ``pool``: every game of a games file goes to that pool, whatever the file says
    (``--pool``). ``ignore_stated_ratings``: the ratings a games file states (TRF 001,
    PGN ``WhiteElo``, ``white_rating``) are stored as stated, the batch id marked
    (``observations.ignores_stated``): a rating run takes one only to start a player no
    players file lists who has no rating then (``--ignore-stated-ratings``,
    docs/observations.md; ``stated_ratings.ignore_stated``, the note). The same bytes
    from the same source with options other than those its stored version was read
    with (none after some included) are stored again (a new version of that source); under another name they are skipped, the skip
    saying that the options were not applied. ``encoding``: the code page of a text
    file that is not UTF-8 (``--encoding``); the same bytes from the same source that
    it reads otherwise than their stored version was read are stored again, a new
    version of the source (``_read_otherwise``, docs/ingest.md "Encodings").

    Nothing is written under a final name until the whole ingest is staged
    (pipeline/journal.py): a kill at any point leaves the store before or after it.
    """
    path = Path(path)
    check_input_file(path)
    store.ensure()
    for line in journal.recover(store):
        print(f"arpad: {line}", file=sys.stderr)
    explicit = bool(source)
    if explicit:
        names.source_name(source)
    key = source_identity(path, source, base)
    digest = sha256_file(path)
    if pool is not None and pool not in ("standard", "rapid", "blitz"):
        raise ValueError(f"pool: {pool!r} is not one of standard, rapid, blitz")
    asked = _read_options(kind, pool, ignore_stated_ratings)
    # --rate-moveless (PGN, pgn.rate_moveless): other rows too, so another batch id
    asked += "m" if rate_moveless and kind != "players" else ""
    codec = readers.encoding_name(encoding) if encoding else None
    batch = digest[:16] + asked + (_encoding_mark(codec) if codec else "")
    manifest = store.read_manifest()
    same = manifest.filter(pc.equal(manifest["sha256"], digest))
    # Which source the same bytes were ingested as, if they were.
    same_key = (
        (same.column("source_key")[0].as_py() or same.column("source")[0].as_py())
        if same.num_rows
        else None
    )
    # The same bytes again with --keep-probable-duplicates, after an ingest that
    # quarantined some: stored again as a correction of that source, keeping them.
    again = (
        same.num_rows > 0
        and keep_probable_duplicates
        and probable_duplicates.quarantined(store, same.column("batch")[0].as_py())
    )
    if again:
        batch = probable_duplicates.kept_batch(batch)
    # The same bytes after a new version of another source removed or changed games
    # that copies they hold repeat (probable_duplicates.orphans): read again as a new
    # version of their source (as ``again``), the copies checked against the store now.
    recheck = (
        0
        if again or not same.num_rows
        else probable_duplicates.orphans(store, same.column("batch")[0].as_py())
    )
    if recheck:
        taken = set(manifest.column("batch").to_pylist())
        while batch in taken:
            batch += "r"
        again = True
    # The same bytes from another source identity (--source NAME, another path) after an
    # ingest that quarantined conflicting results: the correction of that source it
    # was meant to be (docs/ingest.md "Conflicting results"). The earlier ingest of
    # these bytes is undone with it.
    # The same bytes as a new version of a stored source other than the one they were
    # ingested as (--source naming it, or its own path): the correction it was meant
    # to be, even when they were tried under another name first (the officer's attack
    # of 2026-12-03: a corrected TRF sent under a new name could never be applied).
    # A content-identical skip is only for bytes stored as this same source.
    recorrect = (
        same.num_rows > 0
        and not again
        and same_key != key
        and (
            _names_stored_source(manifest, key)
            or probable_duplicates.quarantined(
                store, same.column("batch")[0].as_py(), Reason.CONFLICTING_RESULT
            )
        )
    )
    if recorrect:  # the id of the rows read now (with the options asked now), unused
        taken = set(manifest.column("batch").to_pylist())
        batch += "c"
        while batch in taken:
            batch += "c"
    # The options the stored version of these bytes was read with (its batch id's).
    stored_options = _batch_options(same.column("batch")[0].as_py()) if same.num_rows else ""
    # The same bytes from the same source, read with other options than the stored
    # version (--pool, --ignore-stated-ratings, --rate-moveless; none after some): stored
    # again as a new version of that source (the way to undo a wrong --pool).
    reread = (
        same.num_rows > 0
        and not again
        and not recorrect
        and same_key == key
        and stored_options != asked
    )
    # --encoding on bytes stored already: the file read in it when that reads it
    # otherwise than the stored version was read (how: ``stored_as``), else None; from
    # the same source, a new version of it (the way to mend names read in the wrong
    # code page: the tool's own note sends the user to --encoding, newuser round 9)
    recoded = stored_as = None
    if codec and same.num_rows and not again and not recorrect and not reread:
        recoded, stored_as = _read_otherwise(
            path, fmt, mapping, kind, codec, same.column("batch")[0].as_py()
        )
        reread = recoded is not None and same_key == key
    if same.num_rows and not again and not recorrect and not reread:
        prior = same.column("source")[0].as_py()
        report = FileReport(
            str(path), prior, same.column("kind")[0].as_py(), same.column("format")[0].as_py()
        )
        report.skipped = f"identical content already ingested as {prior}"
        if stored_options != asked:  # a copy under another name: its options not applied
            report.skipped += _options_not_applied(
                same_key,
                stored_options,
                pool,
                ignore_stated_ratings,
                rate_moveless and kind != "players",
            )
        if codec:
            report.skipped += _encoding_not_applied(
                same_key, same.column("kind")[0].as_py(), codec, stored_as, recoded is not None
            )
        stored_kind = same.column("kind")[0].as_py()
        if kind is not None and stored_kind is not None and kind != stored_kind:
            # a games file given again as --players (new user, round 10): not read as one
            report.skipped += (
                f" (stored as a {stored_kind} file: not read as a {kind} file; nothing new "
                "was read)"
            )
        if probable_duplicates.quarantined(store, same.column("batch")[0].as_py()):
            report.skipped += (
                f" (its probable duplicates stay quarantined: "
                f"{probable_duplicates.KEEP_OPTION} stores them)"
            )
        if replace or (explicit and source != prior):
            # The bytes are known: --source/--replace cannot give them another meaning.
            report.skipped += (
                " (--source and --replace do not apply to a file stored byte for byte: "
                "send the correction as a new version of the source it corrects"
                f"{_label_hint(manifest, source) if explicit else ''})"
            )
        return report

    head = None  # a Parquet games file's header: the file is streamed (docs/ingest.md)
    if recoded is not None:  # read in the stated code page already
        raw = recoded
    if raw is None:
        # --pool and --ignore-stated-ratings change the rows: such a file is read whole
        head = None if asked else stream_ingest.streamable(path, fmt, mapping, kind)
        raw = head or read_any(path, fmt=fmt, mapping=mapping, kind=kind, encoding=codec)
    if raw.kind == "games" and head is None:
        raw = _as_asked(raw, pool, ignore_stated_ratings)
        if rate_moveless:  # a PGN's games without moves rated (docs/pgn-trf.md)
            from arpad.pipeline.pgn import rate_moveless as rated_moveless

            raw = rated_moveless(raw)
    previous_mask = (
        pc.equal(manifest["sha256"], digest)
        if again or reread
        else _previous_entries(manifest, path, key, raw.kind, explicit)
    )
    previous = manifest.filter(previous_mask)
    source = _label(manifest, previous, path, key, explicit)
    stored_source = previous.num_rows > 0  # a new version of a stored source
    undone = None
    if recorrect:  # the earlier ingest of these bytes goes too
        undone = same.slice(0, 1).to_pylist()[0]
        previous_mask = pc.or_(previous_mask, pc.equal(manifest["sha256"], digest))
        previous = manifest.filter(previous_mask)
    if explicit and raw.format in probable_duplicates.FORMATS:
        raw = probable_duplicates.scoped_by_source(raw, path.name, source)
    report = FileReport(str(path), source, raw.kind, raw.format, notes=list(raw.notes))
    if recheck:
        report.notes.append(probable_duplicates.orphans_note(source, recheck))
    if recoded is not None:
        report.notes.append(
            f"--encoding {codec} reads these bytes otherwise than their stored version "
            f"(read as {stored_as}): stored again, a new version of {key}"
        )
    if explicit and not stored_source and raw.kind == "games":
        # --source NAME giving the label or file name of stored sources, not an identity:
        # refused, naming the identity (docs/pgn-trf.md "Historian's sources, round 11";
        # it made a new source NAME@1 beside the one it was meant to correct)
        _refuse_source_by_name(path, manifest, key)
    if explicit and not stored_source:
        if hint := _label_hint(manifest, key):
            report.notes.append(f"--source {key} names no stored source{hint}")
    if undone is not None:
        report.notes.append(
            f"these bytes were ingested before as {undone['source_key'] or undone['source']} "
            f"({undone['accepted']} games stored, {undone['quarantined']} quarantined): "
            "that ingest is undone, the file is stored as "
            + (f"the new version of {key}" if stored_source else f"the source {key}")
        )
    report.not_stored = dict(raw.not_stored)
    report.accounting = dict(raw.accounting)
    old_batches = previous.column("batch").to_pylist()
    if head is not None and (replace or old_batches):
        # Corrections and --replace compare the whole file with the store: read whole.
        raw, head = read_any(path, fmt=fmt, mapping=mapping, kind=kind, encoding=codec), None
    keys.refuse_lost_dictionary(store.keys_path)  # docs/store.md "A damaged store"
    integrity.refuse_lost_observations(store)  # (else rewritten with this source's rows)
    staged = journal.StagedStore(store, batch, path=str(path), source=key)

    player_quarantine = None
    content = None
    stale = None  # the history's "periods made stale" (pipeline/trail.py)
    gone: set[str] = set()  # games a new version removes or changes (their copies)
    if raw.kind == "players":
        dated = observations.is_dated(raw)  # a date column: dated ratings (docs/observations.md)
        validated = validate_players(raw, source, batch, by_date=dated)
        report.notes.extend(validated.notes)  # ratings of 0 read as unrated
        when, rows = None, validated.accepted
        if dated or observations.has_pool_column(raw):  # a row's pool: its rating's pool
            # (rows: and a row per further pool rating of a line, FIDE's RRtng and BRtng)
            validated, when, rows = observations.dated_players(raw, validated, source, batch)
        # a title column: the file gives its players' titles, an empty cell too
        titles = any(c in raw.frame.columns for c in identity.TITLE_FIELDS)
        merged = _merge_players(staged, rows, source, state=True, dated=when, titles=titles)
        if not observations.has_pool_column(raw):  # its undated ratings start every pool
            report.notes.extend(_every_pool_note(staged, rows, when))
        if merged.changed or dated:
            incremental.mark_all_stale(staged)
            stale = "all"
        if merged.rerated and not dated:
            report.notes.extend(_rebased_note(store, merged.rerated, staged, source))
        min_period = None
    elif head is not None:
        streamed = stream_ingest.store_games(store, staged, head, source, batch)
        report.notes.extend(n for n in streamed.notes if n not in report.notes)
        report.not_stored.update(streamed.not_stored)  # byes, … of every slice
        if streamed.blank:
            report.notes.append(f"{streamed.blank} blank row(s) skipped")
        report.notes.extend(_conflict_note(streamed.quarantine, batch, manifest))
        validated = Validated(None, streamed.quarantine, streamed.rows_read)
        accepted = streamed.accepted
        content = streamed.content
        _resent_notes(
            report,
            manifest,
            previous_mask,
            content,
            streamed.resent,
            accepted,
            lambda: stream_ingest.streamed_digest_v1(store, head, source, batch),
        )
        report.partitions = streamed.partitions
        journal.crash_point("correction:staged-games")
        report.new_players, player_quarantine = _add_game_players(
            staged, None, raw, source, batch, report, ids=streamed.player_ids
        )
        touched = list(streamed.partitions)  # a new source: every partition it wrote
        min_period = min((p for _, p in touched), default=None)
        if touched:
            incremental.mark_stale(staged, touched)
            stale = trail.stale_text(touched)
    else:
        validated = validate_games(raw, source, batch)
        if stored_source and old_batches:  # a new version of which no row could be read
            _refuse_unreadable_version(path, source, previous, validated, staged)
        # games before their pool's first period: noted (stated_ratings.before_first)
        report.notes.extend(before_first(store, validated.accepted, key))
        if ignore_stated_ratings:  # stored as stated, the batch id marked: start unrated only
            accepted, players, note = ignore_stated(
                store, validated.accepted, raw.players, old_batches, raw.frame
            )
            validated = _replace_fields(validated, accepted=accepted)
            raw = _replace_fields(raw, players=players)
            report.notes.append(note)
        touched: list[tuple[str, int]] = []
        if replace:
            removed, parts = _replace_store_games(staged, validated.accepted, batch, old_batches)
            report.replaced_games = removed
            touched += parts
        else:
            validated = _drop_store_duplicates(store, validated, batch, old_batches)
        content = content_digest(validated.accepted)
        before = validated.accepted
        report.notes.extend(_repeated_rows_note(before, raw.frame))
        validated, resent = _drop_content_duplicates(store, validated, batch, old_batches)
        validated, _ = stream_ingest.drop_conflicting_results(
            store, before, validated, batch, old_batches, _identities(manifest)
        )
        if raw.format in probable_duplicates.FORMATS and not keep_probable_duplicates:
            # (and the copies of a game dated short of the day with another result:
            # conflicting_result, docs/pgn-trf.md "Historian's sources, round 11")
            stored_anyway: list[str] = []  # (a short line under another date, other names)
            validated, probable = probable_duplicates.drop_probable_duplicates(
                store, validated, batch, old_batches, raw.players, path, stored_anyway
            )
            if probable:
                report.notes.append(probable_duplicates.note(probable))
            report.notes.extend(stored_anyway)
        report.notes.extend(_conflict_note(validated.quarantine, batch, manifest))
        accepted = validated.accepted.num_rows
        if raw.format == "pgn":  # its games stored not rated: of the games stored
            from arpad.pipeline.pgn import stored_notes

            report.notes = stored_notes(report.notes, raw.frame, validated.accepted)
        _resent_notes(
            report, manifest, previous_mask, content, resent, accepted, lambda: digest_v1(before)
        )
        changed = _changed_partitions(store, old_batches, validated.accepted)
        fresh = validated.accepted  # the games new to the store (a correction: added, changed)
        if old_batches:
            old_only, new_only = _content_diff(store, old_batches, validated.accepted)
            rows = sorted(new_only.get_column("_row").to_list())
            fresh = validated.accepted.take(pa.array(rows, pa.int64()))
        if old_batches and stored_source:
            report.correction = _correction_counts(old_only, new_only)
            report.notes.extend(_shrunk_note(previous, source, validated.accepted.num_rows))
            # other files' copies of the games it removes or changes: not left lost
            gone = probable_duplicates.gone_games(store, old_batches, validated.accepted)
            skip = {*old_batches, batch}
            report.notes.extend(probable_duplicates.orphaned_copies(staged, gone, source, skip))
        for old in old_batches:
            staged.remove_batch_games(old)
        # replaced the earlier version of this source (not: undid an ingest of these
        # bytes under another name, which the notes say)
        report.replaced = bool(old_batches) and stored_source
        if again or recorrect:  # the quarantined copies are stored now: their rows go
            probable_duplicates.drop_quarantine(staged, old_batches)
        report.partitions = staged.write_games(validated.accepted, batch)
        journal.crash_point("correction:staged-games")
        touched += changed
        if report.replaced:  # ids only its earlier version brought in: dropped (round 15)
            report.notes.extend(
                drop_replaced_ids(staged, source, old_batches, validated.accepted, raw)
            )
        report.new_players, player_quarantine = _add_game_players(
            staged, validated.accepted, raw, source, batch, report
        )
        if report.replaced and raw.format == "pgn":
            report.notes.extend(_drop_replaced_players(staged, source, validated.accepted, raw))
        min_period = min((p for _, p in touched), default=None) if touched else None
        if touched:
            incremental.mark_stale(staged, touched)
            stale = trail.stale_text(touched)

    if report.players_read:
        report.notes.append(
            f"players described by the file: {report.players_read} read, "
            f"{report.players_accepted} merged, {report.players_quarantined} quarantined"
        )
    if report.replaced_games:
        report.notes.append(f"--replace: {report.replaced_games} stored game(s) replaced")
    report.notes.extend(identity.conflict_notes(staged, source, raw.kind == "players"))
    # names described (a TRF's players, a CSV's name columns): a mistyped id?
    if raw.kind == "players" or raw.players is not None or _names_given(raw):
        report.notes.extend(namesake_notes(store.read_players(), staged.read_players()))
    if raw.kind == "games" and head is None:  # ratings stated unlike the list in force?
        report.notes.extend(stated_rating_notes(store, validated.accepted))
        report.notes.extend(old_games_notes(store, fresh))

    quarantine = validated.quarantine
    if player_quarantine is not None and player_quarantine.num_rows:
        quarantine = pa.concat_tables([quarantine, player_quarantine]).sort_by("line")
    staged.write_quarantine(quarantine, batch)
    report.rows = validated.rows_read
    report.accepted = validated.accepted.num_rows if raw.kind == "players" else accepted
    report.quarantined = validated.quarantine.num_rows
    assert report.accepted + report.quarantined == report.rows, "rows lost in validation"
    reasons = Counter(quarantine.column("reason").to_pylist())
    report.reasons = dict(sorted(reasons.items()))
    q = _example_rows(quarantine).to_pylist()
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
            "source_key": [key],
            "content_sha256": [content],
        },
        schema=MANIFEST,
    )
    keep = manifest.filter(pc.invert(previous_mask))
    staged.append_history(trail.history_row(entry, report, old_batches, stale))
    staged.write_manifest(pa.concat_tables([keep, entry]))
    plan = staged.commit()
    journal.apply(store, staged.stage, plan)
    report.notes.extend(probable_duplicates.put_back_orphans(store, gone))
    return report


def ingest_files(
    store: Store,
    paths,
    fmt=None,
    players=None,
    mapping=None,
    replace=False,
    source=None,
    pool=None,
    ignore_stated_ratings=False,
) -> IngestReport:
    """The ingest job (pipeline/jobs.py) in this process: players files first, then games."""
    from arpad.pipeline import jobs

    request = jobs.IngestRequest(
        str(store.root),
        [str(p) for p in paths],
        [str(p) for p in players or []],
        fmt,
        mapping,
        replace,
        source=source,
        pool=pool,
        ignore_stated_ratings=ignore_stated_ratings,
    )
    return jobs.ingest(request)


HEAD_BYTES = 4096  # of each file, read by ``check_before_reading``


def check_before_reading(store: Store, items, fmt: str | None, mapping: str | None) -> None:
    """Refuse, before the first file of an ingest is read, a file the ingest would
    refuse when it came to it, with the same line (docs/pgn-trf.md round 2: one bad
    file refuses the command; it was found only after every earlier file, about 0.7 s
    each). Only the first bytes are read: the format the name or ``--format`` gives
    against the first bytes (``readers.read_any``'s checks), and a file that is empty,
    blank or has a NUL byte in its head is read by its reader, whose own check names
    the problem at once. A file the check refuses whose bytes are stored is left to
    the ingest, which skips such a file unread. ``items``: (path, kind), in order."""
    known = None
    for path, kind in items:
        path = Path(path)
        try:
            games = kind != "players"  # (a players file is read without --format, --mapping)
            _check_head(path, fmt if games else None, mapping if games else None, kind)
        except InputError:
            if known is None:
                known = set(store.read_manifest().column("sha256").to_pylist())
            if sha256_file(path) not in known:
                raise


def _check_head(path: Path, fmt: str | None, mapping: str | None, kind: str | None) -> None:
    from arpad.pipeline import readers

    named = fmt.strip().lower() if fmt else readers.detect_format(path)
    if fmt and named not in readers.READERS:
        read_any(path, fmt=fmt, kind=kind)  # "unknown format" (read_any's line)
    # (a Parquet games file is streamed: its reader says what its bytes are)
    if kind == "players" or named != "parquet":
        if fmt:
            readers._refuse_unread_compression(path)
        readers._check_content(path, named, given=bool(fmt))
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES + 1)
    plain = named != "parquet" and not path.name.lower().endswith((".gz", ".zip"))
    blank = len(head) <= HEAD_BYTES and not head.replace(b"\xef\xbb\xbf", b"").strip()
    binary = b"\x00" in head and readers._text_kind(head) is None  # (UTF-16 is text)
    if not head or (plain and (blank or binary)):
        read_any(path, fmt=fmt, mapping=mapping, kind=kind)


def _rebased_note(
    store: Store, rerated: list[tuple[str, float, float]], staged: Store, source: str
) -> list[str]:
    """The note for an undated players file that changes stored players' ratings in a
    store already rated: an undated rating is the rating as of the first period, so the
    next ``rate`` recomputes every period from it, published months included — not
    what a monthly rating list means (found by the officer's attack, 2026-12-03).

    Per rated pool (docs/observations.md "Undated ratings and pools"): the starting
    rating of ``rerated``'s players in ``store`` against ``staged`` (this ingest's
    writes, ``source``'s rows the latest); pools with the same changes share a note,
    which names them unless it is standard alone."""
    import numpy as np

    rated = store.rated()
    if not rated:
        return []  # nothing rated yet: the file only sets the start
    ids = [pid for pid, _, _ in rerated]
    was = np.array([w for _, w, _ in rerated], dtype=np.float64)
    now = np.array([n for _, _, n in rerated], dtype=np.float64)
    mine = identity.read_observations(staged).filter(
        (pl.col("source") == source) & pl.col("period").is_null() & pl.col("rating").is_not_null()
    )
    moves: dict[tuple, list[str]] = {}  # (player, start before, after)... -> pools
    for pool in [p for p in schemas.POOLS if any(q == p for _, q in rated)]:
        before = observations.undated_ratings(store, ids, was, pool=pool)
        # The staged manifest lacks ``source`` yet: its own rows, the latest, win here.
        after = observations.undated_ratings(staged, ids, now, pool=pool)
        given = mine.filter(pl.col("pool").is_null() | (pl.col("pool") == pool))
        last = dict(given.sort("line").select("player_id", "rating").iter_rows())
        after = np.array([last.get(pid, a) for pid, a in zip(ids, after)], dtype=np.float64)
        # Shown as text, so that "none" (no start in the pool: NaN) compares equal.
        before, after = (
            [("none" if np.isnan(v) else f"{v:g}") for v in x] for x in (before, after)
        )
        moved = tuple((pid, b, a) for pid, b, a in zip(ids, before, after) if b != a)
        if moved:
            moves.setdefault(moved, []).append(pool)
    notes = []
    for moved, pools in moves.items():
        rated_here = [(system, pool) for system, pool in rated if pool in pools]
        published = sorted(
            {p for system, pool in rated_here for p in store.published_periods(system, pool)}
        )
        shown = "; ".join(f"{pid}: {b} -> {a}" for pid, b, a in moved[:3])
        more = f" and {len(moved) - 3} more" if len(moved) > 3 else ""
        lists = (
            f", the published lists of {published[0]}..{published[-1]} included"
            if published
            else ""
        )
        named = f"{pools[0]} " if pools != [schemas.POOLS[0]] else ""  # standard unnamed
        if len(pools) > 1:
            named = f"{', '.join(pools[:-1])} and {pools[-1]} "
        systems = sorted({system for system, _ in rated_here})
        if _any_seeds(systems):
            advice = "A rating list of a month is ingested with a date column"
        else:  # USCF, Glicko, ...: a dated list would be stored and never read
            advice = (
                f"The systems rated here ({', '.join(systems)}) rate from the games and read "
                "no dated ratings: a players file only sets the starting ratings"
            )
        notes.append(
            f"{len(moved)} player(s) whose undated {named}starting rating changes "
            f"({shown}{more}): an undated rating counts as of the first period, so the next "
            f"rate recomputes every period from it{lists}. {advice} (docs/observations.md)"
        )
    return notes


def _any_seeds(systems: list[str]) -> bool:
    """Whether one of ``systems`` starts from dated ratings (``seeds_from_observations``,
    docs/observations.md "Which systems seed from them"); an unknown name counts."""
    from arpad.pipeline.systems import get_system

    for name in systems:
        try:
            if get_system(name).seeds_from_observations:
                return True
        except ValueError:  # a system this installation does not know: may seed
            return True
    return False


def _other_result(where: str, stored, incoming, identities: dict[str, str] | None = None) -> str:
    """A re-sent game id whose result differs is a correction sent under another name:
    say so, and how to apply it (docs/ingest.md "Which file is which"). ``identities``:
    label -> source identity (``_identities``): the hint gives the identity a
    correction's ``--source`` must name, not the label its rows carry."""
    if stored is None or incoming is None or float(stored) == float(incoming):
        return ""
    first = where.rsplit(":", 1)[0]
    ident = (identities or {}).get(first, first)
    return (
        f" with White's score {float(stored):g} there, {float(incoming):g} here: not applied "
        f"(a correction of {first} is ingested with --source {ident!r} or --replace, "
        "docs/ingest.md)"
    )


def _other_date(where: str, here: str, stored, incoming, guess: str, identities) -> str:
    """A re-sent game id (same players in their colours) dated otherwise: the final
    report of a tournament whose interim one had a round date the final one changes
    (a round an interim TRF left undated takes the last dated round's date, docs/pgn-trf.md):
    both dates and how to apply it (round 15: every game of the final TRF was
    ``duplicate_game_id`` with no word of the dates, round 3 left in October).
    ``here``: this file's label; ``guess``: why one of the dates may be a guess."""
    first = where.rsplit(":", 1)[0]
    ident = (identities or {}).get(first, first)
    return (
        f" dated {stored or '(no date)'} there, {incoming or '(no date)'} here"
        f"{guess}: not applied (if this is the final report of that tournament: arpad "
        f"ingest {shell_word(here)} --source {shell_word(ident)}, docs/pgn-trf.md)"
    )


def _round_date_guess(g: str, stored: dict, incoming: dict) -> str:
    """`` (round 2's date there: none given for round 3 in that file?)`` when game id
    ``g`` is a TRF pairing (``…:r3:1-4``) dated as the round before it in one file and
    not in the other (``stored``, ``incoming``: (id scope, round) -> the dates of the
    re-sent games): the date an interim TRF's undated round took (docs/pgn-trf.md)."""
    m = re.fullmatch(r"(.*):r(\d+):\d+-\d+", g)
    if m is None or int(m.group(2)) < 2:
        return ""
    key, prev = (m.group(1), int(m.group(2))), (m.group(1), int(m.group(2)) - 1)

    def as_before(dates: dict) -> bool:
        return dates.get(prev) is not None and dates.get(key) == dates[prev]

    if as_before(stored) and not as_before(incoming):
        return f" (round {prev[1]}'s date there: none given for round {key[1]} in that file?)"
    if as_before(incoming) and not as_before(stored):
        return f" (round {prev[1]}'s date here: none given for round {key[1]} in this file?)"
    return ""


def _identities(manifest: pa.Table) -> dict[str, str]:
    """label -> source identity of every stored source: the label is the name its rows
    carry (``games_nov.csv:3``), the identity what ``--source`` must give to correct it
    (``in/games_nov.csv``; the officer's attack of 2026-12-03 followed a hint that gave
    the label, and made a new source)."""
    labels = manifest.column("source").to_pylist()
    keys = manifest.column("source_key").to_pylist()
    return {label: key or label for label, key in zip(labels, keys)}


def _names_stored_source(manifest: pa.Table, key: str) -> bool:
    """Whether ``key`` is the identity of a stored source (or the name of one ingested
    before identities were recorded)."""
    by_key = pc.fill_null(pc.equal(manifest["source_key"], key), False)
    legacy = pc.and_(pc.is_null(manifest["source_key"]), pc.equal(manifest["source"], key))
    return bool(pc.any(pc.or_(by_key, pc.fill_null(legacy, False))).as_py())


def _refuse_source_by_name(path: Path, manifest: pa.Table, name: str) -> None:
    """``--source NAME`` where NAME is no stored identity but the label or the file name
    of stored games sources (``London1851.pgn`` for ``/data/pgn/London1851.pgn``):
    ``InputError`` (exit 2, nothing stored) giving the identity to name. Not applied as
    that source's new version: a new version replaces all of a source's games, and a
    file of a few corrected rows sent so would replace the whole source."""
    if _names_stored_source(manifest, name):
        return
    rows = manifest.filter(pc.equal(manifest["kind"], "games"))
    found = sorted(
        {
            key or label
            for label, key in zip(
                rows.column("source").to_pylist(), rows.column("source_key").to_pylist()
            )
            if label == name or (key or label).rsplit("/", 1)[-1] == name
        }
    )
    if not found:
        return
    which = (
        f"the stored source {found[0]} is named {name}: to ingest this file as its new "
        f"version (it replaces all of that source's games), --source {found[0]!r}"
        if len(found) == 1
        else f"{len(found)} stored sources are named {name} ({', '.join(found)}): to ingest "
        "this file as the new version of one of them, --source with its identity"
    )
    raise InputError(
        path,
        None,
        f"--source {name} is no stored source's identity; {which}; for a new source, a "
        "name no stored source has (nothing was stored)",
    )


def _label_hint(manifest: pa.Table, name: str) -> str:
    """``--source NAME`` where NAME is not a stored identity but the label of a stored
    source with another identity: say which identity corrects it."""
    if _names_stored_source(manifest, name):
        return ""
    ident = _identities(manifest).get(name)
    if ident is None or ident == name:
        return ""
    return (
        f"; {name} is the name the rows of the stored source {ident} carry: to correct "
        f"that source, --source {ident!r}"
    )


def _batch_options(batch: str) -> str:
    """The read options a stored batch id carries: ``_read_options``'s suffix and ``m``
    (--rate-moveless) after the 16 digits of the digest, without the suffixes of a file
    stored again (``k``: its probable duplicates kept, ``c``: a re-correction, ``r``:
    read again for copies of games a new version of another source removed)."""
    rest = batch[16:]
    options = rest[:7] if rest.startswith("o") else ""
    return options + ("m" if rest[len(options) :].startswith("m") else "")


def read_option_words(batch: str) -> str:
    """The ``arpad ingest`` options a stored batch was read with, as words (``--pool
    standard``, ``--rate-moveless``): ``_read_options``'s suffix is a digest, so the pools
    are tried (the monthly report's remedy names them, pipeline/monthly.py)."""
    from arpad.pipeline.schemas import POOLS

    options = _batch_options(batch)
    words = [
        f"--pool {pool}"
        for pool in POOLS
        for ignore in (False, True)
        if options[:7] and options[:7] == _read_options("games", pool, ignore)
    ]
    return " ".join(words + (["--rate-moveless"] if options.endswith("m") else []))


def _encoding_mark(codec: str) -> str:
    """The batch id's mark of a file read with ``--encoding`` (``e`` and 4 hex digits of
    the code page's name), after its read options: which code page its stored version
    was read in (``_read_otherwise``)."""
    return "e" + hashlib.sha256(codec.encode()).hexdigest()[:4]


def _stored_code_page(batch: str) -> str | None:
    """The code page ``--encoding`` gave a stored batch (``_encoding_mark``): its name
    when it is one of readers.ENCODING_LABELS, "" for another; None without a mark."""
    rest = batch[16 + len(_batch_options(batch)) :]
    if not re.match(r"e[0-9a-f]{4}", rest):
        return None
    return next((c for c in readers.ENCODING_LABELS if _encoding_mark(c) == rest[:5]), "")


def _read_otherwise(
    path: Path, fmt: str | None, mapping: str | None, kind: str | None, codec: str, batch: str
) -> tuple[RawTable | None, str | None]:
    """``--encoding codec`` on bytes stored as ``batch``: the file read in ``codec`` when
    that reads it otherwise than the stored version was read (in the code page its
    batch id marks, else the one told from its letters), else None (the same reading,
    a UTF-8 file, a Parquet file); and the label of the stored version's reading
    (``UTF-8`` for a UTF-8 file), None for a Parquet file."""
    if kind == "players":
        fmt = mapping = None
    if (fmt or readers.detect_format(path)).strip().lower() == "parquet":
        return None, None  # no text to decode
    stated = read_any(path, fmt=fmt, mapping=mapping, kind=kind, encoding=codec)
    if readers.decoded_as(stated.notes) is None:
        return None, "UTF-8"
    stored = _stored_code_page(batch)
    if stored == codec:
        return None, readers.decoded_as(stated.notes)
    if stored == "":  # a code page this installation has no label for: read again
        return stated, "another code page"
    before = read_any(path, fmt=fmt, mapping=mapping, kind=kind, encoding=stored)
    same = stated.frame.equals(before.frame) and (
        stated.players is None
        if before.players is None
        else stated.players is not None and stated.players.equals(before.players)
    )
    return (None if same else stated), readers.decoded_as(before.notes)


def _encoding_not_applied(
    stored_as: str, kind: str, codec: str, read_as: str | None, otherwise: bool
) -> str:
    """The skip line's tail for ``--encoding codec`` on bytes stored already: a UTF-8
    file, or a code page that reads them as their stored version was read, changes
    nothing; bytes stored as another source ``stored_as`` are not read again under
    this name: how to read that source in ``codec``."""
    if read_as is None:
        return f" (--encoding {codec} does not apply to a Parquet file)"
    if read_as == "UTF-8":
        return f" (valid UTF-8: --encoding {codec} is for files that are not)"
    if not otherwise:
        return f" (--encoding {codec} reads them as their stored version was read: {read_as})"
    ident = shlex.quote(stored_as)
    this = "" if kind == "players" else f", or this file with --source {ident} --encoding {codec}"
    players = "--players " if kind == "players" else ""
    return (
        f" (--encoding {codec} not applied: these bytes are stored as the source "
        f"{stored_as}, read as {read_as}; to read that source in {codec}: arpad ingest "
        f"{players}{ident} --encoding {codec}{this})"
    )


def _options_not_applied(
    stored_as: str, stored_options: str, pool: str | None, ignore: bool, moveless: bool
) -> str:
    """The skip message's tail for bytes stored as another source, asked with other read
    options: those are not applied; how to read the stored source with them."""
    words = [f"--pool {pool}"] if pool else []
    words += ["--ignore-stated-ratings"] if ignore else []
    words += ["--rate-moveless"] if moveless else []
    ident = shlex.quote(stored_as)
    if not words:
        return (
            f" (the stored source {stored_as} was read with options (--pool, "
            "--ignore-stated-ratings or --rate-moveless), which stay; to read it without "
            f"them: arpad ingest {ident}, or this file with --source {ident})"
        )
    given = " ".join(words)
    read = "with other options" if stored_options else "without options"
    return (
        f" ({given} not applied: these bytes are stored as the source {stored_as}, read "
        f"{read}; to read that source with {given}: arpad ingest {ident} {given}, or "
        f"this file with --source {ident} {given})"
    )


def _read_options(kind: str | None, pool: str | None, ignore_stated_ratings: bool) -> str:
    """The batch id's suffix for a games file read with --pool or
    --ignore-stated-ratings ("" without): the same bytes read otherwise are other rows."""
    if kind == "players" or (pool is None and not ignore_stated_ratings):
        return ""
    # (observations.ignores_stated reads it back: the engine counts such a file apart)
    return observations.read_options_mark(pool, ignore_stated_ratings)


def _pgn_pool_notes(frame: pl.DataFrame) -> list[str]:
    """The summary's note for PGN games stored in a pool other than standard, and what
    gave it (pgn.py: the TimeControl tag, else a word of the Event tag)."""
    if "pool" not in frame.columns or not frame.height:
        return []
    odd = frame.filter(pl.col("pool").is_not_null() & (pl.col("pool") != "standard"))
    out = []
    for pool in sorted(set(odd.get_column("pool").to_list())):
        games = odd.filter(pl.col("pool") == pool)
        events = (
            games.get_column("event_id").drop_nulls().unique(maintain_order=True).to_list()
            if "event_id" in games.columns
            else []
        )
        pattern = dict(POOL_WORDS).get(pool)  # pgn.event_pool's words
        word = next(
            (
                (e, m.group(0))
                for e in events
                if pattern and (m := re.search(pattern, e, re.IGNORECASE))
            ),
            None,
        )
        origin = "the TimeControl tag" + (
            f", or without one the word {word[1]!r} in the Event tag {word[0]!r}" if word else ""
        )
        out.append(
            f"pool {pool} for {games.height} of {frame.height} game(s) ({origin}; pass "
            "--pool standard to override)"
        )
    return out


def _as_asked(raw: RawTable, pool: str | None, ignore_stated_ratings: bool) -> RawTable:
    """A games file's rows as ``--pool`` and ``--ignore-stated-ratings`` ask, and the
    summary's notes on its pool (docs/ingest.md "Pool and stated ratings")."""
    notes = list(raw.notes)
    if raw.format == "pgn":
        notes += _pgn_pool_notes(raw.frame)
    frame, players = raw.frame, raw.players
    if pool is not None:
        said = [n for n in notes if n.startswith("pool ") and "pass --pool" in n]
        notes = [n for n in notes if n not in said]
        alone = [n.split("; pass --pool", 1)[0] + ")" for n in said]
        notes.append(
            f"pool {pool} for every game (--pool {pool})"
            + (f"; the file alone gives {'; '.join(alone)}" if alone else "")
        )
        frame = frame.with_columns(pl.lit(pool, pl.String).alias("pool"))
    # (--ignore-stated-ratings: applied to the validated games, stated_ratings.ignore_stated)
    return _replace_fields(raw, frame=frame, players=players, notes=notes)


def _conflict_note(quarantine: pa.Table, batch: str, manifest: pa.Table) -> list[str]:
    """The summary's note on games quarantined ``conflicting_result`` (by content or by
    a game id another file stored with another result), naming the stored source's
    identity to correct it with."""
    mine = quarantine.filter(
        pc.and_(
            pc.equal(quarantine.column("reason"), Reason.CONFLICTING_RESULT),
            pc.equal(quarantine.column("ingest_batch"), batch),
        )
    )
    if not mine.num_rows:
        return []
    # a game id re-sent with another date (``_other_date``): its own note (round 15)
    dated = pc.match_substring_regex(mine.column("detail"), r" dated .+ there, .+ here")
    moved = mine.filter(dated)
    mine = mine.filter(pc.invert(dated))
    out = []
    if mine.num_rows:
        first = mine.column("detail")[0].as_py() or ""
        m = re.search(r"stored from (.*?):\d+[, ]", first)
        label = m.group(1) if m else None
        ident = _identities(manifest).get(label, label)
        how = (
            f"to correct {ident}, ingest this file with --source {ident!r}: a new version "
            "replaces all of that source's games, so send the complete corrected file"
            if ident
            else "a correction of a file is ingested with --source naming it"
        )
        out.append(
            f"{mine.num_rows} game(s) with the date and players of a game stored from "
            f"another file but another result: not applied (quarantined as "
            f"conflicting_result; {how})"
        )
    if moved.num_rows:
        first = moved.column("detail")[0].as_py() or ""
        m = re.search(
            r"game_id (.*) already stored from (.*?):\d+ dated (.+?) there, (.+?) here", first
        )
        if m:
            g, label, there, here = m.groups()
            ident = _identities(manifest).get(label, label)
            this = moved.column("source")[0].as_py()
            out.append(
                f"{moved.num_rows} game(s) with the game id and players of a game stored "
                f"from {label} but another date (e.g. {g}: {there} there, {here} here): not "
                "applied (quarantined as conflicting_result; if this is the final report of "
                f"that tournament: arpad ingest {shell_word(this)} --source "
                f"{shell_word(ident)}: a new version replaces all of that source's games, "
                "the dates and results of this file then stand)"
            )
    return out


def _refuse_unreadable_version(
    path: Path, label: str, previous: pa.Table, validated, staged: journal.StagedStore
) -> None:
    """A new version of a stored source whose every row was quarantined (a file re-saved
    by a spreadsheet with every date as 06/05/2025) does not replace the stored games:
    ``InputError`` (exit 2), nothing written (docs/ingest.md "A new version that holds
    much less"; hostile round 8). A header-only version (nothing quarantined) still
    replaces the source."""
    stored = sum(previous.column("accepted").to_pylist())
    bad = validated.quarantine
    if validated.accepted.num_rows or not bad.num_rows or not stored:
        return
    reasons = Counter(bad.column("reason").to_pylist())
    counts = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items()))
    first = bad.sort_by("line").slice(0, 1).to_pylist()[0]
    of = "" if label in (str(path), path.name) else f" of {label}"
    # nothing staged is left for `arpad check` to call interrupted (the monthly job
    # rejects the file and goes on)
    staged.remove_tree(staged.stage)
    raise InputError(
        path,
        None,
        f"no row of this new version{of} could be read ({bad.num_rows} quarantined: "
        f"{counts}; line {first['line']}: {first['reason']}: {first['detail']}); the "
        f"stored version ({stored} games) is kept",
    )


def _shrunk_note(previous: pa.Table, label: str, now: int) -> list[str]:
    """A new version of a source that holds less than half of its stored games: it
    replaces the whole source (the officer's attack of 2026-12-03: a one-row
    correction file sent with --source replaced a 15-game source with its one game)."""
    stored = sum(previous.column("accepted").to_pylist())
    if stored < 2 or now * 2 >= stored:
        return []
    return [
        f"the new version of {label} holds {now} game(s) against {stored} stored: "
        f"{stored - now} removed — a new version replaces the whole source; if this file "
        "was meant as a correction of some of its games, send the complete file"
    ]


def _example_rows(quarantine: pa.Table, n: int = 5) -> pa.Table:
    """The quarantine rows the summary shows: the first ``n`` in line order, but the
    first row of every reason among them (a conflicting result was shown 6th, after
    five duplicates, or not at all)."""
    if quarantine.num_rows <= n:
        return quarantine
    reasons = pl.from_arrow(quarantine.select(["reason"])).with_row_index("_i")
    firsts = reasons.group_by("reason").agg(pl.col("_i").min()).get_column("_i").to_list()
    taken = set(firsts)
    rest = [i for i in range(n + len(taken)) if i not in taken][: max(0, n - len(taken))]
    return quarantine.take(sorted(taken | set(rest)))


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
            "SELECT s.game_id, min(s.source) AS source, min(s.score) AS score, "
            "min(s.white_id) AS white_id, min(s.black_id) AS black_id, min(s.date) AS date "
            "FROM read_parquet(?) s "
            "SEMI JOIN incoming i ON s.game_id = i.game_id GROUP BY s.game_id",
            [files],
        )
    finally:
        con.close()
    if dup.num_rows == 0:
        return v
    ids = dup.column("game_id").to_pylist()
    where = dict(zip(ids, dup.column("source").to_pylist()))
    was = dict(zip(ids, dup.column("score").to_pylist()))
    # The same game (players in their colours, date) with another result: a correction
    # sent under another name (a TRF's ids name the pairing): conflicting_result, as
    # for a game without an id (docs/ingest.md "Conflicting results").
    game = dict(
        zip(
            ids,
            zip(
                dup.column("white_id").to_pylist(),
                dup.column("black_id").to_pylist(),
                dup.column("date").to_pylist(),
            ),
        )
    )
    identities = _identities(store.read_manifest())
    is_dup = pc.is_in(v.accepted["game_id"], value_set=dup.column("game_id"))
    dups = v.accepted.filter(is_dup)
    lines = [int(s.rsplit(":", 1)[1]) for s in dups.column("source").to_pylist()]
    # (a TRF round's dates in each file: a date the undated-round rule gave, named)
    by_round: tuple[dict, dict] = ({}, {})
    for g, date in zip(dups.column("game_id").to_pylist(), dups.column("date").to_pylist()):
        if m := re.fullmatch(r"(.*):r(\d+):\d+-\d+", g):
            for side, day in zip(by_round, (game[g][2], date)):
                side.setdefault((m.group(1), int(m.group(2))), set()).add(day)
    reasons, details = [], []
    for g, new, white, black, date, label in zip(
        dups.column("game_id").to_pylist(),
        dups.column("score").to_pylist(),
        dups.column("white_id").to_pylist(),
        dups.column("black_id").to_pylist(),
        dups.column("date").to_pylist(),
        dups.column("source").to_pylist(),
    ):
        other = _other_result(where[g], was[g], new, identities)
        # A PGN game id holds the Date and the White and Black tags as the files give
        # them (pgn.game_key), so one id is one pairing and day; the player ids are
        # scoped to each file (``kb3.pgn:Name``, pgn._identity) and never match across
        # files (the historian's attack: a corrected PGN was duplicate_game_id).
        same_game = g.startswith("pgn:") or game[g] == (white, black, date)
        # The same id and players in their colours on another date: the final TRF of a
        # tournament dating a round its interim TRF did not (round 15), a correction too.
        if not g.startswith("pgn:") and game[g][:2] == (white, black) and game[g][2] != date:
            guess = _round_date_guess(g, *by_round)
            here = label.rsplit(":", 1)[0]
            moved = _other_date(where[g], here, game[g][2], date, guess, identities)
            if other:  # (and another result: both said, one hint)
                moved = other.split(": not applied", 1)[0] + " and" + moved
            reasons.append(Reason.CONFLICTING_RESULT)
            details.append(f"game_id {g} already stored from {where[g]}" + moved)
            continue
        reasons.append(
            Reason.CONFLICTING_RESULT if other and same_game else Reason.DUPLICATE_GAME_ID
        )
        details.append(f"game_id {g} already stored from {where[g]}" + other)
    rows = pa.table(
        {
            "source": [s.rsplit(":", 1)[0] for s in dups.column("source").to_pylist()],
            "line": lines,
            "reason": reasons,
            "detail": details,
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
    # (player_id, stored rating, new rating) of stored players whose rating changed
    rerated: list[tuple[str, float, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a games file unlike the register


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


def _merge_players(
    store: Store,
    incoming: pa.Table,
    source: str | None = None,
    state: bool = False,
    dated: pl.DataFrame | None = None,
    titles: bool = False,
) -> MergeResult:
    """Upsert players: for each column the latest non-null value wins. What ``source``
    said is recorded (identity.record_observations; ``state``: a players file, whose
    ratings are compared with other players files'). A games file's description
    (``source`` given, not ``state``) never overwrites a field a players file gave
    (``_register_wins``, docs/ingest.md "The register wins"). ``titles``: a players file
    with a ``title`` or ``w_title`` column, whose titles replace a player's stored ones,
    an empty cell too (a TRF's WFM is not kept beside the register's WIM)."""
    existing = pl.from_arrow(store.read_players())
    new = pl.from_arrow(schemas.conform(incoming, schemas.PLAYERS))
    changed = False
    rerated: list[tuple[str, float, float]] = []
    notes: list[str] = []
    if existing.height == 0 and new.get_column("player_id").n_unique() == new.height:
        # one row per player, nothing to merge (a first players file)
        merged = pl.concat([existing, new], how="vertical_relaxed")
    else:
        # Only the stored players the file names are merged with its rows; the others
        # are kept as they are (a 93-game TRF file into a store of 200k players grouped
        # all 200k rows, ~0.13 s of every file; docs/ingest.md "Many files").
        hit = existing.get_column("player_id").is_in(new.get_column("player_id").implode())
        hit = hit.fill_null(False)
        touched = existing.filter(hit)
        both = pl.concat([touched, new], how="vertical_relaxed")
        other = _other_pool_rows(new, dated)
        columns = [c for c in both.columns if c != "player_id"]
        if other is None:
            aggs = [pl.col(c).drop_nulls().last() for c in columns]
        else:  # a rapid or blitz row's rating fields only fill what nothing else gives
            side = pl.Series("_other", [False] * touched.height + other.to_list())
            both = both.with_columns(side)
            aggs = [
                pl.coalesce(
                    pl.col(c).filter(~pl.col("_other")).drop_nulls().last(),
                    pl.col(c).filter(pl.col("_other")).drop_nulls().last(),
                )
                if c in POOL_FIELDS
                else pl.col(c).drop_nulls().last()
                for c in columns
            ]
        if titles:  # the file's own titles (null when its cells are empty), not the stored
            own = pl.Series("_own", [False] * touched.height + [True] * new.height)
            both = both.with_columns(own)
            aggs = [
                pl.col(c).filter(pl.col("_own")).drop_nulls().last().alias(c)
                if c in identity.TITLE_FIELDS
                else agg
                for c, agg in zip(columns, aggs, strict=True)
            ]
        grouped = both.group_by("player_id", maintain_order=True).agg(aggs)
        if source is not None and not state and touched.height:
            grouped, notes = _register_wins(store, touched, new, grouped)
        merged = pl.concat([existing.filter(~hit), grouped], how="vertical_relaxed")
        if touched.height:
            before = touched.select("player_id", *STATE_FIELDS).sort("player_id")
            after = (
                grouped.join(before.select("player_id"), on="player_id", how="semi")
                .select("player_id", *STATE_FIELDS)
                .sort("player_id")
            )
            fields = STATE_FIELDS
            if source is not None and not state and _starts_from_players_files(store):
                # A games file's rating in the table is no start: not a change of state.
                fields = tuple(f for f in STATE_FIELDS if f != "rating")
            changed = not before.select("player_id", *fields).equals(
                after.select("player_id", *fields)
            )
            if changed:
                moved = before.select("player_id", pl.col("rating").alias("was")).join(
                    after.select("player_id", "rating"), on="player_id"
                )
                moved = moved.filter(
                    pl.col("was").is_not_null() & (pl.col("was") != pl.col("rating"))
                )
                rerated = list(moved.iter_rows())
            if other is not None:  # the table keeps the standard rating: pool starts
                starts = _moved_pool_starts(store, touched, new, dated, rerated)
                changed = changed or bool(starts)
                rerated += starts
    store.write_players(merged.sort("player_id").to_arrow())
    if source is not None:
        identity.record_observations(store, new, source, state=state, dated=dated, titles=titles)
    return MergeResult(merged.height - existing.height, changed, rerated, notes)


def _every_pool_note(store: Store, rows: pa.Table, dated: pl.DataFrame | None) -> list[str]:
    """The note of a players file without a ``pool`` column whose undated ratings (the
    accepted ``rows`` with a rating that ``dated``, the rows with a date, leaves) start
    every pool, ingested into a store with rapid or blitz games: they list the register
    at those ratings (docs/observations.md "Undated ratings and pools"; the officer's
    report, round 13: rapid lists of standard ratings, 0 games, said nowhere)."""
    others = [p for p in store.pools() if p != schemas.POOLS[0]]
    if not others:
        return []
    seeds = rows.filter(pc.is_valid(rows.column("rating")))
    if dated is not None and dated.height:
        given = pa.array(dated.get_column("source").to_list(), pa.string())
        seeds = seeds.filter(pc.invert(pc.is_in(seeds.column("source"), value_set=given)))
    n = pc.count_distinct(seeds.column("player_id")).as_py() if seeds.num_rows else 0
    if not n:
        return []
    pools = " and ".join(others)
    return [
        f"the file's rating column (no pool column) gives {n} player(s) their starting "
        f"rating in every pool: the {pools} lists start them from it, and list those "
        "without a game in that pool at it (0 games); if these are standard ratings, head "
        "the column SRtng (or standard_rating), or add a pool column, and ingest the file "
        'again (docs/observations.md "Undated ratings and pools")'
    ]


def _starts_from_players_files(store: Store) -> bool:
    """Whether the engine takes ``store``'s undated starting ratings from the players
    files' observations (``observations.undated_ratings``: the file with its ``source``
    and ``rating`` columns), not from the players table. Then the rating a games file
    writes in the table (a TRF's 001 rating of a player no players file rated) seeds
    nothing, and changing it marks nothing stale; the games' own periods are marked
    (docs/observations.md "Stated ratings and the players table")."""
    import pyarrow.parquet as pq

    path = observations.observations_path(store)
    if not path.exists():
        return False
    names = set(pq.read_schema(path).names)
    return {"source", "rating"} <= names


# The rating fields of a players-file row of a rapid or blitz pool (a file with a
# ``pool`` column): the players table keeps the standard row's (or the pool-less row's)
# and takes such a row's only where it has none (docs/observations.md "Undated ratings
# and pools"; tests/test_players_per_pool_rows.py).
POOL_FIELDS = ("rating", "rated_games", "peak_rating", "rd", "volatility")


def _other_pool_rows(new: pl.DataFrame, dated: pl.DataFrame | None) -> pl.Series | None:
    """Per row of ``new``, whether it is of a pool other than standard (``dated``: the
    rows' (source, period, pool), observations.dated_players); None when none is."""
    if dated is None:
        return None
    pool = new.select("source").join(
        dated.select("source", "pool"), on="source", how="left", maintain_order="left"
    )
    other = pool.get_column("pool").is_not_null() & (pool.get_column("pool") != schemas.POOLS[0])
    return other if other.any() else None


def _moved_pool_starts(
    store: Store,
    touched: pl.DataFrame,
    new: pl.DataFrame,
    dated: pl.DataFrame,
    rerated: list[tuple[str, float, float]],
) -> list[tuple[str, float, float]]:
    """(player_id, stored rating, new start) of stored players (``touched``), not in
    ``rerated`` yet, whose undated start in a rapid or blitz pool an undated row of
    ``new`` moves (``observations.undated_ratings``): that row does not change the
    players table, yet the pool's periods are stale and ``_rebased_note`` names them."""
    import numpy as np

    known = {pid for pid, _, _ in rerated}
    rows = new.select("source", "player_id", "rating").join(
        dated, on="source", how="inner", maintain_order="left"
    )
    rows = rows.filter(
        pl.col("period").is_null()
        & (pl.col("pool") != schemas.POOLS[0])
        & pl.col("rating").is_not_null()
        & pl.col("player_id").is_in(touched.get_column("player_id").implode())
        & ~pl.col("player_id").is_in(list(known))
    )
    was = dict(touched.select("player_id", "rating").iter_rows())
    out: dict[str, tuple[str, float, float]] = {}
    for (pool,), part in rows.group_by("pool", maintain_order=True):
        last = part.group_by("player_id", maintain_order=True).agg(pl.col("rating").last())
        ids = last.get_column("player_id").to_list()
        stored = np.array([was.get(pid) for pid in ids], dtype=np.float64)
        before = observations.undated_ratings(store, ids, stored, pool=pool)
        for pid, start, now in zip(ids, before, last.get_column("rating").to_list()):
            if pid not in out and (np.isnan(start) or start != now):
                out[pid] = (pid, was.get(pid), now)
    return list(out.values())


# Players fields the identity observations do not keep: a player a players file
# described keeps the value he has; a games file may only fill an empty one. (``w_title``
# is kept per source now; the register's observations of stores ingested before, and of
# a players file without a title column, do not say it: it keeps that rule there.)
UNOBSERVED = ("birth_date", "w_title", "o_title", "foa_title")
REGISTER_NOTE_FIELDS = ("name", "title", "w_title", "federation")


def _register_wins(
    store: Store, touched: pl.DataFrame, new: pl.DataFrame, grouped: pl.DataFrame
) -> tuple[pl.DataFrame, list[str]]:
    """``grouped`` (the latest non-null values) with the stored value put back in every
    field of ``touched`` (stored players) that a players file gave, and the note naming
    players whose name, title or federation in ``new`` (a games file's description)
    differs from the register's."""
    given = identity.register_fields(store, touched.get_column("player_id"))
    if given.height == 0:
        return grouped, []
    fields = [c for c in given.columns if c != "player_id"]
    flags = given.rename({c: f"_given_{c}" for c in fields}).with_columns(
        pl.lit(True).alias("_register")
    )
    old = touched.select(
        "player_id",
        *[pl.col(c).alias(f"_old_{c}") for c in dict.fromkeys((*fields, *UNOBSERVED))],
    ).join(flags, on="player_id", how="inner")
    out = grouped.join(old, on="player_id", how="left", maintain_order="left")
    keep = {c: pl.col(f"_given_{c}").fill_null(False) for c in fields}
    # A players file that gave a title gave the player's titles: a games file's title
    # changes neither (a TRF's WFM beside the register's WIM, docs/ingest.md).
    titled = pl.any_horizontal(keep[c] for c in identity.TITLE_FIELDS)
    keep |= dict.fromkeys(identity.TITLE_FIELDS, titled)
    for c in UNOBSERVED:
        once = pl.col("_register").fill_null(False) & pl.col(f"_old_{c}").is_not_null()
        keep[c] = keep[c] | once if c in keep else once
    out = out.with_columns(
        [
            pl.when(k).then(pl.col(f"_old_{c}")).otherwise(pl.col(c)).alias(c)
            for c, k in keep.items()
        ]
    ).select(grouped.columns)

    clash: dict[str, list[str]] = {}
    # the titles compared as ``players --conflicts`` compares them: the register's
    # empty title is none (""), a games file's women's title is its WTit
    said = new.select("player_id", *REGISTER_NOTE_FIELDS).with_columns(
        identity.compared_titles(pl.lit(False))
    )
    said = said.join(
        old.with_columns(identity.compared_titles(pl.lit(True), prefix="_old_")),
        on="player_id",
        how="inner",
    )
    for row in said.iter_rows(named=True):
        titled = any(row[f"_given_{c}"] for c in identity.TITLE_FIELDS)
        for c in REGISTER_NOTE_FIELDS:
            here, kept = row[c], row[f"_old_{c}"]
            given = row[f"_given_{c}"]
            if c in identity.TITLE_FIELDS:  # the register's titles, an empty one too
                given, kept = titled, "" if kept is None else kept
            if not given or here is None or kept is None:
                continue
            if c == "name":
                same = identity.normalise_name(here) == identity.normalise_name(kept)
            else:
                same = here.strip().upper() == kept.strip().upper()
            if not same:
                clash.setdefault(row["player_id"], []).append(
                    f"{c} {here} here, {kept or 'none'} in the register"
                )
    if not clash:
        return out, []
    example = "; ".join(f"{p}: {', '.join(d)}" for p, d in list(clash.items())[:2])
    return out, [
        f"{len(clash)} player(s) whose name, title or federation in the file differs from "
        f"the players file's (the register's value is kept; e.g. {example})"
    ]


def _add_game_players(
    store: Store,
    games: pa.Table | None,
    raw: RawTable,
    source: str,
    batch: str,
    report: FileReport,
    ids: pa.Array | None = None,
) -> tuple[int, pa.Table | None]:
    """Merge the players a games file describes (PGN tags, TRF 001 lines), then create
    (unrated) players that games mention but the players table lacks. ``ids``: the
    distinct player ids of the games, when the games are not held whole (a streamed
    file).

    Returns the number of players created and the quarantined player rows."""
    quarantine = None
    if raw.players is not None and raw.players.height:
        described = _standard_ratings_only(raw.players, raw.frame)
        extra = RawTable(raw.path, raw.format, "players", described)
        v = validate_players(extra, source, batch)
        report.players_read = v.rows_read
        report.players_accepted = v.accepted.num_rows
        report.players_quarantined = v.quarantine.num_rows
        assert report.players_accepted + report.players_quarantined == report.players_read
        quarantine = v.quarantine
        merged = _merge_players(store, v.accepted, source)
        report.notes.extend(v.notes + merged.notes)
        if merged.changed:
            incremental.mark_all_stale(store)
    named = 0
    if {"white_name", "black_name"} & set(raw.frame.columns):  # (a streamed file: games None)
        named, notes = name_game_players(store, raw, games, source, batch, _merge_players)
        report.notes.extend(notes)
    existing = store.read_players()
    if ids is None:
        ids = pa.chunked_array(
            [games.column("white_id").combine_chunks(), games.column("black_id").combine_chunks()]
        ).unique()
    missing = pc.filter(ids, pc.invert(pc.is_in(ids, value_set=existing.column("player_id"))))
    if len(missing) == 0:
        return named, quarantine
    report.notes.extend(_ids_that_are_names(existing, missing))
    report.notes.extend(leading_zero_notes(existing.column("player_id"), missing))
    added = pa.table({"player_id": missing, "source": pa.nulls(len(missing), pa.string())})
    added = schemas.conform(added, schemas.PLAYERS)
    combined = pa.concat_tables([existing, added]).sort_by("player_id")
    store.write_players(combined)
    return named + len(missing), quarantine


def _names_given(raw: RawTable) -> bool:
    """A games file with its players' names beside their ids (readers.NAME_HEADINGS),
    read by ``name_game_players``."""
    return raw.kind == "games" and bool({"white_name", "black_name"} & set(raw.frame.columns))


def _standard_ratings_only(players: pl.DataFrame, frame: pl.DataFrame | None) -> pl.DataFrame:
    """A games file's player descriptions without the ratings of a rapid or blitz event:
    a player's stated rating goes to the players table (his standard rating, shown by
    ``arpad players``) only when he played a standard game in the file (a null pool is
    standard), or, without a game of his, when the file has a standard game or none.
    A rapid TRF's 001 ratings stay in its games alone, dated observations of the rapid
    pool, as a PGN's rapid Elo tags do (pgn._players); before, they overwrote the table's
    rating and marked every pool stale from its first period (docs/observations.md
    "Stated ratings and the players table"; the rating officer's report, round 12)."""
    if "rating" not in players.columns or frame is None or "pool" not in frame.columns:
        return players
    if not {"white_id", "black_id"} <= set(frame.columns):
        return players
    pool = pl.col("pool").cast(pl.String).str.strip_chars().str.to_lowercase()
    standard = pool.is_null() | pool.is_in(["", schemas.POOLS[0]])
    games = frame.select("white_id", "black_id", standard.alias("_standard"))
    sides = pl.concat(
        [
            games.select(pl.col("white_id").cast(pl.String).alias("player_id"), "_standard"),
            games.select(pl.col("black_id").cast(pl.String).alias("player_id"), "_standard"),
        ]
    ).filter(pl.col("player_id").is_not_null())
    own = sides.group_by("player_id").agg(pl.col("_standard").any().alias("_keep"))
    file_keeps = games.height == 0 or bool(games.get_column("_standard").any())
    keep = players.join(own, on="player_id", how="left", maintain_order="left").get_column("_keep")
    keep = keep.fill_null(file_keeps)
    if keep.all():
        return players
    return players.with_columns(
        pl.when(keep).then(pl.col("rating")).otherwise(pl.lit(None)).alias("rating")
    )


def _drop_replaced_players(store: Store, source: str, games: pa.Table, raw: RawTable) -> list[str]:
    """A new version of a PGN file: the players only its earlier version named are gone
    with it. A PGN player without a FIDE id has the file-scoped id ``SOURCE:Name``
    (pipeline/pgn.py), so no other file's games name him; his row stays only while this
    version names him, or a merge does. The case: a file read in the wrong code page,
    then again with ``--encoding`` (or after iconv), left "Opoèenský, Karel" in the
    players table beside "Opočenský, Karel" (historian, round 9; docs/ingest.md
    "Encodings")."""
    from arpad.pipeline.identity import read_aliases

    players = store.read_players()
    ids = players.column("player_id")
    scoped = pc.fill_null(pc.starts_with(ids, pattern=f"{source}:"), False)
    if not pc.any(scoped).as_py():
        return []
    still = set(pc.unique(games.column("white_id")).to_pylist())
    still |= set(pc.unique(games.column("black_id")).to_pylist())
    if raw.players is not None and raw.players.height:
        still |= set(raw.players.get_column("player_id").to_list())
    aliases = read_aliases(getattr(store, "real", store))  # (a staged view has no aliases)
    still |= set(aliases.get_column("keep").to_list()) | set(aliases.get_column("duplicate"))
    still = pa.array(sorted(i for i in still if i is not None), pa.string())
    gone = pc.and_(scoped, pc.invert(pc.is_in(ids, value_set=still)))
    if not pc.any(gone).as_py():
        return []
    dropped = players.filter(gone)
    store.write_players(players.filter(pc.invert(gone)))
    names = [n for n in dropped.column("name").to_pylist() if n][:3]
    example = f" ({', '.join(repr(n) for n in names)})" if names else ""
    return [
        f"{dropped.num_rows} player(s) only the earlier version of {source} named{example}: "
        "removed from the players table with its games"
    ]


def _repeated_rows_note(games: pa.Table, frame: pl.DataFrame | None = None) -> list[str]:
    """The note for rows of a file without game ids that repeat an earlier row exactly
    (date, period, pool, players, result, rated, event, moves; a PGN game's round too):
    stored as games of their own — a file may hold a pairing twice — but a row pasted
    twice is rated twice (the officer's attack, 2026-12-03: five copies of one row, no
    word). ``frame``: the file as read, whose ``_round`` (PGN's Round tag, by
    ``_line``) tells games apart."""
    if not games.num_rows:
        return []
    derived = pc.equal(games.column("game_id"), games.column("source"))
    rows = games.filter(pc.fill_null(derived, False))
    if rows.num_rows < 2:
        return []
    # and the moves' digest: PGN games of a match dated only to the year share date,
    # players and result, and are told apart by their moves and round (the historian's
    # attack: "88 rows repeat" on London 1851's real games, a historian following the
    # note deleted real games); a row without moves (CSV, TRF, a PGN game without
    # moves) or round has a null, equal to the other nulls
    cols = stream_ingest.REPEAT_COLUMNS
    table = pl.from_arrow(rows.select([c for c in [*cols, "source"] if c in rows.column_names]))
    if frame is not None and "_round" in frame.columns:
        line = table.get_column("source").str.extract(r":(\d+)$").cast(pl.Int64)
        rounds = frame.select(pl.col("_line").cast(pl.Int64), "_round")
        table = table.with_columns(line.alias("_line")).join(
            rounds, on="_line", how="left", maintain_order="left"
        )
    table = table.drop("source", "_line", strict=False)
    repeats = table.height - table.unique().height
    if not repeats:
        return []
    first = table.filter(table.is_duplicated()).row(0, named=True)
    return [stream_ingest.repeated_rows_text(repeats, first)]


def _ids_that_are_names(players: pa.Table, new_ids) -> list[str]:
    """The note for new player ids that are the names of stored players: a file that
    names the players (``White,Black`` holding "Smith, John") instead of giving their ids
    makes new, unrated players, and their games never count for the players meant (the
    officer's attack, 2026-12-03). Names compared without case and outer spaces."""
    named = players.filter(pc.is_valid(players.column("name")))
    if not named.num_rows or not len(new_ids):
        return []

    def key(values) -> pa.Array:
        return pc.utf8_lower(pc.utf8_trim_whitespace(values))

    hit = pc.is_in(key(new_ids), value_set=key(named.column("name")))
    if not pc.any(hit).as_py():
        return []
    found = pc.filter(new_ids, hit).to_pylist()
    found_keys = key(pa.array(found, pa.string())).to_pylist()
    by_name: dict[str, list[str]] = {}
    names = key(named.column("name")).to_pylist()
    for pid, name in zip(named.column("player_id").to_pylist(), names):
        by_name.setdefault(name, []).append(pid)
    shown = "; ".join(
        f"{pid!r} is the name of {', '.join(by_name.get(k, [])[:3])}"
        for pid, k in zip(found[:3], found_keys[:3])
    )
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return [
        f"{len(found)} new player id(s) that are the names of stored players ({shown}{more}): "
        "the file names its players instead of giving their ids? Their games are rated "
        "under these new, unrated ids. Give the ids (or arpad players merge ID NAME)"
    ]


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
        table = read_parquet_file(path)
        hit = pc.is_in(table["game_id"], value_set=incoming["game_id"].combine_chunks())
        removed += pc.sum(hit).as_py() or 0
        keep = table.filter(pc.invert(hit))
        if keep.num_rows:
            store.rewrite_game_file(path, keep)
        else:
            store.delete_game_file(path)
        pool = path.parent.parent.name.split("=", 1)[1]
        touched.append((pool, int(path.parent.name.split("=", 1)[1])))
    return removed, touched


# Columns that say what a game is (not where it was read from).
# The moves' digest is left out: a correction of a move changes no rating.
GAME_CONTENT = [
    f.name for f in schemas.GAMES if f.name not in ("source", "ingest_batch", "moves_digest")
]


def _changed_partitions(
    store: Store, old_batches: list[str], incoming: pa.Table
) -> list[tuple[str, int]]:
    """(pool, period) partitions whose games differ between the old batches of a
    source and its new content: only those make later periods stale. The same games
    read with and without --ignore-stated-ratings differ too: their stated ratings
    count otherwise (``observations.ignores_stated``)."""
    old_parts: dict[tuple[str, int], list[pa.Table]] = {}
    marks: dict[tuple[str, int], set[bool]] = {}  # whether the old batches ignore stated
    named = incoming.num_rows and "ingest_batch" in incoming.column_names
    batch_ids = incoming.column("ingest_batch") if named else None
    mark = observations.ignores_stated(batch_ids[0].as_py()) if batch_ids is not None else False
    for batch in old_batches:
        for path in store.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"):
            key = (path.parent.parent.name.split("=", 1)[1], int(path.parent.name.split("=", 1)[1]))
            marks.setdefault(key, set()).add(observations.ignores_stated(batch))
            t = read_parquet_file(path)
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
        elif marks.get((pool, period), {mark}) != {mark}:
            changed.append((pool, int(period)))
    return changed


def _resent_notes(report, manifest, previous_mask, content, resent, accepted, v1) -> None:
    """The summary's note on re-sent games. A file whose games were all stored before is
    "the same games as" the other source with its content digest; an entry an older
    arpad wrote holds a version-1 digest, computed (``v1()``) only then
    (docs/store.md "Content digest")."""
    if not resent:
        return
    twin = None
    if not accepted:
        others = manifest.filter(pc.invert(previous_mask))
        recorded = others.column("content_sha256")
        twin = others.filter(pc.fill_null(pc.equal(recorded, content), False))
        old = pc.and_(pc.is_valid(recorded), pc.invert(pc.starts_with(recorded, "v2:")))
        if not twin.num_rows and pc.any(old).as_py():
            twin = others.filter(pc.fill_null(pc.equal(recorded, v1()), False))
    if twin is not None and twin.num_rows:
        report.notes.append(
            f"the same games as {twin.column('source')[0].as_py()} (already ingested; "
            "only the bytes, line endings or name differ): nothing new stored"
        )
    else:
        report.notes.append(
            f"{resent} game(s) already stored from another file (same date, players, "
            "result and round): quarantined as duplicate_game (docs/ingest.md)"
        )


def _drop_content_duplicates(
    store: Store, v: Validated, batch: str, replaced_batches: list[str]
) -> tuple[Validated, int]:
    """Quarantine (``duplicate_game``) games that another source already stored under
    another id or none: same content key, same round where both rows name one, and not
    two different ids that their sources vouch for. Counted as a multiset: a file
    with a pairing twice on one day (double round robin) duplicates the stored
    copies one for one, and an extra occurrence is a new game. Games of one file are
    never compared with each other. Returns the games left and how many were dropped."""
    kept, dropped, _ = stream_ingest.drop_content_duplicates(
        store, v, batch, replaced_batches=replaced_batches
    )
    return kept, dropped


def _content_diff(
    store: Store, old_batches: list[str], incoming: pa.Table
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(old only, new only): the games of a source's stored version not in its new
    content, and the reverse, compared by content (ids the file derived from line
    numbers left out, so a shifted line is no change). The new-only rows carry
    ``_row``, their index in ``incoming``: the games a correction adds or changes."""

    def content(t: pa.Table) -> pl.DataFrame:
        frame = pl.from_arrow(schemas.conform(t, schemas.GAMES))
        own = pl.when(pl.col("game_id") == pl.col("source")).then(None).otherwise("game_id")
        return frame.select(own.alias("game_id"), *[c for c in GAME_CONTENT if c != "game_id"])

    old_tables = []
    for batch in old_batches:
        for path in store.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"):
            t = read_parquet_file(path)
            pool, period = path.parent.parent.name.split("=", 1)[1], path.parent.name[7:]
            t = t.append_column("pool", pa.array([pool] * t.num_rows, pa.string()))
            t = t.append_column("period", pa.array([int(period)] * t.num_rows, pa.int32()))
            old_tables.append(t)
    old = (
        content(pa.concat_tables([schemas.conform(t, schemas.GAMES) for t in old_tables]))
        if (old_tables)
        else content(incoming).clear()
    )
    new = content(incoming)

    def counted(f: pl.DataFrame) -> pl.DataFrame:
        return f.with_columns(pl.int_range(pl.len()).over(f.columns).alias("_n"))

    keys = [*old.columns, "_n"]
    old_only = counted(old).join(counted(new), on=keys, how="anti", nulls_equal=True)
    new_only = (
        counted(new)
        .with_row_index("_row")
        .join(counted(old), on=keys, how="anti", nulls_equal=True)
    )
    return old_only, new_only


def _correction_counts(old_only: pl.DataFrame, new_only: pl.DataFrame) -> tuple[int, int, int]:
    """(removed, added, changed) games of a correction against the source's stored
    version (``_content_diff``); a removed and an added game with the same game id
    count as one changed game."""
    ids = set(old_only.get_column("game_id").drop_nulls().to_list())
    changed = len(ids & set(new_only.get_column("game_id").drop_nulls().to_list()))
    return old_only.height - changed, new_only.height - changed, changed
