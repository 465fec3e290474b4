"""An exact simplex at a fixed rational ξ: the exact stage of the trembling-LP limit loop.

Farina (2023, §13.4, L5813; notes/farina-thesis.md §1.13) solves P(ξ) with Gurobi down to
ξ = 10⁻⁶, then with GLOP in MPFR arithmetic from ξ = 10⁻³ down to 10⁻³⁰, and keeps a rational
simplex as a last resort. Where HiGHS's tolerances cannot see the ε³–ε⁴ terms (Leduc QPE), lpgame
continues with this module, the exact counterpart of the MPFR stage (issue 22): at a fixed
**rational** ξ the trembling LP (Def. 13.1, L5359) is an ordinary LP with rational data,

    c(ξ) = Σ_k ξ^k c_k,   A(ξ) = Σ_k ξ^k A_k,   b(ξ) = Σ_k ξ^k b_k,

so its optimal basis can be found exactly by simplex pivots from a nearly optimal basis (HiGHS's
basis at the same ξ, or the exact optimum at the previous ξ), and then handed to the exact
stability test (:func:`lpgame.equilibria.refinements.limit.certify_stable_basis`, Thm. 13.3). If that basis is
not stable, ξ shrinks and the simplex restarts from it. Thm. 13.4 (L5577): below some ξ* every
optimal basis of P(ξ*) is stable, so the stage ends for a small enough ξ (in practice ξ = 2⁻²⁰ on
Leduc, as the thesis's 10⁻⁶).

**The simplex.** With one slack per row (D = +1 for ≤ and =, −1 for ≥) P(ξ) is

    min  c̄ᵀw   s.t.  [A(ξ)  D] w = b(ξ),   w = (z, s),

c̄ = −c(ξ) for a maximisation; a structural column is ≥ 0 or free (the trembling LPs have no
other bounds), a slack is ≥ 0, or fixed at 0 on an equality row. Every finite bound is 0, so a
nonbasic variable is 0 and the basic solution is x_B = B⁻¹ b(ξ). It is the revised primal simplex
method (Dantzig 1963; Chvátal 1983, ch. 7–8) with a composite phase 1 for a start that is not
primal feasible (minimise the total bound violation of the basic variables, cost −1/+1 per
violated variable; e.g. Maros 2003, §9.3; the ratio test stops at the first breakpoint). Pricing is
Dantzig's (the largest |d_j|) until :data:`STALL` pivots pass without strict progress, then Bland's
least-index rule for good (Bland 1977), which terminates.

Each pivot solves two systems with the basis matrix exactly, Bᵀπ = c̄_B and B α = a_q, in
python-flint rationals with one exact sparse LU of an earlier basis and the product-form etas of
the pivots since (:class:`~lpgame.equilibria.refinements.updated_factor.UpdatedFactor`), refactorised
every :data:`~lpgame.equilibria.refinements.updated_factor.REFACTOR_EVERY` pivots; x_B is updated
exactly (x_B ← x_B − tα, x_q ← t). The reduced costs d = c̄ − [A D]ᵀπ are priced from rigorous
floating-point enclosures (:mod:`~lpgame.equilibria.refinements.reduced_cost_bounds`): an entry
whose enclosure excludes 0 has its sign decided; the others, and every eligible entry whose |d_j|
may be the largest, are computed in rationals, so the entering variable is the one the exact d
gives (the pivots are those of an all-rational pricing). The signs of x_B come from its doubles
(a rounded nonzero rational keeps its sign), exactly where a double is 0. A fresh factorisation
is kept for the next start or ξ that asks for the same basis (for every ξ when ε does not
enter A). Measured on Leduc L2232 QPE at
ξ = 2⁻²⁰ from HiGHS's basis (141 pivots, loaded 2-core machine, side by side): 1.4 s, against
4.6 s when every solve was a float LU with exact iterative refinement and rational
reconstruction (:func:`lpgame.lp.exact.solve_sparse_rational`, still used by :func:`solve_scaled`
for the criss-cross method); the pivots and the optimal basis are the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.refinements.exact_sparse_factor import (
    ExactFactor,
    SingularMatrixError,
    SparseQ,
    fmpq_vector,
    fmpq_zeros,
    to_fractions,
)
from lpgame.equilibria.refinements.reduced_cost_bounds import ReducedCostBounds, decided_signs
from lpgame.equilibria.refinements.updated_factor import REFACTOR_EVERY, UpdatedFactor
from lpgame.errors import LpgameError
from lpgame.lp.exact import SparseRational, solve_sparse_rational
from lpgame.lp.solution import BASIS_BASIC, BASIS_LOWER, BASIS_ZERO, LPSolution
from lpgame.rational import RationalMatrix, common_denominator

if TYPE_CHECKING:
    import flint


def solve_scaled(matrix: SparseRational, rhs: list[Fraction], what: str) -> list[Fraction]:
    """The exact solution of ``matrix`` x = rhs, solved as ``matrix`` y = D·rhs with D the common
    denominator of rhs (integer right-hand side: y's denominators divide det(matrix) only, so the
    rational reconstruction of :mod:`lpgame.lp.exact` needs far fewer digits), x = y / D."""
    nums, den = common_denominator(rhs)
    if den == 1:
        return solve_sparse_rational(matrix, rhs, what)[0]
    y, _ = solve_sparse_rational(matrix, [Fraction(v) for v in nums.tolist()], what)
    return [v / den for v in y]

NONNEG, FREE, FIXED = 0, 1, 2

EXACT_SCHEDULE = [Fraction(1, 2 ** k) for k in (10, 20, 30, 40, 60, 80, 100)]
"""ξ of the exact stage: 2⁻¹⁰ ≈ 10⁻³ down to 2⁻¹⁰⁰ ≈ 10⁻³⁰, the thesis's MPFR range (L5813)."""

