"""Whole-History Rating (``--system whr``): a retroactive rating for historical reconstructions.

Unlike the incremental systems, every period re-estimates the whole history
from all games seen so far (Coulom 2008; kernel and formulas in
``kernels/whr.py``). The report of period P holds each player's estimate at P
given the games up to P; ``history_reports`` gives the final retroactive
estimate of every earlier period from all games (what a historian wants), and
``arpad rate --system whr`` writes those revised reports for every walked
period at the end of the run (docs/whr.md).

State: ``tables["sides"]`` (one row per game side: player, game, month, own
score, colour), ``tables["nodes"]`` (player, month, rating: warm start of the
next fit) and ``tables["model"]`` (the white advantage); per-player arrays hold
the prior and the latest estimate (``rating``, ``rd``) for predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arpad.kernels.csr import group_by_player
from arpad.kernels.whr import player_components, whr_fit, whr_variance
from arpad.pipeline import periods
from arpad.pipeline.systems import register
from arpad.pipeline.systems.base import (
    INACTIVE,
    NOT_REPORTED,
    RATED,
    PeriodGames,
    PlayerInfo,
    RatingSystem,
    Report,
    State,
)


@dataclass(frozen=True)
class WhrRules:
    w2: float = 300.0  # Wiener variance of a rating per month (Elo²); Coulom used 14/day on KGS
    initial_rating: float = 1500.0  # prior mean of players without a starting rating
    initial_rd: float = 350.0  # prior sd of players without a starting rating
    rated_rd: float = 100.0  # prior sd of a starting rating from the players file (rd wins)
    white_advantage: float | None = None  # Elo points; None = estimated with the ratings
    scale: float = 400.0
    max_sweeps: int = 200
    tolerance: float = 0.01  # stop when no rating moved more than this (Elo points)
    # refits with each unrated player's prior mean at their opponents' mean rating (0 = off)
    opponent_prior_passes: int = 3
    # arpad rate: rewrite every rated period with the estimate from all games at the end
    retroactive: bool = True

    # Valid range of each numeric field (``--set`` refuses others; docs/rules.md).
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "w2": (1e-6, 1e6),
        "initial_rating": (-10_000, 10_000),
        "initial_rd": (1e-3, 10_000),
        "rated_rd": (1e-3, 10_000),
        "white_advantage": (-1000, 1000),
        "scale": (1, 10_000),
        "max_sweeps": (1, 1_000_000),
        "tolerance": (1e-12, 100),
        "opponent_prior_passes": (0, 100),
    }

    def __post_init__(self):
        if not (self.w2 > 0 and self.initial_rd > 0 and self.rated_rd > 0):
            raise ValueError("w2, initial_rd and rated_rd must be positive")


@dataclass
class _Fit:
    node_player: np.ndarray
    node_month: np.ndarray
    rating: np.ndarray
    variance: np.ndarray
    white_advantage: float
    side_node: np.ndarray


def _empty_sides() -> dict[str, np.ndarray]:
    return {
        "player": np.empty(0, dtype=np.int64),
        "game": np.empty(0, dtype=np.int64),
        "month": np.empty(0, dtype=np.int64),
        "score": np.empty(0, dtype=np.float64),
        "is_white": np.empty(0, dtype=bool),
    }


def _empty_nodes() -> dict[str, np.ndarray]:
    return {
        "player": np.empty(0, dtype=np.int64),
        "month": np.empty(0, dtype=np.int64),
        "rating": np.empty(0, dtype=np.float64),
    }


def _level_groups(white: np.ndarray, black: np.ndarray, prior_given: np.ndarray) -> np.ndarray:
    """The group that fixes each player's level, for the opponent-anchored prior's re-centring.

    Players of two components of the game graph never met: nothing in the games relates
    their levels, so a component without a starting rating is a group of its own (it sits
    at ``initial_rating``, whatever else is rated beside it). Components with a starting
    rating are tied to the players file's one scale: they form one group (-1), the pool
    as before (docs/whr.md "Components").
    """
    component = player_components(white, black, prior_given.shape[0]).label
    on_the_scale = np.zeros(int(component.max(initial=-1)) + 1, dtype=bool)
    on_the_scale[component[prior_given]] = True
    return np.where(on_the_scale[component], -1, component)


def _prior_at(players: dict, month: int, w2: float) -> tuple[np.ndarray, np.ndarray]:
    """Rating and rd at ``month`` of each player with a starting rating who has no game
    yet: the prior, the players file's rating with its sd grown by ``w2`` per month since
    the first walked period (docs/whr.md "Which players are reported"); NaN for others."""
    given = players["prior_given"]
    since = players["prior_month"]
    months = np.where(since >= 0, np.maximum(month - since, 0), 0)
    rd = np.sqrt(players["prior_var"] + w2 * months)
    return np.where(given, players["prior_mean"], np.nan), np.where(given, rd, np.nan)


def _group_mean(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Mean of ``values`` over each entry's group, one value per entry."""
    groups, index = np.unique(group, return_inverse=True)
    if groups.size <= 1:
        # one pool: np.mean (pairwise sum) as before, so its ratings stay bit-for-bit
        return np.full(values.shape, values.mean() if values.size else 0.0)
    total = np.bincount(index, weights=values, minlength=groups.size)
    return (total / np.bincount(index, minlength=groups.size))[index]


