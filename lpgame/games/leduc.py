"""Leduc poker L(n, b, r, s): n players, at most b bets per round, r ranks, s suits.

Rules (Southey et al. 2005; Farina 2023, App. A, L6679–6681; the exact rules that reproduce every
size of Farina's Tables A.1/A.2 are derived in notes/farina-thesis.md §2.2, "[derived ✔]"):

* a deck of r ranks × s suits; every player antes 1; a chance node deals each player one private
  card; betting round 1; if two or more players remain, a chance node deals one public board card;
  betting round 2; showdown;
* a bet or raise adds 2 chips above the current stake in round 1 and 4 chips in round 2; at most
  ``b`` bets (the bet plus raises) are made per round;
* each round starts with the lowest-seat active player and proceeds in seat order; with no
  outstanding bet a player checks or bets; facing a bet a player folds or calls, or raises while
  fewer than ``b`` bets were made this round; the round ends when every active player has acted
  since the last bet (when all checked, or when everybody after the bettor has answered);
* a fold removes the player; when one player remains, that player takes the pot;
* showdown (standard Leduc, notes §2.2 "[supplement]"): a private card pairing the board wins,
  otherwise the higher rank wins; tied players split the pot equally.
  Payoff = winnings − own contribution (zero-sum; integers, a Fraction only when an odd pot is split).

Chance (``deal``):

* ``"ranks"`` (Farina's counting): outcomes are ranks, cards of equal rank merged; a rank with
  ``k`` cards left among ``m`` has probability k/m (exact :class:`~fractions.Fraction`). The private
  deal is one chance node over ordered rank tuples. This reproduces Farina's tables, e.g.
  L2232 (standard Leduc): 288 information sets, 674 sequences, 1116 leaves (notes §2.2 and §2.14).
* ``"cards"`` (OpenSpiel's ``leduc_poker``): outcomes are individual cards, all equally likely;
  standard Leduc then has 2 × 468 = 936 information sets (notes/peers.md) and the same value,
  −0.0856064240780 for player 1 (OpenSpiel's sequence-form LP, notes/peers.md).

Information-set labels show what the player to move knows: own card, the round-1 actions, then
the board card and the round-2 actions, e.g. ``"Q"`` (first to act, holding a queen),
``"Q | bet raise"``, ``"Q | bet call | K"`` (round 2, nothing done yet), ``"Q | bet call | K check"``.
Since the public history fixes who acts, labels are unique across players. Ranks of the 3-rank
deck are J, Q, K, other decks use 1..r; with ``deal="cards"`` a suit letter follows (s, h, d, c;
``s1``, ``s2``, ... beyond four suits), e.g. ``"Qh | bet call | Ks check"``.

Implementation: the public betting tree (who acts, legal actions, stakes) does not depend on the
cards, so it is built once, and a state is the tuple (public node, private deal, board).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import prod

from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.poker import card_names
from lpgame.games.registry import register
from lpgame.games.size_prediction import permutations, power, saturate, tree_bytes

DEALS = ("ranks", "cards")
ANTE = 1
BET_SIZES = (2, 4)            # round 1, round 2

# kinds of public node
_DEAL, _BOARD, _ACT, _END = range(4)


class _PublicNode:
    """A node of the public betting tree (the same for every deal of cards)."""

    __slots__ = ("kind", "player", "actions", "children", "history", "stakes", "active", "live")

    def __init__(self, kind: int, history: tuple[tuple[str, ...], ...], stakes: tuple[int, ...],
                 active: tuple[bool, ...], player: int = -1):
        self.kind = kind
        self.player = player
        self.actions: tuple[str, ...] = ()
        self.children: dict[str, int] = {}
        self.history = history            # actions of each round played so far
        self.stakes = stakes              # chips each player has put in
        self.active = active              # not folded
        self.live = tuple(i for i, a in enumerate(active) if a)


def _build_public_tree(players: int, bets: int) -> list[_PublicNode]:
    """All public nodes, root (the private deal) first; children ids in ``node.children``."""
    nodes: list[_PublicNode] = []

    def new(node: _PublicNode) -> int:
        nodes.append(node)
        return len(nodes) - 1

    def start_round(rnd: int, history, stakes, active) -> int:
        """Node at the start of betting round ``rnd`` (0 or 1)."""
        pending = tuple(i for i in range(players) if active[i])
        return betting(rnd, history + ((),), stakes, active, pending, 0)

    def end_round(rnd: int, history, stakes, active) -> int:
        if sum(active) == 1 or rnd == 1:
            return new(_PublicNode(_END, history, stakes, active))
        board = new(_PublicNode(_BOARD, history, stakes, active))
        nodes[board].children[""] = start_round(1, history, stakes, active)
        return board

    def betting(rnd, history, stakes, active, pending, made) -> int:
        """Decision node: ``pending`` players still to act in order, ``made`` bets this round."""
        if sum(active) == 1 or not pending:
            return end_round(rnd, history, stakes, active)
        player = pending[0]
        node_id = new(_PublicNode(_ACT, history, stakes, active, player))
        level = max(stakes)
        if made == 0:
            actions = ("check", "bet")
        else:
            actions = ("fold", "call", "raise") if made < bets else ("fold", "call")
        children = {}
        for action in actions:
            hist = history[:-1] + (history[-1] + (action,),)
            st, act, rest, mk = list(stakes), list(active), pending[1:], made
            if action == "fold":
                act[player] = False
            elif action == "call":
                st[player] = level
            elif action in ("bet", "raise"):
                st[player] = level + BET_SIZES[rnd]
                mk += 1
                order = [(player + k) % players for k in range(1, players)]
                rest = tuple(i for i in order if act[i])
            children[action] = betting(rnd, hist, tuple(st), tuple(act), rest, mk)
        nodes[node_id].actions = actions
        nodes[node_id].children = children
        return node_id

    root = new(_PublicNode(_DEAL, (), (ANTE,) * players, (True,) * players))
    nodes[root].children[""] = start_round(0, (), (ANTE,) * players, (True,) * players)
    return nodes


class LeducRules:
    """The rules object (see module docstring). State: (public node id, deal or None, board or None),
    where the deal and the board hold card ids (ranks for ``deal="ranks"``)."""

    def __init__(self, players: int = 2, bets: int = 2, ranks: int = 3, suits: int = 2,
                 deal: str = "ranks", name: str | None = None):
        if players < 2:
            raise InvalidGameError(f"Leduc poker needs at least 2 players, got players={players}")
        if bets < 1:
            raise InvalidGameError(f"Leduc poker needs bets >= 1 per round, got bets={bets}")
        if ranks < 1 or suits < 1:
            raise InvalidGameError(f"Leduc poker needs ranks >= 1 and suits >= 1, got "
                                   f"ranks={ranks}, suits={suits}")
        if ranks * suits < players + 1:
            raise InvalidGameError(
                f"Leduc poker with {players} players needs at least {players + 1} cards (one each "
                f"and a board card); ranks={ranks} × suits={suits} gives {ranks * suits}")
        if deal not in DEALS:
            raise InvalidGameError(f"Leduc poker: deal must be one of {', '.join(DEALS)}, got {deal}")
        self.num_players = players
        self.bets, self.ranks, self.suits, self.deal = bets, ranks, suits, deal
        self.name = name or (f"leduc_poker(players={players}, bets={bets}, ranks={ranks}, "
                             f"suits={suits}, deal={deal})")
        rank_names = card_names(ranks)
        if deal == "ranks":
            # card id = rank; `copies` cards of each
            self.card_rank = tuple(range(ranks))
            self.card_name = tuple(rank_names)
            copies = suits
        else:
            suit_names = list("shdc") if suits <= 4 else [f"s{k + 1}" for k in range(suits)]
            self.card_rank = tuple(c // suits for c in range(ranks * suits))
            self.card_name = tuple(rank_names[c // suits] + suit_names[c % suits]
                                   for c in range(ranks * suits))
            copies = 1
        self._card_of_name = {name: c for c, name in enumerate(self.card_name)}
        self._copies = copies
        self._deck = ranks * suits
        self._public = _build_public_tree(players, bets)
        self._deal_outcomes = self._private_deals()
        self._deal_of_label = {label: d for label, _, d in self._deal_outcomes}
        self._board_cache: dict[tuple[int, ...], list[tuple[str, Fraction]]] = {}
        self._winners_cache: dict[tuple, tuple[int, ...]] = {}
        self._payoff_cache: dict[tuple, tuple] = {}
        # per public decision node, the public part of the label after own card (round 1)
        # or the parts before/after the board (round 2)
        self._label_parts = [self._public_label_parts(node) for node in self._public]

    # ---- chance
    def _private_deals(self) -> list[tuple[str, Fraction, tuple[int, ...]]]:
        """Ordered deals of one card id per player, probability by counting cards."""
        n, copies, deck = self.num_players, self._copies, self._deck
        out = []
        for deal in itertools.product(range(len(self.card_name)), repeat=n):
            counts = [deal[:k].count(c) for k, c in enumerate(deal)]
            if any(cnt >= copies for cnt in counts):
                continue
            p = Fraction(prod(copies - cnt for cnt in counts), prod(deck - k for k in range(n)))
            out.append(("-".join(self.card_name[c] for c in deal), p, deal))
        return out

    def _board_outcomes(self, deal: tuple[int, ...]) -> list[tuple[str, Fraction]]:
        outcomes = self._board_cache.get(deal)
        if outcomes is None:
            left = self._deck - len(deal)
            outcomes = [(self.card_name[c], Fraction(self._copies - deal.count(c), left))
                        for c in range(len(self.card_name)) if deal.count(c) < self._copies]
            self._board_cache[deal] = outcomes
        return outcomes

    # ---- the rules protocol
    def initial_state(self) -> tuple:
        return (0, None, None)

    def current_player(self, state: tuple) -> int:
        kind = self._public[state[0]].kind
        if kind == _ACT:
            return self._public[state[0]].player
        return TERMINAL_PLAYER if kind == _END else CHANCE_PLAYER

    def chance_outcomes(self, state: tuple) -> list[tuple[str, Fraction]]:
        if self._public[state[0]].kind == _DEAL:
            return [(label, p) for label, p, _ in self._deal_outcomes]
        return self._board_outcomes(state[1])

    def legal_actions(self, state: tuple) -> tuple[str, ...]:
        return self._public[state[0]].actions

    def apply(self, state: tuple, action: str) -> tuple:
        node_id, deal, board = state
        node = self._public[node_id]
        if node.kind == _DEAL:
            return (node.children[""], self._deal_of_label[action], None)
        if node.kind == _BOARD:
            return (node.children[""], deal, self._card_of_name[action])
        return (node.children[action], deal, board)

    def _public_label_parts(self, node: _PublicNode) -> tuple[str, str]:
        if node.kind != _ACT:
            return ("", "")
        first = " ".join(node.history[0])
        head = " | " + first if first else ""
        if len(node.history) == 1:
            return (head, "")
        second = " ".join(node.history[1])
        return (head + " | ", " " + second if second else "")

    def infoset_key(self, state: tuple) -> str:
        node_id, deal, board = state
        head, tail = self._label_parts[node_id]
        own = self.card_name[deal[self._public[node_id].player]]
        if board is None:
            return own + head
        return own + head + self.card_name[board] + tail

    def payoffs(self, state: tuple) -> tuple:
        node_id, deal, board = state
        node = self._public[node_id]
        # two small caches: the showdown winners depend only on (who is live, deal, board);
        # the payoff vector only on (public leaf, winners)
        winners = self._winners_cache.get((node.live, deal, board))
        if winners is None:
            winners = self._winners(node.live, deal, board)
            self._winners_cache[(node.live, deal, board)] = winners
        payoffs = self._payoff_cache.get((node_id, winners))
        if payoffs is None:
            stakes, pot = node.stakes, sum(node.stakes)
            k = len(winners)
            share = pot // k if pot % k == 0 else Fraction(pot, k)
            payoffs = tuple((share if i in winners else 0) - stakes[i]
                            for i in range(self.num_players))
            self._payoff_cache[(node_id, winners)] = payoffs
        return payoffs

    def _winners(self, live: tuple[int, ...], deal: tuple[int, ...], board: int | None
                 ) -> tuple[int, ...]:
        """The players who take the pot: the last one standing, or the best hands at showdown
        (pairing the board beats any unpaired card; then the higher rank; ties share)."""
        if len(live) == 1:
            return live
        board_rank = self.card_rank[board]
        strength = {i: (self.card_rank[deal[i]] == board_rank, self.card_rank[deal[i]])
                    for i in live}
        best = max(strength.values())
        return tuple(i for i in live if strength[i] == best)


def leduc_size(players: int = 2, bets: int = 2, ranks: int = 3, suits: int = 2,
               deal: str = "ranks") -> int:
    """Bytes needed at least: for every deal of the n + 1 cards (ordered cards, or with
    deal="ranks" the sequences whose first min(n + 1, r) ranks differ), the (b + 1)² raise chains
    that every player calls through both rounds, and the 2^(n−1) ways the other players fold or
    call the first bet, are distinct leaves."""
    if deal == "cards":
        deals = permutations(ranks * suits, players + 1)
    else:
        deals = permutations(ranks, min(players + 1, ranks))
    return tree_bytes(saturate(max(deals, 1) * ((bets + 1) ** 2 + power(2, players - 1))))


@register("leduc_poker",
          "Leduc poker L(n,b,r,s): n players, b bets per round, r ranks × s suits; deal=ranks|cards "
          "(standard: value −0.0856064 for player 1)",
          "Southey et al. 2005; notes/farina-thesis.md §2.2; OpenSpiel leduc_poker",
          ranges={"players": (2, None), "bets": (1, None), "ranks": (1, None), "suits": (1, None)},
          choices={"deal": ("ranks", "cards")}, size=leduc_size)
def leduc_poker(players: int = 2, bets: int = 2, ranks: int = 3, suits: int = 2,
                deal: str = "ranks"):
    """Leduc poker expanded to the explicit tree (see the module docstring for the rules).

    ``deal="ranks"`` gives Farina's L<players><bets><ranks><suits> instances (rank-level chance);
    ``deal="cards"`` deals individual cards, as OpenSpiel's ``leduc_poker`` does.
    """
    return expand(LeducRules(players, bets, ranks, suits, deal))
