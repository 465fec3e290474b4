"""LinearProgram and its renderings: HiGHS (default), Clarabel (HiGHS backend, ``solver="clarabel"``),
Pyomo, CVXPY.

:func:`solve_lp` is the one entry point the solution concepts call; it dispatches on ``backend``
and returns an :class:`~lpgame.lp.solution.LPSolution` in lpgame's conventions whatever the
backend (duals are ∂objective/∂rhs).
"""

from __future__ import annotations

from lpgame.errors import SolverError
from lpgame.limits import check_prediction, predict_lp_bytes
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import LPSolution

BACKENDS = ("highs", "pyomo", "cvxpy")


def solve_lp(lp: LinearProgram, backend: str = "highs", memory_limit: int | None = None,
             **options) -> LPSolution:
    """Solve ``lp`` with ``backend`` (``highs``, ``pyomo`` or ``cvxpy``; all use HiGHS).

    With the HiGHS backend, ``solver="clarabel"`` runs Clarabel's interior-point method with a
    direct factorisation, and with ``crossover=True`` HiGHS's crossover to a vertex
    (:mod:`lpgame.lp.clarabel_backend`).

    The LP's memory is predicted from its size first (:mod:`lpgame.limits`); a model over the limit
    raises :class:`~lpgame.errors.ModelTooLargeError` before anything is rendered.
    """
    size = lp.size()
    factor = 1 if backend == "highs" else 20   # modelling layers hold per-entry Python objects
    if backend == "highs" and options.get("solver") == "clarabel":
        factor = 2   # Clarabel's KKT matrix and its LDLᵀ factor beside HiGHS-sized arrays
    check_prediction(f"solving LP {lp.name!r} ({size['rows']} rows, {size['cols']} columns, "
                     f"{size['nnz']} nonzeros) with {backend}",
                     factor * predict_lp_bytes(size["rows"], size["cols"], size["nnz"]), memory_limit)
    if backend == "highs" and options.get("solver") == "clarabel":
        from lpgame.lp.clarabel_backend import solve_clarabel
        return solve_clarabel(lp, **options)
    if backend == "highs":
        from lpgame.lp.highs_backend import solve_highs
        return solve_highs(lp, **options)
    if backend == "pyomo":
        from lpgame.lp.pyomo_backend import solve_pyomo
        return solve_pyomo(lp, **options)
    if backend == "cvxpy":
        from lpgame.lp.cvxpy_backend import solve_cvxpy
        return solve_cvxpy(lp, **options)
    raise SolverError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


__all__ = ["LinearProgram", "LPSolution", "solve_lp", "BACKENDS"]
