"""The team belief DAG (TB-DAG): the team's decision space as a DAG whose flows project onto Ω_T.

**Source.** Zhang, Farina & Sandholm, "Team belief DAG: generalizing the sequence form to team
games for fast computation of correlated team max-min equilibria via regret minimization", ICML
2023; Farina 2023, Corollary 11.2 and Remark 11.1 (notes/farina-thesis.md §1.11, Table 11.2 in
§3.5). The construction below is derived from those definitions; it is the team's analogue of the
sequence form (:mod:`lpgame.sequence_form`), so it sits in the same layer.

**Setting.** A team T of players against the rest of the game, which is treated as chance (the
opponent turned into chance, Lemma 11.3). The team's *realization vector* is
ω[z] = E_μ[Π_{i∈T} π_i[σ_i(z)]] (eq. (11.4)) and Ω_T is the set of all of them.

**Construction** (one pass over the explicit tree, then breadth first over beliefs):

* A *team node* is a history where a team member acts. From a team node h and an action a, the
  game runs through chance and non-team moves until it meets team nodes or leaves: F(h, a) is that
  set (the *frontier*). F(root) is the frontier of the empty history.
* Two team nodes of one frontier are *connected* when some team member m has the same *next
  information set* below both: for the acting member of h that is h's own information set; for a
  member who does not act at h, the first of its information sets below h (there may be several,
  one per continuation). Sharing any later information set of m implies sharing the next one
  (perfect recall), so this is the "same information set of some team member" relation of the
  paper applied to what each member will have to decide; it never joins histories that no member
  ever confuses. A *belief* is a connected component.
* At a belief B the team chooses a *prescription*: one action at every team information set that
  meets B (|prescriptions| = Π_j |A_j|). After prescription a the reached frontier
  ∪_{h ∈ B} F(h, a(h)) splits into connected components again: the child beliefs. Beliefs are
  identified by their set of histories, so two paths that reach the same set share one node: a
  DAG. The leaves of the reached frontier hang off the edge (B, a).
* The roots are the components of F(root) (the paper's construction puts a trivial observation
  node above them; we keep it implicit: each root has inflow 1).

**Polytope.** With one variable x[e] ≥ 0 per edge e = (B, a):

    Σ_{a} x[B, a] = [B is a root] + Σ_{e: B is a child of e} x[e]      for every belief B,
    ω[z] = [z ∈ F(root)] + Σ_{e: z hangs off e} x[e],

and Ω_T is exactly the image of these flows (a pure flow, one prescription at every reached belief,
is a joint pure plan: every information set's reached histories lie in one belief of the flow;
conversely every joint pure plan gives one). This is what :func:`BeliefDag.leaf_matrix` and
:func:`BeliefDag.flow_matrix` assemble.

**Condition checked.** Each team information set's histories must be met after the same number of
team decisions (timeability for the team: true in every game whose actions are public, such as
Kuhn, Leduc and Liar's dice); otherwise one information set could be decided in two beliefs of one
flow, and :func:`build_team_belief_dag` raises :class:`~lpgame.errors.InvalidGameError`.

**Sizes** (Farina 2023, Table 11.2, "Ω▲ simplexes / dim"): ``num_beliefs`` counts the decision
nodes (simplexes) and ``num_edges`` the prescriptions (dimension). Conventions about trivial nodes
differ from the thesis's implementation; ``docs/explanation/benchmarks.md`` compares them.
"""

from __future__ import annotations

import gc
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_arrays import gather_ranges, tree_arrays

DEFAULT_MAX_EDGES = 3_000_000
"""Most prescriptions (edges) the construction builds before it stops with ModelTooLargeError."""



def dag_flow_rows(edge_belief, child_belief, child_edge, root_beliefs, num_beliefs: int
                  ) -> tuple[sp.csr_array, np.ndarray]:
    """The flow polytope of a belief DAG as rows A x = b, one per belief: the prescriptions
    (edges) leaving a belief sum to the flow into it, which is 1 at a root belief and otherwise the
    sum of the parent edges that lead to it (``child_edge[i]`` leads to ``child_belief[i]``)."""
    num_edges = len(edge_belief)
    rows = np.concatenate([edge_belief, child_belief])
    cols = np.concatenate([np.arange(num_edges), child_edge])
    vals = np.concatenate([np.ones(num_edges), -np.ones(len(child_edge))])
    rhs = np.zeros(num_beliefs)
    rhs[root_beliefs] = 1.0
    return sp.csr_array((vals, (rows, cols)), shape=(num_beliefs, num_edges)), rhs


