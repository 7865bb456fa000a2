"""The ``arpad`` command line (contract: docs/cli.md).

Exit codes: 0 success, 2 bad input (one line per problem, with a pointer to
the quarantine), 1 internal error. Each module in ``pipeline/commands``
registers its subcommands through ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import os
import sys
import traceback
from pathlib import Path

from arpad.pipeline.errors import InputError, StoreBusyError, disk_full, not_writable, printable

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM
INTERRUPTED = (
    "arpad: interrupted (Ctrl-C); the store is consistent (an unfinished write is undone "
    "or completed by the next command): run the same command again"
)
TERMINATED = INTERRUPTED.replace("interrupted (Ctrl-C)", "terminated (SIGTERM)")


class Terminated(KeyboardInterrupt):
    """SIGTERM to the console process (a scheduler stopping a job, `kill`): handled as
    Ctrl-C is — the command's writes undone on the way out, one line — instead of the
    process vanishing mid-write for the next command to clean up (docs/cli.md)."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def _interrupted(exc: KeyboardInterrupt) -> int:
    terminated = isinstance(exc, Terminated)
    print(TERMINATED if terminated else INTERRUPTED, file=sys.stderr)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def _prepare_environment() -> None:
    # Only used when a command runs as a Prefect flow (docs/runners.md "Logs of a
    # tracked run"): the terminal shows Prefect's warnings and errors only, the server
    # gets the INFO lines too (each task's "what it did", "Finished in state …").
    # Prefect's loggers stay at its INFO level and its console handler (logging.yml
    # ``handlers.console``) drops what is below WARNING; the server's handler does not.
    # (PREFECT_LOGGING_LEVEL=WARNING kept both quiet: a tracked run left no log at all.)
    # A PREFECT_LOGGING_LEVEL the user set is Prefect's: terminal and server follow it.
    # Dask workers and `arpad serve`'s runs inherit the environment.
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    if not os.environ.get("PREFECT_LOGGING_LEVEL"):
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    client = logging.getLogger("distributed.client")
    if not any(isinstance(f, LostSchedulerLines) for f in client.filters):
        client.addFilter(LostSchedulerLines())


