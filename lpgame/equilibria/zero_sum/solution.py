"""What the zero-sum solvers return, and the check that a game is two-player constant-sum.

Shared by the sequence-form LP (:mod:`lpgame.equilibria.zero_sum.nash`), the double oracle
(:mod:`lpgame.equilibria.zero_sum.double_oracle`) and maximin
(:mod:`lpgame.equilibria.zero_sum.maximin`), so that none of them imports another for it. A
constant-sum game (u_1 + u_2 = c for every leaf) has the equilibria of the zero-sum game
(u_1, −u_1) (von Neumann's minimax theorem applies to it unchanged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lpgame.errors import InvalidGameError
from lpgame.lp import LPSolution
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
    rounds: list | None = None    # the double oracle's rounds (lpgame.equilibria.zero_sum.double_oracle)
    exact_path: str | None = None  # how exact mode certified it (lpgame.lp.solve_lp_exact)


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
