"""Clarabel's interior-point method with a direct factorisation, then HiGHS's crossover to a vertex.

Why a second solver. The compressed LPs of :mod:`lpgame.equilibria.zero_sum.security` carry long chains of
cumulative sums; HiGHS 1.16's interior-point solver (IPX) solves its normal equations with a
preconditioned conjugate-gradient method, which needs more and more work per iteration on such
chains (One-Card Poker with 20,000 cards: 104 s). Clarabel (Goulart & Chen 2024, "Clarabel: an
interior-point solver for conic programs with quadratic objectives", arXiv:2405.12762) factorises
its KKT system with a sparse LDLᵀ (QDLDL, AMD ordering): a chain factorises with no fill, so each
iteration costs time linear in the model (the same game: 4 s). Clarabel is already installed as a
dependency of CVXPY.

Rendering. :meth:`LinearProgram.assemble` gives ``max/min cᵀz s.t. L ≤ Az ≤ U, l ≤ z ≤ u``.
Clarabel solves ``min qᵀz s.t. Gz + s = h, s ∈ K`` with K a product of a zero cone (equalities)
and a non-negative cone (inequalities); so q = ∓c, each row with L = U is one zero-cone row
(Az = U), a finite U gives a row Az + s = U and a finite L a row −Az + s = −L, and finite column
bounds are rows of ∓I alike. Its dual ζ ∈ K* satisfies Gᵀζ + q = 0 with optimal value −hᵀζ, so
∂(min)/∂h = −ζ; in lpgame's convention (∂objective/∂rhs, :mod:`lpgame.lp.solution`) a row's dual
is ``sign·(ζ_U − ζ_L)`` with sign = +1 for a maximisation and −1 for a minimisation.

Accuracy and crossover. An interior-point answer is accurate to its tolerance, not a vertex.
The default tolerance here is 1e-12 (Clarabel's own is 1e-8): on One-Card Poker with 5000 cards
1e-8 leaves a profile with NashConv 9e-7, 1e-12 one with NashConv 1e-10 (measured by the
independent best response). With ``crossover=True`` the primal-dual point is handed to HiGHS
(``Highs.crossover``: IPX's crossover, then the dual simplex from its basis where that basis is not
yet optimal), which returns an optimal basis; the :class:`~lpgame.lp.solution.LPSolution` then
carries HiGHS's basic solution and basis, exactly as :func:`lpgame.lp.highs_backend.solve_highs`
does, so exact certification works on it. It is off by default because on the compressed chains
it costs far more than the interior point (OCP(20000): 5 s interior point, 47 s crossover).
"""

from __future__ import annotations

import time

import highspy
import numpy as np
import scipy.sparse as sp

from lpgame.errors import SolverError, SolverTimeLimitError
from lpgame.lp.highs_backend import basic_solution, build_highs
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import LPSolution


