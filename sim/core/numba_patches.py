"""Every change to numba's own code, in one module: patches that make a cold compile cheaper.

Each patch changes how much numba compiles, never what a kernel computes: with the patches
off every game is the same, game for game (``.ci/run`` runs tests/core/test_game_checksums.py
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
  directory, one process, with every patch and with every patch but it; numba 0.68.1;
  benchmarks/numba_patches*.md): ``unliteral`` 24 % of Peer-to-Peer's, 21 % of PLAI's;
  ``single_copy`` 26 % of Peer-to-Peer's (PLAI's, whose inlined kernels are small: 5 to
  25 % in different runs, within this VM's drift). Two more were measured and removed:
  keeping an inline kernel's untyped IR per process (3-8 %) and a cheaper hash and
  equality of numba's compile flags (7-10 %).

The numba cache directory (``sim/__init__.py``) is keyed on which patches are on, so a
compile without them never loads code compiled with them.
"""
from __future__ import annotations

import copy
import functools
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


@functools.cache
def numba_version() -> str | None:
    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return None


def requested() -> tuple[str, ...] | None:
    """The patch names ``CARDSIM_NUMBA_PATCHES`` asks for (None: every patch)."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in ("", "1", "on", "true", "yes", "all"):
        return None
    if raw in ("0", "off", "false", "no", "none"):
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


# ---------------------------------------------------------------- single_copy
def _install_single_copy() -> None:
    """An inlined callee's IR is copied with one deep copy of all its blocks.

    numba's ``InlineWorker.inline_ir`` copies the callee's IR (twice) block by block, each
    block's deep copy with its own copy of the callee's whole variable scope: quadratic in
    the callee's size, so a large kernel inlined into another cost more than all the rest
    of its inlining (numba#8989). ``_inline_ir`` below is numba 0.68.1's ``inline_ir``
    (numba/core/inline_closurecall.py, BSD-2-Clause, (c) Anaconda, Inc. and others) with
    that copy made one ``copy.deepcopy`` of the blocks: the same IR, one scope copy."""
    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    original = worker.inline_ir
    _inline_ir.numba_original = original
    worker.inline_ir = _inline_ir


def _copy_ir(the_ir):
    kernel_copy = the_ir.copy()
    kernel_copy.blocks = copy.deepcopy(the_ir.blocks)   # numba: one deepcopy per block
    return kernel_copy


def _inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
    """numba 0.68.1's InlineWorker.inline_ir with _copy_ir (see _install_single_copy)."""
    from numba.core import inline_closurecall as ic
    from numba.core import ir, ir_utils

    callee_ir = _copy_ir(callee_ir)
    if self.validator is not None:
        self.validator(callee_ir)
    callee_ir_original = _copy_ir(callee_ir)
    scope = block.scope
    instr = block.body[i]
    call_expr = instr.value
    callee_blocks = callee_ir.blocks

    # 1. relabel callee_ir by adding an offset
    max_label = max(ir_utils._the_max_label.next(), max(caller_ir.blocks.keys()))
    callee_blocks = ic.add_offset_to_labels(callee_blocks, max_label + 1)
    callee_blocks = ic.simplify_CFG(callee_blocks)
    callee_ir.blocks = callee_blocks
    min_label = min(callee_blocks.keys())
    max_label = max(callee_blocks.keys())
    ir_utils._the_max_label.update(max_label)
    self.debug_print("After relabel")
    ic._debug_dump(callee_ir)

    # 2. rename all local variables in callee_ir with new locals created in caller_ir
    callee_scopes = ic._get_all_scopes(callee_blocks)
    self.debug_print("callee_scopes = ", callee_scopes)
    assert (len(callee_scopes) == 1)
    callee_scope = callee_scopes[0]
    var_dict = {}
    for var in tuple(callee_scope.localvars._con.values()):
        if not (var.name in callee_freevars):
            inlined_name = ic._created_inlined_var_name(callee_ir.func_id.unique_name,
                                                        var.name)
            new_var = scope.redefine(inlined_name, loc=var.loc)
            callee_scope.redefine(inlined_name, loc=var.loc)
            var_dict[var.name] = new_var
    self.debug_print("var_dict = ", var_dict)
    ic.replace_vars(callee_blocks, var_dict)
    self.debug_print("After local var rename")
    ic._debug_dump(callee_ir)

    # 3. replace formal parameters with actual arguments
    callee_func = callee_ir.func_id.func
    args = ic._get_callee_args(call_expr, callee_func, block.body[i].loc, caller_ir)

    # 4. Update typemap
    if self._permit_update_type_and_call_maps:
        if arg_typs is None:
            raise TypeError('arg_typs should have a value not None')
        self.update_type_and_call_maps(callee_ir, arg_typs)
        callee_blocks = callee_ir.blocks

    self.debug_print("After arguments rename: ")
    ic._debug_dump(callee_ir)

    ic._replace_args_with(callee_blocks, args)
    # 5. split caller blocks into two
    new_blocks = []
    new_block = ir.Block(scope, block.loc)
    new_block.body = block.body[i + 1:]
    new_label = ic.next_label()
    caller_ir.blocks[new_label] = new_block
    new_blocks.append((new_label, new_block))
    block.body = block.body[:i]
    block.body.append(ir.Jump(min_label, instr.loc))

    # 6. replace Return with assignment to LHS
    topo_order = ic.find_topo_order(callee_blocks)
    ic._replace_returns(callee_blocks, instr.target, new_label)

    if (instr.target.name in caller_ir._definitions
            and call_expr in caller_ir._definitions[instr.target.name]):
        caller_ir._definitions[instr.target.name].remove(call_expr)

    # 7. insert all new blocks, and add back definitions
    for label in topo_order:
        block = callee_blocks[label]
        block.scope = scope
        ic._add_definitions(caller_ir, block)
        caller_ir.blocks[label] = block
        new_blocks.append((label, block))
    self.debug_print("After merge in")
    ic._debug_dump(caller_ir)

    return callee_ir_original, callee_blocks, var_dict, new_blocks


PATCHES = (
    Patch("unliteral", "Dispatcher.get_call_template: no literal specializations between "
          "project kernels", _install_unliteral),
    Patch("single_copy", "InlineWorker.inline_ir: one deep copy of a callee's blocks",
          _install_single_copy),
)
PATCH_NAMES = tuple(p.name for p in PATCHES)
