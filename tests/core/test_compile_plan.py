"""Each game's compile plan (the kernels and argument types a helper process compiles
while the first run waits) names exactly what the game's engine compiles: a planned kernel
with other types would be a second compile nobody uses, and no help. Nor does a plain run
compile the kernels only a trace runs (the viewer's listings in ``view_kernel.py``).

Checked in a child process with a cache of its own and no helper, so that the cache holds
only what the engine's own run compiled: other entry points (a trace, the search player's
playouts, whose pruned branches pass some arguments as literals, tests that call a kernel
directly) fill the shared cache too, whatever ran before."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from repo_paths import subprocess_pythonpath
from sim.core.compile_cache import HELPER_ENV

CHECK = '''
import inspect, json, sys
from sim.core.game import game_modules, get_game

config = get_game(sys.argv[1]).configure(players=4)
config.play(1, 0, 2)   # compiles as any run does
found = []
for dispatcher, types in config.compile_plan():
    params = list(inspect.signature(dispatcher.py_func).parameters)
    compiled = dispatcher.signatures   # this process's compiles: the cache started empty
    found.append({"kernel": dispatcher.py_func.__name__, "planned": types in compiled,
                  "other": sorted({p for sig in compiled
                                   for p, a, b in zip(params, types, sig) if a != b})})
# trace-only kernels (the viewer's listings): a plain run must not compile them
package = game_modules()[sys.argv[1]].rpartition(".")[0]   # the game's package
view = __import__(f"{package}.view_kernel", fromlist=["_"])
views = [name for name, obj in vars(view).items()
         if getattr(getattr(obj, "py_func", None), "__module__", None) == view.__name__
         and obj.signatures]
print(json.dumps({"plan": found, "views_compiled": views}))
'''


@pytest.mark.parametrize("game", ["peer-to-peer", "plai"])
def test_each_game_plans_the_argument_types_its_entry_point_compiles_with(game, tmp_path):
    env = {**os.environ, "CARDSIM_CACHE_ROOT": str(tmp_path), HELPER_ENV: "0",
           "PYTHONPATH": subprocess_pythonpath()}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", CHECK, game], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    found = result["plan"]
    assert len(found) >= 5
    for kernel in found:
        assert kernel["planned"], kernel
        assert kernel["other"] == [], kernel
    assert result["views_compiled"] == []   # the trace's listings: compiled only to trace