STALL = 50
"""Pivots without strict progress (degenerate) before Dantzig's pricing gives way to Bland's."""

FACTOR_CACHE = 8
"""Exact basis factorisations kept for reuse (by the starts' infeasibility counts, the simplex,
the next ξ)."""

MAX_PIVOTS = 5000
"""Pivots per ξ before the exact simplex gives up."""


class ExactSimplexError(LpgameError):
    """The exact simplex at a fixed ξ stopped without an optimal basis (time or pivot limit, a
    singular start, or an infeasible or unbounded P(ξ)); the message says which."""


@dataclass
class ExactInstance:
    """P(ξ) in exact rationals, in the equality form of the module docstring."""

    xi: Fraction
    m: int
    n: int
    cost: list[Fraction]            # minimisation costs of the n + m variables (slacks: 0)
    A: RationalMatrix               # A(ξ), m × n
    slack: list[int]                # D: +1 (≤, =) or −1 (≥)
    kinds: list[int]                # NONNEG, FREE or FIXED per variable
    rhs: list[Fraction]             # b(ξ)
    nums: np.ndarray = field(repr=False, default=None)      # A's entries as integers over den
    den: int = 1
    indptr: np.ndarray = field(repr=False, default=None)    # A by columns
    order: np.ndarray = field(repr=False, default=None)
    cost_scaled: tuple = field(repr=False, default=None)     # cost as (integers, denominator)
    q: tuple = field(repr=False, default=None)               # fmpq data (exact simplex), cached
    fixed_mask: np.ndarray = field(repr=False, default=None)  # kinds != FIXED
    kind_array: np.ndarray = field(repr=False, default=None)  # kinds as an array, cached
    factors: dict = field(repr=False, default_factory=dict)   # basis → ExactFactor (_factor)
    bounds: object = field(repr=False, default=None)          # ReducedCostBounds, cached

    def column_entries(self, j: int) -> tuple[np.ndarray, np.ndarray, list[Fraction]]:
        """(rows, integer entries over ``den``, Fractions) of variable j's column of [A D]."""
        if j >= self.n:
            i = j - self.n
            return (np.array([i]), np.array([self.slack[i] * self.den], dtype=object),
                    [Fraction(self.slack[i])])
        idx = self.order[self.indptr[j]:self.indptr[j + 1]]
        return self.A.rows[idx], self.nums[idx], [self.A.data[k] for k in idx.tolist()]


