"""One compiled version per kernel and argument types: no literal specializations.

When a kernel calls another ``@njit`` function, numba types the call with the arguments'
*literal* types where it can (``_ev(trace, st, rnd, EV_DEAL, c, 0, 0, 0)`` is typed with
``Literal[int](3)``, ``Literal[int](0)``, ...), and it does so again as type inference
refines a variable (``x = 0`` is first ``Literal[int](0)``, later ``int64``). Each distinct
tuple of argument types is a full compile of the callee and of everything it inlines: in
the Peer-to-Peer engine the D2 search and the D3 target choice were each compiled twice
(once for a literal that the final code never calls) and the trace writer once per call
site, for a fifth of the cold compile. Importing this module (``rng_kernel`` does, so
every game kernel has it) makes calls between the project's own kernels compile for the
non-literal types only: a literal argument converts to its plain type at the call, as
it would from Python. What a kernel computes does not change (the same code runs on the
same values); only the number of copies compiled does. Calls into numba's own and other
libraries' functions keep numba's behaviour.

The same module translates each ``inline='always'`` kernel once per process. numba
inlines such a function by running its whole untyped pipeline (bytecode to IR, rewrites,
and the inlining of *its* inline callees, recursively) again at every call site, then
deep-copies the resulting IR into the caller; the Peer-to-Peer helpers are inlined at
dozens of sites, so that re-translation was a large part of the cold compile. The IR it
produces depends only on the function (and the pipeline flags), and numba copies it
before changing it, so ``_install_inline_memo`` keeps the first result per function and
hands numba that: the compiled code is the same.

And numba's copy of an inlined callee's IR deep-copies it block by block, each block with
its own copy of the callee's whole variable scope: quadratic in the callee's size, so a
large function inlined into another (a round inlined into the game loop, say) cost more
than all the rest of its inlining. ``_install_single_copy`` makes that copy one deep copy
of all the blocks (one scope copy), the same IR.

This file is part of the kernel-source hash (``*_kernel.py``): changing the policy
recompiles.
"""
import inspect
import textwrap

from numba.core import inline_closurecall, types
from numba.core.dispatcher import Dispatcher

PROJECT_PREFIXES = ("sim.",)


def _is_project_kernel(dispatcher) -> bool:
    module = getattr(dispatcher.py_func, "__module__", "") or ""
    return module.startswith(PROJECT_PREFIXES)


def _install():
    original = Dispatcher.get_call_template
    if hasattr(original, "numba_original"):
        return original.numba_original  # installed already (module reloaded)

    def get_call_template(self, args, kws):
        if self._can_compile and _is_project_kernel(self):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template.numba_original = original
    get_call_template.__doc__ = original.__doc__
    Dispatcher.get_call_template = get_call_template
    return original


NUMBA_GET_CALL_TEMPLATE = _install()  # numba's own method, for tests


def _install_inline_memo():
    worker = inline_closurecall.InlineWorker
    original = worker.run_untyped_passes
    if hasattr(original, "numba_original"):
        return original.numba_original
    memo = {}

    def run_untyped_passes(self, func, enable_ssa=False):
        module = getattr(func, "__module__", "") or ""
        if not module.startswith(PROJECT_PREFIXES):
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
    return original


NUMBA_RUN_UNTYPED_PASSES = _install_inline_memo()  # numba's own method, for tests


_BLOCKWISE_COPY = """
            kernel_copy.blocks = {}
            for block_label, block in the_ir.blocks.items():
                new_block = copy.deepcopy(the_ir.blocks[block_label])
                kernel_copy.blocks[block_label] = new_block
"""
_ONE_COPY = """
            kernel_copy.blocks = copy.deepcopy(the_ir.blocks)  # one scope copy for all blocks
"""


def _install_single_copy():
    worker = inline_closurecall.InlineWorker
    original = worker.inline_ir
    if hasattr(original, "numba_original"):
        return original.numba_original
    try:
        source = textwrap.dedent(inspect.getsource(original))
    except (OSError, TypeError):
        return None
    old = textwrap.indent(textwrap.dedent(_BLOCKWISE_COPY), " " * 8)
    if old not in source:
        return None  # another numba: keep its own copy (slower to compile, same code)
    namespace = dict(vars(inline_closurecall))
    exec(compile(source.replace(old, textwrap.indent(textwrap.dedent(_ONE_COPY), " " * 8)),
                 inline_closurecall.__file__, "exec"), namespace)
    patched = namespace["inline_ir"]
    patched.numba_original = original
    worker.inline_ir = patched
    return original


NUMBA_INLINE_IR = _install_single_copy()  # numba's own method (None: not replaced)



# numba looks up each typed call's implementation in a cache keyed on the compile flags;
# hashing the flags and comparing them builds a dict of their ~40 options each time,
# every one read through a property: some 220,000 such dicts in one cold PLAI compile,
# 7.5 % of its CPU. The hash is of the option *names* only (``sorted`` of the dict), the
# same for every flags object of a class, so it is computed once per class; two flags are
# compared on the options either has stored (the others are both at their defaults)
# instead of on two full dicts. The results, and so every lookup, are the same.
_HASH_SOURCE = """
    def __hash__(self):
        return hash(tuple(sorted(self.values())))
"""
_EQ_SOURCE = """
    def __eq__(self, other):
        if isinstance(other, TargetConfig):
            return self.values() == other.values()
        else:
            return NotImplemented
"""


def _same_source(method, expected: str) -> bool:
    try:
        return textwrap.dedent(inspect.getsource(method)).strip() == \
            textwrap.dedent(expected).strip()
    except (OSError, TypeError):
        return False


def _install_flag_compare():
    from numba.core import targetconfig

    config = targetconfig.TargetConfig
    original = (config.__hash__, config.__eq__)
    if hasattr(original[0], "numba_original"):
        return original[0].numba_original, original[1].numba_original
    if not (_same_source(original[0], _HASH_SOURCE) and _same_source(original[1], _EQ_SOURCE)):
        return None  # another numba: keep its own (slower to compile, same lookups)
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
    return original


NUMBA_FLAG_COMPARE = _install_flag_compare()  # numba's (hash, eq) (None: not replaced)
