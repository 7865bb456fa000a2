"""Every documented command line parses, every documented API name exists (docs/cli.md
"Documented examples, checked").

A fast guard, nothing is run: each ``arpad ...`` line of a fenced block in README.md and
docs/*.md is parsed with the real parser (pipeline/cli.py ``build_parser``), and each
``arpad.X`` / ``store.X`` / ``Store.X`` named in docs/api.md, README.md,
docs/analysis.md and the docstrings of src/arpad/__init__.py and src/arpad/api.py
must exist. The synopsis notation is read as the docs use it: ``[...]`` is optional
(its first alternative is kept, so every option named in a synopsis is checked),
``a|b`` and ``X | Y`` are alternatives (the first is kept), ``...``/``…`` repeat the
previous item, and a placeholder (``FILE``, ``S``, ``P``, ``<...>``) that the option's
type refuses is replaced by a sample value the type takes. A concrete value is parsed
as written.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

import arpad
from arpad.pipeline.cli import UsageError, _resolve_store, build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
API_DOCS = [
    ROOT / "docs" / "api.md",
    ROOT / "docs" / "analysis.md",
    ROOT / "README.md",
    ROOT / "src" / "arpad" / "__init__.py",
    ROOT / "src" / "arpad" / "api.py",
]
ELLIPSIS = ("...", "…")
PLACEHOLDER = re.compile(r"^(<[^>]+>|[A-Z][A-Z0-9_]*(\.[A-Za-z0-9]+)?)$")
# Values tried, in order, for a placeholder its option's type refuses (``--period P``).
SAMPLES = ("2", "0.3", "202403", "2024-03", "fide", "standard", "x")
COMMAND = re.compile(r"^\s*(\$\s+)?arpad\s")


def _fenced_commands(markdown: str) -> list[tuple[int, str]]:
    """(line number, command text) of every ``arpad ...`` command in a fenced block;
    continuation lines (a trailing backslash, an open quote, an indented ``[``/``--``
    line of a synopsis) are joined to the command."""
    found: list[tuple[int, str]] = []
    fence = None
    current: tuple[int, str] | None = None
    for number, line in enumerate(markdown.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if fence is None:
                fence = stripped[3:].strip().lower()
            else:
                fence = None
            if current:
                found.append(current)
                current = None
            continue
        if fence is None or fence in ("python", "py", "pycon", "json", "toml"):
            continue
        if current is not None:
            text = current[1]
            if (
                text.endswith("\\")
                or _open_quote(text)
                or (line[:1].isspace() and stripped.startswith(("[", "--")))
            ):
                current = (current[0], text.removesuffix("\\") + "\n" + line)
                continue
            found.append(current)
            current = None
        if COMMAND.match(line):
            current = (number, re.sub(r"^\s*(\$\s+)?", "", line))
    if current:
        found.append(current)
    return found


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return True
    return False


def _outside_quotes(text: str, start: int = 0):
    """(index, character, bracket depth after it) of each character of ``text`` from
    ``start`` that is not inside quotes."""
    depth, quote = 0, None
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            quote = None if c == quote else quote
            continue
        if c in "\"'":
            quote = c
            continue
        depth += (c == "[") - (c == "]")
        yield i, c, depth


def _matching(text: str, start: int) -> int:
    """Index of the ``]`` closing the ``[`` at ``start`` (quotes skipped)."""
    for i, c, depth in _outside_quotes(text, start):
        if c == "]" and depth == 0:
            return i
    raise ValueError(f"unclosed [ in {text!r}")


def _first_alternative(text: str) -> str:
    """``--flow | --no-flow`` -> ``--flow`` (a `` | `` outside brackets and quotes)."""
    for i, c, depth in _outside_quotes(text):
        if c == "|" and depth == 0 and text[i - 1 : i] == " " and text[i + 1 : i + 2] == " ":
            return text[:i]
    return text


def _expand(text: str) -> str:
    """Optional groups replaced by their first alternative, ``a|b`` words by ``a``."""
    out, quote, i = [], None, 0
    while i < len(text):
        c = text[i]
        if quote:
            quote = None if c == quote else quote
            out.append(c)
        elif c in "\"'":
            quote = c
            out.append(c)
        elif c == "[":
            end = _matching(text, i)
            out.append(_expand(_first_alternative(text[i + 1 : end])))
            i = end + 1
            continue
        elif c == "|" and text[i - 1 : i] not in (" ", "") and text[i + 1 : i + 2] != " ":
            while i < len(text) and not text[i].isspace() and text[i] not in "]":
                i += 1  # csv|parquet -> csv: skip the other alternatives
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _split_commands(tokens: list[str]) -> list[list[str]]:
    """``a && b``, ``a | arpad b`` (a second command on the same line) -> [a, b]."""
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in ("&&", ";", "|"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c and c[0] == "arpad"]


def _command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The (sub)parser of the command named in argv (``players merge`` -> merge's)."""
    current = parser
    for token in argv:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and token in subs[0].choices:
            current = subs[0].choices[token]
    return current


def _accepts(action: argparse.Action, value: str) -> bool:
    try:
        converted = action.type(value) if callable(action.type) else value
    except Exception:
        return False
    return action.choices is None or converted in action.choices


def _argv(parser: argparse.ArgumentParser, tokens: list[str]) -> list[str]:
    """The command's arguments with the notation resolved (module docstring)."""
    tokens = [t.removesuffix("...").removesuffix("…") or t for t in tokens[1:]]
    command = _command_parser(parser, tokens)
    options = dict(parser._option_string_actions, **command._option_string_actions)
    argv: list[str] = []
    pending: argparse.Action | None = None  # an option still waiting for its value
    for token in tokens:
        if pending is not None:
            if token in ELLIPSIS or (PLACEHOLDER.match(token) and not _accepts(pending, token)):
                samples = (*(pending.choices or ()), *SAMPLES)
                token = next((s for s in samples if _accepts(pending, s)), token)
            argv.append(token)
            pending = None
            continue
        if token in ELLIPSIS:
            continue  # "--set key=value ...": the item repeats
        argv.append(token)
        action = options.get(token.split("=", 1)[0])
        if action is not None and action.nargs != 0 and "=" not in token:
            pending = action
    return argv


def _commands_of(markdown: str, name: str) -> list[tuple[str, str, list[str]]]:
    """(where, command text, tokens) of each command in the fenced blocks of a page."""
    cases = []
    for number, text in _fenced_commands(markdown):
        expanded = _expand(text.replace("\\\n", " "))
        for tokens in _split_commands(shlex.split(expanded, comments=True)):
            cases.append((f"{name}:{number}", text, tokens))
    return cases


def _documented_commands() -> list[tuple[str, str, list[str]]]:
    cases = []
    for path in DOCS:
        cases += _commands_of(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return cases


COMMANDS = _documented_commands()


def test_the_docs_have_commands_to_check():
    # a change of the extraction that finds nothing would pass every case below
    assert len(COMMANDS) > 100
    where = {case[0].split(":")[0] for case in COMMANDS}
    assert {"README.md", "docs/cli.md", "docs/ingest.md", "docs/operations.md"} <= where


@pytest.fixture(scope="module")
def parser():
    return build_parser()


@pytest.mark.parametrize(("where", "text", "tokens"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_documented_command_parses(parser, where, text, tokens):
    argv = _argv(parser, tokens)
    try:
        args = parser.parse_args(argv)
        _resolve_store(args)
    except SystemExit as exc:  # --help, --version
        assert exc.code == 0, f"{where}: {text}"
    except Exception as exc:
        pytest.fail(f"{where}: `{text}` does not parse as {argv}: {exc}")


def _parses(parser, tokens) -> bool:
    try:
        _resolve_store(parser.parse_args(_argv(parser, tokens)))
    except UsageError:
        return False
    return True


def test_a_misspelt_option_in_a_page_is_caught(parser):
    # the guard itself, on a page of the docs' shape: a misspelt option fails the parse
    page = (
        "Text.\n\n```\n"
        "arpad list --system fide --store S --top 20 [--date 2024-03] [--format csv|json]\n"
        "arpad rate --system SYSTEM [--store S] [--from P] [--to P] [--set key=value ...]\n"
        "           [--full] [--flow | --no-flow] [--workers N]\n"
        "```\n"
    )
    good = _commands_of(page, "page.md")
    assert [where for where, _, _ in good] == ["page.md:4", "page.md:5"]
    assert all(_parses(parser, tokens) for _, _, tokens in good)
    for wrong, right in (("--top 20", "--tops 20"), ("[--full]", "[--ful]"), ("-flow", "-flwo")):
        cases = _commands_of(page.replace(wrong, right), "page.md")
        assert not all(_parses(parser, tokens) for _, _, tokens in cases), right


def test_the_notation_is_resolved(parser):
    argv = _argv(parser, shlex.split(_expand("arpad rate --sytem fide [--from P]")))
    with pytest.raises(UsageError, match="--system"):  # argparse: "--system is required"
        parser.parse_args(argv)
    good = _argv(parser, shlex.split(_expand("arpad list [--period P | --date D] [--top N]")))
    assert parser.parse_args(good).top == 2
    assert _argv(parser, shlex.split(_expand("arpad list --format csv|json"))) == [
        "list",
        "--format",
        "csv",
    ]


API_NAME = re.compile(r"(?<![\w/.])(arpad|store|Store)\.([A-Za-z_]\w*)\b(?!\.(md|py)\b)")
FILE_SUFFIXES = {"md", "py", "duckdb", "json", "toml", "parquet", "csv"}


def _api_names() -> list[tuple[str, str, str]]:
    names = set()
    for path in API_DOCS:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":  # the module docstring only
            text = text.split('"""')[1]
        for match in API_NAME.finditer(text):
            owner, name = match.group(1), match.group(2)
            if name in FILE_SUFFIXES:
                continue
            names.add((str(path.relative_to(ROOT)), owner, name))
    return sorted(names)


API_NAMES = _api_names()


def test_the_docs_name_api_members():
    assert {("arpad", "rate"), ("store", "ingest")} <= {(o, n) for _, o, n in API_NAMES}


@pytest.mark.parametrize(("where", "owner", "name"), API_NAMES)
def test_documented_api_name_exists(where, owner, name):
    if owner == "arpad":
        exists = name in dir(arpad) or importlib.util.find_spec(f"arpad.{name}") is not None
    else:
        exists = hasattr(arpad.Store, name)
    assert exists, f"{where} names {owner}.{name}, which the API does not have"


def _inline_commands() -> list[tuple[str, str]]:
    """``arpad ...`` in a code span of the prose (fenced blocks left out): often a
    fragment (`arpad rate --from`), so only its options are checked."""
    cases = []
    for path in DOCS:
        text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
        for match in re.finditer(r"`(arpad [^`]+)`", text.replace("\n", " ")):
            cases.append((str(path.relative_to(ROOT)), match.group(1)))
    return cases


INLINE = _inline_commands()
# Spans that show a refused command line on purpose (docs/cli.md "The command line
# attacked" and "Documented examples, checked").
REFUSED_ON_PURPOSE = {"arpad --stor S list", "arpad players --candidates"}


@pytest.mark.parametrize(("where", "text"), INLINE, ids=[f"{w}:{t}" for w, t in INLINE])
def test_inline_command_options_exist(parser, where, text):
    if where == "docs/cli.md" and text in REFUSED_ON_PURPOSE:
        return
    words = text.split()
    command = _command_parser(parser, words[1:])
    known = set(parser._option_string_actions) | set(command._option_string_actions)
    for word in words[1:]:
        for option in re.findall(r"--[a-z][a-z0-9-]*", word.split("=", 1)[0]):
            assert option in known, f"{where}: `{text}`: {command.prog} has no {option}"


def _other_commands() -> list[tuple[str, str]]:
    """``make TARGET`` and ``.venv/bin/python FILE.py`` anywhere in README.md and docs/."""
    found = set()
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        patterns = (
            r"`(make [a-z]+)[`\s]",  # `make demo` in the prose
            r"(?m)^(make [a-z]+)\s*(?:#|$)",  # a line of a fenced block
            r"(?:^|[`\s])(\.venv/bin/python [\w/.-]+\.py)",
        )
        for pattern in patterns:
            for match in re.finditer(pattern, text):
                found.add((str(path.relative_to(ROOT)), match.group(1)))
    return sorted(found)


OTHER = _other_commands()


def test_make_targets_and_scripts_exist():
    targets = set(re.findall(r"(?m)^([a-z]+):", (ROOT / "Makefile").read_text(encoding="utf-8")))
    assert any(command == "make demo" for _, command in OTHER)
    for where, command in OTHER:
        if command.startswith("make "):
            assert command[5:] in targets, f"{where}: `{command}`: no such Makefile target"
        else:
            script = command.split()[1]
            assert (ROOT / script).is_file(), f"{where}: `{command}`: no {script}"
