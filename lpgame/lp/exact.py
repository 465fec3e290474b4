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
   refinement with the residual b − A z computed exactly), and each entry is recovered as the
   simplest fraction within the refined accuracy (continued fractions, ``limit_denominator``); a
   candidate is tried on a few rows first, so that a round whose candidate cannot hold does not
   reconstruct every entry;
4. the candidate is accepted only if, exactly: the system holds; l ≤ z ≤ u and L ≤ A z ≤ U
   (primal feasibility); each nonzero π_i and d_j has the sign of an active bound (dual feasibility
   and complementary slackness); and cᵀz equals the dual objective. Otherwise
   :class:`~lpgame.errors.ExactCheckError` is raised.

All exact arithmetic is done on Python integers over common denominators
(:mod:`lpgame.rational`): the refined iterate is a sum of floats, i.e. integers over a power of
two, the matrix and right-hand sides are integers over their least common denominators, and
residuals, products and sign and bound comparisons are integer operations (numpy object arrays).
Fractions are formed only for the returned values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.errors import ExactCheckError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution
from lpgame.rational import (
    binary_fractions,
    common_denominator,
    limit_denominator,
    object_array,
    scaled_products,
    scaled_to_float,
    short_text,
)

REFINEMENT_ROUNDS = 40   # each round gains about 15 digits; card-level Leduc needs about 20
PROBE_ROWS = 16          # rows checked before a candidate solution is reconstructed in full
MAX_DIRECT_SOLVE = 3000  # largest basis solved densely by fmpq_mat when reconstruction fails
RECONSTRUCTED, DIRECT = "reconstruction", "fmpq_solve"   # how a basis system was solved


@dataclass
class ExactSolution:
    """Exact primal values, row duals and objective of a certified optimal basis."""

    col_values: list[Fraction]
    row_duals: list[Fraction]
    objective: Fraction
    path: str = RECONSTRUCTED   # how it was certified (lpgame.lp.solve_lp_exact's docstring)
    pivots: int = 0             # exact simplex pivots made from the floating-point basis

    def values(self, lp: LinearProgram, block: str) -> list[Fraction]:
        b = lp.block(block)
        return self.col_values[b.offset:b.offset + b.size]

    def duals(self, lp: LinearProgram, block: str) -> list[Fraction]:
        b = lp.block(block)
        return self.row_duals[b.offset:b.offset + b.size]


class SparseRational:
    """Triplets of a RationalMatrix restricted to some rows and columns (for residuals).

    ``nums``/``den``: the entries as integers over one common denominator (exact residuals are
    computed in integers, see :mod:`lpgame.rational`).
    """

    def __init__(self, rows, cols, data, shape, scaled=None):
        self.shape = shape
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.data = data
        self.nums, self.den = common_denominator(data) if scaled is None else scaled
        self._by_row = None

    def row(self, i: int) -> tuple[list[int], list[int]]:
        """(columns, integer entries over ``den``) of row i."""
        if self._by_row is None:
            order = np.argsort(self.rows, kind="stable")
            ptr = np.concatenate([[0], np.cumsum(np.bincount(self.rows, minlength=self.shape[0]))])
            self._by_row = (ptr.tolist(), self.cols[order].tolist(), self.nums[order].tolist())
        ptr, cols, nums = self._by_row
        return cols[ptr[i]:ptr[i + 1]], nums[ptr[i]:ptr[i + 1]]

    def matvec_scaled(self, x: np.ndarray) -> np.ndarray:
        """den · (self @ (x / s)) · s for an integer vector x over any denominator s: integers."""
        return scaled_products(self.rows, self.cols, self.nums, x, self.shape[0])

    def float_matrix(self) -> sp.csc_array:
        return sp.csc_array((scaled_to_float(self.nums, self.den), (self.rows, self.cols)),
                            shape=self.shape)

    @property
    def T(self) -> SparseRational:  # noqa: N802
        return SparseRational(self.cols, self.rows, self.data, (self.shape[1], self.shape[0]),
                               (self.nums, self.den))


