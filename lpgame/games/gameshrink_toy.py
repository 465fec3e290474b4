"""Gilpin & Sandholm's Figure 1 game, in signal form (notes/gameshrink-and-hoehn.md §A.10).

A deck J1, J2, K1, K2; player 1 gets a card (1/4 each), player 2 one of the other three (1/3 each);
Kuhn's betting (ante 1, one bet of 1): after check–check the higher rank wins 1, after a called bet
2, a fold loses 1, equal ranks tie. GameShrink merges J1 ~ J2 and K1 ~ K2 and "reduces the game
tree from 53 nodes to 19 nodes" (inner nodes); the value is 0.
"""

from __future__ import annotations

from lpgame.abstraction.ordered_game import toy_ordered
from lpgame.games.registry import register


@register("gameshrink_toy", "Gilpin & Sandholm's Fig. 1 game: J1, J2, K1, K2 with Kuhn betting "
          "(signal form; value 0)", "Gilpin & Sandholm EC'06, Fig. 1; notes §A.10")
def gameshrink_toy():
    """The Figure 1 game as an :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame`."""
    return toy_ordered()
