"""The flat index of a (filtered) game with ordered signals, assembled from its parts by broadcasting.

The game tree of an :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame` with information
filter F (:class:`~lpgame.abstraction.views.ViewPartition`; the identity filter gives the game
itself) is the product of the signal deals and the public betting tree (Gilpin & Sandholm,
Proposition 1: Γ_F is an extensive-form game with perfect recall). Its sequence form is written
down without visiting a product node (Koller, Megiddo & von Stengel 1996 for the sequence form):

* player i's **information sets** are the pairs (class c of i's view at round j, public node q of
  round j where i acts) — i knows its filtered signals and the public history (Definition 3);
* player i's **sequences** are (c, public sequence of i in round j), numbered
  ``1 + off_{i,j} + c·P_{i,j} + local`` (P_{i,j}: i's public sequences in round j), so the sequences of
  an information set are contiguous; the parent sequence of (c, q) is i's last public sequence
  before q with the class of that round containing c (perfect recall by information preservation);
* the **leaves** of round j are the pairs (joint state a, public leaf ℓ of round j), where the joint
  state is the pair of both players' classes at the end of round j; the chance weight of a is
  W(a) = Σ_{deals d in a} p(d) and the payoff is the chance-weighted average over the real deals in
  the class, Σ_o W_o(a)·u_ℓ(o) / W(a), o the showdown outcome (the filtered game's payoff rule,
  notes §A.2: "the average of all real signals in the filtered class, weighted by probability").

Joint states, their weights and outcome weights come from one ``np.unique``/``bincount`` over the
deals per round; the leaf arrays are (joint states × public leaves) broadcasts. Memory is predicted
first (:mod:`lpgame.limits`): the unabstracted Rhode Island Hold'em (4·10⁹ leaves) is refused, and
its sizes come from :func:`sequence_form_sizes` instead, which needs only the counts.

>>> from lpgame.abstraction.ordered_game import leduc_ordered
>>> sequence_form_sizes(leduc_ordered())["lp"]            # card-level Leduc, not built
{'rows': 1562, 'cols': 1562, 'nnz': 8642}
>>> compile_ordered_game(leduc_ordered()).sizes()["infosets"]
[468, 468]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.abstraction.signal_rules import OrderedSignalRules
from lpgame.abstraction.views import ViewIndex, ViewPartition, encode_rows
from lpgame.errors import InvalidGameError
from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import CompiledTreeIndex, PlayerIndex
from lpgame.limits import check_prediction

# peak bytes per leaf while the index and its sequence form are built (measured on Rhode Island
# Hold'em with 5 ranks × 2 suits, 3.2·10⁶ leaves: 484 MB)
BYTES_PER_LEAF = 160


def view_index(game: OrderedSignalRules) -> ViewIndex:
    """The game's :class:`ViewIndex` (built once, cached on the game)."""
    cached = getattr(game, "_view_index", None)
    if cached is None:
        cached = ViewIndex(game)
        game._view_index = cached
    return cached


