"""Every compiled kernel states the flags numba would otherwise take from its caller:
whether LLVM must inline it (``forceinline``) and whether it may use numba's reference
counting (``_nrt``).

numba gives a kernel whose own options leave such a flag unset the value of the kernel
it is being compiled for (numba#7168: flags are inherited from the caller). So a plain
kernel first compiled inside a ``forceinline=True`` caller is marked alwaysinline, and
the same kernel compiled on its own (by the compile helper, another command, or a test)
is not: the machine code of the games depended on what compiled first. Compiled in one
process, Peer-to-Peer's general commit search was inlined into the round loop, and
greedy's games took 1.13 times as long as after a compile with the helper. ``_nrt`` is
passed on the same way: the core's game seeding, compiled first for PLAI's fights, kept
reference-count calls that Peer-to-Peer's compile of it has not. A kernel that states
both compiles the same way in every order.
"""
import importlib
import pkgutil

import numpy as np
import pytest
from numba import njit
from numba.core.registry import CPUDispatcher

import sim.core
import sim.games


def _packages():
    """sim.core and every game's package (a new game is held to the rule too)."""
    yield sim.core
    for info in pkgutil.iter_modules(sim.games.__path__):
        if info.ispkg:
            yield importlib.import_module(f"sim.games.{info.name}")


def _kernels():
    for package in _packages():
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.endswith("_kernel"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                own = isinstance(value, CPUDispatcher) and (
                    value.py_func.__module__ == module.__name__)
                if own:
                    yield f"{module.__name__}.{name}", value


def _llvm_ir(kernel) -> str:
    """The LLVM IR of the kernel's (one) compiled signature."""
    return next(iter(kernel.inspect_llvm().values()))


def _alwaysinline(kernel, name: str) -> bool:
    ir = _llvm_ir(kernel)
    line = next(line for line in ir.splitlines()
                if line.startswith("define") and f"{name}B" in line and "cpython" not in line
                and "cfunc" not in line)
    number = line.rsplit("#", 1)[1].split()[0]
    attributes = next(a for a in ir.splitlines() if a.startswith(f"attributes #{number} "))
    return "alwaysinline" in attributes


def test_numba_passes_forceinline_to_a_callee_that_leaves_it_unset():
    """The hazard itself: the same callee compiled first for a forceinline caller is
    alwaysinline, unless it states forceinline=False."""
    def leaf(x):
        return x * 3 + 1

    plain = njit(leaf)
    stated = njit(forceinline=False)(leaf)

    @njit(forceinline=True)
    def caller(x):
        return plain(x) + stated(x)

    assert caller(2) == 14
    assert _alwaysinline(plain, "leaf")
    assert not _alwaysinline(stated, "leaf")


def _nrt_calls(kernel) -> int:
    return sum(1 for line in _llvm_ir(kernel).splitlines() if "call" in line and "@NRT_" in line)


def test_numba_passes_nrt_to_a_callee_that_leaves_it_unset():
    """The same callee keeps reference-count calls when compiled first for a caller with
    numba's default ``_nrt``, and none for a ``_nrt=False`` caller, unless it states it."""
    def compiled(caller_options):
        @njit(forceinline=False)
        def split(s):
            return s + np.uint64(1), s * np.uint64(3)

        def fill(out, seed):
            s = np.uint64(seed)
            for i in range(4):
                s, value = split(s)
                out[i] = value

        plain = njit(forceinline=False)(fill)
        stated = njit(forceinline=False, _nrt=False)(fill)

        @njit(forceinline=False, **caller_options)
        def caller(out):
            plain(out, 5)
            stated(out, 5)

        caller(np.zeros(4, np.uint64))
        return _nrt_calls(plain), _nrt_calls(stated)

    assert compiled({"_nrt": False}) == (0, 0)
    plain_calls, stated_calls = compiled({})
    assert plain_calls > 0 and stated_calls == 0


@pytest.mark.parametrize("flag", ["forceinline", "_nrt"])
def test_every_compiled_kernel_states_the_inherited_flags(flag):
    unstated = [name for name, kernel in _kernels()
                if kernel.targetoptions.get("inline", "never") != "always"
                and flag not in kernel.targetoptions]
    assert unstated == []
