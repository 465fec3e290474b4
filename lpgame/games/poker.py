"""Kuhn poker with n players and r cards, and One-Card Poker OCP(N).

Rules (Kuhn 1950; Farina 2023, Ex. 2.1 and App. A, L6673–6677; notes/farina-thesis.md §2.1;
One-Card Poker: Rojas Linárez 2020, l. 1189–1193, notes §1.7):

* a deck of r distinct cards ranked 1..r; one chance node deals every player one card without
  replacement, every ordered deal equally likely; each player antes 1;
* players act in seat order: while no bet has been made a player checks or bets 1; once a bet is
  made, every other player (earlier checkers included) in turn folds or calls;
* the game ends when all have checked, or when everybody after the bettor has answered; the highest
  card among those who did not fold takes the pot. Payoff = winnings − own contribution.

Sizes (farina §2.1, verified by the tests): two players, |J| = 4r, |Σ| = 8r + 2, |Z| = 5r(r−1);
the tree has 9r(r−1) + 1 nodes (OCP's formula); three players |J| = 12r, |Σ| = 24r + 3.
Two-player Kuhn (r = 3) has value −1/18 for player 1 (Kuhn 1950).

Information-set labels read ``"<card> <history>"``, e.g. ``"J"`` (player 1 with the jack, first
move) and ``"Q check"`` (player 2 with the queen after a check); cards of the 3-card deck are
J, Q, K, larger decks use 1..r.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import compiled_bytes, permutations, saturate, tree_bytes
from lpgame.limits import check_prediction


def card_names(cards: int) -> list[str]:
    return ["J", "Q", "K"] if cards == 3 else [str(k + 1) for k in range(cards)]


CHECK_BET = ("check", "bet")
FOLD_CALL = ("fold", "call")
SHARED_PLAYERS = 8
"""Player counts up to which the betting tables are kept per process (1 + n·2^(n−1) leaves)."""
SHARED_DEALS = 1 << 12
"""Deals up to which a (players, cards) table of chance outcomes and keys is kept per process."""


class _Table(dict):
    """A dict that fills itself: the value of a missing key is made by ``make`` and kept, so a
    table holds the histories a walk has met, each answered once."""

    __slots__ = ("make",)

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


def _public_tables(players: int) -> tuple[_Table, _Table, _Table]:
    """For the betting of ``players`` seats (module docstring): each history's player to move (or
    TERMINAL_PLAYER), its actions (one shared tuple each) and, at a leaf, the players who did not
    fold with the payoffs for each possible winner (one shared tuple each)."""
    def actions(history):
        return CHECK_BET if "bet" not in history else FOLD_CALL

    def settle(history):
        contribution, folded = _stakes(players, history)
        pot = sum(contribution)
        live = tuple([i for i in range(players) if not folded[i]])
        return live, tuple(
            tuple([(pot if i == winner else 0) - c for i, c in enumerate(contribution)])
            for winner in range(players))

    return (_Table(lambda history: _betting_turn(players, history)), _Table(actions),
            _Table(settle))


def _betting_turn(players: int, history: tuple) -> int:
    if "bet" not in history:
        return len(history) if len(history) < players else TERMINAL_PLAYER
    bettor = history.index("bet")
    answered = len(history) - bettor - 1
    if answered >= players - 1:
        return TERMINAL_PLAYER
    return (bettor + 1 + answered) % players


def _stakes(players: int, history: tuple) -> tuple[list[int], list[bool]]:
    """Each player's contribution to the pot and whether they folded, after ``history``."""
    contribution = [1] * players
    folded = [False] * players
    if "bet" in history:
        bettor = history.index("bet")
        contribution[bettor] += 1
        for k, action in enumerate(history[bettor + 1:]):
            player = (bettor + 1 + k) % players
            if action == "call":
                contribution[player] += 1
            else:
                folded[player] = True
    return contribution, folded


def _deal_tables(players: int, cards: int) -> tuple[tuple, dict, _Table]:
    """The chance outcomes (label, 1/#deals) as one tuple, each label's deal, and each decision
    history's information-set keys by the mover's card."""
    names = card_names(cards)
    deals = list(itertools.permutations(range(cards), players))
    p = Fraction(1, len(deals))
    labels = ["-".join([names[c] for c in deal]) for deal in deals]
    outcomes = tuple([(label, p) for label in labels])
    keys = _Table(lambda history: tuple([" ".join((name,) + history) for name in names]))
    return outcomes, dict(zip(labels, deals)), keys


