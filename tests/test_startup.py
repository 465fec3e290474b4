"""A fast start (issue 35): what a fresh process imports, not how long it takes (the CPU seconds
are measured by ``python -m benchmarks.bench_startup``). ``lpgame --version`` imports neither numpy
nor any concept module; a Kuhn poker solve imports none of the modules that only some paths need."""

from __future__ import annotations

import json
import subprocess
import sys

ONLY_SOME_PATHS_NEED = ("scipy.optimize", "pyomo", "cvxpy", "matplotlib", "dask", "distributed",
                        "clarabel", "rich", "pandas", "pyarrow")


def modules_after(code: str) -> list[str]:
    """The names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def loaded(modules: list[str], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in modules)


def test_version_imports_no_numpy_and_no_concept():
    modules = modules_after("from lpgame.cli import main\nassert main(['--version']) == 0")
    assert not loaded(modules, "numpy")
    assert not loaded(modules, "lpgame.equilibria")


def test_a_kuhn_solve_imports_only_what_it_needs():
    modules = modules_after("import lpgame\n"
                            "lpgame.solve(lpgame.games.make('kuhn_poker'), exact=True)")
    assert loaded(modules, "lpgame.equilibria.zero_sum"), "the check ran no solve"
    assert [p for p in ONLY_SOME_PATHS_NEED if loaded(modules, p)] == []


LOADED_WHEN_USED = ("flint", "scipy.sparse.linalg", "scipy.linalg")
"""python-flint (the exact refinement modules) and SciPy's linear algebra (Lemke's float solve,
exact mode's iterative refinement) are imported by the functions that use them, not by the
concept modules that every solve loads."""


def test_a_float_kuhn_solve_imports_no_flint_and_no_linear_algebra():
    modules = modules_after("import lpgame\nlpgame.solve(lpgame.games.make('kuhn_poker'))")
    for module in ("lpgame.equilibria.general_sum.lemke", "lpgame.equilibria.refinements.basis_stability",
                   "lpgame.equilibria.refinements.exact_limit", "lpgame.analysis.refinement_checks"):
        assert module in modules, f"{module} was not loaded: the check tests nothing"
    assert [p for p in LOADED_WHEN_USED if loaded(modules, p)] == []


def test_an_exact_kuhn_solve_imports_no_flint():
    modules = modules_after("import lpgame\n"
                            "lpgame.solve(lpgame.games.make('kuhn_poker'), exact=True)")
    assert "lpgame.equilibria.refinements.laurent_series" in modules
    assert not loaded(modules, "flint")
