"""The rules of a game with ordered signals: deck, rounds, antes, limit betting, hand strength.

The data model of :mod:`lpgame.abstraction.ordered_game` (Gilpin & Sandholm, EC'06, Definition 1;
the notation is explained there), kept apart so that the compiler
(:mod:`lpgame.abstraction.compile`) and the view tables (:mod:`lpgame.abstraction.views`) can read
the rules without importing the module that compiles them: the public betting tree
(:class:`PublicTree`) and the signal deals (:meth:`OrderedSignalRules.deals`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import prod

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.limits import check_prediction

# outcome of a showdown, from player 1's side
WIN, LOSE, TIE = 0, 1, 2


@dataclass(frozen=True)
class BettingRound:
    """Round j: ``public`` = κ^j public signals, ``private`` = γ^j private signals per player, then a
    limit-betting stage game with bets of ``bet`` chips and at most ``max_bets`` bets."""

    public: int
    private: int
    bet: int
    max_bets: int


def _chips(amount, name: str):
    """An ante as an exact number of chips: an int when whole, else a Fraction (never truncated:
    an ante of 10⁻⁶ chips is a game of its own, not an ante of 0)."""
    try:
        exact = Fraction(amount)
    except (TypeError, ValueError):
        raise InvalidGameError(f"{name}: the ante must be a finite number, got {amount!r}") from None
    return int(exact) if exact.denominator == 1 else exact


@dataclass
class PublicNode:
    """A node of the public betting tree (all rounds)."""

    round: int
    player: int                     # 0/1 to act, -1 at a leaf
    history: tuple                  # per round played so far, the tuple of actions
    contributions: tuple            # chips put in by each player
    folded: int = -1                # at a leaf: the player who folded, or -1 (showdown)
    actions: tuple = ()
    children: tuple = ()
    last_seq: tuple = ((-1, -1), (-1, -1))   # per player: (round, local index) of the last action


class PublicTree:
    """The public betting tree of all rounds (stage games G^1..G^r glued at continue leaves).

    Per round j and player i: ``decisions[j][i]`` lists the node ids where i acts in round j;
    ``first_local[q]`` is the local index of q's first action among i's round-j public sequences
    (``num_local[j][i]`` in all); ``leaves[j]`` lists the leaves of round j; ``starts[j]`` the nodes
    where round j begins (one per continue leaf of round j − 1).
    """

    def __init__(self, rounds: Sequence[BettingRound], ante: int):
        self.rounds = list(rounds)
        self.nodes: list[PublicNode] = []
        r = len(self.rounds)
        self.decisions = [[[], []] for _ in range(r)]
        self.leaves = [[] for _ in range(r)]
        self.starts = [[] for _ in range(r)]
        self.num_local = [[0, 0] for _ in range(r)]
        self.first_local: dict[int, int] = {}
        self.parent_seq: dict[int, tuple[int, int]] = {}
        self.own_depth: dict[int, int] = {}          # actions of the mover before the node
        self._seq_depth: dict[tuple[int, int, int], int] = {}
        self._round_start(0, (), (ante, ante), ((-1, -1), (-1, -1)))

    def _new(self, node: PublicNode) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def _round_start(self, j, history, contributions, last) -> int:
        node = self._betting(j, history + ((),), contributions, last, 0, 0, False)
        self.starts[j].append(node)
        return node

    def _betting(self, j, history, contributions, last, player, made, acted) -> int:
        node_id = self._new(PublicNode(j, player, history, contributions, last_seq=last))
        rnd = self.rounds[j]
        if made == 0:
            actions = ("check", "bet")
        else:
            actions = ("fold", "call", "raise") if made < rnd.max_bets else ("fold", "call")
        self.decisions[j][player].append(node_id)
        self.first_local[node_id] = self.num_local[j][player]
        self.parent_seq[node_id] = last[player]
        pj, ps = last[player]
        self.own_depth[node_id] = 0 if pj < 0 else self._seq_depth[(player, pj, ps)] + 1
        for k in range(len(actions)):
            self._seq_depth[(player, j, self.first_local[node_id] + k)] = self.own_depth[node_id]
        self.num_local[j][player] += len(actions)
        children = []
        for k, action in enumerate(actions):
            seq = (j, self.first_local[node_id] + k)
            new_last = tuple(seq if i == player else last[i] for i in range(2))
            hist = history[:-1] + (history[-1] + (action,),)
            other = 1 - player
            c = list(contributions)
            if action == "fold":
                child = self._new(PublicNode(j, -1, hist, contributions, folded=player,
                                             last_seq=new_last))
                self.leaves[j].append(child)
            elif action == "check":
                if acted:          # both checked: the round ends
                    child = self._end_round(j, hist, contributions, new_last)
                else:
                    child = self._betting(j, hist, contributions, new_last, other, made, True)
            elif action == "call":
                c[player] = max(c)
                child = self._end_round(j, hist, tuple(c), new_last)
            else:                  # bet or raise
                c[player] = max(c) + rnd.bet
                child = self._betting(j, hist, tuple(c), new_last, other, made + 1, True)
            children.append(child)
        self.nodes[node_id].actions = actions
        self.nodes[node_id].children = tuple(children)
        return node_id

    def _end_round(self, j, history, contributions, last) -> int:
        if j + 1 < len(self.rounds):
            return self._round_start(j + 1, history, contributions, last)
        leaf = self._new(PublicNode(j, -1, history, contributions, folded=-1, last_seq=last))
        self.leaves[j].append(leaf)
        return leaf

    def leaf_payoffs(self, leaf: int) -> tuple:
        """Player 1's payoff at ``leaf`` in the three showdown outcomes (WIN, LOSE, TIE); a fold pays
        the same in all three (Definition 1, item 9(a)). Player 2 gets the negative (zero-sum)."""
        node = self.nodes[leaf]
        c1, c2 = node.contributions
        if node.folded == 0:
            return (-c1, -c1, -c1)
        if node.folded == 1:
            return (c2, c2, c2)
        tie = Fraction(c2 - c1, 2)
        return (c2, -c1, int(tie) if tie.denominator == 1 else tie)

    def history_text(self, node: int, j: int) -> str:
        hist = self.nodes[node].history
        return " ".join(hist[j]) if j < len(hist) else ""


class OrderedSignalRules:
    """The rules of a two-player game with ordered signals and limit betting (module docstring of
    :mod:`lpgame.abstraction.ordered_game`); :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame`
    adds :meth:`compile`.

    Parameters
    ----------
    name:
        Readable name.
    signals:
        Labels of the deck Θ (card names), one per signal.
    rounds:
        The rounds, :class:`BettingRound` (κ^j, γ^j, bet size, bet cap).
    ante:
        Chips each player puts in before the first round.
    strength:
        ``strength(public, private) -> int array``: the hand strength of a player holding the private
        signals ``private`` (D × Σγ array of signal ids) with the public signals ``public``
        (D × Σκ array), for D hands at once (vectorised). Higher is better (the order ⪰).
    weights:
        Positive integer weights p(θ) of the signals (default: all 1, a uniform deck).
    label_separator:
        Separator of information-set labels (``" | "`` as in Leduc, ``" "`` as in Kuhn).
    """

    num_players = 2

    def __init__(self, name: str, signals: Sequence[str], rounds: Sequence[BettingRound], ante: int,
                 strength: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 weights: Sequence[int] | None = None, label_separator: str = " | ",
                 player_names: Sequence[str] | None = None):
        self.name = name
        self.signals = [str(s) for s in signals]
        self.rounds = list(rounds)
        self.ante = _chips(ante, name)
        self.strength = strength
        self.label_separator = label_separator
        self.player_names = list(player_names or ["player 1", "player 2"])
        n = len(self.signals)
        if n == 0 or len(set(self.signals)) != n:
            raise InvalidGameError(f"{name}: the deck needs distinct signal labels, got {signals!r}")
        if not self.rounds:
            raise InvalidGameError(f"{name}: a game with ordered signals needs at least one round")
        for j, rnd in enumerate(self.rounds):
            if rnd.public < 0 or rnd.private < 0 or rnd.bet <= 0 or rnd.max_bets < 1:
                raise InvalidGameError(f"{name}: round {j + 1} {rnd} needs κ, γ ≥ 0, a positive "
                                       "bet and max_bets ≥ 1")
        if self.ante < 0:
            raise InvalidGameError(f"{name}: the ante must be non-negative, got {ante}")
        w = np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights)
        if w.shape != (n,) or not np.issubdtype(w.dtype, np.integer) or np.any(w <= 0):
            raise InvalidGameError(f"{name}: signal weights must be {n} positive integers "
                                   f"(Definition 1, item 6: p(θ) > 0), got {weights!r}")
        self.weights = w.astype(np.int64)
        # levels of the signal tree (Definition 4): per round the public signals, then γ^j private
        # signals of player 1, then of player 2; owner -1 = public
        self.level_owner: list[int] = []
        self.level_round: list[int] = []
        self.round_end_depth: list[int] = []
        for j, rnd in enumerate(self.rounds):
            self.level_owner += [-1] * rnd.public + [0] * rnd.private + [1] * rnd.private
            self.level_round += [j] * (rnd.public + 2 * rnd.private)
            self.round_end_depth.append(len(self.level_owner))
        self.depth = len(self.level_owner)           # S, the number of signals revealed
        if self.depth > n:
            raise InvalidGameError(f"{name}: the rounds reveal {self.depth} signals but the deck has "
                                   f"only {n} (Definition 1, item 5: Σ(κ^j + nγ^j) ≤ |Θ|)")
        if sum(r.private for r in self.rounds) == 0:
            raise InvalidGameError(f"{name}: no private signals; nothing is hidden")
        self.tree = PublicTree(self.rounds, self.ante)
        self._deals: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def __repr__(self) -> str:
        return (f"OrderedSignalGame({self.name!r}, signals={len(self.signals)}, "
                f"rounds={len(self.rounds)}, signal tree {self.signal_tree_size()} nodes)")

    # ------------------------------------------------------------------ the signal tree by formula
    def signal_tree_size(self) -> int:
        """Nodes of the signal tree, 1 + Σ_{i=1}^{S} Π_{j=1}^{i} (|Θ| − j + 1) (notes §A.8)."""
        n = len(self.signals)
        return 1 + sum(prod(n - j for j in range(i)) for i in range(1, self.depth + 1))

    def num_deals(self, depth: int) -> int:
        """Ordered prefixes of ``depth`` distinct signals: |Θ|! / (|Θ| − depth)!."""
        n = len(self.signals)
        return prod(n - j for j in range(depth))

    # ------------------------------------------------------------------ deals, by numpy extension
    def deals(self, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(cards, probability, parent) of every node at ``depth`` of the signal tree.

        ``cards`` is D × depth (signal ids in dealing order), ``probability`` the chance of the
        prefix (product of p(x | X), Definition 1 item 6) and ``parent`` the row of the prefix at
        depth − 1. Rows are in lexicographic order, so the children of a node are contiguous.
        """
        cached = self._deals.get(depth)
        if cached is not None:
            return cached
        if depth == 0:
            out = (np.zeros((1, 0), dtype=np.int16), np.ones(1), np.zeros(1, dtype=np.int64))
            self._deals[0] = out
            return out
        n = len(self.signals)
        count = self.num_deals(depth)
        check_prediction(f"the {count} signal deals at depth {depth} of {self.name}",
                         count * (2 * depth + 40) + self.num_deals(depth - 1) * n * (depth + 24))
        prev, prev_p, _ = self.deals(depth - 1)
        rows = np.repeat(np.arange(len(prev), dtype=np.int64), n)
        cards = np.tile(np.arange(n, dtype=np.int16), len(prev))
        used = np.zeros(len(rows), dtype=bool)
        for k in range(depth - 1):
            used |= prev[rows, k] == cards
        keep = ~used
        rows, cards = rows[keep], cards[keep]
        table = np.concatenate([prev[rows], cards[:, None]], axis=1)
        w = self.weights.astype(float)
        left = w.sum() - (w[prev].sum(axis=1) if depth > 1 else np.zeros(len(prev)))
        prob = prev_p[rows] * w[cards] / left[rows]
        out = (table, prob, rows)
        self._deals[depth] = out
        return out

    def deal_probabilities_exact(self, depth: int) -> list[Fraction]:
        """The probabilities of :meth:`deals` as Fractions (small games: a Python loop)."""
        table, _, _ = self.deals(depth)
        total = int(self.weights.sum())
        out = []
        for row in table.tolist():
            p, left = Fraction(1), total
            for c in row:
                p *= Fraction(int(self.weights[c]), left)
                left -= int(self.weights[c])
            out.append(p)
        return out

    # ------------------------------------------------------------------ views and outcomes
    def view_columns(self, player: int, round_index: int) -> list[int]:
        """Columns (levels) of a deal that ``player`` has seen at the end of round ``round_index``:
        the public signals and its own private signals so far (the argument of F^j, Definition 2)."""
        end = self.round_end_depth[round_index]
        return [k for k in range(end) if self.level_owner[k] in (-1, player)]

    def outcomes(self, cards: np.ndarray) -> np.ndarray:
        """Showdown outcome (WIN, LOSE, TIE for player 1) of full deals (D × S)."""
        pub = [k for k in range(self.depth) if self.level_owner[k] == -1]
        strengths = []
        for i in range(2):
            own = [k for k in range(self.depth) if self.level_owner[k] == i]
            s = np.asarray(self.strength(cards[:, pub].astype(np.int64),
                                         cards[:, own].astype(np.int64)), dtype=np.int64)
            if s.shape != (len(cards),):
                raise InvalidGameError(f"{self.name}: the strength function returned shape {s.shape}"
                                       f" for {len(cards)} hands")
            strengths.append(s)
        out = np.full(len(cards), TIE, dtype=np.int8)
        out[strengths[0] > strengths[1]] = WIN
        out[strengths[0] < strengths[1]] = LOSE
        return out

    def view_text(self, cards_row: Sequence[int], player: int, round_index: int) -> str:
        """The signals of round ``round_index`` that ``player`` sees, as text (public first)."""
        lo = self.round_end_depth[round_index - 1] if round_index else 0
        hi = self.round_end_depth[round_index]
        cols = [k for k in range(lo, hi) if self.level_owner[k] in (-1, player)]
        pos = {k: idx for idx, k in enumerate(self.view_columns(player, round_index))}
        return "".join(self.signals[int(cards_row[pos[k]])] for k in cols)
