"""Exact simplex pivots from a floating-point basis: what exact mode does when HiGHS's basis is not
optimal in exact arithmetic.

HiGHS stops at a basis that is optimal within its tolerances (1e-7 by default, 1e-10 at its
tightest). When the payoffs' differences are below those tolerances (e.g. payoffs 5000000.000001
and 5000000.000002 before scaling, or rationals with 300-digit denominators) that basis can be
primal or dual infeasible in exact arithmetic. This module continues from it with the revised
simplex method for bounded variables (Chvátal 1983, ch. 8; Dantzig 1963), every quantity an exact
rational, until the basis is optimal exactly; :func:`lpgame.lp.exact.certify_basis` then checks
the result independently.

The LP ``opt cᵀz s.t. L ≤ A z ≤ U, l ≤ z ≤ u`` is written with one logical variable per row,
r = A z, as the equality system [A  −I] (z, r) = 0 over n + m bounded variables w; a basis is m of
them (HiGHS's basis: basic columns and basic rows). With B the basic columns of [A −I] and the
nonbasic variables at a bound (free ones at 0):

    w_B = −B⁻¹ N w_N,     π = B⁻ᵀ c_B,     d_j = c_j − πᵀ a_j      (the objective as a minimum).

* Phase 1 (the start may be primal infeasible): minimise the total bound violation of the basic
  variables, Σ max(0, l_i − w_i) + Σ max(0, w_i − u_i), whose cost is −1, +1 or 0 per basic
  variable (a composite "textbook" phase 1 for bounded variables, e.g. Maros 2003, §9.3). The
  ratio test stops at the first breakpoint: a feasible basic variable reaching a bound, or an
  infeasible one reaching the bound it violates.
* Phase 2: minimise cᵀw from the feasible basis.

B⁻¹ is kept as a rational matrix: inverted afresh every :data:`REFACTOR_EVERY` pivots and updated
in between by the rank-one product-form update B'⁻¹ = B⁻¹ − (d − e_r)(B⁻¹)_r / d_r, where
d = B⁻¹ a_q is the entering column and r the leaving position (Dantzig & Orchard-Hays 1954).

Bland's rule (the lowest-indexed eligible entering variable; the lowest-indexed leaving one at a
tie of the ratio test) prevents cycling. Everything is dense rational arithmetic in python-flint's
``fmpq_mat``, so this is for the small LPs on which the floating-point basis fell short;
:data:`MAX_ROWS` bounds it.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from lpgame.errors import ExactCheckError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, BASIS_LOWER, BASIS_UPPER, BASIS_ZERO, LPSolution
from lpgame.rational import binary_fractions

MAX_ROWS = 2000
"""Largest LP (rows) for exact pivoting: each pivot is two dense rational m × m solves."""

REFACTOR_EVERY = 100
"""Pivots between fresh inversions of the basis matrix; between them B⁻¹ gets rank-one updates
(each O(m²) in python-flint instead of the O(m³) of a solve)."""

MAX_PIVOTS = 20000
"""Pivots before the exact simplex gives up (Bland's rule terminates; this bounds the time)."""


def exact_simplex(lp: LinearProgram, start: LPSolution) -> tuple[LPSolution, int]:
    """Pivot exactly from ``start``'s basis to an exactly optimal one (see module docstring).

    Returns an :class:`LPSolution` whose basis statuses and column values (nonbasic columns at
    their exact bounds, as floats) describe the optimal basis, for
    :func:`lpgame.lp.exact.certify_basis`, and the number of pivots made. Raises
    :class:`~lpgame.errors.ExactCheckError` when the LP is too large, the start is no basis, or the
    LP is infeasible or unbounded.
    """
    import flint

    began = time.perf_counter()
    if not start.has_basis:
        raise ExactCheckError("exact pivots need a starting basis; the solver returned none")
    c, A, senses, rhs = lp.assemble_exact()
    m, n = A.shape
    if m > MAX_ROWS:
        raise ExactCheckError(f"exact mode: the LP has {m} rows; exact simplex pivots are limited "
                              f"to {MAX_ROWS}")
    sign = -1 if lp.sense == "max" else 1          # minimise sign·cᵀz
    cost = [sign * v for v in c] + [Fraction(0)] * m
    blocks = lp.variables
    lower = binary_fractions(np.concatenate([b.lower for b in blocks]), -np.inf) if blocks else []
    upper = binary_fractions(np.concatenate([b.upper for b in blocks]), np.inf) if blocks else []
    lower += [r if s in ("==", ">=") else None for s, r in zip(senses, rhs)]
    upper += [r if s in ("==", "<=") else None for s, r in zip(senses, rhs)]
    total = n + m
    # the dense matrix [A −I] as fmpq, column j of the system is columns[j]
    system = flint.fmpq_mat(m, total)
    for r, col, v in zip(A.rows.tolist(), A.cols.tolist(), A.data):
        system[r, col] = system[r, col] + flint.fmpq(v.numerator, v.denominator)
    for i in range(m):
        system[i, n + i] = -1
    transposed = system.transpose()
    columns = [[transposed[j, i] for i in range(m)] for j in range(total)]   # column j of [A −I]
    statuses = np.concatenate([start.col_basis, start.row_basis]).astype(np.int64)
    basic = [j for j in range(total) if statuses[j] == BASIS_BASIC]
    if len(basic) != m:
        raise ExactCheckError(f"exact mode: the starting basis has {len(basic)} basic variables "
                              f"for {m} rows")
    # nonbasic values: at the bound the status names, or the nearest one, or 0 when free
    floats = np.concatenate([np.asarray(start.col_values, dtype=float),
                             _row_activity(lp, start)])
    at_upper = np.zeros(total, dtype=bool)
    for j in range(total):
        if statuses[j] == BASIS_BASIC:
            continue
        lo, up = lower[j], upper[j]
        if lo is not None and up is not None:
            at_upper[j] = (statuses[j] == BASIS_UPPER
                           or (statuses[j] != BASIS_LOWER
                               and abs(floats[j] - float(up)) < abs(floats[j] - float(lo))))
        else:
            at_upper[j] = lo is None and up is not None
    pivots = 0
    phase = 1
    inverse, updates = None, 0
    while True:
        if pivots > MAX_PIVOTS:
            raise ExactCheckError(f"exact mode: exact simplex stopped after {MAX_PIVOTS} pivots")
        values = _nonbasic_values(lower, upper, at_upper, basic, total)
        if inverse is None or updates >= REFACTOR_EVERY:     # B⁻¹ afresh, else rank-one updates
            B = flint.fmpq_mat(m, m, [columns[j][i] for i in range(m) for j in basic])
            try:
                inverse = B.inv()
            except ZeroDivisionError as exc:
                raise ExactCheckError("exact mode: the basis matrix is singular in exact "
                                      "arithmetic; exact pivots cannot start from it") from exc
            updates = 0
        w_nonbasic = flint.fmpq_mat(total, 1, [_fq(flint, values[j]) if j in values else 0
                                               for j in range(total)])
        x_basic = inverse * -(system * w_nonbasic)     # B⁻¹(−N w_N); basic entries of w are 0
        xb = [x_basic[i, 0] for i in range(m)]
        below = [lower[j] is not None and xb[k] < _fq(flint, lower[j]) for k, j in enumerate(basic)]
        above = [upper[j] is not None and xb[k] > _fq(flint, upper[j]) for k, j in enumerate(basic)]
        if phase == 1 and not any(below) and not any(above):
            phase = 2
        if phase == 1:
            basic_cost = [(-1 if below[k] else (1 if above[k] else 0)) for k in range(m)]
            full_cost = None
        else:
            basic_cost = [_fq(flint, cost[j]) for j in basic]
            full_cost = cost
        cb = flint.fmpq_mat(m, 1, basic_cost)
        pi = inverse.transpose() * cb
        reduced = transposed * pi                  # aⱼᵀπ for every j
        in_basis = set(basic)
        entering, direction = None, 0
        for j in range(total):
            if j in in_basis:
                continue
            d = (_fq(flint, full_cost[j]) if full_cost is not None else 0) - reduced[j, 0]
            free = lower[j] is None and upper[j] is None
            fixed = lower[j] is not None and upper[j] is not None and lower[j] == upper[j]
            if fixed or d == 0:
                continue
            if d < 0 and (free or not at_upper[j]) and upper[j] != values[j]:
                entering, direction = j, 1
                break
            if d > 0 and (free or at_upper[j] or lower[j] is None) and lower[j] != values[j]:
                entering, direction = j, -1
                break
        if entering is None:
            if phase == 1:
                raise ExactCheckError("exact mode: the LP is infeasible in exact arithmetic "
                                      "(phase 1 of the exact simplex ends with a violated bound)")
            break
        column = flint.fmpq_mat(m, 1, columns[entering])
        change = inverse * column                 # w_B moves by −change·t·direction
        step, leaving, leaving_to_upper = None, None, False
        own = _own_step(lower[entering], upper[entering])
        if own is not None:
            step = own
        for k, j in enumerate(basic):
            rate = -change[k, 0] * direction      # d w_j / d t
            if rate == 0:
                continue
            target = None
            if rate > 0:
                if below[k] and phase == 1:
                    target, to_upper = lower[j], False
                elif upper[j] is not None and not above[k]:
                    target, to_upper = upper[j], True
            else:
                if above[k] and phase == 1:
                    target, to_upper = upper[j], True
                elif lower[j] is not None and not below[k]:
                    target, to_upper = lower[j], False
            if target is None:
                continue
            t = (_fq(flint, target) - xb[k]) / rate
            if step is None or t < step or (t == step and leaving is not None and j < basic[leaving]):
                step, leaving, leaving_to_upper = t, k, to_upper
        if step is None:
            raise ExactCheckError("exact mode: the LP is unbounded in exact arithmetic")
        pivots += 1
        if leaving is None:                        # the entering variable flips to its other bound
            at_upper[entering] = direction > 0
            continue
        # B⁻¹ of the new basis: row r divided by the pivot, the others less multiples of it
        pivot = change[leaving, 0]
        row = flint.fmpq_mat(1, m, [inverse[leaving, i] / pivot for i in range(m)])
        change[leaving, 0] -= 1
        inverse = inverse - change * row
        updates += 1
        out = basic[leaving]
        basic[leaving] = entering
        at_upper[out] = leaving_to_upper
        at_upper[entering] = False
    return _solution(lp, start, basic, at_upper, lower, upper, n, m, time.perf_counter() - began), pivots


def slack_basis(lp: LinearProgram) -> LPSolution:
    """A starting point with every row's logical variable basic and every column nonbasic at a
    bound (free columns at zero): always a basis, usually primal infeasible (phase 1 handles it)."""
    lower = np.concatenate([b.lower for b in lp.variables]) if lp.variables else np.zeros(0)
    upper = np.concatenate([b.upper for b in lp.variables]) if lp.variables else np.zeros(0)
    col_basis = np.where(np.isfinite(lower), BASIS_LOWER,
                         np.where(np.isfinite(upper), BASIS_UPPER, BASIS_ZERO)).astype(np.int8)
    values = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper, 0.0))
    return LPSolution(lp=lp, backend="highs", status="start", objective=float("nan"),
                      col_values=values, row_duals=np.zeros(lp.num_rows), col_basis=col_basis,
                      row_basis=np.full(lp.num_rows, BASIS_BASIC, dtype=np.int8))


