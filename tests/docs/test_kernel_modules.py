"""The kernel conventions the compile cache relies on (DEVELOPERS: compiled core, kernels only).

- every numba-compiled function in sim/ lives in a ``*_kernel.py`` module;
- kernel modules import from the project only other kernel modules and the
  ``constants`` / ``features`` / ``noalias`` modules, so sim.source_hash() covers
  everything a cached kernel is compiled from.
"""
import ast
from pathlib import Path

import sim

PACKAGE = Path(sim.__file__).resolve().parent
HASHED = {p.resolve() for p in sim.kernel_sources()}


def _module_path(name: str) -> Path:
    return PACKAGE.parent.joinpath(*name.split(".")).with_suffix(".py")


def _decorator_names(node) -> set[str]:
    names = set()
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def test_numba_functions_live_only_in_kernel_modules():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _decorator_names(node) & {"njit", "jit"}:
                if not path.name.endswith("_kernel.py"):
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert not offenders, offenders


def test_kernel_sources_cover_every_layer_that_holds_kernels():
    """The shared kernels and the compiler pipeline in sim/core/ are hashed, next to every
    game's kernels, constants and features."""
    hashed = {p.relative_to(PACKAGE).as_posix() for p in HASHED}
    assert {"core/rng_kernel.py", "core/lanes_kernel.py", "core/noalias.py"} <= hashed
    for game in ("peer_to_peer", "plai"):
        assert {f"games/{game}/constants.py", f"games/{game}/features.py",
                f"games/{game}/engine_kernel.py"} <= hashed


def test_kernel_modules_import_only_hashed_project_modules():
    kernels = [p for p in PACKAGE.rglob("*_kernel.py")]
    assert len(kernels) >= 5  # rng, the Peer-to-Peer and PLAI kernels
    for path in kernels:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim"):
                target = _module_path(node.module)
                assert target.resolve() in HASHED, f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("sim"), f"{path.name} imports {alias.name}"


def test_source_hash_follows_kernel_sources_only(tmp_path):
    import shutil

    copy = tmp_path / "sim"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = sim.source_hash(copy)
    assert before == sim.source_hash()
    command = copy / "cli" / "run.py"
    command.write_text(command.read_text() + "\n# not a kernel\n")
    assert sim.source_hash(copy) == before
    kernel = copy / "games" / "peer_to_peer" / "engine_kernel.py"
    kernel.write_text(kernel.read_text() + "\n# touched\n")
    assert sim.source_hash(copy) != before
    constants = copy / "games" / "plai" / "constants.py"
    changed = sim.source_hash(copy)
    constants.write_text(constants.read_text() + "\n# touched\n")
    assert sim.source_hash(copy) != changed
