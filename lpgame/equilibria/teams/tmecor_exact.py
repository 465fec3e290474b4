"""TMECor by one LP in exact rational arithmetic (teams of one, triangle-free pairs), with its
optimality proven exactly by code that does not read the LP.

The LP is that of :mod:`lpgame.equilibria.teams.tmecor_lp` (Farina 2023, Lemma 11.3, Cor. 11.1;
Koller, Megiddo & von Stengel 1996 for the opponent's dualised best response):

    max_{ξ, v}  f_oᵀ v   s.t.   F_oᵀ v ≤ M ξ,   ξ ∈ V_T,
    M[σ_o, (σ_1, σ_2)] = Σ_{z: σ(z) = (σ_o, σ_1, σ_2)} p_c(z) u_T(z),     u_T = −u_o,

with M stated in rationals (divided by a power of two that puts the payoffs in unit range,
:mod:`lpgame.lp.scaling`; the value is multiplied back). HiGHS's optimal basis is certified in
rationals (:func:`lpgame.lp.solve_lp_exact`). Then the saddle point is checked exactly
(Farina 2023, §11.1, eq. (11.5); :mod:`lpgame.analysis.team_gaps` states the same bounds in floats):

    lower(ω) = min_{y ∈ Q_o} Σ_z p_c u_T ω[z] y[σ_o(z)]  ≤  v*  ≤
    upper(y) = max_{team pure plans π} Σ_z p_c u_T Π_i π_i[σ_i(z)] y[σ_o(z)],

lower by the opponent's best-response recursion, upper by the member's best-response recursion
(a team of one) or by enumerating one member's reduced plans and the other member's best response
to each (a team of two); all on Python integers over common denominators. The answer is optimal
exactly when lower = upper = the LP's value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.equilibria.correlated.reduced_plans import enumerate_reduced_plans
from lpgame.equilibria.teams.tmecor_lp import tmecor_lp
from lpgame.equilibria.teams.tmecor_team import Team
from lpgame.errors import ExactCheckError, ModelTooLargeError
from lpgame.lp import solve_lp_exact
from lpgame.lp.scaling import unit_range_scaling
from lpgame.rational import common_denominator
from lpgame.sequence_form import SequenceForm

MAX_ENUMERATED_PLANS = 20_000
"""Largest number of one member's reduced plans enumerated for the exact upper bound."""


@dataclass
class ExactTeamSolution:
    value: Fraction
    team_reach: list[Fraction]         # ω[z] per leaf
    xi: list[Fraction]
    opponent_plan: list[Fraction]
    lower: Fraction
    upper: Fraction
    lp: object
    solution: object
    path: str


def _best_value(sf: SequenceForm, player: int, weight: np.ndarray) -> int:
    """max over ``player``'s pure plans of Σ_z weight[z] x[σ_player(z)] (integers; the
    best-response recursion, Farina 2023 L5087–5090)."""
    p = sf.players[player]
    total = np.zeros(p.num_sequences, dtype=object)
    np.add.at(total, sf.terminal_sequences[:, player], weight)
    for js, block, starts in sf.infoset_levels(player):
        np.add.at(total, p.infoset_parent_seq[js], np.maximum.reduceat(total[block], starts))
    return total[0]


def exact_team_bounds(sf: SequenceForm, members: tuple[int, ...], opponent: int,
                      team_reach: list[Fraction], opponent_plan: list[Fraction],
                      max_plans: int = MAX_ENUMERATED_PLANS) -> tuple[Fraction, Fraction]:
    """(lower(ω), upper(y)) of the module docstring, exactly."""
    chance, chance_den, payoffs, payoff_den = sf.exact_terminal_scaled()
    w = -chance * payoffs[:, opponent]                              # p_c u_T over C·U
    omega, omega_den = common_denominator(team_reach)
    y, y_den = common_denominator(opponent_plan)
    seqs = sf.terminal_sequences
    den = chance_den * payoff_den
    lower = -Fraction(_best_value(sf, opponent, -(w * omega)), den * omega_den)
    toward = w * y[seqs[:, opponent]]
    if len(members) == 1:
        return lower, Fraction(_best_value(sf, members[0], toward), den * y_den)
    a, b = members
    try:
        plans = enumerate_reduced_plans(sf, a, max_plans=max_plans)
    except ModelTooLargeError as exc:
        raise ExactCheckError(f"exact mode: the exact team bound enumerates one member's plans: "
                              f"{exc}") from None
    best = max(_best_value(sf, b, toward * plan[seqs[:, a]].astype(int)) for plan in plans)
    return lower, Fraction(best, den * y_den)


def solve_tmecor_lp_exact(team: Team, space, backend: str = "highs",
                          **options) -> ExactTeamSolution:
    """The LP of the module docstring solved and certified in rationals, with exact bounds."""
    sf, o = team.sf, team.opponent
    chance, payoffs = sf.exact_terminal_data()
    weights = [-p * row[o] for p, row in zip(chance, payoffs)]
    scaling = unit_range_scaling(min(weights), max(weights), exact=True, shift=False)
    inverse = 1 / Fraction(scaling.scale)
    lp, leaf_pos = tmecor_lp(team, space, [v * inverse for v in weights])
    options.setdefault("solver", "simplex")
    solution, certified = solve_lp_exact(lp, backend=backend, **options)
    value = certified.objective * scaling.scale
    xi = certified.values(lp, "xi")
    y = certified.duals(lp, "opponent_best_response")
    reach = [xi[k] for k in np.asarray(leaf_pos).tolist()]
    lower, upper = exact_team_bounds(sf, team.members, o, reach, y)
    return ExactTeamSolution(value, reach, xi, y, lower, upper, lp, solution, certified.path)
