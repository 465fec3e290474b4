"""The team's best joint pure plan against an opponent plan y: the column-generation oracle.

Farina, Celli, Gatti & Sandholm 2018 ("Ex ante coordination and collusion in zero-sum
multi-player extensive-form games", NeurIPS) and 2021 ("Connecting optimal ex-ante collusion in
teams to extensive-form correlation", AAAI). A MILP over binary realization plans x_i ∈ {0,1}^{Σ_i},
F_i x_i = f_i, with one product variable w_t ∈ [0, 1] per tuple of team sequences t = (σ_i)_i that y
reaches with a nonzero weight g_t = Σ_{z: σ_T(z) = t} p_c(z) u_T(z) y[σ_o(z)]:

    U = max Σ_t g_t w_t,   w_t ≤ x_i[σ_i] (g_t > 0),   w_t ≥ Σ_i x_i[σ_i] − (|T| − 1) (g_t < 0),

solved by HiGHS's branch and bound (``scipy.optimize.milp``); its dual bound is U. For two members
the pair formulation keeps w in the von Stengel–Forges polytope of the relevant pairs with binary
marginals (:class:`lpgame.equilibria.correlated.efce.CorrelationPlanSpace`), a much tighter relaxation.
:func:`improve_by_alternation` is a cheap local search (each member's best response in turn, the
recursion of :mod:`lpgame.analysis.best_response`) that finds columns but proves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.best_response import best_response_to_payoffs
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.equilibria.teams.tmecor_team import Team
from lpgame.errors import SolverError, SolverTimeLimitError


@dataclass
class JointPlan:
    """One column: a pure realization plan (0/1) per team member."""

    plans: list[np.ndarray]


@dataclass
class OracleAnswer:
    plan: JointPlan
    value: float          # the plan's value against y
    upper: float          # the MILP's dual bound (≥ every joint plan's value)
    optimal: bool


def _oracle_weights(team: Team, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per leaf: g(z) = p_c(z) u_T(z) y[σ_o(z)], and the leaves where it is nonzero."""
    leaf_g = team.leaf_weight * np.asarray(y, dtype=float)[team.sf.terminal_sequences[:, team.opponent]]
    return leaf_g, np.flatnonzero(leaf_g != 0)


