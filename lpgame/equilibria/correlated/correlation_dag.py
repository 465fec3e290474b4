"""The correlation DAG: a mediator's recommendations and every single trigger deviation from them,
as the flows of one team belief DAG, for any number of players.

**Sources.** Zhang, Farina, Celli & Sandholm, "Optimal correlated equilibria in general-sum
extensive-form games: fixed-parameter algorithms, hardness, and two-sided column-generation"
(EC 2022; Mathematics of Operations Research, 2025) show that the set Ξ of correlation plans is a
projection of the flow polytope of a team belief DAG built for the mediator; the team belief DAG
(TB-DAG) is that of Zhang, Farina & Sandholm (ICML 2023), built for teams in
:mod:`lpgame.equilibria.teams.team_belief_dag`. The construction below is derived here from those
definitions and from Farina 2023, Def. 8.1–8.2 (notes/farina-thesis.md §1.6); it is lpgame's own.

**What the LP needs** (Farina 2023, Lemma 9.2 and App. 9.B, written for n players). For μ over
joint pure plans π = (π_1, …, π_n) and a trigger of player i with conditioning sequence c at
decision point j (EFCE: c = σ̂ = (j, a); EFCCE: c = p_j; NFCCE: c = ∅ at the first decision points),
the deviator's payoff below j is linear in the *trigger tuple* probabilities

    ξ[c ⊕_i σ_{-i}(z)] = P_μ(π_i[c] = 1 and π_l[σ_l(z)] = 1 for every l ≠ i),   z below j,

and the obedient payoff in the leaf probabilities ω(z) = ξ[σ(z)] = P_μ(every π_l[σ_l(z)] = 1).

**Augmented game G′.** The tree of the game, where all players form one team (the mediator), with
at every *gate* (a decision node h of player i, at information set j) a second way on: after the
team's prescription r at h, either the game follows r, or (a move of no one, like chance) player i
*deviates*: any action b at h is taken and every later node of player i on that path is a
non-team node (the deviator's, branching over all actions); the other players stay in the team
and keep their information sets, which are shared by all copies (the recommender cannot tell the
copies apart). There is at most one deviation per path. A leaf of G′ is (tag, z): tag −1 for the
follow copy, else the gate (h, r) (EFCE) or h (EFCCE, NFCCE: r is not remembered). The team's pure
plans in G′ are exactly the joint pure plans of the game, and the team realisation of a leaf is

    follow z:        Π_l π_l[σ_l(z)]                               = ω(z) for pure π,
    (h, r), z ≥ h:   π_i[σ_i(h) r] · Π_{l≠i} π_l[σ_l(z)]            = the EFCE trigger tuple (j, r),
    h, z ≥ h:        Σ_r of the above = π_i[σ_i(h)] · Π_{l≠i} …     = the EFCCE tuple (p_j),

and with gates only at each player's first decision points the last one is the NFCCE tuple
(c = ∅). So Ξ's needed entries are linear images of G′'s team realisation vectors, and the
convex hull of those is the flow polytope of G′'s TB-DAG (Zhang, Farina & Sandholm 2023).

**The DAG of G′** (the TB-DAG construction with all players as the team). A *stop* is a decision
node of G′: a team node, or a deviator's node (not a team decision: it stands where the TB-DAG of
G′ padded with one-action team nodes would put a trivial decision, so that every information set
is met after the same number of steps, the TB-DAG's timeability condition). From a stop, the game
runs through chance (and the deviation choice) to the next stops and leaves: its frontier. Two
stops of one frontier are *connected* when some team member has a common next information set
below both (for a follow-copy stop: every player's; for a deviation copy: every player's but the
deviator's). A *belief* is a connected component; at a belief the mediator picks a *prescription*,
one action at every team information set meeting it; the reached stops (through the
prescription, the gates' deviation branches and the deviator's nodes' every child) split into
components again, memoised by their set of stops (a DAG). With one flow variable x[e] ≥ 0 per
edge e = (belief, prescription):

    Σ_{e out of B} x[e] = [B is a root] + Σ_{e: B is a child of e} x[e],
    realisation(leaf) = [leaf before any stop] + Σ_{e: the leaf hangs off e} x[e].

**Condition.** The game must be timeable for the whole set of players: every information set's
nodes have the same number of decision nodes (of any player) above them (true where actions are
public, e.g. Kuhn, Leduc, Goofspiel); otherwise :class:`~lpgame.errors.InvalidGameError`.

**Size.** The DAG is exponential in the private information of the players (a belief holds the
histories all players' recommendations still allow). ``max_edges`` stops the construction with
:class:`~lpgame.errors.ModelTooLargeError`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.equilibria.teams.team_belief_dag import dag_flow_rows, dag_leaf_rows
from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL

DAG_CONCEPTS = ("efce", "efcce", "nfcce")
DEFAULT_MAX_EDGES = 2_000_000
"""Most prescriptions (edges) built before the construction stops with ModelTooLargeError."""
FALLBACK = ("efce with method='column_generation' (optionally target_gap), or the normal-form "
            "concepts ce / cce")
"""What still applies to a game whose correlation DAG is too large or that is not timeable."""
REPORT_SECONDS = 1.0
"""Seconds between progress reports of the construction (the figures: beliefs expanded, found,
prescriptions, and the prescriptions predicted at the end: so far × found / expanded)."""


@dataclass
class CorrelationDag:
    """The correlation DAG of a game for one concept (module docstring). Keys number the players'
    information sets globally (player by player); tags number the gates (deviation copies)."""

    concept: str
    num_players: int
    key_player: np.ndarray                    # (K,) owner of each information-set key
    key_infoset: np.ndarray                   # (K,) its information set within the player
    belief_keys: list[tuple[int, ...]]        # per belief: the team keys it decides
    edge_belief: np.ndarray                   # (E,)
    edge_actions: list[tuple[int, ...]]       # per edge: the action index per belief key
    child_edge: np.ndarray
    child_belief: np.ndarray
    leaf_edge: np.ndarray                     # (edge, G′ leaf) pairs
    leaf_id: np.ndarray
    root_beliefs: np.ndarray
    root_leaves: np.ndarray                   # G′ leaves met before any stop
    leaf_tag: np.ndarray                      # per G′ leaf: −1 (follow) or its gate tag
    leaf_terminal: np.ndarray                 # per G′ leaf: the game's leaf (sequence-form order)
    tag_player: np.ndarray                    # per tag: the deviator
    tag_infoset: np.ndarray                   # per tag: the deviator's information set (gate's)
    tag_action: np.ndarray                    # per tag: the recommended action (EFCE), else −1
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def num_beliefs(self) -> int:
        return len(self.belief_keys)

    @property
    def num_edges(self) -> int:
        return int(self.edge_belief.size)

    @property
    def num_leaves(self) -> int:
        return int(self.leaf_tag.size)

    def size(self) -> dict:
        return {"beliefs": self.num_beliefs, "edges": self.num_edges,
                "augmented_leaves": self.num_leaves, **self.stats}

    def flow_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(A, b): the flow rows A x = b, one per belief."""
        return dag_flow_rows(self.edge_belief, self.child_belief, self.child_edge,
                             self.root_beliefs, self.num_beliefs)

    def leaf_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(R, r): the G′ leaves' realisation R x + r."""
        return dag_leaf_rows(self.leaf_id, self.leaf_edge, self.root_leaves, self.num_leaves,
                             self.num_edges)

    def decompose(self, x, tolerance: float = 1e-12) -> tuple[list, list[dict[int, int]]]:
        """A flow as a convex combination of pure flows (one prescription at every reached
        belief): from the roots, follow at each reached belief the edge with the most remaining
        flow, take the smallest remaining flow λ on the chosen edges, subtract it, repeat (each
        round empties an edge). Fractions in, Fractions out (exactly, until nothing remains);
        floats stop below ``tolerance``. Returns (weights, decisions): each decision maps an
        information-set key to the action index the pure flow prescribes there. Raises
        InvalidGameError if a pure flow decides a key twice differently (the DAG's invariant)."""
        exact = any(isinstance(v, Fraction) for v in x)
        x = [Fraction(v) for v in x] if exact else [max(0.0, float(v)) for v in x]
        out_edges: list[list[int]] = [[] for _ in range(self.num_beliefs)]
        for e, b in enumerate(self.edge_belief.tolist()):
            out_edges[b].append(e)
        children: list[list[int]] = [[] for _ in range(self.num_edges)]
        for e, c in zip(self.child_edge.tolist(), self.child_belief.tolist()):
            children[e].append(c)
        remaining = Fraction(1) if exact else 1.0
        weights, decisions = [], []
        while remaining > (0 if exact else tolerance):
            chosen, stack = [], list(self.root_beliefs.tolist())
            while stack:
                b = stack.pop()
                e = max(out_edges[b], key=lambda k: x[k])
                chosen.append(e)
                stack.extend(children[e])
            lam = min((x[e] for e in chosen), default=remaining)
            if lam <= (0 if exact else tolerance * 1e-3):
                if exact:
                    raise InvalidGameError("correlation DAG: the flow does not decompose exactly "
                                           "(it violates flow conservation)")
                break
            lam = min(lam, remaining)
            for e in chosen:
                x[e] -= lam
            remaining -= lam
            decided: dict[int, int] = {}
            for e in chosen:
                for k, a in zip(self.belief_keys[int(self.edge_belief[e])], self.edge_actions[e]):
                    if decided.setdefault(k, a) != a:
                        raise InvalidGameError(
                            f"correlation DAG: information set {k} is decided twice in one pure "
                            "flow; the game is not timeable for its players")
            weights.append(lam)
            decisions.append(decided)
        if not exact and weights:
            total = sum(weights)
            weights = [w / total for w in weights]
        return weights, decisions


