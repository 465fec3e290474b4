"""Liar's dice D*nk*: n players, one fair k-sided die each, one round of bidding.

Rules (Farina 2023, App. A.1.2, L6661–6663; notes/farina-thesis.md §2.5; Lisý, Lanctot & Bowling
2015):

* every player privately rolls one fair k-sided die (one chance node, k^n equally likely rolls);
* a bid (q, f) claims "at least q of the n dice show face f"; the nk bids are totally ordered by
  quantity, then face, (1,1) < (1,2) < … < (1,k) < (2,1) < … < (n,k) (OpenSpiel's order, as the
  notes advise; no face is wild);
* player 1 must open with a bid; the players then act in seat order, each making a strictly higher
  bid or calling "liar" on the previous bid; after the highest bid (n, k) only "liar" remains (a
  forced move, still a decision node, as in the thesis's counts);
* at a call, if the claim is false the challenger gets +1 and the last bidder −1, if it is true
  the bidder gets +1 and the challenger −1; the other players get 0 (zero-sum).

Sizes (farina §2.5, reproduced by tests/test_catalog_sizes.py): with m = nk bids,
|𝒥| = k·2^m information sets (decision nodes summed over players, one per (own die, set of bids
made)), |Σ| = n + k·(m + Σ_{b=1}^{m} 2^{b−1}(m − b + 1)) and |𝒵| = k^n·(2^m − 1);
D32 128/255/504, D33 1536/3069/13797, D26 24576/49142/147420 (Table 5.1).

The game is a private-signal game: the dice are the only hidden information and every bid is public.
``structured=True`` (the default) compiles deals × public bid tree by broadcasting
(:mod:`lpgame.game.private_signals`); ``structured=False`` expands the explicit networkx tree through
the same rules object (:func:`lpgame.game.rules.expand`), with identical information-set labels;
its callbacks answer from tables made once (the actions after each bid, the texts of the bid
histories, the payoffs of each deal, claim and challenger), about 1 µs a node.

This module also holds :class:`DiceBiddingRules`, the bidding round shared with Dudo
(:mod:`lpgame.games.dudo`): players with any number of dice, signals = the multiset of one's own dice.

Labels: a bid reads ``"2x5"`` ("at least two fives"); an information set reads
``"<own dice> <bids so far>"``, e.g. ``"[3] 1x2 1x5"`` (player 1 holding a three, after the bids 1×2
and 1×5); the challenge is ``"liar"``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import compiled_bytes, power, saturate, tree_bytes


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
        # the explicit tree's callbacks (issue 37): the move of each action label, the actions
        # after each last bid (index m: no bid yet), every hand's label, and tables filled on use
        self._move_of = dict(self.bid_of_label, **{self.call_label: self.CALL})
        self._actions_after = [tuple(self.bid_labels[b + 1:]) + (self.call_label,)
                               for b in range(self.num_bids)] + [tuple(self.bid_labels)]
        self._hand_texts = [self.signal_labels(i) for i in range(self.num_players)]
        self._public_texts: dict[tuple[int, ...], str] = {(): ""}
        self._leaf_payoffs: dict[tuple, tuple] = {}

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
    # State: (deal, bids), deal None before the roll, else a signal index per player. The callbacks
    # are lookups in tables made once (issue 37, "trees at C speed"): the texts of the bid
    # histories met so far, the actions after each last bid, and the payoffs of each (deal, last
    # claim, seat of the challenger), which are all :meth:`leaf_payoffs` looks at.
    def initial_state(self):
        return (None, ())

    def current_player(self, state) -> int:
        deal, bids = state
        if deal is None:
            return CHANCE_PLAYER
        if bids and bids[-1] == self.CALL:
            return TERMINAL_PLAYER
        return len(bids) % self.num_players

    def chance_outcomes(self, state):
        deals, weights = self.deals()
        total = int(weights.sum())
        return [("-".join(self.hand_label(i, int(r)) for i, r in enumerate(deal)),
                 Fraction(int(w), total)) for deal, w in zip(deals, weights)]

    def legal_actions(self, state) -> tuple[str, ...]:
        bids = state[1]
        return self._actions_after[bids[-1] if bids else -1]

    def apply(self, state, action: str):
        deal, bids = state
        if deal is None:
            hands = action.split("-")
            return (tuple(self.signal_labels(i).index(h) for i, h in enumerate(hands)), ())
        return (deal, bids + (self._move_of[action],))

    def infoset_key(self, state) -> str:
        deal, bids = state
        player = len(bids) % self.num_players
        text = self._public_texts.get(bids)
        if text is None:
            text = self._public_texts[bids] = " " + self.public_label(bids)
        return self._hand_texts[player][deal[player]] + text

    def payoffs(self, state) -> tuple:
        """:meth:`leaf_payoffs` of the one deal, computed once per (deal, last claim, seat of the
        challenger) and then the same tuple object."""
        deal, bids = state
        key = (deal, bids[-2], len(bids) % self.num_players)
        out = self._leaf_payoffs.get(key)
        if out is None:
            row = self.leaf_payoffs(bids, np.asarray([deal], dtype=np.int64))
            out = self._leaf_payoffs[key] = tuple(row[0].tolist())
        return out


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


def liars_dice_size(players: int = 2, faces: int = 6, structured: bool = True, **_) -> int:
    """Bytes needed at least, from the module docstring's counts with m = nk bids: the explicit
    tree has more than |𝒵| = k^n·(2^m − 1) nodes; the compiled game a public tree of 2^m bid
    histories, |𝒥| = k·2^m (signal, information set) pairs and a k^n deals × 2^m leaves table."""
    histories = power(2, players * faces)
    deals = power(faces, players)
    if not structured:
        return tree_bytes(saturate(deals * (histories - 1)))
    return saturate(compiled_bytes(histories, faces * histories) + deals * histories * 16)


@register("liars_dice", "Liar's dice D<n><k>: n players, one k-sided die each (Farina's benchmark)",
          "Farina 2023 App. A.1.2; notes/farina-thesis.md §2.5",
          ranges={"players": (2, None), "faces": (1, None)}, size=liars_dice_size)
def liars_dice(players: int = 2, faces: int = 6, structured: bool = True, wild: bool = False):
    """Liar's dice with ``players`` players and one ``faces``-sided die each (module docstring).

    ``structured=True`` compiles deals × public tree by broadcasting; ``False`` expands the explicit
    networkx tree (same information sets and labels). ``wild=True`` makes the highest face wild
    (it counts toward every other face), OpenSpiel's ``liars_dice`` rule; Farina's benchmark has no
    wild face. Two players, six faces: value −1/9 without, −7/258 with the wild face."""
    rules = LiarsDiceRules(players, faces, wild)
    return compile_private_signals(rules) if structured else expand(rules)
