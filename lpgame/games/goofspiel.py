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
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import permutations, power, tree_bytes


class GoofspielRules:
    """Rules object for (limited-information) Goofspiel.

    State: ``(prizes, bids)`` with ``prizes`` the prize values revealed so far and ``bids`` all bids
    in order (turn-major, seat order within a turn), both tuples of ints 1..k.
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
        self._bid_labels = {c: str(c) for c in self._deck}

    def initial_state(self):
        return ((), ())

    def current_player(self, state) -> int:
        prizes, bids = state
        n = self.num_players
        done, seat = divmod(len(bids), n)
        if seat:
            return seat
        if done == self.cards:
            return TERMINAL_PLAYER
        return CHANCE_PLAYER if len(prizes) == done else 0

    def chance_outcomes(self, state):
        prizes = state[0]
        left = [c for c in self._deck if c not in prizes]
        p = Fraction(1, len(left))
        return [(f"prize {c}", p) for c in left]

    def legal_actions(self, state) -> list[str]:
        bids = state[1]
        n = self.num_players
        own = bids[len(bids) % n::n]
        return [self._bid_labels[c] for c in self._deck if c not in own]

    def apply(self, state, action: str):
        prizes, bids = state
        if self.current_player(state) == CHANCE_PLAYER:
            return (prizes + (int(action[6:]),), bids)
        return (prizes, bids + (int(action),))

    def _winners(self, turn_bids: tuple[int, ...]) -> list[int]:
        top = max(turn_bids)
        return [i for i, b in enumerate(turn_bids) if b == top]

    def infoset_key(self, state) -> str:
        prizes, bids = state
        n = self.num_players
        player = len(bids) % n
        parts = [f"P{player + 1}"]
        for t in range(len(bids) // n):
            turn = bids[t * n:(t + 1) * n]
            if not self.limited:
                parts.append(f"prize {prizes[t]}: " + " ".join(map(str, turn)))
                continue
            winners = self._winners(turn)
            if n == 2:
                outcome = "tied" if len(winners) == 2 else ("won" if winners[0] == player else "lost")
            else:
                outcome = "winners " + " ".join(f"P{w + 1}" for w in winners)
            parts.append(f"prize {prizes[t]}: {turn[player]} {outcome}")
        parts.append(f"prize {prizes[-1]}")
        return " | ".join(parts)

    def payoffs(self, state) -> tuple:
        prizes, bids = state
        n = self.num_players
        score = [Fraction(0)] * n
        for t, prize in enumerate(prizes):
            winners = self._winners(bids[t * n:(t + 1) * n])
            share = Fraction(prize, len(winners))
            for w in winners:
                score[w] += share
        return tuple(int(s) if s.denominator == 1 else s for s in score)


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
