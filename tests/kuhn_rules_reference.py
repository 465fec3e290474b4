"""Kuhn poker's rules as they were before issue 37's table-driven callbacks (lpgame at fe7aa7e),
kept verbatim as the reference the catalog's :class:`lpgame.games.poker.KuhnRules` must reproduce
exactly (tests/test_kuhn_rules_identity.py): :class:`KuhnRules` and :func:`card_names` of
lpgame/games/poker.py (its registered factories left out, so that importing this module does not
replace the catalog's entries).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER
from lpgame.limits import check_prediction


def card_names(cards: int) -> list[str]:
    return ["J", "Q", "K"] if cards == 3 else [str(k + 1) for k in range(cards)]


class KuhnRules:
    """The rules object (see module docstring). State: (deal or None, tuple of actions)."""

    def __init__(self, players: int = 2, cards: int = 3, name: str | None = None):
        if players < 2:
            raise InvalidGameError(f"Kuhn poker needs at least 2 players, got {players}")
        if cards < players:
            raise InvalidGameError(f"Kuhn poker with {players} players needs at least {players} "
                                   f"cards, got {cards}")
        self.num_players = players
        self.cards = cards
        self.names = card_names(cards)
        self.name = name or (f"kuhn_poker(players={players}, cards={cards})")

    def initial_state(self):
        return (None, ())

    def _bettor(self, history):
        return history.index("bet") if "bet" in history else None

    def current_player(self, state):
        deal, history = state
        if deal is None:
            return CHANCE_PLAYER
        n = self.num_players
        if "bet" not in history:
            return len(history) if len(history) < n else TERMINAL_PLAYER
        bettor = history.index("bet")
        answered = len(history) - bettor - 1
        if answered >= n - 1:
            return TERMINAL_PLAYER
        return (bettor + 1 + answered) % n

    def chance_outcomes(self, state):
        deals = list(itertools.permutations(range(self.cards), self.num_players))
        p = Fraction(1, len(deals))
        return [("-".join(self.names[c] for c in deal), p) for deal in deals]

    def legal_actions(self, state):
        return ["check", "bet"] if self._bettor(state[1]) is None else ["fold", "call"]

    def apply(self, state, action):
        deal, history = state
        if deal is None:
            cards = tuple(self.names.index(c) for c in action.split("-"))
            return (cards, ())
        return (deal, history + (action,))

    def infoset_key(self, state):
        deal, history = state
        player = self.current_player(state)
        return " ".join((self.names[deal[player]],) + history)

    # ---- the same rules as a private-signal game (lpgame.game.private_signals)
    def deals(self):
        n, r = self.num_players, self.cards
        check_prediction(f"enumerating the {r}^{n} deals of {self.name}", 8 * n * r ** n * 2)
        grids = np.stack(np.meshgrid(*[np.arange(r)] * n, indexing="ij"), axis=-1).reshape(-1, n)
        distinct = np.ones(len(grids), dtype=bool)
        for a in range(n):
            for b in range(a + 1, n):
                distinct &= grids[:, a] != grids[:, b]
        deals = grids[distinct]
        return deals, np.ones(len(deals), dtype=np.int64)

    def signal_labels(self, player):
        return list(self.names)

    def public_initial_state(self):
        return ()

    def public_player(self, history):
        return self.current_player((0, history))

    def public_actions(self, history):
        return self.legal_actions((0, history))

    def public_apply(self, history, action):
        return history + (action,)

    def public_label(self, history):
        return " ".join(history)

    def leaf_payoffs(self, history, deals):
        contribution, folded = self._stakes(history)
        live = [i for i in range(self.num_players) if not folded[i]]
        winner = np.asarray(live)[np.argmax(deals[:, live], axis=1)]
        pot = sum(contribution)
        won = (winner[:, None] == np.arange(self.num_players)[None, :]) * pot
        return won - np.asarray(contribution)[None, :]

    def showdown(self):
        """Two players: payoffs depend only on which card is higher (lpgame.game.showdown)."""
        return (self.cards, True) if self.num_players == 2 else None

    def showdown_case_payoffs(self, history):
        """Payoffs at a public leaf when player 1's card is higher, lower (equal cannot happen)."""
        contribution, folded = self._stakes(history)
        pot = sum(contribution)
        rows = []
        for first_wins in (True, False):
            if folded[0]:
                winner = 1
            elif folded[1]:
                winner = 0
            else:
                winner = 0 if first_wins else 1
            rows.append([(pot if i == winner else 0) - contribution[i] for i in range(2)])
        rows.append([0, 0])
        return rows

    def _stakes(self, history):
        n = self.num_players
        bettor = self._bettor(history)
        contribution = [1] * n
        folded = [False] * n
        if bettor is not None:
            contribution[bettor] += 1
            for k, action in enumerate(history[bettor + 1:]):
                player = (bettor + 1 + k) % n
                if action == "call":
                    contribution[player] += 1
                else:
                    folded[player] = True
        return contribution, folded

    def payoffs(self, state):
        deal, history = state
        contribution, folded = self._stakes(history)
        winner = max([i for i in range(self.num_players) if not folded[i]], key=deal.__getitem__)
        pot = sum(contribution)
        return tuple([(pot if i == winner else 0) - c for i, c in enumerate(contribution)])

