"""The team belief DAG's construction as it was before the faster builder (lpgame at cc59adf),
kept verbatim as the reference the new builder must reproduce exactly (tests/test_dag_builders.py).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.teams.team_belief_dag import DEFAULT_MAX_EDGES, BeliefDag
from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_arrays import gather_ranges, tree_arrays


def build_team_belief_dag_reference(game: Game, members: tuple[int, ...],
                          max_edges: int = DEFAULT_MAX_EDGES) -> BeliefDag:
    """The TB-DAG of team ``members`` (0-based) in the explicit ``game`` (module docstring).

    Leaves are numbered as in ``game.index`` (the sequence form's terminal order). Raises
    :class:`~lpgame.errors.ModelTooLargeError` past ``max_edges`` prescriptions and
    :class:`~lpgame.errors.InvalidGameError` if the game is not timeable for the team.

    The tree is read from its node arrays (:func:`lpgame.game.tree_arrays.tree_arrays`; no
    networkx graph), histories are numbered in preorder, and the breadth-first search over beliefs
    runs one numpy batch per group of queued beliefs (:func:`_expand`); beliefs get their numbers
    in the order a one-belief-at-a-time search would give them.
    """
    import time
    start = time.perf_counter()
    members = tuple(sorted(int(m) for m in members))
    index = game.index
    offsets = {}
    total = 0
    for m in members:
        offsets[m] = total
        total += index.players[m].num_infosets
    key_member = np.repeat(np.array(members, dtype=np.int64),
                           [index.players[m].num_infosets for m in members])
    key_offset = np.array([offsets[m] for m in key_member.tolist()], dtype=np.int64)
    key_actions = np.concatenate([index.players[m].infoset_num_actions for m in members]) \
        if members else np.zeros(0, np.int64)
    tree = _TeamTree(game, members, offsets, key_actions)
    tree.check_timeable(game.name, index, key_member, key_offset)

    belief_id: dict[tuple[int, ...], int] = {}
    belief_nodes: list[tuple[int, ...]] = []

    def belief(nodes: tuple[int, ...]) -> int:
        b = belief_id.get(nodes)
        if b is None:
            b = belief_id[nodes] = len(belief_nodes)
            belief_nodes.append(nodes)
        return b

    root_nodes = np.flatnonzero((tree.hang < 0) & (tree.code == 1))
    root_leaves = tree.leaf[(tree.hang < 0) & (tree.code == 0)]
    if tree.code[0] == 1:
        root_nodes, root_leaves = np.zeros(1, dtype=np.int64), root_leaves[:0]
    roots = [belief(c) for _, c in tree.components(np.zeros(root_nodes.size, np.int64), root_nodes)]
    edge_belief: list[int] = []
    edge_actions: list[tuple[int, ...]] = []
    child_edge: list[np.ndarray] = []
    child_belief: list[int] = []
    leaf_edge: list[np.ndarray] = []
    leaf_index: list[np.ndarray] = []
    belief_infosets: list[tuple[tuple[int, int], ...]] = []
    max_infosets = 0
    done = 0
    while done < len(belief_nodes):
        # a batch of queued beliefs, in number order, of at most about BATCH_PAIRS (edge, history)
        batch: list[tuple[int, list[int], list[int], int]] = []
        pairs = 0
        while done < len(belief_nodes) and (not batch or pairs < BATCH_PAIRS):
            b = done
            done += 1
            nodes = belief_nodes[b]
            keys = sorted({int(tree.key_of[v]) for v in nodes})
            max_infosets = max(max_infosets, len(keys))
            belief_infosets.append(tuple((int(key_member[k]), int(k - key_offset[k])) for k in keys))
            sizes = [int(key_actions[k]) for k in keys]
            count = math.prod(sizes)
            if len(edge_belief) + count > max_edges:
                raise ModelTooLargeError(
                    f"{game.name}: the team belief DAG passes {max_edges} prescriptions (a belief "
                    f"with {len(keys)} information sets has {count}); use "
                    "method='column_generation' or a larger max_dag_edges")
            batch.append((len(edge_belief), keys, sizes, count))
            edge_belief.extend([b] * count)
            edge_actions.extend(itertools.product(*(range(a) for a in sizes)))
            pairs += count * len(nodes)
        first = batch[0][0]
        edges, leaves, groups = tree.expand(
            [belief_nodes[b] for b in range(done - len(batch), done)], batch)
        leaf_edge.append(edges + first)
        leaf_index.append(leaves)
        for e, comp in groups:
            child_edge.append(e + first)
            child_belief.append(belief(comp))
    histories = [len(nodes) for nodes in belief_nodes]
    return BeliefDag(
        members=members, num_leaves=index.num_terminals, belief_infosets=belief_infosets,
        belief_histories=histories,
        edge_belief=np.array(edge_belief, dtype=np.int64), edge_actions=edge_actions,
        child_edge=np.array(child_edge, dtype=np.int64),
        child_belief=np.array(child_belief, dtype=np.int64),
        leaf_edge=np.concatenate(leaf_edge).astype(np.int64) if leaf_edge
        else np.zeros(0, np.int64),
        leaf_index=np.concatenate(leaf_index).astype(np.int64) if leaf_index
        else np.zeros(0, np.int64),
        root_beliefs=np.array(roots, dtype=np.int64),
        root_leaves=np.sort(root_leaves).astype(np.int64),
        seconds=time.perf_counter() - start,
        stats={"roots": len(roots), "max_infosets_per_belief": max_infosets,
               "max_histories_per_belief": max(histories, default=0),
               "trivial_beliefs": sum(1 for b in belief_infosets
                                      if math.prod(int(key_actions[offsets[m] + j])
                                                   for m, j in b) == 1)})


BATCH_PAIRS = 1 << 20
"""About how many (prescription, history) pairs one numpy batch of the belief search handles."""


class _TeamTree:
    """The tree as the belief search needs it, as arrays over the preorder nodes (histories):

    ``code`` 0 leaf, 1 team node, 2 other (chance, non-team player); ``key_of`` a team node's
    information-set key; ``hang[t]``/``slot[t]`` for a team node or leaf t: its nearest team
    ancestor h and the slot (h, a) of the action a of h that leads to it (−1: none, t is in
    F(root)), so F(h, a) is the set of nodes of slot (h, a); the slots' team nodes and leaves as
    two CSR lists (leaves in decreasing preorder, the order of the one-at-a-time search); ``nxt``
    as a CSR list per team node: its next information sets (module docstring), i.e. its own, and
    for every other member m the keys of m's nodes below it with no node of m in between.
    """

    def __init__(self, game: Game, members, offsets: dict, key_actions: np.ndarray):
        arrays = tree_arrays(game)
        index = game.index
        n = arrays.num_nodes
        records = arrays.records
        self.leaf = np.full(n, -1, dtype=np.int64)
        self.leaf[arrays.leaf_rows] = np.arange(arrays.leaf_rows.size)
        player = arrays.player
        team = (arrays.kind == 2) & np.isin(player, members)
        code = np.where(arrays.kind == 0, 0, 2).astype(np.int8)
        code[team] = 1
        self.code = code
        key_of = np.full(n, -1, dtype=np.int64)
        team_nodes = np.flatnonzero(team)
        # action index (in the information set's order) of every child of a team node
        action = arrays.position.copy()
        starts, counts = arrays.child_start, np.diff(arrays.child_start)
        for v in team_nodes.tolist():
            p, labels, label = int(player[v]), records[v][3], str(records[v][6])
            pidx = index.players[p]
            j = pidx.infoset_of_label[label]
            key_of[v] = offsets[p] + j
            actions = pidx.infoset_actions[j]
            if tuple(labels) != actions:
                rank = {a: r for r, a in enumerate(actions)}
                kids = arrays.child_list[starts[v]:starts[v + 1]]
                action[kids] = [rank[str(a)] for a in labels]
        self.key_of = key_of
        slot_start = np.full(n, -1, dtype=np.int64)
        slot_start[team_nodes] = np.concatenate([[0], np.cumsum(counts[team_nodes])[:-1]]) \
            if team_nodes.size else team_nodes
        num_slots = int(counts[team_nodes].sum())
        # top-down, one level at a time: nearest team ancestor and the slot below it
        levels = arrays.levels()
        parent = arrays.parent
        hang = np.full(n, -1, dtype=np.int64)
        slot = np.full(n, -1, dtype=np.int64)
        steps = np.zeros(n, dtype=np.int64)        # team decisions above a node
        for nodes in levels[1:]:
            up = parent[nodes]
            at_team = team[up]
            hang[nodes] = np.where(at_team, up, hang[up])
            slot[nodes] = np.where(at_team, slot_start[up] + action[nodes], slot[up])
            steps[nodes] = steps[up] + at_team
        self.hang, self.steps, self.team_nodes = hang, steps, team_nodes
        self.slot_of_node = slot_start
        self.postorder = None
        self._arrays = arrays
        # slot → frontier team nodes and leaves
        frontier = np.flatnonzero((code != 2) & (slot >= 0))
        is_leaf = code[frontier] == 0
        self.slot_nodes_start, self.slot_nodes = _csr(slot[frontier[~is_leaf]],
                                                      frontier[~is_leaf], num_slots)
        leaves = frontier[is_leaf][::-1]                     # decreasing preorder within a slot
        self.slot_leaves_start, slot_leaves = _csr(slot[leaves], leaves, num_slots)
        self.slot_leaves = self.leaf[slot_leaves]
        # next information sets: walk up from every team node t to its member's previous node
        pair_node = [team_nodes]
        pair_key = [key_of[team_nodes]]
        t = team_nodes
        mine = player[t]
        cur = parent[t]
        live = cur >= 0
        t, mine, cur = t[live], mine[live], cur[live]
        while t.size:
            same = team[cur] & (player[cur] == mine)
            other = team[cur] & ~same
            pair_node.append(cur[other])
            pair_key.append(key_of[t[other]])
            cur = parent[cur]
            live = ~same & (cur >= 0)
            t, mine, cur = t[live], mine[live], cur[live]
        nodes_cat, keys_cat = np.concatenate(pair_node), np.concatenate(pair_key)
        self.num_keys = max(int(key_actions.size), 1)
        unique = np.unique(nodes_cat * self.num_keys + keys_cat)
        self.nxt_start, self.nxt = _csr(unique // self.num_keys, unique % self.num_keys, n)

    def check_timeable(self, name: str, index, key_member, key_offset) -> None:
        """Every team information set's histories follow the same number of team decisions;
        the set named is the one a stack walk (decreasing postorder) finds first."""
        t = self.team_nodes
        if not t.size:
            return
        order = t[np.argsort(-self._arrays.postorder()[t], kind="stable")]
        keys, steps = self.key_of[order], self.steps[order]
        _, first = np.unique(keys, return_index=True)
        first_step = np.zeros(int(keys.max()) + 1, dtype=np.int64)
        first_step[keys[first]] = steps[first]
        bad = np.flatnonzero(steps != first_step[keys])
        if bad.size:
            ku = int(keys[bad[0]])
            raise InvalidGameError(
                f"{name}: the histories of team information set "
                f"{index.players[int(key_member[ku])].infoset_labels[ku - int(key_offset[ku])]!r}"
                " follow different numbers of team decisions; the team belief DAG needs a game "
                "that is timeable for the team (use method='column_generation')")

    def components(self, pair_edge: np.ndarray, pair_node: np.ndarray) -> list:
        """The connected components of the team nodes reached by each edge (pairs (edge, node),
        each node at most once per edge): [(edge, sorted nodes), ...] by edge, then by smallest
        node (the order of sorted tuples, the components being disjoint)."""
        q = pair_node.size
        if q == 0:
            return []
        counts = np.diff(self.nxt_start)[pair_node]
        which = np.repeat(np.arange(q), counts)
        keys = gather_ranges(self.nxt_start[pair_node], counts, self.nxt)
        _, key_vertex = np.unique(pair_edge[which] * self.num_keys + keys, return_inverse=True)
        size = q + int(key_vertex.max()) + 1
        graph = sp.csr_array((np.ones(which.size, dtype=np.int8), (which, q + key_vertex)),
                             shape=(size, size))
        from scipy.sparse.csgraph import connected_components  # not at start-up: 0.1 s

        _, label = connected_components(graph, directed=False)
        label = label[:q]
        order = np.lexsort((pair_node, label))
        label, nodes, edge = label[order], pair_node[order], pair_edge[order]
        begin = np.flatnonzero(np.concatenate([[True], label[1:] != label[:-1]]))
        end = np.append(begin[1:], q)
        rank = np.lexsort((nodes[begin], edge[begin]))
        node_list = nodes.tolist()
        return [(int(edge[begin[g]]), tuple(node_list[begin[g]:end[g]]))
                for g in rank.tolist()]

    def expand(self, beliefs: list[tuple[int, ...]], batch: list) -> tuple:
        """For a batch of beliefs (their histories, and per belief its first edge, keys, action
        counts and edge count): (leaf_edge, leaf_index, child groups), edges numbered from the
        batch's first edge. Edge e of a belief prescribes action (e // stride_k) mod |A_k| at
        its k-th information set (itertools.product order), so history v's reached slot is
        slot(v) + that action."""
        first = batch[0][0]
        node_cat, stride_cat, acts_cat, rank_cat, edge0, count_cat, size_cat = \
            [], [], [], [], [], [], []
        for nodes, (e0, keys, sizes, count) in zip(beliefs, batch):
            stride = {}
            acc = 1
            for r in range(len(keys) - 1, -1, -1):
                stride[keys[r]] = (acc, sizes[r], r)
                acc *= sizes[r]
            for v in nodes:
                s, a, r = stride[int(self.key_of[v])]
                node_cat.append(v)
                stride_cat.append(s)
                acts_cat.append(a)
                rank_cat.append(r)
            edge0.append(e0 - first)
            count_cat.append(count)
            size_cat.append(len(nodes))
        node_cat = np.array(node_cat, dtype=np.int64)
        stride_cat = np.array(stride_cat, dtype=np.int64)
        acts_cat = np.array(acts_cat, dtype=np.int64)
        rank_cat = np.array(rank_cat, dtype=np.int64)
        count_b = np.array(count_cat, dtype=np.int64)
        size_b = np.array(size_cat, dtype=np.int64)
        node_off = np.concatenate([[0], np.cumsum(size_b)[:-1]])
        per_b = count_b * size_b
        total = int(per_b.sum())
        belief_of = np.repeat(np.arange(len(batch)), per_b)
        local = np.arange(total) - np.repeat(np.concatenate([[0], np.cumsum(per_b)[:-1]]), per_b)
        e_local = local // size_b[belief_of]
        member = node_off[belief_of] + local % size_b[belief_of]
        edge = np.array(edge0, dtype=np.int64)[belief_of] + e_local
        v = node_cat[member]
        slot = self.slot_of_node[v] + (e_local // stride_cat[member]) % acts_cat[member]
        # leaves: by edge, then information set (key order), then history, then leaf order
        order = np.lexsort((v, rank_cat[member], edge))
        s_sorted = slot[order]
        n_leaves = np.diff(self.slot_leaves_start)[s_sorted]
        leaf_edge = np.repeat(edge[order], n_leaves)
        leaf_index = gather_ranges(self.slot_leaves_start[s_sorted], n_leaves, self.slot_leaves)
        n_nodes = np.diff(self.slot_nodes_start)[slot]
        reached_edge = np.repeat(edge, n_nodes)
        reached = gather_ranges(self.slot_nodes_start[slot], n_nodes, self.slot_nodes)
        return leaf_edge, leaf_index, self.components(reached_edge, reached)


def _csr(rows: np.ndarray, values: np.ndarray, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, values grouped by row, stably) with row r's values at start[r]:start[r + 1]."""
    order = np.argsort(rows, kind="stable")
    start = np.zeros(num_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=num_rows), out=start[1:])
    return start, np.asarray(values, dtype=np.int64)[order]
