"""The signal tree (Definition 4) and ordered game isomorphism (Definition 5, Algorithm 1).

The **signal tree** of a game with ordered signals has one level per revealed signal, in dealing
order (per round the public signals, then each player's private signals; Gilpin & Sandholm,
Definition 4): a node at depth k is an ordered prefix of k distinct signals, an edge reveals one more
signal and carries its probability p(x | X). It has 1 + Σ_{i=1}^{S} Π_{j=1}^{i} (|Θ| − j + 1) nodes
(notes §A.8; 6,632,705 for Rhode Island Hold'em, |Θ| = 52, S = 4).

**Ordered game isomorphism** (Definition 5): two leaves are isomorphic when their payoffs agree for
every terminal betting history; two inner nodes when a bijection of their children pairs equal edge
weights with isomorphic subtrees. Two implementations decide it:

* :func:`ordered_game_isomorphic` is **Algorithm 1** as printed: recursive, with a bipartite graph of
  the children (an edge when the weights are equal and the subtrees isomorphic) and a perfect
  matching (networkx's Hopcroft–Karp). It is quadratic in the children per call and meant for small
  decks.
* :func:`canonical_classes` is the **fast path**, bottom-up canonical forms (Aho–Hopcroft–Ullman
  tree isomorphism): a leaf's class is the class of its payoff vector; an inner node's class is the
  multiset of (edge weight, child's class). Because isomorphism is an equivalence relation, two
  subtrees are isomorphic exactly when a perfect matching of equal (weight, class) pairs exists,
  i.e. when these multisets are equal. Multisets are compared through two independent 64-bit
  multiset hashes (sums of mixed items, vectorised with ``np.add.reduceat`` over the contiguous
  children of each node); probabilities enter rounded to 2⁻³⁰ (exact for the decks here, whose
  conditional probabilities are ratios of small integers). The tests check that both paths give the
  same classes on small games.

:func:`game_shrink_signal_tree` is **Algorithm 2** on the signal tree: every pair of siblings that
Algorithm 1 calls isomorphic is merged in a union-find structure (networkx's ``UnionFind``).
:func:`filtered_signal_tree_sizes` counts the nodes of the filtered signal tree that results (one
node per class of siblings, recursively): for the paper's Figure 1 game 1 + 4 + 12 → 1 + 2 + 4.

>>> from lpgame.abstraction.ordered_game import toy_ordered
>>> toy = toy_ordered()
>>> filtered_signal_tree_sizes(toy, canonical_classes(toy))
[1, 2, 4]
>>> game_shrink_signal_tree(toy)[1][()]          # player 1's card: {J1, J2}, {K1, K2}
[[0, 1], [2, 3]]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.abstraction.signal_rules import OrderedSignalRules

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
WEIGHT_SCALE = float(1 << 30)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def quantize(probability: np.ndarray) -> np.ndarray:
    """Probabilities as integers (units of 2⁻³⁰) for exact comparison of rounded values."""
    return np.rint(np.asarray(probability) * WEIGHT_SCALE).astype(np.int64)


def multiset_ids(groups: np.ndarray, items: np.ndarray, num_groups: int,
                 prefix: np.ndarray | None = None) -> np.ndarray:
    """Class id per group (0..K−1) such that two groups share an id iff their multisets of ``items``
    (int64, one per element of ``groups``) agree, and so do their ``prefix`` labels if given.

    Two independent 64-bit hashes of each multiset (sums of mixed items) decide equality.
    """
    with np.errstate(over="ignore"):
        items = items.astype(np.int64).view(np.uint64)
        m1 = _splitmix(items)
        m2 = _splitmix(items ^ np.uint64(0x5DEECE66D2545F49))
        order = np.argsort(groups, kind="stable")
        g = np.asarray(groups)[order]
        h1 = np.zeros(num_groups, dtype=np.uint64)
        h2 = np.zeros(num_groups, dtype=np.uint64)
        if len(g):
            starts = np.flatnonzero(np.concatenate([[True], g[1:] != g[:-1]]))
            h1[g[starts]] = np.add.reduceat(m1[order], starts)
            h2[g[starts]] = np.add.reduceat(m2[order], starts)
            counts = np.bincount(g, minlength=num_groups).astype(np.uint64)
            h1 ^= _splitmix(counts)
    columns = [h1.view(np.int64), h2.view(np.int64)]
    if prefix is not None:
        columns.insert(0, np.asarray(prefix, dtype=np.int64))
    stacked = np.stack(columns, axis=1)
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def pair_items(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One int64 item for a pair of non-negative ints (hash-combined)."""
    with np.errstate(over="ignore"):
        return (_splitmix(np.asarray(a, dtype=np.int64).view(np.uint64))
                ^ np.asarray(b, dtype=np.int64).view(np.uint64)).view(np.int64)