def exact_instance(tlp, xi: Fraction) -> ExactInstance:
    """P(ξ) of the trembling LP ``tlp`` (:class:`lpgame.equilibria.refinements.limit.TremblingLP`) at the
    rational ξ, exactly."""
    xi = Fraction(xi)
    powers = tlp.exact_powers()
    senses = tlp._senses
    base = tlp.base
    m, n = base.num_rows, base.num_cols
    sign = -1 if base.sense == "max" else 1
    c = [Fraction(0)] * n
    b = [Fraction(0)] * m
    rows, cols, data = [], [], []
    for k, (ck, Ak, bk) in powers.items():
        f = xi ** k
        for j, v in enumerate(ck):
            if v:
                c[j] += f * v
        for i, v in enumerate(bk):
            if v:
                b[i] += f * v
        if Ak is not None:
            rows.append(Ak.rows)
            cols.append(Ak.cols)
            data.extend(Ak.data if f == 1 else [v * f for v in Ak.data])
    A = RationalMatrix((m, n), np.concatenate(rows), np.concatenate(cols), data)
    col_lower = np.concatenate([v.lower for v in base.variables])
    col_upper = np.concatenate([v.upper for v in base.variables])
    if np.any(np.isfinite(col_upper)) or np.any(np.isfinite(col_lower) & (col_lower != 0)):
        raise LpgameError("exact simplex at ξ: only lower bounds 0 or free columns are supported")
    kinds = [NONNEG if np.isfinite(col_lower[j]) else FREE for j in range(n)]
    kinds += [FIXED if s == "==" else NONNEG for s in senses]
    nums, den = A.scaled()
    order = np.argsort(A.cols, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(A.cols, minlength=n))])
    cost = [sign * v for v in c] + [Fraction(0)] * m
    c_nums, c_den = common_denominator(cost)
    constant = all(Ak is None for k, (_, Ak, _) in powers.items() if k > 0)
    factors = tlp.__dict__.setdefault("_exact_factors", {}).setdefault(len(tlp.terms), {}) \
        if constant else {}
    return ExactInstance(xi, m, n, cost, A, [-1 if s == ">=" else 1 for s in senses], kinds, b,
                         nums, den, indptr, order, (c_nums.tolist(), c_den),
                         fixed_mask=np.array([k != FIXED for k in kinds], dtype=bool),
                         factors=factors)


def _fmpq_data(inst: ExactInstance):
    """(A's columns as (rows, fmpq values) segments, Aᵀ as :class:`SparseQ`, costs and b(ξ) as
    fmpq vectors), computed once per instance."""
    if inst.q is None:
        import flint

        Q = flint.fmpq
        A = SparseQ.from_rational(inst.A)
        At = A.T                                     # sorted by A's column, then row
        starts = np.searchsorted(At.rows, np.arange(inst.n + 1))
        inst.q = (At, starts, fmpq_vector(inst.cost), fmpq_vector(inst.rhs),
                  np.array([Q(v) for v in inst.slack], dtype=object))
    return inst.q


def _basis_matrix(inst: ExactInstance, basis: list[int]) -> SparseQ:
    """B = the columns ``basis`` of [A D] as a square :class:`SparseQ`."""
    At, starts, _, _, slack = _fmpq_data(inst)
    rows, cols, vals = [], [], []
    for k, j in enumerate(basis):
        if j >= inst.n:
            rows.append(np.array([j - inst.n]))
            vals.append(slack[j - inst.n:j - inst.n + 1])
        else:
            rows.append(At.cols[starts[j]:starts[j + 1]])
            vals.append(At.vals[starts[j]:starts[j + 1]])
        cols.append(np.full(len(rows[-1]), k, dtype=np.int64))
    return SparseQ((inst.m, inst.m), np.concatenate(rows), np.concatenate(cols),
                   np.concatenate(vals) if vals else np.empty(0, dtype=object))


def _factor(inst: ExactInstance, basis: list[int], what: str) -> UpdatedFactor:
    """A fresh exact factorisation of the basis matrix, kept in ``inst.factors`` (shared by the
    instances of every ξ when ε does not enter A: the basis matrix is then the same at every ξ)
    for the next start or ξ that asks for the same basis."""
    key = tuple(basis)
    factor = inst.factors.get(key)
    if factor is None:
        try:
            factor = ExactFactor(_basis_matrix(inst, basis))
        except SingularMatrixError as exc:
            raise ExactSimplexError(f"{what} is singular in exact arithmetic ({exc})") from exc
        if len(inst.factors) >= FACTOR_CACHE:
            inst.factors.pop(next(iter(inst.factors)))
        inst.factors[key] = factor
    return UpdatedFactor(factor)


def _column(inst: ExactInstance, j: int) -> np.ndarray:
    """Column j of [A D] as a dense fmpq vector."""
    At, starts, _, _, slack = _fmpq_data(inst)
    out = fmpq_zeros(inst.m)
    if j >= inst.n:
        out[j - inst.n] = slack[j - inst.n]
    else:
        out[At.cols[starts[j]:starts[j + 1]]] = At.vals[starts[j]:starts[j + 1]]
    return out


