"""Gaps of correlated distributions and correlation plans: the largest gain of any deviation.

These checkers verify LP answers and the outputs of learning dynamics without any LP; they read
only the game (payoff tensor, or the leaves of the sequence form) and the candidate.

**Normal form** (ψ ∈ Δ(S); Rojas Linárez 2020, Def. 1.12; notes/farina-thesis.md §1.9):

* CE gap  = max_{i, x, y} Σ_{s_{-i}} ψ(x, s_{-i}) [u_i(y, s_{-i}) − u_i(x, s_{-i})]
  (the gain of obeying every recommendation except x, which is replaced by y);
* CCE gap = max_{i, y} Σ_s ψ(s) [u_i(y, s_{-i}) − u_i(s)].

**Two-player extensive form, correlation plan** ξ[σ1, σ2] (Farina 2023, Def. 9.1). For a trigger of
player i the deviator follows the recommendations until the trigger fires and then plays any
continuation y from the trigger's information set on; its payoff against the opponent's
recommendations is linear in y, so the best continuation is found bottom-up
(as in :mod:`lpgame.analysis.best_response`):

    g_t[σ]  = Σ_{z : σ_i(z) = σ} p_c(z) u_i(z) ξ[c_t ⊕ σ_{-i}(z)]          for σ below the scope,
    V_t(j') = max_{a'} ( g_t[j'a'] + Σ_{j'' ∈ C_{j'a'}} V_t(j'') ),
    gain_t  = V_t(scope) − Σ_{z obeying t} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)].

* EFCE (Farina 2023, Def. 8.2; App. 9.B with chance, erratum 9 of the notes): triggers are the
  sequences σ̂ = (j, a); scope j; c_t = σ̂; obeying leaves: σ_i(z) ⪰ σ̂.
* EFCCE (Farina, Bianchi & Sandholm 2020; notes §1.9): triggers are information sets j, the player
  deciding to deviate on reaching j before hearing the recommendation; scope j; c_t = p_j; obeying
  leaves: those through j.
* NFCCE: one trigger per player at the root; scope the whole tree, c_t = ∅ (the deviator ignores
  every recommendation).

Each gap is max(0, largest gain). The per-trigger values are computed for all triggers at once,
one vectorised step per depth of the player's tree; :class:`TriggerGains` keeps the game's part of
that computation to measure many plans (a learner's checkpoints). :func:`plan_residual` reports how
far a plan is from the von Stengel–Forges polytope (Farina 2023, Def. 9.3), since a gap alone does
not say that ξ is a correlation plan.

**Upper bound on the optimal EFCE objective** (:class:`LagrangianBound`; weak duality of the
Lagrangian, Farina 2023 eq. (10.3)). For any λ ≥ 0 and deviator points x_{i,σ̂} of the sets
co{0, 𝒬_{i,⪰j}}, OPT ≤ max_{ξ∈Ξ} cᵀξ − λ Σ ξᵀA_{i,σ̂}x_{i,σ̂}, because an EFCE has every trigger
gain ξᵀA x ≤ 0. The deviator points are rebuilt into their sets from whatever is given; the max
is bounded over S = {Mξ = e_0, 0 ≤ ξ ≤ 1} ⊇ Ξ (M: the von Stengel–Forges rows) by any dual vector
y, as y_root + Σ max(0, g − Mᵀy), so neither the points nor the maximiser need to be trusted.
M is stored in CSR with int32 positions while they fit (float64 entries ±1), built one part at a
time; g, y and the bound are float64.

The code is split by responsibility; this module offers every name under its old path:
:mod:`lpgame.analysis.normal_form_correlated_gaps` (CE, CCE and the :class:`CorrelatedGap`
result), :mod:`lpgame.analysis.correlation_plan_gaps` (the trigger gaps of correlation plans,
their evaluator and the plan residual) and :mod:`lpgame.analysis.efce_lagrangian_bound` (the
certified upper bound).
"""

from __future__ import annotations

from lpgame.analysis.correlation_plan_gaps import (
    TriggerGains,
    efcce_gap,
    efce_gap,
    nfcce_gap,
    plan_from_distribution,
    plan_matrix,
    plan_residual,
    trigger_gains,
    vsf_rows,
)
from lpgame.analysis.efce_lagrangian_bound import CertifiedBound, LagrangianBound
from lpgame.analysis.normal_form_correlated_gaps import (
    DISTRIBUTION_TOLERANCE,
    CorrelatedGap,
    cce_gap,
    ce_gap,
)

__all__ = ["DISTRIBUTION_TOLERANCE", "CorrelatedGap", "ce_gap", "cce_gap", "plan_matrix",
           "plan_from_distribution", "trigger_gains", "TriggerGains", "efce_gap", "efcce_gap",
           "nfcce_gap", "vsf_rows", "plan_residual", "CertifiedBound", "LagrangianBound"]
