"""An LP optimum proven by a dual vector checked against the LP's data: a bound beside the value.

**Formulation** (weak duality with bounded variables, as in :mod:`lpgame.lp.dual_bound`;
Neumaier & Shcherbina 2004, §2; Chvátal 1983, ch. 5). For max cᵀz s.t. ℓ_r ≤ a_rᵀz ≤ u_r,
l ≤ z ≤ h and any row vector y, with d = c − Aᵀy,

    cᵀz ≤ U(y) = Σ_r (y_r u_r if y_r > 0 else y_r ℓ_r) + Σ_j (d_j h_j if d_j > 0 else d_j l_j),

entries of y whose side is unbounded set to 0 first (for a minimisation, −U(−y) on −c). Every
feasible z has cᵀz ≤ U(y), so a feasible point whose objective meets U(y) is optimal. Here:

* :func:`exact_dual_bound` evaluates U(y) in rational arithmetic from the exact data
  (:meth:`LinearProgram.assemble_exact`) for the exact duals of a certified basis; it does not
  reuse the certification's own sums, so it is a second, separate check of the dual;
* :func:`float_dual_bound` evaluates it in floats (:func:`lpgame.lp.dual_bound.weak_duality_bound`)
  with *implied* column bounds where the LP leaves columns free;
* :func:`optimality` compares a bound with the value of the returned answer: "optimal" only when
  bound − value ≤ :data:`RELATIVE_TOLERANCE` × the payoff range (floats), or bound == value
  (exact); otherwise the answer says the optimality is not proven.

Bounds come back in the game's units: the LP's objective is in unit-range form
(:mod:`lpgame.lp.scaling`), and ``lp.objective_scaling.from_unit`` maps U(y) back.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.lp.dual_bound import weak_duality_bound
from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import binary_fractions

RELATIVE_TOLERANCE = 1e-9
"""Largest bound − value, relative to the payoff range, that counts as optimal in floats."""


def exact_dual_bound(lp: LinearProgram, row_duals: list[Fraction]) -> Fraction | None:
    """U(y) of the module docstring in rationals, in the game's units (None: unbounded, a column
    with d_j ≠ 0 has no bound on the side its sign needs)."""
    c, A, senses, rhs = lp.assemble_exact()
    sign = 1 if lp.sense == "max" else -1
    y = [sign * Fraction(v) for v in row_duals]
    for r, sense in enumerate(senses):
        if (y[r] > 0 and sense == ">=") or (y[r] < 0 and sense == "<="):
            y[r] = Fraction(0)             # that side of the row is unbounded
    total = sum((v * b for v, b in zip(y, rhs) if v), Fraction(0))
    aty = A.rmatvec(y)
    lower = binary_fractions(np.concatenate([b.lower for b in lp.variables]), -np.inf)
    upper = binary_fractions(np.concatenate([b.upper for b in lp.variables]), np.inf)
    for j, (cj, a) in enumerate(zip(c, aty)):
        d = sign * cj - a
        if d == 0:
            continue
        side = upper[j] if d > 0 else lower[j]
        if side is None:
            return None
        total += d * side
    bound = sign * total + Fraction(lp.objective_constant)
    return lp.objective_scaling.from_unit(bound)


def float_dual_bound(lp: LinearProgram, row_duals: np.ndarray,
                     implied_lower: np.ndarray | None = None,
                     implied_upper: np.ndarray | None = None) -> float:
    """U(y) in floats, in the game's units (±inf where a column with d_j ≠ 0 is unbounded);
    ``implied_lower``/``implied_upper``: bounds some optimal solution satisfies
    (:func:`lpgame.lp.dual_bound.weak_duality_bound`)."""
    bound = weak_duality_bound(lp, row_duals, implied_lower, implied_upper)
    if not np.isfinite(bound):
        return float(bound)
    return float(lp.objective_scaling.from_unit(float(bound)))


def optimality(bound, value, payoff_range, maximise: bool = True, method: str = "") -> dict:
    """The optimality part of a certificate: ``objective_bound``, ``bound_gap`` (bound − value
    for a maximisation, value − bound for a minimisation), ``relative_bound_gap`` and
    ``optimality_proven`` (module docstring)."""
    out = {"objective_bound": bound, "bound_method": method}
    if bound is None or (isinstance(bound, float) and not np.isfinite(bound)):
        out.update(bound_gap=None, relative_bound_gap=None, optimality_proven=False)
        return out
    gap = (bound - value) if maximise else (value - bound)
    if isinstance(bound, Fraction) and isinstance(value, (Fraction, int)):
        spread = Fraction(payoff_range) if payoff_range else Fraction(1)
        out.update(bound_gap=gap, relative_bound_gap=gap / spread, optimality_proven=gap == 0)
        return out
    spread = float(payoff_range) if payoff_range and float(payoff_range) > 0 else 1.0
    relative = float(gap) / spread
    out.update(bound_gap=float(gap), relative_bound_gap=relative,
               optimality_proven=bool(relative <= RELATIVE_TOLERANCE))
    return out
