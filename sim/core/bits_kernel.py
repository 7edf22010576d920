"""The index of a word's lowest set bit in one instruction.

Hot loops visit the set bits of a mask (a hand subset, the row positions a subset can
assist) lowest first. numba has no public function for it, so ``lowest_bit`` writes the
LLVM ``cttz`` intrinsic itself, which becomes one ``tzcnt`` on x86-64 (the de Bruijn
multiply and table lookup it replaces put a multiply and a load on each bit's path).
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def lowest_bit(typingctx, word):
    """The index of the lowest set bit of the int64 ``word``; 64 for 0."""
    if not (isinstance(word, types.Integer) and word.bitwidth == 64):
        return None

    def codegen(context, builder, signature, args):
        bits = ir.IntType(64)
        cttz = builder.module.declare_intrinsic(
            "llvm.cttz", [bits], ir.FunctionType(bits, [bits, ir.IntType(1)]))
        # zero is not poison: tzcnt returns 64 for it at no cost
        return builder.call(cttz, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.int64(word), codegen
