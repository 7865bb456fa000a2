"""The Python API for notebook users (docs/api.md).

- ``rate(games, system=…)``: ratings of in-memory games (a polars or pandas
  DataFrame, an Arrow table, a dict of columns, a list of dicts or a file path),
  with no store on disk — the same validation and
  the same engine as ``arpad ingest`` + ``arpad rate``.
- ``Store(path)``: a store on disk — ingest, rate, list, card, history, sql —
  running the same jobs as the command line (pipeline/jobs.py).
- ``predict(ratings, pairings, system=…, draws=…)``: expected scores of new
  pairings from a rating state (the last rating of each player in ``ratings``)
  and, with a draw model, P(white), P(draw), P(black) (pipeline/predict.py).
- ``fit_draws(predicted)``: the draw model (``DrawModel``) of played games.
- ``backtest(data, systems)``, ``whatif(games, rules, vs)``: ``arpad backtest`` and
  ``arpad whatif`` from Python (src/arpad/_analysis.py).
"""

from __future__ import annotations

import datetime
import functools
import inspect
import io
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from arpad import _analysis, _args, _interrupt, _tables
from arpad.pipeline.draws import DrawModel
from arpad.pipeline.errors import InputError, StoreBusyError

__all__ = [
    "DrawModel",
    "InputError",
    "StaleRatingsWarning",
    "Store",
    "StoreBusyError",
    "backtest",
    "fit_draws",
    "predict",
    "rate",
    "systems",
    "whatif",
]


def __getattr__(name: str):
    if name == "WhatIf":  # what ``whatif`` returns; its module loads the engine
        from arpad.pipeline.whatif import WhatIf

        return WhatIf
    raise AttributeError(f"module 'arpad.api' has no attribute {name!r}")


_API_RANGE = {"from": "start", "to": "end"}  # --from/--to are start=/end= in the API
_SHELL_WORD = r"(?:'[^']*'|[^\s,;)']+)"  # a name as shlex.quote (or repr) writes it
# the read options of ``arpad ingest`` that are Store.ingest's keywords
_INGEST_OPTION = (
    r"--(?:pool (?:standard|rapid|blitz)|ignore-stated-ratings|rate-moveless|"
    r"keep-probable-duplicates)"
)


def _unquoted(word: str) -> str:
    """A name as the command's message quotes it (``'a b'``): its text."""
    return word[1:-1] if len(word) > 1 and word[0] == word[-1] == "'" else word


def _ingest_keywords(options: str, lead: str = "") -> str:
    """``--pool blitz --rate-moveless`` as ``pool='blitz', rate_moveless=True`` (``lead``
    before it when there is any)."""
    words = re.findall(r"--([\w-]+)(?: (standard|rapid|blitz))?", options)
    keywords = [
        f"{n.replace('-', '_')}={v!r}" if v else f"{n.replace('-', '_')}=True" for n, v in words
    ]
    return lead + ", ".join(keywords) if keywords else ""


# The commands' advice in the errors the pipeline raises, as a Python caller follows it.
API_ADVICE = (
    (re.compile(r"run arpad rate --system (\S+) first"), r"call store.rate('\1') first"),
    (re.compile(r"run arpad rate first"), "call store.rate(system) first"),
    (
        re.compile(r"\(arpad rate --system (\S+) --pool (\S+) first\)"),
        r"(call store.rate('\1', pool='\2') first)",
    ),
    (re.compile(r"use --format \(([^)]*)\)"), r"pass fmt= (\1)"),
    (re.compile(r"use --format (\w+)"), r"pass fmt='\1'"),
    # how to read bytes stored already in a code page (ingest._encoding_not_applied)
    (
        re.compile(rf"arpad ingest --players ({_SHELL_WORD}) --encoding ([\w-]+)"),
        lambda m: f"store.ingest([], players={_unquoted(m[1])!r}, encoding={m[2]!r})",
    ),
    (
        re.compile(rf"arpad ingest ({_SHELL_WORD}) --encoding ([\w-]+)"),
        lambda m: f"store.ingest({_unquoted(m[1])!r}, encoding={m[2]!r})",
    ),
    (
        re.compile(rf"--source ({_SHELL_WORD}) --encoding ([\w-]+)"),
        lambda m: f"source={_unquoted(m[1])!r}, encoding={m[2]!r}",
    ),
    (re.compile(r"--encoding ([\w-]+)"), r"encoding='\1'"),
    (re.compile(r"leave out --flow"), "leave out flow=True"),
    (re.compile(r"--encoding:"), "encoding:"),
    # round 5 (docs/api.md "Attacked in a notebook, round 5"): the Python argument named
    (
        re.compile(r"run arpad rate --system (\S+) --pool (\S+) (again )?first"),
        r"call store.rate('\1', pool='\2') \3first",
    ),
    (re.compile(r"give --period, not --date"), "give period=, not date="),
    (
        re.compile(r"arpad players lists them"),
        "store.sql('SELECT player_id, name FROM players') lists them",
    ),
    (re.compile(r"arpad ingest --players FILE"), "store.ingest(files, players=FILE)"),
    (re.compile(r"--set (\w+)="), r"\1="),
    (re.compile(r"see arpad diff --published"), "see store.diff(period, system)"),
    (  # the note of a published list revised since (pipeline/lists.py ``revised_note``)
        re.compile(
            r"arpad diff --published (\d+)(?: --system (\S+))?(?: --pool (\w+))? shows them, "
            r"arpad list --period \d+(?: --system \S+)?(?: --pool \w+)? the current list"
        ),
        lambda m: _revised_advice(m[1], m[2], m[3]),
    ),
    # round 6 (docs/api.md "Attacked in a notebook, round 6"): the options left over
    (
        re.compile(
            r"--rules DATE is only meaningful for systems with dated versions; (\S+) has none "
            r"\(give a rules FILE\.json instead\)"
        ),
        r"rules: a date is only meaningful for systems with dated versions; \1 has none "
        "(give rules= a JSON file of rule fields instead, or the fields as keywords)",
    ),
    (
        re.compile(r"(?:(\w+): )?--rules takes a date (\([^)]*\)) or a file: (.*)"),
        lambda m: f"{m[1] or 'rules'}: a date {m[2]} or a JSON file, got {m[3]}",
    ),
    (re.compile(r"a --rules spec"), "a rules spec"),
    (re.compile(r"--wait takes (a number of seconds >= 0)"), r"wait: \1"),
    (
        re.compile(r"--cluster takes a scheduler address like tcp://HOST:PORT"),
        "cluster: a scheduler address like 'tcp://HOST:PORT'",
    ),
    (re.compile(r"--cluster (\S+): "), r"cluster='\1': "),
    (re.compile(r"--workers must be at least 1"), "workers: a positive number of workers"),
    (re.compile(r"--(by|top|min-games) takes "), lambda m: f"{m[1].replace('-', '_')}: "),
    (re.compile(r"\(lower --min-games\)"), "(lower min_games=)"),
    (re.compile(r"\(use --data-dir\)"), "(pass data_dir=)"),
    (re.compile(r"--from (\S+) is after --to (\S+)"), r"start \1 is after end \2"),
    (re.compile(r"with --from (\S+) and --to (\S+)"), r"with start=\1 and end=\2"),
    (re.compile(r"with --(from|to) (\S+)"), lambda m: f"with {_API_RANGE[m[1]]}={m[2]}"),
    (re.compile(r"--from (\S+): no stored"), r"start=\1: no stored"),
    (re.compile(r"leave out --from"), "leave out start="),
    (re.compile(r"--top must be at least 1"), "top: a positive number of players"),
    # the store's path, and the site's folder
    (
        re.compile(r"--store (is a file|lies inside the file .*), not a store"),
        r"the store \1, not a store",
    ),
    (re.compile(r"--out (.*) (exists and|is a non-empty|is inside the store)"), r"out: \1 \2"),
    (re.compile(r"not written by arpad site"), "not written by store.site"),
    (re.compile(r"lists only: arpad publish --period P"), "lists only: store.publish(system)"),
    # publishing
    (re.compile(r"or give --force$"), "or pass force=True"),
    (re.compile(r"or give --skip-earlier to"), "or pass skip_earlier=True to"),
    (  # a diff of a period never published (pipeline/publish.py ``read_manifest``)
        re.compile(r"no published (\S+)/(\S+) list of period (\d+) \((.*); arpad publish\)"),
        lambda m: (
            f"no published {m[1]}/{m[2]} list of period {m[3]} ({m[4]}; "
            f"store.publish({m[1]!r}{_pool_keyword(m[2])}, period={m[3]}))"
        ),
    ),
    (re.compile(r"\(give --period P --force "), "(pass period=P, force=True "),
    (
        re.compile(r"run arpad rate --system (\S+) --pool (\S+) \(or arpad recalculate\) first"),
        r"call store.rate('\1', pool='\2') first",
    ),
    (
        re.compile(r"arpad list --period (\S+) prints it"),
        r"store.list(system, period=\1) shows it",
    ),
    # a damaged file, a card, a rated pool: the Store call that does what the command does
    (
        re.compile(r"arpad rate --system S --pool P --full"),
        "store.rate(system, pool=pool, full=True)",
    ),
    (
        re.compile(r"arpad rate --system '?([\w-]+)'? --pool '?(\w+)'? --full"),
        r"store.rate('\1', pool='\2', full=True)",
    ),
    (
        re.compile(r"arpad rate --system ([\w-]+) --pool (\w+)(?= gives|;)"),
        r"store.rate('\1', pool='\2')",
    ),
    (
        re.compile(r"\(arpad card (.+) --period (\d+)\)$"),
        lambda m: f"(store.card({m[1]!r}, period={m[2]}))",
    ),
    (re.compile(r"arpad players --merges"), "store.sql('SELECT * FROM merges')"),
    # one player under several ids (Store.identify/merge/split: historian round 14)
    (
        re.compile(r"\(arpad players lists the ids\)"),
        "(store.sql('SELECT player_id, name FROM players') lists the ids)",
    ),
    (re.compile(r"\(--force merges anyway"), "(force=True merges anyway"),
    (re.compile(r"arpad players merge --force"), "store.merge(..., force=True)"),
    (re.compile(r"arpad players (merge|split) KEEP DUPLICATE"), r"store.\1(keep, duplicate)"),
    (re.compile(r"arpad players identify --held-back"), "store.identify(held_back=True)"),
    (re.compile(r"arpad players identify"), "store.identify()"),
    (
        re.compile(r"\(text under this name: --format (\w+)\)"),
        r"(text under this name: pass fmt='\1')",
    ),
    # ingest: its report's notes and refusals, as Store.ingest's keywords
    (re.compile(r"--source and --replace do not apply"), "source= and replace= do not apply"),
    (re.compile(r"--source names one games file"), "source= names one games file"),
    (re.compile(r"--source naming it"), "source= naming it"),
    (
        re.compile(r"\(--pool, --ignore-stated-ratings or --rate-moveless\)"),
        "(pool=, ignore_stated_ratings= or rate_moveless=)",
    ),
    (
        re.compile(rf"arpad ingest ({_SHELL_WORD})((?: {_INGEST_OPTION})*)"),
        lambda m: f"store.ingest({_unquoted(m[1])!r}{_ingest_keywords(m[2], ', ')})",
    ),
    (
        re.compile(rf"--source ({_SHELL_WORD})((?: {_INGEST_OPTION})*)"),
        lambda m: f"source={_unquoted(m[1])!r}{_ingest_keywords(m[2], ', ')}",
    ),
    (re.compile(rf"{_INGEST_OPTION}(?: {_INGEST_OPTION})*"), lambda m: _ingest_keywords(m[0])),
    (re.compile(r"or --replace\b"), "or replace=True"),
    (re.compile(r"--replace: "), "replace=True: "),
)


def _revised_advice(period: str, system: str | None, pool: str | None) -> str:
    """The revised published list's advice (``lists.revised_note``: ``arpad diff
    --published P``, ``arpad list --period P``; a system or pool left out is the
    default) as the Store calls."""
    from arpad.pipeline.systems import DEFAULT_SYSTEM

    which = f"{(system or DEFAULT_SYSTEM)!r}{_pool_keyword(pool or 'standard')}"
    return (
        f"store.diff({period}, {which}) shows them, store.list({which}, period={period}) "
        "the current list"
    )


def _pool_keyword(pool: str) -> str:
    """``, pool='blitz'`` for a call's advice; nothing for the default pool."""
    return "" if pool == "standard" else f", pool={pool!r}"


def _in_api_words(text: str) -> str:
    """``text`` with the commands' advice in the API's words (``API_ADVICE``)."""
    for pattern, words in API_ADVICE:
        text = pattern.sub(words, text)
    return text


