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
    raises :class:`~lpgame.errors.ModelTooLargeError` before anything is rendered. ``threads`` must
    be 1 to ``os.cpu_count()`` (:class:`~lpgame.errors.OptionError` otherwise).
    """
    if options.get("threads") is not None:   # bounded by the machine before any solver starts
        from lpgame.lp.highs_backend import check_threads
        options["threads"] = check_threads(options["threads"])
    size = lp.size()
    if lp.is_mip and (backend != "highs" or options.get("solver") == "clarabel"):
        raise SolverError(f"MILP {lp.name!r} ({size['integers']} integer variables) is solved by "
                          f"HiGHS's branch and bound only: use backend='highs' without "
                          f"solver='clarabel' (got backend={backend!r})")
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


TIGHT_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
"""HiGHS's tightest feasibility tolerances, for the second attempt of :func:`solve_lp_exact`."""


def solve_lp_exact(lp: LinearProgram, backend: str = "highs", **options):
    """Solve ``lp`` and certify its optimal basis in rational arithmetic
    (:func:`lpgame.lp.exact.certify_basis`); returns (LPSolution, ExactSolution).

    HiGHS stops at a basis that is optimal within its tolerances (1e-7 by default). Rarely that
    basis is not exactly optimal: on Domino(3,3) a row of the basic solution is violated by 7e-10
    in exact arithmetic. Then the simplex goes on from that basis with the tightest tolerances
    HiGHS allows (:data:`TIGHT_TOLERANCES`) and the new basis is certified; if that fails too,
    exact simplex pivots continue from it (:mod:`lpgame.lp.exact_simplex`, small LPs) and their
    basis is certified. Only when all of these fail is an :class:`~lpgame.errors.ExactCheckError`
    raised, naming each failure. Where HiGHS fails outright on the floating-point image of a small
    LP, exact pivots start from the all-slack basis. ``ExactSolution.path`` says which path
    certified the answer: ``"reconstruction"`` or ``"fmpq_solve"`` (how the basis system was
    solved exactly), prefixed by ``"tight_tolerances+"``, ``"exact_simplex+"`` or
    ``"exact_simplex_from_slack+"`` when HiGHS's basis was not optimal or there was none.
    """
    from lpgame.errors import ExactCheckError, SolverError, SolverTimeLimitError
    from lpgame.lp.exact import certify_basis
    from lpgame.lp.exact_simplex import MAX_ROWS, exact_simplex, slack_basis

    try:
        solution = solve_lp(lp, backend=backend, **options)
    except SolverTimeLimitError:
        raise
    except SolverError as error:
        # HiGHS failed on the floating-point image of the LP (rounded or vanishing entries):
        # a small LP is solved by exact pivots from the all-slack basis instead
        if lp.num_rows > MAX_ROWS:
            raise
        pivoted, pivots = exact_simplex(lp, slack_basis(lp))
        certified = certify_basis(lp, pivoted)
        certified.path = "exact_simplex_from_slack+" + certified.path
        certified.pivots = pivots
        pivoted.objective = float(certified.objective)
        pivoted.info["first_attempt"] = {"solver_error": str(error), "seconds": 0.0}
        return pivoted, certified
    try:
        return solution, certify_basis(lp, solution)
    except ExactCheckError as first:
        if not solution.has_basis:
            raise
        failures = [f"HiGHS's basis: {first}"]
    tight = {**options, "solver": "simplex",
             "highs_options": {**options.get("highs_options", {}), **TIGHT_TOLERANCES},
             "starting_basis": (solution.col_basis, solution.row_basis)}
    again = solve_lp(lp, backend=backend, **tight)
    again.seconds += solution.seconds       # the solver's time is both attempts'
    again.info["first_attempt"] = {"certification": failures[0], "seconds": solution.seconds}
    try:
        certified = certify_basis(lp, again)
        certified.path = "tight_tolerances+" + certified.path
        return again, certified
    except ExactCheckError as second:
        failures.append(f"with HiGHS's tightest tolerances: {second}")
    start = again if again.has_basis else solution
    try:
        pivoted, pivots = exact_simplex(lp, start)
        certified = certify_basis(lp, pivoted)
    except ExactCheckError as third:
        failures.append(f"after exact simplex pivots: {third}")
        raise ExactCheckError("exact mode could not certify an optimal basis: "
                              + "; ".join(failures)) from third
    certified.path = "exact_simplex+" + certified.path
    certified.pivots = pivots
    pivoted.objective = float(certified.objective)
    pivoted.info["first_attempt"] = again.info["first_attempt"]
    return pivoted, certified


__all__ = ["LinearProgram", "LPSolution", "solve_lp", "solve_lp_exact", "BACKENDS"]
