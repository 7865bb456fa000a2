"""The Python API in its own words (docs/api.md "Attacked in a notebook, round 6"): errors
and ingest reports name the API's parameters (``rules=``, ``wait=``, ``cluster=``,
``source=``/``replace=``), never a command's ``--option``; the command keeps its words.
And docs/api.md shows the real signatures ("Signatures"): every signature it quotes is
checked against ``inspect.signature`` of the object it names."""

from __future__ import annotations

import ast
import inspect
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "api.md"
DATA = REPO / "data" / "real"
GAMES = pl.DataFrame(
    {
        "date": ["2025-01-10", "2025-02-10"],
        "white_id": ["a", "b"],
        "black_id": ["b", "a"],
        "result": ["1-0", "0-1"],
    }
)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An Elo-rated store of ``GAMES``, ingested from ``g.csv`` in the working folder."""
    monkeypatch.chdir(tmp_path)
    GAMES.write_csv(tmp_path / "g.csv")
    s = arpad.Store(tmp_path / "s")
    s.ingest("g.csv")
    s.rate("elo")
    return s


def raised(call) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        call()
    return info.type, str(info.value)


# -- 1. the analyst's five ----------------------------------------------------------------
def test_a_rules_date_for_a_system_without_versions_names_rules(store):
    want = (
        "rules: a date is only meaningful for systems with dated versions; elo has none "
        "(give rules= a JSON file of rule fields instead, or the fields as keywords)"
    )
    assert raised(lambda: arpad.rate(GAMES, system="elo", rules="2014-07")) == (ValueError, want)
    assert raised(lambda: store.rate("elo", rules="2014-07")) == (ValueError, want)


def test_wait_below_zero_names_wait(store, tmp_path):
    want = (ValueError, "wait: a number of seconds >= 0, got -1")
    assert raised(lambda: store.rate("elo", wait=-1)) == want
    assert raised(lambda: store.ingest(tmp_path / "g.csv", wait=-1)) == want
    assert raised(lambda: store.reconstruct("elo", wait=-1)) == want


def test_a_bad_cluster_address_names_cluster(store):
    want = (ValueError, "cluster: a scheduler address like 'tcp://HOST:PORT', got 'x'")
    assert raised(lambda: arpad.backtest("deloitte2011", "elo", cluster="x")) == want
    assert raised(lambda: store.rate("elo", cluster="x")) == want
    assert raised(lambda: arpad.whatif(store, "2024-03", "2025-10", cluster="x")) == want


def test_the_same_file_again_with_replace_names_the_keywords(store):
    report = store.ingest("g.csv", replace=True)
    assert report.accepted == 0
    assert report.files[0].skipped == (
        "identical content already ingested as g.csv (source= and replace= do not apply to "
        "a file stored byte for byte: send the correction as a new version of the source it "
        "corrects)"
    )


def test_sql_of_no_str_is_one_line(store):
    assert raised(lambda: store.sql(None)) == (TypeError, "query must be a str, got NoneType")
    assert raised(lambda: store.sql(["SELECT 1"])) == (TypeError, "query must be a str, got list")


# -- 2. the sweep: the other options an API call could meet -------------------------------
def test_the_other_messages_name_the_api_words(store, tmp_path):
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("1")
    cases = [
        (
            lambda: store.rate("fide", rules="garbage"),
            ValueError,
            "rules: a date (YYYY, YYYY-MM, YYYY-MM-DD, YYYYMM) or a JSON file, got 'garbage'",
        ),
        (
            lambda: arpad.whatif(store, "garbage", "2025-10"),
            ValueError,
            "rules: a date (YYYY, YYYY-MM, YYYY-MM-DD, YYYYMM) or a JSON file, got 'garbage'",
        ),
        (
            lambda: arpad.rate(GAMES, system="elo", rules={"k": 32}),
            TypeError,
            "rules: a rules spec (a date or a JSON file) or a EloRules for elo, got dict "
            "(give rule fields as keyword arguments, e.g. k=32)",
        ),
        (
            lambda: store.rate("elo", rules=5),
            TypeError,
            "rules: a rules spec (a date or a JSON file), got int (rule fields go in as "
            "keywords: k=32)",
        ),
        (
            lambda: arpad.whatif(store, 5, "2025-10"),
            TypeError,
            "rules: a rules spec (a date such as '2014-07', a JSON file, or 'dated' for the "
            "versions in force), got int",
        ),
        (lambda: store.era("elo", by="century"), ValueError, "by: year or decade, got 'century'"),
        (
            # GAMES: a and b play once a month, so one rated game each up to 202502
            lambda: store.list("elo", min_games=50),
            ValueError,
            "the elo/standard list for period 202502 has no player with at least 50 rated "
            "game(s) up to it (lower min_games=)",
        ),
        (
            lambda: store.rate("elo", start=202503, end=202504),
            ValueError,
            "no standard games with start=202503 and end=202504 (stored periods: 202501..202502)",
        ),
        (
            lambda: arpad.whatif(store, "2024-03", "2025-10"),
            ValueError,
            "fide needs published starting ratings and neither the players table nor the "
            "games give any (ingest a players file with ratings: store.ingest(files, "
            "players=FILE))",
        ),
        (
            lambda: arpad.Store(tmp_path / "f.txt").rate("elo"),
            arpad.InputError,
            f"{tmp_path / 'f.txt'}: the store is a file, not a store directory",
        ),
        (
            lambda: store.ingest(["g.csv", "g.csv"], source="x"),
            ValueError,
            "source= names one games file; give exactly one",
        ),
    ]
    for call, kind, want in cases:
        with pytest.raises(kind) as info:  # (list's EmptyListError is a ValueError)
            call()
        assert str(info.value) == want
        assert "--" not in want
    store.publish("elo", period=202502, force=True)
    with pytest.raises(ValueError) as info:
        store.publish("elo", period=202501)
    assert str(info.value) == (
        "the elo/standard list of period 202502 is already published and period 202501 is "
        "earlier: lists are frozen in order (202501's list frozen now would disagree with "
        "202502's wherever a correction came in between); store.list(system, period=202501) "
        "shows it without freezing it"
    )
    for out, why in (
        (tmp_path / "f.txt", "exists and is not a folder"),
        (
            tmp_path / "busy",
            "is a non-empty folder not written by store.site; give a new or empty folder",
        ),
    ):
        assert raised(lambda out=out: store.site(out)) == (ValueError, f"out: {out} {why}")


def test_ingest_notes_name_the_keywords(tmp_path, monkeypatch):
    """A Lichess bullet TRF goes to blitz (its note says how to override it); the same
    bytes under another name with other read options are skipped, saying how to read
    them with those options; a game stored again with another result points to
    ``source=`` (docs/ingest.md)."""
    monkeypatch.chdir(tmp_path)
    for name in ("bullet.trf", "bullet2.trf"):
        shutil.copy(DATA / "trf" / "lichess_swiss_bullet_2020-05-10.trf", tmp_path / name)
    store = arpad.Store(tmp_path / "s")
    notes = store.ingest("bullet.trf").files[0].notes
    assert notes[0] == (
        "pool blitz (the word 'Bullet' in the 012 tournament name 'NM Zulfikar Sali Bullet "
        "Chess'; pass pool='standard' to override)"
    )
    copy = store.ingest("bullet2.trf", pool="standard").files[0]
    assert copy.skipped == (
        "identical content already ingested as bullet.trf (pool='standard' not applied: "
        "these bytes are stored as the source bullet.trf, read without options; to read "
        "that source with pool='standard': store.ingest('bullet.trf', pool='standard'), or "
        "this file with source='bullet.trf', pool='standard')"
    )
    again = store.ingest("bullet.trf", pool="standard").files[0]
    assert (
        "pool standard for every game (pool='standard'); the file alone gives pool blitz "
        "(the word 'Bullet' in the 012 tournament name 'NM Zulfikar Sali Bullet Chess')"
    ) in again.notes
    pl.DataFrame({"date": ["2025-01-10"], "white_id": ["a"], "black_id": ["b"], "result": ["1-0"]}).write_csv("g1.csv")  # fmt: skip
    pl.DataFrame({"date": ["2025-01-10"], "white_id": ["a"], "black_id": ["b"], "result": ["0-1"]}).write_csv("g2.csv")  # fmt: skip
    store.ingest("g1.csv")
    other = store.ingest("g2.csv").files[0]
    assert other.notes == [
        "1 game(s) with the date and players of a game stored from another file but another "
        "result: not applied (quarantined as conflicting_result; to correct g1.csv, ingest "
        "this file with source='g1.csv': a new version replaces all of that source's games, "
        "so send the complete corrected file)"
    ]
    assert all("--" not in text for text in [*notes, *again.notes, *other.examples])


# -- 3. the keywords the advice names ------------------------------------------------------
def test_source_and_pool_keywords_do_what_the_options_do(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = arpad.Store(tmp_path / "s")
    GAMES.write_csv("g1.csv")
    store.ingest("g1.csv")
    # the correction: a beat b in January and lost in February; the new version says the
    # January game was a draw. As a new version of g1.csv it replaces the source's games
    fixed = GAMES.with_columns(pl.Series("result", ["1/2-1/2", "0-1"]))
    fixed.write_csv("fixed.csv")
    store.ingest("fixed.csv", source="g1.csv")
    games = store.sql("SELECT source, score FROM games ORDER BY date")
    assert games.rows() == [("g1.csv:2", 0.5), ("g1.csv:3", 0.0)]  # file:line
    rapid = arpad.Store(tmp_path / "r")
    rapid.ingest("g1.csv", pool="rapid")
    pools = rapid.sql("SELECT pool, count(*) AS n FROM games GROUP BY pool")
    assert pools.rows() == [("rapid", 2)]
    assert raised(lambda: rapid.ingest("g1.csv", pool="Blitz")) == (
        ValueError,
        "pool: 'Blitz' is not one of standard, rapid, blitz (did you mean 'blitz'?)",
    )


def test_the_command_keeps_its_words(tmp_path, capsys):
    GAMES.write_csv(tmp_path / "g.csv")
    s = str(tmp_path / "s")
    assert main(["--store", s, "ingest", str(tmp_path / "g.csv")]) == 0
    capsys.readouterr()
    assert main(["--store", s, "rate", "--system", "elo", "--rules", "2014-07"]) == 2
    assert "--rules DATE is only meaningful" in capsys.readouterr().err
    assert main(["--store", s, "rate", "--system", "elo", "--wait", "-1"]) == 2
    assert "--wait takes a number of seconds >= 0" in capsys.readouterr().err


# -- 4. docs/api.md's signatures -----------------------------------------------------------
SIGNATURE = re.compile(r"((?:arpad|store|Store)\.\w+)\((.*)\)")


def doc_spans(text: str) -> list[str]:
    """The code spans of the page's prose (fenced blocks left out), lines joined."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose)]


