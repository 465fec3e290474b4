"""TMECor as one LP: over the von Stengel–Forges polytope (triangle-free teams), or over the flows
of the team belief DAG (any team whose game is timeable for the team).

**Triangle-free teams** (notes/farina-thesis.md §1.11, derived LP; Farina 2023, Lemma 11.3,
Cor. 11.1). Ω_T is the projection of the team's correlation-plan polytope Ξ_T (the opponent turned
into chance). For two members ξ is indexed by the relevant sequence pairs and Ξ_T ⊆ V_T, the von
Stengel–Forges polytope (Def. 9.3), with equality when the team is triangle-free (Def. 9.5,
Thms 9.4–9.5). Dualising the opponent's best response (Koller, Megiddo & von Stengel 1996):

    max_{ξ, v}  f_oᵀ v   s.t.   F_oᵀ v ≤ M ξ,   ξ ∈ V_T,
    M[σ_o, (σ_1, σ_2)] = Σ_{z: σ_o(z) = σ_o, σ_1(z) = σ_1, σ_2(z) = σ_2} p_c(z) u_T(z).

The duals of the rows F_oᵀ v ≤ M ξ are the opponent's realization plan y. A team of one is the same
LP over that player's treeplex (the maximin LP). Where V_T ≠ Ξ_T the value is only an upper bound.

**Team belief DAG** (Zhang, Farina & Sandholm, ICML 2023; Farina 2023, Cor. 11.2 and Remark 11.1;
:mod:`lpgame.equilibria.teams.team_belief_dag`). Ω_T is exactly the image ω = R x + r of the DAG's flows x ≥ 0
(A x = b: each belief's prescriptions carry its inflow, the roots carry 1), so the bilinear saddle
point (11.5) max_{ω ∈ Ω_T} min_{y ∈ Q_o} Σ_z p_c(z) u_T(z) ω[z] y[σ_o(z)] is, with the same
dualisation,

    max_{x, v}  f_oᵀ v   s.t.   F_oᵀ v − M_D x ≤ m_0,   A x = b,   x ≥ 0,
    M_D[σ_o, e] = Σ_{z hanging off e, σ_o(z) = σ_o} p_c(z) u_T(z),
    m_0[σ_o]    = Σ_{z before any team decision, σ_o(z) = σ_o} p_c(z) u_T(z),

for any team size and any information structure; y is again the duals of the first rows.

Both LPs see the team's payoffs divided by the power of two that puts them in unit range
(:mod:`lpgame.lp.scaling`; the rows are homogeneous in M, m_0 and v, so only the value scales):
the optimum maps back by ``lp.objective_scaling.from_unit`` and y is unchanged.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.equilibria.teams.team_belief_dag import BeliefDag
from lpgame.equilibria.teams.tmecor_team import Team
from lpgame.lp import LinearProgram
from lpgame.lp.scaling import check_float_payoffs, float_bounds, unit_range_scaling
from lpgame.rational import RationalMatrix


def tmecor_lp(team: Team, space: CorrelationPlanSpace | None,
              exact_weights: list | None = None) -> tuple[LinearProgram, np.ndarray]:
    """The LP of the module docstring; returns it and each leaf's position among the ξ variables.
    ``exact_weights``: the leaf weights p_c(z) u_T(z) as Fractions (M becomes a RationalMatrix;
    :mod:`lpgame.equilibria.teams.tmecor_exact`)."""
    sf = team.sf
    seqs = sf.terminal_sequences
    o = team.opponent
    lp = LinearProgram(name=f"tmecor:{sf.game.name}", description=(
        "TMECor of a triangle-free team against one opponent: max f_oᵀv s.t. F_oᵀv ≤ Mξ, ξ ∈ V_T "
        "(Farina 2023, Lemma 11.3, Cor. 11.1; notes §1.11)"))
    if space is None:                                  # a team of one: its treeplex
        member = team.members[0]
        xi = lp.add_variables("xi", sf.num_sequences(member), lower=0.0,
                              labels=sf.sequence_labels(member))
        lp.add_constraints("treeplex", [(xi, sf.treeplex_matrix(member))], "==",
                           sf.treeplex_rhs(member))
        leaf_pos = seqs[:, member]
        n_xi = sf.num_sequences(member)
    else:
        labels = [f"{a}|{b}" for a, b in space.pair_labels()] if space.num_pairs <= 20_000 else None
        xi = lp.add_variables("xi", space.num_pairs, lower=0.0, labels=labels)
        matrix, rhs, names = space.polytope()
        lp.add_constraints("von_stengel_forges", [(xi, matrix)], "==", rhs,
                           labels=names if matrix.shape[0] <= 20_000 else None)
        a, b = team.members
        leaf_pos = space.index(seqs[:, a], seqs[:, b])
        n_xi = space.num_pairs
    if exact_weights is not None:
        M = RationalMatrix((sf.num_sequences(o), n_xi), seqs[:, o], leaf_pos, exact_weights)
    else:
        lp.objective_scaling = team_scaling(team)
        M = sp.csr_array((np.ldexp(team.leaf_weight, -lp.objective_scaling.exponent),
                          (seqs[:, o], leaf_pos)), shape=(sf.num_sequences(o), n_xi))
    _opponent_best_response(lp, team, xi, M, 0.0)
    return lp, leaf_pos


def belief_dag_lp(team: Team, dag: BeliefDag) -> LinearProgram:
    """The team-belief-DAG LP of the module docstring (variables ``x``, one per DAG edge)."""
    sf = team.sf
    seqs = sf.terminal_sequences
    o = team.opponent
    lp = LinearProgram(name=f"tmecor-belief-dag:{sf.game.name}", description=(
        "TMECor over the team belief DAG: max f_oᵀv s.t. F_oᵀv − M_D x ≤ m_0, A x = b, x ≥ 0 "
        "(Zhang, Farina & Sandholm 2023; Farina 2023, Cor. 11.2)"))
    x = lp.add_variables("x", dag.num_edges, lower=0.0)
    A, b = dag.flow_matrix()
    lp.add_constraints("belief_flow", [(x, A)], "==", b)
    R, r = dag.leaf_matrix()
    n_o = sf.num_sequences(o)
    # M_D = S_o diag(w) R with S_o the leaves' opponent sequences
    S = sp.csr_array((team.leaf_weight, (seqs[:, o], np.arange(seqs.shape[0]))),
                     shape=(n_o, seqs.shape[0]))
    lp.objective_scaling = team_scaling(team)
    k = lp.objective_scaling.exponent
    M = (S @ R).tocsr() * 2.0 ** -k
    m0 = np.ldexp(np.asarray(S @ r, dtype=float), -k)
    _opponent_best_response(lp, team, x, M, m0)
    return lp


def team_scaling(team: Team):
    """The power of two that puts the team's payoffs u_T = −u_o in unit range
    (:mod:`lpgame.lp.scaling`, scale only: the rows are homogeneous in M and v); the LP's optimum
    maps back by ``lp.objective_scaling.from_unit``. Payoffs floats cannot solve with are refused
    by name."""
    lo, hi = float_bounds(-team.sf.terminal_payoffs[:, team.opponent])
    check_float_payoffs(lo, hi, f"{team.sf.game.name}, payoffs of the team")
    return unit_range_scaling(lo, hi, shift=False)


def _opponent_best_response(lp: LinearProgram, team: Team, team_var, payoff, rhs) -> None:
    """The opponent's dualised best response, shared by both LPs: max f_oᵀv s.t.
    F_oᵀv − payoff·(team variables) ≤ rhs, v free (one value per opponent information set and the root)."""
    sf, o = team.sf, team.opponent
    v = lp.add_variables("v", sf.num_infosets(o) + 1, lower=-np.inf)
    lp.add_constraints("opponent_best_response", [(v, sf.treeplex_matrix(o).T), (team_var, -payoff)],
                       "<=", rhs,
                       labels=sf.sequence_labels(o) if sf.num_sequences(o) <= 20_000 else None)
    e0 = np.zeros(sf.num_infosets(o) + 1)
    e0[0] = 1.0
    lp.set_objective([(v, e0)], sense="max")
