"""Kuhn poker with a rake: a general-sum poker variant.

The rules are Kuhn poker's (Kuhn 1950; notes/farina-thesis.md §2.1: each player antes 1, one card
each from J < Q < K, one bet of 1), except that the house keeps a fraction ``rake`` of every pot
that is won, by a fold or at the showdown (the casino's commission, the reason real poker is not
zero-sum). With contribution c_i and pot P = Σ c_i:

    u_winner = (1 − rake)·P − c_winner,      u_loser = −c_loser,      u_1 + u_2 = −rake·P.

``rake=0`` is Kuhn poker (value −1/18 for player 1; Kuhn 1950). With a rake the game is general-sum
and has many equilibria with different payoffs; its equilibria are checked in lpgame's tests
against Gambit (the sequence-form Lemke equilibrium of ``lcp_solve`` lies between lpgame's best and
worst equilibrium welfare, and each is certified by the independent best-response path).
The rake is kept exact (:class:`fractions.Fraction` of its decimal text).
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.errors import InvalidGameError
from lpgame.game.rules import expand
from lpgame.games.poker import KuhnRules
from lpgame.games.registry import register


class RakedKuhnRules(KuhnRules):
    """Kuhn poker's rules with the house taking ``rake`` of every pot won (module docstring)."""

    def __init__(self, rake: Fraction, cards: int = 3):
        super().__init__(2, cards, name=f"kuhn_poker_rake(rake={rake}, cards={cards})")
        self.rake = rake

    def payoffs(self, state):
        deal, history = state
        contribution, folded = self._stakes(history)
        live = [i for i in range(2) if not folded[i]]
        winner = max(live, key=lambda i: deal[i])
        pot = sum(contribution)
        return tuple(((1 - self.rake) * pot if i == winner else 0) - contribution[i]
                     for i in range(2))

    def showdown(self):
        return None        # payoffs are not the zero-sum showdown of lpgame.game.showdown


@register("kuhn_poker_rake", "two-player Kuhn poker where the house keeps a fraction of every pot "
          "(general-sum)", "Kuhn 1950 with a rake; notes/farina-thesis.md §2.1")
def kuhn_poker_rake(rake: float = 0.1, cards: int = 3):
    """Kuhn poker with a rake (module docstring); ``rake`` in [0, 1)."""
    exact = Fraction(str(rake)) if not isinstance(rake, Fraction) else rake
    if not 0 <= exact < 1:
        raise InvalidGameError(f"kuhn_poker_rake: rake must be in [0, 1), got {rake!r}")
    return expand(RakedKuhnRules(exact, cards))
