"""The rating-system interface (pipeline/systems/base.py): defaults of the hooks, dated
rule versions, and the declared valid range of every rule field (docs/rules.md)."""

from __future__ import annotations

import dataclasses
import math
import typing

import numpy as np
import pytest

from arpad.pipeline.systems import DEFAULT_SYSTEM, get_system, system_names
from arpad.pipeline.systems.base import (
    RatingSystem,
    State,
    apply_overrides,
    check_rules,
    parse_rules_date,
    pick_version,
    rule_range,
    version_for_period,
)

SYSTEMS = system_names()


def _numeric(hint) -> bool:
    args = typing.get_args(hint) or (hint,)
    return any(a in (int, float) for a in args) and bool not in args


# -- the base class ------------------------------------------------------------------------
def test_default_system_is_registered():
    assert DEFAULT_SYSTEM in SYSTEMS


def test_base_defaults():
    class Plain(RatingSystem):
        name = "plain"

        @dataclasses.dataclass(frozen=True)
        class rules_type:
            k: float = 10.0

    system = Plain()
    assert not system.shardable and not system.lower_is_better and not system.retroactive
    assert system.performance_method == "true-logistic" and system.tuning_grid == {}
    assert system.rule_versions() == ()
    assert system.rules_for(202401, "standard") == Plain.rules_type()
    assert system.rules_name(Plain.rules_type()) == "rules_type"
    assert system.history_reports(State(players={}), [1], Plain.rules_type()) == {}
    with pytest.raises(ValueError, match="only meaningful for systems with dated versions; plain"):
        system.rules_at("2020-01")
    rating, rd = system.current_rating(State(players={"rating": np.array([1.0, np.nan])}))
    assert rd is None and rating[0] == 1.0 and np.isnan(rating[1])


def test_register_refuses_classes_that_do_not_subclass_the_base():
    from arpad.pipeline.systems import register

    class Loose:
        name = "loose"

    with pytest.raises(TypeError, match="must subclass RatingSystem"):
        register(Loose())


@pytest.mark.parametrize("name", SYSTEMS)
def test_needs_initial_ratings_matches_the_rules(name):
    """Systems whose rules have no initial_rating get seeded players in the backtest."""
    system = get_system(name)
    fields = {f.name for f in dataclasses.fields(system.rules_type)}
    assert system.needs_initial_ratings == ("initial_rating" not in fields)


@pytest.mark.parametrize("name", SYSTEMS)
def test_rules_at_has_one_signature(name):
    system = get_system(name)
    if system.rule_versions():
        assert system.rules_at("2020-01", pool="standard") in system.rule_versions()
    else:
        with pytest.raises(ValueError, match="dated versions"):
            system.rules_at("2020-01", pool="standard")


# -- dated versions --------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _V:
    name: str
    effective: str


VERSIONS = (_V("a", "2000-01-01"), _V("b", "2010-07-01"), _V("c", "2020-01-01"))


def test_pick_version_takes_the_last_in_force():
    assert pick_version(VERSIONS, "1990-05-01").name == "a"  # before the first: the oldest
    assert pick_version(VERSIONS, "2010-06-30").name == "a"
    assert pick_version(VERSIONS, "2010-07-01").name == "b"
    assert pick_version(VERSIONS, "2030-01-01").name == "c"
    assert version_for_period(VERSIONS, 201007).name == "b"
    assert version_for_period(VERSIONS, 95).name == "c"  # abstract period: the latest


def test_parse_rules_date_spellings():
    assert parse_rules_date("2014-07") == "2014-07-01"
    assert parse_rules_date("201407") == "2014-07-01"
    assert parse_rules_date(201407) == "2014-07-01"
    assert parse_rules_date("2014-07-15") == "2014-07-15"
    assert parse_rules_date("2004") == "2004-12-01"
    for bad in ("last tuesday", "95", "2014-13"):
        with pytest.raises(ValueError, match="--rules takes a date"):
            parse_rules_date(bad)


@pytest.mark.parametrize("name", ["fide", "ecf", "uscf"])
def test_dated_systems_use_the_helper(name):
    system = get_system(name)
    versions = system.rule_versions()
    assert len(versions) >= 2
    for v in versions:
        assert system.rules_at(v.effective) == v
        assert system.rules_for(int(v.effective[:4] + v.effective[5:7]), "standard") == v