def documented(span: str) -> tuple[str, ast.arguments] | None:
    """(name, parameters) of a span that is a signature: ``arpad.X(…)``, ``store.X(…)``
    or ``Store.X(…)`` whose parentheses read as a parameter list with literal defaults
    (``...``: described in the text); a call (``store.history("Steinitz")``,
    ``progress=f``) is None."""
    m = SIGNATURE.fullmatch(span)
    if not m:
        return None
    try:
        args = ast.parse(f"def f({m[2]}): pass").body[0].args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            ast.literal_eval(default)
    except (SyntaxError, ValueError):
        return None
    return m[1], args


def real_signature(name: str) -> inspect.Signature:
    owner, attr = name.split(".")
    if owner == "arpad":
        return inspect.signature(getattr(arpad, attr))
    sig = inspect.signature(getattr(arpad.Store, attr))
    return sig.replace(parameters=list(sig.parameters.values())[1:])  # without self


def doc_parameters(args: ast.arguments) -> list[tuple[str, inspect._ParameterKind, object]]:
    """(name, kind, default) as the span gives them; default ``inspect.Parameter.empty``
    when the span gives none, ``...`` for a default described in the text."""
    P = inspect.Parameter
    plain = [*args.posonlyargs, *args.args]
    defaults = [P.empty] * (len(plain) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults
    ]
    out = [(a.arg, P.POSITIONAL_OR_KEYWORD, d) for a, d in zip(plain, defaults)]
    if args.vararg:
        out.append(("*", P.VAR_POSITIONAL, P.empty))
    out += [
        (a.arg, P.KEYWORD_ONLY, P.empty if d is None else ast.literal_eval(d))
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
    ]
    if args.kwarg:
        out.append(("**", P.VAR_KEYWORD, P.empty))
    return out


