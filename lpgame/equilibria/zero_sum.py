"""Nash equilibrium of a two-player zero-sum (or constant-sum) game by the sequence-form LP.

The LP is :func:`lpgame.equilibria.security.security_lp` for player 1 with U = U_1
(Koller, Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4):

    max f_2ᵀ v   s.t.   F_1 x = f_1,   F_2ᵀ v − U_1ᵀ x ≤ 0,   x ≥ 0.

Its optimum v[∅] is the value for player 1, its primal x is player 1's equilibrium realization plan
and the duals of the second block are player 2's (the minimax theorem makes the pair an
equilibrium). A constant-sum game (u_1 + u_2 = c) has the same equilibria as the zero-sum game
(u_1, −u_1), so the same LP applies and the value is still player 1's.

In exact mode the optimal basis is certified in rational arithmetic (:mod:`lpgame.lp.exact`) and
the profile's NashConv is recomputed exactly by best responses; it must be exactly 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lpgame.equilibria.security import security_lp
from lpgame.errors import ExactCheckError, InvalidGameError
from lpgame.lp import LPSolution, solve_lp, solve_lp_exact
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.scaling import check_float_payoffs
from lpgame.sequence_form import SequenceForm


@dataclass
class ZeroSumSolution:
    """Value and both players' realization plans (floats, or Fractions when exact)."""

    value: object
    plans: list
    lp: LinearProgram
    lp_solution: LPSolution
    exact: bool
    rounds: list | None = None    # the double oracle's rounds (lpgame.equilibria.double_oracle)


def check_two_player_constant_sum(sf: SequenceForm, exact: bool = False) -> None:
    """Refuse a game that is not two-player constant-sum (judged relative to the payoff range).

    In floating-point mode payoffs that floats cannot carry are refused by name first
    (:func:`lpgame.lp.scaling.check_float_payoffs`); in exact mode, payoffs beyond the double range
    (e.g. 10**400) are checked exactly.
    """
    game = sf.game
    if game.num_players != 2:
        raise InvalidGameError(
            f"{game.name}: Nash equilibrium by the sequence-form LP needs two players, the game has"
            f" {game.num_players}; use a correlated-equilibrium concept instead")
    lo, hi = game._payoff_bounds()
    if not exact:
        check_float_payoffs(lo, hi, game.name)
    elif not (math.isfinite(lo) and math.isfinite(hi)) and sf.payoff_structure is None:
        _, payoffs = sf.exact_terminal_data()
        totals = {row[0] + row[1] for row in payoffs}
        if len(totals) > 1:
            raise InvalidGameError(
                f"{game.name}: the game is not zero-sum or constant-sum (payoff sums differ across "
                "leaves); use concept='maximin' for security strategies")
        return
    if not game.is_constant_sum(tol=1e-9 * game.payoff_range()):
        raise InvalidGameError(
            f"{game.name}: the game is not zero-sum or constant-sum (payoff sums differ across "
            "leaves); use concept='maximin' for security strategies")


def solve_zero_sum(sf: SequenceForm, exact: bool = False, backend: str = "highs",
                   **options) -> ZeroSumSolution:
    """Solve the sequence-form LP (see module docstring)."""
    check_two_player_constant_sum(sf, exact)
    built = security_lp(sf, player=0, exact=exact)
    lp = built.lp
    if exact:
        if backend != "highs":
            raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
        options.setdefault("solver", "simplex")
        solution, certified = solve_lp_exact(lp, backend=backend,
                                             **built.solve_options(options, backend))
        x_exact = certified.values(lp, "x")
        y_exact = certified.duals(lp, "best_response")
        if y_exact[0] != 1:
            raise ExactCheckError(f"exact mode: player 2's plan has y[∅] = {y_exact[0]}, not 1")
        value = built.value(certified.objective)
        return ZeroSumSolution(value, [x_exact, y_exact], lp, solution, True)
    solution = solve_lp(lp, backend=backend, **built.solve_options(options, backend))
    x = solution.values("x")
    y = np.clip(solution.duals("best_response"), 0.0, None)
    return ZeroSumSolution(built.value(solution.objective), [np.clip(x, 0.0, None), y], lp,
                           solution, False)
