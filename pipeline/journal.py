"""One ingest = one atomic transition of the store (write-then-swap with a journal).

An ingest (above all a correction: old games out, new games in, stale marks,
manifest) touches several files. Killed half-way, the store would hold the old
and the new games at once, or the new games without their stale mark. So
``ingest_file`` writes nothing under a final name while it works: a
``StagedStore`` sends every write to ``STORE/.pending/<batch>/`` (games
partitions, quarantine, players, observations, stale marks, manifest) and
records deletions instead of doing them. When everything is staged,
``plan.json`` is written (atomically): that is the commit point. Then
``apply`` moves the staged files into place and deletes the old files, in
plan order, and removes the staging directory.

``recover`` runs on the next writer-lock acquisition (every writing command) and
at the start of every ingest: a staging directory with a plan is rolled
forward (each step is idempotent, so a second crash during recovery is
harmless), one without a plan is deleted (rolled back: nothing visible had
changed, and re-running the ingest redoes it). docs/operations.md
"Guarantees and limits: corrections and duplicates".

``crash_point(name)`` kills the process with SIGKILL when ``ARPAD_CRASH_AT``
names that point (tests/test_crash_points.py enumerates ``CRASH_POINTS``); it
costs one string comparison otherwise.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import os
import shutil
import signal
from pathlib import Path

from arpad.pipeline.store import Store, atomic_write_text, before_change

PENDING = ".pending"
PLAN = "plan.json"
# What the staged ingest is of (the file, its source), when its caller said it
# (``StagedStore(..., path=, source=)`` or ``recording``): named by ``arpad check``.
ABOUT = "ingest.json"
_RECORDING: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "arpad_ingest_recording", default=None
)


@contextlib.contextmanager
def recording(path, source: str | None = None, pairs=None, force: bool = False):
    """Within it, a staged ingest records which file it is of (``ABOUT``), so that an
    ingest killed before its commit is named with its file (``staged_ingests``); a
    players merge or split (``path`` None) records its (keep, duplicate) ``pairs`` and
    ``--force``, so that ``arpad check`` names the command to run again."""
    about: dict = {"path": str(path), "source": source} if path is not None else {}
    if pairs:
        about.update(pairs=[[str(keep), str(dup)] for keep, dup, *_ in pairs], force=force)
    token = _RECORDING.set(about)
    try:
        yield
    finally:
        _RECORDING.reset(token)


_CRASH_AT = os.environ.get("ARPAD_CRASH_AT")

# Every step boundary of an ingest's transition, in order (tests kill at each).
CRASH_POINTS = (
    "correction:staged-games",  # new games staged, nothing else
    "correction:before-commit",  # everything staged, no plan yet
    "correction:after-commit",  # plan written, nothing applied
    "correction:after-add",  # new games files in place, old ones still there
    "correction:after-remove",  # old games files gone, stale mark not yet written
    "correction:after-stale",  # stale marks written, manifest not yet
    "correction:after-manifest",  # every file in place, staging not removed
)


def crash_point(name: str) -> None:
    """SIGKILL this process when ``ARPAD_CRASH_AT`` equals ``name`` (crash tests only)."""
    if _CRASH_AT is not None and _CRASH_AT == name:
        os.kill(os.getpid(), signal.SIGKILL)


def pending_dir(store: Store) -> Path:
    return store.root / PENDING


class StagedStore(Store):
    """A view of ``store`` whose writes land in a staging directory.

    Reads of games, ratings and state see the real store; players, observations,
    stale marks and the manifest are hard-linked (or copied) into the staging
    directory first, so reads see this ingest's own earlier writes."""

    def __init__(
        self, store: Store, batch: str, path: str | None = None, source: str | None = None
    ):
        super().__init__(store.root)
        self.real = store
        self.stage = pending_dir(store) / batch
        shutil.rmtree(self.stage, ignore_errors=True)
        # A command that fails (an exception, not a kill) removes the staging area with
        # the rest of its changes (the writer lock's undo journal, pipeline/store.py).
        before_change(self.stage)
        self.stage.mkdir(parents=True)
        about = {"path": str(path), "source": source} if path else _RECORDING.get()
        if about:  # which file this is, for ``arpad check`` after a kill
            when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
            about = {"batch": batch, **about, "started": when}
            atomic_write_text(json.dumps(about) + "\n", self.stage / ABOUT)
        self.moves: list[tuple[str, str, str]] = []  # (step, staged, final), relative
        self.deletes: list[str] = []
        for final in (
            store.players_path,
            store.keys_path,
            store.players_path.parent / "observations.parquet",
            store.manifest_path.parent / "stale.json",
            store.history_path,
            store.manifest_path,
        ):
            if final.exists():
                staged = self._staged(final)
                staged.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(final, staged)
                except OSError:
                    shutil.copy2(final, staged)

    def _staged(self, final: Path) -> Path:
        return self.stage / final.relative_to(self.root)

    # Files kept in the staging directory until the plan is applied.
    @property
    def players_path(self) -> Path:
        return self._staged(self.real.players_path)

    @property
    def manifest_path(self) -> Path:
        return self._staged(self.real.manifest_path)

    @property
    def history_path(self) -> Path:
        return self._staged(self.real.history_path)

    @property
    def keys_path(self) -> Path:
        return self._staged(self.real.keys_path)

    def write_games(self, games, batch):
        written = Store(self.stage).write_games(games, batch)
        self.staged_games(written, batch)
        return written

    def game_file(self, pool: str, period: int, batch: str) -> Path:
        """Where this ingest stages the games file of a partition."""
        return Store(self.stage).game_partition(pool, period) / f"part-{batch}.parquet"

    def staged_games(self, written, batch) -> None:
        """Record games files staged at ``game_file`` (and the key dictionary)."""
        if written:  # the key dictionary lands before any games file that uses its keys
            self._move("games", self.real.keys_path)
        for pool, period in written:
            final = self.real.game_partition(pool, period) / f"part-{batch}.parquet"
            self._move("games", final)

    def remove_batch_games(self, batch):
        touched = []
        for path in self.real.games_dir.glob(f"pool=*/period=*/part-{batch}.parquet"):
            touched.append(
                (path.parent.parent.name.split("=", 1)[1], int(path.parent.name.split("=", 1)[1]))
            )
            self.deletes.append(str(path.relative_to(self.root)))
        return touched

    def rewrite_game_file(self, path: Path, table) -> None:
        from arpad.pipeline.store import atomic_write_parquet

        atomic_write_parquet(table, self._staged(path))
        self._move("games", path)

    def delete_game_file(self, path: Path) -> None:
        self.deletes.append(str(path.relative_to(self.root)))

    def write_quarantine(self, rows, batch):
        staged = Store(self.stage).write_quarantine(rows, batch)
        if staged is not None:
            self._move("quarantine", self.real.quarantine_dir / f"batch={batch}" / "part-0.parquet")
        return staged

    def _move(self, step: str, final: Path) -> None:
        rel = str(final.relative_to(self.root))
        if not any(m[2] == rel for m in self.moves):
            self.moves.append((step, str(self._staged(final).relative_to(self.root)), rel))

    def commit(self) -> dict:
        """Write the plan (the commit point) and return it."""
        for final, step in (
            (self.real.players_path, "players"),
            (self.real.keys_path, "players"),
            (self.real.players_path.parent / "observations.parquet", "players"),
            (self.real.manifest_path.parent / "stale.json", "stale"),
            (self.real.history_path, "manifest"),
            (self.real.manifest_path, "manifest"),
        ):
            if self._staged(final).exists():
                self._move(step, final)
        plan = {"moves": [list(m) for m in self.moves], "deletes": self.deletes}
        crash_point("correction:before-commit")
        atomic_write_text(json.dumps(plan, indent=1), self.stage / PLAN)
        crash_point("correction:after-commit")
        return plan


