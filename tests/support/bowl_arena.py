"""A two-player test arena for `simulate tune`'s search whose best weights are known, shared
by the tune and resume tests."""
from __future__ import annotations

import numpy as np

from sim.studies import tune as tuner

BEST = np.array([1.5, -1.0, 0.8])


def uniform_draw(seed: int, index: np.ndarray) -> np.ndarray:
    """A uniform in [0, 1) per game index: a splitmix64 hash, so games are common numbers."""
    x = index.astype(np.uint64) ^ np.uint64(seed & (2**64 - 1))
    x = x * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return (x >> np.uint64(11)).astype(np.float64) / float(2**53)


def assert_the_seed_decides(search) -> None:
    """``search(seed)`` twice with one seed gives the same weights, another seed others."""
    first, again, other = search(5), search(5), search(6)
    assert np.array_equal(first.weights, again.weights)
    assert not np.array_equal(first.weights, other.weights)


class BowlArena:
    """A two-player test game whose best weights are BEST: a player's strength is
    -|w - BEST|^2 and the stronger player wins more often (logistic in the difference).
    Game i of a seed is decided by one uniform draw, the same for every candidate."""

    game, players, sides, fair_share = "bowl", 2, 2, 0.5
    names = ("a", "b", "c")

    def play_blocks(self, vectors, blocks):
        out = []
        for block in blocks:
            cand, opp = vectors[block.candidate], vectors[block.opponent]
            gap = np.sum((opp - BEST) ** 2) - np.sum((cand - BEST) ** 2)
            p_win = 1.0 / (1.0 + np.exp(-3.0 * gap))
            u = uniform_draw(block.seed + block.side, np.arange(block.start, block.start + block.count))
            wins = int((u < p_win).sum())
            out.append(tuner.Tally(wins, block.count - wins, block.count))
        return out