def clarabel_rendering(lp: LinearProgram):
    """The LP in Clarabel's form: (q, G, h, cones, row maps); see the module docstring.

    Returns ``(assembled, q, G, h, cones, upper_rows, lower_rows)`` where ``upper_rows`` and
    ``lower_rows`` give, for each LP row, the index of its ``U`` and ``L`` row in G (−1: none).
    """
    import clarabel

    m = lp.assemble()
    A = sp.csr_array(m.A)
    n_rows, n_cols = A.shape
    sign = 1.0 if m.sense == "max" else -1.0
    equal = np.isfinite(m.row_upper) & (m.row_lower == m.row_upper)
    has_upper = np.isfinite(m.row_upper) & ~equal
    has_lower = np.isfinite(m.row_lower) & ~equal
    fixed = np.isfinite(m.col_upper) & (m.col_lower == m.col_upper)
    col_upper = np.isfinite(m.col_upper) & ~fixed
    col_lower = np.isfinite(m.col_lower) & ~fixed
    identity = sp.identity(n_cols, format="csr")
    eq_idx, up_idx, lo_idx = (np.flatnonzero(mask) for mask in (equal, has_upper, has_lower))
    parts = [A[eq_idx], identity[np.flatnonzero(fixed)],                   # zero cone
             A[up_idx], -A[lo_idx], identity[np.flatnonzero(col_upper)],   # non-negative cone
             -identity[np.flatnonzero(col_lower)]]
    rhs = [m.row_upper[eq_idx], m.col_upper[fixed], m.row_upper[up_idx], -m.row_lower[lo_idx],
           m.col_upper[col_upper], -m.col_lower[col_lower]]
    G = sp.vstack(parts, format="csc")
    h = np.concatenate(rhs).astype(float)
    n_zero = len(eq_idx) + int(fixed.sum())
    cones = []
    if n_zero:
        cones.append(clarabel.ZeroConeT(n_zero))
    if G.shape[0] > n_zero:
        cones.append(clarabel.NonnegativeConeT(G.shape[0] - n_zero))
    upper_rows = np.full(n_rows, -1, dtype=np.int64)
    lower_rows = np.full(n_rows, -1, dtype=np.int64)
    upper_rows[eq_idx] = np.arange(len(eq_idx))
    start = n_zero
    upper_rows[up_idx] = start + np.arange(len(up_idx))
    lower_rows[lo_idx] = start + len(up_idx) + np.arange(len(lo_idx))
    return m, -sign * m.c, G, h, cones, upper_rows, lower_rows


def _row_duals(zeta: np.ndarray, upper_rows: np.ndarray, lower_rows: np.ndarray,
               sign: float) -> np.ndarray:
    up = np.where(upper_rows >= 0, zeta[np.maximum(upper_rows, 0)], 0.0)
    low = np.where(lower_rows >= 0, zeta[np.maximum(lower_rows, 0)], 0.0)
    return sign * (up - low)


def _prepare_for_crossover(highs: highspy.Highs, time_limit: float) -> None:
    """Work around highspy 1.16: ``Highs.crossover`` on an instance that has never run dereferences
    state that only ``run`` sets up (a segmentation fault, even on a two-variable LP). A run with a
    zero time limit and no presolve sets it up and stops at once. Presolve stays off: the
    crossover, and the simplex after it, start from the given point in the original model."""
    highs.setOptionValue("time_limit", 0.0)
    highs.setOptionValue("presolve", "off")
    highs.run()
    highs.clearSolver()
    highs.setOptionValue("time_limit", float(time_limit))


