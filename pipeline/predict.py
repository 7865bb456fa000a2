"""Predictions for new pairings from a rating state: the shared part of ``arpad.predict``
(src/arpad/api.py) and ``arpad predict`` (pipeline/commands/predict.py); docs/api.md and
docs/cli.md.

White's expected score is the system's own ``expected_scores`` hook (FIDE's table 8.1.2
with the 400-point rule, the logistic curve for Elo, Glicko's g(RD)-damped curve, …): a
forecast of the game, so the two sides' scores sum to 1 whichever colour is listed first
unless the rules give White an advantage (FIDE's 2650 exemption: docs/cli.md).
With a draw model (pipeline/draws.py, docs/backtest.md "Draws") the three outcome
probabilities come from Davidson's model with the model's ν whose expected score is the
system's (``draws.at_expected``), so the layer works over any system's ratings and
keeps its expected score.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from arpad.pipeline.draws import DrawModel, at_expected
from arpad.pipeline.systems import get_system

STATE_COLUMNS = ("player_id", "rating", "rd")


def latest_state(ratings: pl.DataFrame) -> pl.DataFrame:
    """(player_id, rating, rd) from a frame with ``player_id`` and ``rating`` or
    ``rating_after`` (and optionally ``rd``/``rd_after``); with a ``period`` column each
    player's latest row counts."""
    missing = [c for c in ("player_id",) if c not in ratings.columns]
    rating_col = next((c for c in ("rating", "rating_after") if c in ratings.columns), None)
    if missing or rating_col is None:
        raise ValueError("ratings need player_id and rating (or rating_after) columns")
    keys = ["player_id", "period"] if "period" in ratings.columns else ["player_id"]
    twice = ratings.filter(pl.struct(keys).is_duplicated())
    if twice.height:  # else each pairing of the player would come back once per row
        row = twice.row(0, named=True)
        rows = twice.filter(pl.col("player_id") == row["player_id"]).height
        where = f" for period {row['period']}" if "period" in keys else ""
        raise ValueError(
            f"ratings: player {row['player_id']!r} has {rows} rows{where}; "
            "give one row per player" + (" and period" if where else " (or a period column)")
        )
    if "period" in ratings.columns:
        ratings = ratings.sort("period").unique("player_id", keep="last", maintain_order=True)
    rd_col = next((c for c in ("rd", "rd_after") if c in ratings.columns), None)
    return ratings.select(
        pl.col("player_id").cast(pl.String).str.strip_chars(),
        pl.col(rating_col).cast(pl.Float64).alias("rating"),
        (pl.col(rd_col) if rd_col else pl.lit(None)).cast(pl.Float64).alias("rd"),
    )


def of_system(ratings: pl.DataFrame, system: str) -> pl.DataFrame:
    """The rows of ``system`` when ``ratings`` has a ``system`` column naming several
    (results of two systems concatenated to compare them); a frame of one system is
    taken as it is, whatever system predicts from it."""
    if "system" not in ratings.columns:
        return ratings
    names = sorted(n for n in ratings["system"].unique().to_list() if n is not None)
    if len(names) < 2:
        return ratings
    if system not in names:
        raise ValueError(f"ratings hold the systems {', '.join(names)}, not {system}")
    return ratings.filter(pl.col("system") == system)


STORE_STATE_SQL = """
SELECT player_id, rating_after AS rating, rd_after AS rd
FROM ratings
WHERE system = ? AND pool = ? AND period <= ? AND rating_after IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY player_id ORDER BY period DESC) = 1
"""


def store_state(store, system: str, pool: str, period: int | None) -> tuple[pl.DataFrame, int]:
    """(state, period): each player's rating_after/rd_after of their latest row of the
    store's ``ratings`` view at or before ``period`` (default: the latest rated period)."""
    from arpad.pipeline import catalog

    con = catalog.connect(store)
    try:
        rated = store.rating_periods(system, pool)  # the partition folders: no file read
        if not rated:
            raise store.no_ratings(system, pool)
        if period is None:
            period = rated[-1]
        elif period < rated[0]:
            raise ValueError(
                f"no {system}/{pool} ratings at or before period {period} "
                f"(rated periods: {rated[0]}..{rated[-1]})"
            )
        frame = catalog.query_frame(con, STORE_STATE_SQL, [system, pool, period])
    finally:
        con.close()
    return latest_state(frame), period