class LostSchedulerLines(logging.Filter):
    """Drops the Dask client's lines about a scheduler lost mid-run (killed, stopped):
    the tracebacks of its reconnection cancelled as the command closes the client
    (``CancelledError``) and "Failed to reconnect to scheduler after 20.00 seconds"
    (said at once, as the client closes). The command's one line says it ("lost the
    Dask scheduler at … during the run"): 30-odd lines came first (docs/runners.md
    "A server or scheduler lost mid-run")."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and type(exc).__name__ == "CancelledError":
            return False
        return not record.getMessage().startswith("Failed to reconnect to scheduler")


# Options that name files a command writes (docs/operations.md, "Names and paths").
OUTPUT_OPTIONS = {"output": "--output", "plot": "--plot", "report": "--report"}
# Folders a command creates files in: ``arpad demo --out``, ``arpad fide-sample DIR``.
OUTPUT_FOLDERS = {
    "demo": ("out", "--out"),
    "fide-sample": ("directory", "DIRECTORY"),
    "site": ("out", "--out"),
}
# Commands whose --output is a PNG or a folder: `--output -` (standard output) is refused.
FILE_ONLY_OUTPUT = ("plot", "whatif")
# Options whose values become parts of store paths (comma-separated lists allowed).
NAME_OPTIONS = {"pool": "pool", "pools": "pool", "system": "system", "systems": "system"}


def _enclosing_store(path: str) -> Path | None:
    """The store folder ``path`` lies in (or is), recognised by its catalog or manifest."""
    real = Path(path).resolve()
    for folder in (real, *real.parents):
        if (folder / "catalog.duckdb").is_file() or (
            folder / "manifest" / "manifest.parquet"
        ).is_file():
            return folder
    return None


# Other words for a pool that games files already read (pipeline/validate.py
# ``POOL_WORDS``; tests/test_round8_lead.py keeps the two equal): ``--pool bullet`` is
# the blitz pool, ``--pool classical`` the standard one, with a note (hostile round 8).
POOL_OPTION_WORDS = {
    "classical": "standard",
    "classic": "standard",
    "bullet": "blitz",
    "lightning": "blitz",
}


def _check_args(args) -> None:
    """Refuse, before anything runs, names that would become unsafe paths and output
    files that would land inside the store (pipeline/names.py, pipeline/store.py).
    The store checks names again wherever it builds a path; this gives the early,
    one-line error."""
    from arpad.pipeline import names
    from arpad.pipeline.store import output_target, outside

    pool = getattr(args, "pool", None)
    if isinstance(pool, str) and pool.strip().lower() in POOL_OPTION_WORDS:
        args.pool = POOL_OPTION_WORDS[pool.strip().lower()]
        print(
            f"arpad: note: --pool {pool} read as {args.pool}, as games files read it "
            '(docs/cli.md "Options")',
            file=sys.stderr,
        )

    for attr, kind in NAME_OPTIONS.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str):
            continue
        parts = [v.strip() for v in value.split(",")] if attr != "pool" else [value]
        for part in parts:
            if kind == "system" and part == "all" and args.command == "backtest":
                continue
            getattr(names, kind)(part)
    options = dict(OUTPUT_OPTIONS)
    if args.command == "backtest":
        options["predictions"] = "--predictions"
    if args.command in OUTPUT_FOLDERS:
        attr, option = OUTPUT_FOLDERS[args.command]
        options[attr] = option
    store = getattr(args, "store", None)
    for attr, option in options.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str) or not value:
            continue
        if store:
            outside(store, value, option)
        found = _enclosing_store(value)
        if found is not None:
            outside(found, value, option)
    for attr, option in dict(OUTPUT_OPTIONS, predictions="--predictions").items():
        value = getattr(args, attr, None)  # files, not folders: `--output /tmp` is a typo
        if args.command == "whatif" and attr == "output":
            continue  # `arpad whatif --output DIR`: a folder of Parquet tables
        if isinstance(value, str) and value and os.path.isdir(value):
            raise ValueError(f"{option} {value} is a directory: give a file name")
        if isinstance(value, str) and value:
            try:
                output_target(value)  # a block device or socket: refused before the work
            except ValueError as exc:
                raise ValueError(f"{option} {exc}") from None


# Arguments that are not files a command reads (its outputs are checked apart).
NOT_INPUTS = ("store", "command", "func", "_options_given")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.isfile(a) and os.path.samefile(a, b)
    except (OSError, ValueError):  # a value that is no path (a query, a NUL byte)
        return False


def _refuse_input_as_output(parser, args) -> None:
    """An output file that is one of the command's input files (``arpad performance
    g.csv --output g.csv``, ``predict … pair.csv --output pair.csv``) would be
    overwritten: refused, as ``cp a a`` is (docs/cli.md "Output files"). Every other
    argument naming an existing file is an input (FILE, --players, --mapping,
    --allow-file [NAME=]PATH, …)."""
    from arpad.pipeline.output import innermost_parser

    outputs = dict(OUTPUT_OPTIONS)
    if args.command == "backtest":
        outputs["predictions"] = "--predictions"
    written = [
        (option, value)
        for attr, option in outputs.items()
        if isinstance(value := getattr(args, attr, None), str) and os.path.isfile(value)
    ]
    if not written:
        return
    actions = {a.dest: a for a in innermost_parser(parser, args)[0]._actions}
    for name, given in vars(args).items():
        if name in NOT_INPUTS or name in outputs:
            continue
        for item in given if isinstance(given, list) else [given]:
            if not isinstance(item, str):
                continue
            for path in {item, item.partition("=")[2]} - {""}:  # --allow-file NAME=PATH
                for option, value in written:
                    if not _same_file(path, value):
                        continue
                    what, action = name, actions.get(name)
                    if action is not None:  # --players, or a positional's FILE
                        what = (action.option_strings or [action.metavar or name])[-1]
                    raise ValueError(
                        f"{option} {value} is the command's input ({what} {item}): "
                        "it would be overwritten; give another output name"
                    )


class UsageError(Exception):
    """A command line argparse refuses (unknown option, impossible period, …)."""


class _StoreOnce(argparse._StoreAction):
    """A single-valued option given twice with different values (``--store A … --store
    B``, ``--system fide --system elo``) is refused: argparse would silently keep the
    last one (docs/cli.md "Options"). The same value twice is harmless."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = vars(namespace).setdefault("_options_given", {})
        if self.dest in seen and seen[self.dest] != values:
            parser.error(
                f"{option_string} given twice ({seen[self.dest]!r}, then {values!r}): give it once"
            )
        seen[self.dest] = values
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    # Bad arguments are bad input: one line ``arpad: error: …`` and exit 2 (not argparse's
    # usage block and SystemExit), like every other refusal; --help still prints usage.
    # Options are matched exactly (no ``--sys`` for ``--system``: an abbreviation that
    # works today would change meaning when an option is added; docs/cli.md "Options").
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self._intermixing = False

    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_known_args(self, args=None, namespace=None):
        # A command's own arguments may come in any order (``arpad ingest a.csv --store S
        # b.csv``): positionals and options intermixed, as argparse's intermixed parsing
        # does; a parser with subcommands parses as usual.
        # After ``--`` every argument is a positional (``ingest --store S -- -games.csv``),
        # which argparse's intermixed parsing does not keep: parsed as usual then.
        if self._subparsers is not None or self._intermixing or "--" in (args or ()):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


