"""Every compiled kernel says whether LLVM must inline it (``forceinline``).

numba gives a kernel whose own options leave ``forceinline`` unset the value of the
kernel it is being compiled for (numba#7168: flags are inherited from the caller).
So a plain kernel first compiled inside a ``forceinline=True`` caller is marked
alwaysinline, and the same kernel compiled on its own (by the compile helper, another
command, or a test) is not: the machine code of the games depended on what compiled
first. Compiled in one process, Peer-to-Peer's general commit search was inlined into
the round loop, and greedy's games took 1.13 times as long as after a compile with
the helper. A kernel that states its own ``forceinline`` compiles the same way in every
order.
"""
import importlib
import pkgutil

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


def _alwaysinline(kernel, name: str) -> bool:
    ir = next(iter(kernel.inspect_llvm().values()))
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


def test_every_compiled_kernel_states_forceinline():
    unstated = [name for name, kernel in _kernels()
                if kernel.targetoptions.get("inline", "never") != "always"
                and "forceinline" not in kernel.targetoptions]
    assert unstated == []