def statuses_to_basis(inst: ExactInstance, col_basis, row_basis) -> list[int]:
    """HiGHS's statuses as the list of basic variables (columns j, slacks n + i)."""
    basis = [j for j in range(inst.n) if col_basis[j] == BASIS_BASIC] + \
            [inst.n + i for i in range(inst.m) if row_basis[i] == BASIS_BASIC]
    if len(basis) != inst.m:
        raise ExactSimplexError(f"the starting basis has {len(basis)} basic variables for "
                                f"{inst.m} rows")
    return basis


def basis_to_statuses(inst: ExactInstance, basis: list[int]) -> tuple[np.ndarray, np.ndarray]:
    cols = np.array([BASIS_LOWER if k == NONNEG else BASIS_ZERO for k in inst.kinds[:inst.n]],
                    dtype=np.int8)
    rows = np.full(inst.m, BASIS_LOWER, dtype=np.int8)
    for j in basis:
        if j < inst.n:
            cols[j] = BASIS_BASIC
        else:
            rows[j - inst.n] = BASIS_BASIC
    return cols, rows


def _double(p: int, q: int) -> float:
    """p/q correctly rounded (Python's int / int), ±inf past the largest double (an enclosure
    with an infinite entry decides nothing where it enters)."""
    try:
        return p / q
    except OverflowError:
        return float("inf") if (p > 0) == (q > 0) else float("-inf")


def _bounds(inst: ExactInstance) -> ReducedCostBounds:
    """Float enclosures of the reduced costs (:mod:`~lpgame.equilibria.refinements.reduced_cost_bounds`)
    over [A D], built once per instance from correctly rounded copies of the exact data."""
    if inst.bounds is None:
        den = inst.den
        # RationalMatrix holds each (row, column) once (repeated entries added exactly), so
        # each double is one correctly rounded entry
        a = np.array([_double(v, den) for v in inst.nums.tolist()], dtype=float)
        rows = np.concatenate([inst.A.cols, np.arange(inst.n, inst.n + inst.m)])
        cols = np.concatenate([inst.A.rows, np.arange(inst.m)])
        data = np.concatenate([a, np.asarray(inst.slack, dtype=float)])
        mt = sp.csr_array((data, (rows, cols)), shape=(inst.n + inst.m, inst.m))
        inst.bounds = ReducedCostBounds(mt, np.array([_double(v.numerator, v.denominator)
                                                      for v in inst.cost]))
    return inst.bounds


def _exact_reduced_cost(inst: ExactInstance, pi: np.ndarray, j: int, phase1: bool) -> flint.fmpq:
    """d_j = c̄_j − a_jᵀπ exactly (phase 1: −a_jᵀπ), for one variable."""
    import flint

    Q0 = flint.fmpq(0)
    At, starts, cost, _, slack = _fmpq_data(inst)
    if j >= inst.n:
        dot = slack[j - inst.n] * pi[j - inst.n]
    else:
        s, e = starts[j], starts[j + 1]
        dot = sum((At.vals[s:e] * pi[At.cols[s:e]]).tolist(), Q0)
    return -dot if phase1 else cost[j] - dot


def _magnitude(value: flint.fmpq) -> float:
    """|value| as a correctly rounded double (inf past the largest double)."""
    try:
        return float(abs(value))
    except OverflowError:
        return float("inf")


