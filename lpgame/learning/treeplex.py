"""Vectorised building blocks of the CFR family on the sequence form.

Every learning algorithm of :mod:`lpgame.learning` works on the flat arrays of
:class:`~lpgame.sequence_form.SequenceForm`; nothing walks the game tree node by node while learning.

**Counterfactual values as a regret circuit** (Farina 2023, Algs 4.3/4.4, L1482–1495; notes/farina-thesis.md
§4 item 2). For player i with behavioural strategy b_i, facing the other players' realization plans
x_{-i}, let g_i[σ] = Σ_{z: σ_i(z) = σ} p_c(z) u_i(z) Π_{k≠i} x_k[σ_k(z)] (the sequence payoffs of
:func:`lpgame.analysis.best_response.sequence_payoffs`). Bottom-up over i's own information sets,

    q[ja] = g_i[ja] + Σ_{j' : p_{j'} = ja} V(j'),        V(j) = Σ_a b_i[ja] q[ja].

q[ja] is the counterfactual value of action a at j (Zinkevich et al. 2007; Rojas Linárez 2020,
Def. 5.3, multiplied by π_{-i}(I): the weighting the thesis uses in its regret, eq. 5.9), V(j) the
counterfactual value of j, and r[ja] = q[ja] − V(j) the instantaneous counterfactual regret.
One depth level of i's tree is one numpy step (``add.reduceat`` over the contiguous action blocks),
exactly as in :mod:`lpgame.analysis.best_response`.

**Small treeplexes** (at most :data:`DENSE_SEQUENCES` sequences, e.g. Kuhn poker) run the same
recursions as products with fixed dense matrices, a few numpy calls per update instead of several
per level: with P[σ, ja] = 1 where σ = p_j and W[ja, jb] = 1 for two sequences of one information
set (W[∅, ∅] = 1),

    q ← g + P (b ∘ q)  (D − 1 times, D the depth of i's tree),    r = q − W (b ∘ q),

(after D − 1 steps q is exact at every sequence but ∅, which has no regret)

and the plan x ← b ∘ x[parent] (D − 1 times from x = b), the regret-matching sums W R⁺. The
sequence payoffs of two-player games with few sequence pairs are one product g_1 = U_1 y with the
dense payoff matrix (:class:`SequencePayoffs`).

**Regret matching at every information set at once** (Hart & Mas-Colell 2000; Rojas Linárez 2020,
eq. 5.10): b[ja] = R⁺[ja] / Σ_b R⁺[jb], uniform where Σ_b R⁺[jb] = 0.

**Sampling.** :meth:`PlayerTreeplex.sample_pure` draws one action per information set of a
behavioural strategy (a pure strategy; each history's action is then distributed as b, which is
what external and outcome sampling need, since under perfect recall no path meets an information set
twice). :class:`ChanceSampler` draws one outcome per chance node and returns the mask of the leaves
consistent with the draw: a leaf z is kept with probability p_c(z), so weighting kept leaves by
u(z)·π_{-i, players}(z) instead of p_c(z)·u(z)·π_{-i, players}(z) is an unbiased estimate of g_i
(Lanctot et al. 2009, eq. (5.12) of the thesis with q(z) = p_c(z)).
"""

from __future__ import annotations

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.tree import Game
from lpgame.game.tree_arrays import tree_arrays
from lpgame.sequence_form import SequenceForm

DENSE_SEQUENCES = 64
"""A player with at most this many sequences gets the small-treeplex path of
:class:`PlayerTreeplex`: the level-by-level recursions as products with fixed dense |Σ| × |Σ|
matrices (a few numpy calls an update, whatever the depth structure), instead of several calls per
level, which on Kuhn poker cost more than the arithmetic."""


