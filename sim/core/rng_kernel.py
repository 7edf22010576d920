"""Counter-based random numbers: every game's stream depends on (seed, game index) only.

xoshiro256++ seeded by four SplitMix64 outputs of ``seed * golden ^ game_index``, with
Lemire's multiply-shift for bounded integers. All arithmetic stays in uint64: in numba
``uint64 + int`` becomes int64 and silently breaks the shifts. No kernel here allocates, so
each states ``_nrt=False``: left unset, it would take the value of whichever caller
compiled it first (tests/core/test_compile_flags.py).
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, _nrt=False, forceinline=False)
def splitmix64_next(state):
    """Advance a SplitMix64 state; returns (new_state, output)."""
    state = state + GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False, forceinline=False)
def seed_game(rng, seed, game_index):
    """Fill ``rng`` (uint64[4]) with the stream of game ``game_index`` under ``seed``."""
    s = np.uint64(seed) * GOLDEN ^ np.uint64(game_index)
    for i in range(4):
        s, out = splitmix64_next(s)
        rng[i] = out


@njit(cache=True, _nrt=False, forceinline=False)
def seed_substream(rng, seed, game_index, counter, salt):
    """Fill ``rng`` with side stream ``counter`` of game ``game_index`` under ``seed``: from
    those and ``salt`` only, and apart from the game's own stream (seed_game's). The search
    players seed each decision's samples with it, each game with its own salt."""
    s = np.uint64(seed) * GOLDEN ^ np.uint64(game_index)
    s ^= (np.uint64(counter) + np.uint64(1)) * np.uint64(0xD1B54A32D192ED03) ^ salt
    for i in range(4):
        s, out = splitmix64_next(s)
        rng[i] = out


@njit(cache=True, inline="always")
def step(s0, s1, s2, s3):
    """``next_u64`` on a state held in local variables: (output, s0, s1, s2, s3). For
    loops of many draws, which can keep the state out of memory."""
    result = _rotl(s0 + s3, 23) + s0
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(cache=True, _nrt=False, forceinline=True)
def next_u64(rng):
    """xoshiro256++ step on the state array ``rng``."""
    result, s0, s1, s2, s3 = step(rng[0], rng[1], rng[2], rng[3])
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
    return result


@njit(cache=True, inline="always")
def bounded_of(x, n):
    """``bounded``'s integer in [0, n) from the generator output ``x``."""
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, _nrt=False, forceinline=False)
def bounded(rng, n):
    """Uniform integer in [0, n) by Lemire's multiply-shift on the top 32 bits (n < 2**32)."""
    x = next_u64(rng) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, _nrt=False, forceinline=True)
def uniform(rng):
    """Uniform float in [0, 1) from the top 53 bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False, forceinline=False)
def shuffle(rng, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place (from the back, as Knuth)."""
    for i in range(n - 1, 0, -1):
        j = bounded(rng, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