def real_parameters(sig: inspect.Signature) -> list[tuple[str, inspect._ParameterKind, object]]:
    P = inspect.Parameter
    out = []
    for p in sig.parameters.values():
        name = {P.VAR_POSITIONAL: "*", P.VAR_KEYWORD: "**"}.get(p.kind, p.name)
        default = p.default
        if default is not P.empty and not isinstance(default, str | int | float | bool | None):
            default = ...  # a sentinel (predict's system): described in the text
        out.append((name, p.kind, default))
    return out


def mismatches(span: str) -> list[str]:
    """What a signature span says that the code does not: a parameter it lacks, one of
    another kind (positional where it is keyword-only, or the reverse), out of its
    place, or with another default. Parameters may be left out, and so may defaults."""
    name, args = documented(span)
    real = real_parameters(real_signature(name))
    by_name = {n: (kind, default) for n, kind, default in real}
    positional = [n for n, kind, _ in real if kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
    out = []
    for i, (param, kind, default) in enumerate(doc_parameters(args)):
        if param not in by_name:
            out.append(f"{span}: no parameter {param}")
            continue
        real_kind, real_default = by_name[param]
        if kind != real_kind:
            out.append(f"{span}: {param} is {real_kind.description}, not {kind.description}")
        elif kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and positional[i] != param:
            out.append(f"{span}: {param} is not parameter {i + 1}")
        if default is not inspect.Parameter.empty and default != real_default:
            out.append(f"{span}: {param} defaults to {real_default!r}, not {default!r}")
    return out


def test_the_checker_finds_the_old_signatures():
    # the page's spans before round 6: publish, site and reconstruct made keyword-only
    # parameters look positional (store.publish("elo", 100, True) is a TypeError)
    old = [
        "store.publish(system, period=None, force=False)",
        "store.site(out, system=None, pools=None)",
        "store.reconstruct(systems=None, pools=None, wait=0.0, **rule_fields)",
    ]
    assert [m for span in old for m in mismatches(span)] == [
        "store.publish(system, period=None, force=False): period is keyword-only, not "
        "positional or keyword",
        "store.publish(system, period=None, force=False): force is keyword-only, not "
        "positional or keyword",
        "store.site(out, system=None, pools=None): system is keyword-only, not positional "
        "or keyword",
        "store.site(out, system=None, pools=None): pools is keyword-only, not positional "
        "or keyword",
        "store.reconstruct(systems=None, pools=None, wait=0.0, **rule_fields): pools is "
        "keyword-only, not positional or keyword",
        "store.reconstruct(systems=None, pools=None, wait=0.0, **rule_fields): wait is "
        "keyword-only, not positional or keyword",
    ]
    with pytest.raises(TypeError, match="positional argument"):
        arpad.Store("nowhere").publish("elo", 100, True)
    assert mismatches("store.rate(system, *, pool='blitz')") == [
        "store.rate(system, *, pool='blitz'): pool defaults to 'standard', not 'blitz'"
    ]
    assert mismatches("arpad.rate(store)") == ["arpad.rate(store): no parameter store"]


def test_every_signature_on_the_page_is_the_code():
    spans = [s for s in doc_spans(DOC.read_text()) if documented(s)]
    assert (
        'store.publish(system, *, pool="standard", period=None, force=False, skip_earlier=False)'
        in spans
    )
    assert "store.site(out, *, system=None, pools=None)" in spans
    assert [m for span in spans for m in mismatches(span)] == []


def test_the_signatures_section_lists_every_call_whole():
    text = DOC.read_text()
    section = text[text.index("## Signatures") :]
    section = section[: section.index("\n## ")]
    listed = {documented(s)[0]: s for s in doc_spans(section) if documented(s)}
    calls = [
        f"arpad.{n}"
        for n in arpad.__all__
        if n not in ("__version__", "WhatIf")
        and inspect.isfunction(inspect.unwrap(getattr(arpad, n)))
    ]
    methods = [
        f"store.{n}" for n, v in vars(arpad.Store).items() if not n.startswith("_") and callable(v)
    ]
    assert sorted(listed) == sorted([*calls, "arpad.Store", *methods])
    for name, span in listed.items():
        args = documented(span)[1]
        assert doc_parameters(args) == real_parameters(real_signature(name)), span