def payoff_classes(game: OrderedSignalRules) -> np.ndarray:
    """Class of each showdown outcome (WIN, LOSE, TIE) by its payoff vector over every terminal
    betting history of the last round (Definition 5 for leaves; folds pay alike in all three)."""
    tree = game.tree
    leaves = tree.leaves[-1]
    columns = np.array([[float(u) for u in tree.leaf_payoffs(leaf)] for leaf in leaves]).T  # 3 × L
    _, inverse = np.unique(columns, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def leaf_classes(game: OrderedSignalRules) -> np.ndarray:
    """Class of every leaf of the signal tree (depth S): the payoff class of its showdown outcome."""
    cards, _, _ = game.deals(game.depth)
    return payoff_classes(game)[game.outcomes(cards)]


def canonical_classes(game: OrderedSignalRules) -> list[np.ndarray]:
    """Per depth 0..S, the isomorphism class of every signal-tree node (the fast path, module
    docstring); nodes are the rows of :meth:`OrderedSignalGame.deals`."""
    classes: list[np.ndarray] = [None] * (game.depth + 1)
    classes[game.depth] = leaf_classes(game)
    for depth in range(game.depth - 1, -1, -1):
        _, prob, parent = game.deals(depth + 1)
        _, parent_prob, _ = game.deals(depth)
        weight = quantize(prob / parent_prob[parent])
        items = pair_items(classes[depth + 1], weight)
        classes[depth] = multiset_ids(parent, items, len(parent_prob))
    return classes


def filtered_signal_tree_sizes(game: OrderedSignalRules, classes: list[np.ndarray]) -> list[int]:
    """Nodes per depth of the filtered signal tree after merging every class of isomorphic siblings
    (Algorithm 2's output): one representative per merged class, whose children are grouped by
    class in turn."""
    sizes = [1]
    reps = np.zeros(1, dtype=np.int64)                 # representative nodes at this depth
    for depth in range(game.depth):
        _, _, parent = game.deals(depth + 1)
        # children of the representatives
        is_rep = np.zeros(len(game.deals(depth)[0]), dtype=bool)
        is_rep[reps] = True
        kids = np.flatnonzero(is_rep[parent])
        key = parent[kids] * (int(classes[depth + 1].max()) + 1) + classes[depth + 1][kids]
        _, first = np.unique(key, return_index=True)
        reps = kids[first]
        sizes.append(len(reps))
    return sizes


# ---------------------------------------------------------------------- Algorithm 1 and 2, literally
class _ExplicitSignalTree:
    """The signal tree of a small game as prefixes (tuples of signal ids) with exact edge weights."""

    def __init__(self, game: OrderedSignalRules):
        self.game = game
        self.total = int(game.weights.sum())
        self.payoff_class = payoff_classes(game)
        self._memo: dict[tuple, bool] = {}

    def children(self, node: tuple) -> dict[int, Fraction]:
        if len(node) == self.game.depth:
            return {}
        left = self.total - sum(int(self.game.weights[c]) for c in node)
        return {c: Fraction(int(self.game.weights[c]), left)
                for c in range(len(self.game.signals)) if c not in node}

    def leaf_class(self, node: tuple) -> int:
        outcome = self.game.outcomes(np.array([node], dtype=np.int64))[0]
        return int(self.payoff_class[outcome])


def ordered_game_isomorphic(tree: _ExplicitSignalTree, x: tuple, y: tuple) -> bool:
    """Algorithm 1, OrderedGameIsomorphic?(Γ, ϑ, ϑ') (notes §A.8), for nodes at the same depth.

    The recursion compares children of different parents: "isomorphic relative to the matched pair"
    (the notes' reading of step 4), which with step 1 dropped below the top call is Definition 5.
    """
    key = (x, y) if x <= y else (y, x)
    memo = tree._memo
    if key in memo:
        return memo[key]
    if len(x) == tree.game.depth:                                  # step 2: leaves
        result = tree.leaf_class(x) == tree.leaf_class(y)
    else:
        cx, cy = tree.children(x), tree.children(y)
        if len(cx) != len(cy):
            result = False
        else:                                                      # steps 3-5
            import networkx as nx

            graph = nx.Graph()
            left = [("x", a) for a in cx]
            graph.add_nodes_from(left)
            graph.add_nodes_from(("y", b) for b in cy)
            graph.add_edges_from(
                (("x", a), ("y", b)) for a in cx for b in cy
                if cx[a] == cy[b] and ordered_game_isomorphic(tree, x + (a,), y + (b,)))
            matching = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=left)
            result = len(matching) == 2 * len(cx)
    memo[key] = result
    return result


