"""Group a period's games by player (CSR) so that per-player loops own their output.

Each game appears twice, once from each side. For player ``p`` the entries
``offsets[p]:offsets[p + 1]`` list the games in input order (a stable counting
sort), so results never depend on thread scheduling.
"""

from typing import NamedTuple

import numpy as np

from arpad.kernels.config import jit


class PlayerGames(NamedTuple):
    offsets: np.ndarray  # int64[n_players + 1]
    opponent: np.ndarray  # int32[2 * n_games]
    score: np.ndarray  # float64[2 * n_games], the player's own score (1, 0.5, 0)
    is_white: np.ndarray  # bool[2 * n_games]
    game: np.ndarray  # int32[2 * n_games], index into the period's game arrays


@jit
def _group_by_player(white, black, score, n_players):
    n_games = white.shape[0]
    counts = np.zeros(n_players + 1, dtype=np.int64)
    for g in range(n_games):
        counts[white[g] + 1] += 1
        counts[black[g] + 1] += 1
    offsets = np.cumsum(counts)
    fill = offsets[:-1].copy()
    opponent = np.empty(2 * n_games, dtype=np.int32)
    own_score = np.empty(2 * n_games, dtype=np.float64)
    is_white = np.empty(2 * n_games, dtype=np.bool_)
    game = np.empty(2 * n_games, dtype=np.int32)
    for g in range(n_games):
        w = white[g]
        j = fill[w]
        fill[w] = j + 1
        opponent[j] = black[g]
        own_score[j] = score[g]
        is_white[j] = True
        game[j] = g
        b = black[g]
        j = fill[b]
        fill[b] = j + 1
        opponent[j] = w
        own_score[j] = 1.0 - score[g]
        is_white[j] = False
        game[j] = g
    return offsets, opponent, own_score, is_white, game


def group_by_player(
    white: np.ndarray, black: np.ndarray, score: np.ndarray, n_players: int
) -> PlayerGames:
    """CSR of the period's games by player. ``white``/``black`` are dense indices."""
    white = np.ascontiguousarray(white, dtype=np.int32)
    black = np.ascontiguousarray(black, dtype=np.int32)
    score = np.ascontiguousarray(score, dtype=np.float64)
    if not (white.shape == black.shape == score.shape) or white.ndim != 1:
        raise ValueError("white, black and score must be 1-D arrays of one length")
    if white.size and (
        min(white.min(), black.min()) < 0 or max(white.max(), black.max()) >= n_players
    ):
        raise ValueError("player index out of range")
    return PlayerGames(*_group_by_player(white, black, score, np.int64(n_players)))