_MERGES_SHOWN = 5  # merged ids named in the note, the rest counted


def merged_pairing_ids(store, state: pl.DataFrame, pairs: pl.DataFrame):
    """(state, note): ``state`` (``store_state``'s) with a row for each pairing id that
    the store's alias table merged into another id (``arpad players merge``), holding
    the kept id's rating and RD (none when the kept id has none), in place of any row
    of the duplicate's own; ``note`` names each such id and the id it was read as (None:
    no pairing names a merged id). A merged duplicate's pairing came back without a
    rating, beside its kept id's rating (docs/identity.md "Merged ids everywhere").
    The pairings keep the ids as given."""
    from arpad.pipeline.identity import alias_map, spelt_as_stored

    aliases = alias_map(store)
    if not aliases:
        return state, None
    ids = pl.concat([pairs.get_column("white_id"), pairs.get_column("black_id")])
    ids = ids.cast(pl.String).str.strip_chars().drop_nulls().unique(maintain_order=True)
    read_as = {}
    for given in ids.to_list():
        duplicate = spelt_as_stored(given, aliases)
        if duplicate in aliases:
            read_as[given] = aliases[duplicate]
    if not read_as:
        return state, None
    kept = pl.DataFrame(
        {"player_id": list(read_as), "keep": list(read_as.values())},
        schema={"player_id": pl.String, "keep": pl.String},
    )
    rows = kept.join(state.rename({"player_id": "keep"}), on="keep", how="inner")
    state = pl.concat(
        [
            state.filter(~pl.col("player_id").is_in(list(read_as))),
            rows.select(state.columns).cast(state.schema),
        ]
    )
    said = [f"{given} was merged into {keep}" for given, keep in read_as.items()]
    more = len(said) - _MERGES_SHOWN
    text = ", ".join(said[:_MERGES_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return state, (f"pairings: {text} (arpad players --merges): read with the kept id's rating")


# -- the rules the ratings were made with ---------------------------------------------------
# Rule sets of ``arpad.rate`` results made in this process, by their ``rules_hash``: a
# result carries the hash, not the fields, so ``arpad.predict`` of it finds the rules
# (``--set``-style keywords included) here. Bounded: the oldest go first.
_RULES_BY_HASH: dict[str, Any] = {}
_RULES_KEPT = 256
_RULES_LOCK = threading.Lock()  # rate() may run on several threads of a notebook


def remember_rules(rules: Any) -> None:
    """Keep ``rules`` under its ``rules_hash`` for ``rules_for_ratings``."""
    from arpad.pipeline.engine import rules_hash

    key = rules_hash(rules)
    with _RULES_LOCK:
        _RULES_BY_HASH.pop(key, None)
        _RULES_BY_HASH[key] = rules
        while len(_RULES_BY_HASH) > _RULES_KEPT:
            _RULES_BY_HASH.pop(next(iter(_RULES_BY_HASH)))


def rules_for_ratings(
    system: str,
    pool: str,
    period: int | None,
    hashes: set[str],
    settings: dict | None = None,
    given: Any | None = None,
    recorded: Any | None = None,
) -> tuple[Any, str | None]:
    """(rules, note): the rules a prediction from ratings uses, with ``settings`` (rule
    fields: ``--set``, keywords) on top. ``hashes``: the ``rules_hash`` values of the
    ratings' rows of their latest ``period`` (empty: unknown). ``given`` (the caller's
    rules) is used as it is; else the first of ``recorded`` (the store run's own
    rules), the rules of that hash met by ``remember_rules``, the version in force for
    ``period``, every dated version and the system's defaults whose hash (settings
    applied) is one of ``hashes``; none of them: ``recorded``, else the version in force
    for ``period`` (the defaults without a period). ``note``: None, or a sentence naming
    the ratings' rules hash and the one used when they differ."""
    from arpad.pipeline.engine import apply_overrides, rules_hash

    sys_ = get_system(system)
    settings = settings or {}
    if given is not None:
        chosen = apply_overrides(given, settings)
    else:
        in_force = sys_.rules_type() if period is None else sys_.rules_for(period, pool)
        with _RULES_LOCK:
            seen = [_RULES_BY_HASH[h] for h in sorted(hashes) if h in _RULES_BY_HASH]
        candidates = [recorded, *seen, in_force, *sys_.rule_versions(pool), sys_.rules_type()]
        candidates = [c for c in candidates if c is not None]
        chosen = None
        for base in candidates:
            rules = apply_overrides(base, settings)
            if rules_hash(rules) in hashes:
                chosen = rules
                break
        if chosen is None:
            chosen = apply_overrides(recorded if recorded is not None else in_force, settings)
    used = rules_hash(chosen)
    if not hashes or used in hashes:
        return chosen, None
    where = f" of period {period}" if period is not None else ""
    return chosen, (
        f"predicting with {sys_.rules_name(chosen)} (rules_hash {used}), not the rules the "
        f"{system} ratings{where} were made with (rules_hash {', '.join(sorted(hashes))})"
    )


RULES_HASH_SQL = """
SELECT DISTINCT rules_hash, run_id FROM ratings
WHERE system = ? AND pool = ? AND period = ? AND rules_hash IS NOT NULL
"""


def store_rules(
    store, system: str, pool: str, period: int, settings: dict | None = None, given=None
) -> tuple[Any, str | None]:
    """``rules_for_ratings`` for a store's ``system``/``pool`` ratings at or before
    ``period``: the rows of the latest rated period at or before it give the rules hash,
    and the run that wrote them its rules (the ``replay`` record of that run's state
    checkpoints, pipeline/checkpoints.py: rule fields and ``--set`` overrides)."""
    from arpad.pipeline import catalog

    rated = [p for p in store.rating_periods(system, pool) if p <= period]
    at = rated[-1] if rated else period
    con = catalog.connect(store)
    try:
        rows = catalog.query_frame(con, RULES_HASH_SQL, [system, pool, at])
    finally:
        con.close()
    hashes = set(rows["rules_hash"].to_list())
    runs = {r for r in rows["run_id"].to_list() if r is not None}
    recorded = _run_rules(store, system, pool, at, runs) if given is None else None
    return rules_for_ratings(system, pool, at, hashes, settings, given, recorded)


def _run_rules(store, system: str, pool: str, period: int, runs: set[str]) -> Any | None:
    """The rules of ``period`` of the one run in ``runs``, from the ``replay`` record of
    a checkpoint it wrote (the nearest at or after ``period`` first: a run checkpoints
    its last period); None when no checkpoint of it is found or it records none."""
    from arpad.pipeline import checkpoints, engine
    from arpad.pipeline.errors import InputError
    from arpad.pipeline.integrity import open_json

    if len(runs) != 1:
        return None
    sys_ = get_system(system)
    nearest = sorted(store.state_periods(system, pool), key=lambda p: (p < period, abs(p - period)))
    for p in nearest:
        try:
            meta = open_json(store.state_partition(system, pool, p) / "meta.json")
        except (OSError, ValueError, InputError):  # damaged: the rules by their hash
            continue
        if meta.get("run") not in runs:
            continue
        try:
            rules_for = checkpoints.replay_rules(
                sys_, pool, meta, engine.rules_picker, lambda _: None
            )
            return rules_for(period)
        except (TypeError, ValueError):  # fields of another arpad version
            return None
    return None


def pairing_columns(pairs: pl.DataFrame) -> pl.DataFrame:
    """The pairings' player columns under the names ``rate`` and ``arpad ingest`` read
    them by (pipeline/readers.py ``column_name`` and ``tag_aliases``): ``White ID``,
    ``WHITE_ID``, ``white-id`` and PGN's ``White``/``Black`` are ``white_id``/``black_id``
    (predict said "missing ['white_id', 'black_id']" for them). Other columns keep
    their names; a frame with ``white_id`` and ``black_id`` is left as it is. Used by
    ``arpad.predict`` and ``arpad predict``."""
    from arpad.pipeline.readers import column_name, tag_aliases

    if {"white_id", "black_id"} <= set(pairs.columns):
        return pairs
    names = tag_aliases([column_name(c) for c in pairs.columns], [])
    rename: dict[str, str] = {}
    for old, new in zip(pairs.columns, names):
        wanted = new in ("white_id", "black_id") and old != new
        if wanted and new not in pairs.columns and new not in rename.values():
            rename[old] = new
    return pairs.rename(rename) if rename else pairs


def games_mappings() -> list[str]:
    """The names of the games mappings (pipeline/readers.py ``MAPPINGS``) that read a
    pairings file: ``kaggle2010``, ``deloitte2011``."""
    from arpad.pipeline.readers import MAPPINGS

    return [name for name, m in MAPPINGS.items() if m.kind == "games"]


def _mapping_words(name: str, cli: bool) -> str:
    """How the caller names a mapping: ``mapping='kaggle2010'`` (``arpad.predict``) or
    ``--mapping kaggle2010`` (``arpad predict``)."""
    return f"--mapping {name}" if cli else f"mapping={name!r}"


def check_games_mapping(mapping: str | None, cli: bool = False) -> None:
    """``mapping`` (``--mapping``) is None or a games mapping's name, else a ValueError
    naming the known ones (before any file is read)."""
    if mapping is None:
        return
    games = games_mappings()
    if cli and mapping not in games:
        raise ValueError(f"--mapping {mapping}: not a games mapping (known: {', '.join(games)})")
    if not isinstance(mapping, str) or mapping not in games:
        raise ValueError(f"mapping: {mapping!r} is not one of {', '.join(games)}")


def mapped_pairings(
    pairs: pl.DataFrame, mapping: str | None, path: Path | None = None, cli: bool = False
) -> pl.DataFrame:
    """The pairings' columns renamed by the games ``mapping`` as ``rate`` and ``arpad
    ingest --mapping`` rename a games file's (pipeline/readers.py ``MAPPINGS``; headers
    in any case, spaces around them ignored); the columns of the mapping that the
    pairings lack (a cross-validation file without ``Score``) are not needed. Without a
    mapping: ``pairing_columns``, and pairings with neither ``white_id`` nor
    ``black_id`` but a games mapping's two id columns (Kaggle's
    ``cross_validation_dataset.csv``, Deloitte's ``test.csv``) are refused naming the
    mapping that reads them (``pass mapping='kaggle2010'``, from the command ``pass
    --mapping kaggle2010``: ``cli``). Shared by ``arpad.predict`` and ``arpad
    predict``; read from ``path``, a problem is an ``InputError`` naming the file and
    its header line."""
    from arpad.pipeline.errors import InputError
    from arpad.pipeline.readers import MAPPINGS

    def refuse(problem: str):
        return ValueError(problem) if path is None else InputError(path, 1, problem)

    if mapping is None:
        pairs = pairing_columns(pairs)  # White/Black, White ID: as rate reads them
        if {"white_id", "black_id"} & set(pairs.columns):
            return pairs
        have = {c.strip().lower() for c in pairs.columns}
        for name in games_mappings():  # the contest's file as it is: name the mapping
            sides = [k for k, v in MAPPINGS[name].rename.items() if v in ("white_id", "black_id")]
            if {k.lower() for k in sides} <= have:
                raise refuse(
                    f"pairings: no white_id and black_id, but {', '.join(sides)}: pass "
                    f"{_mapping_words(name, cli)}"
                )
        return pairs

    check_games_mapping(mapping, cli)
    found = {c.strip().lower(): c for c in pairs.columns}
    known = MAPPINGS[mapping].rename.items()
    rename = {found[k.lower()]: v for k, v in known if k.lower() in found}
    if not {"white_id", "black_id"} <= set(rename.values()):
        raise refuse(
            f"pairings: mapping {mapping!r} reads the columns "
            f"{', '.join(MAPPINGS[mapping].rename)}; these pairings have "
            f"{', '.join(pairs.columns)}"
        )
    return pairs.drop([v for v in rename.values() if v in pairs.columns]).rename(rename)


def read_pairings(
    path: Path, encoding: str | None = None
) -> tuple[pl.DataFrame, list[int], list[str]]:
    """``arpad predict``'s pairings file (``arpad.predict``'s too): ``read_text_csv``."""
    return read_text_csv(path, encoding, "white_id, black_id")


def read_text_csv(
    path: Path, encoding: str | None = None, header_of: str = "white_id, black_id"
) -> tuple[pl.DataFrame, list[int], list[str]]:
    """A CSV file of ``predict``/``fit_draws`` (pairings, ratings, predictions) read as
    ``arpad ingest`` reads a CSV file (pipeline/readers.py): the same checks of the path,
    ``.gz``/``.zip``/UTF-16, UTF-8 or else ``encoding`` (``--encoding``, checked by
    ``readers.encoding_name``; a byte it lacks is refused, naming the line) or the code
    page its letters say (``readers.decode``), a NUL byte refused, ``;`` or tab as the
    separator when the header has no comma, blank lines skipped, header names stripped.
    Returns the rows (every field text, an empty one null; columns under the header's
    names), each row's file line (the header is line 1) and the reading's notes. Every
    problem is ``InputError`` naming the file and its line (``header_of``: the columns
    a blank first line is told to hold). ``arpad.predict``'s ratings and ``fit_draws``'
    predictions were polars' ``read_csv``, which refused a file that is not UTF-8
    ("invalid utf-8 sequence") whatever its ``encoding``."""
    import csv
    import io

    from arpad.pipeline.errors import InputError
    from arpad.pipeline.readers import (
        _csv_bytes,
        _delimiter,
        check_input_file,
        decode,
        encoding_name,
    )

    codec = encoding_name(encoding) if encoding is not None else None
    check_input_file(path)
    notes: list[str] = []
    text = decode(_csv_bytes(path, notes), path, notes, codec)
    if not text.strip():
        raise InputError(path, 1, "empty file: no header and no rows")
    handle = io.StringIO(text, newline="")
    delimiter = _delimiter(handle.readline())
    handle.seek(0)
    reader = csv.reader(handle, delimiter=delimiter)
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        header = [h.strip() for h in next(reader)]
        if not any(header):
            raise InputError(path, 1, f"a blank first line: the header ({header_of}) goes there")
        width = len(header)
        while True:
            first = reader.line_num + 1  # the row's first line (a quoted field may span more)
            row = next(reader, None)
            if row is None:
                break
            if all(not value.strip() for value in row):
                continue  # blank lines (and a spreadsheet's ",,,,") carry no pairing
            if len(row) != width:
                raise InputError(path, first, f"{len(row)} fields where the header has {width}")
            rows.append(row)
            lines.append(first)
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"CSV error: {exc}") from None
    names = [h or f"unnamed column {i}" for i, h in enumerate(header, 1)]
    if len(set(names)) != len(names):
        same = sorted({n for n in names if names.count(n) > 1})
        raise InputError(path, 1, f"duplicate column names in header: {same}")
    columns = zip(*rows) if rows else [()] * width
    frame = pl.DataFrame(
        [
            pl.Series(name, [v if v else None for v in values], dtype=pl.String)
            for name, values in zip(names, columns)
        ]
    )
    return frame, lines, notes


def check_pairings(
    pairs: pl.DataFrame, path: Path | None = None, lines: list[int] | None = None
) -> pl.DataFrame:
    """The pairings with ``white_id``/``black_id`` as text stripped of surrounding
    whitespace, as ``rate`` and ``arpad ingest`` read ids (``  73 `` is player ``73``:
    ``arpad predict`` gave it no rating while ``arpad.predict`` did). A player paired
    with himself is a ValueError naming the row (1 = the first pairing), as ``rate``
    refuses ``self_play`` (it predicted 0.5); read from ``path`` (``read_pairings``),
    an ``InputError`` naming the file and the row's line in it too."""
    from arpad.pipeline.errors import InputError

    missing = [c for c in ("white_id", "black_id") if c not in pairs.columns]
    if missing:
        problem = f"pairings need columns white_id and black_id (missing {missing})"
        raise ValueError(problem) if path is None else InputError(path, 1, problem)
    pairs = pairs.with_columns(
        pl.col("white_id").cast(pl.String).str.strip_chars(),
        pl.col("black_id").cast(pl.String).str.strip_chars(),
    )
    same = (pairs["white_id"] == pairs["black_id"]).fill_null(False)
    if same.any():
        row = int(same.arg_true()[0])
        problem = (
            f"pairings row {row + 1}: self_play: player {pairs['white_id'][row]} plays "
            f"himself ({int(same.sum())} such row(s)); remove them"
        )
        if path is None:
            raise ValueError(problem)
        raise InputError(path, lines[row] if lines else None, problem)
    return pairs


# The columns predict_pairings adds (and its temporary RD columns).
PREDICTED_COLUMNS = (
    "white_rating", "black_rating", "_white_rd", "_black_rd",
    "expected", "p_white", "p_draw", "p_black",
)  # fmt: skip


def predict_pairings(
    state: pl.DataFrame,
    pairs: pl.DataFrame,
    system: str,
    rules,
    draws: DrawModel | None = None,
) -> pl.DataFrame:
    """The pairings (every column kept) with ``white_rating``, ``black_rating`` and
    ``expected`` (White's expected score, the system's ``expected_scores``) and, with a
    draw model, ``p_white``, ``p_draw``, ``p_black``. Unknown players give nulls.
    Those columns, when the pairings already have them (a notebook cell run twice on
    its own output), are replaced, never read: the ratings are ``state``'s."""
    pairs = check_pairings(pairs)
    pairs = pairs.drop([c for c in PREDICTED_COLUMNS if c in pairs.columns])
    for side in ("white", "black"):
        pairs = pairs.join(
            state.rename(
                {"player_id": f"{side}_id", "rating": f"{side}_rating", "rd": f"_{side}_rd"}
            ),
            on=f"{side}_id",
            how="left",
            maintain_order="left",
        )

    def arr(name):
        return pairs.get_column(name).cast(pl.Float64).fill_null(np.nan).to_numpy()

    white, black = arr("white_rating"), arr("black_rating")
    known = ~(np.isnan(white) | np.isnan(black))
    expected = np.full(white.shape, np.nan)
    if known.any():
        expected[known] = get_system(system).expected_scores(
            white[known], black[known], arr("_white_rd")[known], arr("_black_rd")[known], rules
        )
    out = pairs.drop("_white_rd", "_black_rd").with_columns(
        pl.Series("expected", expected).fill_nan(None)
    )
    if draws is None:
        return out
    probs = [np.full(white.shape, np.nan) for _ in range(3)]
    if known.any():
        for p, values in zip(probs, at_expected(expected[known], draws.nu)):
            p[known] = values
    return out.with_columns(
        pl.Series(name, p).fill_nan(None)
        for name, p in zip(("p_white", "p_draw", "p_black"), probs)
    )


def unknown_count(predicted: pl.DataFrame) -> int:
    """Pairings with a player who has no rating (their values are empty)."""
    return int(predicted["expected"].null_count())
