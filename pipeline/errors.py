"""Errors that the CLI turns into exit codes (2 = bad input, 1 = internal)."""

import errno
import re

# No space left on the device, disk quota exceeded.
DISK_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
# A read-only file system, no permission to write: where arpad was told to write cannot
# be written (an operator's setup, not a bug: exit 2).
NOT_WRITABLE_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
_DISK_FULL_TEXTS = ("no space left on device", "disk quota exceeded", "[errno 28]", "[errno 122]")


# What a terminal acts on instead of showing (docs/cli.md "The command line attacked"):
# the C0 controls (ESC starts the sequences that clear the screen, recolour the text, set
# the window title; CR and backspace overwrite a line), DEL, the C1 controls (U+009B is
# a CSI), and Unicode's bidi embeddings, overrides and isolates (U+202A-U+202E,
# U+2066-U+2069: they reorder the text after them on screen). A hostile file's value or
# name could hide the very quarantine lines the officer reads.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    """The Python escape of one ``_CONTROL`` character."""
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """``text`` (a file name, a value read from a file, a message holding them) as one
    line of UTF-8 text that a terminal shows as written: bytes that are not UTF-8
    (surrogate escapes, as Python decodes such a name) shown as ``\\xff``, control
    characters and bidi overrides as ``\\x1b``, ``\\n``, ``\\u202e`` (Python's escapes);
    every other character, a backslash too, as it is."""
    try:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no undecodable byte
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(_escape, shown)


_printable = printable  # the older name (tests/test_fuzz_inputs.py)


def shell_word(text) -> str:
    """``text`` (a path, an id) as one word of a command to paste into a shell:
    ``shlex.quote``, quoted only when it needs it (``'/tmp/x/sp ace/my store'``); a word
    holding a ``_CONTROL`` character (a newline in a directory name) or a byte that is
    not UTF-8 in bash's ``$'…'`` form (also zsh's, ksh's), each such character escaped
    (``$'/tmp/new\\nline'``). In '…' ``printable`` showed the newline as a backslash and
    an n, which a shell reads as those two characters: another path (round 15)."""
    import shlex

    text = str(text)
    if not _CONTROL.search(text) and not any(0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return shlex.quote(text)
    out = []
    for char in text:
        code = ord(char)
        if char in "\\'":
            out.append("\\" + char)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogate escape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif _CONTROL.match(char):
            out.append(_NAMED.get(char) or (f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"))
        else:
            out.append(char)
    return "$'" + "".join(out) + "'"


class InputError(Exception):
    """Bad input: the message names the file, the line and the problem."""

    def __init__(self, path, line, problem):
        self.path = str(path)
        self.line = line
        # one line, always: a library's message may hold line breaks
        self.problem = " ".join(str(problem).splitlines())
        # shown as written on a terminal: the name and the problem (which may quote a
        # value of the file) with their control characters escaped, on one line
        shown = printable(self.path)
        where = f"{shown}:{line}" if line is not None else shown
        super().__init__(f"{where}: {printable(self.problem)}")

    def __reduce__(self):
        # picklable (Dask workers send it back to the flow's process)
        return (type(self), (self.path, self.line, self.problem))


class RulesFileError(InputError, ValueError):
    """A bad ``--rules FILE.json``: bad input naming the file (exit 2), and a ValueError
    for the Python API's callers, as a bad rule value given as an argument is."""


class StoreBusyError(Exception):
    """Another writer holds the store's lock."""


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the disk is full.

    Python's OSError carries ``errno``; PyArrow and DuckDB only put the system's
    message into their own exception's text."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
            return True
        if any(t in str(exc).lower() for t in _DISK_FULL_TEXTS):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def not_writable(exc: BaseException) -> OSError | None:
    """The OSError behind ``exc`` saying a path cannot be written (read-only file
    system, permission denied), else None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in NOT_WRITABLE_ERRNOS:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
