"""An exact criss-cross simplex over ℚ(ε) for trembling LPs whose ε is in b and c only.

When floating point cannot resolve P(ξ) at a small ξ (the ε^4 terms of a QPE program fall below
HiGHS's tolerances), the limit loop of :mod:`lpgame.equilibria.refinements.limit` first runs an exact simplex
at fixed rational ξ (:mod:`lpgame.equilibria.refinements.exact_limit`, the counterpart of the thesis's
GLOP-MPFR stage, Farina 2023 L5813) and, as the last resort (the thesis kept a rational simplex as one), this
exact method from the HiGHS basis nearest to stable. It is not monotone: from a basis with many wrong
signs it can wander (Leduc L2232 QPE: no optimal basis after its cap of 2,000 pivots).

The LP ``max c(ε)ᵀz s.t. A z (≤, =, ≥) b(ε)`` is put in the form A z + D s = b(ε) with one slack per
row (D = +1 for ≤ and =, −1 for ≥; s ≥ 0, or s = 0 for an equality row); structural columns are
≥ 0 or free. ε is treated as a positive infinitesimal: a polynomial p(ε) = Σ a_k ε^k is positive
when its first nonzero coefficient is, which is the sign of p on some (0, ε̄]. Over this ordered
field the basic solution x_B = B⁻¹ b(ε), the duals π = B⁻ᵀ c_B(ε) and the reduced costs
d = c − [A D]ᵀ π are polynomials (B is constant), computed exactly with the basis solver of
:mod:`lpgame.lp.exact`.

The pivoting rule is the least-index criss-cross method (Terlaky 1985; Fukuda & Terlaky 1997,
"Criss-cross methods: a fresh view on pivot algorithms"): take the smallest-index variable that is
primal infeasible (basic, s or z below 0, an equality slack nonzero) or dual infeasible (nonbasic,
d_j > 0 for a column at 0, d_j ≠ 0 for a free one); if basic, it leaves and the smallest-index
nonbasic variable that can repair it enters; if nonbasic, it enters and the smallest-index basic
variable it can move leaves. It needs no feasible start and terminates; from a basis that is nearly
optimal it typically needs few pivots. The basis it ends with is optimal for all small ε > 0, i.e.
stable; it is handed back to :func:`lpgame.equilibria.refinements.limit.certify_stable_basis`, which checks it
independently.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from lpgame.equilibria.refinements.exact_limit import solve_scaled
from lpgame.errors import LpgameError
from lpgame.lp.exact import SparseRational
from lpgame.lp.solution import BASIS_BASIC, BASIS_LOWER, BASIS_ZERO
from lpgame.rational import RationalMatrix

NONNEG, FREE, FIXED = 0, 1, 2


class CrissCrossError(LpgameError):
    """The criss-cross method stopped without an optimal basis (pivot or time limit, or a
    certificate of infeasibility or unboundedness of the perturbed LP); the message says which."""


def _sign(poly: list[Fraction]) -> int:
    for a in poly:
        if a:
            return 1 if a > 0 else -1
    return 0


def lexicographic_criss_cross(tlp, col_basis: np.ndarray, row_basis: np.ndarray,
                              max_pivots: int = 2000, time_limit: float | None = None
                              ) -> tuple[np.ndarray, np.ndarray, int]:
    """From the basis (HiGHS's column and row statuses) to an optimal basis of P(ε) for all small
    ε > 0 (module docstring). Returns (column statuses, row statuses, pivots)."""
    start = time.perf_counter()
    powers = tlp.exact_powers()
    if any(A is not None for k, (_, A, _) in powers.items() if k > 0):
        raise CrissCrossError("the criss-cross method over ℚ(ε) needs ε in b and c only")
    senses = tlp._senses
    lp = tlp.base
    A: RationalMatrix = powers[0][1]
    m, n = A.shape
    sign = 1 if lp.sense == "max" else -1
    degree = max(powers)
    cost = [[sign * c for c in powers[k][0]] + [Fraction(0)] * m for k in range(degree + 1)]
    rhs = [list(powers[k][2]) for k in range(degree + 1)]
    col_lower = np.concatenate([b.lower for b in lp.variables])
    kinds = [NONNEG if np.isfinite(col_lower[j]) else FREE for j in range(n)]
    slack = [Fraction(-1) if s == ">=" else Fraction(1) for s in senses]
    kinds += [FIXED if s == "==" else NONNEG for s in senses]
    basis = [j for j in range(n) if col_basis[j] == BASIS_BASIC] + \
            [n + i for i in range(m) if row_basis[i] == BASIS_BASIC]
    if len(basis) != m:
        raise CrissCrossError(f"the starting basis has {len(basis)} basic variables, not {m}")
    a_rows, a_cols, a_data = A.rows.tolist(), A.cols.tolist(), A.data
    by_col: dict[int, list[tuple[int, Fraction]]] = {}
    for r, c, v in zip(a_rows, a_cols, a_data):
        by_col.setdefault(c, []).append((r, v))

    def column(j: int) -> list[tuple[int, Fraction]]:
        return by_col.get(j, []) if j < n else [(j - n, slack[j - n])]

    pivots = 0
    while True:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            raise CrissCrossError(f"time limit {time_limit} s reached after {pivots} pivots")
        rows, cols, data = [], [], []
        for k, j in enumerate(basis):
            for r, v in column(j):
                rows.append(r)
                cols.append(k)
                data.append(v)
        B = RationalMatrix((m, m), rows, cols, data)
        Bs = SparseRational(B.rows, B.cols, B.data, (m, m), B.scaled())
        xs = [solve_scaled(Bs, b, "a basis of the criss-cross method") if any(b)
              else [Fraction(0)] * m for b in rhs]
        pis = []
        for c in cost:
            cb = [c[j] for j in basis]
            pis.append(solve_scaled(Bs.T, cb, "the duals of the criss-cross method") if any(cb)
                       else [Fraction(0)] * m)
        in_basis = {j: k for k, j in enumerate(basis)}
        # reduced costs d_j = c_j − a_jᵀπ, per power
        reduced = []
        for c, pi in zip(cost, pis):
            at = A.rmatvec(pi) if any(pi) else [Fraction(0)] * n
            reduced.append([c[j] - at[j] for j in range(n)] +
                           [-slack[i] * pi[i] for i in range(m)])
        infeasible = None
        for j in range(n + m):           # least index first
            if j in in_basis:
                value = [x[in_basis[j]] for x in xs]
                s = _sign(value)
                if (kinds[j] == NONNEG and s < 0) or (kinds[j] == FIXED and s != 0):
                    infeasible = ("primal", j, s)
                    break
            else:
                d = [r[j] for r in reduced]
                s = _sign(d)
                if (kinds[j] == NONNEG and s > 0) or (kinds[j] == FREE and s != 0):
                    infeasible = ("dual", j, s)
                    break
        if infeasible is None:
            break
        if pivots >= max_pivots:
            raise CrissCrossError(f"no optimal basis after {max_pivots} criss-cross pivots")
        kind, j, s = infeasible
        if kind == "primal":
            p = in_basis[j]
            e = [Fraction(0)] * m
            e[p] = Fraction(1)
            rho = solve_scaled(Bs.T, e, "a row of the criss-cross tableau")
            alpha = A.rmatvec(rho) + [slack[i] * rho[i] for i in range(m)]
            # x_j moves by −alpha_q per unit increase of x_q; raise it if negative, lower if positive
            want = 1 if s < 0 else -1
            entering = None
            for q in range(n + m):
                if q in in_basis or kinds[q] == FIXED or not alpha[q]:
                    continue
                move = -alpha[q]       # change of x_j when x_q increases
                if kinds[q] == FREE or (move > 0) == (want > 0):
                    entering = q
                    break
            if entering is None:
                raise CrissCrossError("the perturbed LP is infeasible near ε = 0 (criss-cross)")
            basis[p] = entering
        else:
            col = [Fraction(0)] * m
            for r, v in column(j):
                col[r] = v
            alpha = solve_scaled(Bs, col, "a column of the criss-cross tableau")
            direction = 1 if s > 0 else -1      # x_j increases (d > 0) or, if free, decreases
            leaving = None
            for k, q in sorted(((k, q) for k, q in enumerate(basis)), key=lambda t: t[1]):
                if kinds[q] == FREE or not alpha[k]:
                    continue
                change = -alpha[k] * direction   # change of x_q per unit move of x_j
                if kinds[q] == FIXED or change < 0:
                    leaving = k
                    break
            if leaving is None:
                raise CrissCrossError("the perturbed LP is unbounded near ε = 0 (criss-cross)")
            basis[leaving] = j
        pivots += 1
    cols_out = np.array([BASIS_LOWER if kinds[j] == NONNEG else BASIS_ZERO for j in range(n)])
    rows_out = np.full(m, BASIS_LOWER)
    for j in basis:
        if j < n:
            cols_out[j] = BASIS_BASIC
        else:
            rows_out[j - n] = BASIS_BASIC
    return cols_out, rows_out, pivots
