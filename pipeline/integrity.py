"""A damaged store: files that are not what arpad wrote (docs/store.md "A damaged store:
what was tried").

A store lives for years; people copy it, edit files by hand, restore half a backup,
open files with other tools. What arpad promises is one line naming the damaged file,
what is wrong with it and the command that repairs it (exit 2), never a traceback or a
silent wrong answer, and nothing else of the store changed.

* ``open_parquet``: every Parquet file arpad opens by itself is opened here (the store's
  ``read_parquet_file`` and the engine's games reads): a file that is not Parquet (cut
  short, replaced by a CSV, a directory, unreadable) and a file without a column arpad
  needs, or with a column of another type, raise ``InputError`` naming it. The check of
  the columns reads only the footer the open has read anyway (no extra I/O).
* ``problems``: every file of a store checked (``arpad check``); also what the CLI asks
  when a DuckDB or Arrow error escaped a command (``diagnose``), so a damaged file read
  through the catalog's views is named too. Only on that error path: a complete store
  pays nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from arpad.pipeline import schemas
from arpad.pipeline.errors import InputError

BACKUP = "restore it from a backup"


def _required(schema: pa.Schema, also: tuple[str, ...] = ()) -> pa.Schema:
    """The fields every arpad version wrote: the schema's non-nullable ones (and ``also``)."""
    return pa.schema([f for f in schema if not f.nullable or f.name in also])


# Columns a file of each kind must have (with a compatible type); other columns of the
# schema, when present, must have a compatible type too. An extra column is allowed.
GAMES_REQUIRED = _required(schemas.GAMES_FILE)
RATINGS_REQUIRED = _required(schemas.RATINGS_FILE, ("rating_after",))


def _family(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "text"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t):
        return "number"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_temporal(t):
        return "date"
    return str(t)


def repair_for(path: str | Path) -> str:
    """What to do about a damaged file, from where it lies in the store."""
    parts = Path(path).parts
    values = dict(p.split("=", 1) for p in parts if "=" in p and not p.startswith("."))
    system, pool = values.get("system"), values.get("pool", "standard")
    if system and pool.endswith(".json") and "runs" in parts:  # runs/system=S/pool=P.json
        pool = pool.removesuffix(".json")
        return (
            f"remove it and run arpad rate --system {system} --pool {pool} --full (it is "
            f"the journal of the last rate, for resuming it), or {BACKUP}"
        )
    if system and ("ratings" in parts or "state" in parts):
        return f"arpad rate --system {system} --pool {pool} --full rewrites it"
    if "published" in parts:
        return "a published list is frozen: " + BACKUP
    if parts[-2:] == ("manifest", "stale.json"):
        return (
            f"{BACKUP}, or remove it and run arpad rate --system S --pool P --full for "
            "every rated system and pool (it holds the periods corrections made stale)"
        )
    if parts[-2:] == ("manifest", "rated.json"):
        return (
            "remove it (the next arpad rate of each system and pool is then a full run; "
            f"it holds the rules of the last runs), or {BACKUP}"
        )
    if parts[-1:] == ("store.json",):
        return f"{BACKUP}, or remove it if this arpad wrote the store (it holds the store format)"
    if "quarantine" in parts:
        return f"{BACKUP}, or remove it (it holds only the rows an ingest rejected)"
    return BACKUP


def _unstaged(path: str | Path) -> Path:
    """An ingest stages copies of the store's files in ``STORE/.pending/<batch>/``
    (pipeline/journal.py): a damaged copy is named as the store's own file."""
    parts = Path(path).parts
    if ".pending" in parts:
        at = parts.index(".pending")
        return Path(*parts[:at], *parts[at + 2 :])
    return Path(path)


def damaged(path: str | Path, problem: str, repair: str | None = None) -> InputError:
    """The one-line error of a damaged store file: what is wrong and what repairs it."""
    path = _unstaged(path)
    repair = repair or repair_for(path)
    return InputError(path, None, f"{problem}: the store is damaged; {repair}")


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:160]