def round_classes(game: OrderedSignalRules, partition: ViewPartition, round_index: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Both players' classes of every deal at the end of round ``round_index``."""
    views = view_index(game)
    return tuple(partition.view_class[i][round_index][views.of_deal[i][round_index]]
                 for i in range(2))


def joint_states(game: OrderedSignalRules, partition: ViewPartition, round_index: int,
                 exact: bool = False):
    """Joint states a = (class of player 1, class of player 2) at the end of a round.

    Returns (classes: A × 2, weight W(a), outcome weights W_o(a): A × 3 or None before the last
    round, exact weights as two lists of Fractions or None).
    """
    c0, c1 = round_classes(game, partition, round_index)
    size1 = partition.num_classes(1, round_index)
    key = c0.astype(np.int64) * size1 + c1
    depth = game.round_end_depth[round_index]
    cards, prob, _ = game.deals(depth)
    last = round_index == len(game.rounds) - 1
    uniq, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    A = len(uniq)
    weight = np.bincount(inverse, weights=prob, minlength=A)
    by_outcome = None
    outcome = None
    if last:
        outcome = game.outcomes(cards)
        by_outcome = np.bincount(inverse * 3 + outcome, weights=prob, minlength=3 * A).reshape(A, 3)
    exact_data = None
    if exact:
        probs = game.deal_probabilities_exact(depth)
        w_exact = [Fraction(0)] * A
        o_exact = [[Fraction(0)] * 3 for _ in range(A)]
        for a, p, o in zip(inverse.tolist(), probs,
                           outcome.tolist() if last else [0] * len(probs)):
            w_exact[a] += p
            o_exact[a][o] += p
        exact_data = (w_exact, o_exact if last else None)
    classes = np.stack([uniq // size1, uniq % size1], axis=1)
    return classes, weight, by_outcome, exact_data


class OrderedIndex(CompiledTreeIndex):
    """TreeIndex of a compiled ordered game; exact leaf data is built when asked (small games)."""


class OrderedIndexedGame(IndexedGame):
    """A compiled (filtered) ordered game: what SequenceForm, the LP and best responses read.

    Keeps ``ordered`` (the rules), ``partition`` (the filter) and ``views`` for lifting strategies.
    """

    def __init__(self, ordered: OrderedSignalRules, partition: ViewPartition, index: OrderedIndex,
                 name: str, counts: dict):
        self.ordered = ordered
        self.partition = partition
        self.views = view_index(ordered)
        self.index = index
        self.name = name
        self.num_players = 2
        self.player_names = list(ordered.player_names)
        self.counts = counts

    def sizes(self) -> dict:
        out = super().sizes()
        out["internal_nodes"] = out["chance_nodes"] + sum(out["decision_nodes"])
        return out

    def __repr__(self) -> str:
        s = self.sizes()
        return (f"OrderedIndexedGame({self.name!r}, nodes={s['nodes']}, infosets={s['infosets']}, "
                f"sequences={s['sequences']})")


def _class_texts(game: OrderedSignalRules, views: ViewIndex, partition: ViewPartition,
                 identity: bool) -> list[list[list[str]]]:
    """Text of each class's own round signals: the view's text, or members joined by ``~``."""
    r = len(game.rounds)
    out = [[None] * r for _ in range(2)]
    for i in range(2):
        for j in range(r):
            classes = partition.view_class[i][j]
            C = partition.num_classes(i, j)
            if identity:
                out[i][j] = [views.text(i, j, v) for v in range(C)]
                continue
            members: list[list[str]] = [[] for _ in range(C)]
            for v, c in enumerate(classes.tolist()):
                members[c].append(views.text(i, j, v))
            texts = []
            for m in members:
                distinct = list(dict.fromkeys(m))
                text = "~".join(distinct) if len(distinct) <= 3 else \
                    f"{distinct[0]}~{distinct[1]}~…({len(distinct)})"
                texts.append(text)
            # the same text under one parent would give two information sets one label
            parent = partition.class_parent[i][j]
            seen: dict[tuple[int, str], int] = {}
            for c in range(C):
                k = (int(parent[c]), texts[c])
                if k in seen:
                    texts[c] = f"{texts[c]}#{c}"
                seen[k] = c
            out[i][j] = texts
    return out


def compile_ordered_game(game: OrderedSignalRules, partition: ViewPartition | None = None,
                         memory_limit: int | None = None, name: str | None = None
                         ) -> OrderedIndexedGame:
    """Assemble the flat index of ``game`` filtered by ``partition`` (module docstring)."""
    views = view_index(game)
    identity = partition is None
    if identity:
        partition = ViewPartition.identity(views)
    tree = game.tree
    r = len(game.rounds)
    sizes = sequence_form_sizes(game, partition)
    check_prediction(f"compiling {game.name} ({sizes['terminals']} leaves; `lpgame info NAME "
                     "--abstraction gameshrink` reports its sizes without building it)",
                     sizes["terminals"] * BYTES_PER_LEAF + sum(sizes["infosets"]) * 200, memory_limit)
    C = partition.counts()
    P = [[tree.num_local[j][i] for j in range(r)] for i in range(2)]
    off = [np.concatenate([[0], np.cumsum([C[i][j] * P[i][j] for j in range(r)])]).astype(np.int64)
           for i in range(2)]

    def seq_id(i, j_seq, classes, local):
        return 1 + off[i][j_seq] + classes * P[i][j_seq] + local

    texts = _class_texts(game, views, partition, identity)
    sep = game.label_separator
    players = []
    for i in range(2):
        p = PlayerIndex()
        firsts, parents, depths, labels, actions = [], [], [], [], []
        for j in range(r):
            nodes = tree.decisions[j][i]
            if not nodes:
                continue
            classes = np.repeat(np.arange(C[i][j]), len(nodes))
            node_arr = np.tile(np.arange(len(nodes)), C[i][j])
            local_first = np.array([tree.first_local[q] for q in nodes], dtype=np.int64)
            firsts.append(seq_id(i, j, classes, local_first[node_arr]))
            par = np.zeros(len(classes), dtype=np.int64)
            for k, q in enumerate(nodes):
                pj, ps = tree.parent_seq[q]
                if pj < 0:
                    continue
                mask = node_arr == k
                anc = partition.ancestor(i, j, classes[mask], pj)
                par[mask] = seq_id(i, pj, anc, ps)
            parents.append(par)
            depths.append(np.array([tree.own_depth[q] for q in nodes], dtype=np.int64)[node_arr])
            chains = [partition.ancestor(i, j, np.arange(C[i][j]), k) for k in range(j + 1)]
            histories = [[tree.history_text(q, k) for k in range(j + 1)] for q in nodes]
            for c in range(C[i][j]):
                head = [texts[i][k][int(chains[k][c])] for k in range(j + 1)]
                for k_node, q in enumerate(nodes):
                    hist = histories[k_node]
                    label = head[0]
                    for k in range(j + 1):
                        if k > 0:
                            label += sep + head[k]
                        if hist[k]:
                            label += (sep if k == 0 else " ") + hist[k]
                    labels.append(label)
                    actions.append(tree.nodes[q].actions)
        p.infoset_first_seq = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
        p.infoset_parent_seq = np.concatenate(parents) if parents else np.zeros(0, dtype=np.int64)
        p.infoset_depth = np.concatenate(depths) if depths else np.zeros(0, dtype=np.int64)
        p.infoset_labels = labels
        p.infoset_actions = actions
        p.num_sequences = int(1 + off[i][-1])
        p.num_decision_nodes = sizes["decision_nodes"][i]
        if len(set(labels)) != len(labels):
            raise InvalidGameError(f"{game.name}: information-set labels of player {i + 1} are not "
                                   "unique; signal labels must tell signals apart")
        p.finalize()
        players.append(p)

    seq_parts, chance_parts, pay_parts, exact_parts = [], [], [], []
    for j in range(r):
        leaves = tree.leaves[j]
        if not leaves:
            continue
        classes, weight, by_outcome, _ = joint_states(game, partition, j)
        A = len(weight)
        seqs = np.zeros((A, len(leaves), 2), dtype=np.int64)
        for k, leaf in enumerate(leaves):
            for i in range(2):
                lj, ls = tree.nodes[leaf].last_seq[i]
                if lj >= 0:
                    anc = partition.ancestor(i, j, classes[:, i], lj)
                    seqs[:, k, i] = seq_id(i, lj, anc, ls)
        table = np.array([[float(u) for u in tree.leaf_payoffs(leaf)] for leaf in leaves])  # L × 3
        if by_outcome is None:
            u1 = np.broadcast_to(table[:, 0][None, :], (A, len(leaves)))
        else:
            u1 = (by_outcome @ table.T) / weight[:, None]
        seq_parts.append(seqs.reshape(-1, 2))
        chance_parts.append(np.repeat(weight, len(leaves)))
        pay_parts.append(np.stack([u1.reshape(-1), -u1.reshape(-1)], axis=1))
        exact_parts.append((j, leaves))

    def build_exact():
        chance, payoffs = [], []
        for j, leaves in exact_parts:
            _, _, _, (w_exact, o_exact) = joint_states(game, partition, j, exact=True)
            tables = [tree.leaf_payoffs(leaf) for leaf in leaves]
            for a, w in enumerate(w_exact):
                for table in tables:
                    if o_exact is None:
                        u = Fraction(table[0])
                    else:
                        u = sum((o_exact[a][o] * Fraction(table[o]) for o in range(3)),
                                Fraction(0)) / w
                    chance.append(w)
                    payoffs.append((u, -u))
        return chance, payoffs

    index = OrderedIndex(players=players, num_nodes=sizes["nodes"],
                         num_chance_nodes=sizes["chance_nodes"],
                         sequences=np.concatenate(seq_parts), chance=np.concatenate(chance_parts),
                         payoffs=np.concatenate(pay_parts), exact_builder=build_exact)
    suffix = "" if identity else " [GameShrink abstraction]"
    return OrderedIndexedGame(game, partition, index, name or (game.name + suffix), sizes)


def joint_states_at_depth(game: OrderedSignalRules, partition: ViewPartition, depth: int) -> int:
    """Nodes of the filtered signal tree at ``depth``: distinct tuples of what each player has seen,
    filtered (its class at the current round once its view of the round is complete, else its class
    of the previous round and the raw signals of the round seen so far)."""
    views = view_index(game)
    cards, _, _ = game.deals(depth)
    if depth == 0:
        return 1
    j = game.level_round[depth - 1]
    n = len(game.signals)
    keys = []
    for i in range(2):
        cols = views.columns[i][j]
        if cols and max(cols) < depth:
            keys.append(partition.view_class[i][j][views.views_of(i, j, cards)])
            continue
        prev = (partition.view_class[i][j - 1][views.views_of(i, j - 1, cards)] if j > 0
                else np.zeros(len(cards), dtype=np.int64))
        lo = game.round_end_depth[j - 1] if j > 0 else 0
        seen = [k for k in range(lo, depth) if game.level_owner[k] in (-1, i)]
        raw = encode_rows(cards[:, seen], n) if seen else np.zeros(len(cards), dtype=np.int64)
        keys.append(prev.astype(np.int64) * (n ** len(seen)) + raw)
    k0 = np.unique(keys[0], return_inverse=True)[1].reshape(-1)
    k1 = np.unique(keys[1], return_inverse=True)[1].reshape(-1)
    return int(len(np.unique(k0.astype(np.int64) * (int(k1.max()) + 1) + k1)))


def sequence_form_sizes(game: OrderedSignalRules, partition: ViewPartition | None = None,
                        count_nonzeros: bool = False) -> dict:
    """Sizes of the (filtered) game and of lpgame's sequence-form LP, from counts alone.

    Information sets Σ_j C_{i,j}·|Q_{i,j}| and sequences 1 + Σ_j C_{i,j}·P_{i,j} (C: classes of i's
    views at round j, Q: i's public decision nodes of round j); leaves Σ_j A_j·L_j (A_j joint states,
    L_j public leaves of round j). The LP is the security LP of :mod:`lpgame.equilibria.zero_sum.security`
    (notes §A.11): rows |H_1| + 1 + |Σ_2|, columns |Σ_1| + |H_2| + 1, nonzeros those of F_1, F_2ᵀ
    (1 + |H_i| + |Σ_i| − 1 each) and one per leaf of the payoff matrix (lpgame stores the zeros of
    split pots too); with ``count_nonzeros`` also ``payoff_nonzeros``, the leaves whose
    chance-weighted payoff is not zero.
    """
    views = view_index(game)
    if partition is None:
        partition = ViewPartition.identity(views)
    tree = game.tree
    r = len(game.rounds)
    C = partition.counts()
    infosets = [sum(C[i][j] * len(tree.decisions[j][i]) for j in range(r)) for i in range(2)]
    sequences = [1 + sum(C[i][j] * tree.num_local[j][i] for j in range(r)) for i in range(2)]
    joint = []
    for j in range(r):
        c0, c1 = round_classes(game, partition, j)
        joint.append(int(len(np.unique(c0.astype(np.int64) * partition.num_classes(1, j) + c1))))
    terminals = sum(joint[j] * len(tree.leaves[j]) for j in range(r))
    payoff_nonzeros = _payoff_nonzeros(game, partition) if count_nonzeros else None
    decision_nodes = [sum(joint[j] * len(tree.decisions[j][i]) for j in range(r)) for i in range(2)]
    chance_nodes = 0
    for j in range(r):
        lo = game.round_end_depth[j - 1] if j > 0 else 0
        for depth in range(lo, game.round_end_depth[j]):
            chance_nodes += joint_states_at_depth(game, partition, depth) * len(tree.starts[j])
    F_nnz = [1 + infosets[i] + sequences[i] - 1 for i in range(2)]
    lp = {"rows": infosets[0] + 1 + sequences[1], "cols": sequences[0] + infosets[1] + 1,
          "nnz": F_nnz[0] + F_nnz[1] + terminals}
    return {"infosets": infosets, "sequences": sequences, "terminals": terminals,
            "decision_nodes": decision_nodes, "chance_nodes": chance_nodes,
            "internal_nodes": chance_nodes + sum(decision_nodes),
            "nodes": chance_nodes + sum(decision_nodes) + terminals,
            "joint_states": joint, "classes": C, "lp": lp, "payoff_nonzeros": payoff_nonzeros}


def _payoff_nonzeros(game: OrderedSignalRules, partition: ViewPartition) -> int:
    """Leaves whose chance-weighted payoff is not zero (the nonzeros of the payoff matrix when
    explicit zeros, e.g. the split pots of ties, are not stored)."""
    tree = game.tree
    total = 0
    for j in range(len(game.rounds)):
        if not tree.leaves[j]:
            continue
        _, weight, by_outcome, _ = joint_states(game, partition, j)
        tables = np.array([[float(u) for u in tree.leaf_payoffs(leaf)] for leaf in tree.leaves[j]])
        unique, multiplicity = np.unique(tables, axis=0, return_counts=True)
        for table, count in zip(unique, multiplicity.tolist()):   # a few dozen payoff tables
            values = weight * table[0] if by_outcome is None else by_outcome @ table
            scale = max(float(np.abs(values).max()), 1e-300)
            total += count * int(np.count_nonzero(np.abs(values) > 1e-12 * scale))
    return total


__all__ = ["compile_ordered_game", "sequence_form_sizes", "joint_states", "OrderedIndexedGame",
           "view_index", "joint_states_at_depth"]
