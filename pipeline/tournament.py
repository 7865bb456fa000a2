"""Tournament tools: FIDE categories, rating class names, title-norm checks (RULES.md §7).

* Category (§7.1, S2): category c covers the average ratings
  2251 + 25(c − 1) … 2275 + 25(c − 1), i.e. c = ⌈(avg − 2250)/25⌉ for avg ≥ 2251;
  women's events use the same bands 200 points lower. How the average is
  rounded before banding is UNVERIFIED: arpad rounds it to an integer, .5 up,
  as the Title Regulations do for Ra (1.4.7). Below category 1 → 0 (none).
* Rating classes: the FIDE (Elo) table and the USCF class table as printed in
  the Wikipedia "Chess rating systems" article (Just & Burg 2003:259–73 for USCF).
* Title norms (Title Regulations from 1 Jan 2024, §7.2): minimum 9 games,
  score ≥ 35 %, unrated opponents count as 1400, at most one opponent (the
  lowest-rated) is raised to the rating floor, Ra = average rounded (.5 up),
  p a whole percentage (.5 up), Rp = Ra + dp(p) (table 1.4.9 = 8.1.1), and the
  norm's minimum Ra and Rp. Composition rules (titled opponents, federations)
  are not checked — they need data the games do not carry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from kernels.rounding import round_half_up
from pipeline.rules import dp_by_percent

CATEGORY_BASE = 2250
CATEGORY_WIDTH = 25
WOMEN_OFFSET = 200


def fide_category(average: float, women: bool = False) -> int:
    """FIDE tournament category of an event with this average rating (0 = below category 1)."""
    if average is None or (isinstance(average, float) and math.isnan(average)):
        return 0
    avg = round_half_up(float(average))
    base = CATEGORY_BASE - (WOMEN_OFFSET if women else 0)
    if avg <= base:
        return 0
    return int(-(-(avg - base) // CATEGORY_WIDTH))  # ceil for integers


def category_band(category: int, women: bool = False) -> tuple[int, int]:
    """The (lowest, highest) average rating of a category."""
    if category < 1:
        raise ValueError("categories start at 1")
    base = CATEGORY_BASE - (WOMEN_OFFSET if women else 0)
    return base + 1 + CATEGORY_WIDTH * (category - 1), base + CATEGORY_WIDTH * category


# (lowest rating of the class, name), highest first.
RATING_CLASSES: dict[str, tuple[tuple[int, str], ...]] = {
    "fide": (
        (2600, "World Championship contenders"),
        (2400, "most Grandmasters (GM) and International Masters (IM)"),
        (2300, "FIDE Masters (FM)"),
        (2200, "FIDE Candidate Masters (CM), most national masters"),
        (2000, "candidate masters, experts"),
        (1800, "Class A, category 1"),
        (1600, "Class B, category 2"),
        (1400, "Class C, category 3"),
        (1200, "Class D, category 4"),
        (-(10**9), "novices"),
    ),
    "uscf": (
        (2400, "Senior Master"),
        (2200, "National Master"),
        (2000, "Expert"),
        (1800, "Class A"),
        (1600, "Class B"),
        (1400, "Class C"),
        (1200, "Class D"),
        (1000, "Class E"),
        (800, "Class F"),
        (600, "Class G"),
        (400, "Class H"),
        (200, "Class I"),
        (100, "Class J"),
        (-(10**9), "below Class J"),
    ),
}


def rating_class(rating: float, table: str = "fide") -> str:
    """The class name of a rating in the FIDE (Elo) or USCF table."""
    if table not in RATING_CLASSES:
        raise ValueError(f"unknown class table {table!r} (known: {', '.join(RATING_CLASSES)})")
    for low, name in RATING_CLASSES[table]:
        if rating >= low:
            return name
    raise AssertionError("unreachable: the last class has no lower bound")


@dataclass(frozen=True)
class NormRequirement:
    title: str
    min_performance: int  # Rp (≥ min − 0.5 before rounding; Rp is an integer here)
    min_average: int  # Ra
    rating_floor: int  # 1.4.6b: at most one opponent raised to this


NORMS: dict[str, NormRequirement] = {
    "GM": NormRequirement("GM", 2600, 2380, 2200),
    "IM": NormRequirement("IM", 2450, 2230, 2050),
    "WGM": NormRequirement("WGM", 2400, 2180, 2000),
    "WIM": NormRequirement("WIM", 2250, 2030, 1850),
}


@dataclass(frozen=True)
class NormRules:
    min_games: int = 9
    min_percent: float = 35.0
    unrated_as: float = 1400.0
    raise_to_floor: int = 1  # how many (lowest-rated) opponents are raised to the floor


@dataclass
class NormCheck:
    title: str
    games: int
    score: float
    percent: int  # rounded, .5 up
    opponents_used: list[float]  # after the unrated and floor adjustments
    raised: list[int]  # indices of opponents raised to the floor
    average: int  # Ra
    dp: int
    performance: int  # Rp = Ra + dp
    conditions: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def achieved(self) -> bool:
        return all(ok for _, ok, _ in self.conditions)

    @property
    def failed(self) -> list[str]:
        return [name for name, ok, _ in self.conditions if not ok]


def norm_check(
    opponent_ratings, score: float, title: str, rules: NormRules = NormRules()
) -> NormCheck:
    """Check one player's event for a title norm; unrated opponents are NaN (or None)."""
    key = title.upper()
    if key not in NORMS:
        raise ValueError(f"unknown norm {title!r} (known: {', '.join(NORMS)})")
    need = NORMS[key]
    opp = np.array([np.nan if r is None else r for r in opponent_ratings], dtype=np.float64)
    n = int(opp.size)
    if n == 0:
        raise ValueError("a norm check needs at least one game")
    if not 0 <= score <= n or (2 * score) != int(2 * score):
        raise ValueError(f"score {score} is not a number of half points between 0 and {n}")
    used = np.where(np.isnan(opp), rules.unrated_as, opp)
    raised: list[int] = []
    for _ in range(rules.raise_to_floor):
        low = int(np.argmin(used))
        if used[low] < need.rating_floor and low not in raised:
            used[low] = need.rating_floor
            raised.append(low)
    average = int(round_half_up(float(used.sum()) / n))
    s2 = int(2 * score)
    percent = (100 * s2 + n) // (2 * n)  # whole percent, .5 up, exactly
    dp = int(dp_by_percent()[percent])
    rp = average + dp
    exact_percent = 100.0 * score / n
    conditions = [
        (
            "games",
            n >= rules.min_games,
            f"{n} games (minimum {rules.min_games})",
        ),
        (
            "score",
            exact_percent >= rules.min_percent,
            f"{exact_percent:.1f} % (minimum {rules.min_percent:g} %)",
        ),
        (
            "average",
            average >= need.min_average,
            f"Ra {average} (minimum {need.min_average})",
        ),
        (
            "performance",
            rp >= need.min_performance,
            f"Rp {average} + dp({percent} %) {dp:+d} = {rp} (minimum {need.min_performance})",
        ),
    ]
    return NormCheck(
        title=key,
        games=n,
        score=float(score),
        percent=int(percent),
        opponents_used=used.tolist(),
        raised=raised,
        average=average,
        dp=dp,
        performance=rp,
        conditions=conditions,
    )
