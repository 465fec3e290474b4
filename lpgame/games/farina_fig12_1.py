"""Farina (2023), Fig. 12.1: a perfect-information game with a sequentially irrational Nash
equilibrium (notes/farina-thesis.md §1.12, §2.13; thesis L4967–4973).

Rules (reconstructed from the text; the figure itself is missing from the text file): the black
player (player 1) moves at A, choosing ``a`` (the game ends) or ``b``; after ``b`` the white player
(player 2) moves at B, choosing ``l`` or ``r``. Zero-sum. The text states only that at B white gets
5 with ``r`` and 0 with ``l``; the payoff 1 to black after ``a`` is our choice (any value above 0 keeps
the example's point: black strictly prefers ``a`` to ``b`` whatever white does).

Payoffs (player 1, player 2): a → (1, −1); b, l → (0, 0); b, r → (−5, 5).

Every Nash equilibrium has black play ``a``, so B is never reached and (a, l) is a Nash equilibrium:
white's ``l`` is irrational should black err to ``b``. Every trembling-hand refinement (QPE, EFPE,
one-sided QPE with black trembling) prescribes ``r`` at B: :data:`REFINED_ANSWER`.
"""

from __future__ import annotations

from lpgame.game.rules import TERMINAL_PLAYER
from lpgame.games.registry import register

REFINED_ANSWER = [{"A": {"a": 1, "b": 0}}, {"B": {"l": 0, "r": 1}}]
"""Both players' refined strategies (player 1's, player 2's), by backward induction."""

IRRATIONAL_NASH = [{"A": {"a": 1, "b": 0}}, {"B": {"l": 1, "r": 0}}]
"""The sequentially irrational Nash equilibrium highlighted in the figure."""


class Fig121Rules:
    """Rules object (module docstring). State: tuple of the moves so far."""

    num_players = 2
    name = "farina_fig12_1"

    def initial_state(self):
        return ()

    def current_player(self, state) -> int:
        if not state:
            return 0
        if state == ("b",):
            return 1
        return TERMINAL_PLAYER

    def chance_outcomes(self, state):
        return []

    def legal_actions(self, state) -> list[str]:
        return ["a", "b"] if not state else ["l", "r"]

    def apply(self, state, action: str):
        return state + (action,)

    def infoset_key(self, state) -> str:
        return "A" if not state else "B"

    def payoffs(self, state) -> tuple:
        return {("a",): (1, -1), ("b", "l"): (0, 0), ("b", "r"): (-5, 5)}[tuple(state)]


@register("farina_fig12_1", "Farina 2023 Fig. 12.1: perfect information, a Nash equilibrium that "
          "is irrational off the path (refinement teaching example)", "Farina 2023, §12, Fig. 12.1")
def farina_fig12_1():
    """The game of Fig. 12.1 (module docstring)."""
    from lpgame.game.rules import expand
    return expand(Fig121Rules())
