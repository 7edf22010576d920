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

This file is part of the kernel-source hash (``*_kernel.py``): changing the policy
recompiles.
"""
from numba.core import types
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