def _api_advice(function):
    """``function`` with the commands' advice in its ValueError/InputError/TypeError
    messages put in the API's words (``run arpad rate first`` → ``call store.rate(system)
    first``, ``use --format pgn`` → ``pass fmt='pgn'``, ``--wait takes …`` → ``wait: …``);
    other errors pass as they are."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (ValueError, InputError, TypeError) as exc:
            text = exc.problem if isinstance(exc, InputError) else str(exc)
            new = _in_api_words(text)
            if new == text:
                raise
            if type(exc) is InputError:
                raise InputError(exc.path, exc.line, new) from None
            if type(exc) in (ValueError, TypeError):
                raise type(exc)(new) from None
            # a subclass (lookup's NoMatch, PeriodError, StaleListError, …): the same
            # exception, its words replaced, so ``except NoMatch`` still catches it
            if isinstance(exc, InputError):
                exc.problem, exc.args = new, InputError(exc.path, exc.line, new).args
            else:
                exc.args = (new,)
            raise

    return wrapper


# ``arpad backtest`` and ``arpad whatif`` from Python (src/arpad/_analysis.py): their
# errors in the API's words too (``cluster="x"`` said ``--cluster takes …``)
backtest = _api_advice(_analysis.backtest)
whatif = _api_advice(_analysis.whatif)


class StaleRatingsWarning(UserWarning):
    """Ratings read from a store that a correction made out of date (games or players
    changed since they were rated): the note ``arpad list`` prints on stderr
    (pipeline/publish.py ``out_of_date``), from every reading call of the API;
    ``store.rate(system)`` brings them up to date (docs/api.md round 5)."""


def _outside_arpad() -> int:
    """The ``stacklevel`` of the first caller outside the arpad package (the notebook's
    line), whatever wrappers stand between it and ``warnings.warn``."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_globals.get("__name__") or "").partition(".")[0] == (
        "arpad"
    ):
        frame, level = frame.f_back, level + 1
    return level


def _warn_stale(store, system: str, pool: str, period: int | None = None) -> None:
    """``StaleRatingsWarning`` when the ``system``/``pool`` ratings of ``period`` (None: the
    latest rated period, for calls reading every period) are out of date, in the words of
    the note of ``arpad list`` with the API's advice."""
    from arpad.pipeline.publish import out_of_date

    if period is None:
        rated = store.rating_periods(system, pool)
        if not rated:
            return
        period = rated[-1]
    if problem := out_of_date(store, system, pool, period):
        warnings.warn(_in_api_words(problem), StaleRatingsWarning, stacklevel=_outside_arpad())


def _stale_checked(function):
    """A Store call reading the ratings of every period of its ``system``/``pool``: once it
    has answered, ``_warn_stale`` for the latest rated period."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(self, *args, **kwargs):
        out = function(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        _warn_stale(self._existing, bound.arguments["system"], bound.arguments["pool"])
        return out

    return wrapper


def systems() -> list[str]:
    """The names of the rating systems arpad has (a list of str, the ``system=`` values)."""
    from arpad.pipeline.systems import system_names

    return system_names()


def _arrow(data, what: str, encoding: str | None = None) -> pa.Table:
    """A polars/pandas DataFrame, an Arrow table, a dict of columns or a list (or iterator)
    of row dicts as an Arrow table; a path (``predict``'s ratings or pairings,
    ``fit_draws``' predictions) is read as ``arpad predict`` reads a pairings file: a
    CSV as text in ``encoding`` (``_csv_frame``), or a Parquet file."""
    if isinstance(data, str | os.PathLike):
        path = Path(data).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"{what}: no such file {path}")
        if path.suffix.lower() != ".parquet":
            return _csv_frame(path, what, encoding).to_arrow()
        try:
            return pl.read_parquet(path).to_arrow()
        except pl.exceptions.PolarsError as exc:
            raise ValueError(f"{what}: {path} is not a CSV or Parquet file ({exc})") from None
    return _tables.periods_of_dates(_tables.without_views(_in_memory(data, what)))


class TableFileError(InputError, ValueError):
    """A CSV file ``predict`` or ``fit_draws`` reads that is not what it should be (a
    byte its code page lacks, a row of another width): an ``arpad.InputError`` naming
    the file and its line, and the ``ValueError`` of a bad argument."""


# the columns a blank first line of each file is told to hold (pipeline/predict.py)
_CSV_HEADERS = {
    "pairings": "white_id, black_id",
    "ratings": "player_id, rating",
    "predicted": "expected, score",
}


def _csv_frame(path: Path, what: str, encoding: str | None) -> pl.DataFrame:
    """A CSV file of ``predict``/``fit_draws`` read as ``arpad predict PAIRINGS.csv``
    reads its pairings (pipeline/predict.py ``read_text_csv``: UTF-8, else ``encoding``
    or the code page its letters say; every field text), its notes ``UserWarning``s.
    A problem (a byte ``encoding`` lacks) is one line naming the file and its line, in
    the API's words (``TableFileError``); it was polars' "invalid utf-8 sequence"."""
    from arpad.pipeline.predict import read_text_csv

    try:
        frame, _, notes = read_text_csv(path, encoding, _CSV_HEADERS.get(what, "its columns"))
    except InputError as exc:
        raise TableFileError(exc.path, exc.line, _in_api_words(exc.problem)) from None
    _warn_notes(path, notes)
    return frame


def _is_csv_file(data) -> bool:
    """``data`` is the path of a file ``_arrow`` reads as CSV (not Parquet)."""
    if not isinstance(data, str | os.PathLike):
        return False
    path = Path(data).expanduser()
    return path.is_file() and path.suffix.lower() != ".parquet"


def _in_memory(data, what: str) -> pa.Table:
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pl.DataFrame):
        return data.to_arrow()
    if isinstance(data, pl.LazyFrame):
        return data.collect().to_arrow()
    if isinstance(data, dict):
        return _tables.from_columns(data, what)
    if type(data).__module__.startswith("pandas"):
        return _tables.from_pandas(data, what)
    other = _tables.other_kinds(data, what)
    if other is not None:
        return other
    rows = _args.rows_of_dicts(data, what)
    if rows is not None:
        return rows
    if isinstance(data, Store):  # two ways of working mixed: point to the store's own calls
        raise TypeError(
            f"{what}: {_args.TABLE_KINDS}, got {data!r}: a store is rated with "
            "store.rate(system), and its ratings are store.ratings(system)"
        )
    raise TypeError(f"{what}: {_args.TABLE_KINDS}, got {type(data).__name__}")


def _validated(
    data,
    kind: str,
    mapping: str | None,
    errors: str,
    fmt: str | None = None,
    encoding=None,
    tables: list | None = None,
):
    """The accepted rows of ``data`` (a file read as ``arpad ingest`` reads it, or a
    frame), its notes as UserWarnings; rows rejected an ``InputError`` naming them
    (``errors="skip"``: a warning). A frame's rows are counted from 0, as ``df[i]`` (a
    notebook user indexes them so; they counted from 1, and ``store.merge`` from 0:
    analyst round 15). ``tables``: a list given by ``rate``, which the ``RatingsTable`` of
    a ratings file is appended to, its note left to ``rate`` (``_warn_ratings``)."""
    from arpad.pipeline.readers import raw_from_arrow
    from arpad.pipeline.validate import ratings_table, validate_games, validate_players

    if isinstance(data, (str, os.PathLike)):  # a file, read as `arpad ingest` reads it
        from arpad.pipeline.readers import read_any
        from arpad.pipeline.store import Store as _Store

        if Path(data).expanduser().is_dir() and _Store(Path(data).expanduser()).exists():
            raise InputError(
                Path(data),
                None,
                "is an arpad store, not a games file: rate it with "
                "arpad.Store(PATH).rate(system) and read its ratings with .ratings(system)",
            )
        name = str(data)
        if encoding is not None:  # ``--encoding``'s check: one line for a bad name
            from arpad.pipeline.jobs import _check_encoding

            encoding = _check_encoding(encoding)
        raw = read_any(
            Path(data).expanduser(), fmt=fmt, mapping=mapping, kind=kind, encoding=encoding
        )
    else:
        name = f"<{kind} DataFrame>"
        table = _tables.extra_columns_as_text(_arrow(data, kind))
        if kind == "players":  # rate's result's columns beside a rating: left aside unsaid
            table = table.drop_columns(_result_columns(table))
        raw = raw_from_arrow(table, Path(name), "dataframe", mapping, kind, first_row=0)
        if kind == "players":  # as a players file's note says it (a period column was
            _warn_unread_players(raw.notes)  # left aside without a word: round 13)
    rows = None
    if kind == "players":
        from arpad.pipeline.observations import dated_players, is_dated

        # a date column: a row per player and date, each a dated observation, as ingest
        # reads a dated players file (docs/observations.md "Players files with dates")
        dated = is_dated(raw)
        # a ratings file's notes on the facts it lacks and its newcomers: rate's (the run's)
        validated = validate_players(raw, name, "memory", by_date=dated, for_rating=False)
    else:
        validated = validate_games(raw, name, "memory")
    if kind == "players" and (dated or "pool" in raw.frame.columns):
        # a row's pool, FIDE's RRtng/BRtng beside SRtng: each a row of its own pool, as
        # ingest splits them (bad dates, pools and pool ratings quarantined), and its
        # period, for observations.pool_players and observations.given_observations
        validated, pools, rows = dated_players(raw, validated, name, "memory")
        rows = pl.from_arrow(rows).join(
            pools.select("source", "pool", "period"),
            on="source",
            how="left",
            maintain_order="left",
        )
    if isinstance(data, (str, os.PathLike)):  # the notes `arpad ingest` prints for it
        from arpad.pipeline.tournament_files import read_notes

        games = validated.accepted if kind == "games" else None
        notes = [*read_notes(raw, games), *validated.notes]
        found = ratings_table(raw.frame) if kind == "players" and tables is not None else None
        if found is not None:  # rate says it, with its system's words (_warn_ratings)
            tables.append(found)
            notes = [n for n in notes if n != found.note("file")]
        _warn_notes(name, notes)
    bad = validated.quarantine
    word = "line" if isinstance(data, (str, os.PathLike)) else "row"  # a frame's: df[i]
    if bad.num_rows and errors == "raise":
        rows = bad.slice(0, 5).to_pylist()
        first = "; ".join(f"{word} {r['line']}: {r['reason']}: {r['detail']}" for r in rows)
        raise InputError(
            Path(name),
            None,
            f"{bad.num_rows} of {validated.rows_read} rows rejected ({first}); "
            "fix them or pass errors='skip' to rate without them",
        )
    if bad.num_rows:  # errors="skip": say how many went, and why (they went without a word)
        warnings.warn(
            _skipped_text(kind, bad, validated.rows_read, word), stacklevel=_outside_arpad()
        )
    return validated.accepted if rows is None else rows.to_arrow()


def _result_columns(table: pa.Table, *also: str) -> list[str]:
    """The columns of ``table`` that are columns of ``rate``'s result (the ``ratings``
    view: ``rating_after``, ``games``, ``status``, …) and that a players frame does not
    read, ``period`` and ``also`` aside: a players frame (or ``rate``'s result given as
    one) leaves them aside without a word (docs/api.md round 10), while its ``period`` and
    other columns it does not read are named in a warning (round 13)."""
    from arpad.pipeline.readers import READ_COLUMNS
    from arpad.pipeline.schemas import RATINGS

    unsaid = (set(RATINGS.names) - READ_COLUMNS["players"] - {"period"}) | set(also)
    return [n for n in table.column_names if n in unsaid]


def _warn_unread_players(notes: list[str]) -> None:
    """The note of a players frame's columns not read (pipeline/readers.py
    ``unread_note``: ``columns not read: period``) as the ``UserWarning`` a players file
    gives (docs/api.md "Notes on a file"); an unread ``period`` is told where a row's
    month goes. A players frame's ``period`` column (a ``date`` renamed, as the
    ``Period[M]`` error advised before round 13) was ignored without a word, and every
    dated rating was a starting rating."""
    for note in notes:
        if not note.startswith("columns not read: "):
            continue
        listed = note.removeprefix("columns not read: ").split(" (", 1)[0]
        unread = {c.strip() for c in listed.split(",")}
        if "period" in unread:
            note += (
                " (a row's published rating is dated by a date column: a day, or a month "
                "as YYYY-MM or a monthly pandas Period)"
            )
        warnings.warn(f"players: {note}", UserWarning, stacklevel=_outside_arpad())


def _warn_notes(file, notes: list[str], players=None) -> None:
    """One UserWarning per note of a file read as ``arpad ingest`` reads it (a row
    repeated, Latin-1, ';', a column read as ``white_id``, columns not read, …), after
    the file's name as the commands print it (docs/api.md "Notes on a file"); a note
    already naming the file, or the ``players`` file, is given as it is."""
    named = tuple(f"{f}: " for f in (file, players) if f is not None)
    for note in notes:
        text = note if note.startswith(named) else f"{file}: {note}"
        warnings.warn(_in_api_words(text), stacklevel=_outside_arpad())


def _skipped_text(kind: str, bad: pa.Table, rows: int, word: str = "row") -> str:
    """``games: 2 of 3 rows skipped (self_play 1, bad_date 1)``: the rows ``errors="skip"``
    left out, by reason (most first), as the quarantine names the reasons; of players
    (``norm``'s ``players=`` table too), the first such row and its problem, as a players
    file's note names it (``; row 9: rating 21OO is not a number in 0..3500``; it said
    only the reasons: analyst round 15)."""
    from collections import Counter

    counts = Counter(bad.column("reason").to_pylist()).most_common()
    reasons = ", ".join(f"{reason} {n}" for reason, n in counts)
    if kind == "players" and bad.num_rows:
        first = bad.slice(0, 1).to_pylist()[0]
        reasons += f"; {word} {first['line']}: {first['detail']}"
    return f"{kind}: {bad.num_rows} of {rows} rows skipped ({reasons})"


def _ecf_ignores_rating(system, players: pa.Table | None) -> None:
    """ECF grades start from the players' ``grade`` only (docs/legacy-systems.md): a
    ``rating`` given without a grade was ignored without a word, those players starting
    ungraded. A UserWarning counting them, with the conversion the command offers: the
    system's ``players_notes``, which ``arpad rate`` prints as notes."""
    for note in system.players_notes(lambda: players):
        warnings.warn(note, stacklevel=_outside_arpad())