# Steps in the order they are applied; a crash point follows each.
_ORDER = (
    ("games", "correction:after-add"),
    ("delete", "correction:after-remove"),
    ("quarantine", None),
    ("players", None),
    ("stale", "correction:after-stale"),
    ("manifest", "correction:after-manifest"),
)


def apply(store: Store, stage: Path, plan: dict) -> None:
    """Move the staged files into place and delete the replaced ones (idempotent)."""
    root = store.root
    for step, point in _ORDER:
        if step == "delete":
            for rel in plan["deletes"]:
                before_change(root / rel)
                with contextlib.suppress(FileNotFoundError):
                    (root / rel).unlink()
        else:
            for kind, staged, final in plan["moves"]:
                if kind != step:
                    continue
                src, dest = root / staged, root / final
                if src.exists():  # else moved by an earlier, interrupted apply
                    before_change(dest)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(src, dest)
        if point:
            crash_point(point)
    shutil.rmtree(stage, ignore_errors=True)
    with contextlib.suppress(OSError):
        stage.parent.rmdir()  # STORE/.pending exists only while an ingest is under way


def read_plan(store: Store, path: Path) -> dict:
    """A staged ingest's ``plan.json``, checked: a JSON object of ``moves`` ([step,
    staged, final] each) and ``deletes``, every path inside the store (a plan edited to
    name ``../x`` would move or delete a file outside it). Damaged: ``InputError`` naming
    it (the plan is written atomically, so only another hand or tool damages it)."""
    from arpad.pipeline.errors import InputError
    from arpad.pipeline.store import inside

    def refuse(problem: str) -> InputError:
        return InputError(
            path,
            None,
            f"{problem}: the plan of an interrupted ingest; the store is damaged; "
            "restore the store from a backup",
        )

    try:
        plan = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        raise refuse(f"not a readable JSON file ({' '.join(str(exc).split())[:120]})") from None
    moves = plan.get("moves") if isinstance(plan, dict) else None
    deletes = plan.get("deletes") if isinstance(plan, dict) else None
    if not isinstance(moves, list) or not isinstance(deletes, list):
        raise refuse("not an ingest plan (moves and deletes)")
    steps = {step for step, _ in _ORDER}
    for move in moves:
        if not (
            isinstance(move, list)
            and len(move) == 3
            and all(isinstance(m, str) for m in move)
            and move[0] in steps
        ):
            raise refuse(f"not an ingest plan (a move {json.dumps(move)[:60]})")
    for rel in [*(m[i] for m in moves for i in (1, 2)), *deletes]:
        try:
            if not isinstance(rel, str) or not rel or Path(rel).is_absolute():
                raise ValueError(rel)
            inside(store.root, store.root / rel)
        except ValueError:
            raise refuse(f"a path outside the store ({json.dumps(rel)[:60]})") from None
    return plan


