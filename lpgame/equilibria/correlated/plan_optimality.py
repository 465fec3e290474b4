"""The optimality certificate of an optimal EFCE / EFCCE / NFCCE correlation plan: a dual bound.

The LP of :mod:`lpgame.equilibria.correlated.efce` (Farina 2023, Prop. 9.1 over the von
Stengel–Forges polytope V, Def. 9.3) has the plan ξ ≥ 0 and free best-continuation values v. Weak
duality (:mod:`lpgame.lp.dual_certificate`; Chvátal 1983, ch. 5) bounds its optimum by

    U(y) = Σ_r y_r b_r + Σ_j max_{l_j ≤ z_j ≤ h_j} (c − Aᵀy)_j z_j

for any y, which is finite only if every column with a nonzero reduced cost is bounded. The bounds
used are *implied*: some optimal solution satisfies them, so U(y) over that box still bounds the
optimum.

* 0 ≤ ξ ≤ 1: ξ[∅, ∅] = 1 and Σ_a ξ[ja, τ] = ξ[p_j, τ] with ξ ≥ 0 give ξ ≤ 1 on every pair.
* |v[t, j']| ≤ B(t, j') = Σ |ξ-coefficients of the deviation rows of (t, j') and of every node
  below it| (:func:`subtree_sums`): at an optimal ξ, the exact best continuation values
  V_t(j') = max_{a'} (g_t[j'a'] + Σ V_t(j'')) satisfy every deviation row, and every feasible v
  has v ≥ V, so V_t(scope) ≤ the obedience side and v = V is optimal; |V_t(j')| is at most the
  sum of the |p_c(z) u_i(z)| ξ terms below j', each a coefficient of those rows times ξ ≤ 1.

Over V the bound holds for the relaxation, hence also for the optimum over the correlation plans
Ξ ⊆ V; a realisable plan whose value meets it is optimal.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from lpgame.lp.dual_certificate import float_dual_bound, optimality
from lpgame.lp.linear_program import LinearProgram

BOUND_METHOD = ("weak duality: the LP's duals checked against its data with implied bounds "
                "0 ≤ ξ ≤ 1 and |v| ≤ Σ|payoff coefficients| (lpgame.lp.dual_certificate)")


def implied_bounds(lp: LinearProgram) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) per column: the LP's bounds tightened by the implied ones above."""
    a = lp.assemble()
    lower, upper = a.col_lower.copy(), a.col_upper.copy()
    xi = lp.block("xi")
    cols = slice(xi.offset, xi.offset + xi.size)
    upper[cols] = np.minimum(upper[cols], 1.0)
    A = a.A.tocsr()
    names = {c.name: c for c in lp.constraints}
    for block in lp.variables:
        if not block.name.startswith("v_p"):
            continue
        rows = names.get("deviation_" + block.name[2:])
        if rows is None:
            continue
        span = slice(block.offset, block.offset + block.size)
        B = subtree_sums(A[rows.offset:rows.offset + rows.size, cols],
                         A[rows.offset:rows.offset + rows.size, span])
        lower[span] = np.maximum(lower[span], -B)
        upper[span] = np.minimum(upper[span], B)
    return lower, upper


def subtree_sums(xi_part, v_part) -> np.ndarray:
    """B(v) = Σ_{rows r of v} Σ|ξ-coefficients of r| + Σ_{children v'} B(v') per v column, read
    from the deviation rows: a row belongs to the v with coefficient +1 in it, and a v with −1 in
    it is a child (the node below the row's sequence). Iterated to its fixed point (the tree's
    depth plus one rounds)."""
    v = sp.csr_array(v_part)
    coo = sp.coo_array(v)
    plus = coo.data > 0
    owner = np.full(v.shape[0], -1, dtype=np.int64)
    owner[coo.row[plus]] = coo.col[plus]
    row_sum = np.asarray(np.abs(sp.csr_array(xi_part)).sum(axis=1)).ravel()
    base = np.bincount(owner[owner >= 0], weights=row_sum[owner >= 0], minlength=v.shape[1])
    minus = (coo.data < 0) & (owner[coo.row] >= 0)
    child = sp.csr_array((np.ones(int(minus.sum())), (owner[coo.row[minus]], coo.col[minus])),
                         shape=(v.shape[1], v.shape[1]))
    B = base.copy()
    for _ in range(v.shape[1] + 1):
        new = base + child @ B
        if np.array_equal(new, B):
            break
        B = new
    return B


def plan_optimality(lp: LinearProgram, row_duals: np.ndarray, value: float,
                    payoff_range: float) -> dict:
    """The floating-point optimality certificate of a plan LP's answer worth ``value``."""
    lower, upper = implied_bounds(lp)
    bound = float_dual_bound(lp, row_duals, lower, upper)
    return optimality(bound, value, payoff_range, maximise=True, method=BOUND_METHOD)
