"""An explicit game's tree as numpy arrays over its nodes in depth-first preorder, without a graph.

The readers of whole trees after indexing (the Gambit writer, the chance sampler of CFR, the team
belief DAG) need the tree itself, not only its flat index: parents, children in order, kinds,
chance probabilities, payoffs. A game built from node records (:class:`~lpgame.game.flat_tree.FlatTree`,
:meth:`Game.from_flat_tree <lpgame.game.tree.Game.from_flat_tree>`) has them already; a game built
from a :class:`networkx.DiGraph` is walked once in the same preorder (children in successor order)
into records of the same form. Either way the networkx view of a flat game is never built.

Numbering: node ``i`` is the ``i``-th node of the preorder walk that visits a node's children in
their (successor) order: the root is 0, every node's subtree is the range
``i .. i + size[i] − 1``. From the ``parent`` array the rest is vectorised, one numpy step per depth
level: ``depth[i] = depth[parent[i]] + 1``, subtree sizes by adding each level into its parents, and
the postorder number ``post[i] = i − depth[i] + size[i] − 1`` (the nodes finished before ``i`` are
the ``i − depth[i]`` earlier non-ancestors and ``size[i] − 1`` descendants). A walk that pops its
last-pushed child first (a stack with the children pushed in order) visits the nodes in
decreasing ``post``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpgame.game.flat_tree import FlatTree
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL

KIND_CODES = {TERMINAL: 0, CHANCE: 1, DECISION: 2}
"""Node kinds as the small integers of :attr:`TreeArrays.kind`."""


@dataclass
class TreeArrays:
    """The records of a tree (module docstring) and their per-node arrays.

    ``records``: the :class:`FlatTree` node tuples ``(parent, position, kind, labels, values,
    player, infoset)``; ``node_attrs``/``graph_attrs`` its extra attributes; ``leaf_rows[k]`` the
    node of the game index's ``k``-th leaf; ``parent`` (−1 at the root), ``position`` (among the
    parent's children), ``kind`` (:data:`KIND_CODES`), ``player`` (−1 off decision nodes) per node;
    the children of node ``i`` are ``child_list[child_start[i]:child_start[i + 1]]`` in position order;
    ``node_names`` the graph's node of every record for a game built from a graph (None otherwise:
    the records are the game's nodes).
    """

    records: list
    node_attrs: dict
    graph_attrs: dict
    leaf_rows: np.ndarray
    parent: np.ndarray
    position: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    child_start: np.ndarray
    child_list: np.ndarray
    node_names: list | None = None

    @property
    def num_nodes(self) -> int:
        return int(self.parent.size)

    def levels(self) -> list[np.ndarray]:
        """The nodes of each depth, root first (one numpy gather per level)."""
        counts = np.diff(self.child_start)
        out = [np.zeros(1, dtype=np.int64)]
        while True:
            current = out[-1]
            c = counts[current]
            if not c.any():
                return out
            out.append(gather_ranges(self.child_start[current], c, self.child_list))

    def depth_and_size(self) -> tuple[np.ndarray, np.ndarray]:
        """(depth, subtree size) of every node."""
        levels = self.levels()
        n = self.num_nodes
        depth = np.zeros(n, dtype=np.int64)
        for d, nodes in enumerate(levels):
            depth[nodes] = d
        size = np.ones(n, dtype=np.int64)
        for nodes in reversed(levels[1:]):
            np.add.at(size, self.parent[nodes], size[nodes])
        return depth, size

    def postorder(self) -> np.ndarray:
        """Postorder number of every node (module docstring)."""
        depth, size = self.depth_and_size()
        return np.arange(self.num_nodes, dtype=np.int64) - depth + size - 1


def gather_ranges(starts: np.ndarray, counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values[starts[0]:starts[0]+counts[0]] ++ values[starts[1]:...] ++ ... (vectorised)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=values.dtype)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return values[np.arange(total) + offsets]


def tree_arrays(game) -> TreeArrays:
    """The :class:`TreeArrays` of an explicit :class:`~lpgame.game.tree.Game` (module docstring);
    cached on the game."""
    cached = getattr(game, "_tree_arrays", None)
    if cached is not None:
        return cached
    flat = getattr(game, "_flat_tree", None)
    names = None
    if flat is not None:
        tree = flat
        leaf_rows = np.asarray(game.index.terminal_nodes, dtype=np.int64)
    else:
        tree, number = _records_of_graph(game.graph, game.root)
        leaf_rows = np.array([number[z] for z in game.index.terminal_nodes], dtype=np.int64)
        names = list(number)
    records = tree.nodes
    n = len(records)
    parents, positions, kinds, _, _, players, _ = zip(*records)
    parent = np.array(parents, dtype=np.int64)
    position = np.array(positions, dtype=np.int64)
    codes = KIND_CODES
    kind = np.array([codes[k] for k in kinds], dtype=np.int8)
    player = np.full(n, -1, dtype=np.int64)
    decision = np.flatnonzero(kind == 2)
    player[decision] = np.array([int(players[i]) for i in decision.tolist()], dtype=np.int64)
    # preorder lists a node's children in position order: group the nodes by parent, stably
    child_list = np.argsort(parent[1:], kind="stable").astype(np.int64) + 1
    child_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent[1:], minlength=n), out=child_start[1:])
    arrays = TreeArrays(records=records, node_attrs=tree.node_attrs, graph_attrs=tree.graph_attrs,
                        leaf_rows=leaf_rows, parent=parent, position=position, kind=kind,
                        player=player, child_start=child_start, child_list=child_list,
                        node_names=names)
    try:
        game._tree_arrays = arrays
    except AttributeError:
        pass
    return arrays


def _records_of_graph(graph, root) -> tuple[FlatTree, dict]:
    """The records of a validated networkx game tree, in preorder with children in successor
    order, and the record number of every graph node."""
    records: list[tuple] = []
    attrs: dict[int, dict] = {}
    number: dict = {}
    stack = [(root, -1, 0)]
    standard = {"kind", "player", "infoset", "payoffs"}
    while stack:
        node, parent, position = stack.pop()
        i = len(records)
        number[node] = i
        data = graph.nodes[node]
        kind = data["kind"]
        children = list(graph.successors(node))
        labels = tuple(str(graph.edges[node, c]["action"]) for c in children)
        if kind == TERMINAL:
            records.append((parent, position, kind, (), data["payoffs"], None, None))
        elif kind == CHANCE:
            probs = tuple(graph.edges[node, c]["prob"] for c in children)
            records.append((parent, position, kind, labels, probs, None, None))
        else:
            records.append((parent, position, kind, labels, None, data["player"],
                            str(data["infoset"])))
        extra = {k: v for k, v in data.items() if k not in standard}
        if extra:
            attrs[i] = extra
        stack.extend((c, i, p) for p, c in reversed(list(enumerate(children))))
    return FlatTree(records, attrs, dict(graph.graph)), number


__all__ = ["TreeArrays", "tree_arrays", "gather_ranges", "KIND_CODES"]
