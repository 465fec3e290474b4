"""Games with ordered signals (Gilpin & Sandholm, EC'06, Definition 1), two players, limit betting.

A game with ordered signals Γ = ⟨I, G, L, Θ, κ, γ, p, ⪰, ω, u⟩ (notes/gameshrink-and-hoehn.md §A.1)
is played in rounds j = 1..r. In round j, κ^j **public** signals and then γ^j **private** signals for
each player (player 1's first) are drawn from the deck Θ **without replacement** with
p(x | X) = p(x) / Σ_{y ∉ X} p(y) (item 6), then the players play the round's stage game G^j, whose
leaves either end the game or continue to round j + 1 (ω, item 8). Every action is public; the only
hidden information is the other player's private signals and the signals still to come. Payoffs
(item 9) are signal-independent at a fold and monotone in the order ⪰ over signal sets at a
showdown, here given by a **hand-strength function** h(public signals, own private signals) → int:
the higher strength takes the pot, equal strengths split it.

This module holds the rules only (the deck with integer weights, the rounds, antes, limit-betting
stage games and the strength function) and the two tables everything else is assembled from:

* the **public betting tree** over all rounds (:class:`PublicTree`): a few hundred nodes even for
  Rhode Island Hold'em, built once in Python;
* the **signal deals** (:meth:`OrderedSignalGame.deals`): every ordered prefix of distinct signals at
  depth k of the signal tree (Definition 4), with its probability, built by numpy extension of the
  previous depth (never node by node).

The game tree is the product of the two and is never built: :mod:`lpgame.abstraction.compile`
assembles the flat index from them by broadcasting.

Stage games are two-player limit betting (the rules of Kuhn, Leduc and Rhode Island Hold'em): each
round player 1 acts first; without an outstanding bet a player checks or bets; facing a bet a player
folds, calls, or raises while fewer than ``max_bets`` bets (the bet plus raises) were made in the
round; a round ends when both checked or a bet is called; a fold ends the game; after the last
round the hands are compared.

Example (Kuhn poker in signal form; its value is −1/18):

>>> from lpgame.abstraction.ordered_game import kuhn_ordered
>>> g = kuhn_ordered()
>>> g.signal_tree_size(), [len(g.deals(k)[0]) for k in range(3)]
(10, [1, 3, 6])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from lpgame.abstraction.compile import compile_ordered_game
from lpgame.abstraction.signal_rules import (  # noqa: F401
    LOSE,
    TIE,
    WIN,
    BettingRound,
    OrderedSignalRules,
    PublicNode,
    PublicTree,
)
from lpgame.errors import InvalidGameError


class OrderedSignalGame(OrderedSignalRules):
    """A two-player game with ordered signals and limit betting (module docstring): the rules of
    :class:`~lpgame.abstraction.signal_rules.OrderedSignalRules` and their compilation."""

    def compile(self, abstraction=None, memory_limit: int | None = None):
        """The flat index (:class:`~lpgame.game.tree.IndexedGame`) of this game, or of its abstraction
        ``abstraction`` (a :class:`~lpgame.abstraction.gameshrink.ViewPartition`)."""
        return compile_ordered_game(self, abstraction, memory_limit=memory_limit)


# ---------------------------------------------------------------------- the classic games in signal form
def rank_strength(ranks: Sequence[int]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Strength = the rank of the single private card (Kuhn, One-Card Poker, the toy game)."""
    table = np.asarray(ranks, dtype=np.int64)

    def strength(public: np.ndarray, private: np.ndarray) -> np.ndarray:
        return table[private[:, 0]]
    return strength


def kuhn_ordered(cards: int = 3, name: str | None = None) -> OrderedSignalGame:
    """Kuhn poker with ``cards`` distinct cards (One-Card Poker OCP(N) for ``cards=N``): ante 1, one
    bet of 1, one round (lpgame/games/poker.py's rules and labels)."""
    if cards < 2:
        raise InvalidGameError(f"Kuhn poker needs at least 2 cards, got {cards}")
    names = ["J", "Q", "K"] if cards == 3 else [str(k + 1) for k in range(cards)]
    return OrderedSignalGame(name or f"kuhn_poker(cards={cards}) [signal form]", names,
                             [BettingRound(0, 1, 1, 1)], 1, rank_strength(range(cards)),
                             label_separator=" ")


def toy_ordered() -> OrderedSignalGame:
    """Gilpin & Sandholm's Figure 1 game: deck J1, J2, K1, K2 (two ranks), Kuhn betting (ante 1,
    bet 1), the higher rank wins, equal ranks tie (notes §A.10)."""
    return OrderedSignalGame("gameshrink_toy (Gilpin & Sandholm Fig. 1)", ["J1", "J2", "K1", "K2"],
                             [BettingRound(0, 1, 1, 1)], 1, rank_strength([0, 0, 1, 1]),
                             label_separator=" ")


def leduc_ordered(bets: int = 2, ranks: int = 3, suits: int = 2) -> OrderedSignalGame:
    """Card-level Leduc poker (lpgame/games/leduc.py with ``deal="cards"``, two players): one private
    card, a round with bets of 2, a public card, a round with bets of 4, at most ``bets`` bets per
    round; a private card pairing the board wins, else the higher rank. Card ids and labels are
    those of :class:`~lpgame.games.leduc.LeducRules`."""
    if ranks < 1 or suits < 1 or ranks * suits < 3:
        raise InvalidGameError(f"Leduc needs at least 3 cards, got ranks={ranks}, suits={suits}")
    rank_names = ["J", "Q", "K"] if ranks == 3 else [str(k + 1) for k in range(ranks)]
    suit_names = list("shdc") if suits <= 4 else [f"s{k + 1}" for k in range(suits)]
    names = [rank_names[c // suits] + suit_names[c % suits] for c in range(ranks * suits)]
    card_rank = np.arange(ranks * suits) // suits

    def strength(public: np.ndarray, private: np.ndarray) -> np.ndarray:
        own, board = card_rank[private[:, 0]], card_rank[public[:, 0]]
        return own + ranks * (own == board)

    return OrderedSignalGame(
        f"leduc_poker(bets={bets}, ranks={ranks}, suits={suits}, deal=cards) [signal form]", names,
        [BettingRound(0, 1, 2, bets), BettingRound(1, 0, 4, bets)], 1, strength)


__all__ = ["OrderedSignalGame", "BettingRound", "PublicTree", "kuhn_ordered", "toy_ordered",
           "leduc_ordered", "rank_strength", "WIN", "LOSE", "TIE"]
