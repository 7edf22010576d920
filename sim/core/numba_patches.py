"""Every change to numba's own code, in one module: patches that make a cold compile cheaper.

Each patch changes how much numba compiles, never what a kernel computes: with the patches
off every game is the same, game for game (``.ci/run`` runs tests/test_game_checksums.py
with ``CARDSIM_NUMBA_PATCHES=0``), and nothing needs them to be correct.

* They are installed only by :func:`install`, which ``sim.core.compile_cache`` calls
  before it compiles a game's kernels (and its helper process before it compiles its
  plan); importing a kernel module installs nothing.
* ``CARDSIM_NUMBA_PATCHES=0`` installs none; a comma-separated list of names installs
  those only (for benchmarks/numba_patches.py, which measures each); unset or ``1``:
  every patch.
* Each is installed only on the numba versions it was tested against
  (``TESTED_NUMBA``); on any other numba the kernels compile with numba's own code,
  slower to compile and the same games. pyproject.toml pins numba's minor versions.
* Each was kept because it saves at least 10 % of the CPU time of a cold compile
  (benchmarks/numba_patches.py: medians of alternating cold compiles from an empty cache
  directory, one process, with and without it).

The numba cache directory (``sim/__init__.py``) is keyed on which patches are on, so a
compile without them never loads code compiled with them.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from importlib import metadata
from typing import Callable

ENV = "CARDSIM_NUMBA_PATCHES"
TESTED_NUMBA = ("0.68.1",)   # exact versions each patch was measured and tested on
PROJECT_PREFIX = "sim."      # the project's kernels: modules under sim/


@dataclass(frozen=True)
class Patch:
    name: str
    what: str                       # one line: what it replaces and why it is cheaper
    install: Callable[[], None]     # idempotent


def numba_version() -> str | None:
    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return None


def requested() -> tuple[str, ...] | None:
    """The patch names ``CARDSIM_NUMBA_PATCHES`` asks for (None: every patch)."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in ("", "1", "on", "all"):
        return None
    if raw in ("0", "off", "none"):
        return ()
    names = tuple(sorted({part.strip() for part in raw.split(",") if part.strip()}))
    unknown = [n for n in names if n not in PATCH_NAMES]
    if unknown:
        raise ValueError(f"{ENV}: unknown patch {', '.join(unknown)}; patches: "
                         f"{', '.join(PATCH_NAMES)} (or 0 for none)")
    return names


def enabled() -> tuple[str, ...]:
    """The patches :func:`install` installs here: those requested, on a tested numba."""
    if numba_version() not in TESTED_NUMBA:
        return ()
    wanted = requested()
    return PATCH_NAMES if wanted is None else tuple(n for n in PATCH_NAMES if n in wanted)


def cache_label() -> str:
    """A suffix for the numba cache directory naming the patches that are on ("" for the
    default: every patch on a tested numba)."""
    on = enabled()
    if on == PATCH_NAMES:
        return ""
    return "-patches-" + ("+".join(on) if on else "off")


_lock = threading.Lock()
_installed: list[str] = []


def install() -> tuple[str, ...]:
    """Install the enabled patches (once per process; safe from several threads).
    Returns the names installed so far."""
    with _lock:
        for patch in PATCHES:
            if patch.name in enabled() and patch.name not in _installed:
                patch.install()
                _installed.append(patch.name)
        return tuple(_installed)


def _is_project(func) -> bool:
    return (getattr(func, "__module__", "") or "").startswith(PROJECT_PREFIX)


# ---------------------------------------------------------------- unliteral
def _install_unliteral() -> None:
    """Calls between the project's kernels compile one version per plain argument types.

    When a kernel calls another ``@njit`` function, numba types the call with the
    arguments' *literal* types where it can (``_ev(trace, st, rnd, EV_DEAL, c, 0, 0, 0)``
    is typed with ``Literal[int](3)``, ...), and again as type inference refines a
    variable (``x = 0`` is first ``Literal[int](0)``, later ``int64``). Each distinct tuple
    of argument types is a full compile of the callee and of everything it inlines. Here a
    literal argument converts to its plain type at the call, as it would from Python: the
    same code runs on the same values; only the number of copies compiled changes. Calls
    into numba's own and other libraries' functions keep numba's behaviour."""
    from numba.core import types
    from numba.core.dispatcher import Dispatcher

    original = Dispatcher.get_call_template

    def get_call_template(self, args, kws):
        if self._can_compile and _is_project(self.py_func):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template.numba_original = original
    get_call_template.__doc__ = original.__doc__
    Dispatcher.get_call_template = get_call_template


