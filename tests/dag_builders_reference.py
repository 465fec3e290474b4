"""The correlation DAG's construction as it was before the faster builder (lpgame at cc59adf),
kept verbatim as the reference the new builder must reproduce exactly (tests/test_dag_builders.py).
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque

import numpy as np

from lpgame import progress
from lpgame.equilibria.correlated.correlation_dag import (
    DAG_CONCEPTS,
    DEFAULT_MAX_EDGES,
    FALLBACK,
    REPORT_SECONDS,
    CorrelationDag,
)
from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL


def build_correlation_dag_reference(game: Game, concept: str = "efce",
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
