"""sim.core.noalias.NoAliasCompiler: numba's own noalias flag, set by a pipeline class (the
PLAI game loop, engine_kernel.play_rest, is compiled with it)."""
import numpy as np
from numba import njit

from sim.core.noalias import NoAliasCompiler


def _add_into(a, b):
    for i in range(a.shape[0]):
        a[i] += b[i]


def _signature_line(kernel) -> str:
    ir = next(iter(kernel.inspect_llvm().values()))
    return next(line for line in ir.splitlines()
                if line.startswith("define") and "_add_into" in line)


def test_the_pipeline_marks_array_arguments_noalias_and_computes_the_same():
    marked = njit(pipeline_class=NoAliasCompiler)(_add_into)
    plain = njit(_add_into)
    a, b = np.arange(4.0), np.ones(4)
    marked(a, b)
    plain(a, b)
    assert np.array_equal(a, np.arange(4.0) + 2)
    # numba marks its own return and exception pointers noalias; the pipeline adds the
    # pointers of both arrays (their data and bookkeeping pointers).
    assert _signature_line(marked).count("noalias") >= _signature_line(plain).count("noalias") + 2


def test_the_plai_game_loop_is_compiled_with_it():
    from sim.games.plai import engine_kernel as ek

    assert ek.play_rest._compiler.pipeline_class is NoAliasCompiler