def _ratings_as_players(players, warn: bool = True):
    """(players, table): ``players`` given as a ratings frame (``rate``'s result,
    ``Store.ratings``: no ``rating``, but ``rating_after``), read by pipeline/validate.py
    ``ratings_table`` as a ratings file is read: ``rating_after``, ``rd_after`` and
    ``volatility_after`` as ``rating``, ``rd`` and ``volatility`` (columns of those names
    kept), and of a frame of several periods each player's latest row (the oldest was
    read, ``norm``'s, or it was refused, ``rate``'s: analyst round 15); ``table`` its
    ``RatingsTable`` (None: not a ratings frame, or a file, which ``_validated`` reads).
    ``warn``: its note as a UserWarning here (``rate`` says it with the run's system:
    ``_warn_ratings``). They were not read, and every player started unrated without a
    word (docs/api.md round 10)."""
    from arpad.pipeline.validate import HISTORY_FACTS, RATINGS_STATE, ratings_table

    if players is None or isinstance(players, str | os.PathLike):
        return players, None
    table = _arrow(players, "players")
    names = table.column_names
    if "rating" in names or "rating_after" not in names:
        return table, None  # (read once: _validated takes the Arrow table as it is)
    read = ("player_id", "pool", "period", "games", *RATINGS_STATE, *HISTORY_FACTS)
    found = ratings_table(pl.from_arrow(table.select([c for c in read if c in names])))
    if found is None:  # no rating in it: as before
        return table, None
    if found.rows.height < table.num_rows:  # each player's latest period (its own rows)
        mask = np.zeros(table.num_rows, dtype=bool)
        mask[found.rows.get_column("at").to_numpy()] = True
        table = table.filter(pa.array(mask))
    table = table.rename_columns([found.read.get(n, n) for n in names])
    # the result's other columns (system, period, rating_before, …) are not a players
    # frame's, and its note says how the frame is read: no "columns not read" too
    table = table.drop_columns(_result_columns(table, "period"))
    if warn:
        _warn_ratings("players", found, "frame")
    return table, found


def _facts_read(system, rules) -> list[str]:
    """The facts a ratings table lacks (``HISTORY_FACTS``) that ``system``'s starting
    state reads under ``rules``: K by the rated games so far, a peak, a junior's age
    (FIDE, USCF; ECF's birth year). A player with each fact is started beside one
    without it, and the states compared. It was said for every system, Glicko-2's and
    ``norm``'s too (analyst round 15)."""
    from arpad.pipeline.systems.base import PlayerInfo
    from arpad.pipeline.validate import HISTORY_FACTS

    given = {"rated_games": 3, "peak_rating": 2400.0, "birth_year": datetime.date.today().year - 12}
    none = {"rated_games": -1, "peak_rating": np.nan, "birth_year": -1}

    def state(**facts):
        values = {**none, **facts}
        one = {
            "player_id": np.array(["a"], dtype=object),
            "rating": np.array([2000.0]),
            "rated_games": np.array([values["rated_games"]], dtype=np.int64),
            "peak_rating": np.array([values["peak_rating"]]),
            "birth_year": np.array([values["birth_year"]], dtype=np.int64),
            "rd": np.array([np.nan]),
            "volatility": np.array([np.nan]),
            "grade": np.array([np.nan]),
            "sex": np.array([None], dtype=object),
        }
        return system.initial_state(PlayerInfo(**one), rules).players

    try:
        bare = state()
        read = []
        for fact in HISTORY_FACTS:
            other = state(**{fact: given[fact]})
            if any(not np.array_equal(bare[k], other[k], equal_nan=True) for k in bare):
                read.append(fact)
        return read
    except Exception:  # a system that cannot start from one player: say every fact
        return list(HISTORY_FACTS)


def _warn_ratings(where, table, what: str, system=None, rules=None) -> None:
    """The one UserWarning of a ratings table read as players (``RatingsTable.note``:
    ``players: a ratings frame: rating_after as rating, … (the state after its period)``,
    ``where`` the file's name for a file): with the run's ``system``, the facts it lacks
    that the system reads (``_facts_read``: K by rated games, a peak, an age), and in
    another warning its players unrated after their period, whose games the run cannot
    see (FIDE pools a newcomer's games over months for his first rating; a chain lost
    them without a word: analyst round 15)."""
    text = f"{where}: {table.note(what)}"
    if system is not None and rules is not None:
        lacking = [c for c in _facts_read(system, rules) if c in table.lacking]
        if lacking:
            import dataclasses

            table = dataclasses.replace(table, lacking=lacking)
            them = "them" if len(lacking) > 1 else "it"
            text += "; " + table.history_note(f"{system.name} reads {them}:")
    warnings.warn(text, UserWarning, stacklevel=_outside_arpad())
    pending = table.pending_note() if system is not None else None
    if pending:
        warnings.warn(f"{where}: {pending}", UserWarning, stacklevel=_outside_arpad())


def _frame_periods(table, pool: str) -> pl.DataFrame | None:
    """(player_id, period) of a ratings table (``RatingsTable``): the ``period`` of each
    player's row that the run reads (his latest with a ``rating_after``, of the run's
    ``pool`` when the table has pools, as ``_players_table`` and ``pool_players`` pick
    it); None without a ``period`` column. A period that is not read (``garbage``) is
    null: that player's gap is not known (``_check_chain`` says so)."""
    if table is None or not table.has_period:
        return None
    rows = table.rows.filter(
        pl.col("rated") & (pl.col("pool").is_null() | (pl.col("pool") == pool))
    )
    return rows.select("player_id", "period").unique("player_id", keep="last", maintain_order=True)


def _check_chain(where: str, table, after, system, first: int | None, word: str) -> None:
    """A ``UserWarning`` when a ratings table's periods cannot say the months between its
    state and the games (``first``, their first period) for a system that ages by them
    (Glicko's RD): no ``period`` column, a period not read (``garbage``), one of another
    kind (Kaggle's 10 for games of 202301) or not before the games. Each player's state
    is then taken as of the period before the games, as a first run's (an RD grows by one
    period): that was done without a word (analyst round 15)."""
    if table is None or first is None or not system.ages_by_elapsed:
        return
    from arpad.pipeline.periods import is_calendar

    then = (
        f"each player's state is taken as of the period before the games' first ({first}), "
        "the months between not counted (an RD grows by one period)"
    )
    kind = {True: "a month", False: "a period number"}
    if after is None:
        warnings.warn(
            f"{where}: a ratings table without a period column: {then}",
            UserWarning,
            stacklevel=_outside_arpad(),
        )
        return
    unread = after.filter(pl.col("period").is_null())
    if unread.height:
        row = table.rows.filter(pl.col("rated") & pl.col("period").is_null()).row(0, named=True)
        given = "empty" if row["given"] is None else repr(row["given"])
        warnings.warn(
            f"{where}: a ratings table's period {given} ({word} {row['at']}) is not a period "
            "(YYYYMM, YYYY-MM, a date, or a period number): for "
            f"{unread.height} player(s) {then}",
            UserWarning,
            stacklevel=_outside_arpad(),
        )
    known = after.get_column("period").drop_nulls()
    if known.is_empty():
        return
    latest = int(known.max())
    if is_calendar(latest) != is_calendar(first):
        problem = (
            f"period {latest} ({kind[is_calendar(latest)]}) is not of the kind of the "
            f"games' periods ({first}: {kind[is_calendar(first)]})"
        )
    elif latest >= first:
        problem = f"period {latest} is not before the games' first period ({first})"
    else:
        return
    warnings.warn(
        f"{where}: a ratings table's {problem}: {then}", UserWarning, stacklevel=_outside_arpad()
    )


def _state_periods(after: pl.DataFrame | None, player_id) -> np.ndarray | None:
    """Per player of the run (``PlayerInfo.player_id``, dense order) the period his given
    state is after (``_frame_periods``), -1 for one the frame does not hold: the engine's
    ``after`` (``rate_in_memory``). A chained run walked its first period as if nothing
    came before it, so Glicko's RD grew by one period whatever the gap (round 14)."""
    if after is None or after.is_empty():
        return None
    ids = pl.DataFrame({"player_id": pl.Series(list(player_id), dtype=pl.String)})
    joined = ids.join(after, on="player_id", how="left", maintain_order="left")
    return joined.get_column("period").fill_null(-1).to_numpy().astype(np.int64)


def _players_table(games: pa.Table, players: pa.Table | None) -> pa.Table:
    """The players of the run: the given players (the last row of an id wins), plus
    every id the games name, unrated."""
    from arpad.pipeline import schemas

    ids = pa.chunked_array(
        [games.column("white_id").combine_chunks(), games.column("black_id").combine_chunks()]
    ).unique()
    known = pl.DataFrame(schema={"player_id": pl.String})
    if players is not None and players.num_rows:
        known = pl.from_arrow(players).unique("player_id", keep="last", maintain_order=True)
    missing = pl.DataFrame({"player_id": ids}).join(known.select("player_id"), "player_id", "anti")
    table = pl.concat([known, missing], how="diagonal_relaxed").sort("player_id").to_arrow()
    return schemas.conform(table, schemas.PLAYERS)


def _period_arrays(games: pa.Table, player_id: np.ndarray, with_days: bool = False):
    """(period, white, black, score, event, days) per period, games in their given order,
    built by the engine's own ``period_arrays`` (unrated games left out, as on the store
    path); ``days`` the games' dates and event keys for a system that uses them
    (``uses_game_days``: FIDE's first event, docs/rules.md), else empty."""
    from arpad.pipeline import engine

    ids = engine.id_array(player_id)
    periods = games.column("period").to_numpy(zero_copy_only=False)
    out = []
    for period in np.unique(periods):
        part = games.filter(pa.array(periods == period))
        days: dict = {}
        arrays = engine.period_arrays(part, ids, days=days if with_days else None)
        out.append((int(period), *arrays, days))
    return out


