"""A pure-Python twin of sim/rng_kernel.py: the same counter-based stream, draw for draw.

xoshiro256++ seeded by four SplitMix64 outputs of ``seed * golden ^ game_index``;
Lemire's multiply-shift on the top 32 bits for bounded integers; the top 53 bits for
uniform floats; Fisher-Yates from the back for shuffles. Python integers are unbounded,
so every step is masked back to 64 bits.
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


def splitmix64_next(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; returns (new_state, output)."""
    state = (state + GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


class Rng:
    """The random stream of one game: ``Rng(seed, game_index)``."""

    __slots__ = ("s0", "s1", "s2", "s3")

    def __init__(self, seed: int, game_index: int):
        s = ((seed & MASK64) * GOLDEN & MASK64) ^ (game_index & MASK64)
        words = []
        for _ in range(4):
            s, out = splitmix64_next(s)
            words.append(out)
        self.s0, self.s1, self.s2, self.s3 = words

    @property
    def state(self) -> tuple[int, int, int, int]:
        return self.s0, self.s1, self.s2, self.s3

    def next_u64(self) -> int:
        """One xoshiro256++ step."""
        s0, s1, s2, s3 = self.s0, self.s1, self.s2, self.s3
        result = (_rotl((s0 + s3) & MASK64, 23) + s0) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self.s0, self.s1, self.s2, self.s3 = s0, s1, s2, s3
        return result

    def bounded(self, n: int) -> int:
        """Uniform integer in [0, n), n < 2**32 (Lemire, top 32 bits)."""
        return ((self.next_u64() >> 32) * n) >> 32

    def uniform(self) -> float:
        """Uniform float in [0, 1) from the top 53 bits."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates shuffle of ``items`` in place, from the back (as Knuth)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]