def _pricing(inst: ExactInstance, pi: np.ndarray, phase1: bool, in_basis: np.ndarray,
             bland: bool | None) -> tuple[int, int | None, flint.fmpq | None]:
    """(number of eligible entering variables, the one chosen, its exact d_q). Eligible: a nonbasic
    variable, not fixed, with d_j < 0, or free with d_j ≠ 0. Chosen by Bland's rule (least index)
    when ``bland``, Dantzig's (largest |d_j|, then least index) when False, none when None.

    The signs come from rigorous float enclosures where they exclude 0; the entries they do not
    decide, and every eligible entry whose |d_j| may be the largest, are computed exactly, so the
    choice is the one the exact vector d gives."""
    keep = ~in_basis & inst.fixed_mask
    if inst.kind_array is None:
        inst.kind_array = np.asarray(inst.kinds, dtype=np.int64)
    free = inst.kind_array == FREE
    enclosure = _bounds(inst).enclose(pi, with_cost=not phase1)
    if enclosure is None:
        value = np.zeros(inst.n + inst.m)
        radius = np.full(inst.n + inst.m, np.inf)
    else:
        value, radius = enclosure
    sign = decided_signs(value, radius)
    exact: dict[int, flint.fmpq] = {}
    for j in np.flatnonzero(keep & (sign == 0)).tolist():
        d = _exact_reduced_cost(inst, pi, j, phase1)
        if d:
            exact[j] = d
    eligible_mask = keep & (sign != 0) & ((sign < 0) | free)
    extra = [j for j, d in exact.items() if d < 0 or free[j]]
    count = int(eligible_mask.sum()) + len(extra)
    if not count or bland is None:
        return count, None, None
    if bland:
        first = np.flatnonzero(eligible_mask)
        q = min(([int(first[0])] if len(first) else []) + extra)
        d_q = exact.get(q)
        return count, q, d_q if d_q is not None else _exact_reduced_cost(inst, pi, q, phase1)
    idx = np.flatnonzero(eligible_mask)
    size = np.abs(value[idx])
    high = (size + radius[idx]) * (1 + 2.0 ** -50)
    known = {j: _magnitude(exact[j]) for j in extra}
    # the largest |d_j| is at least every lower end: no entry whose upper end is below it can win
    lows = [float(((size - radius[idx]) * (1 - 2.0 ** -50)).max())] if len(idx) else []
    floor = max(lows + [v * (1 - 2.0 ** -50) for v in known.values()])
    candidates = [j for j, v in known.items() if v * (1 + 2.0 ** -50) >= floor]
    for j in idx[high >= floor].tolist():
        exact[j] = _exact_reduced_cost(inst, pi, j, phase1)
        candidates.append(j)
    q = max(candidates, key=lambda j: (abs(exact[j]), -j))
    return count, q, exact[q]


def infeasibilities(inst: ExactInstance, basis: list[int]) -> tuple[int, int]:
    """(primal, dual) infeasible variables of a basis: how far it is from optimal at ξ."""
    _, _, cost, rhs, _ = _fmpq_data(inst)
    factor = _factor(inst, basis, "the basis")
    x = factor.solve(rhs)
    primal = sum(1 for k, j in enumerate(basis) if _violation(inst.kinds[j], x[k]))
    pi = factor.solve_t(cost[basis])
    in_basis = np.zeros(inst.n + inst.m, dtype=bool)
    in_basis[basis] = True
    dual, _, _ = _pricing(inst, pi, False, in_basis, None)
    return primal, dual


def _violation(kind: int, value) -> int:
    """−1 below its lower bound 0, +1 above its upper bound 0 (fixed), 0 within bounds."""
    if kind == FREE:
        return 0
    if value < 0:
        return -1
    if kind == FIXED and value > 0:
        return 1
    return 0


def _signs(x: np.ndarray) -> np.ndarray:
    """The signs of an fmpq array: from its doubles (a rounded nonzero rational keeps its sign),
    exactly where a double is 0 (an exact 0, or an underflow) or the conversion overflows."""
    try:
        sign = np.sign(x.astype(float)) if len(x) else np.zeros(0)
    except (OverflowError, ValueError, TypeError):
        return np.array([(v > 0) - (v < 0) for v in x.tolist()], dtype=np.int64)
    zero = np.flatnonzero(sign == 0)
    if len(zero):
        sign[zero] = [(v > 0) - (v < 0) for v in x[zero].tolist()]
    return sign.astype(np.int64)


def _violations(inst: ExactInstance, basis: list[int], x: np.ndarray) -> list[int]:
    """:func:`_violation` of every basic variable, as whole-array comparisons."""
    if inst.kind_array is None:
        inst.kind_array = np.asarray(inst.kinds, dtype=np.int64)
    kinds = inst.kind_array[basis]
    sign = _signs(x)
    below = (sign < 0) & (kinds != FREE)
    above = (sign > 0) & (kinds == FIXED)
    return (above.astype(np.int64) - below.astype(np.int64)).tolist()


