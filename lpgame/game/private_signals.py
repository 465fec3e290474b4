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

With two players and no showdown structure the payoffs are kept as a deals × public leaves table
(:class:`~lpgame.game.signal_payoffs.SignalPayoffs`), and the product leaves (deal, public leaf),
with their sequence indices, are built only when a later stage asks for them (exact mode, CFR,
correlated equilibria); the payoff matrix, best responses and the double oracle read the table.

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
from lpgame.game.showdown import ShowdownPayoffs
from lpgame.game.signal_payoffs import SignalPayoffs
from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import PlayerIndex, TreeIndex
from lpgame.limits import check_prediction
from lpgame.rational import distinct_map, distinct_objects, to_fraction


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
    """TreeIndex whose leaf arrays (deals × public leaves) are built on first use.

    With a :class:`~lpgame.game.showdown.ShowdownPayoffs` structure nothing in the solve path needs
    them, so a game with N² deals is compiled in O(N) memory; exact mode and the generic best
    response build them (after a memory check) when asked.
    """

    def __init__(self, *, num_players, players, num_nodes, num_chance_nodes, num_terminals,
                 build_terminals):
        self.num_players = num_players
        self.players = players
        self.num_nodes = num_nodes
        self.num_chance_nodes = num_chance_nodes
        self.terminal_nodes = None
        self._num_terminals = num_terminals
        self._build_terminals = build_terminals
        self._terminals = None
        self._exact = None

    @property
    def num_terminals(self) -> int:
        return self._num_terminals

    def _data(self):
        if self._terminals is None:
            self._terminals = self._build_terminals()
        return self._terminals

    @property
    def terminal_sequences(self):
        return self._data()["sequences"]

    @property
    def terminal_chance(self):
        return self._data()["chance"]

    @property
    def terminal_payoffs(self):
        return self._data()["payoffs"]

    def exact_terminal_data(self):
        """Chance reach and payoffs of every leaf as Fractions (built on first use, then cached).

        The leaves are deal-major (deal d, public leaf ℓ); each deal's probability is one Fraction
        shared by its leaves, and each distinct payoff value is converted once.
        """
        if self._exact is None:
            data = self._data()
            weights, total = data["weights"], data["total_weight"]
            leaf_payoffs = data["payoffs_exact"]
            num_leaves = len(leaf_payoffs)
            per_deal = [Fraction(int(w), total) for w in weights]
            chance = [p for p in per_deal for _ in range(num_leaves)]
            n = self.num_players
            u = np.empty((len(weights), num_leaves, n), dtype=object)
            by_dtype: dict[np.dtype, list[int]] = {}     # stack only equal dtypes: no promotion
            for k, leaf in enumerate(leaf_payoffs):
                by_dtype.setdefault(np.asarray(leaf).dtype, []).append(k)
            for ks in by_dtype.values():
                u[:, ks, :] = _as_fractions(np.stack([np.asarray(leaf_payoffs[k]) for k in ks],
                                                     axis=1))
            self._exact = (chance, list(map(tuple, u.reshape(-1, n).tolist())))
        return self._exact


def _as_fractions(u: np.ndarray) -> np.ndarray:
    """``u`` as an object array of Fractions, converting each distinct value (object) once."""
    flat = u.ravel()
    out = np.empty(flat.size, dtype=object)
    if u.dtype == object:
        out[:] = distinct_map(to_fraction, flat)
    else:
        values, inverse = np.unique(flat, return_inverse=True)
        exact = [to_fraction(v) for v in values]
        out[:] = [exact[k] for k in inverse.ravel().tolist()]
    return out.reshape(u.shape)


LEAF_BLOCK_ENTRIES = 1 << 22
"""Payoff entries converted to floats at a time when the leaves are compiled."""


