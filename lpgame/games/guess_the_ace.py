"""Guess-the-Ace and its modified version (Miltersen & Sørensen 2006; Farina 2023, §12.A, Fig. 12.3).

Rules (L5326–5331; notes/farina-thesis.md §2.13): a 52-card deck is shuffled face down (chance: the
top card is the ace of spades with probability 1/52). Nobody sees it. Player 1 either ends the game
at once (no money changes hands) or offers $1000 to player 2 for guessing correctly whether the top
card is the ace of spades. Player 2 guesses "ace of spades" or "not ace of spades"; a correct guess
moves the prize from player 1 to player 2, a wrong one nothing. Zero-sum.

Modified version (``modified=True``, Fig. 12.3): after a wrong guess player 1, who then sees the
guess was wrong, may still give the prize to player 2 ("give") or not ("keep").

Teaching point: in every Nash equilibrium player 1 ends the game (value 0), so player 2's information
set is never reached and a Nash equilibrium may have player 2 guess the insensible "ace of spades";
refinements (quasi-perfect, EFPE) rule that out. In the modified game "not ace of spades" no longer
strictly dominates, and an undominated equilibrium can still be sequentially irrational.

Labels: chance ``"ace of spades"``/``"other card"``; player 1 ``"end"``/``"offer"`` at ``"P1"``,
``"give"``/``"keep"`` at ``"P1 after wrong guess <guess>"``; player 2 ``"ace of spades"``/``"not ace of
spades"`` at ``"P2"``.
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register

ACE, OTHER = "ace of spades", "other card"
GUESSES = ("ace of spades", "not ace of spades")


class GuessTheAceRules:
    """Rules object (module docstring). State: tuple of the moves so far."""

    num_players = 2

    def __init__(self, modified: bool = False, prize=1000):
        self.modified = modified
        self.prize = prize
        self.name = f"guess_the_ace(modified={modified}, prize={prize})"

    def initial_state(self):
        return ()

    @staticmethod
    def _correct(card: str, guess: str) -> bool:
        return (card == ACE) == (guess == GUESSES[0])

    def current_player(self, state) -> int:
        if not state:
            return CHANCE_PLAYER
        if len(state) == 1:
            return 0
        if state[1] == "end":
            return TERMINAL_PLAYER
        if len(state) == 2:
            return 1
        if len(state) == 3 and self.modified and not self._correct(state[0], state[2]):
            return 0
        return TERMINAL_PLAYER

    def chance_outcomes(self, state):
        return [(ACE, Fraction(1, 52)), (OTHER, Fraction(51, 52))]

    def legal_actions(self, state) -> list[str]:
        if len(state) == 1:
            return ["end", "offer"]
        if len(state) == 2:
            return list(GUESSES)
        return ["give", "keep"]

    def apply(self, state, action: str):
        return state + (action,)

    def infoset_key(self, state) -> str:
        if len(state) == 1:
            return "P1"
        if len(state) == 2:
            return "P2"
        return f"P1 after wrong guess {state[2]}"

    def payoffs(self, state) -> tuple:
        if state[1] == "end":
            return (0, 0)
        paid = self._correct(state[0], state[2]) or (len(state) == 4 and state[3] == "give")
        return (-self.prize, self.prize) if paid else (0, 0)


@register("guess_the_ace", "Guess-the-Ace (and the modified version): a teaching example for "
          "equilibrium refinements", "Miltersen & Sørensen 2006; notes/farina-thesis.md §2.13")
def guess_the_ace(modified: bool = False, prize=1000):
    """Guess-the-Ace with a ``prize`` (default $1000); ``modified=True`` lets player 1 still give the
    prize after a wrong guess (module docstring)."""
    return expand(GuessTheAceRules(modified, prize))
