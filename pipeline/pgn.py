"""PGN reader: the tag section of every game, without parsing moves (docs/pgn-trf.md).

The whole file is split into lines once and handled as Polars columns, so the
per-game cost is a few vectorised string operations (target ≥ 200k games/s,
benchmarks/bench_pgn.py). Per game we read the Seven Tag Roster plus
WhiteElo/BlackElo, WhiteFideId/BlackFideId, WhiteTitle/BlackTitle, TimeControl
and EventDate, and whether the movetext holds at least one move.

Decisions (the PGN standard, "PGN Standard 1994-03-12" §8, leaves them open):

* A game whose movetext is only a termination marker (``1-0``) was not played
  (a forfeit): stored with ``rated = false``.
* ``Date`` ``YYYY.MM.DD`` gives the date; ``YYYY.MM.??`` the period ``YYYYMM``;
  ``YYYY.??.??`` the period ``YYYY01`` (January of the year). An unknown Date
  falls back to ``EventDate`` the same way; no date at all is ``missing_period``.
* Pool: ``TimeControl`` when it is a time control (base + 60 × increment ≤ 10
  min blitz, < 60 min rapid, else standard; FIDE Laws, Appendices A and B),
  else the words blitz/bullet/rapid in ``Event``, else standard.
* Player id: the FIDE id (``WhiteFideId``) when present (also for the same
  name's other games in the file), else ``<file name>:<player name>``.
* Elo ``""``, ``"?"``, ``"-"`` and ``"0"`` mean unrated.
* A game without a termination marker at the end of its movetext is
  ``truncated_game``; a Result tag that contradicts the marker is ``result_mismatch``.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import polars as pl

from pipeline import readers
from pipeline.errors import InputError
from pipeline.readers import RawTable, decode

TAGS = (
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "WhiteFideId",
    "BlackFideId",
    "WhiteTitle",
    "BlackTitle",
    "TimeControl",
    "EventDate",
)
TERMINATION = r"(1-0|0-1|1/2-1/2|\*)"
UNRATED_ELO = ("", "?", "-", "0")
BLITZ_MAX_SECONDS = 600  # FIDE Laws of Chess, Appendix B.1: 10 minutes or less
RAPID_MAX_SECONDS = 3600  # Appendix A.1: more than 10 and less than 60 minutes


def load_bytes(path: Path, notes: list[str]) -> bytes:
    """The file's bytes; ``.gz`` decompressed, ``.zip`` members concatenated in name order."""
    name = path.name.lower()
    data = path.read_bytes()
    if name.endswith(".gz"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(path, None, f"not a readable gzip file: {exc}") from None
    if name.endswith(".zip"):
        try:
            with zipfile.ZipFile(path) as zf:
                members = sorted(i.filename for i in zf.infolist() if not i.is_dir())
                parts, line = [], 1
                for member in members:
                    body = zf.read(member)
                    if body and not body.endswith(b"\n"):
                        body += b"\n"
                    notes.append(f"zip member {member} starts at line {line}")
                    line += body.count(b"\n")
                    parts.append(body)
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(path, None, f"not a readable zip file: {exc}") from None
        if not members:
            raise InputError(path, None, "empty zip archive: no PGN member")
        return b"".join(parts)
    return data


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with CRLF, CR or LF endings (str.splitlines also splits on \\x0c etc.)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def time_control_pool(tc: str | None) -> str | None:
    """Pool of a PGN TimeControl value (seconds): ``300+2``, ``40/7200:3600``, ``*180``."""
    if tc is None:
        return None
    first = tc.strip().split(":")[0]
    if not first or first in ("?", "-"):
        return None
    first = first.lstrip("*")
    if "/" in first:  # moves/seconds: the first period's time
        first = first.split("/", 1)[1]
    base, _, inc = first.partition("+")
    try:
        seconds = float(base) + 60.0 * (float(inc) if inc else 0.0)
    except ValueError:
        return None
    if seconds <= BLITZ_MAX_SECONDS:
        return "blitz"
    if seconds < RAPID_MAX_SECONDS:
        return "rapid"
    return "standard"


def event_pool(event: str | None) -> str | None:
    """Pool named by an event title: blitz/bullet -> blitz, rapid -> rapid."""
    if not event:
        return None
    text = event.lower()
    if "blitz" in text or "bullet" in text:
        return "blitz"
    if "rapid" in text:
        return "rapid"
    return None


def _map_unique(expr_name: str, frame: pl.DataFrame, func) -> pl.Expr:
    values = frame.get_column(expr_name).unique().to_list()
    mapping = {v: func(v) for v in values if v is not None}
    return pl.col(expr_name).replace_strict(mapping, default=None, return_dtype=pl.String)


def _date_and_period(col: str) -> tuple[pl.Expr, pl.Expr]:
    """(date text, period text) of a PGN date tag; see the module docstring."""
    d = pl.col(col).str.strip_chars()
    full = d.str.contains(r"^\d{4}[.\-/]\d{2}[.\-/]\d{2}$")
    month = d.str.contains(r"^\d{4}\.\d{2}\.\?\?$")
    year = d.str.contains(r"^\d{4}\.\?\?\.\?\?$")
    unknown = d.is_null() | d.str.contains(r"^[?.\-]*$")
    date = pl.when(full).then(d).when(month | year | unknown).then(None).otherwise(d)
    period = (
        pl.when(month)
        .then(d.str.slice(0, 4) + d.str.slice(5, 2))
        .when(year)
        .then(d.str.slice(0, 4) + "01")
        .otherwise(None)
    )
    return date, period


def read_pgn(path: Path, mapping: str | None = None, kind: str | None = None) -> RawTable:
    if kind == "players":
        raise InputError(path, None, "a PGN file holds games, not a players list")
    notes: list[str] = []
    text = decode(load_bytes(path, notes), path, notes)
    if not text.strip():
        raise InputError(path, 1, "empty file: no PGN games")
    source = path.name
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        text = text.replace("\r", "\n")
    # Splitting in Polars (one string -> exploded list) avoids a Python list of lines.
    lines = (
        pl.Series("text", [text]).str.split("\n").explode().to_frame().with_row_index("_line", 1)
    )
    lines = lines.with_columns(pl.col("_line").cast(pl.Int64), pl.col("text").str.strip_chars())
    lines = lines.filter(pl.col("text") != "")
    # Lines starting with '%' are escape lines (PGN §6); skip them.
    lines = lines.filter(~pl.col("text").str.starts_with("%"))
    is_tag = pl.col("text").str.starts_with("[")
    lines = lines.with_columns(is_tag.alias("_tag"))
    # A game starts at a tag line after movetext, or at an [Event tag (the first tag of
    # the export format), so a game without movetext does not swallow the next header.
    new_game = pl.col("_tag") & (
        ~pl.col("_tag").shift(1, fill_value=False) | pl.col("text").str.starts_with("[Event ")
    )
    lines = lines.with_columns(new_game.cum_sum().alias("game"))
    if lines.filter(pl.col("_tag")).height == 0:
        first = lines.get_column("_line")[0] if lines.height else 1
        raise InputError(path, first, 'no PGN tag pairs ([Tag "value"]) found: not a PGN file')

    problems: list[tuple[int, str, str, str]] = []
    preamble = lines.filter(pl.col("game") == 0)
    if preamble.height:
        problems.append(
            (
                int(preamble.get_column("_line")[0]),
                "malformed_row",
                f"{preamble.height} line(s) of text before the first tag section",
                preamble.get_column("text")[0][:200],
            )
        )
    lines = lines.filter(pl.col("game") > 0)

    # [Key "value"]: split at the first blank (no regex); a line that does not end in
    # '"]' or whose value does not start with '"' is a malformed tag.
    parts = pl.col("text").str.strip_prefix("[").str.splitn(" ", 2)
    tags = lines.filter(pl.col("_tag")).with_columns(parts.alias("_parts"))
    tags = tags.with_columns(
        pl.col("_parts").struct.field("field_0").alias("_k"),
        pl.col("_parts").struct.field("field_1").str.strip_chars_start().alias("_v"),
    )
    ok = (
        pl.col("_v").str.starts_with('"')
        & pl.col("_v").str.ends_with('"]')
        & (pl.col("_v").str.len_bytes() >= 3)
    )
    tags = tags.select(
        "game",
        "_line",
        pl.when(ok).then(pl.col("_k")).alias("key"),
        pl.when(ok)
        .then(pl.col("_v").str.slice(1, pl.col("_v").str.len_chars() - 3))
        .alias("value"),
    )
    heads = tags.group_by("game", maintain_order=True).agg(
        pl.col("_line").first(),
        pl.col("_line").filter(pl.col("key").is_null()).first().alias("_bad_tag_line"),
    )
    wanted = tags.filter(pl.col("key").is_in(TAGS)).unique(["game", "key"], keep="first")
    wanted = wanted.with_columns(
        pl.when(pl.col("value").str.contains("\\", literal=True))
        .then(pl.col("value").str.replace_all(r"\\([\\\"])", "$1"))
        .otherwise(pl.col("value"))
        .alias("value")
    )
    if wanted.height:
        wide = wanted.pivot(on="key", index="game", values="value")
    else:
        wide = pl.DataFrame({"game": pl.Series([], dtype=heads.schema["game"])})
    games = heads.join(wide, on="game", how="left")
    for tag in TAGS:
        if tag not in games.columns:
            games = games.with_columns(pl.lit(None, dtype=pl.String).alias(tag))

    # Movetext: a move in its first two lines, and the termination marker ending its
    # last line (only those lines are scanned; a forfeit is one line, e.g. "1-0").
    body = (
        lines.filter(~pl.col("_tag"))
        .group_by("game", maintain_order=True)
        .agg(
            pl.col("text").first().alias("_first"),
            pl.col("text").slice(1, 1).first().alias("_second"),
            pl.col("text").last().alias("_last"),
        )
    )

    def has_move(col: str) -> pl.Expr:
        clean = (
            pl.col(col)
            .str.replace_all(r"\{[^}]*(\}|$)", " ")
            .str.replace(r"^[^{]*\}", " ")
            .str.replace(r";.*$", "")
            .str.replace_all(TERMINATION, " ")
        )
        return clean.str.contains(r"[A-Za-z]").fill_null(False)

    body = body.select(
        "game",
        (has_move("_first") | has_move("_second")).alias("_has_move"),
        pl.col("_last")
        .str.replace(r"\{[^}]*\}\s*$", "")
        .str.extract(TERMINATION + r"\s*$", 1)
        .alias("_marker"),
    )
    games = games.join(body, on="game", how="left").with_columns(
        pl.col("_has_move").fill_null(False)
    )
    games = games.with_columns(
        pl.format(
            "{} - {} {} ({}, {}, round {})", "White", "Black", "Result", "Event", "Date", "Round"
        ).alias("_raw")
    )

    games = games.with_columns(pl.col("Result").str.strip_chars())
    bad_tag = pl.col("_bad_tag_line").is_not_null()
    truncated = pl.col("_marker").is_null()
    mismatch = (
        pl.col("Result").is_not_null()
        & (pl.col("Result") != "")
        & (pl.col("Result") != pl.col("_marker"))
    )
    bad = games.filter(bad_tag | truncated | mismatch).with_columns(
        pl.when(bad_tag)
        .then(pl.lit("malformed_row"))
        .when(truncated)
        .then(pl.lit("truncated_game"))
        .when(~pl.col("Result").is_in(["1-0", "0-1", "1/2-1/2", "*"]))
        .then(pl.lit("unknown_result"))
        .otherwise(pl.lit("result_mismatch"))
        .alias("_reason"),
        pl.when(bad_tag)
        .then(pl.format('malformed tag line {} (expected [Tag "value"])', "_bad_tag_line"))
        .when(truncated)
        .then(pl.lit("no game termination marker (1-0, 0-1, 1/2-1/2, *): file truncated?"))
        .when(~pl.col("Result").is_in(["1-0", "0-1", "1/2-1/2", "*"]))
        .then(pl.format("unknown result code {} in the Result tag", "Result"))
        .otherwise(pl.format("Result tag {} but the movetext ends with {}", "Result", "_marker"))
        .alias("_detail"),
    )
    for row in bad.select("_line", "_reason", "_detail", "_raw").iter_rows():
        problems.append((int(row[0]), row[1], row[2], row[3]))
    games = games.filter(~(bad_tag | truncated | mismatch))

    games = games.with_columns(pl.coalesce(pl.col("Result"), pl.col("_marker")).alias("Result"))
    games = _identity(games, source)
    date, period = _date_and_period("Date")
    edate, eperiod = _date_and_period("EventDate")
    games = games.with_columns(
        date.alias("_d"), period.alias("_p"), edate.alias("_ed"), eperiod.alias("_ep")
    )
    date_known = pl.col("_d").is_not_null() | pl.col("_p").is_not_null()
    games = games.with_columns(
        pl.when(date_known).then(pl.col("_d")).otherwise(pl.col("_ed")).alias("date"),
        pl.when(date_known).then(pl.col("_p")).otherwise(pl.col("_ep")).alias("period"),
        pl.coalesce(
            _map_unique("TimeControl", games, time_control_pool),
            _map_unique("Event", games, event_pool),
        ).alias("pool"),
    )

    def elo(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.is_in(UNRATED_ELO)).then(None).otherwise(v)

    frame = games.select(
        pl.lit(None, dtype=pl.String).alias("game_id"),
        "date",
        "period",
        "pool",
        pl.col("_white_id").alias("white_id"),
        pl.col("_black_id").alias("black_id"),
        pl.col("Result").alias("result"),
        pl.when(pl.col("_has_move")).then(None).otherwise(pl.lit("false")).alias("rated"),
        pl.col("Event").alias("event_id"),
        elo("WhiteElo").alias("white_rating"),
        elo("BlackElo").alias("black_rating"),
        "_line",
        "_raw",
    ).sort("_line")
    players = _players(games, frame, source)
    not_played = frame.filter(pl.col("rated") == "false").height
    if not_played:
        notes.append(f"{not_played} game(s) without moves (forfeits): stored, not rated")
    return RawTable(path, "pgn", "games", frame, None, problems, notes, players)


def _identity(games: pl.DataFrame, source: str) -> pl.DataFrame:
    """White/Black player ids: FIDE id when the file gives one for that name, else source:name."""

    def fide(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.str.contains(r"^\d+$") & ~v.str.contains(r"^0+$")).then(
            v.str.replace(r"^0+", "")
        )

    def name(col: str) -> pl.Expr:
        v = pl.col(col).str.strip_chars()
        return pl.when(v.is_in(["", "?", "-"])).then(None).otherwise(v)

    sides = pl.concat(
        [
            games.select(name("White").alias("name"), fide("WhiteFideId").alias("fide")),
            games.select(name("Black").alias("name"), fide("BlackFideId").alias("fide")),
        ]
    )
    by_name = (
        sides.filter(pl.col("name").is_not_null() & pl.col("fide").is_not_null())
        .group_by("name")
        .agg(pl.col("fide").first())
    )
    out = games.with_columns(name("White").alias("_wn"), name("Black").alias("_bn"))
    for side, n in (("_white_id", "_wn"), ("_black_id", "_bn")):
        fide_col = "WhiteFideId" if side == "_white_id" else "BlackFideId"
        out = out.join(
            by_name.rename({"name": n, "fide": f"{side}_byname"}), on=n, how="left"
        ).with_columns(
            pl.coalesce(
                fide(fide_col),
                pl.col(f"{side}_byname"),
                pl.lit(source + ":") + pl.col(n),
            ).alias(side)
        )
    return out.sort("_line")


def _players(games: pl.DataFrame, frame: pl.DataFrame, source: str) -> pl.DataFrame:
    """One raw players row per player id: name, title, FIDE rating of the earliest
    standard game in the file (the rating in force before the file's games)."""

    def side(id_col, name_col, title_col, elo_col) -> pl.DataFrame:
        rating = pl.col(elo_col).str.strip_chars()
        rating = pl.when(
            rating.cast(pl.Float64, strict=False).is_between(1.0, 3500.0)
            & (pl.col("pool").is_null() | (pl.col("pool") == "standard"))
        ).then(rating)
        return games.select(
            pl.col(id_col).alias("player_id"),
            pl.col(name_col).alias("name"),
            pl.col(title_col).str.strip_chars().replace("", None).alias("title"),
            rating.alias("rating"),
            pl.coalesce(pl.col("date").str.replace_all(r"\D", ""), pl.col("period") + "00").alias(
                "_when"
            ),
            "_line",
        )

    both = pl.concat(
        [
            side("_white_id", "_wn", "WhiteTitle", "WhiteElo"),
            side("_black_id", "_bn", "BlackTitle", "BlackElo"),
        ]
    ).filter(pl.col("player_id").is_not_null())
    return (
        both.sort("_when", "_line", nulls_last=True)
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("name").drop_nulls().last(),
            pl.col("title").drop_nulls().last(),
            pl.col("rating").drop_nulls().first(),
            pl.col("_line").min(),
        )
        .with_columns(pl.format("{} (PGN tags)", pl.col("name")).alias("_raw"))
        .sort("_line")
    )


readers.READERS["pgn"] = read_pgn
readers.SUFFIXES.update({".pgn": "pgn", ".pgn.gz": "pgn", ".zip": "pgn", ".pgn.zip": "pgn"})
