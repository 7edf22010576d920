"""What ``simulate tune`` needs from a game, in the core so a game can provide it: a block
of games (``Block``), a candidate's tally (``Tally``), the ``Arena`` protocol, and
``ThreadedArena``, the base every game's arena (the ``tune_arena`` of its description,
``TuneArena``) builds on: it plays blocks in a thread pool, one kernel call per block
(kernels release the GIL)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numpy as np

# How ``simulate tune``'s search (sim/studies/tune.py) runs, unless a game's arena says
# otherwise (the attributes of ThreadedArena below)
DEFAULT_SIGMA = 0.3                 # initial step, in units of each weight's scale
DEFAULT_GROWTH = 1.0                # games per evaluation at the end of the budget / at start
DEFAULT_PATIENCE = None             # generations without a promotion before a restart (off)
DEFAULT_RESTART_POPSIZE = 1.0       # a restart's population / the previous run's


@dataclass(frozen=True)
class Block:
    """Games ``start .. start+count-1`` of ``seed`` with ``candidate`` in seat position
    ``side`` and ``opponent`` everywhere else."""

    candidate: int      # index into the vectors of one play_blocks call
    opponent: int
    side: int
    seed: int
    start: int
    count: int


@dataclass
class Tally:
    wins: int = 0          # games the candidate (its team) won
    rival_wins: int = 0    # games another team / seat won
    games: int = 0

    def add(self, other: "Tally") -> None:
        self.wins += other.wins
        self.rival_wins += other.rival_wins
        self.games += other.games


class Arena(Protocol):
    """What the search needs from a game: its weight names, how many seat positions a
    candidate takes (``sides``), the fair share of won games, and a way to play blocks."""

    game: str
    players: int
    names: tuple[str, ...]
    sides: int
    fair_share: float
    scales_floor: dict[str, float]   # weights whose search scale is at least this, by name

    def play_blocks(self, vectors: Sequence[np.ndarray], blocks: Sequence[Block]) -> list[Tally]:
        ...


class TuneArena(Protocol):
    """A game's arena class (``sim.core.game.Game.tune_arena``): built on a template
    configuration, it is an ``Arena``; its static helpers read a configuration's weight
    vector and name the strategies of each side."""

    default_budget: int       # games a default ``simulate tune`` plays
    # the search's settings for this game (ThreadedArena has the defaults)
    tune_sigma: float
    tune_popsize: int | None
    eval_growth: float
    restart_patience: int | None
    restart_popsize: float
    explore_runs: int | None
    explore_generations: int | None

    def __call__(self, template: Any, threads: int = 1) -> Arena: ...

    @staticmethod
    def weight_names() -> tuple[str, ...]:
        """The names of a weight vector's entries, in order (an arena's ``names``), read
        without building an arena."""

    @staticmethod
    def vector_of(config: Any) -> np.ndarray:
        """The weight vector a configuration plays (its first team's or seat's)."""

    @staticmethod
    def strategies_for(spec: str) -> dict[str, str]:
        """Strategy specs by slot with ``spec`` everywhere."""

    @staticmethod
    def sided_strategies(candidate: str, opponent: str, side: int) -> dict[str, str]:
        """Strategy specs by slot with the candidate at side ``side``."""


class ThreadedArena:
    """Plays blocks in a thread pool, one kernel call per block (kernels release the GIL).
    Its class attributes are the search's settings; a game's arena overrides those it tunes."""

    tune_sigma: float = DEFAULT_SIGMA
    tune_popsize: int | None = None          # None: CMA-ES's own default
    eval_growth: float = DEFAULT_GROWTH
    restart_patience: int | None = DEFAULT_PATIENCE
    restart_popsize: float = DEFAULT_RESTART_POPSIZE
    explore_runs: int | None = None          # None: no exploring runs
    explore_generations: int | None = None

    def __init__(self, template: Any, threads: int):
        self.template = template
        self.threads = max(1, int(threads))
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def play_blocks(self, vectors, blocks):
        def one(block: Block) -> Tally:
            config = self.configured(vectors[block.candidate], vectors[block.opponent], block.side)
            return self.tally(config.play(block.seed, block.start, block.count, 1), block.side)

        if self._pool is None:
            return [one(b) for b in blocks]
        return list(self._pool.map(one, blocks))

    def close(self) -> None:
        if self._pool is not None:
            # a stopped search (Ctrl-C) does not wait for the blocks still queued
            self._pool.shutdown(cancel_futures=True)
