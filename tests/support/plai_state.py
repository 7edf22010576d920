"""Helpers for the PLAI tests: hand-made game states in the kernels' exact dtypes, and
the engine's random number generator in plain Python (``RefRng``) for the reference
resolvers the fight tests compare the kernels with.

The arrays have the same dtypes as in the engine, so calling a sub-kernel from a test
reuses its cached compilation instead of compiling a new signature.
"""
from __future__ import annotations

import numpy as np

from sim.games.plai import constants as c
from sim.games.plai.cards import load_cards
from sim.games.plai.features import DEFAULT_WEIGHTS, FEATURE_NAMES, NF
from sim.games.plai.rules import OPTIONS, rules_array

TABLE = load_cards()
CARDS = TABLE.matrix


def card(name: str, numeral: str = "I") -> int:
    """The card id (row) of ``name`` under ``numeral`` (or its only numeral)."""
    rows = [i for i, n in enumerate(TABLE.names) if n == name]
    for i in rows:
        if c.NUMERAL_NAMES[TABLE.numerals[i]] == numeral:
            return i
    if rows:
        return rows[0]
    raise KeyError(name)


def rules(players: int, **overrides) -> np.ndarray:
    resolved = OPTIONS.defaults()
    resolved.update(overrides)
    out = rules_array(resolved, players)
    out[c.R_DEBUG] = 1   # scenario tests check the invariants after every turn
    return out


def weights(players: int, per_seat: dict[int, dict[str, float]] | None = None,
            **common) -> np.ndarray:
    """Default weights, with ``common`` overrides for every seat and ``per_seat`` ones."""
    out = np.tile(DEFAULT_WEIGHTS, (players, 1))
    for name, value in common.items():
        out[:, FEATURE_NAMES.index(name.replace("__", "."))] = value
    for seat, changes in (per_seat or {}).items():
        for name, value in changes.items():
            out[seat, FEATURE_NAMES.index(name)] = value
    return np.ascontiguousarray(out)


class State:
    """Every pile as the engine holds it. ``hands`` maps seat -> card names."""

    def __init__(self, players: int, hands=None, deck=(), discard=(), pool=(), funding=(),
                 bankrupt=(), turn: int = 1, size: int = 64, trace_rows: int = 0):
        self.players = players
        self.piles = np.full((c.P_HAND0 + players, size), -1, np.int16)
        self.pile_n = np.zeros(c.P_HAND0 + players, np.int64)
        self.bankrupt = np.full(players, -1, np.int64)
        for seat in bankrupt:
            self.bankrupt[seat] = 0
        self.st = np.zeros(c.N_STATS, np.int64)
        self.st[c.S_TURNS] = turn
        self.trace = np.zeros((trace_rows, c.TRACE_WIDTH), np.int32)
        self.scratch = np.zeros((c.N_SCRATCH, max(c.N_FIGHT_OUT, size)), np.int64)
        self.rng = np.zeros(4, np.uint64)
        self.put(c.P_DECK, deck)          # the last name is the top card
        self.put(c.P_DISCARD, discard)
        self.put(c.P_POOL, pool)
        self.put(c.P_FUNDING, funding)
        for seat, names in (hands or {}).items():
            self.put(c.P_HAND0 + seat, names)

    def put(self, pile: int, names) -> None:
        for name in names:
            self.piles[pile, self.pile_n[pile]] = card(name) if isinstance(name, str) else name
            self.pile_n[pile] += 1

    def names(self, pile: int) -> list[str]:
        return sorted(TABLE.names[i] for i in self.piles[pile, :self.pile_n[pile]])

    def hand(self, seat: int) -> list[str]:
        return self.names(c.P_HAND0 + seat)

    def total(self) -> int:
        return int(self.pile_n.sum())

    def startups(self) -> int:
        """Seats not bankrupt (PLAI-T5)."""
        return int((self.bankrupt < 0).sum())

    def seed(self, seed: int, index: int = 0) -> "State":
        from sim.core.rng_kernel import seed_game

        seed_game(self.rng, seed, index)
        return self


def blank_weights() -> np.ndarray:
    return np.zeros(NF, np.float64)


# ---------------------------------------------------------------- the engine's RNG in Python
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class RefRng:
    """xoshiro256++ seeded by SplitMix64 of seed * golden ^ index (engineering notes)."""

    def __init__(self, seed: int, index: int):
        s = ((seed * GOLDEN) & MASK) ^ index
        self.s = []
        for _ in range(4):
            s = (s + GOLDEN) & MASK
            z = s
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def _rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & MASK

    def next(self) -> int:
        s0, s1, s2, s3 = self.s
        result = (self._rotl((s0 + s3) & MASK, 23) + s0) & MASK
        t = (s1 << 17) & MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = self._rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        return result

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32
