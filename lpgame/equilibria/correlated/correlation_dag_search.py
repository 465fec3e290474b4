"""The construction of the correlation DAG: the breadth-first search over its beliefs.

**Source.** The DAG is defined in :mod:`lpgame.equilibria.correlated.correlation_dag` (Zhang,
Farina, Celli & Sandholm, EC 2022 / MOR 2025; the team belief DAG of Zhang, Farina & Sandholm,
ICML 2023, built for the mediator of the augmented game G′); this module is the search that
builds it or counts it. The definitions it implements:

* a *stop* is a decision node of G′ (a team node, or a deviator's node); the frontier of a stop
  is what the game reaches from it through chance and the deviation choice;
* a *belief* is a connected component of reached stops, two stops being connected when some team
  member has a common next information set below both; at a belief the mediator picks one action
  at every team information set meeting it (a *prescription*, |prescriptions| = Π_k |A_k|);
* the children of a prescription are the components of the stops it reaches; beliefs are
  memoised by their set of stops, so the result is a DAG.

**Search.** Breadth first, each stop coded as one integer (node × W + tag + 1, W > the number of
gates) so that a belief is a tuple of ints sorted by (node, tag). Per belief, what each
(information set k, action a) reaches is split into components once (memoised by the reached
stops); a component sharing no key with a component of another part is a child whatever the
prescription, the others are joined per prescription through the chosen parts' bit mask (the
parts of one information set's other actions are never chosen together), memoised per mask.
Each distinct child is looked up once per belief.

**Cap.** Every belief found (queued, not yet expanded) is in the DAG, so the sum of their
prescription counts Σ_B Π_k |A_k| is a sound lower bound on the DAG's size; the search stops as
soon as it passes ``max_edges`` (ModelTooLargeError when building; an incomplete count, whose
``edges`` is that bound, when counting).

**Count.** With ``count_only`` no prescription is materialised: leaves and the children that join
nothing are counted in closed form (a part reached by action a at k is met by count / |A_k|
prescriptions), and only the information sets whose parts can join are enumerated. The figures
are exact when the search completes.
"""

from __future__ import annotations

import gc
import itertools
import math
import time
from collections import deque

import numpy as np

from lpgame import progress
from lpgame.errors import InvalidGameError, ModelTooLargeError
from lpgame.game.tree import Game
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL

FALLBACK = ("efce with method='column_generation' (optionally target_gap), or the normal-form "
            "concepts ce / cce")
"""What still applies to a game whose correlation DAG is too large or that is not timeable."""
MEMO_ENTRIES = 1_000_000
"""Most memoised component lists the construction keeps (it starts afresh past it)."""
REPORT_SECONDS = 1.0
"""Seconds between progress reports of the construction (the figures: beliefs expanded, found,
prescriptions, and the prescriptions predicted at the end: so far × found / expanded)."""