def build_correlation_dag(game: Game, concept: str = "efce",
                          max_edges: int = DEFAULT_MAX_EDGES) -> CorrelationDag:
    """The correlation DAG of ``concept`` (``efce``, ``efcce`` or ``nfcce``) for the explicit
    ``game`` (module docstring). Raises ModelTooLargeError past ``max_edges`` prescriptions and
    InvalidGameError where the game is not timeable."""
    if concept not in DAG_CONCEPTS:
        raise InvalidGameError(f"correlation DAG: unknown concept {concept!r}; choose one of "
                               f"{', '.join(DAG_CONCEPTS)}")
    start = time.perf_counter()
    index, G = game.index, game.graph
    n = game.num_players
    leaf_of = {node: k for k, node in enumerate(index.terminal_nodes)}
    offsets = np.concatenate([[0], np.cumsum([index.players[p].num_infosets for p in range(n)])])
    K = int(offsets[-1])
    key_player = np.repeat(np.arange(n), np.diff(offsets)).astype(np.int64)
    key_infoset = (np.arange(K) - offsets[key_player]).astype(np.int64)
    key_actions = np.concatenate([index.players[p].infoset_num_actions for p in range(n)]) \
        if K else np.zeros(0, np.int64)
    first_point = np.concatenate([np.asarray(index.players[p].infoset_parent_seq) == 0
                                  for p in range(n)]) if K else np.zeros(0, bool)

    # ---- one pass over the tree: kinds, keys, children in action order
    kind: list[int] = []          # 0 terminal, 1 decision, 2 chance
    key_of: list[int] = []
    children: list[list[int]] = []
    leaf: list[int] = []
    ids, order, stack = {}, [], [game.root]
    while stack:
        node = stack.pop()
        ids[node] = len(kind)
        order.append(node)
        data = G.nodes[node]
        children.append([])
        if data["kind"] == TERMINAL:
            kind.append(0)
            key_of.append(-1)
            leaf.append(leaf_of[node])
            continue
        leaf.append(-1)
        if data["kind"] == DECISION:
            p = int(data["player"])
            kind.append(1)
            key_of.append(int(offsets[p]) + index.players[p].infoset_of_label[data["infoset"]])
        else:
            assert data["kind"] == CHANCE
            kind.append(2)
            key_of.append(-1)
        stack.extend(reversed(list(G.successors(node))))
    N = len(kind)
    for node in order:
        u = ids[node]
        succ = list(G.successors(node))
        if kind[u] == 1:
            k = key_of[u]
            p = int(key_player[k])
            rank = {a: r for r, a in enumerate(index.players[p].infoset_actions[key_infoset[k]])}
            succ.sort(key=lambda c, node=node, rank=rank: rank[G.edges[node, c]["action"]])
        children[u] = [ids[c] for c in succ]
    # next information sets of every player below each node (bottom-up) and timeability
    nxt: list[frozenset] = [frozenset()] * N
    for u in range(N - 1, -1, -1):
        if kind[u] == 0:
            continue
        below = frozenset().union(*(nxt[c] for c in children[u]))
        if kind[u] == 1:
            p = int(key_player[key_of[u]])
            below = frozenset(k for k in below if key_player[k] != p) | {key_of[u]}
        nxt[u] = below
    key_step = np.full(K, -1, dtype=np.int64)
    walk = [(0, 0)]
    while walk:
        u, s = walk.pop()
        if kind[u] == 1:
            k = key_of[u]
            if key_step[k] == -1:
                key_step[k] = s
            elif key_step[k] != s:
                p = int(key_player[k])
                raise InvalidGameError(
                    f"{game.name}: the histories of information set "
                    f"{index.players[p].infoset_labels[key_infoset[k]]!r} of player {p + 1} "
                    "follow different numbers of decisions; the correlation DAG needs a game "
                    f"that is timeable for all its players (use {FALLBACK})")
            s += 1
        walk.extend((c, s) for c in children[u])

    split = concept == "efce"
    gate = [kind[u] == 1 and (concept != "nfcce" or bool(first_point[key_of[u]]))
            for u in range(N)]
    tag_id: dict[tuple[int, int], int] = {}
    tag_player: list[int] = []
    tag_key: list[int] = []
    tag_action: list[int] = []

    def tag(u: int, r: int) -> int:
        t = tag_id.get((u, r))
        if t is None:
            t = tag_id[(u, r)] = len(tag_player)
            tag_player.append(int(key_player[key_of[u]]))
            tag_key.append(key_of[u])
            tag_action.append(r)
        return t

    leaf_ids: dict[tuple[int, int], int] = {}
    leaf_tag: list[int] = []
    leaf_terminal: list[int] = []

    def leaf_number(t: int, z: int) -> int:
        g = leaf_ids.get((t, z))
        if g is None:
            g = leaf_ids[(t, z)] = len(leaf_tag)
            leaf_tag.append(t)
            leaf_terminal.append(z)
        return g

    def deviator(state: tuple[int, int]) -> int:
        return -1 if state[1] < 0 else tag_player[state[1]]

    memo: dict[tuple[int, int], tuple[list, list]] = {}

    def frontier(state: tuple[int, int]) -> tuple[list, list]:
        """Stops and G′ leaves met from ``state`` through chance."""
        got = memo.get(state)
        if got is not None:
            return got
        stops, leaves, todo = [], [], [state[0]]
        t = state[1]
        while todo:
            v = todo.pop()
            if kind[v] == 1:
                stops.append((v, t))
            elif kind[v] == 0:
                leaves.append(leaf_number(t, leaf[v]))
            else:
                todo.extend(children[v])
        memo[state] = (stops, leaves)
        return stops, leaves

    def stop_keys(s: tuple[int, int]) -> frozenset:
        """The team's next information sets below stop ``s`` (those of its deviator excluded)."""
        dev = deviator(s)
        keys = nxt[s[0]]
        return keys if dev < 0 else frozenset(k for k in keys if key_player[k] != dev)

    def merge(keysets: list[frozenset]) -> list[list[int]]:
        """Groups of the indices of ``keysets`` joined where they share a key (union-find)."""
        parent = list(range(len(keysets)))

        def find(q: int) -> int:
            while parent[q] != q:
                parent[q] = parent[parent[q]]
                q = parent[q]
            return q
        owner: dict[int, int] = {}
        for q, keys in enumerate(keysets):
            for k in keys:
                w = owner.setdefault(k, q)
                if w != q:
                    x, y = find(q), find(w)
                    if x != y:
                        parent[x] = y
        groups: dict[int, list[int]] = {}
        for q in range(len(keysets)):
            groups.setdefault(find(q), []).append(q)
        return list(groups.values())

    def components(stops: list) -> list[tuple[tuple, frozenset]]:
        """The connected components of ``stops``, each with the team keys below it."""
        keysets = [stop_keys(s) for s in stops]
        return [(tuple(sorted(stops[q] for q in group)),
                 frozenset().union(*(keysets[q] for q in group))) for group in merge(keysets)]

    belief_id: dict[tuple, int] = {}
    belief_states: list[tuple] = []
    queue: deque[int] = deque()

    def belief(states: tuple) -> int:
        b = belief_id.get(states)
        if b is None:
            b = belief_id[states] = len(belief_states)
            belief_states.append(states)
            queue.append(b)
        return b

    root_stops, root_leaves = frontier((0, -1))
    roots = [belief(c) for c in sorted(stops for stops, _ in components(root_stops))]
    edge_belief: list[int] = []
    edge_actions: list[tuple[int, ...]] = []
    child_edge: list[int] = []
    child_belief: list[int] = []
    leaf_edge: list[int] = []
    leaf_index: list[int] = []
    belief_keys: list[tuple[int, ...]] = []
    max_keys = 0
    next_report = time.perf_counter() + REPORT_SECONDS
    while queue:
        b = queue.popleft()
        states = belief_states[b]
        team = [s for s in states if int(key_player[key_of[s[0]]]) != deviator(s)]
        team_set = set(team)
        keys = sorted({key_of[s[0]] for s in team})
        max_keys = max(max_keys, len(keys))
        belief_keys.append(tuple(keys))
        count = math.prod(int(key_actions[k]) for k in keys)
        if len(edge_belief) + count > max_edges:
            raise ModelTooLargeError(
                f"{game.name}: the {concept.upper()} correlation DAG passes {max_edges:,} "
                f"prescriptions (after {len(edge_belief):,} prescriptions at {b:,} beliefs, "
                f"{len(belief_states):,} beliefs found, a belief deciding {len(keys)} information "
                f"sets has {count:,}); raise max_dag_edges or use {FALLBACK}")
        # the deviators' nodes reach every child whatever the prescription
        fixed_stops: list = []
        fixed_leaves: list = []
        for s in states:
            if s not in team_set:
                for c in children[s[0]]:
                    f_stops, f_leaves = frontier((c, s[1]))
                    fixed_stops.extend(f_stops)
                    fixed_leaves.extend(f_leaves)
        reach: dict[tuple[int, int], tuple[list, list]] = {}
        for v, t in team:
            k = key_of[v]
            for r, c in enumerate(children[v]):
                got = reach.setdefault((k, r), ([], []))
                parts = [frontier((c, t))]
                if t < 0 and gate[v]:
                    g = tag(v, r if split else -1)
                    parts += [frontier((cb, g)) for cb in children[v]]
                for f_stops, f_leaves in parts:
                    got[0].extend(f_stops)
                    got[1].extend(f_leaves)
        # components within each prescription-independent part; per prescription they join
        # only through keys that two parts share
        fixed_parts = components(fixed_stops)
        parts = {ka: components(got[0]) for ka, got in reach.items()}
        seen: dict[int, int] = {}
        for comp in itertools.chain(fixed_parts, *parts.values()):
            for k in comp[1]:
                seen[k] = seen.get(k, 0) + 1
        shared = frozenset(k for k, c in seen.items() if c > 1)
        fixed_parts = [(stops, keys & shared) for stops, keys in fixed_parts]
        parts = {ka: [(stops, keys & shared) for stops, keys in got] for ka, got in parts.items()}
        for actions in itertools.product(*(range(int(key_actions[k])) for k in keys)):
            e = len(edge_belief)
            edge_belief.append(b)
            edge_actions.append(tuple(actions))
            alone: list[tuple] = []
            joined: list[tuple] = []
            leaves = list(fixed_leaves)
            for k, a in itertools.chain(((None, None),), zip(keys, actions)):
                for comp in (fixed_parts if k is None else parts[(k, a)]):
                    (joined if comp[1] else alone).append(comp)
                if k is not None:
                    leaves.extend(reach[(k, a)][1])
            leaf_edge.extend([e] * len(leaves))
            leaf_index.extend(leaves)
            found = [stops for stops, _ in alone]
            for group in merge([keys for _, keys in joined]):
                found.append(joined[group[0]][0] if len(group) == 1 else
                             tuple(sorted(s for q in group for s in joined[q][0])))
            for comp in sorted(found):
                child_edge.append(e)
                child_belief.append(belief(comp))
        if time.perf_counter() >= next_report:
            next_report = time.perf_counter() + REPORT_SECONDS
            processed = b + 1
            progress.report(f"{concept.upper()} correlation DAG", beliefs=processed,
                            found=len(belief_states), edges=len(edge_belief),
                            predicted_edges=int(len(edge_belief) * len(belief_states) / processed))
    i64 = np.int64
    return CorrelationDag(
        concept=concept, num_players=n, key_player=key_player, key_infoset=key_infoset,
        belief_keys=belief_keys, edge_belief=np.array(edge_belief, dtype=i64),
        edge_actions=edge_actions, child_edge=np.array(child_edge, dtype=i64),
        child_belief=np.array(child_belief, dtype=i64), leaf_edge=np.array(leaf_edge, dtype=i64),
        leaf_id=np.array(leaf_index, dtype=i64), root_beliefs=np.array(roots, dtype=i64),
        root_leaves=np.array(sorted(root_leaves), dtype=i64),
        leaf_tag=np.array(leaf_tag, dtype=i64), leaf_terminal=np.array(leaf_terminal, dtype=i64),
        tag_player=np.array(tag_player, dtype=i64),
        tag_infoset=key_infoset[np.array(tag_key, dtype=i64)] if tag_key else np.zeros(0, i64),
        tag_action=np.array(tag_action, dtype=i64), seconds=time.perf_counter() - start,
        stats={"roots": len(roots), "gates": len(tag_player),
               "max_infosets_per_belief": max_keys,
               "max_histories_per_belief": max((len(s) for s in belief_states), default=0)})


def reduced_plans(sf, dag: CorrelationDag, decisions: list[dict[int, int]]) -> list[np.ndarray]:
    """The joint reduced pure plans of pure flows: per player a (K × |Σ_p|) 0/1 array, sequence
    s = (j, a) on when its parent sequence is and the flow prescribes a at j. An information set
    the flow never decides is one no leaf probability depends on (module docstring); it gets its
    first action."""
    n = dag.num_players
    offsets = np.concatenate([[0], np.cumsum([sf.players[p].num_infosets for p in range(n)])])
    out = []
    for p in range(n):
        pl = sf.players[p]
        plans = np.zeros((len(decisions), pl.num_sequences), dtype=np.int8)
        plans[:, 0] = 1
        for q, decided in enumerate(decisions):
            row = plans[q]
            for s in range(1, pl.num_sequences):       # parents come before children
                j = int(pl.seq_infoset[s])
                chosen = decided.get(int(offsets[p]) + j, 0)
                row[s] = row[int(pl.infoset_parent_seq[j])] and chosen == int(pl.seq_action[s])
        out.append(plans)
    return out