# ---------------------------------------------------------------- inline_memo
def _install_inline_memo() -> None:
    """Each ``inline='always'`` kernel is translated once per process.

    numba inlines such a function by running its whole untyped pipeline (bytecode to IR,
    rewrites, and the inlining of *its* inline callees, recursively) again at every call
    site, then deep-copies the resulting IR into the caller. The IR depends only on the
    function (and the pipeline flags), and numba copies it before changing it, so the
    first result per function is kept and handed to numba again: the same IR."""
    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    original = worker.run_untyped_passes
    memo: dict = {}

    def run_untyped_passes(self, func, enable_ssa=False):
        if not _is_project(func):
            return original(self, func, enable_ssa)
        flags = self.flags
        key = (func, func.__code__, enable_ssa, getattr(flags, "no_rewrites", None),
               getattr(flags, "auto_parallel", None) is not None
               and bool(getattr(flags.auto_parallel, "enabled", False)))
        ir = memo.get(key)
        if ir is None:
            ir = memo[key] = original(self, func, enable_ssa)
        else:
            flags.enable_ssa = enable_ssa  # as numba's own sets it for the callee
        return ir  # inline_ir deep-copies the callee IR before changing it

    run_untyped_passes.numba_original = original
    run_untyped_passes.memo = memo
    worker.run_untyped_passes = run_untyped_passes


# ---------------------------------------------------------------- single_copy (measured only)
_BLOCKWISE_COPY = """
            kernel_copy.blocks = {}
            for block_label, block in the_ir.blocks.items():
                new_block = copy.deepcopy(the_ir.blocks[block_label])
                kernel_copy.blocks[block_label] = new_block
"""
_ONE_COPY = """
            kernel_copy.blocks = copy.deepcopy(the_ir.blocks)  # one scope copy for all blocks
"""


def _install_single_copy() -> None:
    """numba's copy of an inlined callee's IR deep-copies it block by block, each block
    with its own copy of the callee's variable scope: one deep copy of all blocks."""
    import inspect
    import textwrap

    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    original = worker.inline_ir
    source = textwrap.dedent(inspect.getsource(original))
    old = textwrap.indent(textwrap.dedent(_BLOCKWISE_COPY), " " * 8)
    if old not in source:
        return
    namespace = dict(vars(inline_closurecall))
    exec(compile(source.replace(old, textwrap.indent(textwrap.dedent(_ONE_COPY), " " * 8)),
                 inline_closurecall.__file__, "exec"), namespace)
    patched = namespace["inline_ir"]
    patched.numba_original = original
    worker.inline_ir = patched


# ---------------------------------------------------------------- flags
def _install_flag_compare() -> None:
    """Compile flags hash and compare without building a dict of their ~40 options.

    numba looks up each typed call's implementation in a cache keyed on the compile flags;
    its ``TargetConfig.__hash__`` hashes ``tuple(sorted(self.values()))`` and ``__eq__``
    compares ``self.values()``, each a dict of every option read through a property. The
    hash here is of the option *names* only (the same for every flags object of a class,
    so computed once per class: equal objects still hash equal), and two flags compare on
    the options either has stored (the others are both at their defaults): the same
    results, so every lookup finds the same entry."""
    from numba.core import targetconfig

    config = targetconfig.TargetConfig
    original = (config.__hash__, config.__eq__)
    hashes: dict[type, int] = {}

    def __hash__(self):
        cls = type(self)
        if cls not in hashes:
            hashes[cls] = hash(tuple(sorted(self.options)))
        return hashes[cls]

    def __eq__(self, other):
        if not isinstance(other, config):
            return NotImplemented
        if self.options is not other.options:
            return self.values() == other.values()
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        options = self.options      # equal unless a stored option differs, defaults filled in
        return all(mine.get(k, options[k].default) == theirs.get(k, options[k].default)
                   for k in mine.keys() | theirs.keys())

    __hash__.numba_original, __eq__.numba_original = original
    config.__hash__, config.__eq__ = __hash__, __eq__


PATCHES = (
    Patch("unliteral", "Dispatcher.get_call_template: no literal specializations between "
          "project kernels", _install_unliteral),
    Patch("inline_memo", "InlineWorker.run_untyped_passes: an inline kernel's IR built once",
          _install_inline_memo),
    Patch("single_copy", "InlineWorker.inline_ir: one deep copy of a callee's blocks",
          _install_single_copy),
    Patch("flags", "TargetConfig.__hash__/__eq__ without a dict of every option",
          _install_flag_compare),
)
PATCH_NAMES = tuple(p.name for p in PATCHES)
