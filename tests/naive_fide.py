"""A slow, obviously correct FIDE reference: one game at a time, exact fractions.

Written from docs/rules.md directly (tables typed out again here), independent
of kernels/ and pipeline/rules.
"""

from __future__ import annotations

from fractions import Fraction

# Table 8.1.2: upper bound of each D range and PD(H) in hundredths (docs/rules.md).
PD_UPPER = [
    (3, 50),
    (10, 51),
    (17, 52),
    (25, 53),
    (32, 54),
    (39, 55),
    (46, 56),
    (53, 57),
    (61, 58),
    (68, 59),
    (76, 60),
    (83, 61),
    (91, 62),
    (98, 63),
    (106, 64),
    (113, 65),
    (121, 66),
    (129, 67),
    (137, 68),
    (145, 69),
    (153, 70),
    (162, 71),
    (170, 72),
    (179, 73),
    (188, 74),
    (197, 75),
    (206, 76),
    (215, 77),
    (225, 78),
    (235, 79),
    (245, 80),
    (256, 81),
    (267, 82),
    (278, 83),
    (290, 84),
    (302, 85),
    (315, 86),
    (328, 87),
    (344, 88),
    (357, 89),
    (374, 90),
    (391, 91),
    (411, 92),
    (432, 93),
    (456, 94),
    (484, 95),
    (517, 96),
    (559, 97),
    (619, 98),
    (735, 99),
]

# Table 8.1.1 for p >= 0.50 (docs/rules.md); dp(1 - p) = -dp(p).
DP_HIGH = {
    100: 800,
    99: 677,
    98: 589,
    97: 538,
    96: 501,
    95: 470,
    94: 444,
    93: 422,
    92: 401,
    91: 383,
    90: 366,
    89: 351,
    88: 336,
    87: 322,
    86: 309,
    85: 296,
    84: 284,
    83: 273,
    82: 262,
    81: 251,
    80: 240,
    79: 230,
    78: 220,
    77: 211,
    76: 202,
    75: 193,
    74: 184,
    73: 175,
    72: 166,
    71: 158,
    70: 149,
    69: 141,
    68: 133,
    67: 125,
    66: 117,
    65: 110,
    64: 102,
    63: 95,
    62: 87,
    61: 80,
    60: 72,
    59: 65,
    58: 57,
    57: 50,
    56: 43,
    55: 36,
    54: 29,
    53: 21,
    52: 14,
    51: 7,
    50: 0,
}


def pd_high(d_abs: int) -> Fraction:
    for upper, pd in PD_UPPER:
        if d_abs <= upper:
            return Fraction(pd, 100)
    return Fraction(1)


def dp(percent: int) -> int:
    return DP_HIGH[percent] if percent >= 50 else -DP_HIGH[100 - percent]


def expected(own: int, opp: int, cap: int = 400, exempt_from: int | None = None) -> Fraction:
    d = own - opp
    if exempt_from is None or own < exempt_from:
        d = max(-cap, min(cap, d))
    return pd_high(d) if d >= 0 else 1 - pd_high(-d)


def round_half_away(x: Fraction) -> int:
    n = abs(x)
    r = int(n + Fraction(1, 2))  # floor for positives
    return r if x >= 0 else -r


def k_factor(rating, rated_games, peak, age, k_max_total, n_games):
    if rated_games < 30 or (age is not None and age <= 18 and rating < 2300):
        k = 40
    elif peak >= 2400:
        k = 10
    else:
        k = 20
    while k_max_total and k * n_games > k_max_total:
        k -= 1
    return k


def rated_change(rating, games, k, cap=400, exempt_from=None):
    """games: [(opponent rating, score)] → (ΣΔR, rounded change)."""
    total = sum(
        (Fraction(s) - expected(rating, o, cap, exempt_from) for o, s in games), Fraction(0)
    )
    return total, round_half_away(k * total)


