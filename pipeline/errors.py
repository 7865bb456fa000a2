"""Errors that the CLI turns into exit codes (2 = bad input, 1 = internal)."""

import errno

# No space left on the device, disk quota exceeded.
DISK_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
# A read-only file system, no permission to write: where arpad was told to write cannot
# be written (an operator's setup, not a bug: exit 2).
NOT_WRITABLE_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
_DISK_FULL_TEXTS = ("no space left on device", "disk quota exceeded", "[errno 28]", "[errno 122]")


def _printable(name: str) -> str:
    """A file name as UTF-8 text: bytes that are not UTF-8 (surrogate escapes, as Python
    decodes such a name) shown as ``\\xff``, so the message can be printed anywhere."""
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


class InputError(Exception):
    """Bad input: the message names the file, the line and the problem."""

    def __init__(self, path, line, problem):
        self.path = str(path)
        self.line = line
        # one line, always: a library's message may hold line breaks
        self.problem = " ".join(str(problem).splitlines())
        shown = _printable(self.path).replace("\n", "\\n").replace("\r", "\\r")  # one line
        where = f"{shown}:{line}" if line is not None else shown
        super().__init__(f"{where}: {self.problem}")

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