def solve_clarabel(lp: LinearProgram, time_limit: float | None = None,
                   threads: int | None = None, crossover: bool = False, verbose: bool = False,
                   tolerance: float | None = 1e-12, clarabel_options: dict | None = None,
                   presolve: bool | None = None, highs_options: dict | None = None,
                   solver: str | None = None) -> LPSolution:
    """Solve ``lp`` with Clarabel, then (``crossover=True``) find an optimal basis with HiGHS.

    ``time_limit`` bounds the whole run (Clarabel, then what is left for the crossover);
    ``tolerance`` sets Clarabel's feasibility and gap tolerances (default 1e-12; Clarabel's own
    is 1e-8);
    ``clarabel_options`` sets any field of ``clarabel.DefaultSettings``; ``highs_options`` go to
    the HiGHS instance that runs the crossover. ``solver`` and ``presolve`` are accepted so that
    the HiGHS keywords can be passed through unchanged (``solver`` must be ``"clarabel"``).
    """
    import clarabel

    if solver not in (None, "clarabel"):
        raise SolverError(f"solve_clarabel: solver {solver!r} is not 'clarabel'")
    start = time.perf_counter()
    m, q, G, h, cones, upper_rows, lower_rows = clarabel_rendering(lp)
    settings = clarabel.DefaultSettings()
    settings.verbose = bool(verbose)
    if time_limit is not None:
        settings.time_limit = float(time_limit)
    if threads is not None:
        settings.max_threads = int(threads)
    if tolerance is not None:
        settings.tol_feas = settings.tol_gap_abs = settings.tol_gap_rel = float(tolerance)
    for key, value in (clarabel_options or {}).items():
        if not hasattr(settings, key):
            raise SolverError(f"Clarabel has no setting {key!r}")
        setattr(settings, key, value)
    n = G.shape[1]
    model = clarabel.DefaultSolver(sp.csc_matrix((n, n)), q, sp.csc_matrix(G), h, cones, settings)
    build_seconds = time.perf_counter() - start
    result = model.solve()
    status = str(result.status).rsplit(".", 1)[-1]   # 'Solved' (older wheels: 'SolverStatus.Solved')
    size = lp.size()
    sign = 1.0 if m.sense == "max" else -1.0
    objective = sign * -float(result.obj_val) + m.objective_constant
    if status == "MaxTime":
        dual = getattr(result, "obj_val_dual", None)
        raise SolverTimeLimitError(
            f"Clarabel stopped at its time limit ({time_limit} s) on LP {lp.name!r} with "
            f"{size['rows']} rows, {size['cols']} columns, {size['nnz']} nonzeros; "
            f"objective reached {objective:g}", status=status, size=size, objective=objective,
            best_bound=None if dual is None else sign * -float(dual) + m.objective_constant)
    if status != "Solved":
        hint = (" (accurate only to Clarabel's reduced tolerances: try solver='simplex')"
                if status.startswith("Almost") else "")
        raise SolverError(
            f"Clarabel returned status {status!r} on LP {lp.name!r} with {size['rows']} rows, "
            f"{size['cols']} columns, {size['nnz']} nonzeros{hint}", status=status, size=size)
    col_values = np.asarray(result.x, dtype=float)
    row_duals = _row_duals(np.asarray(result.z, dtype=float), upper_rows, lower_rows, sign)
    ipm_seconds = time.perf_counter() - start
    info = {"build_seconds": build_seconds, "ipm_seconds": ipm_seconds - build_seconds,
            "ipm_iterations": int(result.iterations), "interior_point": "clarabel",
            "solver": {"name": "Clarabel interior point", "crossover": bool(crossover),
                       "tolerance": None if tolerance is None else float(tolerance)}}
    if not crossover:
        return LPSolution(lp=lp, backend="clarabel", status="optimal", objective=objective,
                          col_values=col_values, row_duals=row_duals, seconds=ipm_seconds,
                          info=info)
    remaining = None if time_limit is None else max(time_limit - ipm_seconds, 1.0)
    settings_h = {"output_flag": bool(verbose), **(highs_options or {})}
    if remaining is not None:
        settings_h["time_limit"] = remaining
    highs = build_highs(lp, settings_h, assembled=m)
    _prepare_for_crossover(highs, settings_h.get("time_limit", highspy.kHighsInf))
    point = highspy.HighsSolution()
    point.col_value = col_values
    point.row_value = m.A @ col_values
    point.row_dual = row_duals
    point.col_dual = m.c - m.A.T @ row_duals
    point.value_valid = True
    point.dual_valid = True
    highs.crossover(point)
    if (highs.getModelStatus() != highspy.HighsModelStatus.kOptimal
            and highs.getBasis().valid):
        # the crossover's basis is not yet optimal to tolerance (the interior point's
        # complementarity is only 1e-8): the simplex method finishes from it, as HiGHS does
        # after its own interior-point runs
        highs.setOptionValue("solver", "simplex")
        highs.run()
    solution = basic_solution(highs, lp, time_limit=remaining, start=start,
                              what="HiGHS's crossover from Clarabel's solution")
    solution.backend = "clarabel"
    info["solver"]["name"] = "Clarabel interior point, then HiGHS crossover"
    solution.info.update(info)
    solution.info["crossover_seconds"] = solution.seconds - ipm_seconds
    return solution