def initial_rating(opponents: list[int], score: Fraction, cap_2200: bool = True) -> int:
    """2024 method (docs/rules.md): two hypothetical 1800 draws, p to a whole percent (0.5 up)."""
    n = len(opponents)
    ra = Fraction(sum(opponents) + 3600, n + 2)
    p = (Fraction(score) + 1) / (n + 2)
    percent = int(p * 100 + Fraction(1, 2))
    ru = round_half_away(ra + dp(percent))
    return min(ru, 2200) if cap_2200 else ru


class NaiveFide:
    """Multi-period FIDE (2025-10 rules) for small synthetic data, one game at a time."""

    def __init__(self, ratings: dict, rated_games: dict, peaks: dict, birth_years: dict):
        self.rating = {p: r for p, r in ratings.items() if r is not None}
        self.rated_games = dict(rated_games)
        self.peak = dict(peaks)
        self.birth = dict(birth_years)
        self.pool: dict = {}  # player -> list of (month, [(opp rating, score)])
        self.started: set = set()

    def period(self, month: int, year: int | None, games: list[tuple], exempt_from=None):
        """One period; ``exempt_from`` is the 2650 threshold in force (None before 2025-10).

        ``games``: (white, black, White's score) or (white, black, score, event)."""
        start = dict(self.rating)
        by_player: dict = {}
        events: dict = {}  # player -> event of each of his games, in game order
        for w, b, s, *event in games:
            e = event[0] if event else None  # None: the game's event is unknown
            by_player.setdefault(w, []).append((b, Fraction(s)))
            by_player.setdefault(b, []).append((w, 1 - Fraction(s)))
            events.setdefault(w, []).append(e)
            events.setdefault(b, []).append(e)
        out = {}
        for p, lst in by_player.items():
            rated_opps = [(start[o], s) for o, s in lst if o in start]
            rated_events = [e for (o, _), e in zip(lst, events[p]) if o in start]
            if p in start:
                if not rated_opps:
                    continue
                age = None if year is None or self.birth.get(p) is None else year - self.birth[p]
                k = k_factor(
                    start[p],
                    self.rated_games.get(p, 30),
                    self.peak.get(p, 0),
                    age,
                    700,
                    len(rated_opps),
                )
                _, change = rated_change(start[p], rated_opps, k, exempt_from=exempt_from)
                new = start[p] + change
                out[p] = ("rated", new, k, change)
                self.rated_games[p] = self.rated_games.get(p, 30) + len(rated_opps)
                if new < 1400:
                    del self.rating[p]
                    out[p] = ("unrated", new, k, change)
                else:
                    self.rating[p] = new
                    self.peak[p] = max(self.peak.get(p, 0), new)
            elif rated_opps:
                first = p not in self.started
                self.started.add(p)
                if first:
                    # §8.2.1: a zero score in his first event (the event of his first
                    # game vs a rated opponent; unknown events count as one) is disregarded.
                    event = rated_events[0]
                    in_first = [g for g, e in zip(rated_opps, rated_events) if e == event]
                    if sum(s for _, s in in_first) == 0:
                        rated_opps = [g for g, e in zip(rated_opps, rated_events) if e != event]
                if not rated_opps:
                    out[p] = ("unrated", None, None, None)
                    continue
                entries = self.pool.setdefault(p, [])
                entries.append((month, rated_opps))
                entries[:] = [e for e in entries if e[0] > month - 26]
                allg = [g for _, gs in entries for g in gs]
                if len(allg) >= 5:
                    ru = initial_rating([o for o, _ in allg], sum(s for _, s in allg))
                    if ru >= 1400:
                        self.rating[p] = ru
                        self.rated_games[p] = len(allg)
                        self.peak[p] = max(self.peak.get(p, 0), ru)
                        del self.pool[p]
                        out[p] = ("new", ru, None, None)
                        continue
                out[p] = ("unrated", None, None, None)
        return out