def search_correlation_dag(game: Game, concept: str, max_edges, count_only: bool) -> dict:
    """The breadth-first search over beliefs (module docstring) of ``concept``'s DAG: with
    ``count_only`` its sizes (:func:`~lpgame.equilibria.correlated.correlation_dag.count_correlation_dag`),
    else the fields of a :class:`~lpgame.equilibria.correlated.correlation_dag.CorrelationDag`.

    Python's cyclic garbage collector is paused during the search: it allocates millions of
    tuples and lists, none in a cycle, and the collector's passes over the growing memo tables
    took a third of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _search(game, concept, max_edges, count_only)
    finally:
        if enabled:
            gc.enable()


def _search(game: Game, concept: str, max_edges, count_only: bool) -> dict:
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

    # a stop (node, tag) is coded node × W + tag + 1 (there are at most N gates), so a belief is a
    # tuple of ints, and sorting the codes sorts the stops by (node, tag)
    W = N + 2
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
                stops.append(v * W + t + 1)
            elif kind[v] == 0:
                leaves.append(leaf_number(t, leaf[v]))
            else:
                todo.extend(children[v])
        memo[state] = (stops, leaves)
        return stops, leaves

    reach_memo: dict[tuple[int, int], list] = {}

    def stop_reach(v: int, t: int) -> list[tuple[list, list]]:
        """Per action r of team stop (v, t): the stops and G′ leaves it reaches (through a gate's
        deviation branches too), memoised (tags and leaves get their numbers at the first call,
        as they would without the memo)."""
        got = reach_memo.get((v, t))
        if got is None:
            got = []
            for r, c in enumerate(children[v]):
                f_stops, f_leaves = frontier((c, t))
                if t < 0 and gate[v]:
                    g = tag(v, r if split else -1)
                    f_stops, f_leaves = list(f_stops), list(f_leaves)
                    for cb in children[v]:
                        d_stops, d_leaves = frontier((cb, g))
                        f_stops.extend(d_stops)
                        f_leaves.extend(d_leaves)
                got.append((f_stops, f_leaves))
            reach_memo[(v, t)] = got
        return got

    player_of_key = key_player.tolist()
    actions_of_key = key_actions.tolist()
    keys_memo: dict[tuple[int, int], frozenset] = {}

    def stop_keys(s: tuple[int, int]) -> frozenset:
        """The team's next information sets below stop ``s`` (those of its deviator excluded)."""
        got = keys_memo.get(s)
        if got is None:
            v, t = divmod(s, W)
            got = nxt[v]
            if t:
                dev = tag_player[t - 1]
                got = frozenset(k for k in got if player_of_key[k] != dev)
            keys_memo[s] = got
        return got

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

    components_memo: dict[tuple, list] = {}

    def components(stops: list) -> list[tuple[tuple, frozenset]]:
        """The connected components of ``stops``, each with the team keys below it (memoised by
        the stops: the same reached set recurs at many beliefs)."""
        if len(stops) == 1:
            return [((stops[0],), stop_keys(stops[0]))]
        key = tuple(stops)
        got = components_memo.get(key)
        if got is None:
            if len(components_memo) >= MEMO_ENTRIES:
                components_memo.clear()
            keysets = [stop_keys(s) for s in stops]
            got = components_memo[key] = [
                (tuple(sorted(stops[q] for q in group)),
                 frozenset().union(*(keysets[q] for q in group))) for group in merge(keysets)]
        return got

    belief_id: dict[tuple, int] = {}
    belief_states: list[tuple] = []
    queue: deque[int] = deque()

    found_keys: list[tuple[int, ...]] = []       # per belief found: the team keys it decides
    found_edges = 0                              # and all their prescriptions: a lower bound

    def belief(states: tuple) -> int:
        nonlocal found_edges
        b = belief_id.get(states)
        if b is None:
            b = belief_id[states] = len(belief_states)
            belief_states.append(states)
            queue.append(b)
            keys = set()
            for s in states:
                v, t = divmod(s, W)
                if not t or player_of_key[key_of[v]] != tag_player[t - 1]:
                    keys.add(key_of[v])
            keys = tuple(sorted(keys))
            found_keys.append(keys)
            found_edges += math.prod(actions_of_key[k] for k in keys)
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
    num_edges = num_children = num_leaf_pairs = 0
    next_report = time.perf_counter() + REPORT_SECONDS
    while queue:
        if found_edges > max_edges:
            # every belief found is in the DAG: it has at least found_edges prescriptions
            if count_only:
                return {"beliefs": len(belief_states), "edges": found_edges,
                        "children": num_children, "leaf_pairs": num_leaf_pairs,
                        "complete": False, "seconds": time.perf_counter() - start}
            raise ModelTooLargeError(
                f"{game.name}: the {concept.upper()} correlation DAG has more than {max_edges:,} "
                f"prescriptions, the cap (max_dag_edges): the {len(belief_states):,} beliefs "
                f"found (after expanding {len(belief_keys):,}) already have {found_edges:,}; "
                f"raise max_dag_edges or use {FALLBACK}")
        b = queue.popleft()
        states = belief_states[b]
        decoded = [divmod(s, W) for s in states]     # (node, tag + 1)
        team = [(v, t - 1) for v, t in decoded
                if not t or player_of_key[key_of[v]] != tag_player[t - 1]]
        keys = found_keys[b]
        max_keys = max(max_keys, len(keys))
        belief_keys.append(keys)
        sizes = [actions_of_key[k] for k in keys]
        count = math.prod(sizes)
        # the deviators' nodes reach every child whatever the prescription
        fixed_stops: list = []
        fixed_leaves: list = []
        for v, t in decoded:
            if t and player_of_key[key_of[v]] == tag_player[t - 1]:
                for c in children[v]:
                    f_stops, f_leaves = frontier((c, t - 1))
                    fixed_stops.extend(f_stops)
                    fixed_leaves.extend(f_leaves)
        reach: dict[tuple[int, int], tuple[list, list]] = {}
        for v, t in team:
            k = key_of[v]
            for r, (f_stops, f_leaves) in enumerate(stop_reach(v, t)):
                got = reach.get((k, r))
                if got is None:
                    reach[(k, r)] = (list(f_stops), list(f_leaves))
                else:
                    got[0].extend(f_stops)
                    got[1].extend(f_leaves)
        # components within each prescription-independent part; per prescription they join
        # only through keys that two parts share
        fixed_parts = components(fixed_stops)
        parts = {ka: components(got[0]) for ka, got in reach.items()}
        # keys below parts of two sources (the deviators' part, or two information sets): only
        # those can join parts (the components of one part share no key, and the parts of one
        # information set's different actions are never chosen together)
        source_of: dict[int, int] = {}
        shared_keys: set[int] = set()
        for _, ks in fixed_parts:
            for k in ks:
                source_of[k] = -1
        for (k_src, _), comps in parts.items():
            for _, ks in comps:
                for k in ks:
                    if source_of.setdefault(k, k_src) != k_src:
                        shared_keys.add(k)
        shared = frozenset(shared_keys)

        def split_parts(comps: list, shared: frozenset = shared) -> tuple[list, list]:
            alone, joined = [], []
            for stops, ks in comps:
                ks = ks & shared
                if ks:
                    joined.append((stops, ks))
                else:
                    alone.append(stops)
            return alone, joined
        fixed_alone, fixed_joined = split_parts(fixed_parts)
        # the belief's possible children get local numbers: local_comp[l] its stops, and
        # local_global[l] its belief number once known (children are looked up once per belief)
        local_comp: list[tuple] = list(fixed_alone)
        fixed_ids = list(range(len(local_comp)))
        part_ids, part_leaves = [], []
        # the parts that can join, numbered; bit q of a mask is part q; adjacency: a shared key
        joined_local: list[int] = []
        joined_keys: list[frozenset] = []
        for stops, ks in fixed_joined:
            joined_local.append(len(local_comp))
            local_comp.append(stops)
            joined_keys.append(ks)
        fixed_mask = (1 << len(joined_local)) - 1
        part_mask = []
        for k, size in zip(keys, sizes):
            ids, masks = [], []
            for a in range(size):
                alone, joined = split_parts(parts[(k, a)])
                ids.append(list(range(len(local_comp), len(local_comp) + len(alone))))
                local_comp.extend(alone)
                mask = 0
                for stops, ks in joined:
                    mask |= 1 << len(joined_local)
                    joined_local.append(len(local_comp))
                    local_comp.append(stops)
                    joined_keys.append(ks)
                masks.append(mask)
            part_ids.append(ids)
            part_mask.append(masks)
            part_leaves.append([reach[(k, a)][1] for a in range(size)])
        holders: dict[int, int] = {}
        for q, ks in enumerate(joined_keys):
            for k in ks:
                holders[k] = holders.get(k, 0) | (1 << q)
        adjacent = []
        for ks in joined_keys:
            mask = 0
            for k in ks:
                mask |= holders[k]
            adjacent.append(mask)
        found_of_mask: dict[int, list[int]] = {}
        merged_of: dict[tuple, int] = {}

        def joined_children(chosen: int, found_of_mask: dict = found_of_mask,
                            adjacent: list = adjacent, joined_local: list = joined_local,
                            local_comp: list = local_comp, merged_of: dict = merged_of
                            ) -> list[int]:
            """The components the chosen parts (a mask) form, as local numbers: connected
            through shared keys (parts of one information set's other actions are never chosen
            together)."""
            got = found_of_mask.get(chosen)
            if got is None:
                got = []
                rest = chosen
                while rest:
                    group = todo = rest & -rest
                    while todo:
                        bit = todo & -todo
                        todo ^= bit
                        new = adjacent[bit.bit_length() - 1] & rest & ~group
                        group |= new
                        todo |= new
                    rest &= ~group
                    if group & (group - 1):
                        members = []
                        while group:
                            bit = group & -group
                            group ^= bit
                            members.extend(local_comp[joined_local[bit.bit_length() - 1]])
                        comp = tuple(sorted(members))
                        lid = merged_of.get(comp)
                        if lid is None:
                            lid = merged_of[comp] = len(local_comp)
                            local_comp.append(comp)
                        got.append(lid)
                    else:
                        got.append(joined_local[group.bit_length() - 1])
                found_of_mask[chosen] = got
            return got
        if count_only:
            # the components that join nothing, and the leaves, in closed form; the joins by
            # enumerating only the information sets whose parts can join
            registered = [False] * len(local_comp)
            for i, size in enumerate(sizes):
                rest = count // size
                for a in range(size):
                    num_children += rest * len(part_ids[i][a])
                    num_leaf_pairs += rest * len(part_leaves[i][a])
                    for lid in part_ids[i][a]:
                        belief(local_comp[lid])
            num_children += count * len(fixed_ids)
            num_leaf_pairs += count * len(fixed_leaves)
            for lid in fixed_ids:
                belief(local_comp[lid])
            joining = [i for i in range(len(keys)) if any(part_mask[i])]
            rest = count // math.prod(sizes[i] for i in joining)
            if fixed_mask or joining:
                for choice in itertools.product(*(range(sizes[i]) for i in joining)):
                    chosen = fixed_mask
                    for i, a in zip(joining, choice):
                        chosen |= part_mask[i][a]
                    found = joined_children(chosen)
                    num_children += rest * len(found)
                    for lid in found:
                        if lid >= len(registered):
                            registered.extend([False] * (lid + 1 - len(registered)))
                        if not registered[lid]:
                            registered[lid] = True
                            belief(local_comp[lid])
            num_edges += count
        else:
            local_global: list[int] = []
            first_stop: list[int] = []
            for actions in itertools.product(*(range(size) for size in sizes)):
                e = num_edges
                num_edges += 1
                edge_belief.append(b)
                edge_actions.append(actions)
                found = list(fixed_ids)
                leaves = list(fixed_leaves)
                chosen = fixed_mask
                for i, a in enumerate(actions):
                    found.extend(part_ids[i][a])
                    chosen |= part_mask[i][a]
                    leaves.extend(part_leaves[i][a])
                leaf_edge.extend([e] * len(leaves))
                leaf_index.extend(leaves)
                if chosen:
                    found.extend(joined_children(chosen))
                if len(local_global) < len(local_comp):
                    first_stop.extend(c[0] for c in local_comp[len(local_global):])
                    local_global.extend([-1] * (len(local_comp) - len(local_global)))
                # the children of one prescription are disjoint: sorting them by their first
                # stop sorts their tuples
                found.sort(key=first_stop.__getitem__)
                child_edge.extend([e] * len(found))
                for lid in found:
                    g = local_global[lid]
                    if g < 0:
                        g = local_global[lid] = belief(local_comp[lid])
                    child_belief.append(g)
        if time.perf_counter() >= next_report:
            next_report = time.perf_counter() + REPORT_SECONDS
            processed = b + 1
            progress.report(f"{concept.upper()} correlation DAG" + (" (counting)" if count_only
                                                                     else ""),
                            beliefs=processed, found=len(belief_states), edges=num_edges,
                            predicted_edges=int(num_edges * len(belief_states) / processed))
    if count_only:
        return {"beliefs": len(belief_states), "edges": num_edges,
                "children": num_children, "leaf_pairs": num_leaf_pairs,
                "complete": True, "seconds": time.perf_counter() - start}
    i64 = np.int64
    return dict(
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