class _Version(argparse.Action):
    """``arpad --version``: the version looked up only when asked (start-up is timed)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"arpad {_version()}")
        parser.exit()


def _version() -> str:
    """The installed distribution's version (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arpad")
    except PackageNotFoundError:  # a source tree that was never installed
        return "unknown (not installed)"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With ``argv`` naming a known command (and no
    ``--help``/``-h`` before it), only the module of that command registers its
    parsers (``commands.COMMAND_MODULES``); otherwise every command module does (the
    list of commands, a mistyped command's "did you mean")."""
    parser = _Parser(prog="arpad", description="Batch rating pipeline for chess federations.")
    parser.add_argument("--version", action=_Version, help="print arpad's version and exit")
    parser.add_argument(
        "--store",
        dest="global_store",
        default=None,
        metavar="S",
        help="store directory of the command (may also come after it; default "
        "./arpad-store or $ARPAD_STORE)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    import arpad.pipeline.commands as package
    from arpad.pipeline.lean import command_of

    command = command_of(argv) if argv is not None else None
    if command in package.COMMAND_MODULES:
        names = [package.COMMAND_MODULES[command]]
    else:
        import pkgutil

        infos = pkgutil.iter_modules(package.__path__)
        names = sorted(info.name for info in infos)
    for name in names:
        module = importlib.import_module(f"{package.__name__}.{name}")
        if hasattr(module, "register"):
            module.register(sub)
    _case_insensitive_choices(parser)
    _bounded_whole_numbers(parser)
    return parser


# The range of each whole-number option: a value past its top is refused by the parser
# with one line (``argument --top: 10**23 is out of range (1..1000000000)``), before it
# can overflow a 64-bit integer inside polars or NumPy (``--top 10**23`` was an
# OverflowError traceback) or be taken at its word (``rate --shards 10**23``). A value
# under the bottom is refused here too, but for the options whose command says why in
# its own words (``--top takes a positive number of players, got 0``). docs/cli.md
# "Options".
WHOLE_NUMBER_RANGES = {
    "top": (1, 10**9),  # players in a list; more than the list holds is the whole list
    "min_games": (1, 10**9),
    "active": (1, 12_000),  # months: a thousand years
    "shards": (1, 10_000),
    "checkpoint_every": (1, 1_000_000),  # periods
    "workers": (1, 1_000),  # local worker processes
    "bins": (1, 10_000),
    "seed": (0, 2**32 - 1),
}
DEFAULT_WHOLE_NUMBER_RANGE = (0, 10**9)
LOW_CHECKED_BY_COMMAND = {"top", "min_games", "active", "shards", "checkpoint_every", "workers"}


def _bounded(convert, low: int, high: int, check_low: bool):
    """``convert`` (``int``, or an option's own whole-number type) refusing a value
    above ``high`` (and below ``low`` when ``check_low``); argparse names the option in
    front of the message."""

    def whole_number(text):
        value = convert(text)
        if isinstance(value, int) and (value > high or (check_low and value < low)):
            shown = str(text).strip()
            shown = shown if len(shown) <= 40 else f"{shown[:20]}… ({len(shown)} characters)"
            if type(text).__name__ == "FromEnv":  # ARPAD_WORKERS (commands/common.py)
                shown = f"ARPAD_WORKERS={shown}"
            raise argparse.ArgumentTypeError(f"{shown} is out of range ({low}..{high})")
        return value

    # argparse's "invalid int value: 'x'" names the type by its __name__
    whole_number.__name__ = getattr(convert, "__name__", "int")
    return whole_number


def _bounded_whole_numbers(parser: argparse.ArgumentParser) -> None:
    """Every option of type ``int`` (and ``--workers``'s ``worker_count``) gets its
    range (``WHOLE_NUMBER_RANGES``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _bounded_whole_numbers(child)
        elif action.type is int or getattr(action.type, "__name__", "") == "worker_count":
            low, high = WHOLE_NUMBER_RANGES.get(action.dest, DEFAULT_WHOLE_NUMBER_RANGE)
            check_low = action.dest not in LOW_CHECKED_BY_COMMAND
            action.type = _bounded(action.type, low, high, check_low)


def _case_insensitive_choices(parser: argparse.ArgumentParser) -> None:
    """``--format CSV`` as ``--format csv``: every option whose choices are lower-case
    words takes them in any case (docs/cli.md "The command line attacked")."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _case_insensitive_choices(child)
        elif (
            action.option_strings
            and action.choices
            and action.type is None
            and all(isinstance(c, str) and c == c.lower() for c in action.choices)
        ):
            action.type = str.lower


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool cut off by `head`


class OutputError(Exception):
    """Standard output could not be written (a full device, a closed descriptor): the
    command's own work is done, only its printed report is lost (docs/cli.md)."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class _Stdout:
    """``sys.stdout`` for the time of one command: a write or flush that fails (other
    than a reader going away, BrokenPipeError) raises OutputError, so that a failed
    write of the command's report is not taken for a failed write of the store. A
    closed standard output (``>&-``, ``sys.stdout`` None) fails the same way."""

    def __init__(self, stream, binary: bool = False):
        self._stream, self._binary = stream, binary

    def _call(self, name: str, *args):
        if self._stream is None:
            raise OutputError(OSError(9, "standard output is closed"))
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc) from exc

    def write(self, data):
        return self._call("write", data)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        return None if self._stream is None else self._call("flush")

    @property
    def buffer(self):
        return _Stdout(getattr(self._stream, "buffer", None), binary=True)

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def __getattr__(self, name):
        if self._stream is None:
            raise OutputError(OSError(9, "standard output is closed"))
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    _prepare_environment()
    lean = False
    if argv is None:  # the console process itself (pipeline/lean.py)
        from arpad.pipeline.lean import hide_unneeded_modules, single_threaded_blas

        single_threaded_blas()
        lean = hide_unneeded_modules(sys.argv[1:])
        import signal

        signal.signal(signal.SIGTERM, _terminate)
    try:
        code = _main(argv)
    except KeyboardInterrupt as exc:  # Ctrl-C while the parser or a command module loads
        code = _interrupted(exc)
    if argv is None:
        # The command is over and its code stands: a Ctrl-C landing in the interpreter's
        # teardown (Dask's, Prefect's exit handlers) killed the process silently with
        # SIGINT's default action (exit -2, nothing said) after the work was done.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lean:  # an in-process ingest or rate: done, nothing left to tear down
        from arpad.pipeline.lean import exit_now

        exit_now(code)
    return code


def _damaged_store(args, exc: BaseException):
    """A DuckDB, Arrow or OS error reading the store: the damaged file that caused it, named
    with its repair (pipeline/integrity.py ``diagnose``), else None. Only on this error
    path are the store's files checked."""
    from_files = False
    seen = exc
    while seen is not None and not from_files:
        from_files = isinstance(seen, OSError) or type(seen).__module__.split(".")[0] in (
            "duckdb",
            "_duckdb",
            "pyarrow",
        )
        seen = seen.__cause__ or seen.__context__
    store = vars(args).get("store")
    if not from_files or not store:
        return None
    from arpad.pipeline.integrity import diagnose
    from arpad.pipeline.store import Store

    return diagnose(Store(store))


# Errors of a path as given, not of arpad: named with the path, exit 2 (docs/cli.md).
BAD_PATH_ERRNOS = {
    errno.ELOOP: "too many levels of symbolic links (a symlink loop)",
    errno.ENAMETOOLONG: "file name too long",
}


def _bad_path(exc: BaseException) -> str | None:
    """``PATH: problem`` for an OSError (or one it came from) of ``BAD_PATH_ERRNOS``."""
    seen, met = exc, set()
    while seen is not None and id(seen) not in met:  # (a chain may loop)
        met.add(id(seen))
        if isinstance(seen, OSError) and seen.errno in BAD_PATH_ERRNOS:
            where = seen.filename if seen.filename is not None else "a path given"
            return f"{where}: {BAD_PATH_ERRNOS[seen.errno]}"
        seen = seen.__cause__ or seen.__context__
    return None


def _resolve_store(args) -> None:
    """``--store`` given before the command (``arpad --store S ingest F``) is the
    command's ``--store``; given on both sides with different values it is refused.
    Commands that take no store refuse it; the default (``$ARPAD_STORE``, else
    ./arpad-store) is filled in here, once (docs/cli.md "Options")."""
    from arpad.pipeline.commands.common import DEFAULT_STORE

    given = args.global_store
    if not hasattr(args, "store"):
        if given is not None:
            raise UsageError(f"arpad {args.command} does not take --store")
        return
    source = "--store"
    if args.store is None:
        args.store = given
        if getattr(args, "_takes_store", False) and args.store is None:  # else optional
            args.store = os.environ.get("ARPAD_STORE") or DEFAULT_STORE
            source = "ARPAD_STORE"
    elif given is not None and given != args.store:
        raise UsageError(f"--store given twice ({given!r}, then {args.store!r}): give it once")
    store = getattr(args, "store", None)
    if isinstance(store, str) and not store.strip():  # "" or blank: "  " made a store "  "
        what = "empty (an unset variable?)" if store == "" else f"blank ({store!r})"
        raise UsageError(f"{source} is {what}: name the store directory")


def _usage_hint(parser: argparse.ArgumentParser, argv: list[str], message: str) -> str:
    """The refusal of an unknown option, with ``did you mean --system?`` when it
    abbreviates or nearly spells one of the command's options (abbreviations are not
    accepted), pointing at the command's own help. An unknown option that made argparse
    refuse something else first (``rate --sys elo``: "--system is required"; ``--sys elo
    rate``: "invalid choice: 'elo'") is named with the same hint."""
    unrecognized = "unrecognized arguments" in message
    if not unrecognized and not any(t.startswith("--") for t in argv):
        return message
    import difflib

    known: list[str] = list(parser._option_string_actions)
    prog, queue = parser.prog, [parser]
    while queue:  # the options of the command named in argv (and its subcommands)
        current = queue.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if name in argv:
                        known.extend(sub._option_string_actions)
                        prog = sub.prog
                        queue.append(sub)
    text = message.split(" (see ", 1)[0]
    tokens = text.split(":", 1)[1].split() if unrecognized else argv
    for token in tokens:
        word = token.split("=", 1)[0]
        if not word.startswith("--") or word == "--" or word in known:
            continue
        longer = sorted({k for k in known if k.startswith(word) and k != word})
        close = longer or difflib.get_close_matches(word, known, n=1)
        if close:
            if not unrecognized:
                text += f"; {word} is not an option"
            text += f"; did you mean {' or '.join(close[:3])}?"
            break
    return f"{text} (see {prog} --help)"


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    if not argv:  # `arpad` alone: the list of commands, as a usage error
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    if argv[0] == "help":  # `arpad help [COMMAND…]` is `arpad [COMMAND…] --help`
        argv = [*argv[1:], "--help"]
    try:
        args = parser.parse_args(argv)
        _resolve_store(args)
    except UsageError as exc:
        print(f"arpad: error: {_usage_hint(parser, argv, str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if getattr(args, "output", None) == "-":  # `--output -`: standard output
            if args.command in FILE_ONLY_OUTPUT:
                raise ValueError(
                    f"--output - (standard output) is not for arpad "
                    f"{args.command}, which writes files: give a name"
                )
            args.output = None
        _check_args(args)
        _refuse_input_as_output(parser, args)
        if getattr(args, "output", None) and hasattr(args, "fmt"):  # --output x.csv: CSV
            from arpad.pipeline.output import resolve_output_format

            resolve_output_format(parser, args)
        stdout, sys.stdout = sys.stdout, _Stdout(sys.stdout)
        try:
            code = args.func(args)
            sys.stdout.flush()  # a full device fails here, not silently at exit
        finally:
            sys.stdout = stdout
        return EXIT_OK if code is None else int(code)
    except OutputError as exc:  # the report was lost, not the work (docs/cli.md)
        cause = exc.cause
        why = "disk full" if disk_full(cause) else (cause.strerror or str(cause))
        text = " ".join(str(cause).split())
        print(
            f"arpad: error: could not write the command's output to standard output: "
            f"{why} ({text}); what the command wrote to the store is kept",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except InputError as exc:
        print(f"arpad: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreBusyError as exc:
        print(f"arpad: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnicodeEncodeError as exc:  # a text the terminal's encoding cannot show
        text = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else "?"
        print(
            f"arpad: error: the output's encoding ({exc.encoding}) cannot write {text!r}: "
            "use --output FILE (written as UTF-8) or a UTF-8 locale (PYTHONIOENCODING=utf-8)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except (ValueError, FileNotFoundError) as exc:
        # a value of a file may be quoted (a DuckDB conversion error): shown as written
        print(f"arpad: error: {printable(str(_damaged_store(args, exc) or exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: one line, no traceback (docs/cli.md)
        return _interrupted(exc)
    except BrokenPipeError:  # `arpad ... | head`: the reader has gone; no traceback
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        from arpad._interrupt import _interrupted as interrupt_in_disguise

        if interrupt_in_disguise(exc):  # Ctrl-C taken by DuckDB mid-query ("Query interrupted")
            return _interrupted(KeyboardInterrupt())
        if (bad := _bad_path(exc)) is not None:  # a symlink loop, an over-long name
            print(f"arpad: error: {bad}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if disk_full(exc):  # the writer lock has put the store back as it was
            text = " ".join(str(exc).split())
            # Name the file or folder the command was writing, if it was given one: a
            # pyarrow/write() error carries no file name (docs/operations.md, round 3).
            folder = OUTPUT_FOLDERS.get(args.command, ("", ""))[0]
            given = [v for k, v in vars(args).items() if (k in OUTPUT_OPTIONS or k == folder) and v]
            target = f"; {given[0]} not written" if given else ""
            print(
                f"arpad: error: disk full ({text}){target}: the store is as before",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        if (denied := not_writable(exc)) is not None:  # the writer lock has undone its writes
            where = str(denied.filename if denied.filename is not None else "the output")
            name = os.path.basename(where)
            if name.startswith(".") and ".tmp" in name:  # an atomic write's temporary file
                where = os.path.dirname(where) or "."
            why = denied.strerror or str(denied)
            print(f"arpad: error: {where}: {why} (the store is as before)", file=sys.stderr)
            return EXIT_BAD_INPUT
        if (named := _damaged_store(args, exc)) is not None:  # a file not as arpad wrote it
            print(f"arpad: error: {named}", file=sys.stderr)
            return EXIT_BAD_INPUT
        traceback.print_exc()
        print("arpad: internal error (exit 1)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