def exact_simplex_at(inst: ExactInstance, basis: list[int], deadline: float | None = None,
                     max_pivots: int = MAX_PIVOTS
                     ) -> tuple[list[int], list[Fraction], list[Fraction], int]:
    """Pivot from ``basis`` to an exactly optimal basis of P(ξ) (module docstring). Returns the
    basis, its basic values x_B, the row duals π = B⁻ᵀ c̄_B of the minimisation form and the
    number of pivots."""
    import flint

    Q, Q0 = flint.fmpq, flint.fmpq(0)
    basis = list(basis)
    _, _, cost, rhs, _ = _fmpq_data(inst)
    factor = _factor(inst, basis, "the starting basis")
    x = factor.solve(rhs)
    in_basis = np.zeros(inst.n + inst.m, dtype=bool)
    in_basis[basis] = True
    pivots = stalled = 0
    bland = False
    progress = None
    while True:
        if deadline is not None and time.perf_counter() > deadline:
            raise ExactSimplexError(f"time limit reached after {pivots} exact pivots at ξ = {inst.xi}")
        if pivots >= max_pivots:
            raise ExactSimplexError(f"no optimal basis at ξ = {inst.xi} after {max_pivots} pivots")
        viol = _violations(inst, basis, x)
        phase1 = any(viol)
        if phase1:
            cb = np.array([Q(v) for v in viol], dtype=object)   # minimise Σ −x (below) + Σ x (above)
            measure = (1, sum((v * x[k] for k, v in enumerate(viol) if v), Q0))
        else:
            cb = cost[basis]
            measure = (0, sum((c * v for c, v in zip(cb.tolist(), x.tolist()) if c and v), Q0))
        if progress is not None and not measure < progress:
            stalled += 1
            bland = bland or stalled >= STALL
        else:
            stalled = 0
        progress = measure
        pi = factor.solve_t(cb)
        count, q, d_q = _pricing(inst, pi, phase1, in_basis, bland)
        if not count:
            if phase1:
                raise ExactSimplexError(f"P({inst.xi}) is infeasible in exact arithmetic (phase 1 "
                                        "ends with a violated bound)")
            return basis, to_fractions(x), to_fractions(pi), pivots
        direction = 1 if d_q < 0 else -1            # a free column may decrease
        alpha = factor.solve(_column(inst, q))
        nz = np.flatnonzero(alpha.astype(bool))
        leaving, step = None, None
        for k in nz.tolist():
            rate = -direction * alpha[k]            # d x_k / d t
            j = basis[k]
            kind, v = inst.kinds[j], viol[k]
            if rate > 0:
                blocks = v < 0 or (kind == FIXED and v == 0)
            else:
                blocks = v > 0 or (kind != FREE and v == 0)
            if not blocks:
                continue
            t = -x[k] / rate
            if step is None or t < step or (t == step and j < basis[leaving]):
                leaving, step = k, t
        if leaving is None:
            raise ExactSimplexError(f"P({inst.xi}) is unbounded in exact arithmetic"
                                    if not phase1 else "phase 1 found no breakpoint")
        if step:
            x[nz] = x[nz] - alpha[nz] * (step * direction)
        x[leaving] = step * direction
        in_basis[basis[leaving]] = False
        in_basis[q] = True
        basis[leaving] = q
        pivots += 1
        if factor.updates + 1 >= REFACTOR_EVERY:
            factor = _factor(inst, basis, "a basis of the exact simplex")
        else:
            factor.replace(leaving, alpha)


def exact_solution(inst: ExactInstance, lp, basis: list[int], x: list[Fraction],
                   pi: list[Fraction], pivots: int, seconds: float) -> LPSolution:
    """The exact optimum at ξ as an :class:`LPSolution` over ``lp`` (= P(ξ)): basis statuses for
    the stability test, and the values and row duals (∂objective/∂b, the convention of
    :mod:`lpgame.lp.solution`) as floats, for a partial answer."""
    values = np.zeros(inst.n)
    for k, j in enumerate(basis):
        if j < inst.n:
            values[j] = float(x[k])
    cols, rows = basis_to_statuses(inst, basis)
    sign = -1 if lp.sense == "max" else 1
    objective = float(sign * sum((inst.cost[j] * x[k] for k, j in enumerate(basis)), Fraction(0)))
    return LPSolution(lp=lp, backend="exact", status=f"optimal in exact arithmetic at ξ = {inst.xi}",
                      objective=objective, col_values=values,
                      row_duals=np.array([float(sign * p) for p in pi]),
                      col_basis=cols, row_basis=rows, seconds=seconds,
                      info={"exact_pivots": pivots, "xi": str(inst.xi)})


__all__ = ["EXACT_SCHEDULE", "ExactInstance", "ExactSimplexError", "exact_instance",
           "exact_simplex_at", "exact_solution", "infeasibilities", "statuses_to_basis",
           "basis_to_statuses"]
