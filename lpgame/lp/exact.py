"""Exact certification of an optimal basis in rational arithmetic.

HiGHS solves in floating point. In exact mode lpgame takes its optimal basis and recomputes the
basic solution exactly, then checks optimality exactly (Karush–Kuhn–Tucker conditions of an LP,
e.g. Chvátal 1983, ch. 5 and 10), so an "exact" answer is never returned unchecked.

With the LP ``opt cᵀz s.t. L ≤ A z ≤ U, l ≤ z ≤ u`` and a basis (basic columns B, nonbasic rows N):

1. nonbasic columns sit at a bound and nonbasic rows are tight at a bound; the primal basic
   values solve  A[N, B] z_B = b_N − A[N, ¬B] z_¬B;
2. the row duals π (π_i = ∂z*/∂b_i) solve  A[N, B]ᵀ π_N = c_B, with π = 0 on basic rows, and the
   reduced costs are d = c − Aᵀπ;
3. the square system is solved in floats (sparse LU), refined by exact residuals (iterative
   refinement with the residual b − A z computed in Fractions), and each entry is recovered as the
   simplest fraction within the refined accuracy (continued fractions, ``limit_denominator``);
4. the candidate is accepted only if, exactly: the system holds; l ≤ z ≤ u and L ≤ A z ≤ U
   (primal feasibility); each nonzero π_i and d_j has the sign of an active bound (dual feasibility
   and complementary slackness); and cᵀz equals the dual objective. Otherwise
   :class:`~lpgame.errors.ExactCheckError` is raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lpgame.errors import ExactCheckError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution

REFINEMENT_ROUNDS = 40   # each round gains about 15 digits; card-level Leduc needs about 20


@dataclass
class ExactSolution:
    """Exact primal values, row duals and objective of a certified optimal basis."""

    col_values: list[Fraction]
    row_duals: list[Fraction]
    objective: Fraction

    def values(self, lp: LinearProgram, block: str) -> list[Fraction]:
        b = lp.block(block)
        return self.col_values[b.offset:b.offset + b.size]

    def duals(self, lp: LinearProgram, block: str) -> list[Fraction]:
        b = lp.block(block)
        return self.row_duals[b.offset:b.offset + b.size]


class _SparseRational:
    """Row lists of a RationalMatrix restricted to some rows and columns (for residuals)."""

    def __init__(self, rows, cols, data, shape):
        self.shape = shape
        self.rows = rows
        self.cols = cols
        self.data = data

    def matvec(self, x: list[Fraction]) -> list[Fraction]:
        out = [Fraction(0)] * self.shape[0]
        for r, c, v in zip(self.rows, self.cols, self.data):
            xc = x[c]
            if xc:
                out[r] += v * xc
        return out

    def float_matrix(self) -> sp.csc_array:
        return sp.csc_array((np.array([float(v) for v in self.data]), (self.rows, self.cols)),
                            shape=self.shape)

    @property
    def T(self) -> _SparseRational:  # noqa: N802
        return _SparseRational(self.cols, self.rows, self.data, (self.shape[1], self.shape[0]))


def _solve_exactly(matrix: _SparseRational, rhs: list[Fraction], what: str) -> list[Fraction]:
    """Solve the square system exactly: float LU, exact iterative refinement, reconstruction."""
    n = matrix.shape[0]
    if n == 0:
        return []
    try:
        lu = spla.splu(matrix.float_matrix())
    except RuntimeError as exc:
        raise ExactCheckError(f"exact mode: the basis matrix for {what} is singular") from exc
    x = [Fraction(0)] * n
    residual = list(rhs)
    scale = max((abs(float(v)) for v in rhs), default=1.0) or 1.0
    for rounds in range(1, REFINEMENT_ROUNDS + 1):
        correction = lu.solve(np.array([float(r) for r in residual]))
        if not np.all(np.isfinite(correction)):
            raise ExactCheckError(f"exact mode: the basis system for {what} is ill-conditioned")
        x = [xi + Fraction(float(ci)) for xi, ci in zip(x, correction)]
        ax = matrix.matvec(x)
        residual = [b - a for b, a in zip(rhs, ax)]
        size = max((abs(float(r)) for r in residual), default=0.0)
        if size == 0.0 and all(r == 0 for r in residual):
            return x
        # try the simplest fractions near the refined solution
        bound = 10 ** min(7 * rounds, 400)
        candidate = [xi.limit_denominator(bound) for xi in x]
        if all(b == a for b, a in zip(rhs, matrix.matvec(candidate))):
            return candidate
        if size <= 1e-300 * scale:
            break
    raise ExactCheckError(
        f"exact mode: could not recover an exact rational solution of the basis system for {what}"
        f" ({n} equations) after {REFINEMENT_ROUNDS} refinement rounds")


def certify_basis(lp: LinearProgram, solution: LPSolution) -> ExactSolution:
    """Recompute the optimal basic solution exactly and check optimality (see module)."""
    if not solution.has_basis:
        raise ExactCheckError("exact mode needs an optimal basis; the solver returned none "
                              "(use the simplex solver, or interior point with crossover)")
    c, A, senses, rhs = lp.assemble_exact()
    m, n = A.shape
    col_basic = solution.col_basis == BASIS_BASIC
    row_basic = solution.row_basis == BASIS_BASIC
    basic_cols = np.flatnonzero(col_basic)
    tight_rows = np.flatnonzero(~row_basic)
    if len(basic_cols) != len(tight_rows):
        raise ExactCheckError(
            f"exact mode: the basis has {len(basic_cols)} basic columns but {len(tight_rows)} "
            "nonbasic rows; it is not a valid basis")
    # bounds, exact
    blocks = lp.variables
    col_lower = [None if np.isneginf(v) else Fraction(float(v)) for b in blocks for v in b.lower]
    col_upper = [None if np.isposinf(v) else Fraction(float(v)) for b in blocks for v in b.upper]
    row_lower = [r if s in ("==", ">=") else None for s, r in zip(senses, rhs)]
    row_upper = [r if s in ("==", "<=") else None for s, r in zip(senses, rhs)]

    # nonbasic columns at the bound nearest to the float value
    z = [Fraction(0)] * n
    for j in np.flatnonzero(~col_basic).tolist():
        lo, up = col_lower[j], col_upper[j]
        value = solution.col_values[j]
        options = [b for b in (lo, up) if b is not None]
        z[j] = min(options, key=lambda b: abs(float(b) - value)) if options else Fraction(0)
    # tight rows at the bound nearest to the float activity
    activity = lp.assemble().A @ solution.col_values
    row_target: dict[int, Fraction] = {}
    for i in tight_rows.tolist():
        options = [b for b in (row_lower[i], row_upper[i]) if b is not None]
        if not options:
            raise ExactCheckError(f"exact mode: row {i} is nonbasic but has no finite bound")
        row_target[i] = min(options, key=lambda b: abs(float(b) - activity[i]))

    row_pos = -np.ones(m, dtype=np.int64)
    row_pos[tight_rows] = np.arange(len(tight_rows))
    col_pos = -np.ones(n, dtype=np.int64)
    col_pos[basic_cols] = np.arange(len(basic_cols))
    rows_b, cols_b, data_b = [], [], []
    rhs_b = [row_target[i] for i in tight_rows.tolist()]
    for r, cc, v in zip(A.rows.tolist(), A.cols.tolist(), A.data):
        pr = row_pos[r]
        if pr < 0:
            continue
        pc = col_pos[cc]
        if pc >= 0:
            rows_b.append(int(pr))
            cols_b.append(int(pc))
            data_b.append(v)
        elif z[cc]:
            rhs_b[pr] -= v * z[cc]
    basis = _SparseRational(rows_b, cols_b, data_b, (len(tight_rows), len(basic_cols)))
    z_basic = _solve_exactly(basis, rhs_b, "the primal values")
    for k, j in enumerate(basic_cols.tolist()):
        z[j] = z_basic[k]
    pi_tight = _solve_exactly(basis.T, [c[j] for j in basic_cols.tolist()], "the duals")
    pi = [Fraction(0)] * m
    for k, i in enumerate(tight_rows.tolist()):
        pi[i] = pi_tight[k]

    # ---- exact checks
    az = A.matvec(z)
    for j in range(n):
        if (col_lower[j] is not None and z[j] < col_lower[j]) or (
                col_upper[j] is not None and z[j] > col_upper[j]):
            raise ExactCheckError(f"exact mode: column {j} = {z[j]} violates its bounds")
    for i in range(m):
        if (row_lower[i] is not None and az[i] < row_lower[i]) or (
                row_upper[i] is not None and az[i] > row_upper[i]):
            raise ExactCheckError(f"exact mode: row {i} has activity {az[i]} outside its bounds")
    atpi = A.rmatvec(pi)
    d = [cj - aj for cj, aj in zip(c, atpi)]
    sign = 1 if lp.sense == "max" else -1
    dual_objective = Fraction(0)
    for i in range(m):
        p = pi[i] * sign
        if p > 0:   # a binding upper bound
            if row_upper[i] is None or az[i] != row_upper[i]:
                raise ExactCheckError(f"exact mode: dual of row {i} is {pi[i]} but the row's upper"
                                      " bound is not active: the basis is not dual feasible")
            dual_objective += pi[i] * row_upper[i]
        elif p < 0:
            if row_lower[i] is None or az[i] != row_lower[i]:
                raise ExactCheckError(f"exact mode: dual of row {i} is {pi[i]} but the row's lower"
                                      " bound is not active: the basis is not dual feasible")
            dual_objective += pi[i] * row_lower[i]
    for j in range(n):
        q = d[j] * sign
        if q > 0:
            if col_upper[j] is None or z[j] != col_upper[j]:
                raise ExactCheckError(f"exact mode: reduced cost of column {j} is {d[j]} but its "
                                      "upper bound is not active: not dual feasible")
            dual_objective += d[j] * col_upper[j]
        elif q < 0:
            if col_lower[j] is None or z[j] != col_lower[j]:
                raise ExactCheckError(f"exact mode: reduced cost of column {j} is {d[j]} but its "
                                      "lower bound is not active: not dual feasible")
            dual_objective += d[j] * col_lower[j]
    primal_objective = sum((cj * zj for cj, zj in zip(c, z) if cj), Fraction(0))
    if primal_objective != dual_objective:
        raise ExactCheckError(f"exact mode: primal objective {primal_objective} differs from the "
                              f"dual objective {dual_objective}")
    return ExactSolution(z, pi, primal_objective + Fraction(lp.objective_constant))
