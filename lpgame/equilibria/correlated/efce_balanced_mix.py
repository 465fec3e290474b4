"""The balanced mix: the distribution over the current joint-plan columns that best meets the
thesis's ε-EFCE criterion, used by the target-gap run
(:mod:`lpgame.equilibria.correlated.efce_elastic_run`) of
:mod:`lpgame.equilibria.correlated.efce_n_player`.

**Why.** Farina (2023, §10.4; notes §3.4) scores an answer by "1 % of the payoff range for both
optimality and feasibility": the largest trigger-deviation gain ε and the distance of the
objective to the optimum both within t·R. The elastic master of the column generation does not
aim at that score. It maximises Σ_k μ_k c^k − M Σ_{i,σ̂} e[i,σ̂], so it pays for the *sum* of the
trigger violations, while the criterion bounds their *largest*. On games with many triggers
(L3132 has thousands) the master then gives up much more objective than the criterion asks, or,
at a smaller M, spreads too much violation. Session 14 saw both on L3132: max P3 ended 1.97 % of
R below the bound U with ε = 0.02 % of R, and a guided max P2 run 0.21 % below U with
ε = 1.49 %.

**Formulation.** Over the master's columns (joint pure plans π^k with objective coefficients
c^k) and its trigger cuts (each cut is a pure continuation q of player i below the trigger
σ̂ = (j, a), module docstring of :mod:`lpgame.equilibria.correlated.efce_master`), with U the run's
smallest upper bound on the optimal EFCE value and R the payoff range:

    min   s
    s.t.  Σ_k μ_k π_i^k[σ̂] (O_i^k[σ̂] − Σ_s q[s] h_i^k[s]) + e[i,σ̂] ≥ 0    for every cut (i, σ̂, q)
          e[i,σ̂] ≤ R·s                                                     for every trigger
          U − R·s ≤ Σ_k μ_k c^k ≤ U,      Σ_k μ_k c^k ≤ L + R·s
          Σ_k μ_k = 1,   μ ≥ 0,   e ≥ 0,   s ≥ 0,

where L ≤ OPT is a lower bound on the optimal (exact) EFCE value: the best exact EFCE over the
columns, f(0) below (the run passes it with ``two_sided``; without it the last row is left out).

e[i,σ̂] is at least the gain of every deviation of the trigger agent σ̂ that the master holds a
cut for, so at an optimum with every violated cut present (below), the largest trigger gain of μ
is at most R·s, and 0 ≤ U − objective(μ) ≤ R·s: s is μ's score max(ε, |U − objective|)/R, the
quantity that the run's stopping rule compares with the target, minimised over the columns.
(The objective is kept at most U: U is at least the optimum, so an objective above it is too
high for certain, and the score asks no more of the objective than that.) It is an LP, because
the criterion's two parts are linear in μ once the deviations are fixed.

**Why the lower bound.** An ε-EFCE's objective can lie *above* OPT: violating the triggers buys
objective, and on these games it buys much. Over the columns of a D32 max P3 run (R = 2), the
best exact EFCE had objective 0.21196, the best with ε = 0.01 % of R already 0.21785, above the
bound U = 0.21635 and so above OPT, and with ε = 1 % of R 0.5369
(``benchmarks/efce_violation_frontier.py``; docs/explanation/benchmarks.md). The rest of the
target-gap run checks ε ≤ t·R and |U − objective| ≤ t·R, which bound the objective from below
only (objective ≥ U − t·R ≥ OPT − t·R). Without L (the default run) the balanced mix spends
exactly that freedom: the violation the criterion allows, for objective that may lie more than
t·R above OPT; the run then reports L from its final columns, so the answer says how far that
side is bracketed. With L (``two_sided``), s ≤ t certifies both sides: OPT − t·R ≤ U − t·R ≤
objective ≤ L + t·R ≤ OPT + t·R, and ε ≤ t·R, which is the thesis's "1 % for both optimality and
feasibility" with OPT unknown.

**The violation frontier.** :func:`best_within_violation` is the LP

    f(v) = max Σ_k μ_k c^k  s.t.  the cuts above,  0 ≤ e[i,σ̂] ≤ v,  Σ_k μ_k = 1,  μ ≥ 0,

separated the same way. f(0) is the best exact EFCE over the columns (the two-phase master's
optimum), so f(0) ≤ OPT: the run's L. f(v) for v > 0 shows what violation buys.

**Separation.** The cuts are those of the master; after each solve the deviator's best
continuation of every recommended trigger is found against μ (the master's own separation,
with the e of this LP as the slacks) and the violated ones are added to the master, and this
LP is written again, until no cut is violated by more than the tolerance. Cuts are valid for
the master at every penalty, so they stay.

**Use.** The run measures the returned μ's gap independently
(:mod:`lpgame.analysis.n_player_correlated_gaps`); the LP's s is never taken as the certificate.
The answer is an ε-EFCE, labelled as such, as every answer of the target-gap run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np

from lpgame.lp.highs_backend import quiet_highs

MAX_SEPARATION_ROUNDS = 30
"""Solve–separate rounds of one balanced mix before it returns its last μ unconverged."""


@dataclass
class BalancedMix:
    """The balanced LP's answer: μ over the master's columns, its score s (a fraction of R,
    against the cuts it holds), whether separation found no more violated cuts (``closed``),
    the rounds, the cuts it added to the master and its seconds."""

    mu: np.ndarray
    score: float
    closed: bool
    rounds: int
    cuts_added: int
    seconds: float


def _balanced_lp(master: highspy.Highs, num_e: int, costs: np.ndarray, upper: float,
                 scale: float, lower: float | None) -> highspy.Highs:
    """The LP of the module docstring on a copy of the master's columns and cuts: the master's
    columns are [e (``num_e``), μ (one per column)], its rows [convexity, cuts]; s is the last
    column."""
    h = quiet_highs()
    h.passModel(master.getLp())
    ncol = h.getNumCol()
    inf = highspy.kHighsInf
    h.changeObjectiveSense(highspy.ObjSense.kMinimize)
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), np.zeros(ncol))
    s = ncol
    h.addCol(1.0, 0.0, inf, 0, np.zeros(0, np.int32), np.zeros(0))
    # e[j] − R·s ≤ 0 for every trigger j
    starts = np.arange(num_e, dtype=np.int32) * 2
    index = np.column_stack([np.arange(num_e), np.full(num_e, s)]).ravel().astype(np.int32)
    value = np.tile([1.0, -scale], num_e)
    h.addRows(num_e, np.full(num_e, -inf), np.zeros(num_e), index.size, starts, index, value)
    # U − R·s ≤ Σ μ c ≤ U, as two rows
    k = costs.size
    mu_cols = (num_e + np.arange(k)).astype(np.int32)
    index = np.r_[mu_cols, s, mu_cols].astype(np.int32)
    value = np.r_[costs, scale, costs]
    h.addRows(2, np.array([upper, -inf]), np.array([inf, upper]), index.size,
              np.array([0, k + 1], dtype=np.int32), index, value)
    if lower is not None:                                  # Σ μ c − R·s ≤ L
        index = np.r_[mu_cols, s].astype(np.int32)
        h.addRow(-inf, lower, index.size, index, np.r_[costs, -scale])
    return h


def _with_separation(model, build, tol: float, time_limit: float | None):
    """Solve the LP that ``build()`` writes over the master's columns and cuts (its first
    columns are the master's: e, then μ), separate the trigger cuts that its μ violates beyond
    its e by more than ``tol`` into the master, and repeat until none is added
    (``MAX_SEPARATION_ROUNDS`` at most). (solution, closed, rounds, cuts added), or None when an
    LP does not end optimal (time limit included). The solution is (all columns' values, μ)."""
    start = time.perf_counter()
    added = 0
    for rounds in range(1, MAX_SEPARATION_ROUNDS + 1):
        h = build()
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - start)
            if left <= 0:
                return None
            h.setOptionValue("time_limit", float(left))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(h.getSolution().col_value)
        mu = np.clip(x[model.num_e:model.num_e + len(model.costs)], 0.0, None)
        slacks, model.e = model.e, np.clip(x[:model.num_e], 0.0, None)
        try:
            new = model.separate(mu, tol)
        finally:
            model.e = slacks
        added += new
        if not new:
            return (x, mu), True, rounds, added
    return (x, mu), False, MAX_SEPARATION_ROUNDS, added


