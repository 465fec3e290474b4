"""Lossless abstraction: GameShrink on games with ordered signals (Gilpin & Sandholm, EC'06).

One concept per module:

* :mod:`~lpgame.abstraction.ordered_game` — games with ordered signals (Definition 1): deck, rounds,
  limit betting, hand strength; Kuhn, One-Card Poker, Leduc and the Figure 1 game in signal form;
* :mod:`~lpgame.abstraction.views` — players' views and information filters (Definition 2);
* :mod:`~lpgame.abstraction.compile` — the flat index of a (filtered) ordered game by broadcasting
  deals × public betting tree, and its sizes by formula (Proposition 1);
* :mod:`~lpgame.abstraction.signal_tree` — the signal tree (Definition 4), ordered game isomorphism
  (Definition 5) by Algorithm 1 and by canonical forms;
* :mod:`~lpgame.abstraction.gameshrink` — Algorithm 2 and the sound view filter (Theorem 2, 3);
* :mod:`~lpgame.abstraction.lifting` — abstract strategies to original ones (Theorem 2);
* :mod:`~lpgame.abstraction.solve` — shrink → solve → lift, ``lpgame.solve(..., abstraction=...)``.

>>> from lpgame.abstraction import gameshrink, toy_ordered
>>> gameshrink(toy_ordered()).partition.counts()
[[2], [2]]
"""

from lpgame.abstraction.compile import OrderedIndexedGame, compile_ordered_game, sequence_form_sizes
from lpgame.abstraction.gameshrink import IDENTITY_MESSAGE, Abstraction, gameshrink
from lpgame.abstraction.lifting import lift_behaviour, lift_strategies
from lpgame.abstraction.ordered_game import (
    BettingRound,
    OrderedSignalGame,
    kuhn_ordered,
    leduc_ordered,
    toy_ordered,
)
from lpgame.abstraction.solve import (
    ABSTRACTIONS,
    as_ordered_game,
    ordered_from_catalog,
    shrink,
    solve_with_abstraction,
)
from lpgame.abstraction.views import ViewPartition

__all__ = ["OrderedSignalGame", "BettingRound", "kuhn_ordered", "leduc_ordered", "toy_ordered",
           "compile_ordered_game", "sequence_form_sizes", "OrderedIndexedGame", "gameshrink",
           "Abstraction", "IDENTITY_MESSAGE", "lift_behaviour", "lift_strategies",
           "solve_with_abstraction", "as_ordered_game", "ordered_from_catalog", "shrink",
           "ABSTRACTIONS", "ViewPartition"]
