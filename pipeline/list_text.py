"""How a published list reads: display width in the fixed-width files, one-decimal
rounding, and the order and rank of players with the same published rating
(docs/lists.md "Published files checked, round 4").

* **Display width.** A fixed-width file is read by eye in a terminal or an editor,
  where a CJK character takes two columns and a combining accent none. Fields are
  padded and cut by display width (Unicode East Asian Width ``W``/``F`` is 2,
  combining marks and format characters 0, everything else 1), so the column after a
  name starts at the same screen column on every line.
* **Bidirectional controls** (U+202A..U+202E, U+2066..U+2069) are dropped from the
  fixed-width fields: an unterminated right-to-left override in a name would show the
  rest of its line (federation, rating) reversed in an editor.
* **One decimal** is rounded half away from zero (FIDE's rounding, kernels/rounding.py)
  on the value times ten: 1500.25 -> 1500.3, 1500.35 -> 1500.4, -0.05 -> -0.1
  (Polars' ``round`` rounds half to even and binary-exact: 1500.25 -> 1500.2).
* **Ties.** Players are ordered by the published (rounded) rating, then by name
  (``name_key``: accents removed, case folded), then by the name as written, then by
  id; players with the same published rating share a rank (``1, 1, 3``).
* **FIDE's download order.** The TXT and XML list files are alphabetical
  (``alphabetical``), as FIDE's; the other formats keep the ranked order.
* **Writers.** ``fixed_width_lines`` writes the fixed-width lines column by column and
  ``xml_list`` the list XML as strings (ElementTree's output byte for byte): a
  200k-player publish spent most of its time building them cell by cell and as a tree.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np
import polars as pl

# Bidirectional embedding, override and isolate controls (Unicode UAX #9).
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


@functools.cache
def char_width(ch: str) -> int:
    """Screen columns of one character: 2 for East Asian wide/full-width, 0 for
    combining marks and format characters (zero-width joiner, bidi marks), else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Screen columns of ``text`` (``char_width`` summed)."""
    if text.isascii():
        return len(text)
    return sum(char_width(ch) for ch in text)


def fit(text: str, width: int) -> str:
    """``text`` (bidi controls dropped) cut to at most ``width - 1`` screen columns, so
    one space always separates it from the next field, then padded with spaces to
    exactly ``width`` columns. A wide character that would not fit is left out whole."""
    if text.isascii() and len(text) < width:
        return text.ljust(width)
    text = _BIDI_CONTROLS.sub("", text)
    widths = list(map(char_width, text))
    if sum(widths) < width:  # fits: only the padding differs from len()
        return text + " " * (width - sum(widths))
    kept: list[str] = []
    used = 0
    for ch, w in zip(text, widths, strict=True):
        if used + w > width - 1:
            break
        kept.append(ch)
        used += w
    return "".join(kept) + " " * (width - used)


def name_key(name: str | None) -> str:
    """The alphabetical key of a name: accents removed (NFKD without combining marks)
    and case folded, so ``de Boer`` sorts beside ``Bauer`` and ``Öztürk`` beside
    ``Ozols`` instead of after ``Z`` (Python and Polars compare code points)."""
    if not name:
        return ""
    if name.isascii():
        return name.lower()
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def tenths(col: pl.Series) -> pl.Series:
    """``col`` rounded to one decimal, half away from zero on the value times ten."""
    from arpad.kernels.rounding import round_half_away_array

    values = col.cast(pl.Float64).to_numpy()
    mask = np.isnan(values)
    rounded = round_half_away_array(np.nan_to_num(values) * 10.0) / 10.0
    return pl.Series(col.name, rounded, dtype=pl.Float64).scatter(np.flatnonzero(mask), None)


# FIDE's women's titles. On FIDE's lists a woman's women's title is in both Tit and WTit
# when she has no open title ("WIM WIM"); a woman with one is "IM WGM".
WOMEN_TITLES = ("WGM", "WIM", "WFM", "WCM")


def _blank(column: str) -> pl.Expr:
    return pl.col(column).is_null() | (pl.col(column).str.strip_chars() == "")


def listed_titles() -> list[pl.Expr]:
    """``title`` and ``w_title`` as a list shows them (docs/lists.md "What a list
    holds"): a women's title (``WGM`` … ``WCM``, any case) in one of the two with the
    other empty is listed in both, whichever file gave it (a players file's
    ``title,w_title`` of ``,WIM`` or ``WIM,``, a TRF's ``wm``); a value given is kept
    (``GM`` + ``WGM``)."""
    title = pl.col("title").str.strip_chars().str.to_uppercase()
    w_title = pl.col("w_title").str.strip_chars().str.to_uppercase()
    return [
        pl.when(_blank("title") & w_title.is_in(WOMEN_TITLES))
        .then(w_title)
        .otherwise(pl.col("title"))
        .alias("title"),
        pl.when(_blank("w_title") & title.is_in(WOMEN_TITLES))
        .then(title)
        .otherwise(pl.col("w_title"))
        .alias("w_title"),
    ]


def order_and_rank(frame: pl.DataFrame, lower_is_better: bool) -> pl.DataFrame:
    """``frame`` (a list with ``rating`` already rounded as published, ``name``,
    ``player_id``, ``status``) in list order: the active players by rating (ascending
    when lower is better), then name, then id, ranked ``min`` on the published rating
    (equal ratings share a rank); then the inactive players in the same order, without
    a rank."""
    inactive = pl.col("status") == "inactive"
    keyed = frame.with_columns(
        pl.Series("_key", [name_key(n) for n in frame["name"].to_list()], dtype=pl.String),
        inactive.fill_null(False).alias("_inactive"),
    )
    keyed = keyed.sort(
        ["_inactive", "rating", "_key", "name", "player_id"],
        descending=[False, not lower_is_better, False, False, False],
        nulls_last=True,
    )
    rank = (
        pl.col("rating")
        .rank("min", descending=not lower_is_better)
        .over("_inactive")
        .cast(pl.Int64)
    )
    return keyed.with_columns(
        pl.when(pl.col("_inactive")).then(None).otherwise(rank).alias("rank")
    ).drop("_key", "_inactive")


def alphabetical(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (a list with ``name`` and ``player_id``) in FIDE's download order:
    alphabetical by name (``name_key``: accents removed, case folded), then the name as
    written, then id, as the combined file (pipeline/combined.py); a player without a
    name first. The columns, ranks included, are unchanged."""
    key = pl.Series("_key", [name_key(n) for n in frame["name"].to_list()], pl.String)
    return (
        frame.with_columns(key).sort("_key", pl.col("name").fill_null(""), "player_id").drop("_key")
    )


def xml_list(rows, elements, clean) -> str:
    """``<playerslist><player>…</player>…</playerslist>`` written directly, byte for
    byte what ``xml.etree.ElementTree`` writes after ``ET.indent(root, space="")``
    (one element per line, ``<e />`` for an unknown or empty value, text escaped as
    ElementTree escapes it: ``&``, ``<``, ``>``), several times faster on 200k players.
    ``rows``: dicts; ``elements``: (element, column) pairs; ``clean``: the text of a
    value (characters XML 1.0 does not allow already replaced)."""
    head = "<?xml version='1.0' encoding='utf-8'?>\n"
    parts = []
    append = parts.append
    for row in rows:
        append("<player>")
        for element, column in elements:
            value = row[column]
            text = "" if value is None else clean(value)
            if not text:
                append(f"<{element} />")
                continue
            if "&" in text or "<" in text or ">" in text:
                text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            append(f"<{element}>{text}</{element}>")
        append("</player>")
    if not parts:
        return head + "<playerslist />\n"
    return head + "<playerslist>\n" + "\n".join(parts) + "\n</playerslist>\n"


# Control characters and Unicode line separators (lists._BREAKS), in Rust regex syntax
# to find the values that need it without a Python call per value.
_BREAKS_RUST = r"[\x00-\x1F\x7F-\x{9F}\x{2028}\x{2029}]"


def fixed_width_lines(frame: pl.DataFrame, layout, breaks, too_wide) -> list[str]:
    """The fixed-width lines of ``frame`` (no header), column by column: each value as
    text (control characters replaced by ``breaks``, a compiled pattern), cut and padded
    by ``fit`` (ASCII: one column a character), the line's trailing spaces removed.
    ``layout``: (header, column, start, width); ``too_wide(header, column, text, row)``
    is called for an id or a number as long as its field (it raises)."""
    columns = []
    for header, column, _, width in layout:
        series = frame[column]
        if series.dtype == pl.String:
            values = series.to_list()
            dirty = series.str.contains(_BREAKS_RUST).fill_null(False).to_list()
            texts = [
                "" if v is None else (breaks.sub(" ", v) if d else v)
                for v, d in zip(values, dirty, strict=True)
            ]
        else:
            texts = ["" if v is None else str(v) for v in series.to_list()]
        numeric = series.dtype.is_numeric()
        if column == "player_id" or numeric:
            for i, text in enumerate(texts):
                if len(text) >= width:
                    too_wide(header, column, text, i)
        cut = width - 1
        columns.append([t[:cut].ljust(width) if t.isascii() else fit(t, width) for t in texts])
    return ["".join(parts).rstrip() for parts in zip(*columns, strict=True)]
