"""The CPU's time-stamp counter inside compiled code, for benchmarks/p2p_profile.py.

``cycles()`` reads LLVM's ``readcyclecounter`` (RDTSC on x86-64: a constant-rate counter,
about 25 cycles a read, not serialising). p2p_profile.py copies this module into a patched
copy of the tree (as sim/core/cycles_kernel.py) and times the engine's parts with it; the
project itself never imports it.
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def cycles(typingctx):
    """The time-stamp counter, as int64."""
    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=ir.FunctionType(
            ir.IntType(64), []))
        return builder.call(fn, [])

    return types.int64(), codegen
