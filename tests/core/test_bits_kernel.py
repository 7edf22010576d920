"""lowest_bit (sim/core/bits_kernel.py): the index of a word's lowest set bit."""
import numpy as np
from numba import njit

from sim.core.bits_kernel import lowest_bit


@njit
def _lowest_bits(words, out):
    for i in range(words.shape[0]):
        out[i] = lowest_bit(words[i])


def _expected(word):
    bits = int(word) & (2**64 - 1)
    return (bits & -bits).bit_length() - 1 if bits else 64


def test_every_single_bit_and_zero():
    words = np.array([0] + [1 << k for k in range(63)], np.int64)
    words = np.append(words, np.iinfo(np.int64).min)   # bit 63 alone
    out = np.empty_like(words)
    _lowest_bits(words, out)
    assert out.tolist() == [64] + list(range(64))


def test_random_words_match_python():
    rng = np.random.default_rng(11)
    words = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 2000, dtype=np.int64)
    words[::3] >>= rng.integers(0, 63, words[::3].shape[0])   # fewer high bits
    words[1::5] &= -words[1::5]   # a single set bit
    out = np.empty_like(words)
    _lowest_bits(words, out)
    assert out.tolist() == [_expected(w) for w in words]


def test_python_gives_the_same_answer_with_the_jit_off():
    """NUMBA_DISABLE_JIT=1 runs the kernels as Python, where lowest_bit is plain Python."""
    rng = np.random.default_rng(12)
    words = [0, 1, -1, np.iinfo(np.int64).min,
             *rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 500, dtype=np.int64)]
    assert [lowest_bit(w) for w in words] == [_expected(w) for w in words]