def schema_problem(schema: pa.Schema, required: pa.Schema, expected: pa.Schema) -> str | None:
    """A missing required column, or a column whose type is not the schema's."""
    names = set(schema.names)
    for field in required:
        if field.name not in names:
            return f"no column {field.name!r}"
    for field in expected:
        if field.name in names:
            have = schema.field(field.name).type
            if _family(have) != _family(field.type):
                return f"column {field.name!r} is {have}, not {field.type}"
    return None


def open_parquet(
    path: str | Path, required: pa.Schema | None = None, expected: pa.Schema | None = None
) -> pq.ParquetFile:
    """``pq.ParquetFile(path)``, or ``InputError`` naming a damaged file. A file that does
    not exist raises FileNotFoundError as before (callers test for it)."""
    try:
        file = pq.ParquetFile(path)
    except FileNotFoundError:
        raise
    except (OSError, pa.ArrowException) as exc:
        if isinstance(exc, IsADirectoryError) or Path(path).is_dir():
            raise damaged(path, "a directory where a Parquet file belongs") from None
        raise damaged(path, f"not a readable Parquet file ({_short(exc)})") from None
    if required is not None:
        problem = schema_problem(file.schema_arrow, required, expected or required)
        if problem is not None:
            file.close()
            raise damaged(path, problem)
    return file


_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number"}


def open_json(path: str | Path, check=None, repair: str | None = None) -> dict:
    """A JSON file of the store (``store.json``, ``manifest/stale.json``,
    ``manifest/rated.json``, ``runs/…json``, a checkpoint's ``meta.json``, a published
    list's ``manifest.json``), parsed: every one holds a JSON object. The one place arpad
    reads them, so a damaged one (cut short, edited, a directory) is ``InputError``
    naming it and its repair (``repair_for``), not a bare ``json`` message. ``check(data)``
    returns a problem of the object's content, or None. A file that does not exist raises
    FileNotFoundError (callers test for it)."""
    try:
        text = Path(path).read_bytes()
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise damaged(path, "a directory where a file belongs", repair) from None
    except OSError as exc:
        raise damaged(path, f"cannot be read ({exc.strerror or exc})", repair) from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, not UTF-8, too deep
        raise damaged(path, f"not valid JSON ({_short(exc)})", repair) from None
    if not isinstance(data, dict):
        kind = "null" if data is None else _JSON_KINDS.get(type(data), type(data).__name__)
        if isinstance(data, bool):
            kind = "true/false"
        raise damaged(path, f"not a JSON object ({kind})", repair)
    problem = check(data) if check is not None else None
    if problem is not None:
        raise damaged(path, problem, repair)
    return data


