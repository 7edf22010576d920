"""A numba compiler pipeline that declares a kernel's array arguments free of aliasing.

numba cannot tell that two array arguments never share memory, so after every store
through one array the compiled code reloads what it read through the others (the card
table, the weights, the rules and the pile sizes, in a game loop that stores on almost
every line). ``NoAliasCompiler`` turns on numba's own ``noalias`` flag, which marks every
pointer argument ``noalias`` for LLVM. It is a promise: use it only for kernels whose
callers never pass two views of the same memory (and never for one that is handed the same
array twice, as ``fight_kernel.resolve_fight`` is).
"""
from numba.core.compiler import Compiler


class NoAliasCompiler(Compiler):
    """numba's default pipeline with ``flags.noalias`` set: ``@njit(pipeline_class=...)``."""

    def define_pipelines(self):
        self.state.flags.noalias = True   # this compile's own flags (a copy per signature)
        return super().define_pipelines()