def solve_sparse_rational(matrix: SparseRational, rhs: list[Fraction], what: str
                   ) -> tuple[list[Fraction], str]:
    """Solve the square system exactly: float LU, exact iterative refinement, reconstruction;
    where that fails (a float-singular matrix, no fraction found), a direct rational solve.
    Returns the solution and which of the two (:data:`RECONSTRUCTED`, :data:`DIRECT`) gave it.

    The iterate x is a sum of floats, so it is kept as integers X over a power of two s (x = X/s),
    and with the matrix as M/E and the right-hand side as R/r the residual b − Ax is the integer
    vector R·E·s − r·(M X) over r·E·s: every step is exact integer arithmetic.
    """
    n = matrix.shape[0]
    if n == 0:
        return [], RECONSTRUCTED
    import scipy.sparse.linalg as spla  # only here: costly to import

    try:
        lu = spla.splu(matrix.float_matrix())
    except RuntimeError as exc:
        if n <= MAX_DIRECT_SOLVE:     # singular in floats, perhaps not exactly (tiny entries)
            return _solve_directly(matrix, rhs, what), DIRECT
        raise ExactCheckError(f"exact mode: the basis matrix for {what} is singular") from exc
    R, r_den = common_denominator(rhs)
    E = matrix.den
    X = np.zeros(n, dtype=object)                  # x = X / s
    s = 1
    residual = R * E                               # over r_den · E · s
    scale = float(np.abs(scaled_to_float(R, r_den)).max()) or 1.0
    R_list = R.tolist()
    probes = np.unique(np.linspace(0, n - 1, min(n, PROBE_ROWS)).astype(np.int64)).tolist()
    for rounds in range(1, REFINEMENT_ROUNDS + 1):
        res_den = r_den * E * s
        correction = lu.solve(np.array([v / res_den for v in residual.tolist()], dtype=float))
        if not np.all(np.isfinite(correction)):
            break
        ratios = [c.as_integer_ratio() for c in correction.tolist()]   # exact; powers of 2 below
        s_new = max(s, max(q for _, q in ratios))
        X = X * (s_new // s) + object_array(p * (s_new // q) for p, q in ratios)
        s = s_new
        residual = R * (E * s) - r_den * matrix.matvec_scaled(X)
        res_den = r_den * E * s
        size = max((abs(v / res_den) for v in residual.tolist()), default=0.0)
        if not any(residual.tolist()):
            return [Fraction(v, s) for v in X.tolist()], RECONSTRUCTED
        # try the simplest fractions near the refined solution: first on a few rows (a failing
        # row rejects the candidate without reconstructing every entry), then on all of them
        bound = 10 ** min(7 * rounds, 400)
        simplest = _Simplest(X.tolist(), s, bound)
        if all(_row_holds(matrix, i, simplest, R_list[i], r_den) for i in probes):
            candidate = [simplest[j] for j in range(n)]
            c_den = math.lcm(*{q for _, q in candidate})
            factor = {q: c_den // q for _, q in candidate}
            C = object_array(p * factor[q] for p, q in candidate)
            if not any((R * (E * c_den) - r_den * matrix.matvec_scaled(C)).tolist()):
                exact = {pq: Fraction(*pq) for pq in set(candidate)}   # one per distinct value
                return [exact[pq] for pq in candidate], RECONSTRUCTED
        if size <= 1e-300 * scale:
            break
    if n <= MAX_DIRECT_SOLVE:
        return _solve_directly(matrix, rhs, what), DIRECT
    raise ExactCheckError(
        f"exact mode: could not recover an exact rational solution of the basis system for {what}"
        f" ({n} equations) after {REFINEMENT_ROUNDS} refinement rounds, and the system is too "
        f"large (over {MAX_DIRECT_SOLVE} equations) for a direct rational solve")


def _solve_directly(matrix: SparseRational, rhs: list[Fraction], what: str) -> list[Fraction]:
    """The square system solved in exact rational arithmetic by python-flint's ``fmpq_mat``
    (fraction-free Gaussian elimination over the integers), dense: the fallback when the
    reconstruction of step 3 fails (huge or tiny numbers, long denominators)."""
    flint = _flint()
    n = matrix.shape[0]
    dense = flint.fmpq_mat(n, n)
    for r, c, v in zip(matrix.rows.tolist(), matrix.cols.tolist(), matrix.data):
        dense[r, c] = dense[r, c] + flint.fmpq(v.numerator, v.denominator)
    b = flint.fmpq_mat(n, 1, [flint.fmpq(v.numerator, v.denominator) for v in map(Fraction, rhs)])
    try:
        x = dense.solve(b)
    except ZeroDivisionError as exc:
        raise ExactCheckError(f"exact mode: the basis matrix for {what} is singular") from exc
    return [Fraction(int(x[k, 0].p), int(x[k, 0].q)) for k in range(n)]


def _flint():
    try:
        import flint
    except ImportError as exc:   # pragma: no cover - python-flint is a dependency
        raise ExactCheckError("exact mode's direct rational solve needs python-flint "
                              "(pip install python-flint)") from exc
    return flint


class _Simplest(dict):
    """j ↦ (p, q): the simplest fraction near nums[j]/s, ``Fraction.limit_denominator(bound)``,
    computed on first use."""

    def __init__(self, nums: list[int], s: int, bound: int):
        super().__init__()
        self.nums, self.s, self.bound = nums, s, bound

    def __missing__(self, j: int) -> tuple[int, int]:
        pq = self[j] = limit_denominator(self.nums[j], self.s, self.bound)
        return pq


def _row_holds(matrix: SparseRational, i: int, x: _Simplest, rhs: int, rhs_den: int) -> bool:
    """Whether row i of ``matrix`` · x equals rhs / rhs_den exactly."""
    cols, nums = matrix.row(i)
    pq = [x[c] for c in cols]
    Q = math.lcm(*(q for _, q in pq)) if pq else 1
    lhs = sum(m * p * (Q // q) for m, (p, q) in zip(nums, pq))
    return rhs_den * lhs == rhs * matrix.den * Q


def _optional(values: list[Fraction | None]) -> tuple[np.ndarray, np.ndarray, int]:
    """(present, N, D) for a list of Fractions or None: a mask, and integers N over D (0 where
    absent)."""
    present = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    nums, den = common_denominator([0 if v is None else v for v in values])
    return present, nums, den


def _dot(a: np.ndarray, b: np.ndarray) -> int:
    """Σ a[k]·b[k] of two object arrays of Python integers."""
    return sum((a * b).tolist(), 0)


def _inactive_bounds(signed_multipliers, value_nums, value_den, lower, upper):
    """Complementary slackness, exactly: a positive (negative) signed multiplier needs its upper
    (lower) bound active. ``lower``/``upper`` are (has bound, numerators, denominator); returns
    (positive, negative, positive without an active upper bound, negative without a lower one)."""
    (has_lo, lo, lo_den), (has_hi, hi, hi_den) = lower, upper
    up, low = signed_multipliers > 0, signed_multipliers < 0
    bad_up = up & ~(has_hi & (value_nums * hi_den == hi * value_den))
    bad_low = low & ~(has_lo & (value_nums * lo_den == lo * value_den))
    return up, low, bad_up, bad_low


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
    col_lower = binary_fractions(np.concatenate([b.lower for b in blocks]) if blocks else [], -np.inf)
    col_upper = binary_fractions(np.concatenate([b.upper for b in blocks]) if blocks else [], np.inf)
    row_lower = [r if s in ("==", ">=") else None for s, r in zip(senses, rhs)]
    row_upper = [r if s in ("==", "<=") else None for s, r in zip(senses, rhs)]

    # nonbasic columns at the bound nearest to the float value (the lower one at a tie)
    lower_f = np.concatenate([b.lower for b in blocks]) if blocks else np.zeros(0)
    upper_f = np.concatenate([b.upper for b in blocks]) if blocks else np.zeros(0)
    value = np.asarray(solution.col_values, dtype=float)
    has_lower, has_upper = lower_f != -np.inf, upper_f != np.inf
    with np.errstate(invalid="ignore"):
        at_upper = has_upper & (~has_lower | (np.abs(upper_f - value) < np.abs(lower_f - value)))
    z = [Fraction(0)] * n
    for j in np.flatnonzero(~col_basic).tolist():
        if at_upper[j]:
            z[j] = col_upper[j]
        elif has_lower[j]:
            z[j] = col_lower[j]
    # tight rows at their bound: a row's bounds are its one right-hand side
    for i in tight_rows.tolist():
        if row_lower[i] is None and row_upper[i] is None:
            raise ExactCheckError(f"exact mode: row {i} is nonbasic but has no finite bound")

    row_pos = -np.ones(m, dtype=np.int64)
    row_pos[tight_rows] = np.arange(len(tight_rows))
    col_pos = -np.ones(n, dtype=np.int64)
    col_pos[basic_cols] = np.arange(len(basic_cols))
    rhs_b = [rhs[i] for i in tight_rows.tolist()]
    pr, pc = row_pos[A.rows], col_pos[A.cols]
    in_basis = np.flatnonzero((pr >= 0) & (pc >= 0))
    nums, den = A.scaled()
    basis = SparseRational(pr[in_basis], pc[in_basis], [A.data[k] for k in in_basis.tolist()],
                            (len(tight_rows), len(basic_cols)), (nums[in_basis], den))
    for k in np.flatnonzero((pr >= 0) & (pc < 0)).tolist():   # nonbasic columns move the rhs
        zc = z[int(A.cols[k])]
        if zc:
            rhs_b[int(pr[k])] -= A.data[k] * zc
    z_basic, primal_path = solve_sparse_rational(basis, rhs_b, "the primal values")
    for k, j in enumerate(basic_cols.tolist()):
        z[j] = z_basic[k]
    pi_tight, dual_path = solve_sparse_rational(basis.T, [c[j] for j in basic_cols.tolist()], "the duals")
    pi = [Fraction(0)] * m
    for k, i in enumerate(tight_rows.tolist()):
        pi[i] = pi_tight[k]

    # ---- exact checks, on integers over common denominators (see lpgame.rational)
    a_nums, a_den = A.scaled()
    z_nums, z_den = common_denominator(z)
    az_nums, az_den = scaled_products(A.rows, A.cols, a_nums, z_nums, m), a_den * z_den   # A z
    has_cl, cl, cl_den = _optional(col_lower)
    has_cu, cu, cu_den = _optional(col_upper)
    has_rl, rl, rl_den = _optional(row_lower)
    has_ru, ru, ru_den = _optional(row_upper)
    bad = (has_cl & (z_nums * cl_den < cl * z_den)) | (has_cu & (z_nums * cu_den > cu * z_den))
    for j in np.flatnonzero(bad)[:1].tolist():
        raise ExactCheckError(f"exact mode: column {j} = {short_text(z[j])} violates its bounds")
    bad = (has_rl & (az_nums * rl_den < rl * az_den)) | (has_ru & (az_nums * ru_den > ru * az_den))
    for i in np.flatnonzero(bad)[:1].tolist():
        raise ExactCheckError(f"exact mode: row {i} has activity {short_text(Fraction(az_nums[i], az_den))} "
                              "outside its bounds")
    pi_nums, pi_den = common_denominator(pi)
    atpi = scaled_products(A.cols, A.rows, a_nums, pi_nums, n)       # Aᵀπ over a_den · pi_den
    c_nums, c_den = common_denominator(c)
    d_nums, d_den = c_nums * (a_den * pi_den) - atpi * c_den, c_den * a_den * pi_den   # c − Aᵀπ
    sign = 1 if lp.sense == "max" else -1
    # a positive (negative) dual needs an active upper (lower) bound; it adds dual × bound
    up, low, bad_up, bad_low = _inactive_bounds(pi_nums * sign, az_nums, az_den,
                                                (has_rl, rl, rl_den), (has_ru, ru, ru_den))
    for i in np.flatnonzero(bad_up | bad_low)[:1].tolist():
        side = "upper" if bad_up[i] else "lower"
        raise ExactCheckError(f"exact mode: dual of row {i} is {short_text(pi[i])} but the row's {side}"
                              " bound is not active: the basis is not dual feasible")
    dual_objective = (Fraction(_dot(pi_nums[up], ru[up]), pi_den * ru_den)
                      + Fraction(_dot(pi_nums[low], rl[low]), pi_den * rl_den))
    up, low, bad_up, bad_low = _inactive_bounds(d_nums * sign, z_nums, z_den,
                                                (has_cl, cl, cl_den), (has_cu, cu, cu_den))
    for j in np.flatnonzero(bad_up | bad_low)[:1].tolist():
        side = "upper" if bad_up[j] else "lower"
        raise ExactCheckError(f"exact mode: reduced cost of column {j} is "
                              f"{short_text(Fraction(d_nums[j], d_den))} but its {side} bound is not active: "
                              "not dual feasible")
    dual_objective += (Fraction(_dot(d_nums[up], cu[up]), d_den * cu_den)
                       + Fraction(_dot(d_nums[low], cl[low]), d_den * cl_den))
    primal_objective = Fraction(_dot(c_nums, z_nums), c_den * z_den)
    if primal_objective != dual_objective:
        raise ExactCheckError(f"exact mode: primal objective {short_text(primal_objective)} differs "
                              f"from the dual objective {short_text(dual_objective)}")
    path = DIRECT if DIRECT in (primal_path, dual_path) else RECONSTRUCTED
    return ExactSolution(z, pi, primal_objective + Fraction(lp.objective_constant), path)
