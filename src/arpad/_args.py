"""Arguments of the notebook API checked where the user typed them (docs/api.md
"Arguments"): a wrong type or a typo is a one-line ``TypeError``/``ValueError`` naming
the argument, not a traceback from deep inside polars, pyarrow or Numba."""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

TABLE_KINDS = (
    "expected a polars or pandas DataFrame, a pyarrow Table or RecordBatchReader, a DuckDB "
    "relation, a NumPy record array, a dict of columns, a list of dicts or a file path"
)


def _kind(value: Any) -> str:
    return type(value).__name__


def rows_of_dicts(data: Any, what: str):
    """A list, tuple or iterator of dicts (one per row) as an Arrow table; None when
    ``data`` is not such a sequence (the caller then says what it takes)."""
    import pyarrow as pa

    if isinstance(data, str | bytes | Mapping | os.PathLike) or not isinstance(data, Iterable):
        return None
    if type(data).__module__.split(".")[0] in ("numpy", "pandas", "polars", "pyarrow"):
        return None
    rows = list(data)
    odd = next((r for r in rows if not isinstance(r, Mapping)), None)
    if odd is not None:
        raise TypeError(f"{what}: {TABLE_KINDS}, got {_kind(data)} of {_kind(odd)}")
    rows = [dict(r) for r in rows]
    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # a column mixing types ("1" and 0.5): every value as its text, as a CSV gives it
        # (a whole float 3.0 as "3", as in a float column: docs/api.md "Arguments")
        from arpad._tables import cell_text

        return pa.Table.from_pylist([{k: cell_text(v) for k, v in r.items()} for r in rows])


def whole(value: Any, what: str, noun: str) -> int | None:
    """A positive whole number (``top``, ``workers``) or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what}: a positive number of {noun}, got {_kind(value)} {value!r}")
    if value < 1:
        raise ValueError(f"{what}: a positive number of {noun}, got {value}")
    return int(value)


def period(value: Any, what: str) -> int | None:
    """A period as ``arpad`` commands read it: 202403, '2024-03', '202403' or a period
    number (pipeline/periods.py ``parse_period``)."""
    from arpad.pipeline.periods import parse_period

    if value is None:
        return None
    if type(value).__module__.split(".")[0] == "pandas" and _kind(value) == "Period":
        if str(value.freqstr).upper() not in ("M", "ME"):
            raise ValueError(f"{what}: a pandas Period of a month (freq 'M'), got {value}")
        value = value.strftime("%Y-%m")  # pd.Period("2024-03", "M") is period 202403
    if isinstance(value, bool) or not isinstance(value, numbers.Integral | str):
        hint = " (its month as '2024-03'; Store.list takes date=…)" if _is_date(value) else ""
        raise TypeError(
            f"{what}: a period (202403, '2024-03' or a number), got {_kind(value)}{hint}"
        )
    try:
        return parse_period(str(value))
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def date_text(value: Any) -> Any:
    """A ``datetime.date``/``datetime``, pandas ``Timestamp`` or monthly ``Period`` as the
    ``--rules`` date it names ('2014-07-01', '2014-07'); anything else as it is."""
    import datetime as dt

    if type(value).__module__.split(".")[0] == "pandas" and _kind(value) == "Period":
        return value.strftime("%Y-%m") if str(value.freqstr).upper() in ("M", "ME") else value
    if isinstance(value, dt.date) or _kind(value) == "Timestamp":
        return value.strftime("%Y-%m-%d")
    return value


def _is_date(value: Any) -> bool:
    import datetime as dt

    return isinstance(value, dt.date) or _kind(value) in ("datetime64", "Timestamp")


def system_name(value: Any, what: str = "system") -> str:
    """One system name: a str; else a ValueError, as an invalid name is (the Store calls
    said ``invalid system name None`` already; ``predict`` raised ``unhashable type:
    'list'`` or an AttributeError from inside the system registry)."""
    if isinstance(value, str):
        return value
    hint = ""
    if isinstance(value, list | tuple | set | frozenset):
        hint = " (several: one call per system, or Store.reconstruct(systems=[...]))"
    raise ValueError(f"{what}: invalid system name {value!r}: one name (a str such as 'elo'){hint}")


def sql_parameters(params: tuple) -> list:
    """``Store.sql``'s parameters: given one by one, or as one list, tuple, NumPy array or
    Series; NumPy scalars as the Python values they hold (DuckDB refused ``np.int64``)."""
    if len(params) == 1:
        one = params[0]
        if isinstance(one, list | tuple):
            params = tuple(one)
        elif _array_like(one):
            params = tuple(one)
    return [v.item() if type(v).__module__ == "numpy" and hasattr(v, "item") else v for v in params]


def _array_like(value: Any) -> bool:
    """A NumPy array or a pandas/polars Series (one dimension of values)."""
    root = type(value).__module__.split(".")[0]
    return root in ("numpy", "pandas", "polars") and _kind(value) in ("ndarray", "Series")


def rule_values(settings: dict, system) -> dict:
    """Rule fields given as keywords to ``rate``/``predict``/``card``: a value that is no
    number, bool or text for a plain number/bool/text field (``k=None``, ``k=[32]``) is
    passed as its text, so ``--set``'s parser says ``rule k: cannot read 'None' as
    float`` (it was a TypeError from inside the kernel or the range check)."""
    import types
    import typing

    hints = typing.get_type_hints(system.rules_type)
    out = {}
    for key, value in settings.items():
        hint = hints.get(key)
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            plain = [a for a in typing.get_args(hint) if a is not type(None)]
            hint = plain[0] if len(plain) == 1 else None
            if value is None:
                out[key] = value
                continue
        out[key] = _rule_value(value, hint)
    return out


def _rule_value(value: Any, hint: Any) -> Any:
    """A number as the field's own type (``k=32`` or ``np.int64(32)`` is ``32.0`` for a
    float field, as ``--set k=32`` parses it, so the rules hash is the command's); a
    value that is no number, bool or text for a plain field, as its text."""
    if hint not in (int, float, bool, str):
        return value
    if isinstance(value, str):
        return value
    if hint is bool and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    if hint is float and isinstance(value, numbers.Real) and _kind(value) not in ("bool", "bool_"):
        return float(value)
    if (
        hint is int
        and isinstance(value, numbers.Integral)
        and _kind(value) not in ("bool", "bool_")
    ):
        return int(value)
    return str(value)


def player(value: Any, what: str = "player") -> str:
    """One player id or name: a text, or an integer id (73 is player '73')."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"{what}: one player id or name (a str or an int), got {_kind(value)}")