def _run_milp(c, integrality, eq_matrix, eq_rhs, ub_matrix, ub_rhs, time_limit, mip_rel_gap):
    """min cᵀx over 0 ≤ x ≤ 1 with the equality and ≤ rows, ``integrality`` 1 for binaries."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    options = {"disp": False, "mip_rel_gap": mip_rel_gap}
    if time_limit is not None:
        options["time_limit"] = max(float(time_limit), 1e-3)
    constraints = [LinearConstraint(eq_matrix, eq_rhs, eq_rhs)]
    if ub_matrix.shape[0]:
        constraints.append(LinearConstraint(ub_matrix, -np.inf, ub_rhs))
    return milp(c, integrality=integrality, bounds=Bounds(0.0, 1.0), constraints=constraints,
                options=options)


def _answer(team: Team, res, plans: list[np.ndarray], leaf_g: np.ndarray) -> OracleAnswer:
    seqs = team.sf.terminal_sequences
    reach = np.ones(seqs.shape[0])
    for m, i in enumerate(team.members):
        reach *= plans[m][seqs[:, i]]
    value = float(leaf_g @ reach)
    bound = getattr(res, "mip_dual_bound", None)
    upper = value if bound is None or not np.isfinite(bound) else max(value, -float(bound))
    return OracleAnswer(JointPlan(plans), value, upper, res.status == 0)


def _check_milp(team: Team, res) -> None:
    if res.x is None:
        name = team.sf.game.name
        if res.status == 1:
            raise SolverTimeLimitError(f"{name}: the team oracle MILP stopped at its limit "
                                       "before finding a plan", status=res.message)
        raise SolverError(f"{name}: the team oracle MILP failed: {res.message}",
                          status=str(res.status))


def team_oracle(team: Team, y: np.ndarray, space: CorrelationPlanSpace | None = None,
                time_limit: float | None = None, mip_rel_gap: float = 1e-9) -> OracleAnswer:
    """The team's best joint pure plan against y by a MILP on HiGHS (``scipy.optimize.milp``).

    Two members with their relevant-pair ``space``: the pair formulation of the module docstring
    (w ∈ V_T, binary marginals); otherwise the generic product formulation.
    """
    if space is not None:
        return _pair_oracle(team, y, space, time_limit, mip_rel_gap)
    return _product_oracle(team, y, time_limit, mip_rel_gap)


def _pair_oracle(team: Team, y: np.ndarray, space: CorrelationPlanSpace,
                 time_limit: float | None, mip_rel_gap: float) -> OracleAnswer:
    sf = team.sf
    seqs = sf.terminal_sequences
    a, b = team.members
    leaf_g, live = _oracle_weights(team, y)
    P = space.num_pairs
    g = np.bincount(space.index(seqs[live, a], seqs[live, b]), weights=leaf_g[live], minlength=P)
    s1, s2 = space.pairs[:, 0], space.pairs[:, 1]
    n1, n2 = sf.num_sequences(a), sf.num_sequences(b)
    first = space.index(np.arange(n1), np.zeros(n1, np.int64))      # w[σ1, ∅] = x_1[σ1]
    second = space.index(np.zeros(n2, np.int64), np.arange(n2))     # w[∅, σ2] = x_2[σ2]
    A_eq, b_eq, _ = space.polytope()
    inner = (s1 > 0) & (s2 > 0)
    pos = np.flatnonzero(inner & (g > 0))
    neg = np.flatnonzero(inner & (g < 0))
    # w ≤ x_1[σ1], w ≤ x_2[σ2] (g > 0);   x_1[σ1] + x_2[σ2] − w ≤ 1 (g < 0)
    cols = np.concatenate([np.column_stack([pos, first[s1[pos]]]).ravel(),
                           np.column_stack([pos, second[s2[pos]]]).ravel(),
                           np.column_stack([neg, first[s1[neg]], second[s2[neg]]]).ravel()])
    vals = np.concatenate([np.tile([1.0, -1.0], 2 * pos.size), np.tile([-1.0, 1.0, 1.0], neg.size)])
    rows = np.concatenate([np.repeat(np.arange(pos.size), 2), np.repeat(pos.size + np.arange(pos.size), 2),
                           np.repeat(2 * pos.size + np.arange(neg.size), 3)])
    A_ub = sp.csr_array((vals, (rows, cols)), shape=(2 * pos.size + neg.size, P))
    b_ub = np.concatenate([np.zeros(2 * pos.size), np.ones(neg.size)])
    integrality = np.zeros(P)
    integrality[first] = 1
    integrality[second] = 1
    res = _run_milp(-g, integrality, A_eq, b_eq, A_ub, b_ub, time_limit, mip_rel_gap)
    _check_milp(team, res)
    w = np.round(res.x)
    return _answer(team, res, [w[first], w[second]], leaf_g)


def _product_oracle(team: Team, y: np.ndarray, time_limit: float | None,
                    mip_rel_gap: float) -> OracleAnswer:
    sf = team.sf
    seqs = sf.terminal_sequences
    members = list(team.members)
    k = len(members)
    leaf_g, live = _oracle_weights(team, y)
    tuples, inverse = np.unique(seqs[live][:, members], axis=0, return_inverse=True)
    g = np.bincount(inverse.ravel(), weights=leaf_g[live], minlength=tuples.shape[0])
    keep = g != 0
    tuples, g = tuples[keep], g[keep]
    sizes = [sf.num_sequences(i) for i in members]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_x, n_w = int(offsets[-1]), g.size
    A_eq = sp.hstack([sp.block_diag([sf.treeplex_matrix(i) for i in members]),
                      sp.csr_array((sum(sf.num_infosets(i) + 1 for i in members), n_w))],
                     format="csr")
    b_eq = np.concatenate([sf.treeplex_rhs(i) for i in members])
    pos, neg = np.flatnonzero(g > 0), np.flatnonzero(g < 0)
    # w_t − x_i[σ_i] ≤ 0 (g_t > 0, one row per member);  Σ_i x_i[σ_i] − w_t ≤ k − 1 (g_t < 0)
    rows = [np.repeat(np.arange(k * pos.size), 2),
            np.repeat(k * pos.size + np.arange(neg.size), k + 1)]
    cols_pos = np.stack([np.tile(n_x + pos, k),
                         np.concatenate([offsets[m] + tuples[pos, m] for m in range(k)])], axis=1)
    cols_neg = np.column_stack([n_x + neg] + [offsets[m] + tuples[neg, m] for m in range(k)])
    vals_pos = np.tile([1.0, -1.0], k * pos.size)
    vals_neg = np.tile(np.concatenate([[-1.0], np.ones(k)]), neg.size)
    A_ub = sp.csr_array((np.concatenate([vals_pos, vals_neg]),
                         (np.concatenate(rows), np.concatenate([cols_pos.ravel(), cols_neg.ravel()]))),
                        shape=(k * pos.size + neg.size, n_x + n_w))
    b_ub = np.concatenate([np.zeros(k * pos.size), np.full(neg.size, k - 1.0)])
    res = _run_milp(np.concatenate([np.zeros(n_x), -g]),
                    np.concatenate([np.ones(n_x), np.zeros(n_w)]), A_eq, b_eq, A_ub, b_ub,
                    time_limit, mip_rel_gap)
    _check_milp(team, res)
    x = np.round(res.x[:n_x])
    return _answer(team, res, [x[offsets[m]:offsets[m + 1]] for m in range(k)], leaf_g)


def improve_by_alternation(team: Team, y: np.ndarray, plan: JointPlan,
                           max_sweeps: int = 20) -> tuple[JointPlan, float]:
    """A local search for a good joint pure plan against y: each member in turn plays a best
    response (the bottom-up recursion of :mod:`lpgame.analysis.best_response`) to the others'
    current plans, until no member improves. Cheap; it finds columns but proves nothing."""
    sf = team.sf
    seqs = sf.terminal_sequences
    leaf_g, _ = _oracle_weights(team, y)
    plans = [np.asarray(x, dtype=float).copy() for x in plan.plans]
    members = team.members

    def value() -> float:
        reach = leaf_g.copy()
        for m, i in enumerate(members):
            reach *= plans[m][seqs[:, i]]
        return float(reach.sum())

    best = value()
    for _ in range(max_sweeps):
        improved = False
        for m, i in enumerate(members):
            weight = leaf_g.copy()
            for k, other in enumerate(members):
                if k != m:
                    weight *= plans[k][seqs[:, other]]
            g = np.bincount(seqs[:, i], weights=weight, minlength=sf.num_sequences(i))
            br = best_response_to_payoffs(sf, i, g)
            if br.value > best + 1e-12 * max(1.0, abs(best)):
                plans[m] = sf.plan_from_behaviour(i, br.behaviour)
                best = value()
                improved = True
        if not improved:
            break
    return JointPlan(plans), best


def column_of(team: Team, plan: JointPlan) -> np.ndarray:
    """c[σ_o] = Σ_{z: σ_o(z) = σ_o} p_c(z) u_T(z) Π_i π_i[σ_i(z)]."""
    seqs = team.sf.terminal_sequences
    reach = team.leaf_weight.copy()
    for m, i in enumerate(team.members):
        reach *= plan.plans[m][seqs[:, i]]
    return np.bincount(seqs[:, team.opponent], weights=reach,
                       minlength=team.sf.num_sequences(team.opponent))
