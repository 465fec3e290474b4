"""The flat index of a preorder tree given as numpy arrays, built one depth level at a time.

:func:`~lpgame.game.flat_tree.index_flat_tree` reads a tree's node records one by one; a reader
that already holds the tree as arrays over its nodes in depth-first preorder (the bulk path of the
Gambit ``.efg`` reader, :mod:`lpgame.io.gambit_efg_fast`) builds the same
:class:`~lpgame.game.flat_tree.FlatTreeIndex` here with a few numpy steps per depth level instead of
Python work per node. The numbering is that of :func:`~lpgame.game.tree_index.build_tree_index`:
player ``i``'s sequence 0 is ∅ and the sequences of an information set are contiguous,
``first_seq[j] .. first_seq[j] + |A_j| − 1``, with the sets numbered in order of first appearance in
preorder (the sequence form of Koller, Megiddo and von Stengel 1996; Farina 2023 §2.1).

Per level (children ``c`` of parents ``p = parent[c]``)::

    seq[c]            = seq[p]                                 (every player's last sequence)
    seq[c][player(p)] = first_seq[infoset(p)] + position[c]    (p a decision node)
    reach[c]          = reach[p] · edge_prob[c]                (edge_prob 1.0 below non-chance)

which are the products and sums of the one-pass index in the same order (``x · 1.0 = x`` exactly), so
the floats are bit-for-bit those of the record walk. Perfect recall (Farina 2023, Def. 2.1) is checked
as there: every node of an information set has the parent sequence of its first node.

What the caller guarantees (the bulk reader checks it while parsing): a complete preorder tree
(``parent[i] < i``), one tuple of distinct non-empty action labels per information set shared by all
its nodes, information sets numbered in order of first appearance, each owned by one player and
labelled uniquely, chance probabilities that are finite, non-negative and sum to one, finite float
payoffs. Only perfect recall is checked here: :func:`index_preorder_arrays` returns ``None`` when it
fails, and the caller falls back to the record walk, which names the fault.
"""

from __future__ import annotations

import numpy as np

from lpgame.game.flat_tree import FlatTree, FlatTreeIndex
from lpgame.game.tree_arrays import gather_ranges
from lpgame.game.tree_index import PlayerIndex

TERMINAL_CODE, CHANCE_CODE, DECISION_CODE = 0, 1, 2


