"""Rating-scale conversions: legacy ECF grade ↔ FIDE Elo by era, Ingo ↔ Elo.

ECF ↔ FIDE (docs/legacy-systems.md), by the date the conversion is meant for:

| era | from | grade → FIDE | source |
|---|---|---|---|
| ``pre-2009`` | (any date before 2009-07-01) | Elo = 8 × grade + 600 | Wikipedia, Chess Scotland 2009 (S2) |
| ``2009-2024`` | 2009-07-01 | FIDE = 7.5 × grade + 700 | ECF arbiter slides, ECF ratings page (S2) |
| ``2024`` | 2024-03-01 | ECF rating R = 7.5 × grade + 700 (the 2020 changeover, P); FIDE = 0.6 × R + 700 below R 1750, FIDE = R from 1750 (ECF "Recommended conversion", P) | |

The day the 2009 regrading took effect is not in the sources (UNVERIFIED):
arpad takes 1 July 2009, the first list after the regrading; each era is a row
of ``ECF_ERAS`` and can be chosen by name. In the 2024 era a 4-digit ECF
rating can be converted directly (``ecf_rating_to_fide``).

Ingo (docs/legacy-systems.md, S2): Elo = 2840 − 8 × Ingo; Ingo = 355 − Elo/8.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EcfEra:
    name: str
    effective: str  # ISO date from which the era's conversion applies


ECF_ERAS: tuple[EcfEra, ...] = (
    EcfEra("pre-2009", "1900-01-01"),
    EcfEra("2009-2024", "2009-07-01"),
    EcfEra("2024", "2024-03-01"),
)


def era_for(date: dt.date | str | None = None, era: str | None = None) -> str:
    """The era in force on ``date`` (today when None), or the era named ``era``."""
    if era is not None:
        names = [e.name for e in ECF_ERAS]
        if era not in names:
            raise ValueError(f"unknown ECF era {era!r} (known: {', '.join(names)})")
        return era
    if date is None:
        date = dt.date.today()
    if isinstance(date, str):
        date = dt.date.fromisoformat(date if len(date) > 7 else date + "-01")
    chosen = ECF_ERAS[0].name
    for e in ECF_ERAS:
        if e.effective <= date.isoformat():
            chosen = e.name
    return chosen


def ecf_rating_to_fide(rating):
    """2024 recommended conversion: FIDE = 0.6 × ECF + 700 below 1750, parity from 1750."""
    r = np.asarray(rating, dtype=np.float64)
    return np.where(r < 1750.0, 0.6 * r + 700.0, r)


def fide_to_ecf_rating(fide):
    """Inverse of ``ecf_rating_to_fide`` (continuous at 1750)."""
    f = np.asarray(fide, dtype=np.float64)
    return np.where(f < 1750.0, (f - 700.0) / 0.6, f)


def grade_to_ecf_rating(grade):
    """The 2020 changeover: 4-digit ECF rating = 7.5 × last grade + 700 (140 → 1750)."""
    return 7.5 * np.asarray(grade, dtype=np.float64) + 700.0


def ecf_to_fide(grade, date=None, era: str | None = None):
    """A legacy ECF grade as FIDE Elo, in the era of ``date`` (or the named era)."""
    g = np.asarray(grade, dtype=np.float64)
    name = era_for(date, era)
    if name == "pre-2009":
        return 8.0 * g + 600.0
    if name == "2009-2024":
        return 7.5 * g + 700.0
    return ecf_rating_to_fide(grade_to_ecf_rating(g))


def fide_to_ecf(fide, date=None, era: str | None = None):
    """FIDE Elo as a legacy ECF grade, in the era of ``date`` (or the named era)."""
    f = np.asarray(fide, dtype=np.float64)
    name = era_for(date, era)
    if name == "pre-2009":
        return (f - 600.0) / 8.0
    if name == "2009-2024":
        return (f - 700.0) / 7.5
    return (fide_to_ecf_rating(f) - 700.0) / 7.5


def ingo_to_elo(ingo):
    """Elo = 2840 − 8 × Ingo."""
    return 2840.0 - 8.0 * np.asarray(ingo, dtype=np.float64)


def elo_to_ingo(elo):
    """Ingo = 355 − Elo / 8 (NaN stays NaN)."""
    return 355.0 - np.asarray(elo, dtype=np.float64) / 8.0


SCALES = ("ecf", "ecf-rating", "fide", "elo", "ingo")
ELO_RANGE = (0.0, 4000.0)  # a rating on the Elo/FIDE scale (``arpad class`` takes these)


def uses_era(source: str, target: str) -> bool:
    """Whether converting ``source`` to ``target`` depends on the ECF grade era (the
    ``date``/``era`` of ``convert``)."""
    return "ecf" in (source, target)


def convert(value, source: str, target: str, date=None, era: str | None = None):
    """Convert between scales; ``fide`` and ``elo`` are the same scale here."""
    for s in (source, target):
        if s not in SCALES:
            raise ValueError(f"unknown scale {s!r} (known: {', '.join(SCALES)})")
    to_elo = {
        "ecf": lambda v: ecf_to_fide(v, date, era),
        "ecf-rating": ecf_rating_to_fide,
        "fide": lambda v: np.asarray(v, dtype=np.float64),
        "elo": lambda v: np.asarray(v, dtype=np.float64),
        "ingo": ingo_to_elo,
    }
    from_elo = {
        "ecf": lambda v: fide_to_ecf(v, date, era),
        "ecf-rating": fide_to_ecf_rating,
        "fide": lambda v: v,
        "elo": lambda v: v,
        "ingo": elo_to_ingo,
    }
    if source == target:
        return np.asarray(value, dtype=np.float64)
    return from_elo[target](to_elo[source](value))


def convert_values(values, source: str, target: str, date=None, era: str | None = None):
    """``convert`` of ratings given one by one (``arpad convert``): a value that is not a
    finite number (nan, inf; ``1e400`` parses as inf), or whose conversion is not one
    (``1e308`` ECF is 8e308 FIDE), is refused with ValueError naming it. ``convert``
    itself keeps NaN as NaN (a missing rating in an array). They were printed
    ``nan ecf = nan fide``, with NumPy's overflow warning for 1e308. So is a value whose
    Elo/FIDE equivalent is outside ``ELO_RANGE`` (0..4000, the ratings ``arpad class``
    takes), naming the source scale's range (999999 ECF printed 7500692.50 FIDE)."""
    given = np.asarray(values, dtype=np.float64)
    for value in np.atleast_1d(given):
        if not np.isfinite(value):
            raise ValueError(
                f"{value:g} {source}: not a finite number (nan, inf and values beyond "
                "±1.8e308 are no rating)"
            )
    with np.errstate(over="ignore", invalid="ignore"):  # named below, not warned
        result = convert(given, source, target, date, era)
    for value, converted in zip(np.atleast_1d(given), np.atleast_1d(result)):
        if not np.isfinite(converted):
            raise ValueError(
                f"{value:g} {source}: the {target} value is beyond ±1.8e308 (overflows): no rating"
            )
    # A rating is 0..4000 on the Elo/FIDE scale (`arpad class`, `category --average`); a
    # value of another scale is one when its Elo equivalent is (999999 ECF gave 7500692.50).
    with np.errstate(over="ignore", invalid="ignore"):
        elo = convert(given, source, "elo", date, era)
    bounds = sorted(np.round(convert(np.array(ELO_RANGE), "elo", source, date, era), 2))
    for value, equivalent in zip(np.atleast_1d(given), np.atleast_1d(elo)):
        if not ELO_RANGE[0] <= equivalent <= ELO_RANGE[1]:
            in_era = f" in the {era_for(date, era)} era" if uses_era(source, source) else ""
            elo_range = f"{ELO_RANGE[0]:g}..{ELO_RANGE[1]:g}"
            shown = f"{bounds[0]:g}..{bounds[1]:g}"
            on_elo = "" if shown == elo_range else f": Elo/FIDE {elo_range}"
            raise ValueError(
                f"{value:g} {source}: not a rating ({source} values are {shown}{in_era}"
                f"{on_elo}, as arpad class takes)"
            )
    return result