@_api_advice
@_interrupt.interruptible
def rate(
    games,
    system: str = "fide",
    players=None,
    rules=None,
    *,
    pool: str | None = None,
    mapping: str | None = None,
    errors: str = "raise",
    fmt: str | None = None,
    encoding: str | None = None,
    **settings: Any,
) -> pl.DataFrame:
    """Rate in-memory games with one system; one row per player per period.

    ``games`` (a polars DataFrame or LazyFrame, a pandas DataFrame, an Arrow table,
    record batch or reader, a DuckDB relation, a NumPy record array, a dict of
    columns, a list of dicts (one per row), or the path of a
    CSV/Parquet/PGN/TRF file, read as
    ``arpad ingest`` reads it; one file: a list of paths is a ``TypeError`` pointing to
    ``arpad.Store``, docs/api.md) has the canonical games columns (``white_id``,
    ``black_id``, ``result`` or ``score``, ``date`` or ``period``; docs/schemas.md)
    or a named ``mapping`` (``kaggle2010``, ``deloitte2011``). ``players`` (optional) gives
    starting ratings and facts (``player_id``, ``rating``, ``rated_games``,
    ``birth_year``, …). ``rules`` is a ``--rules`` spec (a date such as
    ``"2014-07"``, or a JSON file) or a rules object; ``settings`` are rule
    fields (``k=24``, ``tau=0.5``). Rows that fail validation raise
    ``InputError`` (``errors="skip"`` rates without them). Only ``pool``'s
    games are rated (default ``"standard"``; games given, none of them standard and
    ``pool`` not given: a ``ValueError`` naming the pools they have). ``fmt`` (``"pgn"``, ``"csv"``, …): the format of a games file
    whose name does not say it, as ``arpad ingest --format``; ``encoding`` (``"cp1250"``,
    …): the code page of a games or players file that is not UTF-8, as ``arpad ingest
    --encoding`` (the notes' advice names it). The notes ``arpad ingest``
    prints for a file (a row repeated, Latin-1, ';', a column read as ``white_id``, …)
    are one ``UserWarning`` each (docs/api.md "Notes on a file"). Nothing is written to
    disk.

    Returns a polars DataFrame, one row per player per period, sorted by period and
    player: every column of the ``ratings`` view in its order (``system``, ``pool``,
    ``period``, ``player_id``, ``rating_before``, ``rating_after``, ``games``,
    ``score``, ``expected``, ``k``, ``change``, ``rd_*``, ``performance``, ``status``,
    …; docs/schemas.md), null where the system has none. A table of another kind is a
    ``TypeError``, an unknown system, pool or rule field a ``ValueError``
    (docs/api.md "Arguments").
    """
    _interrupt.for_rating("arpad.pipeline.readers", "arpad.pipeline.validate",
                          systems=[system] if isinstance(system, str) else [])  # fmt: skip
    from arpad.pipeline import engine, jobs, schemas
    from arpad.pipeline.predict import remember_rules
    from arpad.pipeline.systems import get_system
    from arpad.pipeline.systems.base import early_periods_note

    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', got {errors!r}")
    if "format" in settings:  # Store.ingest's name for it: not a rule field to drop
        raise TypeError("rate() got an unexpected keyword argument 'format' (did you mean fmt=?)")
    games = _one_file(games, "games", "rate", system)
    players = _one_file(players, "players", "rate", system)
    if fmt is not None and not isinstance(games, str | os.PathLike):
        raise TypeError(f"fmt: only for a games file (a path), got {type(games).__name__}")
    jobs._check_systems([_args.system_name(system)])
    _args.check_keywords("rate", settings, get_system(system), RATE_PARAMETERS)
    settings = _args.rule_values(settings, get_system(system))
    rules = _args.rules_object(rules, get_system(system))
    named_pool, pool = pool is not None, "standard" if pool is None else pool
    if pool not in schemas.POOLS:
        raise ValueError(f"pool: {pool!r} is not one of {', '.join(schemas.POOLS)}")
    if encoding is not None and not any(isinstance(d, str | os.PathLike) for d in (games, players)):
        raise TypeError(f"encoding: only for a file (a path), got {type(games).__name__}")
    game_table = _validated(games, "games", mapping, errors, fmt, encoding)
    # a ratings table (rate's result, Store.ratings, a file of them): said below, with
    # the run's system (_warn_ratings)
    where = "players" if not isinstance(players, str | os.PathLike) else str(players)
    players, ratings = _ratings_as_players(players, warn=False)
    found: list = []
    player_rows = (
        _validated(players, "players", None, errors, None, encoding, found)
        if players is not None
        else None
    )
    ratings = found[0] if found else ratings
    from arpad.pipeline.observations import given_observations, pool_players

    player_table = pool_players(player_rows, pool)
    _check_observations(get_system(system), game_table)
    _check_starting_ratings(get_system(system), player_table, pool, player_rows)
    _ecf_ignores_rating(get_system(system), player_table)
    game_table = _of_pool(game_table, pool, named_pool)
    overrides = {k: v for k, v in settings.items()}
    resolved = rules
    if isinstance(rules, str | Path):
        resolved = engine.resolve_rules(system, str(rules), pool)
    if resolved is not None:
        engine.apply_overrides(resolved, overrides)
    else:
        engine.check_run_rules(system, None, overrides, pool)
    info = engine.player_info(_players_table(game_table, player_table))
    # a players frame's dated rows: observations a seeding system takes at their period,
    # counted as a store counts a dated players file's (docs/observations.md)
    seeds = given_observations(player_rows, pool, info.player_id)
    # games a system walks in another period (ECF's year-only games of an event that
    # began the year before: docs/legacy-systems.md), with its notes as warnings
    game_table, notes = engine.placed_table(
        get_system(system),
        game_table,
        engine.rules_picker(get_system(system), pool, resolved, overrides),
    )
    for note in notes:
        warnings.warn(f"{system}/{pool}: {note}", UserWarning, stacklevel=_outside_arpad())
    periods = _period_arrays(game_table, info.player_id, get_system(system).uses_game_days)
    first = periods[0][0] if periods else None
    after = _frame_periods(ratings, pool)
    if ratings is not None:  # how it is read, what it lacks, its newcomers, its periods
        rules_at = engine.rules_picker(get_system(system), pool, resolved, overrides)
        what = "frame" if where == "players" else "file"
        at = rules_at(first) if first is not None else None
        _warn_ratings(where, ratings, what, get_system(system), at)
        _check_chain(
            where, ratings, after, get_system(system), first, "row" if what == "frame" else "line"
        )
    tables = engine.rate_in_memory(
        system, info, periods, pool, resolved, overrides, seeds,
        after=_state_periods(after, info.player_id),  # a ratings frame's period (round 14)
    )  # fmt: skip
    # rules chosen by date reaching back before the oldest version: the UserWarning of
    # Store.rate and the note of arpad rate (jobs.early_rules_note, docs/fide-history.md)
    early = None if resolved is not None else early_periods_note(get_system(system), pool, tables)
    if early:
        warnings.warn(early, jobs.EarlyRulesWarning, stacklevel=_outside_arpad())
    # the result carries each period's rules_hash, not the fields: predict(result) finds
    # the rules (keywords included) by it in this session (pipeline/predict.py)
    rules_for = engine.rules_picker(get_system(system), pool, resolved, overrides)
    for p in tables:
        remember_rules(rules_for(p))
    frames = [
        pl.from_arrow(t).with_columns(
            pl.lit(system).alias("system"),
            pl.lit(pool).alias("pool"),
            pl.lit(p, dtype=pl.Int32).alias("period"),
        )
        for p, t in sorted(tables.items())
    ]
    if not frames:  # no games in the pool: no rows, the columns of a result with rows
        return _empty_result()
    out = pl.concat(frames, how="diagonal_relaxed")
    # every column of the ratings view, in its order (null where the system has none),
    # then the system's own: results of several systems concatenate as they are
    view = _empty_result()
    out = out.with_columns(
        pl.lit(None, dtype=view.schema[c]).alias(c) for c in view.columns if c not in out.columns
    )
    names = [*view.columns, *(c for c in out.columns if c not in view.columns)]
    return out.select(names).sort(["period", "player_id"])


def _one_file(value, what: str, call: str = "rate", system=None):
    """``value`` as given, an iterator (a generator, ``map``, ``Path.glob``) as the list
    of its items; a list, tuple or iterator of paths as ``games`` or ``players`` of
    ``rate``, ``whatif`` or ``performance`` (``call``) a TypeError saying what to do
    (docs/api.md "Several files: a store"). Each reads one file per argument: a store
    keeps one copy of a game that two files hold (re-sent games, probable duplicates,
    conflicting results; docs/ingest.md, docs/pgn-trf.md), which files concatenated in
    memory would rate twice. It said only ``got list of str`` (``got generator of
    PosixPath`` for a glob); a list of one path says to pass the path itself."""
    kind = type(value).__name__
    if _is_iterator(value):
        value = list(value)  # rows as dicts are read as a list alike (_args.rows_of_dicts)
    if not isinstance(value, list | tuple) or not value:
        return value
    if not all(_a_path(v) for v in value):
        return value  # rows as dicts, or a mixture: the table's own TypeError
    if len(value) == 1:
        raise TypeError(
            f"{what}: one {what} file per call (a path), got a {kind} of 1 path: pass the "
            f"path itself ({what}={str(value[0])!r})"
        )
    name = system if isinstance(system, str) else "SYSTEM"
    files, why = "files, players=[...]", ", or pass their rows as one DataFrame"
    if what == "games":
        files = "[...]"
        why = (
            " (a store keeps one copy of a game that two files hold; concatenated here "
            "it would be rated twice)"
        )
    use = f"store.ingest({files}), store.rate({name!r}) and store.ratings({name!r})"
    if call == "whatif":
        use = f"store.ingest({files}) and arpad.whatif(store, rules, vs)"
    advice = f"use store = arpad.Store(PATH), {use}{why}"
    if call == "performance":
        advice = (
            "call arpad.performance once per file, or pass their games as one table (with "
            "white_rating and black_rating)"
        )
    raise TypeError(
        f"{what}: one {what} file per call (a path), got a {kind} of {len(value)} paths: "
        f"for several files {advice}"
    )


def _is_iterator(value) -> bool:
    """``value`` is an iterator of Python objects (a generator, ``map``, ``iter(list)``,
    ``Path.glob``), not an open file or a table library's reader."""
    from collections.abc import Iterator

    if not isinstance(value, Iterator) or isinstance(value, io.IOBase):
        return False
    return type(value).__module__.split(".")[0] not in (
        "numpy", "pandas", "polars", "pyarrow", "duckdb",
    )  # fmt: skip


def _a_path(value) -> bool:
    """A path: os.PathLike, or text of one line (a file's lines are not paths)."""
    return isinstance(value, os.PathLike) or (isinstance(value, str) and "\n" not in value)


def _of_pool(games: pa.Table, pool: str, named: bool) -> pa.Table:
    """The games of ``pool``. Games given, none of them in the default pool (``pool`` not
    ``named``): the ValueError of ``Store.rate`` and ``arpad rate``, naming the pools the
    games have (it was an empty result without a word, e.g. a Lichess bullet TRF, all
    blitz, rated as standard). A pool named by the caller without games, no games at all
    or none left after ``errors="skip"`` stay an empty result (docs/api.md "Arguments")."""
    of_pool = games.filter(pa.compute.equal(games.column("pool"), pool))
    if games.num_rows and not of_pool.num_rows and not named:
        known = sorted(set(games.column("pool").to_pylist()) - {None})
        raise ValueError(
            f"no games stored in pool {pool!r} (pools in the games: {', '.join(known)}): "
            f"pass pool={known[0]!r} to rate them"
        )
    return of_pool


def _check_observations(system, games: pa.Table) -> None:
    """The ratings games give (PGN WhiteElo/BlackElo, TRF) are dated observations that a
    seeding system (FIDE, Harkness, Ingo) takes on a store (docs/observations.md); the
    in-memory run has no observations, so it rated such games as if they gave none
    (every player unrated): a ValueError pointing to the store instead."""
    if not system.seeds_from_observations:
        return
    given = [c for c in ("white_rating", "black_rating") if c in games.column_names]
    if any(games.column(c).null_count < games.num_rows for c in given):
        raise ValueError(
            f"games: {system.name} takes the ratings the games give (white_rating, "
            "black_rating: PGN WhiteElo/BlackElo, TRF) as dated observations, which only "
            "a store keeps: use arpad.Store(PATH).ingest(...) and .rate(...), or drop "
            "those columns and give players= with starting ratings"
        )


def _check_starting_ratings(
    system, players: pa.Table | None, pool: str = "standard", rows: pa.Table | None = None
) -> None:
    """A system that rates no one without published ratings (FIDE, Harkness, Ingo) and
    players without any rating: a ValueError, as ``arpad rate`` refuses such a store
    (it returned every player unrated, or no rows at all). ``rows`` (the players input
    per pool, ``_validated``) giving ratings of other pools only: the ValueError says so
    (a pool's ratings seed that pool alone; ``observations.pool_players``)."""
    if not system.needs_published_ratings:
        return
    if rows is not None and "period" in rows.column_names:
        import pyarrow.compute as pc

        dated = pc.and_(pc.is_valid(rows.column("period")), pc.is_valid(rows.column("rating")))
        if pc.any(pc.and_(dated, pc.equal(rows.column("pool"), pool))).as_py():
            return  # dated ratings of the pool: published ratings, as a store takes them
    ratings = players.column("rating") if players is not None else None
    if ratings is None or ratings.null_count == len(ratings):
        if rows is not None and "pool" in rows.column_names:
            from arpad.pipeline.readers import PLAYER_HEADINGS

            rated = rows.filter(pa.compute.is_valid(rows.column("rating")))
            pools = sorted(set(rated.column("pool").to_pylist()) - {None})
            if pools:
                raise ValueError(
                    f"{system.name} needs published starting ratings of the {pool} pool: the "
                    f"players give {' and '.join(pools)} ratings only, and a pool's ratings "
                    "seed that pool alone (docs/observations.md): give a "
                    f"{pool}_rating column ({PLAYER_HEADINGS[f'{pool}_rating'][0]} in FIDE's "
                    f"list) or rows with pool {pool}"
                )
        raise ValueError(
            f"{system.name} needs published starting ratings: give players= with a "
            "rating column (player_id, rating, rated_games, …)"
        )


RATE_PARAMETERS = (
    "games", "system", "players", "rules", "pool", "mapping", "errors", "fmt", "encoding",
)  # fmt: skip
PREDICT_PARAMETERS = (
    "ratings", "pairings", "system", "rules", "draws", "mapping", "pool", "period", "encoding",
)  # fmt: skip


def _empty_result() -> pl.DataFrame:
    """No rows, with every column of the ratings schema (docs/schemas.md) in its type."""
    from arpad.pipeline import schemas

    return pl.from_arrow(schemas.RATINGS.empty_table()).with_columns(
        pl.col("period").cast(pl.Int32)
    )


class _FromRatings:
    """``predict``'s default ``system``: the one system of the ratings' ``system`` column,
    else FIDE (an explicit ``system=None`` stays the ValueError of a bad name)."""

    def __repr__(self) -> str:
        return "<the ratings' system column, else 'fide'>"


_FROM_RATINGS = _FromRatings()