def game_shrink_signal_tree(game: OrderedSignalRules, max_nodes: int = 20000
                            ) -> list[dict[tuple, list[list[int]]]]:
    """Algorithm 2 on the signal tree of a small game: per depth 1..S, for every parent node the
    classes of its children (as lists of signal ids) after union-find merges of every isomorphic
    sibling pair (Algorithm 1). Refuses trees with more than ``max_nodes`` nodes."""
    import networkx as nx

    from lpgame.errors import ModelTooLargeError
    if game.signal_tree_size() > max_nodes:
        raise ModelTooLargeError(
            f"{game.name}: the literal Algorithm 1 is meant for small signal trees "
            f"({game.signal_tree_size()} nodes > {max_nodes}); use canonical_classes")
    tree = _ExplicitSignalTree(game)
    out: list[dict[tuple, list[list[int]]]] = [{} for _ in range(game.depth + 1)]
    level = [()]
    for depth in range(game.depth):
        nxt = []
        for parent in level:
            kids = sorted(tree.children(parent))
            uf = nx.utils.UnionFind(kids)
            for a_pos, a in enumerate(kids):
                for b in kids[a_pos + 1:]:
                    if uf[a] != uf[b] and ordered_game_isomorphic(tree, parent + (a,), parent + (b,)):
                        uf.union(a, b)
            out[depth + 1][parent] = sorted(sorted(s) for s in uf.to_sets())
            nxt.extend(parent + (k,) for k in kids)
        level = nxt
    return out


def sibling_classes_fast(game: OrderedSignalRules, classes: list[np.ndarray]
                         ) -> list[dict[tuple, list[list[int]]]]:
    """The same output as :func:`game_shrink_signal_tree`, read off the canonical classes."""
    out: list[dict[tuple, list[list[int]]]] = [{} for _ in range(game.depth + 1)]
    for depth in range(game.depth):
        parents, _, _ = game.deals(depth)
        cards, _, parent = game.deals(depth + 1)
        groups: dict[tuple, dict[int, list[int]]] = {}
        for row, par, cls in zip(cards.tolist(), parent.tolist(), classes[depth + 1].tolist()):
            groups.setdefault(tuple(parents[par].tolist()), {}).setdefault(cls, []).append(row[-1])
        for key, by_class in groups.items():
            out[depth + 1][key] = sorted(sorted(v) for v in by_class.values())
    return out


__all__ = ["canonical_classes", "filtered_signal_tree_sizes", "ordered_game_isomorphic",
           "game_shrink_signal_tree", "sibling_classes_fast", "multiset_ids", "pair_items",
           "leaf_classes", "payoff_classes", "quantize"]