_PUBLIC: dict[int, tuple] = {}
_DEALS: dict[tuple[int, int], tuple] = {}


class KuhnRules:
    """The rules object (see module docstring). State: (deal or None, tuple of actions).

    The callbacks answer from tables, filled as walks meet the histories: the betting per player
    count (up to :data:`SHARED_PLAYERS`) and, for up to :data:`SHARED_DEALS` deals, the chance
    outcomes and information-set keys per (players, cards) are kept per process; equal actions and
    outcomes are the same tuple objects, which the expansion (:func:`lpgame.game.rules.expand`)
    then labels and checks once."""

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
        public = _PUBLIC.get(players)
        if public is None:
            public = _public_tables(players)
            if players <= SHARED_PLAYERS:
                _PUBLIC[players] = public
        self._turn, self._actions, self._settle = public
        self._deals = None

    def _deal_tables(self) -> tuple:
        if self._deals is None:
            key = (self.num_players, self.cards)
            tables = _DEALS.get(key)
            if tables is None:
                tables = _deal_tables(self.num_players, self.cards)
                if len(tables[0]) <= SHARED_DEALS:
                    _DEALS[key] = tables
            self._deals = tables
        return self._deals

    def initial_state(self):
        return (None, ())

    def _bettor(self, history):
        return history.index("bet") if "bet" in history else None

    def current_player(self, state):
        deal, history = state
        if deal is None:
            return CHANCE_PLAYER
        return self._turn[history]

    def chance_outcomes(self, state):
        return self._deal_tables()[0]

    def legal_actions(self, state):
        return self._actions[state[1]]

    def apply(self, state, action):
        deal, history = state
        if deal is None:
            return ((self._deals or self._deal_tables())[1][action], ())
        return (deal, history + (action,))

    def infoset_key(self, state):
        deal, history = state
        return (self._deals or self._deal_tables())[2][history][deal[self._turn[history]]]

    def payoffs(self, state):
        deal, history = state
        live, by_winner = self._settle[history]
        return by_winner[max(live, key=deal.__getitem__)]

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
        return _stakes(self.num_players, history)


def public_leaves(players: int) -> int:
    """Betting sequences: all check (1), or a first bet at one of the n seats followed by the
    other n − 1 players' fold-or-call (n·2^(n−1)); 5 for two players (module docstring)."""
    return 1 + players * 2 ** (players - 1) if players < 64 else 1 << 128


def kuhn_size(players: int = 2, cards: int = 3, structured: bool = False, **_) -> int:
    """Bytes needed at least: the explicit tree has r!/(r−n)! deals × public leaves nodes
    (9r(r − 1) + 1 for two players); the compiled game holds n·r signals × ≥ 2 public sequences
    each, and with three or more players all the deals (lpgame.games.size_prediction)."""
    leaves = public_leaves(players)
    deals = permutations(cards, players)
    if not structured:
        return tree_bytes(saturate(deals * leaves))
    enumerated = saturate(deals * 8 * players) if players > 2 else 0
    return saturate(compiled_bytes(leaves, players * cards * 2) + enumerated)


@register("kuhn_poker", "Kuhn poker, n players, r cards (value −1/18 for 2 players, 3 cards)",
          "Kuhn 1950; notes/farina-thesis.md §2.1", ranges={"players": (2, None), "cards": (2, None)},
          size=kuhn_size)
def kuhn_poker(players: int = 2, cards: int = 3, structured: bool = False):
    """Kuhn poker as an explicit networkx tree (default), or compiled by broadcasting."""
    rules = KuhnRules(players, cards)
    return compile_private_signals(rules) if structured else expand(rules)


@register("one_card_poker", "One-Card Poker OCP(N): 2-player Kuhn betting with an N-card deck",
          "notes/rojas-linarez-and-notebook.md §1.7", ranges={"N": (2, None)},
          size=lambda N=3, structured=True: kuhn_size(2, N, structured))  # noqa: N803
def one_card_poker(N: int = 3, structured: bool = True):  # noqa: N803  (the catalog's name)
    """OCP(N). ``structured=True`` (default) compiles deals × public tree by broadcasting
    (:mod:`lpgame.game.private_signals`); ``False`` expands the explicit networkx tree."""
    rules = KuhnRules(2, N, name=f"one_card_poker(N={N})")
    return compile_private_signals(rules) if structured else expand(rules)