@_api_advice
@_interrupt.interruptible
def predict(
    ratings,
    pairings,
    system: str = _FROM_RATINGS,
    rules=None,
    draws=None,
    *,
    mapping: str | None = None,
    pool: str | None = None,
    period=None,
    encoding: str | None = None,
    **settings: Any,
) -> pl.DataFrame:
    """Expected scores of new pairings from a rating state (pipeline/predict.py).

    ``ratings``: an ``arpad.Store`` (each player's latest ``pool`` rating of
    ``system`` at or before ``period``, as ``arpad predict --store`` with ``--pool``
    and ``--period``; default: the standard pool, the latest period), or a frame (or
    a CSV/Parquet file) with ``player_id`` and ``rating``
    (or ``rating_after``, as ``rate`` and ``Store.list`` return), one row per player
    (with a ``period`` column: per player and period, the latest counting; ``period``
    given: the latest at or before it; a ``pool`` column and ``pool`` given: that
    pool's rows) and, for
    Glicko systems, ``rd`` (or ``rd_after``; required). ``system``: by default the one
    system the frame's ``system`` column names (as ``rate``'s result has it), else FIDE
    (also for a Store); a ``system`` contradicting that column is a ``ValueError``. A
    ``system`` column naming several systems: the rows of ``system`` are used (it must
    be given). ``pairings``: ``white_id`` and ``black_id`` (or the names ``rate``
    reads as them: ``White``/``Black``, ``White ID``; other columns are kept), or the
    columns of a named games ``mapping``
    (``kaggle2010``: ``White Player #``, ``Black Player #``; renamed as ``rate`` renames
    them, e.g. ``Score`` to ``score``). A pairings CSV file is read as ``arpad predict
    PAIRINGS.csv`` reads it, its notes ``UserWarning``s, and so is a ratings CSV file;
    ``encoding`` (``"cp1252"``) is its ``--encoding``, the code page of a file that is
    not UTF-8 (default: told from its letters, docs/ingest.md "Encodings"), for both
    files; a byte it lacks is a ``ValueError`` (an ``arpad.InputError``) naming the file
    and its line. A store folder's path is that store. A player
    paired with himself is a ``ValueError`` naming the row. A pairing id that a
    Store's merges made a duplicate (``arpad players merge``) is read as the id it was
    merged into, with a ``UserWarning`` naming both (docs/identity.md). Returns the pairings with
    ``white_rating``, ``black_rating`` and ``expected`` (White's expected score, by
    the system's own formula; columns of these names are replaced); unknown players
    give nulls. Mistakes are one-line errors (docs/api.md "Arguments").
    The formula's rules are those the ratings were made with (docs/api.md "Which
    rules predict uses"): a store run's own, a ``rate`` result's of this session or
    a version the ratings' ``rules_hash`` names, else the version in force for their
    period; ``rules`` (a ``--rules`` spec or rules object) replaces them and rule
    fields given as keywords (``scale=200``) change them. Rules whose hash is not the
    ratings' ``rules_hash`` give a ``UserWarning`` naming both.
    ``draws``: a draw model (``arpad.DrawModel``, e.g. ``fit_draws``'s) or a number,
    the draw probability between equal players: adds ``p_white``, ``p_draw`` and
    ``p_black`` (Davidson's model keeping ``expected``; docs/backtest.md "Draws").
    Returns a polars DataFrame. A frame of another kind is a ``TypeError``; ratings
    without ``player_id`` and a rating, with two rows of one player, or (Glicko) without
    RDs, and an unknown system, are ``ValueError``; ``draws`` of another kind is a
    ``TypeError``. Text ids are compared without surrounding whitespace.
    """
    _interrupt.for_rating(
        "arpad.pipeline.predict", systems=[system] if isinstance(system, str) else []
    )
    from arpad.pipeline import engine, jobs
    from arpad.pipeline.predict import (
        latest_state,
        of_system,
        predict_pairings,
        rules_for_ratings,
        store_rules,
    )
    from arpad.pipeline.systems import get_system

    def checked(rules, name: str):  # the arguments, as soon as the system is known
        jobs._check_systems([_args.system_name(name)])
        _args.check_keywords("predict", settings, get_system(name), PREDICT_PARAMETERS)
        return _args.rules_object(rules, get_system(name))

    given = None if system is _FROM_RATINGS else system
    if system is not _FROM_RATINGS:
        rules = checked(rules, system)
    encoding = _encoding(encoding)
    _encoding_for_files(encoding, ratings, pairings)
    pool = None if pool is None else _pool(pool)
    period = _args.period(period, "period")
    stored = None  # (store, pool, period) of a Store's ratings
    if _is_store_folder(ratings):  # a store's folder is that store (as whatif takes it)
        ratings = Store(ratings)
    if isinstance(ratings, Store):  # as `arpad predict --store S`: its latest ratings
        from arpad.pipeline.predict import store_state

        store, system = ratings, "fide" if given is None else system
        where = "standard" if pool is None else pool
        ratings, shown = store_state(store._existing, system, where, period)
        _warn_stale(store._existing, system, where, shown)
        stored = (store._existing, where, shown)
    frame = _whole_ids(pl.from_arrow(_arrow(ratings, "ratings", encoding)))
    system = _system_of_ratings(frame, given)
    if given is None:
        rules = checked(rules, system)
    settings = _args.rule_values(settings, get_system(system))
    frame = of_system(frame, system)
    if "player_id" not in frame.columns and {"white_id", "black_id"} <= set(frame.columns):
        raise ValueError(
            "ratings: this frame has white_id and black_id but no player_id: the pairings? "
            "The call is predict(ratings, pairings)"
        )
    if stored is None:
        frame = _rows_at(frame, pool, period)
    if get_system(system).expected_uses_rd and not {"rd", "rd_after"} & set(frame.columns):
        raise ValueError(
            f"ratings: {system} predicts with the players' RDs and this frame has no rd or "
            "rd_after column (Store.list has none: use Store.ratings or rate's result)"
        )
    state = _finite(latest_state(frame), get_system(system).expected_uses_rd)
    pairs = _whole_ids(_mapped(_pairings(pairings, encoding), mapping))
    if stored is not None:  # a merged duplicate id is read as its kept id (docs/identity.md)
        from arpad.pipeline.predict import merged_pairing_ids

        state, merged = merged_pairing_ids(stored[0], state, pairs)
        if merged:
            warnings.warn(merged, UserWarning, stacklevel=_outside_arpad())
    where = "standard" if pool is None else pool
    chosen = rules or None  # (rules="": none, as before)
    if isinstance(chosen, str | os.PathLike):
        chosen = engine.resolve_rules(system, str(chosen), where)
    if stored is not None:
        rules_obj, note = store_rules(stored[0], system, stored[1], stored[2], settings, chosen)
    else:
        at, hashes = _rules_hashes(frame)
        rules_obj, note = rules_for_ratings(system, where, at, hashes, settings, chosen)
    if note:
        warnings.warn(
            f"{note}: pass their rule fields as keywords (predict(ratings, pairings, "
            "scale=…)) or rules=",
            UserWarning,
            stacklevel=_outside_arpad(),
        )
    return predict_pairings(state, pairs, system, rules_obj, _draw_model(draws))


def _rows_at(frame: pl.DataFrame, pool: str | None, period: int | None) -> pl.DataFrame:
    """A ratings frame's rows of ``pool`` (when it has a ``pool`` column) and at or
    before ``period`` (it needs a ``period`` column), as ``predict`` of a Store reads
    them; no row left is a ValueError naming what the frame has."""
    if pool is not None and "pool" in frame.columns:
        pools = sorted(str(p) for p in frame["pool"].drop_nulls().unique().to_list())
        frame = frame.filter(pl.col("pool") == pool)
        if not frame.height:
            raise ValueError(f"ratings: no rows of pool {pool!r} (pools: {', '.join(pools)})")
    if period is None:
        return frame
    if "period" not in frame.columns:
        raise ValueError("period: these ratings have no period column (give the rows to use)")
    periods = frame["period"].drop_nulls()
    frame = frame.filter(pl.col("period").cast(pl.Int64, strict=False) <= period)
    if not frame.height:
        first = f" (rated periods from {periods.min()})" if periods.len() else ""
        raise ValueError(f"ratings: no rows at or before period {period}{first}")
    return frame


def _rules_hashes(frame: pl.DataFrame) -> tuple[int | None, set[str]]:
    """(period, hashes): the ratings' latest period (None without a whole-number
    ``period`` column) and the ``rules_hash`` values of its rows (``rate``'s result and
    ``Store.ratings`` have them; empty without the column)."""
    if "period" not in frame.columns or not frame.schema["period"].is_integer():
        return None, set()
    at = frame["period"].max()
    if at is None:
        return None, set()
    if "rules_hash" not in frame.columns:
        return int(at), set()
    rows = frame.filter(pl.col("period") == at)["rules_hash"].drop_nulls()
    return int(at), {str(h) for h in rows.unique().to_list()}


def _system_of_ratings(frame: pl.DataFrame, system: str | None) -> str:
    """The system ``predict`` predicts with: ``system`` when given, else the one system
    the ratings' ``system`` column names (``rate``'s result of Glicko-2 was predicted
    with FIDE's table, the default, without a word), else FIDE. A ``system`` that
    contradicts a one-system column, or a column of several systems and no ``system``,
    is a ValueError."""
    names = []
    if "system" in frame.columns:
        names = sorted({str(n) for n in frame["system"].drop_nulls().unique().to_list()})
    if system is None:
        if len(names) > 1:
            raise ValueError(
                f"ratings hold the systems {', '.join(names)}: pass system= (one of them)"
            )
        return names[0] if names else "fide"
    if len(names) == 1 and names[0] != system:
        raise ValueError(
            f"system={system!r}, but the ratings are {names[0]}'s (their system column): "
            f"pass system={names[0]!r} or leave it out"
        )
    return system


def _is_store_folder(path) -> bool:
    if not isinstance(path, str | os.PathLike):
        return False
    from arpad.pipeline.store import Store as _Store

    folder = Path(path).expanduser()
    return folder.is_dir() and _Store(folder).exists()


def _mapped(pairs: pl.DataFrame, mapping: str | None) -> pl.DataFrame:
    """The pairings' columns renamed by the games ``mapping`` as ``rate`` renames a
    games file's: pipeline/predict.py ``mapped_pairings``, shared with ``arpad predict
    --mapping``."""
    from arpad.pipeline.predict import mapped_pairings

    return mapped_pairings(pairs, mapping)


def _finite(state: pl.DataFrame, uses_rd: bool) -> pl.DataFrame:
    """The rating state checked as a players file's ratings are: ±inf is no rating (it
    predicted 1.0 or 0.0, FIDE 0.92 by the 400-point rule, with NumPy's "invalid value"
    warning); NaN or null is no rating (predictions null). For Glicko systems a rated
    player needs a finite RD ≥ 0 (a NaN RD was taken as 0 without a word)."""
    rating, rd = pl.col("rating"), pl.col("rd")
    bad = state.filter(rating.is_infinite())
    if bad.height:
        row = bad.row(0, named=True)
        raise ValueError(
            f"ratings: player {row['player_id']!r} has rating {row['rating']}: a rating is a "
            "finite number (NaN or null: no rating)"
        )
    if uses_rd:
        rated = rating.is_not_null() & rating.is_not_nan()
        odd = rd.is_null() | rd.is_nan() | rd.is_infinite() | (rd < 0)
        bad = state.filter(rated & odd)
        if bad.height:
            row = bad.row(0, named=True)
            raise ValueError(
                f"ratings: player {row['player_id']!r} has a rating but RD {row['rd']}: "
                "Glicko systems predict with each rated player's RD (a finite number >= 0)"
            )
    return state


def _whole_ids(frame: pl.DataFrame) -> pl.DataFrame:
    """Player ids held as floats (a pandas integer column with a missing value) as the
    whole numbers they hold, as ``rate`` reads them: pairing ``1.0`` is player ``"1"``
    (it matched no one, and its prediction came back null without a word). Text ids are
    stripped of surrounding whitespace, as ``rate`` and ``arpad ingest`` strip them: pairing
    ``" 73"`` is player ``"73"`` (it came back null)."""
    out = []
    for name in ("player_id", "white_id", "black_id"):
        if name in frame.columns and frame.schema[name] in (pl.String, pl.Categorical):
            out.append(pl.col(name).cast(pl.String).str.strip_chars().alias(name))
        elif name in frame.columns and frame.schema[name].is_float():
            col = pl.col(name)
            whole = (col == col.floor()) & (col.abs() < 2.0**53)
            text = pl.when(whole).then(col.cast(pl.Int64, strict=False).cast(pl.String))
            out.append(text.otherwise(col.cast(pl.String)).alias(name))
    return frame.with_columns(out) if out else frame


def _draw_model(draws):
    if draws is None or draws is False:
        return None
    if isinstance(draws, DrawModel):
        return draws
    if isinstance(draws, bool) or not isinstance(draws, (int, float)):
        raise TypeError("draws: a DrawModel or the draw probability between equal players")
    return DrawModel.from_draw_rate(float(draws))


def _encoding(encoding) -> str | None:
    """``encoding=`` checked as ``--encoding`` is (``jobs._check_encoding``: Python's
    name of the codec; an unknown one a one-line ValueError in the API's words)."""
    if encoding is None:
        return None
    from arpad.pipeline.jobs import _check_encoding

    try:
        return _check_encoding(encoding)
    except ValueError as exc:
        raise ValueError(_in_api_words(str(exc))) from None


def _pairings(pairings, encoding: str | None) -> pl.DataFrame:
    """``predict``'s pairings: a CSV file read as ``arpad predict PAIRINGS.csv`` reads it
    (``_csv_frame``: UTF-8, else ``encoding`` or the code page its letters say, with the
    notes as ``UserWarning``s; every field text), a Parquet file or a table (``_arrow``)."""
    if _is_csv_file(pairings):
        return _csv_frame(Path(pairings).expanduser(), "pairings", encoding)
    return pl.from_arrow(_arrow(pairings, "pairings"))


