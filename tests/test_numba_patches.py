"""The numba patches (sim/core/numba_patches.py): off with CARDSIM_NUMBA_PATCHES=0, only on
the numba versions they were tested against, never installed by importing a kernel, and
each doing what it says. Tiny kernels here; nothing compiles a game. (That the games are
the same without them: tests/test_game_checksums.py, run by .ci/run with the patches off.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit, types

from sim.core import numba_patches

ROOT = Path(__file__).resolve().parent.parent
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
                  "from numba.core.targetconfig import TargetConfig\n"
                  "print(hasattr(Dispatcher.get_call_template, 'numba_original'),"
                  " hasattr(TargetConfig.__hash__, 'numba_original'))")
    assert out == "False False"


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
@pytest.mark.skipif("inline_memo" not in ON, reason="inline_memo is off")
def test_an_inline_kernel_is_translated_once_per_process():
    from numba.core.inline_closurecall import InlineWorker

    clamp, caller = _inlining_caller("sim.games.tiny_kernel")
    assert caller(-5, 4, 12) == 49  # 0, 4, 9
    memo = InlineWorker.run_untyped_passes.memo
    assert sum(1 for key in memo if key[0] is clamp.py_func) == 1


@needs
@pytest.mark.skipif("flags" not in ON, reason="flags is off")
def test_compile_flags_hash_and_compare_as_numba_does():
    """The patched TargetConfig hash and equality give numba's own results (so its
    implementation cache finds the same entries)."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    numba_hash = targetconfig.TargetConfig.__hash__.numba_original
    numba_eq = targetconfig.TargetConfig.__eq__.numba_original
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
