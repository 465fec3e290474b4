"""Goofspiel G*nk* and limited-information Goofspiel GL*nk* (n players, k cards).

Rules (Ross 1971; Farina 2023, App. A.1.3–A.1.4, L6665–6671; notes/farina-thesis.md §2.3–2.4):

* every player holds a full suit 1..k; the prize deck 1..k is shuffled face down;
* each of the k turns, a chance node reveals the next prize card (uniform over the prize cards
  left), then the players bid one card each from their hands, privately and simultaneously
  (modelled as players 1..n acting in turn, none seeing the bids of the others in this turn);
* the highest bid wins the prize; tied highest bidders split it equally (a Fraction);
* a player's payoff is the total value of the prizes won, so every leaf pays k(k+1)/2 in all
  (constant-sum).

What the players observe (farina §2.3–2.4, pinned down by the published sizes):

* Goofspiel: the prize cards and, after each turn, every player's bid;
* limited-information Goofspiel: the prize cards, their own bids, and after each turn only the set of
  winners of that turn (an umpire compares the bids); for two players: won, lost or tied.

The last bid of the game is forced (one card left) and is still a decision node, as in the tables.

Sizes (reproduced by tests/test_catalog_sizes.py): |𝒵| = (k!)^(n+1); two-player Goofspiel has
P(k, t+1)·P(k, t)² information sets per player at turn t (P(a, b) = a!/(a−b)!). Farina Table A.1
(information sets / sequences / terminals, summed over players): G24 34952/42658/13824,
GL24 17432/21298/13824, G33 4383/4890/1296, GL33 2511/2802/1296 (the rows printed "GL44"/"GL55"
are 4 and 5 players with 3 cards, notes §6.3).

Labels: an information set reads ``"P1 | prize 3: 2 4 | prize 1"`` (player 1 to bid for the prize 1,
after the turn where prize 3 drew the bids 2 and 4); in the limited version
``"P1 | prize 3: 2 won | prize 1"`` (own bid and the outcome; ``"winners P1 P3"`` with more than two
players). Chance outcomes read ``"prize 3"``, bids are the card, ``"2"``.

The tree is expanded by :func:`lpgame.game.rules.expand` from :class:`GoofspielRules`, whose state
carries every player's information-set text and score as the game goes, so that each callback is
a lookup (about 1 µs a node; tests/test_catalog_build_identity.py checks the tree node by node
against the rules as first written, kept in tests/catalog_rules_reference.py).
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import add

from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import permutations, power, tree_bytes

WHO, HANDS, TURN, PRIZE, LEFT, SEEN, KEYS, SCORE = range(8)
"""Fields of a state tuple (:class:`GoofspielRules`)."""


class GoofspielRules:
    """Rules object for (limited-information) Goofspiel.

    State: a tuple ``(who, hands, turn, prize, left, seen, keys, score)``, everything the callbacks
    need already computed when the state is made, so that each callback is a lookup (issue 37):
    ``who`` the player to move (or chance, or terminal); ``hands`` the cards still held, player i's
    as bits ``i·k … i·k + k − 1`` of one int (bit c − 1 = card c); ``turn`` the bids of the turn in
    progress, in seat order; ``prize`` the prize being bid for (0 before the first); ``left`` the
    prizes not yet revealed, as bits; ``seen`` per player the information-set text of the completed
    turns (``"P1 | prize 3: 2 won"``); ``keys`` per player the information-set key of the turn in
    progress (``seen`` + ``" | prize p"``); ``score`` per player the prizes won so far, times
    L = lcm(1, …, n) so that split prizes stay integers. A turn's outcome (winners, texts, score
    increments) comes from a table filled on first use.
    """

    def __init__(self, players: int = 2, cards: int = 4, limited: bool = False):
        if players < 2:
            raise InvalidGameError(f"Goofspiel needs at least 2 players, got players={players}")
        if cards < 1:
            raise InvalidGameError(f"Goofspiel needs at least 1 card, got cards={cards}")
        self.num_players = players
        self.cards = cards
        self.limited = limited
        kind = "goofspiel_limited" if limited else "goofspiel"
        self.name = f"{kind}(players={players}, cards={cards})"
        self.player_names = [f"P{i + 1}" for i in range(players)]
        self._deck = tuple(range(1, cards + 1))
        self._full = (1 << cards) - 1
        self._scale = math.lcm(*range(1, players + 1))
        # the labels of a set of cards (bits), in deck order: legal bids and chance outcomes
        self._bids_of = [tuple(str(c) for c in self._deck if mask >> (c - 1) & 1)
                         for mask in range(1 << cards)]
        self._card_of = {str(c): c for c in self._deck}
        self._prize_of = {f"prize {c}": c for c in self._deck}
        self._outcomes_of: dict[int, tuple] = {}
        self._suffix = {c: (f" | prize {c}",) * players for c in self._deck}
        self._turns: dict[tuple, tuple] = {}
        self._payoffs: dict[tuple, tuple] = {}

    def initial_state(self):
        n = self.num_players
        return (CHANCE_PLAYER, (1 << (n * self.cards)) - 1, (), 0, self._full,
                tuple(self.player_names), None, (0,) * n)

    def current_player(self, state) -> int:
        return state[WHO]

    def chance_outcomes(self, state):
        left = state[LEFT]
        outcomes = self._outcomes_of.get(left)
        if outcomes is None:
            cards = [c for c in self._deck if left >> (c - 1) & 1]
            p = Fraction(1, len(cards))
            outcomes = self._outcomes_of[left] = tuple((f"prize {c}", p) for c in cards)
        return outcomes

    def legal_actions(self, state) -> tuple[str, ...]:
        return self._bids_of[state[HANDS] >> state[WHO] * self.cards & self._full]

    def apply(self, state, action: str):
        who, hands, turn, prize, left, seen, keys, score = state
        if who == CHANCE_PLAYER:
            card = self._prize_of[action]
            return (0, hands, (), card, left ^ 1 << (card - 1), seen,
                    tuple(map(add, seen, self._suffix[card])), score)
        card = self._card_of[action]
        hands ^= 1 << (who * self.cards + card - 1)
        turn += (card,)
        if who + 1 < self.num_players:
            return (who + 1, hands, turn, prize, left, seen, keys, score)
        texts, gains = self._turn(prize, turn)
        return (CHANCE_PLAYER if left else TERMINAL_PLAYER, hands, (), prize, left,
                tuple(map(add, seen, texts)), None, tuple(map(add, score, gains)))

    def _turn(self, prize: int, turn: tuple[int, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """What each player records of a completed turn (the text added to its information-set
        key) and the score each gains (times L), from the table, filled on first use."""
        entry = self._turns.get((prize, turn))
        if entry is None:
            n = self.num_players
            winners = self._winners(turn)
            share = prize * self._scale // len(winners)
            gains = tuple(share if i in winners else 0 for i in range(n))
            if not self.limited:
                texts = (f" | prize {prize}: " + " ".join(map(str, turn)),) * n
            elif n == 2:
                texts = tuple(f" | prize {prize}: {turn[i]} "
                              + ("tied" if len(winners) == 2 else
                                 ("won" if winners[0] == i else "lost")) for i in range(n))
            else:
                outcome = "winners " + " ".join(f"P{w + 1}" for w in winners)
                texts = tuple(f" | prize {prize}: {turn[i]} {outcome}" for i in range(n))
            entry = self._turns[(prize, turn)] = (texts, gains)
        return entry

    def _winners(self, turn_bids: tuple[int, ...]) -> list[int]:
        top = max(turn_bids)
        return [i for i, b in enumerate(turn_bids) if b == top]

    def infoset_key(self, state) -> str:
        return state[KEYS][state[WHO]]

    def payoffs(self, state) -> tuple:
        """The total value of the prizes each player won: an int, or a Fraction where split
        prizes leave one (the same tuple object for equal scores)."""
        score = state[SCORE]
        out = self._payoffs.get(score)
        if out is None:
            exact = [Fraction(s, self._scale) for s in score]
            out = self._payoffs[score] = tuple(int(s) if s.denominator == 1 else s for s in exact)
        return out


def goofspiel_size(players: int = 2, cards: int = 4) -> int:
    """Bytes needed at least: the tree has (k!)^(n+1) leaves, k! prize orders × k! bid orders per
    player (G24: 13,824 terminals; lpgame.games.size_prediction)."""
    return tree_bytes(power(permutations(cards, cards), players + 1))


@register("goofspiel", "Goofspiel G<n><k>: n players bid cards 1..k for random prizes (bids public)",
          "Ross 1971; Farina 2023 App. A.1.3; notes/farina-thesis.md §2.3",
          ranges={"players": (2, None), "cards": (1, None)}, size=goofspiel_size)
def goofspiel(players: int = 2, cards: int = 4):
    """Goofspiel with ``players`` players and ``cards`` cards (module docstring)."""
    return expand(GoofspielRules(players, cards, limited=False))


@register("goofspiel_limited", "Limited-information Goofspiel GL<n><k>: only the winners of each turn "
          "are announced", "Farina 2023 App. A.1.4; notes/farina-thesis.md §2.4",
          ranges={"players": (2, None), "cards": (1, None)}, size=goofspiel_size)
def goofspiel_limited(players: int = 2, cards: int = 4):
    """Limited-information Goofspiel with ``players`` players and ``cards`` cards (module docstring)."""
    return expand(GoofspielRules(players, cards, limited=True))
