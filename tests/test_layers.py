"""Imports flow one way (DESIGN.md): no module of lpgame imports one of a higher layer, no two
modules import each other (directly or through others, even inside one layer or one folder), no
module imports another module's private name, and no module grows past what a reader can hold.

Layers, from the bottom:

0. errors, limits, rational, registry (data only), io.json_io, moved_modules (old import paths),
   number_format (how every command prints numbers), progress (what long work reports, shown
   only when asked)
1. game models: game/, io/ readers of game files (gambit with its gambit_* readers and writer,
   openspiel, files; gambit_tokens, the lexical layer, needs only layer 0), the ordered-signal
   models of abstraction/ (signal_rules, ordered_game, compile, views, signal_tree), the catalog
   games/
2. sequence_form, compile
3. lp/ (what every concept shares, lp.sorted_keys among it)
4. analysis/, result, io.strategy_files, learning.treeplex (the treeplex data structure that
   analysis and learning share)
5. equilibria/ (one folder per family: zero_sum, general_sum, correlated, teams, refinements),
   abstraction/ (gameshrink, lifting, solve), learning/
6. api, draw
7. sweep
8. cli (with cli_commands: what each subcommand does; cli_interop: convert, --format csv, "did
   you mean"), __main__

Every import statement counts, including those inside functions. The package's own
``lpgame/__init__.py`` (the public face, which re-exports the api) counts as the api's layer.

Layers below the concepts reach them only through :mod:`lpgame.registry` (dispatch by name:
``analysis.verify`` solves the reference equilibrium, ``games.dudo`` its continuation values).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import lpgame

ROOT = Path(lpgame.__file__).parent

LAYERS: list[tuple[str, ...]] = [
    ("lpgame.errors", "lpgame.limits", "lpgame.rational", "lpgame.exact_probabilities",
     "lpgame.registry", "lpgame.io", "lpgame.io.json_io", "lpgame.lazy", "lpgame.io.safe_files",
     "lpgame.moved_modules", "lpgame.number_format", "lpgame.progress"),
    ("lpgame.game", "lpgame.io.gambit", "lpgame.io.gambit_efg_reader", "lpgame.io.gambit_efg_fast",
     "lpgame.io.gambit_nfg_reader",
     "lpgame.io.gambit_writer", "lpgame.io.openspiel", "lpgame.io.files",
     "lpgame.abstraction.signal_rules", "lpgame.abstraction.ordered_game", "lpgame.abstraction.compile",
     "lpgame.abstraction.views", "lpgame.abstraction.signal_tree", "lpgame.games"),
    ("lpgame.sequence_form", "lpgame.compile"),
    ("lpgame.lp",),
    ("lpgame.analysis", "lpgame.result", "lpgame.io.strategy_files", "lpgame.learning.treeplex"),
    ("lpgame.equilibria", "lpgame.abstraction", "lpgame.learning"),
    ("lpgame.api", "lpgame.draw"),
    ("lpgame.sweep",),
    ("lpgame.cli", "lpgame.cli_commands", "lpgame.cli_interop", "lpgame.__main__"),
]


def layer_of(module: str) -> int:
    """The layer of a module: the longest matching prefix wins (abstraction.ordered_game is a game
    model, the rest of abstraction/ sits with the concepts)."""
    best, best_len = None, -1
    for k, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = k, len(prefix)
    if best is None:
        raise AssertionError(f"module {module} has no layer: add it to LAYERS in {__file__}")
    return best


def module_files() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The lpgame modules a file imports (``from pkg import mod`` counts as importing pkg.mod)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("lpgame"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if not base.startswith("lpgame"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return found


def upward_imports() -> list[str]:
    files = module_files()
    known = set(files)
    bad = []
    for name, path in sorted(files.items()):
        if name == "lpgame":
            continue
        mine = layer_of(name)
        for target in sorted(imported_modules(name, path, known)):
            if target == "lpgame":      # the public face re-exports the api: api's layer
                if mine < layer_of("lpgame.api"):
                    bad.append(f"{name} (layer {mine}) imports the package lpgame (the api)")
            elif layer_of(target) > mine:
                bad.append(f"{name} (layer {mine}) imports {target} (layer {layer_of(target)})")
    return bad


def test_every_module_imports_and_has_a_layer():
    for info in pkgutil.walk_packages(lpgame.__path__, "lpgame."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
        layer_of(info.name)


def test_no_module_imports_a_higher_layer():
    assert upward_imports() == []


def test_the_check_finds_an_upward_import(tmp_path):
    """The checker itself: an analysis module that imports the api is reported."""
    fake = tmp_path / "lpgame"
    (fake / "analysis").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "api.py").write_text("")
    (fake / "analysis" / "__init__.py").write_text("")
    (fake / "analysis" / "bad.py").write_text("def f():\n    from lpgame.api import solve\n")
    files = {"lpgame": fake / "__init__.py", "lpgame.api": fake / "api.py",
             "lpgame.analysis": fake / "analysis" / "__init__.py",
             "lpgame.analysis.bad": fake / "analysis" / "bad.py"}
    targets = imported_modules("lpgame.analysis.bad", files["lpgame.analysis.bad"], set(files))
    assert targets == {"lpgame.api"}
    assert layer_of("lpgame.api") > layer_of("lpgame.analysis.bad")


@pytest.mark.parametrize("module", ["lpgame.abstraction.ordered_game", "lpgame.abstraction.solve"])
def test_abstraction_is_split_between_game_models_and_concepts(module):
    expected = 1 if module.endswith("ordered_game") else 5
    assert layer_of(module) == expected


# ------------------------------------------------------------------------------------ import cycles
def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the lpgame modules it imports (every import statement, functions included)."""
    known = set(files)
    graph = {}
    for name, path in files.items():
        targets = imported_modules(name, path, known) - {name}
        # importing a package's submodule runs the package's __init__ first, but a package that
        # merely contains the module is not a dependency of it: only count real import targets
        graph[name] = {t for t in targets if t in known}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``, one per strongly connected component of two or more modules,
    each named as a closed path (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return [_closed_path(graph, set(c)) for c in components]


def _closed_path(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle through the component's first module, as [a, b, ..., a] (breadth-first)."""
    start = min(component)
    parents = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                path = [node]
                while parents[path[-1]] is not None:
                    path.append(parents[path[-1]])
                return [*reversed(path), start]
            if child not in parents:
                parents[child] = node
                queue.append(child)
    return sorted(component)


def test_no_import_cycles_anywhere():
    """No two modules import each other, directly or through others, in any layer or folder
    (imports inside functions count: a cycle is fixed by moving the shared piece down)."""
    cycles = find_cycles(import_graph(module_files()))
    assert cycles == [], "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_two_file_cycle_inside_one_folder(tmp_path):
    fake = tmp_path / "lpgame"
    (fake / "lp").mkdir(parents=True)
    for path, text in {"__init__.py": "", "lp/__init__.py": "",
                       "lp/a.py": "from lpgame.lp.b import g\n",
                       "lp/b.py": "def g():\n    from lpgame.lp import a\n",
                       "lp/c.py": "from lpgame.lp.a import g\n"}.items():
        (fake / path).write_text(text)
    files = {"lpgame": fake / "__init__.py", "lpgame.lp": fake / "lp" / "__init__.py",
             **{f"lpgame.lp.{m}": fake / "lp" / f"{m}.py" for m in "abc"}}
    assert find_cycles(import_graph(files)) == [["lpgame.lp.a", "lpgame.lp.b", "lpgame.lp.a"]]


def test_the_cycle_check_names_a_longer_cycle():
    graph = {"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}
    assert find_cycles(graph) == [["x", "y", "z", "x"]]


# ------------------------------------------------------------------------------ private names
def private_imports() -> list[str]:
    """``from lpgame.m import _name`` across modules: a helper two modules use is a public name of
    the module that owns it."""
    bad = []
    for name, path in sorted(module_files().items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lpgame"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        bad.append(f"{name} imports {node.module}.{alias.name}")
    return bad


def test_no_module_imports_another_modules_private_name():
    assert private_imports() == []


# ------------------------------------------------------------------------------ module size
MAX_MODULE_LINES = 800
# module → why it may stay longer (empty: every module fits)
LONG_MODULES: dict[str, str] = {}


def test_no_module_is_longer_than_a_reader_can_hold():
    """DESIGN.md: about 600 lines at most, split by responsibility; the test fails past 800."""
    long = {name: len(path.read_text(encoding="utf-8").splitlines())
            for name, path in module_files().items()}
    too_long = {name: n for name, n in long.items() if n > MAX_MODULE_LINES and name not in LONG_MODULES}
    assert too_long == {}, f"modules over {MAX_MODULE_LINES} lines: {too_long}"
    stale = [name for name in LONG_MODULES if long.get(name, 0) <= MAX_MODULE_LINES]
    assert stale == [], f"allow-list entries that no longer need it: {stale}"


# ------------------------------------------------------------------------- family folders
FAMILIES = ("zero_sum", "general_sum", "correlated", "teams", "refinements")


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_docstring_lists_its_modules(family):
    """The layout is the architecture: each family's ``__init__`` docstring names every module of
    its folder, so a reader finds a concept by reading one docstring."""
    package = importlib.import_module(f"lpgame.equilibria.{family}")
    folder = ROOT / "equilibria" / family
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    missing = [m for m in modules if f"lpgame.equilibria.{family}.{m}" not in (package.__doc__ or "")]
    assert missing == [], f"lpgame/equilibria/{family}/__init__.py does not name {missing}"
