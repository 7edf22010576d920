"""The numba patches (sim/core/numba_patches.py): off with CARDSIM_NUMBA_PATCHES=0, only on
the numba versions they were tested against, never installed by importing a kernel, and
each doing what it says. Tiny kernels here; nothing compiles a game. (That the games are
the same without them: tests/core/test_game_checksums.py, run by .ci/run with the patches off.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit, types

from sim.core import numba_patches

ROOT = Path(__file__).resolve().parents[2]
ON = numba_patches.enabled()
INSTALLED = numba_patches.install()


def _python(code: str, **env: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# ------------------------------------------------------------------ switch and gate
def test_importing_kernels_installs_no_patch():
    out = _python("import sim.games.peer_to_peer.engine_kernel, sim.games.plai.engine_kernel\n"
                  "from numba.core.dispatcher import Dispatcher\n"
                  "from numba.core.inline_closurecall import InlineWorker\n"
                  "print(hasattr(Dispatcher.get_call_template, 'numba_original'),"
                  " hasattr(InlineWorker.inline_ir, 'numba_original'))")
    assert out == "False False"


@pytest.mark.skipif(not ON, reason="numba patches are off here")
@pytest.mark.parametrize("game", ["peer-to-peer", "plai"])
def test_a_trace_compiles_with_the_patches_as_a_run_does(game):
    """A trace (and a replay of games for their per-card counts) calls its kernel without a
    run's compile step: it installs the patches itself, or it would compile other versions
    of the kernels into the cache directory named for the patches."""
    out = _python("from sim.core.game import configure\n"
                  f"configure({game!r}, 3).trace(1, 0)\n"
                  "from numba.core.dispatcher import Dispatcher\n"
                  "print(hasattr(Dispatcher.get_call_template, 'numba_original'))")
    assert out.splitlines()[-1] == "True"


def test_patches_off_installs_none_and_names_the_cache_directory():
    code = ("import os, sim; from sim.core import numba_patches as p\n"
            "print(p.install(), os.path.basename(os.environ['NUMBA_CACHE_DIR']))")
    out = _python(code, CARDSIM_NUMBA_PATCHES="0", CARDSIM_CACHE_ROOT="/tmp/cardsim-x")
    installed, directory = out.rsplit(" ", 1)
    assert installed == "()" and directory.endswith("-patches-off")
    default = _python(code, CARDSIM_NUMBA_PATCHES="", CARDSIM_CACHE_ROOT="/tmp/cardsim-x")
    if ON == numba_patches.PATCH_NAMES:   # a tested numba: every patch, the plain name
        assert "-patches-" not in default and "()" not in default


def test_an_untested_numba_gets_no_patch(monkeypatch):
    monkeypatch.setattr(numba_patches, "numba_version", lambda: "0.0.1")
    monkeypatch.delenv(numba_patches.ENV, raising=False)
    assert numba_patches.enabled() == () and numba_patches.cache_label() == "-patches-off"


def test_the_switch_takes_names_and_refuses_unknown_ones(monkeypatch):
    monkeypatch.setattr(numba_patches, "numba_version", lambda: numba_patches.TESTED_NUMBA[0])
    first = numba_patches.PATCH_NAMES[0]
    monkeypatch.setenv(numba_patches.ENV, first)
    assert numba_patches.enabled() == (first,)
    monkeypatch.setenv(numba_patches.ENV, "no_such_patch")
    with pytest.raises(ValueError, match="unknown patch no_such_patch"):
        numba_patches.enabled()


needs = pytest.mark.skipif(not ON, reason="numba patches are off here (untested numba or "
                                          "CARDSIM_NUMBA_PATCHES=0)")


# ------------------------------------------------------------------ what each patch does
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


@needs
@pytest.mark.skipif("unliteral" not in ON, reason="unliteral is off")
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


@needs
@pytest.mark.skipif("single_copy" not in ON, reason="single_copy is off")
def test_an_inlined_callee_is_copied_with_one_scope():
    import copy

    from numba.core import ir
    from numba.core.inline_closurecall import InlineWorker

    assert InlineWorker.inline_ir.numba_original is not None
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


INLINING = '''
import hashlib
from sim.core import numba_patches
numba_patches.install()
from numba import njit


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def wrap(a, b):
    t = 0
    for k in range(a):
        t += clamp(k, b, 9)
    return t


def caller(a, b, c):
    return clamp(a, 0, 9) * 100 + wrap(b, 2) * 10 + clamp(c, 0, 9)


clamp.__module__ = wrap.__module__ = caller.__module__ = "sim.games.tiny_kernel"
clamp, wrap = njit(inline="always")(clamp), njit(inline="always")(wrap)
caller = njit(caller)
print(caller(-5, 4, 12), numba_patches.install(),
      hashlib.sha256(caller.inspect_llvm(caller.signatures[0]).encode()).hexdigest())
'''


@needs
def test_kernels_with_inlined_helpers_compile_to_the_same_code_without_the_patches():
    """The same LLVM IR, with every patch and with none (fresh processes, no cache)."""
    with_patches = _python(INLINING, CARDSIM_NUMBA_PATCHES="1").split(" ", 1)
    without = _python(INLINING, CARDSIM_NUMBA_PATCHES="0").split(" ", 1)
    assert with_patches[0] == without[0] == "99"
    assert "()" in without[1] and "()" not in with_patches[1]
    assert with_patches[1].split()[-1] == without[1].split()[-1]
