"""Realisability of a two-player correlation plan: a distribution over pairs of reduced plans.

A correlation plan ξ over the relevant sequence pairs (Farina 2023, Def. 9.1) is *realisable* when
some distribution μ over pairs of reduced plans (π_1, π_2) has f(μ) = ξ, where

    f(μ)[σ_1, σ_2] = Σ_{π_1, π_2} μ[π_1, π_2] π_1[σ_1] π_2[σ_2]

is linear in μ (the Kronecker product of the players' plan matrices, restricted to the relevant
pairs). The LP

    min ‖f(μ) − ξ‖₁   s.t.  f(μ) − o + u = ξ,  μ, o, u ≥ 0      (objective Σ o + Σ u)

has optimum 0 exactly when ξ ∈ Ξ (the polytope of realisable plans; Farina 2023, §9.1), so a zero
residual proves realisability; in exact mode the basis is certified in rationals
(:func:`lpgame.lp.solve_lp_exact`) and the residual must be exactly 0. μ ≥ 0 with
f(μ)[∅, ∅] = Σ μ = ξ[∅, ∅] = 1 at a zero residual, so μ is a distribution.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, enumerate_reduced_plans
from lpgame.errors import ModelTooLargeError
from lpgame.lp import LinearProgram, solve_lp, solve_lp_exact
from lpgame.sequence_form import SequenceForm

REALISABLE_TOLERANCE = 1e-7
"""A floating-point residual at most this (times √pairs) counts as realisable."""


@dataclass
class Decomposition:
    """A distribution over pairs of reduced plans whose correlation plan is closest to ξ."""

    residual: float                  # ‖f(μ) − ξ‖₁ (0: ξ is realisable)
    realisable: bool
    distribution: np.ndarray         # (|Π_1|, |Π_2|)
    plans: list[np.ndarray]


def decompose_on_pairs(sf: SequenceForm, xi, space, max_profiles: int, max_nonzeros: int,
                       backend: str = "highs", tolerance: float = REALISABLE_TOLERANCE,
                       exact: bool = False, **options) -> Decomposition:
    """Find μ ∈ Δ(Π_1 × Π_2) minimising ‖f(μ) − ξ‖₁ over the relevant pairs of ``space`` (a
    :class:`~lpgame.equilibria.correlated.efce.CorrelationPlanSpace`; module docstring).

    Refused with :class:`~lpgame.errors.ModelTooLargeError` when |Π_1|·|Π_2| > ``max_profiles``
    or the matrix of f would have more than ``max_nonzeros`` entries. ``exact``: ξ is a list of
    Fractions, the basis is certified in rationals, and the residual and μ are Fractions
    (realisable only when the residual is exactly 0).
    """
    counts = [count_reduced_plans(sf, i) for i in range(2)]
    if counts[0] * counts[1] > max_profiles:
        raise ModelTooLargeError(
            f"{sf.game.name}: decomposing a correlation plan needs {counts[0]:,} × {counts[1]:,} = "
            f"{counts[0] * counts[1]:,} pure plan pairs, more than the limit of {max_profiles:,}")
    plans = [enumerate_reduced_plans(sf, i) for i in range(2)]
    # f(μ)[σ1, σ2] = Σ μ[π1, π2] π1[σ1] π2[σ2]: row of each relevant pair, column π1·|Π_2| + π2,
    # one entry per (plan of player 1 containing σ1) × (plan of player 2 containing σ2)
    holders = [sp.csr_array(plans[i].T.astype(np.int8)) for i in range(2)]   # sequence -> plans
    s1, s2 = space.pairs[:, 0], space.pairs[:, 1]
    c1 = np.diff(holders[0].indptr)[s1]
    c2 = np.diff(holders[1].indptr)[s2]
    per = c1.astype(np.int64) * c2
    nnz = int(per.sum())
    if nnz > max_nonzeros:
        raise ModelTooLargeError(
            f"{sf.game.name}: decomposing a correlation plan needs {nnz:,} nonzeros, more than the "
            f"limit of {max_nonzeros:,}")
    P = space.num_pairs
    row = np.repeat(np.arange(P), per)
    local = np.arange(nnz) - np.repeat(np.cumsum(per) - per, per)
    first = holders[0].indices[holders[0].indptr[s1][row] + local // c2[row]]
    second = holders[1].indices[holders[1].indptr[s2][row] + local % c2[row]]
    k = counts[0] * counts[1]
    f = sp.csr_array((np.ones(nnz), (row, first.astype(np.int64) * counts[1] + second)),
                     shape=(P, k))
    lp = LinearProgram(name=f"decompose:{sf.game.name}",
                       description="min ‖f(μ) − ξ‖₁ over μ ≥ 0 (Farina 2023, Def. 9.1)")
    mu = lp.add_variables("mu", k, lower=0.0)
    over = lp.add_variables("over", P, lower=0.0)
    under = lp.add_variables("under", P, lower=0.0)
    eye = sp.identity(P, format="csr")
    lp.add_constraints("plan", [(mu, f), (over, -eye), (under, eye)], "==",
                       [Fraction(v) for v in xi] if exact else np.asarray(xi, dtype=float))
    lp.set_objective([(over, np.ones(P)), (under, np.ones(P))], sense="min")
    if exact:
        options.setdefault("solver", "simplex")
        _, certified = solve_lp_exact(lp, backend=backend, **options)
        dist = np.empty(k, dtype=object)
        dist[:] = certified.values(lp, "mu")
        residual = certified.objective
        return Decomposition(residual, residual == 0, dist.reshape(counts[0], counts[1]), plans)
    sol = solve_lp(lp, backend=backend, **options)
    dist = np.clip(sol.values("mu"), 0.0, None)
    residual = float(sol.objective)
    if dist.sum() > 0:
        dist = dist / dist.sum()
    return Decomposition(residual, residual <= tolerance * max(1.0, P ** 0.5),
                         dist.reshape(counts[0], counts[1]), plans)
