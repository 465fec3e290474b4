"""Rhode Island Hold'em (Shi & Littman 2001), in signal form: never expanded.

Rules (notes/gameshrink-and-hoehn.md §A.12, from Gilpin's GSI page that the EC'06 paper cites):

* a 52-card deck (13 ranks × 4 suits); each player antes 5 and gets one private hole card;
* betting round 1 with bets of 10; a public flop card; round 2 with bets of 20; a public turn card;
  round 3 with bets of 20; limit betting, player 1 first, at most 3 bets (the bet and two raises)
  per round — the cap that reproduces the paper's 91,224,226 LP rows (notes §A.11);
* showdown: the best 3-card hand of hole card + flop + turn wins, equal hands split. Ranking
  (3-card poker, the GSI page): straight flush > three of a kind > straight > flush > pair > high
  card; within a category the higher cards win (a pair by its rank, then the kicker; straights by
  their top card, A-2-3 being the lowest straight; flushes and high cards lexicographically by
  sorted ranks).

As a game with ordered signals (Definition 1): three rounds, γ¹ = 1 private signal, κ² = κ³ = 1 public
signal; S = 4 signals revealed, so the signal tree has 1 + 52 + 52·51 + 52·51·50 + 52·51·50·49 =
6,632,705 nodes (the paper's number). The game tree (about 3·10⁹ nodes) is never built:
``lpgame.solve(..., abstraction="gameshrink")`` shrinks the signal tree first
(:mod:`lpgame.abstraction`). ``ranks``, ``suits``, ``max_bets`` and the bet sizes are parameters so
that small versions can be solved and checked.
"""

from __future__ import annotations

import numpy as np

from lpgame.abstraction.ordered_game import BettingRound, OrderedSignalGame
from lpgame.errors import InvalidGameError
from lpgame.games.registry import register

RANK_NAMES = "23456789TJQKA"
SUIT_NAMES = "shdc"
HIGH_CARD, PAIR, FLUSH, STRAIGHT, TRIPS, STRAIGHT_FLUSH = range(6)


def three_card_strength(ranks: np.ndarray, suits: np.ndarray, num_ranks: int = 13) -> np.ndarray:
    """Strength of 3-card hands (rows of ``ranks``/``suits``, rank 0 lowest): category · R³ plus a
    tie-break, so that comparing integers compares hands (module docstring). The A-2-3 wheel counts
    as a straight only when the deck has 13 ranks (the ace plays low)."""
    R = num_ranks
    r = np.sort(np.asarray(ranks, dtype=np.int64), axis=1)[:, ::-1]     # high, mid, low
    hi, mid, lo = r[:, 0], r[:, 1], r[:, 2]
    s = np.asarray(suits)
    flush = (s[:, 0] == s[:, 1]) & (s[:, 1] == s[:, 2])
    trips = (hi == mid) & (mid == lo)
    distinct = (hi != mid) & (mid != lo)
    wheel = distinct & (R == 13) & (hi == 12) & (mid == 1) & (lo == 0)
    straight = distinct & ((hi - lo == 2) | wheel)
    pair = ~trips & ~distinct
    pair_rank = np.where(hi == mid, hi, lo)
    kicker = np.where(hi == mid, lo, hi)
    top = np.where(wheel, mid, hi)
    lexicographic = (hi * R + mid) * R + lo
    category = np.full(len(r), HIGH_CARD)
    tie_break = lexicographic.copy()
    category[pair] = PAIR
    tie_break[pair] = pair_rank[pair] * R + kicker[pair]
    category[flush & ~straight] = FLUSH
    category[straight & ~flush] = STRAIGHT
    tie_break[straight] = top[straight]
    category[trips] = TRIPS
    tie_break[trips] = hi[trips]
    category[straight & flush] = STRAIGHT_FLUSH
    return category * R ** 3 + tie_break


def rhode_island_ordered(ranks: int = 13, suits: int = 4, max_bets: int = 3, ante: int = 5,
                         bets: tuple[int, int, int] = (10, 20, 20)) -> OrderedSignalGame:
    """Rhode Island Hold'em as an :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame`."""
    if ranks < 3 or ranks > 13 or suits < 1 or ranks * suits < 4:
        raise InvalidGameError(f"Rhode Island Hold'em needs 3..13 ranks and at least 4 cards, got "
                               f"ranks={ranks}, suits={suits}")
    if len(bets) != 3:
        raise InvalidGameError(f"Rhode Island Hold'em has three betting rounds; got bets={bets}")
    rank_names = RANK_NAMES[13 - ranks:]
    suit_names = SUIT_NAMES if suits <= 4 else [f"s{k + 1}" for k in range(suits)]
    names = [rank_names[c // suits] + suit_names[c % suits] for c in range(ranks * suits)]
    card_rank = np.arange(ranks * suits) // suits
    card_suit = np.arange(ranks * suits) % suits

    def strength(public: np.ndarray, private: np.ndarray) -> np.ndarray:
        cards = np.concatenate([private, public], axis=1)
        return three_card_strength(card_rank[cards], card_suit[cards], ranks)

    name = ("rhode_island_holdem" if (ranks, suits, max_bets, ante, tuple(bets)) ==
            (13, 4, 3, 5, (10, 20, 20)) else
            f"rhode_island_holdem(ranks={ranks}, suits={suits}, max_bets={max_bets}, ante={ante}, "
            f"bets={tuple(bets)})")
    rounds = [BettingRound(0, 1, bets[0], max_bets), BettingRound(1, 0, bets[1], max_bets),
              BettingRound(1, 0, bets[2], max_bets)]
    return OrderedSignalGame(name, names, rounds, ante, strength)


MAX_BETS = 100   # the public betting tree is built recursively, about 3·max_bets levels deep


@register("rhode_island_holdem",
          "Rhode Island Hold'em (52 cards, 3 rounds, signal form, never expanded; solve with "
          "abstraction=gameshrink)",
          "Shi & Littman 2001; Gilpin & Sandholm EC'06; notes/gameshrink-and-hoehn.md §A.12",
          ranges={"ranks": (3, 13), "suits": (1, None), "max_bets": (0, MAX_BETS)})
def rhode_island_holdem(ranks: int = 13, suits: int = 4, max_bets: int = 3):
    """Rhode Island Hold'em in signal form (an OrderedSignalGame; see the module docstring)."""
    return rhode_island_ordered(ranks, suits, max_bets)
