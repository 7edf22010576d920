"""Imports point down only, and no module uses another module's ``_private`` names
(DEVELOPERS: "Imports point one way").

Every import of sim/, reports/ and strategies/ is read from the source (AST), including
the imports inside functions, which nothing else would notice until they run. Each module
belongs to a layer; a module may import its own layer and the layers below it:

    core (sim, sim.core)  <-  games (sim.games.<g>, strategies.<g>)  <-  runs (sim.runs)
    <-  reports  <-  studies (sim.studies)  <-  api (sim.api)  <-  workbench (sim.workbench)
    <-  cli (sim.cli)

A game is one package: sim.games.<g> and strategies.<g> import no other game. Within a
layer the imports form no circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

ROOT = REPO_ROOT
PACKAGES = ("sim", "reports", "strategies")

# (layer, module prefixes), bottom first; the longest matching prefix decides.
LAYERS = (
    ("core", ("sim", "sim.core")),
    ("games", ("sim.games", "strategies")),
    ("runs", ("sim.runs",)),
    ("reports", ("reports",)),
    ("studies", ("sim.studies",)),
    ("api", ("sim.api",)),
    ("workbench", ("sim.workbench",)),   # the web page: uses the API, only the CLI uses it
    ("cli", ("sim.cli",)),
)
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str:
    best, best_len = None, -1
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = name, len(prefix)
    if best is None:
        raise AssertionError(f"module {module} belongs to no layer; add it to LAYERS")
    return best


def game_of(module: str) -> str | None:
    """'plai' for sim.games.plai.* and strategies.plai.*; None outside the games."""
    parts = module.split(".")
    if parts[:2] == ["sim", "games"] and len(parts) > 2:
        return parts[2]
    if parts[0] == "strategies" and len(parts) > 1:
        return parts[1]
    return None


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def scan(root: Path):
    """(imports, private): imports = [(module, imported module, line)]; private =
    [(module, 'target._name', line)] for every ``_name`` of another module it uses."""
    mods = modules(root)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    imports, private = [], []
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        aliases = {}  # local name -> project module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = resolve(alias.name)
                    if target and target != module:
                        imports.append((module, target, node.lineno))
                        if alias.name in mods:
                            aliases[alias.asname or alias.name.split(".")[0]] = (
                                alias.name if alias.asname else alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}" if base else alias.name
                    target = resolve(full) if full in mods else resolve(base)
                    if not target or target == module:
                        continue
                    imports.append((module, target, node.lineno))
                    if full in mods:
                        aliases[alias.asname or alias.name] = full
                    elif alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append((module, f"{target}.{alias.name}", node.lineno))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and aliases[node.value.id] != module
                    and node.attr.startswith("_") and not node.attr.startswith("__")
                    and f"{aliases[node.value.id]}.{node.attr}" not in mods):
                private.append((module, f"{aliases[node.value.id]}.{node.attr}", node.lineno))
    return imports, private


def upward_imports(imports) -> list[str]:
    bad = []
    for module, target, line in imports:
        mine, theirs = layer_of(module), layer_of(target)
        if RANK[theirs] > RANK[mine]:
            bad.append(f"{module}:{line} ({mine}) imports {target} ({theirs}), a higher layer")
        own, other = game_of(module), game_of(target)
        if own and other and own != other:
            bad.append(f"{module}:{line} (game {own}) imports {target} (game {other})")
    return bad


def circles(imports) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for module, target, _ in imports:
        graph.setdefault(module, set()).add(target)
        graph.setdefault(target, set())
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


@pytest.fixture(scope="module")
def graph():
    return scan(ROOT)


def test_every_module_has_a_layer(graph):
    names = {name for name, _ in LAYERS}
    found = list(modules(ROOT))
    assert len(found) > 50
    assert all(layer_of(module) in names for module in found)  # raises on a stray module


def test_imports_point_down_only(graph):
    imports, _ = graph
    assert len(imports) > 100  # the scan sees the tree (function-level imports included)
    assert upward_imports(imports) == []


def test_no_module_uses_another_modules_private_names(graph):
    _, private = graph
    assert [f"{m}:{line} uses {name}" for m, name, line in private] == []


def test_no_import_circles(graph):
    imports, _ = graph
    assert circles(imports) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    return tmp_path


def test_the_checks_see_what_they_forbid(tmp_path):
    """The scan catches an upward import hidden in a function, a private name (imported or
    used as an attribute), a cross-game import and a circle; a downward import passes."""
    root = _tree(tmp_path, {
        "sim/core/__init__.py": "",
        "sim/core/errors.py": "def _hidden():\n    pass\n",
        "sim/core/bad.py": "def f():\n    from sim.runs import setup\n",
        "sim/runs/__init__.py": "",
        "sim/runs/setup.py": "from sim.core.errors import _hidden\nfrom sim.core import errors\n"
                             "x = errors._hidden\n",
        "sim/games/__init__.py": "",
        "sim/games/a/__init__.py": "from sim.games.b import thing\n",
        "sim/games/b/__init__.py": "thing = 1\nimport sim.games.c\n",
        "sim/games/c.py": "import sim.games.b\n",
        "reports/ok.py": "from sim.runs.setup import x\n",
    })
    imports, private = scan(root)
    bad = upward_imports(imports)
    assert any(b.startswith("sim.core.bad:2 (core) imports sim.runs.setup (runs)") for b in bad)
    assert any("(game a) imports sim.games.b (game b)" in b for b in bad)
    assert not any(b.startswith("reports.ok") for b in bad)
    assert sorted((m, name) for m, name, _ in private) == [
        ("sim.runs.setup", "sim.core.errors._hidden"), ("sim.runs.setup", "sim.core.errors._hidden")]
    assert circles(imports) == [["sim.games.b", "sim.games.c"]]
