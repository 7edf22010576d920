"""Calls between the project's kernels compile one version per plain argument types
(sim/core/specialize_kernel.py): numba's literal specializations of a callee
(one per constant argument, and one more for a variable's first, literal type) were a
fifth of the Peer-to-Peer cold compile. Tiny kernels here; nothing compiles a game."""
import copy

from numba import njit, types
from numba.core import ir

import sim.core.rng_kernel  # noqa: F401 - installs the policy, as every game kernel does


def _callee_signatures(module: str):
    def add(a, b):
        return a + b

    def flip(b):
        return not b

    add.__module__ = flip.__module__ = module
    add, flip = njit(add), njit(flip)

    def caller(n):
        x = 0          # first typed Literal[int](0), then int64
        y = False
        for i in range(n):
            x = add(x, i)
            y = flip(y)
        return add(x, 3) + add(1, 2) + (1 if y else 0)

    caller.__module__ = module
    assert njit(caller)(3) == 3 + 3 + 3 + 1
    return add.signatures, flip.signatures


def test_a_project_kernel_is_compiled_once_for_plain_types():
    add, flip = _callee_signatures("sim.games.tiny_kernel")
    assert add == [(types.int64, types.int64)]
    assert flip == [(types.boolean,)]


def test_other_code_keeps_numbas_literal_specializations():
    add, _ = _callee_signatures("someone_elses_module")
    assert (types.int64, types.int64) in add
    assert any(isinstance(t, types.Literal) for sig in add for t in sig)


def _inlining_caller(module: str):
    def clamp(x, lo, hi):  # several blocks, inlined at three call sites
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x

    clamp.__module__ = module
    clamp = njit(inline="always")(clamp)

    def caller(a, b, c):
        return clamp(a, 0, 9) * 100 + clamp(b, 0, 9) * 10 + clamp(c, 0, 9)

    caller.__module__ = module
    return clamp, njit(caller)


def test_an_inline_kernel_is_translated_once_per_process():
    from numba.core.inline_closurecall import InlineWorker

    clamp, caller = _inlining_caller("sim.games.tiny_kernel")
    assert caller(-5, 4, 12) == 49  # 0, 4, 9
    memo = InlineWorker.run_untyped_passes.memo
    assert sum(1 for key in memo if key[0] is clamp.py_func) == 1


def test_an_inlined_callee_is_copied_with_one_scope():
    from numba.core.inline_closurecall import InlineWorker

    from sim.core.specialize_kernel import NUMBA_INLINE_IR

    assert NUMBA_INLINE_IR is not None, "numba's inline_ir changed: the one-copy patch is off"
    patched = InlineWorker.inline_ir
    assert patched.numba_original is NUMBA_INLINE_IR
    seen = []
    original_copy = copy.deepcopy

    def counting(obj, memo=None):
        if isinstance(obj, dict) and obj and all(isinstance(b, ir.Block) for b in obj.values()):
            seen.append(len(obj))
        return original_copy(obj, memo)

    copy.deepcopy = counting
    try:
        _, caller = _inlining_caller("sim.games.tiny2_kernel")
        assert caller(3, 40, -1) == 390
    finally:
        copy.deepcopy = original_copy
    assert seen and all(n > 1 for n in seen)  # whole block dicts, not block by block



def test_compile_flags_hash_and_compare_as_numba_does():
    """The patched TargetConfig hash and equality give numba's own results (so its
    implementation cache finds the same entries), and are installed."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    from sim.core.specialize_kernel import NUMBA_FLAG_COMPARE

    assert NUMBA_FLAG_COMPARE is not None, "numba's TargetConfig hash/eq changed: patch off"
    numba_hash, numba_eq = NUMBA_FLAG_COMPARE
    assert targetconfig.TargetConfig.__hash__.numba_original is numba_hash
    plain, nrt, nrt_again, nrt_default = Flags(), Flags(), Flags(), Flags()
    nrt.nrt = nrt_again.nrt = True
    nrt_default.nrt = False          # set to its default: equal to the unset one
    nrt.fastmath = nrt_again.fastmath = {"nnan"}
    cases = [plain, nrt, nrt_again, nrt_default, Flags(nrt)]
    for a in cases:
        assert hash(a) == numba_hash(a)
        for b in cases:
            assert (a == b) == numba_eq(a, b), (a, b)
    assert nrt == nrt_again and plain == nrt_default and plain != nrt
    assert len({plain: 1, nrt_default: 2, nrt: 3, nrt_again: 4}) == 2
