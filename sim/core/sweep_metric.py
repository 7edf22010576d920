"""What a sweep metric is, for the games that declare theirs (``Game.sweep_metrics``).

A sweep metric is a per-game average or a ratio of per-game sums, ``sum x / sum y`` over
games, so one method (``reports.sweep``) gives every interval: Wilson for rates (x and y
are 0/1 per game), the delta method for means, and paired differences between points that
play the same games. Each game declares its own in its package
(``sim/games/<g>/sweep_metrics.py``); ``reports.sweep`` reads them from the game's
description. This module holds only the data type and two helpers for ``xy`` functions,
below the games, so a game package never imports the report layer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

# the per-game columns of a run's table as arrays, by name (``reports.sweep.load_games``)
Games = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class SweepMetric:
    name: str            # the name experiments use (``metrics: [a_win_rate]``)
    title: str           # the plot's and table's heading
    unit: str            # '%', 'pp', or a count's unit ('rounds', 'turns')
    kind: str            # 'rate' (x, y in {0, 1}) or 'mean'
    scale: float         # display = scale * (ratio + offset)
    offset: float
    xy: Callable[[Games], tuple[np.ndarray, np.ndarray]]   # per-game x and y
    description: str
    columns: tuple[str, ...]   # the per-game columns ``xy`` reads ("players" only if there)
    reference: float | None = None   # a value drawn as a dotted line (50 % even, 0 fair)
    # the smallest player count the metric applies at (a seat's win rate: one more than the
    # seat); below it no game counts toward it, which more games cannot change
    min_players: int = 1


def indicator(mask) -> np.ndarray:
    """0/1 per game as float64."""
    return np.asarray(mask, dtype=np.float64)


def ones(games: Games, column: str) -> np.ndarray:
    """1.0 for every game (every game in the denominator); ``column``: any column read."""
    return np.ones(len(games[column]), dtype=np.float64)