def _as_float(u: np.ndarray) -> np.ndarray:
    """``u`` as floats; an object array (Fractions) converts each distinct object once.

    Rules tend to fill a leaf's D payoffs from a handful of Fraction objects, and ``float`` of a
    Fraction is Python arithmetic: converting per object, not per entry, keeps this linear in C.
    """
    if u.dtype != object:
        return u.astype(float)
    distinct, inverse = distinct_objects(u.ravel())
    return np.array([float(v) for v in distinct], dtype=float)[inverse].reshape(u.shape)


class PrivateSignalGame(IndexedGame):
    """A compiled private-signal game (see module docstring); no networkx tree is built."""

    def __init__(self, rules: PrivateSignalRules, name: str | None = None):
        self.rules = rules
        self.name = name or getattr(rules, "name", type(rules).__name__)
        self.num_players = int(rules.num_players)
        self.player_names = list(getattr(rules, "player_names", None) or
                                 [f"player {i + 1}" for i in range(self.num_players)])
        self.index, self.payoff_structure = _compile(rules, self.name, self.num_players)

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


def _validated_deals(rules: PrivateSignalRules, name: str, n: int, num_signals: list[int]):
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
    for i in range(n):
        if deals[:, i].min() < 0 or deals[:, i].max() >= num_signals[i]:
            raise InvalidGameError(f"{name}: player {i + 1}'s signals must be 0..{num_signals[i] - 1}")
    return deals, weights