def _number(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def stale_problem(data: dict) -> str | None:
    """``manifest/stale.json``: ``{"system/pool": period}`` (pipeline/incremental.py)."""
    for key, value in data.items():
        if "/" in key and not (_number(value) and value >= 0):
            return f"the stale mark of {key!r} is {json.dumps(value)[:40]}, not a period"
    return None


def rated_problem(data: dict) -> str | None:
    """``manifest/rated.json``: ``{"system/pool": {"spec": {…}, "runs": [run ids]}}``."""
    for key, value in data.items():
        if "/" not in key:
            continue
        if not isinstance(value, dict) or not isinstance(value.get("runs", []), list):
            return f"the entry of {key!r} is not {{spec, runs}}"
    return None


def published_problem(data: dict) -> str | None:
    """A published list's ``manifest.json``: ``files`` maps each file to its sha256."""
    files = data.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return "its 'files' is not a map of file names to sha256 digests"
    return None


def open_games(path: str | Path) -> pq.ParquetFile:
    """A games partition file, checked (its footer only) to hold the columns every
    arpad version wrote: without ``rated`` a rate counted none of its games."""
    return open_parquet(path, GAMES_REQUIRED, schemas.GAMES_FILE)


def check_ratings_file(path: str | Path) -> None:
    """A ratings partition file's footer checked: without ``status`` a list showed nobody."""
    open_parquet(path, RATINGS_REQUIRED, schemas.RATINGS_FILE).close()


# -- every file of a store ------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    path: str  # relative to the store root
    problem: str
    repair: str

    def line(self) -> str:
        return f"{self.path}: {self.problem}; {self.repair}"


PERIOD = re.compile(r"^period=[1-9][0-9]{0,5}$")


def _period_ok(name: str) -> bool:
    """A period folder's name as arpad writes it: ``period=N``, N an integer in 1..999999
    (pipeline/names.py; whether N is a possible month is not the folder's business)."""
    return PERIOD.match(name) is not None


def bad_period_folder(path: Path) -> InputError:
    return damaged(
        path,
        "not a period folder (period=N, N in 1..999999)",
        "rename or remove the folder (arpad never writes such a name)",
    )


def period_of(path: Path) -> int:
    """The period of a ``period=N`` folder; ``InputError`` naming a folder of another name."""
    if not _period_ok(path.name):
        raise bad_period_folder(path)
    return int(path.name.split("=", 1)[1])


def _parts(exc: InputError) -> tuple[str, str | None]:
    """(problem, repair) of a damaged-file error: the repair is given once in a line."""
    text = exc.problem
    if ": the store is damaged; " in text:
        problem, repair = text.split(": the store is damaged; ", 1)
        return problem, repair
    if f"; {BACKUP}" in text:  # ``read_manifest``'s own wording
        return text.split(f"; {BACKUP}", 1)[0], BACKUP
    return text, None


def problems(store, first_only: bool = False) -> list[Problem]:
    """Every damaged file of ``store`` (a ``Store``), in path order."""
    from arpad.pipeline import keys as player_keys
    from arpad.pipeline.store import STORE_FILE, format_problem

    root = store.root
    found: list[Problem] = []
    opened: set[Path] = set()  # Parquet files checked by their kind's own check

    def add(path: Path, problem: str, repair: str | None = None) -> bool:
        try:
            rel = str(Path(path).relative_to(root))
        except ValueError:  # (an error naming the file otherwise)
            rel = str(path)
        found.append(Problem(rel, problem, repair or repair_for(path)))
        return first_only

    def add_error(exc: InputError, path: Path | None = None) -> bool:
        """An error of a read: its own file (``exc.path``) unless ``path`` is given."""
        problem, repair = _parts(exc)
        return add(path or _unstaged(exc.path), problem, repair)

    def parquet(path: Path, required=None, expected=None) -> pq.ParquetFile | None:
        opened.add(path)
        if path.is_dir():
            return None  # reported by the walk above
        try:
            return open_parquet(path, required, expected)
        except FileNotFoundError:  # gone since it was listed (a writer's at work): no damage
            return None
        except InputError as exc:
            add_error(exc, path)
            return None

    def json_file(path: Path, check=None) -> bool:
        """A JSON file of the store checked (``open_json``); True to stop here."""
        if path.is_dir():
            return False  # reported by the walk above
        try:
            open_json(path, check)
        except FileNotFoundError:
            return False
        except InputError as exc:
            return add_error(exc, path)
        return False

    others: list[Path] = []  # every other Parquet file (quarantine, history, …)
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or rel.parts[0] == "exports":
            # the lock, staged ingests (finished by the next writer), exports, and a
            # writer's hidden temporaries (``.period=59.….kept.tmp``) anywhere
            continue
        if path.is_symlink():
            target = path.resolve()
            # a note for ``arpad check``; never the cause ``diagnose`` names for an error
            if not first_only and root.resolve() not in target.parents:
                if add(path, f"a symlink to {target}, outside the store", "read, never written"):
                    return found
            continue
        if path.is_dir() and path.name.startswith("period=") and not _period_ok(path.name):
            if add(path, "not a period folder", "rename or remove the folder"):
                return found
        if path.is_dir() and path.suffix in (".parquet", ".json", ".duckdb"):
            # an unreadable file (arpad writes no folder of that name)
            if add(path, "a directory where a file belongs"):
                return found
        elif path.suffix == ".parquet" and rel.parts[0] != "published":  # (sha256-checked)
            others.append(path)

    if json_file(root / STORE_FILE, format_problem):
        return found
    keys = None
    if store.keys_path.exists():
        opened.add(store.keys_path)
        try:
            keys = player_keys.read_keys(store.keys_path)
        except InputError as exc:
            if add_error(exc, store.keys_path):
                return found
        except ValueError as exc:
            if add(store.keys_path, " ".join(str(exc).split())[-200:]):
                return found
    for path in store.games_dir.glob("pool=*/period=*/part-*.parquet"):
        file = parquet(path, GAMES_REQUIRED, schemas.GAMES_FILE)
        if file is None:
            if first_only and found:
                return found
            continue
        # the ids of every game read: ``arpad check`` only, not ``diagnose`` (an error
        # path, and keys never cause a DuckDB or Arrow error)
        if keys is not None and not first_only and "white_key" in file.schema_arrow.names:
            if not _keys_agree(file, keys):
                repair = f"{BACKUP} (players/keys.parquet or this file)"
                if add(path, "its player keys disagree with players/keys.parquet", repair):
                    return found
    if store.manifest_path.is_file():  # (the history is read with it: missing_batches)
        opened.update((store.manifest_path, store.history_path))
    try:
        missing = missing_batches(store)
    except InputError as exc:  # the manifest or the history: named as itself
        missing = []
        if add_error(exc):
            return found
    for batch, source, accepted in missing:
        problem = f"no file part-{batch}.parquet ({source}, {accepted} games) in the games folder"
        if add(store.manifest_path, problem, BACKUP + " (the games file)"):
            return found
    ratings = []
    for path in store.ratings_dir.glob("system=*/pool=*/period=*/part-0.parquet"):
        file = parquet(path, RATINGS_REQUIRED, schemas.RATINGS_FILE)
        if file is None and first_only and found:
            return found
        if file is not None:
            file.close()
            ratings.append(path)
    for path in store.state_dir.glob("system=*/pool=*/period=*/*.parquet"):
        if parquet(path) is None and first_only and found:
            return found
    for path in sorted(store.players_path.parent.glob("*.parquet")):
        if parquet(path) is None:
            if first_only and found:
                return found
        elif path == store.players_path:
            try:
                store.read_players()
            except InputError as exc:
                if add_error(exc, path):
                    return found
    # Files the commands refuse to go on without (their own lines): the players table
    # while games are stored, the key dictionary of games files that carry keys
    # (``check`` said "no problem found" for either deleted: hostile round 9), and the
    # observations of ingested players files (newuser round 10).
    for refuse in (
        lambda: store.players_path.exists() or store.read_players(),
        lambda: player_keys.refuse_lost_dictionary(store.keys_path),
        lambda: refuse_lost_observations(store),
    ):
        try:
            refuse()
        except InputError as exc:
            if add_error(exc):
                return found
    for path in others:  # the quarantine, and any Parquet file no check above read
        if path not in opened and parquet(path) is None and first_only and found:
            return found
    for path in sorted(store.published_dir.glob("system=*/pool=*/period=*/manifest.json")):
        try:
            listed = published_problems(path.parent)
        except InputError as exc:
            listed = []
            if add_error(exc, path):
                return found
        for name, problem in listed:
            if add(path.parent / name, problem, repair_for(path)):
                return found
    for name, check in (("stale.json", stale_problem), ("rated.json", rated_problem)):
        if json_file(store.manifest_path.parent / name, check):
            return found
    for path in sorted((root / "runs").glob("system=*/pool=*.json")):
        if json_file(path):
            return found
    for path in sorted(store.state_dir.glob("system=*/pool=*/period=*/meta.json")):
        if json_file(path):
            return found
    catalog = catalog_problem(store)
    if catalog is not None and add(store.catalog_path, *catalog):
        return found
    for path in ratings:  # last: it reads a column of every ratings file
        unknown = _unknown_statuses(path)
        if unknown and add(path, f"status {unknown!r} is not one of {', '.join(STATUSES)}"):
            return found
    return sorted(found, key=lambda p: p.path)


def catalog_problem(store) -> tuple[str, str] | None:
    """(problem, repair) of a ``catalog.duckdb`` that lacks views arpad defines: on a
    nearly full disk DuckDB wrote the catalog without them and arpad kept it (until
    round 12), so an analyst's DuckDB on it found no ``ratings`` (arpad's own commands
    define the views themselves then: pipeline/catalog.py ``connect``). A file DuckDB
    does not open (another DuckDB version's) is not damage: the next writing command
    rebuilds it (docs/store.md "Catalog")."""
    path = store.catalog_path
    if not path.is_file() or path.is_symlink():
        return None
    import duckdb

    from arpad.pipeline.catalog import VIEW_NAMES, missing_views

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        missing = missing_views(con)
    except duckdb.Error:
        return None
    finally:
        con.close()
    if not missing:
        return None
    shown = ", ".join(missing[:4]) + (", …" if len(missing) > 4 else "")
    problem = f"holds {len(VIEW_NAMES) - len(missing)} of its {len(VIEW_NAMES)} views (no {shown})"
    repair = (
        "remove it: the next arpad ingest or rate writes it again "
        "(free some disk space first if the disk is full)"
    )
    return problem, repair


def notes(store) -> list[str]:
    """What ``arpad check`` tells the officer that is not damage (exit 0 still): an ingest
    a killed (or still running) process left staged in ``STORE/.pending``
    (pipeline/journal.py). Not committed: nothing of it is in the store, the next
    writing command discards it, and the file must be ingested again (a players merge
    or split, staged the same way: the command must be run again). Committed: the
    next writing command completes it. Read-only: nothing is recovered here."""
    from arpad.pipeline import journal

    out = []
    busy = writer_busy(store.root)
    for staged in journal.staged_ingests(store):
        batch = staged["batch"]
        players = staged.get("players")  # a players merge or split, staged as an ingest is
        what = (
            f"the players {players} of batch {batch}" if players else f"the ingest of batch {batch}"
        )
        if staged["path"]:
            source = staged["source"]
            named = f" (source {source})" if source and source != staged["path"] else ""
            what += f", file {staged['path']}{named}"
        if staged["started"]:
            what += f", started {staged['started']}"
        # (a comma closes the file and time only: "… of batch merge-…, was" read wrong)
        what += "," if staged["path"] or staged["started"] else ""
        where = f"{journal.PENDING}/{batch}"
        if busy:
            out.append(
                f"{where}: {what} is staged while {busy} holds the store's writer lock: "
                "it may still be running; run arpad check again when it has finished"
            )
        elif staged["committed"]:
            out.append(
                f"{where}: {what} was interrupted after its commit: the store may show part "
                "of it; the next writing command (any arpad ingest, rate, recalculate) "
                "completes it"
            )
        else:
            again = rerun(staged, store.root) if players else "the file must be ingested again"
            out.append(
                f"{where}: {what} was interrupted before its commit: nothing of it is in "
                f"the store, the next writing command discards it, and {again}"
            )
    return out


def rerun(staged: dict, root) -> str:
    """What to run again after a players merge or split killed before its commit
    (``journal.staged_ingests``' row): the command with its ids when the staged batch
    recorded its pairs (``journal.recording``), one command for pairs of one keep (as
    ``arpad players merge KEEP DUP...`` takes them), else the pairs and the mapping
    file; without a record, ``the players merge must be run again``."""
    from arpad.pipeline.errors import shell_word

    action, pairs = staged["players"], staged.get("pairs")
    if not pairs:
        return f"the players {action} must be run again"
    force = " --force" if staged.get("force") else ""
    tail = f"{force} --store {shell_word(root)}"
    keeps = list(dict.fromkeys(keep for keep, _ in pairs))
    if len(keeps) == 1 and (action == "merge" or len(pairs) == 1):
        ids = " ".join(shell_word(x) for x in [keeps[0], *(dup for _, dup in pairs)])
        return f"the players {action} must be run again: arpad players {action} {ids}{tail}"
    shown = "; ".join(f"{keep} {dup}" for keep, dup in pairs[:3])
    more = f"; and {len(pairs) - 3} more" if len(pairs) > 3 else ""
    return (
        f"the players {action} of {len(pairs)} pairs (keep duplicate: {shown}{more}) must be "
        f"run again: arpad players {action} --mapping FILE{tail}, with the mapping file "
        "it was given"
    )


def interrupted_rates(store) -> list[str]:
    """The other note of ``arpad check`` (exit 0 still): an ``arpad rate`` a kill left
    interrupted, its run journal (``STORE/runs/system=S/pool=P.json``) still saying
    ``running`` (``incremental.interrupted``, what ``arpad list`` warns of and
    ``publish`` refuses). Not damage: running the rate again replaces the mixture.
    A journal that is not JSON is a problem ``problems`` names already."""
    from arpad.pipeline import incremental

    out = []
    for path in sorted((store.root / "runs").glob("system=*/pool=*.json")):
        system = path.parent.name.removeprefix("system=")
        pool = path.name.removeprefix("pool=").removesuffix(".json")
        try:
            if not incremental.interrupted(store, system, pool):
                continue
        except (InputError, OSError, ValueError):
            continue
        out.append(
            f"{path.relative_to(store.root)}: the last arpad rate of {system}/{pool} was "
            "interrupted (its journal still says running): its periods may mix two runs, "
            f"so arpad publish refuses them; run arpad rate --system {system} --pool {pool} "
            "again"
        )
    return out


def gameless_ratings(store) -> list[str]:
    """The third note of ``arpad check`` (exit 0 still): ratings of a pool that holds no
    game now (all its games moved to another pool with ``--pool``, or its source corrected
    to no game). ``arpad list`` shows them as out of date; ``arpad rate`` of that pool
    removes them (``jobs.drop_gameless_ratings``; docs/store.md "A pool left with no
    games")."""
    with_games = set(store.pools())
    out = []
    for system, pool in store.rated():
        if pool in with_games:
            continue
        try:
            periods = store.rating_periods(system, pool)
        except (InputError, OSError, ValueError):
            continue  # a damaged ratings folder: ``problems`` names it
        if periods:
            out.append(
                f"ratings/system={system}/pool={pool}: {len(periods)} period(s) of ratings "
                f"of pool {pool}, which holds no games now (moved to another pool or "
                f"corrected away); arpad rate --system {system} --pool {pool} removes them "
                "(published lists stay)"
            )
    return out


def writer_busy(root: Path) -> str | None:
    """Who holds the store's writer lock (``STORE/.lock``) now, or None: probed without
    taking it for longer than the probe, and without writing (a read-only store too)."""
    import fcntl
    import os

    from arpad.pipeline.store import _lock_holder

    path = Path(root) / ".lock"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _lock_holder(path)
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


STATUSES = schemas.RATING_STATUSES  # docs/schemas.md: the values of a ratings row's status


def _unknown_statuses(path: Path) -> str | None:
    """The first status of a ratings file that is not a documented one (None if none). Read
    as a dictionary (the engine writes the column as a dictionary of exactly those values):
    only the dictionary is compared unless it holds another value, so no string is
    decoded per row (~15 ms a 500k-player file)."""
    import pyarrow.compute as pc

    try:
        with pq.ParquetFile(path, read_dictionary=["status"]) as file:
            column = file.read(columns=["status"]).column("status")
    except (OSError, pa.ArrowException):
        return None  # its footer read: a damaged page is DuckDB's to name
    for chunk in column.chunks:
        values = chunk.dictionary if pa.types.is_dictionary(chunk.type) else chunk
        if not pc.all(pc.is_in(values.drop_null(), pa.array(STATUSES))).as_py():
            used = pc.unique(chunk.dictionary_decode() if values is not chunk else chunk)
            for value in used.drop_null().to_pylist():
                if value not in STATUSES:
                    return value
    return None


def _keys_agree(file: pq.ParquetFile, keys: pa.Array) -> bool:
    """Every game's ids are the dictionary's ids of its keys."""
    import pyarrow.compute as pc

    table = file.read(columns=["white_id", "black_id", "white_key", "black_key"])
    for ids, key in (("white_id", "white_key"), ("black_id", "black_key")):
        k = table.column(key)
        if k.null_count or not len(k):  # (an empty file: a merge took out all its games)
            continue
        if len(k) and pc.max(k).as_py() >= len(keys):
            return False
        if not pc.all(pc.equal(keys.take(k.combine_chunks()), table.column(ids))).as_py():
            return False
    return True


def published_problems(folder: Path) -> list[tuple[str, str]]:
    """(file name, problem) of every file of a published list whose sha256 differs from
    its ``manifest.json`` (or that is gone)."""
    manifest = open_json(folder / "manifest.json", published_problem)
    out = []
    for name, digest in sorted(manifest.get("files", {}).items()):
        path = folder / name
        if not path.is_file():
            out.append((name, "missing from a published list"))
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            out.append(
                (name, "edited since it was published (its sha256 differs from manifest.json)")
            )
    return out


def diagnose(store) -> InputError | None:
    """The first damaged file of ``store``, as the error to show, or None. Called when a
    DuckDB or Arrow error escaped a command: the views read the store's files by glob, so
    their errors may not say which file is damaged (or say it as a stack of text)."""
    try:
        if not store.root.is_dir():
            return None
        found = problems(store, first_only=True)
    except Exception:  # the diagnosis must never hide the original error
        return None
    if not found:
        return None
    p = found[0]
    return InputError(store.root / p.path, None, f"{p.problem}: the store is damaged; {p.repair}")


def missing_batches(store) -> list[tuple[str, str, int]]:
    """(batch, source, accepted games) of each games source of the manifest with stored
    games but no games file left (deleted by hand, half a backup restored). A store where
    ``ingest --replace`` was ever used is not checked: replacing every game of another
    source's file deletes that file, and the manifest keeps its count."""
    if not store.manifest_path.is_file():
        return []
    manifest = store.read_manifest()
    if "replace" in store.read_history().column("action").to_pylist():
        return []
    present = {p.stem.removeprefix("part-") for p in store.games_dir.glob("pool=*/period=*/*")}
    columns = (manifest.column(c).to_pylist() for c in ("batch", "kind", "accepted", "source"))
    return [
        (batch, source, accepted)
        for batch, kind, accepted, source in zip(*columns)
        if kind == "games" and accepted and batch not in present
    ]


def refuse_lost_observations(store) -> None:
    """``players/observations.parquet`` missing while the manifest lists a players file:
    every players-file ingest writes it (identity.record_observations), so it was deleted
    (or half a backup restored). Without it ``rate`` seeds every pool with the players
    table's (standard) rating, and the next ingest would rewrite it with one source's
    rows (newuser round 10). A store that never wrote it (players written directly, not
    through ingest) is not refused. A stat; two columns of the manifest are read only
    when the file is missing (an unreadable manifest is named where it is read)."""
    from arpad.pipeline.observations import observations_path

    path = observations_path(store)
    if path.exists() or not store.manifest_path.is_file():
        return
    try:
        with pq.ParquetFile(store.manifest_path) as file:
            manifest = file.read(columns=["kind", "source"])
    except (OSError, ValueError, KeyError, pa.ArrowException):
        return
    kinds = manifest.column("kind").to_pylist()
    given = [s for s, k in zip(manifest.column("source").to_pylist(), kinds) if k == "players"]
    if given:
        raise damaged(
            path,
            f"missing while players files are stored ({given[0]} in the manifest)",
            BACKUP + " (without it every pool would start from the players table's rating)",
        )


def check_batches(store) -> None:
    """Before a rate: a games source whose files are all gone would be rated as if it had
    no games (a silent wrong answer); refused naming it. One manifest read and one listing
    of the games files' names: nothing per game. The run journals (``runs/…json``, a few
    bytes each), which the resumable run reads first (pipeline/resume.py), are parsed
    here too, so a damaged one is named with its repair."""
    for path in sorted((store.root / "runs").glob("system=*/pool=*.json")):
        if not path.is_dir():
            open_json(path)
    refuse_lost_observations(store)  # (else rapid seeded from standard ratings)
    missing = missing_batches(store)
    if missing:
        batch, source, accepted = missing[0]
        raise damaged(
            store.games_dir,
            f"no file part-{batch}.parquet ({source}, {accepted} games; "
            f"{store.manifest_path.name} lists it)",
            BACKUP + " (the games folder; arpad check lists every damaged file)",
        )
