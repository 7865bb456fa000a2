"""A new user's attack, round 11 (finding 2): ``arpad card`` said ``stored K = 25 DIFFERS
from the recomputed K = 20`` and exited 2 after ``arpad rate --set k_mid=25`` (it took
only the version before `` + `` of the stored rules name) and after ``arpad rate --rules
FILE.json`` (the run stored the file's ``"name"``, the official ``FIDE 2024-03``: neither
the card nor ``arpad audit`` could tell; only ``rules_hash`` differed). The card now
recomputes with exactly the rules the stored run used (checked by ``rules_hash``), a
rules file's run is named after the file and the fields that differ from the version it
names, and rules the store cannot give back are said to be so in one line, not DIFFERS.
docs/rules.md "Changing a rule for one run", docs/cli.md "card".

Worked by hand: A (2100, 50 rated games) beats B (2000) in January 2025 (FIDE 2024-03):
D = +100, PD = 0.64 (table 8.1.2, 99..106), ΔR = +0.36; K 25 → +9.00 → +9 (2109); the
version's K 20 would give +7.20 → +7.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arpad.pipeline import engine
from arpad.pipeline.cli import main
from arpad.pipeline.engine import resolve_rules, rules_from_name, rules_hash
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.fide import FIDE_2024_03
from tests.conftest import write_csv

FED = {"name": "FIDE 2024-03", "effective": "2024-03-01", "cap_exempt_from": None, "k_mid": 25}


@pytest.fixture
def store(tmp_path, capsys):
    players = write_csv(
        tmp_path / "p.csv",
        "player_id,name,rating,rated_games",
        ["A,Anna,2100,50", "B,Boris,2000,50"],
    )
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", ["2025-01-10,A,B,1-0"])
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--players", str(players), "--store", s]) == 0
    capsys.readouterr()
    return s


def card(capsys, store: str, *extra: str) -> tuple[int, str]:
    code = main(["card", "A", "--period", "202501", "--store", store, *extra])
    return code, capsys.readouterr().out


def test_the_card_of_a_set_run_uses_its_set(store, capsys):
    assert main(["rate", "--system", "fide", "--set", "k_mid=25", "--store", store]) == 0
    assert capsys.readouterr().out.endswith("rules: FIDE 2024-03 + k_mid=25\n")
    code, out = card(capsys, store)
    assert "rules FIDE 2024-03 + k_mid=25\n" in out
    assert "ΣΔR = +0.36   K = 25   K × ΣΔR = +9.00   rounded half away from zero = +9" in out
    assert "K = 25: base K 25 (50 rated games, peak rating 2100 < 2400)" in out
    assert "stored change = +9  (matches)\nrating after: 2109\n" in out
    assert "DIFFERS" not in out and code == 0


def test_a_rules_file_run_is_named_after_the_file_and_its_card_matches(store, tmp_path, capsys):
    path = tmp_path / "my_fed_rules.json"
    path.write_text(json.dumps(FED))
    assert main(["rate", "--system", "fide", "--rules", str(path), "--store", store]) == 0
    name = "FIDE 2024-03 (my_fed_rules.json) + k_mid=25"
    assert capsys.readouterr().out.endswith(f"rules: {name}\n")
    digest = rules_hash(resolve_rules("fide", str(path)))
    # audit: the table cuts text at 40 characters (…k_mid…); the whole name follows it
    assert main(["audit", "A", "--store", store]) == 0
    assert f"rules in full: {name} (rules_hash {digest}; period 202501)\n" in (
        capsys.readouterr().out
    )
    code, out = card(capsys, store)
    assert f"rules {name}\n" in out
    assert "K = 25: base K 25 (50 rated games, peak rating 2100 < 2400)" in out
    assert "stored change = +9  (matches)" in out
    assert "DIFFERS" not in out and code == 0


def test_the_name_of_a_rules_file_gives_its_rules_back(tmp_path):
    fide = get_system("fide")
    path = tmp_path / "fed.json"
    path.write_text(json.dumps(FED))
    rules = resolve_rules("fide", str(path))
    assert rules.name == "FIDE 2024-03 (fed.json) + k_mid=25"
    assert rules_hash(rules_from_name(fide, rules.name)) == rules_hash(rules)
    # no "name": the system's default rules (FIDE 2025-10); a " + " in the file's name
    # would read as a note, so it is written without the spaces
    odd = tmp_path / "my + k.json"
    odd.write_text('{"k_mid": 25, "cap_exempt_from": 2700}')
    rules = resolve_rules("fide", str(odd))
    assert rules.name == "FIDE 2025-10 (my+k.json) + cap_exempt_from=2700 + k_mid=25"
    assert rules_hash(rules_from_name(fide, rules.name)) == rules_hash(rules)
    # a name that is no version's is kept, its fields noted against the defaults
    path.write_text('{"name": "Club", "k_mid": 25}')
    rules = resolve_rules("fide", str(path))
    assert rules.name == "Club (fed.json) + k_mid=25"
    assert rules_hash(rules_from_name(fide, rules.name)) == rules_hash(rules)
    # --set on top of a file: the file stays named, the notes merge
    rules = engine.apply_overrides(resolve_rules("fide", str(odd)), {"k_mid": "30"})
    assert rules.name == "FIDE 2025-10 (my+k.json) + cap_exempt_from=2700 + k_mid=30"
    assert rules_hash(rules_from_name(fide, rules.name)) == rules_hash(rules)
    # the plain version, and a name whose note cannot be read
    assert rules_from_name(fide, "FIDE 2024-03") == FIDE_2024_03
    assert rules_from_name(fide, "FIDE 2024-03 + k_mid=many") is None


def test_a_run_stored_before_the_file_was_named(store, tmp_path, capsys, monkeypatch):
    """As the attack's store: the rows say ``FIDE 2024-03`` though K was 25. The run's
    checkpoint records its rules, and the card takes them; without it, one line."""
    path = tmp_path / "fed.json"
    path.write_text(json.dumps(FED))
    with monkeypatch.context() as m:  # arpad before round 11 kept the file's "name"
        m.setattr(engine, "file_rules_named", lambda system, rules, path, pool: rules)
        assert main(["rate", "--system", "fide", "--rules", str(path), "--store", store]) == 0
    assert capsys.readouterr().out.endswith("rules: FIDE 2024-03\n")
    code, out = card(capsys, store)
    assert "K = 25: base K 25" in out and "stored change = +9  (matches)" in out and code == 0
    shutil.rmtree(Path(store) / "state")  # no checkpoint of that run left
    digest = rules_hash(engine.rules_from_file(get_system("fide").rules_type(), path))
    note = (
        f"not checked: the rules of the stored run (FIDE 2024-03, rules_hash {digest}) cannot "
        "be rebuilt from the store (a rules file rated before arpad named its changed fields, "
        "no checkpoint of that run left); the card used FIDE 2024-03: give the run's --rules "
        "FILE or --set to check"
    )
    code, out = card(capsys, store)
    assert "K = 20: base K 20 (50 rated games, peak rating 2100 < 2400)" in out
    assert out.endswith(f"stored change = +9\nrating after: 2109\n{note}\n")
    assert "DIFFERS" not in out and code == 2  # not confirmed
    code, out = card(capsys, store, "--format", "json")
    got = json.loads(out)
    assert (got["rules_note"], got["matches"], got["k_factor"]["k"], code) == (note, False, 20, 2)
    # the run's --set (or --rules) given: the user's rules, checked as they are
    code, out = card(capsys, store, "--set", "k_mid=25")
    assert "stored change = +9  (matches)" in out and "not checked" not in out and code == 0
