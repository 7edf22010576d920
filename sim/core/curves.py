"""The game's pace, round by round: per-round sums a game's engine accumulates over the
games of a chunk (never one row per game and round), and what reports draw from them.

A game that records curves says so in its description (``Game.curves``, a ``Curves``):
the unit of its index (``round``, ``turn``) and, per player count, the curves a report
draws (``Curve``: a name, words, the panel it is drawn in and its column among the
sums). Its ``run_chunk(seed, start, count, threads,
curves=sink)`` adds the chunk's sums into a ``CurveSink``.

The sums are one int64 matrix ``[horizon + 1, 1 + 2 * width]`` (``width``: the series
the game's kernels sum; the game chooses the horizon); row ``t`` is index ``t`` (0: the
state after setup, before the first round or turn):

- column 0 (``RUNNING``): the games that reached index ``t``;
- column ``1 + k``: series k summed over those games (its value at the end of ``t``);
- column ``1 + width + k``: the sum of its squares.

Integer sums, so adding the chunks in any order (any chunking, thread count or backend)
gives the same matrix. A game that ended before ``t`` adds nothing to row ``t``: the mean
of row ``t`` is over the games still running, and ``RUNNING`` says how many there are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

RUNNING = 0      # column of the sums: games that reached the index
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Curve:
    """One series of a game's curves."""

    name: str      # its column stem in curves.csv ("score_a")
    words: str     # what it is, for a designer ("team A's score")
    panel: str     # the plot it is drawn in; curves sharing a panel share its axes
    column: int    # its column among the kernel's ``width`` sums (0 .. width - 1)


@dataclass(frozen=True)
class Curves:
    """What a game's engine records round by round (``Game.curves``)."""

    unit: str                                   # "round" or "turn": what the index counts
    series: Callable[[int], tuple[Curve, ...]]  # players -> the curves drawn at that count


def width(sums: np.ndarray) -> int:
    """The number of series in a matrix of sums."""
    return (sums.shape[1] - 1) // 2


class CurveSink:
    """Where ``run_chunk`` adds its chunk's sums (one call per thread, say). Empty
    (``array`` None) when the chunk recorded none (a search player's games)."""

    def __init__(self) -> None:
        self.array: np.ndarray | None = None

    def add(self, sums: np.ndarray) -> None:
        sums = np.asarray(sums, dtype=np.int64)
        if self.array is None:
            self.array = sums.copy()
        elif sums.shape != self.array.shape:
            raise ValueError(f"curve sums of shape {sums.shape} added to {self.array.shape}")
        else:
            self.array += sums


def add_sums(total: np.ndarray | None, sums: np.ndarray) -> np.ndarray:
    """``total + sums``, where a shorter horizon is padded with zero rows."""
    if total is None:
        return np.array(sums, dtype=np.int64)
    if total.shape[1] != sums.shape[1]:
        raise ValueError(f"curve sums with {sums.shape[1]} columns added to {total.shape[1]}")
    rows = max(total.shape[0], sums.shape[0])
    out = np.zeros((rows, total.shape[1]), dtype=np.int64)
    out[:total.shape[0]] += total
    out[:sums.shape[0]] += sums
    return out


def mean_band(n: np.ndarray, total: np.ndarray, squares: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high): the mean over ``n`` games and its 95 % interval (normal
    approximation, sample variance); NaN where no game ran, no band below two games."""
    n = n.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, total / n, np.nan)
        var = np.where(n > 1, (squares - n * mean * mean) / (n - 1), np.nan)
        half = Z95 * np.sqrt(np.maximum(var, 0.0) / n)
    return mean, mean - half, mean + half


def last_index(running: np.ndarray, min_games: int = 1) -> int:
    """The last index that at least ``min_games`` games reached (0 if none)."""
    reached = np.flatnonzero(running >= max(1, min_games))
    return int(reached[-1]) if reached.size else 0


def shown_end(running: np.ndarray, min_games: int = 30, min_share: float = 0.005) -> int:
    """The last index worth drawing: at least ``min_games`` games, and ``min_share`` of
    them, still running (fewer make a band too wide to read)."""
    games = int(running[0]) if running.size else 0
    return last_index(running, max(min_games, math.ceil(min_share * games)))


def curve_rows(spec: Curves, players: int, sums: np.ndarray, *, upto: int | None = None
               ) -> list[dict[str, Any]]:
    """One dict per index 0 .. ``upto`` (default: the last any game reached): the index,
    the games still running, and per curve its mean with the 95 % interval
    (``<name>``, ``<name>_lo``, ``<name>_hi``)."""
    running = sums[:, RUNNING]
    end = last_index(running) if upto is None else min(upto, sums.shape[0] - 1)
    series = spec.series(players)
    w = width(sums)
    bands = {c.name: mean_band(running, sums[:, 1 + c.column], sums[:, 1 + w + c.column])
             for c in series}
    rows = []
    for t in range(end + 1):
        row: dict[str, Any] = {spec.unit: t, "games": int(running[t])}
        for c in series:
            mean, lo, hi = (float(a[t]) for a in bands[c.name])
            row[c.name] = mean
            row[f"{c.name}_lo"] = lo if math.isfinite(lo) else None
            row[f"{c.name}_hi"] = hi if math.isfinite(hi) else None
        rows.append(row)
    return rows


def panels(series: Iterable[Curve]) -> dict[str, list[Curve]]:
    """The curves by panel, in their order."""
    out: dict[str, list[Curve]] = {}
    for c in series:
        out.setdefault(c.panel, []).append(c)
    return out
