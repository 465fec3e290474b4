"""The certified upper bound of an optimal-EFCE learning run: the Lagrangian bound at the
learner's best (λ, deviator points), re-derived independently of the learner.

**Formulation** (Farina 2023, eq. (10.3) and Prop. 10.1; notes/farina-thesis.md §1.10). For
any λ ≥ 0 and any deviator points x_{i,σ̂} ∈ 𝒬_{i,σ̂},

    U(λ, x) = max_{ξ ∈ Ξ}  cᵀξ − λ Σ_i Σ_σ̂ ξᵀ A_{i,σ̂} x_{i,σ̂}  ≥  OPT,

since every feasible ξ has ξᵀA_{i,σ̂}x ≤ 0. :mod:`lpgame.equilibria.correlated.efce_learning`
keeps the smallest U it met (at checkpoint averages and last iterates); this module turns it
into a certificate. For fixed deviator points U is convex in λ, so λ·2^k (``LAMBDA_SEARCH``)
are tried and the smallest kept (:func:`bound_dual_point`).

**Certified interval.** At the end, the (λ, deviator points) of the smallest U are handed to
:class:`lpgame.analysis.correlated_gaps.LagrangianBound`, which rebuilds the points into their sets,
computes g = c − λ Σ A x from the game's leaves, and checks a dual vector of the von Stengel–Forges
rows: the chain's dynamic programme read as one (:func:`chain_dual`; each split and sum of
Algorithm 9.3 is one row), its shortfall added. The result is the interval
[cᵀξ̄ of the returned plan, certified U] (``extra["bound_interval"]``, width relative to R in
``extra["relative_interval_width"]``): U ≥ OPT is certified; cᵀξ̄ is the objective of a plan whose
EFCE gap is the measured one (it may exceed OPT by what that gap buys). In a game with a triangle
the bound is HiGHS's max over 𝒱 ⊇ Ξ (small games only): still ≥ OPT, but it may not close.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpgame.analysis.correlated_gaps import LagrangianBound
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.equilibria.correlated.scaled_extension import ScaledExtensionChain

DEFAULT_MAX_LP_PAIRS = 200_000
"""Games with a triangle: the largest number of pairs for which the upper bound is certified by
HiGHS over 𝒱 (triangle-free games use the chain's dual, at any size)."""
LAMBDA_SEARCH = (-3, -2, -1, 0, 1, 2, 3)
"""The certified bound is evaluated at λ·2^k for these k (same deviator points) and the smallest
is certified: each is a valid bound, and U(λ) is convex in λ."""


def chain_dual(space: CorrelationPlanSpace, chain: ScaledExtensionChain, gradient: np.ndarray,
               scale: float = 1.0) -> tuple[float, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The dynamic programme of max_{ξ ∈ chain} ⟨gradient, ξ⟩ read as a dual vector of the
    von Stengel–Forges rows (every split and every sum of Algorithm 9.3 is one such row): split k
    over the actions of J with the other's sequence τ fixed gets max_a V(child a) on row (J, τ);
    a sum ξ[t] = Σ_a ξ[(J, a) ⊕ τ] gets −V(t) on row (J, τ); the root row gets V(root). With
    these values every dual constraint holds (with equality at sums and the root), so
    y_root = the chain's maximum. Returns (root value, per player (J, τ, value)), times ``scale``.
    """
    values = chain.entry_values(gradient, None, False)
    pairs = space.pairs
    inf = [space.trees[0].seq_infoset, space.trees[1].seq_infoset]
    parts: list[list[tuple]] = [[], []]
    if chain.num_splits:
        parent = pairs[chain.split_parent]
        child = pairs[chain.slot_entry[chain.split_first]]
        best = np.maximum.reduceat(values[chain.slot_entry], chain.split_first)
        _dual_rows(parts, parent, child, best, inf)
    if chain.sum_target.size:
        target = pairs[chain.sum_target]
        m = chain.sum_matrix.tocsr()
        member = pairs[m.indices[m.indptr[:-1]]]
        _dual_rows(parts, target, member, -values[chain.sum_target], inf)
    rows = []
    for part in parts:
        if part:
            rows.append(tuple(np.concatenate([p[k] for p in part]) for k in range(2))
                        + (np.concatenate([p[2] for p in part]) * scale,))
        else:
            rows.append((np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)))
    return float(values[chain.roots].sum()) * scale, rows


def _dual_rows(parts, fixed_pairs, summed_pairs, value, inf) -> None:
    """Row (player, J, τ) of each step: player 1's when the second sequence is the same."""
    one = summed_pairs[:, 1] == fixed_pairs[:, 1]
    parts[0].append((inf[0][summed_pairs[one, 0]], summed_pairs[one, 1], value[one]))
    parts[1].append((inf[1][summed_pairs[~one, 1]], summed_pairs[~one, 0], value[~one]))


@dataclass
class BoundDualPoint:
    """What the certificate needs from the learner, read off before its chain is freed: the
    multiplier λ, the deviator points as (deviate weights, continuations) per player, and the
    chain's dual vector (:func:`chain_dual`; None in a game with a triangle); or, when there is
    nothing to certify, the reason."""

    multiplier: float = 0.0
    deviators: list | None = None
    dual: tuple | None = None
    reason: str | None = None


def bound_dual_point(space, chain, forests, c, scale, bound_point, triangle_free: bool,
                     max_lp_pairs: int) -> BoundDualPoint:
    """The learner's smallest Lagrangian bound as a point to certify. In a triangle-free game the
    bound is convex in λ for fixed deviator points, so λ·2^k (``LAMBDA_SEARCH``) are tried and the
    smallest kept, and the chain's dynamic programme at that λ is read as a dual vector. A game
    with a triangle gets no dual vector (HiGHS maximises over 𝒱 instead) while 𝒱 has at most
    ``max_lp_pairs`` pairs."""
    if bound_point is None:
        return BoundDualPoint(reason="no checkpoint")
    lam, xs = bound_point
    if not triangle_free and space.num_pairs > max_lp_pairs:
        return BoundDualPoint(reason=f"a triangle and {space.num_pairs:,} pairs: no dual vector "
                                     f"and no LP within {max_lp_pairs:,} pairs")
    deviators = [f.deviators(x) for f, x in zip(forests, xs)]
    if not triangle_free:
        return BoundDualPoint(lam, deviators)
    penalty = sum(f.penalty(x) for f, x in zip(forests, xs))
    grad = np.zeros(chain.num_entries)
    best = None
    for k in LAMBDA_SEARCH:
        grad[:space.num_pairs] = c / scale - lam * 2.0 ** k * penalty
        value = chain.best_value(grad)
        if best is None or value < best[0]:
            best = (value, lam * 2.0 ** k)
    lam = best[1]
    grad[:space.num_pairs] = c / scale - lam * penalty
    return BoundDualPoint(lam, deviators, chain_dual(space, chain, grad, scale))


def certified_bound(sf, checkers, w, point: BoundDualPoint) -> dict:
    """The learner's best Lagrangian bound re-derived by :class:`LagrangianBound`, which trusts
    neither the deviator points (rebuilt into their sets) nor the maximiser (a dual vector whose
    shortfall is added): triangle-free games with the chain's dynamic programme as the dual;
    games with a triangle by HiGHS over 𝒱 (⊇ Ξ: a weaker bound)."""
    if point.reason is not None:
        return {"status": "none", "reason": point.reason}
    bound = LagrangianBound(sf, gains=checkers)
    if point.dual is not None:
        cert = bound.bound(w, point.multiplier, point.deviators, point.dual)
        over = "Ξ = 𝒱 (triangle-free)"
    else:
        cert = bound.bound(w, point.multiplier, point.deviators)
        over = "𝒱 ⊇ Ξ (the game has a triangle: the bound can stay above the optimum)"
    return {"status": "certified", "over": over, **cert.to_dict()}
