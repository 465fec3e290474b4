"""The optimality certificate of an optimal CE or CCE: a dual bound that meets the value.

The LP of :mod:`lpgame.equilibria.correlated.ce_cce` is max cᵀψ over the polytope
{ψ ≥ 0, Σψ = 1, A_i ψ ≥ 0 for every player i} (Aumann 1974; Moulin & Vial 1978). Its row duals
are turned into multipliers λ ≥ 0 of the incentive rows in the game's own units, and
:func:`lpgame.analysis.correlated_dual_bound.correlated_dual_bound` (which reads only the payoff
tensor) evaluates the weak-duality bound (Chvátal 1983, ch. 5)

    OPT ≤ max_s [c(s) + Σ_k λ_k A_k(s)]      for every λ ≥ 0.

The LP is solved in unit-range form (:mod:`lpgame.lp.scaling`): player i's rows are A_i / 2^{k_i}
and the objective is (c − c_0)/S, so a dual y of that LP (lpgame's ∂objective/∂rhs, ≤ 0 on these
≥ rows of a maximisation) gives λ_i = −S·y_i / 2^{k_i}: multiplying the scaled inequality by S
and adding c_0 (Σψ = 1) gives the inequality above.

The answer is called optimal only when bound − value ≤ :data:`OPTIMALITY_TOLERANCE` × the range
of c over the profiles (floating point), or bound == value exactly (exact mode).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.correlated_dual_bound import correlated_dual_bound
from lpgame.lp.linear_program import LinearProgram

OPTIMALITY_TOLERANCE = 1e-9
"""Largest bound − value, relative to the objective's range over the profiles, called optimal."""

BOUND_METHOD = ("weak duality: the LP's incentive-row duals as multipliers λ ≥ 0, the bound "
                "max_s [c(s) + Σ λ·(incentive gains)] evaluated on the payoff tensor by "
                "lpgame.analysis.correlated_dual_bound")


def incentive_duals(lp: LinearProgram, duals, num_players: int) -> list:
    """The duals of each player's incentive block (None where the player has none), read by
    ``duals(block name)``: an LPSolution's or an ExactSolution's."""
    names = {c.name for c in lp.constraints}
    return [duals(f"incentive_p{i + 1}") if f"incentive_p{i + 1}" in names else None
            for i in range(num_players)]


def multipliers_from_duals(shape: tuple[int, ...], duals: list, exponents: list[int],
                           objective_scale, coarse: bool) -> list[np.ndarray]:
    """λ_i in the game's units from the duals of each player's incentive block (module docstring).

    ``duals[i]``: the block's duals in the LP's row order (CE: the pairs x ≠ y in row-major
    order; CCE: one per y), or None where the player has no block; ``exponents[i]`` = k_i."""
    exact = isinstance(objective_scale, Fraction)
    out = []
    for i, m in enumerate(shape):
        lam = np.zeros(m if coarse else (m, m), dtype=object if exact else float)
        if exact:
            lam[...] = Fraction(0)
        y = duals[i]
        if y is not None and len(y):
            factor = (objective_scale / Fraction(2) ** exponents[i] if exact
                      else float(objective_scale) * 2.0 ** -exponents[i])
            values = [-v * factor for v in (list(y) if exact else np.asarray(y, float))]
            if coarse:
                lam[:] = values
            else:
                rec, dev = np.nonzero(~np.eye(m, dtype=bool))
                for x, dv, v in zip(rec.tolist(), dev.tolist(), values):
                    lam[x, dv] = v
        out.append(lam)
    return out


def optimality_certificate(payoffs: np.ndarray, weights, multipliers: list, coarse: bool,
                           value) -> dict:
    """The bound of the module docstring beside ``value`` (the objective of the returned
    distribution): ``objective_bound``, ``bound_gap``, ``relative_bound_gap`` and
    ``optimality_proven``. Exact (Fractions) when the payoffs and multipliers are."""
    bound, profile = correlated_dual_bound(payoffs, weights, multipliers, coarse)
    exact = isinstance(bound, Fraction)
    coef = sum((np.asarray(payoffs[i]) * w for i, w in enumerate(weights)),
               np.zeros(payoffs.shape[1:], dtype=payoffs.dtype))
    spread = coef.max() - coef.min() if coef.dtype != object else (
        max(coef.ravel().tolist()) - min(coef.ravel().tolist()))
    gap = bound - value
    if exact:
        proven = gap == 0
        relative = gap / spread if spread else gap
    else:
        spread = float(spread)
        relative = float(gap) / spread if spread > 0 else float(gap)
        proven = bool(np.isfinite(float(bound))) and relative <= OPTIMALITY_TOLERANCE
    return {"objective_bound": bound, "bound_gap": gap, "relative_bound_gap": relative,
            "optimality_proven": bool(proven), "bound_profile": list(profile),
            "bound_method": BOUND_METHOD}