def dag_leaf_rows(leaf_index, leaf_edge, root_leaves, num_leaves: int, num_edges: int
                  ) -> tuple[sp.csr_array, np.ndarray]:
    """(R, r) with a flow's leaf realisation R x + r: ``leaf_edge[i]`` reaches leaf
    ``leaf_index[i]``; the ``root_leaves`` are reached before any decision of the DAG's owner."""
    R = sp.csr_array((np.ones(len(leaf_edge)), (leaf_index, leaf_edge)),
                     shape=(num_leaves, num_edges))
    r = np.zeros(num_leaves)
    r[root_leaves] = 1.0
    return R, r

@dataclass
class BeliefDag:
    """The TB-DAG of a team (module docstring). Team members are 0-based player numbers."""

    members: tuple[int, ...]
    num_leaves: int
    belief_infosets: list[tuple[tuple[int, int], ...]]   # per belief: (member, infoset) it decides
    belief_histories: list[int]                          # per belief: how many histories
    edge_belief: np.ndarray                              # (E,) the belief each edge leaves
    edge_actions: list[tuple[int, ...]]                  # per edge: action index per belief infoset
    child_edge: np.ndarray                               # (C,) edge of each (edge, child) pair
    child_belief: np.ndarray                             # (C,) child belief of that pair
    leaf_edge: np.ndarray                                # (L,) edge of each (edge, leaf) pair
    leaf_index: np.ndarray                               # (L,) leaf (terminal index) of that pair
    root_beliefs: np.ndarray                             # beliefs with inflow 1
    root_leaves: np.ndarray                              # leaves reached before any team decision
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def num_beliefs(self) -> int:
        return len(self.belief_infosets)

    @property
    def num_edges(self) -> int:
        return int(self.edge_belief.size)

    def flow_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(A, b) with A x = b the flow conservation rows of the module docstring, one per belief."""
        return dag_flow_rows(self.edge_belief, self.child_belief, self.child_edge,
                             self.root_beliefs, self.num_beliefs)

    def leaf_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(R, r) with ω = R x + r (module docstring): R is |Z| × E, r the leaves before any team
        decision."""
        return dag_leaf_rows(self.leaf_index, self.leaf_edge, self.root_leaves, self.num_leaves,
                             self.num_edges)

    def realization(self, x: np.ndarray) -> np.ndarray:
        """ω[z] of a flow x."""
        R, r = self.leaf_matrix()
        return R @ np.asarray(x, dtype=float) + r

    def size(self) -> dict:
        return {"beliefs": self.num_beliefs, "edges": self.num_edges, **self.stats}

    def decompose(self, x: np.ndarray, tolerance: float = 1e-9,
                  max_strategies: int = 100_000) -> tuple[np.ndarray, list[dict]]:
        """A flow as a convex combination of pure flows (one prescription at every reached
        belief), greedily: follow from the roots the edge with the largest remaining flow at every
        reached belief, take the smallest remaining flow λ on the chosen edges, subtract λ, repeat
        (every round empties an edge, so at most E rounds; the standard decomposition of a
        realization plan, Farina 2023 §2.1, on the DAG).

        Returns (λ, strategies): each strategy maps (member, infoset) to the action index the
        prescriptions of its reached beliefs give. Raises InvalidGameError if a pure flow would
        decide one information set twice (the construction's invariant).
        """
        x = np.clip(np.asarray(x, dtype=float), 0.0, None).copy()
        out_edges: list[list[int]] = [[] for _ in range(self.num_beliefs)]
        for e, b in enumerate(self.edge_belief.tolist()):
            out_edges[b].append(e)
        children: list[list[int]] = [[] for _ in range(self.num_edges)]
        for e, c in zip(self.child_edge.tolist(), self.child_belief.tolist()):
            children[e].append(c)
        roots = self.root_beliefs.tolist()
        weights, strategies = [], []
        remaining = 1.0
        while remaining > tolerance and len(weights) < max_strategies:
            chosen: list[int] = []
            stack = list(roots)
            while stack:
                b = stack.pop()
                edges = out_edges[b]
                e = max(edges, key=lambda k: x[k])
                chosen.append(e)
                stack.extend(children[e])
            lam = min((x[e] for e in chosen), default=remaining)
            if lam <= tolerance * 1e-3:
                break
            lam = min(lam, remaining)
            x[chosen] -= lam
            remaining -= lam
            decided: dict[tuple[int, int], int] = {}
            for e in chosen:
                for key, a in zip(self.belief_infosets[int(self.edge_belief[e])],
                                  self.edge_actions[e]):
                    if decided.setdefault(key, a) != a:
                        raise InvalidGameError(
                            f"team belief DAG: information set {key} is decided twice in one "
                            "pure flow; the game is not timeable for the team")
            weights.append(lam)
            strategies.append(decided)
        lam = np.array(weights, dtype=float)
        return lam / lam.sum() if lam.size else lam, strategies


