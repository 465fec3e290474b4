"""Dudo(K, D1, D2): one bidding round of two-player Dudo (Liar's dice with several dice each).

Rules (Rojas Linárez 2020, l. 1209–1229; notes/rojas-linarez-and-notebook.md §1.8):

* player 1 rolls D1 and player 2 rolls D2 fair K-sided dice; each sees only their own dice, so a
  player's private state is the multiset of their dice, R_i = C(D_i + K − 1, K − 1) of them; one
  chance node deals a pair of multisets with its multinomial probability;
* a bid (x, y) claims "at least x dice on the table show face y"; no face is wild; the n = K(D1+D2)
  bids are ordered by quantity, then face: (1,1) < (1,2) < … < (1,K) < (2,1) < … < (D1+D2, K);
* player 1 opens with any bid; the players alternate, each making a strictly higher bid or calling
  "dudo" on the previous one; after the highest bid only "dudo" remains;
* at "dudo", with c the number of dice showing y: if c ≥ x the challenger loses a die, otherwise the
  bidder does.

Terminal utilities (the multi-round game by backward induction, "loser starts"; notes §1.8 and the
thesis author's code): let V(a, b) be the value, to the player who starts a round, of the game in
which the starter has a dice and the other player b, with V(0, b) = −1 and V(a, 0) = +1. Then
Dudo(K, D1, D2) pays player 1

* u₁ = V(D1 − 1, D2)   when player 1 loses the round (player 1, the loser, starts the next), and
* u₁ = −V(D2 − 1, D1)  when player 2 loses it (player 2 starts the next with D2 − 1 dice),

and player 2 gets −u₁. V(a, b) is the value of Dudo(K, a, b), computed here **exactly** by solving
the smaller games' LPs with their optimal bases certified in rational arithmetic
(:func:`dudo_value`, cached), whereas the
thesis used approximate CFR values. Dudo(K, 1, 1) therefore pays ±1 and equals liar's dice with two
players and one K-sided die each.

Sizes (l. 1225–1229, reproduced by tests/test_catalog_sizes.py): N = R1·R2·(2^(n+1) − 1) + 1 nodes;
I = (R1 + R2)·2^(n−2) information sets with more than one action; 2^n public bid histories;
player i has R_i·(2^n − 1) + 1 sequences.

Labels: bids ``"2x3"`` (at least two threes), the challenge ``"dudo"``; an information set reads
``"<own dice> <bids so far>"``, e.g. ``"[1 3] 1x2 2x1"``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import expand
from lpgame.games.liars_dice import DiceBiddingRules
from lpgame.games.registry import register
from lpgame.games.size_prediction import binomial, compiled_bytes, power, saturate, tree_bytes
from lpgame.registry import GameInfo, solve_value


@cache
def dudo_value(K: int, starter_dice: int, other_dice: int) -> Fraction:  # noqa: N803
    """V(a, b): the exact value of the remaining multi-round game to the player starting a round
    with ``starter_dice`` dice against ``other_dice`` (module docstring); cached."""
    if starter_dice <= 0:
        return Fraction(-1)
    if other_dice <= 0:
        return Fraction(1)
    # The LP's optimal basis certified in rationals (primal and dual feasibility, equal objectives:
    # lpgame.lp.exact) proves the value; the full solve's exact NashConv and behaviour strategies
    # would only repeat the proof, at several times the cost.
    # (the catalog sits below the concepts: the zero-sum LP is reached through the registry)
    game = dudo(K, starter_dice, other_dice)
    return Fraction(solve_value("nash", game, GameInfo(game.name, 2, True), exact=True))


class DudoRules(DiceBiddingRules):
    """One round of Dudo(K, D1, D2) with the backward-induction leaf values (module docstring)."""

    call_label = "dudo"

    def __init__(self, K: int, D1: int, D2: int,  # noqa: N803  (the thesis's names)
                 loser_values: tuple[Fraction, Fraction] | None = None):
        if K < 1 or D1 < 1 or D2 < 1:
            raise InvalidGameError(f"Dudo(K, D1, D2) needs K, D1, D2 ≥ 1, got ({K}, {D1}, {D2})")
        super().__init__((D1, D2), K, f"dudo(K={K}, D1={D1}, D2={D2})")
        if loser_values is None:
            loser_values = (dudo_value(K, D1 - 1, D2), -dudo_value(K, D2 - 1, D1))
        # player 1's utility when player 1 (index 0) or player 2 (index 1) loses the round
        self.loser_values = tuple(Fraction(v) for v in loser_values)
        # row k: both players' payoffs when player k loses (Fractions, picked by fancy indexing)
        self._payoffs_by_loser = np.empty((2, 2), dtype=object)
        self._payoffs_by_loser[:, 0] = self.loser_values
        self._payoffs_by_loser[:, 1] = [-v for v in self.loser_values]

    def round_payoffs(self, bidder: int, challenger: int, claim_true: np.ndarray) -> np.ndarray:
        return self._payoffs_by_loser[np.where(claim_true, challenger, bidder)]


def dudo_size(K: int = 3, D1: int = 1, D2: int = 1, structured: bool = True) -> int:  # noqa: N803
    """Bytes needed at least, from the module docstring's counts with n = K(D1 + D2) bids and
    R_i = C(D_i + K − 1, K − 1): the explicit tree has R1·R2·(2^(n+1) − 1) + 1 nodes; the compiled
    game a public tree of 2^n bid histories, (R1 + R2)(2^n − 1) (signal, sequence) pairs and an
    R1·R2 × 2^n payoff table. The smaller games solved for the leaf values are smaller still."""
    histories = power(2, K * (D1 + D2))
    r1, r2 = binomial(D1 + K - 1, K - 1), binomial(D2 + K - 1, K - 1)
    if not structured:
        return tree_bytes(saturate(r1 * r2 * (2 * histories - 1) + 1))
    return saturate(compiled_bytes(histories, (r1 + r2) * (histories - 1))
                    + r1 * r2 * histories * 16)


@register("dudo", "Dudo(K, D1, D2): two-player Dudo round, K faces, D1 and D2 dice, exact "
          "multi-round leaf values", "notes/rojas-linarez-and-notebook.md §1.8",
          ranges={"K": (1, None), "D1": (1, None), "D2": (1, None)}, size=dudo_size)
def dudo(K: int = 3, D1: int = 1, D2: int = 1, structured: bool = True):  # noqa: N803
    """Dudo(K, D1, D2) (module docstring); the leaf values of games with more than one die in all
    are found by solving the smaller Dudo games exactly first (cached in :func:`dudo_value`).

    ``structured=True`` compiles deals × public tree by broadcasting; ``False`` expands the explicit
    networkx tree (same information sets and labels)."""
    rules = DudoRules(K, D1, D2)
    return compile_private_signals(rules) if structured else expand(rules)
