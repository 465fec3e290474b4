"""The sequence-form security LP: a player's maximin strategy against a minimising opponent.

For two players with sequence-form payoff matrix U (rows: the optimiser i's sequences, columns:
the opponent o's sequences; u_i(x, y) = xᵀ U y), the maximin value max_x min_y xᵀUy is the LP of
Koller, Megiddo & von Stengel (1996), written as in notes/farina-thesis.md §1.4:

    max_{x, v}  f_oᵀ v
    s.t.        F_i x = f_i,                     (treeplex of the optimiser)       [treeplex]
                F_oᵀ v − Uᵀ x ≤ 0,               (one row per opponent sequence)   [best_response]
                x ≥ 0,  v free  (one entry per opponent information set, plus one for ∅).

The inner minimisation over y ∈ Q_o has been replaced by its LP dual, so v are the opponent's
information-set values and v[∅] is the game value. The duals of the ``best_response`` rows
(∂value/∂rhs ≥ 0) satisfy F_o y = f_o: they are the opponent's realization plan y that holds the
optimiser to the value (its minimax strategy against i).

In a two-player zero-sum (or constant-sum) game with U = U_1 this LP gives the value for player 1
and both players' Nash equilibrium strategies (von Neumann's minimax theorem; Rojas Linárez 2020,
Thm C.3). In a general-sum game, U = U_i gives player i's maximin (security) value and strategy.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import RationalMatrix
from lpgame.sequence_form import SequenceForm


@dataclass
class SecurityLP:
    """The LP and how to read it back."""

    lp: LinearProgram
    player: int           # the optimiser i
    opponent: int         # o


def security_lp(sf: SequenceForm, player: int, payoff_player: int | None = None,
                exact: bool = False) -> SecurityLP:
    """Build the security LP of ``player`` (see module docstring).

    ``payoff_player`` selects whose payoff the optimiser maximises (default: its own). ``exact``
    states the payoff matrix with rational entries so that the basis can be certified exactly.
    """
    if payoff_player is None:
        payoff_player = player
    opponent = 1 - player
    if exact:
        U = sf.payoff_matrix_exact(payoff_player)   # rows: player 1's sequences
        if player == 1:
            U = U.T
        minus_Ut = -U.T
    else:
        U = sf.payoff_matrix(payoff_player)
        if player == 1:
            U = U.T
        minus_Ut = -(U.T.tocsr())
    F_i, F_o = sf.treeplex_matrix(player), sf.treeplex_matrix(opponent)
    name = f"security LP of {sf.game.player_names[player]} in {sf.game.name}"
    lp = LinearProgram(name=name, description=(
        "  max f_oᵀv  s.t.  F_i x = f_i,  F_oᵀv − Uᵀx ≤ 0,  x ≥ 0,  v free "
        "(Koller–Megiddo–von Stengel 1996)"))
    x = lp.add_variables("x", sf.num_sequences(player), lower=0.0,
                         labels=sf.sequence_labels(player))
    v = lp.add_variables("v", sf.num_infosets(opponent) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(opponent))
    lp.add_constraints("treeplex", [(x, F_i)], "==", sf.treeplex_rhs(player),
                       labels=["∅"] + sf.infoset_labels(player))
    if isinstance(minus_Ut, RationalMatrix):
        lhs_v = RationalMatrix.from_scipy(F_o.T)
    else:
        lhs_v = F_o.T.tocsr()
    lp.add_constraints("best_response", [(v, lhs_v), (x, minus_Ut)], "<=",
                       [Fraction(0)] * sf.num_sequences(opponent) if exact
                       else np.zeros(sf.num_sequences(opponent)),
                       labels=sf.sequence_labels(opponent))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    return SecurityLP(lp, player, opponent)