def _encoding_for_files(encoding: str | None, *data) -> None:
    """``encoding`` given with no CSV file among ``data`` (tables, a store, Parquet)
    is a TypeError: it would be ignored."""
    if encoding is not None and not any(_is_csv_file(d) for d in data):
        got = " and ".join(type(d).__name__ for d in data)
        what = "a pairings CSV file or a ratings CSV file" if len(data) == 2 else "a CSV file"
        raise TypeError(f"encoding: only for {what} (a path), got {got}")


def _in_api_errors(function, *args, **kwargs):
    """``function(*args, **kwargs)``, an InputError of reading a file (a byte the code
    page stated lacks: ``(--encoding cp1252)``) in the API's words (``encoding='cp1252'``)."""
    try:
        return function(*args, **kwargs)
    except InputError as exc:
        problem = _in_api_words(exc.problem)
        if problem == exc.problem:
            raise
        raise InputError(exc.path, exc.line, problem) from None


def _in_force(in_force, period, date) -> tuple[Any, bool]:
    """``Store.list``'s ``in_force`` as ``list_frame``'s (in_force, frozen): False
    neither; True the published list (``frozen``); a day (text, ``datetime.date``) that
    of ``arpad list --in-force DAY``, which takes no ``period`` or ``date``."""
    if in_force is None or in_force is False:
        return None, False
    if in_force is True:
        return None, True
    if isinstance(in_force, datetime.datetime):
        in_force = in_force.date()
    if not isinstance(in_force, str | datetime.date):
        raise TypeError(
            f"in_force: True (the published list) or a day ('2026-12-01'), got {in_force!r}"
        )
    if period is not None or date is not None:
        raise ValueError(
            "in_force: a day is the list in force then; give it, period or date, not two "
            "(in_force=True with period= is that period's published list)"
        )
    return in_force, False


def _games_file(path, what: str) -> Path:
    """A games file argument (str or os.PathLike, ``~`` expanded): a one-line
    TypeError for anything else, FileNotFoundError when it is not there."""
    if isinstance(path, bool) or not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{what}: a games file path (str or os.PathLike), got {type(path).__name__}"
        )
    out = Path(os.path.expanduser(path))
    if not out.is_file():
        raise FileNotFoundError(f"{what}: no such file: {out}")
    return out


def _players_input(players):
    """``players=`` of ``category``, ``norm`` and ``performance`` as (file, roster): a
    players file's path (read by the tool, as ``--players F``), or the ``Roster`` of a
    table of players (a polars or pandas DataFrame, an Arrow table, ``rate``'s result, …)
    read as ``arpad.rate`` reads its ``players=`` (``_validated``, ``pool_players``), rows
    that cannot be read left out with a warning, as a file's are. Anything else is the
    TypeError of a table argument naming ``players`` (it said "a games file path", and a
    frame ``rate`` takes was refused: analyst round 14)."""
    if players is None:
        return None, None
    if isinstance(players, str | os.PathLike):
        return _games_file(players, "players"), None
    if isinstance(players, Store):
        raise TypeError(f"players: a players file path or a table of players, got {players!r}")
    from arpad.pipeline.observations import pool_players
    from arpad.pipeline.schemas import POOLS
    from arpad.pipeline.tournament import Roster, roster_ratings

    table, _ = _ratings_as_players(players)  # rate's result: its state after (round 10)
    rows = _validated(table, "players", None, "skip")
    by_pool = {pool: pool_players(rows, pool) for pool in POOLS}
    return None, Roster(by_pool[POOLS[0]], {p: roster_ratings(t) for p, t in by_pool.items()})


def category(
    source=None, *, average=None, event=None, women: bool = False, players=None, encoding=None
):
    """FIDE tournament category (docs/legacy-systems.md "Categories"), as ``arpad
    category``: of each event of a games file (PGN, TRF, CSV, … ``source`` a path;
    ``players`` a players file for ratings the games do not state; ``encoding`` their
    code page when they are not UTF-8, ``--encoding``) or of a ``Store``'s
    games, a polars DataFrame (``event_id``, ``players``, ``rated_players``,
    ``average``, ``average_rounded``, ``category``; null category for an event
    without rated players); ``event`` one event only. Of one ``average`` rating: the
    category, an int. A file's notes are ``UserWarning``s, as ``rate``'s. ``TypeError``
    for a source that is neither, ``ValueError`` for both or neither, an event with no
    games."""
    from arpad.pipeline.tournament import fide_category, store_event_categories
    from arpad.pipeline.tournament_files import file_categories, load

    if not isinstance(women, bool):
        raise TypeError(f"women: True or False, got {women!r}")
    if event is not None and not isinstance(event, str):
        raise TypeError(f"event: an event name (str), got {type(event).__name__}")
    if (source is None) == (average is None):
        raise ValueError("category takes a games file or a Store, or average=R (one of them)")
    encoding = _encoding(encoding)
    if encoding is not None and (average is not None or isinstance(source, Store)):
        raise ValueError("encoding: only with a games file (the files the call reads)")
    if average is not None:
        if isinstance(average, bool) or not isinstance(average, int | float | np.number):
            raise TypeError(f"average: a rating (a number), got {average!r}")
        return fide_category(float(average), women=women)
    if isinstance(source, Store):
        if players is not None:
            raise ValueError("players: only with a games file (a Store has its players)")
        return pl.from_arrow(store_event_categories(source._existing, event, women=women))
    path = _games_file(source, "category")
    roster, given = _players_input(players)
    notes: list[str] = []
    games, table, _ = _in_api_errors(load, path, roster, notes=notes, encoding=encoding)
    _warn_notes(path, notes, roster)
    table = table if given is None else given  # a table of players (analyst round 14)
    return pl.from_arrow(file_categories(games, table, event, women=women))


def performance(
    games, *, players=None, by: str = "player", curve: str = "normal", mapping=None, encoding=None
) -> pl.DataFrame:
    """Performance ratings of a set of games (docs/legacy-systems.md "Performance
    ratings"), as ``arpad performance FILE``: ``games`` a games file (PGN, TRF, CSV,
    Parquet, … read as the command reads it; ``mapping`` its ``--mapping``, ``encoding``
    its ``--encoding``) or a table of games (a polars or pandas DataFrame, an Arrow
    table, …, with ``white_id``, ``black_id``, a result and ``white_rating``/
    ``black_rating``; ``mapping`` renames its columns as ``rate``'s). ``players``: a
    players file whose ratings (of each game's pool) stand in for the ratings the games
    do not state (``--players F``). ``by``: ``"player"`` (one row per player) or
    ``"event"`` (per player and event, ``--by event``); ``curve``: ``"normal"`` or
    ``"logistic"``, the curve of the true performance (``--curve``). Returns a polars
    DataFrame with the command's columns: ``player_id``, [``event_id``], ``games``,
    ``score``, ``percent``, ``average_opponent``, ``fide`` (table 8.1.1), ``linear``,
    ``true``, ``virtual_draw`` (true at 0 %/100 %: the true performance includes one
    virtual draw against the player's own rating) and ``curve``; games against an
    unrated opponent are left out. A file's notes, its rows that cannot be read (left
    out, as the command leaves them out) and an empty result of games (no opponent with
    a rating) are ``UserWarning``s, as the command prints them on stderr. ``TypeError``
    for games that are neither a path nor a table, ``ValueError`` for an unknown ``by``
    or ``curve``, ``FileNotFoundError`` for a file that is not there."""
    from arpad.pipeline.performance import performance_table
    from arpad.pipeline.tournament_files import load

    games = _one_file(games, "games", "performance")  # several paths: a TypeError saying so
    for name, value, known in (
        ("by", by, ("player", "event")),
        ("curve", curve, ("normal", "logistic")),
    ):
        if not isinstance(value, str) or value not in known:
            raise ValueError(f"{name}: {value!r} is not one of {', '.join(known)}")
    if mapping is not None and not isinstance(mapping, str):
        raise TypeError(f"mapping: a mapping name (str), got {type(mapping).__name__}")
    encoding = _encoding(encoding)
    roster_file, given = _players_input(players)
    notes: list[str] = []
    if isinstance(games, str | os.PathLike):
        path = _games_file(games, "performance")
        name = str(path)
        try:  # the file's notes also before an error, as the command prints them
            table, roster, _ = _in_api_errors(
                load, path, roster_file, mapping, notes=notes, encoding=encoding
            )
        finally:
            _warn_notes(path, notes, roster_file)
    else:
        if isinstance(games, Store):
            raise TypeError(
                "games: a games file or a table of games, got a Store: a store's performance "
                "ratings are the performance column of store.ratings(system)"
            )
        if encoding is not None and roster_file is None:
            raise TypeError(
                f"encoding: only for a games file or a players file (a path), "
                f"got {type(games).__name__}"
            )
        name = "games"
        table = _validated(games, "games", mapping, "skip")
        roster = None
        if roster_file is not None:
            from arpad.pipeline.performance import read_players_file

            try:
                roster = _in_api_errors(
                    read_players_file, roster_file, notes=notes, encoding=encoding
                )
            finally:
                _warn_notes(roster_file, notes, roster_file)
    roster = roster if given is None else given  # a table of players (analyst round 14)
    result = performance_table(table, roster, by=by, curve=curve)
    if not result.num_rows and table.num_rows:  # an empty table said nothing (the command's note)
        warnings.warn(
            f"{name}: no performance: none of its {table.num_rows} games has an opponent "
            "with a rating (WhiteElo/BlackElo, or the players= file's rating of the game's pool)",
            stacklevel=_outside_arpad(),
        )
    return pl.from_arrow(result)


def norm(file, player, title: str, *, players=None, event=None, federation=None, encoding=None):
    """Title-norm check of ``player`` (an id or a name of the file's players) in a games
    file (docs/legacy-systems.md "Title-norm check"), as ``arpad norm FILE --player
    ID --title T``. Returns the ``NormCheck``: one line in a notebook (games, score,
    Ra, Rp, verdict), ``print(check)`` condition by condition as the command prints
    it; ``.conditions``, ``.verdict``, ``.achieved``, ``.failed``, ``.opponents_used``.
    ``players``: a players file (ratings, titles, federations); ``event`` one event of
    the file; ``federation`` the player's, when the file does not say; ``encoding`` the
    code page of the files when they are not UTF-8 (``--encoding``). Only standard
    games count: a player with none fails the condition ``pool``. The file's notes are
    ``UserWarning``s, as ``rate``'s. ``ValueError`` for an unknown title, a player with
    no rated game in the file (or a name matching several; the message names the file's
    id form), ``TypeError`` for a file that is no path."""
    from arpad.pipeline.tournament import NORMS
    from arpad.pipeline.tournament_files import file_norm, load

    path = _games_file(file, "norm")
    if not isinstance(title, str) or title.upper() not in NORMS:
        raise ValueError(f"title: {title!r} is not one of {', '.join(NORMS)}")
    if isinstance(player, bool) or not isinstance(player, str | int):
        raise TypeError(f"player: one player id or name (str), got {type(player).__name__}")
    for name, value in (("event", event), ("federation", federation)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name}: a str, got {type(value).__name__}")
    encoding = _encoding(encoding)
    roster, given = _players_input(players)
    notes: list[str] = []
    try:  # the file's notes also before an error, as `arpad norm` prints them
        games, table, raw = _in_api_errors(load, path, roster, notes=notes, encoding=encoding)
        table = table if given is None else given  # a table of players (analyst round 14)
        return file_norm(games, table, raw, str(player), title, path.name, event, federation, notes)
    finally:
        _warn_notes(path, notes, roster)


def fit_draws(predicted, score: str = "score", *, encoding: str | None = None):
    """Returns the draw model (``arpad.DrawModel``) that best explains played games: ``predicted``
    is ``predict``'s output for games already played (ratings from before them) with
    White's ``score`` (1, 0.5, 0, or results as text: ``1-0``, ``1/2-1/2``) in a column;
    ν by maximum likelihood (pipeline/draws.py ``fit_nu``). Rows without ``expected`` or
    a score are left out. A missing ``expected`` or ``score`` column, or a score that is
    no result, is a ``ValueError`` naming the column. ``predicted`` may be a CSV file
    (read as ``predict`` reads one: UTF-8, else ``encoding``, ``"cp1250"``, or the code
    page its letters say; a byte the code page lacks is a ``ValueError`` naming the file
    and its line) or a Parquet file; ``encoding`` with a table is a ``TypeError``."""
    from arpad.pipeline.draws import fit_nu

    encoding = _encoding(encoding)
    _encoding_for_files(encoding, predicted)
    frame = pl.from_arrow(_arrow(predicted, "predicted", encoding))
    missing = [c for c in ("expected", score) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"predicted: no column {missing[0]!r} (predict's output for played games, "
            "with White's score in a column)"
        )
    if frame.schema[score] in (pl.String, pl.Categorical) or isinstance(
        frame.schema[score], pl.Enum
    ):
        frame = frame.with_columns(_scores_of_text(frame[score], score))
    frame = frame.drop_nulls(["expected", score])
    return fit_nu(
        frame["expected"].cast(pl.Float64).to_numpy(), frame[score].cast(pl.Float64).to_numpy()
    )