def balanced_mix(model, upper: float, scale: float, tol: float, time_limit: float | None,
                 lower: float | None = None) -> BalancedMix | None:
    """The balanced mix over ``model``'s columns (an :class:`lpgame.equilibria.correlated.efce_pricing.Model`)
    against the upper bound ``upper`` and, when given, the lower bound ``lower`` on the optimum
    (module docstring). ``tol``: the separation tolerance in payoff units. None when an LP does
    not end optimal (time limit included)."""
    start = time.perf_counter()
    costs = np.asarray(model.costs, dtype=float)

    def build() -> highspy.Highs:
        return _balanced_lp(model._highs, model.num_e, costs, upper, scale, lower)

    found = _with_separation(model, build, tol, time_limit)
    if found is None:
        return None
    (x, mu), closed, rounds, added = found
    score = float(x[-1])                          # s is the last column (_balanced_lp)
    return BalancedMix(mu, score, closed, rounds, added, time.perf_counter() - start)


def best_within_violation(model, violation: float, tol: float,
                          time_limit: float | None) -> tuple[np.ndarray, float, bool] | None:
    """The violation frontier over ``model``'s columns: μ maximising Σ_k μ_k c^k subject to the
    trigger cuts with every trigger slack e[i,σ̂] ≤ ``violation`` (payoff units), separated as in
    :func:`balanced_mix`: (μ, its objective, closed), or None when the LP is infeasible or does
    not end optimal. At ``violation`` 0 it is the restricted master's optimal EFCE over the
    columns; as the violation grows, it shows how much objective violating the triggers buys
    (docs/explanation/benchmarks.md, "The balanced mix")."""
    costs = np.asarray(model.costs, dtype=float)

    def build() -> highspy.Highs:
        h = quiet_highs()
        h.passModel(model._highs.getLp())
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        e = np.arange(model.num_e, dtype=np.int32)
        h.changeColsCost(e.size, e, np.zeros(e.size))
        h.changeColsBounds(e.size, e, np.zeros(e.size), np.full(e.size, float(violation)))
        mu_cols = (model.num_e + np.arange(costs.size)).astype(np.int32)
        h.changeColsCost(costs.size, mu_cols, costs)
        return h

    found = _with_separation(model, build, tol, time_limit)
    if found is None:
        return None
    (_, mu), closed, _, _ = found
    return mu, float(costs @ mu), closed
