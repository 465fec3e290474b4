"""A bound on an LP's optimum from any dual vector (weak duality with bounded variables).

**Formulation** (weak duality; e.g. Neumaier & Shcherbina, "Safe bounds in linear and mixed-integer
linear programming", Math. Program. 99 (2004), §2). For max cᵀz s.t. ℓ_r ≤ a_rᵀz ≤ u_r (rows),
l ≤ z ≤ h (columns), and ANY row vector y,

    cᵀz = yᵀAz + (c − Aᵀy)ᵀz ≤ Σ_r max_{ℓ_r ≤ t ≤ u_r} y_r t  +  Σ_j max_{l_j ≤ t ≤ h_j} d_j t,
                                                                          d = c − Aᵀy,

so U(y) = Σ_r (y_r u_r if y_r > 0 else y_r ℓ_r) + Σ_j (d_j h_j if d_j > 0 else d_j l_j) bounds the
optimum (for a minimisation, −U(−y) on −c). Entries of y whose side is unbounded are set to 0
first (a row ≥ ℓ cannot take a positive multiplier), so U(y) is finite when every column with
d_j ≠ 0 is bounded on the side its sign needs. At an optimal dual y* (lpgame's convention
∂z*/∂b), U(y*) is the optimum; at an approximate y (a solver's tolerance, a time limit) it is
still a bound, larger by what the approximation costs. Nothing here trusts the solver's claimed
objective. The sums are in float64: rounding adds about 10⁻¹⁶ per term, far below solver
tolerances; the bound is not computed in rational arithmetic.
"""

from __future__ import annotations

import numpy as np

from lpgame.lp.linear_program import LinearProgram


def weak_duality_bound(lp: LinearProgram, row_duals: np.ndarray,
                       col_lower: np.ndarray | None = None,
                       col_upper: np.ndarray | None = None) -> float:
    """U(y) of the module docstring for ``lp`` (in its own, possibly scaled, objective units):
    an upper bound on the optimum of a maximisation (a lower bound for a minimisation).

    ``col_lower``/``col_upper`` replace the LP's column bounds by *implied* ones: bounds that
    some optimal solution satisfies (the bound is then over that smaller box, which still holds
    the optimum). They let a bound be finite at any y without stating the bounds to the solver,
    where they can slow it down."""
    a = lp.assemble()
    if col_lower is not None:
        a.col_lower = np.maximum(a.col_lower, col_lower)
    if col_upper is not None:
        a.col_upper = np.minimum(a.col_upper, col_upper)
    sign = 1.0 if a.sense == "max" else -1.0
    c = sign * a.c
    y = sign * np.asarray(row_duals, dtype=float).copy()
    y[(y > 0) & ~np.isfinite(a.row_upper)] = 0.0
    y[(y < 0) & ~np.isfinite(a.row_lower)] = 0.0
    rows = np.where(y > 0, y * np.where(np.isfinite(a.row_upper), a.row_upper, 0.0),
                    y * np.where(np.isfinite(a.row_lower), a.row_lower, 0.0)).sum()
    d = c - a.A.T @ y
    high = np.where(d > 0, a.col_upper, a.col_lower)
    if np.any((d != 0) & ~np.isfinite(high)):
        return np.inf if sign > 0 else -np.inf
    cols = np.where(d != 0, d * np.where(np.isfinite(high), high, 0.0), 0.0).sum()
    bound = float(rows + cols) + sign * a.objective_constant
    return sign * bound