def _scores_of_text(column: pl.Series, name: str) -> pl.Series:
    """White's scores given as results (``1-0``, ``1/2-1/2``, ``0-1``, or numbers as text,
    as a games file has them; pipeline/validate.py ``RESULTS``): the scores; a forfeit is
    no game (null, left out). Anything else is a ValueError naming the column; it was
    polars' "conversion from `str` to `f64` failed"."""
    from arpad.pipeline.validate import RESULTS

    text = column.cast(pl.String).str.strip_chars()
    known = {k: (v if rated else None) for k, (v, rated) in RESULTS.items()}
    scores = text.replace_strict(known, default=None, return_dtype=pl.Float64)
    numbers = text.cast(pl.Float64, strict=False)
    result = text.is_in(list(known))
    out = pl.select(pl.when(result).then(scores).otherwise(numbers)).to_series()
    bad = text.filter(text.is_not_null() & ~result & numbers.is_null())
    if bad.len():
        raise ValueError(
            f"predicted: column {name!r} holds {bad[0]!r}: White's score (1, 0.5, 0) or a "
            "result (1-0, 1/2-1/2, 0-1)"
        )
    return out.alias(name)


def _system(system) -> str:
    """``system`` checked as the commands check ``--system``: a one-line ValueError."""
    from arpad.pipeline import jobs

    jobs._check_systems([_args.system_name(system)])
    return system


def _pool(pool) -> str:
    """``pool`` checked before a store is read: one of the pools, else a one-line
    ValueError naming them (and the near one: ``'Blitz'`` is ``'blitz'``); a pool
    that is no pool was "no ratings …: run arpad rate first" (docs/api.md)."""
    from arpad.pipeline import schemas

    if isinstance(pool, str) and pool in schemas.POOLS:
        return pool
    near = [p for p in schemas.POOLS if isinstance(pool, str) and p == pool.strip().lower()]
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise ValueError(f"pool: {pool!r} is not one of {', '.join(schemas.POOLS)}{hint}")


RUN_KEYWORDS = ("flow", "cluster", "workers")
INGEST_PARAMETERS = (
    "files",
    "players",
    "fmt",
    "mapping",
    "replace",
    "wait",
    "keep_probable_duplicates",
    "source",
    "pool",
    "ignore_stated_ratings",
    "rate_moveless",
    "encoding",
)
STORE_RATE_PARAMETERS = (
    "system", "pool", "start", "end", "rules", "full", "shards", "wait", "progress",
)  # fmt: skip
RECONSTRUCT_PARAMETERS = ("systems", "pools", "wait", "progress", *RUN_KEYWORDS)
CARD_PARAMETERS = ("player", "period", "pool", "rules")


def launch_job(job: str, request, flow, cluster, workers, progress=None):
    """``job`` through ``launch.run``, as ``arpad JOB`` runs it, ``workers`` checked and the
    imports a run needs made with interrupts held (src/arpad/_interrupt.py)."""
    from arpad.pipeline import launch

    workers = _args.whole(workers, "workers", "workers")
    _interrupt.for_run(flow, cluster, workers)
    return launch.run(job, request, flow=flow, cluster=cluster, workers=workers, progress=progress)


def _check_progress(progress) -> None:
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress: a function progress(done, total, games), got {type(progress).__name__}"
        )


