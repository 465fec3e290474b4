"""Rigorous floating-point enclosures of exact reduced costs d = c − Mᵀπ (the exact simplex's pricing).

The exact simplex at a fixed ξ (:mod:`lpgame.equilibria.refinements.exact_limit`) needs, at every
pivot, the signs of the reduced costs d_j = c_j − m_jᵀπ of all nonbasic variables (which may
enter) and the largest |d_j| among those of the right sign (Dantzig's rule), where M = [A D] and π
are exact rationals. Computing all of d in rationals costs one rational product per nonzero of M;
most signs are far from 0, and a floating-point evaluation with a *proven* error bound decides them.
Only the entries whose enclosure contains 0 (in degenerate LPs, typically the d_j that are exactly
0) and the few that may be the largest are then computed exactly (precision raised only where
the floating-point oracle fails, issue 37).

**The bound.** Let u = 2⁻⁵³ (unit round-off), c̃, m̃, π̃ the correctly rounded doubles of c, m, π
(Python's int/int division and python-flint's fmpq → float are correctly rounded, so
|x̃ − x| ≤ u|x| + η with η = 2⁻¹⁰⁷⁴ for underflow), and d̂ the computed c̃ − Σ_i m̃_i π̃_i with
k_j nonzeros in column j. The classical dot-product analysis (Higham 2002, *Accuracy and
Stability of Numerical Algorithms*, §3.1, Eq. (3.5): |fl(xᵀy) − xᵀy| ≤ γ_k |x|ᵀ|y|,
γ_k = ku/(1 − ku)) together with the rounding of the data gives

    |d̂_j − d_j| ≤ γ_{k_j+4} (|c̃_j| + Σ_i |m̃_ij| |π̃_i|) + (k_j + 4)·2η,

and the computed ŝ_j = fl(|c̃_j| + Σ|m̃_ij||π̃_i|) is at least (1 − γ_{k_j+1}) times the exact sum.
The radius used here, r_j = 4 (k + 4) u ŝ_j + 2⁻⁹⁹⁰ with k = max_j k_j, is larger than both
bounds together for k u < 1/100, so |d̂_j| > r_j proves sign(d_j) = sign(d̂_j), and
|d_j| ∈ [|d̂_j| − r_j, |d̂_j| + r_j]. A π whose entries overflow a double, or a non-finite
result, decides nothing (:meth:`ReducedCostBounds.enclose` returns None, or an infinite radius).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

UNIT_ROUNDOFF = 2.0 ** -53
TINY = 2.0 ** -990
"""Absolute term of the radius: covers underflow (2⁻¹⁰⁷⁴ per operation) with a wide margin."""


class ReducedCostBounds:
    """Enclosures of d = cost − Mᵀπ for exact π (module docstring). ``matrix_t``: Mᵀ as a float
    sparse matrix (one row per variable; entries correctly rounded from the exact ones),
    ``cost``: the correctly rounded costs."""

    def __init__(self, matrix_t: sp.csr_array, cost: np.ndarray):
        self.mt = sp.csr_array(matrix_t, dtype=float)
        self.abs_mt = abs(self.mt)
        self.cost = np.asarray(cost, dtype=float)
        self.abs_cost = np.abs(self.cost)
        k = int(np.diff(self.mt.indptr).max()) if self.mt.shape[0] else 0
        if (k + 4) * UNIT_ROUNDOFF * 100 >= 1:      # pragma: no cover - columns of 10¹³ entries
            raise ValueError("reduced-cost bounds: columns too long for the error bound")
        self.factor = 4.0 * (k + 4) * UNIT_ROUNDOFF

    def enclose(self, pi: np.ndarray, with_cost: bool = True
                ) -> tuple[np.ndarray, np.ndarray] | None:
        """(d̂, r) with |d − d̂| ≤ r entrywise, for π an object array of exact rationals (fmpq or
        Fraction); d = −Mᵀπ when ``with_cost`` is False (phase 1). None when π does not fit in
        doubles."""
        try:
            pf = pi.astype(float) if len(pi) else np.zeros(0)
        except (OverflowError, ValueError, TypeError):
            return None
        if not np.all(np.isfinite(pf)):
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            value = -(self.mt @ pf)
            size = self.abs_mt @ np.abs(pf)
            if with_cost:
                value = value + self.cost
                size = size + self.abs_cost
            radius = self.factor * size + TINY
        bad = ~(np.isfinite(value) & np.isfinite(radius))
        if bad.any():
            value[bad] = 0.0
            radius[bad] = np.inf
        return value, radius


def decided_signs(value: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """+1 / −1 where the enclosure (value ± radius) excludes 0, 0 where it does not decide."""
    out = np.zeros(len(value), dtype=np.int8)
    out[value > radius] = 1
    out[value < -radius] = -1
    return out


__all__ = ["ReducedCostBounds", "decided_signs"]
