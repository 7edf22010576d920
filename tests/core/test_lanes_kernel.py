"""equal_lanes (sim/core/lanes_kernel.py): 64 int16 comparisons read as one integer's bits."""
import numpy as np
import pytest
from numba import njit

from sim.core.lanes_kernel import LANES, equal_lanes


@njit(cache=True)
def _equal_lanes_of(lanes, value):
    return equal_lanes(lanes, value)


@pytest.fixture(scope="module")
def compiled():
    _equal_lanes_of(np.zeros(LANES, np.int16), 0)  # compile once for the module
    return _equal_lanes_of


def _bits(result):
    """The int64 result as its 64 bits (bit 63 set reads as a negative int64)."""
    return int(result) & (2**64 - 1)


def _expected(lanes, value):
    return sum(1 << m for m in range(LANES) if lanes[m] == value)


def test_each_lane_sets_its_own_bit(compiled):
    for m in range(LANES):
        lanes = np.zeros(LANES, np.int16)
        lanes[m] = 7
        assert _bits(compiled(lanes, 7)) == 1 << m


def test_random_lanes_match_a_plain_loop(compiled):
    rng = np.random.default_rng(5)
    for _ in range(200):
        lanes = rng.integers(-3, 12, LANES).astype(np.int16)
        value = int(rng.integers(-3, 12))
        assert _bits(compiled(lanes, value)) == _expected(lanes, value)


def test_only_the_first_64_items_count(compiled):
    lanes = np.full(LANES + 8, 4, np.int16)
    lanes[:LANES] = 1
    assert compiled(lanes, 4) == 0
    assert _bits(compiled(lanes, 1)) == 2**64 - 1


def test_a_non_int16_array_does_not_compile():
    from numba.core.errors import TypingError

    with pytest.raises(TypingError):
        _equal_lanes_of(np.zeros(LANES, np.int64), 0)
