"""``arpad.backtest`` and ``arpad.whatif``: the jobs of ``arpad backtest`` and ``arpad
whatif`` (pipeline/jobs.py) from a notebook, with the arguments checked where the
analyst typed them (docs/api.md "Backtest and what-if"); and ``Store.identify``,
``Store.merge`` and ``Store.split``: ``arpad players identify|merge|split`` (docs/api.md
"Players under several ids")."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from arpad import _args, _interrupt

BACKTEST_PARAMETERS = ("data", "systems", "data_dir", "flow", "cluster", "workers")
WHATIF_PARAMETERS = (
    "games", "rules", "vs", "players", "pool", "start", "end", "top", "mapping", "errors",
    "flow", "cluster", "workers",
)  # fmt: skip


def _run(job: str, request, flow, cluster, workers):
    """The job as ``arpad JOB`` runs it (``api.launch_job``), ``flow`` and ``cluster``
    checked first."""
    from arpad.api import launch_job

    if flow is not None and not isinstance(flow, bool):
        raise TypeError(f"flow: True or False, got {type(flow).__name__} {flow!r}")
    if cluster is not None and not isinstance(cluster, str):
        raise TypeError(
            f"cluster: a scheduler address like 'tcp://HOST:PORT', got {type(cluster).__name__}"
        )
    return launch_job(job, request, bool(flow), cluster, workers)


def system_list(systems: Any) -> list[str] | None:
    """``systems`` as ``--system`` takes it: ``"all"`` (or None) for every system, one
    name, ``"elo,glicko"``, or a list/tuple of names; None means every system."""
    from arpad.pipeline import jobs

    if systems is None:
        return None
    if isinstance(systems, str):
        names = [s.strip() for s in systems.split(",") if s.strip()]
        if names == ["all"]:
            return None
    elif isinstance(systems, Iterable) and not isinstance(systems, Mapping | bytes):
        names = list(systems)
        odd = next((s for s in names if not isinstance(s, str)), None)
        if odd is not None:
            raise TypeError(f"systems: system names (str), got {type(odd).__name__} {odd!r}")
    else:
        raise TypeError(
            f"systems: a system name, 'a,b', a list of names or 'all', got {type(systems).__name__}"
        )
    if not names:
        raise ValueError("systems: give at least one system name (or 'all')")
    try:
        jobs._check_systems(names)
    except ValueError as exc:
        raise ValueError(f"systems: {exc}") from None
    return names


@_interrupt.interruptible
def backtest(
    data: str = "kaggle2010",
    systems: Any = "all",
    *,
    data_dir: str | os.PathLike | None = None,
    flow: bool = False,
    cluster: str | None = None,
    workers: int | None = None,
) -> pl.DataFrame:
    """The table of ``arpad backtest --data DATA --system SYSTEMS`` (docs/backtest.md).

    ``data``: ``"kaggle2010"`` or ``"deloitte2011"`` (the contests' protocols,
    docs/analysis.md "Protocols"); ``systems``: ``"all"``, a name, ``"elo,glicko"`` or a
    list of names; ``data_dir``: the folder with the contest files (default: ``data/real``
    of the working directory, else of the source checkout, as the command). One row per
    system (and per draw-model row): validation score, each target's score and
    three-outcome log-loss, the tuned settings and a note; the same values as the
    command's ``--format csv``/``parquet``. ``workers=N``/``cluster=…`` score the
    systems' settings side by side on Dask; ``flow=True`` as a tracked Prefect flow.
    Returns a polars DataFrame. An unknown protocol or system is a ``ValueError``, games
    of your own (not a protocol name) a ``TypeError``, a missing ``data_dir`` a
    ``FileNotFoundError``."""
    _interrupt.for_rating("arpad.pipeline.backtest")
    from arpad.pipeline import backtest as bt
    from arpad.pipeline.commands.analysis import default_data_dir
    from arpad.pipeline.jobs import BacktestRequest

    if not isinstance(data, str):
        raise TypeError(
            f"data: the name of a backtest protocol ({', '.join(bt.DATASETS)}), got "
            f"{type(data).__name__} (games of your own: arpad.rate, then arpad.predict)"
        )
    if data not in bt.DATASETS:
        raise ValueError(f"data: unknown backtest data {data!r} (known: {', '.join(bt.DATASETS)})")
    names = system_list(systems)
    if data_dir is None:
        folder = default_data_dir()
    elif isinstance(data_dir, str | os.PathLike):
        folder = Path(data_dir).expanduser()
    else:
        raise TypeError(f"data_dir: a folder path, got {type(data_dir).__name__}")
    if not folder.is_dir():
        raise FileNotFoundError(f"data_dir: no data folder at {folder}")
    request = BacktestRequest(data, str(folder), names)
    return bt.result_frame(_run("backtest", request, flow, cluster, workers))


def _rules_spec(value: Any, what: str) -> str:
    """One side of a what-if: a ``--rules`` spec (a date, a JSON file) or ``"dated"``."""
    if isinstance(value, os.PathLike):
        return str(Path(value).expanduser())
    value = _args.date_text(value)  # a date, Timestamp or monthly Period: the date it names
    if not isinstance(value, str):
        raise TypeError(
            f"{what}: a --rules spec (a date such as '2014-07', a JSON file, or 'dated' "
            f"for the versions in force), got {type(value).__name__}"
        )
    return value


def _check_rules_spec(spec: str, what: str, pool: str) -> None:
    from arpad.pipeline import whatif as w

    try:
        w.resolve(spec, pool)
    except (ValueError, FileNotFoundError) as exc:
        raise ValueError(f"{what}: {exc}") from None


def _store_root(games: Any) -> str | None:
    """The store ``games`` names (an ``arpad.Store``, or a folder holding a store), or
    None when ``games`` are games (a file or a table)."""
    from arpad.api import Store

    if isinstance(games, Store):
        return str(games._existing.root)
    if isinstance(games, str | os.PathLike) and Path(games).expanduser().is_dir():
        from arpad.pipeline.jobs import _existing_store

        root = Path(games).expanduser().resolve()
        try:
            return str(_existing_store(str(root)).root)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"games: {root} is a folder with no store in it (give a store, a games file "
                "or a table of games)"
            ) from None
    return None


def _table_file(data: Any, what: str, folder: Path) -> str:
    """``data`` as a file ``arpad ingest`` reads: a path as it is, a table written as
    Parquet (read back as the Python API reads a DataFrame: docs/ingest.md)."""
    if isinstance(data, str | os.PathLike):
        return str(Path(data).expanduser())
    import pyarrow.parquet as pq

    from arpad.api import _arrow

    path = folder / f"{what}.parquet"
    from arpad._tables import extra_columns_as_text

    pq.write_table(extra_columns_as_text(_arrow(data, what)), path)
    return str(path)


def _scratch_store(
    games,
    players,
    mapping: str | None,
    errors: str,
    folder: Path,
    start: int | None,
    pool: str = "standard",
) -> str:
    """A store in ``folder`` holding ``games`` (and ``players``), rejected rows raising
    ``InputError`` unless ``errors="skip"``, as ``arpad.rate`` does. With ``start`` the
    store's ``pool`` is rated with FIDE's versions in force first (``arpad rate --system
    fide --pool POOL``), so that both sides start from the ratings before ``start``, as
    ``--from`` needs. No published rating of ``pool`` (a standard rating is no rapid one,
    docs/observations.md): a ValueError, as ``arpad rate`` refuses it."""
    from arpad.api import _validated
    from arpad.pipeline import launch
    from arpad.pipeline.jobs import (
        IngestRequest,
        RateRequest,
        has_published_ratings,
        rated_pools,
    )
    from arpad.pipeline.store import Store
    from arpad.pipeline.systems import FIDE_SYSTEM

    _validated(games, "games", mapping, errors)
    if players is not None:
        _validated(players, "players", None, errors)
    games_file = _table_file(games, "games", folder)
    players_files = [] if players is None else [_table_file(players, "players", folder)]
    root = folder / "store"
    launch.run("ingest", IngestRequest(str(root), [games_file], players_files, None, mapping))
    store = Store(root)
    if not has_published_ratings(store):
        raise ValueError(
            f"players: {FIDE_SYSTEM} needs published starting ratings: give players= with a "
            "rating column (player_id, rating, rated_games, …), or games that carry ratings"
        )
    if not has_published_ratings(store, pool):
        raise ValueError(  # as arpad.rate says it (api._check_starting_ratings)
            f"players: {FIDE_SYSTEM} needs published starting ratings of the {pool} pool: "
            f"the players and games give {' and '.join(rated_pools(store))} ratings only, "
            "and a pool's ratings seed that pool alone (docs/observations.md): give "
            f"players= with a {pool}_rating column or rows with pool {pool}"
        )
    if start is not None:
        launch.run("rate", RateRequest(str(root), FIDE_SYSTEM, pool, end=start - 1))
    return str(root)


@_interrupt.interruptible
def whatif(
    games: Any,
    rules: Any,
    vs: Any,
    *,
    players: Any = None,
    pool: str = "standard",
    start: Any = None,
    end: Any = None,
    top: int = 10,
    mapping: str | None = None,
    errors: str = "raise",
    flow: bool = False,
    cluster: str | None = None,
    workers: int | None = None,
):
    """``arpad whatif --rules RULES --vs VS``: the same games replayed under two FIDE rule
    sets (pipeline/whatif.py, docs/fide-history.md).

    ``games``: an ``arpad.Store`` or a store folder (replayed as ``arpad whatif --store``
    does, the store untouched), or games as ``arpad.rate`` takes them (a polars/pandas
    DataFrame, an Arrow table, a dict of columns, rows as dicts, or a games file) with
    ``players`` giving the published ratings FIDE starts from; those are ingested into a
    temporary store, removed afterwards. ``rules``/``vs``: ``--rules`` specs (a date such
    as ``"2022-01"``, a JSON rules file, or ``"dated"``: the versions in force). ``start``,
    ``end``: ``--from``/``--to``; ``top``: the biggest movers kept.

    Returns the ``WhatIf`` (pipeline/whatif.py): ``movers``, ``distribution`` and
    ``crossings`` as polars DataFrames (the Parquet tables of ``--output DIR``), with
    ``rules_a``, ``rules_b`` and ``periods``. A bad rules spec or period is a
    ``ValueError`` naming the argument; rejected rows of in-memory games an
    ``InputError`` (``errors="skip"`` leaves them out); games without any published
    rating a ``ValueError`` naming ``players`` (docs/api.md "Backtest and what-if")."""
    _interrupt.for_rating("arpad.pipeline.whatif", "arpad.pipeline.ingest")
    from arpad.pipeline import schemas
    from arpad.pipeline.jobs import WhatIfRequest

    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', got {errors!r}")
    spec_a, spec_b = _rules_spec(rules, "rules"), _rules_spec(vs, "vs")
    if not isinstance(pool, str) or pool not in schemas.POOLS:
        raise ValueError(f"pool: {pool!r} is not one of {', '.join(schemas.POOLS)}")
    _check_rules_spec(spec_a, "rules", pool)
    _check_rules_spec(spec_b, "vs", pool)
    start, end = _args.period(start, "start"), _args.period(end, "end")
    if start is not None and end is not None and start > end:
        raise ValueError(f"start {start} is after end {end}")
    top = _args.whole(top, "top", "players")
    from arpad.api import _one_file  # several paths: a TypeError pointing to a store

    games, players = _one_file(games, "games", "whatif"), _one_file(players, "players", "whatif")
    root = _store_root(games)
    if root is not None:
        if players is not None or mapping is not None:
            raise TypeError(
                "players/mapping: a store already holds its games and players (they are for "
                "games given as a table or a file)"
            )
        request = WhatIfRequest(root, spec_a, spec_b, pool, start, end, top)
        return _run("whatif", request, flow, cluster, workers)
    folder = Path(tempfile.mkdtemp(prefix="arpad-whatif-api-"))
    try:
        root = _scratch_store(games, players, mapping, errors, folder, start, pool)
        request = WhatIfRequest(root, spec_a, spec_b, pool, start, end, top)
        return _run("whatif", request, flow, cluster, workers)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- one player under several ids: ``arpad players identify|merge|split`` ----------------
# (docs/api.md "Players under several ids"; docs/identity.md). The notes the commands
# print on stderr are UserWarnings here, in the API's words (``api._in_api_words``).

# the kept ids whose own values win over their duplicates': notes shown (as the command)
MAX_KEPT_NOTES = 10


def _warn(text: str) -> None:
    import warnings

    from arpad.api import _in_api_words, _outside_arpad

    warnings.warn(_in_api_words(text), UserWarning, stacklevel=_outside_arpad())


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what}: True or False, got {value!r}")
    return value


def _wait(value: Any) -> float:
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"wait: a number of seconds, got {value!r}")
    return float(value)


@dataclass
class MergeSummary:
    """What ``Store.merge`` or ``Store.split`` did: ``action`` ``"merged"`` or
    ``"split"``; ``pairs`` the (keep, duplicate) pairs applied; ``stale`` the (pool,
    period) each rated pool is recomputed from by the next ``store.rate``; ``games`` the
    games the merge took out as copies of an earlier file's (or the split put back);
    ``already`` the pairs of a merge that were in force already (nothing done for
    them). ``str()`` gives the lines ``arpad players merge`` prints."""

    action: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    stale: list[tuple[str, int]] = field(default_factory=list)
    games: int = 0
    already: list[tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.pairs:
            if self.already:
                return f"merged 0 pair(s); all {len(self.already)} already in force"
            return "nothing to merge"
        where = ", ".join(f"{pool} from {period}" for pool, period in self.stale)
        then = (
            f"affected: {where} (the next store.rate recomputes)" if where else "no games involved"
        )
        lines = [f"{self.action} {len(self.pairs)} pair(s); {then}"]
        if self.games and self.action == "merged":
            lines.append(
                f"took out {self.games} game(s) that this merge makes the same game as a game "
                "of an earlier-ingested file (same players after the merge, result, and date "
                "or moves): quarantined as probable_duplicate, not rated (the quarantine "
                "view; store.split puts them back)"
            )
        elif self.games:
            lines.append(
                f"put back {self.games} game(s) a merge had taken out as probable duplicates: "
                "no longer the same game as another file's"
            )
        return "\n".join(lines)


def identify(store, held_back: Any = False, output: Any = None) -> pl.DataFrame:
    """``arpad players identify`` of ``store`` (``api.Store``): the proposed merges
    (``keep``, ``duplicate``, ``evidence``, ``score``; the command's table), or with
    ``held_back`` the pairs held back (``merge`` ``"no"``; ``--held-back``). ``output``:
    the mapping file ``--output`` writes (proposals marked ``merge`` ``"yes"`` and the
    held-back pairs ``"no"``), written the same and returned. The command's notes on
    the pairs held back are UserWarnings."""
    from arpad.pipeline import identity
    from arpad.pipeline import output as out

    held_back = _flag(held_back, "held_back")
    if output is not None:
        if isinstance(output, bool) or not isinstance(output, str | os.PathLike):
            raise TypeError(f"output: a file path for the mapping CSV, got {output!r}")
        output = str(Path(output).expanduser())
    frame, rows, notes, cut = identity.identified(store._existing)
    if not held_back:  # the command's notes on stderr (pipeline/commands/players.py)
        for note in notes:
            _warn(note)
        if cut:
            where = "is listed by store.identify(held_back=True)"
            if output:
                where = f"is a row of {output} marked merge 'no' (write yes to merge one)"
            _warn(f"each of the {rows.height} pair(s) held back {where}")
    if held_back:
        frame = rows
    elif output and rows.height:  # proposals, then the pairs held back (identity.md)
        frame = pl.concat([frame.with_columns(pl.lit("yes").alias("merge")), rows])
    if output:
        out.render(frame, "csv", output)
    return frame


def _ids(keep: Any, duplicates: Any) -> tuple[str, list[str]]:
    keep = _args.player(keep, "keep")
    if isinstance(duplicates, Mapping):
        raise TypeError(
            "duplicates: one player id or a list of ids, got dict (mapping= takes pairs)"
        )
    return keep, list(dict.fromkeys(_args.players(duplicates, "duplicates")))


def _mapping_pairs(mapping: Any, stored, reason: str, force: bool) -> tuple[list, str]:
    """(pairs, name) of ``merge``'s ``mapping``: a mapping file read as ``arpad players
    merge --mapping FILE`` reads it (``identity.read_mapping``: an ``InputError`` naming
    its line), or a table with ``keep`` and ``duplicate`` (``identify``'s frame; an
    ``evidence`` column is kept in the reason, rows whose ``merge`` is "no" left out),
    checked the same way: a ``ValueError`` naming the row (from 0) and its ids."""
    from arpad.pipeline import identity
    from arpad.pipeline.errors import InputError, printable

    if isinstance(mapping, str | os.PathLike):
        path = str(Path(mapping).expanduser())
        notes: list[str] = []  # read as ingest reads a CSV: Latin-1, ";" (docs/identity.md)
        pairs = identity.read_mapping(path, stored, force, notes)
        for note in notes:
            _warn(f"{printable(path)}: {note}")
        return pairs, printable(path)
    from arpad.api import _in_memory

    if (
        isinstance(mapping, Mapping)
        and mapping
        and not any(
            isinstance(v, list | tuple) or hasattr(v, "__array__") for v in mapping.values()
        )
    ):  # {duplicate: keep}? refused: which side is which is not the columns' say
        raise TypeError(
            "mapping: a mapping file or a table with the columns keep, duplicate (a dict of "
            "columns: {'keep': [...], 'duplicate': [...]}), got a dict of ids"
        )
    frame = pl.from_arrow(_in_memory(mapping, "mapping"))
    if not {"keep", "duplicate"} <= set(frame.columns):
        found = ", ".join(repr(c) for c in frame.columns[:10]) or "none"
        raise ValueError(
            f"mapping: a mapping needs the columns keep, duplicate (found {found}); "
            f"{identity.NOTHING_MERGED}"
        )

    def text(value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # a pandas id column with a gap: 4100005.0 is 4100005
        return str(value).strip()

    pairs, rows, held = [], [], 0
    columns = [c for c in ("keep", "duplicate", "evidence", "merge") if c in frame.columns]
    for i, row in enumerate(frame.select(columns).iter_rows(named=True)):
        keep, dup = text(row["keep"]), text(row["duplicate"])
        switch = text(row.get("merge")).lower()
        if not keep and not dup and switch == "" and not text(row.get("evidence")):
            continue  # an empty row, as a blank line of a file
        where = f"mapping row {i} (keep {keep!r}, duplicate {dup!r})"
        if switch not in identity.MERGE_YES | identity.MERGE_NO:
            raise ValueError(
                f"{where}: merge is {switch!r}: yes (or empty) to merge the row, no to not; "
                f"{identity.NOTHING_MERGED}"
            )
        if switch in identity.MERGE_NO:
            held += 1
            continue
        if not keep or not dup:
            raise ValueError(f"{where}: empty keep or duplicate; {identity.NOTHING_MERGED}")
        why = reason or "mapping table"
        if evidence := text(row.get("evidence")):
            why += f": {evidence}"
        pairs.append((keep, dup, why))
        rows.append(i)
    if held:
        _warn(
            f"mapping: {held} row(s) marked merge 'no' left out (pairs arpad players identify "
            "held back; write yes in the merge column to merge one)"
        )

    def refuse(i: int, problem: str) -> None:
        keep, dup, _ = pairs[i]
        raise ValueError(f"mapping row {rows[i]} (keep {keep!r}, duplicate {dup!r}): {problem}")

    try:  # as merge would apply them one after another (identity.check_mapping)
        identity.check_mapping(stored, "mapping", [(n, k, d) for n, (k, d, _) in enumerate(pairs)])
    except InputError as exc:
        refuse(exc.line, exc.problem)
    if pairs and not force:  # two ids that met in a game (docs/identity.md "Self-play")
        games = identity.self_play_games(stored, pairs)
        if games.height:
            first = games.row(0, named=True)
            i = identity._first_joining(stored, pairs, first["white_id"], first["black_id"])
            met = {first["white_id"], first["black_id"]}
            via = "" if set(pairs[i][:2]) == met else " (with the rows above it)"
            refuse(i, f"{identity.self_play_refusal(games)}{via}; {identity.NOTHING_MERGED}")
    return pairs, "the mapping"


def merge(
    store, keep: Any, duplicates: Any, mapping: Any, reason: Any, force: Any, wait: Any
) -> MergeSummary:
    """``arpad players merge KEEP DUPLICATE...`` (``mapping``: ``--mapping FILE``, or a
    table of pairs) on ``store`` (``api.Store``), through the same job
    (``jobs.merge_players``): ``MergeSummary``. The command's notes are UserWarnings; a
    refused merge is a one-line ``ValueError`` (``InputError`` for a mapping file's
    line) saying that nothing was merged."""
    from arpad.pipeline import identity, jobs

    force, wait = _flag(force, "force"), _wait(wait)
    if not isinstance(reason, str):
        raise TypeError(f"reason: a text, got {type(reason).__name__}")
    given = keep is not None or duplicates is not None
    if mapping is not None and given:
        raise ValueError("merge takes keep and duplicates, or mapping=, not both")
    stored = store._existing
    if mapping is not None:
        pairs, name = _mapping_pairs(mapping, stored, reason, force)
        if not pairs:  # a mapping with no row to merge: identify proposed none
            _warn(f"nothing to merge: {name} has no keep,duplicate row to merge")
            return MergeSummary("merged")
    elif keep is not None and duplicates is not None:
        keep, dups = _ids(keep, duplicates)
        pairs = [(keep, dup, reason) for dup in dups]
    else:
        raise ValueError(
            "merge needs keep and duplicates (store.merge(keep, duplicate)) or mapping= "
            "(a mapping file or store.identify()'s frame)"
        )
    already = []
    if stored.aliases_path.exists():  # a merge run again: said, and nothing to do
        already = identity.in_force(stored, pairs)
        current = identity.alias_map(stored)
        known = set(current) | set(current.values())
        for pair in already:
            k, d = (identity.spelt_as_stored(p, known) for p in pair[:2])
            _warn(f"{d} is already merged into {k}: nothing to do")
    left = [pair for pair in pairs if pair not in already]
    done = [(k, d) for k, d, *_ in already]
    if not left:
        return MergeSummary("merged", already=done)
    request = jobs.MergeRequest(str(store.path), left, wait=wait, force=force)
    stale = _merge_job(request, "merged")
    if request.self_play is not None and request.self_play.height:
        _warn(
            f"{request.self_play.height} game(s) of a player against himself after this "
            f"merge (force=True; e.g. {request.self_play.row(0)[1]}): not rated "
            "(docs/identity.md)"
        )
    for note in request.notes:  # stated ratings the merge brings (docs/observations.md)
        _warn(note)
    kept = identity.kept_values_notes(stored, left)  # docs/identity.md "An id change"
    for note in kept[:MAX_KEPT_NOTES]:
        _warn(note)
    if len(kept) > MAX_KEPT_NOTES:
        _warn(
            f"and {len(kept) - MAX_KEPT_NOTES} more merged pair(s) whose kept id's own values "
            "differ from the duplicate's"
        )
    return MergeSummary(
        "merged", [(k, d) for k, d, *_ in left], list(stale), request.games_out, done
    )


def split(store, keep: Any, duplicate: Any, reason: Any, wait: Any) -> MergeSummary:
    """``arpad players split KEEP DUPLICATE`` on ``store`` (``api.Store``), through the
    same job: ``MergeSummary``; a refusal is a one-line ``ValueError``."""
    from arpad.pipeline import jobs

    keep, duplicate = _args.player(keep, "keep"), _args.player(duplicate, "duplicate")
    if not isinstance(reason, str):
        raise TypeError(f"reason: a text, got {type(reason).__name__}")
    wait = _wait(wait)
    _ = store._existing  # no store at the path: FileNotFoundError naming it
    pairs = [(keep, duplicate, reason)]
    request = jobs.MergeRequest(str(store.path), pairs, split=True, wait=wait)
    stale = _merge_job(request, "split")
    return MergeSummary("split", [(keep, duplicate)], list(stale), request.games_out)


def _merge_job(request, done: str):
    """``jobs.merge_players(request)``, its refusals said for the API: ``--wait
    SECONDS`` as ``wait=SECONDS``, a ValueError ending "nothing was {done}"."""
    from arpad.pipeline import jobs
    from arpad.pipeline.errors import StoreBusyError

    try:
        return jobs.merge_players(request)
    except StoreBusyError as exc:
        raise StoreBusyError(str(exc).replace("--wait SECONDS", "wait=SECONDS")) from None
    except ValueError as exc:
        raise ValueError(f"{exc}; nothing was {done}") from None
