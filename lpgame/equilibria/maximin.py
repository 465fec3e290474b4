"""Maximin and minimax (security) strategies of a two-player game, general-sum allowed.

Player i's maximin value max_{x_i} min_{x_o} u_i(x_i, x_o) (Rojas Linárez 2020, App. C, Def. C.1;
von Neumann's LP pair of App. D, eq. (D.8)–(D.9), in sequence form) is the security LP of
:mod:`lpgame.equilibria.security` with U = U_i. Its primal is i's maximin strategy; the duals of its
``best_response`` block are the opponent's minimax strategy against i (the strategy that holds i
down to the value). In a zero-sum game both values agree with the Nash value (Thm C.3).
"""

from __future__ import annotations

import numpy as np

from lpgame.equilibria.security import security_lp
from lpgame.equilibria.zero_sum import ZeroSumSolution
from lpgame.errors import ExactCheckError, InvalidGameError
from lpgame.lp import solve_lp, solve_lp_exact
from lpgame.sequence_form import SequenceForm


def solve_maximin(sf: SequenceForm, exact: bool = False, backend: str = "highs",
                  **options) -> list[ZeroSumSolution]:
    """For each player i: its maximin value, its maximin plan and the opponent's minimax plan.

    Returns one :class:`ZeroSumSolution` per player i, with ``value`` = i's maximin value and
    ``plans[i]`` = i's maximin plan, ``plans[1 - i]`` = the opponent's minimax plan against i.
    """
    if sf.num_players != 2:
        raise InvalidGameError(f"{sf.game.name}: maximin strategies are computed for two-player "
                               f"games; the game has {sf.num_players} players")
    if exact:
        if backend != "highs":
            raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
        options.setdefault("solver", "simplex")
    out = []
    for i in range(2):
        built = security_lp(sf, player=i, payoff_player=i, exact=exact)
        solve_options = built.solve_options(options, backend)
        plans = [None, None]
        if exact:
            solution, certified = solve_lp_exact(built.lp, backend=backend, **solve_options)
            plans[i] = certified.values(built.lp, "x")
            plans[1 - i] = certified.duals(built.lp, "best_response")
            value = built.value(certified.objective)
        else:
            solution = solve_lp(built.lp, backend=backend, **solve_options)
            plans[i] = np.clip(solution.values("x"), 0.0, None)
            plans[1 - i] = np.clip(solution.duals("best_response"), 0.0, None)
            value = built.value(solution.objective)
        out.append(ZeroSumSolution(value, plans, built.lp, solution, exact))
    return out