def preorder_parents(arity: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(parent, position) of every node of a tree listed in depth-first preorder by its numbers
    of children, or None when ``arity`` is not exactly one complete tree.

    With ``s[i]`` the number of open child slots before node ``i`` (``s[0] = 1``,
    ``s[i+1] = s[i] + arity[i] − 1``), node ``i`` fills the slot on top of a stack; the tree is
    complete exactly when ``s[i] ≥ 1`` for every ``i < n`` and ``s[n] = 0``. The nodes between a
    node's parent and itself lie in its earlier siblings' subtrees, on higher slots, so the parent
    is the previous node ``j < i`` with ``s[j] ≤ s[i]`` (found by pointer jumping, a few vectorised
    rounds), and the position is ``s[parent + 1] − s[i]`` (the first child sits on the top slot).
    """
    n = int(arity.size)
    s = np.empty(n + 1, dtype=np.int64)
    s[0] = 1
    np.cumsum(arity - 1, out=s[1:])
    s[1:] += 1
    if n == 0 or s[n] != 0 or (n > 1 and int(s[1:n].min()) < 1):
        return None
    slots = s[:n]
    parent = np.arange(-1, n - 1, dtype=np.int64)
    pending = np.arange(1, n, dtype=np.int64)
    while pending.size:
        p = parent[pending]
        higher = slots[p] > slots[pending]
        pending = pending[higher]
        parent[pending] = parent[p[higher]]
    position = np.zeros(n, dtype=np.int64)
    position[1:] = s[parent[1:] + 1] - slots[1:]
    return parent, position


def preorder_levels(parent: np.ndarray) -> list[np.ndarray]:
    """The nodes of each depth, root first, in preorder within a level."""
    n = int(parent.size)
    child_list = np.argsort(parent[1:], kind="stable").astype(np.int64) + 1
    child_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent[1:], minlength=n), out=child_start[1:])
    counts = np.diff(child_start)
    levels = [np.zeros(1, dtype=np.int64)]
    while True:
        c = counts[levels[-1]]
        if not c.any():
            return levels
        levels.append(gather_ranges(child_start[levels[-1]], c, child_list))


def index_preorder_arrays(tree: FlatTree, num_players: int, parent: np.ndarray,
                          position: np.ndarray, kind: np.ndarray, node_infoset: np.ndarray,
                          infoset_player: np.ndarray, infoset_labels: list, infoset_actions: list,
                          edge_prob: np.ndarray, leaf_payoffs: np.ndarray,
                          leaf_payoffs_exact: list) -> FlatTreeIndex | None:
    """The :class:`FlatTreeIndex` of ``tree`` from its arrays (module docstring), or None when
    perfect recall fails.

    ``kind``: :data:`TERMINAL_CODE`, :data:`CHANCE_CODE` or :data:`DECISION_CODE` per node;
    ``node_infoset``: the information set (numbered in order of first appearance) of each decision
    node, −1 elsewhere; ``infoset_player`` (0-based), ``infoset_labels``, ``infoset_actions`` per set;
    ``edge_prob``: the float chance probability of the edge into each node (1.0 below other nodes);
    ``leaf_payoffs`` (leaves × players, floats) and ``leaf_payoffs_exact`` (the payoff tuples as
    given) in preorder of the leaves.
    """
    n = int(parent.size)
    num_sets = len(infoset_labels)
    infoset_player = np.asarray(infoset_player, dtype=np.int64)
    sizes = np.fromiter(map(len, infoset_actions), dtype=np.int64, count=num_sets)
    # per player: local number of each set, first sequences (1 + actions of the earlier sets)
    local = np.zeros(num_sets, dtype=np.int64)
    first = np.zeros(num_sets, dtype=np.int64)
    owned = [np.flatnonzero(infoset_player == pl) for pl in range(num_players)]
    for sets in owned:
        local[sets] = np.arange(sets.size)
        counts = sizes[sets]
        first[sets] = 1 + np.cumsum(counts) - counts
    # sequences and chance reach, one level at a time
    seqs = np.zeros((n, num_players), dtype=np.int64)
    reach = np.ones(n, dtype=float)
    for nodes in preorder_levels(parent)[1:]:
        above = parent[nodes]
        seqs[nodes] = seqs[above]
        reach[nodes] = reach[above] * edge_prob[nodes]
        below = kind[above] == DECISION_CODE
        if below.any():
            sets = node_infoset[above[below]]
            seqs[nodes[below], infoset_player[sets]] = first[sets] + position[nodes[below]]
    # perfect recall: every node of a set has the parent sequence of the set's first node
    decisions = np.flatnonzero(kind == DECISION_CODE)
    sets_of = node_infoset[decisions]
    own = seqs[decisions, infoset_player[sets_of]]
    # sets numbered in order of first appearance: a set's first node raises the running maximum
    earlier = np.maximum.accumulate(np.concatenate([[-1], sets_of[:-1]]))
    first_node = np.flatnonzero(sets_of > earlier)
    if not np.array_equal(sets_of[first_node], np.arange(num_sets)):
        return None
    parent_seq = own[first_node]
    if not np.array_equal(own, parent_seq[sets_of]):
        return None
    decision_count = np.bincount(infoset_player[sets_of], minlength=num_players)
    players = []
    for pl, sets in enumerate(owned):
        pidx = PlayerIndex()
        pidx.infoset_labels = [infoset_labels[j] for j in sets.tolist()]
        pidx.infoset_actions = [infoset_actions[j] for j in sets.tolist()]
        pidx.infoset_parent_seq = parent_seq[sets]
        pidx.infoset_first_seq = first[sets]
        pidx.infoset_depth = _set_depths(parent_seq[sets], sizes[sets])
        pidx.num_sequences = 1 + int(sizes[sets].sum())
        pidx.num_decision_nodes = int(decision_count[pl])
        pidx.finalize()
        players.append(pidx)
    leaves = np.flatnonzero(kind == TERMINAL_CODE)
    return FlatTreeIndex(
        tree,
        num_players=num_players,
        players=players,
        num_nodes=n,
        num_chance_nodes=int(np.count_nonzero(kind == CHANCE_CODE)),
        terminal_nodes=leaves.tolist(),
        terminal_sequences=seqs[leaves],
        terminal_chance=reach[leaves],
        terminal_payoffs=np.asarray(leaf_payoffs, dtype=float).reshape(-1, num_players),
        terminal_payoffs_exact=leaf_payoffs_exact,
    )


def _set_depths(parent_seq: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Depth of each of one player's sets: 0 below ∅, else one more than the set owning its
    parent sequence (an earlier set), by rounds until nothing changes."""
    owner = np.repeat(np.arange(sizes.size), sizes)          # sequence k + 1 -> its set
    above = np.where(parent_seq > 0, owner[np.maximum(parent_seq - 1, 0)], -1)
    depth = np.zeros(sizes.size, dtype=np.int64)
    deeper = above >= 0
    for _ in range(sizes.size + 1):
        new = np.where(deeper, depth[np.maximum(above, 0)] + 1, 0)
        if np.array_equal(new, depth):
            return depth
        depth = new
    return depth


__all__ = ["index_preorder_arrays", "preorder_parents", "preorder_levels", "TERMINAL_CODE",
           "CHANCE_CODE", "DECISION_CODE"]