def team_tree_game(game) -> Game:
    """The explicit tree of a game: a :class:`Game` as is; a structured game (private signals)
    re-expanded from its rules when they can be walked (:func:`lpgame.game.rules.expand`, the same
    information-set labels); otherwise InvalidGameError."""
    if isinstance(game, Game):
        return game
    rules = getattr(game, "rules", None)
    if rules is not None and hasattr(rules, "initial_state"):
        from lpgame.game.rules import expand
        return expand(rules, name=game.name)
    raise InvalidGameError(f"{getattr(game, 'name', game)}: the team belief DAG needs the game's "
                           "explicit tree (a Game, or a structured game with walkable rules)")


def build_team_belief_dag(game: Game, members: tuple[int, ...],
                          max_edges: int = DEFAULT_MAX_EDGES) -> BeliefDag:
    """The TB-DAG of team ``members`` (0-based) in the explicit ``game`` (module docstring).

    Leaves are numbered as in ``game.index`` (the sequence form's terminal order). Raises
    :class:`~lpgame.errors.ModelTooLargeError` past ``max_edges`` prescriptions and
    :class:`~lpgame.errors.InvalidGameError` if the game is not timeable for the team.

    The tree is read from its node arrays (:func:`lpgame.game.tree_arrays.tree_arrays`; no
    networkx graph), histories are numbered in preorder, and the breadth-first search over beliefs
    runs one numpy batch per group of queued beliefs (:func:`_expand`); beliefs get their numbers
    in the order a one-belief-at-a-time search would give them. The children of a batch are
    grouped by a random 64-bit sum over their histories and checked history by history
    (:meth:`_TeamTree.distinct`), so each distinct child is looked up once per batch.

    The cap is checked against the prescriptions of every belief *found* (a sound lower bound on
    the DAG's size: they are all in it), so a DAG past ``max_edges`` is refused early, with that
    bound in the message. Python's cyclic garbage collector is paused during the construction
    (it makes many tuples, none in a cycle).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(game, members, max_edges)
    finally:
        if enabled:
            gc.enable()


def _build(game: Game, members: tuple[int, ...], max_edges: int) -> BeliefDag:
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
    key_list = tree.key_of.tolist()
    actions_list = key_actions.tolist()
    found = [0]               # the prescriptions of every belief found: a lower bound on the DAG's

    def belief(nodes: tuple[int, ...]) -> int:
        b = belief_id.get(nodes)
        if b is None:
            b = belief_id[nodes] = len(belief_nodes)
            belief_nodes.append(nodes)
            found[0] += math.prod(actions_list[k] for k in {key_list[v] for v in nodes})
        return b

    root_nodes = np.flatnonzero((tree.hang < 0) & (tree.code == 1))
    root_leaves = tree.leaf[(tree.hang < 0) & (tree.code == 0)]
    if tree.code[0] == 1:
        root_nodes, root_leaves = np.zeros(1, dtype=np.int64), root_leaves[:0]
    _, r_start, r_length, r_nodes = tree.components(np.zeros(root_nodes.size, np.int64),
                                                    root_nodes)
    r_list = r_nodes.tolist()
    roots = [belief(tuple(r_list[a:a + k])) for a, k in zip(r_start.tolist(), r_length.tolist())]
    edge_belief: list[int] = []
    edge_actions: list[tuple[int, ...]] = []
    child_edge: list[np.ndarray] = []
    child_belief: list[np.ndarray] = []
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
            keys = sorted({key_list[v] for v in nodes})
            max_infosets = max(max_infosets, len(keys))
            belief_infosets.append(tuple((int(key_member[k]), int(k - key_offset[k])) for k in keys))
            sizes = [int(key_actions[k]) for k in keys]
            count = math.prod(sizes)
            if found[0] > max_edges:
                raise ModelTooLargeError(
                    f"{game.name}: the team belief DAG has more than {max_edges:,} prescriptions: "
                    f"the {len(belief_nodes):,} beliefs found (after expanding {b:,}) already "
                    f"have {found[0]:,}; use method='column_generation' or a larger "
                    "max_dag_edges")
            batch.append((len(edge_belief), keys, sizes, count))
            edge_belief.extend([b] * count)
            edge_actions.extend(itertools.product(*(range(a) for a in sizes)))
            pairs += count * len(nodes)
        first = batch[0][0]
        edges, leaves, (g_edge, g_start, g_length, g_nodes) = tree.expand(
            [belief_nodes[b] for b in range(done - len(batch), done)], batch)
        leaf_edge.append(edges + first)
        leaf_index.append(leaves)
        # one dictionary look-up per distinct child, in order of first occurrence (the numbers
        # a one-child-at-a-time search gives)
        firsts, inverse = tree.distinct(g_start, g_length, g_nodes)
        node_list = g_nodes.tolist()
        ids = np.array([belief(tuple(node_list[a:a + k])) for a, k in
                        zip(g_start[firsts].tolist(), g_length[firsts].tolist())], dtype=np.int64)
        child_edge.append(g_edge + first)
        child_belief.append(ids[inverse] if inverse.size else inverse)
    histories = [len(nodes) for nodes in belief_nodes]
    return BeliefDag(
        members=members, num_leaves=index.num_terminals, belief_infosets=belief_infosets,
        belief_histories=histories,
        edge_belief=np.array(edge_belief, dtype=np.int64), edge_actions=edge_actions,
        child_edge=np.concatenate(child_edge).astype(np.int64) if child_edge
        else np.zeros(0, np.int64),
        child_belief=np.concatenate(child_belief).astype(np.int64) if child_belief
        else np.zeros(0, np.int64),
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
        self.node_hash = np.random.default_rng(0x7EA3).integers(
            0, 2**64 - 1, size=(2, n), dtype=np.uint64, endpoint=True)
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

    def components(self, pair_edge: np.ndarray, pair_node: np.ndarray) -> tuple:
        """The connected components of the team nodes reached by each edge (pairs (edge, node),
        each node at most once per edge), ordered by edge, then by smallest node (the order of
        sorted tuples, the components being disjoint): (edge, start, length) per component and
        the nodes, sorted within each component, at nodes[start:start + length]."""
        q = pair_node.size
        if q == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
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
        length = np.diff(np.append(begin, q))
        rank = np.lexsort((nodes[begin], edge[begin]))
        return edge[begin][rank], begin[rank], length[rank], nodes

    def distinct(self, start: np.ndarray, length: np.ndarray, nodes: np.ndarray) -> tuple:
        """The distinct node sets among the components (start, length) into ``nodes``: (first,
        inverse), ``first`` the component where each distinct set occurs first (increasing),
        ``inverse`` each component's distinct set. Sets are grouped by a random 64-bit sum over
        their nodes (xor their size) and every component is compared node by node with the first
        of its group; should two sets collide, by two sums and the size, and failing that by the
        node tuples themselves. So the grouping is exact."""
        if start.size == 0:
            return start, start
        storage = np.argsort(start)           # the components tile ``nodes``; in storage order
        h1 = np.empty(start.size, dtype=np.uint64)
        h2 = np.empty(start.size, dtype=np.uint64)
        h1[storage] = np.add.reduceat(self.node_hash[0][nodes], start[storage])
        h2[storage] = np.add.reduceat(self.node_hash[1][nodes], start[storage])
        first, inverse = self._group(h1 ^ length.astype(np.uint64), start, length, nodes)
        if first is None:                     # 64 bits collided: group by both sums and size
            first, inverse = self._group(np.stack([h1, h2, length.astype(np.uint64)], axis=1),
                                         start, length, nodes)
        if first is None:                     # collided again: group the node tuples
            node_list, index, inverse = nodes.tolist(), {}, np.empty(start.size, np.int64)
            for c, (a, k) in enumerate(zip(start.tolist(), length.tolist())):
                inverse[c] = index.setdefault(tuple(node_list[a:a + k]), len(index))
            first = np.unique(inverse, return_index=True)[1]
        return first, inverse

    @staticmethod
    def _group(keys: np.ndarray, start: np.ndarray, length: np.ndarray, nodes: np.ndarray):
        """(first, inverse) of the components grouped by ``keys`` (rows), numbered by first
        occurrence, or (None, None) if two components of one group differ."""
        _, first, inverse = np.unique(keys, axis=0 if keys.ndim > 1 else None,
                                      return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        by_first = np.argsort(first)
        renumber = np.empty(first.size, dtype=np.int64)
        renumber[by_first] = np.arange(first.size)
        first, inverse = first[by_first], renumber[inverse]
        rep = first[inverse]
        if not np.array_equal(length[rep], length) or not np.array_equal(
                gather_ranges(start[rep], length, nodes), gather_ranges(start, length, nodes)):
            return None, None
        return first, inverse

    def expand(self, beliefs: list[tuple[int, ...]], batch: list) -> tuple:
        """For a batch of beliefs (their histories, and per belief its first edge, keys, action
        counts and edge count): (leaf_edge, leaf_index, child groups), edges numbered from the
        batch's first edge. Edge e of a belief prescribes action (e // stride_k) mod |A_k| at
        its k-th information set (itertools.product order), so history v's reached slot is
        slot(v) + that action."""
        first = batch[0][0]
        size_b = np.fromiter(map(len, beliefs), dtype=np.int64, count=len(beliefs))
        node_cat = np.fromiter(itertools.chain.from_iterable(beliefs), dtype=np.int64,
                               count=int(size_b.sum()))
        # per belief key: its action count and stride (itertools.product order: the last key
        # varies fastest); per history: the position of its key among its belief's keys
        key_cat, size_k, stride_k, key_count = [], [], [], []
        for _, keys, sizes, count in batch:
            key_cat.extend(keys)
            size_k.extend(sizes)
            acc = count
            for a in sizes:
                acc //= a
                stride_k.append(acc)
            key_count.append(len(keys))
        key_count = np.array(key_count, dtype=np.int64)
        key_off = np.cumsum(key_count) - key_count
        belief_of_node = np.repeat(np.arange(len(batch)), size_b)
        flat = np.repeat(np.arange(len(batch)), key_count) * self.num_keys + np.array(
            key_cat, dtype=np.int64)
        where = np.searchsorted(flat, belief_of_node * self.num_keys + self.key_of[node_cat])
        stride_cat = np.array(stride_k, dtype=np.int64)[where]
        acts_cat = np.array(size_k, dtype=np.int64)[where]
        rank_cat = where - key_off[belief_of_node]
        count_b = np.array([c for *_, c in batch], dtype=np.int64)
        edge0 = np.array([e0 - first for e0, *_ in batch], dtype=np.int64)
        node_off = np.concatenate([[0], np.cumsum(size_b)[:-1]])
        per_b = count_b * size_b
        total = int(per_b.sum())
        belief_of = np.repeat(np.arange(len(batch)), per_b)
        local = np.arange(total) - np.repeat(np.concatenate([[0], np.cumsum(per_b)[:-1]]), per_b)
        e_local = local // size_b[belief_of]
        member = node_off[belief_of] + local % size_b[belief_of]
        edge = edge0[belief_of] + e_local
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
