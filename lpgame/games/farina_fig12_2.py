"""Farina (2023), Fig. 12.2: an imperfect-information game with a sequentially irrational Nash
equilibrium that is subgame perfect (notes/farina-thesis.md §1.12, §2.13; thesis L4975–4979).

Rules (reconstructed from the text; the figure is missing from the text file, so the payoffs are
our choice and only the example's structure is the thesis's): the black player (player 1) moves at
A, choosing ``a`` (the game ends), ``b`` or ``c``; after ``b`` or ``c`` the white player (player 2)
moves at the information set B without seeing which, choosing ``l`` or ``r``. Zero-sum.

Payoffs (player 1, player 2): a → (1, −1); b, l → (0, 0); b, r → (−5, 5); c, l → (0, 0);
c, r → (−4, 4).

At B ``r`` is better for white at both nodes, but B is never reached in equilibrium, so (a, l) is a
Nash equilibrium; B has two nodes, so the game has no proper subgame and (a, l) is also subgame
perfect. The refinements prescribe ``r``: :data:`REFINED_ANSWER`.
"""

from __future__ import annotations

from lpgame.game.rules import TERMINAL_PLAYER
from lpgame.games.registry import register

REFINED_ANSWER = [{"A": {"a": 1, "b": 0, "c": 0}}, {"B": {"l": 0, "r": 1}}]
"""Both players' refined strategies (``r`` is better at every node of B)."""

IRRATIONAL_NASH = [{"A": {"a": 1, "b": 0, "c": 0}}, {"B": {"l": 1, "r": 0}}]
"""The sequentially irrational (and subgame-perfect) Nash equilibrium of the figure."""

PAYOFFS = {("a",): (1, -1), ("b", "l"): (0, 0), ("b", "r"): (-5, 5), ("c", "l"): (0, 0),
           ("c", "r"): (-4, 4)}


class Fig122Rules:
    """Rules object (module docstring). State: tuple of the moves so far."""

    num_players = 2
    name = "farina_fig12_2"

    def initial_state(self):
        return ()

    def current_player(self, state) -> int:
        if not state:
            return 0
        if state in (("b",), ("c",)):
            return 1
        return TERMINAL_PLAYER

    def chance_outcomes(self, state):
        return []

    def legal_actions(self, state) -> list[str]:
        return ["a", "b", "c"] if not state else ["l", "r"]

    def apply(self, state, action: str):
        return state + (action,)

    def infoset_key(self, state) -> str:
        return "A" if not state else "B"

    def payoffs(self, state) -> tuple:
        return PAYOFFS[tuple(state)]


@register("farina_fig12_2", "Farina 2023 Fig. 12.2: imperfect information, a subgame-perfect Nash "
          "equilibrium that is irrational off the path (refinement teaching example)",
          "Farina 2023, §12, Fig. 12.2")
def farina_fig12_2():
    """The game of Fig. 12.2 (module docstring)."""
    from lpgame.game.rules import expand
    return expand(Fig122Rules())
