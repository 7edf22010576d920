"""Calls between the project's kernels compile one version per plain argument types
(sim/core/specialize_kernel.py, issue 26): numba's literal specializations of a callee
(one per constant argument, and one more for a variable's first, literal type) were a
fifth of the Peer-to-Peer cold compile. Tiny kernels here; nothing compiles a game."""
from numba import njit, types

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
