"""The catalog's rules games and their expansion as they were before issue 37's faster callbacks
(lpgame at 6549558), kept verbatim as the reference the new code must reproduce exactly
(tests/test_catalog_build_identity.py): :func:`expand` and ``_expand`` of lpgame/game/rules.py,
:class:`GoofspielRules` of lpgame/games/goofspiel.py, :class:`DiceBiddingRules` and
:class:`LiarsDiceRules` of lpgame/games/liars_dice.py (their registered factories left out, so that
importing this module does not replace the catalog's entries).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from lpgame import progress
from lpgame.errors import InvalidGameError
from lpgame.game.flat_tree import FlatTree, paused_gc
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, GameRules
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.limits import (
    BYTES_PER_TREE_NODE,
    check_prediction,
    first_tree_node_check,
    tree_node_limit,
)

PROGRESS_EVERY = (1 << 15) - 1


def expand(rules: GameRules, name: str | None = None, memory_limit: int | None = None) -> Game:
    """Expand ``rules`` into the explicit :class:`~lpgame.game.tree.Game` (depth first).

    Nodes are numbered in depth-first preorder, the root being 0. The walk records one node per
    visit (:class:`~lpgame.game.flat_tree.FlatTree`) and the flat index is built from the records
    in one pass; the networkx graph (``game.graph``) is made only when asked for. The walk stops
    with :class:`~lpgame.errors.ModelTooLargeError` as soon as the tree would not fit in the memory
    limit (:mod:`lpgame.limits`).
    """
    with paused_gc():
        return _expand(rules, name, memory_limit)


def _expand(rules: GameRules, name: str | None, memory_limit: int | None) -> Game:
    """The walk of :func:`expand`."""
    max_nodes, final = first_tree_node_check(memory_limit)
    records: list[tuple] = []
    record = records.append
    current_player, legal_actions, apply = rules.current_player, rules.legal_actions, rules.apply
    # stack of (state, parent id, position among the parent's children)
    stack: list[tuple[Any, int, int]] = [(rules.initial_state(), -1, 0)]
    push, pop = stack.append, stack.pop
    num_players = int(rules.num_players)
    while stack:
        state, parent, position = pop()
        node = len(records)
        if not node & PROGRESS_EVERY:
            progress.report("expanding the game tree", nodes=node)
        if node >= max_nodes and not final:
            max_nodes, final = tree_node_limit(memory_limit), True
        if node >= max_nodes:
            check_prediction(f"expanding {getattr(rules, 'name', type(rules).__name__)} "
                             f"(more than {max_nodes} nodes)", (node + 1) * BYTES_PER_TREE_NODE,
                             memory_limit)
        who = current_player(state)
        if who == TERMINAL_PLAYER:
            record((parent, position, TERMINAL, (), tuple(rules.payoffs(state)), None, None))
            continue
        if who == CHANCE_PLAYER:
            outcomes = list(rules.chance_outcomes(state))
            record((parent, position, CHANCE, tuple([str(a) for a, _ in outcomes]),
                    tuple([p for _, p in outcomes]), None, None))
            for k in range(len(outcomes) - 1, -1, -1):
                push((apply(state, outcomes[k][0]), node, k))
            continue
        actions = list(legal_actions(state))
        record((parent, position, DECISION, tuple(map(str, actions)), None, int(who),
                str(rules.infoset_key(state))))
        for k in range(len(actions) - 1, -1, -1):
            push((apply(state, actions[k]), node, k))
    progress.report("expanding the game tree", nodes=len(records))
    return Game.from_flat_tree(FlatTree(records), num_players,
                               name=name or getattr(rules, "name", type(rules).__name__),
                               player_names=getattr(rules, "player_names", None))


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


class DiceBiddingRules:
    """One round of dice bidding; subclasses define :meth:`round_payoffs`.

    Player i rolls ``dice[i]`` fair dice with ``faces`` faces; its private signal is the multiset of
    its dice (signal index into :attr:`hands`\\[i]). The public state is the tuple of bid indices
    made so far, followed by :data:`CALL` once the last bid is challenged.

    Bid index b ∈ 0..m−1 (m = faces · total dice) is the claim "at least ``b // faces + 1`` dice
    show face ``b % faces + 1``".
    """

    CALL = -1
    call_label = "liar"

    def __init__(self, dice: tuple[int, ...], faces: int, name: str):
        if faces < 1:
            raise InvalidGameError(f"{name}: dice need at least one face, got faces={faces}")
        if any(d < 1 for d in dice):
            raise InvalidGameError(f"{name}: every player needs at least one die, got {dice}")
        self.num_players = len(dice)
        self.dice = tuple(int(d) for d in dice)
        self.faces = int(faces)
        self.num_bids = self.faces * sum(self.dice)
        self.name = name
        # per player: hands as sorted face tuples, face counts (R_i × k), multinomial weights
        self.hands: list[list[tuple[int, ...]]] = []
        self.hand_counts: list[np.ndarray] = []
        self.hand_weights: list[np.ndarray] = []
        for d in self.dice:
            hands = list(itertools.combinations_with_replacement(range(self.faces), d))
            counts = np.zeros((len(hands), self.faces), dtype=np.int64)
            for r, hand in enumerate(hands):
                for f in hand:
                    counts[r, f] += 1
            weights = np.array([math.factorial(d) // math.prod(math.factorial(int(c)) for c in row)
                                for row in counts], dtype=np.int64)
            self.hands.append(hands)
            self.hand_counts.append(counts)
            self.hand_weights.append(weights)
        self.hand_index = [{h: r for r, h in enumerate(hands)} for hands in self.hands]
        self.bid_labels = [f"{b // self.faces + 1}x{b % self.faces + 1}" for b in range(self.num_bids)]
        self.bid_of_label = {lab: b for b, lab in enumerate(self.bid_labels)}
        self._deals: tuple[np.ndarray, np.ndarray] | None = None
        self._table_counts: np.ndarray | None = None

    # ---- the dice
    def hand_label(self, player: int, hand: int) -> str:
        return "[" + " ".join(str(f + 1) for f in self.hands[player][hand]) + "]"

    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """Every combination of hands (D × n signal indices) with its multinomial weight."""
        if self._deals is None:
            sizes = [len(h) for h in self.hands]
            grid = np.indices(sizes).reshape(self.num_players, -1).T
            weights = np.ones(len(grid), dtype=np.int64)
            for i in range(self.num_players):
                weights *= self.hand_weights[i][grid[:, i]]
            self._deals = (grid.astype(np.int64), weights)
        return self._deals

    def table_counts(self) -> np.ndarray:
        """D × k: how many dice on the table show each face, per deal."""
        if self._table_counts is None:
            deals, _ = self.deals()
            total = np.zeros((len(deals), self.faces), dtype=np.int64)
            for i in range(self.num_players):
                total += self.hand_counts[i][deals[:, i]]
            self._table_counts = total
        return self._table_counts

    def signal_labels(self, player: int) -> list[str]:
        return [self.hand_label(player, r) for r in range(len(self.hands[player]))]

    # ---- the public bidding tree
    def public_initial_state(self) -> tuple[int, ...]:
        return ()

    def public_player(self, bids: tuple[int, ...]) -> int:
        if bids and bids[-1] == self.CALL:
            return TERMINAL_PLAYER
        return len(bids) % self.num_players

    def public_actions(self, bids: tuple[int, ...]) -> list[str]:
        if not bids:
            return list(self.bid_labels)
        return self.bid_labels[bids[-1] + 1:] + [self.call_label]

    def public_apply(self, bids: tuple[int, ...], action: str) -> tuple[int, ...]:
        return bids + ((self.CALL,) if action == self.call_label else (self.bid_of_label[action],))

    def public_label(self, bids: tuple[int, ...]) -> str:
        return " ".join(self.call_label if b == self.CALL else self.bid_labels[b] for b in bids)

    def leaf_payoffs(self, bids: tuple[int, ...], deals: np.ndarray) -> np.ndarray:
        """Payoffs at the call ending ``bids`` for every deal (rows of :meth:`deals`)."""
        made = len(bids) - 1
        claim = bids[-2]
        quantity, face = claim // self.faces + 1, claim % self.faces
        if deals is self.deals()[0]:
            counts = self.table_counts()[:, face]
        else:
            counts = sum(self.hand_counts[i][deals[:, i], face] for i in range(self.num_players))
        claim_true = np.asarray(counts) >= quantity
        bidder, challenger = (made - 1) % self.num_players, made % self.num_players
        return self.round_payoffs(bidder, challenger, claim_true)

    def round_payoffs(self, bidder: int, challenger: int, claim_true: np.ndarray) -> np.ndarray:
        """D × n payoffs when ``challenger`` calls ``bidder``'s claim (true where ``claim_true``)."""
        raise NotImplementedError

    # ---- the same rules as an explicit tree (lpgame.game.rules.GameRules)
    def initial_state(self):
        return (None, ())

    def current_player(self, state) -> int:
        deal, bids = state
        return CHANCE_PLAYER if deal is None else self.public_player(bids)

    def chance_outcomes(self, state):
        deals, weights = self.deals()
        total = int(weights.sum())
        return [("-".join(self.hand_label(i, int(r)) for i, r in enumerate(deal)),
                 Fraction(int(w), total)) for deal, w in zip(deals, weights)]

    def legal_actions(self, state) -> list[str]:
        return self.public_actions(state[1])

    def apply(self, state, action: str):
        deal, bids = state
        if deal is None:
            hands = action.split("-")
            return (tuple(self.signal_labels(i).index(h) for i, h in enumerate(hands)), ())
        return (deal, self.public_apply(bids, action))

    def infoset_key(self, state) -> str:
        deal, bids = state
        player = self.public_player(bids)
        return f"{self.hand_label(player, deal[player])} {self.public_label(bids)}".strip()

    def payoffs(self, state) -> tuple:
        deal, bids = state
        row = self.leaf_payoffs(bids, np.asarray([deal], dtype=np.int64))
        return tuple(row[0].tolist())


