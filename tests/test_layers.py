"""Imports flow one way (DESIGN.md): no module of lpgame imports one of a higher layer.

Layers, from the bottom:

0. errors, limits, rational, registry (data only), io.json_io, sorted_keys (array helpers)
1. game models: game/, io/ readers of game files (gambit, openspiel, files), the ordered-signal
   models of abstraction/ (ordered_game, compile, views, signal_tree), the catalog games/
2. sequence_form, compile, team_belief_dag (the team's analogue of the sequence form)
3. lp/
4. analysis/, result, io.strategy_files, learning.treeplex (the treeplex data structure that
   analysis and learning share)
5. equilibria/, abstraction/ (gameshrink, lifting, solve), learning/
6. api, draw
7. sweep
8. cli, __main__

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
     "lpgame.sorted_keys"),
    ("lpgame.game", "lpgame.io.gambit", "lpgame.io.openspiel", "lpgame.io.files",
     "lpgame.abstraction.ordered_game", "lpgame.abstraction.compile", "lpgame.abstraction.views",
     "lpgame.abstraction.signal_tree", "lpgame.games"),
    ("lpgame.sequence_form", "lpgame.compile", "lpgame.team_belief_dag"),
    ("lpgame.lp",),
    ("lpgame.analysis", "lpgame.result", "lpgame.io.strategy_files", "lpgame.learning.treeplex"),
    ("lpgame.equilibria", "lpgame.abstraction", "lpgame.learning"),
    ("lpgame.api", "lpgame.draw"),
    ("lpgame.sweep",),
    ("lpgame.cli", "lpgame.__main__"),
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