def _compile(rules: PrivateSignalRules, name: str, n: int):
    labels = [list(rules.signal_labels(i)) for i in range(n)]
    num_signals = [len(lab) for lab in labels]
    showdown = getattr(rules, "showdown", None)
    showdown = showdown() if showdown is not None else None
    if showdown is None:
        deals, weights = _validated_deals(rules, name, n, num_signals)
        num_deals = len(deals)
    else:
        num, distinct = showdown
        if n != 2 or num_signals != [num, num]:
            raise InvalidGameError(f"{name}: a showdown structure needs two players with {num} "
                                   f"signals each, got {num_signals}")
        num_deals = num * (num - 1) if distinct else num * num
        deals = weights = None

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
        p.infoset_first_seq = base + pub_first[node] - 1
        parent_pub = pub_parent[node]
        p.infoset_parent_seq = np.where(parent_pub == 0, 0, base + parent_pub - 1)
        p.infoset_depth = pub_depth[node]
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
    leaf_last = np.array([last for _, last in leaves], dtype=np.int64).reshape(num_leaves, n)
    structure = None
    if showdown is not None:
        cases = np.array([np.asarray(rules.showdown_case_payoffs(state), dtype=object)
                          for state, _ in leaves], dtype=object).reshape(num_leaves, 3, 2)
        if not np.all(np.isfinite(cases.astype(float))):
            raise InvalidGameError(f"{name}: a showdown payoff is not finite")
        structure = ShowdownPayoffs(leaf_last, cases, showdown[0], (num_pub_seqs[0], num_pub_seqs[1]),
                                    bool(showdown[1]))

    def leaf_payoff_blocks(exact_out: list | None = None):
        """(first leaf, deals × block × players floats) for consecutive blocks of public leaves,
        validated; the rules' own payoffs are appended to ``exact_out`` when given. Blocks bound
        the conversion's transients (converting all leaves at once needed about three times the
        memory of the result) while keeping one conversion per block, not per leaf."""
        block = max(1, LEAF_BLOCK_ENTRIES // max(1, num_deals * n))
        for lo in range(0, num_leaves, block):
            part = []
            for state, _ in leaves[lo:lo + block]:
                u = np.asarray(rules.leaf_payoffs(state, deals))
                if u.shape != (num_deals, n):
                    raise InvalidGameError(f"{name}: leaf {rules.public_label(state)!r} payoffs "
                                           f"have shape {u.shape}, expected ({num_deals}, {n})")
                part.append(u)
            if exact_out is not None:
                exact_out.extend(part)
            if any(u.dtype == object for u in part):
                stacked = np.empty((num_deals, len(part), n), dtype=object)
                for k, u in enumerate(part):
                    stacked[:, k] = u
                floats = _as_float(stacked)
            else:
                floats = np.stack(part, axis=1).astype(float)
            finite = np.isfinite(floats).all(axis=(0, 2))
            if not finite.all():
                state = leaves[lo + int(np.argmin(finite))][0]
                raise InvalidGameError(f"{name}: leaf {rules.public_label(state)!r} has a payoff "
                                       "that is not finite")
            yield lo, floats

    def ensure_deals():
        nonlocal deals, weights
        if deals is None:
            deals, weights = _validated_deals(rules, name, n, num_signals)

    def build_terminals():
        check_prediction(f"compiling the leaves of {name} ({num_deals} deals × {num_leaves} public "
                         "leaves)", num_deals * num_leaves * 8 * (3 * n + 2))
        ensure_deals()
        total = int(weights.sum())
        seqs = np.empty((len(deals), num_leaves, n), dtype=np.int64)
        for i in range(n):
            S = num_pub_seqs[i]
            last = leaf_last[:, i][None, :]
            seqs[:, :, i] = np.where(last == 0, 0, 1 + deals[:, i][:, None] * S + last - 1)
        payoffs_exact = []
        payoffs = np.empty((len(deals), num_leaves, n))      # deals × leaves × players
        for lo, floats in leaf_payoff_blocks(payoffs_exact):
            payoffs[:, lo:lo + floats.shape[1]] = floats
        return {"sequences": seqs.reshape(-1, n), "chance": np.repeat(weights / total, num_leaves),
                "payoffs": payoffs.reshape(-1, n), "weights": weights, "total_weight": total,
                "payoffs_exact": payoffs_exact}

    if structure is None and n == 2:
        # two players: keep p(d)·u(d, ℓ) as deals × public leaves (lpgame.game.signal_payoffs);
        # the product leaves are built only if a later stage asks for them (exact mode, CFR, ...)
        check_prediction(f"compiling the payoff table of {name} ({num_deals} deals × {num_leaves} "
                         "public leaves)", num_deals * num_leaves * 8 * 2)
        ensure_deals()
        chance = weights / int(weights.sum())
        # rows in signal-pair order (t_1, t_2), so that every pair once reads as a grid
        order = np.lexsort((deals[:, 1], deals[:, 0]))
        first = np.empty((num_deals, num_leaves))
        second = None                       # a second table only once u_2 ≠ −u_1 somewhere
        low, high, total_low, total_high = np.inf, -np.inf, np.inf, -np.inf
        for lo, floats in leaf_payoff_blocks():
            hi = lo + floats.shape[1]
            floats = floats[order]
            low, high = min(low, floats.min()), max(high, floats.max())
            totals = floats.sum(axis=2)
            total_low, total_high = min(total_low, totals.min()), max(total_high, totals.max())
            first[:, lo:hi] = chance[order, None] * floats[:, :, 0]
            if second is None and not np.array_equal(floats[:, :, 1], -floats[:, :, 0]):
                second = np.empty((num_deals, num_leaves))
                second[:, :lo] = -first[:, :lo]
            if second is not None:
                second[:, lo:hi] = chance[order, None] * floats[:, :, 1]
        structure = SignalPayoffs(
            deals[order], leaf_last, first[None] if second is None else np.stack([first, second]),
            (num_signals[0], num_signals[1]), (num_pub_seqs[0], num_pub_seqs[1]),
            (float(low), float(high)),
            (0.0, 0.0) if second is None else (float(total_low), float(total_high)))

    index = _SignalIndex(num_players=n, players=players,
                         num_nodes=1 + num_deals * num_public_nodes, num_chance_nodes=1,
                         num_terminals=num_deals * num_leaves, build_terminals=build_terminals)
    if structure is None:
        index._data()   # validate leaves and payoffs now, on construction
    return index, structure


__all__ = ["PrivateSignalRules", "PrivateSignalGame", "compile_private_signals"]
