"""``--rules FILE.json`` (pipeline/engine.py ``rules_from_file``): a rules file is read
as ``--set`` reads its values, and every bad file is refused with one line naming the
file and the field, exit 2, before any work (it crashed with a TypeError traceback on
an unknown field, a list, or a null; found by the historian's attack of 2026-12-03)."""

from __future__ import annotations

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.engine import resolve_rules
from arpad.pipeline.errors import InputError


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"kk": 3}', r"unknown rule field 'kk' for EloRules \(known: initial_rating, k,"),
        ("[1, 2]", r"one JSON object of rule fields .* not a list"),
        ('"k"', r"one JSON object of rule fields .* not a str"),
        ('{"k": null}', r"rule k: null is not allowed \(a float is needed\)"),
        ('{"k": "x"}', r"rule k: cannot read 'x' as float"),
        ('{"k": true}', r"rule k: cannot read true as float"),
        ('{"k": [20]}', r"rule k: cannot read \[20\] as float"),
        ('{"k": {"a": 1}}', r"rule k: cannot read \{\"a\": 1\} as float"),
        ('{"k": 1e400}', r"rule k=inf: not a finite number"),
        ('{"k": -5}', r"rule k=-5.0: out of range \(EloRules.k, valid range 0..1000\)"),
        ('{"k" 3}', r"rules.json:1: not valid JSON: Expecting ':' delimiter"),
        ('{\n"k": 3,\n}', r"rules.json:3: not valid JSON"),
        ("", r"rules.json:1: not valid JSON"),
    ],
)
def test_a_bad_rules_file_is_refused_naming_file_and_field(tmp_path, text, message):
    path = tmp_path / "rules.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        resolve_rules("elo", str(path))
    assert caught.value.path == str(path)
    assert "\n" not in str(caught.value)


def test_a_rules_file_reads_values_as_set_does(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text('\ufeff{"k": 24, "initial_rating": "1600", "white_advantage": 0}')
    rules = resolve_rules("elo", str(path))
    assert (rules.k, rules.initial_rating, rules.white_advantage) == (24.0, 1600.0, 0.0)
    assert isinstance(rules.k, float)
    # an int field takes a whole JSON number, not a fraction; an optional field takes null
    fide = tmp_path / "fide.json"
    fide.write_text('{"k_new": 40.0, "cap_exempt_from": null}')
    got = resolve_rules("fide", str(fide))
    assert got.k_new == 40 and got.cap_exempt_from is None
    fide.write_text('{"k_new": 40.5}')
    with pytest.raises(InputError, match=r"rule k_new: cannot read 40.5 as"):
        resolve_rules("fide", str(fide))


@pytest.mark.parametrize("command", ["rate", "whatif", "card"])
def test_the_cli_exits_2_with_one_line(tmp_path, capsys, command):
    games = tmp_path / "games.csv"
    games.write_text("date,white_id,black_id,result\n2024-03-02,A,B,1-0\n")
    store = tmp_path / "store"
    assert main(["ingest", str(games), "--store", str(store), "--no-flow"]) == 0
    path = tmp_path / "bad.json"
    path.write_text('{"kk": 3}')
    args = {
        "rate": ["rate", "--system", "elo", "--rules", str(path), "--no-flow"],
        "whatif": ["whatif", "--rules", str(path), "--vs", "2014-07"],
        "card": ["card", "A", "--period", "202403", "--rules", str(path)],
    }[command]
    capsys.readouterr()
    assert main([*args, "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("arpad: error: ") and "bad.json: unknown rule field 'kk'" in err[-1]
    assert not any("Traceback" in line for line in err)
