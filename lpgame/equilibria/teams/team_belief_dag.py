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

import itertools
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL

DEFAULT_MAX_EDGES = 3_000_000
"""Most prescriptions (edges) the construction builds before it stops with ModelTooLargeError."""


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
        E, B = self.num_edges, self.num_beliefs
        rows = np.concatenate([self.edge_belief, self.child_belief])
        cols = np.concatenate([np.arange(E), self.child_edge])
        vals = np.concatenate([np.ones(E), -np.ones(self.child_edge.size)])
        rhs = np.zeros(B)
        rhs[self.root_beliefs] = 1.0
        return sp.csr_array((vals, (rows, cols)), shape=(B, E)), rhs

    def leaf_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(R, r) with ω = R x + r (module docstring): R is |Z| × E, r the leaves before any team
        decision."""
        R = sp.csr_array((np.ones(self.leaf_edge.size), (self.leaf_index, self.leaf_edge)),
                         shape=(self.num_leaves, self.num_edges))
        r = np.zeros(self.num_leaves)
        r[self.root_leaves] = 1.0
        return R, r

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
    """
    import time
    start = time.perf_counter()
    members = tuple(sorted(int(m) for m in members))
    team = set(members)
    index = game.index
    G = game.graph
    leaf_of = {node: k for k, node in enumerate(index.terminal_nodes)}
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

    # ---- one pass over the tree: children in action order, team nodes, next information sets
    ids: dict = {}
    kind: list[int] = []          # 0 terminal, 1 team node, 2 other (chance, non-team player)
    key_of: list[int] = []        # team node: its information-set key; else −1
    children: list[list[int]] = []
    leaf: list[int] = []
    order = []
    stack = [game.root]
    while stack:
        node = stack.pop()
        u = len(kind)
        ids[node] = u
        order.append(node)
        data = G.nodes[node]
        k = data["kind"]
        children.append([])
        if k == TERMINAL:
            kind.append(0)
            key_of.append(-1)
            leaf.append(leaf_of[node])
            continue
        leaf.append(-1)
        succ = list(G.successors(node))
        if k == DECISION and int(data["player"]) in team:
            p = int(data["player"])
            j = index.players[p].infoset_of_label[data["infoset"]]
            kind.append(1)
            key_of.append(offsets[p] + j)
        else:
            assert k in (CHANCE, DECISION)
            kind.append(2)
            key_of.append(-1)
        stack.extend(reversed(succ))
    n = len(kind)
    for node in order:
        u = ids[node]
        children[u] = [ids[c] for c in _ordered_children(G, node, kind[u], key_of[u],
                                                          key_member, key_offset, index)]
    # bottom-up (reverse preorder): next information sets of every member, and steps top-down
    nxt: list[frozenset] = [frozenset()] * n
    for u in range(n - 1, -1, -1):
        if kind[u] == 0:
            continue
        below = frozenset().union(*(nxt[c] for c in children[u]))
        if kind[u] == 1:
            m = int(key_member[key_of[u]])
            below = frozenset(k for k in below if key_member[k] != m) | {key_of[u]}
        nxt[u] = below
    step = np.full(n, -1, dtype=np.int64)
    key_step = np.full(total, -1, dtype=np.int64)
    walk = [(0, 0)]
    while walk:
        u, s = walk.pop()
        if kind[u] == 1:
            ku = key_of[u]
            if key_step[ku] == -1:
                key_step[ku] = s
            elif key_step[ku] != s:
                raise InvalidGameError(
                    f"{game.name}: the histories of team information set "
                    f"{index.players[int(key_member[ku])].infoset_labels[ku - int(key_offset[ku])]!r}"
                    " follow different numbers of team decisions; the team belief DAG needs a game "
                    "that is timeable for the team (use method='column_generation')")
            step[u] = s
            walk.extend((c, s + 1) for c in children[u])
        elif kind[u] == 2:
            walk.extend((c, s) for c in children[u])

    def frontier(u: int) -> tuple[list[int], list[int]]:
        """Team nodes and leaves met from node u through non-team moves."""
        nodes, leaves = [], []
        todo = [u]
        while todo:
            v = todo.pop()
            if kind[v] == 1:
                nodes.append(v)
            elif kind[v] == 0:
                leaves.append(leaf[v])
            else:
                todo.extend(children[v])
        return nodes, leaves

    def components(nodes: list[int]) -> list[tuple[int, ...]]:
        parent = {v: v for v in nodes}

        def find(v):
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v
        owner: dict[int, int] = {}
        for v in nodes:
            for k in nxt[v]:
                w = owner.setdefault(k, v)
                if w != v:
                    a, b = find(v), find(w)
                    if a != b:
                        parent[a] = b
        groups: dict[int, list[int]] = {}
        for v in nodes:
            groups.setdefault(find(v), []).append(v)
        return sorted(tuple(sorted(g)) for g in groups.values())

    belief_id: dict[tuple[int, ...], int] = {}
    belief_nodes: list[tuple[int, ...]] = []
    queue: deque[int] = deque()

    def belief(nodes: tuple[int, ...]) -> int:
        b = belief_id.get(nodes)
        if b is None:
            b = belief_id[nodes] = len(belief_nodes)
            belief_nodes.append(nodes)
            queue.append(b)
        return b

    root_nodes, root_leaves = frontier(0)
    roots = [belief(c) for c in components(root_nodes)]
    edge_belief: list[int] = []
    edge_actions: list[tuple[int, ...]] = []
    child_edge: list[int] = []
    child_belief: list[int] = []
    leaf_edge: list[int] = []
    leaf_index: list[int] = []
    belief_infosets: list[tuple[tuple[int, int], ...]] = []
    max_infosets = 0
    while queue:
        b = queue.popleft()
        nodes = belief_nodes[b]
        keys = sorted({key_of[v] for v in nodes})
        max_infosets = max(max_infosets, len(keys))
        while len(belief_infosets) <= b:
            belief_infosets.append(())
        belief_infosets[b] = tuple((int(key_member[k]), int(k - key_offset[k])) for k in keys)
        count = math.prod(int(key_actions[k]) for k in keys)
        if len(edge_belief) + count > max_edges:
            raise ModelTooLargeError(
                f"{game.name}: the team belief DAG passes {max_edges} prescriptions (a belief "
                f"with {len(keys)} information sets has {count}); use "
                "method='column_generation' or a larger max_dag_edges")
        # what each (information set, action) reaches: frontier nodes and leaves
        reach: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        for v in nodes:
            for a, c in enumerate(children[v]):
                got = reach.setdefault((key_of[v], a), ([], []))
                f_nodes, f_leaves = frontier(c)
                got[0].extend(f_nodes)
                got[1].extend(f_leaves)
        for actions in itertools.product(*(range(int(key_actions[k])) for k in keys)):
            e = len(edge_belief)
            edge_belief.append(b)
            edge_actions.append(tuple(actions))
            reached: list[int] = []
            for k, a in zip(keys, actions):
                f_nodes, f_leaves = reach[(k, a)]
                reached.extend(f_nodes)
                leaf_edge.extend([e] * len(f_leaves))
                leaf_index.extend(f_leaves)
            for comp in components(reached):
                child_edge.append(e)
                child_belief.append(belief(comp))
    histories = [len(nodes) for nodes in belief_nodes]
    return BeliefDag(
        members=members, num_leaves=index.num_terminals, belief_infosets=belief_infosets,
        belief_histories=histories,
        edge_belief=np.array(edge_belief, dtype=np.int64), edge_actions=edge_actions,
        child_edge=np.array(child_edge, dtype=np.int64),
        child_belief=np.array(child_belief, dtype=np.int64),
        leaf_edge=np.array(leaf_edge, dtype=np.int64),
        leaf_index=np.array(leaf_index, dtype=np.int64),
        root_beliefs=np.array(roots, dtype=np.int64),
        root_leaves=np.array(sorted(root_leaves), dtype=np.int64),
        seconds=time.perf_counter() - start,
        stats={"roots": len(roots), "max_infosets_per_belief": max_infosets,
               "max_histories_per_belief": max(histories, default=0),
               "trivial_beliefs": sum(1 for b in belief_infosets
                                      if math.prod(int(key_actions[offsets[m] + j])
                                                   for m, j in b) == 1)})


def _ordered_children(graph, node, kind_u, key_u, key_member, key_offset, index) -> list:
    """Children of a node; a team node's in its information set's action order."""
    succ = list(graph.successors(node))
    if kind_u == 1:
        m = int(key_member[key_u])
        j = key_u - int(key_offset[key_u])
        rank = {a: r for r, a in enumerate(index.players[m].infoset_actions[j])}
        succ.sort(key=lambda c: rank[graph.edges[node, c]["action"]])
    return succ