class WhrSystem(RatingSystem):
    name = "whr"
    uses_events = False  # no event-level rule: the engine skips the event ids
    rules_type: ClassVar[type] = WhrRules
    relative_cost: ClassVar[float] = 10.0  # whole-history Newton fits (one per pass)
    retroactive = True  # history_reports revises every walked period (rules.retroactive: on/off)
    list_columns = (("rd", "rd_after", 1),)  # the posterior sd, as Glicko's RD (docs/lists.md)
    # Rule fields the backtest tunes on its validation split, with candidate values.
    tuning_grid: ClassVar[dict[str, tuple[float, ...]]] = {
        "w2": (100.0, 300.0, 1000.0),
        "initial_rd": (100.0, 150.0, 250.0),
        "opponent_prior_passes": (0, 3),
    }

    def expected_scores(self, white, black, white_rd, black_rd, rules: WhrRules) -> np.ndarray:
        """The model's curve 1/(1 + 10^(−(W + h − B)/scale)) on the rules' scale, with
        White's advantage h when the rules fix it; an estimated one (``None``) is no
        part of the ratings, and counts as 0 (docs/api.md "Which rules predict uses")."""
        h = 0.0 if rules.white_advantage is None else rules.white_advantage
        return 1.0 / (1.0 + 10.0 ** (-(white + h - black) / rules.scale))

    def initial_state(self, players: PlayerInfo, rules: WhrRules) -> State:
        given = ~np.isnan(players.rating)
        sd = np.where(given, np.where(np.isnan(players.rd), rules.rated_rd, players.rd), 0.0)
        sd = np.where(given, sd, rules.initial_rd)
        h = np.nan if rules.white_advantage is None else rules.white_advantage
        return State(
            players={
                "prior_mean": np.where(given, players.rating, rules.initial_rating),
                "prior_var": sd**2,
                # month of a starting rating (-1 = the prior sits at the player's first game)
                "prior_month": np.full(players.n, -1, dtype=np.int64),
                "prior_given": given,
                "rating": np.where(given, players.rating, np.nan),
                "rd": np.where(given, sd, np.nan),
                "last_month": np.full(players.n, -1, dtype=np.int64),
            },
            tables={
                "sides": _empty_sides(),
                "nodes": _empty_nodes(),
                "model": {"h": np.array([h])},
            },
        )

    # -- the fit ---------------------------------------------------------------
    def fit(self, state: State, rules: WhrRules) -> _Fit:
        """MAP of the whole history in ``state`` (warm-started from the stored nodes)."""
        s = state.players
        sides = state.tables["sides"]
        n = s["prior_mean"].shape[0]
        span = int(sides["month"].max()) + 2 if sides["month"].size else 1
        key = sides["player"] * span + sides["month"]
        node_key, side_node = np.unique(key, return_inverse=True)
        node_player = node_key // span
        node_month = node_key % span
        node_offsets = np.searchsorted(node_player, np.arange(n + 1)).astype(np.int64)

        # start values: the previous fit's node, else the player's latest earlier node, else prior
        start = s["prior_mean"][node_player].copy()
        old = state.tables["nodes"]
        if old["player"].size:
            old_key = old["player"] * span + old["month"]
            order = np.argsort(old_key)
            old_key, old_rating = old_key[order], old["rating"][order]
            pos = np.searchsorted(old_key, node_key, side="right") - 1
            ok = pos >= 0
            same_player = np.zeros(node_key.size, dtype=bool)
            same_player[ok] = old_key[pos[ok]] // span == node_player[ok]
            start[same_player] = old_rating[pos[same_player]]

        first = node_offsets[:-1]
        has_nodes = node_offsets[1:] > first
        prior_var = s["prior_var"].copy()
        dated = has_nodes & (s["prior_month"] >= 0)
        gap = node_month[first[dated]] - s["prior_month"][dated]
        prior_var[dated] += rules.w2 * np.maximum(gap, 0)

        game = sides["game"]
        order = np.lexsort((~sides["is_white"], game))  # per game: White's side, then Black's
        white_side, black_side = order[0::2], order[1::2]
        white_node = side_node[white_side]
        black_node = side_node[black_side]
        score = sides["score"][white_side]
        grouped = group_by_player(white_node, black_node, score, node_key.size)

        h0 = float(state.tables["model"]["h"][0])
        estimate_h = rules.white_advantage is None
        h = rules.white_advantage if not estimate_h else (0.0 if np.isnan(h0) else h0)
        prior_mean = s["prior_mean"].copy()
        res = self._fit_once(
            start,
            node_offsets,
            node_month,
            prior_mean,
            prior_var,
            grouped,
            white_node,
            black_node,
            score,
            h,
            estimate_h,
            rules,
        )
        # Opponent-anchored prior (the idea of Sismanis's Elo++): a player without a starting
        # rating is expected to be about as strong as the opponents they meet.
        anchored = has_nodes & ~s["prior_given"]
        if rules.opponent_prior_passes > 0:
            level = _level_groups(
                node_player[white_node], node_player[black_node], s["prior_given"]
            )[anchored]
        for _ in range(rules.opponent_prior_passes):
            opp_node = np.concatenate([black_node, white_node])
            own_player = node_player[np.concatenate([white_node, black_node])]
            total = np.bincount(own_player, weights=res.rating[opp_node], minlength=n)
            count = np.bincount(own_player, minlength=n)
            opp_mean = total[anchored] / count[anchored]
            # keep each group's level where the priors put it: only relative strength moves
            shift = _group_mean(s["prior_mean"][anchored], level) - _group_mean(opp_mean, level)
            prior_mean[anchored] = opp_mean + shift
            res = self._fit_once(
                res.rating,
                node_offsets,
                node_month,
                prior_mean,
                prior_var,
                grouped,
                white_node,
                black_node,
                score,
                res.white_advantage,
                estimate_h,
                rules,
            )
        variance = whr_variance(
            res.rating,
            node_offsets,
            node_month,
            prior_mean,
            prior_var,
            grouped.offsets,
            grouped.opponent,
            grouped.score,
            grouped.is_white,
            w2=rules.w2,
            white_advantage=res.white_advantage,
            scale=rules.scale,
        )
        return _Fit(node_player, node_month, res.rating, variance, res.white_advantage, side_node)

    @staticmethod
    def _fit_once(
        start,
        node_offsets,
        node_month,
        prior_mean,
        prior_var,
        grouped,
        white_node,
        black_node,
        score,
        h,
        estimate_h,
        rules,
    ):
        return whr_fit(
            start,
            node_offsets,
            node_month,
            prior_mean,
            prior_var,
            grouped.offsets,
            grouped.opponent,
            grouped.score,
            grouped.is_white,
            white_node,
            black_node,
            score,
            w2=rules.w2,
            white_advantage=h,
            estimate_white_advantage=estimate_h,
            scale=rules.scale,
            max_sweeps=rules.max_sweeps,
            tolerance=rules.tolerance,
        )

    def revises_history(self, rules: WhrRules) -> bool:
        """With ``retroactive`` on, every period's report is replaced at the end of the
        run: the engine absorbs the periods before the last one (no refit each period)."""
        return bool(rules.retroactive)

    def absorb(self, state: State, games: PeriodGames, rules: WhrRules) -> State:
        """Add a period's games without fitting. Absorbing periods and then stepping the
        last one gives the same ratings as stepping every period (the fit is the unique
        maximum of the posterior of all games); the backtest uses it to skip refits."""
        return self._append(state, games)

    def _append(self, state: State, games: PeriodGames) -> State:
        s = state.players
        month = periods.month_index(games.period)
        # starting ratings from the players file are dated at the first walked period
        # (also when it has no game: a later period does not move the date)
        undated = s["prior_given"] & (s["prior_month"] < 0)
        prior_month = np.where(undated, month, s["prior_month"]).astype(np.int64)
        sides = state.tables["sides"]
        g0 = int(sides["game"].max()) + 1 if sides["game"].size else 0
        ids = g0 + np.arange(games.n_games, dtype=np.int64)
        new_sides = {
            "player": np.concatenate([games.white, games.black]).astype(np.int64),
            "game": np.concatenate([ids, ids]),
            "month": np.full(2 * games.n_games, month, dtype=np.int64),
            "score": np.concatenate([games.score, 1.0 - games.score]),
            "is_white": np.concatenate(
                [np.ones(games.n_games, dtype=bool), np.zeros(games.n_games, dtype=bool)]
            ),
        }
        sides = {k: np.concatenate([sides[k], new_sides[k]]) for k in sides}
        players = {**s, "prior_month": prior_month}
        return State(players=players, tables={**state.tables, "sides": sides})

    def step(self, state: State, games: PeriodGames, rules: WhrRules) -> tuple[State, Report]:
        s = state.players
        n = games.n_players
        month = periods.month_index(games.period)
        work = self._append(state, games)
        players, sides = work.players, work.tables["sides"]
        # a player with a starting rating and no game yet keeps his prior (rd grown)
        prior_rating, prior_rd = _prior_at(players, month, rules.w2)
        if not sides["player"].size:
            players = {**players, "rating": prior_rating, "rd": prior_rd}
            return State(players, work.tables), self._report(
                s, prior_rating, prior_rd, np.zeros(n, dtype=bool), games
            )
        fit = self.fit(work, rules)

        # latest node of every player, its rd grown to this period
        last = np.full(n, -1, dtype=np.int64)
        last[fit.node_player] = np.arange(fit.node_player.size)  # nodes sorted: last one wins
        has = last >= 0
        rating = np.where(has, fit.rating[np.maximum(last, 0)], prior_rating)
        last_month = np.where(has, fit.node_month[np.maximum(last, 0)], -1)
        var = fit.variance[np.maximum(last, 0)] + rules.w2 * np.maximum(month - last_month, 0)
        rd = np.where(has, np.sqrt(var), prior_rd)
        played = games.games_per_player() > 0

        new_state = State(
            players={**players, "rating": rating, "rd": rd, "last_month": last_month},
            tables={
                "sides": sides,
                "nodes": {"player": fit.node_player, "month": fit.node_month, "rating": fit.rating},
                "model": {"h": np.array([fit.white_advantage])},
            },
        )
        report = self._report(s, rating, rd, played, games)
        report.extra["white_advantage"] = fit.white_advantage
        return new_state, report

    @staticmethod
    def _report(before: dict, rating, rd, played, games: PeriodGames) -> Report:
        known = ~np.isnan(rating)
        status = np.where(known, INACTIVE, NOT_REPORTED).astype(np.int8)
        status[played & known] = RATED
        n_games = games.games_per_player()
        own = np.zeros(games.n_players)
        np.add.at(own, games.white, games.score)
        np.add.at(own, games.black, 1.0 - games.score)
        return Report(
            columns={
                "rating_before": before["rating"],
                "rating_after": rating,
                "games": n_games.astype(np.int32),
                "score": own,
                "rd_before": before["rd"],
                "rd_after": rd,
                "change": rating - before["rating"],
            },
            status=status,
        )

    def history_reports(
        self, state: State, walked: list[int], rules: WhrRules
    ) -> dict[int, Report]:
        """Retroactive reports: every period re-estimated from all games in ``state``
        (none when ``rules.retroactive`` is off).

        A player's rating at a period between two of their nodes is the Wiener-process
        interpolation of the two; after the last node it stays at the last node's value
        (its variance grows by w2 per month). Before the first node, a player with a
        starting rating is reported (``inactive``) with the estimate from his prior and his
        first node (his prior alone if he never played); any other player is not reported.
        """
        if not rules.retroactive:
            return {}
        s = state.players
        n = s["prior_mean"].shape[0]
        zeros = np.zeros(n)
        # the state before the first walked period, as a step's rating_before
        previous = np.where(s["prior_given"], s["prior_mean"], np.nan)
        previous_rd = np.where(s["prior_given"], np.sqrt(s["prior_var"]), np.nan)
        if not state.tables["sides"]["player"].size:  # no game yet: what a step reports
            out: dict[int, Report] = {}
            for period in walked:
                rating, rd = _prior_at(s, periods.month_index(period), rules.w2)
                status = np.where(s["prior_given"], INACTIVE, NOT_REPORTED).astype(np.int8)
                columns = {
                    "rating_before": previous,
                    "rating_after": rating,
                    "games": zeros.astype(np.int32),
                    "score": zeros,
                    "rd_before": previous_rd,
                    "rd_after": rd,
                    "change": rating - previous,
                }
                out[period] = Report(columns=columns, status=status)
                previous, previous_rd = rating, rd
            return out
        fit = self.fit(state, rules)
        sides = state.tables["sides"]
        games_at = np.bincount(fit.side_node, minlength=fit.node_player.size)
        score_at = np.bincount(fit.side_node, weights=sides["score"], minlength=games_at.size)
        out = {}
        # each player's first node (for the estimate before it, of a player with a prior)
        first = np.searchsorted(fit.node_player, np.arange(n))
        has_first = first < fit.node_player.size
        has_first[has_first] = fit.node_player[first[has_first]] == np.flatnonzero(has_first)
        first = np.minimum(first, fit.node_player.size - 1)
        months = [periods.month_index(p) for p in walked]
        span = max(int(fit.node_month.max()), *months) + 2
        node_key = fit.node_player * span + fit.node_month
        for period in walked:
            month = periods.month_index(period)
            # index of each player's last node at or before this month, and the next one
            query = np.arange(n, dtype=np.int64) * span + month
            pos = np.searchsorted(node_key, query, side="right") - 1
            ok = pos >= 0
            ok[ok] = fit.node_player[pos[ok]] == np.flatnonzero(ok)
            idx = np.where(ok, pos, -1)
            after = pos + 1
            ok_next = ok & (after < node_key.size)
            ok_next[ok_next] = fit.node_player[after[ok_next]] == np.flatnonzero(ok_next)
            nxt = np.where(ok_next, after, -1)
            has = idx >= 0
            k = np.maximum(idx, 0)
            kn = np.maximum(nxt, 0)
            dt = np.where(has, month - fit.node_month[k], 0).astype(np.float64)
            gap = np.where(nxt >= 0, fit.node_month[kn] - fit.node_month[k], 1).astype(np.float64)
            frac = np.where(nxt >= 0, dt / gap, 0.0)
            rating = fit.rating[k] + frac * (fit.rating[kn] - fit.rating[k])
            var = fit.variance[k] + rules.w2 * dt * np.where(nxt >= 0, 1 - frac, 1.0)
            # before the first node: the prior (at the first walked period, its variance
            # grown by w2 per month) and the first node, combined as Gaussians (the Wiener
            # process from the prior to the first node, conditioned on that node)
            prior_rating, prior_rd = _prior_at(s, month, rules.w2)
            ahead = s["prior_given"] & has_first & ~has
            a = np.where(s["prior_given"], prior_rd**2, 1.0)
            b = rules.w2 * np.where(ahead, fit.node_month[first] - month, 0)
            weight = np.where(ahead, a / (a + b), 0.0)
            before_rating = prior_rating + weight * (fit.rating[first] - prior_rating)
            before_var = np.where(ahead, a * b / (a + b) + weight**2 * fit.variance[first], a)
            rating = np.where(has, rating, before_rating)
            rd = np.where(has, np.sqrt(var), np.sqrt(before_var))
            played = has & (dt == 0)
            status = np.where(has | s["prior_given"], INACTIVE, NOT_REPORTED).astype(np.int8)
            status[played] = RATED
            out[period] = Report(
                columns={
                    "rating_before": previous,
                    "rating_after": rating,
                    "games": np.where(played, games_at[k], 0).astype(np.int32),
                    "score": np.where(played, score_at[k], 0.0),
                    "rd_before": previous_rd,
                    "rd_after": rd,
                    "change": rating - previous,
                },
                status=status,
                extra={"white_advantage": fit.white_advantage},
            )
            previous, previous_rd = rating, rd
        self._fill_performance(out, sides, n, months, walked)
        return out

    def _fill_performance(self, out: dict, sides: dict, n: int, months: list, walked) -> None:
        """Each revised report's performance column: the true logistic performance of
        the period's games (docs/legacy-systems.md), against the opponents' ratings as
        re-estimated for that month (``rating_after``: in the retroactive view the rating
        a player had then; ``rating_before`` is the previous period's and is NaN on the
        first appearance of a player without a starting rating). It was left empty (the
        analyst's attack, 2026-12-03)."""
        from arpad.pipeline.performance import fill_performance

        month_of_side = sides["month"]
        for period, month in zip(walked, months):
            at = np.flatnonzero(month_of_side == month)
            if not at.size:
                continue
            white_rows = at[sides["is_white"][at]]
            black_rows = at[~sides["is_white"][at]]
            # the two sides of a game were added in one order (absorb): game ids align
            order_w = np.argsort(sides["game"][white_rows], kind="stable")
            order_b = np.argsort(sides["game"][black_rows], kind="stable")
            white_rows, black_rows = white_rows[order_w], black_rows[order_b]
            games = PeriodGames.build(
                period,
                sides["player"][white_rows],
                sides["player"][black_rows],
                sides["score"][white_rows],
                n,
            )
            report = out[period]
            view = Report(
                columns={"rating_before": report.columns["rating_after"]}, status=report.status
            )
            fill_performance(self, view, games)
            if "performance" in view.columns:
                report.columns["performance"] = view.columns["performance"]


register(WhrSystem())