def recover(store: Store) -> list[str]:
    """Finish (or undo) the ingests a killed process left in ``STORE/.pending``.

    Returns one line per staging directory handled."""
    base = pending_dir(store)
    if not base.is_dir():
        return []
    done = []
    for stage in sorted(p for p in base.iterdir() if p.is_dir()):
        plan_path = stage / PLAN
        # a players merge or split is staged as an ingest is (pipeline/identity.py)
        action = stage.name.split("-", 1)[0]
        what = f"players {action}" if action in ("merge", "split") else "ingest"
        if plan_path.exists():
            apply(store, stage, read_plan(store, plan_path))
            done.append(f"completed the interrupted {what} of batch {stage.name}")
        else:
            shutil.rmtree(stage, ignore_errors=True)
            done.append(f"discarded the unfinished {what} of batch {stage.name}")
    with contextlib.suppress(OSError):
        base.rmdir()
    return done


def staged_ingests(store: Store) -> list[dict]:
    """Read-only, for ``arpad check``: the ingests a process left in ``STORE/.pending``
    (killed, or still running): per staging directory {batch, committed, path, source,
    started}. ``committed``: its plan is written, so the next writing command completes
    it (the store may show part of it until then); else nothing of it is in the store and
    the next writing command discards it: the file must be ingested again. ``path`` and
    ``source`` are None unless the ingest recorded them (``ABOUT``); ``players`` is
    ``merge`` or ``split`` for a staged players merge or split (there is no file: the
    command must be run again), else None; ``pairs`` its recorded [keep, duplicate]
    pairs (None when not recorded) and ``force`` whether it was given ``--force``."""
    base = pending_dir(store)
    if not base.is_dir() or base.is_symlink():
        return []
    out = []
    for stage in sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()):
        about: dict = {}
        with contextlib.suppress(OSError, ValueError, RecursionError):
            data = json.loads((stage / ABOUT).read_bytes())
            if isinstance(data, dict):
                about = data

        text = {k: v for k, v in about.items() if isinstance(v, str) and v}
        action = stage.name.split("-", 1)[0]  # a players merge or split (as ``recover``)
        pairs = about.get("pairs")
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in pairs
        ):
            pairs = None
        out.append(
            {
                "batch": stage.name,
                "players": action if action in ("merge", "split") else None,
                "committed": (stage / PLAN).is_file(),
                "path": text.get("path"),
                "source": text.get("source"),
                "started": text.get("started"),
                "pairs": pairs or None,
                "force": about.get("force") is True,
            }
        )
    return out