def _fq(flint, value: Fraction):
    return flint.fmpq(value.numerator, value.denominator)


def _own_step(lo: Fraction | None, up: Fraction | None):
    """How far the entering variable can move before reaching its other bound (None: unbounded)."""
    if lo is None or up is None:
        return None
    import flint
    return flint.fmpq((up - lo).numerator, (up - lo).denominator)


def _nonbasic_values(lower, upper, at_upper, basic, total) -> dict[int, Fraction]:
    in_basis = set(basic)
    values = {}
    for j in range(total):
        if j in in_basis:
            continue
        if at_upper[j] and upper[j] is not None:
            values[j] = upper[j]
        elif lower[j] is not None:
            values[j] = lower[j]
        elif upper[j] is not None:
            values[j] = upper[j]
        else:
            values[j] = Fraction(0)
    return values


def _row_activity(lp: LinearProgram, solution: LPSolution) -> np.ndarray:
    assembled = lp.assemble()
    return assembled.A @ np.asarray(solution.col_values, dtype=float)


def _solution(lp, start, basic, at_upper, lower, upper, n, m, seconds) -> LPSolution:
    """The basis as an LPSolution: statuses, and column values at their bounds (floats)."""
    status = np.empty(n + m, dtype=np.int8)
    values = np.zeros(n)
    for j in range(n + m):
        if lower[j] is None and upper[j] is None:
            status[j] = BASIS_ZERO
        elif at_upper[j] and upper[j] is not None:
            status[j] = BASIS_UPPER
        else:
            status[j] = BASIS_LOWER if lower[j] is not None else BASIS_UPPER
        if j < n:
            bound = upper[j] if status[j] == BASIS_UPPER else lower[j]
            values[j] = float(bound) if bound is not None else 0.0
    for j in basic:
        status[j] = BASIS_BASIC
    return LPSolution(lp=lp, backend=start.backend, status="optimal", objective=start.objective,
                      col_values=values, row_duals=np.zeros(m), col_basis=status[:n].copy(),
                      row_basis=status[n:].copy(), seconds=start.seconds + seconds,
                      info={**start.info, "exact_simplex_seconds": seconds})


__all__ = ["exact_simplex", "slack_basis", "MAX_ROWS", "MAX_PIVOTS"]