class PlayerTreeplex:
    """One player's information sets and sequences as arrays, and the vectorised operations on them."""

    def __init__(self, sf: SequenceForm, player: int):
        p = sf.players[player]
        self.sf = sf
        self.player = player
        self.num_sequences = p.num_sequences
        self.num_infosets = p.num_infosets
        self.counts = np.asarray(p.infoset_num_actions, dtype=np.int64)
        self.first = np.asarray(p.infoset_first_seq, dtype=np.int64)
        self.parent = np.asarray(p.infoset_parent_seq, dtype=np.int64)
        self.seq_infoset = np.asarray(p.seq_infoset, dtype=np.int64)   # −1 for ∅
        self.block_starts = self.first - 1                               # offsets within seqs 1..
        self.levels = sf.infoset_levels(player)                          # deepest first
        self.uniform = sf.uniform_behaviour(player)
        self._ends = self.block_starts + self.counts - 1
        self._owner = self.seq_infoset[1:]                               # infoset of each seq 1..
        self.depth = len(self.levels)
        # the parent sequence of every sequence (∅ its own parent): x[σ] = b[σ] · x[parent[σ]]
        self._parent_seq = np.zeros(self.num_sequences, dtype=np.int64)
        self._parent_seq[1:] = self.parent[self._owner]
        self.dense = 0 < self.num_infosets and self.num_sequences <= DENSE_SEQUENCES
        if self.dense:
            n = self.num_sequences
            seqs = np.arange(1, n)
            # P[σ, ja] = 1 where σ = p_j: q = g + P (b ∘ q) is the recursion of the module docstring
            self._children = np.zeros((n, n))
            self._children[self._parent_seq[1:], seqs] = 1.0
            # W[ja, jb] = 1 for sequences of one information set (and W[∅, ∅] = 1): W (b ∘ q) is
            # V(j) spread over j's sequences, W R⁺ the sums of regret matching
            self._siblings = np.zeros((n, n))
            self._siblings[0, 0] = 1.0
            same = self._owner[:, None] == self._owner[None, :]
            self._siblings[1:, 1:] = same

    def spread(self, per_infoset: np.ndarray) -> np.ndarray:
        """A per-information-set array repeated over each set's sequences (length |Σ| − 1)."""
        return per_infoset[self._owner]

    # ------------------------------------------------------------------ regret matching
    def regret_matching(self, regrets: np.ndarray, nonnegative: bool = False) -> np.ndarray:
        """Behaviour b[ja] = R⁺[ja] / Σ_b R⁺[jb] (uniform where no regret is positive);
        ``nonnegative``: the regrets are clipped already (CFR+), R⁺ = R."""
        b = self.uniform.copy()
        if not self.num_infosets:
            return b
        if self.dense:            # one small matrix product for the sums (see __init__)
            positive = regrets if nonnegative else np.maximum(regrets, 0.0)
            sums = self._siblings.dot(positive)
            np.divide(positive, sums, out=b, where=sums > 0.0)
            b[0] = 1.0
            return b
        positive = np.maximum(regrets[1:], 0.0)
        sums = np.add.reduceat(positive, self.block_starts)[self._owner]
        np.divide(positive, sums, out=b[1:], where=sums > 0.0)
        return b

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """Behaviour proportional to non-negative ``weights`` per information set (uniform at 0)."""
        return self.regret_matching(weights)

    # ------------------------------------------------------------------ counterfactual values
    def counterfactual_values(self, g: np.ndarray, behaviour: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
        """(q, V): counterfactual value of every sequence and of every information set (module
        docstring), bottom-up one depth level at a time."""
        q = np.array(g, dtype=float, copy=True)
        V = np.zeros(self.num_infosets)
        for js, seqs, starts in self.levels:
            values = np.add.reduceat(behaviour[seqs] * q[seqs], starts)
            V[js] = values
            np.add.at(q, self.parent[js], values)
        return q, V

    def regrets(self, g: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """r[ja] = q[ja] − V(j) (0 at ∅) for sequence payoffs ``g``: :meth:`counterfactual_values`
        and :meth:`instantaneous_regrets` in one step; on a small treeplex (:data:`DENSE_SEQUENCES`)
        as ``depth`` − 1 products with the fixed matrix P of q = g + P (b ∘ q) (enough for every
        sequence but ∅, whose regret is 0), then r = q − W (b ∘ q)."""
        if not self.dense:
            q, V = self.counterfactual_values(g, behaviour)
            return self.instantaneous_regrets(q, V)
        children = self._children
        q = g
        for _ in range(self.depth - 1):     # exact below ∅ after depth − 1 steps (q[∅] unused)
            q = g + children.dot(behaviour * q)
        return q - self._siblings.dot(behaviour * q)

    def instantaneous_regrets(self, q: np.ndarray, values: np.ndarray) -> np.ndarray:
        """r[ja] = q[ja] − V(j) (0 at ∅), with V = ``values`` per information set."""
        r = np.zeros(self.num_sequences)
        if self.num_infosets:
            r[1:] = q[1:] - self.spread(values)
        return r

    # ------------------------------------------------------------------ plans
    def plan(self, behaviour: np.ndarray) -> np.ndarray:
        """Realization plan x[ja] = x[p_j] b[ja] (top-down, one numpy step per level; on a small
        treeplex x ← b ∘ x[parent], ``depth`` times, fewer and cheaper steps)."""
        b = np.asarray(behaviour, dtype=float)
        if not self.dense or b[0] != 1.0:
            return self.sf.plan_from_behaviour(self.player, behaviour)
        x = b
        parent = self._parent_seq
        for _ in range(self.depth - 1):
            x = b * x[parent]
        return x.copy() if x is b else x

    # ------------------------------------------------------------------ sampling
    def sample_pure(self, behaviour: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A pure behaviour (0/1 per sequence): one action per information set drawn from b."""
        pure = np.zeros(self.num_sequences)
        pure[0] = 1.0
        if not self.num_infosets:
            return pure
        chosen = _sample_blocks(behaviour[1:], self.block_starts, self.counts, self._ends, rng)
        pure[1 + chosen] = 1.0
        return pure


def _sample_blocks(probs: np.ndarray, starts: np.ndarray, counts: np.ndarray, ends: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
    """For contiguous blocks of probabilities, the index (into ``probs``) drawn in every block."""
    cumulative = np.cumsum(probs)
    before = np.concatenate([[0.0], cumulative[ends[:-1]]])
    local = cumulative - np.repeat(before, counts)
    totals = local[ends]
    u = rng.random(len(starts)) * totals
    below = local <= np.repeat(u, counts)
    index = np.add.reduceat(below.astype(np.int64), starts)
    return starts + np.minimum(index, counts - 1)


class ChanceSampler:
    """Draw one outcome at every chance node; report which leaves are consistent with the draw.

    The chance structure is read from the node arrays of a :class:`~lpgame.game.Game` (its flat
    records; no networkx graph is built),
    or, for a compiled private-signal game, from its single deal node (leaf (d, ℓ) has index
    d·L + ℓ, :mod:`lpgame.game.private_signals`). Games without chance need no sampling.
    """

    def __init__(self, sf: SequenceForm):
        game = sf.game
        num_leaves = len(sf.terminal_chance)
        self.num_leaves = num_leaves
        self.has_chance = game.index.num_chance_nodes > 0
        if not self.has_chance:
            return
        if isinstance(game, Game):
            probs, starts, counts, leaf_edges = _chance_structure_of_tree(game)
        elif hasattr(game, "rules") and hasattr(game.rules, "deals"):
            _, weights = game.rules.deals()
            weights = np.asarray(weights, dtype=float)
            probs = weights / weights.sum()
            starts = np.zeros(1, dtype=np.int64)
            counts = np.array([len(weights)], dtype=np.int64)
            per_deal = num_leaves // len(weights)
            leaf_edges = (np.arange(num_leaves) // per_deal).reshape(-1, 1)
        else:
            raise InvalidGameError(
                f"{game.name}: sampling chance needs the chance structure, which a "
                f"{type(game).__name__} does not expose; use an explicit Game")
        self.probs = probs
        self.starts = starts
        self.counts = counts
        self.ends = starts + counts - 1
        self.sentinel = len(probs)
        self.leaf_edges = leaf_edges

    def sample_leaves(self, rng: np.random.Generator) -> np.ndarray:
        """Indices of the leaves consistent with one draw at every chance node."""
        if not self.has_chance:
            return np.arange(self.num_leaves)
        chosen = _sample_blocks(self.probs, self.starts, self.counts, self.ends, rng)
        selected = np.zeros(self.sentinel + 1, dtype=bool)
        selected[chosen] = True
        selected[self.sentinel] = True
        return np.flatnonzero(selected[self.leaf_edges].all(axis=1))


def _chance_structure_of_tree(game: Game):
    """Chance edges (probabilities grouped by node) and, per leaf in index order, its chance edges
    top-down (padded with the sentinel edge).

    Read from the game's node arrays (:func:`lpgame.game.tree_arrays.tree_arrays`, no graph). The
    chance nodes are numbered in the order of a stack walk that pushes children in order (pops the
    last child first), i.e. by decreasing postorder, and their edges consecutively in child order;
    each leaf's path is collected bottom-up, one numpy step per depth level for all leaves.
    """
    arrays = tree_arrays(game)
    records = arrays.records
    chance = np.flatnonzero(arrays.kind == 1)
    chance = chance[np.argsort(-arrays.postorder()[chance], kind="stable")]
    counts = np.diff(arrays.child_start)[chance]
    starts = np.zeros(chance.size, dtype=np.int64)
    if chance.size:
        np.cumsum(counts[:-1], out=starts[1:])
    probs = np.array([float(p) for i in chance.tolist() for p in records[i][4]], dtype=float)
    first_edge = np.full(arrays.num_nodes, -1, dtype=np.int64)
    first_edge[chance] = starts
    sentinel = len(probs)
    leaves = arrays.leaf_rows
    parent, position = arrays.parent, arrays.position
    # bottom-up: column k holds the k-th chance edge above each leaf, counted from the leaf
    columns: list[np.ndarray] = []
    node = leaves.copy()
    alive = np.flatnonzero(parent[node] >= 0)
    while alive.size:
        up = parent[node[alive]]
        edge = np.full(leaves.size, -1, dtype=np.int64)
        is_chance = first_edge[up] >= 0
        edge[alive[is_chance]] = first_edge[up[is_chance]] + position[node[alive[is_chance]]]
        columns.append(edge)
        node[alive] = up
        alive = alive[parent[up] >= 0]
    if columns:
        edges = np.stack(columns, axis=1)
    else:
        edges = np.full((leaves.size, 0), -1, dtype=np.int64)
    found = edges >= 0
    per_leaf = found.sum(axis=1)
    depth = int(per_leaf.max(initial=0))
    leaf_edges = np.full((leaves.size, max(depth, 1)), sentinel, dtype=np.int64)
    rows, cols = np.nonzero(found)
    # the j-th edge found from the bottom goes to column per_leaf − 1 − j (top-down order)
    rank = np.cumsum(found, axis=1)[rows, cols] - 1
    leaf_edges[rows, per_leaf[rows] - 1 - rank] = edges[rows, cols]
    return probs, starts, counts.astype(np.int64), leaf_edges


def leaf_weights(sf: SequenceForm, player: int, plans: list[np.ndarray],
                 leaves: np.ndarray | None = None, chance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(leaf indices, weights u_i(z)·[p_c(z)]·Π_{k≠i} x_k[σ_k(z)]) over ``leaves`` (all when None).

    ``chance=False`` leaves p_c(z) out (the leaves were sampled with probability p_c(z)).
    """
    if leaves is None:
        leaves = np.arange(len(sf.terminal_chance))
    weight = sf.terminal_payoffs[leaves, player].copy()
    if chance:
        weight *= sf.terminal_chance[leaves]
    for k, x in enumerate(plans):
        if k != player:
            weight *= x[sf.terminal_sequences[leaves, k]]
    return leaves, weight


class SequencePayoffs:
    """g_i against the others' full plans, for every player i, with the per-game data kept: the
    leaves' chance-weighted payoffs p_c(z) u_i(z) and, for two players with at most
    :data:`DENSE_PAYOFF_ENTRIES` sequence pairs, the dense sequence-form payoff matrix U_i, so that
    g_1 = U_1 y and g_2 = U_2ᵀ x are one product each (:func:`sequence_payoffs_on` recomputes
    these per call, as the sampling variants need)."""

    def __init__(self, sf: SequenceForm):
        self.sf = sf
        n = sf.num_players
        self.sizes = [sf.num_sequences(i) for i in range(n)]
        self.columns = [np.ascontiguousarray(sf.terminal_sequences[:, k]) for k in range(n)]
        chance = sf.terminal_chance
        self.weights = [chance * sf.terminal_payoffs[:, i] for i in range(n)]
        self.matrices = None
        if n == 2 and self.sizes[0] * self.sizes[1] <= DENSE_PAYOFF_ENTRIES:
            self.matrices = []
            for i in range(2):
                U = np.zeros((self.sizes[0], self.sizes[1]))
                np.add.at(U, (self.columns[0], self.columns[1]), self.weights[i])
                self.matrices.append(U if i == 0 else np.ascontiguousarray(U.T))

    def __call__(self, player: int, plans: list[np.ndarray]) -> np.ndarray:
        if self.matrices is not None:
            return self.matrices[player].dot(plans[1 - player])
        weight = self.weights[player]
        for k, x in enumerate(plans):
            if k != player:
                weight = weight * x[self.columns[k]]
        return np.bincount(self.columns[player], weights=weight, minlength=self.sizes[player])


DENSE_PAYOFF_ENTRIES = 4096
"""Two-player games with at most this many pairs of sequences (|Σ_1| · |Σ_2|) keep their payoff
matrices dense in :class:`SequencePayoffs`: one matrix-vector product per update."""


def sequence_payoffs_on(sf: SequenceForm, player: int, plans: list[np.ndarray],
                        leaves: np.ndarray | None = None, chance: bool = True) -> np.ndarray:
    """g_i restricted to ``leaves`` (see :func:`leaf_weights`), one ``bincount``."""
    leaves, weight = leaf_weights(sf, player, plans, leaves, chance)
    return np.bincount(sf.terminal_sequences[leaves, player], weights=weight,
                       minlength=sf.num_sequences(player))
