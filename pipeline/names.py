"""Names that become parts of paths: one strict pattern per kind, checked before use.

Every name that ends up in a file or directory name under the store (pool,
system, period, ingest batch, state table, export file) or that names an input
(a source or inbox file name) is checked here, and ``pipeline/store.py`` calls
these checks wherever it builds a path, so no caller can bypass them. A name
that fails raises ``ValueError`` with one line naming the kind, the value and
the rule; the CLI turns it into exit 2 before anything is written.

Patterns (docs/operations.md, "Names and paths"):

=========  ======================================  ================================
kind       pattern                                 examples
=========  ======================================  ================================
pool       ``^[a-z][a-z0-9_-]{0,31}$``              standard, rapid, blitz
system     ``^[a-z][a-z0-9_-]{0,31}$``              fide, glicko2, elo-linear
period     an int, 1 ≤ p ≤ 999999                   202403, 133
batch      ``^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$``     1a8077569b467e9b
table      ``^[a-z][a-z0-9_]{0,63}$``               players, table_history
file name  one path component, 1..255 bytes of      games-2024-03.pgn, Österreich.csv
           UTF-8, no ``/``, ``\\``, NUL or control
           character, not ``.`` or ``..``
=========  ======================================  ================================
"""

from __future__ import annotations

import operator
import re

POOL = re.compile(r"[a-z][a-z0-9_-]{0,31}")
SYSTEM = re.compile(r"[a-z][a-z0-9_-]{0,31}")
BATCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
TABLE = re.compile(r"[a-z][a-z0-9_]{0,63}")
MAX_PERIOD = 999_999
MAX_FILE_NAME_BYTES = 255


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check(kind: str, value: object, pattern: re.Pattern, rule: str) -> str:
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        hint = ""
        if isinstance(value, str) and pattern.fullmatch(value.lower()) is not None:
            hint = f" (did you mean {value.lower()!r}?)"  # names are lower case, not folded
        raise ValueError(f"invalid {kind} name {_shown(value)}: {rule}{hint}")
    return value


def pool(value: object) -> str:
    """A pool name (``pool=<name>`` directories)."""
    return _check("pool", value, POOL, "1-32 of a-z 0-9 _ -, starting with a letter")


def system(value: object) -> str:
    """A rating system name (``system=<name>`` directories)."""
    return _check("system", value, SYSTEM, "1-32 of a-z 0-9 _ -, starting with a letter")


def batch(value: object) -> str:
    """An ingest batch id (``batch=<id>`` directories, ``part-<id>.parquet`` files)."""
    return _check("batch", value, BATCH, "1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit")


def table(value: object) -> str:
    """A state table name (``<name>.parquet`` in a state checkpoint)."""
    return _check("table", value, TABLE, "1-64 of a-z 0-9 _, starting with a letter")


def period(value: object) -> int:
    """A period as a path component (``period=<p>``): a plain int in 1..999999.

    Whether the period is a possible month is ``periods.check_period``'s business;
    this only guarantees a safe directory name."""
    if not isinstance(value, bool):
        try:
            value = operator.index(value)  # int, NumPy integers
        except TypeError:
            pass
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PERIOD:
        raise ValueError(f"invalid period {_shown(value)}: an integer in 1..{MAX_PERIOD}")
    return value


def file_name(value: object, kind: str = "file") -> str:
    """One path component: a source, inbox or export file name."""
    ok = (
        isinstance(value, str)
        and value not in ("", ".", "..")
        and len(value.encode("utf-8", "surrogatepass")) <= MAX_FILE_NAME_BYTES
        and not any(c in "/\\" or ord(c) < 32 or ord(c) == 127 for c in value)
    )
    if not ok:
        raise ValueError(
            f"invalid {kind} name {_shown(value)}: one path component of at most "
            f"{MAX_FILE_NAME_BYTES} bytes, without / \\ NUL or control characters"
        )
    return value


def source_name(value: object) -> str:
    """A source name the user gives (``arpad ingest --source NAME``): stored in the
    manifest, never a path; any text of 1-1024 bytes without NUL or control characters."""
    ok = (
        isinstance(value, str)
        and value.strip() != ""
        and len(value.encode("utf-8", "surrogatepass")) <= 1024
        and not any(ord(c) < 32 or ord(c) == 127 for c in value)
    )
    if not ok:
        raise ValueError(
            f"invalid source name {_shown(value)}: 1-1024 bytes of text without NUL or "
            "control characters"
        )
    return value


def pools(values: list[str] | None) -> list[str] | None:
    return None if values is None else [pool(v) for v in values]


def systems(values: list[str] | None) -> list[str] | None:
    return None if values is None else [system(v) for v in values]