class Store:
    """A store on disk (docs/store.md), driven by the same jobs as the command line.

    >>> store = arpad.Store("arpad-store")
    >>> store.ingest("games.csv", players="players.csv")
    >>> store.rate("fide")
    >>> store.list("fide", top=10)
    """

    def __init__(self, path: str | Path):
        from arpad.pipeline.store import Store as _Store

        if isinstance(path, Store):  # arpad.Store(store) is that store
            path = path.path

        self.path = Path(path).expanduser().resolve()
        self._store = _Store(self.path)

    def __repr__(self) -> str:
        return f"arpad.Store({str(self.path)!r})"

    @property
    def _existing(self):
        """The store, for the calls that read it: a path with no store (a typo) is a
        FileNotFoundError naming it, as ``arpad`` commands say, not an empty answer."""
        if not self._store.exists():
            raise FileNotFoundError(f"no store at {self.path} (ingest something first)")
        return self._store

    @_interrupt.interruptible
    def _run(self, job: str, request, **how):
        try:
            return launch_job(
                job,
                request,
                how.get("flow", False),
                how.get("cluster"),
                how.get("workers"),
                how.get("progress"),
            )
        except StoreBusyError as exc:  # the command's advice, in the API's words
            raise StoreBusyError(str(exc).replace("--wait SECONDS", "wait=SECONDS")) from None

    @_api_advice
    def ingest(
        self,
        files,
        players=None,
        *,
        fmt: str | None = None,
        mapping: str | None = None,
        replace: bool = False,
        wait: float = 0.0,
        keep_probable_duplicates: bool = False,
        source: str | None = None,
        pool: str | None = None,
        ignore_stated_ratings: bool = False,
        rate_moveless: bool = False,
        encoding: str | None = None,
        **how,
    ):
        """Ingest games files (and players files first); returns the ingest report
        (``.accepted``, ``.quarantined``, ``.files``). Rejected rows are quarantined,
        never dropped: see ``sql("SELECT * FROM quarantine")``. ``wait``: seconds to
        wait for another writer of the store (else ``StoreBusyError`` at once).
        ``files``: a path or paths (str or ``os.PathLike``); a DataFrame is a
        ``TypeError`` (in-memory games: ``arpad.rate``). A store that cannot be written
        (read-only) or a path that is a file is an ``InputError``.
        ``keep_probable_duplicates``: store PGN/TRF games that repeat the date,
        players and result of a game of another file (docs/pgn-trf.md). ``source``,
        ``pool``, ``ignore_stated_ratings``, ``rate_moveless``: ``arpad ingest``'s
        ``--source`` (the one games file is a new version of that source), ``--pool``,
        ``--ignore-stated-ratings`` and ``--rate-moveless`` (docs/ingest.md); ``encoding``:
        ``--encoding``, the code page of text files that are not UTF-8 ('cp1250', …;
        docs/ingest.md "Encodings"); the report's notes name these keywords."""
        _interrupt.for_rating("arpad.pipeline.ingest", "arpad.pipeline.readers")
        from arpad.pipeline.jobs import IngestRequest

        for key in how:  # else a typo (player=, mappping=) was dropped without a word
            if key not in RUN_KEYWORDS:
                near = _args.close(key, (*INGEST_PARAMETERS, *RUN_KEYWORDS))
                raise TypeError(f"ingest() got an unexpected keyword argument {key!r}{near}")
        as_list = _args.paths(files, "files")
        players = _args.paths(players, "players")
        request = IngestRequest(
            str(self.path),
            as_list,
            players,
            fmt,
            mapping,
            replace,
            wait,
            source=source,
            keep_probable_duplicates=keep_probable_duplicates,
            pool=None if pool is None else _pool(pool),
            ignore_stated_ratings=ignore_stated_ratings,
            rate_moveless=rate_moveless,
            encoding=encoding,
        )
        report = self._run("ingest", request, **how)
        for file in report.files:  # its notes' advice in the API's words, as the errors'
            if file.skipped:
                file.skipped = _in_api_words(file.skipped)
            file.notes = [_in_api_words(n) for n in file.notes]
            file.examples = [_in_api_words(e) for e in file.examples]
        return report

    @_api_advice
    def rate(
        self,
        system: str = "fide",
        *,
        pool: str = "standard",
        start: int | None = None,
        end: int | None = None,
        rules: str | None = None,
        full: bool = False,
        shards: int | None = None,
        wait: float = 0.0,
        progress=None,
        **settings,
    ):
        """Rate one pool with one system (incremental after corrections, like
        ``arpad rate``); ``settings`` are rule fields. Returns the run summary
        (``RateSummary``: ``.periods``, ``.games``, ``.rows_written``).
        ``flow=True``, ``cluster=…``, ``workers=…`` choose where it runs; ``wait``:
        seconds to wait for another writer of the store (else ``StoreBusyError``).
        ``progress``: called after each rated period as ``progress(done, total,
        games)`` (in this process, also with ``workers``; not with ``flow=True``); an
        exception it raises stops the run, as an interrupt does
        (the next call resumes; docs/api.md "Attacked in a notebook, round 3").
        A bad argument is a ``ValueError``/``TypeError`` naming it."""
        from arpad.pipeline import jobs
        from arpad.pipeline.jobs import RateRequest
        from arpad.pipeline.systems import get_system

        if isinstance(system, list | tuple | set | frozenset):
            raise TypeError(
                f"rate() takes one system name, got {type(system).__name__} {list(system)!r}: "
                "store.reconstruct(systems=[...]) rates several from the first period, side "
                "by side with workers=2"
            )
        how = {k: settings.pop(k) for k in ("flow", "cluster", "workers") if k in settings}
        _interrupt.for_rating(systems=[system] if isinstance(system, str) else [])
        jobs._check_systems([_args.system_name(system)])
        _args.check_keywords(
            "rate", settings, get_system(system), (*STORE_RATE_PARAMETERS, *RUN_KEYWORDS)
        )
        start, end = _args.period(start, "start"), _args.period(end, "end")
        if start is not None and end is not None and start > end:
            raise ValueError(f"start {start} is after end {end}")
        shards = _args.whole(shards, "shards", "shards")
        rules = _args.date_text(rules)
        if rules is not None and not isinstance(rules, str | os.PathLike):
            raise TypeError(
                f"rules: a rules spec (a date or a JSON file), got {type(rules).__name__} "
                "(rule fields go in as keywords: k=32)"
            )
        rules = None if rules is None else str(rules)
        overrides = {k: str(v) for k, v in settings.items()}
        request = RateRequest(
            str(self.path), system, pool, start, end, rules, overrides, full, shards, wait
        )
        _check_progress(progress)
        if _args.system_name(system) == "ecf":
            _ecf_ignores_rating(get_system("ecf"), self._existing.read_players())
        summary = self._run("rate", request, progress=progress, **how)
        for note in getattr(summary, "notes", None) or ():  # ECF's year-only games
            warnings.warn(f"{summary.system}/{summary.pool}: {note}", stacklevel=_outside_arpad())
        return summary

    @_api_advice
    def reconstruct(
        self, systems=None, *, pools=None, wait: float = 0.0, progress=None, **settings
    ):
        """Rate ``systems`` (a name or a list; default: every system) over ``pools``
        (default: every pool of the store) from the first period, as ``arpad
        reconstruct`` does; returns the run summaries, one per system and pool. The
        systems are independent units: ``workers=2`` (a local Dask cluster) or
        ``cluster="tcp://…"`` rates them side by side. A system that needs published
        starting ratings the store lacks is skipped with its reason (``.skipped``).
        Other keywords are rule fields for every system (``k=24``). ``progress``: called
        after each rated period of each system/pool as ``progress(done, total, games)``,
        ``done``/``total`` counting that unit's periods (they start again at 1 for the next
        unit), when the units run one after the other in this process; with ``workers``
        or ``cluster`` the units run elsewhere and it is not called. Returns a list of
        ``RateSummary`` (``.system``, ``.pool``, ``.periods``, ``.skipped``). Every system
        skipped, an unknown system or rule field: ``ValueError``; a parameter misspelt
        (``system=``): ``TypeError``; no store at the path: ``FileNotFoundError``."""
        from arpad.pipeline.jobs import ReconstructRequest

        how = {k: settings.pop(k) for k in RUN_KEYWORDS if k in settings}
        systems = _args.names(systems, "systems")
        pools = _args.names(pools, "pools")
        _args.check_run_keywords("reconstruct", settings, systems, RECONSTRUCT_PARAMETERS)
        _interrupt.for_rating(systems=systems or [])
        overrides = {k: str(v) for k, v in settings.items()}
        request = ReconstructRequest(str(self.path), systems, pools, overrides, wait)
        store = self._existing  # a path with no store: one line, before any cluster starts
        # No games stored: refused as Store.rate refuses it (it returned []), unless
        # ratings of pools now without games are there to remove (the job removes them
        # and says so, docs/store.md "A pool left with no games").
        if pools is None and not store.pools():
            from arpad.pipeline.jobs import _gameless, check_pool

            if not _gameless(store, request.systems):
                check_pool(store, "standard")
        _check_progress(progress)
        summaries = self._run("reconstruct", request, progress=progress, **how)
        for summary in summaries:  # why a system was skipped, in the API's words
            if summary.skipped:
                summary.skipped = _in_api_words(summary.skipped)
        return summaries

    @_api_advice
    @_interrupt.reading
    def list(
        self, system: str = "fide", *, pool: str = "standard", period: int | None = None,
        top: int | None = None, date: str | None = None, min_games: int | None = None,
        in_force=False,
    ) -> pl.DataFrame:  # fmt: skip
        """The rating list of ``period`` (default: the latest rated one); ``date``
        ('1886', '1886-03', '1886-03-15') instead: the list as it stood on that date,
        the latest rated period at or before it (docs/lists.md "A list on a date").
        ``in_force=True``: the list as published (``arpad publish``: the frozen list of
        ``period``, default the latest rated or published period, also one whose
        ratings are gone; a period never published: its current list), as ``arpad list
        --in-force`` shows it; ``in_force`` a day ('2026-12-01', '2026-12', a
        ``datetime.date``) instead of ``period``/``date``: the list in force on that day,
        ``arpad list --in-force 2026-12-01`` (docs/lists.md). A published list revised
        since is a ``UserWarning`` (the command's note).

        A polars DataFrame, best first: ``rank``, ``player_id``, ``name``,
        ``federation``, ``title``, ``rating``, ``games``, ``k``, ``flag``, ``status``,
        then ``system`` (so that ``arpad.predict`` of the list uses that system's
        expected score) (``top``: the first ``top`` rows). ``FileNotFoundError`` without a
        store, ``ValueError`` for an unknown system, a bad period or date."""
        from arpad.pipeline.lists import rating_list

        if date is not None and period is not None:
            raise ValueError("give period or date, not both")
        if isinstance(date, datetime.datetime):  # a pandas Timestamp too: its day
            date = date.date()
        top = _args.whole(top, "top", "players")
        period = _args.period(period, "period")
        min_games = _args.whole(min_games, "min_games", "games")  # docs/lists.md --min-games
        day, frozen = _in_force(in_force, period, date)
        store, system, pool = self._existing, _system(system), _pool(pool)
        frame, shown = rating_list(store, system, pool, period, top, date, min_games, day, frozen)
        if (frozen or day is not None) and shown in store.published_periods(system, pool):
            from arpad.pipeline.lists import revised_note  # as `arpad list --in-force` says

            if note := revised_note(store, system, pool, shown):
                warnings.warn(_in_api_words(note), UserWarning, stacklevel=_outside_arpad())
        else:
            _warn_stale(store, system, pool, shown)
        # the system goes with its numbers: predict(store.list("ecf"), …) read ECF grades
        # with FIDE's table (the re-attack of 2026-12-03)
        return frame.with_columns(pl.lit(_system(system)).alias("system"))

    @_api_advice
    @_interrupt.reading
    def publish(
        self,
        system: str = "fide",
        *,
        pool: str = "standard",
        period: int | None = None,
        force: bool = False,
        skip_earlier: bool = False,
    ) -> dict:
        """Freeze the list of ``period`` (default: the latest finished month) under
        ``STORE/published/``; the publication's manifest. A period already published is
        refused (ValueError), and so are ratings made stale by a later correction or
        merge, a month in progress unless ``force`` (``arpad publish --force``;
        docs/lists.md "Only finished months are frozen"), and a period after finished
        months not published since the latest published list unless ``skip_earlier``
        (``arpad publish --skip-earlier``: they can then never be published)."""
        from arpad.pipeline.publish import freeze

        for name, value in (("force", force), ("skip_earlier", skip_earlier)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} takes True or False, got {value!r}")
        return freeze(
            self._existing,
            _system(system),
            _pool(pool),
            _args.period(period, "period"),
            force=force,
            skip_earlier=skip_earlier,
        )

    @_stale_checked
    @_api_advice
    @_interrupt.reading
    def diff(
        self, period: int, system: str = "fide", *, pool: str = "standard"
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """(players, corrections): two polars DataFrames, the published list of
        ``period`` against the current ratings, and the corrections since the
        publication (docs/lists.md "Published lists"). A period never published is a
        ``ValueError`` listing the published ones."""
        from arpad.pipeline.publish import diff

        return diff(self._existing, _system(system), _pool(pool), _args.period(period, "period"))

    @_api_advice
    @_interrupt.reading
    def site(self, out: str | Path, *, system: str | None = None, pools=None):
        """Write the static HTML site of the published lists into ``out`` (``arpad
        site``, docs/site.md); the summary (``.lists``, ``.players``, ``.cards``). A store
        with nothing published is a ``ValueError`` (``publish`` first)."""
        from arpad.pipeline.site import build_site

        if isinstance(pools, str):  # one pool, not its letters
            pools = [pools]
        return build_site(self._existing, out, system, list(pools) if pools else None)

    @_stale_checked
    @_api_advice
    @_interrupt.reading
    def audit(
        self, player: str, system: str = "fide", pool: str = "standard"
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """(periods, ingests): why ``player`` has their rating (docs/store.md "Audit
        trail"). Two polars DataFrames: the player's ratings rows (``period``,
        ``rating_before``, ``rating_after``, ``change``, ``games``, ``score``, ``status``,
        ``rules``, ``rules_hash``, ``run_id``) and the ingests and merges behind them
        (``recorded_at``, ``action``, ``source``, …). No such player: ``ValueError``."""
        from arpad.pipeline.audit import audit

        return audit(self._existing, _args.player(player), _system(system), _pool(pool))

    @_stale_checked
    @_api_advice
    @_interrupt.reading
    def history(
        self, player: str | int, system: str = "fide", pool: str = "standard"
    ) -> pl.DataFrame:
        """One player's rating history, period by period; ``player`` by id or name
        (docs/analysis.md "Players by name"). A polars DataFrame: ``period``, ``event``,
        ``rating_before``, ``delta``, ``rating_after`` (then ``rd`` for Glicko, Glicko-2
        and WHR, ``volatility`` for Glicko-2), ``games``, ``score``, ``k``, ``status``;
        ``event`` is the kind of row (games, new, adjustment, inactive …), not a
        tournament's name. ``ValueError`` when no player or several match the name,
        ``TypeError`` for a list of players (``plot_history`` takes several)."""
        from arpad.pipeline.history import rating_history

        return rating_history(self._existing, _args.player(player), _system(system), _pool(pool))

    @_stale_checked
    @_api_advice
    @_interrupt.reading
    def era(
        self, system: str = "fide", *, pool: str = "standard", top: int = 10, by: str = "year",
        min_games: int | None = None,
    ) -> pl.DataFrame:  # fmt: skip
        """The top ``top`` players of each year (``by="decade"``: decade) among those who
        played rated games in it (docs/analysis.md "Era table"). A polars DataFrame:
        ``year`` (or ``decade``), ``rank``, ``player_id``, ``name``, ``federation``,
        ``rating``, ``games``, ``period``. A store rated in abstract period numbers (no
        years) is a ``ValueError``."""
        from arpad.pipeline.era import era_table

        return era_table(
            self._existing, _system(system), _pool(pool), _args.whole(top, "top", "players"), by,
            _args.whole(min_games, "min_games", "games"),
        )  # fmt: skip

    @_stale_checked
    @_api_advice
    def plot_history(self, players: list[str] | str, system: str = "fide", pool: str = "standard"):
        """(figure, axes): a ``matplotlib.figure.Figure`` and its ``Axes``, the players'
        ratings on one dated axis, ±2·RD bands where the system keeps an RD; ``players``
        (one id or name, or a list) by id or name (docs/analysis.md). Made without pyplot
        (the notebook's backend is left alone): show it or ``fig.savefig("h.png")``. A
        player matching no one or several is a ``ValueError``."""
        _interrupt.ready("matplotlib.figure")
        from arpad.pipeline.plots import history_figure

        return history_figure(self._existing, _args.players(players), _system(system), _pool(pool))

    @_api_advice
    @_interrupt.interruptible
    def card(
        self, player: str, period: int | None = None, pool: str = "standard", rules=None, **settings
    ):
        """The FIDE rating card of ``player`` in ``period`` (default: the latest rated
        period): game by game, why the rating moved. Returns the ``Card``
        (pipeline/fide_card.py: ``.to_dict()``; ``print(card)`` for the text form). A store
        without FIDE ratings of ``pool``, or a player matching no one, is a
        ``ValueError``; ``rules`` as ``rate``'s."""
        _interrupt.for_rating("arpad.pipeline.fide_card")
        from arpad.pipeline import engine
        from arpad.pipeline.fide_card import latest_period, rating_card
        from arpad.pipeline.lookup import one_player
        from arpad.pipeline.systems import get_system

        fide = get_system("fide")
        if "system" in settings:  # history(..., system=...) beside it: the card is FIDE's
            if _args.system_name(settings.pop("system")) != fide.name:
                raise ValueError("system: the rating card is FIDE's (system='fide' or none)")
        _args.check_keywords("card", settings, fide, CARD_PARAMETERS)
        settings = _args.rule_values(settings, get_system("fide"))
        rules = _args.rules_object(rules, get_system("fide"))
        period = _args.period(period, "period")
        pool = _pool(pool)
        if period is None:
            period = latest_period(self._existing, pool)
        player = one_player(self._existing, _args.player(player), "fide", pool)

        resolved = rules
        if isinstance(rules, str | os.PathLike):
            resolved = engine.resolve_rules("fide", str(rules), pool)
        overrides = {k: str(v) for k, v in settings.items()}
        card = rating_card(self._existing, player, period, pool, resolved, overrides)
        _warn_stale(self._existing, "fide", pool, period)
        return card

    @_api_advice
    @_interrupt.reading
    def identify(self, *, held_back: bool = False, output=None) -> pl.DataFrame:
        """The proposed merges of one player under several ids, as ``arpad players
        identify`` (docs/identity.md "Candidates"): a polars DataFrame ``keep``,
        ``duplicate``, ``evidence``, ``score``, best first. ``held_back=True``: the pairs
        not proposed (careers apart, met in a game, an ambiguous abbreviation) with the
        rule that held each back, ``merge`` "no" (``--held-back``). ``output``: a CSV
        path written as ``--output`` writes it (the proposals marked ``merge`` "yes",
        then the pairs held back, "no"), the frame returned the file's rows. The
        command's notes are ``UserWarning``s. Review it, then ``merge(mapping=frame)``.
        No store at the path: ``FileNotFoundError``."""
        return _analysis.identify(self, held_back, output)

    @_api_advice
    @_interrupt.reading
    def merge(
        self, keep=None, duplicates=None, *, mapping=None, reason: str = "",
        force: bool = False, wait: float = 0.0,
    ):  # fmt: skip
        """Count ``duplicates``' games (one id or a list) as ``keep``'s, as ``arpad players
        merge KEEP DUPLICATE...``; or the pairs of ``mapping``: a mapping file (``--mapping
        FILE``) or a table with ``keep`` and ``duplicate`` (``identify()``'s frame, rows
        with ``merge`` "no" left out). ``reason`` is kept in the audit trail; ``force``:
        merge ids that met in a game (those games are then not rated). Returns the
        ``MergeSummary`` (``.pairs``, ``.stale``, ``.games``; ``print()`` for the command's
        lines); the next ``rate`` recomputes from ``.stale``. A merge already in force is
        a ``UserWarning`` and nothing is done; a refused one (an unknown id, ids that met
        in a game) is a one-line ``ValueError`` (``InputError`` for a mapping file's
        line), nothing merged."""
        return _analysis.merge(self, keep, duplicates, mapping, reason, force, wait)

    @_api_advice
    @_interrupt.reading
    def split(self, keep, duplicate, *, reason: str = "", wait: float = 0.0):
        """Undo a merge, as ``arpad players split KEEP DUPLICATE``: ``duplicate``'s games
        are its own again (games the merge took out as copies are put back). Returns the
        ``MergeSummary``; a pair not merged is a one-line ``ValueError``."""
        return _analysis.split(self, keep, duplicate, reason, wait)

    @_api_advice
    @_interrupt.reading
    def sql(self, query: str, *params) -> pl.DataFrame:
        """A read-only query over the catalog views (docs/analysis.md); ``params`` fill its
        ``?`` in order, given one by one or as one list/tuple. Returns a polars
        DataFrame. A statement that writes (``DROP``, ``COPY``, …), a file read, or an SQL
        error is a one-line ``ValueError``; a query that is no str a ``TypeError``."""
        from arpad.pipeline.sql import run_readonly_sql

        if not isinstance(query, str):  # else DuckDB's "extract_statements(): incompatible …"
            raise TypeError(f"query must be a str, got {type(query).__name__}")

        return run_readonly_sql(self._existing, query, _args.sql_parameters(params))

    @_stale_checked
    @_api_advice
    @_interrupt.reading
    def ratings(self, system: str = "fide", pool: str = "standard") -> pl.DataFrame:
        """Every stored ratings row of ``system``/``pool`` (the ``ratings`` view, its
        columns as docs/schemas.md), a polars DataFrame sorted by period and player. An
        unknown system or pool is a ``ValueError``, and so is a system/pool never rated
        in the store (as ``Store.list``; it was an empty frame). The columns are in
        ``rate``'s order (the view's, docs/schemas.md: ``system``, ``pool``, ``period``,
        ``player_id``, …), so the two concatenate."""
        from arpad.pipeline import jobs, schemas

        jobs._check_systems([_args.system_name(system)])
        if pool not in schemas.POOLS:  # else an empty frame, as if nothing were rated
            raise ValueError(f"pool: {pool!r} is not one of {', '.join(schemas.POOLS)}")
        if (system, pool) not in self._existing.rated():  # (a run cut short: its rows so far)
            raise self._existing.no_ratings(system, pool)
        frame = self.sql(
            "SELECT * FROM ratings WHERE system = ? AND pool = ? ORDER BY period, player_id",
            system,
            pool,
        )
        # the partition keys come last from the files: first, as in rate's result
        view = [c for c in _empty_result().columns if c in frame.columns]
        return frame.select(*view, *(c for c in frame.columns if c not in view))