def players(value: Any, what: str = "players") -> list[str]:
    """Several players; one text or int is one player (not its characters)."""
    if isinstance(value, str | numbers.Integral) and not isinstance(value, bool):
        return [player(value, what)]
    if not isinstance(value, Iterable):
        raise TypeError(f"{what}: player ids or names, got {_kind(value)}")
    out = [player(v, what) for v in value]
    if not out:
        raise ValueError(f"{what}: give at least one player id or name")
    return out


def names(value: Any, what: str) -> list[str] | None:
    """None (every one), one name, or several names (systems, pools): a list of str."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Iterable) or isinstance(value, bytes | dict):
        raise TypeError(f"{what}: a name or a list of names, got {_kind(value)}")
    out = list(value)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what}: names are text, got {_kind(v)}")
    if not out:
        raise ValueError(f"{what}: give at least one name (or None for every one)")
    return out


def _expanded(path):
    """``~/games.csv`` as the home folder's file, as ``arpad.Store("~/…")`` reads it (a
    shell expands it for the commands)."""
    return os.path.expanduser(path) if isinstance(path, str) else Path(path).expanduser()


def paths(value: Any, what: str) -> list:
    """One path or an iterable of paths (str or os.PathLike)."""
    if value is None:
        return []
    if isinstance(value, str | os.PathLike):
        return [_expanded(value)]
    hint = ""
    if _array_like(value):  # a Series or array of paths
        value = list(value)
    if type(value).__module__.split(".")[0] in ("pandas", "polars", "pyarrow", "numpy"):
        hint = " (in-memory games: arpad.rate, or write them to a file first)"
        if what == "players":  # Store.ingest(files, players=frame): about the players
            hint = (
                " (in-memory players: arpad.rate(games, players=frame), or write them to a "
                "file first (pandas to_csv, polars write_csv) and pass its path)"
            )
    elif isinstance(value, Iterable) and not isinstance(value, Mapping | bytes):
        items = list(value)
        odd = next((v for v in items if not isinstance(v, str | os.PathLike)), None)
        if odd is None:
            return [_expanded(v) for v in items]
        value = odd
    raise TypeError(f"{what}: a file path or a list of paths, got {_kind(value)}{hint}")


def close(key: str, parameters: tuple[str, ...]) -> str:
    """' (did you mean NAME=?)' for a keyword close to one of ``parameters``, else ''."""
    near = difflib.get_close_matches(key, parameters, n=1, cutoff=0.75)
    return f" (did you mean {near[0]}=?)" if near else ""


def check_keywords(function: str, settings: dict, system, parameters: tuple[str, ...]) -> None:
    """A keyword that is no rule field of ``system`` but close to one of ``function``'s own
    parameters is a typo of it (``sytem=``): TypeError naming both, as Python would."""
    fields = {f.name for f in dataclasses.fields(system.rules_type)}
    for key in settings:
        if key in fields:
            continue
        near = difflib.get_close_matches(key, parameters, n=1, cutoff=0.75)
        if near:
            raise TypeError(
                f"{function}() got an unexpected keyword argument {key!r} "
                f"(did you mean {near[0]}=?)"
            )


def check_run_keywords(function: str, settings: dict, systems, parameters: tuple[str, ...]):
    """``check_keywords`` for a call over several systems (``Store.reconstruct``): a
    keyword that is a rule field of none of ``systems`` (None: every system) but close
    to one of ``function``'s parameters (``system=``, ``pool=``, ``worker=``) is a
    TypeError naming the parameter; before, it was an unknown rule field of the first
    system (``'system' for EcfRules``)."""
    from arpad.pipeline.systems import get_system, system_names

    fields = set()
    for name in systems or system_names():
        try:
            fields |= {f.name for f in dataclasses.fields(get_system(name).rules_type)}
        except ValueError:
            return  # an unknown system: the job names it
    for key in settings:
        if key not in fields and (near := close(key, parameters)):
            raise TypeError(f"{function}() got an unexpected keyword argument {key!r}{near}")


def rules_object(rules: Any, system) -> Any:
    """``rules`` as ``rate``/``predict`` take it: None, a ``--rules`` spec (str or path), or
    the system's own rules object (a date, Timestamp or monthly Period is the date it
    names); anything else is a TypeError."""
    rules = date_text(rules)
    if (
        rules is None
        or isinstance(rules, str | os.PathLike)
        or isinstance(rules, system.rules_type)
    ):
        return rules
    hint = (
        " (give rule fields as keyword arguments, e.g. k=32)" if isinstance(rules, Mapping) else ""
    )
    raise TypeError(
        f"rules: a --rules spec (a date or a JSON file) or a {system.rules_type.__name__} "
        f"for {system.name}, got {_kind(rules)}{hint}"
    )
