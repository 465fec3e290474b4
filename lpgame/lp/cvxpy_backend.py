"""CVXPY rendering of a :class:`~lpgame.lp.linear_program.LinearProgram`, solved with HiGHS.

Each variable block becomes one ``cp.Variable(size, bounds=[lower, upper])`` and each constraint
block one vectorised constraint ``Σ_t M_t @ var_t  (sense)  rhs`` with the block's scipy sparse
matrices, exactly as the block is written in the formulation (e.g. ``F_oᵀ v − Uᵀ x ≤ 0`` of the
sequence-form LP, Koller, Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4). Nothing is
built entry by entry; CVXPY canonicalises the blocks and hands the LP to HiGHS (``cp.HIGHS``).

Duals. CVXPY reports, for a maximisation, ∂objective/∂rhs for ``<=`` and ``==`` rows and its
negative for ``>=`` rows (a ``>=`` row is canonicalised as rhs − expression ≤ 0); for a
minimisation every sign is the other way round. :func:`solve_cvxpy` multiplies by
``(+1 if max else −1) × (−1 if >= else +1)`` to give lpgame's convention, ∂objective/∂rhs
(checked by finite differences in tests/test_renderings.py).
"""

from __future__ import annotations

import time
import warnings

import cvxpy as cp
import numpy as np

from lpgame.errors import SolverError, SolverTimeLimitError
from lpgame.lp.highs_backend import highs_settings
from lpgame.lp.linear_program import LinearProgram, dense_coefficients
from lpgame.lp.solution import LPSolution
from lpgame.rational import as_scipy


def _rhs(block) -> np.ndarray:
    if isinstance(block.rhs, list):
        return np.array([float(v) for v in block.rhs])
    return np.asarray(block.rhs, dtype=float)


def build_cvxpy_problem(lp: LinearProgram) -> tuple[cp.Problem, list, list]:
    """The LP as a ``cp.Problem``, with its Variables (one per block) and Constraints (one per
    constraint block), in the LP's block order."""
    variables = {}
    for block in lp.variables:
        variables[block.name] = cp.Variable(block.size, name=block.name,
                                            bounds=[block.lower, block.upper])
    constraints = []
    for block in lp.constraints:
        lhs = sum((as_scipy(matrix) @ variables[var.name] for var, matrix in block.terms[1:]),
                  as_scipy(block.terms[0][1]) @ variables[block.terms[0][0].name])
        rhs = _rhs(block)
        if block.sense == "==":
            constraints.append(lhs == rhs)
        elif block.sense == "<=":
            constraints.append(lhs <= rhs)
        else:
            constraints.append(lhs >= rhs)
    terms = [variables[var.name] @ dense_coefficients(coef, var.size) for var, coef in lp.objective]
    objective = cp.sum(terms) + float(lp.objective_constant) if terms else \
        cp.Constant(float(lp.objective_constant))
    problem = cp.Problem(cp.Maximize(objective) if lp.sense == "max" else cp.Minimize(objective),
                         constraints)
    return problem, [variables[b.name] for b in lp.variables], constraints


def solve_cvxpy(lp: LinearProgram, time_limit: float | None = None, solver: str | None = None,
                threads: int | None = None, presolve: bool | None = None,
                highs_options: dict | None = None, verbose: bool = False,
                **ignored) -> LPSolution:
    """Solve ``lp`` with CVXPY and HiGHS; return an :class:`~lpgame.lp.solution.LPSolution`.

    ``solver`` (HiGHS's algorithm), ``threads``, ``presolve``, ``time_limit`` and
    ``highs_options`` are passed to HiGHS; other options of the HiGHS backend are ignored. No basis
    is returned (exact mode needs ``backend="highs"``).
    """
    start = time.perf_counter()
    problem, variables, constraints = build_cvxpy_problem(lp)
    options = highs_settings(solver, threads, time_limit, presolve, highs_options)
    build_seconds = time.perf_counter() - start
    size = lp.size()
    where = (f"on LP {lp.name!r} with {size['rows']} rows, {size['cols']} columns, "
             f"{size['nnz']} nonzeros")
    try:
        # all HiGHS options in CVXPY's nested dict (HiGHS's "solver" clashes with CVXPY's)
        with warnings.catch_warnings():   # "solution may be inaccurate": the status says it
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=cp.HIGHS, verbose=bool(verbose), highs_options=options)
    except (cp.error.SolverError, ValueError) as error:
        raise SolverError(f"CVXPY (HiGHS) failed {where}: {error}", status="error",
                          size=size) from error
    seconds = time.perf_counter() - start
    status = problem.status
    if status == cp.USER_LIMIT and time_limit is not None:   # CVXPY also maps iteration limits
        raise SolverTimeLimitError(f"CVXPY (HiGHS) stopped at a limit (time limit {time_limit} s, "
                                   "or an iteration limit) " + where, status=status, size=size)
    if status != cp.OPTIMAL:
        raise SolverError(f"CVXPY (HiGHS) returned status {status!r} " + where,
                          status=status, size=size)
    col_values = np.concatenate([np.atleast_1d(np.asarray(v.value, dtype=float)) if v.size
                                 else np.zeros(0) for v in variables]) if variables \
        else np.zeros(0)
    sense_sign = 1.0 if lp.sense == "max" else -1.0
    duals = []
    for block, con in zip(lp.constraints, constraints):
        sign = sense_sign * (-1.0 if block.sense == ">=" else 1.0)
        value = con.dual_value
        duals.append(sign * np.broadcast_to(np.asarray(value if value is not None else 0.0,
                                                       dtype=float), (block.size,)))
    row_duals = np.concatenate(duals) if duals else np.zeros(0)
    return LPSolution(lp=lp, backend="cvxpy", status="optimal", objective=float(problem.value),
                      col_values=col_values, row_duals=row_duals, seconds=seconds,
                      info={"build_seconds": build_seconds,
                            "solve_seconds": seconds - build_seconds,
                            "solver_stats": {"solve_time": problem.solver_stats.solve_time},
                            "solver": {"name": f"HiGHS through CVXPY ({problem.solver_stats.solver_name})",
                                       "crossover": None, "tolerance": None}})
