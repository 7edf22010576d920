"""The index of a word's lowest set bit in one instruction.

Hot loops visit the set bits of a mask (a hand subset, the row positions a subset can
assist) lowest first. numba has no public function for it, so compiled code gets LLVM's
``cttz`` intrinsic, written here, which becomes one ``tzcnt`` on x86-64 (the de Bruijn
multiply and table lookup it replaces put a multiply and a load on each bit's path).
With numba's JIT disabled (NUMBA_DISABLE_JIT=1, the kernels run as Python) the same
answer comes from Python's integers.
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload


def lowest_bit(word):
    """The index of the lowest set bit of the int64 ``word``; 64 for 0."""
    word = int(word) & (2**64 - 1)
    return (word & -word).bit_length() - 1 if word else 64


@intrinsic
def _count_trailing_zeros(typingctx, word):
    if not (isinstance(word, types.Integer) and word.bitwidth == 64):
        return None

    def codegen(context, builder, signature, args):
        bits = ir.IntType(64)
        cttz = builder.module.declare_intrinsic(
            "llvm.cttz", [bits], ir.FunctionType(bits, [bits, ir.IntType(1)]))
        # zero is not poison: tzcnt returns 64 for it at no cost
        return builder.call(cttz, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.int64(word), codegen


@overload(lowest_bit, inline="always")
def _lowest_bit(word):
    if isinstance(word, types.Integer) and word.bitwidth == 64:
        return lambda word: _count_trailing_zeros(word)
    return None
