"""Games whose only hidden information is private signals dealt at the start: compiled by broadcasting.

Many benchmark games (Kuhn and One-Card Poker, Liar's dice with one die each, Dudo) deal each player
a private signal (a card, a dice roll) at the root and then play a public action tree: every action
is seen by everybody. The full tree is the product deals × public tree, and its flat index
(:class:`~lpgame.game.tree_index.TreeIndex`) can be written down without visiting a single product
node (DESIGN.md, "signal form"; Koller, Megiddo & von Stengel 1996 for the sequence form):

* player i's information sets are pairs (own signal s, public node q where i acts): i knows its
  signal and the public history, and nothing else, so perfect recall holds by construction;
* player i's sequences are (s, public sequence of i), numbered
  ``1 + s · |Σ_i^pub| + (σ^pub − 1)``, so the sequences of an information set stay contiguous;
* the leaves are the pairs (deal d, public leaf ℓ), with chance probability p(d), each player's last
  sequence given by its signal in d and its last public sequence before ℓ, and payoffs u(d, ℓ).

Every array is built by numpy broadcasting over deals (one Python step per public node, and public
trees are small), so OCP(N) with N(N−1) deals never builds its 9N(N−1)+1 nodes.

A game family implements :class:`PrivateSignalRules`; :func:`compile_private_signals` returns a
:class:`PrivateSignalGame`, which every later stage (sequence form, LP, best response) accepts like an
explicit :class:`~lpgame.game.Game`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.rules import TERMINAL_PLAYER
from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import PlayerIndex, TreeIndex
from lpgame.limits import check_prediction


class PrivateSignalRules(Protocol):
    """A deal of private signals followed by a public action tree."""

    num_players: int
    name: str

    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """(D × n array of signal indices, D positive integer weights): deal d has probability
        weight[d] / Σ weights (chance by counting, exact)."""

    def signal_labels(self, player: int) -> list[str]:
        """Readable label of each signal value of ``player``."""

    def public_initial_state(self) -> Any: ...

    def public_player(self, state: Any) -> int:
        """The player to act, or :data:`~lpgame.game.rules.TERMINAL_PLAYER` at a public leaf."""

    def public_actions(self, state: Any) -> list[str]: ...

    def public_apply(self, state: Any, action: str) -> Any: ...

    def public_label(self, state: Any) -> str:
        """The public history as text, used in information-set labels."""

    def leaf_payoffs(self, state: Any, deals: np.ndarray) -> np.ndarray:
        """Payoffs at a public leaf for every deal: a D × n array (ints, floats or Fractions)."""


class _SignalIndex(TreeIndex):
    """TreeIndex whose exact leaf data is broadcast from per-deal and per-leaf data on demand."""

    def __init__(self, *, deal_probs_exact, leaf_payoffs_exact, **kwargs):
        super().__init__(terminal_nodes=None, terminal_chance_exact=None,
                         terminal_payoffs_exact=None, **kwargs)
        self._deal_probs_exact = deal_probs_exact
        self._leaf_payoffs_exact = leaf_payoffs_exact   # list over leaves of D × n object arrays

    def exact_terminal_data(self):
        num_leaves = len(self._leaf_payoffs_exact)
        weights, total = self._deal_probs_exact
        chance = [Fraction(int(w), total) for w in weights for _ in range(num_leaves)]
        payoffs = []
        for d in range(len(weights)):
            for leaf in self._leaf_payoffs_exact:
                payoffs.append(tuple(Fraction(v) if not isinstance(v, float) else Fraction(repr(v))
                                     for v in leaf[d]))
        return chance, payoffs


class PrivateSignalGame(IndexedGame):
    """A compiled private-signal game (see module docstring); no networkx tree is built."""

    def __init__(self, rules: PrivateSignalRules, name: str | None = None):
        self.rules = rules
        self.name = name or getattr(rules, "name", type(rules).__name__)
        self.num_players = int(rules.num_players)
        self.player_names = list(getattr(rules, "player_names", None) or
                                 [f"player {i + 1}" for i in range(self.num_players)])
        self.index = _compile(rules, self.name, self.num_players)

    def __repr__(self) -> str:
        s = self.sizes()
        return (f"PrivateSignalGame({self.name!r}, players={self.num_players}, nodes={s['nodes']},"
                f" infosets={s['infosets']}, sequences={s['sequences']})")


def compile_private_signals(rules: PrivateSignalRules, name: str | None = None) -> PrivateSignalGame:
    """Compile ``rules`` to a :class:`PrivateSignalGame` (validated)."""
    return PrivateSignalGame(rules, name)


def _walk_public_tree(rules: PrivateSignalRules, n: int):
    """Depth-first walk of the public tree: decision nodes per player and leaves with last seqs."""
    decisions = [[] for _ in range(n)]   # per player: (state, actions, parent public seq, depth)
    num_pub_seqs = [0] * n               # public sequences per player, excluding ∅
    leaves = []                          # (state, tuple of last public seq per player)
    num_public_nodes = 0
    stack = [(rules.public_initial_state(), (0,) * n, (0,) * n)]
    while stack:
        state, last, depth = stack.pop()
        num_public_nodes += 1
        who = rules.public_player(state)
        if who == TERMINAL_PLAYER:
            leaves.append((state, last))
            continue
        if not 0 <= who < n:
            raise InvalidGameError(f"{rules.name}: public state {rules.public_label(state)!r} has "
                                   f"player {who!r}")
        actions = [str(a) for a in rules.public_actions(state)]
        if not actions or len(set(actions)) != len(actions):
            raise InvalidGameError(f"{rules.name}: public state {rules.public_label(state)!r} has "
                                   f"actions {actions}; they must be non-empty and distinct")
        first = num_pub_seqs[who] + 1
        decisions[who].append((state, actions, last[who], depth[who]))
        num_pub_seqs[who] += len(actions)
        for k in range(len(actions) - 1, -1, -1):
            child_last = last[:who] + (first + k,) + last[who + 1:]
            child_depth = depth[:who] + (depth[who] + 1,) + depth[who + 1:]
            stack.append((rules.public_apply(state, actions[k]), child_last, child_depth))
    return decisions, num_pub_seqs, leaves, num_public_nodes


def _compile(rules: PrivateSignalRules, name: str, n: int) -> _SignalIndex:
    deals, weights = rules.deals()
    deals = np.asarray(deals, dtype=np.int64)
    weights = np.asarray(weights)
    if deals.ndim != 2 or deals.shape[1] != n:
        raise InvalidGameError(f"{name}: deals must be a D × {n} array, got shape {deals.shape}")
    if weights.shape != (len(deals),) or not np.issubdtype(weights.dtype, np.integer):
        raise InvalidGameError(f"{name}: deal weights must be {len(deals)} integers, got "
                               f"{weights.dtype} of shape {weights.shape}")
    if np.any(weights <= 0):
        raise InvalidGameError(f"{name}: deal weights must be positive (deal "
                               f"{int(np.argmin(weights))} has {int(weights.min())})")
    total = int(weights.sum())
    probs = weights / total
    probs_exact = (weights, total)
    num_deals = len(deals)
    labels = [list(rules.signal_labels(i)) for i in range(n)]
    num_signals = [len(lab) for lab in labels]
    for i in range(n):
        if deals[:, i].min() < 0 or deals[:, i].max() >= num_signals[i]:
            raise InvalidGameError(f"{name}: player {i + 1}'s signals must be 0..{num_signals[i] - 1}")

    decisions, num_pub_seqs, leaves, num_public_nodes = _walk_public_tree(rules, n)
    players = []
    for i in range(n):
        p = PlayerIndex()
        nodes = decisions[i]
        counts = np.array([len(a) for _, a, _, _ in nodes], dtype=np.int64)
        pub_first = np.concatenate([[1], 1 + np.cumsum(counts)[:-1]]) if len(nodes) else np.zeros(0)
        pub_parent = np.array([par for _, _, par, _ in nodes], dtype=np.int64)
        pub_depth = np.array([dep for _, _, _, dep in nodes], dtype=np.int64)
        m, S = num_signals[i], num_pub_seqs[i]
        signal = np.repeat(np.arange(m), len(nodes))
        node = np.tile(np.arange(len(nodes)), m)
        base = 1 + signal * S
        p.infoset_first_seq = list(base + pub_first[node] - 1)
        parent_pub = pub_parent[node]
        p.infoset_parent_seq = list(np.where(parent_pub == 0, 0, base + parent_pub - 1))
        p.infoset_depth = list(pub_depth[node])
        public_labels = [rules.public_label(state) for state, _, _, _ in nodes]
        p.infoset_labels = [f"{labels[i][s]} {public_labels[q]}".strip()
                            for s, q in zip(signal.tolist(), node.tolist())]
        p.infoset_actions = [tuple(nodes[q][1]) for q in node.tolist()]
        p.num_sequences = 1 + m * S
        p.num_decision_nodes = num_deals * len(nodes)   # product-tree nodes, for size reports
        p.finalize()
        if len(set(p.infoset_labels)) != len(p.infoset_labels):
            raise InvalidGameError(f"{name}: information-set labels of player {i + 1} are not unique;"
                                   " public labels must tell public states apart")
        players.append(p)

    num_leaves = len(leaves)
    check_prediction(f"compiling {name} ({num_deals} deals × {num_leaves} public leaves)",
                     num_deals * num_leaves * 8 * (3 * n + 2))
    leaf_last = np.array([last for _, last in leaves], dtype=np.int64).reshape(num_leaves, n)
    # terminal (d, l) -> index d * L + l
    seqs = np.empty((num_deals, num_leaves, n), dtype=np.int64)
    for i in range(n):
        S = num_pub_seqs[i]
        last = leaf_last[:, i][None, :]
        seqs[:, :, i] = np.where(last == 0, 0, 1 + deals[:, i][:, None] * S + last - 1)
    payoffs_exact = []
    payoffs = np.empty((num_deals, num_leaves, n))
    for k, (state, _) in enumerate(leaves):
        u = np.asarray(rules.leaf_payoffs(state, deals))
        if u.shape != (num_deals, n):
            raise InvalidGameError(f"{name}: leaf {rules.public_label(state)!r} payoffs have shape "
                                   f"{u.shape}, expected ({num_deals}, {n})")
        uf = u.astype(float)
        if not np.all(np.isfinite(uf)):
            raise InvalidGameError(f"{name}: leaf {rules.public_label(state)!r} has a payoff that is "
                                   "not finite")
        payoffs[:, k, :] = uf
        payoffs_exact.append(u)
    return _SignalIndex(
        num_players=n,
        players=players,
        num_nodes=1 + num_deals * num_public_nodes,
        num_chance_nodes=1,
        terminal_sequences=seqs.reshape(-1, n),
        terminal_chance=np.repeat(probs, num_leaves),
        terminal_payoffs=payoffs.reshape(-1, n),
        deal_probs_exact=probs_exact,
        leaf_payoffs_exact=payoffs_exact,
    )


__all__ = ["PrivateSignalRules", "PrivateSignalGame", "compile_private_signals"]
