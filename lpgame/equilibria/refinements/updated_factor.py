"""An exact basis factorisation updated between simplex pivots: B = B₀ E₁ E₂ ⋯ E_k (product form).

The revised simplex method solves B α = a_q and Bᵀ π = c_B at every pivot with the current basis
matrix B. Refactorising B at every pivot costs a whole factorisation; the **product form of the
inverse** (Dantzig & Orchard-Hays 1954; Chvátal 1983, ch. 24; Maros 2003, §8.1) keeps one
factorisation of an earlier basis B₀ and one *eta* matrix per pivot since: when column r of B is
replaced by a_q, with α = B⁻¹ a_q (the entering column the ratio test already computed),

    B' = B E,   E = I with column r replaced by α,

so B'⁻¹ = E⁻¹ B⁻¹ and B'⁻ᵀ = B⁻ᵀ E⁻ᵀ, where, exactly,

    E⁻¹ y:  y_r ← y_r / α_r,  y_i ← y_i − α_i y_r (i ≠ r);
    E⁻ᵀ c:  c_r ← (c_r − Σ_{i≠r} α_i c_i) / α_r.

B₀ is factorised exactly by :class:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor`
(block triangular form, sparse LU, python-flint rationals); :class:`UpdatedFactor` applies the
etas after (M x = b) or before (Mᵀ y = c) its solve. In exact arithmetic the etas are no source of
error, only of work, so the owner refactorises after :data:`REFACTOR_EVERY` pivots (the eta file
grows by one dense-ish column per pivot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lpgame.equilibria.refinements.exact_sparse_factor import ExactFactor, SingularMatrixError, SparseQ

if TYPE_CHECKING:
    import flint

REFACTOR_EVERY = 40
"""Pivots between two fresh factorisations of the basis matrix."""


class UpdatedFactor:
    """Exact solves with B₀ E₁ ⋯ E_k (module docstring). ``matrix``: B₀ as a square
    :class:`SparseQ` (raises :class:`SingularMatrixError` when it is singular), or its
    :class:`ExactFactor` (not changed by the updates)."""

    def __init__(self, matrix: SparseQ | ExactFactor):
        self.factor = matrix if isinstance(matrix, ExactFactor) else ExactFactor(matrix)
        self.n = self.factor.n
        self.etas: list[tuple[int, flint.fmpq, np.ndarray, np.ndarray]] = []

    @property
    def updates(self) -> int:
        return len(self.etas)

    def replace(self, r: int, alpha: np.ndarray) -> None:
        """Column r of B becomes the column a with B⁻¹ a = ``alpha`` (fmpq object array, the
        entering column in the current basis); α_r must be nonzero."""
        pivot = alpha[r]
        if not pivot:
            raise SingularMatrixError(f"eta update with a zero pivot at position {r}")
        idx = np.flatnonzero(alpha.astype(bool))
        idx = idx[idx != r]
        self.etas.append((r, pivot, idx, alpha[idx].copy()))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with B x = rhs (object arrays of fmpq)."""
        y = self.factor.solve(rhs)
        for r, pivot, idx, vals in self.etas:
            yr = y[r]
            if yr:
                yr = yr / pivot
                y[r] = yr
                if len(idx):
                    y[idx] = y[idx] - vals * yr
        return y

    def solve_t(self, rhs: np.ndarray) -> np.ndarray:
        """y with Bᵀ y = rhs."""
        c = rhs.copy()
        if self.etas:
            import flint

            nonzero = c.astype(bool)
            for r, pivot, idx, vals in reversed(self.etas):
                value = c[r]
                if len(idx):
                    mask = nonzero[idx]
                    if mask.any():
                        value = value - sum((vals[mask] * c[idx[mask]]).tolist(), flint.fmpq(0))
                if value:
                    value = value / pivot
                c[r] = value
                nonzero[r] = bool(value)
        return self.factor.solve_t(c)


__all__ = ["REFACTOR_EVERY", "UpdatedFactor"]
