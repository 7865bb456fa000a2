"""Sparse state checkpoints: which periods of a run get one, and how a run that starts
between two of them replays the periods in between (docs/store.md "Checkpoints").

A run writes the state checkpoint of

* its first period (unless it resumes a killed run, right after that run's own
  checkpoint),
* every period whose position in the pool's periods (1-based) is a multiple of
  ``every`` (``arpad rate --checkpoint-every N``; default ``CHECKPOINT_EVERY``),
* its last period,

and removes any older checkpoint of the other periods it walks (before it writes
their ratings), so the checkpoints inside a run's range are all its own. A run
that starts at P from the nearest earlier checkpoint C < P - 1 first replays the
periods between C and P (state only: no ratings, no checkpoint written) with the
rules of the run that wrote C, which each checkpoint records in its ``meta.json``
(``replay``): the fixed rule set's fields, or null for the versions in force, and
the ``--set`` overrides. Since a run checkpoints its first period, the periods
between C and the next checkpoint were all computed by the run that wrote C, so the
replay gives the state after P - 1 that run had (tests/test_sparse_checkpoints.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

# Chosen by measurement (docs/store.md "Checkpoints"): at 500k players a FIDE checkpoint
# costs about as much as the period's ratings file, a replayed period about its compute.
CHECKPOINT_EVERY = 12


def every_or_default(every: int | None) -> int:
    """``--checkpoint-every``: None is the default; values below 1 are refused."""
    if every is None:
        return CHECKPOINT_EVERY
    if int(every) < 1:
        raise ValueError(f"--checkpoint-every must be at least 1, got {every}")
    return int(every)


def due(position: int, index: int, walked: int, every: int, first: bool = True) -> bool:
    """Whether the ``index``-th period of a run of ``walked`` periods, at 0-based
    ``position`` in the pool's periods, gets a checkpoint. ``first=False``: not the
    first period either (a resumed run continues right after its own checkpoint)."""
    return (first and index == 0) or index == walked - 1 or (position + 1) % every == 0


def replay_meta(rules: Any | None, overrides: dict[str, str] | None) -> dict:
    """What a checkpoint records so that a later run can replay the periods after it
    with the same rules: the fixed rule set's fields (None: the versions in force per
    period) and the ``--set`` overrides."""
    fields = None
    if rules is not None:
        fields = dataclasses.asdict(rules) if dataclasses.is_dataclass(rules) else vars(rules)
    return {"rules": fields, "overrides": dict(sorted((overrides or {}).items()))}


def replay_rules(sys_, pool: str, meta: dict, picker: Callable, fallback: Callable) -> Callable:
    """period -> rules for replaying the periods after a checkpoint: those recorded in
    its ``meta`` (``picker(sys_, pool, rules, overrides)`` builds them), or ``fallback``
    (this run's) for a checkpoint written before they were recorded: those were written
    after every period, so nothing lies between one and the next checkpoint."""
    spec = meta.get("replay")
    if not isinstance(spec, dict):
        return fallback
    fields = spec.get("rules")
    base = None if fields is None else dataclasses.replace(sys_.rules_type(), **fields)
    return picker(sys_, pool, base, spec.get("overrides") or {})