# -- valid ranges of rule fields -------------------------------------------------------------
@pytest.mark.parametrize("name", SYSTEMS)
def test_every_numeric_rule_field_declares_a_range(name):
    rules_type = get_system(name).rules_type
    hints = typing.get_type_hints(rules_type)
    missing = [
        f.name
        for f in dataclasses.fields(rules_type)
        if _numeric(hints[f.name]) and rule_range(rules_type, f.name) is None
    ]
    assert not missing, f"{rules_type.__name__}: no range for {missing}"
    for key, (lo, hi) in rules_type.RANGES.items():
        assert key in hints and lo <= hi, (name, key)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_shipped_rule_version_is_in_range(name):
    system = get_system(name)
    for rules in (system.rules_type(), *system.rule_versions(), *system.rule_versions("rapid")):
        check_rules(rules)


@pytest.mark.parametrize(
    ("name", "key", "text"),
    [
        ("elo", "k", "nan"),
        ("elo", "k", "inf"),
        ("elo", "k", "-5"),
        ("fide", "k_mid", "-5"),
        ("fide", "compression_factor", "1.5"),
        ("fide", "initial_per_half_point", "nan"),
        ("glicko", "c", "-inf"),
        ("glicko2", "tau", "NaN"),
        ("glicko2", "initial_volatility", "0"),
        ("uscf", "k_numerator", "-800"),
        ("ecf", "damping", "0"),
        ("whr", "w2", "-1"),
        ("ingo", "dsb_old_weight", "2"),
        ("harkness", "points_per_percent", "inf"),
        ("elo-linear", "c", "0"),
    ],
)
def test_bad_rule_values_are_refused_naming_field_value_and_range(name, key, text):
    system = get_system(name)
    rules = system.rules_type()
    with pytest.raises(ValueError) as err:
        apply_overrides(rules, {key: text})
    message = str(err.value)
    assert "\n" not in message and key in message and "valid range" in message
    lo, hi = rule_range(system.rules_type, key)
    assert f"{lo:g}..{hi:g}" in message and f"rule {key}=" in message


@pytest.mark.parametrize(
    ("name", "key", "text", "value"),
    [
        ("elo", "k", "32", 32.0),
        ("fide", "k_mid", "15", 15),
        ("fide", "cap_exempt_from", "none", None),
        ("glicko2", "tau", "0.3", 0.3),
        ("uscf", "special_max", "2700", 2700.0),
        ("whr", "white_advantage", "none", None),
        ("ingo", "dsb_old_weight", "0.5", 0.5),
    ],
)
def test_valid_rule_values_are_accepted(name, key, text, value):
    rules = apply_overrides(get_system(name).rules_type(), {key: text})
    got = getattr(rules, key)
    assert got == value or (value is not None and math.isclose(got, value))


def test_rate_refuses_bad_overrides_before_any_work(tmp_path):
    """``--set k=nan`` fails before the store is even opened (no store at this path)."""
    from arpad.pipeline.engine import rate
    from arpad.pipeline.store import Store

    store = Store(tmp_path / "nothing-here")
    with pytest.raises(ValueError, match=r"rule k=nan: not a finite number"):
        rate(store, "elo", overrides={"k": "nan"})
    assert not (tmp_path / "nothing-here").exists()


def test_rules_file_values_are_range_checked(tmp_path):
    from arpad.pipeline.engine import resolve_rules
    from arpad.pipeline.errors import InputError

    path = tmp_path / "rules.json"
    path.write_text('{"k": -5}')
    with pytest.raises(InputError, match=r"rules.json: rule k=-5.0: out of range"):
        resolve_rules("elo", str(path))


def test_lower_is_better_constant_names_exactly_the_builtin_systems_declaring_it():
    """``systems.LOWER_IS_BETTER`` lets the catalog rank without importing every system
    module; it must name exactly the built-in systems whose class declares it."""
    import importlib
    import pkgutil

    import arpad.pipeline.systems as package
    from arpad.pipeline.systems import LOWER_IS_BETTER, get_system

    builtin = [m.name.replace("_", "-") for m in pkgutil.iter_modules(package.__path__)]
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    declared = {n for n in builtin if n != "base" and get_system(n).lower_is_better}
    assert declared == set(LOWER_IS_BETTER) == {"ingo"}


def test_the_catalog_views_are_built_without_importing_numba():
    """Every reading command builds the catalog's view SQL; it needs no rating system
    module (each imports Numba, 0.2-0.4 s)."""
    import subprocess
    import sys

    code = (
        "import sys; from arpad.pipeline import catalog; sql = catalog.derived_views(); "
        "assert \"IN ('ingo')\" in sql['rating_list'], sql['rating_list']; "
        "assert 'numba' not in sys.modules, 'numba imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