class LiarsDiceRules(DiceBiddingRules):
    """Liar's dice D*nk* (module docstring): ±1 to the winner and loser of the challenge."""

    def __init__(self, players: int = 2, faces: int = 6, wild: bool = False):
        if players < 2:
            raise InvalidGameError(f"liar's dice needs at least 2 players, got players={players}")
        name = f"liars_dice(players={players}, faces={faces}" + (", wild=True)" if wild else ")")
        super().__init__((1,) * players, faces, name)
        self.wild = bool(wild)

    def leaf_payoffs(self, bids: tuple[int, ...], deals: np.ndarray) -> np.ndarray:
        if not self.wild:
            return super().leaf_payoffs(bids, deals)
        # OpenSpiel's rule: the highest face is wild, it counts for every other face too
        made = len(bids) - 1
        claim = bids[-2]
        quantity, face = claim // self.faces + 1, claim % self.faces
        top = self.faces - 1
        counts = sum(self.hand_counts[i][deals[:, i], face]
                     + (self.hand_counts[i][deals[:, i], top] if face != top else 0)
                     for i in range(self.num_players))
        bidder, challenger = (made - 1) % self.num_players, made % self.num_players
        return self.round_payoffs(bidder, challenger, np.asarray(counts) >= quantity)

    def round_payoffs(self, bidder: int, challenger: int, claim_true: np.ndarray) -> np.ndarray:
        # Python ints in an object array: exact mode turns them into Fractions as they are
        out = np.zeros((len(claim_true), self.num_players), dtype=np.int64)
        sign = np.where(claim_true, 1, -1)
        out[:, bidder] = sign
        out[:, challenger] = -sign
        return np.array(out.tolist(), dtype=object)
